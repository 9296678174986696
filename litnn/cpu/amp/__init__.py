"""litnn.cpu.amp: the older spellings of CPU mixed precision, as `torch.cpu.amp`. Hand-written.

Loaded by `litnn/__init__.py` after `litnn.amp` (litnn.cpu itself loads before tensors exist)."""
from .autocast_mode import autocast   # reference/cpu/amp/mixed_precision_casts
from .grad_scaler import GradScaler   # reference/cpu/amp/grad_scaler

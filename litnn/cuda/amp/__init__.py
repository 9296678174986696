"""litnn.cuda.amp: the older spellings of mixed precision, as `torch.cuda.amp`. Hand-written.

Loaded by `litnn/__init__.py` after `litnn.amp` (litnn.cuda itself loads before tensors exist)."""
from .autocast_mode import autocast, custom_fwd, custom_bwd   # 02dc_cuda_amp_mode
from .common import amp_definitely_not_available           # reference/cuda/amp/common
from .grad_scaler import GradScaler                           # 02dd_cuda_amp_grad_scaler

"""Instance normalization, where torch defines it (`torch.nn.modules.instancenorm`). Hand-written: defined in `more_normalization.py` (nbs/25b_more_normalization.ipynb)."""
from .more_normalization import _InstanceNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ['InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d']

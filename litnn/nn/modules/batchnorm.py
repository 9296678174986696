"""Batch normalization, where torch defines it (`torch.nn.modules.batchnorm`). Hand-written: defined in `normalization.py` (nbs/25_normalization.ipynb)."""
from .normalization import _NormBase, _BatchNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d

__all__ = ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d']

"""Pixel shuffle, where torch defines it (`torch.nn.modules.pixelshuffle`). Hand-written: defined in `upsampling.py` (nbs/24c_upsampling.ipynb)."""
from .upsampling import PixelShuffle, PixelUnshuffle

__all__ = ['PixelShuffle', 'PixelUnshuffle']

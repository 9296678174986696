"""`Flatten` and `Unflatten`, where torch defines them (`torch.nn.modules.flatten`). Hand-written: defined in `linear.py` (nbs/21_linear.ipynb)."""
from .linear import Flatten, Unflatten

__all__ = ['Flatten', 'Unflatten']

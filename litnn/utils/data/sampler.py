"""Samplers, where torch defines them (`torch.utils.data.sampler`). Hand-written: they are defined in `dataloader.py` (nbs/31_data.ipynb)."""
from .dataloader import Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler, BatchSampler

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'SubsetRandomSampler', 'WeightedRandomSampler', 'BatchSampler']

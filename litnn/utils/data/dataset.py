"""Datasets, where torch defines them (`torch.utils.data.dataset`). Hand-written: they are defined in `dataloader.py` (nbs/31_data.ipynb)."""
from .dataloader import Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'Subset', 'ConcatDataset', 'random_split']

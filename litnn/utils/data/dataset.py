"""Datasets, where torch defines them (`torch.utils.data.dataset`). Hand-written: they are defined in `dataloader.py` (nbs/31_data.ipynb)."""
from .dataloader import Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split
from .more_datasets import ChainDataset, StackDataset   # 31c_more_datasets

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'Subset', 'ConcatDataset', 'random_split', 'ChainDataset', 'StackDataset']

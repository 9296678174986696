"""litnn.utils.data: datasets, samplers and the DataLoader, as `torch.utils.data`. Hand-written."""
from .dataset import (Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, random_split,   # 31_dataset
                      ChainDataset, StackDataset)                                                      # 31e_chain_stack_datasets
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,  # 31a_sampler
                      BatchSampler)
from ._utils.collate import default_collate, default_convert   # 31b_collate
from ._utils.worker import get_worker_info                     # 31d_worker
from .dataloader import DataLoader                             # 31c_dataloader
from .distributed import DistributedSampler                    # 52b_distributed_sampler
from . import dataset, sampler, dataloader, distributed

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'Subset', 'ConcatDataset', 'random_split', 'ChainDataset',
           'StackDataset', 'Sampler', 'SequentialSampler', 'RandomSampler', 'SubsetRandomSampler', 'WeightedRandomSampler',
           'BatchSampler', 'default_collate', 'default_convert', 'get_worker_info', 'DataLoader', 'DistributedSampler']

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
from .datapipes.datapipe import IterDataPipe, MapDataPipe, DFIterDataPipe, DataChunk        # reference/utils/data/datapipes/datapipe
from .datapipes._decorator import (functional_datapipe, guaranteed_datapipes_determinism, non_deterministic,   # .../decorator
                                   argument_validation, runtime_validation, runtime_validation_disabled)
from . import datapipes

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'Subset', 'ConcatDataset', 'random_split', 'ChainDataset',
           'StackDataset', 'Sampler', 'SequentialSampler', 'RandomSampler', 'SubsetRandomSampler', 'WeightedRandomSampler',
           'BatchSampler', 'default_collate', 'default_convert', 'get_worker_info', 'DataLoader', 'DistributedSampler', 'IterDataPipe', 'MapDataPipe',
           'DFIterDataPipe', 'DataChunk', 'functional_datapipe', 'guaranteed_datapipes_determinism', 'non_deterministic',
           'argument_validation', 'runtime_validation', 'runtime_validation_disabled']

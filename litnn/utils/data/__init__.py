"""litnn.utils.data: datasets, samplers and the DataLoader, as `torch.utils.data`. Hand-written.

nbs/31_data.ipynb exports them all to `dataloader.py`; `dataset.py` and `sampler.py` re-export
them under torch's file names, so `from litnn.utils.data.sampler import RandomSampler` works."""
from .dataloader import *   # 31_data
from .distributed import DistributedSampler   # 52b_distributed_sampler
from .more_datasets import ChainDataset, StackDataset   # 31c_more_datasets
from . import dataset, sampler, dataloader, distributed

"""litnn.nn.parallel: DataParallel and data_parallel, as `torch.nn.parallel` (one device for now), and DistributedDataParallel. Hand-written."""
from .data_parallel import DataParallel, data_parallel   # 50_data_parallel
from .distributed import DistributedDataParallel         # 52_ddp

__all__ = ['DataParallel', 'data_parallel', 'DistributedDataParallel']

"""litnn.nn.parallel: DataParallel and its steps (scatter, replicate, parallel_apply, gather), data_parallel, and DistributedDataParallel, as `torch.nn.parallel`. Hand-written."""
from .data_parallel import DataParallel, data_parallel, scatter, gather, replicate, parallel_apply   # 50_data_parallel
from .distributed import DistributedDataParallel                                                      # 52_ddp

__all__ = ['replicate', 'scatter', 'parallel_apply', 'gather', 'data_parallel', 'DataParallel', 'DistributedDataParallel']

"""litnn.nn.parallel: DataParallel and its steps (scatter, replicate, parallel_apply, gather), data_parallel, and DistributedDataParallel, as `torch.nn.parallel`. Hand-written."""
from .scatter_gather import scatter, gather                            # 50a_scatter_gather
from .replicate import replicate                                       # 50b_replicate
from .parallel_apply import parallel_apply                             # 50c_parallel_apply
from .data_parallel import DataParallel, data_parallel                 # 50_data_parallel
from .distributed import DistributedDataParallel                       # 52_ddp

__all__ = ['replicate', 'scatter', 'parallel_apply', 'gather', 'data_parallel', 'DataParallel', 'DistributedDataParallel']

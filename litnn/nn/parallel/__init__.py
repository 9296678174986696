"""litnn.nn.parallel: DataParallel and data_parallel, as `torch.nn.parallel` (one device for now). Hand-written."""
from .data_parallel import DataParallel, data_parallel   # 50_data_parallel

__all__ = ['DataParallel', 'data_parallel']

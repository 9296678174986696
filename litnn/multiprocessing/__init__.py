"""litnn.multiprocessing: Python's `multiprocessing` whose queues send tensors through shared memory, plus `spawn`, as `torch.multiprocessing`. Hand-written."""
import multiprocessing
from multiprocessing import *   # Process, Queue, SimpleQueue, Pool, get_context, set_start_method, get_start_method, cpu_count...
from .reductions import init_reductions, set_sharing_strategy, get_sharing_strategy, get_all_sharing_strategies   # 53a_multiprocessing
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,   # 53b_spawn
                    spawn, SpawnContext, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"] + multiprocessing.__all__
init_reductions()

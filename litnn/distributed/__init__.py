"""Hand-written: `litnn.distributed`, as `torch.distributed` (nbs/51_*). Importing it does not import mpi4py."""
from .engines import is_available, is_mpi_available, is_gloo_available, is_nccl_available, is_torchelastic_launched   # 50_distributed_engines
from .distributed_c10d import *   # 51_distributed: process groups, all_reduce, reduce, broadcast, barrier, Work
from .distributed_c10d import Backend, ReduceOp, ProcessGroup, GroupMember, group, Work
from .collectives import *        # 51a_collectives: all_gather, reduce_scatter, gather, scatter, all_to_all, send/recv
from .objects import *            # 51c_distributed_objects: all_gather_object, broadcast_object_list... (allow-listed types only)

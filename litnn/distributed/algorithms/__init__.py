"""litnn.distributed.algorithms, as `torch.distributed.algorithms`: DDP's communication hooks (nbs/52_ddp.ipynb). Hand-written."""
from . import ddp_comm_hooks   # 52_ddp
from .join import Join, Joinable, JoinHook   # reference/distributed/algorithms/join

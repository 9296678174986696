"""litnn.distributed.algorithms.ddp_comm_hooks, as torch's: the default hooks (nbs/52_ddp.ipynb). Hand-written."""
from . import default_hooks   # 52_ddp

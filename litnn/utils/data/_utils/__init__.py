"""litnn.utils.data._utils: the DataLoader's collation and worker helpers, as `torch.utils.data._utils`. Hand-written."""
from . import collate   # 31b_collate
from . import worker    # 31d_worker

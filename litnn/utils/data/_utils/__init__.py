"""litnn.utils.data._utils: the DataLoader's collation and worker helpers, as `torch.utils.data._utils`. Hand-written."""
from . import collate   # 31b_collate
from . import worker    # 31d_worker

# torch's interval (seconds) at which its workers and pin-memory thread check on the main process; test files import it.
# litnn starts no workers, so nothing here waits on it.
MP_STATUS_CHECK_INTERVAL = 5.0

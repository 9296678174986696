"""litnn.utils.data.datapipes: the DataPipe base classes and decorators, as `torch.utils.data.datapipes`. Hand-written."""
from . import datapipe                    # reference/utils/data/datapipes/datapipe
from . import _decorator                  # reference/utils/data/datapipes/decorator
from . import iter                        # reference/utils/data/datapipes/iter

"""litnn.utils.benchmark: `Timer`, `Measurement` and `Compare`, as `torch.utils.benchmark` (reference/utils/benchmark). Hand-written."""
from .utils.common import *
from .utils.timer import *
from .utils.compare import *

"""litnn.nn: neural network modules, as `torch.nn`. Hand-written: importing it completes `Module`."""
from .parameter import Parameter, Buffer
from .modules import *
from . import modules
from . import functional
from . import init
from . import utils                       # 30b_clip_grad
from . import parallel                    # 50_data_parallel
from .parallel import DataParallel

from .parameter import UninitializedParameter, UninitializedBuffer   # written by 29b_lazy_modules into nn/parameter.py

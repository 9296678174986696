"""litnn: PyTorch's nn.Module system rebuilt in the open, on numpy and CuPy."""
__version__ = "0.0.1"

# The parts, in dependency order (one notebook each in nbs/).
from .backend import *
from .backend import dtype, device, Generator, default_generator, manual_seed, seed, initial_seed
from . import cuda
from .tensor import *
from ._tensor_str import set_printoptions
from . import autograd
from .autograd.graph import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                             is_inference_mode_enabled, add, sub, mul, div, multiply, divide, subtract, true_divide)
from .ops import *
from .reductions import *
from .views import *
from .indexing import *
from .einsum import einsum          # 03d_einsum
from . import nn
from . import optim                      # 30_optim, 30a_lr_scheduler
from . import distributions              # 33_distributions ... 33v_kl
from .serialization import save, load   # 32_serialization (32a_torch_files: PyTorch files)

"""litnn: PyTorch's nn.Module system rebuilt in the open, on numpy and CuPy."""
__version__ = "0.0.1"

# The parts, in dependency order (one notebook each in nbs/).
from .backend import *
from .backend import dtype, device, Generator, default_generator, manual_seed, seed, initial_seed
from . import cuda
from .tensor import *

"""litnn.backends: the switches of the libraries PyTorch calls, as `torch.backends`. Hand-written."""
from . import cpu        # 16ae_backends_cpu
from . import cuda       # 16ad_backends_cuda
from . import cudnn      # 16ac_backends_cudnn
from . import mha        # reference/backends/mha
from . import mkl        # 16ah_backends_mkl
from . import mkldnn     # 16ag_backends_mkldnn
from . import mps        # 16af_backends_mps
from . import opt_einsum # reference/backends/opt_einsum
from . import quantized  # reference/backends/quantized

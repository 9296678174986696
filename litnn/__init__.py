"""litnn: PyTorch's nn.Module system rebuilt in the open, on numpy and CuPy."""
__version__ = "0.0.1"

# The parts, in dependency order (one notebook each in nbs/).
from .backend import *
from .backend import dtype, device, Generator, default_generator, manual_seed, seed, initial_seed
from . import cuda
from .tensor import *
from .factories import *            # 01a_factories
from ._tensor_str import set_printoptions
from .creation import *              # 01d_creation
from . import meta                  # 18_meta_device: registers device='meta' with the backend
from . import autograd
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,   # 02_grad_mode
                                 is_inference_mode_enabled)
from .autograd.operators import add, sub, mul, div, multiply, divide, subtract, true_divide   # 02_operators
from .autograd.anomaly_mode import is_anomaly_enabled, is_anomaly_check_nan_enabled, set_anomaly_enabled   # 02h_anomaly
from . import amp                        # 02d_amp, 02da_amp_mode, 02db_grad_scaler: autocast, GradScaler
from .amp import autocast, is_autocast_enabled, get_autocast_dtype
from .cuda import amp as _             # 02dc, 02dd: litnn.cuda.amp (needs litnn.amp: not from litnn.cuda)
from .utils import checkpoint as _         # 02e_checkpoint: litnn.utils.checkpoint (needs autograd: not from litnn.utils)
del _
from .ops import *
from .erf_gelu import *               # 03_ops_erf_gelu
from .unary import *                  # 03_ops_unary
from .reductions import *
from .more_reductions import *        # 03aa_more_reductions
from .matrix_products import *        # 03ab_matrix_products
from .views import *
from .dims import *                  # 03ba_dims
from .conversions import *           # 03bb_conversions
from .indexing import *
from .einsum import einsum          # 03d_einsum
from .sorting import *                # 03e_sorting
from .random import *                 # 03f_random
from .scatter import *                # 03g_scatter
from .shapes import *                 # 03h_shapes
from .pointwise import *            # 03h_math
from .pointwise_binary import *     # 03h_math_binary
from .special import lgamma, digamma, polygamma, logit, sinc, mvlgamma   # 03h_special
from . import special
def _into_special(part, skip=()):
    "torch.special gathers functions from several notebooks: add a part's public names to litnn.special."
    names = [n for n in part.__all__ if not n.endswith(('Backward0', '_')) and n not in skip]
    vars(special).update({n: getattr(part, n) for n in names}); special.__all__ += names
from .bessel import i0, i0_; from . import bessel as _p; _into_special(_p)            # 03ha_bessel
from .incomplete_gamma import igamma, igammac; from . import incomplete_gamma as _p; _into_special(_p, ('igamma', 'igammac'))   # 03hb_incomplete_gamma
from . import polynomials as _p; _into_special(_p); del _p                          # 03hc_polynomials
from .products import *             # 03h_products
from .scans import *                # 03h_scans
from . import linalg                # 03i_linalg, 03i_linalg_decompositions
from .linalg.decompositions import _OLD; globals().update(_OLD); del _OLD   # torch.det, torch.inverse, torch.svd...
from .linalg.lu import _OLD; globals().update(_OLD); del _OLD             # 03ib_lu: torch.lu, torch.lu_solve, torch.lu_unpack
from .linalg.solvers import cholesky_solve, cholesky_inverse, triangular_solve, orgqr   # 03ic_linalg_solvers
from . import nn
from . import optim                      # 30_optim, 30a_lr_scheduler
from ._flags import (set_float32_matmul_precision, get_float32_matmul_precision,   # 16a_namespaces
                     use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                     is_deterministic_algorithms_warn_only_enabled)
from . import accelerator              # 16aa_accelerator, 16ab_accelerator_memory
from . import backends                 # 16ac_backends_cudnn ... 16ah_backends_mkl
from . import compiler                 # 16ai_compiler (and Module.compile)
from .compiler import compile
from . import jit                      # 16aj_jit_internal, 16ak_jit_script, 16al_jit_trace
from . import distributions              # 33_distributions ... 33v_kl
from . import distributed                # 51_distributed: torch.distributed on MPI/NCCL (mpi4py imported by init_process_group only)
from .serialization import save, load   # 32_serialization (32a_torch_files: PyTorch files)
from .functional_aliases import *   # 35_functional_aliases: torch.conv2d, torch.dropout... beside nn.functional
from .functional_aliases_more import *   # 35a_more_functional_aliases: torch.convolution, kl_div (reduction as a number), max_pool1d, alpha_dropout_, constant_pad_nd...
from .everyday_extras import *      # 03m_everyday_extras: addcmul, masked_select, repeat_interleave, inner, gcd... and Tensor.stride, new
from .inplace_views import as_strided, as_strided_   # 03o_inplace_views: Tensor.unsqueeze_, squeeze_, t_, transpose_, swapaxes_, swapdims_, as_strided(_)
from .index_put import *             # 03p_index_put: index_put(_), put, index_reduce, select_scatter, slice_scatter, diagonal_scatter
from .more_math import *             # 03q_more_math: matrix_power, vander, combinations, trapezoid, cumulative_trapezoid, gradient, heaviside, renorm, chain_matmul, rsub
from .tensor_odds import *           # 03qa_tensor_odds: fill, range, split_with_sizes, unsafe_split/chunk, can_cast, typename, is_neg, resolve_neg, get_device, empty_strided, frombuffer
from .windows import *               # 03r_windows: hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window
from .statistics import *           # 03ma_statistics: nansum, nanmean, quantile, nanquantile, cov, corrcoef
from .more_extras import *          # 03n_more_extras: torch.relu_, zero_..., broadcast_tensors, block_diag, unravel_index, var_mean, aminmax, addr, logspace, layout, get_rng_state
from .rng_state import (get_num_threads, set_num_threads, get_num_interop_threads, set_num_interop_threads,   # 03fa_rng_state (and litnn.random.fork_rng,
                        init_num_threads)                                                                  #   get_rng_state, set_rng_state)
from . import _pickling                 # 09a_pickling: pickle and deepcopy of tensors
from . import func                      # 36_functional_call, 36a_func, 36b_vmap: litnn.func.functional_call, grad, vmap...
from .func import vmap                  # 36b_vmap: torch.vmap is torch.func.vmap
from . import onnx                       # 60_onnx_tracing, 60a_onnx_translate, 60b_onnx_export (the onnx package only when export runs)
from . import _shared_memory            # 53_shared_memory: Tensor.share_memory_, is_shared (litnn.multiprocessing loads on first use)
from . import testing                   # 37_testing: assert_close, make_tensor, assert_allclose

def __getattr__(name):   # 53a_multiprocessing: litnn.multiprocessing loads on first use, so `import litnn` skips Python's multiprocessing
    if name == 'multiprocessing':
        import importlib
        return importlib.import_module('.multiprocessing', __name__)
    raise AttributeError(f"module 'litnn' has no attribute {name!r}")

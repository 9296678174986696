"""litnn.func: function transforms, as `torch.func`. Hand-written."""
from .eager_transforms import functional_call, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian   # 36_functional_call, 36a_func
from .eager_transforms import stack_module_state, functionalize, linearize   # reference/func/eager_transforms
from .vmap import vmap                    # 36b_vmap
from .vmap import debug_unwrap            # reference/func/batch_norm_replacement
from .einops import rearrange             # reference/func/einops
from .batch_norm_replacement import replace_all_batch_norm_modules_   # reference/func/batch_norm_replacement
from . import batching_rules as _         # 36c_batching_rules: registers vmap's batching rules
del _

__all__ = ['functional_call', 'grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian', 'vmap', 'stack_module_state', 'functionalize', 'linearize', 'debug_unwrap',
           'rearrange', 'replace_all_batch_norm_modules_']

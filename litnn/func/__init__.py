"""litnn.func: function transforms, as `torch.func`. Hand-written."""
from .eager_transforms import functional_call, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian   # 36_functional_call, 36a_func
from .vmap import vmap                    # 36b_vmap

__all__ = ['functional_call', 'grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian', 'vmap']

"""litnn.func: function transforms, as `torch.func`. Hand-written."""
from .eager_transforms import functional_call, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian   # 36a_func

__all__ = ['functional_call', 'grad', 'grad_and_value', 'vjp', 'jvp', 'jacrev', 'jacfwd', 'hessian']

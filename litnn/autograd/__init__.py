"""litnn.autograd: automatic differentiation, as torch.autograd."""
from .engine import (Function, FunctionCtx, Node, grad, backward, gradcheck, gradgradcheck, GradcheckError,
                     no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, is_inference_mode_enabled)

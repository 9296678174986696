"""litnn.autograd: automatic differentiation, as torch.autograd.

Its parts (nbs/02_grad_mode, 02_backprop, 02_broadcasting, 02_operators, 02a_engine, 02a_grad_and_hooks,
02b_function): `grad_mode` (no_grad, enable_grad, inference_mode), `graph` (nodes, how operations record themselves), `broadcasting` (type promotion, broadcasting), `operators`
(`+ - * /`), `engine` (the backward walk, in-place safety), `grad_hooks` (retain_grad, tensor hooks, grad, detach)
and `function` (custom `Function`s and `gradcheck`)."""
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,   # 02_grad_mode
                        is_inference_mode_enabled)
from .graph import Node
from . import broadcasting, operators   # 02_broadcasting, 02_operators: promotion, sum/expand, + - * / (patched onto Tensor)
from .engine import backward
from .grad_hooks import grad          # 02a_grad_and_hooks
from .function import Function, FunctionCtx, gradcheck, gradgradcheck, GradcheckError
from ..autograd.variable import Variable   # 01d_creation: the legacy alias
from . import variable                   # 02i_variable: torch.autograd.variable.Variable, VariableMeta
from . import grad_mode, graph, engine, grad_hooks, function
from . import functional                 # 02c_jacobians: jacobian, hessian, vjp, jvp, vhp, hvp
from . import saved_hooks                # 02f_saved_tensor_hooks (torch's names: autograd.graph reaches them)
from . import anomaly_mode               # 02h_anomaly
from .anomaly_mode import detect_anomaly, set_detect_anomaly

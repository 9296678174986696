"""litnn.linalg: PyTorch's torch.linalg. Hand-written: the parts are exported from their notebooks."""
from .core import *                 # 03i_linalg
from .decompositions import *       # 03i_linalg_decompositions
from .._products import matmul   # torch.linalg.matmul is torch.matmul (03ab_matrix_products)
from .lu import lu_factor, lu_factor_ex, lu, lu_solve                 # 03ib_lu
from .solvers import diagonal, tensorinv, tensorsolve, householder_product   # 03ic_linalg_solvers

# torch.linalg holds functions only: the grad_fn classes and the result types (litnn.return_types, as torch's) stay in
# their modules, off this namespace (`hasattr(torch.linalg, 'linalg_eig')` is False)
from ..autograd.graph import Node as _Node
for _n, _v in list(globals().items()):
    if not _n.startswith('_') and isinstance(_v, type) and (issubclass(_v, _Node) or issubclass(_v, tuple)): del globals()[_n]
del _Node, _n, _v

"""litnn.linalg: PyTorch's torch.linalg. Hand-written: the parts are exported from their notebooks."""
from .core import *                 # 03i_linalg
from .decompositions import *       # 03i_linalg_decompositions
from .._products import matmul   # torch.linalg.matmul is torch.matmul (03ab_matrix_products)
from .lu import lu_factor, lu_factor_ex, lu, lu_solve                 # 03ib_lu
from .solvers import diagonal, tensorinv, tensorsolve, householder_product   # 03ic_linalg_solvers

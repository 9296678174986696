"""linalg on matrices holding NaN or infinity, against torch: what LAPACK computes through (NaN results, slogdet's sign) and
what it refuses (an SVD: torch's LinAlgError naming the non-finite input)."""
import numpy as np
import pytest
import litnn
torch = pytest.importorskip('torch')

NAN, INF = float('nan'), float('inf')
MATRICES = {'one nan': [[1., NAN], [2., 3.]], 'all nan': [[NAN, NAN], [NAN, NAN]], 'an inf': [[1., INF], [2., 3.]],
            'batch, second nan': [[[1., 0.], [0., 1.]], [[1., NAN], [2., 3.]]]}
# (a NaN in the pivot column, [[nan, 1], [2, 3]], is pivoted differently by MKL's and OpenBLAS's idamax: left out)
OPS = {'inv_ex': lambda T, A: T.linalg.inv_ex(A).inverse, 'det': lambda T, A: T.linalg.det(A),
       'slogdet': lambda T, A: T.stack(list(T.linalg.slogdet(A))), 'lu_factor': lambda T, A: T.linalg.lu_factor(A).LU,
       'pinv': lambda T, A: T.linalg.pinv(A), 'svdvals': lambda T, A: T.linalg.svdvals(A), 'matrix_rank': lambda T, A: T.linalg.matrix_rank(A)}

def outcome(T, op, m):
    try: return np.asarray(OPS[op](T, T.tensor(m, dtype=T.float64)).tolist(), dtype=float)
    except RuntimeError as e: return (type(e).__name__.lstrip('_'), str(e).split(':')[0])

@pytest.mark.parametrize('m', list(MATRICES))
@pytest.mark.parametrize('op', list(OPS))
def test_non_finite_matrices_as_torch(op, m):
    want, got = outcome(torch, op, MATRICES[m]), outcome(litnn, op, MATRICES[m])
    if isinstance(want, tuple): assert got == want
    else: np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)

"LU factorization (reference/linalg_lu) and the Cholesky/triangular/tensor solvers (reference/linalg_solvers) against PyTorch: values, pivots, gradients, gradcheck, errors."
import warnings
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
torch = pytest.importorskip('torch')
from torch_pairs import same_error

pytestmark = pytest.mark.filterwarnings('ignore:torch.triangular_solve is deprecated')   # torch's own warning
rng = np.random.default_rng(0)
SHAPES = [(4, 4), (2, 3, 5, 5), (3, 5), (5, 3), (2, 4, 6), (2, 6, 4), (0, 3, 3), (1, 1), (3, 0, 0)]

def close(l, t, tol=1e-10):
    assert tuple(l.shape) == tuple(t.shape)
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)

@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_lu_factor_and_lu_vs_torch(shape, dtype):
    a = rng.standard_normal(shape).astype(dtype)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    l, t = litnn.linalg.lu_factor_ex(litnn.tensor(a)), torch.linalg.lu_factor_ex(torch.tensor(a))
    close(l.LU, t.LU, tol)
    assert l.pivots.dtype == litnn.int32 and l.pivots.tolist() == t.pivots.tolist() and l.info.tolist() == t.info.tolist()
    assert type(l).__name__ == type(t).__name__ == 'linalg_lu_factor_ex'
    for x, y in zip(litnn.linalg.lu(litnn.tensor(a)), torch.linalg.lu(torch.tensor(a))): close(x, y, tol)
    for x, y in zip(litnn.lu_unpack(l.LU, l.pivots), torch.lu_unpack(t.LU, t.pivots)): close(x, y, tol)

def test_zero_pivots_and_errors():
    z = np.stack([np.eye(3), np.zeros((3, 3)), np.diag([1., 0., 2.])])
    l, t = litnn.linalg.lu_factor_ex(litnn.tensor(z)), torch.linalg.lu_factor_ex(torch.tensor(z))
    assert l.info.tolist() == t.info.tolist() == [0, 1, 2] and l.pivots.tolist() == t.pivots.tolist()
    for f in (lambda lib: lib.linalg.lu_factor(lib.tensor(z)), lambda lib: lib.linalg.lu_factor_ex(lib.tensor(z), check_errors=True),
              lambda lib: lib.linalg.lu_factor(lib.tensor(z[1])), lambda lib: lib.linalg.lu_factor(lib.eye(3), pivot=False),
              lambda lib: lib.linalg.lu_factor(lib.ones(3)), lambda lib: lib.linalg.lu_factor(lib.ones(3, 3, dtype=lib.int64)),
              lambda lib: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)), lib.ones(2, 2))):
        with pytest.raises(Exception) as te: f(torch)
        with pytest.raises(te.type) as le: f(litnn)
        assert str(le.value) == str(te.value)

@pytest.mark.parametrize('shape', [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 2, 4)])
def test_lu_gradients_vs_torch(shape):
    a = rng.standard_normal(shape)
    A, tA = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (P, L, U), (tP, tL, tU) = litnn.linalg.lu(A), torch.linalg.lu(tA)
    gl, gu = rng.standard_normal(tuple(L.shape)), rng.standard_normal(tuple(U.shape))
    ((L * litnn.tensor(gl)).sum() + (U * litnn.tensor(gu)).sum()).backward()
    ((tL * torch.tensor(gl)).sum() + (tU * torch.tensor(gu)).sum()).backward()
    close(A.grad, tA.grad)
    A.grad = tA.grad = None
    LU, tLU = litnn.linalg.lu_factor(A).LU, torch.linalg.lu_factor(tA).LU
    assert LU.grad_fn.name() == type(tLU.grad_fn).__name__
    g = rng.standard_normal(tuple(LU.shape))
    LU.backward(litnn.tensor(g)); tLU.backward(torch.tensor(g))
    close(A.grad, tA.grad)

@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('adjoint', [False, True])
def test_lu_solve_vs_torch(left, adjoint):
    a, b = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 3) if left else (2, 3, 4))
    A, B = litnn.tensor(a, requires_grad=True), litnn.tensor(b, requires_grad=True)
    tA, tB = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    X = litnn.linalg.lu_solve(*litnn.linalg.lu_factor(A), B, left=left, adjoint=adjoint)
    tX = torch.linalg.lu_solve(*torch.linalg.lu_factor(tA), tB, left=left, adjoint=adjoint)
    close(X, tX)
    g = rng.standard_normal(tuple(X.shape))
    X.backward(litnn.tensor(g)); tX.backward(torch.tensor(g))
    close(A.grad, tA.grad, 1e-9); close(B.grad, tB.grad, 1e-9)

def test_gradcheck_lu():
    A = litnn.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    B = litnn.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert gradcheck(lambda A: litnn.linalg.lu(A).L, (A,))
    assert gradcheck(lambda A: litnn.linalg.lu_factor(A).LU, (litnn.tensor(rng.standard_normal((3, 4)), requires_grad=True),))
    assert gradcheck(lambda A, B: litnn.linalg.lu_solve(*litnn.linalg.lu_factor(A), B, adjoint=True), (A, B))

def test_older_names():
    a, b = rng.standard_normal((4, 4)), rng.standard_normal((4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t = torch.lu(torch.tensor(a), get_infos=True)
        tx = torch.lu_solve(torch.tensor(b), *torch.tensor(a).lu())
    l = litnn.lu(litnn.tensor(a), get_infos=True)
    for x, y in zip(l, t): close(x, y)
    close(litnn.tensor(b).lu_solve(*litnn.tensor(a).lu()), tx)
    close(litnn.lu_solve(litnn.tensor(b), *litnn.lu(litnn.tensor(a))), tx)
    P, L, U = litnn.lu_unpack(*litnn.lu(litnn.tensor(a)), unpack_data=False)
    assert L.shape == U.shape == (0,) and P.shape == (4, 4)

def spd(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ a.swapaxes(-1, -2) + n * np.eye(n)

@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_solve_inverse_vs_torch(upper):
    L = np.linalg.cholesky(spd(4, (2,)))
    if upper: L = L.swapaxes(-1, -2)
    b = rng.standard_normal((2, 4, 3))
    lL, lb = litnn.tensor(L, requires_grad=True), litnn.tensor(b, requires_grad=True)
    tL, tb = torch.tensor(L, requires_grad=True), torch.tensor(b, requires_grad=True)
    X, tX = litnn.cholesky_solve(lb, lL, upper), torch.cholesky_solve(tb, tL, upper)
    close(X, tX)
    g = rng.standard_normal(tuple(X.shape))
    X.backward(litnn.tensor(g)); tX.backward(torch.tensor(g))
    close(lL.grad, tL.grad, 1e-9); close(lb.grad, tb.grad, 1e-9)
    lL.grad = tL.grad = None
    I, tI = lL.cholesky_inverse(upper), tL.cholesky_inverse(upper)
    close(I, tI)
    g = rng.standard_normal(tuple(I.shape))
    I.backward(litnn.tensor(g)); tI.backward(torch.tensor(g))
    close(lL.grad, tL.grad, 1e-9)

@pytest.mark.parametrize('upper', [True, False])
@pytest.mark.parametrize('transpose', [False, True])
@pytest.mark.parametrize('unitriangular', [False, True])
def test_triangular_solve_vs_torch(upper, transpose, unitriangular):
    a, b = rng.standard_normal((2, 4, 4)) + 3 * np.eye(4), rng.standard_normal((2, 4, 3))
    lA, lb = litnn.tensor(a, requires_grad=True), litnn.tensor(b, requires_grad=True)
    tA, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    l, t = litnn.triangular_solve(lb, lA, upper, transpose, unitriangular), torch.triangular_solve(tb, tA, upper, transpose, unitriangular)
    assert type(l).__name__ == type(t).__name__ == 'triangular_solve'
    close(l.solution, t.solution); close(l.cloned_coefficient, t.cloned_coefficient)
    g = rng.standard_normal((2, 4, 3))
    l.solution.backward(litnn.tensor(g)); t.solution.backward(torch.tensor(g))
    close(lA.grad, tA.grad, 1e-9); close(lb.grad, tb.grad, 1e-9)
    close(lb.detach().triangular_solve(lA.detach(), upper).solution, tb.detach().triangular_solve(tA.detach(), upper).solution)

def test_diagonal_tensorinv_tensorsolve():
    x = rng.standard_normal((2, 3, 4))
    close(litnn.linalg.diagonal(litnn.tensor(x), offset=1), torch.linalg.diagonal(torch.tensor(x), offset=1))
    close(litnn.linalg.diagonal(litnn.tensor(x), dim1=0, dim2=2), torch.linalg.diagonal(torch.tensor(x), dim1=0, dim2=2))
    x = rng.standard_normal((4, 6, 8, 3))
    close(litnn.linalg.tensorinv(litnn.tensor(x)), torch.linalg.tensorinv(torch.tensor(x)), 1e-8)
    x = rng.standard_normal((4, 2, 2))
    close(litnn.linalg.tensorinv(litnn.tensor(x), ind=1), torch.linalg.tensorinv(torch.tensor(x), ind=1), 1e-8)
    a, b = rng.standard_normal((2, 3, 6)), rng.standard_normal((2, 3))
    close(litnn.linalg.tensorsolve(litnn.tensor(a), litnn.tensor(b)), torch.linalg.tensorsolve(torch.tensor(a), torch.tensor(b)))
    a = rng.standard_normal((6, 2, 3))
    close(litnn.linalg.tensorsolve(litnn.tensor(a), litnn.tensor(b), dims=(0,)), torch.linalg.tensorsolve(torch.tensor(a), torch.tensor(b), dims=(0,)))
    same_error(lambda lib: lib.linalg.tensorinv(lib.ones(2, 3), ind=1))
    same_error(lambda lib: lib.linalg.tensorinv(lib.ones(2, 2), ind=0))

@pytest.mark.parametrize('shape,k', [((5, 3), 3), ((2, 5, 3), 2), ((4, 4), 4), ((3, 3), 0)])
def test_householder_product_vs_torch(shape, k):
    a, tau = rng.standard_normal(shape), rng.standard_normal(shape[:-2] + (k,))
    lA, lt = litnn.tensor(a, requires_grad=True), litnn.tensor(tau, requires_grad=True)
    tA, tt = torch.tensor(a, requires_grad=True), torch.tensor(tau, requires_grad=True)
    Q, tQ = litnn.linalg.householder_product(lA, lt), torch.linalg.householder_product(tA, tt)
    close(Q, tQ)
    close(litnn.orgqr(lA, lt), tQ)
    if k:
        g = rng.standard_normal(tuple(Q.shape))
        Q.backward(litnn.tensor(g)); tQ.backward(torch.tensor(g))
        close(lA.grad, tA.grad, 1e-9); close(lt.grad, tt.grad, 1e-9)
    same_error(lambda lib: lib.linalg.householder_product(lib.ones(2, 3), lib.ones(2)))
    same_error(lambda lib: lib.linalg.householder_product(lib.ones(3, 2), lib.ones(3)))

def test_geqrf_roundtrip_gradcheck():
    A = litnn.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    tau = litnn.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(litnn.linalg.householder_product, (A, tau))
    L = litnn.tensor(np.linalg.cholesky(spd(3)), requires_grad=True)
    # (the triangle: the upper entries get torch's full-matrix derivative, which the forward does not read)
    assert gradcheck(lambda B, L: litnn.cholesky_solve(B, L.tril()), (litnn.tensor(rng.standard_normal((3, 2)), requires_grad=True), L))

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])

@pytest.mark.parametrize('device', DEVICES)
def test_on_each_device(device):
    a, b = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 2))
    LU, piv = litnn.linalg.lu_factor(litnn.tensor(a, device=device))
    assert LU.device.type == device and piv.device.type == device
    ref = litnn.linalg.lu_factor(litnn.tensor(a))
    np.testing.assert_allclose(LU.cpu().numpy(), ref.LU.numpy(), rtol=1e-10)
    assert piv.cpu().tolist() == ref.pivots.tolist()
    X = litnn.linalg.lu_solve(LU, piv, litnn.tensor(b, device=device))
    np.testing.assert_allclose(X.cpu().numpy(), np.linalg.solve(a, b), rtol=1e-8)

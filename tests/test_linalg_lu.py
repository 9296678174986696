"LU factorization (reference/linalg_lu) and the Cholesky/triangular/tensor solvers (reference/linalg_solvers) against PyTorch: values, pivots, gradients, gradcheck, errors."
import warnings
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
torch = pytest.importorskip('torch')
from torch_pairs import same_error, same_message

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
        assert Q.grad_fn.name() == type(tQ.grad_fn).__name__ == 'LinalgHouseholderProductBackward0'
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

@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('adjoint', [False, True])
def test_lu_solve_of_complex_matrices_vs_torch(left, adjoint):
    "adjoint= is the conjugate transpose, and X A = B (left=False) is Aᴴ Xᴴ = Bᴴ: complex matrices tell them from the transpose."
    a = rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4)) + 1j * rng.standard_normal((2, 4, 3) if left else (2, 3, 4))
    X = litnn.linalg.lu_solve(*litnn.linalg.lu_factor(litnn.tensor(a)), litnn.tensor(b), left=left, adjoint=adjoint)
    tX = torch.linalg.lu_solve(*torch.linalg.lu_factor(torch.tensor(a)), torch.tensor(b), left=left, adjoint=adjoint)
    assert X.is_conj() == tX.is_conj()           # (left=False: torch's result is a conjugate view)
    close(X.resolve_conj(), tX.resolve_conj())

@pytest.mark.parametrize('shape', [(3, 2, 2), (3, 4, 2), (2, 3, 5)])
def test_lu_solve_and_lu_unpack_check_the_pivots(shape):
    "Pivots out of 1..m: torch's messages (lu_solve's two, lu_unpack's one); lu_unpack wants int32 pivots."
    a = rng.standard_normal(shape)
    for bad in (0, shape[-2] + 1):
        def unpack(lib):
            LU, piv = lib.linalg.lu_factor(lib.tensor(a)); piv[0] = bad
            return lib.lu_unpack(LU, piv)
        same_message(unpack)
        if shape[-1] == shape[-2]:
            def solve(lib):
                LU, piv = lib.linalg.lu_factor(lib.tensor(a)); piv[0] = bad
                return lib.linalg.lu_solve(LU, piv, lib.tensor(a), adjoint=True)
            same_message(solve)
    same_message(lambda lib: lib.lu_unpack(*(lambda f: (f[0], f[1].long()))(lib.linalg.lu_factor(lib.tensor(a)))))
    P, L, U = litnn.lu_unpack(*litnn.linalg.lu_factor(litnn.tensor(a)), unpack_data=False)
    assert L.numel() == 0 and U.numel() == 0 and P.shape == (shape[0], shape[1], shape[1])

@pytest.mark.parametrize('f', [lambda lib, A: lib.lu(A, pivot=False), lambda lib, A: lib.linalg.lu_factor_ex(A, pivot=False),
                               lambda lib, A: lib.linalg.lu(A, pivot=False)])
def test_lu_without_pivoting_is_refused_as_torch(f):
    same_message(lambda lib: f(lib, lib.ones(1, 2, 2)))

def test_householder_product_checks_as_torch():
    for a, t in [((10,), (2,)), ((10, 6), (20,)), ((6, 10), (5,)), ((6, 4), (2, 3)), ((2, 6, 4), (3, 3))]:
        same_message(lambda lib: lib.linalg.householder_product(lib.ones(a), lib.ones(t)))
    same_message(lambda lib: lib.linalg.householder_product(lib.ones(3, 3), lib.ones(3, dtype=lib.int32)))
    same_message(lambda lib: lib.linalg.householder_product(lib.ones(3, 3), lib.ones(3, dtype=lib.float64)))
    same_message(lambda lib: lib.linalg.householder_product(lib.ones(3, 3, dtype=lib.int32), lib.ones(3, dtype=lib.int32)))
    same_message(lambda lib: lib.linalg.householder_product(lib.ones(3, 3), lib.ones(3), out=lib.empty(3, 3, dtype=lib.int32)))

def test_ormqr_checks_as_torch():
    cases = [((10,), (2,), (2,)), ((2, 2), (2,), (2,)), ((10, 6), (20,), (10, 6)), ((6, 6), (5,), (5, 5)), ((1, 2, 2), (2, 2), (1, 2, 2)),
             ((1, 2, 2), (1, 2), (2, 2, 2)), ((4, 3), (5,), (4, 6)), ((4, 3), (3,), (2, 4, 3)), ((4, 3), (2, 3), (4, 3)), ((4, 3), (2,), (4, 2)),
             ((4, 3), (5,), (5, 2))]
    for a, t, c in cases:
        same_message(lambda lib: lib.ormqr(lib.ones(a), lib.ones(t), lib.ones(c)))
    same_message(lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(3, dtype=lib.float64), lib.ones(4, 2)))
    same_message(lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(3), lib.ones(4, 2, dtype=lib.float64)))

@pytest.mark.parametrize('shape', [(4, 3), (3, 5), (2, 4, 3), (2, 3, 5)])
def test_geqrf_result_is_column_major_as_torch(shape):
    a = rng.standard_normal(shape)
    l, t = litnn.geqrf(litnn.tensor(a)), torch.geqrf(torch.tensor(a))
    assert l[0].stride() == t[0].stride() and l[0].mT.is_contiguous()
    close(l[0], t[0]); close(l[1], t[1])

def test_cholesky_inverse_of_a_zero_diagonal_raises_as_torch():
    a = rng.standard_normal((2, 3, 3)); a[1, 2, 2] = 0
    for x in (a[1], a, a + 0j):
        for upper in (False, True):
            with pytest.raises(torch.linalg.LinAlgError) as te: torch.cholesky_inverse(torch.tensor(x), upper)
            with pytest.raises(litnn.linalg.LinAlgError) as le: litnn.cholesky_inverse(litnn.tensor(x), upper)
            assert str(le.value) == str(te.value)

def test_solve_triangular_checks_and_dtypes_as_torch():
    "torch's checkInputsSolver in its words, its kernel's dtypes (A's: B is cast to them), B a matrix."
    r = lambda lib, *s, dt='float32': lib.ones(*s, dtype=getattr(lib, dt))
    for f in [lambda lib: lib.linalg.solve_triangular(r(lib, 3, 3), r(lib, 3, 2), upper=True, left=False),
              lambda lib: lib.linalg.solve_triangular(r(lib, 3, 3), r(lib, 2, 3), upper=True),
              lambda lib: lib.linalg.solve_triangular(r(lib, 3, 3), r(lib, 3), upper=True),
              lambda lib: lib.linalg.solve_triangular(r(lib, 3, 2), r(lib, 3, 2), upper=True),
              lambda lib: lib.linalg.solve_triangular(r(lib, 3), r(lib, 3, 2), upper=True),
              lambda lib: lib.linalg.solve_triangular(r(lib, 3, 3, dt='int32'), r(lib, 3, 2), upper=True),
              lambda lib: lib.linalg.solve_triangular(r(lib, 3, 3, dt='float16'), r(lib, 3, 2, dt='float16'), upper=True)]:
        same_message(f)
    a = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    for bdt in ('float32', 'int64', 'float64'):
        b = rng.standard_normal((3, 2))
        X = litnn.linalg.solve_triangular(litnn.tensor(a), litnn.tensor(b).to(getattr(litnn, bdt)), upper=True)
        tX = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b).to(getattr(torch, bdt)), upper=True)
        assert str(X.dtype).split('.')[1] == str(tX.dtype).split('.')[1] == 'float64'
        close(X, tX)
    X = litnn.linalg.solve_triangular(litnn.tensor(a, dtype=litnn.float32), litnn.tensor(b), upper=True)
    assert X.dtype == litnn.float32        # torch computes in A's dtype

def test_triangular_solve_checks_as_torch():
    r = lambda lib, *s, dt='float32': lib.ones(*s, dtype=getattr(lib, dt))
    for f in [lambda lib: lib.triangular_solve(r(lib, 3, 2), r(lib, 4, 4)), lambda lib: lib.triangular_solve(r(lib, 3), r(lib, 3, 3)),
              lambda lib: lib.triangular_solve(r(lib, 3, 2), r(lib, 3)), lambda lib: lib.triangular_solve(r(lib, 3, 2), r(lib, 3, 3, dt='float64')),
              lambda lib: lib.triangular_solve(r(lib, 3, 2), r(lib, 3, 4))]:
        same_message(f)

def test_lu_solve_checks_as_torch():
    def lu(lib, *s): return lib.linalg.lu_factor(lib.tensor(rng.standard_normal(s) + 3 * np.eye(s[-1], s[-2])))
    for f in [lambda lib: lib.linalg.lu_solve(*lu(lib, 3, 3), lib.ones(3, dtype=lib.float64)),
              lambda lib: lib.linalg.lu_solve(*lu(lib, 3, 3), lib.ones(4, 2, dtype=lib.float64)),
              lambda lib: lib.linalg.lu_solve(*lu(lib, 3, 3), lib.ones(2, 4, dtype=lib.float64), left=False),
              lambda lib: lib.linalg.lu_solve(*lu(lib, 3, 3), lib.ones(3, 2)),
              lambda lib: lib.linalg.lu_solve(*lu(lib, 3, 4), lib.ones(3, 2, dtype=lib.float64)),
              lambda lib: lib.linalg.lu_solve(lu(lib, 3, 3)[0], lu(lib, 3, 3)[1].long(), lib.ones(3, 2, dtype=lib.float64)),
              lambda lib: lib.linalg.lu_solve(*lu(lib, 2, 3, 3), lib.ones(4, 3, 2, dtype=lib.float64))]:
        same_message(f)
    LU, piv = litnn.linalg.lu_factor(litnn.tensor(rng.standard_normal((2, 3, 3))))
    tLU, tpiv = torch.tensor(LU.numpy()), torch.tensor(piv.numpy())
    B = rng.standard_normal((1, 3, 2))
    close(litnn.linalg.lu_solve(LU, piv, litnn.tensor(B)), torch.linalg.lu_solve(tLU, tpiv, torch.tensor(B)))     # B's batch broadcasts

def test_lu_family_out_as_torch():
    "lu_factor, lu_factor_ex, lu, lu_unpack, lu_solve take out= (torch's structured kernels: out's dtype must be the result's)."
    a, b = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 2))
    for lib in (litnn, torch):
        A, B = lib.tensor(a), lib.tensor(b)
        outs = (lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32))
        r = lib.linalg.lu_factor(A, out=outs)
        assert r[0] is outs[0] and r[1] is outs[1] and tuple(outs[1].shape) == (2, 3)
        x = lib.empty(0, dtype=lib.float64)
        assert lib.linalg.lu_solve(*outs, B, out=x) is x
        np.testing.assert_allclose((A @ x).numpy(), b, atol=1e-10)
        P, L, U = (lib.empty(0, dtype=lib.float64) for _ in range(3))
        lib.lu_unpack(*outs, out=(P, L, U))
        np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-10)
        lib.linalg.lu(A, out=(P, L, U)); lib.linalg.lu_factor_ex(A, out=(lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int32), lib.empty(0, dtype=lib.int32)))
    same_message(lambda lib: lib.linalg.lu_factor(lib.tensor(a), out=(lib.empty(0, dtype=lib.float64), lib.empty(0, dtype=lib.int64))))
    same_message(lambda lib: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.tensor(a)), lib.tensor(b), out=lib.empty(0)))

def test_geqrf_and_ormqr_out_as_torch():
    a = rng.standard_normal((4, 3)).astype(np.float32)
    for lib in (litnn, torch):
        h, tau = lib.empty(0, dtype=lib.float64), lib.empty(0)
        r = lib.geqrf(lib.tensor(a), out=(h, tau))          # written by the casting rule
        assert r[0] is h and h.dtype == lib.float64 and tuple(tau.shape) == (3,)
    l, t = litnn.geqrf(litnn.tensor(a)), torch.geqrf(torch.tensor(a))
    o, to = litnn.empty(0), torch.empty(0)
    litnn.ormqr(*l, litnn.ones(4, 2), out=o); torch.ormqr(*t, torch.ones(4, 2), out=to)
    np.testing.assert_allclose(o.numpy(), to.numpy(), rtol=1e-5, atol=1e-5)
    same_message(lambda lib: lib.ormqr(*lib.geqrf(lib.tensor(a)), lib.ones(4, 2), out=lib.empty(0, dtype=lib.float64)))

def test_cholesky_solve_and_inverse_checks_as_torch():
    "torch's linearSolveCheckInputs (dtypes, A square, the sizes) and the batch broadcast (b's batch named first); half/int inverses refused."
    r = lambda lib, *s, dt='float32': lib.ones(*s, dtype=getattr(lib, dt))
    for f in [lambda lib: lib.cholesky_solve(r(lib, 3, 2), r(lib, 3, 3, dt='float64')), lambda lib: lib.cholesky_solve(r(lib, 4, 2), r(lib, 3, 3)),
              lambda lib: lib.cholesky_solve(r(lib, 3, 2), r(lib, 3, 4)), lambda lib: lib.cholesky_solve(r(lib, 2, 3, 2), r(lib, 4, 3, 3)),
              lambda lib: lib.cholesky_solve(r(lib, 3), r(lib, 3, 3)), lambda lib: lib.triangular_solve(r(lib, 2, 3, 2), r(lib, 4, 3, 3)),
              lambda lib: lib.cholesky_inverse(r(lib, 3, 3, dt='float16')), lambda lib: lib.cholesky_inverse(r(lib, 3, 3, dt='int32'))]:
        same_message(f)

def test_ldl_solve_pivots_and_batch_checks_as_torch():
    a = rng.standard_normal((2, 3, 3)); a = a + a.swapaxes(-1, -2) + 6 * np.eye(3)
    def f(lib, piv=None, b=(4, 3, 2)):
        LD, p = lib.linalg.ldl_factor(lib.tensor(a))
        return lib.linalg.ldl_solve(LD, p if piv is None else piv(lib), lib.ones(b, dtype=lib.float64))
    same_message(f)
    same_message(lambda lib: f(lib, lambda l: l.ones(2, dtype=l.int32), (2, 3, 2)))
    close(f(litnn, b=(1, 3, 2)), f(torch, b=(1, 3, 2)))

def test_lu_input_checks_and_old_lu_as_torch():
    "1-D inputs and half precision in torch's words; torch.lu (deprecated, warns) returns the factors of a singular matrix without error."
    for f in [lambda lib: lib.linalg.lu_factor(lib.ones(3)), lambda lib: lib.linalg.lu_factor_ex(lib.ones(3)), lambda lib: lib.linalg.lu(lib.ones(3)),
              lambda lib: lib.linalg.lu_factor_ex(lib.eye(3, dtype=lib.float16)), lambda lib: lib.linalg.lu(lib.eye(3, dtype=lib.bfloat16)),
              lambda lib: lib.linalg.lu(lib.ones(3, 3, dtype=lib.int32)), lambda lib: lib.lu_unpack(lib.ones(3), lib.ones(3, dtype=lib.int32)),
              lambda lib: lib.linalg.lu_solve(lib.linalg.lu_factor(lib.eye(3))[0], lib.ones(2, dtype=lib.int32), lib.ones(3, 2)),
              lambda lib: lib.linalg.lu_solve(lib.linalg.lu_factor(lib.eye(3).expand(2, 3, 3))[0], lib.ones(3, 3, dtype=lib.int32), lib.ones(3, 2))]:
        same_message(f)
    import litnn._flags as flags
    flags._warned.discard(next((m for m in flags._warned if m.startswith('torch.lu is deprecated')), None))
    with pytest.warns(UserWarning, match='torch.lu is deprecated'):
        l = litnn.lu(litnn.zeros(3, 3), get_infos=False)
    t = torch.lu(torch.zeros(3, 3))
    close(l[0], t[0]); assert l[1].tolist() == t[1].tolist()
    assert litnn.lu(litnn.zeros(3, 3), get_infos=True)[2].item() == torch.lu(torch.zeros(3, 3), get_infos=True)[2].item() == 1

"litnn.linalg (reference/linalg, reference/linalg_decompositions) and the products/scans (reference/torch/products) against PyTorch: values, gradients, gradcheck, errors."
import math, warnings, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck, gradgradcheck
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(1)

def node(t): return type(t.grad_fn).__name__ if t.grad_fn is not None else None

def run(fl, ft, arrays, out=lambda r: r, rtol=1e-10, atol=1e-12, grad=True, name=True):
    "Both libraries on the same float arrays: the tensor `out(result)` compared, then the gradients of a random projection of it."
    ls = [litnn.tensor(a, requires_grad=grad) if isinstance(a, np.ndarray) else a for a in arrays]
    ts = [torch.tensor(a, requires_grad=grad) if isinstance(a, np.ndarray) else a for a in arrays]
    ol, ot = out(fl(*ls)), out(ft(*ts))
    assert ol.dtype.name == str(ot.dtype).split('.')[-1] and tuple(ol.shape) == tuple(ot.shape), (ol.dtype, ot.dtype, ol.shape, ot.shape)
    np.testing.assert_allclose(ol.detach().numpy(), ot.detach().numpy(), rtol=rtol, atol=atol)
    if name: assert (ol.grad_fn.name() if ol.grad_fn is not None else None) == node(ot)
    if grad and ot.requires_grad:
        g = rng.standard_normal(tuple(ot.shape)).astype(str(ot.dtype).split('.')[-1])
        (ol * litnn.tensor(g)).sum().backward(); (ot * torch.tensor(g)).sum().backward()
        for a, b in zip(ls, ts):
            if isinstance(b, torch.Tensor) and b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol * 100, atol=atol * 100)
    return ol, ot

def mats(*shape): return rng.standard_normal(shape)
def spd(*shape):
    a = rng.standard_normal(shape)
    return a @ a.swapaxes(-1, -2) + shape[-1] * np.eye(shape[-1])

# --- linalg: inverse, determinant, solve, cholesky ---
@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4)])
def test_inv_det_slogdet(shape):
    a = mats(*shape)
    run(litnn.linalg.inv, torch.linalg.inv, [a])
    run(litnn.linalg.det, torch.linalg.det, [a])
    run(litnn.linalg.slogdet, torch.linalg.slogdet, [a], out=lambda r: r.logabsdet)
    run(litnn.linalg.slogdet, torch.linalg.slogdet, [a], out=lambda r: r.sign, grad=False)
    run(litnn.inverse, torch.inverse, [a]); run(litnn.det, torch.det, [a])
    run(lambda t: t.logdet(), lambda t: t.logdet(), [a], name=False)
    run(litnn.inv, torch.inverse, [a.astype(np.float32)], rtol=1e-4, atol=1e-5) if hasattr(litnn, 'inv') else None

def cofactors(a):
    "The cofactor matrix adj(A)ᵀ, the gradient of det, of each matrix of float64 array a, from the determinants of its minors."
    n = a.shape[-1]
    if n == 1: return np.ones_like(a)
    C = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            C[..., i, j] = (-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, -2), j, -1))
    return C

def low_rank(r, n, *batch): return mats(*batch, n, r) @ mats(*batch, r, n)

def det_grad(lib, a, create_graph=False):
    t = lib.tensor(a, requires_grad=True)
    return lib.autograd.grad(lib.linalg.det(t).sum(), t, create_graph=create_graph)[0].detach().numpy()

def test_det_of_singular_matrices_gradient():
    """The gradient of det is the adjugate (transposed) at singular matrices too, whether LAPACK's det of them comes out
    exactly 0 or tiny: on every CPU. (torch's first-order backward gives 0 where its det is exactly 0; its create_graph one,
    the formula litnn uses for both, the adjugate.)"""
    e = np.zeros((4, 4)); e[3, 3] = 1.
    exact_zero = [np.array([[1., 0., 2.], [3., 0., 4.], [5., 0., 7.]]),   # a zero column or row: every LU ends on a 0 pivot
                  np.array([[1., 2., 3.], [0., 0., 0.], [4., 5., 7.]]), np.zeros((1, 1))]
    for a in exact_zero:
        assert np.linalg.det(a) == 0 and litnn.linalg.det(litnn.tensor(a)).item() == 0 and torch.linalg.det(torch.tensor(a)).item() == 0
    B = low_rank(3, 4)
    cases = exact_zero + [np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]),   # det 0 or ±7e-16, by CPU
                          low_rank(2, 3), low_rank(3, 4), low_rank(2, 4), low_rank(1, 4), np.zeros((3, 3)),
                          B + 2. ** -50 * e,                                        # det tiny: below 100 ε
                          B + 2. ** -20 * e, mats(4, 4)]                            # det small but not tiny; regular
    for a in cases:
        ref = cofactors(a)
        scale = np.abs(a).max() ** (a.shape[-1] - 1) + 1                           # the size of a cofactor
        np.testing.assert_allclose(det_grad(litnn, a), ref, rtol=1e-7, atol=1e-9 * scale)
        np.testing.assert_allclose(det_grad(litnn, a, create_graph=True), ref, rtol=1e-7, atol=1e-9 * scale)
        np.testing.assert_allclose(det_grad(torch, a, create_graph=True), ref, rtol=1e-7, atol=1e-9 * scale)
        if torch.linalg.det(torch.tensor(a)).item() != 0:                          # torch's first order: det A⁻ᵀ from its LU
            np.testing.assert_allclose(det_grad(torch, a), ref, rtol=1e-7, atol=1e-9 * scale)
    assert np.abs(det_grad(litnn, exact_zero[0])).max() > 1                         # the adjugate of a rank n-1 matrix is not 0
    # batched: every kind of matrix in one batch (each gets its own formula), and float32
    batch = np.stack([c for c in cases if c.shape == (4, 4)]).reshape(2, 3, 4, 4)
    np.testing.assert_allclose(det_grad(litnn, batch), cofactors(batch), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(det_grad(litnn, batch, create_graph=True), cofactors(batch), rtol=1e-7, atol=1e-7)
    g32 = det_grad(litnn, batch.astype(np.float32))
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, cofactors(batch), rtol=1e-3, atol=1e-3 * np.abs(cofactors(batch)).max())
    # det is a polynomial, smooth at singular matrices: finite differences of it and of its gradient
    for a in (exact_zero[0], cases[3], low_rank(2, 4), low_rank(1, 4), batch[:, :2]):
        A = litnn.tensor(a, requires_grad=True)
        assert gradcheck(litnn.linalg.det, (A,)) and gradgradcheck(litnn.linalg.det, (A,))

def test_solve():
    A = mats(2, 3, 3)
    run(litnn.linalg.solve, torch.linalg.solve, [A, mats(2, 3)])              # a batch of vectors
    run(litnn.linalg.solve, torch.linalg.solve, [A, mats(2, 3, 4)])
    run(litnn.linalg.solve, torch.linalg.solve, [A[0], mats(3)])
    run(litnn.linalg.solve, torch.linalg.solve, [A, mats(3, 2)], name=False)  # broadcast B
    run(lambda a, b: litnn.linalg.solve(a, b, left=False), lambda a, b: torch.linalg.solve(a, b, left=False), [A, mats(2, 4, 3)], name=False)

def test_cholesky():
    a = spd(2, 4, 4)
    run(litnn.linalg.cholesky, torch.linalg.cholesky, [a], out=lambda r: r)
    run(lambda t: litnn.linalg.cholesky(t, upper=True), lambda t: torch.linalg.cholesky(t, upper=True), [a])
    run(litnn.cholesky, torch.cholesky, [a[0]])

def test_errors():
    S = [[1., 2.], [2., 4.]]
    for f in (lambda lib: lib.linalg.inv(lib.tensor(S)), lambda lib: lib.linalg.inv(lib.stack([lib.eye(2), lib.tensor(S)])),
              lambda lib: lib.linalg.solve(lib.tensor(S), lib.tensor([1., 2.])), lambda lib: lib.inverse(lib.tensor(S)),
              lambda lib: lib.linalg.cholesky(lib.tensor([[1., 2.], [2., 1.]])),
              lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(2), lib.tensor([[1., 2.], [2., 1.]])]))):
        with pytest.raises(torch.linalg.LinAlgError) as te: f(torch)
        with pytest.raises(litnn.linalg.LinAlgError) as le: f(litnn)
        assert str(le.value) == str(te.value)
    for f in (lambda lib: lib.linalg.inv(lib.ones(2, 3)), lambda lib: lib.linalg.inv(lib.ones(2, 2, dtype=lib.int64)),
              lambda lib: lib.linalg.det(lib.ones(2, 3)), lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(3)),
              lambda lib: lib.linalg.norm(lib.ones(2, 2, 2), ord=2), lambda lib: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64)),
              lambda lib: lib.linalg.matrix_norm(lib.ones(2)), lambda lib: lib.linalg.matrix_norm(lib.ones(2, 2), ord=3),
              lambda lib: lib.linalg.eigh(lib.ones(2, 3)), lambda lib: lib.linalg.qr(lib.ones(2, 2), mode='x'),
              lambda lib: lib.linalg.svd(lib.ones(2, 2, dtype=lib.int64))):
        with pytest.raises(RuntimeError) as te: f(torch)
        with pytest.raises(RuntimeError) as le: f(litnn)
        assert str(le.value) == str(te.value)

# --- decompositions: compared through quantities their sign conventions do not change ---
@pytest.mark.parametrize('shape', [(4, 3), (3, 5), (2, 3, 3)])
def test_svd(shape):
    a = mats(*shape)
    w = [rng.standard_normal(s) for s in ((shape[-2], min(shape[-2:])), (min(shape[-2:]),), (min(shape[-2:]), shape[-1]))]
    loss = lambda lib: lambda r: (r.U ** 2 * lib.tensor(w[0])).sum((-2, -1)) + (r.S * lib.tensor(w[1])).sum(-1) + (r.Vh ** 2 * lib.tensor(w[2])).sum((-2, -1))
    ls = litnn.tensor(a, requires_grad=True); ts = torch.tensor(a, requires_grad=True)
    ol, ot = loss(litnn)(litnn.linalg.svd(ls, full_matrices=False)), loss(torch)(torch.linalg.svd(ts, full_matrices=False))
    np.testing.assert_allclose(ol.detach().numpy(), ot.detach().numpy(), rtol=1e-10)
    ol.sum().backward(); ot.sum().backward()
    np.testing.assert_allclose(ls.grad.numpy(), ts.grad.numpy(), rtol=1e-8, atol=1e-10)
    run(litnn.linalg.svdvals, torch.linalg.svdvals, [a])
    r = litnn.linalg.svd(litnn.tensor(a))
    assert [tuple(v.shape) for v in r] == [tuple(v.shape) for v in torch.linalg.svd(torch.tensor(a))]
    o = litnn.svd(litnn.tensor(a))
    np.testing.assert_allclose(((o.U * o.S.unsqueeze(-2)) @ o.V.mT).numpy(), a, atol=1e-12)

def test_svd_full_matrices_gradient():
    a = mats(4, 2)
    ls = litnn.tensor(a, requires_grad=True); ts = torch.tensor(a, requires_grad=True)
    (litnn.linalg.svd(ls).U[:, :2] ** 2).sum().backward(); (torch.linalg.svd(ts).U[:, :2] ** 2).sum().backward()
    np.testing.assert_allclose(ls.grad.numpy(), ts.grad.numpy(), rtol=1e-8, atol=1e-10)

@pytest.mark.parametrize('shape', [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_qr(shape):
    a = mats(*shape)
    k = min(shape[-2:])
    wq, wr = rng.standard_normal(shape[:-1] + (k,)), rng.standard_normal(shape[:-2] + (k, shape[-1]))
    ls = litnn.tensor(a, requires_grad=True); ts = torch.tensor(a, requires_grad=True)
    # (Q, R) is unique up to the signs of R's diagonal, which both libraries' LAPACK choose alike
    (Ql, Rl), (Qt, Rt) = litnn.linalg.qr(ls), torch.linalg.qr(ts)
    np.testing.assert_allclose(Ql.detach().numpy(), Qt.detach().numpy(), atol=1e-12)
    ((Ql * litnn.tensor(wq)).sum() + (Rl * litnn.tensor(wr)).sum()).backward()
    ((Qt * torch.tensor(wq)).sum() + (Rt * torch.tensor(wr)).sum()).backward()
    np.testing.assert_allclose(ls.grad.numpy(), ts.grad.numpy(), rtol=1e-8, atol=1e-10)
    assert Ql.grad_fn.name() == node(Qt)
    for mode in ('complete', 'r'):
        assert [tuple(v.shape) for v in litnn.linalg.qr(litnn.tensor(a), mode)] == [tuple(v.shape) for v in torch.linalg.qr(torch.tensor(a), mode)]

def test_eigh():
    a = mats(2, 4, 4); a = a + a.swapaxes(-1, -2)
    run(litnn.linalg.eigvalsh, torch.linalg.eigvalsh, [a])
    run(lambda t: litnn.linalg.eigh(t, UPLO='U'), lambda t: torch.linalg.eigh(t, UPLO='U'), [np.triu(a)], out=lambda r: r.eigenvalues)
    w = rng.standard_normal((2, 4, 4))
    ls = litnn.tensor(a, requires_grad=True); ts = torch.tensor(a, requires_grad=True)
    ((litnn.linalg.eigh(ls).eigenvectors ** 2 * litnn.tensor(w)).sum()).backward()
    ((torch.linalg.eigh(ts).eigenvectors ** 2 * torch.tensor(w)).sum()).backward()
    np.testing.assert_allclose(ls.grad.numpy(), ts.grad.numpy(), rtol=1e-8, atol=1e-10)

@pytest.mark.parametrize('uplo', ['u', 'l', 'a', 'UL', ''])
def test_eigh_uplo_either_case(uplo):
    "UPLO is one letter, read in either case ('u' is 'U'), for eigh and eigvalsh; anything else a RuntimeError as torch's."
    a = np.triu(mats(2, 3, 3))
    for name in ('eigh', 'eigvalsh'):
        try: t = getattr(torch.linalg, name)(torch.tensor(a), UPLO=uplo)
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as le: getattr(litnn.linalg, name)(litnn.tensor(a), UPLO=uplo)
            assert str(le.value) == str(e)
            continue
        l = getattr(litnn.linalg, name)(litnn.tensor(a), UPLO=uplo)
        tw, lw = (t, l) if name == 'eigvalsh' else (t.eigenvalues, l.eigenvalues)
        np.testing.assert_allclose(lw.numpy(), tw.numpy(), rtol=1e-10, atol=1e-12)

@pytest.mark.parametrize('shape', [(4, 3), (3, 5), (2, 3, 3)])
def test_pinv_matrix_rank(shape):
    a = mats(*shape)
    run(litnn.linalg.pinv, torch.linalg.pinv, [a], name=False)
    run(litnn.pinverse, torch.pinverse, [a], name=False)
    low = a[..., :, :1] @ a[..., :1, :]
    assert litnn.linalg.matrix_rank(litnn.tensor(low)).tolist() == torch.linalg.matrix_rank(torch.tensor(low)).tolist()
    assert litnn.linalg.matrix_rank(litnn.tensor(a)).tolist() == torch.linalg.matrix_rank(torch.tensor(a)).tolist()

@pytest.mark.parametrize('ord', [None, 'fro', 'nuc', 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norms(ord):
    a = mats(2, 3, 4)
    for kw in (dict(dim=(-2, -1)), dict(dim=(0, 2), keepdim=True), dict(dim=(2, 1))):
        run(lambda t: litnn.linalg.norm(t, ord, **kw), lambda t: torch.linalg.norm(t, ord, **kw), [a], name=ord in (None, 'fro'))
    if ord is not None:
        run(lambda t: litnn.linalg.matrix_norm(t, ord), lambda t: torch.linalg.matrix_norm(t, ord), [a], name=False)
        run(lambda t: litnn.linalg.norm(t, ord), lambda t: torch.linalg.norm(t, ord), [a[0]], name=False)

@pytest.mark.parametrize('ord', [0, 1, 2, 3, 0.5, math.inf, -math.inf])
def test_vector_norms(ord):
    a = mats(3, 4)
    run(lambda t: litnn.linalg.vector_norm(t, ord), lambda t: torch.linalg.vector_norm(t, ord), [a], rtol=1e-9)
    run(lambda t: litnn.linalg.vector_norm(t, ord, dim=1, keepdim=True), lambda t: torch.linalg.vector_norm(t, ord, dim=1, keepdim=True), [a], rtol=1e-9)
    run(lambda t: litnn.linalg.norm(t, ord, dim=0), lambda t: torch.linalg.norm(t, ord, dim=0), [a], rtol=1e-9)
    run(lambda t: litnn.linalg.vector_norm(t, ord, dtype=litnn.float64), lambda t: torch.linalg.vector_norm(t, ord, dtype=torch.float64), [a.astype(np.float32)], rtol=1e-6, atol=1e-6)

def test_vecdot_cross():
    run(lambda a, b: litnn.linalg.vecdot(a, b, dim=0), lambda a, b: torch.linalg.vecdot(a, b, dim=0), [mats(3, 4), mats(3, 1)])
    run(litnn.linalg.cross, torch.linalg.cross, [mats(4, 3), mats(1, 3)])
    run(lambda a, b: litnn.cross(a, b, dim=0), lambda a, b: torch.cross(a, b, dim=0), [mats(3, 2), mats(3, 2)])
    same_error(lambda lib: lib.linalg.cross(lib.ones(4, 2), lib.ones(4, 2)))

def test_linalg_gradcheck():
    A = litnn.tensor(mats(2, 3, 3), requires_grad=True)
    P = litnn.tensor(spd(3, 3), requires_grad=True)
    B = litnn.tensor(mats(2, 3, 2), requires_grad=True)
    R = litnn.tensor(mats(4, 3), requires_grad=True)
    checks = [(litnn.linalg.inv, (A,)), (litnn.linalg.det, (A,)), (lambda a: litnn.linalg.slogdet(a).logabsdet, (A,)),
              (litnn.linalg.solve, (A, B)), (lambda a: litnn.linalg.cholesky(a + a.mT), (P,)), (litnn.linalg.svdvals, (R,)),
              (lambda a: (litnn.linalg.svd(a, full_matrices=False).U ** 2).sum(-1), (R,)),
              (lambda a: litnn.linalg.qr(a).Q, (R,)), (lambda a: litnn.linalg.qr(a.mT).R, (R,)),
              (lambda a: litnn.linalg.eigh(a + a.mT).eigenvectors ** 2, (A,)), (lambda a: litnn.linalg.eigvalsh(a + a.mT), (P,)),
              (litnn.linalg.pinv, (R,)), (lambda a: litnn.linalg.matrix_norm(a, 'nuc'), (R,))]
    for f, args in checks:
        assert gradcheck(f, args), f
    for f, args in checks[:5]:
        assert gradgradcheck(f, args), f

# --- products and scans ---
def test_cumulative_vs_torch():
    a = mats(3, 5)
    for dim in (0, 1, -1):
        run(lambda t: litnn.cumprod(t, dim), lambda t: torch.cumprod(t, dim), [a])
        run(lambda t: litnn.logcumsumexp(t, dim), lambda t: torch.logcumsumexp(t, dim), [a])
        for f in ('cummax', 'cummin'):
            ol, ot = run(lambda t: getattr(litnn, f)(t, dim).values, lambda t: getattr(torch, f)(t, dim).values, [a])
            assert getattr(litnn, f)(litnn.tensor(a), dim).indices.tolist() == getattr(torch, f)(torch.tensor(a), dim).indices.tolist()
    z = np.array([[2., 0., 3., 0., 5.], [1., 2., 0., 4., 1.], [0., 0., 1., 2., 3.]])
    run(lambda t: litnn.cumprod(t, 1), lambda t: torch.cumprod(t, 1), [z])
    ties = np.array([1., 3., 3., np.nan, 5., 2.])
    for f in ('cummax', 'cummin'):
        assert getattr(litnn, f)(litnn.tensor(ties), 0).indices.tolist() == getattr(torch, f)(torch.tensor(ties), 0).indices.tolist()
    assert litnn.cumprod(litnn.tensor([1, 2, 3]), 0).dtype == litnn.int64
    run(lambda t: litnn.logcumsumexp(t, 0), lambda t: torch.logcumsumexp(t, 0), [np.array([-1000., 0., -1000., 5.])])

def test_cumulative_gradcheck():
    x = litnn.tensor([[2., 0., 3., 0.5, 5.], [1., 2., 0.3, 4., 1.]], dtype=litnn.float64, requires_grad=True)
    for f in (lambda t: litnn.cumprod(t, 1), lambda t: litnn.logcumsumexp(t, 1), lambda t: litnn.cummax(t, 1).values,
              lambda t: litnn.cummin(t, 0).values):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))

def test_diff():
    a = mats(3, 6)
    for kw in (dict(), dict(n=2), dict(n=3, dim=0), dict(prepend=mats(3, 1), append=mats(3, 2))):
        tkw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        lkw = {k: litnn.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        run(lambda t: litnn.diff(t, **lkw), lambda t: torch.diff(t, **tkw), [a])
    assert litnn.diff(litnn.tensor([True, False, False])).tolist() == torch.diff(torch.tensor([True, False, False])).tolist()
    same_error(lambda lib: lib.diff(lib.ones(3), n=-1))

def test_tensordot_kron():
    a, b = mats(2, 3, 4), mats(4, 3, 5)
    run(lambda x, y: litnn.tensordot(x, y, dims=([1, 2], [1, 0])), lambda x, y: torch.tensordot(x, y, dims=([1, 2], [1, 0])), [a, b], name=False)
    run(lambda x, y: litnn.tensordot(x, y, dims=1), lambda x, y: torch.tensordot(x, y, dims=1), [a, b], name=False)
    run(lambda x, y: litnn.tensordot(x, y, dims=0), lambda x, y: torch.tensordot(x, y, dims=0), [mats(2, 3), mats(2)], name=False)
    run(litnn.kron, torch.kron, [mats(2, 3), mats(3, 2)], name=False)
    run(litnn.kron, torch.kron, [mats(2), mats(2, 3, 2)], name=False)
    same_error(lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(4, 3), dims=([1], [0])))

def test_tensordot_size_one_dims_broadcast():
    # torch sums a contracted dim of size 1 against the other's (OpInfo tensordot sample 2)
    for dims in (([0, 1], [2, 0]), ([0], [0]), ([2, 1], [0, 1])):
        run(lambda x, y: litnn.tensordot(x, y, dims=dims), lambda x, y: torch.tensordot(x, y, dims=dims), [mats(1, 1, 1), mats(2, 1, 2)], name=False)

def test_batched_products():
    for beta, alpha in ((1, 1), (0.5, 2.), (0, 1)):
        kw = dict(beta=beta, alpha=alpha)
        run(lambda i, x, y: litnn.baddbmm(i, x, y, **kw), lambda i, x, y: torch.baddbmm(i, x, y, **kw), [mats(1, 4), mats(5, 2, 3), mats(5, 3, 4)])
        run(lambda i, x, y: litnn.addbmm(i, x, y, **kw), lambda i, x, y: torch.addbmm(i, x, y, **kw), [mats(2, 4), mats(5, 2, 3), mats(5, 3, 4)])
        run(lambda i, x, y: litnn.addmv(i, x, y, **kw), lambda i, x, y: torch.addmv(i, x, y, **kw), [mats(2), mats(2, 3), mats(3)])
    for f in (lambda lib: lib.baddbmm(lib.ones(5, 2, 4), lib.ones(5, 2, 3), lib.ones(4, 3, 4)),
              lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3), lib.ones(4))):
        with pytest.raises(RuntimeError) as te: f(torch)
        with pytest.raises(RuntimeError) as le: f(litnn)
        assert str(le.value) == str(te.value)

@pytest.mark.parametrize('p', [0., 1., 2., 3., 0.5, math.inf])
def test_cdist(p):
    x1, x2 = mats(2, 4, 3), mats(2, 5, 3)
    x2[0, 0] = x1[0, 0]                       # a zero distance: gradient 0 there, as torch
    run(lambda a, b: litnn.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), [x1, x2], rtol=1e-9, atol=1e-10)

@pytest.mark.parametrize('p', [0.99, 0.7, 0.5, 0.1, 0.01, 1.5])
def test_cdist_grad_where_a_coordinate_difference_is_zero(p):
    "p < 1: |diff| ** (p - 1) is infinite where one coordinate's difference is 0; torch's gradient is 0 there, not NaN."
    x1 = mats(3, 2); x2 = x1.copy(); x2[:, 0] += 1.           # the second coordinates are equal
    x2 = np.concatenate([x2, x1[:1]])                           # and one pair at distance 0
    run(lambda a, b: litnn.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), [x1, x2], rtol=1e-9, atol=1e-10)

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])

@pytest.mark.parametrize('device', DEVICES)
def test_on_each_device(device):
    "The array code is backend-neutral: the same values and gradients on every device as numpy's on the CPU."
    a, p = mats(2, 3, 3), spd(2, 3, 3)
    for f, x in ((litnn.linalg.inv, a), (litnn.linalg.det, a), (lambda t: litnn.linalg.slogdet(t).logabsdet, a),
                 (lambda t: litnn.linalg.solve(t, t[..., 0]), a), (litnn.linalg.cholesky, p), (litnn.linalg.svdvals, a),
                 (lambda t: litnn.linalg.qr(t).R.abs(), a), (litnn.linalg.eigvalsh, p), (litnn.linalg.pinv, a),
                 (lambda t: litnn.linalg.matrix_norm(t, 'nuc'), a), (lambda t: litnn.cumprod(t, 1), a),
                 (lambda t: litnn.cummax(t, 2).values, a), (lambda t: litnn.logcumsumexp(t, 0), a),
                 (lambda t: litnn.cdist(t, t), a), (lambda t: litnn.baddbmm(t, t, t), a), (lambda t: litnn.linalg.cross(t, t.flip(1)), a)):
        t = litnn.tensor(x, device=device, requires_grad=True)
        out = f(t)
        assert out.device.type == device
        np.testing.assert_allclose(out.detach().cpu().numpy(), f(litnn.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-12)
        out.sum().backward()
        assert t.grad.device.type == device

def test_solve_triangular_and_ex_forms():
    A, B = mats(2, 3, 3), mats(2, 3, 2)
    for kw in (dict(upper=True), dict(upper=False), dict(upper=True, unitriangular=True), dict(upper=False, left=False)):
        b = B if kw.get('left', True) else B.swapaxes(-1, -2)
        run(lambda a, x: litnn.linalg.solve_triangular(a, x, **kw), lambda a, x: torch.linalg.solve_triangular(a, x, **kw), [A, b], rtol=1e-9, name=False)
    S = [[1., 2.], [2., 4.]]
    for f in ('inv_ex', 'cholesky_ex'):
        rl, rt = getattr(litnn.linalg, f)(litnn.tensor(S)), getattr(torch.linalg, f)(torch.tensor(S))
        assert (rl.info.item() > 0) == (rt.info.item() > 0) and rl.info.dtype.name == 'int32'
        with pytest.raises(torch.linalg.LinAlgError): getattr(torch.linalg, f)(torch.tensor(S), check_errors=True)
        with pytest.raises(litnn.linalg.LinAlgError): getattr(litnn.linalg, f)(litnn.tensor(S), check_errors=True)
    run(lambda a: litnn.linalg.inv_ex(a).inverse, lambda a: torch.linalg.inv_ex(a).inverse, [A])
    run(lambda a, b: litnn.linalg.solve_ex(a, b).result, lambda a, b: torch.linalg.solve_ex(a, b).result, [A, B])
    run(lambda a: litnn.linalg.cholesky_ex(a).L, lambda a: torch.linalg.cholesky_ex(a).L, [spd(3, 3)])

def test_matrix_functions():
    A = mats(2, 3, 3)
    for n in (0, 1, 2, 5, -1, -3):
        run(lambda a: litnn.linalg.matrix_power(a, n), lambda a: torch.linalg.matrix_power(a, n), [A], rtol=1e-8, name=False)
    run(lambda a, b, c: litnn.linalg.multi_dot([a, b, c]), lambda a, b, c: torch.linalg.multi_dot([a, b, c]), [mats(3), mats(3, 4), mats(4, 2)], name=False)
    for p in (None, 2, -2, 1, 'fro', math.inf):
        # (torch's own backward of cond fails for the norms computed with an inverse: values only there)
        run(lambda a: litnn.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p), [A], rtol=1e-8, name=False, grad=p in (None, 2, -2))
    M, Y = mats(5, 3), mats(5, 2)
    run(lambda a, b: litnn.linalg.lstsq(a, b).solution, lambda a, b: torch.linalg.lstsq(a, b).solution, [M, Y], rtol=1e-8, name=False)
    assert litnn.linalg.matmul is litnn.matmul

def test_return_types_pickle_and_repr():
    import pickle
    r = litnn.linalg.slogdet(litnn.tensor([[2., 0.], [0., 3.]]))
    assert type(r) is litnn.return_types.linalg_slogdet and repr(r).startswith('litnn.return_types.linalg_slogdet(\nsign=')
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back.logabsdet.item() == r.logabsdet.item()
    assert type(litnn.svd(litnn.eye(2))).__name__ == type(torch.svd(torch.eye(2))).__name__ == 'svd'
    lc, tc = litnn.cummax(litnn.tensor([1., 2.]), 0), torch.cummax(torch.tensor([1., 2.]), 0)
    assert lc.values.tolist() == tc.values.tolist() and lc.indices.tolist() == tc.indices.tolist()

def test_matrix_exp_float32_stays_float32():
    "Scaling by 2^-s keeps the dtype (it used to promote float32 to float64); a zero matrix gives I without a warning."
    a = mats(2, 3, 3).astype(np.float32) * 3
    run(litnn.linalg.matrix_exp, torch.linalg.matrix_exp, [a], rtol=1e-4, atol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        test = litnn.linalg.matrix_exp(litnn.zeros(2, 2))
    assert test.dtype == litnn.float32 and test.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_matrix_exp_vander():
    for scale in (0.1, 1., 30.):
        a = mats(2, 4, 4) * scale
        run(litnn.linalg.matrix_exp, torch.linalg.matrix_exp, [a], rtol=1e-9, atol=1e-9)
    run(litnn.matrix_exp, torch.matrix_exp, [mats(3, 3)], rtol=1e-10)
    A = litnn.tensor(mats(3, 3) * 0.5, requires_grad=True)
    assert gradcheck(litnn.linalg.matrix_exp, (A,)) and gradgradcheck(litnn.linalg.matrix_exp, (A,))
    same_error(lambda lib: lib.linalg.vander(lib.ones(3), N=1))
    for n in (None, 2, 4):
        run(lambda x: litnn.linalg.vander(x, N=n), lambda x: torch.linalg.vander(x, N=n), [mats(2, 3)], name=False)
    assert litnn.linalg.vander(litnn.tensor([1, 2, 3]), N=4).tolist() == torch.linalg.vander(torch.tensor([1, 2, 3]), N=4).tolist()
    # a 0-d x is one point: a (1, N) matrix (OpInfo linalg.vander sample 0)
    run(lambda x: litnn.linalg.vander(x, N=3), lambda x: torch.linalg.vander(x, N=3), [np.array(2.)], name=False)


def test_singular_triangular_solves_give_inf_as_torch():
    "torch's triangular kernel substitutes row by row: a 0 on the diagonal gives inf/nan, not an error (kornia's DLT on degenerate points)"
    import torch
    for L in (litnn, torch):
        A = L.tensor([[1., 2.], [0., 0.]]); B = L.tensor([[1.], [1.]])
        r = [L.linalg.solve_triangular(A, B, upper=True).tolist(), L.linalg.solve_triangular(A.mT, B.mT, upper=False, left=False).tolist()]
        if L is litnn: mine = r
    assert str(mine) == str(r)
    X = litnn.linalg.solve_triangular(litnn.tensor([[2., 0.], [1., 4.]]), litnn.tensor([[2.], [9.]]), upper=False)
    assert X.tolist() == [[1.], [2.]]                  # (a regular system still goes through the solver)

def test_ex_variants_give_torchs_info_per_matrix():
    "inv_ex / solve_ex / cholesky_ex: LAPACK's code for each failing matrix (its zero pivot, its leading minor), the others computed."
    sing, good = [[1., 2.], [2., 4.]], [[2., 1.], [1., 3.]]
    for lib in (litnn, torch):
        A = lib.tensor([sing, good], dtype=lib.float64)
        r = (lib.linalg.inv_ex(A), lib.linalg.solve_ex(A, lib.ones(2, dtype=lib.float64)),
             lib.linalg.solve_ex(A, lib.ones(3, 2, 2, 1, dtype=lib.float64)), lib.linalg.solve_ex(A, lib.ones(2, 1, 2, dtype=lib.float64), left=False),
             lib.linalg.cholesky_ex(lib.tensor([[[1., 2.], [2., 1.]], good], dtype=lib.float64)), lib.linalg.cholesky_ex(-lib.eye(3, dtype=lib.float64)))
        if lib is litnn: rl = r
        else: rt = r
    for a, b in zip(rl, rt):
        assert a.info.tolist() == b.info.tolist() and a.info.dtype.name == 'int32'
        ok = b.info.numpy() == 0                     # the failing matrices' results are LAPACK's leftovers in torch, NaN in litnn
        np.testing.assert_allclose(a[0].numpy()[..., ok, :, :] if a[0].dim() == 4 else a[0].numpy()[ok], b[0].numpy()[..., ok, :, :] if b[0].dim() == 4 else b[0].numpy()[ok], rtol=1e-12)
    assert rl[0].inverse[0].isnan().all()

def test_cond_of_singular_matrix_is_inf_in_every_norm():
    S = [[1., 2.], [2., 4.]]
    for p in (1, -1, math.inf, -math.inf, 'fro'):         # ('nuc': torch's is the SVD of a matrix of infs, LAPACK's leftovers)
        assert litnn.linalg.cond(litnn.tensor(S), p).item() == torch.linalg.cond(torch.tensor(S), p).item() == math.inf
    b = [S, [[2., 1.], [1., 3.]]]
    np.testing.assert_allclose(litnn.linalg.cond(litnn.tensor(b), 1).numpy(), torch.linalg.cond(torch.tensor(b), 1).numpy(), rtol=1e-6)

def test_matrix_rank_older_tol_overload():
    A = mats(4, 4) @ np.diag([5., 2., 0.5, 1e-3])
    for args, kw in (((1.0,), {}), ((), {'tol': 0.1}), ((0.5, False), {}), ((litnn.tensor(0.6),), {})):
        targs = tuple(torch.tensor(a.item()) if isinstance(a, litnn.Tensor) else a for a in args)
        assert litnn.linalg.matrix_rank(litnn.tensor(A), *args, **kw).item() == torch.linalg.matrix_rank(torch.tensor(A), *targs, **kw).item()
    same_error(lambda lib: lib.linalg.matrix_rank(lib.tensor(A), 0.5, atol=1.0))

def test_matrix_rank_and_pinv_tensor_tolerances_are_per_matrix():
    # a tensor atol/rtol holds one tolerance per matrix of the batch (OpInfo linalg.matrix_rank #44)
    A = mats(3, 4, 5); A[0, :, 0] = A[0, :, 1] * 1e-3
    r, a = np.array([1e-2, 0.5, 1e-9]), np.array([0., 2., 0.1])
    for kw in (dict(rtol=r), dict(atol=a, rtol=r), dict(atol=a)):
        lk, tk = ({k: lib.tensor(v) for k, v in kw.items()} for lib in (litnn, torch))
        assert litnn.linalg.matrix_rank(litnn.tensor(A), **lk).tolist() == torch.linalg.matrix_rank(torch.tensor(A), **tk).tolist()
        np.testing.assert_allclose(litnn.linalg.pinv(litnn.tensor(A), **lk).numpy(), torch.linalg.pinv(torch.tensor(A), **tk).numpy(), rtol=1e-8, atol=1e-10)
    assert litnn.linalg.matrix_rank(litnn.zeros(0, 5, 5), rtol=litnn.zeros(0)).shape == (0,)


@pytest.mark.parametrize('shape', [(0, 0), (3, 0), (0, 3), (2, 0, 3), (0, 3, 3)])
def test_matrix_norm_of_empty_matrices(shape):
    # torch: a max over no value is 0 (no graph), a min over none raises (OpInfo linalg.norm #68)
    for ord in (1, -1, 2, -2, math.inf, -math.inf, 'fro', 'nuc'):
        for keepdim in (False, True):
            f = lambda lib: lib.linalg.matrix_norm(lib.zeros(*shape, requires_grad=True), ord, keepdim=keepdim)
            try: t = f(torch)
            except IndexError:
                same_error(f); continue
            l = f(litnn)
            assert tuple(l.shape) == tuple(t.shape) and l.requires_grad == t.requires_grad and not bool(l.detach().abs().sum())


def test_norm_named_orders_are_matrix_norms_and_dims_are_checked():
    M, v = mats(2, 3), mats(3)
    for f in (lambda lib: lib.linalg.norm(lib.tensor(v), 'fro'), lambda lib: lib.linalg.norm(lib.tensor(M), 'fro', dim=1),
              lambda lib: lib.linalg.matrix_norm(lib.tensor(M), 'fro', dim=(1,)), lambda lib: lib.linalg.matrix_norm(lib.tensor(M), 'nuc', dim=(1,)),
              lambda lib: lib.linalg.matrix_norm(lib.tensor(M), 1, dim=(1, -1)), lambda lib: lib.linalg.norm(lib.tensor(M), 2, dim=(0, 1, 1))):
        assert same_error(f) is RuntimeError
    for o in ('fro', 'nuc'):
        np.testing.assert_allclose(litnn.linalg.norm(litnn.tensor(M), o, keepdim=True).numpy(), torch.linalg.norm(torch.tensor(M), o, keepdim=True).numpy(), rtol=1e-12)

def test_old_svd_without_uv_gives_full_zero_matrices():
    for shape in ((2, 3), (4, 3, 2)):
        (Ul, Sl, Vl), (Ut, St, Vt) = litnn.svd(litnn.tensor(mats(*shape)), compute_uv=False), torch.svd(torch.tensor(mats(*shape)), compute_uv=False)
        assert (tuple(Ul.shape), tuple(Vl.shape)) == (tuple(Ut.shape), tuple(Vt.shape)) and not Ul.any() and not Vl.any()

def test_zero_norm_has_no_gradient():
    for lib in (litnn, torch):
        a = lib.tensor([1., -3., 0.], requires_grad=True)
        lib.linalg.vector_norm(a, 0).backward()
        assert a.grad is None
        a = lib.tensor([1., -3., 0.], requires_grad=True)
        (a.norm(0) + a.sum()).backward()
        assert a.grad.tolist() == [1., 1., 1.]


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_matrix_exp_half_precision(dtype):
    "matrix_exp keeps half-precision dtypes (float16 raised: numpy's solve has none), computed in float32 and rounded once."
    a = (np.arange(25, dtype=np.float32).reshape(5, 5) % 7 - 3) / 8
    want = torch.linalg.matrix_exp(torch.tensor(a))       # (torch's own half kernel overflows to NaN on some inputs)
    got = litnn.linalg.matrix_exp(litnn.tensor(a).to(getattr(litnn, dtype)))
    assert got.dtype == getattr(litnn, dtype)
    np.testing.assert_allclose(got.float().numpy(), want.numpy(), rtol=2e-2, atol=2e-2)


SECOND_ORDER = {'svdvals': lambda L, x: L.linalg.svdvals(x).sum(), 'cond': lambda L, x: L.linalg.cond(x),
                'qr': lambda L, x: L.linalg.qr(x)[1].sum() + L.linalg.qr(x)[0][0].sum(),
                'eigvalsh': lambda L, x: (L.linalg.eigvalsh(x + x.mT) ** 3).sum(),
                'lu_factor': lambda L, x: (L.linalg.lu_factor(x)[0] ** 2).sum(), 'nuc': lambda L, x: L.linalg.matrix_norm(x, 'nuc'),
                'eig': lambda L, x: L.linalg.eig(x)[0].real.sum() + (L.linalg.eigvals(x).abs() ** 2).sum(),
                'svd_U': lambda L, x: L.linalg.svd(x)[0][:, 0].sum() ** 2}

@pytest.mark.parametrize('name', SECOND_ORDER)
def test_second_derivatives_through_factorizations_as_torch(name):
    "A factorization's backward is a formula in its factors: with create_graph they are outputs of its node, so a second derivative reaches A (linalg.cond's was silently wrong when they were constants)."
    torch = pytest.importorskip('torch')
    A0 = np.random.default_rng(3).standard_normal((3, 3))
    f = SECOND_ORDER[name]
    def gg(lib):
        x = lib.tensor(A0, requires_grad=True)
        g, = lib.autograd.grad(f(lib, x), x, create_graph=True)
        return lib.autograd.grad((g * g).sum(), x)[0].detach().numpy()
    np.testing.assert_allclose(gg(litnn), gg(torch), rtol=1e-6, atol=1e-9)
    assert gradgradcheck(lambda x: f(litnn, x), (litnn.tensor(A0, requires_grad=True),))


def test_cholesky_upper_reads_the_upper_triangle():
    # torch (LAPACK uplo='U') reads only the upper triangle with upper=True: a non-symmetric input shows which one is read
    # (found by vmap's perturbed OpInfo samples, /work/w/helpers/opdb-transforms.md)
    a = np.array([[4., 1.], [2., 3.]])
    c = np.array([[4, 1 + 1j], [2 - 1j, 3]])
    for m in (a, c):
        for f in ('linalg.cholesky', 'cholesky'):
            tf, lf = torch, litnn
            for p in f.split('.'): tf, lf = getattr(tf, p), getattr(lf, p)
            for upper in (False, True):
                np.testing.assert_allclose(lf(litnn.tensor(m), upper=upper).numpy(), tf(torch.tensor(m), upper=upper).numpy(), rtol=1e-12)
    np.testing.assert_allclose(litnn.linalg.cholesky_ex(litnn.tensor(a), upper=True).L.numpy(),
                               torch.linalg.cholesky_ex(torch.tensor(a), upper=True).L.numpy(), rtol=1e-12)


def test_lstsq_argument_checks_as_torch():
    "linalg.lstsq's checks, in torch's order and words: other's dims, same dtype, dims difference, rows matching."
    cases = [lambda L: L.linalg.lstsq(L.rand(2, 3), L.rand(3)), lambda L: L.linalg.lstsq(L.rand(2, 3), L.rand(3, 1)),
             lambda L: L.linalg.lstsq(L.rand(2, 3), L.tensor(1.)), lambda L: L.linalg.lstsq(L.rand(2, 2, 2), L.ones(2, 2, dtype=L.int64)),
             lambda L: L.linalg.lstsq(L.ones(2, 2, dtype=L.int64), L.rand(2, 2)), lambda L: L.linalg.lstsq(L.rand(3, 2), L.rand(4, 3, 2)),
             lambda L: L.linalg.lstsq(L.rand(3, 2), L.rand(3, 2), driver='x')]
    for f in cases:
        with pytest.raises(RuntimeError) as te: f(torch)
        with pytest.raises(RuntimeError) as le: f(litnn)
        assert str(le.value) == str(te.value)


@pytest.mark.parametrize('driver,rcond', [('gelsd', 1.0), ('gelsd', -1), ('gelsd', 0.5), ('gelss', 1.0), ('gelss', -1), ('gelsd', None)])
def test_lstsq_rcond_as_lapack_reads_it(driver, rcond):
    "gelsd reads an rcond <= 0 or >= 1 as machine precision, gelss one < 0 (relative to the largest singular value)."
    a = np.diag([1.0, 0.7, 1e-3]) @ np.linalg.qr(mats(3, 3))[0]
    b = mats(3, 2)
    t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), rcond=rcond, driver=driver)
    l = litnn.linalg.lstsq(litnn.tensor(a), litnn.tensor(b), rcond=rcond, driver=driver)
    assert int(l.rank) == int(t.rank)
    np.testing.assert_allclose(l.solution.numpy(), t.solution.numpy(), rtol=1e-8, atol=1e-10)


def test_cond_of_singular_matrices_and_bad_orders():
    "cond of a singular matrix is inf in every order (torch fills the inverse with inf and reads NaN as inf); bad orders refused first."
    a = np.eye(3); a[-1, -1] = 0
    b = np.stack([np.eye(3), a, np.eye(3)])
    for p in [1, -1, 2, -2, math.inf, -math.inf, 'fro', 'nuc', None]:
        for m in (a, b):
            np.testing.assert_array_equal(litnn.linalg.cond(litnn.tensor(m), p).numpy(), torch.linalg.cond(torch.tensor(m), p).numpy())
    for p in ['wrong_norm', 5, 1.5]:
        with pytest.raises(RuntimeError) as te: torch.linalg.cond(torch.ones(3, 2), p)
        with pytest.raises(RuntimeError) as le: litnn.linalg.cond(litnn.ones(3, 2), p)
        assert str(le.value) == str(te.value)


def test_norm_without_ord_is_the_vector_2_norm_over_dim():
    "linalg.norm with no ord and a pair of dims is vector_norm's 2-norm (its checks, its grad_fn), as torch's."
    a = mats(3, 4, 5)
    for dim in [(0, 1), (-1, -2), (0, 2)]:
        run(lambda t: litnn.linalg.norm(t, None, dim), lambda t: torch.linalg.norm(t, None, dim), [a])
    for f in (lambda L: L.linalg.norm(L.ones(10), None, (0, 0)), lambda L: L.linalg.norm(L.ones(3, 3), None, (0, -2))):
        with pytest.raises(RuntimeError) as te: f(torch)
        with pytest.raises(RuntimeError) as le: f(litnn)
        assert str(le.value) == str(te.value)


def test_complex_singular_and_empty_matrices():
    "A singular complex matrix: inv's message names torch's pivot, without a ComplexWarning; cond of empty complex matrices: real zeros."
    z = np.array([[1, 1j, 0], [1j, -1, 0], [0, 0, 1]], dtype=np.complex128)    # row 2 = 1j * row 1
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with pytest.raises(torch.linalg.LinAlgError) as te: torch.linalg.inv(torch.tensor(z))
        with pytest.raises(litnn.linalg.LinAlgError) as le: litnn.linalg.inv(litnn.tensor(z))
    assert str(le.value) == str(te.value)
    for shape in [(0, 0), (2, 5, 0, 0), (0, 3, 3)]:
        t = torch.linalg.cond(torch.zeros(shape, dtype=torch.complex64))
        l = litnn.linalg.cond(litnn.zeros(shape, dtype=litnn.complex64))
        assert str(l.dtype).split('.')[-1] == str(t.dtype).split('.')[-1] and tuple(l.shape) == tuple(t.shape)


def test_eig_out_and_non_finite_input():
    "linalg.eig/eigvals write out= (complex outs only: torch's castability messages), and eig refuses infs and NaNs as torch's."
    a = np.array([[3., -2.], [4., -1.]], dtype=np.float32)       # eigenvalues 1 ± 2i
    for lib in (torch, litnn):
        o0, o1 = lib.empty(0, dtype=lib.complex128), lib.empty(5, dtype=lib.complex64)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = lib.linalg.eig(lib.tensor(a), out=(o0, o1))
        assert r.eigenvalues is o0 and r.eigenvectors is o1 and tuple(o1.shape) == (2, 2)
        np.testing.assert_allclose(sorted(o0.numpy(), key=lambda z: z.imag), [1 - 2j, 1 + 2j], rtol=1e-6)
        o = lib.empty(2, dtype=lib.complex64)
        assert lib.linalg.eigvals(lib.tensor(a), out=o) is o
    bad_outs = [lambda L: (L.empty(0), L.empty(0)), lambda L: (L.empty(0, dtype=L.complex128), L.empty(0)),
                lambda L: (L.empty(0, dtype=L.int32), L.empty(0, dtype=L.int32))]
    for outs in bad_outs:
        with pytest.raises(RuntimeError) as te: torch.linalg.eig(torch.tensor(a), out=outs(torch))
        with pytest.raises(RuntimeError) as le: litnn.linalg.eig(litnn.tensor(a), out=outs(litnn))
        assert str(le.value) == str(te.value)
    with pytest.raises(RuntimeError) as te: torch.linalg.eigvals(torch.tensor(a), out=torch.empty(0))
    with pytest.raises(RuntimeError) as le: litnn.linalg.eigvals(litnn.tensor(a), out=litnn.empty(0))
    assert str(le.value) == str(te.value)
    b = mats(2, 3, 3); b[1, -1, -1] = np.nan
    with pytest.raises(RuntimeError) as te: torch.linalg.eig(torch.tensor(b))
    with pytest.raises(RuntimeError) as le: litnn.linalg.eig(litnn.tensor(b))
    assert str(le.value) == str(te.value)


def test_singular_values_of_a_strided_batch_are_contiguous():
    "svdvals (and the nuclear norm over any two dims) give a contiguous result for a transposed batch, as torch's."
    a = mats(2, 3, 2, 2)
    for dim in [(0, 1), (1, 0), (0, 2), (2, 3)]:
        t = torch.linalg.matrix_norm(torch.tensor(a).mT, 'nuc', dim=dim)
        l = litnn.linalg.matrix_norm(litnn.tensor(a).mT, 'nuc', dim=dim)
        assert l.is_contiguous() and l.stride() == t.stride()
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-10)
    t, l = torch.linalg.svdvals(torch.tensor(a).permute(2, 3, 0, 1)), litnn.linalg.svdvals(litnn.tensor(a).permute(2, 3, 0, 1))
    assert l.stride() == t.stride()


def test_pinv_refuses_complex_tolerances():
    "linalg.pinv: a complex rcond/atol/rtol tensor is refused in torch's words (was clamp's NotImplementedError)."
    for kw in ('rcond', 'atol', 'rtol'):
        with pytest.raises(RuntimeError) as te: torch.linalg.pinv(torch.eye(3), **{kw: torch.full((), 1j)})
        with pytest.raises(RuntimeError) as le: litnn.linalg.pinv(litnn.eye(3), **{kw: litnn.full((), 1j)})
        assert str(le.value) == str(te.value)

def test_multi_dot_checks_as_torch():
    "torch's checks of the chain, in its order and words (not matmul's)."
    from torch_pairs import same_message
    cases = [lambda l: [l.tensor(1.), l.ones(2)], lambda l: [l.ones(2), l.tensor(1.)], lambda l: [l.ones(2)] * 3,
             lambda l: [l.ones(2), l.ones(2, 2, 2), l.ones(2)], lambda l: [l.ones(2), l.ones(2, dtype=l.float64)],
             lambda l: [l.ones(2, dtype=l.complex64), l.ones(2, 2, dtype=l.complex128)],
             lambda l: [l.ones(2), l.ones(3)], lambda l: [l.ones(2), l.ones(3, 2), l.ones(2)], lambda l: [l.ones(2, 3), l.ones(2, 3)],
             lambda l: [], lambda l: [l.ones(2)]]
    for c in cases:
        same_message(lambda lib: lib.linalg.multi_dot(c(lib)))
    same_message(lambda lib: lib.linalg.multi_dot([lib.ones(2), lib.ones(2)], out=lib.empty(0, dtype=lib.float64)))
    for shapes in [((3,), (3, 4), (4, 2), (2,)), ((1, 2), (2, 3), (3, 1)), ((2,), (2,))]:
        a = [np.random.default_rng(0).standard_normal(s) for s in shapes]
        np.testing.assert_allclose(litnn.linalg.multi_dot([litnn.tensor(x) for x in a]).numpy(),
                                   torch.linalg.multi_dot([torch.tensor(x) for x in a]).numpy(), rtol=1e-12)

def test_slogdet_and_det_refuse_half_precision_as_torch():
    from torch_pairs import same_message
    for dt in ('bfloat16', 'float16'):
        same_message(lambda lib: lib.linalg.slogdet(lib.ones(2, 2, dtype=getattr(lib, dt))))
        same_message(lambda lib: lib.linalg.det(lib.ones(2, 2, dtype=getattr(lib, dt))))
    same_message(lambda lib: lib.linalg.slogdet(lib.ones(2, 3, dtype=lib.bfloat16)))     # the square check first

def test_matrix_rank_out_dtype_message_as_torch():
    from torch_pairs import same_message
    same_message(lambda lib: lib.linalg.matrix_rank(lib.eye(2), out=lib.empty(0, dtype=lib.bool)))
    for dt in ('int32', 'float32'):
        o, to = litnn.empty(0, dtype=getattr(litnn, dt)), torch.empty(0, dtype=getattr(torch, dt))
        litnn.linalg.matrix_rank(litnn.eye(3), out=o); torch.linalg.matrix_rank(torch.eye(3), out=to)
        assert o.tolist() == to.tolist() and str(o.dtype).split('.')[1] == str(to.dtype).split('.')[1]

def test_matrix_exp_of_empty_batches_and_matrices():
    for s in ((0, 0), (2, 0, 0), (0, 3, 3)):
        x, tx = litnn.zeros(s, requires_grad=True), torch.zeros(s, requires_grad=True)
        y, ty = litnn.linalg.matrix_exp(x), torch.linalg.matrix_exp(tx)
        assert tuple(y.shape) == tuple(ty.shape) == s
        y.sum().backward(); ty.sum().backward()
        assert tuple(x.grad.shape) == tuple(tx.grad.shape)

def test_linalg_vander_dtypes_as_torch():
    "linalg.vander refuses bool and half precision (torch.vander takes them); a 0-d x is one point, then N is checked."
    from torch_pairs import same_message
    for dt in ('bool', 'float16', 'bfloat16'):
        same_message(lambda lib: lib.linalg.vander(lib.ones(2, dtype=getattr(lib, dt))))
        l, t = litnn.vander(litnn.ones(2, dtype=getattr(litnn, dt))), torch.vander(torch.ones(2, dtype=getattr(torch, dt)))
        assert l.tolist() == t.tolist() and str(l.dtype).split('.')[1] == str(t.dtype).split('.')[1]
    same_message(lambda lib: lib.linalg.vander(lib.tensor(2.)))
    same_message(lambda lib: lib.linalg.vander(lib.ones(3), N=1))
    for dt in ('uint8', 'int32', 'complex64'):
        x = np.array([1, 2, 3]).astype(dt)
        assert litnn.linalg.vander(litnn.tensor(x)).tolist() == torch.linalg.vander(torch.tensor(x)).tolist()

def test_matrix_power_vecdot_ldl_argument_checks_as_torch():
    from torch_pairs import same_message
    for n in (2.0, True):
        with pytest.raises(TypeError): torch.linalg.matrix_power(torch.eye(2), n)
        with pytest.raises(TypeError, match="argument 'n'"): litnn.linalg.matrix_power(litnn.eye(2), n)
    assert litnn.linalg.matrix_power(litnn.eye(2) * 2, litnn.tensor(3)).tolist() == torch.linalg.matrix_power(torch.eye(2) * 2, torch.tensor(3)).tolist()
    assert litnn.linalg.matrix_power(litnn.eye(2) * 2, np.int64(2)).tolist() == [[4.0, 0.0], [0.0, 4.0]]
    same_message(lambda lib: lib.linalg.vecdot(lib.ones(3), lib.ones(3, dtype=lib.float64)))
    for dt in ('int32', 'bool'):
        same_message(lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=getattr(lib, dt)), lib.ones(3, dtype=getattr(lib, dt))))
    same_message(lambda lib: lib.linalg.ldl_factor(lib.eye(3, dtype=lib.float16)))
    same_message(lambda lib: lib.linalg.ldl_factor_ex(lib.eye(3, dtype=lib.bfloat16)))

def test_solve_right_side_and_ex_check_errors_messages_as_torch():
    "solve(left=False) checks X A = B in torch's words (a vector B is a column); the _ex functions name themselves when check_errors raises."
    from torch_pairs import same_message
    same_message(lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(3), left=False))
    same_message(lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(2, 2), left=False))
    np.testing.assert_allclose(litnn.linalg.solve(litnn.eye(3) * 2, litnn.ones(2, 3), left=False).numpy(),
                               torch.linalg.solve(torch.eye(3) * 2, torch.ones(2, 3), left=False).numpy())
    for f in [lambda lib: lib.linalg.solve_ex(lib.zeros(3, 3), lib.ones(3), check_errors=True),
              lambda lib: lib.linalg.inv_ex(lib.zeros(2, 3, 3), check_errors=True),
              lambda lib: lib.linalg.cholesky_ex(-lib.eye(3).expand(2, 3, 3), check_errors=True)]:
        msgs = []
        for lib in (torch, litnn):
            with pytest.raises(lib.linalg.LinAlgError) as e: f(lib)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


def test_vecdot_of_two_vectors_is_vdot_as_torch():
    "torch's linalg.vecdot of two 1-D tensors is vdot: dim is not read, vdot's size message."
    from torch_pairs import same_message
    x, y = np.array([1., 2., 3.], np.float32), np.array([1., 0., 2.], np.float32)
    for d in (0, 1, 5, -1, -2):
        for a, b in ((x, y), (x * 1j + 1, y * (1 + 2j))):
            want = torch.linalg.vecdot(torch.tensor(a), torch.tensor(b), dim=d)
            got = litnn.linalg.vecdot(litnn.tensor(a), litnn.tensor(b), dim=d)
            assert got.shape == () and str(got.dtype)[6:] == str(want.dtype)[6:]
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    for b in (y[:2], y[:1]):
        same_message(lambda lib: lib.linalg.vecdot(lib.tensor(x), lib.tensor(b), dim=3))
    same_message(lambda lib: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 3), dim=2))     # 2-D: dim is checked
    a = litnn.tensor(x, requires_grad=True); litnn.linalg.vecdot(a, litnn.tensor(y), dim=4).backward()
    assert a.grad.tolist() == y.tolist()

def test_matrix_power_names_as_torch():
    "torch.matrix_power, Tensor.matrix_power and linalg.matrix_power: their parser's names and positions for a bad n; `input=`; out=."
    from torch_pairs import same_message
    for f in (lambda lib: lib.matrix_power(lib.eye(2), 2.0), lambda lib: lib.eye(2).matrix_power(2.0), lambda lib: lib.linalg.matrix_power(lib.eye(2), 2.0),
              lambda lib: lib.matrix_power(lib.eye(2), True), lambda lib: lib.linalg.matrix_power(lib.eye(2), 'a'),
              lambda lib: lib.matrix_power(lib.ones(3), 2.0), lambda lib: lib.matrix_power(lib.ones(3), 2),
              lambda lib: lib.matrix_power(lib.eye(2), 2, out=lib.empty(2, 2, dtype=lib.int64))):
        same_message(f)
    same_error(lambda lib: lib.linalg.matrix_power(A=lib.eye(2), n=2))      # torch names the matrix `input` here
    for lib in (torch, litnn):
        x, o = lib.eye(2) * 2, lib.empty(2, 2)
        assert lib.matrix_power(input=x, n=3).tolist() == lib.linalg.matrix_power(input=x, n=3).tolist() == x.matrix_power(n=3).tolist() == [[8., 0.], [0., 8.]]
        assert lib.matrix_power(x, 2, out=o) is o and o.tolist() == [[4., 0.], [0., 4.]]
    assert litnn.matrix_power is not litnn.linalg.matrix_power and torch.matrix_power is not torch.linalg.matrix_power


@pytest.mark.parametrize('driver', ['gels', 'gelsy', 'gelsd', 'gelss'])
@pytest.mark.parametrize('shapes', [((5, 3), (5, 2)), ((2, 3), (2, 2)), ((3, 3), (3,)), ((2, 5, 3), (2, 5, 2))])
def test_lstsq_is_one_node_as_torch(driver, shapes):
    "lstsq's solution and residuals (empty ones too) are outputs of one LinalgLstsqBackward0 node, as torch's; same gradients."
    r = np.random.default_rng(5)
    A, B = r.standard_normal(shapes[0]), r.standard_normal(shapes[1])
    out = []
    for L in (torch, litnn):
        a, b = L.tensor(A, requires_grad=True), L.tensor(B, requires_grad=True)
        res = L.linalg.lstsq(a, b, driver=driver)
        names = [type(v.grad_fn).__name__ if v.grad_fn is not None else None for v in res]
        loss = res.solution.sum() + (res.residuals.sum() if res.residuals.numel() else 0)
        ga, gb = L.autograd.grad(loss, (a, b))
        out.append((names, [v.requires_grad for v in res], [tuple(v.shape) for v in res], ga.detach().numpy(), gb.detach().numpy()))
    assert out[0][:3] == out[1][:3]
    np.testing.assert_allclose(out[1][3], out[0][3], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out[1][4], out[0][4], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize('upper', [False, True])
@pytest.mark.parametrize('left', [True, False])
def test_solve_triangular_is_substitution_as_torch(upper, left):
    "An ill-conditioned triangle (small diagonal): substitution, as torch's kernel (an LU solve of a lower triangle pivots and differed by 100%); L^-1 keeps exact zeros."
    rng = np.random.default_rng(0)
    n = 40
    L = np.tril(rng.standard_normal((n, n))) + np.eye(n) * 0.1
    L[np.arange(n), np.arange(n)] *= rng.uniform(0.01, 3, n)
    A0, B0 = (L.T.copy() if upper else L), rng.standard_normal((n, 3) if left else (3, n))
    for b in (B0, np.eye(n)):
        want = torch.linalg.solve_triangular(torch.tensor(A0), torch.tensor(b), upper=upper, left=left).numpy()
        got = litnn.linalg.solve_triangular(litnn.tensor(A0), litnn.tensor(b), upper=upper, left=left).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())
        assert ((got == 0) == (want == 0)).all()


@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_solve_by_substitution_as_torch(upper):
    "A factor with a small diagonal (cond(L Lᵀ) ~ 1e19): two triangular solves, as torch's potrs; the product's solve lost every digit."
    rng = np.random.default_rng(0)
    n = 40
    L = np.tril(rng.standard_normal((n, n)))
    L[np.arange(n), np.arange(n)] = np.abs(L[np.arange(n), np.arange(n)]) * 0.01 + 0.01
    if upper: L = L.T.copy()
    B = rng.standard_normal((n, 2))
    want = torch.cholesky_solve(torch.tensor(B), torch.tensor(L), upper=upper).numpy()
    got = litnn.cholesky_solve(litnn.tensor(B), litnn.tensor(L), upper=upper).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8 * np.abs(want).max())


@pytest.mark.parametrize('fn', ['svd', 'svdvals'])
@pytest.mark.parametrize('shape, dtype', [((3, 3), 'float32'), ((0, 3), 'float32'), ((3,), 'float32'), ((2, 2), 'int64')])
def test_svd_driver_is_cuda_only_as_torch(fn, shape, dtype):
    "torch's svd refuses driver= for a CPU input it would compute, after its matrix and dtype checks (an empty one passes)"
    def call(L):
        try: r = getattr(L.linalg, fn)(L.ones(shape, dtype=getattr(L, dtype)), driver='gesvd')
        except RuntimeError as e: return 'RuntimeError', str(e)
        return tuple((r if fn == 'svdvals' else r.S).shape)
    assert call(litnn) == call(torch)


@pytest.mark.parametrize('fill,batch', [(float('nan'), ()), (float('inf'), ()), (float('nan'), (2,))])
@pytest.mark.parametrize('fn', ['eigh', 'eigvalsh'])
def test_eigh_that_does_not_converge_is_a_linalg_error_as_torch(fill, batch, fn):
    "geoopt's SPD manifold calls eigh on a diverged (non-finite) matrix: torch raises linalg.LinAlgError naming eigh (and the batch element)"
    def f(lib): getattr(lib.linalg, fn)(lib.full(batch + (3, 3), fill, dtype=lib.float64))
    with pytest.raises(torch.linalg.LinAlgError) as t: f(torch)
    with pytest.raises(litnn.linalg.LinAlgError) as l: f(litnn)
    assert str(t.value).startswith(str(l.value).rstrip('.'))     # (torch adds LAPACK's error code, which numpy keeps to itself)

"""Complex linear algebra and the complex gaps around it, side by side with torch 2.13: conjugate transposes, vdot,
norms, var/std, comparisons that complex numbers refuse, conj_physical_, the decompositions (svd, qr, eigh, eig,
cholesky, pinv, det, slogdet, inv, solve) with their gradients (torch's formulas and its phase checks), gradcheck,
and ldl_factor / ldl_solve (LAPACK's Bunch-Kaufman pivots)."""
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck

torch = pytest.importorskip('torch')

def L(t, requires_grad=False):
    "A litnn tensor with the values and dtype of torch tensor `t`."
    return litnn.tensor(t.detach().numpy(), dtype=getattr(litnn, str(t.dtype).split('.')[1]), requires_grad=requires_grad)

def close(a, b, tol=1e-6):
    "litnn result a equals torch result b: dtype, shape, values (tuples elementwise)."
    if isinstance(b, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b): close(x, y, tol)
        return
    assert str(a.dtype).split('.')[1] == str(b.dtype).split('.')[1], (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().resolve_conj().numpy(), b.detach().resolve_conj().numpy(), rtol=tol, atol=tol)

def rnd(*shape, dtype=torch.complex128, seed=0):
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))

A, V = rnd(3, 3), rnd(3, seed=1)
HPD = A @ A.mH + 3 * torch.eye(3, dtype=torch.complex128)

# --- small gaps -------------------------------------------------------------------------------------------------
VALUES = {
    'mH': lambda l, a, v: a.mH, 'adjoint': lambda l, a, v: a.adjoint(), 'H': lambda l, a, v: a.H, 'mT': lambda l, a, v: a.mT,
    'vdot': lambda l, a, v: l.vdot(v, 2 * v + 1j), 'vecdot': lambda l, a, v: l.linalg.vecdot(a, a.flip(0)),
    'norm': lambda l, a, v: l.linalg.norm(a), 'vector_norm': lambda l, a, v: l.linalg.vector_norm(v),
    'vector_norm3': lambda l, a, v: l.linalg.vector_norm(a, 3, dim=1), 'vector_norm_inf': lambda l, a, v: l.linalg.vector_norm(v, float('inf')),
    'vector_norm0': lambda l, a, v: l.linalg.vector_norm(a, 0), 'matrix_norm': lambda l, a, v: l.linalg.matrix_norm(a),
    'matrix_norm1': lambda l, a, v: l.linalg.matrix_norm(a, 1), 'matrix_norm2': lambda l, a, v: l.linalg.matrix_norm(a, 2),
    'matrix_norm_nuc': lambda l, a, v: l.linalg.matrix_norm(a, 'nuc'), 'tensor_norm': lambda l, a, v: a.norm(),
    'tensor_norm1': lambda l, a, v: a.norm(p=1, dim=0), 'var': lambda l, a, v: a.var(), 'std': lambda l, a, v: a.std(dim=0),
    'var_correction0': lambda l, a, v: a.var(1, correction=0, keepdim=True), 'var_mean': lambda l, a, v: l.var_mean(a, dim=1),
    'std_mean': lambda l, a, v: l.std_mean(a), 'pinv': lambda l, a, v: l.linalg.pinv(a), 'pinv_wide': lambda l, a, v: l.linalg.pinv(a[:2]),
    'pinv_hermitian': lambda l, a, v: l.linalg.pinv(a @ a.mH, hermitian=True), 'eigvalsh': lambda l, a, v: l.linalg.eigvalsh(a @ a.mH),
    'cholesky': lambda l, a, v: l.linalg.cholesky(a @ a.mH + 3 * l.eye(3)),
    'cholesky_upper': lambda l, a, v: l.linalg.cholesky(a @ a.mH + 3 * l.eye(3), upper=True),
    'cholesky_lower_triangle': lambda l, a, v: l.linalg.cholesky((a @ a.mH + 3 * l.eye(3)).tril()),   # reads the lower triangle
    'cholesky_solve': lambda l, a, v: l.cholesky_solve(a, l.linalg.cholesky(a @ a.mH + 3 * l.eye(3))),
    'cholesky_inverse': lambda l, a, v: l.cholesky_inverse(l.linalg.cholesky(a @ a.mH + 3 * l.eye(3))),
    'svdvals': lambda l, a, v: l.linalg.svdvals(a), 'det': lambda l, a, v: l.linalg.det(a), 'slogdet': lambda l, a, v: tuple(l.linalg.slogdet(a)),
    'logdet': lambda l, a, v: l.logdet(a), 'inv': lambda l, a, v: l.linalg.inv(a), 'solve': lambda l, a, v: l.linalg.solve(a, v),
    'matrix_exp': lambda l, a, v: l.linalg.matrix_exp(a), 'eigvals': lambda l, a, v: l.linalg.eigvals(a),
    'eig': lambda l, a, v: tuple(l.linalg.eig(a)), 'eigvals_real': lambda l, a, v: l.linalg.eigvals(a.real),
    'eig_real': lambda l, a, v: tuple(l.linalg.eig(a.real)), 'svd_old_V': lambda l, a, v: l.svd(a).S,
    'conj_physical_': lambda l, a, v: v.clone().conj_physical_(), 'conj_physical_real': lambda l, a, v: a.real.clone().conj_physical_(),
}

@pytest.mark.parametrize('name', list(VALUES))
@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_values(name, dtype):
    a, v = A.to(dtype), V.to(dtype)
    close(VALUES[name](litnn, L(a), L(v)), VALUES[name](torch, a, v), 2e-4 if dtype == torch.complex64 else 1e-9)

def test_hermitian_reads_lower_triangle():
    "eigh, eigvalsh and pinv(hermitian=True) read only the lower triangle, taken as conjugate-symmetric."
    low = HPD.tril()
    close(litnn.linalg.eigvalsh(L(low)), torch.linalg.eigvalsh(low), 1e-9)
    close(litnn.linalg.pinv(L(low), hermitian=True), torch.linalg.pinv(low, hermitian=True), 1e-9)
    w, V_ = litnn.linalg.eigh(L(low))
    close(w, torch.linalg.eigh(low).eigenvalues, 1e-9)
    close((V_ * w.cdouble()) @ V_.mH, HPD, 1e-9)      # eigenvectors only up to a phase: compare V diag(w) Vᴴ

def test_conj_physical_inplace():
    z = litnn.tensor([1 + 2j, 3 - 1j]); r = z.conj_physical_()
    assert r is z and z.tolist() == [1 - 2j, 3 + 1j] and z._version == 1
    w = litnn.tensor([1 + 2j], requires_grad=True).clone(); w.conj_physical_()
    assert w.grad_fn is not None

@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_logaddexp(dtype):
    a, b = (rnd(6, dtype=dtype, seed=s) * 3 for s in (7, 8))
    a.requires_grad_(); b.requires_grad_()
    al, bl = L(a, True), L(b, True)
    t, l = torch.logaddexp(a, b), litnn.logaddexp(al, bl)
    close(l, t, 1e-5)
    (t * (1 + 2j)).real.sum().backward(); (l * (1 + 2j)).real.sum().backward()
    close(al.grad, a.grad, 1e-5); close(bl.grad, b.grad, 1e-5)

def test_isreal():
    v = torch.tensor([1 + 2j, 3 + 0j, -0j])
    assert litnn.isreal(L(v)).tolist() == torch.isreal(v).tolist()

def test_complex32_is_named_not_stored():
    "kornia compares dtypes against torch.complex32; numpy has no such element type, so litnn names it and refuses to store it"
    assert litnn.complex32 is litnn.chalf and litnn.complex32.is_complex and litnn.complex32.itemsize == 4
    with pytest.raises(TypeError, match='complex32'): litnn.zeros(2, dtype=litnn.complex32)
    assert not hasattr(litnn.Tensor, 'chalf')

# --- operations complex numbers refuse: torch's exact errors ----------------------------------------------------------
REFUSED = {
    'lt': lambda l, v: v < v, 'le': lambda l, v: v <= 1, 'gt': lambda l, v: v > v, 'ge': lambda l, v: v >= v, 'rgt': lambda l, v: 1 < v,
    'lt_': lambda l, v: v.clone().lt_(1), 'max': lambda l, v: v.max(), 'max_dim': lambda l, v: v.max(0), 'min': lambda l, v: v.min(),
    'min_dim': lambda l, v: v.min(dim=0), 'max_other': lambda l, v: l.max(v, v), 'maximum': lambda l, v: l.maximum(v, v),
    'minimum': lambda l, v: l.minimum(v, v), 'fmax': lambda l, v: l.fmax(v, v), 'fmin': lambda l, v: l.fmin(v, v),
    'amax': lambda l, v: v.amax(), 'amin': lambda l, v: v.amin(), 'aminmax': lambda l, v: v.aminmax(),
    'argmax': lambda l, v: v.argmax(), 'argmax_dim': lambda l, v: v.argmax(0), 'argmin': lambda l, v: v.argmin(),
    'sort': lambda l, v: v.sort(), 'argsort': lambda l, v: v.argsort(), 'msort': lambda l, v: l.msort(v), 'topk': lambda l, v: v.topk(1),
    'kthvalue': lambda l, v: v.kthvalue(1), 'median': lambda l, v: v.median(), 'median_dim': lambda l, v: v.median(0),
    'nanmedian': lambda l, v: v.nanmedian(), 'cummax': lambda l, v: v.cummax(0), 'cummin': lambda l, v: v.cummin(0),
    'clamp': lambda l, v: v.clamp(0, 1), 'clamp_tensor': lambda l, v: v.clamp(min=v), 'clamp_min': lambda l, v: v.clamp_min(0),
    'clamp_max': lambda l, v: v.clamp_max(1), 'clip': lambda l, v: v.clip(0, 1), 'clamp_': lambda l, v: v.clone().clamp_(0, 1),
    'relu': lambda l, v: l.relu(v), 'sign': lambda l, v: v.sign(),
    'floor': lambda l, v: v.floor(), 'ceil': lambda l, v: v.ceil(), 'trunc': lambda l, v: v.trunc(), 'fix': lambda l, v: v.fix(),
    'frac': lambda l, v: v.frac(), 'round': lambda l, v: v.round(), 'round_decimals': lambda l, v: v.round(decimals=1),
    'floor_': lambda l, v: v.clone().floor_(), 'heaviside': lambda l, v: l.heaviside(v, v), 'remainder': lambda l, v: v % 2,
    'remainder_tensor': lambda l, v: l.remainder(v, v), 'fmod': lambda l, v: l.fmod(v, 2), 'atan2': lambda l, v: l.atan2(v, v),
    'hypot': lambda l, v: l.hypot(v, v), 'copysign': lambda l, v: l.copysign(v, v), 'xlogy': lambda l, v: l.xlogy(v, v),
    'isposinf': lambda l, v: l.isposinf(v), 'isneginf': lambda l, v: l.isneginf(v), 'signbit': lambda l, v: l.signbit(v),
    'floor_divide': lambda l, v: v // 2,
}

@pytest.mark.parametrize('name', list(REFUSED))
@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_refused(name, dtype):
    v = V.to(dtype)
    with pytest.raises(Exception) as et: REFUSED[name](torch, v)
    with pytest.raises(Exception) as el: REFUSED[name](litnn, L(v))
    assert (type(el.value), str(el.value)) == (type(et.value), str(et.value))

# --- gradients: torch's formulas on complex128 ------------------------------------------------------------------------
def weigh(lib, X):
    "A real loss that reads every entry of X with its own complex weight."
    w = np.arange(1, X.numel() + 1).reshape(tuple(X.shape)) * (1 + 0.5j)
    return (X * lib.tensor(w, dtype=X.dtype if X.is_complex() else lib.complex128)).real.sum()

GRADS = {
    'inv': lambda l, a: weigh(l, l.linalg.inv(a)),
    'det': lambda l, a: (l.linalg.det(a) * (1 - 2j)).real,
    'det_abs': lambda l, a: l.linalg.det(a).abs(),
    'slogdet_logabs': lambda l, a: l.linalg.slogdet(a)[1],
    'slogdet_sign': lambda l, a: (l.linalg.slogdet(a)[0] * (2 + 1j)).real + l.linalg.slogdet(a)[1],
    'logdet': lambda l, a: (l.logdet(a) * (1 + 1j)).real,
    'solve': lambda l, a: weigh(l, l.linalg.solve(a, l.ones(3, 2, dtype=a.dtype))),
    'solve_B': lambda l, a: weigh(l, l.linalg.solve(l.eye(3, dtype=a.dtype) * 2 + 0.1, a[:, :2])),
    'svdvals': lambda l, a: l.linalg.svdvals(a).sum(),
    'svd_moduli': lambda l, a: (lambda U, S, Vh: U.abs().sum() + Vh.abs().sum() + S.sum())(*l.linalg.svd(a)),
    'svd_product': lambda l, a: (lambda U, S, Vh: weigh(l, (U * S.unsqueeze(-2)) @ Vh))(*l.linalg.svd(a, full_matrices=False)),
    'svd_UVh': lambda l, a: (lambda U, S, Vh: weigh(l, U @ Vh))(*l.linalg.svd(a, full_matrices=False)),
    'qr': lambda l, a: (lambda Q, R: weigh(l, Q) + weigh(l, R))(*l.linalg.qr(a)),
    'eigh': lambda l, a: (lambda e, V: weigh(l, e) + (V.abs() ** 2 * l.arange(9.).reshape(3, 3)).sum())(*l.linalg.eigh(a @ a.mH)),
    'eigvalsh': lambda l, a: weigh(l, l.linalg.eigvalsh(a @ a.mH)),
    'eig': lambda l, a: (lambda e, V: weigh(l, e) + (V.abs() * l.arange(9.).reshape(3, 3)).sum())(*l.linalg.eig(a)),
    'eigvals': lambda l, a: weigh(l, l.linalg.eigvals(a)),
    'cholesky': lambda l, a: weigh(l, l.linalg.cholesky(a @ a.mH + 3 * l.eye(3))),
    'cholesky_upper': lambda l, a: weigh(l, l.linalg.cholesky(a @ a.mH + 3 * l.eye(3), upper=True)),
    'pinv': lambda l, a: weigh(l, l.linalg.pinv(a)),
    'pinv_hermitian': lambda l, a: weigh(l, l.linalg.pinv(a @ a.mH, hermitian=True)),
    'matrix_exp': lambda l, a: weigh(l, l.linalg.matrix_exp(a)),
    'norms': lambda l, a: l.linalg.vector_norm(a, 3) + l.linalg.norm(a) + a.norm(p=1) + l.linalg.vector_norm(a, float('inf')) + l.linalg.matrix_norm(a, 'nuc'),
    'var_std': lambda l, a: a.var() + a.std(dim=0).sum(),
    'cholesky_solve': lambda l, a: weigh(l, l.cholesky_solve(l.eye(3, dtype=a.dtype), l.linalg.cholesky(a @ a.mH + 3 * l.eye(3)))),
    'vdot': lambda l, a: (l.vdot(a[0], a[1]) * (1 + 2j)).real,
}
REAL_TOO = ('inv', 'det', 'slogdet_logabs', 'svd_product', 'qr', 'eigh', 'eig', 'eigvals', 'pinv', 'cholesky', 'norms', 'var_std')
SHAPES = {'qr': [(3, 3), (4, 3), (3, 5)], 'svd_product': [(3, 3), (4, 3), (3, 5)], 'svd_UVh': [(3, 3), (4, 3), (3, 5)], 'pinv': [(3, 3), (4, 3), (3, 5)]}
CASES = [(n, s, d) for n in GRADS for s in SHAPES.get(n, [(3, 3)]) for d in (['complex128', 'float64'] if n in REAL_TOO else ['complex128'])]

@pytest.mark.parametrize('name,shape,dtype', CASES)
def test_gradients_vs_torch(name, shape, dtype):
    a = rnd(*shape, seed=3, dtype=getattr(torch, dtype)).requires_grad_()
    al = L(a, requires_grad=True)
    lt, ll = GRADS[name](torch, a), GRADS[name](litnn, al)
    lt.backward(); ll.backward()
    assert abs(ll.item() - lt.item()) < 1e-9 * max(1, abs(lt.item()))
    close(al.grad, a.grad, 1e-8)

PHASE = {
    'svd': (lambda l, a: l.linalg.svd(a)[0].sum().abs()),
    'eigh': (lambda l, a: l.linalg.eigh(a @ a.mH)[1].sum().abs()),
    'eig': (lambda l, a: l.linalg.eig(a)[1].sum().abs()),
}

@pytest.mark.parametrize('name', list(PHASE))
def test_phase_dependent_loss_refused(name):
    "A loss that depends on the arbitrary phase of complex singular vectors or eigenvectors: torch's error."
    a = A.clone().requires_grad_(); al = L(a, requires_grad=True)
    with pytest.raises(RuntimeError) as et: PHASE[name](torch, a).backward()
    with pytest.raises(RuntimeError) as el: PHASE[name](litnn, al).backward()
    assert str(el.value) == str(et.value)

def test_eig_normalization():
    "Eigenvectors of norm 1 with their largest component real (LAPACK's geev, as torch); A V = V diag(L)."
    for a in (A, A.real, torch.tensor([[0., -1.], [1., 0.]], dtype=torch.float64)):
        w, V_ = litnn.linalg.eig(L(a))
        close(V_.abs().pow(2).sum(-2), torch.ones(a.shape[-1], dtype=torch.float64), 1e-12)
        np.testing.assert_allclose((L(a).to(w.dtype) @ V_).numpy(), (V_ * w).numpy(), atol=1e-9)
        close(w, torch.linalg.eig(a).eigenvalues, 1e-9)

GRADCHECK = {
    'det': lambda a: litnn.linalg.det(a), 'inv': lambda a: litnn.linalg.inv(a), 'solve': lambda a: litnn.linalg.solve(a, a[:, :1] + 1),
    'slogdet': lambda a: tuple(litnn.linalg.slogdet(a)), 'svdvals': lambda a: litnn.linalg.svdvals(a),
    'svd_product': lambda a: (lambda U, S, Vh: U @ Vh)(*litnn.linalg.svd(a)),
    'qr': lambda a: tuple(litnn.linalg.qr(a)), 'eigvals': lambda a: litnn.linalg.eigvals(a),
    'eigvalsh': lambda a: litnn.linalg.eigvalsh(a @ a.mH), 'eigh_projector': lambda a: (lambda e, V: V[:, :1] @ V[:, :1].mH)(*litnn.linalg.eigh(a + a.mH)),
    'eig_projector': lambda a: (lambda e, V: V[:, :1] @ litnn.linalg.inv(V)[:1])(*litnn.linalg.eig(a)),
    'cholesky': lambda a: litnn.linalg.cholesky(a @ a.mH + 3 * litnn.eye(3)), 'pinv': lambda a: litnn.linalg.pinv(a),
    'matrix_exp': lambda a: litnn.linalg.matrix_exp(a), 'norm': lambda a: litnn.linalg.norm(a), 'var': lambda a: a.var(0),
}

@pytest.mark.parametrize('name', list(GRADCHECK))
def test_gradcheck(name):
    assert gradcheck(GRADCHECK[name], (L(A, requires_grad=True),))

# --- ldl_factor / ldl_solve ---------------------------------------------------------------------------------------------
def symmetric(n, dtype, hermitian, seed):
    g = torch.Generator().manual_seed(seed)
    M = torch.randn(n, n, dtype=dtype, generator=g)
    if seed % 3 == 0: M[0, 0] = 0                     # a zero pivot candidate: forces 2x2 blocks and interchanges
    M = M + (M.mH if hermitian else M.mT)
    if seed % 4 == 1: M.diagonal().mul_(0.01)          # small diagonal: more 2x2 blocks
    return M

@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.complex64, torch.complex128])
@pytest.mark.parametrize('hermitian', [False, True])
def test_ldl_factor_and_solve(dtype, hermitian):
    tol = 1e-4 if dtype in (torch.float32, torch.complex64) else 1e-10
    for n in (1, 2, 3, 5, 8):
        for seed in range(12):
            M = symmetric(n, dtype, hermitian, seed)
            LD, piv, info = torch.linalg.ldl_factor_ex(M, hermitian=hermitian)
            LDl, pivl, infol = litnn.linalg.ldl_factor_ex(L(M), hermitian=hermitian)
            assert str(pivl.dtype) == 'litnn.int32' and pivl.tolist() == piv.tolist() and infol.item() == info.item(), (n, seed)
            close(LDl, LD, tol)
            if info.item(): continue                      # singular (the 1x1 zero): nothing to solve
            B = rnd(n, 2, dtype=dtype, seed=seed + 100)
            close(litnn.linalg.ldl_solve(LDl, pivl, L(B), hermitian=hermitian), torch.linalg.ldl_solve(LD, piv, B, hermitian=hermitian), 10 * tol)

def test_ldl_batches_info_and_errors():
    M = torch.stack([symmetric(4, torch.float64, False, s) for s in range(3)])
    close(tuple(litnn.linalg.ldl_factor_ex(L(M))), tuple(torch.linalg.ldl_factor_ex(M)), 1e-12)
    LD, piv = torch.linalg.ldl_factor(M)
    B = rnd(3, 4, 2, dtype=torch.float64)
    close(litnn.linalg.ldl_solve(L(LD), L(piv), L(B)), torch.linalg.ldl_solve(LD, piv, B), 1e-10)
    close(litnn.linalg.ldl_solve(L(LD[0]), L(piv[0]), L(B)), torch.linalg.ldl_solve(LD[0], piv[0], B), 1e-10)   # one factor, a batch of B
    S = torch.tensor([[1., 2.], [2., 4.]])                        # singular: info names the zero pivot
    close(tuple(litnn.linalg.ldl_factor_ex(L(S))), tuple(torch.linalg.ldl_factor_ex(S)), 1e-7)
    with pytest.raises(RuntimeError): litnn.linalg.ldl_factor(L(S))     # torch: an internal assertion, also a RuntimeError
    with pytest.raises(RuntimeError): litnn.linalg.ldl_factor_ex(L(S), check_errors=True)
    close(tuple(litnn.linalg.ldl_factor(litnn.ones(2, 0, 0))), tuple(torch.linalg.ldl_factor(torch.ones(2, 0, 0))))
    for f in (lambda l, LD, p: l.linalg.ldl_solve(LD, p, l.ones(3)), lambda l, LD, p: l.linalg.ldl_solve(LD, p, l.ones(3, 1, dtype=l.float64)),
              lambda l, LD, p: l.linalg.ldl_solve(LD, p, l.ones(4, 1)), lambda l, LD, p: l.linalg.ldl_factor(l.ones(2, 3)),
              lambda l, LD, p: l.linalg.ldl_factor(l.ones(3, 3, dtype=l.long)), lambda l, LD, p: l.linalg.ldl_factor(l.ones(3))):
        LD, p = torch.linalg.ldl_factor(torch.eye(3))
        with pytest.raises(Exception) as et: f(torch, LD, p)
        with pytest.raises(Exception) as el: f(litnn, L(LD), L(p))
        assert (type(el.value), str(el.value)) == (type(et.value), str(et.value))

def test_ldl_has_no_derivative():
    M = symmetric(3, torch.float64, False, 1)
    for lib, m in ((torch, M.clone().requires_grad_()), (litnn, L(M, requires_grad=True))):
        LD, piv = lib.linalg.ldl_factor(m)
        assert LD.requires_grad
        with pytest.raises(RuntimeError, match='derivative for aten::linalg_ldl_factor_ex is not implemented'): LD.sum().backward()
        X = lib.linalg.ldl_solve(LD.detach(), piv, lib.ones(3, 1, dtype=lib.float64, requires_grad=True))
        with pytest.raises(RuntimeError, match='derivative for aten::linalg_ldl_solve is not implemented'): X.sum().backward()

MORE = {
    'lstsq': lambda l, a, t: l.linalg.lstsq(t, l.ones(4, 2, dtype=t.dtype)).solution, 'matrix_rank': lambda l, a, t: l.linalg.matrix_rank(a),
    'cond': lambda l, a, t: l.linalg.cond(a), 'lu_factor': lambda l, a, t: l.linalg.lu_factor(a)[0], 'lu': lambda l, a, t: l.linalg.lu(a)[2],
    'lu_solve': lambda l, a, t: l.linalg.lu_solve(*l.linalg.lu_factor(a), t[:3, :2]),
    'solve_triangular': lambda l, a, t: l.linalg.solve_triangular(a, t[:3, :2], upper=True),
    'householder_product': lambda l, a, t: l.linalg.householder_product(t, l.ones(2, dtype=t.dtype) * (0.5 + 0.1j)),
    'tensorinv': lambda l, a, t: l.linalg.tensorinv(a, 1), 'matrix_power': lambda l, a, t: l.linalg.matrix_power(a, -2),
    'multi_dot': lambda l, a, t: l.linalg.multi_dot([a, a, t.mT]), 'eigvalsh_upper': lambda l, a, t: l.linalg.eigvalsh(a @ a.mH, UPLO='U'),
    'pinverse': lambda l, a, t: l.pinverse(t), 'inner': lambda l, a, t: l.inner(a, a), 'dot': lambda l, a, t: l.dot(a[0], a[1]),
}

@pytest.mark.parametrize('name', list(MORE))
def test_more_linalg_values(name):
    t = rnd(4, 3, seed=5)
    close(MORE[name](litnn, L(A), L(t)), MORE[name](torch, A, t), 1e-8)


@pytest.mark.parametrize('driver', [None, 'gels', 'gelsd'])
def test_lstsq_of_complex_has_real_residuals(driver):
    "lstsq of complex matrices: residuals and singular values are real (float32 for complex64), |A X - B|^2 summed."
    rng = np.random.default_rng(1)
    A = (rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))).astype(np.complex64)
    B = (rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))).astype(np.complex64)
    want = torch.linalg.lstsq(torch.tensor(A), torch.tensor(B), driver=driver)
    got = litnn.linalg.lstsq(litnn.tensor(A), litnn.tensor(B), driver=driver)
    for g, w in zip(got, want):
        assert str(g.dtype).split('.')[-1] == str(w.dtype).split('.')[-1] and tuple(g.shape) == tuple(w.shape)
    np.testing.assert_allclose(got.residuals.numpy(), want.residuals.numpy(), rtol=1e-4)
    np.testing.assert_allclose(got.solution.numpy(), want.solution.numpy(), rtol=1e-4, atol=1e-5)

@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_logaddexp_infinities_and_nans_as_torch(dtype):
    "torch's complex logaddexp: equal infinite real parts (+inf: log(e^a + e^b), -inf: the smaller one), NaN in either part: NaN."
    inf, nan = float('inf'), float('nan')
    a = torch.tensor([inf, -inf, inf, nan, complex(inf, 1), complex(-inf, 2), complex(1, inf), complex(inf, inf), complex(1, nan), 2 + 1j], dtype=dtype)
    b = torch.tensor([inf, -inf, -inf, nan, complex(2, 1), complex(-inf, 3), 1, complex(inf, -inf), 0.5, complex(-inf, 1)], dtype=dtype)
    t, l = torch.logaddexp(a, b), litnn.logaddexp(L(a), L(b))
    assert torch.equal(torch.from_numpy(l.numpy()).isnan(), t.isnan())
    ok = ~t.isnan()
    np.testing.assert_allclose(l.numpy()[ok.numpy()], t[ok].numpy(), rtol=1e-6)

@pytest.mark.parametrize('fn', ['abs', 'absolute', 'angle'])
@pytest.mark.parametrize('x', [[3 + 4j, -1j], [-3., 2.], [-3, 2]])
@pytest.mark.parametrize('out_dtype', ['complex64', 'complex128', 'float32', 'float64', 'int64', 'float16'])
def test_abs_and_angle_write_into_outs_as_torch(fn, x, out_dtype):
    "abs/angle of a complex tensor write their real result into a real out (casting rule) or a complex out of the input's dtype."
    def run(T):
        try:
            r = getattr(T, fn)(T.tensor(x), out=T.empty(0, dtype=getattr(T, out_dtype)))
            return str(r.dtype).split('.')[1], r.tolist()
        except Exception as e: return type(e), str(e)
    assert run(litnn) == run(torch)

@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_log1p_of_small_and_extreme_complex_numbers(dtype):
    "torch's complex log1p keeps the real part of tiny inputs (numpy's log1p(1e-19+1e-18j) loses it), and matches at infinities and NaNs."
    inf, nan = float('inf'), float('nan')
    zs = [1e-19 + 1e-18j, 1e-18 + 0.1j, 0.1 + 1e-18j, 0.5j, 2 + 1j, -1 + 2j, 1e-30 + 2e-30j, 1e30 + 1j, -1 + 1e30j, -1 + 0j, 0j,
          inf, -inf, complex(inf, inf), complex(nan, 1), complex(1, nan), complex(-inf, 1), complex(0, inf)]
    t = torch.log1p(torch.tensor(zs, dtype=dtype))
    l = litnn.log1p(L(torch.tensor(zs, dtype=dtype)))
    np.testing.assert_allclose(l.numpy().real, t.real.numpy(), rtol=2e-6, atol=0)
    np.testing.assert_allclose(l.numpy().imag, t.imag.numpy(), rtol=2e-6, atol=0)

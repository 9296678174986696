"torch.lobpcg (reference/torch/lobpcg) and torch._linalg_utils against torch 2.13 and numpy.linalg.eigh."
import numpy as np, pytest
import litnn
from litnn import _lobpcg, _linalg_utils
torch = pytest.importorskip('torch')

def _spd(m, seed, batch=()):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=batch + (m, m))
    return a @ np.swapaxes(a, -1, -2) / m + np.diag(np.arange(1, m + 1) ** 1.5)   # well separated eigenvalues

def _run(lib, a, **kw):
    conv = {k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    E, X = lib.lobpcg(lib.tensor(a), **conv)
    return E.detach().numpy(), X.detach().numpy()

def test_names_and_modules():
    assert litnn.lobpcg is _lobpcg.lobpcg and litnn.lobpcg.__module__ == 'litnn._lobpcg' == 'litnn.' + torch.lobpcg.__module__[6:]
    assert _lobpcg.__all__ == torch._lobpcg.__all__
    for name in ['LOBPCG', 'LOBPCGAutogradFunction', '_lobpcg', 'LOBPCG_call_tracker', '_symeig_backward']:
        assert hasattr(_lobpcg, name) and hasattr(torch._lobpcg, name)
    for name in ['is_sparse', 'get_floating_dtype', 'matmul', 'bform', 'qform', 'basis', 'symeig',
                 'matrix_rank', 'solve', 'lstsq', '_symeig', 'eig']:
        assert getattr(_linalg_utils, name).__module__ == 'litnn._linalg_utils'

@pytest.mark.parametrize('method', ['ortho', 'basic'])
@pytest.mark.parametrize('largest', [True, False, None])
@pytest.mark.parametrize('k', [1, 3])
def test_eigenpairs_match_torch_and_numpy(method, largest, k):
    a = _spd(30, seed=k)
    X0 = np.random.default_rng(5).normal(size=(30, k))
    kw = dict(k=k, X=X0, method=method, largest=largest, niter=3000)
    le, lx = _run(litnn, a, **kw)
    te, tx = _run(torch, a, **kw)
    ref = np.linalg.eigh(a)[0]
    ref = ref[::-1][:k] if largest in (True, None) else ref[:k]
    np.testing.assert_allclose(le, te, rtol=1e-9)
    np.testing.assert_allclose(le, ref, rtol=1e-6)
    assert np.linalg.norm(a @ lx - lx * le, axis=0).max() < 1e-6 * np.linalg.norm(a)
    np.testing.assert_allclose(np.abs(lx), np.abs(tx), atol=1e-6)   # same start: same vectors, up to sign

def test_random_start_float32_and_n():
    a = _spd(40, seed=1).astype(np.float32)
    litnn.manual_seed(0)
    E, X = litnn.lobpcg(litnn.tensor(a), k=2, n=4)
    assert E.dtype == litnn.float32 and tuple(E.shape) == (2,) and tuple(X.shape) == (40, 2)
    te, _ = torch.lobpcg(torch.tensor(a), k=2, n=4)
    np.testing.assert_allclose(E.numpy(), te.numpy(), rtol=1e-4)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigh(a.astype(np.float64))[0][::-1][:2], rtol=1e-4)

@pytest.mark.parametrize('method', ['ortho', 'basic'])
def test_generalized_and_preconditioned(method):
    a = _spd(36, seed=3); b = _spd(36, seed=4)
    X0 = np.random.default_rng(6).normal(size=(36, 2))
    kw = dict(k=2, B=b, X=X0, method=method)
    le, lx = _run(litnn, a, **kw); te, _ = _run(torch, a, **kw)
    np.testing.assert_allclose(le, te, rtol=1e-8)
    if method == 'ortho':       # torch's 'basic' can repeat an eigenvalue on a generalized problem
        L = np.linalg.cholesky(b); Li = np.linalg.inv(L)
        np.testing.assert_allclose(le, np.linalg.eigh(Li @ a @ Li.T)[0][::-1][:2], rtol=1e-6)
        assert np.linalg.norm(a @ lx - b @ lx * le, axis=0).max() < 1e-6 * np.linalg.norm(a)
    kw = dict(k=2, X=X0, iK=np.linalg.inv(a), largest=False, method=method)
    le, _ = _run(litnn, a, **kw); te, _ = _run(torch, a, **kw)
    np.testing.assert_allclose(le, te, rtol=1e-8)
    np.testing.assert_allclose(le, np.linalg.eigh(a)[0][:2], rtol=1e-6)

def test_tracker_niter_tol_and_ortho_params():
    a = _spd(30, seed=7); X0 = np.random.default_rng(8).normal(size=(30, 2))
    seen = {}
    for lib in (litnn, torch):
        steps = []
        lib.lobpcg(lib.tensor(a), k=2, X=lib.tensor(X0), niter=7, tol=1e-12,
                   tracker=lambda w: steps.append((w.ivars['istep'], w.ivars['converged_count'], sorted(w.fparams), sorted(w.iparams))))
        seen[lib.__name__] = steps
    assert seen['litnn'] == seen['torch'] and len(seen['litnn']) == 7
    kw = dict(k=2, X=X0, ortho_iparams={'ortho_i_max': 5}, ortho_fparams={'ortho_tol': 1e-10}, ortho_bparams={'ortho_use_drop': True})
    le, _ = _run(litnn, a, **kw); te, _ = _run(torch, a, **kw)
    np.testing.assert_allclose(le, te, rtol=1e-8)

def test_batched():
    a = _spd(21, seed=9, batch=(2, 2))
    X0 = np.random.default_rng(1).normal(size=(2, 2, 21, 2))
    le, lx = _run(litnn, a, k=2, X=X0); te, _ = _run(torch, a, k=2, X=X0)
    assert le.shape == (2, 2, 2) and lx.shape == (2, 2, 21, 2)
    np.testing.assert_allclose(le, te, rtol=1e-8)
    np.testing.assert_allclose(le, np.linalg.eigh(a)[0][..., ::-1][..., :2], rtol=1e-6)

def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None

@pytest.mark.parametrize('case', ['small', 'square', 'Bshape', 'Xshape'])
def test_errors_match_torch(case):
    a = _spd(8, seed=0)
    args = dict(small=((a,), dict(k=3)), square=((a[:, :6],), {}), Bshape=((a,), dict(B=a[:6, :6])),
                Xshape=((a,), dict(X=np.ones((7, 2)))))[case]
    def call(lib):
        (x,), kw = args
        return lambda: lib.lobpcg(lib.tensor(x), **{k: (lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()})
    lr, tr = _err(call(litnn)), _err(call(torch))
    assert lr is not None and lr[0] is tr[0]
    assert lr[1].replace('litnn.', 'torch.') == tr[1]

def test_linalg_utils_match_torch():
    s = _spd(4, seed=2)
    for largest in (False, True, None):
        le, lz = _linalg_utils.symeig(litnn.tensor(s), largest); te, tz = torch._linalg_utils.symeig(torch.tensor(s), largest)
        np.testing.assert_allclose(le.numpy(), te.numpy()); np.testing.assert_allclose(np.abs(lz.numpy()), np.abs(tz.numpy()), atol=1e-12)
    np.testing.assert_allclose(_linalg_utils.qform(litnn.tensor(s), litnn.tensor(s[:, :2])).numpy(),
                               torch._linalg_utils.qform(torch.tensor(s), torch.tensor(s[:, :2])).numpy())
    assert _linalg_utils.matmul(None, litnn.tensor(s)).shape == (4, 4)
    sp = litnn.tensor(s).to_sparse()
    assert _linalg_utils.is_sparse(sp) and not _linalg_utils.is_sparse(litnn.tensor(s))
    np.testing.assert_allclose(_linalg_utils.matmul(sp, litnn.tensor(s)).numpy(), s @ s)
    for lt in (litnn.int64, litnn.float16, litnn.float64):
        tt = getattr(torch, str(lt).split('.')[1])
        assert str(_linalg_utils.get_floating_dtype(litnn.ones(1, dtype=lt))).split('.')[1] == str(torch._linalg_utils.get_floating_dtype(torch.ones(1, dtype=tt))).split('.')[1]
    for name in ['solve', 'lstsq', 'eig', 'matrix_rank', '_symeig']:
        assert _err(lambda: getattr(_linalg_utils, name)(1, 2)) == _err(lambda: getattr(torch._linalg_utils, name)(1, 2))
    assert _err(lambda: _linalg_utils.is_sparse([1])) == _err(lambda: torch._linalg_utils.is_sparse([1]))

def test_sparse_input_forward():
    a = _spd(30, seed=11); X0 = np.random.default_rng(2).normal(size=(30, 2))
    E, _ = litnn.lobpcg(litnn.tensor(a).to_sparse(), k=2, X=litnn.tensor(X0))
    np.testing.assert_allclose(E.numpy(), np.linalg.eigh(a)[0][::-1][:2], rtol=1e-6)

@pytest.mark.parametrize('k', [1, 3])
@pytest.mark.parametrize('largest', [True, False])
def test_backward_matches_torch(k, largest):
    m = 30                                               # k < m: the partial eigenspace formula
    a = _spd(m, seed=k + 1)
    X0 = np.random.default_rng(3).normal(size=(m, k))
    w = np.random.default_rng(4).normal(size=(k,)); wv = np.random.default_rng(5).normal(size=(m, k))
    grads = []
    for lib in (litnn, torch):
        A = lib.tensor(a).requires_grad_()
        E, X = lib.lobpcg(A, k=k, X=lib.tensor(X0), largest=largest, tol=1e-12, niter=5000)
        sgn = lib.sign(X[:1, :]).detach()                  # fix each vector's sign
        ((E * lib.tensor(w)).sum() + ((X * sgn) * lib.tensor(wv)).sum()).backward()
        grads.append(A.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-6 * np.abs(grads[1]).max())

def test_backward_errors():
    a = _spd(30, seed=1)
    for lib in (litnn, torch):
        A = lib.tensor(a).requires_grad_(); B = lib.tensor(a)
        E, _ = lib.lobpcg(A, k=1, B=B, X=lib.ones(30, 1, dtype=lib.float64))
        with pytest.raises(ValueError, match='lobpcg.backward does not support backward with B != I yet.'):
            E.sum().backward()

def test_symeig_backward_helpers_match_torch():
    a = _spd(9, seed=2); d, u = np.linalg.eigh(a)
    rng = np.random.default_rng(0); dg = rng.normal(size=9); ug = rng.normal(size=(9, 9))
    l = _lobpcg._symeig_backward_complete_eigenspace(*[litnn.tensor(v) for v in (dg, ug, a, d, u)])
    t = torch._lobpcg._symeig_backward_complete_eigenspace(*[torch.tensor(v) for v in (dg, ug, a, d, u)])
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)
    roots = rng.normal(size=(2, 4))
    np.testing.assert_allclose(_lobpcg._polynomial_coefficients_given_roots(litnn.tensor(roots)).numpy(),
                               torch._lobpcg._polynomial_coefficients_given_roots(torch.tensor(roots)).numpy())

"""litnn.masked side by side with torch.masked (PyTorch 2.13): values, dtypes, shapes, gradients and errors, over random
masks that include all-False rows."""
import numpy as np, pytest
torch = pytest.importorskip('torch')
import litnn

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5)).astype(np.float32)
M = RNG.random((4, 5)) < 0.5
M[1] = False                     # an all-False row
M[:, 2] = False                  # an all-False column
M[3] = True
MASKS = {'full': M, 'row': M[2], 'none': None}

def pair(x, m):
    tx, lx = torch.tensor(x), litnn.tensor(x)
    tm = None if m is None else torch.tensor(m)
    lm = None if m is None else litnn.tensor(m)
    return tx, lx, tm, lm

def same(t, l, atol=1e-5):
    assert str(l.dtype).split('.')[1] == str(t.dtype).split('.')[1]
    assert tuple(l.shape) == tuple(t.shape)
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=atol, equal_nan=True)

REDUCTIONS = ['sum', 'prod', 'amax', 'amin', 'mean', 'var', 'std', 'logsumexp']
DIMS = [None, 0, 1, -1, (0, 1)]

@pytest.mark.parametrize('mk', MASKS)
@pytest.mark.parametrize('dim', DIMS)
@pytest.mark.parametrize('keepdim', [False, True])
@pytest.mark.parametrize('op', REDUCTIONS + ['norm'])
def test_reductions(op, dim, keepdim, mk):
    tx, lx, tm, lm = pair(X, MASKS[mk])
    args = (2.0, dim) if op == 'norm' else (dim,)
    same(getattr(torch.masked, op)(tx, *args, keepdim=keepdim, mask=tm),
         getattr(litnn.masked, op)(lx, *args, keepdim=keepdim, mask=lm))

@pytest.mark.parametrize('mk', MASKS)
@pytest.mark.parametrize('dim', [None, 0, 1])
@pytest.mark.parametrize('op', ['argmax', 'argmin'])
def test_arg(op, dim, mk):
    tx, lx, tm, lm = pair(X, MASKS[mk])
    same(getattr(torch.masked, op)(tx, dim, mask=tm), getattr(litnn.masked, op)(lx, dim, mask=lm))

@pytest.mark.parametrize('mk', MASKS)
@pytest.mark.parametrize('dim', [0, 1, -1])
@pytest.mark.parametrize('op', ['softmax', 'log_softmax', 'softmin', 'cumsum', 'cumprod', 'normalize'])
def test_normalizations(op, dim, mk):
    tx, lx, tm, lm = pair(X, MASKS[mk])
    args = (2.0, dim) if op == 'normalize' else (dim,)
    same(getattr(torch.masked, op)(tx, *args, mask=tm), getattr(litnn.masked, op)(lx, *args, mask=lm))

@pytest.mark.parametrize('ord', [1.0, 2.0, 3.0, float('inf'), float('-inf'), 0.0])
def test_norm_ords(ord):
    tx, lx, tm, lm = pair(X, M)
    same(torch.masked.norm(tx, ord, 1, mask=tm), litnn.masked.norm(lx, ord, 1, mask=lm))
    same(torch.masked.normalize(tx, ord, 1, mask=tm), litnn.masked.normalize(lx, ord, 1, mask=lm))

@pytest.mark.parametrize('kw', [dict(unbiased=False), dict(unbiased=True), dict(correction=0), dict(correction=2)])
@pytest.mark.parametrize('op', ['var', 'std'])
def test_var_corrections(op, kw):
    tx, lx, tm, lm = pair(X, M)
    same(getattr(torch.masked, op)(tx, 1, mask=tm, **kw), getattr(litnn.masked, op)(lx, 1, mask=lm, **kw))

@pytest.mark.parametrize('dtype', ['int32', 'int64', 'uint8', 'bool'])
@pytest.mark.parametrize('op', ['sum', 'prod', 'amax', 'amin', 'argmax', 'cumsum', 'var'])
def test_integer_inputs(op, dtype):
    if dtype == 'bool' and op in ('amax', 'amin', 'argmax', 'cumsum'): return
    x = RNG.integers(0, 5, (3, 4)).astype(dtype)
    tx, lx, tm, lm = pair(x, M[:3, :4])
    if dtype == 'bool' and op == 'var':         # torch refuses `-` on bools, and so does litnn
        with pytest.raises(RuntimeError) as te: torch.masked.var(tx, 1, mask=tm)
        with pytest.raises(RuntimeError) as le: litnn.masked.var(lx, 1, mask=lm)
        assert str(le.value) == str(te.value); return
    same(getattr(torch.masked, op)(tx, 1, mask=tm), getattr(litnn.masked, op)(lx, 1, mask=lm))

def test_dtype_argument():
    tx, lx, tm, lm = pair(X, M)
    for op in ['sum', 'mean', 'amax', 'logsumexp']:
        same(getattr(torch.masked, op)(tx, 1, dtype=torch.float64, mask=tm),
             getattr(litnn.masked, op)(lx, 1, dtype=litnn.float64, mask=lm))
    same(torch.masked.softmax(tx, 1, dtype=torch.float64, mask=tm), litnn.masked.softmax(lx, 1, dtype=litnn.float64, mask=lm))
    x = np.arange(6).reshape(2, 3)
    same(torch.masked.mean(torch.tensor(x), 1, dtype=torch.float32, mask=torch.tensor(M[:2, :3])),
         litnn.masked.mean(litnn.tensor(x), 1, dtype=litnn.float32, mask=litnn.tensor(M[:2, :3])))

@pytest.mark.parametrize('op', ['sum', 'prod', 'amax', 'amin', 'mean', 'var', 'std', 'norm', 'logsumexp',
                                'softmax', 'log_softmax', 'softmin', 'normalize', 'cumsum', 'cumprod'])
def test_gradients(op):
    tx, lx, tm, lm = pair(X, M)
    tx.requires_grad_(); lx.requires_grad_()
    args = {'norm': (2.0, 1), 'normalize': (2.0, 1)}.get(op, (1,))
    to, lo = getattr(torch.masked, op)(tx, *args, mask=tm), getattr(litnn.masked, op)(lx, *args, mask=lm)
    w = RNG.standard_normal(tuple(to.shape)).astype(np.float32)
    keep = torch.isfinite(to)
    (torch.where(keep, to, 0.) * torch.tensor(w)).sum().backward()
    (litnn.where(litnn.tensor(keep.numpy()), lo, 0.) * litnn.tensor(w)).sum().backward()
    same(tx.grad, lx.grad, atol=1e-4)

def test_errors():
    tx, lx, _, _ = pair(X, None)
    cases = [
        (lambda m: m.sum(tx if m is torch.masked else lx, (0, 0)), RuntimeError),
        (lambda m: m.sum(tx if m is torch.masked else lx, 2), IndexError),
        (lambda m: m.mean((torch if m is torch.masked else litnn).tensor([1, 2])), ValueError),
        (lambda m: m.var(tx if m is torch.masked else lx, unbiased=True, correction=1), AssertionError),
        (lambda m: m.sum(tx if m is torch.masked else lx, mask=(torch if m is torch.masked else litnn).ones(1, 4, 5, dtype=(torch if m is torch.masked else litnn).bool)), IndexError),
    ]
    for f, exc in cases:
        with pytest.raises(exc) as te: f(torch.masked)
        with pytest.raises(exc) as le: f(litnn.masked)
        assert str(le.value).replace('litnn', 'torch') == str(te.value)

def test_module_path():
    assert litnn.masked.sum.__module__ == 'litnn.masked._ops' and torch.masked.sum.__module__ == 'torch.masked._ops'


@pytest.mark.parametrize('mk', MASKS)
@pytest.mark.parametrize('dim', [0, 1, -1])
@pytest.mark.parametrize('keepdim', [False, True])
def test_median(dim, keepdim, mk):
    tx, lx, tm, lm = pair(X, MASKS[mk])
    tx.requires_grad_(); lx.requires_grad_()
    t, l = torch.masked.median(tx, dim, keepdim=keepdim, mask=tm), litnn.masked.median(lx, dim, keepdim=keepdim, mask=lm)
    same(t, l)
    t.nansum().backward(); l.nansum().backward()
    same(tx.grad, lx.grad)

def test_median_of_integers():
    for lib in (torch, litnn):
        x = lib.tensor([[1, 2, 3], [3, 4, 5]])
        assert lib.masked.median(x, 1, mask=lib.tensor([[True, False, True], [True, True, True]])).tolist() == [1, 4]
        with pytest.raises(ValueError, match='masked median expects no fully masked out rows if dtype is not floating point'):
            lib.masked.median(x, 1, mask=lib.tensor([[False, False, False], [True, True, True]]))

@pytest.mark.parametrize('masks', [('full', 'full'), ('full', 'row'), ('none', 'full'), ('row', 'none')])
def test_logaddexp(masks):
    tx, lx, tm, lm = pair(X, MASKS[masks[0]])
    ty, ly, tn, ln = pair(X[::-1].copy() * 2, MASKS[masks[1]])
    for a in (tx, lx, ty, ly): a.requires_grad_()
    t = torch.masked.logaddexp(tx, ty, input_mask=tm, other_mask=tn)
    l = litnn.masked.logaddexp(lx, ly, input_mask=lm, other_mask=ln)
    same(t, l)
    keep = np.isfinite(t.detach().numpy())
    (t[torch.tensor(keep)]).sum().backward(); (l[litnn.tensor(keep)]).sum().backward()
    same(tx.grad, lx.grad); same(ty.grad, ly.grad)
    same(torch.masked.logaddexp(tx, ty, dtype=torch.float64), litnn.masked.logaddexp(lx, ly, dtype=litnn.float64))


@pytest.mark.parametrize('name', ['mean', 'var', 'std', 'logsumexp'])
@pytest.mark.parametrize('masked', [False, True])
def test_complex_reductions(name, masked):
    "torch.masked's mean/var/std/logsumexp take complex input: complex results (var, std too), -inf+0j for logsumexp's masked-out."
    rng = np.random.default_rng(3)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    m = rng.random((3, 4)) > 0.3
    kw = lambda lib: dict(mask=lib.tensor(m)) if masked else {}
    want = getattr(torch.masked, name)(torch.tensor(z), 1, **kw(torch))
    got = getattr(litnn.masked, name)(litnn.tensor(z), 1, **kw(litnn))
    assert str(got.dtype).split('.')[-1] == str(want.dtype).split('.')[-1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)

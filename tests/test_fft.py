"""torch.fft, torch.stft/istft and torch.signal.windows (reference/fft, reference/signal/windows/windows) against torch 2.13."""
import numpy as np, pytest
import litnn
from api_pairs import torch, same_error, DEVICES
from api_pairs import host as _host

def host(t):
    "A tensor of either library as a numpy array (a conjugate view resolved first)."
    return _host(t.detach().resolve_conj() if isinstance(t, (torch.Tensor, litnn.Tensor)) else t)


# ---- reference/signal/windows/windows
WINDOWS = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'general_cosine', 'general_hamming', 'hamming',
           'hann', 'kaiser', 'nuttall']
OPTIONS = {'exponential': [{}, dict(tau=0.5), dict(tau=3.)], 'gaussian': [{}, dict(std=0.3), dict(std=4.)],
           'general_cosine': [dict(a=[0.5, 0.5]), dict(a=(0.3, 0.4, 0.2, 0.1)), dict(a=[1.])],
           'general_hamming': [{}, dict(alpha=0.6)], 'kaiser': [{}, dict(beta=0.), dict(beta=5.)]}

def _lib(lib): return lib.signal.windows

@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('dev', DEVICES)
def test_signal_windows_against_torch(name, dev):
    for M in (0, 1, 2, 3, 6, 7, 64):
        for sym in (True, False):
            for kw in OPTIONS.get(name, [{}]):
                for dt, tol in (('float64', 1e-12), ('float32', 2e-6), (None, 2e-6)):
                    d = {} if dt is None else dict(dtype=getattr(litnn, dt))
                    l = getattr(_lib(litnn), name)(M, sym=sym, device=dev, **kw, **d)
                    t = getattr(_lib(torch), name)(M, sym=sym, **kw, **({} if dt is None else dict(dtype=getattr(torch, dt))))
                    assert l.dtype.name == str(t.dtype).removeprefix('torch.') and tuple(l.shape) == tuple(t.shape)
                    np.testing.assert_allclose(host(l), host(t), rtol=tol, atol=tol)
    if name == 'exponential':
        for M in (1, 5, 8):
            l, t = (_lib(L).exponential(M, sym=False, center=1.5, tau=2., dtype=L.float64) for L in (litnn, torch))
            np.testing.assert_allclose(host(l), host(t), rtol=1e-12, atol=1e-12)

@pytest.mark.parametrize('name', WINDOWS)
def test_signal_windows_grad_and_paths(name):
    kw = OPTIONS.get(name, [{}])[0]
    for M in (0, 1, 5):
        l = getattr(_lib(litnn), name)(M, requires_grad=True, dtype=litnn.float64, **kw)
        t = getattr(_lib(torch), name)(M, requires_grad=True, dtype=torch.float64, **kw)
        assert l.requires_grad == t.requires_grad and l.is_leaf == t.is_leaf
        assert (l.grad_fn is None) == (t.grad_fn is None)
        if t.grad_fn is not None: assert type(l.grad_fn).__name__ == type(t.grad_fn).__name__
    assert getattr(_lib(litnn), name).__module__ == 'litnn.signal.windows.windows'
    assert getattr(_lib(torch), name).__module__ == 'torch.signal.windows.windows'

@pytest.mark.parametrize('name', WINDOWS)
def test_signal_windows_errors(name):
    kw = OPTIONS.get(name, [{}])[0]
    f = lambda L, M, **k: getattr(_lib(L), name)(M, **kw, **k)
    same_error(lambda L: f(L, -1))
    same_error(lambda L: f(L, 3, dtype=L.float16))
    same_error(lambda L: f(L, 3, dtype=L.int64))
    same_error(lambda L: f(L, 3, layout=L.sparse_coo))

def test_signal_window_option_errors():
    W = _lib
    same_error(lambda L: W(L).exponential(4, tau=0.))
    same_error(lambda L: W(L).exponential(4, center=1.))
    same_error(lambda L: W(L).gaussian(4, std=-1.))
    same_error(lambda L: W(L).kaiser(4, beta=-1.))
    same_error(lambda L: W(L).general_cosine(4, a=2.))
    same_error(lambda L: W(L).general_cosine(4, a=[]))
    for L in (litnn, torch): assert W(L).general_cosine(1, a=2.).tolist() == [1.]
    assert sorted(litnn.signal.windows.__all__) == sorted(torch.signal.windows.__all__)


# ---- reference/fft
F1 = ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft']
FN = ['fft2', 'ifft2', 'fftn', 'ifftn', 'rfft2', 'irfft2', 'rfftn', 'irfftn', 'hfft2', 'ihfft2', 'hfftn', 'ihfftn']
REAL_ONLY = {'rfft', 'ihfft', 'rfft2', 'rfftn', 'ihfft2', 'ihfftn'}
DTYPES = ['float32', 'float64', 'complex64', 'complex128']
TOL = {'float32': 2e-5, 'complex64': 2e-5, 'float64': 1e-11, 'complex128': 1e-11}

def _array(dt, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dt.startswith('complex'): a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)

def _pair(a, dev='cpu', grad=False):
    return litnn.tensor(a, device=dev, requires_grad=grad), torch.tensor(a, requires_grad=grad)

def _same(l, t, tol):
    assert tuple(l.shape) == tuple(t.shape), (tuple(l.shape), tuple(t.shape))
    assert l.dtype.name == str(t.dtype).removeprefix('torch.'), (l.dtype, t.dtype)
    scale = max(1.0, float(np.abs(host(t)).max()) if t.numel() else 1.0)
    np.testing.assert_allclose(host(l), host(t), rtol=tol, atol=tol * scale)

def _grads_match(f, a, dev='cpu', seed=1):
    "f(lib, x) in both libraries from the same array: values, grad_fn names, and the input's gradient for a random upstream gradient."
    tol = TOL[str(a.dtype)]
    lx, tx = _pair(a, dev, grad=True)
    lo, to = f(litnn, lx), f(torch, tx)
    _same(lo, to, tol)
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__, (lo.grad_fn, to.grad_fn)
    g = _array(str(to.dtype).removeprefix('torch.'), tuple(to.shape), seed)
    lo.backward(litnn.tensor(g, device=dev)); to.backward(torch.tensor(g))
    _same(lx.grad, tx.grad, tol * 10)

CASES_1D = [((8,), {}), ((5,), {}), ((3, 6), dict(dim=0)), ((3, 6), dict(n=4)), ((3, 6), dict(n=9)), ((4, 5), dict(n=1)),
            ((2, 3, 4), dict(dim=1, norm='ortho')), ((7,), dict(norm='forward')), ((7,), dict(norm='backward', n=12)),
            ((2, 5), dict(n=6, dim=-1, norm='ortho')), ((6, 2), dict(n=3, dim=0, norm='forward'))]

@pytest.mark.parametrize('name', F1)
@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('dev', DEVICES)
def test_fft_1d_against_torch(name, dt, dev):
    for shape, kw in CASES_1D:
        if name in ('irfft', 'hfft') and kw.get('n') == 1 and dt.startswith('float'): continue
        a = _array(dt, shape)
        if name in REAL_ONLY and dt.startswith('complex'):
            same_error(lambda L: getattr(L.fft, name)(L.tensor(a), **kw)); continue
        _grads_match(lambda L, x: getattr(L.fft, name)(x, **kw), a, dev)

CASES_ND = [((4, 6), {}), ((3, 4, 5), {}), ((3, 4, 5), dict(dim=(0, 2))), ((3, 4, 5), dict(s=(3, 7))), ((3, 4, 5), dict(s=(2, -1), dim=(2, 0))),
            ((4, 6), dict(norm='ortho')), ((2, 4, 6), dict(s=(5, 8), norm='forward')), ((3, 4, 5), dict(dim=(1,))),
            ((3, 4, 5), dict(s=(6,), dim=0, norm='ortho')), ((2, 3, 4, 5), dict(dim=(-1, 0, 2)))]

@pytest.mark.parametrize('name', FN)
@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('dev', DEVICES)
def test_fft_nd_against_torch(name, dt, dev):
    for shape, kw in CASES_ND:
        if name.endswith('2') and 'dim' not in kw and 's' in kw and len(kw['s']) != 2: continue
        if name.endswith('2') and 'dim' in kw and len(kw['dim'] if isinstance(kw['dim'], tuple) else (kw['dim'],)) != 2:
            continue
        a = _array(dt, shape)
        if name in REAL_ONLY and dt.startswith('complex'):
            same_error(lambda L: getattr(L.fft, name)(L.tensor(a), **kw)); continue
        _grads_match(lambda L, x: getattr(L.fft, name)(x, **kw), a, dev)

@pytest.mark.parametrize('name', F1 + FN)
def test_fft_gradcheck(name):
    "Finite differences in float64 / complex128: first derivatives, and second ones (the backward is made of the same nodes)."
    for dt in ('float64', 'complex128'):
        if name in REAL_ONLY and dt == 'complex128': continue
        for kw in ({}, dict(norm='ortho'), dict(n=5) if name in F1 else dict(s=(3, 5))):
            a = _array(dt, (3, 4), seed=3)
            x = litnn.tensor(a, requires_grad=True)
            f = lambda t: getattr(litnn.fft, name)(t, **kw)
            assert litnn.autograd.gradcheck(f, (x,))
            assert litnn.autograd.gradgradcheck(f, (x,))

def test_fft_integer_and_half_inputs():
    for name in F1 + FN:
        l, t = getattr(litnn.fft, name)(litnn.arange(12).reshape(3, 4)), getattr(torch.fft, name)(torch.arange(12).reshape(3, 4))
        _same(l, t, 2e-5)
        same_error(lambda L: getattr(L.fft, name)(L.ones(3, 4, dtype=L.float16)))
        same_error(lambda L: getattr(L.fft, name)(L.ones(3, 4, dtype=L.bfloat16)))

def test_fft_errors():
    x, z = _array('float32', (4, 6)), _array('complex64', (4, 6))
    cases = [lambda L: L.fft.fft(L.tensor(x), norm='bad'), lambda L: L.fft.fft(L.tensor(x), n=0),
             lambda L: L.fft.fft(L.tensor(x), dim=2), lambda L: L.fft.irfft(L.tensor(x), n=0),
             lambda L: L.fft.irfft(L.ones(1)), lambda L: L.fft.rfft(L.tensor(z)), lambda L: L.fft.ihfft(L.tensor(z)),
             lambda L: L.fft.rfftn(L.tensor(z)), lambda L: L.fft.rfft2(L.tensor(z)), lambda L: L.fft.fftn(L.tensor(x), s=(2, 3, 4)),
             lambda L: L.fft.fftn(L.tensor(x), s=(2, 3), dim=(0,)), lambda L: L.fft.fftn(L.tensor(x), dim=(0, 0)),
             lambda L: L.fft.fftn(L.tensor(x), s=(0, 3)), lambda L: L.fft.irfftn(L.tensor(z), dim=()),
             lambda L: L.fft.hfftn(L.tensor(z), dim=()), lambda L: L.fft.ihfftn(L.tensor(x), dim=()),
             lambda L: L.fft.rfftn(L.tensor(x), dim=()), lambda L: L.fft.fft(L.tensor(3.)),
             lambda L: L.fft.fftshift(L.tensor(3.)), lambda L: L.fft.fft(L.tensor(x), n=3.5),
             lambda L: L.fft.fftfreq(5, dtype=L.int64), lambda L: L.fft.fftfreq(-1), lambda L: L.fft.fft2(L.ones(5)),
             lambda L: L.fft.fftn(L.tensor(3.), dim=0), lambda L: L.fft.fft([1., 2.]), lambda L: L.fft.ihfftn(L.tensor(z)),
             lambda L: L.fft.ihfft2(L.tensor(z)), lambda L: L.fft.hfft(L.tensor(x), norm='bogus', n=0),
             lambda L: L.fft.fft(L.tensor(x), n=-1, norm='bogus'), lambda L: L.fft.fft(L.tensor(x), n=0, dim=7),
             lambda L: L.fft.fftshift(L.tensor(x), dim=5), lambda L: L.fft.fftshift(L.tensor(x), dim=())]
    for c in cases: same_error(c)

def test_fft_empty_dims_and_bool():
    x = _array('float32', (4, 6))
    for L_name in ('fftn', 'ifftn'):
        _same(getattr(litnn.fft, L_name)(litnn.tensor(x), dim=()), getattr(torch.fft, L_name)(torch.tensor(x), dim=()), 1e-6)
    _same(litnn.fft.fft(litnn.tensor(x > 0)), torch.fft.fft(torch.tensor(x > 0)), 1e-5)
    _same(litnn.fft.fftn(litnn.tensor(x), s=5), torch.fft.fftn(torch.tensor(x), s=5), 1e-5)
    _same(litnn.fft.fftn(litnn.tensor(x), dim=0), torch.fft.fftn(torch.tensor(x), dim=0), 1e-5)

def test_fft_out():
    x = _array('float32', (4, 6))
    for L in (litnn, torch):
        o = L.empty(4, 6, dtype=L.complex64)
        r = L.fft.fft(L.tensor(x), out=o)
        assert r is o
    lo, to = litnn.empty(4, 6, dtype=litnn.complex64), torch.empty(4, 6, dtype=torch.complex64)
    litnn.fft.fft(litnn.tensor(x), out=lo); torch.fft.fft(torch.tensor(x), out=to)
    _same(lo, to, 1e-5)

@pytest.mark.parametrize('dev', DEVICES)
def test_fftfreq_and_shifts(dev):
    for n in (0, 1, 2, 5, 8):
        for d in (1.0, 0.5, 0.3):
            for dt in (None, 'float32', 'float64'):
                kw = {} if dt is None else dict(dtype=getattr(litnn, dt))
                tk = {} if dt is None else dict(dtype=getattr(torch, dt))
                for name in ('fftfreq', 'rfftfreq'):
                    _same(getattr(litnn.fft, name)(n, d, device=dev, **kw), getattr(torch.fft, name)(n, d, **tk), 1e-7)
    for L in (litnn, torch):
        f = L.fft.fftfreq(4, dtype=L.float64, requires_grad=True)
        assert f.requires_grad and f.is_leaf
    _same(litnn.fft.fftfreq(4, 0.), torch.fft.fftfreq(4, 0.), 0)
    for shape, dim in (((5,), None), ((4, 5), None), ((4, 5), 1), ((4, 5), (0,)), ((3, 4, 5), (-1, 0)), ((3, 4, 5), [2])):
        for dt in ('float64', 'complex128'):
            a = _array(dt, shape)
            for name in ('fftshift', 'ifftshift'):
                _grads_match(lambda L, x: getattr(L.fft, name)(x, dim=dim), a, dev)

def test_fftfreq_into_out_as_torch():
    "fftfreq/rfftfreq with out=: torch fills out with arange first, so a resize warns as arange does; a dtype must be out's."
    import warnings
    for name in ('fftfreq', 'rfftfreq'):
        for shape, dt, kw in (((), 'float32', {}), ((0,), 'float32', {}), ((5,), 'float64', {}), ((2, 2), 'float32', {}),
                              ((5,), 'float64', dict(dtype='float32')), ((3,), 'int64', {})):
            res = []
            for L in (litnn, torch):
                out = L.empty(shape, dtype=getattr(L, dt))
                k = {key: getattr(L, v) for key, v in kw.items()}
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter('always')
                    try:
                        r = getattr(L.fft, name)(5, 0.5, out=out, **k)
                    except RuntimeError as e:
                        res.append(('error', str(e))); continue
                assert r is out
                res.append((host(r).tolist(), str(r.dtype).split('.')[-1], [str(x.message).split(' (Triggered internally')[0] for x in w]))
            assert res[0] == res[1] if res[0][0] == 'error' else (res[0][1:] == res[1][1:] and np.allclose(res[0][0], res[1][0]))

@pytest.mark.parametrize('name', ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft', 'fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2',
                                  'ihfft2', 'fftn', 'ifftn', 'rfftn', 'irfftn', 'hfftn', 'ihfftn'])
def test_out_of_the_wrong_kind_as_torch(name):
    "An `out` that is not complex (or, for the real-output transforms, not floating) is refused as torch's kernels refuse it."
    import warnings
    res = []
    for L in (litnn, torch):
        x = L.arange(8.).reshape(2, 4)
        inp = x if name in ('rfft', 'ihfft', 'rfft2', 'ihfft2', 'rfftn', 'ihfftn') else x.to(L.cfloat)
        row = []
        for dt in ('float32', 'complex64', 'int64', 'float64'):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                try: r = getattr(L.fft, name)(inp, out=L.empty(0, dtype=getattr(L, dt))); row.append((str(r.dtype).split('.')[-1], tuple(r.shape)))
                except RuntimeError as e: row.append(str(e))
        res.append(row)
    assert res[0] == res[1]

def test_stft_refuses_half_precision_as_torch():
    "torch's CPU FFT takes no half-precision type: stft of float16/bfloat16 signals (or windows) raises, as fft does."
    import warnings
    res = []
    for L in (litnn, torch):
        row = []
        for dt in ('float16', 'bfloat16', 'float32'):
            for wd in (None, dt, 'float32'):
                x = L.arange(16.).to(getattr(L, dt))
                w = None if wd is None else L.hann_window(4, dtype=getattr(L, wd))
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    try: row.append(str(L.stft(x, 4, window=w, return_complex=True).dtype).split('.')[-1])
                    except RuntimeError as e: row.append(str(e))
        res.append(row)
    assert res[0] == res[1]

def test_fft_namespace():
    assert set(torch.fft.__all__) <= set(litnn.fft.__all__)
    assert litnn.fft.Tensor is litnn.Tensor


# ---- reference/functional_stft
import warnings

@pytest.fixture
def warn_always():
    for L in (litnn, torch): L.set_warn_always(True)
    yield
    for L in (litnn, torch): L.set_warn_always(False)

def _win(L, kind, n, dt):
    if kind is None: return None
    w = getattr(L, kind + '_window')(n, dtype=getattr(L, dt.replace('complex64', 'float32').replace('complex128', 'float64')))
    return w

STFT_CASES = [dict(n_fft=16), dict(n_fft=16, hop_length=5), dict(n_fft=16, win_length=10), dict(n_fft=15, hop_length=4, win_length=9),
              dict(n_fft=16, center=False), dict(n_fft=16, pad_mode='constant'), dict(n_fft=16, pad_mode='replicate'),
              dict(n_fft=16, pad_mode='circular'), dict(n_fft=16, normalized=True), dict(n_fft=16, onesided=False),
              dict(n_fft=16, win_length=8, hop_length=3, center=False, align_to_window=True),
              dict(n_fft=16, win_length=8, hop_length=3, center=False, align_to_window=False), dict(n_fft=1, hop_length=1)]

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('window', ['hann', None])
@pytest.mark.parametrize('shape', [(64,), (3, 50)])
def test_stft_against_torch(dt, window, shape):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for kw in STFT_CASES:
            if dt.startswith('complex') and kw.get('onesided') is None: kw = dict(kw, onesided=False)
            a = _array(dt, shape, seed=4)
            win = kw.get('win_length', kw['n_fft'])
            for rc in (True, False):
                f = lambda L, x: L.stft(x, window=_win(L, window, win, dt), return_complex=rc, **kw)
                _grads_match(f, a)
            assert litnn.Tensor.stft(litnn.tensor(a), window=_win(litnn, window, win, dt), return_complex=True, **kw).shape == \
                   torch.Tensor.stft(torch.tensor(a), window=_win(torch, window, win, dt), return_complex=True, **kw).shape

@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_stft_window_gradient_and_promotion(dt):
    a = _array(dt, (2, 40), seed=5)
    w = _array('float64', (12,), seed=6)
    lx, tx = _pair(a, grad=True); lw, tw = _pair(w, grad=True)
    lo = litnn.stft(lx, 12, hop_length=4, window=lw, return_complex=True)
    to = torch.stft(tx, 12, hop_length=4, window=tw, return_complex=True)
    _same(lo, to, 1e-10)
    g = _array('complex128', tuple(to.shape), seed=7)
    lo.backward(litnn.tensor(g)); to.backward(torch.tensor(g))
    _same(lx.grad, tx.grad, 1e-6); _same(lw.grad, tw.grad, 1e-6)
    cw = _array('complex64', (12,), seed=8)          # a complex window: a full, complex spectrum
    _same(litnn.stft(litnn.tensor(a), 12, window=litnn.tensor(cw), return_complex=True),
          torch.stft(torch.tensor(a), 12, window=torch.tensor(cw), return_complex=True), 2e-5)

def test_stft_errors_and_warnings(warn_always):
    x = _array('float32', (2, 40))
    win = lambda L, n=8: L.hann_window(n)
    cases = [lambda L: L.stft(L.tensor(x), 8, window=win(L)),
             lambda L: L.stft(L.tensor(x), 8, window=win(L, 6), return_complex=True),
             lambda L: L.stft(L.tensor(x), 8, win_length=9, return_complex=True),
             lambda L: L.stft(L.tensor(x), 8, hop_length=0, return_complex=True),
             lambda L: L.stft(L.tensor(x), 80, return_complex=True, center=False),
             lambda L: L.stft(L.tensor(x), 0, return_complex=True, center=False),
             lambda L: L.stft(L.ones(2, 3, 40), 8, return_complex=True),
             lambda L: L.stft(L.ones(2, 3, 40), 8, return_complex=True, center=False),
             lambda L: L.stft(L.tensor(x).long(), 8, return_complex=True, center=False),
             lambda L: L.stft(L.tensor(x), 8, return_complex=True, align_to_window=True),
             lambda L: L.stft(L.tensor(x).to(L.complex64), 8, onesided=True, return_complex=True),
             lambda L: L.stft(L.tensor(x), 8, pad_mode='bogus', return_complex=True),
             lambda L: L.stft(L.tensor(x[:, :3]), 8, return_complex=True),
             lambda L: L.stft(L.tensor(x[:, :3]), 8, return_complex=True, pad_mode='circular'),
             lambda L: L.stft(L.tensor(x[0, :6]), 8, hop_length=3, win_length=4, window=win(L, 4), return_complex=True, center=False, align_to_window=True)]
    for c in cases:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            same_error(c)
    for f in (lambda L: L.stft(L.tensor(x), 8, return_complex=True), lambda L: L.stft(L.tensor(x), 8, window=win(L), return_complex=False)):
        msgs = []
        for L in (torch, litnn):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always'); f(L)
            msgs.append([str(m.message).split(' (Triggered internally')[0].replace('litnn', 'torch') for m in w])
        assert msgs[0] == msgs[1], msgs

ISTFT_CASES = [dict(n_fft=16), dict(n_fft=16, hop_length=5), dict(n_fft=16, win_length=12), dict(n_fft=15, hop_length=3, win_length=9),
               dict(n_fft=16, normalized=True), dict(n_fft=16, length=50), dict(n_fft=16, length=70), dict(n_fft=16, length=33),
               dict(n_fft=16, onesided=False), dict(n_fft=16, center=False, window_kind='ones')]

@pytest.mark.parametrize('dt', ['complex64', 'complex128'])
@pytest.mark.parametrize('shape', [(64,), (2, 64)])
def test_istft_against_torch(dt, shape):
    real = 'float32' if dt == 'complex64' else 'float64'
    sig = _array(real, shape, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for kw in ISTFT_CASES:
            kw = dict(kw); kind = kw.pop('window_kind', 'hann'); one = kw.get('onesided', True)
            win = kw.get('win_length', kw['n_fft'])
            skw = {k: v for k, v in kw.items() if k in ('n_fft', 'hop_length', 'win_length', 'center', 'normalized', 'onesided')}
            S = torch.stft(torch.tensor(sig), window=getattr(torch, kind + '_window' if kind == 'hann' else kind)(win, dtype=getattr(torch, real)),
                           return_complex=True, **skw).detach().numpy().astype(dt)
            for rc in ((False, True) if not one else (False,)):
                f = lambda L, s: L.istft(s, window=(L.hann_window(win, dtype=getattr(L, real)) if kind == 'hann' else L.ones(win, dtype=getattr(L, real))),
                                         return_complex=rc, **kw)
                _grads_match(f, S)
            r = litnn.Tensor.istft(litnn.tensor(S), window=litnn.hann_window(win, dtype=getattr(litnn, real)) if kind == 'hann' else None, **kw)
            assert r.shape == f(torch, torch.tensor(S)).shape
    # the round trip
    w = litnn.hann_window(16, dtype=getattr(litnn, real))
    back = litnn.istft(litnn.stft(litnn.tensor(sig), 16, window=w, return_complex=True), 16, window=w, length=64)
    np.testing.assert_allclose(host(back), sig, atol=1e-5)

def test_istft_errors_and_warnings(warn_always):
    x = torch.randn(2, 40, generator=torch.Generator().manual_seed(0))
    S = torch.stft(x, 8, window=torch.hann_window(8), return_complex=True).numpy()
    s = lambda L: L.tensor(S)
    cases = [lambda L: L.istft(s(L), 8, window=L.hann_window(8), center=False),
             lambda L: L.istft(s(L), 8, window=L.hann_window(8), return_complex=True),
             lambda L: L.istft(s(L), 8, window=L.hann_window(8), onesided=False),
             lambda L: L.istft(s(L), 10, window=L.hann_window(10)),
             lambda L: L.istft(L.view_as_real(s(L)), 8, window=L.hann_window(8)),
             lambda L: L.istft(s(L).real, 8, window=L.hann_window(8)),
             lambda L: L.istft(s(L)[0, :, 0], 8, window=L.hann_window(8)),
             lambda L: L.istft(s(L)[None], 8, window=L.hann_window(8)),
             lambda L: L.istft(s(L), 8, window=L.hann_window(6)),
             lambda L: L.istft(s(L), 8, hop_length=0, window=L.hann_window(8)),
             lambda L: L.istft(s(L), 8, hop_length=9, window=L.hann_window(8)),
             lambda L: L.istft(s(L), 8, win_length=9, window=L.hann_window(8)),
             lambda L: L.istft(s(L), 8, window=L.zeros(8)),
             lambda L: L.istft(s(L), 8, window=L.hann_window(8), center=False, length=100),
             lambda L: L.istft(s(L)[:, :, :0], 8, window=L.hann_window(8)),
             lambda L: L.istft(s(L), 8, window=L.hann_window(8).to(L.complex64))]
    for c in cases:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            same_error(c)
    for f in (lambda L: L.istft(s(L), 8), lambda L: L.istft(s(L), 8, window=L.hann_window(8), length=45)):
        msgs = []
        for L in (torch, litnn):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always'); f(L)
            msgs.append([str(m.message).split(' (Triggered internally')[0].replace('litnn', 'torch') for m in w])
        assert msgs[0] == msgs[1], msgs

def test_stft_istft_gradcheck():
    x = litnn.tensor(_array('float64', (2, 30), seed=11), requires_grad=True)
    w = litnn.hann_window(8, dtype=litnn.float64, requires_grad=True)
    assert litnn.autograd.gradcheck(lambda s, v: litnn.stft(s, 8, hop_length=3, window=v, return_complex=True), (x, w))
    z = litnn.stft(x.detach(), 8, hop_length=2, window=w.detach(), return_complex=True).requires_grad_()
    assert litnn.autograd.gradcheck(lambda s, v: litnn.istft(s, 8, hop_length=2, window=v), (z, w))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')          # length 35 > 34: padded, with torch's warning
        assert litnn.autograd.gradcheck(lambda s: litnn.istft(s, 8, hop_length=2, window=w.detach(), length=35), (z,))


# ---- the proof: a Fourier neural operator (spectral convolution) trains as torch's from the same weights
def _fno(lib, width=8, modes=6):
    "FNO-1d as neuraloperator writes it: complex weights on the lowest `modes` bins of an rfft, slice-assigned, irfft back."
    nn, F = lib.nn, lib.nn.functional
    class SpectralConv1d(nn.Module):
        def __init__(self, in_channels, out_channels, modes1):
            super().__init__()
            self.in_channels, self.out_channels, self.modes1 = in_channels, out_channels, modes1
            self.scale = 1 / (in_channels * out_channels)
            self.weights1 = nn.Parameter(self.scale * lib.rand(in_channels, out_channels, self.modes1, dtype=lib.cfloat))
        def compl_mul1d(self, input, weights): return lib.einsum("bix,iox->box", input, weights)
        def forward(self, x):
            x_ft = lib.fft.rfft(x)
            out_ft = lib.zeros(x.shape[0], self.out_channels, x.size(-1) // 2 + 1, device=x.device, dtype=lib.cfloat)
            out_ft[:, :, :self.modes1] = self.compl_mul1d(x_ft[:, :, :self.modes1], self.weights1)
            return lib.fft.irfft(out_ft, n=x.size(-1))
    class FNO1d(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc0 = nn.Linear(2, width)
            self.conv0, self.conv1 = SpectralConv1d(width, width, modes), SpectralConv1d(width, width, modes)
            self.w0, self.w1 = nn.Conv1d(width, width, 1), nn.Conv1d(width, width, 1)
            self.fc1, self.fc2 = nn.Linear(width, 32), nn.Linear(32, 1)
        def forward(self, x):
            grid = lib.linspace(0, 1, x.shape[1]).reshape(1, -1, 1).repeat(x.shape[0], 1, 1)
            x = self.fc0(lib.cat((x, grid), dim=-1)).permute(0, 2, 1)
            x = F.gelu(self.conv0(x) + self.w0(x))
            x = self.conv1(x) + self.w1(x)
            return self.fc2(F.gelu(self.fc1(x.permute(0, 2, 1))))
    return FNO1d()

def test_fourier_neural_operator_trains_like_torch():
    torch.manual_seed(0)
    state = {k: v.detach().numpy().copy() for k, v in _fno(torch).state_dict().items()}
    rng = np.random.default_rng(0)
    u = rng.standard_normal((16, 32, 1)).astype(np.float32)
    target = (np.cumsum(u, axis=1) / 8).astype(np.float32)          # learn an integral operator
    def run(lib):
        model = _fno(lib)
        assert model.conv0.weights1.dtype == lib.complex64
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        opt = lib.optim.Adam(model.parameters(), lr=1e-2)
        x, y = lib.tensor(u), lib.tensor(target)
        losses = []
        for _ in range(8):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x), y)
            loss.backward(); opt.step()
            losses.append(loss.item())
        return losses, model
    (ll, lm), (tl, tm) = run(litnn), run(torch)
    np.testing.assert_allclose(ll, tl, rtol=1e-5)
    assert tl[-1] < tl[0]
    for (k, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(host(lp), host(tp), rtol=1e-4, atol=1e-6, err_msg=k)

def test_spectrogram_features_train_like_torch():
    "Audio features with stft: log power spectrogram frames -> linear classifier, SGD, from the same weights."
    rng = np.random.default_rng(1)
    t = np.arange(400) / 400
    freqs = rng.integers(0, 2, 24)
    sig = np.stack([np.sin(2 * np.pi * (20 + 40 * f) * t + rng.uniform(0, 6)) + 0.3 * rng.standard_normal(400) for f in freqs]).astype(np.float32)
    torch.manual_seed(1)
    lin = torch.nn.Linear(33, 2)
    state = {k: v.detach().numpy().copy() for k, v in lin.state_dict().items()}
    def run(lib):
        model = lib.nn.Linear(33, 2)
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        x, y, w = lib.tensor(sig), lib.tensor(freqs), lib.hann_window(64)
        losses = []
        for _ in range(6):
            spec = lib.stft(x, 64, hop_length=16, window=w, return_complex=True).abs().pow(2)
            feats = (spec + 1e-6).log().mean(-1)                       # (batch, 33): the average log power per bin
            loss = lib.nn.functional.cross_entropy(model(feats), y)
            opt.zero_grad(); loss.backward(); opt.step()
            losses.append(loss.item())
        return losses
    np.testing.assert_allclose(run(litnn), run(torch), rtol=1e-4)

def test_what_the_fno_needed():
    "Pieces of complex support the FNO program needed: complex `rand`, slice assignment of a complex value with autograd, Adam on complex parameters."
    for L in (litnn, torch):
        r = L.rand(3, 4, dtype=L.cfloat)
        assert r.dtype == L.complex64 and (r.real >= 0).all() and (r.real < 1).all() and (r.imag >= 0).all() and (r.imag < 1).all()
        assert L.rand(2, dtype=L.cdouble).dtype == L.complex128
    res = []
    for L in (litnn, torch):
        w = L.tensor([1 + 2j, 3 - 1j, -1j], requires_grad=True)
        o = L.zeros(5, dtype=L.cfloat)
        o[:3] = w * 2
        assert type(o.grad_fn).__name__ == 'CopySlices'
        o.abs().sum().backward()
        p, q = L.nn.Parameter(L.tensor([1 + 2j, 3 - 1j])), L.nn.Parameter(L.tensor(2 + 1j))
        opt = L.optim.Adam([p, q], lr=0.1, amsgrad=True)
        for _ in range(3):
            opt.zero_grad(); ((p * p.conj()).real.sum() + (q * q).abs()).backward(); opt.step()
        res.append([host(w.grad), host(p), host(q), host(opt.state[p]['exp_avg_sq'])])
    for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

"""torch.fft, torch.stft/istft and torch.signal.windows (reference/fft, reference/signal/windows/windows) against torch 2.13."""
import numpy as np, pytest
import litnn
from api_pairs import torch, same_error, host, DEVICES


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

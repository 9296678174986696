"""The window functions of reference/torch/windows against torch 2.13."""
import numpy as np, pytest
import litnn
from api_pairs import torch, same_error, host, DEVICES



# ---- reference/torch/windows
WINDOWS = ['hann_window', 'hamming_window', 'blackman_window', 'bartlett_window', 'kaiser_window']
EXTRA = {'hamming_window': [(0.5,), (0.6, 0.3)], 'kaiser_window': [(0.,), (5.,), (20.,)]}

@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('dev', DEVICES)
def test_windows_against_torch(name, dev):
    for n in (0, 1, 2, 3, 5, 8, 64):
        for periodic in (True, False):
            for extra in [()] + EXTRA.get(name, []):
                for dt, tol in (('float64', 1e-12), ('float32', 2e-6), (None, 2e-6)):   # torch computes float32 windows in float32
                    kw = {} if dt is None else dict(dtype=getattr(litnn, dt))
                    l = getattr(litnn, name)(n, periodic, *extra, device=dev, **kw)
                    t = getattr(torch, name)(n, periodic, *extra, **({} if dt is None else dict(dtype=getattr(torch, dt))))
                    assert l.dtype.name == str(t.dtype).removeprefix('torch.') and tuple(l.shape) == tuple(t.shape)
                    np.testing.assert_allclose(host(l), host(t), rtol=tol, atol=tol)
    for lib in (litnn, torch):
        w = getattr(lib, name)(4, dtype=lib.float64, requires_grad=True)
        assert w.requires_grad and w.is_leaf and getattr(lib, name)(3, dtype=lib.float16).dtype == lib.float16

@pytest.mark.parametrize('name', WINDOWS)
def test_window_errors(name):
    same_error(lambda L: getattr(L, name)(-1))
    same_error(lambda L: getattr(L, name)(2.5))
    same_error(lambda L: getattr(L, name)(3, dtype=L.int64), match=False)    # torch prints its TensorOptions


@pytest.mark.parametrize('name', WINDOWS)
def test_windows_take_the_factory_keywords(name):
    "Every window takes torch's factory keywords, pin_memory included."
    kw = dict(dtype='float64', layout='strided', device='cpu', pin_memory=False, requires_grad=True)
    res = []
    for lib in (torch, litnn):
        k = {**kw, 'dtype': lib.float64, 'layout': lib.strided, 'device': lib.device('cpu')}
        w = getattr(lib, name)(5, False, **k)
        res.append((str(w.dtype).split('.')[-1], tuple(w.shape), w.requires_grad, np.round(host(w.detach()), 12).tolist()))
    assert res[0] == res[1]

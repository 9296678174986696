"torch.cpu.amp's older spellings (reference/cpu/amp) side by side with torch 2.13."
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def _caught(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        r = f()
    return r, [(x.category.__name__, str(x.message)) for x in w]

@pytest.mark.parametrize('kw', [{}, dict(dtype='float16'), dict(enabled=False)], ids=str)
def test_autocast_as_torch(kw):
    out = []
    w = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    for lib in (torch, litnn):
        k = {n: getattr(lib, v) if n == 'dtype' else v for n, v in kw.items()}
        lin = lib.nn.Linear(4, 3)
        with lib.no_grad(): lin.weight.copy_(lib.tensor(w)); lin.bias.zero_()
        def run():
            with lib.cpu.amp.autocast(**k):
                return lin(lib.ones(2, 4)), lib.is_autocast_enabled('cpu'), lib.get_autocast_dtype('cpu')
        (y, on, dt), warns = _caught(run)
        out.append((str(y.dtype).split('.')[-1], on, str(dt).split('.')[-1], [(c, m.replace('torch.', 'litnn.')) for c, m in warns],
                    y.float().detach().numpy()))
    t, l = out
    assert t[:3] == l[:3] and [m.replace('litnn', 'torch') for _, m in l[3]] == [m.replace('litnn', 'torch') for _, m in t[3]]
    np.testing.assert_allclose(l[4], t[4], rtol=1e-2)

def test_grad_scaler_as_torch():
    out = []
    for lib in (torch, litnn):
        s, warns = _caught(lambda: lib.cpu.amp.GradScaler(init_scale=1024., growth_interval=3))
        out.append((type(s).__module__.replace('torch', 'litnn'), s.is_enabled(), s.get_scale(), s.get_growth_interval(), [c for c, _ in warns],
                    [m.replace('torch', 'litnn') for _, m in warns]))
    assert out[0] == out[1]

def test_paths():
    assert litnn.cpu.amp.autocast.__module__ == torch.cpu.amp.autocast.__module__.replace('torch', 'litnn')
    assert litnn.cpu.amp.GradScaler.__module__ == torch.cpu.amp.GradScaler.__module__.replace('torch', 'litnn')
    assert issubclass(litnn.cpu.amp.autocast, litnn.amp.autocast)

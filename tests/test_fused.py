"""The fused kernels (litnn/fused.py, numba) behind GELU and LayerNorm: against PyTorch 2.13 and against litnn's own
numpy passes, on the inputs that break kernels (NaN, inf, large means, views, half precision, empty and 0-d arrays);
and the switch: `import litnn` does not import numba, `LITNN_NUMBA=0` and a missing numba give the numpy passes."""
import os, subprocess, sys
import numpy as np, pytest, torch
import litnn
from litnn import fused

pytestmark = pytest.mark.skipif(fused._numba() is None, reason="numba (the `fast` extra) is not installed")

TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}

@pytest.fixture(params=[True, False], ids=['fused', 'numpy'])
def kernels(request, monkeypatch):
    "Each test runs twice: with the fused kernels and with numpy's passes."
    monkeypatch.setattr(fused, 'enabled', request.param)
    return request.param

def both(array, requires_grad=True):
    return (litnn.tensor(array, requires_grad=requires_grad), torch.tensor(array, requires_grad=requires_grad))

def close(a, b, dt, **kw):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **{**TOL[dt], **kw})

def special_values(n, dt, rng):
    x = np.concatenate([rng.standard_normal(n) * 4, [0., -0., 5.6, -5.6, 5.7, -5.7, 13., -13., 40., -40.]])
    return x.astype(dt)

@pytest.mark.parametrize('dt', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(), (7,), (16, 64, 512), (3, 0, 4)])
def test_gelu_matches_torch(kernels, dt, shape):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 4).astype(dt)
    g = rng.standard_normal(shape).astype(dt)
    (lx, tx), (lg, tg) = both(x), both(g, False)
    ly, ty = litnn.nn.functional.gelu(lx), torch.nn.functional.gelu(tx)
    close(ly, ty, dt); assert ly.dtype == litnn.float32 if dt == np.float32 else litnn.float64
    ly.backward(lg); ty.backward(tg)
    close(lx.grad, tx.grad, dt)

@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_gelu_special_values_as_torch(kernels, dt):
    x = special_values(200, dt, np.random.default_rng(1))
    x = np.concatenate([x, np.array([np.inf, -np.inf, np.nan], dt)])
    (lx, tx), g = both(x), np.linspace(-1, 1, x.size).astype(dt)
    ly, ty = litnn.nn.functional.gelu(lx), torch.nn.functional.gelu(tx)
    assert ly[-3].item() == float('inf')      # as torch's float64 kernel; its float32 kernel answers NaN for +inf
    close(ly[:-3], ty[:-3], dt, atol=1e-6 if dt == np.float32 else 1e-13)
    assert np.isnan(ly[-2:].detach().numpy()).all() and np.isnan(ty[-2:].detach().numpy()).all()   # -inf · 0, NaN
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, dt, atol=1e-6 if dt == np.float32 else 1e-13)

def test_gelu_views_and_broadcast_gradients(kernels):
    "A transposed input and a broadcast gradient (from `sum`) are not contiguous: the result is the same."
    x = np.random.default_rng(2).standard_normal((40, 30)).astype(np.float32)
    (lx, tx) = both(x)
    ly, ty = litnn.nn.functional.gelu(lx.t()), torch.nn.functional.gelu(tx.t())
    close(ly, ty, np.float32)
    ly.sum().backward(); ty.sum().backward()
    close(lx.grad, tx.grad, np.float32)

@pytest.mark.parametrize('dt', ['float16', 'bfloat16'])
def test_gelu_half_precision(kernels, dt):
    x = np.random.default_rng(3).standard_normal(500).astype(np.float32) * 3
    lx = litnn.tensor(x).to(getattr(litnn, dt)).requires_grad_(); tx = torch.tensor(x).to(getattr(torch, dt)).requires_grad_()
    ly, ty = litnn.nn.functional.gelu(lx), torch.nn.functional.gelu(tx)
    assert str(ly.dtype).split('.')[-1] == str(ty.dtype).split('.')[-1]
    np.testing.assert_allclose(ly.float().detach().numpy(), ty.float().detach().numpy(), rtol=1e-2, atol=1e-2)
    ly.sum().backward(); ty.sum().backward()
    np.testing.assert_allclose(lx.grad.float().numpy(), tx.grad.float().numpy(), rtol=1e-2, atol=1e-2)

def test_gelu_second_derivative(kernels):
    x = np.random.default_rng(4).standard_normal(50)
    (lx, tx) = both(x)
    lg, = litnn.autograd.grad(litnn.nn.functional.gelu(lx).sum(), lx, create_graph=True)
    tg, = torch.autograd.grad(torch.nn.functional.gelu(tx).sum(), tx, create_graph=True)
    close(lg, tg, np.float64)
    close(litnn.autograd.grad(lg.sum(), lx)[0], torch.autograd.grad(tg.sum(), tx)[0], np.float64)

@pytest.mark.parametrize('dt', [np.float32, np.float64])
@pytest.mark.parametrize('shape,normalized', [((1024, 128), (128,)), ((16, 64, 128), (128,)), ((4, 5, 6), (5, 6)),
                                              ((7,), (7,)), ((3, 1), (1,))])
@pytest.mark.parametrize('affine', ['both', 'weight', 'none'])
def test_layer_norm_matches_torch(kernels, dt, shape, normalized, affine):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 3 + 2).astype(dt)
    w = rng.standard_normal(normalized).astype(dt) if affine != 'none' else None
    b = rng.standard_normal(normalized).astype(dt) if affine == 'both' else None
    g = rng.standard_normal(shape).astype(dt)
    lx, tx = both(x)
    lw, tw = both(w) if w is not None else (None, None)
    lb, tb = both(b) if b is not None else (None, None)
    ly = litnn.nn.functional.layer_norm(lx, normalized, lw, lb, eps=1e-5)
    ty = torch.nn.functional.layer_norm(tx, normalized, tw, tb, eps=1e-5)
    close(ly, ty, dt, rtol=1e-4 if dt == np.float32 else 1e-10, atol=1e-5 if dt == np.float32 else 1e-11)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t in ((lx, tx), (lw, tw), (lb, tb)):
        if l is not None: close(l.grad, t.grad, dt, rtol=1e-4 if dt == np.float32 else 1e-9, atol=1e-4 if dt == np.float32 else 1e-10)

def test_layer_norm_large_mean_and_overflowing_deviations(kernels):
    "Rows near 1e4 (float32 keeps 3 digits of the deviations) and deviations whose squares overflow float32."
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((64, 48)) + 1e4).astype(np.float32)
    ref = ((x.astype(np.float64) - x.mean(1, keepdims=True, dtype=np.float64)) / np.sqrt(x.astype(np.float64).var(1, keepdims=True) + 1e-5))
    assert np.abs(litnn.nn.functional.layer_norm(litnn.tensor(x), (48,)).numpy() - ref).max() < 5e-3
    big = np.full((2, 4), 1e20, np.float32); big[:, 0] = -1e20
    out = litnn.nn.functional.layer_norm(litnn.tensor(big), (4,)).numpy()
    np.testing.assert_allclose(out, torch.nn.functional.layer_norm(torch.tensor(big, dtype=torch.float64), (4,)).numpy(), rtol=1e-5)

def test_layer_norm_nan_and_inf_rows(kernels):
    x = np.random.default_rng(7).standard_normal((4, 8)).astype(np.float32)
    x[1, 3], x[2, 0] = np.nan, np.inf
    lx, tx = both(x)
    ly, ty = litnn.nn.functional.layer_norm(lx, (8,)), torch.nn.functional.layer_norm(tx, (8,))
    close(ly, ty, np.float32, rtol=1e-5, atol=1e-5)                  # rows 1 and 2 NaN in both, rows 0 and 3 numbers
    ly.sum().backward(); ty.sum().backward()
    close(lx.grad, tx.grad, np.float32, rtol=1e-4, atol=1e-5)

@pytest.mark.parametrize('dt', ['float16', 'bfloat16'])
def test_layer_norm_half_precision(kernels, dt):
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((6, 32)).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    lx = litnn.tensor(x).to(getattr(litnn, dt)).requires_grad_(); tx = torch.tensor(x).to(getattr(torch, dt)).requires_grad_()
    lw, tw = both(w)
    ly, ty = litnn.nn.functional.layer_norm(lx, (32,), lw), torch.nn.functional.layer_norm(tx, (32,), tw)
    assert str(ly.dtype).split('.')[-1] == str(ty.dtype).split('.')[-1]
    np.testing.assert_allclose(ly.float().detach().numpy(), ty.float().detach().numpy(), rtol=2e-2, atol=2e-2)
    ly.float().sum().backward(); ty.float().sum().backward()
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=2e-2, atol=5e-2)

def test_layer_norm_second_derivative_and_gradcheck(kernels):
    rng = np.random.default_rng(9)
    x, w, b = rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal(5)
    (lx, tx), (lw, tw), (lb, tb) = both(x), both(w), both(b)
    f = lambda F, x, w, b: (F.layer_norm(x, (5,), w, b) ** 3).sum()
    lg = litnn.autograd.grad(f(litnn.nn.functional, lx, lw, lb), (lx, lw), create_graph=True)
    tg = torch.autograd.grad(f(torch.nn.functional, tx, tw, tb), (tx, tw), create_graph=True)
    for l, t in zip(lg, tg): close(l, t, np.float64, rtol=1e-9, atol=1e-10)
    for l, t in zip(litnn.autograd.grad(sum(g.sum() for g in lg), lx), torch.autograd.grad(sum(g.sum() for g in tg), tx)):
        close(l, t, np.float64, rtol=1e-8, atol=1e-9)
    assert litnn.autograd.gradcheck(lambda x, w, b: litnn.nn.functional.layer_norm(x, (5,), w, b), (lx, lw, lb))

def test_layer_norm_module_in_a_gpt_block_is_the_same_both_ways():
    "A LayerNorm, a Linear and GELU, trained one step with each path from the same weights, end at the same weights."
    results = []
    for on in (True, False):
        fused.enabled = on
        try:
            litnn.manual_seed(0)
            net = litnn.nn.Sequential(litnn.nn.LayerNorm(16), litnn.nn.Linear(16, 64), litnn.nn.GELU(), litnn.nn.Linear(64, 16))
            opt = litnn.optim.AdamW(net.parameters(), lr=1e-2)
            x = litnn.randn(8, 10, 16, generator=litnn.Generator().manual_seed(1))
            for _ in range(3):
                opt.zero_grad(); net(x).pow(2).mean().backward(); opt.step()
            results.append([p.detach().numpy().copy() for p in net.parameters()])
        finally: fused.enabled = True
    for a, b in zip(*results): np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)

def test_kernels_refuse_what_they_do_not_take():
    "Integers, views and mixed dtypes: None, and the caller's numpy passes."
    P, Q = litnn._pointwise._CDF32_PQ
    assert fused.gelu(np.ones((3, 4), np.float32)[:, ::2], P, Q) is None
    assert fused.gelu(np.ones((3, 4), np.float32).T, P, Q)[0].strides == (4, 16)       # a transposed matrix: through its transpose
    assert fused.gelu(np.ones(3, np.int64), P, Q) is None
    assert fused.layer_norm(np.ones((2, 3), np.float16), None, None, 1e-5) is None
    assert fused.gelu_backward(np.ones(3, np.float64), np.ones(3, np.float32), np.ones(3, np.float32)) is None

def run(code, **env):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={**os.environ, **env}, timeout=300)

def test_import_does_not_import_numba():
    r = run("import sys, litnn; litnn.nn.Linear(2, 2)(litnn.ones(2)); print('numba' in sys.modules)")
    assert r.returncode == 0 and r.stdout.strip() == 'False', r.stderr

def test_litnn_numba_0_turns_the_kernels_off():
    code = ("import litnn, litnn.fused as f; y = litnn.nn.functional.gelu(litnn.ones(3)); "
            "print(f.enabled, f.compiled(f._gelu32), type(y.grad_fn).__name__)")
    r = run(code, LITNN_NUMBA='0')
    assert r.returncode == 0 and r.stdout.split() == ['False', 'None', 'NoneType'], (r.stdout, r.stderr)

def test_without_numba_the_numpy_passes_run(monkeypatch):
    "As where numba is not installed: every kernel is None, and GELU and LayerNorm still match torch."
    monkeypatch.setattr(fused, '_numba', lambda: None)
    monkeypatch.setattr(fused, '_compiled', {})
    assert fused.compiled(fused._layer_norm) is None
    x = np.random.default_rng(10).standard_normal((5, 8)).astype(np.float32)
    lx, tx = both(x)
    close(litnn.nn.functional.layer_norm(litnn.nn.functional.gelu(lx), (8,)),
          torch.nn.functional.layer_norm(torch.nn.functional.gelu(tx), (8,)), np.float32, rtol=1e-5, atol=1e-5)

def test_a_numba_that_fails_to_import_turns_the_kernels_off():
    """numba's import can fail with other errors than ImportError (a scipy without `__version__` beside it: AttributeError).
    The kernels are optional: a depthwise convolution (d2l's LazyConv2d(1, (1, 2), bias=False)) and GELU still run, as torch."""
    code = ("import sys, importlib.abc\n"
            "class Broken(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path, target=None):\n"
            "        if name == 'numba': raise AttributeError(\"module 'scipy' has no attribute '__version__'\")\n"
            "sys.meta_path.insert(0, Broken())\n"
            "import litnn\n"
            "x = litnn.arange(48.).reshape(1, 1, 6, 8)\n"
            "w = litnn.tensor([[[[1., -1.]]]])\n"
            "y = litnn.nn.functional.conv2d(x, w)\n"
            "print(y.sum().item(), litnn.nn.functional.gelu(litnn.tensor([0.5])).item(), 'numba' in sys.modules)")
    r = run(code)
    assert r.returncode == 0, r.stderr
    tx = torch.arange(48.).reshape(1, 1, 6, 8)
    want = [torch.nn.functional.conv2d(tx, torch.tensor([[[[1., -1.]]]])).sum().item(), torch.nn.functional.gelu(torch.tensor([0.5])).item()]
    out = r.stdout.split()
    assert [float(v) for v in out[:2]] == want and out[2] == 'False'

@pytest.mark.parametrize('opt,kw', [('AdamW', {}), ('Adam', {}), ('Adam', dict(weight_decay=0.1)),
                                    ('AdamW', dict(maximize=True, betas=(0.3, 0.99))), ('AdamW', dict(amsgrad=True)),
                                    ('AdamW', dict(lr=0.0))])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_adam_steps_match_torch(kernels, opt, kw, dt):
    "Five steps of Adam/AdamW (L2 decay, maximize, beta1 < 0.5 (lerp's other side), AMSGrad, lr 0) from the same weights."
    rng = np.random.default_rng(11)
    ws, gs = [rng.standard_normal(s).astype(dt) for s in ((4, 3), (3,), ())], rng.standard_normal((5, 16)).astype(dt)
    lp = [litnn.nn.Parameter(litnn.tensor(w)) for w in ws]; tp = [torch.nn.Parameter(torch.tensor(w)) for w in ws]
    lo, to = getattr(litnn.optim, opt)(lp, **{'lr': 1e-2, **kw}), getattr(torch.optim, opt)(tp, **{'lr': 1e-2, **kw})
    for g in gs:
        for ps, lib in ((lp, litnn), (tp, torch)):
            parts = np.split(g, [12, 15])
            for p, part in zip(ps, parts): p.grad = lib.tensor(part.reshape(p.shape))
        lo.step(); to.step()
    for l, t in zip(lp, tp): close(l, t, dt, rtol=1e-5 if dt == np.float32 else 1e-12, atol=1e-6 if dt == np.float32 else 1e-13)
    for l, t in zip(lp, tp):
        for key in ('exp_avg', 'exp_avg_sq'):
            close(lo.state[l][key], to.state[t][key], dt, rtol=1e-5 if dt == np.float32 else 1e-12, atol=1e-7 if dt == np.float32 else 1e-14)

def test_adam_bumps_versions_as_torch(kernels):
    "AdamW changes a parameter twice per step (mul_ then addcdiv_), so its version counter moves by 2, as torch's."
    lp, tp = litnn.nn.Parameter(litnn.ones(3)), torch.nn.Parameter(torch.ones(3))
    lo, to = litnn.optim.AdamW([lp]), torch.optim.AdamW([tp])
    lp.grad, tp.grad = litnn.ones(3), torch.ones(3)
    v0, w0 = lp._version, tp._version
    lo.step(); to.step()
    assert lp._version - v0 == tp._version - w0 == 2


# the row loops litnn.compile's generated code calls (37_compile): each bit-equal to the numpy passes it replaces
def _special(shape, rng, dt):
    x = (rng.standard_normal(shape) * 3).astype(dt)
    flat = x.reshape(-1)
    vals = [np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-40]
    flat[:len(vals)] = vals[:flat.size]
    return x

def _bits(a): return a.tobytes()

@pytest.mark.parametrize('dt', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(1, 1), (5, 7), (64, 512)])
def test_row_loops_bit_equal_to_numpy(dt, shape):
    rng = np.random.default_rng(sum(shape))
    x, b = _special(shape, rng, dt), _special((shape[1],), rng, dt)
    out = np.empty_like(x); fused.compiled(fused._add_relu)(x, b, out)
    assert _bits(out) == _bits(np.maximum(x + b, 0))
    m = np.empty(shape[0], dt)
    if not fused.compiled(fused._row_max)(x, m): assert _bits(m) == _bits(x.max(1))
    x0 = x.copy(); x0[0] = 0; x0[0, -1] = -0.0
    assert fused.compiled(fused._row_max)(x0, m)           # a max of 0: the caller takes numpy's
    tot = np.abs(x[:, 0]).copy(); tot[0] = 0
    want = x.copy(); t2 = tot.copy(); t2[t2 == 0] = 1; want /= t2[:, None]
    got = x.copy(); fused.compiled(fused._div_rows)(got, tot)
    assert _bits(got) == _bits(want)
    ds, p, s = _special(shape, rng, dt), rng.random(shape).astype(dt), dt(0.17677669529663687)
    t = (ds * p).sum(1)
    want = ds.copy(); want -= t[:, None]; want *= p; want *= 0.17677669529663687
    got = ds.copy(); fused.compiled(fused._softmax_back_rows)(got, t, p, s)
    assert _bits(got) == _bits(want)

@pytest.mark.parametrize('causal', [True, False])
@pytest.mark.parametrize('L,S', [(1, 1), (7, 7), (5, 9), (64, 64)])
def test_scale_causal_bit_equal_and_its_check(causal, L, S):
    from litnn.nn.functional import _causal_mask, _exp_safe, _EXP_SAFE
    rng = np.random.default_rng(L * S)
    for spread, bad in ((1, None), (300, None), (1, np.nan), (1, np.inf)):
        s = (rng.standard_normal((3, L, S)) * spread).astype(np.float32)
        if bad is not None: s[1, -1, 0] = bad
        want = s.copy(); want *= 0.25
        safe = _exp_safe(want, None)
        if causal: want += _causal_mask(np, L, S, np.float32)
        got = s.copy()
        assert fused.compiled(fused._scale_causal)(got, np.float32(0.25), causal, _EXP_SAFE) == safe
        assert _bits(got) == _bits(want)

def test_add_at2_as_add_at():
    rng = np.random.default_rng(0)
    i, j = rng.integers(-6, 6, 200), rng.integers(-4, 4, 200)
    v = rng.standard_normal(200).astype(np.float32)
    want = np.zeros((6, 4), np.float32); np.add.at(want, (i, j), v)
    got = np.zeros((6, 4), np.float32)
    assert fused.compiled(fused._add_at2)(got, i, j, v) and _bits(got) == _bits(want)
    assert not fused.compiled(fused._add_at2)(got, i + 6, j, v) and _bits(got) == _bits(want)    # out of range: nothing written

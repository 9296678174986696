"""optim.Muon against torch.optim.Muon (2.13): steps from the same weights and gradients, every option, state_dict, errors.

The Newton-Schulz iteration runs in bfloat16, which keeps 8 significant bits: each rounding moves a value by up to
u = 2^-8 of itself. Two correct implementations need not agree to the bit: the float32 sums they round differ in their
last bits when they add in another order (torch's oneDNN kernels do, on CPUs with AVX512-BF16 or AMX), and one may round
a product before adding β·C where the other rounds once; then an entry lands one bfloat16 step (2u) apart, and the
iteration carries it on. About 17 roundings lie between the input and the result (the cast, the normalization, 3 products
in each of 5 steps): added up, 17u ≈ 2^-4 from the exact iteration, so two implementations lie within 2^-3 of each
other (Frobenius norm, relative). Emulating other summation orders, double rounding and random flips, the largest
differences seen were 6% from the exact iteration and 6.7% between implementations.

So the tests split a step in two: the iteration, against torch's and the exact one to those bounds; and everything
else (momentum, Nesterov, learning-rate adjustment, weight decay), against torch to float rounding, with the exact
iteration put in both libraries' place."""
import math, numpy as np, pytest, torch
import litnn
import litnn.optim._muon, torch.optim._muon
from litnn.optim._muon import _zeropower_via_newtonschulz as lns
from torch.optim._muon import _zeropower_via_newtonschulz as tns, _adjust_lr

NS, NS_RTOL = (3.4445, -4.7750, 2.0315), 2 ** -3    # ‖bfloat16 iteration - other‖_F / ‖other‖_F, other: torch's or exact

def exact_newton_schulz(g, coefficients, steps, eps=1e-7):
    "The same iteration in float64: what a bfloat16 one approximates."
    a, b, c = coefficients
    x = g.astype(np.float64).T if g.shape[0] > g.shape[1] else g.astype(np.float64)
    x = x / max(np.linalg.norm(x), eps)
    for _ in range(steps):
        G = x @ x.T
        x = a * x + (b * G + c * G @ G) @ x
    return x.T if g.shape[0] > g.shape[1] else x

def run(lib, ws, grads, **kw):
    ps = [lib.nn.Parameter(lib.tensor(w)) for w in ws]
    opt = lib.optim.Muon(ps, **kw)
    for gs in grads:
        for p, g in zip(ps, gs): p.grad = lib.tensor(g)
        opt.step()
    return ps, opt

def problem(dt, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(12, 5), (5, 12), (7, 7), (1, 4)]
    return [rng.standard_normal(s).astype(dt) for s in shapes], [[rng.standard_normal(s).astype(dt) for s in shapes] for _ in range(4)]

def both(ws, grads, kw):
    lkw = {k: (litnn.tensor(v.item()) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
    return run(litnn, ws, grads, **lkw), run(torch, ws, grads, **kw)

@pytest.mark.parametrize('kw', [{}, dict(lr=0.02), dict(nesterov=False), dict(adjust_lr_fn='match_rms_adamw'),
                                dict(adjust_lr_fn='original', weight_decay=0.0), dict(momentum=0.0, ns_steps=3),
                                dict(ns_coefficients=(2.0, -1.5, 0.5), eps=1e-3), dict(lr=torch.tensor(0.01))])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_muon_step_matches_torch(kw, dt, monkeypatch):
    "Everything in a step but the bfloat16 iteration, to float rounding: the exact iteration in both libraries' place."
    for lib, mod in ((litnn, litnn.optim._muon), (torch, torch.optim._muon)):
        exact = lambda g, c, n, eps, lib=lib: lib.tensor(exact_newton_schulz(g.numpy(), c, n, eps).astype(g.numpy().dtype))
        monkeypatch.setattr(mod, '_zeropower_via_newtonschulz', exact)
    ws, grads = problem(dt)
    (lp, lo), (tp, to) = both(ws, grads, kw)
    for l, t in zip(lp, tp):
        assert str(l.dtype).split('.')[-1] == str(t.dtype).split('.')[-1]
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(lo.state[l]['momentum_buffer'].numpy(), to.state[t]['momentum_buffer'].numpy(), rtol=1e-6, atol=1e-7)

@pytest.mark.parametrize('kw', [dict(lr=torch.tensor(0.001)), dict(lr=torch.tensor(0.01), adjust_lr_fn='match_rms_adamw')])
def test_muon_tensor_lr_computes_in_its_dtype(kw, monkeypatch):
    "Found by torch's optim_db: a float32 tensor lr makes torch's 1 - lr·wd and the adjusted lr float32 products; float64 weights see them."
    for lib, mod in ((litnn, litnn.optim._muon), (torch, torch.optim._muon)):
        exact = lambda g, c, n, eps, lib=lib: lib.tensor(exact_newton_schulz(g.numpy(), c, n, eps).astype(g.numpy().dtype))
        monkeypatch.setattr(mod, '_zeropower_via_newtonschulz', exact)
    ws, grads = problem(np.float64)
    (lp, lo), (tp, to) = both(ws, grads, kw)
    for l, t in zip(lp, tp):
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize('kw', [{}, dict(lr=0.02, adjust_lr_fn='match_rms_adamw'), dict(nesterov=False, ns_steps=3)])
def test_muon_matches_torch(kw):
    "Whole steps, bfloat16 iteration included: each step's update within NS_RTOL of torch's."
    ws, grads = problem(np.float32)
    (lp, lo), (tp, to) = both(ws, grads, kw)
    lr = float(kw.get('lr', 1e-3))
    for l, t, w in zip(lp, tp, ws):
        # each step moves w by lr' · update, ‖update‖_F ≤ 1.25 √min(A, B) (its singular values are at most 1.25);
        # the updates may differ by NS_RTOL of that, and weight decay only shrinks an earlier difference
        step = _adjust_lr(lr, kw.get('adjust_lr_fn'), w.shape) * 1.25 * math.sqrt(min(w.shape))
        l, t = l.detach().numpy().astype(np.float64), t.detach().numpy().astype(np.float64)
        assert np.linalg.norm(l - t) <= len(grads) * NS_RTOL * step, (np.linalg.norm(l - t), step)
    for l, t in zip(lp, tp):
        np.testing.assert_allclose(lo.state[l]['momentum_buffer'].numpy(), to.state[t]['momentum_buffer'].numpy(), rtol=1e-6, atol=1e-7)

def test_newton_schulz_matches_torch_to_bfloat16_rounding():
    rng = np.random.default_rng(1)
    for shape in ((8, 5), (5, 8), (16, 16), (64, 32), (32, 64), (128, 96)):
        g = rng.standard_normal(shape).astype(np.float32)
        a, b = lns(litnn.tensor(g), NS, 5, 1e-7), tns(torch.tensor(g), NS, 5, 1e-7)
        assert str(a.dtype) == 'litnn.bfloat16'
        a, b, x = a.float().numpy().astype(np.float64), b.float().numpy().astype(np.float64), exact_newton_schulz(g, NS, 5)
        assert np.linalg.norm(a - b) <= NS_RTOL * np.linalg.norm(b), shape
        assert np.linalg.norm(a - x) <= NS_RTOL * np.linalg.norm(x), shape
        if shape[0] != shape[1]:                                   # these start with no tiny singular value
            s = np.linalg.svd(a, compute_uv=False)
            assert 0.6 < s.min() and s.max() < 1.25, (shape, s.min(), s.max())   # the update is nearly orthogonal
    assert np.linalg.norm(exact_newton_schulz(g, NS, 4) - x) > 2 * NS_RTOL * np.linalg.norm(x)   # the bound tells a step fewer apart

def test_state_dict_round_trip_continues_the_same():
    rng = np.random.default_rng(2)
    ws, grads = [rng.standard_normal((6, 4))], [[rng.standard_normal((6, 4))] for _ in range(4)]
    ps, opt = run(litnn, ws, grads[:2], lr=0.05)
    sd = opt.state_dict()
    assert list(sd['state'][0]) == ['momentum_buffer'] and sd['param_groups'][0]['ns_steps'] == 5
    q = [litnn.nn.Parameter(ps[0].detach().clone())]
    opt2 = litnn.optim.Muon(q, lr=0.05); opt2.load_state_dict(sd)
    for gs in grads[2:]:
        for o, p in ((opt, ps[0]), (opt2, q[0])): p.grad = litnn.tensor(gs[0]); o.step()
    np.testing.assert_array_equal(ps[0].detach().numpy(), q[0].detach().numpy())

@pytest.mark.parametrize('make,exc', [
    (lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.zeros(3))]), ValueError),
    (lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 2))], adjust_lr_fn='x'), ValueError),
    (lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 2))], lr=-0.1), ValueError),
    (lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 2))], momentum=-0.1), ValueError),
    (lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 2))], weight_decay=-0.1), ValueError),
    (lambda lib: lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 2))], lr=lib.tensor([0.1, 0.2])), ValueError)])
def test_muon_refuses_as_torch(make, exc):
    with pytest.raises(exc) as t: make(torch)
    with pytest.raises(exc) as l: make(litnn)
    assert str(l.value).replace('litnn', 'torch') == str(t.value)

@pytest.mark.parametrize('kw,msg', [(dict(ns_steps=100), "Number of steps must be less than 100"),
                                    (dict(ns_coefficients=(1.0, 2.0)), "Coefficients must be a tuple of exactly 3 values")])
def test_muon_step_refuses_as_torch(kw, msg):
    for lib in (litnn, torch):
        p = lib.nn.Parameter(lib.ones(2, 3)); opt = lib.optim.Muon([p], **kw); p.grad = lib.ones(2, 3)
        with pytest.raises(ValueError, match=msg): opt.step()

"""optim.Muon against torch.optim.Muon (2.13): steps from the same weights and gradients, every option, state_dict, errors."""
import numpy as np, pytest, torch
import litnn

def run(lib, ws, grads, **kw):
    ps = [lib.nn.Parameter(lib.tensor(w)) for w in ws]
    opt = lib.optim.Muon(ps, **kw)
    for gs in grads:
        for p, g in zip(ps, gs): p.grad = lib.tensor(g)
        opt.step()
    return ps, opt

@pytest.mark.parametrize('kw', [{}, dict(lr=0.02), dict(nesterov=False), dict(adjust_lr_fn='match_rms_adamw'),
                                dict(adjust_lr_fn='original', weight_decay=0.0), dict(momentum=0.0, ns_steps=3),
                                dict(ns_coefficients=(2.0, -1.5, 0.5), eps=1e-3), dict(lr=torch.tensor(0.01))])
@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_muon_matches_torch(kw, dt):
    rng = np.random.default_rng(0)
    shapes = [(12, 5), (5, 12), (7, 7), (1, 4)]
    ws = [rng.standard_normal(s).astype(dt) for s in shapes]
    grads = [[rng.standard_normal(s).astype(dt) for s in shapes] for _ in range(4)]
    lkw = {k: (litnn.tensor(v.item()) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
    (lp, lo), (tp, to) = run(litnn, ws, grads, **lkw), run(torch, ws, grads, **kw)
    for l, t in zip(lp, tp):
        assert str(l.dtype).split('.')[-1] == str(t.dtype).split('.')[-1]
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)
    for l, t in zip(lp, tp):
        np.testing.assert_allclose(lo.state[l]['momentum_buffer'].numpy(), to.state[t]['momentum_buffer'].numpy(), rtol=1e-6, atol=1e-7)

def test_newton_schulz_is_torchs_to_the_bit():
    from litnn.optim.muon import _zeropower_via_newtonschulz as lns
    from torch.optim._muon import _zeropower_via_newtonschulz as tns
    rng = np.random.default_rng(1)
    for shape in ((8, 5), (5, 8), (16, 16), (64, 32)):
        g = rng.standard_normal(shape).astype(np.float32)
        a, b = lns(litnn.tensor(g), (3.4445, -4.7750, 2.0315), 5, 1e-7), tns(torch.tensor(g), (3.4445, -4.7750, 2.0315), 5, 1e-7)
        assert str(a.dtype) == 'litnn.bfloat16'
        a, b = a.float().numpy(), b.float().numpy()     # equal but where a float32 sum's order crosses a rounding
        assert (a == b).mean() > 0.99 and np.abs(a - b).max() <= 2 ** -8 * np.abs(b).max()

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

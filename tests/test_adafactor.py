"""torch.optim.Adafactor (reference/optim/adafactor) side by side with torch: steps from the same start give the same parameters
(float64 to 1e-12, float32 to 2e-5), versions, state dicts and reprs over a grid of options; checkpoints cross between
the libraries; bad arguments raise torch's errors."""
import itertools
import numpy as np
import pytest

import litnn
from test_optim import compare, make, run, arrays, grad_seq, to_np, to_lib, assert_same_tree

torch = pytest.importorskip('torch')

GRID = [dict(lr=lr, beta2_decay=b2, eps=eps, d=d, weight_decay=wd, maximize=mx)
        for lr, b2, eps, d, wd, mx in itertools.product([1e-2, 0.5], [-0.8, -0.3], [(None, 1e-3), (1e-10, 0.1)], [1.0, 3.0],
                                                        [0.0, 0.1], [False, True])]


@pytest.mark.parametrize('kw', GRID, ids=[str(kw) for kw in GRID])
def test_matches_torch_over_25_steps(kw): compare('Adafactor', kw, steps=25)


def test_defaults_float32_groups_holes_and_batched_matrices():
    compare('Adafactor', {}, steps=20, dtype=np.float32)
    compare('Adafactor', dict(foreach=False), steps=20, groups=[([0, 2], {}), ([1], {'lr': 0.2})], holes=True)
    rng = np.random.default_rng(3)
    arrs, grads = [rng.standard_normal((2, 3, 4)), rng.standard_normal(())], [[rng.standard_normal((2, 3, 4)), rng.standard_normal(())] for _ in range(5)]
    (lp, lo), (tp, to) = make(litnn, 'Adafactor', {}, arrs), make(torch, 'Adafactor', {}, arrs)
    run(litnn, lp, lo, grads); run(torch, tp, to, grads)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 1e-12, 1e-14)


def test_state_dict_crosses_libraries():
    kw = GRID[5]
    arrs, g1, g2 = arrays(5), grad_seq(6, 8), grad_seq(7, 8)
    (tp, to) = make(torch, 'Adafactor', kw, arrs)
    run(torch, tp, to, g1)
    (lp, lo) = make(litnn, 'Adafactor', kw, [p.detach().numpy() for p in tp])
    lo.load_state_dict(to_lib(litnn, to.state_dict()))
    run(litnn, lp, lo, g2); run(torch, tp, to, g2)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 1e-12, 1e-14)


BAD = [dict(lr=-1.), dict(beta2_decay=0.5), dict(eps=(-1., 1e-3)), dict(eps=(None, -1.)), dict(d=0.5), dict(weight_decay=-0.1)]


@pytest.mark.parametrize('kw', BAD, ids=[str(k) for k in BAD])
def test_bad_arguments_like_torch(kw):
    with pytest.raises(Exception) as te: torch.optim.Adafactor([torch.nn.Parameter(torch.ones(2))], **kw)
    with pytest.raises(te.type) as le: litnn.optim.Adafactor([litnn.nn.Parameter(litnn.ones(2))], **kw)
    assert str(le.value) == str(te.value)


def test_defaults_and_repr():
    l, t = litnn.optim.Adafactor([litnn.nn.Parameter(litnn.ones(2))]), torch.optim.Adafactor([torch.nn.Parameter(torch.ones(2))])
    assert l.defaults == t.defaults and str(l) == str(t)

"""optim.swa_utils side by side with torch: AveragedModel (SWA, EMA by avg_fn and multi_avg_fn, with and without
buffers) gives the same averaged weights and state dicts; update_bn the same running statistics; SWALR the same
learning-rate sequences; the same errors."""
import numpy as np
import pytest

import litnn
from nn_pairs import err
from test_lr_scheduler import opt, same_trace

torch = pytest.importorskip('torch')
SU = lambda lib: lib.optim.swa_utils


def net(lib, seed=0):
    "Linear-BatchNorm-ReLU-Linear in float64 with the same weights in both libraries."
    rng = np.random.default_rng(seed)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)).double()
    with lib.no_grad():
        for p in m.parameters(): p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return m


def perturb(lib, m, i):
    "Move the weights and buffers deterministically, as training would."
    rng = np.random.default_rng(100 + i)
    with lib.no_grad():
        for p in m.parameters(): p.add_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.1))
        m[1].running_mean.add_(lib.tensor(rng.standard_normal(4)))
        m[1].num_batches_tracked.add_(1)


AVG = {
    'swa': lambda lib: {},
    'ema_multi': lambda lib: dict(multi_avg_fn=SU(lib).get_ema_multi_avg_fn(0.9)),
    'ema_fn': lambda lib: dict(avg_fn=SU(lib).get_ema_avg_fn(0.8)),
    'swa_fn': lambda lib: dict(avg_fn=SU(lib).get_swa_avg_fn()),
    'swa_multi': lambda lib: dict(multi_avg_fn=SU(lib).get_swa_multi_avg_fn()),
    'ema_buffers': lambda lib: dict(multi_avg_fn=SU(lib).get_ema_multi_avg_fn(0.7), use_buffers=True),
    'swa_buffers': lambda lib: dict(use_buffers=True),
}


@pytest.mark.parametrize('case', list(AVG))
def test_averaged_model_matches_torch(case):
    def run(lib):
        m = net(lib)
        avg = SU(lib).AveragedModel(m, **AVG[case](lib))
        for i in range(6):
            perturb(lib, m, i)
            avg.update_parameters(m)
        return {k: v.detach().numpy() for k, v in avg.state_dict().items()}
    a, b = run(litnn), run(torch)
    assert list(a) == list(b)
    for k in a:
        assert a[k].dtype == b[k].dtype, k
        np.testing.assert_allclose(a[k], b[k], rtol=1e-13, atol=1e-14, err_msg=k)


def test_averaged_model_forward_and_repr():
    for lib in (litnn, torch):
        m = net(lib)
        avg = SU(lib).AveragedModel(m)
        x = lib.tensor(np.ones((2, 3)))
        m.eval(); avg.eval()
        assert np.allclose(avg(x).detach().numpy(), m(x).detach().numpy())
    assert repr(SU(litnn).AveragedModel(net(litnn))) == repr(SU(torch).AveragedModel(net(torch)))


def test_update_bn_matches_torch():
    rng = np.random.default_rng(7)
    batches = [rng.standard_normal((5, 3)) * 2 + 1 for _ in range(4)]
    def run(lib, as_pairs):
        m = net(lib)
        m.eval()
        loader = [(lib.tensor(b), lib.zeros(5)) for b in batches] if as_pairs else [lib.tensor(b) for b in batches]
        SU(lib).update_bn(loader, m)
        bn = m[1]
        return bn.running_mean.numpy(), bn.running_var.numpy(), int(bn.num_batches_tracked), bn.momentum, m.training
    for pairs in (False, True):
        a, b = run(litnn, pairs), run(torch, pairs)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-12); np.testing.assert_allclose(a[1], b[1], rtol=1e-12)
        assert a[2:] == b[2:]
    for lib in (litnn, torch): SU(lib).update_bn([lib.ones(2, 3)], lib.nn.Linear(3, 2))   # no batch norm: nothing to do


SWALR_CASES = {
    'cos': lambda lib, o: SU(lib).SWALR(o, swa_lr=0.05, anneal_epochs=5),
    'linear': lambda lib, o: SU(lib).SWALR(o, swa_lr=[0.05, 0.001], anneal_epochs=7, anneal_strategy='linear'),
    'instant': lambda lib, o: SU(lib).SWALR(o, swa_lr=0.03, anneal_epochs=0),
    'one': lambda lib, o: SU(lib).SWALR(o, swa_lr=0.5, anneal_epochs=1, anneal_strategy='linear'),
}


@pytest.mark.parametrize('case', list(SWALR_CASES))
def test_swalr_sequence_matches_torch(case): same_trace(SWALR_CASES[case], steps=15, momentum=0.9)


def test_swalr_tensor_swa_lr_is_copied():
    "A tensor swa_lr is cloned into the group: changing it in place afterwards changes nothing, as in torch."
    def run(lib):
        lr, swa_lr = lib.tensor(0.1), lib.tensor(0.05)
        o = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=lr)
        s = SU(lib).SWALR(o, swa_lr=swa_lr, anneal_epochs=3)
        out = []
        for _ in range(4):
            lr.mul_(0.5); swa_lr.mul_(0.5); o.step(); s.step()
            out.append([float(o.param_groups[0][k]) for k in ('lr', 'swa_lr')])
        return out
    a, b = run(litnn), run(torch)
    assert np.allclose(a, b, rtol=1e-6), (a, b)


def test_swalr_state_dict_matches_torch():
    def sd(lib):
        o = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        s = SWALR_CASES['linear'](lib, o)
        for _ in range(3): o.step(); s.step()
        d = s.state_dict()
        s2 = SU(lib).SWALR(opt(lib, lrs=(0.1, 0.02), momentum=0.9), swa_lr=0.1)
        s2.load_state_dict(d)
        return d, s2.anneal_func(0.3)
    assert sd(litnn) == sd(torch)


@pytest.mark.parametrize('f', [
    lambda lib: SU(lib).SWALR(opt(lib), swa_lr=0.1, anneal_strategy='exp'),
    lambda lib: SU(lib).SWALR(opt(lib), swa_lr=0.1, anneal_epochs=-1),
    lambda lib: SU(lib).SWALR(opt(lib), swa_lr=0.1, anneal_epochs=2.5),
    lambda lib: SU(lib).SWALR(opt(lib), swa_lr=[0.1, 0.2]),
    lambda lib: SU(lib).get_ema_multi_avg_fn(-0.1),
    lambda lib: SU(lib).get_ema_avg_fn(1.1),
    lambda lib: SU(lib).AveragedModel(lib.nn.Linear(1, 1), avg_fn=SU(lib).get_swa_avg_fn(), multi_avg_fn=SU(lib).get_swa_multi_avg_fn()),
])
def test_errors_match_torch(f):
    assert err(f, litnn) == err(f, torch)

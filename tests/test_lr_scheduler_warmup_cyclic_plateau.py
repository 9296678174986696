"""The schedulers of torch.optim.lr_scheduler beyond those of test_lr_scheduler.py: ExponentialLR, LinearLR, ConstantLR, PolynomialLR, MultiplicativeLR, CosineAnnealingWarmRestarts, CyclicLR,
ReduceLROnPlateau, SequentialLR and ChainedScheduler side by side with torch: the same lr (and momentum or betas)
sequences, exactly, over many steps and two groups; the same state dicts; resumed runs; the same errors."""
import warnings

import numpy as np
import pytest

import litnn
from nn_pairs import err
from test_lr_scheduler import opt, trace, same_trace, S

torch = pytest.importorskip('torch')

CASES = {
    'exponential': lambda lib, o: S(lib).ExponentialLR(o, gamma=0.93),
    'linear': lambda lib, o: S(lib).LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=17),
    'linear_default': lambda lib, o: S(lib).LinearLR(o),
    'constant': lambda lib, o: S(lib).ConstantLR(o, factor=0.3, total_iters=9),
    'polynomial': lambda lib, o: S(lib).PolynomialLR(o, total_iters=23, power=1.7),
    'multiplicative': lambda lib, o: S(lib).MultiplicativeLR(o, lambda e: 0.97 if e % 2 else 1.01),
    'multiplicatives': lambda lib, o: S(lib).MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.02]),
    'warm_restarts': lambda lib, o: S(lib).CosineAnnealingWarmRestarts(o, T_0=5),
    'warm_restarts_mult': lambda lib, o: S(lib).CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001),
    'cyclic': lambda lib, o: S(lib).CyclicLR(o, base_lr=0.01, max_lr=0.2, step_size_up=4),
    'cyclic2': lambda lib, o: S(lib).CyclicLR(o, base_lr=[0.01, 0.002], max_lr=[0.2, 0.1], step_size_up=3, step_size_down=7, mode='triangular2'),
    'cyclic_exp': lambda lib, o: S(lib).CyclicLR(o, base_lr=0.01, max_lr=0.2, step_size_up=5, mode='exp_range', gamma=0.97),
    'cyclic_fn': lambda lib, o: S(lib).CyclicLR(o, 0.01, 0.2, step_size_up=4, scale_fn=lambda x: 1 / (x + 1), scale_mode='iterations', cycle_momentum=False),
    'sequential': lambda lib, o: S(lib).SequentialLR(o, [S(lib).LinearLR(o, start_factor=0.1, total_iters=5), S(lib).ExponentialLR(o, 0.9)], milestones=[6]),
    'sequential3': lambda lib, o: S(lib).SequentialLR(o, [S(lib).ConstantLR(o, 0.5, total_iters=4), S(lib).CosineAnnealingLR(o, T_max=10),
                                                           S(lib).StepLR(o, 5, 0.5)], milestones=[4, 20]),
    'chained': lambda lib, o: S(lib).ChainedScheduler([S(lib).ConstantLR(o, factor=0.5, total_iters=4), S(lib).ExponentialLR(o, 0.95)]),
    'chained_cosine': lambda lib, o: S(lib).ChainedScheduler([S(lib).LinearLR(o, 0.2, total_iters=6), S(lib).CosineAnnealingLR(o, T_max=15)], optimizer=o),
}


@pytest.mark.parametrize('case', list(CASES))
def test_lr_sequence_matches_torch(case): same_trace(CASES[case], steps=60, momentum=0.9)


@pytest.mark.parametrize('case', ['cyclic', 'cyclic2', 'cyclic_exp', 'exponential', 'sequential'])
def test_adam_lr_and_betas_sequence_matches_torch(case): same_trace(CASES[case], steps=40, name='Adam')


@pytest.mark.parametrize('case', list(CASES))
def test_state_dict_matches_torch(case):
    def sd(lib):
        o = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        s = CASES[case](lib, o)
        for _ in range(11): o.step(); s.step()
        d = s.state_dict()
        return {k: v for k, v in d.items() if k not in ('lr_lambdas',)}, o.state_dict()['param_groups']
    (ls, lg), (ts, tg) = sd(litnn), sd(torch)
    assert ls == ts and lg == tg


@pytest.mark.parametrize('case', ['exponential', 'linear', 'polynomial', 'warm_restarts_mult', 'cyclic2', 'sequential', 'chained'])
def test_resume_from_state_dict_continues_identically(case):
    "Run 12 steps, copy the scheduler's state into a fresh one on a loaded optimizer, run on: as an uninterrupted run."
    def resumed(lib):
        o = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        s = CASES[case](lib, o)
        for _ in range(12): o.step(); s.step()
        osd, ssd = o.state_dict(), s.state_dict()
        o2 = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            s2 = CASES[case](lib, o2)
        o2.load_state_dict(osd); s2.load_state_dict(ssd)
        out = []
        for _ in range(20): o2.step(); s2.step(); out.append([g['lr'] for g in o2.param_groups])
        return out
    def straight(lib):
        o = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        s = CASES[case](lib, o)
        out = []
        for i in range(32):
            o.step(); s.step()
            if i >= 12: out.append([g['lr'] for g in o.param_groups])
        return out
    assert resumed(litnn) == resumed(torch)
    assert straight(litnn) == straight(torch)


METRICS = [1.0, 0.9, 0.95, 0.92, 0.91, 0.93, 0.5, 0.6, 0.7, 0.55, 0.56, 0.57, 0.58, 0.4, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46]


@pytest.mark.parametrize('kw', [dict(), dict(factor=0.5, patience=1), dict(mode='max', factor=0.3, patience=2, cooldown=2),
                                dict(threshold=0.05, threshold_mode='abs', patience=1, min_lr=0.004),
                                dict(patience=0, min_lr=[0.01, 0.001], eps=1e-3), dict(mode='max', threshold_mode='abs', patience=1)])
def test_reduce_lr_on_plateau_matches_torch(kw):
    def run(lib):
        o = opt(lib, lrs=(0.1, 0.02))
        s = S(lib).ReduceLROnPlateau(o, **kw)
        out = []
        for m in METRICS * 2:
            o.step(); s.step(m if lib is torch else m)
            out.append((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best, s.last_epoch))
        return out, {k: v for k, v in s.state_dict().items()}
    assert run(litnn) == run(torch)


def test_reduce_lr_on_plateau_tensor_metric_and_resume():
    def run(lib):
        o = opt(lib, lrs=(0.1,))
        s = S(lib).ReduceLROnPlateau(o, patience=1, factor=0.5)
        for m in METRICS[:8]: s.step(lib.tensor(m))
        s2 = S(lib).ReduceLROnPlateau(opt(lib, lrs=(0.1,)), patience=1, factor=0.5)
        s2.load_state_dict(s.state_dict())
        for m in METRICS[8:]: s.step(m); s2.step(m)
        return s.get_last_lr(), s2.best, s2.num_bad_epochs
    assert run(litnn) == run(torch)


def test_warm_restarts_fractional_epochs_match_torch():
    def run(lib):
        o = opt(lib, lrs=(0.1, 0.02))
        s = S(lib).CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=0.001)
        out = []
        for e in np.arange(0, 30, 0.37):
            o.step(); s.step(float(e)); out.append((s.get_last_lr(), s.T_cur, s.T_i, s.last_epoch))
        return out
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('case', ['exponential', 'linear', 'constant', 'polynomial'])
def test_deprecated_step_epoch_closed_form(case):
    def run(lib):
        o = opt(lib, lrs=(0.1, 0.02))
        s = CASES[case](lib, o)
        out = []
        with pytest.warns(UserWarning, match="The epoch parameter"):
            for e in [3, 7, 15, 2, 40]:
                o.step(); s.step(e); out.append(s.get_last_lr())
        return out
    assert run(litnn) == run(torch)


def test_cyclic_custom_scale_fn_object_state():
    class Scale:
        def __init__(self): self.k = 0.5
        def __call__(self, x): return self.k
    def run(lib):
        o = opt(lib, lrs=(0.1,), momentum=0.9)
        f = Scale()
        s = S(lib).CyclicLR(o, 0.01, 0.2, step_size_up=3, scale_fn=f)
        f.k = 0.25
        d = s.state_dict()
        saved, keys = d['_scale_fn_custom'], sorted(d)
        g = Scale()
        s2 = S(lib).CyclicLR(opt(lib, lrs=(0.1,), momentum=0.9), 0.01, 0.2, step_size_up=3, scale_fn=g)
        s2.load_state_dict(d)
        return saved, g.k, keys, sorted(d)
    assert run(litnn) == run(torch)


BAD = [
    lambda lib, o: S(lib).ConstantLR(o, factor=1.5),
    lambda lib, o: S(lib).LinearLR(o, start_factor=0),
    lambda lib, o: S(lib).LinearLR(o, end_factor=1.5),
    lambda lib, o: S(lib).MultiplicativeLR(o, [lambda e: 1.0]),
    lambda lib, o: S(lib).MultiplicativeLR(o, 0.5),
    lambda lib, o: S(lib).CosineAnnealingWarmRestarts(o, T_0=0),
    lambda lib, o: S(lib).CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda lib, o: S(lib).CosineAnnealingWarmRestarts(o, T_0=2, eta_min='a'),
    lambda lib, o: S(lib).CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda lib, o: S(lib).CyclicLR(o, 0.1, 1.0, mode='sawtooth'),
    lambda lib, o: S(lib).CyclicLR(o, [0.1], 1.0),
    lambda lib, o: S(lib).CyclicLR(lib.optim.Adagrad([lib.nn.Parameter(lib.zeros(1))]), 0.1, 1.0),
    lambda lib, o: S(lib).CyclicLR(object(), 0.1, 1.0),
    lambda lib, o: S(lib).ReduceLROnPlateau(o, factor=1.0),
    lambda lib, o: S(lib).ReduceLROnPlateau(o, mode='avg'),
    lambda lib, o: S(lib).ReduceLROnPlateau(o, threshold_mode='pct'),
    lambda lib, o: S(lib).ReduceLROnPlateau(o, min_lr=[0.1, 0.2, 0.3]),
    lambda lib, o: S(lib).ReduceLROnPlateau(object()),
    lambda lib, o: S(lib).SequentialLR(o, [], milestones=[]),
    lambda lib, o: S(lib).SequentialLR(o, [S(lib).ExponentialLR(o, 0.9)], milestones=[3]),
    lambda lib, o: S(lib).SequentialLR(o, [S(lib).ExponentialLR(o, 0.9), S(lib).ReduceLROnPlateau(o)], milestones=[3]),
    lambda lib, o: S(lib).SequentialLR(o, [S(lib).ExponentialLR(o, 0.9), 'x'], milestones=[3]),
    lambda lib, o: S(lib).ChainedScheduler([]),
    lambda lib, o: S(lib).ChainedScheduler([S(lib).ExponentialLR(o, 0.9), S(lib).ReduceLROnPlateau(o)]),
]


@pytest.mark.parametrize('i', range(len(BAD)))
def test_errors_match_torch(i):
    def f(lib): return BAD[i](lib, opt(lib, lrs=(0.1, 0.02), momentum=0.9))
    assert err(f, litnn) == err(f, torch)


def test_schedulers_on_different_optimizers_are_refused_as_torch():
    def f(lib):
        o1, o2 = opt(lib), opt(lib)
        return S(lib).SequentialLR(o1, [S(lib).ExponentialLR(o1, 0.9), S(lib).ExponentialLR(o2, 0.9)], milestones=[2])
    (lt, lm), (tt, tm) = err(f, litnn), err(f, torch)
    assert lt is tt is ValueError and lm.split(' has ')[0] == tm.split(' has ')[0]


def test_names_live_in_lr_scheduler_as_in_torch():
    for name in ['ExponentialLR', 'LinearLR', 'ConstantLR', 'PolynomialLR', 'MultiplicativeLR', 'CosineAnnealingWarmRestarts',
                 'CyclicLR', 'ReduceLROnPlateau', 'SequentialLR', 'ChainedScheduler']:
        assert issubclass(getattr(litnn.optim.lr_scheduler, name), litnn.optim.lr_scheduler.LRScheduler)
        assert name in litnn.optim.lr_scheduler.__all__


@pytest.mark.parametrize('mode', ['triangular', 'triangular2', 'exp_range'])
def test_cyclic_lr_scale_functions_as_torch(mode):
    # torch's policies are static methods of CyclicLR (test_lrscheduler.py's state_dict check compares _scale_fn_ref of the
    # scheduler and of one loaded from its state_dict): the same function in both, picklable by its qualified name
    import pickle
    def run(L):
        o = L.optim.SGD(L.nn.Linear(2, 2).parameters(), lr=0.1, momentum=0.9)
        s = L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, mode=mode, gamma=0.9)
        for _ in range(3): o.step(); s.step()
        s2 = L.optim.lr_scheduler.CyclicLR(o, 0.02, 0.2, mode=mode)
        s2.load_state_dict(s.state_dict())
        s3 = pickle.loads(pickle.dumps(s))
        fn = getattr(L.optim.lr_scheduler.CyclicLR, {'triangular': '_triangular_scale_fn', 'triangular2': '_triangular2_scale_fn',
                                                     'exp_range': '_exp_range_scale_fn'}[mode])
        return (s._scale_fn_ref == s2._scale_fn_ref, s3.scale_fn(3), s2.get_last_lr(), fn.__qualname__,
                fn(3) if mode != 'exp_range' else fn(0.9, 3))
    assert run(litnn) == run(torch)

"""Learning-rate schedulers side by side with torch.optim.lr_scheduler: the same lr (and momentum) sequences, exactly,
over many steps, for several groups, chained schedulers, resumed runs and the deprecated `step(epoch)`; the same
state_dict; the same errors and warnings."""
import math, warnings

import numpy as np
import pytest

import litnn
from nn_pairs import err

torch = pytest.importorskip('torch')


def opt(lib, name='SGD', lrs=(0.1,), **kw):
    "An optimizer with one group per entry of `lrs`."
    groups = [{'params': [lib.nn.Parameter(lib.zeros(1))], 'lr': lr} for lr in lrs]
    return getattr(lib.optim, name)(groups, **kw)


def key_of(o):
    return 'betas' if 'betas' in o.defaults else 'momentum'


def trace(lib, make, steps, name='SGD', lrs=(0.1, 0.02), **kw):
    "Every group's lr (and momentum or betas) after construction and after each step."
    o = opt(lib, name, lrs, **kw)
    scheds = make(lib, o)
    scheds = scheds if isinstance(scheds, list) else [scheds]
    out = []
    for i in range(steps + 1):
        if i:
            o.step()
            for s in scheds: s.step()
        out.append(([g['lr'] for g in o.param_groups], [g[key_of(o)] for g in o.param_groups],
                    [s.get_last_lr() for s in scheds]))
    return out


def same_trace(make, steps=60, **kw):
    a, b = trace(litnn, make, steps, **kw), trace(torch, make, steps, **kw)
    assert a == b, next((i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y)
    return a


S = lambda lib: lib.optim.lr_scheduler

CASES = {
    'step': lambda lib, o: S(lib).StepLR(o, step_size=7, gamma=0.3),
    'step1': lambda lib, o: S(lib).StepLR(o, step_size=1),
    'multistep': lambda lib, o: S(lib).MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.5),
    'multistep_unsorted': lambda lib, o: S(lib).MultiStepLR(o, milestones=[30, 3, 9]),
    'cosine': lambda lib, o: S(lib).CosineAnnealingLR(o, T_max=13),
    'cosine_eta': lambda lib, o: S(lib).CosineAnnealingLR(o, T_max=10, eta_min=0.003),
    'lambda': lambda lib, o: S(lib).LambdaLR(o, lambda e: 0.95 ** e),
    'lambdas': lambda lib, o: S(lib).LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: min(1.0, (e + 1) / 10)]),
    'onecycle': lambda lib, o: S(lib).OneCycleLR(o, max_lr=1.0, total_steps=61),
    'onecycle_linear': lambda lib, o: S(lib).OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=70, anneal_strategy='linear', pct_start=0.25),
    'onecycle_three': lambda lib, o: S(lib).OneCycleLR(o, max_lr=0.4, epochs=6, steps_per_epoch=11, three_phase=True, div_factor=10.0),
    'onecycle_nomom': lambda lib, o: S(lib).OneCycleLR(o, max_lr=0.4, total_steps=61, cycle_momentum=False, final_div_factor=100.0),
    'chained': lambda lib, o: [S(lib).StepLR(o, 10, 0.5), S(lib).CosineAnnealingLR(o, T_max=8)],
}


@pytest.mark.parametrize('case', list(CASES))
def test_sgd_lr_sequence_matches_torch(case):
    same_trace(CASES[case], momentum=0.9)


@pytest.mark.parametrize('case', ['onecycle', 'onecycle_linear', 'onecycle_three', 'cosine', 'step'])
def test_adam_lr_and_betas_sequence_matches_torch(case):
    same_trace(CASES[case], name='Adam')


def test_cosine_long_run_matches_torch_exactly():
    "Several cycles up and down (recursive form, including the restart branch at the bottom of each cycle)."
    lrs = same_trace(lambda lib, o: S(lib).CosineAnnealingLR(o, T_max=7, eta_min=0.001), steps=200)
    assert min(x[0][0] for x in lrs) == pytest.approx(0.001) and max(x[0][0] for x in lrs) == pytest.approx(0.1)


def test_onecycle_values():
    lrs = same_trace(lambda lib, o: S(lib).OneCycleLR(o, max_lr=1.0, total_steps=50), steps=49, lrs=(0.1,))
    first, peak, last = lrs[0][0][0], max(x[0][0] for x in lrs), lrs[-1][0][0]
    assert (first, peak, last) == (pytest.approx(1 / 25), 1.0, pytest.approx(1 / 25 / 1e4))
    assert [x[0][0] for x in lrs].index(1.0) == 14     # the warm-up ends at 30% of 50 steps


@pytest.mark.parametrize('case', ['step', 'multistep', 'cosine_eta', 'lambda', 'onecycle', 'chained'])
def test_state_dict_matches_torch(case):
    def sd(lib):
        o = opt(lib, momentum=0.9)
        scheds = CASES[case](lib, o)
        scheds = scheds if isinstance(scheds, list) else [scheds]
        for _ in range(9):
            o.step()
            for s in scheds: s.step()
        return [s.state_dict() for s in scheds], o.state_dict()['param_groups']
    (ls, lg), (ts, tg) = sd(litnn), sd(torch)
    assert ls == ts
    assert lg == tg     # the keys the schedulers add to the groups: initial_lr, max_lr, min_lr, ...


@pytest.mark.parametrize('case', ['step', 'multistep', 'cosine', 'onecycle', 'onecycle_three'])
def test_resume_from_checkpoints_continues_identically(case):
    "Run 20 steps, checkpoint optimizer and scheduler, rebuild with last_epoch, load both, run on: same as uninterrupted."
    make = CASES[case]
    def resumed(lib):
        o = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        s = make(lib, o)
        for _ in range(20): o.step(); s.step()
        osd, ssd = o.state_dict(), s.state_dict()
        o2 = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        o2.load_state_dict(osd)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            s2 = make(lib, o2) if case.startswith('onecycle') else type(s)(o2, **{k: getattr(s, k) for k in ('step_size', 'gamma', 'milestones', 'T_max') if hasattr(s, k)}, last_epoch=19)
        s2.load_state_dict(ssd)
        out = []
        for _ in range(25): o2.step(); s2.step(); out.append([g['lr'] for g in o2.param_groups])
        return out
    def straight(lib):
        o = opt(lib, lrs=(0.1, 0.02), momentum=0.9)
        s = make(lib, o)
        out = []
        for i in range(45):
            o.step(); s.step()
            if i >= 20: out.append([g['lr'] for g in o.param_groups])
        return out
    assert resumed(litnn) == straight(litnn) == straight(torch) == resumed(torch)


def test_lambda_state_dict_saves_callable_objects_not_functions():
    class Decay:
        def __init__(self): self.rate = 0.9
        def __call__(self, e): return self.rate ** e
    def sd(lib):
        o = opt(lib, lrs=(0.1, 0.2))
        s = S(lib).LambdaLR(o, [lambda e: 1.0, Decay()])
        d = s.state_dict()
        f = Decay(); f.rate = 0.5
        s2 = S(lib).LambdaLR(opt(lib, lrs=(0.1, 0.2)), [lambda e: 1.0, f])
        s2.load_state_dict(d)
        return d, f.rate
    assert sd(litnn) == sd(torch)
    assert sd(litnn)[0]['lr_lambdas'] == [None, {'rate': 0.9}] and sd(litnn)[1] == 0.9


@pytest.mark.parametrize('case', ['step', 'multistep', 'cosine_eta'])
def test_deprecated_step_epoch_closed_form(case):
    def run(lib):
        o = opt(lib, lrs=(0.1, 0.02))
        s = CASES[case](lib, o)
        out = []
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            for e in [3, 7, 15, 2, 40]:
                o.step(); s.step(e); out.append(s.get_last_lr())
        return out
    assert run(litnn) == run(torch)


def test_tensor_lr_updated_in_place():
    def run(lib):
        o = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=lib.tensor(0.1))
        lr_t = o.param_groups[0]['lr']
        s = S(lib).StepLR(o, 2, 0.5)
        for _ in range(5): o.step(); s.step()
        return o.param_groups[0]['lr'] is lr_t, lr_t.item()
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('case', ['cyclic', 'onecycle'])
def test_tensor_hyperparameters_are_copied(case):
    "A scalar tensor given for max_lr / momenta is cloned: changing it in place later leaves the schedule alone."
    def run(lib):
        lr, top, lo, hi = (lib.tensor(v) for v in (0.1, 0.2, 0.8, 0.9))
        o = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=lr, momentum=0.5)
        if case == 'cyclic': s = S(lib).CyclicLR(o, base_lr=lr, max_lr=top, base_momentum=lo, max_momentum=hi, step_size_up=3)
        else: s = S(lib).OneCycleLR(o, max_lr=top, total_steps=10, base_momentum=lo, max_momentum=hi)
        out = []
        for i in range(4):
            for t in (lr, top, lo, hi): t.mul_(0.5)
            o.step(); s.step()
            g = o.param_groups[0]
            out.append([float(g[k]) for k in ('lr', 'momentum', 'max_momentum', 'base_momentum')] + [float(v) for v in s.base_lrs])
        return out
    a, b = run(litnn), run(torch)
    assert np.allclose(a, b, rtol=1e-6), (a, b)


def test_onecycle_annealing_functions_and_legacy_state_dict():
    "OneCycleLR._annealing_cos/_annealing_linear are static methods; a state dict of old PyTorch (anneal_func, no _anneal_func_type) still works."
    def run(lib):
        C = S(lib).OneCycleLR
        vals = [C._annealing_cos(3.0, 1.0, 0.3), C._annealing_linear(3.0, 1.0, 0.3)]
        o = opt(lib, momentum=0.9)
        s = C(o, max_lr=2.0, total_steps=8)
        del s._anneal_func_type
        sd = s.state_dict(); assert '_anneal_func_type' not in sd
        sd['anneal_func'] = C._annealing_linear
        s.load_state_dict(sd)
        for _ in range(6): o.step(); s.step(); vals.append(o.param_groups[0]['lr'])
        return vals
    a, b = run(litnn), run(torch)
    assert np.allclose(a, b, rtol=1e-12), (a, b)


# --- errors and warnings ---------------------------------------------------------------------------------------

def same_err(f):
    a, b = err(f, litnn), err(f, torch)
    assert a == b, f'litnn: {a}\ntorch: {b}'


def test_errors_match_torch():
    same_err(lambda lib: S(lib).StepLR(object(), 3))
    same_err(lambda lib: S(lib).StepLR(opt(lib), 3, last_epoch=4))
    same_err(lambda lib: S(lib).LambdaLR(opt(lib, lrs=(0.1, 0.2)), [lambda e: 1.0]))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, total_steps=0))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, total_steps=10.0))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, epochs=0, steps_per_epoch=3))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, epochs=2, steps_per_epoch=-3))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, total_steps=10, pct_start=1.5))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, total_steps=10, pct_start=1))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=1.0, total_steps=10, anneal_strategy='exp'))
    same_err(lambda lib: S(lib).OneCycleLR(opt(lib), max_lr=[1.0, 2.0], total_steps=10))
    same_err(lambda lib: S(lib).OneCycleLR(lib.optim.Optimizer([lib.nn.Parameter(lib.ones(1))], {'lr': 0.1}), max_lr=1.0, total_steps=10))
    def overstep(lib):
        o = opt(lib); s = S(lib).OneCycleLR(o, max_lr=1.0, total_steps=3)
        for _ in range(5): o.step(); s.step()
    same_err(overstep)


def test_get_lr_outside_step_warns():
    for lib in (litnn, torch):
        s = S(lib).StepLR(opt(lib), 3)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"): s.get_lr()


def test_scheduler_step_before_optimizer_step_warns():
    for lib in (litnn, torch):
        o = opt(lib); s = S(lib).StepLR(o, 3)
        with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"): s.step()
        o2 = opt(lib); s2 = S(lib).StepLR(o2, 3)
        o2.step()
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            s2.step()     # the right order: no warning


def test_base_class_get_lr_not_implemented():
    same_err(lambda lib: S(lib).LRScheduler(opt(lib)))


def test_old_base_class_name_is_a_subclass_as_torchs():
    "Old code subclasses `lr_scheduler._LRScheduler`: it is torch's LRScheduler under its old `__name__`."
    def make(lib, o):
        class Halving(lib.optim.lr_scheduler._LRScheduler):
            def get_lr(self): return [base * 0.5 ** self.last_epoch for base in self.base_lrs]
        return Halving(o)
    assert trace(litnn, make, 5) == trace(torch, make, 5)
    for lib in (litnn, torch):
        cls = lib.optim.lr_scheduler._LRScheduler
        assert cls.__name__ == '_LRScheduler' and cls.__mro__[1] is lib.optim.lr_scheduler.LRScheduler

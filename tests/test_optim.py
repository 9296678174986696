"""Optimizers side by side with torch.optim: the same weights and gradient sequence give the same parameters
(float64, tight tolerance) and the same state_dict, checkpoints load across the two libraries and training goes on
identically, and bad arguments raise torch's exception types and messages."""
import itertools, math, warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from nn_pairs import err

torch = pytest.importorskip('torch')

SHAPES = [(3, 4), (4,), (2, 2, 2)]


def arrays(seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def params(lib, arrs):
    return [lib.nn.Parameter(lib.tensor(a.copy())) for a in arrs]


def to_np(x):
    "A (nested) state dict with every tensor turned into a numpy array."
    if isinstance(x, (torch.Tensor, litnn.Tensor)): return x.detach().numpy().copy()
    if isinstance(x, dict): return {k: to_np(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return type(x)(to_np(v) for v in x)
    return x


def to_lib(lib, x):
    "A (nested) state dict with every tensor (of either library) turned into a `lib` tensor."
    if isinstance(x, (torch.Tensor, litnn.Tensor)): return lib.tensor(x.detach().numpy().copy())
    if isinstance(x, dict): return {k: to_lib(lib, v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return type(x)(to_lib(lib, v) for v in x)
    return x


def assert_same_tree(a, b, rtol, atol, path='sd'):
    "Equal structure (types, keys, lengths) and values; arrays compared with a tolerance, dtypes exactly."
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), path
        assert a.dtype == b.dtype and a.shape == b.shape, (path, a.dtype, b.dtype, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), (path, list(a), list(b) if isinstance(b, dict) else b)
        for k in a: assert_same_tree(a[k], b[k], rtol, atol, f'{path}[{k!r}]')
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (path, a, b)
        for i, (x, y) in enumerate(zip(a, b)): assert_same_tree(x, y, rtol, atol, f'{path}[{i}]')
    else: assert a == b and type(a) is type(b), (path, a, b)


def grad_seq(seed, n, dtype=np.float64, holes=False):
    "n steps of gradients for the SHAPES; with `holes`, some parameters get no gradient on some steps."
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        gs = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
        if holes and i % 3 == 1: gs[1] = None
        out.append(gs)
    return out


def run(lib, ps, opt, grads):
    for gs in grads:
        for p, g in zip(ps, gs): p.grad = None if g is None else lib.tensor(g.copy())
        opt.step()


def make(lib, name, kw, arrs, groups=None):
    "Parameters from `arrs` and the optimizer `name` on them: one group, or `groups` (index lists + options)."
    ps = params(lib, arrs)
    if groups is None: return ps, getattr(lib.optim, name)(ps, **kw)
    return ps, getattr(lib.optim, name)([{'params': [ps[i] for i in idx], **o} for idx, o in groups], **kw)


def compare(name, kw, steps=6, dtype=np.float64, groups=None, holes=False, seed=0):
    "Run the optimizer in both libraries; parameters, versions and state dicts must agree."
    rtol, atol = (1e-12, 1e-14) if dtype == np.float64 else (2e-5, 1e-6)
    arrs, grads = arrays(seed, dtype), grad_seq(seed + 1, steps, dtype, holes)
    (lp, lo), (tp, to) = make(litnn, name, kw, arrs, groups), make(torch, name, kw, arrs, groups)
    run(litnn, lp, lo, grads); run(torch, tp, to, grads)
    for a, b in zip(lp, tp):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
        assert a._version == b._version
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), rtol, atol)
    assert str(lo) == str(to)
    return lo, to


# --- the update rules, over grids of options -----------------------------------------------------------

SGD_GRID = [dict(lr=0.1, momentum=m, dampening=d, nesterov=n, weight_decay=wd, maximize=mx)
            for m, d, n, wd, mx in itertools.product([0, 0.9], [0, 0.3], [False, True], [0, 0.05], [False, True])
            if not (n and (m == 0 or d != 0))]

@pytest.mark.parametrize('kw', SGD_GRID, ids=str)
def test_sgd_matches_torch(kw): compare('SGD', kw)


ADAM_GRID = [dict(lr=0.01, betas=b, weight_decay=wd, amsgrad=ams, maximize=mx, eps=eps)
             for b, wd, ams, mx, eps in itertools.product([(0.9, 0.999), (0.3, 0.6)], [0, 0.1], [False, True],
                                                          [False, True], [1e-8, 1e-3])]

@pytest.mark.parametrize('kw', ADAM_GRID, ids=str)
@pytest.mark.parametrize('name', ['Adam', 'AdamW'])
def test_adam_and_adamw_match_torch(name, kw): compare(name, kw)


def test_adam_decoupled_weight_decay_is_adamw():
    arrs, grads = arrays(3), grad_seq(4, 5)
    (p1, o1), (p2, o2) = make(litnn, 'Adam', dict(weight_decay=0.1, decoupled_weight_decay=True), arrs), make(litnn, 'AdamW', dict(weight_decay=0.1), arrs)
    run(litnn, p1, o1, grads); run(litnn, p2, o2, grads)
    for a, b in zip(p1, p2): assert a.tolist() == b.tolist()


RMS_GRID = [dict(lr=0.01, alpha=a, momentum=m, centered=c, weight_decay=wd, maximize=mx)
            for a, m, c, wd, mx in itertools.product([0.99, 0.3], [0, 0.5], [False, True], [0, 0.1], [False, True])]

@pytest.mark.parametrize('kw', RMS_GRID, ids=str)
def test_rmsprop_matches_torch(kw): compare('RMSprop', kw)


@pytest.mark.parametrize('name,kw', [('SGD', dict(lr=0.1, momentum=0.9, nesterov=True)), ('Adam', dict(amsgrad=True)),
                                     ('AdamW', {}), ('RMSprop', dict(centered=True, momentum=0.3))])
def test_float32_matches_torch(name, kw): compare(name, kw, dtype=np.float32)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('name,kw', [('SGD', dict(lr=0.1, momentum=0.9)), ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
                                     ('Adam', {}), ('Adam', dict(amsgrad=True, weight_decay=0.1)), ('AdamW', dict(lr=0.01, weight_decay=0.1))])
def test_half_precision_steps_match_torch_bitwise(name, kw, dtype):
    """bfloat16 and float16 parameters: torch's `mul_`, `div_` and `addcdiv_` read their number in float32 and compute in
    float32, rounding once; numpy's `a *= 0.999` rounds the number to bfloat16 first (1.0: Adam's second moment never decayed).
    Sizes are multiples of 64: torch's `add_(alpha=)` on half precision takes its vectorized loop (one fused multiply-add,
    as litnn) only over whole pairs of vectors (32 or 64 elements); the scalar loop for the rest rounds `alpha * b` first."""
    rng = np.random.default_rng(5)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in [(8, 8), (64,), (2, 4, 16)]]
    grads = [[rng.standard_normal(a.shape).astype(np.float32) for a in arrs] for _ in range(8)]
    out = []
    for lib in (litnn, torch):
        dt = getattr(lib, dtype)
        ps = [lib.nn.Parameter(lib.tensor(a.copy()).to(dt)) for a in arrs]
        opt = getattr(lib.optim, name)(ps, **kw)
        for gs in grads:
            for p, g in zip(ps, gs): p.grad = lib.tensor(g.copy()).to(dt)
            opt.step()
        state = [v.float().numpy() for p in ps for k, v in sorted(opt.state[p].items()) if k != 'step']
        out.append([p.detach().float().numpy() for p in ps] + state)
    assert len(out[0]) == len(out[1])
    for a, b in zip(*out): np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('name,kw', [('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', {}), ('AdamW', dict(amsgrad=True)),
                                     ('RMSprop', dict(momentum=0.5))])
def test_groups_and_missing_gradients_match_torch(name, kw):
    "Two groups with their own options; a parameter without a gradient on some steps is skipped (no state either)."
    groups = [([0, 2], {}), ([1], {'lr': 0.05, 'weight_decay': 0.2})]
    compare(name, kw, steps=7, groups=groups, holes=True)


@settings(max_examples=15, deadline=None)
@given(lr=st.floats(1e-4, 1.0), m=st.floats(0, 0.99), wd=st.floats(0, 0.5), seed=st.integers(0, 2**16))
def test_sgd_random_hyperparameters(lr, m, wd, seed): compare('SGD', dict(lr=lr, momentum=m, weight_decay=wd), steps=4, seed=seed)


@settings(max_examples=15, deadline=None)
@given(lr=st.floats(1e-4, 1.0), b1=st.floats(0, 0.99), b2=st.floats(0, 0.999), wd=st.floats(0, 0.5), seed=st.integers(0, 2**16))
def test_adamw_random_hyperparameters(lr, b1, b2, wd, seed):
    compare('AdamW', dict(lr=lr, betas=(b1, b2), weight_decay=wd), steps=4, seed=seed)


def test_defaults_match_torch():
    for name in ['SGD', 'Adam', 'AdamW', 'RMSprop']:
        lo = getattr(litnn.optim, name)(params(litnn, arrays(0)))
        to = getattr(torch.optim, name)(params(torch, arrays(0)))
        assert lo.defaults == to.defaults, name
        assert str(lo) == str(to)


def test_step_returns_the_closure_loss_computed_with_grad():
    for lib in (litnn, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.SGD([w], lr=0.5)
        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss
        with lib.no_grad(): loss = opt.step(closure)   # the closure runs with gradients enabled all the same
        assert loss.item() == 5.0 and w.tolist() == [0.0, 0.0]
        assert opt.step() is None


def test_step_invalidates_saved_values_as_torch():
    "A graph built before the step saved the old parameter: backward through it must fail in both."
    for lib in (litnn, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        y = (w * w).sum()
        w.grad = lib.ones(2)
        lib.optim.SGD([w], lr=0.1).step()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"): y.backward()


# --- zero_grad -------------------------------------------------------------------------------------------

def test_zero_grad_matches_torch():
    def run_zero(lib, set_to_none):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([a, b])
        a.grad = lib.tensor([1.0, 2.0])
        opt.zero_grad(set_to_none=set_to_none)
        return (None if a.grad is None else a.grad.tolist()), b.grad
    for flag in (True, False): assert run_zero(litnn, flag) == run_zero(torch, flag)


def test_zero_grad_detaches_a_grad_with_history():
    for lib in (litnn, torch):
        w = lib.nn.Parameter(lib.ones(2))
        w.grad = lib.ones(2) * lib.ones(2, requires_grad=True)
        lib.optim.SGD([w]).zero_grad(set_to_none=False)
        assert w.grad.grad_fn is None and not w.grad.requires_grad and w.grad.tolist() == [0.0, 0.0]


# --- state_dict and load_state_dict ------------------------------------------------------------------------

OPTS = [('SGD', dict(lr=0.1, momentum=0.9, dampening=0.1)), ('Adam', dict(lr=0.01, amsgrad=True)),
        ('AdamW', dict(lr=0.01, weight_decay=0.1)), ('RMSprop', dict(lr=0.01, momentum=0.5, centered=True))]

@pytest.mark.parametrize('name,kw', OPTS)
def test_load_torch_state_dict_and_continue(name, kw):
    "Train torch 4 steps, load its state (as litnn tensors) into a fresh litnn optimizer over the same weights, go on together."
    groups = [([0], {}), ([1, 2], {'lr': 0.02})]
    arrs, grads = arrays(5), grad_seq(6, 8, holes=True)
    tp, to = make(torch, name, kw, arrs, groups)
    run(torch, tp, to, grads[:4])
    lp, lo = make(litnn, name, {}, [p.detach().numpy() for p in tp], groups)   # default options: the checkpoint brings them
    lo.load_state_dict(to_lib(litnn, to.state_dict()))
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 0, 0)
    run(torch, tp, to, grads[4:]); run(litnn, lp, lo, grads[4:])
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 1e-12, 1e-14)


@pytest.mark.parametrize('name,kw', OPTS)
def test_torch_loads_litnn_state_dict(name, kw):
    "The other way round: litnn's checkpoint, converted to torch tensors, loads into torch and continues the same."
    arrs, grads = arrays(7), grad_seq(8, 6)
    lp, lo = make(litnn, name, kw, arrs)
    run(litnn, lp, lo, grads[:3])
    tp, to = make(torch, name, {}, [p.detach().numpy() for p in lp])
    to.load_state_dict(to_lib(torch, lo.state_dict()))
    run(torch, tp, to, grads[3:]); run(litnn, lp, lo, grads[3:])
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_load_casts_state_to_the_parameter_dtype_and_keeps_step_float32():
    "float32 state loaded into float64 parameters: buffers become float64, `step` stays a float32 tensor (as torch)."
    def load(lib):
        src = lib.optim.Adam(params(lib, arrays(0, np.float32)))
        run(lib, src.param_groups[0]['params'], src, grad_seq(1, 2, np.float32))
        dst = lib.optim.Adam(params(lib, arrays(0)))
        dst.load_state_dict(src.state_dict())
        st_ = dst.state_dict()['state'][0]
        return {k: str(v.dtype).split('.')[-1] for k, v in st_.items()}, st_['step'].item()
    assert load(litnn) == load(torch) == ({'step': 'float32', 'exp_avg': 'float64', 'exp_avg_sq': 'float64'}, 2.0)


def test_load_copies_state():
    "Deliberate difference: torch shares loaded tensors that need no cast; litnn copies them."
    src = litnn.optim.SGD(params(litnn, arrays(0)), momentum=0.9)
    run(litnn, src.param_groups[0]['params'], src, grad_seq(1, 1))
    dst = litnn.optim.SGD(params(litnn, arrays(0)), momentum=0.9)
    sd = src.state_dict()
    dst.load_state_dict(sd)
    assert dst.state_dict()['state'][0]['momentum_buffer'] is not sd['state'][0]['momentum_buffer']
    assert dst.state_dict()['state'][0]['momentum_buffer'].tolist() == sd['state'][0]['momentum_buffer'].tolist()


def test_load_number_step_becomes_float32_tensor():
    lo = litnn.optim.Adam(params(litnn, arrays(0)))
    run(litnn, lo.param_groups[0]['params'], lo, grad_seq(1, 2))
    sd = lo.state_dict()
    sd['state'] = {k: {**v, 'step': 2} for k, v in sd['state'].items()}      # an old checkpoint's plain number
    lo2 = litnn.optim.Adam(params(litnn, arrays(0)))
    lo2.load_state_dict(sd)
    step = lo2.state[lo2.param_groups[0]['params'][0]]['step']
    assert isinstance(step, litnn.Tensor) and step.dtype == litnn.float32 and step.item() == 2.0


def test_load_fills_group_keys_missing_from_an_older_checkpoint():
    lo = litnn.optim.Adam(params(litnn, arrays(0)))
    sd = lo.state_dict()
    del sd['param_groups'][0]['decoupled_weight_decay']
    lo.load_state_dict(sd)
    assert lo.param_groups[0]['decoupled_weight_decay'] is False


def test_state_dict_keeps_param_names_and_shared_ids():
    def sd(lib):
        ps = params(lib, arrays(0))
        opt = lib.optim.SGD([('a', ps[0]), ('b', ps[1])], lr=0.1)
        opt.add_param_group({'params': [('c', ps[2])], 'lr': 0.2})
        return to_np(opt.state_dict())
    assert_same_tree(sd(litnn), sd(torch), 0, 0)


def test_state_dict_empty_before_any_step():
    for name in ['SGD', 'Adam', 'RMSprop']:
        assert getattr(litnn.optim, name)(params(litnn, arrays(0))).state_dict()['state'] == {}


# --- errors --------------------------------------------------------------------------------------------------

def same_err(f):
    "`f(lib)` raises the same exception type and message in both libraries."
    a, b = err(f, litnn), err(f, torch)
    assert a == b, f'litnn: {a}\ntorch: {b}'


BAD = [('SGD', dict(lr=-0.1)), ('SGD', dict(momentum=-0.5)), ('SGD', dict(weight_decay=-1)),
       ('SGD', dict(nesterov=True)), ('SGD', dict(momentum=0.9, dampening=0.5, nesterov=True)),
       ('Adam', dict(lr=-1.0)), ('Adam', dict(eps=-1e-8)), ('Adam', dict(betas=(1.0, 0.9))), ('Adam', dict(betas=(0.9, -0.1))),
       ('Adam', dict(weight_decay=-0.1)), ('Adam', dict(betas=(0, 0.9))), ('AdamW', dict(betas=(0.9, 1.5))),
       ('RMSprop', dict(lr=-0.01)), ('RMSprop', dict(alpha=-0.9)), ('RMSprop', dict(eps=-1.0)),
       ('RMSprop', dict(momentum=-0.1)), ('RMSprop', dict(weight_decay=-0.1))]

@pytest.mark.parametrize('name,kw', BAD, ids=str)
def test_invalid_hyperparameters(name, kw):
    same_err(lambda lib: getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(1))], **kw))


TENSOR_HYPER = [dict(lr=0.001, foreach=True), dict(lr=0.01, betas=(0.9, 0.99), foreach=True),
                dict(lr=0.01, betas=(0.9, 0.99), foreach=True), dict(lr=[0.1, 0.1]), dict(betas=([0.9, 0.9], 0.99))]

@pytest.mark.parametrize('name', ['Adam', 'AdamW'])
@pytest.mark.parametrize('i', range(len(TENSOR_HYPER)))
def test_tensor_lr_and_betas_refused_with_foreach(name, i):
    "Found by torch's optim_db error inputs: Adam/AdamW refuse a tensor lr or beta with foreach=True (not capturable)."
    def make(lib):
        kw = dict(TENSOR_HYPER[i])
        if i == 1: kw['betas'] = (lib.tensor(0.9), lib.tensor(0.99))
        if i == 2: kw['betas'] = (0.9, lib.tensor(0.99))     # mixed: the both-floats-or-both-tensors check first
        if i == 0 or i == 3: kw['lr'] = lib.tensor(kw['lr'])
        if i == 4: kw['betas'] = (lib.tensor([0.9, 0.9]), lib.tensor(0.99))
        return getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(1))], **kw)
    same_err(make)


def test_tensor_betas_become_0d_and_step_as_torch():
    out = []
    for lib in (litnn, torch):
        p = lib.nn.Parameter(lib.tensor([1., 2., 3.]))
        o = lib.optim.Adam([p], lr=lib.tensor(0.01), betas=(lib.tensor([0.9]), lib.tensor(0.99)))
        assert o.param_groups[0]['betas'][0].dim() == 0
        for _ in range(3):
            o.zero_grad(); (p ** 3).sum().backward(); o.step()
        out.append(p.detach().numpy().copy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


def test_invalid_learning_rate_message():
    assert err(lambda: litnn.optim.SGD([litnn.nn.Parameter(litnn.ones(1))], lr=-0.1)) == (ValueError, "Invalid learning rate: -0.1")


def test_param_group_errors():
    P = lambda lib: lib.nn.Parameter(lib.ones(2))
    same_err(lambda lib: lib.optim.SGD([]))
    same_err(lambda lib: lib.optim.SGD(P(lib)))
    same_err(lambda lib: lib.optim.SGD([P(lib), 3]))
    same_err(lambda lib: lib.optim.SGD([P(lib) * 2]))
    same_err(lambda lib: lib.optim.SGD([{'params': {P(lib)}}]))
    same_err(lambda lib: (lambda p: lib.optim.SGD([{'params': [p]}, {'params': [p]}]))(P(lib)))
    same_err(lambda lib: lib.optim.SGD([P(lib)]).add_param_group([P(lib)]))
    same_err(lambda lib: lib.optim.SGD([('a', P(lib)), P(lib)]))
    same_err(lambda lib: lib.optim.SGD([('a', P(lib))]).add_param_group({'params': [P(lib)]}))
    same_err(lambda lib: lib.optim.Optimizer([P(lib)], {}).step())
    assert err(lambda lib: lib.optim.SGD([P(lib) * 2]), litnn) == (ValueError, "can't optimize a non-leaf Tensor")


def test_set_of_parameters_is_accepted_as_torch():
    "A bare set goes through `list()` silently, as in torch 2.13 (no warning); a group's set is refused by both."
    for lib in (litnn, torch):
        ps = {lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.zeros(3))}
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            opt = lib.optim.SGD(ps, lr=0.1)
        assert {id(p) for p in opt.param_groups[0]['params']} == {id(p) for p in ps}
        for p in ps: p.grad = lib.ones_like(p)
        opt.step()
        assert sorted(float(p.sum()) for p in ps) == [pytest.approx(-0.3), pytest.approx(1.8)]
    same_err(lambda lib: lib.optim.SGD([{'params': {lib.nn.Parameter(lib.ones(2))}}]))


def test_retained_non_leaf_is_accepted_as_torch():
    for lib in (litnn, torch):
        h = lib.ones(2, requires_grad=True) * 2
        h.retain_grad()
        assert lib.optim.SGD([h]).param_groups[0]['params'][0] is h


def test_duplicate_parameter_in_a_group_warns():
    for lib in (litnn, torch):
        p = lib.nn.Parameter(lib.ones(2))
        with pytest.warns(UserWarning, match="duplicate parameters"): lib.optim.SGD([p, p])


def test_load_state_dict_errors():
    def build(lib, sizes):
        ps = params(lib, arrays(0))
        return lib.optim.SGD([{'params': ps[:n]} for n in sizes])
    same_err(lambda lib: build(lib, [2]).load_state_dict(build(lib, [1, 1]).state_dict()))
    same_err(lambda lib: build(lib, [2, 1]).load_state_dict(build(lib, [1, 2]).state_dict()))


def test_tensor_lr_accepted():
    lp, lo = make(litnn, 'SGD', dict(lr=litnn.tensor(0.1)), arrays(0))
    tp, to = make(torch, 'SGD', dict(lr=torch.tensor(0.1)), arrays(0))
    grads = grad_seq(1, 2)
    run(litnn, lp, lo, grads); run(torch, tp, to, grads)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)
    same_err(lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=lib.tensor([0.1, 0.2])))


def test_differentiable_is_accepted_and_a_leaf_step_refused_as_torch():
    # (tests/test_optim_renewed.py: differentiable steps without a graph match torch's; one needing a graph is refused)
    for lib in (litnn, torch):
        p = lib.nn.Parameter(lib.ones(1)); p.grad = lib.ones(1)
        opt = lib.optim.Adam([p], differentiable=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"): opt.step()


# --- a real model ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name,kw', [('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', dict(lr=0.01))])
def test_mlp_training_matches_torch(name, kw):
    "A small MLP trained 5 steps with each library's nn.Linear and optimizer: same weights."
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 4)), rng.standard_normal((8, 1))
    def train(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 1)).double()
        with lib.no_grad():
            for i, p in enumerate(net.parameters()): p.copy_(lib.tensor(np.random.default_rng(i).standard_normal(tuple(p.shape))))
        opt = getattr(lib.optim, name)(net.parameters(), **kw)
        for _ in range(5):
            opt.zero_grad()
            ((net(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()
        return [p.detach().numpy() for p in net.parameters()]
    for a, b in zip(train(litnn), train(torch)): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# --- on the GPU ---------------------------------------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")

@needs_gpu
@pytest.mark.parametrize('name,kw', OPTS)
def test_cuda_matches_cpu(name, kw):
    "The same run on CuPy arrays: the same parameters; buffers on the GPU, the step counter on the CPU (as torch)."
    arrs, grads = arrays(9), grad_seq(10, 5)
    def go(device):
        ps = [litnn.nn.Parameter(litnn.tensor(a.copy(), device=device)) for a in arrs]
        opt = getattr(litnn.optim, name)(ps, **kw)
        for gs in grads:
            for p, g in zip(ps, gs): p.grad = litnn.tensor(g.copy(), device=device)
            opt.step()
        return [p.detach().cpu().numpy() for p in ps], opt
    (cpu, _), (gpu, opt) = go('cpu'), go('cuda')
    for a, b in zip(cpu, gpu): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for s in opt.state.values():
        for k, v in s.items(): assert v.device.type == ('cpu' if k == 'step' else 'cuda'), k


@needs_gpu
def test_cuda_load_moves_state_to_the_parameters_device():
    src = litnn.optim.Adam(params(litnn, arrays(0)))
    run(litnn, src.param_groups[0]['params'], src, grad_seq(1, 2))
    ps = [litnn.nn.Parameter(litnn.tensor(a, device='cuda')) for a in arrays(0)]
    dst = litnn.optim.Adam(ps)
    dst.load_state_dict(src.state_dict())
    s = dst.state[ps[0]]
    assert (s['step'].device.type, s['exp_avg'].device.type, s['exp_avg_sq'].device.type) == ('cpu', 'cuda', 'cuda')


def _int_step_optimizer(L):
    class CountingOpt(L.optim.Optimizer):        # as many optimizers written outside torch (timm's): a Python int step
        def __init__(self, params, lr=0.1): super().__init__(params, dict(lr=lr))
        @L.no_grad()
        def step(self):
            for g in self.param_groups:
                for p in g['params']:
                    st = self.state[p]
                    st['step'] = st.get('step', 0) + 1
                    st['buf'] = st.get('buf', L.zeros_like(p)) + p.grad
                    p.sub_(g['lr'] * st['buf'] / st['step'])
    return CountingOpt

@pytest.mark.parametrize('lib', ['litnn', 'torch'])
def test_load_state_dict_keeps_plain_values_and_calls_setstate(lib):
    import copy
    L = litnn if lib == 'litnn' else pytest.importorskip('torch')
    Opt = _int_step_optimizer(L)
    seen = []
    class Fixing(Opt):
        def __setstate__(self, state): seen.append(sorted(state)); super().__setstate__(state)
    w = L.nn.Parameter(L.ones(2)); w.grad = L.ones(2); o = Opt([w]); o.step(); o.step()
    w2 = L.nn.Parameter(L.ones(2)); o2 = Fixing([w2])
    o2.load_state_dict(copy.deepcopy(o.state_dict()))
    assert type(o2.state[w2]['step']) is int and o2.state[w2]['step'] == 2
    assert seen == [['param_groups', 'state']]
    a = L.optim.Adam([w2]); st = a.state_dict(); st['state'] = {0: {'step': 3, 'exp_avg': L.zeros(2), 'exp_avg_sq': L.zeros(2)}}
    a.load_state_dict(st)                          # torch's Adam.__setstate__: a plain-number step becomes a float32 tensor
    assert isinstance(a.state[w2]['step'], L.Tensor) and a.state[w2]['step'].dtype == L.float32


def test_torch_style_optimizer_helpers_as_torch():
    "The private helpers optimizers copied from torch's source import from torch.optim.optimizer"
    import torch.optim.optimizer as T
    import litnn.optim.optimizer as L
    for n in ('_params_doc', '_foreach_doc', '_fused_doc', '_capturable_doc', '_differentiable_doc', '_maximize_doc'):
        assert getattr(L, n) == getattr(T, n), n
    for params in ([], [None]):
        assert L._default_to_fused_or_foreach([litnn.ones(1)] + params, False, True) == T._default_to_fused_or_foreach([torch.ones(1)] + params, False, True)
        assert L._default_to_fused_or_foreach([litnn.ones(1)] + params, False) == T._default_to_fused_or_foreach([torch.ones(1)] + params, False)
    assert L._get_scalar_dtype() is litnn.float32 and L._get_value(litnn.tensor(3.)) == T._get_value(torch.tensor(3.)) == 3.
    assert L._to_scalar(litnn.ones(1)).dim() == T._to_scalar(torch.ones(1)).dim() == 0
    with pytest.raises(RuntimeError, match='fused=True'): L._device_dtype_check_for_fused(litnn.ones(1, dtype=litnn.long))
    ps, gs = [litnn.zeros(2, dtype=litnn.complex64)], [litnn.ones(2, dtype=litnn.complex64)]
    L._view_as_real(ps, gs); assert ps[0].shape == gs[0].shape == (2, 2)
    class Opt(L.Optimizer):
        @L._use_grad_for_differentiable
        def step(self): return litnn.is_grad_enabled()
    assert Opt([litnn.ones(1)], dict(differentiable=False)).step() is False and Opt([litnn.ones(1)], dict(differentiable=True)).step() is True


@pytest.mark.parametrize('lib', [litnn, torch], ids=['litnn', 'torch'])
def test_pickling_keeps_defaults_state_and_groups_not_hooks(lib):
    "torch's `Optimizer.__getstate__`: a pickle (or deepcopy) holds defaults, state and groups; hooks (even lambdas) are left out."
    import pickle
    ps = params(lib, arrays(0))
    o = lib.optim.SGD(ps, lr=0.1, momentum=0.9)
    o.register_step_post_hook(lambda *a: None)
    run(lib, ps, o, grad_seq(1, 2))
    assert sorted(o.__getstate__()) == ['defaults', 'param_groups', 'state']
    o2 = pickle.loads(pickle.dumps(o))
    assert not o2._optimizer_step_post_hooks
    assert_same_tree(to_np(o2.state_dict()), to_np(o.state_dict()), 0, 0)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('cls,kw', [('RMSprop', dict(lr=0.01)), ('RMSprop', dict(lr=0.01, momentum=0.9)), ('NAdam', dict(lr=0.01)),
                                    ('NAdam', dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True))])
def test_half_precision_rmsprop_and_nadam_follow_torch_over_many_steps(cls, kw, dtype):
    """Their updates compute in float32 and round once, as torch's (numpy's `v *= 0.999` and `a += x / d` round the
    number, then each step, to the half dtype: RMSprop's parameters drifted 130%, NAdam's 47% in 150 steps)."""
    torch = pytest.importorskip('torch')
    def run(lib):
        rng = np.random.default_rng(0)
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(64).astype(np.float32)).to(getattr(lib, dtype)))
        opt = getattr(lib.optim, cls)([p], **kw)
        for _ in range(150):
            p.grad = lib.tensor(rng.standard_normal(64).astype(np.float32)).to(getattr(lib, dtype))
            opt.step()
        return p.detach().float().numpy()
    np.testing.assert_allclose(run(litnn), run(torch), rtol=2 ** -7, atol=1e-3)


@pytest.mark.parametrize('name', ['SGD', 'Adam', 'AdamW', 'Adagrad'])
def test_fused_and_foreach_together_refused(name):
    f = lambda lib: getattr(lib.optim, name)([lib.ones(2, requires_grad=True)], lr=0.1, fused=True, foreach=True)
    assert err(f, litnn) == err(f, torch)


LOADED_ALGORITHMS = ['SGD', 'Adam', 'AdamW', 'Adadelta', 'Adagrad', 'Adamax', 'ASGD', 'NAdam', 'RAdam', 'RMSprop',
                     'Rprop', 'Adafactor']


def _load_across(lib, src, dst, drop=(), plain_numbers=False):
    "Groups and state of a `dst` optimizer after loading the state dict of a `src` one (trimmed of keys `drop`)."
    p = lib.nn.Parameter(lib.arange(4.).reshape(2, 2)); q = lib.nn.Parameter(lib.ones(3))
    a = getattr(lib.optim, src)([p, q], lr=0.1)
    (p.sum() * 2 + (q * q).sum()).backward(); a.step()
    sd = a.state_dict()
    for g in sd['param_groups']:
        for k in drop: g.pop(k, None)
    if plain_numbers:     # a checkpoint from the days when steps (and ASGD's eta, mu, NAdam's mu_product) were numbers
        for s in sd['state'].values():
            for k in set(s) & {'step', 'eta', 'mu', 'mu_product'}: s[k] = float(s[k])
    b = getattr(lib.optim, dst)([p, q], lr=0.5)
    try: b.load_state_dict(sd)
    except Exception as e: return type(e).__name__, str(e)
    groups = [sorted((k, repr(v)) for k, v in g.items() if k != 'params') for g in b.param_groups]
    state = [sorted((k, type(v).__name__, str(getattr(v, 'dtype', '')).split('.')[-1]) for k, v in s.items())
             for s in b.state.values()]
    return groups, state


@pytest.mark.parametrize('src', LOADED_ALGORITHMS)
@pytest.mark.parametrize('dst', LOADED_ALGORITHMS)
def test_load_state_dict_fills_only_late_keys(src, dst):
    """Loading fills into the groups only the keys each torch optimizer's `__setstate__` names (those older versions
    lacked), not all of its defaults: another algorithm's state dict leaves this one's hyperparameters absent, and a
    state without the entries this algorithm keeps as tensors raises torch's KeyError."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert _load_across(litnn, src, dst) == _load_across(torch, src, dst)


LATE = ('foreach', 'maximize', 'differentiable', 'fused', 'capturable', 'nesterov', 'amsgrad', 'decoupled_weight_decay',
        'centered', 'momentum')


@pytest.mark.parametrize('name', LOADED_ALGORITHMS)
def test_load_old_checkpoint_restores_late_keys_and_tensor_steps(name):
    "A checkpoint without the keys added after it was written, its counters plain numbers: loaded as torch loads it."
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert _load_across(litnn, name, name, LATE, True) == _load_across(torch, name, name, LATE, True)


@pytest.mark.parametrize('name, kw', [('ASGD', {}), ('ASGD', dict(weight_decay=0.1, t0=2)), ('SGD', dict(momentum=0.9)),
                                      ('SGD', dict(momentum=0.9, nesterov=True, weight_decay=0.01))])
def test_float32_steps_equal_torch_to_the_bit(name, kw):
    """Optimizers whose steps use no transcendental function (whose last bit would be the math library's) give torch's
    float32 parameters exactly: each `add_(x, alpha=...)` is one fused multiply-add, as torch's kernel."""
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal(s).astype(np.float32) for s in [(5, 7), (7,), (3,)]]
    gs = [[rng.standard_normal(w.shape).astype(np.float32) for w in ws] for _ in range(15)]
    out = []
    for lib in (litnn, torch):
        ps = [lib.nn.Parameter(lib.tensor(w.copy())) for w in ws]
        opt = getattr(lib.optim, name)(ps, lr=0.01, **kw)
        for g in gs:
            for p, gg in zip(ps, g): p.grad = lib.tensor(gg)
            opt.step()
        out.append([p.detach().numpy() for p in ps])
    for a, b in zip(*out): np.testing.assert_array_equal(a, b)

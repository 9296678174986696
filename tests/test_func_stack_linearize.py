"""litnn.func.stack_module_state, functionalize and linearize (nbs/reference/func/eager_transforms) against torch.func."""
import numpy as np
import pytest
import litnn
torch = pytest.importorskip('torch')
import torch.func


def same(ours, theirs, tol=1e-6):
    "Trees of tensors equal in structure, shape, requires_grad and value."
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs): same(o, t, tol)
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        for k in theirs: same(ours[k], theirs[k], tol)
    else:
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype).replace('litnn', 'torch') == str(theirs.dtype)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def test_module_paths():
    for n in ('stack_module_state', 'functionalize', 'linearize'):
        assert getattr(litnn.func, n).__module__ == getattr(torch.func, n).__module__.replace('torch', 'litnn')
        assert n in litnn.func.__all__


def models(T, make):
    T.manual_seed(0)
    ms = [make(T) for _ in range(3)]
    return ms


def copy_into(lms, tms):
    for lm, tm in zip(lms, tms):
        lm.load_state_dict({k: litnn.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})


MAKERS = [lambda T: T.nn.Linear(3, 2),
          lambda T: T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.Linear(4, 2)),
          lambda T: T.nn.BatchNorm1d(3)]


@pytest.mark.parametrize('make', MAKERS)
def test_stack_module_state(make):
    tms, lms = models(torch, make), models(litnn, make)
    copy_into(lms, tms)
    (tp, tb), (lp, lb) = torch.func.stack_module_state(tms), litnn.func.stack_module_state(lms)
    same((lp, lb), (tp, tb))
    for o, t in zip([*lp.values(), *lb.values()], [*tp.values(), *tb.values()]):
        assert (o.requires_grad, o.is_leaf, o.grad_fn is None) == (t.requires_grad, t.is_leaf, t.grad_fn is None)


def test_stack_module_state_ensemble_with_vmap():
    tms, lms = models(torch, MAKERS[0]), models(litnn, MAKERS[0])
    copy_into(lms, tms)
    data = np.random.default_rng(0).standard_normal((5, 3)).astype('float32')
    outs = []
    for T, ms in ((torch, tms), (litnn, lms)):
        p, b = T.func.stack_module_state(ms)
        out = T.func.vmap(lambda p, b, x: T.func.functional_call(ms[0], (p, b), (x,)), (0, 0, None))(p, b, T.tensor(data))
        out.sum().backward()
        outs.append((out, p['weight'].grad, ms[0].weight.grad))
    (to, tg, tmg), (lo, lg, lmg) = outs
    same((lo, lg), (to, tg))
    assert lmg is None and tmg is None


def test_stack_module_state_frozen_and_errors():
    def story(T):
        out = []
        for bad in ([], [T.nn.Linear(2, 3), T.nn.Linear(2, 3).eval()], [T.nn.Linear(2, 3), T.nn.Conv1d(2, 3, 1)]):
            with pytest.raises(RuntimeError) as e: T.func.stack_module_state(bad)
            out.append(str(e.value))
        a, b = T.nn.Linear(2, 3), T.nn.Linear(2, 3)
        a.weight.requires_grad_(False)
        with pytest.raises(RuntimeError) as e: T.func.stack_module_state([a, b])
        out.append(str(e.value))
        b.weight.requires_grad_(False)
        p, _ = T.func.stack_module_state(T.nn.ModuleList([a, b]))
        out.append({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in p.items()})
        return out
    assert story(litnn) == story(torch)


def test_functionalize():
    def f(T):
        def fn(a, b=None):
            c = (a + 1).view(-1)
            c.add_(1)
            a.mul_(2)
            return c, {'k': b}
        return fn
    def story(T):
        x, y = T.ones(2, 2), T.ones(2)
        out = T.func.functionalize(f(T))(x, b=y)
        v = T.zeros(2, 2)
        view = T.func.functionalize(lambda a: a.view(-1))(v)
        view.add_(1)
        z = T.zeros(2)
        return [out[0].tolist(), out[1]['k'].tolist(), x.tolist(), v.tolist(), T.func.functionalize(f(T)).__name__,
                T.func.functionalize(lambda a: a)(z) is z, T.func.functionalize(lambda a: 3)(z)]
    assert story(litnn) == story(torch)
    x = torch.ones(2, requires_grad=True), litnn.ones(2, requires_grad=True)
    outs = [T.func.functionalize(lambda a: (a * 2).add_(1))(v) for T, v in zip((torch, litnn), x)]
    assert outs[0].requires_grad == outs[1].requires_grad == True and outs[0].tolist() == outs[1].tolist()
    for T in (torch, litnn):
        with pytest.raises(RuntimeError) as e: T.func.functionalize(f(T), remove='views')
        assert str(e.value).startswith("functionalize(f, remove='mutations'): received invalid argument for remove=views. Valid options are:\n")
    msgs = []
    for T in (torch, litnn):
        with pytest.raises(RuntimeError) as e: T.func.functionalize(f(T), remove='x')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


FUNCS = [
    (lambda T: T.sin, [(3,)]),
    (lambda T: (lambda a, b: (a.sin() * b, {'s': (a * a).sum()})), [(2,), (2,)]),
    (lambda T: (lambda a: a @ a.T + a.exp().sum()), [(3, 2)]),
    (lambda T: (lambda ab: ab[0].tanh() * ab[1]['w']), [((4,), {'w': (4,)})]),
]


def build(shapes, T, rng):
    if isinstance(shapes, tuple) and all(isinstance(s, int) for s in shapes):
        return T.tensor(rng.standard_normal(shapes))
    if isinstance(shapes, dict): return {k: build(v, T, rng) for k, v in shapes.items()}
    return type(shapes)(build(s, T, rng) for s in shapes)


@pytest.mark.parametrize('i', range(len(FUNCS)))
def test_linearize_matches_torch(i):
    make, shapes = FUNCS[i]
    results = []
    for T in (torch, litnn):
        primals = build(shapes, T, np.random.default_rng(1))
        out, jvp_fn = T.func.linearize(make(T), *primals)
        res = [out]
        for seed in (2, 3):
            tangents = build(shapes, T, np.random.default_rng(seed))
            res.append(jvp_fn(*tangents))
            res.append(T.func.jvp(make(T), tuple(primals), tuple(tangents))[1])
        results.append(res)
    same(results[1], results[0], 1e-10)


def test_linearize_checks_and_grad():
    msgs = []
    for T in (torch, litnn):
        out, fn = T.func.linearize(lambda a, b: a * b, T.zeros(2), T.ones(2))
        m = []
        for bad in [(T.ones(3), T.ones(2)), (T.ones(2, dtype=T.float64), T.ones(2))]:
            with pytest.raises(RuntimeError) as e: fn(*bad)
            m.append(str(e.value).replace('litnn', 'torch'))
        for bad in [(T.ones(2),), ([T.ones(2)], T.ones(2))]:
            with pytest.raises(RuntimeError) as e: fn(*bad)
            s = str(e.value)
            assert s.startswith('Expected the tangents ') and ' to have the same argspec as the primals ' in s
        with pytest.raises(TypeError): T.func.linearize(T.sin, 3.0)
        x = T.tensor([1., 2., 3.], requires_grad=True)
        out, fn = T.func.linearize(lambda v: (v * v).sum(), x)
        m.append((out.requires_grad, out.item(), fn(T.ones(3)).item()))
        out, fn = T.func.linearize(lambda v: v * 2, T.ones(4))
        m.append((out.requires_grad, fn(T.ones(4)).requires_grad, fn(T.ones(4)).tolist()))
        msgs.append(m)
    assert msgs[0] == msgs[1]

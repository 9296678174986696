"""litnn.autograd.functional side by side with torch.autograd.functional: vjp, jvp, jacobian, hessian,
vhp, hvp on the same functions and inputs (float64), tuple and tensor forms, create_graph (results
differentiable again), strict mode, and the errors."""
import numpy as np
import pytest

import litnn
from nn_pairs import err, same

torch = pytest.importorskip('torch')


def r(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def plain(x):
    "Nested results as rounded lists, with requires_grad."
    if isinstance(x, (tuple, list)): return tuple(plain(e) for e in x)
    if isinstance(x, (litnn.Tensor, torch.Tensor)): return (np.round(x.detach().numpy(), 9).tolist(), x.requires_grad)
    return x


FUNCS = {
    'square': (lambda lib, a: a * a, [(3,)]),
    'matrix': (lambda lib, a: (a @ a.T).tanh(), [(2, 3)]),
    'two_in': (lambda lib, a, b: a.sin() * b, [(3,), (3,)]),
    'two_out': (lambda lib, a: (a.exp(), (a * a).sum()), [(2,)]),
    'two_in_two_out': (lambda lib, a, b: (a * a, a.sum() * b.cos()), [(2,), (3,)]),
    'unused_input': (lambda lib, a, b: a * 2, [(2,), (2,)]),
    'scalar': (lambda lib, a: (a ** 3).sum(), [(3,)]),
}


def call(lib, fname, name, tuple_inputs=None, **kw):
    f, shapes = FUNCS[name]
    xs = tuple(lib.tensor(r(s, i)) for i, s in enumerate(shapes))
    inputs = xs if (tuple_inputs if tuple_inputs is not None else len(xs) > 1) else xs[0]
    fn = getattr(lib.autograd.functional, fname)
    return fn(lambda *a: f(lib, *a), inputs, **kw)


@pytest.mark.parametrize('name', FUNCS)
@pytest.mark.parametrize('create_graph', [False, True])
def test_jacobian(name, create_graph):
    same(lambda lib: plain(call(lib, 'jacobian', name, create_graph=create_graph)))
    same(lambda lib: plain(call(lib, 'jacobian', name, tuple_inputs=True, vectorize=True)))


@pytest.mark.parametrize('name', ['scalar', 'two_in'])
def test_hessian(name):
    f = FUNCS[name][0]
    scalar = (lambda lib, *a: f(lib, *a).sum()) if name != 'scalar' else f
    def h(lib, **kw):
        xs = tuple(lib.tensor(r(s, i)) for i, s in enumerate(FUNCS[name][1]))
        return lib.autograd.functional.hessian(lambda *a: scalar(lib, *a), xs if len(xs) > 1 else xs[0], **kw)
    same(lambda lib: plain(h(lib)))
    same(lambda lib: plain(h(lib, create_graph=True)))


def vs(lib, shapes, seed=10):
    t = tuple(lib.tensor(r(s, seed + i)) for i, s in enumerate(shapes))
    return t if len(t) > 1 else t[0]


@pytest.mark.parametrize('name', FUNCS)
@pytest.mark.parametrize('create_graph', [False, True])
def test_vjp_and_jvp(name, create_graph):
    f, shapes = FUNCS[name]
    def out_shapes(lib):
        o = f(lib, *(lib.tensor(r(s, i)) for i, s in enumerate(shapes)))
        return [tuple(t.shape) for t in (o if isinstance(o, tuple) else (o,))]
    same(lambda lib: plain(call(lib, 'vjp', name, v=vs(lib, out_shapes(lib)), create_graph=create_graph)))
    same(lambda lib: plain(call(lib, 'jvp', name, v=vs(lib, shapes), create_graph=create_graph)))


@pytest.mark.parametrize('fname', ['vhp', 'hvp'])
@pytest.mark.parametrize('create_graph', [False, True])
def test_vhp_hvp(fname, create_graph):
    same(lambda lib: plain(call(lib, fname, 'scalar', v=vs(lib, [(3,)]), create_graph=create_graph)))
    g = lambda lib, a, b: (a.sin() * b * b).sum()
    same(lambda lib: plain(getattr(lib.autograd.functional, fname)(lambda *t: g(lib, *t), vs(lib, [(2,), (2,)], 0), v=vs(lib, [(2,), (2,)], 5))))


def test_results_differentiable_with_create_graph():
    def run(lib):
        x = lib.tensor(r((3,), 0), requires_grad=True)
        J = lib.autograd.functional.jacobian(lambda a: a.sin() * a, x, create_graph=True)
        J.sum().backward()
        return x.grad.tolist()
    same(run)


def test_v_none_for_scalars():
    same(lambda lib: plain(lib.autograd.functional.vjp(lambda a: (a * a).sum(), lib.tensor([1., 2.], dtype=lib.float64))))
    same(lambda lib: plain(lib.autograd.functional.jvp(lambda a: a * a * 3, lib.tensor([2.], dtype=lib.float64))))
    same(lambda lib: plain(lib.autograd.functional.hvp(lambda a: (a ** 4).sum(), lib.tensor([2.], dtype=lib.float64))))


ERRORS = [
    ('vjp', lambda lib: (lambda a: a * 2, lib.tensor([1., 2.]))),
    ('jvp', lambda lib: (lambda a: a * 2, lib.tensor([1., 2.]))),
    ('hvp', lambda lib: (lambda a: (a ** 3).sum(), lib.tensor([1., 2.]))),
    ('hessian', lambda lib: (lambda a: a, lib.tensor([1., 2.]))),
    ('hessian', lambda lib: (lambda a: (a.sum(), a.sum()), lib.tensor([1., 2.]))),
    ('vhp', lambda lib: (lambda a: a, lib.tensor([1., 2.]), lib.ones(2))),
    ('vjp', lambda lib: (lambda a: a * 2, lib.tensor([1., 2.]), lib.ones(3))),
    ('vjp', lambda lib: (lambda a: a * 2, lib.tensor([1., 2.]), (lib.ones(2), lib.ones(2)))),
    ('vjp', lambda lib: (lambda a, b: (a, b), (lib.ones(2), lib.ones(2)), (lib.ones(2),))),
    ('vjp', lambda lib: (lambda a, b: (a, b), (lib.ones(2), lib.ones(2)), (lib.ones(2), lib.ones(3)))),
    ('jacobian', lambda lib: (lambda a: 3, lib.tensor([1., 2.]))),
    ('jacobian', lambda lib: (lambda a: a, [lib.tensor([1., 2.])])),
    ('jacobian', lambda lib: (lambda a, b: a, (lib.tensor([1., 2.]), 3))),
]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    fname, args = ERRORS[i]
    same(lambda lib: err(getattr(lib.autograd.functional, fname), *args(lib)))


STRICT = [
    ('jacobian', lambda lib: (lambda a: lib.ones(2), lib.tensor([1., 2.])), {}),
    ('jacobian', lambda lib: (lambda a, b: a * 2, (lib.tensor([1., 2.]), lib.tensor([1., 2.]))), {}),
    ('jacobian', lambda lib: (lambda a: a * 2, lib.tensor([1., 2.])), {'create_graph': True}),
    ('jacobian', lambda lib: (lambda a: a * 2, lib.tensor([1., 2.])), {'vectorize': True}),
    ('vjp', lambda lib: (lambda a, b: a * 2, (lib.tensor([1., 2.]), lib.tensor([1., 2.])), lib.ones(2)), {}),
    ('jvp', lambda lib: (lambda a, b: a * 2, (lib.tensor([1., 2.]), lib.tensor([1., 2.])), (lib.ones(2), lib.ones(2))), {}),
    ('hessian', lambda lib: (lambda a: a.sum() * 2, lib.tensor([1., 2.])), {}),
    ('vhp', lambda lib: (lambda a: a.sum() * 2, lib.tensor([1., 2.]), lib.ones(2)), {}),
    ('hvp', lambda lib: (lambda a: a.sum() * 2, lib.tensor([1., 2.]), lib.ones(2)), {}),
]


@pytest.mark.parametrize('i', range(len(STRICT)))
def test_strict(i):
    fname, args, kw = STRICT[i]
    same(lambda lib: err(getattr(lib.autograd.functional, fname), *args(lib), strict=True, **kw))
    same(lambda lib: plain(getattr(lib.autograd.functional, fname)(*args(lib), **{k: v for k, v in kw.items() if k != 'vectorize'})))


def test_strategies():
    same(lambda lib: err(lib.autograd.functional.jacobian, lambda a: a * 2, lib.ones(2), strategy='forward-mode'))
    same(lambda lib: err(lib.autograd.functional.jacobian, lambda a: a * 2, lib.ones(2), strategy='sideways'))
    same(lambda lib: err(lib.autograd.functional.jacobian, lambda a: a * 2, lib.ones(2), strategy='forward-mode', vectorize=True, create_graph=True))
    same(lambda lib: plain(lib.autograd.functional.jacobian(lambda a: a * a, lib.tensor([1., 2.], dtype=lib.float64), strategy='forward-mode', vectorize=True)))


def test_callers_tensors_untouched():
    x = litnn.tensor([1., 2.], requires_grad=True)
    J = litnn.autograd.functional.jacobian(lambda a: a * a, x)
    assert x.grad is None and not J.requires_grad


def test_construct_standard_basis_for_matches_torch():
    "The private helper torch's own functional tests call: identity blocks with each tensor's dtype."
    import torch.autograd.functional as TF
    import litnn.autograd.functional as LF
    for shapes, dtypes in [([(2, 3)], ['float32']), ([(1,), (), ()], ['float32'] * 3),
                           ([(2,), (), (3,)], ['float64', 'float32', 'float64']), ([(2, 3), (3,), (3, 4, 2)], ['float32'] * 3)]:
        lt = tuple(litnn.zeros(s, dtype=getattr(litnn, d)) for s, d in zip(shapes, dtypes))
        tt = tuple(torch.zeros(s, dtype=getattr(torch, d)) for s, d in zip(shapes, dtypes))
        numels = tuple(t.numel() for t in tt)
        for a, b in zip(LF._construct_standard_basis_for(lt, numels), TF._construct_standard_basis_for(tt, numels)):
            assert str(a.dtype).split('.')[-1] == str(b.dtype).split('.')[-1]
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_jacobian_forward_mode_dtype_follows_outputs():
    "Forward mode builds the Jacobian from output tangents (the output's dtype); reverse mode from input gradients."
    x0, y0 = r(3, 0), r(3, 1)
    def run(lib, **kw):
        f = lambda x, y: ((x * y).float(), (x * y).double())
        jac = lib.autograd.functional.jacobian(f, (lib.tensor(x0), lib.tensor(y0, dtype=lib.float32)), **kw)
        return [[(str(j.dtype).split('.')[-1], np.round(j.double().numpy(), 5).tolist()) for j in row] for row in jac]
    for kw in (dict(), dict(vectorize=True), dict(vectorize=True, strategy="forward-mode")):
        assert run(litnn, **kw) == run(torch, **kw)

"""In-place variants (x.op_()) against torch 2.13: the returned object is the input, its values after, gradients through
an in-place op on a non-leaf, and the refusal of an in-place op on a leaf that requires grad. Inputs are those on
which torch's OpInfo samples showed a difference."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

X = np.random.default_rng(0).uniform(0.5, 1.5, (3, 4))
Y = np.random.default_rng(1).uniform(0.5, 1.5, (3, 4))

# name, in-place call on (lib, x, y)
CASES = [
    ('cumprod_', lambda L, x, y: x.cumprod_(0)),
    ('cumprod_ dim 1', lambda L, x, y: x.cumprod_(1)),
    ('nextafter_', lambda L, x, y: x.nextafter_(y)),
    ('conj_physical_ real', lambda L, x, y: x.conj_physical_()),
    ('torch.conj_physical_ real', lambda L, x, y: L.conj_physical_(x)),
    ('dropout1d unbatched', lambda L, x, y: L.nn.functional.dropout1d(x, 0.5, training=False, inplace=True)),
    ('dropout3d unbatched', lambda L, x, y: L.nn.functional.dropout3d(x.reshape(1, 1, 3, 4), 0., training=True, inplace=True)),
]


def run(lib, f, leaf):
    x0 = lib.tensor(X, requires_grad=True)
    y = lib.tensor(Y, requires_grad=True)
    x = x0 if leaf else x0.clone()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            r = f(lib, x, y)
        except Exception as e:
            return type(e)
    same = r is x
    (r * lib.arange(r.numel(), dtype=lib.float64).reshape(r.shape).cos()).sum().backward()
    return same, x.detach().numpy(), x0.grad.numpy(), None if y.grad is None else y.grad.numpy()


@pytest.mark.parametrize('name,f', CASES, ids=[c[0] for c in CASES])
def test_inplace_on_a_non_leaf(name, f):
    t, l = run(torch, f, False), run(litnn, f, False)
    assert not isinstance(t, type) and not isinstance(l, type), (t, l)
    if 'dropout3d' not in name:           # (there the result is a reshaped view of the input)
        assert t[0] and l[0]              # returns the input itself
    for a, b in zip(t[1:], l[1:]):
        if a is None or b is None:
            assert (a is None or not a.any()) and (b is None or not b.any())
        else:
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('name,f', CASES, ids=[c[0] for c in CASES])
def test_inplace_on_a_leaf_that_requires_grad_raises(name, f):
    t, l = run(torch, f, True), run(litnn, f, True)
    assert t is RuntimeError and l is RuntimeError


def test_conj_physical_of_a_real_tensor_is_a_new_version():
    for lib in (torch, litnn):
        x = lib.zeros(2)
        v = x._version
        assert x.conj_physical_() is x and x._version == v + 1


@pytest.mark.parametrize('op', ['unsqueeze_', 'squeeze_', 't_'])
def test_inplace_view_op_on_a_view_of_a_leaf_raises(op):
    for lib in (torch, litnn):
        x = lib.ones(3, 4, requires_grad=True)
        v = x.view(1, 3, 4) if op == 'squeeze_' else x.view(3, 4)
        with pytest.raises(RuntimeError, match='view of a leaf'):
            getattr(v, op)(*((0,) if op != 't_' else ()))

"""In-place variants (x.op_()) against torch 2.13: the returned object is the input, its values after, gradients through
an in-place op on a non-leaf, and the refusal of an in-place op on a leaf that requires grad. Inputs are those on
which torch's OpInfo samples showed a difference."""
import warnings
import numpy as np, pytest
import litnn
from torch_pairs import same_message
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


# (method, self's dtype and value, other): a result dtype self cannot hold, for which the op also has no kernel
CAST_FIRST = [('bitwise_and_', 'bool', True, ('float16', 1.)), ('bitwise_and_', 'bool', True, 1.5), ('bitwise_or_', 'int64', 1, 1.5),
              ('bitwise_and_', 'int64', 1, ('float32', 1.)), ('remainder_', 'float32', 1., ('complex64', 1j)), ('remainder_', 'float32', 1., 1j),
              ('atan2_', 'float32', 1., ('complex64', 1j)), ('bitwise_left_shift_', 'bool', True, ('float32', 1.)),
              ('fmod_', 'int64', 1, ('complex64', 1j)), ('gcd_', 'int64', 1, ('float32', 1.)), ('lcm_', 'int16', 1, ('float32', 1.)),
              ('xlogy_', 'float32', 1., ('complex64', 1j)), ('floor_divide_', 'int16', 1, ('complex64', 1j)),
              # ... and where self holds it: the missing kernel's error, as torch's
              ('gcd_', 'float32', 1., ('int64', 1)), ('bitwise_xor_', 'float32', 1., ('int8', 1)), ('bitwise_xor_', 'complex64', 1j, ('int64', 1)),
              ('remainder_', 'complex64', 1j, ('int64', 1)), ('lerp_', 'int64', 1, ('int64', 2), 0.5)]

@pytest.mark.parametrize('case', CAST_FIRST, ids=lambda c: f'{c[0]}-{c[1]}-{c[3]}')
def test_inplace_checks_the_cast_before_the_kernel_as_torch(case):
    """torch computes an in-place op's result dtype and refuses one `self` cannot hold ("result type Float can't be cast
    to the desired output type Bool") before it looks for a kernel of that dtype (NotImplementedError): same error, same
    message, and `self` unchanged."""
    name, dtype, value, other, *rest = case
    def run(L):
        x = L.tensor([value], dtype=getattr(L, dtype))
        o = L.tensor([other[1]], dtype=getattr(L, other[0])) if isinstance(other, tuple) else other
        try: getattr(x, name)(o, *rest)
        finally: assert x.tolist() == [value]
    same_message(run)


# In-place ops torch records under the op's own node (PowBackward0, TrilBackward0, GtBackward0/1...), not a copy's
NODE_CASES = {
    'square_': lambda L, b, o: b.square_(), 'cumsum_': lambda L, b, o: b.cumsum_(1), 'tril_': lambda L, b, o: b.tril_(),
    'triu_': lambda L, b, o: b.triu_(1), 'remainder_': lambda L, b, o: b.remainder_(0.7),
    'remainder_ tensor': lambda L, b, o: b.remainder_(o), 'gt_': lambda L, b, o: b.gt_(0.5), 'le_ tensor': lambda L, b, o: b.le_(o),
    'eq_': lambda L, b, o: b.eq_(1.0), 'ne_ tensor': lambda L, b, o: b.ne_(o)}


def _node_run(L, f, view):
    a = L.tensor([[0.5, -1.5, 2.0], [1.0, 0.0, -0.3], [2.5, 1.5, -2.0]], requires_grad=True)
    o = L.tensor([1.5, 0.5, -0.25], requires_grad=True)
    b = a * 1
    f(L, b[1:] if view else b, o)
    (b * L.arange(9.).view(3, 3).cos()).sum().backward()
    return (type(b.grad_fn).__name__, b.detach().numpy(), a.grad.numpy(), None if o.grad is None else o.grad.numpy())


@pytest.mark.parametrize('view', [False, True])
@pytest.mark.parametrize('name', NODE_CASES)
def test_inplace_records_the_ops_own_node_as_torch(name, view):
    got, want = _node_run(litnn, NODE_CASES[name], view), _node_run(torch, NODE_CASES[name], view)
    assert got[0] == want[0]                 # the node's name (CopySlices for a view)
    for g, w in zip(got[1:], want[1:]):
        assert (g is None) == (w is None)
        if w is not None: np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('op', ['cumsum', 'cumprod'])
def test_scans_have_no_bool_kernel_as_torch(op):
    for L in (litnn, torch):
        x = L.tensor([True, False, True])
        with pytest.raises(NotImplementedError, match=f'"{op}_out_cpu" not implemented for \'Bool\''): getattr(x.clone(), op + '_')(0)
        with pytest.raises(NotImplementedError, match=f'"{op}_out_cpu" not implemented for \'Bool\''): getattr(L, op)(x, 0, dtype=L.bool)
    for d in ('int32', 'int8'):    # in place the scan runs in self's dtype: int8 wraps as torch's
        got, want = (getattr(L.tensor([100, 100, 100], dtype=getattr(L, d)), op + '_')(0) for L in (litnn, torch))
        assert got.tolist() == want.tolist() and str(got.dtype)[-4:] == str(want.dtype)[-4:]


@pytest.mark.parametrize('dtype', ['float32', 'int64', 'bool', 'complex64', 'float16'])
@pytest.mark.parametrize('src', [0.5, 2.7, True, 3, np.float64(1.5), np.int32(4), [1, 2, 3], None, 'a', 2**70])
def test_copy_takes_a_number_as_torch(dtype, src):
    def run(L):
        try: return L.zeros(3, dtype=getattr(L, dtype)).copy_(src).tolist()
        except Exception as e: return type(e), str(e)
    assert run(litnn) == run(torch)


def test_copy_non_blocking_is_a_bool_as_torch():
    for L in (litnn, torch):
        with pytest.raises(TypeError, match=r"copy_\(\): argument 'non_blocking' \(position 2\) must be bool, not Tensor"):
            L.zeros(3).copy_(L.ones(3), L.ones(3))


@pytest.mark.parametrize('call', ['L.tril(x, 0.5)', 'x.tril_(0.5)', 'x.triu(L.tensor(1))', 'x.tril_(np.int64(1))', 'L.tril(x, True)',
                                  'x.triu_(L.ones(2))', 'L.triu(x, L.tensor(-1))', 'x.triu(1.5)'])
def test_triangle_diagonal_is_an_int_as_torch(call):
    def run(L):
        x = L.ones(3, 3)
        try: return eval(call).sum().item()
        except Exception as e: return type(e), str(e)
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('name', ['tril_', 'triu_'])
@pytest.mark.parametrize('dtype', ['bool', 'float32', 'int64', 'complex64', 'float16', 'uint8'])
def test_triangle_in_place_on_an_expanded_tensor_as_torch(name, dtype):
    # torch's kernel writes only the zeros, through the memory the expanded rows share (test_tensor_creation_ops.py's
    # test_triu_tril); litnn wrote them as an int64 0, which numpy refused to cast into a bool array
    def run(L):
        base = L.empty(3, 3, dtype=getattr(L, dtype)).fill_(2)
        x = base.expand(2, 3, 3)
        r = getattr(x, name)(1 if name == 'triu_' else -1)
        return r is x, x.tolist(), base.tolist(), str(x.dtype).split('.')[-1]
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('name', ['tril_', 'triu_'])
@pytest.mark.parametrize('shapes', [((3, 3), (2, 3, 3)), ((1, 3), (3, 3)), ((3, 3, 1), (3, 3, 3)), ((1, 3, 3, 3), (2, 3, 3, 3)),
                                    ((3, 1, 3, 3), (3, 2, 3, 3)), ((3, 3, 1, 3), (3, 3, 3, 3)), ((1, 1, 2, 3, 3), (2, 1, 2, 3, 3)),
                                    ((3, 1, 1, 3, 3), (3, 2, 1, 3, 3))])
def test_triangle_in_place_on_expanded_batches_as_torch(name, shapes):
    # torch writes an expanded tensor in place up to 3 dims, and beyond only if its batch dims step as a contiguous batch
    # of matrices (the first may be expanded); otherwise its kernel computes a copy, and copying back refuses the overlap
    def run(L):
        base = L.arange(float(np.prod(shapes[0]))).reshape(shapes[0]) + 1
        x = base.expand(*shapes[1])
        try: getattr(x, name)(1)
        except RuntimeError as e: return str(e), base.tolist()
        return x.tolist(), base.tolist()
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('dtype', ['bool', 'int64', 'float32', 'float64', 'complex64'])
@pytest.mark.parametrize('op', ['lt_', 'le_', 'gt_', 'ge_', 'eq_', 'ne_', 'less_', 'bitwise_and_', 'add_'])
@pytest.mark.parametrize('other', ['1j', '2.5', 'tensor(1j)', 'tensor([1j, 2])'])
def test_in_place_comparison_with_a_complex_operand_as_torch(dtype, op, other):
    """An in-place comparison's result is bool, which any dtype holds: torch checks no cast, and an order comparison
    with a complex operand raises its kernel's NotImplementedError ("lt_cpu" not implemented for 'ComplexFloat'), where
    add_/bitwise_and_ refuse the cast first (port-15's promotion grid)."""
    def f(lib):
        o = eval(other, {'tensor': lib.tensor})
        try: return str(getattr(lib.ones(2, dtype=getattr(lib, dtype)), op)(o).dtype).split('.')[-1]
        except Exception as e: return type(e).__name__, str(e).split('\n')[0].replace('litnn', 'torch')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')      # (torch: casting complex values to real discards the imaginary part)
        assert f(litnn) == f(torch)

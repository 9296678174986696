"litnn's Tensor against torch's: dtype inference, constructors, factories, properties and their errors."
import warnings
import numpy as np, pytest
import litnn
from torch_pairs import same_error

torch = pytest.importorskip('torch')

def name(d): return str(d).rsplit('.', 1)[-1]

def same(f):
    "`f(lib)` gives equal results in litnn and torch (dtypes and sizes compared by name)."
    def norm(v):
        if isinstance(v, (tuple, list)): return type(v)(norm(x) for x in v) if not hasattr(v, 'numel') else tuple(v)
        if isinstance(v, (litnn.dtype, torch.dtype)): return name(v)
        return v
    l, t = norm(f(litnn)), norm(f(torch))
    assert l == t
    return l

## dtype inference of tensor()

DATA = {
    'int': 3, 'float': 2.5, 'bool': True, 'neg_int': -7,
    'list_int': [1, 2, 3], 'nested_int': [[1, 2], [3, 4]], 'list_float': [1.5, 2.],
    'mixed_int_float': [1, 2.5], 'nested_mixed': [[1, 2], [3., 4]], 'list_bool': [True, False],
    'bool_int': [True, 2], 'bool_float': [False, 2.5], 'tuple': (1, 2), 'empty': [], 'empty_nested': [[], []],
    'np_f16': np.ones(2, np.float16), 'np_f32': np.ones((2, 2), np.float32), 'np_f64': np.ones(3),
    'np_i8': np.ones(2, np.int8), 'np_i16': np.ones(2, np.int16), 'np_i32': np.ones(2, np.int32),
    'np_i64': np.ones(2, np.int64), 'np_u8': np.ones(2, np.uint8), 'np_bool': np.ones(2, bool),
    'np_0d_f64': np.array(2.5), 'np_0d_i32': np.array(3, np.int32),
    'np_scalar_f64': np.float64(2.5), 'np_scalar_f32': np.float32(2.5), 'np_scalar_f16': np.float16(1.5),
    'np_scalar_i32': np.int32(2), 'np_scalar_i64': np.int64(2), 'np_scalar_u8': np.uint8(2),
    'np_scalar_bool': np.bool_(True),
    'list_np_f32': [np.float32(1), np.float32(2)], 'list_np_f64': [np.float64(1), np.float64(2)],
    'list_np_i32': [np.int32(1), np.int32(2)],
    'nan_inf': [float('nan'), float('inf')], 'big_int': [2**40, -2**40],
}

@pytest.mark.parametrize('k', DATA)
def test_tensor_dtype_inference(k):
    l, t = litnn.tensor(DATA[k]), torch.tensor(DATA[k])
    assert name(l.dtype) == name(t.dtype)
    assert tuple(l.shape) == tuple(t.shape)
    np.testing.assert_array_equal(np.asarray(l.tolist()), np.asarray(t.tolist()))

@pytest.mark.parametrize('dt', ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool'])
def test_tensor_dtype_argument(dt):
    l, t = litnn.tensor([0, 1, 2], dtype=getattr(litnn, dt)), torch.tensor([0, 1, 2], dtype=getattr(torch, dt))
    assert name(l.dtype) == name(t.dtype) == dt
    assert l.tolist() == t.tolist()

def test_tensor_from_0d_tensors():
    assert same(lambda lib: lib.tensor([lib.tensor(1.), lib.tensor(2.)]).dtype) == 'float32'
    assert same(lambda lib: lib.tensor([lib.tensor(1.), lib.tensor(2.)]).tolist()) == [1., 2.]

def test_tensor_copies_numpy_input():
    a = np.array([1., 2.])
    x = litnn.tensor(a)
    a[0] = 9
    assert x.tolist() == torch.tensor(np.array([1., 2.])).tolist() == [1., 2.]

def test_tensor_of_tensor_warns_and_copies():
    src = litnn.tensor([1., 2.], requires_grad=True)
    with pytest.warns(UserWarning): x = litnn.tensor(src)
    with pytest.warns(UserWarning): torch.tensor(torch.tensor([1., 2.]))
    assert x.requires_grad is False and x.is_leaf
    x.data.mul_(2)
    assert src.tolist() == [1., 2.]

def test_tensor_requires_grad_argument():
    x = litnn.tensor([1., 2.], requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None

@pytest.mark.parametrize('bad', ['ragged', 'string', 'object', 'int_requires_grad', 'too_big_int'])
def test_tensor_errors_match_torch(bad):
    f = {'ragged': lambda lib: lib.tensor([[1, 2], [3]]),
         'string': lambda lib: lib.tensor('abc'),
         'object': lambda lib: lib.tensor([object()]),
         'int_requires_grad': lambda lib: lib.tensor([1, 2], requires_grad=True),
         'too_big_int': lambda lib: lib.tensor(2**63)}[bad]
    same_error(f)

## Tensor(): the legacy constructor

def test_Tensor_from_data_is_float32():
    for data in ([1, 2], [[True, False]], np.array([1, 2], np.int64), (3, 4)):
        assert same(lambda lib: lib.Tensor(data).dtype) == 'float32'
        assert same(lambda lib: lib.Tensor(data).tolist())

def test_Tensor_from_sizes():
    assert same(lambda lib: (tuple(lib.Tensor(2, 3).shape), lib.Tensor(2, 3).dtype)) == ((2, 3), 'float32')
    assert same(lambda lib: tuple(lib.Tensor(0).shape)) == (0,)

def test_Tensor_empty():
    assert same(lambda lib: (tuple(lib.Tensor().shape), lib.Tensor().dtype, lib.Tensor().numel())) == ((0,), 'float32', 0)

def test_Tensor_is_a_leaf_without_grad():
    x = litnn.Tensor(2, 3)
    assert x.is_leaf and not x.requires_grad and x.grad_fn is None

def test_Tensor_of_a_python_number_is_an_error():
    same_error(lambda lib: lib.Tensor(3.5))

def test_Tensor_bad_sizes():
    same_error(lambda lib: lib.Tensor(2, 'a'))

## legacy type names

@pytest.mark.parametrize('dt', ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool'])
def test_type_string(dt):
    want = torch.zeros(2, dtype=getattr(torch, dt)).type().replace('torch.', 'litnn.')
    assert litnn.zeros(2, dtype=getattr(litnn, dt)).type() == want

def test_type_conversion():
    if not hasattr(litnn.Tensor, 'to'): pytest.skip('Tensor.to is not written yet (15_elementwise_ops)')
    assert same(lambda lib: lib.tensor([1.5, -2.5]).type(lib.int64).tolist()) == [1, -2]
    assert same(lambda lib: lib.tensor([1.5]).type(lib.__name__ + '.DoubleTensor').dtype) == 'float64'
    assert same(lambda lib: lib.tensor([1]).type('torch.IntTensor').dtype) == 'int32'

## factories

FACTORIES = {
    'zeros': lambda lib: lib.zeros(2, 3),
    'zeros_tuple_int32': lambda lib: lib.zeros((2, 3), dtype=lib.int32),
    'zeros_list': lambda lib: lib.zeros([2]),
    'zeros_0d': lambda lib: lib.zeros(()),
    'zeros_empty_dim': lambda lib: lib.zeros(2, 0),
    'ones': lambda lib: lib.ones(3),
    'ones_bool': lambda lib: lib.ones(2, dtype=lib.bool),
    'ones_f64': lambda lib: lib.ones(1, 2, dtype=lib.float64),
    'full_int': lambda lib: lib.full((2,), 3),
    'full_float': lambda lib: lib.full((2, 2), 3.5),
    'full_bool': lambda lib: lib.full((2,), True),
    'full_int_as_f64': lambda lib: lib.full((2,), 3, dtype=lib.float64),
    'full_list_size': lambda lib: lib.full([2, 1], -1),
    'full_np_int': lambda lib: lib.full((2,), np.int32(3)),
    'full_np_float': lambda lib: lib.full((2,), np.float64(3.25)),
    'zeros_like': lambda lib: lib.zeros_like(lib.tensor([[1, 2]])),
    'ones_like_dtype': lambda lib: lib.ones_like(lib.tensor([1., 2]), dtype=lib.float64),
    'full_like_int': lambda lib: lib.full_like(lib.tensor([1, 2]), 2.7),
    'full_like_float': lambda lib: lib.full_like(lib.tensor([1., 2]), 7),
    'full_like_bool': lambda lib: lib.full_like(lib.tensor([True]), 0),
    'arange': lambda lib: lib.arange(5),
    'arange_start_step': lambda lib: lib.arange(1, 7, 2),
    'arange_float_step': lambda lib: lib.arange(0, 1, 0.25),
    'arange_float_start': lambda lib: lib.arange(0., 3),
    'arange_float_end': lambda lib: lib.arange(1, 2.5, 0.5),
    'arange_neg_step': lambda lib: lib.arange(5, 0, -1),
    'arange_neg_float_step': lambda lib: lib.arange(1, 0, -0.3),
    'arange_dtype': lambda lib: lib.arange(5, dtype=lib.float64),
    'arange_np_int': lambda lib: lib.arange(np.int64(3)),
    'arange_0d_tensor': lambda lib: lib.arange(lib.tensor(3)),
    'arange_empty': lambda lib: lib.arange(3, 3),
    'linspace_int_dtype': lambda lib: lib.linspace(0, 10, 3, dtype=lib.int64),
    'linspace_one': lambda lib: lib.linspace(2, 3, 1),
    'linspace_zero': lambda lib: lib.linspace(2, 3, 0),
    'eye': lambda lib: lib.eye(3),
    'eye_rect': lambda lib: lib.eye(2, 3),
    'eye_int': lambda lib: lib.eye(2, dtype=lib.int64),
    'eye_bool': lambda lib: lib.eye(2, dtype=lib.bool),
}

@pytest.mark.parametrize('k', FACTORIES)
def test_factory_matches_torch(k):
    l, t = FACTORIES[k](litnn), FACTORIES[k](torch)
    assert name(l.dtype) == name(t.dtype)
    assert tuple(l.shape) == tuple(t.shape)
    assert l.tolist() == t.tolist()
    assert l.is_leaf and not l.requires_grad

@pytest.mark.parametrize('args', [(0, 1, 5), (-1, 1, 4), (0, 1, 7), (3, -2, 6), (0, 1, 2)])
@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_linspace(args, dt):
    l, t = litnn.linspace(*args, dtype=getattr(litnn, dt)), torch.linspace(*args, dtype=getattr(torch, dt))
    assert name(l.dtype) == name(t.dtype) and l.shape == t.shape
    lv, tv = l.tolist(), t.tolist()
    assert (lv[0], lv[-1]) == (tv[0], tv[-1]) == (args[0], args[1])    # endpoints exact
    np.testing.assert_allclose(lv, tv, rtol=1e-6 if dt == 'float32' else 1e-14, atol=1e-15)

def test_empty_and_empty_like():
    assert same(lambda lib: (tuple(lib.empty(2, 3).shape), lib.empty(2, 3).dtype))
    assert same(lambda lib: (tuple(lib.empty_like(lib.tensor([1, 2])).shape), lib.empty_like(lib.tensor([1, 2])).dtype))

def test_random_factories_dtypes_and_shapes():
    def f(lib):
        return [(r.dtype, tuple(r.shape)) for r in
                [lib.rand(2, 3), lib.randn(4, dtype=lib.float64), lib.randint(0, 10, (3,)), lib.randint(10, (2, 3)),
                 lib.randint(0, 10, (3,), dtype=lib.float32), lib.randperm(5), lib.randperm(3, dtype=lib.float64),
                 lib.rand_like(lib.tensor([1., 2], dtype=lib.float64)), lib.randn_like(lib.zeros(2, 2)),
                 lib.randint_like(lib.tensor([1., 2]), 5), lib.randint_like(lib.tensor([1, 2]), 2, 5)]]
    same(f)

def test_like_factories_drop_requires_grad():
    assert same(lambda lib: [f(lib.tensor([1., 2], requires_grad=True)).requires_grad
                             for f in (lib.zeros_like, lib.ones_like, lib.empty_like, lib.rand_like)]) == [False] * 4
    assert same(lambda lib: lib.zeros(2, requires_grad=True).requires_grad) is True

FACTORY_ERRORS = {
    'negative_size': lambda lib: lib.zeros(-1),
    'float_size': lambda lib: lib.zeros(2.5),
    'int_requires_grad': lambda lib: lib.ones(2, dtype=lib.int64, requires_grad=True),
    'arange_zero_step': lambda lib: lib.arange(0, 5, 0),
    'arange_wrong_sign': lambda lib: lib.arange(0, 5, -1),
    'linspace_negative_steps': lambda lib: lib.linspace(0, 1, -1),
    'rand_int_dtype': lambda lib: lib.rand(2, dtype=lib.int64),
    'randint_requires_grad': lambda lib: lib.randint(0, 3, (2,), requires_grad=True),
}

@pytest.mark.parametrize('k', FACTORY_ERRORS)
def test_factory_errors_match_torch(k):
    same_error(FACTORY_ERRORS[k])

## sizes and values

def test_size_dim_numel_shape():
    assert same(lambda lib: (lib.zeros(1, 3).size(), lib.zeros(1, 3).size(1), lib.zeros(1, 3).size(-1),
                             lib.zeros(1, 3).dim(), lib.zeros(1, 3).ndim, lib.zeros(1, 3).numel(),
                             lib.tensor(1.).dim(), lib.tensor(1.).numel(), tuple(lib.tensor(1.).shape)))

def test_size_is_a_tuple_subclass():
    s, ts = litnn.zeros(2, 3).shape, torch.zeros(2, 3).shape
    assert isinstance(s, tuple) and s == (2, 3) == ts and s[1] == 3
    assert s.numel() == ts.numel() == 6
    assert repr(s) == repr(ts).replace('torch.', 'litnn.')
    assert repr(litnn.tensor(1.).shape) == repr(torch.tensor(1.).shape).replace('torch.', 'litnn.')

def test_size_errors():
    same_error(lambda lib: lib.zeros(1, 3).size(2))
    same_error(lambda lib: lib.zeros(1, 3).size(-3))
    same_error(lambda lib: lib.tensor(1.).size(1))

@pytest.mark.parametrize('val,dt', [(2.5, 'float32'), (7, 'int64'), (True, 'bool'), (1.5, 'bfloat16'),
                                    (0.1, 'float16'), (0.1, 'float64'), (-3, 'int8'), (200, 'uint8')])
def test_item(val, dt):
    l, t = litnn.tensor(val, dtype=getattr(litnn, dt)).item(), torch.tensor(val, dtype=getattr(torch, dt)).item()
    assert l == t and type(l) is type(t)

def test_item_of_one_element_nd():
    assert same(lambda lib: lib.tensor([[7]]).item()) == 7

def test_item_errors():
    same_error(lambda lib: lib.tensor([1, 2]).item())
    same_error(lambda lib: lib.tensor([]).item())
    with pytest.raises(RuntimeError, match='a Tensor with 2 elements cannot be converted to Scalar'):
        litnn.tensor([1, 2]).item()

def test_tolist():
    assert same(lambda lib: lib.tensor([[1, 2], [3, 4]]).tolist()) == [[1, 2], [3, 4]]
    assert same(lambda lib: lib.tensor(3.5).tolist()) == 3.5
    assert same(lambda lib: lib.tensor([True]).tolist()) == [True]
    assert same(lambda lib: lib.tensor([0.1]).tolist())
    assert same(lambda lib: lib.tensor([0.1, 2.5], dtype=lib.bfloat16).tolist())
    assert same(lambda lib: lib.zeros(2, 0).tolist()) == [[], []]

def test_len():
    assert same(lambda lib: (len(lib.zeros(3, 2)), len(lib.zeros(0)))) == (3, 0)
    assert same_error(lambda lib: len(lib.tensor(1.))) is TypeError

def test_python_number_conversions():
    assert same(lambda lib: (float(lib.tensor([2.5])), int(lib.tensor(2.7)), bool(lib.tensor([0])),
                             [10, 20, 30][lib.tensor(1)]))
    same_error(lambda lib: bool(lib.tensor([1, 2])))
    same_error(lambda lib: float(lib.tensor([1., 2.])))
    same_error(lambda lib: int(lib.tensor([1, 2])))
    same_error(lambda lib: [1, 2][lib.tensor(1.)])

def test_element_size_and_nbytes():
    assert same(lambda lib: (lib.zeros(2, dtype=lib.float16).element_size(), lib.zeros(2).itemsize,
                             lib.zeros(3).nbytes, lib.zeros(3, dtype=lib.bool).nbytes)) == (2, 4, 12, 3)

def test_is_floating_point():
    assert same(lambda lib: [lib.zeros(1, dtype=getattr(lib, d)).is_floating_point()
                             for d in ('float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint8', 'bool')])

## numpy()

def test_numpy_shares_memory():
    x = litnn.tensor([1., 2.])
    a = x.numpy()
    a[0] = 9
    tx = torch.tensor([1., 2.]); ta = tx.numpy(); ta[0] = 9
    assert x.tolist() == tx.tolist() == [9., 2.]
    assert a.dtype == ta.dtype

def test_numpy_of_detached_shares_memory():
    x = litnn.tensor([1., 2.], requires_grad=True)
    x.detach().numpy()[1] = 5
    assert x.tolist() == [1., 5.]

def test_numpy_requires_grad_error():
    same_error(lambda lib: lib.tensor([1.], requires_grad=True).numpy())
    same_error(lambda lib: (lib.tensor([1.], requires_grad=True) * 2).numpy())
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad. "
                                           r"Use tensor.detach\(\).numpy\(\) instead."):
        litnn.tensor([1.], requires_grad=True).numpy()

def test_numpy_force():
    assert same(lambda lib: lib.tensor([1.5], requires_grad=True).numpy(force=True).tolist()) == [1.5]

def test_array_protocol():
    if not hasattr(litnn.Tensor, '__array__'): pytest.skip('no __array__')
    assert np.asarray(litnn.tensor([1, 2])).tolist() == np.asarray(torch.tensor([1, 2])).tolist()
    assert np.asarray(litnn.tensor([1, 2]), dtype=np.float64).dtype == np.float64

## requires_grad

def nonleaf(lib): return lib.tensor([1., 2.], requires_grad=True) * 2

def test_requires_grad_on_int_tensors():
    same_error(lambda lib: lib.tensor([1]).requires_grad_())
    same_error(lambda lib: setattr(lib.tensor([1]), 'requires_grad', True))
    same_error(lambda lib: lib.tensor([True]).requires_grad_())
    assert same(lambda lib: lib.tensor([1]).requires_grad_(False).requires_grad) is False

def test_requires_grad_on_non_leaf():
    same_error(lambda lib: nonleaf(lib).requires_grad_(False))
    same_error(lambda lib: setattr(nonleaf(lib), 'requires_grad', False))
    assert same(lambda lib: nonleaf(lib).requires_grad_(True).requires_grad) is True
    with pytest.raises(RuntimeError, match='you can only change requires_grad flags of leaf variables'):
        nonleaf(litnn).requires_grad_(False)

def test_requires_grad_toggle_on_leaf():
    assert same(lambda lib: lib.tensor([1.]).requires_grad_().requires_grad_(False).requires_grad) is False
    assert same(lambda lib: lib.tensor([1.], dtype=lib.float16).requires_grad_().requires_grad) is True
    x = litnn.tensor([1.])
    assert x.requires_grad_() is x

def test_requires_grad_propagates():
    assert same(lambda lib: [(a * b).requires_grad for a in (lib.tensor([1.]), lib.tensor([1.], requires_grad=True))
                             for b in (lib.tensor([2.]), lib.tensor([2.], requires_grad=True))]) == [False, True, True, True]
    assert same(lambda lib: ((lib.tensor([1.]) * 2).is_leaf, (lib.tensor([1.]) * 2).grad_fn)) == (True, None)

## .grad assignment

def setgrad(lib, g):
    x = lib.tensor([1., 2.], requires_grad=True)
    x.grad = g(lib)
    return x

def test_grad_assignment_ok():
    assert same(lambda lib: setgrad(lib, lambda lib: lib.tensor([3., 4.])).grad.tolist()) == [3., 4.]
    assert same(lambda lib: setgrad(lib, lambda lib: None).grad) is None

def test_grad_assignment_errors():
    same_error(lambda lib: setgrad(lib, lambda lib: lib.tensor([1., 2., 3.])))
    same_error(lambda lib: setgrad(lib, lambda lib: lib.tensor([[1., 2.]])))
    same_error(lambda lib: setgrad(lib, lambda lib: lib.tensor([1., 2.], dtype=lib.float64)))
    same_error(lambda lib: setgrad(lib, lambda lib: [1., 2.]))
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[3\]' to a tensor of size '\[2\]'"):
        setgrad(litnn, lambda lib: lib.tensor([1., 2., 3.]))

def test_grad_assignment_to_tensor_without_grad():
    def f(lib):
        x = lib.tensor([1., 2.])
        x.grad = lib.tensor([5., 6.])
        return x.grad.tolist()
    assert same(f) == [5., 6.]

## .data

def test_data_shares_memory_and_is_detached():
    def f(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        d = x.data
        d.mul_(3)
        return x.tolist(), d.requires_grad, d.is_leaf, d.grad_fn, x.requires_grad
    assert same(f) == ([3., 6.], False, True, None, True)

def test_data_assignment():
    def f(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        x.data = lib.tensor([5., 6., 7.])
        return tuple(x.shape), x.requires_grad, x.is_leaf, x.tolist()
    assert same(f) == ((3,), True, True, [5., 6., 7.])

def test_data_assignment_changes_values_seen_by_backward():
    def f(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        x.data = lib.tensor([3., 4.])
        (x * x).sum().backward()
        return x.grad.tolist()
    assert same(f) == [6., 8.]

def test_data_changes_do_not_bump_version():
    def f(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        v = x._version
        x.data.mul_(2)
        return x._version - v
    assert same(f) == 0

def test_data_assignment_error():
    same_error(lambda lib: setattr(lib.tensor([1.]), 'data', [1.]))

## misc

def test_is_leaf_and_grad_fn():
    assert same(lambda lib: (lib.tensor([1.]).is_leaf, lib.tensor([1.], requires_grad=True).is_leaf,
                             nonleaf(lib).is_leaf, nonleaf(lib).grad_fn is None)) == (True, True, False, False)

def test_device_of_tensors():
    assert same(lambda lib: (str(lib.zeros(1).device), lib.zeros(1).is_cuda, lib.zeros(1).get_device()))


def test_device_and_layout_flags_like_torch_on_cpu():
    "dcgan asks `input.is_cuda or input.is_xpu`: every is_* flag torch has, with its CPU answers."
    import torch
    names = [a for a in dir(torch.ones(1)) if a.startswith('is_') and not callable(getattr(torch.ones(1), a))]
    for make in (lambda L: L.ones(2), lambda L: L.nn.Parameter(L.ones(2))):
        l, t = make(litnn), make(torch)
        assert {a: getattr(l, a) for a in names} == {a: getattr(t, a) for a in names}

@pytest.mark.parametrize('lib', [litnn, torch], ids=['litnn', 'torch'])
def test_float_of_a_grad_tensor_warns_only_with_grad_mode_on(lib):
    "torch's float()/complex() of a tensor requiring grad warn, but not under no_grad (LBFGS reads its loss so)."
    loss = (lib.ones(2, requires_grad=True) * 2).sum()
    lib.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with lib.no_grad(): float(loss); complex(loss)
            quiet = len(w)
            float(loss); complex(loss)
        assert (quiet, len(w)) == (0, 2)
    finally: lib.set_warn_always(False)


## conversions and flags users check

@pytest.mark.parametrize('v', [1, 0, None, 'a', np.bool_(True)])
def test_requires_grad_takes_a_bool_only(v):
    same_error(lambda lib: lib.ones(2).requires_grad_(v))
    same_error(lambda lib: setattr(lib.ones(2), 'requires_grad', v))

def test_requires_grad_refusals_in_torch_words():
    def msg(f):
        with pytest.raises(RuntimeError) as e: f()
        return str(e.value)
    for f in (lambda lib: lib.ones(2, dtype=lib.int64).requires_grad_(), lambda lib: setattr(lib.ones(2, dtype=lib.int64), 'requires_grad', True)):
        assert msg(lambda: f(litnn)) == msg(lambda: f(torch))

def test_data_ptr_of_a_tensor_with_no_elements_is_0():
    assert same(lambda lib: (lib.ones(0).data_ptr(), lib.ones(3)[:0].data_ptr(), lib.ones(2, 0).t().data_ptr(),
                             lib.ones(0).untyped_storage().data_ptr(), lib.ones(3).data_ptr() != 0)) == (0, 0, 0, 0, True)

def test_np_array_copies_and_np_asarray_shares():
    def f(lib):
        x = lib.arange(3.)
        c, v, d = np.array(x), np.asarray(x), np.array(x, dtype=np.float64)
        c[0], v[1], d[2] = 7, 8, 9
        return x.tolist(), str(d.dtype)
    assert same(f) == ([0., 8., 2.], 'float64')

def test_int_and_float_of_a_complex_tensor():
    assert same(lambda lib: (int(lib.tensor(2.5 + 0j)), float(lib.tensor(1.5 + 0j)), complex(lib.tensor(1.5)))) == (2, 1.5, 1.5 + 0j)
    same_error(lambda lib: int(lib.tensor(1 + 2j)))
    same_error(lambda lib: float(lib.tensor(1 + 2j)))

def test_contiguous_preserve_format():
    assert same(lambda lib: (lambda x: x.contiguous(memory_format=lib.preserve_format) is x)(lib.ones(2, 3)))
    same_error(lambda lib: lib.ones(2, 3).t().contiguous(memory_format=lib.preserve_format))

def test_bool_add_with_alpha_stays_bool():
    "torch casts alpha to the result's dtype: any nonzero alpha is True for bool tensors."
    for alpha in (2, 0, True, False):
        assert same(lambda lib: lib.tensor([True, False]).add(lib.tensor([True, True]), alpha=alpha).tolist())
        assert same(lambda lib: str(lib.tensor([True, False]).add(lib.tensor([True, True]), alpha=alpha).dtype).split('.')[-1]) == 'bool'

def test_cpu_takes_a_memory_format():
    def f(lib):
        x, y = lib.ones(2, 3, 4, 5), lib.ones(2, 3, 4, 5).to(memory_format=lib.channels_last)
        return (x.cpu(memory_format=lib.channels_last).stride(), x.cpu(memory_format=lib.contiguous_format) is x,
                y.cpu() is y, y.cpu(memory_format=lib.contiguous_format).stride())
    assert same(f) == ((60, 1, 15, 3), True, True, (60, 20, 5, 1))
    same_error(lambda lib: lib.ones(2).cpu(memory_format=lib.channels_last))

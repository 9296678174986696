"""Creation and conversion (litnn.creation, nbs/01d_creation; the legacy forms in nbs/01_tensor)
against torch 2.13: from_numpy, Tensor.numpy, as_tensor, asarray, the typed legacy constructors,
new_* factories, is_tensor, finfo/iinfo, the default device and autograd.Variable."""
import warnings, numpy as np, pytest
import litnn
from api_pairs import torch, same_error, host, DEVICES

LEGACY = ['FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'LongTensor', 'IntTensor',
          'ShortTensor', 'CharTensor', 'ByteTensor', 'BoolTensor']

def same(l, t):
    "Same shape, dtype and values."
    assert tuple(l.shape) == tuple(t.shape) and l.dtype.name == str(t.dtype)[6:], (l, t)
    np.testing.assert_array_equal(host(l), host(t))

@pytest.mark.parametrize('dtype', ['float64', 'float32', 'float16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool'])
def test_from_numpy_shares_and_keeps_dtype(dtype):
    a = np.arange(6).reshape(2, 3).astype(dtype)
    l, t = litnn.from_numpy(a), torch.from_numpy(a)
    same(l, t)
    assert l.numpy() is a
    a[0, 0] = 1
    assert l.tolist() == t.tolist()                       # both see the write
    l[1, 1] = 0
    assert a[1, 1] == 0

def test_from_numpy_views_and_errors():
    a = np.arange(12.).reshape(3, 4)
    for v in (a[:, 1], a.T, a[1:, ::2]):
        l = litnn.from_numpy(v); same(l, torch.from_numpy(v))
        v[0] = -5; assert host(l)[0].tolist() == v[0].tolist()
    for f in [lambda L: L.from_numpy([1, 2]), lambda L: L.from_numpy(np.arange(3.)[::-1]), lambda L: L.from_numpy(np.float64(3.)),
              lambda L: L.from_numpy(np.array(['a']))]:
        same_error(f, match=False)
    for d in (np.uint16, np.uint32, np.uint64): same(litnn.from_numpy(np.array([1, 7], d)), torch.from_numpy(np.array([1, 7], d)))
    same_error(lambda L: L.from_numpy([1, 2]))
    same_error(lambda L: L.from_numpy(np.arange(3.)[::-1]))
    with pytest.warns(UserWarning, match='not writable'): litnn.from_numpy(np.broadcast_to(np.arange(3.), (2, 3)))

def test_numpy_force():
    l, t = litnn.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    same_error(lambda L: (l if L is litnn else t).numpy())
    np.testing.assert_array_equal(l.numpy(force=True), t.numpy(force=True))
    a = litnn.ones(2); assert a.numpy() is a._data

@pytest.mark.parametrize('data', [np.arange(3.), np.arange(3), [1, 2], [1., 2.], 3.5, [[True]]])
@pytest.mark.parametrize('dtype', [None, 'float32', 'int64'])
def test_as_tensor(data, dtype):
    l = litnn.as_tensor(data, dtype=None if dtype is None else getattr(litnn, dtype))
    t = torch.as_tensor(data, dtype=None if dtype is None else getattr(torch, dtype))
    same(l, t)
    if isinstance(data, np.ndarray):
        assert (l.numpy() is data or np.shares_memory(l.numpy(), data)) == np.shares_memory(t.numpy(), data)

def test_as_tensor_numpy_scalar():
    same(litnn.as_tensor(np.float32(2.)), torch.as_tensor(np.float32(2.)))
    same(litnn.as_tensor(np.int16(2), dtype=litnn.float64), torch.as_tensor(np.int16(2), dtype=torch.float64))

def test_as_tensor_identity():
    for lib in (litnn, torch):
        x = lib.ones(2)
        assert lib.as_tensor(x) is x and lib.as_tensor(x, dtype=lib.float32) is x
        assert lib.as_tensor(x, dtype=lib.float64) is not x
    y = litnn.ones(2, requires_grad=True)
    assert litnn.as_tensor(y, dtype=litnn.float64).grad_fn.name() == torch.as_tensor(torch.ones(2, requires_grad=True), dtype=torch.float64).grad_fn.name()

def test_asarray():
    a = np.arange(3.)
    for copy in (None, True, False):
        l, t = litnn.asarray(a, copy=copy), torch.asarray(a, copy=copy)
        same(l, t)
        assert np.shares_memory(l.numpy(), a) == np.shares_memory(t.numpy(), a)
    for lib in (litnn, torch):
        x = lib.ones(2)
        assert lib.asarray(x) is x and lib.asarray(x, copy=True) is not x
        assert lib.asarray(x, dtype=lib.float64).dtype == lib.float64
        assert lib.asarray([1., 2.], requires_grad=True).requires_grad
        assert lib.asarray(np.float64(2.)).dtype == lib.float64 and lib.asarray(2).dtype == lib.int64
    for f in [lambda L: L.asarray(a, dtype=L.float32, copy=False), lambda L: L.asarray([1, 2], copy=False),
              lambda L: L.asarray(L.ones(2), dtype=L.int64, copy=False)]:
        same_error(f)

@pytest.mark.parametrize('name', LEGACY)
def test_legacy_constructors(name):
    L, T = getattr(litnn, name), getattr(torch, name)
    assert repr(L) == repr(T).replace('torch', 'litnn') and L.__name__ == T.__name__
    assert L.dtype.name == str(T.dtype)[6:] and L.is_cuda is False
    for args in [([1, 0, 1],), ([[1, 2], [3, 4]],), ((1, 2),), (), (np.array([1, 0]),), ([1.5, -2.7],) if name not in ('ByteTensor', 'BoolTensor') else ([0, 1],)]:
        l, t = L(*args), T(*args)
        same(l, t)
        assert type(l) is litnn.Tensor and l.type() == t.type().replace('torch', 'litnn')
    for args in [(2, 3), (0,), (litnn.Size([2]),)]:
        targs = tuple(torch.Size(a) if isinstance(a, litnn.Size) else a for a in args)
        l, t = L(*args), T(*targs)
        assert tuple(l.shape) == tuple(t.shape) and l.dtype.name == str(t.dtype)[6:]
    x = litnn.zeros(2, dtype=L.dtype)
    assert isinstance(x, L) and isinstance(x, litnn.Tensor) and isinstance(T(2), T)
    others = [n for n in LEGACY if n != name]
    assert not any(isinstance(x, getattr(litnn, n)) for n in others)
    assert not any(isinstance(T(2), getattr(torch, n)) for n in others)
    shared = L(x); assert shared._data is x._data or np.shares_memory(shared._data, x._data)   # (numpy() refuses bfloat16, as torch)
    assert litnn.ones(2).type(L).dtype == L.dtype and litnn.ones(2).type(f'litnn.{name}').dtype == L.dtype

def test_legacy_errors():
    same_error(lambda L: L.FloatTensor(L.tensor([1])), match=False)
    same_error(lambda L: L.FloatTensor(2.5))
    same_error(lambda L: L.LongTensor(-1))
    same_error(lambda L: L.FloatTensor([1], [2]), match=False)
    same_error(lambda L: L.Tensor(-1))

def test_tensor_vs_FloatTensor():
    same(litnn.Tensor([0, 2, 1]), torch.Tensor([0, 2, 1]))
    same(litnn.LongTensor([0, 2, 1]), torch.LongTensor([0, 2, 1]))
    assert isinstance(litnn.Tensor(2), litnn.FloatTensor)

@pytest.mark.parametrize('dev', DEVICES)
def test_new_factories(dev):
    for dt in ('float64', 'int32', 'float16'):
        l, t = litnn.ones(2, dtype=getattr(litnn, dt), device=dev), torch.ones(2, dtype=getattr(torch, dt))
        for f in [lambda x: x.new_zeros(2, 3), lambda x: x.new_zeros((2,)), lambda x: x.new_ones([3]), lambda x: x.new_full((2, 2), 7),
                  lambda x: x.new_tensor([1, 2]), lambda x: x.new_empty(0, 4)]:
            lo, to = f(l), f(t)
            assert tuple(lo.shape) == tuple(to.shape) and lo.dtype.name == str(to.dtype)[6:] and lo.device == l.device
        same(l.new_full((2,), 3).cpu(), t.new_full((2,), 3))
        same(l.new_tensor([[1.5]]).cpu(), t.new_tensor([[1.5]]))
    assert litnn.ones(1).new_zeros(2, requires_grad=True).requires_grad
    assert litnn.ones(1).new_ones(2, dtype=litnn.int64).dtype == litnn.int64

def test_is_tensor():
    for lib in (litnn, torch):
        assert lib.is_tensor(lib.ones(1)) and not lib.is_tensor(np.ones(1)) and not lib.is_tensor([1])

@pytest.mark.parametrize('dt', ['float16', 'bfloat16', 'float32', 'float64'])
def test_finfo(dt):
    l, t = litnn.finfo(getattr(litnn, dt)), torch.finfo(getattr(torch, dt))
    for a in ('bits', 'eps', 'max', 'min', 'tiny', 'smallest_normal', 'resolution', 'dtype'):
        assert getattr(l, a) == getattr(t, a) and type(getattr(l, a)) is type(getattr(t, a)), a
    assert repr(l) == repr(t)

@pytest.mark.parametrize('dt', ['uint8', 'int8', 'int16', 'int32', 'int64'])
def test_iinfo(dt):
    l, t = litnn.iinfo(getattr(litnn, dt)), torch.iinfo(getattr(torch, dt))
    for a in ('bits', 'max', 'min', 'dtype'):
        assert getattr(l, a) == getattr(t, a) and type(getattr(l, a)) is type(getattr(t, a)), a
    assert repr(l) == repr(t)

def test_info_defaults_and_errors():
    assert repr(litnn.finfo()) == repr(torch.finfo()) and repr(litnn.finfo(float)) == repr(torch.finfo(float))
    for f in [lambda L: L.finfo(L.int32), lambda L: L.iinfo(L.float32), lambda L: L.iinfo(L.bool)]:
        same_error(f)
    with pytest.raises(TypeError, match='requires a floating point'): litnn.finfo(litnn.int32)

def test_info_equality_and_more_dtypes():
    "finfo/iinfo compare equal by the dtype they describe (unhashable, as torch's); float8 and complex32 limits."
    for lib in (litnn, torch):
        assert lib.finfo(lib.float32) == lib.finfo() and lib.finfo(lib.complex64) == lib.finfo(lib.float32)
        assert lib.finfo(lib.float16) != lib.finfo(lib.float32) and lib.finfo(lib.float32) != 1
        assert lib.iinfo(lib.int8) == lib.iinfo(lib.int8) and lib.iinfo(lib.int32) != lib.iinfo(lib.int64)
        assert lib.finfo(lib.float32) != lib.iinfo(lib.int32)
        with pytest.raises(TypeError): hash(lib.finfo())
    for dt in ('float8_e4m3fn', 'float8_e5m2', 'float8_e4m3fnuz', 'float8_e5m2fnuz', 'complex32'):
        assert repr(litnn.finfo(getattr(litnn, dt))) == repr(torch.finfo(getattr(torch, dt))), dt

def test_default_device():
    assert litnn.get_default_device() == litnn.device('cpu') and repr(litnn.get_default_device()) == repr(torch.get_default_device())
    litnn.set_default_device('cpu')
    try:
        for f in [lambda L: L.zeros(2), lambda L: L.tensor([1]), lambda L: L.arange(3), lambda L: L.rand(2), lambda L: L.LongTensor([1]),
                  lambda L: L.normal(0., 1., size=(2,)), lambda L: L.full((1,), 2.)]:
            assert f(litnn).device == litnn.device('cpu')
    finally: litnn.set_default_device(None)
    assert litnn.get_default_device() == litnn.device('cpu')

@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_default_device_cuda():
    litnn.set_default_device('cuda')
    try:
        for f in [lambda L: L.zeros(2), lambda L: L.tensor([1]), lambda L: L.arange(3), lambda L: L.rand(2), lambda L: L.randn(2),
                  lambda L: L.randint(0, 3, (2,)), lambda L: L.randperm(3), lambda L: L.LongTensor([1]), lambda L: L.normal(0., 1., size=(2,)), lambda L: L.Tensor(2)]:
            assert f(litnn).device.type == 'cuda'
        assert litnn.zeros(2, device='cpu').device.type == 'cpu'
    finally: litnn.set_default_device(None)

@pytest.mark.skipif(litnn.cuda.is_available(), reason='a GPU is present')
def test_default_device_cuda_without_a_gpu():
    for L in (litnn,) + (() if torch.cuda.is_available() else (torch,)):
        L.set_default_device('cuda')                           # allowed; allocating is not
        try:
            for f in (lambda: L.zeros(2), lambda: L.tensor([1]), lambda: L.arange(3), lambda: L.randn(2), lambda: L.as_tensor([1.]),
                      lambda: L.nn.Linear(2, 2)):
                with pytest.raises(AssertionError): f()
        finally: L.set_default_device(None)

def test_variable():
    t = litnn.ones(2)
    v = litnn.autograd.Variable(t, requires_grad=True)
    tv = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    assert type(v) is litnn.Tensor and v.requires_grad == tv.requires_grad and not t.requires_grad
    assert v.numpy(force=True) is t._data
    assert isinstance(t, litnn.autograd.Variable) and not isinstance(3, litnn.autograd.Variable)
    (v * 2).sum().backward()
    assert v.grad.tolist() == [2., 2.]

def test_from_numpy_memmap_is_a_cpu_tensor_sharing_memory(tmp_path):
    "nanoGPT's get_batch: a slice of an np.memmap (an ndarray subclass) becomes a CPU tensor that stacks."
    m = np.memmap(tmp_path / 'x.bin', dtype=np.float32, mode='w+', shape=(6,))
    m[:] = np.arange(6)
    l, t = litnn.from_numpy(m[1:4]), torch.from_numpy(m[1:4])
    same(l, t); assert str(l.device) == 'cpu'
    same(litnn.stack([l, l]), torch.stack([t, t]))
    m[1] = 9; assert l[0].item() == t[0].item() == 9

def test_arange_keywords_and_infinite_bounds():
    "arange(end=4) and arange(start=1, end=4) as torch; a NaN or infinite bound is torch's RuntimeError; a 0-d tensor fill gives full its number's dtype."
    for kw in (dict(end=4), dict(start=1, end=4), dict(start=1, end=5, step=2)):
        same(litnn.arange(**kw), torch.arange(**kw))
    for args in ((0, float('nan')), (0., float('inf')), (float('-inf'), 1.5)):
        same_error(lambda L: L.arange(*args))
    same_error(lambda L: L.arange(), match=False)
    for v in (3, 2.5, True):
        same(litnn.full((2,), litnn.tensor(v)), torch.full((2,), torch.tensor(v)))
    same_error(lambda L: L.full((2,), L.tensor(300), dtype=L.uint8))


LISTS_WITH_NUMPY_LEAVES = {
    'f32_and_int': [np.float32(1), 2], 'i32_and_float': [np.int32(1), 2.5], 'i32_and_f16': [np.int32(1), np.float16(2)],
    'int_and_f32': [1, np.float32(2.5)], 'float_and_f64': [1.5, np.float64(2)], 'i8_and_int': [np.int8(1), 300],
    'nested': [[np.float32(1), 2], [3, 4]], 'arrays_and_list': [np.array([1, 2], np.int8), [3, 4]],
    'f32_array_and_list': [np.array([1., 2.], np.float32), [3, 4.5]], 'u8_and_bool': [np.uint8(3), True], 'u8_and_float': [np.uint8(200), 2.5],
    'int_and_0d_tensor_nested': lambda L: [[1, 2], [3, L.tensor(4.)]],
}

@pytest.mark.parametrize('k', LISTS_WITH_NUMPY_LEAVES)
def test_tensor_of_lists_holding_numpy_scalars_promotes_as_torch(k):
    "torch promotes a numpy scalar's dtype with the Python numbers' by its own rules ([np.float32(1), 2] is float32; numpy says float64)."
    data = LISTS_WITH_NUMPY_LEAVES[k]
    l, t = (litnn.tensor(data(litnn)), torch.tensor(data(torch))) if callable(data) else (litnn.tensor(data), torch.tensor(data))
    same(l, t)
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64); litnn.set_default_dtype(litnn.float64)
    try:
        if not callable(data): same(litnn.tensor(data), torch.tensor(data))
    finally: torch.set_default_dtype(prev); litnn.set_default_dtype(litnn.float32)

@pytest.mark.parametrize('f', [lambda L: L.tensor(np.arange(4.)[::-1]), lambda L: L.as_tensor(np.arange(4.)[::-1]),
                               lambda L: L.as_tensor(np.arange(4.)[::-1], dtype=L.float32), lambda L: L.asarray(np.arange(4.)[::-1]),
                               lambda L: L.asarray(np.ones((2, 2))[:, ::-1], copy=True), lambda L: L.tensor(np.ones(2, '>f4')),
                               lambda L: L.as_tensor(np.ones(2, '>f8')), lambda L: L.from_numpy(np.ones(2, '>f4')),
                               lambda L: L.tensor([2**64, 1]), lambda L: L.tensor(-2**63 - 1)])
def test_numpy_arrays_and_numbers_torch_refuses(f):
    "Negative strides and another byte order are refused by every reader of numpy arrays (not only from_numpy); ints past 64 bits too."
    same_error(f)

def test_tensor_of_lists_of_arrays_with_negative_strides_is_fine():
    a = np.arange(4.)[::-1]
    same(litnn.tensor([a, a]), torch.tensor([a, a]))


@pytest.mark.parametrize('name', ['zeros_like', 'ones_like', 'empty_like', 'full_like', 'rand_like', 'randn_like'])
@pytest.mark.parametrize('value', [1.0, [1.0, 2.0], None])
def test_like_functions_refuse_what_is_not_a_tensor_as_torch(name, value):
    torch = pytest.importorskip('torch')
    def call(lib):
        args = (value, 2.0) if name == 'full_like' else (value,)
        with pytest.raises(TypeError) as e: getattr(lib, name)(*args)
        return str(e.value)
    assert call(litnn) == call(torch)


LAYOUT_CALLS = ["zeros(2, 3, layout=L.strided)", "ones(2, layout=None)", "empty(2, layout=L.strided, pin_memory=False).shape",
                "full((2,), 1., layout=L.strided)", "arange(3, layout=L.strided)", "linspace(0, 1, 3, layout=L.strided)",
                "eye(2, layout=L.strided)", "rand(2, layout=L.strided).shape", "randn(2, pin_memory=False).shape",
                "randint(3, (2,), layout=L.strided).shape", "randperm(4, layout=L.strided, pin_memory=False).shape",
                "zeros_like(L.ones(2), layout=L.strided)", "full_like(L.ones(2), 3, layout=L.strided, pin_memory=False)",
                "tensor([1., 2.], pin_memory=False)", "zeros(2, 2, layout=L.sparse_coo).to_dense()",
                "zeros(2, 2, layout=L.sparse_csr).layout", "zeros(2, layout=1)", "full((2,), 1., layout=L.sparse_coo)",
                "ones(2, layout='strided')"]

@pytest.mark.parametrize('call', LAYOUT_CALLS)
def test_factories_take_layout_and_pin_memory_as_torch(call):
    "torch's factories take `layout=` (strided, or sparse for the empty ones) and `pin_memory=`, and refuse other layouts."
    def run(lib):
        try: r = eval('L.' + call, {'L': lib})
        except Exception as e: return type(e).__name__, str(e)
        return repr(r).replace('litnn', 'torch')
    assert run(litnn) == run(torch)

def test_tensor_from_odd_python_data():
    "Self-referential lists, unreadable sequences, ints past 64 bits (read as floats for float/bool dtypes or among floats)."
    z = [0]; z += [z]
    same_error(lambda L: L.tensor(z)); same_error(lambda L: L.as_tensor([[1, 2], z]))
    class M:
        def __len__(self): return 2
        def __getitem__(self, i): raise TypeError
    same_error(lambda L: L.tensor(M()))
    for data, dt in (((2**63, 0, 2**64), 'float32'), ((2**64, 0, -2**70, float('nan')), 'bool'), ((2**63, 1.5), None), (2**64 - 1, 'float64')):
        l = litnn.tensor(data, dtype=getattr(litnn, dt) if dt else None); t = torch.tensor(data, dtype=getattr(torch, dt) if dt else None)
        assert l.dtype.name == str(t.dtype)[6:] and l.tolist() == t.tolist()
    same_error(lambda L: L.tensor((2**64, 1.5), dtype=L.int64))
    same_error(lambda L: L.tensor(2**64))

def test_linspace_logspace_complex_bounds():
    for s, e in [(1j, 2j), (0., 2j), (1j, 2)]:
        for fn in ('linspace', 'logspace'):
            l, t = getattr(litnn, fn)(s, e, steps=5), getattr(torch, fn)(s, e, steps=5)
            assert l.dtype.name == str(t.dtype)[6:]
            np.testing.assert_allclose(host(l), t.numpy(), rtol=1e-5)
    same_error(lambda L: L.logspace(0, 1j, 5, dtype=L.float32))

def test_asarray_buffers_and_dlpack_capsules():
    "asarray shares a buffer (read as dtype, the default dtype unless given) and a DLPack capsule's tensor."
    n = np.arange(5, dtype=np.float32)
    for L in (litnn, torch):
        a = L.asarray(memoryview(n)); assert a.data_ptr() == n.__array_interface__['data'][0] and a.dtype is L.float32
        x = L.ones(3, dtype=L.int64)
        c = L.asarray(L.utils.dlpack.to_dlpack(x)); assert c.dtype is L.int64 and c.data_ptr() == x.data_ptr()
        assert L.asarray(L.utils.dlpack.to_dlpack(x), copy=True).data_ptr() != x.data_ptr()

@pytest.mark.parametrize('f', [lambda L: L.tensor([[L.tensor([1]), 3]]), lambda L: L.tensor([[L.tensor([1.5]), 3], [L.tensor(2, dtype=L.int32), True]]),
                               lambda L: L.tensor([[L.tensor([1], dtype=L.int8), 3]]), lambda L: L.tensor([[[L.tensor(1., dtype=L.float16)]], [[2]]]),
                               lambda L: L.tensor([L.tensor(1)], dtype=L.float32), lambda L: L.tensor([L.tensor(True), 2])])
def test_tensors_inside_nested_lists_are_numbers_as_in_torch(f):
    "One-element tensors at any depth of nested lists are read as numbers, their dtypes promoted with the others'."
    same(f(litnn), f(torch))

@pytest.mark.parametrize('f', [lambda L: L.tensor([L.tensor([1, 2]), 3]), lambda L: L.tensor([L.tensor([1., 2]), 3]),
                               lambda L: L.tensor([L.tensor(1.5)], dtype=L.int64), lambda L: L.tensor([L.tensor(2.)], dtype=L.bool),
                               lambda L: L.tensor([[L.tensor([1, 2])]], dtype=L.float32), lambda L: L.tensor([[3, L.tensor(1.5)]], dtype=L.uint8)])
def test_tensors_in_lists_that_are_not_numbers_of_the_target_fail_as_in_torch(f):
    "torch reads each as the target's kind of number: an index for integer and bool dtypes (TypeError), a float otherwise (ValueError)."
    same_error(f)


@pytest.mark.parametrize('size', [(np.array(3), np.int64(4)), (np.int64(3), np.array(4))])
def test_size_elements_as_0d_numpy_integer_arrays(size):
    "torch's parser takes a 0-d numpy integer array as a size element (its __index__), in a tuple or as varargs."
    for lib in (torch, litnn):
        assert tuple(lib.ones(size).shape) == (3, 4) and tuple(lib.ones(*size).shape) == (3, 4)
    assert tuple(litnn.zeros(np.array(2)).shape) == tuple(torch.zeros(np.array(2)).shape)


@pytest.mark.parametrize('size', [(np.array(3.), 4), (3., 4), (np.array([3, 4]),)])
def test_size_elements_refused_as_torch(size):
    same_error(lambda lib: lib.ones(*size), match=False)


def test_legacy_tensor_types_are_final():
    "torch.FloatTensor cannot be subclassed (TypeError); torch.Tensor can."
    for lib in (torch, litnn):
        with pytest.raises(TypeError, match="is not an acceptable base type"): type('Foo', (lib.FloatTensor,), {})
        Foo2 = type('Foo2', (lib.Tensor,), {'foo': lambda self: 5})
        assert Foo2().foo() == 5


_MIXED = ['[[1, 2], torch.tensor([3, 4])]', '[torch.tensor([1, 2]), torch.tensor([3, 4])]', '[torch.tensor([1., 2]), torch.tensor([3, 4])]',
          '[torch.tensor([1, 2]), [3.5, 4]]', '[[torch.tensor(1), 2]]', '[torch.tensor([[1]]), torch.tensor([[2]])]', '[torch.tensor([1]), 2]',
          '[torch.tensor(1.5), 2]', '([1, 2], torch.tensor([3, 4], dtype=torch.int8))', '[[[1, 2]], [torch.tensor([3, 4])]]',
          '[[1, 2], torch.tensor([3, 4, 5])]', '[[1, 2], torch.tensor([[3, 4]])]', '[[1.5, 2], torch.tensor([3, 4], dtype=torch.int8)]',
          '[[1, 2], torch.tensor([3., 4.], dtype=torch.float64)]', '[[1, 2], torch.tensor(3)]', '[np.array([1, 2]), torch.tensor([3, 4])]',
          '[[1, 2], [torch.tensor(3), torch.tensor([4])]]', '[[1, 2], torch.tensor([True, False])]']

@pytest.mark.parametrize('kw', ['', ', dtype=torch.float64', ', dtype=torch.int32'])
@pytest.mark.parametrize('data', _MIXED)
def test_tensor_of_lists_and_tensors(data, kw):
    """Lists mixing numbers, lists, arrays and tensors, read as torch reads them: its sizes follow the first elements, a tensor
    below them is one number (one element), a tensor above them a sequence of rows; the dtype promoted over all of them."""
    import torch as T
    outs = []
    for lib in (T, litnn):
        try:
            t = eval(f'lib.tensor({data.replace("torch.", "lib.")}{kw.replace("torch.", "lib.")})')
            outs.append((str(t.dtype).split('.')[-1], t.tolist()))
        except (TypeError, ValueError) as e: outs.append((type(e), str(e)))
    assert outs[0] == outs[1]


def test_finfo_iinfo_objects_as_torch():
    "finfo/iinfo as torch's C types: no None, iinfo() names its argument, fields read-only, no other attributes, no pickling"
    import copy, pickle
    def outcome(f):
        try: return 'ok', repr(f()).replace('litnn', 'torch')
        except Exception as e: return type(e).__name__, str(e).replace('litnn', 'torch')
    cases = [lambda m: m.finfo(None), lambda m: m.iinfo(None), lambda m: m.iinfo(), lambda m: m.finfo(),
             lambda m: setattr(m.finfo(m.float32), 'bits', 3), lambda m: setattr(m.iinfo(m.int8), 'max', 3),
             lambda m: setattr(m.finfo(m.float32), 'foo', 3), lambda m: delattr(m.finfo(m.float16), 'eps'),
             lambda m: pickle.dumps(m.finfo(m.float32)), lambda m: copy.deepcopy(m.iinfo(m.int8)),
             lambda m: (m.finfo(m.bfloat16) == m.finfo(m.bfloat16), m.iinfo(m.int8) != m.iinfo(m.uint8)),
             lambda m: [getattr(m.finfo(m.float8_e5m2fnuz), a) for a in ('bits', 'eps', 'max', 'min', 'tiny', 'smallest_normal', 'resolution', 'dtype')]]
    for c in cases: assert outcome(lambda: c(litnn)) == outcome(lambda: c(torch))

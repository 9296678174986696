"""NumPy's functions on tensors and tensors' operators with NumPy arrays, side by side with torch: a ufunc reads the
tensor through `__array__` and gives a tensor back through `__array_wrap__` (bool as uint8, torch's legacy rule); an
operator whose other operand is an array answers NotImplemented, so numpy computes it (numpy's dtype); `==`/`!=` read
the array as a tensor."""
import warnings
import numpy as np, pytest, torch, litnn

CASES = {
    'np.exp': lambda L: np.exp(L.tensor([-1., 0., 2.])),
    'np.add number': lambda L: np.add(L.tensor([1., 2.]), 1),
    'np.maximum': lambda L: np.maximum(L.tensor([-1., 3.]), 0),
    'np.isnan uint8': lambda L: np.isnan(L.tensor([1., float('nan')])),
    'np.sqrt 0-d': lambda L: np.sqrt(L.tensor(4.)),
    'np.exp int64': lambda L: np.exp(L.tensor([1, 2])),
    'np.abs int': lambda L: np.abs(L.tensor([-1, 2])),
    'np.modf': lambda L: np.modf(L.tensor([1.5, 2.25])),
    'np.clip': lambda L: np.clip(L.tensor([1., 5.]), 0, 2),
    'np.matmul': lambda L: np.matmul(L.ones(2, 2), L.ones(2)),
    'np.add.reduce': lambda L: np.add.reduce(L.ones(3)),
    'np.negative view': lambda L: np.negative(L.arange(6.).reshape(2, 3)[:, 1]),
    'np.exp transposed': lambda L: np.exp(L.arange(6.).reshape(2, 3).t()),
    'np.sin float16': lambda L: np.sin(L.ones(2, dtype=L.float16)),
    'np.logical_and': lambda L: np.logical_and(L.tensor([True, False]), L.tensor([True, True])),
    'np.argmax': lambda L: np.argmax(L.tensor([1, 3, 2])),
    'np.add out': lambda L: np.add(L.ones(2), 1, out=np.zeros(2)),
    't - array int': lambda L: L.tensor([1, 2]) - np.array([1, 1]),
    't * array int32': lambda L: L.tensor([1, 2]) * np.array([1, 1], dtype=np.int32),
    't * array float16': lambda L: L.ones(2) * np.ones(2, dtype=np.float16),
    't + array': lambda L: L.ones(2) + np.ones(2),
    't / array': lambda L: L.ones(2) / np.full(2, 4.),
    't ** array': lambda L: L.full((2,), 2.) ** np.arange(2.),
    't @ array': lambda L: L.ones(2, 2) @ np.ones(2),
    't * 0-d array': lambda L: L.ones(2) * np.array(2.0),
    't & array': lambda L: L.tensor([True]) & np.array([True]),
    't == array': lambda L: L.ones(2) == np.array([1, 1.0000000001]),
    't != array': lambda L: L.tensor([1, 2]) != np.array([1.5, 2]),
    'array == t': lambda L: np.ones(2) == L.ones(2),
    'np.float64 * t': lambda L: np.float64(2.0) * L.ones(2),
    'np.float32 + t': lambda L: np.float32(2.0) + L.ones(2, dtype=L.float64),
    'np.int64 + int32 t': lambda L: np.int64(2) + L.ones(2, dtype=L.int32),
    'np.float64 / t': lambda L: np.float64(2.0) / L.full((2,), 4.),
    't < np.float64': lambda L: L.ones(2) < np.float64(3),
    'requires grad': lambda L: np.exp(L.ones(2, requires_grad=True)),
    't - array requires grad': lambda L: L.ones(2, requires_grad=True) - np.ones(2),
    'array * t': lambda L: np.ones(2) * L.ones(2),
    'array @ t': lambda L: np.ones((2, 2)) @ L.ones(2),
    't > array': lambda L: L.ones(2) > np.ones(2),
    't * list': lambda L: L.ones(2) * [1.0, 2.0],
    't + str': lambda L: L.ones(2) + 'a',
    'pairwise_distance array': lambda L: L.nn.functional.pairwise_distance(L.ones(2, 3), np.ones((2, 3))),
}


def _run(f, lib):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)    # torch's __array_wrap__ lacks numpy 2's arguments
        try: return 'ok', f(lib)
        except Exception as e: return 'raise', type(e)


def _plain(r):
    if isinstance(r, tuple): return tuple(_plain(x) for x in r)
    if isinstance(r, (torch.Tensor, litnn.Tensor)):
        return 'Tensor', str(r.dtype).split('.')[-1], r.detach().numpy().tolist()
    if isinstance(r, np.ndarray): return 'ndarray', r.dtype.name, r.tolist()
    return type(r).__name__, r


@pytest.mark.parametrize('name', CASES)
def test_as_torch(name):
    t, l = _run(CASES[name], torch), _run(CASES[name], litnn)
    assert t[0] == l[0], f'{name}: torch {t}, litnn {l}'
    if t[0] == 'raise': assert issubclass(l[1], t[1]) or issubclass(t[1], l[1]), f'{name}: torch {t[1]}, litnn {l[1]}'
    else:
        pt, pl = _plain(t[1]), _plain(l[1])
        assert str(pt) == str(pl), f'{name}: torch {pt}, litnn {pl}'


def test_scipy_ufunc():
    special = pytest.importorskip('scipy.special')
    r = special.expit(litnn.tensor([-1., 0., 2.]))
    assert isinstance(r, litnn.Tensor)
    np.testing.assert_allclose(r.numpy(), special.expit(torch.tensor([-1., 0., 2.])).numpy())


def _strided_badly(L):
    "An array whose stride (3 bytes) is not a whole number of float64 elements."
    return np.lib.stride_tricks.as_strided(np.zeros(4), shape=(3,), strides=(3,))

def _resized(make):
    "Grow a tensor after `make` let numpy share its memory: torch's storage is then not resizable."
    def f(L):
        t = make(L)
        return t.resize_(10).shape
    return f

def _numpy_then(L):
    t = L.zeros(4)
    t[1:].numpy()
    return t

# torch's test/test_numpy_interop.py, read side by side: the errors (class and words), sizes and dtypes must agree
EXCHANGE = {
    'from_numpy strides not whole elements': lambda L: L.from_numpy(_strided_badly(L)),
    'tensor(ndarray) strides not whole elements': lambda L: L.tensor(_strided_badly(L)),
    'numpy() with the conjugate bit': lambda L: L.tensor([1 + 2j]).conj().numpy(),
    'numpy(force=True) with the conjugate bit': lambda L: L.tensor([1 + 2j]).conj().numpy(force=True),
    'numpy() requires grad and conj': lambda L: L.tensor([1 + 2j], requires_grad=True).conj().numpy(),
    'numpy() sparse and conj': lambda L: L.tensor([1 + 2j]).conj().to_sparse().numpy(force=True),
    'numpy() bfloat16': lambda L: L.zeros(2, dtype=L.bfloat16).numpy(),
    'numpy(force=True) bfloat16': lambda L: L.zeros(2, dtype=L.bfloat16).numpy(force=True),
    'np.asarray bfloat16': lambda L: np.asarray(L.zeros(2, dtype=L.bfloat16)),
    'numpy() float8_e5m2': lambda L: L.zeros(2, dtype=L.float8_e5m2).numpy(),
    'bfloat16 float().numpy()': lambda L: L.ones(2, dtype=L.bfloat16).float().numpy(),
    'resize_ after numpy()': _resized(_numpy_then),
    'resize_ from_numpy': _resized(lambda L: L.from_numpy(np.zeros(4))),
    'resize_ as_tensor(ndarray)': _resized(lambda L: L.as_tensor(np.zeros(4))),
    'resize_ tensor(ndarray) (a copy)': _resized(lambda L: L.tensor(np.zeros(4))),
    'resize_ plain tensor': _resized(lambda L: L.zeros(4)),
    'shrink from_numpy': lambda L: L.from_numpy(np.arange(4.)).resize_(2),
    'list of arrays, ragged last dim': lambda L: L.tensor([np.zeros((3, 3)), np.zeros((3, 0))]),
    'nested list of arrays, ragged': lambda L: L.tensor([[np.zeros((3, 3)), np.zeros((3, 2))]]),
    'list of array and number': lambda L: L.tensor([[np.zeros(3), np.float64(0.5)]]),
    'list and array, ragged': lambda L: L.tensor([[1, 2, 3], np.zeros(2)]),
    'list of arrays': lambda L: L.tensor([np.array([0]), np.array([1])], dtype=L.float32),
    'Storage of a numpy int': lambda L: (type(L.Storage(np.int64(3))).__name__, L.Storage(np.int64(3)).size(), L.Storage.__name__),
    'UntypedStorage of a numpy int': lambda L: L.UntypedStorage(np.int64(3)).size(),
    'int32 + np.bool_ (read as a float)': lambda L: L.tensor([1, 2], dtype=L.int32) + np.bool_(True),
    'np.bool_ * bool tensor': lambda L: np.bool_(True) * L.tensor([True, False]),
    'bool tensor & np.bool_': lambda L: L.tensor([True]) & np.bool_(True),
    'complex64 * np.complex64 (real part only)': lambda L: L.tensor([1 + 1j]) * np.complex64(1 + 3j),
    'complex64 == np.complex64': lambda L: L.tensor([1 + 3j]) == np.complex64(1 + 3j),
    'complex64 + np.complex128 (a Python complex)': lambda L: L.tensor([1 + 1j]) + np.complex128(1 + 3j),
}

def _run_exchange(f, lib):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try: return 'ok', _plain(f(lib))
        except Exception as e: return 'raise', (type(e).__name__, str(e))

@pytest.mark.parametrize('name', EXCHANGE)
def test_exchange_as_torch(name):
    t, l = _run_exchange(EXCHANGE[name], torch), _run_exchange(EXCHANGE[name], litnn)
    assert str(t) == str(l), f'{name}: torch {t}, litnn {l}'


def test_list_of_arrays_warns_as_torch():
    "torch warns (once, or each time with set_warn_always) that a list of arrays is read slowly, naming the caller's line."
    msgs = []
    for lib in (torch, litnn):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter('always')
                lib.as_tensor([np.array([0.]), np.array([1.])])
                lib.tensor([[1.], [2.]])               # no arrays: no warning
        finally: lib.set_warn_always(False)
        msgs.append({str(w.message).split(' (Triggered')[0] for w in ws})   # (torch: one per array)
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1 and next(iter(msgs[0])).startswith('Creating a tensor from a list of numpy.ndarrays is extremely slow')

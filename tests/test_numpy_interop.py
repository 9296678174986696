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

"""torch.use_deterministic_algorithms against torch 2.13: the ops that alert (raise, or warn with warn_only) on CPU, and
the memory that `empty` and a growing `resize_` fill (torch.utils.deterministic.fill_uninitialized_memory)."""
import math, warnings
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import litnn


@pytest.fixture
def deterministic():
    "Deterministic algorithms on (in both libraries) for the test, off after it."
    def on(warn_only=False):
        for lib in (torch, litnn): lib.use_deterministic_algorithms(True, warn_only=warn_only)
    yield on
    for lib in (torch, litnn):
        lib.use_deterministic_algorithms(False)
        lib.utils.deterministic.fill_uninitialized_memory = True


def _alert_calls(lib):
    i = lambda *s: lib.zeros(*s, dtype=lib.long)
    return {
        'max_unpool1d': lambda: lib.nn.functional.max_unpool1d(lib.randn(1, 1, 7), i(1, 1, 7), 3, 1),
        'MaxUnpool2d': lambda: lib.nn.MaxUnpool2d(3, 1)(lib.randn(1, 1, 7, 7), i(1, 1, 7, 7)),
        'max_unpool3d': lambda: lib.nn.functional.max_unpool3d(lib.randn(1, 1, 7, 7, 7), i(1, 1, 7, 7, 7), 3, 1),
        'put_': lambda: lib.randn(10).put_(lib.tensor([0, 0]), lib.tensor([0., 1.])),
        'put': lambda: lib.randn(10).put(lib.tensor([0, 0]), lib.tensor([0., 1.])),
        'put_ accumulate': lambda: lib.randn(10).put_(lib.tensor([0, 0]), lib.tensor([0., 1.]), accumulate=True),
        'index_put_': lambda: lib.randn(10).index_put_((lib.tensor([0, 0]),), lib.tensor([0., 1.])),
        'scatter_': lambda: lib.randn(10).scatter_(0, lib.tensor([0, 0]), lib.tensor([0., 1.])),
    }


def _outcome(call):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: call()
        except RuntimeError as e: return 'error', str(e)
    return 'ok', [str(x.message).split(' (Triggered internally')[0] for x in w if 'deterministic' in str(x.message)]


@pytest.mark.parametrize('warn_only', [False, True])
def test_nondeterministic_alerts_as_torch(deterministic, warn_only):
    deterministic(warn_only)
    l_calls, t_calls = _alert_calls(litnn), _alert_calls(torch)
    for name in t_calls:
        assert _outcome(l_calls[name]) == _outcome(t_calls[name]), name


def test_no_alert_when_not_deterministic():
    for call in _alert_calls(litnn).values(): assert _outcome(call) == ('ok', [])


DTYPES = ['float32', 'float64', 'complex64', 'int8', 'uint8', 'int32', 'int64', 'bool', 'bfloat16']

def _fresh(lib, dt):
    d = getattr(lib, dt)
    return {
        'empty': lambda: lib.empty(10, 9, dtype=d),
        'empty out': lambda: lib.empty(10, 9, out=lib.zeros(1, dtype=d)),
        'empty_like': lambda: lib.empty_like(lib.zeros(10, 9, dtype=d)),
        'empty_like contiguous': lambda: lib.empty_like(lib.zeros(10, 9, dtype=d), memory_format=lib.contiguous_format),
        'empty_strided': lambda: lib.empty_strided((10, 9), (1, 5), dtype=d),
        'empty_permuted': lambda: lib.empty_permuted((2, 3, 5), (1, 0, 2), dtype=d),
        'new_empty': lambda: lib.zeros(2, dtype=d).new_empty((3, 4)),
    }

def _values(t):
    t = t.detach()
    if t.dtype in (torch.bfloat16, litnn.bfloat16): t = t.float()
    a = np.asarray(t.numpy())
    return a.dtype, a.shape, np.where(np.isnan(a), -1, a).tolist() if a.dtype.kind in 'fc' else a.tolist()

@pytest.mark.parametrize('dt', DTYPES)
def test_empty_is_filled_under_deterministic_algorithms(deterministic, dt):
    deterministic()
    l_fns, t_fns = _fresh(litnn, dt), _fresh(torch, dt)
    for name in t_fns:
        l, t = _values(l_fns[name]()), _values(t_fns[name]())
        assert l == t, name

@pytest.mark.parametrize('dt', DTYPES)
def test_resize_fills_what_grows_under_deterministic_algorithms(deterministic, dt):
    deterministic()
    for size, stride, new in (((10,), (1,), (5,)), ((10,), (0,), (10,)), ((10,), (1,), (20,)), ((2, 3, 4), None, (3, 4, 5)),
                              ((2, 3, 4), (1, 0, 1), (2, 4, 5))):   # (strides that leave gaps: torch fills no gap)
        res = []
        for lib in (litnn, torch):
            d = getattr(lib, dt)
            a = lib.zeros(size, dtype=d) if stride is None else lib.empty_strided(size, stride, dtype=d).fill_(0)
            a.resize_(new)
            res.append(_values(a))
        assert res[0] == res[1], (size, stride, new)

def test_fill_uninitialized_memory_flag(deterministic):
    deterministic()
    for lib in (litnn, torch):
        assert lib.utils.deterministic.fill_uninitialized_memory is True
        lib.utils.deterministic.fill_uninitialized_memory = False
        assert lib.utils.deterministic.fill_uninitialized_memory is False
        with pytest.raises(RuntimeError, match='expected a bool, but got int'): lib.utils.deterministic.fill_uninitialized_memory = 1
    # with the flag off, what grows is left as it is (litnn's zeros): only the kept part is compared
    a = litnn.arange(4.); a.resize_(8)
    assert a[:4].tolist() == [0., 1., 2., 3.] and not a.isnan().any()

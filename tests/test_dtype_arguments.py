"""`dtype=` as torch's argument parser reads it: a dtype, one of Python's float/int/bool/complex, or None. A dtype's name
or a NumPy type is a TypeError in torch (litnn's own `to_dtype` reads them, internally): the same calls refused here."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def calls(lib, d):
    "Public calls taking a dtype, each given `d` (a function of lib, so that torch and litnn get their own dtypes)."
    x = lib.ones(3)
    return {'zeros': lambda: lib.zeros(2, dtype=d), 'ones': lambda: lib.ones(2, dtype=d), 'empty': lambda: lib.empty(2, dtype=d),
            'full': lambda: lib.full((2,), 1, dtype=d), 'arange': lambda: lib.arange(3, dtype=d), 'linspace': lambda: lib.linspace(0, 1, 3, dtype=d),
            'eye': lambda: lib.eye(2, dtype=d), 'rand': lambda: lib.rand(2, dtype=d), 'randn': lambda: lib.randn(2, dtype=d),
            'tensor': lambda: lib.tensor([1], dtype=d), 'as_tensor': lambda: lib.as_tensor([1], dtype=d), 'asarray': lambda: lib.asarray([1], dtype=d),
            'zeros_like': lambda: lib.zeros_like(x, dtype=d), 'full_like': lambda: lib.full_like(x, 2, dtype=d), 'randn_like': lambda: lib.randn_like(x, dtype=d),
            'new_zeros': lambda: x.new_zeros(2, dtype=d), 'new_ones': lambda: x.new_ones(2, dtype=d), 'new_full': lambda: x.new_full((2,), 1, dtype=d),
            'new_empty': lambda: x.new_empty(2, dtype=d), 'new_tensor': lambda: x.new_tensor([1], dtype=d),
            'sum': lambda: x.sum(dtype=d), 'torch.sum': lambda: lib.sum(x, dtype=d), 'mean': lambda: x.mean(dtype=d), 'prod': lambda: x.prod(dtype=d),
            'cumsum': lambda: x.cumsum(0, dtype=d), 'softmax': lambda: x.softmax(0, dtype=d), 'torch.softmax (by position)': lambda: lib.softmax(x, 0, d),
            'F.softmax': lambda: lib.nn.functional.softmax(x, 0, dtype=d), 'F.log_softmax': lambda: lib.nn.functional.log_softmax(x, 0, dtype=d),
            'linalg.vector_norm': lambda: lib.linalg.vector_norm(x, dtype=d), 'view': lambda: x.view(d)}

BAD = {'a name': lambda lib: 'float64', 'a NumPy type': lambda lib: np.float64, 'a NumPy dtype': lambda lib: np.dtype('float64'), 'str': lambda lib: str}
GOOD = {'a dtype': lambda lib: lib.float64, 'float': lambda lib: float, 'int': lambda lib: int, 'bool': lambda lib: bool, 'complex': lambda lib: complex}

# torch refuses these kernels for the dtype (NotImplementedError), litnn computes them: not this file's subject (leftovers.md)
KNOWN = {('cumsum', 'bool')}

@pytest.mark.parametrize('name', list(calls(litnn, None)))
def test_what_dtype_takes(name):
    for bad in BAD.values():
        with pytest.raises(TypeError): calls(torch, bad(torch))[name]()
        with pytest.raises(TypeError, match='dtype|view'): calls(litnn, bad(litnn))[name]()
    for gname, good in GOOD.items():
        if (name, gname) in KNOWN: continue
        try: want = calls(torch, good(torch))[name]()
        except Exception as e: want = type(e)
        try: got = calls(litnn, good(litnn))[name]()
        except Exception as e: got = type(e)
        if isinstance(want, type): assert isinstance(got, type) and issubclass(got, want), (name, good, got, want)
        else:
            assert not isinstance(got, type), (name, good, got)
            assert str(got.dtype)[6:] == str(want.dtype)[6:], (name, got.dtype, want.dtype)

def test_set_default_dtype_takes_only_dtypes():
    for d in ('float64', np.float64, float):
        with pytest.raises(TypeError, match='invalid dtype object'): torch.set_default_dtype(d)
        with pytest.raises(TypeError, match='invalid dtype object'): litnn.set_default_dtype(d)
    assert litnn.get_default_dtype() is litnn.float32

def test_type_still_reads_names():
    assert litnn.ones(2).type('torch.DoubleTensor').dtype is litnn.float64 and torch.ones(2).type('torch.DoubleTensor').dtype is torch.float64

def _outcome(f):
    "What a call gives: its exception's class and message's first 40 characters (torch's word `torch` read as litnn's), or 'ok'."
    try: f(); return 'ok'
    except Exception as e: return type(e).__name__, str(e).replace('litnn', 'torch')[:40]

_MODULES = {'Linear': lambda lib, d: lib.nn.Linear(2, 2, dtype=d), 'Conv2d': lambda lib, d: lib.nn.Conv2d(1, 1, 3, dtype=d),
            'LayerNorm': lambda lib, d: lib.nn.LayerNorm(2, dtype=d), 'Embedding': lambda lib, d: lib.nn.Embedding(3, 2, dtype=d),
            'LSTM': lambda lib, d: lib.nn.LSTM(2, 2, dtype=d), 'BatchNorm1d(affine=False)': lambda lib, d: lib.nn.BatchNorm1d(2, affine=False, dtype=d)}

@pytest.mark.parametrize('name', list(_MODULES))
def test_module_factory_kwargs_dtype_as_torch(name):
    "A module's dtype= reaches torch.empty/zeros: a name or a NumPy type is their TypeError; a dtype or float builds it."
    for bad in BAD.values():
        want, got = _outcome(lambda: _MODULES[name](torch, bad(torch))), _outcome(lambda: _MODULES[name](litnn, bad(litnn)))
        assert got == want, (name, got, want)
    assert _MODULES[name](litnn, litnn.float64).state_dict()[next(iter(_MODULES[name](torch, torch.float64).state_dict()))].dtype is litnn.float64

@pytest.mark.parametrize('call', ['finfo', 'iinfo', 'promote_types 1', 'promote_types 2', 'autocast', 'Tensor.type'])
def test_other_dtype_taking_calls_as_torch(call):
    "finfo/iinfo, promote_types, autocast's dtype (refused when entered) and Tensor.type: same outcome for every kind of argument."
    import warnings
    def run(lib, d):
        if call in ('finfo', 'iinfo'): return getattr(lib, call)(d)
        if call == 'promote_types 1': return lib.promote_types(d, lib.int32)
        if call == 'promote_types 2': return lib.promote_types(lib.int32, d)
        if call == 'autocast':
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')      # (an unsupported dtype disables autocast with a warning in both)
                with lib.autocast('cpu', dtype=d): return lib.is_autocast_enabled('cpu')
        return lib.ones(1).type(d).dtype
    kinds = {**BAD, **GOOD, 'int32': lambda lib: lib.int32, 'bfloat16': lambda lib: lib.bfloat16, 'complex64': lambda lib: lib.complex64}
    for kind, d in kinds.items():
        want, got = _outcome(lambda: run(torch, d(torch))), _outcome(lambda: run(litnn, d(litnn)))
        assert got == want, (call, kind, got, want)

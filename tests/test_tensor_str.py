"litnn prints tensors exactly as torch does (but for the `litnn.` in dtype names)."
import math
import numpy as np, pytest
import litnn
from litnn._tensor_str import printoptions as l_printoptions, get_printoptions

torch = pytest.importorskip('torch')

def want(t): return repr(t).replace('torch.', 'litnn.')

rng = np.random.default_rng(0)
nan, inf = float('nan'), float('inf')

# (id, numpy array): litnn.tensor(arr) vs torch.tensor(arr) keep the numpy dtype
ARRAYS = {
    'scalar_f32': np.array(3.5, np.float32),
    'scalar_int': np.array(-7),
    'scalar_bool': np.array(True),
    'scalar_f64': np.array(1e-7),
    'scalar_nan': np.array(nan, np.float32),
    'scalar_zero': np.array(0., np.float32),
    '1d_f32': np.array([0.125, -2.5, 3.0], np.float32),
    '1d_intlike_float': np.array([1., -20., 3.], np.float32),
    '1d_int': np.array([1, -20, 300]),
    '1d_bool': np.array([True, False, True]),
    '1d_all_true': np.array([True, True]),
    '2d_f32': np.array([[1., -2.5], [0.125, 3.]], np.float32),
    '2d_randn': rng.standard_normal((4, 5)).astype(np.float32),
    '2d_int': np.arange(12).reshape(3, 4) - 5,
    '3d_f32': rng.standard_normal((2, 3, 4)).astype(np.float32),
    '4d_int': np.arange(24).reshape(2, 1, 3, 4),
    '3d_one_row': np.ones((1, 1, 3), np.float32),
    'neg_zero': np.array([-0., 0., 1.], np.float32),
    'zeros': np.zeros(4, np.float32),
    'sci_small': np.array([1e-5, 1.], np.float32),
    'sci_ratio': np.array([1., 2000.], np.float32),
    'sci_big': np.array([1e9, 2e9], np.float32),
    'sci_big_int_f64': np.array([1e10, -3e12]),
    'sci_mixed_signs': np.array([-1e-6, 3.25, 12345.678], np.float32),
    'fixed_ratio_1000': np.array([0.001, 1.], np.float32),
    'fixed_just_under_1e8': np.array([99999999.], np.float64),
    'tiny_1e-4': np.array([1e-4, 0.5], np.float64),
    'nan_inf': np.array([1., nan, inf, -inf], np.float32),
    'nan_inf_frac': np.array([1.5, nan, -inf], np.float32),
    'nan_inf_sci': np.array([1e-8, nan, inf], np.float32),
    'only_nan': np.array([nan, nan], np.float32),
    'only_inf': np.array([inf, -inf], np.float32),
    'f64': np.array([1.0, 2.123456789], np.float64),
    'f64_int': np.array([1.0, 2.0], np.float64),
    'f16': np.array([0.1, 2., 65504.], np.float16),
    'f16_sci': np.array([1e-3, 60000.], np.float16),
    'int32': np.array([[1, 2], [3, -4]], np.int32),
    'int8': np.array([-128, 127], np.int8),
    'int16': np.array([1000, -2], np.int16),
    'uint8': np.array([0, 255, 7], np.uint8),
    'int64_big': np.array([2**62, -5]),
    'wide_f32': (np.arange(30) / 7).astype(np.float32),
    'wide_int': np.arange(100),
    'wide_2d': rng.standard_normal((3, 25)).astype(np.float32),
    'wide_sci': np.geomspace(1e-6, 1e6, 20).astype(np.float32),
    'big_1d': np.arange(2000),
    'big_1d_float': np.linspace(-1, 1, 1001).astype(np.float32),
    'big_2d': np.arange(2000).reshape(40, 50),
    'big_2d_float': rng.standard_normal((50, 50)).astype(np.float32),
    'big_3d': rng.standard_normal((10, 11, 12)).astype(np.float32),
    'big_short_dim': rng.standard_normal((2, 600)).astype(np.float32),
    'big_hidden_outlier': np.concatenate([np.ones(500), [1e12], np.ones(500)]).astype(np.float32),
    'exactly_1000': np.arange(1000).astype(np.float32),
    'big_bool': np.arange(1500) % 3 == 0,
}

@pytest.mark.parametrize('arr', ARRAYS.values(), ids=ARRAYS.keys())
def test_repr(arr):
    assert repr(litnn.tensor(arr)) == want(torch.tensor(arr))

@pytest.mark.parametrize('arr', [ARRAYS[k] for k in ('1d_f32', '2d_randn', 'f64', 'wide_f32', 'big_2d_float', 'scalar_f32')])
def test_requires_grad(arr):
    assert repr(litnn.tensor(arr, requires_grad=True)) == want(torch.tensor(arr, requires_grad=True))

BF16 = {'1d': [0.1, 2., -3.5], 'int_like': [1., 256.], 'sci': [1e-6, 1.], '2d': [[1.5, 2.], [3., 1e3]], 'scalar': 2.25}

@pytest.mark.parametrize('vals', BF16.values(), ids=BF16.keys())
def test_bfloat16(vals):
    arr = np.array(vals, np.float32)
    assert repr(litnn.tensor(arr, dtype=litnn.bfloat16)) == want(torch.tensor(arr).to(torch.bfloat16))

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'int64', 'int32', 'uint8', 'bool'])
@pytest.mark.parametrize('shape', [(0,), (0, 3), (2, 0, 1)])
def test_empty(dtype, shape):
    assert repr(litnn.zeros(*shape, dtype=getattr(litnn, dtype))) == want(torch.zeros(*shape, dtype=getattr(torch, dtype)))

def test_empty_requires_grad():
    assert repr(litnn.zeros(0, 3, requires_grad=True)) == want(torch.zeros(0, 3, requires_grad=True))

def test_str_is_repr():
    t = litnn.tensor(ARRAYS['2d_f32'])
    assert str(t) == repr(t) == want(torch.tensor(ARRAYS['2d_f32']))

def test_format():
    assert f"{litnn.tensor(0.123456):.3f}" == f"{torch.tensor(0.123456):.3f}"
    assert f"{litnn.tensor([1, 2])}" == want(torch.tensor([1, 2]))
    with pytest.raises(TypeError): f"{litnn.tensor([1., 2.]):.2f}"

# print options: each case runs under the same options in torch and litnn
OPTS = {
    'precision2': dict(precision=2),
    'precision0': dict(precision=0),
    'precision8': dict(precision=8),
    'sci_on': dict(sci_mode=True),
    'sci_off': dict(sci_mode=False),
    'threshold5': dict(threshold=5),
    'edgeitems1': dict(threshold=5, edgeitems=1),
    'edgeitems0': dict(threshold=5, edgeitems=0),
    'linewidth40': dict(linewidth=40),
    'linewidth10': dict(linewidth=10),
    'short': dict(profile='short'),
    'full': dict(profile='full'),
}
OPT_ARRAYS = ['1d_f32', '2d_randn', '3d_f32', 'sci_small', 'wide_f32', 'wide_int', 'big_2d', 'big_3d',
              'nan_inf', 'scalar_f32', '1d_bool', 'f64', 'zeros', 'int32']

@pytest.fixture
def restore():
    old = get_printoptions()
    yield
    litnn.set_printoptions(**old); torch.set_printoptions(**old)

@pytest.mark.parametrize('opts', OPTS.values(), ids=OPTS.keys())
def test_printoptions(opts, restore):
    litnn.set_printoptions(**opts); torch.set_printoptions(**opts)
    for k in OPT_ARRAYS:
        arr = ARRAYS[k]
        assert repr(litnn.tensor(arr)) == want(torch.tensor(arr)), k
        if arr.dtype.kind == 'f':
            assert repr(litnn.tensor(arr, requires_grad=True)) == want(torch.tensor(arr, requires_grad=True)), k

def test_set_printoptions_restores(restore):
    litnn.set_printoptions(precision=2)
    assert repr(litnn.tensor([1.12345])) == 'tensor([1.12])'
    litnn.set_printoptions(profile='default')
    assert repr(litnn.tensor([1.12345])) == 'tensor([1.1235])'
    with l_printoptions(threshold=5):
        assert repr(litnn.tensor(np.arange(10))) == 'tensor([0, 1, 2,  ..., 7, 8, 9])'
    assert repr(litnn.tensor(np.arange(10))) == 'tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])'

def test_default_dtype_float64(restore):
    old = litnn.get_default_dtype()
    litnn.set_default_dtype(litnn.float64); torch.set_default_dtype(torch.float64)
    try:
        for arr in (np.array([1.5, 2.], np.float32), np.array([1.5, 2.]), np.zeros((0,), np.float32), np.zeros((0,))):
            assert repr(litnn.tensor(arr)) == want(torch.tensor(arr))
    finally:
        litnn.set_default_dtype(old); torch.set_default_dtype(getattr(torch, old.name))

def test_subclass_prefix():
    class MyTensor(litnn.Tensor):     # (dispatch off: a subclass that takes part would switch this whole test process into
        __torch_function__ = litnn._C._disabled_torch_function_impl    # __torch_function__ dispatch; tests/test_torch_function.py)
    t = MyTensor._make(np.array([1., 2.], np.float32))
    assert repr(t) == 'MyTensor([1., 2.])'

def test_suffix_wraps_after_long_last_line():
    # the last line is long enough that the dtype suffix and requires_grad go on lines of their own
    arr = np.full((2, 7), -1234.5678)
    assert repr(litnn.tensor(arr, requires_grad=True)) == want(torch.tensor(arr, requires_grad=True))

def test_grad_fn():
    if not hasattr(litnn.Tensor, '__mul__'): pytest.skip('Tensor.__mul__ is not implemented yet (nbs/03_ops)')
    a = litnn.tensor([1., 2.], requires_grad=True) * 2
    assert repr(a) == want(torch.tensor([1., 2.], requires_grad=True) * 2)   # grad_fn=<MulBackward0>

@pytest.mark.skipif(not litnn.cuda.is_available(), reason='no CUDA device')
@pytest.mark.parametrize('k', ['1d_f32', '2d_randn', 'big_2d_float', 'big_3d', 'big_1d', 'f64', 'wide_f32',
                               'wide_2d', 'scalar_f32', 'nan_inf', 'uint8', '1d_bool'])
def test_cuda(k):
    # torch here may be CPU-only: build its GPU print from its own pieces, device suffix first
    from torch._tensor_str import _tensor_str, _add_suffixes
    arr = ARRAYS[k]; tt = torch.tensor(arr)
    suffixes = ["device='cuda:0'"] + ([f"dtype={tt.dtype}"] if tt.dtype not in (torch.float32, torch.int64, torch.bool) else [])
    expected = _add_suffixes('tensor(' + _tensor_str(tt, 7), suffixes, 7, force_newline=False)
    assert repr(litnn.tensor(arr, device='cuda')) == expected.replace('torch.', 'litnn.')

def _fuzz_array(seed):
    "A random array: random shape, dtype, magnitude, with the odd nan, inf, zero and whole number."
    r = np.random.default_rng(seed)
    shape = tuple(r.integers(1, 6, size=r.integers(0, 4)))
    if r.random() < 0.1: shape = (int(r.integers(1000, 1500)),)
    kind = r.choice(['float32', 'float64', 'float16', 'int64', 'int32', 'uint8', 'bool'])
    if kind == 'bool': return r.random(shape) < 0.5
    if kind in ('int64', 'int32', 'uint8'):
        hi = {'int64': 10**12, 'int32': 10**6, 'uint8': 256}[kind]
        return r.integers(0 if kind == 'uint8' else -hi, hi, shape).astype(kind)
    a = r.standard_normal(shape) * 10.0 ** r.integers(-9, 10, shape if r.random() < 0.3 else ())
    if r.random() < 0.3: a = np.round(a)
    a = np.asarray(a)
    flat = a.reshape(-1)
    for v in (nan, inf, -inf, 0.0, -0.0):
        if r.random() < 0.15: flat[r.integers(flat.size)] = v
    with np.errstate(over='ignore', invalid='ignore'): return a.astype(kind)

@pytest.mark.parametrize('seed', range(300))
def test_fuzz(seed):
    arr = _fuzz_array(seed)
    assert repr(litnn.tensor(arr)) == want(torch.tensor(arr))

@pytest.mark.parametrize('seed', range(100))
def test_fuzz_bfloat16(seed):
    arr = _fuzz_array(seed).astype(np.float32)
    assert repr(litnn.tensor(arr, dtype=litnn.bfloat16)) == want(torch.tensor(arr).to(torch.bfloat16))

@pytest.mark.parametrize('seed', range(100))
def test_fuzz_printoptions(seed, restore):
    r = np.random.default_rng(10_000 + seed)
    opts = dict(precision=int(r.integers(0, 9)), threshold=int(r.integers(1, 200)), edgeitems=int(r.integers(0, 5)),
                linewidth=int(r.integers(10, 150)), sci_mode=[None, True, False][r.integers(3)])
    litnn.set_printoptions(**opts); torch.set_printoptions(**opts)
    arr = _fuzz_array(seed)
    rg = arr.dtype.kind == 'f' and r.random() < 0.5
    assert repr(litnn.tensor(arr, requires_grad=rg)) == want(torch.tensor(arr, requires_grad=rg)), opts

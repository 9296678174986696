"""litnn.testing side by side with torch.testing: assert_close passes and fails on the same grid of inputs (tensors of
every dtype, numbers, booleans, None, numpy arrays, sequences, mappings, tolerances, nan and inf, attribute checks), with
the same exception type and the same message lines; assert_allclose likewise; make_tensor's ranges, shapes, strides and
errors match."""
import math, warnings

import numpy as np
import pytest

import litnn
import litnn.testing

torch = pytest.importorskip('torch')


def outcome(lib, case):
    "What `assert_close` does on `case(lib)`: None when it passes, else the exception type and message."
    actual, expected, kw = case(lib)
    try: lib.testing.assert_close(actual, expected, **kw)
    except Exception as e: return type(e), str(e)
    return None


def torch_msg(msg):
    "torch's message with torch's names in litnn's spelling."
    for a, b in [("<class 'torch.nn.parameter.Parameter'>", "<class 'litnn.nn.parameter.Parameter'>"), ('torch.', 'litnn.')]:
        msg = msg.replace(a, b)
    return msg


def T(values, dtype='float32'):
    "A case builder's tensor: the same values in either library."
    return lambda lib: lib.tensor(values, dtype=getattr(lib, dtype))


def pair(a, b, **kw): return lambda lib: (a(lib) if callable(a) else a, b(lib) if callable(b) else b, kw)


BASE = [1., -2., 3., 0.5]
CASES = {}
for dt in ['float16', 'bfloat16', 'float32', 'float64']:
    for rel in [0, 1e-9, 1e-7, 1e-6, 2e-6, 1e-5, 1e-4, 1e-3, 2e-2, 0.5]:
        CASES[f'{dt}-rel{rel}'] = pair(T(BASE, dt), T([v * (1 + rel) for v in BASE], dt))
    for absd in [1e-8, 1e-6, 2e-5, 1e-3]:
        CASES[f'{dt}-near0-abs{absd}'] = pair(T([0., 0., 1.], dt), T([absd, 0., 1.], dt))
for dt in ['int8', 'int16', 'int32', 'int64', 'uint8', 'bool']:
    a = [1, 0, 1, 1] if dt == 'bool' else [1, 2, 3, 100]
    b = [1, 1, 1, 0] if dt == 'bool' else [1, 5, 3, 7]
    CASES[f'{dt}-equal'] = pair(T(a, dt), T(a, dt))
    CASES[f'{dt}-differ'] = pair(T(a, dt), T(b, dt))
nan, inf = math.nan, math.inf
CASES.update({
    'nan': pair(T([1., nan]), T([1., nan])),
    'nan-equal_nan': pair(T([1., nan]), T([1., nan]), equal_nan=True),
    'nan-vs-number': pair(T([1., nan]), T([1., 2.])),
    'inf-equal': pair(T([inf, -inf]), T([inf, -inf])),
    'inf-sign': pair(T([inf, 1.]), T([-inf, 1.])),
    'inf-vs-finite': pair(T([inf, 1.]), T([1e30, 1.])),
    '0d-close': pair(lambda L: L.tensor(1.0), lambda L: L.tensor(1.0 + 1e-7)),
    '0d-far': pair(lambda L: L.tensor(1.0), lambda L: L.tensor(2.0)),
    '0d-int': pair(lambda L: L.tensor(3), lambda L: L.tensor(0)),
    '2d-index': pair(lambda L: L.arange(12.).reshape(3, 4), lambda L: L.arange(12.).reshape(3, 4) * L.tensor([1., 1., 1.5, 1.])),
    '3d-several': pair(lambda L: L.ones(2, 3, 2), lambda L: L.ones(2, 3, 2) + L.tensor([0., 1e-3, 0., 2e-3, 0., 1.]).reshape(2, 3, 1)),
    'expected-zero': pair(T([1., 0.]), T([1., 0.1])),
    'actual-zero': pair(T([0.1, 2.]), T([0., 2.])),
    'rtol-atol': pair(T([1., 2.]), T([1.1, 2.]), rtol=0.2, atol=0.),
    'rtol-atol-tight': pair(T([1., 2.]), T([1.1, 2.]), rtol=0.01, atol=0.05),
    'atol-only': pair(T([1., 2.]), T([1.1, 2.]), rtol=0., atol=0.2),
    'rtol-without-atol': pair(T([1.]), T([1.]), rtol=0.1),
    'atol-without-rtol': pair(T([1.]), T([1.]), atol=0.1),
    'dtype': pair(T([1., 2.]), T([1., 2.], 'float64')),
    'dtype-unchecked': pair(T([1., 2.]), T([1., 2.000001], 'float64'), check_dtype=False),
    'dtype-unchecked-far': pair(T([1., 2.]), T([1., 2.1], 'float64'), check_dtype=False),
    'dtype-int-float': pair(T([1, 2], 'int64'), T([1., 2.5]), check_dtype=False),
    'shape': pair(T([1., 2.]), T([[1., 2.]])),
    'stride-unchecked': pair(lambda L: L.zeros(2, 3), lambda L: L.zeros(3, 2).t()),
    'stride': pair(lambda L: L.zeros(2, 3), lambda L: L.zeros(3, 2).t(), check_stride=True),
    'stride-same': pair(lambda L: L.zeros(2, 3), lambda L: L.zeros(2, 3), check_stride=True),
    'parameter': pair(lambda L: L.nn.Parameter(L.ones(2)), lambda L: L.ones(2)),
    'parameter-strict': pair(lambda L: L.nn.Parameter(L.ones(2)), lambda L: L.ones(2), allow_subclasses=False),
    'tensor-vs-list': pair(T([1., 2.]), [1., 2.]),
    'tensor-vs-number': pair(lambda L: L.tensor(1.), 1.),
    'numpy': pair(np.arange(3.), np.arange(3.)),
    'numpy-far': pair(np.arange(3.), np.arange(3.) + [0, 0, 1]),
    'numpy-float32-int': pair(np.ones(2, np.float32), np.ones(2, np.int64)),
    'numpy-vs-tensor': pair(np.arange(3.), lambda L: L.arange(3.)),
    'int-int': pair(1, 1), 'int-int-far': pair(1, 2), 'int-float': pair(1, 1.0),
    'int-float-unchecked': pair(1, 1.0, check_dtype=False),
    'float-close': pair(1.0, 1.0 + 1e-8), 'float-far': pair(1.0, 1.001), 'float-zero': pair(1e-8, 0.0),
    'float-nan': pair(nan, nan), 'float-nan-equal': pair(nan, nan, equal_nan=True), 'float-inf': pair(inf, inf),
    'float-tol': pair(1.0, 1.5, rtol=0.6, atol=0.0),
    'complex': pair(1 + 1j, 1 + 1j), 'complex-far': pair(1 + 1j, 1 + 2j),
    'np-scalar': pair(np.float32(1.5), np.float32(1.5)), 'np-scalar-vs-float': pair(np.float64(1.5), 1.6),
    'bool': pair(True, True), 'bool-far': pair(True, False), 'np-bool': pair(np.bool_(True), True),
    'none': pair(None, None), 'none-vs-int': pair(None, 1), 'int-vs-none': pair(0, None),
    'str': pair('a', 'a'),
    'list': pair(lambda L: [L.ones(2), 1, 2.0], lambda L: [L.ones(2), 1, 2.0]),
    'list-far': pair(lambda L: [L.ones(2), 1, 2.0], lambda L: [L.ones(2), 1, 2.5]),
    'list-length': pair([1, 2, 3], [1, 2]),
    'tuple-vs-list': pair((1, 2), [1, 2]),
    'nested-ids': pair(lambda L: {'a': [L.ones(2), {'b': L.zeros(3)}]}, lambda L: {'a': [L.ones(2), {'b': L.tensor([0., 1., 0.])}]}),
    'mapping-keys': pair({'a': 1, 'b': 2}, {'a': 1, 'c': 2}),
    'mapping-unsortable-keys': pair({1: 1.0, 'x': 2.0}, {1: 1.0, 'x': 2.5}),
    'structure-before-values': pair([1.0, [1, 2]], [2.0, [1]]),
    'type-error-before-values': pair([1.0, 'a'], [2.0, 'b']),
    'msg-str': pair(T([1.]), T([2.]), msg='custom message'),
    'msg-callable': pair(T([1.]), T([2.]), msg=lambda m: f'Header\n\n{m}\n\nFooter'),
    'msg-structure-ignored': pair([1], [1, 2], msg='custom'),
    'msg-id': pair(lambda L: [L.ones(1), L.ones(1)], lambda L: [L.ones(1), L.zeros(1)], msg=lambda m: m.upper()),
    'empty': pair(T([]), T([])),
    'meta': pair(lambda L: L.empty(2, device='meta'), lambda L: L.empty(2, device='meta')),
    'meta-shape': pair(lambda L: L.empty(2, device='meta'), lambda L: L.empty(3, device='meta')),
    'meta-vs-cpu': pair(lambda L: L.empty(2, device='meta'), lambda L: L.zeros(2)),
    'meta-vs-cpu-unchecked': pair(lambda L: L.empty(2, device='meta'), lambda L: L.zeros(2), check_device=False),
})


def random_case(seed):
    "A seeded random case: values with perturbations of every size, some nan/inf/zeros, maybe explicit tolerances."
    rng = np.random.default_rng(seed)
    dt = ['float16', 'bfloat16', 'float32', 'float64', 'int32', 'int64', 'uint8', 'bool'][seed % 8]
    shape = [(), (5,), (2, 3), (2, 1, 4)][rng.integers(4)]
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)
    b = a + rng.standard_normal(shape) * 10.0 ** rng.integers(-12, 1, size=shape) * (rng.random(shape) < 0.5)
    if dt.startswith('float') or dt == 'bfloat16':
        for arr in (a, b):
            arr.reshape(-1)[rng.random(arr.size) < 0.1] = rng.choice([np.nan, np.inf, -np.inf, 0.0])
    else:
        lo = 0 if dt in ('uint8', 'bool') else -50
        a, b = rng.integers(lo, 50, shape), rng.integers(lo, 50, shape)
        b = np.where(rng.random(shape) < 0.7, a, b)
        if dt == 'bool': a, b = a % 2, b % 2
    kw = {}
    if rng.random() < 0.3: kw.update(rtol=float(10.0 ** rng.integers(-8, 0)), atol=float(10.0 ** rng.integers(-8, 0)))
    if rng.random() < 0.3: kw.update(equal_nan=True)
    a, b = np.asarray(a).tolist(), np.asarray(b).tolist()
    return lambda lib: (lib.tensor(a, dtype=getattr(lib, dt)), lib.tensor(b, dtype=getattr(lib, dt)), kw)


@pytest.mark.parametrize('seed', range(300))
def test_assert_close_on_a_random_grid_as_torch(seed):
    want, got = outcome(torch, random_case(seed)), outcome(litnn, random_case(seed))
    if want is None: assert got is None, got
    else: assert got is not None and (got[0], got[1].splitlines()) == (want[0], torch_msg(want[1]).splitlines())


@pytest.mark.parametrize('name', list(CASES))
def test_assert_close_decides_and_reports_as_torch(name):
    same_outcome(CASES[name])


def same_outcome(case):
    "`assert_close` on `case` passes in both libraries, or fails in both with the same exception class and message."
    want, got = outcome(torch, case), outcome(litnn, case)
    if want is None: assert got is None, got
    else:
        assert got is not None and got[0] is want[0], (want, got)
        assert got[1].splitlines() == torch_msg(want[1]).splitlines()


def test_the_grid_has_both_outcomes():
    results = [outcome(torch, c) for c in CASES.values()]
    assert sum(r is None for r in results) >= 30 and sum(r is not None for r in results) >= 60


ALLCLOSE = {
    'float32-loose': pair(T([1., 2.]), T([1.00005, 2.])),
    'float32-far': pair(T([1., 2.]), T([1.001, 2.])),
    'float64-loose': pair(T([1., 2.], 'float64'), T([1.000005, 2.], 'float64')),
    'float16': pair(T([1., 2.], 'float16'), T([1.0009, 2.], 'float16')),
    'list-expected': pair(T([1., 2.]), [1., 2.00001]),
    'list-actual': pair([1., 2.], T([1., 2.], 'float64')),
    'nan': pair(T([nan]), T([nan])),
    'dtype-promoted': pair(T([1, 2], 'int64'), T([1., 2.])),
    'tols': pair(T([1.]), T([1.5]), rtol=0.1, atol=0.1),
    'msg': pair(T([1.]), T([1.5]), msg='custom'),
}


def allclose_outcome(lib, case):
    actual, expected, kw = case(lib)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: lib.testing.assert_allclose(actual, expected, **kw)
        except Exception as e: return type(e), str(e), [x.category for x in w]
        return None, None, [x.category for x in w]


@pytest.mark.parametrize('name', list(ALLCLOSE))
def test_assert_allclose_as_torch(name):
    want, got = allclose_outcome(torch, ALLCLOSE[name]), allclose_outcome(litnn, ALLCLOSE[name])
    assert got[0] is want[0] and got[2] == want[2] == [FutureWarning]
    if want[1] is not None: assert got[1].splitlines() == torch_msg(want[1]).splitlines()


DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32', 'float64',
          'uint16', 'uint32', 'uint64', 'float8_e4m3fn', 'float8_e5m2', 'float8_e4m3fnuz', 'float8_e5m2fnuz']


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('low,high', [(None, None), (-3, 4), (0.5, 2.5), (-1e3, 1e3), (None, 5), (2, None)])
def test_make_tensor_range_shape_and_dtype(dt, low, high):
    kw = dict(dtype=getattr(litnn, dt), device='cpu', low=low, high=high)
    litnn.manual_seed(0); torch.manual_seed(0)
    try: want = torch.testing.make_tensor(5000, dtype=getattr(torch, dt), device='cpu', low=low, high=high)
    except Exception as e:
        with pytest.raises(type(e)) as got: litnn.testing.make_tensor(5000, **kw)
        assert str(got.value) == torch_msg(str(e))
        return
    got = litnn.testing.make_tensor(5000, **kw)
    assert got.dtype == kw['dtype'] and got.shape == (5000,)
    w, g = want.double().numpy(), got.double().numpy()
    assert w.min() >= g.min() - 0.1 * (w.max() - w.min() + 1) and g.max() <= w.max() + 0.1 * (w.max() - w.min() + 1)
    if dt in ('bool', 'uint8', 'int8', 'int16', 'int32', 'int64') and w.max() - w.min() < 50:
        assert (g.min(), g.max()) == (w.min(), w.max())   # 5000 draws hit every end of a small integer range
    assert abs(g.mean() - w.mean()) < 0.1 * (w.max() - w.min() + 1)


def test_make_tensor_float_range_respected():
    t = litnn.testing.make_tensor(10000, dtype=litnn.float64, device='cpu', low=-0.25, high=0.75).numpy()
    assert t.min() >= -0.25 and t.max() < 0.75 and abs(t.mean() - 0.25) < 0.02


@pytest.mark.parametrize('shape', [(3, 4), ((3, 4),), ([2, 3, 5],), (1,), (1, 1), (4,), ()])
@pytest.mark.parametrize('noncontiguous', [False, True])
def test_make_tensor_shapes_and_strides(shape, noncontiguous):
    want = torch.testing.make_tensor(*shape, dtype=torch.float32, device='cpu', noncontiguous=noncontiguous)
    got = litnn.testing.make_tensor(*shape, dtype=litnn.float32, device='cpu', noncontiguous=noncontiguous)
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    assert got.is_contiguous() == want.is_contiguous()


@pytest.mark.parametrize('dt', DTYPES)
def test_make_tensor_exclude_zero_and_requires_grad(dt):
    "The same seed draws the same values; exclude_zero then replaces exactly the zeros, with 1 or the smallest normal number."
    dtype, floating = getattr(litnn, dt), dt.startswith('float') or dt == 'bfloat16'
    info = litnn.finfo(dtype) if floating else None
    kw = dict(low=0, high=info.tiny * info.eps) if floating else dict(low=None, high=None) if dt == 'bool' else dict(low=0, high=2)
    litnn.manual_seed(7); plain = litnn.testing.make_tensor(500, dtype=dtype, device='cpu', **kw).double().numpy()
    litnn.manual_seed(7); kept = litnn.testing.make_tensor(500, dtype=dtype, device='cpu', exclude_zero=True, **kw).double().numpy()
    assert (plain == 0).sum() > 50 and not (kept == 0).any()
    fill = float(litnn.tensor(info.tiny, dtype=dtype).double().item()) if floating else 1.0
    assert np.array_equal(kept, np.where(plain == 0, fill, plain))
    if floating:      # (a float8 tensor comes back without grad, as torch's)
        assert litnn.testing.make_tensor(2, dtype=dtype, device='cpu', requires_grad=True).requires_grad != dt.startswith('float8')
        assert fill == torch.finfo(getattr(torch, dt)).tiny



@pytest.mark.parametrize('dt', ['complex64', 'complex128'])
@pytest.mark.parametrize('kw', [dict(), dict(low=-1, high=1, requires_grad=True), dict(noncontiguous=True), dict(low=0, high=3)], ids=str)
def test_make_tensor_complex_as_torch(dt, kw):
    "Complex dtypes: both parts drawn from the generator, as torch draws them (gradgradcheck's grad_outputs of complex outputs)."
    litnn.manual_seed(3); torch.manual_seed(3)
    want = torch.testing.make_tensor(4, 3, dtype=getattr(torch, dt), device='cpu', **kw)
    got = litnn.testing.make_tensor(4, 3, dtype=getattr(litnn, dt), device='cpu', **kw)
    assert got.dtype == getattr(litnn, dt) and got.requires_grad == want.requires_grad and got.stride() == want.stride()
    if dt == 'complex64': np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    else: np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=4e-16, atol=4e-16)   # torch fuses float64's x·(hi-lo)+lo

ERRORS = [dict(low=math.nan), dict(high=math.nan), dict(low=3, high=1), dict(low=1, high=1, dtype='int64'),
          dict(requires_grad=True, dtype='int32'), dict(requires_grad=True, dtype='bool'),
          dict(low=-10, high=-1, dtype='uint8'), dict(low=300, high=400, dtype='uint8'), dict(noncontiguous=True, memory_format='contiguous_format')]


@pytest.mark.parametrize('kw', ERRORS, ids=str)
def test_make_tensor_errors_as_torch(kw):
    kw = dict(kw); dt = kw.pop('dtype', 'float32'); mf = kw.pop('memory_format', None)
    def make(lib): return lib.testing.make_tensor(2, 3, dtype=getattr(lib, dt), device='cpu', memory_format=mf and getattr(lib, mf), **kw)
    with pytest.raises(Exception) as want: make(torch)
    with pytest.raises(want.type) as got: make(litnn)
    assert str(got.value) == torch_msg(str(want.value))


def test_make_tensor_low_equal_high_warns_as_torch():
    for lib in (torch, litnn):
        with pytest.warns(FutureWarning, match="Passing `low==high`"):
            t = lib.testing.make_tensor(3, dtype=lib.float32, device='cpu', low=2, high=2)
        assert t.tolist() == [2.0, 2.0, 2.0]


def test_default_tolerances_as_torch():
    for dts in [('float16',), ('bfloat16',), ('float32',), ('float64',), ('int64',), ('float32', 'float16'), ('bool', 'float64')]:
        want = torch.testing._comparison.default_tolerances(*(getattr(torch, d) for d in dts))
        assert litnn.testing._comparison.default_tolerances(*(getattr(litnn, d) for d in dts)) == want


def test_importable_as_torch_uses_it():
    from litnn.testing import assert_close, make_tensor
    assert litnn.testing.assert_close is assert_close and callable(make_tensor)


DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])


@pytest.mark.parametrize('device', DEVICES)
def test_on_each_device(device):
    x = litnn.testing.make_tensor(3, 4, dtype=litnn.float32, device=device, noncontiguous=True, exclude_zero=True)
    assert x.device.type == device and x.shape == (3, 4) and not x.is_contiguous()
    litnn.testing.assert_close(x, x.clone())
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 12 \(8.3%\)"):
        y = x.clone(); y[1, 2] += 1
        litnn.testing.assert_close(y, x)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_device_mismatch():
    a, b = litnn.ones(2), litnn.ones(2, device='cuda')
    with pytest.raises(AssertionError, match=r"^The values for attribute 'device' do not match: cpu != cuda:0\.$"):
        litnn.testing.assert_close(a, b)
    litnn.testing.assert_close(a, b, check_device=False)
    with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
        litnn.testing.assert_close(a, b * 2, check_device=False)


def coo(indices, values): return lambda L: L.sparse_coo_tensor(indices, values, size=(2, 2))
def compressed(kind, compressed_idx, plain_idx, values):
    return lambda L: getattr(L, f'sparse_{kind}_tensor')(compressed_idx, plain_idx, values, size=(2, 2))

# torch's test/test_testing.py (TestAssertCloseSparse*): sparse tensors compare by parts, each named in the message
SPARSE = {
    'coo-equal': pair(coo(((0, 1), (1, 0)), (1, 2)), coo(((0, 1), (1, 0)), (1, 2))),
    'coo-coalesced': pair(lambda L: coo(((0, 1), (1, 0)), (1, 2))(L).coalesce(), lambda L: coo(((0, 1), (1, 0)), (1, 2))(L).coalesce()),
    'coo-indices': pair(coo(((0, 1), (1, 0)), (1, 2)), coo(((0, 1), (1, 1)), (1, 2))),
    'coo-values': pair(coo(((0, 1), (1, 0)), (1., 2.)), coo(((0, 1), (1, 0)), (1., 3.))),
    'coo-nnz': pair(coo(((0, 1), (1, 0)), (1, 2)), coo(((0, 1, 1), (1, 0, 0)), (1, 1, 1))),
    'coo-sparse-dims': pair(lambda L: L.arange(24.).reshape(2, 3, 4).to_sparse(), lambda L: L.arange(24.).reshape(2, 3, 4).to_sparse(2)),
    'coo-vs-strided': pair(lambda L: L.eye(2).to_sparse(), lambda L: L.eye(2)),
    'coo-vs-strided-unchecked': pair(lambda L: L.eye(2).to_sparse(), lambda L: L.eye(2), check_layout=False),
    'csr-vs-coo-unchecked': pair(lambda L: L.eye(2).to_sparse_csr(), lambda L: L.eye(2).to_sparse(), check_layout=False),
    'coo-stride-checked': pair(lambda L: L.eye(2).to_sparse(), lambda L: L.eye(2).to_sparse(), check_stride=True),
}
for kind, (cname, pname) in dict(csr=('crow_indices', 'col_indices'), csc=('ccol_indices', 'row_indices'),
                                 bsr=('crow_indices', 'col_indices'), bsc=('ccol_indices', 'row_indices')).items():
    v, w = ((1, 2), (1, 3)) if kind in ('csr', 'csc') else (([[1]], [[2]]), ([[1]], [[3]]))
    SPARSE[f'{kind}-equal'] = pair(compressed(kind, (0, 1, 2), (1, 0), v), compressed(kind, (0, 1, 2), (1, 0), v))
    SPARSE[f'{kind}-{cname}'] = pair(compressed(kind, (0, 1, 2), (0, 1), v), compressed(kind, (0, 2, 2), (0, 1), v))
    SPARSE[f'{kind}-{pname}'] = pair(compressed(kind, (0, 1, 2), (1, 0), v), compressed(kind, (0, 1, 2), (1, 1), v))
    SPARSE[f'{kind}-values'] = pair(compressed(kind, (0, 1, 2), (1, 0), v), compressed(kind, (0, 1, 2), (1, 0), w))


@pytest.mark.parametrize('name', list(SPARSE))
def test_assert_close_sparse_as_torch(name):
    same_outcome(SPARSE[name])

"""clamp, clamp_min, clamp_max and their in-place forms with number bounds, against torch 2.13: a bound that does not fit
the result's dtype, a complex bound on a float tensor (read as a double), an in-place clamp of an integer or bool
tensor whose bounds would promote it (torch's meta function names the dtype as C++ does: `long int`)."""
import warnings
import pytest
import litnn
torch = pytest.importorskip('torch')

CALLS = {
    'clamp_min_over': lambda L, x: L.clamp_min(x, 300), 'clamp_max_under': lambda L, x: L.clamp_max(x, -300),
    'clamp_min_wraps': lambda L, x: L.clamp_min(x, -1), 'clamp_max_big': lambda L, x: L.clamp_max(x, 2 ** 40),
    'clamp_min_float_big': lambda L, x: L.clamp_min(x, 1e6), 'clamp_max_1e300': lambda L, x: L.clamp_max(x, 1e300),
    'clamp_min_inplace_over': lambda L, x: x.clone().clamp_min_(300),
    'clamp_complex_real': lambda L, x: L.clamp(x, 1 + 0j), 'clamp_complex': lambda L, x: L.clamp(x, 0.5j),
    'clamp_max_complex': lambda L, x: L.clamp(x, None, 1j), 'clamp_inplace_complex_real': lambda L, x: x.clone().clamp_(1 + 0j),
    'clamp_inplace_complex': lambda L, x: x.clone().clamp_(0.5j), 'clamp_out_complex': lambda L, x: L.clamp(x, 1j, out=L.empty(2, dtype=x.dtype)),
    'clamp_inplace_float_bounds': lambda L, x: x.clone().clamp_(0.5, 1.5), 'clip_inplace_float_bounds': lambda L, x: x.clone().clip_(0.5, 1.5),
    'clamp_min_inplace_float': lambda L, x: x.clone().clamp_min_(0.5), 'clamp_max_inplace_float': lambda L, x: x.clone().clamp_max_(max=0.5),
    'clamp_inplace_int_bounds': lambda L, x: x.clone().clamp_(1, 2), 'torch.clamp_': lambda L, x: L.clamp_(x.clone(), 0.5, 1.5),
    'clamp_min_inplace_complex': lambda L, x: x.clone().clamp_min_(1j), 'clamp_min_inplace_tensor': lambda L, x: x.clone().clamp_min_(L.tensor(0.5)),
}
DTYPES = ['uint8', 'int8', 'int32', 'int64', 'bool', 'float16', 'bfloat16', 'float32', 'float64']

def outcome(lib, name, dt):
    x = lib.tensor([1, 2], dtype=getattr(lib, dt))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = CALLS[name](lib, x)
        return r.float().tolist(), str(r.dtype).split('.')[-1]
    except Exception as e: return type(e).__name__, str(e)

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name', list(CALLS))
def test_clamp_number_bounds(name, dt):
    assert outcome(litnn, name, dt) == outcome(torch, name, dt)


@pytest.mark.parametrize('call', [lambda L, x: L.clamp(x, min=L.zeros(3), max=2), lambda L, x: L.clamp(x, 0, L.ones(3)),
                                  lambda L, x: x.clamp(L.zeros(3), 1.), lambda L, x: x.clip(L.zeros(3), 1.),
                                  lambda L, x: x.clone().clamp_(L.zeros(3), 1.)])
def test_a_tensor_bound_and_a_number_bound_are_no_overload(call):
    "torch's clamp takes two tensor bounds or two numbers: a tensor (not 0-d) with a number is a TypeError; a 0-d tensor reads as a number."
    for L in (torch, litnn):
        x = L.tensor([-1., 0.5, 3.])
        with pytest.raises(TypeError, match='invalid combination of arguments'): call(L, x)
        assert L.clamp(x, L.tensor(0.), 2).tolist() == [0., 0.5, 2.]


# Large float tensors with NaN (two payloads), infinities, +-0.0 and subnormals, clamped by number bounds (numpy's clip
# ufunc, one pass, where maximum/minimum against a number take a slow loop): values and gradients to the bit.
import numpy as np

def _special_values(dt, transposed):
    sp = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, -1e-39, 0.5, -0.5, 0.3, -0.3, 3.0, -3.0], np.float32)
    a = np.concatenate([np.tile(sp, 400), np.random.default_rng(1).standard_normal(20000).astype(np.float32)]).reshape(200, -1)
    a[0, 5] = np.array([0x7fc00123], np.uint32).view(np.float32)[0]      # a NaN with a payload
    a = a.astype(dt)
    return a.T.copy() if transposed else a

def _bits(t): return np.ascontiguousarray(t.detach().numpy()).view(np.uint8)

BOUNDS = [(-0.5, 0.5), (0.0, None), (None, 0.0), (-0.0, 0.0), (None, -0.0), (1.0, -1.0), (float('nan'), None), (None, float('nan')), (1e-45, None)]
FORMS = {'clamp': lambda L, x, lo, hi: L.clamp(x, lo, hi), 'clip_method': lambda L, x, lo, hi: x.clip(lo, hi),
         'clamp_min': lambda L, x, lo, hi: L.clamp_min(x, lo) if hi is None else L.clamp_max(x, hi) if lo is None else L.clamp(x, lo, hi),
         'clamp_': lambda L, x, lo, hi: x.clone().clamp_(lo, hi)}

@pytest.mark.parametrize('dt', ['float32', 'float64', 'float16'])
@pytest.mark.parametrize('transposed', [False, True])
@pytest.mark.parametrize('form', list(FORMS))
def test_large_clamp_with_number_bounds_is_torch_to_the_bit(dt, transposed, form):
    a = _special_values(dt, transposed)
    g = np.linspace(-1, 1, a.size).reshape(a.shape[::-1] if transposed else a.shape).astype(dt)
    for lo, hi in BOUNDS:
        if dt == 'float16' and (lo != lo or hi != hi): continue     # a NaN bound on float16: torch's payload differs (not this path)
        out = []
        for L in (litnn, torch):
            x = L.tensor(a, requires_grad=True)
            v = x.t() if transposed else x
            y = FORMS[form](L, v, lo, hi)
            y.backward(L.tensor(g))
            out.append((_bits(y), _bits(x.grad), tuple(y.stride())))
        (y1, g1, s1), (y2, g2, s2) = out
        assert (y1 == y2).all() and s1 == s2, (lo, hi)
        assert (g1 == g2).all(), (lo, hi)

"Elementwise functions on special values (NaN, +-inf, -0.0, huge) and on every dtype, compared with real torch on the same inputs."
import math
import numpy as np, pytest, torch
import litnn

SPECIAL = [float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1e30, -7.0, 2.5]

def _pair(fn, dtype, values=SPECIAL):
    "fn on the same values in torch and litnn: (torch's result as numpy, litnn's) in float64, or their exception types."
    out = []
    for lib in (torch, litnn):
        try:
            r = fn(lib, lib.tensor(values).to(getattr(lib, dtype)))
            out.append((str(r.dtype).split('.')[-1], r.to(lib.float64).numpy() if not r.dtype.is_complex else r.numpy()))
        except Exception as e:
            out.append(type(e))
    return out

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int8', 'bool'])
def test_angle_of_real_numbers_keeps_nan_and_reads_infinities(dtype):
    # the argument of a real number is pi below 0 and 0 elsewhere, NaN stays NaN: torch's angle of +inf is 0 and of -inf pi
    t, l = _pair(lambda lib, x: lib.angle(x), dtype)
    assert t[0] == l[0]
    np.testing.assert_array_equal(t[1], l[1])

# --- which dtypes each function's kernel takes: torch's AT_DISPATCH sets, seen from outside as NotImplementedError /
# RuntimeError for the dtypes a kernel was not built for. litnn computes most of these with numpy ufuncs that take any
# dtype, so each refusal is a check of its own.
FUNCTIONS = {
    'erf': lambda L, x: L.erf(x), 'erfc': lambda L, x: L.erfc(x), 'erfinv': lambda L, x: L.erfinv(x),
    'lgamma': lambda L, x: L.lgamma(x), 'digamma': lambda L, x: L.digamma(x), 'polygamma': lambda L, x: L.polygamma(1, x),
    'mvlgamma': lambda L, x: L.mvlgamma(x.abs() + 2, 2), 'i0': lambda L, x: L.i0(x), 'logit': lambda L, x: L.logit(x),
    'sinc': lambda L, x: L.sinc(x), 'deg2rad': lambda L, x: L.deg2rad(x), 'rad2deg': lambda L, x: L.rad2deg(x),
    'special.i0e': lambda L, x: L.special.i0e(x), 'special.i1': lambda L, x: L.special.i1(x), 'special.i1e': lambda L, x: L.special.i1e(x),
    'special.entr': lambda L, x: L.special.entr(x), 'special.ndtr': lambda L, x: L.special.ndtr(x), 'special.ndtri': lambda L, x: L.special.ndtri(x),
    'special.log_ndtr': lambda L, x: L.special.log_ndtr(x), 'special.erfcx': lambda L, x: L.special.erfcx(x),
    'special.xlog1py': lambda L, x: L.special.xlog1py(x, x), 'special.xlogy': lambda L, x: L.special.xlogy(x, x),
    'special.zeta': lambda L, x: L.special.zeta(x, x), 'special.round': lambda L, x: L.special.round(x),
    'special.expit': lambda L, x: L.special.expit(x), 'special.exp2': lambda L, x: L.special.exp2(x),
    'special.sinc': lambda L, x: L.special.sinc(x), 'special.log1p': lambda L, x: L.special.log1p(x),
    'special.gammaln': lambda L, x: L.special.gammaln(x), 'special.psi': lambda L, x: L.special.psi(x),
    'special.bessel_j0': lambda L, x: L.special.bessel_j0(x), 'special.modified_bessel_k0': lambda L, x: L.special.modified_bessel_k0(x),
    'searchsorted': lambda L, x: L.searchsorted(x.sort().values, x), 'bucketize': lambda L, x: L.bucketize(x, x.sort().values),
    'histogram': lambda L, x: L.histogram(x, 3).hist, 'histc': lambda L, x: L.histc(x, 3),
    'repeat_interleave': lambda L, x: L.repeat_interleave(x), 'gradient': lambda L, x: L.gradient(x)[0],
    'conj_physical_': lambda L, x: x.conj_physical_(), 'polar': lambda L, x: L.polar(x, x),   # (complex(): torch's complex32 from two float16 tensors is not in litnn)
    'erf_': lambda L, x: x.erf_(), 'sigmoid_': lambda L, x: x.sigmoid_(), 'exp_': lambda L, x: x.exp_(), 'abs_': lambda L, x: x.abs_(),
    'deg2rad_': lambda L, x: x.deg2rad_(), 'logit_': lambda L, x: x.logit_(), 'i0_': lambda L, x: x.i0_(), 'lgamma_': lambda L, x: x.lgamma_(),
}
DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool', 'complex64', 'complex128']

def _outcome(lib, fn, dtype):
    try:
        r = fn(lib, lib.tensor([0.25, 2.0, 0.5]).to(getattr(lib, dtype)))
        return 'ok', str(r.dtype).split('.')[-1]
    except Exception as e:
        return 'error', type(e).__name__

@pytest.mark.parametrize('name', list(FUNCTIONS))
def test_each_function_takes_the_dtypes_torch_takes(name):
    "Same dtypes accepted (with the same result dtype) and refused (with the same exception type) as torch."
    fn = FUNCTIONS[name]
    want = {d: _outcome(torch, fn, d) for d in DTYPES}
    got = {d: _outcome(litnn, fn, d) for d in DTYPES}
    assert got == want

# --- reductions and scans of empty tensors: where torch's kernel never runs, torch neither checks the dim (cummax,
# cummin) nor the dtype (amax/amin of complex numbers)
EMPTY_CASES = {
    'cummax 1-d dim 5': lambda L: L.cummax(L.tensor([]), 5), 'cummin 1-d dim -3': lambda L: L.cummin(L.tensor([]), -3),
    'cummax 2-d dim 2': lambda L: L.cummax(L.zeros(0, 3), 2), 'cummax non-empty dim 2': lambda L: L.cummax(L.zeros(2, 3), 2),
    'amax complex empty': lambda L: L.amax(L.zeros(3, 0, dtype=L.complex64), 0), 'amin complex empty': lambda L: L.amin(L.zeros(3, 0, dtype=L.complex64), 0),
    'amax complex': lambda L: L.amax(L.zeros(3, 2, dtype=L.complex64), 0), 'amax empty dim': lambda L: L.amax(L.zeros(0, 3), 0),
}

@pytest.mark.parametrize('name', list(EMPTY_CASES))
def test_empty_reductions_and_scans_as_torch(name):
    out = []
    for lib in (torch, litnn):
        try:
            r = EMPTY_CASES[name](lib)
            out.append([(str(t.dtype).split('.')[-1], tuple(t.shape)) for t in (r if isinstance(r, tuple) else (r,))])
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    assert out[0] == out[1]


def test_zeta_stops_where_cephes_stops_as_torch():
    """Hurwitz zeta: each element leaves the direct sum at its own step (9 terms, and on while q + i <= 9) and as soon as
    a term no longer changes the sum, as Cephes in torch: an infinite first term is then the answer (zeta(1e20, 0.5) = inf;
    litnn went on to inf * 0 = nan), and mixed arrays give each element torch's value (bit for bit but for pow's last bit)."""
    r = np.random.default_rng(3)
    s = np.concatenate([[1e20, 1e300, 1e20, 1e20, 5., 2., 7.], r.uniform(1, 30, 200), np.exp(r.uniform(0, 50, 60))])
    q = np.concatenate([[0.5, -1.5, 1e-300, -3.5, -3.5, 1e10, -2.5], r.uniform(-20, 30, 200), np.exp(r.uniform(-30, 30, 60))])
    s[7:207:3] = np.round(s[7:207:3])        # integer s: negative q allowed
    t = torch.special.zeta(torch.tensor(s), torch.tensor(q)).numpy()
    l = litnn.special.zeta(litnn.tensor(s), litnn.tensor(q)).numpy()
    assert np.isinf(l[:4]).all()
    np.testing.assert_array_equal(np.isnan(l), np.isnan(t))
    np.testing.assert_allclose(l, t, rtol=1e-12, equal_nan=True)

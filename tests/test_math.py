"Pointwise math (reference/torch/pointwise_math) and gamma functions (reference/special) against PyTorch: values, dtypes, grad_fn names, gradients, gradcheck, errors."
import math, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck, gradgradcheck
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)

def pair(a, rg=True):
    return litnn.tensor(a, requires_grad=rg), torch.tensor(a, requires_grad=rg)

def node(t): return type(t.grad_fn).__name__ if t.grad_fn is not None else None

def compare(ol, ot, rtol=1e-6, atol=1e-7, name=True):
    assert ol.dtype.name == str(ot.dtype).split('.')[-1], (ol.dtype, ot.dtype)
    assert tuple(ol.shape) == tuple(ot.shape)
    np.testing.assert_allclose(ol.detach().numpy().astype(np.float64), ot.detach().numpy().astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    if name: assert (ol.grad_fn.name() if ol.grad_fn is not None else None) == node(ot)

def check(fl, ft, *arrays, rtol=1e-6, atol=1e-7, grad=True, name=True):
    "Run both functions on the same arrays (numbers pass as they are); compare outputs and gradients of a random projection."
    ls = [litnn.tensor(a, requires_grad=grad and a.dtype.kind == 'f') if isinstance(a, np.ndarray) else a for a in arrays]
    ts = [torch.tensor(a, requires_grad=grad and a.dtype.kind == 'f') if isinstance(a, np.ndarray) else a for a in arrays]
    ol, ot = fl(*ls), ft(*ts)
    compare(ol, ot, rtol, atol, name)
    if grad and ot.requires_grad:
        g = rng.standard_normal(tuple(ot.shape)).astype(str(ot.dtype).split('.')[-1])
        ol.backward(litnn.tensor(g)); ot.backward(torch.tensor(g))
        for a, b in zip(ls, ts):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(force=True), rtol=rtol * 10, atol=atol * 10, equal_nan=True)

UNARY = dict(tan=(-1.2, 1.2), sinh=(-3, 3), cosh=(-3, 3), asin=(-0.95, 0.95), acos=(-0.95, 0.95), atan=(-5, 5),
             asinh=(-5, 5), acosh=(1.1, 5), atanh=(-0.95, 0.95), log2=(0.1, 5), log10=(0.1, 5), exp2=(-3, 3),
             erfc=(-4, 6), erfinv=(-0.999, 0.999), deg2rad=(-360, 360), rad2deg=(-4, 4), frac=(-5, 5), sgn=(-2, 2),
             lgamma=(0.05, 30), digamma=(0.05, 30), arcsin=(-0.9, 0.9), arctanh=(-0.9, 0.9), fix=(-3, 3), absolute=(-3, 3))

@pytest.mark.parametrize('name', UNARY)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_unary_vs_torch(name, dtype):
    lo, hi = UNARY[name]
    a = rng.uniform(lo, hi, (3, 4)).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    if name == 'digamma' and dtype == np.float64: tol['rtol'] = 1e-8    # its gradient is torch's trigamma: 1e-9 relative error
    check(getattr(litnn, name), getattr(torch, name), a, **tol)
    check(getattr(litnn.Tensor, name), getattr(torch.Tensor, name), a, **tol)

@pytest.mark.parametrize('name', ['tan', 'asinh', 'erfc', 'erfinv', 'lgamma', 'digamma', 'deg2rad', 'sgn', 'log2'])
def test_unary_integers_and_inplace(name):
    a = np.array([1, 0, 2])
    ol, ot = getattr(litnn, name)(litnn.tensor(a)), getattr(torch, name)(torch.tensor(a))
    assert ol.dtype.name == str(ot.dtype).split('.')[-1]
    np.testing.assert_allclose(ol.numpy(), ot.numpy(), rtol=1e-6)
    x, y = litnn.tensor([0.3, 0.6]), torch.tensor([0.3, 0.6])
    assert getattr(x, name + '_')() is x
    getattr(y, name + '_')()
    np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)
    if name != 'sgn': same_error(lambda lib: getattr(lib.tensor([1, 2]), name + '_')())

def test_frac_of_integers_is_an_error():
    assert same_error(lambda lib: lib.frac(lib.tensor([1, 2]))) is NotImplementedError

def test_special_values_vs_torch():
    x = np.array([0., -0., 1., -1., 0.5, -0.5, 1e-300, 1e300, np.inf, -np.inf, np.nan, 2., -2.5, 1.5, 1 - 1e-12, -1e-10,
                  -2., -3., -100., -1e20, 171.5, 1e-8, -1 + 1e-9, 1 - 2 ** -53, 1 - 1e-9, 1 - 3e-8])
    for name in ('erfc', 'erfinv', 'lgamma', 'digamma', 'asin', 'atanh', 'acosh', 'tan'):
        ol, ot = getattr(litnn, name)(litnn.tensor(x)), getattr(torch, name)(torch.tensor(x))
        np.testing.assert_allclose(ol.numpy(), ot.numpy(), rtol=1e-13, atol=1e-300, equal_nan=True, err_msg=name)

def test_lgamma_digamma_wide_range_vs_torch():
    x = np.concatenate([rng.uniform(-50, 50, 2000), np.geomspace(1e-8, 1e8, 300), -np.geomspace(1e-8, 20, 300) - 0.123,
                        1 + np.linspace(-0.4, 0.4, 101), 2 + np.linspace(-0.4, 0.4, 101)])
    for name in ('lgamma', 'digamma'):
        ol, ot = getattr(litnn, name)(litnn.tensor(x)).numpy(), getattr(torch, name)(torch.tensor(x)).numpy()
        scale = np.maximum(np.abs(ot), 1e-2)          # near a root, absolute error against the function's scale
        assert np.nanmax(np.abs(ol - ot) / scale) < 1e-12, name

@pytest.mark.parametrize('n', [1, 2, 3, 4])
def test_polygamma_vs_torch(n):
    x = np.concatenate([rng.uniform(0.1, 30, 200), -rng.uniform(0.05, 4, 50)])
    x = x[np.abs(x - np.round(x)) > 0.05]
    ol, ot = litnn.polygamma(n, litnn.tensor(x)).numpy(), torch.polygamma(n, torch.tensor(x)).numpy()
    np.testing.assert_allclose(ol, ot, rtol=1e-8 if n == 1 else 1e-11)    # torch's trigamma has about 1e-9 relative error
    assert node(torch.polygamma(n, torch.tensor(x, requires_grad=True))) == litnn.polygamma(n, litnn.tensor(x, requires_grad=True)).grad_fn.name()

def test_gamma_gradients_gradcheck():
    x = litnn.tensor([0.3, 1.2, 2.5, 7.5, -1.5], dtype=litnn.float64, requires_grad=True)
    for f in (litnn.lgamma, litnn.digamma, lambda t: litnn.polygamma(2, t), litnn.erfinv, litnn.erfc):
        y = litnn.tensor([0.3, -0.2, 0.5, 0.9, -0.95], dtype=litnn.float64, requires_grad=True)
        assert gradcheck(f, (y if f in (litnn.erfinv,) else x,))
        assert gradgradcheck(f, (y if f in (litnn.erfinv,) else x,))
    for f in (litnn.tan, litnn.sinh, litnn.asin, litnn.acos, litnn.atan, litnn.asinh, litnn.atanh, litnn.exp2, litnn.log10):
        y = litnn.tensor([0.3, 0.2, 0.5, 0.9, 0.7], dtype=litnn.float64, requires_grad=True)
        assert gradcheck(f, (y,)) and gradgradcheck(f, (y,))

BINARY = dict(atan2=((-2, 2), (-2, 2)), hypot=((-2, 2), (-2, 2)), xlogy=((-2, 2), (0.1, 3)), copysign=((-2, 2), (-2, 2)),
              fmod=((-5, 5), (0.5, 2)), logaddexp=((-3, 3), (-3, 3)), logaddexp2=((-3, 3), (-3, 3)),
              float_power=((0.5, 2), (-2, 2)), arctan2=((-2, 2), (-2, 2)))

@pytest.mark.parametrize('name', BINARY)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_binary_vs_torch(name, dtype):
    (a0, a1), (b0, b1) = BINARY[name]
    a, b = rng.uniform(a0, a1, (3, 4)).astype(dtype), rng.uniform(b0, b1, (4,)).astype(dtype)   # broadcasting
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    check(getattr(litnn, name), getattr(torch, name), a, b, **tol)
    check(getattr(litnn.Tensor, name), getattr(torch.Tensor, name), a, b, **tol)

@pytest.mark.parametrize('name', ['xlogy', 'copysign', 'fmod', 'float_power'])
def test_binary_with_numbers(name):
    a = rng.uniform(0.5, 2, (5,))
    check(getattr(litnn, name), getattr(torch, name), a, 1.5, rtol=1e-12)
    if name in ('xlogy', 'float_power'): check(getattr(litnn, name), getattr(torch, name), 2, a, rtol=1e-12)

@pytest.mark.parametrize('name', ['atan2', 'copysign', 'fmod', 'xlogy', 'float_power', 'logaddexp', 'hypot'])
def test_binary_integer_dtypes(name):
    f = lambda lib: getattr(lib, name)(lib.tensor([1, 2]), lib.tensor([3, 4]))
    try: ot = f(torch)
    except Exception: same_error(f); return
    ol = f(litnn)
    assert ol.dtype.name == str(ot.dtype).split('.')[-1]
    np.testing.assert_allclose(ol.numpy(), ot.numpy(), rtol=1e-6)

def test_binary_errors():
    for f in (lambda lib: lib.atan2(lib.tensor([1.]), 2), lambda lib: lib.hypot(lib.tensor([1]), lib.tensor([2])),
              lambda lib: lib.fmod(lib.tensor([1]), lib.tensor([0])), lambda lib: lib.logaddexp(lib.tensor([1.]), 2),
              lambda lib: lib.atan2(lib.ones(2), lib.ones(3)), lambda lib: lib.bitwise_left_shift(lib.tensor([1.]), 1)):
        same_error(f)

def test_conventions_at_the_awkward_points():
    "atan2 at the origin (gradient 0), hypot at the origin (NaN), xlogy at x = 0, copysign at 0, sign/sgn: as torch."
    zeros = np.array([0., -0., 0., 1.])
    for name, b in (('atan2', np.array([0., 0., -0., 2.])), ('hypot', np.array([0., 0., 0., 2.])),
                    ('xlogy', np.array([0., 1., 2., 2.])), ('copysign', np.array([1., -1., 0., -2.]))):
        check(getattr(litnn, name), getattr(torch, name), zeros, b, rtol=1e-12)
    for name in ('sign', 'sgn', 'abs'):
        check(getattr(litnn, name), getattr(torch, name), zeros, rtol=1e-12)

def test_binary_gradcheck():
    x = litnn.tensor([[0.3, -1.2, 2.5], [0.7, 1.1, -0.4]], dtype=litnn.float64, requires_grad=True)
    y = litnn.tensor([0.5, 1.3, 0.9], dtype=litnn.float64, requires_grad=True)
    for f in (litnn.atan2, litnn.hypot, litnn.xlogy, litnn.logaddexp, litnn.logaddexp2, litnn.fmod,
              lambda a, b: litnn.float_power(a.abs() + 0.1, b), lambda a, b: litnn.lerp(a, b.expand(2, 3), b * 0.3)):
        assert gradcheck(f, (x, y)), f
        assert gradgradcheck(f, (x, y)), f

def test_lerp_vs_torch():
    a, b, w = rng.standard_normal((3, 4)), rng.standard_normal((4,)), rng.uniform(0, 1, (3, 1))
    for weight in (0.25, 0.75, 1.0, w):
        check(litnn.lerp, torch.lerp, a, b, weight, rtol=1e-12)
        check(litnn.lerp, torch.lerp, a.astype(np.float32), b.astype(np.float32),
              weight.astype(np.float32) if isinstance(weight, np.ndarray) else weight, rtol=1e-6)
    same_error(lambda lib: lib.lerp(lib.tensor([1.]), lib.tensor([2.], dtype=lib.float64), 0.5))
    same_error(lambda lib: lib.lerp(lib.tensor([1]), lib.tensor([2]), 0.5))
    x, y = litnn.tensor([1., 2.]), torch.tensor([1., 2.])
    x.lerp_(litnn.tensor([3., 5.]), 0.5); y.lerp_(torch.tensor([3., 5.]), 0.5)
    assert x.tolist() == y.tolist()

def test_nan_to_num_clamp_min_max():
    a = np.array([np.nan, np.inf, -np.inf, 1.5, -2.])
    check(litnn.nan_to_num, torch.nan_to_num, a, rtol=0)
    check(lambda t: litnn.nan_to_num(t, nan=1., posinf=9., neginf=-9.), lambda t: torch.nan_to_num(t, nan=1., posinf=9., neginf=-9.), a.astype(np.float32), rtol=0)
    b = rng.standard_normal(6)
    check(lambda t: litnn.clamp_min(t, 0.1), lambda t: torch.clamp_min(t, 0.1), b, rtol=0)
    check(lambda t: t.clamp_max(0.1), lambda t: t.clamp_max(0.1), b, rtol=0)
    check(litnn.clamp_min, torch.clamp_min, b, rng.standard_normal(6), rtol=0)
    check(litnn.clamp_max, torch.clamp_max, b, rng.standard_normal(6), rtol=0)
    assert litnn.clamp_min(litnn.tensor([1, 5]), 3).dtype == litnn.int64
    x = litnn.tensor([1., 5.]); x.clamp_max_(2.)
    assert x.tolist() == [1., 2.]

def test_shifts():
    a = np.array([1, -8, 5])
    for f in (lambda lib, t: lib.bitwise_left_shift(t, 2), lambda lib, t: lib.bitwise_right_shift(t, 1),
              lambda lib, t: t << 3, lambda lib, t: t >> 1, lambda lib, t: 1 << t.abs()):
        assert f(litnn, litnn.tensor(a)).tolist() == f(torch, torch.tensor(a)).tolist()
    x = litnn.tensor([1, 2]); x <<= 2
    assert x.tolist() == [4, 8]

def test_aliases_and_inplace_binary():
    assert litnn.arctan2 is litnn.atan2 and litnn.arcsinh is litnn.asinh and litnn.fix is litnn.trunc
    x, y = litnn.tensor([1., -2.]), torch.tensor([1., -2.])
    for name, arg in (('atan2_', [2., 3.]), ('hypot_', [1., 1.]), ('copysign_', [-1., 1.]), ('fmod_', [0.7, 0.7]), ('xlogy_', [2., 3.])):
        getattr(x, name)(litnn.tensor(arg)); getattr(y, name)(torch.tensor(arg))
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)

def test_special_namespace():
    a = rng.uniform(0.5, 3, 5)
    for name in ('gammaln', 'psi', 'digamma', 'erf', 'erfc', 'erfinv', 'expit', 'exp2', 'expm1', 'log1p'):
        check(getattr(litnn.special, name), getattr(torch.special, name), a * 0.3, rtol=1e-12)
    check(lambda t: litnn.special.polygamma(2, t), lambda t: torch.special.polygamma(2, t), a, rtol=1e-11)
    check(litnn.special.xlogy, torch.special.xlogy, a, a, rtol=1e-12)
    q = rng.uniform(0.5, 3, 5)
    check(litnn.special.zeta, torch.special.zeta, a + 1.5, q, rtol=1e-12, grad=False)

def test_float_power_inplace():
    x, y = litnn.tensor([2., 3.], dtype=litnn.float64), torch.tensor([2., 3.], dtype=torch.float64)
    x.float_power_(0.5); y.float_power_(0.5)
    np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-15)
    with pytest.raises(RuntimeError) as te: torch.tensor([2.]).float_power_(2)
    with pytest.raises(RuntimeError) as le: litnn.tensor([2.]).float_power_(2)
    assert str(le.value) == str(te.value)

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])

@pytest.mark.parametrize('device', DEVICES)
def test_on_each_device(device):
    "The array code is backend-neutral: the same values on every device as numpy's on the CPU."
    x = rng.uniform(0.1, 0.9, (3, 4))
    for f in (litnn.erfinv, litnn.erfc, litnn.lgamma, litnn.digamma, lambda t: litnn.polygamma(2, t), litnn.atanh,
              lambda t: litnn.atan2(t, t.flip(0)), lambda t: litnn.lerp(t, t * 2, 0.3), lambda t: litnn.xlogy(t, t),
              lambda t: litnn.logaddexp(t, -t), litnn.nan_to_num):
        on = f(litnn.tensor(x, device=device))
        assert on.device.type == device
        np.testing.assert_allclose(on.cpu().numpy(), f(litnn.tensor(x)).numpy(), rtol=1e-12)
        t = litnn.tensor(x, device=device, requires_grad=True)
        f(t).sum().backward()
        assert t.grad.device.type == device

def test_bitwise_logical_inplace():
    for name, other in (('bitwise_and_', [6, 3]), ('bitwise_or_', [6, 3]), ('bitwise_xor_', [6, 3]), ('logical_and_', [0, 3]),
                        ('logical_or_', [0, 0]), ('logical_xor_', [1, 0])):
        x, y = litnn.tensor([5, 2]), torch.tensor([5, 2])
        assert getattr(x, name)(litnn.tensor(other)) is x
        getattr(y, name)(torch.tensor(other))
        assert x.tolist() == y.tolist() and x.dtype.name == str(y.dtype).split('.')[-1]
    x, y = litnn.tensor([5, 2]), torch.tensor([5, 2])
    x.bitwise_not_(); y.bitwise_not_(); assert x.tolist() == y.tolist()
    x, y = litnn.tensor([0., 2.]), torch.tensor([0., 2.])
    x.logical_not_(); y.logical_not_(); assert x.tolist() == y.tolist()

@pytest.mark.parametrize('name', ['logit', 'sinc', 'entr', 'ndtr', 'ndtri', 'log_ndtr'])
def test_more_special_vs_torch(name):
    x = rng.uniform(0.02, 0.98, (3, 4)) if name in ('logit', 'ndtri') else rng.uniform(-3, 3, (3, 4))
    if name == 'entr': x = np.abs(x) + 0.01
    named = name != 'ndtr'          # torch's ndtr is a product with a number: MulBackward1 (litnn: MulBackward0)
    check(getattr(litnn.special, name), getattr(torch.special, name), x, rtol=1e-10, atol=1e-12, name=named)
    check(getattr(litnn.special, name), getattr(torch.special, name), x.astype(np.float32), rtol=1e-5, atol=1e-6, name=named)
    assert gradcheck(getattr(litnn.special, name), (litnn.tensor(x, requires_grad=True),))

def test_logit_eps_sinc_mvlgamma_xlog1py():
    x = np.array([0., 0.3, 1.5, -0.2, 0.05, 1.])
    check(lambda t: litnn.logit(t, eps=0.1), lambda t: torch.logit(t, eps=0.1), x, rtol=1e-12)
    check(litnn.logit, torch.logit, x[1:2], rtol=1e-12)
    check(litnn.sinc, torch.sinc, np.array([0., 0.5, -1.5, 2.]), rtol=1e-12)
    a = rng.uniform(2, 5, (4,))
    for p in (1, 2, 3):
        check(lambda t: litnn.mvlgamma(t, p), lambda t: torch.mvlgamma(t, p), a, rtol=1e-12)
        check(lambda t: litnn.special.multigammaln(t, p), lambda t: torch.special.multigammaln(t, p), a, rtol=1e-12)
    check(litnn.special.xlog1py, torch.special.xlog1py, np.array([0., 1., 2.]), np.array([-1., 0.5, 3.]), rtol=1e-12)
    x = np.array([-1e5, -30., -20.5, -19.5, -5., 0., 5., 10., 40.])
    np.testing.assert_allclose(litnn.special.log_ndtr(litnn.tensor(x)).numpy(), torch.special.log_ndtr(torch.tensor(x)).numpy(), rtol=1e-13)
    np.testing.assert_allclose(litnn.special.log_ndtr(litnn.tensor(x, dtype=litnn.float32)).numpy(), torch.special.log_ndtr(torch.tensor(x, dtype=torch.float32)).numpy(), rtol=1e-6)

def test_zero_d_and_empty():
    for name in ('erfc', 'erfinv', 'lgamma', 'digamma', 'tan', 'logit', 'sinc'):
        f, g = getattr(litnn, name) if hasattr(litnn, name) else getattr(litnn.special, name), getattr(torch, name) if hasattr(torch, name) else getattr(torch.special, name)
        for v in (0.5, -0.25):
            ol, ot = f(litnn.tensor(v)), g(torch.tensor(v))
            assert ol.shape == () and (abs(ol.item() - ot.item()) < 1e-6 or (math.isnan(ol.item()) and math.isnan(ot.item())))
        assert f(litnn.ones(2, 0)).shape == (2, 0)
    assert litnn.polygamma(2, litnn.ones(0)).shape == (0,)
    assert litnn.cumprod(litnn.ones(0), 0).shape == (0,) and litnn.logcumsumexp(litnn.ones(3, 0), 1).shape == (3, 0)
    assert litnn.cummax(litnn.ones(3, 0), 1).values.shape == (3, 0)
    x = litnn.tensor(2., requires_grad=True)
    litnn.erfinv(x * 0.1).backward()
    y = torch.tensor(2., requires_grad=True)
    torch.erfinv(y * 0.1).backward()
    assert abs(x.grad.item() - y.grad.item()) < 1e-6

def test_zeta_is_differentiable_in_q_only():
    x, q = np.array([2., 3.5, 4.]), rng.uniform(0.5, 3, 3)
    ql, qt = litnn.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    zl, zt = litnn.special.zeta(litnn.tensor(x), ql), torch.special.zeta(torch.tensor(x), qt)
    assert node(zl) == node(zt) == 'SpecialZetaBackward0'
    zl.sum().backward(); zt.sum().backward()
    np.testing.assert_allclose(ql.grad.numpy(), qt.grad.numpy(), rtol=1e-12)
    for lib in (litnn, torch):      # scalar x, broadcast q: the gradient reduced to q's shape
        a = lib.tensor([[1.], [2.]], dtype=lib.float64, requires_grad=True)
        lib.special.zeta(3., a.expand(2, 3)).sum().backward()
        if lib is litnn: gl = a.grad.numpy()
    np.testing.assert_allclose(gl, a.grad.numpy(), rtol=1e-12)
    for lib in (litnn, torch):
        xs = lib.tensor(x, requires_grad=True)
        with pytest.raises(NotImplementedError, match="derivative for 'zeta' is not implemented"):
            lib.special.zeta(xs, lib.tensor(q)).sum().backward()

def test_special_edges_as_torch():
    x = np.array([-np.inf, -0.5, 0., 1., 2.5, np.inf, np.nan])     # (not a pole below 0: torch's trigamma gives rounding noise there)
    for f in (lambda lib, t: lib.special.entr(t), lambda lib, t: lib.polygamma(1, t)):
        np.testing.assert_allclose(f(litnn, litnn.tensor(x)).numpy(), f(torch, torch.tensor(x)).numpy(), rtol=1e-8)
    assert math.copysign(1, litnn.special.entr(litnn.tensor([1.])).item()) == -1      # -1·log 1 = -0.0, as torch's
    p = np.array([-0.1, 1e-8, 0.3, 0.9, 1.2])       # logit's derivative outside [0, 1]: NaN without eps, 0 with it
    for eps in (None, 0.05):
        pl, pt = litnn.tensor(p, requires_grad=True), torch.tensor(p, requires_grad=True)
        litnn.special.logit(pl, eps).sum().backward(); torch.special.logit(pt, eps).sum().backward()
        np.testing.assert_allclose(pl.grad.numpy(), pt.grad.numpy(), rtol=1e-12, equal_nan=True)
    d = litnn.tensor([np.inf], requires_grad=True); litnn.digamma(d).backward()
    assert d.grad.item() == 0.
    assert same_error(lambda lib: lib.special.multigammaln(lib.tensor([2.]), 0)) is RuntimeError


@pytest.mark.parametrize('vals', [
    [complex(-math.inf, 4), complex(-math.inf, 1), 1.2 + 2.1j, 1e10 + 1e20j, complex(math.inf, 0), complex(math.inf, 1),
     complex(math.inf, 3), complex(math.nan, 2)],
    [complex(-math.inf, math.inf), complex(-math.inf, math.inf), complex(-math.inf, 1), 1.2 + 2.1j, complex(2.4, math.inf)],
    [1e3 + 0j, 1e-18 + 1e4j, 1e2 + 1e-8j],
    [0.5 + 1j, -0.3 - 2j, 1 + 0.1j],
])
def test_logcumsumexp_complex_infinities_and_nans(vals):
    "torch's complex helper: -inf real parts give -inf + 0j, +inf ones log(e^a + e^b), a NaN stays NaN + NaN j; from -inf + 0j."
    l = litnn.logcumsumexp(litnn.tensor(vals), 0).numpy()
    t = torch.logcumsumexp(torch.tensor(vals), 0).numpy()
    np.testing.assert_allclose(l, t, rtol=1e-6, equal_nan=True)
    assert l.dtype == t.dtype


def test_sinc_gradient_is_zero_where_x_squared_underflows():
    "torch's sinc_backward masks where x² π is 0 (x = 0 or tiny x whose square underflows): 0, not NaN; gradcheck passes there (PyTorch's test_sinc)."
    vals = {'float64': [0.0, np.finfo(np.float64).tiny, 1.0, 1e-200, 1e-160, -3e-170, 0.5], 'float32': [0.0, float(np.finfo(np.float32).tiny), 1e-30, 1e-20, 1.0]}
    for dt, v in vals.items():
        grads = []
        for L in (litnn, torch):
            a = L.tensor(v, dtype=getattr(L, dt), requires_grad=True)
            L.sinc(a).sum().backward(); grads.append(a.grad.tolist())
        assert grads[0] == grads[1]
    a = litnn.tensor([0.0, np.finfo(np.float64).tiny, 1.0], dtype=litnn.float64, requires_grad=True)
    assert gradcheck(litnn.sinc, (a,))

"""Gradients and reductions at extreme magnitudes, against torch: no intermediate may leave the float range
where the answer does not (issue 12: division's divisor gradient, float32 `std`/`var`)."""
import math, warnings
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
torch = pytest.importorskip('torch')


def run(lib, f, *arrays):
    "Values and gradients of `f(lib, *tensors)` (summed to a scalar) for leaves made from `arrays`."
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        y = f(lib, *xs)
        y.sum().backward()
    return y.detach().numpy(), [x.grad.numpy() for x in xs]


def assert_same(f, *arrays, rtol=1e-6):
    "litnn and torch agree on values and gradients, with NaN and inf in the same places."
    (ly, lg), (ty, tg) = run(litnn, f, *arrays), run(torch, f, *arrays)
    for a, b in zip([ly, *lg], [ty, *tg]):       # rounding noise is judged against the array's largest value
        finite = np.abs(b[np.isfinite(b)])
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * finite.max() if finite.size else 0)
    return ly, lg


def test_softmax_by_division_float32():
    "issue 12: `e / e.sum()` with e ~ 1e19: y*y overflowed float32 and the divisor's gradient was 0."
    z = np.array([45., 44., 40.], np.float32)
    _, (g,) = assert_same(lambda lib, z: (z.exp() / z.exp().sum())[0], z, rtol=1e-5)
    np.testing.assert_allclose(g, [0.198, -0.195, -0.0036], atol=1e-3)


def test_divisor_gradient_underflow_float64():
    "issue 12: x = y = 1e-170: y*y underflowed to 0 and y.grad was -inf (torch: -1e170)."
    a = np.array([1e-170])
    _, (gx, gy) = assert_same(lambda lib, x, y: x / y, a, a.copy())
    assert gx.tolist() == [1e170] and gy.tolist() == [-1e170]


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('scale', [1e-30, 1e-15, 1., 1e15, 1e30])
def test_division_gradients_at_scale(dtype, scale):
    "Both gradients of x / y, broadcast, over magnitudes where y*y leaves float32's range."
    rng = np.random.default_rng(0)
    x = (rng.uniform(0.5, 2, (3, 4)) * scale).astype(dtype)
    y = (rng.uniform(0.5, 2, (4,)) * scale).astype(dtype)
    assert_same(lambda lib, x, y: x / y, x, y, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_number_divided_by_tensor():
    "`div(number, tensor)` keeps the number as it is in the divisor's gradient."
    y = np.array([1e-170, 3e-170])
    assert_same(lambda lib, y: lib.div(2.0, y) * 1e-170, y)


def test_division_gradcheck():
    x = litnn.tensor([[0.5, -2.], [3., 1.5]], dtype=litnn.float64, requires_grad=True)
    y = litnn.tensor([1.5, -0.7], dtype=litnn.float64, requires_grad=True)
    assert gradcheck(lambda x, y: x / y, (x, y))


def test_divisor_gradient_second_order():
    "create_graph: the double-division formula is differentiated again, as torch's."
    def f(lib):
        x = lib.tensor([1.5, -2.], dtype=lib.float64, requires_grad=True)
        y = lib.tensor([0.5, 3.], dtype=lib.float64, requires_grad=True)
        gy, = (lib.autograd.grad((x / y).sum(), y, create_graph=True))
        return [g.tolist() for g in lib.autograd.grad(gy.sum(), (x, y))]
    a, b = f(litnn), f(torch)
    np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-12)


@pytest.mark.parametrize('scale', [1e20, 1e-25, 1e30, 1e-35, 1.])
@pytest.mark.parametrize('fn', ['std', 'var'])
def test_float32_std_var_at_scale(fn, scale):
    "issue 12: float32 std was inf around 1e20 and 0 around 1e-25: the squares are accumulated in float64, as torch."
    x = (np.array([[1., 2., 4., -3.], [0.5, 0.25, 7., 1.]]) * scale).astype(np.float32)
    for kw in ({}, {'dim': 1}, {'dim': 0, 'correction': 0}, {'dim': 1, 'keepdim': True}):
        y, _ = assert_same(lambda lib, x: getattr(x, fn)(**kw), x, rtol=2e-6)
        if fn == 'std': assert np.isfinite(y).all() and (y > 0).all()


def test_float32_std_value_and_gradient():
    x = np.array([1e20, 2e20, 4e20], np.float32)
    y, (g,) = assert_same(lambda lib, x: x.std(), x, rtol=1e-6)
    assert math.isclose(float(y), 1.5275252e20, rel_tol=1e-6)
    np.testing.assert_allclose(g, [-0.43643578, -0.10910895, 0.54554473], rtol=1e-6)


@pytest.mark.parametrize('dtype', [litnn.float16, litnn.bfloat16])
def test_half_precision_std_keeps_dtype(dtype):
    x = litnn.tensor([1., 2., 4., 8.], dtype=dtype)
    assert x.std().dtype is dtype and x.var(0, keepdim=True).dtype is dtype
    assert math.isclose(x.std().item(), 3.0957, rel_tol=1e-2)


@pytest.mark.parametrize('name', ['rsqrt', 'reciprocal', 'sqrt', 'log', 'tanh', 'sigmoid', 'exp'])
@pytest.mark.parametrize('scale', [1e-150, 1e-20, 1., 1e20, 1e150])
def test_unary_gradients_float64_extremes(name, scale):
    "The unary derivatives at the fuzz's magnitudes: finite where torch's are, in the same places."
    x = np.array([0.3, 1., 2.5]) * scale
    if name == 'exp': x = np.log(x)
    assert_same(lambda lib, x: getattr(x, name)(), x, rtol=1e-12)


@pytest.mark.parametrize('p', [2, 3])
@pytest.mark.parametrize('scale', [1e-90, 1., 1e90])
def test_pow_and_norm_gradients_float64_extremes(p, scale):
    x = np.array([0.3, -1., 2.5]) * scale
    assert_same(lambda lib, x: (x ** p) / (x.norm(p) ** p), x, rtol=1e-12)


@pytest.mark.parametrize('scale', [1e-150, 1e150])
def test_softmax_family_float64_extremes(scale):
    x = np.array([[0.3, -1., 2.5], [1., 1., -4.]]) * scale
    assert_same(lambda lib, x: lib.softmax(x, 1) * x, x, rtol=1e-12)
    assert_same(lambda lib, x: x.log_softmax(1) * lib.tensor([1., 2., 3.], dtype=lib.float64), x, rtol=1e-12)

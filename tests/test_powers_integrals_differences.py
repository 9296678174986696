"""matrix_power, vander, combinations, trapezoid, gradient, heaviside, renorm, chain_matmul, rsub (reference/torch/powers_integrals_differences) against torch 2.13."""
import warnings, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
from api_pairs import torch, check, same_error

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x23, x34, x134, v4 = R(2, 3), R(3, 4), R(1, 3, 4), R(4)


# ---- reference/torch/powers_integrals_differences
y23, y35, xs3, xs5 = R(2, 3), R(3, 5), np.array([0., 0.5, 2.]), np.array([-1., 0., 0.3, 1., 2.5])
MATH = [
    ('matrix_power', lambda L, a: (L.matrix_power(a, 3), a.matrix_power(-2), L.matrix_power(a, 1)), [R(3, 3) + 3 * np.eye(3)]),
    ('matrix_power_int', lambda L, a: a.matrix_power(3), [np.array([[1, 2], [3, 4]])]),
    ('vander', lambda L, a: (L.vander(a), L.vander(a, 4, True), L.vander(a, N=2)), [R(3)]),
    ('vander_int', lambda L, a: (L.vander(a), L.vander(a, 0)), [np.array([1, 2, 3])]),
    ('combinations', lambda L, a: (L.combinations(a), L.combinations(a, 3, with_replacement=True), L.combinations(a, 5), L.combinations(a, 0)), [R(4)]),
    ('trapezoid', lambda L, a: (L.trapezoid(a), L.trapezoid(a, dx=0.3, dim=0), L.trapz(a, dx=2)), [y35]),
    ('trapezoid_x', lambda L, a, x: (L.trapezoid(a, x), L.trapz(a, x[:3], dim=0)), [y35, xs5]),
    ('trapezoid_x_nd', lambda L, a, x: L.trapezoid(a, x), [y23, R(2, 3)]),
    ('trapezoid_int', lambda L, a: (L.trapezoid(a), L.trapezoid(a, dx=2), L.cumulative_trapezoid(a)), [np.array([1, 2, 4, 7])]),
    ('trapezoid_empty', lambda L, a: (L.trapezoid(a), L.cumulative_trapezoid(a)), [np.zeros((2, 0))]),
    ('cumulative_trapezoid', lambda L, a: (L.cumulative_trapezoid(a), L.cumulative_trapezoid(a, dx=0.5, dim=0)), [y35]),
    ('cumulative_trapezoid_x', lambda L, a, x: L.cumulative_trapezoid(a, x), [y35, xs5]),
    ('gradient', lambda L, a: L.gradient(a), [y35]),
    ('gradient_dims', lambda L, a: L.gradient(a, dim=1, spacing=0.5) + L.gradient(a, dim=(0, 1), spacing=[2., 3.]) + L.gradient(a, dim=-1, edge_order=2), [y35]),
    ('gradient_edge2', lambda L, a: L.gradient(a, spacing=[1.5, 0.2], edge_order=2), [y35]),
    ('gradient_coords', lambda L, a, x, z: L.gradient(a, spacing=(x, z)), [y35, xs3, xs5]),
    ('gradient_coords_edge2', lambda L, a, x, z: L.gradient(a, spacing=(x, z), edge_order=2), [y35, xs3, xs5]),
    ('gradient_coords_dim', lambda L, a, z: L.gradient(a, spacing=[z], dim=1, edge_order=2), [y35, xs5]),
    ('gradient_int', lambda L, a: L.gradient(a), [np.array([1, 2, 4, 9])]),
    ('heaviside', lambda L, a, v: (L.heaviside(a, v), a.heaviside(v[0])), [np.array([-1., 0., 2., 0.]), R(4)]),
    ('heaviside_int', lambda L, a, v: L.heaviside(a, v), [np.array([-1, 0, 2]), np.array(7)]),
    ('renorm', lambda L, a: (L.renorm(a, 2, 0, 1.5), a.renorm(1, 1, 1.), a.renorm(float('inf'), -1, 0.8), a.renorm(3, 0, 100.)), [y35]),
    ('renorm_', lambda L, a: (a * 1).renorm_(2, 1, 0.5), [y35]),
    ('chain_matmul', lambda L, a, b, c: (L.chain_matmul(a, b, c), L.chain_matmul(a)), [R(2, 3), R(3, 4), R(4, 2)]),
    ('rsub', lambda L, a, b: (L.rsub(a, b), L.rsub(a, b, alpha=2), L.rsub(a, 3), L.rsub(a, 1.5, alpha=-2)), [y23, R(3)]),
    ('rsub_int', lambda L, a: (L.rsub(a, 2.5), L.rsub(a, 2)), [np.array([1, 2])]),
]

MATH_RUNS = [(c, dt) for c in MATH for dt in (np.float64, np.float32) if dt == np.float64 or any(a.dtype.kind == 'f' for a in c[2])]

@pytest.mark.parametrize('case,dt', MATH_RUNS, ids=[f'{c[0]}-{dt.__name__}' for c, dt in MATH_RUNS])
def test_more_math(case, dt):
    name, f, arrays = case
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)     # chain_matmul's deprecation (checked below)
        check(f, *[a.astype(dt) if a.dtype.kind == 'f' else a for a in arrays], name=False, grads=name not in ('heaviside', 'vander'),   # torch's own vander backward fails (a saved tensor changed in place)
              rtol=1e-9 if dt == np.float64 else 1e-5, atol=1e-9 if dt == np.float64 else 1e-5)

@pytest.mark.parametrize('f', [
    lambda L: L.vander(L.ones(2, 2)), lambda L: L.vander(L.ones(2), N=-1),
    lambda L: L.combinations(L.ones(2, 2)), lambda L: L.combinations(L.ones(2), -1),
    lambda L: L.trapezoid(L.ones(2, 3), L.ones(2)), lambda L: L.trapezoid(L.tensor(1.)), lambda L: L.cumulative_trapezoid(L.ones(2, 3), L.ones(4)),
    lambda L: L.gradient(L.ones(2, 3), edge_order=3), lambda L: L.gradient(L.ones(2, 3), edge_order=2),
    lambda L: L.gradient(L.ones(2, 3), spacing=[L.tensor(2.)], dim=1), lambda L: L.gradient(L.ones(2, 3), spacing=(2.,), dim=(0, 1)),
    lambda L: L.gradient(L.ones(2, 3), dim=2), lambda L: L.gradient(L.ones(3, 3), spacing=0.1, dim=(1, 1)),
    lambda L: L.gradient(L.ones(3, 3), dim=(1, -1)),
    lambda L: L.heaviside(L.ones(2), L.ones(1, dtype=L.int64)), lambda L: L.heaviside(L.ones(2), 0.5),
    lambda L: L.renorm(L.ones(2, 2), 0, 0, 1.), lambda L: L.renorm(L.ones(2, 2), -1, 0, 1.), lambda L: L.renorm(L.ones(2, 2), 2, 0, -1),
    lambda L: L.renorm(L.ones(2), 2, 0, 1.), lambda L: L.renorm(L.ones(2, 2), 2, 3, 1.),
    lambda L: L.chain_matmul(), lambda L: L.chain_matmul(L.ones(3), L.ones(3, 4)),
    lambda L: L.rsub(L.tensor([True]), L.tensor([True])), lambda L: L.matrix_power(L.ones(2, 3), 2), lambda L: L.matrix_power(L.ones(3), 2),
])
def test_more_math_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        same_error(f)

def test_heaviside_has_no_derivative_and_chain_matmul_warns():
    for lib in (litnn, torch):
        out = lib.heaviside(lib.tensor([-1., 0., 2.], requires_grad=True), lib.tensor([0.5]))
        assert out.requires_grad
        with pytest.raises(RuntimeError, match='derivative for aten::heaviside is not implemented'): out.sum().backward()
    prev = litnn.is_warn_always_enabled(); litnn.set_warn_always(True)    # (torch warns once per process, as litnn: an earlier call used it up)
    try:
        with pytest.warns(UserWarning, match='chain_matmul is deprecated'): litnn.chain_matmul(litnn.ones(2, 2), litnn.ones(2, 2))
    finally: litnn.set_warn_always(prev)

def test_more_math_gradcheck():
    y, x = litnn.tensor(R(3, 5), requires_grad=True), litnn.tensor(xs5, requires_grad=True)
    assert gradcheck(lambda a, b: litnn.trapezoid(a, b), (y, x))
    assert gradcheck(lambda a, b: litnn.cumulative_trapezoid(a, b), (y, x))
    assert gradcheck(lambda a, b: litnn.gradient(a, spacing=[b], dim=1, edge_order=2)[0], (y, x))
    assert gradcheck(lambda a: litnn.renorm(a, 2, 0, 1.), (y,))
    assert gradcheck(lambda a: litnn.combinations(a[0], 2).prod(1), (y,))
    assert gradcheck(lambda a: litnn.vander(a[0], 3), (y,))


@pytest.mark.parametrize('kw', [{}, dict(spacing=2.0), dict(edge_order=2)])
def test_gradient_of_complex_keeps_complex(kw):
    "torch.gradient of a complex tensor is complex (it was cast to float32, dropping the imaginary part)."
    z = (np.arange(5.) ** 2 + 1j * np.arange(5.)[::-1] ** 3).astype(np.complex64)
    want = torch.gradient(torch.tensor(z), **kw)
    got = litnn.gradient(litnn.tensor(z), **kw)
    for g, w in zip(got, want):
        assert g.dtype == litnn.complex64
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


@pytest.mark.parametrize('f', [
    lambda L, c: L.heaviside(c, c.real), lambda L, c: c.real.heaviside(c), lambda L, c: c.clone().heaviside_(c),
    lambda L, c: L.heaviside(c.real, c.real, out=L.empty_like(c)), lambda L, c: L.heaviside(c, c.to(L.complex128)),
    lambda L, c: L.heaviside(c.real, c.real.double(), out=L.empty_like(c)), lambda L, c: L.heaviside(c.real, c.real, out=L.empty(2, dtype=L.float64)),
])
def test_heaviside_refuses_complex_tensors_before_comparing_dtypes(f):
    "torch's heaviside checks for complex tensors (out's dtype among them) first, then that the dtypes (out's among them) agree."
    same_error(lambda L: f(L, L.tensor([1 + 1j, -1j], dtype=L.complex64)))


@pytest.mark.parametrize('coords', ['float64', 'float32', 'int64'])
@pytest.mark.parametrize('dtype', ['float32', 'int64', 'complex64', 'float64'])
@pytest.mark.parametrize('edge_order', [1, 2])
def test_gradient_with_coordinates_promotes_as_torch(dtype, coords, edge_order):
    "torch computes with the samples as given and the coordinates' steps: the result takes their promoted dtype (a float64 grid makes float32 samples float64)"
    g = np.random.default_rng(1)
    x = g.integers(-9, 9, (6, 5)).astype(dtype)
    c = np.cumsum(g.uniform(0.5, 2, 6)).astype(coords) if coords != 'int64' else np.cumsum(g.integers(1, 4, 6))
    def run(L): return L.gradient(L.tensor(x), spacing=[L.tensor(c)], dim=0, edge_order=edge_order)[0]
    a, b = run(litnn), run(torch)
    assert str(a.dtype).split('.')[1] == str(b.dtype).split('.')[1]
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('kw', [dict(spacing=[1.]), dict(spacing=(1., 2., 3.)), dict(spacing=[1., 2., 3.], dim=(0, 1)),
                                dict(spacing=[2.], dim=(0, 1)), dict(spacing=[1., 2.], dim=0)])
def test_gradient_spacing_of_the_wrong_length_as_torch(kw):
    "torch's message names self.dim() when no dim is given, else the lengths of spacing and dim"
    same_error(lambda L: L.gradient(L.ones(3, 4), **kw))

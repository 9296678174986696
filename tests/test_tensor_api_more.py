"""The tensor API additions of 03o_inplace_views, 03p_index_put, 03q_powers_integrals_differences and 03r_windows against torch 2.13 on
the same inputs: values, dtypes, grad_fn names and gradients (float64 and float32), gradcheck on small cases, and
torch's exception types and messages for bad input."""
import warnings, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
from api_pairs import torch, check, same_error, host, DEVICES

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x23, x34, x134, v4 = R(2, 3), R(3, 4), R(1, 3, 4), R(4)

# ---- 03o_inplace_views
INPLACE_VIEWS = [
    ('unsqueeze_', lambda L, a: (a * 1).unsqueeze_(1), [x23]),
    ('unsqueeze_neg', lambda L, a: (a * 1).unsqueeze_(-1), [x23]),
    ('squeeze_all', lambda L, a: (a * 1).squeeze_(), [x134]),
    ('squeeze_dim', lambda L, a: (a * 1).squeeze_(0), [x134]),
    ('squeeze_dims', lambda L, a: (a * 1).squeeze_((0, 1)), [x134]),
    ('t_', lambda L, a: (a * 1).t_(), [x23]),
    ('t_vector', lambda L, a: (a * 1).t_(), [v4]),
    ('transpose_', lambda L, a: (a * 1).transpose_(0, 2), [x134]),
    ('swapaxes_', lambda L, a: (a * 1).swapaxes_(-1, 1), [x134]),
    ('swapdims_', lambda L, a: (a * 1).swapdims_(0, 1).unsqueeze_(0), [x23]),
    ('as_strided', lambda L, a: a.as_strided((2, 2), (1, 2)), [x23]),
    ('as_strided_offset', lambda L, a: L.as_strided(a, (2, 3), (3, 1), 3), [x34]),
    ('as_strided_overlap', lambda L, a: a.as_strided((4, 3), (1, 1)), [x34]),
    ('as_strided_of_view', lambda L, a: a.t()[1:].as_strided((3, 2), (2, 1)), [x34]),
    ('as_strided_of_expanded', lambda L, a: a.expand(3, 4).as_strided((2, 2), (1, 2)), [v4]),
    ('as_strided_', lambda L, a: (a * 1).as_strided_((3,), (2,), 1), [x23]),
]

@pytest.mark.parametrize('case', INPLACE_VIEWS, ids=[c[0] for c in INPLACE_VIEWS])
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_inplace_views(case, dt):
    _, f, arrays = case
    check(f, *[a.astype(dt) for a in arrays], name=True, rtol=1e-6, atol=1e-6)

@pytest.mark.parametrize('dev', DEVICES)
def test_inplace_views_share_memory_and_bump_versions(dev):
    for lib in (litnn, torch):
        x = lib.zeros(2, 3) if lib is torch else lib.zeros(2, 3, device=dev)
        base = x
        x = x[:]
        v = x._version
        x.unsqueeze_(0).transpose_(0, 2).squeeze_(2)
        x[1, 0] = 5.
        assert tuple(x.shape) == (3, 2) and x._version == v + 4 and base[0, 1].item() == 5.

def test_inplace_view_on_a_view_of_a_non_leaf():
    res = []
    for lib in (litnn, torch):
        a = lib.ones(3, requires_grad=True)
        v = (a * 2)[1:]
        v.unsqueeze_(0).t_()
        (v * lib.tensor([[3.], [4.]])).sum().backward()
        res.append((tuple(v.shape), type(v.grad_fn).__name__, a.grad.tolist()))
    assert res[0] == res[1] == ((2, 1), 'TBackward1', [0., 6., 8.])

def test_inplace_view_of_saved_tensor_refuses_backward():
    for lib in (litnn, torch):
        a = lib.ones(3, requires_grad=True)
        y = a * 2
        z = (y * y).sum()            # saves y
        y.unsqueeze_(0)
        with pytest.raises(RuntimeError, match='modified by an inplace operation'): z.backward()

@pytest.mark.parametrize('f', [
    lambda L: L.ones(2, requires_grad=True).unsqueeze_(0), lambda L: L.ones(1, 2, requires_grad=True).squeeze_(),
    lambda L: L.ones(2, 2, requires_grad=True).t_(), lambda L: L.ones(2, 2, requires_grad=True).transpose_(0, 1),
    lambda L: L.ones(2, 2, 2).t_(), lambda L: L.ones(2, 3).unsqueeze_(5), lambda L: L.ones(2, 3).transpose_(0, 5),
    lambda L: L.ones(2, 3).squeeze_(5), lambda L: L.ones(2, 3).swapaxes_(-3, 0),
    lambda L: L.arange(6.).as_strided((3, 3), (3, 1)), lambda L: L.arange(6.).as_strided((3,), (1, -1)),
    lambda L: L.arange(6.).as_strided((3,), (-1,)), lambda L: L.arange(6, dtype=L.float64).as_strided((7,), (1,)),
])
def test_inplace_view_errors(f):
    same_error(f)

def test_as_strided_gradcheck():
    x = litnn.tensor(R(3, 4), requires_grad=True)
    assert gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1), (x,))
    assert gradcheck(lambda t: (t * 1).t_().unsqueeze_(1).squeeze_(), (x,))
    y = litnn.tensor(R(4), requires_grad=True)
    g, = litnn.autograd.grad((y.as_strided((3, 2), (1, 1)) ** 2).sum(), y, create_graph=True)
    gg, = litnn.autograd.grad(g.sum(), y)
    yt = torch.tensor(y.detach().numpy(), requires_grad=True)
    gt, = torch.autograd.grad((yt.as_strided((3, 2), (1, 1)) ** 2).sum(), yt, create_graph=True)
    ggt, = torch.autograd.grad(gt.sum(), yt)
    np.testing.assert_allclose(host(gg), host(ggt))


# ---- 03p_index_put
I3, J3 = np.array([0, 2, 0]), np.array([1, 1, 1])
def T(L, a): return L.tensor(a)
INDEX_PUT = [
    ('index_put', lambda L, a, v: a.index_put((T(L, I3), T(L, J3)), v), [x34, R(3)]),
    ('index_put_acc', lambda L, a, v: L.index_put(a, (T(L, I3), T(L, J3)), v, accumulate=True), [x34, R(3)]),
    ('index_put_rows_acc', lambda L, a, v: a.index_put([T(L, I3)], v, True), [x34, R(4)]),
    ('index_put_mask', lambda L, a, v: a.index_put((T(L, np.array([True, False, True])),), v), [x34, R(1)]),
    ('index_put_', lambda L, a, v: (a * 1).index_put_((T(L, I3),), v, accumulate=True), [x34, R(3, 4)]),
    ('put', lambda L, a, v: a.put(T(L, np.array([0, 5, -1, 0])), v), [x34, R(4)]),
    ('put_acc', lambda L, a, v: L.put(a, T(L, np.array([[0, 5], [-1, 0]])), v, accumulate=True), [x23, R(2, 2)]),
    ('put_', lambda L, a, v: (a * 1).put_(T(L, np.array([1, 1])), v, True), [x23, R(2)]),
    ('select_scatter', lambda L, a, v: L.select_scatter(a, v, 1, -1), [x34, R(3)]),
    ('slice_scatter', lambda L, a, v: a.slice_scatter(v, 1, 1, None, 2), [x34, R(3, 2)]),
    ('slice_scatter_neg_end', lambda L, a, v: L.slice_scatter(a, v, 0, None, -1), [x34, R(2, 4)]),
    ('diagonal_scatter', lambda L, a, v: L.diagonal_scatter(a, v, -1), [x34, R(2)]),
    ('diagonal_scatter_3d', lambda L, a, v: a.diagonal_scatter(v, 0, 2, 0), [R(3, 2, 3), R(2, 3)]),
]

def _as_strided_scatter(L, x, v, *args):
    "torch 2.13's own as_strided_scatter gives the input the wrong gradient (the written part, not the rest) and refuses"
    "non-contiguous inputs that require grad: the reference is the in-place form it stands for, on a contiguous copy."
    if L is litnn: return L.as_strided_scatter(x, v, *args)
    out = x.contiguous().clone()
    out.as_strided(*args).copy_(v)
    return out

AS_STRIDED_SCATTER = [
    ('plain', lambda L, a, v: _as_strided_scatter(L, a, v, (2, 2), (1, 4), 1), [x34, R(2, 2)]),
    ('transposed', lambda L, a, v: _as_strided_scatter(L, a.t(), v, (3,), (2,)), [x34, R(3)]),
    ('summed', lambda L, a, v: _as_strided_scatter(L, a * 2, v, (2, 3), (3, 1)).sum(), [x23, R(2, 3)]),
]

@pytest.mark.parametrize('case', AS_STRIDED_SCATTER, ids=[c[0] for c in AS_STRIDED_SCATTER])
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_as_strided_scatter(case, dt):
    _, f, arrays = case
    check(f, *[a.astype(dt) for a in arrays], name=False, rtol=1e-6, atol=1e-6)
    x, v = (litnn.tensor(a, requires_grad=True) for a in arrays)
    assert gradcheck(lambda a, b: f(litnn, a, b), (x, v))
REDUCES = [(r, inc) for r in ('prod', 'mean', 'amax', 'amin') for inc in (True, False)]
IDX_R = np.array([0, 2, 0, 0])

@pytest.mark.parametrize('case', INDEX_PUT, ids=[c[0] for c in INDEX_PUT])
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_index_put_family(case, dt):
    _, f, arrays = case
    check(f, *[a.astype(dt) for a in arrays], name=True, rtol=1e-6, atol=1e-6)

@pytest.mark.parametrize('reduce,include_self', REDUCES)
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_index_reduce(reduce, include_self, dt):
    src = R(3, 4)
    src[1, 3] = src[0, 3]      # a tie for amax/amin
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda L, a, s: a.index_reduce(1, T(L, IDX_R), s, reduce, include_self=include_self), x34.astype(dt), src.astype(dt),
              name=True, rtol=1e-6, atol=1e-6)
        check(lambda L, a, s: (a * 1).index_reduce_(0, T(L, np.array([1, 1])), s, reduce, include_self=include_self), x23.astype(dt), R(2, 3).astype(dt),
              name=True, rtol=1e-6, atol=1e-6)

def test_index_reduce_ints_and_warning():
    for lib in (litnn, torch):     # torch warns once per process (the earlier tests saw it): litnn's warning is checked
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter('always')
            out = lib.tensor([[1, 2, 3], [4, 5, 6]]).index_reduce(1, lib.tensor([0, 0]), lib.tensor([[2, 3], [4, 5]]), 'mean')
        assert out.tolist() == [[2, 2, 3], [4, 5, 6]]
        if lib is litnn: assert 'index_reduce() is in beta' in str(seen[0].message)

@pytest.mark.parametrize('f', [
    lambda L: L.zeros(3, 4).index_put((L.tensor([0]),), L.tensor(1., dtype=L.float64)),
    lambda L: L.zeros(3, 4).index_put(L.tensor([0]), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((None,), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((L.tensor([0]),), 1.),
    lambda L: L.zeros(3, 4).index_put((L.tensor([0.]),), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((L.tensor([5]),), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((L.tensor([0]),) * 3, L.tensor(1.)),
    lambda L: L.zeros(3, 4, requires_grad=True).index_put_((L.tensor([0]),), L.tensor(1.)),
    lambda L: L.zeros(2, 3).put(L.tensor([6]), L.tensor([1.])), lambda L: L.zeros(2, 3).put(L.tensor([-7]), L.tensor([1.])),
    lambda L: L.zeros(2, 3).put(L.tensor([1, 2]), L.tensor([1.])),
    lambda L: L.zeros(2, 3).put(L.tensor([1.]), L.tensor([1.])),
    lambda L: L.zeros(2, 3).put(L.tensor([1]), L.tensor([1.], dtype=L.float64)),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0]), L.ones(2, 1), 'sum'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0.]), L.ones(2, 1), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([[0]]), L.ones(2, 1), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0, 5]), L.ones(2, 2), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0, 1, 2]), L.ones(2, 2), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0]), L.ones(2, 1, dtype=L.float64), 'prod'),
    lambda L: L.select_scatter(L.zeros(2, 3), L.ones(2), 0, 1), lambda L: L.select_scatter(L.zeros(2, 3), L.ones(3), 0, 5),
    lambda L: L.slice_scatter(L.zeros(4, 3), L.ones(3, 3), start=0, step=2),
    lambda L: L.diagonal_scatter(L.zeros(3, 3), L.ones(3), 1), lambda L: L.as_strided_scatter(L.zeros(3, 3), L.ones(3), (2,), (1,)), lambda L: L.diagonal_scatter(L.zeros(3, 3), L.ones(3), 0, 1, 1),
])
def test_index_put_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same_error(f)

def test_index_put_family_gradcheck():
    x, v = litnn.tensor(R(3, 4), requires_grad=True), litnn.tensor(R(3), requires_grad=True)
    i = litnn.tensor(I3)
    assert gradcheck(lambda a, b: a.index_put((i,), b.reshape(3, 1), accumulate=True), (x, v))
    assert gradcheck(lambda a, b: a.put(i, b, accumulate=True), (x, v))
    assert gradcheck(lambda a, b: litnn.diagonal_scatter(a, b, 0), (x, v))
    assert gradcheck(lambda a, b: litnn.slice_scatter(a, b.reshape(3, 1), 1, 2, 3), (x, v))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert gradcheck(lambda a, b: a.index_reduce(0, litnn.tensor([2, 0, 2]), b.reshape(3, 1).expand(3, 4), 'prod'), (x, v))


# ---- 03q_powers_integrals_differences
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
    lambda L: L.gradient(L.ones(2, 3), dim=2),
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
    with pytest.warns(UserWarning, match='chain_matmul is deprecated'): litnn.chain_matmul(litnn.ones(2, 2), litnn.ones(2, 2))

def test_more_math_gradcheck():
    y, x = litnn.tensor(R(3, 5), requires_grad=True), litnn.tensor(xs5, requires_grad=True)
    assert gradcheck(lambda a, b: litnn.trapezoid(a, b), (y, x))
    assert gradcheck(lambda a, b: litnn.cumulative_trapezoid(a, b), (y, x))
    assert gradcheck(lambda a, b: litnn.gradient(a, spacing=[b], dim=1, edge_order=2)[0], (y, x))
    assert gradcheck(lambda a: litnn.renorm(a, 2, 0, 1.), (y,))
    assert gradcheck(lambda a: litnn.combinations(a[0], 2).prod(1), (y,))
    assert gradcheck(lambda a: litnn.vander(a[0], 3), (y,))


# ---- 03qa_splits_strides_buffers
ODDS = [
    ('fill', lambda L, a: L.fill(a, 2.5), [x23]),
    ('fill_tensor', lambda L, a, v: L.fill(a, v), [x23, np.array(1.5)]),
    ('fill_int', lambda L, a: L.fill(a, 2.5), [np.array([1, 2, 3])]),
    ('split_with_sizes', lambda L, a: L.split_with_sizes(a, [1, 3]) + a.split_with_sizes((2, 2), dim=1), [R(4, 4)]),
    ('unsafe_split', lambda L, a: L.unsafe_split(a, 2) + a.unsafe_split(3, 1), [R(5, 4)]),
    ('unsafe_chunk', lambda L, a: L.unsafe_chunk(a, 2) + a.unsafe_chunk(3, dim=1), [R(5, 4)]),
    ('unsafe_split_with_sizes', lambda L, a: L.unsafe_split_with_sizes(a, [1, 4]) + a.unsafe_split_with_sizes([3, 1], 1), [R(5, 4)]),
    ('resolve_neg', lambda L, a: (L.resolve_neg(a) * 2, a.resolve_neg()), [x23]),
]

@pytest.mark.parametrize('case', ODDS, ids=[c[0] for c in ODDS])
def test_tensor_odds(case):
    _, f, arrays = case
    check(f, *arrays, name=True)

def test_range_and_its_warning():
    for args, kw in [((1, 4), {}), ((0, 1, 0.25), dict(dtype='float64')), ((0, 0.9, 0.1), {}), ((1, 3), dict(dtype='int32')),
                     ((1, 1), {}), ((5, -1, -1.5), {}), ((1., 4.), dict(requires_grad=True))]:
        out = []
        for lib in (litnn, torch):
            k = {n: getattr(lib, v) if n == 'dtype' else v for n, v in kw.items()}
            with pytest.warns(UserWarning, match='torch.range is deprecated'): out.append(lib.range(*args, **k))
        l, t = out
        assert l.dtype.name == str(t.dtype).removeprefix('torch.') and l.requires_grad == t.requires_grad
        np.testing.assert_array_equal(host(l), host(t))

def test_predicates_and_names():
    dts = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool']
    for a in dts:
        for b in dts: assert litnn.can_cast(getattr(litnn, a), getattr(litnn, b)) == torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)
    for lib in (litnn, torch):
        x = lib.ones(2, dtype=lib.float64)
        assert (lib.is_neg(x), x.is_neg(), lib.resolve_neg(x) is x, lib.get_device(x)) == (False, False, True, -1)
        assert [lib.typename(o) for o in (x, 3, 'a', lib.nn.Linear, lib.nn.Linear(1, 1), lib.ones(1, dtype=lib.int32))] == \
               [f'{lib.__name__}.DoubleTensor', 'int', 'str', f'{lib.__name__}.nn.modules.linear.Linear', f'{lib.__name__}.nn.modules.linear.Linear', f'{lib.__name__}.IntTensor']

def test_unsafe_pieces_are_not_tracked_as_views():
    for lib in (litnn, torch):
        a = lib.ones(4, requires_grad=True)
        p, q = (a * 2).unsafe_split(2)
        p.mul_(3)                    # allowed on an unsafe piece
        (p.sum() + q.sum()).backward()
        assert a.grad.tolist() == [6., 6., 2., 2.] and q._version == 0

def test_empty_strided_and_frombuffer():
    import array
    for size, stride in [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4, 2), (0, 1)), ((2, 0), (1, 1)), ((3, 2, 2), (4, 1, 2))]:
        l, t = litnn.empty_strided(size, stride, dtype=litnn.float64), torch.empty_strided(size, stride, dtype=torch.float64)
        assert (tuple(l.shape), l.stride(), l.is_contiguous(), l.dtype.name) == (tuple(t.shape), t.stride(), t.is_contiguous(), 'float64')
    l = litnn.ones(1, dtype=litnn.int32).new_empty_strided((2, 2), (1, 2), requires_grad=False)
    assert l.dtype == litnn.int32 and l.stride() == (1, 2)
    assert litnn.empty_strided((2,), (1,), requires_grad=True).requires_grad
    for buf, kw in [(bytearray(b'\x01\x02\x03\x04'), dict(dtype='int8')), (bytearray(range(8)), dict(dtype='float32', count=1, offset=4)),
                    (array.array('f', [1, 2, 3]), dict(dtype='float32')), (bytearray(range(12)), dict(dtype='int16', offset=2))]:
        l = litnn.frombuffer(buf, **{**kw, 'dtype': getattr(litnn, kw['dtype'])})
        t = torch.frombuffer(buf, **{**kw, 'dtype': getattr(torch, kw['dtype'])})
        np.testing.assert_array_equal(host(l), host(t))
    raw = bytearray(4)
    litnn.frombuffer(raw, dtype=litnn.uint8)[1] = 9
    assert raw == bytearray(b'\x00\x09\x00\x00')

@pytest.mark.parametrize('f', [
    lambda L: L.fill(L.ones(2), L.tensor([3.])), lambda L: L.split_with_sizes(L.arange(6), [2, 3]),
    lambda L: L.arange(6).split_with_sizes([2, -1, 5]), lambda L: L.unsafe_split(L.arange(5), [2, 3]),
    lambda L: L.unsafe_chunk(L.arange(5), 0), lambda L: L.can_cast(L.ones(1), L.int32),
    lambda L: L.empty_strided((2, 3), (1,)),
    lambda L: L.frombuffer(bytearray(7), dtype=L.float32), lambda L: L.frombuffer(bytearray(8), dtype=L.float32, count=3),
    lambda L: L.frombuffer(bytearray(0), dtype=L.float32), lambda L: L.frombuffer(bytearray(8), dtype=L.float32, offset=9),
    lambda L: L.range(1, 4, 0), lambda L: L.range(4, 1), lambda L: L.range(1, 4, -1),
])
def test_odds_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        same_error(f)


# ---- 03r_windows
WINDOWS = ['hann_window', 'hamming_window', 'blackman_window', 'bartlett_window', 'kaiser_window']
EXTRA = {'hamming_window': [(0.5,), (0.6, 0.3)], 'kaiser_window': [(0.,), (5.,), (20.,)]}

@pytest.mark.parametrize('name', WINDOWS)
@pytest.mark.parametrize('dev', DEVICES)
def test_windows_against_torch(name, dev):
    for n in (0, 1, 2, 3, 5, 8, 64):
        for periodic in (True, False):
            for extra in [()] + EXTRA.get(name, []):
                for dt, tol in (('float64', 1e-12), ('float32', 2e-6), (None, 2e-6)):   # torch computes float32 windows in float32
                    kw = {} if dt is None else dict(dtype=getattr(litnn, dt))
                    l = getattr(litnn, name)(n, periodic, *extra, device=dev, **kw)
                    t = getattr(torch, name)(n, periodic, *extra, **({} if dt is None else dict(dtype=getattr(torch, dt))))
                    assert l.dtype.name == str(t.dtype).removeprefix('torch.') and tuple(l.shape) == tuple(t.shape)
                    np.testing.assert_allclose(host(l), host(t), rtol=tol, atol=tol)
    for lib in (litnn, torch):
        w = getattr(lib, name)(4, dtype=lib.float64, requires_grad=True)
        assert w.requires_grad and w.is_leaf and getattr(lib, name)(3, dtype=lib.float16).dtype == lib.float16

@pytest.mark.parametrize('name', WINDOWS)
def test_window_errors(name):
    same_error(lambda L: getattr(L, name)(-1))
    same_error(lambda L: getattr(L, name)(2.5))
    same_error(lambda L: getattr(L, name)(3, dtype=L.int64), match=False)    # torch prints its TensorOptions

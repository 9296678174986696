"""The everyday extras (litnn.everyday_extras, nbs/03m_addcmul_masked_select_stride) against torch 2.13 on the same inputs:
values, dtypes, shapes and gradients (float64 and float32), gradcheck on the differentiable ones, the exception
types (and messages) for bad input, and the Tensor methods (stride, storage_offset, new, pin_memory)."""
import warnings, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
from api_pairs import torch, check, same_error, host, DEVICES

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x34, y34, v4, w4 = R(3, 4), R(3, 4), R(4), R(4)
nan34 = x34.copy(); nan34[0, 1] = nan34[2, 0] = nan34[2, 3] = np.nan
allnan = np.array([[np.nan, np.nan], [1., 2.]])
i34, j34 = rng.integers(-20, 20, (3, 4)), rng.integers(1, 20, (3, 4))
special = np.array([-0., 0., 1., -2.5, np.inf, -np.inf, np.nan])
Q = np.array([0., 0.1, 0.5, 0.77, 1.])

CASES = [   # (id, f(lib, *tensors), arrays): the arrays become tensors (floats require grad)
    ('greater', lambda L, a, b: (L.greater(a, b), a.greater(0.1), L.greater_equal(a, b), a.less(b), L.less_equal(a, 0), a.not_equal(b)), [x34, y34]),
    ('positive', lambda L, a: L.positive(a) * 2, [x34]),
    ('signbit', lambda L, a: (L.signbit(a), a.isposinf(), L.isneginf(a), L.isreal(a)), [special]),
    ('signbit_int', lambda L, a: (a.signbit(), L.isposinf(a), a.isneginf(), a.isreal()), [i34]),
    ('addcmul', lambda L, a, b, c: L.addcmul(a, b, c, value=0.3), [x34, y34, v4]),
    ('addcmul_method', lambda L, a, b, c: a.addcmul(b, c), [v4, x34, w4]),
    ('addcdiv', lambda L, a, b, c: L.addcdiv(a, b, c, value=-2), [x34, y34, v4]),
    ('addcdiv_method', lambda L, a, b, c: a.addcdiv(b, c, value=0.5), [x34, y34, v4]),
    ('addcmul_int', lambda L, a, b, c: L.addcmul(a, b, c, value=3), [i34, j34, i34]),
    ('addcdiv_int_float', lambda L, a, b, c: L.addcdiv(a, b, c), [i34, x34, v4]),
    ('addcmul_inplace', lambda L, a, b, c: (a * 1).addcmul_(b, c, value=0.2), [x34, y34, v4]),
    ('addcdiv_inplace', lambda L, a, b, c: (a * 1).addcdiv_(b, c, value=-1), [x34, y34, v4]),
    ('broadcast_to', lambda L, a: (L.broadcast_to(a, (2, 3, 4)), a.broadcast_to((3, 4))), [v4]),
    ('ravel', lambda L, a: (L.ravel(a), a.t().ravel()), [x34]),
    ('fliplr', lambda L, a: (L.fliplr(a), a.flipud(), L.flipud(a[0])), [x34]),
    ('diagflat', lambda L, a: (L.diagflat(a), a.diagflat(-2), L.diagflat(a[0], 1)), [x34]),
    ('narrow_copy', lambda L, a: (L.narrow_copy(a, 1, 1, 2), a.narrow_copy(-2, 0, 2)), [x34]),
    ('masked_select', lambda L, a: L.masked_select(a, a > 0), [x34]),
    ('masked_select_broadcast', lambda L, a, b: (L.masked_select(a, b > 0), a.masked_select((b > 0)[None])), [v4, x34]),
    ('masked_select_int', lambda L, a: a.masked_select(a % 3 == 0), [i34]),
    ('repeat_interleave_int', lambda L, a: (L.repeat_interleave(a, 2), a.repeat_interleave(3, dim=1), a.repeat_interleave(1, 0)), [x34]),
    ('repeat_interleave_tensor', lambda L, a: (L.repeat_interleave(a, L.tensor([2, 0, 1]), dim=0), a.repeat_interleave(L.tensor([1, 3, 0, 2]), dim=-1),
                                               a.repeat_interleave(L.tensor([2]), dim=1), a.repeat_interleave(L.tensor(2))), [x34]),
    ('repeat_interleave_counts', lambda L: (L.repeat_interleave(L.tensor([2, 0, 3, 1])), L.repeat_interleave(L.tensor([1, 2]))), []),
    ('nansum', lambda L, a: (L.nansum(a), a.nansum(1), L.nansum(a, 0, keepdim=True), L.nansum(a, (0, 1)), a.nansum(dtype=L.float64)), [nan34]),
    ('nansum_int', lambda L, a: (L.nansum(a), a.nansum(0, dtype=L.float64)), [i34]),
    ('nanmean', lambda L, a: (L.nanmean(a), a.nanmean(1), L.nanmean(a, 0, keepdim=True), L.nanmean(a, dim=(0, 1))), [nan34]),
    ('nanmean_allnan', lambda L, a: (L.nanmean(a.detach(), 1), a.nansum(1)), [allnan]),   # (gradients: test_nanmean_of_only_nan)
    ('inner', lambda L, a, b: (L.inner(a, b), a.inner(b[0]), L.inner(a[0], b[1])), [x34, y34]),
    ('inner_0d', lambda L, a, b: L.inner(a[0, 0], b), [x34, y34]),
    ('ger', lambda L, a, b: (L.ger(a, b), a.ger(b[:2])), [v4, w4]),
    ('vdot', lambda L, a, b: (L.vdot(a, b), a.vdot(b)), [v4, w4]),
    ('dist', lambda L, a, b: (L.dist(a, b), a.dist(b, 1), L.dist(a, b, 3), L.dist(a, b, float('inf')), L.dist(a.detach(), b.detach(), 0)), [x34, y34]),   # (torch's backward of p=0 fails)
    ('dist_int_float', lambda L, a, b: L.dist(a, b), [i34, y34]),
    ('fmax', lambda L, a, b: (L.fmax(a, b), a.fmin(b)), [nan34, y34]),
    ('fmax_nan_both', lambda L, a, b: (L.fmax(a, b), L.fmin(b, a)), [nan34, nan34.T.copy().reshape(3, 4)]),
    ('fmax_ties', lambda L, a, b: (L.fmax(a, b), L.fmin(a, b)), [np.array([1., 2., 3.]), np.array([1., 5., 3.])]),
    ('fmax_int_float', lambda L, a, b: L.fmax(a, b), [i34, y34]),
    ('heaviside', lambda L, a, b: (L.heaviside(a.detach(), b.detach()), a.detach().heaviside(b[:1].detach())), [special, special[::-1].copy()]),
    ('heaviside_int', lambda L, a, b: L.heaviside(a, b), [i34 // 5, j34]),
    ('gcd', lambda L, a, b: (L.gcd(a, b), a.lcm(b), L.gcd(a, b[0]), L.lcm(a, -b)), [i34, j34]),
    ('ldexp', lambda L, a, b: (L.ldexp(a, b), a.ldexp(b[:1])), [x34, np.abs(i34) // 4]),   # (torch's gradient for a negative exponent is 0: see test_ldexp_gradient)
    ('ldexp_int', lambda L, a, b: L.ldexp(a, b), [i34, j34 // 5]),
    ('gcd_inplace', lambda L, a, b: ((a * 1).gcd_(b), L.lcm_(a * 1, b[0]), L.gcd_(a * 1, b)), [i34, j34]),
    ('ldexp_inplace_function', lambda L, a, b: L.ldexp_(a * 1, b), [x34, np.abs(i34) // 4]),
    ('ldexp_inplace', lambda L, a, b: (a * 1).ldexp_(b), [x34, np.abs(i34) // 4]),   # (torch's gradient for a negative exponent is 0: see test_ldexp_gradient)
    ('frexp', lambda L, a: tuple(L.frexp(a)), [np.concatenate([x34.ravel(), special, [1e-310, 1e300, 8., 0.5]])]),
    ('frexp_method', lambda L, a: tuple(a.frexp()), [x34]),
    ('cov', lambda L, a: (L.cov(a), a.cov(correction=0), L.cov(a, correction=3), L.cov(a[0])), [x34]),
    ('cov_weights', lambda L, a, aw: (L.cov(a, fweights=L.tensor([1, 2, 1, 3])), L.cov(a, aweights=aw.abs()),
                                      L.cov(a, fweights=L.tensor([1, 2, 1, 3]), aweights=aw.abs(), correction=2),
                                      L.cov(a, aweights=aw.abs(), correction=0)), [x34, w4]),
    ('cov_int', lambda L, a: L.cov(a), [i34]),
    ('corrcoef', lambda L, a: (L.corrcoef(a), a.corrcoef(), L.corrcoef(a[1])), [x34]),
    ('quantile_scalar', lambda L, a: (L.quantile(a, 0.3), a.quantile(0.5, dim=1), L.quantile(a, 1., 0, keepdim=True), a.quantile(0.), L.quantile(a, 0.5, keepdim=True)), [x34]),
    ('quantile_3d', lambda L, a: (L.quantile(a, 0.6, dim=1), a.quantile(0.25, dim=-1, keepdim=True)), [R(2, 5, 3)]),
    ('quantile_0d', lambda L, a: (L.quantile(a[0, 0], 0.3), L.quantile(a[0, 0], 0.3, dim=0)), [x34]),
]
for _mode in ('linear', 'lower', 'higher', 'midpoint', 'nearest'):
    CASES += [
        (f'quantile_{_mode}', lambda L, a, m=_mode: (L.quantile(a, L.tensor(Q, dtype=a.dtype), interpolation=m), a.quantile(L.tensor(Q, dtype=a.dtype), dim=0, interpolation=m),
                                                     L.quantile(a, L.tensor([0.4, 0.9], dtype=a.dtype), 1, True, interpolation=m)), [x34]),
        (f'quantile_nan_{_mode}', lambda L, a, m=_mode: (L.quantile(a, L.tensor(Q, dtype=a.dtype), dim=1, interpolation=m), L.quantile(a, 0.5, interpolation=m)), [nan34]),
        (f'nanquantile_{_mode}', lambda L, a, m=_mode: (L.nanquantile(a, L.tensor(Q, dtype=a.dtype), dim=1, interpolation=m), a.nanquantile(0.35, interpolation=m),
                                                        L.nanquantile(a, L.tensor(Q, dtype=a.dtype), dim=0, keepdim=True, interpolation=m)), [nan34]),
        (f'nanquantile_allnan_{_mode}', lambda L, a, m=_mode: L.nanquantile(a, L.tensor([0.2, 0.8], dtype=a.dtype), dim=1, interpolation=m), [allnan]),
    ]
for _i, (_id, _f, _arrays) in enumerate(list(CASES)):
    if any(a.dtype.kind == 'f' for a in _arrays) and not _id.startswith('frexp'):   # the same in float32 (frexp's inputs need float64's range)
        CASES.append((_id + '_f32', _f, [a.astype(np.float32) if a.dtype.kind == 'f' else a for a in _arrays]))


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize('dev', DEVICES)
def test_against_torch(case, dev):
    name, f, arrays = case
    with warnings.catch_warnings():
        warnings.simplefilter('error')                    # torch computes NaN and inf silently: so must litnn
        check(f, *arrays, dev=dev, name=False, **(dict(rtol=2e-6, atol=2e-6) if name.endswith('_f32') else {}))


NODE_NAMES = [   # where the graph node is litnn's own, it has torch's name
    ('frexp', lambda L, a: L.frexp(a).mantissa, 'FrexpBackward0'),
    ('ger', lambda L, a: L.ger(a, a), None),
]

@pytest.mark.parametrize('name,f,_', NODE_NAMES)
def test_node_names(name, f, _):
    check(f, v4, name=True)


@pytest.mark.parametrize('f', [
    lambda x: litnn.addcmul(x, x, x[0], value=0.5), lambda x: litnn.addcdiv(x, x, x[0].exp()), lambda x: litnn.nansum(x, 1),
    lambda x: litnn.nanmean(x, 0), lambda x: litnn.quantile(x, litnn.tensor([0.2, 0.7], dtype=litnn.float64), dim=1),
    lambda x: litnn.nanquantile(x, 0.3, dim=0, interpolation='midpoint'), lambda x: litnn.masked_select(x, x > 0),
    lambda x: x.repeat_interleave(litnn.tensor([1, 0, 2]), dim=0), lambda x: litnn.inner(x, x), lambda x: litnn.dist(x[0], x[1], 3),
    lambda x: litnn.cov(x), lambda x: litnn.corrcoef(x), lambda x: litnn.fmax(x, x.flip(1)), lambda x: litnn.fmin(x, x[0]),
    lambda x: litnn.ldexp(x, litnn.tensor([2, -1, 0, 3])), lambda x: litnn.frexp(x).mantissa, lambda x: litnn.diagflat(x, 1),
    lambda x: litnn.fliplr(x).narrow_copy(0, 1, 2)])
def test_gradcheck(f):
    assert gradcheck(f, (litnn.tensor(R(3, 4), requires_grad=True),))


def test_addcmul_inplace_on_a_leaf_and_the_adam_step():
    p = [lib.tensor([1., -2., 3.], requires_grad=True) for lib in (litnn, torch)]
    same_error(lambda L: L.ones(3, requires_grad=True).addcmul_(L.ones(3), L.ones(3)))
    for lib, w in zip((litnn, torch), p):              # a hand-written Adam step, as optimizers write it
        m, v, g = lib.zeros(3), lib.zeros(3), lib.tensor([0.5, -1., 2.])
        with lib.no_grad():
            v.mul_(0.999).addcmul_(g, g, value=0.001); m.mul_(0.9).add_(g, alpha=0.1)
            w.addcdiv_(m, v.sqrt().add_(1e-8), value=-0.01)
    np.testing.assert_allclose(host(p[0]), host(p[1]), rtol=1e-6)


def test_predicates():
    for a in (x34, i34, np.array([True]), np.array([], np.float32), np.uint8([1])):
        for lib in (litnn, torch):
            t = lib.tensor(a)
            assert (t.is_complex(), t.is_signed(), t.is_inference(), t.ndimension(), t.is_same_size(lib.tensor(x34)),
                    lib.is_complex(t), lib.is_signed(t), lib.is_inference(t), lib.is_same_size(t, t)) == \
                   (torch.tensor(a).is_complex(), torch.tensor(a).is_signed(), False, a.ndim, a.shape == x34.shape, False,
                    torch.tensor(a).is_signed(), False, True)
    for a in ([3.], [0], [[True]], 0.):
        assert litnn.tensor(a).is_nonzero() == torch.tensor(a).is_nonzero() == litnn.is_nonzero(litnn.tensor(a))
    x = litnn.ones(2)
    assert litnn.positive(x) is x and x.pin_memory() is x and x.is_pinned() is False


VIEWS = [lambda L: L.ones(3, 1, 2), lambda L: L.ones(2, 3).unsqueeze(1), lambda L: L.ones(2, 3).unsqueeze(2),
         lambda L: L.ones(4, 3).t(), lambda L: L.ones(4, 3)[:, 1:], lambda L: L.ones(4, 3)[::2], lambda L: L.ones(3).expand(2, 3),
         lambda L: L.ones(2, 3, 4).permute(2, 0, 1), lambda L: L.ones(6).view(2, 3)[1], lambda L: L.ones(2, 3).t().contiguous(),
         lambda L: L.ones(4, 3).narrow(0, 1, 2), lambda L: L.ones(4, 3).chunk(3, 1)[1], lambda L: L.ones(1, 3).expand(4, 3),
         lambda L: L.arange(24.).reshape(2, 3, 4)[1, :, 1:3], lambda L: L.arange(24.).reshape(2, 3, 4).transpose(0, 2)[1:],
         lambda L: L.tensor(2.), lambda L: L.arange(10, dtype=L.int16)[3:8:2], lambda L: L.ones(3, 4).select(1, 2),
         lambda L: L.ones(5, 4).split(2)[2], lambda L: L.ones(2, 3).unbind(1)[2], lambda L: L.ones(6, 4).diagonal(),
         # size-1 dimensions: a view keeps the strides it was given (the transpose of a row, a slice of one column, a
         # channels-last tensor with a size-1 dim), an axis added by None or unsqueeze takes unsqueeze's
         lambda L: L.ones(1, 4).t(), lambda L: L.ones(4, 3).t()[:1], lambda L: L.ones(4, 3)[:, 1:2].t(), lambda L: L.ones(3, 4)[None],
         lambda L: L.ones(3, 4).t()[:, None], lambda L: L.ones(3, 4).t().unsqueeze(-1), lambda L: L.ones(2, 1, 4).permute(2, 0, 1),
         lambda L: L.ones(2, 3, 1, 1).to(memory_format=L.channels_last), lambda L: L.empty(1, 3, 4, 5, memory_format=L.channels_last),
         lambda L: L.ones(2, 1, 4, 4).contiguous(memory_format=L.channels_last)[:, :, 1:], lambda L: L.ones(2, 3, 4).movedim(0, -1)[:1],
         lambda L: L.ones(3, 5)[::5], lambda L: L.ones(3, 4).t().narrow(1, 1, 1), lambda L: L.ones(3, 4).sum(0, keepdim=True),
         lambda L: L.ones(3, 4).t().sum(-1, keepdim=True), lambda L: L.ones(3, 4).t()[:0]]

@pytest.mark.parametrize('i', range(len(VIEWS)))
def test_stride_and_storage_offset(i):
    l, t = VIEWS[i](litnn), VIEWS[i](torch)
    assert l.stride() == t.stride() and l.storage_offset() == t.storage_offset()
    for d in range(-l.dim(), l.dim()): assert l.stride(d) == t.stride(d)


@pytest.mark.parametrize('dev', DEVICES)
def test_storage_offset_on_device(dev):
    x = litnn.arange(24., device=dev).reshape(4, 6)
    assert x[2:, 3:].storage_offset() == 15 and x[1].storage_offset() == 6 and x.t()[2].storage_offset() == 2
    assert x[::2].stride() == (12, 1) and x.t().stride() == (1, 6)


def test_new():
    for lib in (litnn, torch):
        f, i = lib.zeros(1, dtype=lib.float64), lib.zeros(1, dtype=lib.int32)
        got = [f.new(2, 3), f.new(lib.Size([4])), f.new(), f.new((2, 3)), f.new([1, 2]), i.new([1.5, 2]), f.new(3), i.new(f.new(2).shape)]
        if lib is litnn: lit = got
    for l, t in zip(lit, got):
        assert tuple(l.shape) == tuple(t.shape) and l.dtype.name == str(t.dtype).removeprefix('torch.')
    for l, t in zip(lit[3:5] + lit[5:6], got[3:5] + got[5:6]): np.testing.assert_array_equal(host(l), host(t))
    x = litnn.ones(2)
    assert x.new(x)._data is x._data                   # new(tensor) shares the data
    for f in (lambda L: L.zeros(1).new(L.tensor([1, 2])), lambda L: L.zeros(1).new(2., 3), lambda L: L.zeros(1).new('a')):
        same_error(f, match=False)


BAD = [   # torch's exception type and message
    lambda L: L.quantile(L.tensor([1., 2.]), 1.5), lambda L: L.quantile(L.tensor([1., 2.]), -0.1),
    lambda L: L.nanquantile(L.tensor([1., 2.]), L.tensor([0.5, 1.2])),
    lambda L: L.quantile(L.tensor([1., 2.]), L.tensor([0.5], dtype=L.float64)),
    lambda L: L.quantile(L.tensor([1, 2]), 0.5), lambda L: L.quantile(L.tensor([]), 0.5),
    lambda L: L.quantile(L.tensor([1., 2.]), L.tensor([[0.5]])),
    lambda L: L.quantile(L.tensor([1., 2.]), 0.5, interpolation='cubic'),
    lambda L: L.nanquantile(L.tensor([1, 2]), 0.5),
    lambda L: L.masked_select(L.tensor([1., 2., 3.]), L.tensor([True, False])),
    lambda L: L.masked_select(L.tensor([1., 2., 3.]), L.tensor([1, 0, 1])),
    lambda L: L.masked_select(L.ones(2, 3), L.ones(4, 1, dtype=L.bool)),
    lambda L: L.repeat_interleave(L.tensor([1, 2]), L.tensor([1, 2, 3])),
    lambda L: L.repeat_interleave(L.tensor([1, 2]), L.tensor([1, -2])),
    lambda L: L.fliplr(L.tensor([1., 2.])), lambda L: L.flipud(L.tensor(1.)),
    lambda L: L.positive(L.tensor([True])),
    lambda L: L.tensor([1., 2.]).is_nonzero(), lambda L: L.tensor([]).is_nonzero(),
    lambda L: L.nanmean(L.tensor([1, 2])),
    lambda L: L.gcd(L.tensor([1.]), L.tensor([2.])), lambda L: L.lcm(L.tensor([4]), L.tensor([6.])),
    lambda L: L.gcd(L.tensor([4]), 2),
    lambda L: L.frexp(L.tensor([1, 2])),
    lambda L: L.heaviside(L.tensor([1.]), L.tensor([1])), lambda L: L.heaviside(L.tensor([1.]), 1.),
    lambda L: L.addcdiv(L.tensor([1]), L.tensor([1]), L.tensor([2])),
    lambda L: L.inner(L.ones(2, 3), L.ones(4, 2)),
    lambda L: L.cov(L.ones(2, 2, 2)),
    lambda L: L.fmax(L.tensor([1.]), 2.),
    lambda L: L.tensor(1.).stride(0), lambda L: L.dist(L.tensor([1, 2]), L.tensor([2, 2])),
    lambda L: L.heaviside(L.tensor([0., 1.], requires_grad=True), L.tensor([0.5])).sum().backward(),
]

@pytest.mark.parametrize('i', range(len(BAD)))
def test_bad_input(i):
    same_error(BAD[i])


@pytest.mark.parametrize('f', [
    lambda L: L.vdot(L.ones(3), L.ones(3, dtype=L.float64)), lambda L: L.vdot(L.ones(3), L.ones(2)),
    lambda L: L.vdot(L.ones(2, 2), L.ones(2, 2)), lambda L: L.broadcast_to(L.ones(3), (2, 2)),
    lambda L: L.tensor([1., 2.]).stride(2), lambda L: L.dist(L.ones(3), L.ones(2)),
    lambda L: L.tensor([1.]).addcmul(L.ones(3), L.ones(2))])
def test_bad_input_type(f):
    "The same exception type; litnn's message words the problem its own way."
    same_error(f, match=False)


def test_ldexp_gradient():
    "litnn's gradient of ldexp is 2^e; torch 2.13 computes 2^e in integers there, 0 for a negative exponent."
    x, e = litnn.tensor([1.5, 2.], requires_grad=True), litnn.tensor([-3, 2])
    litnn.ldexp(x, e).sum().backward()
    tx = torch.tensor([1.5, 2.], requires_grad=True)
    torch.ldexp(tx, torch.tensor([-3, 2])).sum().backward()
    assert x.grad.tolist() == [0.125, 4.] and tx.grad.tolist() == [0., 4.]
    assert litnn.ldexp(x, e).tolist() == torch.ldexp(tx, torch.tensor([-3, 2])).tolist() == [0.1875, 8.]


def test_nanmean_of_only_nan():
    "A slice of NaNs: the mean is NaN in both; its gradient is 0 in litnn (NaN never reaches the input), NaN in torch."
    x, tx = litnn.tensor(allnan, requires_grad=True), torch.tensor(allnan, requires_grad=True)
    l, t = litnn.nanmean(x, 1), torch.nanmean(tx, 1)
    np.testing.assert_array_equal(host(l), host(t))
    l.sum().backward(); t.sum().backward()
    assert x.grad.tolist()[0] == [0., 0.] and np.isnan(host(tx.grad)[0]).all()
    np.testing.assert_allclose(host(x.grad)[1], host(tx.grad)[1])


# --- reference/torch/underscore_functions_and_broadcasting ----------------------------------------------------------------------------------------

INPLACE_FUNCS = ['abs_', 'ceil_', 'clamp_', 'cos_', 'exp_', 'floor_', 'neg_', 'negative_', 'relu_', 'sigmoid_', 'sqrt_',
                 'square_', 'tanh_', 'trunc_', 'zero_', 'round_', 'frac_', 'sin_', 'rsqrt_', 'reciprocal_']

@pytest.mark.parametrize('name', INPLACE_FUNCS)
def test_inplace_function_forms(name):
    args = dict(clamp_=(-0.5, 0.5)).get(name, ())
    check(lambda L, a: getattr(L, name)(a * 1, *args), np.abs(x34) + 0.1, name=False)


MORE_CASES = [
    ('inplace_aliases', lambda L, a, b: ((a * 1).negative_(), (a * 1).subtract_(b), (a * 1).multiply_(b), (a * 1).divide_(b),
                                         (a * 1).true_divide_(b, ), (a * 1).square_()), [x34, y34]),
    ('written_back', lambda L, a: ((a * 1).cumsum_(1), (a * 1).tril_(), (a * 1).triu_(-1), (a * 1).remainder_(0.7),
                                   a.detach().clone().floor_divide_(0.3)), [x34]),   # (torch gives floor_divide_ no derivative)
    ('comparisons_inplace', lambda L, a, b: tuple(getattr(a.detach().clone(), n)(b.detach()) for n in
                                                  ('gt_', 'ge_', 'lt_', 'le_', 'eq_', 'ne_', 'greater_', 'greater_equal_',
                                                   'less_', 'less_equal_', 'not_equal_')), [x34, np.where(x34 > 0, x34, y34)]),
    ('comparisons_inplace_int', lambda L, a: (a.clone().gt_(0), a.clone().eq_(a[0])), [i34]),
    ('square_int', lambda L, a: (a.clone().square_(), L.square_(a.clone())), [i34]),
    ('broadcast_tensors', lambda L, a, b, c: L.broadcast_tensors(a, b, c), [v4, x34[:, :1], R(2, 1, 1)]),
    ('block_diag', lambda L, a, b, c: (L.block_diag(a, b, c), L.block_diag(b[0, 0]), L.block_diag(a, a)), [x34, y34[:2, :1], v4]),
    ('block_diag_int', lambda L, a, b: L.block_diag(a, b[0, 0], b[1]), [i34, x34]),
    ('var_mean', lambda L, a: (*L.var_mean(a), *L.var_mean(a, 1), *L.std_mean(a, 0, keepdim=True), *L.var_mean(a, False),
                               *L.std_mean(a, dim=1, correction=0), *L.var_mean(a, 1, True, True)), [x34]),
    ('aminmax', lambda L, a: (*L.aminmax(a), *a.aminmax(dim=1), *L.aminmax(a, dim=0, keepdim=True)), [x34]),
    ('aminmax_int', lambda L, a: tuple(a.aminmax(dim=-1)), [i34]),
    ('addr', lambda L, a, b, c: (L.addr(a, b, c), a.addr(b, c, beta=0.5, alpha=-2), L.addr(a[0], b, c)), [x34, R(3), v4]),
    ('addr_beta0', lambda L, a, b, c: L.addr(a.detach() * np.nan, b, c, beta=0, alpha=3), [x34, R(3), v4]),
    ('addr_int', lambda L, a, b, c: L.addr(a, b, c, beta=2, alpha=3), [i34, i34[:, 0].copy(), i34[0]]),
    ('addr_inplace', lambda L, a, b, c: (a * 1).addr_(b, c, alpha=0.5), [x34, R(3), v4]),
    ('logspace', lambda L: (L.logspace(0, 2, 3), L.logspace(-1, 1, 5, base=2.), L.logspace(0, 3, 4, base=2, dtype=L.int64),
                            L.logspace(1, 0, 4, dtype=L.float64), L.logspace(0, 1, 1)), []),
    ('scalar_tensor', lambda L: (L.scalar_tensor(3), L.scalar_tensor(True), L.scalar_tensor(2.5, dtype=L.float64)), []),
    ('nextafter', lambda L, a, b: (L.nextafter(a.detach(), b.detach()), a.detach().nextafter(b[0].detach()),
                                   a.detach().clone().nextafter_(b.detach())), [x34, y34]),
    ('unravel_index', lambda L: (*L.unravel_index(L.tensor([5, 7, 0]), (2, 4)), *L.unravel_index(L.tensor(5), (3, 2)),
                                 *L.unravel_index(L.tensor([[3, 23]]), L.Size([2, 3, 4])),
                                 *L.unravel_index(L.tensor([4, 11, -1, 13, -8]), (3, 4)),      # torch wraps: no bounds check
                                 *L.unravel_index(L.tensor([4, 1], dtype=L.int32), 3), *L.unravel_index(L.tensor([5]), [2, True, 3])), []),
    ('H', lambda L, a, b: (a.H, b.mH, b.adjoint(), L.adjoint(a)), [x34, R(2, 3, 4)]),
    ('fill_diagonal', lambda L, a: ((a * 1).fill_diagonal_(5.), (a.t() * 1).fill_diagonal_(-1, wrap=True),
                                    L.cat([a, a]).fill_diagonal_(2., wrap=True), L.cat([a, a]).fill_diagonal_(2.)), [x34]),
]
for _id, _f, _arrays in list(MORE_CASES):
    if any(a.dtype.kind == 'f' for a in _arrays): MORE_CASES.append((_id + '_f32', _f, [a.astype(np.float32) if a.dtype.kind == 'f' else a for a in _arrays]))

@pytest.mark.parametrize('case', MORE_CASES, ids=[c[0] for c in MORE_CASES])
@pytest.mark.parametrize('dev', DEVICES)
def test_more_against_torch(case, dev):
    name, f, arrays = case
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        check(f, *arrays, dev=dev, name=False, **(dict(rtol=2e-6, atol=2e-6) if name.endswith('_f32') else {}))


def test_conjugate_transposes_of_0d():
    "A 0-d tensor's H, mH and adjoint() are its conjugate (mH and adjoint warn that this is deprecated)."
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda L, a: [f(L.complex(a, a * 2)).resolve_conj() for f in (lambda z: z.H, lambda z: z.mH, lambda z: z.adjoint())],
              np.array(1.5), name=False)

def test_broadcast_shapes_layout_rng_state():
    for shapes in [((2, 3), (4, 1, 3), 1), ((5,), ()), (litnn.Size([2, 1]), [3]), ()]:
        assert tuple(litnn.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    assert type(litnn.broadcast_shapes((2, 1))) is litnn.Size
    assert litnn.ones(2).layout is litnn.strided and repr(litnn.strided) == repr(torch.strided).replace('torch', 'litnn')
    st = litnn.get_rng_state(); a = litnn.randn(3)
    litnn.rand(5); litnn.set_rng_state(st)
    assert litnn.randn(3).tolist() == a.tolist()
    assert repr(litnn.aminmax(litnn.tensor([1, 2]))) == repr(torch.aminmax(torch.tensor([1, 2]))).replace('torch', 'litnn')
    assert repr(litnn.frexp(litnn.tensor([1., 2.]))) == repr(torch.frexp(torch.tensor([1., 2.]))).replace('torch', 'litnn')


@pytest.mark.parametrize('f', [lambda x: litnn.block_diag(x, x[0]), lambda x: litnn.var_mean(x, 1)[0], lambda x: litnn.std_mean(x, 0)[0],
                               lambda x: litnn.aminmax(x, dim=1).max, lambda x: litnn.addr(x, x[:, 0], x[0], beta=2),
                               lambda x: litnn.broadcast_tensors(x, x[0])[1], lambda x: (x * 1).fill_diagonal_(0.5),
                               lambda x: (x * 1).cumsum_(0), lambda x: x.mH])
def test_more_gradcheck(f):
    assert gradcheck(f, (litnn.tensor(R(3, 4), requires_grad=True),))


MORE_BAD = [
    lambda L: L.broadcast_shapes((2, 3), (4,)), lambda L: L.broadcast_tensors(L.ones(3), L.ones(2)),
    lambda L: L.unravel_index(L.tensor([1.]), (2, 4)), lambda L: L.aminmax(L.tensor([])),
    lambda L: L.block_diag(L.ones(2, 2, 2)), lambda L: L.ones(2, 3, 4).H, lambda L: L.ones(3).H, lambda L: L.ones(3).mH,
    lambda L: L.ones(3).adjoint(), lambda L: L.zeros(2, 3, 4).fill_diagonal_(1), lambda L: L.zeros(3).fill_diagonal_(1),
    lambda L: L.addr(L.zeros(2, 2, dtype=L.int64), L.tensor([1, 2]), L.tensor([3, 4]), beta=0.5),
    lambda L: L.addr(L.zeros(2, 2, dtype=L.int64), L.tensor([1, 2]), L.tensor([3, 4]), alpha=0.5),
    lambda L: L.nextafter(L.tensor([1]), L.tensor([2])),
    lambda L: L.unravel_index(L.tensor([1 + 2j]), (2, 2)), lambda L: L.unravel_index(L.tensor([1]), L.tensor([1, 2, 3])),
    lambda L: L.unravel_index(L.tensor([1]), (1, 2, 2.0)), lambda L: L.unravel_index(L.tensor(0), (2, -3)),
    lambda L: L.nextafter(L.tensor([1j]), L.tensor([2.])), lambda L: L.nextafter(L.tensor([1.]), L.tensor(2j, dtype=L.complex128)),
]

@pytest.mark.parametrize('i', range(len(MORE_BAD)))
def test_more_bad_input(i):
    same_error(MORE_BAD[i], match=i not in (0, 1, 2))


def test_method_functions():
    for lib in (litnn, torch):
        x = lib.ones(2, 3, requires_grad=True) * 2
        assert (lib.numel(x), lib.is_floating_point(x), lib.detach(x).requires_grad, lib.is_floating_point(lib.tensor([1]))) == (6, True, False, False)


def test_new_with_size_keyword_and_storages():
    "Tensor.new: size= by keyword, a storage (viewed, sharing its memory), a storage of another dtype refused."
    for lib in (torch, litnn):
        x, y = lib.tensor([]), lib.randn(4, 4)
        assert tuple(x.new(size=(3, 4)).shape) == (3, 4) and tuple(x.new(()).shape) == (0,)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            assert x.new(y.storage()).data_ptr() == y.data_ptr()
            assert x.new(y.untyped_storage()).data_ptr() == y.data_ptr()
            with pytest.raises(RuntimeError, match='Expected a Storage of type'): x.new(lib.IntTensor([1]).storage())


def test_map_refuses_other_tensors_that_require_grad():
    for lib in (torch, litnn):
        x, y = lib.randn(3, 3), lib.randn(3)
        z = lib.randn(1, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"Can't call map2_\(\) on Variable that requires grad"): x.map2_(y, z, lambda a, b, c: a + b * c)
        with pytest.raises(RuntimeError, match=r"Can't call map_\(\) on Variable that requires grad"): x.map_(z, lambda a, b: a + b)


def test_type_given_the_tensor_class():
    "x.type(torch.Tensor): the default tensor type (of the default dtype)."
    for lib in (torch, litnn):
        x = lib.tensor([1, 2])
        assert str(x.type(lib.Tensor).dtype).split('.')[-1] == 'float32'
        prev = lib.get_default_dtype()
        try:
            lib.set_default_dtype(lib.float64)
            assert str(x.type(lib.Tensor).dtype).split('.')[-1] == 'float64'
        finally: lib.set_default_dtype(prev)


def test_format_of_a_meta_tensor_is_its_repr():
    for lib in (torch, litnn):
        m = lib.empty((), device='meta')
        assert format(m) == repr(m)
        assert f"{lib.tensor(1.2345):.2f}" == '1.23'


def test_is_same_size_of_nested_tensors():
    "is_same_size on nested tensors compares their components' shapes; a nested and a plain tensor are refused."
    shapes = [((2, 4), (3, 4), (5, 4)), ((2, 4), (2, 4), (2, 4)), ((2, 4, 5), (2, 6, 5)), ((2, 4), (3, 4), (5, 4))]
    for lib in (torch, litnn):
        nts = [lib.nested.nested_tensor([lib.ones(*s) for s in ss]) for ss in shapes]
        assert [nts[0].is_same_size(n) for n in nts] == [True, False, False, True]
        with pytest.raises(RuntimeError, match='Self is not nested. While Other is nested.'): lib.ones(2).is_same_size(nts[0])
        with pytest.raises(RuntimeError, match='Self is nested. While Other is not nested.'): nts[0].is_same_size(lib.ones(2))
        assert lib.ones(2, 3).is_same_size(lib.zeros(2, 3)) and not lib.ones(2, 3).is_same_size(lib.zeros(3, 2))


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int32', 'uint8', 'int64', 'complex64'])
@pytest.mark.parametrize('value', [1j, 300, -1.7, 2 + 0j, 0.5, True, 1e39])
@pytest.mark.parametrize('fn', ['addcmul', 'addcdiv', 'addcmul_', 'addcdiv_'])
def test_addcmul_value_is_read_in_the_tensors_dtype(fn, dtype, value):
    "torch's kernel converts value to the dtype it computes in: an integer tensor truncates 0.5 to 0, a real one refuses 1j, uint8 refuses 300"
    def run(L):
        d = getattr(L, dtype)
        x, a, b = L.ones(2, dtype=d), L.ones(2, dtype=d) * 3, L.ones(2, dtype=d)
        r = getattr(x, fn)(a, b, value=value) if fn.endswith('_') else getattr(L, fn)(x, a, b, value=value)
        return str(r.dtype).split('.')[1], r.double().tolist() if not r.is_complex() else r.tolist()
    try: want = run(torch)
    except Exception as e:
        with pytest.raises(type(e)) as le: run(litnn)
        assert str(le.value) == str(e)
    else: assert run(litnn) == want


@pytest.mark.parametrize('dtype', ['int8', 'int16', 'int32', 'int64', 'uint8'])
def test_lcm_where_the_product_wraps_as_torch(dtype):
    "torch's lcm is abs(a / gcd * b): an int32/int64 product that wraps comes back positive (numpy's |a| / gcd * |b| does not)"
    def f(lib):
        big = {'int8': 127, 'int16': 2**15 - 1, 'int32': 2**31 - 1, 'int64': 2**63 - 1, 'uint8': 255}[dtype]
        a = lib.tensor([2, 3, 0, 6] + ([-2, -6] if dtype != 'uint8' else [2, 4]), dtype=getattr(lib, dtype))
        b = lib.tensor([big, big, 5, 4, big, 4], dtype=getattr(lib, dtype))
        return lib.lcm(a, b).tolist(), a.clone().lcm_(b).tolist()
    assert f(litnn) == f(torch)


@pytest.mark.parametrize('base', ['float32', 'int64', 'uint8'])
@pytest.mark.parametrize('exp', ['float16', 'bfloat16', 'float64'])
def test_ldexp_takes_the_power_in_the_exponents_dtype_as_torch(base, exp):
    "ldexp(float32 or integer x, float16 n) is torch's mul(x, pow(2.0, n)): 2**0.5 rounded to float16 (1.4140625), not float32's"
    def f(lib):
        x = lib.tensor([1, 3, 2, 5], dtype=getattr(lib, base))
        n = lib.tensor([0.5, -2.5, 3.25, 0.0], dtype=getattr(lib, exp))
        r = lib.ldexp(x, n)
        return str(r.dtype).split('.')[-1], r.tolist()
    assert f(litnn) == f(torch)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64'])
@pytest.mark.parametrize('exp_dtype', ['int32', 'int64', 'int8'])
def test_ldexp_with_integer_exponents_rounds_once_as_torchs_kernel(dtype, exp_dtype):
    "torch's ldexp kernel: half ldexp(1e-4, 16) = 6.55 (not 1e-4 * inf), ldexp(0, 120) = 0 (not 0 * inf = nan), subnormals"
    xs = [1e-4, 3.0, 1e-30, 0.0, -0.0, float('inf'), 6e-8, 1.5, -2.75, 1e-38, float('nan')]
    ns = [16, -20, 120, 120, -127, -100, 30, -126, 100, 127, 5]
    def f(lib):
        r = lib.ldexp(lib.tensor(xs).to(getattr(lib, dtype)), lib.tensor(ns, dtype=getattr(lib, exp_dtype)))
        return str(r.dtype).split('.')[-1], [repr(v) for v in r.double().tolist()]
    assert f(litnn) == f(torch)

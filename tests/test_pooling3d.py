"""reference/nn/pooling_3d against torch 2.13: max/avg/adaptive pooling in 3-d (values, indices, gradients, modules, errors)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
TOL = dict(float64=dict(rtol=1e-12, atol=1e-12), float32=dict(rtol=1e-5, atol=1e-6))

def _check(lf, tf, shape, dtype, n_out=1):
    "Same values (and indices), and the same input gradient, for litnn's `lf` and torch's `tf`."
    a = rng.normal(size=shape).astype(dtype)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = lf(lx), tf(tx)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ly[1].numpy(), ty[1].numpy())
        assert ly[1].dtype == litnn.int64
        ly, ty = ly[0], ty[0]
    assert ly.shape == ty.shape
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    g = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dtype])

# (shape, kernel, stride, padding, dilation, ceil_mode)
MAX = [((2, 3, 4, 5, 6), 2, None, 0, 1, False), ((1, 2, 5, 6, 7), 3, 2, 1, 1, True), ((2, 5, 6, 7), (2, 3, 2), (1, 2, 2), (1, 1, 0), (2, 1, 1), False),
       ((1, 1, 7, 7, 7), 3, 3, 1, 2, True), ((2, 2, 4, 4, 4), (1, 2, 3), 1, 0, 1, False)]

@pytest.mark.parametrize('case', MAX, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_max_pool3d(case, dtype):
    shape, k, s, p, d, c = case
    for ri in (False, True):
        _check(lambda x: litnn.nn.functional.max_pool3d(x, k, s, p, d, c, ri), lambda x: torch.nn.functional.max_pool3d(x, k, s, p, d, c, ri), shape, dtype)

# (shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG = [((2, 3, 4, 5, 6), 2, None, 0, False, True, None), ((1, 2, 5, 6, 7), 3, 2, 1, True, True, None), ((1, 2, 5, 6, 7), 3, 2, 1, True, False, None),
       ((2, 5, 6, 7), (2, 3, 2), (1, 2, 2), (1, 1, 0), False, False, None), ((1, 2, 5, 5, 5), 3, 2, 1, False, True, 5),
       ((1, 1, 6, 7, 5), (3, 2, 1), (2, 1, 1), (1, 1, 0), True, False, None)]

@pytest.mark.parametrize('case', AVG, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_avg_pool3d(case, dtype):
    shape, *args = case
    _check(lambda x: litnn.nn.functional.avg_pool3d(x, *args), lambda x: torch.nn.functional.avg_pool3d(x, *args), shape, dtype)

@pytest.mark.parametrize('shape,out', [((2, 3, 5, 6, 7), 2), ((1, 2, 7, 5, 6), (3, None, 4)), ((3, 4, 5, 6), (1, 5, 4)), ((1, 1, 3, 3, 3), 5)])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_adaptive_pool3d(shape, out, dtype):
    _check(lambda x: litnn.nn.functional.adaptive_avg_pool3d(x, out), lambda x: torch.nn.functional.adaptive_avg_pool3d(x, out), shape, dtype)
    for ri in (False, True):
        _check(lambda x: litnn.nn.functional.adaptive_max_pool3d(x, out, ri), lambda x: torch.nn.functional.adaptive_max_pool3d(x, out, ri), shape, dtype)

def test_integer_avg_and_max():
    a = rng.integers(-50, 50, size=(1, 2, 4, 5, 6))
    for f in (lambda F, x: F.avg_pool3d(x, 3, 2, 1), lambda F, x: F.max_pool3d(x, 2, 1, 1)):
        l, t = f(litnn.nn.functional, litnn.tensor(a)), f(torch.nn.functional, torch.tensor(a))
        np.testing.assert_array_equal(l.numpy(), t.numpy())

def test_gradcheck():
    F = litnn.nn.functional
    x = litnn.tensor(rng.normal(size=(1, 2, 3, 4, 4)), requires_grad=True)
    assert litnn.autograd.gradcheck(lambda t: F.avg_pool3d(t, 2, 1, 1, count_include_pad=False), (x,))
    assert litnn.autograd.gradgradcheck(lambda t: F.avg_pool3d(t, (2, 3, 2), 2, 1, True), (x,))
    assert litnn.autograd.gradcheck(lambda t: F.max_pool3d(t, 2, 1, 1), (x,))
    assert litnn.autograd.gradcheck(lambda t: F.adaptive_avg_pool3d(t, (2, 3, 3)), (x,))
    assert litnn.autograd.gradcheck(lambda t: F.adaptive_max_pool3d(t, (2, 3, 3)), (x,))

def test_modules_and_reprs():
    for cls, args in [('MaxPool3d', (2,)), ('MaxPool3d', ((2, 1, 2), 1, (1, 0, 1), 2, True, True)), ('AvgPool3d', (2,)),
                      ('AvgPool3d', ((2, 1, 2), 1, (1, 0, 1), True, False, 3)), ('AdaptiveAvgPool3d', ((2, None, 1),)), ('AdaptiveMaxPool3d', (2, True))]:
        lm, tm = getattr(litnn.nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict()) == []
        a = rng.normal(size=(2, 3, 5, 6, 4))
        ly, ty = lm(litnn.tensor(a)), tm(torch.tensor(a))
        if isinstance(ty, tuple): np.testing.assert_array_equal(ly[1].numpy(), ty[1].numpy()); ly, ty = ly[0], ty[0]
        np.testing.assert_allclose(ly.numpy(), ty.numpy(), rtol=1e-12)

x5 = lambda T: T.ones(1, 2, 4, 5, 6)
ERRORS = [lambda F, T: F.max_pool3d(T.ones(2, 3, 4), 2), lambda F, T: F.max_pool3d(T.ones(2, 3, 4, 5, 6, 7), 2),
          lambda F, T: F.max_pool3d(x5(T), 2, stride=0), lambda F, T: F.max_pool3d(x5(T), 2, padding=2),
          lambda F, T: F.max_pool3d(x5(T), 2, padding=-1), lambda F, T: F.max_pool3d(x5(T), 2, dilation=0),
          lambda F, T: F.max_pool3d(x5(T), 5), lambda F, T: F.max_pool3d(x5(T), (2, 2)),
          lambda F, T: F.avg_pool3d(T.ones(2, 3, 4), 2), lambda F, T: F.avg_pool3d(x5(T), 2, stride=0),
          lambda F, T: F.avg_pool3d(x5(T), 2, padding=2), lambda F, T: F.avg_pool3d(x5(T), 5), lambda F, T: F.avg_pool3d(x5(T), (2, 2)),
          lambda F, T: F.avg_pool3d(x5(T), 2, divisor_override=0), lambda F, T: F.adaptive_avg_pool3d(T.ones(2, 3, 4), 2),
          lambda F, T: F.adaptive_avg_pool3d(x5(T), (2, 2)), lambda F, T: F.adaptive_avg_pool3d(x5(T), (2, -1, 2)),
          lambda F, T: F.adaptive_avg_pool3d(T.ones(1, 0, 4, 5, 6), 2), lambda F, T: F.adaptive_max_pool3d(T.ones(2, 3, 4), 2),
          lambda F, T: F.adaptive_max_pool3d(x5(T), (2, 2)), lambda F, T: F.adaptive_max_pool3d(x5(T), (2, -1, 2))]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors_as_torch(i):
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: ERRORS[i](lib.nn.functional, lib)
        msgs.append((e.type, str(e.value)))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('shape', [(2, 3, 4, 4, 4), (3, 4, 5, 6)])
@pytest.mark.parametrize('out', [2, (2, 3, 1), (None, 2, None)])
def test_adaptive_avg_pool3d_output_is_row_major(shape, out):
    "Found by torch's module_db: the result was a chain of transposed views (strides (24, 8, 1, 4, 2)); torch's is contiguous."
    a = rng.normal(size=shape)
    ly, ty = litnn.nn.functional.adaptive_avg_pool3d(litnn.tensor(a), out), torch.nn.functional.adaptive_avg_pool3d(torch.tensor(a), out)
    assert ly.stride() == ty.stride() and ly.is_contiguous()
    np.testing.assert_allclose(ly.numpy(), ty.numpy(), **TOL['float64'])


def test_max_pool3d_keeps_channels_last_3d():
    "torch's max_pool3d kernel keeps a channels_last_3d input's layout in both the values and the indices."
    a = rng.normal(size=(2, 3, 4, 4, 4))
    outs = []
    for lib in (litnn, torch):
        x = lib.tensor(a).contiguous(memory_format=lib.channels_last_3d)
        y, i = lib.nn.functional.max_pool3d(x, 2, return_indices=True)
        outs.append((y.stride(), i.stride(), y.numpy().copy(), i.numpy().copy()))
    (lys, lis, ly, li), (tys, tis, ty, ti) = outs
    assert (lys, lis) == (tys, tis)
    np.testing.assert_array_equal(ly, ty); np.testing.assert_array_equal(li, ti)


def test_adaptive_avg_pool3d_bfloat16():
    "bfloat16 is one of torch's adaptive_avg_pool3d dtypes (OpInfo samples): computed, and kept."
    x = np.arange(2 * 4 * 5 * 6, dtype=np.float32).reshape(1, 2, 4, 5, 6) / 64
    want = torch.nn.functional.adaptive_avg_pool3d(torch.tensor(x).bfloat16(), (2, 3, 4))
    got = litnn.nn.functional.adaptive_avg_pool3d(litnn.tensor(x).to(litnn.bfloat16), (2, 3, 4))
    assert got.dtype == litnn.bfloat16
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize('fn', ['max_pool3d', 'avg_pool3d'])
@pytest.mark.parametrize('shape', [(1, 0, 5, 4, 3), (0, 0, 5, 4, 3), (2, 3, 0, 4, 3), (3, 0, 4, 3), (0, 4, 3), (0, 2, 5, 4, 3)])
def test_empty_dims_refused_with_torchs_message(fn, shape):
    "An empty channel or spatial dim is torch's error (its message says 'dimension 0' whichever it is); an empty batch is fine."
    def run(lib):
        try: return tuple(getattr(lib.nn.functional, fn)(lib.ones(*shape), 1).shape)
        except Exception as e: return type(e).__name__, str(e)
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('return_indices', [False, True])
def test_unbatched_max_pool3d_keeps_a_channels_last_3d_layout_as_torch(return_indices):
    "A (C, D, H, W) input dense as a channels_last_3d batch of one: torch's kernel pools that batch (test_pooling's test_max_pool3d_ndhwc)."
    a = rng.normal(size=(1, 6, 8, 7, 9)).astype('float64')
    def run(lib):
        x = lib.tensor(a).contiguous(memory_format=lib.channels_last_3d).squeeze(0).requires_grad_()
        out = lib.nn.functional.max_pool3d(x, (3, 2, 4), return_indices=return_indices)
        vals, idx = out if return_indices else (out, None)
        vals.backward(lib.ones_like(vals))
        cl = lambda t: t.unsqueeze(0).is_contiguous(memory_format=lib.channels_last_3d)
        return vals.detach().numpy(), None if idx is None else idx.numpy(), x.grad.numpy(), cl(vals), idx is None or cl(idx), vals.is_contiguous()
    ours, theirs = run(litnn), run(torch)
    for a_, b_ in zip(ours, theirs):
        if isinstance(a_, np.ndarray): np.testing.assert_array_equal(a_, b_)
        else: assert a_ == b_

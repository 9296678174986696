"""Pooling side by side with torch: max_pool2d (indices, ties, NaN, -inf, ceil_mode, padding, dilation),
avg_pool2d (count_include_pad, ceil_mode, divisor_override), adaptive_avg_pool2d (divisible or not, None
entries), outputs, gradients, double backward, gradcheck, grad_fn names, module reprs and errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
import litnn.nn.functional as LF
from litnn.autograd import gradcheck, gradgradcheck
from nn_pairs import err

torch = pytest.importorskip('torch')
TF = torch.nn.functional
torch.set_num_threads(1)


def compare(fn, x, *args, atol=1e-10, **kw):
    "Run F.<fn> in litnn and torch on x: same output (and indices), same input gradient, same grad_fn name."
    lx, tx = litnn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo, to = getattr(LF, fn)(lx, *args, **kw), getattr(TF, fn)(tx, *args, **kw)
    if isinstance(to, tuple):
        (lo, li), (to, ti) = lo, to
        assert li.tolist() == ti.tolist() and li.dtype == litnn.int64 and not li.requires_grad
    assert lo.shape == tuple(to.shape)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), atol=atol, rtol=1e-6)
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__
    g = np.random.default_rng(1).standard_normal(to.shape).astype(x.dtype)
    lo.backward(litnn.tensor(g)); to.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=atol, rtol=1e-6)
    return lo, to


MAX_CASES = [
    (2, {}), (3, dict(stride=1)), ((2, 3), dict(stride=(1, 2), padding=(1, 1))), (3, dict(stride=2, padding=1)),
    (2, dict(dilation=2)), ((3, 2), dict(stride=2, padding=(1, 0), dilation=(2, 3), ceil_mode=True)),
    (2, dict(ceil_mode=True)), (3, dict(stride=2, ceil_mode=True, padding=1)), (2, dict(stride=[])),
    ([2], dict(stride=(3,))), (1, {}), ((1, 4), dict(stride=(1, 3), ceil_mode=True)),
]


@pytest.mark.parametrize('k,kw', MAX_CASES)
@pytest.mark.parametrize('indices', [False, True])
@pytest.mark.parametrize('shape', [(2, 3, 7, 8), (3, 6, 5)])
def test_max_pool2d_matches_torch(k, kw, indices, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    compare('max_pool2d', x, k, **kw, return_indices=indices)


def test_max_pool2d_ties_nan_inf_integers():
    "PyTorch's rules: the first of equal values, the last NaN, -inf windows point at their first real element."
    x = np.array([[[[1., 1., 2., 2.], [1., 1., 2., 2.], [np.nan, 0., -np.inf, -np.inf], [1., np.nan, -np.inf, -np.inf]]]])
    for kw in [dict(), dict(stride=1), dict(padding=1), dict(stride=1, padding=1, ceil_mode=True), dict(stride=3, ceil_mode=True)]:
        l, t = LF.max_pool2d(litnn.tensor(x), 2, return_indices=True, **kw), TF.max_pool2d(torch.tensor(x), 2, return_indices=True, **kw)
        np.testing.assert_array_equal(l[0].numpy(), t[0].numpy())
        assert l[1].tolist() == t[1].tolist(), kw
    xi = np.arange(48).reshape(1, 3, 4, 4) % 7 - 3
    l, t = LF.max_pool2d(litnn.tensor(xi), 3, 1, 1, return_indices=True), TF.max_pool2d(torch.tensor(xi), 3, 1, 1, return_indices=True)
    assert l[0].tolist() == t[0].tolist() and l[1].tolist() == t[1].tolist() and l[0].dtype == litnn.int64


def test_max_pool2d_gradient_with_ties_and_overlaps():
    "Overlapping windows that share a winner add their gradients there."
    x = np.round(np.random.default_rng(2).standard_normal((2, 2, 6, 6)))      # many ties
    compare('max_pool2d', x, 3, stride=1, padding=1)
    compare('max_pool2d', x, 2, stride=1, dilation=2)


AVG_CASES = [
    (2, {}), (3, dict(stride=1)), (3, dict(stride=2, padding=1)), (3, dict(stride=2, padding=1, count_include_pad=False)),
    ((2, 3), dict(stride=(1, 2), padding=(1, 1), ceil_mode=True)), (2, dict(ceil_mode=True, count_include_pad=False)),
    (3, dict(stride=2, padding=1, ceil_mode=True)), (3, dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    (2, dict(divisor_override=3)), (3, dict(padding=1, divisor_override=2, ceil_mode=True, stride=2)), (1, {}),
]


@pytest.mark.parametrize('k,kw', AVG_CASES)
@pytest.mark.parametrize('shape', [(2, 3, 7, 8), (3, 5, 6)])
def test_avg_pool2d_matches_torch(k, kw, shape):
    x = np.random.default_rng(3).standard_normal(shape)
    compare('avg_pool2d', x, k, **kw)


def test_avg_pool2d_integers_truncate():
    x = np.arange(-20, 30).reshape(1, 2, 5, 5) * 3
    for kw in [dict(), dict(padding=1, stride=2), dict(divisor_override=4, padding=1, stride=1)]:
        assert LF.avg_pool2d(litnn.tensor(x), 3, **kw).tolist() == TF.avg_pool2d(torch.tensor(x), 3, **kw).tolist()


@pytest.mark.parametrize('out', [1, (1, 1), 2, (3, 4), (7, 8), (5, 3), (4, None), (None, 1), [2, 2], 0, (0, 3), 10])
@pytest.mark.parametrize('shape', [(2, 3, 7, 8), (3, 8, 8)])
def test_adaptive_avg_pool2d_matches_torch(out, shape):
    x = np.random.default_rng(4).standard_normal(shape)
    lx, tx = litnn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo, to = LF.adaptive_avg_pool2d(lx, out), TF.adaptive_avg_pool2d(tx, out)
    assert lo.shape == tuple(to.shape)
    if lo.numel() > 1: assert lo.stride() == to.stride()     # row-major as torch's (was a transposed view: .view failed)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), atol=1e-12)
    if lo.numel():
        assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__
        g = np.random.default_rng(5).standard_normal(to.shape)
        lo.backward(litnn.tensor(g)); to.backward(torch.tensor(g))
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=1e-12)


def real_windows(n, k, s, p, d, ceil):
    "Does every window along a dim of size n hold a real element (not only padding)?"
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p: o -= 1
    return all(any(0 <= r * s - p + i * d < n for i in range(k)) for r in range(o))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pooling_fuzz(data):
    "Random geometries for the three poolings."
    d = data.draw
    kh, kw = d(st.integers(1, 4)), d(st.integers(1, 4))
    dh, dw = d(st.integers(1, 2)), d(st.integers(1, 2))
    ph, pw = d(st.integers(0, kh // 2)), d(st.integers(0, kw // 2))     # torch: at most half the kernel, dilated or not
    sh, sw = d(st.integers(1, 3)), d(st.integers(1, 3))
    H = d(st.integers(max(1, (kh - 1) * dh + 1 - 2 * ph), 10))
    W = d(st.integers(max(1, (kw - 1) * dw + 1 - 2 * pw), 10))
    shape = d(st.sampled_from([(2, 2, H, W), (3, H, W)]))
    ceil = d(st.booleans())
    x = np.random.default_rng(d(st.integers(0, 2**16))).standard_normal(shape)
    mp = dict(stride=(sh, sw), padding=(ph, pw), dilation=(dh, dw), ceil_mode=ceil, return_indices=True)
    if all(real_windows(*a, ceil) for a in ((H, kh, sh, ph, dh), (W, kw, sw, pw, dw))): compare('max_pool2d', x, (kh, kw), **mp)
    else:   # a window of padding only: torch's backward writes into the next plane (a torch bug); litnn's drops it
        l, t = LF.max_pool2d(litnn.tensor(x), (kh, kw), **mp), TF.max_pool2d(torch.tensor(x), (kh, kw), **mp)
        np.testing.assert_array_equal(l[0].numpy(), t[0].numpy()); assert l[1].tolist() == t[1].tolist()
    if H + 2 * ph >= kh and W + 2 * pw >= kw:
        compare('avg_pool2d', x, (kh, kw), stride=(sh, sw), padding=(ph, pw), ceil_mode=ceil, count_include_pad=d(st.booleans()),
                divisor_override=d(st.sampled_from([None, 1, 3])))
    compare('adaptive_avg_pool2d', x, (d(st.integers(1, 6)), d(st.integers(1, 6))))


def test_empty_batch():
    x = np.zeros((0, 3, 6, 6))
    for fn, args in [('max_pool2d', (2,)), ('avg_pool2d', (2,)), ('adaptive_avg_pool2d', (3,))]:
        assert getattr(LF, fn)(litnn.tensor(x), *args).shape == tuple(getattr(TF, fn)(torch.tensor(x), *args).shape)


def test_float32():
    x = np.random.default_rng(6).standard_normal((4, 8, 13, 11)).astype(np.float32)
    compare('max_pool2d', x, 2, atol=1e-6)
    compare('avg_pool2d', x, 3, stride=2, padding=1, atol=1e-6)
    compare('adaptive_avg_pool2d', x, (5, 3), atol=1e-6)


def test_gradcheck_and_double_backward():
    rng = np.random.default_rng(7)
    x = litnn.tensor(rng.standard_normal((2, 2, 6, 5)), requires_grad=True)
    for f in [lambda x: LF.max_pool2d(x, 3, 2, 1, ceil_mode=True), lambda x: LF.max_pool2d(x, 2, 1, dilation=2),
              lambda x: LF.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), lambda x: LF.avg_pool2d(x, 2, divisor_override=3),
              lambda x: LF.adaptive_avg_pool2d(x, (4, 3)), lambda x: LF.adaptive_avg_pool2d(x, (3, 5))]:
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    a = rng.standard_normal((2, 3, 6, 6))
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(a, requires_grad=True)
        F = lib.nn.functional
        y = F.max_pool2d(t * t, 3, 1, 1) + F.avg_pool2d(t * t, 3, 1, 1) + F.adaptive_avg_pool2d(t * t, 6)
        g, = lib.autograd.grad(y.square().sum(), t, create_graph=True)
        g.square().sum().backward()
        out.append((t.grad.detach().numpy(), type(g.grad_fn).__name__))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-9)


# --- modules ----------------------------------------------------------------------------------------

MODULES = [
    ('MaxPool2d', (2,), {}), ('MaxPool2d', ((2, 3),), dict(stride=1, padding=1, dilation=2, ceil_mode=True, return_indices=True)),
    ('MaxPool2d', ([2, 3],), {}), ('MaxPool2d', (3,), dict(stride=(1, 2))),
    ('AvgPool2d', (2,), {}), ('AvgPool2d', (3, 2, 1, True, False, 2), {}), ('AvgPool2d', ((2, 3), (1, 2), (0, 1)), {}),
    ('AdaptiveAvgPool2d', (1,), {}), ('AdaptiveAvgPool2d', ((2, None),), {}), ('AdaptiveAvgPool2d', ([3, 2],), {}),
]


@pytest.mark.parametrize('name,args,kw', MODULES)
def test_modules_as_torch(name, args, kw):
    lm, tm = getattr(litnn.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(lm) == repr(tm)
    assert lm.__constants__ == tm.__constants__
    for a in tm.__constants__: assert getattr(lm, a) == getattr(tm, a), a
    assert list(lm.state_dict()) == list(tm.state_dict()) == []
    x = np.random.default_rng(8).standard_normal((2, 3, 8, 9)).astype(np.float32)
    lo, to = lm(litnn.tensor(x)), tm(torch.tensor(x))
    if isinstance(to, tuple): (lo, li), (to, ti) = lo, to; assert li.tolist() == ti.tolist()
    np.testing.assert_allclose(lo.numpy(), to.numpy(), atol=1e-6)


# --- errors -----------------------------------------------------------------------------------------

X = lambda L, *s: L.ones(*(s or (1, 3, 5, 5)))
ERRORS = [
    lambda L: L.nn.functional.max_pool2d(X(L, 5, 5), 2),
    lambda L: L.nn.functional.max_pool2d(X(L, 1, 1, 1, 5, 5), 2),
    lambda L: L.nn.functional.max_pool2d(X(L), 3, padding=2),
    lambda L: L.nn.functional.max_pool2d(X(L), (3, 2), padding=(2, 0), dilation=(1, 2)),
    lambda L: L.nn.functional.max_pool2d(X(L), (3, 3), padding=(0, 2)),
    lambda L: L.nn.functional.max_pool2d(X(L), 0),
    lambda L: L.nn.functional.max_pool2d(X(L), 0, stride=1),
    lambda L: L.nn.functional.max_pool2d(X(L), (2, 0), 1),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, stride=0),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, stride=-1),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, dilation=0),
    lambda L: L.nn.functional.max_pool2d(X(L), 6),
    lambda L: L.nn.functional.max_pool2d(X(L), (2, 2, 2)),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, stride=(1, 2, 3)),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, padding=(1, 1, 1)),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, dilation=(1, 2, 3)),
    lambda L: L.nn.functional.max_pool2d(X(L), 2, padding=-1),
    lambda L: L.nn.functional.max_pool2d(X(L), (1, 3), padding=(0, 2), dilation=2),
    lambda L: L.nn.functional.max_pool2d(X(L, 1, 0, 5, 5), 2),
    lambda L: L.nn.functional.max_pool2d(X(L, 3, 5, 0), 2),
    lambda L: L.nn.functional.max_pool2d(X(L) > 0, 2),
    lambda L: L.nn.functional.avg_pool2d(X(L, 5, 5), 2),
    lambda L: L.nn.functional.avg_pool2d(X(L, 1, 1, 1, 5, 5), 2),
    lambda L: L.nn.functional.avg_pool2d(X(L), 3, padding=2),
    lambda L: L.nn.functional.avg_pool2d(X(L), 0),
    lambda L: L.nn.functional.avg_pool2d(X(L), 2, stride=-1),
    lambda L: L.nn.functional.avg_pool2d(X(L), 6),
    lambda L: L.nn.functional.avg_pool2d(X(L), (2, 2, 2)),
    lambda L: L.nn.functional.avg_pool2d(X(L), 2, divisor_override=0),
    lambda L: L.nn.functional.avg_pool2d(X(L), 2, padding=-1),
    lambda L: L.nn.functional.avg_pool2d(X(L, 1, 0, 5, 5), 2),
    lambda L: L.nn.functional.adaptive_avg_pool2d(X(L, 5), 2),
    lambda L: L.nn.functional.adaptive_avg_pool2d(X(L), (2, 2, 2)),
    lambda L: L.nn.functional.adaptive_avg_pool2d(X(L), [2]),
    lambda L: L.nn.functional.adaptive_avg_pool2d(X(L), -1),
    lambda L: L.nn.functional.adaptive_avg_pool2d(X(L, 1, 3, 0, 5), 2),
    lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(1, 3, 5, 5, dtype=L.int64), 2),
    lambda L: L.nn.MaxPool2d(2)(X(L, 5, 5)),
    # torch.nn.functional's _list_with_default (a ValueError) and the max pools' sizes (OpInfo error_inputs)
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(2, 2), (2, 2)),
    lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 2, 2), (2, 2, 2)),
    lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 2, 2), (2, 2, 2)),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(1, 2, 2), ()),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.ones(1, 2, 2), (-1, 0)),
    lambda L: L.nn.functional.adaptive_max_pool1d(L.ones(1, 1, 4), -1),
]


@pytest.mark.parametrize('f', ERRORS)
def test_errors_as_torch(f):
    le, te = err(f, litnn), err(f, torch)
    assert le == te, f"litnn: {le}\ntorch: {te}"


def test_float_kernel_is_a_type_error():
    (lt, lm), (tt, tm) = err(lambda L: L.nn.functional.max_pool2d(X(L), 2.0), litnn), err(lambda L: L.nn.functional.max_pool2d(X(L), 2.0), torch)
    assert lt is tt is TypeError and 'kernel_size' in lm and 'kernel_size' in tm


def test_results_do_not_share_scratch_memory():
    "Temporaries are reused between calls; results and gradients must not be among them."
    a, b = np.arange(25.).reshape(1, 1, 5, 5), -np.arange(25.).reshape(1, 1, 5, 5)
    for f in [lambda x: LF.max_pool2d(x, 3, 2, 1, ceil_mode=True), lambda x: LF.avg_pool2d(x, 3, 1, 1)]:
        xa, xb = litnn.tensor(a, requires_grad=True), litnn.tensor(b, requires_grad=True)
        ya = f(xa); ya.sum().backward(); ga = xa.grad.numpy().copy(); yc = ya.detach().numpy().copy()
        f(xb).square().sum().backward()
        np.testing.assert_array_equal(xa.grad.numpy(), ga)
        np.testing.assert_array_equal(ya.detach().numpy(), yc)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_pooling_on_gpu():
    "The same code on CuPy arrays: outputs, indices and gradients equal the CPU's."
    a = np.random.default_rng(12).standard_normal((2, 3, 9, 8))
    res = []
    for dev in ('cpu', 'cuda'):
        x = litnn.tensor(a, device=dev, requires_grad=True)
        m, i = LF.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)
        y = m.sum() + LF.avg_pool2d(x, 3, 2, 1, count_include_pad=False).square().sum() + LF.adaptive_avg_pool2d(x, (4, 3)).square().sum()
        y.backward()
        res.append([m.detach().cpu().numpy(), i.cpu().numpy(), x.grad.cpu().numpy()])
    for c, g in zip(*res): np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize('name, shape', [('MaxPool1d', (1, 1, 4)), ('MaxPool2d', (1, 1, 4, 4)), ('MaxPool3d', (1, 1, 4, 4, 4)),
                                         ('AdaptiveMaxPool1d', (1, 1, 4)), ('AdaptiveMaxPool2d', (1, 1, 4, 4)), ('AdaptiveMaxPool3d', (1, 1, 4, 4, 4))])
def test_indices_changed_in_place_are_refused_at_backward_as_torch(name, shape):
    "torch's pooling nodes keep the indices they return: `idx.add_(1)` then backward is an error naming them (no wrong gradient)."
    torch = pytest.importorskip('torch')
    msgs = []
    for lib in (torch, litnn):
        x = lib.randn(*shape, requires_grad=True)
        out, idx = getattr(lib.nn, name)(2, return_indices=True)(x)
        idx.add_(1)
        with pytest.raises(RuntimeError) as e: out.sum().backward()
        msgs.append(str(e.value).split(' Hint:')[0].replace('torch.', 'litnn.'))
    assert msgs[0] == msgs[1]


def test_gather_keeps_its_index_as_torch():
    torch = pytest.importorskip('torch')
    for lib in (torch, litnn):
        x = lib.randn(3, requires_grad=True); i = lib.tensor([0, 2]); y = x.gather(0, i); i.add_(0)
        with pytest.raises(RuntimeError, match=r"LongTensor \[2\]\] is at version 1; expected version 0"): y.sum().backward()
        # (torch also refuses a second backward through a gather without retain_graph; litnn lets it run: its compiled
        # replays run the node again without its forward, so a freed index is no sign of a second backward there)
        y = x.gather(0, lib.tensor([1])); y.sum().backward(retain_graph=True); y.sum().backward()
        assert x.grad.tolist()[1] == 2.0


@pytest.mark.parametrize('out', [(5, 7), (4, 4), 3])
def test_adaptive_avg_pool_keeps_bfloat16(out):
    "bfloat16 stays bfloat16 when the windows are uneven (averaging matrices: numpy's bfloat16 products are float32)."
    x = np.arange(2 * 8 * 8, dtype=np.float32).reshape(2, 8, 8) / 64
    want = TF.adaptive_avg_pool2d(torch.tensor(x).to(torch.bfloat16), out)
    got = LF.adaptive_avg_pool2d(litnn.tensor(x).to(litnn.bfloat16), out)
    assert got.dtype == litnn.bfloat16
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1e-2, atol=1e-2)
    got1 = LF.adaptive_avg_pool1d(litnn.tensor(x[0]).to(litnn.bfloat16), 3)
    assert got1.dtype == litnn.bfloat16


@pytest.mark.parametrize('name', ['max_pool2d', 'avg_pool2d'])
@pytest.mark.parametrize('ceil_mode', [1, 'yes', None, np.bool_(False)])
def test_ceil_mode_must_be_a_bool(name, ceil_mode):
    f = lambda lib: getattr(lib.nn.functional, name)(lib.ones(1, 1, 5, 5), 2, ceil_mode=ceil_mode)
    assert err(f, litnn) == err(f, torch)


@pytest.mark.parametrize('fn,shape,out', [('adaptive_avg_pool2d', (1, 6, 5, 4), 0), ('adaptive_avg_pool2d', (2, 6, 5, 4), (3, 0)),
                                          ('adaptive_avg_pool2d', (6, 5, 4), 0), ('adaptive_max_pool2d', (1, 6, 5, 4), (0, 2)),
                                          ('adaptive_avg_pool3d', (1, 6, 5, 4), 0), ('adaptive_avg_pool3d', (2, 1, 6, 5, 4), (2, 0, 3)),
                                          ('adaptive_max_pool3d', (1, 6, 5, 4), 0), ('adaptive_avg_pool1d', (1, 6), 0),
                                          ('adaptive_max_pool1d', (2, 3, 6), 0), ('adaptive_avg_pool2d', (1, 6, 5, 4), 2)])
def test_adaptive_pooling_to_an_empty_output_refuses_backward_as_torch(fn, shape, out):
    "An output_size of 0 pools to an empty output; backward through it is torch's RuntimeError naming the grad's sizes."
    def run(lib):
        x = lib.ones(*shape, requires_grad=True)
        y = getattr(lib.nn.functional, fn)(x, out)
        try: y.sum().backward()
        except RuntimeError as e: return tuple(y.shape), str(e)
        return tuple(y.shape), tuple(x.grad.shape)
    assert run(litnn) == run(torch)


def test_a_strided_slice_of_a_channels_last_tensor_pools_channels_last_as_torch():
    "torch's pooling kernels ask suggest_memory_format: x[:, ::2] of a channels-last x is channels-last too."
    def run(lib):
        x = lib.tensor(np.arange(4 * 8 * 8 * 8, dtype='float32').reshape(4, 8, 8, 8)).contiguous(memory_format=lib.channels_last)[:, ::2]
        F = lib.nn.functional
        outs = [F.adaptive_avg_pool2d(x, 7), *F.adaptive_max_pool2d(x, 7, return_indices=True),
                *F.max_pool2d(x, 2, 1, 1, 2, return_indices=True)]
        return [(t.stride(), t.is_contiguous(memory_format=lib.channels_last)) for t in outs]
    assert run(litnn) == run(torch)

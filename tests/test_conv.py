"""Convolution side by side with torch: conv1d/conv2d outputs and gradients (input, weight, bias) on many
configurations, double backward, gradcheck, the modules' attributes, reprs, init, state_dict, padding modes
and errors (type and message)."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
import litnn.nn.functional as LF
from litnn.autograd import gradcheck, gradgradcheck
from litnn.nn import im2col
from nn_pairs import err

torch = pytest.importorskip('torch')
TF = torch.nn.functional
torch.set_num_threads(1)


def both(a, requires_grad=True):
    "The same array as a litnn and a torch tensor."
    return (litnn.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def compare(fn, x, w, b, atol=1e-10, **kw):
    "Run `fn` (conv1d/conv2d) in litnn and torch on x, w, b: same output, same gradients of a random projection."
    (lx, tx), (lw, tw) = both(x), both(w)
    lb, tb = both(b) if b is not None else (None, None)
    ly, ty = getattr(LF, fn)(lx, lw, lb, **kw), getattr(TF, fn)(tx, tw, tb, **kw)
    assert ly.shape == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), atol=atol, rtol=1e-6)
    g = np.random.default_rng(1).standard_normal(ty.shape).astype(x.dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t in [(lx, tx), (lw, tw)] + ([(lb, tb)] if b is not None else []):
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), atol=atol, rtol=1e-6)
    return ly, ty


CASES2 = [  # (input shape, weight shape, kwargs)
    ((2, 3, 8, 8), (4, 3, 3, 3), {}),
    ((2, 3, 8, 7), (4, 3, 3, 3), dict(stride=2)),
    ((2, 3, 8, 7), (4, 3, 3, 2), dict(stride=(1, 3), padding=(2, 1))),
    ((2, 3, 9, 9), (4, 3, 3, 3), dict(padding=1, dilation=2)),
    ((1, 4, 7, 6), (6, 2, 3, 3), dict(groups=2, padding=1)),
    ((2, 6, 5, 5), (6, 1, 3, 3), dict(groups=6, padding='same')),          # depthwise
    ((2, 3, 6, 7), (4, 3, 2, 4), dict(padding='same')),                     # even kernels: extra zero at the end
    ((2, 3, 9, 8), (4, 3, 2, 3), dict(padding='same', dilation=(3, 2))),
    ((2, 3, 6, 7), (4, 3, 3, 3), dict(padding='valid')),
    ((3, 2, 5, 5), (4, 2, 1, 1), {}),                                       # 1x1
    ((2, 2, 5, 5), (3, 2, 5, 5), {}),                                       # the kernel covers the image
    ((2, 2, 4, 4), (3, 2, 3, 3), dict(padding=3)),                          # more padding than image
    ((2, 2, 11, 3), (3, 2, 2, 3), dict(stride=(3, 1), dilation=(4, 1))),
    ((1, 1, 28, 28), (8, 1, 3, 3), {}),
    ((4, 8, 26, 26), (16, 8, 3, 3), {}),
]


@pytest.mark.parametrize('xs,ws,kw', CASES2)
@pytest.mark.parametrize('bias', [True, False])
def test_conv2d_matches_torch(xs, ws, kw, bias):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    compare('conv2d', x, w, rng.standard_normal(ws[0]) if bias else None, **kw)


CASES1 = [
    ((2, 3, 10), (4, 3, 3), {}),
    ((2, 3, 10), (4, 3, 3), dict(stride=2, padding=1)),
    ((2, 4, 9), (6, 2, 4), dict(padding='same', dilation=2, groups=2)),
    ((1, 2, 7), (3, 2, 2), dict(padding=(3,), stride=(3,))),
    ((3, 2, 6), (3, 2, 6), {}),
]


@pytest.mark.parametrize('xs,ws,kw', CASES1)
def test_conv1d_matches_torch(xs, ws, kw):
    rng = np.random.default_rng(2)
    ly, ty = compare('conv1d', rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0]), **kw)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'ConvolutionBackward0'


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_conv2d_fuzz(data):
    "Random geometries: size, kernel, stride, padding (int, pair, same, valid), dilation, groups, bias."
    d = data.draw
    G = d(st.sampled_from([1, 2, 3]))
    C, O = G * d(st.integers(1, 2)), G * d(st.integers(1, 2))
    kh, kw = d(st.integers(1, 4)), d(st.integers(1, 4))
    dil = (d(st.integers(1, 3)), d(st.integers(1, 3)))
    mode = d(st.sampled_from(['int', 'pair', 'same', 'valid']))
    stride = (1, 1) if mode == 'same' else (d(st.integers(1, 3)), d(st.integers(1, 3)))
    pad = dict(int=d(st.integers(0, 2)), pair=(d(st.integers(0, 2)), d(st.integers(0, 2))), same='same', valid='valid')[mode]
    ph, pw = (pad, pad) if mode == 'int' else pad if mode == 'pair' else (9, 9) if mode == 'same' else (0, 0)
    lo_h, lo_w = max(1, dil[0] * (kh - 1) + 1 - 2 * ph), max(1, dil[1] * (kw - 1) + 1 - 2 * pw)   # the kernel fits
    H, W = d(st.integers(lo_h, lo_h + 6)), d(st.integers(lo_w, lo_w + 6))
    N = d(st.integers(1, 3))
    rng = np.random.default_rng(d(st.integers(0, 2**16)))
    b = rng.standard_normal(O) if d(st.booleans()) else None
    compare('conv2d', rng.standard_normal((N, C, H, W)), rng.standard_normal((O, C // G, kh, kw)), b,
            stride=stride, padding=pad, dilation=dil, groups=G)


def test_float32_and_chunked_batches(monkeypatch):
    "float32 as the CNN uses it; and a batch cut into chunks (a tiny budget) gives the same results."
    rng = np.random.default_rng(3)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((5, 3, 9, 9), (4, 3, 3, 3), (4,)))
    compare('conv2d', x, w, b, atol=1e-4, padding=1)
    monkeypatch.setattr(im2col, '_BUDGET', 100)
    assert len(im2col._chunks(im2col._Geom(x.shape, (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)))) == 5
    compare('conv2d', x, w, b, atol=1e-4, padding=1)
    compare('conv2d', x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), stride=2, groups=1)


def test_unbatched_and_grad_fn():
    rng = np.random.default_rng(4)
    for fn, xs, ws in [('conv2d', (3, 6, 5), (4, 3, 3, 3)), ('conv1d', (3, 6), (4, 3, 2))]:
        ly, ty = compare(fn, rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(4), padding=1)
        assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'SqueezeBackward1'
    ly, ty = compare('conv2d', rng.standard_normal((1, 3, 5, 5)), rng.standard_normal((4, 3, 3, 3)), None)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'ConvolutionBackward0'


def test_only_some_inputs_need_grad():
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3)), rng.standard_normal(3)
    for rx, rw, rb in [(True, False, False), (False, True, False), (False, False, True), (False, False, False)]:
        lx, lw, lb = litnn.tensor(x, requires_grad=rx), litnn.tensor(w, requires_grad=rw), litnn.tensor(b, requires_grad=rb)
        y = LF.conv2d(lx, lw, lb, padding=1)
        np.testing.assert_allclose(y.detach().numpy(), TF.conv2d(*map(torch.tensor, (x, w, b)), padding=1).numpy(), atol=1e-10)
        if rx or rw or rb:
            y.sum().backward()
            for t, r in ((lx, rx), (lw, rw), (lb, rb)): assert (t.grad is not None) == r


def test_empty_batch_and_integers():
    ly, ty = compare('conv2d', np.zeros((0, 3, 5, 5)), np.ones((4, 3, 3, 3)), np.ones(4))
    assert ly.shape == (0, 4, 3, 3)
    x, w = np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4), np.arange(2 * 3 * 2 * 2).reshape(2, 3, 2, 2) - 5
    assert LF.conv2d(litnn.tensor(x), litnn.tensor(w), stride=2).tolist() == TF.conv2d(torch.tensor(x), torch.tensor(w), stride=2).tolist()


def test_gradcheck_float64():
    rng = np.random.default_rng(6)
    for xs, ws, kw in [((2, 2, 5, 4), (4, 1, 2, 3), dict(padding='same', dilation=(2, 1), groups=2)),
                       ((1, 2, 6, 5), (3, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
                       ((2, 2, 7), (3, 2, 3), dict(stride=2, padding=1))]:
        fn = LF.conv2d if len(xs) == 4 else LF.conv1d
        args = [litnn.tensor(rng.standard_normal(s), requires_grad=True) for s in (xs, ws, ws[:1])]
        f = lambda x, w, b: fn(x, w, b, **kw)
        assert gradcheck(f, args)
        assert gradgradcheck(f, args)


def test_double_backward_matches_torch():
    "create_graph=True: gradients of a function of the gradients, against torch."
    rng = np.random.default_rng(7)
    x, w, b = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((4, 2, 3, 3)), rng.standard_normal(4)
    out = []
    for lib in (litnn, torch):
        tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = lib.nn.functional.conv2d(tx, tw, tb, stride=(1, 2), padding=1, groups=2)
        gx, gw = lib.autograd.grad((y * y).sum(), (tx, tw), create_graph=True)
        ((gx * gx).sum() + (gw ** 3).sum()).backward()
        out.append([t.grad.detach().numpy() for t in (tx, tw, tb)])
    for l, t in zip(*out): np.testing.assert_allclose(l, t, rtol=1e-8, atol=1e-9)


# --- modules ----------------------------------------------------------------------------------------

MODULE_ARGS = [
    (1, 8, 3, {}),
    (1, 8, (3, 5), dict(stride=2, padding=1, dilation=2, bias=False, padding_mode='circular')),
    (4, 8, 3, dict(padding='same', groups=2)),
    (4, 8, (2, 4), dict(padding='same', dilation=(1, 3))),
    (4, 8, 3, dict(padding='valid', padding_mode='reflect')),
    (4, 4, 3, dict(padding=(1, 2), stride=(2, 1), groups=4, padding_mode='replicate')),
    (4, 8, 3, dict(padding=(1,), dilation=(1, 1), stride=1)),
]
ATTRS = ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'transposed', 'output_padding',
         'groups', 'padding_mode', '_reversed_padding_repeated_twice']


@pytest.mark.parametrize('args', MODULE_ARGS + [(4, 8, 3, dict(padding=2, padding_mode='reflect', bias=False))])
@pytest.mark.parametrize('name', ['Conv1d', 'Conv2d'])
def test_module_attributes_repr_state_dict(name, args):
    i, o, k, kw = args
    if name == 'Conv1d':
        k = k if isinstance(k, int) else k[:1]
        kw = {a: (v[:1] if isinstance(v, tuple) else v) for a, v in kw.items()}
    lm, tm = getattr(litnn.nn, name)(i, o, k, **kw), getattr(torch.nn, name)(i, o, k, **kw)
    assert repr(lm) == repr(tm)
    for a in ATTRS: assert getattr(lm, a) == getattr(tm, a), a
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert lm.__constants__ == tm.__constants__
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    shape = (2, i, 9) + ((8,) if name == 'Conv2d' else ())
    x = np.random.default_rng(8).standard_normal(shape).astype(np.float32)
    lx, tx = both(x)
    ly, ty = lm(lx), tm(tx)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), atol=1e-5, rtol=1e-5)
    ly.square().sum().backward(); ty.square().sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), atol=1e-4, rtol=1e-4)
    for (n, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), atol=1e-3, rtol=1e-4, err_msg=n)
    np.testing.assert_allclose(lm(lx[0]).detach().numpy(), tm(tx[0]).detach().numpy(), atol=1e-5, rtol=1e-5)   # unbatched


def test_default_init():
    "kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias."
    litnn.manual_seed(0)
    m = litnn.nn.Conv2d(16, 32, 3, groups=2)
    bound = 1 / math.sqrt(8 * 9)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert w.shape == (32, 8, 3, 3) and np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound           # uniform: std = bound / sqrt(3)
    assert abs(b.std() - bound / math.sqrt(3)) < 0.3 * bound
    m = litnn.nn.Conv1d(2, 3, 4, dtype=litnn.float64)
    assert m.weight.dtype == m.bias.dtype == litnn.float64


def test_padding_modes_with_same():
    "padding_mode with padding='same' (even kernel): the mode's padding split as torch splits it."
    rng = np.random.default_rng(9)
    for mode in ('reflect', 'replicate', 'circular'):
        lm, tm = litnn.nn.Conv2d(2, 3, (2, 3), padding='same', padding_mode=mode), torch.nn.Conv2d(2, 3, (2, 3), padding='same', padding_mode=mode)
        lm.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
        np.testing.assert_allclose(lm(litnn.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), atol=1e-5)


# --- errors -----------------------------------------------------------------------------------------

def same_message(f):
    "f(lib) raises the same exception type with the same message in litnn and torch."
    le, te = err(f, litnn), err(f, torch)
    assert le == te, f"litnn: {le}\ntorch: {te}"


ERRORS = [
    lambda L: L.nn.functional.conv2d(L.ones(3, 3), L.ones(8, 3, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 1, 3, 3, 3), L.ones(8, 3, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(2, 1, 8, 8), L.ones(8, 3, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 8, 8), L.ones(8, 3, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 3, 2, 2), L.ones(8, 3, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 3, 4, 4), L.ones(8, 3, 3, 3), dilation=2),
    lambda L: L.nn.functional.conv1d(L.ones(3), L.ones(8, 3, 3)),
    lambda L: L.nn.functional.conv1d(L.ones(2, 1, 8), L.ones(8, 3, 3)),
    lambda L: L.nn.functional.conv1d(L.ones(1, 3, 2), L.ones(8, 3, 3)),
    lambda L: L.nn.functional.conv1d(L.ones(1, 4, 5), L.ones(8, 4, 3, 3)),
    lambda L: L.nn.functional.conv1d(L.ones(1, 4, 5), L.ones(8, 4, 3), padding=(1, 1)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), stride=0),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), stride=(1, 1, 1)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), padding=-1),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), dilation=(1, 0)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), padding='foo'),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), padding='same', stride=2),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), groups=0),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 2, 3, 3), groups=3),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(0, 4, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), L.ones(7)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), L.ones(8, 1)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), L.ones(8, dtype=L.float64)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5, dtype=L.float64), L.ones(8, 4, 3, 3)),
    lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3, dtype=L.float64)),
    lambda L: L.nn.Conv2d(3, 8, 3)(L.ones(2, 1, 8, 8)),
    lambda L: L.nn.Conv2d(3, 8, 3, groups=2),
    lambda L: L.nn.Conv2d(4, 6, 3, groups=4),
    lambda L: L.nn.Conv2d(4, 6, 3, groups=0),
    lambda L: L.nn.Conv2d(4, 8, 3, padding='same', stride=2),
    lambda L: L.nn.Conv1d(4, 8, 3, padding='same', stride=(2,)),
    lambda L: L.nn.Conv2d(4, 8, 3, padding_mode='reflect', padding=3)(L.ones(1, 4, 3, 3)),
    lambda L: L.nn.Conv2d(4, 8, 3, padding_mode='circular', padding=4)(L.ones(1, 4, 3, 3)),
]


@pytest.mark.parametrize('f', ERRORS)
def test_errors_as_torch(f):
    same_message(f)


def test_error_types_only():
    "Where torch's message names its own machinery (a set's order, its C++ signatures), the type and the gist."
    for f, gist in [(lambda L: L.nn.Conv2d(4, 8, 3, padding_mode='bad'), "padding_mode must be one of"),
                    (lambda L: L.nn.Conv2d(4, 8, 3, padding='foo'), "Invalid padding string 'foo', should be one of"),
                    (lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(8, 4, 3, 3), stride=1.5), "stride")]:
        (lt, lm), (tt, tm) = err(f, litnn), err(f, torch)
        assert lt is tt and gist in lm and gist in tm


def test_results_do_not_share_scratch_memory():
    "Temporaries are reused between calls; outputs and gradients must not be among them."
    rng = np.random.default_rng(10)
    w = litnn.tensor(rng.standard_normal((2, 1, 3, 3)), requires_grad=True)
    xa, xb = (litnn.tensor(rng.standard_normal((1, 1, 5, 5)), requires_grad=True) for _ in range(2))
    ya = LF.conv2d(xa, w, padding=1); ya.sum().backward()
    ga, gw, yc = xa.grad.numpy().copy(), w.grad.numpy().copy(), ya.detach().numpy().copy()
    LF.conv2d(xb, w, padding=1).square().sum().backward()
    np.testing.assert_array_equal(xa.grad.numpy(), ga)
    np.testing.assert_array_equal(ya.detach().numpy(), yc)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_conv_on_gpu():
    "The same code on CuPy arrays: outputs and gradients equal the CPU's."
    rng = np.random.default_rng(11)
    x, w, b = rng.standard_normal((3, 4, 9, 8)), rng.standard_normal((6, 2, 3, 3)), rng.standard_normal(6)
    res = []
    for dev in ('cpu', 'cuda'):
        t = [litnn.tensor(a, device=dev, requires_grad=True) for a in (x, w, b)]
        y = LF.conv2d(*t, padding=1, groups=2) + LF.conv2d(t[0], t[1], stride=2, dilation=(1, 2), groups=2).sum()
        gx, = litnn.autograd.grad(y.square().sum(), t[0], create_graph=True)
        (y.sum() + gx.square().sum()).backward()
        res.append([y.detach().cpu().numpy()] + [v.grad.cpu().numpy() for v in t])
    for c, g in zip(*res): np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-8)
    m = litnn.nn.Conv1d(4, 2, 3, padding_mode='circular', padding=1).cuda()
    assert m(litnn.ones(2, 4, 5, device='cuda')).device.type == 'cuda'


def test_reused_window_matrix_and_retain_graph():
    "The last convolution reuses its forward's window matrix (still in scratch); others, and a second backward, rebuild it."
    rng = np.random.default_rng(13)
    x, w1, w2 = rng.standard_normal((2, 3, 9, 8)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal((5, 4, 2, 2))
    out = []
    for lib in (litnn, torch):
        tx, t1, t2 = (lib.tensor(a, requires_grad=True) for a in (x, w1, w2))
        F = lib.nn.functional
        y = F.conv2d(F.max_pool2d(F.conv2d(tx, t1, padding=1), 2, 1), t2, stride=1)
        g = lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        y.backward(g, retain_graph=True); y.backward(g)
        out.append([t.grad.numpy() for t in (tx, t1, t2)])
    for l, t in zip(*out): np.testing.assert_allclose(l, t, rtol=1e-9, atol=1e-10)


def test_input_changed_in_place_after_forward():
    for lib in (litnn, torch):
        x, w = lib.ones(1, 2, 5, 5, requires_grad=True), lib.ones(3, 2, 3, 3, requires_grad=True)
        h = x * 1
        y = lib.nn.functional.conv2d(h, w)
        with lib.no_grad(): h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"): y.sum().backward()


def test_bias_in_the_products_and_thin_inputs():
    "The bias rides in the products (a row of ones): with and without its gradient, with groups, on thin inputs (exact layout)."
    rng = np.random.default_rng(7)
    for xs, ws, kw in [((3, 3, 10, 10), (32, 3, 3, 3), dict(padding=1)),                 # 27 rows < 32 channels: exact layout
                       ((2, 4, 9, 9), (12, 2, 1, 3), dict(padding=(0, 1), groups=2)),    # 3 rows per group < 6 channels
                       ((2, 4, 9, 9), (6, 2, 3, 3), dict(padding=1, groups=2))]:         # whole layout, a row of ones per group
        x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
        compare('conv2d', x, w, b, **kw)
        for need in [(True, True, False), (False, False, True), (False, True, True), (True, False, False)]:
            (lx, tx), (lw, tw), (lb, tb) = (both(a, r) for a, r in zip((x, w, b), need))
            g = rng.standard_normal(TF.conv2d(tx, tw, tb, **kw).shape)
            LF.conv2d(lx, lw, lb, **kw).backward(litnn.tensor(g)); TF.conv2d(tx, tw, tb, **kw).backward(torch.tensor(g))
            for l, t in [(lx, tx), (lw, tw), (lb, tb)]:
                assert (l.grad is None) == (t.grad is None)
                if l.grad is not None: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), atol=1e-10, rtol=1e-6)
    geo = im2col._Geom((3, 3, 10, 10), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1, False)
    assert geo.dims[-2:] == (10, 10) and geo.sub(2).dims[-2:] == (10, 10)     # the chunks keep the exact layout


@pytest.mark.parametrize('fn,xs,ws,kw', [('conv1d', (2, 0, 15), (8, 0, 2), dict(stride=2)),
                                         ('conv2d', (2, 0, 7, 8), (3, 0, 3, 3), dict(stride=2, padding=1)),
                                         ('conv3d', (2, 0, 5, 6, 7), (4, 0, 3, 2, 3), dict(stride=2)),
                                         ('conv1d', (0, 0, 7), (5, 0, 2), {})])
def test_an_input_with_no_channels_gives_no_channels_as_torch(fn, xs, ws, kw):
    "torch's Empty backend: an input with no channels gives an output with no channels (N, 0, *spatial); the gradients are zeros."
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    (lx, tx), (lw, tw), (lb, tb) = both(x), both(w), both(b)
    ly, ty = getattr(LF, fn)(lx, lw, lb, **kw), getattr(TF, fn)(tx, tw, tb, **kw)
    assert ly.shape == tuple(ty.shape) and ty.shape[1] == 0
    ly.sum().backward(); ty.sum().backward()
    for l, t in [(lx, tx), (lw, tw), (lb, tb)]:
        assert l.grad.shape == tuple(t.grad.shape)
        np.testing.assert_array_equal(l.grad.numpy(), t.grad.numpy())
    with pytest.raises(RuntimeError, match="Given groups=1, weight"): getattr(LF, fn)(litnn.randn((2, 1) + xs[2:]), lw)


@pytest.mark.parametrize('fn,xs,ws', [('conv2d', (2, 3, 6, 7), (4, 3, 3, 2)), ('conv2d', (2, 4, 6, 7), (4, 2, 3, 3)),
                                      ('conv_transpose2d', (2, 3, 4, 5), (3, 4, 2, 3)),
                                      ('conv3d', (2, 3, 4, 5, 6), (4, 3, 2, 2, 2)),
                                      ('conv_transpose3d', (2, 3, 4, 5, 6), (3, 4, 2, 2, 2))])
def test_a_channels_last_weight_gives_a_channels_last_output_as_torch(fn, xs, ws):
    "torch's CPU kernels go channels-last when the input or the weight is (thnn/mkldnn_conv_use_channels_last)."
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    groups = xs[1] // ws[1] if fn.startswith('conv2d') or fn == 'conv3d' else 1
    outs = []
    for lib, F in ((litnn, LF), (torch, TF)):
        fmt = lib.channels_last if len(xs) == 4 else lib.channels_last_3d
        lx, lw = lib.tensor(x), lib.tensor(w).contiguous(memory_format=fmt)
        kw = dict(groups=groups) if groups > 1 else {}
        for b in (None, lib.ones(ws[1] if 'transpose' in fn else ws[0], dtype=lx.dtype)):
            y = getattr(F, fn)(lx, lw, b, **kw)
            assert y.is_contiguous(memory_format=fmt) and not y.is_contiguous()
            outs.append(y.numpy())
        assert getattr(F, fn)(lx, lib.tensor(w), **kw).is_contiguous()     # both row-major: row-major
    for l, t in zip(outs[:2], outs[2:]): np.testing.assert_allclose(l, t, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('fn,ws', [('conv3d', (4, 3, 2, 2, 2)), ('conv_transpose3d', (3, 4, 2, 2, 2))])
def test_3d_convolutions_keep_channels_last_3d_only_in_onednn_as_torch(fn, ws):
    "In 3-d only oneDNN's kernel keeps channels_last_3d: float64, or oneDNN disabled, gives a row-major output (slow_conv3d)."
    x, w = np.random.default_rng(2).standard_normal((2, 3, 4, 5, 6)), np.random.default_rng(3).standard_normal(ws)
    res = []
    for lib in (litnn, torch):
        F, fmt = lib.nn.functional, lib.channels_last_3d
        for dt, enabled in [(lib.float32, True), (lib.float64, True), (lib.float32, False), (lib.complex64, True)]:
            lx, lw = lib.tensor(x, dtype=dt).contiguous(memory_format=fmt), lib.tensor(w, dtype=dt)
            with lib.backends.mkldnn.flags(enabled=enabled):
                y = getattr(F, fn)(lx, lw)
                y2 = getattr(F, fn)(lib.tensor(x, dtype=dt), lw.contiguous(memory_format=fmt))
            res.append((y.is_contiguous(), y.is_contiguous(memory_format=fmt), y2.is_contiguous(), y2.is_contiguous(memory_format=fmt)))
    assert res[:4] == res[4:]
    assert res[0] == (False, True, False, True) and res[1] == (True, False, True, False)


DTYPE_MISMATCH = [('conv2d', (2, 3, 6, 6), (4, 3, 3, 3), {}), ('conv2d', (1, 2, 4, 4), (2, 2, 2, 2), {}),
                  ('conv2d', (1, 4, 4, 4), (2, 2, 2, 2), dict(groups=2)), ('conv2d', (1, 2, 8, 8), (2, 2, 4, 4), {}),
                  ('conv1d', (1, 3, 8000), (4, 3, 5), {}), ('conv1d', (1, 3, 6), (4, 3, 3), {}), ('conv3d', (2, 2, 4, 4, 4), (2, 2, 2, 2, 2), {}),
                  ('conv3d', (1, 2, 4, 4, 4), (2, 2, 2, 2, 2), {}), ('conv_transpose2d', (2, 3, 6, 6), (3, 4, 3, 3), {}),
                  ('conv_transpose1d', (1, 3, 6), (3, 4, 3), {}), ('conv_transpose3d', (2, 3, 4, 4, 4), (3, 4, 2, 2, 2), {})]


@pytest.mark.parametrize('fn,xs,ws,kw', DTYPE_MISMATCH)
def test_dtype_mismatch_messages_are_those_of_the_kernel_torch_picks(fn, xs, ws, kw):
    "oneDNN's words (float32 unless small, half, bfloat16), the complex path's, or the plain kernel's 'expected scalar type'."
    names = ['float32', 'float64', 'float16', 'bfloat16', 'complex64']
    for a, b in itertools.permutations(names, 2):
        msgs = []
        for lib in (litnn, torch):
            with pytest.raises(RuntimeError) as e:
                getattr(lib.nn.functional, fn)(lib.ones(xs, dtype=getattr(lib, a)), lib.ones(ws, dtype=getattr(lib, b)), **kw)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1], (a, b)


def test_asymmetric_same_padding_warns_once_as_torch():
    "torch's TORCH_WARN_ONCE when padding='same' needs more zeros after than before (an even kernel, odd dilation)."
    import warnings
    LF._SAME_WARNED.clear()      # (once per process: reset for this test)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        LF.conv1d(litnn.ones(1, 1, 6), litnn.ones(1, 1, 4), padding='same', dilation=2)     # symmetric: 3 and 3
        assert len(w) == 0
        for _ in range(2): litnn.nn.Conv2d(1, 1, 2, padding='same')(litnn.ones(1, 1, 6, 6))
        LF.conv3d(litnn.ones(1, 1, 4, 4, 4), litnn.ones(1, 1, 2, 1, 1), padding='same')
    assert [type(v.message) for v in w] == [UserWarning]
    # torch's text (Convolution.cpp), which it gives once per process too
    assert str(w[0].message) == "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the input be created"


def test_conv_transpose_output_size_message_shows_it_as_given():
    for size in [(20, 20), [20, 20], (2, 4, 20, 20)]:
        msgs = []
        for lib in (litnn, torch):
            lib.manual_seed(0)
            m = lib.nn.ConvTranspose2d(3, 4, 3, stride=2)
            with pytest.raises(ValueError) as e: m(lib.ones(2, 3, 6, 6), output_size=size)
            msgs.append(str(e.value).replace('litnn.', 'torch.'))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize('dt', ['float16', 'bfloat16'])
@pytest.mark.parametrize('fn,k', [('conv1d', 1), ('conv2d', 2), ('conv3d', 3), ('conv_transpose1d', 1), ('conv_transpose2d', 2), ('conv_transpose3d', 3)])
def test_low_precision_convolutions_round_once_as_torch(fn, k, dt):
    """litnn sums in float32 and rounds once, in the output and in the gradients, as torch's oneDNN kernel: all but a few
    elements equal the float64 result rounded. torch agrees within rounding; exactly only where its oneDNN takes the dtype
    on this CPU (bfloat16 on AVX-512; half needs AVX512-FP16, else its plain kernel rounds each partial sum)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4) + (5,) * k); w = rng.standard_normal(((4, 3) if 'trans' in fn else (3, 4)) + (3,) * k)
    b = rng.standard_normal(3)
    res = []
    for L, d in ((litnn, dt), (torch, dt), (torch, 'float64')):
        X, W, B = (L.tensor(a, dtype=getattr(L, dt), requires_grad=True) for a in (x, w, b))     # (the same rounded inputs)
        if d == 'float64': X, W, B = (t.detach().double().requires_grad_() for t in (X, W, B))
        y = getattr(L.nn.functional, fn)(X, W, B, stride=2, padding=1)
        y.backward(L.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=getattr(L, dt)).to(y.dtype))
        assert y.dtype == getattr(L, d) and X.grad.dtype == getattr(L, d)
        res.append([t.detach().to(getattr(L, dt)).float().numpy() for t in (y, X.grad, W.grad, B.grad)])
    exact = torch.ops.mkldnn._is_mkldnn_bf16_supported() if dt == 'bfloat16' else torch.ops.mkldnn._is_mkldnn_fp16_supported()
    for l, t, ref in zip(*res):
        assert l.shape == t.shape == ref.shape and (l != ref).mean() < 0.01
        if exact: assert (l != t).mean() < 0.01     # (before: a third of the outputs a rounding apart)
        np.testing.assert_allclose(l, t, rtol=1e-2, atol=1e-2)

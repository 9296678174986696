"""The compiled loops behind convolution (litnn/nn/im2col.py, numba): col2im channel by channel (`_fold_loop`), the
junk-column copies (`_out_loop`, `_out_t_loop`) and the nine-tap direct convolution (`_conv9`, `_grad9`, `_spread`).
The copies and col2im must give the same bits as numpy's passes; the direct convolution, whose sums run in
another order, must match numpy's im2col path and PyTorch 2.13 to rounding. Odd shapes: stride, padding, dilation,
groups, 1x9 and 9x1 kernels, conv1d, non-contiguous inputs, float64, a batch of one, the nine-tap path's limits."""
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
from litnn import fused
from litnn.nn import im2col
from litnn.nn.im2col import _Geom, _pack, _fold, _out, _out_t

torch = pytest.importorskip('torch')
TF = torch.nn.functional
torch.set_num_threads(1)
pytestmark = pytest.mark.skipif(fused._numba() is None, reason="numba (the `fast` extra) is not installed")

TOL = {np.float32: dict(rtol=2e-4, atol=2e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}

# (input shape, weight shape, kwargs): nine-tap convolutions that take the direct loops, then ones that do not
NINE = [((32, 8, 26, 26), (16, 8, 3, 3), {}),                                    # bench/cnn_step.py's second conv
        ((32, 1, 28, 28), (8, 1, 3, 3), {}),                                     # its first
        ((3, 5, 23, 21), (7, 5, 3, 3), dict(padding=1)),                         # odd channels (one output channel alone)
        ((2, 3, 37, 33), (5, 3, 3, 3), dict(padding=(2, 1), dilation=(2, 1))),
        ((2, 4, 30, 34), (3, 4, 3, 3), dict(padding='same', dilation=2)),
        ((1, 2, 9, 40), (4, 2, 1, 9), dict(padding=(0, 4))),                     # 1x9
        ((2, 2, 40, 9), (3, 2, 9, 1), {}),                                       # 9x1
        ((2, 3, 30), (4, 3, 9), dict(padding=3))]                                # conv1d, nine taps
OTHER = [((3, 5, 13, 11), (7, 5, 3, 3), dict(padding=1)),                        # small images: the exact layout, im2col
         ((1, 1, 3, 3), (1, 1, 3, 3), {}),
         ((2, 3, 28, 28), (32, 3, 3, 3), dict(padding=1)),                       # thin input (27 rows < 32 channels): im2col
         ((2, 4, 9, 7), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)),
         ((2, 3, 11, 10), (4, 3, 3, 3), dict(stride=2, padding=1)),              # strided: im2col
         ((2, 4, 8, 8), (4, 1, 3, 3), dict(groups=4, padding='same')),           # groups: im2col
         ((2, 3, 10), (5, 3, 4), dict(padding=2, dilation=2)),
         ((2, 64, 6, 6), (64, 64, 3, 3), dict(padding=1))]                      # many channels: im2col

def run(lib, x, w, b, g, kw, need_x=True):
    "Forward and backward of conv1d/conv2d in litnn or torch; output and gradients as arrays."
    X = lib.tensor(x, requires_grad=need_x); W = lib.tensor(w, requires_grad=True); B = lib.tensor(b, requires_grad=True)
    conv = lib.nn.functional.conv1d if x.ndim == 3 else lib.nn.functional.conv2d
    y = conv(X, W, B, **kw)
    y.backward(lib.tensor(g))
    return [y.detach().numpy()] + [t.grad.numpy() for t in (X, W, B) if t.grad is not None]

def data(xs, ws, kw, dt, seed=0):
    rng = np.random.default_rng(seed)
    x, w, b = (rng.standard_normal(s).astype(dt) for s in (xs, ws, ws[:1]))
    y = (TF.conv1d if len(xs) == 3 else TF.conv2d)(torch.tensor(x), torch.tensor(w), **kw)
    return x, w, b, rng.standard_normal(tuple(y.shape)).astype(dt)

@pytest.mark.parametrize('dt', [np.float32, np.float64])
@pytest.mark.parametrize('xs,ws,kw', NINE + OTHER)
@pytest.mark.parametrize('need_x', [True, False])
def test_conv_matches_torch_and_numpy(xs, ws, kw, dt, need_x, monkeypatch):
    x, w, b, g = data(xs, ws, kw, dt)
    ref = run(torch, x, w, b, g, kw, need_x)
    ours = run(litnn, x, w, b, g, kw, need_x)
    monkeypatch.setattr(fused, 'enabled', False)
    plain = run(litnn, x, w, b, g, kw, need_x)
    assert len(ours) == len(ref) == len(plain)
    for a, r, p in zip(ours, ref, plain):
        assert a.dtype == dt
        np.testing.assert_allclose(a, r, **TOL[dt])
        np.testing.assert_allclose(a, p, **TOL[dt])

def test_the_nine_tap_loops_run(monkeypatch):
    "The shapes of NINE take the direct loops (counted), those of OTHER do not; LITNN_NUMBA off takes none."
    calls = []
    real = fused.compiled
    monkeypatch.setattr(LF, 'compiled', lambda fn: (calls.append(fn.__name__), real(fn))[1])
    for cases, expect in [(NINE, True), (OTHER, False)]:
        for xs, ws, kw in cases:
            calls.clear()
            run(litnn, *data(xs, ws, kw, np.float32), kw)
            assert ('_grad9' in calls) == expect, (xs, ws, kw)
    monkeypatch.setattr(fused, 'enabled', False)
    calls.clear()
    run(litnn, *data(*NINE[0], np.float32), NINE[0][2])
    assert '_grad9' not in calls

@pytest.mark.parametrize('dt', [np.float32, np.float64])
def test_non_contiguous_input_and_weight(dt):
    "Transposed views of the input and the weight, a channels-last input: the same as torch."
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 15, 4)).astype(dt).transpose(0, 1, 3, 2)[:, ::2]          # (2, 3, 4, 15), strided
    w = rng.standard_normal((3, 3, 5, 3)).astype(dt).transpose(0, 1, 3, 2)[:, :, :, 1:4]     # (5... -> (3, 3, 3, 3)
    b = rng.standard_normal(5).astype(dt)[:3]
    xl = litnn.tensor(np.ascontiguousarray(rng.standard_normal((2, 8, 9, 3)).astype(dt))).permute(0, 3, 1, 2)   # channels last
    for X, kw in [(x, dict(padding=1)), (xl.numpy(), dict(dilation=2))]:
        lx = litnn.tensor(X, requires_grad=True) if X is x else xl.detach().requires_grad_()
        lw, lb = litnn.tensor(w, requires_grad=True), litnn.tensor(b, requires_grad=True)
        tx, tw, tb = (torch.tensor(np.ascontiguousarray(a), requires_grad=True) for a in (X, w, b))
        ly, ty = LF.conv2d(lx, lw, lb, **kw), TF.conv2d(tx, tw, tb, **kw)
        gy = rng.standard_normal(tuple(ty.shape)).astype(dt)
        ly.backward(litnn.tensor(gy)); ty.backward(torch.tensor(gy))
        for a, r in [(ly, ty), (lx.grad, tx.grad), (lw.grad, tw.grad), (lb.grad, tb.grad)]:
            np.testing.assert_allclose(a.detach().numpy(), r.detach().numpy(), **TOL[dt])

def test_double_backward_through_the_loops():
    "gradgradcheck on a nine-tap conv: the forward takes the loops, the recorded backward the Tensor ops."
    rng = np.random.default_rng(2)
    x = litnn.tensor(rng.standard_normal((2, 2, 5, 6)), requires_grad=True)
    w = litnn.tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
    b = litnn.tensor(rng.standard_normal(3), requires_grad=True)
    f = lambda x, w, b: LF.conv2d(x, w, b, padding=1)
    assert litnn.autograd.gradcheck(f, (x, w, b)) and litnn.autograd.gradgradcheck(f, (x, w, b))

def test_two_convs_in_a_step_reuse_nothing_stale():
    "Two nine-tap convs in a row (the second overwrites the first's packed buffer in scratch), twice: as torch."
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 1, 12, 12)).astype(np.float32)
    w1, w2 = rng.standard_normal((4, 1, 3, 3)).astype(np.float32), rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    grads = []
    for lib in (litnn, torch):
        W1, W2 = lib.tensor(w1, requires_grad=True), lib.tensor(w2, requires_grad=True)
        for _ in range(2):
            W1.grad = W2.grad = None
            F = lib.nn.functional
            F.conv2d(F.relu(F.conv2d(lib.tensor(x), W1, padding=1)), W2).square().sum().backward()
        grads.append([W1.grad.numpy(), W2.grad.numpy()])
    for a, r in zip(*grads): np.testing.assert_allclose(a, r, rtol=2e-4, atol=2e-4)

# the copies and col2im: the same bits as numpy's passes
GEOMS = [((32, 8, 26, 26), (3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1)),
         ((2, 3, 7, 6), (3, 2), (2, 1), ((1, 1), (2, 2)), (1, 2)),              # strided and dilated: a 3-axis view
         ((3, 2, 5, 5), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
         ((2, 3, 1, 11), (1, 3), (1, 2), ((0, 0), (1, 1)), (1, 1))]             # conv1d, stride 2

@pytest.mark.parametrize('dt', [np.float32, np.float64])
@pytest.mark.parametrize('args', GEOMS)
@pytest.mark.parametrize('whole', [None, False])
def test_fold_and_junk_copies_are_bit_equal(args, dt, whole, monkeypatch):
    rng = np.random.default_rng(4)
    geo = _Geom(*args, whole=whole)
    C, K, (N, O) = args[0][1], len(geo.offsets), (args[0][0], 5)
    cols = rng.standard_normal((C * K, geo.L)).astype(dt)
    cols[:, ::7] = -0.0                                                          # signed zeros stay as numpy leaves them
    y = rng.standard_normal((N, O, geo.M)).astype(dt)
    g = rng.standard_normal((N, O) + geo.oshape[1:]).astype(dt)
    res = []
    for on in (True, False):
        monkeypatch.setattr(fused, 'enabled', on)
        res.append([_fold(cols, geo), _out(y, geo), _out_t(g, geo)])
    for a, p in zip(*res):
        assert a.dtype == dt and a.shape == p.shape
        assert a.tobytes() == p.tobytes()

def test_kernels_leave_other_arrays_to_numpy():
    "Non-contiguous or integer arrays take numpy's passes (`_loop` says no)."
    a = np.ones((4, 6), np.float32)
    assert im2col._loop(im2col._fold_loop, a, a) is not None
    assert im2col._loop(im2col._fold_loop, a[:, ::2], a) is None
    assert im2col._loop(im2col._fold_loop, a.astype(np.int64), a) is None

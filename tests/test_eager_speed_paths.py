"""Eager CPU fast paths (issue 30): LayerNorm's row loops in the dtype's lanes (blocks of 512, float64 totals, the
parameters' gradients flushed every 64 rows) and log-softmax's row loops (cross-entropy's path), against PyTorch 2.13:
values, gradients and grad_fn names, with the kernels on and with numpy's passes (`fused.enabled = False`)."""
import numpy as np, pytest, torch
import litnn
from litnn import fused

@pytest.fixture(params=[True, False], ids=['fused', 'numpy'])
def kernels(request, monkeypatch):
    monkeypatch.setattr(fused, 'enabled', request.param)
    return request.param

def both(a, requires_grad=True):
    return litnn.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)

def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.detach().numpy() if hasattr(a, 'detach') else a
    np.testing.assert_allclose(a, b.detach().numpy(), rtol=rtol, atol=atol)

@pytest.mark.parametrize('shape', [(1, 2000), (130, 48), (64, 1100), (65, 7), (2, 3, 513)])
def test_layer_norm_blocks_and_row_flushes_match_torch(kernels, shape):
    "Rows longer than a block, row counts around the 64-row flush of the parameters' gradients."
    rng = np.random.default_rng(0)
    n = shape[-1]
    x = (rng.standard_normal(shape) * 2 + 3).astype(np.float32)
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    (lx, tx), (lw, tw), (lb, tb) = both(x), both(w), both(b)
    ly, ty = litnn.nn.functional.layer_norm(lx, (n,), lw, lb), torch.nn.functional.layer_norm(tx, (n,), tw, tb)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'NativeLayerNormBackward0'
    close(ly, ty, 1e-5, 1e-5)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-4, 1e-5)
    close(lw.grad, tw.grad, 1e-4, 1e-4); close(lb.grad, tb.grad, 1e-4, 1e-4)

def test_layer_norm_mean_far_from_zero_and_infinite_rows(kernels):
    "A mean of 1e4 (summed as deviations from the first element), rows with an infinite element: NaN as torch."
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((6, 700)) + 1e4).astype(np.float32)
    x[1, 5] = np.inf; x[2, 0] = -np.inf
    ref = torch.nn.functional.layer_norm(torch.tensor(x, dtype=torch.float64), (700,)).numpy()
    out = litnn.nn.functional.layer_norm(litnn.tensor(x), (700,)).numpy()
    assert np.array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out[~np.isnan(ref)], ref[~np.isnan(ref)], atol=5e-3)

@pytest.mark.parametrize('shape', [(1024, 65), (3, 1100), (2, 5, 9), (1, 1)])
def test_log_softmax_last_dim_matches_torch(kernels, shape):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    lx, tx = both(x)
    ly, ty = litnn.log_softmax(lx, -1), torch.log_softmax(tx, -1)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'LogSoftmaxBackward0'
    close(ly, ty, 1e-5, 2e-6)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-5, 2e-6)

def test_log_softmax_special_rows(kernels):
    "-inf entries stay -inf, a NaN or an infinite maximum makes the row NaN, very negative entries give 0 probability."
    x = np.random.default_rng(3).standard_normal((5, 600)).astype(np.float32)
    x[0, 3] = -np.inf; x[1, 7] = np.nan; x[2, 0] = np.inf; x[3, :] = -np.inf; x[4, 1] = -200
    lx, tx = both(x)
    ly, ty = litnn.log_softmax(lx, 1), torch.log_softmax(tx, 1)
    a, b = ly.detach().numpy(), ty.detach().numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a == -np.inf, b == -np.inf)
    ok = np.isfinite(b)
    np.testing.assert_allclose(a[ok], b[ok], rtol=1e-5, atol=2e-6)
    g = np.random.default_rng(4).standard_normal(x.shape).astype(np.float32)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    a, b = lx.grad.numpy(), tx.grad.numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=1e-5, atol=2e-6)

def test_log_softmax_views_and_other_dims(kernels):
    "A transposed input, another dim and float64 take numpy's passes; results as torch's either way."
    x = np.random.default_rng(5).standard_normal((7, 9)).astype(np.float32)
    for dt in (np.float32, np.float64):
        lx, tx = both(x.astype(dt))
        for dim in (0, 1):
            close(litnn.log_softmax(lx.t(), dim), torch.log_softmax(tx.t(), dim), 1e-5, 2e-6)
            close(litnn.log_softmax(lx, dim), torch.log_softmax(tx, dim), 1e-5, 2e-6)

@pytest.mark.parametrize('kw', [{}, dict(reduction='sum'), dict(reduction='none'), dict(ignore_index=3),
                                dict(weight=True), dict(label_smoothing=0.1)])
def test_cross_entropy_matches_torch(kernels, kw):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((256, 65)) * 3).astype(np.float32)
    t = rng.integers(0, 65, 256)
    lx, tx = both(x)
    if kw.get('weight'):
        w = rng.random(65).astype(np.float32)
        kw = dict(weight=(litnn.tensor(w), torch.tensor(w)))
    lkw = {k: v[0] if k == 'weight' else v for k, v in kw.items()}
    tkw = {k: v[1] if k == 'weight' else v for k, v in kw.items()}
    ll = litnn.nn.functional.cross_entropy(lx, litnn.tensor(t), **lkw)
    tl = torch.nn.functional.cross_entropy(tx, torch.tensor(t), **tkw)
    close(ll, tl, 1e-5, 1e-6)
    if not kw.get('label_smoothing'):
        assert type(ll.grad_fn).__name__ == type(tl.grad_fn).__name__ == 'NllLossBackward0'
        assert type(ll.grad_fn.next_functions[0][0]).__name__ == 'LogSoftmaxBackward0'
    (ll.sum() if ll.ndim else ll).backward(); (tl.sum() if tl.ndim else tl).backward()
    close(lx.grad, tx.grad, 1e-5, 1e-7)

def test_gpt_sized_loss_and_second_derivative(kernels):
    "create_graph through the fast log-softmax: the backward is recorded with tensor ops, as torch's double backward."
    x = np.random.default_rng(7).standard_normal((6, 5)).astype(np.float32)
    t = np.array([0, 4, 2, 2, 1, 3])
    lx, tx = both(x)
    ll = litnn.nn.functional.cross_entropy(lx, litnn.tensor(t))
    tl = torch.nn.functional.cross_entropy(tx, torch.tensor(t))
    (lg,), (tg,) = litnn.autograd.grad(ll, lx, create_graph=True), torch.autograd.grad(tl, tx, create_graph=True)
    close(lg, tg, 1e-5, 1e-7)
    (lg * lg).sum().backward(); (tg * tg).sum().backward()
    close(lx.grad, tx.grad, 1e-4, 1e-7)

# Elementwise fast paths on large arrays (issue 30, the second sweep): the same bits as before where they matched
# torch, and as torch's on large tensors (its vectorised kernels) with NaN, infinities, -0.0 and subnormals.
_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1e-310, -1e-310, 1, -1, 2, -2, 0.5, -0.5,
            1e30, -1e30, 3e38, -3e38, 88.7, -88.7, 10, -10, 27, -27]

def special(dtype, shape=(180, 110), seed=0, scale=3):
    "A large array of normal values (two scales) with every special value scattered through it."
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    a = np.concatenate([rng.standard_normal(n - n // 3) * scale, rng.standard_normal(n // 3) * 30]).astype(dtype)
    with np.errstate(over='ignore'):        # (float16: the large ones are infinities)
        a[rng.choice(n, 1200, replace=False)] = np.resize(np.array(_SPECIAL, np.float64).astype(dtype), 1200)
    return a.reshape(shape)

def bits_equal(a, b):
    "Equal to the bit (-0.0 is not 0.0), any NaN equal to any NaN."
    a = a.detach().numpy() if hasattr(a, 'detach') else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, 'detach') else np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    u = f'u{a.dtype.itemsize}'
    same = (a.view(u) == b.view(u)) | (np.isnan(a) & np.isnan(b))
    assert same.all(), f'{int((~same).sum())} of {a.size} differ: {a[~same][:4]} vs {b[~same][:4]}'

def run_both(fn, *arrays, grad_seed=5):
    "fn(lib, *tensors) in litnn and torch on the same arrays: the outputs, then the inputs' gradients for one random g."
    outs, grads = [], []
    for lib in (litnn, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = fn(lib, *ts)
        y.backward(lib.tensor(np.random.default_rng(grad_seed).standard_normal(tuple(y.shape)).astype(arrays[0].dtype)))
        outs.append(y); grads.append([t.grad for t in ts])
    return outs, grads

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('slope', [0.01, 0.2, 1e-30, 2.0, 1e30, -0.5, 0.0, 1.0])
@pytest.mark.parametrize('transposed', [False, True])
def test_leaky_relu_large_matches_torch_bits(dtype, slope, transposed):
    "max(x, x·slope) for a slope in (0, 1), min for one over 1, a mask otherwise: torch's values and gradients to the bit."
    x = special(dtype)
    f = lambda lib, t: lib.nn.functional.leaky_relu(t.t() if transposed else t, slope)
    (ly, ty), (lg, tg) = run_both(f, x)
    bits_equal(ly, ty); bits_equal(lg[0], tg[0])
    assert ly.stride() == ty.stride()

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('kw', [{}, dict(nan=1.5, posinf=2.0, neginf=-3.0), dict(posinf=7.0), dict(neginf=0.0)])
def test_nan_to_num_large_matches_torch_bits(dtype, kw):
    "A clip to the finite extremes and one mask for NaN: torch's values; the gradient is torch's grad * isfinite(x) (-0.0, NaN)."
    x = special(dtype)
    g = special(dtype, seed=7)          # a gradient with NaN and infinities: torch's product keeps them where x is finite
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nan_to_num(t, **kw)
        y.backward(lib.tensor(g)); out.append((y, t.grad))
    bits_equal(out[0][0], out[1][0]); bits_equal(out[0][1], out[1][1])

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('op', ['hardtanh', 'relu6', 'threshold', 'hardsigmoid', 'relu.T', 'hardtanh_b', 'clamp'])
def test_masked_gradients_are_positive_zero_like_torch(dtype, op, kernels):
    "A gradient masked off is +0.0 (torch's where / hardtanh_backward), not g * mask's -0.0 where g < 0."
    F = lambda lib: lib.nn.functional
    fns = dict(hardtanh=lambda lib, t: F(lib).hardtanh(t), relu6=lambda lib, t: F(lib).relu6(t),
               threshold=lambda lib, t: F(lib).threshold(t, 0.1, 2.0), hardsigmoid=lambda lib, t: F(lib).hardsigmoid(t),
               **{'relu.T': lambda lib, t: F(lib).relu(t.t()), 'hardtanh_b': lambda lib, t: F(lib).hardtanh(t, -0.5, 2.0),
                  'clamp': lambda lib, t: t.clamp(-0.5, 0.5)})
    (ly, ty), (lg, tg) = run_both(fns[op], special(dtype))
    bits_equal(lg[0], tg[0])
    if op != 'hardsigmoid': bits_equal(ly, ty)      # (hardsigmoid's values: x/6 + 1/2 against torch's (x + 3)/6, an ulp apart)

def test_where_bits_with_a_zero_branch_and_nearly_uniform_masks():
    "_where(c, a, 0) (a & mask) and where's own loop on nearly uniform 8-byte masks: numpy's where to the bit and layout."
    from litnn._pointwise import _where
    rng = np.random.default_rng(8)
    for dtype in (np.float32, np.float64, np.int64, np.float16):
        with np.errstate(invalid='ignore', over='ignore'):          # (int64: NaN and infinities cast to some integer)
            a, other = (special(np.float64, (130, 90), seed=s).astype(dtype).T for s in (0, 3))    # column-major, as the mask
        for frac in (0.0, 0.02, 0.5, 0.97, 1.0):
            c = (rng.uniform(size=a.shape[::-1]) < frac).T
            for b in (0, 0.0, -0.0, 2.5, other):
                r, ref = _where(c, a, b), np.where(c, a, b)
                assert r.dtype == ref.dtype and r.strides == ref.strides
                assert np.array_equal(r.view(f'u{r.dtype.itemsize}'), ref.view(f'u{r.dtype.itemsize}'))

def close_with_specials(a, b, rtol):
    "Values within rtol of torch's; NaN, infinities and zeros where torch has them."
    a = a.detach().numpy() if hasattr(a, 'detach') else a
    b = b.detach().numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b))
    fin = np.isfinite(b)
    assert np.array_equal(a[~fin & ~np.isnan(b)], b[~fin & ~np.isnan(b)])
    np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=np.finfo(b.dtype).tiny)     # (subnormals: absolute)

@pytest.mark.parametrize('dtype, rtol', [(np.float32, 2e-6), (np.float64, 2e-14)])
@pytest.mark.parametrize('op', ['softplus', 'softplus_b', 'mish', 'logaddexp'])
def test_softplus_mish_logaddexp_large_close_to_torch(dtype, rtol, op):
    "torch's formulas (log1p(e^x) below the threshold; max + log1p(e^-|a-b|), equal infinities themselves) in numpy's passes."
    fns = dict(softplus=lambda lib, t, u: lib.nn.functional.softplus(t),
               softplus_b=lambda lib, t, u: lib.nn.functional.softplus(t, beta=2.0, threshold=5.0),
               mish=lambda lib, t, u: lib.nn.functional.mish(t), logaddexp=lambda lib, t, u: lib.logaddexp(t, u))
    x, y = special(dtype), special(dtype, seed=2)[::-1].copy()
    (ly, ty), (lg, tg) = run_both(fns[op], x, y)
    close_with_specials(ly, ty, rtol)
    for a, b in zip(lg, tg):
        if b is None: assert a is None; continue
        close_with_specials(a, b, 1e3 * rtol)
    if op == 'logaddexp':      # equal infinities give themselves; a NaN anywhere gives NaN
        v = np.array([np.inf, -np.inf, np.inf, np.nan, 1.0] * 1000, dtype)
        w = np.array([np.inf, -np.inf, -np.inf, 1.0, np.nan] * 1000, dtype)
        bits_equal(litnn.logaddexp(litnn.tensor(v), litnn.tensor(w)), torch.logaddexp(torch.tensor(v), torch.tensor(w)))

@pytest.mark.parametrize('dtype, rtol', [(np.float32, 2e-6), (np.float64, 1e-14)])
@pytest.mark.parametrize('op', ['erf', 'erfc', 'erfinv', 'lgamma', 'digamma'])
def test_special_functions_large_with_and_without_kernels(dtype, rtol, op, monkeypatch):
    "Close to torch (special values exactly where torch has them), and the same bits with the polynomial kernel as without."
    fn = lambda lib, t: getattr(lib, op)(t)
    x = np.random.default_rng(9).uniform(-1, 1, (150, 100)).astype(dtype) if op == 'erfinv' else special(dtype)
    if op == 'erfinv': x.flat[::97] = np.resize(np.array([np.nan, 1, -1, 0, -0.0, 1.5, -1e-40], dtype), x.flat[::97].size)
    if op in ('lgamma', 'digamma'): x = np.where(np.abs(x) > 1e4, np.float64(7.5).astype(dtype), x)    # (torch's own tails differ)
    (ly, ty), (lg, tg) = run_both(fn, x)
    close_with_specials(ly, ty, rtol if op in ('erf', 'erfc', 'erfinv') else 1e3 * rtol)
    monkeypatch.setattr(litnn.fused, 'enabled', False)
    bits_equal(fn(litnn, litnn.tensor(x)), ly)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', ['distinct', 'rounded', 'transposed', 'with_nan'])
def test_mode_large_rows_match_torch(dtype, case):
    "Rows whose mode occurs once take the vectorised runs; rows with repeats or NaN torch's std::sort order (values and indices)."
    x = np.random.default_rng(10).standard_normal((120, 300)).astype(dtype)
    if case == 'rounded': x = np.round(x * 3)
    if case == 'with_nan': x[::7, 5] = np.nan; x[1::7] = np.round(x[1::7] * 2)
    if case == 'transposed': x = np.round(x * 40).T.copy().T
    (lv, li), (tv, ti) = litnn.tensor(x).mode(1), torch.tensor(x).mode(1)
    bits_equal(lv, tv)
    assert np.array_equal(li.numpy(), ti.numpy())
    lx, tx = both(x)
    g = np.random.default_rng(11).standard_normal(120).astype(dtype)
    lx.mode(1)[0].backward(litnn.tensor(g)); tx.mode(1)[0].backward(torch.tensor(g))
    bits_equal(lx.grad, tx.grad)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('mode, pads, shape', [('reflect', (1, 2, 3, 4), (2, 7, 50, 40)), ('replicate', (3, 1, 2, 5), (2, 7, 50, 40)),
                                               ('circular', (1, 2, 3, 4), (2, 7, 50, 40)), ('reflect', (3, 4), (7, 50, 60)),
                                               ('replicate', (5, 4), (7, 50, 60)), ('reflect', (1, 2, 3, 4, 2, 1), (1, 4, 10, 30, 20)),
                                               ('replicate', (1, 2, 3, 4, 2, 1), (1, 4, 10, 30, 20)), ('replicate', (0, 3, 0, 0), (2, 3, 30, 30))])
def test_pad_gradients_sum_in_torch_order(dtype, mode, pads, shape):
    """Each input element's gradient: its copies in the padded tensor added in row-major order, as torch's loop (to the bit;
    circular: torch's slice copies add in another order, as before: close)."""
    x, g = special(dtype, shape, seed=12), None
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.pad(t, pads, mode=mode)
        if g is None:    # (circular: finite gradients, whose sums in two orders stay close)
            g = special(dtype, tuple(y.shape), seed=13) if mode != 'circular' else np.random.default_rng(13).standard_normal(tuple(y.shape)).astype(dtype)
        y.backward(lib.tensor(g)); out.append((y, t.grad))
    bits_equal(out[0][0], out[1][0])
    if mode != 'circular': bits_equal(out[0][1], out[1][1])
    else: close_with_specials(out[0][1], out[1][1], 1e-5 if dtype == np.float32 else 1e-13)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('weight', [0.3, 0.7, 0.5, -2.0, 'tensor'])
def test_lerp_large_matches_torch_bits(dtype, weight, kernels):
    """A number weight: one fused multiply-add (float32: in float64, rounded once; one compiled loop where numba runs), from
    the start for |w| < 0.5 and from the end otherwise, as torch's kernel (float64: x87's long double, an ulp off at times)."""
    x, y = special(dtype), special(dtype, seed=14)
    w = np.random.default_rng(15).uniform(-0.5, 1.5, x.shape).astype(dtype) if weight == 'tensor' else weight
    f = lambda lib, a, b: lib.lerp(a, b, lib.tensor(w) if weight == 'tensor' else w)
    (ly, ty), (lg, tg) = run_both(f, x, y)
    if dtype == np.float32 and weight != -2.0: bits_equal(ly, ty)
    else: close_with_specials(ly, ty, 1e-6 if dtype == np.float32 else 1e-12)     # (-2: 66 of 19,800 an ulp off, near overflow)
    for a, b in zip(lg, tg): bits_equal(a, b)

@pytest.mark.parametrize('weight', [0.3, 0.7, 1.0, 0.5, -0.25, 2.0, 'tensor'])
@pytest.mark.parametrize('layout', ['C', 'T'])
def test_lerp_float32_matches_torch_to_the_nan_sign(weight, layout, kernels):
    """torch's coefficient from the end is w - 1 (not -(1 - w) times -(b - a)): a zero product's sign and a NaN's sign follow it
    (w = 1 with end -0.0 gives +0.0; a NaN difference keeps its sign). Both roads, every bit, NaN signs included."""
    x, y = special(np.float32, (150, 120)), special(np.float32, (150, 120), seed=14)
    y[::5, ::3] = -0.0
    w = np.random.default_rng(15).uniform(0, 1, x.shape).astype(np.float32) if weight == 'tensor' else weight
    out = []
    for lib in (litnn, torch):
        a, b = lib.tensor(x), lib.tensor(y)
        if layout == 'T': a, b = a.t(), b.t()
        out.append(lib.lerp(a, b, lib.tensor(w.T if layout == 'T' else w) if weight == 'tensor' else w).numpy())
    u = out[1].view(np.uint32)
    same = out[0].view(np.uint32) == u
    keep = np.abs(y if layout == 'C' else y.T) >= np.finfo(np.float32).tiny    # (a subnormal end: float64's double rounding can miss an ulp, as before)
    assert same[keep].all(), f'{(~same & keep).sum()} differ'

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('divisor', [1.5, -1.5, 'tensor'])
def test_remainder_large_matches_torch_bits(dtype, divisor):
    "fmod, moved by the divisor where the signs differ (picked without where's branch per element): torch's values to the bit."
    x = special(dtype)
    d = special(dtype, seed=16) if divisor == 'tensor' else divisor
    l = litnn.remainder(litnn.tensor(x), litnn.tensor(d) if divisor == 'tensor' else d)
    t = torch.remainder(torch.tensor(x), torch.tensor(d) if divisor == 'tensor' else d)
    if divisor == 'tensor':      # (subnormal, huge and infinite divisors: numpy's fmod and torch's formula differ there, as before)
        keep = (np.abs(d) >= np.finfo(dtype).tiny) & (np.abs(d) < 1e30) & (np.abs(x) < 1e30)   # (torch: NaN where x / d overflows)
        bits_equal(l.numpy()[keep], t.numpy()[keep])
    else: bits_equal(l, t)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', ['distinct', 'rounded', 'with_nan', 'large_distinct', 'large_rounded'])
@pytest.mark.parametrize('k', [1, 5, 150])
def test_kthvalue_partition_matches_torch(dtype, case, k):
    """The k-th value by a partition where it occurs once in its row; a repeated one (or one of several NaN) as before:
    ATen's quickselect's index up to 65,536 elements, the first beyond (torch's own choice there: values compared)."""
    rows = 300 if case.startswith('large') else 100
    x = np.random.default_rng(17).standard_normal((rows, 300)).astype(dtype)
    if case.endswith('rounded'): x = np.round(x * 4)
    if case == 'with_nan': x[::5, ::37] = np.nan; x[1::5, 3] = np.nan
    (lv, li), (tv, ti) = litnn.tensor(x).kthvalue(k, 1), torch.tensor(x).kthvalue(k, 1)
    if case != 'large_rounded': bits_equal(lv, tv); assert np.array_equal(li.numpy(), ti.numpy())
    else: assert np.array_equal(lv.numpy(), tv.numpy())      # (which of tied 0.0 and -0.0: torch's choice, not the first; as before)
    (lv0, li0), (tv0, ti0) = litnn.tensor(x).kthvalue(3, 0), torch.tensor(x).kthvalue(3, 0)
    bits_equal(lv0, tv0)

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('lambd', [0.5, 2.0, 0.0])
@pytest.mark.parametrize('transposed', [False, True])
def test_softshrink_large_matches_torch_bits(dtype, lambd, transposed, kernels):
    "a - clip(a, -lambd, lambd): torch's values (+0.0 inside, NaN kept) to the bit."
    x = special(dtype)
    f = lambda lib, t: lib.nn.functional.softshrink(t.t() if transposed else t, lambd)
    (ly, ty), (lg, tg) = run_both(f, x)
    assert ly.stride() == ty.stride()
    tail = ly.numel() % (64 // x.itemsize)         # (torch's scalar loop for the last elements: -0.0 for a negative input inside)
    a, b = (v.detach().numpy().ravel(order='K')[:ly.numel() - tail] for v in (ly, ty))    # (in memory order)
    bits_equal(a, b)
    ok = ~np.isnan(x.T if transposed else x).T if transposed else ~np.isnan(x)     # (a NaN input's gradient: torch's 0, litnn's g, as before)
    bits_equal(lg[0].numpy()[ok], tg[0].numpy()[ok])

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('op', ['hardshrink', 'hardshrink_0', 'hardshrink_2', 'hardshrink.T', 'threshold', 'threshold_0',
                                'threshold_neg0', 'threshold.T'])
def test_hardshrink_threshold_large_match_torch_bits(dtype, op, kernels):
    "A mask by |x| <= lambd (NaN outside) and `_where`'s zero road, or threshold's value: torch's values to the bit, +0.0 inside."
    F = lambda lib: lib.nn.functional
    fns = {'hardshrink': lambda lib, t: F(lib).hardshrink(t), 'hardshrink_0': lambda lib, t: F(lib).hardshrink(t, 0.0),
           'hardshrink_2': lambda lib, t: F(lib).hardshrink(t, 2.0), 'hardshrink.T': lambda lib, t: F(lib).hardshrink(t.t(), 0.3),
           'threshold': lambda lib, t: F(lib).threshold(t, 0.1, 2.0), 'threshold_0': lambda lib, t: F(lib).threshold(t, 0.1, 0.0),
           'threshold_neg0': lambda lib, t: F(lib).threshold(t, -0.5, -0.0), 'threshold.T': lambda lib, t: F(lib).threshold(t.t(), 0.0, 0)}
    x = special(dtype)
    (ly, ty), (lg, tg) = run_both(fns[op], x)
    bits_equal(ly, ty)
    assert ly.stride() == ty.stride()
    ok = ~np.isnan(x) if op.startswith('hardshrink') else np.ones(x.shape, bool)    # (a NaN input's gradient: torch's 0, litnn's g, as before)
    bits_equal(lg[0].numpy()[ok], tg[0].numpy()[ok])

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('op', ['addcmul', 'addcmul_v', 'addcmul_b', 'addcdiv', 'addcdiv_v', 'addcdiv_b'])
def test_addcmul_addcdiv_large_match_torch_bits(dtype, op, kernels):
    """One node computing the value once (a fused multiply-add for addcmul) and torch's gradient formulas: grad·(tensor2·value),
    grad·(value/tensor2) (a division, not value·(1/tensor2)), -grad·(value·tensor1/(tensor2·tensor2)), to the bit."""
    fns = {'addcmul': lambda lib, x, y, z: lib.addcmul(x, y, z), 'addcmul_v': lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.3),
           'addcmul_b': lambda lib, x, y, z: lib.addcmul(x, y, z[:1], value=-2),
           'addcdiv': lambda lib, x, y, z: lib.addcdiv(x, y, z * 0.5 + 2), 'addcdiv_v': lambda lib, x, y, z: lib.addcdiv(x, y, z, value=0.3),
           'addcdiv_b': lambda lib, x, y, z: lib.addcdiv(x, y[:, :1], z, value=-1.5)}
    (ly, ty), (lg, tg) = run_both(fns[op], special(dtype), special(dtype, seed=1), special(dtype, seed=2, scale=1))
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__
    if dtype == np.float64 and op.startswith('addcmul'): close_with_specials(ly, ty, 1e-15)   # (float64's FMA: long double, rarely an ulp off)
    elif op == 'addcmul_b': close_with_specials(ly, ty, 2e-7)     # (a broadcast operand: torch's scalar loop, not always fused)
    else: bits_equal(ly, ty)
    for a, b in zip(lg, tg):
        if op.endswith('_b'): close_with_specials(a, b, 1e-5)      # (a broadcast operand's gradient: summed in another order)
        else: bits_equal(a, b)

@pytest.mark.parametrize('dtypes', [('float32', 'float64', 'float32'), ('float64', 'float32', 'float32'), ('bfloat16',) * 3, ('float16',) * 3])
@pytest.mark.parametrize('fn', ['addcmul', 'addcdiv'])
def test_addcmul_addcdiv_mixed_dtypes_and_second_order(dtypes, fn):
    "Each gradient in its input's dtype (the formulas in the tensors' own dtypes, as torch's); second derivatives as torch's."
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((6, 7)), rng.standard_normal((6, 7)), rng.standard_normal((1, 7)) + 3]
    res = []
    for lib in (litnn, torch):
        ts = [lib.tensor(a, dtype=getattr(lib, d), requires_grad=True) for a, d in zip(arrays, dtypes)]
        y = getattr(lib, fn)(*ts, value=0.3)
        gs = lib.autograd.grad(y, ts, lib.ones_like(y) * 0.7, create_graph=True)
        gg = lib.autograd.grad(sum((g * g).sum() for g in gs), ts, allow_unused=True)
        res.append([y, *gs, *gg])
    for a, b in zip(*res):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype.__repr__().split('.')[-1] == b.dtype.__repr__().split('.')[-1]
            np.testing.assert_allclose(a.detach().double().numpy(), b.detach().double().numpy(), rtol=1e-2 if '16' in dtypes[0] else 1e-6)

def test_addcmul_of_one_tensor_thrice_gradient():
    "addcmul(a, a, a) under func.grad: each use of a gets its gradient (the composite's inner graph tripled one, 49 for 16.3)."
    a = np.random.default_rng(6).standard_normal((4, 5)).astype(np.float32)
    r = [lib.func.grad(lambda t: lib.addcmul(t, t, t, value=0.5).sum())(lib.tensor(a)) for lib in (litnn, torch)]
    bits_equal(*r)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('mode, pads, shape, layout', [
    ('reflect', (1, 2, 3, 4), (2, 7, 50, 40), 'plain'), ('reflect', (5, 6), (7, 50, 200), 'plain'),
    ('reflect', (1, 2, 3, 4, 2, 1), (1, 7, 10, 50, 20), 'plain'), ('reflect', (3, 0, 0, 2), (2, 7, 50, 40), 'channels_last'),
    ('replicate', (1, 1, 2, 3), (2, 7, 50, 40), 'plain'), ('replicate', (10, 0, 0, 7), (1, 350, 200), 'transposed'),
    ('replicate', (1, 2, 3, 4, 2, 1), (1, 7, 10, 50, 20), 'plain'), ('circular', (1, 2, 3, 4), (2, 7, 50, 40), 'plain'),
    ('circular', (-3, 4, 1, -2), (2, 7, 50, 40), 'plain'), ('circular', (3, 4), (7, 50, 200), 'channels_last'),
    ('reflect', (-2, 3), (7, 50, 200), 'plain')])
def test_pad_copies_large_match_torch(dtype, mode, pads, shape, layout):
    "Reflect/replicate/circular padding of large inputs by slice copies (`_pad_copy`): torch's values to the bit, its strides, its gradients."
    x = special(dtype, shape=(int(np.prod(shape[:-1])), shape[-1])).reshape(shape)
    def f(lib, t):
        if layout == 'channels_last': t = t.contiguous(memory_format=lib.channels_last) if t.dim() == 4 else t.transpose(-1, -2).contiguous().transpose(-1, -2)
        if layout == 'transposed': t = t.transpose(-1, -2).contiguous().transpose(-1, -2)
        return lib.nn.functional.pad(t, pads, mode=mode)
    (ly, ty), (lg, tg) = run_both(f, x)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__
    bits_equal(ly, ty)
    assert ly.stride() == ty.stride()
    if mode == 'circular': close(lg[0], tg[0], 1e-5, 1e-6)      # (torch adds circular's copies in its slice order: an ulp apart at times)
    else: bits_equal(lg[0], tg[0])

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('op', ['index_add0', 'index_add1', 'index_add_neg', 'scatter_add', 'scatter_add0', 'index_put_acc', 'gather'])
def test_accumulating_writes_large_match_torch_bits(dtype, op):
    """Adds where indices repeat, in add.at's order: by rank (each index's k-th row at once) for one index array, one flat
    add.at for an index per dim; torch's sums to the bit (its index_add_ / scatter_add_ loops add in the same order)."""
    rng = np.random.default_rng(9)
    R, C = rng.integers(0, 180, 240), rng.integers(0, 110, (180, 40))
    fns = {'index_add0': lambda lib, x, y: x.index_add(0, lib.tensor(R), lib.cat([y, y[:60]], 0)),
           'index_add1': lambda lib, x, y: x.index_add(1, lib.tensor(R % 110), lib.cat([y, y, y[:, :20]], 1), alpha=0.5),
           'index_add_neg': lambda lib, x, y: x.index_put((lib.tensor(R - 180),), lib.cat([y, y[:60]], 0), accumulate=True),
           'scatter_add': lambda lib, x, y: x.scatter_add(1, lib.tensor(C), y[:, :40]),
           'scatter_add0': lambda lib, x, y: x.scatter_add(0, lib.tensor(np.broadcast_to(C[:1] * 0 + C[:, :1], (180, 40)).copy()), y[:, :40]),
           'index_put_acc': lambda lib, x, y: x.index_put((lib.tensor(R[:180]), lib.tensor(C[:, 0])), y[:, 0], accumulate=True),
           'gather': lambda lib, x, y: lib.gather(x, 1, lib.tensor(C)) * y[:, :40]}
    (ly, ty), (lg, tg) = run_both(fns[op], special(dtype), special(dtype, seed=1))
    bits_equal(ly, ty)
    for a, b in zip(lg, tg): bits_equal(a, b)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('n', [7, 15, 16, 31, 32, 40, 500, 3000])
@pytest.mark.parametrize('keepdim', [False, True])
def test_prod_last_dim_in_torch_order(dtype, n, keepdim, kernels):
    """prod along a contiguous last dim: torch's vectorized order (32-byte lanes in 4 vectors, combined, then the tail), to
    the bit; one compiled loop where numba runs and the tensor has 4,096+ elements (`fused.prod_rows`), numpy's passes otherwise."""
    a = np.random.default_rng(n).uniform(0.6, 1.5, (70, n)).astype(dtype)
    a[3, 2] = np.nan; a[5, -1] = np.inf; a[6, 0] = -np.nan; a[6, 1] = np.nan
    a[7, -2] = -0.0; a[8, 0] = 0.0; a[9, 1] = -np.inf; a[10, :] = 1e-30; a[11, n // 2] = np.finfo(dtype).tiny / 4
    bits_equal(litnn.tensor(a).prod(-1, keepdim=keepdim), torch.tensor(a).prod(-1, keepdim=keepdim))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_prod_rows_kernel_gives_the_numpy_roads_bits(dtype, monkeypatch):
    "The compiled loop and numpy's passes: the same bits, NaN signs and payloads included (special values, rows long and short)."
    for shape in [(300, 500), (64, 100), (900, 7), (5000, 1)]:
        a = special(dtype, shape, seed=shape[1], scale=0.4) + dtype(1)
        out = []
        for on in (True, False):
            monkeypatch.setattr(fused, 'enabled', on)
            out.append(litnn.tensor(a).prod(1).numpy())
        u = f'u{a.itemsize}'
        assert np.array_equal(out[0].view(u), out[1].view(u))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('dim', [0, 1])
def test_prod_gradient_with_zeros_is_torchs(dtype, dim):
    "A zero anywhere in the input: torch's prod_safe_zeros_backward (exclusive cumprods from each end), values and gradients to the bit."
    (ly, ty), (lg, tg) = run_both(lambda lib, t: (t * 0.5).prod(dim), special(dtype))
    bits_equal(ly, ty); bits_equal(lg[0], tg[0])

@pytest.mark.parametrize('op', ['relu', 'threshold', 'threshold_v', 'hardshrink', 'softshrink'])
@pytest.mark.parametrize('layout', ['C', 'T', 'strided'])
def test_select_loop_broadcast_gradient_and_layouts(op, layout, kernels):
    """threshold's, hardshrink's and ReLU's one-loop select (`fused.select_le`) and softshrink's loop: values, strides and the
    gradient of `y.sum()` (a broadcast gradient, copied to the input's layout) to the bit; a strided view takes numpy's passes."""
    F = lambda lib: lib.nn.functional
    fns = dict(relu=lambda lib, t: F(lib).relu(t), threshold=lambda lib, t: F(lib).threshold(t, 0.25, 0.0),
               threshold_v=lambda lib, t: F(lib).threshold(t, -1.0, -7.5), hardshrink=lambda lib, t: F(lib).hardshrink(t, 1.5),
               softshrink=lambda lib, t: F(lib).softshrink(t, 1.5))
    x = special(np.float32, (200, 130), seed=4)
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(x, requires_grad=True)
        v = t.t() if layout == 'T' else t[:, ::2] if layout == 'strided' else t
        y = fns[op](lib, v)
        y.sum().backward()
        out.append((y, t.grad))
    (ly, lg), (ty, tg) = out
    assert ly.stride() == ty.stride()
    if op == 'softshrink':     # (torch's scalar tail: -0.0 inside for a negative input; a NaN input's gradient: torch's 0, litnn's g)
        ok = ~np.isnan(x)
        bits_equal(lg.numpy()[ok], tg.numpy()[ok])
        np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
        return
    bits_equal(ly, ty)
    ok = ~np.isnan(x) if op == 'hardshrink' else np.ones(x.shape, bool)
    bits_equal(lg.numpy()[ok], tg.numpy()[ok])

def test_addcmul_three_arrays_one_loop_same_bits_as_numpy_passes(monkeypatch):
    "fused.fma (float32 a·b + c in float64, rounded once) gives the bits of numpy's float64 passes, row- and column-major."
    from litnn.autograd.broadcasting import _fma
    a, b, c = (special(np.float32, (150, 120), seed=s) for s in (1, 2, 3))
    on = [_fma(*(v.T if t else v for v in (a, b, c)), np.float32) for t in (False, True)]
    monkeypatch.setattr(fused, 'enabled', False)
    off = [_fma(*(v.T if t else v for v in (a, b, c)), np.float32) for t in (False, True)]
    for r, ref in zip(on, off):
        assert r.strides == ref.strides
        bits_equal(r, ref)
    ref = torch.addcmul(*(torch.tensor(v) for v in (c, a, b)))     # (float64's sum, then float32: a second rounding, rarely an ulp off)
    close_with_specials(litnn.tensor(on[0]), ref, 2e-7)

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.int64])
@pytest.mark.parametrize('case', ['gather1', 'gather0', 'gather_expanded', 'gather_int32', 'rows_cols', 'rows_cols_neg', 'grid'])
def test_integer_array_keys_as_one_flat_take_match_torch(dtype, case):
    """An integer array for every dim of a large row-major array (gather's key, x[rows, cols]) is one flat index and a
    1-d take (`_get`): torch's values, shape and strides; negative indices take numpy's own road; gradients to the bit."""
    rng = np.random.default_rng(11)
    x = special(np.float64, (150, 120), seed=6).astype(dtype) if dtype != np.int64 else rng.integers(-9, 9, (150, 120))
    idx = {'gather1': rng.integers(0, 120, (150, 40)), 'gather0': rng.integers(0, 150, (90, 120)),
           'gather_expanded': rng.integers(0, 120, (150, 1)), 'gather_int32': rng.integers(0, 150, (150, 120)).astype(np.int32)}
    rows, cols = rng.integers(0, 150, (7000,)), rng.integers(0, 120, (7000,))
    fns = {'gather1': lambda lib, t: lib.gather(t, 1, lib.tensor(idx['gather1'])),
           'gather0': lambda lib, t: t.gather(0, lib.tensor(idx['gather0'])),
           'gather_expanded': lambda lib, t: lib.gather(t, 1, lib.tensor(idx['gather_expanded']).expand(150, 60)),
           'gather_int32': lambda lib, t: lib.gather(t, 0, lib.tensor(idx['gather_int32'])),
           'rows_cols': lambda lib, t: t[lib.tensor(rows), lib.tensor(cols)],
           'rows_cols_neg': lambda lib, t: t[lib.tensor(rows - 150), lib.tensor(cols)],
           'grid': lambda lib, t: t[lib.tensor(rows[:90, None]), lib.tensor(cols[None, :70])]}
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(x, requires_grad=dtype != np.int64)
        y = fns[case](lib, t)
        if t.requires_grad: (y * lib.tensor(np.arange(y.numel(), dtype=dtype).reshape(y.shape) % 7)).sum().backward()
        out.append((y, t.grad))
    (ly, lg), (ty, tg) = out
    assert tuple(ly.shape) == tuple(ty.shape) and ly.stride() == ty.stride()
    bits_equal(ly, ty)
    if lg is not None: bits_equal(lg, tg)

def test_flat_index_refuses_what_numpy_decides():
    "Out-of-range indices still raise torch's errors; gather's check names the first bad index in order, an expanded one too."
    x = litnn.tensor(np.zeros((80, 70), np.float32))
    with pytest.raises(IndexError): x[litnn.tensor([0, 80] * 3000), litnn.tensor([1, 2] * 3000)]
    idx = np.zeros((80, 1), np.int64); idx[5, 0] = 70; idx[9, 0] = -1
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError, match='index 70 is out of bounds for dimension 1 with size 70'):
            lib.gather(lib.tensor(np.zeros((80, 70), np.float32)), 1, lib.tensor(idx).expand(80, 60))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', ['huber', 'huber_d', 'huber_none', 'smooth_l1', 'smooth_l1_b', 'smooth_l1_sum.T', 'smooth_l1_none'])
def test_piecewise_losses_large_match_torch(dtype, case, kernels):
    """smooth_l1 / huber's elementwise loss in one loop where numba runs (`fused.piecewise_loss`), each step rounded as
    numpy's passes: torch's values to the bit unreduced (its reductions' order: to 1e-6), gradients to 1e-6."""
    F = lambda lib: lib.nn.functional
    fns = {'huber': lambda lib, x, y: F(lib).huber_loss(x, y), 'huber_d': lambda lib, x, y: F(lib).huber_loss(x, y, delta=0.7),
           'huber_none': lambda lib, x, y: F(lib).huber_loss(x, y, reduction='none', delta=2.5),
           'smooth_l1': lambda lib, x, y: F(lib).smooth_l1_loss(x, y), 'smooth_l1_b': lambda lib, x, y: F(lib).smooth_l1_loss(x, y, beta=0.3),
           'smooth_l1_sum.T': lambda lib, x, y: F(lib).smooth_l1_loss(x.t(), y.t(), reduction='sum', beta=2.0),
           'smooth_l1_none': lambda lib, x, y: F(lib).smooth_l1_loss(x, y, reduction='none', beta=0.5)}
    x, y = special(dtype, scale=1), special(dtype, seed=3, scale=1)
    (ly, ty), (lg, tg) = run_both(fns[case], x, y)
    if case.endswith('none'): bits_equal(ly, ty)
    else: close_with_specials(ly, ty, 1e-6)
    if not case.endswith('none'):       # (finite inputs: a reduced loss is finite, the gradients compared to the bit)
        fx, fy = (np.nan_to_num(v, nan=0.5, posinf=2.0, neginf=-2.0) for v in (x, y))
        (ly, ty), (lg, tg) = run_both(fns[case], fx, fy)
        close_with_specials(ly, ty, 1e-6)
    for a, b in zip(lg, tg): close_with_specials(a, b, 1e-6)   # (the gradients, untouched by the loop: the mean's g/n rounds apart, a zero's sign may)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('weights', ['one', 'channels', 'over_one', 'mixed', 'one.T'])
def test_prelu_large_matches_torch_bits(dtype, weights):
    "prelu takes leaky_relu's road (max(x, w·x) for slopes in (0, 1), min over 1, a mask otherwise): torch's bits and strides."
    w = {'one': np.array([0.25]), 'channels': np.linspace(0.01, 0.9, 110), 'over_one': np.linspace(1.5, 3, 110),
         'mixed': np.linspace(-1, 3, 110), 'one.T': np.array([0.3])}[weights].astype(dtype)
    f = lambda lib, x, w: lib.nn.functional.prelu(x.t() if weights.endswith('.T') else x, w)
    (ly, ty), (lg, tg) = run_both(f, special(dtype), w)
    bits_equal(ly, ty); assert ly.stride() == ty.stride()
    bits_equal(lg[0], tg[0])
    x = np.nan_to_num(special(dtype), nan=1.0, posinf=3.0, neginf=-3.0)    # (the weight's gradient: a sum, in another order)
    (ly, ty), (lg, tg) = run_both(f, x, w)
    np.testing.assert_allclose(lg[1].numpy(), tg[1].numpy(), rtol=1e-4, atol=1e-3)

@pytest.mark.parametrize('shape', [(600,), (30, 40), (0,), ()])
def test_one_hot_matches_torch(shape):
    "one_hot as zeros and a 1 at each flat position: torch's values, dtype and strides."
    a = np.random.default_rng(3).integers(0, 37, shape)
    for n in (37, 50, -1):
        if not a.size and n == -1: continue
        l, t = litnn.nn.functional.one_hot(litnn.tensor(a), n), torch.nn.functional.one_hot(torch.tensor(a), n)
        assert l.dtype == litnn.int64 and l.stride() == t.stride()
        np.testing.assert_array_equal(l.numpy(), t.numpy())

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_gelu_of_a_transposed_matrix_matches_the_row_major_road(dtype, kernels):
    "A column-major input takes the fused loop through its transpose: the values, strides and gradient of the row-major road."
    x = special(dtype, scale=2)
    out = []
    for xt in (x.T.copy(), x):
        t = litnn.tensor(xt if xt is not x else x, requires_grad=True)
        v = t if xt is not x else t.t()
        y = litnn.nn.functional.gelu(v)
        y.backward(litnn.tensor(np.random.default_rng(1).standard_normal(y.shape).astype(dtype)))
        out.append((y, t.grad.t() if xt is x else t.grad))
    bits_equal(out[0][0].contiguous(), out[1][0].contiguous()); bits_equal(out[0][1].contiguous(), out[1][1].contiguous())
    tx = torch.tensor(x).t()
    assert out[1][0].stride() == torch.nn.functional.gelu(tx).stride()

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('op', ['cumsum', 'cumprod'])
@pytest.mark.parametrize('dim', [0, 1, -1])
@pytest.mark.parametrize('layout', ['C', 'T', '3d'])
def test_scans_match_torch_bits(dtype, op, dim, layout, kernels):
    """cumsum / cumprod carried as torch's CPU kernel (float32 in float64, from 0 or 1, each output rounded back): in one
    loop where numba runs (`fused.scan`), numpy's scan otherwise; torch's values to the bit (no -0.0 sums: torch's carry
    starts at +0) and gradients, contiguous results."""
    x = special(dtype, (150, 120), seed=9, scale=1)
    x[:, :3] = -0.0; x[:4] = -0.0                 # leading runs of -0.0 along both dims
    if op == 'cumprod': x = np.where(np.abs(x) > 4, np.sign(x), x).astype(dtype)     # (no overflow everywhere)
    if layout == '3d': x = x.reshape(10, 15, 120)
    f = lambda lib, t: getattr(t.t() if layout == 'T' else t, op)(dim)
    (ly, ty), (lg, tg) = run_both(f, x)
    bits_equal(ly, ty)
    assert ly.stride() == ty.stride()
    if op == 'cumsum': bits_equal(lg[0], tg[0])     # (a reversed running sum)
    else:                                           # (torch's formula through zeros and infinities is its own: finite nonzero inputs)
        x = np.random.default_rng(2).uniform(0.5, 1.5, x.shape).astype(dtype)
        (ly, ty), (lg, tg) = run_both(f, x)
        np.testing.assert_allclose(lg[0].numpy(), tg[0].numpy(), rtol=1e-4 if dtype == np.float32 else 1e-10)

def test_scan_small_and_zero_runs_match_torch():
    "Small inputs (numpy's scan, +0 added) and all -0.0 rows: no -0.0 in a running sum, as torch's."
    x = np.array([[-0.0, 1.0, -1.0, -0.0], [-0.0, -0.0, -0.0, -0.0]], np.float32)
    for dt in (np.float32, np.float64, np.complex64):
        for d in (0, 1):
            bits_equal(litnn.tensor(x.astype(dt)).cumsum(d).numpy().view(np.float32 if dt != np.float64 else np.float64),
                       torch.tensor(x.astype(dt)).cumsum(d).numpy().view(np.float32 if dt != np.float64 else np.float64))

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('layout', ['C', 'T', 'strided'])
def test_sign_large_matches_torch_bits(dtype, layout, kernels):
    "sign in one loop where numba runs (`fused.sign`), (x > 0) - (x < 0) otherwise: torch's bits (+0 for zeros and NaN), strides."
    x = special(dtype)
    f = lambda lib, t: lib.sign(t.t() if layout == 'T' else t[:, ::2] if layout == 'strided' else t)
    (ly, ty), (lg, tg) = run_both(f, x)
    bits_equal(ly, ty); assert ly.stride() == ty.stride()
    bits_equal(lg[0], tg[0])

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', ['plain', 'even', 'ties', 'zeros', 'subnormal', 'inf', 'nan'])
@pytest.mark.parametrize('fn', ['median', 'nanmedian'])
def test_median_by_partition_matches_torch(dtype, case, fn):
    """A lower median that occurs once in its slice, no NaN: a partition (`_unique_median_index`); ties, signed zeros and
    NaN take the sort. torch's values, indices and gradients along both dims and over all elements."""
    rng = np.random.default_rng(12)
    x = {'plain': rng.standard_normal((120, 101)), 'even': rng.standard_normal((120, 100)),
         'ties': np.round(rng.standard_normal((120, 100)) * 4) / 4,
         'zeros': np.where(rng.uniform(size=(80, 90)) < 0.5, 0.0, -0.0) * rng.integers(0, 2, (80, 90)),
         'subnormal': rng.standard_normal((60, 100)) * 1e-39, 'inf': np.where(rng.uniform(size=(60, 100)) < 0.3, np.inf, rng.standard_normal((60, 100))),
         'nan': np.where(rng.uniform(size=(60, 100)) < 0.01, np.nan, rng.standard_normal((60, 100)))}[case].astype(dtype)
    for dim in (0, 1, None):
        out = []
        for lib in (litnn, torch):
            t = lib.tensor(x, requires_grad=True)
            r = getattr(t, fn)() if dim is None else getattr(t, fn)(dim)
            v = r if dim is None else r[0]
            v.backward(lib.tensor(np.arange(v.numel(), dtype=dtype).reshape(tuple(v.shape))))
            out.append((v, None if dim is None else r[1], t.grad))
        (lv, li, lg), (tv, ti, tg) = out
        np.testing.assert_array_equal(lv.detach().numpy(), tv.detach().numpy())    # (tied zeros over all elements: torch's sign is its own, as before)
        bits_equal(lg, tg)
        if li is not None: bits_equal(lv, tv); np.testing.assert_array_equal(li.numpy(), ti.numpy())

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', ['default', 'bounds', 'over_one', 'negative', 'T', 'no_grad', 'inplace'])
def test_rrelu_eval_large_matches_torch_bits(dtype, case):
    "rrelu in eval: leaky_relu's value with slope (lower + upper)/2 and its gradient (g·noise's bits): torch's, strides too."
    kw = {'bounds': dict(lower=0.2, upper=0.4), 'over_one': dict(lower=1.5, upper=2.5), 'negative': dict(lower=-0.6, upper=-0.2)}.get(case, {})
    x = special(dtype)
    if case in ('no_grad', 'inplace'):
        out = []
        for lib in (litnn, torch):
            with lib.no_grad():
                t = lib.tensor(x.copy())
                out.append(lib.nn.functional.rrelu(t, inplace=True) if case == 'inplace' else lib.nn.functional.rrelu(t))
        bits_equal(out[0], out[1])
        return
    f = lambda lib, t: lib.nn.functional.rrelu(t.t() if case == 'T' else t, training=False, **kw)
    (ly, ty), (lg, tg) = run_both(f, x)
    bits_equal(ly, ty)
    if case != 'T': assert ly.stride() == ty.stride()     # (torch's rrelu of a transposed view is row-major; litnn's keeps the layout, as before)
    bits_equal(lg[0], tg[0])


def test_the_flat_index_road_takes_empty_and_broadcast_empty_indices():
    "b6c8ba83's flat index (gather, index_put_ accumulate, an advanced index's gradient) on empty index arrays, some broadcast (stride 0)."
    import torch as T
    out = {}
    for lib in (T, litnn):
        i, j = lib.tensor([], dtype=lib.long), lib.tensor([[]], dtype=lib.long).expand(5, 0)
        x = lib.zeros(100, 100, requires_grad=True)
        x[i, i].sum().backward()
        out[lib.__name__] = (x.grad.sum().item(), tuple(x[j, j].shape),
                             lib.zeros(100, 100).index_put_((j, j), lib.tensor(1.), accumulate=True).sum().item(),
                             tuple(lib.gather(lib.zeros(100, 100), 1, lib.zeros(100, 0, dtype=lib.long)).shape))
    assert out['litnn'] == out['torch'] == (0.0, (5, 0), 0.0, (100, 0))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('mode', ['nearest', 'nearest-exact'])
@pytest.mark.parametrize('shape, kw', [((4, 30, 40), dict(scale_factor=2)), ((4, 30, 40), dict(size=97)), ((4, 30, 40), dict(scale_factor=0.5)),
                                       ((2, 3, 20, 30), dict(scale_factor=2)), ((2, 3, 20, 30), dict(scale_factor=(1.5, 3))),
                                       ((2, 3, 20, 30), dict(size=(7, 61))), ((2, 4, 6, 7, 8), dict(scale_factor=2)),
                                       ((2, 4, 6, 7, 8), dict(size=(5, 15, 9)))])
def test_interpolate_nearest_copies_and_sums_in_torch_order(dtype, mode, shape, kw):
    """nearest / nearest-exact: each output a copy of its sample (a gather: the 0/1 matrix products spread 0·inf = NaN along a
    row and turned -0.0 into +0.0), each input's gradient its outputs' gradients added in row-major order from zeros (torch's
    loop): values and gradients to the bit on inputs and gradients with NaN, infinities, -0.0 and subnormals."""
    x = special(dtype, shape, seed=3)
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.interpolate(t, mode=mode, **kw)
        y.backward(lib.tensor(special(dtype, tuple(y.shape), seed=4)))
        out.append((y, t.grad))
    bits_equal(out[0][0], out[1][0]); bits_equal(out[0][1], out[1][1])
    assert out[0][0].stride() == out[1][0].stride()

@pytest.mark.parametrize('case', ['channels_last', 'uint8', 'create_graph', 'half'])
def test_interpolate_nearest_layouts_dtypes_and_second_order(case):
    "A channels-last input stays so; uint8 images are copied; a second derivative through the copy; half precision: as torch."
    x = np.random.default_rng(6).standard_normal((2, 3, 5, 7)).astype(np.float32)
    res = []
    for lib in (litnn, torch):
        if case == 'uint8':
            res.append(lib.nn.functional.interpolate(lib.tensor((x * 40 + 100).astype(np.uint8)), scale_factor=(2, 1.5)).numpy()); continue
        t = lib.tensor(x, dtype=lib.float16 if case == 'half' else lib.float32, requires_grad=True)
        if case == 'channels_last': t = t.detach().to(memory_format=lib.channels_last).requires_grad_()
        y = lib.nn.functional.interpolate(t, size=(11, 13))
        if case == 'create_graph':
            g, = lib.autograd.grad((y * y).sum(), t, create_graph=True)
            (gg,) = lib.autograd.grad((g * g).sum(), t)
            res.append((g.detach().numpy(), gg.numpy())); continue
        y.backward(lib.ones_like(y))
        res.append((y.detach().float().numpy(), t.grad.float().numpy(), y.stride()))
    if case == 'uint8': assert np.array_equal(res[0], res[1])
    elif case == 'create_graph':
        for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-6)
    else:
        for a, b in zip(res[0], res[1]): np.testing.assert_array_equal(a, b)

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('dim', [None, 0, 1, (0, 1)])
@pytest.mark.parametrize('fn', ['var', 'std'])
@pytest.mark.parametrize('scale', [3, 1e-30, 1e30])
def test_var_std_scaled_in_float64_close_to_torch(dtype, dim, fn, scale):
    """var / std: each slice scaled by a power of two (float32: its float64 copy multiplied by 2^-e, exact), two passes
    for the mean: torch's values within its tolerance, NaN where torch has NaN (inputs with NaN and infinities too)."""
    x = special(dtype, (180, 110), seed=21, scale=scale)
    x = np.where(np.abs(x) > 1e35, dtype(-2.5), x)         # (float32 squares past 1e38: torch's NaN, litnn's inf, as before)
    finite = np.where(np.isfinite(x), x, dtype(1.5))
    plain = (np.random.default_rng(22).standard_normal(x.shape) * scale).astype(dtype)
    for v in (x, finite, plain):
        (ly, ty), (lg, tg) = run_both(lambda lib, t: getattr(t, fn)() if dim is None else getattr(t, fn)(dim), v)
        close_with_specials(ly, ty, 1e-5 if dtype == np.float32 else 1e-12)
        if v is plain:     # (x - mean near the mean: each library's rounding of the mean; with ±1e30 among them it cancels)
            tol = 1e-4 if dtype == np.float32 else 1e-10
            b = tg[0].numpy()
            np.testing.assert_allclose(lg[0].numpy(), b, rtol=tol, atol=tol * np.abs(b).max())

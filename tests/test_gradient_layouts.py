"""Memory layouts (strides) of gradients and outputs, compared with torch's: the engine's accumulation of two
gradients of one input, the backward formulas' output layouts."""
import numpy as np, pytest, torch
import litnn


def _x(lib, shape=(2, 3, 4, 5), fmt='channels_last'):
    x = lib.tensor(np.random.default_rng(0).standard_normal(shape)).requires_grad_()
    return x, x.contiguous(memory_format=getattr(lib, fmt))


def _strides_both(f):
    "f(lib) in torch and litnn: the strides it returns, each side."
    return [f(lib) for lib in (torch, litnn)]


@pytest.mark.parametrize('first_cl', [True, False])
@pytest.mark.parametrize('fmt', ['channels_last', 'channels_last_3d'])
def test_accumulated_gradient_keeps_first_arrived_layout(first_cl, fmt):
    # two gradients of y: exp's is laid out as y (channels-last), mul's by a row-major constant is row-major;
    # torch's InputBuffer adds into the first-arrived one (the later-made node runs first), numpy's sum is row-major.
    # x's gradient is y's, copied by contiguous's backward into the layout of the sum
    def f(lib):
        x, y = _x(lib, (2, 3, 4, 5) if fmt == 'channels_last' else (2, 3, 2, 4, 5), fmt)
        c = lib.ones(x.shape, dtype=x.dtype)
        a, b = (y * c).sum(), y.exp().sum()
        g, = lib.autograd.grad(a + b if first_cl else b + a, x)
        return g.stride(), g.tolist()
    (ts, tv), (ls, lv) = _strides_both(f)
    assert ls == ts
    np.testing.assert_allclose(lv, tv, rtol=1e-12)


@pytest.mark.parametrize('case', ['broadcast_first', 'broadcast_second'])
def test_accumulated_gradient_with_a_broadcast_one(case):
    # sum's gradient is a broadcast (stride 0): TensorIterator asks the next operand for the layout
    def f(lib):
        x, y = _x(lib)
        gcl = lib.rand(x.shape, dtype=x.dtype).contiguous(memory_format=lib.channels_last)
        a, b = y.sum(), (y * gcl).sum()
        g, = lib.autograd.grad(b + a if case == 'broadcast_first' else a + b, x)
        return g.stride()
    t, l = _strides_both(f)
    assert l == t


def test_rms_norm_input_gradient_of_channels_last_input():
    # RMSNorm's input gradient is the sum of two (a composite in torch too): it follows the first-arrived term
    def f(lib):
        x, y = _x(lib)
        out = lib.nn.functional.rms_norm(y, (4, 5))
        gy = lib.empty_like(out).copy_(lib.ones(out.shape, dtype=out.dtype) * 0.3)
        g, = lib.autograd.grad(out, y, gy)
        return g.stride(), g.tolist()
    (ts, tv), (ls, lv) = _strides_both(f)
    assert ls == ts
    np.testing.assert_allclose(lv, tv, rtol=1e-12)


@pytest.mark.parametrize('mode', ['nearest', 'bilinear', 'bicubic'])
@pytest.mark.parametrize('layout', ['row_major', 'sliced', 'permuted', 'channels_last'])
def test_interpolate_output_in_input_suggested_format(mode, layout):
    # interpolate resamples one dim at a time on moved dims; torch's kernels allocate the output row-major, or
    # channels-last for a channels-last input, whatever the input's own strides
    def f(lib):
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 3, 8, 5)))
        x = {'row_major': x, 'sliced': x[:, :, ::2], 'permuted': x.permute(0, 2, 3, 1),
             'channels_last': x.contiguous(memory_format=lib.channels_last)}[layout].requires_grad_()
        y = lib.nn.functional.interpolate(x, scale_factor=2, mode=mode)
        g, = lib.autograd.grad(y, x, lib.ones(y.shape, dtype=y.dtype))
        return y.stride(), g.stride(), y.tolist()
    (ty, tg, tv), (ly, lg, lv) = _strides_both(f)
    assert (ly, lg) == (ty, tg)
    np.testing.assert_allclose(lv, tv, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('op', ['relu', 'sigmoid', 'tanh'])
@pytest.mark.parametrize('cot', ['row_major', 'like_output', 'broadcast'])
@pytest.mark.parametrize('layout', ['channels_last', 'transposed'])
def test_activation_gradient_layout(op, cot, layout):
    # torch's threshold_backward(grad, result) takes the result's layout first; sigmoid_backward and tanh_backward
    # (grad, output) take the gradient's, the output's where the gradient is a broadcast (sum's)
    def f(lib):
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 3, 4, 5)))
        x = (x.contiguous(memory_format=lib.channels_last) if layout == 'channels_last' else x.transpose(1, 3)).requires_grad_()
        y = getattr(x, op)()
        if cot == 'broadcast': g, = lib.autograd.grad(y.sum(), x)
        else:
            c = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
            g, = lib.autograd.grad(y, x, lib.empty_like(y).copy_(c) if cot == 'like_output' else c)
        return g.stride(), g.tolist()
    (ts, tv), (ls, lv) = _strides_both(f)
    assert ls == ts
    np.testing.assert_allclose(lv, tv, rtol=1e-12, atol=1e-15)


def _strided(lib, shape, layout):
    x = lib.tensor(np.random.default_rng(0).standard_normal(shape))
    if layout == 'transposed': return x.mT.contiguous().mT
    if layout == 'channels_last': return x.contiguous(memory_format=lib.channels_last)
    return x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)     # 'permuted': (N, H, W, C) in memory, not channels-last strides


@pytest.mark.parametrize('loss', ['huber_loss', 'smooth_l1_loss', 'multi_margin_loss'])
@pytest.mark.parametrize('layout', ['transposed', 'channels_last'])
def test_loss_kernel_gradients_are_row_major(loss, layout):
    # torch's huber/smooth_l1 backward kernels write zeros_like(input, LEGACY_CONTIGUOUS_MEMORY_FORMAT), and
    # multi_margin_loss's reads input.contiguous(): row-major gradients for input and target, whatever their layouts
    if loss == 'multi_margin_loss' and layout == 'channels_last': pytest.skip('multi_margin_loss takes 1-d or 2-d input')
    def f(lib):
        shape = (5, 6) if layout == 'transposed' else (2, 3, 4, 5)
        x, y = _strided(lib, shape, layout).requires_grad_(), _strided(lib, shape, layout).mul(0.5).requires_grad_()
        F = lib.nn.functional
        if loss == 'multi_margin_loss':
            out = F.multi_margin_loss(x, lib.tensor([0, 2, 1, 5, 3]))
            g = lib.autograd.grad(out, [x])
        else:
            out = getattr(F, loss)(x, y, reduction='sum')
            g = lib.autograd.grad(out, [x, y])
        return [t.stride() for t in g], [t.tolist() for t in g]
    (ts, tv), (ls, lv) = _strides_both(f)
    assert ls == ts
    np.testing.assert_allclose(lv, tv, rtol=1e-12)


@pytest.mark.parametrize('shape,layout', [((4, 6, 5), 'transposed'), ((2, 6, 4, 5), 'permuted'), ((2, 6, 4, 5), 'channels_last')])
def test_group_norm_gradient_in_suggested_format(shape, layout):
    # torch's group norm reads X.contiguous(suggest_memory_format): row-major unless the input is channels-last
    def f(lib):
        x = _strided(lib, shape, layout).requires_grad_()
        w = lib.ones(6, dtype=x.dtype).requires_grad_()
        y = lib.nn.functional.group_norm(x, 3, w)
        c = lib.tensor(np.random.default_rng(1).standard_normal(shape))
        gx, gw = lib.autograd.grad(y, [x, w], lib.empty_like(y).copy_(c))
        return y.stride(), gx.stride(), gx.tolist()
    (ty, ts, tv), (ly, ls, lv) = _strides_both(f)
    assert (ly, ls) == (ty, ts)
    np.testing.assert_allclose(lv, tv, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize('op', ['gelu', 'gelu_tanh', 'logsigmoid'])
@pytest.mark.parametrize('layout', ['transposed', 'channels_last'])
@pytest.mark.parametrize('cot', ['row_major', 'like_output'])
def test_gelu_logsigmoid_layouts(op, layout, cot):
    # gelu_backward(grad, self): the gradient's layout first; log_sigmoid_forward allocates its result row-major
    def f(lib):
        x = _strided(lib, (2, 3, 4, 5), layout).requires_grad_()
        F = lib.nn.functional
        y = F.logsigmoid(x) if op == 'logsigmoid' else F.gelu(x, approximate='tanh' if op == 'gelu_tanh' else 'none')
        c = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        g, = lib.autograd.grad(y, x, lib.empty_like(y).copy_(c) if cot == 'like_output' else c)
        return y.stride(), g.stride(), g.tolist()
    (ty, ts, tv), (ly, ls, lv) = _strides_both(f)
    assert (ly, ls) == (ty, ts)
    np.testing.assert_allclose(lv, tv, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('layout', ['row_major', 'channels_last', 'transposed'])
def test_conv_transpose_gradient_layouts(nd, layout):
    # torch's transposed convolutions write input and weight gradients in the output's memory format (channels-last
    # for a channels-last 4-d input, else row-major); litnn's composite (w.mT @ cols) left the weight's transposed
    if layout == 'channels_last' and nd == 1: pytest.skip('no channels-last 3-d tensors')
    def f(lib):
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 4) + (5,) * nd))
        if layout == 'channels_last': x = x.contiguous(memory_format=lib.channels_last if nd == 2 else lib.channels_last_3d)
        if layout == 'transposed': x = x.mT.contiguous().mT
        x = x.requires_grad_()
        w = lib.tensor(np.random.default_rng(1).standard_normal((4, 3) + (2,) * nd)).requires_grad_()
        y = getattr(lib.nn.functional, f'conv_transpose{nd}d')(x, w, stride=2)
        c = lib.tensor(np.random.default_rng(2).standard_normal(tuple(y.shape)))
        gx, gw = lib.autograd.grad(y, [x, w], lib.empty_like(y).copy_(c))
        return y.stride(), gx.stride(), gw.stride(), gx.tolist(), gw.tolist()
    (*ts, tx, tw), (*ls, lx, lw) = _strides_both(f)
    assert ls == ts
    np.testing.assert_allclose(lx, tx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lw, tw, rtol=1e-10, atol=1e-12)


def test_conv_transpose_double_backward_through_the_layout_step():
    # the step that lays the gradients out is itself differentiable (create_graph)
    def f(lib):
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 4, 5, 5))).contiguous(memory_format=lib.channels_last).requires_grad_()
        w = lib.tensor(np.random.default_rng(1).standard_normal((4, 3, 2, 2))).requires_grad_()
        y = lib.nn.functional.conv_transpose2d(x, w)
        gx, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gw, = lib.autograd.grad(gx.sum(), w)
        return gx.stride(), gw.tolist()
    (ts, tv), (ls, lv) = _strides_both(f)
    assert ls == ts
    np.testing.assert_allclose(lv, tv, rtol=1e-10)


@pytest.mark.parametrize('op', ['avg_pool2d', 'max_pool2d', 'adaptive_avg_pool2d'])
@pytest.mark.parametrize('layout', ['row_major', 'channels_last'])
@pytest.mark.parametrize('cot', ['row_major', 'channels_last'])
def test_pooling_gradient_in_input_layout(op, layout, cot):
    # torch's pooling backward kernels write grad_input in the input's suggested memory format, whatever the
    # cotangent's layout
    def f(lib):
        x = lib.tensor(np.random.default_rng(0).standard_normal((2, 3, 4, 6)))
        x = (x.contiguous(memory_format=lib.channels_last) if layout == 'channels_last' else x).requires_grad_()
        y = getattr(lib.nn.functional, op)(x, 2)
        c = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        if cot == 'channels_last': c = c.contiguous(memory_format=lib.channels_last)
        g, = lib.autograd.grad(y, x, c)
        return y.stride(), g.stride(), g.tolist()
    (ty, ts, tv), (ly, ls, lv) = _strides_both(f)
    assert (ly, ls) == (ty, ts)
    np.testing.assert_allclose(lv, tv, rtol=1e-12, atol=1e-15)

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


# Strides of size-1 dims. torch gives a size-1 dim a stride by the rule that made the tensor, where numpy's own number
# is its convention: a fresh channels-last tensor has channels-last strides in every dim ((1, 3, 4, 5): (60, 1, 15, 3)),
# empty_like and clone (preserve_format) copy a dense input's strides exactly, and AccumulateGrad copies the leaf's.
def _size1_inputs(lib):
    T = lambda *s: lib.tensor(np.random.default_rng(sum(s)).standard_normal(s))
    cl = lib.channels_last
    return {'cl_n1': T(1, 3, 4, 5).contiguous(memory_format=cl), 'cl_w1': T(2, 3, 4, 1).contiguous(memory_format=cl),
            'cl3d_c1': T(2, 1, 2, 4, 5).contiguous(memory_format=lib.channels_last_3d),
            't_col': T(5, 1).t(), 'unsq_t': T(4, 3).t().unsqueeze(1), 'perm_1': T(3, 1, 5).permute(2, 0, 1),
            'perm4_1': T(2, 1, 4, 1).permute(3, 1, 0, 2)}


def _flags(lib, t):
    fmt = {4: [lib.channels_last], 5: [lib.channels_last_3d]}.get(t.dim(), [])
    return [t.is_contiguous()] + [t.is_contiguous(memory_format=f) for f in fmt]


@pytest.mark.parametrize('name', ['cl_n1', 'cl_w1'])
@pytest.mark.parametrize('op', ['relu', 'exp', 'mul2', 'add_self', 'sigmoid', 'pow2', 'to_f32'])
def test_fresh_channels_last_output_strides_of_size_1_dims(name, op):
    # TensorIterator allocates a channels-last output for a channels-last input with channels-last strides in every
    # dim; numpy's output has its own strides in the size-1 dims. The gradient (laid out like the output) follows
    f = {'relu': lambda x: x.relu(), 'exp': lambda x: x.exp(), 'mul2': lambda x: x * 2, 'add_self': lambda x: x + x,
         'sigmoid': lambda x: x.sigmoid(), 'pow2': lambda x: x ** 2, 'to_f32': lambda x: x.to(x.dtype)}[op]
    def run(lib):
        x = _size1_inputs(lib)[name].detach().requires_grad_()
        y = f(x)
        g0 = lib.empty_like(y).copy_(lib.ones(y.shape, dtype=y.dtype) * 0.5)
        gx, = lib.autograd.grad(y, x, g0)
        return y.stride(), _flags(lib, y), gx.stride(), _flags(lib, gx), y.tolist(), gx.tolist()
    t, l = _strides_both(run)
    assert l[:4] == t[:4]
    np.testing.assert_allclose(l[4], t[4], rtol=1e-6)
    np.testing.assert_allclose(l[5], t[5], rtol=1e-6)


@pytest.mark.parametrize('name', ['t_col', 'unsq_t', 'perm_1', 'perm4_1', 'cl_n1', 'cl_w1', 'cl3d_c1'])
@pytest.mark.parametrize('op', ['clone', 'empty_like', 'zeros_like'])
def test_preserve_format_copies_strides_of_size_1_dims(name, op):
    # clone and empty_like (preserve_format) of a dense tensor: empty_strided with its strides, size-1 dims included
    f = {'clone': lambda lib, x: x.clone(), 'empty_like': lambda lib, x: lib.empty_like(x), 'zeros_like': lambda lib, x: lib.zeros_like(x)}[op]
    def run(lib):
        x = _size1_inputs(lib)[name]
        y = f(lib, x)
        return x.stride(), y.stride(), _flags(lib, y), (y.tolist() if op != 'empty_like' else None)
    t, l = _strides_both(run)
    assert l == t


@pytest.mark.parametrize('name', ['t_col', 'unsq_t', 'perm_1', 'perm4_1', 'cl_n1', 'cl_w1'])
@pytest.mark.parametrize('op', ['clone', 'unsqueeze', 'transpose', 'add_rm', 'sum'])
def test_leaf_grad_strides_of_size_1_dims(name, op):
    # AccumulateGrad keeps a gradient laid out as the leaf (size-1 dims aside) where it may, else copies it into
    # empty_strided(leaf.size(), leaf.stride()): the leaf's strides exactly, size-1 dims included
    f = {'clone': lambda lib, x: x.clone(), 'unsqueeze': lambda lib, x: x.unsqueeze(0), 'transpose': lambda lib, x: x.transpose(0, 1),
         'add_rm': lambda lib, x: x + lib.ones(x.shape, dtype=x.dtype), 'sum': lambda lib, x: x.sum()}[op]
    def run(lib):
        x = _size1_inputs(lib)[name].detach().requires_grad_()
        y = f(lib, x)
        y.backward(lib.empty_like(y).copy_(lib.ones(y.shape, dtype=y.dtype) * 0.25))
        return x.stride(), x.grad.stride(), _flags(lib, x.grad), x.grad.tolist()
    t, l = _strides_both(run)
    assert l == t


@pytest.mark.parametrize('make', ['rm', 't', 't3'])
@pytest.mark.parametrize('dim', [0, 1])
@pytest.mark.parametrize('then', ['none', 'transpose', 'permute', 'exp_grad'])
def test_unsqueeze_stride_moves_with_its_dim(make, dim, then):
    # unsqueeze gives the new dim the stride size[d] * stride[d], a real stride that a later permute carries along and
    # TensorIterator sorts by; numpy's `None` gives 0, which litnn read as that stride only where it stayed
    def run(lib):
        T = lambda *s: lib.tensor(np.random.default_rng(3).standard_normal(s))
        x = {'rm': lambda: T(3, 4), 't': lambda: T(4, 3).t(), 't3': lambda: T(2, 4, 3).transpose(1, 2)}[make]().detach().requires_grad_()
        y = x.unsqueeze(dim)
        if then == 'transpose': y = y.transpose(0, 1)
        if then == 'permute': y = y.permute(*reversed(range(y.dim())))
        if then == 'exp_grad':
            e = y.exp()
            g, = lib.autograd.grad(e, x, lib.ones(e.shape, dtype=e.dtype))
            return (y.stride(), e.stride(), g.stride()), g.tolist()
        return (y.stride(), _flags(lib, y)), y.tolist()
    (ts, tv), (ls, lv) = _strides_both(run)
    assert ls == ts
    np.testing.assert_allclose(lv, tv, rtol=1e-12)


@pytest.mark.parametrize('make', ['t2', 'perm3', 'perm4', 'rm4', 'cl4'])
@pytest.mark.parametrize('weighted', [False, True])
def test_rms_norm_result_is_contiguous_unless_channels_last(make, weighted):
    # torch's rms_norm composite ends with result.contiguous() unless the input suggests channels-last: a transposed
    # input gives a row-major result (a CloneBackward0) and so row-major gradients
    def run(lib):
        T = lambda *s: lib.tensor(np.random.default_rng(5).standard_normal(s))
        x = {'t2': lambda: T(5, 4).t(), 'perm3': lambda: T(3, 4, 5).permute(2, 0, 1), 'perm4': lambda: T(2, 3, 4, 5).permute(0, 2, 3, 1),
             'rm4': lambda: T(2, 3, 4, 5), 'cl4': lambda: T(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)}[make]().detach().requires_grad_()
        w = lib.linspace(0.5, 1.5, x.shape[-1], dtype=x.dtype) if weighted else None
        y = lib.nn.functional.rms_norm(x, x.shape[-1:], w)
        g, = lib.autograd.grad(y, x, lib.ones(y.shape, dtype=y.dtype) * 0.5)
        return (y.stride(), g.stride(), y.grad_fn.name()), (y.tolist(), g.tolist())
    (ts, tv), (ls, lv) = _strides_both(run)
    assert ls == ts
    for a, b in zip(lv, tv): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('make', ['t2', 'cl4', 'perm3'])
@pytest.mark.parametrize('training', [False, True])
@pytest.mark.parametrize('cot', ['rm', 'like_input'])
def test_rrelu_result_is_row_major(make, training, cot):
    # torch's rrelu_with_noise writes its result (and noise) row-major whatever the input's layout; in training its
    # gradient is row-major too, in eval it is leaky_relu_backward's (laid out as the input)
    def run(lib):
        T = lambda *s: lib.tensor(np.random.default_rng(7).standard_normal(s))
        x = {'t2': lambda: T(5, 4).t(), 'cl4': lambda: T(2, 3, 4, 5).contiguous(memory_format=lib.channels_last),
             'perm3': lambda: T(3, 4, 5).permute(2, 0, 1)}[make]().detach().requires_grad_()
        y = lib.nn.functional.rrelu(x, 0.25, 0.25, training=training)    # (lower == upper: the same values in both)
        c = lib.ones(y.shape, dtype=y.dtype) * 0.5
        if cot == 'like_input': c = lib.empty_like(x).copy_(c)
        g, = lib.autograd.grad(y, x, c)
        return (y.stride(), g.stride(), y.grad_fn.name()), (y.tolist(), g.tolist())
    (ts, tv), (ls, lv) = _strides_both(run)
    assert ls == ts
    for a, b in zip(lv, tv): np.testing.assert_allclose(a, b, rtol=1e-12)

"""A channels-last input keeps its layout through torch's convolution, pooling, normalization, GELU, dropout and clone,
and a leaf's gradient takes the leaf's strides (torch's layout contract). Values are compared too (h7's leftovers)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

OPS = {
    'conv3x3': lambda L, x: L.nn.functional.conv2d(x, L.ones(4, 3, 3, 3) * 0.1, padding=1),
    'conv1x1': lambda L, x: L.nn.functional.conv2d(x, L.ones(8, 3, 1, 1) * 0.1),
    'max_pool': lambda L, x: L.nn.functional.max_pool2d(x, 2),
    'max_pool_indices': lambda L, x: L.nn.functional.max_pool2d(x, 2, return_indices=True)[1],
    'avg_pool': lambda L, x: L.nn.functional.avg_pool2d(x, 2),
    'batch_norm_train': lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    'batch_norm_eval': lambda L, x: L.nn.functional.batch_norm(x, L.zeros(3), L.ones(3), training=False),
    'gelu': lambda L, x: L.nn.functional.gelu(x),
    'relu': lambda L, x: x.relu(),
    'clone': lambda L, x: x.clone(),
    'clone_contiguous': lambda L, x: x.clone(memory_format=L.contiguous_format),
    'dropout_eval': lambda L, x: L.nn.functional.dropout(x, 0.5, training=False),
    'pad_constant': lambda L, x: L.nn.functional.pad(x, (1, 2, 0, 1)),
    'pad_reflect': lambda L, x: L.nn.functional.pad(x, (1, 2, 0, 1), mode='reflect'),
    'pad_replicate': lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode='replicate'),
    'adaptive_avg_pool': lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (4, 3)),
    'group_norm': lambda L, x: L.nn.functional.group_norm(x, 3),
    'adaptive_max_pool': lambda L, x: L.nn.functional.adaptive_max_pool2d(x, (4, 3)),
    'adaptive_max_pool_indices': lambda L, x: L.nn.functional.adaptive_max_pool2d(x, (4, 3), return_indices=True)[1],
    'conv_transpose': lambda L, x: L.nn.functional.conv_transpose2d(x, L.ones(3, 2, 3, 3) * 0.1, stride=2),
    'softmax_over_channels': lambda L, x: x.softmax(1),
    'log_softmax_last': lambda L, x: x.log_softmax(-1),
    'interpolate_nearest': lambda L, x: L.nn.functional.interpolate(x, scale_factor=2),
    'interpolate_bilinear': lambda L, x: L.nn.functional.interpolate(x, size=(5, 7), mode='bilinear', align_corners=False),
    # arithmetic with a row-major operand: the result is laid out as the first operand (TensorIterator)
    'add_row_major': lambda L, x: x + L.arange(216.).reshape(2, 3, 6, 6),
    'row_major_add': lambda L, x: L.arange(216.).reshape(2, 3, 6, 6) + x,
    'sub_row_major': lambda L, x: x - L.arange(216.).reshape(2, 3, 6, 6),
    'mul_row_major': lambda L, x: x * L.arange(216.).reshape(2, 3, 6, 6),
    'row_major_mul': lambda L, x: L.arange(216.).reshape(2, 3, 6, 6) * x,
    'div_row_major': lambda L, x: x / (L.arange(216.).reshape(2, 3, 6, 6) + 1),
    'add_broadcast_row_major': lambda L, x: x + L.arange(108.).reshape(1, 3, 6, 6),
    'broadcast_row_major_add': lambda L, x: L.arange(108.).reshape(1, 3, 6, 6) + x,
    'add_scaled_row_major': lambda L, x: x.add(L.arange(216.).reshape(2, 3, 6, 6), alpha=2),
    'add_bias': lambda L, x: x + L.arange(3.).reshape(1, 3, 1, 1),
    'add_row_major_requires_grad': lambda L, x: x.requires_grad_() + L.arange(216.).reshape(2, 3, 6, 6),
}

@pytest.mark.parametrize('name', OPS)
def test_channels_last_in_channels_last_out(name):
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    got = []
    for L in (torch, litnn):
        t = L.tensor(x).to(memory_format=L.channels_last)
        y = OPS[name](L, t)
        got.append((y.is_contiguous(memory_format=L.channels_last), y.is_contiguous(), y.detach().numpy()))
    assert got[0][:2] == got[1][:2]
    np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-5, atol=1e-5)


def test_dropout_in_training_keeps_the_layout():
    for L in (torch, litnn):
        t = L.randn(2, 3, 4, 4).to(memory_format=L.channels_last)
        assert L.nn.functional.dropout(t, 0.5).is_contiguous(memory_format=L.channels_last)


# strided slices of channels-last tensors, and others: torch's preserve_format follows suggest_memory_format for them
SLICES = {
    'cl_slice': lambda L: L.empty(2, 3, 3, 6, memory_format=L.channels_last)[..., ::2],
    'cl3d_slice': lambda L: L.empty(2, 3, 2, 3, 6, memory_format=L.channels_last_3d)[..., ::2],
    'row_major_slice': lambda L: L.empty(2, 3, 4, 6)[..., ::2],
    'permuted_slice': lambda L: L.empty(2, 6, 4, 3).permute(0, 3, 1, 2)[:, :, :, ::2],
    'transposed': lambda L: L.empty(4, 6).t(),
    # gaps in any rank: torch's empty_like keeps the order of the dims in memory (infer_dense_strides)
    'transposed_slice': lambda L: L.empty(10, 8).t()[::2, ::2],
    'permuted_3d_slice': lambda L: L.empty(6, 7, 8).permute(2, 0, 1)[1:, ::3, :],
    'sliced_then_transposed': lambda L: L.empty(3, 4, 5)[:, 1:3, ::2].transpose(0, 1),
}
LIKE = {
    'empty_like': lambda L, t: L.empty_like(t), 'zeros_like': lambda L, t: L.zeros_like(t),
    'randn_like': lambda L, t: L.randn_like(t), 'clone': lambda L, t: t.clone(),
    'dropout': lambda L, t: L.nn.functional.dropout(t.fill_(1.), 1e-10),
    'alpha_dropout': lambda L, t: L.nn.functional.alpha_dropout(t.fill_(1.), 0.3, True),
}

@pytest.mark.parametrize('like', LIKE)
@pytest.mark.parametrize('make', SLICES)
def test_preserve_format_of_strided_slices_like_torch(make, like):
    assert LIKE[like](litnn, SLICES[make](litnn)).stride() == LIKE[like](torch, SLICES[make](torch)).stride()


@pytest.mark.parametrize('make', [lambda L: L.ones(4, 6).t(), lambda L: L.ones(2, 3, 4, 5).to(memory_format=L.channels_last),
                                  lambda L: L.ones(2, 3, 3, 6).to(memory_format=L.channels_last)[..., ::2]])
@pytest.mark.parametrize('f', [lambda L, t: L.nn.functional.dropout(t, 0.5), lambda L, t: L.nn.functional.alpha_dropout(t, 0.5, True)])
def test_seeded_dropout_draws_its_mask_in_memory_order_like_torch(make, f):
    "torch's mask is empty_like(x).bernoulli_(): drawn in the mask's memory order, so a seeded dropout of a transposed or channels-last x drops the same elements in litnn."
    outs = []
    for L in (torch, litnn):
        L.manual_seed(0)
        y = f(L, make(L))
        outs.append((y.stride(), y.numpy()))
    assert outs[1][0] == outs[0][0]
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-6)


@pytest.mark.parametrize('make', [lambda L: L.randn(2, 3, 5, 5).to(memory_format=L.channels_last), lambda L: L.randn(4, 3).t(),
                                  lambda L: L.randn(3, 4), lambda L: L.randn(3, 4)[:, ::2]])
def test_a_leafs_gradient_takes_its_strides(make):
    strides = []
    for L in (torch, litnn):
        L.manual_seed(0)
        w = make(L).detach().requires_grad_()
        (w * 2).sum().backward()
        strides.append(w.grad.stride())
    assert strides[0] == strides[1]


def test_a_strided_slice_of_a_channels_last_tensor_counts_as_channels_last():
    "x[:, ::2] of a channels-last x: torch's kernels ask suggest_memory_format (strides like channels-last), not density."
    import litnn, numpy as np
    torch = pytest.importorskip('torch')
    a = np.arange(2 * 8 * 5 * 5, dtype='float32').reshape(2, 8, 5, 5) / 100
    def run(lib):
        F = lib.nn.functional
        x = lib.tensor(a).contiguous(memory_format=lib.channels_last)[:, ::2]
        w = lib.ones(3, 4, 3, 3) / 10
        outs = [F.relu(x), F.conv2d(x, w), F.batch_norm(x, None, None, training=True), F.group_norm(x, 2),
                F.interpolate(x, scale_factor=2), F.avg_pool2d(x, 2), F.max_pool2d(x, 2), x + 1, x.clone()]
        return [t.stride() for t in outs]
    assert run(litnn) == run(torch)


def test_a_layout_dense_in_both_formats_is_laid_out_as_asked_and_kept_as_torch():
    """A size-1 channel dim (or a 1x1 kernel) is dense in both layouts: .to(memory_format=channels_last) still lays it out
    channels-last (torch copies unless suggest_memory_format already says so), *_like keep that layout, and convolutions,
    pools and activations then go channels-last, as torch's; a channels-last weight makes a convolution's output channels-last."""
    res = {}
    for L in (litnn, torch):
        F, cl = L.nn.functional, L.channels_last
        L.manual_seed(0)
        x = L.randn(2, 1, 10, 10).to(memory_format=cl)          # ambiguous input, channels-last strides
        w = L.randn(8, 1, 3, 3)
        wc = L.randint_like(w.to(memory_format=cl), -3, 3)       # ambiguous weight; randint_like keeps its layout
        w11 = L.randn(6, 4, 1, 1).to(memory_format=cl)          # 1x1 kernel, channels-last
        y = L.randn(2, 4, 5, 5)
        res[L] = [F.conv2d(x, w).is_contiguous(memory_format=cl), F.conv2d(x, w).is_contiguous(),
                  F.conv2d(L.randn(2, 1, 10, 10), wc).is_contiguous(memory_format=cl),
                  F.conv2d(L.randn(2, 1, 10, 10), w).is_contiguous(),
                  F.conv2d(y, w11).is_contiguous(memory_format=cl), F.conv2d(y, w11).is_contiguous(),
                  F.conv2d(y, L.randn(6, 4, 1, 1)).is_contiguous(),
                  F.max_pool2d(F.conv2d(x, w), 2).is_contiguous(memory_format=cl),
                  F.relu(F.conv2d(x, w)).is_contiguous(memory_format=cl)]
    assert res[litnn] == res[torch]
    assert res[torch][:7] == [True, False, True, True, True, False, True]


# elementwise kernels (torch's TensorIterator) lay their result out as their first operand, channels-last or not
BINARY = {
    'atan2': lambda L, x, y: x.atan2(y), 'hypot': lambda L, x, y: x.hypot(y), 'lerp': lambda L, x, y: x.lerp(y, 0.5),
    'lerp_tensor_weight': lambda L, x, y: x.lerp(y, L.full_like(y, 0.25)), 'erfinv': lambda L, x, y: (x * 0.1).erfinv(),
    'erfc': lambda L, x, y: x.erfc(), 'eq': lambda L, x, y: x.eq(y), 'gt': lambda L, x, y: x > y,
    'pow': lambda L, x, y: x.abs().pow(y), 'clamp': lambda L, x, y: x.clamp(-y, y), 'float_power': lambda L, x, y: x.abs().float_power(y).float(),
    'where': lambda L, x, y: L.where(x > 0, x, y), 'fmax': lambda L, x, y: x.fmax(y), 'heaviside': lambda L, x, y: x.heaviside(y),
    'maximum': lambda L, x, y: L.maximum(x, y), 'minimum': lambda L, x, y: x.minimum(y), 'logical_and': lambda L, x, y: x.logical_and(y),
    'bitwise_xor': lambda L, x, y: (x * 10).int() ^ (y * 10).int(), 'xlogy': lambda L, x, y: x.xlogy(y), 'copysign': lambda L, x, y: x.copysign(y), 'fmod': lambda L, x, y: x.fmod(y),
}

@pytest.mark.parametrize('fmt', ['channels_last', 'channels_last_3d'])
@pytest.mark.parametrize('name', BINARY)
def test_elementwise_results_follow_a_channels_last_first_operand(name, fmt):
    def run(L):
        shape = (2, 3, 4, 5) if fmt == 'channels_last' else (2, 3, 4, 5, 2)
        g = np.random.default_rng(0)
        x = L.tensor(g.uniform(-1, 1, shape), dtype=L.float32).contiguous(memory_format=getattr(L, fmt))
        y = L.tensor(g.uniform(0.5, 2, shape), dtype=L.float32)
        return BINARY[name](L, x, y), BINARY[name](L, y, x)
    for a, b in zip(run(litnn), run(torch)):
        assert a.stride() == b.stride()
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)

@pytest.mark.parametrize('fn', ['byte', 'char', 'short', 'int', 'long', 'half', 'bfloat16', 'double', 'bool', 'float'])
@pytest.mark.parametrize('fmt', ['contiguous_format', 'preserve_format', 'channels_last', None])
def test_dtype_shortcuts_take_a_memory_format(fn, fmt):
    def run(L):
        x = L.arange(96.).reshape(2, 3, 4, 4).contiguous(memory_format=L.channels_last)
        if fn == 'float': x = x.double()
        r = getattr(x, fn)(**({} if fmt is None else dict(memory_format=getattr(L, fmt))))
        return r.stride(), str(r.dtype).split('.')[1]
    assert run(litnn) == run(torch)

@pytest.mark.parametrize('op', ['add', 'eq', 'exp', 'atan2'])
@pytest.mark.parametrize('perm', [(0, 2, 1), (1, 2, 0), (2, 1, 0)])
def test_an_empty_out_is_resized_to_the_layout_of_the_result(op, perm):
    def run(L):
        x = L.arange(24.).reshape(2, 3, 4).permute(perm)
        f = getattr(L, op)
        r = f(x) if op == 'exp' else f(x, x)
        o = f(x, out=L.empty(0, dtype=r.dtype)) if op == 'exp' else f(x, x, out=L.empty(0, dtype=r.dtype))
        return r.stride(), o.stride(), o.double().numpy()
    (rl, ol, vl), (rt, ot, vt) = run(litnn), run(torch)
    assert (rl, ol) == (rt, ot)
    np.testing.assert_allclose(vl, vt, rtol=1e-6)

@pytest.mark.parametrize('f', ['empty_like', 'zeros_like', 'ones_like', 'full_like', 'rand_like', 'randn_like', 'randint_like'])
def test_like_factories_of_a_sparse_tensor(f):
    "empty_like and zeros_like keep a sparse layout (empty, no values); the others have no sparse kernel (torch's NotImplementedError)"
    def run(L):
        s = L.tensor([[0., 2.], [3., 0.]]).to_sparse()
        args = (2.,) if f == 'full_like' else (5,) if f == 'randint_like' else ()
        r = getattr(L, f)(s, *args)
        return str(r.layout).split('.')[1], tuple(r.shape), r._nnz(), str(r.dtype).split('.')[1]
    if f in ('empty_like', 'zeros_like'): assert run(litnn) == run(torch)
    else:
        with pytest.raises(NotImplementedError) as te: run(torch)
        with pytest.raises(NotImplementedError) as le: run(litnn)
        assert str(le.value).split('.')[0] == str(te.value).split('.')[0]

@pytest.mark.parametrize('f', ['empty_like', 'zeros_like', 'ones_like', 'rand_like'])
def test_a_memory_format_for_a_sparse_tensor_is_refused(f):
    for mf in ('preserve_format', 'contiguous_format'):
        with pytest.raises(RuntimeError, match='memory format option is only supported by strided tensors'):
            getattr(litnn, f)(litnn.ones(2, 2).to_sparse(), memory_format=getattr(litnn, mf))
    x = litnn.ones(2, 3, 2, 2).contiguous(memory_format=litnn.channels_last)      # None: torch's default, which preserves
    assert getattr(litnn, f)(x, memory_format=None).stride() == getattr(torch, f)(torch.ones(2, 3, 2, 2).contiguous(memory_format=torch.channels_last), memory_format=None).stride()


# kernels whose torch result is laid out row-major, whatever the input's layout (a transposed matrix, channels-last):
# a `.view` after them must work as in torch (advanced indexing, scans, masked_fill, one_hot, renorm, roll's cat)
ROW_MAJOR = {
    'index_columns': lambda L, x: x[:, L.tensor([0, 2])],
    'index_select': lambda L, x: x.index_select(1, L.tensor([2, 0])),
    'index_rows_then_columns': lambda L, x: x[L.tensor([1, 0])][:, L.tensor([0, 2])],
    'repeat_interleave': lambda L, x: x.repeat_interleave(2, 1),
    'cumsum': lambda L, x: x.cumsum(1),
    'cumprod': lambda L, x: x.cumprod(0),
    'logcumsumexp': lambda L, x: x.logcumsumexp(1),
    'cummax_values': lambda L, x: x.cummax(1)[0],
    'cummin_indices': lambda L, x: x.cummin(0)[1],
    'masked_fill': lambda L, x: x.masked_fill(x > 0, 0.),
    'renorm': lambda L, x: x.renorm(2, 0, 1.),
    'roll': lambda L, x: x.roll(1, 1),
    'one_hot': lambda L, x: L.nn.functional.one_hot((x > 0).long(), 2),
}

@pytest.mark.parametrize('layout', ['transposed', 'channels_last'])
@pytest.mark.parametrize('name', sorted(ROW_MAJOR))
def test_results_torch_lays_out_row_major(name, layout):
    "Same strides as torch's result (so `.view(-1)` works, or fails, alike), same values."
    a = np.random.default_rng(3).standard_normal((2, 3, 4, 5) if layout == 'channels_last' else (4, 3)).astype(np.float32)
    res = []
    for L in (torch, litnn):
        x = L.tensor(a)
        x = x.contiguous(memory_format=L.channels_last) if layout == 'channels_last' else x.t()
        r = ROW_MAJOR[name](L, x)
        res.append((r.stride(), r.is_contiguous(), np.asarray(r.tolist())))
    assert res[1][:2] == res[0][:2]
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-5, atol=1e-6)


def test_remainder_keeps_a_channels_last_first_operand():
    "remainder is a TensorIterator op as add: a channels-last first operand gives a channels-last result, values as torch's."
    a = np.random.default_rng(5).standard_normal((2, 3, 4, 5)).astype(np.float32)
    res = []
    for L in (torch, litnn):
        x = L.tensor(a).contiguous(memory_format=L.channels_last)
        for r in (x.remainder(L.tensor(a[::-1].copy()) + 3), x.remainder(2.5), (x * 10).long().remainder(L.full((2, 3, 4, 5), 3))):
            res.append((r.stride(), np.asarray(r.tolist())))
    for (ts, tv), (ls, lv) in zip(res[:3], res[3:]):
        assert ls == ts; np.testing.assert_allclose(lv, tv, rtol=1e-6, atol=1e-6)


FIRST_OPERAND = {     # torch's TensorIterator lays a result out as its first operand when the operands' layouts differ
    'add': lambda L, a, b: a + b, 'mul': lambda L, a, b: a * b, 'sub': lambda L, a, b: a - b, 'div': lambda L, a, b: a / b,
    'pow': lambda L, a, b: a.abs().pow(b), 'maximum': lambda L, a, b: L.maximum(a, b), 'atan2': lambda L, a, b: L.atan2(a, b),
    'eq': lambda L, a, b: a == b, 'where': lambda L, a, b: L.where(a > 0, a, b), 'addcmul': lambda L, a, b: a.addcmul(b, b),
    'remainder': lambda L, a, b: a.remainder(b.abs() + 1), 'floor_divide': lambda L, a, b: a.floor_divide(b.abs() + 1),
    'trunc_div': lambda L, a, b: a.div(b.abs() + 1, rounding_mode='trunc'), 'isclose': lambda L, a, b: a.isclose(b * 0 + a),
}

@pytest.mark.parametrize('first', ['transposed', 'row_major', 'permuted_3d'])
@pytest.mark.parametrize('name', sorted(FIRST_OPERAND))
def test_binary_ops_follow_the_first_operands_layout(name, first):
    "A transposed matrix (or permuted 3-d tensor) with a row-major one, either first: torch's strides, and its values."
    rng = np.random.default_rng(7)
    a3, b3 = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 3, 4)).astype(np.float32)
    res = []
    for L in (torch, litnn):
        if first == 'permuted_3d': a, b = L.tensor(a3.transpose(2, 0, 1).copy()).permute(1, 2, 0), L.tensor(b3)
        else:
            t, c = L.tensor(a3[0].T.copy()).t(), L.tensor(b3[0])       # (3, 4) seen, column-major in memory
            a, b = (t, c) if first == 'transposed' else (c, t)
        r = FIRST_OPERAND[name](L, a, b)
        res.append((r.stride(), np.asarray(r.tolist())))
    assert res[1][0] == res[0][0]
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('case', [(1, 4, 3, (2, 1, 5, 6), 1), (3, 4, 1, (2, 3, 5, 6), 1), (4, 4, 3, (2, 4, 5, 6), 4),
                                  (3, 4, 3, (1, 3, 5, 6), 1), (3, 4, 3, (2, 3, 3, 3), 1), (3, 1, 3, (2, 3, 5, 6), 1)])
@pytest.mark.parametrize('weight_channels_last', [False, True])
@pytest.mark.parametrize('input_channels_last', [False, True])
def test_conv_gradient_layouts_as_torch(case, weight_channels_last, input_channels_last):
    """A convolution's input and weight gradients take the layout torch's kernel chose in the forward (channels-last when
    the input or the weight is), whatever the layout of the gradient that arrives (here `sum()`'s, expanded); a weight
    whose memory is the same in both layouts (1x1, one channel per group) gets its own strides; sizes-1 strides included"""
    C, O, k, shape, g = case
    got = []
    for L in (litnn, torch):
        L.manual_seed(0)
        m = L.nn.Conv2d(C, O, k, groups=g).double()
        if weight_channels_last: m = m.to(memory_format=L.channels_last)
        x = L.tensor(np.random.default_rng(0).standard_normal(shape))
        if input_channels_last: x = x.contiguous(memory_format=L.channels_last)
        x.requires_grad_()
        out = m(x)
        gx, gw, gb = L.autograd.grad(out.sum(), [x, m.weight, m.bias])
        got.append(([t.stride() for t in (out, gx, gw, gb)], [t.detach().numpy() for t in (out, gx, gw, gb)]))
    assert got[0][0] == got[1][0]
    for a, b in zip(got[0][1], got[1][1]): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

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

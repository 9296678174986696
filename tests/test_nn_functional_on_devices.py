"""The nn.functional additions of nbs/reference/nn/ (gumbel softmax, pooling with indices, channel shuffle, 3-d pooling), reference/nn/adaptive and reference/torch/nn_ops_aten_signatures on each device, against the CPU (the GPU case runs where CuPy and a GPU are)."""
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)


# --- every new function on each device, against the CPU (the GPU case runs where CuPy and a GPU are) --------------

DEVICES = ['cpu', pytest.param('cuda', marks=pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)"))]
ON_DEVICE = dict(
    gumbel_softmax_hard=(lambda x: LF.gumbel_softmax(x, 0.5, True), [(4, 5)]),
    leaky_relu_=(lambda x: LF.leaky_relu_(x * 1, 0.2), [(4, 5)]),
    relu_=(lambda x: LF.relu_(x * 1), [(4, 5)]),
    max_pool3d_with_indices=(lambda x: LF.max_pool3d_with_indices(x, 2)[0], [(1, 2, 4, 4, 4)]),
    adaptive_max_pool2d_with_indices=(lambda x: LF.adaptive_max_pool2d_with_indices(x, 3)[0], [(1, 2, 5, 7)]),
    upsample_bilinear=(lambda x: LF.upsample_bilinear(x, scale_factor=2), [(1, 2, 3, 4)]),
    channel_shuffle=(lambda x: LF.channel_shuffle(x, 3), [(2, 6, 4)]),
    lp_pool3d=(lambda x: LF.lp_pool3d(x.abs() + 0.1, 2, 2), [(1, 2, 4, 4, 4)]),
    max_unpool3d=(lambda x: LF.max_unpool3d(*LF.max_pool3d(x, 2, return_indices=True), 2), [(1, 2, 4, 4, 4)]),
    fractional_max_pool3d=(lambda x: LF.fractional_max_pool3d(x, 2, output_size=2, _random_samples=litnn.full((1, 2, 3), 0.3, dtype=x.dtype, device=x.device)),
                           [(1, 2, 5, 5, 5)]),
    convolution=(lambda x, w: litnn.convolution(x, w, None, [1], [1], [1], True, [0], 1), [(2, 3, 5), (3, 2, 3)]),
    kl_div=(lambda x, t: litnn.kl_div(x, t.abs(), 1), [(3, 4), (3, 4)]),
    native_layer_norm=(lambda x: litnn.native_layer_norm(x, [4], None, None, 1e-5)[0], [(3, 4)]),
    constant_pad_nd=(lambda x: litnn.constant_pad_nd(x, [1, 2], 0.5), [(3, 4)]),
)


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('name', list(ON_DEVICE))
def test_on_device_as_on_cpu(name, device, noise):
    f, shapes = ON_DEVICE[name]
    arrays = [rng.normal(size=s) for s in shapes]
    noise['e'] = rng.exponential(size=shapes[0])
    outs = []
    for dev in ('cpu', device):
        xs = [litnn.tensor(a, device=dev, requires_grad=True) for a in arrays]
        y = f(*xs)
        assert y.device.type == dev
        y.sum().backward()
        outs.append([y.detach().cpu().numpy()] + [x.grad.cpu().numpy() for x in xs])
    for c, d in zip(*outs): np.testing.assert_allclose(d, c, rtol=1e-12, atol=1e-12)

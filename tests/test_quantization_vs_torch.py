"""Quantization against torch 2.13 on the same inputs: quantized tensors (integers, reprs, readers, refusals), fake
quantization (values to the bit, the straight-through gradient), observers and FakeQuantize, and the eager workflows of
torch's dynamic and static quantization tutorials on small random models."""
import warnings
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')
pytestmark = pytest.mark.filterwarnings('ignore:.*quantized tensor creation functions:UserWarning',
                                        'ignore:.*torch.ao.quantization is deprecated:DeprecationWarning')

QDTYPES = ['quint8', 'qint8', 'qint32']


def both(a):
    "numpy array `a` as a litnn and a torch tensor."
    return litnn.tensor(a), torch.tensor(a)


def same_err(fl, ft):
    "Both calls raise the same exception type and message (litnn's names read as torch's)."
    with pytest.raises(Exception) as el: fl()
    with pytest.raises(Exception) as et: ft()
    assert type(el.value).__name__ == type(et.value).__name__
    assert str(el.value).replace('litnn', 'torch') == str(et.value)[:len(str(el.value))].replace('litnn', 'torch') or \
        str(el.value).replace('litnn', 'torch') == str(et.value)


def inputs(seed, n=257, ties=False):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    if ties: x = (rng.integers(-300, 300, n) / 2 * 0.1).astype(np.float32)   # halfway cases of scale 0.1
    return x


# ---- quantized tensors

@pytest.mark.parametrize('dt', QDTYPES)
@pytest.mark.parametrize('ties', [False, True])
@pytest.mark.parametrize('scale,zp', [(0.1, 0), (0.1, 10), (0.05, -3), (0.0123, 7), (1.0, 0), (0.3, 100)])
def test_quantize_per_tensor_bits(dt, ties, scale, zp):
    if dt == 'quint8' and zp < 0: zp = -zp
    x = inputs(hash((dt, scale, zp)) % 1000, ties=ties)
    l, t = both(x)
    ql, qt = litnn.quantize_per_tensor(l, scale, zp, getattr(litnn, dt)), torch.quantize_per_tensor(t, scale, zp, getattr(torch, dt))
    assert np.array_equal(ql.int_repr().numpy(), qt.int_repr().numpy())
    assert np.array_equal(ql.dequantize().numpy(), qt.dequantize().numpy())
    assert (ql.q_scale(), ql.q_zero_point(), repr(ql.qscheme())) == (qt.q_scale(), qt.q_zero_point(), repr(qt.qscheme()).replace('torch', 'litnn'))


@pytest.mark.parametrize('dt', ['quint8', 'qint8'])
@pytest.mark.parametrize('shape,axis', [((4, 5), 0), ((3, 4, 2), 1), ((2, 6), 1)])
def test_quantize_per_channel_bits(dt, shape, axis):
    rng = np.random.default_rng(sum(shape) + axis)
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    sc = rng.uniform(0.01, 0.2, shape[axis])
    zp = rng.integers(0 if dt == 'quint8' else -10, 10, shape[axis])
    l, t = both(x)
    ql = litnn.quantize_per_channel(l, litnn.tensor(sc), litnn.tensor(zp), axis, getattr(litnn, dt))
    qt = torch.quantize_per_channel(t, torch.tensor(sc), torch.tensor(zp), axis, getattr(torch, dt))
    assert np.array_equal(ql.int_repr().numpy(), qt.int_repr().numpy())
    assert np.array_equal(ql.dequantize().numpy(), qt.dequantize().numpy())
    assert np.array_equal(ql.q_per_channel_scales().numpy(), qt.q_per_channel_scales().numpy())
    assert np.array_equal(ql.q_per_channel_zero_points().numpy(), qt.q_per_channel_zero_points().numpy())
    assert ql.q_per_channel_axis() == qt.q_per_channel_axis()
    assert repr(ql).replace('litnn', 'torch') == repr(qt)


def test_reprs_and_attributes():
    x = np.array([[-1.0, 0.0, 0.26], [2.5, 100.0, -7.0]], np.float32)
    l, t = both(x)
    for f in [lambda L, v: L.quantize_per_tensor(v, 0.1, 10, L.quint8), lambda L, v: L.quantize_per_tensor(v, 0.5, 0, L.qint8),
              lambda L, v: L.quantize_per_tensor(v, L.tensor(0.1), L.tensor(3), L.qint32),
              lambda L, v: L.quantize_per_tensor_dynamic(v, L.quint8, False), lambda L, v: L.quantize_per_tensor_dynamic(v, L.qint8, True)]:
        ql, qt = f(litnn, l), f(torch, t)
        assert repr(ql).replace('litnn', 'torch') == repr(qt)
        assert (ql.is_quantized, repr(ql.dtype), ql.shape, ql.element_size()) == (qt.is_quantized, repr(qt.dtype).replace('torch', 'litnn'), tuple(qt.shape), qt.element_size())
        for g in [lambda q: q[1], lambda q: q[:, 1:], lambda q: q.t(), lambda q: q.reshape(3, 2), lambda q: q.flatten(),
                  lambda q: q.clone(), lambda q: q.detach(), lambda q: q.unsqueeze(0), lambda q: q.to('cpu'), lambda q: q.contiguous(),
                  lambda q: q.permute(1, 0), lambda q: q[0, 0]]:
            assert repr(g(ql)).replace('litnn', 'torch') == repr(g(qt))
        assert ql[0, 2].item() == qt[0, 2].item()
        assert str(ql.relu().int_repr().tolist()) == str(qt.relu().int_repr().tolist())
    ql, qt = litnn.quantize_per_tensor([l, l], litnn.tensor([0.1, 0.2]), litnn.tensor([0, 1]), litnn.qint8), \
        torch.quantize_per_tensor([t, t], torch.tensor([0.1, 0.2]), torch.tensor([0, 1]), torch.qint8)
    assert [repr(q).replace('litnn', 'torch') for q in ql] == [repr(q) for q in qt]
    assert [d.tolist() for d in litnn.dequantize(list(ql))] == [d.tolist() for d in torch.dequantize(list(qt))]
    assert [getattr(litnn, n).itemsize for n in QDTYPES + ['quint4x2']] == [getattr(torch, n).itemsize for n in QDTYPES + ['quint4x2']]
    assert [repr(getattr(litnn, n)) for n in ('per_tensor_affine', 'per_channel_affine', 'per_tensor_symmetric', 'per_channel_symmetric',
            'per_channel_affine_float_qparams')] == [repr(getattr(torch, n)).replace('torch', 'litnn') for n in ('per_tensor_affine',
            'per_channel_affine', 'per_tensor_symmetric', 'per_channel_symmetric', 'per_channel_affine_float_qparams')]


def test_refusals():
    x = np.array([[-1.0, 0.0, 0.26], [2.5, 100.0, -7.0]], np.float32)
    l, t = both(x)
    ql, qt = litnn.quantize_per_tensor(l, 0.1, 10, litnn.quint8), torch.quantize_per_tensor(t, 0.1, 10, torch.quint8)
    cl = litnn.quantize_per_channel(l, litnn.tensor([0.1, 0.2]), litnn.tensor([0, 1]), 0, litnn.qint8)
    ct = torch.quantize_per_channel(t, torch.tensor([0.1, 0.2]), torch.tensor([0, 1]), 0, torch.qint8)
    for f in [lambda L, q, c, v: L.quantize_per_tensor(v, 0.1, 0, L.float32), lambda L, q, c, v: L.quantize_per_tensor(v.double(), 0.1, 0, L.qint8),
              lambda L, q, c, v: L.quantize_per_tensor(v, 0.1, 300, L.qint8), lambda L, q, c, v: L.quantize_per_tensor(v, 0.1, -1, L.quint8),
              lambda L, q, c, v: q.q_per_channel_scales(), lambda L, q, c, v: c.q_scale(), lambda L, q, c, v: c.q_zero_point(),
              lambda L, q, c, v: q.float(), lambda L, q, c, v: q.numpy(), lambda L, q, c, v: q.tolist(),
              lambda L, q, c, v: v.int_repr(), lambda L, q, c, v: v.q_scale(), lambda L, q, c, v: q.requires_grad_(),
              lambda L, q, c, v: c.transpose(0, 1), lambda L, q, c, v: q.to(L.float32),
              lambda L, q, c, v: L.quantize_per_channel(v, L.tensor([0.1, 0.2, 0.3]), L.tensor([0, 1]), 0, L.qint8),
              lambda L, q, c, v: L.quantize_per_channel(v, L.tensor([0.1, 0.2]), L.tensor([0, 1]), 2, L.qint8),
              lambda L, q, c, v: L.quantize_per_channel(v, [0.1, 0.2], [0, 1], 0, L.qint8)]:
        same_err(lambda: f(litnn, ql, cl, l), lambda: f(torch, qt, ct, t))
    same_err(lambda: ql * 2, lambda: qt * 2)
    for f in [lambda q: q + q, lambda q: q.sum(), lambda q: q.exp()]:
        with pytest.raises(NotImplementedError, match="with arguments from the 'QuantizedCPU' backend"): f(ql)
        with pytest.raises(NotImplementedError, match="with arguments from the 'QuantizedCPU' backend"): f(qt)
    assert l.dequantize() is l and t.dequantize() is t


# ---- fake quantization

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('ties', [False, True])
@pytest.mark.parametrize('scale,zp,qmin,qmax', [(0.1, 0, -128, 127), (0.1, 10, 0, 255), (0.037, 3, 0, 15), (0.2, -5, -10, 10)])
@pytest.mark.parametrize('tensor_qparams', [False, True])
def test_fake_quantize_per_tensor(dtype, ties, scale, zp, qmin, qmax, tensor_qparams):
    x = inputs(qmax + zp, ties=ties).astype(dtype)
    x[:3] = [np.nan, np.inf, -np.inf] if not ties else x[:3]
    def run(L):
        v = L.tensor(x, requires_grad=True)
        s, z = (L.tensor(scale), L.tensor(zp, dtype=L.int32)) if tensor_qparams else (scale, zp)
        y = L.fake_quantize_per_tensor_affine(v, s, z, qmin, qmax)
        (y * L.arange(len(x), dtype=getattr(L, dtype))).sum().backward()
        return y.detach().numpy(), v.grad.numpy(), type(y.grad_fn).__name__
    (yl, gl, nl), (yt, gt, nt) = run(litnn), run(torch)
    assert np.array_equal(yl, yt, equal_nan=True) and yl.dtype == yt.dtype
    assert np.array_equal(gl, gt) and nl == nt


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('zp_dtype', ['int32', 'float32'])
@pytest.mark.parametrize('shape,axis', [((4, 33), 0), ((3, 4, 5), 1), ((6, 7), 1)])
def test_fake_quantize_per_channel(dtype, zp_dtype, shape, axis):
    rng = np.random.default_rng(len(shape) + axis)
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    x.flat[::5] = (rng.integers(-40, 40, x.size)[::5] / 2 * 0.1)
    sc = rng.choice([0.1, 0.05, 0.013], shape[axis]).astype(np.float32)
    zp = rng.integers(-3, 4, shape[axis]).astype(zp_dtype)
    def run(L):
        v = L.tensor(x, requires_grad=True)
        y = L.fake_quantize_per_channel_affine(v, L.tensor(sc), L.tensor(zp), axis, -16, 15)
        y.sum().backward()
        return y.detach().numpy(), v.grad.numpy(), type(y.grad_fn).__name__
    (yl, gl, nl), (yt, gt, nt) = run(litnn), run(torch)
    assert np.array_equal(yl, yt) and yl.dtype == yt.dtype
    assert np.array_equal(gl, gt) and nl == nt


def test_fake_quantize_refusals():
    l, t = both(np.ones((2, 3), np.float32))
    for f in [lambda L, v: L.fake_quantize_per_tensor_affine(v, 0.1, 300, 0, 255), lambda L, v: L.fake_quantize_per_tensor_affine(v, 0.1, 3, 10, 5),
              lambda L, v: L.fake_quantize_per_tensor_affine(v.int(), 0.1, 3, 0, 255),
              lambda L, v: L.fake_quantize_per_channel_affine(v, L.tensor([0.1, 0.2]), L.tensor([3, 4]), 0, 0, 255),
              lambda L, v: L.fake_quantize_per_channel_affine(v, L.tensor([0.1, 0.2]), L.tensor([3, 400], dtype=L.int32), 0, 0, 255)]:
        same_err(lambda: f(litnn, l), lambda: f(torch, t))

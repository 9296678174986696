"""42c_conv3d against torch 2.13: conv3d/conv_transpose3d and Conv3d/ConvTranspose3d (values, gradients, modules, errors)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
TOL = dict(float64=dict(rtol=1e-11, atol=1e-11), float32=dict(rtol=2e-4, atol=2e-4))
# (input shape, weight shape, bias, stride, padding, dilation, groups)
CONV = [((2, 3, 5, 6, 7), (4, 3, 2, 3, 2), True, 1, 0, 1, 1), ((1, 4, 6, 5, 6), (6, 2, 3, 2, 3), True, (2, 1, 2), (1, 0, 2), (1, 2, 1), 2),
        ((2, 2, 5, 5, 5), (3, 2, 2, 2, 2), False, 1, 'same', (2, 1, 1), 1), ((2, 5, 4, 6), (3, 2, 3, 3, 3), True, 2, 1, 1, 1),
        ((1, 2, 4, 5, 6), (2, 2, 4, 1, 3), True, 1, 'valid', 1, 1), ((2, 4, 7, 5, 4), (4, 1, 3, 3, 2), True, (3, 2, 1), 1, 1, 4)]

def _pair(shapes, dtype):
    return [rng.normal(size=s).astype(dtype) for s in shapes]

@pytest.mark.parametrize('case', CONV, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_conv3d_values_and_gradients(case, dtype):
    xs, ws, has_bias, s, p, d, g = case
    arrays = _pair([xs, ws, ws[:1]], dtype)
    ls = [litnn.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ly = litnn.nn.functional.conv3d(ls[0], ls[1], ls[2] if has_bias else None, s, p, d, g)
    ty = torch.nn.functional.conv3d(ts[0], ts[1], ts[2] if has_bias else None, s, p, d, g)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    gy = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(gy)); ty.backward(torch.tensor(gy))
    for l, t in zip(ls, ts):
        if t.grad is not None: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **TOL[dtype])

# (input shape, weight shape, bias, stride, padding, output_padding, groups, dilation)
TRANS = [((2, 3, 3, 4, 3), (3, 2, 2, 3, 2), True, 1, 0, 0, 1, 1), ((1, 4, 3, 3, 4), (4, 2, 3, 2, 3), True, (2, 1, 2), (1, 0, 1), (1, 0, 1), 2, 1),
         ((2, 2, 2, 3, 3), (2, 3, 2, 2, 3), False, 2, 0, 1, 1, (1, 2, 2)), ((2, 4, 3, 2), (2, 3, 3, 3, 3), True, 2, 1, 0, 1, 1),
         ((1, 4, 3, 3, 3), (4, 1, 3, 2, 2), True, (3, 2, 1), (2, 1, 0), (2, 0, 0), 4, (1, 1, 2))]

@pytest.mark.parametrize('case', TRANS, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_conv_transpose3d_values_and_gradients(case, dtype):
    xs, ws, has_bias, s, p, op, g, d = case
    arrays = _pair([xs, ws, (ws[1] * g,)], dtype)
    ls = [litnn.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ly = litnn.nn.functional.conv_transpose3d(ls[0], ls[1], ls[2] if has_bias else None, s, p, op, g, d)
    ty = torch.nn.functional.conv_transpose3d(ts[0], ts[1], ts[2] if has_bias else None, s, p, op, g, d)
    assert ly.shape == ty.shape
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    gy = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(gy)); ty.backward(torch.tensor(gy))
    for l, t in zip(ls, ts):
        if t.grad is not None: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **TOL[dtype])

def test_gradcheck_and_second_order():
    F = litnn.nn.functional
    x, w, b = (litnn.tensor(rng.normal(size=s), requires_grad=True) for s in [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)])
    assert litnn.autograd.gradcheck(lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1), (x, w, b))
    assert litnn.autograd.gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, output_padding=1), (x, w, b))
    assert litnn.autograd.gradgradcheck(lambda x, w: F.conv3d(x, w, padding=(1, 0, 1)), (x, w))
    assert litnn.autograd.gradgradcheck(lambda x, w: F.conv_transpose3d(x, w, stride=(2, 1, 1)), (x, w))

def test_modules_reprs_init_state_dict():
    for cls, args, kw in [('Conv3d', (2, 4, 3), {}), ('Conv3d', (2, 4, (3, 2, 1)), dict(padding='same', padding_mode='circular', bias=False)),
                          ('Conv3d', (4, 6, 2), dict(stride=2, dilation=(1, 2, 1), groups=2, padding=(1, 0, 1), padding_mode='reflect')),
                          ('ConvTranspose3d', (2, 4, 3), dict(stride=2, output_padding=1, groups=2)),
                          ('ConvTranspose3d', (3, 2, (2, 3, 1)), dict(dilation=2, padding=1, bias=False))]:
        torch.manual_seed(0); litnn.manual_seed(0)
        lm, tm = getattr(litnn.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
        assert repr(lm) == repr(tm)
        assert list(lm.state_dict()) == list(tm.state_dict())
        for k, v in tm.state_dict().items(): assert tuple(lm.state_dict()[k].shape) == tuple(v.shape)
        bound = 1 / np.sqrt(np.prod(tm.weight.shape[1:]))     # kaiming_uniform(a=√5): U(-1/√fan_in, 1/√fan_in)
        assert np.abs(lm.weight.detach().numpy()).max() <= bound
        lm.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        xs = (2, args[0], 5, 6, 5)
        a = rng.normal(size=xs).astype('float32')
        np.testing.assert_allclose(lm(litnn.tensor(a)).detach().numpy(), tm(torch.tensor(a)).detach().numpy(), rtol=1e-4, atol=1e-4)

def test_output_size():
    lm, tm = litnn.nn.ConvTranspose3d(2, 4, 3, stride=2), torch.nn.ConvTranspose3d(2, 4, 3, stride=2)
    assert tuple(lm(litnn.ones(1, 2, 3, 3, 3), output_size=[8, 7, 8]).shape) == tuple(tm(torch.ones(1, 2, 3, 3, 3), output_size=[8, 7, 8]).shape)

ERRORS = [lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 2, 4, 1, 1)),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 2, 1, 1)),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4), T.ones(3, 2, 1, 1, 1)),
          lambda F, T: F.conv3d(T.ones(2, 3, 4), T.ones(3, 2, 1, 1, 1)),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 2, 1, 1, 1), stride=(1, 2)),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 2, 1, 1, 1), padding='same', stride=2),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 1, 1, 1, 1)),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 2, 1, 1, 1), padding=-1),
          lambda F, T: F.conv3d(T.ones(1, 2, 3, 4, 5), T.ones(3, 2, 1, 1, 1), T.ones(2)),
          lambda F, T: F.conv_transpose3d(T.ones(1, 2, 3, 4, 5), T.ones(2, 3, 2, 2, 2), stride=2, output_padding=(2, 1, 1)),
          lambda F, T: F.conv_transpose3d(T.ones(1, 3, 3, 4, 5), T.ones(2, 3, 2, 2, 2)),
          lambda F, T: F.conv_transpose3d(T.ones(2, 3, 4), T.ones(2, 3, 2, 2, 2)),
          lambda F, T: F.conv_transpose3d(T.ones(1, 2, 3, 4, 5), T.ones(2, 3, 2, 2, 2), padding=-1),
          lambda F, T: F.conv_transpose3d(T.ones(1, 2, 1, 1, 1), T.ones(2, 3, 2, 2, 2), padding=3),
          lambda F, T: T.nn.ConvTranspose3d(2, 4, 3, stride=2)(T.ones(1, 2, 3, 3, 3), output_size=[9, 9]),
          lambda F, T: T.nn.ConvTranspose3d(2, 4, 3, stride=2)(T.ones(1, 2, 3, 3, 3), output_size=[9, 9, 13]),
          lambda F, T: T.nn.Conv3d(2, 4, 3, padding='same', stride=2), lambda F, T: T.nn.Conv3d(3, 4, 3, groups=2),
          lambda F, T: T.nn.ConvTranspose3d(2, 4, 3, padding_mode='reflect')]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors_as_torch(i):
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: ERRORS[i](lib.nn.functional, lib)
        msgs.append((e.type, str(e.value).split(' (for an input of')[0]))   # 42b_conv_transpose prints the input's size as a tuple (its own gap)
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('xs,kw', [((2, 4, 3, 4, 5), dict(padding=1)), ((2, 4, 3, 4, 5), dict(padding='same')),
                                   ((2, 4, 6, 6, 6), dict(padding=1, stride=2)), ((4, 3, 4, 5), dict(padding=1)),
                                   ((2, 4, 3, 4, 5), dict())])
@pytest.mark.parametrize('layout', ['contiguous', 'channels_last_3d'])
def test_conv3d_output_layout_matches_torch(xs, kw, layout):
    "Found by torch's module_db: conv3d returned a transposed (non-contiguous) view, so `.view(N, -1)` failed; torch's is row-major."
    # torch's channels_last_3d kernel is mkldnn's (float32); float64 there falls back to a row-major one
    dt = 'float32' if layout == 'channels_last_3d' else 'float64'
    a, w = rng.normal(size=xs).astype(dt), rng.normal(size=(5, 4, 3, 3, 3)).astype(dt)
    def go(lib):
        x = lib.tensor(a)
        if layout != 'contiguous' and x.dim() == 5: x = x.contiguous(memory_format=lib.channels_last_3d)
        y = lib.nn.functional.conv3d(x, lib.tensor(w), lib.tensor(np.arange(5.).astype(dt)), **kw)
        return y, y.stride()
    (ly, ls), (ty, ts) = go(litnn), go(torch)
    assert ls == ts
    np.testing.assert_allclose(ly.numpy(), ty.numpy(), **TOL[dt])
    if ty.is_contiguous(): assert ly.view(-1).shape == ty.view(-1).shape

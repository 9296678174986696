"""reference/nn/upsampling against torch 2.13: F.interpolate in every mode and option, Upsample modules, pixel (un)shuffle, errors."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
CASES = [('nearest', (1, 2, 5), dict(size=9)), ('nearest', (1, 2, 5), dict(scale_factor=1.7)), ('nearest', (2, 2, 4, 5), dict(size=(7, 3))),
         ('nearest', (2, 2, 4, 5), dict(scale_factor=(2, 0.6))), ('nearest', (1, 1, 3, 4, 5), dict(scale_factor=1.5)),
         ('nearest-exact', (2, 2, 4, 5), dict(size=(7, 3))), ('nearest-exact', (1, 2, 5), dict(scale_factor=0.5)),
         ('linear', (1, 2, 5), dict(size=9)), ('linear', (1, 2, 5), dict(size=3, align_corners=True)),
         ('linear', (1, 2, 5), dict(scale_factor=2.5)), ('linear', (1, 2, 5), dict(scale_factor=2.5, recompute_scale_factor=True)),
         ('bilinear', (2, 3, 4, 5), dict(size=(8, 3))), ('bilinear', (2, 3, 4, 5), dict(size=(8, 3), align_corners=True)),
         ('bilinear', (2, 3, 4, 5), dict(scale_factor=(1.5, 2.0))), ('bilinear', (1, 1, 1, 5), dict(size=(3, 1), align_corners=True)),
         ('bicubic', (2, 2, 5, 6), dict(size=(9, 4))), ('bicubic', (2, 2, 5, 6), dict(scale_factor=2, align_corners=True)),
         ('bicubic', (1, 1, 4, 4), dict(scale_factor=0.75)),
         ('trilinear', (1, 2, 3, 4, 5), dict(size=(5, 3, 7))), ('trilinear', (1, 2, 3, 4, 5), dict(scale_factor=2, align_corners=True)),
         ('bilinear', (2, 2, 9, 13), dict(size=(4, 5), antialias=True)), ('bilinear', (1, 2, 5, 6), dict(size=(9, 3), antialias=True)),
         ('bicubic', (2, 2, 9, 13), dict(size=(4, 5), antialias=True)), ('bicubic', (1, 1, 8, 8), dict(scale_factor=0.3, antialias=True)),
         ('bilinear', (1, 1, 9, 7), dict(size=(4, 3), antialias=True, align_corners=True)),
         ('lanczos', (2, 2, 11, 9), dict(size=(4, 5), antialias=True)), ('lanczos', (1, 1, 4, 5), dict(size=(9, 12), antialias=True)),
         ('area', (2, 2, 7, 5), dict(size=(3, 4))), ('area', (1, 2, 9), dict(scale_factor=0.5)), ('area', (1, 1, 2, 3, 8), dict(size=(1, 2, 3)))]

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('mode,shape,kw', CASES, ids=lambda v: str(v))
def test_interpolate(mode, shape, kw, dtype):
    a = rng.normal(size=shape).astype(dtype)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly = litnn.nn.functional.interpolate(lx, mode=mode, **kw); ty = torch.nn.functional.interpolate(tx, mode=mode, **kw)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-12)
    assert tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)

def test_gradcheck():
    x = litnn.tensor(rng.normal(size=(1, 1, 3, 4)), requires_grad=True)
    assert litnn.autograd.gradcheck(lambda t: litnn.nn.functional.interpolate(t, size=(5, 2), mode='bicubic'), (x,))

ERRORS = [lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), scale_factor=2, mode='linear'),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2), scale_factor=2, mode='bilinear'),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2), scale_factor=2, mode='bicubic'),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), size=(2, 2, 2)),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), scale_factor=(2, 2, 2)),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), size=2, scale_factor=2),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2)),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), size=3, align_corners=True),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 2, 2), size=3, mode='bilinear', recompute_scale_factor=True),
          lambda lib: lib.nn.functional.interpolate(lib.ones(2, 2), size=3),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), size=3, mode='lanczos'),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4, 4), size=3, mode='lanczos', antialias=True, align_corners=True),
          lambda lib: lib.nn.functional.interpolate(lib.ones(1, 1, 4), size=3, mode='linear', antialias=True),
          lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(1, 5, 2, 2), 2),
          lambda lib: lib.nn.functional.pixel_shuffle(lib.ones(5, 2), 2),
          lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(1, 1, 3, 4), 2),
          lambda lib: lib.nn.functional.pixel_unshuffle(lib.ones(1, 1, 4, 3), 2)]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value) == str(t.value)

MODULES = [('Upsample', dict(scale_factor=2)), ('Upsample', dict(size=(5, 3), mode='bilinear')),
           ('Upsample', dict(scale_factor=(2, 1.5), mode='bicubic', align_corners=True)), ('UpsamplingNearest2d', dict(scale_factor=3)),
           ('UpsamplingBilinear2d', dict(size=(6, 7)))]

@pytest.mark.parametrize('name,kw', MODULES, ids=lambda v: str(v))
def test_modules(name, kw):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        lm, tm = getattr(litnn.nn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(lm) == repr(tm)
        a = rng.normal(size=(2, 3, 4, 5))
        np.testing.assert_allclose(lm(litnn.tensor(a)).numpy(), tm(torch.tensor(a)).numpy(), rtol=1e-10, atol=1e-12)

@pytest.mark.parametrize('shape,r', [((1, 8, 3, 2), 2), ((2, 3, 18, 2, 4), 3), ((9, 2, 2), 3)])
def test_pixel_shuffle(shape, r):
    a = rng.normal(size=shape)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = litnn.nn.functional.pixel_shuffle(lx, r), torch.nn.functional.pixel_shuffle(tx, r)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(litnn.nn.functional.pixel_unshuffle(ly, r).detach().numpy(), a)
    (ly * ly).sum().backward(); (ty * ty).sum().backward()
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())
    assert repr(litnn.nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))
    assert repr(litnn.nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))

@pytest.mark.parametrize('fmt,shape,r', [('channels_last', (3, 18, 4, 4), 3), ('channels_last_3d', (2, 3, 8, 2, 2), 2),
                                         ('contiguous_format', (3, 18, 4, 4), 3)])
def test_pixel_shuffle_keeps_memory_format(fmt, shape, r):
    "torch's CPU kernels write their output in the input's suggested memory format (test_nn's test_pixel_shuffle_nhwc_cpu)"
    "and refuse a channels_last_3d input."
    a = rng.normal(size=shape)
    lx = litnn.tensor(a).contiguous(memory_format=getattr(litnn, fmt))
    tx = torch.tensor(a).contiguous(memory_format=getattr(torch, fmt))
    for f in ('pixel_shuffle', 'pixel_unshuffle'):   # shuffled, then back
        if fmt == 'channels_last_3d':
            same_error(lambda lib: getattr(lib.nn.functional, f)(lx if lib is litnn else tx, r))
            continue
        lx, tx = getattr(litnn.nn.functional, f)(lx, r), getattr(torch.nn.functional, f)(tx, r)
        assert lx.stride() == tx.stride(), f
        np.testing.assert_array_equal(lx.numpy(), tx.numpy())

@pytest.mark.parametrize('mode,shape', [('nearest', (1, 0, 2, 2)), ('nearest-exact', (0, 0, 2, 2)), ('bilinear', (2, 0, 2, 2)),
                                        ('bicubic', (1, 0, 2, 2)), ('linear', (1, 0, 2)), ('trilinear', (1, 0, 2, 2, 2))])
def test_no_channels_refused_but_area(mode, shape):
    "torch's resampling kernels refuse an input with no channels (even in an empty batch); 'area' pools it to no channels."
    f = lambda lib: lib.nn.functional.interpolate(lib.ones(*shape), scale_factor=2, mode=mode)
    assert same_error(f) is RuntimeError
    with pytest.raises(RuntimeError) as t: f(torch)
    with pytest.raises(RuntimeError) as l: f(litnn)
    assert str(l.value) == str(t.value)
    if len(shape) < 5:      # (5-d 'area' is torch's adaptive_avg_pool3d, which refuses no channels too)
        area = lambda lib: tuple(lib.nn.functional.interpolate(lib.ones(*shape), scale_factor=2, mode='area').shape)
        assert area(litnn) == area(torch)


@pytest.mark.parametrize('mode, shape, kw', [('nearest', (1, 2, 4, 4), {}), ('nearest-exact', (1, 2, 5), {}),
                                             ('linear', (1, 2, 5), dict(align_corners=False)),
                                             ('bilinear', (1, 2, 4, 4), dict(align_corners=True)),
                                             ('bicubic', (1, 2, 4, 4), dict(align_corners=False)),
                                             ('bilinear', (1, 2, 8, 8), dict(antialias=True, align_corners=False)),
                                             ('trilinear', (1, 2, 3, 4, 4), dict(align_corners=False))])
def test_second_backward_without_retain_graph(mode, shape, kw):
    "torch's upsample kernels save no tensor for backward: a second backward through interpolate works, adding the same gradient."
    x0 = rng.normal(size=shape)
    grads = []
    for lib in (torch, litnn):
        x = lib.tensor(x0, requires_grad=True)
        if len(shape) == 5: x = x.contiguous(memory_format=lib.channels_last_3d).detach().requires_grad_()
        y = lib.nn.functional.interpolate(x, scale_factor=2 if mode != 'bilinear' or not kw.get('antialias') else 0.5, mode=mode, **kw)
        g = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)) % 7)
        y.backward(g)
        y.backward(g)
        grads.append(x.grad.detach().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('scale', [-1e20, 1e20])
def test_interpolate_output_size_overflow(scale):
    "A scale whose output size does not fit int64: torch's RuntimeError (test_nn's test_interpolate_undefined_behavior_casting)."
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.interpolate(lib.ones(1, 1, 16, 16), scale_factor=scale, mode='bilinear')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_area_second_backward_refused_as_torchs():
    "'area' mode is adaptive_avg_pool in torch, which keeps its input: a second backward without retain_graph fails there."
    for lib in (torch, litnn):
        x = lib.ones(1, 2, 4, 4, dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.interpolate(x, size=(2, 3), mode='area')
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.sum().backward()


@pytest.mark.parametrize('size', [(1.0,), (2.5,), 'float tensor'])
def test_interpolate_non_integer_size_refused(size):
    "torch's F.interpolate checks each size with _is_integer: a TypeError naming the types (test_nn's test_interpolate)."
    msgs = []
    for lib in (torch, litnn):
        s = (lib.tensor(1.),) if size == 'float tensor' else size
        with pytest.raises(TypeError) as e:
            lib.nn.functional.interpolate(lib.ones(1, 1, 2), size=s, mode='nearest')
        msgs.append(str(e.value).split(', but got')[0])
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('mode', ['nearest', 'nearest-exact', 'bilinear', 'bicubic'])
def test_half_precision_is_resampled_in_float32_and_rounded_once_as_torch(mode, dtype):
    """torch's upsampling kernels accumulate half precision in float32 and round once (forward and backward): not a
    rounding after each dim's product. The output equals torch's exactly; nearest's gradient (sums of 4 bf16 values)
    too, and the smooth modes' within a bf16/fp16 ulp of a few elements."""
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((2, 3, 11, 7)).astype(np.float32), rng.standard_normal((2, 3, 22, 14)).astype(np.float32)
    out = []
    for L in (torch, litnn):
        d = getattr(L, dtype)
        xt = L.tensor(x).to(d).requires_grad_()
        kw = {} if mode.startswith('nearest') else {'align_corners': False}
        y = L.nn.functional.interpolate(xt, scale_factor=2, mode=mode, **kw)
        y.backward(L.tensor(g).to(d))
        out.append((y.detach().float().numpy(), xt.grad.float().numpy()))
    (ty, tg), (ly, lg) = out
    np.testing.assert_array_equal(ly, ty)
    if mode.startswith('nearest'): np.testing.assert_allclose(lg, tg, rtol=1e-2 if dtype == 'float16' else 0, atol=0)
    else: np.testing.assert_allclose(lg, tg, rtol=1e-2, atol=1e-2)


# Where torch's kernels' own arithmetic decides results (a random sweep found each): nearest picks floorf(i * scale) in
# float32 whatever the input, with the 2-d kernel's shortcuts for an unchanged and a doubled size; the linear modes copy
# a dimension whose size does not change, even when a scale factor says otherwise; float32 source positions near 400
# carry float32's rounding (torch computes them in float32 with a fused multiply-add), which moves bilinear outputs by
# about 1e-4; antialiased weights are float32 too.
ARITHMETIC_CASES = [
    ('nearest', (1, 1, 58), dict(size=108)), ('nearest', (1, 1, 99), dict(size=135)), ('nearest', (1, 2, 24, 36), dict(scale_factor=(2.0091574435778314, 0.7363798612827808))),
    ('nearest', (1, 1, 7, 9), dict(scale_factor=(1.1, 1.5))), ('nearest', (1, 1, 4, 5, 6), dict(scale_factor=(1.1, 1.5, 2.0))),
    ('nearest-exact', (1, 1, 30), dict(size=55)), ('nearest-exact', (1, 1, 72), dict(size=70)),
    ('linear', (1, 1, 5), dict(scale_factor=1.0601575691585552)), ('linear', (1, 1, 50), dict(size=52)),
    ('bilinear', (1, 1, 4, 5), dict(scale_factor=(1.1, 1.5))), ('bilinear', (1, 3, 345, 456), dict(size=(270, 270))),
    ('bilinear', (1, 3, 345, 456), dict(size=(270, 270), antialias=True)), ('trilinear', (1, 1, 3, 4, 5), dict(scale_factor=(1.2, 1.2, 1.5))),
    ('bicubic', (1, 1, 40, 50), dict(size=(33, 77))), ('bicubic', (1, 1, 40, 50), dict(size=(23, 17), antialias=True))]

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('mode,shape,kw', ARITHMETIC_CASES, ids=lambda v: str(v))
def test_interpolate_in_torchs_arithmetic(mode, shape, kw, dtype):
    a = (np.random.default_rng(sum(shape)).normal(size=shape) * 10).astype(dtype)     # (its own data: the same whatever ran before)
    ly = litnn.nn.functional.interpolate(litnn.tensor(a), mode=mode, **kw).numpy()
    ty = torch.nn.functional.interpolate(torch.tensor(a), mode=mode, **kw).numpy()
    if mode.startswith('nearest'): np.testing.assert_array_equal(ly, ty)      # the same pixels
    else:     # (bicubic's float32 weights are rounded where torch's fused kernel is not: within 3 units of the last place)
        atol = (5e-5 if mode == 'bicubic' else 1e-5) if dtype == 'float32' else 1e-12
        np.testing.assert_allclose(ly, ty, rtol=1.3e-6 if dtype == 'float32' else 1e-12, atol=atol)

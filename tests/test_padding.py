"""reference/nn/padding against torch 2.13: F.pad in every mode and the padding modules (values, gradients, reprs, errors)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
CASES = [((5,), (2, 1), 'constant'), ((2, 5), (-1, 2), 'constant'), ((2, 3, 4, 5), (1, 2, 0, 3), 'constant'),
         ((2, 3, 4), (1, 1, 1, 1, 1, 1), 'constant'), ((2, 5), (2, 3), 'reflect'), ((2, 3, 5), (4, 1), 'reflect'),
         ((3, 4, 5), (1, 2, 3, 0), 'reflect'), ((2, 3, 4, 5), (1, 2, 3, 0), 'reflect'), ((2, 3, 4, 5, 6), (1, 2, 3, 0, 2, 1), 'reflect'),
         ((2, 5), (3, 3), 'replicate'), ((2, 3, 4, 5), (2, 1, 0, 3), 'replicate'), ((1, 2, 3, 4, 5), (1, 1, 2, 2, 3, 3), 'replicate'),
         ((2, 5), (2, 5), 'circular'), ((2, 3, 4, 5), (1, 2, 3, 4), 'circular'), ((2, 2, 3, 4, 5), (1, 0, 2, 1, 0, 3), 'circular')]

@pytest.mark.parametrize('shape,pad,mode', CASES, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_pad_values_and_gradients(shape, pad, mode, dtype):
    a = rng.normal(size=shape).astype(dtype)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = litnn.nn.functional.pad(lx, pad, mode), torch.nn.functional.pad(tx, pad, mode)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    g = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-13, atol=1e-15)   # sums in another order
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__

def test_constant_value_and_second_order():
    a = rng.normal(size=(2, 3))
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = litnn.nn.functional.pad(lx, (1, 2), value=3.5), torch.nn.functional.pad(tx, (1, 2), value=3.5)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    (lg,) = litnn.autograd.grad((ly * ly).sum(), lx, create_graph=True)
    (tg,) = torch.autograd.grad((ty * ty).sum(), tx, create_graph=True)
    (lh,) = litnn.autograd.grad(lg.sum(), lx); (th,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(lh.numpy(), th.numpy())

def test_gradcheck():
    for mode, pad, shape in [('constant', (1, -1), (2, 4)), ('reflect', (2, 1), (2, 4)), ('replicate', (1, 2, 2, 1), (1, 3, 3)),
                             ('circular', (3, 1), (1, 4))]:
        x = litnn.tensor(rng.normal(size=shape), requires_grad=True)
        assert litnn.autograd.gradcheck(lambda t: litnn.nn.functional.pad(t, pad, mode), (x,))

ERRORS = [((1, 2, 4, 4), (1,), 'constant', None), ((1, 2, 4, 4), (1, 1) * 5, 'constant', None),
          ((1, 2, 4, 4), (1, 1, 1, 1), 'reflect', 2.), ((4,), (1, 1), 'reflect', None), ((4, 4), (1,) * 6, 'reflect', None),
          ((1, 2, 4, 4), (5, 5, 1, 1), 'reflect', None), ((1, 2, 4, 4), (1, 1), 'bogus', None),
          ((1, 2, 4, 4), (5, 5, 1, 1), 'circular', None), ((1, 2, 4, 4), (-5, -5), 'constant', None),
          ((4,), (1, 1), 'replicate', None), ((1, 2, 4, 4), (1, 1), 'reflect', None)]

@pytest.mark.parametrize('shape,pad,mode,value', ERRORS, ids=lambda v: str(v))
def test_errors_match_torch(shape, pad, mode, value):
    def f(lib): lib.nn.functional.pad(lib.ones(*shape), pad, mode, value)
    kind = same_error(f)
    with pytest.raises(kind) as e: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value).splitlines()[0] == str(e.value).splitlines()[0]

def test_float_pad_is_a_type_error():
    same_error(lambda lib: lib.nn.functional.pad(lib.ones(2, 2), (1.5, 1)))

# ViLT pads its position embeddings by `(0, max_w - w)` with tensor sizes: torch's parser reads integer tensors of one
# element (and NumPy ints) as ints; floats, None and whole tensors are TypeErrors worded by the element's position
PAD_ARGS = [lambda L: (0, L.tensor(1)), lambda L: (L.tensor(2), L.tensor([1]), 0, L.tensor(1, dtype=L.uint8)),
            lambda L: (np.int32(1), np.int64(2)), lambda L: [1, 1], lambda L: L.Size([1, 0]), lambda L: (0, 1.5),
            lambda L: (0, L.tensor(1.5)), lambda L: (L.tensor(1.5), 0), lambda L: (0, L.tensor([1, 2])), lambda L: (0, None),
            lambda L: (0, np.float64(1.0)), lambda L: L.tensor([1, 1]), lambda L: 3, lambda L: (1, True)]

@pytest.mark.parametrize('i', range(len(PAD_ARGS)))
@pytest.mark.parametrize('mode', ['constant', 'reflect'])
def test_pad_argument_parsed_as_torch(i, mode):
    def f(lib):
        x = lib.arange(18.).reshape(1, 2, 3, 3).requires_grad_()
        y = lib.nn.functional.pad(x, PAD_ARGS[i](lib), mode=mode)
        y.pow(2).sum().backward()
        return y, x.grad
    try: want = f(torch)
    except Exception as e:
        with pytest.raises(type(e)) as l: f(litnn)
        assert str(l.value).splitlines()[0] == str(e).splitlines()[0]
        return
    got = f(litnn)
    for a, b in zip(want, got): np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())

MODULES = [('ConstantPad1d', (2, 3.5)), ('ConstantPad2d', ((1, 0, 2, 1), -1.)), ('ConstantPad3d', (1, 0.)),
           ('ZeroPad1d', ((1, 2),)), ('ZeroPad2d', (1,)), ('ZeroPad3d', ((1, 0, 0, 1, 1, 0),)),
           ('ReflectionPad1d', (2,)), ('ReflectionPad2d', ((1, 0, 2, 1),)), ('ReflectionPad3d', (1,)),
           ('ReplicationPad1d', ((3, 1),)), ('ReplicationPad2d', (2,)), ('ReplicationPad3d', (1,)),
           ('CircularPad1d', (2,)), ('CircularPad2d', ((1, 2, 0, 1),)), ('CircularPad3d', (1,))]

@pytest.mark.parametrize('name,args', MODULES, ids=lambda v: str(v))
def test_modules(name, args):
    lm, tm = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(lm) == repr(tm) and lm.padding == tm.padding
    n = int(name[-2])
    a = rng.normal(size=(2, 3) + (4,) * n)
    np.testing.assert_array_equal(lm(litnn.tensor(a)).numpy(), tm(torch.tensor(a)).numpy())


@pytest.mark.parametrize('mode', ['constant', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('nd', [4, 5])
def test_channels_last_input_layout_as_torch(mode, nd):
    "Found by torch's module_db (CircularPad3d, channels_last_3d): circular padding writes a row-major tensor; the others keep channels-last."
    a = rng.normal(size=(2, 3, 4, 4, 4)[:nd])
    res = []
    for lib in (litnn, torch):
        fmt = lib.channels_last if nd == 4 else lib.channels_last_3d
        y = lib.nn.functional.pad(lib.tensor(a).contiguous(memory_format=fmt), (1,) * (2 * (nd - 2)), mode=mode)
        res.append((y.is_contiguous(), y.is_contiguous(memory_format=fmt), y.stride(), y.numpy().copy()))
    assert res[0][:3] == res[1][:3]
    np.testing.assert_array_equal(res[0][3], res[1][3])

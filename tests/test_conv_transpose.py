"""42b_conv_transpose against torch 2.13: values and gradients of conv_transpose1d/2d for every option, modules, errors."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
CASES2 = [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2)),
          dict(dilation=2, padding=2), dict(groups=2), dict(stride=3, dilation=(1, 2), output_padding=(2, 1), groups=2, padding=1)]

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('kw', CASES2, ids=str)
@pytest.mark.parametrize('bias', [True, False])
def test_conv_transpose2d(kw, bias, dtype):
    x, w, b = rng.normal(size=(2, 4, 5, 6)), rng.normal(size=(4, 3, 3, 2)), rng.normal(size=3 * kw.get('groups', 1))
    arrays = [x, w] + ([b] if bias else [])
    lt = [litnn.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    tt = [torch.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    ly = litnn.nn.functional.conv_transpose2d(*lt, **kw); ty = torch.nn.functional.conv_transpose2d(*tt, **kw)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t in zip(lt, tt): np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **tol)

@pytest.mark.parametrize('kw', [dict(), dict(stride=2, padding=1, output_padding=1), dict(dilation=3, groups=2)], ids=str)
def test_conv_transpose1d_and_unbatched(kw):
    x, w = rng.normal(size=(2, 4, 7)), rng.normal(size=(4, 2, 3))
    for xa in (x, x[0]):
        lx, lw = litnn.tensor(xa, requires_grad=True), litnn.tensor(w, requires_grad=True)
        tx, tw = torch.tensor(xa, requires_grad=True), torch.tensor(w, requires_grad=True)
        ly, ty = litnn.nn.functional.conv_transpose1d(lx, lw, **kw), torch.nn.functional.conv_transpose1d(tx, tw, **kw)
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
        (ly ** 2).sum().backward(); (ty ** 2).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-12)

def test_gradcheck_and_gradgradcheck():
    x = litnn.tensor(rng.normal(size=(1, 2, 3, 3)), requires_grad=True)
    w = litnn.tensor(rng.normal(size=(2, 2, 2, 2)), requires_grad=True)
    f = lambda x, w: litnn.nn.functional.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    assert litnn.autograd.gradcheck(f, (x, w)) and litnn.autograd.gradgradcheck(f, (x, w))

@pytest.mark.parametrize('args,kw', [((4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2)), ((3, 5, (2, 3)), dict(bias=False)),
                                     ((2, 4, 3), dict(dilation=2))], ids=str)
def test_modules(args, kw):
    for n in (1, 2):
        if n == 1 and isinstance(args[2], tuple): continue
        lm, tm = getattr(litnn.nn, f'ConvTranspose{n}d')(*args, **kw), getattr(torch.nn, f'ConvTranspose{n}d')(*args, **kw)
        assert repr(lm) == repr(tm)
        assert {k: tuple(v.shape) for k, v in lm.state_dict().items()} == {k: tuple(v.shape) for k, v in tm.state_dict().items()}
        tm.double(); lm.double()
        lm.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
        x = rng.normal(size=(2, args[0]) + (5,) * n)
        np.testing.assert_allclose(lm(litnn.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)

def test_initialisation_bounds_match_torch():
    lm, tm = litnn.nn.ConvTranspose2d(4, 6, 3, groups=2), torch.nn.ConvTranspose2d(4, 6, 3, groups=2)
    bound = 1 / np.sqrt(3 * 9)          # fan_in of the weight (in, out/groups, k, k): out/groups * k * k
    for l, t in ((lm.weight, tm.weight), (lm.bias, tm.bias)):
        assert np.abs(l.detach().numpy()).max() <= bound + 1e-7 and np.abs(t.detach().numpy()).max() <= bound + 1e-7

def test_output_size():
    lm, tm = litnn.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1), torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)
    for size in ([9, 9], [10, 10], [1, 6, 10, 9]):
        assert lm(litnn.ones(1, 4, 5, 5), output_size=size).shape == tm(torch.ones(1, 4, 5, 5), output_size=size).shape

ERRORS = [lambda lib: lib.nn.functional.conv_transpose2d(lib.ones(1, 5, 8, 8), lib.ones(4, 3, 3, 3)),
          lambda lib: lib.nn.functional.conv_transpose2d(lib.ones(1, 4, 8, 8), lib.ones(4, 3, 3, 3), stride=2, output_padding=2),
          lambda lib: lib.nn.functional.conv_transpose2d(lib.ones(4, 8), lib.ones(4, 3, 3, 3)),
          lambda lib: lib.nn.functional.conv_transpose1d(lib.ones(1, 4, 8), lib.ones(4, 3, 3), output_padding=1),
          lambda lib: lib.nn.ConvTranspose2d(4, 3, 3, padding_mode='reflect'),
          lambda lib: lib.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(lib.ones(1, 4, 5, 5), output_size=[13, 13]),
          lambda lib: lib.nn.ConvTranspose2d(4, 6, 3)(lib.ones(1, 4, 5, 5), output_size=[1, 2, 3])]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value).replace('litnn.', 'torch.') == str(t.value)

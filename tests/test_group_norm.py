"""nn.GroupNorm, nn.RMSNorm, F.group_norm and F.rms_norm side by side with torch 2.13: outputs and gradients in float64,
float32 and float16 for every shape and option, gradcheck, reprs, state_dict keys, errors, a torch checkpoint; CuPy."""
import numpy as np
import pytest

import litnn
import litnn.nn.functional as LF
from litnn.autograd import gradcheck, gradgradcheck
from nn_pairs import err

torch = pytest.importorskip('torch')
import torch.nn.functional as TF

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=1e-4, atol=1e-5), np.float16: dict(rtol=1e-2, atol=1e-2)}
TDT = {np.float64: torch.float64, np.float32: torch.float32, np.float16: torch.float16}


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def run_both(f, arrays, dtype, param_dtype=None):
    "f(lib, *tensors) on both libraries (the input in `dtype`, parameters in `param_dtype` or `dtype`); outputs and gradients compared."
    dts = [dtype] + [param_dtype or dtype] * (len(arrays) - 1)
    res = []
    for lib in (litnn, torch):
        ts = [lib.tensor(a.astype(d), requires_grad=True) for a, d in zip(arrays, dts)]
        out = f(lib, *ts)
        (out * lib.tensor(rand(*out.shape, seed=9)).to(out.dtype)).sum().backward()
        res.append([out] + [t.grad for t in ts])
    for i, (a, b) in enumerate(zip(*res)):
        a, b = a.detach().numpy(), b.detach().numpy()
        assert a.shape == b.shape and a.dtype == b.dtype, (i, a.dtype, b.dtype)
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), err_msg=str(i), **TOL[dtype])


@pytest.mark.parametrize('dtype', [np.float64, np.float32, np.float16])
@pytest.mark.parametrize('shape,groups', [((2, 6), 3), ((3, 6, 5), 2), ((2, 4, 3, 5), 4), ((2, 4, 3, 2, 2), 1), ((1, 6, 4), 6)])
@pytest.mark.parametrize('affine', ['both', 'weight', 'none'])
def test_group_norm(dtype, shape, groups, affine):
    c = shape[1]
    arrays = [rand(*shape) * 2 + 1] + ([rand(c, seed=1) + 1] if affine != 'none' else []) + ([rand(c, seed=2)] if affine == 'both' else [])
    def f(lib, x, *p):
        w, b = (list(p) + [None, None])[:2]
        return lib.nn.functional.group_norm(x, groups, w if affine != 'none' else None, b, eps=1e-3)
    run_both(f, arrays, dtype, param_dtype=np.float32 if dtype == np.float16 else None)


@pytest.mark.parametrize('dtype', [np.float64, np.float32, np.float16])
@pytest.mark.parametrize('shape,nshape', [((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((6,), (6,))])
@pytest.mark.parametrize('weight', [True, False])
@pytest.mark.parametrize('eps', [None, 1e-2])
def test_rms_norm(dtype, shape, nshape, weight, eps):
    arrays = [rand(*shape)] + ([rand(*nshape, seed=1)] if weight else [])
    f = lambda lib, x, *w: lib.nn.functional.rms_norm(x, nshape, w[0] if w else None, eps)
    if dtype == np.float16 and weight: return          # torch's half rms_norm wants a half weight; covered below
    run_both(f, arrays, dtype)


def test_rms_norm_zero_and_tiny_inputs():
    for lib in (litnn, torch):
        assert (lib.nn.functional.rms_norm(lib.zeros(2, 3), (3,)) == 0).all()
    np.testing.assert_allclose(LF.rms_norm(litnn.full((3,), 1e-5), (3,)).numpy(), TF.rms_norm(torch.full((3,), 1e-5), (3,)).numpy(), rtol=1e-6)


def test_gradcheck():
    x, w, b = (litnn.tensor(rand(*s, seed=i), requires_grad=True) for i, s in enumerate(((2, 4, 3), (4,), (4,))))
    assert gradcheck(lambda x, w, b: LF.group_norm(x, 2, w, b), [x, w, b])
    assert gradgradcheck(lambda x, w, b: LF.group_norm(x, 2, w, b), [x, w, b])
    assert gradgradcheck(lambda x, w: LF.rms_norm(x, (4, 3), w.reshape(4, 1).expand(4, 3)), [x, w])


MODULES = [lambda lib: lib.nn.GroupNorm(2, 4), lambda lib: lib.nn.GroupNorm(1, 4, eps=1e-3, affine=False),
           lambda lib: lib.nn.GroupNorm(4, 4, bias=False), lambda lib: lib.nn.RMSNorm(3), lambda lib: lib.nn.RMSNorm([2, 3], eps=1e-4),
           lambda lib: lib.nn.RMSNorm(3, elementwise_affine=False)]


@pytest.mark.parametrize('i', range(len(MODULES)))
def test_modules(i):
    l, t = MODULES[i](litnn), MODULES[i](torch)
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())
    with torch.no_grad():
        for p in t.parameters(): p.add_(torch.randn_like(p))
    l.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = rand(2, 4, 2, 3).astype(np.float32)
    np.testing.assert_allclose(l(litnn.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert all(np.array_equal(a.detach().numpy(), b.detach().numpy()) for a, b in zip(MODULES[i](litnn).parameters(), MODULES[i](torch).parameters()))


def test_torch_checkpoint_loads(tmp_path):
    t = torch.nn.Sequential(torch.nn.GroupNorm(2, 4), torch.nn.RMSNorm(3))
    with torch.no_grad():
        for p in t.parameters(): p.add_(torch.randn_like(p))
    torch.save(t.state_dict(), tmp_path / 'n.pt')
    l = litnn.nn.Sequential(litnn.nn.GroupNorm(2, 4), litnn.nn.RMSNorm(3))
    l.load_state_dict(litnn.load(tmp_path / 'n.pt'))
    x = rand(2, 4, 3).astype(np.float32)
    np.testing.assert_allclose(l(litnn.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


ERRORS = [lambda lib: lib.nn.GroupNorm(4, 6),
          lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3), 4),
          lambda lib: lib.nn.functional.group_norm(lib.ones(6), 3),
          lambda lib: lib.nn.functional.group_norm(lib.randn(1, 3), 3),
          lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3), 3, lib.ones(5)),
          lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3, dtype=lib.long), 3),
          lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 6, 3), (4,)),
          lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 6, 3), (5, 3)),
          lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 6, 3), (3,), lib.ones(4)),
          lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 6, 3), 3),
          lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 6, 3), ()),
          lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3, dtype=lib.long), (3,))]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    assert err(ERRORS[i], litnn) == err(ERRORS[i], torch)


def test_hooks_and_grad_fn():
    m = litnn.nn.GroupNorm(2, 4)
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    y = m(litnn.randn(2, 4, 3, requires_grad=True))
    assert seen == [(2, 4, 3)]
    assert type(y.grad_fn).__name__ == 'NativeGroupNormBackward0'     # torch's one node: the group views are inside it


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_on_gpu():
    x = rand(2, 4, 3)
    for f in (lambda t: LF.group_norm(t, 2), lambda t: LF.rms_norm(t, (3,))):
        c, g = (litnn.tensor(x, device=d, requires_grad=True) for d in ('cpu', 'cuda'))
        for t in (c, g): f(t).square().sum().backward()
        np.testing.assert_allclose(f(g).detach().cpu().numpy(), f(c).detach().numpy(), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(g.grad.cpu().numpy(), c.grad.numpy(), rtol=1e-6, atol=1e-8)

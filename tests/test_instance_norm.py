"""44b_instance_norm against torch 2.13: instance norm (functional and modules, running stats), local response norm, normalize."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)

def compare(f, arrays, grads, dtype='float64'):
    lt = [litnn.tensor(a.astype(dtype), requires_grad=i in grads) for i, a in enumerate(arrays)]
    tt = [torch.tensor(a.astype(dtype), requires_grad=i in grads) for i, a in enumerate(arrays)]
    ly, ty = f(litnn, *lt), f(torch, *tt)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for i in grads: np.testing.assert_allclose(lt[i].grad.numpy(), tt[i].grad.numpy(), **tol)
    return lt, tt

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('shape', [(2, 3, 5), (2, 3, 4, 5), (2, 2, 3, 2, 4)])
def test_instance_norm_functional(shape, dtype):
    c = shape[1]
    x, w, b = rng.normal(size=shape) * 3 + 1, rng.normal(size=c), rng.normal(size=c)
    rm, rv = rng.normal(size=c), rng.uniform(0.5, 2, size=c)
    compare(lambda lib, x, w, b: lib.nn.functional.instance_norm(x, None, None, w, b), [x, w, b], (0, 1, 2), dtype)
    lt, tt = compare(lambda lib, x, rm, rv: lib.nn.functional.instance_norm(x, rm, rv, momentum=0.3), [x, rm, rv], (0,), dtype)
    np.testing.assert_allclose(lt[1].detach().numpy(), tt[1].detach().numpy(), rtol=1e-5)      # running stats updated alike
    np.testing.assert_allclose(lt[2].detach().numpy(), tt[2].detach().numpy(), rtol=1e-5)
    compare(lambda lib, x, rm, rv: lib.nn.functional.instance_norm(x, rm, rv, use_input_stats=False), [x, rm, rv], (0,), dtype)

@pytest.mark.parametrize('n', [1, 2, 3])
@pytest.mark.parametrize('kw', [{}, {'affine': True}, {'track_running_stats': True}, {'affine': True, 'track_running_stats': True, 'momentum': None}])
def test_instance_norm_modules(n, kw):
    name = f'InstanceNorm{n}d'
    lm, tm = getattr(litnn.nn, name)(3, **kw), getattr(torch.nn, name)(3, **kw)
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    lm.double(); tm.double()
    tm.load_state_dict({k: torch.tensor(rng.normal(size=tuple(v.shape))) if v.is_floating_point() else v for k, v in tm.state_dict().items()})
    lm.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    for shape in [(2, 3) + (4,) * n, (3,) + (4,) * n]:                 # batched and unbatched
        for train in (True, False):
            lm.train(train); tm.train(train)
            a = rng.normal(size=shape)
            np.testing.assert_allclose(lm(litnn.tensor(a)).detach().numpy(), tm(torch.tensor(a)).detach().numpy(), rtol=1e-5, atol=1e-6)
        for k, v in tm.state_dict().items(): np.testing.assert_allclose(lm.state_dict()[k].numpy(), v.numpy(), rtol=1e-6)

def test_instance_norm_warnings_and_errors():
    with pytest.warns(UserWarning, match="does not match num_features"): litnn.nn.InstanceNorm1d(4)(litnn.ones(2, 3, 5))
    for f in [lambda lib: lib.nn.InstanceNorm1d(4, affine=True)(lib.ones(2, 3, 5)), lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(3, 4)),
              lambda lib: lib.nn.functional.instance_norm(lib.ones(2, 3, 1))]:
        kind = same_error(f)
        with pytest.raises(kind) as t: f(torch)
        with pytest.raises(kind) as l: f(litnn)
        assert str(l.value).replace('litnn.', 'torch.') == str(t.value)

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('shape,size', [((2, 5, 7), 3), ((2, 6, 3, 4), 2), ((1, 4, 2, 3, 2), 5), ((2, 3, 4), 1)])
def test_local_response_norm(shape, size, dtype):
    compare(lambda lib, x: lib.nn.functional.local_response_norm(x, size, 0.01, 0.6, 1.5), [rng.normal(size=shape) * 3], (0,), dtype)
    lm, tm = litnn.nn.LocalResponseNorm(size, 1e-3), torch.nn.LocalResponseNorm(size, 1e-3)
    assert repr(lm) == repr(tm)

@pytest.mark.parametrize('p,dim', [(2.0, 1), (1.0, 0), (3.0, -1)])
def test_normalize(p, dim):
    a = rng.normal(size=(4, 5)); a[1] = 0
    compare(lambda lib, x: lib.nn.functional.normalize(x, p, dim), [a], (0,))

def test_normalize_out():
    "normalize(out=) writes the result into out (in out's dtype), and refuses it when a gradient is needed, as torch's div does."
    a = rng.normal(size=(3, 4))
    for lib in (litnn, torch):
        o = lib.empty(3, 4, dtype=lib.float64)
        r = lib.nn.functional.normalize(lib.tensor(a, dtype=lib.float32), out=o)
        assert r is o and o.dtype == lib.float64
        np.testing.assert_allclose(o.numpy(), a / np.linalg.norm(a, axis=1, keepdims=True), rtol=1e-6)
    same_error(lambda lib: lib.nn.functional.normalize(lib.ones(3, 2, requires_grad=True), out=lib.empty(3, 2)))

def test_lrn_rank_error():
    same_error(lambda lib: lib.nn.functional.local_response_norm(lib.ones(2, 3), 2))


def test_eps_zero_and_below_run_as_torchs():
    "torch.instance_norm checks no eps (F.batch_norm does): eps=0 normalizes, and a constant channel gives 0, not nan."
    torch = pytest.importorskip('torch')
    x = np.r_[np.zeros(8), np.arange(16.)].reshape(2, 3, 4).astype(np.float32)
    for eps in (0, -1e-9):
        t = torch.nn.InstanceNorm1d(3, eps=eps)(torch.tensor(x))
        l = litnn.nn.InstanceNorm1d(3, eps=eps)(litnn.tensor(x))
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    assert not np.isnan(litnn.nn.functional.instance_norm(litnn.tensor(x), eps=0).numpy()).any()
    for lib in (torch, litnn):
        with pytest.raises(TypeError, match=r"instance_norm\(\): argument 'weight' \(position 2\) must be Tensor, not list"):
            lib.nn.functional.instance_norm(lib.tensor(x), weight=[1., 2., 3.])
        with pytest.raises(ValueError, match="batch_norm eps must be positive during training, but got 0"):
            lib.nn.functional.batch_norm(lib.tensor(x), None, None, training=True, eps=0)


def test_no_batch_dim_hook_as_torchs():
    "InstanceNorm's unbatched rank comes from `_get_no_batch_dim()` (torch's hook: a subclass of _InstanceNorm overrides it), no other attribute."
    for lib in (torch, litnn):
        from importlib import import_module
        base = import_module(lib.__name__ + '.nn.modules.instancenorm')._InstanceNorm
        for cls, nb in [(lib.nn.InstanceNorm1d, 2), (lib.nn.InstanceNorm2d, 3), (lib.nn.InstanceNorm3d, 4),
                        (lib.nn.LazyInstanceNorm2d, 3)]:
            assert cls(4)._get_no_batch_dim() == nb
            assert not hasattr(cls(4), 'no_batch_dim')
        with pytest.raises(NotImplementedError):
            base(4)._get_no_batch_dim()

        class MyNorm(base):    # a user's instance norm over (N, C, L) inputs, as InstanceNorm1d
            def _check_input_dim(self, input): pass
            def _get_no_batch_dim(self): return 2
        m = MyNorm(3, affine=True)
        x = lib.tensor(np.arange(12.).reshape(3, 4), dtype=lib.float32)
        y = m(x)                # unbatched (C, L): normalized per channel through _handle_no_batch_input
        assert tuple(y.shape) == (3, 4)
        np.testing.assert_allclose(y.detach().numpy().mean(1), 0, atol=1e-6)
        with pytest.raises(ValueError, match=r"expected input's size at dim=0 to match num_features \(3\), but got: 2\."):
            m(lib.ones(2, 4))

"""fractional_max_pool3d (reference/nn/pooling_stochastic_fractional_max_3d) with the same _random_samples as torch 2.13."""
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF
from functional_pairs import DTYPES, pair, same, same_error

rng = np.random.default_rng(0)


# --- reference/nn/pooling_stochastic_fractional_max_3d: the same _random_samples in both libraries ---------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape,k,kwargs', [((2, 3, 7, 8, 9), 2, dict(output_size=(4, 5, 3))), ((2, 3, 7, 8, 9), (3, 2, 1), dict(output_ratio=0.5)),
                                            ((3, 6, 7, 5), 2, dict(output_size=3)), ((1, 2, 9, 9, 9), (2, 3, 2), dict(output_ratio=(0.6, 0.4, 0.3)))])
def test_fractional_max_pool3d_like_torch(dt, shape, k, kwargs):
    a = rng.normal(size=shape).astype(dt)
    a.flat[::7] = a.flat[1::7]                                       # ties
    samples = rng.uniform(size=(1 if len(shape) == 4 else shape[0], shape[-4], 3)).astype(dt)
    l, t = pair(a)
    (lv, li), (tv, ti) = [F.fractional_max_pool3d_with_indices(x, k, _random_samples=lib.tensor(samples), **kwargs)
                          for F, lib, x in ((LF, litnn, l), (TF, torch, t))]
    same(lv, tv, dt); assert li.tolist() == ti.tolist()
    w = rng.normal(size=tuple(tv.shape)).astype(dt)
    (lv * litnn.tensor(w)).sum().backward(); (tv * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)
    lm = litnn.nn.FractionalMaxPool3d(k, _random_samples=litnn.tensor(samples), **kwargs)
    tm = torch.nn.FractionalMaxPool3d(k, _random_samples=torch.tensor(samples), **kwargs)
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    same(lm(l), tm(t), dt)


def test_fractional_max_pool3d_nan_like_torch():
    a = rng.normal(size=(1, 2, 5, 5, 5)); a.flat[::5] = np.nan
    s = rng.uniform(size=(1, 2, 3))
    (lv, li), (tv, ti) = [F.fractional_max_pool3d(lib.tensor(a), 2, output_size=2, return_indices=True, _random_samples=lib.tensor(s))
                          for F, lib in ((LF, litnn), (TF, torch))]
    assert li.tolist() == ti.tolist()
    np.testing.assert_array_equal(lv.numpy(), tv.numpy())


@pytest.mark.parametrize('make', [
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=(4, 3, 3), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=(3, 5, 3), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x[0, 0], 2, output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool3d(x[0, 0], 2, output_size=3, _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s.double()),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s[:, :, :2]),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s[:1]),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s[:, :2]),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s.unsqueeze(-1)),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=(3, 3), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, (2, 2), output_size=3, _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(lib.zeros(2, 0, 5, 6, 7), 2, output_size=3),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2, output_ratio=1.5),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2, output_ratio=0.5, output_size=2),
])
def test_fractional_max_pool3d_errors_like_torch(make):
    a, s = rng.normal(size=(2, 3, 5, 6, 7)).astype(np.float32), rng.uniform(size=(2, 3, 3)).astype(np.float32)
    same_error(lambda: make(LF, litnn, litnn.tensor(a), litnn.tensor(s)), lambda: make(TF, torch, torch.tensor(a), torch.tensor(s)))


def test_fractional_max_pool3d_samples_follow_the_seed():
    x = litnn.randn(2, 3, 6, 6, 6)
    litnn.manual_seed(5); a = LF.fractional_max_pool3d(x, 2, output_size=3, return_indices=True)[1]
    litnn.manual_seed(5); b = LF.fractional_max_pool3d(x, 2, output_size=3, return_indices=True)[1]
    assert a.tolist() == b.tolist()

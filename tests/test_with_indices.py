"""The *_with_indices poolings and the deprecated F.upsample* (reference/nn/pooling_indices_and_upsample) side by side with torch 2.13."""
import warnings
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF
from functional_pairs import DTYPES, pair, same, raised, same_error

rng = np.random.default_rng(0)


# --- the _with_indices poolings ----------------------------------------------------------------------------------

WITH_INDICES = [
    ('max_pool1d_with_indices', (2, 7), (3,), dict(stride=2, padding=1)),
    ('max_pool2d_with_indices', (2, 3, 6, 5), (3,), dict(stride=2, padding=1, ceil_mode=True)),
    ('max_pool3d_with_indices', (2, 2, 4, 5, 4), (2,), dict(dilation=1, padding=1)),
    ('adaptive_max_pool1d_with_indices', (2, 3, 7), (3,), {}),
    ('adaptive_max_pool2d_with_indices', (2, 3, 7, 5), ((3, 2),), {}),
    ('adaptive_max_pool3d_with_indices', (2, 2, 5, 4, 3), ((2, 3, 2),), {}),
]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('flag', [False, True])
@pytest.mark.parametrize('name,shape,args,kwargs', WITH_INDICES)
def test_with_indices_like_torch(dt, flag, name, shape, args, kwargs):
    a = rng.normal(size=shape).astype(dt)
    l, t = pair(a)
    (lv, li), (tv, ti) = getattr(LF, name)(l, *args, return_indices=flag, **kwargs), getattr(TF, name)(t, *args, return_indices=flag, **kwargs)
    same(lv, tv, dt)
    assert li.tolist() == ti.tolist() and li.dtype == litnn.int64
    w = rng.normal(size=tuple(tv.shape)).astype(dt)
    (lv * litnn.tensor(w)).sum().backward(); (tv * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


@pytest.mark.parametrize('dt', DTYPES)
def test_fractional_max_pool2d_with_indices_like_torch(dt):
    a = rng.normal(size=(2, 3, 9, 8)).astype(dt)
    samples = rng.uniform(size=(2, 3, 2)).astype(dt)
    l, t = pair(a)
    lv, li = LF.fractional_max_pool2d_with_indices(l, 2, output_size=(5, 4), _random_samples=litnn.tensor(samples))
    tv, ti = TF.fractional_max_pool2d_with_indices(t, 2, output_size=(5, 4), _random_samples=torch.tensor(samples))
    same(lv, tv, dt); assert li.tolist() == ti.tolist()
    lv.sum().backward(); tv.sum().backward(); same(l.grad, t.grad, dt)


def test_with_indices_signatures_and_errors():
    import inspect
    for name, *_ in WITH_INDICES + [('fractional_max_pool2d_with_indices',)]:
        lf = getattr(LF, name)
        assert lf.__name__ == name
        assert list(inspect.signature(lf).parameters) == list(inspect.signature(getattr(TF, name)).parameters)
    (lt, _), (tt, _) = raised(lambda: LF.max_pool2d_with_indices(litnn.ones(1, 4, 4))), raised(lambda: TF.max_pool2d_with_indices(torch.ones(1, 4, 4)))
    assert lt is tt is TypeError
    same_error(lambda: LF.max_pool2d_with_indices(litnn.ones(4), 2), lambda: TF.max_pool2d_with_indices(torch.ones(4), 2))


# --- the deprecated upsample -------------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name,kwargs', [('upsample', dict(scale_factor=2)), ('upsample', dict(size=(5, 3), mode='bilinear')),
                                         ('upsample', dict(size=7, mode='bicubic', align_corners=True)),
                                         ('upsample_nearest', dict(size=5)), ('upsample_bilinear', dict(scale_factor=1.5))])
def test_upsample_like_torch(dt, name, kwargs):
    a = rng.normal(size=(2, 3, 4, 3)).astype(dt)
    l, t = pair(a)
    caught = {}
    for key, F, x in (('l', LF, l), ('t', TF, t)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            caught[key] = (getattr(F, name)(x, **kwargs), [(x.category, str(x.message), x.filename) for x in w])
    (ly, lw), (ty, tw) = caught['l'], caught['t']
    same(ly, ty, dt)
    assert lw == tw and lw[0][2] == __file__             # the same warning, pointing at the caller
    w = rng.normal(size=tuple(ty.shape)).astype(dt)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)

"""lp_pool3d and max_unpool3d (reference/nn/pooling_lp_and_unpool_3d) side by side with torch 2.13."""
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF
from functional_pairs import DTYPES, pair, same, raised

rng = np.random.default_rng(0)


# --- reference/nn/pooling_lp_and_unpool_3d: lp_pool3d, max_unpool3d -----------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('norm,k,s,ceil', [(2., 2, None, False), (3., (2, 1, 2), (1, 2, 1), True), (1.5, 3, 2, True), (1., 2, 1, False)])
def test_lp_pool3d_like_torch(dt, norm, k, s, ceil):
    a = np.abs(rng.normal(size=(2, 3, 5, 4, 6))).astype(dt) + 0.1         # positive: x^p of a negative x is NaN for fractional p
    l, t = pair(a)
    ly, ty = LF.lp_pool3d(l, norm, k, s, ceil), TF.lp_pool3d(t, norm, k, s, ceil)
    same(ly, ty, dt)
    w = rng.normal(size=tuple(ty.shape)).astype(dt)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)
    lm, tm = litnn.nn.LPPool3d(norm, k, s, ceil), torch.nn.LPPool3d(norm, k, s, ceil)
    assert repr(lm) == repr(tm)
    same(lm(l[0]), tm(t[0]), dt)                                           # unbatched


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape,k,s,p,size', [((1, 2, 4, 6, 6), 2, None, 0, None), ((1, 2, 5, 7, 5), 3, 2, 1, None),
                                              ((1, 2, 5, 7, 6), (2, 3, 2), (2, 2, 1), 0, (5, 7, 6)), ((1, 2, 5, 5, 5), 2, None, 0, (1, 2, 5, 5, 5))])
def test_max_unpool3d_like_torch(dt, shape, k, s, p, size):
    a = rng.normal(size=shape).astype(dt)
    _, ti = TF.max_pool3d(torch.tensor(a), k, s, p, return_indices=True)
    v = rng.normal(size=tuple(ti.shape)).astype(dt)
    l, t = pair(v)
    ly, ty = LF.max_unpool3d(l, litnn.tensor(ti.numpy()), k, s, p, size), TF.max_unpool3d(t, ti, k, s, p, size)
    same(ly, ty, dt)
    w = rng.normal(size=tuple(ty.shape)).astype(dt)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)
    lm, tm = litnn.nn.MaxUnpool3d(k, s, p), torch.nn.MaxUnpool3d(k, s, p)
    assert repr(lm) == repr(tm)
    same(lm(l[0], litnn.tensor(ti.numpy())[0], size), tm(t[0], ti[0], size), dt)   # unbatched


@pytest.mark.parametrize('make', [
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i + 100, 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i * 0 - 1, 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o[0, 0], i[0, 0], 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i.float(), 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i[:, :1], 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o.long(), i, 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i, 2, output_size=(9, 5, 5)),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o.numpy(), i, 2),
    lambda lib, o, i: lib.nn.functional.lp_pool3d(o[0, 0, 0], 2, 1),
    lambda lib, o, i: lib.nn.functional.lp_pool3d(o, 2, (2, 2)),
])
def test_3d_pooling_errors_like_torch(make):
    a = rng.normal(size=(1, 2, 4, 4, 4))
    to, ti = TF.max_pool3d(torch.tensor(a), 2, return_indices=True)
    lo, li = litnn.tensor(to.numpy()), litnn.tensor(ti.numpy())
    (lt, lm), (tt, tm) = raised(lambda: make(litnn, lo, li)), raised(lambda: make(torch, to, ti))
    assert lt is tt
    if 'invalid max index' in tm: assert lm.split(':')[0] == tm.split(':')[0] and lm.endswith('(output volumes are of size 4x4x4)')
    elif "'int' object is not callable" in tm: assert 'must be Tensor' in lm      # torch's Python wrapper trips on numpy's .size
    else: assert lm == tm


def test_max_unpool3d_two_kernel_sizes_is_torchs_runtime_error():
    "kernel_size=[1, 1] gives two output sizes: torch's kernel refuses them with a RuntimeError."
    def run(lib):
        x = lib.ones(1, 3, 1, 1, 1)
        lib.nn.functional.max_unpool3d(x, lib.zeros(tuple(x.shape), dtype=lib.int64), [1, 1])
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError, match='There should be exactly three elements'): run(lib)

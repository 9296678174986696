"svd_lowrank and pca_lowrank (reference/torch/lowrank) against torch 2.13: the random basis differs, the decomposition does not."
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def _low_rank(m, n, k, seed, batch=()):
    rng = np.random.default_rng(seed)
    return rng.normal(size=batch + (m, k)) @ rng.normal(size=batch + (k, n))

@pytest.mark.parametrize('shape', [(30, 12, 3), (12, 30, 3), (20, 20, 5)])
@pytest.mark.parametrize('niter', [0, 2])
def test_svd_lowrank_matches_torch(shape, niter):
    a = _low_rank(*shape, seed=sum(shape))
    q = shape[2] + 2
    lu, ls, lv = litnn.svd_lowrank(litnn.tensor(a), q=q, niter=niter)
    tu, ts, tv = torch.svd_lowrank(torch.tensor(a), q=q, niter=niter)
    assert tuple(lu.shape) == tuple(tu.shape) and tuple(lv.shape) == tuple(tv.shape) and lu.dtype == litnn.float64
    k = shape[2]
    np.testing.assert_allclose(ls[:k].numpy(), ts[:k].numpy(), rtol=1e-9)
    np.testing.assert_allclose((lu @ litnn.diag(ls) @ lv.mT).numpy(), a, atol=1e-9)
    np.testing.assert_allclose(lu.mT @ lu, np.eye(q), atol=1e-9)

def test_svd_lowrank_with_mean_and_batches():
    a = _low_rank(15, 8, 2, seed=1, batch=(3,))
    m = np.random.default_rng(2).normal(size=(1, 8))
    lu, ls, lv = litnn.svd_lowrank(litnn.tensor(a + m), q=4, M=litnn.tensor(m))
    tu, ts, tv = torch.svd_lowrank(torch.tensor(a + m), q=4, M=torch.tensor(m))
    np.testing.assert_allclose(ls[..., :2].numpy(), ts[..., :2].numpy(), rtol=1e-9)
    np.testing.assert_allclose((lu @ litnn.diag_embed(ls) @ lv.mT).numpy(), a, atol=1e-9)

def test_pca_lowrank_matches_torch():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 4)) @ np.diag([5., 2., 0.5, 0.1]) + 3
    lu, ls, lv = litnn.pca_lowrank(litnn.tensor(x), q=4)
    tu, ts, tv = torch.pca_lowrank(torch.tensor(x), q=4)
    np.testing.assert_allclose(ls.numpy(), ts.numpy(), rtol=1e-9)
    np.testing.assert_allclose(np.abs(lv.numpy()), np.abs(tv.numpy()), atol=1e-9)
    litnn.manual_seed(0); torch.manual_seed(0)      # (the random projection: the same draws in both, as litnn's generator is torch's)
    lu, ls, lv = litnn.pca_lowrank(litnn.tensor(x), q=2, center=False)
    tu, ts, tv = torch.pca_lowrank(torch.tensor(x), q=2, center=False)
    np.testing.assert_allclose(ls.numpy(), ts.numpy(), rtol=1e-3)      # rank 2 of a rank-4 matrix: approximate, as torch's

def test_float32_and_errors():
    u, s, v = litnn.svd_lowrank(litnn.tensor(_low_rank(10, 6, 2, 4), dtype=litnn.float32), q=3)
    assert s.dtype == litnn.float32
    for lib in (litnn, torch):
        x = lib.ones(5, 3)
        with pytest.raises(ValueError, match=r"q\(=4\) must be non-negative integer and not greater than min\(m, n\)=3"): lib.pca_lowrank(x, q=4)
        with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"): lib.pca_lowrank(x, niter=-1)

def test_paths_as_torch():
    assert litnn.svd_lowrank.__module__ == torch.svd_lowrank.__module__.replace('torch', 'litnn')
    assert litnn.pca_lowrank.__module__ == torch.pca_lowrank.__module__.replace('torch', 'litnn')


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_svd_lowrank_of_complex(dtype):
    "A complex matrix gets a complex random basis (it was float32: matmul refused the mix); U S Vᴴ rebuilds a low-rank A."
    rng = np.random.default_rng(5)
    a = ((rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))) @ (rng.standard_normal((2, 5)) + 1j * rng.standard_normal((2, 5)))).astype(dtype)
    U, S, V = litnn.svd_lowrank(litnn.tensor(a), q=3)
    assert U.dtype == getattr(litnn, dtype) and S.dtype == getattr(litnn, dtype).to_real()
    want_S = torch.linalg.svdvals(torch.tensor(a))[:3]
    np.testing.assert_allclose(S.numpy(), want_S.numpy(), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(((U * S.to(U.dtype)) @ V.mH).numpy(), a, rtol=1e-3, atol=1e-3)

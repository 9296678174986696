"""SyncBatchNorm (nbs/75a_sync_batchnorm.ipynb): in one process it is torch's (the BatchNorm fallback); on 2 MPI ranks with
half batches it equals one BatchNorm on the full batch (the shared job of tests/ddp_worker.py)."""
import sys
from pathlib import Path
import numpy as np, pytest, torch
import litnn
import litnn.distributed as dist

sys.path.insert(0, str(Path(__file__).parent))
from ddp_worker import run_job


@pytest.fixture(scope="session")
def job(tmp_path_factory):
    return run_job(tmp_path_factory.getbasetemp() / "ddp_job")


@pytest.mark.skipif(not dist.is_available(), reason="mpi4py is not installed")
@pytest.mark.parametrize('case', ['1d', '1d_seq', '2d_f64'])
def test_two_ranks_equal_full_batch(job, case):
    for rank in job: assert rank['syncbn'][case] < (1e-5 if case != '2d_f64' else 1e-12)


@pytest.mark.parametrize('dtype,tol', [('float32', 1e-5), ('float64', 1e-12)])
@pytest.mark.parametrize('momentum', [0.1, None])
@pytest.mark.parametrize('shape', [(6, 3), (6, 3, 4), (4, 3, 2, 5)])
def test_one_process_is_torchs(dtype, tol, momentum, shape):
    rng = np.random.default_rng(0)
    x, gy = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    outs = {}
    for lib in (litnn, torch):
        m = lib.nn.SyncBatchNorm(3, momentum=momentum, dtype=getattr(lib, dtype))
        with lib.no_grad(): m.weight.copy_(lib.tensor([1., 2., -1.])); m.bias.copy_(lib.tensor([0., .5, 1.]))
        res = []
        for train in (True, True, False):
            m.train(train)
            xt = lib.tensor(x, requires_grad=True)
            y = m(xt); (y * lib.tensor(gy)).sum().backward()
            res += [y.detach().numpy(), xt.grad.numpy()]
        res += [m.weight.grad.numpy(), m.bias.grad.numpy(), m.running_mean.numpy(), m.running_var.numpy(), m.num_batches_tracked.numpy()]
        outs[lib.__name__] = res
    for a, b in zip(outs['litnn'], outs['torch']): np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_convert_sync_batchnorm_as_torch():
    def build(lib):
        net = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2), lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False)))
        net[1].eval()
        return net, lib.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    (lnet, lconv), (tnet, tconv) = build(litnn), build(torch)
    assert repr(lconv) == repr(tconv)
    assert list(lconv.state_dict()) == list(tconv.state_dict())
    assert lconv[1].weight is lnet[1].weight and lconv[1].running_var is lnet[1].running_var and not lconv[1].training
    assert type(lconv[2][0]).__name__ == 'SyncBatchNorm' and lconv[2][0].weight is None


def test_repr_and_errors_as_torch():
    assert repr(litnn.nn.SyncBatchNorm(4, momentum=None, bias=False)) == repr(torch.nn.SyncBatchNorm(4, momentum=None, bias=False))
    for lib in (litnn, torch):
        with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"): lib.nn.SyncBatchNorm(3)(lib.ones(3))
        with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be non-zero"): lib.nn.SyncBatchNorm(0)(lib.ones(2, 0))

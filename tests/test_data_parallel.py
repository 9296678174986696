"""nn.DataParallel and nn.parallel's scatter / replicate / parallel_apply / gather (nbs/71_data_parallel.ipynb).
The four steps run on CPU devices everywhere (litnn's accept them; torch's want GPUs) and must give the module's own
outputs and gradients; the wrapper's split across GPUs runs where there are two or more."""
import warnings
import numpy as np, pytest, torch
import litnn
from litnn import nn
from litnn.nn.parallel import scatter, gather, replicate, parallel_apply, DataParallel, data_parallel
from litnn.nn.parallel.data_parallel import scatter_kwargs

CPUS = ['cpu', 'cpu', 'cpu']


def model(seed=0):
    litnn.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 3)).double()


def split_run(net, x, devices, **kw):
    "The DataParallel steps by hand on `devices`."
    ins, kws = scatter_kwargs((x,), kw, devices)
    reps = replicate(net, devices[:len(ins)], not litnn.is_grad_enabled())
    return gather(parallel_apply(reps, ins, kws, devices[:len(reps)]), devices[0])


def test_scatter_chunks_like_chunk_and_repeats_the_rest():
    x = litnn.arange(14.).reshape(7, 2)
    parts = scatter({'x': x, 'n': 3, 'pair': (x, [x])}, CPUS)
    assert [p['x'].shape[0] for p in parts] == [3, 3, 1] and [p['n'] for p in parts] == [3, 3, 3]
    assert all(np.array_equal(p['pair'][1][0].numpy(), p['x'].numpy()) for p in parts)
    assert len(scatter(litnn.ones(2, 2), CPUS)) == 2          # fewer rows than devices: fewer chunks
    assert scatter(litnn.ones(4, 6), ['cpu', 'cpu'], dim=1)[1].shape == (4, 3)


def test_replicas_give_the_modules_outputs_and_gradients():
    net, ref = model(), model()
    x = litnn.randn(10, 4, dtype=litnn.float64)
    net.eval(); ref.eval()                                      # batch statistics would differ per chunk
    y = split_run(net, x, CPUS)
    np.testing.assert_allclose(y.detach().numpy(), ref(x).detach().numpy(), rtol=1e-12, atol=1e-12)
    (y ** 2).sum().backward(); (ref(x) ** 2).sum().backward()
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_replicas_have_no_parameters_and_share_the_first_devices_buffers():
    net = model()
    r = replicate(net, ['cpu', 'cpu'])
    assert list(r[0].parameters()) == [] and r[0][0] is not net[0] and r[0][0] is not r[1][0]
    assert r[0][0].weight.grad_fn is not None
    r[0](litnn.randn(6, 4, dtype=litnn.float64))                # training: running stats updated in place
    assert net[1].running_mean.abs().sum().item() > 0           # ...in the original's memory
    with litnn.no_grad(): y = split_run(net, litnn.randn(6, 4, dtype=litnn.float64), CPUS)
    assert y.grad_fn is None
    assert replicate(net, ['cpu'], detach=True)[0][0].weight.grad_fn is None


def test_kwargs_and_nested_outputs_gather():
    class Two(nn.Module):
        def __init__(self): super().__init__(); self.lin = nn.Linear(3, 2)
        def forward(self, x, scale=None): return {'y': self.lin(x) * scale, 'aux': (x.sum(1), None)}
    m = Two()
    x, s = litnn.randn(5, 3), litnn.rand(5, 1)
    out = split_run(m, x, ['cpu', 'cpu'], scale=s)
    ref = m(x, scale=s)
    np.testing.assert_allclose(out['y'].detach().numpy(), ref['y'].detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(out['aux'][0].numpy(), ref['aux'][0].numpy(), rtol=1e-6)
    assert out['aux'][1] is None


def test_gather_of_scalars_warns_and_stacks():
    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        v = gather([litnn.tensor(1.), litnn.tensor(2.), litnn.tensor(3.)], -1)
    assert v.tolist() == [1., 2., 3.]


def test_parallel_apply_checks_and_names_the_replica():
    m = nn.Linear(3, 2)
    with pytest.raises(AssertionError, match="The number of modules 2 is not equal to the number of inputs 1"):
        parallel_apply([m, m], [(litnn.ones(1, 3),)])
    with pytest.raises(RuntimeError, match="Caught RuntimeError in replica 1 on device cpu"):
        parallel_apply([m, m], [(litnn.ones(1, 3),), (litnn.ones(1, 5),)], devices=['cpu', 'cpu'])


@pytest.mark.skipif(litnn.cuda.is_available(), reason="without a GPU only")
def test_without_a_gpu_the_wrapper_is_the_module_as_torch():
    for lib in (litnn, torch):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        dp = lib.nn.DataParallel(m)
        assert dp.device_ids == [] and dp.module is m and list(dp.state_dict()) == ['module.weight', 'module.bias']
        assert dp(lib.ones(4, 3)).tolist() == m(lib.ones(4, 3)).tolist()
        with pytest.raises(RuntimeError, match="device type could not be determined"): lib.nn.parallel.data_parallel(m, lib.ones(4, 3))


@pytest.mark.skipif(litnn.cuda.device_count() < 1, reason="needs a GPU")
def test_one_gpu_moves_the_module_and_the_inputs():
    m = nn.Linear(3, 2)
    dp = DataParallel(m, device_ids=[0])
    assert m.weight.device == litnn.device('cuda', 0) and dp(litnn.ones(4, 3)).device == litnn.device('cuda', 0)


@pytest.mark.skipif(litnn.cuda.device_count() < 2, reason="needs two GPUs")
def test_several_gpus_split_the_batch():
    net, ref = model().cuda(), model().cuda()
    net.eval(); ref.eval()
    dp = DataParallel(net, device_ids=[0, 1])
    x = litnn.randn(10, 4, dtype=litnn.float64)
    y = dp(x)
    assert y.device == litnn.device('cuda', 0)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref(x.cuda()).detach().cpu().numpy(), rtol=1e-10)
    y.sum().backward(); ref(x.cuda()).sum().backward()
    for p, q in zip(net.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-10, atol=1e-12)
    y2 = data_parallel(net, x, device_ids=[0, 1], output_device=1)
    assert y2.device == litnn.device('cuda', 1)

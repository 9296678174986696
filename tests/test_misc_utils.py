"""Small torch names side by side with torch 2.13: torch.random.fork_rng and the thread settings (03fa_rng_state),
nn.utils.parameters_to_vector / vector_to_parameters (30ba_convert_parameters), the batch-norm fusions (30bb_fusion:
fused outputs equal the unfused modules' and torch's fused weights from the same weights), the deprecated nn.init names
(20a_init_aliases), torch.vmap, ChainDataset and StackDataset (31e_chain_stack_datasets)."""
import warnings

import numpy as np
import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')


def to_np(t): return t.detach().cpu().numpy()


def err(f):
    "The exception type and message `f()` raises."
    with pytest.raises(Exception) as e: f()
    return e.type, str(e.value)


# ---- fork_rng and the random state ----

def test_random_module_has_torchs_public_names():
    names = ['fork_rng', 'get_rng_state', 'set_rng_state', 'manual_seed', 'seed', 'initial_seed', 'thread_safe_generator']
    assert all(hasattr(torch.random, n) for n in names) and all(hasattr(litnn.random, n) for n in names)
    assert litnn.random.get_rng_state is litnn.get_rng_state and litnn.random.set_rng_state is litnn.set_rng_state
    assert litnn.random.thread_safe_generator() is None and torch.random.thread_safe_generator() is None   # outside thread workers


@pytest.mark.parametrize('lib', [torch, litnn], ids=['torch', 'litnn'])
@pytest.mark.parametrize('kw', [{}, {'devices': []}, {'devices': iter([])}, {'device_type': 'meta'}, {'enabled': False}], ids=str)
def test_fork_rng_restores_the_stream_as_torch(lib, kw):
    lib.manual_seed(3); lib.rand(2)
    with lib.random.fork_rng(**kw): inside = lib.rand(4)
    after = lib.rand(3).tolist()
    lib.manual_seed(3); lib.rand(2)
    unforked = lib.rand(3).tolist()
    forks = kw.get('enabled', True) and kw.get('device_type') != 'meta'
    assert (after == unforked) == forks
    assert (inside.tolist()[:3] == unforked) or not forks


@pytest.mark.parametrize('lib', [torch, litnn], ids=['torch', 'litnn'])
def test_fork_rng_restores_after_an_exception(lib):
    lib.manual_seed(0)
    state = lib.get_rng_state()
    with pytest.raises(KeyError):
        with lib.random.fork_rng(devices=[]):
            lib.rand(10); raise KeyError
    want = lib.rand(2).tolist()
    lib.set_rng_state(state)
    assert lib.rand(2).tolist() == want


def test_fork_rng_nests():
    litnn.manual_seed(5)
    with litnn.random.fork_rng():
        litnn.rand(3)
        with litnn.random.fork_rng(): litnn.rand(7)
        a = litnn.rand(1).tolist()
    b = litnn.rand(1).tolist()
    litnn.manual_seed(5); litnn.rand(3)
    assert a == litnn.rand(1).tolist()
    litnn.manual_seed(5)
    assert b == litnn.rand(1).tolist()


@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_fork_rng_restores_gpu_generators():
    litnn.manual_seed(0)
    x = litnn.rand(3, device='cuda')
    with litnn.random.fork_rng(devices=[0]): litnn.rand(5, device='cuda')
    y = litnn.rand(3, device='cuda')
    litnn.manual_seed(0); litnn.rand(3, device='cuda')
    assert litnn.rand(3, device='cuda').tolist() == y.tolist()


# ---- threads ----

@pytest.fixture
def threads():
    saved = (torch.get_num_threads(), litnn.get_num_threads(), dict(litnn._threads))
    yield
    torch.set_num_threads(saved[0]); litnn.set_num_threads(saved[1]); litnn._threads.update(saved[2])


def test_thread_counts_as_torch(threads):
    assert isinstance(litnn.get_num_threads(), int) and litnn.get_num_threads() >= 1
    for n in (1, 3, 2):
        torch.set_num_threads(n); litnn.set_num_threads(n)
        assert litnn.get_num_threads() == torch.get_num_threads() == n
    assert litnn.init_num_threads() is None and torch.init_num_threads() is None
    assert isinstance(litnn.get_num_interop_threads(), int)


@pytest.mark.parametrize('env', [{}, {'OMP_NUM_THREADS': '1'}, {'OMP_NUM_THREADS': '64'}, {'MKL_NUM_THREADS': '1'}], ids=str)
def test_default_thread_counts_as_torch(env):
    "In a fresh process (other tests here change the counts): the CPUs, capped by OMP_NUM_THREADS or MKL_NUM_THREADS."
    import os, subprocess, sys
    env = {k: v for k, v in os.environ.items() if k not in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS')} | env
    code = 'import torch, litnn; print(torch.get_num_threads(), litnn.get_num_threads(), torch.get_num_interop_threads(), litnn.get_num_interop_threads())'
    t, l, ti, li = map(int, subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True).stdout.split())
    assert l == t and li == ti


@pytest.mark.parametrize('name', ['set_num_threads', 'set_num_interop_threads'])
@pytest.mark.parametrize('bad', [0, -1, 1.5, '2', True, None])
def test_bad_thread_counts_as_torch(threads, name, bad):
    want = err(lambda: getattr(torch, name)(bad))
    assert err(lambda: getattr(litnn, name)(bad)) == want


def test_interop_threads_set_once_as_torch(threads):
    litnn._threads['interop'] = None
    litnn.set_num_interop_threads(3)
    assert litnn.get_num_interop_threads() == 3
    got = err(lambda: litnn.set_num_interop_threads(2))
    want = err(lambda: (torch.set_num_interop_threads(2), torch.set_num_interop_threads(2)))   # torch: the second call, or parallel work already done
    assert got == want


# ---- parameters_to_vector / vector_to_parameters ----

def pair_models(dtype='float32'):
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Conv1d(4, 2, 1), torch.nn.BatchNorm1d(2)).to(getattr(torch, dtype))
    l = litnn.nn.Sequential(litnn.nn.Linear(3, 4), litnn.nn.ReLU(), litnn.nn.Conv1d(4, 2, 1), litnn.nn.BatchNorm1d(2)).to(getattr(litnn, dtype))
    l.load_state_dict({k: litnn.tensor(to_np(v)) for k, v in t.state_dict().items()})
    return t, l


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_parameters_to_vector_values_and_gradients(dtype):
    t, l = pair_models(dtype)
    vt, vl = torch.nn.utils.parameters_to_vector(t.parameters()), litnn.nn.utils.parameters_to_vector(l.parameters())
    assert vl.dtype == getattr(litnn, dtype) and np.array_equal(to_np(vl), to_np(vt))
    w = np.linspace(-1, 1, vt.numel()).astype(dtype)
    (vt * torch.tensor(w)).pow(2).sum().backward(); (vl * litnn.tensor(w)).pow(2).sum().backward()
    for (n, pt), pl in zip(t.named_parameters(), l.parameters()):
        np.testing.assert_allclose(to_np(pl.grad), to_np(pt.grad), rtol=1e-6, err_msg=n)


def test_vector_to_parameters_as_torch():
    t, l = pair_models()
    n = sum(p.numel() for p in t.parameters())
    v = np.arange(n, dtype=np.float32) / 10
    vt, vl = torch.tensor(v), litnn.tensor(v)
    ids = [id(p) for p in l.parameters()]
    assert torch.nn.utils.vector_to_parameters(vt, t.parameters()) is None
    assert litnn.nn.utils.vector_to_parameters(vl, l.parameters()) is None
    for (k, pt), pl in zip(t.named_parameters(), l.parameters()):
        assert np.array_equal(to_np(pl), to_np(pt)) and pl.shape == tuple(pt.shape), k
    assert [id(p) for p in l.parameters()] == ids
    vt[0] = 7.; vl[0] = 7.    # the parameters are views of the vector in both
    assert to_np(l[0].weight)[0, 0] == to_np(t[0].weight)[0, 0] == 7.
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(to_np(l[0](litnn.tensor(x))), to_np(t[0](torch.tensor(x))), rtol=1e-5)


@pytest.mark.parametrize('vec', [[1., 2.], np.zeros(3), 3, None], ids=['list', 'ndarray', 'int', 'None'])
def test_vector_to_parameters_type_error_as_torch(vec):
    want = err(lambda: torch.nn.utils.vector_to_parameters(vec, []))
    assert err(lambda: litnn.nn.utils.vector_to_parameters(vec, [])) == want


@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_parameters_on_two_devices_are_refused():
    ps = [litnn.nn.Parameter(litnn.zeros(2)), litnn.nn.Parameter(litnn.zeros(2, device='cuda'))]
    with pytest.raises(TypeError, match="Found two parameters on different devices"): litnn.nn.utils.parameters_to_vector(ps)


# ---- fusion ----

def trained_bn(lib, bn_cls, c, affine, seed, dtype):
    "A batch norm in eval mode with running statistics and affine weights drawn from `seed`."
    rng = np.random.default_rng(seed)
    bn = getattr(lib.nn, bn_cls)(c, affine=affine, eps=1e-3).to(getattr(lib, dtype))
    sd = {'running_mean': rng.standard_normal(c), 'running_var': rng.uniform(0.2, 3, c), 'num_batches_tracked': np.array(5)}
    if affine: sd.update(weight=rng.standard_normal(c), bias=rng.standard_normal(c))
    bn.load_state_dict({k: lib.tensor(v.astype(dtype if k != 'num_batches_tracked' else 'int64')) for k, v in sd.items()})
    return bn.eval()


CONVS = [('Conv1d', 'BatchNorm1d', 1, False), ('Conv2d', 'BatchNorm2d', 2, False), ('Conv3d', 'BatchNorm3d', 3, False),
         ('ConvTranspose1d', 'BatchNorm1d', 1, True), ('ConvTranspose2d', 'BatchNorm2d', 2, True)]


@pytest.mark.parametrize('conv_cls,bn_cls,nd,transpose', CONVS)
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('affine', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_fuse_conv_bn_eval_as_torch(conv_cls, bn_cls, nd, transpose, bias, affine, dtype):
    tc = getattr(torch.nn, conv_cls)(3, 4, 3, bias=bias).to(getattr(torch, dtype)).eval()
    lc = getattr(litnn.nn, conv_cls)(3, 4, 3, bias=bias).to(getattr(litnn, dtype)).eval()
    lc.load_state_dict({k: litnn.tensor(to_np(v)) for k, v in tc.state_dict().items()})
    tb, lb = trained_bn(torch, bn_cls, 4, affine, 1, dtype), trained_bn(litnn, bn_cls, 4, affine, 1, dtype)
    tf, lf = torch.nn.utils.fuse_conv_bn_eval(tc, tb, transpose), litnn.nn.utils.fuse_conv_bn_eval(lc, lb, transpose)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-12, atol=1e-12)
    for k in ('weight', 'bias'):
        assert isinstance(getattr(lf, k), litnn.nn.Parameter) and getattr(lf, k).dtype == getattr(litnn, dtype)
        np.testing.assert_allclose(to_np(getattr(lf, k)), to_np(getattr(tf, k)), **tol)
    assert list(lf.state_dict()) == list(tf.state_dict()) and (lc.bias is None) == (not bias)
    x = np.random.default_rng(2).standard_normal((2, 3) + (5,) * nd).astype(dtype)
    np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(lb(lc(litnn.tensor(x)))), **tol)
    np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(tf(torch.tensor(x))), **tol)


@pytest.mark.parametrize('bn_features', [4, 1])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_fuse_linear_bn_eval_as_torch(bn_features, bias, dtype):
    tl = torch.nn.Linear(5, 4, bias=bias).to(getattr(torch, dtype)).eval()
    ll = litnn.nn.Linear(5, 4, bias=bias).to(getattr(litnn, dtype)).eval()
    ll.load_state_dict({k: litnn.tensor(to_np(v)) for k, v in tl.state_dict().items()})
    tb, lb = trained_bn(torch, 'BatchNorm1d', bn_features, True, 4, dtype), trained_bn(litnn, 'BatchNorm1d', bn_features, True, 4, dtype)
    tf, lf = torch.nn.utils.fuse_linear_bn_eval(tl, tb), litnn.nn.utils.fuse_linear_bn_eval(ll, lb)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-12, atol=1e-12)
    for k in ('weight', 'bias'): np.testing.assert_allclose(to_np(getattr(lf, k)), to_np(getattr(tf, k)), **tol)
    x = np.random.default_rng(5).standard_normal((6, 5)).astype(dtype)
    np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(tf(torch.tensor(x))), **tol)
    if bn_features == 4: np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(lb(ll(litnn.tensor(x)))), **tol)


@pytest.mark.parametrize('w_grad,b_grad', [(False, False), (True, False), (False, True), (True, True)])
def test_fused_weights_keep_requires_grad_and_dtypes(w_grad, b_grad):
    out = []
    for lib in (torch, litnn):
        rm, rv = lib.zeros(2), lib.ones(2)
        fw, fb = lib.nn.utils.fuse_conv_bn_weights(lib.ones(2, 1, 3, requires_grad=w_grad), None, rm, rv, 1e-5, None, None)
        lw, lb = lib.nn.utils.fuse_linear_bn_weights(lib.ones(2, 3, dtype=lib.float64, requires_grad=w_grad),
                                                     lib.zeros(2, requires_grad=b_grad), rm, rv, 1e-5, lib.ones(2), lib.zeros(2))
        out.append([(str(p.dtype).split('.')[-1], p.requires_grad, type(p).__name__) for p in (fw, fb, lw, lb)])
    assert out[0] == out[1]


@pytest.mark.parametrize('case', ['conv-train', 'bn-train', 'no-stats', 'linear-features', 'linear-no-stats'])
def test_fusion_errors_as_torch(case):
    def run(lib):
        conv, lin = lib.nn.Conv2d(2, 3, 1).eval(), lib.nn.Linear(2, 3).eval()
        bn, bn1 = lib.nn.BatchNorm2d(3).eval(), lib.nn.BatchNorm1d(3).eval()
        if case == 'conv-train': return lib.nn.utils.fuse_conv_bn_eval(conv.train(), bn)
        if case == 'bn-train': return lib.nn.utils.fuse_conv_bn_eval(conv, bn.train())
        if case == 'no-stats': return lib.nn.utils.fuse_conv_bn_eval(conv, lib.nn.BatchNorm2d(3, track_running_stats=False).eval())
        if case == 'linear-features': return lib.nn.utils.fuse_linear_bn_eval(lin, lib.nn.BatchNorm1d(2).eval())
        return lib.nn.utils.fuse_linear_bn_eval(lin, lib.nn.BatchNorm1d(3, track_running_stats=False).eval())
    assert err(lambda: run(litnn)) == err(lambda: run(torch))


def test_fusion_leaves_the_originals():
    conv, bn = litnn.nn.Conv2d(2, 3, 1).eval(), trained_bn(litnn, 'BatchNorm2d', 3, True, 0, 'float32')
    w = conv.weight.tolist()
    fused = litnn.nn.utils.fuse_conv_bn_eval(conv, bn)
    assert conv.weight.tolist() == w and fused is not conv and fused.weight is not conv.weight


# ---- deprecated nn.init names ----

ALIASES = {'uniform': ((3, 4), {}), 'normal': ((3, 4), dict(std=0.5)), 'constant': ((3, 4), dict(val=0.3)),
           'eye': ((3, 4), {}), 'dirac': ((4, 2, 3), {}), 'xavier_uniform': ((3, 4), dict(gain=2.)),
           'xavier_normal': ((3, 4), {}), 'kaiming_uniform': ((3, 4), dict(a=0.1)),
           'kaiming_normal': ((3, 4), dict(mode='fan_out')), 'orthogonal': ((3, 4), {}), 'sparse': ((4, 3), dict(sparsity=0.5))}


@pytest.mark.parametrize('name', list(ALIASES))
def test_deprecated_init_names_warn_and_call_the_new_one(name):
    shape, kw = ALIASES[name]
    for lib in (torch, litnn):
        with pytest.warns(FutureWarning) as rec:
            lib.manual_seed(0); out = getattr(lib.nn.init, name)(lib.empty(*shape), **kw)
        msgs = [str(w.message) for w in rec if w.category is FutureWarning]
        assert msgs == [f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."]
        assert getattr(lib.nn.init, name).__name__ == name
        lib.manual_seed(0)
        assert out.tolist() == getattr(lib.nn.init, name + '_')(lib.empty(*shape), **kw).tolist()
    if name in ('constant', 'eye', 'dirac'):   # deterministic: the same values as torch's
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            assert getattr(litnn.nn.init, name)(litnn.empty(*shape), **kw).tolist() == getattr(torch.nn.init, name)(torch.empty(*shape), **kw).tolist()


def test_deprecated_init_warning_points_at_the_caller():
    with pytest.warns(FutureWarning) as rec: litnn.nn.init.normal(litnn.empty(2))
    assert rec[0].filename == __file__


# ---- torch.vmap ----

def test_vmap_at_the_top_level():
    assert torch.vmap is torch.func.vmap and litnn.vmap is litnn.func.vmap
    x = np.arange(6.).reshape(2, 3)
    assert litnn.vmap(lambda r: (r * r).sum())(litnn.tensor(x)).tolist() == torch.vmap(lambda r: (r * r).sum())(torch.tensor(x)).tolist()


# ---- ChainDataset / StackDataset ----

def stream(lib, a, b):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self): return iter(range(a, b))
        def __len__(self): return b - a
    return Stream()


def batched(lib, n):
    "A map-style dataset that also serves batches (__getitems__), counting its calls."
    class Batched(lib.utils.data.Dataset):
        calls = []
        def __getitem__(self, i): self.calls.append(('one', i)); return i * 2
        def __getitems__(self, idx): self.calls.append(('many', list(idx))); return [i * 2 for i in idx]
        def __len__(self): return n
    return Batched()


def as_lists(x):
    if hasattr(x, 'tolist'): return x.tolist()
    if isinstance(x, dict): return {k: as_lists(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return type(x)(as_lists(v) for v in x)
    return x


def test_chain_dataset_as_torch():
    for lib in (torch, litnn):
        c = lib.utils.data.ChainDataset([stream(lib, 0, 3), stream(lib, 5, 7), stream(lib, 9, 9)])
        assert list(c) == [0, 1, 2, 5, 6] and len(c) == 5
        assert isinstance(c, lib.utils.data.IterableDataset)
        assert [b.tolist() for b in lib.utils.data.DataLoader(c, batch_size=2)] == [[0, 1], [2, 5], [6]]
    for bad in ([lambda L: L.utils.data.TensorDataset(L.zeros(2))]):
        want = err(lambda: list(torch.utils.data.ChainDataset([bad(torch)])))
        assert err(lambda: list(litnn.utils.data.ChainDataset([bad(litnn)]))) == want
        assert err(lambda: len(litnn.utils.data.ChainDataset([bad(litnn)]))) == err(lambda: len(torch.utils.data.ChainDataset([bad(torch)])))


@pytest.mark.parametrize('form', ['tuple', 'dict'])
def test_stack_dataset_as_torch(form):
    out = []
    for lib in (torch, litnn):
        xs, ys = lib.utils.data.TensorDataset(lib.arange(8.).view(4, 2)), [10, 11, 12, 13]
        z = batched(lib, 4)
        s = lib.utils.data.StackDataset(xs, ys, z) if form == 'tuple' else lib.utils.data.StackDataset(x=xs, y=ys, z=z)
        z.calls.clear()
        items = s.__getitems__([3, 1])
        out.append((len(s), as_lists(s[2]), as_lists(items), list(z.calls),
                    [as_lists(b) for b in lib.utils.data.DataLoader(s, batch_size=3)]))
    assert out[0] == out[1]


@pytest.mark.parametrize('case', ['none', 'both', 'size', 'size-kw', 'nested-size'])
def test_stack_dataset_errors_as_torch(case):
    def run(lib):
        S, xs = lib.utils.data.StackDataset, [1, 2, 3]
        if case == 'none': return S()
        if case == 'both': return S(xs, y=xs)
        if case == 'size': return S(xs, [1, 2])
        if case == 'size-kw': return S(a=xs, b=[1])
        class Short(lib.utils.data.Dataset):
            def __getitem__(self, i): return i
            def __getitems__(self, idx): return [0]
            def __len__(self): return 3
        return S(xs, Short()).__getitems__([0, 1])
    assert err(lambda: run(litnn)) == err(lambda: run(torch))


def test_datasets_where_torch_defines_them():
    from litnn.utils.data.dataset import ChainDataset, StackDataset
    assert ChainDataset is litnn.utils.data.ChainDataset and StackDataset is litnn.utils.data.StackDataset


# ---- torch.autograd.variable ----

def test_autograd_variable_module_as_torch():
    from litnn.autograd.variable import Variable, VariableMeta
    from torch.autograd.variable import Variable as TorchVariable
    assert Variable is litnn.autograd.Variable and isinstance(Variable, VariableMeta)
    assert isinstance(litnn.zeros(1), Variable) and isinstance(torch.zeros(1), TorchVariable)
    v, tv = Variable(litnn.ones(2), requires_grad=True), TorchVariable(torch.ones(2), requires_grad=True)
    assert (v.requires_grad, v.tolist()) == (tv.requires_grad, tv.tolist())

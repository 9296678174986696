"""Lazy modules (nbs/29b_lazy_modules) side by side with torch: shapes learnt on the first call, the class switch,
state dicts before and after, loading into a placeholder, values and gradients, `_apply` and hooks, and the errors."""
import copy, pickle, re
import numpy as np, pytest
import litnn
from nn_pairs import err, same
torch = pytest.importorskip('torch')

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])

# name: (constructor args, input shape)
LAZY = dict(
    LazyLinear=((3,), (4, 5)),
    LazyConv1d=((4, 3), (2, 6, 8)), LazyConv2d=((4, 3), (2, 6, 5, 5)), LazyConv3d=((4, 2), (2, 6, 3, 3, 3)),
    LazyConvTranspose1d=((4, 3), (2, 6, 5)), LazyConvTranspose2d=((4, 3), (2, 6, 4, 4)),
    LazyConvTranspose3d=((4, 2), (2, 6, 3, 3, 3)),
    LazyBatchNorm1d=((), (4, 6, 3)), LazyBatchNorm2d=((), (4, 6, 3, 3)), LazyBatchNorm3d=((), (2, 6, 2, 2, 2)),
    LazyInstanceNorm1d=((), (2, 6, 7)), LazyInstanceNorm2d=((), (2, 6, 4, 4)), LazyInstanceNorm3d=((), (2, 6, 3, 3, 3)),
)


def as_litnn(t): return litnn.tensor(t.detach().numpy().copy())


def state(sd): return {k: (type(v).__name__, None if 'Uninitialized' in type(v).__name__ else v.detach().cpu().numpy())
                       for k, v in sd.items()}


@pytest.mark.parametrize('name', list(LAZY))
def test_repr_and_state_dict_before_the_first_call(name):
    args, _ = LAZY[name]
    lm, tm = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(lm) == repr(tm)
    assert {k: type(v).__name__ for k, v in lm.state_dict().items()} == {k: type(v).__name__ for k, v in tm.state_dict().items()}
    assert [repr(p) for p in lm.parameters()] == [repr(p) for p in tm.parameters()]


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('name', list(LAZY))
def test_first_call_materialises_and_becomes_the_concrete_class(name, dtype):
    args, shape = LAZY[name]
    x = np.random.default_rng(0).standard_normal(shape)
    lm, tm = getattr(litnn.nn, name)(*args, dtype=getattr(litnn, dtype)), getattr(torch.nn, name)(*args, dtype=getattr(torch, dtype))
    tx, lx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True), litnn.tensor(x, dtype=getattr(litnn, dtype), requires_grad=True)
    ty = tm(tx)
    lm(litnn.tensor(x, dtype=getattr(litnn, dtype)))         # first call: shapes inferred, random init
    assert type(lm).__name__ == type(tm).__name__ and repr(lm) == repr(tm)
    assert not lm._forward_pre_hooks and not lm._load_state_dict_pre_hooks
    assert {k: (tuple(v.shape), str(v.dtype)) for k, v in lm.state_dict().items()} == \
           {k: (tuple(v.shape), str(v.dtype).replace('torch', 'litnn')) for k, v in tm.state_dict().items()}
    tm.zero_grad()   # compare a second call, from the same state (batch norm's running statistics moved in the first)
    lm.load_state_dict({k: as_litnn(v) for k, v in tm.state_dict().items()})
    ty, ly = tm(tx), lm(lx)
    ty.square().sum().backward(); ly.square().sum().backward()
    tol = 1e-10 if dtype == 'float64' else 1e-4
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=tol, atol=tol)
    for (k, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=tol, atol=tol, err_msg=k)


def test_instance_norm_loaded_before_its_first_call_raises_as_torch():
    "torch's `initialize_parameters` sets `num_features` only while something is uninitialized: a loaded one keeps 0."
    def run(lib):
        m = lib.nn.LazyInstanceNorm2d(); m(lib.ones(2, 6, 4, 4))
        loaded = lib.nn.LazyInstanceNorm2d(); loaded.load_state_dict(m.state_dict())
        return err(loaded, lib.ones(2, 6, 4, 4))
    assert same(run)[0] is ValueError


@pytest.mark.parametrize('name', ['LazyLinear', 'LazyConv2d', 'LazyConvTranspose1d', 'LazyBatchNorm1d', 'LazyInstanceNorm2d'])
def test_load_state_dict_materialises(name):
    args, shape = LAZY[name]
    tm = getattr(torch.nn, name)(*args); tm(torch.randn(shape))
    sd = tm.state_dict()
    lm, tl = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
    lm.load_state_dict({k: as_litnn(v) for k, v in sd.items()}); tl.load_state_dict(sd)
    assert type(lm).__name__ == type(tl).__name__          # still lazy until the first call, as torch
    assert state(lm.state_dict()).keys() == state(tl.state_dict()).keys()
    for (k, a), (_, b) in zip(state(lm.state_dict()).items(), state(tl.state_dict()).items()):
        assert a[0].replace('Tensor', 'Parameter') == b[0].replace('Tensor', 'Parameter'), k
        np.testing.assert_array_equal(a[1], b[1], err_msg=k)
    if 'Instance' in name: return    # see the test above
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(lm.eval()(litnn.tensor(x)).detach().numpy(), tl.eval()(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    assert type(lm).__name__ == type(tl).__name__ == name[4:]


def test_placeholder_allowed_and_refused():
    for lib in (litnn, torch):
        p = lib.nn.UninitializedParameter(dtype=lib.float64)
        assert (repr(p), str(p.dtype).split('.')[1], p.requires_grad, tuple(p.size()), p.is_floating_point()) == \
               ('<UninitializedParameter>', 'float64', True, (0,), True)
        assert p.double().dtype == lib.float64 and p.to(lib.float32).dtype == lib.float32 and p.data.shape == (0,)
        assert lib.nn.parameter.is_lazy(p) and not lib.nn.parameter.is_lazy(lib.nn.Parameter(lib.ones(1)))
    b = same(lambda lib: (repr(lib.nn.UninitializedBuffer()), lib.nn.UninitializedBuffer().requires_grad,
                          isinstance(lib.nn.UninitializedBuffer(), lib.nn.Buffer)))
    assert b == ('<UninitializedBuffer>', False, True)


@pytest.mark.parametrize('use', [lambda p: p + 1, lambda p: p.sum(), lambda p: p.numel(), lambda p: p.dim(),
                                 lambda p: p * p, lambda p: p.exp(), lambda p: p.view(-1), lambda p: p.numpy()])
def test_using_a_placeholder_raises_torchs_value_error(use):
    lt, lm = err(use, litnn.nn.UninitializedParameter())
    tt, tmsg = err(use, torch.nn.UninitializedParameter())
    assert lt is tt is ValueError, (lt, lm)
    head, tail = re.split(r' in .*?\. This', tmsg, maxsplit=1)
    assert lm.startswith(head + ' in ') and lm.endswith('This' + tail)


def test_shape_and_share_memory_errors():
    same(lambda lib: err(lambda: lib.nn.UninitializedParameter().shape))
    same(lambda lib: err(lambda: lib.nn.UninitializedBuffer().share_memory_()))
    same(lambda lib: err(lambda: lib.nn.UninitializedParameter(dtype=lib.long)))
    assert 'Can\'t access the shape' in err(lambda: litnn.nn.LazyLinear(3).weight.shape)[1]


def test_materialize():
    for lib in (litnn, torch):
        p = lib.nn.UninitializedParameter(requires_grad=False, dtype=lib.float64)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == lib.float64 and not p.requires_grad
        b = lib.nn.UninitializedBuffer()
        b.materialize(4, dtype=lib.float64)
        assert type(b) is lib.Tensor and tuple(b.shape) == (4,) and b.dtype == lib.float64


def test_mixin_errors():
    def run(lib):
        from importlib import import_module
        Mixin = import_module(f'{lib.__name__}.nn.modules.lazy').LazyModuleMixin
        class Foo(Mixin, lib.nn.Module): pass
        class Bar(Mixin, lib.nn.Module):
            def __init__(self): super().__init__(); self.w = lib.nn.UninitializedParameter()
            def initialize_parameters(self, x): pass
        return err(Foo(), lib.ones(2)), err(Bar(), lib.ones(2))
    same(run)


def test_input_rank_and_groups_errors():
    same(lambda lib: err(lib.nn.LazyConv2d(4, 3), lib.ones(3, 3)))
    same(lambda lib: err(lib.nn.LazyConv2d(4, 3, groups=2), lib.ones(3, 5, 5)))
    same(lambda lib: err(lib.nn.LazyConvTranspose3d(4, 3), lib.ones(3, 3)))


def test_apply_to_and_double_keep_placeholders():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d()).double()
        before = [(type(p).__name__, str(p.data.dtype).split('.')[1]) for p in m.state_dict().values() if 'Uninit' in type(p).__name__]
        y = m(lib.ones(4, 5, dtype=lib.float64))
        return before, str(y.dtype).split('.')[1], [type(c).__name__ for c in m], [str(p.dtype).split('.')[1] for p in m.parameters()]
    before, *_ = same(run)
    assert before[0] == ('UninitializedParameter', 'float64')
    m = litnn.nn.LazyLinear(3).to(litnn.float64).float()
    assert m.weight.data.dtype == litnn.float32 and litnn.nn.parameter.is_lazy(m.weight)


def test_hooks_see_the_concrete_module():
    "The lazy hook was registered first, so a user's pre-hook already sees the materialised Linear."
    for lib in (litnn, torch):
        seen = []
        m = lib.nn.LazyLinear(3)
        m.register_forward_pre_hook(lambda mod, args: seen.append(('pre', type(mod).__name__, mod.in_features)))
        m.register_forward_hook(lambda mod, args, out: seen.append(('post', type(mod).__name__, tuple(out.shape))))
        m(lib.ones(2, 4)); m(lib.ones(2, 4))
        assert seen == [('pre', 'Linear', 4), ('post', 'Linear', (2, 3))] * 2
        assert len(m._forward_pre_hooks) == 1


def test_kwargs_reach_initialize_parameters():
    for lib in (litnn, torch):
        m = lib.nn.LazyConvTranspose2d(2, 3, stride=2)
        y = m(lib.ones(1, 4, 3, 3), output_size=(8, 8))
        assert tuple(y.shape) == (1, 2, 8, 8) and tuple(m.weight.shape) == (4, 2, 3, 3)


def test_deepcopy_and_pickle_before_the_first_call():
    m = litnn.nn.LazyLinear(3, dtype=litnn.float64)
    c = copy.deepcopy(m)
    assert c.weight is not m.weight and litnn.nn.parameter.is_lazy(c.weight) and c.weight.dtype == litnn.float64
    c(litnn.ones(2, 4, dtype=litnn.float64))
    assert type(c) is litnn.nn.Linear and type(m) is litnn.nn.LazyLinear
    p = pickle.loads(pickle.dumps(litnn.nn.UninitializedParameter(requires_grad=False)))
    assert repr(p) == '<UninitializedParameter>' and not p.requires_grad


def test_a_lazy_model_trains_like_torch():
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.LazyConv1d(3, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.LazyLinear(2))
    x = np.random.default_rng(2).standard_normal((4, 2, 6)).astype(np.float32)
    tm = build(torch); tm(torch.tensor(x))
    lm = build(litnn); lm(litnn.tensor(x))
    lm.load_state_dict({k: as_litnn(v) for k, v in tm.state_dict().items()})
    to, lo = torch.optim.SGD(tm.parameters(), 0.1), litnn.optim.SGD(lm.parameters(), 0.1)
    for _ in range(3):
        for m, o, lib in ((tm, to, torch), (lm, lo, litnn)):
            o.zero_grad(); m(lib.tensor(x)).square().mean().backward(); o.step()
    for (k, a), (_, b) in zip(lm.state_dict().items(), tm.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize('device', DEVICES)
def test_placeholders_on_a_device(device):
    m = litnn.nn.LazyLinear(3, device=device)
    assert m.weight.device.type == device
    m(litnn.ones(2, 4, device=device))
    assert m.weight.device.type == device and type(m) is litnn.nn.Linear
    if device == 'cpu' and litnn.cuda.is_available():
        assert litnn.nn.LazyLinear(3).cuda().weight.device.type == 'cuda'


def test_a_lazy_module_pickles_before_its_first_call_as_torch():
    "Its initializing hook's handle holds weak references: pickled as torch's RemovableHandle, by the dictionaries themselves."
    import pickle
    m = pickle.loads(pickle.dumps(litnn.nn.Sequential(litnn.nn.LazyLinear(4), litnn.nn.ReLU())))
    assert type(m[0]).__name__ == 'LazyLinear' and type(m[0].weight).__name__ == 'UninitializedParameter'
    assert m(litnn.randn(2, 3)).shape == (2, 4) and type(m[0]).__name__ == 'Linear'     # the hook still materializes
    h = m.register_forward_pre_hook(print)
    h2 = pickle.loads(pickle.dumps((m, h)))[1]
    assert h2.id == h.id and litnn.utils.hooks.RemovableHandle.next_id > h.id


def _lazy_holder(lib, kind):
    "A LazyModuleMixin module with one placeholder parameter or buffer."
    from importlib import import_module
    class Holder(import_module(f'{lib.__name__}.nn.modules.lazy').LazyModuleMixin, lib.nn.Module): pass
    m = Holder()
    if kind == 'param': m.register_parameter('t', lib.nn.UninitializedParameter())
    else: m.t = lib.nn.UninitializedBuffer()
    return m


@pytest.mark.parametrize('kind', ['param', 'buffer'])
def test_loading_a_placeholder_into_a_placeholder_keeps_it(kind):
    "Two modules not run yet: loading one's state dict into the other is a no-op (as torch), not an error."
    def run(lib):
        m = _lazy_holder(lib, kind)
        r = repr(m.load_state_dict(_lazy_holder(lib, kind).state_dict()))
        return r, m.has_uninitialized_params(), type(m.t).__name__
    assert same(run)[1]


def test_placeholder_properties_as_torch():
    "Properties of a placeholder answer from its empty array (torch lets every property through); methods are refused."
    def run(lib):
        out = []
        for p in (lib.nn.UninitializedParameter(), lib.nn.UninitializedBuffer()):
            out += [p.ndim, str(p.layout).split('.')[-1], p.nbytes, p.itemsize, p.is_sparse, tuple(p.T.size())]
            out += [err(lambda: p.mT)[0], err(lambda: p.dim())[0]]
        return out
    same(run)


def test_weight_norm_spectral_norm_and_script_refuse_placeholders():
    def run(lib):
        with pytest.warns(FutureWarning): wn = err(lib.nn.utils.weight_norm, lib.nn.LazyLinear(7))
        return wn, err(lib.nn.utils.spectral_norm, lib.nn.LazyLinear(7)), \
            err(lib.jit.script, lib.nn.Sequential(lib.nn.LazyLinear(3)))[0]
    (wt, wm), (st, sm), jt = same(run)
    assert wt is st is ValueError and "can't have uninitialized parameters" in wm + sm and jt is RuntimeError
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(RuntimeError, match=r"'litnn.nn.modules.linear.LazyLinear' has uninitialized parameters weight\. "
                                                r"Did you forget to run a forward pass\?"):
            litnn.jit.script(litnn.nn.LazyLinear(3))
        m = litnn.nn.LazyLinear(3); m(litnn.ones(2, 4))
        assert litnn.jit.script(m) is m

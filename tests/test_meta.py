"""The meta device (nbs/18_meta_device) side by side with torch: shapes and dtypes of operations and gradients, reprs,
the errors for anything that needs values, building a model without memory, `to_empty`, `skip_init`,
`load_state_dict(assign=True)`, `_apply` and hooks through meta modules, and the memory it saves."""
import gc, tracemalloc, warnings
import numpy as np, pytest
import litnn
from litnn.meta import MetaArray
from nn_pairs import err, same, norm
torch = pytest.importorskip('torch')

GPU = litnn.cuda.is_available()
F = {litnn: litnn.nn.functional, torch: torch.nn.functional}


def desc(r):
    "Shape, dtype name and device type of a result (tuples of them too)."
    if isinstance(r, (tuple, list)): return tuple(desc(x) for x in r)
    return tuple(r.shape), str(r.dtype).split('.')[1], r.device.type


OPS = dict(
    add_broadcast=lambda L, a, b: a + b[0], matmul=lambda L, a, b: a @ b.transpose(0, 1),
    bmm=lambda L, a, b: L.matmul(a.reshape(2, 3, 4), b.reshape(2, 4, 3)),
    sum=lambda L, a, b: a.sum(1, keepdim=True), mean=lambda L, a, b: a.mean(), max_dim=lambda L, a, b: a.max(0),
    argmax=lambda L, a, b: a.argmax(1), int_times_float=lambda L, a, b: L.ones(6, 4, dtype=L.int64, device='meta') * 2.5,
    compare=lambda L, a, b: a > b, where=lambda L, a, b: L.where(a > 0, a, b), cat=lambda L, a, b: L.cat([a, b], 1),
    stack=lambda L, a, b: L.stack([a, b]), slicing=lambda L, a, b: a[1:, None, ::2],
    index_tensor=lambda L, a, b: a[L.tensor([0, 2], device='meta')], softmax=lambda L, a, b: F[L].softmax(a, -1),
    linear=lambda L, a, b: F[L].linear(a, b),
    conv2d=lambda L, a, b: F[L].conv2d(L.empty(2, 3, 8, 8, device='meta'), L.empty(5, 3, 3, 3, device='meta'), padding=1, stride=2),
    layer_norm=lambda L, a, b: F[L].layer_norm(a, (4,)),
    embedding=lambda L, a, b: F[L].embedding(L.zeros(2, 5, dtype=L.long, device='meta'), a),
    einsum=lambda L, a, b: L.einsum('ij,kj->ik', a, b), cumsum=lambda L, a, b: a.cumsum(0), topk=lambda L, a, b: a.topk(2, 1),
    sort=lambda L, a, b: a.sort(1), double=lambda L, a, b: a.double(), view=lambda L, a, b: a.view(2, 12),
    expand=lambda L, a, b: a[:, :1].expand(6, 7), permute=lambda L, a, b: a.unsqueeze(0).permute(2, 0, 1),
    unary=lambda L, a, b: a.exp().log1p().sqrt(), pow=lambda L, a, b: a ** 2, clamp=lambda L, a, b: a.clamp(0, 1),
    mse=lambda L, a, b: F[L].mse_loss(a, b), dropout=lambda L, a, b: F[L].dropout(a, 0.5),
    randn=lambda L, a, b: L.randn(3, 4, device='meta'), zeros_like=lambda L, a, b: L.zeros_like(a),
    gather=lambda L, a, b: a.gather(1, L.zeros(6, 2, dtype=L.long, device='meta')),
    scatter_add=lambda L, a, b: a.scatter_add(1, L.zeros(6, 2, dtype=L.long, device='meta'), b[:, :2]),
    max_pool=lambda L, a, b: F[L].max_pool2d(L.empty(2, 3, 8, 8, device='meta'), 2),
    batch_norm=lambda L, a, b: F[L].batch_norm(a, None, None, training=True),
    arange=lambda L, a, b: L.arange(5, device='meta'), tensor=lambda L, a, b: L.tensor([1., 2.], device='meta'),
    full=lambda L, a, b: L.full((2,), 3, device='meta'), eye=lambda L, a, b: L.eye(3, 2, device='meta'),
    to_meta=lambda L, a, b: L.ones(2, 3).to('meta'), float16=lambda L, a, b: a.half() + 1,
)


@pytest.mark.parametrize('name', list(OPS))
def test_operation_shapes_and_dtypes(name):
    same(lambda L: desc(OPS[name](L, L.empty(6, 4, device='meta'), L.empty(6, 4, device='meta'))))


@pytest.mark.parametrize('make', [lambda L: L.empty(2, 3, device='meta'), lambda L: L.empty(0, device='meta'),
                                  lambda L: L.empty(3, dtype=L.float64, device='meta'), lambda L: L.zeros((), device='meta'),
                                  lambda L: L.ones(2, dtype=L.long, device='meta'),
                                  lambda L: L.empty(2, device='meta', requires_grad=True) * 2,
                                  lambda L: L.nn.Parameter(L.empty(4, 3, device='meta')),
                                  lambda L: L.empty(2, 3, device='meta', requires_grad=True)])
def test_reprs(make):
    assert repr(make(litnn)) == norm(repr(make(torch)))
    assert str(make(litnn)) == norm(str(make(torch)))


def test_device_and_flags():
    for L in (litnn, torch):
        t = L.empty(2, device='meta')
        assert (str(t.device), repr(t.device), t.is_meta, t.is_cuda, t.is_cpu, t.get_device()) == \
               ('meta', "device(type='meta')", True, False, False, -1)
        assert not L.ones(2).is_meta and L.device('meta') == t.device and t.nbytes == 8 and t.numel() == 2
    same(lambda L: norm(L.empty(2, device='meta').type()))


@pytest.mark.parametrize('use', [lambda t: t.sum().item(), lambda t: bool(t.sum()), lambda t: float(t.sum()),
                                 lambda t: int(t.sum()), lambda t: t.tolist(), lambda t: t.numpy(), lambda t: t.cpu(),
                                 lambda t: t.to('cpu'), lambda t: t.item(), lambda t: t.numpy(force=True)])
def test_what_needs_values_raises_as_torch(use):
    same(lambda L: err(use, L.empty(2, 3, device='meta')))


@pytest.mark.parametrize('use', [lambda L, t: L.nonzero(t), lambda L, t: t[t > 0], lambda L, t: t.unique()])
def test_data_dependent_shapes_raise_not_implemented(use):
    assert err(use, litnn, litnn.empty(2, 3, device='meta'))[0] is err(use, torch, torch.empty(2, 3, device='meta'))[0] \
           is NotImplementedError


def test_shape_errors_are_still_found():
    for f in (lambda L: L.empty(2, 3, device='meta') + L.empty(4, device='meta'),
              lambda L: L.empty(2, 3, device='meta') @ L.empty(4, 2, device='meta'),
              lambda L: L.empty(2, 3, device='meta').view(4, 2)):
        assert err(f, litnn)[0] is err(f, torch)[0] is RuntimeError


def test_gradients_are_meta_tensors_of_the_leaves_shapes():
    def run(L):
        x = L.empty(4, 3, device='meta', requires_grad=True)
        w = L.empty(5, 3, device='meta', requires_grad=True)
        y = F[L].linear(x, w).tanh().mean()
        y.backward()
        return desc(y), type(y.grad_fn).__name__, desc(x.grad), desc(w.grad)
    same(run)


def test_meta_array_values_refused():
    m = MetaArray((2, 3), np.float32)
    for f in (lambda: np.asarray(m), lambda: m.tolist(), lambda: float(m[0, 0]), lambda: m.item()):
        with pytest.raises(NotImplementedError, match='no data'): f()
    assert (m + 1).shape == (2, 3) and (m @ MetaArray((3, 1000000), np.float32)).shape == (2, 1000000)


def test_module_built_on_meta():
    def run(L):
        m = L.nn.Sequential(L.nn.Conv2d(3, 8, 3, device='meta'), L.nn.BatchNorm2d(8, device='meta'), L.nn.ReLU(),
                            L.nn.Flatten(), L.nn.Linear(8 * 6 * 6, 10, device='meta'))
        out = m(L.empty(4, 3, 8, 8, device='meta'))
        return desc(out), {k: desc(v) for k, v in m.state_dict().items()}, repr(m[0].weight)
    out, sd, r = same(lambda L: tuple(map(lambda v: norm(v) if isinstance(v, str) else v, run(L))))
    assert out == ((4, 10), 'float32', 'meta')


def test_with_device_and_set_default_device():
    for L in (litnn, torch):
        with L.device('meta'):
            lin = L.nn.Linear(3, 4)
            assert L.empty(2).is_meta
        assert lin.weight.is_meta and not L.empty(2).is_meta
        L.set_default_device('meta')
        try: assert L.nn.Linear(3, 4).bias.is_meta and L.zeros(3).is_meta
        finally: L.set_default_device(None)
        assert not L.zeros(3).is_meta
    with litnn.device('meta'):
        with litnn.device('cpu'): assert not litnn.empty(1).is_meta
        assert litnn.empty(1).is_meta


def test_to_refuses_and_to_empty_gives_storage():
    def run(L):
        m = L.nn.Linear(3, 4, device='meta')
        e = err(m.to, 'cpu')
        m.to_empty(device='cpu')
        return e, desc(m.weight), desc(m(L.ones(2, 3)))
    e, *_ = same(lambda L: tuple(norm(x) if isinstance(x, str) else x for x in run(L)))
    assert e[0] is NotImplementedError


def test_to_empty_recurse_false():
    for L in (litnn, torch):
        m = L.nn.Sequential(L.nn.Linear(2, 2, device='meta'))
        m.register_buffer('b', L.empty(3, device='meta'))
        m.to_empty(device='cpu', recurse=False)
        assert not m.b.is_meta and m[0].weight.is_meta


def test_apply_and_hooks_through_meta_modules():
    def run(L):
        seen = []
        m = L.nn.Linear(3, 4, device='meta').double()
        m.register_forward_hook(lambda mod, args, out: seen.append(desc(out)))
        m(L.empty(2, 3, dtype=L.float64, device='meta'))
        return desc(m.weight), seen
    same(run)


def test_skip_init():
    for L in (litnn, torch):
        m = L.nn.utils.skip_init(L.nn.Linear, 3, 4, dtype=L.float64)
        assert desc(m.weight) == ((4, 3), 'float64', 'cpu')
    same(lambda L: err(L.nn.utils.skip_init, L.nn.ReLU))
    same(lambda L: err(L.nn.utils.skip_init, int))


def test_load_state_dict_assign_onto_meta_model():
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    sd = {k: litnn.tensor(v.numpy().copy()) for k, v in tm.state_dict().items()}
    m = litnn.nn.Sequential(litnn.nn.Linear(3, 4, device='meta'), litnn.nn.BatchNorm1d(4, device='meta'))
    m.load_state_dict(sd, assign=True)
    assert not any(p.is_meta for p in m.state_dict().values())
    assert m[0].weight.data_ptr() == sd['0.weight'].data_ptr() and type(m[0].weight) is litnn.nn.Parameter
    assert m[0].weight.requires_grad and not m[1].running_mean.requires_grad
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(m.eval()(litnn.tensor(x)).detach().numpy(), tm.eval()(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_loading_without_assign_into_meta_warns_and_meta_into_real_fails():
    def run(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            m = L.nn.Linear(3, 4, device='meta'); m.load_state_dict(L.nn.Linear(3, 4).state_dict())
        return [(x.category, norm(str(x.message))) for x in w], m.weight.is_meta, err(L.nn.Linear(3, 4).load_state_dict,
                                                                                       L.nn.Linear(3, 4, device='meta').state_dict())
    w, still_meta, e = same(lambda L: tuple(norm(x) if isinstance(x, str) else (x[0], norm(x[1])) if isinstance(x, tuple) else x
                                            for x in run(L)))
    assert len(w) == 2 and still_meta and e[0] is RuntimeError


def test_lazy_module_on_meta():
    for L in (litnn, torch):
        m = L.nn.LazyLinear(3, device='meta')
        y = m(L.empty(2, 5, device='meta'))
        assert type(m) is L.nn.Linear and desc(m.weight) == ((3, 5), 'float32', 'meta') and desc(y) == ((2, 3), 'float32', 'meta')


def _peak(f):
    gc.collect(); tracemalloc.start()
    r = f()
    peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    return r, peak


def test_building_on_meta_allocates_nothing():
    build = lambda device: litnn.nn.Sequential(*[litnn.nn.Linear(1024, 1024, device=device) for _ in range(4)])
    _, on_cpu = _peak(lambda: build('cpu'))
    _, on_meta = _peak(lambda: build('meta'))
    assert on_cpu > 16 * 2**20 and on_meta < 2**20
    sd = build('cpu').state_dict()
    _, assigned = _peak(lambda: build('meta').load_state_dict(sd, assign=True))
    assert assigned < 2**20      # the checkpoint's arrays become the parameters: nothing is copied


@pytest.mark.skipif(not GPU, reason="needs a GPU (CuPy)")
def test_meta_and_cuda():
    t = litnn.ones(2, 3, device='cuda').to('meta')
    assert t.is_meta and t.shape == (2, 3)
    m = litnn.nn.Linear(3, 4, device='meta').to_empty(device='cuda')
    assert m.weight.is_cuda and m(litnn.ones(2, 3, device='cuda')).shape == (2, 4)
    with pytest.raises(NotImplementedError): litnn.empty(2, device='meta').cuda()


def test_to_out_of_meta_message_is_torchs():
    "Module.to() out of the meta device: torch's words (tests match them with a regex)."
    import re
    msg = ("Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
           "when moving module from meta to a different device.")
    for L in (torch, litnn):
        with pytest.raises(NotImplementedError, match=re.escape(msg)): L.nn.Linear(3, 4, device='meta').to('cpu')

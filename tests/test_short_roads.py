"""The short roads of the hottest eager operations (nbs/12_backprop_graph, 12b, 13, 15b) against the general road
they skip: `*` and `+` on plain float tensors (`_plain_binary`), the unary functions (`_plain_apply`), tanh's and
sigmoid's backward into one array (`df_into`), sigmoid's forward with two temporaries, and the in-place update
`p -= lr * p.grad` (`_inplace_plain`). Each road must give the same bits, the same graph and the same versions;
a few values are checked against torch too."""
import numpy as np, pytest
import litnn
from litnn.autograd import operators, engine
from litnn import _pointwise

torch = pytest.importorskip('torch')

@pytest.fixture
def general(monkeypatch):
    "A switch: inside `with general():`-style calls, every short road is closed and the general one runs."
    def close():
        monkeypatch.setattr(operators, '_quiet', lambda: False)
        monkeypatch.setattr(_pointwise, '_quiet', lambda: False)
        monkeypatch.setattr(engine, '_inplace_plain', lambda *a: False)
        monkeypatch.setattr(_pointwise, '_inplace_plain', lambda *a: False)
        monkeypatch.setattr(_pointwise.TanhBackward0, 'df_into', None)
        monkeypatch.setattr(_pointwise.SigmoidBackward0, 'df_into', None)
    return close

def graph(t):
    "What a graph shows of itself from output `t`: node types, edges, output numbers, saved values (as bits), walked to the leaves."
    out, seen, stack = [], set(), [t.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen: continue
        seen.add(id(n))
        saved = [None if v is None else ('T', v._data.tobytes()) if isinstance(v, litnn.Tensor) else v for v in getattr(n, '_saved', ())]
        out.append((type(n).__name__, [(type(f).__name__, nr) for f, nr in n.next_functions], getattr(n, 'shapes', None), saved))
        stack.extend(f for f, _ in n.next_functions)
    return out

def run(program, dtype, seed=0):
    "Run `program(x, c)` on fresh inputs; the output's bits, graph and version, and the gradients' bits."
    rng = np.random.default_rng(seed)
    x = litnn.tensor(rng.standard_normal((4, 5)).astype(dtype), requires_grad=True)
    c = litnn.tensor((rng.random((4, 5)) + 0.5).astype(dtype))
    y = program(x, c)
    info = (y._data.dtype, y._data.tobytes(), y.requires_grad, graph(y) if y.grad_fn is not None else None, y._version)
    if y.requires_grad:
        y.sum().backward()
        info += (x.grad._data.tobytes(),)
    return info

PROGRAMS = {
    'mul tensors': lambda x, c: x * c,
    'mul reflected': lambda x, c: c * x,
    'mul self': lambda x, c: x * x,
    'mul float': lambda x, c: x * 1.5,
    'rmul float': lambda x, c: 0.1 * x,
    'mul int': lambda x, c: x * 3,
    'add tensors': lambda x, c: x + c,
    'add float': lambda x, c: x + 0.5,
    'radd int': lambda x, c: 2 + x,
    'no grad input': lambda x, c: c * c + 1.0,
    'broadcast': lambda x, c: x * c[0] + c[:, :1],
    'views': lambda x, c: x.t() * c.t() + x[1:, ::2].tanh().sum(),
    'chain': lambda x, c: ((x * c + 0.5).tanh() * 1.5).sigmoid() * (x + x),
    'unary': lambda x, c: (x.exp().sin().relu() + 1).sqrt().abs() + x.sign() + x.floor() + x.cos().log1p(),
    'sigmoid big': lambda x, c: (x * 100.0).sigmoid() + (x * -100.0).sigmoid(),
    '0-d': lambda x, c: (x.sum() * 2.0 + 1).tanh().sigmoid() * x[0, 0],
    'saved then changed elsewhere': lambda x, c: (lambda v: v * x)(c.clone()),
}

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('name', PROGRAMS)
def test_short_road_equals_general_road(name, dtype, general):
    short = run(PROGRAMS[name], dtype)
    general()
    assert run(PROGRAMS[name], dtype) == short

@pytest.mark.parametrize('name', ['chain', 'mul self', 'unary'])
def test_short_road_create_graph(name, general):
    "Second derivatives record through the same nodes on both roads."
    def second(program):
        x = litnn.tensor(np.linspace(0.1, 2, 20).reshape(4, 5), requires_grad=True)
        c = litnn.tensor(np.linspace(1, 2, 20).reshape(4, 5))
        g, = litnn.autograd.grad(program(x, c).sum(), x, create_graph=True)
        gg, = litnn.autograd.grad(g.sum(), x)
        return g._data.tobytes(), gg._data.tobytes()
    short = second(PROGRAMS[name])
    general()
    assert second(PROGRAMS[name]) == short

def test_chain_against_torch():
    "The benchmark's chain (bench/elementwise_chain.py), its value and gradient against torch."
    rng = np.random.default_rng(1)
    x0, c0 = rng.standard_normal((16, 16)).astype(np.float32), (rng.random((16, 16)) + 0.5).astype(np.float32)
    res = []
    for lib in (litnn, torch):
        x, c = lib.tensor(x0, requires_grad=True), lib.tensor(c0)
        y = x
        for _ in range(10): y = (((y * c + 0.5).tanh()) * 1.5).sigmoid()
        y.sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-7)

def test_sigmoid_forward_is_the_four_step_formula():
    "One temporary, torch's operations: 1 / (1 + exp(-a)) (and silu a / (1 + exp(-a))), bit for bit, 0-d and half precision included."
    a = np.concatenate([np.linspace(-120, 120, 97), [0., -0., np.inf, -np.inf, np.nan, 88., 89.]])
    for dt in (np.float32, np.float64):
        v = a.astype(dt)
        with np.errstate(over='ignore'): d = dt(1) + np.exp(-v)
        np.testing.assert_array_equal(_pointwise._sigmoid(np, v), dt(1) / d)
        np.testing.assert_array_equal(_pointwise._sigmoid(np, v[3:4].reshape(())), (dt(1) / d)[3])
        with np.errstate(invalid='ignore'): np.testing.assert_array_equal(_pointwise._silu(np, v), v / d)   # -inf / inf: NaN, as torch
    h = a.astype(np.float16)
    np.testing.assert_array_equal(_pointwise._sigmoid(np, h), _pointwise._sigmoid(np, h.astype(np.float32)).astype(np.float16))

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
def test_df_into_is_df(dtype):
    "tanh's and sigmoid's derivative written into one array equals the formula of their table row, bit for bit."
    rng = np.random.default_rng(2)
    g, y = rng.standard_normal((3, 7)).astype(dtype), rng.random((3, 7)).astype(dtype)
    np.testing.assert_array_equal(_pointwise._dtanh_into(g, y), _pointwise.TanhBackward0.df(g, None, y))
    np.testing.assert_array_equal(_pointwise._dsigmoid_into(g, y), _pointwise.SigmoidBackward0.df(g, None, y))
    assert _pointwise._dtanh_into(g, y).dtype == dtype

def test_df_into_other_gradient_dtype():
    "A gradient of another dtype than the output (a user's grad_tensors) takes the table's formula, as before."
    x = litnn.tensor([0.5, -1.], requires_grad=True)
    y = x.tanh()
    y.backward(litnn.tensor([1., 2.], dtype=litnn.float64))
    assert x.grad.dtype == litnn.float32
    t = torch.tensor([0.5, -1.], requires_grad=True)
    t.tanh().backward(torch.tensor([1., 2.]))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)

@pytest.mark.filterwarnings("ignore")     # anomaly mode warns by design
def test_short_roads_stay_closed_while_something_listens():
    "vmap, anomaly mode, saved-tensor hooks and forward-mode AD see every operation, as on the general road."
    x = litnn.tensor([1., 2.], requires_grad=True)
    packed = []
    with litnn.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        (x * x).tanh().sum().backward()
    assert len(packed) == 3          # x twice for the product, tanh's output
    with litnn.autograd.detect_anomaly(check_nan=True):
        with pytest.raises(RuntimeError, match="returned nan"):
            (litnn.tensor([0.], requires_grad=True) * np.inf * 0.0).sum().backward()
    out = litnn.func.vmap(lambda r: r * 2.0 + r.sigmoid())(litnn.ones(3, 2))
    assert out.shape == (3, 2)
    import litnn.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        d = fwAD.make_dual(litnn.tensor([0.5]), litnn.tensor([1.]))
        t = fwAD.unpack_dual((d * 3.0).tanh()).tangent
    np.testing.assert_allclose(t.numpy(), 3 * (1 - np.tanh(1.5) ** 2), rtol=1e-6)

def test_short_road_keeps_errors():
    "Refusals on the short road's doorstep: the general road's messages."
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        litnn.ones(2, 3, requires_grad=True) * litnn.ones(4)
    x = litnn.tensor([1., 2.], requires_grad=True)
    y = x * 1.0
    z = y * y
    with litnn.no_grad(): y.add_(1.)                   # the short in-place road: still a new version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()

@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
def test_inplace_update_equals_general_road(dtype, general):
    "An optimizer's update under no_grad: the same bits and versions on both roads, views included."
    def update():
        rng = np.random.default_rng(3)
        p = litnn.tensor(rng.standard_normal((4, 6)).astype(dtype), requires_grad=True)
        (p * p).sum().backward()
        v = p.view(24)
        with litnn.no_grad():
            p -= 0.01 * p.grad
            p += p.grad
            p *= 0.5
            p /= 3
            p -= 1
            v[::2] *= 2.0
            p.add_(p.grad, alpha=0.1)
        q = litnn.zeros(4, 6, dtype=litnn.tensor(p._data).dtype)
        q += p.detach()                                     # grad mode on, nothing requires grad
        return p._data.tobytes(), p._version, v._version, q._data.tobytes(), q._version
    short = update()
    general()
    assert update() == short

def test_inplace_update_refusals():
    "What the short in-place road must leave to the general one: torch's errors."
    p = litnn.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p -= litnn.tensor([1., 1.])
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        with litnn.no_grad(): p -= litnn.tensor([True, False])
    with litnn.no_grad():
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            p -= litnn.ones(3, 2)
        e = litnn.ones(1).expand(3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            e += litnn.ones(3)
        i = litnn.tensor([1, 2])
        with pytest.raises(RuntimeError, match="can't be cast"):
            i -= 0.5
    assert p.tolist() == [1., 2.] and p._version == 0

"""Discrepancies found by porting PyTorch's test_autograd.py, each run side by side in litnn and torch:
grad-mode decorators (bare, on generators and classes), the engine's validation of a custom backward's gradients,
GradientEdge, calling a grad_fn, once_differentiable, materialize_grads, is_grads_batched, and the create_graph warning."""
import warnings
import pytest
import litnn

torch = pytest.importorskip('torch')
LIBS = [litnn, torch]

@pytest.fixture(autouse=True)
def grad_mode_on():
    yield
    for L in LIBS: L.set_grad_enabled(True)

def run(L, fn):
    "fn(L)'s result, or (exception type name, message)."
    try: return fn(L)
    except Exception as e: return (type(e).__name__, str(e).replace('litnn.', 'torch.'))

def same(fn):
    a, b = run(litnn, fn), run(torch, fn)
    assert a == b, (a, b)
    return a

def test_inference_mode_without_parentheses():
    def f(L):
        @L.inference_mode
        def g(x): return (x * 2).tolist(), L.is_inference_mode_enabled(), g.__name__
        return g(L.ones(2))
    assert same(f) == ([2., 2.], True, 'g')

@pytest.mark.parametrize('mode', ['no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode'])
def test_grad_mode_decorates_generators(mode):
    def f(L):
        deco = {'no_grad': L.no_grad(), 'enable_grad': L.enable_grad(), 'set_grad_enabled': L.set_grad_enabled(False),
                'inference_mode': L.inference_mode()}[mode]
        L.set_grad_enabled(mode != 'enable_grad')
        @deco
        def gen():
            r = yield (L.is_grad_enabled(), L.is_inference_mode_enabled())
            try: yield (r, L.is_grad_enabled())
            except KeyError: yield ('thrown', L.is_grad_enabled())
            finally: seen.append(L.is_grad_enabled())
        seen, g = [], gen()
        out = [next(g), L.is_grad_enabled(), g.send('r'), L.is_grad_enabled(), g.throw(KeyError), L.is_grad_enabled()]
        g.close()
        return out, seen, L.is_grad_enabled()
    same(f)

def test_decorating_a_class_warns():
    def f(L):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter('always')
            @L.no_grad()
            class C:
                def __init__(self): self.on = L.is_grad_enabled()
        return [(w.category.__name__, str(w.message)) for w in ws], C().on
    assert same(f)[0][0][0] == 'FutureWarning'

def _fn(L, back):
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y): return x * 2 + y
        @staticmethod
        def backward(ctx, g): return back(L, g)
    return F

@pytest.mark.parametrize('back', [
    lambda L, g: (L.ones(10), None, g),                            # does not broadcast to the input
    lambda L, g: (L.ones(()), None, g),                            # a scalar does not broadcast *to* (5, 5)
    lambda L, g: (g, None, L.ones(3)),                             # index 1: counted among tensor inputs
    lambda L, g: (g.expand(3, 5, 5).double(), None, g.sum(0)),     # summed down and cast
    lambda L, g: (g * 1j, None, g),                                # complex for a real input
], ids=['shape', 'scalar', 'index', 'sum_and_cast', 'complex'])
def test_custom_backward_outputs_are_validated(back):
    def f(L):
        x, y = L.ones(5, 5, requires_grad=True), L.ones(5, requires_grad=True)
        _fn(L, back).apply(x, 3, y).sum().backward()
        return x.grad.tolist(), str(x.grad.dtype).replace('litnn', 'torch'), y.grad.tolist()
    same(f)

def test_root_gradient_cast_to_output_dtype():
    def f(L):
        a = L.ones(3, 3, dtype=L.float64, requires_grad=True)
        (r,) = L.autograd.grad(a.diagonal(), a, L.ones(3))
        return str(r.dtype).replace('litnn', 'torch')
    assert same(f) == 'torch.float64'

def test_gradient_edge_inputs_and_outputs():
    def f(L):
        x = L.tensor([1., 2.], requires_grad=True)
        h = x * x
        e = L.autograd.graph.get_gradient_edge(h)
        h *= 3
        old, new = L.autograd.grad(h.sum(), (e, h), retain_graph=True)
        t = (x.sin() * 2).sum(); te = L.autograd.graph.get_gradient_edge(t); out = t.exp()
        (tg,) = L.autograd.grad(out, (te,), retain_graph=True)
        (xg,) = L.autograd.grad(te, (x,), grad_outputs=(tg,), retain_graph=True)
        (ref,) = L.autograd.grad(out, x)
        L.autograd.backward(te, retain_graph=True)
        errs = [run(L, lambda L: L.autograd.grad(te, x, L.ones(4), retain_graph=True)),
                run(L, lambda L: L.autograd.grad(h.sum(), (x, L.autograd.graph.GradientEdge(h.grad_fn, 0)), retain_graph=True, allow_unused=True, materialize_grads=True))]
        return (old.tolist(), new.tolist(), [round(v, 4) for v in (xg - ref).tolist()], [round(v, 4) for v in x.grad.tolist()],
                type(e).__name__, e.output_nr, errs)
    same(f)

def test_grad_fn_is_callable():
    def f(L):
        w = L.ones(1, requires_grad=True)
        r = w.exp().grad_fn(L.ones(1) * 2)
        return [round(v, 4) for v in r.tolist()], r.requires_grad, r.grad_fn.name()
    same(f)

def test_once_differentiable():
    def f(L):
        from importlib import import_module
        once = import_module(L.__name__ + '.autograd.function').once_differentiable
        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, x): ctx.save_for_backward(x); return x ** 3
            @staticmethod
            @once
            def backward(ctx, g): (x,) = ctx.saved_tensors; return 3 * x * x * g
        x = L.tensor([1., 2.], requires_grad=True)
        (gx,) = L.autograd.grad(Cube.apply(x).sum() * x.sum(), x, create_graph=True)
        return gx.tolist(), gx.requires_grad, run(L, lambda L: gx.sum().backward())
    same(f)

def test_saved_variables_and_generate_vmap_rule():
    def f(L):
        class G(L.autograd.Function):
            @staticmethod
            def forward(ctx, x): ctx.save_for_backward(x); return x * 2
            @staticmethod
            def backward(ctx, g): (x,) = ctx.saved_variables; return g * 2
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter('always')
            x = L.ones(2, requires_grad=True); G.apply(x).sum().backward()
        return x.grad.tolist(), [(w.category.__name__, str(w.message)) for w in ws], G.generate_vmap_rule
    same(f)

def test_materialize_non_diff_grads_false():
    def f(L):
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x.clone(), x.clone(); ctx.mark_non_differentiable(b); ctx._materialize_non_diff_grads = False
                return a, b
            @staticmethod
            def backward(ctx, ga, gb): seen.append(gb); return ga
        seen = []
        F.apply(L.tensor(1., requires_grad=True))[0].backward()
        return seen
    assert same(f) == [None]

def test_grad_errors_and_materialize_with_create_graph():
    def f(L):
        x, a = L.tensor(0.5, requires_grad=True), L.tensor(1.0, requires_grad=True)
        (d1,) = L.autograd.grad(x * a, x, create_graph=True)
        (d2,) = L.autograd.grad(d1, x, create_graph=True, allow_unused=True, materialize_grads=True)
        d3 = L.autograd.grad(d2, x, materialize_grads=True)[0].item()
        return (d2.item(), d2.requires_grad, d3, run(L, lambda L: L.autograd.grad((2 * x).sum(), [])),
                sorted(L.autograd.grad(x * a, {'x': x, 'a': a}))) 
    same(f)

def test_is_grads_batched():
    def f(L):
        x = L.ones(2, 2, requires_grad=True)
        (g,) = L.autograd.grad(x * x, (x,), (L.arange(12.).reshape(3, 2, 2),), is_grads_batched=True)
        bad = run(L, lambda L: L.autograd.grad(x * x, (x,), (L.ones(3, 5),), is_grads_batched=True))
        return g.tolist(), bad
    same(f)

def test_backward_create_graph_warns():
    def f(L):
        L.set_warn_always(True)
        try:
            b = L.ones(3, requires_grad=True)
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter('always')
                (b * b).sum().backward(create_graph=True)
            return [(w.category.__name__, str(w.message).split(' (Triggered')[0]) for w in ws]
        finally: L.set_warn_always(False)
    assert len(same(f)) == 1


def test_tensor_hooks_share_one_gradient_object():
    "Hooks on one tensor see one gradient tensor in turn (captum's LRP sets an attribute in one and reads it in the next)."
    for lib in (torch, litnn):
        x = lib.tensor([1., -2.], requires_grad=True)
        h = x * 3
        seen = []
        def h1(g): seen.append(g); g.tag = 'set'
        def h2(g): seen.append(getattr(g, 'tag', None))
        def h3(g): return g * 2
        def h4(g): seen.append(g)
        for f in (h1, h2, h3, h4): h.register_hook(f)
        (h * h).sum().backward()
        assert seen[1] == 'set' and seen[2] is not seen[0]
        leaf = lib.tensor([1.], requires_grad=True); got = []
        leaf.register_hook(lambda g: got.append(g)); leaf.register_hook(lambda g: got.append(g))
        (leaf * 2).sum().backward()
        assert got[0] is got[1]


def test_grad_to_an_intermediate_leaves_the_graph_below():
    "grad(y, h) for an intermediate h runs only the graph between y and h: a later grad from h back to x still works."
    for lib in (torch, litnn):
        x = lib.tensor([1., 2.], requires_grad=True)
        h = x.exp(); y = (h * h).sum()
        (gh,) = lib.autograd.grad(y, h)
        (gx,) = lib.autograd.grad(h.sum(), x)
        assert lib.allclose(gh, 2 * x.exp()) and lib.allclose(gx, x.exp())
        x2 = lib.tensor([1., 2.], requires_grad=True)
        h2 = lib.nn.functional.linear(x2[None], lib.tensor([[1., 0.], [0., 2.]])); y2 = (h2 * h2).sum()
        lib.autograd.grad(y2, h2)
        assert lib.allclose(lib.autograd.grad(h2.sum(), x2)[0], lib.tensor([1., 2.]))

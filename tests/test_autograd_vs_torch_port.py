"""Discrepancies found by porting PyTorch's test_autograd.py, each run side by side in litnn and torch:
grad-mode decorators (bare, on generators and classes), the engine's validation of a custom backward's gradients,
GradientEdge, calling a grad_fn, once_differentiable, materialize_grads, is_grads_batched, and the create_graph warning."""
import warnings
import pytest
import litnn

torch = pytest.importorskip('torch')
from torch_pairs import run, same

pytestmark = pytest.mark.usefixtures('grad_mode_on')     # (tests/conftest.py)


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


# Hook order, retain_grad through in-place changes, and which nodes a partial backward touches (test_autograd.py's
# TestAutogradHooks: test_prehook_ordering, test_post_accumulate_grad_hook_ordering, test_retain_grad_inplace*,
# test_accumulate_grad_posthooks_can_observe_tensor_prehook, test_hook_edge_case_when_called_with_grad).

def test_prehook_ordering():
    def f(L):
        log = []
        def hook1(g): log.append(1); return g * 3
        def hook2(gs): log.append(2); return tuple(g * 2 for g in gs)
        a = L.tensor(1.0, requires_grad=True)
        b = a.clone()
        b.grad_fn.register_prehook(hook2); b.register_hook(hook1); b.grad_fn.register_prehook(hook2)
        acc = b.grad_fn.next_functions[0][0]
        a.register_hook(hook1); acc.register_prehook(hook2); a.register_hook(hook1)
        b.sum().backward(retain_graph=True)
        out = [list(log), a.grad.item()]; log.clear()
        L.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
        out.append(list(log)); log.clear()
        b.sum().backward(inputs=(b,))
        return out + [list(log), b.grad.item()]
    assert same(f) == [[1, 2, 2, 1, 1, 2], 216.0, [1, 2, 2, 1, 1], [1, 2, 2], 3.0]

def test_post_accumulate_grad_hook_ordering():
    def f(L):
        t = L.tensor([0.3, 0.6, 0.9], requires_grad=True)
        acc = t.view_as(t).grad_fn.next_functions[0][0]
        t.register_hook(lambda g: g.sub(2.0))
        acc.register_prehook(lambda gs: (gs[0].div(5.0),))
        def post_acc(x): x.grad.add_(0.5)
        t.register_post_accumulate_grad_hook(post_acc)
        seen = []
        def post(grad_in, grad_out):
            seen.append((len(grad_in), grad_out[0].tolist()))
            t.grad = grad_out[0].mul(10)
        acc.register_hook(post)
        t.sum().backward()
        return [round(v, 5) for v in t.grad.tolist()], len(seen), seen[0][0]
    assert same(f) == ([3.0, 3.0, 3.0], 1, 0)

def test_partial_backward_runs_only_what_it_needs():
    def f(L):
        counts = dict(tensor=0, pre=0, post=0)
        a = L.tensor(1.0, requires_grad=True)
        b = a * 2
        c = b * 2
        def th(g): counts['tensor'] += 1
        def pre(g): counts['pre'] += 1
        def post(gi, go): counts['post'] += 1
        a.register_hook(th); b.register_hook(th)
        acc = b.grad_fn.next_functions[0][0]
        acc.register_hook(post); acc.register_prehook(pre)
        b.grad_fn.register_hook(post); b.grad_fn.register_prehook(pre)
        out = []
        for inputs in [(b,), (a, b)]:
            L.autograd.grad(c, inputs=inputs, retain_graph=True)
            out.append(dict(counts)); counts.update(tensor=0, pre=0, post=0)
        c.backward(retain_graph=True); out.append(dict(counts))
        return out
    assert same(f) == [dict(tensor=1, pre=0, post=0), dict(tensor=2, pre=1, post=1), dict(tensor=2, pre=2, post=2)]

def test_leaf_tensor_hook_before_node_hooks():
    def f(L):
        a = L.tensor(1.0, requires_grad=True)
        seen = []
        b = a.clone()
        acc = b.grad_fn.next_functions[0][0]
        acc.register_hook(lambda gi, go: seen.append(('post', len(gi), go[0].item())))
        acc.register_prehook(lambda gs: seen.append(('pre', len(gs), gs[0].item())))
        a.register_hook(lambda g: g * 2)
        b.backward()
        return seen
    assert same(f) == [('pre', 1, 2.0), ('post', 0, 2.0)]

def test_backward_with_inputs_leaves_other_leaves_alone():
    def f(L):
        a, b = L.tensor(1.0, requires_grad=True), L.tensor(1.0, requires_grad=True)
        def refuse(*args): raise RuntimeError('should not run')
        a.register_hook(refuse)
        c = a.clone()
        c.grad_fn.next_functions[0][0].register_hook(refuse)
        (a + b + c).sum().backward(inputs=[b])
        return a.grad, b.grad.item()
    assert same(f) == (None, 1.0)

def test_retain_grad_follows_inplace():
    def f(L):
        out = []
        for n in (1, 2):
            a = L.tensor([1.0], requires_grad=True).clone()
            a.retain_grad()
            for _ in range(n): a.mul_(2)
            a.sum().backward()
            out.append(a.grad.tolist())
        base = L.tensor([1.0], requires_grad=True).clone()
        view, view2 = base[:], base[:]
        view.retain_grad(); view2.retain_grad()
        view.mul_(2)
        (view + view2).sum().backward()
        return out + [view.grad.tolist(), view2.grad.tolist()]
    assert same(f) == [[1.0], [1.0], [1.0], [1.0]]

def test_retain_grad_follows_inplace_on_an_output_of_many():
    def f(L):
        b = L.tensor([[1., 2.], [4., 3.]], requires_grad=True)
        var, mean = L.var_mean(b, dim=0)
        var.retain_grad(); mean.retain_grad()
        var.mul_(2)
        (var + mean).sum().backward()
        return var.grad.tolist(), mean.grad.tolist()
    assert same(f) == ([1.0, 1.0], [1.0, 1.0])

def test_grad_fn_call_checks_argument_count():
    def f(L):
        x = L.ones(1, requires_grad=True)
        y = x ** 2
        out = [run(L, lambda L: y.grad_fn(x.detach(), x.detach())), run(L, lambda L: y.grad_fn())]
        return out + [y.grad_fn(x.detach()).tolist()]
    assert same(f) == [('TypeError', 'expected 1 arguments, got 2 instead'), ('TypeError', 'expected 1 arguments, got 0 instead'), [2.0]]


# A node's inputs are torch's: a number argument of a Scalar overload (`x ** 2`, `masked_fill(m, 0.)`, `fmod(x, 2)`)
# and a condition (`where`) are arguments, not graph edges; a number `*`/`+` operand is an edge to nothing, as torch's.
EDGES = {
    'pow number': lambda L, x, y, m: x ** 2, 'square': lambda L, x, y, m: x.square(), 'pow tensor': lambda L, x, y, m: x ** y,
    'where': lambda L, x, y, m: L.where(m, x, y), 'where number': lambda L, x, y, m: L.where(m, x, 0.),
    'masked_fill number': lambda L, x, y, m: x.masked_fill(m, 0.), 'masked_fill tensor': lambda L, x, y, m: x.masked_fill(m, y.sum()),
    'lerp number': lambda L, x, y, m: L.lerp(x, y, 0.5), 'lerp tensor': lambda L, x, y, m: L.lerp(x, y, y),
    'fmod number': lambda L, x, y, m: L.fmod(x, 2), 'remainder number': lambda L, x, y, m: x % 2, 'remainder tensor': lambda L, x, y, m: x % y,
    'diag': lambda L, x, y, m: x[:3, :3].diag(), 'diagonal': lambda L, x, y, m: x.diagonal(1),
    'mul number': lambda L, x, y, m: x * 2, 'add number': lambda L, x, y, m: x + 2, 'clamp': lambda L, x, y, m: x.clamp(0, 1),
}

def _edges(fn):
    return type(fn).__name__, tuple(None if f is None else type(f).__name__ for f, _ in fn.next_functions)

@pytest.mark.parametrize('case', EDGES)
def test_next_functions_as_torch(case):
    def f(L):
        x, y = L.rand(3, 4, requires_grad=True), L.rand(3, 4, requires_grad=True)
        out = EDGES[case](L, x, y, L.rand(3, 4) > 0.5)
        out.sum().backward()           # and backward still reaches the inputs
        return _edges(out.grad_fn), x.grad is not None
    same(f)


# The engine checks each gradient against the metadata of the tensor it is for, as torch's validate_outputs: a tensor
# whose shape or dtype changed without a new history (set_, resize_, .data =, an in-place view under no_grad) still
# gets gradients of its old shape and dtype: summed down where they expand to it, cast, or refused naming the node.
def _changed(L, how):
    "b = a * 1, then b's metadata changed by `how`, then a backward through the old history; what autograd did."
    seen = []
    a = L.ones(2, 3, requires_grad=True) if how in ('t_', 'as_strided_') else L.ones(3, requires_grad=True)
    b = a * 1
    if how == 'set_':
        with L.no_grad(): b.set_(L.tensor([4., 5.]))
    elif how == 't_':
        with L.no_grad(): b.t_()
    elif how == 'unsqueeze_':
        with L.no_grad(): b.unsqueeze_(0)
    elif how == 'as_strided_':
        with L.no_grad(): b.as_strided_((3,), (1,))
    elif how == 'data_shape': b.data = L.ones(2)
    elif how == 'data_unsqueeze': b.data = L.ones(1, 3)
    elif how == 'data_dtype': b.data = L.ones(3, dtype=L.float64)
    elif how == 'resize_inference':
        with L.inference_mode(): b.resize_(2)
    b.register_hook(lambda g: seen.append((str(g.dtype).split('.')[-1], list(g.shape))))
    y = b * L.ones(b.shape, dtype=b.dtype)
    y.sum().backward()
    return a.grad.tolist(), seen

@pytest.mark.parametrize('how', ['set_', 't_', 'unsqueeze_', 'as_strided_', 'data_shape', 'data_unsqueeze', 'data_dtype', 'resize_inference'])
def test_gradients_checked_against_the_old_metadata(how):
    same(lambda L: _changed(L, how))

def _leaf_changed(L, how):
    "A leaf whose AccumulateGrad exists (y = a * 1 holds it) changes shape; then a backward through a new use."
    a = L.ones(2, 3, requires_grad=True) if how == 't_' else L.ones(3, requires_grad=True)
    y = a * 1
    if how == 't_':
        with L.no_grad(): a.t_()
    elif how == 'unsqueeze_':
        with L.no_grad(): a.unsqueeze_(0)
    elif how == 'set_':       # set_ lets the leaf's AccumulateGrad go: the new use makes one of the new shape
        with L.no_grad(): a.set_(L.ones(2))
    elif how == 'data_shape': a.data = L.ones(2)
    z = a * 1
    z.sum().backward()
    return a.grad.tolist(), y.grad_fn.next_functions[0][0] is z.grad_fn.next_functions[0][0]

@pytest.mark.parametrize('how', ['t_', 'unsqueeze_', 'set_', 'data_shape'])
def test_leaf_gradients_checked_against_its_accumulator(how):
    same(lambda L: _leaf_changed(L, how))

@pytest.mark.parametrize('how', ['root_given', 'grad_of_changed', 'retain_grad'])
def test_roots_and_captured_gradients_checked(how):
    def f(L):
        a = L.ones(3, requires_grad=True); b = a * 1
        if how == 'retain_grad':
            with L.no_grad(): b.unsqueeze_(0)
            b.retain_grad(); (b * 1).sum().backward()
            return b.grad.tolist()
        b.data = L.ones(2)
        if how == 'root_given': b.backward(L.ones(2))
        else: L.autograd.grad((b * 1).sum(), b)
    same(f)


SET_ON_VIEWS = {
    'view_of_nonleaf': lambda L, b: b[1:].set_(L.tensor([7., 8.])),
    'source_another_view': lambda L, b: b[1:].set_(b[:2]),
    'storage_offset_size': lambda L, b: b[1:].set_(L.ones(4).untyped_storage(), 1, (2,), (1,)),
    'empty': lambda L, b: b.view(3, 1).set_(),
    'source_requires_grad': lambda L, b: b.detach()[1:].set_(L.tensor([1., 2.], requires_grad=True)),
}

@pytest.mark.parametrize('case', list(SET_ON_VIEWS))
def test_set_on_a_view_rewrites_its_base(case):
    # set_ is an in-place change of a view: the base's history becomes CopySlices over set_'s node without a derivative,
    # and the view's own node AsStridedBackward0 at its new geometry; a backward through either raises torch's error
    def f(L):
        a = L.tensor([1., 2., 3.], requires_grad=True)
        b = a * 1
        v = SET_ON_VIEWS[case](L, b)
        base = v._base
        names = (v.grad_fn.name(), [n.name() for n, _ in v.grad_fn.next_functions if n is not None],
                 base.grad_fn and base.grad_fn.name(), v.tolist(), base.tolist(), v.requires_grad)
        return names, run(L, lambda L: L.autograd.grad(base.sum(), a)), run(L, lambda L: L.autograd.grad(v.sum(), a))
    same(f)


@pytest.mark.parametrize('how', ['view_of_leaf', 'no_grad_view_of_leaf', 'no_grad_view', 'under_no_grad', 'no_grad_view_plain'])
def test_set_on_a_view_checked_as_an_inplace_op(how):
    # torch's check_inplace runs before set_ changes anything
    def f(L):
        a = L.tensor([1., 2., 3.], requires_grad=True)
        if how == 'view_of_leaf': v = a[1:]
        elif how == 'no_grad_view_plain':
            with L.no_grad(): v = L.tensor([1., 2., 3.])[1:]
        else:
            with L.no_grad(): v = (a if how == 'no_grad_view_of_leaf' else a * 1)[1:]
        if how == 'under_no_grad':
            with L.no_grad(): v.set_(L.tensor([7., 8.]))
        else: v.set_(L.tensor([7., 8.]))
        return v.tolist(), a.tolist(), v.requires_grad
    same(f)


DEVICE_CASES = ['function_meta_grad', 'function_meta_0d_grad', 'function_cpu_grad_for_meta', 'function_cpu_0d_grad_for_meta',
                'root_meta_grad', 'root_meta_0d_for_0d', 'backward_meta_grad', 'root_cpu_grad_for_meta', 'hook_meta', 'hook_cpu_for_meta']

@pytest.mark.parametrize('case', DEVICE_CASES)
def test_gradient_devices_checked_as_validate_outputs(case):
    # torch's validate_outputs: a gradient on another device than its input's is refused ("expected device cpu but got
    # meta"), a 0-d one moved; the hook's message names a meta tensor's type MetaFloatType
    def f(L):
        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def backward(ctx, g): return Fn.grad
        x, xm = L.ones(3, requires_grad=True), L.ones(3, device='meta', requires_grad=True)
        if case.startswith('function'):
            Fn.grad = {'function_meta_grad': L.ones(3, device='meta'), 'function_meta_0d_grad': L.ones((), device='meta'),
                       'function_cpu_grad_for_meta': L.ones(3), 'function_cpu_0d_grad_for_meta': L.tensor(2.)}[case]
            src = xm if 'for_meta' in case else x
            return str(L.autograd.grad(Fn.apply(src).sum(), src)[0].device)
        if case == 'root_meta_grad': return L.autograd.grad(x * 2, x, L.ones(3, device='meta'))
        if case == 'root_meta_0d_for_0d': return str(L.autograd.grad((x * 2).sum(), x, L.tensor(1., device='meta'))[0].device)
        if case == 'backward_meta_grad': return (x * 2).backward(L.ones(3, device='meta'))
        if case == 'root_cpu_grad_for_meta': return L.autograd.grad(xm * 2, xm, L.ones(3))
        h = (xm if case == 'hook_cpu_for_meta' else x) * 1
        h.register_hook(lambda g: L.ones(3) if case == 'hook_cpu_for_meta' else L.ones(3, device='meta'))
        return L.autograd.grad(h.sum(), xm if case == 'hook_cpu_for_meta' else x)
    same(f)


@pytest.mark.parametrize('args', ['(o, o)', '(o, 1)', '(o, 0)', '(o, 1.5)', '(o.untyped_storage(), o)', '(o, 0, (2,))', '(1,)',
                                  '(o.untyped_storage(), 1, (2,), (1,))', '(o, True, (2,))', '()'])
def test_set_arguments_as_torchs_overloads(args):
    # torch's overloads: an offset comes with a size (set_(t, 0) is refused too); the message names the given types
    def f(L):
        o = L.ones(3)
        try: return list(L.zeros(2).set_(*eval(args, dict(o=o))).shape)
        except TypeError as e: return str(e).replace('litnn.', 'torch.').split('\n')[0]      # (torch goes on to say which arguments did not match)
    same(f)


@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('grads', ['sparse_then_dense', 'dense_then_sparse', 'sparse_then_sparse', 'dense_then_dense'])
def test_accumulate_grad_mixing_sparse_and_dense(grads, create_graph):
    # torch's AccumulateGrad adds a dense gradient to a sparse .grad as dense + sparse (a new dense tensor); the rest in
    # place unless create_graph (test_accumulate_grad_tensor_reference)
    def f(L):
        def make(kind, v): return (L.sparse_coo_tensor(L.tensor([[1, 2]]), L.tensor([v, 2 * v]), (3,)) if kind == 'sparse'
                                   else L.tensor([v, 2 * v, 3 * v]))
        old, new = grads.split('_then_')
        p = L.tensor([1.5, 1.5, 0.]).requires_grad_()
        p.grad = make(old, 1.)
        saved = p.grad
        p.backward(make(new, 10.), create_graph=create_graph)
        g = p.grad.to_dense() if p.grad.is_sparse else p.grad
        return str(p.grad.layout).replace('litnn.', 'torch.'), g.tolist(), p.grad is saved, p.grad.requires_grad
    same(f)


@pytest.mark.parametrize('during', ['enter', 'exit'])
def test_saved_tensors_hooks_changed_during_backward_do_not_leak(during):
    # torch runs backward under a copy of the thread's state: a saved_tensors_hooks context entered or left by a hook during
    # backward is as it was when backward began (test_saved_tensor_hooks_extra_exit_during_bw_no_crash)
    def f(L):
        calls = []
        ctx = L.autograd.graph.saved_tensors_hooks(lambda t: calls.append(1) or t, lambda t: t)
        x = L.ones(3, requires_grad=True)
        if during == 'exit': ctx.__enter__()
        y = x * 1
        y.register_hook(lambda g: ctx.__enter__() if during == 'enter' else ctx.__exit__())
        (y * x).sum().backward()
        n = len(calls)
        (x * x).sum().backward()       # packs only where the context is open after backward
        if during == 'exit': ctx.__exit__()
        return n, len(calls)
    same(f)


@pytest.mark.parametrize('grad_dtype', ['default', 'none', 'float16'])
@pytest.mark.parametrize('accumulator_first', [False, True])
def test_custom_function_gradient_dtype_follows_grad_dtype(grad_dtype, accumulator_first):
    # torch casts a custom backward's gradient to the input's dtype, except for a leaf whose grad_dtype is None (any
    # dtype: the float64 gradient is kept) or set (cast to it); litnn always cast to the input's dtype (test_grad_dtype)
    def f(L):
        class M(L.autograd.Function):
            @staticmethod
            def forward(ctx, inp): return inp * 2
            @staticmethod
            def backward(ctx, g): return g.to(L.float64)
        x = L.tensor([1.0, 2.0], requires_grad=True)
        if accumulator_first: x.clone()
        if grad_dtype != 'default': x.grad_dtype = None if grad_dtype == 'none' else L.float16
        M.apply(x).sum().backward()
        first = str(x.grad.dtype).split('.')[-1]
        M.apply(x).sum().backward()      # accumulates into the existing .grad, in its dtype
        return first, str(x.grad.dtype).split('.')[-1], x.grad.tolist()
    same(f)


@pytest.mark.parametrize('new', ['float16', 'float32', 'float64', 'None'])
def test_grad_dtype_set_over_an_existing_gradient(new):
    # torch refuses a grad_dtype other than None or the existing .grad's dtype (test_grad_dtype); litnn accepted any
    def f(L):
        g = L.tensor([1.0, 2.0], requires_grad=True)
        g.grad = L.tensor([1.0, 1.0])
        g.grad_dtype = None if new == 'None' else getattr(L, new)
        return str(g.grad_dtype).replace('litnn', 'torch'), g.grad.dtype is L.float32
    same(f)

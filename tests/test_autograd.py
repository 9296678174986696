"""litnn's autograd engine against torch's: the graph of grad_fn nodes, backward and its errors, retain_grad,
tensor hooks, grad modes, in-place checks, `autograd.grad` and higher order, custom Functions, gradcheck,
broadcasting, type promotion, and freeing graphs by reference counting."""
import gc, weakref
import numpy as np, pytest
import litnn
from torch_pairs import same_error, same_message

torch = pytest.importorskip('torch')
hyp = pytest.importorskip('hypothesis')
from hypothesis import given, settings, strategies as st, HealthCheck
from hypothesis.extra import numpy as hnp

LIBS = [litnn, torch]

def name(d): return str(d).rsplit('.', 1)[-1]

@pytest.fixture(autouse=True)
def grad_mode_on():
    "Every test starts, and leaves, with grad mode on in both libraries."
    yield
    litnn.set_grad_enabled(True); torch.set_grad_enabled(True)

def both(f):
    "`f(lib)` for litnn and torch, asserted equal; returns the litnn result."
    l, t = f(litnn), f(torch)
    assert l == t
    return l

def close(f, rtol=1e-12, atol=1e-12):
    "`f(lib)` gives (lists of) arrays; compare them numerically."
    l, t = f(litnn), f(torch)
    assert len(l) == len(t)
    for a, b in zip(l, t):
        if a is None or b is None: assert a is b
        else: np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)
    return l

def arr(t): return None if t is None else np.array(t.tolist())

def leaf(lib, vals, dtype='float64', rg=True):
    return lib.tensor(vals, dtype=getattr(lib, dtype), requires_grad=rg)

def exp(lib, x):
    "exp of a tensor, without recording a graph (used inside custom Functions' forward)."
    if lib is torch: return torch.exp(x)
    if hasattr(litnn, 'exp'): return litnn.exp(x)
    return litnn.tensor(np.exp(x.detach().numpy()))

## the graph: grad_fn names and next_functions

def tree(fn):
    "The graph below `fn` as nested (name, ((child, output_nr), ...)); leaves are 'AccumulateGrad'."
    if fn is None: return None
    n = type(fn).__name__
    if n == 'AccumulateGrad': return n
    return (n, tuple((tree(f), nr) for f, nr in fn.next_functions))

def _xw(lib):
    return leaf(lib, [1., 2.]), leaf(lib, [3., 4.])

GRAPHS = {
    'add_mul': lambda lib, x, w: (x + w) * (w + 1),
    'scalar_ops': lambda lib, x, w: ((x * 2) - 1) / 3,
    'sub_div': lambda lib, x, w: (x - w) / (x * w),
    'neg': lambda lib, x, w: -(x + w),
    'sum': lambda lib, x, w: (x * w).sum(),
    'sum_dim': lambda lib, x, w: (x * w).sum(0),
    'sum_keepdim': lambda lib, x, w: (x + w).sum(dim=0, keepdim=True),
    'expand': lambda lib, x, w: x.expand(3, 2) * w,
    'reshape': lambda lib, x, w: (x * w).reshape(2, 1),
    'no_grad_operand': lambda lib, x, w: lib.tensor([5., 6.], dtype=lib.float64) + w,
    'no_grad_operand_right': lambda lib, x, w: w * lib.tensor([5., 6.], dtype=lib.float64),
    'int_operand': lambda lib, x, w: x * lib.tensor([2, 3]),
    'shared_leaf': lambda lib, x, w: x * x,
    'diamond': lambda lib, x, w: (lambda a: (a + 1) * (a * 2))(x * w),
    'broadcast': lambda lib, x, w: x.reshape(2, 1) + w,
    'method_forms': lambda lib, x, w: x.add(w, alpha=2).mul(w).sub(x).div(w),
}

@pytest.mark.parametrize('k', GRAPHS)
def test_grad_fn_tree(k):
    assert both(lambda lib: tree(GRAPHS[k](lib, *_xw(lib)).grad_fn)) is not None

def test_grad_fn_tree_of_add_mul_explicitly():
    want = ('MulBackward0', ((('AddBackward0', (('AccumulateGrad', 0), ('AccumulateGrad', 0))), 0),
                             (('AddBackward0', (('AccumulateGrad', 0), (None, 0))), 0)))
    assert both(lambda lib: tree(GRAPHS['add_mul'](lib, *_xw(lib)).grad_fn)) == want

GRAPHS_REFLECTED = {
    'rsub': lambda lib, x, w: 1 - x,
    'rdiv': lambda lib, x, w: 2 / x,
    'reshape_same_shape': lambda lib, x, w: (x * w).reshape(2),
    'expand_same_shape': lambda lib, x, w: (x * w).expand(2),
}

@pytest.mark.parametrize('k', GRAPHS_REFLECTED)
def test_grad_fn_tree_reflected_and_identity_ops(k):
    both(lambda lib: tree(GRAPHS_REFLECTED[k](lib, *_xw(lib)).grad_fn))

def test_grad_fn_tree_mixed_dtypes():
    # torch promotes inside the kernel, so no cast node appears in its graph. litnn records the cast
    # as its own ToCopyBackward0 node (a documented difference, see 12_backprop_graph); the gradients and
    # their dtypes are the same.
    def f(lib):
        x, y = leaf(lib, [1., 2.], 'float32'), leaf(lib, 3., 'float64')
        z = x * y
        z.sum().backward()
        return tree(z.grad_fn), x.grad.tolist(), str(x.grad.dtype).split('.')[-1], y.grad.item(), str(y.grad.dtype).split('.')[-1]
    (lt, *lrest), (tt, *trest) = f(litnn), f(torch)
    assert lrest == trest
    assert tt == ('MulBackward0', (('AccumulateGrad', 0), ('AccumulateGrad', 0)))
    assert lt == ('MulBackward0', (('AccumulateGrad', 0), (('ToCopyBackward0', (('AccumulateGrad', 0),)), 0)))

def test_grad_fn_name_and_accumulate_grad_variable():
    for lib in LIBS:
        x, w = _xw(lib)
        y = x * w
        assert y.grad_fn.name() == 'MulBackward0'
        acc = y.grad_fn.next_functions[0][0]
        assert type(acc).__name__ == 'AccumulateGrad' and acc.variable is x
        assert acc.next_functions == ()

def test_accumulate_grad_node_is_shared():
    for lib in LIBS:
        x = leaf(lib, [1., 2.])
        a, b = x * 2, x + 1
        assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
        y = x * x
        assert y.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[1][0]

def test_output_nr_of_single_output_ops():
    assert both(lambda lib: [nr for _, nr in (leaf(lib, [1.]) * leaf(lib, [2.])).grad_fn.next_functions]) == [0, 0]

## leaves

def test_leaf_rules():
    def f(lib):
        x, c = leaf(lib, [1., 2.]), lib.tensor([1., 2.])
        with lib.no_grad(): n = x * 2
        return [t.is_leaf for t in (x, c, c * 2, x * 2, n, x.detach(), (x * 2).detach())] + \
               [t.requires_grad for t in (x, c, c * 2, x * 2, n, x.detach())]
    assert both(f) == [True, True, True, False, True, True, True, True, False, False, True, False, False]

def test_grad_accumulates_across_backward_calls():
    def f(lib):
        x, w = _xw(lib)
        (x * w).sum().backward()
        g1 = x.grad.tolist()
        (x * x * w).sum().backward()
        return g1, x.grad.tolist(), w.grad.tolist()
    assert both(f) == ([3., 4.], [3. + 6., 4. + 16.], [1. + 1., 2. + 4.])

def test_grad_zeroing_by_assigning_none():
    def f(lib):
        x = leaf(lib, [1., 2.])
        (x * 3).sum().backward()
        x.grad = None
        (x * 5).sum().backward()
        return x.grad.tolist()
    assert both(f) == [5., 5.]

def test_accumulation_keeps_the_grad_tensor_object():
    for lib in LIBS:
        x = leaf(lib, [1., 2.])
        (x * 3).sum().backward()
        g = x.grad
        (x * 3).sum().backward()
        assert x.grad is g and g.tolist() == [6., 6.]

def test_first_grad_is_not_the_incoming_gradient_object():
    # y.backward(g): the leaf's .grad must not alias the caller's g (torch copies or steals only when safe)
    for lib in LIBS:
        x = leaf(lib, [1., 2.])
        g = lib.tensor([1., 1.], dtype=lib.float64)
        (x + 0).backward(g)
        x.grad.mul_(5)
        assert g.tolist() == [1., 1.]

def test_non_leaf_grad_is_none():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        y.sum().backward()
        with pytest.warns(UserWarning) if lib is torch else _nothing(): g = y.grad
        return g
    assert both(f) is None

class _nothing:
    def __enter__(self): pass
    def __exit__(self, *a): pass

def test_non_leaf_grad_access_warns():
    for lib in LIBS:
        y = leaf(lib, [1., 2.]) * 2
        with pytest.warns(UserWarning, match='not a leaf'): y.grad

## retain_grad

def test_retain_grad_values_and_accumulation():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * x
        y.retain_grad()
        z = (y * 3).sum()
        z.backward(retain_graph=True)
        a = y.grad.tolist()
        z.backward()
        return a, y.grad.tolist(), x.grad.tolist(), y.retains_grad, x.retains_grad, y.is_leaf
    assert both(f) == ([3., 3.], [6., 6.], [12., 24.], True, False, False)

def test_retain_grad_on_leaf_is_a_no_op():
    assert both(lambda lib: (lambda x: (x.retain_grad(), x.retains_grad)[1])(leaf(lib, [1.]))) is False

def test_retain_grad_requires_grad():
    same_error(lambda lib: lib.tensor([1., 2.]).retain_grad())

def test_retain_grad_twice_is_idempotent():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        y.retain_grad(); y.retain_grad()
        (y * y).sum().backward()
        return y.grad.tolist()
    assert both(f) == [4., 8.]

def test_retain_grad_on_intermediate_used_twice():
    def f(lib):
        x = leaf(lib, [1., 2.])
        a = x * 2
        a.retain_grad()
        (a * a + a * 3).sum().backward()
        return a.grad.tolist(), x.grad.tolist()
    both(f)

def test_retains_grad_default():
    assert both(lambda lib: ((leaf(lib, [1.]) * 2).retains_grad, lib.tensor([1.]).retains_grad)) == (False, False)

## backward: gradients, errors, inputs=

def test_backward_with_gradient_argument():
    def f(lib):
        x, w = _xw(lib)
        y = x * w
        y.backward(gradient=lib.tensor([10., 100.], dtype=lib.float64))
        return x.grad.tolist(), w.grad.tolist()
    assert both(f) == ([30., 400.], [10., 200.])

def test_backward_of_scalar_is_implicit_one():
    def f(lib):
        x = leaf(lib, 3.)
        (x * x).backward()
        return x.grad.item()
    assert both(f) == 6.

def test_backward_one_element_non_scalar():
    def f(lib):
        x = leaf(lib, [[3.]])
        (x * x).backward()
        return x.grad.tolist()
    assert both(f) == [[6.]]

def test_backward_gradient_of_other_dtype():
    def f(lib):
        x = leaf(lib, [1., 2.], 'float32')
        (x * 2).backward(lib.tensor([1, 1]))
        return name(x.grad.dtype), x.grad.tolist()
    assert both(f) == ('float32', [2., 2.])

def test_functional_backward_multiple_roots():
    def f(lib):
        x, w = _xw(lib)
        a, b = x * w, x + w
        lib.autograd.backward([a, b], [lib.ones(2, dtype=lib.float64), lib.tensor([2., 3.], dtype=lib.float64)])
        return x.grad.tolist(), w.grad.tolist()
    assert both(f) == ([5., 7.], [3., 5.])

BACKWARD_ERRORS = {
    'implicit_non_scalar': lambda lib: (leaf(lib, [1., 2.]) * 2).backward(),
    'no_grad_fn': lambda lib: lib.tensor([1., 2.]).sum().backward(),
    'gradient_list': lambda lib: (leaf(lib, [1., 2.]) * 2).backward([1., 1.]),        # a list is one gradient per output: floats
    'gradient_numpy': lambda lib: (leaf(lib, [1., 2.]) * 2).backward(np.ones(2)),
    'inputs_without_grad': lambda lib: (leaf(lib, [1., 2.]) * 2).sum().backward(inputs=[lib.ones(2)]),
    'inputs_not_tensors': lambda lib: (leaf(lib, [1., 2.]) * 2).sum().backward(inputs=[1.]),
    'grad_inputs_not_tensors': lambda lib: lib.autograd.grad((leaf(lib, [1., 2.]) * 2).sum(), [1.]),
    'grad_outputs_list': lambda lib: (lambda x: lib.autograd.grad(x * 2, x, [1., 1.]))(leaf(lib, [1., 2.])),
    'leaf_without_grad': lambda lib: lib.tensor(1.).backward(),
    'gradient_shape': lambda lib: (leaf(lib, [1., 2.]) * 2).backward(lib.ones(3, dtype=lib.float64)),
    'gradient_shape_2d': lambda lib: (leaf(lib, [1., 2.]) * 2).backward(lib.ones(2, 1, dtype=lib.float64)),
    'inputs_empty': lambda lib: (leaf(lib, [1., 2.]) * 2).sum().backward(inputs=[]),
    'result_under_no_grad': lambda lib: _under_no_grad(lib).backward(),
}

def _under_no_grad(lib):
    x = leaf(lib, 2.)
    with lib.no_grad(): return x * 2

@pytest.mark.parametrize('k', BACKWARD_ERRORS)
def test_backward_errors_match_torch(k):
    same_error(BACKWARD_ERRORS[k])

def test_backward_error_messages():
    with pytest.raises(RuntimeError, match='grad can be implicitly created only for scalar outputs'):
        BACKWARD_ERRORS['implicit_non_scalar'](litnn)
    with pytest.raises(RuntimeError, match='does not require grad and does not have a grad_fn'):
        BACKWARD_ERRORS['no_grad_fn'](litnn)
    with pytest.raises(RuntimeError, match='Mismatch in shape'):
        BACKWARD_ERRORS['gradient_shape'](litnn)
    with pytest.raises(TypeError, match='gradients can be either Tensors or None, but got float'):
        BACKWARD_ERRORS['gradient_list'](litnn)
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        BACKWARD_ERRORS['inputs_without_grad'](litnn)
    for k in ('inputs_not_tensors', 'grad_inputs_not_tensors'):
        with pytest.raises(RuntimeError, match='all inputs have to be Tensors or GradientEdges, but got float'): BACKWARD_ERRORS[k](litnn)

def _second_backward(lib, make):
    x = leaf(lib, [1., 2.])
    z = make(x).sum()
    z.backward()
    z.backward()
    return x.grad.tolist()

def test_second_backward_without_retain_graph():
    for make in (lambda x: x * x, lambda x: x * 2, lambda x: (x * x + 1) / 2):
        t = same_error(lambda lib: _second_backward(lib, make))
        assert t is RuntimeError
    with pytest.raises(RuntimeError, match='Trying to backward through the graph a second time'):
        _second_backward(litnn, lambda x: x * x)

def test_second_backward_of_graph_without_saved_tensors():
    # nothing was freed, so torch runs it again: so must litnn
    assert both(lambda lib: _second_backward(lib, lambda x: (x + 1) - 2)) == [2., 2.]

def test_second_backward_with_retain_graph():
    def f(lib):
        x = leaf(lib, [1., 2.])
        z = (x * x).sum()
        z.backward(retain_graph=True)
        z.backward()
        return x.grad.tolist()
    assert both(f) == [4., 8.]

def test_backward_inputs_only_accumulates_given_leaves():
    def f(lib):
        x, w = _xw(lib)
        b = leaf(lib, [5., 6.])
        z = (x * w + b).sum()
        z.backward(inputs=[w], retain_graph=True)
        r1 = (x.grad, w.grad.tolist(), b.grad)
        z.backward(inputs=(x, b))
        return r1, x.grad.tolist(), w.grad.tolist(), b.grad.tolist()
    assert both(f) == ((None, [1., 2.], None), [3., 4.], [1., 2.], [1., 1.])

def test_backward_inputs_single_tensor():
    def f(lib):
        x, w = _xw(lib)
        (x * w).sum().backward(inputs=x)
        return x.grad.tolist(), w.grad
    assert both(f) == ([3., 4.], None)

def test_backward_inputs_non_leaf():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        (y * y).sum().backward(inputs=[y])
        return y.grad.tolist(), x.grad
    assert both(f) == ([4., 8.], None)

## tensor hooks

def test_hook_order_across_the_graph():
    def f(lib):
        calls = []
        x = leaf(lib, [1., 2.])
        a, b = x * 2, x * 3
        c = a * b
        for nm, t in (('x', x), ('a', a), ('b', b), ('c', c)):
            t.register_hook(lambda g, nm=nm: calls.append((nm, g.tolist())))
        x.register_post_accumulate_grad_hook(lambda t: calls.append(('post', t.grad.tolist())))
        c.sum().backward()
        return calls
    calls = both(f)
    assert [c[0] for c in calls] == ['c', 'b', 'a', 'x', 'post']

def test_hook_order_on_one_tensor_is_registration_order():
    def f(lib):
        calls = []
        x = leaf(lib, [1., 2.])
        y = x * 2
        for i in range(3): y.register_hook(lambda g, i=i: calls.append(i))
        for i in range(3, 5): x.register_hook(lambda g, i=i: calls.append(i))
        y.sum().backward()
        return calls
    assert both(f) == [0, 1, 2, 3, 4]

def test_hook_replaces_gradient():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * x
        seen = []
        y.register_hook(lambda g: g * 10)
        y.register_hook(lambda g: seen.append(g.tolist()))     # sees the replaced gradient
        x.register_hook(lambda g: g + 1)
        y.sum().backward()
        return seen, x.grad.tolist()
    assert both(f) == ([[10., 10.]], [21., 41.])

def test_hook_on_leaf_replaces_what_is_accumulated():
    def f(lib):
        x = leaf(lib, [1., 2.])
        h = x.register_hook(lambda g: g * 10)
        (x * x).sum().backward()
        a = x.grad.tolist()
        h.remove()
        x.grad = None
        (x * x).sum().backward()
        return a, x.grad.tolist()
    assert both(f) == ([20., 40.], [2., 4.])

def test_hook_removal_via_handle():
    def f(lib):
        calls = []
        x = leaf(lib, [1., 2.])
        y = x * 2
        h1 = y.register_hook(lambda g: calls.append(1))
        y.register_hook(lambda g: calls.append(2))
        h1.remove(); h1.remove()    # twice is fine
        y.sum().backward()
        return calls
    assert both(f) == [2]

def test_hook_removal_via_context_manager():
    def f(lib):
        calls = []
        x = leaf(lib, [1., 2.])
        with x.register_hook(lambda g: calls.append('in')):
            (x * 2).sum().backward()
        (x * 2).sum().backward()
        return calls, x.grad.tolist()
    assert both(f) == (['in'], [4., 4.])

def test_leaf_hook_sees_grad_before_accumulation():
    def f(lib):
        x = leaf(lib, [1.])
        seen = []
        x.register_hook(lambda g: seen.append((g.tolist(), None if x.grad is None else x.grad.tolist())))
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        return seen, x.grad.tolist()
    assert both(f) == ([([2.], None), ([2.], [2.])], [4.])

def test_non_leaf_hook_runs_in_autograd_grad():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        (g,) = lib.autograd.grad((y * y).sum(), x)
        return seen, g.tolist(), x.grad
    assert both(f) == ([[4., 8.]], [8., 16.], None)

def test_post_accumulate_grad_hook():
    def f(lib):
        x = leaf(lib, [1., 2.])
        calls = []
        h = x.register_post_accumulate_grad_hook(lambda t: calls.append((t is x, t.grad.tolist())))
        (x * 3).sum().backward()
        (x * 3).sum().backward()
        h.remove()
        (x * 3).sum().backward()
        return calls, x.grad.tolist()
    assert both(f) == ([(True, [3., 3.]), (True, [6., 6.])], [9., 9.])

def test_post_accumulate_grad_hook_can_modify_grad_in_place():
    def f(lib):
        x = leaf(lib, [1., 2.])
        def h(t):
            with lib.no_grad(): t.grad.mul_(0.5)
        x.register_post_accumulate_grad_hook(h)
        (x * 4).sum().backward()
        return x.grad.tolist()
    assert both(f) == [2., 2.]

def test_post_accumulate_grad_hook_must_return_none():
    def f(lib):
        x = leaf(lib, [1., 2.])
        x.register_post_accumulate_grad_hook(lambda t: t.grad * 100)
        (x * 2).sum().backward()
        return x.grad.tolist()
    same_error(f)

@pytest.mark.parametrize('turn_off', ['detach_', 'requires_grad_'])
def test_leaf_turned_off_after_the_graph_was_recorded_gets_no_grad(turn_off):
    "torch's AccumulateGrad returns early for a leaf that no longer requires grad (lucidrains' compressive transformer\n    detaches a weight in place mid-forward): .grad stays as it was, the hooks still run and see the gradient."
    def f(lib):
        w = lib.nn.Parameter(lib.tensor([1., 2., 3.])); v = lib.tensor([1., 1., 1.], requires_grad=True)
        calls = []
        w.register_hook(lambda g: calls.append(('tensor', g.tolist())))
        w.register_post_accumulate_grad_hook(lambda t: calls.append(('post_acc', t.grad)))
        (w * v).sum().backward(retain_graph=True)      # w.grad [1, 1, 1]
        y = (w * w * v).sum()
        y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].register_hook(
            lambda gi, go: calls.append(('node', gi, [g.tolist() for g in go])))
        getattr(w, turn_off)(*(() if turn_off == 'detach_' else (False,)))
        y.backward()
        return (w.grad.tolist(), w.requires_grad, w.is_leaf, w.grad_fn, v.grad.tolist(),
                [tuple(c[:1]) + tuple(x if not hasattr(x, 'tolist') else x.tolist() for x in c[1:]) for c in calls])
    assert both(f)[0] == [1., 1., 1.]

HOOK_ERRORS = {
    'hook_no_grad': lambda lib: lib.tensor([1.]).register_hook(lambda g: g),
    'post_acc_non_leaf': lambda lib: (leaf(lib, [1.]) * 2).register_post_accumulate_grad_hook(lambda t: None),
    'post_acc_no_grad': lambda lib: lib.tensor([1.]).register_post_accumulate_grad_hook(lambda t: None),
}

@pytest.mark.parametrize('k', HOOK_ERRORS)
def test_hook_errors_match_torch(k):
    same_error(HOOK_ERRORS[k])

@pytest.mark.parametrize('order', ['retain_first', 'hook_first'])
def test_hooks_run_before_retain_grad_stores(order):
    "torch runs retain_grad last, whatever the registration order: .grad holds the hooked gradient."
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 3
        calls = []
        if order == 'retain_first': y.retain_grad()
        y.register_hook(lambda g: (calls.append(('double', g.tolist())), g * 2)[1])
        if order == 'hook_first': y.retain_grad()
        y.register_hook(lambda g: calls.append(('see', g.tolist())))
        y.sum().backward()
        return y.grad.tolist(), x.grad.tolist(), calls
    assert both(f) == ([2., 2.], [6., 6.], [('double', [1., 1.]), ('see', [2., 2.])])

def test_hook_added_after_retain_grad_changes_retained_value():
    def f(lib):
        x = leaf(lib, [1.])
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g + 1)
        (y * 3).sum().backward()
        return y.grad.tolist(), x.grad.tolist()
    assert both(f) == ([4.], [8.])

## grad modes

def test_no_grad_context():
    def f(lib):
        x = leaf(lib, [1.])
        with lib.no_grad():
            y = x * 2
            inner = lib.is_grad_enabled()
        return y.requires_grad, y.grad_fn, inner, lib.is_grad_enabled()
    assert both(f) == (False, None, False, True)

def test_enable_grad_inside_no_grad():
    def f(lib):
        x = leaf(lib, [1.])
        with lib.no_grad():
            with lib.enable_grad(): y = x * 2
            z = x * 2
        return y.requires_grad, z.requires_grad
    assert both(f) == (True, False)

def test_grad_mode_restored_after_exception():
    for lib in LIBS:
        with pytest.raises(ValueError):
            with lib.no_grad(): raise ValueError
        assert lib.is_grad_enabled()

def test_set_grad_enabled_as_function_and_context():
    def f(lib):
        lib.set_grad_enabled(False)
        a = lib.is_grad_enabled()
        lib.set_grad_enabled(True)
        with lib.set_grad_enabled(False): b = lib.is_grad_enabled(), (leaf(lib, [1.]) * 2).requires_grad
        c = lib.is_grad_enabled()
        with lib.no_grad():
            with lib.set_grad_enabled(True): d = (leaf(lib, [1.]) * 2).requires_grad
            e = lib.is_grad_enabled()
        return a, b, c, d, e
    assert both(f) == (False, (False, False), True, True, False)

def test_decorators_called():
    def f(lib):
        @lib.no_grad()
        def a(x): return (x * 2).requires_grad
        @lib.enable_grad()
        def b(x): return (x * 2).requires_grad
        @lib.inference_mode()
        def c(x): return (x * 2).requires_grad
        x = leaf(lib, [1.])
        with lib.no_grad(): rb = b(x)
        return a(x), rb, c(x), a.__name__, lib.is_grad_enabled()
    assert both(f) == (False, True, False, 'a', True)

def test_bare_no_grad_decorator():
    def f(lib):
        @lib.no_grad
        def g(x, k=2):
            "doc"
            return (x * k).requires_grad, lib.is_grad_enabled()
        return g(leaf(lib, [1.])), g(leaf(lib, [1.]), k=3), g.__name__, g.__doc__, lib.is_grad_enabled()
    assert both(f) == ((False, False), (False, False), 'g', 'doc', True)

def test_set_grad_enabled_decorator_does_not_leak():
    def f(lib):
        @lib.set_grad_enabled(False)
        def g(x): return (x * 2).requires_grad
        after_decorating = lib.is_grad_enabled()
        return after_decorating, g(leaf(lib, [1.])), lib.is_grad_enabled()
    assert both(f) == (True, False, True)

def test_decorated_function_is_reusable_and_nests():
    def f(lib):
        @lib.no_grad()
        def inner(x): return lib.is_grad_enabled()
        @lib.enable_grad()
        def outer(x): return lib.is_grad_enabled(), inner(x), lib.is_grad_enabled()
        with lib.no_grad(): r = outer(1)
        return r, outer(1), inner(1), lib.is_grad_enabled()
    assert both(f) == ((True, False, True), (True, False, True), False, True)

def test_inference_mode_flags():
    def f(lib):
        with lib.no_grad(): a = lib.is_inference_mode_enabled(), lib.is_grad_enabled()
        with lib.inference_mode(): b = lib.is_inference_mode_enabled(), lib.is_grad_enabled()
        with lib.inference_mode(False): c = lib.is_inference_mode_enabled(), lib.is_grad_enabled()
        return a, b, c, lib.is_inference_mode_enabled()
    assert both(f) == ((False, False), (True, False), (False, True), False)

def test_inference_mode_results():
    def f(lib):
        x = leaf(lib, [1.])
        with lib.inference_mode(): y = x * 2
        return y.requires_grad, y.is_leaf, y.grad_fn
    assert both(f) == (False, True, None)

## detach

def test_detach():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        d = y.detach()
        return d.requires_grad, d.is_leaf, d.grad_fn, d.tolist(), y.requires_grad
    assert both(f) == (False, True, None, [2., 4.], True)

def test_detach_shares_memory_and_version():
    def f(lib):
        x = leaf(lib, [1., 2.])
        d = x.detach()
        d.add_(1)
        return x.tolist(), x._version, d._version
    assert both(f) == ([2., 3.], 1, 1)

def test_detach_in_place():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        r = y.detach_()
        return r is y, y.requires_grad, y.is_leaf, y.grad_fn
    assert both(f) == (True, False, True, None)

def test_backward_stops_at_detach():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        z = (y.detach() * x).sum()
        z.backward()
        return x.grad.tolist()
    assert both(f) == [2., 4.]

## in-place operations and the version counter

def test_in_place_on_leaf_requiring_grad():
    same_error(lambda lib: leaf(lib, [1., 2.]).add_(1))
    same_error(lambda lib: leaf(lib, [1., 2.]).mul_(2))
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad is being used in an in-place operation'):
        leaf(litnn, [1., 2.]).add_(1)

def test_in_place_on_leaf_under_no_grad():
    def f(lib):
        x = leaf(lib, [1., 2.])
        v0 = x._version
        with lib.no_grad():
            x.add_(1)
            x.mul_(2)
            x.add_(lib.tensor([1., 1.], dtype=lib.float64), alpha=2)
        return v0, x._version, x.tolist(), x.requires_grad, x.is_leaf, x.grad_fn
    assert both(f) == (0, 3, [6., 8.], True, True, None)

def test_version_counter():
    def f(lib):
        x = lib.tensor([1., 2.])
        vs = [x._version]
        x.add_(1); vs.append(x._version)
        x.mul_(x); vs.append(x._version)
        y = x * 2; vs.append(x._version); vs.append(y._version)
        return vs
    assert both(f) == [0, 1, 2, 2, 0]

def test_in_place_on_non_leaf_records_graph():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        y.add_(1)
        n1 = y.grad_fn.name()
        y.mul_(3)
        n2 = y.grad_fn.name()
        y.sum().backward()
        return n1, n2, y._version, y.tolist(), x.grad.tolist()
    assert both(f) == ('AddBackward0', 'MulBackward0', 2, [9., 15.], [6., 6.])

def test_in_place_mul_by_tensor_on_non_leaf():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = x * 2
        y.mul_(x)          # y = 2x*x: torch keeps what backward needs despite the in-place change
        y.sum().backward()
        return y.grad_fn.name(), x.grad.tolist()
    assert both(f) == ('MulBackward0', [4., 8.])

def test_in_place_makes_plain_tensor_part_of_graph():
    def f(lib):
        x = leaf(lib, [1., 2.])
        a = lib.tensor([3., 4.], dtype=lib.float64)
        a.mul_(x)
        r = a.requires_grad, a.is_leaf, tree(a.grad_fn)
        a.sum().backward()
        return r, x.grad.tolist()
    both(f)

def test_in_place_dtype_errors():
    same_error(lambda lib: lib.tensor([1, 2]).add_(1.5))
    same_error(lambda lib: lib.tensor([True]).add_(lib.tensor([2])))

def test_in_place_keeps_dtype():
    assert both(lambda lib: name(lib.tensor([1., 2.], dtype=lib.float32).mul_(lib.tensor(2., dtype=lib.float64)).dtype)) == 'float32'
    assert both(lambda lib: lib.tensor([1, 2]).mul_(lib.tensor([True, False])).tolist()) == [1, 0]

def test_modified_saved_tensor_raises():
    def non_leaf(lib):
        x = leaf(lib, [1., 2.])
        a = x * 2
        b = a * a
        a.add_(1)
        b.sum().backward()
    def leaf_under_no_grad(lib):
        x = leaf(lib, [1., 2.])
        y = x * x
        with lib.no_grad(): x.mul_(2)
        y.sum().backward()
    def through_detach(lib):
        x = leaf(lib, [1., 2.])
        y = (x * x).sum()
        x.detach().add_(1)
        y.backward()
    for f in (non_leaf, leaf_under_no_grad, through_detach):
        assert same_error(f) is RuntimeError
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        non_leaf(litnn)
    import warnings
    for anomaly in (False, True):     # the whole message as torch's, its hint as anomaly mode decides
        msgs = []
        for lib in (torch, litnn):
            with warnings.catch_warnings(), lib.autograd.set_detect_anomaly(anomaly):
                warnings.simplefilter('ignore')
                with pytest.raises(RuntimeError) as e: non_leaf(lib)
            msgs.append(str(e.value).replace('litnn', 'torch'))
        assert msgs[0] == msgs[1]

def test_modifying_unsaved_tensor_is_fine():
    def f(lib):
        x = leaf(lib, [1., 2.])
        a = x * 2
        b = a + 1     # add saves nothing
        a.mul_(10)
        b.sum().backward()
        return x.grad.tolist()
    assert both(f) == [2., 2.]

## autograd.grad

def test_grad_single():
    def f(lib):
        x = leaf(lib, [1., 2.])
        (g,) = lib.autograd.grad((x * x).sum(), x)
        return g.tolist(), g.requires_grad, x.grad
    assert both(f) == ([2., 4.], False, None)

def test_grad_multiple_inputs_and_outputs():
    def f(lib):
        x, w = _xw(lib)
        y1, y2 = (x * w).sum(), (x * x + w).sum()
        gx, gw = lib.autograd.grad([y1, y2], [x, w])
        return gx.tolist(), gw.tolist(), x.grad, w.grad
    assert both(f) == ([3. + 2., 4. + 4.], [1. + 1., 2. + 1.], None, None)

def test_grad_outputs():
    def f(lib):
        x, w = _xw(lib)
        y = x * w
        gx, gw = lib.autograd.grad(y, (x, w), grad_outputs=lib.tensor([1., -1.], dtype=lib.float64))
        return gx.tolist(), gw.tolist()
    assert both(f) == ([3., -4.], [1., -2.])

def test_grad_outputs_list_for_several_outputs():
    def f(lib):
        x = leaf(lib, [1., 2.])
        a, b = x * 2, x * 3
        (g,) = lib.autograd.grad([a, b], [x], grad_outputs=[lib.ones(2, dtype=lib.float64), lib.tensor([2., 0.], dtype=lib.float64)])
        return g.tolist()
    assert both(f) == [8., 2.]

def test_grad_allow_unused():
    def f(lib):
        x, w = _xw(lib)
        gx, gw = lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
        return gx.tolist(), gw
    assert both(f) == ([2., 2.], None)
    same_error(lambda lib: lib.autograd.grad((leaf(lib, [1.]) * 2).sum(), [leaf(lib, [1.])]))

def test_grad_materialize_grads():
    def f(lib):
        x, w = _xw(lib)
        gx, gw = lib.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
        return gx.tolist(), gw.tolist(), name(gw.dtype)
    assert both(f) == ([2., 2.], [0., 0.], 'float64')

def test_grad_materialize_grads_with_allow_unused_false():
    same_error(lambda lib: lib.autograd.grad((leaf(lib, [1.]) * 2).sum(), [leaf(lib, [1.])],
                                             allow_unused=False, materialize_grads=True))

def test_grad_errors():
    same_error(lambda lib: lib.autograd.grad((leaf(lib, [1.]) * lib.tensor([1.], dtype=lib.float64)).sum(),
                                             [lib.tensor([1.], dtype=lib.float64)]))
    same_error(lambda lib: lib.autograd.grad(leaf(lib, [1., 2.]) * 2, [leaf(lib, [1.])]))
    def twice(lib):
        x = leaf(lib, [1., 2.])
        y = (x * x).sum()
        lib.autograd.grad(y, x)
        lib.autograd.grad(y, x)
    same_error(twice)

def test_grad_retain_graph():
    def f(lib):
        x = leaf(lib, [1., 2.])
        y = (x * x).sum()
        a = lib.autograd.grad(y, x, retain_graph=True)[0].tolist()
        return a, lib.autograd.grad(y, x)[0].tolist()
    assert both(f) == ([2., 4.], [2., 4.])

def test_grad_wrt_non_leaf():
    def f(lib):
        x = leaf(lib, [1., 2.])
        a = x * 3
        y = (a * a).sum()
        ga, gx = lib.autograd.grad(y, [a, x])
        return ga.tolist(), gx.tolist(), x.grad
    assert both(f) == ([6., 12.], [18., 36.], None)

def test_grad_create_graph_higher_order():
    def f(lib):
        x = leaf(lib, [1., 2., -3.])
        y = (x * x * x).sum()
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        return (g1.tolist(), g1.requires_grad, g2.tolist(), g2.requires_grad, g3.tolist(), g3.requires_grad)
    assert both(f) == ([3., 12., 27.], True, [6., 12., -18.], True, [6., 6., 6.], False)

@pytest.mark.filterwarnings('ignore:Using backward\\(\\) with create_graph=True')
def test_backward_create_graph_then_grad_of_grad():
    def f(lib):
        x = leaf(lib, 2.)
        y = x * x * x
        y.backward(create_graph=True)
        g = x.grad
        r = (g.item(), g.requires_grad)
        (gg,) = lib.autograd.grad(g, x)
        return r, gg.item()
    assert both(f) == ((12., True), 12.)

def test_higher_order_with_division():
    def f(lib):
        x = leaf(lib, [0.5, 2.])
        y = (1 / x + x / (x + 1)).sum()
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x)
        return arr(g1), arr(g2)
    close(f)

## custom autograd.Function

def make_exp(lib, wrong=False):
    "exp as a custom Function; `wrong=True` doubles its derivative (for gradcheck to catch)."
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = exp(lib, x)
            ctx.save_for_backward(r)
            return r
        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r * 2 if wrong else g * r
    return Exp

def test_custom_function_exp():
    def f(lib):
        x = leaf(lib, [0., 1., -2.])
        y = make_exp(lib).apply(x)
        names = type(y.grad_fn).__name__, tree(y.grad_fn)[1]
        (y * 2).sum().backward()
        return names, y.requires_grad, y.is_leaf, arr(y), arr(x.grad)
    l, t = f(litnn), f(torch)
    assert l[:3] == t[:3] and l[0][0] == 'ExpBackward'
    np.testing.assert_allclose(l[3], t[3], rtol=1e-15); np.testing.assert_allclose(l[4], t[4], rtol=1e-15)

def test_custom_function_without_grad_input_records_nothing():
    def f(lib):
        y = make_exp(lib).apply(lib.tensor([0., 1.], dtype=lib.float64))
        return y.requires_grad, y.grad_fn
    assert both(f) == (False, None)

def test_custom_function_under_no_grad():
    def f(lib):
        with lib.no_grad(): y = make_exp(lib).apply(leaf(lib, [0., 1.]))
        return y.requires_grad, y.grad_fn
    assert both(f) == (False, None)

def test_custom_function_forward_runs_without_grad():
    def f(lib):
        seen = []
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append((lib.is_grad_enabled(), (x * 2).requires_grad))
                return x * 2
            @staticmethod
            def backward(ctx, g): return g * 2
        y = F.apply(leaf(lib, [1.]))
        return seen, y.requires_grad
    assert both(f) == ([(False, False)], True)

def make_mul_setup_context(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(x, y, scale):
            return x * y * scale
        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, scale = inputs
            ctx.save_for_backward(x, y)
            ctx.scale = scale
        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y * ctx.scale, g * x * ctx.scale, None
    return Mul

def test_custom_function_setup_context():
    def f(lib):
        x, w = _xw(lib)
        y = make_mul_setup_context(lib).apply(x, w, 2.)
        y.sum().backward()
        return type(y.grad_fn).__name__, y.tolist(), x.grad.tolist(), w.grad.tolist()
    assert both(f) == ('MulBackward', [6., 16.], [6., 8.], [2., 4.])

def test_custom_function_needs_input_grad():
    def f(lib):
        seen = []
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w, k):
                seen.append(('fwd', ctx.needs_input_grad))
                return x * w * k
            @staticmethod
            def backward(ctx, g):
                seen.append(('bwd', ctx.needs_input_grad))
                return g, None, None
        x, w = leaf(lib, [1.]), lib.tensor([2.], dtype=lib.float64)
        F.apply(x, w, 3).sum().backward()
        F.apply(w, x, 3).sum().backward()
        return seen
    assert both(f) == [('fwd', (True, False, False)), ('bwd', (True, False, False)),
                       ('fwd', (False, True, False)), ('bwd', (False, True, False))]

def test_custom_function_mark_non_differentiable():
    def f(lib):
        got = []
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                out, flag = x * 2, x * 0
                ctx.mark_non_differentiable(flag)
                return out, flag
            @staticmethod
            def backward(ctx, g, gflag):
                got.append((g.tolist(), None if gflag is None else gflag.tolist()))
                return g * 2
        x = leaf(lib, [1., 2.])
        out, flag = F.apply(x)
        r = out.requires_grad, flag.requires_grad, flag.is_leaf, flag.grad_fn
        out.sum().backward()
        return r, got, x.grad.tolist()
    assert both(f) == ((True, False, True, None), [([1., 1.], [0., 0.])], [2., 2.])

def test_custom_function_wrong_number_of_gradients():
    def too_many(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def backward(ctx, g): return g * 2, g
        F.apply(leaf(lib, [1.])).sum().backward()
    def too_few(lib):
        class G(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y): return x * y
            @staticmethod
            def backward(ctx, g): return g
        G.apply(leaf(lib, [1.]), leaf(lib, [2.])).sum().backward()
    assert same_error(too_many) is RuntimeError
    assert same_error(too_few) is RuntimeError
    with pytest.raises(RuntimeError, match='incorrect number of gradients'): too_few(litnn)

def test_custom_function_extra_none_gradients_are_allowed():
    def f(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def backward(ctx, g): return g * 2, None
        x = leaf(lib, [1.])
        F.apply(x).sum().backward()
        return x.grad.tolist()
    assert both(f) == [2.]

def make_two_outputs(lib, materialize):
    got = []
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3
        @staticmethod
        def backward(ctx, g1, g2):
            got.append((None if g1 is None else g1.tolist(), None if g2 is None else g2.tolist()))
            out = None
            if g1 is not None: out = g1 * 2
            if g2 is not None: out = g2 * 3 if out is None else out + g2 * 3
            return out
    return F, got

@pytest.mark.parametrize('materialize', [True, False])
def test_custom_function_set_materialize_grads(materialize):
    def f(lib):
        F, got = make_two_outputs(lib, materialize)
        x = leaf(lib, [1., 2.])
        a, b = F.apply(x)
        a.sum().backward()
        return got, x.grad.tolist(), b.grad_fn is a.grad_fn, b.requires_grad
    want = [([1., 1.], [0., 0.] if materialize else None)]
    assert both(f) == (want, [2., 2.], True, True)

@pytest.mark.parametrize('materialize', [True, False])
@pytest.mark.parametrize('two_outputs', [False, True])
def test_custom_function_runs_when_no_gradient_reaches_it(materialize, two_outputs):
    """A custom Function whose outputs receive no gradient (the next Function's backward returned None) still runs its
    backward, with zeros (or None without materializing), so the leaf's `.grad` is zeros, not None; a built-in op
    in its place is skipped, and the leaf's `.grad` stays None (torch's engine)."""
    def f(lib):
        got = []
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return (x * 2, x * 3) if two_outputs else x * 2
            @staticmethod
            def backward(ctx, *gs):
                got.append([None if g is None else g.tolist() for g in gs])
                return None if gs[0] is None else gs[0] * 2
        class Drop(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 3
            @staticmethod
            def backward(ctx, g): return None
        x = leaf(lib, [1., 2.])
        y = F.apply(x)
        Drop.apply(y[0] if two_outputs else y).sum().backward()
        z = leaf(lib, [1., 2.])
        Drop.apply(z.exp()).sum().backward()
        return got, None if x.grad is None else x.grad.tolist(), z.grad
    both(f)

def test_custom_function_returning_input_unchanged():
    def f(lib):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x
            @staticmethod
            def backward(ctx, g): return g * 5
        x = leaf(lib, [1., 2.])
        y = Id.apply(x)
        y.sum().backward()
        return y is x, y.is_leaf, x.is_leaf, x.grad.tolist()
    assert both(f) == (False, False, True, [5., 5.])

def test_custom_function_double_backward():
    def f(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x * x
        x = leaf(lib, [1., -2.])
        (g1,) = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x)
        return g1.tolist(), g2.tolist()
    assert both(f) == ([3., 12.], [6., -12.])

## gradcheck / gradgradcheck

def make_detached_cube(lib):
    "Correct first derivative, written with a detached input: its second derivative is wrong."
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            xd = x.detach()
            return g * 3 * xd * xd
    return Cube

def _gc_input(lib): return leaf(lib, [0.3, -1.2, 2.])

def test_gradcheck_passes():
    for lib in LIBS:
        assert lib.autograd.gradcheck(lambda x: x * x * x, (_gc_input(lib),))
        assert lib.autograd.gradcheck(lambda x, y: x / (y * y + 1), (_gc_input(lib), leaf(lib, [1., 2., 3.])))
        assert lib.autograd.gradcheck(make_exp(lib).apply, (_gc_input(lib),))
        assert lib.autograd.gradcheck(make_detached_cube(lib).apply, (_gc_input(lib),))

def gradcheck_error(lib):
    from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError   # the module, not the function
    return litnn.autograd.GradcheckError if lib is litnn else TorchGradcheckError

def test_gradcheck_fails_on_wrong_derivative():
    assert issubclass(litnn.autograd.GradcheckError, RuntimeError)
    assert issubclass(gradcheck_error(torch), RuntimeError)
    for lib in LIBS:
        with pytest.raises(gradcheck_error(lib)):
            lib.autograd.gradcheck(make_exp(lib, wrong=True).apply, (_gc_input(lib),))
        with pytest.raises(RuntimeError):
            lib.autograd.gradcheck(make_exp(lib, wrong=True).apply, (_gc_input(lib),))
        assert lib.autograd.gradcheck(make_exp(lib, wrong=True).apply, (_gc_input(lib),), raise_exception=False) is False

def make_forward_only_exp(lib, wrong=False):
    "exp with a jvp and no backward (torch's forward-mode tutorial): only `check_forward_ad` can check it."
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.y = x.exp()
            return ctx.y
        @staticmethod
        def jvp(ctx, t): return t * ctx.y * (2 if wrong else 1)
    return Exp

def test_gradcheck_forward_ad():
    only_fw = dict(check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False, check_batched_grad=False)
    for lib in LIBS:
        x = leaf(lib, [[0.3, -1.2], [2., 0.5]])
        assert lib.autograd.gradcheck(make_forward_only_exp(lib).apply, (x,), **only_fw)
        assert lib.autograd.gradcheck(lambda x, y: x * y.sin(), (x, leaf(lib, [[1., 2.], [3., 4.]])), check_forward_ad=True)
        with pytest.raises(gradcheck_error(lib), match="Jacobian computed with forward mode mismatch for output 0 with respect to input 0"):
            lib.autograd.gradcheck(make_forward_only_exp(lib, wrong=True).apply, (x,), **only_fw)
        assert lib.autograd.gradcheck(make_forward_only_exp(lib, wrong=True).apply, (x,), raise_exception=False, **only_fw) is False
        with pytest.raises(NotImplementedError):     # the backward is still checked by default
            lib.autograd.gradcheck(make_forward_only_exp(lib).apply, (x,), check_forward_ad=True)

def test_gradgradcheck():
    for lib in LIBS:
        assert lib.autograd.gradgradcheck(lambda x: x * x * x, (_gc_input(lib),))
        assert lib.autograd.gradgradcheck(lambda x, y: x * y / (y + 3), (_gc_input(lib), leaf(lib, [1., 2., 3.])))
        with pytest.raises(gradcheck_error(lib)):
            lib.autograd.gradgradcheck(make_detached_cube(lib).apply, (_gc_input(lib),))
        assert lib.autograd.gradgradcheck(make_detached_cube(lib).apply, (_gc_input(lib),), raise_exception=False) is False

def test_gradgradcheck_draws_grad_outputs_from_the_global_generator():
    "torch draws gradgradcheck's grad_outputs with the global generator: a seeded program draws the same numbers after it."
    draws = []
    for lib in LIBS:
        lib.manual_seed(0)
        x = lib.tensor([[0.3, -1.2], [2., 0.5]], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradgradcheck(lambda x: (x.sinh(), x * x), (x,))
        draws.append(lib.rand(3).tolist())
    assert draws[0] == draws[1]

def test_gradcheck_fast_mode_view_outputs_and_scalars():
    "fast_mode with an output that is a view of an input (expand) and with 0-d outputs: torch passes these checks."
    for lib in LIBS:
        v = lib.tensor([0.3, -1.2], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(lambda v: v.expand(3, 2), (v,), fast_mode=True)
        assert lib.autograd.gradcheck(lambda v: (v * v).sum(), (v,), fast_mode=True)
        x = lib.tensor([[0.3, -1.2], [2., 0.5]], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradgradcheck(lambda x: x.sum(1), (x,), fast_mode=True)
        # a wrong derivative is still caught through a view output
        with pytest.raises(gradcheck_error(lib)):
            lib.autograd.gradcheck(lambda x: make_exp(lib, wrong=True).apply(x).expand(2, 3), (_gc_input(lib),), fast_mode=True)

## broadcasting

BCAST = [((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((2, 3, 4), (4,)), ((), (2, 3)), ((2, 1, 3), (4, 1)), ((1,), (5,))]
BOPS = {'add': lambda a, b: a + b, 'sub': lambda a, b: a - b, 'mul': lambda a, b: a * b, 'div': lambda a, b: a / b}

def _vals(shape, seed):
    r = np.random.default_rng(seed)
    return (r.uniform(0.5, 2., shape) * r.choice([-1, 1], shape)).astype(np.float64)

@pytest.mark.parametrize('op', BOPS)
@pytest.mark.parametrize('sa,sb', BCAST, ids=[f'{a}-{b}' for a, b in BCAST])
def test_broadcasting_gradients(op, sa, sb):
    a0, b0 = _vals(sa, 0), _vals(sb, 1)
    def f(lib):
        a, b = lib.tensor(a0, requires_grad=True), lib.tensor(b0, requires_grad=True)
        y = BOPS[op](a, b)
        y.backward(lib.tensor(_vals(tuple(y.shape), 2)))
        assert tuple(a.grad.shape) == sa and tuple(b.grad.shape) == sb
        return arr(y), arr(a.grad), arr(b.grad)
    close(f)

@pytest.mark.parametrize('op', BOPS)
def test_broadcasting_with_python_scalar(op):
    a0 = _vals((2, 3), 0)
    def f(lib):
        a = lib.tensor(a0, requires_grad=True)
        (BOPS[op](a, 1.5).sum() + BOPS[op](2.5, a).sum()).backward()
        return [arr(a.grad)]
    close(f)

## type promotion in the graph

def test_promotion_float32_leaf_times_float64_0d():
    def f(lib):
        x = leaf(lib, [1., 2.], 'float32')
        s = leaf(lib, 3., 'float64')
        y = x * s
        y.sum().backward()
        return name(y.dtype), name(x.grad.dtype), name(s.grad.dtype), x.grad.tolist(), s.grad.item()
    assert both(f) == ('float32', 'float32', 'float64', [3., 3.], 3.)

def test_promotion_float32_with_float64_dimensioned():
    def f(lib):
        x, w = leaf(lib, [1., 2.], 'float32'), leaf(lib, [3., 4.], 'float64')
        y = x * w + x
        y.sum().backward()
        return name(y.dtype), name(x.grad.dtype), name(w.grad.dtype), x.grad.tolist(), w.grad.tolist()
    assert both(f) == ('float64', 'float32', 'float64', [4., 5.], [1., 2.])

def test_promotion_with_int_tensor():
    def f(lib):
        x = leaf(lib, [1., 2.], 'float32')
        y = x * lib.tensor([2, 3]) + lib.tensor([1, 1]) / x
        y.sum().backward()
        return name(y.dtype), name(x.grad.dtype), x.grad.tolist()
    assert both(f) == ('float32', 'float32', [1., 2.75])

def test_float16_grads():
    def f(lib):
        x = leaf(lib, [1., 2.], 'float16')
        (x * x * 0.5).sum().backward()
        return name(x.grad.dtype), x.grad.tolist()
    assert both(f) == ('float16', [1., 2.])

## property test

@st.composite
def two_broadcastable(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    return shapes.input_shapes, draw(st.integers(0, 2**16))

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_broadcastable())
def test_property_grads_of_x_times_y_plus_x_over_y(case):
    (sx, sy), seed = case
    x0, y0 = _vals(sx, seed), _vals(sy, seed + 1)
    def f(lib):
        x, y = lib.tensor(x0, requires_grad=True), lib.tensor(y0, requires_grad=True)
        z = x * y + x / y
        g = lib.tensor(_vals(tuple(z.shape), seed + 2))
        z.backward(g)
        return arr(z), arr(x.grad), arr(y.grad)
    close(f)

## memory: graphs die by reference counting

@pytest.fixture
def no_gc():
    was = gc.isenabled()
    gc.disable()     # a cycle would now survive: only reference counting frees the graph
    yield
    if was: gc.enable()

def test_graph_freed_without_gc(no_gc):
    x = leaf(litnn, [1., 2.])
    y = (x * 2 + 1) * 3
    r = weakref.ref(y.grad_fn)
    inner = weakref.ref(y.grad_fn.next_functions[0][0])
    del y
    assert r() is None and inner() is None

def test_graph_with_retain_grad_and_hooks_freed_without_gc(no_gc):
    x = leaf(litnn, [1., 2.])
    a = x * 2
    a.retain_grad()
    a.register_hook(lambda g: g * 1)
    y = (a * a).sum()
    ra, ry = weakref.ref(a), weakref.ref(y.grad_fn)
    del a, y
    assert ra() is None and ry() is None

def test_saved_tensors_released_after_backward(no_gc):
    x = leaf(litnn, [1., 2.])
    a = x * 2
    b = a * a
    ra = weakref.ref(a)
    node = b.grad_fn
    del a
    assert ra() is not None          # saved for backward
    b.sum().backward()
    assert ra() is None              # released by backward without retain_graph
    with pytest.raises(RuntimeError): node.saved_tensors

def test_saved_tensors_kept_with_retain_graph(no_gc):
    x = leaf(litnn, [1., 2.])
    a = x * 2
    b = a * a
    ra = weakref.ref(a)
    del a
    b.sum().backward(retain_graph=True)
    assert ra() is not None
    del b
    assert ra() is None

def test_graph_after_backward_freed_without_gc(no_gc):
    x = leaf(litnn, [1., 2.])
    y = (x * x + 1).sum()
    r = weakref.ref(y.grad_fn)
    y.backward()
    del y
    assert r() is None and x.grad.tolist() == [2., 4.]

def test_custom_function_saving_its_output_freed_without_gc(no_gc):
    # torch stores a saved output without its grad_fn, so output -> node -> output is no cycle
    x = leaf(litnn, [0., 1.])
    y = make_exp(litnn).apply(x)
    ry, rf = weakref.ref(y), weakref.ref(y.grad_fn)
    del y
    assert ry() is None and rf() is None

def test_create_graph_grad_freed_without_gc(no_gc):
    x = leaf(litnn, [1., 2.])
    (g,) = litnn.autograd.grad((x * x * x).sum(), x, create_graph=True)
    r = weakref.ref(g.grad_fn)
    del g
    assert r() is None

def test_gradient_kept_by_a_tensor_hook_is_not_changed_by_a_later_backward():
    "A hook may keep the gradient it sees: the engine must not adopt that memory as .grad and add into it later."
    def f(lib):
        x = leaf(lib, [1.])
        kept = []
        x.register_hook(kept.append)
        (x * 2).sum().backward(); (x * 2).sum().backward()
        return [k.tolist() for k in kept], x.grad.tolist()
    assert both(f) == ([[2.], [2.]], [4.])


def test_autograd_variable_module_as_torch():
    from litnn.autograd.variable import Variable, VariableMeta
    from torch.autograd.variable import Variable as TorchVariable
    assert Variable is litnn.autograd.Variable and isinstance(Variable, VariableMeta)
    assert isinstance(litnn.zeros(1), Variable) and isinstance(torch.zeros(1), TorchVariable)
    v, tv = Variable(litnn.ones(2), requires_grad=True), TorchVariable(torch.ones(2), requires_grad=True)
    assert (v.requires_grad, v.tolist()) == (tv.requires_grad, tv.tolist())

def _function_class(lib, backward, forward=lambda ctx, a, k: a * k):
    return type('F', (lib.autograd.Function,), dict(forward=staticmethod(forward), backward=staticmethod(backward)))

@pytest.mark.parametrize('backward', [lambda ctx, g: (3, None),                               # not a tensor: "expected Variable or None"
                                      lambda ctx, g: (g, g.new_ones(1)),                      # a gradient for a number argument
                                      lambda ctx, g: ([g], None)])
def test_custom_function_backward_results_checked_as_torch(backward):
    def f(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        _function_class(lib, backward).apply(x, 2.).sum().backward()
    assert same_error(f) is RuntimeError
    with pytest.raises(RuntimeError) as e: f(litnn)
    with pytest.raises(RuntimeError) as t: f(torch)
    assert str(e.value) == str(t.value).replace('torch', 'litnn')

def test_custom_function_saves_only_tensors_or_none():
    def forward(ctx, a, k):
        ctx.save_for_backward(a, None, k); return a * k
    for lib in LIBS:
        with pytest.raises(TypeError, match='save_for_backward can only save variables, but argument 2 is of type float'):
            _function_class(lib, lambda ctx, g: (g, None), forward).apply(lib.ones(2, requires_grad=True), 2.)

def test_custom_function_under_vmap_needs_setup_context_and_a_rule():
    def old(lib): return _function_class(lib, lambda ctx, g: (g, None), lambda ctx, a: a * 2)
    def new(lib, **kw):
        return type('F', (lib.autograd.Function,), dict(forward=staticmethod(lambda a: a * 2), backward=staticmethod(lambda ctx, g: g * 2),
                                                        setup_context=staticmethod(lambda ctx, inputs, output: None), **kw))
    for lib in LIBS:
        with pytest.raises(RuntimeError, match='must override the setup_context staticmethod'): lib.func.vmap(old(lib).apply)(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match='it must override the setup_context'):       # even on a tensor the vmap does not batch
            lib.func.vmap(lambda t: old(lib).apply(lib.ones(3)) + t)(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match='You tried to vmap over F, but it does not have vmap support'): lib.func.vmap(new(lib).apply)(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match='does not have vmap support'): lib.func.vmap(lambda t: new(lib).apply(lib.ones(3)) + t)(lib.ones(2, 3))
        assert lib.func.vmap(new(lib, generate_vmap_rule=True).apply)(lib.ones(2, 3)).tolist() == [[2.] * 3] * 2

@pytest.mark.parametrize('dt,gdt', [('float64', 'float32'), ('float64', 'int64'), ('float16', 'bfloat16'), ('float32', 'complex64')])
def test_grad_setter_refuses_another_dtype_in_torchs_words(dt, gdt):
    msgs = []
    for lib in LIBS:
        x = lib.ones(3, dtype=getattr(lib, dt), requires_grad=True)
        with pytest.raises(RuntimeError) as e: x.grad = lib.ones(3, dtype=getattr(lib, gdt))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# Second derivatives of piecewise-linear ops: torch computes their gradient with an operator that reads the input
# (relu's threshold_backward reads its result), so with create_graph the gradient is connected to it and a second
# derivative is zeros, where a gradient built from a mask alone would not require grad (13_backprop_engine, `_linked`).
_PIECEWISE = {
    'relu': lambda F, t: F.relu(t), 'relu_': lambda F, t: F.relu(t * 1, inplace=True), 'leaky_relu': lambda F, t: F.leaky_relu(t, 0.1),
    'leaky_relu_': lambda F, t: F.leaky_relu(t * 1, 0.1, inplace=True), 'hardtanh': lambda F, t: F.hardtanh(t, -0.5, 0.5),
    'relu6': lambda F, t: F.relu6(t * 4), 'threshold': lambda F, t: F.threshold(t, 0.1, 0.), 'hardshrink': lambda F, t: F.hardshrink(t, 0.2),
    'softshrink': lambda F, t: F.softshrink(t, 0.2), 'rrelu_eval': lambda F, t: F.rrelu(t),
    'max_pool1d': lambda F, t: F.max_pool1d(t.view(1, 2, 6), 2), 'max_pool2d': lambda F, t: F.max_pool2d(t.view(1, 1, 3, 4), 2, 1),
    'max_pool3d': lambda F, t: F.max_pool3d(t.view(1, 1, 2, 2, 3), (1, 2, 2)), 'avg_pool1d': lambda F, t: F.avg_pool1d(t.view(1, 2, 6), 3),
    'avg_pool2d': lambda F, t: F.avg_pool2d(t.view(1, 1, 3, 4), 2, 1), 'avg_pool3d': lambda F, t: F.avg_pool3d(t.view(1, 1, 2, 2, 3), (1, 2, 2)),
    'adaptive_max_pool2d': lambda F, t: F.adaptive_max_pool2d(t.view(1, 1, 3, 4), 2), 'adaptive_avg_pool2d': lambda F, t: F.adaptive_avg_pool2d(t.view(1, 1, 3, 4), (2, 3)),
    'adaptive_avg_pool3d': lambda F, t: F.adaptive_avg_pool3d(t.view(1, 1, 2, 2, 3), (1, 2, 2)),
    'reflect': lambda F, t: F.pad(t.view(1, 2, 6), (2, 1), mode='reflect'), 'replicate': lambda F, t: F.pad(t.view(1, 1, 3, 4), (1, 1, 2, 0), mode='replicate'),
    'nll_loss': lambda F, t: F.nll_loss(t.view(3, 4), F.one_hot(F.relu(t[:3].detach() * 0).long(), 4).argmax(1)),
    'cross_entropy_of_relu': lambda F, t: F.cross_entropy(F.relu(t.view(3, 4)), t.detach().view(3, 4).argmax(1)),
}


@pytest.mark.parametrize('name', sorted(_PIECEWISE))
def test_second_derivative_of_piecewise_linear_ops_as_torch(name):
    data = np.array([0.3, -0.7, 1.2, -0.1, 0.9, -1.4, 0.05, 2.2, -0.35, 0.6, -2.0, 1.7])
    res = []
    for lib in (torch, litnn):
        x = lib.tensor(data, requires_grad=True)
        y = _PIECEWISE[name](lib.nn.functional, x)
        g, = lib.autograd.grad((y * lib.tensor(np.linspace(-1, 1, y.numel())).view(y.shape)).sum(), x, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)        # d/dx of |g|²: zeros, g being piecewise constant in x
        res.append((g.requires_grad, g.detach().numpy(), gg.numpy()))
    (tr, tg, tgg), (lr, lg, lgg) = res
    assert lr == tr is True
    np.testing.assert_allclose(lg, tg, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lgg, tgg, rtol=1e-10, atol=1e-14)


def test_second_derivative_of_relu_runs_through_relu_as_torch():
    "relu's gradient reads relu's result: its node's edge goes back to relu's node, so even a third derivative exists."
    res = []
    for lib in (torch, litnn):
        x = lib.tensor([0.3, -0.7, 1.2], requires_grad=True)
        g, = lib.autograd.grad(lib.relu(x).sum(), x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x, create_graph=True)
        res.append((g.grad_fn.name(), [type(f).__name__ for f, _ in g.grad_fn.next_functions], g2.requires_grad, g2.tolist()))
    assert res[0] == res[1]


def test_batch_norm_gradients_read_input_and_weight_not_bias_as_torch():
    "A second derivative through batch norm's gradients reaches the input and the weight; the bias gets none (None), as torch's."
    res = []
    for lib in (torch, litnn):
        lib.manual_seed(0)
        x = lib.tensor(np.linspace(-2, 3, 12).reshape(4, 3) ** 2, requires_grad=True)
        w, b = lib.tensor([1.5, -0.5, 2.], dtype=lib.float64, requires_grad=True), lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.batch_norm(x, None, None, w, b, training=True)
        gs = lib.autograd.grad(y, (x, w, b), lib.tensor(np.cos(np.arange(12.)).reshape(4, 3)), create_graph=True)
        s = sum((g * g).sum() for g in gs)
        res.append([None if t is None else t.detach().numpy() for t in lib.autograd.grad(s, (x, w, b), allow_unused=True)])
    assert res[1][2] is None and res[0][2] is None
    for a, b in zip(res[0][:2], res[1][:2]): np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('f', [
    lambda L, x: L.autograd.backward([(x * 2).sum(), (x * 3).sum()], [L.tensor(1.)]),
    lambda L, x: L.autograd.backward([(x * 2).sum(), (x * 3).sum()], L.tensor(1.)),
    lambda L, x: L.autograd.grad([(x * 2).sum(), (x * 3).sum()], x, [L.tensor(1.)])])
def test_fewer_gradients_than_tensors_is_an_error_before_anything_runs(f):
    "torch's engine checks the counts first (more gradients than tensors are ignored): no leaf's .grad changes."
    def run(L):
        x = L.ones(3, requires_grad=True)
        try: f(L, x)
        finally: assert x.grad is None
    same_message(run)
    def more(L):
        x = L.ones(3, requires_grad=True)
        L.autograd.backward([(x * 2).sum()], [L.tensor(1.), L.tensor(5.)])
        return x.grad.tolist()
    assert both(more) == [2., 2., 2.]

@pytest.mark.parametrize('v', [1, 0, None, 'yes', np.bool_(True), 'tensor'])
def test_set_grad_enabled_takes_a_bool_only(v):
    "torch's parser refuses 1, None, a numpy bool or a tensor for `enabled`, naming the type; grad mode is unchanged."
    def f(L):
        try: L.set_grad_enabled(L.tensor(True) if v == 'tensor' else v)
        finally: assert L.is_grad_enabled()
    same_message(f)

@pytest.mark.parametrize('inputs', [lambda L: (L.ones(3, dtype=L.float64),),
                                    lambda L: (L.ones(1, dtype=L.float64).expand(3).requires_grad_(),),
                                    lambda L: (L.ones(1, dtype=L.float64, requires_grad=True).expand(3),)])
@pytest.mark.parametrize('raise_exception', [True, False])
def test_gradcheck_refuses_inputs_it_cannot_check(inputs, raise_exception):
    "No input requiring grad (ValueError) or an input with a stride-0 dimension (RuntimeError), whatever raise_exception says."
    same_message(lambda L: L.autograd.gradcheck(lambda a: a * 2, inputs(L), raise_exception=raise_exception))

@pytest.mark.parametrize('ret', [lambda x: 3, lambda x: None, lambda x: [x * 2], lambda x: {'a': x * 2}, lambda x: (x * 2, 3, [x])])
def test_custom_function_outputs_that_are_not_a_tuple_are_one_output(ret):
    "Only a tuple is several outputs: a number, None, a list or a dict is passed on as it is (tensors inside get no history)."
    def f(L):
        F = type('F', (L.autograd.Function,), {'forward': staticmethod(lambda ctx, x: ret(x)), 'backward': staticmethod(lambda ctx, *g: g[0])})
        r = F.apply(L.ones(2, requires_grad=True))
        items = list(r.values()) if isinstance(r, dict) else r if isinstance(r, (list, tuple)) else [r]
        return type(r).__name__, [(type(v).__name__.replace('Parameter', ''), getattr(v, 'requires_grad', None)) for v in items]
    both(f)


# ---- found by running PyTorch's test/test_autograd.py (TestAutograd) against litnn (tt-autogradb) ----

def _errs(f):
    "(type, message) of what `f(lib)` raises in each library, or None."
    res = []
    for lib in LIBS:
        try: f(lib); res.append(None)
        except Exception as e: res.append((type(e).__name__, str(e)))
    return res

def test_custom_function_vjp_is_another_name_of_backward():
    def run(lib, both_defined=False):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x * 2
            @staticmethod
            def vjp(ctx, g): return g * 5
        if both_defined: F.backward = staticmethod(lambda ctx, g: g * 5)
        x = lib.ones(3, requires_grad=True)
        F.apply(x).sum().backward()
        return x.grad.tolist(), F.generate_vmap_rule, hasattr(F, 'vmap'), lib.autograd.Function.vjp is lib.autograd.Function.backward
    assert run(litnn) == run(torch)
    l, t = _errs(lambda lib: run(lib, True))
    assert l == t and l[0] == 'RuntimeError'
    l, t = _errs(lambda lib: lib.autograd.Function.vmap(None, None))
    assert l == t and l[0] == 'NotImplementedError'

def test_custom_function_non_tensor_outputs_get_none_gradients():
    def run(lib):
        seen = []
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, s): return s, x * 2, None, True, "bar", x * 3
            @staticmethod
            def backward(ctx, *g):
                seen.append([None if v is None else v.tolist() for v in g])
                return g[1] * 2 + g[5] * 3, None
        x = lib.ones(2, requires_grad=True)
        r = F.apply(x, 3)
        r[1].sum().backward()      # the last output unused: zeros (materialized), the non-tensors: None
        return seen, x.grad.tolist()
    assert run(litnn) == run(torch)

def test_increment_version_and_node_metadata():
    def run(lib):
        a = lib.rand(5, requires_grad=True)
        v = a._version
        lib.autograd.graph.increment_version(a)
        lib.autograd.graph.increment_version([a, a])
        with lib.inference_mode():
            b = lib.rand(5)
            lib.autograd.graph.increment_version(b)
        lib.autograd.graph.increment_version(b)
        y = a.exp()
        m = y.grad_fn.metadata
        m['k'] = 1
        return a._version - v, type(m).__name__, y.grad_fn.metadata is m, y.grad_fn.metadata
    assert run(litnn) == run(torch)

def test_unsafe_preserve_version_counter():
    "torch.autograd._unsafe_preserve_version_counter (test_autograd.py's test_unsafe_set_version_counter): versions put back on exit, so a write through a view inside it escapes the saved-tensor check."
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        x = a.clone(); x.add_(1); x.add_(2)
        v, y = x[1:], lib.ones(2, requires_grad=True).clone()
        s = (x * x).sum()
        with lib.autograd._unsafe_preserve_version_counter(x):
            v.mul_(2); x.mul_(3)
        with lib.autograd._unsafe_preserve_version_counter((x, y)):
            x.mul_(2); y.mul_(3)
        s.backward()
        return x._version, v._version, y._version, a.grad.tolist()
    assert run(litnn) == run(torch)
    same_error(lambda lib: lib.autograd._unsafe_preserve_version_counter([lib.ones(1)]))
    same_error(lambda lib: lib.autograd._unsafe_preserve_version_counter(lib.ones(1))(lambda: None)())   # torch's clone() passes no tensors

def test_deleting_and_setting_autograd_attributes():
    stmts = ["del x.grad", "del x.data", "x.data = None", "del x.requires_grad", "del x._grad_fn", "del x._backward_hooks",
             "x.data = lib.sparse_coo_tensor(lib.zeros([1, 1], dtype=lib.long), lib.ones([1]))"]
    def run(lib, s):
        x = lib.randn((5, 5), requires_grad=True)
        (x * 2).sum().backward()
        exec(s)
        return x.grad
    for s in stmts:
        l, t = _errs(lambda lib: run(lib, s))
        assert (l and l[0]) == (t and t[0]), s
        assert l == t or s.startswith("x.data = lib.sparse"), s     # (litnn's sparse names differ in the message: not checked)
    def hooks(lib):      # `_backward_hooks` can be set (torch's test_requires_grad): a leaf's dict of hooks is used as is
        from collections import OrderedDict
        calls = []
        x, z = lib.randn(3, requires_grad=True), lib.randn(3)
        z._backward_hooks = OrderedDict()
        x._backward_hooks = OrderedDict(h=lambda g: calls.append(g.tolist()))
        (x * 2 + z).sum().backward()
        return calls, z._backward_hooks
    assert hooks(litnn) == hooks(torch)

def test_inplace_on_view_of_leaf_that_requires_grad_after_the_view():
    def view_before_rg(lib):
        a = lib.randn(4); b = a[:2]; a.requires_grad = True; b.add_(1)
    def view_of_view(lib):
        a = lib.randn(4); b = a[:2]; a.requires_grad_(); b[:1].mul_(2)
    def view_itself(lib):
        a = lib.randn(4); b = a[:2]; b.requires_grad_(); b.add_(1)
    for f in (view_before_rg, view_of_view, view_itself):
        l, t = _errs(f)
        assert l == t and l[0] == 'RuntimeError'
    def nograd(lib):      # still allowed without grad mode, and the leaf stays a leaf
        a = lib.randn(4); b = a[:2]; a.requires_grad = True
        with lib.no_grad(): b.add_(1)
        return a.grad_fn is None, a.is_leaf
    assert nograd(litnn) == nograd(torch)

def test_forward_ad_of_an_op_without_derivative_says_so():
    def run(lib):
        from importlib import import_module
        fw = import_module(lib.__name__ + '.autograd.forward_ad')
        with fw.dual_level():
            d = fw.make_dual(lib.tensor([1., 2.]), lib.tensor([1., 1.]))
            lib.igamma(d, d)
    l, t = _errs(run)
    assert l == t and l[0] == 'NotImplementedError'

def _gc_errs(f):
    "(type name, first line of message) of what `f(lib)` raises in each library (or its return value)."
    res = []
    for lib in LIBS:
        try: res.append(f(lib))
        except Exception as e: res.append((type(e).__name__, str(e).split('\n')[0].split(',')[0]))
    return res

@pytest.mark.parametrize('fast_mode', [False, True])
def test_gradcheck_checks_torch_makes(fast_mode):
    def d(lib, *shape): return lib.ones(*shape, dtype=lib.float64, requires_grad=True)
    def nondiff(lib, raise_exception):   # no differentiable output, but the numerical gradient is not zero
        return lib.autograd.gradcheck(lambda x: lib.tensor([x.item()]), d(lib, 1), raise_exception=raise_exception, fast_mode=fast_mode)
    def no_outputs(lib): return lib.autograd.gradcheck(lambda x: (), (d(lib, 1),), fast_mode=fast_mode)
    def shape_changes(lib):
        return lib.autograd.gradcheck(lambda x: lib.cat([x, x]) if lib.all(x >= 1) else x, (d(lib, 1),), fast_mode=fast_mode)
    def dtype_changes(lib):
        return lib.autograd.gradcheck(lambda x: x.to(lib.float32) if lib.all(x >= 1) else x, (d(lib, 1),), fast_mode=fast_mode)
    def neither(lib): return lib.autograd.gradcheck(lambda x: x, (d(lib, 1),), check_backward_ad=False, check_forward_ad=False)
    def other_error(lib):      # not a GradcheckError: raised even with raise_exception=False
        def f(x): raise RuntimeError("Not a GradcheckError!")
        return lib.autograd.gradcheck(f, (d(lib, 2),), raise_exception=False, fast_mode=fast_mode)
    for f in (lambda lib: nondiff(lib, True), lambda lib: nondiff(lib, False), no_outputs, shape_changes, dtype_changes, neither, other_error):
        l, t = _gc_errs(f)
        assert l == t

@pytest.mark.parametrize('fast_mode', [False, True])
def test_gradcheck_backward_must_be_reentrant(fast_mode):
    def run(lib, jitter, nondet_tol, second=False):
        class NonDet(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, jitter=0.0):
                ctx._jitter = jitter
                return x
            @staticmethod
            def backward(ctx, g):
                return NonDet.apply(g, ctx._jitter) * (1 + lib.rand_like(g) * ctx._jitter), None
        x = lib.randn(3, 3, dtype=lib.float64, requires_grad=True)
        check = lib.autograd.gradgradcheck if second else lib.autograd.gradcheck
        return check(lambda x: NonDet.apply(x, jitter), x, nondet_tol=nondet_tol, fast_mode=fast_mode)
    for args in [(0.0, 0.0), (1e-6, 0.0), (1e-6, 1e-5), (1e-12, 0.0, True), (1e-12, 1e-5, True)]:
        l, t = _gc_errs(lambda lib: run(lib, *args))
        assert l == t, args

def test_gradcheck_names_the_part_of_a_complex_output():
    def run(lib, fn, x, **kw):
        return lib.autograd.gradcheck(fn, (x,), **kw)
    def bad(lib, conv=lambda lib, x: x):
        def fn(x):
            y = conv(lib, x).clone()
            y.register_hook(lambda g: g + 1e-2)
            return y
        return fn
    for conv, dt in [(lambda lib, x: x, 'complex128'), (lambda lib, x: lib.complex(x, x), 'float64'), (lambda lib, x: lib.real(x), 'complex128')]:
        l, t = _gc_errs(lambda lib: run(lib, bad(lib, conv), lib.ones(2, 2, dtype=getattr(lib, dt), requires_grad=True)))
        assert l == t
    def ok(lib):
        c = lib.ones(2, 2, requires_grad=True, dtype=lib.complex128)
        a, b = (lib.ones(2, 2, requires_grad=True, dtype=lib.float64) for _ in range(2))
        return (lib.autograd.gradcheck(lambda z: (z, lib.real(z)), (c,)),
                lib.autograd.gradcheck(lambda x, y: (lib.complex(x, y), x + 1), (a, b)))
    assert ok(litnn) == ok(torch) == (True, True)

def test_gradcheck_forward_ad_duals_every_differentiable_input():
    "torch's forward-mode check: all differentiable inputs are duals (detached: they need no grad inside func), zero tangents but one."
    def run(lib, bad):
        from importlib import import_module
        fw = import_module(lib.__name__ + '.autograd.forward_ad')
        seen = []
        def fn(x, y):
            seen.append((x.requires_grad, y.requires_grad, fw.unpack_dual(y).tangent is not None))
            yp, yd = fw.unpack_dual(y)
            if bad and yd is not None: y = fw.make_dual(yp, yd * 1.1)
            return x + y, y
        x, y = (lib.rand(2, dtype=lib.float64, requires_grad=True) for _ in range(2))
        r = lib.autograd.gradcheck(fn, (x, y), check_forward_ad=True, check_backward_ad=False, raise_exception=False)
        return r, sorted(set(s for s in seen if s[2]))     # the forward-mode calls (a tangent on y); numerical ones differ in detail
    for bad in (False, True):
        assert run(litnn, bad) == run(torch, bad)

def test_inplace_function_is_function_with_an_inplace_flag():
    def run(lib):
        from importlib import import_module
        InplaceFunction = import_module(lib.__name__ + '.autograd.function').InplaceFunction
        class Inplace(InplaceFunction):
            @staticmethod
            def forward(ctx, a, b):
                ctx.mark_dirty(a)
                return a.add_(b), b + 2
            @staticmethod
            def backward(ctx, grad_a, grad_b): return grad_a, grad_a + grad_b
        x, y = lib.ones(2, 2), lib.ones(2, 2, requires_grad=True)
        q, p = Inplace.apply(x, y)
        res = [q is x, type(q.grad_fn) is Inplace._backward_cls, q.requires_grad, q.grad_fn.name()]
        q.sum().backward()
        with pytest.warns(DeprecationWarning):
            f = Inplace(True)
        return res + [y.grad.tolist(), f.inplace, Inplace(False).inplace, issubclass(InplaceFunction, lib.autograd.Function)]
    assert run(litnn) == run(torch)


SAVING_OPS = {   # ops whose torch node saves tensors (indices, a mask, the input) that litnn's node keeps as plain state
    'max_pool2d': lambda L, x: L.nn.functional.max_pool2d(x, 2), 'avg_pool2d': lambda L, x: L.nn.functional.avg_pool2d(x, 2),
    'adaptive_max_pool2d': lambda L, x: L.nn.functional.adaptive_max_pool2d(x, 1), 'adaptive_avg_pool2d': lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 3),
    'max_pool3d': lambda L, x: L.nn.functional.max_pool3d(x[None], (1, 2, 2)), 'avg_pool3d': lambda L, x: L.nn.functional.avg_pool3d(x[None], (1, 2, 2)),
    'reflect pad': lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode='reflect'), 'replicate pad': lambda L, x: L.nn.functional.pad(x[0], (1, 1), mode='replicate'),
    'embedding': lambda L, x: L.nn.functional.embedding(L.tensor([0, 1]), x.view(4, 4)), 'sort': lambda L, x: x.sort(-1)[0],
    'max dim': lambda L, x: x.max(-1)[0], 'median dim': lambda L, x: x.median(-1)[0], 'topk': lambda L, x: x.topk(2)[0], 'cummax': lambda L, x: x.cummax(-1)[0],
    'index': lambda L, x: x[..., L.tensor([0, 2])], 'gather': lambda L, x: x.gather(-1, L.tensor([[[[0]]]])), 'index_select': lambda L, x: x.index_select(-1, L.tensor([0])),
    'masked_fill': lambda L, x: x.masked_fill(x > 0, 0.), 'masked_select': lambda L, x: x.masked_select(x > 0), 'take': lambda L, x: x.take(L.tensor([0])),
    'scatter': lambda L, x: x.scatter(-1, L.tensor([[[[0]]]]), 0.), 'index_add': lambda L, x: x.index_add(-1, L.tensor([0]), x[..., :1]),
    'nll_loss': lambda L, x: L.nn.functional.nll_loss(x.view(4, 4), L.tensor([0, 1, 2, 3])),
    # ... and ops that save no tensor: a second backward runs again, in both
    'sum': lambda L, x: x * 2, 'flip': lambda L, x: x.flip(-1), 'slice': lambda L, x: x[..., 1:3], 'amax': lambda L, x: x.amax(-1)}

@pytest.mark.parametrize('name', SAVING_OPS)
def test_second_backward_without_retain_graph_as_torch(name):
    "A backward frees what the graph's nodes saved: a second one through a node that saved tensors is torch's error."
    def run(L):
        x = L.randn(1, 1, 4, 4, requires_grad=True)
        y = SAVING_OPS[name](L, x).sum()
        y.backward()
        try: y.backward(); return 'ran again', x.grad.shape
        except RuntimeError as e: return str(e).replace('litnn', 'torch')
    assert run(litnn) == run(torch)


def test_custom_function_setup_context_sees_forward_defaults():
    "With setup_context, torch binds forward's signature: `inputs` holds the defaults (and keyword arguments) in order."
    def run(lib):
        seen = []
        class P(lib.autograd.Function):
            @staticmethod
            def forward(x, y=3): return lib.pow(x, y)
            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append(len(inputs)); x, y = inputs
                ctx.save_for_backward(x); ctx.y = y
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * ctx.y * lib.pow(x, ctx.y - 1), None
        class C(lib.autograd.Function):
            @classmethod
            def forward(cls, x, y=3): return x * y
            @classmethod
            def setup_context(cls, ctx, inputs, output): ctx.y = inputs[1]
            @classmethod
            def backward(cls, ctx, g): return g * ctx.y, None
        x = lib.tensor(2.0, requires_grad=True)
        return ([lib.autograd.grad(P.apply(x), x)[0].item(), lib.autograd.grad(P.apply(x, y=4), x)[0].item(),
                 lib.autograd.grad(C.apply(x), x)[0].item(), lib.autograd.grad(C.apply(x, 5), x)[0].item()], seen)
    assert run(litnn) == run(torch)


def test_custom_function_mark_dirty_of_a_tensor_that_is_no_input():
    "mark_dirty on a tensor made inside forward: torch warns (and the output works); on a view of one, it raises."
    import warnings
    def run(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                c = 3 * a; c.add_(b); ctx.mark_dirty(c); return c
            @staticmethod
            def backward(ctx, g): return 3 * g, g
        class View(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                out = a.clone().view_as(a); ctx.mark_dirty(out); return out
            @staticmethod
            def backward(ctx, g): return g
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out = Bad.apply(a.clone(), b)
        out.sum().backward()
        try: View.apply(a.clone()); err = None
        except RuntimeError as e: err = str(e)
        return [str(m.message).split(' (Triggered')[0] for m in w], a.grad.tolist(), b.grad.tolist(), err
    assert run(litnn) == run(torch)


def test_custom_function_clear_saved_tensors_on_access():
    "clear_saved_tensors_on_access=True: saved_tensors once (then released: the backward holds the last reference), a second access raises."
    import weakref
    def run(lib, twice):
        alive = []
        class F(lib.autograd.Function):
            clear_saved_tensors_on_access = True
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x); return x * 2
            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                if twice: ctx.saved_tensors
                ref = weakref.ref(x); del x
                alive.append(ref() is not None)
                return g * 2
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        try: F.apply(x.clone()).sum().backward()
        except RuntimeError as e: return str(e)
        return alive, x.grad.tolist()
    for twice in (False, True): assert run(litnn, twice) == run(torch, twice)


def test_custom_function_dirty_view_input_allows_one_output_only():
    "An input that is a view, changed in place (mark_dirty): torch refuses a Function with more than one output (tensor or not)."
    def run(lib, second):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                a.add_(b); ctx.mark_dirty(a)
                return (a, a + b) if second == 'tensor' else (a, 5) if second == 'number' else a
            @staticmethod
            def backward(ctx, ga, *rest): return ga, ga
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        try: out = F.apply(a.clone().view_as(a), b)
        except RuntimeError as e: return str(e)
        (out[0] if isinstance(out, tuple) else out).sum().backward()
        return a.grad.tolist(), b.grad.tolist()
    for second in ('tensor', 'number', None): assert run(litnn, second) == run(torch, second)

def test_full_max_min_median_share_the_gradient_among_ties_and_nans():
    "max()/min()/median() of all elements: torch's evenly_distribute_backward, among the NaNs for a NaN result (amax's: NaN)."
    def grads(L):
        out = []
        for f in (L.max, L.min, L.median, L.nanmedian, lambda x: L.amax(x, 0)):
            for v in ([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [float('nan')] * 3, [float('nan'), 1.0, float('nan')]):
                x = L.tensor(v, requires_grad=True)
                f(x).backward()
                out.append([round(g, 6) if g == g else 'nan' for g in x.grad.tolist()])
        return out
    assert grads(litnn) == grads(torch)

def test_grad_assignment_refusals_as_torch():
    "x.grad = ...: a wrong type, shape, dtype and x itself are refused with torch's exception and message."
    def outcome(L, make):
        x = L.randn(5, 5)
        try: x.grad = make(L, x)
        except (RuntimeError, TypeError) as e: return type(e).__name__, str(e)
        return 'ok'
    for make in (lambda L, x: 0, lambda L, x: L.randn(2, 2), lambda L, x: L.randn(5, 5).long(), lambda L, x: x,
                 lambda L, x: x.clone(), lambda L, x: None):
        assert outcome(litnn, make) == outcome(torch, make)

def test_copy_real_into_complex_backward_takes_the_real_part():
    "copy_ of a real source into a complex tensor: the source's gradient is the real part, with no casting warning (torch's handle_r_to_c)."
    import warnings
    def run(L):
        out_c = L.empty(3, 2, dtype=L.cdouble)
        inp = L.tensor(np.linspace(-1, 1, 6).reshape(3, 2), requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out_c.copy_(inp)
            (out_c * (1 + 2j)).sum().abs().backward()
        return [str(m.message) for m in w], np.round(inp.grad.numpy(), 6).tolist(), str(inp.grad.dtype).split('.')[-1]
    assert run(litnn) == run(torch)

def test_accumulate_grad_runs_as_soon_as_its_gradient_is_complete():
    "torch's AccumulateGrad has the largest priority: a leaf's hooks fire right after the last node feeding it, even when its"
    " AccumulateGrad was made by an earlier graph (litnn ordered it by creation: after later nodes, or never if one of them raised)."
    def run(L):
        log = []
        w, x = L.ones(2, requires_grad=True), L.ones(2, requires_grad=True)
        (w * 2).sum().backward()                          # w's AccumulateGrad is made here
        w.register_post_accumulate_grad_hook(lambda t: log.append('w'))
        class Mark(L.autograd.Function):
            @staticmethod
            def forward(ctx, a): return a.clone()
            @staticmethod
            def backward(ctx, g):
                log.append('mark')
                if len(log) > 2: raise RuntimeError("boom")
                return g
        y = (Mark.apply(x * 3) * w).sum()
        y.backward(retain_graph=True)
        try: y.backward(inputs=(w, x))
        except RuntimeError as e: log.append(str(e))
        return log, w.grad.tolist()
    assert run(litnn) == run(torch)


def _wrong_gradients(lib):
    "Functions whose backward is wrong: real to real (two outputs), complex to complex, complex to real, real to complex."
    F = lib.autograd.Function
    class Half(F):
        @staticmethod
        def forward(ctx, x): ctx.save_for_backward(x); return x ** 2
        @staticmethod
        def backward(ctx, g): x, = ctx.saved_tensors; return g * x
    class Stack(F):
        @staticmethod
        def forward(ctx, x): return lib.stack([x[0], x[1] * 2, x[0] * 3])
        @staticmethod
        def backward(ctx, g): return lib.zeros(2, dtype=g.dtype)
    class Real(F):
        @staticmethod
        def forward(ctx, x): return x.real * 2
        @staticmethod
        def backward(ctx, g): return lib.zeros(2, dtype=lib.complex128)
    class ToComplex(F):
        @staticmethod
        def forward(ctx, x): return x * (1 + 1j)
        @staticmethod
        def backward(ctx, g): return lib.zeros(2, dtype=lib.float64)
    return [(Half, lib.float64), (Half, lib.complex128), (Stack, lib.float64), (Stack, lib.complex128), (Real, lib.complex128),
            (ToComplex, lib.float64)]

@pytest.mark.parametrize('fast_mode', [False, True])
@pytest.mark.parametrize('case', range(6))
def test_gradcheck_message_prints_the_jacobians_as_torch(case, fast_mode):
    """A failing gradcheck names the output (and its part) and prints the two Jacobians as torch does: tensors of the input's
    dtype, a row per input element, a complex input's steps joined; fast mode adds the slow-mode Jacobians. (Fast mode's two
    projections use random vectors: not compared.)"""
    msgs = []
    for lib in LIBS:
        f, dt = _wrong_gradients(lib)[case]
        with pytest.raises(RuntimeError) as e:
            lib.autograd.gradcheck(f.apply, lib.tensor([1., 2.], dtype=dt, requires_grad=True), fast_mode=fast_mode)
        s = str(e.value).replace('litnn', 'torch')
        if fast_mode: head, _, _, rest = s.split('\n', 3); s = head + '\n' + rest
        msgs.append(s)
    assert msgs[0] == msgs[1]


def _undifferentiated_cases(lib):
    "Functions whose outputs autograd does not differentiate, and the inputs to call them with."
    F = lib.autograd.Function
    class MarkedInput(F):
        @staticmethod
        def forward(ctx, x): ctx.mark_non_differentiable(x); return x
        @staticmethod
        def backward(ctx, g): return g
    class MarkedView(F):
        @staticmethod
        def forward(ctx, x): y = x.view(-1); ctx.mark_non_differentiable(y); return y, x * 2
        @staticmethod
        def backward(ctx, g, h): return h * 2
    class MarkedDirty(F):
        @staticmethod
        def forward(ctx, x): ctx.mark_non_differentiable(x); ctx.mark_dirty(x); return x.mul_(2)
        @staticmethod
        def backward(ctx, g): return g
    class Identity(F):
        @staticmethod
        def forward(ctx, x): return x
        @staticmethod
        def backward(ctx, g): return g
    class IntegerPassedOn(F):
        @staticmethod
        def forward(ctx, x, n): return x * 2, n
        @staticmethod
        def backward(ctx, g, h): return g, None
    class MadeRequiringGrad(F):
        @staticmethod
        def forward(ctx, x):
            y = lib.ones(2, requires_grad=True); ctx.mark_non_differentiable(y); return y
        @staticmethod
        def backward(ctx, g): return g
    leaf, nonleaf, plain = (lambda: lib.ones(2, requires_grad=True)), (lambda: lib.ones(2, requires_grad=True) * 1), (lambda: lib.ones(2))
    return [(MarkedInput, (leaf,)), (MarkedInput, (nonleaf,)), (MarkedView, (leaf,)), (MarkedView, (nonleaf,)), (MarkedDirty, (nonleaf,)),
            (Identity, (plain,)), (IntegerPassedOn, (leaf, lambda: lib.arange(2))), (MadeRequiringGrad, (leaf,))]

@pytest.mark.parametrize('no_grad', [False, True])
@pytest.mark.parametrize('case', range(8))
def test_function_outputs_autograd_does_not_differentiate(case, no_grad):
    """torch's `set_history` for an output that is not differentiated: an input returned as is comes back as a new tensor (a
    detached alias if it requires grad, else a view of it); a tensor made in forward loses requires_grad, a view keeps it."""
    outs = []
    for lib in LIBS:
        f, makers = _undifferentiated_cases(lib)[case]
        args = [m() for m in makers]
        with lib.set_grad_enabled(not no_grad):
            res = f.apply(*args)
        res = res if isinstance(res, tuple) else (res,)
        outs.append([(any(r is a for a in args), any(r._base is a for a in args), r.requires_grad, r.is_leaf, type(r.grad_fn).__name__)
                     for r in res])
    assert outs[0] == outs[1]


@pytest.mark.parametrize('out_dtype,grad_dtype', [('float32', 'complex64'), ('complex64', 'float32')])
@pytest.mark.parametrize('how', ['grad', 'backward'])
def test_complex_grad_output_for_a_real_output_refused_as_torch(out_dtype, grad_dtype, how):
    "A complex gradient for a real output, or a real one for a complex output, is refused (torch casts only within real or complex)."
    msgs = []
    for L in (torch, litnn):
        x = L.ones(2, requires_grad=True, dtype=getattr(L, out_dtype))
        g = L.ones(2, dtype=getattr(L, grad_dtype))
        with pytest.raises(RuntimeError) as e:
            L.autograd.grad(x * 2, x, g) if how == 'grad' else (x * 2).backward(g)
        msgs.append(str(e.value).replace('litnn.', 'torch.'))      # (litnn's dtypes print as litnn.float32)
    assert msgs[0] == msgs[1]


def test_grad_output_cast_within_real_or_complex_as_torch():
    for out, gd in (('float32', 'float64'), ('complex64', 'complex128')):
        res = []
        for L in (torch, litnn):
            x = L.ones(2, requires_grad=True, dtype=getattr(L, out))
            g, = L.autograd.grad(x * 2, x, L.ones(2, dtype=getattr(L, gd)))
            res.append((str(g.dtype).split('.')[-1], g.detach().numpy().tolist()))
        assert res[0] == res[1]


def _error_or_grad(f, L):
    try: return str(f(L).tolist())     # (as text: sqrt_ of -1 gives nan, equal to itself so)
    except RuntimeError as e: return str(e).replace('litnn.', 'torch.').split(' Hint')[0]

@pytest.mark.parametrize('ops', ['sigmoid_ sigmoid_', 'exp_ mul_', 'tanh_ relu_', 'exp_ pow_', 'reciprocal_ neg_', 'exp_ ', 'relu_ relu_',
                                 'div_ div_', 'sigmoid_ add_', 'rsqrt_ data'])
def test_in_place_op_saving_its_output_saves_self_at_its_version_as_torch(ops):
    """An in-place op whose backward reads its output (exp_, sigmoid_, tanh_) saves self at the version its write gives:
    a second in-place change before backward is refused with torch's version error; without one, the same gradient."""
    def f(L):
        a = L.tensor([0.5, -1., 2.], dtype=L.float64, requires_grad=True)   # (float64: exp's float32 last bits are numpy's)
        x = a.clone()
        for op in ops.split():
            if op == 'data': x.data.mul_(2)     # a change autograd does not see: no error, in both
            else: getattr(x, op)(*((2.,) if op in ('mul_', 'pow_', 'div_', 'add_') else ()))
        x.sum().backward()
        return a.grad
    assert _error_or_grad(f, litnn) == _error_or_grad(f, torch)


@pytest.mark.parametrize('transform', ['grad', 'vmap', 'jvp', 'vjp', 'jacrev', 'jacfwd'])
def test_backward_inside_a_function_transform_refused_as_torch(transform):
    def f(L):
        w = L.ones(3, requires_grad=True)
        def fn(x):
            (w * 2).sum().backward()
            return (x * x).sum()
        x = L.ones(3)
        tr = getattr(L.func, transform)
        if transform == 'vmap': tr(fn)(x.reshape(3, 1))
        elif transform == 'jvp': tr(fn, (x,), (x,))
        elif transform == 'vjp': tr(fn, x)
        else: tr(fn)(x)
    assert same_message(f) is RuntimeError


def _undefined_gradient_trace(m):
    "What hooks and Functions see when only 'no gradient' reaches part of the graph (a Function or a hook gave None)."
    out = []
    class Id(m.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x.clone()
        @staticmethod
        def backward(ctx, g): out.append(('Id got', g.tolist())); return g
    class Kill(m.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x.clone()
        @staticmethod
        def backward(ctx, g): return None
    w = m.ones(3, requires_grad=True)
    w.register_hook(lambda g: out.append(('leaf hook', g)))
    a = w * 2
    a.register_hook(lambda g: out.append(('a hook', g)))
    a.grad_fn.register_prehook(lambda go: out.append(('mul pre', go)))
    a.grad_fn.register_hook(lambda gi, go: out.append(('mul post', gi, go)))
    acc = a.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: out.append(('acc pre', go)))
    acc.register_hook(lambda gi, go: out.append(('acc post', gi, go)))
    Kill.apply(a).sum().backward()
    out.append(('w.grad', w.grad))
    w = m.ones(3, requires_grad=True)
    b = (Id.apply(w) * 2).exp()
    b.grad_fn.register_prehook(lambda go: (None,))
    b.sum().backward()
    out.append(('behind a built-in op', None if w.grad is None else w.grad.tolist()))
    lin = m.nn.Linear(3, 3)
    lin.register_full_backward_pre_hook(lambda mod, go: (None,))
    lin.register_full_backward_hook(lambda mod, gi, go: out.append(('full hook', [None if t is None else t.tolist() for t in gi], go)))
    x = m.ones(2, 3, requires_grad=True)
    (lin(x) * 2).sum().backward()
    out.append(('module', None if x.grad is None else x.grad.tolist(), lin.weight.grad))
    return [str(o) for o in out]


def test_nodes_reached_only_by_no_gradient_run_as_torch():
    "A built-in node that only None reached runs (hooks see None) and passes None on; a custom Function behind it gets zeros."
    assert _undefined_gradient_trace(litnn) == _undefined_gradient_trace(torch)


def _autograd_misuse_error(m, case):
    import numpy as np
    try:
        if case == 'backward of a number': m.autograd.backward([1.])
        elif case == 'backward of a tensor and a number': m.autograd.backward([m.ones(1, requires_grad=True), 2])
        elif case == 'hook returns an array':
            x = m.ones(3, requires_grad=True); h = x * 2; h.register_hook(lambda g: np.ones(3)); h.sum().backward()
        elif case == 'node hook returns a list':
            x = m.ones(3, requires_grad=True); h = x * 2; h.grad_fn.register_prehook(lambda g: [g[0]]); h.sum().backward()
    except Exception as e: return type(e).__name__, str(e).replace('torch.', 'litnn.')
    return None


@pytest.mark.parametrize('case', ['backward of a number', 'backward of a tensor and a number', 'hook returns an array', 'node hook returns a list'])
def test_autograd_misuse_errors_as_torch(case):
    assert _autograd_misuse_error(litnn, case) == _autograd_misuse_error(torch, case)

"""The autograd graph litnn records, as code that inspects it sees it, against torch's: the node's name and repr, its
next_functions (the graph's shape), what it saved, hooks on it, and that values and gradients are torch's."""
import re
import numpy as np
import pytest
import torch
import litnn

rng = np.random.default_rng(0)

def both(*arrays, rg=True):
    "The same float64 arrays as torch and litnn tensors requiring grad."
    return ([torch.tensor(a, requires_grad=rg) for a in arrays], [litnn.tensor(a, requires_grad=rg) for a in arrays])

def shape_of(fn, depth=2):
    "The graph below `fn` as nested (name, children) down to `depth`, None for a missing edge."
    if fn is None: return None
    if depth == 0: return type(fn).__name__
    return (type(fn).__name__, tuple(shape_of(f, depth - 1) for f, _ in fn.next_functions))

def repr_node(t): return re.search(r'grad_fn=<(\w+)>', repr(t)).group(1)

X, W, B = rng.standard_normal((2, 3, 5, 5)), rng.standard_normal((3, 4, 3, 3)), rng.standard_normal(4)
CONV_CASES = [
    ('conv_transpose2d', (X, W, B), dict(stride=2, padding=1, output_padding=1)),
    ('conv_transpose2d', (X, W, None), dict()),
    ('conv_transpose2d', (X, W[:, :2], None), dict(dilation=2)),
    ('conv_transpose1d', (X[:, :, 0], W[:, :, 0], B), dict(stride=3)),
    ('conv_transpose3d', (X[:1, :, None, :3, :3].repeat(3, 2), W[:, :2, None].repeat(2, 2), B[:2]), dict(stride=2)),
    ('conv3d', (X[:, :, None].repeat(3, 2), W.transpose(1, 0, 2, 3)[:, :, None].repeat(2, 2), B[:4]), dict(padding=1)),
]

@pytest.mark.parametrize('fn,arrays,kw', CONV_CASES, ids=[f'{c[0]}-{i}' for i, c in enumerate(CONV_CASES)])
def test_convolutions_record_one_convolution_node_as_torch(fn, arrays, kw):
    tensors = [a for a in arrays if a is not None]
    ts, ls = both(*tensors)
    def args(xs):
        it = iter(xs)
        return [None if a is None else next(it) for a in arrays]
    to = getattr(torch.nn.functional, fn)(*args(ts), **kw)
    lo = getattr(litnn.nn.functional, fn)(*args(ls), **kw)
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__ == 'ConvolutionBackward0'
    assert lo.grad_fn.name() == to.grad_fn.name()
    assert repr_node(lo) == repr_node(to) == 'ConvolutionBackward0'
    assert shape_of(lo.grad_fn) == shape_of(to.grad_fn)      # input, weight, bias (None without one): AccumulateGrad leaves
    assert hasattr(lo.grad_fn, '_saved_self') == hasattr(to.grad_fn, '_saved_self') == False   # (torch's names are _saved_input, _saved_weight)
    g = rng.standard_normal(tuple(to.shape))
    to.backward(torch.tensor(g)); lo.backward(litnn.tensor(g))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-10)
    for t, l in zip(ts, ls): np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-10)

@pytest.mark.parametrize('lib', [torch, litnn])
def test_conv_transpose_node_hooks_see_torchs_gradients(lib):
    "Hooks on the one node: the pre-hook gets the output's gradient, the hook the input, weight and bias gradients."
    x, w, b = (lib.tensor(a, requires_grad=True) for a in (X, W, B))
    out = lib.nn.functional.conv_transpose2d(x, w, b, stride=2)
    log = []
    out.grad_fn.register_prehook(lambda go: log.append([tuple(g.shape) for g in go]))
    out.grad_fn.register_hook(lambda gi, go: log.append([None if g is None else tuple(g.shape) for g in gi]))
    out.sum().backward()
    assert log == [[(2, 4, 11, 11)], [(2, 3, 5, 5), (3, 4, 3, 3), (4,)]]

def test_conv_transpose_module_repr_and_graph_as_torch():
    tm, lm = torch.nn.ConvTranspose2d(3, 2, 3, stride=2).double(), litnn.nn.ConvTranspose2d(3, 2, 3, stride=2).double()
    with torch.no_grad(), litnn.no_grad():
        for (_, p), (_, q) in zip(tm.named_parameters(), lm.named_parameters()): q.copy_(litnn.tensor(p.numpy()))
    to, lo = tm(torch.tensor(X)), lm(litnn.tensor(X))
    assert repr_node(lo) == repr_node(to) == 'ConvolutionBackward0'
    assert shape_of(lo.grad_fn) == shape_of(to.grad_fn) == ('ConvolutionBackward0', (None, ('AccumulateGrad', ()), ('AccumulateGrad', ())))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-10)

def test_conv_transpose_one_node_double_backward_as_torch():
    "The node's backward is recorded under create_graph: a second derivative flows to the input and the weight."
    (tx, tw), (lx, lw) = both(X[:1, :2, :4, :4], W[:2, :2])
    res = []
    for lib, x, w in ((torch, tx, tw), (litnn, lx, lw)):
        o = lib.nn.functional.conv_transpose2d(x, w, stride=2)
        gx, gw = lib.autograd.grad((o ** 2).sum(), (x, w), create_graph=True)
        (gx.sum() + (gw ** 2).sum()).backward()
        res.append([v.detach().numpy() for v in (gx, gw, x.grad, w.grad)])
    for a, b in zip(*res): np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9)

def test_conv_transpose_node_second_backward_is_torchs_error():
    for lib in (torch, litnn):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        o = lib.nn.functional.conv_transpose2d(x, w).sum()
        o.backward()
        with pytest.raises(RuntimeError, match='Trying to backward through the graph a second time'): o.backward()

def test_group_norm_node_has_torchs_edges_without_affine():
    "torch's NativeGroupNormBackward0 keeps an edge to the missing weight and bias: (None, 0) each."
    (tx,), (lx,) = both(X)
    to, lo = torch.nn.functional.group_norm(tx, 3), litnn.nn.functional.group_norm(lx, 3)
    assert shape_of(lo.grad_fn) == shape_of(to.grad_fn) == ('NativeGroupNormBackward0', (('AccumulateGrad', ()), None, None))
    to.sum().backward(); lo.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)

A = rng.standard_normal((3, 4))
NUMBER_ARGS = {     # ops whose trailing arguments are numbers or options: torch's node has an edge per tensor argument only
    'add number': lambda m, x: x + 2.5, 'sub number': lambda m, x: x - 2.5, 'mul number': lambda m, x: x * 2.5,
    'div number': lambda m, x: x / 2.5, 'pow number': lambda m, x: x ** 2, 'remainder': lambda m, x: m.remainder(x, 1.5),
    'fmod': lambda m, x: m.fmod(x, 1.5), 'clamp': lambda m, x: x.clamp(-0.5, 0.5), 'masked_fill': lambda m, x: x.masked_fill(x > 0, 1.0),
    'scatter_ value': lambda m, x: (x * 1).scatter_(1, m.tensor([[0], [1], [2]]), 2.0), 'leaky_relu': lambda m, x: m.nn.functional.leaky_relu(x, 0.2),
    'softmax dim': lambda m, x: x.softmax(1), 'cumsum dim': lambda m, x: x.cumsum(1), 'sum dim': lambda m, x: x.sum(1),
}

@pytest.mark.parametrize('name', list(NUMBER_ARGS))
def test_number_arguments_get_no_edge_as_torch(name):
    (tx,), (lx,) = both(A)
    to, lo = NUMBER_ARGS[name](torch, tx), NUMBER_ARGS[name](litnn, lx)
    assert len(lo.grad_fn.next_functions) == len(to.grad_fn.next_functions)
    assert shape_of(lo.grad_fn) == shape_of(to.grad_fn)
    logs = []
    for o in (to, lo):
        log = []
        o.grad_fn.register_prehook(lambda go, log=log: log.append(('pre', [None if g is None else tuple(g.shape) for g in go])))
        o.grad_fn.register_hook(lambda gi, go, log=log: log.append(('post', [None if g is None else tuple(g.shape) for g in gi])))
        o.sum().backward()
        logs.append(log)
    assert logs[1] == logs[0]       # the hook gets one gradient per edge
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)

def test_needs_input_grad_still_answers_for_every_argument():
    "A backward unpacks one flag per argument of its forward: a trailing number's is False."
    lx = litnn.tensor(A, requires_grad=True)
    fn = lx.index_fill(1, litnn.tensor([0]), 2.0).grad_fn      # (x, value): torch's IndexFillBackward0 has one edge
    tn = torch.tensor(A, requires_grad=True).index_fill(1, torch.tensor([0]), 2.0).grad_fn
    assert len(fn.next_functions) == len(tn.next_functions) == 1 and fn.needs_input_grad == (True, False)

@pytest.mark.parametrize('name,f', [('mul float', lambda x: x * 2.5), ('div int', lambda x: x / 2), ('mul bool', lambda x: x * True),
                                    ('mul_ float', lambda x: (x * 1).mul_(2.5)), ('div_', lambda x: (x * 1).div_(4.0))])
def test_saved_number_of_an_arithmetic_op_is_a_wrapped_tensor_as_torch(name, f):
    "torch wraps the number of `x * 2.5` in a 0-d tensor (of the number's own dtype): `_saved_other` reads it so."
    (tx,), (lx,) = both(A)
    to, lo = f(tx).grad_fn._saved_other, f(lx).grad_fn._saved_other
    assert isinstance(lo, litnn.Tensor) and lo.shape == to.shape == ()
    assert str(lo.dtype).split('.')[-1] == str(to.dtype).split('.')[-1] and lo.item() == to.item()

def test_saved_exponent_stays_a_number_as_torch():
    (tx,), (lx,) = both(A)
    assert lx.pow(2).grad_fn._saved_exponent == tx.pow(2).grad_fn._saved_exponent == 2

def test_one_node_aliases_do_not_pile_up_on_the_inputs_memory():
    """Each call of a one-node composite aliases its inputs, and a view of an alias registers it with the memory (group_norm
    reshapes its input): the dropped aliases are forgotten, not kept, one per call, by a loop over the same tensor."""
    from litnn._tensor import _version_counter
    from litnn._views import _memory_views
    x = litnn.tensor(X, requires_grad=True)
    for _ in range(300): litnn.nn.functional.group_norm(x, 3).sum().backward()
    assert len(_memory_views(_version_counter(x)).roots) < 40

INDEX_OUTPUTS = {'max dim': lambda x: x.max(1)[0], 'min keepdim': lambda x: x.min(0, keepdim=True)[0], 'sort': lambda x: x.sort(1)[0],
                 'topk': lambda x: x.topk(2)[0], 'kthvalue': lambda x: x.kthvalue(2)[0], 'median dim': lambda x: x.median(1)[0]}

@pytest.mark.parametrize('name', list(INDEX_OUTPUTS))
def test_hooks_on_a_node_with_index_outputs_see_one_gradient_as_torch(name):
    "torch's node has no output for the indices: its hooks get the values' gradient alone, and may replace it."
    logs, grads = [], []
    for lib in (torch, litnn):
        x = lib.tensor(A, requires_grad=True)
        o, log = INDEX_OUTPUTS[name](x), []
        o.grad_fn.register_prehook(lambda go, log=log: (log.append(len(go)), (go[0] * 2,))[1])
        o.grad_fn.register_hook(lambda gi, go, log=log: log.append((len(gi), len(go))))
        o.sum().backward()
        logs.append(log); grads.append(x.grad.numpy())
    assert logs[1] == logs[0] == [1, (1, 1)]
    np.testing.assert_array_equal(grads[1], grads[0])

def test_a_functions_non_differentiable_output_keeps_its_gradient_slot_as_torch():
    log = []
    for lib in (torch, litnn):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                i = x.argmax().reshape(1).float()
                ctx.mark_non_differentiable(i)
                return x * 2, i
            @staticmethod
            def backward(ctx, g, gi): return g * 2
        y, _ = Two.apply(lib.tensor(A, requires_grad=True))
        y.grad_fn.register_prehook(lambda go, lib=lib: log.append(len(go)))
        y.sum().backward()
    assert log[0] == log[1] == 2

@pytest.mark.parametrize('name,f', [('max', lambda x: x.max(1)[0]), ('min keepdim', lambda x: x.min(0, keepdim=True)[0]),
                                    ('prod', lambda x: x.prod(1)), ('sum', lambda x: x.sum(1)), ('amax', lambda x: x.amax(1)),
                                    ('cumsum', lambda x: x.cumsum(1))])
def test_saved_dim_has_torchs_form(name, f):
    "An `int dim` overload saves an int (max.dim, prod.dim_int, cumsum), an `int[] dim` one a tuple (sum, amax)."
    (tx,), (lx,) = both(A)
    assert f(lx).grad_fn._saved_dim == f(tx).grad_fn._saved_dim

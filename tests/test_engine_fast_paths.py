"""The engine's short roads (issue 30: per-node overhead), each against real torch on the same inputs: `x + b` and
`x * b` of two float tensors that broadcast taking `_plain_binary` (values, gradients, grad_fn names, layouts, errors),
the one-sort topological order (AccumulateGrads with several feeders, several at one place, a leaf's node as a root),
the walk's short road and what sends a node off it (a node's own hooks registered after it was made, anomaly mode,
retain_graph's error, create_graph), and a no_grad write to a base whose views are all dead."""
import numpy as np, pytest
import litnn

torch = pytest.importorskip('torch')
from torch_pairs import run, same

pytestmark = pytest.mark.usefixtures('grad_mode_on')     # (tests/conftest.py)

rng = np.random.default_rng(30)

def _arr(*shape, dtype=np.float32): return rng.standard_normal(shape).astype(dtype)

def _flat(v):
    "Results with arrays (and tensors) as numpy arrays, sizes as tuples, in nested lists."
    if isinstance(v, (list, tuple)) and not isinstance(v, (litnn.Size, torch.Size)): return [_flat(x) for x in v]
    if isinstance(v, (litnn.Size, torch.Size)): return tuple(v)
    if isinstance(v, (litnn.Tensor, torch.Tensor)): return v.detach().numpy()
    return v

def close(fn):
    "fn run in litnn and in torch: equal results, arrays of one dtype and shape within float rounding."
    a, b = _flat(run(litnn, fn)), _flat(run(torch, fn))
    def check(x, y):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape, (x, y)
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
        elif isinstance(x, list):
            assert isinstance(y, list) and len(x) == len(y), (x, y)
            for u, v in zip(x, y): check(u, v)
        else: assert x == y, (x, y)
    check(a, b)

@pytest.mark.parametrize('op', ['add', 'sub', 'mul'])
@pytest.mark.parametrize('sa,sb', [((4, 5), (5,)), ((5,), (4, 5)), ((4, 1), (1, 5)), ((2, 3, 4), (3, 1)), ((), (3, 2)),
                                   ((3, 2), ()), ((1, 4), (4,)), ((4, 5), (4, 5))])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_broadcast_pairs_match_torch(op, sa, sb, dtype):
    "Values, both gradients (summed back to each shape), grad_fn names and the result's strides, as torch."
    a0, b0, g0 = _arr(*sa, dtype=dtype), _arr(*sb, dtype=dtype), None
    def f(L):
        a, b = L.tensor(a0, requires_grad=True), L.tensor(b0, requires_grad=True)
        y = a + b if op == 'add' else a - b if op == 'sub' else a * b
        g = L.tensor(np.broadcast_to(np.linspace(-1, 1, int(np.prod(y.shape)) or 1, dtype=dtype)[:int(np.prod(y.shape))].reshape(y.shape), y.shape).copy())
        y.backward(g)
        return y, y.grad_fn.name(), y.stride(), tuple(y.shape), a.grad, b.grad, a.grad.shape, b.grad.shape
    close(f)

@pytest.mark.parametrize('op', ['add', 'sub', 'mul'])
def test_broadcast_pairs_one_requiring_grad(op):
    "Only one side requires grad: the other gets no edge, a product saves only what the gradient needs."
    a0, b0 = _arr(3, 4), _arr(4)
    def f(L):
        a, b = L.tensor(a0), L.tensor(b0, requires_grad=True)
        y = (a + b if op == 'add' else a - b if op == 'sub' else a * b)
        y.sum().backward()
        return [fn is None for fn, _ in y.grad_fn.next_functions], b.grad, a.grad
    close(f)

@pytest.mark.parametrize('op', ['add', 'sub', 'mul'])
def test_broadcast_pairs_layout_of_transposed_operands(op):
    "A transposed first operand, or a transposed second one behind a broadcast row: the result's strides as torch's TensorIterator's."
    a0, b0, c0 = _arr(5, 4), _arr(4), _arr(1, 5)
    def f(L):
        a, b, c = L.tensor(a0).t(), L.tensor(b0), L.tensor(c0)
        r = []
        for x, y in ((a, c), (c, a), (b.reshape(4, 1), a), (a.contiguous(), c)):
            z = x + y if op == 'add' else x - y if op == 'sub' else x * y
            r.append((z.stride(), z))
        return r
    close(f)

@pytest.mark.parametrize('op', ['add', 'sub', 'mul'])
def test_broadcast_pairs_that_do_not_broadcast(op):
    "Shapes that do not broadcast: torch's RuntimeError and message, with and without grad."
    for rg in (False, True):
        def f(L):
            a, b = L.tensor(_arr(3, 4), requires_grad=rg), L.tensor(_arr(5))
            return (lambda: a + b) if op == 'add' else (lambda: a - b) if op == 'sub' else (lambda: a * b)
        (el, tl) = f(litnn), f(torch)
        with pytest.raises(RuntimeError) as e1: el()
        with pytest.raises(RuntimeError) as e2: tl()
        assert str(e1.value) == str(e2.value)

def test_broadcast_bias_of_a_layer_step():
    "An MLP layer `h @ w.t() + b` with relu: values and every gradient, the bias's summed over the batch, as torch."
    x0, w0, b0 = _arr(8, 6), _arr(5, 6), _arr(5)
    def f(L):
        x, w, b = L.tensor(x0), L.tensor(w0, requires_grad=True), L.tensor(b0, requires_grad=True)
        y = (x @ w.t() + b).relu()
        (y * y).sum().backward()
        return y, w.grad, b.grad, w.grad.stride(), y.grad_fn.next_functions[0][0].name()
    close(f)

def test_broadcast_pairs_create_graph():
    "A second derivative through a broadcast product: the recorded backward, as torch."
    a0, b0 = _arr(3, 4), _arr(4)
    def f(L):
        a, b = L.tensor(a0, requires_grad=True), L.tensor(b0, requires_grad=True)
        y = (a * b * b).sum()
        gb, = L.autograd.grad(y, b, create_graph=True)
        gb.sum().backward()
        return gb, a.grad, b.grad
    close(f)

def test_topological_order_with_shared_leaves_and_roots():
    "Leaves fed at several depths, one first used in an earlier graph, a leaf's node among the roots: hook order and gradients, as torch."
    def f(L):
        log = []
        u = L.tensor([1., 2.], requires_grad=True)
        (u * 2).sum().backward(retain_graph=True)          # u's AccumulateGrad made early
        v, w = L.tensor([3., 4.], requires_grad=True), L.tensor([.5, -1.], requires_grad=True)
        h = (v * 2).tanh() * w                              # v complete after its product, w after a later node
        z = (h * u + u).sigmoid() * w
        for nm, t in (('u', u), ('v', v), ('w', w), ('h', h), ('z', z)):
            t.register_hook(lambda g, nm=nm: log.append(nm))
            if t.is_leaf: t.register_post_accumulate_grad_hook(lambda t, nm=nm: log.append('post ' + nm))
        L.autograd.backward([z.sum(), u], [None, L.ones(2)])
        return log, [t.grad for t in (u, v, w)]
    close(f)

def test_node_hooks_registered_after_the_node_was_made():
    "A post-hook and a pre-hook on a node made earlier take the node off the short road: they run, and may replace gradients."
    def f(L):
        log = []
        x = L.tensor([1., -2., 3.], requires_grad=True)
        y = x.sigmoid()
        z = (y * 3).sum()
        y.grad_fn.register_hook(lambda gi, go: log.append(('post', [g.tolist() for g in gi], [g.tolist() for g in go])))
        (z.grad_fn.next_functions[0][0]).register_prehook(lambda go: (go[0] * 2,))
        z.backward()
        return [(k, [np.array(v) for v in gi], [np.array(v) for v in go]) for k, gi, go in log], x.grad
    close(f)

def test_second_backward_and_retain_graph():
    "The short road frees what a node saved: a second backward is torch's RuntimeError; retain_graph keeps it and sums."
    def f(L):
        x = L.tensor([.5, 1.5], requires_grad=True)
        y = (x * x).tanh().sum()
        y.backward(retain_graph=True); y.backward()
        g = x.grad.clone()
        try: y.backward(); err = None
        except RuntimeError as e: err = str(e).split('.')[0]
        return g, err
    close(f)

def test_anomaly_mode_still_sees_nan():
    "With anomaly detection on (off the short road) a NaN gradient is torch's RuntimeError naming the node."
    def f(L):
        x = L.tensor([0., 1.], requires_grad=True)
        with L.autograd.detect_anomaly(check_nan=True):
            y = (x.sqrt() * 0).sum()
            try: y.backward(); return None
            except RuntimeError as e: return str(e).split("'")[1]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same(f)

def test_no_grad_write_to_a_base_with_dead_views():
    "A no_grad update of a weight whose step's `w.t()` view is gone, then a new view: gradients as torch; a live view regenerated."
    def f(L):
        w = L.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        x = L.tensor([[1., -1.]])
        (x @ w.t()).sum().backward()
        with L.no_grad(): w -= 0.1 * w.grad
        w.grad = None
        live = w[0]
        with L.no_grad(): w.mul_(2.)
        (x @ w.t()).sum().backward()
        return w.grad, w, live.grad_fn.name(), live
    close(f)

def test_sub_short_road_with_numbers_and_inf():
    "`x - y`, `x - 2`, `x - 0.5` and inf - inf (numpy's warning kept quiet) on the short road: values, grads, names, as torch."
    a0, b0 = np.array([1., np.inf, -2.], np.float32), np.array([3., np.inf, 0.5], np.float32)
    def f(L):
        a, b = L.tensor(a0, requires_grad=True), L.tensor(b0, requires_grad=True)
        ys = [a - b, a - 2, b - 0.5, (a - b) - True]
        sum(y.nan_to_num(0., 1e3, -1e3).sum() for y in ys).backward()
        return [y.detach() for y in ys], [y.grad_fn.name() for y in ys], a.grad, b.grad
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        close(f)

@pytest.mark.parametrize('beta,alpha', [(1, 1), (1., 1), (True, 1), (0, 1), (2, 0.5), (1, 1.)])
@pytest.mark.parametrize('dtype', ['float32', 'int64'])
def test_addmm_scalars_read_once(beta, alpha, dtype):
    "addmm's beta and alpha: the defaults skip torch's scalar checks (1 fits every dtype); others still read as torch reads them."
    def f(L):
        d = getattr(L, dtype)
        c, a, b = L.arange(6).reshape(2, 3).to(d), L.arange(8).reshape(2, 4).to(d), L.arange(12).reshape(4, 3).to(d)
        r = L.addmm(c, a, b, beta=beta, alpha=alpha)
        return str(r.dtype).split(".")[-1], r
    close(f)

def test_linear_layer_values_and_grads():
    "nn.Linear (addmm with the default scalars) forward and backward from the same weights, as torch."
    w0, b0, x0 = _arr(4, 6), _arr(4), _arr(5, 6)
    def f(L):
        lin = L.nn.Linear(6, 4)
        with L.no_grad(): lin.weight.copy_(L.tensor(w0)); lin.bias.copy_(L.tensor(b0))
        x = L.tensor(x0, requires_grad=True)
        y = lin(x)
        (y * y).sum().backward()
        return y.grad_fn.name(), y, x.grad, lin.weight.grad, lin.bias.grad
    close(f)

@pytest.mark.parametrize('fn', ['tanh', 'sigmoid', 'exp'])
def test_unary_backward_reads_its_output_checked(fn):
    "A unary op's backward reading its saved output: the array itself, torch's error once the output changed in place, a pack hook's unpacked one."
    x0 = np.array([.5, -1., 2.], np.float32)
    def f(L):
        x = L.tensor(x0, requires_grad=True)
        y = getattr(x, fn)()
        y.sum().backward()
        g = x.grad.clone()
        z = getattr(x, fn)()
        w = z * 1
        with L.no_grad(): z.mul_(2)
        try: w.sum().backward(); err = None
        except RuntimeError as e: err = str(e).split('Hint')[0].replace('torch.', '').replace('litnn.', '')
        x.grad = None
        with L.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t * 2):
            v = getattr(x, fn)()
        v.sum().backward()
        return g, err, x.grad
    close(f)

# `t()` and `x @ y` of plain float matrices record their nodes inline (`_plain_mm`, t's short road): everything torch shows stays

def _msg(e): return (type(e).__name__, str(e).split('Hint')[0].replace('torch.', '').replace('litnn.', ''))

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_t_and_matmul_short_road_values_grads_names(dtype):
    "x @ w.t() + b, twice, then backward: values, gradients, grad_fn names and edges, the view's base, strides and version, as torch."
    x0, w0, v0 = _arr(5, 6), _arr(4, 6), _arr(3, 4)
    def f(L):
        d = getattr(L, dtype)
        x, w, v = L.tensor(x0, dtype=d, requires_grad=True), L.tensor(w0, dtype=d, requires_grad=True), L.tensor(v0, dtype=d, requires_grad=True)
        wt = w.t()
        h = x @ wt
        y = h @ v.t()
        y.float().sum().backward()
        names = [wt.grad_fn.name(), h.grad_fn.name(), y.grad_fn.name(), [fn.name() if fn else None for fn, _ in h.grad_fn.next_functions]]
        return (names, wt._base is w, wt.is_contiguous(), wt.stride(), wt._version, wt.is_leaf, h.is_leaf, str(h.dtype).split('.')[-1],
                y.float(), x.grad.float(), w.grad.float(), v.grad.float(), w.grad.stride())
    close(f)

def test_t_and_matmul_short_road_without_grad_and_modes():
    "No input needing grad, no_grad, inference_mode: requires_grad, grad_fn, is_inference, the base and version counter, as torch."
    w0, x0 = _arr(3, 2), _arr(4, 2)
    def f(L):
        out = []
        w, wg, x = L.tensor(w0), L.tensor(w0, requires_grad=True), L.tensor(x0)
        for mode in (L.enable_grad, L.no_grad, L.inference_mode):
            with mode():
                for m in (w, wg):
                    t = m.t(); p = x @ t
                    out.append([t.requires_grad, t.grad_fn is None, t.is_inference(), t._base is m, p.requires_grad, p.grad_fn is None, p.is_inference()])
        with L.inference_mode(): wi = L.tensor(w0)
        t = wi.t()
        out.append([t.is_inference(), t.requires_grad, (x @ t).is_inference()])
        with L.no_grad(): n = wg.t()
        out.append([n.requires_grad, n.grad_fn is None, n.is_leaf])
        return out
    close(f)

def test_t_view_writes_and_saved_operands_checked():
    "A write through `w.t()` bumps w's version and rebases the view; a saved operand changed before backward: torch's error."
    w0, x0 = _arr(3, 2), _arr(4, 2)
    def f(L):
        w = L.tensor(w0, requires_grad=True)
        a = w * 1
        at = a.t()
        at.mul_(2)
        v = (a._version, at._version, at.grad_fn.name(), a.grad_fn.name())
        x = L.tensor(x0, requires_grad=True)
        p = x @ a.t()
        with L.no_grad(): a.add_(1)
        try: p.sum().backward(); err = None
        except RuntimeError as e: err = _msg(e)
        q = x @ w.t()
        q.sum().backward()
        return v, err, w.grad, x.grad
    close(f)

@pytest.mark.parametrize('case', ['inner', 'dtypes', 'ints', 'one_d', 'three_d', 'out', 'bool'])
def test_matmul_and_t_unusual_operands_take_the_general_road(case):
    "Sizes that do not fit, two dtypes, integers, vectors, batches, out=, bools: torch's results or errors (type and message)."
    def f(L):
        a, b = L.tensor(_arr(2, 3)), L.tensor(_arr(4, 2))
        if case == 'inner': return a @ b
        if case == 'dtypes': return a @ L.tensor(_arr(3, 2), dtype=L.float64)
        if case == 'ints': return L.arange(6).reshape(2, 3) @ L.arange(6).reshape(3, 2).t().t(), L.arange(6).reshape(2, 3).t()
        if case == 'one_d': return a @ L.ones(3), L.ones(3).t(), L.ones(2) @ b.t()
        if case == 'three_d': return L.ones(2, 2, 3).t()
        if case == 'out':
            o = L.empty(2, 2)
            return L.matmul(a, L.ones(3, 2), out=o) is o, o
        if case == 'bool': return L.ones(2, 3, dtype=L.bool) @ L.ones(3, 2, dtype=L.bool)
    a, b = run(litnn, f), run(torch, f)
    if isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], str): assert a[0] == b[0] and a[1] == b[1], (a, b)
    else:
        fa, fb = _flat(a), _flat(b)
        sh = lambda v: [sh(u) for u in v] if isinstance(v, list) else (v.shape, v.dtype) if isinstance(v, np.ndarray) else v
        assert sh(fa) == sh(fb), (fa, fb)

def test_matmul_short_road_under_forward_ad_autocast_and_hooks():
    "Forward AD's tangents, autocast's bfloat16 product, a tensor hook, retain_grad and a pack hook through `x @ w.t()`, as torch."
    x0, w0, tx = _arr(3, 4), _arr(2, 4), _arr(3, 4)
    def f(L):
        import importlib
        fwAD = importlib.import_module(L.__name__ + '.autograd.forward_ad')
        w = L.tensor(w0)
        with fwAD.dual_level():
            x = fwAD.make_dual(L.tensor(x0), L.tensor(tx))
            tan = fwAD.unpack_dual(x @ w.t()).tangent
        with L.autocast('cpu', dtype=L.bfloat16):
            ac = L.tensor(x0) @ L.tensor(w0).t()
        x, w = L.tensor(x0, requires_grad=True), L.tensor(w0, requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(g.shape))
        wt = w.t(); wt.retain_grad()
        with L.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t * 2):
            y = x @ wt
        y.sum().backward()
        return tan, str(ac.dtype).split('.')[-1], ac.float(), [tuple(s) for s in seen], wt.grad, x.grad, w.grad
    close(f)

def test_matmul_of_parameters_and_subclasses():
    "nn.Parameter operands (a subclass: the general road) and a model's `x @ self.w.t()`: values, grads, names, as torch."
    w0, x0 = _arr(3, 4), _arr(2, 4)
    def f(L):
        w = L.nn.Parameter(L.tensor(w0))
        x = L.tensor(x0, requires_grad=True)
        y = x @ w.t()
        (y * y).sum().backward()
        return y.grad_fn.name(), w.t().grad_fn.name(), y, x.grad, w.grad, type(w.t()).__name__
    close(f)

@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
def test_linear_short_road_nodes_and_grads(bias, dtype):
    "F.linear of a matrix (nn.Linear's call) on the short road: values, grad_fn name and edges, gradients, a weight changed before backward."
    w0, b0, x0 = _arr(4, 6), _arr(4), _arr(5, 6)
    def f(L):
        d = getattr(L, dtype)
        lin = L.nn.Linear(6, 4, bias=bias, dtype=d)
        with L.no_grad():
            lin.weight.copy_(L.tensor(w0))
            if bias: lin.bias.copy_(L.tensor(b0))
        x = L.tensor(x0, dtype=d, requires_grad=True)
        y = lin(x)
        edges = len(y.grad_fn.next_functions)     # (torch's weight edge goes through a TBackward0 node: litnn's does not, on either road)
        y.float().sum().backward()
        z = L.nn.functional.linear(x.detach(), lin.weight.detach(), lin.bias.detach() if bias else None)
        p = lin(x)
        with L.no_grad(): lin.weight.mul_(2)
        try: p.sum().backward(); err = None
        except RuntimeError as e: err = _msg(e)[0]
        tol = 1e-2 if dtype == 'float16' else 1e-5
        ok = np.allclose(y.detach().float().numpy(), (x0.astype(np.float64) @ w0.T.astype(np.float64) + (b0 if bias else 0)), rtol=tol, atol=tol)
        return (y.grad_fn.name(), edges, str(y.dtype).split('.')[-1], ok, x.grad.float(), lin.weight.grad.float(),
                lin.bias.grad.float() if bias else None, z.requires_grad, z.grad_fn is None, err)
    close(f) if dtype != 'float16' else same(lambda L: [v if not isinstance(v, (litnn.Tensor, torch.Tensor)) else None for v in f(L)])

@pytest.mark.parametrize('case', ['bias_dtype', 'bias_shape', 'inner', 'three_d', 'not_tensor'])
def test_linear_unusual_operands_as_torch(case):
    "A bias of another dtype or shape, sizes that do not fit, a batch, a list for the bias: torch's results or errors."
    def f(L):
        x, w = L.ones(2, 3), L.ones(4, 3)
        F = L.nn.functional
        if case == 'bias_dtype': return F.linear(x, w, L.ones(4, dtype=L.float64))
        if case == 'bias_shape': return F.linear(x, w, L.ones(1)), F.linear(x, w, L.ones(2, 4)).shape
        if case == 'inner': return F.linear(x, L.ones(4, 2))
        if case == 'three_d': return F.linear(L.ones(2, 2, 3), w, L.ones(4)).grad_fn
        if case == 'not_tensor': return F.linear(x, w, [1., 2., 3., 4.])
    a, b = run(litnn, f), run(torch, f)
    if isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], str): assert a[0] == b[0] and a[1] == b[1], (a, b)
    elif case == 'three_d': assert (a is None) == (b is None)
    else: close(f)

def test_mlp_step_order_versions_and_update_as_torch():
    """Two steps of the benchmark's MLP (`h @ w.t() + b`, relu, log_softmax, index, mean; `p -= lr * p.grad` under
    no_grad): the order in which leaves' hooks run (the walk's queue, with one and two nodes ready), the gradients
    adopted by `.grad`, the parameters' versions and values after each update, as torch."""
    sizes, B = (6, 5, 4, 3), 4
    W0 = [_arr(o, i) for i, o in zip(sizes, sizes[1:])]
    B0 = [_arr(o) for o in sizes[1:]]
    X0, Y0 = _arr(B, sizes[0]), rng.integers(0, sizes[-1], B)
    def f(L):
        ws = [L.tensor(w, requires_grad=True) for w in W0]
        bs = [L.tensor(b, requires_grad=True) for b in B0]
        params, x, y, idx, log, out = ws + bs, L.tensor(X0), L.tensor(Y0), L.arange(B), [], []
        for k, p in enumerate(params):
            p.register_hook(lambda g, k=k: log.append(('hook', k)))
            p.register_post_accumulate_grad_hook(lambda p, k=k: log.append(('post', k, p.grad.is_contiguous())))
        for step in range(2):
            h = x
            for i, (w, b) in enumerate(zip(ws, bs)):
                h = h @ w.t() + b
                if i < len(ws) - 1: h = h.relu()
            loss = -h.log_softmax(1)[idx, y].mean()
            for p in params: p.grad = None
            loss.backward()
            grads = [p.grad.clone() for p in params]
            with L.no_grad():
                for p in params: p -= 0.1 * p.grad
            out.append((loss.detach(), grads, [p._version for p in params], [p.detach().clone() for p in params]))
        return log, out
    close(f)

@pytest.mark.parametrize('how', ['isub', 'sub_', 'data_add_', 'add_alpha'])
def test_plain_update_roads_keep_versions_views_and_errors(how):
    """The optimizer's in-place update in its usual spellings on a leaf with a live `t()` view, under no_grad and outside
    it (torch's error for a leaf that requires grad), then a gradient through the view: values, versions, errors, as torch."""
    w0, g0 = _arr(3, 2), _arr(3, 2)
    def f(L):
        w = L.tensor(w0, requires_grad=True)
        g = L.tensor(g0)
        v = w.t()
        def upd():
            if how == 'isub': w.__isub__(0.5 * g)
            elif how == 'sub_': w.sub_(0.5 * g)
            elif how == 'data_add_': w.data.add_(g, alpha=-0.5)
            else: w.add_(g, alpha=-0.5)
        if how == 'data_add_': upd(); err = None
        else:
            try: upd(); err = None
            except RuntimeError as e: err = str(e)
        with L.no_grad(): upd()
        (v * 2).sum().backward()
        return err, w.detach().clone(), w._version, v.detach().clone(), w.grad
    close(f)

"""Saved-tensor hooks (nbs/35a_saved_tensor_hooks, core in 12_backprop_graph and 13_backprop_engine) side by side with torch 2.13:
which tensors the pack hook sees, that backward uses what unpack gives, nesting, errors, save_on_cpu,
higher-order gradients through unpacked tensors, and register_multi_grad_hook."""
import threading
from collections import Counter
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])
needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")

def _np(t): return t.detach().cpu().numpy() if hasattr(t, 'numpy') else np.asarray(t)

def _key(a):
    "A tensor's shape and values, comparable across the two libraries."
    a = np.asarray(a, dtype=np.float64)
    return (a.shape, tuple(np.round(a.ravel(), 6)))

# The inputs, made once in numpy and given to both libraries.
RNG = np.random.default_rng(0)
X, Y, M = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
W1, B1, W2, B2 = RNG.standard_normal((5, 3)), RNG.standard_normal(5), RNG.standard_normal((2, 5)), RNG.standard_normal(2)
T, LABELS = RNG.standard_normal((2, 2)), np.array([0, 1])

def _graphs(lib):
    "The typical graphs, each a function of leaf tensors of `lib` (fresh for every call)."
    F = lib.nn.functional
    def leaves(*arrays): return [lib.tensor(a, requires_grad=True) for a in arrays]
    def mlp(x, w1, b1, w2, b2): return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
    return {
        'mul': (lambda x, y: x * y, lambda: leaves(X, Y)),
        'mul_const': (lambda x: x * lib.tensor(Y), lambda: leaves(X)),
        'div': (lambda x, y: x / y, lambda: leaves(X, Y)),
        'matmul': (lambda x, m: x @ m, lambda: leaves(X, M)),
        'exp_tanh_sigmoid': (lambda x: x.exp() + x.tanh() + x.sigmoid(), lambda: leaves(X)),
        'sum_mean': (lambda x: x.sum() + x.mean(), lambda: leaves(X)),
        'linear_relu': (lambda x, w, b: F.relu(F.linear(x, w, b)), lambda: leaves(X, W1, B1)),
        'mlp_mse': (lambda *p: F.mse_loss(mlp(*p), lib.tensor(T)), lambda: leaves(X, W1, B1, W2, B2)),
        'mlp_cross_entropy': (lambda *p: F.cross_entropy(mlp(*p), lib.tensor(LABELS)), lambda: leaves(X, W1, B1, W2, B2)),
    }

def _saved(lib, name):
    "The arrays the pack hook sees while graph `name` is recorded."
    seen = []
    def pack(t): seen.append(_np(t).copy()); return t
    f, make = _graphs(lib)[name]
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t): f(*make())
    return seen

def _torch_only(name, mine):
    """What torch saves and litnn does not (35a_saved_tensor_hooks, "What litnn saves, next to PyTorch"): nll_loss keeps its picked
    indices and weights as arrays, so the hooks see neither its input (the log-probabilities, which log_softmax
    saved already: litnn's last saved tensor here), nor the target, nor the total weight."""
    return [_key(mine[-1]), _key(LABELS), _key(np.array(2.))] if name == 'mlp_cross_entropy' else []

@pytest.mark.parametrize('name', list(_graphs(litnn)))
def test_pack_sees_the_tensors_torch_saves(name):
    mine = _saved(litnn, name)
    theirs, only = Counter(map(_key, _saved(torch, name))), Counter(_torch_only(name, mine))
    mine = Counter(map(_key, mine))
    assert mine - theirs == Counter()                       # nothing torch does not save
    assert theirs - mine == only
    if name == 'sum_mean': assert not mine                  # a sum saves no tensor in either

def test_linear_saves_weight_transposed():
    "linear's addmm saves weight.t() (in, out), as torch's: the weight's edge goes through TBackward0 (16a_matrix_products)."
    assert [a.shape for a in _saved(litnn, 'linear_relu')] == [a.shape for a in _saved(torch, 'linear_relu')] == [(2, 3), (3, 5), (2, 5)]

def _grads(lib, name, hooks=None):
    f, make = _graphs(lib)[name]
    leaves = make()
    if hooks is None: out = f(*leaves)
    else:
        with lib.autograd.graph.saved_tensors_hooks(*hooks): out = f(*leaves)
    out.sum().backward()
    return [_np(p.grad) for p in leaves]

@pytest.mark.parametrize('name', list(_graphs(litnn)))
def test_unpack_of_pack_is_used_and_gradients_unchanged(name):
    "Each packed tensor is unpacked once by backward, from what pack returned; the gradients are those without hooks."
    packed, unpacked = [], []
    def pack(t):
        packed.append(t); return ('box', len(packed) - 1, t.detach().clone())   # anything: here a tuple holding a copy
    def unpack(box):
        assert box[0] == 'box'; unpacked.append(box[1]); return box[2]
    with_hooks = _grads(litnn, name, (pack, unpack))
    assert sorted(unpacked) == list(range(len(packed)))
    for g, h in zip(_grads(litnn, name), with_hooks): np.testing.assert_allclose(g, h, rtol=1e-12)
    for g, h in zip(_grads(torch, name), with_hooks): np.testing.assert_allclose(g, h, rtol=1e-6)

def test_unpacked_value_is_what_backward_uses():
    "An unpack hook that doubles every saved tensor doubles the product's gradients, as in torch."
    for lib in (litnn, torch):
        x, y = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2): (x * y).sum().backward()
        np.testing.assert_allclose(_np(x.grad), 2 * Y); np.testing.assert_allclose(_np(y.grad), 2 * X)

def test_saved_output_goes_through_hooks():
    "relu and exp save their output: pack sees it (with its grad_fn, as in torch) and unpack's value is used."
    for lib in (litnn, torch):
        x = lib.tensor(X, requires_grad=True)
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: (seen.append(t), t.detach() * 0)[1], lambda t: t): y = x.exp()
        assert len(seen) == 1 and seen[0] is y and type(y.grad_fn).__name__ == 'ExpBackward0'
        y.sum().backward()
        np.testing.assert_array_equal(_np(x.grad), np.zeros_like(X))

def _log_nesting(lib):
    log = []
    def tag(name): return lambda t: (log.append(name), t)[1]
    H = lib.autograd.graph.saved_tensors_hooks
    x, y = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
    with H(tag('outer'), lambda t: t):
        with H(tag('inner'), lambda t: t): x * y
        x.exp()
        with H(tag('inner2'), lambda t: t): x @ y.T
    x * y
    return log

def test_nesting_innermost_wins():
    assert _log_nesting(litnn) == _log_nesting(torch) == ['inner', 'inner', 'outer', 'inner2', 'inner2']

def test_hooks_are_per_thread():
    "Hooks set in one thread do not see what another thread saves (torch's are thread-local too)."
    for lib in (litnn, torch):
        seen, ready, done = [], threading.Event(), threading.Event()
        def other():
            ready.wait(); a = lib.tensor(X, requires_grad=True); a * a; done.set()
        th = threading.Thread(target=other); th.start()
        with lib.autograd.graph.saved_tensors_hooks(lambda t: (seen.append(1), t)[1], lambda t: t):
            ready.set(); done.wait()
        th.join()
        assert seen == []

def _error(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None

def _errors(lib):
    G = lib.autograd.graph
    x, y = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
    out = {}
    with G.disable_saved_tensors_hooks("hooks are off here"):
        out['enter_disabled'] = _error(lambda: G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
        out['save_on_cpu_disabled'] = _error(lambda: G.save_on_cpu().__enter__())
        out['record_disabled'] = _error(lambda: x * y)
    with G.saved_tensors_hooks(lambda t: t, lambda t: t):
        out['disable_inside'] = _error(lambda: G.disable_saved_tensors_hooks("not now").__enter__())
    with G.saved_tensors_hooks(lambda t: t, lambda t: t): pass     # allowed again after both
    def inplace(t): t.mul_(2); return t
    with G.saved_tensors_hooks(inplace, lambda t: t): out['pack_in_place'] = _error(lambda: x.exp() * y)
    with G.saved_tensors_hooks(lambda t: t, lambda t: 1): z = x * y
    out['unpack_not_tensor'] = _error(lambda: z.sum().backward())
    with G.saved_tensors_hooks(lambda t: t.detach(), lambda t: t): z = x * y
    z.sum().backward()
    out['backward_twice'] = _error(lambda: z.sum().backward())
    return out

def test_errors_as_torch():
    mine, theirs = _errors(litnn), _errors(torch)
    assert mine['record_disabled'] is None
    assert mine == theirs

def test_no_version_check_through_hooks():
    "As torch: a tensor saved through hooks is not checked against in-place changes (the hooks own it)."
    for lib in (litnn, torch):
        x = lib.tensor(X, requires_grad=True)
        a = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t): y = a * a
        with lib.no_grad(): a.add_(1)
        y.sum().backward()
        np.testing.assert_allclose(_np(x.grad), 2 * X)

@pytest.mark.parametrize('device', DEVICES)
def test_save_on_cpu(device):
    "The product's saved tensors live on the CPU inside save_on_cpu; gradients are those without it."
    x = litnn.tensor(X, requires_grad=True, device=device)
    y = litnn.tensor(Y, requires_grad=True, device=device)
    with litnn.autograd.graph.save_on_cpu(pin_memory=True):
        z = x * y
    for box in z.grad_fn._saved:                      # (device, tensor) as torch's pack_to_cpu returns
        dev, t = box.packed
        assert dev == x.device and t.device.type == 'cpu'
    z.sum().backward()
    np.testing.assert_allclose(_np(x.grad), Y); np.testing.assert_allclose(_np(y.grad), X)

@pytest.mark.parametrize('pack', ['detach', 'clone'])
def test_double_backward_through_unpacked_tensors(pack):
    "Unpacked tensors are put back on their graph edge (torch's SavedVariable::unpack), so create_graph works."
    fn = (lambda t: t.detach()) if pack == 'detach' else (lambda t: t.detach().clone())
    res = []
    for lib in (litnn, torch):
        x = lib.tensor(X, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(fn, lambda t: t):
            y = (x * x * x).sum() + x.exp().sum() + lib.relu(x).pow(2).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        res.append((_np(g), _np(x.grad)))
    for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-10)

def test_custom_function_invariant():
    "A custom Function's saved tensors go through the hooks too (litnn packs at save_for_backward)."
    class Cube(litnn.autograd.Function):
        @staticmethod
        def forward(ctx, x): ctx.save_for_backward(x); return x ** 3
        @staticmethod
        def backward(ctx, g): x, = ctx.saved_tensors; return 3 * x * x * g
    x = litnn.tensor(X, requires_grad=True)
    calls = []
    with litnn.autograd.graph.saved_tensors_hooks(lambda t: (calls.append('pack'), t.detach().clone())[1],
                                                  lambda t: (calls.append('unpack'), t)[1]):
        y = Cube.apply(x)
    y.sum().backward()
    assert calls == ['pack', 'unpack']
    np.testing.assert_allclose(_np(x.grad), 3 * X ** 2)

def test_public_names_where_torch_has_them():
    for name in ('saved_tensors_hooks', 'save_on_cpu', 'disable_saved_tensors_hooks', 'register_multi_grad_hook'):
        assert hasattr(litnn.autograd.graph, name) and hasattr(torch.autograd.graph, name)
    assert issubclass(litnn.autograd.graph.save_on_cpu, litnn.autograd.graph.saved_tensors_hooks)

# register_multi_grad_hook

def _multi_all(lib):
    a, b = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
    c, d = a * b, a * b
    calls = []
    h = lib.autograd.graph.register_multi_grad_hook(
        (a, b, c, d), lambda grads: calls.append([None if g is None else _key(_np(g)) for g in grads]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c + d).sum().backward(retain_graph=True)
    h.remove()
    c.sum().backward(retain_graph=True)
    return calls, isinstance(h, lib.utils.hooks.RemovableHandle)

def test_multi_grad_hook_all():
    mine, theirs = _multi_all(litnn), _multi_all(torch)
    assert mine == theirs
    calls, is_handle = mine
    assert len(calls) == 3 and [g is not None for g in calls[0]] == [True, True, True, False] and is_handle

def _events(lib, mode):
    "The order in which the tensor hooks of `c` and `a` and a multi-grad hook on both fire, with what it gets."
    a, b = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
    c = a * b
    e = c.exp()
    log = []
    # (no hook on b: the order of two leaves' AccumulateGrad nodes differs between litnn's engine and torch's)
    for name, t in (('a', a), ('c', c)): t.register_hook(lambda g, name=name: log.append(name))
    def fn(arg):
        if mode == 'all': log.append(('multi', [None if g is None else _key(_np(g)) for g in arg]))
        else: log.append(('multi', _key(_np(arg))))
    lib.autograd.graph.register_multi_grad_hook((c, a), fn, mode=mode)
    e.sum().backward()
    return log

@pytest.mark.parametrize('mode', ['all', 'any'])
def test_multi_grad_hook_order_and_arguments(mode):
    mine, theirs = _events(litnn, mode), _events(torch, mode)
    assert [m[0] if isinstance(m, tuple) else m for m in mine] == (['c', 'a', 'multi'] if mode == 'all' else ['c', 'multi', 'a'])
    assert mine == theirs

def test_multi_grad_hook_any_once_per_backward():
    for lib in (litnn, torch):
        a, b = lib.tensor(X, requires_grad=True), lib.tensor(Y, requires_grad=True)
        firsts = []
        h = lib.autograd.graph.register_multi_grad_hook((a, b, lib.tensor(X)), lambda g: firsts.append(1), mode='any')
        (a * b).sum().backward(); (a * b).sum().backward()
        h.remove(); (a * b).sum().backward()
        assert firsts == [1, 1]

def test_multi_grad_hook_errors():
    for lib in (litnn, torch):
        a = lib.tensor(X, requires_grad=True)
        with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got some"):
            lib.autograd.graph.register_multi_grad_hook((a,), print, mode='some')
        with pytest.raises(AssertionError, match="Expected gradient function to be set"):
            lib.autograd.graph.register_multi_grad_hook((a, lib.tensor(X)), print)

@needs_gpu
def test_hooks_on_gpu():
    "The same invariants on CuPy: pack/unpack around a GPU graph, gradients unchanged, multi-grad hook fires."
    x = litnn.tensor(X, requires_grad=True, device='cuda'); y = litnn.tensor(Y, requires_grad=True, device='cuda')
    seen = []
    with litnn.autograd.graph.saved_tensors_hooks(lambda t: (seen.append(t.device.type), t.detach().clone())[1], lambda t: t):
        z = litnn.relu(x * y)
    calls = []
    litnn.autograd.graph.register_multi_grad_hook((x, y), lambda gs: calls.append(len(gs)))
    z.sum().backward()
    assert seen == ['cuda'] * 3 and calls == [2]
    np.testing.assert_allclose(_np(x.grad), Y * (X * Y > 0))


@pytest.mark.parametrize('how', ['context', 'register_hooks'])
def test_pack_hook_runs_with_grad_mode_off(how):
    "torch calls a pack hook with grad mode off: it sees is_grad_enabled() False, and an in-place change of a leaf in it is reported as the pack hook's."
    def run(lib):
        seen = []
        def pack(x):
            seen.append(lib.is_grad_enabled()); return x
        def inc(x):
            x *= 2; return x
        res = []
        for hook in (pack, inc):
            a = lib.tensor([1.0, 2.0], requires_grad=True)
            try:
                if how == 'context':
                    with lib.autograd.graph.saved_tensors_hooks(hook, lambda x: x): a * a
                else: (a * a).grad_fn._raw_saved_self.register_hooks(hook, lambda x: x)
                res.append(None)
            except RuntimeError as e: res.append(str(e)[:60])
        return seen, res
    assert run(litnn) == run(torch)

def _mutation_story(L):
    "allow_mutation_on_saved_tensors: gradients from the values as saved, and torch's bookkeeping counts along the way."
    seen = []
    n = lambda ctx: (len(list(ctx.cloned.items())), len(list(ctx.tid_to_weakhandle.items())))
    x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
    with L.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = x.clone()
        out = (a ** 2).sum()
        seen.append(n(ctx))
        a.sin_()                                    # a saved tensor changed in place: backward still sees the old values
        seen.append(n(ctx))
        b = a ** 2; c = a ** 2                      # the same tensor at the same version: one entry
        seen.append(n(ctx))
        a.mul_(3); seen.append(n(ctx))
        out.backward(); seen.append(n(ctx))         # the graph is freed: its entries go
        seen.append(x.grad.tolist())
        del b, c; seen.append(n(ctx))
        v = x.clone(); w = v[:1]; o2 = (v * v).sum(); w *= 10     # a view of the saved tensor changed
        (g,) = L.autograd.grad(o2, x, create_graph=True)
        seen.append(g.tolist()); seen.append(L.autograd.grad(g.sum(), x)[0].tolist())
    seen.append(n(ctx))
    return seen

def test_allow_mutation_on_saved_tensors():
    r = lambda s: [[round(v, 6) for v in row] if isinstance(row, list) and row and isinstance(row[0], float) else row for row in s]
    deep = lambda s: [[[round(v, 6) for v in r_] for r_ in e] if isinstance(e, list) and e and isinstance(e[0], list) else e for e in s]
    assert deep(_mutation_story(litnn)) == deep(_mutation_story(torch))

def test_allow_mutation_on_saved_tensors_errors():
    for L in (litnn, torch):
        x = L.rand(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="variables needed for gradient computation has been modified by an inplace"):
            b = x.clone(); out = (b ** 2).sum(); b.sin_(); out.backward()
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            out = (x ** 2).sum()
        with pytest.raises(AssertionError, match="Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"):
            out.backward()
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            with pytest.raises(AssertionError, match="Trying to backward outside"):     # another context's graph
                out.backward()
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            with pytest.raises(RuntimeError, match="allow_mutation_on_saved_tensors contexts cannot be nested"):
                with L.autograd.graph.allow_mutation_on_saved_tensors(): pass

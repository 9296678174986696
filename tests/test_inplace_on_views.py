"In-place operations on views (nbs/17c_inplace_on_views): histories, gradients and errors side by side with torch."
import numpy as np, pytest, warnings
import litnn
from torch_pairs import same_message
torch = pytest.importorskip("torch")

def _both(fn, x0, **kw):
    "Run fn(lib, x) with litnn and torch on the same float64 input; return (litnn result, grad), (torch result, grad)."
    out = []
    for lib in (litnn, torch):
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        r = fn(lib, x)
        loss = (r * lib.tensor(np.arange(1., r.numel() + 1).reshape(tuple(r.shape)), dtype=lib.float64)).sum()
        loss.backward()
        out.append((r.detach().numpy().copy(), x.grad.numpy().copy(), r))
    return out

def _slice_add(lib, x):
    y = x * 2; y[1:3] += 1; return y
def _select_mul(lib, x):
    y = x * 2; y.select(1, 2).mul_(x[:, 0]); return y
def _narrow(lib, x):
    y = x * 3; y.narrow(0, 1, 2).sub_(x[:2].exp()); return y
def _view(lib, x):
    y = x * 1; y.view(12)[::3].mul_(3); return y
def _reshape(lib, x):
    y = x + 0; y.reshape(2, 6)[1].div_(2); return y
def _transpose(lib, x):
    y = x.sin(); y.t()[0].mul_(y[0, 0].clone()); y.transpose(0, 1)[1:].add_(x.t()[1:] ** 2); return y
def _permute(lib, x):
    y = (x * 3).reshape(2, 2, 3); y.permute(2, 0, 1)[1].mul_(2); return y
def _diagonal(lib, x):
    y = x[:3] * 2; y.diagonal().zero_(); y.diagonal(1).add_(x[0, :2]); return y
def _unfold(lib, x):
    y = x * 2; y.unfold(1, 2, 1)[:, 0].mul_(x[:, :2]); return y
def _as_strided(lib, x):
    y = x * 2; y.as_strided((2, 2), (3, 1), 1).mul_(x[:2, :2]); return y
def _view_of_view(lib, x):
    y = x * 2; v = y[1:]; vv = v[:, 1]; vv.mul_(2); v[0].add_(vv[0].clone()); return y
def _setitem_on_view(lib, x):
    y = x * 2; v = y[1:]; v[0] = x[0] ** 2; v[:, 1] = 0; return y
def _augmented_index(lib, x):
    y = x.clone(); y[0] += 1; y[1:, 0] *= x[0, 1]; y[..., :2] *= 3; return y
def _base_then_view(lib, x):
    y = x * 2; v = y[1:3]; y.mul_(x); v.add_(1); return y + v.sum()
def _zeros_base(lib, x):
    y = lib.zeros(4, 3, dtype=lib.float64); y[1].copy_(x[1] * 3); y[2:].add_(x[2:]); return y
def _loop_accumulate(lib, x):
    out = lib.zeros(4, 3, dtype=lib.float64)
    h = x[0]
    for t in range(1, 4):
        h = (h * x[t]).tanh()
        out[t] += h
        out[:, t - 1] += h[t - 1]
    return out
def _fill_masked(lib, x):
    y = x * 2; y[1:].masked_fill_(x[1:] > 0.5, -1.); y[0].clamp_(max=0.3); y[:, 2].fill_(7.); return y
def _overlapping_unfold_view(lib, x):
    y = (x * 2).reshape(-1); w = y.unfold(0, 4, 3); w.mul_(2); return y

CASES = [_slice_add, _select_mul, _narrow, _view, _reshape, _transpose, _permute, _diagonal, _unfold, _as_strided,
         _view_of_view, _setitem_on_view, _augmented_index, _base_then_view, _zeros_base, _loop_accumulate, _fill_masked,
         _overlapping_unfold_view]

# torch applies an in-place op to memory a view reads twice once per copy (its kernels write as they go: "undefined"
# in its docs); litnn writes the op's result once. Values differ there, so that case is checked by gradcheck only.
@pytest.mark.parametrize("fn", CASES[:-1], ids=lambda f: f.__name__)
def test_values_and_gradients_match_torch(fn):
    x0 = np.random.default_rng(0).uniform(0.1, 1.0, (4, 3))
    (lr, lg, _), (tr, tg, _) = _both(fn, x0)
    np.testing.assert_allclose(lr, tr, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lg, tg, rtol=1e-10, atol=1e-12)

@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_gradcheck(fn):
    x = litnn.tensor(np.random.default_rng(1).uniform(0.1, 1.0, (4, 3)), dtype=litnn.float64, requires_grad=True)
    assert litnn.autograd.gradcheck(lambda t: fn(litnn, t), (x,))

def test_second_derivative_through_copy_slices():
    x0 = np.random.default_rng(2).uniform(0.1, 1.0, (4, 3))
    res = []
    for lib in (litnn, torch):
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        y = x * x; y[1:3].mul_(x[1:3]); y[0] += x[0] ** 3
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        g2, = lib.autograd.grad((g * g).sum(), x)
        res.append(g2.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-10)
    x = litnn.tensor(x0, dtype=litnn.float64, requires_grad=True)
    def f(t):
        y = t * t; y[1:3].mul_(t[1:3]); return y
    assert litnn.autograd.gradgradcheck(f, (x,))

def _names(lib):
    x = lib.randn(4, 3, requires_grad=True)
    y = x * 2
    v, w, u = y[1:3], y[:, 0], y.t()
    before = [type(t.grad_fn).__name__ for t in (y, v, w, u)]
    v += 1
    after = [type(t.grad_fn).__name__ for t in (y, v, w, u)]
    w2 = y[0]
    y.mul_(3)                      # the base itself: its views regenerate
    base = [type(t.grad_fn).__name__ for t in (y, v, w2)]
    return before, after, base, [t.requires_grad for t in (y, v, w, u)], v._base is y, u._is_view()

def test_grad_fn_names_as_torch():
    assert _names(litnn) == _names(torch)

def test_views_of_a_base_without_grad_join_the_graph():
    res = []
    for lib in (litnn, torch):
        x = lib.ones(3, requires_grad=True)
        z = lib.zeros(4, 3); zv, zw = z[0], z[1]
        zv.add_(x)
        res.append((type(z.grad_fn).__name__, type(zv.grad_fn).__name__, type(zw.grad_fn).__name__, zw.requires_grad, z.requires_grad))
    assert res[0] == res[1]

def _error(f):
    try: f()
    except Exception as e: return type(e).__name__, str(e).split(' Hint:')[0]
    return None

def _error_cases(lib):
    x = lib.randn(4, 3, requires_grad=True)
    out = []
    y = x * 2
    out.append(_error(lambda: x[0].add_(1)))
    out.append(_error(lambda: x[1:].mul_(2)))
    out.append(_error(lambda: y.unbind(0)[1].add_(1)))
    out.append(_error(lambda: y.split([1, 3])[1].add_(1)))
    out.append(_error(lambda: y.split(2)[0].mul_(2)))
    out.append(_error(lambda: y.chunk(2)[1].add_(1)))
    out.append(_error(lambda: y.unbind(0)[1][0].add_(1)))
    out.append(_error(lambda: y.unbind(0)[1].__setitem__(0, 1.)))
    e = x[:1] * 1
    out.append(_error(lambda: e.expand(3, 3).add_(1)))
    with lib.no_grad(): nv = y[0]
    out.append(_error(lambda: nv.add_(1)))
    z = lib.zeros(4, 3)
    with lib.no_grad(): zv = z[0]
    out.append(_error(lambda: zv.add_(x[0])))
    with lib.no_grad(): yv = y[0]
    yvv = yv[1:]
    out.append(_error(lambda: yvv.add_(1)))
    z3 = lib.zeros(4, 3)                               # no history: torch's other message for multi-output views
    out.append(_error(lambda: z3.split(2)[0][0].add_(x[0])))
    out.append(_error(lambda: z3.unbind(0)[1].__setitem__(0, x[0, 0])))
    with lib.no_grad(): sp = y.split(2)[0]
    out.append(_error(lambda: sp.add_(1)))
    # allowed: nothing is recorded
    z2 = lib.zeros(4); z2.split(2)[0].add_(1); out.append(z2.tolist())
    with lib.no_grad(): y.unbind(0)[0].add_(1); y[1:].mul_(2)
    out.append(type(y.grad_fn).__name__)
    s = y.split(2)[0]
    with lib.no_grad(): s.add_(1)
    out.append(s._version)
    return out

def test_error_messages_word_for_word():
    l, t = _error_cases(litnn), _error_cases(torch)
    assert len(l) == len(t)
    for a, b in zip(l, t):
        if isinstance(a, tuple) and 'view of a view which was created in no_grad' in b[1]:
            # torch names the view function of a view made from a no_grad view (Slice); litnn knows it only when recorded
            a, b = a[1].split(' is a view of')[1], b[1].split(' is a view of')[1]
        assert a == b, (a, b)

def test_version_counter_catches_no_grad_change_of_a_view():
    res = []
    for lib in (litnn, torch):
        x = lib.randn(4, 3, dtype=lib.float64, requires_grad=True)
        y = x * 2; s = y.sin(); e = y.exp()
        with lib.no_grad(): y[0].mul_(2)
        res.append((_error(lambda: s.sum().backward()), _error(lambda: e.sum().backward()), y._version))
    assert res[0][0][0] == res[1][0][0] == 'RuntimeError' and 'modified by an inplace operation' in res[0][0][1]
    assert res[0][1] is None and res[1][1] is None and res[0][2] == res[1][2]

def test_augmented_index_needs_clone_as_torch():
    res = []
    for lib in (litnn, torch):
        w = lib.ones(3, requires_grad=True)
        b = w.clone(); b[0] += 1; b[1:] *= b[0]
        res.append(_error(lambda: b.sum().backward()))
    assert res[0] == (res[1][0], res[1][1].replace('torch.', 'litnn.'))

def test_detach_and_data_views():
    res = []
    for lib in (litnn, torch):
        x = lib.randn(4, 3, requires_grad=True)
        y = x * 2
        d = y.detach(); d[0] += 1
        dv = y.data[0]; dv.add_(1)
        res.append((d._is_view(), dv.grad_fn is None, dv._is_view(), y._version, type(y.grad_fn).__name__))
    assert res[0] == res[1]

def test_saved_tensor_hooks_and_anomaly_mode():
    packed = []
    x0 = np.random.default_rng(3).uniform(0.1, 1.0, (4, 3))
    grads = []
    for lib in (litnn, torch):
        x = lib.tensor(x0, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: (packed.append(1), t)[1], lambda t: t):
            with lib.autograd.detect_anomaly():
                y = x * 2; y[1:3].mul_(x[1:3]); y.t()[0].add_(x[:, 1])
                y.sum().backward()
        grads.append(x.grad.numpy().copy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
    assert packed

def test_func_grad_and_vmap_through_inplace_views():
    def f(lib):
        def g(x):
            y = x * 2; y[1:].mul_(x[:-1]); return y.sum()
        return g
    x0 = np.random.default_rng(4).uniform(0.1, 1.0, (5,))
    a = litnn.func.grad(f(litnn))(litnn.tensor(x0)).numpy()
    b = torch.func.grad(f(torch))(torch.tensor(x0)).numpy()
    np.testing.assert_allclose(a, b, rtol=1e-10)

def test_many_views_are_forgotten_when_dead():
    y = litnn.ones(10, requires_grad=True) * 1
    for _ in range(1000): y[1:].sum()
    assert len(y._views) < 70


# A view of a leaf that is itself a view (`requires_grad_()` on a reshape): torch refuses to write into its views, whose
# root does not require grad; views created in no_grad mode are refused first, with their own message.
def _leaf_view(lib):
    x = lib.arange(12.).reshape(3, 4).requires_grad_(); x[0].mul_(2)
def _leaf_view_t(lib):
    x = lib.arange(12.).reshape(3, 4).requires_grad_(); x.t()[0].zero_()
def _view_made_leaf(lib):
    b = lib.zeros(3)[0:2]; b.requires_grad_(); b.mul_(2)
def _no_grad_view(lib):
    w = lib.randn(3, 4, requires_grad=True)
    with lib.no_grad(): v = w[0]
    v.mul_(2)

@pytest.mark.parametrize('fn', [_leaf_view, _leaf_view_t, _view_made_leaf, _no_grad_view], ids=lambda f: f.__name__)
def test_inplace_on_a_view_of_a_leaf_is_refused_as_torch(fn):
    with pytest.raises(RuntimeError) as te: fn(torch)
    with pytest.raises(RuntimeError) as le: fn(litnn)
    assert str(le.value).split('.')[0] == str(te.value).split('.')[0]


def test_views_made_in_no_grad_mode_require_grad_as_torch():
    "They require grad (their base does) but lead nowhere: no edge, no .grad, no hook; a view of one records its op."
    out = []
    for lib in (litnn, torch):
        w = lib.randn(3, requires_grad=True)
        with lib.no_grad():
            v, d, s = w[0:2], w.detach(), w.split(1)
        with lib.inference_mode(): iv = w[0:2]
        y = v * 2
        v3 = v[0:1]
        y.sum().backward()
        out.append((v.requires_grad, v.is_leaf, v.grad_fn is None, d.requires_grad, [t.requires_grad for t in s], iv.requires_grad,
                    [e[0] is None for e in y.grad_fn.next_functions], w.grad is None, v.grad is None,
                    v3.requires_grad, type(v3.grad_fn).__name__, lib.autograd.grad((v * 3).sum(), w, allow_unused=True)))
    assert out[0] == out[1], out



def test_a_view_made_in_no_grad_mode_given_requires_grad_is_a_leaf_as_torch():
    """requires_grad_() on a view made in no_grad mode (a sample drawn under no_grad, then `.requires_grad_()`, as
    MixtureSameFamily.sample's gather().squeeze()) makes it a leaf of its own: its ops record an edge to it and it gets
    its .grad, whether its base requires grad or not; a view that only inherits requires_grad from its base still leads nowhere."""
    out = []
    for lib in (litnn, torch):
        res = []
        for base_rg, call in [(False, True), (True, True), (True, False)]:
            b = lib.randn(3, 2, requires_grad=base_rg)
            with lib.no_grad():
                v = b.select(1, 0)[:2]
            if call: v.requires_grad_()
            y = (v.unsqueeze(-1) * lib.tensor([2., 3.])).sum()
            edge = y.grad_fn.next_functions[0][0].next_functions[0][0]
            y.backward()
            res.append((v.requires_grad, v.is_leaf, type(edge).__name__ if edge is not None else None,
                        None if v.grad is None else v.grad.tolist(), b.grad is None))
        x = lib.distributions.MixtureSameFamily(lib.distributions.Categorical(lib.ones(3)),
                                                lib.distributions.Normal(lib.tensor([0., 1., 2.]), lib.ones(3))).sample().requires_grad_()
        res.append(lib.autograd.grad(x.unsqueeze(-1).sum() * 2, x)[0].item())
        out.append(res)
    assert out[0] == out[1], out

@pytest.mark.parametrize('key', [0, slice(0, 2), 'index', 'mask', Ellipsis, (), (0, 1), (slice(None), 0), None, (Ellipsis, 0),
                                 (slice(None), slice(None))], ids=repr)
def test_setitem_on_a_leaf_names_the_view_as_torch(key):
    "Basic indexing writes into a view of the leaf (torch: 'a view of a leaf Variable...'); index_put_ and full keys into the leaf."
    def write(lib):
        w = lib.ones(3, 2, requires_grad=True)
        k = lib.tensor([0, 1]) if key == 'index' else (w > 0) if key == 'mask' else key
        w[k] = 5
    assert same_message(write) is RuntimeError


def _identity_function(lib, make_view):
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x.view_as(x) if make_view else x
        @staticmethod
        def backward(ctx, g): return g
    return Ident

@pytest.mark.parametrize('make_view', [False, True])
@pytest.mark.parametrize('then', [lambda y: y, lambda y: y.squeeze(0), lambda y: y[0], lambda y: y.t(), lambda y: y.view(6)])
def test_inplace_on_a_custom_functions_view_output_is_refused_as_torch(make_view, then):
    """An output of a custom Function that is an input returned as-is (torch makes it a view of the input) or a view,
    and any view of it, refuses in-place changes with grad mode on: the view's regenerated history would replace the
    Function's backward. The message names the node as torch does (`Squeeze1`, `F`)."""
    msgs = []
    for lib in (litnn, torch):
        x = lib.randn(2, 3, requires_grad=True).clone()
        y = _identity_function(lib, make_view).apply(x)
        assert y._is_view() and y._base is x
        with pytest.raises(RuntimeError) as e: then(y).mul_(2)
        msgs.append(str(e.value))
        with lib.no_grad(): then(y).mul_(2)          # without grad mode nothing is recorded: allowed
    assert msgs[0] == msgs[1]

def test_full_backward_hook_then_inplace_relu_is_refused_as_torch():
    "A module with a full backward hook hands on views made by BackwardHookFunction: an in-place ReLU after it is torch's error."
    msgs = []
    for lib in (litnn, torch):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU(inplace=True))
        m[0].register_full_backward_hook(lambda mod, gi, go: None)
        with pytest.raises(RuntimeError) as e: m(lib.randn(2, 3, requires_grad=True))
        msgs.append(str(e.value))
        m[1].inplace = False                       # the fix torch's users apply: then the hook runs
        calls = []
        m[0].register_full_backward_hook(lambda mod, gi, go: calls.append(go[0].shape))
        m(lib.randn(2, 3, requires_grad=True)).sum().backward()
        assert calls == [(2, 3)]
    assert msgs[0] == msgs[1] and 'BackwardHookFunction is a view' in msgs[0]


def test_a_write_selecting_nothing_in_an_expanded_tensor_only_warns_as_torch():
    """`t[mask] = v` / `t[index] = v` on an expanded tensor (a distribution's broadcast parameter, `x[x == inf] = 0`) that
    selects no element: torch writes nothing and warns its deprecations (index_put_, and masked_fill_ for a mask and a 0-d value)."""
    out = []
    for lib in (litnn, torch):
        t = lib.zeros(1, 3).expand(4, 3)
        res = []
        for key, val in [(t == 1, 0.), (lib.tensor([], dtype=lib.long), 1.), (t == 1, lib.tensor(2.)), (t == 1, lib.ones(0))]:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                t[key] = val
            res.append(([str(x.message).split(' (Triggered')[0] for x in w], [x.filename == __file__ for x in w], t.sum().item()))
        out.append(res)
    assert out[0] == out[1], out


OVERLAPS = {   # an elementwise write whose input shares memory with the written-to tensor
    'slice add_ shifted slice': lambda a: a.view(-1)[1:4].add_(a.view(-1)[0:3]),
    'slice += shifted slice': lambda a: a.view(-1)[1:4].__iadd__(a.view(-1)[0:3]),
    'copy_ from shifted slice': lambda a: a.view(-1)[1:4].copy_(a.view(-1)[0:3]),
    'copy_ transposed': lambda a: a.copy_(a.t()), 'add_ transposed': lambda a: a.add_(a.t()),
    'add_ a row into all': lambda a: a.add_(a[0]), 'sub_ a 0-d view': lambda a: a.sub_(a[0, 0]),
    'mul_ shifted': lambda a: a.view(-1)[1:4].mul_(a.view(-1)[0:3]),
    'addcmul_ overlapping tensor1': lambda a: a.view(-1)[1:4].addcmul_(a.view(-1)[0:3], a.view(-1)[1:4].clone()),
    'clamp_ overlapping bound': lambda a: a.view(-1)[1:4].clamp_(a.view(-1)[0:3]),
    'setitem shifted slice': lambda a: a.view(-1).__setitem__(slice(1, 4), a.view(-1)[0:3]),
    # ... allowed: the same memory in the same order, a copy, a layout too hard to compare, a broadcast value, no elements
    'add_ itself': lambda a: a.add_(a), 'mul_ a view of the same memory': lambda a: a.mul_(a.view(4).view(2, 2)),
    'add_ a clone': lambda a: a.view(-1)[1:4].add_(a.view(-1)[0:3].clone()), 'strided add_': lambda a: a.view(-1)[::2].add_(a.view(-1)[1::2]),
    'setitem a broadcast row': lambda a: a.__setitem__(slice(0, 2), a[1]), 'empty': lambda a: a.view(-1)[0:0].add_(a.view(-1)[1:1]),
    'unary in place on a slice': lambda a: a.view(-1)[1:3].exp_()}

@pytest.mark.parametrize('name', OVERLAPS)
def test_partial_overlap_of_input_and_output_as_torch(name):
    "torch's elementwise kernels refuse an input sharing part of the output's memory; litnn raises the same, values untouched."
    def run(L):
        a = L.arange(4., dtype=L.float64).reshape(2, 2)
        try: OVERLAPS[name](a); r = 'ran'
        except RuntimeError as e: r = str(e)
        return r, a.tolist()
    assert run(litnn) == run(torch)


def test_a_write_into_an_expanded_view_goes_into_its_base_as_torch():
    """torch's (deprecated) index_put_/masked_fill through `t[key] = v` on an expanded view, grad mode off or nothing requiring
    grad: the elements are one memory with the base's, so the base changes, every alias shows it, the last write stays; with the warnings."""
    out = []
    for lib in (litnn, torch):
        res = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            b = lib.tensor(0.); t = b.expand(2); t[t == 0] = 5.
            res.append((t.tolist(), b.item()))
            b = lib.zeros(1, 3); t = b.expand(2, 3); t[lib.tensor([1]), lib.tensor([2])] = 7.
            res.append((t.tolist(), b.tolist()))
            b = lib.zeros(1, 3); t = b.expand(2, 3); t[t == 0] = lib.tensor([1., 2., 3., 4., 5., 6.])
            res.append((t.tolist(), b.tolist()))
            b = lib.zeros(3); t = b.expand(2, 3)[:, 1:]; t[t == 0] = 9.
            res.append((t.tolist(), b.tolist(), t._version, b._version))
            with lib.no_grad():
                b = lib.zeros(3, requires_grad=True); t = b.expand(2, 3); t[t == 0] = 2.
            res.append((t.tolist(), b.tolist()))
        res.append(([str(x.message).split(' (Triggered')[0] for x in w], {x.filename == __file__ for x in w}))
        out.append(res)
    assert out[0] == out[1], out


EXPANDED_WRITES = {     # torch 2.13 writes one value into repeated memory (fill_ and what uses it) and refuses elementwise ops there
    'fill_': lambda L, e: e.fill_(1.),
    'zero_': lambda L, e: e.zero_(),
    'init.constant_': lambda L, e: L.nn.init.constant_(e, 2.),
    'init.ones_': lambda L, e: L.nn.init.ones_(e),
    'ones_out': lambda L, e: L.ones(2, 3, out=e),
    'full_out': lambda L, e: L.full((2, 3), 2., out=e),
    'eye_out': lambda L, e: L.eye(2, 3, out=e),
    'setitem_int': lambda L, e: e.__setitem__((0, 1), 5.),
    'setitem_row': lambda L, e: e.__setitem__(0, 7.),
    'setitem_row_tensor': lambda L, e: e.__setitem__((0, slice(0, 2)), L.tensor([3., 4.])),
    'setitem_column': lambda L, e: e.__setitem__((slice(None), 0), 1.),
    'setitem_all': lambda L, e: e.__setitem__(slice(None), 1.),
    'add_': lambda L, e: e.add_(1),
    'copy_': lambda L, e: e.copy_(L.ones(2, 3)),
    'detach_': lambda L, e: e.detach_(),
    'masked_fill_': lambda L, e: e.masked_fill_(L.tensor([[True, False, False], [False, True, False]]), 5.),
    'index_fill_': lambda L, e: e.index_fill_(1, L.tensor([2]), 3.),
    'fill_diagonal_': lambda L, e: e.fill_diagonal_(4.),
    'index_put_': lambda L, e: e.index_put_((L.tensor([1]), L.tensor([2])), L.tensor(6.)),
}

@pytest.mark.parametrize('name', sorted(EXPANDED_WRITES))
def test_writes_into_an_expanded_tensor_as_torch(name):
    "The same refusal (message) or the same memory after the write (base and expanded view), with torch's warnings only."
    def run(L):
        b = L.zeros(1, 3); e = b.expand(2, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try: EXPANDED_WRITES[name](L, e); r = 'ran'
            except RuntimeError as ex: r = str(ex)
        return r, b.tolist(), e.tolist(), [str(x.message).split(' (Triggered')[0] for x in w]
    assert run(litnn) == run(torch)

# --- the view's old node is out of the changed history: its hooks see only the old value's other uses (torch's CopySlices) ---
def _hooked(T, case):
    a = T.tensor([1., 2., 3.], requires_grad=True); b = a.clone(); v = b[:2]; seen = []
    v.register_hook(lambda g: seen.append(g.tolist()))
    if case == 'self': v.mul_(2); b.sum().backward()
    elif case == 'after': v.mul_(2); v.register_hook(lambda g: seen.append((g + 100).tolist())); (v * 5).sum().backward()
    elif case == 'old_use': u = v * 1; v.mul_(2); (u + b[:2]).sum().backward()
    elif case == 'base_changed': b.mul_(2); (v * 3).sum().backward()
    elif case == 'view_of_view': w = v[1:]; w.register_hook(lambda g: seen.append(('w', g.tolist()))); v.mul_(2); (w * 3).sum().backward()
    elif case == 'retain_grad': v.retain_grad(); v.mul_(2); b.sum().backward(); seen.append(v.grad is None)
    return seen, a.grad.tolist()

@pytest.mark.parametrize('case', ['self', 'after', 'old_use', 'base_changed', 'view_of_view', 'retain_grad'])
def test_hooks_on_a_view_changed_in_place(case):
    assert _hooked(litnn, case) == _hooked(torch, case)

# --- detach_ on a tensor a backward saved; set_ on a leaf with a grad ------------------------------------------------
def _under_no_grad(T, f):
    with T.no_grad(): return f()

DETACH_CASES = {
    'saved': lambda T, a: (lambda b: (lambda c: (b.detach_(), c.sum().backward()))(b * b))(a * 2),
    'saved_then_changed': lambda T, a: (lambda b: (lambda c: (b.detach_(), b.mul_(3), c.sum().backward()))(b.sin()))(a * 2),
    'saved_after': lambda T, a: (lambda b: (b.detach_(), b.requires_grad_(), (b * b).sum().backward()))(a * 2),
    'output_saved': lambda T, a: (lambda b: (lambda c: (b.detach_(), c.sum().backward()))(b * 3))(a.exp()),
    'set_grows': lambda T, a: (a.sum().backward(), _under_no_grad(T, lambda: a.set_(T.tensor([5., 6., 7.]))), (a * 2).sum().backward()),
    'set_leaf': lambda T, a: a.set_(T.tensor([5., 6., 7.])),
}

@pytest.mark.parametrize('case', list(DETACH_CASES))
def test_detach_and_set_in_place(case):
    out = []
    for T in (litnn, torch):
        a = T.tensor([1., 2.], requires_grad=True)
        try: DETACH_CASES[case](T, a); out.append(('ok', None if a.grad is None else [round(v, 4) for v in a.grad.tolist()]))
        except RuntimeError as e: out.append(('RuntimeError', str(e)))
    assert out[0] == out[1]

# --- a view made under no_grad / inference_mode whose memory is written later: torch refuses its grad_fn -------------
def _quiet_view(T, mode, write, second_view):
    a = T.tensor([1., 2.], requires_grad=True); b = a * 2
    with (T.no_grad() if mode == 'no_grad' else T.inference_mode()): v = b[:1]
    w = v[:1] if second_view else v
    if write == 'base': b.mul_(2)
    elif write == 'base_no_grad':
        with T.no_grad(): b.mul_(2)
    elif write == 'other_view': b[1:].mul_(2)
    out = [repr(w)]
    for f in (lambda: w.grad_fn, lambda: w.is_leaf, lambda: type(w).__name__, lambda: w * 1, lambda: w.requires_grad):
        try: r = f(); out.append(type(r).__name__ if hasattr(r, 'name') else repr(r))
        except RuntimeError as e: out.append(str(e))
    return out

@pytest.mark.parametrize('mode', ['no_grad', 'inference'])
@pytest.mark.parametrize('write', ['none', 'base', 'base_no_grad', 'other_view'])
@pytest.mark.parametrize('second_view', [False, True])
def test_view_made_without_grad_then_written(mode, write, second_view):
    if mode == 'inference' and write == 'base_no_grad': pytest.skip('same as base')
    assert _quiet_view(litnn, mode, write, second_view) == [s.replace('torch', 'litnn') for s in _quiet_view(torch, mode, write, second_view)]


def _complex_view_cases(lib, case):
    "In-place changes through views whose dtype is not their base's (view_as_real/view_as_complex/.real/.imag), as torch's test_complex."
    g = np.random.default_rng(5)
    xr = lib.tensor(g.standard_normal((3, 2)), requires_grad=True)
    xc = lib.tensor(g.standard_normal(4) + 1j * g.standard_normal(4), requires_grad=True)
    if case == 'real_of_complex_of_real':        # test_view_func_for_complex_views, case 1
        y = xr.clone(); lib.view_as_real(lib.view_as_complex(y)).mul_(2); out = y.sum().abs()
    elif case == 'complex_of_real':              # case 2
        y = xr.clone(); c = lib.view_as_complex(y).reshape(3); c.mul_(2 - 1j); out = c.abs().sum() + y.sin().sum()
    elif case == 'real_of_complex':              # case 3
        y = xc.clone(); r = lib.view_as_real(y.reshape(2, 2)); r.mul_(r.detach() + 2); out = (y * y).abs().sum()
    elif case == 'dot_real_and_imag':
        y = xc * 1; y.real.mul_(3); y.imag.add_(xr[:2, :].reshape(4)); out = (y * y.conj() + y).real.sum()
    elif case == 'complex_slice_exp':
        y = xr.clone(); lib.view_as_complex(y)[1:].exp_(); out = (y ** 3).sum()
    elif case == 'as_strided_of_real_view':     # as_strided reads the storage in the view's own dtype
        r = lib.view_as_real(xc).as_strided((4,), (2,), 1); out = (r ** 3 * lib.arange(4.)).sum(); y = r
    gx = lib.autograd.grad(out, (xr, xc), create_graph=True, allow_unused=True)
    second = sum(((t.abs() ** 2).sum() for t in gx if t is not None), lib.tensor(0.))
    second.backward()
    as_np = lambda t: None if t is None else np.round(t.detach().resolve_conj().numpy(), 10)
    return [as_np(t) for t in (y, *gx, xr.grad, xc.grad)]

@pytest.mark.parametrize('case', ['real_of_complex_of_real', 'complex_of_real', 'real_of_complex', 'dot_real_and_imag',
                                  'complex_slice_exp', 'as_strided_of_real_view'])
def test_inplace_through_views_of_another_dtype_as_torch(case):
    ours, theirs = _complex_view_cases(litnn, case), _complex_view_cases(torch, case)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None: np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


# test_autograd.py test_autograd_simple_views_python: a view returned by a custom Function with several differentiable
# outputs is one of torch's MULTI_OUTPUT_NODE views ("...the output of a function that returns multiple views"); with one,
# an IN_CUSTOM_FUNCTION view ("...created inside a custom Function"); litnn gave every such view the second message
@pytest.mark.parametrize('two', [True, False])
def test_inplace_on_a_view_output_of_a_custom_function_names_multi_output(two):
    import torch
    msgs = []
    for lib in (litnn, torch):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b): v = a.narrow(0, 0, 2); return (v, a + b) if two else v
            @staticmethod
            def backward(ctx, *g): return g[0], g[0]
        a, b = lib.ones(2, requires_grad=True).clone(), lib.ones(2, requires_grad=True)
        out = F.apply(a, b)
        with pytest.raises(RuntimeError) as e:
            (out[0] if two else out).add_(1)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# test_autograd.py test_autograd_inplace_views_creation_meta: the in-place view ops (as_strided_, transpose_, t_,
# squeeze_, unsqueeze_, swapdims_) on a view that torch refuses to change in place (one of unbind's outputs, a custom
# Function's output) raise torch's creation-meta error at once, as any in-place op does; litnn refused only views made
# in no_grad / inference mode, and let the others change shape
@pytest.mark.parametrize('op', ['as_strided_', 'transpose_', 't_', 'squeeze_', 'unsqueeze_', 'swapdims_'])
@pytest.mark.parametrize('kind', ['multi_view', 'custom'])
def test_inplace_view_ops_refuse_multi_output_and_custom_function_views(op, kind):
    import torch
    fns = {'as_strided_': lambda v: v.as_strided_((1, 0), (2, 2)), 'transpose_': lambda v: v.transpose_(0, 0),
           't_': lambda v: v.t_(), 'squeeze_': lambda v: v.squeeze_(0), 'unsqueeze_': lambda v: v.unsqueeze_(0),
           'swapdims_': lambda v: v.swapdims_(0, 0)}
    res = []
    for lib in (litnn, torch):
        class Func(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x.view_as(x)
            @staticmethod
            def backward(ctx, x): return x
        base = lib.rand(2, 3, requires_grad=True).clone()
        inp = base.unbind()[0] if kind == 'multi_view' else Func.apply(base)
        shape = tuple(inp.shape)
        with pytest.raises(RuntimeError) as e:
            fns[op](inp)
        res.append((str(e.value), tuple(inp.shape) == shape))
    assert res[0] == res[1]

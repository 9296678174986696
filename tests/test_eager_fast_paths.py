"""The short roads of litnn's eager mode (issue 30: per-operation overhead), each against real torch on the same inputs
and, where a short road and the full path both exist, against the full path bit for bit: the engine's topological
order (AccumulateGrad right after its last feeder), tanh/sigmoid's gradient on numpy arrays, and `x * y` saving its
operands without `save_for_backward`'s loop."""
import numpy as np, pytest
import litnn

torch = pytest.importorskip('torch')
from torch_pairs import run, same

pytestmark = pytest.mark.usefixtures('grad_mode_on')     # (tests/conftest.py)


def test_accumulate_grad_runs_right_after_its_last_feeder():
    "Leaves used at several depths, one first used in an earlier graph: hooks fire in torch's order (each leaf its own last feeder)."
    def f(L):
        log = []
        w = L.tensor([1., 2.], requires_grad=True)
        (w * 3).sum().backward()                   # w's AccumulateGrad is made here, before everything below
        a, b = L.tensor([3., 4.], requires_grad=True), L.tensor([.5, .25], requires_grad=True)
        h = (a * 2).tanh()                         # a's gradient is complete after this product's node,
        h2 = h * w + b                             # w's after this one, b's after the sum
        h3 = (h2 * w).sigmoid() * b
        for nm, t in (('w', w), ('a', a), ('b', b), ('h', h), ('h2', h2), ('h3', h3)):
            t.register_hook(lambda g, nm=nm: log.append(nm))
        for nm, t in (('w', w), ('a', a), ('b', b)):
            t.register_post_accumulate_grad_hook(lambda t, nm=nm: log.append('post ' + nm))
        h3.sum().backward()
        return log, [round(v, 6) for t in (w, a, b) for v in t.grad.tolist()]
    same(f)

def test_accumulate_grad_of_a_root_and_a_leaf_reached_twice():
    "autograd.grad asked for a leaf and an output (the leaf's node a root too), and a leaf fed by two branches."
    def f(L):
        x = L.tensor([1., -2., 3.], requires_grad=True)
        y = x.sigmoid() * x
        gy, gx = L.autograd.grad((y * y).sum(), (y, x), retain_graph=True)
        (gxx,) = L.autograd.grad([y.sum(), x.sum()], [x])
        return [round(v, 6) for t in (gy, gx, gxx) for v in t.tolist()]
    same(f)

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('op', ['tanh', 'sigmoid'])
@pytest.mark.parametrize('shape', [(), (5,), (4, 6), (3, 4, 5)])
def test_tanh_sigmoid_gradient_short_road(op, dtype, shape):
    "The plain backward (arrays, the short road for float32/64) equals the recorded one bit for bit, and torch's."
    rng = np.random.default_rng(3)
    x0, g0 = rng.standard_normal(shape) * 3, rng.standard_normal(shape)
    def grads(L, create_graph):
        x, g = L.tensor(x0, dtype=getattr(L, dtype), requires_grad=True), L.tensor(g0, dtype=getattr(L, dtype))
        t = (lambda v: v.transpose(0, -1)) if len(shape) > 1 else (lambda v: v)   # strided inputs too
        (gx,) = L.autograd.grad(getattr(t(x), op)(), x, t(g), create_graph=create_graph)
        return gx.detach().float().numpy()
    plain, recorded, ref = grads(litnn, False), grads(litnn, True), grads(torch, False)
    np.testing.assert_array_equal(plain, recorded)
    tol = dict(float32=1e-6, float64=1e-12, float16=2e-3, bfloat16=1e-2)[dtype]
    np.testing.assert_allclose(plain, ref, rtol=tol, atol=tol)

def test_tanh_gradient_after_its_output_changed_in_place():
    "The short road reads the saved output through `_result_like`, so an in-place change is torch's error."
    def f(L):
        x = L.tensor([0.5, -1.], requires_grad=True)
        y = x.tanh()
        y.mul_(2)
        y.sum().backward()
    same(f)

def test_mul_saves_operands_as_save_for_backward_does():
    "A saved operand with a version counter (a view of it exists, or it was changed in place) is checked as torch checks it."
    def f(L):
        out = []
        x = L.tensor([1., 2., 3.], requires_grad=True)
        c = L.tensor([4., 5., 6.])
        v = c.view(3)                                 # c now has a version counter, at 0
        (x * c).sum().backward(); out.append(x.grad.tolist())
        y = x * c
        v.add_(1)                                     # c changed after it was saved
        try: y.sum().backward()
        except RuntimeError as e: out.append(str(e).split(';')[0].replace('litnn.', 'torch.'))
        z = c * x                                     # saved at its new version: fine
        z.sum().backward(); out.append(x.grad.tolist())
        return out
    same(f)

def test_short_roads_step_aside_while_something_listens():
    "`_Mode.quiet` follows the switches: saved-tensor hooks see what x*y and tanh save (as torch's), and only inside the context."
    def f(L):
        packed = []
        x, c = L.tensor([0.5, -1.], requires_grad=True), L.tensor([2., 3.])
        with L.autograd.graph.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
            (x * c).tanh().sum().backward()
        n = len(packed)
        (x * c).tanh().sum().backward()                 # the hooks are gone: nothing more is packed
        with L.autograd.detect_anomaly():
            y = (x * 2.0).sigmoid().sum()
        y.backward()
        return n, len(packed), [round(v, 6) for v in x.grad.tolist()]
    assert same(f)[0] > 0
    from litnn.autograd.grad_mode import _Mode
    assert _Mode.quiet

def _sdpa_inputs(L, rank, strided):
    g = np.random.default_rng(3)
    a = lambda *s: L.tensor(g.standard_normal(s).astype(np.float32), requires_grad=True)
    if strided: return [a(2, 3, 5, 8)[..., ::2].detach().requires_grad_() for _ in range(3)]   # stride 2: flash refuses, math runs
    return [a(*(2, 3, 5, 4)[4 - rank:]) for _ in range(3)]

@pytest.mark.parametrize('rank,strided,kw', [(4, False, {}), (3, False, {}), (2, False, dict(is_causal=True)), (4, True, {}),
                                             (4, False, dict(attn_mask='bool')), (4, False, dict(dropout_p=1.0))])
def test_sdpa_on_the_cpu_with_math_on_does_not_choose_a_kernel(rank, strided, kw):
    """With the math kernel on, a CPU call runs whatever flash would say (3-d, strided, masked, dropout), silently,
    as torch's: litnn skips the choice; its values and gradients match torch's."""
    import warnings
    def f(L):
        q, k, v = _sdpa_inputs(L, rank, strided)
        kw2 = dict(kw)
        if kw2.get('attn_mask') == 'bool': kw2['attn_mask'] = L.tensor(np.tril(np.ones((5, 5), bool)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out = L.nn.functional.scaled_dot_product_attention(q, k, v, **kw2)
            out.sum().backward()
        return ([str(x.message).split(' (Triggered internally')[0] for x in w], np.round(out.detach().numpy(), 4).tolist(),
                [np.round(t.grad.numpy(), 3).tolist() for t in (q, k, v)])
    same(f)

@pytest.mark.parametrize('rank,strided', [(3, False), (4, True), (4, False)])
def test_sdpa_with_flash_only_still_refuses_what_flash_refuses(rank, strided):
    "The choice runs where it can refuse (math off): torch's warnings and error for a call flash does not take, the result for one it does."
    import warnings
    def f(L):
        q, k, v = _sdpa_inputs(L, rank, strided)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with L.nn.attention.sdpa_kernel(L.nn.attention.SDPBackend.FLASH_ATTENTION):
                try: r = np.round(L.nn.functional.scaled_dot_product_attention(q, k, v).detach().numpy(), 4).tolist()
                except RuntimeError as e: r = str(e)
        return [str(x.message).split(' (Triggered internally')[0] for x in w], r
    same(f)

def test_sdpa_batch_dims_that_do_not_broadcast():
    "Equal batch dims skip the broadcast; unequal ones that do not broadcast still give torch's message."
    def f(L):
        q, k = L.ones(2, 3, 4, 8), L.ones(3, 3, 4, 8)
        return L.nn.functional.scaled_dot_product_attention(q, k, k).shape
    same(f)

@pytest.mark.parametrize('shape,strided,bias', [((2, 3, 4), False, True), ((2, 1, 3, 4), False, True), ((2, 3, 4), True, True),
                                                ((2, 3, 4), False, False), ((0, 3, 4), False, True), ((4,), False, True)])
def test_linear_of_a_batch_takes_the_short_road_with_torchs_nodes(shape, strided, bias):
    "linear of a contiguous batch goes straight to one addmm between two views: grad_fn, values and gradients as torch's."
    def f(L):
        g = np.random.default_rng(5)
        a = g.standard_normal(shape[:-1] + (2 * shape[-1],) if strided else shape).astype(np.float32)
        x = L.tensor(a, requires_grad=True)
        xs = x[..., ::2] if strided else x
        w = L.tensor(g.standard_normal((5, shape[-1])).astype(np.float32), requires_grad=True)
        b = L.tensor(g.standard_normal(5).astype(np.float32), requires_grad=True) if bias else None
        y = L.nn.functional.linear(xs, w, b)
        (y * L.arange(5.)).sum().backward()
        return (y.grad_fn.name(), tuple(y.shape), y.is_contiguous(), np.round(y.detach().numpy(), 4).tolist(),
                [np.round(t.grad.numpy(), 4).tolist() for t in (x, w, b) if t is not None])
    same(f)

def test_linear_of_a_batch_with_a_bias_of_another_dtype():
    "The short road leaves a mismatched bias to the checks: torch's message."
    def f(L):
        return L.nn.functional.linear(L.ones(2, 3, 4), L.ones(5, 4), L.ones(5, dtype=L.float64))
    same(f)

@pytest.mark.parametrize('case', ['transposed', 'contiguous', 'channels_last', 'mixed', 'legacy_empty', 'bad_sizes', 'dim_last', 'int64'])
def test_cat_writes_its_row_major_result_in_one_pass(case):
    "cat of transposed inputs is concatenated straight into a row-major buffer: values, strides and gradients as torch's."
    def f(L):
        g = np.random.default_rng(7)
        a = lambda *s: L.tensor(g.standard_normal(s).astype(np.float32), requires_grad=True)
        if case == 'transposed': xs, dim = [a(2, 4, 3, 5).transpose(1, 2) for _ in range(3)], 2
        elif case == 'contiguous': xs, dim = [a(2, 3, 4) for _ in range(3)], 1
        elif case == 'channels_last': xs, dim = [a(2, 3, 4, 5).contiguous(memory_format=L.channels_last) for _ in range(2)], 1
        elif case == 'mixed': xs, dim = [a(2, 3, 4, 5).contiguous(memory_format=L.channels_last), a(2, 3, 4, 5)], 1
        elif case == 'legacy_empty': xs, dim = [a(3, 2).t(), L.tensor([]), a(3, 2).t()], 0
        elif case == 'bad_sizes': xs, dim = [a(2, 3).t(), a(4, 2)], 0
        elif case == 'dim_last': xs, dim = [a(3, 4).t(), a(5, 3).t()[:, :3] if False else a(2, 3).t()], -1
        else: xs, dim = [L.arange(6).reshape(2, 3).t(), L.arange(4).reshape(2, 2).t().t()[:, :2].reshape(2, 2)[:, :1].expand(2, 3).t()], 0
        y = L.cat(xs, dim)
        out = [tuple(y.shape), y.stride(), np.round(y.detach().numpy(), 5).tolist()]
        if y.requires_grad:
            (y * L.arange(float(y.numel())).reshape(y.shape)).sum().backward()
            out.append([np.round(x.grad.numpy(), 4).tolist() for x in xs if x.is_leaf and x.grad is not None])
        return out
    same(f)

def _relu_calls(L):
    "The four ways a program asks for ReLU, each a function of a tensor."
    F = L.nn.functional
    return dict(method=lambda x: x.relu(), function=lambda x: L.relu(x), functional=lambda x: F.relu(x), module=lambda x: L.nn.ReLU()(x))

@pytest.mark.parametrize('how', ['method', 'function', 'functional', 'module'])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('shape', [(), (5,), (4, 6), (3, 4, 5)])
def test_relu_short_road_values_grads_nodes(how, dtype, shape):
    "ReLU of a plain float tensor records ReluBackward0 inline: values (NaN, inf, -0.0), gradients, node, edges, strides, as torch's."
    def f(L):
        g = np.random.default_rng(11)
        a = g.standard_normal(shape) * 3
        if a.size > 3: a.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
        x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=True)
        t = x.transpose(0, -1) if len(shape) > 1 else x * 1
        y = _relu_calls(L)[how](t)
        (y * L.arange(float(y.numel())).reshape(y.shape).to(y.dtype)).sum().backward()
        fn, v = y.grad_fn, y.detach().float().numpy()
        v = np.where(np.isnan(v), 7., v)          # (a NaN's sign bit is not torch's to promise)
        return (fn.name(), [type(n).__name__ if n is not None else None for n, _ in fn.next_functions], y.stride(), y.dtype == x.dtype,
                np.signbit(v).tolist(), v.tolist(),
                np.round(x.grad.float().numpy(), 3).tolist(), y._version)
    same(f)

@pytest.mark.parametrize('how', ['method', 'function', 'functional', 'module'])
def test_relu_short_road_modes_and_checks(how):
    "no_grad, inference_mode, a leaf without grad, the output changed in place (torch's error), create_graph, hooks, anomaly, forward AD."
    def f(L):
        r, out = _relu_calls(L)[how], []
        x = L.tensor([-1., 0.5, 2.], requires_grad=True)
        with L.no_grad(): y = r(x)
        out.append((y.requires_grad, y.grad_fn, y.is_inference()))
        with L.inference_mode(): y = r(x)
        out.append((y.requires_grad, y.is_inference()))
        y = r(L.tensor([-1., 3.]))
        out.append((y.requires_grad, y.grad_fn, y.tolist()))
        y = r(x * 2)
        y.add_(1)
        try: y.sum().backward()
        except RuntimeError as e: out.append(str(e).split('Hint')[0].replace('litnn.', 'torch.'))
        y = r(x * 2)
        (gx,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        (gxx,) = L.autograd.grad(gx.sum(), x)
        out.append((gx.tolist(), gx.grad_fn.name(), gxx.tolist()))
        seen = []
        y = r(x * 2)
        y.register_hook(lambda g: seen.append(g.tolist()))
        y.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
        y.sum().backward()
        out.append(seen)
        with L.autograd.detect_anomaly():
            y = r(x * float('nan'))
            try: y.sum().backward()
            except RuntimeError as e: out.append(str(e).split('\n')[0])
        import litnn.autograd.forward_ad as fwl
        fw = L.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(L.tensor([-1., 2.]), L.tensor([5., 7.]))
            p, tan = fw.unpack_dual(r(d))
            out.append((p.tolist(), tan.tolist()))
        return out
    same(f)

@pytest.mark.parametrize('how', ['method', 'function', 'functional', 'module'])
@pytest.mark.parametrize('case', ['int64', 'bool', 'complex', 'number', 'none'])
def test_relu_of_other_inputs_takes_the_general_road(how, case):
    "Integers (kept integers), bools and complex numbers (torch's errors), a number or None (torch's TypeError)."
    def f(L):
        x = dict(int64=L.tensor([-2, 3]), bool=L.tensor([True, False]), complex=L.tensor([1 + 1j]), number=3, none=None)[case]
        y = _relu_calls(L)[how](x)
        return str(y.dtype).split('.')[-1], y.tolist()
    same(f)

def test_relu_short_road_saved_tensor_hooks_and_a_subclass():
    "Pack hooks see ReLU's saved output (the general road), and a Parameter or subclass keeps torch's results."
    def f(L):
        packed = []
        x = L.tensor([-1., 2.], requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.tolist()) or t, lambda t: t):
            y = x.relu()
        y.sum().backward()
        p = L.nn.Parameter(L.tensor([-3., 4.]))
        q = L.nn.functional.relu(p)
        q.sum().backward()
        return packed, x.grad.tolist(), type(q).__name__, q.grad_fn.name(), p.grad.tolist()
    same(f)

def _ce_inputs(L, shape, dtype='float32', tdtype='int64', seed=13):
    g = np.random.default_rng(seed)
    x = L.tensor(g.standard_normal(shape) * 2, dtype=getattr(L, dtype), requires_grad=True)
    t = L.tensor(g.integers(0, shape[-1] if len(shape) else 1, shape[:1]), dtype=getattr(L, tdtype))
    return x, t

@pytest.mark.parametrize('how', ['cross_entropy', 'nll_loss'])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape', [(4, 5), (1, 3), (7, 1), (64, 10)])
def test_classifier_loss_short_road_nodes_values_grads(how, dtype, shape):
    "cross_entropy and nll_loss(log_softmax) with the defaults: torch's nodes, values and gradients; bit for bit the general road's."
    F = lambda L: L.nn.functional
    def loss(L, x, t): return F(L).cross_entropy(x, t) if how == 'cross_entropy' else F(L).nll_loss(F(L).log_softmax(x, 1), t)
    def f(L):
        x, t = _ce_inputs(L, shape, dtype)
        y = loss(L, x, t)
        y.backward()
        fn = y.grad_fn
        return (fn.name(), [(type(n).__name__, k) for n, k in fn.next_functions], fn.next_functions[0][0].next_functions[0][0].name(),
                y.dtype == x.dtype, y.shape, round(y.item(), 5), np.round(x.grad.numpy(), 5).tolist())
    same(f)
    x, t = _ce_inputs(litnn, shape, dtype)
    short = loss(litnn, x, t); short.backward()
    x2, t2 = _ce_inputs(litnn, shape, dtype, 'uint8')           # a byte target: the general road, the same nodes and arithmetic
    general = loss(litnn, x2, t2); general.backward()
    x3, _ = _ce_inputs(litnn, shape, dtype)
    with litnn.autograd.graph.saved_tensors_hooks(lambda v: v, lambda v: v):    # something listens: the general road
        listened = loss(litnn, x3, t)
    listened.backward()
    for other, xo in ((general, x2), (listened, x3)):
        assert short.item() == other.item()
        np.testing.assert_array_equal(x.grad.numpy(), xo.grad.numpy())

@pytest.mark.parametrize('how', ['cross_entropy', 'nll_loss'])
@pytest.mark.parametrize('case', ['out_of_range', 'negative', 'ignored', 'all_ignored', 'batch', 'float_target', 'int32_target',
                                  'rows_3d', 'vector', 'empty', 'float16', 'bfloat16', 'no_classes', 'number', 'transposed'])
def test_classifier_loss_unusual_arguments_as_torch(how, case):
    "What the short road leaves to the general road (or its node's forward) gives torch's values and errors."
    def f(L):
        F = L.nn.functional
        x, t = _ce_inputs(L, (4, 5))
        if case == 'out_of_range': t = L.tensor([0, 5, 1, 2])
        elif case == 'negative': t = L.tensor([0, -1, 1, 2])
        elif case == 'ignored': t = L.tensor([0, -100, 1, 2])
        elif case == 'all_ignored': t = L.full((4,), -100)
        elif case == 'batch': t = L.tensor([0, 1, 2])
        elif case == 'float_target': t = t.float()
        elif case == 'int32_target': t = t.int()
        elif case == 'rows_3d': x, t = _ce_inputs(L, (2, 5, 3))[0], L.tensor([[0, 1, 4], [2, 3, 0]])
        elif case == 'vector': x, t = L.tensor([1., 2., 3.], requires_grad=True), L.tensor(2)
        elif case == 'empty': x, t = L.zeros(0, 5, requires_grad=True), L.zeros(0, dtype=L.int64)
        elif case in ('float16', 'bfloat16'): x = x.detach().to(getattr(L, case)).requires_grad_()
        elif case == 'no_classes': x, t = L.zeros(3, 0, requires_grad=True), L.zeros(3, dtype=L.int64)
        elif case == 'number': t = 2
        elif case == 'transposed': x = _ce_inputs(L, (5, 4))[0].t()
        y = F.cross_entropy(x, t) if how == 'cross_entropy' else F.nll_loss(F.log_softmax(x, 1), t)
        y.backward()
        v = lambda a: np.where(np.isnan(a), 7., np.round(a, 2 if case == 'float16' else 3)).tolist()   # (float16's mean: one ulp from torch's, off this road)
        return y.grad_fn.name(), str(y.dtype).split('.')[-1], v(y.detach().float().numpy()), v(x.grad.float().numpy())
    same(f)

@pytest.mark.parametrize('how', ['cross_entropy', 'nll_loss'])
def test_classifier_loss_short_road_modes(how):
    "no_grad, inference_mode, autocast, anomaly mode, a hook on the loss's node, create_graph: as torch."
    def f(L):
        F, out = L.nn.functional, []
        loss = lambda x, t: F.cross_entropy(x, t) if how == 'cross_entropy' else F.nll_loss(F.log_softmax(x, 1), t)
        x, t = _ce_inputs(L, (4, 5))
        with L.no_grad(): y = loss(x, t)
        out.append((y.requires_grad, y.grad_fn, round(y.item(), 5)))
        with L.inference_mode(): y = loss(x, t)
        out.append((y.requires_grad, y.is_inference()))
        with L.autocast('cpu', dtype=L.bfloat16):
            y = loss(x @ L.eye(5), t)
        out.append((str(y.dtype).split('.')[-1], y.grad_fn.name()))
        with L.autograd.detect_anomaly():
            y = loss(x, t)
        y.backward()
        seen = []
        y = loss(x, t)
        y.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
        (gx,) = L.autograd.grad(y, x, create_graph=True)
        (gxx,) = L.autograd.grad((gx * gx).sum(), x)
        out.append((seen, np.round(gx.detach().numpy(), 5).tolist(), np.round(gxx.numpy(), 5).tolist()))
        return out
    same(f)

def test_classifier_loss_modules_take_the_short_road():
    "nn.CrossEntropyLoss() and nn.NLLLoss() pass the defaults on: torch's nodes, values and gradients."
    def f(L):
        x, t = _ce_inputs(L, (6, 4))
        out = []
        for loss in (L.nn.CrossEntropyLoss()(x, t), L.nn.NLLLoss()(L.nn.functional.log_softmax(x, 1), t)):
            loss.backward()
            out.append((loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name(), round(loss.item(), 5), np.round(x.grad.numpy(), 5).tolist()))
            x.grad = None
        return out
    same(f)

"""litnn.utils.checkpoint side by side with torch.utils.checkpoint: outputs and gradients (inputs and
parameters) equal to the un-checkpointed run and to torch's, both variants, dropout recomputed with
the same mask, multiple outputs, non-tensor arguments, checkpoint_sequential, warnings and errors."""
import contextlib
import warnings

import numpy as np
import pytest

import litnn
from litnn.utils.checkpoint import checkpoint as lcheckpoint
from nn_pairs import err, same

torch = pytest.importorskip('torch')
import torch.utils.checkpoint  # noqa: E402


def mlp(lib, seed=0):
    "A 3-layer MLP with the same float64 weights in both libraries."
    r = np.random.default_rng(seed)
    net = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Linear(6, 6), lib.nn.ReLU(), lib.nn.Linear(6, 2)).double()
    with lib.no_grad():
        for p in net.parameters(): p.copy_(lib.tensor(r.standard_normal(tuple(p.shape))))
    return net


def run(lib, use_ckpt, use_reentrant, x_requires_grad=True, seq=False):
    net = mlp(lib)
    x = lib.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=x_requires_grad)
    if seq: y = lib.utils.checkpoint.checkpoint_sequential(net, 2, x, use_reentrant=use_reentrant) if use_ckpt else net(x)
    else: y = lib.utils.checkpoint.checkpoint(net, x, use_reentrant=use_reentrant) if use_ckpt else net(x)
    (y * y).sum().backward()
    rnd = lambda t: None if t is None else np.round(t.detach().numpy(), 10).tolist()
    return rnd(y), rnd(x.grad), [rnd(p.grad) for p in net.parameters()]


@pytest.mark.parametrize('use_reentrant', [True, False])
@pytest.mark.parametrize('seq', [False, True])
def test_gradients_equal_plain_and_torch(use_reentrant, seq):
    plain = run(litnn, False, use_reentrant, seq=seq)
    assert run(litnn, True, use_reentrant, seq=seq) == plain
    same(lambda lib: run(lib, True, use_reentrant, seq=seq))


def test_no_input_requires_grad():
    # reentrant: torch warns and the parameters get no gradient; non-reentrant: they do
    def reentrant(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            net = mlp(lib)
            y = lib.utils.checkpoint.checkpoint(net, lib.ones(2, 4, dtype=lib.float64), use_reentrant=True)
        return y.requires_grad, [str(m.message) for m in w]
    same(reentrant)
    same(lambda lib: run(lib, True, False, x_requires_grad=False))
    assert run(litnn, True, False, x_requires_grad=False) == run(litnn, False, False, x_requires_grad=False)


def test_dropout_recomputed_with_the_same_mask():
    net = litnn.nn.Sequential(litnn.nn.Linear(5, 50), litnn.nn.Dropout(0.5), litnn.nn.Linear(50, 1))
    x = litnn.randn(8, 5, requires_grad=True)
    def grads(ckpt, preserve=True):
        net.zero_grad(); x.grad = None
        litnn.manual_seed(7)
        y = lcheckpoint(net, x, use_reentrant=True, preserve_rng_state=preserve) if ckpt else net(x)
        y.sum().backward()
        after = litnn.rand(3).tolist()          # the global stream continues as without checkpointing
        return [x.grad.tolist()] + [p.grad.tolist() for p in net.parameters()], after
    plain = grads(False)
    assert grads(True) == plain
    assert grads(True, preserve=False)[0] != plain[0]     # without the state, another mask: another gradient


def test_multiple_outputs_and_non_tensor_arguments():
    def f(lib):
        a = lib.tensor([1., 2., 3.], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, -1., 2.], dtype=lib.float64, requires_grad=True)
        def fn(u, k, v): return u * v * k, (u + v).exp()
        p, q = lib.utils.checkpoint.checkpoint(fn, a, 3, b, use_reentrant=True)
        (p.sum() + q.sum()).backward()
        return p.tolist(), q.tolist(), a.grad.tolist(), b.grad.tolist()
    same(f)


def test_none_and_other_non_tensor_arguments_keep_their_places():
    "A None argument is an argument like any other: the recomputation gets it where it was (test_utils' test_checkpoint_non_tensor)."
    def f(lib, use_reentrant):
        a = lib.tensor([1., -2., 3.], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 4., -1.], dtype=lib.float64, requires_grad=True)
        def fn(n1, u, n2, k, v): return (u * k if n1 is None else u) + (v.exp() if n2 is None else v)
        y = lib.utils.checkpoint.checkpoint(fn, None, a, None, 2, b, use_reentrant=use_reentrant)
        y.sum().backward()
        z = lib.utils.checkpoint.checkpoint(lambda u, w: u * 3 if w is None else u + w, a, None, use_reentrant=use_reentrant)
        z.sum().backward()
        return y.tolist(), a.grad.tolist(), b.grad.tolist()
    for use_reentrant in (True, False): same(lambda lib: f(lib, use_reentrant))


def test_gradcheck_through_checkpoint():
    "gradcheck (autograd.grad inside) passes through the non-reentrant variant; the reentrant one refuses grad(), as torch's."
    def outcome(lib, use_reentrant):
        a = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        f = lambda t: lib.utils.checkpoint.checkpoint(lambda u: (u.sin() * u).sum(), t, use_reentrant=use_reentrant)
        try: return lib.autograd.gradcheck(f, (a,))
        except RuntimeError as e: return str(e)[:60]
    for use_reentrant in (False, True): assert outcome(litnn, use_reentrant) == outcome(torch, use_reentrant)
    assert outcome(litnn, False) is True


def test_warnings_and_errors():
    x = np.ones((2, 4))
    def warned(lib, **kw):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.utils.checkpoint.checkpoint(lambda t: t * 2, lib.tensor(x, requires_grad=True), **kw)
        return [str(m.message) for m in w]
    same(warned)
    def warned_seq(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.utils.checkpoint.checkpoint_sequential(lib.nn.Sequential(lib.nn.ReLU(), lib.nn.ReLU()), 2, lib.tensor(x, requires_grad=True))
        return [str(m.message) for m in w]
    same(warned_seq)
    same(lambda lib: err(lib.utils.checkpoint.checkpoint, lambda a, b=1: a, lib.tensor(x, requires_grad=True), b=2, use_reentrant=True))
    same(lambda lib: lib.utils.checkpoint.checkpoint(lambda a, b=1: a * b, lib.tensor(x), b=2, use_reentrant=False).tolist())


def test_recomputed_under_the_forwards_autocast():
    # the same program in both libraries: a product cast to float16 by autocast, checkpointed; the
    # recomputation must run in float16 again, so the gradients equal the un-checkpointed ones
    def grads(lib, use_checkpoint):
        w = lib.tensor(np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32))
        x = lib.tensor(np.random.default_rng(4).standard_normal((2, 4)).astype(np.float32), requires_grad=True)
        def f(a):
            if lib is litnn: a, w16 = litnn.amp._autocast('mm', a, w)      # litnn's hook, as its ops call it
            else: w16 = w
            return lib.mm(a, w16).float().tanh()
        with lib.autocast('cpu', dtype=lib.float16):
            y = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=True) if use_checkpoint else f(x)
        y.sum().backward()
        return np.round(x.grad.numpy(), 4).tolist()
    assert grads(litnn, True) == grads(litnn, False)
    assert grads(torch, True) == grads(torch, False)
    np.testing.assert_allclose(grads(litnn, True), grads(torch, True), atol=2e-3)


# The smaller pieces: detach_variable, the validity warning, device states of CPU tensors, the switches, context_fn.
import contextlib
import torch.utils.checkpoint


@pytest.mark.parametrize('lib', [torch, litnn], ids=['torch', 'litnn'])
def test_pieces(lib):
    m = lib.utils.checkpoint
    d = m.detach_variable((lib.ones(2, requires_grad=True) * 2, lib.ones(2), 'x'))
    assert [getattr(t, 'requires_grad', None) for t in d] == [True, False, None] and d[0].grad_fn is None
    assert m.get_device_states(lib.ones(1), {'k': [lib.ones(1)]}) == ([], [])
    with pytest.warns(UserWarning, match='None of the inputs have requires_grad=True. Gradients will be None'):
        m.check_backward_validity([lib.ones(1)])
    with pytest.raises(RuntimeError, match='Only tuple of tensors is supported. Got Unsupported input type: list'): m.detach_variable([1])
    with m.set_checkpoint_early_stop(False), m.set_checkpoint_debug_enabled(True): pass
    assert issubclass(m.CheckpointError, RuntimeError) and m.noop_context_fn()[0].__class__ is contextlib.nullcontext
    runs = []
    @contextlib.contextmanager
    def tag(name): runs.append(name); yield
    x = lib.ones(3, requires_grad=True)
    m.checkpoint(lambda a: a.sin(), x, use_reentrant=False, context_fn=lambda: (tag('f'), tag('r'))).sum().backward()
    assert runs == ['f', 'r']
    with pytest.raises(ValueError, match='Passing `context_fn` or `debug` is only supported when use_reentrant=False.'):
        m.checkpoint(lambda a: a, x, use_reentrant=True, context_fn=lambda: (tag('a'), tag('b')))


def test_default_device_type_as_torch():
    assert litnn.utils.checkpoint.DefaultDeviceType.get_device_type() == torch.utils.checkpoint.DefaultDeviceType.get_device_type()


def _non_det(orig_fn, recompute_fn):
    "A function that runs `orig_fn` the first time and `recompute_fn` after (a recomputation that differs)."
    calls = [0]
    def fn(x):
        calls[0] += 1
        return orig_fn(x) if calls[0] == 1 else recompute_fn(x)
    return fn


@pytest.mark.parametrize('case', ['fewer', 'more_no_early_stop', 'more_early_stop', 'metadata', 'debug'])
def test_non_reentrant_detects_non_determinism_as_torch(case):
    "The non-reentrant variant compares what the recomputation saves with what the forward saved (torch's CheckpointError)."
    def outcome(lib):
        s3 = lambda x: x.sin().exp().sin()
        s2 = lambda x: x.sin().exp()
        s2b = lambda x: x.sin() * lib.tensor([1.0, 2.0])
        ck = lib.utils.checkpoint
        fn = {'fewer': _non_det(s3, s2), 'more_no_early_stop': _non_det(s2, s3), 'more_early_stop': _non_det(s2, s3)}.get(case, _non_det(s2, s2b))
        a = lib.tensor([0.3], requires_grad=True)
        early = ck.set_checkpoint_early_stop(False) if case == 'more_no_early_stop' else ck.set_checkpoint_debug_enabled(None)
        dbg = ck.set_checkpoint_debug_enabled(True) if case == 'global_debug' else ck.set_checkpoint_debug_enabled(None)
        try:
            with early, dbg:
                ck.checkpoint(fn, a, use_reentrant=False, debug=case == 'debug').backward()
        except RuntimeError as e:
            return type(e).__name__, str(e).split('\n')[0][:90], 'You are seeing this error because you passed `debug=True`' in str(e)
        return a.grad.tolist()
    got, want = outcome(litnn), outcome(torch)
    if isinstance(want, list): np.testing.assert_allclose(got, want, rtol=1e-6)
    else: assert got == want
    if case == 'debug':      # the global switch too (torch's debug logging is run once only: a second run trips pytest's log capture)
        case = 'global_debug'
        assert outcome(litnn) == want


def test_non_reentrant_graph_is_the_plain_one():
    "Non-reentrant: dict outputs, a hook on a parameter used inside and outside fires once, saved non-differentiable inputs keep their identity, no error when no output requires grad, `grad()` works."
    def run_(lib):
        res = {}
        w = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        calls = []
        w.register_hook(lambda g: calls.append(1))
        h = w * 2
        out = lib.utils.checkpoint.checkpoint(lambda t: {'r': (w * t).exp()}, h, use_reentrant=False)
        out['r'].sum().backward()
        res['hook_calls'], res['w_grad'] = len(calls), w.grad.tolist()
        seen = []
        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(y); return x.clone()
            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.saved_tensors[0]); return g, None
        a, b = lib.tensor(1.0, requires_grad=True), lib.tensor(2.0)
        lib.utils.checkpoint.checkpoint(Keep.apply, a, b, use_reentrant=False).backward()
        res['identity'] = seen[0] is b
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        def no_grad_inside(t):
            with lib.no_grad(): return t * 3
        y = lib.utils.checkpoint.checkpoint(no_grad_inside, x, use_reentrant=False)
        res['requires_grad'] = y.requires_grad
        z = lib.utils.checkpoint.checkpoint(lambda t: t.sin(), x, use_reentrant=False).sum()
        res['grad'] = lib.autograd.grad(z, x)[0].tolist()
        return res
    got, want = run_(litnn), run_(torch)
    assert got.pop('hook_calls') == want.pop('hook_calls') == 1
    np.testing.assert_allclose(got.pop('w_grad'), want.pop('w_grad'), rtol=1e-12)
    np.testing.assert_allclose(got.pop('grad'), want.pop('grad'), rtol=1e-6)
    assert got == want


def test_non_reentrant_recomputes_once_per_backward_and_unpacks_once():
    "Each backward recomputes once; outside a backward each access of a saved tensor recomputes; a freed one raises; a second unpack in one backward raises."
    def run_(lib):
        count = [0]
        def foo(a):
            count[0] += 1
            return lib.exp(a)
        a = lib.tensor([0.1, 0.2], requires_grad=True)
        d = lib.utils.checkpoint.checkpoint(foo, a, use_reentrant=False)
        counts = [count[0]]
        d.grad_fn._saved_result; counts.append(count[0])
        d.grad_fn._saved_result; counts.append(count[0])
        d.sum().backward(retain_graph=True); counts.append(count[0])
        d.sum().backward(); counts.append(count[0])
        try: d.grad_fn._saved_result; freed = None
        except RuntimeError as e: freed = 'already been freed' in str(e)
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x); return x * 2
            @staticmethod
            def backward(ctx, g):
                ctx.saved_tensors; ctx.saved_tensors; return g * 2
        try:
            lib.utils.checkpoint.checkpoint(lambda t: Twice.apply(t.sin()), a, use_reentrant=False).sum().backward(); twice = None
        except RuntimeError as e: twice = str(e)[:80]
        return counts, freed, twice
    assert run_(litnn) == run_(torch)


def test_reentrant_refuses_grad_and_backward_inputs():
    "use_reentrant=True cannot serve autograd.grad or backward(inputs=): torch's RuntimeError; a plain backward afterwards works."
    def run_(lib):
        msgs = []
        a = lib.tensor([0.5, 1.5], requires_grad=True)
        for call in (lambda b: lib.autograd.grad(b, (a,)), lambda b: b.backward(inputs=[a])):
            try: call(lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=True).sum()); msgs.append(None)
            except RuntimeError as e: msgs.append(str(e))
        lib.utils.checkpoint.checkpoint(lib.exp, a, use_reentrant=True).sum().backward()
        return msgs, a.grad.tolist()
    (gm, gg), (tm, tg) = run_(litnn), run_(torch)
    assert gm == tm
    np.testing.assert_allclose(gg, tg, rtol=1e-6)


def test_graph_exec_group_shares_one_recomputation():
    "Backward calls inside one GraphExecGroup recompute a region once; overlapping ones raise torch's CheckpointError."
    def run_(lib, group):
        count = [0]
        def fn(x):
            count[0] += 1
            y = x.sin().cos()
            return y, y.sin().cos()
        x = lib.tensor([[0.1, 0.2], [0.3, 0.4]], requires_grad=True)
        y, z = lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
        with (lib.utils.checkpoint.GraphExecGroup() if group else contextlib.nullcontext()):
            (gy,) = lib.autograd.grad(z, inputs=(y,), grad_outputs=(lib.ones(2, 2),))
            (gx,) = lib.autograd.grad(y, inputs=(x,), grad_outputs=(gy,))
        out = lib.utils.checkpoint.checkpoint(lambda t: t.sin().cos(), x, use_reentrant=False)
        try:
            with lib.utils.checkpoint.GraphExecGroup():
                out.sum().backward(retain_graph=True); out.sum().backward()
            overlap = None
        except RuntimeError as e: overlap = 'Performing two backward calls that overlap' in str(e)
        return count[0], gx.tolist(), overlap
    for group in (True, False):
        (c, g, o), (tc, tg, to) = run_(litnn, group), run_(torch, group)
        assert (c, o) == (tc, to)
        np.testing.assert_allclose(g, tg, rtol=1e-6)

"""Module hooks side by side with torch: the same model, the same weights (through numpy), the same hooks,
in litnn and in torch; compare the order hooks fire in (with module names), what they receive (inputs,
outputs, grad_input, grad_output: shapes, values, None), what their return values change, prepend,
with_kwargs, always_call, handle removal, global hooks, the legacy backward hook and the errors."""
import inspect, io, warnings
from types import SimpleNamespace

import numpy as np
import pytest

import litnn
from litnn.nn.modules import hooks as lhooks, backward_hooks as lbackward_hooks, module as lmodule
from nn_pairs import err, norm

torch = pytest.importorskip('torch')
LIBS = [litnn, torch]


# --- the same models in both libraries ---------------------------------------------------------

class Linear(litnn.nn.Module):
    "litnn stand-in for torch.nn.Linear, computing as torch's F.linear does (one addmm for 2-D inputs)."
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = litnn.nn.Parameter(litnn.zeros(out_features, in_features))
        self.bias = litnn.nn.Parameter(litnn.zeros(out_features))
    def forward(self, x):
        if x.dim() == 2: return litnn.addmm(self.bias, x, self.weight.t())
        return x @ self.weight.t() + self.bias


class ReLU(litnn.nn.Module):
    def forward(self, x): return x.relu()


def nn_of(lib):
    "Linear, ReLU, Sequential: torch's own layers, or litnn's stand-ins that compute as they do."
    if lib is torch: return SimpleNamespace(Linear=torch.nn.Linear, ReLU=torch.nn.ReLU, Sequential=torch.nn.Sequential)
    return SimpleNamespace(Linear=Linear, ReLU=ReLU, Sequential=litnn.nn.Sequential)


def custom(lib):
    "Small modules whose code is the same in both libraries."
    class Scale(lib.nn.Module):
        def forward(self, x, k=2.): return x * k
    class Mul(lib.nn.Module):
        def forward(self, a, b): return a * b
    class Split(lib.nn.Module):
        def forward(self, a): return a * 2, a * 3, 7
    class Broken(lib.nn.Module):
        def forward(self, x): raise ValueError("forward failed")
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn_of(lib).Linear(1, 1), nn_of(lib).Linear(1, 1)
            with lib.no_grad():
                self.fc1.weight.fill_(2.); self.fc1.bias.fill_(0.)
                self.fc2.weight.fill_(4.); self.fc2.bias.fill_(0.)
        def forward(self, x): return self.fc2(self.fc1(x))
    return SimpleNamespace(Scale=Scale, Mul=Mul, Split=Split, Broken=Broken, Net=Net)


def seeded(lib, model, seed=0):
    "`model` with every parameter drawn from one numpy generator: the same weights in both libraries."
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _, p in model.named_parameters(): p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def nested(lib):
    "A Sequential holding a Sequential, with weights from numpy."
    nn = nn_of(lib)
    return seeded(lib, nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Linear(3, 1)))


def data(lib, shape, seed=1, requires_grad=True):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32), requires_grad=requires_grad)


def plain(x):
    "What a hook received, comparable across libraries: tensors as ('T', shape, values), containers recursively."
    if isinstance(x, (litnn.Tensor, torch.Tensor)): return ('T', tuple(x.shape), x.tolist())
    if isinstance(x, (tuple, list)): return type(x)(plain(v) for v in x)
    if isinstance(x, dict): return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (litnn.nn.Module, torch.nn.Module)): return x._get_name()
    return x


def close(a, b, tol=1e-5):
    "Equal structure, floats equal within `tol`."
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict): return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k], tol) for k in a)
    if isinstance(a, float) and isinstance(b, float): return abs(a - b) <= tol * (1 + abs(b))
    return a == b


def both(f):
    "Run `f(lib)` on litnn and on torch; assert the results agree (floats within 1e-5) and return litnn's."
    a, b = f(litnn), f(torch)
    assert close(a, b), f'litnn: {a!r}\ntorch: {b!r}'
    return a


def warned(f):
    "Call `f()`; return its result and the (category name, message) of every warning it raised."
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        res = f()
    return res, [(w.category.__name__, norm(str(w.message))) for w in ws]


@pytest.fixture(autouse=True)
def no_global_hooks_left():
    "Each test starts and ends without global hooks; litnn's handles must have removed every entry."
    yield
    left = {n: dict(getattr(lmodule, n)) for n in dir(lmodule) if n.startswith('_global_') and 'registration' not in n
            and isinstance(getattr(lmodule, n), dict)}
    for m in (lmodule, torch.nn.modules.module):
        for n in dir(m):
            if n.startswith('_global_') and 'registration' not in n and isinstance(getattr(m, n), dict): getattr(m, n).clear()
        m._global_is_full_backward_hook = None
    assert not any(left.values()), left


def glob(lib):
    "The module where `lib` keeps its global hook functions (torch.nn.modules.module / its litnn counterpart)."
    return lib.nn.modules.module


# --- the API: names and signatures ---------------------------------------------------------------

METHODS = ['register_forward_pre_hook', 'register_forward_hook', 'register_full_backward_pre_hook',
           'register_full_backward_hook', 'register_backward_hook', '_get_backward_hooks', '_get_backward_pre_hooks',
           '_maybe_warn_non_full_backward_hook', '_call_impl', '_wrapped_call_impl']
GLOBALS = ['register_module_forward_pre_hook', 'register_module_forward_hook', 'register_module_backward_hook',
           'register_module_full_backward_pre_hook', 'register_module_full_backward_hook']


def sig(f): return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]


@pytest.mark.parametrize('name', METHODS)
def test_method_signatures_are_torchs(name):
    assert name in vars(litnn.nn.Module)
    both(lambda lib: sig(getattr(lib.nn.Module, name)))


@pytest.mark.parametrize('name', GLOBALS)
def test_global_functions_live_in_module_py(name):
    assert getattr(lmodule, name).__module__ == 'litnn.nn.modules.module'
    assert name in lmodule.__all__ and name in torch.nn.modules.module.__all__
    both(lambda lib: sig(getattr(glob(lib), name)))


def test_global_dicts_are_read_in_module_py():
    # hooks.py keeps no copy of the dictionaries: it reads module.py's at each call, so rebinding one takes effect
    for name in ['_global_forward_pre_hooks', '_global_forward_hooks', '_global_backward_pre_hooks',
                 '_global_backward_hooks', '_global_forward_hooks_always_called', '_global_forward_hooks_with_kwargs']:
        assert not hasattr(lhooks, name)
    h = lmodule.register_module_forward_hook(lambda *a: None)
    assert list(lmodule._global_forward_hooks) == [h.id]
    h.remove()


# --- the order hooks fire in ------------------------------------------------------------------------

def test_hook_order_of_a_nested_model_is_torchs():
    calls = both(lambda lib: lbackward_hooks.record_hook_calls(nested(lib), data(lib, (4, 2))))
    assert len(calls) == 4 * 7 and calls[0] == ('', 'forward_pre') and calls[-1] == ('', 'backward')
    assert calls[13:17] == [('', 'forward'), ('', 'backward_pre'), ('3', 'backward_pre'), ('3', 'backward')]


def test_hook_order_when_the_input_needs_no_grad():
    "Modules whose inputs need no grad (the root, the first layer) fire their full backward hook at their output."
    calls, ws = both(lambda lib: warned(lambda: lbackward_hooks.record_hook_calls(nested(lib), data(lib, (4, 2), requires_grad=False))))
    assert calls[14:18] == [('', 'backward_pre'), ('', 'backward'), ('3', 'backward_pre'), ('3', 'backward')]
    assert calls[-2:] == [('0', 'backward_pre'), ('0', 'backward')]
    assert len(ws) == 2 and all(c == 'UserWarning' and 'no inputs require gradients' in m for c, m in ws)


def test_record_hook_calls_leaves_no_hook_and_no_mark():
    def run(lib):
        model = nested(lib)
        lbackward_hooks.record_hook_calls(model, data(lib, (1, 2)))
        return [(len(m._forward_pre_hooks), len(m._forward_hooks), len(m._backward_pre_hooks), len(m._backward_hooks),
                 m._is_full_backward_hook) for m in model.modules()]
    assert both(run) == [(0, 0, 0, 0, None)] * 7


def test_order_with_global_prepended_and_local_hooks():
    def run(lib):
        model, calls = nested(lib), []
        note = lambda tag: (lambda m, *a: calls.append((m._get_name(), tag)))
        g = glob(lib)
        handles = [g.register_module_forward_pre_hook(note('g_pre')), g.register_module_forward_hook(note('g_fwd')),
                   g.register_module_full_backward_pre_hook(note('g_bpre')), g.register_module_full_backward_hook(note('g_bwd'))]
        for m in (model[0], model[2]):
            m.register_forward_pre_hook(note('pre1')); m.register_forward_pre_hook(note('pre0'), prepend=True)
            m.register_forward_hook(note('fwd1')); m.register_forward_hook(note('fwd0'), prepend=True)
            m.register_full_backward_pre_hook(note('bpre1')); m.register_full_backward_pre_hook(note('bpre0'), prepend=True)
            m.register_full_backward_hook(note('bwd1')); m.register_full_backward_hook(note('bwd0'), prepend=True)
        model(data(lib, (2, 2))).sum().backward()
        for h in handles: h.remove()
        return calls
    calls = both(run)
    assert calls[:4] == [('Sequential', 'g_pre'), ('Linear', 'g_pre'), ('Linear', 'pre0'), ('Linear', 'pre1')]
    assert ('Linear', 'g_bwd') in calls and calls.index(('Linear', 'g_bwd')) < calls.index(('Linear', 'bwd0'))


# (the picture of the order, litnn.viz.hook_timeline, is tested in tests/test_viz.py)


# --- what the hooks receive -------------------------------------------------------------------------

def record_everything(lib, model, x):
    "Every hook kind on every module, recording (name, kind, what it received)."
    seen = []
    for name, m in model.named_modules():
        m.register_forward_pre_hook(lambda m, args, n=name: seen.append((n, 'pre', plain(args))))
        m.register_forward_hook(lambda m, args, out, n=name: seen.append((n, 'fwd', plain(args), plain(out))))
        m.register_full_backward_pre_hook(lambda m, go, n=name: seen.append((n, 'bpre', plain(go))))
        m.register_full_backward_hook(lambda m, gi, go, n=name: seen.append((n, 'bwd', plain(gi), plain(go))))
    model(x).sum().backward()
    return seen, plain(x.grad), [plain(p.grad) for p in model.parameters()]


def test_hooks_receive_torchs_inputs_outputs_and_gradients():
    seen, xgrad, pgrads = both(lambda lib: record_everything(lib, nested(lib), data(lib, (4, 2))))
    assert len(seen) == 28 and xgrad[1] == (4, 2) and len(pgrads) == 6
    by = {(n, k): rest for n, k, *rest in seen}
    assert by[('', 'bpre')] == [(('T', (4, 1), [[1.]] * 4),)]
    assert by[('3', 'bwd')][0] == by[('2', 'bwd')][1] == by[('2.1', 'bwd')][1]   # a layer's grad_input: the next one's grad_output
    assert by[('0', 'bwd')][0] == (('T', (4, 2), xgrad[2]),)                     # the first layer's grad_input is x.grad
    assert by[('2', 'fwd')][1] == by[('3', 'pre')][0][0]                          # outputs feed the next module


def test_forward_hook_sees_args_not_kwargs():
    def run(lib):
        s, seen = custom(lib).Scale(), []
        s.register_forward_pre_hook(lambda m, args: seen.append(plain(args)))
        s.register_forward_hook(lambda m, args, out: seen.append((plain(args), plain(out))))
        s(lib.tensor([1., 2.]), k=3.)
        return seen
    assert both(run) == [(('T', (2,), [1., 2.]),), ((('T', (2,), [1., 2.]),), ('T', (2,), [3., 6.]))]


def test_with_kwargs_hooks_see_and_replace_kwargs():
    def run(lib):
        s, seen = custom(lib).Scale(), []
        s.register_forward_pre_hook(lambda m, args, kwargs: (args, {**kwargs, 'k': kwargs['k'] * 10}), with_kwargs=True)
        s.register_forward_hook(lambda m, args, kwargs, out: seen.append((plain(kwargs), plain(out))), with_kwargs=True)
        s.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
        out = s(lib.tensor([1.]), k=2.)
        return plain(out), seen
    assert both(run) == (('T', (1,), [40.]), [({'k': 20.}, ('T', (1,), [40.]))])


def test_bad_with_kwargs_pre_hook_return_value_is_an_error():
    def run(lib):
        s = custom(lib).Scale()
        s.register_forward_pre_hook(lambda m, args, kwargs: args, with_kwargs=True)
        return err(s, lib.tensor([1.]), k=2.)
    t, msg = both(run)
    assert t is RuntimeError and msg.startswith("forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got (")


# --- return values ------------------------------------------------------------------------------

@pytest.mark.parametrize('ret,expected', [('none', [3.]), ('tuple', [6.]), ('single', 'TypeError'), ('list', 'TypeError')])
def test_pre_hook_return_value_rules(ret, expected):
    "None keeps the args; a tuple replaces them; anything else becomes a 1-tuple (so Mul misses its second argument)."
    def run(lib):
        m, seen = custom(lib).Mul(), []
        def hook(mod, args):
            if ret == 'tuple': return (args[0] * 2, args[1])
            if ret == 'single': return lib.tensor([5.])
            if ret == 'list': return [args[0], lib.tensor([7.])]
        m.register_forward_pre_hook(hook)
        m.register_forward_pre_hook(lambda mod, args: seen.append(len(args)))
        try: out = m(lib.tensor([1.]), lib.tensor([3.])).tolist()
        except TypeError: out = 'TypeError'
        return seen, out
    assert both(run) == ([1 if ret in ('single', 'list') else 2], expected)


def test_forward_hooks_replace_the_output_in_turn():
    def run(lib):
        s = custom(lib).Scale()
        s.register_forward_hook(lambda m, args, out: out + 1)
        s.register_forward_hook(lambda m, args, out: None)
        s.register_forward_hook(lambda m, args, out: out * 10)
        s.register_forward_hook(lambda m, args, out: out - 5, prepend=True)
        return plain(s(lib.tensor([1.])))
    assert both(run) == ('T', (1,), [-20.])       # ((2 - 5) + 1) * 10


def test_full_backward_hooks_replace_gradients():
    def run(lib):
        net = custom(lib).Net()
        net.fc2.register_full_backward_hook(lambda m, gi, go: (gi[0] / 2,))
        net.fc1.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
        net.fc1.register_full_backward_pre_hook(lambda m, go: None)
        x = lib.tensor([1.], requires_grad=True)
        net(x).backward()
        return x.tolist(), x.grad.tolist(), net.fc1.weight.grad.tolist(), net.fc2.weight.grad.tolist()
    assert both(run) == ([1.], [12.], [[6.]], [[2.]])


def test_backward_pre_hook_sees_earlier_replacement_and_prepend():
    def run(lib):
        net, seen = custom(lib).Net(), []
        net.fc2.register_full_backward_pre_hook(lambda m, go: seen.append(('second', plain(go))))
        net.fc2.register_full_backward_pre_hook(lambda m, go: (go[0] * 5,), prepend=True)
        net.fc2.register_full_backward_hook(lambda m, gi, go: seen.append(('bwd', plain(gi), plain(go))))
        x = lib.tensor([1.], requires_grad=True)
        net(x).backward()
        return seen, x.grad.tolist()
    assert both(run) == ([('second', (('T', (1,), [5.]),)), ('bwd', (('T', (1,), [20.]),), (('T', (1,), [5.]),))], [40.])


@pytest.mark.parametrize('kind', ['full', 'pre'])
def test_wrong_number_of_gradients_is_an_error(kind):
    def run(lib):
        net = custom(lib).Net()
        if kind == 'full': net.fc1.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        else: net.fc1.register_full_backward_pre_hook(lambda m, go: ())
        return err(net(lib.tensor([1.], requires_grad=True)).backward)
    assert both(run)[0] is RuntimeError


# --- inputs that are not tensors or need no gradient; several outputs -----------------------------

def test_grad_input_for_non_tensor_and_no_grad_inputs():
    def run(lib):
        m, seen = custom(lib).Mul(), []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((plain(gi), plain(go))))
        a = lib.ones(2, requires_grad=True)
        m(a, 5).sum().backward()                                 # not a tensor: None
        m(a, lib.full((2,), 3.)).sum().backward()               # a tensor not requiring grad: zeros
        return seen
    seen = both(run)
    assert seen[0][0][1] is None and seen[1][0][1] == ('T', (2,), [0., 0.])


def test_no_input_requires_grad_fires_at_the_output_with_a_warning():
    def run(lib):
        lin, seen = seeded(lib, nn_of(lib).Linear(2, 1)), []
        lin.register_full_backward_pre_hook(lambda m, go: seen.append(('pre', plain(go))))
        lin.register_full_backward_hook(lambda m, gi, go: seen.append(('bwd', plain(gi), plain(go))))
        _, ws = warned(lambda: lin(lib.ones(1, 2)).sum().backward())
        lin.register_full_backward_hook(lambda m, gi, go: (lib.ones(1, 2),))
        return seen, ws, err(lambda: warned(lambda: lin(lib.ones(1, 2)).sum().backward()))
    seen, ws, e = both(run)
    assert seen[:2] == [('pre', (('T', (1, 1), [[1.]]),)), ('bwd', (None,), (('T', (1, 1), [[1.]]),))]
    assert [c for c, _ in ws] == ['UserWarning']
    assert e == (RuntimeError, "Backward hook for Modules where no input requires gradient should always return None or None for all gradients.")


def test_several_outputs_and_a_non_tensor_output():
    def run(lib):
        m, seen = custom(lib).Split(), []
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(('pre', plain(go))))
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(('bwd', plain(gi), plain(go))))
        a = lib.ones(2, requires_grad=True)
        out = m(a)
        out[0].sum().backward()
        return seen, plain(out[2]), out[0].grad_fn.name(), a.grad.tolist()
    seen, seven, name, g = both(run)
    assert seen[0] == ('pre', (('T', (2,), [1., 1.]), None, None)) and (seven, name, g) == (7, 'BackwardHookFunctionBackward', [2., 2.])


def test_gradient_reaching_the_inputs_without_the_outputs_fires_no_hook():
    "A forward that leaks its (wrapped) input: a gradient through the leak reaches the input node, not the output one."
    def run(lib):
        m, seen = custom(lib).Scale(), []
        def forward(x, k=2.):
            m.leak = x
            return x * k
        m.forward = forward
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((plain(gi), plain(go))))
        x = lib.ones(1, requires_grad=True)
        y = m(x)
        y.backward(retain_graph=True)                # through the output: the hook fires once
        (m.leak * 3).backward()                      # only through the input node: no hook
        return seen, x.grad.tolist()
    assert both(run) == ([((('T', (1,), [2.]),), (('T', (1,), [1.]),))], [5.])


def test_gradient_kept_by_a_hook_is_not_changed_by_a_later_backward():
    def run(lib):
        net, kept = custom(lib).Net(), []
        net.fc1.register_full_backward_hook(lambda m, gi, go: kept.append(gi[0]))
        x = lib.tensor([1.], requires_grad=True)
        net(x).backward(); net(x).backward()
        return [k.tolist() for k in kept], x.grad.tolist()
    assert both(run) == ([[8.], [8.]], [16.])


def test_output_not_a_tensor_or_tuple_warns():
    def run(lib):
        m = custom(lib).Scale()
        m.forward = lambda x: {'y': x * 2}
        m.register_full_backward_hook(lambda *a: None)
        return warned(lambda: plain(m(lib.ones(1, requires_grad=True))))
    out, ws = both(run)
    assert ws == [('UserWarning', "For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  "Tensors but received <class 'dict'>")]


def test_no_grad_mode_sets_up_no_backward_hooks():
    def run(lib):
        net, seen = custom(lib).Net(), []
        net.register_full_backward_hook(lambda *a: seen.append('bwd'))
        net.register_forward_hook(lambda *a: seen.append('fwd'))
        with lib.no_grad(): y = net(lib.tensor([1.], requires_grad=True))
        return seen, y.grad_fn is None, y.requires_grad
    assert both(run) == (['fwd'], True, False)


# --- always_call --------------------------------------------------------------------------------

def test_always_call_hooks_run_when_forward_raises():
    def run(lib):
        b, seen = custom(lib).Broken(), []
        b.register_forward_hook(lambda m, args, out: seen.append(('normal', plain(out))))
        b.register_forward_hook(lambda m, args, out: seen.append(('always', plain(args), out)), always_call=True)
        b.register_forward_hook(lambda m, args, kwargs, out: seen.append(('always_kw', kwargs)), always_call=True,
                                with_kwargs=True)
        h = glob(lib).register_module_forward_hook(lambda m, args, out: seen.append(('global', out)), always_call=True)
        try: return err(b, lib.tensor([1.]), ), seen
        finally: h.remove()
    e, seen = both(run)
    assert e == (ValueError, 'forward failed')
    assert seen == [('global', None), ('always', (('T', (1,), [1.]),), None), ('always_kw', {})]


def test_always_call_hooks_run_once_and_see_the_partial_result():
    "A forward hook raises after an always-call hook ran: that one is not run again; the others see the output."
    def run(lib):
        s, seen = custom(lib).Scale(), []
        s.register_forward_hook(lambda m, args, out: seen.append(('first', plain(out))) or out + 1, always_call=True)
        s.register_forward_hook(lambda m, args, out: 1 / 0)
        s.register_forward_hook(lambda m, args, out: seen.append(('after', plain(out))), always_call=True)
        return err(s, lib.tensor([1.])), seen
    e, seen = both(run)
    assert e[0] is ZeroDivisionError and seen == [('first', ('T', (1,), [2.])), ('after', ('T', (1,), [3.]))]


def test_failing_always_call_hook_becomes_a_warning():
    def run(lib):
        b = custom(lib).Broken()
        b.register_forward_hook(lambda m, args, out: 1 / 0, always_call=True)
        (e, ws) = warned(lambda: err(b, lib.tensor([1.])))
        return e, ws
    e, ws = both(run)
    assert e == (ValueError, 'forward failed')
    assert ws == [('UserWarning', "module forward hook with ``always_call=True`` raised an exception that was silenced "
                                  "as another error was raised in forward: division by zero")]


# --- handles -----------------------------------------------------------------------------------

def test_handles_remove_hooks_and_their_flags():
    def run(lib):
        s, seen = custom(lib).Scale(), []
        h1 = s.register_forward_hook(lambda m, a, k, o: seen.append('h1'), with_kwargs=True, always_call=True)
        h2 = s.register_forward_pre_hook(lambda m, a, k: seen.append('h2'), with_kwargs=True)
        h3 = s.register_full_backward_hook(lambda *a: seen.append('h3'))
        h4 = s.register_full_backward_pre_hook(lambda *a: seen.append('h4'))
        s(lib.ones(1, requires_grad=True)).backward()
        for h in (h1, h2, h3, h4): h.remove()
        h1.remove()                                             # twice: nothing happens
        with s.register_forward_hook(lambda *a: seen.append('ctx')): s(lib.ones(1))
        s(lib.ones(1, requires_grad=True)).backward()
        return seen, [len(d) for d in (s._forward_hooks, s._forward_hooks_with_kwargs, s._forward_hooks_always_called,
                                       s._forward_pre_hooks, s._forward_pre_hooks_with_kwargs, s._backward_hooks,
                                       s._backward_pre_hooks)]
    assert both(run) == (['h2', 'h1', 'h4', 'h3', 'ctx'], [0] * 7)


def test_global_handles_remove_hooks():
    def run(lib):
        seen, g = [], glob(lib)
        hs = [g.register_module_forward_pre_hook(lambda *a: seen.append('pre')),
              g.register_module_forward_hook(lambda *a: seen.append('fwd'), always_call=True),
              g.register_module_full_backward_pre_hook(lambda *a: seen.append('bpre')),
              g.register_module_full_backward_hook(lambda *a: seen.append('bwd'))]
        m = custom(lib).Scale()
        m(lib.ones(1, requires_grad=True)).backward()
        for h in hs: h.remove()
        m(lib.ones(1, requires_grad=True)).backward()
        return seen, [len(getattr(g, n)) for n in ('_global_forward_pre_hooks', '_global_forward_hooks',
                                                   '_global_forward_hooks_always_called', '_global_backward_pre_hooks',
                                                   '_global_backward_hooks')]
    assert both(run) == (['pre', 'fwd', 'bpre', 'bwd'], [0] * 5)


# --- global hooks --------------------------------------------------------------------------------

def test_global_hooks_fire_first_and_for_every_module():
    def run(lib):
        net, seen = custom(lib).Net(), []
        g = glob(lib)
        net.fc1.register_forward_pre_hook(lambda m, a: seen.append('local pre fc1'))
        net.fc1.register_forward_hook(lambda m, a, o: seen.append('local fwd fc1'))
        net.fc1.register_full_backward_pre_hook(lambda m, go: seen.append('local bpre fc1'))
        net.fc1.register_full_backward_hook(lambda m, gi, go: seen.append('local bwd fc1'))
        hs = [g.register_module_forward_pre_hook(lambda m, a: seen.append(f'global pre {m._get_name()}')),
              g.register_module_forward_hook(lambda m, a, o: seen.append(f'global fwd {m._get_name()}')),
              g.register_module_full_backward_pre_hook(lambda m, go: seen.append(f'global bpre {m._get_name()}')),
              g.register_module_full_backward_hook(lambda m, gi, go: seen.append(f'global bwd {m._get_name()}'))]
        net(lib.tensor([1.], requires_grad=True)).backward()
        for h in hs: h.remove()
        return seen
    seen = both(run)
    assert seen[:3] == ['global pre Net', 'global pre Linear', 'local pre fc1']
    assert seen.index('global bwd Linear') < seen.index('local bwd fc1')


def test_global_hooks_may_replace_args_and_output():
    def run(lib):
        g = glob(lib)
        with g.register_module_forward_pre_hook(lambda m, a: a[0] * 2), \
             g.register_module_forward_hook(lambda m, a, o: o + 1), \
             g.register_module_forward_hook(lambda m, a, k, o: seen.append(k), with_kwargs=True):
            seen = []
            out = custom(lib).Scale()(lib.tensor([1.]), k=3.)
        return plain(out), seen
    assert both(run) == (('T', (1,), [7.]), [{'k': 3.}])


def test_global_backward_hooks_may_replace_gradients():
    def run(lib):
        g = glob(lib)
        net, x = custom(lib).Net(), lib.tensor([1.], requires_grad=True)
        with g.register_module_full_backward_hook(lambda m, gi, go: (gi[0] * 2,) if m._get_name() == 'Linear' else None):
            net(x).backward()
        return x.grad.tolist()
    assert both(run) == [32.]


def test_global_legacy_backward_hook():
    def run(lib):
        g, seen = glob(lib), []
        net, x = custom(lib).Net(), lib.tensor([[1.]], requires_grad=True)   # kept alive: the hooks hold it weakly
        with g.register_module_backward_hook(lambda m, gi, go: seen.append((m._get_name(), plain(gi), plain(go)))):
            y, ws = warned(lambda: net(x))
            y.backward()
        return seen, ws
    seen, ws = both(run)
    assert [n for n, *_ in seen] == ['Linear', 'Net', 'Linear']   # fc2's addmm is also Net's last op: fc2's hook, then Net's
    assert seen[0][1:] == seen[1][1:] and len(seen[0][1]) == 3 and len(ws) == 3


# --- the legacy backward hook ----------------------------------------------------------------------

def test_legacy_backward_hook_reports_the_last_operation():
    "torch's documented pitfall: on a two-Linear net the hook gets fc2's addmm gradients, not the net's."
    def run(lib):
        net, seen = custom(lib).Net(), []
        net.register_backward_hook(lambda m, gi, go: seen.append((plain(gi), plain(go))))
        x = lib.tensor([[1.]], requires_grad=True)
        y, ws = warned(lambda: net(x))
        y.backward()
        return seen, ws, x.grad.tolist(), y.grad_fn.name()
    seen, ws, xgrad, name = both(run)
    assert seen == [((('T', (1,), [1.]), ('T', (1, 1), [[4.]]), ('T', (1, 1), [[2.]])), (('T', (1, 1), [[1.]]),))]
    assert ws == [('FutureWarning', "Using a non-full backward hook when the forward contains multiple autograd Nodes "
                   "is deprecated and will be removed in future versions. This hook will be missing some grad_input. "
                   "Please use register_full_backward_hook to get the documented behavior.")]
    assert (xgrad, name) == ([[8.]], 'AddmmBackward0')


def test_legacy_backward_hook_on_a_single_operation_and_its_replacement():
    def run(lib):
        s, seen = custom(lib).Scale(), []
        s.register_backward_hook(lambda m, gi, go: seen.append((plain(gi), plain(go))))
        s.register_backward_hook(lambda m, gi, go: (gi[0] * 10,) + tuple(gi[1:]))
        x = lib.tensor([1., 2.], requires_grad=True)
        y, ws = warned(lambda: s(x))
        y.sum().backward()
        return seen, ws, x.grad.tolist()
    seen, ws, g = both(run)
    assert g == [20., 20.] and seen[0][0] == (('T', (2,), [2., 2.]), None)   # MulBackward0's grads: x, and the number
    assert [c for c, _ in ws] == ['FutureWarning']    # a leaf input has no grad_fn: torch warns even here


@pytest.mark.parametrize('case', ['dict_out', 'kwarg_only_input', 'two_nodes'])
def test_legacy_backward_hook_warnings(case):
    def run(lib):
        s = custom(lib).Scale()
        s.register_backward_hook(lambda *a: None)
        x = lib.tensor([1.], requires_grad=True)
        if case == 'dict_out': s.forward = lambda x: (x * 2, [x * 3])
        if case == 'kwarg_only_input': return warned(lambda: plain(s(x, 5)))[1]
        if case == 'two_nodes': s.forward = lambda x: (x * 2, x * 3)
        return warned(lambda: plain(s(x)))[1]
    ws = both(run)
    assert len(ws) == 1 and ws[0][0] == 'FutureWarning'


# --- the mixing errors ---------------------------------------------------------------------------

def test_mixing_full_and_legacy_backward_hooks_is_an_error():
    def run(lib):
        a, b = lib.nn.Module(), lib.nn.Module()
        a.register_full_backward_hook(print).remove()           # the choice outlives the hook
        b.register_backward_hook(print)
        return (err(a.register_backward_hook, print), err(b.register_full_backward_hook, print),
                a._is_full_backward_hook, b._is_full_backward_hook)
    e1, e2, fa, fb = both(run)
    assert e1 == e2 == (RuntimeError, "Cannot use both regular backward hooks and full backward hooks on a single "
                                      "Module. Please use only one of them.")
    assert (fa, fb) == (True, False)


def test_mixing_global_backward_hook_kinds_is_an_error():
    def run(lib):
        g = glob(lib)
        g.register_module_full_backward_hook(print).remove()
        return err(g.register_module_backward_hook, print)
    assert both(run) == (RuntimeError, "Cannot use both regular backward hooks and full backward hooks as a global "
                                       "Module hook. Please use only one of them.")


# --- the seed example, forward(), the fast path ------------------------------------------------------

def test_seed_example_two_linear_net_prints_what_torch_prints():
    def run(lib):
        net, lines = custom(lib).Net(), []
        names = {m: n for n, m in net.named_modules()}
        for layer in (net.fc1, net.fc2):
            layer.register_forward_hook(lambda m, i, o: lines.append(f"forward {names[m]} {plain(i)} {plain(o)}"))
            layer.register_full_backward_hook(lambda m, gi, go: lines.append(f"backward {names[m]} {plain(gi)} {plain(go)}"))
        x = lib.tensor([1.], requires_grad=True)
        net(x).backward()
        return lines, x.grad.tolist()
    lines, g = both(run)
    assert g == [8.]
    assert lines == ["forward fc1 (('T', (1,), [1.0]),) ('T', (1,), [2.0])",
                     "forward fc2 (('T', (1,), [2.0]),) ('T', (1,), [8.0])",
                     "backward fc2 (('T', (1,), [4.0]),) (('T', (1,), [1.0]),)",
                     "backward fc1 (('T', (1,), [8.0]),) (('T', (1,), [4.0]),)"]


def test_calling_forward_directly_skips_every_hook():
    def run(lib):
        s, seen = custom(lib).Scale(), []
        s.register_forward_pre_hook(lambda *a: seen.append('pre'))
        s.register_forward_hook(lambda *a: seen.append('fwd'))
        with glob(lib).register_module_forward_hook(lambda *a: seen.append('global')):
            s.forward(lib.ones(1)); direct = list(seen)
            s(lib.ones(1))
        return direct, seen
    assert both(run) == ([], ['pre', 'global', 'fwd'])


def test_fast_path_skips_the_hook_machinery(monkeypatch):
    def boom(*a): raise AssertionError("the hooked path ran")
    monkeypatch.setattr(lhooks, '_hooked_call', boom)
    s = custom(litnn).Scale()
    assert s(litnn.ones(1)).tolist() == [2.]                  # no hook anywhere: forward only
    s.register_forward_hook(lambda *a: None)
    with pytest.raises(AssertionError, match="the hooked path ran"): s(litnn.ones(1))

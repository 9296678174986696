"""The names of torch's sub-namespaces (torch.autograd, torch.overrides, torch.utils.data, torch.func, torch.optim,
torch.profiler, torch.hub, torch.amp, torch.nn, torch.nn.functional...) that litnn adds for issue 29, side by side with
PyTorch 2.13: the same values, the same behaviour, the same exception types."""
import importlib, warnings
import pytest

torch = pytest.importorskip('torch')
import litnn

def both(): return (torch, litnn)

# torch.overrides (reference/overrides)

def _logged(lib):
    class Logged:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return (func.__name__, [t.__name__ for t in types], len(args), sorted(kwargs or {}))
    class Sub(Logged): pass
    class Declines:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None): return NotImplemented
    return Logged, Sub, Declines

@pytest.mark.parametrize('ns', ['overrides', 'autograd', 'nn.functional'])
def test_torch_function_protocol(ns):
    outs = []
    for lib in both():
        m = importlib.import_module(lib.__name__ + '.' + ns)
        O = importlib.import_module(lib.__name__ + '.overrides')
        Logged, Sub, Declines = _logged(lib)
        def double(x, scale=2):
            if O.has_torch_function_unary(x): return m.handle_torch_function(double, (x,), x, scale=scale)
            return x * scale
        t = lib.tensor([1., 2.])
        r = [m.has_torch_function((t, 1)), m.has_torch_function([Logged()]), O.has_torch_function_variadic(1, Sub()),
             O.has_torch_function_unary(lib.nn.Parameter(t)), double(t).tolist(), double(Logged()),
             m.handle_torch_function(double, (Logged(), Sub()), 1, scale=3) if hasattr(m, 'handle_torch_function') else None]
        with pytest.raises(TypeError, match='no implementation found for'): double(Declines())
        with pytest.raises(TypeError, match='expected a sequence'): m.has_torch_function(1)
        if hasattr(m, 'is_tensor_like'):
            r += [m.is_tensor_like(t), m.is_tensor_like(lib.nn.Parameter(t)), m.is_tensor_like(Logged()), m.is_tensor_like([1.])]
        outs.append(r)
    assert outs[0] == outs[1]

# torch.autograd (reference/backprop/engine_switches)

def test_autograd_switches():
    outs = []
    for lib in both():
        A = lib.autograd
        r = [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        with A.set_multithreading_enabled(False), A._force_original_view_tracking(True), A.enforce_grad_layout_policy(False):
            r += [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        r += [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        A.set_multithreading_enabled(False); r.append(A.is_multithreading_enabled())
        A.set_multithreading_enabled(True); r.append(A.is_multithreading_enabled())
        @A._force_original_view_tracking(True)
        def f(): return A.is_view_replay_enabled()
        r += [A.is_view_replay_enabled(), f(), A.is_view_replay_enabled()]
        with A.enforce_grad_layout_policy(False):
            x = lib.ones(2, 3).t().requires_grad_(); (x * 2).sum().backward(); r.append(x.grad.tolist())
        outs.append(r)
    assert outs[0] == outs[1]

def test_nested_io_function_and_saved_tensor():
    msgs = []
    for lib in both():
        class Double(lib.autograd.NestedIOFunction):
            def forward_extended(self, x): return x * 2
            def backward_extended(self, g): return g * 2
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(AttributeError) as e1: Double()(x)
        with pytest.raises(AttributeError) as e2: Double.apply(x)
        with pytest.raises(RuntimeError) as e3: lib.autograd.SavedTensor()
        msgs.append((str(e1.value), str(e2.value), str(e3.value)))
        assert issubclass(lib.autograd.NestedIOFunction, lib.autograd.Function)
    assert msgs[0] == msgs[1]

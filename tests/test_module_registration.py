"""Module state and registration, side by side with torch: the same code on `litnn.nn` and `torch.nn`
gives the same registries, the same exception types and the same messages (torch's names read as litnn's)."""
import copy
from collections import OrderedDict

import pytest
import litnn
from nn_pairs import err, norm, same, stand_ins

torch = pytest.importorskip('torch')
LIBS = [litnn, torch]


def registries(m):
    "What a module has registered, by name."
    return (list(m._parameters), list(m._buffers), list(m._modules), sorted(m._non_persistent_buffers_set),
            sorted(k for k in vars(m) if not k.startswith('_')))


# --- state ------------------------------------------------------------------------------------

def test_init_state_is_torchs():
    same(lambda lib: [(k, type(v).__name__) for k, v in vars(lib.nn.Module()).items()])


def test_class_attributes():
    same(lambda lib: (lib.nn.Module.dump_patches, lib.nn.Module._version, lib.nn.Module.call_super_init))


def test_forward_unimplemented():
    same(lambda lib: err(stand_ins(lib).Norm(2)))
    assert err(litnn.nn.Module()) == (NotImplementedError, 'Module [Module] is missing the required "forward" function')


@pytest.mark.parametrize('args,kwargs', [((1,), {}), ((1, 2), {}), ((), {'a': 1})])
def test_init_refuses_arguments(args, kwargs):
    same(lambda lib: err(lib.nn.Module, *args, **kwargs))


def test_call_super_init_passes_arguments_on():
    def run(lib):
        class Base:
            def __init__(self, x=None): self.got = x
        class M(lib.nn.Module, Base):
            call_super_init = True
        return M(x=3).got
    assert same(run) == 3


def test_call_runs_forward():
    def run(lib):
        s = stand_ins(lib).Scale(3)
        return s(lib.tensor([1., 2.])).tolist()
    assert same(run) == [3., 6.]


# --- Parameter and Buffer ---------------------------------------------------------------------

def test_parameter_repr():
    for make in (lambda lib: lib.nn.Parameter(lib.zeros(2, 3)), lambda lib: lib.nn.Parameter(),
                 lambda lib: lib.nn.Parameter(lib.tensor([1., -2.5]), requires_grad=False),
                 lambda lib: lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False)):
        same(lambda lib: norm(repr(make(lib))))


def test_parameter_basics():
    def run(lib):
        w = lib.ones(2)
        p = lib.nn.Parameter(w)
        with lib.no_grad(): q = lib.nn.Parameter(lib.ones(1))
        x = lib.ones(2, requires_grad=True)
        r = lib.nn.Parameter(x * 2)
        return (p.requires_grad, p.is_leaf, q.requires_grad, type(p * 2).__name__, type(p.data).__name__,
                type(p.detach()).__name__, r.is_leaf, r.grad_fn, isinstance(p, lib.Tensor), type(p).__name__)
    assert same(run)[:3] == (True, True, True)


def test_parameter_shares_memory():
    w = litnn.zeros(3)
    p = litnn.nn.Parameter(w)
    assert p._data is w._data
    p.data = litnn.ones(3)                      # swapping the array does not touch `w`
    assert w.tolist() == [0., 0., 0.]


def test_parameter_integer_needs_no_grad():
    same(lambda lib: err(lib.nn.Parameter, lib.arange(3)))
    same(lambda lib: str(lib.nn.Parameter(lib.arange(3), requires_grad=False).dtype).replace('torch', 'litnn'))


def test_parameter_of_non_tensor():
    same(lambda lib: err(lib.nn.Parameter, [1., 2.])[0])


def test_parameter_deepcopy():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        a, b = copy.deepcopy([p, p])
        return type(a).__name__, a is b, a is p, a.requires_grad, a.tolist()
    assert same(run) == ('Parameter', True, False, True, [1., 1.])


def test_buffer():
    def run(lib):
        t = lib.ones(2)
        b = lib.nn.Buffer(t, persistent=False)
        return (type(b).__name__, b.persistent, isinstance(b, lib.nn.Buffer), isinstance(t, lib.nn.Buffer),
                issubclass(lib.nn.Buffer, lib.Tensor), lib.nn.Buffer().shape == (0,))
    assert same(run)[:3] == ('Tensor', False, True)
    same(lambda lib: err(lib.nn.Buffer, lib.ones(1), False)[0])


# --- register_parameter -----------------------------------------------------------------------

def test_register_parameter_before_init():
    def run(lib):
        class Early(lib.nn.Module):
            def __init__(self): self.register_parameter('w', None)
        return err(Early)
    assert same(run) == (AttributeError, 'cannot assign parameter before Module.__init__() call')


def param_cases(lib):
    "The calls to `register_parameter` that raise, each on a fresh Net."
    P, z = lib.nn.Parameter, lib.zeros
    p = P(lib.ones(2), requires_grad=False)
    p.mul_(lib.ones(2, requires_grad=True))     # a Parameter with a history: the only way to get one
    return {'int name': (1, None), 'None name': (None, None), 'dot': ('a.b', None), 'empty': ('', None),
            'attribute': ('training', None), 'method': ('forward', None), 'buffer': ('steps', None),
            'module': ('fc1', None), 'tensor': ('w', z(1)), 'int': ('w', 3), 'list': ('w', [1.]),
            'dot and tensor': ('a.b', z(1)), 'non-leaf': ('w', p)}

@pytest.mark.parametrize('case', list(param_cases(litnn)))
def test_register_parameter_errors(case):
    def run(lib):
        name, value = param_cases(lib)[case]
        return err(stand_ins(lib).Net().register_parameter, name, value)
    same(run)


def test_register_parameter_messages():
    net = stand_ins(litnn).Net()
    assert err(net.register_parameter, 'w', litnn.zeros(1)) == (
        TypeError, "cannot assign 'litnn.FloatTensor' object to parameter 'w' (litnn.nn.Parameter or None required)")
    assert err(net.register_parameter, 'fc1', None) == (KeyError, "attribute 'fc1' already exists")


def test_register_parameter_none_and_replace():
    def run(lib):
        net = stand_ins(lib).Net()
        net.register_parameter('extra', None)
        p = lib.nn.Parameter(lib.ones(1))
        net.register_parameter('extra', p)          # re-registering a parameter's name is allowed
        net.fc2.register_parameter('bias', lib.nn.Parameter(lib.zeros(2)))
        return registries(net), net.extra is p, [n for n, _ in net.named_parameters()]
    same(run)


# --- register_buffer --------------------------------------------------------------------------

def test_register_buffer_before_init():
    def run(lib):
        class Early(lib.nn.Module):
            def __init__(self): self.register_buffer('b', None)
        return err(Early)
    assert same(run) == (AttributeError, 'cannot assign buffer before Module.__init__() call')


@pytest.mark.parametrize('name,value', [(1, None), ('a.b', None), ('', None), ('training', None), ('fc1', None),
                                        ('cache_', 3), ('b', [1.]), ('b', 'x'), (2.5, 3)])
def test_register_buffer_errors(name, value):
    same(lambda lib: err(stand_ins(lib).Net().register_buffer, name, value))


def test_register_buffer_persistence():
    def run(lib):
        n = stand_ins(lib).Norm(2)
        n.register_buffer('running_mean', lib.ones(2), persistent=False)   # re-register: now non-persistent
        n.register_buffer('cache', None)                                     # and this one persistent again
        n.register_buffer('new', lib.ones(1), False)
        return registries(n), n.cache, n.running_mean.tolist()
    same(run)


def test_register_buffer_accepts_any_tensor():
    def run(lib):
        n = lib.nn.Module()
        n.register_buffer('p', lib.nn.Parameter(lib.ones(1)))   # even a Parameter
        n.register_buffer('i', lib.arange(3))
        return registries(n), type(n.p).__name__
    same(run)


# --- add_module -------------------------------------------------------------------------------

@pytest.mark.parametrize('name,value', [
    ('x', 3), (1, 3), (1, 'module'), (1, None), ('training', None), ('a.b', None), ('', None), ('steps', None),
    ('a.b', 3), ('training', 3), ('forward', 'x')])
def test_add_module_errors(name, value):
    def run(lib):
        net = stand_ins(lib).Net()
        mod = lib.nn.Module() if value == 'module' else value
        return err(net.add_module, name, mod), err(net.register_module, name, mod)
    same(run)


def test_add_module_dotted_existing_attribute():
    "torch checks `already exists` before the dot: a plain attribute named 'x.y' says so."
    def run(lib):
        m = lib.nn.Module()
        setattr(m, 'x.y', 1)
        return err(m.add_module, 'x.y', lib.nn.Module())
    assert same(run)[0] is KeyError


def test_add_module_registers():
    def run(lib):
        m = lib.nn.Module()
        a, b = lib.nn.Module(), stand_ins(lib).Scale(2)
        m.add_module('a', a); m.register_module('b', b); m.add_module('c', None); m.add_module('a', b)
        return registries(m), m.a is b, m.c
    same(run)


# --- __setattr__ / __getattr__ / __delattr__ ----------------------------------------------------

def test_setattr_rules():
    def run(lib):
        S, nn = stand_ins(lib), lib.nn
        m = S.Net()
        out = [registries(m)]
        m.plain = lib.zeros(1); out.append(registries(m))               # a tensor: plain attribute
        m.plain = nn.Parameter(lib.zeros(1)); out.append(registries(m))  # now a parameter
        m.steps = lib.ones(1); out.append((registries(m), type(m.steps).__name__))   # stays a buffer
        m.norm.cache = lib.ones(3); out.append(registries(m.norm))       # keeps non-persistence
        m.norm.cache = None; out.append(registries(m.norm))
        m.newbuf = nn.Buffer(lib.ones(1), persistent=False); out.append(registries(m))
        m.steps = nn.Module(); out.append(registries(m))                 # module replaces buffer
        m.plain = None; out.append(registries(m))                        # None to a parameter
        m.fc1 = None; out.append(registries(m))                          # None to a module
        m.fc1 = S.Scale(1); out.append(registries(m))
        m.name = 'x'; m.name = nn.Module(); out.append(registries(m))    # module replaces plain attr
        m.norm.weight = nn.Parameter(lib.ones(3)); out.append(registries(m.norm))
        return out
    same(run)


def test_parameter_replaces_buffer_and_module():
    def run(lib):
        m = stand_ins(lib).Net()
        m.steps = lib.nn.Parameter(lib.ones(1))
        m.fc1 = lib.nn.Parameter(lib.ones(1))
        m.norm.cache = lib.nn.Parameter(lib.ones(1))
        return registries(m), registries(m.norm)
    same(run)


@pytest.mark.parametrize('name,value', [
    ('fc2', 3), ('fc2', 'tensor'), ('steps', 3), ('steps', 'str'), ('steps', [1.]),
    ('plainparam', 'tensor'), ('plainparam', 3)])
def test_setattr_errors(name, value):
    def run(lib):
        m = stand_ins(lib).Net()
        m.plainparam = lib.nn.Parameter(lib.ones(1))
        v = {'tensor': lib.zeros(1), 'str': 'x'}.get(value, value) if isinstance(value, str) else value
        return err(setattr, m, name, v), registries(m)
    same(run)


def test_setattr_module_to_parameter_name():
    same(lambda lib: err(setattr, stand_ins(lib).Linear(1, 1), 'weight', lib.nn.Module()))
    assert err(setattr, stand_ins(litnn).Linear(1, 1), 'weight', litnn.ones(1)) == (
        TypeError, "cannot assign 'litnn.FloatTensor' as parameter 'weight' (litnn.nn.Parameter or None expected)")


@pytest.mark.parametrize('kind', ['parameter', 'module', 'buffer', 'tensor', 'int'])
def test_setattr_before_init(kind):
    def run(lib):
        value = {'parameter': lambda: lib.nn.Parameter(lib.ones(1)), 'module': lib.nn.Module,
                 'buffer': lambda: lib.nn.Buffer(lib.ones(1)), 'tensor': lambda: lib.ones(1), 'int': lambda: 3}[kind]
        class Early(lib.nn.Module):
            def __init__(self): self.x = value()
        try: return type(Early().x).__name__
        except Exception: return err(Early)
    same(run)


def test_getattr():
    def run(lib):
        m = stand_ins(lib).Net()
        return (m.fc1 is m._modules['fc1'], m.steps is m._buffers['steps'], m.norm.weight is m.norm._parameters['weight'],
                err(getattr, m, 'nope'), hasattr(m, 'nope'), getattr(m, 'nope', 5))
    same(run)


def test_getattr_property_names_the_real_missing_attribute():
    "Better than torch: torch names the property; litnn the attribute that is really missing."
    def make(lib):
        class Net(lib.nn.Module):
            @property
            def scale(self): return self.sigma * 2
            @property
            def nested(self): return self.scale
            @property
            def fine(self): return 3
        return Net()
    assert err(getattr, make(torch), 'scale') == (AttributeError, "'Net' object has no attribute 'scale'")
    assert err(getattr, make(litnn), 'scale') == (AttributeError, "'Net' object has no attribute 'sigma'")
    assert err(getattr, make(litnn), 'nested') == (AttributeError, "'Net' object has no attribute 'sigma'")
    assert err(getattr, make(litnn), 'other') == (AttributeError, "'Net' object has no attribute 'other'")
    assert make(litnn).fine == 3 and hasattr(make(litnn), 'scale') is False


def test_getattr_property_error_of_another_object():
    class Net(litnn.nn.Module):
        def __init__(self): super().__init__(); self.config = {}
        @property
        def size(self): return self.config.size
    assert err(getattr, Net(), 'size') == (AttributeError, "'dict' object has no attribute 'size'")


def test_getattr_on_half_built_module():
    "Before __init__ (unpickling, deepcopy), lookups must not recurse."
    def run(lib):
        m = lib.nn.Module.__new__(lib.nn.Module)
        return err(getattr, m, '_parameters'), hasattr(m, 'training')
    same(run)


def test_delattr():
    def run(lib):
        m = stand_ins(lib).Net()
        m.plain = 1
        del m.fc1, m.steps, m.plain, m.norm.cache, m.norm.weight
        return registries(m), registries(m.norm), err(delattr, m, 'nope')[0]
    same(run)


def test_register_buffer_override_without_persistent():
    def run(lib):
        class Old(lib.nn.Module):
            def register_buffer(self, name, tensor): super().register_buffer(name, tensor)
        m = Old()
        m.register_buffer('b', lib.ones(1))
        m.b = lib.zeros(1)                                     # allowed: persistent
        return registries(m), err(setattr, m, 'c', lib.nn.Buffer(lib.ones(1), persistent=False))
    same(run)


# --- global registration hooks ------------------------------------------------------------------

def test_global_registration_hooks():
    def run(lib):
        mm = lib.nn.modules.module
        calls = []
        def on_param(m, name, p):
            calls.append(('param', type(m).__name__, name))
            if name == 'bias': return lib.nn.Parameter(p.data, requires_grad=False)
        def on_buffer(m, name, b): calls.append(('buffer', type(m).__name__, name))
        def on_module(m, name, sub):
            calls.append(('module', type(m).__name__, name))
            if name == 'fc2': return lib.nn.Module()
        hs = [mm.register_module_parameter_registration_hook(on_param),
              mm.register_module_buffer_registration_hook(on_buffer),
              mm.register_module_module_registration_hook(on_module)]
        try:
            net = stand_ins(lib).Net()
            net.add_module('extra', None)
            net.fc1 = None
        finally:
            for h in hs: h.remove()
        stand_ins(lib).Net()   # removed: no more calls
        return calls, type(net.fc2).__name__, net.norm.weight.requires_grad, [p.requires_grad for p in net.fc1.parameters()] if net.fc1 else None
    calls = same(run)[0]
    assert ('module', 'Net', 'fc2') in calls and ('buffer', 'Norm', 'cache') in calls


def test_global_hook_handles_are_context_managers():
    mm = litnn.nn.modules.module
    with mm.register_module_buffer_registration_hook(lambda m, n, b: litnn.ones(2)):
        m = litnn.nn.Module(); m.register_buffer('b', None)
    assert m.b.tolist() == [1., 1.] and len(mm._global_buffer_registration_hooks) == 0


# --- whole modules --------------------------------------------------------------------------------

def test_module_deepcopy():
    def run(lib):
        net = stand_ins(lib).Deep()
        c = copy.deepcopy(net)
        ps, cs = dict(net.named_parameters()), dict(c.named_parameters())
        return (list(cs), all(type(p).__name__ == 'Parameter' for p in cs.values()),
                any(cs[k] is ps[k] for k in cs), c.tied.weight is c.net.fc1.weight, c.again is c.net.fc1)
    assert same(run)[-2:] == (True, True)


def test_modules_and_parameters_are_hashable():
    net = stand_ins(litnn).Net()
    assert len({*net.parameters(), *net.parameters()}) == 4 and len({net, net}) == 1


def test_typename_matches_torch():
    from litnn.nn.modules.module import _typename
    for v in (3, 'a', None, [1], 2.5, OrderedDict()):
        assert _typename(v) == torch.typename(v)
    assert _typename(litnn.zeros(1, dtype=litnn.float64)) == norm(torch.typename(torch.zeros(1, dtype=torch.float64)))
    assert _typename(litnn.nn.Module()) == norm(torch.typename(torch.nn.Module()))


def test_module_has_every_method_of_the_parts():
    "The complete class: every method of the registration, traversal and train/eval parts is on litnn.nn.Module."
    names = ['register_buffer', 'register_parameter', 'add_module', 'register_module', '__getattr__', '__setattr__',
             '__delattr__', 'forward', '__call__', '_named_members', 'parameters', 'named_parameters', 'buffers',
             'named_buffers', 'children', 'named_children', 'modules', 'named_modules', 'get_submodule',
             'set_submodule', 'get_parameter', 'get_buffer', '_get_name', 'extra_repr', '__repr__', '__dir__',
             'train', 'eval', 'requires_grad_', 'zero_grad']
    missing = [n for n in names if n not in vars(litnn.nn.Module)]
    assert missing == []
    assert all(hasattr(torch.nn.Module, n) for n in names)


def test_module_level_names_are_plain():
    """Patching `__getattr__` / `__dir__` must not leave module-level versions behind (PEP 562); the hooks for every
    module (25_hooks) are defined in module.py itself, as in PyTorch, not forwarded."""
    import litnn.nn.modules.module as mm, litnn.nn.modules.traversal as tr
    assert '__getattr__' not in vars(mm) and '__dir__' not in vars(tr)
    assert mm.register_module_forward_hook.__module__ == 'litnn.nn.modules.module'
    assert hasattr(mm, 'nothing_here') is False and 'Module' in dir(mm)


def _filing_cases(P, M, B, t):
    "(name, value) pairs, each assigned to a fresh module holding a parameter `w`, a buffer `b`, a child `c`, an attribute `a`."
    return [('w', P(t(1.))), ('w', None), ('c', M()), ('c', None), ('c', P(t(1.))),
            ('b', t(2.)), ('b', None), ('b', B(t(2.))), ('b', M()), ('b', P(t(1.))),
            ('a', P(t(1.))), ('a', M()), ('a', t(2.)), ('a', None), ('a', 5),
            ('x', P(t(1.))), ('x', M()), ('x', B(t(2.))), ('x', t(2.)), ('x', None), ('x', 'text')]


def test_setattr_files_each_value_where_torchs_does():
    "`__setattr__`'s rules (21_registration's `tiny_setattr` is tested equal to litnn's): the same dictionary as torch's, for every case."
    import torch
    def fresh(L):
        m = L.nn.Module(); m.w, m.c, m.a = L.nn.Parameter(L.tensor(1.)), L.nn.Module(), 'attr'; m.register_buffer('b', L.tensor(0.))
        return m
    def filed(m):
        return {k: next((d for d in ('_parameters', '_buffers', '_modules') if k in vars(m)[d]), '__dict__' if k in vars(m) else '-')
                for k in 'wbcax'}
    ours = _filing_cases(litnn.nn.Parameter, litnn.nn.Module, litnn.nn.Buffer, litnn.tensor)
    theirs = _filing_cases(torch.nn.Parameter, torch.nn.Module, torch.nn.Buffer, torch.tensor)
    for (name, value), (_, tvalue) in zip(ours, theirs):
        m, tm = fresh(litnn), fresh(torch)
        setattr(m, name, value); setattr(tm, name, tvalue)
        assert filed(m) == filed(tm), (name, value)

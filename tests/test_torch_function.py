"""The `__torch_function__` protocol (reference/overrides): tensor subclasses keep their class through litnn's functions,
methods and operators, a subclass's own `__torch_function__` sees each call, TorchFunctionModes see every call, as torch's.
Each case runs in a fresh interpreter for each library: the first subclass switches dispatch on for its whole process."""
import json, subprocess, sys, textwrap, pytest
torch = pytest.importorskip('torch')

_PROGRAM = textwrap.dedent('''
    import json, sys
    lib = sys.argv[1]
    torch = __import__(lib)
    F = torch.nn.functional
    out = {}
    def desc(v):
        if isinstance(v, torch.Tensor): return type(v).__name__
        if isinstance(v, (tuple, list)): return type(v).__name__.replace('torch.', '').replace('litnn.', '') + '(' + ','.join(desc(i) for i in v) + ')'
        return type(v).__name__
    class M(torch.Tensor):
        def twice(self): return self * 2
    x = torch.tensor([[1., -2.], [3., 4.]]).as_subclass(M)
    cases = dict(add=lambda: x + 1, radd=lambda: 1 + x, fn=lambda: torch.sin(x), meth=lambda: x.sum(), idx=lambda: x[0],
                 relu=lambda: F.relu(x), cat=lambda: torch.cat([x, x]), maxv=lambda: x.max(0).values, split=lambda: torch.split(x, 1),
                 T=lambda: x.T, data=lambda: x.data, matmul=lambda: x @ x, eq=lambda: x == 1, linear=lambda: F.linear(x, torch.ones(3, 2)),
                 norm=lambda: torch.linalg.norm(x), shape=lambda: x.shape, item=lambda: x.sum().item(), clone=lambda: x.clone(),
                 to=lambda: x.to(torch.float64), detach=lambda: x.detach(), neg=lambda: -x, inplace=lambda: x.clone().add_(1),
                 zeros_like=lambda: torch.zeros_like(x), stack=lambda: torch.stack([x, x]), where=lambda: torch.where(x > 0, x, 0.),
                 unbind=lambda: x.unbind(0), softmax=lambda: x.softmax(-1), plain=lambda: torch.ones(2) + x[0],
                 param=lambda: torch.nn.Parameter(torch.ones(2)) * 2, view=lambda: x.view(4), chunk=lambda: x.chunk(2),
                 sort=lambda: torch.sort(x).values, own=lambda: x.twice())
    for k, f in cases.items(): out[k] = desc(f())
    w = torch.tensor([1., 2.], requires_grad=True)
    y = (w.as_subclass(M) * 3).sum()
    y.backward()
    out['grad'] = [type(y).__name__, w.grad.tolist()]
    class L(torch.Tensor):
        calls = []
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)
    a = torch.ones(2, 2).as_subclass(L)
    b = torch.matmul(a, a).relu() + 1
    F.softmax(b * 2 - 1, -1).sum(0)[1]
    torch.nn.Linear(2, 2)(a)
    out['logged'] = L.calls
    class U(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            with torch._C.DisableTorchFunctionSubclass(): return func(*args, **(kwargs or {}))
    u = torch.ones(2).as_subclass(U)
    out['unwrapped'] = [type(u + 1).__name__, type(torch.sin(u)).__name__]
    class Count(torch.overrides.TorchFunctionMode):
        def __init__(self): super().__init__(); self.n = []
        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.n.append(func.__name__)
            return func(*args, **(kwargs or {}))
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    with Count() as c:
        lin(torch.ones(1, 3)).relu()
        torch.zeros(2) + torch.arange(2)
        with torch._C.DisableTorchFunction(): torch.ones(1)
        with torch._C.DisableTorchFunctionSubclass(): torch.ones(1)
    out['mode'] = c.n
    with Count() as c1:
        with Count() as c2: torch.ones(1) * 2
    out['nested'] = [c1.n, c2.n, torch.overrides._get_current_function_mode() is None]
    class AddIsSub(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func is torch.add: func = torch.sub
            return func(*args, **(kwargs or {}))
    with AddIsSub(): out['replaced'] = torch.add(torch.tensor(5.), 3).item()
    class D(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None): return NotImplemented
    try: torch.sin(torch.ones(1).as_subclass(D)); out['declined'] = 'no error'
    except TypeError: out['declined'] = 'TypeError'
    class P(torch.nn.Parameter): pass
    out['param_subclass'] = type(P(torch.ones(2)) + 1).__name__
    pm = torch.nn.Parameter(x.clone())      # a subclass instance made a parameter keeps its class, flagged `_is_param`
    lin2 = torch.nn.Linear(2, 2)
    lin2.weight = pm
    frozen = torch.nn.Parameter(x, requires_grad=False)
    out['param_of_subclass'] = [type(pm).__name__, isinstance(pm, torch.nn.Parameter), isinstance(x, torch.nn.Parameter),
                                pm.requires_grad, pm.is_leaf, pm is x, [type(q).__name__ for q in lin2.parameters()],
                                type(frozen).__name__, frozen.requires_grad, type(pm * 2).__name__,
                                repr(torch.nn.Parameter(torch.tensor([1., 2.]).as_subclass(M)))]
    try: torch.nn.Parameter(P(torch.ones(2))); out['param_of_param_subclass'] = 'no error'
    except RuntimeError as e: out['param_of_param_subclass'] = str(e)
    out['has'] = [torch.overrides.has_torch_function((torch.ones(1),)), torch.overrides.has_torch_function((x,)),
                  torch.overrides.has_torch_function((torch.nn.Parameter(torch.ones(1)),))]
    print(json.dumps(out))
''')


def _side_by_side(program):
    "Runs `program` once with `torch = __import__('torch')` and once with litnn, each in a fresh interpreter; its last line of JSON for each."
    res = {}
    for lib in ('torch', 'litnn'):
        p = subprocess.run([sys.executable, '-c', program, lib], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        res[lib] = json.loads(p.stdout.strip().splitlines()[-1])
    return res


@pytest.fixture(scope='module')
def results(): return _side_by_side(_PROGRAM)


@pytest.mark.parametrize('key', ['add', 'radd', 'fn', 'meth', 'idx', 'relu', 'cat', 'maxv', 'split', 'T', 'data', 'matmul', 'eq', 'linear',
                                 'norm', 'shape', 'item', 'clone', 'to', 'detach', 'neg', 'inplace', 'zeros_like', 'stack', 'where',
                                 'unbind', 'softmax', 'plain', 'param', 'view', 'chunk', 'sort', 'own', 'grad', 'logged', 'unwrapped',
                                 'mode', 'nested', 'replaced', 'declined', 'param_subclass', 'param_of_subclass',
                                 'param_of_param_subclass', 'has'])
def test_torch_function_protocol_as_torch(results, key):
    assert results['litnn'][key] == results['torch'][key]


def test_no_subclass_no_dispatch():
    "A process that never subclasses Tensor nor enters a mode keeps litnn's functions unwrapped (the protocol costs nothing)."
    code = "import litnn; print(litnn.overrides._ACTIVE, hasattr(litnn.add, '_dispatches_to'), hasattr(litnn.Tensor.add, '_dispatches_to'))"
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert p.stdout.split() == ['[]', 'False', 'False'], p.stderr[-2000:]


def test_real_torch_beside_litnn_declines_instead_of_recursing():
    """Real torch offers its calls to any argument with a `__torch_function__`; litnn's tensor declines PyTorch's own
    functions, so mixing the two libraries' tensors is torch's TypeError, not a RecursionError."""
    import litnn
    for f in (lambda: litnn.ones(2) + torch.ones(2), lambda: torch.ones(2) + litnn.ones(2), lambda: torch.add(torch.ones(2), litnn.ones(2)),
              lambda: torch.cat([torch.ones(1), litnn.ones(1)]), lambda: torch.ones(2).mul(litnn.ones(2))):
        with pytest.raises(TypeError): f()

_INTROSPECTION = textwrap.dedent('''
    import json, sys, inspect
    lib = sys.argv[1]
    torch = __import__(lib)
    O = torch.overrides
    O.get_overridable_functions()     # (litnn's functions take part once asked or once a subclass exists: fetched after)
    names = ['add', 'Tensor.add', 'Tensor.__add__', 'Tensor.sum', 'nn.functional.relu', 'nn.functional.linear', 'linalg.norm',
             'fft.fft', 'special.entr', 'Tensor.T.__get__', 'save', 'manual_seed', 'is_tensor', 'Tensor.mm',
             'nn.functional.softmax', 'linalg.solve', 'nn.init.normal_']
    out = {}
    for n in names:
        f = torch
        for part in n.split('.'): f = getattr(f, part)
        r = O.resolve_name(f)
        out[n] = [r and r.replace(lib, 'torch'), O.is_tensor_method_or_property(f), f in O.get_ignored_functions(),
                  any(f in v for v in O.get_overridable_functions().values())]
    t = O.get_testing_overrides()
    out['testing'] = [t[torch.add](torch.ones(1), 2), t[torch.Tensor.sum](torch.ones(2)), torch.add in t, torch.save in t]
    class Sub(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None): return ['seen', func.__name__]
    @O.wrap_torch_function(lambda a, b=None: (a, b))
    def first(a, b=None): return a
    out['wrap'] = [first(1, 2), first(torch.ones(1).as_subclass(Sub)), first(2, torch.ones(1).as_subclass(Sub)), first.__name__]
    out['nowrap'] = len(O.get_default_nowrap_functions()) > 0
    print(json.dumps(out))
''')

def test_overridable_and_ignored_functions_as_torch():
    "torch.overrides' introspection (resolve_name, is_tensor_method_or_property, get_ignored/overridable/testing, wrap_torch_function)"
    res = _side_by_side(_INTROSPECTION)
    assert res['litnn'] == res['torch']

_TENSOR_LIKE = textwrap.dedent('''
    import json, sys, functools
    lib = sys.argv[1]
    torch = __import__(lib)
    F = torch.nn.functional
    HANDLED = {}
    class ScalarTensor:          # torch's docs, "Extending torch with a Tensor-like type": not a Tensor subclass
        def __init__(self, N, value): self._N, self._value = N, value
        def tensor(self): return self._value * torch.eye(self._N)
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in HANDLED or not all(issubclass(t, (torch.Tensor, ScalarTensor)) for t in types): return NotImplemented
            return HANDLED[func](*args, **(kwargs or {}))
    def implements(torch_function):
        def decorator(func):
            functools.update_wrapper(func, torch_function)
            HANDLED[torch_function] = func
            return func
        return decorator
    @implements(torch.mean)
    def mean(input): return float(input._value) / input._N
    @implements(torch.add)
    def add(input, other):
        if isinstance(other, ScalarTensor): return ScalarTensor(input._N, input._value + other._value)
        return torch.add(input.tensor(), other)
    @implements(F.relu)
    def relu(input, inplace=False): return 'relu'
    @implements(torch.linalg.norm)
    def norm(input, *args, **kwargs): return 'norm'
    @implements(torch.cat)
    def cat(tensors, dim=0): return 'cat %d' % len(tensors)
    d = ScalarTensor(3, 2.)
    out = {}
    def run(k, f):
        try: r = f()
        except Exception as e: r = [type(e).__name__, str(e).replace(lib, 'torch').split(';')[0]]
        if isinstance(r, torch.Tensor): r = r.tolist()
        if isinstance(r, ScalarTensor): r = ['ScalarTensor', r._N, r._value]
        out[k] = r
    run('mean', lambda: torch.mean(d))
    run('add', lambda: torch.add(d, d))
    run('add_tensor', lambda: torch.add(d, torch.ones(3, 3)))
    run('relu', lambda: F.relu(d))
    run('norm', lambda: torch.linalg.norm(d))
    run('cat', lambda: torch.cat([torch.ones(1), d]))
    run('sin', lambda: torch.sin(d))
    run('mul', lambda: torch.mul(d, 2))
    run('method', lambda: torch.ones(2).add(d))
    run('gelu', lambda: F.gelu(d))
    run('real_tensor_plain', lambda: torch.add(torch.ones(2), 1))
    run('rms_norm', lambda: F.rms_norm(d, [3]))
    # operators: the call is handed over as the method torch names (Tensor.mul for `x * d` and `d * x`, Tensor.__rsub__ for
    # `d - x`), the tensor first, keywords None (C++) or {} (torch's Python operators); all declined: Python's TypeError
    NAMES = [('where', torch.where)] + [('Tensor.' + n, getattr(torch.Tensor, n)) for n in sorted(dir(torch.Tensor))] + [('F.' + n, getattr(F, n)) for n in sorted(dir(F))]
    class Seen:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return [next((n for n, o in NAMES if o is func), 'other'), [type(a).__name__ for a in args],
                    kwargs if kwargs is None else {k: type(v).__name__ for k, v in kwargs.items()}]
    import operator
    x, s = torch.ones(2), Seen()
    for op in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'matmul', 'and_', 'or_', 'xor', 'lshift', 'rshift',
               'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'iadd', 'isub', 'imul', 'itruediv', 'ifloordiv', 'imod', 'ipow', 'iand'):
        f = getattr(operator, op)
        run('op ' + op, lambda: f(x, s))
        if not op.startswith('i'): run('rop ' + op, lambda: f(s, x))
    run('op declined', lambda: torch.ones(2) * d)
    run('rop declined', lambda: d - torch.ones(2))
    run('op iadd declined', lambda: operator.iadd(torch.ones(2), d))
    run('relu kwargs', lambda: F.relu(s))
    run('rms_norm kwargs', lambda: F.rms_norm(s, [2]))
    run('rms_norm weight', lambda: F.rms_norm(x, [2], s))
    run('mul method', lambda: x.mul(s))
    run('mul function', lambda: torch.mul(x, s))
    run('where', lambda: torch.where(x > 0, x, s))
    print(json.dumps(out))
''')

def test_tensor_like_types_are_handed_calls_as_torch():
    "A type that is not a Tensor but defines __torch_function__ is handed torch's functions, with no Tensor subclass made"
    res = _side_by_side(_TENSOR_LIKE)
    assert {k: v for k, v in res['litnn'].items() if v != res['torch'].get(k)} == {}
    assert res['litnn'] == res['torch']

_REGISTRY_BEFORE_SUBCLASS = textwrap.dedent('''
    import json, sys
    lib = sys.argv[1]
    torch = __import__(lib)
    F = torch.nn.functional
    # a registry of handled functions filled before any Tensor subclass exists (litnn turns dispatch on with the first one)
    KEYS = {'mean': torch.mean, 'add': torch.add, 'cat': torch.cat, 'F.relu': F.relu, 'F.softmax': F.softmax, 'F.linear': F.linear,
            'F.rms_norm': F.rms_norm, 'linalg.norm': torch.linalg.norm, 'Tensor.add': torch.Tensor.add, 'Tensor.sum': torch.Tensor.sum,
            'Tensor.view': torch.Tensor.view, 'special.erf': torch.special.erf, 'fft.fft': torch.fft.fft}
    HANDLED = {f: n for n, f in KEYS.items()}
    class Logged(torch.Tensor):
        seen = []
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func in HANDLED: cls.seen.append(HANDLED[func])
            return super().__torch_function__(func, types, args, kwargs or {})
    x = torch.ones(2, 2).as_subclass(Logged)
    out = {'same': {n: getattr(torch, n.split('.')[0], None) is not None and eval('torch.' + n if not n.startswith('F.') else n) is f
                    for n, f in KEYS.items()}}
    r = [torch.mean(x), torch.add(x, 1), torch.cat([x, x]), F.relu(x), F.softmax(x, 0), F.linear(x, x), F.rms_norm(x, [2]),
         torch.linalg.norm(x), x.add(1), x.sum(), x.view(4), torch.special.erf(x), torch.fft.fft(x)]
    out['seen'] = Logged.seen
    out['types'] = [type(t).__name__ for t in r]
    print(json.dumps(out))
''')

def test_registry_filled_before_the_first_subclass_keeps_its_keys():
    """A registry keyed by torch's functions (torch.mean, F.relu, Tensor.add) before the first Tensor subclass: the published
    objects stay the same ones once litnn turns dispatch on, so the subclass's __torch_function__ finds them, as torch's"""
    res = _side_by_side(_REGISTRY_BEFORE_SUBCLASS)
    assert res['litnn'] == res['torch']

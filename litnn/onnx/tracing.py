"""placeholder"""
from ..backend import patch
import builtins, contextlib, numpy as np
from .. import backend as B
from ..tensor import Tensor, _arr
from ..backend import patch
from ..autograd.graph import _Mode, _NO_EDGE, _as_torch_error, _version, no_grad

# %%
class _Export:
    trace = None        # the Trace being recorded, while `litnn.onnx.export` runs

def is_in_onnx_export():
    "True while `litnn.onnx.export` traces a model's forward (as `torch.onnx.is_in_onnx_export`)."
    return _Export.trace is not None

# %%
class Value:
    "A tensor of the traced graph: a graph input, a parameter or buffer, a constant, or an operation's output."
    def __init__(self, name, kind, shape, dtype, data=None):
        self.name, self.kind, self.shape, self.dtype, self.data = name, kind, tuple(shape), np.dtype(dtype), data
    def __repr__(self): return f"%{self.name}{list(self.shape)}"

class TraceNode:
    "One recorded operation: what ran (`kind`, `fn`), on what (`args`, `kw`, tensors as Values), its ctx's attributes, its outputs, in which module."
    def __init__(self, kind, fn, args, kw, attrs, outputs, path):
        self.kind, self.fn, self.args, self.kw, self.attrs, self.outputs, self.path = kind, fn, args, kw, attrs, outputs, path
    def __repr__(self):
        ins, outs = _values_in((self.args, self.kw)), _values_in(self.outputs)
        return f"{', '.join(map(repr, outs))} = {self.kind}({', '.join(v.name for v in ins)})" + (f"  # {self.path}" if self.path else "")

def _values_in(x):
    "The Values inside a nested structure of tuples, lists and dicts, in order."
    if isinstance(x, Value): return [x]
    if isinstance(x, dict): x = list(x.values())
    if isinstance(x, (tuple, list)): return [v for e in x for v in _values_in(e)]
    return []

# %%
_CPU = B.device('cpu')

def _is_array(a): return isinstance(a, np.ndarray) or hasattr(a, '__cuda_array_interface__')

class Trace:
    "The graph recorded while a forward runs: Values by tensor (and array) identity, the nodes, the module stack."
    def __init__(self, named_tensors=()):
        self.nodes, self.consts, self.path = [], [], ['']
        self._tensors, self._arrays, self._alive = {}, {}, []
        for name, t in named_tensors:
            if id(t) not in self._tensors: self.add(t, Value(name, 'param', t._data.shape, t._data.dtype, t._data))

    def add(self, t, v):
        "Know tensor `t` as Value `v`, and its array too (some operations receive the bare array)."
        self._tensors[id(t)] = (v, t._vc, _version(t)); self._arrays[id(t._data)] = v
        self._alive.append(t)       # keeps the ids unique while the trace lives
        return v

    def where(self): return self.path[-1]

# %%
_IN_PLACE = ("litnn.onnx.export: tensor {} of the traced graph was changed in place, in module '{}', by an operation "
             "the trace does not record (an in-place method such as add_ or relu_, or an assignment into it): use the out-of-place form")

@patch
def value(self:Trace, x):
    "The Value of tensor or array `x`: the one the trace knows, else a new constant."
    if isinstance(x, Tensor):
        known = self._tensors.get(id(x))
        if known is not None:
            v, vc, version = known
            if x._vc is not vc: self._tensors[id(x)] = (v, x._vc, _version(x))   # a view, given its base's counter after it was made
            elif _version(x) != version: raise RuntimeError(_IN_PLACE.format(v.name, self.where()))
            return v
        x = x._data
    v = self._arrays.get(id(x))
    if v is None:
        v = Value(f"const_{len(self.consts)}", 'const', x.shape, x.dtype, np.array(B.to_device(x, _CPU)))
        self.consts.append((v, self.where())); self._arrays[id(x)] = v; self._alive.append(x)
    return v

@patch
def ref(self:Trace, x):
    "`x` (a nested structure) with its tensors and arrays as Values."
    if isinstance(x, Tensor) or _is_array(x): return self.value(x)
    if isinstance(x, (tuple, list)): return type(x)(self.ref(e) for e in x) if type(x) in (tuple, list) else x
    if isinstance(x, dict): return {k: self.ref(e) for k, e in x.items()}
    return x

@patch
def record(self:Trace, kind, fn, args, kw, attrs, out):
    "Record an operation `kind` that ran `fn` on `args`, `kw` and gave `out`; return `out`."
    node = TraceNode(kind, fn, self.ref(args), self.ref(kw), attrs, None, self.where())
    n, count = len(self.nodes), iter(range(1_000_000))
    def name(x):
        if isinstance(x, Tensor):
            i = next(count)
            return self.add(x, Value(f"{kind}_{n}" + (f".{i}" if i else ""), 'node', x._data.shape, x._data.dtype))
        if isinstance(x, (tuple, list)) and type(x) in (tuple, list): return type(x)(name(e) for e in x)
        if isinstance(x, dict): return {k: name(e) for k, e in x.items()}
        return x
    node.outputs = name(out)
    self.nodes.append(node)
    return out

# %%
def _traced_op(cls, args, kw):
    "What `Op.apply` calls while tracing: run op `cls` plainly (its inner operations are part of it) and record it."
    _Mode.trace = None
    try:
        ctx = object.__new__(cls); ctx.next_functions = (_NO_EDGE,) * len(args)
        try: out = cls.forward(ctx, *args, **kw)
        except ValueError as e: raise _as_torch_error(e, args) from None
        out = tuple(Tensor._make(_arr(o)) for o in out) if type(out) is tuple else Tensor._make(_arr(out))
        return _Export.trace.record(cls.__name__, cls, args, kw, dict(vars(ctx)), out)
    finally: _Mode.trace = _traced_op

# %%
def _traced_function(name, f):
    "`f`, recording itself as operation `name` while tracing: for the operations that do not go through `Op.apply` (comparisons)."
    def traced(*args, **kw):
        if _Mode.trace is None: return f(*args, **kw)     # inside an operation or a leaf module: part of it
        _Mode.trace = None
        try: out = f(*args, **kw)
        finally: _Mode.trace = _traced_op
        return out if out is NotImplemented else _Export.trace.record(name, f, args, kw, {}, out)
    return traced

_COMPARISONS = ('eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or', 'logical_xor', 'logical_not')

@contextlib.contextmanager
def _functions_traced():
    "While tracing, the comparisons (methods, operators and `litnn.` functions) record themselves."
    import litnn
    places = [(Tensor, n, n) for n in _COMPARISONS] + [(litnn, n, n) for n in _COMPARISONS]
    places += [(Tensor, f'__{n}__', n) for n in ('eq', 'ne', 'lt', 'le', 'gt', 'ge')]
    saved = [(o, a, n, o.__dict__[a]) for o, a, n in places]
    for o, a, n, f in saved: setattr(o, a, _traced_function(n, f))
    try: yield
    finally:
        for o, a, n, f in saved: setattr(o, a, f)

# %%
def _module_forward(trace, path, module, forward, leaf):
    "`forward` of the submodule at `path`, which keeps the trace's module stack; a leaf records itself as one node."
    def traced_forward(*args, **kw):
        trace.path.append(path)
        try:
            if not leaf: return forward(*args, **kw)
            _Mode.trace = None
            try: out = forward(*args, **kw)
            finally: _Mode.trace = _traced_op
            return trace.record(type(module).__name__, module, args, kw, {}, out)
        finally: trace.path.pop()
    return traced_forward

@contextlib.contextmanager
def _modules_traced(trace, model, leaves):
    "While tracing, every submodule's forward names its path (and those of a class in `leaves` are recorded whole)."
    mods = list(model.named_modules())
    for path, m in mods:
        object.__setattr__(m, 'forward', _module_forward(trace, path, m, m.forward, type(m).__name__ in leaves))
    try: yield
    finally:
        for _, m in mods: m.__dict__.pop('forward', None)

# %%
@contextlib.contextmanager
def _tracing(trace):
    "Every operation records itself in `trace` (whatever the grad mode) while inside."
    if _Export.trace is not None: raise RuntimeError("litnn.onnx.export: an export is already running (export does not nest)")
    _Export.trace, _Mode.trace = trace, _traced_op
    try:
        with no_grad(), _functions_traced(): yield trace
    finally: _Export.trace = _Mode.trace = None

# %%
def trace_module(model, args=(), kwargs=None, input_names=None, leaves=()):
    "Run `model(*args, **kwargs)` once in tracing mode: (the Trace, the inputs and the outputs as Values)."
    trace = Trace(model.state_dict(keep_vars=True).items())
    flat = [t for t in _tensors_in((args, kwargs or {}))]
    names = list(input_names or []) + [f"input_{i}" for i in range(len(input_names or []), len(flat))]
    for t, name in zip(flat, names):
        if id(t) not in trace._tensors: trace.add(t, Value(name, 'input', t._data.shape, t._data.dtype))
    with _tracing(trace), _modules_traced(trace, model, leaves): out = model(*args, **(kwargs or {}))
    return trace, trace.ref((args, kwargs or {})), trace.ref(out), out

def _tensors_in(x):
    "The tensors in a nested structure of tuples, lists and dicts, in order."
    if isinstance(x, Tensor): return [x]
    if isinstance(x, dict): x = list(x.values())
    if isinstance(x, (tuple, list)): return [t for e in x for t in _tensors_in(e)]
    return []

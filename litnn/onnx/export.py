"""placeholder"""
from ..backend import patch
import builtins, enum, io, os, numpy as np
from .. import backend as B
from ..tensor import Tensor
from ..autograd.graph import _op_name
from .tracing import Value, trace_module, _values_in, _tensors_in, _CPU
from .translate import _TRANSLATIONS, _bound, GraphBuilder, UnsupportedOperatorError

# %%
class TrainingMode(enum.IntEnum):
    "The mode a model is exported in (as `torch.onnx.TrainingMode`); litnn exports in EVAL."
    EVAL, PRESERVE, TRAINING = 0, 1, 2

_LEAVES = ('LSTM', 'GRU', 'RNN')      # modules translated whole (ONNX has their operators)
_MIN_OPSET = 18

def _onnx():
    "The `onnx` package, imported when an export needs it."
    try: import onnx
    except ImportError: raise ModuleNotFoundError("litnn.onnx.export needs the onnx package: pip install 'litnn[onnx]' (or pip install onnx)") from None
    return onnx

# %%
def _perturbed(args, dynamic):
    "Inputs for the second trace: float values changed, integers shifted within their range, each dynamic axis given a new size."
    def change(t, axes):
        a = B.to_device(t._data, _CPU)
        for axis, size in axes.items():
            a = np.take(a, np.arange(size) % a.shape[axis], axis=axis)
        if a.dtype.kind == 'f': a = a * np.float64(1.25).astype(a.dtype) + np.asarray(0.5, a.dtype)
        elif a.dtype.kind in 'iu' and a.size and a.min() >= 0: a = (a + 1) % (builtins.max(int(a.max()), 1) + 1)
        return Tensor._make(B.to_device(np.ascontiguousarray(a), t.device))
    flat = iter(range(10**9))
    def walk(x):
        if isinstance(x, Tensor): return change(x, dynamic.get(next(flat), {}))
        if type(x) in (tuple, list): return type(x)(walk(e) for e in x)
        if isinstance(x, dict): return {k: walk(e) for k, e in x.items()}
        return x
    return walk(args)

# %%
def _plain(x):
    "A node's arguments for comparison between two traces: Values by name, arrays by shape."
    if isinstance(x, Value): return x.name
    if type(x) in (tuple, list): return tuple(_plain(e) for e in x)
    if isinstance(x, dict): return {k: _plain(e) for k, e in x.items()}
    if isinstance(x, slice): return (x.start, x.stop, x.step)
    return x if isinstance(x, (int, float, str, bool, type(None), type(Ellipsis))) else type(x).__name__

_SIZED = {'ViewBackward0', 'UnsafeViewBackward0', 'ExpandBackward0', 'SliceBackward0', 'SelectBackward0', 'AliasBackward0', 'UnsqueezeBackward0', 'IndexBackward0', *_LEAVES}

def _pair(a, b):
    "Check that two traces of the same forward (on other inputs) record one graph; tie each node to its twin."
    where = lambda n: f"{n.kind} in module '{n.path}'"
    for na, nb in zip(a.nodes, b.nodes):
        if (na.kind, na.path) != (nb.kind, nb.path) or (na.kind not in _SIZED and _plain((na.args, na.kw)) != _plain((nb.args, nb.kw))):
            raise RuntimeError(f"litnn.onnx.export: the traced operations depend on the input's values or dynamic sizes ({where(na)} "
                               f"became {where(nb)} on other inputs): Python control flow or sizes the graph cannot follow")
        na.twin = nb
    if len(a.nodes) != len(b.nodes): raise RuntimeError("litnn.onnx.export: the number of traced operations depends on the input (Python control flow)")
    for (ca, where_a), (cb, _) in zip(a.consts, b.consts):
        if ca.data.shape != cb.data.shape or not np.array_equal(ca.data, cb.data, equal_nan=True):
            user = next((n for n in a.nodes if any(v is ca for v in _values_in((n.args, n.kw)))), None)
            raise RuntimeError(f"litnn.onnx.export: a tensor made outside the traced operations, used by {where(user) if user else 'the output'} "
                               f"(first seen in module '{where_a}'), changes with the input: an operation the trace cannot record "
                               "(a computation on .data or numpy, a creation function sized by the input, .item()) made it, and "
                               "the graph would hold it as a constant")

# %%
def _needed(nodes, outputs):
    "The nodes that the outputs depend on, in order (the rest of the trace, such as checks computed by the forward, is dropped)."
    need, keep = {id(v) for v in outputs}, []
    for n in reversed(nodes):
        if any(id(v) in need for v in _values_in(n.outputs)):
            keep.append(n); need.update(id(v) for v in _values_in((n.args, n.kw)))
    return keep[::-1], need

def _translate(g, node, model):
    "Write trace node `node` as ONNX nodes."
    f = _TRANSLATIONS.get(node.kind)
    if f is None:
        name = _op_name(node.fn) if isinstance(node.fn, type) else node.kind
        cls = type(model.get_submodule(node.path)).__name__
        raise UnsupportedOperatorError(f"litnn.onnx.export: operation '{name}' ({node.kind}), called in module '{node.path or '(the model)'}' "
                                       f"({cls}), has no ONNX translation")
    g.node = node
    names = f(g, **_bound(node))
    for v, name in zip(_values_in(node.outputs), [names] if isinstance(names, str) else names): g.names[v] = name

# %%
def _check_args(model, args, f, input_names, output_names, opset_version, dynamic_axes, onnx):
    "torch's errors for what export cannot take, before anything runs."
    if not hasattr(model, 'named_modules'): raise TypeError(f"litnn.onnx.export: model must be an nn.Module, not {type(model).__name__}")
    if not (isinstance(f, (str, os.PathLike)) or hasattr(f, 'write')): raise TypeError(f"litnn.onnx.export: f must be a file name or a binary stream, not {type(f).__name__}")
    top = onnx.defs.onnx_opset_version()
    if opset_version is not None and not (isinstance(opset_version, int) and _MIN_OPSET <= opset_version <= top):
        raise ValueError(f"litnn.onnx.export: opset_version {opset_version!r} is not supported: litnn exports opsets {_MIN_OPSET} to {top}")
    for what, names in (('input_names', input_names), ('output_names', output_names)):
        if names is not None and (isinstance(names, str) or not all(isinstance(n, str) for n in names)):
            raise TypeError(f"litnn.onnx.export: {what} must be a list of strings, got {names!r}")
    known = list(input_names or []) + list(output_names or [])
    for k, axes in (dynamic_axes or {}).items():
        if k not in known: raise ValueError(f"litnn.onnx.export: dynamic_axes names '{k}', which is not in input_names or output_names ({known})")
        if not isinstance(axes, (dict, list, tuple)) or not all(isinstance(a, int) for a in axes):
            raise TypeError(f"litnn.onnx.export: dynamic_axes['{k}'] must be a list of axes or a dict {{axis: name}}, got {axes!r}")

def _axes(dynamic_axes, name):
    "{axis: symbolic name} for tensor `name` (torch names unnamed ones '<name>_dynamic_axes_<i>')."
    axes = (dynamic_axes or {}).get(name, {})
    return dict(axes) if isinstance(axes, dict) else {a: f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}

def _split_args(args, kwargs):
    "export's `args`: a tensor, or a tuple whose last element may be a dict of keyword arguments."
    if isinstance(args, Tensor): args = (args,)
    args, kwargs = tuple(args), dict(kwargs or {})
    if args and isinstance(args[-1], dict): kwargs, args = {**args[-1], **kwargs}, args[:-1]
    return args, kwargs

# %%
def _traces(model, args, kwargs, input_names, dynamic_axes):
    "Trace the model in eval mode twice (the second time on changed inputs); its state is unchanged afterwards."
    flat = _tensors_in((args, kwargs))
    names = list(input_names or []) + [f"input_{i}" for i in range(len(input_names or []), len(flat))]
    axes = {i: _axes(dynamic_axes, n) for i, n in enumerate(names) if _axes(dynamic_axes, n)}
    sizes, new = {}, {}
    for i, ax in axes.items():          # one new size per symbolic name, all different, so each size tells its axis
        for a, sym in ax.items(): sizes.setdefault(sym, builtins.max(t._data.shape[k] for t in flat for k in range(t._data.ndim)) + 1 + len(sizes))
        new[i] = {a: sizes[ax[a]] for a in ax}
    mods = list(model.modules())
    before = [(m, dict(m.__dict__)) for m in mods]       # attributes the forward may set (a cached mask): the second trace starts as the first
    try:
        for m in mods: m.training = False
        ta = trace_module(model, args, kwargs, names, _LEAVES)
        after = [(m, dict(m.__dict__)) for m in mods]
        for m, d in before: m.__dict__.update(d)
        tb = trace_module(model, *_perturbed((args, kwargs), new), names, _LEAVES)
        for m, d in after: m.__dict__.clear(); m.__dict__.update(d)     # as after one forward, as torch's export leaves it
    finally:
        for m, d in before: m.training = d['training']
    _pair(ta[0], tb[0])
    ins_a, ins_b = _values_in(ta[1]), _values_in(tb[1])
    dims = {}
    for i, ax in axes.items():
        for a in ax: dims.setdefault((ins_a[i].shape[a], ins_b[i].shape[a]), (ins_a[i], a))
    return ta, tb, names, dims

# %%
def _value_info(onnx, name, v, other, axes):
    "The type of graph input or output `name`: symbolic where named in `axes`, or where the two traces disagree."
    shape = [axes.get(k, f"{name}_dim_{k}" if other is not None and s != other.shape[k] else s) for k, s in enumerate(v.shape)]
    return onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(v.dtype), shape)

# %%
def export(model, args=(), f=None, kwargs=None, export_params=True, verbose=False, input_names=None, output_names=None,
           opset_version=None, dynamic_axes=None, do_constant_folding=True, keep_initializers_as_inputs=False, dynamo=False):
    "Export `model` to ONNX file or binary stream `f`, by tracing its forward on `args` in eval mode (as `torch.onnx.export`)."
    onnx = _onnx()
    _check_args(model, args, f, input_names, output_names, opset_version, dynamic_axes, onnx)
    args, kwargs = _split_args(args, kwargs)
    (ta, ins, outs, _), (tb, _, outs_b, _), names, dims = _traces(model, args, kwargs, input_names, dynamic_axes)
    proto = _graph(onnx, model, ta, _values_in(ins), names, _values_in(outs), _values_in(outs_b), output_names, dims, dynamic_axes,
                   export_params, keep_initializers_as_inputs, opset_version or _MIN_OPSET)
    if verbose: print(onnx.helper.printable_graph(proto.graph))
    onnx.checker.check_model(proto)
    onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True)
    data = proto.SerializeToString()
    if hasattr(f, 'write'): f.write(data)
    else:
        with open(f, 'wb') as out: out.write(data)

# %%
def _graph(onnx, model, trace, ins, in_names, outs, outs_b, output_names, dims, dynamic_axes, export_params, keep_inits, opset):
    "The ONNX model of a trace: its needed nodes translated, parameters and buffers as initializers named by their state_dict keys."
    g = GraphBuilder(onnx, dims)
    inputs, seen = [], set()
    for v, name in zip(ins, in_names):
        if id(v) in seen or v.kind != 'input': continue
        seen.add(id(v)); g.names[v] = name
        inputs.append(_value_info(onnx, name, v, None, _axes(dynamic_axes, name)))
    nodes, need = _needed(trace.nodes, outs)
    inits = []
    params = {v.name: v for v, *_ in trace._tensors.values() if v.kind == 'param'}
    for v in params.values(): g.names[v] = v.name     # (the recurrent layers name their weights by key)
    for c, _ in trace.consts:
        if id(c) in need: g.names[c] = c.name; inits.append(onnx.numpy_helper.from_array(c.data, c.name))
    for n in nodes: _translate(g, n, model)
    used = {i for n in g.nodes for i in n.input}
    for name, v in params.items():
        if name not in used: continue
        if export_params: inits.append(onnx.numpy_helper.from_array(np.array(B.to_device(v.data, _CPU)), name))
        if not export_params or keep_inits: inputs.append(_value_info(onnx, name, v, None, {}))
    out_names = list(output_names or []) + [f"output_{i}" for i in range(len(output_names or []), len(outs))]
    for v, name in zip(outs, out_names): g.nodes.append(onnx.helper.make_node('Identity', [g.name(v)], [name], name=f"output/{name}"))
    outputs = [_value_info(onnx, name, v, vb, _axes(dynamic_axes, name)) for v, vb, name in zip(outs, outs_b, out_names)]
    graph = onnx.helper.make_graph(g.nodes, 'main_graph', inputs, outputs, inits + g.inits)
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid('', opset)], producer_name='litnn')

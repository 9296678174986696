"""placeholder"""
from ..backend import patch
import builtins, inspect, math, numpy as np
from .tracing import Value, _values_in

# %%
class UnsupportedOperatorError(RuntimeError):
    "An operation of the traced forward that the exporter cannot translate (as `torch.onnx.errors.UnsupportedOperatorError`)."

# %%
class GraphBuilder:
    "The ONNX nodes and initializers being written, and the helpers the translations share."
    def __init__(self, onnx, dims=None):
        self.onnx, self.nodes, self.inits, self.dims, self._n = onnx, [], [], dims or {}, 0
        self.names = {}       # Value -> the name of its ONNX tensor
        self.node = None      # the trace node being translated

    def fresh(self, hint):
        self._n += 1
        return f"{hint}_{self._n}"

    def op(self, op_type, inputs, n_out=1, **attrs):
        "Add ONNX node `op_type` on `inputs` (Values, names, or '' for an absent optional input); its output name(s)."
        path = '/' + self.node.path.replace('.', '/') if self.node is not None and self.node.path else ''
        outs = [self.fresh(f"{path}/{op_type}") for _ in range(n_out)]
        while inputs and isinstance(inputs[-1], str) and inputs[-1] == '': inputs = inputs[:-1]   # absent trailing optional inputs
        self.nodes.append(self.onnx.helper.make_node(op_type, [self.name(i) for i in inputs], outs, name=self.fresh(f"{path}/{op_type}"), **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, a, dtype=None, hint='const'):
        "An initializer holding `a` (an array or a number, as `dtype`)."
        a = np.asarray(a, dtype=dtype)
        name = self.fresh(hint)
        self.inits.append(self.onnx.numpy_helper.from_array(a, name))
        return name

    def name(self, x):
        "The ONNX name of `x`: a Value's tensor, or a name already."
        return self.names[x] if isinstance(x, Value) else x

# %%
@patch
def operand(self:GraphBuilder, x, dtype):
    "The ONNX name of operand `x`: a Value's tensor, or a number as a constant of `dtype`."
    return self.name(x) if isinstance(x, Value) else self.const(x, dtype, 'scalar')

@patch
def ints(self:GraphBuilder, get, reshape=False):
    "The int64 vector `get(node)` of the node being translated; entries that follow a dynamic axis are read from the input's shape."
    a, twin = [builtins.int(v) for v in get(self.node)], self.node.twin
    b = a if twin is None else [builtins.int(v) for v in get(twin)]
    if a == b: return self.const(a, np.int64, 'shape')
    unknown = [i for i, (x, y) in enumerate(zip(a, b)) if x != y and (x, y) not in self.dims]
    if reshape and len(unknown) == 1 and -1 not in a: a[unknown[0]] = b[unknown[0]] = -1   # a product of sizes: let Reshape infer it
    elif unknown:
        raise UnsupportedOperatorError(f"litnn.onnx.export: {self.node.kind} in module '{self.node.path}' uses sizes {a} computed in Python "
                                       f"from a dynamic axis (with another input size they are {b}); ONNX cannot express them")
    return self.op('Concat', [self.const([x], np.int64, 'size') if x == y else self.dim(x, y) for x, y in zip(a, b)], axis=0)

@patch
def dim(self:GraphBuilder, a, b):
    "A 1-element int64 tensor: the size of the dynamic axis that is `a` long in the trace and `b` in the second trace."
    value, axis = self.dims[(a, b)]
    return self.op('Shape', [value], start=axis, end=axis + 1)

# %%
_TRANSLATIONS = {}

def translates(*kinds):
    "Register a function `f(g, x, ...)` as the ONNX translation of the traced operations `kinds` (Op class names)."
    def register(f):
        for k in kinds: _TRANSLATIONS[k] = f
        return f
    return register

_SIGNATURES = {}

def _bound(node):
    "The arguments of a recorded operation by the names of its forward's parameters."
    fn = node.fn
    if hasattr(fn, 'named_modules'):            # a leaf module: its forward's parameters
        sig = inspect.signature(type(fn).forward)
        b = sig.bind(fn, *node.args, **node.kw)
        b.apply_defaults(); args = dict(b.arguments); args.pop('self', None)
        return args
    if isinstance(fn, type):
        sig = _SIGNATURES.get(fn) or _SIGNATURES.setdefault(fn, inspect.signature(fn.forward))
        b = sig.bind(None, *node.args, **node.kw)
    else:
        sig = _SIGNATURES.get(fn) or _SIGNATURES.setdefault(fn, inspect.signature(fn))
        b = sig.bind(*node.args, **node.kw)
    b.apply_defaults()
    args = dict(b.arguments)
    args.pop('ctx', None)
    for k, v in list(args.items()):      # **kw of the elementwise ops
        if sig.parameters[k].kind is inspect.Parameter.VAR_KEYWORD: args.update(args.pop(k))
    return args

# %%
def _out(node, i=0):
    "The i-th output Value of a node."
    return _values_in(node.outputs)[i]

_BINARY = dict(AddBackward0='Add', SubBackward0='Sub', MulBackward0='Mul', DivBackward0='Div')

@translates(*_BINARY)
def _binary(g, x, y, alpha=1):
    dt = _out(g.node).dtype
    a, b = g.operand(x, dt), g.operand(y, dt)
    if alpha != 1: b = g.op('Mul', [b, g.const(alpha, dt)])
    return g.op(_BINARY[g.node.kind], [a, b])

@translates('RsubBackward1')
def _rsub(g, x, other, alpha=1):
    dt = _out(g.node).dtype
    a = g.name(x) if alpha == 1 else g.op('Mul', [x, g.const(alpha, dt)])
    return g.op('Sub', [g.const(other, dt), a])

@translates('PowBackward0', 'PowBackward1')
def _pow(g, x, p):
    return g.op('Pow', [x, g.operand(p, _out(g.node).dtype)])

# %%
_UNARY = dict(ExpBackward0='Exp', LogBackward0='Log', SqrtBackward0='Sqrt', TanhBackward0='Tanh', SigmoidBackward0='Sigmoid',
              ReluBackward0='Relu', AbsBackward0='Abs', NegBackward0='Neg', SinBackward0='Sin', CosBackward0='Cos', ErfBackward0='Erf',
              ReciprocalBackward0='Reciprocal', FloorBackward0='Floor', CeilBackward0='Ceil', SignBackward0='Sign',
              CloneBackward0='Identity', SoftplusBackward0='Softplus')

@translates(*_UNARY)
def _unary(g, x, **kw):
    if g.node.kind == 'SoftplusBackward0' and kw.get('beta', 1) != 1:
        raise UnsupportedOperatorError(f"litnn.onnx.export: softplus with beta={kw['beta']} (module '{g.node.path}') has no ONNX translation")
    return g.op(_UNARY[g.node.kind], [x])

@translates('RsqrtBackward0')
def _rsqrt(g, x): return g.op('Reciprocal', [g.op('Sqrt', [x])])

@translates('SiluBackward0')
def _silu(g, x): return g.op('Mul', [x, g.op('Sigmoid', [x])])

@translates('LeakyReluBackward0')
def _leaky_relu(g, x, negative_slope=0.01): return g.op('LeakyRelu', [x], alpha=float(negative_slope))

@translates('EluBackward0')
def _elu(g, x, alpha=1.0, **kw): return g.op('Elu', [x], alpha=float(alpha))

@translates('HardtanhBackward0')
def _hardtanh(g, x, min_val=-1.0, max_val=1.0):
    dt = _out(g.node).dtype
    return g.op('Clip', [x, g.const(min_val, dt), g.const(max_val, dt)])

@translates('ClampBackward1')
def _clamp(g, x, min=None, max=None):
    dt = _out(g.node).dtype
    return g.op('Clip', [x, '' if min is None else g.operand(min, dt), '' if max is None else g.operand(max, dt)])

@translates('GeluBackward0')
def _gelu(g, x, approximate='none'):
    "x Φ(x) (or its tanh form), in the operators of every opset (`Gelu` came in opset 20)."
    dt = _out(g.node).dtype
    c = lambda v: g.const(v, dt)
    if approximate == 'tanh':
        inner = g.op('Mul', [c(math.sqrt(2 / math.pi)), g.op('Add', [x, g.op('Mul', [c(0.044715), g.op('Pow', [x, c(3.0)])])])])
        phi = g.op('Add', [c(1.0), g.op('Tanh', [inner])])
    else: phi = g.op('Add', [c(1.0), g.op('Erf', [g.op('Div', [x, c(math.sqrt(2))])])])
    return g.op('Mul', [g.op('Mul', [x, phi]), c(0.5)])

@translates('SoftmaxBackward0', 'LogSoftmaxBackward0')
def _softmax(g, x, dim): return g.op('Softmax' if g.node.kind == 'SoftmaxBackward0' else 'LogSoftmax', [x], axis=dim)

@translates('ToCopyBackward0')
def _cast(g, x, dtype=None, device=None):
    return g.op('Identity', [x]) if dtype is None else g.op('Cast', [x], to=g.onnx.helper.np_dtype_to_tensor_dtype(_out(g.node).dtype))

# %%
def _swap_last(g, x):
    "`x` with its last two axes swapped."
    n = len(x.shape)
    return g.op('Transpose', [x], perm=list(range(n - 2)) + [n - 1, n - 2])

@translates('AddmmBackward0')
def _addmm(g, input, mat1, mat2, beta=1, alpha=1, t1=False, t2=False):
    return g.op('Gemm', [mat1, mat2, input], alpha=float(alpha), beta=float(beta), transA=int(t1), transB=int(t2))

@translates('MmBackward0', 'BmmBackward0', 'UnsafeViewBackward0')
def _matmul(g, x, y=None, tx=False, ty=False, shape=None):
    if shape is not None: return _view(g, x, shape)     # linear's UnsafeViewBackward0 is a view (matmul's, a product)
    return g.op('MatMul', [_swap_last(g, x) if tx else x, _swap_last(g, y) if ty else y])

# %%
@translates('NativeLayerNormBackward0', 'NativeBatchNormBackward0', 'NativeGroupNormBackward0')
def _norm(g, x, weight, bias, dims, pdims, pshape, eps, stats=None, running=None):
    "Layer norm as `LayerNormalization`; batch norm with running statistics as `BatchNormalization`; else the formula."
    dt, n = x.dtype, len(x.shape)
    if g.node.kind == 'NativeLayerNormBackward0' and tuple(dims) == tuple(range(n - len(dims), n)):
        shape = x.shape[n - len(dims):]
        w = weight if weight is not None else g.const(np.ones(shape, dt), hint='ones')
        return g.op('LayerNormalization', [x, w, bias if bias is not None else g.const(np.zeros(shape, dt), hint='zeros')],
                    axis=n - len(dims), epsilon=float(eps))
    if stats is not None: mean, var = stats
    else:
        axes = g.const(list(dims), np.int64, 'axes')
        mean = g.op('ReduceMean', [x, axes], keepdims=1)
        var = g.op('ReduceMean', [g.op('Mul', [d := g.op('Sub', [x, mean]), d]), axes], keepdims=1)
    y = g.op('Div', [g.op('Sub', [x, mean]), g.op('Sqrt', [g.op('Add', [var, g.const(eps, dt)])])])
    shape = g.const(list(pshape), np.int64, 'shape')
    if weight is not None: y = g.op('Mul', [y, g.op('Reshape', [weight, shape])])
    if bias is not None: y = g.op('Add', [y, g.op('Reshape', [bias, shape])])
    return y

# %%
def _conv_attrs(geo, nd):
    "ONNX's kernel_shape, strides, pads, dilations of a convolution's geometry (1-d convolutions are stored as rows)."
    ksize, stride, pads, dilation, groups = geo.args
    k = slice(2 - nd, 2)
    return dict(kernel_shape=list(ksize)[k], strides=list(stride)[k], dilations=list(dilation)[k], group=groups,
                pads=[p[0] for p in pads][k] + [p[1] for p in pads][k])

@translates('ConvolutionBackward0')
def _conv(g, x, w, b, geo):
    return g.op('Conv', [x, w] + ([b] if b is not None else []), **_conv_attrs(geo, len(x.shape) - 2))

@translates('MaxPool2DWithIndicesBackward0')
def _max_pool(g, x, geo, return_indices=False):
    if return_indices: raise UnsupportedOperatorError(f"litnn.onnx.export: max_pool2d with return_indices=True (module '{g.node.path}') has no translation")
    (H, W, _, _, OH, OW), (KH, KW), (sh, sw), (ph, pw), (dh, dw) = geo.dims, geo.k, geo.s, geo.p, geo.d
    ceil = OH != (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1 or OW != (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    return g.op('MaxPool', [x], kernel_shape=[KH, KW], strides=[sh, sw], pads=[ph, pw, ph, pw], dilations=[dh, dw], ceil_mode=int(ceil))

# %%
_REDUCE = dict(SumBackward0='ReduceSum', SumBackward1='ReduceSum', MeanBackward0='ReduceMean', MeanBackward1='ReduceMean', AmaxBackward0='ReduceMax')

@translates(*_REDUCE)
def _reduce(g, x, dim=None, keepdim=False, dtype=None):
    if dim is None: dim = range(len(x.shape))
    if isinstance(dim, int): dim = (dim,)
    y = g.op(_REDUCE[g.node.kind], [x, g.const(list(dim), np.int64, 'axes')], keepdims=int(keepdim))
    out = _out(g.node)
    return y if out.dtype == x.dtype else g.op('Cast', [y], to=g.onnx.helper.np_dtype_to_tensor_dtype(out.dtype))

# %%
@translates('ViewBackward0')
def _view(g, x, shape): return g.op('Reshape', [x, g.ints(lambda n: _bound(n)['shape'], reshape=True)])

@translates('ExpandBackward0')
def _expand(g, x, shape): return g.op('Expand', [x, g.ints(lambda n: _bound(n)['shape'])])

@translates('TransposeBackward0')
def _transpose(g, x, dim0, dim1):
    perm = list(range(len(x.shape)))
    perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
    return g.op('Transpose', [x], perm=perm)

@translates('PermuteBackward0')
def _permute(g, x, dims): return g.op('Transpose', [x], perm=[d % len(x.shape) for d in dims])

@translates('SplitBackward0', 'SplitWithSizesBackward0')
def _split(g, x, sizes, dim): return g.op('Split', [x, g.const(list(sizes), np.int64, 'sizes')], n_out=len(sizes), axis=dim)

@translates('UnbindBackward0')
def _unbind(g, x, dim):
    n, axes = x.shape[dim], g.const([dim], np.int64, 'axes')
    parts = g.op('Split', [x, g.const([1] * n, np.int64, 'sizes')], n_out=n, axis=dim)
    return [g.op('Squeeze', [p, axes]) for p in (parts if n > 1 else [parts])]

@translates('CatBackward0')
def _cat(g, xs, dim): return g.op('Concat', [x for x in xs if x.shape != (0,)] or xs[:1], axis=dim)

@translates('StackBackward0')
def _stack(g, xs, dim):
    axes = g.const([dim], np.int64, 'axes')
    return g.op('Concat', [g.op('Unsqueeze', [x, axes]) for x in xs], axis=dim)

# %%
_BIG = np.iinfo(np.int64).max

def _plain_key(key, ndim):
    "Index `key` with its Ellipsis spelled out as full slices (so every item but None consumes one axis)."
    key = list(key)
    used = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    i = key.index(Ellipsis) if Ellipsis in key else len(key)
    return key[:i] + [slice(None)] * (ndim - used) + key[i + 1:]

def _slices(node, ndim):
    "(axes, starts, ends, steps) of the slices in a node's index key."
    axes, starts, ends, steps, axis = [], [], [], [], 0
    for k in _plain_key(_bound(node)['key'], ndim):
        if k is None: continue
        if isinstance(k, slice) and k != slice(None):
            axes.append(axis); starts.append(k.start or 0); steps.append(k.step or 1)
            ends.append(_BIG if k.stop is None else k.stop)
        axis += 1
    return axes, starts, ends, steps

@translates('SliceBackward0', 'SelectBackward0', 'AliasBackward0', 'UnsqueezeBackward0', 'IndexBackward0')
def _index(g, x, key):
    "x[key] for a key of ints, slices, None, Ellipsis and at most one index tensor: Slice, then Gather right to left, then Unsqueeze."
    if type(key) is not tuple: raise UnsupportedOperatorError(f"litnn.onnx.export: indexing with an int and index tensors together (module '{g.node.path}') has no translation")
    n, key = len(x.shape), _plain_key(key, len(x.shape))
    if builtins.sum(isinstance(k, Value) for k in key) > 1 or any(isinstance(k, Value) and k.dtype == bool for k in key):
        raise UnsupportedOperatorError(f"litnn.onnx.export: indexing with several index tensors or a boolean mask (module '{g.node.path}') has no translation")
    axes, *_ = _slices(g.node, n)
    y = g.name(x)
    if axes: y = g.op('Slice', [y] + [g.ints(lambda nd, i=i: _slices(nd, n)[i]) for i in (1, 2, 0, 3)])
    items = [k for k in key if k is not None]
    for axis in reversed(range(len(items))):
        k = items[axis]
        if isinstance(k, int): y = g.op('Gather', [y, g.const(k, np.int64, 'index')], axis=axis)
        elif isinstance(k, Value): y = g.op('Gather', [y, k if k.dtype == np.int64 else g.op('Cast', [k], to=7)], axis=axis)
    new, p = [], 0
    for k in key:
        if k is None: new.append(p)
        p += 0 if isinstance(k, int) else len(k.shape) if isinstance(k, Value) else 1
    return g.op('Unsqueeze', [y, g.const(new, np.int64, 'axes')]) if new else y if y != g.name(x) else g.op('Identity', [x])

@translates('EmbeddingBackward0')
def _embedding(g, weight, indices, padding_idx=None, scale_grad_by_freq=False): return g.op('Gather', [weight, indices], axis=0)

# %%
@translates('MaskedFillBackward0', 'MaskedFillBackward1')
def _masked_fill(g, x, value, mask): return g.op('Where', [mask, g.operand(value, x.dtype), x])

@translates('WhereBackward0')
def _where(g, cond, x, y):
    dt = _out(g.node).dtype
    return g.op('Where', [cond, g.operand(x, dt), g.operand(y, dt)])

@translates('TrilBackward0', 'TriuBackward0')
def _tril(g, x, diagonal, upper=False): return g.op('Trilu', [x, g.const(diagonal, np.int64, 'k')], upper=int(upper))

_COMPARE = dict(eq='Equal', ne='Equal', lt='Less', le='LessOrEqual', gt='Greater', ge='GreaterOrEqual',
                logical_and='And', logical_or='Or', logical_xor='Xor', logical_not='Not')

@translates(*_COMPARE)
def _compare(g, *args, **kw):
    "A comparison or logical operation: its operands in their common dtype (logical ones as bool)."
    ops = [a for a in list(args) + list(kw.values())][:2]
    if g.node.kind.startswith('logical'): dt = np.dtype(bool)
    else: dt = np.result_type(*[o.dtype if isinstance(o, Value) else type(o)(0) for o in ops]) if all(isinstance(o, Value) for o in ops) else \
         next(o.dtype for o in ops if isinstance(o, Value))
    if not g.node.kind.startswith('logical') and any(isinstance(o, float) for o in ops) and dt.kind != 'f': dt = np.dtype(np.float32)
    names = [g.op('Cast', [o], to=g.onnx.helper.np_dtype_to_tensor_dtype(dt)) if isinstance(o, Value) and o.dtype != dt else g.operand(o, dt) for o in ops]
    y = g.op(_COMPARE[g.node.kind], names)
    return g.op('Not', [y]) if g.node.kind == 'ne' else y

# %%
@translates('ScaledDotProductAttentionBackward0')
def _sdpa(g, q, k, v, mask, causal, scale, dropout_p):
    "softmax(q kᵀ scale + mask) v; the causal mask is built from the shapes at run time (so the sequence may be a dynamic axis)."
    dt = q.dtype
    s = g.op('Mul', [g.op('MatMul', [q, _swap_last(g, k)]), g.const(scale, dt)])
    ninf = g.const(-np.inf, dt)
    if causal:
        L = g.op('Shape', [q], start=-2, end=-1); S = g.op('Shape', [k], start=-2, end=-1)
        ones = g.op('ConstantOfShape', [g.op('Concat', [L, S], axis=0)], value=g.onnx.helper.make_tensor('one', 9, [1], [1]))
        s = g.op('Where', [g.op('Trilu', [ones], upper=0), s, ninf])
    if mask is not None: s = g.op('Where', [mask, s, ninf]) if mask.dtype == bool else g.op('Add', [s, mask])
    return g.op('MatMul', [g.op('Softmax', [s], axis=-1), v])

# %%
_GATES = dict(LSTM=(4, [0, 3, 1, 2]), GRU=(3, [1, 0, 2]), RNN=(1, [0]))   # torch's gate order (i f g o, r z n) in ONNX's (i o f c, z r h)

def _gates(g, w, kind):
    "Weight or bias `w` (gates stacked along axis 0 in torch's order) in ONNX's gate order."
    n, order = _GATES[kind]
    if n == 1: return g.name(w)
    parts = g.op('Split', [w], n_out=n, axis=0, num_outputs=n)
    return g.op('Concat', [parts[i] for i in order], axis=0)

def _recurrent(g, rnn, input, hx=None):
    "nn.LSTM, nn.GRU or nn.RNN as ONNX's LSTM, GRU or RNN operator, one per layer; weights from the state_dict's initializers."
    kind = type(rnn).__name__
    if getattr(rnn, 'proj_size', 0): raise UnsupportedOperatorError(f"litnn.onnx.export: LSTM with proj_size (module '{g.node.path}') has no translation")
    if not isinstance(input, Value) or len(input.shape) != 3:
        raise UnsupportedOperatorError(f"litnn.onnx.export: {kind} (module '{g.node.path}') is translated for batched 3-d tensor input only (not packed or unbatched)")
    D, H, L, p = 2 if rnn.bidirectional else 1, rnn.hidden_size, rnn.num_layers, g.node.path + '.' if g.node.path else ''
    x = g.op('Transpose', [input], perm=[1, 0, 2]) if rnn.batch_first else g.name(input)
    states = [] if hx is None else list(hx) if kind == 'LSTM' else [hx]
    ax0, finals = g.const([0], np.int64, 'axes'), []
    for layer in range(L):
        ws, rs, bs = [], [], []
        for d in range(D):
            sfx = f"_l{layer}" + ('_reverse' if d else '')
            ws.append(_gates(g, f"{p}weight_ih{sfx}", kind)); rs.append(_gates(g, f"{p}weight_hh{sfx}", kind))
            if rnn.bias: bs.append(g.op('Concat', [_gates(g, f"{p}bias_ih{sfx}", kind), _gates(g, f"{p}bias_hh{sfx}", kind)], axis=0))
        stack = lambda vs: g.op('Concat', [g.op('Unsqueeze', [v, ax0]) for v in vs], axis=0)
        ins = [x, stack(ws), stack(rs), stack(bs) if bs else '', '']
        ins += [g.op('Slice', [s, g.const([layer * D], np.int64), g.const([layer * D + D], np.int64), ax0]) for s in states]
        attrs = dict(hidden_size=H, direction='bidirectional' if D == 2 else 'forward')
        if kind == 'GRU': attrs['linear_before_reset'] = 1
        if kind == 'RNN': attrs['activations'] = ['Tanh' if rnn.nonlinearity == 'tanh' else 'Relu'] * D
        outs = g.op(kind, ins, n_out=3 if kind == 'LSTM' else 2, **attrs)
        y = g.op('Transpose', [outs[0]], perm=[0, 2, 1, 3])                    # (seq, dirs, batch, H) -> (seq, batch, dirs, H)
        x = g.op('Reshape', [y, g.const([0, 0, D * H], np.int64, 'shape')])
        finals.append(outs[1:])
    out = g.op('Transpose', [x], perm=[1, 0, 2]) if rnn.batch_first else x
    h = [g.op('Concat', [f[i] for f in finals], axis=0) for i in range(len(finals[0]))]
    return [out] + h

translates('LSTM', 'GRU', 'RNN')(lambda g, input, hx=None: _recurrent(g, g.node.fn, input, hx))

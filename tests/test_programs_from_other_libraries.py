"""What programs from other libraries (ODE solvers, normalizing flows, optimizer collections, reinforcement learning,
metrics) rely on, compared with torch on the same inputs: each test is the small core of a difference one of them met."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip("torch")

def _outcome(f):
    "What calling `f` gives: its value, or the exception's type name and message."
    try: return f()
    except Exception as e: return (type(e).__name__, str(e).replace('torch', 'litnn'))

# --- .grad after backward(create_graph=True) is a copy, never a view (torch-optimizer's Adahessian: grad.detach_()) ----

def _create_graph_grads(lib):
    warnings.simplefilter('ignore')
    lib.manual_seed(0)
    x = lib.arange(12.).reshape(3, 4).requires_grad_(); b = lib.linspace(-1, 1, 4).requires_grad_()
    (x ** 3 * b).sum().backward(create_graph=True)
    out = [(g.grad_fn.name(), g._is_view(), g.stride(), g.requires_grad) for g in (x.grad, b.grad)]
    out.append(_outcome(lambda: b.grad.detach_().tolist()))       # Adahessian's exp_avg.add_(grad.detach_())
    (x ** 2).sum().backward(create_graph=True)                    # a second backward adds out of place
    out.append((x.grad.grad_fn.name(), x.grad.tolist()))
    w = lib.ones(4, 3).t().requires_grad_()                       # a transposed leaf: its grad follows its strides
    (w * lib.arange(12.).reshape(3, 4)).sum().backward(create_graph=True)
    out.append((w.grad.stride(), w.grad.tolist(), w.grad.grad_fn))
    e = lib.ones(3, requires_grad=True)
    (e.expand(2, 3) * b[:3]).sum().backward(create_graph=True)   # a broadcast gradient: summed, then copied
    out.append((e.grad._is_view(), e.grad.grad_fn.name(), e.grad.tolist()))
    return out

def test_create_graph_grad_is_a_copy():
    assert _create_graph_grads(litnn) == _create_graph_grads(torch)

def test_adahessian_style_step():
    "Hutchinson Hessian estimate from grads made with create_graph, then grad.detach_() in the update, as Adahessian."
    res = []
    for lib in (torch, litnn):
        warnings.simplefilter('ignore')
        w = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32), requires_grad=True)
        bias = lib.tensor([0.1, -0.2, 0.3], requires_grad=True)
        x = lib.tensor(np.cos(np.arange(20.)).reshape(5, 4).astype(np.float32))
        loss = ((x @ w.t() + bias).tanh() ** 2).sum()
        loss.backward(create_graph=True)
        z = [lib.tensor(np.sign(np.sin(np.arange(p.numel()) + 1.)).reshape(p.shape).astype(np.float32)) for p in (w, bias)]
        hz = lib.autograd.grad([w.grad, bias.grad], [w, bias], grad_outputs=z)
        g = [p.grad.detach_() for p in (w, bias)]
        res.append([t.numpy().copy() for t in (*hz, *g)] + [w.grad.requires_grad, w.grad.grad_fn is None])
    for a, b in zip(*res):
        if isinstance(a, np.ndarray): np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
        else: assert a == b

# --- fx: torch.functional's Python functions and torch._assert are recorded as torch records them (e3nn's codegen) ------

def _functional_records(lib):
    import importlib
    fx = importlib.import_module(lib.__name__ + '.fx')
    calls = [lambda a, b: lib.einsum('ij,jk->ik', [a, b]), lambda a, b: lib.functional.einsum('ij,jk->ik', (a, b)),
             lambda a, b: lib.functional.einsum('ij,jk->ik', a, b), lambda a, b: lib.functional.meshgrid(a, b),
             lambda a, b: lib.meshgrid([a, b], indexing='ij'), lambda a, b: lib.functional.broadcast_tensors(a, b),
             lambda a, b: lib.functional.block_diag(a, b), lambda a, b: lib.functional.cartesian_prod(a, b),
             lambda a, b: lib.functional.chain_matmul(a, b), lambda a, b: lib.functional.atleast_2d(a)]
    out = []
    for call in calls:
        g = fx.Graph(); tr = fx.proxy.GraphAppendingTracer(g)
        a, b = fx.Proxy(g.placeholder('a'), tr), fx.Proxy(g.placeholder('b'), tr)
        call(a, b)
        out.append([(n.target.__name__, str(n.args), n.kwargs) for n in g.nodes if n.op == 'call_function'])
    return out

def test_fx_records_torch_functional_calls():
    assert _functional_records(litnn) == _functional_records(torch)

def _traced_assert(lib):
    import importlib
    fx = importlib.import_module(lib.__name__ + '.fx')
    class M(lib.nn.Module):
        def forward(self, x):
            lib._assert(x.shape[-1] == 3, "invalid input shape")
            return x * 2
    gm = fx.symbolic_trace(M())
    gm.graph.eliminate_dead_code(); gm.recompile()
    return ([n.name for n in gm.graph.nodes], [n.is_impure() for n in gm.graph.nodes], gm(lib.ones(1, 3)).tolist(),
            _outcome(lambda: gm(lib.ones(1, 4))))

def test_fx_traces_and_keeps_assert():
    assert _traced_assert(litnn) == _traced_assert(torch)

def test_e3nn_style_codegen_einsum():
    "A graph built from proxies with einsum in the old list form, then run through an Interpreter, as opt_einsum_fx does."
    res = []
    for lib in (torch, litnn):
        import importlib
        fx = importlib.import_module(lib.__name__ + '.fx')
        g = fx.Graph(); tr = fx.proxy.GraphAppendingTracer(g)
        a, b = fx.Proxy(g.placeholder('a'), tr), fx.Proxy(g.placeholder('b'), tr)
        out = lib.einsum('zi,zj->zij', [a, b]).reshape(-1, 12) / 2
        g.output(out.node)
        gm = fx.GraphModule({}, g, 'tp')
        x = lib.tensor(np.arange(8.).reshape(2, 4)); y = lib.tensor(np.arange(6.).reshape(2, 3))
        shapes = []
        class Shapes(fx.Interpreter):
            def run_node(self, n):
                if n.op == 'call_function' and 'einsum' in n.target.__name__: shapes.append([tuple(op.shape) for op in self.map_nodes_to_values(n.args[1:], n)])
                return super().run_node(n)
        res.append((Shapes(gm).run(x, y).tolist(), shapes))
    assert res[0] == res[1]

# --- the deprecated linalg names warn once, as torch's TORCH_WARN_ONCE (nflows' LULinear calls torch.triangular_solve) ---

_DEPRECATED_CALLS = """
import sys, warnings
lib = __import__(sys.argv[1])
A = lib.eye(3) * 2 + lib.ones(3, 3).triu(); S = A @ A.mT; B = lib.ones(3, 2)
calls = [('triangular_solve', lambda: lib.triangular_solve(B, A)), ('Tensor.triangular_solve', lambda: B.triangular_solve(A)),
         ('cholesky', lambda: lib.cholesky(S)), ('Tensor.cholesky', lambda: S.cholesky()), ('qr', lambda: lib.qr(A)),
         ('Tensor.qr', lambda: A.qr()), ('lu_solve', lambda: lib.lu_solve(B, *lib.linalg.lu_factor(A))),
         ('chain_matmul', lambda: lib.chain_matmul(A, A)), ('svd', lambda: lib.svd(A))]
for name, f in calls:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); f(); f()
    print(name, [(str(x.message).split(' (Triggered')[0].replace('litnn', 'torch'), x.filename == __file__) for x in w])
"""

def test_deprecated_linalg_warn_once(tmp_path):
    import subprocess, sys, os
    script = tmp_path / 'calls.py'; script.write_text(_DEPRECATED_CALLS)
    out = [subprocess.run([sys.executable, str(script), lib], capture_output=True, text=True, check=True,
                          env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)}).stdout for lib in ('torch', 'litnn')]
    assert out[1] == out[0]

# --- torch.futures.Future is Generic: captum annotates `-> torch.futures.Future[Tensor]`, evaluated at import ------------

def _future_generic(lib):
    from typing import Generic
    F = lib.futures.Future
    def annotated() -> F[lib.Tensor]: return F()
    fut = annotated(); fut.set_result(3)
    return (issubclass(F, Generic), len(F.__parameters__), F[int].__origin__ is F, isinstance(fut, lib.Future),
            fut.wait(), 'T' in getattr(lib.futures, '__all__', ()))

def test_future_is_generic():
    assert _future_generic(litnn) == _future_generic(torch)

# --- torch._C._is_tracing: asteroid's filterbanks ask it outside any trace --------------------------------------------

def test_is_tracing_probe():
    assert litnn._C._is_tracing() is torch._C._is_tracing() is False
    with pytest.raises(TypeError): torch._C._is_tracing(1)
    with pytest.raises(TypeError): litnn._C._is_tracing(1)

# --- a subclass's own __new__ returning a made tensor is not built again (pyro's ProvenanceTensor: data.as_subclass(cls)) ---

def _subclass_new(lib):
    class Tracked(lib.Tensor):
        def __new__(cls, data, provenance=frozenset()):
            if not provenance: return data
            ret = data.as_subclass(cls); ret._provenance = provenance; return ret
    class Made(lib.Tensor):
        def __new__(cls, data, tag): return lib.Tensor._make_subclass(cls, data, True)
    class Plain(lib.Tensor): pass
    a = lib.tensor([1., 2.], requires_grad=True); b = a * 2
    t = Tracked(b, frozenset({'k'}))
    out = [(type(t).__name__, t.grad_fn is not None, t.requires_grad, t.tolist(), sorted(t._provenance))]
    (t * 3).sum().backward(); out.append(a.grad.tolist())
    z = lib.ones(3); m = Made(z[1:], 'x')
    out.append((type(m).__name__, m.requires_grad, m.is_leaf, m._is_view(), list(m.shape), m.data_ptr() == z[1:].data_ptr()))
    z.add_(1); out.append((m.tolist(), m._version))                    # memory and version counter shared
    out.append([_outcome(lambda: tuple(lib.Tensor._make_subclass(*a).shape)) for a in
                [(Plain, [1.]), (Plain, z, 1), (int, z), (Plain, lib.ones(2, dtype=lib.long), True), (Plain, b)]])
    out.append((list(Plain(2, 3).shape), Plain([1., 2.]).tolist(), type(Plain([1.])).__name__))
    out.append(_outcome(lambda: type(lib.nn.Parameter(lib.ones(2))).__name__))
    p = lib.nn.Parameter(lib.ones(2)); out.append((p._cdata == p._cdata, p._cdata != p.data._cdata, type(p._cdata).__name__))
    return out

def test_subclass_new_and_make_subclass():
    assert _subclass_new(litnn) == _subclass_new(torch)

def test_causal_bias_is_made_as_torch_makes_it():
    from litnn.nn.attention.bias import causal_lower_right
    from torch.nn.attention.bias import causal_lower_right as t_clr
    assert list(causal_lower_right(3, 5).shape) == list(t_clr(3, 5).shape)     # Tensor.__new__(cls, variant, 3, 5): sizes

# --- torch.distributions is Python in torch: each call inside a log_prob is handed to a subclass (pyro's provenance) ---

def _dist_dispatch(lib):
    D = lib.distributions
    class Logging(lib.Tensor):
        calls = []
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)
    k = lib.tensor([3., 1.]).as_subclass(Logging)
    out = [type(f()).__name__ for f in (
        lambda: D.Poisson(lib.tensor(3.)).log_prob(k), lambda: D.Beta(k, lib.tensor(2.)).entropy(),
        lambda: D.Bernoulli(logits=k).log_prob(lib.tensor([1., 0.])), lambda: D.Dirichlet(k).log_prob(lib.tensor([0.3, 0.7])),
        lambda: D.Gamma(lib.tensor(2.), lib.tensor(1.)).log_prob(k), lambda: D.Normal(k, 1.).log_prob(lib.tensor(0.)))]
    Logging.calls = []
    D.Poisson(lib.tensor(3.), validate_args=False).log_prob(k)
    out.append(Logging.calls)
    Logging.calls = []
    x = lib.tensor([1., 2.]).as_subclass(Logging)
    x == 1; (x > 0) & (x > 1); (x > 0) | (x > 1); ~(x > 0); 1 - x; x // 2
    out.append(Logging.calls)          # an operator is handed over under its own name
    return out

def test_distributions_hand_inner_calls_to_subclasses():
    assert _dist_dispatch(litnn) == _dist_dispatch(torch)

# --- Hugging Face transformers imports torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex at start-up ---

def _getitem_to_index(lib):
    import importlib
    M = importlib.import_module(lib.__name__ + '._dynamo._trace_wrapped_higher_order_op')
    x = lib.arange(12.).reshape(3, 4).requires_grad_()
    with M.TransformGetItemToIndex():
        a, b, c = x[lib.tensor(1)], x[1, 2], x[lib.tensor(2), 1]
        v = lib.vmap(lambda i, j: x[i, j])(lib.arange(3), lib.tensor([0, 3, 1]))
        m = lib.vmap(lib.vmap(lambda i, j: (i >= j) & (x[i, j] > 3), in_dims=(None, 0)), in_dims=(0, None))(lib.arange(3), lib.arange(4))
    (a.sum() + b + c + v.sum()).backward()
    return [a.tolist(), a._base is None, b.tolist(), c.tolist(), v.tolist(), m.tolist(), x.grad.tolist(), x[lib.tensor(1)]._base is x,
            M.TransformGetItemToIndex.__mro__[1].__name__]

def test_transform_getitem_to_index():
    assert _getitem_to_index(litnn) == _getitem_to_index(torch)

def _module_dispatch(lib):
    class Tag(lib.Tensor): pass
    lib.manual_seed(0); k = lib.randn(2, 3, 4).as_subclass(Tag)
    return [type(m(k)).__name__ for m in (lib.nn.Mish(), lib.nn.ConvTranspose1d(3, 2, 2), lib.nn.Softplus(), lib.nn.Linear(4, 2), lib.nn.LayerNorm(4))]

def test_nn_modules_hand_their_functional_calls_to_subclasses():
    assert _module_dispatch(litnn) == _module_dispatch(torch)

# --- Lightning imports torch.distributed.constants, torch._C._TensorMeta, torch.PyTorchFileReader and
# torch.utils._pytree's type aliases (PyTree, Context...) at start-up: without them `import lightning` failed ---

def _lightning_imports(lib):
    import importlib, io
    c = importlib.import_module(lib.__name__ + '.distributed.constants')
    p = importlib.import_module(lib.__name__ + '.utils._pytree')
    b = io.BytesIO(); torch.save({'w': torch.arange(3.)}, b); b.seek(0)   # one file, written by torch, read by both
    r = lib.PyTorchFileReader(b)
    try: r.get_record('nope'); missing = None
    except RuntimeError as e: missing = str(e).split(':')[0]
    return [c.default_pg_timeout, c.default_pg_timeout is lib.distributed.default_pg_timeout, sorted(c.__all__),
            isinstance(lib.Tensor, lib._C._TensorMeta), isinstance(lib.nn.Parameter, lib._C._TensorMeta), lib.PyTorchFileReader is lib._C.PyTorchFileReader,
            r.get_all_records(), r.has_record('data.pkl'), r.has_record('archive/data.pkl'), r.get_record('data/0'), r.get_record_size('data/0'),
            r.serialization_id(), missing, p.PyTree, p.Context, p.DumpableContext,
            [n for n in ('PyTree', 'Context', 'FlattenFn', 'UnflattenFn', 'DumpableContext', 'ToDumpableContextFn', 'FromDumpableContextFn') if n in p.__all__]]

def test_names_lightning_imports():
    assert _lightning_imports(litnn) == _lightning_imports(torch)

# --- torch.utils.flop_counter: Lightning's ModelSummary and measure_flops count with FlopCounterMode --------------------

def _flop_counts(lib):
    import importlib
    fc = importlib.import_module(lib.__name__ + '.utils.flop_counter')
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    class Block(nn.Module):             # a GPT-style block: qkv, attention, projection, MLP
        def __init__(s, d=16, h=2):
            super().__init__(); s.h = h
            s.ln1, s.qkv, s.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
            s.ln2, s.mlp = nn.LayerNorm(d), nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        def forward(s, x):
            B, T, C = x.shape
            q, k, v = [t.view(B, T, s.h, C // s.h).transpose(1, 2) for t in s.qkv(s.ln1(x)).split(C, dim=2)]
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + s.proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + s.mlp(s.ln2(x))
    cases = [(nn.Linear(8, 16), (4, 8)), (nn.Linear(8, 16), (2, 3, 8)), (nn.Linear(8, 16, bias=False), (4, 8)),
             (nn.Conv2d(3, 4, 3, padding=1), (2, 3, 8, 8)), (nn.Conv2d(4, 6, 3, stride=2, groups=2), (2, 4, 9, 9)),
             (nn.Conv1d(3, 5, 3), (2, 3, 10)), (nn.ConvTranspose2d(3, 4, 3, stride=2), (2, 3, 5, 5)),
             (nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Sequential(nn.Linear(16, 4))), (4, 8)), (Block(), (2, 5, 16)),
             (nn.MultiheadAttention(8, 2, batch_first=True), (2, 5, 8)), (nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True), (2, 5, 8))]
    out = []
    for m, shape in cases:
        for bw, xg in ((False, False), (True, False), (True, True)):
            x = lib.randn(*shape, requires_grad=xg)
            with fc.FlopCounterMode(display=False) as c:
                y = m(x, x, x)[0] if isinstance(m, nn.MultiheadAttention) else m(x)
                if bw: y.sum().backward()
            out.append((type(m).__name__, bw, xg, c.get_total_flops(),
                        sorted((k, sorted((str(o), n) for o, n in v.items())) for k, v in c.get_flop_counts().items())))
    ops = []
    for sa, sb, g in [((4,), (4, 5), True), ((2, 3, 4), (4, 5), False), ((4,), (2, 4, 5), False), ((3, 4), (2, 4, 5), True),
                      ((3, 4), (2, 4, 5), False), ((2, 1, 3, 4), (5, 4, 6), True), ((3, 4), (4,), True)]:
        a, b = lib.randn(*sa, requires_grad=g), lib.randn(*sb, requires_grad=g)
        with fc.FlopCounterMode(display=False) as c:
            y = a @ b
            if g: y.sum().backward()
        ops.append((sa, sb, g, {str(k): v for k, v in c.get_flop_counts().get('Global', {}).items()}))
    a, b = lib.randn(3, 4, requires_grad=True), lib.randn(4, 5, requires_grad=True)
    q = lib.randn(2, 2, 5, 8, requires_grad=True)
    with fc.FlopCounterMode(display=False) as c:
        lib.einsum('ij,jk->ik', a, b).sum().backward(); lib.addmm(lib.randn(5), a, b, beta=0.5).sum().backward()
        lib.bmm(a[None], b[None]); lib.baddbmm(lib.randn(1, 3, 5), a[None], b[None]); a.t().t().matmul(b)
        F.scaled_dot_product_attention(q, q, q).sum().backward(); F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
        F.scaled_dot_product_attention(q[0], q[0], q[0]).sum().backward()
        F.conv_transpose1d(lib.randn(2, 2, 6), lib.randn(2, 3, 3), stride=2, padding=1, output_padding=1)
        lib.nn.Conv3d(2, 3, 2)(lib.randn(1, 2, 4, 4, 4)).sum().backward()
    ops.append({str(k): v for k, v in c.get_flop_counts()['Global'].items()})
    shapes = (fc.mm_flop((3, 4), (4, 5)), fc.bmm_flop((2, 3, 4), (2, 4, 5)), fc.addmm_flop((5,), (3, 4), (4, 5)),
              fc.conv_flop_count([2, 3, 8, 8], [4, 3, 3, 3], [2, 4, 6, 6]), fc.conv_flop_count([2, 3, 5, 5], [3, 4, 3, 3], [2, 4, 11, 11], True),
              fc.sdpa_flop_count((2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 6)),
              fc.sdpa_backward_flop_count((2, 4, 5, 6), (2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 6)),
              fc.get_suffix_str(123456), fc.convert_num_with_suffix(123456, 'K'), fc.convert_to_percent_str(1, 3), fc.__all__,
              sorted(str(k) for k in fc.flop_registry if str(k).startswith('aten.')))
    errs = (_outcome(lambda: fc.register_flop_formula(lib.ops.aten.mm)(lambda *a, **k: 0)),
            _outcome(lambda: fc.register_flop_formula('mm')(lambda *a, **k: 0)))
    return out, ops, shapes, errs

def test_flop_counter_counts_as_torch():
    "FlopCounterMode's counts by module and operator, forward and forward+backward, the shape formulas and the table's units."
    got, want = _flop_counts(litnn), _flop_counts(torch)
    for g, w in zip(got[0], want[0]): assert g == w
    assert got[1:] == want[1:]

def test_flop_counter_table_as_torch(capsys):
    "display=True prints torch's table (tabulate), to `depth` levels; an empty count prints its Global row."
    pytest.importorskip("tabulate")
    import importlib
    out = []
    for lib in (litnn, torch):
        fc = importlib.import_module(lib.__name__ + '.utils.flop_counter')
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Sequential(lib.nn.Linear(16, 4)))
        with fc.FlopCounterMode(depth=1) as c: m(lib.randn(4, 8)).sum().backward()
        with fc.FlopCounterMode() as e: pass
        out.append((capsys.readouterr().out, c.get_table(), c.get_table(depth=None), e.get_table()))
    assert out[0] == out[1]

def _lightning_trainer_names(lib):
    "torch.ScriptModule (Lightning's annotations), autograd.profiler.emit_nvtx/emit_itt (its profiler), _C._nn._parse_to (its .to())."
    p = lib._C._nn._parse_to
    out = [lib.ScriptModule is lib._C.ScriptModule, lib.ScriptModule.__mro__[1] is lib.ScriptObject, lib.ScriptMethod is lib._C.ScriptMethod,
           _outcome(lambda: lib.ScriptObject()), type(_outcome(lambda: lib.ScriptModule()))]
    for a, k in [((), {}), (('cpu',), {}), ((lib.float64,), {}), (('cpu', lib.float16), {}), ((lib.ones(2, dtype=lib.int32),), {}),
                 ((), {'device': 'cpu', 'dtype': lib.float32, 'non_blocking': True}), ((lib.device('cpu'), lib.float32, True), {}),
                 ((), {'memory_format': lib.channels_last}), ((), {'copy': True})]:
        out.append(_outcome(lambda: tuple(str(v).replace('torch', 'litnn') for v in p(*a, **k))))
    with lib.autograd.profiler.emit_itt() as e: out.append(type(e).__name__)
    with lib.autograd.profiler.emit_nvtx(enabled=False) as e: out.append(e)
    out.append(_outcome(lambda: lib.autograd.profiler.emit_nvtx().__enter__())[0] if not lib.cuda.is_available() else None)
    return out

def test_names_lightning_trainer_needs():
    assert _lightning_trainer_names(litnn) == _lightning_trainer_names(torch)

def _fsdp1_path(lib):
    "accelerate's unwrap_model imports FullyShardedDataParallel from torch.distributed.fsdp.fully_sharded_data_parallel."
    import importlib
    m = importlib.import_module(lib.__name__ + '.distributed.fsdp.fully_sharded_data_parallel')
    fsdp = importlib.import_module(lib.__name__ + '.distributed.fsdp')
    return (m.FullyShardedDataParallel is fsdp.FullyShardedDataParallel, m.OptimStateKeyType is fsdp.OptimStateKeyType,
            [k.name for k in m.OptimStateKeyType], sorted(m.__all__), 'FullyShardedDataParallel' in fsdp.__all__,
            m.FullyShardedDataParallel.__module__.replace('torch', 'litnn'))

def test_fsdp1_at_torchs_path():
    assert _fsdp1_path(litnn) == _fsdp1_path(torch)

# --- what torchvision 0.28 reads from torch at import, past its operator registrations (register_fake("torchvision::nms")
# needs its compiled ops, which litnn cannot load: as torch without them, that raises) -----------------------------------

def _torchvision_import_names(lib):
    import importlib
    C = lib._C
    ks = C.DispatchKeySet(C.DispatchKey.AutocastCPU) | C.DispatchKeySet(C.DispatchKey.AutocastCUDA) | C.DispatchKeySet(C.DispatchKey.AutocastXPU)
    with C._ExcludeDispatchKeyGuard(ks): pass
    out = [repr(ks), ks.has(C.DispatchKey.AutocastCUDA), ks.has(C.DispatchKey.CPU), repr(C.DispatchKey.AutocastCPU),
           str(C.DispatchKey.CPU), int(C.DispatchKey.Meta), len(C.DispatchKey.__members__),
           repr(C.DispatchKeySet(C.DispatchKey.CPU) - C.DispatchKeySet(C.DispatchKey.CPU))]
    co = importlib.import_module(lib.__name__ + '._custom_ops')
    out.append(sorted(n for n in ('impl_abstract', 'get_ctx') if hasattr(co, n)))
    sh = importlib.import_module(lib.__name__ + '.onnx.symbolic_helper')
    importlib.import_module(lib.__name__ + '.onnx.symbolic_opset11')
    @sh.parse_args("v", "v", "f")
    def nms(g, boxes, scores, iou_threshold): return 1
    out.append(nms.__name__)
    du = importlib.import_module(lib.__name__ + '._dynamo.utils')
    out.append((du.is_compile_supported('cpu'), du.is_compile_supported('meta')))
    q = importlib.import_module(lib.__name__ + '.ao.quantization')
    w = q.QuantWrapper(lib.nn.Linear(2, 1)); w.eval()
    x = lib.ones(1, 2)
    out += [repr(w).replace('torch', 'litnn'), w.training, w(x).tolist() == w.module(x).tolist(), q.QuantStub.__module__.replace('torch', 'litnn'),
            repr(q.DeQuantStub())]
    mz = importlib.import_module(lib.__name__ + '.utils.model_zoo')
    out.append(mz.tqdm is importlib.import_module(lib.__name__ + '.hub').tqdm)
    with mz.tqdm(total=4, disable=True) as bar: bar.update(2)
    return out

def test_torchvision_import_names():
    assert _torchvision_import_names(litnn) == _torchvision_import_names(torch)


def test_fsdp_api_and_wrap_policies_as_torch():
    "diffusers' EMAModel imports CPUOffload, ShardingStrategy and fsdp.wrap's policies at import: torch's names, members, fields and answers."
    import dataclasses, enum, functools
    import torch.distributed.fsdp as tf, torch.distributed.fsdp.wrap as tw
    import litnn.distributed.fsdp as lf, litnn.distributed.fsdp.wrap as lw
    for name in tf.api.__all__:
        t, l = getattr(tf, name), getattr(lf, name)
        if isinstance(t, type) and issubclass(t, enum.Enum): assert [(m.name, m.value) for m in l] == [(m.name, m.value) for m in t], name
        else:
            tf_fields = [(f.name, f.default if f.default is not dataclasses.MISSING else None) for f in dataclasses.fields(t)]
            lf_fields = [(f.name, f.default if f.default is not dataclasses.MISSING else None) for f in dataclasses.fields(l)]
            assert [n for n, _ in lf_fields] == [n for n, _ in tf_fields], name
            assert [d for n, d in lf_fields if not n.startswith('_')] == [d for n, d in tf_fields if not n.startswith('_')], name
    answers = []
    for lib, W in ((litnn, lw), (torch, tw)):
        class Block(lib.nn.Module):
            def __init__(self): super().__init__(); self.l = lib.nn.Linear(4, 4)
        class Wrapped(lib.nn.Module):
            def __init__(self, m, **kw): super().__init__(); self.m, self.kw = m, kw
        net = lib.nn.Sequential(Block(), Block(), lib.nn.Linear(4, 2), lib.nn.ModuleList([lib.nn.Linear(2, 2)]))
        policies = [functools.partial(W.transformer_auto_wrap_policy, transformer_layer_cls={Block}), W.always_wrap_policy,
                    functools.partial(W.size_based_auto_wrap_policy, min_num_params=20), W.ModuleWrapPolicy({Block}),
                    functools.partial(W.lambda_auto_wrap_policy, lambda_fn=lambda m: isinstance(m, lib.nn.Linear))]
        row = []
        for p in policies:
            m = lib.nn.Sequential(Block(), Block(), lib.nn.Linear(4, 2), lib.nn.ModuleList([lib.nn.Linear(2, 2)]))
            m, n = W._recursive_wrap(m, p, Wrapped, set(), set(), only_wrap_children=True)
            row.append((n, [type(c).__name__ for c in m.modules()]))
        with W.enable_wrap(wrapper_cls=Wrapped, flag=1): w = W.wrap(Block(), extra=2)
        row.append((type(w).__name__, w.kw, W.wrap(net) is net, len(W.CustomPolicy(lambda m: isinstance(m, Block))._run_policy(net, set(), {}))))
        answers.append(row)
    assert answers[0] == answers[1]

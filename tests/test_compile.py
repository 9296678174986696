"""`litnn.compile` by capture and replay (nbs/37_compile): replays equal eager runs to the bit (results, gradients,
optimizer state), guards recapture, graph breaks fall back to eager and `explain` reports them, `reset`,
`Module.compile`, and torch's CUDA-graph API on a machine without CUDA."""
import warnings
import numpy as np
import pytest
import litnn
from litnn import nn
from litnn._dynamo import eval_frame as ef

torch = pytest.importorskip('torch')

F = nn.functional


def bits(t): return t.detach().numpy().copy()

def same_bits(a, b): return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8))

def programs(c):
    "The programs a compiled function (or OptimizedModule) keeps."
    c = getattr(c, '_compiled', c)
    return [p for ps in c.cache.values() for p in ps]

@pytest.fixture(autouse=True)
def _fresh():
    litnn._dynamo.reset()
    yield
    ef._HOST_GRAPHS = False


# ---------------------------------------------------------------------------------------------- equal to eager
def test_function_replays_bit_equal_on_new_inputs():
    def f(x, w, b): return ((x @ w.t() + b).tanh() * 1.5 - x.sum(1, keepdim=True)).sigmoid().mean(0)
    cf = litnn.compile(f)
    rng = np.random.default_rng(0)
    w, b = litnn.tensor(rng.standard_normal((5, 4)).astype(np.float32)), litnn.tensor(rng.standard_normal(5).astype(np.float32))
    for i in range(4):
        x = litnn.tensor(rng.standard_normal((3, 4)).astype(np.float32))
        assert same_bits(bits(cf(x, w, b)), bits(f(x, w, b)))
    assert len(programs(cf)) == 1 and programs(cf)[0].steps is not None


def test_forward_and_backward_of_a_function_bit_equal():
    def f(x, w):
        loss = (x @ w).relu().pow(2).sum()
        loss.backward()
        return loss
    rng = np.random.default_rng(1)
    cf = litnn.compile(f)
    for _ in range(3):
        xa = rng.standard_normal((4, 3)).astype(np.float32); wa = rng.standard_normal((3, 2)).astype(np.float32)
        x1, w1 = litnn.tensor(xa, requires_grad=True), litnn.tensor(wa, requires_grad=True)
        x2, w2 = litnn.tensor(xa, requires_grad=True), litnn.tensor(wa, requires_grad=True)
        assert same_bits(bits(f(x1, w1)), bits(cf(x2, w2)))
        assert same_bits(bits(x1.grad), bits(x2.grad)) and same_bits(bits(w1.grad), bits(w2.grad))
    assert not programs(cf)[0].graph      # the backward ran inside: no graph to build at replay


def make_mlp(seed, opt_name, **kw):
    litnn.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 3))
    opt = getattr(litnn.optim, opt_name)(model.parameters(), **kw)
    def step(x, y):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return model, opt, step

@pytest.mark.parametrize('opt_name,kw', [('SGD', dict(lr=0.1, momentum=0.9, weight_decay=1e-3)), ('AdamW', dict(lr=1e-2)),
                                         ('Adam', dict(lr=1e-2, amsgrad=True))])
def test_mlp_training_step_bit_equal_over_steps(opt_name, kw):
    (m1, o1, s1), (m2, o2, s2) = make_mlp(0, opt_name, **kw), make_mlp(0, opt_name, **kw)
    cs = litnn.compile(s2)
    rng = np.random.default_rng(0)
    for i in range(6):
        x = litnn.tensor(rng.standard_normal((8, 6)).astype(np.float32)); y = litnn.tensor(rng.integers(0, 3, 8))
        litnn.manual_seed(100 + i); a = s1(x, y)        # dropout draws the same numbers in both runs
        litnn.manual_seed(100 + i); b = cs(x, y)
        assert same_bits(bits(a), bits(b)), i
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert same_bits(bits(p), bits(q)) and p.grad is None and q.grad is None
    for p, q in zip(m1.parameters(), m2.parameters()):
        for k, v in o1.state[p].items():
            assert same_bits(bits(v), bits(o2.state[q][k])) if isinstance(v, litnn.Tensor) else v == o2.state[q][k]
    (prog,) = programs(cs)
    assert prog.steps is not None and not prog.graph and prog.lowered is not None


def test_mlp_step_matches_torch():
    "The compiled step computes what torch's eager step computes (to float32 tolerance)."
    def make(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        return m
    tm, lm = make(torch), make(litnn)
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    def step_for(lib, m):
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        def step(x, y):
            loss = lib.nn.functional.mse_loss(m(x), y); loss.backward(); opt.step(); opt.zero_grad(); return loss
        return step
    ts, ls = step_for(torch, tm), litnn.compile(step_for(litnn, lm))
    rng = np.random.default_rng(0)
    for _ in range(4):
        x, y = rng.standard_normal((5, 6)).astype(np.float32), rng.standard_normal((5, 2)).astype(np.float32)
        np.testing.assert_allclose(ls(litnn.tensor(x), litnn.tensor(y)).item(), ts(torch.tensor(x), torch.tensor(y)).item(), rtol=1e-5)
    for p, q in zip(lm.parameters(), tm.parameters()): np.testing.assert_allclose(bits(p), q.detach().numpy(), rtol=1e-5, atol=1e-6)


DROP = 0.1
def build_gpt(n_embd=16, n_head=2, block=8, vocab=11, n_layer=2):
    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(n_embd), Attn(), nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(DROP))
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))
    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block, n_embd)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f, self.lm_head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab, bias=False)
            self.wte.weight = self.lm_head.weight
        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(litnn.arange(idx.size(1)))
            for b in self.h: x = b(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    return GPT

def make_gpt_step():
    "The small GPT from seed 0, its AdamW and one training step: (model, optimizer, step)."
    litnn.manual_seed(0)
    model = build_gpt()()
    opt = litnn.optim.AdamW(model.parameters(), lr=1e-3)
    def step(idx, targets):
        loss = model(idx, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return model, opt, step

def test_gpt_step_bit_equal():
    (m1, o1, s1), (m2, o2, s2) = make_gpt_step(), make_gpt_step()
    cs = litnn.compile(s2)
    rng = np.random.default_rng(0)
    for i in range(4):
        idx, tg = litnn.tensor(rng.integers(0, 11, (3, 8))), litnn.tensor(rng.integers(0, 11, (3, 8)))
        litnn.manual_seed(i); a = s1(idx, tg)
        litnn.manual_seed(i); b = cs(idx, tg)
        assert same_bits(bits(a), bits(b)), i
    for (n, p), q in zip(m1.named_parameters(), m2.parameters()): assert same_bits(bits(p), bits(q)), n
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert same_bits(bits(o1.state[p]['exp_avg']), bits(o2.state[q]['exp_avg']))
    (prog,) = programs(cs)
    assert prog.steps is not None and not prog.graph and prog.lowered is not None


def test_compiled_module_forward_backward_outside():
    "A compiled module's output carries a fresh graph per call: the caller's backward gives eager's gradients."
    litnn.manual_seed(0); m1 = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 1))
    litnn.manual_seed(0); m2 = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 1))
    cm = litnn.compile(m2)
    rng = np.random.default_rng(0)
    xs = [litnn.tensor(rng.standard_normal((3, 4)).astype(np.float32)) for _ in range(3)]
    outs1, outs2 = [m1(x).sum() for x in xs], [cm(x).sum() for x in xs]    # three graphs alive at once
    for a, b in zip(outs1[::-1], outs2[::-1]): a.backward(); b.backward()
    for p, q in zip(m1.parameters(), m2.parameters()): assert same_bits(bits(p.grad), bits(q.grad))
    assert programs(cm)[0].graph


def test_inplace_updates_by_hand_and_grad_none():
    "`p -= lr * p.grad` and `p.grad = None` (bench/mlp_step.py's update) are steps of the program."
    def make():
        litnn.manual_seed(0)
        w = litnn.randn(4, 3, requires_grad=True)
        def step(x):
            loss = (x @ w).square().mean()
            w.grad = None
            loss.backward()
            with litnn.no_grad():
                for p in (w,): p -= 0.1 * p.grad
            return loss
        return w, step
    (w1, s1), (w2, s2) = make(), make()
    cs = litnn.compile(s2)
    for i in range(4):
        x = litnn.full((2, 4), float(i + 1))
        assert same_bits(bits(s1(x)), bits(cs(x)))
    assert same_bits(bits(w1), bits(w2)) and same_bits(bits(w1.grad), bits(w2.grad))


def test_detach_is_an_alias_step():
    def f(x): return x.exp().detach() * x
    cf = litnn.compile(f)
    for v in (1., 2., 3.):
        x = litnn.full((2,), v)
        assert same_bits(bits(cf(x)), bits(f(x)))


# ---------------------------------------------------------------------------------------------- guards
def test_guards_recapture():
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    cm = litnn.compile(m)
    count = lambda: cm._compiled.count
    x = litnn.ones(2, 3)
    cm(x); cm(x); assert count() == 1
    cm(litnn.ones(4, 3)); assert count() == 2                                  # shape
    cm(litnn.ones(4, 3, dtype=litnn.float64).float()); assert count() == 2     # same key again
    m.double(); cm(litnn.ones(4, 3, dtype=litnn.float64)); assert count() == 3  # dtype (inputs and parameters)
    m.float()
    m.eval(); out = cm(x); assert count() == 4                                 # training mode
    assert litnn.equal(out, m(x))                                              # eval: no dropout
    cm(litnn.ones(2, 3, requires_grad=True)); assert count() == 5              # requires_grad
    with litnn.no_grad(): cm(x)
    assert count() == 6                                                        # grad mode
    m[1].p = 0.0; cm(x); assert count() == 7                                   # a module's Python attribute
    m[0].weight = nn.Parameter(litnn.zeros(3, 3)); cm(x); assert count() == 8  # a parameter replaced
    assert litnn.equal(cm(x), m(x))


def test_python_values_guarded():
    scale = 2.0
    def f(x): return x * scale
    cf = litnn.compile(f)
    x = litnn.ones(2)
    assert cf(x).tolist() == [2., 2.] and cf(x).tolist() == [2., 2.]
    scale = 3.0
    assert cf(x).tolist() == [3., 3.] and cf._compiled.count == 2
    g = litnn.compile(lambda x, n: x * n)
    assert g(x, 2).tolist() == [2., 2.] and g(x, 5).tolist() == [5., 5.] and g._compiled.count == 2


def test_recompile_limit_falls_back_to_eager():
    cf = litnn.compile(lambda x: x + 1)
    old = litnn._dynamo.config.cache_size_limit
    litnn._dynamo.config.cache_size_limit = 2
    try:
        assert litnn._dynamo.config.recompile_limit == 2
        cf(litnn.ones(1)); cf(litnn.ones(2))
        with pytest.warns(UserWarning, match='recompile_limit'): out = cf(litnn.ones(3))
        assert out.tolist() == [2., 2., 2.] and cf._compiled.count == 2
    finally: litnn._dynamo.config.recompile_limit = old


# ---------------------------------------------------------------------------------------------- graph breaks
@pytest.mark.parametrize('body,reason', [
    (lambda x: x * x.sum().item(), 'item'), (lambda x: x * len(x.tolist()), 'tolist'),
    (lambda x: x + 1 if x.sum() > 0 else x - 1, 'bool'), (lambda x: x * float(x[0]), 'float'),
    (lambda x: litnn.tensor(x.numpy() * 2), 'numpy'), (lambda x: (print(x), x * 2)[1], 'print')])
def test_graph_breaks_fall_back_to_eager(body, reason, capsys):
    cf = litnn.compile(body)
    for v in (1., -2., 3.):
        x = litnn.full((3,), v)
        litnn.manual_seed(0); a = body(x)
        litnn.manual_seed(0); b = cf(x)
        assert litnn.equal(a, b)
    (prog,) = programs(cf)
    assert prog.steps is None and reason in prog.breaks[0].reason.lower().replace('tensor.', '').replace('(', ' ')
    out = litnn._dynamo.explain(body)(litnn.ones(3))
    assert out.graph_break_count == 1 and len(out.break_reasons) == 1


F_CASES = {
    'cross_entropy ignore_index': lambda x, y, w: F.cross_entropy(x @ w, y, ignore_index=0),
    'cross_entropy weight': lambda x, y, w: F.cross_entropy(x @ w, y, weight=litnn.tensor([1., 2., 0.5])),
    'masked_fill by a comparison': lambda x, y, w: (x @ w).masked_fill(y[:, None] == 1, 0.).sum(),
    'advanced index': lambda x, y, w: (x @ w)[litnn.arange(5), y].sum(),
    'where': lambda x, y, w: litnn.where(x > 0, x, 0.).sum(),
    'boolean mask': lambda x, y, w: x[x > 0].sum(),
    'randn in the function': lambda x, y, w: (x + litnn.randn(5, 4)).sum(),
    'setitem': lambda x, y, w: (lambda z: (z.__setitem__(y == 1, 0.), z.sum())[1])(x.clone()),
    'one_hot': lambda x, y, w: (F.one_hot(y, 3).float() * (x @ w)).sum(),
}

@pytest.mark.parametrize('name', list(F_CASES))
def test_tensors_made_outside_operations_are_replayed(name):
    "Comparisons, factories, index arrays computed in numpy: made again at each replay, never frozen."
    f = F_CASES[name]
    cf = litnn.compile(f)
    rng = np.random.default_rng(0)
    w = litnn.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    for i in range(4):
        x = litnn.tensor(rng.standard_normal((5, 4)).astype(np.float32)); y = litnn.tensor(rng.integers(0, 3, 5))
        litnn.manual_seed(i); a = f(x, y, w)
        litnn.manual_seed(i); b = cf(x, y, w)
        assert same_bits(bits(a), bits(b)), i


def test_explain_output_as_torchs():
    def g(x):
        y = x * 2
        if y.sum() > 0: y = y + 1
        return y.sin()
    lo, to = litnn._dynamo.explain(g)(litnn.ones(3)), torch._dynamo.explain(g)(torch.ones(3))
    assert (lo.graph_count, lo.graph_break_count, len(lo.break_reasons)) == (to.graph_count, to.graph_break_count, len(to.break_reasons)) == (2, 1, 1)
    assert type(lo).__name__ == type(to).__name__ == 'ExplainOutput'
    assert str(lo).startswith('Graph Count: 2\nGraph Break Count: 1\n') and str(to).startswith('Graph Count: 2\nGraph Break Count: 1\n')
    clean = litnn._dynamo.explain(lambda x: (x * 2).sin())(litnn.ones(3))
    assert (clean.graph_count, clean.graph_break_count, clean.op_count) == (1, 0, 2)


FULLGRAPH_READS = {      # torch 2.13's fullgraph=True: numbers read from data are symbols in its graph, numpy is traced
    'item': (lambda T: lambda x: x * x.sum().item(), None), 'float': (lambda T: lambda x: x * float(x.sum()), None),
    'int': (lambda T: lambda x: x + int(x.sum()), None), 'numpy': (lambda T: lambda x: T.from_numpy(x.numpy() * 2), None),
    'format': (lambda T: lambda x: (f'{x.sum():.2f}', x + 1)[1], None),
    'item as a size': (lambda T: lambda x: T.zeros(int(x.sum().item())), None),
    # ... and what it refuses: Python control flow on data, printing, numpy outside torch's tracing, tolist of floats
    'bool': (lambda T: lambda x: x + 1 if x.sum() > 0 else x - 1, 'Unsupported'),
    'print': (lambda T: lambda x: (print('hi'), x + 1)[1], 'Unsupported'),
    'repr': (lambda T: lambda x: (repr(x), x + 1)[1], 'Unsupported'),
    'tolist': (lambda T: lambda x: x + sum(x.tolist()), 'Unsupported'),
}

@pytest.mark.parametrize('case', list(FULLGRAPH_READS))
def test_fullgraph_captures_the_reads_torch_captures_and_refuses_the_rest(case, capsys):
    make, err = FULLGRAPH_READS[case]
    def run(T):
        cf = T.compile(make(T), fullgraph=True)
        try: return [cf(T.ones(3) * k).tolist() for k in (1, 2, 2)]       # (the third call: a replay, or eager again)
        except RuntimeError as e: return type(e).__name__
    assert run(litnn) == run(torch)
    assert (run(litnn) == err) if err else isinstance(run(litnn), list)
    assert issubclass(litnn._dynamo.exc.Unsupported, RuntimeError) and issubclass(torch._dynamo.exc.Unsupported, RuntimeError)


def test_backward_hook_breaks():
    w = litnn.ones(2, requires_grad=True)
    w.register_hook(lambda g: g * 2)
    def f(x):
        (w * x).sum().backward()
        return w.grad
    out = litnn._dynamo.explain(f)(litnn.ones(2))
    assert out.graph_break_count >= 1 and 'hook' in out.break_reasons[0].reason


def test_disable_and_is_compiling():
    seen = []
    @litnn.compiler.disable
    def eager_part(x):
        seen.append(litnn.compiler.is_compiling())
        return x * 2
    def f(x):
        seen.append(litnn.compiler.is_compiling())
        return eager_part(x + 1)
    cf = litnn.compile(f)
    assert cf(litnn.ones(2)).tolist() == [4., 4.]
    assert seen == [True, False]
    assert programs(cf)[0].steps is None                      # the disabled call is a graph break: eager
    assert litnn.compile(eager_part) is eager_part and not litnn.compiler.is_compiling()


def test_dynamo_disable_is_compiler_disable_like_torch():
    "torch._dynamo.disable: the older name of torch.compiler.disable, as a call or a decorator; the function runs as before."
    import torch
    for L in (torch, litnn):
        calls = []
        def g(x): calls.append(1); return x + 1
        assert L._dynamo.disable(g)(L.ones(2)).tolist() == [2., 2.]
        assert L._dynamo.disable(reason='eager')(g)(L.ones(1)).tolist() == [2.]
        assert len(calls) == 2
    seen = []
    def f(x):
        return litnn._dynamo.disable(lambda y: seen.append(litnn.compiler.is_compiling()) or y * 2)(x + 1)
    assert litnn.compile(f)(litnn.ones(2)).tolist() == [4., 4.] and seen == [False]


# ---------------------------------------------------------------------------------------------- reset, Module.compile
def test_reset_forgets_captures():
    cf = litnn.compile(lambda x: x * 2)
    cf(litnn.ones(2)); assert cf._compiled.count == 1
    litnn._dynamo.reset(); assert cf._compiled.count == 0 and cf._compiled.cache == {}
    cf(litnn.ones(2)); litnn.compiler.reset(); assert cf._compiled.count == 0


def test_module_compile_in_place():
    for lib in (litnn, torch):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        assert m.compile() is None and m._compiled_call_impl is not None
        assert list(m.state_dict()) == ['weight', 'bias']
    litnn.manual_seed(0); m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    litnn.manual_seed(0); ref = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    m.compile()
    x = litnn.randn(5, 3)
    for _ in range(3): assert same_bits(bits(m(x)), bits(ref(x)))
    assert m._compiled_call_impl._compiled.count == 1
    assert '_compiled_call_impl' not in m.__getstate__()


def test_optimized_module_as_torchs():
    for lib in (litnn, torch):
        m = lib.nn.Linear(3, 2)
        c = lib.compile(m)
        assert type(c).__name__ == 'OptimizedModule' and c._orig_mod is m
        assert list(c.state_dict()) == ['_orig_mod.weight', '_orig_mod.bias']
        assert c.weight is m.weight and c.in_features == 3
    with pytest.raises(RuntimeError, match='Unrecognized mode=fast'): litnn.compile(litnn.nn.Linear(1, 1), mode='fast')
    with pytest.raises(RuntimeError, match='Unrecognized mode=fast'): torch.compile(torch.nn.Linear(1, 1), mode='fast')
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError, match="Either mode or options"): lib.compile(lambda x: x, mode='default', options={})


# ---------------------------------------------------------------------------------------------- CUDA graphs
def test_cuda_graph_api_raises_as_torch_cpu_build():
    if litnn.cuda.is_available(): pytest.skip('a GPU is present')
    cases = [lambda lib: lib.cuda.CUDAGraph(), lambda lib: lib.cuda.graph_pool_handle(),
             lambda lib: lib.cuda.graph(None), lambda lib: lib.cuda.make_graphed_callables(lib.nn.Linear(2, 2), (lib.ones(1, 2),))]
    for case in cases:
        errs = []
        for lib in (litnn, torch):
            with pytest.raises(Exception) as e: case(lib)
            errs.append((type(e.value), str(e.value)))
        assert errs[0] == errs[1]
    assert litnn.cuda.graphs.is_current_stream_capturing() is False
    for name in ('CUDAGraph', 'graph', 'graph_pool_handle', 'make_graphed_callables'):
        assert getattr(litnn.cuda, name).__module__ == 'litnn.cuda.graphs'


def test_graph_replay_path_on_the_host():
    "The CUDA-graph replay (static inputs, the same output tensors rewritten), driven on the CPU."
    ef._HOST_GRAPHS = True
    w = litnn.randn(3, 4)
    def f(x): return (x @ w).relu().sum(1)
    cf = litnn.compile(f, mode='reduce-overhead')
    outs = []
    with litnn.no_grad():
        for i in range(4):
            x = litnn.randn(2, 3)
            o = cf(x)
            assert same_bits(bits(o), bits(f(x)))
            outs.append(o)
    (prog,) = programs(cf)
    assert prog.launch is not None and outs[1] is outs[2] is outs[3]      # as torch's: rewritten by the next replay
    cd = litnn.compile(f)                                                # mode default: no graph
    with litnn.no_grad(): cd(x); cd(x)
    assert programs(cd)[0].launch is None


def test_a_failed_graph_capture_falls_back_to_the_replay(monkeypatch):
    "Where CuPy refuses the capture (here: no CuPy at all), the compiled function still runs, replaying, and says why."
    monkeypatch.setattr(ef, '_graphable', lambda prog, inputs: True)
    def refuse(prog, static): raise NotImplementedError("calling cuBLAS API during stream capture is currently unsupported")
    monkeypatch.setattr(ef, '_capture_graph', refuse)
    w = litnn.randn(3, 4)
    def f(x): return (x @ w).relu()
    cf = litnn.compile(f, mode='reduce-overhead')
    with litnn.no_grad():
        for _ in range(3):
            x = litnn.randn(2, 3)
            assert same_bits(bits(cf(x)), bits(f(x)))
    (prog,) = programs(cf)
    assert prog.launch == prog.replay and prog.graph_skip == "NotImplementedError: calling cuBLAS API during stream capture is currently unsupported"


def test_capturable_products_read_layouts_as_cublas_does():
    "`_gemm`'s reading of numpy-style strides in cuBLAS's column-major terms: (op, leading dimension), one batch stride."
    from litnn.cuda.graphs import _strided, _batch_stride
    a = np.zeros((5, 3, 4), np.float32)
    assert _strided(a) == (0, 4)                               # row-major rows of 4
    assert _strided(a.swapaxes(-1, -2)) == (1, 4)              # a transposed view: op T on the same memory
    assert _strided(np.zeros((8, 6))[:, :4]) == (0, 6)         # a slice keeps its row stride as leading dimension
    with pytest.raises(NotImplementedError): _strided(np.zeros((4, 6))[:, ::2])
    assert _strided(np.zeros((5, 1))[::2]) == (0, 2) and _strided(np.zeros((1, 5))) == (0, 5)   # a column, a row
    assert _strided(np.zeros((5, 1)).T) == (0, 5)       # a row whose stride numpy leaves at the column's
    assert _batch_stride(a, (5,)) == 12
    assert _batch_stride(np.broadcast_to(np.zeros((3, 4)), (5, 3, 4)), (5,)) == 0
    assert _batch_stride(np.zeros((2, 5, 3, 4)), (2, 5)) == 12   # two batch dimensions that fold into one
    with pytest.raises(NotImplementedError): _batch_stride(np.zeros((2, 5, 3, 4))[:, :3], (2, 3))


needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')

@needs_gpu
def test_capturable_gemm_agrees_with_cupy():
    import cupy
    from litnn.cuda.graphs import _gemm
    rng = np.random.default_rng(0)
    for dtype, tol in ((np.float32, 1e-5), (np.float64, 1e-12), (np.float16, 1e-2)):
        for sa, sb, ta, tb in [((3, 4), (4, 5), 0, 0), ((7, 3, 4), (4, 5), 0, 0), ((7, 3, 4), (7, 5, 4), 0, 1),
                               ((2, 7, 4, 3), (2, 7, 4, 5), 1, 0), ((1, 3, 4), (6, 4, 5), 0, 0), ((64, 0), (0, 3), 0, 0)]:
            a = cupy.asarray(rng.standard_normal(sa).astype(dtype)); b = cupy.asarray(rng.standard_normal(sb).astype(dtype))
            a = a.swapaxes(-1, -2) if ta else a; b = b.swapaxes(-1, -2) if tb else b
            want = cupy.matmul(a, b)
            got = _gemm(a, b)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert cupy.allclose(got, want, rtol=tol, atol=tol * max(1, sa[-1])), (dtype, sa, sb, ta, tb)


@needs_gpu
def test_graph_replay_on_the_gpu():
    "An inference forward with matrix products replays as a CUDA graph (no fallback) and gives eager's results."
    litnn.manual_seed(0)
    m = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    cm = litnn.compile(m, mode='reduce-overhead')
    outs = []
    with litnn.no_grad():
        for i in range(4):
            x = litnn.randn(64, 784, device='cuda')
            o = cm(x)
            assert litnn.allclose(o, m(x), rtol=1e-4, atol=1e-5), i
            outs.append(o)
    (prog,) = programs(cm)
    assert getattr(prog, 'graph_skip', None) is None and prog.launch != prog.replay
    assert outs[1] is outs[2] is outs[3]


LAYERS = {
    'batchnorm1d': (lambda: nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU()), (6, 4)),
    'conv-maxpool': (lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.MaxPool2d(2), nn.Flatten()), (2, 2, 8, 8)),
    'batchnorm2d': (lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)), (2, 2, 6, 6)),
    'lstm': (lambda: nn.LSTM(4, 5, batch_first=True), (2, 3, 4)),
    'layernorm-dropout': (lambda: nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Dropout(0.3)), (6, 4)),
}

@pytest.mark.parametrize('name', list(LAYERS))
def test_layer_training_steps_replay_bit_equal(name):
    "A step through each kind of layer replays (no graph break), and its state_dict (running stats too) stays eager's."
    build, shape = LAYERS[name]
    def make():
        litnn.manual_seed(0); m = build(); opt = litnn.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
        def step(x):
            out = m(x)
            out = out[0] if isinstance(out, tuple) else out
            loss = out.square().mean(); loss.backward(); opt.step(); opt.zero_grad()
            return loss
        return m, step
    (m1, s1), (m2, s2) = make(), make()
    cs = litnn.compile(s2)
    rng = np.random.default_rng(0)
    for i in range(4):
        x = litnn.tensor(rng.standard_normal(shape).astype(np.float32))
        litnn.manual_seed(i); a = s1(x)
        litnn.manual_seed(i); b = cs(x)
        assert same_bits(bits(a), bits(b)), i
    sd1, sd2 = m1.state_dict(), m2.state_dict()
    for k in sd1: assert same_bits(sd1[k].numpy(), sd2[k].numpy()), k
    assert [p.steps is not None for p in programs(cs)] == [True]


# ---------------------------------------------------------------------------------------------- lowering: the generated function
def compiled_step_bit_equal(make, batches):
    "Two copies of a training step from `make()` (params, step), one compiled, fed the same batches: losses, parameters and gradients bit-equal; the compiled step."
    (p1, s1), (p2, s2) = make(), make()
    cs = litnn.compile(s2)
    for i, (x, y) in enumerate(batches): assert same_bits(bits(s1(x, y)), bits(cs(x, y))), i
    for a, b in zip(p1, p2): assert same_bits(bits(a), bits(b)) and same_bits(bits(a.grad), bits(b.grad))
    return cs

def lowered(c):
    "The generated function of a compiled function's only program (None if it replays step by step)."
    (prog,) = programs(c)
    return prog.lowered

def chain(x, c):
    y = x
    for _ in range(6):
        y = (((y * c + 0.5).tanh() * 1.5).sigmoid() - 0.25) / c
        y = -y.exp().sqrt()
    return y.sum()

def test_lowered_chain_bit_equal_forward_and_backward():
    rng = np.random.default_rng(3)
    def make():
        x = litnn.tensor(rng.standard_normal((16, 16)).astype(np.float32), requires_grad=True)
        return x
    c = litnn.tensor((rng.random((16, 16)) + 0.5).astype(np.float32))
    def step(x):
        x.grad = None
        loss = chain(x, c)
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for i in range(4):
        x1 = make(); x2 = litnn.tensor(x1.detach().numpy().copy(), requires_grad=True)
        a, b = step(x1), cs(x2)
        assert same_bits(bits(a), bits(b)) and same_bits(bits(x1.grad), bits(x2.grad)), i
    fn = lowered(cs)
    assert fn is not None and fn.source.startswith('def replay(I, env):')
    assert '(env)' not in fn.source            # every step lowered: no Python step left in the chain


@pytest.mark.parametrize('name', ['add_bias', 'sub_rsub', 'mul_div_scalar', 'neg_exp_log', 'relu_nan', 'mean_dims', 'mm_t', 'log_softmax'])
def test_each_lowering_bit_equal(name):
    "Each op with a lowering, forward and backward (broadcasting, numbers, transposed weights), against eager."
    rng = np.random.default_rng(hash(name) % 1000)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    A, W, Bv = f32(6, 5), f32(4, 5), f32(4)
    fns = {'add_bias': lambda x, w, b: (x @ w.t() + b).sum(),
           'sub_rsub': lambda x, w, b: ((1 - x) - x * 2.5 - (x - 3)).sum(),
           'mul_div_scalar': lambda x, w, b: ((x * 0.1) / 3 * x / (x * x + 1)).mean(),
           'neg_exp_log': lambda x, w, b: (-(x.exp() + 1).log()).sum(),
           'relu_nan': lambda x, w, b: (x.relu() * x).sum(),
           'mean_dims': lambda x, w, b: (x.mean(0) * 2 + x.mean(1, keepdim=True).sum()).sum(),
           'mm_t': lambda x, w, b: (x.t() @ (x @ w.t())).tanh().sum(),
           'log_softmax': lambda x, w, b: -(x @ w.t()).log_softmax(1).mean()}
    f = fns[name]
    def step(x, w, b):
        loss = f(x, w, b)
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for i in range(3):
        xa = f32(6, 5)
        if name == 'relu_nan' and i == 2: xa[0, 0] = np.inf        # relu's backward past an inf: where(), as eager
        ts = [[litnn.tensor(a.copy(), requires_grad=True) for a in (xa, W, Bv)] for _ in range(2)]
        a, b = step(*ts[0]), cs(*ts[1])
        assert same_bits(bits(a), bits(b)), i
        for t1, t2 in zip(*ts):
            assert (t1.grad is None) == (t2.grad is None)
            if t1.grad is not None: assert same_bits(bits(t1.grad), bits(t2.grad)), i
    assert lowered(cs) is not None


def test_lowered_mlp_step_with_index_and_sgd_by_hand():
    "bench/mlp_step.py's step: lowered matmuls, bias, relu, log_softmax, the index and its backward; the update in place."
    def make():
        rng = np.random.default_rng(0)
        ws = [litnn.tensor((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32), requires_grad=True) for i, o in ((20, 16), (16, 5))]
        bs = [litnn.zeros(o, requires_grad=True) for o in (16, 5)]
        idx = litnn.arange(8)
        def step(x, y):
            h = x
            for i, (w, b) in enumerate(zip(ws, bs)):
                h = h @ w.t() + b
                if i == 0: h = h.relu()
            loss = -h.log_softmax(1)[idx, y].mean()
            for p in ws + bs: p.grad = None
            loss.backward()
            with litnn.no_grad():
                for p in ws + bs: p -= 0.1 * p.grad
            return loss
        return ws + bs, step
    rng = np.random.default_rng(1)
    cs = compiled_step_bit_equal(make, [(litnn.tensor(rng.standard_normal((8, 20)).astype(np.float32)), litnn.tensor(rng.integers(0, 5, 8)))
                                        for _ in range(5)])
    fn = lowered(cs)
    assert fn is not None and 'matmul(' in fn.source and '(env)' not in fn.source and '_backward_call' not in fn.source   # no Python step left


def test_lowered_programs_of_training_steps():
    "The MLP step with AdamW and the GPT step are lowered (the optimizer's step a Python call inside the function)."
    (_, _, s) = make_mlp(0, 'AdamW', lr=1e-2)
    cs = litnn.compile(s)
    x, y = litnn.ones(8, 6), litnn.tensor(np.arange(8) % 3)
    cs(x, y); cs(x, y)
    assert lowered(cs) is not None


def test_results_do_not_alias_the_next_replay():
    "Returned tensors are fresh, as torch's default mode: a result kept across calls keeps its values."
    def f(x): return (x * 2).tanh() + 1
    cf = litnn.compile(f)
    x1, x2 = litnn.full((3,), 0.5), litnn.full((3,), -2.0)
    r1 = cf(x1); r2 = cf(x2); r3 = cf(x1)
    assert lowered(cf) is not None
    assert same_bits(bits(r1), bits(f(x1))) and same_bits(bits(r2), bits(f(x2))) and same_bits(bits(r3), bits(r1))
    assert not np.shares_memory(r1._data, r2._data)
    v = r2[1:]                                  # a view keeps its base's memory out of the next replay too
    cf(x1)
    assert same_bits(bits(v), bits(f(x2)[1:]))


def test_kept_grads_accumulate_as_eager():
    "Without zero_grad the leaves' .grad accumulate in place, as eager; a .grad someone holds is never a reused buffer."
    def make():
        w = litnn.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
        def step(x):
            loss = (x @ w).tanh().sum()
            loss.backward()
            return loss
        return w, step
    (w1, s1), (w2, s2) = make(), make()
    cs = litnn.compile(s2)
    x = litnn.ones(2, 3)
    s1(x); cs(x); cs(x)                         # (the second call is the first replay)
    s1(x)
    g1, g2 = w1.grad, w2.grad
    s1(x); cs(x)
    assert w1.grad is g1 and w2.grad is g2 and same_bits(bits(g1), bits(g2))
    kept = w2.grad
    w2.grad = None; w1.grad = None
    s1(x); cs(x)
    assert same_bits(bits(w1.grad), bits(w2.grad)) and w2.grad is not kept and not np.shares_memory(kept._data, w2.grad._data)
    assert same_bits(bits(kept), bits(g1))


def test_lowered_guards_still_recapture():
    cf = litnn.compile(lambda x: (x * 3).sigmoid().sum())
    cf(litnn.ones(2, 2)); cf(litnn.ones(2, 2)); cf(litnn.ones(3)); cf(litnn.ones(3))
    assert cf._compiled.count == 2 and all(p.lowered is not None for p in programs(cf))
    assert same_bits(bits(cf(litnn.full((3,), 2.))), bits((litnn.full((3,), 2.) * 3).sigmoid().sum()))


def test_eager_backend_replays_steps():
    cf = litnn.compile(lambda x: (x * 3).sigmoid(), backend="eager")
    cf(litnn.ones(2)); cf(litnn.ones(2))
    assert lowered(cf) is None
    assert litnn.compiler.list_backends() == ['cudagraphs', 'inductor', 'openxla']     # (torch's, before plugins add theirs)
    assert litnn.compiler.get_default_backend() == torch.compiler.get_default_backend() == 'inductor'


def test_set_stance_as_torchs():
    f = litnn.compile(lambda x: x + 1)
    f(litnn.ones(2))
    with litnn.compiler.set_stance("fail_on_recompile"):
        f(litnn.ones(2))
        with pytest.raises(RuntimeError, match="Detected recompile when torch.compile stance is 'fail_on_recompile'"): f(litnn.ones(3))
    with litnn.compiler.set_stance("force_eager"):
        assert litnn.equal(f(litnn.ones(5)), litnn.full((5,), 2.)) and f._compiled.count == 1


def test_lowered_step_returning_a_grad():
    w1, w2 = litnn.ones(3, requires_grad=True), litnn.ones(3, requires_grad=True)
    def make(w):
        def f(x):
            w.grad = None
            loss = (x * w).tanh().sum()
            loss.backward()
            return loss, w.grad
        return f
    f1, cf = make(w1), litnn.compile(make(w2))
    for v in (1., 2., -0.5):
        (a, ga), (b, gb) = f1(litnn.full((3,), v)), cf(litnn.full((3,), v))
        assert same_bits(bits(a), bits(b)) and same_bits(bits(ga), bits(gb)) and gb is w2.grad
    assert lowered(cf) is not None


@pytest.mark.parametrize('seed', range(12))
def test_random_programs_lowered_bit_equal(seed):
    "Random compositions of the lowered ops (numbers, broadcasting, reductions, products), forward and backward, against eager."
    rng = np.random.default_rng(seed)
    unary = [lambda t: t.tanh(), lambda t: t.sigmoid(), lambda t: t.relu(), lambda t: (t * t + 1).sqrt(), lambda t: (t.abs() + 1).log(),
             lambda t: t.clamp(-3, 3).exp(), lambda t: -t, lambda t: t.t().t()]
    binary = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / (b * b + 1), lambda a, b: a @ b.t() @ b / 8]
    scal = [lambda t: t * 0.3, lambda t: 1.5 - t, lambda t: t / 7, lambda t: t + 2]
    plan = [(int(rng.integers(0, 4)), int(rng.integers(0, 8)), int(rng.integers(0, 5)), int(rng.integers(0, 4))) for _ in range(8)]
    def f(x, w, b):
        y = x
        for kind, u, bi, s in plan:
            if kind == 0: y = unary[u](y)
            elif kind == 1: y = binary[bi](y, w)
            elif kind == 2: y = scal[s](y) + b              # a bias, broadcast over the rows
            else: y = y - y.mean(1, keepdim=True) + y.sum(0) / 10
        loss = y.log_softmax(1).mean() + y.sum()
        loss.backward()
        return loss
    cf = litnn.compile(f)
    for i in range(3):
        arrays = [rng.standard_normal(s).astype(np.float32) for s in ((5, 6), (5, 6), (6,))]
        t1 = [litnn.tensor(a, requires_grad=True) for a in arrays]
        t2 = [litnn.tensor(a.copy(), requires_grad=True) for a in arrays]
        assert same_bits(bits(f(*t1)), bits(cf(*t2))), (seed, i)
        for a, b in zip(t1, t2):
            assert (a.grad is None) == (b.grad is None) and (a.grad is None or same_bits(bits(a.grad), bits(b.grad))), (seed, i)
    assert lowered(cf) is not None


def test_inference_forward_lowered_fresh_outputs():
    "A module's forward under no_grad is lowered whole; each call returns new memory unless the last result was let go."
    litnn.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).eval()
    cm = litnn.compile(m)
    rng = np.random.default_rng(0)
    xs = [litnn.tensor(rng.standard_normal((3, 8)).astype(np.float32)) for _ in range(4)]
    with litnn.no_grad():
        outs = [cm(x) for x in xs]
        for x, o in zip(xs, outs): assert same_bits(bits(o), bits(m(x)))
        assert lowered(cm) is not None
        first = cm(xs[0]).data_ptr()
        second = cm(xs[1]).data_ptr()
    assert first == second              # a result nobody kept: its memory is written again
    assert len({o.data_ptr() for o in outs}) == 4


# ---------------------------------------------------------------------------------------------- lowering: the fused ops
FUSED = litnn.fused.compiled(litnn.fused._gelu32) is not None      # numba runs the kernels (the `fast` extra)

def _python_calls(fn, node_name):
    "How many times the generated code calls op `node_name` (its forward or its backward) as Python."
    import re
    ns = fn.__globals__
    n = 0
    for name in re.findall(r"\b([RN]\d+)\b", fn.source):
        obj = ns[name]
        if name[0] == 'N' and type(obj).__name__ == node_name: n += 1
        if name[0] == 'R' and any(getattr(c.cell_contents, '__name__', None) == node_name for c in obj.__closure__ or ()): n += 1
    return n

@pytest.mark.parametrize('name', ['gelu', 'layer_norm', 'layer_norm_no_affine', 'attention_causal', 'attention', 'attention_shifted', 'split', 'split_unused'])
def test_fused_lowerings_bit_equal(name):
    "GELU, LayerNorm, scaled dot-product attention and split lowered, forward and backward, bit-equal to eager."
    rng = np.random.default_rng(len(name))
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    W, Bv = f32(12), f32(12)
    def attn(x, causal):
        q, k, v = (t.view(2, 7, 3, 4).transpose(1, 2) for t in (x, x * 0.5, x.tanh()))
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    fns = {'gelu': (lambda x, w, b: (F.gelu(x * w) * b).sum(), 'GeluBackward0'),
           'layer_norm': (lambda x, w, b: (F.layer_norm(x, (12,), w, b) * x).sum(), 'NativeLayerNormBackward0'),
           'layer_norm_no_affine': (lambda x, w, b: (F.layer_norm(x * w, (12,)) * b).sum(), 'NativeLayerNormBackward0'),
           'attention_causal': (lambda x, w, b: (attn(x * w + b, True) ** 2).sum(), 'ScaledDotProductAttentionBackward0'),
           'attention': (lambda x, w, b: (attn(x * w, False) * 1.5).tanh().sum(), 'ScaledDotProductAttentionBackward0'),
           'attention_shifted': (lambda x, w, b: attn(x * 40 + w, True).sum(), 'ScaledDotProductAttentionBackward0'),   # scores past ±80
           'split': (lambda x, w, b: sum((p.tanh() * (i + 1)).sum() for i, p in enumerate((x * w).split(5, dim=2))), 'SplitBackward0'),
           'split_unused': (lambda x, w, b: (x * w + b).split([4, 8], dim=-1)[1].exp().sum(), 'SplitWithSizesBackward0')}
    f, node = fns[name]
    def step(x, w, b):
        loss = f(x, w, b)
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for i in range(3):
        xa = f32(2, 7, 12)
        ts = [[litnn.tensor(a.copy(), requires_grad=True) for a in (xa, W, Bv)] for _ in range(2)]
        a, b = step(*ts[0]), cs(*ts[1])
        assert same_bits(bits(a), bits(b)), i
        for t1, t2 in zip(*ts):
            assert (t1.grad is None) == (t2.grad is None)
            if t1.grad is not None: assert same_bits(bits(t1.grad), bits(t2.grad)), i
    fn = lowered(cs)
    assert fn is not None
    if FUSED or not name.startswith(('gelu', 'layer_norm')): assert _python_calls(fn, node) == 0, fn.source


def test_fused_lowerings_keep_python_calls_where_they_do_not_fit():
    "A float64 GELU (the kernel's float32 loop), attention with a mask: still Python calls of the op, still bit-equal."
    rng = np.random.default_rng(5)
    mask = litnn.tensor(rng.random((4, 4)) > 0.3)
    def step(x):
        y = F.gelu(x.double()).float().view(1, 2, 4, 2)
        loss = F.scaled_dot_product_attention(y, y, y, attn_mask=mask).sum()
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for i in range(3):
        xa = rng.standard_normal((2, 4, 2)).astype(np.float32)
        x1, x2 = litnn.tensor(xa, requires_grad=True), litnn.tensor(xa.copy(), requires_grad=True)
        assert same_bits(bits(step(x1)), bits(cs(x2))) and same_bits(bits(x1.grad), bits(x2.grad)), i
    fn = lowered(cs)
    assert fn is not None and _python_calls(fn, 'GeluBackward0') and _python_calls(fn, 'ScaledDotProductAttentionBackward0')


def test_gpt_step_lowers_its_fused_ops():
    "The GPT step's generated code calls no GELU, LayerNorm, attention or split as Python (where numba runs the kernels)."
    cs = litnn.compile(make_gpt_step()[2])
    idx, tg = litnn.tensor(np.arange(24).reshape(3, 8) % 11), litnn.tensor(np.arange(24).reshape(3, 8) % 7)
    cs(idx, tg); cs(idx, tg)
    fn = lowered(cs)
    names = ['ScaledDotProductAttentionBackward0', 'SplitBackward0'] + (['GeluBackward0', 'NativeLayerNormBackward0'] if FUSED else [])
    assert [_python_calls(fn, n) for n in names] == [0] * len(names)


def test_hand_written_update_is_one_loop():
    "`p -= lr * p.grad`: the product and the subtraction become one loop (`fused.sub_scaled`), bit-equal; not when the product is read again."
    def make(keep):
        rng = np.random.default_rng(0)
        w = litnn.tensor(rng.standard_normal((30, 20)).astype(np.float32), requires_grad=True)
        b = litnn.tensor(rng.standard_normal(30).astype(np.float32), requires_grad=True)
        ps = [w, b]
        def step(x):
            loss = (x @ w.t() + b).tanh().sum()
            w.grad = b.grad = None
            loss.backward()
            with litnn.no_grad():
                u = 0.03 * w.grad
                ps[0] -= u
                ps[1] -= b.grad * 0.5
            return (loss, u) if keep else loss
        return (w, b), step
    for keep in (False, True):
        (p1, s1), (p2, s2) = make(keep), make(keep)
        cs = litnn.compile(s2)
        rng = np.random.default_rng(1)
        for i in range(4):
            x = litnn.tensor(rng.standard_normal((5, 20)).astype(np.float32))
            r1, r2 = s1(x), cs(x)
            for a, b in zip(r1 if keep else (r1,), r2 if keep else (r2,)): assert same_bits(bits(a), bits(b)), (keep, i)
        for a, b in zip(p1, p2): assert same_bits(bits(a), bits(b)), keep
        fn = lowered(cs)
        calls = fn.source.count('.reshape(-1), c')
        assert calls == (0 if not FUSED else 1 if keep else 2), (keep, fn.source)


@pytest.mark.parametrize('name', ['targets', 'repeated', 'slot_index'])
def test_index_lowered_bit_equal(name):
    "`x[i, j]` with index tensors, forward and backward (adding where indices repeat), lowered and bit-equal; other keys stay Python calls."
    rng = np.random.default_rng(len(name))
    rows = litnn.arange(6)
    cols = litnn.tensor(rng.integers(0, 5, 6))
    def f(x):
        if name == 'targets': y = x.log_softmax(1)[rows, cols]
        elif name == 'repeated': y = x[litnn.tensor([0, 2, 2, 0]), litnn.tensor([1, 1, 1, 4])] * 3
        else: y = x[(x[:, 0] * 0).long() + rows, cols]     # an index computed in the step
        loss = (y * y).sum() + x[1:3].sum()                # (a slice: a Python call still)
        loss.backward()
        return loss
    cf = litnn.compile(f)
    for i in range(3):
        a = rng.standard_normal((6, 5)).astype(np.float32)
        x1, x2 = litnn.tensor(a, requires_grad=True), litnn.tensor(a.copy(), requires_grad=True)
        assert same_bits(bits(f(x1)), bits(cf(x2))) and same_bits(bits(x1.grad), bits(x2.grad)), i
    fn = lowered(cf)
    assert fn is not None and _python_calls(fn, 'IndexBackward0') == 0 and _python_calls(fn, 'SliceBackward0') >= 1


# ---------------------------------------------------------------------------------------------- lowering: the row loops
@pytest.fixture(params=[True, False], ids=['numba', 'numpy'])
def row_loops(request, monkeypatch):
    "Each test twice: with numba's row loops (36_fused_kernels) and with numpy's calls (as under LITNN_NUMBA=0)."
    if request.param and not FUSED: pytest.skip("numba (the `fast` extra) is not installed")
    monkeypatch.setattr(litnn.fused, 'enabled', request.param)
    return request.param

def _kernel_names(fn):
    "The Python functions behind the generated code's K names (numba's compiled ones by their Python name)."
    import re
    ns = fn.__globals__
    return {getattr(getattr(ns[k], 'py_func', ns[k]), '__name__', '') for k in re.findall(r"\b(K\d+)\b", fn.source)}

@pytest.mark.parametrize('edge', [False, True], ids=['random', 'zeros_and_infs'])
def test_linear_relu_log_softmax_step_bit_equal(row_loops, edge):
    "bias + ReLU (one loop), ReLU's backward (eager's loop, 4096 elements and up), log-softmax's row loops (eager's), the targets' scatter: bit-equal to eager."
    def make():
        rng = np.random.default_rng(0)
        ws = [litnn.tensor((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32), requires_grad=True) for i, o in ((24, 320), (320, 10))]
        bs = [litnn.tensor(rng.standard_normal(o).astype(np.float32), requires_grad=True) for o in (320, 10)]
        if edge: bs[0].data[:3] = litnn.tensor([-0.0, 0.0, np.inf])
        def step(x, y):
            h = (x @ ws[0].t() + bs[0]).relu()
            loss = -(h @ ws[1].t() + bs[1]).log_softmax(1)[litnn.arange(16), y].mean()
            for p in ws + bs: p.grad = None
            loss.backward()
            with litnn.no_grad():
                for p in ws + bs: p -= 0.1 * p.grad
            return loss
        return ws + bs, step
    rng = np.random.default_rng(1)
    def batch():
        xa = rng.standard_normal((16, 24)).astype(np.float32)
        if edge: xa[:4] = 0; xa[4, 0] = -0.0
        return litnn.tensor(xa), litnn.tensor(rng.integers(0, 10, 16))
    cs = compiled_step_bit_equal(make, [batch() for _ in range(4)])
    fn = lowered(cs)
    ks = _kernel_names(fn)
    loops = {'_add_relu', '_relu_back_low', '_log_softmax_low', '_log_softmax_back_low', '_index_add_low'}
    if row_loops: assert loops <= ks and 'maximum(' not in fn.source, fn.source
    else: assert not ks & loops and 'maximum(' in fn.source

def test_bias_relu_stays_two_calls_when_the_sum_is_read_again():
    "The sum before ReLU read by something else (here returned): the add and ReLU stay two calls, still bit-equal."
    rng = np.random.default_rng(2)
    w = litnn.tensor(rng.standard_normal((8, 6)).astype(np.float32), requires_grad=True)
    b = litnn.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=True)
    def step(x):
        s = x @ w.t() + b
        loss = s.relu().sum()
        loss.backward()
        return loss, s
    cs = litnn.compile(step)
    for i in range(3):
        x = litnn.tensor(rng.standard_normal((5, 6)).astype(np.float32))
        w.grad = b.grad = None; (l1, s1), g1 = step(x), w.grad.clone()
        w.grad = b.grad = None; (l2, s2), g2 = cs(x), w.grad.clone()
        assert same_bits(bits(l1), bits(l2)) and same_bits(bits(s1), bits(s2)) and same_bits(bits(g1), bits(g2)), i
    assert '_add_relu' not in _kernel_names(lowered(cs))

@pytest.mark.parametrize('name', ['causal', 'plain', 'shifted', 'nan'])
def test_attention_row_loops_bit_equal(row_loops, name):
    "Attention's scaling, check, mask, division and backward as row loops (or numpy's calls): bit-equal to eager."
    rng = np.random.default_rng(7)
    def step(x):
        q, k, v = (t.view(2, 9, 2, 8).transpose(1, 2) for t in (x, x * 0.5, x.tanh()))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=name != 'plain')
        loss = (y * y).sum()
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for i in range(3):
        xa = rng.standard_normal((2, 9, 16)).astype(np.float32) * (30 if name == 'shifted' else 1)
        if name == 'nan' and i == 2: xa[1, 3, 2] = np.nan
        x1, x2 = litnn.tensor(xa, requires_grad=True), litnn.tensor(xa.copy(), requires_grad=True)
        a, b = step(x1), cs(x2)
        assert same_bits(bits(a), bits(b)) and same_bits(bits(x1.grad), bits(x2.grad)), i

def test_split_backward_written_in_place_by_attention():
    "The GPT step's q, k, v split: attention's backward writes dq, dk, dv into their places, its forward its output into the next layout; bit-equal."
    (m1, o1, s1), (m2, o2, s2) = make_gpt_step(), make_gpt_step()
    cs = litnn.compile(s2)
    rng = np.random.default_rng(3)
    for i in range(3):
        idx, tg = litnn.tensor(rng.integers(0, 11, (3, 8))), litnn.tensor(rng.integers(0, 11, (3, 8)))
        litnn.manual_seed(i); a = s1(idx, tg)
        litnn.manual_seed(i); b = cs(idx, tg)
        assert same_bits(bits(a), bits(b)), i
    for (n, p), q in zip(m1.named_parameters(), m2.parameters()): assert same_bits(bits(p), bits(q)) and same_bits(bits(p.grad), bits(q.grad)), n
    fn = lowered(cs)
    assert '_cat_low' not in _kernel_names(fn) and 'copyto(' not in fn.source    # (nor the copy of attention's output, `contiguous()`)

def test_view_onto_places_a_buffer_in_a_piece():
    "`_view_onto`: the strided view of the piece that a chain of views (a copying reshape too) maps onto the piece; None where none."
    em = ef._Emitter(np)
    B = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    em.ns['b1'] = em.env['b1'] = B
    g1 = em.view("{}.swapaxes(1, 2)", ef._Val('b1', B, 'b1'))
    g = em.view("{}.reshape((2, 4, 15))", g1)          # a copy: the transposed axes do not merge
    out = np.zeros((2, 4, 40), np.float32)
    piece = out[:, :, 10:25]
    V = ef._view_onto(em, 'b1', g, ef._chain(em, 'b1', len(em.lines)), out, piece)
    assert V is not None and np.shares_memory(V, out)
    V[...] = B
    assert np.array_equal(piece, g.a) and not out[:, :, :10].any() and not out[:, :, 25:].any()
    assert ef._view_onto(em, 'b1', g, ef._chain(em, 'b1', len(em.lines)), out, out[:, :, 10:40:2]) is None    # rows not unit-strided

def test_index_backward_loop_takes_negative_indices_and_repeats(row_loops):
    "`x[i, j]` backward with negative and repeated indices, new ones each call: the loop adds as `add.at` does, bit-equal."
    rng = np.random.default_rng(4)
    def step(x, i, j):
        loss = (x[i, j] * litnn.tensor([1.5, -2.0, 3.0, 0.25, 7.0, 1e-3])).sum()
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for n in range(4):
        a = rng.standard_normal((4, 5)).astype(np.float32)
        i, j = litnn.tensor(rng.integers(-4, 4, 6)), litnn.tensor(rng.integers(-5, 5, 6))
        x1, x2 = litnn.tensor(a, requires_grad=True), litnn.tensor(a.copy(), requires_grad=True)
        assert same_bits(bits(step(x1, i, j)), bits(cs(x2, i, j))) and same_bits(bits(x1.grad), bits(x2.grad)), n
    assert ('_index_add_low' in _kernel_names(lowered(cs))) == row_loops


def test_a_programs_backend_gets_the_graph_and_runs_what_it_returns():
    "torch's custom-backend tutorial: the backend gets an fx.GraphModule with the function's ops, and its return runs."
    torch = pytest.importorskip('torch')
    def run(lib):
        seen = []
        def my_compiler(gm, example_inputs):
            seen.append((type(gm).__name__, [n.op for n in gm.graph.nodes],
                         [getattr(n.target, '__name__', str(n.target)) for n in gm.graph.nodes if n.op == 'call_function'],
                         [tuple(t.shape) for t in example_inputs]))
            return gm.forward
        fn = lib.compile(lambda x, y: lib.cos(x) + lib.sin(y), backend=my_compiler)
        x, y = lib.linspace(0, 1, 10), lib.linspace(1, 2, 10)
        out = [fn(x, y).tolist(), fn(x, y).tolist()]
        return seen, np.round(out, 6).tolist()
    assert run(litnn) == run(torch)


def test_registered_backends_and_invalid_names_as_torch():
    "register_backend adds a name compile takes; an unknown backend or mode is refused when compile is called, as torch."
    torch = pytest.importorskip('torch')
    def run(lib):
        name = f"mine_{lib.__name__}"
        @lib._dynamo.register_backend(name=name)
        def mine(gm, example_inputs): return gm.forward
        out = [name in lib._dynamo.list_backends(), lib.compile(lambda x: x * 2, backend=name)(lib.ones(2)).tolist()]
        for bad in (dict(backend='nope'), dict(mode='fast')):
            try: lib.compile(lambda x: x, **bad)
            except Exception as e: out.append((type(e).__name__, str(e)))
        try: lib._dynamo.register_backend(mine, name=name)
        except AssertionError as e: out.append(str(e).replace(name, 'NAME'))
        out.append(lib.compile(lambda x: x + 1, mode='lite')(lib.ones(1)).tolist())
        return out
    assert run(litnn) == run(torch)


def test_dynamo_and_inductor_switches_programs_set():
    torch = pytest.importorskip('torch')
    import warnings
    names = ['suppress_errors', 'verbose', 'capture_scalar_outputs', 'capture_dynamic_output_shape_ops', 'optimize_ddp',
             'automatic_dynamic_shapes', 'assume_static_by_default', 'force_parameter_static_shapes', 'specialize_int',
             'guard_nn_modules', 'error_on_recompile', 'cache_size_limit', 'accumulated_cache_size_limit', 'recompile_limit']
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert [getattr(litnn._dynamo.config, n) for n in names] == [getattr(torch._dynamo.config, n) for n in names]
    assert litnn._inductor.config.coordinate_descent_tuning == torch._inductor.config.coordinate_descent_tuning
    litnn._dynamo.config.accumulated_cache_size_limit = 300
    assert litnn._dynamo.config.accumulated_recompile_limit == 300
    litnn._dynamo.config.accumulated_cache_size_limit = 256


def test_functorch_config_after_importing_dynamo_as_torch():
    "gpt-fast's generate.py sets torch._functorch.config.enable_autograd_cache after `import torch._dynamo.config`."
    pytest.importorskip('torch')
    import subprocess, sys
    code = ("import {m}, {m}._dynamo.config, sys\n"
            "print(hasattr({m}, '_functorch'), '{m}._functorch.config' in sys.modules)\n"
            "{m}._functorch.config.enable_autograd_cache = True\n"
            "print({m}._functorch.config.enable_autograd_cache)")
    def run(m): return subprocess.run([sys.executable, '-c', code.format(m=m)], capture_output=True, text=True, check=True).stdout
    assert run('litnn') == run('torch') == 'True True\nTrue\n'


def test_a_tensor_read_as_a_number_inside_an_operation_is_replayed_with_its_new_value():
    """nanochat's fused AdamW (`@torch.compile(fullgraph=True)`) passes 0-d tensors holding the learning rate as `alpha`:
    the op reads the number inside, so the call is one step replayed whole, reading the tensor's value at each call."""
    def f(p, g, lr):
        p32 = p.float()
        p32.add_(g / (g.abs() + 1), alpha=-lr)
        p.copy_(torch_like.add(p32, g, alpha=lr) - g * lr)
    outs = {}
    for T in (torch, litnn):
        torch_like = T
        cf = T.compile(f, fullgraph=True, dynamic=False)
        p, g, lr = T.ones(5, dtype=T.float64), T.linspace(-1, 1, 5, dtype=T.float64), T.tensor(0.0)
        res = []
        for i in range(4):
            lr.fill_(0.1 * (i + 1)); cf(p, g, lr); res.append(p.tolist())
        outs[T.__name__] = res
    assert outs['litnn'] == outs['torch']
    (prog,) = programs(cf)
    assert prog.steps is not None and not prog.breaks


def test_a_python_value_read_inside_a_function_still_breaks():
    cf = litnn.compile(lambda x: x * 2 if litnn.is_nonzero(x.sum()) else x, fullgraph=True)
    with pytest.raises(litnn._dynamo.exc.Unsupported): cf(litnn.ones(2))


@pytest.mark.parametrize('env', ['TORCHDYNAMO_DISABLE', 'TORCH_COMPILE_DISABLE'])
def test_the_environment_switches_that_turn_compile_off(env):
    """torch's two switches: TORCHDYNAMO_DISABLE=1 makes `compile` hand the function or module back; TORCH_COMPILE_DISABLE=1
    sets `_dynamo.config.disable`, under which compiled functions run eagerly (a `.item()` under fullgraph does not raise)."""
    import os, subprocess, sys
    code = ("import {m}, {m}._dynamo.config as cfg\n"
            "f = lambda x: x * x.sum().item()\n"
            "c, m = {m}.compile(f), {m}.nn.Linear(2, 2)\n"
            "print(c is f, {m}.compile(m) is m, cfg.disable)\n"
            "print({m}.compile(f)({m}.ones(2)).tolist())\n"
            "try: print({m}.compile(f, fullgraph=True)({m}.ones(2)).tolist())\n"
            "except RuntimeError as e: print(str(e).split('. ')[0])")
    def run(m): return subprocess.run([sys.executable, '-c', code.format(m=m)], capture_output=True, text=True, check=True,
                                      env={**os.environ, env: '1'}).stdout
    assert run('litnn') == run('torch')


def test_dynamo_hints_as_torch():
    "torch._dynamo's hints programs call around compile: recorded where torch records them, the functions returned as they are."
    import torch as T
    outs = []
    for lib in (T, litnn):
        d = lib._dynamo
        x = lib.ones(4, 3)
        d.mark_dynamic(x, 0); d.mark_dynamic(x, [1]); d.maybe_mark_dynamic(x, 1); d.mark_static(x, 0)
        y, z = lib.zeros(2), lib.zeros(2); d.mark_static_address(y); d.mark_static_address(z, guard=True)   # (HF's Mamba caches)
        with pytest.raises(TypeError, match='mark_static_address expects a tensor'): d.mark_static_address([1])
        f = lambda v: v
        step = d.optimize('eager')(lambda v: v * 2 + 1)
        with pytest.raises(AssertionError) as e: d.allow_in_graph(3)
        outs.append((x._dynamo_dynamic_indices, x._dynamo_weak_dynamic_indices, x._dynamo_static_indices, d.is_compiling(),
                     d.allow_in_graph(f) is f, d.disallow_in_graph(f) is f, d.assume_constant_result(f) is f, f._dynamo_marked_constant,
                     d.graph_break(), step(lib.ones(2)).tolist(), str(e.value), y._dynamo_static_input_type, z._dynamo_static_input_type))
    assert outs[0] == outs[1]


def test_view_of_a_tensor_changed_in_place_within_the_capture_as_torch():
    "A view made by a recorded step of a tensor a recorded in-place op changed: its version is its base's, read at first use."
    import numpy as np, torch
    def f(lib):
        def fn(q, pad):
            m = lib.zeros_like(pad, dtype=q.dtype).masked_fill_(pad, -1e9)
            return m.view(1, 5) + q.sum()
        q = lib.ones(1, 2, 5, 4); pad = lib.zeros(1, 5).bool(); pad[0, 3] = True
        return lib.compile(fn, fullgraph=True)(q, pad).tolist()
    assert f(litnn) == f(torch)


def test_transformer_encoder_with_padding_mask_compiles_fullgraph_as_torch():
    """torch test_multihead_attention's test_fast_path_check_with_mask_does_not_break_in_compile, values compared. In a
    process of its own: after other tests in the same process it failed about once in six runs, under load, and did not
    fail alone in forty (a state another test leaves behind, in torch or in litnn, not found yet)."""
    import os, subprocess, sys
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(filter(None, [here, os.environ.get('PYTHONPATH')]))}
    r = subprocess.run([sys.executable, '-c', 'import test_compile as m; m._transformer_encoder_with_padding_mask()'],
                       cwd=here, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]

def _transformer_encoder_with_padding_mask():
    import numpy as np, torch
    torch.manual_seed(0)
    te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, dtype=torch.double), 2).eval()
    le = litnn.nn.TransformerEncoder(litnn.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, dtype=litnn.double), 2).eval()
    le.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in te.state_dict().items()})
    g = np.random.default_rng(0); x = g.standard_normal((1, 9, 16)); pad = g.random((1, 9)) > .5; pad[..., 0] = True
    lo = litnn.compile(le, fullgraph=True)(litnn.tensor(x), mask=None, src_key_padding_mask=litnn.tensor(pad))
    # torch's compiled module runs the layers' slow path (its fast path stays eager), whose values eager torch gives with the
    # fast path off: the reference, without running inductor's C++ compiler in a test (it failed once under load)
    was = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try: to = te(torch.tensor(x), mask=None, src_key_padding_mask=torch.tensor(pad))
    finally: torch.backends.mha.set_fastpath_enabled(was)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-9, atol=1e-12)

def test_a_finalizer_print_during_a_capture_does_not_break_it(capsys):
    "An object of earlier code that the garbage collector finalizes mid-capture may print: not the captured function's side effect."
    import gc
    class Noisy:
        def __del__(self): print('finalized')
    def f(x):
        gc.collect()                          # (as an allocation inside the function may set the collector off)
        return x * 2
    was = gc.isenabled(); gc.disable()        # (else the collector may free it before the capture starts)
    try:
        a = Noisy(); a.me = a; del a          # (a cycle: only the collector frees it)
        out = litnn._dynamo.explain(f)(litnn.ones(3))
    finally:
        if was: gc.enable()
    assert 'finalized' in capsys.readouterr().out and out.graph_break_count == 0 and out.graph_count == 1
    assert litnn._dynamo.explain(lambda x: (print('here'), x * 2)[1])(litnn.ones(3)).graph_break_count == 1   # its own print breaks

def test_a_print_from_another_thread_does_not_break_a_capture():
    "Only the recording thread's print() is the captured function's side effect (another thread may print meanwhile)."
    import threading
    started, printed = threading.Event(), threading.Event()
    def other(): started.wait(5); print('another thread prints'); printed.set()
    th = threading.Thread(target=other); th.start()
    def f(x):
        started.set(); printed.wait(5)
        return x * 2
    out = litnn._dynamo.explain(f)(litnn.ones(3))
    th.join()
    assert printed.is_set() and out.graph_break_count == 0 and out.graph_count == 1
    assert litnn._dynamo.explain(lambda x: (print('here'), x * 2)[1])(litnn.ones(3)).graph_break_count == 1   # its own print still breaks

def test_numba_compiling_a_kernel_mid_capture_is_not_a_graph_break(tmp_path):
    """A fused kernel's first use on a machine (an empty numba cache: a fresh install) compiles it inside the capture, and
    numba, writing its cache entry, prints the kernel's type annotations into a buffer of its own: not the function's side
    effect. fullgraph=True raised Unsupported ('print() in annotate') on the first call after an install."""
    import os, subprocess, sys, textwrap
    code = textwrap.dedent('''
        import litnn, litnn.fused as fu
        if fu.compiled(fu._layer_norm) is None: raise SystemExit('no numba')
        ln = litnn.nn.LayerNorm(8, dtype=litnn.double)
        f = litnn.compile(lambda x: ln(x) * 2, fullgraph=True)
        y = f(litnn.ones(4, 8, dtype=litnn.double))
        print(list(y.shape), len(fu._compiled[fu._layer_norm].signatures))''')
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, 'NUMBA_CACHE_DIR': str(tmp_path), 'PYTHONPATH': os.pathsep.join(filter(None, [os.path.dirname(here), os.environ.get('PYTHONPATH')]))}
    r = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    if r.stderr.strip().endswith('no numba'): pytest.skip('numba is not installed')
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ['[4,', '8]', '1']

def test_prints_while_numba_compiles_are_not_the_functions():
    "The mechanism: what runs under fused's compile mark prints without a break; the same print outside it breaks."
    import io, litnn.fused as fu
    buf = io.StringIO()
    quiet = fu._compiling_marked(lambda: print('annotations', file=buf))
    def f(x):
        quiet()
        return x * 2
    def g(x):
        print('annotations', file=buf)
        return x * 2
    assert litnn._dynamo.explain(f)(litnn.ones(2)).graph_break_count == 0
    assert litnn._dynamo.explain(g)(litnn.ones(2)).graph_break_count == 1


def test_a_break_reason_names_the_users_frames_only():
    "explain's user_stack ends at the user's line that broke the graph, as torch's: no frame of litnn's generated argument parsers."
    def f(x): return x * 2 if x.sum().is_nonzero() else x
    last = {}
    for T in (torch, litnn):
        stack = T._dynamo.explain(f)(T.ones(2)).break_reasons[0].user_stack
        assert not any(s.filename.startswith('<litnn') for s in stack)
        last[T.__name__] = (stack[-1].name, stack[-1].lineno)
    assert last['litnn'] == last['torch'] == ('f', f.__code__.co_firstlineno)

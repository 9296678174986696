"""compile's faster replays against eager litnn, bit for bit (results, gradients, optimizer state): a linear layer's
bias added inside GELU's loop (the sum written over the product's buffer), with numba's kernels and with numpy's calls."""
import numpy as np, pytest
import litnn
from litnn import fused
from litnn._pointwise import _CDF32_PQ

FUSED = fused.compiled(fused._gelu32) is not None

def bits(t): return np.ascontiguousarray(t.detach().numpy()).view(np.uint8)

def program(c):
    "The only program a compiled function has cached."
    (prog,) = [p for ps in getattr(c, '_compiled', c).cache.values() for p in ps]
    return prog

@pytest.fixture(params=[True, False], ids=['numba', 'numpy'])
def kernels(request, monkeypatch):
    if request.param and not FUSED: pytest.skip("numba (the `fast` extra) is not installed")
    monkeypatch.setattr(fused, 'enabled', request.param)
    return request.param

def _mlp(edge):
    "A pre-norm GELU MLP block with a residual, AdamW: the nanoGPT MLP (numbers from one seed)."
    litnn.manual_seed(0)
    nn = litnn.nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln, self.fc, self.gelu, self.proj = nn.LayerNorm(16), nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16)
        def forward(self, x): return x + self.proj(self.gelu(self.fc(self.ln(x))))
    m = Block()
    if edge:
        with litnn.no_grad(): m.fc.bias[:4] = litnn.tensor([-0.0, 0.0, 40.0, -40.0])
    opt = litnn.optim.AdamW(m.parameters(), lr=1e-2)
    def step(x):
        loss = m(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return m, opt, step

@pytest.mark.parametrize('edge', [False, True], ids=['random', 'zeros_and_large'])
def test_bias_in_gelu_loop_step_bit_equal(kernels, edge):
    "Loss, parameters, gradients and AdamW's averages after four steps: the compiled step's equal eager's to the bit."
    m1, o1, s1 = _mlp(edge)
    m2, o2, s2 = _mlp(edge)
    cs = litnn.compile(s2)
    rng = np.random.default_rng(1)
    for i in range(4):
        xa = rng.standard_normal((3, 5, 16)).astype(np.float32) * (1 if i < 3 else 8)
        if edge: xa[0, 0] = 0; xa[0, 1, 0] = -0.0
        a, b = s1(litnn.tensor(xa)), cs(litnn.tensor(xa))
        assert (bits(a) == bits(b)).all(), i
    for (n, p), q in zip(m1.named_parameters(), m2.parameters()):
        assert (bits(p) == bits(q)).all() and (bits(p.grad) == bits(q.grad)).all(), n
        for k in ('exp_avg', 'exp_avg_sq', 'step'):
            assert (bits(o1.state[p][k]) == bits(o2.state[q][k])).all(), (n, k)
    fn = program(cs).lowered
    assert fn is not None
    calls = [l.strip() for l in fn.source.splitlines() if l.strip().startswith('K')]
    gelu = [l for l in calls if getattr(fn.__globals__[l.split('(')[0]], '__name__', '') == '_gelu_low']
    assert len(gelu) == (1 if kernels else 0), fn.source
    if kernels: assert ', None, ' not in gelu[0] and fn.source.count('pass') >= 1     # (x, bias, out, cdf): the add is gone

def test_bias_stays_its_own_call_when_the_sum_is_changed_before_gelu():
    "A sum changed (in place) between the linear layer and GELU: the bias is not moved into GELU's loop; still bit-equal."
    litnn.manual_seed(3)
    lin = litnn.nn.Linear(6, 8)
    def step(x):
        y = lin(x)
        z = y * 2                                   # another value read from the sum first
        loss = (litnn.nn.functional.gelu(y) + z).sum()
        loss.backward()
        return loss
    cs = litnn.compile(step)
    rng = np.random.default_rng(4)
    for i in range(3):
        x = litnn.tensor(rng.standard_normal((5, 6)).astype(np.float32))
        lin.zero_grad(); a = step(x); g1 = lin.weight.grad.clone(), lin.bias.grad.clone()
        lin.zero_grad(); b = cs(x); g2 = lin.weight.grad.clone(), lin.bias.grad.clone()
        assert (bits(a) == bits(b)).all() and all((bits(u) == bits(v)).all() for u, v in zip(g1, g2)), i

@pytest.mark.skipif(not FUSED, reason="numba (the `fast` extra) is not installed")
def test_gelu_kernel_with_bias_is_the_sum_then_gelu():
    "The kernel with a bias row: the sum (written over x) and GELU's outputs equal numpy's add, then the kernel alone."
    k = fused.compiled(fused._gelu32)
    rng = np.random.default_rng(5)
    for scale in (0.1, 1, 6, 1e4):
        x = (rng.standard_normal((33, 37)) * scale).astype(np.float32)
        x.flat[::11], x.flat[::13], x.flat[::17], x.flat[::19] = -0.0, np.nan, np.inf, -np.inf
        b = (rng.standard_normal(37) * scale).astype(np.float32); b[::5] = -0.0
        s = x + b
        o1, c1, o2, c2 = (np.empty_like(x) for _ in range(4))
        k(s.reshape(1, -1), o1.reshape(1, -1), c1.reshape(1, -1), *_CDF32_PQ, None)
        k(x, o2, c2, *_CDF32_PQ, b)
        assert x.tobytes() == s.tobytes() and o1.tobytes() == o2.tobytes() and c1.tobytes() == c2.tobytes(), scale

def _gpt(seed):
    "Two nanoGPT blocks (causal attention through scaled_dot_product_attention, GELU MLP), tied head, AdamW (bench/gpt_step.py, small)."
    nn, F = litnn.nn, litnn.nn.functional
    litnn.manual_seed(seed)
    C, H, T, V = 32, 2, 12, 11
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.c_attn, self.c_proj = nn.LayerNorm(C), nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.ln_2, self.fc, self.gelu, self.proj = nn.LayerNorm(C), nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C)
        def forward(self, x):
            B = x.size(0)
            q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.proj(self.gelu(self.fc(self.ln_2(x))))
    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
            self.h = nn.ModuleList([Block() for _ in range(2)])
            self.ln_f, self.head = nn.LayerNorm(C), nn.Linear(C, V, bias=False)
            self.wte.weight = self.head.weight
        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(litnn.arange(idx.size(1)))
            for b in self.h: x = b(x)
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, V), targets.view(-1))
    m = GPT()
    opt = litnn.optim.AdamW(m.parameters(), lr=1e-2)
    def step(idx, targets):
        loss = m(idx, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return m, opt, step

def test_gpt_step_bit_equal(kernels):
    "The GPT step (attention's products from a row-major kᵀ and vᵀ where BLAS gives the same bits): as eager, to the bit."
    from litnn._dynamo.eval_frame import _nn_same
    m1, o1, s1 = _gpt(0)
    m2, o2, s2 = _gpt(0)
    cs = litnn.compile(s2)
    rng = np.random.default_rng(2)
    for i in range(4):
        idx, tg = rng.integers(0, 11, (3, 12)), rng.integers(0, 11, (3, 12))
        a, b = s1(litnn.tensor(idx), litnn.tensor(tg)), cs(litnn.tensor(idx), litnn.tensor(tg))
        assert (bits(a) == bits(b)).all(), i
    for (n, p), q in zip(m1.named_parameters(), m2.parameters()):
        assert (bits(p) == bits(q)).all() and (bits(p.grad) == bits(q.grad)).all(), n
        for k in ('exp_avg', 'exp_avg_sq', 'step'):
            assert (bits(o1.state[p][k]) == bits(o2.state[q][k])).all(), (n, k)
    fn = program(cs).lowered
    att = [l for l in fn.source.splitlines() if getattr(fn.__globals__.get(l.strip().split('(')[0]), '__name__', '') == '_attention_low']
    assert len(att) == 2
    a = np.random.default_rng(3).standard_normal((3, 2, 12, 16)).astype(np.float32)
    if _nn_same(a, a[::-1].copy()): assert all(l.count(', b') == 3 for l in att), att      # p, out and kᵀ's buffer

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_cross_attention_with_a_row_major_transpose_bit_equal(dtype):
    "Queries and keys of different lengths, float32 and float64: kᵀ's and vᵀ's buffers have the keys' length; as eager, to the bit."
    F = litnn.nn.functional
    rng = np.random.default_rng(6)
    def step(q, kv):
        k, v = kv.tanh(), kv * 0.5
        y = F.scaled_dot_product_attention(q, k, v)
        loss = (y * y).sum()
        loss.backward()
        return loss
    cs = litnn.compile(step)
    for i in range(3):
        qa, kva = rng.standard_normal((2, 3, 5, 8)).astype(dtype), rng.standard_normal((2, 3, 7, 8)).astype(dtype)
        q1, k1 = litnn.tensor(qa, requires_grad=True), litnn.tensor(kva, requires_grad=True)
        q2, k2 = litnn.tensor(qa.copy(), requires_grad=True), litnn.tensor(kva.copy(), requires_grad=True)
        a, b = step(q1, k1), cs(q2, k2)
        assert (bits(a) == bits(b)).all() and (bits(q1.grad) == bits(q2.grad)).all() and (bits(k1.grad) == bits(k2.grad)).all(), i

def test_one_linear_layer_into_two_gelus_bit_equal(kernels):
    "A sum read by two GELUs: the first adds the bias in its loop, the second reads the sum it wrote; as eager, to the bit."
    litnn.manual_seed(8)
    lin = litnn.nn.Linear(6, 8)
    F = litnn.nn.functional
    def step(x):
        y = lin(x)
        loss = (F.gelu(y) * F.gelu(y).cos()).sum()
        loss.backward()
        return loss, y
    cs = litnn.compile(step)
    rng = np.random.default_rng(9)
    for i in range(3):
        x = litnn.tensor(rng.standard_normal((5, 6)).astype(np.float32))
        lin.zero_grad(); (a, y1), g1 = step(x), (lin.weight.grad.clone(), lin.bias.grad.clone())
        lin.zero_grad(); (b, y2), g2 = cs(x), (lin.weight.grad.clone(), lin.bias.grad.clone())
        assert (bits(a) == bits(b)).all() and (bits(y1) == bits(y2)).all(), i
        assert all((bits(u) == bits(v)).all() for u, v in zip(g1, g2)), i
    fn = program(cs).lowered
    gelu = [l.strip() for l in fn.source.splitlines() if getattr(fn.__globals__.get(l.strip().split('(')[0]), '__name__', '') == '_gelu_low']
    assert len(gelu) == (2 if kernels else 0) and (not kernels or sum(', None, ' not in l for l in gelu) == 1), fn.source

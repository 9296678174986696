"""One training step of a nanoGPT-style model: 4 layers, 4 heads, embedding 128, block 64, batch 16,
vocabulary 65 (token and position embeddings, pre-norm blocks of causal self-attention through
`F.scaled_dot_product_attention` and a GELU MLP, a tied output layer, `F.cross_entropy`, backward,
`optim.AdamW`).

The model is written once, for a library passed in (`build(torch)`), and runs unchanged on litnn and
torch from the same weights. "numpy-matmul" is the step's matrix products alone, in numpy: the floor
a numpy backend cannot go below.

Target (issue 13): litnn / torch <= 1.0 (aim 0.9), with torch using its fused attention. litnn's GELU, LayerNorm and
AdamW run as fused loops where numba is installed (the `fast` extra, in `dev` too): 0.94-0.95 on the 2-core dev
machine; with `LITNN_NUMBA=0` (numpy's passes) 1.06.

    OMP_NUM_THREADS=1 python bench/gpt_step.py [--profile]
    python bench/gpt_step.py --device cuda      # litnn on CuPy against torch on CUDA (no numpy row); each step synchronizes
    OMP_NUM_THREADS=1 python bench/gpt_step.py --compiled   # the litnn row compiled by litnn.compile (issue 30: <= 0.8), eager beside it
"""
import sys, math
import numpy as np
from _common import interleave, report
import litnn, torch
DEVICE = sys.argv[sys.argv.index('--device') + 1] if '--device' in sys.argv else 'cpu'
if DEVICE == 'cpu': torch.set_num_threads(1)

N_LAYER, N_HEAD, N_EMBD, BLOCK, BATCH, VOCAB = 4, 4, 128, 64, 16, 65

def build(torch):
    "The model's classes, for library `torch` (litnn or torch)."
    nn, F = torch.nn, torch.nn.functional
    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(N_EMBD, 3 * N_EMBD), nn.Linear(N_EMBD, N_EMBD)
        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            q, k, v = (t.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc, self.gelu, self.c_proj = nn.Linear(N_EMBD, 4 * N_EMBD), nn.GELU(), nn.Linear(4 * N_EMBD, N_EMBD)
        def forward(self, x): return self.c_proj(self.gelu(self.c_fc(x)))
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2, self.mlp = nn.LayerNorm(N_EMBD), CausalSelfAttention(), nn.LayerNorm(N_EMBD), MLP()
        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))
    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(VOCAB, N_EMBD), nn.Embedding(BLOCK, N_EMBD)
            self.h = nn.ModuleList([Block() for _ in range(N_LAYER)])
            self.ln_f, self.lm_head = nn.LayerNorm(N_EMBD), nn.Linear(N_EMBD, VOCAB, bias=False)
            self.wte.weight = self.lm_head.weight        # tied, as nanoGPT
        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(idx.size(1), device=idx.device))
            for block in self.h: x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    return GPT

rng = np.random.default_rng(0)
IDX = rng.integers(0, VOCAB, (BATCH, BLOCK))
TARGETS = rng.integers(0, VOCAB, (BATCH, BLOCK))
torch.manual_seed(0)
STATE = {k: v.numpy().copy() for k, v in build(torch)().state_dict().items()}

def make_step(lib):
    model = build(lib)()
    model.load_state_dict({k: lib.tensor(v) for k, v in STATE.items()})
    model.to(DEVICE)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    idx, targets = lib.tensor(IDX, device=DEVICE), lib.tensor(TARGETS, device=DEVICE)
    def step():
        loss = model(idx, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if DEVICE != 'cpu': sync(lib)
        return loss
    return step

def sync(lib):
    "Wait for the GPU's queued work: without it a timing measures only the launches."
    if lib is torch: torch.cuda.synchronize()
    else:
        import cupy
        cupy.cuda.Device().synchronize()

def make_matmul_step():
    "The step's matrix products alone, in numpy float32: forward, and the two products of each backward."
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    BT, C, H, T, D = BATCH * BLOCK, N_EMBD, N_HEAD, BLOCK, N_EMBD // N_HEAD
    x, w = f(BT, C), {n: f(*s) for n, s in dict(attn=(3 * C, C), proj=(C, C), fc=(4 * C, C), fc2=(C, 4 * C), head=(VOCAB, C)).items()}
    q, p = f(BATCH, H, T, D), f(BATCH, H, T, T)
    h4, logits = f(BT, 4 * C), f(BT, VOCAB)
    def linear(a, w, g):                     # forward, and backward: input gradient, weight gradient
        a @ w.T; g @ w; g.T @ a
    def step():
        for _ in range(N_LAYER):
            linear(x, w['attn'], f3); linear(x, w['proj'], x); linear(x, w['fc'], h4); linear(h4, w['fc2'], x)
            q @ q.swapaxes(-1, -2); p @ q                              # scores, weighted values
            p @ q; p.swapaxes(-1, -2) @ q; p @ q; p.swapaxes(-1, -2) @ q   # their backward: dv, dp, dq, dk
        linear(x, w['head'], logits)
    f3 = f(BT, 3 * C)
    return step

if __name__ == '__main__':
    ls, ts = make_step(litnn), make_step(torch)
    steps = {'litnn': ls, 'torch': ts} if DEVICE != 'cpu' else {'litnn': ls, 'torch': ts, 'numpy-matmul': make_matmul_step()}
    for _ in range(3):
        a, b = ls().item(), ts().item()
        assert abs(a - b) < 1e-3 * max(1, abs(b)), (a, b)
    if '--compiled' in sys.argv:
        cs = litnn.compile(make_step(litnn))
        for _ in range(3): cs()
        steps = {'litnn': cs, 'eager': ls, **{k: v for k, v in steps.items() if k != 'litnn'}}
    if '--profile' in sys.argv:
        import cProfile, pstats
        cProfile.run('for _ in range(20): ls()', '/tmp/gpt_step.prof')
        pstats.Stats('/tmp/gpt_step.prof').sort_stats('tottime').print_stats(25)
        sys.exit()
    import litnn.fused
    print(f"litnn's fused kernels: {'on' if litnn.fused.compiled(litnn.fused._adam) else 'off (numba missing or LITNN_NUMBA=0)'}")
    med = interleave(steps, reps=15, inner=3)
    report(f"nanoGPT-style step ({N_LAYER} layers, {N_HEAD} heads, embedding {N_EMBD}, block {BLOCK}, batch {BATCH}, vocabulary {VOCAB}) "
           f"on {DEVICE}: forward, cross-entropy, backward, AdamW", med, 'ms', 1e3, base=tuple(k for k in steps if k != 'litnn'))

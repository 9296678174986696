"""The 784-512-512-10 MLP training step at batch 64: forward, cross-entropy, backward, SGD update.

Target (issue 2): litnn at most 1.15x hand-written numpy. `--compiled`: the litnn row is the step compiled by
`litnn.compile` (issue 30's target: at most 1.0x numpy), litnn eager beside it. Written with tensor operations only
(matmul, bias add, relu, log_softmax, indexing), the same program in litnn and torch.
"""
import sys
import numpy as np
from _common import interleave, report
import litnn, torch
torch.set_num_threads(1)

B, sizes, lr = 64, (784, 512, 512, 10), 0.01
rng = np.random.default_rng(0)
X = rng.standard_normal((B, 784)).astype(np.float32)
Y = rng.integers(0, 10, B)
W0 = [(rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32) for i, o in zip(sizes, sizes[1:])]
B0 = [np.zeros(o, np.float32) for o in sizes[1:]]

def make_step(lib):
    ws = [lib.tensor(w.copy(), requires_grad=True) for w in W0]
    bs = [lib.tensor(b.copy(), requires_grad=True) for b in B0]
    x, y = lib.tensor(X), lib.tensor(Y)
    idx = lib.arange(B)
    params = ws + bs
    def step():
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w.t() + b
            if i < len(ws) - 1: h = h.relu()
        loss = -h.log_softmax(1)[idx, y].mean()
        for p in params: p.grad = None
        loss.backward()
        with lib.no_grad():
            for p in params: p -= lr * p.grad
        return loss
    return step, params

def make_numpy_step():
    ws = [w.copy() for w in W0]; bs = [b.copy() for b in B0]
    def step():
        hs, h = [X], X
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w.T + b
            if i < len(ws) - 1: h = np.maximum(h, 0)
            hs.append(h)
        m = h.max(1, keepdims=True); e = np.exp(h - m); s = e.sum(1, keepdims=True)
        logp = h - m - np.log(s)
        loss = -logp[np.arange(B), Y].mean()
        g = e / s; g[np.arange(B), Y] -= 1; g /= B
        for i in range(len(ws) - 1, -1, -1):
            gw, gb = g.T @ hs[i], g.sum(0)
            if i: g = (g @ ws[i]) * (hs[i] > 0)
            ws[i] -= lr * gw; bs[i] -= lr * gb
        return loss
    return step, ws + bs

def compare(title, make_step):
    "Check that litnn, torch and numpy compute the same step from the same weights, then time them interleaved."
    (ls, lp), (ts, tp), (ns, npar) = make_step(litnn), make_step(torch), make_numpy_step()
    for _ in range(3):
        a, b, c = ls().item(), ts().item(), ns()
        assert abs(a - b) < 1e-4 and abs(a - c) < 1e-4, (a, b, c)
    for p, q in zip(lp, npar): np.testing.assert_allclose(p.detach().numpy(), q, rtol=1e-3, atol=1e-5)
    steps = {'litnn': ls, 'torch': ts, 'numpy': ns}
    if '--compiled' in sys.argv:                 # the litnn row compiled (nbs/37_compile), eager litnn beside it
        cs, cp = make_step(litnn)
        cs = litnn.compile(cs)
        for _ in range(3): a, b = cs().item(), ls().item()
        steps, title = {'litnn': cs, 'eager': ls, 'torch': ts, 'numpy': ns}, title + ", litnn compiled"
    med = interleave(steps, reps=15, inner=5)
    report(title, med, 'ms', 1e3, base=('numpy', 'torch', 'eager'))

if __name__ == '__main__':
    compare("MLP 784-512-512-10, batch 64: one training step", make_step)

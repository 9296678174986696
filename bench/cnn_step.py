"""A small CNN training step: conv 1->8 3x3, relu, conv 8->16 3x3, relu, linear 16*24*24 -> 10,
cross-entropy, at batch 32 of 1x28x28: forward, loss and backward (no optimizer step).

Target (issue 4): litnn at most 1.5x PyTorch. Written as users write it (`nn.Conv2d`, `nn.ReLU`,
`nn.Flatten`, `nn.Linear`, `F.cross_entropy`), the same program in litnn and torch, against a
plain numpy im2col implementation with a hand-derived backward.
"""
import numpy as np
from _common import interleave, report
import litnn, torch
torch.set_num_threads(1)

B, K = 32, 3
rng = np.random.default_rng(0)
X = rng.standard_normal((B, 1, 28, 28)).astype(np.float32)
Y = rng.integers(0, 10, B)
P0 = [(rng.uniform(-1, 1, (8, 1, K, K)) / 3).astype(np.float32), (rng.uniform(-1, 1, 8) / 3).astype(np.float32),
      (rng.uniform(-1, 1, (16, 8, K, K)) / 8.5).astype(np.float32), (rng.uniform(-1, 1, 16) / 8.5).astype(np.float32),
      (rng.uniform(-1, 1, (10, 16 * 24 * 24)) / 96).astype(np.float32), (rng.uniform(-1, 1, 10) / 96).astype(np.float32)]

def make_step(lib):
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Conv2d(1, 8, K), nn.ReLU(), nn.Conv2d(8, 16, K), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 24 * 24, 10))
    params = list(model.parameters())
    with lib.no_grad():
        for p, a in zip(params, P0): p.copy_(lib.tensor(a))
    x, y = lib.tensor(X), lib.tensor(Y)
    def step():
        loss = F.cross_entropy(model(x), y)
        for p in params: p.grad = None
        loss.backward()
        return loss
    return step, params

def im2col(x, k):
    "(N, C, H, W) -> (N*OH*OW, C*k*k): the windows as rows."
    N, C, H, W = x.shape; OH, OW = H - k + 1, W - k + 1
    cols = np.empty((N, C, k, k, OH, OW), x.dtype)
    for i in range(k):
        for j in range(k): cols[:, :, i, j] = x[:, :, i:i + OH, j:j + OW]
    return cols.transpose(0, 4, 5, 1, 2, 3).reshape(N * OH * OW, -1)

def col2im(dcols, shape, k):
    "The adjoint of im2col: add each window's gradient back."
    N, C, H, W = shape; OH, OW = H - k + 1, W - k + 1
    d = dcols.reshape(N, OH, OW, C, k, k).transpose(0, 3, 4, 5, 1, 2)
    dx = np.zeros(shape, dcols.dtype)
    for i in range(k):
        for j in range(k): dx[:, :, i:i + OH, j:j + OW] += d[:, :, i, j]
    return dx

def make_numpy_step():
    w1, b1, w2, b2, w3, b3 = [a.copy() for a in P0]
    grads = [None] * 6
    def conv(x, w, b):
        cols = im2col(x, K)
        N, (O, _, _, _), OH = x.shape[0], w.shape, x.shape[2] - K + 1
        return (cols @ w.reshape(O, -1).T + b).reshape(N, OH, OH, O).transpose(0, 3, 1, 2), cols
    def conv_back(g, cols, w, xshape, need_x):
        O = w.shape[0]
        gm = g.transpose(0, 2, 3, 1).reshape(-1, O)
        gw, gb = (gm.T @ cols).reshape(w.shape), gm.sum(0)
        return gw, gb, (col2im(gm @ w.reshape(O, -1), xshape, K) if need_x else None)
    def step():
        h1, c1 = conv(X, w1, b1); a1 = np.maximum(h1, 0)
        h2, c2 = conv(a1, w2, b2); a2 = np.maximum(h2, 0)
        f = a2.reshape(B, -1)
        z = f @ w3.T + b3
        m = z.max(1, keepdims=True); e = np.exp(z - m); s = e.sum(1, keepdims=True)
        loss = -(z - m - np.log(s))[np.arange(B), Y].mean()
        g = e / s; g[np.arange(B), Y] -= 1; g /= B
        grads[4], grads[5] = g.T @ f, g.sum(0)
        g2 = (g @ w3).reshape(a2.shape) * (h2 > 0)
        grads[2], grads[3], g1 = conv_back(g2, c2, w2, a1.shape, True)
        grads[0], grads[1], _ = conv_back(g1 * (h1 > 0), c1, w1, X.shape, False)
        return loss
    return step, grads

if __name__ == '__main__':
    (ls, lp), (ts, tp), (ns, ng) = make_step(litnn), make_step(torch), make_numpy_step()
    for _ in range(3):
        a, b, c = ls().item(), ts().item(), ns()
        assert abs(a - b) < 1e-4 and abs(a - c) < 1e-4, (a, b, c)
    for p, q, r in zip(lp, tp, ng):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-3, atol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), r, rtol=1e-3, atol=1e-6)
    med = interleave({'litnn': ls, 'torch': ts, 'numpy': ns}, reps=15, inner=5)
    report("CNN conv(1->8)-relu-conv(8->16)-relu-linear(9216->10), batch 32 of 1x28x28: forward, cross-entropy, backward",
           med, 'ms', 1e3, base=('torch', 'numpy'))

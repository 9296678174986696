"""A 2-layer LSTM (input 256, hidden 256) over 64 steps at batch 32: forward, MSE loss, backward, SGD.

Target (issue 13): litnn at most 1.2x torch (issue 30: 1.0x). Written as users write it (`nn.LSTM`, `optim.SGD`),
the same program in litnn and torch; and by hand in numpy (the input products of all steps as one
matrix product, the recurrence and its backward through time on arrays), the limit of a numpy
backend; and the step's matrix products alone (`gemm`: the input products, the 64 recurrent
products forward and backward, the weights' and the input's gradients, on ready-made operands),
the floor of any implementation on numpy's BLAS. Run: `OMP_NUM_THREADS=1 python bench/lstm_step.py`.
"""
import numpy as np
from _common import interleave, report
import litnn, torch
torch.set_num_threads(1)

T, B, I, H, L, lr = 64, 32, 256, 256, 2, 0.1
rng = np.random.default_rng(0)
X = rng.standard_normal((T, B, I)).astype(np.float32)
Y = rng.standard_normal((T, B, H)).astype(np.float32)
k = 1 / np.sqrt(H)
W0 = {f"{n}_l{l}": rng.uniform(-k, k, s).astype(np.float32) for l in range(L)
      for n, s in (('weight_ih', (4 * H, I if l == 0 else H)), ('weight_hh', (4 * H, H)), ('bias_ih', (4 * H,)), ('bias_hh', (4 * H,)))}

def make_step(lib):
    lstm = lib.nn.LSTM(I, H, num_layers=L)
    lstm.load_state_dict({n: lib.tensor(w.copy()) for n, w in W0.items()})
    opt = lib.optim.SGD(lstm.parameters(), lr=lr)
    x, y = lib.tensor(X), lib.tensor(Y)
    def step():
        out, _ = lstm(x)
        loss = (out - y).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step, [getattr(lstm, n) for n in W0]

def sigmoid(a): return 1 / (1 + np.exp(-a))

def make_numpy_step():
    w = {n: v.copy() for n, v in W0.items()}
    def layer(x, Wih, Whh, b):
        xw = (x.reshape(T * B, -1) @ Wih.T + b).reshape(T, B, 4 * H)
        h, c = np.zeros((B, H), np.float32), np.zeros((B, H), np.float32)
        hs, cache = np.empty((T, B, H), np.float32), []
        for t in range(T):
            a = xw[t] + h @ Whh.T
            i, f, g, o = sigmoid(a[:, :H]), sigmoid(a[:, H:2*H]), np.tanh(a[:, 2*H:3*H]), sigmoid(a[:, 3*H:])
            c_prev, h_prev = c, h
            c = f * c + i * g
            tc = np.tanh(c)
            h = hs[t] = o * tc
            cache.append((i, f, g, o, c_prev, h_prev, tc))
        return hs, cache
    def layer_back(x, dhs, Wih, Whh, cache):
        dh, dc = np.zeros((B, H), np.float32), np.zeros((B, H), np.float32)
        D = np.empty((T, B, 4 * H), np.float32); hprev = np.empty((T, B, H), np.float32)
        for t in range(T - 1, -1, -1):
            i, f, g, o, c_prev, h_prev, tc = cache[t]
            dh = dh + dhs[t]
            dc = dc + dh * o * (1 - tc * tc)
            D[t] = np.concatenate([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g), dh * tc * o * (1 - o)], 1)
            hprev[t] = h_prev
            dh, dc = D[t] @ Whh, dc * f
        D2, x2 = D.reshape(T * B, -1), x.reshape(T * B, -1)
        return (D2 @ Wih).reshape(x.shape), D2.T @ x2, D2.T @ hprev.reshape(T * B, -1), D2.sum(0)
    def step():
        xs, caches = [X], []
        for l in range(L):
            hs, cache = layer(xs[-1], w[f'weight_ih_l{l}'], w[f'weight_hh_l{l}'], w[f'bias_ih_l{l}'] + w[f'bias_hh_l{l}'])
            xs.append(hs); caches.append(cache)
        diff = xs[-1] - Y
        loss = np.square(diff).mean()
        d = 2 * diff / diff.size
        for l in range(L - 1, -1, -1):
            d, gih, ghh, gb = layer_back(xs[l], d, w[f'weight_ih_l{l}'], w[f'weight_hh_l{l}'], caches[l])
            w[f'weight_ih_l{l}'] -= lr * gih; w[f'weight_hh_l{l}'] -= lr * ghh
            w[f'bias_ih_l{l}'] -= lr * gb; w[f'bias_hh_l{l}'] -= lr * gb
        return loss
    return step, list(w.values())

def make_gemm_step():
    "The step's matrix products alone, as litnn's LSTM computes them (the first layer's input needs no gradient)."
    r = np.random.default_rng(1)
    m = lambda *s: r.standard_normal(s).astype(np.float32)
    x, Wih, Whh, hT, D, d, y4 = m(T * B, I), m(4 * H, I), m(4 * H, H), m(H, B), m(T * B, 4 * H), m(B, 4 * H), m(T * B, 4 * H)
    a, dh, gx, gw = np.empty((4 * H, B), np.float32), np.empty((B, H), np.float32), np.empty((T * B, I), np.float32), np.empty((4 * H, I), np.float32)
    def step():
        for l in range(L):
            np.matmul(x, Wih.T, out=y4)                        # the input product of all steps
            for t in range(T): np.matmul(Whh, hT, out=a)       # the recurrent product, forward
            for t in range(T): np.matmul(d, Whh, out=dh)       # and backward through time
            np.matmul(D.T, x, out=gw); np.matmul(D.T, x, out=gw)   # weight_hh's and weight_ih's gradients
            if l: np.matmul(D, Wih, out=gx)                    # the input's gradient (not for the first layer's input)
    return step

if __name__ == '__main__':
    (ls, lp), (ts, tp), (ns, npar) = make_step(litnn), make_step(torch), make_numpy_step()
    for _ in range(3):
        a, b, c = ls().item(), ts().item(), ns()
        assert abs(a - b) < 1e-5 and abs(a - c) < 1e-5, (a, b, c)
    for p, q, r in zip(lp, tp, npar):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(p.detach().numpy(), r, rtol=1e-4, atol=1e-6)
    med = interleave({'litnn': ls, 'torch': ts, 'numpy': ns, 'gemm': make_gemm_step()}, reps=7, inner=2)
    report("2-layer LSTM 256-256, 64 steps, batch 32: nn.LSTM + MSE + backward + optim.SGD, one step", med, 'ms', 1e3,
           base=('numpy', 'torch', 'gemm'))
    print(f"  gemm  / torch  = {med['gemm'] / med['torch']:.2f}   (the products alone against torch's whole step)")

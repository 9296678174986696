"""Convolution at the GEMM floor: `F.conv2d` forward + backward in litnn and torch against the time of
its matrix products alone.

A convolution with input (N, C, H, W), weight (O, C, KH, KW) and L = N·OH·OW output positions is three
matrix products: the forward `W (O, C·KH·KW) @ cols (C·KH·KW, L)`, the weight gradient
`gy (O, L) @ colsᵀ` and the input's window gradients `Wᵀ @ gy`. `gemm` times exactly those
`np.matmul` calls on ready-made contiguous operands (BLAS reads a transposed operand for free): that is
the floor of any im2col convolution; everything above it is copying windows in and adding them back
(im2col, col2im), bias, layout and Python. Target (issue 30): litnn / gemm <= 1.3.

    OMP_NUM_THREADS=1 python bench/conv_gemm.py [--quick]
"""
import sys
import numpy as np
from _common import interleave
import litnn, torch
torch.set_num_threads(1)

# (name, N, C, O, H, W, k, padding, input needs grad): the two convs of bench/cnn_step.py, then typical ones
SHAPES = [('cnn_step conv1', 32, 1, 8, 28, 28, 3, 0, False),
          ('cnn_step conv2', 32, 8, 16, 26, 26, 3, 0, True),
          ('3->32 28x28 p1', 32, 3, 32, 28, 28, 3, 1, False),
          ('32->64 28x28 p1', 32, 32, 64, 28, 28, 3, 1, True),
          ('3->32 32x32 p1', 32, 3, 32, 32, 32, 3, 1, False),
          ('32->64 32x32 p1', 32, 32, 64, 32, 32, 3, 1, True),
          ('64->128 16x16 p1', 32, 64, 128, 16, 16, 3, 1, True)]

def make(lib, x, w, b, gy, p, need_x):
    "Forward + backward of one conv2d in litnn or torch; returns the step and a getter of the gradients."
    F = lib.nn.functional
    X, Wt, B, GY = lib.tensor(x, requires_grad=need_x), lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True), lib.tensor(gy)
    def step():
        X.grad = Wt.grad = B.grad = None
        F.conv2d(X, Wt, B, padding=p).backward(GY)
    return step, lambda: [t.grad.numpy() for t in (X, Wt, B) if t.grad is not None]

def make_gemm(N, C, O, OH, OW, k, need_x, rng):
    "The convolution's matrix products alone, on contiguous operands made once."
    CK, L = C * k * k, N * OH * OW
    W, cols, gy = (rng.standard_normal(s).astype(np.float32) for s in ((O, CK), (CK, L), (O, L)))
    y, gw, gc = np.empty((O, L), np.float32), np.empty((O, CK), np.float32), np.empty((CK, L), np.float32)
    def step():
        np.matmul(W, cols, out=y)
        np.matmul(gy, cols.T, out=gw)
        if need_x: np.matmul(W.T, gy, out=gc)
    return step

def main(quick=False):
    rng = np.random.default_rng(0)
    rows = []
    for name, N, C, O, H, W, k, p, need_x in SHAPES:
        OH, OW = H + 2 * p - k + 1, W + 2 * p - k + 1
        x = rng.standard_normal((N, C, H, W)).astype(np.float32)
        w = (rng.standard_normal((O, C, k, k)) / np.sqrt(C * k * k)).astype(np.float32)
        b, gy = rng.standard_normal(O).astype(np.float32), rng.standard_normal((N, O, OH, OW)).astype(np.float32)
        (ls, lg), (ts, tg) = make(litnn, x, w, b, gy, p, need_x), make(torch, x, w, b, gy, p, need_x)
        ls(); ts()
        for a, c in zip(lg(), tg()): np.testing.assert_allclose(a, c, rtol=1e-3, atol=1e-3)
        med = interleave({'litnn': ls, 'torch': ts, 'gemm': make_gemm(N, C, O, OH, OW, k, need_x, rng)},
                         reps=5 if quick else 15, inner=3 if quick else 5)
        rows.append((name, med))
        print(f"{name:18s} litnn {med['litnn'] * 1e3:7.2f} ms  torch {med['torch'] * 1e3:7.2f} ms  gemm {med['gemm'] * 1e3:7.2f} ms"
              f"   litnn / gemm = {med['litnn'] / med['gemm']:.2f}   litnn / torch = {med['litnn'] / med['torch']:.2f}", flush=True)
    tot = {k: sum(m[k] for _, m in rows) for k in ('litnn', 'torch', 'gemm')}
    print(f"{'all shapes':18s} litnn {tot['litnn'] * 1e3:7.2f} ms  torch {tot['torch'] * 1e3:7.2f} ms  gemm {tot['gemm'] * 1e3:7.2f} ms"
          f"   litnn / gemm = {tot['litnn'] / tot['gemm']:.2f}   litnn / torch = {tot['litnn'] / tot['torch']:.2f}")

if __name__ == '__main__': main('--quick' in sys.argv)

"""Per-op overhead: a chain of 200 elementwise ops on a 16x16 tensor, forward and backward.

Target (issue 2): litnn's time per op at most PyTorch's (ratio <= 1.0). Hand-written numpy does the
same forward and the hand-derived backward, with no bookkeeping at all: the floor.

    OMP_NUM_THREADS=1 python bench/elementwise_chain.py [--compiled]

With `--compiled` the "litnn" row is the step compiled by `litnn.compile` (capture and replay, nbs/37_compile),
and "eager" is litnn's eager step, measured in the same run (issue 30's target: litnn / torch <= 0.35).
"""
import sys
import numpy as np
from _common import interleave, report
import litnn, torch
torch.set_num_threads(1)

N_OPS, REPEAT = 200, 40          # 40 rounds of the 5 ops below
rng = np.random.default_rng(0)
x0 = rng.standard_normal((16, 16)).astype(np.float32)
c0 = (rng.random((16, 16)) + 0.5).astype(np.float32)

def chain(lib, x, c):
    "The same program for litnn and torch: mul, add, tanh, mul, sigmoid, 40 times."
    y = x
    for _ in range(REPEAT):
        y = y * c
        y = y + 0.5
        y = y.tanh()
        y = y * 1.5
        y = y.sigmoid()
    return y.sum()

def run_lib(lib):
    x = lib.tensor(x0, requires_grad=True); c = lib.tensor(c0)
    def step():
        x.grad = None
        chain(lib, x, c).backward()
    return step, x

def numpy_step():
    "Forward keeping what backward needs, then the chain rule by hand."
    y, saved = x0, []
    for _ in range(REPEAT):
        y = y * c0
        y = y + 0.5
        t = np.tanh(y); saved.append(t); y = t
        y = y * 1.5
        s = 1 / (1 + np.exp(-y)); saved.append(s); y = s
    g = np.ones_like(y)
    for i in range(REPEAT - 1, -1, -1):
        s = saved[2 * i + 1]; g = g * (s * (1 - s))
        g = g * 1.5
        t = saved[2 * i]; g = g * (1 - t * t)
        g = g * c0
    return g

if __name__ == '__main__':
    lit_step, lx = run_lib(litnn)
    tor_step, tx = run_lib(torch)
    lit_step(); tor_step()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(lx.grad.numpy(), numpy_step(), rtol=1e-4, atol=1e-6)
    steps = {'litnn': lit_step, 'torch': tor_step, 'numpy': numpy_step}
    title = f"elementwise chain: {N_OPS} ops on 16x16, forward + backward (time per op)"
    if '--compiled' in sys.argv:
        eager_step, ex = run_lib(litnn)
        comp = litnn.compile(lit_step)
        for _ in range(3): comp(); eager_step()
        np.testing.assert_array_equal(lx.grad.numpy(), ex.grad.numpy())       # the replay computes eager's bits
        steps, title = {'litnn': comp, 'eager': eager_step, 'torch': tor_step, 'numpy': numpy_step}, title + ", litnn compiled"
    med = interleave(steps)
    report(title, {k: v / N_OPS for k, v in med.items()}, 'us/op', 1e6, base=('numpy', 'torch', 'eager'))

"""Convolutions that are not products of big matrices: depthwise (groups == channels, MobileNet's 3x3, ConvNeXt's
7x7), 1x1 (one product per image, ResNet's bottlenecks, LeViT's projections) and a strided 3x3, forward + backward
(input, weight and bias gradients) in float32 at batch 8, litnn against torch, interleaved. litnn's depthwise loops
need numba (the `fast` extra, in `dev`); without it they take the window-matrix path.

    OMP_NUM_THREADS=1 python bench/conv_kinds.py
"""
import numpy as np
from _common import interleave
import litnn, torch
torch.set_num_threads(1)

SHAPES = [  # name: (N, C, H, O, kernel, stride, padding, groups)
    ('depthwise 3x3, 64ch 16x16', (8, 64, 16, 64, 3, 1, 1, 64)),
    ('depthwise 3x3, 32ch 56x56', (8, 32, 56, 32, 3, 1, 1, 32)),
    ('depthwise 7x7, 96ch 14x14', (8, 96, 14, 96, 7, 1, 3, 96)),
    ('depthwise 3x3 /2, 64ch 32x32', (8, 64, 32, 64, 3, 2, 1, 64)),
    ('1x1, 64 -> 128, 16x16', (8, 64, 16, 128, 1, 1, 0, 1)),
    ('1x1, 256 -> 64, 14x14', (8, 256, 14, 64, 1, 1, 0, 1)),
    ('3x3 /2, 64 -> 128, 16x16', (8, 64, 16, 128, 3, 2, 1, 1)),
]

def make(lib, N, C, H, O, k, s, p, g):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((N, C, H, H)).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((O, C // g, k, k)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(O).astype(np.float32), requires_grad=True)
    def step():
        y = lib.nn.functional.conv2d(x, w, b, stride=s, padding=p, groups=g)
        y.backward(lib.ones_like(y))
        return y
    return step, (x, w, b)

if __name__ == '__main__':
    import litnn.fused
    loops = getattr(litnn.nn.functional, '_dw_forward', None)      # (absent from litnn before them: bench/ab.sh)
    print(f"litnn's depthwise loops: {'on' if loops and litnn.fused.compiled(loops) else 'off (numba missing, LITNN_NUMBA=0, or an older litnn)'}")
    print(f"\n{'convolution, forward + backward':32s} {'litnn':>9s} {'torch':>9s}  litnn / torch")
    for name, cfg in SHAPES:
        (ls, lp), (ts, tp) = make(litnn, *cfg), make(torch, *cfg)
        ly, ty = ls(), ts()
        assert np.allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-3, atol=1e-3)
        assert all(np.allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-3, atol=1e-2) for a, b in zip(lp, tp))
        med = interleave({'litnn': ls, 'torch': ts}, reps=9, inner=5)
        print(f"{name:32s} {med['litnn'] * 1e3:7.2f}ms {med['torch'] * 1e3:7.2f}ms  {med['litnn'] / med['torch']:.2f}")

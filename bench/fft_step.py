"""FFT forward + backward: `fft` and `rfft` of a (64, 4096) float32 signal, loss = sum of magnitudes, backward.

litnn against torch (issue 28, no target), and against numpy's FFT with the backward written by hand (the floor
of a numpy backend): the gradient of sum|X| is X/|X| in torch's convention, and the input's gradient is the real
part of the unnormalized inverse transform of it (of the zero-filled full spectrum, for rfft).
"""
import numpy as np
from _common import interleave, report
import litnn, torch
torch.set_num_threads(1)

rng = np.random.default_rng(0)
x0 = rng.standard_normal((64, 4096)).astype(np.float32)

def run_lib(lib, name):
    x = lib.tensor(x0, requires_grad=True)
    f = getattr(lib.fft, name)
    def step():
        x.grad = None
        f(x).abs().sum().backward()
    return step, x

def numpy_step(name):
    n = x0.shape[-1]
    def step():
        X = np.fft.rfft(x0) if name == 'rfft' else np.fft.fft(x0)
        g = X / np.abs(X)
        if name == 'rfft': g = np.concatenate([g, np.zeros((g.shape[0], n - g.shape[1]), g.dtype)], -1)
        return (np.fft.ifft(g) * n).real
    return step

if __name__ == '__main__':
    for name in ('fft', 'rfft'):
        lit_step, lx = run_lib(litnn, name)
        tor_step, tx = run_lib(torch, name)
        np_step = numpy_step(name)
        lit_step(); tor_step()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(lx.grad.numpy(), np_step(), rtol=1e-3, atol=1e-3)
        med = interleave({'litnn': lit_step, 'torch': tor_step, 'numpy': np_step}, reps=11, inner=5)
        report(f"{name} of a (64, 4096) float32 signal, |X|.sum(), forward + backward", med, 'ms', 1e3)

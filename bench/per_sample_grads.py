"""Per-sample gradients of an MLP (64 samples, 32-64-10): litnn's vmap(grad) against a Python loop of grad, and torch.func.

    OMP_NUM_THREADS=1 python bench/per_sample_grads.py
"""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from _common import interleave, report
import numpy as np
import litnn, torch
import torch.func

def setup(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(32, 64), T.nn.Tanh(), T.nn.Linear(64, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = T.randn(64, 32), T.randn(64, 10)
    loss = lambda p, a, b: T.nn.functional.mse_loss(T.func.functional_call(model, p, (a,)), b)
    return params, x, y, loss

lp, lx, ly, lloss = setup(litnn)
tp, tx, ty, tloss = setup(torch)
batched = litnn.func.vmap(litnn.func.grad(lloss), in_dims=(None, 0, 0))
looped = lambda: [litnn.func.grad(lloss)(lp, lx[i], ly[i]) for i in range(64)]
tbatched = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))
med = interleave({'litnn': lambda: batched(lp, lx, ly), 'loop': looped, 'torch': lambda: tbatched(tp, tx, ty)}, reps=9, inner=3)
report("per-sample gradients, 64 samples, MLP 32-64-10", med, 'ms', 1e3, base=('loop', 'torch'))

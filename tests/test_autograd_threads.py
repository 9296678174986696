"""Backward from several threads at once into shared leaves (Hogwild training), as torch's engine allows it: every
thread's gradient lands in `.grad` (nbs/13_backprop_engine: storing a gradient takes a lock, as torch's AccumulateGrad)."""
import threading
import numpy as np
import pytest
import litnn, torch

def hogwild(lib, n_threads=8, size=1200, rounds=3):
    "Each thread: backward of (2 * w).sum() + (w * w).sum() into the same leaves; the .grad every round ends with."
    out = []
    for _ in range(rounds):
        w = lib.ones(size, size, requires_grad=True)
        v = lib.full((3,), 2.0, requires_grad=True)
        def step():
            ((w * 2.0).sum() + (v * v).sum()).backward()
        ts = [threading.Thread(target=step) for _ in range(n_threads)]
        for t in ts: t.start()
        for t in ts: t.join()
        out.append((np.unique(w.grad.numpy()).tolist(), v.grad.tolist()))
    return out

def test_concurrent_backwards_into_shared_leaves_lose_nothing():
    got = hogwild(litnn)
    assert got == hogwild(torch)
    assert got == [([16.0], [32.0, 32.0, 32.0])] * 3

def test_concurrent_autograd_grad_gives_each_thread_its_own():
    "autograd.grad accumulates nothing: each thread gets the gradient of its own graph."
    def run(lib):
        x = lib.ones(600, 600, requires_grad=True)
        got = [None] * 6
        def f(i):
            (g,) = lib.autograd.grad((x * float(i + 1)).sum(), x)
            got[i] = float(g[0, 0]), x.grad is None
        ts = [threading.Thread(target=f, args=(i,)) for i in range(6)]
        for t in ts: t.start()
        for t in ts: t.join()
        return got
    assert run(litnn) == run(torch) == [(float(i + 1), True) for i in range(6)]

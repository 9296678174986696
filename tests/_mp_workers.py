"""Functions that litnn.multiprocessing tests run in child processes: a module of their own, so that a
spawned child imports litnn and this file only (not pytest, not torch)."""
import os
import litnn
from litnn import nn
import litnn.nn.functional as F

def double_from_queue(q, done):
    "Take a tensor from `q`, double it in place, report on `done`."
    t = q.get(); t.mul_(2); done.put(True)

def describe_from_queue(q, out):
    "Take a tensor from `q` and report what arrived: class, requires_grad, shared, values."
    t = q.get(); out.put((type(t).__name__, t.requires_grad, t.is_shared(), t.tolist()))

def add_rank(i, t):
    "`spawn` target: add i + 1 to the shared tensor's element i."
    t[i] += i + 1

def fail_on(i, bad):
    "`spawn` target: raise in process `bad`."
    if i == bad: raise ValueError(f"process {i} was told to fail")

def exit_with(i, code): os._exit(code)

def total(t): return t.sum().item()

def make_data(scale=0.7):
    "Three overlapping classes of points in 8 dimensions."
    litnn.manual_seed(0)
    centres = litnn.randn(3, 8) * scale
    y = litnn.randint(0, 3, (600,))
    return centres[y] + litnn.randn(600, 8), y

def make_model():
    litnn.manual_seed(1)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))

def train(rank, model, X, Y, nprocs, epochs=5):
    "mnist_hogwild's train(): this process's share of the data, its own SGD, the (shared) model's weights."
    litnn.manual_seed(10 + rank)
    opt = litnn.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    Xr, Yr = X[rank::nprocs], Y[rank::nprocs]
    for _ in range(epochs):
        for idx in litnn.randperm(len(Xr)).split(20):
            opt.zero_grad()
            F.cross_entropy(model(Xr[idx]), Yr[idx]).backward()
            opt.step()

def accuracy(model, X, Y): return (model(X).argmax(1) == Y).float().mean().item()

def fail_or_sleep(i):
    "Process 0 fails at once; the others would sleep for a minute unless stopped."
    import time
    if i == 0: raise RuntimeError("process 0 fails first")
    time.sleep(60)

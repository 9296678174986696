"""Sending a 32 MB float32 tensor to another process and back through a multiprocessing queue: litnn and torch
send a handle on shared memory, a numpy array goes by its elements (pickled).

    OMP_NUM_THREADS=1 python bench/queue_send.py"""
import numpy as np
from _common import interleave, report
import litnn, litnn.multiprocessing as lmp
import torch, torch.multiprocessing as tmp

def echo(inq, outq):
    "Child: send back whatever arrives, until None."
    while (x := inq.get()) is not None: outq.put(x)

def round_trip(mp, x):
    ctx = mp.get_context('fork')
    inq, outq = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=echo, args=(inq, outq)); p.start()
    def once(): inq.put(x); outq.get()
    return once, lambda: (inq.put(None), p.join())

if __name__ == '__main__':
    n = 8 * 2**20   # 32 MB of float32
    fns, stops = {}, []
    for name, mp, x in [('litnn', lmp, litnn.zeros(n)), ('torch', tmp, torch.zeros(n)), ('numpy', lmp, np.zeros(n, np.float32))]:
        fns[name], stop = round_trip(mp, x); stops.append(stop)
    slow = {'numpy': fns.pop('numpy')}       # timed apart: it takes 100 times longer
    med = {**interleave(fns, reps=15, inner=10, warmup=3), **interleave(slow, reps=3, inner=1, warmup=1)}
    for stop in stops: stop()
    report("queue round trip of a 32 MB tensor (fork, one child)", med, 'ms', 1e3)

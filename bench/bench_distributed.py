"""all_reduce through litnn.distributed against the same MPI call made directly with mpi4py, in one `mpiexec -n 2` job.

    OMP_NUM_THREADS=1 mpiexec -n 2 python bench/bench_distributed.py

Prints, for each size, the median time of one all_reduce (sync, float32) in both and their ratio: litnn adds the
signature check (a 1 KiB allgather) and Python bookkeeping per call."""
import time
import numpy as np
import litnn, litnn.distributed as dist
from mpi4py import MPI

def median_time(f, reps):
    ts = []
    for _ in range(reps):
        MPI.COMM_WORLD.Barrier(); t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return float(np.median(ts))

dist.init_process_group("gloo")
comm = MPI.COMM_WORLD.Dup()
for n in (1_000, 100_000, 1_000_000, 10_000_000):
    t, a = litnn.ones(n), np.ones(n, np.float32)
    reps = 200 if n <= 100_000 else 20
    ours = median_time(lambda: dist.all_reduce(t), reps)
    raw = median_time(lambda: comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM), reps)
    if dist.get_rank() == 0:
        print(f"all_reduce float32[{n:>10,}]: litnn {ours * 1e6:9.1f} us   mpi4py {raw * 1e6:9.1f} us   ratio {ours / raw:5.2f}", flush=True)

"""Data-parallel scaling: the 784-512-512-10 MLP trained with SGD at global batch 512, on 2 processes of 1 thread each
(DistributedDataParallel, 256 images per process) against 1 process of 1 thread (the plain model, 512 images).

Prints images/s of both and their ratio (target, issue 17: >= 1.8); the same 2 processes without communication (steps
under `no_sync`), the ceiling that the machine's other load leaves; and, on 2 processes, how backward's time splits:
compute alone (backward under `no_sync`), DDP's backward (compute + hooks + the exposed part of the all-reduces), and
one blocking all-reduce of all the gradients; the fraction of that communication hidden behind backward is
1 - (DDP backward - compute) / all-reduce. Rounds alternate 1 and 2 processes; medians.

    OMP_NUM_THREADS=1 python bench/ddp_scaling.py [--rounds 3] [--steps 30]
"""
import argparse, json, os, statistics, subprocess, sys, time
from pathlib import Path

def model(litnn):
    nn = litnn.nn
    litnn.manual_seed(0)
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))

def worker(steps, global_batch=512):
    "One run: median seconds per training step (and, with 2 processes, the backward split), as JSON from rank 0."
    import litnn, litnn.distributed as dist
    world = int(os.environ.get("PMI_SIZE", "1"))
    if world > 1: dist.init_process_group("gloo")
    rank = dist.get_rank() if world > 1 else 0
    net = model(litnn)
    ddp = litnn.nn.parallel.DistributedDataParallel(net) if world > 1 else net
    opt = litnn.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    g = litnn.Generator().manual_seed(rank)
    x, y = litnn.randn(global_batch // world, 1, 28, 28, generator=g), litnn.randint(0, 10, (global_batch // world,), generator=g)
    loss_fn = litnn.nn.CrossEntropyLoss()
    def step():
        opt.zero_grad(); loss_fn(ddp(x), y).backward(); opt.step()
    def backward_time(sync):
        opt.zero_grad()
        if sync: loss = loss_fn(ddp(x), y)
        else:
            with ddp.no_sync(): loss = loss_fn(ddp(x), y)
        t = time.perf_counter(); loss.backward(); return time.perf_counter() - t
    for _ in range(3): step()                   # warm-up (and DDP's bucket rebuild)
    if world > 1: dist.barrier()
    times = []
    for _ in range(steps):
        t = time.perf_counter(); step(); times.append(time.perf_counter() - t)
    out = {"world": world, "step_s": statistics.median(times)}
    if world > 1:
        def local_step():
            opt.zero_grad()
            with ddp.no_sync(): loss_fn(ddp(x), y).backward()
            opt.step()
        dist.barrier(); times = []
        for _ in range(steps):
            t = time.perf_counter(); local_step(); times.append(time.perf_counter() - t)
        out["step_nosync_s"] = statistics.median(times)     # the same compute with no communication: what the machine allows
        flat = litnn.cat([p.detach().reshape(-1) for p in net.parameters()])
        def allreduce_time():
            dist.barrier(); t = time.perf_counter(); dist.all_reduce(flat); return time.perf_counter() - t
        split = [(backward_time(False), backward_time(True), allreduce_time()) for _ in range(steps)]   # interleaved: same load
        for k, col in zip(("backward_compute_s", "backward_ddp_s", "allreduce_s"), zip(*split)): out[k] = statistics.median(col)
        out["buckets"] = len(ddp.reducer.buckets)
    if rank == 0: print(json.dumps(out))

def run(n, steps):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = ["mpiexec", "-n", str(n), sys.executable, __file__, "--worker", "--steps", str(steps)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode: sys.exit(r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3); p.add_argument("--steps", type=int, default=30)
    p.add_argument("--worker", action="store_true")
    a = p.parse_args()
    if a.worker: return worker(a.steps)
    ones, twos = [], []
    for _ in range(a.rounds): ones.append(run(1, a.steps)); twos.append(run(2, a.steps))
    med = lambda rs, k: statistics.median(r[k] for r in rs)
    one, two = 512 / med(ones, "step_s"), 512 / med(twos, "step_s")
    comp, ddp, comm = med(twos, "backward_compute_s"), med(twos, "backward_ddp_s"), med(twos, "allreduce_s")
    hidden = min(max(1 - (ddp - comp) / comm, 0.0), 1.0)
    print(f"784-512-512-10 MLP, SGD, global batch 512, 1 thread per process ({a.rounds} rounds of {a.steps} steps, medians)")
    print(f"  1 process : {one:8.0f} images/s")
    print(f"  2 processes: {two:8.0f} images/s   (DDP, {twos[0]['buckets']} buckets)")
    ceiling = 512 / med(twos, "step_nosync_s")
    print(f"  2 processes / 1 process = {two / one:.2f}   (target >= 1.8)")
    print(f"  2 processes without communication (no_sync): {ceiling:8.0f} images/s = {ceiling / one:.2f} x 1 process: "
          f"the machine's ceiling now; DDP reaches {two / ceiling:.0%} of it")
    print(f"  backward on 2 processes: compute {comp * 1e3:.1f} ms, with DDP {ddp * 1e3:.1f} ms; one blocking all-reduce of all "
          f"gradients {comm * 1e3:.1f} ms ({comm / comp:.0%} of the compute)")
    print(f"  communication hidden behind backward: {hidden:.0%}")

if __name__ == "__main__": main()

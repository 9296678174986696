"""Shared timing helpers for the benchmarks: one thread, interleaved runs, medians and ratios."""
import os, time, statistics
os.environ.setdefault('OMP_NUM_THREADS', '1')
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')

def interleave(fns, reps=15, inner=10, warmup=3):
    "Time each of `fns` (a dict name -> callable) `reps` times, interleaved; median seconds per call."
    for f in fns.values():
        for _ in range(warmup): f()
    times = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            t = time.perf_counter()
            for _ in range(inner): f()
            times[k].append((time.perf_counter() - t) / inner)
    return {k: statistics.median(v) for k, v in times.items()}

def report(title, med, unit, scale, base=('numpy', 'torch')):
    "Print medians and the ratio of litnn to each baseline."
    print(f"\n{title}")
    for k, v in med.items(): print(f"  {k:8s} {v * scale:9.2f} {unit}")
    for b in base:
        if b in med: print(f"  litnn / {b:6s} = {med['litnn'] / med[b]:.2f}")

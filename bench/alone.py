"""Each library alone in its own process: the step of another benchmark timed in a fresh process per library,
processes alternated, so that neither library's memory use changes the other's timing.

The other benchmarks run litnn and torch interleaved in one process, which is fair to their Python and their kernels
but not to their memory: importing litnn sets glibc's malloc thresholds (reference/cpu, "Memory between training
steps"), and torch in the same process then takes no page faults either, where alone, as its users run it, it keeps
glibc's defaults. Here the torch process imports litnn with `LITNN_MALLOPT=0` (the benchmarks' modules import both),
so each library runs as its users would see it.

    OMP_NUM_THREADS=1 python bench/alone.py [gpt_step mlp_step cnn_step lstm_step elementwise_chain] [--rounds 3]
"""
import os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = {'gpt_step': 10, 'mlp_step': 200, 'cnn_step': 100, 'lstm_step': 5, 'elementwise_chain': 200}

# One process: build the step of `bench/<name>.py` for one library, warm it, time `n` steps in blocks, print the median.
CHILD = """
import sys, time, statistics
sys.path.insert(0, {here!r})
name, lib_name, n = {name!r}, {lib!r}, {n}
M = __import__(name)
import litnn, torch
torch.set_num_threads(1)
lib = litnn if lib_name == 'litnn' else torch
made = M.make_step(lib) if hasattr(M, 'make_step') else M.run_lib(lib)
step = made[0] if isinstance(made, tuple) else made
for _ in range(3): step()
block, times = max(1, n // 10), []
for _ in range(10):
    t = time.perf_counter()
    for _ in range(block): step()
    times.append((time.perf_counter() - t) / block)
print(statistics.median(times))
"""

def alone(name, lib, n):
    "Median seconds per step of `bench/<name>.py`'s step for `lib`, in a fresh process."
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get('OMP_NUM_THREADS', '1'))
    if lib == 'torch': env['LITNN_MALLOPT'] = '0'     # (torch's users run on glibc's defaults)
    out = subprocess.run([sys.executable, '-c', CHILD.format(here=HERE, name=name, lib=lib, n=n)], env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])

if __name__ == '__main__':
    args = sys.argv[1:]
    rounds = int(args[args.index('--rounds') + 1]) if '--rounds' in args else 3
    names = [a for a in args if a in STEPS] or list(STEPS)
    for name in names:
        t = {'litnn': [], 'torch': []}
        for _ in range(rounds):
            for lib in t: t[lib].append(alone(name, lib, STEPS[name]))
        m = {lib: statistics.median(v) for lib, v in t.items()}
        print(f"{name:18s} litnn {m['litnn'] * 1e3:8.2f} ms   torch {m['torch'] * 1e3:8.2f} ms   "
              f"litnn / torch = {m['litnn'] / m['torch']:.2f}   (each alone in its process, {rounds} rounds)")

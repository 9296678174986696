"""Runs inside `mpiexec -n 2` (or litnn.distributed.run) for tests/test_distributed.py: one job does many checks and each
rank writes what it saw to OUT/rank<r>.json, which the tests compare with numpy on the ranks' inputs."""
import datetime, json, os, sys, time
import numpy as np
import litnn
import litnn.distributed as dist

DTYPES = ["float64", "float32", "int64"]
OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]

def inputs(rank, shape=(2, 3), dtype="float64"):
    "Rank `rank`'s input: the test process makes the same ones to compute the expected results."
    rng = np.random.default_rng(100 + rank)
    a = rng.integers(1, 6, shape) if dtype.startswith("int") else rng.standard_normal(shape) + 2
    return a.astype(dtype)

def record(out, name, f):
    "Run check `f`, keeping its result (or its error, as 'Type: message')."
    try: out[name] = f()
    except Exception as e: out[name] = {"error": f"{type(e).__name__}: {e}"}

def t_(a): return litnn.tensor(a)

def core(out, me, n):
    out["world"] = [dist.is_initialized(), dist.get_rank(), dist.get_world_size(), dist.get_backend()]
    for dt in DTYPES:
        for op in OPS:
            def f(dt=dt, op=op):
                t = t_(inputs(me, dtype=dt)); dist.all_reduce(t, op=getattr(dist.ReduceOp, op)); return t.tolist()
            record(out, f"all_reduce/{op}/{dt}", f)
    def asynchronous():
        ts = [t_(inputs(me) * k) for k in (1, 2, 3)]
        works = [dist.all_reduce(t, async_op=True) for t in ts]
        done = [w.wait() for w in reversed(works)]
        return {"values": [t.tolist() for t in ts], "waited": done, "completed": [w.is_completed() for w in works],
                "type": type(works[0]).__name__}
    record(out, "all_reduce/async", asynchronous)
    def view():
        base = t_(inputs(me, (3, 2))); v = base.t(); dist.all_reduce(v); return base.tolist()
    record(out, "all_reduce/noncontiguous", view)
    record(out, "all_reduce/float16", lambda: (lambda t: (dist.all_reduce(t), t.dtype.name, t.tolist())[1:])(t_(inputs(me, dtype="float32")).half()))
    record(out, "all_reduce/bool", lambda: (lambda t: (dist.all_reduce(t), t.tolist())[1])(t_(np.array([me == 0, False, True]))))
    for op in ("SUM", "MAX"):
        record(out, f"reduce/{op}", lambda op=op: (lambda t: (dist.reduce(t, dst=0, op=getattr(dist.ReduceOp, op)), t.tolist())[1])(t_(inputs(me))))
    record(out, "broadcast", lambda: (lambda t: (dist.broadcast(t, src=1), t.tolist())[1])(t_(inputs(me, dtype="float32"))))
    record(out, "broadcast/async", lambda: (lambda t, w: (w.wait(), t.tolist())[1])(*(lambda t: (t, dist.broadcast(t, src=0, async_op=True)))(t_(inputs(me)))))
    record(out, "barrier", lambda: [dist.barrier(), dist.barrier(async_op=True).wait()])
    record(out, "mismatch/shape", lambda: dist.all_reduce(t_(inputs(me, (2, 2 + me)))))
    record(out, "mismatch/dtype", lambda: dist.all_reduce(t_(inputs(me, dtype=["float32", "float64"][me]))))
    record(out, "mismatch/op", lambda: dist.all_reduce(t_(inputs(me)), op=[dist.ReduceOp.SUM, dist.ReduceOp.MAX][me]))
    record(out, "after_mismatch", lambda: (lambda t: (dist.all_reduce(t), t.tolist())[1])(t_(inputs(me))))

def timeout(out, me, n):
    "Rank 1 never calls all_reduce: rank 0 must give up after the group's 2 s timeout."
    if me == 1: time.sleep(4); return
    start = time.monotonic()
    record(out, "timeout", lambda: dist.all_reduce(t_(inputs(me))))
    out["seconds"] = time.monotonic() - start

def failure(out, me, n):
    "Rank 1 raises: rank 0, waiting in all_reduce (timeout 60 s), must fail at once naming rank 1."
    if me == 1:
        with open(os.path.join(sys.argv[2], "rank1.json"), "w") as f: json.dump(out, f)
        raise ValueError("rank 1 gives up")
    start = time.monotonic()
    record(out, "failure", lambda: dist.all_reduce(t_(inputs(me))))
    out["seconds"] = time.monotonic() - start

SUITES = {"core": core, "timeout": timeout, "failure": failure}

if __name__ == "__main__":
    suite, out_dir = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=2 if suite == "timeout" else 60))
    me, n, out = dist.get_rank(), dist.get_world_size(), {}
    SUITES[suite](out, me, n)
    with open(os.path.join(out_dir, f"rank{me}.json"), "w") as f: json.dump(out, f)

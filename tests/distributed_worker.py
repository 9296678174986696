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
    def polled():   # is_completed alone drives the operation to its end
        t = t_(inputs(me)); w = dist.all_reduce(t, async_op=True); polls = 0
        while not w.is_completed(): polls += 1; time.sleep(1e-3)
        return [t.tolist(), w.wait(timeout=datetime.timedelta(seconds=5)), repr(w)]
    record(out, "all_reduce/polled", polled)
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

def pieces(out, me, n):
    "The collectives that move pieces (73a_collectives)."
    x = lambda shape=(2, 3), dt="float64": t_(inputs(me, shape, dt))
    def gathered(async_op=False):
        got = [t_(np.zeros((2, 3), np.float32)) for _ in range(n)]
        w = dist.all_gather(got, x(dt="float32"), async_op=async_op)
        if async_op: w.wait()
        return [g.tolist() for g in got]
    record(out, "all_gather", gathered)
    record(out, "all_gather/async", lambda: gathered(True))
    record(out, "all_gather/bfloat16", lambda: (lambda got: (dist.all_gather(got, x().to(litnn.bfloat16)), [g.float().tolist() for g in got])[1])(
        [litnn.zeros(2, 3, dtype=litnn.bfloat16) for _ in range(n)]))
    for shape in ((2 * n, 3), (n, 2, 3)):
        record(out, f"all_gather_into_tensor/{len(shape)}", lambda shape=shape: (lambda o: (dist.all_gather_into_tensor(o, x()), o.tolist())[1])(litnn.zeros(*shape, dtype=litnn.float64)))
    for op in OPS:
        record(out, f"reduce_scatter/{op}", lambda op=op: (lambda o: (dist.reduce_scatter(o, [x() * (k + 1) for k in range(n)], op=getattr(dist.ReduceOp, op)), o.tolist())[1])(litnn.zeros(2, 3, dtype=litnn.float64)))
    record(out, "reduce_scatter_tensor", lambda: (lambda o: (dist.reduce_scatter_tensor(o, x((2 * n, 3))), o.tolist())[1])(litnn.zeros(2, 3, dtype=litnn.float64)))
    record(out, "gather", lambda: (lambda lst: (dist.gather(x(), lst, dst=1), lst and [t.tolist() for t in lst])[1])(
        [litnn.zeros(2, 3, dtype=litnn.float64) for _ in range(n)] if me == 1 else None))
    record(out, "scatter", lambda: (lambda o: (dist.scatter(o, [x() * (k + 1) for k in range(n)] if me == 1 else None, src=1), o.tolist())[1])(litnn.zeros(2, 3, dtype=litnn.float64)))
    def a2a():   # rank i sends rank j i + j + 1 numbers
        ins = [t_(inputs(me, (me + j + 1,))) + 10 * j for j in range(n)]
        outs = [litnn.zeros(i + me + 1, dtype=litnn.float64) for i in range(n)]
        dist.all_to_all(outs, ins)
        return [o.tolist() for o in outs]
    record(out, "all_to_all", a2a)
    record(out, "all_to_all_single", lambda: (lambda o: (dist.all_to_all_single(o, x((2 * n, 3))), o.tolist())[1])(litnn.zeros(2 * n, 3, dtype=litnn.float64)))
    def p2p():
        if me == 0:
            dist.send(x(), dst=1); w = dist.isend(x() * 2, dst=1, tag=7); w.wait()
            r = litnn.zeros(2, 3, dtype=litnn.float64); src = dist.recv(r); return [src, r.tolist()]
        a, b = litnn.zeros(2, 3, dtype=litnn.float64), litnn.zeros(2, 3, dtype=litnn.float64)
        wb = dist.irecv(b, src=0, tag=7); src = dist.recv(a, src=0); wb.wait()
        dist.send(a + b, dst=0)
        return [src, a.tolist(), b.tolist(), wb.is_completed()]
    record(out, "send_recv", p2p)
    def p2p_mismatch():
        if me == 0: dist.isend(x((2, 2)), dst=1); return None
        return dist.recv(litnn.zeros(3, dtype=litnn.float64), src=0)
    record(out, "recv/mismatch", p2p_mismatch)
    record(out, "send/self", lambda: dist.send(x(), dst=me))
    record(out, "all_gather/wrong_list", lambda: dist.all_gather([litnn.zeros(2, 3, dtype=litnn.float64)] * (n - me), x()))
    record(out, "all_to_all/mismatch", lambda: dist.all_to_all([litnn.zeros(1 + me, dtype=litnn.float64) for _ in range(n)], [litnn.zeros(1, dtype=litnn.float64) for _ in range(n)]))
    record(out, "broadcast/no_src", lambda: dist.broadcast(x()))
    def groups():
        g1, g = dist.new_group([1]), dist.new_group([0, 1])
        t = x(); dist.all_reduce(t, group=g)
        solo = None
        if g1 != dist.GroupMember.NON_GROUP_MEMBER:
            solo = x(); dist.all_reduce(solo, group=g1); solo = solo.tolist()
        b = x(); dist.broadcast(b, group=g, group_src=1)
        return {"member": g1 != dist.GroupMember.NON_GROUP_MEMBER, "rank_in_g1": dist.get_rank(g1), "size_g1": dist.get_world_size(g1),
                "ranks": dist.get_process_group_ranks(g), "sum": t.tolist(), "solo": solo, "b": b.tolist(),
                "outsider_call": dist.all_reduce(x(), group=g1) if g1 == dist.GroupMember.NON_GROUP_MEMBER else "member"}
    record(out, "groups", groups)
    record(out, "new_group/mismatch", lambda: dist.new_group([0, 1] if me == 0 else [1]))
    def source():
        if me == 0: dist.send(x(), dst=1); return None
        w = dist.irecv(litnn.zeros(2, 3, dtype=litnn.float64)); w.wait(); return w.source_rank()
    record(out, "irecv/source_rank", source)

class Allowed:
    def __init__(self, v): self.v = v

class Refused: pass

def objects(out, me, n):
    "The object collectives (73b_plain_objects): allow-listed types only."
    def gathered(obj):
        got = [None] * n; dist.all_gather_object(got, obj); return got
    record(out, "all_gather_object", lambda: [[g["rank"], g["w"].tolist(), g["a"].tolist(), g["nested"]] for g in
                                              gathered({"rank": me, "w": litnn.ones(2) * me, "a": np.arange(3) + me, "nested": ("x", {1: [me, None]})})])
    def bcast():
        objs = [{"lr": 0.1}, "s", 3] if me == 1 else [None, None, None]
        dist.broadcast_object_list(objs, src=1); return objs
    record(out, "broadcast_object_list", bcast)
    def gobj():
        got = [None] * n if me == 0 else None
        dist.gather_object(["x" * (me + 1)], got, dst=0); return got
    record(out, "gather_object", gobj)
    def sobj():
        o = [None]; dist.scatter_object_list(o, [{"to": r} for r in range(n)] if me == 0 else None, src=0); return o
    record(out, "scatter_object_list", sobj)
    record(out, "object/refused", lambda: gathered(Refused() if me == 1 else 0))
    record(out, "object/code", lambda: gathered((lambda: 0) if me == 1 else 0))
    litnn.serialization.add_safe_globals([Allowed])
    record(out, "object/allowed", lambda: [g.v for g in gathered(Allowed(me))])
    record(out, "object/after", lambda: gathered(me))

def gpu(out, me, n):
    "CuPy tensors: through the host with the MPI engine ('gloo'), on the GPU with 'nccl' (one GPU per rank)."
    dev = "cuda"
    t = litnn.tensor(inputs(me), device=dev); dist.all_reduce(t); out["all_reduce"] = [t.device.type, t.tolist()]
    got = [litnn.zeros(2, 3, dtype=litnn.float64, device=dev) for _ in range(n)]
    dist.all_gather(got, litnn.tensor(inputs(me), device=dev)); out["all_gather"] = [g.tolist() for g in got]
    b = litnn.tensor(inputs(me), device=dev); dist.broadcast(b, src=1); out["broadcast"] = b.tolist()
    rs = litnn.zeros(2, 3, dtype=litnn.float64, device=dev)
    dist.reduce_scatter_tensor(rs, litnn.tensor(inputs(me, (2 * n, 3)), device=dev)); out["reduce_scatter_tensor"] = rs.tolist()
    if me == 0: dist.send(litnn.tensor(inputs(0), device=dev), dst=1)
    else:
        r = litnn.zeros(2, 3, dtype=litnn.float64, device=dev); dist.recv(r, src=0); out["recv"] = r.tolist()
    objs = [None] * n; dist.all_gather_object(objs, {"rank": me}); out["objects"] = objs

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

def differentiable(out, me, n):
    "torch.distributed.nn's collectives: results and the gradients that flow back across the ranks."
    import litnn.distributed.nn as dnn
    w = [t_(inputs(r) * 0 + np.arange(6).reshape(2, 3) + 10 * r) for r in range(n)]    # rank r's loss weights
    def grads(f):
        x = t_(inputs(me)).requires_grad_()
        ys = f(x)
        ys = ys if isinstance(ys, tuple) else (ys,)
        sum((y * w[me]).sum() for y in ys).backward()
        return [[y.tolist() for y in ys], x.grad.tolist() if x.grad is not None else None]
    record(out, "nn.all_reduce", lambda: grads(dnn.all_reduce))
    record(out, "nn.all_gather", lambda: grads(dnn.all_gather))
    record(out, "nn.broadcast", lambda: grads(lambda x: dnn.broadcast(x, 1)))
    record(out, "nn.reduce", lambda: grads(lambda x: dnn.reduce(x, 0)))

def everything(out, me, n): core(out, me, n); pieces(out, me, n); objects(out, me, n)

SUITES = {"core": everything, "differentiable": differentiable, "gpu": gpu, "nccl": gpu, "timeout": timeout, "failure": failure}

if __name__ == "__main__":
    suite, out_dir = sys.argv[1], sys.argv[2]
    if suite == "nccl": litnn.cuda.set_device(int(os.environ.get("PMI_RANK", 0)))   # one GPU per rank, before NCCL starts
    dist.init_process_group("nccl" if suite == "nccl" else "gloo", timeout=datetime.timedelta(seconds=2 if suite == "timeout" else 60))
    me, n, out = dist.get_rank(), dist.get_world_size(), {}
    SUITES[suite](out, me, n)
    with open(os.path.join(out_dir, f"rank{me}.json"), "w") as f: json.dump(out, f)

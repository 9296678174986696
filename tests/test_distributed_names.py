"""torch.distributed names beside the collectives, against torch: object send/receive, batched point to point, subgroups,
monitored_barrier, the coalesced calls, the small questions (get_pg_count, debug levels, ...), the errors, and the
key-value stores. One-process scripts run under torch and under litnn (gloo in torch, MPI in litnn); a short MPI job of
two ranks checks what needs two."""
import json, os, sys, textwrap
from pathlib import Path
import pytest
import litnn.distributed as dist

sys.path.insert(0, str(Path(__file__).parent))
from test_distributed import _one_rank_both_ways
from mpi_launch import mpiexec

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="mpi4py is not installed")

HEAD = r'''
import json, tempfile, warnings, datetime, os, threading
import torch, torch.distributed as dist
out = {}
def run(name, f):
    try: out[name] = f()
    except Exception as e: out[name] = [type(e).__name__, str(e).replace("litnn.", "torch.")]
'''

NAMES = HEAD + r'''
run("pg_count before", dist.get_pg_count)
run("node_local_rank", lambda: dist.get_node_local_rank(fallback_rank=3))
run("node_local_rank none", lambda: dist.get_node_local_rank())
run("avail", lambda: [dist.is_backend_available(b) for b in ("gloo", "GLOO", "foo", "cpu:gloo")])
run("complex", lambda: [dist.supports_complex(o) for o in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX, dist.ReduceOp.BXOR, dist.ReduceOp.PREMUL_SUM)])
run("debug", lambda: [str(dist.get_debug_level()), repr(dist.get_debug_level()), int(dist.DebugLevel.DETAIL), dist.DebugLevel.INFO.name, list(dist.DebugLevel.__members__)])
def debug_env():
    got = []
    for v in ["INFO", "detail", "bogus"]:
        os.environ["TORCH_DISTRIBUTED_DEBUG"] = v
        try: dist.set_debug_level_from_env(); got.append(str(dist.get_debug_level()))
        except Exception as e: got.append([type(e).__name__, str(e)])
    del os.environ["TORCH_DISTRIBUTED_DEBUG"]; dist.set_debug_level(dist.DebugLevel.OFF)
    try: dist.set_debug_level(1)
    except Exception as e: got.append(type(e).__name__)
    return got
run("debug env", debug_env)
run("timeout", lambda: str(dist.default_pg_timeout))
run("errors", lambda: [[c.__name__ for c in e.__mro__[:-3]] for e in (dist.DistError, dist.DistBackendError, dist.DistNetworkError, dist.DistStoreError, dist.QueueEmptyError)])
run("error modules", lambda: [e.__module__.replace("litnn", "torch") for e in (dist.DistError, dist.QueueEmptyError)])
run("before init", lambda: dist.monitored_barrier())
run("p2p before", lambda: dist.P2POp(dist.isend, torch.ones(2), 0))
run("store and init_method", lambda: dist.init_process_group("gloo", init_method="file:///x", store=dist.HashStore(), rank=0, world_size=1))
run("store no world", lambda: dist.init_process_group("gloo", store=dist.HashStore(), rank=0))
dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
run("pg_count", dist.get_pg_count)
run("mb", lambda: dist.monitored_barrier())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    run("mb float", lambda: dist.monitored_barrier(timeout=5.0))
    out["mb warnings"] = [(i.category.__name__, str(i.message)) for i in w]
run("mb td", lambda: dist.monitored_barrier(timeout=datetime.timedelta(seconds=3), wait_all_ranks=True))
run("subgroups", lambda: [type(g).__name__ for g in [dist.new_subgroups(1)[0]]] + [len(dist.new_subgroups(1)[1])])
run("pg_count2", dist.get_pg_count)
run("subgroups 0", lambda: dist.new_subgroups(0))
run("subgroups 2", lambda: dist.new_subgroups(2))
run("subgroups none", lambda: dist.new_subgroups())
run("enum empty", lambda: dist.new_subgroups_by_enumeration([]))
run("enum", lambda: [dist.get_process_group_ranks(g) for g in dist.new_subgroups_by_enumeration([[0]])[1]])
run("enum dup", lambda: dist.new_subgroups_by_enumeration([[0], [0]]))
run("pg_count3", dist.get_pg_count)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    x = torch.arange(4.)
    run("arc", lambda: [dist.all_reduce_coalesced([x, x * 2]), x.tolist()])
    run("arc tensor", lambda: [dist.all_reduce_coalesced(x), x.tolist()])
    outs = [[torch.zeros(4), torch.zeros(2)]]
    run("agc", lambda: [dist.all_gather_coalesced(outs, [x, x[:2] + 7]), [t.tolist() for t in outs[0]]])
    run("arc async", lambda: (lambda f: [type(f).__name__, [t.tolist() for t in f.wait()]])(dist.all_reduce_coalesced([x], async_op=True)))
    run("arc mixed", lambda: dist.all_reduce_coalesced([x, x.long()]))
    run("arc complex max", lambda: dist.all_reduce_coalesced([torch.ones(2, dtype=torch.complex64)], op=dist.ReduceOp.MAX))
    run("agc not list", lambda: dist.all_gather_coalesced((1,), [x]))
    out["warnings"] = [(i.category.__name__, str(i.message)) for i in w]
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    x, o = torch.arange(4.), torch.zeros(4)
    for name in ("all_gather_into_tensor", "_all_gather_base", "all_gather_single"):
        run(name, lambda: [getattr(dist, name)(o, x + 1), o.tolist(), getattr(dist, name).__name__])
    for name in ("reduce_scatter_tensor", "_reduce_scatter_base", "reduce_scatter_single"):
        run(name, lambda: [getattr(dist, name)(o, x * 2), o.tolist()])
    out["renamed warnings"] = [(i.category.__name__, str(i.message)) for i in w]
run("ucc xccl", lambda: [dist.is_ucc_available(), dist.is_xccl_available(), dist._rank_not_in_group(None), dist._rank_not_in_group(dist.group.WORLD)])
run("p2p bad op", lambda: dist.P2POp(dist.send, torch.ones(2), 0))
run("p2p bad tensor", lambda: dist.P2POp(dist.isend, [1], 0))
run("p2p no peer", lambda: dist.P2POp(dist.isend, torch.ones(2)))
run("p2p repr", lambda: repr(dist.P2POp(dist.isend, torch.ones(2), 0)).replace("litnn.", "torch."))
run("p2p attrs", lambda: (lambda p: [p.peer, p.group_peer, p.tag, p.group is None])(dist.P2POp(dist.irecv, torch.ones(2), group_peer=0, tag=3)))
run("batch empty", lambda: dist.batch_isend_irecv([]))
run("batch bad", lambda: dist.batch_isend_irecv([1]))
run("sol self", lambda: dist.send_object_list([1], 0))
run("rol self", lambda: dist.recv_object_list([1], 0))
run("sol none", lambda: dist.send_object_list([1]))
dist.destroy_process_group()
run("pg_count end", dist.get_pg_count)
print(json.dumps(out))
'''

def test_names_on_one_rank_as_torch(tmp_path):
    "The names beside the collectives in a world of one process: values, errors, warnings, counts as torch's."
    want, got = _one_rank_both_ways(tmp_path, NAMES, "distributed_c10d")
    assert got == want


STORES = HEAD + r'''
def ex(tag, s):
    run(tag + " set", lambda: s.set("a", "1"))
    run(tag + " set bytes", lambda: s.set("b", b"\x00\xff"))
    run(tag + " get", lambda: repr(s.get("a")))
    run(tag + " get b", lambda: repr(s.get("b")))
    run(tag + " add", lambda: [s.add("n", 2), s.add("n", 3), repr(s.get("n"))])
    run(tag + " add to text", lambda: s.add("a", 1))
    run(tag + " cs", lambda: [repr(s.compare_set("a", "1", "2")), repr(s.compare_set("a", "x", "3")), repr(s.compare_set("new", "", "v")),
                              repr(s.compare_set("new2", "x", "v")), repr(s.get("a"))])
    run(tag + " check", lambda: [s.check(["a"]), s.check(["a", "zz"]), s.check([])])
    if tag != "file": run(tag + " num", lambda: s.num_keys())   # torch's FileStore counts a key of its own
    if tag != "file": run(tag + " del", lambda: [s.delete_key("a"), s.delete_key("a"), s.num_keys()])
    run(tag + " mset", lambda: [s.multi_set(["x", "y"], ["1", b"2"]), [repr(v) for v in s.multi_get(["x", "y"])]])
    run(tag + " append", lambda: [s.append("x", "z"), s.append("q", "w"), repr(s.get("x")), repr(s.get("q"))])
    run(tag + " wait ok", lambda: s.wait(["x"]))
    run(tag + " wait to", lambda: s.wait(["nope"], datetime.timedelta(milliseconds=100)))
    s.set_timeout(datetime.timedelta(milliseconds=100))
    run(tag + " timeout", lambda: str(s.timeout))
    run(tag + " get missing", lambda: s.get("nope"))
    run(tag + " multi_get missing", lambda: s.multi_get(["x", "nope"]))
    for name, f in (("set int", lambda: s.set("i", 3)), ("get int", lambda: s.get(3))):
        try: f(); out[tag + " " + name] = None
        except Exception as e: out[tag + " " + name] = type(e).__name__   # pybind's message names its own signature
    run(tag + " has ext", lambda: s.has_extended_api())
    if tag != "file":
        run(tag + " queue", lambda: [s.queue_push("qu", "a"), s.queue_push("qu", b"b"), s.queue_len("qu"), repr(s.queue_pop("qu")),
                                     repr(s.queue_pop("qu", block=False)), s.queue_len("qu"), sorted(s.list_keys()) == sorted(s.list_keys())])
        run(tag + " queue empty", lambda: s.queue_pop("qu", block=False))
        run(tag + " queue timeout", lambda: s.queue_pop("qu"))
        run(tag + " list_keys", lambda: [sorted(s.list_keys()), s.num_keys(), type(s.clone()).__name__, repr(s.clone().get("x"))])
    else:
        run(tag + " queue", lambda: s.queue_push("qu", "a"))
    if tag != "tcp":   # torch's TCPStore client cannot answer another thread while it waits
        run(tag + " wait thread", lambda: (lambda t: (t.start(), s.wait(["late"], datetime.timedelta(seconds=5)), repr(s.get("late")))[2])(
            threading.Timer(0.05, lambda: s.set("late", "ok"))))
ex("hash", dist.HashStore())
ex("file", dist.FileStore(tempfile.mktemp(), 1))
tcp = dist.TCPStore("127.0.0.1", 0, 1, True, wait_for_workers=False)
run("tcp attrs", lambda: [tcp.port > 0, tcp.host, tcp.libuvBackend, str(tcp.timeout)])
ex("tcp", tcp)
c = dist.TCPStore("127.0.0.1", tcp.port, is_master=False)
run("tcp client", lambda: [c.set("k", "v"), repr(tcp.get("k")), c.add("n", 10)])
ex("prefix", dist.PrefixStore("pre", dist.HashStore()))
h = dist.HashStore(); p = dist.PrefixStore("pre", h); p.set("k", "v")
run("prefix under", lambda: [repr(h.get("pre/k")), p.underlying_store is h, h.num_keys(), p.num_keys()])
run("default timeout", lambda: str(dist.HashStore().timeout))
run("classes", lambda: [[b.__name__ for b in k.__mro__[:2]] for k in (dist.HashStore, dist.FileStore, dist.TCPStore, dist.PrefixStore)])
try: dist.Store().set("a", "b"); out["abstract"] = None
except Exception as e: out["abstract"] = type(e).__name__
print(json.dumps(out))
'''

def test_stores_in_one_process_as_torch(tmp_path):
    "HashStore, FileStore, TCPStore (master and a client), PrefixStore: each operation's value and each timeout's error as torch's."
    want, got = _one_rank_both_ways(tmp_path, STORES, "distributed_c10d")
    assert got == want


MESH = r'''
import json, tempfile
import torch, torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh, DeviceMesh
out = {}
def run(name, f):
    try: out[name] = f()
    except Exception as e: out[name] = [type(e).__name__, str(e).replace("litnn", "torch")]
    out[name] = json.loads(json.dumps(out[name], default=lambda o: "obj " + type(o).__name__).replace("litnn.", "torch."))
dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
m = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
run("1d", lambda: [repr(m), str(m), m.device_type, m.ndim, m.shape, m.size(), m.size(0), m.get_rank(), m.get_local_rank(), m.get_coordinate(), m.mesh_dim_names, m.mesh.tolist(), str(m.mesh.dtype)])
run("1d group", lambda: [dist.get_process_group_ranks(m.get_group()), dist.get_process_group_ranks(m.get_group("dp")), dist.get_process_group_ranks(m.get_group(0)), len(m.get_all_groups())])
run("1d slice", lambda: repr(m["dp"]))
run("1d slice bad", lambda: m["tp"])
run("1d group bad", lambda: m.get_group("tp"))
run("1d group idx bad", lambda: m.get_group(1))
m2 = init_device_mesh("cpu", (1, 1), mesh_dim_names=("dp", "tp"))
run("2d", lambda: [repr(m2), m2.ndim, m2.shape, m2.size(), m2.size(1), m2.get_local_rank("tp"), m2.get_local_rank(0), m2.get_coordinate(), m2.mesh.tolist()])
run("2d group none", lambda: m2.get_group())
run("2d local none", lambda: m2.get_local_rank())
run("2d slices", lambda: [repr(m2["dp"]), repr(m2["tp"]), repr(m2["dp", "tp"]), m2["tp"].mesh_dim_names, m2["tp"].ndim])
run("2d slice rev", lambda: repr(m2["tp", "dp"]))
run("2d groups", lambda: [dist.get_process_group_ranks(g) for g in m2.get_all_groups()])
run("eq", lambda: [m2["dp"] == m2["dp"], m == m2])
run("nonames", lambda: repr(init_device_mesh("cpu", (1,))))
run("nonames slice", lambda: init_device_mesh("cpu", (1,))["dp"])
run("nonames 2d", lambda: [repr(init_device_mesh("cpu", (1, 1))), init_device_mesh("cpu", (1, 1)).mesh_dim_names])
run("bad size", lambda: init_device_mesh("cpu", (2,)))
run("bad size 2d", lambda: init_device_mesh("cpu", (2, 1), mesh_dim_names=("a", "b")))
run("names len", lambda: init_device_mesh("cpu", (1,), mesh_dim_names=("a", "b")))
run("names dup", lambda: init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "a")))
run("device cuda", lambda: init_device_mesh("cuda:0", (1,)))
run("list shape", lambda: repr(init_device_mesh("cpu", [1])))
run("ctor", lambda: [repr(DeviceMesh("cpu", [0])), repr(DeviceMesh("cpu", torch.tensor([[0]]), mesh_dim_names=("x", "y")))])
run("ctor dup", lambda: DeviceMesh("cpu", [0, 0]))
run("with", lambda: (lambda: [m.__enter__() is m, m.__exit__(None, None, None)])())
g = dist.new_group([0])
run("from_group", lambda: (lambda fm: [repr(fm), fm.get_group() is g, fm.mesh.tolist(), fm.mesh_dim_names])(DeviceMesh.from_group(g, "cpu", mesh_dim_names=("dp",))))
run("from_group list", lambda: (lambda fm: [repr(fm), fm.get_group("b") is g])(DeviceMesh.from_group([g, g], "cpu", [[0]], mesh_dim_names=("a", "b"))))
run("from_group bad mesh", lambda: DeviceMesh.from_group(g, "cpu", [1]))
run("from_group empty", lambda: DeviceMesh.from_group([], "cpu"))
run("from_group no mesh", lambda: DeviceMesh.from_group([g], "cpu"))
run("from_group no names", lambda: DeviceMesh.from_group([g], "cpu", [0]))
run("from_group ndim", lambda: DeviceMesh.from_group([g, g], "cpu", [0], mesh_dim_names=("a", "b")))
dist.destroy_process_group()
print(json.dumps(out, default=lambda o: "obj " + type(o).__name__))
'''

def test_device_mesh_on_one_rank_as_torch(tmp_path):
    "init_device_mesh and DeviceMesh in a world of one: 1-D and 2-D meshes, slices, groups, reprs, torch's errors for wrong shapes."
    want, got = _one_rank_both_ways(tmp_path, MESH, "device_mesh")
    assert got == want


TWO = r'''
import json, os, sys, threading, datetime, warnings
import litnn as torch, litnn.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
me, out = dist.get_rank(), {}
other = 1 - me
# send_object_list / recv_object_list, both directions
if me == 0:
    dist.send_object_list([{"lr": 0.1}, [1, 2], torch.arange(3)], dst=1)
    objs = [None]; out["recv from"] = dist.recv_object_list(objs, src=1); out["objs"] = objs
else:
    objs = [None] * 3; out["recv from"] = dist.recv_object_list(objs, src=0)
    out["objs"] = [objs[0], objs[1], objs[2].tolist()]
    dist.send_object_list(["back"], dst=0)
# batch_isend_irecv: each rank sends to and receives from the other, in either order
send, got = torch.arange(2.) + 10 * me, torch.zeros(2)
ops = [dist.P2POp(dist.isend, send, other), dist.P2POp(dist.irecv, got, other)]
for w in dist.batch_isend_irecv(ops if me == 0 else ops[::-1]): w.wait()
out["batch"] = got.tolist()
# subgroups of one and of two
mine, groups = dist.new_subgroups(1)
out["subgroups"] = [dist.get_process_group_ranks(mine), len(groups), dist.get_world_size(mine), dist.get_pg_count()]
both, _ = dist.new_subgroups_by_enumeration([[0, 1]])
t = torch.tensor([1. + me]); dist.all_reduce(t, group=both); out["subgroup sum"] = t.tolist()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    a, b = torch.tensor([1., 2.]) * (me + 1), torch.tensor([5.]) * (me + 1)
    dist.all_reduce_coalesced([a, b]); out["coalesced"] = [a.tolist(), b.tolist()]
    outs = [[torch.zeros(1)], [torch.zeros(1)]]
    dist.all_gather_coalesced(outs, [torch.tensor([float(me)])]); out["gathered"] = [l[0].tolist() for l in outs]
dist.monitored_barrier()
# a TCPStore served by rank 0: rank 1 learns the port through an object broadcast
master = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=datetime.timedelta(seconds=20), wait_for_workers=False) if me == 0 else None
port = [master.port if me == 0 else None]
dist.broadcast_object_list(port, src=0)
store = master if me == 0 else dist.TCPStore("127.0.0.1", port[0], 2, False, timeout=datetime.timedelta(seconds=20))
store.set(f"addr{me}", f"host{me}")
out["store"] = [store.get(f"addr{other}").decode(), store.add("ready", 1) in (1, 2)]
store.wait(["ready"])
from litnn.distributed.device_mesh import init_device_mesh
meshes = []
for shape in [(2,), (1, 2), (2, 1)]:
    m = init_device_mesh("cpu", shape, mesh_dim_names=("a", "b")[:len(shape)])
    r = [repr(m), list(m.get_coordinate()), m.mesh.tolist()]
    if len(shape) == 2: r += [repr(m["b"]), repr(m["a"]), m["b"].mesh.tolist(), m["a"].mesh.tolist(),
                              [dist.get_process_group_ranks(m.get_group(i)) for i in range(2)], m.get_local_rank("b")]
    meshes.append(r)
out["meshes"] = meshes
t = litnn_t = torch.tensor([1. + me]); dist.all_reduce(t, group=init_device_mesh("cpu", (1, 2), mesh_dim_names=("dp", "tp")).get_group("tp"))
out["tp sum"] = t.tolist()
dist.barrier()
dist.destroy_process_group()
with open(os.path.join(sys.argv[1], f"rank{me}.json"), "w") as f: json.dump(out, f)
'''


def test_two_ranks(tmp_path):
    "Objects both ways, a batch of crossed send/recv, subgroups, coalesced calls, monitored_barrier, a TCPStore across ranks."
    script = tmp_path / "two.py"
    script.write_text(TWO)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    r = mpiexec(2, [sys.executable, script, tmp_path], timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    r0, r1 = (json.loads((tmp_path / f"rank{i}.json").read_text()) for i in range(2))
    assert r1["objs"] == [{"lr": 0.1}, [1, 2], [0, 1, 2]] and r1["recv from"] == 0
    assert r0["objs"] == ["back"] and r0["recv from"] == 1
    assert (r0["batch"], r1["batch"]) == ([10., 11.], [0., 1.])
    assert r0["subgroups"] == [[0], 2, 1, 3] and r1["subgroups"] == [[1], 2, 1, 3]
    for r in (r0, r1):
        assert r["subgroup sum"] == [3.] and r["coalesced"] == [[3., 6.], [15.]] and r["gathered"] == [[0.], [1.]]
    assert r0["store"] == ["host1", True] and r1["store"] == ["host0", True]
    # torch 2.13 with gloo in two processes printed these for rank 0 (torch.multiprocessing.spawn)
    assert r0["meshes"] == [["DeviceMesh((a=2), 'cpu', stride=(1,))", [0], [0, 1]],
        ["DeviceMesh((a=1, b=2), 'cpu', stride=((), 1))", [0, 0], [[0, 1]], "DeviceMesh((b=2), 'cpu', stride=(1,))",
         "DeviceMesh((a=1), 'cpu', stride=((),))", [0, 1], [0], [[0], [0, 1]], 0],
        ["DeviceMesh((a=2, b=1), 'cpu', stride=(1, ()))", [0, 0], [[0], [1]], "DeviceMesh((b=1), 'cpu', stride=((),))",
         "DeviceMesh((a=2), 'cpu', stride=(1,))", [0], [0, 1], [[0, 1], [0]], 0]]
    assert [m[1] for m in r1["meshes"]] == [[1], [0, 1], [1, 0]] and r1["meshes"][1][-1] == 1 and r1["meshes"][2][-2] == [[0, 1], [1]]
    assert r0["tp sum"] == r1["tp sum"] == [3.]


LATE = r"""
import json, os, sys, time, datetime
import litnn.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
me, out = dist.get_rank(), {}
if me != 2:
    try: dist.monitored_barrier(timeout=datetime.timedelta(seconds=1), wait_all_ranks=sys.argv[2] == "all")
    except RuntimeError as e: out["error"] = str(e).split("\n")[0]
with open(os.path.join(sys.argv[1], f"rank{me}.json"), "w") as f: json.dump(out, f)
time.sleep(5 if me == 2 else 2)   # the first rank to leave ends the job: rank 2, which never checks in, leaves last
os._exit(0)
"""

@pytest.mark.parametrize("mode", ["first", "all"])
def test_monitored_barrier_names_the_late_rank(tmp_path, mode):
    "Rank 2 of 3 never arrives: rank 0 and rank 1 fail with torch's (gloo's) first lines after the 1 s timeout."
    script = tmp_path / "late.py"
    script.write_text(LATE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    mpiexec(3, [sys.executable, script, tmp_path, mode], timeout=120, env=env)
    r0, r1 = (json.loads((tmp_path / f"rank{i}.json").read_text()) for i in range(2))
    assert r0["error"] == ("[Rank 0]: Rank 2 failed to pass monitoredBarrier in 1000 ms" if mode == "first" else
                           "[Rank 0]: Ranks 2 failed to pass monitoredBarrier in 1000 ms")
    assert r1["error"] == ("Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. "
                           "Please check rank 0 logs for faulty rank.")

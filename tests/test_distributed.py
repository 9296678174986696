"""litnn.distributed in real MPI jobs (`mpiexec -n 2`): every collective and reduction against numpy on the ranks'
inputs, work handles, mismatches, timeouts, a failing rank (issue 17). Few jobs: each runs many checks."""
import json, os, subprocess, sys
from pathlib import Path
import numpy as np
import pytest
import litnn
import litnn.distributed as dist

sys.path.insert(0, str(Path(__file__).parent))
from distributed_worker import inputs, DTYPES, OPS
from mpi_launch import mpiexec as run_mpiexec

WORKER = Path(__file__).parent / "distributed_worker.py"
N = 2
pytestmark = pytest.mark.skipif(not dist.is_available(), reason="mpi4py is not installed")


def mpiexec(suite, tmp, n=N, timeout=120):
    "Run the worker's `suite` in `n` MPI processes; the completed process and each rank's results."
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    r = run_mpiexec(n, [sys.executable, WORKER, suite, tmp], timeout=timeout, env=env)
    results = [json.loads((tmp / f"rank{i}.json").read_text()) if (tmp / f"rank{i}.json").exists() else None for i in range(n)]
    return r, results


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    r, results = mpiexec("core", tmp_path_factory.mktemp("core"))
    assert r.returncode == 0, r.stderr
    return results


REDUCE = {"SUM": np.sum, "PRODUCT": np.prod, "MIN": np.min, "MAX": np.max}

def expected(op, xs):
    if op == "AVG":
        s = np.sum(xs, 0)
        return s // len(xs) if s.dtype.kind == "i" else s / len(xs)
    return REDUCE[op](xs, 0)


def test_world(core):
    assert [r["world"] for r in core] == [[True, 0, 2, "gloo"], [True, 1, 2, "gloo"]]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_all_reduce_against_numpy(core, op, dt):
    want = expected(op, np.stack([inputs(r, dtype=dt) for r in range(N)]))
    for r in range(N):
        np.testing.assert_allclose(core[r][f"all_reduce/{op}/{dt}"], want, rtol=1e-6)


def test_all_reduce_async_works_wait_in_any_order(core):
    want = [np.sum([inputs(r) * k for r in range(N)], 0) for k in (1, 2, 3)]
    for r in range(N):
        got = core[r]["all_reduce/async"]
        assert got["type"] == "Work" and got["waited"] == [True] * 3 and got["completed"] == [True] * 3
        np.testing.assert_allclose(got["values"], want)


def test_is_completed_alone_finishes_the_work(core):
    for r in range(N):
        values, waited, rep = core[r]["all_reduce/polled"]
        np.testing.assert_allclose(values, np.sum([inputs(q) for q in range(N)], 0))
        assert (waited, rep) == (True, "<litnn.distributed.Work all_reduce completed>")


def test_all_reduce_writes_into_a_noncontiguous_view(core):
    want = np.sum([inputs(r, (3, 2)) for r in range(N)], 0)
    for r in range(N): np.testing.assert_allclose(core[r]["all_reduce/noncontiguous"], want)


def test_all_reduce_float16_and_bool(core):
    want = np.sum([inputs(r, dtype="float32").astype(np.float16) for r in range(N)], 0)
    for r in range(N):
        assert core[r]["all_reduce/float16"][0] == "float16"
        np.testing.assert_allclose(core[r]["all_reduce/float16"][1], want, rtol=1e-3)
        assert core[r]["all_reduce/bool"] == [True, False, True]   # a sum of bools is their OR, as in torch


@pytest.mark.parametrize("op", ["SUM", "MAX"])
def test_reduce_only_dst_gets_the_result(core, op):
    np.testing.assert_allclose(core[0][f"reduce/{op}"], REDUCE[op](np.stack([inputs(r) for r in range(N)]), 0))
    np.testing.assert_allclose(core[1][f"reduce/{op}"], inputs(1))


def test_broadcast(core):
    for r in range(N):
        np.testing.assert_allclose(core[r]["broadcast"], inputs(1, dtype="float32"))
        np.testing.assert_allclose(core[r]["broadcast/async"], inputs(0))


def test_barrier(core):
    for r in range(N): assert core[r]["barrier"] == [None, True]


@pytest.mark.parametrize("case,words", [("shape", ["rank 0 called all_reduce(float64[2, 2], op=SUM)", "rank 1 called all_reduce(float64[2, 3], op=SUM)"]),
                                        ("dtype", ["rank 0 called all_reduce(float32[2, 3]", "rank 1 called all_reduce(float64[2, 3]"]),
                                        ("op", ["op=SUM", "op=MAX"])])
def test_mismatches_fail_every_rank_with_a_clear_error(core, case, words):
    for r in range(N):
        err = core[r][f"mismatch/{case}"]["error"]
        assert err.startswith("RuntimeError: litnn.distributed.all_reduce: the ranks' calls do not match"), err
        for w in words: assert w in err


def test_the_group_still_works_after_a_mismatch(core):
    for r in range(N): np.testing.assert_allclose(core[r]["after_mismatch"], np.sum([inputs(q) for q in range(N)], 0))


def test_timeout(tmp_path):
    r, (r0, _) = mpiexec("timeout", tmp_path)
    assert r0["timeout"]["error"].startswith("RuntimeError: litnn.distributed.all_reduce timed out after 2 s on rank 0")
    assert 2 <= r0["seconds"] < 3.5


def test_a_failing_rank_makes_the_others_fail_at_once(tmp_path):
    r, (r0, _) = mpiexec("failure", tmp_path)
    assert r.returncode != 0 and "ValueError: rank 1 gives up" in r.stderr
    assert r0["failure"]["error"] == ("RuntimeError: litnn.distributed.all_reduce on rank 0: rank 1 failed (ValueError: rank 1 "
                                      "gives up), so this operation cannot complete")
    assert r0["seconds"] < 10   # the group's timeout is 60 s


def test_before_init_process_group_torch_error():
    for f in (lambda: dist.all_reduce(litnn.ones(2)), dist.get_rank, dist.get_world_size, dist.barrier,
              lambda: dist.broadcast(litnn.ones(2), 0)):
        with pytest.raises(ValueError, match="^Default process group has not been initialized, please make sure to call init_process_group.$"):
            f()
    assert dist.is_initialized() is False


def test_import_litnn_does_not_import_mpi4py():
    code = "import sys, litnn, litnn.distributed as d; print('mpi4py' in sys.modules, d.is_available())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}).stdout
    assert out.split() == ["False", "True"]


# --- the collectives that move pieces (73a_collectives) ---

def xs(shape=(2, 3), dt="float64"): return np.stack([inputs(r, shape, dt) for r in range(N)])

def test_all_gather(core):
    for r in range(N):
        np.testing.assert_allclose(core[r]["all_gather"], xs(dt="float32"))
        np.testing.assert_allclose(core[r]["all_gather/async"], xs(dt="float32"))
        import ml_dtypes
        np.testing.assert_allclose(core[r]["all_gather/bfloat16"], xs().astype(ml_dtypes.bfloat16).astype(np.float32))
        np.testing.assert_allclose(core[r]["all_gather_into_tensor/2"], np.concatenate(xs()))
        np.testing.assert_allclose(core[r]["all_gather_into_tensor/3"], xs())


@pytest.mark.parametrize("op", OPS)
def test_reduce_scatter(core, op):
    lists = np.stack([[inputs(r) * (k + 1) for k in range(N)] for r in range(N)])   # [rank, piece]
    for r in range(N): np.testing.assert_allclose(core[r][f"reduce_scatter/{op}"], expected(op, lists[:, r]))


def test_reduce_scatter_tensor_and_all_to_all_single(core):
    whole = np.sum([inputs(r, (2 * N, 3)) for r in range(N)], 0)
    for r in range(N):
        np.testing.assert_allclose(core[r]["reduce_scatter_tensor"], whole[2 * r:2 * r + 2])
        np.testing.assert_allclose(core[r]["all_to_all_single"], np.concatenate([inputs(i, (2 * N, 3))[2 * r:2 * r + 2] for i in range(N)]))


def test_gather_and_scatter(core):
    np.testing.assert_allclose(core[1]["gather"], xs())
    assert core[0]["gather"] is None
    for r in range(N): np.testing.assert_allclose(core[r]["scatter"], inputs(1) * (r + 1))


def test_all_to_all_uneven_pieces(core):
    for j in range(N):
        for i in range(N): np.testing.assert_allclose(core[j]["all_to_all"][i], inputs(i, (i + j + 1,)) + 10 * j)


def test_send_recv_isend_irecv(core):
    src0, back = core[0]["send_recv"]
    src1, a, b, done = core[1]["send_recv"]
    assert (src0, src1, done) == (1, 0, True)
    np.testing.assert_allclose(a, inputs(0)); np.testing.assert_allclose(b, inputs(0) * 2); np.testing.assert_allclose(back, inputs(0) * 3)


def test_point_to_point_errors(core):
    assert core[1]["recv/mismatch"]["error"] == ("RuntimeError: litnn.distributed.recv on rank 1: rank 0 sent float64[2, 2], "
                                                 "but the tensor to receive into is float64[3]")
    assert core[0]["send/self"]["error"] == ("ValueError: Invalid destination rank: destination rank should not be the same as the "
                                             "rank of the current process.")
    for r in range(N): assert core[r]["broadcast/no_src"]["error"] == "ValueError: Must specify global_rank or group_rank"


def test_a_bad_list_on_one_rank_fails_every_rank(core):
    for r in range(N):
        assert core[r]["all_gather/wrong_list"]["error"] == ("RuntimeError: litnn.distributed.all_gather: rank 1: tensor_list has 1 "
                                                            "tensors, but the group has 2 ranks")
        assert core[r]["all_to_all/mismatch"]["error"] == ("RuntimeError: litnn.distributed.all_to_all: the pieces do not match: "
                                                          "rank 0 sends [1] to rank 1, which expects [2]; rank 1 sends [1] to rank 1, which expects [2]")


def test_new_group(core):
    g0, g1 = core[0]["groups"], core[1]["groups"]
    assert (g0["member"], g0["rank_in_g1"], g0["size_g1"], g0["outsider_call"]) == (False, -1, -1, None)
    assert (g1["member"], g1["rank_in_g1"], g1["size_g1"]) == (True, 0, 1)
    np.testing.assert_allclose(g1["solo"], inputs(1))
    for g in (g0, g1):
        assert g["ranks"] == [0, 1]
        np.testing.assert_allclose(g["sum"], xs().sum(0)); np.testing.assert_allclose(g["b"], inputs(1))


# --- objects (73b_plain_objects) ---

def test_object_collectives(core):
    for r in range(N):
        assert core[r]["all_gather_object"] == [[q, [float(q)] * 2, list(range(q, q + 3)), ["x", {"1": [q, None]}]] for q in range(N)]
        assert core[r]["broadcast_object_list"] == [{"lr": 0.1}, "s", 3]
        assert core[r]["scatter_object_list"] == [{"to": r}]
        assert core[r]["object/allowed"] == [0, 1] and core[r]["object/after"] == [0, 1]
    assert core[0]["gather_object"] == [["x"], ["xx"]] and core[1]["gather_object"] is None


def test_object_collectives_refuse_what_is_not_allow_listed(core):
    for r in range(N):
        err = core[r]["object/refused"]["error"]
        assert err.startswith("UnpicklingError: litnn.load: cannot load 'the object from rank 1': it holds an object of class "
                              "__main__.Refused, which is not allow-listed."), err
        assert core[r]["object/code"]["error"].startswith("TypeError: all_gather_object: the object of rank 1 cannot be sent: "
                                                          "AttributeError: Can't pickle local object")   # a lambda: pickle's error, as torch's


def test_new_group_mismatch_and_irecv_source_rank(core):
    for r in range(N):
        assert core[r]["new_group/mismatch"]["error"] == ("RuntimeError: litnn.distributed.new_group: the ranks' calls do not match "
            "(each rank must call the same collective with tensors of the same shape and dtype): rank 0 called new_group(ranks=[0, 1]); "
            "rank 1 called new_group(ranks=[1])")
    assert core[1]["irecv/source_rank"] == 0


# --- GPUs: CuPy tensors through the host with MPI; NCCL with a GPU per rank ---

def gpus():
    try: import cupy; return cupy.cuda.runtime.getDeviceCount()
    except Exception: return 0


@pytest.mark.parametrize("suite,needs", [("gpu", 1), ("nccl", 2)])
def test_cupy_tensors(tmp_path, suite, needs):
    if gpus() < needs: pytest.skip(f"needs {needs} GPU(s) and CuPy")
    r, results = mpiexec(suite, tmp_path)
    assert r.returncode == 0, r.stderr
    for rank, got in enumerate(results):
        assert got["all_reduce"][0] == "cuda"
        np.testing.assert_allclose(got["all_reduce"][1], xs().sum(0))
        np.testing.assert_allclose(got["all_gather"], xs())
        np.testing.assert_allclose(got["broadcast"], inputs(1))
        np.testing.assert_allclose(got["reduce_scatter_tensor"], np.sum([inputs(q, (2 * N, 3)) for q in range(N)], 0)[2 * rank:2 * rank + 2])
        assert got["objects"] == [{"rank": 0}, {"rank": 1}]
    np.testing.assert_allclose(results[1]["recv"], inputs(0))


def test_differentiable_collectives_send_gradients_across_ranks(tmp_path):
    "torch.distributed.nn: with loss_r = sum(w_r * y_r) on each rank, x_r's gradient is what the collective's adjoint gives."
    r, res = mpiexec("differentiable", tmp_path)
    assert r.returncode == 0, r.stderr
    xs = [inputs(k) for k in range(N)]
    w = [np.arange(6.).reshape(2, 3) + 10 * k for k in range(N)]
    for me in range(N):
        y, g = res[me]["nn.all_reduce"]
        np.testing.assert_allclose(y[0], sum(xs)); np.testing.assert_allclose(g, sum(w))          # d/dx_me sum_r w_r·Σx
        y, g = res[me]["nn.all_gather"]
        for k in range(N): np.testing.assert_allclose(y[k], xs[k])
        np.testing.assert_allclose(g, sum(w))                  # every rank's loss weighs x_me's gathered copy by its w_r
        y, g = res[me]["nn.broadcast"]
        np.testing.assert_allclose(y[0], xs[1])
        np.testing.assert_allclose(g, sum(w) if me == 1 else np.zeros((2, 3)))
        y, g = res[me]["nn.reduce"]
        if me == 0: np.testing.assert_allclose(y[0], sum(xs))
        np.testing.assert_allclose(g, w[0])                    # only rank 0's loss sees the reduction


@pytest.mark.parametrize('device', ['cpu', 'cuda', 'cuda:1', 'mps', 'xpu', 'meta'])
def test_default_backend_for_a_device_as_torch(device):
    "The backend init_process_group picks for a device when given none: torch's map, torch's ValueError off it."
    torch = pytest.importorskip('torch')
    def ask(lib):
        try: return lib.distributed.get_default_backend_for_device(lib.device(device) if device == 'cuda:1' else device)
        except ValueError as e: return 'ValueError', str(e)
    assert ask(litnn) == ask(torch)


FUNCOL = r'''
import json, sys, tempfile, warnings
import torch, torch.distributed as dist
from torch.distributed import _functional_collectives as funcol      # gpt-fast's tp.py: `from ... import all_reduce`
dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
x = torch.arange(12.).reshape(4, 3)
g = torch.ones(2, requires_grad=True)
out = {}
def run(name, f):
    try:
        r = f()
        out[name] = [r.tolist(), list(r.shape), r is x] if isinstance(r, torch.Tensor) else [t.tolist() for t in r]
    except Exception as e: out[name] = type(e).__name__
for op in ("sum", "AVG", "max", "min", "product", "foo"):
    run("all_reduce " + op, lambda: funcol.all_reduce(x, op, [0]))
run("all_reduce world", lambda: funcol.all_reduce(x, "sum", dist.group.WORLD))
run("all_reduce mesh", lambda: funcol.all_reduce(x, "sum", [[0]]))
run("all_reduce_coalesced", lambda: funcol.all_reduce_coalesced([x, x + 1], "sum", [0]))
run("broadcast", lambda: funcol.broadcast(x, 0, [0]))
for d in (0, 1):
    run(f"all_gather_single {d}", lambda: funcol.all_gather_single(x, d, [0]))
    run(f"reduce_scatter_single {d}", lambda: funcol.reduce_scatter_single(x, "sum", d, [0]))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    run("all_gather_tensor", lambda: funcol.all_gather_tensor(x, 0, [0]))
    run("reduce_scatter_tensor", lambda: funcol.reduce_scatter_tensor(x, "sum", 0, [0]))
    out["warnings"] = sorted({i.category.__name__ for i in w})
run("all_to_all_single", lambda: funcol.all_to_all_single(x, None, None, [0]))
run("all_to_all_single sizes", lambda: funcol.all_to_all_single(x, [4], [4], [0]))
run("all_to_all_single one size", lambda: funcol.all_to_all_single(x, [4], None, [0]))
run("wait_tensor", lambda: funcol.wait_tensor(funcol.all_reduce(x, "sum", [0])))
y = funcol.all_reduce(g * 2, "sum", [0]); y.sum().backward()
out["grad"] = [y.requires_grad, g.grad.tolist()]
dist.destroy_process_group()
print(json.dumps(out))
'''

def _one_rank_both_ways(tmp_path, code, module):
    """Run script `code` (it prints a JSON line last) with torch, then with litnn standing in for `torch`,
    `torch.distributed` and `torch.distributed.<module>`: the two results (torch's, litnn's)."""
    pytest.importorskip("torch")
    script = tmp_path / "one_rank.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    def run(*pre):
        r = subprocess.run([sys.executable, *pre, str(script)], capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout.strip().splitlines()[-1])
    return run(), run("-c", f"import sys, runpy; import litnn, litnn.distributed.{module}; sys.modules['torch'] = litnn; "
                            f"sys.modules['torch.distributed'] = litnn.distributed; "
                            f"sys.modules['torch.distributed.{module}'] = litnn.distributed.{module}; "
                            "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")

def test_functional_collectives_on_one_rank_as_torch(tmp_path):
    "torch.distributed._functional_collectives in a world of one process: new tensors, torch's values, errors and warnings."
    want, got = _one_rank_both_ways(tmp_path, FUNCOL, "_functional_collectives")
    assert got == want


ZERO = r'''
import json, tempfile
import torch, torch.distributed as dist
from torch.distributed.optim import ZeroRedundancyOptimizer          # llm.c's train_gpt2.py imports it at the top
out = {}
try: ZeroRedundancyOptimizer([torch.nn.Parameter(torch.ones(2))], optimizer_class=torch.optim.SGD, lr=0.1)
except Exception as e: out["before init"] = [type(e).__name__, str(e)]
dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=0.01, weight_decay=0.1)
x = torch.linspace(-1, 1, 64).reshape(16, 4)
for step in range(3):
    opt.zero_grad(); model(x).pow(2).mean().backward(); opt.step()
    for g in opt.param_groups: g["lr"] *= 0.5                  # a schedule sets the exposed groups
out["params"] = [p.detach().double().sum().item() for p in model.parameters()]
try: opt.state_dict()
except RuntimeError as e: out["unconsolidated"] = str(e)
opt.consolidate_state_dict(to=0)
sd = opt.state_dict()
out["state"] = {str(k): [sorted(v), v["exp_avg"].double().sum().item()] for k, v in sd["state"].items()}
out["groups"] = [{k: v for k, v in g.items() if k in ("lr", "weight_decay", "params")} for g in sd["param_groups"]]
out["local lr"] = opt.optim.param_groups[0]["lr"]
dist.destroy_process_group()
print(json.dumps(out))
'''

def test_zero_redundancy_optimizer_on_one_rank_as_torch(tmp_path):
    "ZeroRedundancyOptimizer in a world of one process: torch's steps, schedule, refusal before consolidating, state_dict."
    want, got = _one_rank_both_ways(tmp_path, ZERO, "optim")
    assert got.pop("before init") == want.pop("before init")
    np.testing.assert_allclose(got.pop("params"), want.pop("params"), rtol=1e-5)
    gs, ws = got.pop("state"), want.pop("state")
    assert [(k, v[0]) for k, v in gs.items()] == [(k, v[0]) for k, v in ws.items()]
    np.testing.assert_allclose([v[1] for v in gs.values()], [v[1] for v in ws.values()], rtol=1e-4, atol=1e-7)
    assert got == want

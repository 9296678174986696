"""DistributedDataParallel (nbs/75_ddp.ipynb), its comm hooks (75c_comm_hooks) and SyncBatchNorm under DDP: one `mpiexec -n 2` job
(tests/ddp_worker.py) runs every multi-process check; the rest compares with torch in this process."""
import json, os, subprocess, sys
from pathlib import Path
import numpy as np, pytest, torch
import litnn
import litnn.distributed as dist
from litnn.nn.parallel import DistributedDataParallel
from litnn.nn.parallel.distributed import _compute_bucket_assignment_by_size, GradBucket
import torch.utils.data.distributed as tdist

sys.path.insert(0, str(Path(__file__).parent))
from ddp_worker import run_job
from mpi_launch import mpiexec

needs_mpi = pytest.mark.skipif(not dist.is_available(), reason="mpi4py is not installed")
ROUND_OFF = 1e-6        # float32: a few ulps of values of order 1


@pytest.fixture(scope="session")
def job(tmp_path_factory):
    return run_job(tmp_path_factory.getbasetemp() / "ddp_job")


@needs_mpi
@pytest.mark.parametrize('run', ['sgd', 'adam', 'adam_small_buckets', 'sgd_find_unused'])
def test_two_ranks_half_batches_equal_one_process_full_batch(job, run):
    for rank in job:
        assert rank[run]['params'] < ROUND_OFF and rank[run]['buffers'] < ROUND_OFF
    assert job[0][run]['buckets'] == job[1][run]['buckets']
    if run == 'adam_small_buckets': assert len(job[0][run]['buckets']) > 1


@needs_mpi
def test_broadcast_at_construction_and_keys(job):
    for rank in job:
        assert rank['state']['params'] == 0 and rank['state']['running_mean'] == 0
        assert rank['state']['keys'] == ['module.0.weight', 'module.1.weight', 'module.1.bias']


@needs_mpi
def test_no_sync_accumulates_then_syncs(job):
    for rank in job: assert rank['no_sync']['grads'] < ROUND_OFF and rank['no_sync']['local_differs']


@needs_mpi
def test_find_unused_parameters(job):
    for rank in job:
        u = rank['unused']
        assert u['globally_unused_is_none'] and u['locally_unused_averaged'] < ROUND_OFF
        assert u['unfinished_error'].startswith("Expected to have finished reduction in the prior iteration before starting a new one.")


@needs_mpi
def test_checked_layouts_skip_the_signature_round_trip(job):
    for rank in job:
        a = rank['agreed']
        assert a['buckets'] > 1 and a['signatures_per_step'][0] >= 1        # the first layout is checked...
        assert a['signatures_per_step'][1] == a['buckets']                 # ...and the rebuilt one, bucket by bucket...
        assert a['signatures_per_step'][2:] == [0, 0, 0]                   # ...then trusted


@needs_mpi
def test_comm_hooks(job):
    for rank in job:
        h = rank['hooks']
        assert h['allreduce'] == 0 and 0 < h['fp16'] < 1e-3
        assert h['twice'] == "register_comm_hook or register_builtin_comm_hook can only be called once."


@needs_mpi
def test_sampler_defaults_from_the_group(job):
    for r, rank in enumerate(job):
        s = rank['sampler']
        assert (s['num_replicas'], s['rank']) == (2, r)
        assert s['indices'] == list(tdist.DistributedSampler(list(range(11)), 2, r, seed=5))


@pytest.mark.parametrize('sizes,limits', [([100, 300000, 10, 400000, 5, 300000], [2**20, 2**21]), ([7] * 20, [40]),
                                          ([1000, 10, 10, 2**18, 3], [2**20]), ([5, 6, 7], [2**63 - 1])])
@pytest.mark.parametrize('f64_at', [None, 1])
def test_bucket_assignment_is_torchs(sizes, limits, f64_at):
    def tensors(lib):
        return [lib.zeros(n, dtype=lib.float64 if i == f64_at else lib.float32) for i, n in enumerate(sizes)]
    ours = _compute_bucket_assignment_by_size(tensors(litnn), limits)
    theirs = torch.distributed._compute_bucket_assignment_by_size(tensors(torch), limits, [False] * len(sizes))
    assert ours == (list(map(list, theirs[0])), list(theirs[1]))
    if f64_at is not None: return     # with an explicit order torch emits the unfinished buckets in its hash map's order
    order = list(reversed(range(len(sizes))))
    ours = _compute_bucket_assignment_by_size([tensors(litnn)[i] for i in order], limits, tensor_indices=order)
    theirs = torch.distributed._compute_bucket_assignment_by_size([tensors(torch)[i] for i in order], limits, [False] * len(sizes), order)
    assert ours == (list(map(list, theirs[0])), list(theirs[1]))


def test_without_a_process_group_raises_as_torch():
    if dist.is_initialized(): pytest.skip("a process group exists in this process")
    for lib in (litnn, torch):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(3, 2))


def test_grad_bucket_views():
    ps = [litnn.nn.Parameter(litnn.zeros(2, 3)), litnn.nn.Parameter(litnn.zeros(4))]
    buf = litnn.arange(10.)
    b = GradBucket(0, buf, ps, [0, 6], True)
    assert [g.tolist() for g in b.gradients()] == [[[0., 1., 2.], [3., 4., 5.]], [6., 7., 8., 9.]]
    assert b.index() == 0 and b.is_last() and b.parameters() == ps and b.buffer() is buf


def test_names_where_torch_has_them():
    from litnn.nn.parallel import DistributedDataParallel as DDP
    from litnn.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook, fp16_compress_hook
    assert DDP is litnn.nn.parallel.DistributedDataParallel
    assert litnn.nn.modules.batchnorm.SyncBatchNorm is litnn.nn.SyncBatchNorm
    assert callable(allreduce_hook) and callable(fp16_compress_hook)


@needs_mpi
def test_train_command_on_two_processes_equals_one(tmp_path):
    "`mpiexec -n 2 python -m litnn.train` trains the model one process trains (same global batches), printing once."
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    flags = ["-m", "litnn.train", "--epochs", "2", "--limit", "300", "--no-progress", "--model", "cnn"]
    one = subprocess.run([sys.executable, *flags, "--out", str(tmp_path / "one")], capture_output=True, text=True, env=env, timeout=300)
    two = mpiexec(2, [sys.executable, *flags, "--out", tmp_path / "two"], env=env, timeout=300)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert two.stdout.count("test accuracy") == 1 and "(2 processes)" in two.stdout      # rank 0 reports, once
    a, b = (litnn.load(tmp_path / d / "checkpoint.lnn") for d in ("one", "two"))
    assert list(a["model"]) == list(b["model"])                                             # no `module.` prefix in the file
    assert max((a["model"][k].double() - b["model"][k].double()).abs().max().item() for k in a["model"]) < ROUND_OFF
    for k in a["history"]: np.testing.assert_allclose(a["history"][k], b["history"][k], rtol=1e-6)

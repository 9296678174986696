"""`python -m litnn.distributed.run`: torchrun's command line and environment over mpiexec (issue 17). Two real jobs
(one that works, one whose rank 1 fails); the command-line mistakes start no job."""
import json, os, subprocess, sys
from pathlib import Path
import pytest
import litnn.distributed as dist
from litnn.distributed import run

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not dist.is_available(), reason="mpi4py is not installed")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("OMP_NUM_THREADS", None)
KEYS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK", "OMP_NUM_THREADS"]


def launch(*argv, timeout=600):
    return subprocess.run([sys.executable, "-m", "litnn.distributed.run", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env=ENV, cwd=ROOT, stdin=subprocess.DEVNULL)


def test_two_processes_get_torchruns_environment_and_talk(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(f"""
import json, os, sys, litnn, litnn.distributed as dist
import helper   # the script's folder comes first on sys.path, as with python script.py
dist.init_process_group("gloo")
t = litnn.tensor([float(dist.get_rank() + 1)]); dist.all_reduce(t)
out = dict(env={{k: os.environ.get(k) for k in {KEYS!r}}}, argv=sys.argv[1:], sum=t.item(), launched=dist.is_torchelastic_launched(),
           name=__name__, helper=helper.X)
open(os.path.join({str(tmp_path)!r}, f"rank{{dist.get_rank()}}.json"), "w").write(json.dumps(out))
""")
    (tmp_path / "helper.py").write_text("X = 42\n")
    r = launch("--nproc_per_node", 2, "--master-port", 1234, "--rdzv-backend=c10d", "--rdzv_endpoint", "localhost:0", script, "--lr", "0.1")
    assert r.returncode == 0, r.stderr
    for rank in range(2):
        got = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert got["env"] == dict(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                                  MASTER_PORT="1234", GROUP_RANK="0", OMP_NUM_THREADS="1")
        assert (got["argv"], got["sum"], got["launched"], got["name"], got["helper"]) == (["--lr", "0.1"], 3.0, True, "__main__", 42)


def test_a_failing_rank_is_reported_and_the_launcher_exits_1(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import litnn, litnn.distributed as dist\ndist.init_process_group()\n"
                      "if dist.get_rank() == 1: raise ValueError('bad batch')\ndist.all_reduce(litnn.ones(2))\n")
    r = launch("--nproc-per-node", 2, script)
    assert r.returncode == 1
    report = [l for l in r.stderr.splitlines() if l.startswith("litnn.distributed.run:")]
    assert report == ["litnn.distributed.run: rank 1 (local_rank 1, node 0) failed: ValueError: bad batch",
                      "litnn.distributed.run: rank 0 (local_rank 0, node 0) failed: RuntimeError: litnn.distributed.all_reduce on rank 0: "
                      "rank 1 failed (ValueError: bad batch), so this operation cannot complete",
                      "litnn.distributed.run: 2 rank(s) failed; the first was rank 1"]
    assert "ValueError: bad batch" in r.stderr.split("litnn.distributed.run:")[0]   # the rank's own traceback comes first


@pytest.mark.parametrize("argv,message", [
    ([], "the following arguments are required: training_script"),
    (["--nproc-per-node", "0", "x.py"], "--nproc-per-node must be a positive number, got '0'"),
    (["--nnodes", "1:2", "-m", "x"], "--nnodes must be a positive number, got '1:2' (litnn does not run elastic jobs: give one number of machines)"),
    (["--nnodes", "2", "-m", "x"], "--nnodes 2: name the machines with --hosts or --hostfile"),
    (["--node-rank", "1", "-m", "x"], "--node-rank: run this command once, on one machine"),
    (["--hostfile", "/no/such/file", "-m", "x"], "--hostfile: no such file: /no/such/file"),
    (["no_such_script.py"], "no such script: no_such_script.py"),
    (["--max-restarts", "3", "-m", "x"], "--max-restarts: litnn does not restart a failed job (give 0)"),
    (["--nproc-per-node", "2", "--bogus", "x.py"], "unrecognized arguments"),
])
def test_command_line_mistakes_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as e: run.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.splitlines()[-1].startswith("python -m litnn.distributed.run: error: ") and message in err, err


def test_a_usage_error_on_the_real_command_line_has_no_traceback():
    r = launch("--nproc-per-node", "two", "x.py", timeout=600)
    assert (r.returncode, r.stdout) == (2, "") and "Traceback" not in r.stderr
    assert r.stderr.splitlines()[-1] == "python -m litnn.distributed.run: error: --nproc-per-node must be a positive number, got 'two'"


def test_several_machines_use_mpis_host_list():
    s = run._settings(["--nnodes", "2", "--nproc-per-node", "4", "--hosts", "a,b", "-m", "train"])
    s.update(run_id="x", failures="/tmp")
    cmd = run._command(s, "mpiexec", "mpich")
    assert cmd[1:8] == ["-n", "8", "-ppn", "4", "-hosts", "a,b", "-genv"]
    assert cmd[-3:] == [sys.executable, "-m", "litnn.distributed.run"]
    cmd = [c for c in run._command(s, "mpiexec", "openmpi") if c != "--allow-run-as-root"]
    assert cmd[1:9] == ["-n", "8", "--map-by", "ppr:4:node", "--host", "a:4,b:4", "-x", f"{run._CHILD}={json.dumps(s)}"]
    assert cmd[-3:] == [sys.executable, "-m", "litnn.distributed.run"]
    env = run._rank_env(s, 5)
    assert [env[k] for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE")] == [5, 1, 8, 4, 1, 2]


def test_open_mpi_ranks_and_command_line(monkeypatch, tmp_path):
    "Open MPI names the rank OMPI_COMM_WORLD_RANK, and its mpiexec says so in --version; MPICH's says HYDRA."
    s = run._settings(["--nproc-per-node", "2", "-m", "train"])
    s.update(run_id="x", failures="/tmp")
    monkeypatch.delenv("MPI_LOCALRANKID", raising=False)
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1")
    assert run._rank_env(s, 1)["LOCAL_RANK"] == 1
    fake = tmp_path / "mpiexec"
    for says, flavour in (("mpiexec (OpenRTE) 4.1.6", "openmpi"), ("mpiexec (Open MPI) 5.0.3", "openmpi"), ("HYDRA build details:", "mpich")):
        fake.write_text(f"#!/bin/sh\necho '{says}'\n"); fake.chmod(0o755)
        assert run._flavour(str(fake)) == flavour
    assert run._flavour(str(tmp_path / "missing")) == "mpich"
    cmd = run._command(s, "mpiexec", "openmpi")
    assert cmd[cmd.index("-x") + 1] == f"{run._CHILD}={json.dumps(s)}" and "--map-by" not in cmd   # one machine: no host list

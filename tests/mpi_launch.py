"""MPI jobs the tests start: `mpiexec -n N program...`, as the distributed tests, DDP's and the launcher's need them."""
import subprocess


def _launcher_failed(r):
    """MPICH's process manager (hydra) itself gave up, with no rank's Python error and no rank ended badly: its own
    failure under load (stop 72's CI: "process reading stdin too slowly; can't keep up" from hydra's proxy), not the job's."""
    return (r.returncode != 0 and 'HYD' in (r.stderr or '') and 'Traceback' not in (r.stderr or '')
            and 'BAD TERMINATION' not in (r.stdout or ''))


def mpiexec(n, argv, **kw):
    """`subprocess.run(['mpiexec', '-n', n, *argv], capture_output=True, text=True, **kw)` with standard input closed (MPICH
    forwards its standard input to rank 0, and a pytest worker's is not the test's to give), run once more when the
    process manager itself failed: a job that fails twice, or fails in Python, fails the test."""
    run = lambda: subprocess.run(['mpiexec', '-n', str(n), *map(str, argv)], capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL, **kw)
    r = run()
    return run() if _launcher_failed(r) else r

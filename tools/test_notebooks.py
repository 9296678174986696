"""Run every notebook's cells as `nbdev_test` does, each notebook in a process of its own, N at a time.

    python tools/test_notebooks.py [--flags "cuda"] [--workers 2] [PATH ...]   (default: every notebook in nbs/)

Why not `nbdev_test` itself: a notebook re-patches litnn's classes with its own cells' definitions, so notebooks must
not share a process, and `nbdev_test --path NB` once per notebook pays for starting Python, importing nbdev, IPython
and litnn (3-4 s) 415 times over, most of CI's notebook step. Here one parent process imports all that once and
forks a child per notebook: each child starts from the same freshly imported state, runs one notebook with nbdev's
own `test_nb` (same skip flags, same working directory, same `sys.path`), and exits, taking its patches with it.
Where fork is unavailable (Windows) each notebook runs under `nbdev_test --path` instead.

Prints the slowest notebooks, each failing notebook's error, and exits 1 if any failed.
"""
import argparse, os, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def notebooks(paths):
    "The notebooks nbdev_test would test: under nbs/, not hidden, not in `_` folders, not beside a .notest file."
    if not paths: paths = [ROOT / 'nbs']
    found = []
    for p in map(Path, paths):
        for f in ([p] if p.suffix == '.ipynb' else p.rglob('*.ipynb')):
            rel = f.resolve().relative_to(ROOT)
            if any(part.startswith(('.', '_')) for part in rel.parts): continue
            if (f.parent / '.notest').exists(): continue
            found.append(f.resolve())
    return sorted(set(found))


def run_forked(files, force_flags, workers):
    from nbdev.config import get_config
    from nbdev.test import test_nb
    cfg = get_config()
    skip_flags, nbs_path, basepath = cfg.tst_flags.split(), cfg.nbs_path, cfg.config_path
    # The imports every notebook makes, paid once here and shared by the children (copy-on-write pages).
    import execnb.shell, IPython.core.interactiveshell  # noqa: F401  (test_nb's CaptureShell)
    import litnn, litnn.nn, litnn.optim, litnn.utils.data  # noqa: F401
    logs = Path(tempfile.mkdtemp(prefix='litnn-nbtest-'))
    todo, running, results = list(files), {}, {}
    sys.stdout.flush(); sys.stderr.flush()
    while todo or running:
        while todo and len(running) < workers:
            f = todo.pop(0); log = logs / f'{len(results) + len(running)}.log'
            pid = os.fork()
            if pid == 0:  # the child: run one notebook, report by exit status, never return into the loop
                rc = 1
                try:
                    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                    os.dup2(fd, 1); os.dup2(fd, 2)
                    os.chdir(nbs_path)
                    ok, _ = test_nb(f, skip_flags=skip_flags, force_flags=force_flags, basepath=basepath)
                    rc = 0 if ok else 1
                except BaseException:
                    import traceback; traceback.print_exc()
                finally:
                    sys.stdout.flush(); sys.stderr.flush()
                    os._exit(rc)
            running[pid] = (f, log, time.time())
        pid, status = os.wait()
        f, log, t0 = running.pop(pid)
        results[f] = (os.waitstatus_to_exitcode(status) == 0, time.time() - t0, log)
    return results


def run_separately(files, force_flags, workers):
    "Windows: no fork, one `nbdev_test` process per notebook."
    from concurrent.futures import ThreadPoolExecutor
    def one(f):
        t0 = time.time()
        p = subprocess.run(['nbdev_test', '--path', str(f)] + (['--flags', ' '.join(force_flags)] if force_flags else []),
                           capture_output=True, text=True)
        log = Path(tempfile.mkstemp(suffix='.log')[1]); log.write_text(p.stdout + p.stderr)
        return f, (p.returncode == 0, time.time() - t0, log)
    with ThreadPoolExecutor(workers) as ex: return dict(ex.map(one, files))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('paths', nargs='*', help='notebooks or folders (default: nbs/)')
    ap.add_argument('--flags', default='', help='space-separated test flags to run that are normally skipped (e.g. cuda)')
    ap.add_argument('--workers', type=int, default=min(2, len(os.sched_getaffinity(0))) if hasattr(os, 'sched_getaffinity') else 2)
    a = ap.parse_args(argv)
    files = notebooks(a.paths)
    if not files: print('test_notebooks.py: no notebooks found'); return 0
    os.environ['IN_TEST'] = '1'  # as nbdev_test: notebooks may skip interactive-only work
    run = run_forked if hasattr(os, 'fork') else run_separately
    results = run(files, a.flags.split(), max(1, a.workers))
    slow = sorted(results.items(), key=lambda kv: -kv[1][1])[:8]
    print('slowest notebooks:', ' '.join(f'{t:.0f}s {f.relative_to(ROOT)}' for f, (_, t, _) in slow))
    failed = [f for f in files if not results[f][0]]
    for f in failed:
        print(f'---- {f.relative_to(ROOT)}'); print('\n'.join(results[f][2].read_text(errors='replace').splitlines()[-40:]))
    if failed:
        print('notebooks failed:', ' '.join(str(f.relative_to(ROOT)) for f in failed), file=sys.stderr); return 1
    print(f'all {len(files)} notebooks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())

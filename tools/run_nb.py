"""Run notebooks top to bottom and save their outputs in place, so the site shows what each demo computes.

    python tools/run_nb.py nbs/41_dropout.ipynb [more.ipynb ...]

Each notebook runs in a fresh process (notebooks re-patch litnn's classes, as in tools/test_all.sh),
with its folder as the working directory; the first failing cell stops it with the error and exit 1. Cells
that nbdev_test skips are skipped here too: `#| eval: false`, and `#| cuda` ones on a machine without a GPU.
`nbdev_clean` then strips metadata, so a saved notebook stays free of drift."""
import subprocess, sys
from pathlib import Path

def _skipped(cell, gpu):
    "Cells nbdev_test would not run: `#| eval: false`, and `#| cuda` ones without a GPU."
    flags = [l.replace(' ', '') for l in cell.source.splitlines() if l.startswith('#|')]
    return '#|eval:false' in flags or ('#|cuda' in flags and not gpu)

def run_one(path):
    "Execute one notebook in this process and write its outputs back into the file."
    from execnb.shell import CaptureShell
    import os
    path = Path(path).resolve()
    os.chdir(path.parent)
    import litnn.cuda
    gpu = litnn.cuda.is_available()
    # execnb replaces a cell's outputs only when the cell prints something: run a copy without outputs, so that a
    # cell that no longer prints (a warning now caught) loses its stale output; the notebook is written on success only
    import json, tempfile
    nb = json.loads(path.read_text(encoding='utf-8'))
    for c in nb['cells']:
        if c['cell_type'] == 'code': c['outputs'], c['execution_count'] = [], None
    # the copy's name starts with a dot: nbdev_export skips such files, so an export run meanwhile (by anyone) does not
    # take the copy for a second notebook with the same default_exp (which rewrote that module without other notebooks' cells)
    with tempfile.NamedTemporaryFile('w', prefix='.run_nb_', suffix='.ipynb', dir=path.parent, delete=False, encoding='utf-8') as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
    try: CaptureShell().execute(Path(f.name), path, exc_stop=True, preproc=lambda cell: _skipped(cell, gpu))
    finally: os.unlink(f.name)

def main(paths):
    if not paths: sys.exit(__doc__)
    for p in paths:
        if not Path(p).is_file(): sys.exit(f"run_nb.py: no such notebook: {p}")
        r = subprocess.run([sys.executable, __file__, '--one', str(p)])
        if r.returncode: sys.exit(f"run_nb.py: {p} failed (its outputs were not saved)")
        subprocess.run(['nbdev_clean', '--fname', str(p)], check=True)
        print(f"ran and saved {p}")

if __name__ == '__main__':
    if sys.argv[1:2] == ['--one']: run_one(sys.argv[2])
    else: main(sys.argv[1:])

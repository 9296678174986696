"""A reader runs the notebooks in plain Jupyter, from the `notebooks` extra (README: "Running the notebooks").

`nbdev_test` (tools/test_all.sh) runs every notebook in-process with execnb; this checks the reader's way on two of
them: a real Jupyter kernel through `jupyter nbconvert --execute`, and that running a notebook top to bottom leaves
the package's files as they were (no notebook calls `nbdev_export`)."""
import configparser, hashlib, json, shlex, shutil, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
JUPYTER = shutil.which('jupyter', path=str(Path(sys.executable).parent)) or shutil.which('jupyter')

def _package_files():
    return {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted((ROOT/'litnn').rglob('*.py'))}

@pytest.mark.skipif(JUPYTER is None, reason="jupyter is not installed (pip install -e '.[notebooks]')")
@pytest.mark.parametrize('name', ['20_parameter', '25_hooks'])
def test_a_notebook_runs_in_jupyter_and_writes_nothing_into_the_package(name, tmp_path):
    before = _package_files()
    r = subprocess.run([JUPYTER, 'nbconvert', '--to', 'notebook', '--execute', str(ROOT/'nbs'/f'{name}.ipynb'),
                        '--output-dir', str(tmp_path), '--ExecutePreprocessor.timeout=600'],
                       capture_output=True, text=True, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    executed = json.loads((tmp_path/f'{name}.ipynb').read_text())
    errors = [o for c in executed['cells'] for o in c.get('outputs', []) if o['output_type'] == 'error']
    assert errors == []
    assert all(c['execution_count'] for c in executed['cells'] if c['cell_type'] == 'code' and c['source'])   # every cell ran
    after = _package_files()
    assert [str(f) for f in after if after[f] != before.get(f)] == []

def test_no_notebook_exports_when_it_runs():
    "Running a notebook must never rewrite litnn/: no cell calls nbdev_export (a developer runs it from the shell)."
    calls = [p.name for p in sorted((ROOT/'nbs').rglob('*.ipynb'))
             if any('nbdev_export(' in ''.join(c['source']) for c in json.loads(p.read_text())['cells'] if c['cell_type'] == 'code')]
    assert calls == []

def test_the_notebooks_extra_holds_what_the_notebooks_import():
    "Every third-party module a notebook imports is installed by the `notebooks` extra (or is litnn's own requirement)."
    import ast, re
    sys.path.insert(0, str(ROOT))
    try: setup_cfg = configparser.ConfigParser(delimiters=['=']); setup_cfg.read(ROOT/'settings.ini')
    finally: sys.path.pop(0)
    cfg = setup_cfg['DEFAULT']
    extra = ' '.join(cfg[k] for k in ('requirements', 'notebooks_requirements', 'train_requirements', 'tensorboard_requirements',
                                      'onnx_requirements', 'distributed_requirements', 'fast_requirements'))
    packages = {re.split(r'[=<>!~ \[]', r)[0].lower() for r in shlex.split(extra)}
    provides = {'PIL': 'pillow', 'IPython': 'jupyter', 'fastcore': 'fastcore', 'mpi4py': 'mpi4py', 'cupy': None, 'einops': 'einops',
                'cupy_backends': None,        # ships inside cupy (its cuBLAS wrappers: reference/cuda/graphs)
                'opt_einsum': None,           # optional, as in torch: backends/opt_einsum reports whether it is there
                'numpy': 'numpy', 'matplotlib': 'matplotlib', 'tensorboard': 'tensorboard', 'onnx': 'onnx',
                'onnxruntime': 'onnxruntime', 'safetensors': 'safetensors', 'tqdm': 'tqdm', 'ml_dtypes': 'ml_dtypes', 'numba': 'numba',
                'google': 'tensorboard',      # protobuf, which tensorboard requires
                'threadpoolctl': None,        # optional: imported in a try
                'pynvml': None,               # optional: cuda.list_gpu_processes imports it in a try, as torch's
                'tabulate': None,             # optional: fx's Graph.print_tabular imports it in a try, as torch's
                'moviepy': None,              # optional: tensorboard's add_video imports it in a try, as torch's
                'book': 'pyyaml'}             # tools/book.py (the book's table, for index and overview): reads YAML
    missing = set()
    for p in sorted((ROOT/'nbs').rglob('*.ipynb')):
        for c in json.loads(p.read_text())['cells']:
            if c['cell_type'] != 'code': continue
            src = '\n'.join(l for l in ''.join(c['source']).splitlines() if not l.lstrip().startswith(('%', '!')))
            try: tree = ast.parse(src)
            except SyntaxError: continue
            for node in ast.walk(tree):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                for top in {n.split('.')[0] for n in names}:
                    if top in sys.stdlib_module_names or top == 'litnn': continue
                    if top not in provides: missing.add(f'{p.name}: {top} (add it to `provides` and to an extra)')
                    elif provides[top] is not None and provides[top] not in packages: missing.add(f'{p.name}: {top}')
    assert sorted(missing) == [], sorted(missing)

"""The project's own rules: what `import litnn` pulls in, how notebooks are named and started,
and that README.md, nbs/readme.ipynb and .ci/run agree."""
import json, re, subprocess, sys, zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/'nbs'

def notebooks():
    "Every notebook nbdev sees: under nbs/, skipping files and folders that start with `_` or `.`."
    return sorted(p for p in NBS.rglob('*.ipynb')
                  if not any(part.startswith(('_', '.')) for part in p.relative_to(NBS).parts))

def first_cell(nb): return ''.join(json.loads(nb.read_text(encoding='utf-8'))['cells'][0]['source'])

def imported_top_modules(prelude=''):
    "Top-level names of the modules that `import litnn` adds to a fresh interpreter."
    # Diffing against the start leaves out what site's .pth files load (editable finders, setuptools).
    code = (f"{prelude}\nimport sys, json; before = set(sys.modules)\nimport litnn\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))

def test_import_litnn_pulls_in_no_dev_tools():
    mods = imported_top_modules()
    assert not mods & {'torch', 'fastcore', 'nbdev', 'execnb', 'matplotlib', 'IPython', 'pytest', 'hypothesis'}

def test_import_litnn_needs_only_numpy_ml_dtypes_and_stdlib():
    # Block CuPy, as on a machine without it: then nothing outside these may be imported.
    mods = imported_top_modules("import sys; sys.modules['cupy'] = None")
    allowed = set(sys.stdlib_module_names) | {'litnn', 'numpy', 'ml_dtypes', 'cupy'}
    cython = {m for m in mods if m == 'cython_runtime' or m.startswith('_cython_')}  # compiled numpy/ml_dtypes
    assert mods - allowed - cython == set()

def test_notebooks_exist():
    assert (NBS/'index.ipynb') in notebooks() and (NBS/'readme.ipynb') in notebooks()
    assert len(notebooks()) > 1

@pytest.mark.parametrize('nb', notebooks(), ids=lambda p: str(p.relative_to(NBS)))
def test_notebook_first_cell(nb):
    "A part's notebook starts with `#| default_exp`; index.ipynb (the reading page), readme.ipynb (the README) and overview.ipynb (the map) export nothing."
    has_exp = re.search(r'^#\|\s*default_exp\s', first_cell(nb), re.M) is not None
    assert has_exp == (nb.relative_to(NBS).as_posix() not in ('index.ipynb', 'readme.ipynb', 'overview.ipynb')), f'{nb.name}: first cell is {first_cell(nb)!r}'

def test_no_auto_in_notebook_paths():
    # nbdev 2.4.14 silently leaves any notebook whose path contains "auto" out of _modidx.py.
    bad = [str(p.relative_to(ROOT)) for p in notebooks() if 'auto' in str(p.relative_to(ROOT)).lower()]
    assert bad == []

def readme_test_command():
    "The one line in README.md that runs every test."
    lines = [l.strip() for l in (ROOT/'README.md').read_text(encoding='utf-8').splitlines()
             if l.strip().endswith('bash tools/test_all.sh')]
    assert len(lines) == 1, lines
    return lines[0]

def test_ci_runs_the_readme_test_command():
    cmds = re.findall(r"^cmd='(.*)'$", (ROOT/'.ci'/'run').read_text(encoding='utf-8'), re.M)
    assert cmds == [readme_test_command()]

def test_ci_runs_the_readme_docs_command():
    lines = [l.strip() for l in (ROOT/'README.md').read_text(encoding='utf-8').splitlines()
             if l.strip().endswith('python tools/build_docs.py')]
    cmds = re.findall(r"^docs_cmd='(.*)'$", (ROOT/'.ci'/'run').read_text(encoding='utf-8'), re.M)
    assert len(lines) == 1 and cmds == lines

def test_readme_is_generated_from_readme_notebook():
    sys.path.insert(0, str(ROOT/'tools'))
    try: from make_readme import make_readme
    finally: sys.path.pop(0)
    assert (ROOT/'README.md').read_text(encoding='utf-8') == make_readme(NBS/'readme.ipynb')

def _texts(nb):
    "The text each code cell of notebook file `nb` printed, cell by cell."
    cells = json.loads(Path(nb).read_text(encoding='utf-8'))['cells']
    return [''.join(''.join(o.get('text', '')) for o in c.get('outputs', []) if o['output_type'] == 'stream')
            for c in cells if c['cell_type'] == 'code']

def test_readme_outputs_are_what_its_code_prints(tmp_path):
    "The README's outputs are readme.ipynb's saved ones: running the notebook afresh prints exactly those."
    fresh = tmp_path/'readme.ipynb'
    code = f"from execnb.shell import CaptureShell; CaptureShell().execute({str(NBS/'readme.ipynb')!r}, {str(fresh)!r}, exc_stop=True)"
    subprocess.run([sys.executable, '-c', code], cwd=tmp_path, check=True, capture_output=True)
    saved = _texts(NBS/'readme.ipynb')
    assert any(saved) and _texts(fresh) == saved

def test_top_quarto_yml_is_the_nbs_one():
    top = ROOT/'_quarto.yml'
    assert top.is_symlink() and top.resolve() == (NBS/'_quarto.yml').resolve()

def export_directives(nb):
    "The `#| default_exp` module and the modules named by `#| export MOD` cells of a notebook."
    default, others = None, set()
    for c in json.loads(nb.read_text(encoding='utf-8'))['cells']:
        if c['cell_type'] != 'code': continue
        for l in ''.join(c['source']).splitlines():
            if m := re.match(r'#\|\s*default_exp\s+(\S+)', l): default = m[1]
            elif m := re.match(r'#\|\s*export[is]?\s+(\S+)', l): others.add(m[1])
    return default, others

def test_export_to_another_module_is_rewritten_first():
    # nbdev_export (sorted by file name) rewrites a module only for its `#| default_exp` notebook;
    # a `#| export MOD` cell *appends* to MOD's file, so MOD grows on every export unless a notebook
    # that sorts earlier has `#| default_exp MOD`. Fix: move those cells to a notebook of their own.
    nbs = sorted(notebooks(), key=lambda p: p.name)
    first = {}
    for nb in nbs: first.setdefault(export_directives(nb)[0], nb.name)
    bad = [f'{nb.name}: `#| export {mod}`' for nb in nbs for mod in sorted(export_directives(nb)[1])
           if mod != export_directives(nb)[0] and not (mod in first and first[mod] < nb.name)]
    assert bad == [], 'these modules are appended to on every nbdev_export: ' + '; '.join(bad)


def test_license_is_apache_and_ships_in_the_wheel(tmp_path):
    "settings.ini says apache2: the repository has the license text and the wheel carries it."
    text = (ROOT/'LICENSE').read_text(encoding='utf-8')
    assert 'Apache License' in text and 'Version 2.0, January 2004' in text
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(tmp_path), str(ROOT)], check=True)
    wheel = next(tmp_path.glob('litnn-*.whl'))
    with zipfile.ZipFile(wheel) as z:
        assert any(n.endswith('/LICENSE') and 'dist-info' in n for n in z.namelist())


def test_each_extra_lists_each_package_once():
    "The dev extra is dev + docs requirements, merged so that a package they share is listed once."
    ns = {}
    prelude = (ROOT/'setup.py').read_text(encoding='utf-8').split('setuptools.setup(')[0]   # everything but the call
    cwd = Path.cwd()
    try:
        import os; os.chdir(ROOT); exec(compile(prelude, 'setup.py', 'exec'), ns)
    finally: os.chdir(cwd)
    dev = ns['_merged'](ns['dev_requirements'], ns['docs_requirements'])
    names = [re.split(r'[=<>!~ \[;]', r)[0].lower() for r in dev]
    assert len(names) == len(set(names)), names
    assert {'nbdev', 'matplotlib', 'torch', 'mkdocs'} <= set(names)

"""`python -m litnn program.py` (nbs/01a_running_torch_programs) against `python program.py` with torch: what the program sees of
itself, what it prints and raises, and which torch the processes it starts import."""
import os, subprocess, sys, textwrap
from pathlib import Path
import pytest
pytest.importorskip('torch')

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, 'PYTHONPATH': str(ROOT)}

PROG = '''
import os, pickle, sys, warnings, torch
import helper_mod
class Box:
    def __init__(self, t): self.t = t
if __name__ == '__main__':
    print(__file__ == os.path.abspath(sys.argv[0]), sys.argv, sys.path[0] == os.path.dirname(__file__), os.getcwd() in sys.path)
    print(sys.modules['__main__'].Box is Box, pickle.loads(pickle.dumps(Box(2))).t, helper_mod.X)
    print(__spec__, __package__, type(__loader__).__name__, __cached__, sorted(k for k in globals() if k.startswith('__')))
    warnings.warn('careful')
    if sys.argv[1:] == ['boom']: raise ValueError('bad batch')
'''

def both(cwd, *argv):
    "(returncode, stdout, stderr) of python ARGV with torch and of python -m litnn ARGV."
    def run(*pre): return subprocess.run([sys.executable, *pre, *argv], capture_output=True, text=True, cwd=cwd, env=ENV, timeout=600)
    return [(r.returncode, r.stdout, r.stderr) for r in (run(), run('-m', 'litnn'))]

@pytest.fixture
def prog_dir(tmp_path):
    for d in (tmp_path, tmp_path / 'sub'):
        d.mkdir(exist_ok=True); (d / 'prog.py').write_text(PROG); (d / 'helper_mod.py').write_text('X = 41\n')
    return tmp_path

@pytest.mark.parametrize('argv', [['prog.py', 'a', '--lr', '1'], ['sub/prog.py'], ['sub/prog.py', 'boom']])
def test_a_script_sees_itself_warns_and_fails_as_with_python(prog_dir, argv):
    """__file__ absolute, sys.argv as typed, its folder (not the current one) first on sys.path, a lasting __main__ module;
    warnings and an uncaught exception's traceback name the script's absolute path, and nothing of the launcher."""
    with_torch, with_litnn = both(prog_dir, *argv)
    assert with_litnn == with_torch
    assert 'careful' in with_torch[2] and ('ValueError: bad batch' in with_torch[2]) == (argv[-1] == 'boom')

def test_a_command_runs_as_python_c(tmp_path):
    code = "import sys, torch; print(sys.argv, repr(sys.path[0]), __name__, sorted(k for k in globals() if k.startswith('__'))); 1/0"
    with_torch, with_litnn = both(tmp_path, '-c', code, 'x', '--y')
    assert with_litnn == with_torch and with_torch[0] == 1 and 'ZeroDivisionError' in with_torch[2]

def test_processes_started_by_multiprocessing_import_litnn_as_torch(tmp_path):
    (tmp_path / 'mp.py').write_text(textwrap.dedent('''
        import multiprocessing as mp, torch
        def f(x): return float(torch.tensor(x).sum())
        if __name__ == '__main__':
            for m in ('fork', 'spawn', 'forkserver'):
                with mp.get_context(m).Pool(1) as p: print(m, p.map(f, [[1., 2.]]), p.apply(eval, ('__import__("torch").__name__',)))
    '''))
    with_torch, with_litnn = both(tmp_path, 'mp.py')
    assert with_torch[:2] == (0, 'fork [3.0] torch\nspawn [3.0] torch\nforkserver [3.0] torch\n')
    assert with_litnn[:2] == (0, with_torch[1].replace('torch', 'litnn'))

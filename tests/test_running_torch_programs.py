"""`python -m litnn program.py` (nbs/01a_running_torch_programs) against `python program.py` with torch: what the program sees of
itself, what it prints and raises, and which torch the processes it starts import."""
import os, re, subprocess, sys, textwrap
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

def both(cwd, *argv, input=None):
    "(returncode, stdout, stderr) of python ARGV with torch and of python -m litnn ARGV (`input`: their standard input)."
    def run(*pre): return subprocess.run([sys.executable, *pre, *argv], capture_output=True, text=True, cwd=cwd, env=ENV, timeout=600, input=input)
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

def test_a_program_from_standard_input_runs_as_python_reads_it(tmp_path):
    "`python -m litnn - a` and `python -m litnn` with a program on standard input (not a terminal), as `python - a` and `python`."
    code = "import sys, torch; print(sys.argv, repr(sys.path[0]), __file__, sorted(k for k in globals() if k.startswith('__'))); 1/0"
    for argv in (['-', 'a', '--b'], []):
        with_torch, with_litnn = both(tmp_path, *argv, input=code)
        assert with_litnn == with_torch and with_torch[0] == 1 and 'ZeroDivisionError' in with_torch[2]

def test_what_cannot_run_is_a_message_as_python_gives(tmp_path):
    "A folder without __main__.py, a module or a package's __main__ that is not there: Python's words and exit status, no traceback."
    (tmp_path / 'folder').mkdir(); (tmp_path / 'pkg').mkdir(); (tmp_path / 'pkg' / '__init__.py').write_text('')
    for argv in (['folder'], ['-m', 'no_such_module_xyz'], ['-m', 'pkg'], ['-m', 'no_such_pkg_xyz.mod'], ['missing.py']):
        (rt, _, et), (rl, _, el) = both(tmp_path, *argv)
        assert rl == rt and 'Traceback' not in el and el.startswith('python -m litnn: ')
        assert el.split(': ', 1)[1] == et.split(': ', 1)[1]      # (Python names itself first: its path)

def test_a_module_or_folder_that_raises_is_reported_from_its_own_frames(tmp_path):
    (tmp_path / 'mod.py').write_text("import torch\ndef f(): return 1 / 0\nprint(torch.__name__)\nf()\n")
    (tmp_path / 'app').mkdir(); (tmp_path / 'app' / '__main__.py').write_text((tmp_path / 'mod.py').read_text())
    for argv in (['-m', 'mod'], ['app']):
        (rt, ot, et), (rl, ol, el) = both(tmp_path, *argv)
        runpy_frames = re.compile(r'  File "<frozen runpy>".*\n')     # (Python shows runpy's frames; the launcher drops them)
        assert (rl, ol.replace('litnn', 'torch'), el) == (rt, ot, runpy_frames.sub('', et)) and rt == 1 and 'line 2, in f' in el

def test_without_a_program_at_a_terminal_it_is_python_prompt_with_litnn_as_torch():
    "`python -m litnn` at a terminal: the interactive prompt, where `import torch` is litnn."
    import pty
    main, sub = pty.openpty()
    p = subprocess.Popen([sys.executable, '-m', 'litnn'], stdin=sub, stdout=sub, stderr=sub, env=ENV, close_fds=True)
    os.close(sub)
    os.write(main, b"import torch, sys\nprint('got', torch.__name__, sys.argv, torch.ones(2).sum().item())\nexit(4)\n")
    out = b''
    while True:
        try: chunk = os.read(main, 4096)
        except OSError: break            # (the prompt exited: the terminal closed)
        if not chunk: break
        out += chunk
    os.close(main)
    assert p.wait(timeout=600) == 4
    text = out.decode()
    assert 'stands in for torch' in text and "got litnn [''] 2.0" in text

def test_what_a_program_saves_under_the_launcher_torch_reads(tmp_path):
    """torch.save in a program run by `python -m litnn` writes torch's format (data: a checkpoint, a state dict), which real
    torch loads with weights_only=True; a whole model stays in litnn's format (torch could not rebuild litnn's classes)."""
    import torch
    (tmp_path / 'train.py').write_text(textwrap.dedent('''
        import torch, numpy as np
        torch.manual_seed(0)
        net = torch.nn.Linear(3, 2)
        opt = torch.optim.Adam(net.parameters())
        net(torch.ones(4, 3)).sum().backward(); opt.step()
        torch.save({'model': net.state_dict(), 'opt': opt.state_dict(), 'epoch': 3, 'loss': 0.5}, 'ck.pt')
        torch.save(net, 'whole.pt')
        print(torch.load('ck.pt')['epoch'], type(torch.load('whole.pt', weights_only=False)).__name__)
    '''))
    r = subprocess.run([sys.executable, '-m', 'litnn', 'train.py'], capture_output=True, text=True, cwd=tmp_path, env=ENV, timeout=600)
    assert (r.returncode, r.stdout) == (0, '3 Linear\n'), r.stderr
    ck = torch.load(tmp_path / 'ck.pt', weights_only=True)
    assert ck['epoch'] == 3 and sorted(ck['model']) == ['bias', 'weight'] and ck['opt']['state'][0]['step'].item() == 1
    with pytest.raises(Exception): torch.load(tmp_path / 'whole.pt', weights_only=False)

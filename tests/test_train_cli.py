"""`python -m litnn.train` end to end, as a user runs it: in a child process, on small runs.

Nothing here reads the clock: a run is long in steps, not seconds, Ctrl-C is sent when the child says (on its
stdout) that it reached a given training step and waits there, and the only timeouts are 600 s safety nets
against a hung child."""
import os, signal, subprocess, sys, tempfile, threading
from pathlib import Path
import numpy as np
import pytest
import litnn
from litnn.datasets import write_idx

ENV = dict(os.environ, OMP_NUM_THREADS='1', PYTHONUNBUFFERED='1', MPLBACKEND='Agg')
HUNG = 600     # seconds: only a hung child gets near this, never a slow one

def train(*flags, **kw):
    "Run the command with `flags`; the finished process (stdout and stderr as text)."
    return subprocess.run([sys.executable, '-m', 'litnn.train', '--no-progress', *map(str, flags)],
                          capture_output=True, text=True, env=ENV, timeout=HUNG, **kw)

def weights(path): return {k: v.numpy() for k, v in litnn.load(path)['model'].items()}

def test_a_short_run_writes_checkpoint_and_plot(tmp_path):
    r = train('--epochs', 2, '--limit', 300, '--out', tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'Linear(in_features=64, out_features=512, bias=True)' in r.stdout     # the model is printed
    assert 'test accuracy' in r.stdout and '2 epochs (2 now, ' in r.stdout
    ck = litnn.load(tmp_path / 'checkpoint.lnn')
    assert sorted(ck) == ['history', 'model', 'optimizer', 'scheduler', 'settings']
    assert ck['history']['epoch'] == [1, 2] and len(ck['history']['test_acc']) == 2
    assert ck['settings']['model'] == 'mlp' and ck['settings']['limit'] == 300
    assert 0 in ck['optimizer']['state'] and 'momentum_buffer' in ck['optimizer']['state'][0]
    assert (tmp_path / 'history.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'

def test_default_run_reaches_97_percent(tmp_path):
    r = train('--out', tmp_path)
    assert r.returncode == 0, r.stderr
    h = litnn.load(tmp_path / 'checkpoint.lnn')['history']
    assert h['epoch'] == list(range(1, 21))                          # the default: 20 epochs
    assert h['test_acc'][-1] >= 0.97, h['test_acc']

# The child runs the command with SGD.step wrapped: after step `stop` it prints "reached step <stop>" and waits in
# short sleeps until the parent's SIGINT (KeyboardInterrupt) ends it. The parent reads the child's stdout up to that line,
# then sends SIGINT, so Ctrl-C always lands at that step, however fast or loaded the machine is. (Not a blocking read of
# stdin: the kernel may hand SIGINT to another of the child's threads, and Python then acts on it only when the main
# thread runs again; a read that never returns hung one CI run for the 600 s of HUNG. A sleep returns.)
INTERRUPT_AT_STEP = r"""
import runpy, sys, time
import litnn
stop, done, real_step = int(sys.argv[1]), [0], litnn.optim.SGD.step
def step_then_wait(self, *args, **kwargs):
    out = real_step(self, *args, **kwargs)
    done[0] += 1
    if done[0] == stop:
        print(f'reached step {stop}', flush=True)
        while True: time.sleep(0.01)         # only the parent's SIGINT (KeyboardInterrupt) ends it
    return out
litnn.optim.SGD.step = step_then_wait
sys.argv = ['python -m litnn.train'] + sys.argv[2:]
runpy.run_module('litnn.train', run_name='__main__', alter_sys=True)
"""

def interrupt_at_step(flags, stop):
    "Run the command, send Ctrl-C once it finished training step `stop`; the finished process, its stdout and stderr."
    with tempfile.TemporaryFile('w+') as err:        # a file, not a pipe: nothing the child writes can block it
        p = subprocess.Popen([sys.executable, '-c', INTERRUPT_AT_STEP, str(stop), '--no-progress', *map(str, flags)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, env=ENV)
        hung = threading.Timer(HUNG, p.kill); hung.start()     # a safety net only
        try:
            out = []
            for line in p.stdout:
                out.append(line)
                if line == f'reached step {stop}\n': break
            reached = bool(out) and out[-1] == f'reached step {stop}\n'
            if reached: p.send_signal(signal.SIGINT)
            rest = p.stdout.read()           # up to the child's exit: only SIGINT ends its wait
            p.wait()
        finally:
            hung.cancel()
            p.stdin.close(); p.stdout.close()
        err.seek(0); err = err.read()
    assert reached, f'the child ended before step {stop}: {err}'
    return p, ''.join(out) + rest, err

# --limit 100 --batch-size 32: 4 steps an epoch, so step 10 is in the middle of epoch 3, after 2 saved epochs
SMALL, STOP, SAVED = ['--limit', 100, '--batch-size', 32], 10, 2

def test_ctrl_c_keeps_the_last_completed_checkpoint(tmp_path):
    ck = tmp_path / 'checkpoint.lnn'
    p, out, err = interrupt_at_step([*SMALL, '--epochs', 100000, '--out', tmp_path], STOP)
    assert p.returncode == 130, err
    assert 'interrupted' in err and str(ck) in err and 'Traceback' not in err, err
    h = litnn.load(ck)['history']            # readable, and the epochs completed before Ctrl-C, whole
    assert h['epoch'] == list(range(1, SAVED + 1)) and len(h['test_acc']) == SAVED
    assert f"holds epoch {SAVED}" in err
    assert [f.name for f in tmp_path.iterdir()] == ['checkpoint.lnn']   # no temporary file left behind

def test_ctrl_c_before_the_first_epoch_ends(tmp_path):
    p, out, err = interrupt_at_step([*SMALL, '--epochs', 3, '--out', tmp_path], 2)
    assert p.returncode == 130, err
    assert 'interrupted before the first epoch ended: no checkpoint written' in err, err
    assert list(tmp_path.iterdir()) == []

def test_interrupted_and_resumed_run_equals_uninterrupted_run(tmp_path):
    a, b = tmp_path / 'a', tmp_path / 'b'
    flags = [*SMALL, '--epochs', 6]
    assert train(*flags, '--out', a).returncode == 0
    p, _, err = interrupt_at_step([*flags, '--out', b], STOP)
    assert p.returncode == 130, err
    assert litnn.load(b / 'checkpoint.lnn')['history']['epoch'] == list(range(1, SAVED + 1))
    r = train(*flags, '--resume', b / 'checkpoint.lnn', '--out', b)
    assert r.returncode == 0, r.stderr
    assert f'resumed from {b / "checkpoint.lnn"} after epoch {SAVED}' in r.stdout
    assert '6 epochs (4 now, ' in r.stdout
    ha, hb = litnn.load(a / 'checkpoint.lnn')['history'], litnn.load(b / 'checkpoint.lnn')['history']
    assert hb['epoch'] == list(range(1, 7)) and ha == hb
    wa, wb = weights(a / 'checkpoint.lnn'), weights(b / 'checkpoint.lnn')
    assert all(np.array_equal(wa[k], wb[k]) for k in wa)

def test_resume_extends_a_finished_run(tmp_path):
    assert train('--epochs', 2, '--limit', 100, '--out', tmp_path).returncode == 0
    r = train('--epochs', 3, '--resume', tmp_path / 'checkpoint.lnn', '--out', tmp_path)
    assert r.returncode == 0, r.stderr
    assert litnn.load(tmp_path / 'checkpoint.lnn')['history']['epoch'] == [1, 2, 3]

def test_mnist_idx_files_set_the_input_size(tmp_path):
    rng = np.random.default_rng(0)
    for split, n in (('train', 120), ('t10k', 40)):
        write_idx(tmp_path / f'{split}-images-idx3-ubyte.gz', rng.integers(0, 256, (n, 28, 28), dtype=np.uint8))
        write_idx(tmp_path / f'{split}-labels-idx1-ubyte', rng.integers(0, 10, n, dtype=np.uint8))
    r = train('--data', tmp_path, '--epochs', 1, '--out', tmp_path / 'run')
    assert r.returncode == 0, r.stderr
    assert 'Linear(in_features=784, out_features=512, bias=True)' in r.stdout
    assert weights(tmp_path / 'run' / 'checkpoint.lnn')['linear_relu_stack.0.weight'].shape == (512, 784)

def test_cnn_model(tmp_path):
    r = train('--model', 'cnn', '--epochs', 1, '--limit', 200, '--out', tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'Conv2d(1, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))' in r.stdout
    assert '\n1 epoch (1 now, ' in r.stdout                          # not "1 epochs"
    assert 'features.0.weight' in weights(tmp_path / 'checkpoint.lnn')

@pytest.mark.parametrize('flags, msg', [(['--model', 'rnn'], "invalid choice: 'rnn'"), (['--epochs', '-1'], '--epochs must be >= 1'),
                                        (['--batch-size', '0'], '--batch-size must be >= 1')])
def test_bad_flags_exit_2_with_a_message(tmp_path, flags, msg):
    r = train(*flags, '--out', tmp_path)
    assert r.returncode == 2 and msg in r.stderr
    assert not (tmp_path / 'checkpoint.lnn').exists()

@pytest.mark.skipif(litnn.cuda.is_available(), reason='a GPU is present')
def test_cuda_without_gpu_is_refused(tmp_path):
    r = train('--device', 'cuda', '--out', tmp_path)
    one_line_error(r, 2, '--device cuda: no GPU: litnn found no CUDA device: ')   # the backend's message, saying why

@pytest.mark.skipif(not litnn.cuda.is_available(), reason='no GPU (CuPy) here')
def test_cuda_run(tmp_path):
    r = train('--device', 'cuda', '--epochs', 2, '--limit', 300, '--out', tmp_path)
    assert r.returncode == 0, r.stderr
    assert litnn.load(tmp_path / 'checkpoint.lnn', map_location='cpu')['history']['epoch'] == [1, 2]



# --- issue 12: a new user's mistakes: one line, exit 2 (usage) or 1 (runtime), never a traceback --------

def one_line_error(r, status, msg):
    assert r.returncode == status, (r.returncode, r.stderr)
    assert 'Traceback' not in r.stderr and 'Traceback' not in r.stdout, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith('python -m litnn.train: error: ') and msg in last, r.stderr
    assert len(r.stderr.strip().splitlines()) <= 2                  # argparse's usage line, then the error


@pytest.mark.parametrize('flags, msg', [
    (['--epochs', '0'], '--epochs must be >= 1, got 0'),
    (['--limit', '-3'], '--limit must be >= 1, got -3'),
    (['--limit', '0'], '--limit must be >= 1, got 0'),
    (['--data', '/nonexistent'], '--data /nonexistent: no such folder'),
    (['--resume', '/nonexistent/checkpoint.lnn'], '--resume /nonexistent/checkpoint.lnn: no such file'),
])
def test_usage_mistakes_exit_2_in_one_line(tmp_path, flags, msg):
    one_line_error(train(*flags, '--out', tmp_path), 2, msg)
    assert list(tmp_path.iterdir()) == []


def test_resume_of_something_that_is_not_a_checkpoint_exits_1(tmp_path):
    notes = tmp_path / 'notes.txt'; notes.write_text('hello, not a checkpoint')
    one_line_error(train('--resume', notes, '--out', tmp_path / 'o'), 1, f"--resume {notes}: cannot load '{notes}': it is not a checkpoint")
    other = tmp_path / 'weights.pt'; litnn.save({'w': litnn.ones(2)}, other)
    one_line_error(train('--resume', other, '--out', tmp_path / 'o'), 1, 'not a checkpoint of this command')
    flipped = tmp_path / 'flipped.lnn'
    assert train('--epochs', 1, '--limit', 50, '--out', tmp_path / 'run').returncode == 0
    raw = bytearray((tmp_path / 'run' / 'checkpoint.lnn').read_bytes()); raw[-10] ^= 1; flipped.write_bytes(bytes(raw))
    one_line_error(train('--resume', flipped, '--out', tmp_path / 'o'), 1, 'is corrupt')


def test_data_folder_without_mnist_files_exits_1(tmp_path):
    one_line_error(train('--data', tmp_path, '--out', tmp_path / 'o'), 1, f'--data {tmp_path}:')
    notes = tmp_path / 'notes.txt'; notes.write_text('x')
    one_line_error(train('--data', notes, '--resume', tmp_path, '--out', tmp_path / 'o'), 2, f'--data {notes}: not a folder')
    one_line_error(train('--resume', tmp_path, '--out', tmp_path / 'o'), 2, f'--resume {tmp_path}: not a file')


def test_out_that_is_a_file_exits_2_in_one_line(tmp_path):
    notes = tmp_path / 'notes.txt'; notes.write_text('x')
    r = train('--out', notes)
    one_line_error(r, 2, f'--out {notes}: is a file, not a folder')
    assert 'File exists' not in r.stderr and notes.read_text() == 'x'


def test_unwritable_out_exits_1_before_training(tmp_path):
    blocker = tmp_path / 'file'; blocker.write_text('x')
    r = train('--out', blocker / 'run')
    one_line_error(r, 1, f'--out {blocker / "run"}: cannot write there')
    assert 'Linear' not in r.stdout                                  # nothing trained


def test_resume_with_a_contradicting_model_exits_2(tmp_path):
    assert train('--epochs', 1, '--limit', 50, '--out', tmp_path).returncode == 0
    ck = tmp_path / 'checkpoint.lnn'
    one_line_error(train('--resume', ck, '--model', 'cnn', '--epochs', 2, '--out', tmp_path), 2,
                   f'--model cnn contradicts the checkpoint {ck}, trained with --model mlp')
    one_line_error(train('--resume', ck, '--limit', 60, '--epochs', 2, '--out', tmp_path), 2, '--limit 60 contradicts')
    one_line_error(train('--resume', ck, '--epochs', 2, '--seed', 1, '--out', tmp_path), 2, '--seed 1 contradicts')
    r = train('--resume', ck, '--model', 'mlp', '--limit', 50, '--seed', 0, '--epochs', 2, '--out', tmp_path)   # agreeing: fine
    assert r.returncode == 0, r.stderr


BLOCK_IMPORTS = r"""
import runpy, sys
for name in sys.argv[1].split(','): sys.modules[name] = None      # `import name` now raises ImportError
sys.argv = ['python -m litnn.train'] + sys.argv[2:]
runpy.run_module('litnn.train', run_name='__main__', alter_sys=True)
"""

def test_runs_without_tqdm_and_matplotlib_saying_so(tmp_path):
    r = subprocess.run([sys.executable, '-c', BLOCK_IMPORTS, 'tqdm,matplotlib', '--epochs', '1', '--limit', '50', '--out', str(tmp_path)],
                       capture_output=True, text=True, env=ENV, timeout=HUNG)
    assert r.returncode == 0, r.stderr
    assert 'tqdm is not installed: training without a progress bar' in r.stderr
    assert 'matplotlib is not installed: no plot written' in r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ['checkpoint.lnn'] and f'wrote {tmp_path / "checkpoint.lnn"}\n' in r.stdout


def test_runs_dir_is_ignored_by_git():
    root = Path(__file__).resolve().parent.parent
    assert 'runs/' in (root / '.gitignore').read_text().split()

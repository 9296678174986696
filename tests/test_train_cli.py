"""`python -m litnn.train` end to end, as a user runs it: in a child process, on small runs."""
import os, signal, subprocess, sys, time
from pathlib import Path
import numpy as np
import pytest
import litnn
from litnn.datasets import write_idx

ENV = dict(os.environ, OMP_NUM_THREADS='1', PYTHONUNBUFFERED='1', MPLBACKEND='Agg')

def train(*flags, **kw):
    "Run the command with `flags`; the finished process (stdout and stderr as text)."
    return subprocess.run([sys.executable, '-m', 'litnn.train', '--no-progress', *map(str, flags)],
                          capture_output=True, text=True, env=ENV, timeout=300, **kw)

def weights(path): return {k: v.numpy() for k, v in litnn.load(path)['model'].items()}

def test_a_short_run_writes_checkpoint_and_plot(tmp_path):
    r = train('--epochs', 2, '--limit', 300, '--out', tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'Linear(in_features=64, out_features=512, bias=True)' in r.stdout     # the model is printed
    assert 'test accuracy' in r.stdout
    ck = litnn.load(tmp_path / 'checkpoint.lnn')
    assert sorted(ck) == ['history', 'model', 'optimizer', 'scheduler', 'settings']
    assert ck['history']['epoch'] == [1, 2] and len(ck['history']['test_acc']) == 2
    assert ck['settings']['model'] == 'mlp' and ck['settings']['limit'] == 300
    assert 0 in ck['optimizer']['state'] and 'momentum_buffer' in ck['optimizer']['state'][0]
    assert (tmp_path / 'history.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'

def test_default_run_reaches_97_percent(tmp_path):
    t = time.perf_counter()
    r = train('--out', tmp_path)
    assert r.returncode == 0, r.stderr
    acc = litnn.load(tmp_path / 'checkpoint.lnn')['history']['test_acc'][-1]
    assert acc >= 0.97, acc
    assert time.perf_counter() - t < 60

def interrupt_once_saved(flags, ck):
    "Start the command, send Ctrl-C once `ck` exists (after a few more epochs); the finished process and its output."
    p = subprocess.Popen([sys.executable, '-m', 'litnn.train', '--no-progress', *map(str, flags)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.time() + 120
    while not ck.exists() and time.time() < deadline: time.sleep(0.05)
    assert ck.exists(), 'no checkpoint after 120 s'
    time.sleep(0.5)                          # be in the middle of later epochs (and saves)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    return p, out, err

def test_ctrl_c_keeps_the_last_completed_checkpoint(tmp_path):
    ck = tmp_path / 'checkpoint.lnn'
    p, out, err = interrupt_once_saved(['--epochs', 100000, '--out', tmp_path], ck)
    assert p.returncode == 130, err
    assert 'interrupted' in err and str(ck) in err
    h = litnn.load(ck)['history']            # readable, and a whole number of completed epochs
    assert h['epoch'] == list(range(1, len(h['epoch']) + 1)) and len(h['test_acc']) == len(h['epoch'])
    assert f"holds epoch {len(h['epoch'])}" in err
    assert [f.name for f in tmp_path.iterdir()] == ['checkpoint.lnn']   # no temporary file left behind

def test_interrupted_and_resumed_run_equals_uninterrupted_run(tmp_path):
    a, b = tmp_path / 'a', tmp_path / 'b'
    flags = ['--epochs', 150, '--limit', 100, '--batch-size', 32]
    assert train(*flags, '--out', a).returncode == 0
    p, _, err = interrupt_once_saved([*flags, '--out', b], b / 'checkpoint.lnn')
    assert p.returncode == 130, err
    stopped = len(litnn.load(b / 'checkpoint.lnn')['history']['epoch'])
    assert 0 < stopped < 150
    r = train(*flags, '--resume', b / 'checkpoint.lnn', '--out', b)
    assert r.returncode == 0, r.stderr
    assert f'resumed from {b / "checkpoint.lnn"} after epoch {stopped}' in r.stdout
    ha, hb = litnn.load(a / 'checkpoint.lnn')['history'], litnn.load(b / 'checkpoint.lnn')['history']
    assert hb['epoch'] == list(range(1, 151)) and ha == hb
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
    assert 'features.0.weight' in weights(tmp_path / 'checkpoint.lnn')

@pytest.mark.parametrize('flags, msg', [(['--model', 'rnn'], "invalid choice: 'rnn'"), (['--epochs', '-1'], '--epochs must be >= 0'),
                                        (['--batch-size', '0'], '--batch-size must be >= 1')])
def test_bad_flags_exit_2_with_a_message(tmp_path, flags, msg):
    r = train(*flags, '--out', tmp_path)
    assert r.returncode == 2 and msg in r.stderr
    assert not (tmp_path / 'checkpoint.lnn').exists()

@pytest.mark.skipif(litnn.cuda.is_available(), reason='a GPU is present')
def test_cuda_without_gpu_is_refused(tmp_path):
    r = train('--device', 'cuda', '--out', tmp_path)
    assert r.returncode == 2 and 'no GPU' in r.stderr

@pytest.mark.skipif(not litnn.cuda.is_available(), reason='no GPU (CuPy) here')
def test_cuda_run(tmp_path):
    r = train('--device', 'cuda', '--epochs', 2, '--limit', 300, '--out', tmp_path)
    assert r.returncode == 0, r.stderr
    assert litnn.load(tmp_path / 'checkpoint.lnn', map_location='cpu')['history']['epoch'] == [1, 2]

"""tools/test_gpu.sh, where there is no GPU: it must stop at once with exit status 2 and say why (issue 12)."""
import os, subprocess, sys
from pathlib import Path
import pytest
import litnn

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / 'tools' / 'test_gpu.sh'
needs_no_gpu = pytest.mark.skipif(litnn.cuda.is_available(), reason='a GPU is here: the script would run everything')


def run(env_extra=None):
    env = {**os.environ, 'PYTHON': sys.executable, 'LITNN_WHEELS': '/nonexistent-wheels', **(env_extra or {})}
    return subprocess.run(['bash', str(SCRIPT)], capture_output=True, text=True, env=env, timeout=600)


def test_script_is_valid_bash_and_executable():
    assert subprocess.run(['bash', '-n', str(SCRIPT)]).returncode == 0
    assert os.access(SCRIPT, os.X_OK)


@needs_no_gpu
def test_without_cupy_it_says_so_and_exits_2():
    try: import cupy  # noqa: F401
    except ImportError: pass
    else: pytest.skip('CuPy is installed here')
    r = run()
    assert r.returncode == 2, r.stderr
    assert 'test_gpu.sh: no GPU to test on: CuPy is not installed' in r.stderr
    assert '2/4' not in r.stdout                                      # nothing else ran


@needs_no_gpu
def test_cupy_without_a_device_says_so_and_exits_2(tmp_path):
    fake = tmp_path / 'cupy'
    (fake / 'cuda').mkdir(parents=True)
    (fake / '__init__.py').write_text('from . import cuda\n__version__ = "0-fake"\n')
    (fake / 'cuda' / '__init__.py').write_text(
        'class runtime:\n'
        '    @staticmethod\n'
        '    def getDeviceCount(): raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")\n')
    r = run({'PYTHONPATH': str(tmp_path)})
    assert r.returncode == 2, r.stderr
    assert 'CuPy finds no NVIDIA GPU (RuntimeError: cudaErrorNoDevice' in r.stderr

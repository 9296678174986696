"""torch.random.fork_rng, get_rng_state/set_rng_state and the thread settings (reference/random), side by side with torch 2.13."""

import os
import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')
from functional_pairs import raised


# ---- fork_rng and the random state ----

def test_random_module_has_torchs_public_names():
    names = ['fork_rng', 'get_rng_state', 'set_rng_state', 'manual_seed', 'seed', 'initial_seed', 'thread_safe_generator']
    assert all(hasattr(torch.random, n) for n in names) and all(hasattr(litnn.random, n) for n in names)
    assert litnn.random.get_rng_state is litnn.get_rng_state and litnn.random.set_rng_state is litnn.set_rng_state
    assert litnn.random.thread_safe_generator() is None and torch.random.thread_safe_generator() is None   # outside thread workers


@pytest.mark.parametrize('lib', [torch, litnn], ids=['torch', 'litnn'])
@pytest.mark.parametrize('kw', [{}, {'devices': []}, {'devices': iter([])}, {'device_type': 'meta'}, {'enabled': False}], ids=['none', 'devices-list', 'devices-iterator', 'meta', 'disabled'])
def test_fork_rng_restores_the_stream_as_torch(lib, kw):
    lib.manual_seed(3); lib.rand(2)
    with lib.random.fork_rng(**kw): inside = lib.rand(4)
    after = lib.rand(3).tolist()
    lib.manual_seed(3); lib.rand(2)
    unforked = lib.rand(3).tolist()
    forks = kw.get('enabled', True) and kw.get('device_type') != 'meta'
    assert (after == unforked) == forks
    assert (inside.tolist()[:3] == unforked) or not forks


@pytest.mark.parametrize('lib', [torch, litnn], ids=['torch', 'litnn'])
def test_fork_rng_restores_after_an_exception(lib):
    lib.manual_seed(0)
    state = lib.get_rng_state()
    with pytest.raises(KeyError):
        with lib.random.fork_rng(devices=[]):
            lib.rand(10); raise KeyError
    want = lib.rand(2).tolist()
    lib.set_rng_state(state)
    assert lib.rand(2).tolist() == want


def test_fork_rng_nests():
    litnn.manual_seed(5)
    with litnn.random.fork_rng():
        litnn.rand(3)
        with litnn.random.fork_rng(): litnn.rand(7)
        a = litnn.rand(1).tolist()
    b = litnn.rand(1).tolist()
    litnn.manual_seed(5); litnn.rand(3)
    assert a == litnn.rand(1).tolist()
    litnn.manual_seed(5)
    assert b == litnn.rand(1).tolist()


@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_fork_rng_restores_gpu_generators():
    litnn.manual_seed(0)
    x = litnn.rand(3, device='cuda')
    with litnn.random.fork_rng(devices=[0]): litnn.rand(5, device='cuda')
    y = litnn.rand(3, device='cuda')
    litnn.manual_seed(0); litnn.rand(3, device='cuda')
    assert litnn.rand(3, device='cuda').tolist() == y.tolist()


# ---- threads ----

@pytest.fixture
def threads():
    saved = (torch.get_num_threads(), litnn.get_num_threads(), dict(litnn._threads))
    yield
    torch.set_num_threads(saved[0]); litnn.set_num_threads(saved[1]); litnn._threads.update(saved[2])


def test_thread_counts_as_torch(threads):
    assert isinstance(litnn.get_num_threads(), int) and litnn.get_num_threads() >= 1
    for n in (1, 3, 2):
        torch.set_num_threads(n); litnn.set_num_threads(n)
        assert litnn.get_num_threads() == torch.get_num_threads() == n
    assert litnn.init_num_threads() is None and torch.init_num_threads() is None
    assert isinstance(litnn.get_num_interop_threads(), int)


@pytest.mark.parametrize('env', [{}, {'OMP_NUM_THREADS': '1'}, {'OMP_NUM_THREADS': '64'}, {'MKL_NUM_THREADS': '1'}], ids=str)
def test_default_thread_counts_as_torch(env):
    "In a fresh process (other tests here change the counts): the CPUs, capped by OMP_NUM_THREADS or MKL_NUM_THREADS."
    import os, subprocess, sys
    env = {k: v for k, v in os.environ.items() if k not in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS')} | env
    code = 'import torch, litnn; print(torch.get_num_threads(), litnn.get_num_threads(), torch.get_num_interop_threads(), litnn.get_num_interop_threads())'
    t, l, ti, li = map(int, subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True).stdout.split())
    assert l == t and li == ti


@pytest.mark.parametrize('name', ['set_num_threads', 'set_num_interop_threads'])
@pytest.mark.parametrize('bad', [0, -1, 1.5, '2', True, None])
def test_bad_thread_counts_as_torch(threads, name, bad):
    want = raised(lambda: getattr(torch, name)(bad))
    assert raised(lambda: getattr(litnn, name)(bad)) == want


def test_interop_threads_set_once_as_torch(threads):
    litnn._threads['interop'] = None
    litnn.set_num_interop_threads(3)
    assert litnn.get_num_interop_threads() == 3
    got = raised(lambda: litnn.set_num_interop_threads(2))
    want = raised(lambda: (torch.set_num_interop_threads(2), torch.set_num_interop_threads(2)))   # torch: the second call, or parallel work already done
    assert got == want


@pytest.mark.skipif(not hasattr(os, 'fork'), reason='fork is POSIX')
def test_a_forked_child_seeds_without_the_parents_gpu_generators():
    "The GPU machine's first run: hogwild workers (forked after CUDA was used) failed in `manual_seed`; torch's do not."
    from litnn import backend as B
    class ParentsGpuGenerator:
        def manual_seed(self, seed): raise RuntimeError("cudaErrorInitializationError: initialization error")
    B._cuda_generators['parent'] = ParentsGpuGenerator()
    try:
        pid = os.fork()
        if pid == 0:
            try: litnn.manual_seed(3); os._exit(0 if not B._cuda_generators else 2)
            except BaseException: os._exit(1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert 'parent' in B._cuda_generators                     # the parent keeps its own
    finally: B._cuda_generators.pop('parent', None)

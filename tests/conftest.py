"""Settings every test session shares."""
import pytest
import os

# The MPI jobs the distributed tests start (mpiexec -n 2): an mpi4py built on Open MPI (the GPU machines' is) refuses to
# run as root without these; MPICH (the `distributed` extra's wheels) ignores them.
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")

# torch names the C++ frames of some errors and warnings by running addr2line in a forked child; from a pytest worker
# with many threads that fork deadlocked twice in CI (a worker stuck for good, addr2line waiting on its pipe): name
# them in-process (dladdr) instead.
os.environ.setdefault("TORCH_SYMBOLIZE_MODE", "dladdr")
os.environ.setdefault("TORCH_DISABLE_ADDR2LINE", "1")


@pytest.fixture
def noise(monkeypatch):
    "Make `exponential_` fill with the same Exp(1) draws in litnn and torch (gumbel noise); returns a setter of the draws."
    import litnn
    torch = pytest.importorskip('torch')
    box = {}
    monkeypatch.setattr(litnn.Tensor, 'exponential_', lambda self, *a, **k: self.copy_(litnn.tensor(box['e'])))
    monkeypatch.setattr(torch.Tensor, 'exponential_', lambda self, *a, **k: self.copy_(torch.tensor(box['e'])))
    return box


@pytest.fixture
def grad_mode_on():
    "Grad mode on again in litnn and torch after the test: one that turns it off and fails midway must not leave it off for the next."
    yield
    import litnn
    litnn.set_grad_enabled(True)
    try: import torch
    except ImportError: return
    torch.set_grad_enabled(True)


@pytest.fixture(autouse=True)
def _distribution_validation_on():
    """torch._dynamo (under torch.compile, torch.cond, torch.while_loop...) turns torch.distributions' argument
    validation off for the whole process, and a test may switch litnn's: every test starts and leaves with both at their
    default (on, as `__debug__` is), so that no test depends on which tests its worker ran before it."""
    import sys
    def default():
        for n in ('torch.distributions', 'litnn.distributions'):
            if n in sys.modules: sys.modules[n].Distribution.set_default_validate_args(__debug__)
    default()
    yield
    default()

"""Helpers for the side-by-side tests of single functions against torch 2.13 (the same inputs in both libraries):
tolerances per dtype, a tensor pair, value and error comparisons."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

DTYPES = [np.float64, np.float32]
def tol(dt): return dict(rtol=1e-12, atol=1e-12) if dt == np.float64 else dict(rtol=2e-5, atol=2e-6)


def pair(a, grad=True):
    return litnn.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def same(l, t, dt=np.float64):
    np.testing.assert_allclose(np.asarray(l.detach().numpy()), t.detach().numpy(), **tol(dt))


def to_np(t): return t.detach().cpu().numpy()


def raised(f):
    "The exception type and message `f()` raises."
    with pytest.raises(Exception) as e: f()
    return e.type, str(e.value)


def same_error(fl, ft):
    (lt, lm), (tt, tm) = raised(fl), raised(ft)
    assert lt is tt and lm == tm, (lt, lm, tt, tm)

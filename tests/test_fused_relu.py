"""ReLU's backward as one compiled pass (litnn.fused.relu_backward, used by relu's derivative on numpy arrays of 4096
elements or more): against PyTorch 2.13 bit for bit (NaN and infinite gradients, NaN outputs, signed zeros), against
numpy's passes, on float32 and float64, contiguous and not; double backward still recorded."""
import numpy as np, pytest, torch
import litnn
from litnn import fused

pytestmark = pytest.mark.skipif(fused._numba() is None, reason="numba (the `fast` extra) is not installed")

def special(shape, dt, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dt)
    flat = a.reshape(-1)
    flat[:12] = [0., -0., np.nan, np.inf, -np.inf, 1e-38, -1e-38, 3., -3., np.nan, 0., 5.]
    return a

@pytest.mark.parametrize('dt', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(32, 16, 24, 24), (4097,), (5, 3000)])
@pytest.mark.parametrize('on', [True, False])
def test_relu_backward_matches_torch(dt, shape, on, monkeypatch):
    monkeypatch.setattr(fused, 'enabled', on)
    x, g = special(shape, dt, 0), special(shape, dt, 1)[::-1].copy() if len(shape) == 1 else special(shape, dt, 1)
    lx, tx = litnn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    litnn.nn.functional.relu(lx).backward(litnn.tensor(g)); torch.relu(tx).backward(torch.tensor(g))
    a, b = lx.grad.numpy(), tx.grad.numpy()
    assert a.dtype == dt
    if on: assert a.tobytes() == b.tobytes()                            # exactly torch's, zeros' signs included
    else: np.testing.assert_array_equal(a, b)                           # numpy's passes: the same values (0 may be -0)

def test_kernel_direct_and_refusals():
    y = special((64, 64), np.float32, 2); g = special((64, 64), np.float32, 3)
    r = fused.relu_backward(g, y)
    want = np.where(y <= 0, np.float32(0), g)
    assert r.tobytes() == want.tobytes()
    assert fused.relu_backward(g.T, y).tobytes() == np.where(y <= 0, np.float32(0), g.T).tobytes()   # a gradient laid out otherwise: copied to y's layout
    assert fused.relu_backward(g[::2, ::2].copy(), y[::2, ::2].T) is None     # a strided view: numpy's passes
    assert fused.relu_backward(g.astype(np.float64), y) is None         # mixed dtypes
    assert fused.relu_backward(g[:, :3], y[:, :3]) is None

def test_broadcast_gradient_and_double_backward():
    x = special((70, 70), np.float32, 4)
    lx, tx = litnn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    litnn.relu(lx).sum().backward(); torch.relu(tx).sum().backward()     # the gradient of a sum: a broadcast view
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())
    x64 = np.random.default_rng(5).standard_normal((80, 60))
    lx = litnn.tensor(x64, requires_grad=True)
    (gx,) = litnn.autograd.grad((litnn.relu(lx) ** 2).sum(), lx, create_graph=True)
    (gg,) = litnn.autograd.grad(gx.sum(), lx)
    np.testing.assert_allclose(gg.numpy(), 2. * (x64 > 0))

"""The two shortcuts of nbs/42_conv's ConvolutionBackward0: depthwise convolutions (groups == channels == outputs: loops
where numba is installed, the im2col path otherwise) and 1x1 convolutions (one product): values and all three gradients
against torch, over kernel sizes, strides, dilations, paddings, dtypes, conv1d, a channels-last input and a weight or
input without gradient."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

CASES = [  # (N, C, H, W, k, stride, padding, dilation, bias)
    (2, 6, 9, 8, 3, 1, 1, 1, True), (2, 4, 11, 11, 5, 2, 2, 1, True), (1, 3, 10, 9, 3, 1, 2, 2, False),
    (2, 5, 12, 12, 7, 1, 3, 1, True), (3, 2, 7, 7, 3, 2, 0, 1, True), (2, 3, 8, 8, 3, 1, 'same', 1, True),
    (2, 4, 6, 9, 2, 1, 'same', 2, False), (1, 1, 5, 5, 1, 1, 0, 1, True), (2, 8, 16, 16, 3, 3, 1, 1, True)]

def _run(L, case, dtype, channels_last=False, need=(True, True, True)):
    N, C, H, W, k, s, p, d, bias = case
    rng = np.random.default_rng(0)
    x = L.tensor(rng.standard_normal((N, C, H, W)), dtype=dtype)
    if channels_last: x = x.to(memory_format=L.channels_last)
    x.requires_grad_(need[0])
    w = L.tensor(rng.standard_normal((C, 1, k, k)), dtype=dtype, requires_grad=need[1])
    b = L.tensor(rng.standard_normal(C), dtype=dtype, requires_grad=need[2]) if bias else None
    y = L.nn.functional.conv2d(x, w, b, stride=s, padding=p, dilation=d, groups=C)
    y.backward(L.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=dtype))
    return [y.detach().numpy()] + [t.grad.numpy() if t is not None and t.grad is not None else None for t in (x, w, b)]

@pytest.mark.parametrize('case', CASES)
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_depthwise(case, dtype):
    got, want = _run(litnn, case, getattr(litnn, dtype)), _run(torch, case, getattr(torch, dtype))
    tol = 1e-10 if dtype == 'float64' else 1e-4
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if w is not None: np.testing.assert_allclose(g, w, rtol=tol, atol=tol)

@pytest.mark.parametrize('need', [(True, False, False), (False, True, True), (True, True, False)])
def test_some_gradients(need):
    case = (2, 4, 9, 9, 3, 1, 1, 1, True)
    for g, w in zip(_run(litnn, case, litnn.float64, need=need), _run(torch, case, torch.float64, need=need)):
        assert (g is None) == (w is None)
        if w is not None: np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)

def test_channels_last_keeps_layout():
    case = (2, 6, 9, 8, 3, 1, 1, 1, True)
    got, want = _run(litnn, case, litnn.float64, True), _run(torch, case, torch.float64, True)
    for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)
    x = litnn.randn(2, 6, 9, 8).to(memory_format=litnn.channels_last)
    y = litnn.nn.functional.conv2d(x, litnn.randn(6, 1, 3, 3), padding=1, groups=6)
    assert y.is_contiguous(memory_format=litnn.channels_last)

def test_conv1d():
    def run(L):
        rng = np.random.default_rng(1)
        x = L.tensor(rng.standard_normal((2, 5, 13)), requires_grad=True); w = L.tensor(rng.standard_normal((5, 1, 3)), requires_grad=True)
        y = L.nn.functional.conv1d(x, w, stride=2, padding=1, groups=5); (y * y).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), w.grad.numpy()
    for g, w in zip(run(litnn), run(torch)): np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)


POINTWISE = [(2, 5, 4, 3, 7, True), (3, 8, 6, 6, 4, False), (1, 3, 1, 9, 2, True), (4, 16, 5, 7, 16, True)]   # (N, C, H, W, O, bias)

def _run_1x1(L, case, dtype, channels_last=False, need=(True, True, True)):
    N, C, H, W, O, bias = case
    rng = np.random.default_rng(2)
    x = L.tensor(rng.standard_normal((N, C, H, W)), dtype=dtype)
    if channels_last: x = x.to(memory_format=L.channels_last)
    x.requires_grad_(need[0])
    w = L.tensor(rng.standard_normal((O, C, 1, 1)), dtype=dtype, requires_grad=need[1])
    b = L.tensor(rng.standard_normal(O), dtype=dtype, requires_grad=need[2]) if bias else None
    y = L.nn.functional.conv2d(x, w, b)
    y.backward(L.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=dtype))
    return [y.detach().numpy(), y.is_contiguous(memory_format=L.channels_last)] + [
        t.grad.numpy() if t is not None and t.grad is not None else None for t in (x, w, b)]

@pytest.mark.parametrize('case', POINTWISE)
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('channels_last', [False, True])
def test_1x1(case, dtype, channels_last):
    got = _run_1x1(litnn, case, getattr(litnn, dtype), channels_last)
    want = _run_1x1(torch, case, getattr(torch, dtype), channels_last)
    tol = 1e-10 if dtype == 'float64' else 1e-4
    assert got[1] == want[1]                      # the layout follows the input's
    for g, w in zip(got[:1] + got[2:], want[:1] + want[2:]):
        assert (g is None) == (w is None)
        if w is not None: np.testing.assert_allclose(g, w, rtol=tol, atol=tol)

def test_1x1_conv1d_and_some_gradients():
    def run(L, need):
        rng = np.random.default_rng(3)
        x = L.tensor(rng.standard_normal((2, 4, 9)), requires_grad=need[0]); w = L.tensor(rng.standard_normal((6, 4, 1)), requires_grad=need[1])
        y = L.nn.functional.conv1d(x, w); (y * y).sum().backward()
        return y.detach().numpy(), x.grad.numpy() if need[0] else None, w.grad.numpy() if need[1] else None
    for need in [(True, True), (True, False), (False, True)]:
        for g, w in zip(run(litnn, need), run(torch, need)):
            assert (g is None) == (w is None)
            if w is not None: np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)

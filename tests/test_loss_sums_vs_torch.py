"Reduced losses in half precision: torch's CPU nll_loss sums its terms in the input's dtype through a cascade of running sums; litnn's must give the same bits, forward and backward."
import numpy as np, pytest, torch
import litnn

@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('n', [1, 3, 16, 17, 40, 300, 1500])
@pytest.mark.parametrize('shape', ['2d', '4d'])
def test_nll_loss_in_half_precision_is_torchs_to_the_bit(dtype, n, shape):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((n, 5) if shape == '2d' else (max(1, n // 16), 5, 4, 4)) * 3).astype(np.float32)
    y = rng.integers(0, 5, x.shape[:1] + x.shape[2:])
    y_ignored = np.where(rng.random(y.shape) < 0.3, -100, y)
    w = np.linspace(0.3, 2.1, 5).astype(np.float32)
    for target in (y, y_ignored):
        for weighted in (False, True):
            for reduction in ('sum', 'mean'):
                got = []
                for L in (torch, litnn):
                    t = L.tensor(x).to(getattr(L, dtype)).requires_grad_()
                    loss = L.nn.functional.nll_loss(t, L.tensor(target), weight=L.tensor(w).to(getattr(L, dtype)) if weighted else None, reduction=reduction)
                    loss.backward(L.tensor(1.7).to(getattr(L, dtype)))
                    got.append((loss.detach().float().numpy(), t.grad.float().numpy()))
                (lt, gt), (ll, gl) = got
                np.testing.assert_array_equal(ll, lt)
                np.testing.assert_array_equal(gl, gt)

@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_cross_entropy_in_half_precision_is_torchs_to_the_bit(dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((200, 10)) * 2).astype(np.float32)
    y = rng.integers(0, 10, 200)
    out = [L.nn.functional.cross_entropy(L.tensor(x).to(getattr(L, dtype)), L.tensor(y)).float().item() for L in (torch, litnn)]
    assert out[0] == out[1]

def test_nothing_counted_gives_nan_as_torch():
    for dtype in ('float16', 'float32'):
        out = [L.nn.functional.nll_loss(L.zeros(4, 3).to(getattr(L, dtype)), L.full((4,), -100)).float().item() for L in (torch, litnn)]
        assert np.isnan(out[0]) and np.isnan(out[1])

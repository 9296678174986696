"""Eager CPU fast paths (issue 30): LayerNorm's row loops in the dtype's lanes (blocks of 512, float64 totals, the
parameters' gradients flushed every 64 rows) and log-softmax's row loops (cross-entropy's path), against PyTorch 2.13:
values, gradients and grad_fn names, with the kernels on and with numpy's passes (`fused.enabled = False`)."""
import numpy as np, pytest, torch
import litnn
from litnn import fused

@pytest.fixture(params=[True, False], ids=['fused', 'numpy'])
def kernels(request, monkeypatch):
    monkeypatch.setattr(fused, 'enabled', request.param)
    return request.param

def both(a, requires_grad=True):
    return litnn.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)

def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.detach().numpy() if hasattr(a, 'detach') else a
    np.testing.assert_allclose(a, b.detach().numpy(), rtol=rtol, atol=atol)

@pytest.mark.parametrize('shape', [(1, 2000), (130, 48), (64, 1100), (65, 7), (2, 3, 513)])
def test_layer_norm_blocks_and_row_flushes_match_torch(kernels, shape):
    "Rows longer than a block, row counts around the 64-row flush of the parameters' gradients."
    rng = np.random.default_rng(0)
    n = shape[-1]
    x = (rng.standard_normal(shape) * 2 + 3).astype(np.float32)
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    (lx, tx), (lw, tw), (lb, tb) = both(x), both(w), both(b)
    ly, ty = litnn.nn.functional.layer_norm(lx, (n,), lw, lb), torch.nn.functional.layer_norm(tx, (n,), tw, tb)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'NativeLayerNormBackward0'
    close(ly, ty, 1e-5, 1e-5)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-4, 1e-5)
    close(lw.grad, tw.grad, 1e-4, 1e-4); close(lb.grad, tb.grad, 1e-4, 1e-4)

def test_layer_norm_mean_far_from_zero_and_infinite_rows(kernels):
    "A mean of 1e4 (summed as deviations from the first element), rows with an infinite element: NaN as torch."
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((6, 700)) + 1e4).astype(np.float32)
    x[1, 5] = np.inf; x[2, 0] = -np.inf
    ref = torch.nn.functional.layer_norm(torch.tensor(x, dtype=torch.float64), (700,)).numpy()
    out = litnn.nn.functional.layer_norm(litnn.tensor(x), (700,)).numpy()
    assert np.array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out[~np.isnan(ref)], ref[~np.isnan(ref)], atol=5e-3)

@pytest.mark.parametrize('shape', [(1024, 65), (3, 1100), (2, 5, 9), (1, 1)])
def test_log_softmax_last_dim_matches_torch(kernels, shape):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    lx, tx = both(x)
    ly, ty = litnn.log_softmax(lx, -1), torch.log_softmax(tx, -1)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'LogSoftmaxBackward0'
    close(ly, ty, 1e-5, 2e-6)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, 1e-5, 2e-6)

def test_log_softmax_special_rows(kernels):
    "-inf entries stay -inf, a NaN or an infinite maximum makes the row NaN, very negative entries give 0 probability."
    x = np.random.default_rng(3).standard_normal((5, 600)).astype(np.float32)
    x[0, 3] = -np.inf; x[1, 7] = np.nan; x[2, 0] = np.inf; x[3, :] = -np.inf; x[4, 1] = -200
    lx, tx = both(x)
    ly, ty = litnn.log_softmax(lx, 1), torch.log_softmax(tx, 1)
    a, b = ly.detach().numpy(), ty.detach().numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a == -np.inf, b == -np.inf)
    ok = np.isfinite(b)
    np.testing.assert_allclose(a[ok], b[ok], rtol=1e-5, atol=2e-6)
    g = np.random.default_rng(4).standard_normal(x.shape).astype(np.float32)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    a, b = lx.grad.numpy(), tx.grad.numpy()
    assert np.array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=1e-5, atol=2e-6)

def test_log_softmax_views_and_other_dims(kernels):
    "A transposed input, another dim and float64 take numpy's passes; results as torch's either way."
    x = np.random.default_rng(5).standard_normal((7, 9)).astype(np.float32)
    for dt in (np.float32, np.float64):
        lx, tx = both(x.astype(dt))
        for dim in (0, 1):
            close(litnn.log_softmax(lx.t(), dim), torch.log_softmax(tx.t(), dim), 1e-5, 2e-6)
            close(litnn.log_softmax(lx, dim), torch.log_softmax(tx, dim), 1e-5, 2e-6)

@pytest.mark.parametrize('kw', [{}, dict(reduction='sum'), dict(reduction='none'), dict(ignore_index=3),
                                dict(weight=True), dict(label_smoothing=0.1)])
def test_cross_entropy_matches_torch(kernels, kw):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((256, 65)) * 3).astype(np.float32)
    t = rng.integers(0, 65, 256)
    lx, tx = both(x)
    if kw.get('weight'):
        w = rng.random(65).astype(np.float32)
        kw = dict(weight=(litnn.tensor(w), torch.tensor(w)))
    lkw = {k: v[0] if k == 'weight' else v for k, v in kw.items()}
    tkw = {k: v[1] if k == 'weight' else v for k, v in kw.items()}
    ll = litnn.nn.functional.cross_entropy(lx, litnn.tensor(t), **lkw)
    tl = torch.nn.functional.cross_entropy(tx, torch.tensor(t), **tkw)
    close(ll, tl, 1e-5, 1e-6)
    if not kw.get('label_smoothing'):
        assert type(ll.grad_fn).__name__ == type(tl.grad_fn).__name__ == 'NllLossBackward0'
        assert type(ll.grad_fn.next_functions[0][0]).__name__ == 'LogSoftmaxBackward0'
    (ll.sum() if ll.ndim else ll).backward(); (tl.sum() if tl.ndim else tl).backward()
    close(lx.grad, tx.grad, 1e-5, 1e-7)

def test_gpt_sized_loss_and_second_derivative(kernels):
    "create_graph through the fast log-softmax: the backward is recorded with tensor ops, as torch's double backward."
    x = np.random.default_rng(7).standard_normal((6, 5)).astype(np.float32)
    t = np.array([0, 4, 2, 2, 1, 3])
    lx, tx = both(x)
    ll = litnn.nn.functional.cross_entropy(lx, litnn.tensor(t))
    tl = torch.nn.functional.cross_entropy(tx, torch.tensor(t))
    (lg,), (tg,) = litnn.autograd.grad(ll, lx, create_graph=True), torch.autograd.grad(tl, tx, create_graph=True)
    close(lg, tg, 1e-5, 1e-7)
    (lg * lg).sum().backward(); (tg * tg).sum().backward()
    close(lx.grad, tx.grad, 1e-4, 1e-7)

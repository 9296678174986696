"""reference/torch/nn_ops: torch's top-level operators beside torch.nn.functional, side by side with torch 2.13."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def both(f, *arrays, rtol=1e-12, grads=None):
    "Run `f(lib, *tensors)` in both libraries on the same float64 arrays; compare values and gradients of `grads`."
    grads = range(len(arrays)) if grads is None else grads
    lt = [litnn.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    tt = [torch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    ly, ty = f(litnn, *lt), f(torch, *tt)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=1e-12)
    if ty.requires_grad:
        ly.sum().backward(); ty.sum().backward()
        for l, t in zip(lt, tt):
            if t.grad is not None: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-12)

rng = np.random.default_rng(0)
X4, W4 = rng.normal(size=(2, 3, 6, 6)), rng.normal(size=(4, 3, 3, 3))

def test_conv_is_the_functional_itself():
    assert litnn.conv2d is litnn.nn.functional.conv2d and litnn.conv1d is litnn.nn.functional.conv1d
    both(lambda lib, x, w: lib.conv2d(x, w, None, 2, 1), X4, W4)
    both(lambda lib, x, w: lib.conv1d(x, w, padding=1), X4[:, :, 0], W4[:, :, 0])

def test_max_pool2d_operator_signature():
    both(lambda lib, x: lib.max_pool2d(x, 2), X4)
    both(lambda lib, x: lib.max_pool2d(x, [3, 3], [1, 2], 1, 1, True), X4)
    for lib in (torch, litnn):
        with pytest.raises(TypeError): lib.max_pool2d(lib.ones(1, 1, 2, 2), 2, return_indices=True)
        with pytest.raises(TypeError): lib.max_pool2d(lib.ones(1, 1, 2, 2))

def test_dropout_operator_signature():
    for lib in (torch, litnn):
        x = lib.ones(100)
        assert lib.dropout(x, 0.5, False) is x or lib.equal(lib.dropout(x, 0.5, False), x)
        with pytest.raises(TypeError): lib.dropout(x, 0.5)
    y = litnn.dropout(litnn.ones(10_000), 0.5, True)
    assert set(y.tolist()) == {0., 2.}

def test_norms_and_embedding():
    x = rng.normal(size=(4, 3))
    both(lambda lib, x, w, b: lib.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False), x, rng.normal(size=3), rng.normal(size=3))
    both(lambda lib, x, w, b: lib.layer_norm(x, [3], w, b, 1e-5, True), x, rng.normal(size=3), rng.normal(size=3))
    both(lambda lib, t: lib.embedding(t, lib.tensor([[2, 0], [1, 1]])), rng.normal(size=(3, 2)))
    both(lambda lib, t: lib.embedding(t, lib.tensor([2, 0, 1]), 0), rng.normal(size=(3, 2)))
    both(lambda lib, a, b, w, c: lib.bilinear(a, b, w, c), rng.normal(size=(2, 3)), rng.normal(size=(2, 4)),
         rng.normal(size=(5, 3, 4)), rng.normal(size=5))

@pytest.mark.parametrize('reduction', [0, 1, 2])
def test_bce_with_logits_reduction_number(reduction):
    both(lambda lib, x, y, w, p: lib.binary_cross_entropy_with_logits(x, y, w, p, reduction),
         rng.normal(size=(3, 2)), rng.uniform(size=(3, 2)), rng.uniform(size=(3, 2)), rng.uniform(size=2), grads=(0,))

def test_activations():
    x = rng.normal(size=(3, 4)) * 3
    both(lambda lib, x: lib.selu(x), x)
    both(lambda lib, x: lib.celu(x, 0.7), x)
    both(lambda lib, x, w: lib.prelu(x, w), x, np.array([0.2]))
    both(lambda lib, x: lib.rrelu(x, 0.1, 0.3, False), x)
    both(lambda lib, x: lib.threshold(x, 0.5, -1.), x)
    both(lambda lib, x: lib.hardshrink(x, 1.), x)
    for name in ['selu_', 'celu_', 'threshold_']:
        args = (0.5, -1.) if name == 'threshold_' else ()
        lx, tx = litnn.tensor(x), torch.tensor(x)
        assert getattr(litnn, name)(lx, *args) is lx
        getattr(torch, name)(tx, *args)
        np.testing.assert_allclose(lx.numpy(), tx.numpy(), rtol=1e-12)

def test_every_alias_litnn_has_is_a_torch_top_level_name():
    import litnn._nn_ops as A
    for name in A.__all__: assert hasattr(torch, name), name

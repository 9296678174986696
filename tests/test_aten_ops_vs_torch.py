"""torch.ops.aten operators (reference/ops) side by side with torch 2.13: values and torch's errors. (aten::index and
index_put are in test_indexing_vs_torch.py.)"""
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')
from api_pairs import outcome




# test_shape_ops.py test_unfold_backward_errors, and the values: unfold's gradient, windows summed back in place
@pytest.mark.parametrize('args', [([6], 0, 3, 2), ([6], 0, 3, 1), ([5], 0, 3, 1), ([6], -1, 3, 2),
                                  ([6], 0, 3, 0), ([6], 0, 3, -1), ([6], 0, -1, 1), ([6], 2, 3, 1)])
def test_unfold_backward_as_torch(args):
    f = lambda L: L.ops.aten.unfold_backward(L.arange(6.).view(2, 3), *args)
    assert outcome(f, litnn) == outcome(f, torch)


def test_unfold_backward_is_unfolds_gradient():
    for L in (litnn, torch):
        x = L.arange(10.).view(2, 5).requires_grad_()
        y = x.unfold(1, 3, 1)
        g = L.arange(float(y.numel())).view(y.shape)
        y.backward(g)
        np.testing.assert_array_equal(L.ops.aten.unfold_backward(g, [2, 5], 1, 3, 1).numpy(), x.grad.numpy())
    f = lambda L: L.ops.aten.unfold_backward(L.arange(24.).view(3, 2, 4), [7, 2], 0, 4, 2)
    assert outcome(f, litnn) == outcome(f, torch)

"""Cases for tests/test_plain_backward.py from the parts of torch.nn built after it (one per `on_arrays` formula)."""
import numpy as np
import litnn
import torch

rng = np.random.default_rng(1)
def randn(*s): return rng.standard_normal(s)
def F(x): return litnn.nn.functional if isinstance(x, litnn.Tensor) else torch.nn.functional
def _lib(x): return litnn if isinstance(x, litnn.Tensor) else torch

NN_CASES = {
    'elu': (lambda x: F(x).elu(x, 0.7), [randn(6)]),
    'celu': (lambda x: F(x).celu(x, 1.3), [randn(6)]),
    'hardtanh': (lambda x: F(x).hardtanh(x * 2), [randn(6)]),
    'hardsigmoid_hardswish': (lambda x: F(x).hardsigmoid(x * 4) + F(x).hardswish(x * 4), [randn(6)]),
    'shrinks_threshold': (lambda x: F(x).softshrink(x) + F(x).hardshrink(x) + F(x).threshold(x, 0.1, -1.), [randn(6)]),
    'softplus_mish_logsigmoid': (lambda x: F(x).softplus(x, 2.) + F(x).mish(x) + F(x).logsigmoid(x), [randn(6) * 3]),
    'constant_pad': (lambda x: F(x).pad(x, (1, -1, 2, 0), value=0.5), [randn(2, 3, 4)]),
    'reflection_pad': (lambda x: F(x).pad(x, (2, 1), mode='reflect'), [randn(2, 5)]),
    'ctc_loss': (lambda x: F(x).ctc_loss(x.log_softmax(2), _lib(x).tensor([[1, 2]]), [4], [2]), [randn(4, 1, 3)]),
    'batch_norm': (lambda x, w, b: F(x).batch_norm(x, None, None, w, b, training=True), [randn(4, 3, 2), randn(3), randn(3)]),
    'layer_norm': (lambda x, w, b: F(x).layer_norm(x, [3], w, b), [randn(4, 3), randn(3), randn(3)]),
    'max_unpool2d': (lambda x: F(x).max_unpool2d(*F(x).max_pool2d(x, 2, return_indices=True), 2), [randn(1, 2, 4, 4)]),
    'interpolate_linear': (lambda x: F(x).interpolate(x, size=(5, 3), mode='bilinear', align_corners=False), [randn(1, 2, 3, 4)]),
    'silu': (lambda x: F(x).silu(x), [randn(6) * 3]),
}

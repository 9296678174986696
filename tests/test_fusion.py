"""The batch-norm fusions (reference/nn/utils/fusion): fused outputs equal the unfused modules' and torch's fused weights from the same weights."""

import numpy as np
import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')
from functional_pairs import to_np, raised


# ---- fusion ----

def trained_bn(lib, bn_cls, c, affine, seed, dtype):
    "A batch norm in eval mode with running statistics and affine weights drawn from `seed`."
    rng = np.random.default_rng(seed)
    bn = getattr(lib.nn, bn_cls)(c, affine=affine, eps=1e-3).to(getattr(lib, dtype))
    sd = {'running_mean': rng.standard_normal(c), 'running_var': rng.uniform(0.2, 3, c), 'num_batches_tracked': np.array(5)}
    if affine: sd.update(weight=rng.standard_normal(c), bias=rng.standard_normal(c))
    bn.load_state_dict({k: lib.tensor(v.astype(dtype if k != 'num_batches_tracked' else 'int64')) for k, v in sd.items()})
    return bn.eval()


CONVS = [('Conv1d', 'BatchNorm1d', 1, False), ('Conv2d', 'BatchNorm2d', 2, False), ('Conv3d', 'BatchNorm3d', 3, False),
         ('ConvTranspose1d', 'BatchNorm1d', 1, True), ('ConvTranspose2d', 'BatchNorm2d', 2, True)]


@pytest.mark.parametrize('conv_cls,bn_cls,nd,transpose', CONVS)
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('affine', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_fuse_conv_bn_eval_as_torch(conv_cls, bn_cls, nd, transpose, bias, affine, dtype):
    tc = getattr(torch.nn, conv_cls)(3, 4, 3, bias=bias).to(getattr(torch, dtype)).eval()
    lc = getattr(litnn.nn, conv_cls)(3, 4, 3, bias=bias).to(getattr(litnn, dtype)).eval()
    lc.load_state_dict({k: litnn.tensor(to_np(v)) for k, v in tc.state_dict().items()})
    tb, lb = trained_bn(torch, bn_cls, 4, affine, 1, dtype), trained_bn(litnn, bn_cls, 4, affine, 1, dtype)
    tf, lf = torch.nn.utils.fuse_conv_bn_eval(tc, tb, transpose), litnn.nn.utils.fuse_conv_bn_eval(lc, lb, transpose)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-12, atol=1e-12)
    for k in ('weight', 'bias'):
        assert isinstance(getattr(lf, k), litnn.nn.Parameter) and getattr(lf, k).dtype == getattr(litnn, dtype)
        np.testing.assert_allclose(to_np(getattr(lf, k)), to_np(getattr(tf, k)), **tol)
    assert list(lf.state_dict()) == list(tf.state_dict()) and (lc.bias is None) == (not bias)
    x = np.random.default_rng(2).standard_normal((2, 3) + (5,) * nd).astype(dtype)
    np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(lb(lc(litnn.tensor(x)))), **tol)
    np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(tf(torch.tensor(x))), **tol)


@pytest.mark.parametrize('bn_features', [4, 1])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_fuse_linear_bn_eval_as_torch(bn_features, bias, dtype):
    tl = torch.nn.Linear(5, 4, bias=bias).to(getattr(torch, dtype)).eval()
    ll = litnn.nn.Linear(5, 4, bias=bias).to(getattr(litnn, dtype)).eval()
    ll.load_state_dict({k: litnn.tensor(to_np(v)) for k, v in tl.state_dict().items()})
    tb, lb = trained_bn(torch, 'BatchNorm1d', bn_features, True, 4, dtype), trained_bn(litnn, 'BatchNorm1d', bn_features, True, 4, dtype)
    tf, lf = torch.nn.utils.fuse_linear_bn_eval(tl, tb), litnn.nn.utils.fuse_linear_bn_eval(ll, lb)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-12, atol=1e-12)
    for k in ('weight', 'bias'): np.testing.assert_allclose(to_np(getattr(lf, k)), to_np(getattr(tf, k)), **tol)
    x = np.random.default_rng(5).standard_normal((6, 5)).astype(dtype)
    np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(tf(torch.tensor(x))), **tol)
    if bn_features == 4: np.testing.assert_allclose(to_np(lf(litnn.tensor(x))), to_np(lb(ll(litnn.tensor(x)))), **tol)


@pytest.mark.parametrize('w_grad,b_grad', [(False, False), (True, False), (False, True), (True, True)])
def test_fused_weights_keep_requires_grad_and_dtypes(w_grad, b_grad):
    out = []
    for lib in (torch, litnn):
        rm, rv = lib.zeros(2), lib.ones(2)
        fw, fb = lib.nn.utils.fuse_conv_bn_weights(lib.ones(2, 1, 3, requires_grad=w_grad), None, rm, rv, 1e-5, None, None)
        lw, lb = lib.nn.utils.fuse_linear_bn_weights(lib.ones(2, 3, dtype=lib.float64, requires_grad=w_grad),
                                                     lib.zeros(2, requires_grad=b_grad), rm, rv, 1e-5, lib.ones(2), lib.zeros(2))
        out.append([(str(p.dtype).split('.')[-1], p.requires_grad, type(p).__name__) for p in (fw, fb, lw, lb)])
    assert out[0] == out[1]


@pytest.mark.parametrize('case', ['conv-train', 'bn-train', 'no-stats', 'linear-features', 'linear-no-stats'])
def test_fusion_errors_as_torch(case):
    def run(lib):
        conv, lin = lib.nn.Conv2d(2, 3, 1).eval(), lib.nn.Linear(2, 3).eval()
        bn, bn1 = lib.nn.BatchNorm2d(3).eval(), lib.nn.BatchNorm1d(3).eval()
        if case == 'conv-train': return lib.nn.utils.fuse_conv_bn_eval(conv.train(), bn)
        if case == 'bn-train': return lib.nn.utils.fuse_conv_bn_eval(conv, bn.train())
        if case == 'no-stats': return lib.nn.utils.fuse_conv_bn_eval(conv, lib.nn.BatchNorm2d(3, track_running_stats=False).eval())
        if case == 'linear-features': return lib.nn.utils.fuse_linear_bn_eval(lin, lib.nn.BatchNorm1d(2).eval())
        return lib.nn.utils.fuse_linear_bn_eval(lin, lib.nn.BatchNorm1d(3, track_running_stats=False).eval())
    assert raised(lambda: run(litnn)) == raised(lambda: run(torch))


def test_fusion_leaves_the_originals():
    conv, bn = litnn.nn.Conv2d(2, 3, 1).eval(), trained_bn(litnn, 'BatchNorm2d', 3, True, 0, 'float32')
    w = conv.weight.tolist()
    fused = litnn.nn.utils.fuse_conv_bn_eval(conv, bn)
    assert conv.weight.tolist() == w and fused is not conv and fused.weight is not conv.weight

"""BatchNorm1d/2d/3d, LayerNorm and F.batch_norm / F.layer_norm side by side with torch: outputs,
gradients (also second order), running statistics over several steps, eval outputs, state_dict keys and
loading torch's state_dict, reprs and errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
import litnn.nn.functional as LF
from litnn.autograd import gradcheck, gradgradcheck
from nn_pairs import err, norm

torch = pytest.importorskip('torch')
import torch.nn.functional as TF

RTOL, ATOL = 1e-4, 1e-5


def pair(a, requires_grad=False):
    "The same array as a litnn tensor and a torch tensor."
    a = np.asarray(a)
    return (litnn.tensor(a.copy(), requires_grad=requires_grad),
            torch.tensor(a.copy(), requires_grad=requires_grad))


def close(l, t, rtol=RTOL, atol=ATOL, msg=''):
    if t is None or l is None:
        assert l is None and t is None, msg
        return
    t = t.detach().float().numpy() if t.dtype in (torch.float16, torch.bfloat16) else t.detach().numpy()
    l = l.detach().float().numpy() if l.dtype in (litnn.float16, litnn.bfloat16) else l.detach().numpy()   # (numpy() refuses bfloat16, as torch)
    assert l.shape == t.shape, (msg, l.shape, t.shape)
    np.testing.assert_allclose(l, t, rtol=rtol, atol=atol, err_msg=msg)


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- F.batch_norm ----------------------------------------------------------------------------------

SHAPES = [(6, 3), (4, 3, 5), (3, 3, 4, 2), (2, 3, 2, 3, 2)]


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('affine', ['both', 'weight', 'none'])
@pytest.mark.parametrize('stats', [True, False])
def test_batch_norm_functional(shape, training, affine, stats):
    if not training and not stats: return _same_error_bn(shape)
    c = shape[1]
    (lx, tx) = pair(rand(*shape) * 3 + 1, True)
    (lw, tw) = pair(rand(c, seed=1) + 1, True) if affine != 'none' else (None, None)
    (lb, tb) = pair(rand(c, seed=2), True) if affine == 'both' else (None, None)
    (lrm, trm), (lrv, trv) = (pair(rand(c, seed=3)), pair(np.abs(rand(c, seed=4)) + 0.5)) if stats else ((None, None),) * 2
    ly = LF.batch_norm(lx, lrm, lrv, lw, lb, training, 0.3, 1e-3)
    ty = TF.batch_norm(tx, trm, trv, tw, tb, training, 0.3, 1e-3)
    close(ly, ty)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'NativeBatchNormBackward0'
    g = rand(*shape, seed=5)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t, n in ((lx, tx, 'x'), (lw, tw, 'w'), (lb, tb, 'b'), (lrm, trm, 'running_mean'), (lrv, trv, 'running_var')):
        if l is not None:
            close(l, t, msg=n)
            close(l.grad, t.grad, msg=n + '.grad')


def _same_error_bn(shape):
    x = rand(*shape)
    assert err(LF.batch_norm, litnn.tensor(x), None, None) == err(TF.batch_norm, torch.tensor(x), None, None)


def test_batch_norm_running_var_is_unbiased():
    x = rand(5, 2, 3)
    (lrm, trm), (lrv, trv) = pair(np.zeros(2, np.float32)), pair(np.ones(2, np.float32))
    LF.batch_norm(litnn.tensor(x), lrm, lrv, training=True, momentum=1.0)
    TF.batch_norm(torch.tensor(x), trm, trv, training=True, momentum=1.0)
    close(lrv, trv)
    np.testing.assert_allclose(lrv.numpy(), x.transpose(1, 0, 2).reshape(2, -1).var(1, ddof=1), rtol=1e-5)
    close(lrm, trm)


@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('stats', [(0, 0), (3, 3), None])
def test_batch_norm_empty_1d_input_like_torch(training, stats):
    # torch returns an empty copy for any input with no elements, before checking channels (OpInfo batch_norm #3, #4)
    for lib, F in ((litnn, LF), (torch, TF)):
        rm, rv = (None, None) if stats is None else (lib.zeros(stats[0]), lib.ones(stats[1]))
        out = F.batch_norm(lib.empty(0), rm, rv, training=training)
        assert tuple(out.shape) == (0,)


def test_batch_norm_keeps_running_buffers_in_place():
    rm, rv = litnn.zeros(3), litnn.ones(3)
    a, b = rm._data, rv._data
    LF.batch_norm(litnn.randn(4, 3), rm, rv, training=True)
    assert rm._data is a and rv._data is b and rm.abs().sum().item() > 0


def test_batch_norm_no_grad_and_inference():
    x = rand(4, 3)
    with litnn.no_grad(): ly = LF.batch_norm(litnn.tensor(x, requires_grad=True), None, None, training=True)
    assert ly.grad_fn is None and not ly.requires_grad
    close(ly, TF.batch_norm(torch.tensor(x), None, None, training=True))


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('param_dtype', ['same', 'float32'])
def test_batch_norm_half_precision(dtype, param_dtype):
    x = rand(8, 3, 4)
    lx = litnn.tensor(x).to(getattr(litnn, dtype)).requires_grad_()
    tx = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    pd = dtype if param_dtype == 'same' else 'float32'
    lw, tw = (v.to(getattr(lib, pd)).requires_grad_() for v, lib in zip(pair(rand(3, seed=1) + 1), (litnn, torch)))
    lrm, trm = (v.to(getattr(lib, pd)) for v, lib in zip(pair(np.zeros(3, np.float32)), (litnn, torch)))
    lrv, trv = (v.to(getattr(lib, pd)) for v, lib in zip(pair(np.ones(3, np.float32)), (litnn, torch)))
    ly, ty = LF.batch_norm(lx, lrm, lrv, lw, None, True), TF.batch_norm(tx, trm, trv, tw, None, True)
    assert str(ly.dtype).split('.')[1] == str(ty.dtype).split('.')[1]
    close(ly, ty, rtol=1e-2, atol=2e-2)
    ly.float().sum().backward(); ty.float().sum().backward()
    close(lw.grad, tw.grad, rtol=1e-2, atol=5e-2)
    assert lx.grad.dtype == getattr(litnn, dtype) and lw.grad.dtype == lw.dtype
    close(lrv, trv, rtol=1e-2, atol=1e-2)


def batch_norm_errors(lib, F):
    x = lib.randn(4, 3)
    o, z = lib.ones(3), lib.zeros(3)
    return [
        lambda: F.batch_norm(lib.randn(1, 3), None, None, training=True),
        lambda: F.batch_norm(lib.randn(1, 3, 1), z, o, training=True),
        lambda: F.batch_norm(x, lib.zeros(4), o, training=True),
        lambda: F.batch_norm(x, z, lib.ones(4), training=True),
        lambda: F.batch_norm(x, z, o, lib.ones(4), training=True),
        lambda: F.batch_norm(x, z, o, None, lib.ones(4), training=True),
        lambda: F.batch_norm(x, None, None),
        lambda: F.batch_norm(x, z, None),
        lambda: F.batch_norm(x, z, None, training=True),
        lambda: F.batch_norm(x, None, None, training=True, eps=0),
        lambda: F.batch_norm(x, z, o, eps=-1.),
        lambda: F.batch_norm(lib.randn(3), z, o),
        lambda: F.batch_norm(x.long(), None, None, training=True),
        lambda: F.batch_norm(x.double(), z, o, training=True),
        lambda: F.batch_norm(x, z.double(), o.double(), training=True),
        lambda: F.batch_norm(x.half(), z.double(), o.double()),
    ]


@pytest.mark.parametrize('i', range(len(batch_norm_errors(litnn, LF))))
def test_batch_norm_errors(i):
    assert err(batch_norm_errors(litnn, LF)[i]) == err(batch_norm_errors(torch, TF)[i])


# --- gradients against finite differences and second order -------------------------------------------

def f64(*shape, seed=0, grad=True):
    return litnn.tensor(rand(*shape, seed=seed, dtype=np.float64), requires_grad=grad)


@pytest.mark.parametrize('training', [True, False])
def test_batch_norm_gradcheck(training):
    x, w, b = f64(4, 3, 2), f64(3, seed=1), f64(3, seed=2)
    rm, rv = f64(3, seed=3, grad=False), f64(3, seed=4, grad=False).abs() + 0.5
    f = lambda x, w, b: LF.batch_norm(x, rm.clone(), rv.clone(), w, b, training, 0.1, 1e-3)
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


@pytest.mark.parametrize('shape,nshape', [((3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,))])
def test_layer_norm_gradcheck(shape, nshape):
    x, w, b = f64(*shape), f64(*nshape, seed=1), f64(*nshape, seed=2)
    f = lambda x, w, b: LF.layer_norm(x, nshape, w, b, 1e-3)
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    assert gradgradcheck(lambda x: LF.layer_norm(x, nshape), (x,))


@pytest.mark.parametrize('kind', ['bn-train', 'bn-eval', 'ln'])
def test_double_backward_against_torch(kind):
    "d/dx of (sum of dy/dx * v) for the same inputs in both libraries."
    x, w = rand(5, 3, seed=0, dtype=np.float64), rand(3, seed=1, dtype=np.float64) + 1
    rm, rv, v = rand(3, seed=2, dtype=np.float64), np.abs(rand(3, seed=3, dtype=np.float64)) + 0.5, rand(5, 3, seed=4, dtype=np.float64)
    res = []
    for lib, F in ((litnn, LF), (torch, TF)):
        tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        if kind == 'ln': y = F.layer_norm(tx, (3,), tw, None)
        else: y = F.batch_norm(tx, lib.tensor(rm), lib.tensor(rv), tw, None, kind == 'bn-train')
        y = (y * y * lib.tensor(v)).sum()
        gx, gw = lib.autograd.grad(y, (tx, tw), create_graph=True)
        gx2, gw2 = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (tx, tw))
        res.append([a.detach().numpy() for a in (gx, gw, gx2, gw2)])
    for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


# --- BatchNorm modules ------------------------------------------------------------------------------

def copy_params(lm, tm):
    "Give litnn module `lm` torch module `tm`'s parameters and buffers."
    for (n, lp), (_, tp) in zip(lm.state_dict(keep_vars=True).items(), tm.state_dict(keep_vars=True).items()):
        lp._data[...] = tp.detach().numpy()


@pytest.mark.parametrize('cls,shape', [('BatchNorm1d', (8, 3)), ('BatchNorm1d', (4, 3, 5)), ('BatchNorm2d', (4, 3, 2, 3)),
                                       ('BatchNorm3d', (2, 3, 2, 2, 3))])
@pytest.mark.parametrize('opts', [{}, dict(momentum=None), dict(momentum=0.5, eps=1e-3), dict(affine=False),
                                  dict(bias=False), dict(track_running_stats=False), dict(affine=False, track_running_stats=False, momentum=None)])
def test_batchnorm_module_training_then_eval(cls, shape, opts):
    lm, tm = getattr(litnn.nn, cls)(3, **opts), getattr(torch.nn, cls)(3, **opts)
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    rng = np.random.default_rng(0)
    if opts.get('affine', True):
        w = rng.standard_normal(3).astype(np.float32)
        with litnn.no_grad(): lm.weight.copy_(litnn.tensor(w))
        with torch.no_grad(): tm.weight.copy_(torch.tensor(w))
    for step in range(4):
        x = (rng.standard_normal(shape) * (step + 1) + step).astype(np.float32)
        (lx, tx) = pair(x, True)
        ly, ty = lm(lx), tm(tx)
        close(ly, ty)
        g = rng.standard_normal(shape).astype(np.float32)
        ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
        close(lx.grad, tx.grad, msg=f'x.grad step {step}')
        for (n, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
            close(lp.grad, tp.grad, msg=f'{n}.grad step {step}')
        for (n, lb), (_, tb) in zip(lm.named_buffers(), tm.named_buffers()):
            close(lb, tb, msg=f'{n} step {step}')
            assert str(lb.dtype).split('.')[1] == str(tb.dtype).split('.')[1]
    lm.eval(); tm.eval()
    x = rng.standard_normal(shape).astype(np.float32)
    (lx, tx) = pair(x, True)
    ly, ty = lm(lx), tm(tx)
    close(ly, ty)
    ly.sum().backward(); ty.sum().backward()
    close(lx.grad, tx.grad)
    for (n, lb), (_, tb) in zip(lm.named_buffers(), tm.named_buffers()): close(lb, tb, msg=n)


def test_batchnorm_loads_torch_state_dict():
    tm = torch.nn.BatchNorm2d(4)
    with torch.no_grad(): tm.weight.uniform_(); tm.bias.uniform_()
    for _ in range(3): tm(torch.randn(5, 4, 3, 3) * 2 + 1)
    lm = litnn.nn.BatchNorm2d(4)
    sd = {k: litnn.tensor(v.numpy()) for k, v in tm.state_dict().items()}
    assert lm.load_state_dict(sd).missing_keys == []
    assert lm.num_batches_tracked.item() == 3 and lm.num_batches_tracked.dtype == litnn.int64
    lm.eval(); tm.eval()
    x = rand(2, 4, 3, 3)
    close(lm(litnn.tensor(x)), tm(torch.tensor(x)))
    back = {k: torch.tensor(v.numpy()) for k, v in lm.state_dict().items()}   # and back into torch
    assert torch.nn.BatchNorm2d(4).load_state_dict(back).missing_keys == []


def test_batchnorm_old_checkpoint_without_num_batches_tracked():
    def run(lib):
        m = lib.nn.BatchNorm1d(2)
        sd = m.state_dict(); del sd['num_batches_tracked']
        e = err(m.load_state_dict, sd)
        sd._metadata[''] = dict(version=1)
        return norm(e[1]) if lib is torch else e[1], m.load_state_dict(sd).missing_keys
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('args', [(3,), (5, 1e-3), (1, 0.1, 0.5)])
@pytest.mark.parametrize('kw', [{}, dict(affine=False), dict(bias=False), dict(track_running_stats=False), dict(device='cpu', dtype=None)])
@pytest.mark.parametrize('cls', ['BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d'])
def test_batchnorm_repr_and_state(cls, args, kw):
    lm, tm = getattr(litnn.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(lm) == repr(tm)
    assert [(k, tuple(v.shape), str(v.dtype).split('.')[1]) for k, v in lm.state_dict().items()] == \
           [(k, tuple(v.shape), str(v.dtype).split('.')[1]) for k, v in tm.state_dict().items()]
    assert [n for n, _ in lm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for a in ('weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked'):
        assert (getattr(lm, a) is None) == (getattr(tm, a) is None), a
    for (k, l), (_, t) in zip(lm.state_dict().items(), tm.state_dict().items()): close(l, t, msg=k)


def test_batchnorm_conversion_keeps_counter_int64():
    lm, tm = litnn.nn.BatchNorm1d(3).double(), torch.nn.BatchNorm1d(3).double()
    assert [str(v.dtype).split('.')[1] for v in lm.state_dict().values()] == [str(v.dtype).split('.')[1] for v in tm.state_dict().values()]
    m = litnn.nn.BatchNorm1d(3, dtype=litnn.float64)
    assert m.weight.dtype == m.running_var.dtype == litnn.float64 and m.num_batches_tracked.dtype == litnn.int64
    x = rand(6, 3, dtype=np.float64)
    close(m(litnn.tensor(x)), tm(torch.tensor(x)))


def test_batchnorm_reset():
    m = litnn.nn.BatchNorm1d(3)
    for _ in range(2): m(litnn.randn(4, 3) + 2)
    with litnn.no_grad(): m.weight.mul_(3)
    m.reset_parameters()
    assert m.running_mean.tolist() == [0.] * 3 and m.running_var.tolist() == [1.] * 3
    assert m.num_batches_tracked.item() == 0 and m.weight.tolist() == [1.] * 3


def module_errors(lib):
    return [
        lambda: lib.nn.BatchNorm1d(3)(lib.randn(2, 3, 4, 5)),
        lambda: lib.nn.BatchNorm1d(3)(lib.randn(3)),
        lambda: lib.nn.BatchNorm2d(3)(lib.randn(2, 3, 4)),
        lambda: lib.nn.BatchNorm3d(3)(lib.randn(2, 3, 4, 4)),
        lambda: lib.nn.BatchNorm1d(3)(lib.randn(1, 3)),
        lambda: lib.nn.BatchNorm2d(3)(lib.randn(1, 3, 1, 1)),
        lambda: lib.nn.BatchNorm1d(3, track_running_stats=False).eval()(lib.randn(1, 3)),
        lambda: lib.nn.BatchNorm1d(4)(lib.randn(5, 3)),
        lambda: lib.nn.LayerNorm(4)(lib.randn(2, 3)),
        lambda: lib.nn.LayerNorm((2, 3))(lib.randn(3, 3)),
    ]


@pytest.mark.parametrize('i', range(len(module_errors(litnn))))
def test_module_errors(i):
    assert err(module_errors(litnn)[i]) == err(module_errors(torch)[i])


def test_eval_single_example_and_no_update():
    lm, tm = litnn.nn.BatchNorm1d(3).eval(), torch.nn.BatchNorm1d(3).eval()
    x = rand(1, 3)
    close(lm(litnn.tensor(x)), tm(torch.tensor(x)))
    assert lm.num_batches_tracked.item() == 0 and lm.running_mean.tolist() == [0.] * 3


# --- F.layer_norm and LayerNorm ---------------------------------------------------------------------

@pytest.mark.parametrize('shape,nshape', [((4, 5), (5,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((6,), (6,)), ((2, 2, 3, 2), (2, 3, 2))])
@pytest.mark.parametrize('affine', ['both', 'weight', 'bias', 'none'])
def test_layer_norm_functional(shape, nshape, affine):
    (lx, tx) = pair(rand(*shape) * 2 + 3, True)
    (lw, tw) = pair(rand(*nshape, seed=1), True) if affine in ('both', 'weight') else (None, None)
    (lb, tb) = pair(rand(*nshape, seed=2), True) if affine in ('both', 'bias') else (None, None)
    ly, ty = LF.layer_norm(lx, nshape, lw, lb, 1e-4), TF.layer_norm(tx, nshape, tw, tb, 1e-4)
    close(ly, ty)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'NativeLayerNormBackward0'
    g = rand(*shape, seed=3)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t, n in ((lx, tx, 'x'), (lw, tw, 'w'), (lb, tb, 'b')):
        if l is not None: close(l.grad, t.grad, msg=n)


@pytest.mark.parametrize('args,kw', [((4,), {}), ((4,), dict(eps=1e-3)), (([3, 4],), {}), (((3, 4),), dict(elementwise_affine=False)),
                                     ((4,), dict(bias=False)), ((4,), dict(elementwise_affine=False, bias=False))])
def test_layernorm_module(args, kw):
    lm, tm = litnn.nn.LayerNorm(*args, **kw), torch.nn.LayerNorm(*args, **kw)
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert lm.normalized_shape == tm.normalized_shape
    sd = {k: litnn.tensor(np.random.default_rng(1).standard_normal(tuple(v.shape)).astype(np.float32)) for k, v in tm.state_dict().items()}
    lm.load_state_dict(sd); tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in sd.items()})
    x = rand(2, 3, 4)
    (lx, tx) = pair(x, True)
    ly, ty = lm(lx), tm(tx)
    close(ly, ty)
    ly.sum().backward(); (ty.sum()).backward()
    close(lx.grad, tx.grad)
    for (n, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()): close(lp.grad, tp.grad, msg=n)
    lm.eval(); tm.eval()
    close(lm(lx), tm(tx))


def layer_norm_errors(lib, F):
    x = lib.randn(4, 3)
    return [
        lambda: F.layer_norm(x, (4,)),
        lambda: F.layer_norm(x, (3,), lib.ones(4)),
        lambda: F.layer_norm(x, (3,), None, lib.ones(2)),
        lambda: F.layer_norm(x, (2, 3)),
        lambda: F.layer_norm(x, (5, 4, 3)),
        lambda: F.layer_norm(x, ()),
        lambda: F.layer_norm(x, 3),
        lambda: F.layer_norm(x.long(), (3,)),
        lambda: F.layer_norm(x, (3,), lib.ones(3, dtype=lib.float64)),
        lambda: F.layer_norm(x.double(), (3,), lib.ones(3)),
    ]


@pytest.mark.parametrize('i', range(len(layer_norm_errors(litnn, LF))))
def test_layer_norm_errors(i):
    assert err(layer_norm_errors(litnn, LF)[i]) == err(layer_norm_errors(torch, TF)[i])


def test_layer_norm_half_and_empty():
    x = rand(3, 4)
    ly = LF.layer_norm(litnn.tensor(x).half(), (4,), litnn.ones(4), litnn.zeros(4))
    ty = TF.layer_norm(torch.tensor(x).half(), (4,), torch.ones(4), torch.zeros(4))
    assert ly.dtype == litnn.float16
    close(ly, ty, rtol=1e-2, atol=1e-2)
    assert LF.layer_norm(litnn.randn(0, 4), (4,)).shape == (0, 4)
    assert LF.batch_norm(litnn.randn(0, 3), litnn.zeros(3), litnn.ones(3), training=True).shape == (0, 3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=4), st.integers(1, 3), st.booleans(), st.floats(1e-5, 1e-1),
       st.integers(0, 2**16))
def test_norms_fuzz(shape, k, training, eps, seed):
    "Random shapes: batch_norm (when it can train) and layer_norm over the last k dims, output and gradients."
    shape = tuple(shape)
    x = rand(*shape, seed=seed) * 4
    g = rand(*shape, seed=seed + 1)
    n_per_channel = shape[0] * int(np.prod(shape[2:]))
    if not training or n_per_channel > 1:
        c = shape[1]
        (lx, tx), (lw, tw), (lb, tb) = pair(x, True), pair(rand(c, seed=seed + 2), True), pair(rand(c, seed=seed + 3), True)
        (lrm, trm), (lrv, trv) = pair(np.zeros(c, np.float32)), pair(np.ones(c, np.float32))
        ly, ty = LF.batch_norm(lx, lrm, lrv, lw, lb, training, 0.1, eps), TF.batch_norm(tx, trm, trv, tw, tb, training, 0.1, eps)
        close(ly, ty, rtol=1e-3, atol=1e-3)
        ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
        for l, t in ((lx, tx), (lw, tw), (lb, tb)): close(l.grad, t.grad, rtol=1e-3, atol=2e-3)
        close(lrv, trv, rtol=1e-4, atol=1e-4)
    k = min(k, len(shape))
    (lx, tx) = pair(x, True)
    ly, ty = LF.layer_norm(lx, shape[-k:], eps=eps), TF.layer_norm(tx, shape[-k:], eps=eps)
    close(ly, ty, rtol=1e-3, atol=1e-3)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, rtol=1e-3, atol=2e-3)


# --- GPU: the same results on CuPy arrays -----------------------------------------------------------

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")
@pytest.mark.parametrize('kind', ['bn-train', 'bn-eval', 'ln'])
def test_gpu_matches_cpu(kind):
    x, w, b = rand(6, 3, 4), rand(3, seed=1) + 1, rand(3, seed=2)
    out = {}
    for dev in ('cpu', 'cuda'):
        m = (litnn.nn.LayerNorm((3, 4)) if kind == 'ln' else litnn.nn.BatchNorm1d(3)).to(dev)
        if kind != 'ln':
            with litnn.no_grad(): m.weight.copy_(litnn.tensor(w).to(dev)); m.bias.copy_(litnn.tensor(b).to(dev))
        if kind == 'bn-eval':
            m(litnn.tensor(x).to(dev)); m.eval()
        tx = litnn.tensor(x).to(dev).requires_grad_()
        y = m(tx)
        y.backward(litnn.tensor(x * 0.5).to(dev))
        out[dev] = [y.cpu().detach().numpy(), tx.grad.cpu().numpy()] + [v.detach().cpu().numpy() for v in m.state_dict().values()] + \
                   [p.grad.cpu().numpy() for p in m.parameters()]
        assert y.device.type == dev
    for a, c in zip(out['cpu'], out['cuda']): np.testing.assert_allclose(c, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('offset', [0., 100., 1e4])
def test_batch_norm_float32_as_close_to_float64_as_torchs(offset):
    "BatchNorm's statistics summed in float64 (torch's CPU accumulation): on inputs far from 0 and a batch of 2, litnn's float32 output and gradients are as near the float64 answer as torch's."
    rng = np.random.default_rng(1)
    x = offset + rng.normal(size=(2, 8, 2, 2)); g = rng.normal(size=x.shape)
    def run(lib, dt):
        bn = lib.nn.BatchNorm2d(8).to(dt); X = lib.tensor(x, dtype=dt, requires_grad=True)
        y = bn(X); (y * lib.tensor(g, dtype=dt)).sum().backward()
        return [v.double().numpy() for v in (y.detach(), X.grad, bn.weight.grad, bn.running_var)]
    ref = run(torch, torch.float64)
    err = lambda r: np.array([np.abs(a - b).max() / np.abs(b).max() for a, b in zip(r, ref)])
    mine, theirs = err(run(litnn, litnn.float32)), err(run(torch, torch.float32))
    assert (mine <= 2 * theirs + 1e-7).all(), (mine, theirs)


@pytest.mark.parametrize('duals', [(0,), (1,), (1, 2), (0, 1), (0, 1, 2), (0, 2)])
@pytest.mark.parametrize('training', [False, True])
def test_batch_norm_forward_ad_running_stats(duals, training):
    "In eval mode the running statistics cannot carry a tangent when the input does (torch's batch_norm_jvp check)."
    vals = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate([(3, 2, 5), (2,), (2,)])]
    vals[2] = np.abs(vals[2]) + 0.5
    def run(lib):
        fw = lib.autograd.forward_ad
        args = [lib.tensor(v) for v in vals]
        with fw.dual_level():
            d = [fw.make_dual(a, lib.ones_like(a)) if i in duals else a for i, a in enumerate(args)]
            try: out = lib.nn.functional.batch_norm(*d, training=training)
            except RuntimeError as e: return 'raised', str(e)
            t = fw.unpack_dual(out).tangent
            return fw.unpack_dual(out).primal.numpy().round(6).tolist(), None if t is None else t.numpy().round(6).tolist()
    assert run(torch) == run(litnn)


def test_batch_norm_update_stats_refuses_empty_input():
    for shape in [(0, 1), (3, 0), (2, 3, 0)]:
        msgs = []
        for lib in (torch, litnn):
            with pytest.raises(RuntimeError) as e:
                lib.batch_norm_update_stats(lib.rand(shape), None, None, 0.1)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]

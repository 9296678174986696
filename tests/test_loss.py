"""Losses side by side with torch: cross_entropy / nll_loss over every combination of target kind, shape, weight,
ignore_index, reduction and label smoothing; mse_loss, l1_loss, binary_cross_entropy(_with_logits); values,
gradients of inputs and targets, grad_fn names, extreme inputs, warnings, errors and the loss modules."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
import litnn.nn.functional as LF
from litnn.autograd import gradcheck, gradgradcheck
from nn_pairs import err, norm

torch = pytest.importorskip('torch')
import torch.nn.functional as TF

REDUCTIONS = ['mean', 'sum', 'none']


def pair(a, requires_grad=False):
    a = np.asarray(a)
    return litnn.tensor(a.copy(), requires_grad=requires_grad), torch.tensor(a.copy(), requires_grad=requires_grad)


def close(l, t, rtol=1e-5, atol=1e-6, msg=''):
    if l is None or t is None:
        assert l is None and t is None, msg
        return
    l, t = l.detach().numpy(), t.detach().numpy()
    assert l.shape == t.shape and l.dtype == t.dtype, (msg, l.shape, t.shape, l.dtype, t.dtype)
    np.testing.assert_allclose(l, t, rtol=rtol, atol=atol, err_msg=msg)


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def targets(shape, c, seed=0, ignore=None):
    "Class indices of `shape` in [0, c), some set to `ignore`."
    t = np.random.default_rng(seed).integers(0, c, shape).astype(np.int64)
    if ignore is not None and t.size > 1: t.reshape(-1)[::3] = ignore
    elif ignore is not None: t[...] = t if seed % 2 else ignore
    return t


# litnn names a division by a number DivBackward0 (torch: DivBackward1): the mean of probability-target cross-entropy
SAME_NODE = {}     # (names torch and litnn give one node differently: none left)

def run_both(f_l, f_t, x, g_seed=9):
    "Call the litnn and torch functions on the same input; backward with the same upstream gradient."
    (lx, tx) = pair(x, True)
    ly, ty = f_l(lx), f_t(tx)
    close(ly, ty, rtol=1e-5, atol=1e-5)
    tname = type(ty.grad_fn).__name__
    assert type(ly.grad_fn).__name__ == SAME_NODE.get(tname, tname), (ly.grad_fn, ty.grad_fn)
    g = rand(*ty.shape, seed=g_seed)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, rtol=1e-5, atol=1e-6, msg='input grad')
    return ly, ty


# --- cross_entropy and nll_loss with class indices ---------------------------------------------------

SHAPES = [((5, 4), (5,)), ((4,), ()), ((3, 4, 2), (3, 2)), ((2, 4, 3, 2), (2, 3, 2)), ((2, 4, 2, 1, 2), (2, 2, 1, 2))]


@pytest.mark.parametrize('shapes', SHAPES, ids=lambda s: str(s[0]))
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('ignore', [None, -100, 1])
@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('smoothing', [0.0, 0.25])
@pytest.mark.parametrize('fn', ['cross_entropy', 'nll_loss'])
def test_class_index_targets(shapes, weighted, ignore, reduction, smoothing, fn):
    if fn == 'nll_loss' and smoothing: return
    xs, ts = shapes
    c = xs[0 if len(xs) == 1 else 1]
    x = rand(*xs) * 3
    if fn == 'nll_loss': x = np.log(np.exp(x) / np.exp(x).sum(0 if len(xs) == 1 else 1, keepdims=True))
    t = targets(ts, c, seed=1, ignore=ignore)
    w = np.linspace(0.5, 2, c).astype(np.float32) if weighted else None
    kw = dict(reduction=reduction, **({} if ignore is None else dict(ignore_index=ignore)), **({'label_smoothing': smoothing} if smoothing else {}))
    lw, tw = pair(w) if weighted else (None, None)
    run_both(lambda x: getattr(LF, fn)(x, litnn.tensor(t), weight=lw, **kw),
             lambda x: getattr(TF, fn)(x, torch.tensor(t), weight=tw, **kw), x)


@pytest.mark.parametrize('shape', [(5, 4), (4,), (3, 4, 2)])
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('smoothing', [0.0, 0.3])
def test_probability_targets(shape, weighted, reduction, smoothing):
    "Targets of the input's shape are class probabilities; their gradient is compared too."
    cd = 0 if len(shape) == 1 else 1
    c = shape[cd]
    p = np.exp(rand(*shape, seed=2)); p /= p.sum(cd, keepdims=True)
    (lp, tp), (lw, tw) = pair(p, True), pair(np.linspace(0.5, 2, c).astype(np.float32)) if weighted else (None, None)
    run_both(lambda x: LF.cross_entropy(x, lp, weight=lw, reduction=reduction, label_smoothing=smoothing),
             lambda x: TF.cross_entropy(x, tp, weight=tw, reduction=reduction, label_smoothing=smoothing), rand(*shape) * 2)
    close(lp.grad, tp.grad, msg='target grad')


def test_uint8_targets_and_class_grad_fn_chain():
    x, t = rand(6, 5), np.array([0, 4, 1, 1, 3, 2], np.uint8)
    ly, ty = run_both(lambda x: LF.cross_entropy(x, litnn.tensor(t)), lambda x: TF.cross_entropy(x, torch.tensor(t)), x)
    assert type(ly.grad_fn.next_functions[0][0]).__name__ == 'LogSoftmaxBackward0'
    run_both(lambda x: LF.nll_loss(x, litnn.tensor(t), reduction='none'), lambda x: TF.nll_loss(x, torch.tensor(t), reduction='none'), x)


def test_one_dim_input_with_one_element_target():
    "A (1,) target of a 1-D input counts as a 0-d one (torch's forward; torch's backward then fails, litnn's works)."
    x = rand(4)
    for fn in ('nll_loss', 'cross_entropy'):
        for reduction in REDUCTIONS:
            (lx, tx) = pair(x, True)
            ly, ty = getattr(LF, fn)(lx, litnn.tensor([2]), reduction=reduction), getattr(TF, fn)(tx, torch.tensor([2]), reduction=reduction)
            close(ly, ty)
            ly.backward()
            getattr(TF, fn)(tx, torch.tensor(2), reduction=reduction).backward()
            close(lx.grad, tx.grad)


@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('smoothing', [0.0, 0.1])
def test_cross_entropy_extreme_logits(reduction, smoothing):
    x = np.array([[1e4, -1e4, 0.], [-1e4, -1e4, 1e4], [0., 0., 0.], [1e4, 1e4, -1e4]], np.float32)
    ly, ty = run_both(lambda x: LF.cross_entropy(x, litnn.tensor([1, 2, 0, 2]), reduction=reduction, label_smoothing=smoothing),
                      lambda x: TF.cross_entropy(x, torch.tensor([1, 2, 0, 2]), reduction=reduction, label_smoothing=smoothing), x)
    assert np.isfinite(ly.detach().numpy()).all()


def test_all_ignored_and_empty_batches():
    def run(lib, F):
        x = lib.tensor(rand(3, 4), requires_grad=True)
        t = lib.full((3,), -100)
        out = [F.cross_entropy(x, t).item(), F.cross_entropy(x, t, reduction='sum').item(),
               F.cross_entropy(x, t, label_smoothing=0.2).item(),
               F.nll_loss(x, lib.tensor([0, 0, 0]), weight=lib.tensor([0., 1., 1., 1.])).item(),
               F.cross_entropy(lib.zeros(0, 4), lib.zeros(0, dtype=lib.long)).item(),
               F.cross_entropy(lib.zeros(0, 4), lib.zeros(0, dtype=lib.long), reduction='sum').item(),
               F.cross_entropy(lib.zeros(0, 4), lib.zeros(0, 4)).item()]
        F.cross_entropy(x, t).backward()
        return np.array(out), x.grad.numpy()
    (lo, lg), (to, tg) = run(litnn, LF), run(torch, TF)
    np.testing.assert_array_equal(lo, to)
    np.testing.assert_array_equal(lg, tg)


def test_double_backward_of_cross_entropy_against_torch():
    x, t, v = rand(4, 3, dtype=np.float64), np.array([0, 2, 1, 2]), rand(4, 3, seed=1, dtype=np.float64)
    res = []
    for lib, F in ((litnn, LF), (torch, TF)):
        tx = lib.tensor(x, requires_grad=True)
        loss = F.cross_entropy(tx, lib.tensor(t), weight=lib.tensor([1., 2., 0.5], dtype=lib.float64), label_smoothing=0.1)
        gx, = lib.autograd.grad(loss, (tx,), create_graph=True)
        gx2, = lib.autograd.grad((gx * lib.tensor(v)).sum(), (tx,))
        res.append((gx.detach().numpy(), gx2.numpy()))
    for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)


def loss_errors(lib, F):
    x, t = lib.randn(4, 3), lib.tensor([0, 2, 1, 2])
    p = lib.softmax(x, 1)
    return [
        lambda: F.cross_entropy(x, t.float()),
        lambda: F.cross_entropy(x, t.int()),
        lambda: F.cross_entropy(x, lib.tensor([0, 1, 2, 10])),
        lambda: F.cross_entropy(x, lib.tensor([0, -1, 2, 1])),
        lambda: F.cross_entropy(x, lib.tensor([0, 5, -100, 1]), ignore_index=5),
        lambda: F.cross_entropy(x, t[:3]),
        lambda: F.cross_entropy(x, t, reduction='avg'),
        lambda: F.nll_loss(x, t, reduction='bad'),
        lambda: F.cross_entropy(x, t, weight=lib.ones(4)),
        lambda: F.cross_entropy(x, t, weight=lib.ones(3, 1)),
        lambda: F.cross_entropy(x, t, weight=lib.ones(3, dtype=lib.float64)),
        lambda: F.cross_entropy(x, t, label_smoothing=1.5),
        lambda: F.cross_entropy(x, p, ignore_index=1),
        lambda: F.cross_entropy(x, p, weight=lib.ones(4)),
        lambda: F.cross_entropy(x, t.reshape(2, 2)),
        lambda: F.cross_entropy(x, t.reshape(4, 1)),
        lambda: F.cross_entropy(x[0], t),
        lambda: F.cross_entropy(lib.tensor(1.), lib.tensor(0)),
        lambda: F.cross_entropy(x.long(), t),
        lambda: F.nll_loss(lib.tensor(1.), lib.tensor(0)),
        lambda: F.nll_loss(x, lib.tensor(0)),
        lambda: F.nll_loss(x.int(), t),
        lambda: F.nll_loss(x, t, weight=lib.ones(3, requires_grad=True)),
        lambda: F.nll_loss(lib.randn(2, 3, 4, 5), lib.zeros(2, 4, 6, dtype=lib.long)),
        lambda: F.nll_loss(lib.randn(2, 3, 4, 5), lib.zeros(2, 4, dtype=lib.long)),
        lambda: F.nll_loss(lib.randn(2, 3, 4), lib.zeros(2, 5, dtype=lib.long)),
        lambda: F.nll_loss(lib.randn(2, 3, 4, 5), lib.full((2, 4, 5), 7)),
        lambda: F.nll_loss(lib.randn(2, 3, 4, 5), lib.zeros(2, 4, 5, dtype=lib.long), weight=lib.ones(4)),
        lambda: F.nll_loss(lib.randn(2, 3, 4, 5).int(), lib.zeros(2, 4, 5, dtype=lib.long)),
        lambda: F.nll_loss(lib.randn(3), lib.tensor([1, 2])),
        lambda: F.cross_entropy(lib.randn(3), lib.tensor([1]), label_smoothing=0.1, reduction='none'),
        lambda: F.mse_loss(x, lib.zeros(2, 3)),
        lambda: F.mse_loss(x.long(), t.reshape(4, 1).expand(4, 3)),
        lambda: F.mse_loss(x, x, reduction='bad'),
        lambda: F.mse_loss(x, x, weight=lib.ones(3)),
        lambda: F.mse_loss(x, x, weight=lib.ones(4, 3), reduction='bad'),
        lambda: F.l1_loss(x, lib.zeros(5, 1, 3, 2)),
        lambda: F.l1_loss(x.long(), t.reshape(4, 1)),
        lambda: F.binary_cross_entropy(p, lib.ones(4, 1)),
        lambda: F.binary_cross_entropy(x, lib.ones(4, 3)),
        lambda: F.binary_cross_entropy(lib.tensor([float('nan')]), lib.ones(1)),
        lambda: F.binary_cross_entropy(p, lib.ones(4, 3), weight=lib.ones(5)),
        lambda: F.binary_cross_entropy(p, lib.ones(4, 3, dtype=lib.long)),
        lambda: F.binary_cross_entropy(p, lib.ones(4, 3, dtype=lib.float64)),
        lambda: F.binary_cross_entropy(p, lib.ones(4, 3), weight=lib.ones(3, requires_grad=True)),
        lambda: F.binary_cross_entropy(p, lib.ones(4, 3), reduction='bad'),
        lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 1)),
        lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 3), pos_weight=lib.ones(2)),
        lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 3), weight=lib.ones(2)),
        lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 3, dtype=lib.long)),
        lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 3), pos_weight=lib.ones(3, requires_grad=True)),
        lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 3), reduction='bad'),
    ]


@pytest.mark.parametrize('i', range(len(loss_errors(litnn, LF))))
def test_errors(i):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert err(loss_errors(litnn, LF)[i]) == err(loss_errors(torch, TF)[i])


# --- mse_loss and l1_loss ---------------------------------------------------------------------------

@pytest.mark.parametrize('fn', ['mse_loss', 'l1_loss'])
@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('shapes', [((4, 3), (4, 3)), ((), ()), ((2, 3, 2), (2, 3, 2)), ((4, 3), (3,)), ((4, 1), (4,))])
@pytest.mark.parametrize('weighted', [False, True])
def test_pointwise_losses(fn, reduction, shapes, weighted):
    xs, ts = shapes
    t = rand(*ts, seed=1)
    t.reshape(-1)[:1] = rand(*xs).reshape(-1)[:1]          # one exact tie: abs's gradient there is 0
    (lt, tt) = pair(t, True)
    (lw, tw) = pair(np.abs(rand(*xs, seed=3)) + 0.1) if weighted else (None, None)
    with warnings.catch_warnings(record=True) as lwarn:
        warnings.simplefilter('always')
        ly = getattr(LF, fn)(lx := litnn.tensor(rand(*xs), requires_grad=True), lt, reduction=reduction, weight=lw)
    with warnings.catch_warnings(record=True) as twarn:
        warnings.simplefilter('always')
        ty = getattr(TF, fn)(tx := torch.tensor(rand(*xs), requires_grad=True), tt, reduction=reduction, weight=tw)
    assert [norm(str(w.message)) for w in lwarn] == [norm(str(w.message)) for w in twarn]
    assert [w.filename for w in lwarn] == [__file__] * len(lwarn)           # the warning points at the caller
    close(ly, ty)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__
    g = rand(*ty.shape, seed=4)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, msg='input grad')
    close(lt.grad, tt.grad, msg='target grad')


def test_pointwise_dtype_promotion_and_legacy_flags():
    x, t = rand(3, 2), rand(3, 2, seed=1).astype(np.float64)
    for fn in ('mse_loss', 'l1_loss'):
        (lx, tx) = pair(x, True)
        ly, ty = getattr(LF, fn)(lx, litnn.tensor(t)), getattr(TF, fn)(tx, torch.tensor(t))
        close(ly, ty)
        ly.backward(); ty.backward()
        close(lx.grad, tx.grad)
        ly, ty = getattr(LF, fn)(litnn.tensor(x), litnn.tensor(t).long()), getattr(TF, fn)(torch.tensor(x), torch.tensor(t).long())
        close(ly, ty)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            for sa, r in ((False, None), (None, False), (True, True)):
                close(getattr(LF, fn)(litnn.tensor(x), litnn.tensor(t), size_average=sa, reduce=r),
                      getattr(TF, fn)(torch.tensor(x), torch.tensor(t), size_average=sa, reduce=r))
        assert len(w) == 6 and all('size_average and reduce args will be deprecated' in str(m.message) for m in w)


# --- binary cross-entropy ----------------------------------------------------------------------------

@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('weight', [None, (4, 3), (3,), (4, 1)])
def test_binary_cross_entropy(reduction, weight):
    p = 1 / (1 + np.exp(-rand(4, 3) * 2))
    p[0] = [0., 1., 0.5]                                   # exact 0 and 1: clamped logs, finite loss
    t = np.random.default_rng(1).uniform(size=(4, 3)).astype(np.float32)
    t[0] = [1., 0., 0.5]
    (lt, tt) = pair(t, True)
    (lw, tw) = pair(np.abs(rand(*weight, seed=2)) + 0.1) if weight else (None, None)
    (lx, tx) = pair(p.astype(np.float32), True)
    ly, ty = LF.binary_cross_entropy(lx, lt, lw, reduction=reduction), TF.binary_cross_entropy(tx, tt, tw, reduction=reduction)
    close(ly, ty)
    assert np.isfinite(ly.detach().numpy()).all()
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'BinaryCrossEntropyBackward0'
    g = rand(*ty.shape, seed=3)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, rtol=1e-4, msg='input grad')
    close(lt.grad, tt.grad, rtol=1e-4, msg='target grad')


@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('weight', [None, (4, 3), (3,)])
@pytest.mark.parametrize('pos_weight', [None, (3,), (4, 3)])
def test_binary_cross_entropy_with_logits(reduction, weight, pos_weight):
    x = rand(4, 3) * 3
    x[0] = [1e4, -1e4, 0.]                                 # extreme logits: no overflow
    x[1] = [-1e4, 1e4, 88.]
    t = np.random.default_rng(1).uniform(size=(4, 3)).astype(np.float32)
    t[0], t[1] = [1., 1., 0.5], [1., 0., 0.]
    (lt, tt) = pair(t, True)
    (lw, tw) = pair(np.abs(rand(*weight, seed=2)) + 0.1) if weight else (None, None)
    (lpw, tpw) = pair(np.abs(rand(*pos_weight, seed=3)) + 0.5) if pos_weight else (None, None)
    (lx, tx) = pair(x, True)
    ly = LF.binary_cross_entropy_with_logits(lx, lt, lw, reduction=reduction, pos_weight=lpw)
    ty = TF.binary_cross_entropy_with_logits(tx, tt, tw, reduction=reduction, pos_weight=tpw)
    close(ly, ty, rtol=1e-5, atol=1e-4)
    assert np.isfinite(ly.detach().numpy()).all()
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'BinaryCrossEntropyWithLogitsBackward0'
    g = rand(*ty.shape, seed=4)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    close(lx.grad, tx.grad, rtol=1e-5, atol=1e-6, msg='input grad')
    close(lt.grad, tt.grad, rtol=1e-5, atol=1e-3, msg='target grad')


def test_bce_with_logits_float64_target_promotes():
    (lx, tx), t = pair(rand(3, 2), True), rand(3, 2, seed=1).astype(np.float64) ** 2 / 4
    ly, ty = LF.binary_cross_entropy_with_logits(lx, litnn.tensor(t)), TF.binary_cross_entropy_with_logits(tx, torch.tensor(t))
    close(ly, ty)
    ly.backward(); ty.backward()
    close(lx.grad, tx.grad)


# --- gradients against finite differences (float64), first and second order ---------------------------

def f64(*shape, seed=0, grad=True):
    return litnn.tensor(rand(*shape, seed=seed, dtype=np.float64), requires_grad=grad)


GRADCHECKS = {
    'cross_entropy': lambda: (lambda x: LF.cross_entropy(x, litnn.tensor([0, 2, -100, 1])), (f64(4, 3),)),
    'cross_entropy_weighted_smoothed': lambda: (lambda x: LF.cross_entropy(x, litnn.tensor([0, 2, 1, 1]), weight=litnn.tensor([1., .5, 2.], dtype=litnn.float64),
                                                                        label_smoothing=0.2, reduction='sum'), (f64(4, 3),)),
    'cross_entropy_2d': lambda: (lambda x: LF.cross_entropy(x, litnn.tensor([[[0, 1], [2, 2]]]), reduction='none'), (f64(1, 3, 2, 2),)),
    'cross_entropy_probs': lambda: (lambda x, p: LF.cross_entropy(x, p, label_smoothing=0.1), (f64(4, 3), f64(4, 3, seed=1).softmax(1).detach().requires_grad_())),
    'nll_loss': lambda: (lambda x: LF.nll_loss(x, litnn.tensor([0, 2, 1, 1]), weight=litnn.tensor([1., .5, 2.], dtype=litnn.float64)), (f64(4, 3),)),
    'mse_loss': lambda: (lambda x, y: LF.mse_loss(x, y), (f64(3, 2), f64(3, 2, seed=1))),
    'mse_loss_none': lambda: (lambda x, y: LF.mse_loss(x, y, reduction='none'), (f64(3, 2), f64(2, seed=1))),
    'l1_loss': lambda: (lambda x, y: LF.l1_loss(x, y, reduction='sum'), (f64(3, 2), f64(3, 2, seed=1))),
    'bce': lambda: (lambda p, t: LF.binary_cross_entropy(p, t, weight=litnn.tensor([1., 2.], dtype=litnn.float64)),
                    (f64(3, 2).sigmoid().detach().requires_grad_(), f64(3, 2, seed=1).sigmoid().detach().requires_grad_())),
    'bce_logits': lambda: (lambda x, t: LF.binary_cross_entropy_with_logits(x, t, pos_weight=litnn.tensor([3., .5], dtype=litnn.float64), reduction='none'),
                           (f64(3, 2), f64(3, 2, seed=1).sigmoid().detach().requires_grad_())),
}


@pytest.mark.parametrize('name', GRADCHECKS)
def test_gradcheck(name):
    f, inputs = GRADCHECKS[name]()
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


# --- the modules -----------------------------------------------------------------------------------

MODULES = [
    ('CrossEntropyLoss', {}), ('CrossEntropyLoss', dict(weight='w', ignore_index=1, reduction='sum', label_smoothing=0.1)),
    ('NLLLoss', {}), ('NLLLoss', dict(weight='w', reduction='none')),
    ('MSELoss', {}), ('MSELoss', dict(reduction='sum')), ('L1Loss', dict(reduction='none')),
    ('BCELoss', dict(weight='w')), ('BCEWithLogitsLoss', {}), ('BCEWithLogitsLoss', dict(weight='w', pos_weight='w', reduction='sum')),
]


@pytest.mark.parametrize('name,kw', MODULES)
def test_loss_modules(name, kw):
    w = np.linspace(0.5, 2, 3).astype(np.float32)
    lm = getattr(litnn.nn, name)(**{k: litnn.tensor(w) if v == 'w' else v for k, v in kw.items()})
    tm = getattr(torch.nn, name)(**{k: torch.tensor(w) if v == 'w' else v for k, v in kw.items()})
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in lm.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert list(lm.named_parameters()) == [] == list(tm.named_parameters())
    for a in ('reduction', 'ignore_index', 'label_smoothing'):
        assert getattr(lm, a, None) == getattr(tm, a, None), a
    x = rand(4, 3)
    if name in ('CrossEntropyLoss', 'NLLLoss'): t = np.array([0, 1, 2, 1])
    elif name == 'BCELoss': x, t = 1 / (1 + np.exp(-x)), np.random.default_rng(1).uniform(size=(4, 3)).astype(np.float32)
    else: t = rand(4, 3, seed=1)
    run_both(lambda x: lm(x, litnn.tensor(t)), lambda x: tm(x, torch.tensor(t)), x)
    lm.double(); tm.double()
    assert [str(b.dtype).split('.')[1] for b in lm.buffers()] == [str(b.dtype).split('.')[1] for b in tm.buffers()]


def test_loss_modules_legacy_arguments():
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = [lib.nn.MSELoss(size_average=False).reduction, lib.nn.L1Loss(reduce=False).reduction,
                 lib.nn.CrossEntropyLoss(size_average=True, reduce=True).reduction, lib.nn.NLLLoss(None, False).reduction,
                 lib.nn.BCELoss(reduce=False, reduction='sum').reduction, lib.nn.BCEWithLogitsLoss(size_average=False).reduction]
        return r, [str(m.message) for m in w]
    assert run(litnn) == run(torch)


def test_loss_module_invalid_reduction_raises_at_forward():
    lm, tm = litnn.nn.CrossEntropyLoss(reduction='avg'), torch.nn.CrossEntropyLoss(reduction='avg')
    assert lm.reduction == 'avg'
    assert err(lm, litnn.randn(2, 3), litnn.tensor([0, 1])) == err(tm, torch.randn(2, 3), torch.tensor([0, 1]))


def test_weight_buffer_loads_from_torch_state_dict():
    tm = torch.nn.CrossEntropyLoss(weight=torch.tensor([1., 2., 3.]))
    lm = litnn.nn.CrossEntropyLoss(weight=litnn.ones(3))
    lm.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert lm.weight.tolist() == [1., 2., 3.]


# --- fuzz ---------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), c=st.integers(1, 5), extra=st.lists(st.integers(1, 3), max_size=2), weighted=st.booleans(),
       ignore=st.sampled_from([-100, 0, 2]), reduction=st.sampled_from(REDUCTIONS), smoothing=st.sampled_from([0.0, 0.05, 1.0]),
       scale=st.sampled_from([1., 30., 1e4]), seed=st.integers(0, 2**16))
def test_cross_entropy_fuzz(n, c, extra, weighted, ignore, reduction, smoothing, scale, seed):
    xs, ts = (n, c, *extra), (n, *extra)
    x = rand(*xs, seed=seed) * scale
    t = np.random.default_rng(seed).integers(0, c, ts)
    t[np.random.default_rng(seed + 1).uniform(size=ts) < 0.3] = ignore
    w = (np.abs(rand(c, seed=seed + 2)) + 0.1) if weighted else None
    (lw, tw) = pair(w) if weighted else (None, None)
    kw = dict(ignore_index=ignore, reduction=reduction, label_smoothing=smoothing)
    (lx, tx) = pair(x, True)
    try: ty = TF.cross_entropy(tx, torch.tensor(t), weight=tw, **kw)
    except Exception as e:
        assert err(LF.cross_entropy, lx, litnn.tensor(t), weight=lw, **kw)[0] is type(e)
        return
    ly = LF.cross_entropy(lx, litnn.tensor(t), weight=lw, **kw)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-4 * scale)
    if np.isfinite(ty.detach().numpy()).all():
        ly.sum().backward(); ty.sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


# --- GPU: the same results on CuPy arrays -----------------------------------------------------------

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")
@pytest.mark.parametrize('name', ['ce', 'ce-smooth-weight-ignore', 'ce-probs', 'ce-2d', 'nll-none', 'mse', 'l1', 'bce', 'bce-logits'])
def test_gpu_matches_cpu(name):
    x, t = rand(6, 4), np.array([0, 3, 1, -100, 2, 2])
    p, w = 1 / (1 + np.exp(-x)), np.linspace(0.5, 2, 4).astype(np.float32)
    def run(dev):
        T = lambda a, **kw: litnn.tensor(a, **kw).to(dev)
        tx = T(p if name == 'bce' else x.reshape(2, 4, 3) if name == 'ce-2d' else x).requires_grad_()
        f = dict(ce=lambda: LF.cross_entropy(tx, T(t)),
                 **{'ce-smooth-weight-ignore': lambda: LF.cross_entropy(tx, T(t), weight=T(w), label_smoothing=0.1),
                    'ce-probs': lambda: LF.cross_entropy(tx, T(p / p.sum(1, keepdims=True))),
                    'ce-2d': lambda: LF.cross_entropy(tx, T(t.clip(0).reshape(2, 3))),
                    'nll-none': lambda: LF.nll_loss(tx, T(t), reduction='none').sum(),
                    'mse': lambda: LF.mse_loss(tx, T(p)), 'l1': lambda: LF.l1_loss(tx, T(p)),
                    'bce': lambda: LF.binary_cross_entropy(tx, T(np.round(p)), weight=T(w)),
                    'bce-logits': lambda: LF.binary_cross_entropy_with_logits(tx, T(p), pos_weight=T(w))})[name]
        loss = f()
        loss.backward()
        assert loss.device.type == dev and tx.grad.device.type == dev
        return loss.cpu().item(), tx.grad.cpu().numpy()
    (a, ga), (b, gb) = run('cpu'), run('cuda')
    np.testing.assert_allclose(b, a, rtol=1e-5)
    np.testing.assert_allclose(gb, ga, rtol=1e-4, atol=1e-6)


def test_ignored_targets_are_exact_zeros():
    "An ignored target contributes 0 even where its picked log-probability is -inf or its upstream gradient is nan."
    x = np.array([[-np.inf, 0., -1.], [-2., -np.inf, -0.5], [-1., -1., -1.]], np.float32)
    t = np.array([-100, 2, 1])
    g = np.array([np.nan, 1., 2.], np.float32)
    for weight in (None, np.array([1., 2., 3.], np.float32)):
        res = []
        for lib, F in ((litnn, LF), (torch, TF)):
            tx = lib.tensor(x, requires_grad=True)
            kw = {} if weight is None else dict(weight=lib.tensor(weight))
            y = F.nll_loss(tx, lib.tensor(t), reduction='none', **kw)
            y.backward(lib.tensor(g))
            s = F.nll_loss(lib.tensor(x), lib.tensor(t), **kw)
            res.append((y.detach().numpy(), tx.grad.numpy(), s.numpy()))
        for a, b in zip(*res): np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('shape', [(64, 5), (4, 5, 7, 7), (2, 3, 5, 5, 5)])
def test_half_precision_nll_sums_are_not_rounded_term_by_term(dt, shape):
    """Found by torch's module_db (CrossEntropyLoss, bfloat16, higher_dim sum): the reduction summed in bfloat16 itself,
    3 ulps away from torch (344 vs 350 where the exact sum is 350.06). torch accumulates each term in the opmath
    type's precision (a cascade of partial sums): litnn sums in float32 and rounds once, within an ulp of torch."""
    rs = np.random.RandomState(0)
    x, t, w = rs.randn(*shape) * 2, rs.randint(0, shape[1], (shape[0],) + shape[2:]), rs.rand(shape[1])
    for kw in (dict(reduction='sum'), dict(reduction='mean'), dict(reduction='sum', weight=True), dict(reduction='mean', weight=True)):
        out = []
        for lib in (litnn, torch):
            d = getattr(lib, dt)
            lx = lib.tensor(x.astype(np.float32)).to(d)
            lw = lib.tensor(w.astype(np.float32)).to(d) if kw.get('weight') else None
            y = lib.nn.functional.cross_entropy(lx, lib.tensor(t), reduction=kw['reduction'], weight=lw)
            assert str(y.dtype).endswith(dt)
            out.append(y.float().item())
        ulp = 2.0 ** (np.floor(np.log2(abs(out[1]))) - (7 if dt == 'bfloat16' else 10))
        assert abs(out[0] - out[1]) <= ulp, (kw, out)


# HF transformers' ELECTRA discriminator in float64 calls BCEWithLogitsLoss(logits, labels.float()): torch's loss takes
# the target's dtype (its in-place steps into `1 - target`), but log σ(x) and the gradient wrt the input are computed in
# the input's own dtype; litnn cast the input to the target's dtype first, so a float64 input got a float32-rounded
# gradient (off by ~1e-8 relative), and a float32 input with a float64 target got its log σ in float64
@pytest.mark.parametrize('dx, dt', [('float64', 'float32'), ('float32', 'float64'), ('float16', 'float32')])
@pytest.mark.parametrize('red', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('extra', [None, 'weight', 'pos_weight'])
def test_bce_with_logits_of_mixed_dtypes_as_torch(dx, dt, red, extra):
    r = np.random.default_rng(0)
    x, t, e = r.standard_normal((6, 5)) * 3, r.random((6, 5)), r.random(5) * 2
    res = []
    for L in (torch, litnn):
        xi = L.tensor(x, dtype=getattr(L, dx), requires_grad=True); ti = L.tensor(t, dtype=getattr(L, dt), requires_grad=True)
        kw = {} if extra is None else {extra: L.tensor(e, dtype=getattr(L, dt))}
        loss = L.nn.functional.binary_cross_entropy_with_logits(xi, ti, reduction=red, **kw)
        gx, gt = L.autograd.grad(loss.sum(), (xi, ti))
        res.append(([str(v.dtype).split('.')[1] for v in (loss, gx, gt)], [v.detach().double().numpy() for v in (loss, gx, gt)]))
    assert res[0][0] == res[1][0]
    tol = {'float64': 1e-13, 'float32': 3e-7, 'float16': 2e-3}
    rt = max(tol[dx], tol[dt])                  # values at the rounding of the less precise operand
    for name, a, b in zip(('loss', 'grad input', 'grad target'), res[0][1], res[1][1]):
        np.testing.assert_allclose(b, a, rtol=rt, atol=rt * np.abs(a).max(), err_msg=name)
    if dx == 'float64' and extra is None:       # the input's gradient is float64 all through, as torch's
        np.testing.assert_allclose(res[1][1][1], res[0][1][1], rtol=1e-14, atol=1e-17)


@pytest.mark.parametrize('dt', ['float32', 'float64'])
@pytest.mark.parametrize('fn', ['smooth_l1_loss', 'huber_loss'])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
@pytest.mark.parametrize('k', [1.0, 0.5])
def test_large_piecewise_losses_with_special_values_to_the_bit(dt, fn, reduction, k):
    "smooth_l1 and huber on 30,000 elements with NaN, infinities, -0.0, subnormals and values at the knee: the loss and the input's gradient are torch's bits (the pieces picked by _where, without where's branch per element)."
    import numpy as np
    rng = np.random.default_rng(3)
    sp = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, -1e-39, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0], np.float32)
    def values():
        a = np.concatenate([np.tile(sp, 400), rng.standard_normal(20000).astype(np.float32)]); rng.shuffle(a)
        return a.reshape(200, -1).astype(dt)
    a, b = values(), values()
    out = []
    for L in (litnn, torch):
        x = L.tensor(a, requires_grad=True)
        o = getattr(L.nn.functional, fn)(x, L.tensor(b), reduction=reduction, **({'beta': k} if fn == 'smooth_l1_loss' else {'delta': k}))
        gx, = L.autograd.grad(o.sum() if reduction == 'none' else o, x)
        out.append([np.ascontiguousarray(t.detach().numpy()).view(np.uint8) for t in (o, gx)])
    assert all((p == q).all() for p, q in zip(*out))

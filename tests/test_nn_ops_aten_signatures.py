"""reference/torch/nn_ops_aten_signatures: torch's top-level operators beside torch.nn.functional, side by side with torch 2.13."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
DTYPES = [np.float64, np.float32]
def tol(dt): return dict(rtol=1e-11, atol=1e-12) if dt == np.float64 else dict(rtol=3e-5, atol=3e-6)


def both(f, *arrays, dt=np.float64, grads=None):
    "f(lib, *tensors) in both libraries on the same arrays (cast to `dt` when float): values, and gradients of a weighted sum."
    arrays = [a.astype(dt) if a.dtype.kind == 'f' else a for a in arrays]
    grads = [i for i, a in enumerate(arrays) if a.dtype.kind == 'f'] if grads is None else grads
    lt = [litnn.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    tt = [torch.tensor(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    ly, ty = f(litnn, *lt), f(torch, *tt)
    lys, tys = (ly, ty) if isinstance(ty, tuple) else ((ly,), (ty,))
    for l, t in zip(lys, tys):
        assert tuple(l.shape) == tuple(t.shape)
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), **tol(dt))
    if tys[0].requires_grad:
        w = rng.normal(size=tuple(tys[0].shape)).astype(dt)
        (lys[0] * litnn.tensor(w)).sum().backward(); (tys[0] * torch.tensor(w)).sum().backward()
        for l, t in zip(lt, tt):
            if t.grad is not None: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **tol(dt))
    return ly, ty


def same_error(fl, ft):
    with pytest.raises(Exception) as el: fl()
    with pytest.raises(Exception) as et: ft()
    assert el.type is et.type and str(el.value) == str(et.value), (el.value, et.value)


def r(*shape): return rng.normal(size=shape)


SAME = ['cosine_similarity', 'pairwise_distance', 'pdist', 'pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle', 'native_channel_shuffle',
        'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'avg_pool1d', 'adaptive_avg_pool1d', 'rms_norm']

@pytest.mark.parametrize('name', SAME)
def test_same_function_as_functional(name):
    "One object where torch binds one C++ function twice; two where nn.functional's is Python (rms_norm): as torch's."
    torch = pytest.importorskip('torch')
    assert (getattr(litnn, name) is getattr(litnn.nn.functional, name)) == (getattr(torch, name) is getattr(torch.nn.functional, name))


CASES = dict(
    cosine_similarity=(lambda lib, a, b: lib.cosine_similarity(a, b, 0), [r(4, 3), r(4, 3)]),
    pairwise_distance=(lambda lib, a, b: lib.pairwise_distance(a, b, 3., 1e-6, True), [r(4, 3), r(4, 3)]),
    pdist=(lambda lib, a: lib.pdist(a, 1.5), [r(5, 3)]),
    pixel_unshuffle=(lambda lib, a: lib.pixel_unshuffle(a, 2), [r(2, 1, 4, 6)]),
    conv3d=(lambda lib, x, w, b: lib.conv3d(x, w, b, 1, 1), [r(2, 2, 4, 3, 4), r(3, 2, 2, 2, 2), r(3)]),
    conv_transpose2d=(lambda lib, x, w: lib.conv_transpose2d(x, w, None, 2, 1, 1), [r(2, 2, 3, 4), r(2, 3, 3, 3)]),
    convolution=(lambda lib, x, w, b: lib.convolution(x, w, b, [2, 1], [1, 0], [1, 2], False, [0, 0], 1), [r(2, 2, 6, 7), r(4, 2, 3, 2), r(4)]),
    convolution_t=(lambda lib, x, w: lib.convolution(x, w, None, [2], [1], [1], True, [1], 2), [r(2, 4, 5), r(4, 3, 3)]),
    convolution_3d=(lambda lib, x, w: lib.convolution(x, w, None, (1, 1, 1), (0, 1, 0), (1, 1, 1), False, (0, 0, 0), 1), [r(1, 2, 3, 4, 3), r(2, 2, 2, 2, 2)]),
    group_norm=(lambda lib, x, w, b: lib.group_norm(x, 2, w, b, 1e-3), [r(2, 4, 5), r(4), r(4)]),
    instance_norm=(lambda lib, x, w, b: lib.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False), [r(2, 3, 5), r(3), r(3)]),
    rms_norm=(lambda lib, x, w: lib.rms_norm(x, [4], w, 1e-6), [r(2, 3, 4), r(4)]),
    native_layer_norm=(lambda lib, x, w, b: lib.native_layer_norm(x, [3, 4], w, b, 1e-5), [r(2, 3, 4), r(3, 4), r(3, 4)]),
    kl_div=(lambda lib, x, t: lib.kl_div(x, t), [r(4, 3), np.abs(r(4, 3))]),     # reduction left out: unreduced in torch's binding
    kl_div_mean=(lambda lib, x, t: lib.kl_div(x, t, 1), [r(4, 3), np.abs(r(4, 3))]),
    kl_div_sum_log=(lambda lib, x, t: lib.kl_div(x, t, 2, log_target=True), [r(4, 3), r(4, 3)]),
    kl_div_none=(lambda lib, x, t: lib.kl_div(x, t, 0), [r(4, 3), np.abs(r(4, 3))]),
    kl_div_other=(lambda lib, x, t: lib.kl_div(x, t, 5), [r(4, 3), np.abs(r(4, 3))]),
    cosine_embedding_loss=(lambda lib, a, b, t: lib.cosine_embedding_loss(a, b, t, 0.2), [r(4, 3), r(4, 3), np.array([1., -1., 1., -1.])]),
    cosine_embedding_loss_mean=(lambda lib, a, b, t: lib.cosine_embedding_loss(a, b, t, 0.2, 1), [r(4, 3), r(4, 3), np.array([1., -1., 1., -1.])]),
    cosine_embedding_loss_sum=(lambda lib, a, b, t: lib.cosine_embedding_loss(a, b, t, 0., 2), [r(4, 3), r(4, 3), np.array([1., -1., 1., -1.])]),
    hinge_embedding_loss=(lambda lib, x, t: lib.hinge_embedding_loss(x, t, 0.5, 0), [r(4, 3), np.sign(r(4, 3))]),
    margin_ranking_loss=(lambda lib, a, b, t: lib.margin_ranking_loss(a, b, t, 0.1), [r(5), r(5), np.sign(r(5))]),
    margin_ranking_loss_mean=(lambda lib, a, b, t: lib.margin_ranking_loss(a, b, t, 0.1, 1), [r(5), r(5), np.sign(r(5))]),
    hinge_embedding_loss_default=(lambda lib, x, t: lib.hinge_embedding_loss(x, t), [r(4, 3), np.sign(r(4, 3))]),
    triplet_margin_loss_default=(lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n), [r(4, 3), r(4, 3), r(4, 3)]),
    triplet_margin_loss=(lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n, 1.5, 3., 1e-6, True, 2), [r(4, 3), r(4, 3), r(4, 3)]),
    poisson_nll_loss=(lambda lib, x, t: lib.poisson_nll_loss(x, t, True, True, 1e-8, 1), [r(4, 3), np.abs(r(4, 3)) * 3]),
    poisson_nll_loss_exp=(lambda lib, x, t: lib.poisson_nll_loss(x, t, False, False, 1e-3, 0), [np.abs(r(4, 3)), np.abs(r(4, 3))]),
    max_pool1d=(lambda lib, x: lib.max_pool1d(x, 3, [], 1, 1, True), [r(2, 3, 8)]),
    max_pool1d_stride=(lambda lib, x: lib.max_pool1d(x, 2, [1]), [r(2, 3, 8)]),
    max_pool3d=(lambda lib, x: lib.max_pool3d(x, 2, (), 1), [r(2, 2, 4, 5, 3)]),
    avg_pool1d=(lambda lib, x: lib.avg_pool1d(x, 3, 2, 1), [r(2, 3, 8)]),
    adaptive_avg_pool1d=(lambda lib, x: lib.adaptive_avg_pool1d(x, 3), [r(2, 3, 8)]),
    adaptive_max_pool1d=(lambda lib, x: lib.adaptive_max_pool1d(x, 3), [r(2, 3, 8)]),
    constant_pad_nd=(lambda lib, x: lib.constant_pad_nd(x, [1, 2, -1, 0], 3.5), [r(2, 3, 4)]),
    prelu_method=(lambda lib, x, w: x.prelu(w), [r(2, 3, 4), np.array([0.1, 0.2, 0.3])]),
    hardshrink_method=(lambda lib, x: x.hardshrink(0.3), [r(3, 4)]),
    hardshrink_default=(lambda lib, x: x.hardshrink(), [r(3, 4)]),
)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name', list(CASES))
def test_values_and_gradients_like_torch(name, dt):
    f, arrays = CASES[name]
    ly, ty = both(f, *arrays, dt=dt)
    if name == 'native_layer_norm': assert [t.requires_grad for t in ly] == [t.requires_grad for t in ty] == [True, False, False]
    if name == 'adaptive_max_pool1d': assert ly[1].tolist() == ty[1].tolist()


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('reduction', [0, 1, 2, 3, None])
def test_ctc_loss_like_torch(dt, reduction):
    T, N, C, S = 6, 2, 4, 3
    lp = rng.normal(size=(T, N, C))
    targets = rng.integers(1, C, (N, S))
    more = () if reduction is None else (0, reduction)
    f = lambda lib, lp, t: lib.ctc_loss(lp.log_softmax(2), t, [6, 5], [3, 2], *more)
    both(f, lp, targets, dt=dt, grads=[0])


def test_no_kl_div_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        litnn.kl_div(litnn.zeros(2, 2), litnn.ones(2, 2)); torch.kl_div(torch.zeros(2, 2), torch.ones(2, 2))


ERRORS = dict(
    kl_div_str=lambda lib: lib.kl_div(lib.zeros(2), lib.ones(2), 'mean'),
    kl_div_bool=lambda lib: lib.kl_div(lib.zeros(2), lib.ones(2), True),
    hinge_str=lambda lib: lib.hinge_embedding_loss(lib.zeros(2), lib.ones(2), 1., 'sum'),
    triplet_str=lambda lib: lib.triplet_margin_loss(lib.zeros(2, 2), lib.ones(2, 2), lib.ones(2, 2), 1., 2., 1e-6, False, 'sum'),
    poisson_missing=lambda lib: lib.poisson_nll_loss(lib.zeros(2), lib.ones(2)),
    convolution_int_stride=lambda lib: lib.convolution(lib.ones(1, 2, 5), lib.ones(3, 2, 2), None, 1, [0], [1], False, [0], 1),
    convolution_4d=lambda lib: lib.convolution(lib.ones(1, 2, 5, 5, 5, 5), lib.ones(2, 2, 2, 2, 2, 2), None, [1], [0], [1], False, [0], 1),
    constant_pad_odd=lambda lib: lib.constant_pad_nd(lib.ones(2, 3), [1, 1, 1]),
    adaptive_max_pool1d_flag=lambda lib: lib.adaptive_max_pool1d(lib.ones(1, 2, 6), 2, False),
    dropout_p=lambda lib: lib.dropout_(lib.ones(2, 3), 1.5, True),
    alpha_dropout_p=lambda lib: lib.alpha_dropout(lib.ones(2, 3), -0.5, True),
    feature_dropout_rank=lambda lib: lib.feature_dropout(lib.ones(3), 0.5, True),
    feature_alpha_dropout_rank=lambda lib: lib.feature_alpha_dropout_(lib.ones(3), 0.5, True),
    dropout_leaf=lambda lib: lib.dropout_(lib.ones(2, 3, requires_grad=True), 0.5, True),
    alpha_dropout_long=lambda lib: lib.alpha_dropout(lib.ones(2, 3, dtype=lib.long), 0.5, True),
)


@pytest.mark.parametrize('name', list(ERRORS))
def test_errors_like_torch(name):
    f = ERRORS[name]
    if name in ('poisson_missing', 'adaptive_max_pool1d_flag'):        # Python's own TypeError: the messages differ
        with pytest.raises(TypeError): f(litnn)
        with pytest.raises(TypeError): f(torch)
    else: same_error(lambda: f(litnn), lambda: f(torch))


@pytest.mark.parametrize('name,inplace,feature,alpha', [('dropout_', True, False, False), ('alpha_dropout', False, False, True),
    ('alpha_dropout_', True, False, True), ('feature_dropout', False, True, False), ('feature_dropout_', True, True, False),
    ('feature_alpha_dropout', False, True, True), ('feature_alpha_dropout_', True, True, True)])
def test_dropout_operators(name, inplace, feature, alpha):
    for lib in (litnn, torch):
        f = getattr(lib, name)
        x = lib.ones(200, 8, 3)
        assert f(x, 0.3, False) is x                               # not training: the input itself
        y = f(x, 0.3, True)
        assert (y is x) == inplace
        vals = y.unique()
        kept = (y == vals.max()).double().mean().item()
        assert abs(kept - 0.7) < 0.05                              # the same statistics in both libraries
        if feature: assert bool((y == y[..., :1]).all())           # whole channels
        if not alpha: assert sorted(vals.tolist()) == pytest.approx([0., 1 / 0.7])
        else: assert len(vals) == 2 and vals.min().item() < 0
    for p in (0.3, 0.6):                                           # alpha dropout keeps SELU's mean and variance
        lvals, tvals = [sorted(getattr(lib, name)(lib.ones(4000, 4, 2), p, True).unique().tolist()) for lib in (litnn, torch)]
        assert lvals == pytest.approx(tvals, rel=1e-6)


def test_dropout_operator_gradients():
    x = litnn.ones(50, 4, 3, requires_grad=True)
    litnn.manual_seed(0); y = litnn.feature_alpha_dropout(x, 0.4, True)
    y.sum().backward()
    scale = (y.detach() != y.detach().min()).double()             # kept units: gradient a; dropped: 0
    a = 1. / ((1.7580993408473766 ** 2 * 0.4 + 1) * 0.6) ** 0.5
    np.testing.assert_allclose(x.grad.numpy(), (scale * a).numpy(), rtol=1e-6)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('training', [True, False])
def test_native_batch_norm_like_torch(dt, training):
    a, w, b = r(4, 3, 5).astype(dt), r(3).astype(dt), r(3).astype(dt)
    rm, rv = r(3).astype(dt), np.abs(r(3)).astype(dt) + 0.5
    lrm, lrv, trm, trv = litnn.tensor(rm), litnn.tensor(rv), torch.tensor(rm), torch.tensor(rv)
    f = lambda lib, x, w, b: lib.native_batch_norm(x, w, b, *((lrm, lrv) if lib is litnn else (trm, trv)), training, 0.1, 1e-5)
    ly, ty = both(f, a, w, b, dt=dt)
    assert [tuple(t.shape) for t in ly] == [tuple(t.shape) for t in ty] and not ly[1].requires_grad and not ly[2].requires_grad
    np.testing.assert_allclose(lrm.numpy(), trm.numpy(), **tol(dt)); np.testing.assert_allclose(lrv.numpy(), trv.numpy(), **tol(dt))


@pytest.mark.parametrize('dt', DTYPES)
def test_native_group_norm_like_torch(dt):
    ly, ty = both(lambda lib, x, w, b: lib.native_group_norm(x, w, b, 2, 6, 4, 3, 1e-5), r(2, 6, 2, 2), r(6), r(6), dt=dt)
    assert [tuple(t.shape) for t in ly] == [(2, 6, 2, 2), (2, 3), (2, 3)]


def test_native_group_norm_statistics_are_differentiable_like_torch():
    # torch differentiates through mean and 1/std when a loss uses them (OpInfo native_group_norm, eps=0.5)
    x, w, b = r(1, 6, 3), r(6), r(6)
    c = [r(1, 6, 3), r(1, 2), r(1, 2)]
    grads = {}
    for lib in (litnn, torch):
        X, W, B = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        outs = lib.native_group_norm(X, W, B, 1, 6, 3, 2, 0.5)
        assert all(o.requires_grad for o in outs)
        grads[lib] = lib.autograd.grad(sum((o * lib.tensor(ci)).sum() for o, ci in zip(outs, c)), [X, W, B])
    for l, t in zip(grads[litnn], grads[torch]):
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)


def test_native_group_norm_empty_batch_like_torch():
    for lib in (litnn, torch):
        out, mean, rstd = lib.native_group_norm(lib.zeros(0, 2), lib.ones(2), lib.zeros(2), 0, 2, 1, 1, 1e-5)
        assert [tuple(t.shape) for t in (out, mean, rstd)] == [(0, 2), (0, 1), (0, 1)]


def test_native_dropout_like_torch():
    for lib in (litnn, torch):
        x = lib.ones(300, 40, requires_grad=True)
        out, mask = lib.native_dropout(x, 0.3, True)
        assert mask.dtype == lib.bool and abs(mask.double().mean().item() - 0.7) < 0.02
        np.testing.assert_allclose(out.detach().numpy(), mask.double().numpy() / 0.7, rtol=1e-6)
        out.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), mask.double().numpy() / 0.7, rtol=1e-6)
        out, mask = lib.native_dropout(x, 0.3, False)
        assert out is not x and bool(mask.all()) and out.requires_grad
        out, mask = lib.native_dropout(x, 1., True)
        assert not bool(mask.any()) and out.abs().sum().item() == 0
    same_error(lambda: litnn.native_dropout(litnn.ones(2), 1.5, True), lambda: torch.native_dropout(torch.ones(2), 1.5, True))


EB_CASES = [dict(mode=m, offsets=o, last=l, pad=p, psw=s) for m in (0, 1, 2) for o, l in (([0, 4], False), ([0, 4, 4], False), ([0, 3, 8], True), ([0, 0, 5], False))
            for p in (None, 2, -1) for s in ((False, True) if m == 0 else (False,))]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('case', EB_CASES, ids=lambda c: '-'.join(f'{k}{v}' for k, v in c.items()).replace(' ', ''))
def test_embedding_bag_operator_like_torch(dt, case):
    w = r(10, 3)
    w[1] = w[4]                                                      # ties between rows
    idx = np.array([1, 2, 4, 9, 4, 3, 2, 9])
    psw = r(8) if case['psw'] else None
    f = lambda lib, w, *s: lib.embedding_bag(w, lib.tensor(idx), lib.tensor(case['offsets']), False, case['mode'], False,
                                             s[0] if s else None, case['last'], case['pad'])
    ly, ty = both(f, w, *([psw] if psw is not None else []), dt=dt)
    for l, t in zip(ly[1:], ty[1:]):
        assert l.dtype == litnn.int64 and l.tolist() == t.tolist()


def test_embedding_bag_operator_errors_like_torch():
    same_error(lambda: litnn.embedding_bag(litnn.ones(3, 2), litnn.tensor([1]), litnn.tensor([0]), False, 3),
               lambda: torch.embedding_bag(torch.ones(3, 2), torch.tensor([1]), torch.tensor([0]), False, 3))
    with pytest.raises(TypeError): litnn.embedding_bag(litnn.ones(3, 2), litnn.tensor([1]), None)
    with pytest.raises(TypeError): torch.embedding_bag(torch.ones(3, 2), torch.tensor([1]), None)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('mode,last,pad', [(m, l, p) for m in (0, 1, 2) for l in (False, True) for p in (None, 2)])
def test_embedding_bag_operator_without_grad_like_torch(dt, mode, last, pad):
    w, idx, off = r(10, 3).astype(dt), [1, 2, 4, 9, 4, 3, 2, 9], [0, 3, 8]
    ly = litnn.embedding_bag(litnn.tensor(w), litnn.tensor(idx), litnn.tensor(off), False, mode, False, None, last, pad)
    ty = torch.embedding_bag(torch.tensor(w), torch.tensor(idx), torch.tensor(off), False, mode, False, None, last, pad)
    np.testing.assert_allclose(ly[0].numpy(), ty[0].numpy(), **tol(dt))
    assert [t.tolist() for t in ly[1:]] == [t.tolist() for t in ty[1:]]

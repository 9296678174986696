"""22d_gumbel_and_inplace, 24g_with_indices, 24h_channel_shuffle: side by side with torch 2.13 on the same inputs."""
import warnings
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF

rng = np.random.default_rng(0)
DTYPES = [np.float64, np.float32]
def tol(dt): return dict(rtol=1e-12, atol=1e-12) if dt == np.float64 else dict(rtol=2e-5, atol=2e-6)


def pair(a, grad=True):
    return litnn.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def same(l, t, dt=np.float64):
    np.testing.assert_allclose(np.asarray(l.detach().numpy()), t.detach().numpy(), **tol(dt))


def raised(f):
    with pytest.raises(Exception) as e: f()
    return e.type, str(e.value)


def same_error(fl, ft):
    (lt, lm), (tt, tm) = raised(fl), raised(ft)
    assert lt is tt and lm == tm, (lt, lm, tt, tm)


# --- gumbel_softmax: the same noise in both libraries ----------------------------------------------------------

@pytest.fixture
def noise(monkeypatch):
    "Make `exponential_` fill with the same Exp(1) draws in both libraries; returns a setter of the draws."
    box = {}
    monkeypatch.setattr(litnn.Tensor, 'exponential_', lambda self, *a, **k: self.copy_(litnn.tensor(box['e'])))
    monkeypatch.setattr(torch.Tensor, 'exponential_', lambda self, *a, **k: self.copy_(torch.tensor(box['e'])))
    return box


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('hard', [False, True])
@pytest.mark.parametrize('tau,dim', [(1, -1), (0.3, 0), (2.5, 1)])
def test_gumbel_softmax_like_torch(noise, dt, hard, tau, dim):
    a = rng.normal(size=(3, 4, 5)).astype(dt)
    noise['e'] = rng.exponential(size=a.shape).astype(dt)
    w = rng.normal(size=a.shape).astype(dt)
    (l, t) = pair(a)
    ly, ty = LF.gumbel_softmax(l, tau, hard, dim=dim), TF.gumbel_softmax(t, tau, hard, dim=dim)
    same(ly, ty, dt)
    assert ly.dtype == litnn.float64 if dt == np.float64 else ly.dtype == litnn.float32
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


def test_gumbel_softmax_seeded_and_warns():
    litnn.manual_seed(3); a = LF.gumbel_softmax(litnn.zeros(4, 6), hard=True)
    litnn.manual_seed(3); b = LF.gumbel_softmax(litnn.zeros(4, 6), hard=True)
    assert a.tolist() == b.tolist() and a.sum(-1).tolist() == [1.] * 4
    for F, lib in ((LF, litnn), (TF, torch)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always'); F.gumbel_softmax(lib.zeros(2, 3), eps=1e-3)
        assert [str(x.message) for x in w] == ["`eps` parameter is deprecated and has no effect."]
    same_error(lambda: LF.gumbel_softmax(litnn.tensor([1, 2])), lambda: TF.gumbel_softmax(torch.tensor([1, 2])))
    same_error(lambda: LF.gumbel_softmax(litnn.ones(2, 2), dim=2), lambda: TF.gumbel_softmax(torch.ones(2, 2), dim=2))


# --- relu_ and leaky_relu_ -------------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name,args', [('relu_', ()), ('leaky_relu_', ()), ('leaky_relu_', (0.2,))])
def test_inplace_rectifiers_like_torch(dt, name, args):
    a = rng.normal(size=(3, 4)).astype(dt)
    l, t = pair(a)
    lh, th = l * 1, t * 1
    lo, to = getattr(LF, name)(lh, *args), getattr(TF, name)(th, *args)
    assert lo is lh and to is th
    same(lh, th, dt)
    assert type(lh.grad_fn).__name__ == type(th.grad_fn).__name__
    w = rng.normal(size=a.shape).astype(dt)
    (lh * litnn.tensor(w)).sum().backward(); (th * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


def test_inplace_rectifiers_errors_like_torch():
    same_error(lambda: LF.relu_(np.ones(2)), lambda: TF.relu_(np.ones(2)))
    same_error(lambda: LF.leaky_relu_(litnn.tensor([1, 2])), lambda: TF.leaky_relu_(torch.tensor([1, 2])))
    for lib, F in ((litnn, LF), (torch, TF)):
        assert F.relu_(lib.tensor([1, -2])).tolist() == [1, 0]
    same_error(lambda: LF.leaky_relu_(litnn.ones(2, requires_grad=True)), lambda: TF.leaky_relu_(torch.ones(2, requires_grad=True)))


def test_inplace_leaky_relu_negative_slope_backward():
    def negative_slope_backward(lib, F):
        x = lib.tensor([1., -2.], requires_grad=True)
        F.leaky_relu_(x * 1, -0.5).sum().backward()
    (lt, _), (tt, _) = raised(lambda: negative_slope_backward(litnn, LF)), raised(lambda: negative_slope_backward(torch, TF))
    assert lt is tt


# --- the _with_indices poolings ----------------------------------------------------------------------------------

WITH_INDICES = [
    ('max_pool1d_with_indices', (2, 7), (3,), dict(stride=2, padding=1)),
    ('max_pool2d_with_indices', (2, 3, 6, 5), (3,), dict(stride=2, padding=1, ceil_mode=True)),
    ('max_pool3d_with_indices', (2, 2, 4, 5, 4), (2,), dict(dilation=1, padding=1)),
    ('adaptive_max_pool1d_with_indices', (2, 3, 7), (3,), {}),
    ('adaptive_max_pool2d_with_indices', (2, 3, 7, 5), ((3, 2),), {}),
    ('adaptive_max_pool3d_with_indices', (2, 2, 5, 4, 3), ((2, 3, 2),), {}),
]


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('flag', [False, True])
@pytest.mark.parametrize('name,shape,args,kwargs', WITH_INDICES)
def test_with_indices_like_torch(dt, flag, name, shape, args, kwargs):
    a = rng.normal(size=shape).astype(dt)
    l, t = pair(a)
    (lv, li), (tv, ti) = getattr(LF, name)(l, *args, return_indices=flag, **kwargs), getattr(TF, name)(t, *args, return_indices=flag, **kwargs)
    same(lv, tv, dt)
    assert li.tolist() == ti.tolist() and li.dtype == litnn.int64
    w = rng.normal(size=tuple(tv.shape)).astype(dt)
    (lv * litnn.tensor(w)).sum().backward(); (tv * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


@pytest.mark.parametrize('dt', DTYPES)
def test_fractional_max_pool2d_with_indices_like_torch(dt):
    a = rng.normal(size=(2, 3, 9, 8)).astype(dt)
    samples = rng.uniform(size=(2, 3, 2)).astype(dt)
    l, t = pair(a)
    lv, li = LF.fractional_max_pool2d_with_indices(l, 2, output_size=(5, 4), _random_samples=litnn.tensor(samples))
    tv, ti = TF.fractional_max_pool2d_with_indices(t, 2, output_size=(5, 4), _random_samples=torch.tensor(samples))
    same(lv, tv, dt); assert li.tolist() == ti.tolist()
    lv.sum().backward(); tv.sum().backward(); same(l.grad, t.grad, dt)


def test_with_indices_signatures_and_errors():
    import inspect
    for name, *_ in WITH_INDICES + [('fractional_max_pool2d_with_indices',)]:
        lf = getattr(LF, name)
        assert lf.__name__ == name
        assert list(inspect.signature(lf).parameters) == list(inspect.signature(getattr(TF, name)).parameters)
    (lt, _), (tt, _) = raised(lambda: LF.max_pool2d_with_indices(litnn.ones(1, 4, 4))), raised(lambda: TF.max_pool2d_with_indices(torch.ones(1, 4, 4)))
    assert lt is tt is TypeError
    same_error(lambda: LF.max_pool2d_with_indices(litnn.ones(4), 2), lambda: TF.max_pool2d_with_indices(torch.ones(4), 2))


# --- the deprecated upsample -------------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name,kwargs', [('upsample', dict(scale_factor=2)), ('upsample', dict(size=(5, 3), mode='bilinear')),
                                         ('upsample', dict(size=7, mode='bicubic', align_corners=True)),
                                         ('upsample_nearest', dict(size=5)), ('upsample_bilinear', dict(scale_factor=1.5))])
def test_upsample_like_torch(dt, name, kwargs):
    a = rng.normal(size=(2, 3, 4, 3)).astype(dt)
    l, t = pair(a)
    caught = {}
    for key, F, x in (('l', LF, l), ('t', TF, t)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            caught[key] = (getattr(F, name)(x, **kwargs), [(x.category, str(x.message), x.filename) for x in w])
    (ly, lw), (ty, tw) = caught['l'], caught['t']
    same(ly, ty, dt)
    assert lw == tw and lw[0][2] == __file__             # the same warning, pointing at the caller
    w = rng.normal(size=tuple(ty.shape)).astype(dt)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


# --- channel_shuffle ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape,groups', [((2, 6, 3), 2), ((2, 6, 3, 2), 3), ((1, 4, 2, 2, 2), 4), ((2, 5, 1), 1)])
def test_channel_shuffle_like_torch(dt, shape, groups):
    a = rng.normal(size=shape).astype(dt)
    w = rng.normal(size=shape).astype(dt)
    for lf, tf in ((LF.channel_shuffle, TF.channel_shuffle), (litnn.nn.ChannelShuffle(groups), torch.nn.ChannelShuffle(groups))):
        l, t = pair(a)
        ly, ty = (lf(l), tf(t)) if isinstance(lf, litnn.nn.Module) else (lf(l, groups), tf(t, groups))
        same(ly, ty, dt); assert ly.is_contiguous()
        (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
        same(l.grad, t.grad, dt)


def test_native_channel_shuffle_has_no_derivative():
    l, t = pair(rng.normal(size=(2, 4, 3)))
    ly, ty = LF.native_channel_shuffle(l, 2), TF.native_channel_shuffle(t, 2)
    same(ly, ty); assert ly.requires_grad and ty.requires_grad
    same_error(lambda: ly.sum().backward(), lambda: ty.sum().backward())
    assert not LF.native_channel_shuffle(l.detach(), 2).requires_grad


@pytest.mark.parametrize('make', [lambda lib: lib.ones(2, 6, 2), lambda lib: lib.ones(6, 2), lambda lib: lib.ones(6), lambda lib: [1.]])
@pytest.mark.parametrize('groups', [0, -1, 4, 2.5, True, 3])
@pytest.mark.parametrize('name', ['channel_shuffle', 'native_channel_shuffle'])
def test_channel_shuffle_errors_like_torch(make, groups, name):
    lf, tf = getattr(LF, name), getattr(TF, name)
    try: expected = tf(make(torch), groups)
    except Exception:
        same_error(lambda: lf(make(litnn), groups), lambda: tf(make(torch), groups)); return
    assert lf(make(litnn), groups).tolist() == expected.tolist()


def test_channel_shuffle_module():
    l, t = litnn.nn.ChannelShuffle(3), torch.nn.ChannelShuffle(3)
    assert repr(l) == repr(t) and list(l.state_dict()) == list(t.state_dict()) == []
    assert type(l).__module__ == 'litnn.nn.modules.channelshuffle' and litnn.nn.modules.ChannelShuffle is l.__class__
    same_error(lambda: litnn.nn.ChannelShuffle(2.5)(litnn.ones(1, 2, 2)), lambda: torch.nn.ChannelShuffle(2.5)(torch.ones(1, 2, 2)))


# --- AdaptiveLogSoftmaxWithLoss: the same weights in both libraries ----------------------------------------------

def asm_pair(dt, *args, **kwargs):
    torch.manual_seed(0)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs).to(torch.float64 if dt == np.float64 else torch.float32)
    l = litnn.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs).to(litnn.float64 if dt == np.float64 else litnn.float32)
    l.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return l, t


def grads_match(l, t, dt):
    for (ln, lp), (tn, tp) in zip(l.named_parameters(), t.named_parameters()):
        assert ln == tn
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), **tol(dt))


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('kwargs', [dict(cutoffs=[4, 10]), dict(cutoffs=[3, 8, 15], div_value=2., head_bias=True), dict(cutoffs=[19])])
def test_adaptive_log_softmax_forward_like_torch(dt, kwargs):
    l, t = asm_pair(dt, 16, 20, **kwargs)
    a = rng.normal(size=(9, 16)).astype(dt)
    target = np.array([0, 3, 4, 9, 10, 12, 19, 2, 15])
    lx, tx = pair(a)
    lo, to = l(lx, litnn.tensor(target)), t(tx, torch.tensor(target))
    assert type(lo).__name__ == type(to).__name__ == '_ASMoutput' and lo._fields == to._fields
    same(lo.output, to.output, dt); same(lo.loss, to.loss, dt)
    w = rng.normal(size=9).astype(dt)
    ((lo.output * litnn.tensor(w)).sum() + lo.loss).backward(); ((to.output * torch.tensor(w)).sum() + to.loss).backward()
    same(lx.grad, tx.grad, dt); grads_match(l, t, dt)
    lx.grad = None; tx.grad = None; l.zero_grad(); t.zero_grad()
    llp, tlp = l.log_prob(lx), t.log_prob(tx)
    same(llp, tlp, dt)
    w = rng.normal(size=(9, 20)).astype(dt)
    (llp * litnn.tensor(w)).sum().backward(); (tlp * torch.tensor(w)).sum().backward()
    same(lx.grad, tx.grad, dt); grads_match(l, t, dt)
    assert l.predict(lx).tolist() == t.predict(tx).tolist()
    lu, tu = l(lx[0], litnn.tensor(target[0])), t(tx[0], torch.tensor(target[0]))   # unbatched
    same(lu.output, tu.output, dt); same(lu.loss, tu.loss, dt)


@pytest.mark.parametrize('bias', [-3., 0., 3.])
def test_adaptive_log_softmax_predict_like_torch(bias):
    "The head's argmax in the shortlist, in a cluster, or mixed: predict's three paths."
    l, t = asm_pair(np.float64, 16, 12, [3, 7], head_bias=True)
    with torch.no_grad(): t.head.bias[3:] = bias
    l.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    a = rng.normal(size=(20, 16))
    assert l.predict(litnn.tensor(a)).tolist() == t.predict(torch.tensor(a)).tolist()


def test_adaptive_log_softmax_module():
    l, t = asm_pair(np.float64, 16, 20, [4, 10], div_value=2.)
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())
    assert type(l).__module__ == 'litnn.nn.modules.adaptive'
    for k in ('in_features', 'n_classes', 'cutoffs', 'div_value', 'head_bias', 'shortlist_size', 'n_clusters', 'head_size'):
        assert getattr(l, k) == getattr(t, k)
    l.reset_parameters()
    assert [tuple(p.shape) for p in l.parameters()] == [tuple(p.shape) for p in t.parameters()]


@pytest.mark.parametrize('args', [(16, 20, []), (16, 20, [10, 4]), (16, 20, [4, 20]), (16, 20, [0, 4]), (16, 20, [4, 4]), (16, 20, [2.5])])
def test_adaptive_log_softmax_bad_cutoffs(args):
    same_error(lambda: litnn.nn.AdaptiveLogSoftmaxWithLoss(*args), lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(*args))


@pytest.mark.parametrize('make', [lambda lib: (lib.ones(3, 16), lib.tensor([0, 1])), lambda lib: (lib.ones(3, 16), lib.tensor([0, 1, 20])),
                                  lambda lib: (lib.ones(3, 16), lib.tensor([-1, 1, 2])), lambda lib: (lib.ones(3, 2, 16), lib.tensor([0, 1, 2])),
                                  lambda lib: (lib.ones(3, 16), lib.tensor(1)), lambda lib: (lib.ones(3, 16), lib.tensor([[1]]))])
def test_adaptive_log_softmax_bad_input(make):
    l, t = asm_pair(np.float64, 16, 20, [4, 10])
    same_error(lambda: l(*make(litnn)), lambda: t(*make(torch)))


# --- 24i_lp_unpool_3d: lp_pool3d, max_unpool3d -----------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('norm,k,s,ceil', [(2., 2, None, False), (3., (2, 1, 2), (1, 2, 1), True), (1.5, 3, 2, True), (1., 2, 1, False)])
def test_lp_pool3d_like_torch(dt, norm, k, s, ceil):
    a = np.abs(rng.normal(size=(2, 3, 5, 4, 6))).astype(dt) + 0.1         # positive: x^p of a negative x is NaN for fractional p
    l, t = pair(a)
    ly, ty = LF.lp_pool3d(l, norm, k, s, ceil), TF.lp_pool3d(t, norm, k, s, ceil)
    same(ly, ty, dt)
    w = rng.normal(size=tuple(ty.shape)).astype(dt)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)
    lm, tm = litnn.nn.LPPool3d(norm, k, s, ceil), torch.nn.LPPool3d(norm, k, s, ceil)
    assert repr(lm) == repr(tm)
    same(lm(l[0]), tm(t[0]), dt)                                           # unbatched


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape,k,s,p,size', [((1, 2, 4, 6, 6), 2, None, 0, None), ((1, 2, 5, 7, 5), 3, 2, 1, None),
                                              ((1, 2, 5, 7, 6), (2, 3, 2), (2, 2, 1), 0, (5, 7, 6)), ((1, 2, 5, 5, 5), 2, None, 0, (1, 2, 5, 5, 5))])
def test_max_unpool3d_like_torch(dt, shape, k, s, p, size):
    a = rng.normal(size=shape).astype(dt)
    _, ti = TF.max_pool3d(torch.tensor(a), k, s, p, return_indices=True)
    v = rng.normal(size=tuple(ti.shape)).astype(dt)
    l, t = pair(v)
    ly, ty = LF.max_unpool3d(l, litnn.tensor(ti.numpy()), k, s, p, size), TF.max_unpool3d(t, ti, k, s, p, size)
    same(ly, ty, dt)
    w = rng.normal(size=tuple(ty.shape)).astype(dt)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)
    lm, tm = litnn.nn.MaxUnpool3d(k, s, p), torch.nn.MaxUnpool3d(k, s, p)
    assert repr(lm) == repr(tm)
    same(lm(l[0], litnn.tensor(ti.numpy())[0], size), tm(t[0], ti[0], size), dt)   # unbatched


@pytest.mark.parametrize('make', [
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i + 100, 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i * 0 - 1, 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o[0, 0], i[0, 0], 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i.float(), 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i[:, :1], 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o.long(), i, 2),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o, i, 2, output_size=(9, 5, 5)),
    lambda lib, o, i: lib.nn.functional.max_unpool3d(o.numpy(), i, 2),
    lambda lib, o, i: lib.nn.functional.lp_pool3d(o[0, 0, 0], 2, 1),
    lambda lib, o, i: lib.nn.functional.lp_pool3d(o, 2, (2, 2)),
])
def test_3d_pooling_errors_like_torch(make):
    a = rng.normal(size=(1, 2, 4, 4, 4))
    to, ti = TF.max_pool3d(torch.tensor(a), 2, return_indices=True)
    lo, li = litnn.tensor(to.numpy()), litnn.tensor(ti.numpy())
    (lt, lm), (tt, tm) = raised(lambda: make(litnn, lo, li)), raised(lambda: make(torch, to, ti))
    assert lt is tt
    if 'invalid max index' in tm: assert lm.split(':')[0] == tm.split(':')[0] and lm.endswith('(output volumes are of size 4x4x4)')
    elif "'int' object is not callable" in tm: assert 'must be Tensor' in lm      # torch's Python wrapper trips on numpy's .size
    else: assert lm == tm


# --- 26f_deprecated_modules: NLLLoss2d, Container ----------------------------------------------------------------

def built(make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        m = make()
    return m, [(x.category, str(x.message), x.filename) for x in w]


def test_deprecated_modules_warn_like_torch():
    for name, kwargs in (('NLLLoss2d', dict(ignore_index=1)), ('Container', {})):
        (lm, lw), (tm, tw) = built(lambda: getattr(litnn.nn, name)(**kwargs)), built(lambda: getattr(torch.nn, name)(**kwargs))
        assert lw == tw and lw[0][0] is FutureWarning and lw[0][2] == __file__
        assert repr(lm) == repr(tm)
        assert getattr(litnn.nn, name).__deprecated__ == getattr(torch.nn, name).__deprecated__
    for lib in (litnn, torch):                                   # subclassing warns; building the subclass does not
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            class Old(lib.nn.Container): pass
            Old()
        assert len(w) == 1


@pytest.mark.parametrize('dt', DTYPES)
def test_nll_loss2d_like_torch(dt):
    a = rng.normal(size=(2, 4, 3, 5)).astype(dt)
    target = rng.integers(0, 4, (2, 3, 5))
    weight = np.abs(rng.normal(size=4)).astype(dt)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        lm, tm = litnn.nn.NLLLoss2d(litnn.tensor(weight), ignore_index=2), torch.nn.NLLLoss2d(torch.tensor(weight), ignore_index=2)
        c = litnn.nn.Container(a=litnn.nn.Linear(2, 3), b=litnn.nn.ReLU())
    l, t = pair(a)
    ly, ty = lm(l, litnn.tensor(target)), tm(t, torch.tensor(target))
    same(ly, ty, dt); ly.backward(); ty.backward(); same(l.grad, t.grad, dt)
    assert isinstance(lm, litnn.nn.NLLLoss) and list(lm.state_dict()) == list(tm.state_dict())
    assert list(c.state_dict()) == ['a.weight', 'a.bias']
    assert type(lm).__module__ == 'litnn.nn.modules.loss' and litnn.nn.modules.loss.NLLLoss2d is type(lm)


# --- 24j_fractional_max_pool3d: the same _random_samples in both libraries ---------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape,k,kwargs', [((2, 3, 7, 8, 9), 2, dict(output_size=(4, 5, 3))), ((2, 3, 7, 8, 9), (3, 2, 1), dict(output_ratio=0.5)),
                                            ((3, 6, 7, 5), 2, dict(output_size=3)), ((1, 2, 9, 9, 9), (2, 3, 2), dict(output_ratio=(0.6, 0.4, 0.3)))])
def test_fractional_max_pool3d_like_torch(dt, shape, k, kwargs):
    a = rng.normal(size=shape).astype(dt)
    a.flat[::7] = a.flat[1::7]                                       # ties
    samples = rng.uniform(size=(1 if len(shape) == 4 else shape[0], shape[-4], 3)).astype(dt)
    l, t = pair(a)
    (lv, li), (tv, ti) = [F.fractional_max_pool3d_with_indices(x, k, _random_samples=lib.tensor(samples), **kwargs)
                          for F, lib, x in ((LF, litnn, l), (TF, torch, t))]
    same(lv, tv, dt); assert li.tolist() == ti.tolist()
    w = rng.normal(size=tuple(tv.shape)).astype(dt)
    (lv * litnn.tensor(w)).sum().backward(); (tv * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)
    lm = litnn.nn.FractionalMaxPool3d(k, _random_samples=litnn.tensor(samples), **kwargs)
    tm = torch.nn.FractionalMaxPool3d(k, _random_samples=torch.tensor(samples), **kwargs)
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    same(lm(l), tm(t), dt)


def test_fractional_max_pool3d_nan_like_torch():
    a = rng.normal(size=(1, 2, 5, 5, 5)); a.flat[::5] = np.nan
    s = rng.uniform(size=(1, 2, 3))
    (lv, li), (tv, ti) = [F.fractional_max_pool3d(lib.tensor(a), 2, output_size=2, return_indices=True, _random_samples=lib.tensor(s))
                          for F, lib in ((LF, litnn), (TF, torch))]
    assert li.tolist() == ti.tolist()
    np.testing.assert_array_equal(lv.numpy(), tv.numpy())


@pytest.mark.parametrize('make', [
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=(4, 3, 3), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=(3, 5, 3), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x[0, 0], 2, output_size=3),
    lambda F, lib, x, s: F.fractional_max_pool3d(x[0, 0], 2, output_size=3, _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s.double()),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s[:, :, :2]),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s[:1]),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s[:, :2]),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s.unsqueeze(-1)),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, 2, output_size=(3, 3), _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(x, (2, 2), output_size=3, _random_samples=s),
    lambda F, lib, x, s: F.fractional_max_pool3d(lib.zeros(2, 0, 5, 6, 7), 2, output_size=3),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2, output_ratio=1.5),
    lambda F, lib, x, s: lib.nn.FractionalMaxPool3d(2, output_ratio=0.5, output_size=2),
])
def test_fractional_max_pool3d_errors_like_torch(make):
    a, s = rng.normal(size=(2, 3, 5, 6, 7)).astype(np.float32), rng.uniform(size=(2, 3, 3)).astype(np.float32)
    same_error(lambda: make(LF, litnn, litnn.tensor(a), litnn.tensor(s)), lambda: make(TF, torch, torch.tensor(a), torch.tensor(s)))


def test_fractional_max_pool3d_samples_follow_the_seed():
    x = litnn.randn(2, 3, 6, 6, 6)
    litnn.manual_seed(5); a = LF.fractional_max_pool3d(x, 2, output_size=3, return_indices=True)[1]
    litnn.manual_seed(5); b = LF.fractional_max_pool3d(x, 2, output_size=3, return_indices=True)[1]
    assert a.tolist() == b.tolist()


# --- every new function on each device, against the CPU (the GPU case runs where CuPy and a GPU are) --------------

DEVICES = ['cpu', pytest.param('cuda', marks=pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)"))]
ON_DEVICE = dict(
    gumbel_softmax_hard=(lambda x: LF.gumbel_softmax(x, 0.5, True), [(4, 5)]),
    leaky_relu_=(lambda x: LF.leaky_relu_(x * 1, 0.2), [(4, 5)]),
    relu_=(lambda x: LF.relu_(x * 1), [(4, 5)]),
    max_pool3d_with_indices=(lambda x: LF.max_pool3d_with_indices(x, 2)[0], [(1, 2, 4, 4, 4)]),
    adaptive_max_pool2d_with_indices=(lambda x: LF.adaptive_max_pool2d_with_indices(x, 3)[0], [(1, 2, 5, 7)]),
    upsample_bilinear=(lambda x: LF.upsample_bilinear(x, scale_factor=2), [(1, 2, 3, 4)]),
    channel_shuffle=(lambda x: LF.channel_shuffle(x, 3), [(2, 6, 4)]),
    lp_pool3d=(lambda x: LF.lp_pool3d(x.abs() + 0.1, 2, 2), [(1, 2, 4, 4, 4)]),
    max_unpool3d=(lambda x: LF.max_unpool3d(*LF.max_pool3d(x, 2, return_indices=True), 2), [(1, 2, 4, 4, 4)]),
    fractional_max_pool3d=(lambda x: LF.fractional_max_pool3d(x, 2, output_size=2, _random_samples=litnn.full((1, 2, 3), 0.3, dtype=x.dtype, device=x.device)),
                           [(1, 2, 5, 5, 5)]),
    convolution=(lambda x, w: litnn.convolution(x, w, None, [1], [1], [1], True, [0], 1), [(2, 3, 5), (3, 2, 3)]),
    kl_div=(lambda x, t: litnn.kl_div(x, t.abs(), 1), [(3, 4), (3, 4)]),
    native_layer_norm=(lambda x: litnn.native_layer_norm(x, [4], None, None, 1e-5)[0], [(3, 4)]),
    constant_pad_nd=(lambda x: litnn.constant_pad_nd(x, [1, 2], 0.5), [(3, 4)]),
)


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('name', list(ON_DEVICE))
def test_on_device_as_on_cpu(name, device, noise):
    f, shapes = ON_DEVICE[name]
    arrays = [rng.normal(size=s) for s in shapes]
    noise['e'] = rng.exponential(size=shapes[0])
    outs = []
    for dev in ('cpu', device):
        xs = [litnn.tensor(a, device=dev, requires_grad=True) for a in arrays]
        y = f(*xs)
        assert y.device.type == dev
        y.sum().backward()
        outs.append([y.detach().cpu().numpy()] + [x.grad.cpu().numpy() for x in xs])
    for c, d in zip(*outs): np.testing.assert_allclose(d, c, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('device', DEVICES)
def test_adaptive_log_softmax_on_device(device):
    l, _ = asm_pair(np.float64, 16, 20, [4, 10])
    x, y = rng.normal(size=(6, 16)), np.array([0, 5, 12, 19, 3, 9])
    cpu = l(litnn.tensor(x), litnn.tensor(y))
    l.to(device)
    dev = l(litnn.tensor(x, device=device), litnn.tensor(y, device=device))
    assert dev.loss.device.type == device
    np.testing.assert_allclose(dev.output.detach().cpu().numpy(), cpu.output.detach().numpy(), rtol=1e-12)
    assert l.predict(litnn.tensor(x, device=device)).cpu().tolist() == l.cpu().predict(litnn.tensor(x)).tolist()

"""reference/nn/loss_regression_and_margin against torch 2.13: values and gradients in float64 and float32, every reduction, modules, errors."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
N, C = 5, 4
R = lambda *s: rng.normal(size=s)
U = lambda *s: rng.uniform(0.05, 1, size=s)
SIGNS = lambda *s: rng.choice([-1., 1.], size=s)

# name, arrays (those marked True get gradients), keyword arguments, integer arrays
CASES = [
    ('smooth_l1_loss', [R(N, C) * 2, R(N, C)], {}), ('smooth_l1_loss', [R(N, C) * 2, R(N, C)], {'beta': 0.5}),
    ('smooth_l1_loss', [R(N, C), R(N, C)], {'beta': 0.0}),
    ('huber_loss', [R(N, C) * 2, R(N, C)], {}), ('huber_loss', [R(N, C) * 2, R(N, C)], {'delta': 0.3}),
    ('kl_div', [np.log(U(N, C)), U(N, C)], {'reduction': 'batchmean'}), ('kl_div', [np.log(U(N, C)), U(N, C)], {'reduction': 'sum'}),
    ('kl_div', [np.log(U(N, C)), np.log(U(N, C))], {'reduction': 'batchmean', 'log_target': True}),
    ('poisson_nll_loss', [R(N, C), U(N, C) * 4], {}), ('poisson_nll_loss', [U(N, C), U(N, C) * 4], {'log_input': False}),
    ('poisson_nll_loss', [R(N, C), U(N, C) * 4], {'full': True}),
    ('gaussian_nll_loss', [R(N, C), R(N, C), U(N, C)], {}), ('gaussian_nll_loss', [R(N, C), R(N, C), U(N)], {'full': True}),
    ('gaussian_nll_loss', [R(N, C), R(N, C), U(N, 1)], {}),
    ('margin_ranking_loss', [R(N), R(N), SIGNS(N)], {'margin': 0.3}),
    ('hinge_embedding_loss', [R(N, C), SIGNS(N, C)], {'margin': 0.7}),
    ('soft_margin_loss', [R(N, C), SIGNS(N, C)], {}),
    ('cosine_embedding_loss', [R(N, C), R(N, C), SIGNS(N)], {'margin': 0.2}),
    ('cosine_embedding_loss', [R(C), R(C), np.array(-1.)], {}),
    ('triplet_margin_loss', [R(N, C), R(N, C), R(N, C)], {}), ('triplet_margin_loss', [R(N, C), R(N, C), R(N, C)], {'p': 1, 'swap': True}),
    ('triplet_margin_with_distance_loss', [R(N, C), R(N, C), R(N, C)], {'margin': 2.}),
    ('multilabel_soft_margin_loss', [R(N, C), rng.integers(0, 2, (N, C)).astype(float)], {}),
]
INT_CASES = [
    ('multi_margin_loss', [R(N, C)], rng.integers(0, C, N), {}), ('multi_margin_loss', [R(N, C)], rng.integers(0, C, N), {'p': 2, 'margin': 0.5}),
    ('multi_margin_loss', [R(C)], np.array(2), {}),
    ('multilabel_margin_loss', [R(N, C)], np.array([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3], [-1, 0, 0, 0], [2, 2, -1, 0]]), {}),
    ('multilabel_margin_loss', [R(C)], np.array([3, 0, -1, 1]), {}),
]

# the arrays whose gradients are compared: the inputs (all float arguments but a target of labels or signs)
GRADS = {'gaussian_nll_loss': (0, 1, 2), 'margin_ranking_loss': (0, 1), 'cosine_embedding_loss': (0, 1),
         'triplet_margin_loss': (0, 1, 2), 'triplet_margin_with_distance_loss': (0, 1, 2), 'kl_div': (0, 1),
         'smooth_l1_loss': (0, 1), 'huber_loss': (0, 1), 'poisson_nll_loss': (0, 1)}

def _run(lib, name, arrays, kw, ints, dtype):
    grads = GRADS.get(name, (0,))
    ts = [lib.tensor(a.astype(dtype), requires_grad=i in grads) for i, a in enumerate(arrays)]
    args = ts + ([lib.tensor(ints)] if ints is not None else [])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out = getattr(lib.nn.functional, name)(*args, **kw)
    return ts, out

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('case', CASES + INT_CASES, ids=lambda c: f"{c[0]}-{c[-1]}")
def test_values_and_gradients(case, reduction, dtype):
    name, arrays, *rest = case
    ints, kw = (rest[0], dict(rest[1])) if len(rest) == 2 else (None, dict(rest[0]))
    if name == 'kl_div' and 'reduction' in kw and reduction != 'mean': kw['reduction'] = reduction
    elif 'reduction' not in kw: kw['reduction'] = reduction
    lt, ly = _run(litnn, name, arrays, kw, ints, dtype)
    tt, ty = _run(torch, name, arrays, kw, ints, dtype)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-12)
    assert tuple(ly.shape) == tuple(ty.shape)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t in zip(lt, tt):
        if t.grad is not None: np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **tol)

def test_kl_div_mean_warns_as_torch():
    with pytest.warns(UserWarning, match="batchmean"): litnn.nn.functional.kl_div(litnn.zeros(2), litnn.ones(2))

def test_gradcheck():
    from litnn.autograd import gradcheck
    F = litnn.nn.functional
    x, y = litnn.tensor(R(3, 4) * 2, requires_grad=True), litnn.tensor(R(3, 4))
    assert gradcheck(lambda a: F.smooth_l1_loss(a, y, beta=0.5), (x,))
    var = litnn.tensor(U(3, 4))
    assert gradcheck(lambda a: F.gaussian_nll_loss(a, y, var), (x,))
    assert gradcheck(lambda a: F.cosine_embedding_loss(a, y, litnn.tensor([1., -1., 1.])), (x,))
    labels = litnn.tensor((R(3, 4) > 0) * 1.)
    assert gradcheck(lambda a: F.multilabel_soft_margin_loss(a, labels), (x,))

ERRORS = [lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1.),
          lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(2), delta=0.),
          lambda lib: lib.nn.functional.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3)),
          lambda lib: lib.nn.functional.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), -lib.ones(2, 3)),
          lambda lib: lib.nn.functional.poisson_nll_loss(lib.ones(2), lib.ones(2), reduction='bogus'),
          lambda lib: lib.nn.functional.margin_ranking_loss(lib.ones(2), lib.ones(2, 1), lib.ones(2)),
          lambda lib: lib.nn.functional.triplet_margin_loss(lib.ones(2, 3), lib.ones(3), lib.ones(2, 3)),
          lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=-1.),
          lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]), p=3),
          lambda lib: lib.nn.MultiMarginLoss(p=3)]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value).replace('litnn.', 'torch.') == str(t.value)

MODULES = [('SmoothL1Loss', {}, 2), ('SmoothL1Loss', {'beta': 0.5, 'reduction': 'sum'}, 2), ('HuberLoss', {'delta': 2.}, 2),
           ('KLDivLoss', {'reduction': 'batchmean', 'log_target': True}, 2), ('PoissonNLLLoss', {'full': True}, 2),
           ('GaussianNLLLoss', {'full': True}, 3), ('MarginRankingLoss', {'margin': 0.1}, 3), ('HingeEmbeddingLoss', {}, 2),
           ('CosineEmbeddingLoss', {'margin': 0.1}, 3), ('SoftMarginLoss', {}, 2), ('TripletMarginLoss', {'p': 1.}, 3),
           ('TripletMarginWithDistanceLoss', {'margin': 0.5}, 3), ('MultiLabelSoftMarginLoss', {}, 2)]

@pytest.mark.parametrize('name,kw,n', MODULES, ids=lambda v: str(v))
def test_modules(name, kw, n):
    lm, tm = getattr(litnn.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    arrays = [U(4, 3) for _ in range(n)]
    if name in ('MarginRankingLoss', 'CosineEmbeddingLoss'): arrays = [R(4, 3), R(4, 3), SIGNS(4)] if name == 'CosineEmbeddingLoss' else [R(4), R(4), SIGNS(4)]
    if name in ('HingeEmbeddingLoss', 'SoftMarginLoss'): arrays[1] = SIGNS(4, 3)
    np.testing.assert_allclose(lm(*map(litnn.tensor, arrays)).numpy(), tm(*map(torch.tensor, arrays)).numpy(), rtol=1e-10)

def test_weighted_modules():
    w = U(3)
    for name, kw in [('MultiMarginLoss', {'p': 2}), ('MultiLabelSoftMarginLoss', {})]:
        lm, tm = getattr(litnn.nn, name)(weight=litnn.tensor(w), **kw), getattr(torch.nn, name)(weight=torch.tensor(w), **kw)
        assert list(lm.state_dict()) == list(tm.state_dict())
        x = R(4, 3)
        t = rng.integers(0, 3, 4) if name == 'MultiMarginLoss' else (R(4, 3) > 0) * 1.
        np.testing.assert_allclose(lm(litnn.tensor(x), litnn.tensor(t)).numpy(), tm(torch.tensor(x), torch.tensor(t)).numpy(), rtol=1e-10)


@pytest.mark.parametrize('delta', [1.0 + 0.0j, '1.0', None])
def test_huber_loss_module_refuses_a_non_real_delta(delta):
    "Found by torch's module_db error inputs: HuberLoss(delta=...) takes a float or an int, else TypeError naming the type."
    assert same_error(lambda lib: lib.nn.HuberLoss(delta=delta)) is TypeError
    with pytest.raises(TypeError, match=r"delta must be a float or int, got: <class '"):
        litnn.nn.HuberLoss(delta=delta)
    for ok in (2, 0.5):     # ints and floats still fine, as in torch
        assert litnn.nn.HuberLoss(delta=ok).delta == torch.nn.HuberLoss(delta=ok).delta

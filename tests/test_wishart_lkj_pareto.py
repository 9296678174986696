"""Wishart, LKJCholesky and GeneralizedPareto (reference/distributions/wishart, lkj_cholesky, generalized_pareto) side by side
with torch.distributions: the same parameters give the same log_prob, cdf, icdf, entropy, moments, supports, reprs and
arg_constraints, the same gradients of log_prob and entropy in the parameters, the same shapes and errors; samples (litnn draws
from its own generator) are checked by their moments over many draws, seeded, with wide margins."""
import warnings
import numpy as np
import pytest

import litnn

torch = pytest.importorskip('torch')
LD, TD = litnn.distributions, torch.distributions


def T(L, a, grad=False, dtype='float64'):
    t = L.tensor(np.asarray(a), dtype=getattr(L, dtype))
    return t.requires_grad_() if grad else t


def close(a, b, tol=1e-9):
    a, b = np.asarray(a.detach().tolist() if hasattr(a, 'detach') else a, float), np.asarray(b.detach().tolist() if hasattr(b, 'detach') else b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def errors(f):
    "(exception type name, message) of what f raises under litnn and under torch."
    out = []
    for L in (litnn, torch):
        try: f(L); out.append(None)
        except Exception as e: out.append((type(e).__name__, str(e).replace('torch.', '').replace('litnn.', '')))
    return out


def same_error(f):
    a, b = errors(f)
    assert a is not None and a == b, (a, b)


# ---------------------------------------------------------------- GeneralizedPareto
GP_PARAMS = dict(loc=[0., 0.5, -1., 2.], scale=[1., 2., 0.5, 1.5], concentration=[0., -0.4, 0.3, -1.])
GP_X = [[0.2, 1., 0., 2.5], [1.5, 0.6, 3., 3.4]]


def gp(L, dtype='float64', grad=False):
    ps = {k: T(L, v, grad, dtype) for k, v in GP_PARAMS.items()}
    return L.distributions.GeneralizedPareto(**ps), ps


@pytest.mark.parametrize('method', ['log_prob', 'log_survival_function', 'log_cdf', 'cdf'])
def test_gp_values_and_grads(method):
    # torch compares concentration with a float32 zero, so these methods work in float32 only
    outs = []
    for L in (litnn, torch):
        d, ps = gp(L, 'float32', grad=True)
        v = getattr(d, method)(T(L, GP_X, dtype='float32'))
        v.sum().backward()
        outs.append((v, [ps[k].grad for k in GP_PARAMS]))
    close(outs[0][0], outs[1][0], 1e-5)
    for a, b in zip(outs[0][1], outs[1][1]): close(a, b, 1e-4)


def test_gp_float64_raises_like_torch():
    same_error(lambda L: gp(L)[0].log_prob(T(L, GP_X)))
    same_error(lambda L: gp(L)[0].cdf(T(L, GP_X)))


def test_gp_icdf_moments_entropy_support_repr():
    ds = [gp(L, grad=True) for L in (litnn, torch)]
    u = [[0.1, 0.5, 0.7, 0.99], [0.3, 0.01, 0.5, 0.5]]
    for name in ['icdf', 'mean', 'variance', 'entropy', 'mode']:
        outs = []
        for (d, ps), L in zip(ds, (litnn, torch)):
            for p in ps.values(): p.grad = None
            v = d.icdf(T(L, u)) if name == 'icdf' else d.entropy() if name == 'entropy' else getattr(d, name)
            if v.requires_grad: v.sum().backward()
            outs.append((v, [ps[k].grad for k in GP_PARAMS]))
        close(outs[0][0], outs[1][0])
        for a, b in zip(outs[0][1], outs[1][1]):
            if b is None: assert a is None or not a.abs().sum().item()
            else: close(a, b)
    (a, _), (b, _) = gp(litnn), gp(torch)
    assert repr(a) == repr(b).replace('torch', 'litnn')
    assert repr(a.support) == repr(b.support).replace('torch', 'litnn')
    close(a.support.lower_bound, b.support.lower_bound); close(a.support.upper_bound, b.support.upper_bound)
    assert repr(LD.GeneralizedPareto.arg_constraints) == repr(TD.GeneralizedPareto.arg_constraints)
    assert LD.GeneralizedPareto.has_rsample is TD.GeneralizedPareto.has_rsample is True
    close(LD.GeneralizedPareto(0., 1., 2.).mean, TD.GeneralizedPareto(0., 1., 2.).mean)
    close(LD.GeneralizedPareto(0., 1., 0.4).variance, TD.GeneralizedPareto(0., 1., 0.4).variance)


def test_gp_numbers_expand_and_shapes():
    for L in (litnn, torch):
        d = L.distributions.GeneralizedPareto(0., 1., 0.2)
        assert tuple(d.batch_shape) == () and tuple(d.sample((5, 2)).shape) == (5, 2)
        d, _ = gp(L)
        e = d.expand((3, 4))
        assert type(e).__name__ == 'GeneralizedPareto' and tuple(e.batch_shape) == (3, 4) and tuple(e.rsample((2,)).shape) == (2, 3, 4)
        assert e._validate_args == d._validate_args
    a, b = gp(litnn)[0].expand((3, 4)), gp(torch)[0].expand((3, 4))
    close(a.entropy(), b.entropy()); assert repr(a) == repr(b).replace('torch', 'litnn')


def test_gp_errors():
    same_error(lambda L: L.distributions.GeneralizedPareto(0., -1., 0.))
    same_error(lambda L: L.distributions.GeneralizedPareto(0., 1., -0.5).log_prob(L.tensor(3.)))
    same_error(lambda L: L.distributions.GeneralizedPareto(0., 1., 0.).log_prob(L.tensor(-1.)))


@pytest.mark.parametrize('conc', [0., -0.5, 0.25])
def test_gp_sample_moments(conc):
    litnn.manual_seed(0)
    d = LD.GeneralizedPareto(1., 2., conc)
    x = d.rsample((200000,))
    close(x.mean(), d.mean, 0.03)
    close(x.var(), d.variance, 0.1)
    assert (x >= 1).all().item()


def test_gp_rsample_gradient():
    # the pathwise gradient of an icdf sample is the icdf's gradient at the same uniform
    litnn.manual_seed(1)
    ds = [gp(L, 'float32', grad=True) for L in (litnn, torch)]
    x = ds[0][0].rsample((3,))
    x.sum().backward()
    u = ds[0][0].cdf(x.detach())
    d, ps = ds[1]
    d.icdf(torch.tensor(u.tolist())).sum().backward()
    for k in GP_PARAMS: close(ds[0][1][k].grad, ps[k].grad, 2e-3)


# ---------------------------------------------------------------- Wishart
rng = np.random.default_rng(0)
A = rng.normal(size=(2, 3, 3))
COV = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)                      # a batch of two 3 x 3 covariances
DF = np.array([4.5, 7.])
Xs = rng.normal(size=(5, 2, 3, 6)); X = Xs @ Xs.transpose(0, 1, 3, 2) / 6   # values: five samples per batch member


def wishart(L, kind, grad=False):
    cov = T(L, COV)
    m = {'covariance_matrix': cov, 'precision_matrix': L.linalg.inv(cov), 'scale_tril': L.linalg.cholesky(cov)}[kind].detach()
    df = T(L, DF)
    if grad: m.requires_grad_(); df.requires_grad_()
    return L.distributions.Wishart(df, **{kind: m}), (df, m)


@pytest.mark.parametrize('kind', ['covariance_matrix', 'precision_matrix', 'scale_tril'])
def test_wishart_log_prob_entropy_and_grads(kind):
    for f in [lambda d, L: d.log_prob(T(L, X)), lambda d, L: d.entropy(),
              lambda d, L: d.mean, lambda d, L: d.variance, lambda d, L: d.precision_matrix]:
        outs = []
        for L in (litnn, torch):
            d, ps = wishart(L, kind, grad=True)
            v = f(d, L)
            v.sum().backward()
            outs.append((v, [p.grad for p in ps]))
        close(outs[0][0], outs[1][0], 1e-8)
        for a, b in zip(outs[0][1], outs[1][1]):
            # a scale_tril's gradient above the diagonal is unused by torch's formulas but may differ in what autograd leaves there
            if b is None:
                assert a is None or not a.abs().sum().item()
                continue
            if kind == "scale_tril" and b.dim() == 3: a, b = a.tril(), b.tril()
            close(a, b, 1e-7)


@pytest.mark.parametrize('df', [np.array(4.5), DF])
def test_wishart_kl_divergence_matches_torch(df):
    "torch has no closed form registered: both take the exponential-family (Bregman) one, scalar or batched df alike."
    outs = []
    for L in (litnn, torch):
        dfp, dfq = T(L, df).requires_grad_(), T(L, df + 1.5)
        cov = T(L, COV).requires_grad_()
        k = L.distributions.kl_divergence(L.distributions.Wishart(dfp, cov), L.distributions.Wishart(dfq, T(L, COV[::-1].copy())))
        k.sum().backward()
        outs.append((k, dfp.grad, cov.grad))
    for a, b in zip(*outs): close(a, b, 1e-8)


def test_wishart_mode_reprs_constraints():
    a, b = wishart(litnn, 'scale_tril')[0], wishart(torch, 'scale_tril')[0]
    close(a.mode, b.mode)
    assert repr(a) == repr(b).replace('torch', 'litnn')
    assert repr(a.arg_constraints) == repr(b.arg_constraints) and repr(a.support) == repr(b.support)
    assert LD.Wishart.has_rsample and not LD.Wishart.has_enumerate_support and LD.Wishart._mean_carrier_measure == 0
    for n in ['scale_tril', 'covariance_matrix', 'precision_matrix']: close(getattr(a, n), getattr(b, n), 1e-9)
    close(a._log_normalizer(*a._natural_params), b._log_normalizer(*b._natural_params), 1e-9)
    # numbers for df, and the expanded distribution
    for kind in ['covariance_matrix', 'precision_matrix', 'scale_tril']:
        a, b = (L.distributions.Wishart(5., **{kind: T(L, COV[0]) if kind != 'scale_tril' else L.linalg.cholesky(T(L, COV[0]))}) for L in (litnn, torch))
        assert repr(a) == repr(b).replace('torch', 'litnn') and a.df.dtype.is_floating_point
        ea, eb = a.expand((3, 2)), b.expand((3, 2))
        assert repr(ea) == repr(eb).replace('torch', 'litnn') and tuple(ea.batch_shape) == (3, 2)
        assert sorted(k for k in ea.__dict__ if k in ('scale_tril', 'covariance_matrix', 'precision_matrix')) == \
            sorted(k for k in eb.__dict__ if k in ('scale_tril', 'covariance_matrix', 'precision_matrix'))
        close(ea.log_prob(T(litnn, X[0])), eb.log_prob(T(torch, X[0])), 1e-9)
        close(ea.entropy(), eb.entropy(), 1e-9)


def test_wishart_errors_and_warnings():
    same_error(lambda L: L.distributions.Wishart(L.tensor(1.), covariance_matrix=L.eye(2)))
    same_error(lambda L: L.distributions.Wishart(L.tensor([3., 0.5]), covariance_matrix=L.eye(2)))
    same_error(lambda L: L.distributions.Wishart(3., L.eye(2), scale_tril=L.eye(2)))
    same_error(lambda L: L.distributions.Wishart(3.))
    same_error(lambda L: L.distributions.Wishart(3., L.ones(2)))
    same_error(lambda L: L.distributions.Wishart(3., covariance_matrix=L.ones(2, 2)))
    same_error(lambda L: L.distributions.Wishart(3., precision_matrix=-L.eye(2)))
    same_error(lambda L: L.distributions.Wishart(3., scale_tril=-L.eye(2)))
    same_error(lambda L: L.distributions.Wishart(3., covariance_matrix=L.eye(2)).log_prob(-L.eye(2)))
    same_error(lambda L: L.distributions.wishart._mvdigamma(L.tensor([0.2]), 2))
    for L in (litnn, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            d = L.distributions.Wishart(1.5, covariance_matrix=L.eye(2))
            assert [str(x.message) for x in w] == ['Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.']
            assert w[0].filename == __file__
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            L.distributions.Wishart(4., covariance_matrix=L.eye(2)).rsample((3,))
            # torch 2.13's rsample starts its mask from support.check (True for good samples), so it always warns
            assert [str(x.message) for x in w] == ['Singular sample detected.'] and w[0].filename == __file__


def test_wishart_shapes_and_sample_moments():
    d = wishart(litnn, 'covariance_matrix')[0]
    for shape in [(), (4,), (2, 3)]:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            assert tuple(d.rsample(shape).shape) == shape + (2, 3, 3)
            assert tuple(d.sample(shape).shape) == shape + (2, 3, 3) and not d.sample(shape).requires_grad
    litnn.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        x = d.rsample((40000,))
    se_mean = (d.variance / 40000) ** 0.5
    assert ((x.mean(0) - d.mean).abs() < 6 * se_mean).all().item()
    assert ((x.var(0) / d.variance - 1).abs() < 0.1).all().item()
    assert LD.Wishart.support.check(x).all().item()


def test_wishart_rsample_gradient():
    # d/dθ E[f(X)] by the reparameterised samples against the exact gradient of E[X] = df Σ and of E[tr X] = df tr Σ
    litnn.manual_seed(3)
    df, L = T(litnn, 6., grad=True), T(litnn, np.linalg.cholesky(COV[0]), grad=True)
    d = LD.Wishart(df, scale_tril=L)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        x = d.rsample((40000,))
    x.diagonal(dim1=-2, dim2=-1).sum(-1).mean().backward()
    close(df.grad, np.trace(COV[0]), 0.03 * np.trace(COV[0]))
    close(L.grad.tril(), (2 * 6. * np.tril(np.linalg.cholesky(COV[0]))), 0.3)


# ---------------------------------------------------------------- LKJCholesky
def lkj_values(dim, n, seed=0):
    "Cholesky factors of random correlation matrices (of Wishart draws), in float64."
    r = np.random.default_rng(seed)
    G = r.normal(size=(n, dim, dim + 2)); C = G @ G.transpose(0, 2, 1)
    s = np.sqrt(np.diagonal(C, axis1=1, axis2=2)); C = C / s[:, :, None] / s[:, None, :]
    return np.linalg.cholesky(C)


@pytest.mark.parametrize('dim', [2, 3, 5])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_lkj_log_prob_and_grads(dim, dtype):
    V = lkj_values(dim, 4)[:, None]                 # (4, 1, dim, dim) against a batch of 3 concentrations
    outs = []
    for L in (litnn, torch):
        c = T(L, [0.3, 1., 4.5], grad=True, dtype=dtype)
        v = T(L, V, grad=True, dtype=dtype)
        lp = L.distributions.LKJCholesky(dim, c).log_prob(v)
        lp.sum().backward()
        outs.append((lp, c.grad, v.grad))
    tol = 1e-9 if dtype == 'float64' else 2e-4
    for a, b in zip(outs[0], outs[1]): close(a, b, tol)


def test_lkj_reprs_shapes_expand():
    for conc in [1., 2, [0.5, 2.], [[0.5], [3.]]]:
        a, b = (L.distributions.LKJCholesky(4, L.tensor(conc) if isinstance(conc, list) else conc) for L in (litnn, torch))
        assert repr(a) == repr(b).replace('torch', 'litnn')
        assert (tuple(a.batch_shape), tuple(a.event_shape)) == (tuple(b.batch_shape), tuple(b.event_shape))
        assert str(a.concentration.dtype).split('.')[1] == str(b.concentration.dtype).split('.')[1]
        close(a._beta.concentration1, b._beta.concentration1); close(a._beta.concentration0, b._beta.concentration0)
        ea, eb = a.expand((2,) + tuple(a.batch_shape)), b.expand((2,) + tuple(b.batch_shape))
        assert repr(ea) == repr(eb).replace('torch', 'litnn') and tuple(ea._beta.batch_shape) == tuple(eb._beta.batch_shape)
        assert ea._validate_args == eb._validate_args and ea.dim == 4
        assert tuple(ea.sample((3,)).shape) == tuple(eb.sample((3,)).shape)
    assert repr(LD.LKJCholesky.arg_constraints) == repr(TD.LKJCholesky.arg_constraints)
    assert repr(LD.LKJCholesky.support) == repr(TD.LKJCholesky.support) == 'CorrCholesky()'
    assert LD.LKJCholesky.has_rsample is TD.LKJCholesky.has_rsample is False


def test_lkj_errors():
    same_error(lambda L: L.distributions.LKJCholesky(1))
    same_error(lambda L: L.distributions.LKJCholesky(3, -1.))
    same_error(lambda L: L.distributions.LKJCholesky(3, L.tensor([1., 0.])))
    same_error(lambda L: L.distributions.LKJCholesky(3, 0.5).log_prob(L.eye(3) * 2))
    same_error(lambda L: L.distributions.LKJCholesky(3, 0.5).log_prob(L.ones(3, 3).tril()))
    for attr in ['mean', 'variance', 'mode', 'stddev']:
        same_error(lambda L: getattr(L.distributions.LKJCholesky(3), attr))
    same_error(lambda L: L.distributions.LKJCholesky(3).entropy())
    same_error(lambda L: L.distributions.LKJCholesky(3).rsample())


@pytest.mark.parametrize('dim,conc', [(2, 1.), (3, 0.5), (4, 3.)])
def test_lkj_sample_moments(dim, conc):
    # LKJ(η)'s correlations M_ij are 2 Beta(b, b) - 1, b = η - 1 + d/2: mean 0, variance 1/(2η + d - 1). torch 2.13's onion
    # sampler meets that for M_10 only (the correlations with later variables come out wider); litnn's draws follow torch's
    litnn.manual_seed(0); torch.manual_seed(0)
    d = LD.LKJCholesky(dim, conc)
    L = d.sample((40000,))
    assert d.support.check(L).all().item() and not L.requires_grad
    i, j = np.tril_indices(dim, -1)
    r = (L @ L.mT).numpy()[:, i, j]
    tl = TD.LKJCholesky(dim, conc).sample((40000,))
    tr = (tl @ tl.mT).numpy()[:, i, j]
    var = 1 / (2 * conc + dim - 1)
    np.testing.assert_allclose(r.mean(0), 0, atol=6 * np.sqrt(var / 40000))
    np.testing.assert_allclose(r.var(0)[i == 1], var, rtol=0.05)
    np.testing.assert_allclose(r.var(0), tr.var(0), rtol=0.05)
    a, b = d.log_prob(L).mean().item(), TD.LKJCholesky(dim, conc).log_prob(tl).mean().item()
    assert abs(a - b) < 0.03 + 0.03 * abs(b)

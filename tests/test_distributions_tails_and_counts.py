"""The distributions of reference/distributions/cauchy ... reference/distributions/multinomial side by side with torch.distributions: the same parameters (float64
and float32) give the same log_prob, cdf, icdf, entropy, moments, supports and reprs, the same gradients, the same shapes and
errors; sampling is checked statistically (litnn draws from its own generators), with margins of 5 standard errors, and
reparameterised gradients against torch's through the same draws."""
import numpy as np
import pytest

import litnn
from nn_pairs import err, norm
from test_distributions import DT, attempt, close, same_grads, same_samples_and_expand   # the first distributions' helpers

torch = pytest.importorskip('torch')
LD, TD = litnn.distributions, torch.distributions
rng = np.random.default_rng(0)


def P(*shape, lo=-1., hi=1.): return rng.uniform(lo, hi, shape)
def counts(*shape, hi=9): return rng.integers(0, hi, shape).astype(float)


# name: (constructor(D, params), params as numpy arrays, values as a numpy array)
CASES = {
    'Cauchy': (lambda D, p: D.Cauchy(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=-5, hi=5)),
    'HalfCauchy': (lambda D, p: D.HalfCauchy(p['scale']), dict(scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=0., hi=5)),
    'HalfNormal': (lambda D, p: D.HalfNormal(p['scale']), dict(scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=0., hi=4)),
    'Chi2': (lambda D, p: D.Chi2(p['df']), dict(df=P(3, lo=0.5, hi=8)), P(4, 3, lo=0.05, hi=10)),
    'StudentT': (lambda D, p: D.StudentT(p['df'], p['loc'], p['scale']), dict(df=np.array([0.7, 1.5, 3., 6.]), loc=P(4), scale=P(4, lo=0.5, hi=2)),
                 P(5, 4, lo=-4, hi=4)),
    'StudentTNumbers': (lambda D, p: D.StudentT(p['df']), dict(df=P(3, lo=2.5, hi=9)), P(5, 3, lo=-4, hi=4)),
    'Gumbel': (lambda D, p: D.Gumbel(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=-2, hi=6)),
    'Weibull': (lambda D, p: D.Weibull(p['scale'], p['concentration']), dict(scale=P(3, lo=0.5, hi=2), concentration=P(3, lo=0.5, hi=4)),
                P(4, 3, lo=0.05, hi=4)),
    'Pareto': (lambda D, p: D.Pareto(p['scale'], p['alpha']), dict(scale=P(3, lo=0.5, hi=1), alpha=np.array([0.7, 1.5, 3.5])), P(4, 3, lo=1.01, hi=6)),
    'Geometric': (lambda D, p: D.Geometric(p['probs']), dict(probs=np.array([0.1, 0.5, 0.9, 1.])), counts(5, 4)),
    'GeometricLogits': (lambda D, p: D.Geometric(logits=p['logits']), dict(logits=P(3, lo=-3, hi=3)), counts(5, 3)),
    'NegativeBinomial': (lambda D, p: D.NegativeBinomial(p['n'], p['probs']), dict(n=np.array([0.5, 3., 7.5]), probs=P(3, lo=0.05, hi=0.9)),
                         counts(5, 3, hi=15)),
    'NegativeBinomialLogits': (lambda D, p: D.NegativeBinomial(p['n'], logits=p['logits']), dict(n=P(2, 3, lo=0.5, hi=6), logits=np.array([-1.5, 0., 2.])),
                               counts(5, 2, 3, hi=15)),
    'Multinomial': (lambda D, p: D.Multinomial(6, p['probs']), dict(probs=P(2, 4, lo=0.1, hi=1)), rng.multinomial(6, [0.1, 0.2, 0.3, 0.4], (5, 2)).astype(float)),
    'MultinomialLogits': (lambda D, p: D.Multinomial(3, logits=p['logits']), dict(logits=P(3, lo=-2, hi=2)), rng.multinomial(3, [0.5, 0.25, 0.25], 4).astype(float)),
}
# litnn's own draws are compared with torch's icdf(cdf(x)) gradients (any monotone reparameterisation gives the same pathwise
# gradient); these have both in torch
NO_CDF_GRAD = ['Chi2', 'StudentT', 'StudentTNumbers']     # StudentT has no cdf; gammainc has no gradient in df (as in torch)
NO_CDF_GRAD += ['Geometric', 'GeometricLogits', 'NegativeBinomial', 'NegativeBinomialLogits', 'Multinomial', 'MultinomialLogits']
MULTINOMIAL = ['Multinomial', 'MultinomialLogits']
NO_ENTROPY = ['NegativeBinomial', 'NegativeBinomialLogits']
ICDF = ['Cauchy', 'HalfCauchy', 'HalfNormal', 'Gumbel', 'Weibull', 'Pareto']


def build(name, lib, dtype=np.float64, grad=False):
    ctor, params, _ = CASES[name]
    ldt, tdt = DT[dtype]
    D = LD if lib is litnn else TD
    ps = {k: lib.tensor(v.astype(dtype), dtype=ldt if lib is litnn else tdt, requires_grad=grad) for k, v in params.items()}
    return ctor(D, ps), ps


def value(name, lib, dtype=np.float64): return lib.tensor(CASES[name][2].astype(dtype))


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', list(CASES))
def test_values_match_torch(name, dtype):
    tol = 1e-10 if dtype == np.float64 else 2e-5
    ld, _ = build(name, litnn, dtype)
    td, _ = build(name, torch, dtype)
    assert tuple(ld.batch_shape) == tuple(td.batch_shape) and tuple(ld.event_shape) == tuple(td.event_shape)
    assert ld.has_rsample == td.has_rsample and ld.has_enumerate_support == td.has_enumerate_support
    assert isinstance(ld, getattr(LD, type(td).__base__.__name__))           # the same construction (Gamma, TransformedDistribution)
    for s in ['mean', 'mode', 'variance', 'stddev']:
        a, b = attempt(lambda: getattr(ld, s)), attempt(lambda: getattr(td, s))
        close(a, b, tol)
        if not isinstance(a, type): assert a.dtype == dtype and a.shape == b.shape, s
    lv, tv = value(name, litnn, dtype), value(name, torch, dtype)
    pv = rng.uniform(0.05, 0.95, tuple(ld.batch_shape)).astype(dtype)
    close(attempt(lambda: ld.icdf(litnn.tensor(pv))), attempt(lambda: td.icdf(torch.tensor(pv))), tol * 10)
    for m in ['log_prob', 'cdf']: close(attempt(lambda: getattr(ld, m)(lv)), attempt(lambda: getattr(td, m)(tv)), tol)
    # torch's Multinomial computes lgamma(n + 1) in float32 (from an int64 tensor): litnn's float64 entropy is the exact one
    # (test_multinomial_entropy_is_exact), torch's 1e-8 off
    close(attempt(ld.entropy), attempt(td.entropy), tol if name not in MULTINOMIAL else max(tol, 1e-6))
    assert repr(ld.support) == norm(repr(td.support)) and repr(ld) == norm(repr(td))
    assert list(ld.arg_constraints) == list(td.arg_constraints)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', list(CASES))
def test_gradients_match_torch(name, dtype):
    rtol, atol = (1e-8, 1e-10) if dtype == np.float64 else (2e-4, 1e-5)
    ld, lp = build(name, litnn, dtype, grad=True)
    td, tp = build(name, torch, dtype, grad=True)
    finite = [s for s in ('mean', 'variance') if torch.isfinite(getattr(td, s)).all()]
    def loss(d, lib):
        l = d.log_prob(value(name, lib, dtype)).sum()
        if name not in NO_ENTROPY: l = l + d.entropy().sum()
        if name not in NO_CDF_GRAD: l = l + d.cdf(value(name, lib, dtype)).sum() * 0.5
        for s in finite: l = l + getattr(d, s).sum() * 0.3
        return l
    lo, to = loss(ld, litnn), loss(td, torch)
    np.testing.assert_allclose(lo.item(), to.item(), rtol=1e-10 if dtype == np.float64 and name not in MULTINOMIAL else 2e-4)
    lo.backward(); to.backward()
    same_grads(lp, tp, rtol, atol, name)


@pytest.mark.parametrize('name', list(CASES))
def test_sample_shapes_and_expand(name):
    ld, _ = build(name, litnn)
    td, _ = build(name, torch)
    le, te, big = same_samples_and_expand(ld, td, CASES[name][2][:1])
    assert ld.sample((3,)).dtype == litnn.float64
    assert tuple(le.sample((2,)).shape) == tuple(te.sample((2,)).shape)
    # torch's expanded Multinomial loses its Binomial and its entropy raises AttributeError; litnn's keeps it
    te_entropy = (lambda: td.entropy().expand(big)) if name in MULTINOMIAL else te.entropy
    close(attempt(le.entropy), attempt(te_entropy), 1e-6)


@pytest.mark.parametrize('name', list(CASES))
def test_sample_statistics(name):
    "The fraction of N draws at or below x lies within 5 standard errors of torch's cdf(x) (the mean where torch has no cdf)."
    td, _ = build(name, torch)
    ld, _ = build(name, litnn)
    litnn.manual_seed(1)
    n = 40000
    s = ld.sample((n,)).numpy()
    assert td.support.check(torch.tensor(s)).all()
    try:
        for x in CASES[name][2]:
            F = td.cdf(torch.tensor(x)).numpy()
            assert np.all(np.abs((s <= x).mean(0) - F) <= 5 * np.sqrt(F * (1 - F) / n) + 1e-12), name
    except NotImplementedError:
        mean, var = td.mean.numpy(), td.variance.numpy()
        ok = np.isfinite(var)
        assert ok.any() and np.all(np.abs(s.mean(0) - mean)[ok] <= 5 * np.sqrt(var[ok] / n)), (s.mean(0), mean)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', ICDF)
def test_rsample_gradients_match_torch(name, dtype):
    "d/dθ of litnn's rsample equals torch's icdf(u; θ) gradient at the same draws' u = cdf(x): the same pathwise derivative."
    ld, lp = build(name, litnn, dtype, grad=True)
    td, tp = build(name, torch, dtype, grad=True)
    litnn.manual_seed(3)
    x = ld.rsample((50,))
    w = rng.standard_normal(tuple(x.shape)).astype(dtype)
    (x * litnn.tensor(w)).sum().backward()
    with torch.no_grad(): u = td.cdf(torch.tensor(x.detach().numpy()))
    xt = td.icdf(u)
    np.testing.assert_allclose(xt.detach().numpy(), x.detach().numpy(), rtol=1e-8 if dtype == np.float64 else 1e-3)
    (xt * torch.tensor(w)).sum().backward()
    for k in lp:
        np.testing.assert_allclose(lp[k].grad.numpy(), tp[k].grad.numpy(), rtol=1e-6 if dtype == np.float64 else 5e-3, atol=1e-8, err_msg=k)


def _chi2_implicit_grad(df, z):
    "dz/d(df) for a chi-squared draw z: -(∂F/∂df) / p(z), F the regularised incomplete gamma function, in mpmath."
    mpmath = pytest.importorskip('mpmath')
    mpmath.mp.dps = 30
    F = lambda d: mpmath.gammainc(d / 2, 0, z / 2, regularized=True)
    pdf = mpmath.exp((df / 2 - 1) * mpmath.log(z / 2) - z / 2 - mpmath.loggamma(df / 2)) / 2
    return float(-mpmath.diff(F, df) / pdf)


def test_chi2_rsample_gradient_is_the_implicit_one():
    df = litnn.tensor(CASES['Chi2'][1]['df'], requires_grad=True)
    litnn.manual_seed(4)
    z = LD.Chi2(df).rsample((4,))
    z.sum().backward()
    expected = [sum(_chi2_implicit_grad(float(df[j]), float(z[i, j])) for i in range(4)) for j in range(3)]
    np.testing.assert_allclose(df.grad.numpy(), expected, rtol=1e-8)


def test_student_t_rsample_gradient():
    "x = loc + scale · X · sqrt(df / Z), Z ~ Chi2(df) with its implicit gradient: the chain rule at litnn's own X and Z."
    ps = {k: litnn.tensor(v, requires_grad=True) for k, v in CASES['StudentT'][1].items()}
    d = LD.StudentT(ps['df'], ps['loc'], ps['scale'])
    drawn = []
    chi2_rsample = d._chi2.rsample
    d._chi2.rsample = lambda shape: drawn.append(chi2_rsample(shape)) or drawn[-1]
    litnn.manual_seed(4)
    x = d.rsample((3,))
    x.sum().backward()
    df, loc, scale = (CASES['StudentT'][1][k] for k in ('df', 'loc', 'scale'))
    z = drawn[0].detach().numpy()
    X = (x.detach().numpy() - loc) / scale * np.sqrt(z / df)
    dz = np.array([[_chi2_implicit_grad(df[j], z[i, j]) for j in range(4)] for i in range(3)])
    dx_ddf = scale * X * (0.5 / np.sqrt(df * z) - 0.5 * np.sqrt(df) * z ** -1.5 * dz)
    np.testing.assert_allclose(ps['df'].grad.numpy(), dx_ddf.sum(0), rtol=1e-7)
    np.testing.assert_allclose(ps['loc'].grad.numpy(), [3.] * 4)
    np.testing.assert_allclose(ps['scale'].grad.numpy(), (X * np.sqrt(df / z)).sum(0), rtol=1e-10)


ERRORS = [
    lambda D, lib: D.Cauchy(0., -1.),
    lambda D, lib: D.Cauchy(lib.zeros(2), lib.tensor([1., 0.])),
    lambda D, lib: D.Cauchy(0., 'a'),
    lambda D, lib: D.Cauchy(lib.zeros(2), lib.ones(2)).log_prob(lib.zeros(3)),
    lambda D, lib: D.HalfCauchy(-1.),
    lambda D, lib: D.HalfCauchy(lib.ones(2)).log_prob(lib.tensor([1., -1.])),
    lambda D, lib: D.HalfNormal(lib.tensor([1., -1.])),
    lambda D, lib: D.HalfNormal(lib.ones(2)).log_prob(lib.tensor([1., -1.])),
    lambda D, lib: D.Chi2(lib.tensor([1., -1.])),
    lambda D, lib: D.Chi2(lib.ones(2)).log_prob(lib.tensor([1., -1.])),
    lambda D, lib: D.StudentT(lib.tensor([0., 1.])),
    lambda D, lib: D.StudentT(2., 0., -1.),
    lambda D, lib: D.StudentT(2.).cdf(lib.tensor(0.)),
    lambda D, lib: D.Gumbel(0., -1.),
    lambda D, lib: D.Gumbel(lib.zeros(2), lib.ones(2)).log_prob(lib.zeros(3)),
    lambda D, lib: D.Weibull(1., -1.),
    lambda D, lib: D.Weibull(-1., 1.),
    lambda D, lib: D.Weibull(lib.ones(2), lib.ones(2)).log_prob(lib.tensor([1., -1.])),
    lambda D, lib: D.Pareto(lib.ones(2), lib.tensor([1., -1.])),
    lambda D, lib: D.Pareto(lib.ones(2), lib.ones(2)).log_prob(lib.tensor([1., 0.5])),
    lambda D, lib: D.Geometric(lib.tensor([0.5, 0.])),
    lambda D, lib: D.Geometric(lib.tensor([1.5])),
    lambda D, lib: D.Geometric(0.5, 0.),
    lambda D, lib: D.Geometric(),
    lambda D, lib: D.Geometric(lib.tensor([0.5])).log_prob(lib.tensor([0.5])),
    lambda D, lib: D.Geometric(0.5).mode.sum().item() + D.Geometric(0.5).entropy().item() + D.Geometric(0.5).cdf(lib.tensor(1.)),
    lambda D, lib: D.NegativeBinomial(-1., lib.tensor([0.5])),
    lambda D, lib: D.NegativeBinomial(3., lib.tensor([1.])),
    lambda D, lib: D.NegativeBinomial(3.),
    lambda D, lib: D.NegativeBinomial(3., lib.tensor([0.5])).entropy(),
    lambda D, lib: D.NegativeBinomial(3., lib.tensor([0.5])).log_prob(lib.tensor([-1.])),
    lambda D, lib: D.Multinomial(lib.tensor(3), lib.ones(2)),
    lambda D, lib: D.Multinomial(3, lib.tensor([0.5, -0.5])),
    lambda D, lib: D.Multinomial(3),
    lambda D, lib: D.Multinomial(3, lib.ones(2)).log_prob(lib.tensor([3., 1.])),
    lambda D, lib: D.Multinomial(3, lib.ones(2)).log_prob(lib.tensor([1., 1., 1.])),
    lambda D, lib: D.Multinomial(3, lib.ones(2)).mode,
]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors_match_torch(i):
    assert err(ERRORS[i], LD, litnn) == err(ERRORS[i], TD, torch)


def test_reprs_and_number_parameters_match_torch():
    def reprs(D, lib):
        ds = [D.Cauchy(0., 1.), D.Cauchy(lib.zeros(2), 1.), D.HalfCauchy(1.), D.HalfNormal(lib.ones(2)), D.Chi2(3.), D.StudentT(3.),
              D.StudentT(lib.ones(2), 0., 2.), D.Gumbel(0., 1.), D.Weibull(1., 2.), D.Pareto(1., lib.ones(3)), D.Geometric(0.3),
              D.Geometric(logits=lib.zeros(2)), D.NegativeBinomial(3., lib.tensor([0.5])), D.NegativeBinomial(2, logits=lib.zeros(3)),
              D.Multinomial(3, lib.ones(2)), D.Multinomial(logits=lib.zeros(2, 3))]
        return [(repr(d), tuple(d.batch_shape), str(d.mean.dtype), repr(d.support)) for d in ds]
    assert reprs(LD, litnn) == [(norm(r), b, norm(t), norm(s)) for r, b, t, s in reprs(TD, torch)]


def test_validate_args_off():
    for f in [lambda D, lib: D.HalfNormal(1., validate_args=False).log_prob(lib.tensor([-1., 1.])),
              lambda D, lib: D.HalfCauchy(1., validate_args=False).log_prob(lib.tensor([-1., 1.])),
              lambda D, lib: D.Pareto(1., 2., validate_args=False).log_prob(lib.tensor([0.5, 1.5])),
              lambda D, lib: D.Gumbel(0., 1., validate_args=False).cdf(lib.tensor([-1., 1.]))]:
        np.testing.assert_allclose(f(LD, litnn).numpy(), f(TD, torch).numpy(), rtol=1e-6)


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_geometric_entropy_at_extreme_logits_as_torch(dtype):
    "torch's entropy goes through binary_cross_entropy_with_logits, rounding and all (0 far below l = 0, where 1 - log p is the limit)."
    logits = [-60., -50., -20., -1e-3, 0., 3., 50.]
    outs = []
    for D, lib in ((LD, litnn), (TD, torch)):
        l = lib.tensor(logits, dtype=getattr(lib, dtype), requires_grad=True)
        e = D.Geometric(logits=l).entropy()
        outs.append((e.detach().numpy(), lib.autograd.grad(e.sum(), l)[0].numpy()))
    for a, b in zip(*outs): np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_multinomial_entropy_is_exact():
    "-Σ P(x) log P(x) over every count vector, against litnn's entropy in float64."
    import itertools
    probs = rng.uniform(0.1, 1, (2, 3))
    d = LD.Multinomial(5, litnn.tensor(probs))
    xs = np.array([c for c in itertools.product(range(6), repeat=3) if sum(c) == 5], dtype=float)
    lp = d.log_prob(litnn.tensor(xs[:, None, :])).numpy()
    np.testing.assert_allclose(-(np.exp(lp) * lp).sum(0), d.entropy().numpy(), rtol=1e-13)
    np.testing.assert_allclose(np.exp(lp).sum(0), 1., rtol=1e-13)


# --- KL divergences ------------------------------------------------------------------------------------------

# q's (and p's) from the earlier notebooks, batches of 3 like the cases above
OTHERS = {
    'Normal': (lambda D, p: D.Normal(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), None),
    'Exponential': (lambda D, p: D.Exponential(p['rate']), dict(rate=P(3, lo=0.5, hi=2)), None),
    'Gamma': (lambda D, p: D.Gamma(p['c'], p['rate']), dict(c=P(3, lo=0.5, hi=4), rate=P(3, lo=0.5, hi=2)), None),
    'Uniform': (lambda D, p: D.Uniform(p['low'], p['high']), dict(low=np.array([0.3, 0.8, 1.2]), high=P(3, lo=1.5, hi=3)), None),
    'Beta': (lambda D, p: D.Beta(p['c1'], p['c0']), dict(c1=P(3, lo=0.5, hi=3), c0=P(3, lo=0.5, hi=3)), None),
    'Laplace': (lambda D, p: D.Laplace(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), None),
    'Pareto2': (lambda D, p: D.Pareto(p['scale'], p['alpha']), dict(scale=np.array([1.1, 0.6, 0.5]), alpha=np.array([2.5, 0.8, 4.])), None),
    'Gumbel2': (lambda D, p: D.Gumbel(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), None),
    'Cauchy2': (lambda D, p: D.Cauchy(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), None),
    'HalfNormal2': (lambda D, p: D.HalfNormal(p['scale']), dict(scale=P(3, lo=0.5, hi=2)), None),
    'HalfCauchy2': (lambda D, p: D.HalfCauchy(p['scale']), dict(scale=P(3, lo=0.5, hi=2)), None),
    'GeometricLogits2': (lambda D, p: D.Geometric(logits=p['logits']), dict(logits=P(4, lo=-3, hi=3)), None),
    'Chi22': (lambda D, p: D.Chi2(p['df']), dict(df=P(3, lo=0.5, hi=8)), None),
}
KL_PAIRS = [('Cauchy', 'Cauchy2'), ('HalfNormal', 'HalfNormal2'), ('Geometric', 'GeometricLogits2'), ('GeometricLogits2', 'Geometric'), ('Gumbel', 'Gumbel2'),
            ('Pareto', 'Pareto2'), ('Pareto2', 'Pareto'), ('Exponential', 'Gumbel'), ('Gamma', 'Gumbel'), ('Chi2', 'Gumbel'),
            ('Gumbel', 'Normal'), ('Normal', 'Gumbel'), ('Uniform', 'Gumbel'), ('Pareto', 'Exponential'), ('Pareto', 'Gamma'),
            ('Pareto', 'Normal'), ('Pareto2', 'Normal'), ('Uniform', 'Pareto'), ('Gumbel', 'Beta'), ('Gumbel', 'Exponential'),
            ('Gumbel', 'Gamma'), ('Gumbel', 'Pareto'), ('Gumbel', 'Uniform'), ('Pareto', 'Beta'), ('Pareto', 'Uniform'),
            ('Beta', 'Pareto'), ('Exponential', 'Pareto'), ('Gamma', 'Pareto'), ('Laplace', 'Pareto'), ('Normal', 'Pareto'),
            ('Weibull', 'Gumbel'), ('HalfCauchy', 'HalfCauchy2'), ('Chi2', 'Chi22'), ('Chi2', 'Exponential')]


@pytest.mark.parametrize('pn, qn', KL_PAIRS)
def test_kl_divergence_matches_torch(pn, qn):
    "Values and gradients (where finite) against torch; pairs torch has no formula for raise NotImplementedError in both."
    def make(name, lib):
        ctor, params, _ = CASES.get(name) or OTHERS[name]
        ps = {k: lib.tensor(v, requires_grad=True) for k, v in params.items()}
        return ctor(LD if lib is litnn else TD, ps), ps
    (lp, lps), (lq, lqs) = make(pn, litnn), make(qn, litnn)
    (tp, tps), (tq, tqs) = make(pn, torch), make(qn, torch)
    lk, tk = attempt(lambda: LD.kl_divergence(lp, lq)), attempt(lambda: TD.kl_divergence(tp, tq))
    close(lk, tk, 1e-10)
    if isinstance(tk, type): return
    tk = TD.kl_divergence(tp, tq); lk = LD.kl_divergence(lp, lq)
    finite = torch.isfinite(tk)
    if finite.any():
        tk[finite].sum().backward()
        lk[litnn.tensor(finite.numpy())].sum().backward()
        for lps_, tps_ in ((lps, tps), (lqs, tqs)):
            for k in lps_:
                if tps_[k].grad is not None:
                    np.testing.assert_allclose(lps_[k].grad.numpy(), tps_[k].grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=k)


# --- on the GPU ---------------------------------------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")


@needs_gpu
@pytest.mark.parametrize('name', list(CASES))
def test_cuda_matches_cpu(name):
    "Densities, entropies and gradients on CuPy arrays equal the CPU's; samples are drawn on the GPU."
    def go(device):
        ctor, params, values = CASES[name]
        ps = {k: litnn.tensor(v, device=device, requires_grad=True) for k, v in params.items()}
        d = ctor(LD, ps)
        lp = d.log_prob(litnn.tensor(values, device=device)).sum()
        if name not in NO_ENTROPY: lp = lp + d.entropy().sum()
        lp.backward()
        assert d.sample((3,)).device.type == device
        if d.has_rsample: assert d.rsample((2,)).device.type == device
        return lp.item(), {k: p.grad.cpu().numpy() for k, p in ps.items() if p.grad is not None}
    (lc, gc), (lg, gg) = go('cpu'), go('cuda')
    assert lg == pytest.approx(lc, rel=1e-10)
    for k in gc: np.testing.assert_allclose(gg[k], gc[k], rtol=1e-8, atol=1e-10)


def test_multinomial_constraint_matches_torch():
    x = np.array([[0., 1., 2.], [1., 1., 2.], [-1., 2., 0.], [3., 0., 0.]])
    for lib in (litnn, torch): assert lib.distributions.constraints.multinomial(3).event_dim == 1
    np.testing.assert_array_equal(LD.constraints.multinomial(3).check(litnn.tensor(x)).numpy(),
                                  TD.constraints.multinomial(3).check(torch.tensor(x)).numpy())
    assert LD.constraints.multinomial(3).is_discrete and repr(LD.constraints.multinomial(3)) == repr(TD.constraints.multinomial(3))

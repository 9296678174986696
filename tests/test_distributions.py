"""litnn.distributions side by side with torch.distributions: the same parameters (float64 and float32) give the same
log_prob, cdf, icdf, entropy and moments, the same gradients, the same KL divergences, the same shapes and the same
errors; sampling is checked statistically, with margins of at least 5 sigma, and where torch draws through the primitives
litnn follows (normal_, rand, multinomial...) a seed gives torch's samples."""
import math, warnings

import numpy as np
import pytest

import litnn
from nn_pairs import err, norm
from litnn.distributions.gamma import _standard_gamma_grad_array
from litnn._pointwise import _lgamma as _lgamma_array, _digamma as _digamma_array, _polygamma   # the distributions use these
from litnn._pointwise import _igamma
def _trigamma_array(xp, a): return _polygamma(xp, a, 1)
def _gammainc_array(xp, a, x): return _igamma(xp, a, x, False).reshape(np.broadcast_shapes(a.shape, x.shape))   # special.gammainc, Gamma.cdf's

torch = pytest.importorskip('torch')
LD, TD = litnn.distributions, torch.distributions
rng = np.random.default_rng(0)
DT = {np.float64: (litnn.float64, torch.float64), np.float32: (litnn.float32, torch.float32)}


def P(*shape, lo=-1., hi=1.): return rng.uniform(lo, hi, shape)


def simplex(*shape):
    a = rng.uniform(0.1, 1., shape)
    return a / a.sum(-1, keepdims=True)


def spd(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def lower(n, batch=()):
    return np.linalg.cholesky(spd(n, batch))


# name: (constructor(lib, params), params as numpy arrays, values as numpy array)
CASES = {
    'Normal': (lambda D, p: D.Normal(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=-3, hi=3)),
    'Uniform': (lambda D, p: D.Uniform(p['low'], p['high']), dict(low=P(3, lo=-2, hi=-1), high=P(3, lo=1, hi=2)), P(4, 3, lo=-0.9, hi=0.9)),
    'Laplace': (lambda D, p: D.Laplace(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=-3, hi=3)),
    'Exponential': (lambda D, p: D.Exponential(p['rate']), dict(rate=P(3, lo=0.5, hi=2)), P(4, 3, lo=0.01, hi=4)),
    'Gamma': (lambda D, p: D.Gamma(p['concentration'], p['rate']), dict(concentration=P(3, lo=0.3, hi=5), rate=P(3, lo=0.5, hi=2)),
              P(4, 3, lo=0.01, hi=6)),
    'Beta': (lambda D, p: D.Beta(p['c1'], p['c0']), dict(c1=P(3, lo=0.3, hi=4), c0=P(3, lo=0.3, hi=4)), P(4, 3, lo=0.02, hi=0.98)),
    'Dirichlet': (lambda D, p: D.Dirichlet(p['concentration']), dict(concentration=P(2, 3, lo=0.3, hi=4)), simplex(4, 2, 3)),
    'Bernoulli': (lambda D, p: D.Bernoulli(p['probs']), dict(probs=P(3, lo=0.05, hi=0.95)), rng.integers(0, 2, (4, 3)).astype(float)),
    'BernoulliLogits': (lambda D, p: D.Bernoulli(logits=p['logits']), dict(logits=P(3, lo=-3, hi=3)), rng.integers(0, 2, (4, 3)).astype(float)),
    'Categorical': (lambda D, p: D.Categorical(p['probs']), dict(probs=simplex(2, 4)), rng.integers(0, 4, (5, 2)).astype(float)),
    'CategoricalLogits': (lambda D, p: D.Categorical(logits=p['logits']), dict(logits=P(2, 4, lo=-2, hi=2)), rng.integers(0, 4, (5, 2)).astype(float)),
    'OneHotCategorical': (lambda D, p: D.OneHotCategorical(p['probs']), dict(probs=simplex(2, 4)), np.eye(4)[rng.integers(0, 4, (5, 2))]),
    'Poisson': (lambda D, p: D.Poisson(p['rate']), dict(rate=P(3, lo=0.5, hi=6)), rng.integers(0, 9, (4, 3)).astype(float)),
    'Binomial': (lambda D, p: D.Binomial(10, p['probs']), dict(probs=P(3, lo=0.05, hi=0.95)), rng.integers(0, 11, (4, 3)).astype(float)),
    'BinomialLogits': (lambda D, p: D.Binomial(7, logits=p['logits']), dict(logits=P(3, lo=-2, hi=2)), rng.integers(0, 8, (4, 3)).astype(float)),
    'MVNCov': (lambda D, p: D.MultivariateNormal(p['loc'], covariance_matrix=p['cov']), dict(loc=P(2, 3), cov=spd(3)), P(4, 2, 3, lo=-2, hi=2)),
    'MVNPrec': (lambda D, p: D.MultivariateNormal(p['loc'], precision_matrix=p['prec']), dict(loc=P(3), prec=spd(3, (2,))), P(4, 2, 3, lo=-2, hi=2)),
    'MVNTril': (lambda D, p: D.MultivariateNormal(p['loc'], scale_tril=p['L']), dict(loc=P(2, 3), L=lower(3, (2,))), P(4, 2, 3, lo=-2, hi=2)),
    'LogNormal': (lambda D, p: D.LogNormal(p['loc'], p['scale']), dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=0.05, hi=5)),
    'Independent': (lambda D, p: D.Independent(D.Normal(p['loc'], p['scale']), 1), dict(loc=P(2, 3), scale=P(2, 3, lo=0.5, hi=2)), P(4, 2, 3)),
    'Transformed': (lambda D, p: D.TransformedDistribution(D.Normal(p['loc'], p['scale']), [D.AffineTransform(0.5, 2.), D.SigmoidTransform()]),
                    dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=0.05, hi=0.95)),
    'TransformedTanh': (lambda D, p: D.TransformedDistribution(D.Normal(p['loc'], p['scale']), D.TanhTransform()),
                        dict(loc=P(3), scale=P(3, lo=0.5, hi=2)), P(4, 3, lo=-0.9, hi=0.9)),
    'TransformedExpEvent': (lambda D, p: D.TransformedDistribution(D.Normal(p['loc'], p['scale']), [D.ComposeTransform([D.ExpTransform(), D.AffineTransform(0., 3., event_dim=1)])]),
                            dict(loc=P(2, 3), scale=P(2, 3, lo=0.5, hi=2)), P(4, 2, 3, lo=0.1, hi=4)),
}


def build(name, lib, dtype=np.float64, grad=False):
    ctor, params, _ = CASES[name]
    ldt, tdt = DT[dtype]
    D = LD if lib is litnn else TD
    ps = {k: lib.tensor(v.astype(dtype), dtype=ldt if lib is litnn else tdt, requires_grad=grad) for k, v in params.items()}
    return ctor(D, ps), ps


def value(name, lib, dtype=np.float64):
    v = CASES[name][2].astype(dtype)
    return lib.tensor(v)


def attempt(f):
    "f()'s result as a numpy array, or the type of the exception it raised."
    try: r = f()
    except Exception as e: return type(e)
    return r.detach().numpy() if hasattr(r, 'detach') else r


def close(a, b, tol):
    if isinstance(b, type):
        assert a is b or (isinstance(a, type) and issubclass(a, b)), (a, b)
        return
    assert not isinstance(a, type), f"litnn raised {a}, torch returned {b}"
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def same_grads(lp, tp, rtol, atol, name):
    "Each litnn parameter's gradient (dict `lp`) as torch's (`tp`), in the parameter's dtype; none (or zeros) where torch has none."
    for k in lp:
        tg, lg = tp[k].grad, lp[k].grad
        if tg is None: assert lg is None or not lg.numpy().any(); continue
        assert lg.dtype == lp[k].dtype
        np.testing.assert_allclose(lg.numpy(), tg.numpy(), rtol=rtol, atol=atol, err_msg=f"{name}.{k}")


def same_samples_and_expand(ld, td, value):
    "sample/rsample shapes as torch's; `expand` to a batch of 4 more: its batch shape, type and log_prob of `value`. (le, te, big)."
    for shape in [(), (5,), (2, 3)]:
        assert tuple(ld.sample(shape).shape) == tuple(td.sample(shape).shape)
        if td.has_rsample: assert tuple(ld.rsample(shape).shape) == tuple(td.rsample(shape).shape)
    big = (4,) + tuple(ld.batch_shape)
    le, te = ld.expand(big), td.expand(big)
    assert tuple(le.batch_shape) == tuple(te.batch_shape) and type(le) is type(ld)
    close(attempt(lambda: le.log_prob(litnn.tensor(value))), attempt(lambda: te.log_prob(torch.tensor(value))), 1e-10)
    return le, te, big


STATS = ['mean', 'mode', 'variance', 'stddev']
METHODS = ['log_prob', 'cdf', 'icdf', 'entropy']


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', list(CASES))
def test_values_match_torch(name, dtype):
    tol = 1e-10 if dtype == np.float64 else 2e-5
    ld, _ = build(name, litnn, dtype)
    td, _ = build(name, torch, dtype)
    assert tuple(ld.batch_shape) == tuple(td.batch_shape) and tuple(ld.event_shape) == tuple(td.event_shape)
    assert ld.has_rsample == td.has_rsample and ld.has_enumerate_support == td.has_enumerate_support
    for s in STATS: close(attempt(lambda: getattr(ld, s)), attempt(lambda: getattr(td, s)), tol)
    lv, tv = value(name, litnn, dtype), value(name, torch, dtype)
    if name in ('Uniform',) or name.startswith(('Transformed', 'LogNormal', 'Normal', 'Laplace', 'Exponential')):
        pv = rng.uniform(0.05, 0.95, tuple(ld.batch_shape)).astype(dtype)
        close(attempt(lambda: ld.icdf(litnn.tensor(pv))), attempt(lambda: td.icdf(torch.tensor(pv))), tol * 10)
    close(attempt(lambda: ld.log_prob(lv)), attempt(lambda: td.log_prob(tv)), tol)
    close(attempt(lambda: ld.cdf(lv)), attempt(lambda: td.cdf(tv)), tol)
    close(attempt(ld.entropy), attempt(td.entropy), tol)
    assert repr(ld.support) == norm(repr(td.support))


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', list(CASES))
def test_gradients_match_torch(name, dtype):
    rtol, atol = (1e-8, 1e-10) if dtype == np.float64 else (2e-4, 1e-5)
    ld, lp = build(name, litnn, dtype, grad=True)
    td, tp = build(name, torch, dtype, grad=True)
    def loss(d, lib):
        l = d.log_prob(value(name, lib, dtype)).sum()
        try: l = l + d.entropy().sum()
        except NotImplementedError: pass
        try: l = l + d.mean.sum() * 0.3 + d.variance.sum() * 0.7
        except NotImplementedError: pass
        return l
    lo, to = loss(ld, litnn), loss(td, torch)
    np.testing.assert_allclose(lo.item(), to.item(), rtol=1e-10 if dtype == np.float64 else 2e-4)
    lo.backward(); to.backward()
    same_grads(lp, tp, rtol, atol, name)


@pytest.mark.parametrize('name', list(CASES))
def test_sample_shapes_and_expand(name):
    ld, _ = build(name, litnn)
    td, _ = build(name, torch)
    same_samples_and_expand(ld, td, CASES[name][2][:1])
    if ld.has_enumerate_support and not isinstance(ld, LD.Binomial):
        np.testing.assert_array_equal(ld.enumerate_support().numpy(), td.enumerate_support().numpy())


@pytest.mark.parametrize('name', list(CASES))
def test_sample_statistics(name):
    "The sample mean of N draws lies within 5 standard errors of the distribution's mean."
    td, _ = build(name, torch)
    ld, _ = build(name, litnn)
    litnn.manual_seed(1)
    n = 40000
    s = ld.sample((n,)).numpy()
    try: mean, var = td.mean.numpy(), td.variance.numpy()
    except NotImplementedError:      # no closed form (transformed): compare with torch's own sample, both uncertain
        t = td.sample((n,)).numpy()
        mean, var = t.mean(0), t.var(0) * 2
    if isinstance(td, TD.Categorical):       # the mean of the index, from the probabilities
        k = np.arange(td.probs.shape[-1]); pr = td.probs.numpy()
        mean = (pr * k).sum(-1); var = (pr * k ** 2).sum(-1) - mean ** 2
    assert np.all(np.abs(s.mean(0) - mean) <= 5 * np.sqrt(var / n) + 1e-12), (s.mean(0), mean)
    assert td.support.check(torch.tensor(s)).all()


@pytest.mark.parametrize('name, param, mean_of', [
    ('Normal', 'scale', None), ('Laplace', 'scale', None), ('Exponential', 'rate', None), ('Gamma', 'concentration', None),
    ('Gamma', 'rate', None), ('Beta', 'c1', None), ('Beta', 'c0', None), ('Dirichlet', 'concentration', None),
    ('MVNTril', 'L', None), ('LogNormal', 'scale', None), ('Uniform', 'high', None)])
def test_rsample_gradient_is_the_gradient_of_the_mean(name, param, mean_of):
    "d/dθ of the sample mean of rsample estimates dE[x]/dθ (torch's analytic mean), within 5 standard errors."
    n = 40000
    litnn.manual_seed(2)
    ld, lp = build(name, litnn, grad=True)
    td, tp = build(name, torch, grad=True)
    w = rng.standard_normal(tuple(ld.batch_shape) + tuple(ld.event_shape))    # a random linear functional of the sample
    x = ld.rsample((n,))
    (x * litnn.tensor(w)).sum().backward()
    est = lp[param].grad.numpy() / n
    (td.mean * torch.tensor(w)).sum().backward()
    exact = np.zeros_like(est) if tp[param].grad is None else tp[param].grad.numpy()   # the mean may not depend on it
    # the standard error, from per-draw gradients of a few thousand draws
    m = 2000
    grads = []
    for i in range(0, m, 500):
        ld2, lp2 = build(name, litnn, grad=True)
        xs = ld2.rsample((500,))
        g = [litnn.autograd.grad((xs[j] * litnn.tensor(w)).sum(), lp2[param], retain_graph=True)[0].numpy() for j in range(0, 500, 10)]
        grads += g
    se = np.std(np.array(grads), 0) / math.sqrt(n)
    assert np.all(np.abs(est - exact) <= 5 * se + 1e-9), (est, exact, se)


def test_gamma_gradient_matches_torchs_approximation():
    "litnn's exact implicit gradient against torch's approximations (accurate to about 1e-3)."
    a = rng.uniform(0.05, 30, 3000)
    x = rng.gamma(a) + 1e-300
    mine = _standard_gamma_grad_array(np, a, x)
    theirs = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    np.testing.assert_allclose(mine, theirs, rtol=2e-3)


def test_standard_gamma_is_torchs_top_level_primitive():
    "torch._standard_gamma (zuko's GeneralizedNormal samples with it): seeded draws, a generator, dtypes, its gradient and refusals."
    for dt in ('float32', 'float64'):
        a = [0.3, 1.5, 2., 7.5]
        lg, tg = litnn.Generator().manual_seed(3), torch.Generator().manual_seed(3)
        l = litnn._standard_gamma(litnn.tensor(a, dtype=getattr(litnn, dt)), generator=lg)
        t = torch._standard_gamma(torch.tensor(a, dtype=getattr(torch, dt)), generator=tg)
        assert str(l.dtype).split('.')[1] == str(t.dtype).split('.')[1]
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-6)
        litnn.manual_seed(5); torch.manual_seed(5)
        la, ta = litnn.tensor(a, dtype=getattr(litnn, dt), requires_grad=True), torch.tensor(a, dtype=getattr(torch, dt), requires_grad=True)
        litnn._standard_gamma(la).sum().backward(); torch._standard_gamma(ta).sum().backward()
        np.testing.assert_allclose(la.grad.numpy(), ta.grad.numpy(), rtol=2e-3)      # (torch's gradient is an approximation)
    for lib in (litnn, torch):
        with pytest.raises(TypeError, match="argument 'input' \\(position 1\\) must be Tensor, not float"): lib._standard_gamma(1.5)
        with pytest.raises(NotImplementedError, match='"gamma_cpu" not implemented for \'Long\''): lib._standard_gamma(lib.tensor([1, 2]))

def test_gamma_gradient_is_exact():
    "Against the finite difference of the quantile, computed with mpmath's incomplete gamma function."
    mpmath = pytest.importorskip('mpmath')
    mpmath.mp.dps = 40
    for a, x in [(0.2, 0.01), (0.7, 2.5), (3., 3.), (12., 9.), (60., 70.)]:
        h = mpmath.mpf('1e-15')
        dP = (mpmath.gammainc(a + h, 0, x, regularized=True) - mpmath.gammainc(a - h, 0, x, regularized=True)) / (2 * h)
        pdf = mpmath.exp((a - 1) * mpmath.log(x) - x - mpmath.loggamma(a))
        assert abs(_standard_gamma_grad_array(np, np.array([a]), np.array([x]))[0] - float(-dP / pdf)) < 1e-9 * max(1, abs(float(-dP / pdf)))


def test_special_functions_match_torch():
    x = np.concatenate([np.linspace(-7.5, -0.05, 80), np.linspace(1e-3, 40, 400), [1e3, 1e6, 1e12]])
    x = x[np.abs(x - np.round(x)) > 1e-9]
    t = torch.tensor(x)
    np.testing.assert_allclose(_lgamma_array(np, x), torch.lgamma(t).numpy(), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(_digamma_array(np, x), torch.digamma(t).numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_trigamma_array(np, x), torch.polygamma(1, t).numpy(), rtol=1e-8)   # torch's trigamma is the less accurate
    poles = np.array([0., -1., -4.])
    np.testing.assert_array_equal(_lgamma_array(np, poles), torch.lgamma(torch.tensor(poles)).numpy())
    np.testing.assert_array_equal(_digamma_array(np, poles), torch.digamma(torch.tensor(poles)).numpy())
    a, z = rng.uniform(0.05, 80, 3000), rng.uniform(0, 120, 3000)
    np.testing.assert_allclose(_gammainc_array(np, a, z), torch.special.gammainc(torch.tensor(a), torch.tensor(z)).numpy(), rtol=5e-9, atol=1e-12)


def test_gammainc_is_accurate():
    "torch's gammainc is accurate to a few 1e-9 near the mode; litnn's series and continued fraction to about 1e-13."
    mpmath = pytest.importorskip('mpmath')
    mpmath.mp.dps = 30
    a, z = rng.uniform(0.05, 80, 200), rng.uniform(0, 120, 200)
    exact = np.array([float(mpmath.gammainc(ai, 0, zi, regularized=True)) for ai, zi in zip(a, z)])
    np.testing.assert_allclose(_gammainc_array(np, a, z), exact, rtol=1e-12, atol=1e-300)
    y = np.linspace(-0.999999, 0.999999, 501)
    from litnn._pointwise import _erfinv as _erfinv_array   # Normal.icdf's erfinv
    np.testing.assert_allclose(_erfinv_array(np, y), torch.erfinv(torch.tensor(y)).numpy(), rtol=1e-12, atol=1e-12)


KL_PAIRS = [('Normal', 'Normal'), ('Bernoulli', 'BernoulliLogits'), ('Categorical', 'CategoricalLogits'), ('OneHotCategorical', 'OneHotCategorical'),
            ('Beta', 'Beta'), ('Dirichlet', 'Dirichlet'), ('Exponential', 'Exponential'), ('Gamma', 'Gamma'), ('Laplace', 'Laplace'),
            ('Poisson', 'Poisson'), ('Uniform', 'Uniform'), ('MVNCov', 'MVNTril'), ('MVNPrec', 'MVNCov'), ('Independent', 'Independent'),
            ('Transformed', 'Transformed'), ('LogNormal', 'LogNormal'), ('Binomial', 'Binomial'),
            ('Bernoulli', 'Poisson'), ('Beta', 'Exponential'), ('Beta', 'Gamma'), ('Beta', 'Normal'), ('Beta', 'Uniform'),
            ('Exponential', 'Gamma'), ('Exponential', 'Normal'), ('Gamma', 'Exponential'), ('Gamma', 'Normal'), ('Laplace', 'Normal'),
            ('Normal', 'Laplace'), ('Uniform', 'Exponential'), ('Uniform', 'Gamma'), ('Uniform', 'Normal'),
            ('Exponential', 'Uniform'), ('Gamma', 'Beta'), ('Normal', 'Gamma'), ('Laplace', 'Uniform'), ('Poisson', 'Binomial')]


@pytest.mark.parametrize('pn, qn', KL_PAIRS)
def test_kl_divergence_matches_torch(pn, qn):
    lp, lps = build(pn, litnn, grad=True)
    tp, tps = build(pn, torch, grad=True)
    lq, lqs = build(qn, litnn, grad=True)
    tq, tqs = build(qn, torch, grad=True)
    lk, tk = LD.kl_divergence(lp, lq), TD.kl_divergence(tp, tq)
    np.testing.assert_allclose(lk.detach().numpy(), tk.detach().numpy(), rtol=1e-10, atol=1e-12)
    finite = torch.isfinite(tk)
    if finite.any():
        tk[finite].sum().backward()
        lk[litnn.tensor(finite.numpy())].sum().backward()
        for lps_, tps_ in ((lps, tps), (lqs, tqs)):
            for k in lps_:
                if tps_[k].grad is not None:
                    np.testing.assert_allclose(lps_[k].grad.numpy(), tps_[k].grad.numpy(), rtol=1e-8, atol=1e-10)


def test_kl_dispatch_and_errors():
    class MyNormal(LD.Normal): pass
    assert LD.kl_divergence(MyNormal(0., 1.), LD.Normal(1., 1.)).item() == pytest.approx(0.5)
    assert err(LD.kl_divergence, LD.Normal(0., 1.), LD.Binomial(3, 0.5)) == err(TD.kl_divergence, TD.Normal(0., 1.), TD.Binomial(3, 0.5))
    with pytest.raises(TypeError, match="issubclass"): LD.register_kl(3, LD.Normal)      # torch's check fails in issubclass
    # ambiguous registrations warn and name the pair to register, as torch
    class A(LD.Normal): pass
    class B(LD.Normal): pass
    f1 = LD.register_kl(A, LD.Normal)(lambda p, q: 1)
    f2 = LD.register_kl(LD.Normal, B)(lambda p, q: 2)
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(A, B\). Please register_kl\(A, B\)"):
        LD.kl_divergence(A(0., 1.), B(0., 1.))
    from litnn.distributions.kl import _KL_REGISTRY, _KL_MEMOIZE
    del _KL_REGISTRY[A, LD.Normal], _KL_REGISTRY[LD.Normal, B]; _KL_MEMOIZE.clear()
    l = err(LD.kl_divergence, LD.MultivariateNormal(litnn.zeros(2), litnn.eye(2)), LD.MultivariateNormal(litnn.zeros(3), litnn.eye(3)))
    t = err(TD.kl_divergence, TD.MultivariateNormal(torch.zeros(2), torch.eye(2)), TD.MultivariateNormal(torch.zeros(3), torch.eye(3)))
    assert l == t


def both(f):
    "The errors `f(D, lib)` raises with litnn and with torch."
    return err(f, LD, litnn), err(f, TD, torch)


@pytest.mark.parametrize('f', [
    lambda D, lib: D.Normal(0., -1.),
    lambda D, lib: D.Normal(lib.zeros(2), lib.tensor([1., -1.])),
    lambda D, lib: D.Normal(0., 'a'),
    lambda D, lib: D.Normal(lib.zeros(2), lib.ones(2)).log_prob(lib.zeros(3)),
    lambda D, lib: D.Normal(lib.zeros(2), lib.ones(2)).log_prob([0., 1.]),
    lambda D, lib: D.Exponential(lib.ones(2)).log_prob(lib.tensor([1., -1.])),
    lambda D, lib: D.Uniform(1., 0.),
    lambda D, lib: D.Uniform(lib.zeros(2), lib.ones(2)).log_prob(lib.tensor([0.5, 2.])),
    lambda D, lib: D.Bernoulli(0.5, 0.),
    lambda D, lib: D.Bernoulli(1.5),
    lambda D, lib: D.Bernoulli(0.3).log_prob(lib.tensor(0.5)),
    lambda D, lib: D.Categorical(lib.tensor(1.)),
    lambda D, lib: D.Categorical(logits=lib.tensor(1.)),
    lambda D, lib: D.Categorical(lib.tensor([0.5, -0.5])),
    lambda D, lib: D.Categorical(lib.tensor([0.3, 0.7])).log_prob(lib.tensor(2)),
    lambda D, lib: D.OneHotCategorical(lib.tensor([0.3, 0.7])).log_prob(lib.tensor([1., 1.])),
    lambda D, lib: D.Dirichlet(lib.tensor(1.)),
    lambda D, lib: D.Dirichlet(lib.tensor([1., -1.])),
    lambda D, lib: D.Dirichlet(lib.tensor([1., 1.])).log_prob(lib.tensor([0.3, 0.8])),
    lambda D, lib: D.Beta(lib.tensor([1.]), lib.tensor([-1.])),
    lambda D, lib: D.Gamma(1., 0.),
    lambda D, lib: D.Poisson(lib.tensor([1.])).log_prob(lib.tensor([0.5])),
    lambda D, lib: D.Poisson(-1.),
    lambda D, lib: D.Binomial(lib.tensor([3., 4.]), lib.tensor([0.5, 0.5])).entropy(),
    lambda D, lib: D.Binomial(10, lib.tensor([0.2])).log_prob(lib.tensor([11.])),
    lambda D, lib: D.Binomial(10, probs=lib.tensor([0.2]), logits=lib.tensor([0.])),
    lambda D, lib: D.Binomial(lib.tensor([3., 4.]), lib.tensor([0.5, 0.5])).enumerate_support(),
    lambda D, lib: D.MultivariateNormal(lib.zeros(2)),
    lambda D, lib: D.MultivariateNormal(lib.tensor(0.), lib.eye(2)),
    lambda D, lib: D.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda D, lib: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    lambda D, lib: D.MultivariateNormal(lib.zeros(2), -lib.eye(2)),
    lambda D, lib: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2, 2)),
    lambda D, lib: D.Independent(D.Normal(lib.zeros(2), lib.ones(2)), 2),
    lambda D, lib: D.Independent(D.Normal(lib.zeros(2), lib.ones(2)), 1).enumerate_support(),
    lambda D, lib: D.TransformedDistribution(D.Normal(0., 1.), 'exp'),
    lambda D, lib: D.TransformedDistribution(D.Normal(0., 1.), [1]),
    lambda D, lib: D.TransformedDistribution(D.Normal(0., 1.), D.transforms.IndependentTransform(D.ExpTransform(), 1)),
    lambda D, lib: D.LogNormal(0., 1.).log_prob(lib.tensor(-1.)),
    lambda D, lib: D.Normal(0., 1.).enumerate_support(),
    lambda D, lib: D.Poisson(1.).entropy(),
    lambda D, lib: D.Distribution.set_default_validate_args(2),
    lambda D, lib: D.constraints.dependent.check(lib.zeros(1)),
    lambda D, lib: D.constraints.independent(D.constraints.real, 2).check(lib.zeros(1)),
    # parameters or values that do not broadcast: torch.broadcast_tensors' RuntimeError (broadcast_all), not a ValueError
    lambda D, lib: D.Normal(lib.tensor([[0., 0.]]), lib.tensor([1., 1., 1., 1.])),
    lambda D, lib: D.Gamma(lib.tensor([1., 1.]), lib.tensor([1., 1., 1.])),
    lambda D, lib: D.StudentT(lib.tensor([1., 1.]), scale=lib.tensor([1., 1., 1.])),
    lambda D, lib: D.Normal(lib.tensor([[0., 0.]]), 1., validate_args=False).log_prob(lib.zeros(4)),
    lambda D, lib: D.Categorical(logits=lib.zeros(3, 2), validate_args=False).log_prob(lib.zeros(4).long()),
])
def test_errors_match_torch(f):
    assert both(f)[0] == both(f)[1]


def test_reprs_match_torch():
    def reprs(D, lib):
        return [repr(d) for d in (D.Normal(0., 1.), D.Normal(lib.zeros(2), lib.ones(2)), D.Bernoulli(logits=lib.zeros(3)),
                                  D.Categorical(lib.ones(2, 3)), D.Beta(2., 3.), D.Binomial(5, lib.tensor([0.5])),
                                  D.MultivariateNormal(lib.zeros(2), lib.eye(2)), D.Independent(D.Normal(lib.zeros(2), lib.ones(2)), 1),
                                  D.Gamma(1., 2.), D.Dirichlet(lib.ones(3)), D.LogNormal(0., 1.))] + \
               [repr(c) for c in (D.constraints.real, D.constraints.positive, D.constraints.unit_interval, D.constraints.simplex,
                                  D.constraints.real_vector, D.constraints.integer_interval(0, 3), D.constraints.nonnegative_integer,
                                  D.constraints.lower_cholesky, D.constraints.positive_definite, D.constraints.one_hot, D.constraints.boolean,
                                  D.constraints.half_open_interval(0., 1.), D.constraints.greater_than_eq(2.))] + \
               [repr(t) for t in (D.ExpTransform(), D.ExpTransform().inv, D.ComposeTransform([D.ExpTransform(), D.TanhTransform()]),
                                  D.AffineTransform(0., 1.))]
    assert reprs(LD, litnn) == [norm(r) for r in reprs(TD, torch)]


def test_constraints_match_torch():
    x = np.array([[-1., 0., 0.5, 1., 2.5, np.nan]])
    for name in ['real', 'positive', 'nonnegative', 'unit_interval', 'boolean', 'nonnegative_integer', 'positive_integer']:
        a, b = getattr(LD.constraints, name).check(litnn.tensor(x)), getattr(TD.constraints, name).check(torch.tensor(x))
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    m = np.stack([spd(3), -spd(3), lower(3), np.triu(spd(3))])
    for name in ['lower_triangular', 'lower_cholesky', 'positive_definite', 'symmetric', 'square']:
        a, b = getattr(LD.constraints, name).check(litnn.tensor(m)), getattr(TD.constraints, name).check(torch.tensor(m))
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
        assert getattr(LD.constraints, name).event_dim == getattr(TD.constraints, name).event_dim


def test_transforms_match_torch():
    x = rng.uniform(-2, 2, (3, 4))
    for make in [lambda D: D.ExpTransform(), lambda D: D.SigmoidTransform(), lambda D: D.TanhTransform(), lambda D: D.SoftplusTransform(),
                 lambda D: D.AffineTransform(0.5, -2.), lambda D: D.AffineTransform(0.5, 3., event_dim=1), lambda D: D.AbsTransform(),
                 lambda D: D.ComposeTransform([D.AffineTransform(1., 2.), D.ExpTransform(), D.PowerTransform(0.5)]),
                 lambda D: D.transforms.IndependentTransform(D.SigmoidTransform(), 1), lambda D: D.ExpTransform().inv.inv]:
        lt, tt = make(LD), make(TD)
        xl = litnn.tensor(x, requires_grad=True); xt = torch.tensor(x, requires_grad=True)
        yl, yt = lt(xl), tt(xt)
        np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
        if tt.bijective:
            np.testing.assert_allclose(lt.inv(yl).detach().numpy(), tt.inv(yt).detach().numpy(), rtol=1e-10, atol=1e-12)
            jl, jt = lt.log_abs_det_jacobian(xl, yl), tt.log_abs_det_jacobian(xt, yt)
            np.testing.assert_allclose(jl.detach().numpy(), jt.detach().numpy(), rtol=1e-10, atol=1e-12)
            (jl.sum() + yl.sum()).backward(); (jt.sum() + yt.sum()).backward()
            np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
        assert lt.domain.event_dim == tt.domain.event_dim and lt.codomain.event_dim == tt.codomain.event_dim
        assert lt.bijective == tt.bijective and repr(lt) == repr(tt)
        if tt.bijective and not isinstance(tt.sign, torch.Tensor): assert lt.sign == tt.sign


def test_validate_args_switch():
    LD.Distribution.set_default_validate_args(False)
    try:
        assert LD.Normal(0., -1.).scale.item() == -1.
        assert math.isnan(LD.Normal(0., 1.).log_prob(litnn.tensor([1.])).item()) is False
    finally: LD.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError): LD.Normal(0., -1.)
    assert LD.Normal(0., -1., validate_args=False)._validate_args is False


def test_mvn_batch_helpers_where_torch_has_them():
    "Pyro and others import _batch_mv and _batch_mahalanobis from torch.distributions.multivariate_normal."
    from litnn.distributions.multivariate_normal import _batch_mahalanobis as lmaha, _batch_mv as lmv
    from torch.distributions.multivariate_normal import _batch_mahalanobis as tmaha, _batch_mv as tmv
    L, x = lower(3, (2, 1)), rng.standard_normal((5, 2, 4, 3))     # torch wants x's batch to hold L's
    np.testing.assert_allclose(lmaha(litnn.tensor(L), litnn.tensor(x)).numpy(), tmaha(torch.tensor(L), torch.tensor(x)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(lmv(litnn.tensor(L), litnn.tensor(x[0])).numpy(), tmv(torch.tensor(L), torch.tensor(x[0])).numpy(), rtol=1e-12)


def test_sample_n_and_cholesky_error_as_torch():
    with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated. Use `sample\(\(n,\)\)` instead."):
        assert tuple(LD.Normal(litnn.zeros(2), 1.).sample_n(3).shape) == tuple(TD.Normal(torch.zeros(2), 1.).sample_n(3).shape) == (3, 2)
    bad = [[1., 2.], [2., 1.]]              # symmetric, not positive-definite: unchecked, the factorisation fails
    with pytest.raises(torch.linalg.LinAlgError) as t: TD.MultivariateNormal(torch.zeros(2), torch.tensor(bad), validate_args=False)
    with pytest.raises(litnn.linalg.LinAlgError) as l: LD.MultivariateNormal(litnn.zeros(2), litnn.tensor(bad), validate_args=False)
    assert str(l.value) == str(t.value)


def test_lazy_parameters_and_dtypes():
    b = LD.Bernoulli(logits=litnn.tensor([0., 2.], dtype=litnn.float64))
    assert 'probs' not in b.__dict__
    np.testing.assert_allclose(b.probs.numpy(), torch.sigmoid(torch.tensor([0., 2.], dtype=torch.float64)).numpy())
    assert 'probs' in b.__dict__ and b.probs.dtype == litnn.float64
    assert LD.Normal(0., 1.).sample().dtype == litnn.float32
    assert LD.Normal(litnn.zeros(1, dtype=litnn.float64), 1.).rsample().dtype == litnn.float64
    assert LD.Categorical(litnn.ones(3)).sample((2,)).dtype == litnn.int64
    assert LD.Poisson(litnn.tensor([2.], dtype=litnn.float64)).sample().dtype == litnn.float64


def test_gaussian_model_learns_the_data_mean():
    "The seed's GaussianModel: -Normal(mean, 1).log_prob(x) trained by SGD reaches the data's mean, as torch's does."
    data = rng.normal(3., 1., 200)
    def train(lib):
        class GaussianModel(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.mean = lib.nn.Parameter(lib.zeros(1, dtype=lib.float64))
            def forward(self, x): return -lib.distributions.Normal(self.mean, 1).log_prob(x).mean()
        m = GaussianModel()
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        x = lib.tensor(data)
        for _ in range(150):
            opt.zero_grad(); loss = m(x); loss.backward(); opt.step()
        return m.mean.item(), loss.item()
    (lm, ll), (tm, tl) = train(litnn), train(torch)
    assert lm == pytest.approx(tm, rel=1e-12) and ll == pytest.approx(tl, rel=1e-12)
    assert lm == pytest.approx(data.mean(), abs=1e-3)


def test_mvn_lazy_matrices_and_cholesky_grad():
    cov = spd(3)
    l = LD.MultivariateNormal(litnn.zeros(3, dtype=litnn.float64), covariance_matrix=litnn.tensor(cov))
    t = TD.MultivariateNormal(torch.zeros(3, dtype=torch.float64), covariance_matrix=torch.tensor(cov))
    for a in ('scale_tril', 'precision_matrix', 'covariance_matrix'):
        np.testing.assert_allclose(getattr(l, a).numpy(), getattr(t, a).numpy(), rtol=1e-10, atol=1e-12)
    from litnn.distributions.multivariate_normal import _cholesky, _solve_triangular
    A = litnn.tensor(spd(3, (2,)), requires_grad=True)
    assert litnn.autograd.gradcheck(lambda a: _cholesky((a + a.mT) / 2), (A,))
    B = litnn.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    L = litnn.tensor(lower(3, (2,)), requires_grad=True)
    assert litnn.autograd.gradcheck(lambda l, b: _solve_triangular(l.tril(), b), (L, B))
    assert litnn.autograd.gradgradcheck(lambda l, b: _solve_triangular(l.tril(), b), (L, B))


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
        lp = d.log_prob(litnn.tensor(values, device=device))
        try: lp = lp.sum() + d.entropy().sum()
        except NotImplementedError: lp = lp.sum()
        lp.backward()
        s = d.sample((3,))
        assert s.device.type == device
        if d.has_rsample: assert d.rsample((2,)).device.type == device
        return lp.item(), {k: p.grad.cpu().numpy() for k, p in ps.items() if p.grad is not None}
    (lc, gc), (lg, gg) = go('cpu'), go('cuda')
    assert lg == pytest.approx(lc, rel=1e-10)
    for k in gc: np.testing.assert_allclose(gg[k], gc[k], rtol=1e-8, atol=1e-10)


@needs_gpu
def test_cuda_sampling_statistics():
    litnn.manual_seed(0)
    for d, mean in [(LD.Gamma(litnn.tensor(3., device='cuda'), 2.), 1.5), (LD.Poisson(litnn.tensor(4., device='cuda')), 4.),
                    (LD.Categorical(litnn.tensor([0.2, 0.8], device='cuda')), 0.8), (LD.Binomial(10, litnn.tensor(0.3, device='cuda')), 3.)]:
        s = d.sample((40000,)).float()
        assert abs(s.mean().item() - mean) < 5 * (d.variance.item() if not isinstance(d, LD.Categorical) else 0.16) ** 0.5 / 200


# --- exponential families ---------------------------------------------------------------------------------------

EXPFAM = ['Normal', 'Exponential', 'Gamma', 'Beta', 'Dirichlet', 'Bernoulli', 'BernoulliLogits', 'Poisson']


@pytest.mark.parametrize('name', EXPFAM)
def test_exponential_families_match_torch(name):
    "The same class hierarchy, natural parameters, log-normalizer and generic (Bregman) entropy and KL as torch."
    ld, _ = build(name, litnn)
    td, _ = build(name, torch)
    assert isinstance(ld, LD.ExponentialFamily) and isinstance(td, TD.ExponentialFamily)
    for a, b in zip(ld._natural_params, td._natural_params): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ld._log_normalizer(*ld._natural_params).detach().numpy(),
                               td._log_normalizer(*td._natural_params).detach().numpy(), rtol=1e-12)
    close(attempt(lambda: LD.ExponentialFamily.entropy(ld)), attempt(lambda: TD.ExponentialFamily.entropy(td)), 1e-10)
    from litnn.distributions.kl import _kl_expfamily_expfamily as lkl
    from torch.distributions.kl import _kl_expfamily_expfamily as tkl
    lq, _ = build(name, litnn); tq, _ = build(name, torch)
    lq, tq = lq.expand(ld.batch_shape), tq.expand(td.batch_shape)
    close(attempt(lambda: lkl(ld, lq)), attempt(lambda: tkl(td, tq)), 1e-10)


def test_cross_family_kl_error_matches_torch():
    f = lambda D, lib: D.kl_divergence(D.Normal(0., 1.), D.Poisson(1.))
    assert err(f, LD, litnn) == err(f, TD, torch)
    assert not isinstance(LD.Binomial(3, 0.5), LD.ExponentialFamily) and not isinstance(LD.Categorical(litnn.ones(2)), LD.ExponentialFamily)


# The same seed gives torch's samples: every distribution draws through the primitives torch's draws through (normal_,
# rand, uniform_, exponential_, cauchy_, bernoulli, multinomial, poisson, binomial, the gamma sampler), which follow its stream.
def _seeded(L):
    D, t = L.distributions, (lambda *v: L.tensor(list(v)))
    return {'Normal': lambda: D.Normal(t(0., 1.), t(1., 2.)), 'Normal64': lambda: D.Normal(L.zeros(3, dtype=L.float64), 1.),
            'Uniform': lambda: D.Uniform(t(0., 1.), t(1., 3.)), 'Bernoulli': lambda: D.Bernoulli(t(.3, .7)),
            'Categorical': lambda: D.Categorical(t(.2, .3, .5)), 'OneHot': lambda: D.OneHotCategorical(t(.2, .8)),
            'Multinomial': lambda: D.Multinomial(5, t(.2, .8)), 'Cauchy': lambda: D.Cauchy(t(0.), t(1.)),
            'HalfCauchy': lambda: D.HalfCauchy(t(1.)), 'Exponential': lambda: D.Exponential(t(1., 2.)),
            'Geometric': lambda: D.Geometric(t(.3, .6)), 'Gumbel': lambda: D.Gumbel(t(0.), t(1.)), 'HalfNormal': lambda: D.HalfNormal(t(1.)),
            'MVN': lambda: D.MultivariateNormal(L.zeros(2), L.eye(2)), 'VonMises': lambda: D.VonMises(t(0.), t(1.)),
            'LowRankMVN': lambda: D.LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), L.ones(2)),
            'RelaxedBernoulli': lambda: D.RelaxedBernoulli(t(.5), probs=t(.3)), 'Kumaraswamy': lambda: D.Kumaraswamy(t(2.), t(3.)),
            'Weibull': lambda: D.Weibull(t(1.), t(2.)), 'Pareto': lambda: D.Pareto(t(1.), t(2.)), 'Laplace': lambda: D.Laplace(t(0., 1.), t(1., 2.)),
            'MixtureSameFamily': lambda: D.MixtureSameFamily(D.Categorical(t(.5, .5)), D.Normal(t(0., 1.), t(1., 1.))),
            'Gamma': lambda: D.Gamma(t(0.3, 2.), t(1., 3.)), 'Chi2': lambda: D.Chi2(t(3.)), 'Beta': lambda: D.Beta(t(2., .5), t(3., .7)),
            'Dirichlet': lambda: D.Dirichlet(t(1., 2., 0.4)), 'StudentT': lambda: D.StudentT(t(3.)), 'Poisson': lambda: D.Poisson(t(3., 25.)),
            'Binomial': lambda: D.Binomial(10, t(.3, .8)), 'NegativeBinomial': lambda: D.NegativeBinomial(t(3.), t(.4)),
            'FisherSnedecor': lambda: D.FisherSnedecor(t(3.), t(4.)), 'InverseGamma': lambda: D.InverseGamma(t(2.), t(1.)),
            'LKJCholesky': lambda: D.LKJCholesky(3, 1.5), 'Wishart': lambda: D.Wishart(L.tensor(3.), L.eye(2)),
            'Dirichlet64': lambda: D.Dirichlet(L.tensor([0.5, 1.5], dtype=L.float64))}

@pytest.mark.parametrize('name', list(_seeded(litnn)))
def test_seeded_samples_match_torch(name):
    out = []
    for L in (litnn, torch):
        d = _seeded(L)[name]()
        L.manual_seed(0)
        out.append(np.array(d.sample((4,)).double().tolist()))
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)   # (transcendentals may differ by an ulp: log1p, tan)


def test_parameter_dtype_and_invalid_parameter_sampling_as_torch():
    v = np.array(2.0)
    for L in (litnn, torch):    # Gamma casts a tensor value to its parameters' dtype; HalfNormal does not; HalfCauchy does
        D = L.distributions
        assert D.Gamma(1.5, 2.).log_prob(L.tensor(v)).dtype == L.float32
        assert D.HalfNormal(0.5).log_prob(L.tensor(v)).dtype == L.float64
        assert D.HalfCauchy(0.5).log_prob(L.tensor(v)).dtype == L.float32
    m = [L.distributions.Beta(L.tensor([0.5, 0.3, 2.]), L.tensor([0.2, 0.6, 3.])).mode.tolist() for L in (litnn, torch)]
    np.testing.assert_allclose(m[0], m[1])                 # all α < 1: torch's Dirichlet mode is the first vertex
    tiny = float(np.finfo(np.float32).tiny)
    for L in (litnn, torch):    # a concentration <= 0 or NaN (validate_args off) samples tiny, not an error
        g = L.distributions.Gamma(L.tensor([-1., 0., math.nan]), 1., validate_args=False).sample()
        assert g.tolist() == [tiny] * 3
        x = L.distributions.Dirichlet(L.tensor([-1., 2., 1.]), validate_args=False).sample()
        assert x[0].item() == tiny and abs(x.sum().item() - 1) < 1e-6
    for L in (litnn, torch):    # a negative scale (validate_args off): sample refuses as torch.normal does; rsample does not check
        d = L.distributions.Normal(L.zeros(2), L.tensor([1., -1.]), validate_args=False)
        with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"): d.sample()
        with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
            L.distributions.Categorical(L.tensor([0.5, -0.2, 0.7]), validate_args=False).sample()
        with pytest.raises(RuntimeError, match=r"Expected p_in >= 0 && p_in <= 1 to be true"):
            L.distributions.Bernoulli(probs=L.tensor([0.5, 1.5]), validate_args=False).sample()


def test_a_scalar_von_mises_sample_is_a_tensor_that_prints_as_torch():
    # numpy answers a 0-d computation with a scalar: the sample must stay a 0-d tensor (item(), format, print)
    for lib in (litnn, torch):
        D = lib.distributions
        for loc, k, shape in [(lib.tensor(1.0), lib.tensor(10.0), ()), (0.5, 2.0, ()), (lib.tensor(1.0), lib.tensor(10.0), (3,))]:
            s = D.VonMises(loc, k).sample(shape)
            assert tuple(s.shape) == shape and str(s.dtype).endswith('float32')
            if not shape:
                assert isinstance(s.item(), float) and -math.pi <= s.item() <= math.pi
                assert f"{s}" == format(s.item()) and f"{s:.3f}" == format(s.item(), '.3f')


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_dirichlet_grad_is_torchs_in_every_regime(dtype):
    """_dirichlet_grad (torch._dirichlet_grad, the Beta marginal's reparameterized gradient) by aten's four approximations:
    x near 0, x near 1, both parameters past 6, the rational correction; float32 rounds as aten's float kernel does."""
    from litnn.distributions.dirichlet import _dirichlet_grad
    r = np.random.default_rng(3)
    a = np.exp(r.uniform(np.log(0.01), np.log(200), 4000)); b = np.exp(r.uniform(np.log(0.01), np.log(200), 4000))
    x = np.clip(r.beta(a, b), 1e-30, 1 - 1e-7)
    x, a, t = (v.astype(dtype) for v in (x, a, a + b))
    got = _dirichlet_grad(litnn.tensor(x), litnn.tensor(a), litnn.tensor(t)).numpy()
    want = torch._dirichlet_grad(torch.tensor(x), torch.tensor(a), torch.tensor(t)).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == 'float64' else 1e-4, atol=0)


def test_dirichlet_and_beta_rsample_gradients_are_torchs_per_sample():
    """As torch, Dirichlet.rsample's backward is _Dirichlet_backward (not the gamma draws' gradients through their normalisation):
    a seed gives torch's samples and, sample by sample, torch's gradients wrt the concentrations (Beta through its Dirichlet)."""
    from litnn.distributions.dirichlet import _Dirichlet_backward as lback
    from torch.distributions.dirichlet import _Dirichlet_backward as tback
    out = []
    for lib in (litnn, torch):
        lib.manual_seed(5)
        res = []
        for dt in (lib.float32, lib.float64):
            a = lib.tensor([[0.3, 1.5, 7.], [10., 20., 0.05]], dtype=dt, requires_grad=True)
            x = lib.distributions.Dirichlet(a).rsample((4,))
            (x * lib.arange(3.).to(dt)).sum().backward()
            c1, c0 = lib.tensor([0.01, 2., 30.], dtype=dt, requires_grad=True), lib.tensor([3., 0.2, 40.], dtype=dt, requires_grad=True)
            y = lib.distributions.Beta(c1, c0).rsample((3,))
            y.sum().backward()
            res += [x.detach().numpy(), a.grad.numpy(), y.detach().numpy(), c1.grad.numpy(), c0.grad.numpy()]
        out.append(res)
    for l, t in zip(*out):
        assert l.dtype == t.dtype
        np.testing.assert_allclose(l, t, rtol=1e-12 if l.dtype == np.float64 else 1e-5, atol=1e-30)
    x, c, g = (np.array(v) for v in ([[0.2, 0.3, 0.5]], [[0.5, 1., 2.]], [[1., 0., -1.]]))
    np.testing.assert_allclose(lback(litnn.tensor(x), litnn.tensor(c), litnn.tensor(g)).numpy(),
                               tback(torch.tensor(x), torch.tensor(c), torch.tensor(g)).numpy(), rtol=1e-12)


def test_star_import_names_as_torch():
    "test_distributions.py imports its names from torch.distributions: `__all__` (what `import *` gives) is torch's list, submodules left out"
    assert sorted(litnn.distributions.__all__) == sorted(torch.distributions.__all__)
    lns, tns = {}, {}
    exec('from litnn.distributions import *', lns)
    exec('from torch.distributions import *', tns)
    assert sorted(k for k in lns if k != '__builtins__') == sorted(k for k in tns if k != '__builtins__')

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

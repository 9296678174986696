"""The structured constraints and transforms (nbs/33z_structured_constraints, reference/distributions/transforms_structured) and the
constraint registries (reference/distributions/constraint_registry) side by side with torch 2.13:
forward, inverse, log_abs_det_jacobian and their gradients (float64 and float32), shapes, domains, reprs, checks and errors."""
import math

import numpy as np
import pytest

import litnn
from nn_pairs import err, norm

torch = pytest.importorskip('torch')
LD, TD = litnn.distributions, torch.distributions
rng = np.random.default_rng(5)


def spd(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# name: (make(D), x as a numpy array)
TRANSFORMS = {
    'Softmax': (lambda D: D.SoftmaxTransform(), rng.uniform(-2, 2, (3, 4))),
    'StickBreaking': (lambda D: D.StickBreakingTransform(), rng.uniform(-2, 2, (3, 4))),
    'LowerCholesky': (lambda D: D.LowerCholeskyTransform(), rng.uniform(-1, 1, (2, 3, 3))),
    'PositiveDefinite': (lambda D: D.PositiveDefiniteTransform(), rng.uniform(-1, 1, (2, 3, 3))),
    'CorrCholesky': (lambda D: D.CorrCholeskyTransform(), rng.uniform(-2, 2, (2, 6))),
    'Reshape': (lambda D: D.ReshapeTransform((2, 3), (3, 2)), rng.uniform(-1, 1, (4, 2, 3))),
    'Cat': (lambda D: D.CatTransform([D.ExpTransform(), D.AffineTransform(1., -2.), D.SigmoidTransform()], dim=1, lengths=[1, 2, 1]),
            rng.uniform(-1, 1, (3, 4))),
    'CatEvent': (lambda D: D.CatTransform([D.ExpTransform(), D.transforms.IndependentTransform(D.SigmoidTransform(), 1)], dim=0, lengths=[2, 1]),
                 rng.uniform(-1, 1, (3, 4))),
    'Stack': (lambda D: D.StackTransform([D.ExpTransform(), D.TanhTransform(), D.AffineTransform(0.5, 3.)], dim=-1), rng.uniform(-1, 1, (4, 3))),
    'CDF': (lambda D: D.CumulativeDistributionTransform(D.Normal(0.5, 2.)), rng.uniform(-2, 2, (3, 4))),
    'CDFInverse': (lambda D: D.CumulativeDistributionTransform(D.Laplace(0.5, 2.)).inv, rng.uniform(0.05, 0.95, (3, 4))),
}


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('name', list(TRANSFORMS))
def test_transforms_match_torch(name, dtype):
    make, x = TRANSFORMS[name]
    x = x.astype(dtype)
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-6)
    lt, tt = make(LD), make(TD)
    xl, xt = litnn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yl, yt = lt(xl), tt(xt)
    assert yl.dtype == xl.dtype
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), **tol)
    w = rng.standard_normal(tuple(yt.shape)).astype(dtype)
    loss_l, loss_t = (yl * litnn.tensor(w)).sum(), (yt * torch.tensor(w)).sum()
    np.testing.assert_allclose(lt.inv(yl).detach().numpy(), tt.inv(yt).detach().numpy(), **tol)
    try: jt = tt.log_abs_det_jacobian(xt, yt)
    except NotImplementedError:
        with pytest.raises(NotImplementedError): lt.log_abs_det_jacobian(xl, yl)
    else:
        jl = lt.log_abs_det_jacobian(xl, yl)
        np.testing.assert_allclose(jl.detach().numpy(), jt.detach().numpy(), **tol)
        loss_l, loss_t = loss_l + jl.sum(), loss_t + jt.sum()
    loss_l.backward(); loss_t.backward()
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=tol['rtol'] * 10, atol=tol['atol'] * 10)
    assert lt.bijective == tt.bijective and repr(lt) == norm(repr(tt))
    assert lt.domain.event_dim == tt.domain.event_dim and lt.codomain.event_dim == tt.codomain.event_dim
    assert repr(lt.domain) == norm(repr(tt.domain)) and repr(lt.codomain) == norm(repr(tt.codomain))
    assert tuple(lt.forward_shape(x.shape)) == tuple(tt.forward_shape(x.shape))
    assert tuple(lt.inverse_shape(tuple(yt.shape))) == tuple(tt.inverse_shape(tuple(yt.shape)))
    lc, tc = outcome(lambda: lt.codomain.check(yl)), outcome(lambda: tt.codomain.check(yt))
    assert lc[0] == tc[0] and np.array_equal(lc[1], tc[1])      # (a cat of checks with different event dims fails in both)
    cached = lt.with_cache(1)
    assert cached(xl) is cached(xl)


def outcome(f):
    "f()'s result as ('value', numpy array) or ('raises', exception type)."
    try: return 'value', f().numpy()
    except Exception as e: return 'raises', type(e).__name__


def test_transforms_are_in_torchs_namespaces():
    for n in TD.transforms.__all__:
        assert hasattr(LD.transforms, n) and hasattr(LD, n), n
        assert getattr(LD.transforms, n) is getattr(LD, n)
    assert set(TD.transforms.__all__) <= set(LD.transforms.__all__)
    assert set(TD.constraints.__all__) <= set(LD.constraints.__all__)
    for n in TD.constraints.__all__: assert hasattr(LD.constraints, n), n
    for n in ('biject_to', 'transform_to', 'MixtureSameFamily', 'RelaxedBernoulli', 'RelaxedOneHotCategorical', 'OneHotCategoricalStraightThrough',
              'LowRankMultivariateNormal', 'InverseGamma', 'Kumaraswamy', 'LogisticNormal', 'FisherSnedecor', 'ContinuousBernoulli', 'VonMises'):
        assert n in TD.__all__ and hasattr(LD, n), n


def test_tril_vec_helpers_match_torch():
    from torch.distributions.utils import tril_matrix_to_vec as ttv, vec_to_tril_matrix as tvt
    from litnn.distributions.utils import tril_matrix_to_vec as ltv, vec_to_tril_matrix as lvt
    m = rng.standard_normal((2, 4, 4))
    for diag in (-2, -1, 0, 1):
        v = ttv(torch.tensor(m), diag)
        np.testing.assert_array_equal(ltv(litnn.tensor(m), diag).numpy(), v.numpy())
        np.testing.assert_array_equal(lvt(litnn.tensor(v.numpy()), diag).numpy(), tvt(v, diag).numpy())
    assert err(ltv, litnn.tensor(m), 4) == err(ttv, torch.tensor(m), 4)
    assert err(lvt, litnn.zeros(5), -1) == err(tvt, torch.zeros(5), -1)


def test_corr_cholesky_gives_correlation_matrices():
    t = LD.CorrCholeskyTransform()
    L = t(litnn.tensor(rng.standard_normal((5, 10))))
    C = (L @ L.mT).numpy()
    np.testing.assert_allclose(np.diagonal(C, axis1=-2, axis2=-1), 1., rtol=1e-12)
    assert (np.linalg.eigvalsh(C) > 0).all() and LD.constraints.corr_cholesky.check(L).all()


def test_stick_breaking_jacobian_by_finite_differences():
    "log|det J| of ℝ^K → the first K coordinates of the simplex, against numerical differentiation."
    t = LD.StickBreakingTransform()
    x = rng.standard_normal(4)
    J = litnn.autograd.functional.jacobian(lambda a: t(a)[:-1], litnn.tensor(x)).numpy()
    jl = t.log_abs_det_jacobian(litnn.tensor(x), t(litnn.tensor(x))).item()
    assert jl == pytest.approx(np.linalg.slogdet(J)[1], rel=1e-10)


def test_structured_constraints_match_torch():
    # no matrix whose smallest eigenvalue is a rounding error (np.ones((3, 3)): -6e-16 here, maybe +1e-17 on another CPU)
    m = np.stack([spd(3), -spd(3), np.linalg.cholesky(spd(3)), np.zeros((3, 3)), np.array([[1., 2, 0], [2, 1, 0], [0, 0, 1]])])
    for name in ['positive_semidefinite', 'corr_cholesky']:
        a, b = getattr(LD.constraints, name).check(litnn.tensor(m)), getattr(TD.constraints, name).check(torch.tensor(m))
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
        assert getattr(LD.constraints, name).event_dim == getattr(TD.constraints, name).event_dim
        assert repr(getattr(LD.constraints, name)) == repr(getattr(TD.constraints, name))
    L = TD.CorrCholeskyTransform()(torch.randn(4, 3, dtype=torch.float64))
    np.testing.assert_array_equal(LD.constraints.corr_cholesky.check(litnn.tensor(L.numpy())).numpy(), TD.constraints.corr_cholesky.check(L).numpy())
    c = np.array([[1., 2.], [3., 1.], [-1., 1.], [0., 0.]])
    np.testing.assert_array_equal(LD.constraints.multinomial(3).check(litnn.tensor(c)).numpy(), TD.constraints.multinomial(3).check(torch.tensor(c)).numpy())
    x = rng.uniform(-1, 2, (3, 4))
    for make in [lambda D: D.constraints.cat([D.constraints.positive, D.constraints.unit_interval], 1, [3, 1]),
                 lambda D: D.constraints.cat([D.constraints.real, D.constraints.positive], 0, [1, 2]),
                 lambda D: D.constraints.stack([D.constraints.positive, D.constraints.real, D.constraints.unit_interval, D.constraints.real], -1),
                 lambda D: D.constraints.stack([D.constraints.positive, D.constraints.unit_interval, D.constraints.real], 0)]:
        lc, tc = make(LD), make(TD)
        np.testing.assert_array_equal(lc.check(litnn.tensor(x)).numpy(), tc.check(torch.tensor(x)).numpy())
        assert lc.event_dim == tc.event_dim and lc.is_discrete == tc.is_discrete


def test_power_transform_sign_and_shapes_as_torch():
    "The exponent is held as a tensor (a number too): its sign is a tensor, the shapes broadcast with it."
    for make in [lambda lib: -1.5, lambda lib: 2, lambda lib: lib.tensor([2., -0.5])]:
        lt, tt = LD.PowerTransform(make(litnn)), TD.PowerTransform(make(torch))
        np.testing.assert_array_equal(lt.sign.numpy(), tt.sign.numpy())
        assert lt.sign.dtype == litnn.float32 and tt.sign.dtype == torch.float32
        for shape in [(), (3, 1), (4, 2)]:
            assert lt.forward_shape(shape) == tt.forward_shape(shape) and type(lt.forward_shape(shape)) is litnn.Size
            assert lt.inverse_shape(shape) == tt.inverse_shape(shape)
        assert lt == LD.PowerTransform(make(litnn)) and lt != LD.PowerTransform(3.)


def test_cholesky_constraints_on_non_square_matrices_as_torch():
    x = rng.uniform(0.1, 1, (2, 3, 4))
    for name in ['lower_cholesky', 'corr_cholesky', 'lower_triangular']:
        for a in [x, np.tril(x), np.tril(x).transpose(0, 2, 1)]:
            lc, tc = getattr(LD.constraints, name).check(litnn.tensor(a)), getattr(TD.constraints, name).check(torch.tensor(a))
            np.testing.assert_array_equal(lc.numpy(), tc.numpy(), err_msg=name)


def test_integer_bound_constraints_as_torch():
    x = np.array([-1., 0., 1.5, 2., 3., 4.])
    for make in [lambda C: C._IntegerLessThan(3), lambda C: C._IntegerGreaterThan(1), lambda C: C.integer_interval(0, 3)]:
        lc, tc = make(LD.constraints), make(TD.constraints)
        np.testing.assert_array_equal(lc.check(litnn.tensor(x)).numpy(), tc.check(torch.tensor(x)).numpy())
        assert repr(lc) == repr(tc) and lc.is_discrete is tc.is_discrete is True and lc.event_dim == tc.event_dim


def both(f):
    return err(f, LD, litnn), err(f, TD, torch)


@pytest.mark.parametrize('f', [
    lambda D, lib: D.ReshapeTransform((2, 3), (5,)),
    lambda D, lib: D.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2)),
    lambda D, lib: D.ReshapeTransform((2, 3), (6,)).inverse_shape((3,)),
    lambda D, lib: D.ReshapeTransform((2, 3), (6,)).forward_shape((3,)),
    lambda D, lib: D.SoftmaxTransform().forward_shape(()),
    lambda D, lib: D.StickBreakingTransform().inverse_shape(()),
    lambda D, lib: D.CorrCholeskyTransform().forward_shape((4,)),
    lambda D, lib: D.CorrCholeskyTransform().inverse_shape((3, 2)),
    lambda D, lib: D.CorrCholeskyTransform().inverse_shape((3,)),
    lambda D, lib: D.CatTransform([D.ExpTransform(), 1]),
    lambda D, lib: D.CatTransform([D.ExpTransform()], lengths=[1, 2]),
    lambda D, lib: D.CatTransform([D.ExpTransform(), D.ExpTransform()], dim=-1)(lib.zeros(3)),
    lambda D, lib: D.CatTransform([D.ExpTransform(), D.ExpTransform()], dim=2)(lib.zeros(2)),
    lambda D, lib: D.CatTransform([D.ExpTransform(), D.ExpTransform()], dim=-1).inv(lib.zeros(3)),
    lambda D, lib: D.CatTransform([D.ExpTransform(), D.ExpTransform()], dim=-1).log_abs_det_jacobian(lib.zeros(3), lib.zeros(2)),
    lambda D, lib: D.CatTransform([D.ExpTransform(), D.ExpTransform()], dim=-1).log_abs_det_jacobian(lib.zeros(2), lib.zeros(3)),
    lambda D, lib: D.StackTransform([D.ExpTransform(), 'exp']),
    lambda D, lib: D.StackTransform([D.ExpTransform(), D.ExpTransform()], dim=-1)(lib.zeros(3)),
    lambda D, lib: D.StackTransform([D.ExpTransform(), D.ExpTransform()], dim=1)(lib.zeros(2)),
    lambda D, lib: D.StackTransform([D.ExpTransform(), D.ExpTransform()], dim=-1).inv(lib.zeros(3)),
    lambda D, lib: D.StackTransform([D.ExpTransform(), D.ExpTransform()], dim=-1).log_abs_det_jacobian(lib.zeros(3), lib.zeros(2)),
    lambda D, lib: D.StackTransform([D.ExpTransform(), D.ExpTransform()], dim=-1).log_abs_det_jacobian(lib.zeros(2), lib.zeros(3)),
    lambda D, lib: D.SoftmaxTransform().log_abs_det_jacobian(lib.zeros(2), lib.zeros(2)),
    lambda D, lib: D.constraints.cat([D.constraints.real, 2]),
    lambda D, lib: D.constraints.cat([D.constraints.real], 0, [1, 2]),
    lambda D, lib: D.constraints.cat([D.constraints.real], 1).check(lib.zeros(2)),
    lambda D, lib: D.constraints.stack([D.constraints.real, None]),
    lambda D, lib: D.constraints.stack([D.constraints.real], -2).check(lib.zeros(2)),
    lambda D, lib: D.TransformedDistribution(D.Normal(lib.zeros(3), 1.), D.ReshapeTransform((2,), (2,))),
])
def test_errors_match_torch(f):
    l, t = both(f)
    assert l == t


# --- biject_to and transform_to (nbs/33zb_constraint_registry) ---------------------------------------------------

REGISTRY_CASES = [  # (constraint(D), shape of an unconstrained input)
    (lambda D: D.constraints.real, (3,)), (lambda D: D.constraints.positive, (3,)), (lambda D: D.constraints.nonnegative, (3,)),
    (lambda D: D.constraints.greater_than(2.), (3,)), (lambda D: D.constraints.greater_than_eq(-1.), (3,)),
    (lambda D: D.constraints.less_than(1.5), (3,)), (lambda D: D.constraints.unit_interval, (3,)),
    (lambda D: D.constraints.interval(-2., 3.), (3,)), (lambda D: D.constraints.half_open_interval(0., 1.), (3,)),
    (lambda D: D.constraints.simplex, (2, 3)), (lambda D: D.constraints.real_vector, (2, 3)),
    (lambda D: D.constraints.independent(D.constraints.positive, 2), (2, 3)), (lambda D: D.constraints.corr_cholesky, (2, 6)),
    (lambda D: D.constraints.lower_cholesky, (2, 3, 3)), (lambda D: D.constraints.positive_definite, (2, 3, 3)),
    (lambda D: D.constraints.positive_semidefinite, (3, 3)),
    (lambda D: D.constraints.cat([D.constraints.positive, D.constraints.interval(0., 2.)], -1, [2, 1]), (4, 3)),
    (lambda D: D.constraints.stack([D.constraints.positive, D.constraints.real, D.constraints.unit_interval], -1), (4, 3)),
    (lambda D: D.Uniform(-1., 2.).support, (3,)), (lambda D: D.LogNormal(0., 1.).support, (3,)),
]


@pytest.mark.parametrize('registry', ['biject_to', 'transform_to'])
@pytest.mark.parametrize('case', range(len(REGISTRY_CASES)))
def test_registries_match_torch(registry, case):
    make, shape = REGISTRY_CASES[case]
    lc, tc = make(LD), make(TD)
    lr, tr = getattr(LD, registry), getattr(TD, registry)
    l, t = outcome_t(lambda: lr(lc)), outcome_t(lambda: tr(tc))
    assert (l[0], norm(str(l[1])) if l[0] == 'raises' else None) == (t[0], norm(str(t[1])) if t[0] == 'raises' else None)
    if t[0] == 'raises': return
    lt, tt = l[1], t[1]
    assert repr(lt) == norm(repr(tt)) and type(lt).__name__ == type(tt).__name__
    x = rng.standard_normal(shape)
    xl, xt = litnn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yl, yt = lt(xl), tt(xt)
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert lc.check(yl).all()
    if tt.bijective:
        jl, jt = lt.log_abs_det_jacobian(xl, yl), tt.log_abs_det_jacobian(xt, yt)
        np.testing.assert_allclose(jl.detach().numpy(), jt.detach().numpy(), rtol=1e-10, atol=1e-12)
        (jl.sum() + yl.sum()).backward(); (jt.sum() + yt.sum()).backward()
        np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


def outcome_t(f):
    try: return 'value', f()
    except Exception as e: return 'raises', (type(e).__name__, e.args[0] if e.args else '')


def test_registry_errors_and_custom_registrations():
    class Mine(LD.constraints.Constraint): pass
    class TMine(TD.constraints.Constraint): pass
    l, t = err(LD.biject_to, Mine()), err(TD.biject_to, TMine())
    assert l[0] is t[0] is NotImplementedError and l[1] == "Cannot transform Mine constraints" and t[1] == "Cannot transform TMine constraints"
    assert err(LD.biject_to.register, int, abs) == err(TD.biject_to.register, int, abs)
    assert err(LD.transform_to.register, 'x', abs) == err(TD.transform_to.register, 'x', abs)
    reg = LD.constraint_registry.ConstraintRegistry()
    f = reg.register(Mine)(lambda c: LD.ExpTransform())
    assert reg(Mine()) == LD.ExpTransform() and reg._registry[Mine] is f


needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")


@needs_gpu
@pytest.mark.parametrize('name', list(TRANSFORMS))
def test_cuda_matches_cpu(name):
    "Forward, inverse, log-Jacobian and gradients on CuPy arrays equal the CPU's."
    make, x = TRANSFORMS[name]
    def go(device):
        t = make(LD)
        xl = litnn.tensor(x, device=device, requires_grad=True)
        y = t(xl)
        assert y.device.type == device
        loss = y.sum() + t.inv(y).sum()
        try: loss = loss + t.log_abs_det_jacobian(xl, y).sum()
        except NotImplementedError: pass
        loss.backward()
        return y.detach().cpu().numpy(), xl.grad.cpu().numpy()
    (yc, gc), (yg, gg) = go('cpu'), go('cuda')
    np.testing.assert_allclose(yg, yc, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gg, gc, rtol=1e-8, atol=1e-10)


@needs_gpu
def test_cuda_constraints_and_registry():
    m = litnn.tensor(np.stack([spd(3), -spd(3)]), device='cuda')
    assert LD.constraints.positive_semidefinite.check(m).cpu().tolist() == [True, False]
    u = litnn.tensor(rng.standard_normal((2, 3)), device='cuda')
    assert LD.constraints.simplex.check(LD.biject_to(LD.constraints.simplex)(u)).all().item()


def test_a_transform_pickles_and_saves_after_its_inverse_was_taken_as_torch():
    # log_prob of a TransformedDistribution takes `t.inv`, which keeps a weak reference: Transform.__getstate__ drops it
    import copy, io, pickle
    x = np.linspace(0, 1, 10)
    outs = []
    for lib in (litnn, torch):
        D = lib.distributions
        t = D.ExpTransform(); i = t.inv
        a = D.AffineTransform(2., 3., cache_size=1); a(lib.ones(2)); a.inv
        back = [pickle.loads(pickle.dumps(o)) for o in (t, i, a)] + [copy.deepcopy(t)]
        dist = D.TransformedDistribution(D.Normal(0., 1.), [D.AffineTransform(2., 3.)])
        lp = dist.log_prob(lib.tensor(x))
        buf = io.BytesIO(); lib.save(dist, buf); buf.seek(0)
        other = lib.load(buf, weights_only=False)
        outs.append(([b._inv for b in back], sorted(back[2].__dict__), other.log_prob(lib.tensor(x)).tolist(), lp.tolist()))
    assert outs[0] == outs[1]

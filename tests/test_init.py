"""litnn.nn.init side by side with torch.nn.init: gains, bounds, distribution statistics, in-place and no-grad
behaviour, generators and errors."""
import inspect, math, warnings
import numpy as np
import pytest

import litnn
from litnn.nn import init
from torch_pairs import same_error

torch = pytest.importorskip('torch')
tinit = torch.nn.init

NONLINEARITIES = ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d',
                  'sigmoid', 'tanh', 'relu', 'leaky_relu', 'selu']
PUBLIC = ['calculate_gain', 'uniform_', 'normal_', 'constant_', 'ones_', 'zeros_', 'eye_', 'xavier_uniform_', 'xavier_normal_',
          'kaiming_uniform_', 'kaiming_normal_', 'trunc_normal_', 'orthogonal_', 'dirac_', 'sparse_', '_calculate_fan_in_and_fan_out',
          '_calculate_correct_fan']


def arr(t): return np.asarray(t.tolist(), dtype=np.float64)


@pytest.mark.parametrize('name', PUBLIC)
def test_signatures_match_torch(name):
    "Same parameter names, order and defaults (torch's type annotations aside)."
    def params(f): return [(p.name, p.default, p.kind) for p in inspect.signature(f).parameters.values()]
    assert params(getattr(init, name)) == params(getattr(tinit, name))


@pytest.mark.parametrize('nl', NONLINEARITIES)
def test_calculate_gain_equals_torch(nl):
    assert init.calculate_gain(nl) == tinit.calculate_gain(nl)


@pytest.mark.parametrize('param', [None, 0, 0.2, 1, 3.5, -0.1])
def test_calculate_gain_leaky_relu_param(param):
    assert init.calculate_gain('leaky_relu', param) == tinit.calculate_gain('leaky_relu', param)


@pytest.mark.parametrize('args', [('swish',), ('leaky_relu', True), ('leaky_relu', '0.1'), ('leaky_relu', [0.1])])
def test_calculate_gain_errors(args):
    with pytest.raises(ValueError) as te: tinit.calculate_gain(*args)
    with pytest.raises(ValueError) as le: init.calculate_gain(*args)
    assert str(le.value) == str(te.value)


@pytest.mark.parametrize('shape', [(5, 3), (8, 4, 3, 3), (2, 7, 5), (1, 1)])
def test_fans_equal_torch(shape):
    assert init._calculate_fan_in_and_fan_out(litnn.empty(*shape)) == tinit._calculate_fan_in_and_fan_out(torch.empty(*shape))
    for mode in ('fan_in', 'fan_out', 'FAN_IN'):
        assert init._calculate_correct_fan(litnn.empty(*shape), mode) == tinit._calculate_correct_fan(torch.empty(*shape), mode)


@pytest.mark.parametrize('f', [
    lambda lib, t: lib.nn.init._calculate_fan_in_and_fan_out(t(lib, 5)),
    lambda lib, t: lib.nn.init._calculate_fan_in_and_fan_out(lib.tensor(1.)),
    lambda lib, t: lib.nn.init._calculate_correct_fan(t(lib, 2, 2), 'fan_avg'),
    lambda lib, t: lib.nn.init.xavier_uniform_(t(lib, 5)),
    lambda lib, t: lib.nn.init.kaiming_normal_(t(lib, 5)),
    lambda lib, t: lib.nn.init.kaiming_uniform_(t(lib, 3, 4), mode='fan_avg'),
    lambda lib, t: lib.nn.init.kaiming_uniform_(t(lib, 3, 4), nonlinearity='swish'),
    lambda lib, t: lib.nn.init.eye_(t(lib, 3)),
    lambda lib, t: lib.nn.init.eye_(t(lib, 2, 2, 2)),
    lambda lib, t: lib.nn.init.orthogonal_(t(lib, 4)),
    lambda lib, t: lib.nn.init.dirac_(t(lib, 3, 3)),
    lambda lib, t: lib.nn.init.dirac_(t(lib, 3, 3, 3, 3, 3, 3)),
    lambda lib, t: lib.nn.init.dirac_(t(lib, 5, 3, 3), groups=2),
    lambda lib, t: lib.nn.init.sparse_(t(lib, 3), 0.1),
    lambda lib, t: lib.nn.init.orthogonal_(lib.zeros(3, 3, dtype=lib.long)),     # integers have no normals to draw
    lambda lib, t: lib.nn.init.sparse_(lib.zeros(3, 3, dtype=lib.long), 0.5),
])
def test_errors_same_type_and_message(f):
    def t(lib, *s): return lib.empty(*s)
    with pytest.raises(Exception) as te: f(torch, t)
    with pytest.raises(te.type) as le: f(litnn, t)
    assert str(le.value) == str(te.value)


def run_both(name, shape, *args, **kw):
    "The same initializer on a large litnn and torch tensor: both as float64 numpy arrays."
    lt, tt = litnn.empty(*shape), torch.empty(*shape)
    assert getattr(init, name)(lt, *args, **kw) is lt
    assert getattr(tinit, name)(tt, *args, **kw) is tt
    return arr(lt), tt.double().numpy()


def close_stats(a, b, bounded):
    "Mean, std and quantiles agree to sampling precision; min and max too when the distribution is bounded."
    sd = np.std(b)
    assert abs(np.mean(a) - np.mean(b)) <= 0.02 * sd and abs(np.std(a) - sd) <= 0.02 * sd
    np.testing.assert_allclose(np.quantile(a, [.01, .25, .5, .75, .99]), np.quantile(b, [.01, .25, .5, .75, .99]), atol=0.04 * sd)
    if bounded: np.testing.assert_allclose([a.min(), a.max()], [b.min(), b.max()], atol=0.01 * sd)


@pytest.mark.parametrize('name,shape,args,kw', [
    ('uniform_', (400, 250), (-0.3, 0.7), {}),
    ('normal_', (400, 250), (0.5, 2.0), {}),
    ('xavier_uniform_', (300, 500), (), dict(gain=1.5)),
    ('xavier_normal_', (300, 500), (), {}),
    ('kaiming_uniform_', (300, 100, 3), (), dict(a=math.sqrt(5))),
    ('kaiming_uniform_', (300, 400), (), dict(mode='fan_out', nonlinearity='relu')),
    ('kaiming_normal_', (300, 400), (), dict(nonlinearity='tanh')),
    ('kaiming_normal_', (200, 50, 3, 3), (), dict(a=0.2, mode='fan_out')),
    ('trunc_normal_', (400, 250), (), dict(std=0.02, a=-0.04, b=0.04)),
    ('trunc_normal_', (400, 250), (), dict(mean=1., std=2., a=0., b=3.)),
    ('trunc_normal_', (400, 250), (), dict(mean=0., std=1., a=2., b=3.)),     # narrow: the uniform proposal
])
def test_distributions_match_torch(name, shape, args, kw):
    "100k samples each: the statistics agree with torch's."
    litnn.manual_seed(0); torch.manual_seed(0)
    a, b = run_both(name, shape, *args, **kw)
    close_stats(a, b, bounded='uniform' in name or 'trunc' in name)


def test_uniform_bounds_are_torch_formulas():
    "The exact bounds: xavier a = gain*sqrt(6/(fan_in+fan_out)), kaiming bound = gain*sqrt(3/fan), Linear's 1/sqrt(fan_in)."
    litnn.manual_seed(1)
    w = init.xavier_uniform_(litnn.empty(200, 300), gain=2.)
    bound = 2 * math.sqrt(6 / 500)
    assert np.abs(arr(w)).max() <= bound and np.abs(arr(w)).max() > 0.99 * bound
    w = init.kaiming_uniform_(litnn.empty(64, 32, 3, 3), a=0.1, mode='fan_out', nonlinearity='leaky_relu')
    bound = math.sqrt(2 / (1 + 0.01)) * math.sqrt(3 / (64 * 9))
    assert np.abs(arr(w)).max() <= bound and np.abs(arr(w)).max() > 0.99 * bound
    w = init.kaiming_uniform_(litnn.empty(300, 200), a=math.sqrt(5))
    assert np.abs(arr(w)).max() <= 1 / math.sqrt(200) + 1e-7


def test_trunc_normal_bounds_and_warning():
    w = init.trunc_normal_(litnn.empty(10000), mean=0.5, std=3., a=-1., b=1.)
    assert arr(w).min() >= -1 and arr(w).max() <= 1
    for lib in (torch, litnn):
        with pytest.warns(UserWarning, match="mean is more than 2 std from"): lib.nn.init.trunc_normal_(lib.empty(10), mean=10.)


@pytest.mark.parametrize('shape,groups', [((4, 2, 3, 3), 1), ((6, 4, 3), 2), ((4, 4, 1, 3, 3), 2), ((3, 5, 2, 2), 1), ((2, 2, 4), 1)])
def test_dirac_equals_torch(shape, groups):
    np.testing.assert_array_equal(arr(init.dirac_(litnn.empty(*shape), groups)), tinit.dirac_(torch.empty(*shape), groups).numpy())


@pytest.mark.parametrize('sparsity', [0., 0.1, 0.5, 1.])
def test_sparse_matches_torch(sparsity):
    "Exactly ceil(sparsity * rows) zeros in every column, the rest N(0, std²), as torch's."
    l, t = arr(init.sparse_(litnn.empty(200, 300), sparsity, std=0.5)), tinit.sparse_(torch.empty(200, 300), sparsity, std=0.5).numpy()
    np.testing.assert_array_equal((l == 0).sum(0), (t == 0).sum(0))
    if sparsity < 1: assert abs(l[l != 0].std() - t[t != 0].std()) < 0.02 and abs(l[l != 0].std() - 0.5) < 0.02


def test_orthogonal_matches_torch_properties():
    for shape, gain in [((5, 5), 1.), ((3, 7), 2.), ((7, 3), 0.5), ((4, 2, 3), 1.)]:
        w = arr(init.orthogonal_(litnn.empty(*shape), gain=gain)).reshape(shape[0], -1)
        small = min(w.shape)
        g = w @ w.T if w.shape[0] == small else w.T @ w
        np.testing.assert_allclose(g, gain ** 2 * np.eye(small), atol=1e-5)
    assert init.orthogonal_(litnn.empty(0, 3)).shape == (0, 3)


def test_fills_match_torch():
    for name, args in [('constant_', (0.3,)), ('ones_', ()), ('zeros_', ()), ('eye_', ())]:
        for shape in [(3, 4), (4, 3)] if name == 'eye_' else [(2, 3, 4)]:
            a, b = run_both(name, shape, *args)
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('name,args', [('uniform_', ()), ('normal_', ()), ('constant_', (1.,)), ('ones_', ()), ('zeros_', ()),
                                       ('eye_', ()), ('xavier_uniform_', ()), ('xavier_normal_', ()), ('kaiming_uniform_', ()),
                                       ('kaiming_normal_', ()), ('trunc_normal_', ()), ('orthogonal_', ()), ('sparse_', (0.5,))])
def test_in_place_on_a_parameter_without_graph(name, args):
    "On a leaf that requires grad (where a plain in-place op raises): filled in place, no grad_fn, dtype kept, version bumped."
    p = litnn.nn.Parameter(litnn.zeros(6, 4, dtype=litnn.float64))
    data = p._data
    v = p._version
    out = getattr(init, name)(p, *args)
    assert out is p and p._data is data and p.grad_fn is None and p.requires_grad and p.dtype == litnn.float64
    assert p._version > v
    with pytest.raises(RuntimeError): p.uniform_()        # the guard the no_grad context steps around


def test_generator_makes_draws_reproducible():
    for name in ['uniform_', 'normal_', 'xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_', 'kaiming_normal_', 'trunc_normal_',
                 'orthogonal_', 'sparse_']:
        args = (0.5,) if name == 'sparse_' else ()
        # (sparse_'s permutations come from the default generator even when given one, as torch's: seeded too)
        draws = [(litnn.manual_seed(0), arr(getattr(init, name)(litnn.empty(5, 6), *args, generator=litnn.Generator().manual_seed(7))))[1] for _ in range(2)]
        np.testing.assert_array_equal(*draws)
        litnn.manual_seed(3); a = arr(getattr(init, name)(litnn.empty(5, 6), *args))
        litnn.manual_seed(3); b = arr(getattr(init, name)(litnn.empty(5, 6), *args))
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, draws[0])


def test_zero_element_kaiming_warns_like_torch():
    for lib in (torch, litnn):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert lib.nn.init.kaiming_uniform_(lib.empty(0, 3)).shape == (0, 3)
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            lib.nn.init.kaiming_normal_(lib.empty(3, 0))


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_initializers_on_gpu():
    for name in ['uniform_', 'normal_', 'xavier_uniform_', 'kaiming_normal_', 'trunc_normal_', 'orthogonal_', 'eye_', 'sparse_']:
        w = getattr(init, name)(litnn.empty(20, 30, device='cuda'), *((0.3,) if name == 'sparse_' else ()))
        assert w.device.type == 'cuda' and np.isfinite(arr(w)).all()
    assert init.dirac_(litnn.empty(4, 2, 3, 3, device='cuda')).sum().item() == 2


def test_orthogonal_gain_must_be_a_number():
    f = lambda lib: lib.nn.init.orthogonal_(lib.empty(3, 3), gain='a')
    assert same_error(f) is TypeError
    with pytest.raises(TypeError, match="must be Tensor, not str"): f(litnn)

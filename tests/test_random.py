"""Random sampling (litnn.random, nbs/03f_random): the distributions against their formulas
(every bin or value within 5 standard deviations of its expected count), determinism under
manual_seed and Generator objects, and dtypes, shapes, grad_fn names and errors against torch 2.13.
The CPU streams are torch's (its Mersenne Twister and its samplers): seeded draws are compared number for number
(test_seeded_draws_are_torchs); GPU streams are CuPy's, compared as distributions."""
import math, numpy as np, pytest
import litnn
from api_pairs import torch, same_error, host, DEVICES

N = 200_000

def check_counts(counts, probs, n):
    "Each observed count within 5 sigma (binomial) of n * p."
    counts, probs = np.asarray(counts, float), np.asarray(probs, float)
    sd = np.sqrt(n * probs * (1 - probs))
    assert np.all(np.abs(counts - n * probs) <= 5 * sd + 1), (counts, n * probs)

def check_cdf(samples, cdf, edges):
    "The fraction of samples in each bin between `edges` (and beyond both ends) matches `cdf`."
    s = np.asarray(samples, np.float64).ravel()
    e = np.asarray(edges, np.float64)
    counts = np.histogram(s, np.concatenate([[-np.inf], e, [np.inf]]))[0]
    c = np.array([cdf(v) for v in e])
    check_counts(counts, np.diff(np.concatenate([[0.], c, [1.]])), s.size)

def normal_cdf(x): return 0.5 * (1 + math.erf(x / math.sqrt(2)))
Z_EDGES = np.linspace(-3, 3, 13)

@pytest.mark.parametrize('dev', DEVICES)
def test_multinomial_with_replacement(dev):
    litnn.manual_seed(0)
    p = np.array([[1., 0., 3., 6.], [0.5, 0.5, 0., 0.]])
    s = litnn.multinomial(litnn.tensor(p, device=dev), N, replacement=True)
    assert s.shape == (2, N) and s.dtype == litnn.int64 and s.device.type == litnn.device(dev).type
    for row, pr in zip(host(s), p):
        check_counts(np.bincount(row, minlength=4), pr / pr.sum(), N)
        assert not np.isin(np.flatnonzero(pr == 0), row).any()          # zero weights never drawn
    one = litnn.tensor(p[0], device=dev).multinomial(N, True)
    check_counts(np.bincount(host(one), minlength=4), p[0] / 10, N)

@pytest.mark.parametrize('dev', DEVICES)
def test_multinomial_without_replacement(dev):
    litnn.manual_seed(1)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    n = 50_000
    s = host(litnn.multinomial(litnn.tensor(np.tile(p, (n, 1)), device=dev), 2))
    assert (s[:, 0] != s[:, 1]).all()
    pairs = np.zeros((4, 4)); np.add.at(pairs, (s[:, 0], s[:, 1]), 1)
    expected = np.array([[0 if i == j else p[i] * p[j] / (1 - p[i]) for j in range(4)] for i in range(4)])
    check_counts(pairs.ravel(), expected.ravel(), n)                    # ordered pairs: sequential sampling
    full = host(litnn.multinomial(litnn.tensor([1., 0., 2.], device=dev), 3))
    assert sorted(full) == [0, 1, 2] and full[2] == 1                   # the zero weight comes last, as torch

def test_multinomial_matches_torch_shapes():
    for shape, k, r in [((5,), 3, False), ((2, 5), 4, True), ((3, 2), 7, True)]:
        w = np.random.default_rng(0).random(shape)
        l, t = litnn.multinomial(litnn.tensor(w), k, r), torch.multinomial(torch.tensor(w), k, r)
        assert tuple(l.shape) == tuple(t.shape) and str(t.dtype).endswith(l.dtype.name)

MULTINOMIAL_ERRORS = [lambda L: L.multinomial(L.tensor([1., 2.]), 3), lambda L: L.multinomial(L.tensor([1., -1.]), 1),
                      lambda L: L.multinomial(L.tensor([0., 0.]), 1, True), lambda L: L.multinomial(L.tensor([1, 2]), 1),
                      lambda L: L.multinomial(L.ones(2, 2, 2), 1), lambda L: L.multinomial(L.ones(3), 0),
                      lambda L: L.multinomial(L.tensor([1., float('inf')]), 1), lambda L: L.multinomial(L.tensor([1., float('nan')]), 1),
                      # with replacement, several samples: torch's kernel checks row by row, entries then the row's sum
                      lambda L: L.multinomial(L.tensor([0.2, float('inf'), 0.5]), 3, True), lambda L: L.multinomial(L.tensor([0.2, float('nan'), 0.5]), 3, True),
                      lambda L: L.multinomial(L.tensor([[0., 0.], [0.2, -1.]]), 3, True), lambda L: L.multinomial(L.tensor([[0.2, -1.], [0., 0.]]), 3, True),
                      lambda L: L.multinomial(L.tensor([[0.2, float('inf'), -1.]]), 2, True)]

@pytest.mark.parametrize('f', MULTINOMIAL_ERRORS)
def test_multinomial_errors(f): same_error(f)

@pytest.mark.parametrize('dev', DEVICES)
def test_bernoulli(dev):
    litnn.manual_seed(2)
    p = np.array([0., 0.2, 0.5, 0.9, 1.])
    s = host(litnn.bernoulli(litnn.tensor(np.tile(p, (N // 5, 1)), device=dev)))
    check_counts(s.sum(0), p, N // 5)
    assert set(np.unique(s)) <= {0., 1.}
    s = host(litnn.bernoulli(litnn.zeros(N, device=dev), 0.3))
    check_counts([s.sum()], [0.3], N)
    s = host(litnn.empty(N, device=dev).bernoulli_(litnn.full((N,), 0.7, device=dev)))
    check_counts([s.sum()], [0.7], N)
    s = host(litnn.empty(N, dtype=litnn.int64, device=dev).bernoulli_())
    assert s.dtype == np.int64
    check_counts([s.sum()], [0.5], N)

@pytest.mark.parametrize('dev', DEVICES)
def test_normal_overloads(dev):
    litnn.manual_seed(3)
    mean, std = np.array([-2., 0., 5.]), np.array([0.5, 1., 3.])
    m, s = litnn.tensor(np.tile(mean, (N // 3, 1)), device=dev), litnn.tensor(std, device=dev)
    for out, mu, sd in [(litnn.normal(m, s), mean, std), (litnn.normal(m, 2.), mean, 2.), (litnn.normal(1.5, s.expand(N // 3, 3)), 1.5, std)]:
        z = (host(out) - mu) / sd
        check_cdf(z, normal_cdf, Z_EDGES)
    z = (host(litnn.normal(4., 2., size=(N,), device=dev)) - 4.) / 2.
    check_cdf(z, normal_cdf, Z_EDGES)
    z = host(litnn.empty(N, dtype=litnn.float64, device=dev).normal_(1., 3.))
    check_cdf((z - 1.) / 3., normal_cdf, Z_EDGES)

def test_normal_against_torch():
    cases = [lambda L: L.normal(L.zeros(2, 1), L.ones(3)), lambda L: L.normal(L.zeros(2, dtype=L.float64), 1.),
             lambda L: L.normal(0., L.ones(4)), lambda L: L.normal(L.zeros(2, dtype=L.float64), L.ones(2)),
             lambda L: L.normal(2., 3., size=(2, 3)), lambda L: L.normal(2., 3., (2,), dtype=L.float64),
             lambda L: L.normal(0., 1., size=(2,), requires_grad=True)]
    for f in cases:
        l, t = f(litnn), f(torch)
        assert (tuple(l.shape), l.dtype.name, l.requires_grad) == (tuple(t.shape), str(t.dtype)[6:], t.requires_grad)

def test_zero_gradients_and_nodes():
    for f in [lambda L, m: L.normal(m, 1.), lambda L, m: L.normal(0., m + 1), lambda L, m: L.normal(m, m + 1),
              lambda L, m: L.bernoulli(m.sigmoid()), lambda L, m: L.poisson(m.exp())]:
        lm, tm = litnn.zeros(3, requires_grad=True), torch.zeros(3, requires_grad=True)
        l, t = f(litnn, lm), f(torch, tm)
        assert type(l.grad_fn).__name__ == type(t.grad_fn).__name__
        l.sum().backward(); t.sum().backward()
        np.testing.assert_array_equal(host(lm.grad), host(tm.grad))
    for name, args in [('random_', ()), ('random_', (5,)), ('random_', (1, 5)), ('exponential_', ()), ('geometric_', (0.3,)),
                       ('log_normal_', ()), ('cauchy_', ()), ('bernoulli_', (0.3,)), ('uniform_', ()), ('normal_', ())]:
        l = getattr(litnn.zeros(3, requires_grad=True).clone(), name)(*args)
        t = getattr(torch.zeros(3, requires_grad=True).clone(), name)(*args)
        assert type(l.grad_fn).__name__ == type(t.grad_fn).__name__
    l = litnn.zeros(3, requires_grad=True).clone().bernoulli_(litnn.full((3,), 0.3))
    assert type(l.grad_fn).__name__ == type(torch.zeros(3, requires_grad=True).clone().bernoulli_(torch.full((3,), 0.3)).grad_fn).__name__

@pytest.mark.parametrize('dev', DEVICES)
def test_poisson(dev):
    litnn.manual_seed(4)
    for rate in (0.5, 4.0, 30.0):
        s = host(litnn.poisson(litnn.full((N,), rate, dtype=litnn.float64, device=dev))).astype(int)
        k = np.arange(int(rate * 3 + 10))
        pmf = np.array([math.exp(-rate + i * math.log(rate) - math.lgamma(i + 1)) for i in k])
        check_counts(np.bincount(s, minlength=len(k))[:len(k)], pmf, N)
    assert litnn.poisson(litnn.ones(2, dtype=litnn.float16)).dtype == litnn.float16

@pytest.mark.parametrize('dev', DEVICES)
def test_continuous_in_place(dev):
    litnn.manual_seed(5)
    x = litnn.empty(N, dtype=litnn.float64, device=dev)
    check_cdf(host(x.exponential_(2.)), lambda v: 0. if v < 0 else 1 - math.exp(-2 * v), np.linspace(0, 3, 13))
    check_cdf(host(x.log_normal_(1., 0.5)), lambda v: 0. if v <= 0 else normal_cdf((math.log(v) - 1) / 0.5), np.exp(1 + 0.5 * Z_EDGES))
    check_cdf(host(x.cauchy_(3., 2.)), lambda v: 0.5 + math.atan((v - 3) / 2) / math.pi, np.linspace(-20, 26, 15))
    s = host(x.geometric_(0.3)).astype(int)
    assert s.min() >= 1
    k = np.arange(1, 25)
    check_counts(np.bincount(s, minlength=25)[1:25], 0.3 * 0.7 ** (k - 1), N)
    s = host(litnn.empty(N, dtype=litnn.float32, device=dev).uniform_(-1, 3))
    check_cdf(s, lambda v: min(max((v + 1) / 4, 0.), 1.), np.linspace(-1, 3, 9))

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'int8', 'uint8', 'int32', 'int64', 'bool'])
def test_random_(dtype):
    litnn.manual_seed(6)
    d = getattr(litnn, dtype)
    if dtype != 'bool':                       # bool holds only 0 and 1 (random_(1, 6) is refused, as in torch)
        s = host(litnn.empty(N, dtype=d).random_(1, 6)).astype(np.int64)
        check_counts(np.bincount(s, minlength=6), [0] + [0.2] * 5, N)
    s = host(litnn.empty(N, dtype=d).random_(2)).astype(np.int64)
    check_counts(np.bincount(s, minlength=2), [0.5, 0.5], N)
    s = host(litnn.empty(N, dtype=d).random_()).astype(np.float64)
    top = {'float32': 2 ** 24, 'float64': 2 ** 53, 'float16': 2 ** 11, 'bool': 1}.get(dtype) or np.iinfo(dtype).max
    assert s.min() >= 0 and s.max() <= top
    sd = (top + 1) / math.sqrt(12 * N)
    assert abs(s.mean() - top / 2) < 5 * sd            # uniform over [0, top]
    t = torch.empty(1000, dtype=getattr(torch, dtype)).random_()   # torch's range agrees
    assert host(t).astype(np.float64).max() <= top

def test_random_signed_range():
    s = host(litnn.empty(N, dtype=litnn.int64).random_(-5, -2))
    check_counts(np.bincount(s + 5, minlength=3), [1 / 3] * 3, N)

IN_PLACE_ERRORS = [lambda L: L.zeros(2).random_(5, 2), lambda L: L.zeros(2, dtype=L.uint8).random_(300),
                   lambda L: L.zeros(2, dtype=L.uint8).random_(-1, 5), lambda L: L.zeros(2, dtype=L.int8).random_(0, 200), lambda L: L.zeros(2, dtype=L.bool).random_(3),
                   lambda L: L.zeros(2).geometric_(0), lambda L: L.zeros(2).geometric_(1.5),
                   lambda L: L.zeros(2).exponential_(-1), lambda L: L.zeros(2).log_normal_(1, 0), lambda L: L.zeros(2).cauchy_(0, 0),
                   lambda L: L.zeros(2, dtype=L.int64).exponential_(), lambda L: L.zeros(2, dtype=L.int64).cauchy_(),
                   lambda L: L.zeros(2, dtype=L.int64).log_normal_(), lambda L: L.zeros(2, dtype=L.uint8).cauchy_(),
                   lambda L: L.zeros(2).bernoulli_(1.5), lambda L: L.zeros(2).bernoulli_(L.tensor([1.5, 0.])), lambda L: L.poisson(L.tensor([-1.])),
                   lambda L: L.poisson(L.tensor([1, 2])), lambda L: L.bernoulli(L.tensor([1.5])), lambda L: L.bernoulli(L.tensor([1, 0])),
                   lambda L: L.normal(0., -1., size=(2,)), lambda L: L.normal(L.zeros(2), -1.),
                   lambda L: L.normal(L.zeros(2), L.tensor([1., -1.])), lambda L: L.zeros(2, requires_grad=True).exponential_()]

@pytest.mark.parametrize('f', IN_PLACE_ERRORS)
def test_sampler_errors(f): same_error(f)

def test_normal_needs_size(): same_error(lambda L: L.normal(0., 1.), match=False)

SAMPLERS = [lambda g: litnn.multinomial(litnn.tensor([0.2, 0.3, 0.5]), 5, True, generator=g),
            lambda g: litnn.multinomial(litnn.ones(2, 6), 4, generator=g),
            lambda g: litnn.bernoulli(litnn.full((8,), 0.5), generator=g),
            lambda g: litnn.normal(litnn.zeros(4), litnn.ones(4), generator=g),
            lambda g: litnn.normal(0., 1., size=(4,), generator=g),
            lambda g: litnn.poisson(litnn.full((4,), 3.), generator=g),
            lambda g: litnn.empty(5).random_(100, generator=g), lambda g: litnn.empty(5).exponential_(generator=g),
            lambda g: litnn.empty(5).geometric_(0.2, generator=g), lambda g: litnn.empty(5).log_normal_(generator=g),
            lambda g: litnn.empty(5).cauchy_(generator=g), lambda g: litnn.empty(5).bernoulli_(generator=g),
            lambda g: litnn.empty(5).uniform_(generator=g), lambda g: litnn.empty(5).normal_(generator=g),
            lambda g: litnn.rand(4, generator=g), lambda g: litnn.randn(4, generator=g),
            lambda g: litnn.randint(0, 9, (4,), generator=g), lambda g: litnn.randperm(6, generator=g),
            lambda g: litnn.rand_like(litnn.ones(3), generator=g), lambda g: litnn.randn_like(litnn.ones(3), generator=g),
            lambda g: litnn.randint_like(litnn.ones(3), 10, generator=g)]

@pytest.mark.parametrize('draw', SAMPLERS)
def test_determinism(draw):
    litnn.manual_seed(11); a = draw(None).tolist()
    litnn.manual_seed(11); b = draw(None).tolist()
    assert a == b                                         # manual_seed repeats the default stream
    g1, g2 = litnn.Generator().manual_seed(5), litnn.Generator().manual_seed(5)
    litnn.manual_seed(11)
    assert draw(g1).tolist() == draw(g2).tolist()         # equal generators, equal draws
    assert draw(None).tolist() == a                       # and drawing from them left the default stream alone

def test_random_module_names():
    litnn.random.manual_seed(3); a = litnn.rand(3).tolist()
    litnn.manual_seed(3)
    assert litnn.rand(3).tolist() == a and litnn.random.initial_seed() == 3 == torch.random.manual_seed(3).initial_seed()


_SEEDED = {
    'rand': lambda t: t.rand(3, 5), 'rand_float64': lambda t: t.rand(7, dtype=t.float64), 'rand_half': lambda t: t.rand(9, dtype=t.float16),
    'rand_bfloat16': lambda t: t.rand(9, dtype=t.bfloat16), 'randn_small': lambda t: t.randn(3), 'randn_blocks': lambda t: t.randn(5, 7),
    'randn_float64': lambda t: t.randn(40, dtype=t.float64), 'randn_singles_share_pairs': lambda t: t.cat([t.randn(1), t.randn(1), t.randn(3)]),
    'randint': lambda t: t.randint(3, 10, (20,)), 'randint_wide': lambda t: t.randint(0, 2**40, (5,)), 'randint_int32': lambda t: t.randint(7, (6,), dtype=t.int32),
    'randperm': lambda t: t.randperm(50), 'uniform_': lambda t: t.empty(100).uniform_(-2, 3), 'normal_': lambda t: t.empty(40).normal_(2, 0.5),
    'normal_numbers': lambda t: t.normal(2., 3., size=(20,)), 'normal_tensors': lambda t: t.normal(t.arange(20.), t.full((20,), 0.5)),
    'bernoulli_tensor': lambda t: t.bernoulli(t.full((30,), 0.4)), 'bernoulli_float64': lambda t: t.bernoulli(t.full((30,), 0.4, dtype=t.float64)),
    'bernoulli_scalar': lambda t: t.bernoulli(t.zeros(30), 0.4), 'bernoulli_': lambda t: t.empty(30).bernoulli_(0.3),
    'random_': lambda t: t.empty(10, dtype=t.int64).random_(), 'random_float': lambda t: t.empty(10).random_(), 'random_from_to': lambda t: t.empty(10, dtype=t.int64).random_(-5, 5),
    'exponential_': lambda t: t.empty(10).exponential_(2.), 'geometric_': lambda t: t.empty(10).geometric_(0.3),
    'log_normal_': lambda t: t.empty(30).log_normal_(0, 0.5), 'cauchy_': lambda t: t.empty(10).cauchy_(),
    'multinomial_replaced': lambda t: t.multinomial(t.tensor([[0.1, 0.5, 0.4], [1., 1., 1.]]), 7, True),
    'multinomial_unreplaced': lambda t: t.multinomial(t.rand(4, 30), 10), 'multinomial_one': lambda t: t.multinomial(t.tensor([0.2, 0.3, 0.5]), 1),
    'dropout': lambda t: t.nn.functional.dropout(t.ones(40), 0.3),
    'rrelu': lambda t: t.nn.functional.rrelu(t.tensor([-2., 1., float('nan'), -0.5, 0., 3.] * 4), training=True),
    'RReLU_float64': lambda t: t.nn.RReLU(0.1, 0.4)(t.linspace(-2, 2, 30, dtype=t.float64)), 'dropout2d': lambda t: t.nn.functional.dropout2d(t.ones(2, 6, 3, 3), 0.5),
    'alpha_dropout': lambda t: t.nn.functional.alpha_dropout(t.ones(20), 0.3, True),
    'linear_init': lambda t: (lambda m: (m.weight, m.bias))(t.nn.Linear(5, 3)), 'conv_init': lambda t: t.nn.Conv2d(2, 3, 3).weight,
    'conv_transpose_init': lambda t: (lambda m: (m.weight, m.bias))(t.nn.ConvTranspose2d(3, 4, 2)), 'embedding_init': lambda t: t.nn.Embedding(10, 4).weight,
    'lstm_init': lambda t: t.nn.LSTM(3, 4).weight_hh_l0, 'trunc_normal_': lambda t: t.nn.init.trunc_normal_(t.empty(20, 10), std=0.02),
    'trunc_normal_tail': lambda t: t.nn.init.trunc_normal_(t.empty(50), a=1.5, b=3.), 'xavier_normal_': lambda t: t.nn.init.xavier_normal_(t.empty(20, 10)),
    'kaiming_uniform_': lambda t: t.nn.init.kaiming_uniform_(t.empty(6, 4), a=0.1), 'orthogonal_': lambda t: t.nn.init.orthogonal_(t.empty(4, 3)),
    'sparse_': lambda t: t.nn.init.sparse_(t.empty(6, 4), 0.5), 'generator_object': lambda t: t.rand(4, generator=t.Generator().manual_seed(3)),
    'fresh_generator': lambda t: t.randn(20, generator=t.Generator()),
    # a complex tensor's parts drawn as torch draws its view_as_real (normal: each part with std/sqrt(2))
    'randn_complex64': lambda t: t.view_as_real(t.randn(5, dtype=t.complex64)), 'randn_complex128_blocks': lambda t: t.view_as_real(t.randn(20, dtype=t.complex128)),
    'rand_complex': lambda t: t.view_as_real(t.rand(3, 2, dtype=t.complex64)),
    'randn_rand_complex_0d': lambda t: (t.view_as_real(t.randn([], dtype=t.complex64)), t.view_as_real(t.rand((), dtype=t.complex128))),
    'normal_complex': lambda t: t.view_as_real(t.empty(4, dtype=t.complex128).normal_(1., 2.)),
    'uniform_complex': lambda t: t.view_as_real(t.empty(4, dtype=t.complex64).uniform_(-1., 2.)),
    # float16/bfloat16 normals from 16 on: each block of 16 draws its own uniforms, the last block over the last 16 places
    'sparse_generator': lambda t: t.nn.init.sparse_(t.empty(6, 4), 0.5, generator=t.Generator().manual_seed(1)),   # (its randperm: the default's)
    'init_with_generator': lambda t: (lambda g: (t.nn.init.kaiming_uniform_(t.empty(3, 4), generator=g), t.nn.init.trunc_normal_(t.empty(5), generator=g),
                                                 t.nn.init.orthogonal_(t.empty(3, 3), generator=g), t.rand(2, generator=g)))(t.Generator().manual_seed(4)),
    'randn_float16_blocks': lambda t: t.randn(40, dtype=t.float16), 'normal_bfloat16_blocks': lambda t: t.empty(33, dtype=t.bfloat16).normal_(2., 3.),
    # the rejection samplers, element by element (19_random_sampling): each element takes as many words as it needs
    'poisson': lambda t: t.poisson(t.tensor([0.5, 3., 9.99, 10., 40., 0., 1e3] * 5)),
    'poisson_float64': lambda t: t.poisson(t.rand(50, dtype=t.float64) * 30),
    'binomial': lambda t: t.binomial(t.tensor([10., 100., 5., 1e3, 50., 30., 7., 0.]), t.tensor([0.3, 0.5, 0.9, 0.02, 0.7, 0.99, 0.5, 0.5])),
    'binomial_float64': lambda t: t.binomial(t.full((40,), 60., dtype=t.float64), t.rand(40, dtype=t.float64)),
    'gamma': lambda t: t.distributions.Gamma(t.tensor([0.05, 0.5, 1., 2.5, 100.] * 4), 1.).sample(),
    'gamma_float64_then_normal': lambda t: (t.distributions.Gamma(t.rand(30, dtype=t.float64) * 3, 2.).sample(), t.randn(3)),
    'dirichlet_beta_chi2_studentT': lambda t: (t.distributions.Dirichlet(t.tensor([0.3, 1., 4.])).sample((5,)), t.distributions.Beta(2., 3.).sample((4,)),
                                               t.distributions.Chi2(t.tensor([1., 5.])).sample(), t.distributions.StudentT(3.).sample((4,))),
}


@pytest.mark.parametrize('name', _SEEDED)
def test_seeded_draws_are_torchs(name):
    """After the same manual_seed, each sampler gives torch's numbers (to float32's last bit: normals drawn 16 at a
    time may differ there, torch's vectorized log, sin and cos rounding otherwise), and leaves the generator where
    torch's stands (the next draw agrees)."""
    out = []
    for lib in (torch, litnn):
        lib.manual_seed(123)
        r = _SEEDED[name](lib)
        r = r if isinstance(r, tuple) else (r,)
        out.append(([np.asarray(v.detach().double().tolist(), np.float64) for v in r], lib.rand(2).tolist()))
    (t, t_next), (l, l_next) = out
    for a, b in zip(t, l): np.testing.assert_allclose(b, a, rtol=3e-7, atol=1e-7)
    assert l_next == t_next


def test_seeded_training_is_torchs():
    "The README's ten lines: after manual_seed(0), the same initial weights and shuffled batches give torch's run (loss to ~7 digits, same predictions)."
    from litnn.datasets import Digits
    train, test = Digits(train=True).tensors, Digits(train=False).tensors
    res = []
    for lib in (torch, litnn):
        nn = lib.nn
        lib.manual_seed(0)
        model = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 10))
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        data = lib.utils.data.TensorDataset(*(lib.tensor(t.numpy()) for t in train))
        losses = []
        for X, y in lib.utils.data.DataLoader(data, batch_size=64, shuffle=True):
            loss = nn.functional.cross_entropy(model(X), y)
            opt.zero_grad(); loss.backward(); opt.step(); losses.append(loss.item())
        model.eval()
        res.append((losses, model(lib.tensor(test[0].numpy())).argmax(1).tolist()))
    (tl, tp), (ll, lp) = res
    np.testing.assert_allclose(ll, tl, rtol=1e-4)
    assert lp == tp


def test_rng_state_is_torchs_bytes():
    "get_rng_state is torch's CPUGeneratorImplState byte for byte (seed, countdown, index, words, spare normal), and each library restores the other's."
    for draw in (lambda L: None, lambda L: L.randn(1), lambda L: L.rand(700), lambda L: L.poisson(L.full((30,), 4.))):
        states = []
        for L in (torch, litnn):
            L.manual_seed(3); draw(L)
            states.append(L.get_rng_state().tolist())
        assert states[0] == states[1]
    torch.manual_seed(5); torch.randn(1); litnn.set_rng_state(litnn.tensor(torch.get_rng_state().numpy()))
    assert litnn.randn(4).tolist() == torch.randn(4).tolist() and litnn.initial_seed() == torch.initial_seed() == 5
    g = litnn.Generator().manual_seed(9); st = g.get_state(); a = litnn.rand(3, generator=g); g.set_state(st)
    assert litnn.rand(3, generator=g).tolist() == a.tolist()
    for f in (lambda L: L.Generator().set_state(L.zeros(5056)), lambda L: L.Generator().set_state(np.zeros(5056, np.uint8)),
              lambda L: L.Generator().set_state(L.zeros(10, dtype=L.uint8)), lambda L: L.Generator().set_state(L.zeros(2, 2528, dtype=L.uint8)),
              lambda L: L.set_rng_state([1])):
        same_error(f)


# Half precision: the bounds stay float, only the hi -> lo fix-up rounds them (torch's kernel): equal to the last bit.
_BITWISE = {
    'uniform_half_bounds': lambda t: (t.empty(2000, dtype=t.float16).uniform_(-1.2247448713915889, 1.2247448713915889),
                                      t.empty(2000, dtype=t.bfloat16).uniform_(-100, 1000.7)),
    'kaiming_uniform_float16': lambda t: t.nn.init.kaiming_uniform_(t.empty(30, 40, dtype=t.float16)),
}
# torch's float64 samplers take libm's functions; litnn computes with numpy's vectorized functions (exact emulation cost
# 4x to 100x the time): the same draws, values within a few units in the last place.
_NEAR = {
    'uniform_float64': lambda t: t.empty(500, dtype=t.float64).uniform_(-1.2247448713915889, 1.2247448713915889),
    'kaiming_uniform_float64': lambda t: t.nn.init.kaiming_uniform_(t.empty(20, 30, dtype=t.float64)),
    'normal_float64': lambda t: (t.empty(5, dtype=t.float64).normal_(0.5, 2.3), t.empty(500, dtype=t.float64).normal_(-1., 0.3)),
    'exponential_float64': lambda t: t.empty(2000, dtype=t.float64).exponential_(1.7),
    'exponential_float32': lambda t: t.empty(2000).exponential_(1.7),
    'log_normal_float64': lambda t: t.empty(2000, dtype=t.float64).log_normal_(0.3, 0.7),
    'cauchy_float64': lambda t: t.empty(2000, dtype=t.float64).cauchy_(0.2, 1.3),
}

def _seeded(name, cases):
    out = []
    for lib in (torch, litnn):
        lib.manual_seed(7)
        r = cases[name](lib)
        out.append([(np.asarray(v.detach().double().tolist(), np.float64), v.dtype.itemsize) for v in (r if isinstance(r, tuple) else (r,))])
    return zip(*out)

@pytest.mark.parametrize('name', _BITWISE)
def test_seeded_half_precision_uniforms_are_torchs_bit_for_bit(name):
    for (a, _), (b, _) in _seeded(name, _BITWISE): np.testing.assert_array_equal(b, a)

# float32 normals from 16 on: torch's normal_fill_AVX2 (Cephes' log and sincos of avx_mathfun.h, fused multiply-adds),
# which litnn emulates: equal to the last bit (nanochat's init: normal_(std=0.8) on a (128, 64) embedding differed in 1033 places).
_FLOAT32_NORMALS = {
    'randn_blocks': lambda t: t.randn(1000), 'randn_tail': lambda t: t.randn(3, 37), 'normal_mean_std_blocks': lambda t: t.empty(200).normal_(0.5, 2.3),
    'kaiming_normal_': lambda t: t.nn.init.kaiming_normal_(t.empty(30, 20)), 'init_normal_': lambda t: t.nn.init.normal_(t.empty(128, 64), std=0.8),
    'normal_tensors': lambda t: t.normal(t.zeros(64), t.ones(64) * 2), 'xavier_normal_': lambda t: t.nn.init.xavier_normal_(t.empty(64, 48)),
    'randn_large': lambda t: t.randn(70000) * 1e-3, 'normal_small_std': lambda t: t.empty(4099).normal_(-3., 0.02),
    'randn_generator': lambda t: t.randn(5, 40, generator=t.Generator().manual_seed(12345)),
}

@pytest.mark.parametrize('name', _FLOAT32_NORMALS)
def test_seeded_float32_normals_are_torchs_bit_for_bit(name):
    for (a, _), (b, _) in _seeded(name, _FLOAT32_NORMALS): np.testing.assert_array_equal(b, a)

@pytest.mark.parametrize('name', _NEAR)
def test_seeded_draws_are_torchs_to_a_few_units(name):
    for (a, size), (b, _) in _seeded(name, _NEAR):     # (numpy's exp, log, tan... differ by CPU: not bits, a margin any of them meets)
        tol = 1e-5 if size == 4 else 1e-12
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


def test_multinomial_and_bernoulli_out():
    "out= of multinomial (int64 only, checked first) and bernoulli (any dtype; not an expanded tensor), as torch's (OpInfo error_inputs)."
    for lib in (torch, litnn):
        p = lib.ones(1, 2)
        with pytest.raises(RuntimeError, match='multinomial expects Long tensor out, got: Double'):
            lib.multinomial(p, 2, out=lib.zeros(1, 2, dtype=lib.float64))
        o = lib.zeros(1, 2, dtype=lib.int64)
        assert lib.multinomial(p, 2, out=o) is o and sorted(o[0].tolist()) == [0, 1]
        with pytest.raises(RuntimeError, match='more than one element of the written-to tensor'):
            lib.bernoulli(lib.ones(6) / 2, out=lib.zeros(1).expand(6))
        o = lib.zeros(6, dtype=lib.int64)
        assert lib.bernoulli(lib.ones(6), out=o) is o and o.tolist() == [1] * 6
        x = lib.zeros(3)
        assert lib.bernoulli(x, out=x).tolist() == [0., 0., 0.]     # over its own input: allowed

def _strided_views(lib):
    "Tensors whose memory order is not their logical order (or that are not contiguous): name -> a fresh one."
    return {'transposed': lambda: lib.empty(5, 7).t(), 'strided slice': lambda: lib.empty(6, 10)[:, ::3],
            'row slice': lambda: lib.empty(10, 6)[::2], 'permuted': lambda: lib.empty(3, 4, 5).permute(2, 0, 1),
            'channels_last': lambda: lib.empty(2, 3, 4, 5).to(memory_format=lib.channels_last),
            'expanded then cloned': lambda: lib.empty(3, 1).expand(3, 6).clone(), 'small transposed': lambda: lib.empty(3, 2).t(),
            'float64 transposed': lambda: lib.empty(5, 6, dtype=lib.float64).t(), 'int64 transposed': lambda: lib.empty(5, 6, dtype=lib.int64).t(),
            'complex transposed': lambda: lib.empty(4, 5, dtype=lib.complex64).t()}

_FILLS = {'normal_': lambda t: t.normal_(1., 2.), 'uniform_': lambda t: t.uniform_(-1, 3), 'bernoulli_': lambda t: t.bernoulli_(0.3),
          'bernoulli_(tensor)': lambda t: t.bernoulli_(t.new_full(t.shape, 0.4, dtype=t.dtype if t.is_floating_point() else None)),
          'exponential_': lambda t: t.exponential_(), 'random_': lambda t: t.random_(0, 100), 'random_()': lambda t: t.random_(),
          'cauchy_': lambda t: t.cauchy_(), 'log_normal_': lambda t: t.log_normal_(), 'geometric_': lambda t: t.geometric_(0.3)}

@pytest.mark.parametrize('fill', list(_FILLS))
@pytest.mark.parametrize('view', list(_strided_views(litnn)))
def test_seeded_in_place_samplers_walk_memory_as_torch(view, fill):
    """An in-place sampler on a tensor that is not contiguous puts the k-th draw where torch's TensorIterator walks k-th
    (memory order: a transposed tensor is filled column by column), and normal_ then draws pair by pair, as torch's serial
    kernel: the same values in the same elements, and the generator left in the same state."""
    def run(lib):
        lib.manual_seed(5)
        t = _strided_views(lib)[view]()
        try: _FILLS[fill](t)
        except (RuntimeError, NotImplementedError, ValueError, TypeError) as e: return type(e)
        return host(t) if lib is litnn else t.numpy(), lib.rand(3).tolist()
    want = run(torch)
    if isinstance(want, type): return          # refused by torch (complex dtypes for the integer samplers...): not this test's subject
    got = run(litnn)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-6)
    assert got[1] == want[1]

_LIKES = {'randn_like': lambda L, t: L.randn_like(t), 'randn_like float64': lambda L, t: L.randn_like(t, dtype=L.float64),
          'randn_like requires_grad': lambda L, t: L.randn_like(t, dtype=L.float32, requires_grad=True),
          'randn_like contiguous_format': lambda L, t: L.randn_like(t, memory_format=L.contiguous_format),
          'rand_like': lambda L, t: L.rand_like(t), 'randint_like': lambda L, t: L.randint_like(t, 3, 50)}

@pytest.mark.parametrize('like', list(_LIKES))
@pytest.mark.parametrize('view', list(_strided_views(litnn)) + ['big transposed', 'channels_last 16+'])
def test_seeded_like_samplers_draw_into_the_laid_out_result_as_torch(view, like):
    """randn_like and friends are torch's empty_like(input) then the in-place sampler: a result laid out as a permuted
    input (transposed, channels_last) is filled in memory order, and normal_ then draws pair by pair even from 16 values
    on (HF VITS draws its prior noise with randn_like of a transposed tensor); same values, same generator state."""
    extra = {'big transposed': lambda L: L.empty(2, 30, 8).transpose(1, 2), 'channels_last 16+': lambda L: L.empty(2, 4, 3, 3).to(memory_format=L.channels_last)}
    def run(L):
        L.manual_seed(3)
        t = extra[view](L) if view in extra else _strided_views(L)[view]()
        try: r = _LIKES[like](L, t)
        except (RuntimeError, NotImplementedError, ValueError, TypeError) as e: return type(e)
        return host(r) if L is litnn else r.detach().numpy(), tuple(r.stride()), r.requires_grad, L.rand(3).tolist()
    want, got = run(torch), run(litnn)
    if isinstance(want, type): assert got is want; return
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-6)
    assert got[1:] == want[1:]

@pytest.mark.parametrize('dt', ['float32', 'float16', 'bfloat16', 'float64', 'int8', 'uint8', 'int64', 'bool'])
def test_random_from_none_is_up_to_the_dtype_top(dt):
    "random_(from, None): [from, top] (2**digits for floats, the max for integers), torch's; random_(0) is random_(to=0)."
    lo = 0 if dt in ('uint8', 'bool') else -5
    for L in (litnn, torch):
        L.manual_seed(0)
        t = L.empty(2000, dtype=getattr(L, dt)).random_(lo, None)
        if L is litnn: a = (t.min().item(), t.max().item())
        else: assert (t.min().item(), t.max().item()) == a, dt          # torch's stream: the same numbers
    same_error(lambda L: L.empty(3).random_(0))

def test_random_float_bounds_update_and_warnings():
    "Floats: `to` whose predecessor rounds up is moved down (ATen's update_to); bounds past the dtype fail, past 2**digits warn."
    for L in (litnn, torch):
        L.manual_seed(0)
        m = max(L.empty(2000, dtype=L.half).random_(32752).max().item() for _ in range(5))
        if L is litnn: lm = m
    assert lm == m
    same_error(lambda L: L.empty(3, dtype=L.half).random_(-2**20, 0))
    for L in (litnn, torch):
        with pytest.warns(UserWarning, match=r'from is out of bounds \[-\(2\^24\), 2\^24\]'): L.empty(3).random_(-2**30, 0)

def test_normal_out():
    for L in (litnn, torch):
        r = L.empty(2, 2)
        assert L.normal(2., 0., (2, 2), out=r) is r and r.eq(2).all()
        m = L.randn(3); r = L.empty(3)
        assert L.normal(m, 0., out=r) is r and r.equal(m)

def test_creation_refusals():
    same_error(lambda L: L.randperm(2**11 + 2, dtype=L.half))
    same_error(lambda L: L.randperm(2**24 + 2, dtype=L.float32))
    same_error(lambda L: L.randperm(257, dtype=L.uint8))
    same_error(lambda L: L.randint(6, (2,), dtype=L.complex64))
    same_error(lambda L: L.empty(3).uniform_(-3e38, 3e38))
    same_error(lambda L: L.empty(3, dtype=L.float64).uniform_(-1.7e308, 1.7e308))

def test_fill_and_zero_write_repeated_memory():
    "fill_/zero_ (one value) accept memory that repeats, as torch's fill; random fills refuse it."
    for L in (litnn, torch):
        y = L.empty_strided((3,), (0,)); y.zero_(); y.fill_(2)
        assert y.tolist() == [2., 2., 2.]
    same_error(lambda L: L.empty_strided((3,), (0,)).random_())
    same_error(lambda L: L.empty_strided((3,), (0,)).fill_(L.tensor(3.)))


@pytest.mark.parametrize('ms,ss', [((120,), (2, 3, 4, 5)), ((2, 3, 4, 5), (4,)), ((2, 3, 4, 5), (120,))])
def test_normal_shapes_that_do_not_broadcast(ms, ss):
    "normal(mean, std) with tensor shapes that do not broadcast: torch's RuntimeError naming the dimension."
    same_error(lambda lib: lib.normal(lib.rand(*ms), lib.rand(*ss)))
    same_error(lambda lib: lib.normal(lib.rand(*ms), lib.rand(*ss), out=lib.zeros(3, 4, 5)))


def test_0d_complex_draws_are_arrays():
    "A 0-d complex draw is a 0-d tensor that converts to a 0-d numpy array, as torch's (it was a numpy scalar inside)."
    for lib in (torch, litnn):
        for f in (lib.randn, lib.rand):
            a = f([], dtype=lib.complex64).numpy()
            assert isinstance(a, np.ndarray) and a.shape == () and a.dtype == np.complex64


def test_sample_dirichlet_as_torch():
    "torch._sample_dirichlet: the same numbers for the same seed, in the input's dtype; no derivative (its backward raises)."
    a = np.array([[1., 2., 3.], [0.5, 0.5, 4.]], np.float32)
    litnn.manual_seed(7); x = litnn._sample_dirichlet(litnn.tensor(a, requires_grad=True))
    torch.manual_seed(7); y = torch._sample_dirichlet(torch.tensor(a, requires_grad=True))
    np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-6)
    assert x.dtype == litnn.float32 and x.requires_grad == y.requires_grad and type(x.grad_fn).__name__ == type(y.grad_fn).__name__
    for t in (x, y):
        with pytest.raises(RuntimeError, match="derivative for aten::_sample_dirichlet is not implemented"): t.sum().backward()

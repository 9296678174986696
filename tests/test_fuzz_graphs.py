"""Fuzz: random autograd graphs of 10 to 24 operations (arithmetic, division, powers, exp/log, tanh, sigmoid, softmax,
matmul, reductions, indexing, reshapes) on float64 leaves whose magnitudes range from 1e-150 to 1e150, run in litnn and
in torch. Every intermediate value and every leaf's gradient must agree: NaN and inf in the same places, finite values
close. "Close" is judged against how much torch's own answer moves when the leaves move by a few ulps (where huge
terms cancel, any order of summation gives a different, equally right, answer), plus rounding relative to the value
and to the array's largest value. A wrong formula, an overflow or an underflow is far outside that."""
import math, warnings
import numpy as np, pytest
from hypothesis import given, settings, HealthCheck, strategies as st
import litnn
torch = pytest.importorskip('torch')

N = 4       # every value is N x N, so any op can follow any other
UNARY = dict(
    exp=lambda x: x.exp(), log=lambda x: x.log(), log_abs=lambda x: x.abs().log(), tanh=lambda x: x.tanh(),
    sigmoid=lambda x: x.sigmoid(), sqrt_abs=lambda x: x.abs().sqrt(), rsqrt_abs=lambda x: x.abs().rsqrt(),
    reciprocal=lambda x: x.reciprocal(), neg=lambda x: -x, square=lambda x: x * x, cube=lambda x: x ** 3,
    pow_half=lambda x: x.abs() ** 0.5, pow_neg=lambda x: x ** -2, abs=lambda x: x.abs(), scale_up=lambda x: x * 1e100,
    scale_down=lambda x: x / 1e100, rdiv=lambda x: 2.5 / x, relu=lambda x: x.relu(),
    softmax0=lambda x: x.softmax(0), softmax1=lambda x: x.softmax(1), log_softmax1=lambda x: x.log_softmax(1),
    sum1=lambda x: x.sum(1, keepdim=True).expand(N, N), mean0=lambda x: x.mean(0, keepdim=True).expand(N, N),
    var0=lambda x: x.var(0, keepdim=True).expand(N, N), std1=lambda x: x.std(1, keepdim=True).expand(N, N),
    center=lambda x: x - x.mean(), norm=lambda x: x / x.norm(), logsumexp=lambda x: x.logsumexp(1, keepdim=True).expand(N, N),
    transpose=lambda x: x.t(), rows=lambda x: x[[0, 2, 2, 1]], cols=lambda x: x[:, [3, 3, 0, 1]],
    reshape=lambda x: x.reshape(2, 8).t().reshape(N, N), slice=lambda x: x[1:3].repeat(2, 1),
    clamp=lambda x: x.clamp(-1e10, 1e10), maximum0=lambda x: x.clamp(min=0),
)
BINARY = dict(
    add=lambda x, y: x + y, sub=lambda x, y: x - y, mul=lambda x, y: x * y, div=lambda x, y: x / y,
    # matmul's operands are kept where products cannot overflow: OpenBLAS's fused multiply-adds (numpy) turn
    # inf + (-inf) partial sums into inf where torch's kernel gives NaN; both are wrong (the exact sum may be finite).
    matmul=lambda x, y: x.clamp(-1e150, 1e150) @ y.clamp(-1e150, 1e150), matmul_t=lambda x, y: x.clamp(-1e150, 1e150) @ y.clamp(-1e150, 1e150).t(), pow=lambda x, y: x.abs() ** y.tanh(),
    where=lambda x, y: torch_or_litnn(x).where(x > y, x, y), maximum=lambda x, y: torch_or_litnn(x).maximum(x, y),
    hypot_like=lambda x, y: (x * x + y * y).sqrt(),
)


# the size of the terms an op's value adds up, from the size of its inputs (products and squares: cancellations there
# leave rounding noise of that size; matmul's operands are clamped as above)
TERMS = dict(var0=lambda s: s * s, matmul=lambda s: min(s, 1e150) ** 2 * N, matmul_t=lambda s: min(s, 1e150) ** 2 * N)


def torch_or_litnn(t): return torch if isinstance(t, torch.Tensor) else litnn


def leaves(draw):
    "2 or 3 N x N float64 arrays: per element a sign, a mantissa and a power of ten from a per-leaf range within 1e±150."
    out = []
    for _ in range(draw(st.integers(2, 3))):
        lo = draw(st.integers(-150, 150)); hi = draw(st.integers(lo, min(lo + 20, 150)))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        a = rng.choice([-1., 1.], (N, N)) * rng.uniform(1, 10, (N, N)) * 10.0 ** rng.integers(lo, hi + 1, (N, N))
        out.append(a)
    return out


@st.composite
def graphs(draw):
    arrays = leaves(draw)
    n_ops = draw(st.integers(10, 24))
    steps = []
    for k in range(n_ops):
        pool = len(arrays) + k
        if draw(st.booleans()):
            steps.append(('u', draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, pool - 1))))
        else:
            steps.append(('b', draw(st.sampled_from(sorted(BINARY))), draw(st.integers(0, pool - 1)), draw(st.integers(0, pool - 1))))
    return arrays, steps


def apply(step, vals):
    return UNARY[step[1]](vals[step[2]]) if step[0] == 'u' else BINARY[step[1]](vals[step[2]], vals[step[3]])


def quiet():
    "numpy's and torch's overflow warnings are the point here: silence them."
    w = warnings.catch_warnings(); w.__enter__(); warnings.simplefilter('ignore')
    return w


def run_graph(arrays, steps):
    "torch's values of the whole graph, and the gradient reaching each value from the sum of the last three."
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    vals = list(xs)
    for s in steps: vals.append(apply(s, vals))
    out = sum(v.sum() for v in vals[-3:])      # several roots: gradients reach more of the graph
    grads = torch.autograd.grad(out, vals, allow_unused=True)
    return [v.detach().numpy() for v in vals], [None if g is None else g.numpy() for g in grads]


def run_op(lib, step, inputs, g):
    "One op of the graph alone, on given input arrays, with upstream gradient `g`: its value and its inputs' gradients."
    idx = sorted(set(step[2:]))
    leaves = {i: lib.tensor(inputs[i], dtype=lib.float64, requires_grad=True) for i in idx}
    out = apply(step, leaves)
    grads = lib.autograd.grad(out, [leaves[i] for i in idx], grad_outputs=lib.tensor(g, dtype=lib.float64), allow_unused=True)
    return [out.detach().numpy()] + [None if d is None else d.numpy() for d in grads]


def differs(a, b, nearby, scale, rtol=1e-7, floor=1e-12):
    "Why litnn's array `a` is not torch's `b`, or None; `nearby`: torch's answers for inputs moved a little; `scale`: the terms' size."
    unstable = np.zeros(b.shape, bool)      # where torch's own NaN/inf pattern changes under the tiny move
    for f in (np.isnan, np.isposinf, np.isneginf):
        for c in nearby: unstable |= f(c) != f(b)
    for name, f in (('NaN', np.isnan), ('+inf', np.isposinf), ('-inf', np.isneginf)):
        if ((f(a) != f(b)) & ~unstable).any(): return f'{name} positions differ'
    fin = np.isfinite(a) & np.isfinite(b) & ~unstable
    if not fin.any(): return None
    spread = np.max([np.where(np.isfinite(c[fin]), np.abs(c[fin] - b[fin]), np.inf) for c in nearby], axis=0)
    err = np.abs(a[fin] - b[fin])
    # torch's own sensitivity; rounding inside formulas (1 - tanh², computed two ways) that moving the leaves misses
    bad = err > 16 * spread + rtol * np.abs(b[fin]) + floor * max(np.abs(b[fin]).max(), scale)
    if bad.any(): return f'values differ by up to {err[bad].max():.3g} where torch moves by {spread[bad].max():.3g}'
    return None


def moved(inputs, seed):
    "Inputs moved by a relative 2**-30, to measure how much the answer depends on rounding (1 - tanh² and the like)."
    rng = np.random.default_rng(seed)
    return {i: a * (1 + rng.choice([-1., 1.], a.shape) * 2.0 ** -30) for i, a in inputs.items()}


STATS = dict(examples=0, ops=0)


def _exact(f, *arrays):
    "f on the elements of `arrays` in exact rational arithmetic, rounded once; NaN where an element is not finite."
    from fractions import Fraction as F
    out = np.full(arrays[0].shape, np.nan)
    for i in np.ndindex(out.shape):
        vs = [a[i] for a in arrays]
        if not all(np.isfinite(vs)): continue
        try: out[i] = float(f(*map(F, vs)))
        except OverflowError: out[i] = np.inf if f(*map(F, vs)) > 0 else -np.inf
        except ZeroDivisionError: pass
    return out


# The derivative formulas that, in floats, square a value that can leave the range while the gradient does not: torch
# computes `-g * (y * y)` for reciprocal (so `1/x` at x = 1e-160 with g = 1e-200 gives -inf, for -1e120); litnn's
# `(-g * y) * y` does not. Where torch's own formula, evaluated exactly, is a float, litnn must give it.
EXACT_GRADS = dict(
    reciprocal=lambda x, y, g: -g * y * y, rdiv=lambda x, y, g: -g * y * y / F_(2.5),
    rsqrt_abs=lambda x, y, g: -g * y * y * y / 2 * (1 if x > 0 else -1 if x < 0 else 0),
)
def F_(v):
    from fractions import Fraction
    return Fraction(v)


def exact_spread(step, x, g):
    """var0 / std1 and their gradients in exact rational arithmetic (None where an input is not finite): litnn's are
    exact to rounding at every magnitude (scaled by a power of two first), torch's lose digits where squares turn
    subnormal (values near 1e-160: its float64 std is then 0) or overflow (1e155 and up)."""
    if not np.isfinite(x).all(): return None
    g = np.where(np.isfinite(g), g, 0.)   # (gradients are not compared then: see below)
    from fractions import Fraction as F
    X, G = [[F(v) for v in r] for r in x], [[F(v) for v in r] for r in g]
    if step == 'var0': X, G = [list(c) for c in zip(*X)], [list(c) for c in zip(*G)]     # work on rows
    def fl(q):
        try: return float(q)
        except OverflowError: return math.inf if q > 0 else -math.inf
    def sqrt(q):      # of a rational, scaled by a power of 4 near 1 first
        if q == 0: return F(0)
        k = (q.numerator.bit_length() - q.denominator.bit_length()) // 2
        return F(math.sqrt(float(q / F(4) ** k))) * F(2) ** k
    value, grad = [], []
    for xs, gs in zip(X, G):
        m = sum(xs) / N; var = sum((v - m) ** 2 for v in xs) / (N - 1)
        if step == 'var0': value.append(fl(var)); grad.append([fl(sum(gs) * 2 * (v - m) / (N - 1)) for v in xs])
        else:
            sd = sqrt(var)
            value.append(fl(sd))
            grad.append([0. if var == 0 else fl(sum(gs) * (v - m) / ((N - 1) * sd)) for v in xs])
    value, grad = np.array([value] * N).T, np.array(grad)
    return (value.T, grad.T) if step == 'var0' else (value, grad)


def describe(arrays, steps):
    names = [f'x{i}' for i in range(len(arrays))]
    for s in steps: names.append(f'{s[1]}({names[s[2]]})' if s[0] == 'u' else f'{s[1]}({names[s[2]]}, {names[s[3]]})')
    return names


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(graphs())
def test_random_graphs_match_torch(graph):
    """Each op of the graph, at the values and upstream gradients the graph brings to it (torch's), gives litnn's value
    and input gradients as torch's. Checking op by op keeps one op's legitimate rounding from being amplified by the
    next ones (a variance of values equal up to rounding is pure noise), while the graph supplies the extreme inputs."""
    arrays, steps = graph
    names = describe(arrays, steps)
    w = quiet()
    try:
        vals, grads = run_graph(arrays, steps)
        STATS['examples'] += 1
        for k, step in enumerate(steps):
            inputs = {i: vals[i] for i in step[2:]}
            g = grads[len(arrays) + k]
            g = np.ones_like(vals[len(arrays) + k]) if g is None else g
            got, want = run_op(litnn, step, inputs, g), run_op(torch, step, inputs, g)
            near = [run_op(torch, step, moved(inputs, seed), g) for seed in (1, 2)]
            exact = exact_spread(step[1], inputs[step[2]], g) if step[1] in ('var0', 'std1') else None
            if exact is not None: want, near = [exact[0], exact[1]], [[exact[0], exact[1]]]
            if step[1] in EXACT_GRADS:
                ref = _exact(EXACT_GRADS[step[1]], inputs[step[2]], want[0], g)
                ref = np.where(np.isnan(ref), want[1], ref)       # where an input is NaN or inf: torch's own answer
                want, near = [want[0], ref], [[n[0], ref] for n in near]
            STATS['ops'] += 1
            size = max([np.abs(v[np.isfinite(v)]).max(initial=0) for v in inputs.values()])
            for j, (a, b) in enumerate(zip(got, want)):
                what = 'value' if j == 0 else f'gradient {j - 1}'
                assert (a is None) == (b is None), f'{what} of {names[len(arrays) + k]}'
                if j and step[1].startswith('matmul') and not np.isfinite(g).all(): continue   # BLAS: 0 * inf differs
                if j and exact is not None and not np.isfinite(g).all(): continue     # torch's std (inf) is not litnn's
                # the size of the terms an op adds up: its inputs (squared for a variance), or the upstream gradient
                scale = TERMS.get(step[1], lambda s: s)(size) if j == 0 else np.abs(g[np.isfinite(g)]).max(initial=0)
                why = None if a is None else differs(a, b, [n[j] for n in near], scale)
                assert why is None, (f'{what} of {step[1]} in {names[len(arrays) + k]}: {why}\ninputs {inputs}\nupstream {g}'
                                     f'\nlitnn {a}\ntorch {b}')
    finally: w.__exit__(None, None, None)

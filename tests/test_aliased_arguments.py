"""One tensor given as several arguments of an op (`fmax(x, x)`, `addcmul(x, x, x)`, `sdpa(q, k, k)`), or one argument
made from another (`fmax(x, x.exp())`), against PyTorch 2.13: the value, the eager gradient, func.grad / func.vjp /
func.jvp and double backward. Each position's gradient must be its own: a composite recorded as one node that
differentiated its inner graph once per argument gave each position the sum of both (2x torch's)."""
import numpy as np, pytest, torch
import litnn

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))                    # x
B = RNG.standard_normal((3, 4))                    # another operand
C = RNG.standard_normal((3, 4))                    # a cotangent / tangent
Q = RNG.standard_normal((2, 3, 4))                 # attention's query
K = RNG.standard_normal((2, 5, 4))                 # attention's key, given as value too
W = RNG.standard_normal((2, 5, 4))


def t(L, a): return L.tensor(a, dtype=L.float64)


# name -> (x's array, f(L, x) -> a tensor); every case failed one check (value, grad, func.*, gradgrad) before, or guards one
CASES = {
    'fmax(x, x)': (A, lambda L, x: L.fmax(x, x)),
    'fmin(x, x)': (A, lambda L, x: L.fmin(x, x)),
    'fmax(x, exp(x))': (A, lambda L, x: L.fmax(x, x.exp())),
    'rsub(x, x, alpha=2)': (A, lambda L, x: L.rsub(x, x, alpha=2)),
    'rsub(x, x * b)': (A, lambda L, x: L.rsub(x, x * t(L, B))),
    'ldexp(x, x)': (A, lambda L, x: L.ldexp(x, x)),
    'group_norm(weight=x, bias=x)': (A[0, :3], lambda L, x: L.nn.functional.group_norm(t(L, B[:2, :3]), 1, weight=x, bias=x)),
    'lstsq(x, x)': (A[:2, :3], lambda L, x: L.linalg.lstsq(x, x, driver='gels').solution),
    'sdpa(q, x, x)': (K, lambda L, x: L.nn.functional.scaled_dot_product_attention(t(L, Q), x, x)),
    'sdpa(x, x, x)': (W, lambda L, x: L.nn.functional.scaled_dot_product_attention(x, x, x, is_causal=True)),
    'clamp(b, x, x)': (A, lambda L, x: L.clamp(t(L, B), x, x)),
    'clamp(x, x, x + 1)': (A, lambda L, x: L.clamp(x, x, x + 1)),
    'nextafter(x, x)': (A, lambda L, x: L.nextafter(x, x)),
    'addcmul(x, x, x)': (A, lambda L, x: L.addcmul(x, x, x, value=0.5)),
    'addcdiv(x, x, x)': (A, lambda L, x: L.addcdiv(x, x, x, value=0.5)),
    'x * x': (A, lambda L, x: x * x),
    'where(c, x, x)': (A, lambda L, x: L.where(t(L, B) > 0, x, x)),
    'lerp(x, x, x)': (A, lambda L, x: L.lerp(x, x, x)),
    'atan2(x, x)': (A, lambda L, x: L.atan2(x, x)),
    'hypot(x, x)': (A, lambda L, x: L.hypot(x, x)),
    'dist(x, x + b)': (A, lambda L, x: L.dist(x, x + t(L, B))),
}


def cot(L, shape):
    return L.tensor(np.resize(C.ravel(), shape), dtype=L.float64)


def checks(L, case):
    "The value, the eager gradient, func.grad/vjp/jvp and the double backward of case `case` in library L."
    a, f = CASES[case]
    x = t(L, a).requires_grad_()
    y = f(L, x)
    u = cot(L, y.shape)
    g, = L.autograd.grad(y, x, u, create_graph=True)
    v = cot(L, x.shape).flip(-1)
    gg = L.autograd.grad(g, x, v, allow_unused=True)[0] if g.requires_grad else None     # (piecewise linear: no graph)
    gg = L.zeros_like(x) if gg is None else gg
    x0 = t(L, a)
    fg = L.func.grad(lambda x: (f(L, x) * u).sum())(x0)
    fv = L.func.vjp(lambda x: f(L, x), x0)[1](u)[0]
    fj = L.func.jvp(lambda x: f(L, x), (x0,), (v,))[1]
    return dict(value=y, grad=g, gradgrad=gg, func_grad=fg, func_vjp=fv, func_jvp=fj)


@pytest.mark.parametrize('case', list(CASES))
def test_aliased_arguments_match_torch(case):
    lr, tr = checks(litnn, case), checks(torch, case)
    for k in tr:
        np.testing.assert_allclose(lr[k].detach().numpy(), tr[k].detach().numpy(), rtol=1e-9, atol=1e-12, err_msg=k)


def test_recorded_composite_gradient_is_each_positions_own():
    "fmax(x, exp(x)) recorded (create_graph): x's gradient is the sum over both places, once (was twice torch's)."
    for L in (litnn, torch):
        x = L.tensor([1.5, -2.0, 3.0], dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(L.fmax(x, x.exp()).sum(), x, create_graph=True)
        assert np.allclose(g.detach().numpy(), np.exp([1.5, -2.0, 3.0])), L.__name__


@pytest.mark.parametrize('bounds', ['both', 'min', 'max', 'min>max'])
def test_clamp_tangent_at_ties_is_torchs(bounds):
    "torch's clamp_jvp: the bound's tangent where the input is past it, max's where min > max, the input's at a tie."
    i, lo = np.array([0., 1., 2., 1.5, 3.]), np.full(5, 1.5)
    ti, tl, th = np.arange(1., 6.), np.arange(1., 6.) / 10, np.arange(1., 6.) / 100
    res = []
    for L in (litnn, torch):
        args = {'both': (lo, lo), 'min': (lo, None), 'max': (None, lo), 'min>max': (lo + 1, lo)}[bounds]
        prim = [t(L, i)] + [None if b is None else t(L, b) for b in args]
        tans = [t(L, ti)] + [None if b is None else t(L, s) for b, s in zip(args, (tl, th))]
        keep = [k for k, p in enumerate(prim) if p is not None]
        def f(*xs):
            full = list(prim)
            for k, x in zip(keep, xs): full[k] = x
            return L.clamp(*full)
        res.append(L.func.jvp(f, tuple(prim[k] for k in keep), tuple(tans[k] for k in keep))[1].numpy())
    np.testing.assert_array_equal(*res)


def test_nextafter_gradient_is_zero_where_input_equals_other():
    res = []
    for L in (litnn, torch):
        x = L.tensor([1.5, -2.0, 0., 3., float('nan')], dtype=L.float64, requires_grad=True)
        y = L.tensor([1.5, -3.0, 5., 3., 1.], dtype=L.float64, requires_grad=True)
        res.append([g.numpy() for g in L.autograd.grad(L.nextafter(x, y).sum(), [x, y])])
    for a, b in zip(*res): np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('mode', ['floor', 'trunc'])
@pytest.mark.parametrize('case', ['x.div_(x)', 'other changed', 'self changed', 'number divisor, self changed'])
def test_rounded_division_refuses_a_changed_saved_input_as_torch(mode, case):
    "torch's DivBackward2 keeps other (and self for other's gradient) although its gradient is zero: a change in place is refused."
    res = []
    for L in (litnn, torch):
        b = L.tensor([3., -7.5], dtype=L.float64, requires_grad=True)
        w = L.tensor([2., 2.], dtype=L.float64, requires_grad=True).clone()
        x = b.clone()
        if case == 'x.div_(x)': y = x.div_(x, rounding_mode=mode)
        elif case == 'number divisor, self changed': y = x.div(2., rounding_mode=mode); x.add_(1)
        else:
            y = x.div(w, rounding_mode=mode)
            (w if case == 'other changed' else x).add_(1)
        try: res.append(L.autograd.grad(y.sum(), b)[0].tolist())
        except RuntimeError as e: res.append(str(e).split(':')[0])
    assert res[0] == res[1]


@pytest.mark.parametrize('which', ['both', 'x, x', 'x only', 'number y', 'number x'])
def test_xlogy_tangent_is_torchs_formula(which):
    "torch's xlogy jvp: xlogy(tx, y) (0 where x == 0 and y <= 0) + ty·x/y; two backward passes gave 0 for tx·log y at y < 0."
    xs, ys = np.array([0., 0., -0.3, 0.5, 2., 0.]), np.array([0., -1., -0.3, 0.5, -2., np.nan])
    res = []
    for L in (litnn, torch):
        x, y, tx = t(L, xs), t(L, ys), t(L, np.arange(1., 7.))
        ty = tx.flip(0)
        if which == 'both': r = L.func.jvp(L.xlogy, (x, y), (tx, ty))[1]
        elif which == 'x, x': r = L.func.jvp(lambda x: L.xlogy(x, x), (x,), (tx,))[1]
        elif which == 'x only': r = L.func.jvp(lambda x: L.xlogy(x, y), (x,), (tx,))[1]
        elif which == 'number y': r = L.func.jvp(lambda x: L.xlogy(x, -2.), (x,), (tx,))[1]
        else: r = L.func.jvp(lambda y: L.xlogy(3., y), (y,), (ty,))[1]
        res.append(r.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)


@pytest.mark.parametrize('which', ['dist(x, x)', 'vector_norm(zeros)', 'vector_norm rows, one zero'])
def test_two_norm_double_backward_at_zero_is_nan_as_torch(which):
    "torch's p=2 norm_backward is (self / norm).masked_fill_(norm == 0, 0): differentiated again at a zero norm, 0/0."
    res = []
    for L in (litnn, torch):
        x = t(L, np.array([[0., 0.], [1., 2.]]) if 'rows' in which else A).requires_grad_()
        if which == 'dist(x, x)': y = L.dist(x, x)
        elif which == 'vector_norm(zeros)': y = L.linalg.vector_norm(x * 0)
        else: y = L.linalg.vector_norm(x, 2, dim=1).sum()
        g, = L.autograd.grad(y, x, create_graph=True)
        res.append((g.detach().numpy(), L.autograd.grad((g * g).sum() + g.sum(), x)[0].numpy()))
    for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)

"""Composite functions recorded as torch records them: one node of torch's name (`AddcmulBackward0`...), edges to the
tensor arguments, and the same values, gradients and second derivatives (litnn's `_one_node`, 13_backprop_engine)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

A = np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.3], [2.5, 1.5, -2.0]])
B = np.array([[1.5, 0.5, -0.25], [0.3, 2.0, 1.0], [-1.0, 0.7, 0.9]])
V = np.array([0.7, -1.2, 0.4])
SPD = A @ A.T + 3 * np.eye(3)
TRI = np.triu(A) + 3 * np.eye(3)

# name -> (function of (lib, *tensors), the inputs)
CASES = {
    'addcmul': (lambda L, a, b, c: L.addcmul(a, b, c, value=0.5), (A, B, V)),
    'addcdiv': (lambda L, a, b, c: L.addcdiv(a, b, c + 3, value=-2), (A, B, V)),
    'addcmul_': (lambda L, a, b, c: (a * 1).addcmul_(b, c), (A, B, V)),
    'addcdiv_': (lambda L, a, b, c: (a * 1).addcdiv_(b, c + 3), (A, B, V)),
    'fmax': (lambda L, a, b: L.fmax(a, b), (A, B)),
    'fmin': (lambda L, a, b: L.fmin(a, b), (A, B)),
    'ldexp': (lambda L, a, b: L.ldexp(a, b), (A, B)),
    'dist': (lambda L, a, b: L.dist(a, b), (A, B)),
    'dist_p3': (lambda L, a, b: L.dist(a, b, 3), (A, B)),
    'addr': (lambda L, a, u, v: L.addr(a, u, v, beta=0.5, alpha=2), (A, V, V[::-1].copy())),
    'block_diag': (lambda L, a, v: L.block_diag(a, v, a[:2]), (A, V)),
    'var_mean': (lambda L, a: L.var_mean(a, 1)[0] + L.var_mean(a, 1)[1], (A,)),
    'var_mean_mean': (lambda L, a: L.var_mean(a, 0, correction=0)[1], (A,)),
    'std_mean': (lambda L, a: L.std_mean(a), (A,)),
    'aminmax': (lambda L, a: L.aminmax(a, dim=0).max, (A,)),
    'kron': (lambda L, a, v: L.kron(a, v), (A, V)),
    'rsub': (lambda L, a, b: L.rsub(a, b, alpha=2), (A, B)),
    'nansum': (lambda L, a: L.nansum(a.log(), 1), (A,)),      # NaN where a < 0: no gradient there
    'pdist': (lambda L, a: L.nn.functional.pdist(a), (A,)),
    'pdist_p1': (lambda L, a: L.nn.functional.pdist(a, 1.5), (A,)),
    'cholesky_solve': (lambda L, b, a: L.cholesky_solve(b, a.tril()), (B, TRI.T)),
    'cholesky_solve_upper': (lambda L, b, a: L.cholesky_solve(b, a.triu(), upper=True), (B, TRI)),
    'cholesky_inverse': (lambda L, a: L.cholesky_inverse(a.tril()), (TRI.T,)),
    'triangular_solve': (lambda L, b, a: L.triangular_solve(b, a.triu()), (B, TRI)),
    'nanmean': (lambda L, a: L.nanmean(a.log(), 0), (A,)),
    'pairwise_distance': (lambda L, a, b: L.nn.functional.pairwise_distance(a, b, 3), (A, B)),
    'frobenius_norm': (lambda L, a: L.frobenius_norm(a, [0]), (A,)),
    'margin_ranking_loss': (lambda L, a, b: L.nn.functional.margin_ranking_loss(a[0], b[0], L.tensor([1., -1., 1.], dtype=L.float64), reduction='none'), (A, B)),
    'triplet_margin_loss': (lambda L, a, b: L.nn.functional.triplet_margin_loss(a, b, b * 2 + 1, reduction='none'), (A, B)),
}

def _run(L, case):
    f, arrays = CASES[case]
    xs = [L.tensor(a, dtype=L.float64, requires_grad=True) for a in arrays]
    r = f(L, *xs)
    r = r[0] if isinstance(r, tuple) else r
    names = type(r.grad_fn).__name__, [type(n).__name__ if n is not None else None for n, _ in r.grad_fn.next_functions]
    L.manual_seed(0)
    w = L.tensor(np.cos(np.arange(r.numel())).reshape(r.shape), dtype=L.float64)
    (r * r * w).sum().backward()
    return names, r.tolist(), [None if x.grad is None else x.grad.numpy() for x in xs]

# cases whose inner graph torch's C++ builds with a Scalar overload (AddBackward1 where litnn's `+` is AddBackward0)
NAME_ONLY = {'margin_ranking_loss', 'pairwise_distance'}

@pytest.mark.parametrize('case', sorted(CASES))
def test_composite_node_as_torch(case):
    (tn, tv, tg), (ln, lv, lg) = _run(torch, case), _run(litnn, case)
    assert (ln[0] if case in NAME_ONLY else ln) == (tn[0] if case in NAME_ONLY else tn)
    np.testing.assert_allclose(lv, tv, rtol=1e-12, atol=1e-12)
    for a, b in zip(lg, tg):
        assert (a is None) == (b is None)
        if a is not None: np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

@pytest.mark.parametrize('case', sorted(CASES))
def test_composite_node_second_derivatives(case):
    f, arrays = CASES[case]
    xs = [litnn.tensor(a, dtype=litnn.float64, requires_grad=True) for a in arrays]
    assert litnn.autograd.gradgradcheck(lambda *xs: f(litnn, *xs), xs)

def test_composite_node_graph_is_freed_and_retained_as_torch():
    for L in (torch, litnn):
        a, b = (L.tensor(v, requires_grad=True) for v in (A, B))
        y = L.addcmul(a, a, b).sum()
        y.backward(retain_graph=True); y.backward()
        assert np.allclose(a.grad.numpy(), 2 * (1 + B))
        with pytest.raises(RuntimeError, match='Trying to backward through the graph a second time'): y.backward()

def test_composite_node_sees_inplace_change_of_saved_input():
    for L in (torch, litnn):
        a, b = (L.tensor(v, requires_grad=True) for v in (A, B))
        x = b * 1
        y = L.addcmul(a, a, x)
        x.add_(1)            # saved by the product a * x: torch's error at backward
        with pytest.raises(RuntimeError, match='modified by an inplace operation'): y.sum().backward()
        y = L.addcmul(x, a, b)
        x.add_(1)            # input itself is not saved: backward works
        y.sum().backward()

# in-place ops that torch records as nodes of their own: the node's name, and the backward's result or error
INPLACE = {
    'acosh_': lambda L, b: b.acosh_(), 'asinh_': lambda L, b: b.asinh_(), 'atanh_': lambda L, b: b.atanh_(),
    'arccosh_': lambda L, b: b.arccosh_(), 'arcsinh_': lambda L, b: b.arcsinh_(), 'arctanh_': lambda L, b: b.arctanh_(),
    'acosh_view': lambda L, b: b[1:].acosh_(), 'asinh_fn': lambda L, b: L.asinh_(b),
    'floor_divide_': lambda L, b: b.floor_divide_(2), 'floor_divide_view': lambda L, b: b[1:].floor_divide_(L.tensor(2.)),
    'heaviside_': lambda L, b: b.heaviside_(L.tensor(0.5, dtype=L.float64)),
    'scatter_reduce_': lambda L, b: b.scatter_(0, L.tensor([[0, 1, 2]]), L.tensor([[1., 2., 3.]], dtype=L.float64), reduce='add'),
    'conj_physical_': lambda L, b: b.conj_physical_(), 'polygamma_0': lambda L, b: b.polygamma_(0),
    'polygamma_2': lambda L, b: b.polygamma_(2), 'digamma_': lambda L, b: b.digamma_(),
    'ldexp_': lambda L, b: b.ldexp_(L.tensor([1., 2., 3.], dtype=L.float64)),
    'addr_': lambda L, b: b.addr_(L.tensor(V), L.tensor(V)),
    'acosh_then_conj_physical_': lambda L, b: b.acosh().conj_physical_(),   # the node of an earlier op stays as it was
    'acosh_out_of_place': lambda L, b: b.acosh(), 'polygamma_out_of_place': lambda L, b: L.polygamma(0, b),
}

def _run_inplace(L, case):
    a = L.tensor(np.abs(A) + 1.5, dtype=L.float64, requires_grad=True)
    b = a * 1
    r = INPLACE[case](L, b)
    name = type(r.grad_fn).__name__, type(b.grad_fn).__name__
    try: r.sum().backward()
    except Exception as e: return name, (type(e).__name__, str(e))
    return name, a.grad.numpy()

@pytest.mark.parametrize('case', sorted(INPLACE))
def test_inplace_node_as_torch(case):
    (ln, lg), (tn, tg) = _run_inplace(litnn, case), _run_inplace(torch, case)
    assert ln == tn
    if isinstance(tg, tuple): assert lg == tg
    else: np.testing.assert_allclose(lg, tg, rtol=1e-8)

# set_ where self or the source requires grad: torch records a node without a derivative (NotImplemented)
SET = {
    'nonleaf_from_grad': lambda L, b: b.set_(L.tensor([4., 5.], requires_grad=True)),
    'nonleaf_from_plain': lambda L, b: b.set_(L.tensor([4., 5.])),
    'plain_from_grad': lambda L, b: L.zeros(3).set_(L.tensor([4., 5.], requires_grad=True)),
    'nonleaf_emptied': lambda L, b: b.set_(),
    'nonleaf_from_storage': lambda L, b: b.set_(L.tensor([4., 5.]).untyped_storage()),
    'nonleaf_strided': lambda L, b: b.set_(L.tensor([4., 5., 6., 7.]), 1, (2,), (2,)),
    'exp_saved_output': lambda L, b: b.exp().set_(L.tensor([4., 5.])),
    'no_grad': lambda L, b: L.tensor([4., 5.], requires_grad=True).detach().set_(L.tensor([1., 2.])),
}

def _run_set(L, case):
    b = L.tensor([1., 2., 3.], requires_grad=True) * 1
    r = SET[case](L, b)
    out = [type(r.grad_fn).__name__ if r.grad_fn is not None else None, r.requires_grad, r.tolist()]
    if r.requires_grad:
        try: (r * 1).sum().backward(); out.append('ok')
        except RuntimeError as e: out.append(str(e))
    return out

@pytest.mark.parametrize('case', sorted(SET))
def test_set_records_a_node_without_derivative_as_torch(case):
    assert _run_set(litnn, case) == _run_set(torch, case)

def _logical(L, op, view):
    a = L.tensor([[0.5, -1.5], [1.0, 0.0]], requires_grad=True)
    b = a * 1
    y = b[1:] if view else b
    getattr(y, op)(*(() if op == 'logical_not_' else (L.tensor([1.0, 0.0]),)))
    (b * L.tensor([[1., 2.], [3., 4.]])).sum().backward()
    return type(y.grad_fn).__name__, type(b.grad_fn).__name__, b.tolist(), a.grad.tolist()

@pytest.mark.parametrize('op', ['logical_and_', 'logical_or_', 'logical_xor_', 'logical_not_'])
@pytest.mark.parametrize('view', [False, True])
def test_logical_inplace_records_nothing_as_torch(op, view):
    "torch's logical ops have no differentiable output: in place, self (and a view's base) keep their history."
    assert _logical(litnn, op, view) == _logical(torch, op, view)

def _fill_diagonal(L, shape, wrap, strided):
    a = L.tensor(np.arange(np.prod(shape), dtype=float).reshape(shape), requires_grad=True)
    b = a * 1
    if strided: b = b.mT.contiguous().mT
    b.fill_diagonal_(-1.5, wrap=wrap)
    (b * L.arange(float(np.prod(shape))).reshape(shape)).sum().backward()
    return type(b.grad_fn).__name__, b.flatten().tolist(), a.grad.flatten().tolist()

@pytest.mark.parametrize('shape,wrap,strided', [((3, 3), False, False), ((7, 3), True, False), ((7, 3), False, False),
                                                ((3, 5), True, False), ((3, 3, 3), False, False), ((5, 3), True, True)])
def test_fill_diagonal_is_a_fill_of_a_strided_view_as_torch(shape, wrap, strided):
    "torch's fill_diagonal_ fills an as_strided view: the history is CopySlices, the gradient zero on the diagonal."
    assert _fill_diagonal(litnn, shape, wrap, strided) == _fill_diagonal(torch, shape, wrap, strided)

# functions without a derivative: torch's result requires grad through a NotImplemented node whose backward raises
NO_DERIVATIVE = {
    'bernoulli_p': lambda L, x: L.bernoulli(x, 0.5), 'Tensor.bernoulli_p': lambda L, x: x.bernoulli(0.3),
    'binomial': lambda L, x: L.binomial(x * 10, x),
    'histogram': lambda L, x: L.histogram(x)[0], 'histogram_edges': lambda L, x: L.histogram(x, 3)[1],
    'histogram_weight': lambda L, x: L.histogram(x.detach(), 3, weight=x)[0],
    'histogramdd': lambda L, x: L.histogramdd(x[:, None], 2)[0], 'histogramdd_edges': lambda L, x: L.histogramdd(x[:, None], 2)[1][0],
    'detach_copy': lambda L, x: L.detach_copy(x), 'detach_copy_of_a_view': lambda L, x: L.detach_copy(x[1:]),
}

def _no_derivative(L, case):
    x = L.tensor([0.2, 0.7, 0.4], requires_grad=True)
    r = NO_DERIVATIVE[case](L, x)
    try: r.sum().backward(); err = None
    except RuntimeError as e: err = str(e)
    return type(r.grad_fn).__name__, r.requires_grad, err

@pytest.mark.parametrize('case', sorted(NO_DERIVATIVE))
def test_no_derivative_node_as_torch(case):
    assert _no_derivative(litnn, case) == _no_derivative(torch, case)

def _slogdet(L):
    A = L.tensor([[2., 1.], [0.5, 3.]], dtype=L.float64, requires_grad=True)
    s, l = L.linalg.slogdet(A)
    (s.sum() + l.sum()).backward()
    return [(v.requires_grad, type(v.grad_fn).__name__) for v in (s, l, L.slogdet(A)[0])], A.grad.tolist()

def test_slogdet_sign_is_an_output_of_the_node_as_torch():
    "torch's real sign is an output of LinalgSlogdetBackward0 (it requires grad; its gradient is zero)."
    (ln, lg), (tn, tg) = _slogdet(litnn), _slogdet(torch)
    assert ln == tn
    np.testing.assert_allclose(lg, tg, rtol=1e-12)

@pytest.mark.parametrize('dtype', ['float64', 'complex128'])
@pytest.mark.parametrize('which', ['sign', 'logabsdet', 'both'])
def test_slogdet_gradient_from_one_output_as_torch(which, dtype):
    "A backward from the sign alone gives a real A no gradient at all (torch's formula takes the undefined logabsdet gradient)."
    def f(L):
        A = L.tensor([[2., 1.], [0.5, 3.]], dtype=getattr(L, dtype), requires_grad=True)
        s, l = L.linalg.slogdet(A)
        r = {'sign': s.abs().sum() if dtype == 'complex128' else s.sum(), 'logabsdet': l, 'both': s.abs().sum() + l}[which]
        (g,) = L.autograd.grad(r, A, allow_unused=True)
        return None if g is None else np.round(g.detach().numpy(), 10).tolist()
    l, t = f(litnn), f(torch)
    assert (l is None) == (t is None)
    if t is not None: np.testing.assert_allclose(np.array(l), np.array(t), atol=1e-12)

M34, M42, M25, M53 = (np.random.default_rng(k).standard_normal(s) for k, s in enumerate([(3, 4), (4, 2), (2, 5), (5, 3)]))
SQ = np.random.default_rng(7).standard_normal((3, 3)); X234 = np.random.default_rng(8).standard_normal((2, 3, 4))

# composites whose last nodes are torch's: the same names down the first edges, values and gradients
LAST_NODES = {
    'multi_dot_2': (lambda L, a, b: L.linalg.multi_dot([a, b]), (M34, M42)),
    'multi_dot_3': (lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), (M34, M42, M25)),
    'multi_dot_4': (lambda L, a, b, c, d: L.linalg.multi_dot([a, b, c, d]), (M34, M42, M25, M53)),
    'multi_dot_vectors': (lambda L, v, a, b, c, d, w: L.linalg.multi_dot([v, a, b, c, d, w]), (V, M34, M42, M25, M53, V)),
    'chain_matmul_2': (lambda L, a, b: L.chain_matmul(a, b), (M34, M42)),
    **{f'matrix_power_{n}': (lambda L, a, n=n: L.linalg.matrix_power(a, n), (SQ,)) for n in (-2, -1, 0, 1, 2, 3, 4, 5, 7)},
    'matrix_power_method_0': (lambda L, a: a.matrix_power(0), (SQ,)),
    'diff_0': (lambda L, v: L.diff(v, 0), (V,)),
    **{f'norm_except_dim_{d}': (lambda L, x, d=d: L.norm_except_dim(x, 2, d), (X234,)) for d in (-1, 0, 1, 2, -2)},
    'norm_except_dim_1d': (lambda L, v: L.norm_except_dim(v, 2, 0), (V,)),
    'repeat_interleave': (lambda L, v: L.repeat_interleave(v, 2), (V,)),
    'repeat_interleave_dim': (lambda L, x: L.repeat_interleave(x, 3, dim=1), (X234,)),
    'repeat_interleave_flat': (lambda L, x: x.repeat_interleave(2), (X234,)),
    'repeat_interleave_tensor': (lambda L, x: L.repeat_interleave(x, L.tensor([1, 2, 0]), dim=1), (X234,)),
    # torch's C++ composites call the .Scalar overloads (MulBackward1...: one edge)
    'trapezoid': (lambda L, v: L.trapezoid(v), (V,)), 'trapz_dx': (lambda L, x: L.trapz(x, dx=2., dim=1), (X234,)),
    'trapezoid_x': (lambda L, v, w: L.trapezoid(v, x=w), (V, V[::-1].copy())),
    'cumulative_trapezoid': (lambda L, x: L.cumulative_trapezoid(x, dx=0.5), (X234,)),
    'cumulative_trapezoid_x': (lambda L, v, w: L.cumulative_trapezoid(v, x=w), (V, V[::-1].copy())),
    'pairwise_distance': (lambda L, a, b: L.nn.functional.pairwise_distance(a, b), (A, B)),
    'margin_ranking_loss': (lambda L, a, b: L.nn.functional.margin_ranking_loss(a, b, L.tensor(np.sign(V))), (V, V[::-1].copy())),
    # quantile: torch's quantile_compute (sorted rows viewed, gathered, lerp_ then squeeze_ in place)
    **{f'quantile_{k}': (lambda L, x, k=k: getattr(L, 'nanquantile' if 'nan' in k else 'quantile')(
        x, L.tensor([0.2, 0.7], dtype=L.float64) if 'qs' in k else 0.3, dim=None if 'all' in k else 1, keepdim='keep' in k,
        interpolation='midpoint' if 'mid' in k else 'linear'), (X234,)) for k in ('dim', 'all', 'keep_dim', 'qs_dim', 'qs_keep_all', 'nan_mid_dim')},
}

def _last_nodes(L, case):
    import warnings
    f, arrays = LAST_NODES[case]
    xs = [L.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')      # (chain_matmul is deprecated)
        r = f(L, *xs)
    names, fn = [], r.grad_fn
    while fn is not None and len(names) < 3:
        names.append(type(fn).__name__); fn = fn.next_functions[0][0] if fn.next_functions else None
    gs = L.autograd.grad(r.sum(), xs, allow_unused=True)
    return names, list(r.shape), r.detach().numpy(), [None if g is None else g.numpy() for g in gs]

@pytest.mark.parametrize('case', sorted(LAST_NODES))
def test_composite_last_nodes_as_torch(case):
    (ln, ls, lv, lg), (tn, ts, tv, tg) = _last_nodes(litnn, case), _last_nodes(torch, case)
    assert (ln, ls) == (tn, ts)
    np.testing.assert_allclose(lv, tv, rtol=1e-10, atol=1e-12)
    for a, b in zip(lg, tg):
        assert (a is None) == (b is None)
        if b is not None: np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

@pytest.mark.parametrize('args', [(-1,), (2, None, 7)])
def test_repeat_interleave_int_errors_as_torch(args):
    from torch_pairs import same_message
    same_message(lambda L: L.repeat_interleave(L.tensor([1., 2., 3., 4.]), *args[:2], **({'output_size': args[2]} if len(args) > 2 else {})))

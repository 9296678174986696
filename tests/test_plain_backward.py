"""A plain backward (no `create_graph`) passes arrays through the formulas of `on_arrays` ops: the same gradients
as the recorded (tensor) backward and as PyTorch, tensors wherever user code looks, numpy's 0-d scalars made arrays."""
import numpy as np, pytest
import litnn
from litnn.autograd.graph import Op
from litnn.autograd.engine import _OneNode
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
def randn(*s, dtype=np.float64): return rng.standard_normal(s).astype(dtype)

def F(x): return litnn.nn.functional if isinstance(x, litnn.Tensor) else torch.nn.functional
def _lib(x): return litnn if isinstance(x, litnn.Tensor) else torch
TARGETS, CLASS_WEIGHTS = np.array([1, 0, 3]), rng.random(5) + 0.5

# name: (function of tensors, input arrays); every `on_arrays` op must appear in some case (see the last test)
IDX, IDX2 = np.array([0, 2, 2, 1]), np.array([1, 3, 3, 0])
CASES = {
    'AddBackward0': (lambda x, y: x + y, [randn(3, 4), randn(4)]),
    'AddBackward0_alpha': (lambda x, y: x.add(y, alpha=-2.5), [randn(2, 3), randn(1, 3)]),
    'SubBackward0': (lambda x, y: x - y, [randn(3, 1), randn(1, 4)]),
    'MulBackward0': (lambda x, y: x * y, [randn(2, 3, 4), randn(3, 1)]),
    'MulBackward0_number': (lambda x: x * 1.5 * 2, [randn(5)]),
    'DivBackward0': (lambda x, y: x / y, [randn(3, 4), randn(4) + 3]),
    'RsubBackward1': (lambda x: 2 - x, [randn(3)]),
    'NegBackward0': (lambda x: -x, [randn(2, 2)]),
    'SumBackward0': (lambda x: x.sum() * x, [randn(3)]),
    'SumBackward1': (lambda x: x.sum(1) * 2, [randn(2, 3, 4)]),
    'MeanBackward0': (lambda x: x.mean() * x, [randn(4)]),
    'MeanBackward1': (lambda x: x.mean((0, 2), keepdim=True) * x, [randn(2, 3, 4)]),
    'ExpandBackward0': (lambda x: x.expand(3, 2, 4) * 1.5, [randn(2, 1)]),
    'ViewBackward0': (lambda x: x.reshape(4, 3) * 2, [randn(3, 4)]),
    'TBackward0': (lambda x, y: x.t() * y, [randn(3, 4), randn(4, 3)]),
    'TransposeBackward0': (lambda x: x.transpose(0, 2) * 2, [randn(2, 3, 4)]),
    'PermuteBackward0': (lambda x: x.permute(2, 0, 1) * 2, [randn(2, 3, 4)]),
    'MmBackward0': (lambda x, y: x @ y, [randn(3, 4), randn(4, 5)]),
    'MmBackward0_transposed': (lambda x, y: x @ y.t(), [randn(3, 4), randn(5, 4)]),
    'MmBackward0_first_transposed': (lambda x, y: x.t() @ y, [randn(3, 4), randn(3, 5)]),    # a column-major input
    'MmBackward0_both_transposed': (lambda x, y: x.t() @ y.t(), [randn(3, 4), randn(5, 3)]),
    'MvBackward0': (lambda x, y: x @ y, [randn(3, 4), randn(4)]),
    'DotBackward0': (lambda x, y: x @ y, [randn(4), randn(4)]),
    'BmmBackward0': (lambda x, y: x.bmm(y), [randn(2, 3, 4), randn(2, 4, 5)]),
    'matmul_broadcast': (lambda x, y: x @ y, [randn(2, 3, 4), randn(4, 5)]),
    'matmul_vector_batch': (lambda x, y: x @ y, [randn(4), randn(2, 4, 5)]),
    'AddmmBackward0': (lambda b, x, y: b.addmm(x, y, beta=0.5, alpha=2.), [randn(5), randn(3, 4), randn(4, 5)]),
    'SoftmaxBackward0': (lambda x: x.softmax(1), [randn(3, 5)]),
    'LogSoftmaxBackward0': (lambda x: x.log_softmax(-1), [randn(3, 5)]),
    'SelectBackward0': (lambda x: x[1] * 2, [randn(3, 4)]),
    'SliceBackward0': (lambda x: x[1:, ::2] * 2, [randn(3, 4)]),
    'IndexBackward0': (lambda x: x[IDX, IDX2] * 2, [randn(3, 4)]),      # repeated (row, column) pairs add up
    'IndexBackward0_rows': (lambda x: x[IDX] * 2, [randn(3, 4)]),
    'GatherBackward0': (lambda x: x.gather(1, _lib(x).tensor(np.array([[0, 3, 3], [1, 1, 0], [2, 0, 2]]))) * 2, [randn(3, 4)]),   # repeated indices add up
    'UnsqueezeBackward0': (lambda x: x.unsqueeze(1) * 2, [randn(3)]),
    'SqueezeBackward0': (lambda x: x.squeeze() * 2, [randn(3, 1)]),
    'tanh': (lambda x: x.tanh(), [randn(6)]),
    'sigmoid': (lambda x: x.sigmoid(), [randn(6) * 30]),
    'exp_log': (lambda x: x.exp().log1p().sqrt(), [randn(6)]),
    'unary_more': (lambda x: x.expm1() + (x * x + 1).log() + (x * x + 1).rsqrt() + (x * x + 1).reciprocal(), [randn(6)]),
    'relu': (lambda x: x.relu(), [randn(6)]),
    'leaky_relu_inplace': (lambda x: (litnn.nn.functional if isinstance(x, litnn.Tensor) else torch.nn.functional).leaky_relu(x * 1, 0.2, inplace=True), [randn(6)]),
    'leaky_relu': (lambda x: F(x).leaky_relu(x, 0.2), [randn(6)]),
    'conv2d': (lambda x, w, b: F(x).conv2d(x, w, b, stride=2, padding=1), [randn(2, 3, 7, 6), randn(4, 3, 3, 3), randn(4)]),
    'conv1d_groups': (lambda x, w: F(x).conv1d(x, w, groups=2, dilation=2), [randn(2, 4, 9), randn(6, 2, 3)]),
    'max_pool2d': (lambda x: F(x).max_pool2d(x, 2), [randn(2, 3, 6, 6)]),
    'max_pool2d_indices': (lambda x: F(x).max_pool2d(x, 2, return_indices=True)[0] * 2, [randn(2, 3, 6, 6)]),   # a node of two outputs
    'max_pool2d_overlapping': (lambda x: F(x).max_pool2d(x, 3, stride=1, padding=1), [randn(1, 2, 5, 5)]),
    'avg_pool2d': (lambda x: F(x).avg_pool2d(x, 3, stride=2, padding=1), [randn(2, 3, 7, 7)]),
    'adaptive_avg_pool2d': (lambda x: F(x).adaptive_avg_pool2d(x, (2, 3)), [randn(2, 3, 5, 7)]),
    'cross_entropy': (lambda x: F(x).cross_entropy(x, _lib(x).tensor(TARGETS)), [randn(3, 5)]),
    'nll_loss_weighted': (lambda x: F(x).nll_loss(x, _lib(x).tensor(TARGETS), weight=_lib(x).tensor(CLASS_WEIGHTS).to(x.dtype), reduction='sum'), [randn(3, 5)]),
    'einsum': (lambda x, y: _lib(x).einsum('bij,jk->bik', x, y), [randn(2, 3, 4), randn(4, 5)]),
    'einsum_diagonal': (lambda x, y: _lib(x).einsum('iij,j->ij', x, y), [randn(3, 3, 4), randn(4)]),
    'zero_d': (lambda x, y: -(x * y) / y, [randn(), randn()]),
    'lstm': (lambda x, h, c: _lstm(x, h, c), [randn(2, 1, 3), randn(1, 1, 2), randn(1, 1, 2)]),   # 2 steps: the walk below visits every path
    'gelu': (lambda x: F(x).gelu(x) + F(x).gelu(x, approximate='tanh'), [randn(6) * 3]),
    'elu_inplace': (lambda x: F(x).elu(x * 1, 1.5, inplace=True) + F(x).selu(x * 2, inplace=True), [randn(6)]),   # EluBackward1: from the result
    'celu_inplace': (lambda x: F(x).celu(x * 1, 0.7, inplace=True), [randn(6)]),                                  # CeluBackward1
    'scalar_overload_nodes': (lambda x, y: _lib(x).trapezoid(x, dx=0.5) * y + _lib(x).trapezoid(y, _lib(x).arange(4.).to(x.dtype)) + F(x).pairwise_distance(x[None], y[None]),
                              [randn(4), randn(4)]),     # MulBackward1, DivBackward1, AddBackward1: torch's composites' Scalar overloads
    'group_norm': (lambda x, w, b: F(x).group_norm(x, 2, w, b), [randn(2, 4, 3), randn(4), randn(4)]),
    'interpolate_nearest': (lambda x: F(x).interpolate(x, size=(5, 7), mode='nearest') + F(x).interpolate(x, size=(5, 7), mode='nearest-exact')
                            + F(x).interpolate(x, scale_factor=2, mode='nearest')[..., :5, :7], [randn(2, 3, 3, 4)]),   # UpsampleNearestBackward0
    'scaled_dot_product_attention': (lambda q, k, v: F(q).scaled_dot_product_attention(q, k, v, is_causal=True), [randn(2, 3, 4), randn(2, 5, 4), randn(1, 5, 2)]),
}

LSTM_WEIGHTS = [randn(8, 3), randn(8, 2), randn(8), randn(8)]
def _lstm(x, h, c):
    "nn.LSTM(3, 2) with fixed weights: LstmLayerBackward0 (46_recurrence) in litnn."
    lib = _lib(x)
    m = lib.nn.LSTM(3, 2).to(x.dtype)
    with lib.no_grad():
        for p, w in zip(m.parameters(), LSTM_WEIGHTS): p.copy_(lib.tensor(w))
    return m(x, (h, c))[0]
from plain_backward_cases import NN_CASES      # the later parts' formulas
CASES.update(NN_CASES)

_SPARSE_AT = np.array([[0, 1, 2, 2], [1, 0, 3, 1]])       # the pattern of a 3x4 sparse matrix with 4 entries
def _lib_of(t): return litnn if isinstance(t, litnn.Tensor) else torch
def _sparse(v):
    L = _lib_of(v)
    return L.sparse_coo_tensor(L.tensor(_SPARSE_AT), v, (3, 4))
CASES.update({    # reference/sparse: the values' and the dense operand's gradients
    'SparseAddmmBackward0': (lambda v, d: _lib_of(v).sparse.mm(_sparse(v), d), [randn(4), randn(4, 2)]),
    'MmBackward0_sparse': (lambda v, d: _lib_of(v).mm(_sparse(v), d), [randn(4), randn(4, 2)]),
    'SparseCooTensorWithDimsAndTensorsBackward0': (lambda v, d: _sparse(v) @ d, [randn(4), randn(4, 5)]),
    'MmBackward0_dense_sparse': (lambda d, v: d @ _sparse(v), [randn(2, 3), randn(4)]),
})

def _lib_args(lib, arrays, rg=True):
    return [lib.tensor(a.copy(), requires_grad=rg) for a in arrays]

def _grads(lib, f, arrays, gout, create_graph):
    xs = _lib_args(lib, arrays)
    out = f(*xs)
    out.backward(lib.tensor(gout, requires_grad=create_graph), create_graph=create_graph)   # recorded: grads depend on gout
    return [x.grad for x in xs]

@pytest.mark.parametrize('name', list(CASES))
def test_plain_backward_matches_recorded_and_torch(name):
    f, arrays = CASES[name]
    for dt in (np.float64, np.float32):
        arrays_dt = [a.astype(dt) for a in arrays]
        with litnn.no_grad(): shape = f(*_lib_args(litnn, arrays_dt, False)).shape
        gout = rng.standard_normal(tuple(shape)).astype(dt)
        plain = _grads(litnn, f, arrays_dt, gout, False)
        recorded = _grads(litnn, f, arrays_dt, gout, True)
        ref = _grads(torch, f, arrays_dt, gout, False)
        tol = dict(rtol=1e-10, atol=1e-12) if dt == np.float64 else dict(rtol=1e-4, atol=1e-5)
        for p, r, t in zip(plain, recorded, ref):
            assert type(p) is litnn.Tensor and type(p._data) is np.ndarray and p.grad_fn is None
            assert p.dtype.name == str(t.dtype).split('.')[-1] and tuple(p.shape) == tuple(t.shape)
            assert r.requires_grad                       # the recorded backward really was recorded
            np.testing.assert_allclose(p.numpy(), r.detach().numpy(), **tol)
            np.testing.assert_allclose(p.numpy(), t.numpy(), **tol)

def _subclasses(c):
    for s in c.__subclasses__(): yield s; yield from _subclasses(s)

def _formula(c):
    "What decides an op's backward: the class that defines `backward`, and the derivative of a `_Unary` row."
    return next((k for k in c.__mro__ if 'backward' in vars(k)), None), getattr(c, 'df', None)

def test_every_array_formula_has_a_case():
    "Each backward formula that runs on arrays is exercised above (a new op that opts in needs a case), forward or in a recorded backward."
    seen = set()
    for name, (f, arrays) in CASES.items():
        xs = _lib_args(litnn, arrays)
        out = f(*xs)
        grads = litnn.autograd.grad(out, xs, litnn.ones_like(out), create_graph=True, allow_unused=True)
        stack = [out.grad_fn] + [g.grad_fn for g in grads if g is not None]
        visited = set()                 # each node once: shared paths would make the walk exponential
        while stack:
            n = stack.pop()
            if n is None or id(n) in visited: continue
            visited.add(id(n)); seen.add(_formula(type(n))); stack += [fn for fn, _ in n.next_functions]
            if isinstance(n, _OneNode): stack += [o.grad_fn for o in n._saved[0] if isinstance(o, litnn.Tensor)]   # (its composite's own graph)
    on_arrays = {c for c in _subclasses(Op) if c.on_arrays and _formula(c)[0] is not None}
    assert len(on_arrays) > 30
    # sparse conversions whose backward refuses a second derivative (no recorded backward to compare with):
    # their plain backward is compared with torch's in tests/test_sparse_nested_more.py (SparseMaskBackward0: tests/test_sparse.py)
    first_order_only = {'ToDenseBackward0', 'CoalesceBackward0', 'ToSparseCsrBackward0', 'ValuesBackward0', 'SparseCompressedTensorBackward0',
                        'SparseSparseMatmulBackward0', 'SparseSampledAddmmBackward0', 'ToSparseBackward1', 'SparseMaskBackward0'}
    no_derivative = {'GeqrfBackward0'}     # torch defines none: its backward raises torch's NotImplementedError
    # torch.mm of two sparse matrices, named MmBackward0 as torch names it (so not by name here): its create_graph road is
    # SparseSparseMatmulBackward0's; its plain gradients are compared with torch's in tests/test_sparse.py
    first_order_classes = {litnn._products._SparseSparseMm}
    assert {c.__name__ for c in on_arrays if _formula(c) not in seen and _formula(c)[0].__name__ not in first_order_only | no_derivative
            and _formula(c)[0] not in first_order_classes} == set()

def test_zero_d_gradients_are_arrays():
    "numpy returns 0-d results as scalars; every gradient user code sees is a tensor over a real array."
    x = litnn.tensor(3., requires_grad=True)
    (x * x).backward()
    assert type(x.grad._data) is np.ndarray and x.grad.item() == 6.
    (g,) = litnn.autograd.grad(x * x * x, x)
    assert type(g._data) is np.ndarray and g.item() == 27.
    y = x * 2; y.retain_grad(); seen = []
    y.register_hook(lambda g: seen.append(type(g._data)))
    (y * y).backward()
    assert seen == [np.ndarray] and type(y.grad._data) is np.ndarray and y.grad.item() == 12.

def test_node_hooks_see_tensors_and_may_replace():
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = x * 3
        seen = []
        y.grad_fn.register_prehook(lambda gos: seen.append(('pre', type(gos[0]).__name__)) or (gos[0] * 2,))
        y.grad_fn.register_hook(lambda gis, gos: seen.append(('post', type(gis[0]).__name__)) or (gis[0] + 1, None))
        y.sum().backward()
        return seen, x.grad.tolist()
    (sl, gl), (st, gt) = run(litnn), run(torch)
    assert gl == gt == [7., 7.] and sl == [(w, 'Tensor') for w, _ in st]

def test_custom_function_gets_tensors_in_plain_backward():
    seen = []
    class Cube(litnn.autograd.Function):
        @staticmethod
        def forward(ctx, x): ctx.save_for_backward(x); return x * x * x
        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors; seen.append(type(g)); return g * 3 * x * x
    x = litnn.tensor([1., 2.], requires_grad=True)
    (Cube.apply(x) * 2).sum().backward()
    assert seen == [litnn.Tensor] and x.grad.tolist() == [6., 24.]

def test_negative_zero_numbers_keep_their_sign():
    "Numbers are cached as 0-d arrays: -0.0 must not come back as 0.0 (they are equal dict keys)."
    x = litnn.tensor([0., -0., 1.])
    _ = x * 0.0, x + 0.0                          # put +0.0 in litnn's number cache first
    res = {}
    for lib in (litnn, torch):
        x = lib.tensor([0., -0., 1.], requires_grad=True)
        y = x * -0.0
        z = lib.tensor([0., -0.]) + -0.0
        y.sum().backward()
        res[lib.__name__] = (np.signbit(y.detach().numpy()).tolist(), np.signbit(z.numpy()).tolist(), np.signbit(x.grad.numpy()).tolist())
    assert res['litnn'] == res['torch']

@pytest.mark.parametrize('dt', [np.float16, np.float32, np.float64])
def test_sigmoid_extremes_and_gradients(dt):
    x0 = np.array([-np.inf, -1e4, -745., -710., -104., -89., -88., -20., -1e-8, 0., 1e-8, 20., 37., 88., 89., 710., 1e4, np.inf, np.nan], dt)
    xl, xt = litnn.tensor(x0, requires_grad=True), torch.tensor(x0, requires_grad=True)
    yl, yt = xl.sigmoid(), xt.sigmoid()
    yl.sum().backward(); yt.sum().backward()
    rtol = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-15}[dt]
    tiny = float(np.finfo(dt).tiny)    # below it litnn gives e^x as a subnormal where torch flushes to 0
    np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=tiny)
    # y (1 - y), torch's formula too, cancels near saturation: both lose digits there (x = 20: 1e-8 in float64)
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=max(rtol * 4, 1e-7), atol=tiny)
    assert not np.isnan(yl.detach().numpy()[:-1]).any() and np.isnan(yl.detach().numpy()[-1])

def test_gradient_given_as_a_number_is_refused_as_torch():
    "`backward([number])`: torch accepts only tensors (or None) as gradients, with this TypeError."
    w = litnn.tensor([1., 2.], requires_grad=True)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got float"):
        (w * 2).sum().backward([0.5])
    assert w.grad is None

@pytest.mark.parametrize('name', ['MulBackward0', 'LogSoftmaxBackward0', 'sigmoid', 'MmBackward0_first_transposed', 'conv2d'])
def test_retained_graph_runs_twice(name):
    "With retain_graph=True the saved arrays serve a second plain backward (and gradients accumulate), as in torch."
    f, arrays = CASES[name]
    res = []
    for lib in (litnn, torch):
        xs = _lib_args(lib, arrays)
        out = f(*xs).sum()
        out.backward(retain_graph=True); out.backward()
        res.append([x.grad.numpy() for x in xs])
    for a, b in zip(*res): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

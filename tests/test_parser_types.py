"""torch's argument parser's type checks, as litnn makes them: an argument every signature of a function types as a
Tensor or an int (`_PARSER_TYPES`, read from torch's type stubs by tools/parser_types.py) and the int lists of sizes and
dims (`_int_list`) refuse other types with torch's TypeError, before any kernel runs. Each call is made in both
libraries: the exception type must agree, and its message up to torch's list of signatures."""
import warnings, numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def _outcome(L, call):
    x = L.ones(3, 3)
    try: r = eval(call, dict(L=L, np=np, x=x))
    except Exception as e: return type(e).__name__, str(e).replace('litnn', 'torch').split(', but expected one of')[0].split('\n')[0]
    return 'ok', tuple(r.shape) if hasattr(r, 'shape') else None

SIZES = ["'a'", 'None', '1.5', 'L.ones(2)', "1, 'a'", '3, 1.5', 'True', "[3, 'a']", '[3, 3.0]', '(L.tensor(3), 3)', 'np.int64(9)',
         '[L.tensor([3]), 3]', '3, None', '(3, 3), 1', '9', '(9,)', '-1, 3']
SIZE_CALLS = [f'x.{m}({a})' for m in ('view', 'reshape', 'expand', 'permute', 'repeat', 'tile', 'new_zeros', 'flip') for a in SIZES]
SIZE_CALLS += ['L.reshape(x, 9)', 'L.reshape(x, (9,))', 'L.permute(x, 1)', 'L.tile(x, 2)', 'L.reshape(x, [9.0])', 'L.reshape(x, None)',
               'L.flip(x, 0)', 'L.flip(x, (0,))', 'x.reshape(shape=9)', 'x.reshape(shape=[9.0])', 'x.view(L.tensor(9))', 'x.view(L.float16)',
               'x.expand(3, L.tensor([3]))', 'x.view(-1, np.int64(3))', 'x.expand(size=(3, 3))', 'x.permute(dims=(1, 0))']

TYPED_CALLS = ["x.view_as('a')", 'x.view_as(None)', 'x.expand_as(1.5)', 'x.reshape_as([1, 2])', 'x.type_as(None)', "x.kron('a')",
               'x.inner(None)', 'x.take([0, 1])', "x.take_along_dim('a')", 'x.is_same_size(3)', 'x.diag(True)', 'x.diag(1.5)',
               'x.diag(L.tensor(1))', 'x.diag(np.int64(1))', 'L.atan2(x, 0.5)', 'L.atan2(x, x)', "x.masked_fill(None, 0)",
               "x.masked_fill(x > 0, 'a')", 'x.chunk(1.5)', 'x.chunk(True)', 'L.allclose(x, 1.0)', 'L.add(x, 1.5)', 'x.mul(2)',
               'x.copy_(0.5)', 'x.bmm(None)', 'x.addmm(x, None)', 'x.addmm(mat1=None, mat2=x)', 'L.randint(100, (3, 3))',
               'L.randint(0, 10, (2,))', 'x.cumsum(1.5)', 'x.cumsum(dim=1.5)', "x.index_select(0, 'a')", 'x.gather(0, None)',
               'L.cross(x, None)', 'x.argsort(dim=None)', 'x.masked_scatter(x > 0, None)']

# bool and memory-format arguments (the stubs' `_bool`, `memory_format`; with `| None`, None too), and more arguments by
# position than torch's signatures take (memory_format is keyword-only in every one of them)
TYPED_CALLS += ["x.svd('a')", 'x.svd(1)', "x.qr(some='a')", 'x.qr(True)', 'x.cholesky(1)', 'x.cholesky(upper=None)', 'x.sum(0, None)',
                'x.fill_diagonal_(1, \'a\')', 'L.ones(2, requires_grad=None)', 'x.float(None)', 'x.double(1, 2)', 'x.contiguous(1)',
                'x.contiguous(memory_format=None)', "x.clone(memory_format='a')", 'x.clone(memory_format=None)', 'x.cpu(None)',
                'x.is_contiguous(L.ones(2))', 'x.float(memory_format=L.contiguous_format)', 'x.float(memory_format=1)',
                'L.empty_like(x, memory_format=1)', 'L.empty_like(x, memory_format=None)', 'x.acos_(1)', 'L.acos_(x, 1)', 'L.logit_(x, 1, 2)',
                'x.nan_to_num_(0.0, 1.0, 2.0, 3.0)', 'L.clamp_(x, 0, 1, 2)', 'x.to(L.float64, False, False, False, False)']
# torch's IntArrayRef parser reads the first element to choose a signature ("found element of type str at pos 0"; by keyword
# "not tuple"), the others when it unpacks ("failed to unpack the object at pos 2")
SIZE_CALLS += ["L.empty(('a', 2))", "L.empty((2, 'a'))", "L.zeros((2, 3, 1.5))", "L.empty(size=(2, 'a'))", "L.empty(size=('a', 2))", "L.empty(size='a')",
               "L.empty(2, 'a')", "x.reshape(('a', 3))", "x.reshape(shape=('a', 3))", "x.permute(('a', 1))", "x.view(('a', 3))", "x.new_zeros(('a', 3))",
               "x.sum_to_size(('a', 3))", "x.sum_to_size((3, 'a'))", "x.sum_to_size('a')", "x.sum_to_size(1, 'a')", 'x.sum_to_size(1.5)',
               'x.sum_to_size(1, 3)', 'x.sum_to_size((3, 1))', 'x.sum_to_size(L.Size([1, 3]))', "x.broadcast_to(('a', 3))",
               "x.broadcast_to((3, 'a'))", "x.broadcast_to('a')", 'x.broadcast_to(-5)', "x.broadcast_to(size=('a', 3))", 'x.broadcast_to(3, 3)',
               'x.broadcast_to(size=(2, 3, 3))', 'L.broadcast_to(x, (2, 3, 3))', "x.unflatten(1, ('a', 3))", "x.unflatten(1, (3, 'a'))", "x.unflatten(1, 'a')", "L.unflatten(x, 1, 'a')", "x.unflatten(1, (3, 1))"]
# a list of tensors (the stubs' `tuple[Tensor, ...] | list[Tensor]`): each element a tensor
TYPED_CALLS += ["L.cat([x, 'a'])", "L.cat(['a', x])", 'L.stack([x, None])', "L.cat(x, 'a')", 'L.hstack([x, 1.5])', 'L.cat((x, [1]))', "L.cat('a')",
                "L.cat([x, x], dim='a')", "L.dstack([x, 'a'])", "L.column_stack((x, 'a'))", "L.cat(tensors=[x, 'a'])", 'L.cat((x, x)).shape']
# torch's Python functions that hand tensors given one by one to a C++ function as one list
for f in ('atleast_1d', 'atleast_3d', 'broadcast_tensors', 'block_diag', 'cartesian_prod', 'chain_matmul', 'meshgrid'):
    TYPED_CALLS += [f"L.{f}('a')", f"L.{f}(L.ones(3), 'a')", f"L.{f}([L.ones(3), 'a'])", f'L.{f}([L.ones(3), L.ones(3)])', f'L.{f}((L.ones(3),))']
TYPED_CALLS += ["L.einsum('i->i', 'a')", "L.einsum('i,i->i', L.ones(2), None)", "L.einsum('i,i->i', [L.ones(2), 1])", "L.einsum('i,i->', [L.ones(2), L.ones(2)])"]
# int lists of torch's functions (the stubs' `_size` / `Sequence[_int | SymInt]`: 'I'; with `_int |`: one int too, 'I1')
TYPED_CALLS += ['L.full(3, 1.0)', 'L.full((3,), 1.0)', 'L.layer_norm(x, 3)', 'L.logsumexp(x, None)', "L.logsumexp(x, (0, 'a'))", "L.amax(x, 'a')",
                "L.amax(x, dim=('a',))", 'L.amax(x, L.tensor(0))', 'L.sum(x, (0, L.tensor(1)))', "L.empty_strided((2,), 'a')", 'L.permute_copy(x, -5)',
                "L.constant_pad_nd(x, 'a')", "L.rot90(x, 1, 'a')", "L.split_with_sizes(x, 'a')", "L.broadcast_to(x, (3, 'a'))", 'L.flip(x, 0)',
                "L.max_pool2d(L.ones(1, 2, 4, 4), 'a')", 'L.max_pool2d(L.ones(1, 2, 4, 4), 2.5)', "L.max_pool2d(L.ones(1, 2, 4, 4), (2, 'a'))",
                'L.max_pool2d(L.ones(1, 2, 4, 4), 2)', "L.conv2d(L.ones(1, 2, 4, 4), L.ones(2, 2, 2, 2), None, 'a')",
                'L.conv2d(L.ones(1, 2, 4, 4), L.ones(2, 2, 2, 2), stride=(1, 1.5))', 'L.conv2d(L.ones(1, 2, 4, 4), L.ones(2, 2, 2, 2), None, 2)',
                'L.avg_pool1d(L.ones(1, 2, 4), 2, None)', 'L.avg_pool1d(L.ones(1, 2, 4), 2, 2, None)', 'L.amax(x, None)', 'L.roll(x, 1, None)']   # (an empty default: None too)
# an optional Tensor (the stubs' `Tensor | None`): a tensor or None
TYPED_CALLS += ["L.ones(3, dtype=L.long).bincount('a')", 'L.ones(3, dtype=L.long).bincount(None)', "L.bincount(L.ones(3, dtype=L.long), [1, 2, 3])",
                "L.conv2d(L.ones(1, 2, 4, 4), L.ones(2, 2, 2, 2), 'a')", 'L.conv2d(L.ones(1, 2, 4, 4), L.ones(2, 2, 2, 2), None).shape']
# nn.functional's softmax family goes through the method, as torch's Python does: the method's parser words a wrong dim
TYPED_CALLS += ["L.nn.functional.softmax(x, 'a')", "L.nn.functional.softmax(x, dim='a')", 'L.nn.functional.log_softmax(x, 1.5)',
                "L.nn.functional.softmin(x, 'a')", 'L.nn.functional.softmax(x, 1, dtype=L.float64)', "L.nn.functional.softmax('a', 0)"]
# a Scalar argument (a number in every signature: no Tensor overload) takes a 0-d tensor outside the graph, not a longer one
TYPED_CALLS += ['L.celu(x, L.ones(2))', 'x.fill_diagonal_(L.tensor(2.0))', 'x.fill_diagonal_(L.ones(2))', 'L.full((2,), L.tensor(1.0))',
                'L.threshold(x, 0, L.ones(2))', 'L.rrelu(x, L.ones(2))']
# a Tensor argument given by position is checked where torch's signatures put it, whatever litnn's own names it there
TYPED_CALLS += ["x.addmm_(1, 'a')", "x.addmm_(x, 'a')", "x.cholesky_solve('a')", 'x.orgqr(None)', 'x.smm(1.5)', "x.map_(1, 'a')"]

# nn.functional's functions torch writes in Python hand their arguments to a C++ function (torch.X or torch._C._nn.X):
# its parser refuses a wrong one (`_FUNCTIONAL_CALLS`), where the argument keeps its name and position
TYPED_CALLS += [f'L.nn.functional.{c}' for c in (
    "elu(x, 'a')", 'elu(x, L.ones(2))', "elu(x, alpha='a')", 'max_pool2d(L.ones(1, 2, 4, 4), 2, ceil_mode=1)', "softplus(x, beta='a')", "elu_(x, [1, 2])", 'elu(x, 2.0, True)', 'elu(x, L.tensor(2.0))',
    "leaky_relu(x, 'a')", "leaky_relu_(x, 'a')", 'leaky_relu(x, 0.2, True)', "softplus(x, 'a')", "softplus(x, 1, 'a')",
    "softplus(x, beta=2, threshold=1)", 'softshrink(x, L.ones(2))', 'hardtanh_(x, L.ones(2))', 'hardtanh_(x, -0.5, 0.5)',
    'glu(L.ones(2, 4), True)', 'glu(L.ones(2, 4), 0)', 'celu(x, L.ones(2))', 'rrelu(x, 0.1, L.ones(2))', 'threshold(x, 0, L.ones(2))',
    'threshold(x, 0.5, 0.0, True)', "one_hot(L.tensor([1, 2]), 'a')", 'one_hot(L.tensor([1, 2]), None)', 'one_hot(L.tensor([1, 2]), 3)',
    "max_pool1d(L.ones(1, 2, 4), 'a')", 'max_pool1d(L.ones(1, 2, 4), 2, 1.5)', 'max_pool1d(L.ones(1, 2, 4), 2, None)',
    'max_pool1d_with_indices(L.ones(1, 2, 4), None)', 'max_pool2d(L.ones(1, 2, 4, 4), L.ones(2))', 'max_pool2d(L.ones(1, 2, 4, 4), True)',
    'max_pool2d(L.ones(1, 2, 4, 4), 2, None, 0, 1, False, True)[0]', 'max_pool2d_with_indices(L.ones(1, 2, 4, 4), 2, L.ones(2))',
    'max_pool3d(L.ones(1, 2, 4, 4), L.ones(2))', 'avg_pool2d(L.ones(1, 2, 4, 4), True)', 'avg_pool2d(L.ones(1, 2, 4, 4), 2, L.ones(2))',
    'avg_pool2d(L.ones(1, 2, 4, 4), 2, None, 0, False, True, None)', 'avg_pool3d(L.ones(1, 2, 4, 4), L.ones(2))',
    "adaptive_max_pool1d(L.ones(1, 2, 4), 'a')", 'adaptive_max_pool1d(L.ones(1, 2, 4), 2)', 'adaptive_max_pool1d_with_indices(L.ones(1, 2, 4), 1.5)',
    # C++ functions under F's name: gelu takes `approximate` by keyword only, as a str; hardtanh_ does not compare its bounds
    "gelu(x, 'tanh')", 'gelu(x, approximate=1)', "gelu(x, approximate='tanh')", 'hardtanh_(x, 1.5)', 'hardtanh_(x, 7, 3)',
    'glu(L.ones(2, 4), -3)', 'glu(L.ones(2, 4), 7)', 'glu(L.ones(2, 4), -2)',
    # F.elu_ is C++ elu_ in torch: scale and input_scale by position too
    'elu_(L.tensor([-1.0, 2.0]), 1, 1.5).tolist()', 'elu_(L.tensor([-1.0, 2.0]), 0.5, 2, 3).tolist()', "elu_(x, 1, 'a')")]
# subtract and rsub's Scalar signature takes alpha by position (`subtract(Scalar other, Scalar alpha=1)`), not deprecated
TYPED_CALLS += ['x.subtract(1, 1.5)', 'L.subtract(x, 1, 2)', 'x.subtract_(1, 2)', 'L.rsub(x, 1, 2)', 'L.subtract(x, 2, L.tensor(3.0))',
                'x.subtract(x, 2)', "x.subtract(1, 'a')", 'L.subtract(x, x, 2)', 'L.rsub(x, x, 2)', 'x.subtract(x, alpha=2)']
# Tensor.lu / torch.lu: torch's Python hands pivot by keyword to _lu_with_info, whose parser wants a bool
TYPED_CALLS += ["L.eye(3).lu('a')", 'L.eye(3).lu(1)', 'L.lu(L.eye(3), None)', 'L.eye(3).lu(pivot=np.True_)', "L.eye(3).lu(True, 'a')[0]",
                'L.lu(L.eye(3), pivot=True)[1]']
# an optional int (the stubs' `_int | None`): an int (or a 0-d integer tensor) or None
TYPED_CALLS += ["x.argmax('a')", 'x.argmax(None)', 'x.argmax(1.5)', 'x.argmax(L.tensor(1))', 'x.argmax(np.int64(1))', 'L.argmin(x, True)',
                'L.vander(L.ones(3), 1.5)', 'L.vander(L.ones(3), None)', "L.linspace(0, 1, 'a')", 'x.quantile(0.5, None)', "x.quantile(0.5, 'a')",
                "x.cross(x, 'a')", "x.take_along_dim(L.zeros(3, 3, dtype=L.long), 'a')", "x.as_strided((2,), (1,), 'a')", 'x.as_strided((2,), (1,), None)']

# an adaptive pool's output_size: torch's Python fills its Nones from the input's sizes (len() of anything not an int), then
# the C++ function's parser reads it as an int list; F.dropout1d checks the input's rank before C++ checks `training`
_POOLS = [('adaptive_avg_pool2d', 'L.ones(1, 2, 4, 4)'), ('adaptive_max_pool2d', 'L.ones(1, 2, 4, 4)'),
          ('adaptive_avg_pool3d', 'L.ones(1, 1, 2, 4, 4)'), ('adaptive_max_pool3d', 'L.ones(1, 1, 2, 4, 4)')]
TYPED_CALLS += [f'L.nn.functional.{f}({x}, {a})' for f, x in _POOLS
                for a in ('None', 'L.ones(2)', 'True', "'a'", '1.5', '(None, 2)', '2', '(1, 2, 2)', "[1, 'a']", 'np.int64(2)',
                          'L.tensor([1, 2])', '(1, 1, 1, 1, 1, 1)')]
TYPED_CALLS += [f'L.nn.functional.dropout1d({x}, {a})' for x in ('L.ones(1, 2, 4, 4)', 'L.ones(2, 3, 4)')
                for a in ("1, 'a'", '1, 1.5', '1.5', "0.5, 'a'", '0.5, L.ones(2)')]

# Tensor.split / torch.split (Python in torch): an int goes to C++ split (a bool refused there), anything else to
# split_with_sizes, each parser wording its own refusal
TYPED_CALLS += [c for a in ("'a'", 'None', '1.5', 'L.ones(2)', "1, 'a'", '1, 1.5', 'True',
                '1, L.ones(2)', '[1, 2]', '[1, 2], 1', 'L.tensor(1)', 'np.int64(1)', '[1, 2.0]', '1, None', '[1, 2], None', 'L.tensor([1, 2])',
                '[True, 2]', '1, True', '2, dim=1', "2, dim='a'", '[1, L.tensor(2)]') for c in (f'x.split({a})[0]', f'L.split(x, {a})[0]')]

@pytest.mark.parametrize('call', SIZE_CALLS + TYPED_CALLS)
def test_argument_types_as_torch(call):
    assert _outcome(litnn, call) == _outcome(torch, call)

# torch.linalg.LinAlgError is torch._C._LinAlgError (C++), a RuntimeError: its name in `type(e).__name__` and tracebacks;
# the deprecated torch.cholesky is its own kernel, named so in its messages
LINALG_CALLS = ['L.ones(3, 3).cholesky()', 'L.cholesky(L.ones(2, 3, 3), upper=True)', 'L.linalg.cholesky(L.ones(3, 3))', 'L.zeros(3, 3).inverse()',
                'L.linalg.cholesky_ex(L.ones(3, 3), check_errors=True)']

@pytest.mark.parametrize('call', LINALG_CALLS)
def test_linalg_errors_as_torch(call):
    assert _outcome(litnn, call) == _outcome(torch, call)

def test_linalg_error_class_as_torch():
    for attr in ('__name__', '__qualname__', '__module__'):
        assert getattr(litnn.linalg.LinAlgError, attr).replace('litnn', 'torch') == getattr(torch.linalg.LinAlgError, attr)
    assert litnn._C._LinAlgError is litnn.linalg.LinAlgError and issubclass(litnn.linalg.LinAlgError, RuntimeError)

def test_elu_inplace_scales_as_torch():
    for args in ((1, 1.5), (0.5, 2, 3), ()):
        got = [L.nn.functional.elu_(L.tensor([-1.0, 0.0, 2.0]), *args).tolist() for L in (litnn, torch)]
        np.testing.assert_allclose(*got, rtol=1e-6)

# names whose signatures type one argument differently (where's `self` a Tensor or a Number, x.max(dim) beside x.max(other)):
# torch's matching over the signature strings its build generates (`_PARSER_SIGNATURES`): a call no signature takes is
# the error of the one signature that could take that many arguments, else the invalid combination
OVERLOAD_CALLS = ["L.where(x, 'a')", 'L.where(x, None)', 'L.where(x, L.ones(2))', "L.where(x, 1, 'a')", 'L.where(x, x, x, bogus=1)',
                  'L.where(x > 0, x, 2, out=1)', 'L.where(x > 0, x, 2)', 'L.where(x > 0, 1.5, x)', "L.arange(x, 'a')", 'L.arange(x, 3)',
                  'L.arange(3, bogus=1)', 'L.arange(1.5, 4, 0.5)', 'x.max(None)', 'x.max([1, 2])', 'x.max((1,))', 'x.max(dim=None)',
                  'x.max(1, bogus=2)', 'x.max(True)', 'x.max(0)[0]', 'L.max(x, 1, True, out=1)', 'x.min(1.5)', 'x.median(None)',
                  "x.median('a')", 'x.nanmedian(None)', 'x.prod(None)', "x.squeeze('a')", "L.logsumexp(x, 'a')",
                  "L.trapezoid(x, 'a')", 'L.trapezoid(x, None)', 'L.trapezoid(x, 7)', 'L.trapezoid(x, 1, 1.5)', 'L.trapz(x, [1, 2])',
                  'L.cumulative_trapezoid(x, None)', 'L.trapezoid(x, dx=2.0)', "x.repeat_interleave('a')", 'x.repeat_interleave(1.5)',
                  'x.repeat_interleave(True)', 'x.repeat_interleave(2)', "L.repeat_interleave(x, 2, 'a')", "x.dsplit('a')", 'x.dsplit(1, 2.5)',
                  "x.hsplit(1, 'a')", 'x.vsplit(None)', 'x.hsplit(3)[0]', 'x.tensor_split(1.5)', 'x.tensor_split(2)[0]',
                  'x.random_(1.5)', "x.random_(1, 'a')", 'x.random_(1, 2, 3)', 'x.random_(0, 5)', "x.view((3, 3), 1)", 'x.view(3, (3,))',
                  'x.sum(axes=0)', 'L.sum(x, dim=0, axis=1)', 'x.sum(0, bogus=1)', 'L.sum(x, 0, False, 1, 2, 3)', 'x.sum((0, 1))',
                  'x.std(1.5)', 'x.var(None, True)', "x.clamp('a')", 'x.clamp(None, 1)', "L.pow(x, 'a')", "x.bernoulli('a')",
                  'L.normal(x, None)', "x.index_fill(0, L.tensor([0]), 'a')", "x.scatter(0, L.zeros(1, 1, dtype=L.long), 'a')",
                  "L.histc(x, 'a')", "x.div(2, rounding_mode=1)", 'x.masked_fill(x > 0, [1])', "L.eq(x, 'a')", "x.fill_('a')"]

@pytest.mark.parametrize('call', OVERLOAD_CALLS)
def test_overloads_as_torch(call):
    assert _outcome(litnn, call) == _outcome(torch, call)

def _message(L, call):
    x = L.ones(3, 3)
    with pytest.raises(Exception) as e: eval(call, dict(L=L, np=np, x=x))
    return type(e.value).__name__, str(e.value).replace('litnn', 'torch')

# the whole message: torch's listing of its signatures, and why each one of as many arguments as given did not match
@pytest.mark.parametrize('call', ["L.where(x, 'a')", "L.where(x, 1, 'a')", 'x.max(None)', 'x.max([1, 2])', 'x.max(dim=None)', "L.arange(x, 'a')",
                                  "L.trapezoid(x, 'a')", "x.dsplit('a')", 'x.random_(1.5)', "x.repeat_interleave('a')", 'x.view((3, 3), 1)',
                                  'x.sum(axes=0)', 'L.sum(x, 0, False, 1, 2, 3)', 'L.max(x, 0, bogus=1)', 'x.max((1,))'])
def test_overload_listing_as_torch(call):
    assert _message(litnn, call) == _message(torch, call)

# one signature bound by hand (torch.range) or behind torch's Python function (torch.cdist hands its tensors and p to C++ cdist)
TYPED_ONE = ['L.range(1, 2, 1, 1)', 'L.range(1, 2, dtype=1)', 'L.range(1, 2, layout=None)', 'L.range(1, 2, device=1.5)', 'L.range(1)',
             'L.range(1, 2, pin_memory=True)', 'L.range(1, 2, requires_grad=None)', 'L.range(1, 2, out=1)', 'L.range(1, 2, dtype=None)',
             "L.range(x, 'a')", 'L.range(1, 4, 0.5)', "L.cdist(x, x, 'a')", 'L.cdist(x, x, 2, None)', "L.cdist(x, x, 2, 'a')", 'L.cdist(x, x, x)',
             "L.cdist(x, x, 2, 'use_mm_for_euclid_dist', 5)", "L.cdist(x, 'a')", 'L.cdist(x, None)', "L.cdist(x, x, 2.0, 'use_mm_for_euclid_dist')"]

@pytest.mark.parametrize('call', TYPED_ONE)
def test_one_signature_as_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')      # (torch.range is deprecated)
        assert _outcome(litnn, call) == _outcome(torch, call)


def test_tables_are_the_generators_output_for_this_torch():
    """The tables the parser reads (`_PARSER_TYPES`, `_PARSER_ARITY`, `_PARSER_POSITIONAL`, `_NN_PARSER_TYPES`,
    `_PARSER_SIGNATURES`, `_F_CPP`) are what tools/parser_types.py makes from the installed torch's stubs and
    native_functions.yaml: a hand edit of one, or a name added to litnn since, shows here."""
    import importlib.util, pathlib
    import litnn._python_arg_parser as P
    spec = importlib.util.spec_from_file_location('parser_types', pathlib.Path(__file__).parents[1] / 'tools' / 'parser_types.py')
    pt = importlib.util.module_from_spec(spec); spec.loader.exec_module(pt)
    types_, arity, positional = pt.table()
    assert (types_, arity, positional) == (P._PARSER_TYPES, P._PARSER_ARITY, P._PARSER_POSITIONAL)
    assert pt.nn_table({op for side, op, _ in P._FUNCTIONAL_CALLS.values() if side == 'nn'}) == P._NN_PARSER_TYPES
    assert pt.signatures() == P._PARSER_SIGNATURES
    assert pt.f_cpp() == P._F_CPP


@pytest.mark.parametrize('call', [
    lambda L, x: x.sort(0, stable=True), lambda L, x: x.sort(0, True, stable=True), lambda L, x: L.sort(x, 0, stable=True),
    lambda L, x: x.sort(stable=True, dim=0), lambda L, x: x.argsort(0, stable=True), lambda L, x: L.argsort(x, 0, True, stable=True),
    lambda L, x: L.sort(x, stable=True), lambda L, x: x.sort(-1, True), lambda L, x: L.argsort(x, stable=True, descending=True)])
def test_keyword_only_in_its_signature(call):
    "sort's `stable` is keyword-only in the one signature that has it (dim, descending then by keyword too): a call"
    "with dim given by position and stable is one no signature takes, a TypeError in torch's words; the others run."
    outs = []
    for L in (torch, litnn):
        try: outs.append(('ok', call(L, L.tensor([3., 1., 2., 1.]))[0].tolist()))
        except TypeError as e: outs.append(('TypeError', str(e).split('\n')[0].replace('litnn', 'torch')))
    assert outs[0] == outs[1], outs

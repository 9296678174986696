"""index_put, put, index_reduce and the *_scatter functions of reference/torch/index_put against torch 2.13."""
import warnings, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
from api_pairs import torch, check, same_error

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x23, x34, x134, v4 = R(2, 3), R(3, 4), R(1, 3, 4), R(4)


# ---- reference/torch/index_put
I3, J3 = np.array([0, 2, 0]), np.array([1, 1, 1])
def T(L, a): return L.tensor(a)
INDEX_PUT = [
    ('index_put', lambda L, a, v: a.index_put((T(L, I3), T(L, J3)), v), [x34, R(3)]),
    ('index_put_acc', lambda L, a, v: L.index_put(a, (T(L, I3), T(L, J3)), v, accumulate=True), [x34, R(3)]),
    ('index_put_rows_acc', lambda L, a, v: a.index_put([T(L, I3)], v, True), [x34, R(4)]),
    ('index_put_mask', lambda L, a, v: a.index_put((T(L, np.array([True, False, True])),), v), [x34, R(1)]),
    ('index_put_', lambda L, a, v: (a * 1).index_put_((T(L, I3),), v, accumulate=True), [x34, R(3, 4)]),
    ('put', lambda L, a, v: a.put(T(L, np.array([0, 5, -1, 0])), v), [x34, R(4)]),
    ('put_acc', lambda L, a, v: L.put(a, T(L, np.array([[0, 5], [-1, 0]])), v, accumulate=True), [x23, R(2, 2)]),
    ('put_', lambda L, a, v: (a * 1).put_(T(L, np.array([1, 1])), v, True), [x23, R(2)]),
    ('select_scatter', lambda L, a, v: L.select_scatter(a, v, 1, -1), [x34, R(3)]),
    ('slice_scatter', lambda L, a, v: a.slice_scatter(v, 1, 1, None, 2), [x34, R(3, 2)]),
    ('slice_scatter_neg_end', lambda L, a, v: L.slice_scatter(a, v, 0, None, -1), [x34, R(2, 4)]),
    ('diagonal_scatter', lambda L, a, v: L.diagonal_scatter(a, v, -1), [x34, R(2)]),
    ('diagonal_scatter_3d', lambda L, a, v: a.diagonal_scatter(v, 0, 2, 0), [R(3, 2, 3), R(2, 3)]),
]

@pytest.mark.parametrize('accumulate', [False, True])
def test_put_no_positions_into_0d(accumulate):
    # an empty index writes nothing into a 0-d input (OpInfo put #22, #23); grad_fn differs (ViewBackward0), so name=False
    check(lambda L, a, v: L.put(a, T(L, np.zeros(0, dtype=np.int64)), v, accumulate), np.array(5.), np.zeros(0), name=False)


def _as_strided_scatter(L, x, v, *args):
    "torch 2.13's own as_strided_scatter gives the input the wrong gradient (the written part, not the rest) and refuses"
    "non-contiguous inputs that require grad: the reference is the in-place form it stands for, on a copy of the input's"
    "whole memory viewed with its strides and offset (torch's clone_preserve_strides, which its values come from)."
    if L is litnn: return L.as_strided_scatter(x, v, *args)
    n = x.untyped_storage().nbytes() // x.element_size()
    out = x.as_strided((n,), (1,), 0).clone().as_strided(x.shape, x.stride(), x.storage_offset())
    out.as_strided(*args).copy_(v)
    return out

AS_STRIDED_SCATTER = [
    ('plain', lambda L, a, v: _as_strided_scatter(L, a, v, (2, 2), (1, 4), 1), [x34, R(2, 2)]),
    ('transposed', lambda L, a, v: _as_strided_scatter(L, a.t(), v, (3,), (2,)), [x34, R(3)]),
    ('summed', lambda L, a, v: _as_strided_scatter(L, a * 2, v, (2, 3), (3, 1)).sum(), [x23, R(2, 3)]),
]

@pytest.mark.parametrize('case', AS_STRIDED_SCATTER, ids=[c[0] for c in AS_STRIDED_SCATTER])
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_as_strided_scatter(case, dt):
    _, f, arrays = case
    check(f, *[a.astype(dt) for a in arrays], name=False, rtol=1e-6, atol=1e-6)
    x, v = (litnn.tensor(a, requires_grad=True) for a in arrays)
    assert gradcheck(lambda a, b: f(litnn, a, b), (x, v))
REDUCES = [(r, inc) for r in ('prod', 'mean', 'amax', 'amin') for inc in (True, False)]
IDX_R = np.array([0, 2, 0, 0])

@pytest.mark.parametrize('case', INDEX_PUT, ids=[c[0] for c in INDEX_PUT])
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_index_put_family(case, dt):
    _, f, arrays = case
    check(f, *[a.astype(dt) for a in arrays], name=True, rtol=1e-6, atol=1e-6)

@pytest.mark.parametrize('reduce,include_self', REDUCES)
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_index_reduce(reduce, include_self, dt):
    src = R(3, 4)
    src[1, 3] = src[0, 3]      # a tie for amax/amin
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda L, a, s: a.index_reduce(1, T(L, IDX_R), s, reduce, include_self=include_self), x34.astype(dt), src.astype(dt),
              name=True, rtol=1e-6, atol=1e-6)
        check(lambda L, a, s: (a * 1).index_reduce_(0, T(L, np.array([1, 1])), s, reduce, include_self=include_self), x23.astype(dt), R(2, 3).astype(dt),
              name=True, rtol=1e-6, atol=1e-6)

def test_index_reduce_ints_and_warning():
    for lib in (litnn, torch):     # torch warns once per process (the earlier tests saw it): litnn's warning is checked
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter('always')
            out = lib.tensor([[1, 2, 3], [4, 5, 6]]).index_reduce(1, lib.tensor([0, 0]), lib.tensor([[2, 3], [4, 5]]), 'mean')
        assert out.tolist() == [[2, 2, 3], [4, 5, 6]]
        if lib is litnn: assert 'index_reduce() is in beta' in str(seen[0].message)

@pytest.mark.parametrize('f', [
    lambda L: L.zeros(3, 4).index_put((L.tensor([0]),), L.tensor(1., dtype=L.float64)),
    lambda L: L.zeros(3, 4).index_put(L.tensor([0]), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((None,), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((L.tensor([0]),), 1.),
    lambda L: L.zeros(3, 4).index_put((L.tensor([0.]),), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((L.tensor([5]),), L.tensor(1.)),
    lambda L: L.zeros(3, 4).index_put((L.tensor([0]),) * 3, L.tensor(1.)),
    lambda L: L.zeros(3, 4, requires_grad=True).index_put_((L.tensor([0]),), L.tensor(1.)),
    lambda L: L.zeros(2, 3).put(L.tensor([6]), L.tensor([1.])), lambda L: L.zeros(2, 3).put(L.tensor([-7]), L.tensor([1.])),
    lambda L: L.zeros(2, 3).put(L.tensor([1, 2]), L.tensor([1.])),
    lambda L: L.zeros(2, 3).put(L.tensor([1.]), L.tensor([1.])),
    lambda L: L.zeros(2, 3).put(L.tensor([1]), L.tensor([1.], dtype=L.float64)),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0]), L.ones(2, 1), 'sum'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0.]), L.ones(2, 1), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([[0]]), L.ones(2, 1), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0, 5]), L.ones(2, 2), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0, 1, 2]), L.ones(2, 2), 'prod'),
    lambda L: L.zeros(2, 3).index_reduce(1, L.tensor([0]), L.ones(2, 1, dtype=L.float64), 'prod'),
    lambda L: L.select_scatter(L.zeros(2, 3), L.ones(2), 0, 1), lambda L: L.select_scatter(L.zeros(2, 3), L.ones(3), 0, 5),
    lambda L: L.slice_scatter(L.zeros(4, 3), L.ones(3, 3), start=0, step=2),
    lambda L: L.diagonal_scatter(L.zeros(3, 3), L.ones(3), 1), lambda L: L.as_strided_scatter(L.zeros(3, 3), L.ones(3), (2,), (1,)), lambda L: L.diagonal_scatter(L.zeros(3, 3), L.ones(3), 0, 1, 1),
])
def test_index_put_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same_error(f)

def test_index_put_family_gradcheck():
    x, v = litnn.tensor(R(3, 4), requires_grad=True), litnn.tensor(R(3), requires_grad=True)
    i = litnn.tensor(I3)
    assert gradcheck(lambda a, b: a.index_put((i,), b.reshape(3, 1), accumulate=True), (x, v))
    assert gradcheck(lambda a, b: a.put(i, b, accumulate=True), (x, v))
    assert gradcheck(lambda a, b: litnn.diagonal_scatter(a, b, 0), (x, v))
    assert gradcheck(lambda a, b: litnn.slice_scatter(a, b.reshape(3, 1), 1, 2, 3), (x, v))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert gradcheck(lambda a, b: a.index_reduce(0, litnn.tensor([2, 0, 2]), b.reshape(3, 1).expand(3, 4), 'prod'), (x, v))


@pytest.mark.parametrize('f', [lambda L: L.arange(3.)[5], lambda L: L.zeros(2, 3)[:, 7], lambda L: L.zeros(2, 3)[1, -4],
                               lambda L: L.zeros(2, 3)[L.tensor([0, 2])]])
def test_getitem_out_of_bounds_says_dimension(f):
    "Reading out of bounds: torch's IndexError, in torch's words (numpy says 'axis')."
    same_error(f)


# ---- x[index tensors] = value is torch's index_put: no other dtype, except one value for one mask
def _set(L, x, key, v):
    x[key(L)] = v(L)
    return x

MASK = lambda L: L.tensor([True, False, True])
SETITEM_OTHER_DTYPE = {
    'index_long': (lambda L: L.tensor([0, 2]), lambda L: L.tensor([7, 8])),
    'index_0d_long': (lambda L: L.tensor([0, 2]), lambda L: L.tensor(7)),
    'list_index_double': (lambda L: [0, 2], lambda L: L.tensor([7., 8.], dtype=L.float64)),
    'mask_two_longs': (MASK, lambda L: L.tensor([7, 8])),
    'mask_bool_values': (MASK, lambda L: L.tensor([True, False])),
    'mask_and_index': (lambda L: (L.tensor([0]), MASK(L)), lambda L: L.tensor(7)),
    'two_masks': (lambda L: (MASK(L), MASK(L)), lambda L: L.tensor(7)),
    'index_out_of_range': (lambda L: L.tensor([0, 5]), lambda L: L.tensor([[7], [8]])),   # the dtype is refused before the positions
}

@pytest.mark.parametrize('case', SETITEM_OTHER_DTYPE)
def test_setitem_with_index_tensors_refuses_another_dtype(case):
    key, v = SETITEM_OTHER_DTYPE[case]
    same_error(lambda L: _set(L, L.zeros(3, 3), key, v))

SETITEM_CASTS = {
    'mask_0d_long': (MASK, lambda L: L.tensor(7)),
    'mask_one_double': (MASK, lambda L: L.tensor([7.5], dtype=L.float64)),
    'columns_mask': (lambda L: (slice(None), MASK(L)), lambda L: L.tensor([[7]])),
    'int_then_mask': (lambda L: (1, MASK(L)), lambda L: L.tensor(7)),
    'slice_long': (lambda L: slice(0, 2), lambda L: L.tensor([7, 8, 9])),           # basic indexing copies, casting
    'python_numbers': (lambda L: L.tensor([0, 2]), lambda L: 7.5),
}

@pytest.mark.parametrize('case', SETITEM_CASTS)
def test_setitem_casts_numbers_masks_filled_and_slices(case):
    key, v = SETITEM_CASTS[case]
    l, t = _set(litnn, litnn.zeros(3, 3), key, v), _set(torch, torch.zeros(3, 3), key, v)
    assert l.dtype.name == 'float32' and l.tolist() == t.tolist()

def test_setitem_value_shape_is_refused_before_its_dtype():
    same_error(lambda L: _set(L, L.zeros(3), MASK, lambda L: L.tensor([7, 8, 9])))
    same_error(lambda L: _set(L, L.zeros(3), lambda L: L.tensor([0, 1]), lambda L: L.tensor([7, 8, 9])))

def test_index_put_fills_one_mask_with_one_value_of_any_dtype():
    "torch's index_put takes a value of another dtype when it is one value for one bool mask (it fills the mask, casting)."
    for make in (lambda L: L.zeros(3).index_put_((MASK(L),), L.tensor(7)),
                 lambda L: L.zeros(3, dtype=L.int32).index_put((MASK(L),), L.tensor(7.9))):
        l, t = make(litnn), make(torch)
        assert l.dtype.name == str(t.dtype)[6:] and l.tolist() == t.tolist()
    for lib in (litnn, torch):        # the value's gradient comes back in its own dtype
        v = lib.tensor(7., requires_grad=True, dtype=lib.float64)
        lib.zeros(3).index_put((MASK(lib),), v).sum().backward()
        assert v.grad.item() == 2. and str(v.grad.dtype).endswith('float64')
    same_error(lambda L: L.zeros(3).index_put_((MASK(L),), L.tensor(7), accumulate=True))   # accumulating: the dtype must match
    same_error(lambda L: L.zeros(3).index_put_((L.tensor([0, 1]),), L.tensor(7)))


@pytest.mark.parametrize('args', [(0, [0], [1.], 'sum'), (0, [0.], [1.], 'prod'), (0, [0, 1], [1.], 'amax')])
def test_index_reduce_warns_of_its_beta_only_past_its_checks(args):
    "torch's kernel warns 'index_reduce() is in beta' after the argument checks: a refused call raises without the warning"
    dim, idx, src, reduce = args
    for L in (litnn, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with pytest.raises(RuntimeError): L.ones(3).index_reduce(dim, L.tensor(idx), L.tensor(src), reduce)
        assert not [x for x in w if 'beta' in str(x.message)]


# torchmetrics' functional metrics index with a 0-d mask (`x[cond]`, cond a comparison of sums): the forward gave torch's
# shape (a new axis of 1 or 0) but the backward's add.at refused the 0-d mask ("Calling nonzero on 0d arrays")
ZERO_D_MASK = [lambda L: (L.tensor(True),), lambda L: (L.tensor(False),), lambda L: (L.tensor(True), 0),
               lambda L: (0, L.tensor(True)), lambda L: (L.tensor([0, 1, 1]), L.tensor(True)),
               lambda L: (..., L.tensor(True), L.tensor([1, 1])), lambda L: (L.tensor(True), L.tensor([True, False])),
               lambda L: (L.tensor([[0], [1]]), L.tensor(True), L.tensor([1, 1])),
               lambda L: (L.tensor([0, 0]), L.tensor(True), L.tensor([1, 1])), lambda L: (L.tensor(False), 1)]
@pytest.mark.parametrize('key', ZERO_D_MASK)
def test_getitem_with_a_0d_mask_backward(key):
    res = []
    for L in (torch, litnn):
        x = L.tensor(x23[:2, :2], requires_grad=True)
        y = x[key(L)]
        g, = L.autograd.grad((y * y).sum(), x)
        res.append((tuple(y.shape), y.detach().numpy(), g.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_array_equal(res[0][1], res[1][1]); np.testing.assert_array_equal(res[0][2], res[1][2])

"""Shape operations (litnn.shapes, nbs/03h_shapes; movedim/swapaxes/expand_as from litnn.dims)
against torch 2.13: values, dtypes, grad_fn names, gradients (torch's, gradcheck and
gradgradcheck), views sharing memory, and errors."""
import warnings, numpy as np, pytest
import litnn
from litnn.autograd import gradcheck, gradgradcheck
from api_pairs import torch, check, same_error, host, DEVICES

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x34, x234, v3 = R(3, 4), R(2, 3, 4), R(3)

CASES = [
    ('roll', lambda L, x: x.roll(1, 0), [x34]),
    ('roll_flat', lambda L, x: L.roll(x, -5), [x234]),
    ('roll_multi', lambda L, x: L.roll(x, (1, -2), (0, 2)), [x234]),
    ('roll_neg_dim', lambda L, x: x.roll(2, -1), [x234]),
    ('rot90', lambda L, x: x.rot90(), [x34]),
    ('rot90_k', lambda L, x: L.rot90(x, 3, [2, 0]), [x234]),
    ('rot90_k0', lambda L, x: L.rot90(x, 0), [x34]),
    ('rot90_neg', lambda L, x: L.rot90(x, -1, (1, 2)), [x234]),
    ('diagonal', lambda L, x: x.diagonal(), [x34]),
    ('diagonal_off', lambda L, x: L.diagonal(x, 1), [x34]),
    ('diagonal_neg', lambda L, x: L.diagonal(x, -1), [x34]),
    ('diagonal_far', lambda L, x: L.diagonal(x, 5), [x34]),
    ('diagonal_dims', lambda L, x: x.diagonal(0, 2, 0), [x234]),
    ('diagonal_dims_off', lambda L, x: L.diagonal(x, -1, -1, 1), [x234]),
    ('diag_vec', lambda L, x: L.diag(x), [v3]),
    ('diag_vec_off', lambda L, x: x.diag(-2), [v3]),
    ('diag_mat', lambda L, x: L.diag(x), [x34]),
    ('diag_mat_off', lambda L, x: x.diag(1), [x34]),
    ('diag_embed', lambda L, x: L.diag_embed(x), [x34]),
    ('diag_embed_off', lambda L, x: x.diag_embed(1, 0, 2), [x34]),
    ('diag_embed_neg', lambda L, x: L.diag_embed(x, -1, -1, 0), [x234]),
    ('trace', lambda L, x: L.trace(x), [x34]),
    ('trace_m', lambda L, x: x.trace(), [R(4, 3)]),
    ('trace_int', lambda L, x: L.trace(x), [np.arange(9).reshape(3, 3)]),
    ('meshgrid_ij', lambda L, a, b: L.meshgrid(a, b, indexing='ij'), [v3, R(2)]),
    ('meshgrid_xy', lambda L, a, b: L.meshgrid(a, b, indexing='xy'), [v3, R(2)]),
    ('meshgrid_xy3', lambda L, a, b, c: L.meshgrid([a, b, c], indexing='xy'), [v3, R(2), R(4)]),
    ('meshgrid_one', lambda L, a: L.meshgrid(a, indexing='xy'), [v3]),
    ('meshgrid_0d', lambda L, a, b: L.meshgrid(a, b, indexing='ij'), [np.array(2.), v3]),
    ('cartesian', lambda L, a, b: L.cartesian_prod(a, b), [v3, R(2)]),
    ('cartesian3', lambda L, a, b, c: L.cartesian_prod(a, b, c), [R(2), R(2), R(3)]),
    ('cartesian1', lambda L, a: L.cartesian_prod(a), [v3]),
    ('view_as', lambda L, x: x.view_as(L.zeros(4, 6)), [x234]),
    ('reshape_as', lambda L, x: x.t().reshape_as(L.zeros(12)), [x34]),
    ('expand_as', lambda L, x: x.expand_as(L.zeros(2, 3, 4)), [R(3, 1)]),
    ('unfold', lambda L, x: x.unfold(1, 2, 1), [x34]),
    ('unfold_step', lambda L, x: x.unfold(-1, 2, 2), [x234]),
    ('unfold_gap', lambda L, x: x.unfold(0, 1, 2), [x34]),
    ('unfold_overlap', lambda L, x: x.unfold(2, 3, 1), [x234]),
    ('unfold_0d', lambda L, x: x.unfold(0, 1, 1), [np.array(2.)]),
    ('movedim', lambda L, x: L.movedim(x, 0, -1), [x234]),
    ('movedim_multi', lambda L, x: x.movedim((0, 1), (2, 0)), [x234]),
    ('moveaxis', lambda L, x: L.moveaxis(x, -1, 0), [x234]),
    ('moveaxis_m', lambda L, x: x.moveaxis(1, 2), [x234]),
    ('swapaxes', lambda L, x: L.swapaxes(x, 0, 2), [x234]),
    ('swapaxes_m', lambda L, x: x.swapaxes(-1, 1), [x234]),
    ('atleast_1d', lambda L, x: L.atleast_1d(x), [np.array(2.)]),
    ('atleast_1d_same', lambda L, x: L.atleast_1d(x), [v3]),
    ('atleast_2d', lambda L, x: L.atleast_2d(x), [v3]),
    ('atleast_2d_0', lambda L, x: L.atleast_2d(x), [np.array(2.)]),
    ('atleast_3d_0', lambda L, x: L.atleast_3d(x), [np.array(2.)]),
    ('atleast_3d_1', lambda L, x: L.atleast_3d(x), [v3]),
    ('atleast_3d_2', lambda L, x: L.atleast_3d(x), [x34]),
    ('atleast_3d_3', lambda L, x: L.atleast_3d(x), [x234]),
    ('atleast_many', lambda L, a, b: L.atleast_2d(a, b), [v3, np.array(1.)]),
    ('atleast_list', lambda L, a, b: L.atleast_3d([a, b]), [v3, x34]),
    ('hstack', lambda L, a, b: L.hstack([a, b]), [v3, R(2)]),
    ('hstack2', lambda L, a, b: L.hstack((a, b)), [x34, R(3, 2)]),
    ('vstack', lambda L, a, b: L.vstack([a, b]), [v3, v3]),
    ('vstack2', lambda L, a, b: L.vstack([a, b]), [x34, R(1, 4)]),
    ('row_stack', lambda L, a, b: L.row_stack([a, b]), [v3, v3]),
    ('dstack', lambda L, a, b: L.dstack([a, b]), [v3, v3]),
    ('dstack2', lambda L, a, b: L.dstack([a, b]), [x34, x34]),
    ('column_stack', lambda L, a, b: L.column_stack([a, b]), [v3, R(3, 2)]),
    ('column_stack0', lambda L, a, b: L.column_stack([a, b]), [np.array(1.), np.array(2.)]),
    ('tensor_split', lambda L, x: L.tensor_split(x, 3, 1), [x34]),
    ('tensor_split_more', lambda L, x: L.tensor_split(x, 5), [x34]),
    ('tensor_split_idx', lambda L, x: x.tensor_split([1, 3], 1), [x34]),
    ('tensor_split_idx_odd', lambda L, x: x.tensor_split([3, 1, 10, -1], 1), [x34]),
    ('tensor_split_tensor', lambda L, x: L.tensor_split(x, L.tensor([1, 2]), 0), [x34]),
    ('tensor_split_tensor0', lambda L, x: L.tensor_split(x, L.tensor(2), 1), [x34]),
    ('hsplit', lambda L, x: L.hsplit(x, 2), [x34]),
    ('hsplit_vec', lambda L, x: x.hsplit([1]), [v3]),
    ('vsplit', lambda L, x: L.vsplit(x, [1]), [x34]),
    ('vsplit_n', lambda L, x: x.vsplit(3), [x34]),
    ('dsplit', lambda L, x: L.dsplit(x, 2), [x234]),
]

COPYING_RESHAPE = {'reshape_as'}     # torch names a copying reshape UnsafeViewBackward0, litnn ViewBackward0 (as in test_ops_views)

@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize('dev', DEVICES)
def test_against_torch(case, dev):
    name, f, arrays = case
    check(f, *arrays, dev=dev, name=name not in COPYING_RESHAPE)

@pytest.mark.parametrize('f', [lambda x: x.roll(1, 0), lambda x: x.rot90(1), lambda x: x.diagonal(1), lambda x: x.diag(),
                               lambda x: x.diag_embed(-1), lambda x: x.trace() * x, lambda x: x.unfold(1, 3, 1),
                               lambda x: litnn.meshgrid(x[0], x[1], indexing='xy')[0], lambda x: litnn.cartesian_prod(x[0], x[1])])
def test_gradcheck(f):
    x = litnn.tensor(R(3, 4), requires_grad=True)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))

def test_views_share_memory():
    x = litnn.tensor(x34.copy())
    d = x.diagonal(); d.mul_(0)
    assert x.diagonal().tolist() == [0., 0., 0.] and x._version == d._version == 1
    u = x.unfold(1, 2, 2); u[0, 0, 0] = 7.
    assert x[0, 0].item() == 7.
    g = litnn.meshgrid(litnn.arange(3.), litnn.arange(2.), indexing='ij')[0]
    assert g._is_view() and g._data.strides[1] == 0          # expanded, not copied
    parts = x.tensor_split(2, 1)
    assert all(p._is_view() for p in parts)

def test_indices():
    for args in [(3, 3), (3, 4, 1), (4, 3, -1), (3, 3, 5), (0, 3), (2, 5, -3)]:
        for fn in ('tril_indices', 'triu_indices'):
            l, t = getattr(litnn, fn)(*args), getattr(torch, fn)(*args)
            assert l.tolist() == t.tolist() and l.dtype.name == str(t.dtype)[6:]
    assert litnn.tril_indices(3, 3, dtype=litnn.int32).dtype == litnn.int32

def test_nelement_and_meshgrid_warning():
    assert litnn.zeros(2, 3).nelement() == torch.zeros(2, 3).nelement()
    was = litnn.is_warn_always_enabled()
    litnn.set_warn_always(True)       # (torch warns once per process; another test in this process may have seen it)
    try:
        with pytest.warns(UserWarning, match='indexing argument'): litnn.meshgrid(litnn.arange(2), litnn.arange(3))
    finally: litnn.set_warn_always(was)
    assert type(litnn.atleast_1d(litnn.ones(2), litnn.ones(1))) is tuple

ERRORS = [
    lambda L: L.ones(3, 4).diagonal(0, 0, 0), lambda L: L.ones(3, 4).diagonal(0, 0, 2), lambda L: L.ones(3).diag_embed(0, 0, 0),
    lambda L: L.diag(L.ones(2, 2, 2)), lambda L: L.trace(L.ones(3)), lambda L: L.rot90(L.ones(3)), lambda L: L.rot90(L.ones(3, 4), 1, [0, 0]),
    lambda L: L.rot90(L.ones(3, 4), 1, [0, 1, 2]), lambda L: L.roll(L.ones(3, 4), (1, 2), 0), lambda L: L.ones(3, 4).unfold(1, 5, 1),
    lambda L: L.ones(3, 4).unfold(1, 2, 0), lambda L: L.meshgrid(L.ones(3), L.ones(2, 2), indexing='ij'),
    lambda L: L.meshgrid(L.ones(3), indexing='foo'), lambda L: L.hsplit(L.ones(3, 4), 3), lambda L: L.vsplit(L.ones(3), 1),
    lambda L: L.dsplit(L.ones(3, 4), 2), lambda L: L.tensor_split(L.ones(3, 4), 0, 1), lambda L: L.ones(3, 4).view_as(L.ones(5)),
    lambda L: L.arange(24).reshape(-2, 12), lambda L: L.arange(24).view(2, -3), lambda L: L.arange(24).reshape(-1, -1, -2),   # numpy: any negative size is -1
    lambda L: L.cat(L.ones(2, 2)), lambda L: L.stack(L.ones(2, 2)), lambda L: L.cat(iter([L.ones(2)])), lambda L: L.stack([]),
    lambda L: L.tensor_split(L.ones(10), L.tensor(1.1), 0), lambda L: L.tensor_split(L.ones(10), L.tensor([[1]]), 0),   # a tensor of sections: int64, at most 1-d
    lambda L: L.tensor_split(L.ones(10), L.tensor([1, 2], dtype=L.int32), 5),      # (its dtype is checked before the dim)
    lambda L: L.ones(3, 4).unfold(1, -1, 1), lambda L: L.ones(3, 4).unfold(0, -2, -1),   # a negative size: torch's message
    lambda L: L.rot90(L.ones(3, 4), k=1.5), lambda L: L.rot90(L.ones(3, 4), k=True),   # k: an int (torch's parser)
]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same_error(f, match=f not in (ERRORS[11],))

@pytest.mark.parametrize('fn', ['hstack', 'vstack', 'dstack', 'column_stack', 'row_stack'])
def test_stacks_refuse_a_tensor(fn):
    "A tensor is not a tuple of tensors (torch's TypeError naming the function)."
    same_error(lambda L: getattr(L, fn)(L.ones(3)))

def test_cat_of_legacy_empties_ignores_dim():
    "Every input a 1-d empty tensor: torch does not check dim and joins them into one (0,) tensor (promoted dtype)."
    for dim in (0, 1, 5, -3):
        l = litnn.cat([litnn.ones(0), litnn.ones(0, dtype=litnn.float64)], dim=dim)
        t = torch.cat([torch.ones(0), torch.ones(0, dtype=torch.float64)], dim=dim)
        assert tuple(l.shape) == tuple(t.shape) and str(l.dtype)[6:] == str(t.dtype)[6:]
    same_error(lambda L: L.cat([]))

def test_cat_output_layout_is_torchs():
    """cat's result is row-major unless every input is channels-last (torch's cat_compute_output_memory_format), so
    `.view` works on it after joining transposed inputs (Transformer-XL's shift_right: cat, then view)."""
    def inputs(L):
        x = L.arange(24.).view(2, 3, 4)
        cl = lambda *s: L.arange(float(np.prod(s))).view(*s).to(memory_format=L.channels_last)
        return {'transposed': [x.transpose(0, 2), x.transpose(0, 2)], 'transposed+contiguous': [x.transpose(0, 2), L.zeros(4, 3, 2)],
                'permuted': [x.permute(1, 0, 2)] * 2, 'sliced': [x[:, ::2], x[:, 1:]], 'legacy empty': [L.tensor([]), x.transpose(0, 1)],
                'channels_last': [cl(2, 3, 4, 5)] * 2, 'channels_last+contiguous': [cl(2, 3, 4, 5), L.zeros(2, 3, 4, 5)],
                'channels_last_3d': [L.zeros(2, 3, 2, 4, 5).to(memory_format=L.channels_last_3d)] * 2, 'one channel': [L.zeros(2, 1, 4, 5)] * 2}
    li, ti = inputs(litnn), inputs(torch)
    for k in li:
        for d in range(li[k][-1].dim()):
            l, t = litnn.cat(li[k], d), torch.cat(ti[k], d)
            assert (tuple(l.shape), l.stride(), l.is_contiguous()) == (tuple(t.shape), t.stride(), t.is_contiguous()), (k, d)
            np.testing.assert_array_equal(l.numpy(), t.numpy())
    for L in (litnn, torch):       # the program's pattern, and the gradient back through the view
        y = L.arange(24.).view(2, 3, 4).transpose(0, 2).requires_grad_()
        c = L.cat([y, y * 2], 1)
        c.view(3, 8, 2).sum().backward()
    assert y.grad.sum().item() == 72.0

def test_meshgrid_refusals():
    same_error(lambda L: L.meshgrid(indexing='ij'))
    same_error(lambda L: L.meshgrid(L.tensor([1]), L.tensor([2], device='meta'), indexing='ij'))

def test_repeat_interleave_refuses_2d_repeats():
    same_error(lambda L: L.repeat_interleave(L.arange(4).reshape(2, 2)))
    same_error(lambda L: L.repeat_interleave(L.tensor([[1, 2], [3, 4]]), L.arange(9).reshape(3, 3), dim=0))

def test_out_same_tensor_and_expanded_out():
    "cat refuses out= being one of its inputs even when empty; the range factories refuse an expanded out."
    same_error(lambda L: (lambda x: L.cat([x, L.ones(4, 6)], out=x))(L.zeros(0)))
    for f in (lambda L, o: L.linspace(1, 10, 10, out=o), lambda L, o: L.logspace(1, 10, 10, out=o), lambda L, o: L.arange(10, out=o)):
        same_error(lambda L: f(L, L.empty_strided((10,), (0,))))

def test_repeat_interleave_of_no_counts_and_sparse_tri_indices():
    for L in (litnn, torch):
        x = L.tensor([], dtype=L.int64)
        assert L.repeat_interleave(x, x).shape == (0,)
    same_error(lambda L: L.tril_indices(1, 1, layout=L.sparse_coo), match=False)
    same_error(lambda L: L.triu_indices(1, 1, layout=L.sparse_coo), match=False)


def test_broadcast_tensors_returns_a_tensor_of_the_shape_itself_as_torch():
    for L in (litnn, torch):
        a = L.ones(3, 3, requires_grad=True)
        x, y = L.broadcast_tensors(a, L.ones(3, 3))
        assert x is a and x.grad_fn is None
        x, y = L.broadcast_tensors(a, L.ones(2, 3, 3))
        assert x is not a and type(x.grad_fn).__name__ == 'ExpandBackward0' and x.shape == (2, 3, 3)
        b = a * 2
        assert L.broadcast_tensors(b)[0] is b

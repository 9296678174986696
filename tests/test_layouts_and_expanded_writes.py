"""Result layouts as torch's (TensorIterator's operand order, kernels that allocate `empty_like` or row-major) and writes
into expanded tensors (views without repeats, idempotent kernels), each compared with real torch on the same inputs."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

RNG = np.random.default_rng(0)
DATA = {s: (RNG.random(s).astype(np.float32) * 0.8 + 0.1) for s in [(4, 5), (2, 3, 4), (2, 3, 4, 5), (6, 8), (4, 6), (2, 3, 4, 6)]}
# inputs that are not row-major: transposed, permuted, channels-last, and strided slices of them (not dense)
LAYOUTS = {
    'transposed': lambda L: L.tensor(DATA[(4, 5)]).t(),
    'permuted': lambda L: L.tensor(DATA[(2, 3, 4)]).permute(2, 0, 1),
    'channels_last': lambda L: L.tensor(DATA[(2, 3, 4, 5)]).contiguous(memory_format=L.channels_last),
    'transposed_slice': lambda L: L.tensor(DATA[(6, 8)]).t()[::2],
    'row_major_slice': lambda L: L.tensor(DATA[(4, 6)])[:, ::2],
    'channels_last_slice': lambda L: L.tensor(DATA[(2, 3, 4, 6)]).contiguous(memory_format=L.channels_last)[..., ::2],
}
OPS = {
    # binary ops whose first operand has a layout and the second is row-major, or broadcast: the first decides
    'add_row_major': lambda L, x: x + (x * 0.5 + 0.2).contiguous(),
    'row_major_add': lambda L, x: (x * 0.5 + 0.2).contiguous() + x,
    'vector_add': lambda L, x: L.tensor(np.linspace(0.2, 0.9, x.shape[-1]).astype(np.float32)) + x,
    'mul_vector': lambda L, x: x * L.tensor(np.linspace(0.2, 0.9, x.shape[-1]).astype(np.float32)),
    'atan2_row_major': lambda L, x: L.atan2(x, (x * 0.5 + 0.2).contiguous()),
    'where': lambda L, x: L.where(x > 0.5, x, (x * 0.5).contiguous()),
    'maximum_row_major': lambda L, x: L.maximum(x, (x * 0.5 + 0.2).contiguous()),
    'complex': lambda L, x: L.complex(x, (x * 0.5).contiguous()),
    'complex_vector': lambda L, x: L.complex(L.tensor(np.linspace(0.2, 0.9, x.shape[-1]).astype(np.float32)), x),
    'polar': lambda L, x: L.polar(x, x * 0.5),
    'igamma': lambda L, x: L.igamma(x, (x * 0.5 + 0.2).contiguous()),
    'igammac_vector': lambda L, x: L.igammac(x, L.tensor(np.linspace(0.2, 0.9, x.shape[-1]).astype(np.float32))),
    'kron': lambda L, x: L.kron(x, x * 0.5),
    # kernels that allocate `empty_like` the input (sort, flip) or row-major (tril, detach_copy, mvlgamma)
    'sort_values': lambda L, x: x.sort(1).values,
    'sort_indices': lambda L, x: x.sort(0, descending=True).indices,
    'argsort': lambda L, x: x.argsort(-1),
    'msort': lambda L, x: L.msort(x),
    'flip': lambda L, x: x.flip(0),
    'fliplr': lambda L, x: L.fliplr(x),
    'rot90': lambda L, x: L.rot90(x),
    'rot90_twice': lambda L, x: L.rot90(x, 2),
    'rot90_zero': lambda L, x: L.rot90(x, 0),
    'tril': lambda L, x: x.tril(),
    'triu': lambda L, x: x.triu(1),
    'detach_copy': lambda L, x: L.detach_copy(x),
    'mvlgamma': lambda L, x: L.mvlgamma(x + 2, 2),
    # clones that keep the layout, then written (index_fill, index_put); gelu as every unary op
    'index_fill': lambda L, x: x.index_fill(0, L.tensor([1]), 2.),
    'index_fill_tensor': lambda L, x: x.index_fill(-1, L.tensor([0, 1]), L.tensor(2.)),
    'index_put': lambda L, x: x.index_put((L.tensor([1]),), L.tensor(2.)),
    'index_put_accumulate': lambda L, x: x.index_put((L.tensor([0, 0]),), L.tensor(2.), accumulate=True),
    'masked_scatter': lambda L, x: x.masked_scatter(x > 0.5, x * 2),
    'gelu': lambda L, x: L.nn.functional.gelu(x),
    'isreal': lambda L, x: L.isreal(x),
    'gelu_tanh': lambda L, x: L.nn.functional.gelu(x, approximate='tanh'),
    'cross': lambda L, x: L.linalg.cross(x[:, :3] if x.dim() == 2 else x, (x[:, :3] if x.dim() == 2 else x) * 2, dim=1) if x.shape[1] >= 3 else x.clone(),
    # reductions and selections over a dim: row-major results (numpy keeps the input's order of dims)
    'sum_dim': lambda L, x: x.sum(1),
    'sum_keepdim': lambda L, x: x.sum(-1, keepdim=True),
    'mean_dim': lambda L, x: x.mean(-1),
    'amax_dim': lambda L, x: x.amax(1),
    'max_dim_values': lambda L, x: x.max(1).values,
    'min_dim_indices': lambda L, x: x.min(-1).indices,
    'prod_dim': lambda L, x: x.prod(1),
    'var_dim': lambda L, x: x.var(-1),
    'std_keepdim': lambda L, x: x.std(1, keepdim=True),
    'logsumexp_dim': lambda L, x: x.logsumexp(-1),
    'nansum_dim': lambda L, x: x.nansum(1),
    'all_dim': lambda L, x: (x > 0.3).all(-1),
    'any_keepdim': lambda L, x: (x > 0.3).any(1, keepdim=True),
    'count_nonzero_dim': lambda L, x: L.count_nonzero(x > 0.3, -1),
    'kthvalue_indices': lambda L, x: x.kthvalue(1, 1).indices,
    'median_indices': lambda L, x: x.median(-1).indices,
    'sum_then_view': lambda L, x: x.sum(1).view(-1),
}

@pytest.mark.parametrize('layout', LAYOUTS)
@pytest.mark.parametrize('op', OPS)
def test_result_layout_as_torch(op, layout):
    got = []
    for L in (torch, litnn):
        try: r = OPS[op](L, LAYOUTS[layout](L))
        except RuntimeError as e: got.append(('RuntimeError', str(e))); continue   # (torch's kron of a strided slice: its view error)
        got.append((tuple(r.shape), r.stride(), r.is_contiguous(), r.is_contiguous(memory_format=L.channels_last) if r.dim() == 4 else None))
        if L is litnn and got[0][0] != 'RuntimeError':
            np.testing.assert_allclose(r.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
        ref = r
    assert got[0] == got[1]

# the scatter family copies its input keeping the layout (a dense one: torch keeps a strided slice's gaps, litnn does not)
SCATTERS = {'select_scatter': lambda L, x: L.select_scatter(x, x[0] * 0, 0, 0),
            'diagonal_scatter': lambda L, x: L.diagonal_scatter(x, x.diagonal() * 0),
            'slice_scatter': lambda L, x: L.slice_scatter(x, x[:1] * 0, 0, 0, 1)}

@pytest.mark.parametrize('layout', ['transposed', 'permuted', 'channels_last'])
@pytest.mark.parametrize('op', SCATTERS)
def test_scatter_copies_keep_a_dense_layout_as_torch(op, layout):
    got = [(lambda r: (r.stride(), r.sum().item()))(SCATTERS[op](L, LAYOUTS[layout](L))) for L in (torch, litnn)]
    assert got[0][0] == got[1][0] and abs(got[0][1] - got[1][1]) < 1e-4

def test_kron_of_layouts_that_do_not_merge_raises_torch_view_error():
    "torch's kron views the product: a transposed factor next to a row-major one gives its view error."
    msgs = []
    for L in (torch, litnn):
        with pytest.raises(RuntimeError) as e: L.kron(L.ones(4, 5).t(), L.ones(2, 2))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]

def test_conj_physical_of_a_real_tensor_is_the_tensor():
    for L in (torch, litnn):
        x = L.ones(3)
        assert L.conj_physical(x) is x and x.conj_physical() is x

# --- writes into expanded tensors --------------------------------------------------------------------------------------
WRITES = {
    # a view of an expanded tensor without repeats (a row of it) is written, into the expanded memory
    'row_add_': lambda L, x: x[1].add_(1),
    'row_exp_': lambda L, x: x[2].exp_(),
    'row_copy_': lambda L, x: x[0].copy_(L.full((4,), 7.)),
    'slice_mul_': lambda L, x: x[:1].mul_(3),
    'out_row': lambda L, x: L.add(L.ones(4), 1, out=x[0]),
    'arange_out_row': lambda L, x: L.arange(4., out=x[1]),
    # torch's threshold skips the overlap check: it writes an expanded tensor (idempotent)
    'threshold_': lambda L, x: L.threshold_(x, 1.5, -1.),
    'F_threshold_': lambda L, x: L.nn.functional.threshold_(x, 1.5, -1.),
    'threshold_inplace': lambda L, x: L.nn.functional.threshold(x, 1.5, -1., inplace=True),
    'conj_physical_real': lambda L, x: x.conj_physical_(),
    # tril_/triu_ write only the zeros, eye_ zeros then each 1: through the shared memory
    'tril_': lambda L, x: x.tril_(),
    'triu_1': lambda L, x: x.triu_(1),
    'tril_minus_1': lambda L, x: x.tril_(-1),
    'eye_': lambda L, x: L.nn.init.eye_(x),
    # still refused: repeats written by an elementwise op
    'add_': lambda L, x: x.add_(1),
    'relu_': lambda L, x: x.relu_(),
    'out_expanded': lambda L, x: L.add(L.ones(3, 4), 1, out=x),
}

@pytest.mark.parametrize('name', WRITES)
def test_writes_into_an_expanded_tensor_as_torch(name):
    got = []
    for L in (torch, litnn):
        b = L.arange(4.).view(1, 4)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try: WRITES[name](L, b.expand(3, 4)); r = 'ok'
            except RuntimeError as e: r = str(e)
        got.append((r, [round(v, 4) for v in b.flatten().tolist()], [str(m.message) for m in w]))
    assert got[0] == got[1]

WARNED_WRITES = {
    'setitem': lambda L, x: x.__setitem__(L.tensor([0]), 2.),
    'index_put_': lambda L, x: x.index_put_((L.tensor([0]),), L.tensor(2.)),
    'index_put_mask': lambda L, x: x.index_put_((L.tensor([True, False, False, False]),), L.tensor(2.)),
    'masked_fill_': lambda L, x: x.masked_fill_(L.tensor([True, False, False, False]), 2.),
    'index_fill_': lambda L, x: x.index_fill_(0, L.tensor([0]), 2.),
    # accumulate: every add reaches the one shared element
    'index_put_accumulate': lambda L, x: x.index_put_((L.tensor([0, 1]),), L.tensor(2.), accumulate=True),
    'index_put_accumulate_values': lambda L, x: x.index_put_((L.tensor([0, 3]),), L.tensor([2., 3.]), accumulate=True),
}

@pytest.mark.parametrize('name', WARNED_WRITES)
def test_deprecated_writes_into_an_expanded_tensor_warn_from_the_callers_line(name):
    got = []
    for L in (torch, litnn):
        b = L.zeros(1)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            WARNED_WRITES[name](L, b.expand(4))
        got.append(([(m.filename, str(m.message).split(' (Triggered internally')[0]) for m in w], b.tolist()))
    assert got[0] == got[1] and all(f == __file__ for f, _ in got[0][0])

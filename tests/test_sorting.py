"""Sorting and selection (litnn.sorting, nbs/03e_sorting) against torch 2.13: values, indices,
dtypes, grad_fn names, gradients (torch's and gradcheck), reprs and errors."""
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
from api_pairs import torch, check, same_error, host, DEVICES

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
def perm(*s): return rng.permutation(int(np.prod(s))).reshape(s).astype(np.float64)   # distinct values: indices are unique
x34 = perm(3, 4)
x345 = perm(3, 4, 5)
nan = np.array([[1., np.nan, 3., 4.], [2., 5., 2.5, 0.], [np.nan, np.nan, 1., 7.]])

CASES = [
    ('sort', lambda L, x: L.sort(x), [x345]),
    ('sort_dim0_desc', lambda L, x: x.sort(0, descending=True), [x345]),
    ('sort_stable_kw', lambda L, x: L.sort(x, stable=True, dim=1), [x345]),
    ('sort_nan', lambda L, x: L.sort(x, descending=True), [nan]),
    ('sort_nan_asc', lambda L, x: L.sort(x), [nan]),
    ('sort_0d', lambda L, x: L.sort(x), [np.array(3.)]),
    ('argsort', lambda L, x: L.argsort(x, dim=1, descending=True), [x345]),
    ('argsort_m', lambda L, x: x.argsort(), [x34]),
    ('msort', lambda L, x: L.msort(x), [x34]),
    ('topk', lambda L, x: L.topk(x, 2), [x345]),
    ('topk_small', lambda L, x: x.topk(3, dim=0, largest=False), [x345]),
    ('topk_all', lambda L, x: x.topk(4), [x34]),
    ('topk_0', lambda L, x: x.topk(0), [x34]),
    ('kthvalue', lambda L, x: L.kthvalue(x, 2), [x345]),
    ('kthvalue_keep', lambda L, x: x.kthvalue(3, 0, keepdim=True), [x345]),
    ('median', lambda L, x: L.median(x), [x34]),
    ('median_dim', lambda L, x: L.median(x, 1), [x345]),
    ('median_keep', lambda L, x: x.median(0, keepdim=True), [x34]),
    ('median_nan', lambda L, x: L.median(x, 1), [nan]),
    ('median_nan_all', lambda L, x: L.median(x), [nan]),
    ('nanmedian', lambda L, x: L.nanmedian(x, 1), [nan]),
    ('nanmedian_all', lambda L, x: x.nanmedian(), [nan]),
    ('mode_int', lambda L, x: L.mode(x), [np.array([[1, 2, 2, 1, 3], [4, 4, 5, 5, 5], [7, 6, 6, 7, 6]])]),
    ('mode_float', lambda L, x: x.mode(0), [np.array([[1., 2.], [1., 3.], [0., 3.]])]),
    ('mode_keep', lambda L, x: L.mode(x, 1, keepdim=True), [np.array([[1., 2., 2.], [3., 3., 0.]])]),
]

@pytest.mark.parametrize('f, arrays', [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize('dev', DEVICES)
def test_against_torch(f, arrays, dev): check(f, *arrays, dev=dev)

@pytest.mark.parametrize('dtype', ['float32', 'int64', 'int8', 'uint8', 'bool', 'float16'])
def test_sort_dtypes_stable(dtype):
    a = rng.integers(0, 3, (4, 9)).astype(dtype)     # many ties: stable order is fully determined
    for desc in (False, True):
        check(lambda L, x: L.sort(x, descending=desc, stable=True), a)

def test_return_types_repr():
    l, t = litnn.topk(litnn.tensor([1., 3., 2.]), 2), torch.topk(torch.tensor([1., 3., 2.]), 2)
    assert repr(l) == repr(t).replace('torch', 'litnn')
    assert type(l).__name__ == 'topk' and l.__match_args__ == t.__match_args__ == ('values', 'indices')
    v, i = litnn.sort(litnn.tensor([2, 1]))
    assert (v.tolist(), i.tolist()) == ([1, 2], [1, 0])
    for n in ('sort', 'kthvalue', 'median', 'nanmedian', 'mode'): assert hasattr(litnn.return_types, n)

@pytest.mark.parametrize('f', [lambda L, x: L.sort(x, 1).values, lambda L, x: L.topk(x, 2, 0).values,
                               lambda L, x: L.kthvalue(x, 2).values, lambda L, x: L.median(x, 0).values,
                               lambda L, x: L.median(x), lambda L, x: L.mode(x, 1).values, lambda L, x: L.nanmedian(x, 1).values])
def test_gradcheck(f):
    x = litnn.tensor(perm(3, 4) / 7, requires_grad=True)
    assert gradcheck(lambda x: f(litnn, x), (x,))

def test_double_backward():
    x = litnn.tensor(perm(5), requires_grad=True)
    v = x.topk(2).values
    g, = litnn.autograd.grad((v ** 2).sum(), x, create_graph=True)
    g.sum().backward()
    tx = torch.tensor(host(x), requires_grad=True)
    tg, = torch.autograd.grad((tx.topk(2).values ** 2).sum(), tx, create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(host(x.grad), host(tx.grad))

def test_median_ties_share_gradient():
    check(lambda L, x: L.median(x), np.array([2., 1., 2., 5., 2.]))

ERRORS = [
    lambda L: L.topk(L.ones(2, 3), 4),
    lambda L: L.topk(L.ones(2, 3), -1),
    lambda L: L.kthvalue(L.ones(2, 3), 0),
    lambda L: L.kthvalue(L.ones(2, 3), 4, 1),
    lambda L: L.sort(L.ones(2, 3), 2),
    lambda L: L.median(L.ones(2, 0), 1),
    lambda L: L.bincount(L.tensor([-1, 2])),
    lambda L: L.bincount(L.tensor([[1, 2]])),
    lambda L: L.bincount(L.tensor([1., 2.])),
    lambda L: L.histc(L.tensor([1, 2])),
    lambda L: L.histc(L.tensor([1., 2.]), bins=3, min=2, max=1),
    # the range is checked before the dtype (integers), and must be finite (extreme or infinite data, nan)
    lambda L: L.histc(L.tensor([1, 2, 3], dtype=L.int32), bins=4, min=5, max=1),
    lambda L: L.histc(L.tensor([1, 2], dtype=L.uint8), bins=4, min=5, max=1),
    lambda L: L.histc(L.tensor([float('inf')])),
    lambda L: L.histc(L.tensor([float('-inf')])),
    lambda L: L.histc(L.tensor([1., 2., float('inf')])),
    lambda L: L.histc(L.tensor([float('nan')])),
    lambda L: L.histc(L.tensor([1.]), min=0, max=float('inf')),
    lambda L: L.histc(L.tensor([1., 2.]), bins=0),
    lambda L: L.searchsorted(L.tensor([[1, 2], [3, 4]]), L.tensor([[1], [2], [3]])),
    lambda L: L.searchsorted(L.tensor([1, 2]), L.tensor([1]), side='middle'),
    lambda L: L.bucketize(L.tensor([1]), L.tensor([[1, 2]])),
    lambda L: L.searchsorted(L.tensor([[1, 2, 3], [4, 5, 6]]), 1),          # a scalar value needs 1-D boundaries
    lambda L: L.searchsorted(L.tensor([[1, 2, 3], [4, 5, 6]]), L.tensor(1)),
    lambda L: L.searchsorted(L.tensor(3), L.tensor([1])),
    lambda L: L.searchsorted(L.tensor([3., 1., 2.]), L.tensor([1.]), sorter=L.tensor([1, 2])),          # sorter: same size,
    lambda L: L.searchsorted(L.tensor([3., 1., 2.]), L.tensor([1.]), sorter=L.tensor([1., 2., 0.])),    # long dtype,
    lambda L: L.searchsorted(L.tensor([1, 2, 3]), 2.5, sorter=L.tensor([0, 1, 3])),                    # indices in range
    lambda L: L.searchsorted(L.tensor([1, 2, 3]), 2.5, sorter=L.tensor([-1, 1, 2])),
    lambda L: (lambda x: L.kthvalue(x, 2, out=(x, L.tensor(0))))(L.arange(10.)),     # out= over the input (OpInfo error_inputs)
]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f): same_error(f)

@pytest.mark.parametrize('kw', [{}, dict(return_inverse=True), dict(return_counts=True),
                                dict(return_inverse=True, return_counts=True), dict(dim=0), dict(dim=1, return_inverse=True, return_counts=True)])
def test_unique(kw):
    a = rng.integers(0, 3, (5, 3))
    a[3] = a[1]
    check(lambda L, x: L.unique(x, **kw), a)
    check(lambda L, x: x.unique(sorted=True, **kw), a.astype(np.float32), name=False, grads=False)   # torch: a node that refuses backward

def test_unique_keeps_each_nan():
    "NaN equals nothing, itself included: torch's unique keeps every NaN (numpy's collapses them by default)."
    a = np.array([np.nan, 1., np.nan, 1., 2.], dtype=np.float32)
    check(lambda L, x: L.unique(x, return_inverse=True, return_counts=True), a, name=False, grads=False)
    check(lambda L, x: L.unique(x, dim=0, return_counts=True), np.array([[np.nan, 1.], [np.nan, 1.]]), name=False, grads=False)

def test_unique_dim_with_nan_in_torch_order():
    "unique(dim=) over slices holding NaN: torch's sort leaves a NaN position undecided (slices in its order), numpy puts them last."
    n = np.nan
    for a, d in [(np.array([n, 0, 0, n, n, 1]), 0), (np.array([[n, 1.], [n, 1.], [0, 1]]), 0),
                 (np.array([[1., n, 3], [0, 2, 1], [1, n, 2], [0, 2, 1]]), 0), (np.array([[1., n, 3], [0, 2, 1], [1, n, 2], [0, 2, 1]]), 1),
                 (np.array([[3., 1], [n, 0], [1., 5], [2, n], [0, 0], [2, 1]]), 0)]:
        check(lambda L, x: L.unique(x, dim=d, return_inverse=True, return_counts=True), a, name=False, grads=False)

@pytest.mark.parametrize('kw', [{}, dict(return_inverse=True), dict(return_counts=True),
                                dict(return_inverse=True, return_counts=True), dict(dim=0, return_inverse=True, return_counts=True), dict(dim=1)])
def test_unique_consecutive(kw):
    a = np.array([[1, 1, 2, 2, 3], [1, 1, 2, 2, 1], [1, 1, 2, 2, 1], [0, 0, 0, 1, 1]])
    check(lambda L, x: L.unique_consecutive(x, **kw), a)

@pytest.mark.parametrize('kw', [dict(dim=1), dict(dim=-2, return_inverse=True, return_counts=True)])
def test_unique_consecutive_empty_dim(kw):
    # the selected dim is the only empty one: an empty result, no runs (OpInfo unique_consecutive #252)
    check(lambda L, x: L.unique_consecutive(x, **kw), np.zeros((5, 0, 5)), name=False, grads=False)
    same_error(lambda L: L.unique_consecutive(L.zeros(5, 0, 5), dim=0))

@pytest.mark.parametrize('shapes', [((0, 0), (0, 0)), ((0, 0, 0), (0, 0, 0)), ((2, 0), (2, 3)), ((2, 4), (2, 0))])
def test_searchsorted_empty(shapes):
    # batched boundaries or values with no elements (OpInfo searchsorted #128)
    check(lambda L, s, v: L.searchsorted(s, v, out_int32=True), np.sort(R(*shapes[0]), -1), R(*shapes[1]), name=False, grads=False)

@pytest.mark.parametrize('right', [False, True])
def test_search(right):
    seq = np.array([1, 3, 3, 5, 7])
    check(lambda L, s, v: L.searchsorted(s, v, right=right), seq, np.array([[3, 6], [9, 0]]))
    check(lambda L, s, v: L.searchsorted(s, v, side='right' if right else 'left', out_int32=True), seq.astype(np.float32), np.array([3., 3.5]))
    check(lambda L, s, v: L.searchsorted(s, v, right=right), np.sort(R(2, 3, 5), -1), R(2, 3, 4))
    check(lambda L, v, b: L.bucketize(v, b, right=right), np.array([[1, 5], [9, 3]]), seq)
    check(lambda L, v, b: L.bucketize(v, b, right=right), np.array([0.5, 3.]), seq.astype(np.float64), grads=False)
    s = np.array([5, 1, 3])
    check(lambda L, s: L.searchsorted(s, L.tensor([2, 4]), sorter=L.argsort(s)), s)
    assert litnn.searchsorted(litnn.tensor(seq), 3, right=right).item() == torch.searchsorted(torch.tensor(seq), 3, right=right).item()

def test_isin():
    a, b = np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 6, 9])
    check(lambda L, a, b: L.isin(a, b), a, b)
    check(lambda L, a, b: L.isin(a, b, invert=True), a, b)
    check(lambda L, a: L.isin(a, 2), a)
    check(lambda L, b: L.isin(2, b), b)

def test_counting():
    check(lambda L, x: L.histc(x, bins=4, min=0, max=3), np.array([1., 2., 1., 3., -1., 4.], dtype=np.float32), name=False)
    check(lambda L, x: x.histc(), R(50), name=False)
    check(lambda L, x: L.histc(x, bins=2), np.array([1., 1.]), name=False)
    check(lambda L, x: L.bincount(x), np.array([1, 1, 3, 0]))
    check(lambda L, x: x.bincount(minlength=7), np.array([1, 1, 3, 0]))
    check(lambda L, x: L.bincount(x), np.array([], dtype=np.int64))
    for w in (np.array([1., 2, 3]), np.array([1., 2, 3], dtype=np.float32), np.array([1, 2, 3])):
        check(lambda L, x, w: L.bincount(x, weights=w), np.array([1, 1, 3]), w, grads=False, name=False)
    check(lambda L, x: L.count_nonzero(x), np.array([[1, 0], [0, 0], [2, 3]]))
    check(lambda L, x: x.count_nonzero(dim=0), np.array([[1, 0], [0, 0], [2, 3]]))
    check(lambda L, x: L.count_nonzero(x, dim=(0, 1)), np.array([[1., 0], [0, 0], [2, 3]]), grads=False)

@pytest.mark.parametrize('a', [np.array([[0, 3], [4, 0]]), np.array([[True, False, True]]), np.array(3.), np.array(0.),
                               np.zeros((2, 3)), rng.integers(0, 2, (2, 3, 4))])
def test_nonzero(a):
    check(lambda L, x: L.nonzero(x), a, grads=False)
    check(lambda L, x: x.nonzero(as_tuple=True), a, grads=False)
    check(lambda L, x: L.argwhere(x), a, grads=False)
    check(lambda L, x: x.argwhere(), a, grads=False)

def test_topk_ties_and_nan():
    a = rng.integers(0, 4, (5, 30)).astype(float)
    a[0, 3] = np.nan
    for largest in (True, False):
        for k in (1, 7, 30):
            l, t = litnn.topk(litnn.tensor(a), k, largest=largest), torch.topk(torch.tensor(a), k, largest=largest)
            np.testing.assert_array_equal(host(l.values), host(t.values))       # tie order is unspecified: values must agree
            np.testing.assert_array_equal(np.take_along_axis(a, host(l.indices), 1), host(l.values))
            assert all(len(set(r)) == k for r in host(l.indices))

def test_topk_large():
    check(lambda L, x: L.topk(x, 10), perm(3, 500))
    check(lambda L, x: x.topk(10, dim=0, largest=False), perm(500, 3))

@pytest.mark.parametrize('dtype', ['bfloat16', 'float16', 'float32'])
def test_low_precision_with_nan(dtype):
    a = np.array([[3., 1., np.nan, 2.], [0.5, 4., -1., 2.5]])
    for f in [lambda L, x: x.sort(descending=True), lambda L, x: x.topk(2), lambda L, x: x.topk(2, largest=False),
              lambda L, x: x.median(1), lambda L, x: x.nanmedian(1), lambda L, x: x.kthvalue(3)]:
        l, t = f(litnn, litnn.tensor(a, dtype=getattr(litnn, dtype))), f(torch, torch.tensor(a, dtype=getattr(torch, dtype)))
        for lv, tv in zip(l, t): np.testing.assert_array_equal(host(lv).astype(np.float64), host(tv).astype(np.float64))



def test_ties_as_torchs_cpu_kernels_break_them():
    "sort (unstable), argsort, topk (sorted or not, partial_sort or nth_element), kthvalue and mode pick among equal values as torch's CPU kernels do."
    rng = np.random.RandomState(1)
    for it in range(150):
        shape = (rng.randint(1, 4), rng.randint(1, 90))
        v = rng.randint(0, rng.randint(1, 8), shape).astype(np.float32)
        if it % 5 == 0: v[rng.rand(*shape) < 0.1] = np.nan
        if it % 7 == 0: v = v.astype(np.int64) if it % 5 else v
        T, L = torch.tensor(v), litnn.tensor(v)
        k = rng.randint(1, shape[1] + 1)
        for f in (lambda M, x: M.sort(x, dim=1).indices, lambda M, x: M.sort(x, dim=1, descending=True).indices,
                  lambda M, x: M.argsort(x, dim=1), lambda M, x: M.sort(x, dim=1, stable=True).indices, lambda M, x: M.sort(x, dim=0).indices,
                  lambda M, x: M.topk(x, k, dim=1).indices, lambda M, x: M.topk(x, k, dim=1, largest=False).indices,
                  lambda M, x: M.topk(x, k, dim=1, sorted=False).indices, lambda M, x: M.kthvalue(x, k, dim=1).indices,
                  lambda M, x: M.mode(x, dim=1).indices, lambda M, x: M.median(x, dim=1).indices):
            assert f(litnn, L).tolist() == f(torch, T).tolist(), (v, k)


@pytest.mark.parametrize('f', [lambda L, x: x.sort(descending=1),
                               lambda L, x: L.sort(x, 0, 'yes'),     # (descending's position differs between sort's signatures: torch's matching)
                               lambda L, x: x.argsort(descending=None),
                               lambda L, x: x.sort(stable=1), lambda L, x: x.topk(1, largest='no'), lambda L, x: x.topk(1, sorted=0),
                               lambda L, x: L.topk(x, 1, 0, 1)])
def test_bool_arguments_take_bools_only(f):
    """torch's parser takes a Python bool for descending, stable, largest and sorted: 0/1, strings and None are TypeErrors,
    worded as torch's (a name of several signatures: 'invalid combination'; litnn does not list the signatures after it)."""
    msgs = []
    for L in (torch, litnn):
        with pytest.raises(TypeError) as e: f(L, L.arange(6.).reshape(2, 3))
        msgs.append(str(e.value).split(', but expected one of')[0])
    assert msgs[0] == msgs[1] and ('bool' in msgs[0] or 'invalid combination' in msgs[0])


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('which', ['max', 'min', 'tiny'])
def test_histc_all_equal_extreme_values(dtype, which):
    "An empty data range at the float type's limits is widened by one step of that type (torch's bins_edges_correction)."
    def f(L):
        v = getattr(L.finfo(getattr(L, dtype)), which)
        return L.histc(L.tensor([v] * 3, dtype=getattr(L, dtype)), bins=4).tolist()
    assert f(litnn) == f(torch)
    check(lambda L, x: L.histc(x, bins=4), np.array([np.finfo(np.float64).max, 0.]), name=False, grads=False)


@pytest.mark.parametrize('case', ['input', 'boundary', 'sorter', 'bucketize', 'contiguous'])
def test_searchsorted_warns_about_non_contiguous_tensors(case):
    "searchsorted/bucketize copy a non-contiguous input, boundaries or sorter and warn (once per program; always under set_warn_always)."
    import warnings
    def run(L):
        seq, val, sorter = L.tensor([1., 2., 3., 4.]), L.tensor([[1., 3.], [2., 4.]]), None
        if case in ('input', 'bucketize'): val = val.T
        if case == 'boundary': seq = L.tensor([1., 9., 2., 9., 3., 9., 4., 9.])[::2]
        if case == 'sorter': seq, sorter = L.tensor([4., 1., 3., 2.]), L.tensor([1, 0, 3, 0, 2, 0, 0, 0])[::2]
        old = L.is_warn_always_enabled()
        L.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                r = L.bucketize(val, seq) if case == 'bucketize' else L.searchsorted(seq, val, sorter=sorter)
        finally: L.set_warn_always(old)
        return r.tolist(), [str(m.message).split(' (Triggered')[0] for m in w if 'non-contiguous' in str(m.message)]
    assert run(litnn) == run(torch)


_NAN = float('nan')


# torch's searchsorted kernel compares as a plain binary search: a NaN value goes past every boundary, a NaN boundary sends
# the search right wherever it is met; numpy's searchsorted sorts NaN last (found by test_sort_and_select.py-style checks)
@pytest.mark.parametrize('right', [False, True])
@pytest.mark.parametrize('s, v', [([1., _NAN], [_NAN]), ([1., _NAN], [0.5]), ([1., 2., _NAN, _NAN], [1.5, _NAN, 3., -1.]),
                                  ([_NAN, 1., 2.], [1.5]), ([[1., _NAN], [2., 3.]], [[_NAN, 1.], [2.5, _NAN]]),
                                  ([1., 2., 3.], [_NAN, 2.]), ([], [_NAN]), ([1., 2.], [[_NAN]])])
def test_searchsorted_with_nan_as_torch(s, v, right):
    r = [lib.searchsorted(lib.tensor(s), lib.tensor(v), right=right).tolist() for lib in (litnn, torch)]
    assert r[0] == r[1], r


def test_searchsorted_with_nan_random_as_torch():
    rng = np.random.default_rng(3)
    for _ in range(100):
        s = np.sort(rng.integers(0, 10, size=int(rng.integers(0, 12))).astype(float))
        s[rng.random(s.shape) < 0.2] = np.nan
        v = rng.integers(-1, 11, size=5).astype(float)
        v[rng.random(5) < 0.3] = np.nan
        right = bool(rng.integers(2))
        r = [lib.searchsorted(lib.tensor(s), lib.tensor(v), right=right).tolist() for lib in (litnn, torch)]
        assert r[0] == r[1], (s, v, right, r)
    r = [lib.bucketize(lib.tensor([_NAN, 1.5]), lib.tensor([1., 2., _NAN])).tolist() for lib in (litnn, torch)]
    assert r[0] == r[1]

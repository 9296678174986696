"""`out=` against torch 2.13: functions that take it, the object returned, values written, and torch's refusals of an
out of another dtype (the kernels that check it before casting). Inputs are those on which torch's OpInfo samples
showed a difference."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

A = np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32)
SPD = (A @ A.T + 3 * np.eye(3)).astype(np.float32)
IDX = np.array([[0, 2, 1], [1, 0, 0], [2, 2, 0]])


def both(f):
    "f(torch) and f(litnn): (result, out) of each, or the exception type."
    res = []
    for lib in (torch, litnn):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                res.append(f(lib))
        except Exception as e:
            res.append(type(e))
    return res


def arr(lib, a, dtype=None):
    t = lib.tensor(a)
    return t if dtype is None else t.to(getattr(lib, dtype))


def outs(lib, shapes, dtypes):
    return tuple(lib.zeros(s, dtype=getattr(lib, d)) for s, d in zip(shapes, dtypes))


# (name, call(lib, *outs), result shapes, result dtypes)
CASES = [
    ('polygamma', lambda L, o: L.polygamma(1, arr(L, A), out=o), [(3, 3)], ['float32']),
    ('signbit', lambda L, o: L.signbit(arr(L, A), out=o), [(3, 3)], ['bool']),
    ('isposinf', lambda L, o: L.isposinf(arr(L, A), out=o), [(3, 3)], ['bool']),
    ('isneginf', lambda L, o: L.isneginf(arr(L, A), out=o), [(3, 3)], ['bool']),
    ('renorm', lambda L, o: L.renorm(arr(L, A), 2, 0, 1., out=o), [(3, 3)], ['float32']),
    ('take_along_dim', lambda L, o: L.take_along_dim(arr(L, A), arr(L, IDX), 1, out=o), [(3, 3)], ['float32']),
    ('scatter_reduce', lambda L, o: L.scatter_reduce(arr(L, A), 0, arr(L, IDX), arr(L, A), 'amax', out=o), [(3, 3)], ['float32']),
    ('index_reduce', lambda L, o: L.index_reduce(arr(L, A), 0, arr(L, IDX[0]), arr(L, A), 'prod', out=o), [(3, 3)], ['float32']),
    ('expand_copy', lambda L, o: L.expand_copy(arr(L, A), (2, 3, 3), out=o), [(2, 3, 3)], ['float32']),
    ('permute_copy', lambda L, o: L.permute_copy(arr(L, A), (1, 0), out=o), [(3, 3)], ['float32']),
    ('narrow_copy', lambda L, o: L.narrow_copy(arr(L, A), 1, 1, 2, out=o), [(3, 2)], ['float32']),
    ('t_copy', lambda L, o: L.t_copy(arr(L, A), out=o), [(3, 3)], ['float32']),
    ('tril', lambda L, o: L.tril(arr(L, A), out=o), [(3, 3)], ['float32']),
    ('scatter_add', lambda L, o: L.scatter_add(arr(L, A), 0, arr(L, IDX), arr(L, A), out=o), [(3, 3)], ['float32']),
    ('quantile', lambda L, o: L.quantile(arr(L, A), 0.3, dim=1, out=o), [(3,)], ['float32']),
    ('histc', lambda L, o: L.histc(arr(L, A), 4, out=o), [(4,)], ['float32']),
    ('isin', lambda L, o: L.isin(arr(L, A), arr(L, A[0]), out=o), [(3, 3)], ['bool']),
    ('nan_to_num', lambda L, o: L.nan_to_num(arr(L, A), out=o), [(3, 3)], ['float32']),
    ('conj_physical', lambda L, o: L.conj_physical(arr(L, A), out=o), [(3, 3)], ['float32']),
    ('float_power', lambda L, o: L.float_power(arr(L, A), 2, out=o), [(3, 3)], ['float64']),
    ('frexp', lambda L, o1, o2: L.frexp(arr(L, A), out=(o1, o2)), [(3, 3), (3, 3)], ['float32', 'int32']),
    ('F.linear', lambda L, o: L.nn.functional.linear(arr(L, A), arr(L, A), out=o), [(3, 3)], ['float32']),
    ('F.hardshrink', lambda L, o: L.nn.functional.hardshrink(arr(L, A), out=o), [(3, 3)], ['float32']),
    ('linalg.svd', lambda L, *o: L.linalg.svd(arr(L, A), out=o), [(3, 3), (3,), (3, 3)], ['float32'] * 3),
    ('svd', lambda L, *o: L.svd(arr(L, A), out=o), [(3, 3), (3,), (3, 3)], ['float32'] * 3),
    ('linalg.qr', lambda L, *o: L.linalg.qr(arr(L, A), out=o), [(3, 3), (3, 3)], ['float32'] * 2),
    ('qr', lambda L, *o: L.qr(arr(L, A), out=o), [(3, 3), (3, 3)], ['float32'] * 2),
    ('linalg.eigh', lambda L, *o: L.linalg.eigh(arr(L, SPD), out=o), [(3,), (3, 3)], ['float32'] * 2),
    ('linalg.slogdet', lambda L, *o: L.linalg.slogdet(arr(L, A), out=o), [(), ()], ['float32'] * 2),
    ('linalg.inv_ex', lambda L, *o: L.linalg.inv_ex(arr(L, A), out=o), [(3, 3), ()], ['float32', 'int32']),
    ('linalg.solve_ex', lambda L, *o: L.linalg.solve_ex(arr(L, A), arr(L, A), out=o), [(3, 3), ()], ['float32', 'int32']),
    ('linalg.cholesky_ex', lambda L, *o: L.linalg.cholesky_ex(arr(L, SPD), out=o), [(3, 3), ()], ['float32', 'int32']),
    ('linalg.solve_triangular', lambda L, o: L.linalg.solve_triangular(arr(L, SPD), arr(L, A), upper=True, out=o), [(3, 3)], ['float32']),
    ('triangular_solve', lambda L, *o: L.triangular_solve(arr(L, A), arr(L, SPD), out=o), [(3, 3), (3, 3)], ['float32'] * 2),
    ('linalg.tensorsolve', lambda L, o: L.linalg.tensorsolve(arr(L, SPD), arr(L, A[0]), out=o), [(3,)], ['float32']),
    ('linalg.householder_product', lambda L, o: L.linalg.householder_product(arr(L, A), arr(L, A[0, :2]), out=o), [(3, 3)], ['float32']),
]
OTHER = {'float32': ['float64', 'int64'], 'bool': ['int64', 'float32'], 'float64': ['complex128', 'int64'], 'int32': ['int64']}


def check(case, dtypes, shapes=None):
    name, f, sh, _ = case
    shapes = sh if shapes is None else shapes
    t, l = both(lambda L: (lambda o: (f(L, *o), o))(outs(L, shapes, dtypes)))
    if isinstance(t, type) or isinstance(l, type):
        assert t == l, f'{name} {dtypes} {shapes}: torch {t} litnn {l}'
        return
    (tr, to), (lr, lo) = t, l
    tr, lr = (tr, lr) if isinstance(tr, tuple) else ((tr,), (lr,))
    for a, b, ob in zip(tr, lr, lo):
        assert b is ob                                     # the result is the out tensor itself
        assert tuple(b.shape) == tuple(a.shape) and str(b.dtype).split('.')[-1] == str(a.dtype).split('.')[-1]
        if 'svd' not in name and 'qr' not in name and 'eigh' not in name:      # (signs of singular/eigen vectors)
            np.testing.assert_allclose(b.numpy().astype(np.float64), a.numpy().astype(np.float64), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_out_right_dtype_and_shape(case):
    check(case, case[3])


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_out_of_another_dtype_same_exception_as_torch(case):
    for i, d in enumerate(case[3]):
        for other in OTHER[d]:
            check(case, case[3][:i] + [other] + case[3][i + 1:])


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_out_resized(case):
    check(case, case[3], [(7,)] * len(case[2]))
    check(case, case[3], [(0,)] * len(case[2]))


@pytest.mark.parametrize('factory', ['zeros', 'ones', 'empty', 'eye', 'arange', 'linspace', 'logspace', 'full'])
def test_factory_dtype_must_match_out(factory):
    args = {'zeros': (3,), 'ones': (3,), 'empty': (3,), 'eye': (3,), 'arange': (3,), 'linspace': (0, 1, 3), 'logspace': (0, 1, 3), 'full': ((3,), 2.)}[factory]
    t, l = both(lambda L: getattr(L, factory)(*args, dtype=L.float32, out=L.zeros(3, dtype=L.float64)))
    assert t is RuntimeError and l is RuntimeError
    t, l = both(lambda L: getattr(L, factory)(*args, out=L.zeros(3, dtype=L.float64)).dtype)   # no dtype: out's
    assert str(t).split('.')[-1] == str(l).split('.')[-1] == 'float64'


@pytest.mark.parametrize('f', ['hstack', 'vstack', 'dstack', 'column_stack'])
def test_stacking_out_of_a_narrower_dtype_is_a_type_error(f):
    t, l = both(lambda L: getattr(L, f)([L.ones(2), L.ones(2)], out=L.zeros(2, dtype=L.int64)))
    assert t is TypeError and l is TypeError


@pytest.mark.parametrize('fn', ['all', 'any'])
@pytest.mark.parametrize('xd', ['uint8', 'bool', 'float32', 'int64'])
@pytest.mark.parametrize('od', ['bool', 'uint8', 'float32', 'int64'])
def test_all_any_write_into_a_bool_or_uint8_out(fn, xd, od):
    "all/any take a bool or a uint8 out whatever the input's dtype (uint8 in, bool out too); any other out is refused."
    def f(lib):
        o = lib.empty(2, dtype=getattr(lib, od))
        r = getattr(lib, fn)(arr(lib, [[1, 0], [1, 1]], xd), 1, out=o)
        return str(r.dtype).split('.')[-1], r.tolist(), r is o
    t, l = both(f)
    assert t == l


@pytest.mark.parametrize('fn', ['searchsorted', 'bucketize'])
@pytest.mark.parametrize('od,int32', [('float32', False), ('int32', False), ('int64', True), ('int64', False), ('int32', True)])
def test_searchsorted_out_must_hold_the_index_dtype(fn, od, int32):
    "searchsorted/bucketize write only int64 (int32 with out_int32=True) into out; any other out dtype is refused."
    def f(lib):
        v = lib.tensor([1, 2, 3, 4, 5])
        o = v.to(getattr(lib, od))
        r = getattr(lib, fn)(v, v, out=o, out_int32=int32)
        return str(r.dtype).split('.')[-1], r.tolist(), r is o
    t, l = both(f)
    assert t == l


def test_nonzero_as_tuple_refuses_out():
    "torch.nonzero(as_tuple=True) has no out= (its result is a tuple): torch's RuntimeError, with its message."
    msgs = []
    for lib in (torch, litnn):
        x, out = lib.ones(2, 3), lib.empty(0, dtype=lib.long)
        with pytest.raises(RuntimeError, match='does not support the out kwarg when as_tuple is True') as e:
            lib.nonzero(x, as_tuple=True, out=out)
        msgs.append(str(e.value))
        assert lib.nonzero(x, as_tuple=False, out=out) is out and out.shape == (6, 2)
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('f', ['cat', 'stack', 'hstack', 'vstack', 'dstack', 'column_stack'])
def test_joining_into_a_narrower_out_message(f):
    "torch's joins are a cat: each refuses with torch.cat()'s TypeError message."
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(TypeError) as e:
            getattr(lib, f)([lib.ones(2), lib.ones(2)], out=lib.zeros(2, dtype=lib.int64))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == "torch.cat(): input types can't be cast to the desired output type Long"


@pytest.mark.parametrize('shape', [(3,), (2, 2)])
@pytest.mark.parametrize('xd,od', [('float32', 'int64'), ('float32', 'bool'), ('int64', 'bool'), ('float32', 'float64'), ('int64', 'float32'), ('float32', 'float32')])
def test_diag_out_dtype(shape, xd, od):
    "diag of a vector refuses an out it cannot cast into with its own message; otherwise out must hold the input's dtype."
    res = []
    for lib in (torch, litnn):
        try: res.append(lib.diag(lib.ones(shape, dtype=getattr(lib, xd)), out=lib.empty(0, dtype=getattr(lib, od))).tolist())
        except RuntimeError as e: res.append(str(e))
    assert res[0] == res[1]


@pytest.mark.parametrize('name', ['add', 'mul', 'exp', 'sigmoid', 'softplus', 'softshrink', 'logsigmoid', 'clamp', 'mm', 'cumsum',
                                  'randn', 'add_other_shape'])
def test_expanded_out_is_refused_as_torchs(name):
    "An out whose elements share memory (expand): torch's out= kernels assert no internal overlap, before any resize."
    from torch_pairs import same_message
    def f(lib):
        F, x = lib.nn.functional, lib.tensor(A)
        out = lib.zeros(1, 3).expand(3, 3)
        return {'add': lambda: lib.add(x, 1, out=out), 'mul': lambda: lib.mul(x, x, out=out), 'exp': lambda: lib.exp(x, out=out),
                'sigmoid': lambda: lib.sigmoid(x, out=out), 'softplus': lambda: F.softplus(x, out=out),
                'softshrink': lambda: F.softshrink(x, out=out), 'logsigmoid': lambda: F.logsigmoid(x, out=out),
                'clamp': lambda: lib.clamp(x, 0, 1, out=out), 'mm': lambda: lib.mm(x, x, out=out), 'cumsum': lambda: lib.cumsum(x, 0, out=out),
                'randn': lambda: lib.randn(3, 3, out=out), 'add_other_shape': lambda: lib.add(lib.ones(2, 2), 1, out=out)}[name]()
    assert same_message(f) is RuntimeError


def test_fills_into_expanded_out_are_not_refused_for_overlap():
    "torch's zeros/full(out=) only fill (no overlap check): litnn must not answer with the overlap error there."
    out = litnn.zeros(1, 3).expand(3, 3)
    try: litnn.zeros(3, 3, out=out)
    except Exception as e: assert 'more than one element of the written-to tensor' not in str(e)
    torch.zeros(3, 3, out=torch.zeros(1, 3).expand(3, 3))


def test_empty_out_never_overlaps_itself():
    "An empty out= (numel 0) passes torch's internal-overlap check whatever its strides; an expanded non-empty one does not."
    for lib in (torch, litnn):
        a, b = lib.ones(2), lib.ones(3, 0, 2)
        out = lib.zeros_like(lib.inner(a, b))
        assert tuple(lib.inner(a, b, out=out).shape) == (3, 0)
        assert tuple(lib.mul(lib.zeros(3, 0), 2, out=lib.zeros(3, 0)).shape) == (3, 0)
        assert tuple(lib.add(lib.zeros(0, 3), 2, out=lib.empty(0, 3)).shape) == (0, 3)
        with pytest.raises(RuntimeError, match='refers to a single memory location'):
            lib.add(lib.zeros(3), 2, out=lib.empty(1).expand(3))


def test_expanded_empty_out_of_the_right_shape_is_written():
    "An out= that is an expanded empty view with the result's shape: nothing to write, no error (torch's solve_triangular test does this)."
    for lib in (torch, litnn):
        A = (lib.eye(5) * 2).expand(2, 5, 5)
        B = lib.ones(5, 0).expand(2, 5, 0)
        assert tuple(lib.linalg.solve_triangular(A, B, upper=True, out=B).shape) == (2, 5, 0)
        e = lib.ones(0, 3).expand(2, 0, 3)
        assert tuple(lib.add(e, 1, out=e).shape) == (2, 0, 3)


def test_cholesky_solve_and_inverse_out_castability_messages():
    "cholesky_solve/cholesky_inverse refuse an out their result cannot be cast to, in torch's words; wider outs are written."
    for f in (lambda L: L.cholesky_inverse(L.eye(2), out=L.empty(0, dtype=L.int32)),
              lambda L: L.cholesky_solve(L.ones(2, 1), L.eye(2), out=L.empty(0, dtype=L.int32))):
        with pytest.raises(RuntimeError) as te: f(torch)
        with pytest.raises(RuntimeError) as le: f(litnn)
        assert str(le.value) == str(te.value)
    for lib in (torch, litnn):
        o = lib.empty(0, dtype=lib.float64)
        assert lib.cholesky_solve(lib.ones(2, 1), lib.eye(2), out=o) is o and o.dtype == lib.float64 and tuple(o.shape) == (2, 1)


# out= over part of an input's memory: torch's TensorIterator kernels (elementwise, scans, sort) refuse it, those
# starting from a copy of self check self only, reductions and matrix products write on (read off torch 2.13)
OVERLAP_CASES = {
    'exp': lambda L, d: L.exp(d[1:5], out=d[0:4]),
    'add_second': lambda L, d: L.add(L.ones(4), d[1:5], out=d[0:4]),
    'mul_broadcast': lambda L, d: L.mul(d[1:2], L.ones(4), out=d[0:4]),
    'atan2': lambda L, d: L.atan2(L.ones(4), d[1:5], out=d[0:4]),
    'where': lambda L, d: L.where(L.tensor([True, False, True, True]), d[2:6], L.ones(4), out=d[0:4]),
    'cumsum': lambda L, d: L.cumsum(d[2:6], 0, out=d[0:4]),
    'sort': lambda L, d: L.sort(d[2:6], out=(d[0:4], L.zeros(4, dtype=L.long))),
    'addmm_self': lambda L, d: L.addmm(d[2:6].view(2, 2), L.ones(2, 2), L.ones(2, 2), out=d[0:4].view(2, 2)),
    'addmm_mat': lambda L, d: L.addmm(L.ones(2, 2), d[2:6].view(2, 2), L.ones(2, 2), out=d[0:4].view(2, 2)),
    'outer': lambda L, d: L.outer(d[2:4], L.ones(2), out=d[0:4].view(2, 2)),
    'scatter_src': lambda L, d: L.scatter(L.ones(4), 0, L.tensor([0, 1]), d[1:3], out=d[0:4]),
    'special_erfcx': lambda L, d: L.special.erfcx(d[1:5], out=d[0:4]),
    'gelu': lambda L, d: L.nn.functional.gelu(d[1:5], out=d[0:4]),
    'sum_dim': lambda L, d: L.sum(d[4:20].view(4, 4), 1, out=d[0:4]),
    'mm': lambda L, d: L.mm(d[2:6].view(2, 2), L.ones(2, 2), out=d[0:4].view(2, 2)),
    'softmax': lambda L, d: L.softmax(d[2:6], 0, out=d[0:4]),
    'mvlgamma': lambda L, d: L.mvlgamma(d[2:6] + 2, 1, out=d[0:4]),
    'same_memory': lambda L, d: L.exp(d[0:4], out=d[0:4]),
    'transposed_same': lambda L, d: L.exp(d[0:4].view(2, 2).t(), out=d[0:4].view(2, 2)),
    'interleaved': lambda L, d: L.exp(d[1:9:2], out=d[0:8:2]),
}

@pytest.mark.parametrize('case', sorted(OVERLAP_CASES))
def test_out_partially_overlapping_an_input(case):
    "The same refusal (torch's message) or the same values written, the buffer unchanged when refused."
    res = []
    for L in (torch, litnn):
        d = L.arange(1., 33.) / 40 + 0.05
        try: OVERLAP_CASES[case](L, d); res.append(('wrote', np.asarray(d.tolist())))
        except RuntimeError as e: res.append((str(e), np.asarray(d.tolist())))
    assert res[1][0] == res[0][0] if isinstance(res[0][0], str) else res[1][0] == 'wrote'
    # (torch's addmm copies self into out first, over the mat1 it then reads; its mm hands the overlapping memory to BLAS,
    # whose result depends on the CPU's kernel (AVX2 or AVX-512): no value to compare)
    if case not in ('addmm_mat', 'mm'):
        np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-6)


@pytest.mark.parametrize('f', [lambda L, x: L.sum(x, out=L.empty(())), lambda L, x: L.prod(x, out=L.empty(())),
                               lambda L, x: L.median(x, out=L.empty(())), lambda L, x: L.cumsum(x, out=L.empty(4))])
def test_out_needs_the_overload_with_dim(f):
    "torch's sum/prod/median/cumsum over the whole tensor have no out=: a TypeError (not a write, not another error)."
    for L in (torch, litnn):
        with pytest.raises(TypeError): f(L, L.arange(4.))


@pytest.mark.parametrize('name, call', [
    ('max', lambda L, E: L.max(L.ones(3, 4), 1, out=E('float32', 'int64'))),
    ('sort', lambda L, E: L.sort(L.ones(3, 4), out=E('float32', 'int64'))),
    ('topk', lambda L, E: L.topk(L.ones(3, 4), 2, out=E('float32', 'int64'))),
    ('cummax', lambda L, E: L.cummax(L.ones(3, 4), 1, out=E('float32', 'int64'))),
    ('aminmax', lambda L, E: L.aminmax(L.ones(3, 4), dim=1, out=E('float32', 'float32'))),
    ('frexp', lambda L, E: L.frexp(L.ones(3), out=E('float32', 'int32'))),
    ('linalg_qr', lambda L, E: L.linalg.qr(L.eye(2), out=E('float32', 'float32'))),
])
def test_out_overloads_return_their_own_named_tuple(name, call):
    "torch's out= overloads return return_types.<name>_out (the same fields), holding the out tensors themselves"
    for L in (litnn, torch):
        outs = []
        def E(*dts): outs.extend(L.empty(0, dtype=getattr(L, d)) for d in dts); return tuple(outs)
        r = call(L, E)
        assert type(r).__name__ == name + '_out' and type(r).__module__ == L.__name__ + '.return_types'
        assert all(a is b for a, b in zip(r, outs))

"""torch.return_types: each type is a structseq (a tuple built from one sequence), as torch's; its fields, errors, out=
twin, pickling and pytree treatment compared with real torch (PyTorch's test/test_namedtuple_return_api.py, and more)."""
import pickle
import numpy as np
import pytest
torch = pytest.importorskip('torch')
import litnn
import litnn.utils._pytree as lpytree
import torch.utils._pytree as tpytree


def outcome(f):
    "('ok', result) or (exception type name, message)"
    try: return 'ok', f()
    except Exception as e: return type(e).__name__, str(e).replace('torch.', 'litnn.')

CALLS = {
    'one_list': lambda M: M([1, 2]),
    'one_iterator': lambda M: M(iter([1, 2])),
    'two_args': lambda M: M(1, 2),
    'short': lambda M: M([1]),
    'long': lambda M: M([1, 2, 3]),
    'no_args': lambda M: M(),
    'kw_sequence': lambda M: M(sequence=[1, 2]),
    'dict_kw': lambda M: M([1, 2], dict={}),
    'dict_not_dict': lambda M: M([1, 2], 5),
    'dict_none': lambda M: M([1, 2], None),
    'three_args': lambda M: M([1, 2], {}, 3),
    'bad_kw': lambda M: M([1, 2], foo=3),
    'string': lambda M: M('ab'),
    'subclass': lambda M: type('X', (M,), {}),
    'set_field': lambda M: setattr(M([1, 2]), 'values', 3),
    'fields': lambda M: (M.__match_args__, M.n_fields, M.n_sequence_fields, M.n_unnamed_fields, M.__bases__ == (tuple,)),
    'no_namedtuple_api': lambda M: [hasattr(M, a) for a in ('_fields', '_make', '_asdict', '_replace')],
    'slice': lambda M: M([1, 2])[:1],
    'equal': lambda M: (M([1, 2]) == (1, 2), hash(M([1, 2])) == hash((1, 2))),
    'reduce': lambda M: M([1, 2]).__reduce__()[1],
}

@pytest.mark.parametrize('case', list(CALLS))
def test_structseq_construction_as_torch(case):
    l, t = outcome(lambda: CALLS[case](litnn.return_types.max)), outcome(lambda: CALLS[case](torch.return_types.max))
    if l[0] == 'ok' and t[0] == 'ok' and isinstance(t[1], tuple) and type(t[1]).__module__ == 'torch.return_types':
        l, t = (l[0], type(l[1]).__name__, tuple(l[1])), (t[0], type(t[1]).__name__, tuple(t[1]))
    assert l == t


OPS = {   # (op, args, fields): every public op of PyTorch's test whose out= form exists
    'max': (lambda m, a: m.max(a, 0), ('values', 'indices')), 'min': (lambda m, a: m.min(a, 0), ('values', 'indices')),
    'median': (lambda m, a: m.median(a, 0), ('values', 'indices')), 'sort': (lambda m, a: m.sort(a, 0), ('values', 'indices')),
    'cummax': (lambda m, a: m.cummax(a, 0), ('values', 'indices')), 'kthvalue': (lambda m, a: m.kthvalue(a, 1, 0), ('values', 'indices')),
    'svd': (lambda m, a: m.svd(a), ('U', 'S', 'V')), 'linalg_svd': (lambda m, a: m.linalg.svd(a), ('U', 'S', 'Vh')),
    'slogdet': (lambda m, a: m.slogdet(a), ('sign', 'logabsdet')), 'linalg_slogdet': (lambda m, a: m.linalg.slogdet(a), ('sign', 'logabsdet')),
    'qr': (lambda m, a: m.qr(a), ('Q', 'R')), 'geqrf': (lambda m, a: m.geqrf(a), ('a', 'tau')),
    'linalg_eigh': (lambda m, a: m.linalg.eigh(a), ('eigenvalues', 'eigenvectors')),
    'linalg_ldl_factor': (lambda m, a: m.linalg.ldl_factor(a), ('LD', 'pivots')),
    'linalg_ldl_factor_ex': (lambda m, a: m.linalg.ldl_factor_ex(a), ('LD', 'pivots', 'info')),
    'linalg_lu': (lambda m, a: m.linalg.lu(a), ('P', 'L', 'U')), 'frexp': (lambda m, a: m.frexp(a), ('mantissa', 'exponent')),
    'aminmax': (lambda m, a: m.aminmax(a), ('min', 'max')), 'histogram': (lambda m, a: m.histogram(a, 3), ('hist', 'bin_edges')),
}

@pytest.mark.parametrize('name', list(OPS))
def test_op_results_and_out_forms_as_torch(name):
    op, fields = OPS[name]
    x = np.random.default_rng(0).normal(size=(4, 4)).astype(np.float32)
    x = x + x.T + 8 * np.eye(4, dtype=np.float32)                            # symmetric, well conditioned
    res = {}
    for m in (litnn, torch):
        a = m.tensor(x)
        r = op(m, a)
        r2 = op(m, a) if name == 'histogram' else None
        rt = m.return_types
        assert type(r) is getattr(rt, name) and [getattr(r, f) is r[i] for i, f in enumerate(fields)] == [True] * len(fields)
        outs = tuple(t.clone() for t in r)
        ro = (m.histogram(a, 3, out=outs) if name == 'histogram' else op_out(m, name, a, outs))
        assert type(ro) is getattr(rt, name + '_out') and all(o is t for o, t in zip(ro, outs))   # out= returns the out tensors
        assert type(getattr(rt, name)([m.randn(()) for _ in fields])) is getattr(rt, name)
        res[m.__name__] = [t.numpy() for t in r]
    for l, t in zip(res['litnn'], res['torch']): np.testing.assert_allclose(np.abs(l), np.abs(t), rtol=1e-4, atol=1e-4)

def op_out(m, name, a, outs):
    "the op called with out="
    f = {'linalg_svd': m.linalg.svd, 'linalg_slogdet': m.linalg.slogdet, 'linalg_eigh': m.linalg.eigh, 'linalg_ldl_factor': m.linalg.ldl_factor,
         'linalg_ldl_factor_ex': m.linalg.ldl_factor_ex, 'linalg_lu': m.linalg.lu}.get(name) or getattr(m, name)
    args = {'max': (0,), 'min': (0,), 'median': (0,), 'sort': (0,), 'cummax': (0,), 'kthvalue': (1, 0)}.get(name, ())
    return f(a, *args, out=outs)

def test_out_types_exist_as_torch():
    "every <name>_out type torch has, litnn has (for the ops litnn has), and no other"
    import litnn.linalg  # noqa: F401  (all return types are made by now)
    l = {T.__name__ for T in litnn.return_types.all_return_types}
    t = {n for n in torch.return_types.__all__ if isinstance(getattr(torch.return_types, n), type)}
    assert sorted(n for n in l if n.endswith('_out') and n not in t) == []
    assert sorted(n + '_out' for n in l if n + '_out' in t and n + '_out' not in l) == []
    assert set(litnn.return_types.__all__) - {'pytree_register_structseq', 'all_return_types'} == l

def test_pickle_and_pytree_as_torch():
    for m, p in ((litnn, lpytree), (torch, tpytree)):
        r = m.max(m.tensor([[1., 5.], [3., 2.]]), 0)
        assert type(pickle.loads(pickle.dumps(r))) is type(r)
        leaves, spec = p.tree_flatten(r)
        assert len(leaves) == 2 and type(p.tree_unflatten(leaves, spec)) is type(r)
        assert [str(k) for k, _ in p.tree_flatten_with_path(r)[0]] == ['(SequenceKey(idx=0),)', '(SequenceKey(idx=1),)']
        assert type(p.tree_map(lambda v: v * 2, r)) is type(r) and p.is_structseq(r) and not p.is_namedtuple(r)

def test_slogdet_out_and_ldl_factor_out_dtype_checks_as_torch():
    for m in (litnn, torch):
        a = m.tensor([[4., 1.], [1., 3.]])
        with pytest.raises(RuntimeError, match='Expected out tensor to have dtype float, but got double instead'):
            m.linalg.ldl_factor(a, out=(m.empty(0, dtype=m.float64), m.empty(0, dtype=m.int32)))
        with pytest.raises(RuntimeError, match='Expected out tensor to have dtype int, but got long int instead'):
            m.linalg.ldl_factor_ex(a, out=(m.empty(0), m.empty(0, dtype=m.int32), m.empty(0, dtype=m.int64)))
        with pytest.raises(RuntimeError, match='Expected out tensor to have dtype float, but got long int instead'):
            m.slogdet(a, out=(m.empty(0), m.empty(0, dtype=m.int64)))

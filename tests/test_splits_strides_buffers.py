"""fill, range, the unsafe splits, can_cast, typename, is_neg, empty_strided, frombuffer (reference/torch/splits_strides_buffers) against torch 2.13."""
import warnings, numpy as np, pytest
import litnn
from api_pairs import torch, check, same_error, host

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x23, x34, x134, v4 = R(2, 3), R(3, 4), R(1, 3, 4), R(4)


# ---- reference/torch/splits_strides_buffers
ODDS = [
    ('fill', lambda L, a: L.fill(a, 2.5), [x23]),
    ('fill_tensor', lambda L, a, v: L.fill(a, v), [x23, np.array(1.5)]),
    ('fill_int', lambda L, a: L.fill(a, 2.5), [np.array([1, 2, 3])]),
    ('split_with_sizes', lambda L, a: L.split_with_sizes(a, [1, 3]) + a.split_with_sizes((2, 2), dim=1), [R(4, 4)]),
    ('unsafe_split', lambda L, a: L.unsafe_split(a, 2) + a.unsafe_split(3, 1), [R(5, 4)]),
    ('unsafe_chunk', lambda L, a: L.unsafe_chunk(a, 2) + a.unsafe_chunk(3, dim=1), [R(5, 4)]),
    ('unsafe_split_with_sizes', lambda L, a: L.unsafe_split_with_sizes(a, [1, 4]) + a.unsafe_split_with_sizes([3, 1], 1), [R(5, 4)]),
    ('resolve_neg', lambda L, a: (L.resolve_neg(a) * 2, a.resolve_neg()), [x23]),
]

@pytest.mark.parametrize('case', ODDS, ids=[c[0] for c in ODDS])
def test_tensor_odds(case):
    _, f, arrays = case
    check(f, *arrays, name=True)

def test_range_and_its_warning():
    for args, kw in [((1, 4), {}), ((0, 1, 0.25), dict(dtype='float64')), ((0, 0.9, 0.1), {}), ((1, 3), dict(dtype='int32')),
                     ((1, 1), {}), ((5, -1, -1.5), {}), ((1., 4.), dict(requires_grad=True))]:
        out = []
        for lib in (litnn, torch):
            k = {n: getattr(lib, v) if n == 'dtype' else v for n, v in kw.items()}
            with pytest.warns(UserWarning, match='torch.range is deprecated'): out.append(lib.range(*args, **k))
        l, t = out
        assert l.dtype.name == str(t.dtype).removeprefix('torch.') and l.requires_grad == t.requires_grad
        np.testing.assert_array_equal(host(l), host(t))

def test_predicates_and_names():
    dts = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool']
    for a in dts:
        for b in dts: assert litnn.can_cast(getattr(litnn, a), getattr(litnn, b)) == torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)
    for lib in (litnn, torch):
        x = lib.ones(2, dtype=lib.float64)
        assert (lib.is_neg(x), x.is_neg(), lib.resolve_neg(x) is x, lib.get_device(x)) == (False, False, True, -1)
        assert [lib.typename(o) for o in (x, 3, 'a', lib.nn.Linear, lib.nn.Linear(1, 1), lib.ones(1, dtype=lib.int32))] == \
               [f'{lib.__name__}.DoubleTensor', 'int', 'str', f'{lib.__name__}.nn.modules.linear.Linear', f'{lib.__name__}.nn.modules.linear.Linear', f'{lib.__name__}.IntTensor']

def test_unsafe_pieces_are_not_tracked_as_views():
    for lib in (litnn, torch):
        a = lib.ones(4, requires_grad=True)
        p, q = (a * 2).unsafe_split(2)
        p.mul_(3)                    # allowed on an unsafe piece
        (p.sum() + q.sum()).backward()
        assert a.grad.tolist() == [6., 6., 2., 2.] and q._version == 0

def test_empty_strided_and_frombuffer():
    import array
    for size, stride in [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4, 2), (0, 1)), ((2, 0), (1, 1)), ((3, 2, 2), (4, 1, 2))]:
        l, t = litnn.empty_strided(size, stride, dtype=litnn.float64), torch.empty_strided(size, stride, dtype=torch.float64)
        assert (tuple(l.shape), l.stride(), l.is_contiguous(), l.dtype.name) == (tuple(t.shape), t.stride(), t.is_contiguous(), 'float64')
    l = litnn.ones(1, dtype=litnn.int32).new_empty_strided((2, 2), (1, 2), requires_grad=False)
    assert l.dtype == litnn.int32 and l.stride() == (1, 2)
    assert litnn.empty_strided((2,), (1,), requires_grad=True).requires_grad
    for buf, kw in [(bytearray(b'\x01\x02\x03\x04'), dict(dtype='int8')), (bytearray(range(8)), dict(dtype='float32', count=1, offset=4)),
                    (array.array('f', [1, 2, 3]), dict(dtype='float32')), (bytearray(range(12)), dict(dtype='int16', offset=2))]:
        l = litnn.frombuffer(buf, **{**kw, 'dtype': getattr(litnn, kw['dtype'])})
        t = torch.frombuffer(buf, **{**kw, 'dtype': getattr(torch, kw['dtype'])})
        np.testing.assert_array_equal(host(l), host(t))
    raw = bytearray(4)
    litnn.frombuffer(raw, dtype=litnn.uint8)[1] = 9
    assert raw == bytearray(b'\x00\x09\x00\x00')

@pytest.mark.parametrize('f', [
    lambda L: L.fill(L.ones(2), L.tensor([3.])), lambda L: L.split_with_sizes(L.arange(6), [2, 3]),
    lambda L: L.arange(6).split_with_sizes([2, -1, 5]), lambda L: L.unsafe_split(L.arange(5), [2, 3]),
    lambda L: L.unsafe_chunk(L.arange(5), 0), lambda L: L.can_cast(L.ones(1), L.int32),
    lambda L: L.empty_strided((2, 3), (1,)),
    lambda L: L.frombuffer(bytearray(7), dtype=L.float32), lambda L: L.frombuffer(bytearray(8), dtype=L.float32, count=3),
    lambda L: L.frombuffer(bytearray(0), dtype=L.float32), lambda L: L.frombuffer(bytearray(8), dtype=L.float32, offset=9),
    lambda L: L.range(1, 4, 0), lambda L: L.range(4, 1), lambda L: L.range(1, 4, -1),
])
def test_odds_errors(f):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        same_error(f)

def test_frombuffer_refusals_and_readonly_warning():
    same_error(lambda L: L.frombuffer([1, 2, 3, 4], dtype=L.int8))
    litnn.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match='The given buffer is not writable'): l = litnn.frombuffer(b'abcd', dtype=litnn.int8)
    finally: litnn.set_warn_always(False)
    assert l.tolist() == torch.frombuffer(b'abcd', dtype=torch.int8).tolist()

def test_range_out_and_range_factories_fill_out_of_same_numel():
    "torch.range takes out=; arange/linspace/logspace/range write into out's own shape when it holds as many values."
    for f in (lambda L, o: L.range(0, 3, out=o), lambda L, o: L.arange(0, 4, out=o), lambda L, o: L.linspace(0, 3, 4, out=o),
              lambda L, o: L.logspace(0, 3, 4, base=2, out=o)):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            res = []
            for L in (litnn, torch):
                x = L.zeros(2, 3)
                y = f(L, x.narrow(1, 1, 2))
                res.append((host(x), tuple(y.shape)))
        np.testing.assert_array_equal(res[0][0], res[1][0]); assert res[0][1] == res[1][1]

def test_storage_size_overflow():
    same_error(lambda L: L.empty([2, 4, 2**29, 2**29], dtype=L.float64))
    same_error(lambda L: L.empty_strided([8, 8], [2**61, 1], dtype=L.float64))

def test_range_factories_resize_warnings():
    "arange warns with its own message when out= holds another number of elements; linspace resizes silently."
    for L in (litnn, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = L.arange(-1, 1, 2. / 49, dtype=L.float32, out=L.zeros(size=(1, 49)))
            L.linspace(0, 1, 3, out=L.zeros(5))
        msgs = [str(x.message).split(' (Triggered')[0] for x in w]
        if L is litnn: lm = msgs
    assert lm == msgs and 'The out tensor will be resized to a tensor of shape (50,).' in msgs[0]

def test_arange_size_overflow():
    same_error(lambda L: L.arange(1.175494351e-38, 3.402823466e+38))

def test_factory_out_layout_mismatch():
    same_error(lambda L: L.zeros((3, 4), layout=L.sparse_coo, out=L.zeros(3, 4)))
    for L in (litnn, torch): assert L.zeros((3, 4), layout=L.strided, out=L.ones(3, 4)).sum().item() == 0

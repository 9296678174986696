"""x[key] and x[key] = v side by side with torch, for the keys PyTorch's test/test_indexing.py found litnn reading
differently: 0-d index tensors of every integer dtype (integers, so a view), a 0-d uint8 tensor (a mask, also on a 0-d
tensor), and aten::index with no index."""
import pytest
import litnn

torch = pytest.importorskip('torch')
from api_pairs import outcome




def _same(fn):
    t, l = outcome(fn, torch), outcome(fn, litnn)
    assert l == t, (l, t)


_INT_DTYPES = ['int8', 'int16', 'int32', 'int64', 'uint16', 'uint32', 'uint64']


@pytest.mark.parametrize('dt', _INT_DTYPES)
@pytest.mark.parametrize('case', [
    lambda L, dt: L.arange(6.).view(2, 3)[L.tensor(1, dtype=getattr(L, dt))],
    lambda L, dt: L.arange(6.).view(2, 3)[0, L.tensor(2, dtype=getattr(L, dt))],
    lambda L, dt: L.arange(6.).view(2, 3)[L.tensor(1, dtype=getattr(L, dt)), [0, 2]],
    lambda L, dt: L.arange(6.).view(2, 3)[L.tensor(5, dtype=getattr(L, dt))],             # out of range: torch's words
    lambda L, dt: L.arange(6.).view(2, 3)[1, L.tensor(7, dtype=getattr(L, dt))],
    lambda L, dt: L.tensor(2.)[L.tensor(0, dtype=getattr(L, dt))],                        # a 0-d tensor has no dim to select
])
def test_a_0d_integer_tensor_index_is_an_integer(case, dt):
    _same(lambda L: case(L, dt))


@pytest.mark.parametrize('dt', ['int8', 'int16', 'int64'])
def test_a_0d_integer_tensor_index_gives_a_view_and_writes(dt):
    for L in (torch, litnn):
        a = L.arange(6.).view(2, 3)
        i = L.tensor(1, dtype=getattr(L, dt))
        assert a[i].data_ptr() == a[1].data_ptr()
        assert a[0, i].data_ptr() == a[0, 1].data_ptr()
    def write(L):
        a = L.zeros(2, 3)
        a[L.tensor(1, dtype=getattr(L, dt))] = 4
        a[0, L.tensor(2, dtype=getattr(L, dt))] = 7
        return a
    _same(write)
    def grad(L):
        x = L.ones(2, 3, requires_grad=True)
        (x[L.tensor(1, dtype=getattr(L, dt))] * 2).sum().backward()
        return x.grad
    _same(grad)


@pytest.mark.parametrize('case', [
    lambda L: L.arange(6.).view(2, 3)[L.tensor([1], dtype=L.int16)],      # not 0-d: int16 is refused as an index tensor
    lambda L: L.tensor(3.)[L.tensor(1, dtype=L.uint8)],                  # a 0-d uint8 tensor is a mask, on a 0-d tensor too
    lambda L: L.tensor(3.)[L.tensor(0, dtype=L.uint8)],
    lambda L: L.randn(2, 3)[L.tensor(0, dtype=L.uint8)].shape,
    lambda L: L.arange(6.).view(2, 3)[L.tensor(1, dtype=L.uint8)],
    lambda L: L.tensor(3.)[L.tensor(True)],
    lambda L: L.tensor(3.)[L.tensor(1)],                                  # an int64 one is not: too many indices
])
def test_0d_mask_and_refused_index_tensors(case):
    _same(case)


def test_0d_uint8_mask_writes_a_0d_tensor():
    def f(L):
        a = L.tensor(3)
        a[L.tensor(1, dtype=L.uint8)] = L.tensor([[-1]])
        r = a.clone()
        a[L.tensor(0, dtype=L.uint8)] = 5
        return r.tolist(), a.tolist()
    _same(f)


@pytest.mark.parametrize('case', [
    lambda L: L.ops.aten.index.Tensor(L.tensor([1.0]), []),
    lambda L: L.ops.aten.index.Tensor(L.arange(6.).view(2, 3), [None, L.tensor([2, 0])]),
])
def test_aten_index(case):
    _same(case)


def _x(L): return L.arange(24.).view(2, 3, 4)


# torch.ops.aten.index_put_ takes None for a whole dim (test_indexing.py's test_multi_dimensional_bool_mask_assignment);
# the value is laid out as x[:, idx, ...] would be: indexed dims in place when adjacent, first when separated
@pytest.mark.parametrize('case', [
    lambda L: L.ops.aten.index_put_(_x(L), [None, L.tensor([0, 2])], L.tensor(-1.)),
    lambda L: L.ops.aten.index_put_(_x(L), [None, L.tensor([0, 2])], L.arange(4.)),
    lambda L: L.ops.aten.index_put_(_x(L), [None, L.tensor([0, 2])], L.arange(2.)[:, None]),
    lambda L: L.ops.aten.index_put_(_x(L), [None, L.tensor([0, 2])], L.arange(16.).view(2, 2, 4)),
    lambda L: L.ops.aten.index_put_(_x(L), [L.tensor([1, 0]), None, L.tensor([3, 1])], L.arange(6.).view(2, 3)),
    lambda L: L.ops.aten.index_put_(L.zeros(1, 2, 2, 1), [None, L.tensor([[True, False], [False, True]]), None], L.tensor(5.)),
    lambda L: L.ops.aten.index_put_(_x(L), [L.tensor([[True, False, True], [False, True, False]]), None], L.arange(4.)),
    lambda L: L.ops.aten.index_put_(_x(L), [None, L.tensor([0, 0, 2])], L.ones(3, 4), True),
    lambda L: L.ops.aten.index_put_(_x(L), [L.tensor([1, 1]), None, L.tensor([3, 3])], L.ones(2, 3), True),
    lambda L: L.ops.aten.index_put_(_x(L), [None, L.tensor([0, 2])], L.ones(5)),
    lambda L: L.ops.aten.index_put_(_x(L), [L.tensor([1]), L.tensor([2]), None], L.arange(4.)),
    lambda L: (lambda x: [L.ops.aten.index_put(x, [None, L.tensor([1])], L.tensor(9.)).tolist(), x.tolist()])(_x(L)),
])
def test_aten_index_put_with_whole_dims(case):
    _same(case)


def test_aten_index_put_records_the_write():
    def grad(L):
        x = L.zeros(2, 3, requires_grad=True)
        y = x * 1
        L.ops.aten.index_put_(y, [None, L.tensor([0, 2])], L.tensor(3.))
        (y * L.arange(6.).view(2, 3)).sum().backward()
        return x.grad
    _same(grad)


# an index tensor's value out of range: torch names the tensor's place among the key's index tensors (a mask counts its
# dims, a bool one), not the tensor's dim (x[:, [0, 5]] says dimension 0, x[True, [0, 2]] dimension 1)
@pytest.mark.parametrize('key', ['[True, [0, 2]]', '[None, [0, 2]]', '[:, [0, 5]]', '[None, :, [0, 5]]', '[..., [0, 5]]',
                                 '[L.tensor(True), [0, 2]]', '[[0, 7]]', '[[[0], [1]], [4, 0]]', '[L.tensor([1, -4]), :]',
                                 '[:, L.tensor([-4])]', '[[3, 1], [0, 3]]', '[L.tensor([True, False]), [3]]', '[0, [5]]'])
@pytest.mark.parametrize('write', [False, True])
def test_index_tensor_out_of_range_names_torchs_dimension(key, write):
    def f(L):
        y = L.arange(6.).view(2, 3)
        if write: exec('y' + key + ' = 1', {'y': y, 'L': L})
        else: return eval('y' + key, {'y': y, 'L': L})
    _same(f)


@pytest.mark.parametrize('key', ['[:, [0, 1], [0, 9]]', '[[1], :, [9]]', '[0, [0, 5], :]', '[None, [1], ..., [7]]',
                                 '[L.tensor([[True, False, True], [False, True, True]]), [9]]'])
def test_index_tensor_out_of_range_3d(key):
    _same(lambda L: eval('y' + key, {'y': L.arange(24.).view(2, 3, 4), 'L': L}))

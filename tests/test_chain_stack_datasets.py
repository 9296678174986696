"""ChainDataset and StackDataset (reference/utils/data/dataset_chain_and_stack) side by side with torch 2.13."""

import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')
from functional_pairs import raised


# ---- ChainDataset / StackDataset ----

def stream(lib, a, b):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self): return iter(range(a, b))
        def __len__(self): return b - a
    return Stream()


def batched(lib, n):
    "A map-style dataset that also serves batches (__getitems__), counting its calls."
    class Batched(lib.utils.data.Dataset):
        calls = []
        def __getitem__(self, i): self.calls.append(('one', i)); return i * 2
        def __getitems__(self, idx): self.calls.append(('many', list(idx))); return [i * 2 for i in idx]
        def __len__(self): return n
    return Batched()


def as_lists(x):
    if hasattr(x, 'tolist'): return x.tolist()
    if isinstance(x, dict): return {k: as_lists(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return type(x)(as_lists(v) for v in x)
    return x


def test_chain_dataset_as_torch():
    for lib in (torch, litnn):
        c = lib.utils.data.ChainDataset([stream(lib, 0, 3), stream(lib, 5, 7), stream(lib, 9, 9)])
        assert list(c) == [0, 1, 2, 5, 6] and len(c) == 5
        assert isinstance(c, lib.utils.data.IterableDataset)
        assert [b.tolist() for b in lib.utils.data.DataLoader(c, batch_size=2)] == [[0, 1], [2, 5], [6]]
    for bad in ([lambda L: L.utils.data.TensorDataset(L.zeros(2))]):
        want = raised(lambda: list(torch.utils.data.ChainDataset([bad(torch)])))
        assert raised(lambda: list(litnn.utils.data.ChainDataset([bad(litnn)]))) == want
        assert raised(lambda: len(litnn.utils.data.ChainDataset([bad(litnn)]))) == raised(lambda: len(torch.utils.data.ChainDataset([bad(torch)])))


@pytest.mark.parametrize('form', ['tuple', 'dict'])
def test_stack_dataset_as_torch(form):
    out = []
    for lib in (torch, litnn):
        xs, ys = lib.utils.data.TensorDataset(lib.arange(8.).view(4, 2)), [10, 11, 12, 13]
        z = batched(lib, 4)
        s = lib.utils.data.StackDataset(xs, ys, z) if form == 'tuple' else lib.utils.data.StackDataset(x=xs, y=ys, z=z)
        z.calls.clear()
        items = s.__getitems__([3, 1])
        out.append((len(s), as_lists(s[2]), as_lists(items), list(z.calls),
                    [as_lists(b) for b in lib.utils.data.DataLoader(s, batch_size=3)]))
    assert out[0] == out[1]


@pytest.mark.parametrize('case', ['none', 'both', 'size', 'size-kw', 'nested-size'])
def test_stack_dataset_errors_as_torch(case):
    def run(lib):
        S, xs = lib.utils.data.StackDataset, [1, 2, 3]
        if case == 'none': return S()
        if case == 'both': return S(xs, y=xs)
        if case == 'size': return S(xs, [1, 2])
        if case == 'size-kw': return S(a=xs, b=[1])
        class Short(lib.utils.data.Dataset):
            def __getitem__(self, i): return i
            def __getitems__(self, idx): return [0]
            def __len__(self): return 3
        return S(xs, Short()).__getitems__([0, 1])
    assert raised(lambda: run(litnn)) == raised(lambda: run(torch))


def test_datasets_where_torch_defines_them():
    from litnn.utils.data.dataset import ChainDataset, StackDataset
    assert ChainDataset is litnn.utils.data.ChainDataset and StackDataset is litnn.utils.data.StackDataset


def test_plus_of_streams_is_a_chain_like_torch():
    "`a + b` of IterableDatasets is a ChainDataset (torch's IterableDataset.__add__); a map-style part fails when iterated."
    for lib in (torch, litnn):
        D = lib.utils.data
        both = stream(lib, 0, 3) + stream(lib, 10, 12)
        assert type(both) is D.ChainDataset
        assert list(both) == [0, 1, 2, 10, 11] and len(both) == 5
        assert [t.tolist() for t in D.DataLoader(both, batch_size=2)] == [[0, 1], [2, 10], [11]]
        mixed = stream(lib, 0, 3) + D.TensorDataset(lib.zeros(2))
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"): list(mixed)

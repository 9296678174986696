"PyTorch's own docstring examples, run with real torch and with litnn on the same inputs (see /work/w/docex/run.py)."
import warnings
import pytest
import litnn as L
T = pytest.importorskip('torch')

def _outcome(M, f):
    try: return ('ok', f(M))
    except Exception as e: return (type(e).__name__, str(e))

_MAKERS = [lambda t: t, lambda t: t.to_sparse(), lambda t: t.to_sparse_csr(), lambda t: t.to_sparse_csc(),
           lambda t: t.to_sparse_bsr((1, 1)), lambda t: t.to_sparse_bsc((1, 1))]

@pytest.mark.parametrize('make', range(len(_MAKERS)))
@pytest.mark.parametrize('layout', [None, 'sparse_coo', 'sparse_csr', 'sparse_csc', 'sparse_bsr', 'sparse_bsc'])
@pytest.mark.parametrize('blocksize', [None, (1, 1)])
def test_to_sparse_blocksize_errors(make, layout, blocksize):
    # Tensor.to_sparse's docstring: x.to_sparse(layout=torch.sparse_csr, blocksize=(3, 1)) raises
    def f(M):
        x = _MAKERS[make](M.tensor([[1, 0], [0, 0], [2, 4]]))
        return x.to_sparse(layout=layout and getattr(M, layout), blocksize=blocksize).to_dense().tolist()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert _outcome(L, f) == _outcome(T, f)


# IterableDataset's docstring: with workers each worker iterates its own replica of the stream, batches come round-robin
def _stream_loads(M, nw, bs, drop_last, persistent, sizes):
    import math
    class Stream(M.utils.data.IterableDataset):
        def __init__(self, start, end): self.start, self.end = start, end
        def __iter__(self): return iter(range(self.start, self.end))
    def init(w):
        info = M.utils.data.get_worker_info()
        ds = info.dataset   # the worker's replica: a worker takes sizes[w] items of the stream
        ds.start = ds.start + sum(sizes[:w]); ds.end = ds.start + sizes[w]
    ds = Stream(3, 3 + sum(sizes))
    out = []
    for kw in (dict(), dict(worker_init_fn=init)):
        dl = M.utils.data.DataLoader(ds, num_workers=nw, batch_size=bs, drop_last=drop_last, persistent_workers=persistent, **kw)
        out.append([[b.tolist() if hasattr(b, 'tolist') else (type(b).__name__, b) for b in dl] for _ in range(2)])
    return out, (ds.start, ds.end)

@pytest.mark.parametrize('nw,sizes', [(2, [2, 2]), (3, [1, 4, 0]), (4, [3, 0, 1, 5]), (12, [1, 1, 1, 1] + [0] * 8)])
@pytest.mark.parametrize('bs,drop_last', [(None, False), (1, False), (2, False), (2, True)])
@pytest.mark.parametrize('persistent', [False, True])
def test_iterable_dataset_workers_as_torch(nw, sizes, bs, drop_last, persistent):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert _stream_loads(L, nw, bs, drop_last, persistent, sizes) == _stream_loads(T, nw, bs, drop_last, persistent, sizes)

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

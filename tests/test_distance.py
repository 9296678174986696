"""reference/nn/distance against torch 2.13: one_hot, cosine_similarity, pairwise_distance, pdist and their modules."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)

def compare(f, *arrays, dtype='float64'):
    arrays = [a.astype(dtype) for a in arrays]
    lt = [litnn.tensor(a, requires_grad=True) for a in arrays]; tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    ly, ty = f(litnn, *lt), f(torch, *tt)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    for l, t in zip(lt, tt): np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **tol)

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_cosine_similarity(dtype):
    a, b = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    a[1] = 0                                                   # a zero vector: similarity 0, finite gradient
    compare(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y), a, b, dtype=dtype)
    compare(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y, 0, 1e-3), a, b, dtype=dtype)
    compare(lambda lib, x, y: lib.nn.functional.cosine_similarity(x, y, -1), a, b[0], dtype=dtype)   # broadcast

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('p', [2.0, 1.0, 3.0, float('inf')])
def test_pairwise_distance_and_pdist(dtype, p):
    a, b = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    compare(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, p), a, b, dtype=dtype)
    compare(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, p, 1e-3, True), a, b[0], dtype=dtype)
    compare(lambda lib, x: lib.nn.functional.pdist(x, p), a, dtype=dtype)

def test_pdist_of_one_row_and_repeated_rows():
    compare(lambda lib, x: lib.nn.functional.pdist(x), rng.normal(size=(1, 3)))
    assert litnn.nn.functional.pdist(litnn.ones(1, 3)).shape == (0,)

def test_one_hot():
    for t, n in [([0, 2, 1], -1), ([[1], [0]], 3), ([4], 6)]:
        assert litnn.nn.functional.one_hot(litnn.tensor(t), n).tolist() == torch.nn.functional.one_hot(torch.tensor(t), n).tolist()
    assert litnn.nn.functional.one_hot(litnn.tensor([1])).dtype is litnn.int64

@pytest.mark.parametrize('f', [lambda lib: lib.nn.functional.one_hot(lib.tensor([-1])),
                               lambda lib: lib.nn.functional.one_hot(lib.tensor([3]), 2),
                               lambda lib: lib.nn.functional.one_hot(lib.tensor([1.])),
                               lambda lib: lib.nn.functional.one_hot(lib.tensor([], dtype=lib.long)),
                               lambda lib: lib.nn.functional.one_hot(lib.zeros(2, 0, dtype=lib.long), 0),
                               lambda lib: lib.nn.functional.pdist(lib.ones(2, 2, 2)),
                               lambda lib: lib.nn.functional.cosine_similarity(lib.ones(2, 3), lib.ones(2, 4))])
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value) == str(t.value)

def test_modules():
    for name, args in [('CosineSimilarity', ()), ('CosineSimilarity', (0, 1e-4)), ('PairwiseDistance', ()), ('PairwiseDistance', (1.0, 1e-3, True))]:
        lm, tm = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(lm) == repr(tm)
        a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
        np.testing.assert_allclose(lm(litnn.tensor(a), litnn.tensor(b)).numpy(), tm(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-12)

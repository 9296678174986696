"Scans and differences (reference/torch/scans) against PyTorch: values and torch's errors."
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_message


@pytest.mark.parametrize('n', [0, 1, 2])
@pytest.mark.parametrize('dim, kw', [
    (0, dict(prepend=[1., 2., 3.])),                     # fewer dims than input
    (0, dict(append=[[[1., 2., 3.]]])),                  # more dims
    (0, dict(prepend=[[0., 1.]])),                       # another size off the differencing dim
    (1, dict(append=np.ones((3, 1)).tolist())),
    (-1, dict(prepend=[[1.], [2.], [3.]], append=[[1.]])),
])
def test_diff_refuses_prepend_append_of_another_shape(n, dim, kw):
    # torch's diff_check_compatible_shape runs before anything else, n == 0 included
    same_message(lambda lib: lib.ones(2, 3).diff(n=n, dim=dim, **{k: lib.tensor(v) for k, v in kw.items()}))


@pytest.mark.parametrize('dim, kw', [(0, dict(prepend=np.arange(6.).reshape(2, 3))),
                                     (1, dict(prepend=[[1.], [2.]], append=[[3., 4.], [5., 6.]])),
                                     (-2, dict(append=[[7., 8., 9.]]))])
def test_diff_with_prepend_append_of_a_matching_shape(dim, kw):
    x = np.arange(6.).reshape(2, 3) ** 2
    for n in range(4):
        want = torch.tensor(x).diff(n=n, dim=dim, **{k: torch.tensor(v) for k, v in kw.items()})
        got = litnn.tensor(x).diff(n=n, dim=dim, **{k: litnn.tensor(v) for k, v in kw.items()})
        assert got.shape == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy())

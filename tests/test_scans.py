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


@pytest.mark.parametrize('op', ['cumsum', 'cumprod', 'logcumsumexp'])
@pytest.mark.parametrize('dt', ['float32', 'float16', 'bfloat16', 'complex64', 'float64', 'int32'])
def test_scans_carry_the_running_value_as_torchs_cpu_kernel(op, dt):
    """torch's CPU scans carry the running value in acc_type<T, false> (float32 in float64, half floats in float32, complex64 in
    complex128) and round each output: bit for bit the same values (found by test_reductions.py-style checks: a float32 cumsum
    of 1/7, 2/7, 3/7 ends ...865 in torch, ...925 summed in float32)"""
    if op == 'logcumsumexp' and dt == 'int32': pytest.skip('floats only')
    rng = np.random.default_rng(7)
    for shape in [(40, 3), (3, 57), (1, 5)]:
        a = rng.standard_normal(shape) * (0.9 if op == 'cumprod' else 3)
        if dt.startswith('complex'): a = a + 1j * rng.standard_normal(shape)
        if dt.startswith('int'): a = np.round(a * 3)
        wide = 'complex128' if dt.startswith('complex') else 'float64'
        for d in (0, 1, -1):
            r = [getattr(lib.tensor(a).to(getattr(lib, dt)), op)(d).to(getattr(lib, wide)).numpy() for lib in (litnn, torch)]
            np.testing.assert_array_equal(*r)

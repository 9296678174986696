"""nn.utils.parameters_to_vector / vector_to_parameters (reference/nn/utils/convert_parameters) side by side with torch 2.13."""

import numpy as np
import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')
from functional_pairs import to_np, raised


# ---- parameters_to_vector / vector_to_parameters ----

def pair_models(dtype='float32'):
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Conv1d(4, 2, 1), torch.nn.BatchNorm1d(2)).to(getattr(torch, dtype))
    l = litnn.nn.Sequential(litnn.nn.Linear(3, 4), litnn.nn.ReLU(), litnn.nn.Conv1d(4, 2, 1), litnn.nn.BatchNorm1d(2)).to(getattr(litnn, dtype))
    l.load_state_dict({k: litnn.tensor(to_np(v)) for k, v in t.state_dict().items()})
    return t, l


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_parameters_to_vector_values_and_gradients(dtype):
    t, l = pair_models(dtype)
    vt, vl = torch.nn.utils.parameters_to_vector(t.parameters()), litnn.nn.utils.parameters_to_vector(l.parameters())
    assert vl.dtype == getattr(litnn, dtype) and np.array_equal(to_np(vl), to_np(vt))
    w = np.linspace(-1, 1, vt.numel()).astype(dtype)
    (vt * torch.tensor(w)).pow(2).sum().backward(); (vl * litnn.tensor(w)).pow(2).sum().backward()
    for (n, pt), pl in zip(t.named_parameters(), l.parameters()):
        np.testing.assert_allclose(to_np(pl.grad), to_np(pt.grad), rtol=1e-6, err_msg=n)


def test_vector_to_parameters_as_torch():
    t, l = pair_models()
    n = sum(p.numel() for p in t.parameters())
    v = np.arange(n, dtype=np.float32) / 10
    vt, vl = torch.tensor(v), litnn.tensor(v)
    ids = [id(p) for p in l.parameters()]
    assert torch.nn.utils.vector_to_parameters(vt, t.parameters()) is None
    assert litnn.nn.utils.vector_to_parameters(vl, l.parameters()) is None
    for (k, pt), pl in zip(t.named_parameters(), l.parameters()):
        assert np.array_equal(to_np(pl), to_np(pt)) and pl.shape == tuple(pt.shape), k
    assert [id(p) for p in l.parameters()] == ids
    vt[0] = 7.; vl[0] = 7.    # the parameters are views of the vector in both
    assert to_np(l[0].weight)[0, 0] == to_np(t[0].weight)[0, 0] == 7.
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(to_np(l[0](litnn.tensor(x))), to_np(t[0](torch.tensor(x))), rtol=1e-5)


@pytest.mark.parametrize('vec', [[1., 2.], np.zeros(3), 3, None], ids=['list', 'ndarray', 'int', 'None'])
def test_vector_to_parameters_type_error_as_torch(vec):
    want = raised(lambda: torch.nn.utils.vector_to_parameters(vec, []))
    assert raised(lambda: litnn.nn.utils.vector_to_parameters(vec, [])) == want


@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_parameters_on_two_devices_are_refused():
    ps = [litnn.nn.Parameter(litnn.zeros(2)), litnn.nn.Parameter(litnn.zeros(2, device='cuda'))]
    with pytest.raises(TypeError, match="Found two parameters on different devices"): litnn.nn.utils.parameters_to_vector(ps)

"""Top-level names of issue 29 side by side with PyTorch 2.13: the constants, the process-wide switches, the float8
dtypes, histogram, nonzero_static, empty_permuted and the view copies (values, dtypes, errors, gradients)."""
import math, warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from api_pairs import check, same_error

# constants
@pytest.mark.parametrize('name', ['inf', 'nan', 'pi', 'e', 'newaxis'])
def test_constants(name):
    l, t = getattr(litnn, name), getattr(torch, name)
    assert type(l) is type(t)
    if name == 'newaxis': assert l is None
    else: assert l is getattr(math, name) and (l == t or (math.isnan(l) and math.isnan(t)))
    assert name in litnn.__all__

def test_constants_in_use():
    for lib in (litnn, torch):
        x = lib.tensor([[1., 2., 3.]])
        out = x.masked_fill(lib.tensor([[False, True, False]]), -lib.inf).softmax(-1)
        assert out[0, 1].item() == 0 and x[:, lib.newaxis].shape == (1, 1, 3)

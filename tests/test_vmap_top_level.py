"""torch.vmap is torch.func.vmap (33a_vmap)."""

import numpy as np
import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')


# ---- torch.vmap ----

def test_vmap_at_the_top_level():
    assert torch.vmap is torch.func.vmap and litnn.vmap is litnn.func.vmap
    x = np.arange(6.).reshape(2, 3)
    assert litnn.vmap(lambda r: (r * r).sum())(litnn.tensor(x)).tolist() == torch.vmap(lambda r: (r * r).sum())(torch.tensor(x)).tolist()

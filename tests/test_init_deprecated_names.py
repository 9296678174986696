"""The deprecated nn.init names (reference/nn/init_deprecated_names): torch's warning, and the new function called."""
import warnings

import pytest

import litnn
import litnn.random

torch = pytest.importorskip('torch')


# ---- deprecated nn.init names ----

ALIASES = {'uniform': ((3, 4), {}), 'normal': ((3, 4), dict(std=0.5)), 'constant': ((3, 4), dict(val=0.3)),
           'eye': ((3, 4), {}), 'dirac': ((4, 2, 3), {}), 'xavier_uniform': ((3, 4), dict(gain=2.)),
           'xavier_normal': ((3, 4), {}), 'kaiming_uniform': ((3, 4), dict(a=0.1)),
           'kaiming_normal': ((3, 4), dict(mode='fan_out')), 'orthogonal': ((3, 4), {}), 'sparse': ((4, 3), dict(sparsity=0.5))}


@pytest.mark.parametrize('name', list(ALIASES))
def test_deprecated_init_names_warn_and_call_the_new_one(name):
    shape, kw = ALIASES[name]
    for lib in (torch, litnn):
        with pytest.warns(FutureWarning) as rec:
            lib.manual_seed(0); out = getattr(lib.nn.init, name)(lib.empty(*shape), **kw)
        msgs = [str(w.message) for w in rec if w.category is FutureWarning]
        assert msgs == [f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."]
        assert getattr(lib.nn.init, name).__name__ == name
        lib.manual_seed(0)
        assert out.tolist() == getattr(lib.nn.init, name + '_')(lib.empty(*shape), **kw).tolist()
    if name in ('constant', 'eye', 'dirac'):   # deterministic: the same values as torch's
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            assert getattr(litnn.nn.init, name)(litnn.empty(*shape), **kw).tolist() == getattr(torch.nn.init, name)(torch.empty(*shape), **kw).tolist()


def test_deprecated_init_warning_points_at_the_caller():
    with pytest.warns(FutureWarning) as rec: litnn.nn.init.normal(litnn.empty(2))
    assert rec[0].filename == __file__

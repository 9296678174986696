"""Regressions found while building this round's parts, each side by side with torch 2.13."""
import pytest
import litnn
torch = pytest.importorskip('torch')


def test_modified_saved_output_names_its_version():
    "An output saved for backward and then changed in place: the error gives its current version, as torch's."
    for lib in (torch, litnn):
        x = lib.tensor([1., 2.], requires_grad=True); y = x.exp()
        with lib.no_grad(): y.mul_(2)
        with pytest.raises(RuntimeError, match='is at version 1; expected version 0 instead'): y.sum().backward()


@pytest.mark.parametrize('name', ['zeros', 'ones', 'empty', 'rand', 'randn'])
def test_factories_take_size_as_a_keyword(name):
    for kw in ({'size': (2, 3)}, {'size': [4]}, {'size': ()}):
        assert tuple(getattr(litnn, name)(**kw).shape) == tuple(getattr(torch, name)(**kw).shape)
    for lib in (torch, litnn):      # the same TypeError (torch's rand/randn word it as an invalid combination)
        with pytest.raises(TypeError, match=name): getattr(lib, name)(2, size=(2,))

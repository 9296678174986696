"""Helpers for the side-by-side tests of litnn's tensors and autograd against torch's."""
import pytest
import litnn
torch = pytest.importorskip('torch')


def same_error(f):
    "Run `f(lib)` in torch and in litnn: both must raise, and the same exception type."
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type): f(litnn)
    return te.type


def same_message(f):
    "Run `f(lib)` in torch and in litnn: both must raise the same exception type with the same message."
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type) as le: f(litnn)
    assert str(le.value) == str(te.value)
    return te.type

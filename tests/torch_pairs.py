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


def run(L, fn):
    "fn(L)'s result, or (exception type name, message)."
    try: return fn(L)
    except Exception as e: return (type(e).__name__, str(e).replace('litnn.', 'torch.'))


def same(fn):
    "fn run in litnn and in torch: the same result, or the same exception type and message."
    a, b = run(litnn, fn), run(torch, fn)
    assert a == b, (a, b)
    return a

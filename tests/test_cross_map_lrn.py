"""nn.CrossMapLRN2d (reference/nn/cross_map_lrn) side by side with torch's: the same outputs and the same legacy gradients on
the same inputs (float32 and float64, several sizes and channel counts), the same reprs, errors and grad_fn name; and the
gradient against finite differences in float64: litnn's gradcheck passes exactly where torch's does (one channel, or a window
covering every channel) and fails where torch's legacy backward is not the forward's derivative."""
import warnings
import numpy as np
import pytest

import litnn

torch = pytest.importorskip('torch')
rng = np.random.default_rng(0)


def pair(a, dtype='float64', grad=True):
    return [L.tensor(a, dtype=getattr(L, dtype), requires_grad=grad) for L in (litnn, torch)]


def close(a, b, tol):
    np.testing.assert_allclose(np.asarray(a.detach().tolist()), np.asarray(b.detach().tolist()), rtol=tol, atol=tol)


@pytest.mark.parametrize('size', [2, 3, 4, 5, 6, 9])
@pytest.mark.parametrize('channels', [1, 2, 5, 8])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_forward_and_backward_as_torch(size, channels, dtype):
    a, g = rng.normal(size=(3, channels, 4, 5)), rng.normal(size=(3, channels, 4, 5))
    kw = dict(alpha=0.7, beta=0.6, k=1.5)
    outs = []
    for L, x in zip((litnn, torch), pair(a, dtype)):
        y = L.nn.CrossMapLRN2d(size, **kw)(x)
        y.backward(L.tensor(g, dtype=getattr(L, dtype)))
        outs.append((y, x.grad))
    tol = 1e-12 if dtype == 'float64' else 1e-5
    close(outs[0][0], outs[1][0], tol)
    close(outs[0][1], outs[1][1], tol)
    assert str(outs[0][0].dtype).split('.')[1] == str(outs[1][0].dtype).split('.')[1]


def test_defaults_repr_and_grad_fn():
    a = rng.normal(size=(2, 7, 3, 3))
    outs = []
    for L, x in zip((litnn, torch), pair(a, 'float32')):
        m = L.nn.CrossMapLRN2d(5)
        assert repr(m) == 'CrossMapLRN2d(5, alpha=0.0001, beta=0.75, k=1)'
        assert (m.size, m.alpha, m.beta, m.k) == (5, 1e-4, 0.75, 1) and m.training
        assert repr(L.nn.CrossMapLRN2d(3, 0.5, 1, 2.)) == 'CrossMapLRN2d(3, alpha=0.5, beta=1, k=2.0)'
        y = m(x)
        assert type(y.grad_fn).__name__ == 'CrossMapLRN2dBackward'
        y.sum().backward()
        outs.append((y, x.grad))
        assert not list(m.parameters()) and not list(m.buffers()) and len(m.state_dict()) == 0
    close(outs[0][0], outs[1][0], 1e-6); close(outs[0][1], outs[1][1], 1e-6)
    assert litnn.nn.CrossMapLRN2d.__module__ == 'litnn.nn.modules.normalization'
    assert litnn.nn.modules.normalization.CrossMapLRN2d is litnn.nn.CrossMapLRN2d


def test_function_direct_and_no_grad():
    from litnn.nn.modules._functions import CrossMapLRN2d as LF
    from torch.nn.modules._functions import CrossMapLRN2d as TF
    a = rng.normal(size=(2, 4, 3, 3))
    xl, xt = pair(a, grad=False)
    close(LF.apply(xl, 3, 1e-2, 0.5, 2), TF.apply(xt, 3, 1e-2, 0.5, 2), 1e-12)
    close(LF.apply(xl, 4), TF.apply(xt, 4), 1e-12)     # the Function's own defaults
    with litnn.no_grad():
        y = litnn.nn.CrossMapLRN2d(3)(litnn.tensor(a, requires_grad=True))
    assert y.grad_fn is None and not y.requires_grad
    # a non-contiguous input, and an empty batch
    xl, xt = pair(rng.normal(size=(2, 5, 3, 4)), grad=False)
    close(litnn.nn.CrossMapLRN2d(3)(xl.transpose(2, 3)), torch.nn.CrossMapLRN2d(3)(xt.transpose(2, 3)), 1e-12)
    assert tuple(litnn.nn.CrossMapLRN2d(3)(litnn.ones(0, 2, 2, 2)).shape) == (0, 2, 2, 2)


def errors(f):
    out = []
    for L in (litnn, torch):
        try: f(L); out.append(None)
        except Exception as e: out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize('make', [
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(2, 3, 4)),
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(2, 3, 4, 5, 6)),
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(3)),
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(1, 2, 2, 2, dtype=L.int64)),
    lambda L: L.nn.CrossMapLRN2d(1)(L.ones(1, 4, 2, 2, requires_grad=True)).sum().backward(),
])
def test_errors_as_torch(make):
    a, b = errors(make)
    assert a is not None and a == b, (a, b)


def test_size_one_forward_as_torch():
    xl, xt = pair(rng.normal(size=(2, 4, 2, 2)), grad=False)
    close(litnn.nn.CrossMapLRN2d(1, alpha=0.3)(xl), torch.nn.CrossMapLRN2d(1, alpha=0.3)(xt), 1e-12)


@pytest.mark.parametrize('size,channels', [(2, 1), (3, 1), (5, 1), (6, 3), (9, 4), (2, 3), (3, 3), (5, 8), (4, 5)])
def test_gradcheck_against_finite_differences_as_torch(size, channels):
    a = rng.normal(size=(2, channels, 2, 3))
    xl, xt = pair(a)
    kw = dict(alpha=0.5, beta=0.75, k=1.)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        ours = litnn.autograd.gradcheck(litnn.nn.CrossMapLRN2d(size, **kw), (xl,), raise_exception=False)
        theirs = torch.autograd.gradcheck(torch.nn.CrossMapLRN2d(size, **kw), (xt,), raise_exception=False)
    assert ours == theirs, (ours, theirs)
    # in these cases the legacy backward is the derivative for one channel, or for a window at least twice the channels
    assert ours == (channels == 1 or size >= 2 * channels)

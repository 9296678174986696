"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions (reference/nn/loss_linear_cross_entropy)
side by side with torch 2.13: the same losses and gradients (input, weight, bias) on the reference path for class indices and
probabilities, 1-D and 2-D inputs, K-dimensional weights, every reduction, class weights, ignore_index and label smoothing; the
same errors and the same options warning; the options dataclass's repr, validation and call-time resolution. Where torch takes
its chunked path litnn computes by the reference path: the values agree to rounding."""
import warnings
import numpy as np
import pytest

import litnn

torch = pytest.importorskip('torch')
rng = np.random.default_rng(0)


def both(a, dtype='float64', grad=False):
    if a is None: return [None, None]
    return [L.tensor(a, dtype=getattr(L, dtype), requires_grad=grad) for L in (litnn, torch)]


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a.detach().tolist()), np.asarray(b.detach().tolist()), rtol=tol, atol=tol)


def idx(*shape, hi=5, ignore=None):
    t = rng.integers(0, hi, shape)
    if ignore is not None: t.flat[0] = ignore
    return [L.tensor(t) for L in (litnn, torch)]


def run(x, W, t, b=None, **kw):
    outs = []
    for i, L in enumerate((litnn, torch)):
        xs, Ws = both(x, grad=True), both(W, grad=True)
        bs = both(b, grad=True)
        kw2 = {k: (v[i] if isinstance(v, list) else v) for k, v in kw.items()}
        y = L.nn.functional.linear_cross_entropy(xs[i], Ws[i], t[i], linear_bias=bs[i], **kw2)
        y.sum().backward()
        outs.append([y, xs[i].grad, Ws[i].grad] + ([bs[i].grad] if b is not None else []))
    for a, c in zip(*outs): close(a, c)


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('bias', [False, True])
def test_class_indices(reduction, bias):
    x, W = rng.normal(size=(6, 4)), rng.normal(size=(5, 4))
    b = rng.normal(size=5) if bias else None
    run(x, W, idx(6), b, reduction=reduction)
    run(x, W, idx(6, ignore=2), b, reduction=reduction, ignore_index=2)
    run(x, W, idx(6, ignore=-100), b, reduction=reduction, weight=both(rng.uniform(0.5, 2, 5)), label_smoothing=0.2)
    run(x[0], W, idx(), b, reduction=reduction)                      # unbatched


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_probabilities_and_k_dimensional(reduction):
    x, W = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    p = rng.dirichlet(np.ones(5), 3)
    run(x, W, both(p), reduction=reduction, label_smoothing=0.1)
    run(x[0], W, both(p[0]), reduction=reduction)
    Wk, bk = rng.normal(size=(5, 2, 3, 4)), rng.normal(size=(5, 2, 3))
    run(x, Wk, idx(3, 2, 3), bk, reduction=reduction)
    run(x, Wk, both(rng.dirichlet(np.ones(5), (3, 2, 3)).transpose(0, 3, 1, 2)), bk, reduction=reduction)


def errors(f):
    out = []
    for L in (litnn, torch):
        try: f(L); out.append(None)
        except Exception as e: out.append((type(e).__name__, str(e).replace('torch.', 'litnn.')))
    return out


F_ERRORS = [
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 3, 4), L.ones(5, 4), L.zeros(2, dtype=L.int64)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(()), L.ones(5, 4), L.zeros((), dtype=L.int64)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 4), L.ones(4), L.zeros(2, dtype=L.int64)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 4), L.ones(5, 3), L.zeros(2, dtype=L.int64)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 4), L.ones(5, 4), L.zeros(2, dtype=L.int64), linear_bias=L.ones(4)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(4), L.ones(5, 2, 4), L.zeros(2, dtype=L.int64)),
    lambda L: L.nn.functional.linear_cross_entropy(L.ones(2, 4), L.ones(5, 4), L.ones(2, 5) / 5, ignore_index=1),
    lambda L: L.nn.LinearCrossEntropyLoss(3, 4, weight=L.ones(3)),
    lambda L: L.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=-0.1),
    lambda L: L.nn.LinearCrossEntropyOptions(acc_policy='fast'),
    lambda L: L.nn.LinearCrossEntropyOptions(chunking_method='aspect'),
    lambda L: L.nn.LinearCrossEntropyOptions(chunking_method='aspect_ratio:x'),
    lambda L: L.nn.LinearCrossEntropyOptions(batch_chunk_size=-1),
    lambda L: L.nn.LinearCrossEntropyOptions(batch_chunk_size=2.0),
    lambda L: L.nn.LinearCrossEntropyOptions(acc_dtype=L.int64),
    lambda L: L.nn.LinearCrossEntropyOptions(batch_chunk_size=3, chunking_method='aspect_ratio')._adjust(100, 16, 1000, L.float32),
    lambda L: setattr(L.nn.LinearCrossEntropyOptions(), 'acc_policy', 'compact'),
]


@pytest.mark.parametrize('make', F_ERRORS)
def test_errors_as_torch(make):
    a, b = errors(make)
    assert a is not None and a == b, (a, b)


def test_options_dataclass_as_torch():
    LO, TO = litnn.nn.LinearCrossEntropyOptions, torch.nn.LinearCrossEntropyOptions
    assert repr(LO()) == repr(TO())
    assert LO.__module__ == 'litnn.nn.modules.linear_cross_entropy_options'
    for kw in [{}, dict(batch_chunk_size=7), dict(chunking_method='aspect_ratio:4'), dict(chunking_method=None), dict(acc_policy='balanced'),
               dict(chunking_method=None, batch_chunk_size=500)]:
        for args in [(100, 16, 1000), (1000, 64, 50000), (3, 8, 8), (1, 4, 5)]:
            for dt in ['float32', 'float16', 'bfloat16', 'float64']:
                for dev in [None, 'cpu']:
                    a = LO(**kw)._adjust(*args, getattr(litnn, dt), litnn.device(dev) if dev else None)
                    b = TO(**kw)._adjust(*args, getattr(torch, dt), torch.device(dev) if dev else None)
                    assert repr(a) == repr(b).replace('torch.', 'litnn.'), (kw, args, dt, dev)
    assert LO() == LO() and hash(LO()) == hash(LO()) and not hasattr(LO(), '__dict__')


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_options_path_values(reduction):
    # torch's chunked path and litnn's reference computation agree to rounding
    x, W, b = rng.normal(size=(9, 4)), rng.normal(size=(6, 4)), rng.normal(size=6)
    t = idx(9, hi=6, ignore=-100)
    outs = []
    for i, L in enumerate((litnn, torch)):
        xs, Ws, bs = both(x, grad=True)[i], both(W, grad=True)[i], both(b, grad=True)[i]
        y = L.nn.functional.linear_cross_entropy(xs, Ws, t[i], linear_bias=bs, reduction=reduction,
                                                 options=L.nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None))
        y.sum().backward()
        outs.append([y, xs.grad, Ws.grad, bs.grad])
    for a, c in zip(*outs): close(a, c, 1e-9)


def test_options_warning_as_torch():
    msgs = []
    for L in (litnn, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            L.nn.functional.linear_cross_entropy(L.ones(2, 4), L.ones(5, 4), L.zeros(2, dtype=L.int64), label_smoothing=0.1,
                                                 options=L.nn.LinearCrossEntropyOptions())
            L.nn.functional.linear_cross_entropy(L.ones(2, 4), L.ones(5, 3, 4), L.zeros(2, 3, dtype=L.int64), linear_bias=L.ones(5, 3),
                                                 options=L.nn.LinearCrossEntropyOptions())
        msgs.append([(str(x.message).replace('torch.', 'litnn.'), x.filename) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 2 and msgs[0][0][1] == __file__


@pytest.mark.parametrize('kw', [{}, dict(bias=True), dict(out_features=(2, 3), bias=True, reduction='none'),
                                dict(ignore_index=1, label_smoothing=0.3, reduction='sum')])
def test_module_as_torch(kw):
    ml, mt = litnn.nn.LinearCrossEntropyLoss(4, 5, **kw), torch.nn.LinearCrossEntropyLoss(4, 5, **kw)
    assert repr(ml) == repr(mt)
    assert list(ml.state_dict()) == list(mt.state_dict())
    with torch.no_grad():
        for k, v in mt.state_dict().items(): v.copy_(torch.tensor(rng.normal(size=tuple(v.shape))))
    ml.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    x = rng.normal(size=(3, 4))
    t = rng.integers(0, 5, (3,) + tuple(kw.get('out_features', ())))
    outs = []
    for L, m in ((litnn, ml), (torch, mt)):
        xs = L.tensor(x, dtype=L.float32, requires_grad=True)
        y = m(xs, L.tensor(t))
        y.sum().backward()
        outs.append([y, xs.grad, m.linear.weight.grad])
    for a, c in zip(*outs): close(a, c, 1e-5)
    assert litnn.nn.LinearCrossEntropyLoss.__constants__ == torch.nn.LinearCrossEntropyLoss.__constants__
    assert litnn.nn.LinearCrossEntropyLoss.__module__ == 'litnn.nn.modules.loss'
    assert litnn.nn.functional.linear_cross_entropy.__module__ == 'litnn.nn.functional'

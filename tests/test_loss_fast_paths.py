"""The fast paths of a training step's loss and layers, side by side with torch: `log_softmax`/`softmax` (forward and
the in-place backward), a full `mean`, indexing with integer index tensors (`x[rows, cols]` and its one `add.at`), and
`matmul` of two float matrices. Values, gradients (also second order), grad_fn names, dtypes and errors; the in-place
backwards are checked bit for bit against the plain formulas they replace."""
import numpy as np
import pytest

import litnn

torch = pytest.importorskip('torch')


def pair(a, requires_grad=False):
    a = np.asarray(a)
    return litnn.tensor(a.copy(), requires_grad=requires_grad), torch.tensor(a.copy(), requires_grad=requires_grad)


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def close(l, t, rtol=1e-5, atol=1e-6):
    l, t = l.detach().numpy(), t.detach().numpy()
    assert l.shape == t.shape and l.dtype == t.dtype, (l.shape, t.shape, l.dtype, t.dtype)
    np.testing.assert_allclose(l, t, rtol=rtol, atol=atol)


def raises_like(f, g):
    "litnn's `f()` raises what torch's `g()` raises: the same type and message."
    with pytest.raises(Exception) as t: g()
    with pytest.raises(type(t.value)) as l: f()
    assert str(l.value) == str(t.value)


# ---- softmax and log_softmax --------------------------------------------------------------------------------------

SHAPES_DIMS = [((64, 10), 1), ((64, 10), 0), ((64, 10), -1), ((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), 2), ((7,), 0), ((), 0)]


@pytest.mark.parametrize('fn', ['log_softmax', 'softmax'])
@pytest.mark.parametrize('shape,dim', SHAPES_DIMS)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_softmax_values_and_grads(fn, shape, dim, dtype):
    (lx, tx), w = pair(rand(*shape, dtype=dtype) * 3, True), rand(*shape, seed=1, dtype=dtype)
    ly, ty = getattr(lx, fn)(dim), getattr(tx, fn)(dim)
    close(ly, ty)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    close(lx.grad, tx.grad)


@pytest.mark.parametrize('fn', ['log_softmax', 'softmax'])
def test_softmax_second_order(fn):
    "create_graph: the backward in tensor ops, differentiable again."
    (lx, tx), w = pair(rand(5, 6, dtype=np.float64), True), rand(5, 6, seed=1, dtype=np.float64)
    grads = []
    for lib, x in ((litnn, lx), (torch, tx)):
        y = (getattr(x, fn)(1) * lib.tensor(w)).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g * g).sum().backward()
        grads.append(x.grad)
    close(*grads, rtol=1e-9, atol=1e-12)


def test_log_softmax_backward_bitwise(monkeypatch):
    "The in-place backward makes exactly the plain formula's gradient, g - e^y Σg (numpy's passes: the fused row loop is tested against torch in test_eager_speed_paths)."
    monkeypatch.setattr(litnn.fused, 'enabled', False)
    x = litnn.tensor(rand(64, 10) * 4, requires_grad=True)
    g = rand(64, 10, seed=2)
    y = x.log_softmax(1)
    y.backward(litnn.tensor(g))
    yd = y.detach().numpy()
    assert np.array_equal(x.grad.numpy(), g - np.exp(yd) * g.sum(axis=1, keepdims=True))


def test_softmax_backward_bitwise():
    "The same for softmax: g y - y Σ(g y)."
    x = litnn.tensor(rand(64, 10) * 4, requires_grad=True)
    g = rand(64, 10, seed=2)
    y = x.softmax(1)
    y.backward(litnn.tensor(g))
    yd = y.detach().numpy()
    gy = g * yd
    assert np.array_equal(x.grad.numpy(), gy - yd * gy.sum(axis=1, keepdims=True))


def test_log_softmax_forward_bitwise(monkeypatch):
    "The forward is numpy's stable formula, x - m - log Σ e^(x - m) (numpy's passes, as above)."
    monkeypatch.setattr(litnn.fused, 'enabled', False)
    a = rand(64, 10) * 5
    s = a - a.max(axis=1, keepdims=True)
    assert np.array_equal(litnn.tensor(a).log_softmax(1).numpy(), s - np.log(np.exp(s).sum(axis=1, keepdims=True)))


def test_log_softmax_gradient_of_another_dtype():
    "A gradient whose dtype differs from the output's takes the plain formula (in-place arithmetic would round it)."
    x = litnn.tensor(rand(4, 5), requires_grad=True)
    node = x.log_softmax(1).grad_fn
    g = rand(4, 5, seed=3, dtype=np.float64)
    y = x.detach().log_softmax(1).numpy()
    out = node.backward(node, g)
    assert out.dtype == np.float64 and np.array_equal(out, g - np.exp(y) * g.sum(axis=1, keepdims=True))


def test_log_softmax_half():
    (lx, tx) = pair(rand(8, 10, dtype=np.float16), True)
    ly, ty = lx.log_softmax(1), tx.log_softmax(1)
    close(ly, ty, rtol=1e-3, atol=1e-3)
    ly.sum().backward(); ty.sum().backward()
    close(lx.grad, tx.grad, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize('fn', ['log_softmax', 'softmax'])
def test_softmax_checks_unchanged(fn):
    "What the short road skips still happens on the general one: dtype=, integers, empty tensors, bad dims."
    (lx, tx) = pair(rand(3, 4))
    close(getattr(lx, fn)(1, dtype=litnn.float64), getattr(tx, fn)(1, dtype=torch.float64))
    li, ti = pair(np.arange(12).reshape(3, 4))
    raises_like(lambda: getattr(li, fn)(1), lambda: getattr(ti, fn)(1))
    raises_like(lambda: getattr(lx, fn)(2), lambda: getattr(tx, fn)(2))
    le, te = pair(np.zeros((0, 4), np.float32))
    assert tuple(getattr(le, fn)(1).shape) == tuple(getattr(te, fn)(1).shape)


# ---- the loss chain of bench/mlp_step.py: -log_softmax(h)[rows, y].mean() ----------------------------------------

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('repeat', [False, True])
def test_loss_chain(dtype, repeat):
    "Values and gradients of the tensor-op cross-entropy; repeated (row, class) pairs add their gradients."
    rng = np.random.default_rng(0)
    rows = np.arange(64) % 16 if repeat else np.arange(64)
    y = rng.integers(0, 10, 64)
    (lh, th), (lr, tr), (ly, ty) = pair(rand(64, 10, dtype=dtype) * 3, True), pair(rows), pair(y)
    ll, tl = -lh.log_softmax(1)[lr, ly].mean(), -th.log_softmax(1)[tr, ty].mean()
    close(ll, tl)
    assert [type(n).__name__ for n in (ll.grad_fn, ll.grad_fn.next_functions[0][0])] == ['NegBackward0', 'MeanBackward0']
    ll.backward(); tl.backward()
    close(lh.grad, th.grad)


# ---- mean -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('shape', [(64,), (4, 5), (2, 3, 4), ()])
@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
def test_full_mean(shape, dtype):
    (lx, tx) = pair(rand(*shape, dtype=dtype), True)
    lm, tm = lx.mean(), tx.mean()
    tol = 1e-3 if dtype == np.float16 else 1e-6
    close(lm, tm, rtol=tol, atol=tol)
    assert type(lm.grad_fn).__name__ == type(tm.grad_fn).__name__ == 'MeanBackward0'
    lm.backward(); tm.backward()
    close(lx.grad, tx.grad, rtol=tol, atol=tol)


def test_mean_matches_plain_sum():
    "The full mean is numpy's sum divided by n, as before: bit for bit."
    a = rand(64, 10)
    assert np.array_equal(litnn.tensor(a).mean().numpy(), (a.sum() / a.size).astype(np.float32))


@pytest.mark.parametrize('dim,keepdim', [(0, False), (1, False), ((0, 1), True), (-1, True)])
def test_mean_other_forms(dim, keepdim):
    (lx, tx) = pair(rand(3, 4), True)
    args = () if dim is None else (dim,)
    lm, tm = lx.mean(*args, keepdim=keepdim), tx.mean(*args, keepdim=keepdim)
    close(lm, tm)
    (lm * 2).sum().backward(); (tm * 2).sum().backward()
    close(lx.grad, tx.grad)


def test_mean_keepdim_without_dim():
    "litnn's mean(keepdim=True) of all dims (torch refuses the call): the mean over every dim, kept."
    x = litnn.tensor(rand(3, 4), requires_grad=True)
    m = x.mean(keepdim=True)
    assert m.shape == (1, 1) and np.array_equal(m.detach().numpy(), x.mean((0, 1), keepdim=True).detach().numpy())
    m.backward(litnn.ones(1, 1))
    assert np.array_equal(x.grad.numpy(), np.full((3, 4), 1 / 12, np.float32))


def test_mean_second_order():
    (lx, tx) = pair(rand(3, 4, dtype=np.float64), True)
    for lib, x in ((litnn, lx), (torch, tx)):
        (g,) = lib.autograd.grad((x * x).mean(), x, create_graph=True)
        g.sum().backward()
    close(lx.grad, tx.grad)


def test_mean_checks_unchanged():
    li, ti = pair(np.arange(6))
    raises_like(lambda: li.mean(), lambda: ti.mean())
    (lx, tx) = pair(rand(3, 4))
    close(lx.mean(dtype=litnn.float64), tx.mean(dtype=torch.float64))
    p, q = litnn.nn.Parameter(litnn.tensor(rand(3, 4))), torch.nn.Parameter(torch.tensor(rand(3, 4)))
    close(p.mean(), q.mean())


# ---- indexing with index tensors --------------------------------------------------------------------------------

INDEXES = [
    lambda lib: (lib.tensor([0, 2, 2, 1]), lib.tensor([1, 0, 0, 3])),                    # repeats: gradients add
    lambda lib: (lib.tensor([0, 2, 2, 1], dtype=lib.int32), lib.tensor([1, 0, 0, 3], dtype=lib.int32)),
    lambda lib: lib.tensor([2, 0, 2]),                                                     # rows only
    lambda lib: (slice(None), lib.tensor([3, 3, 0])),                                      # columns
    lambda lib: lib.tensor([True, False, True]),                                           # a mask
    lambda lib: lib.tensor([1, 0, 1], dtype=lib.uint8),                                    # a byte mask
    lambda lib: ([0, 1], [2, 2]),                                                          # lists
    lambda lib: (lib.tensor([[0, 1], [2, 2]]), lib.tensor([[3, 3], [0, 1]])),              # 2-d index tensors
]


@pytest.mark.parametrize('k', range(len(INDEXES)))
def test_index_values_and_grads(k):
    import warnings
    (lx, tx), w = pair(rand(3, 4), True), None
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')             # torch's deprecation warning for a byte mask
        ly, ty = lx[INDEXES[k](litnn)], tx[INDEXES[k](torch)]
    close(ly, ty)
    w = rand(*ty.shape, seed=1)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    close(lx.grad, tx.grad)


def test_index_fewer_arrays_than_dims():
    "x[i, j] of a 3-d tensor: the key does not cover every dim, the flat route of `_scatter_add` runs."
    (lx, tx) = pair(rand(3, 4, 5), True)
    i, j = [0, 2, 0], [1, 1, 3]
    ly, ty = lx[litnn.tensor(i), litnn.tensor(j)], tx[torch.tensor(i), torch.tensor(j)]
    close(ly, ty)
    ly.pow(2).sum().backward(); ty.pow(2).sum().backward()
    close(lx.grad, tx.grad)


def test_index_errors_unchanged():
    (lx, tx) = pair(rand(3, 4))
    raises_like(lambda: lx[litnn.tensor([3]), litnn.tensor([0])], lambda: tx[torch.tensor([3]), torch.tensor([0])])
    raises_like(lambda: lx[litnn.tensor([0.5])], lambda: tx[torch.tensor([0.5])])


def test_index_second_order():
    (lx, tx) = pair(rand(3, 4, dtype=np.float64), True)
    for lib, x in ((litnn, lx), (torch, tx)):
        y = (x[lib.tensor([0, 2, 2]), lib.tensor([1, 1, 3])] ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
    close(lx.grad, tx.grad)


# ---- matmul of two float matrices -------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('wt', [False, True])
def test_matmul_matrices(dtype, wt):
    "x @ w (or the layer's x @ w.t()): values, gradients, the weight's gradient row-major like the weight."
    (lx, tx), (lw, tw) = pair(rand(6, 5, dtype=dtype), True), pair(rand(4, 5, dtype=dtype) if wt else rand(5, 4, dtype=dtype), True)
    ly, ty = (lx @ lw.t(), tx @ tw.t()) if wt else (lx @ lw, tx @ tw)
    close(ly, ty)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'MmBackward0'
    w = rand(6, 4, seed=2, dtype=dtype)
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    close(lx.grad, tx.grad); close(lw.grad, tw.grad)
    assert lw.grad.numpy().flags.c_contiguous


def test_matmul_batched_grads():
    "A batch times a matrix: the weight's gradient summed over the batch (the products' `_reduce`)."
    (lx, tx), (lw, tw) = pair(rand(2, 3, 4), True), pair(rand(4, 5), True)
    ly, ty = lx @ lw, tx @ tw
    close(ly, ty)
    ly.sum().backward(); ty.sum().backward()
    close(lx.grad, tx.grad); close(lw.grad, tw.grad)


def test_matmul_second_order():
    (lx, tx), (lw, tw) = pair(rand(3, 4, dtype=np.float64), True), pair(rand(4, 2, dtype=np.float64), True)
    for lib, x, w in ((litnn, lx, lw), (torch, tx, tw)):
        (g,) = lib.autograd.grad(((x @ w) ** 2).sum(), w, create_graph=True)
        g.sum().backward()
    close(lx.grad, tx.grad); close(lw.grad, tw.grad)


def test_matmul_checks_unchanged():
    "Shapes that do not fit, two dtypes, integers, `out=`: what the general road does."
    (la, ta), (lb, tb) = pair(rand(3, 4)), pair(rand(5, 2))
    with pytest.raises(RuntimeError, match=r"shapes cannot be multiplied \(3x4 and 5x2\)"): la @ lb
    (lc, tc) = pair(rand(4, 2, dtype=np.float64))
    raises_like(lambda: la @ lc, lambda: ta @ tc)
    (li, ti), (lj, tj) = pair(np.arange(6).reshape(2, 3)), pair(np.arange(6).reshape(3, 2))
    close(li @ lj, ti @ tj)
    (ld, td) = pair(rand(4, 2))
    lo, to = litnn.empty(3, 2), torch.empty(3, 2)
    litnn.matmul(la, ld, out=lo); torch.matmul(ta, td, out=to)
    close(lo, to)

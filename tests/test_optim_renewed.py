"""What PyTorch's own TestOptimRenewed (test/test_optim.py, driven by optim_db) found, side by side with torch:
`differentiable=True` accepted and stepping where no graph is to be recorded, SparseAdam's sparse step, sparse
gradients assigned to dense parameters, and the view_as_real/complex copies its complex test uses."""
import numpy as np
import pytest

import litnn

torch = pytest.importorskip('torch')

OPTIMS = ['SGD', 'Adam', 'AdamW', 'Adagrad', 'Adadelta', 'Adamax', 'ASGD', 'NAdam', 'RAdam', 'RMSprop', 'Rprop']


def both(fn):
    "fn(lib) for litnn and for torch."
    return fn(litnn), fn(torch)


@pytest.mark.parametrize('name', OPTIMS)
def test_differentiable_step_without_graph_matches_torch(name):
    # params that do not require grad: a differentiable step records nothing, so it is the plain step
    rng = np.random.default_rng(0)
    w0, grads = rng.standard_normal((3, 2)), [rng.standard_normal((3, 2)) for _ in range(3)]
    def run(lib):
        w = lib.tensor(w0.copy())
        opt = getattr(lib.optim, name)([w], lr=0.01, differentiable=True)
        for g in grads:
            w.grad = lib.tensor(g)
            opt.step()
        return w.numpy(), repr(opt)
    (lw, lr), (tw, tr) = both(run)
    # torch's Adam, AdamW and NAdam take their capturable branch when differentiable: bias corrections computed from the
    # float32 step tensor (1e-6 relative in float64); litnn's step is the plain one (left, see the tt-optim log)
    tol = dict(rtol=1e-5) if name in ('Adam', 'AdamW', 'NAdam') else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lw, tw, **tol)
    assert lr == tr and 'differentiable: True' in lr


@pytest.mark.parametrize('name', ['SGD', 'Adam', 'Rprop'])
def test_differentiable_leaf_and_non_leaf_params(name):
    def leaf(lib):
        p = lib.nn.Parameter(lib.randn(3)); p.grad = lib.randn(3)
        with pytest.raises(RuntimeError) as e: getattr(lib.optim, name)([p], lr=0.1, differentiable=True).step()
        return str(e.value)
    l, t = both(leaf)
    assert l == t == "a leaf Variable that requires grad is being used in an in-place operation."
    def non_leaf(lib):   # construction accepts a non-leaf when differentiable, refuses it otherwise (torch's check)
        q = lib.randn(3, requires_grad=True).clone()
        getattr(lib.optim, name)([q], lr=0.1, differentiable=True)
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"): getattr(lib.optim, name)([q], lr=0.1)
    both(non_leaf)


def test_differentiable_step_that_needs_a_graph_is_refused():
    # left: litnn's steps run on arrays and record no graph (torch's does); refused, not silently detached
    q = litnn.randn(3, requires_grad=True).clone(); q.grad = litnn.zeros(3)
    with pytest.raises(NotImplementedError, match='cannot record the update'): litnn.optim.Adam([q], differentiable=True).step()


def _sparse_grads(seed, steps=4):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(steps):
        idx = rng.integers(0, 5, size=(1, 4))                     # repeated rows: uncoalesced, as torch's test tortures it
        out.append((idx, rng.standard_normal((4, 3))))
    out.append((np.zeros((1, 0), dtype=np.int64), np.zeros((0, 3))))   # an empty gradient: nothing moves
    return out


@pytest.mark.parametrize('maximize', [False, True])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_sparse_adam_matches_torch(maximize, dtype):
    w0 = np.random.default_rng(1).standard_normal((5, 3))
    def run(lib):
        w = lib.nn.Parameter(lib.tensor(w0, dtype=getattr(lib, dtype)))
        opt = lib.optim.SparseAdam([w], lr=0.1, maximize=maximize)
        for idx, vals in _sparse_grads(2):
            w.grad = lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(vals, dtype=getattr(lib, dtype)), (5, 3))
            opt.step()
        st = opt.state_dict()['state'][0]
        return w.detach().numpy(), st['step'], st['exp_avg'].numpy(), st['exp_avg_sq'].numpy()
    l, t = both(run)
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-13, atol=1e-14)
    for a, b in zip(l, t): np.testing.assert_allclose(a, b, **tol)
    assert l[1] == t[1] == 5 and type(l[1]) is int


def test_sparse_adam_refuses_dense_gradients_as_torch():
    def run(lib):
        w = lib.nn.Parameter(lib.ones(2)); w.grad = lib.ones(2)
        with pytest.raises(RuntimeError) as e: lib.optim.SparseAdam([w]).step()
        return str(e.value)
    l, t = both(run)
    assert l == t


def test_sparse_grad_assigned_to_dense_param():
    def run(lib):
        w = lib.nn.Parameter(lib.randn(3, 2))
        (w * 2).sum().backward()
        w.grad = w.grad.to_sparse()
        return w.grad.is_sparse, w.grad.to_dense().numpy()
    (ls, lg), (ts, tg) = both(run)
    assert ls and ts
    np.testing.assert_array_equal(lg, tg)


def test_view_as_real_and_complex_copies():
    z = np.random.default_rng(3).standard_normal((3, 2, 2)).astype(np.float32)
    def run(lib):
        c = lib.view_as_complex_copy(lib.tensor(z))
        r = lib.view_as_real_copy(c.requires_grad_())
        return c.detach().numpy(), r.detach().numpy(), r.is_contiguous(), type(r.grad_fn).__name__
    l, t = both(run)
    np.testing.assert_array_equal(l[0], t[0]); np.testing.assert_array_equal(l[1], t[1])
    assert l[2:] == t[2:]


@pytest.mark.parametrize('name', ['Adam', 'AdamW', 'Adadelta', 'Adamax', 'ASGD', 'NAdam', 'RAdam', 'RMSprop', 'Rprop', 'Adafactor'])
def test_sparse_gradients_refused_as_torch(name):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(3, 2)); opt = getattr(lib.optim, name)([p])
        p.grad = lib.ones(3, 2).to_sparse()
        with pytest.raises(RuntimeError) as e: opt.step()
        return str(e.value)
    l, t = both(run)
    assert l == t


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('shape,sparse_dims', [((5, 3), 1), ((4, 3), 2)])
def test_sgd_sparse_gradients_match_torch(dtype, shape, sparse_dims):
    # plain SGD (no momentum, no weight decay) takes sparse gradients as torch: one rounding per stored entry, repeats in turn
    rng = np.random.default_rng(4)
    w0 = rng.standard_normal(shape).astype(dtype)
    steps = []
    for _ in range(4):
        n = int(rng.integers(0, 7))
        steps.append((np.stack([rng.integers(0, shape[d], n) for d in range(sparse_dims)]),
                      rng.standard_normal((n,) + shape[sparse_dims:]).astype(dtype)))
    def run(lib):
        p = lib.nn.Parameter(lib.tensor(w0)); opt = lib.optim.SGD([p], lr=0.1, maximize=True)
        for idx, v in steps:
            p.grad = lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(v), shape)
            opt.step()
        return p.detach().numpy()
    l, t = both(run)
    np.testing.assert_array_equal(l, t)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('kw', [dict(lr=0.1), dict(lr=0.1, lr_decay=0.01, maximize=True, initial_accumulator_value=0.2)])
def test_adagrad_sparse_gradients_match_torch(dtype, kw):
    rng = np.random.default_rng(6)
    w0 = rng.standard_normal((5, 3)).astype(dtype)
    steps = [(rng.integers(0, 5, (1, n)), rng.standard_normal((n, 3)).astype(dtype)) for n in (5, 4, 0, 2, 6)]
    def run(lib):
        p = lib.nn.Parameter(lib.tensor(w0)); opt = lib.optim.Adagrad([p], **kw)
        for idx, v in steps:
            p.grad = lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(v), (5, 3))
            opt.step()
        return p.detach().numpy(), opt.state[p]['sum'].numpy(), float(opt.state[p]['step'])
    l, t = both(run)
    # float32: torch's vectorized float32 sqrt is not always correctly rounded (numpy's is): an ulp here and there
    tol = dict(rtol=2e-6, atol=1e-7) if dtype == 'float32' else dict(rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(l[0], t[0], **tol); np.testing.assert_allclose(l[1], t[1], **tol)
    assert l[2] == t[2] == 5.0
    def wd(lib):
        p = lib.nn.Parameter(lib.ones(3)); p.grad = lib.ones(3).to_sparse()
        with pytest.raises(RuntimeError) as e: lib.optim.Adagrad([p], weight_decay=0.1).step()
        return str(e.value)
    l, t = both(wd)
    assert l == t


def test_grad_of_another_device_type_refused_as_torch():
    def run(lib):
        p = lib.zeros(2, device='meta', requires_grad=True)
        with pytest.raises(RuntimeError) as e: p.grad = lib.zeros(2)
        return str(e.value)
    l, t = both(run)
    assert l == t

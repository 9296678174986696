"""litnn.func.vmap against a per-sample loop and against torch.func.vmap on the same inputs (33a_vmap, 33b_batching_rules)."""
import numpy as np
import pytest
import litnn
import importlib
V = importlib.import_module("litnn.func.vmap")   # the module (litnn.func.vmap is the function)
from litnn.func import vmap, grad, functional_call
torch = pytest.importorskip('torch')
import torch.func

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])


def pair(shape, dtype='float64', seed=0, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    if positive: a = np.abs(a) + 0.5
    return litnn.tensor(a), torch.tensor(a)


@pytest.fixture
def no_loop(monkeypatch):
    "Fail if vmap falls back to a per-sample loop: the op must go through a batching rule."
    def fail(*a, **k): raise AssertionError(f"fell back to a loop for {a[0]}")
    monkeypatch.setattr(V, '_loop_op', fail)
    monkeypatch.setattr(V, '_loop_call', fail)


# (name, function of (lib, x, y), x shape, y shape, in_dims); y has the batch dim only when in_dims says so
CASES = [
    ('sin', lambda T, x, y: x.sin(), (4, 3), (3,), (0, None)),
    ('exp_tanh_sigmoid', lambda T, x, y: T.exp(x).tanh() + T.sigmoid(x) - x.abs() + T.relu(-x), (4, 3), (3,), (0, None)),
    ('neg_pow_sqrt', lambda T, x, y: -(x ** 2) + (x * x + 1).sqrt() + 2 ** x, (4, 3), (3,), (0, None)),
    ('add_broadcast_unbatched', lambda T, x, y: x + y, (4, 3), (2, 1), (0, None)),
    ('mul_both_batched', lambda T, x, y: x * y - y / (x.abs() + 1), (4, 3), (4, 2, 3), (0, 0)),
    ('rank_mismatch', lambda T, x, y: x * y, (4, 3), (4, 2, 3), (0, 0)),
    ('where_clamp', lambda T, x, y: T.where(x > 0, x, y).clamp(-0.5, 0.5), (4, 3), (4, 3), (0, 0)),
    ('maximum', lambda T, x, y: T.maximum(x, y) + T.minimum(x, y), (4, 3), (3,), (0, None)),
    ('sum_dims', lambda T, x, y: x.sum(0) + x.sum(-1, keepdim=True) + x.sum(), (4, 2, 3), (3,), (0, None)),
    ('mean_prod', lambda T, x, y: x.mean(1) + x.prod(0).sum() + x.mean(), (4, 2, 3), (3,), (0, None)),
    ('amax_max', lambda T, x, y: x.amax(0) + x.max(1).values.sum() + x.min(-1)[0].sum(), (4, 2, 3), (3,), (0, None)),
    ('std_var', lambda T, x, y: x.std(0) + x.var(1).sum() + x.std(), (4, 2, 3), (3,), (0, None)),
    ('softmax_logsumexp', lambda T, x, y: x.softmax(-1) + x.log_softmax(0) + x.logsumexp(1, keepdim=True), (4, 2, 3), (3,), (0, None)),
    ('cumsum', lambda T, x, y: x.cumsum(1) + x.cumprod(0), (4, 2, 3), (3,), (0, None)),
    ('mat_vec', lambda T, x, y: x @ y, (4, 2, 3), (3,), (0, None)),
    ('vec_mat', lambda T, x, y: y @ x.t(), (4, 2, 3), (3,), (0, None)),
    ('vec_vec_both', lambda T, x, y: T.dot(x, y) + x @ y, (4, 3), (4, 3), (0, 0)),
    ('mat_mat_both', lambda T, x, y: x @ y.t() + T.mm(x, y.t()), (4, 2, 3), (4, 5, 3), (0, 0)),
    ('mv_linear', lambda T, x, y: T.mv(y, x) + T.nn.functional.linear(x, y), (4, 3), (5, 3), (0, None)),
    ('batched_rank3', lambda T, x, y: x @ y, (4, 5, 2, 3), (3, 2), (0, None)),
    ('unbatched_rank3', lambda T, x, y: y @ x, (4, 3, 2), (5, 2, 3), (0, None)),
    ('bmm', lambda T, x, y: T.bmm(x, y), (4, 2, 3, 3), (2, 3, 3), (0, None)),
    ('index_basic', lambda T, x, y: x[1] + x[:, 1:].sum() + x[None, ..., 0].sum(), (4, 2, 3), (3,), (0, None)),
    ('index_tensor', lambda T, x, y: x[T.tensor([1, 0, 1])] * 2, (4, 2, 3), (3,), (0, None)),
    ('index_adjacent_adv', lambda T, x, y: x[:, T.tensor([2, 0])], (4, 2, 3), (3,), (0, None)),
    ('index_mask', lambda T, x, y: x[:, T.tensor([True, False, True])].sum() + x[T.tensor([False, True])], (4, 2, 3), (3,), (0, None)),
    ('reshape_view', lambda T, x, y: x.reshape(3, 2) + x.view(-1).view(3, 2) + x.flatten().reshape(3, -1), (4, 2, 3), (3,), (0, None)),
    ('squeeze_unsqueeze', lambda T, x, y: x.unsqueeze(0).unsqueeze(-1).squeeze(0).squeeze(-1) + x[:, None].squeeze(1), (4, 2, 3), (3,), (0, None)),
    ('transpose_permute', lambda T, x, y: x.transpose(0, 1).permute(1, 0).t().t() + x.mT.mT, (4, 2, 3), (3,), (0, None)),
    ('expand', lambda T, x, y: x[:, None].expand(2, 5, 3) + x.expand(2, 2, 3).sum(0)[:, None], (4, 2, 3), (3,), (0, None)),
    ('cat_stack', lambda T, x, y: T.cat([x, y[None].expand(1, 3), x], 0).sum() + T.stack([x[0], y], -1), (4, 2, 3), (3,), (0, None)),
    ('movedim', lambda T, x, y: x.movedim(0, -1) * 1, (4, 2, 3), (3,), (0, None)),
]
VECTORIZED_CASES = CASES


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_vmap_against_torch_and_loop(case, dtype):
    name, f, xs, ys, in_dims = case
    (x, tx), (y, ty) = pair(xs, dtype), pair(ys, dtype, seed=1)
    ours = vmap(lambda a, b: f(litnn, a, b), in_dims=in_dims)(x, y)
    theirs = torch.func.vmap(lambda a, b: f(torch, a, b), in_dims=in_dims)(tx, ty)
    loop = litnn.stack([f(litnn, x[i], y[i] if in_dims[1] == 0 else y) for i in range(x.shape[0])])
    tol = 1e-12 if dtype == 'float64' else 1e-5
    assert tuple(ours.shape) == tuple(theirs.shape) == tuple(loop.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(ours.numpy(), loop.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize('case', VECTORIZED_CASES, ids=[c[0] for c in VECTORIZED_CASES])
def test_covered_ops_need_no_loop(case, no_loop):
    name, f, xs, ys, in_dims = case
    x, y = pair(xs)[0], pair(ys, seed=1)[0]
    vmap(lambda a, b: f(litnn, a, b), in_dims=in_dims)(x, y)


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_gradients_flow_through_vmap(case):
    "backward through the batched computation gives torch's gradients for both inputs."
    name, f, xs, ys, in_dims = case
    (x, tx), (y, ty) = pair(xs), pair(ys, seed=1)
    for t in (x, tx, y, ty): t.requires_grad_()
    vmap(lambda a, b: f(litnn, a, b), in_dims=in_dims)(x, y).pow(2).sum().backward()
    torch.func.vmap(lambda a, b: f(torch, a, b), in_dims=in_dims)(tx, ty).pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    if ty.grad is not None: np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_separated_advanced_indices_loop_per_op():
    "numpy moves separated advanced indices to the front: that key runs per sample, and still equals torch."
    (x, tx) = pair((4, 2, 3, 5))
    f = lambda T, a: a[T.tensor([1, 0]), :, T.tensor([0, 4])]
    ours, theirs = vmap(lambda a: f(litnn, a))(x), torch.func.vmap(lambda a: f(torch, a))(tx)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize('in_dims,out_dims', [(1, 0), (-1, 1), (2, -1), ((1, None), (0, 1))])
def test_in_dims_out_dims(in_dims, out_dims):
    (x, tx), (y, ty) = pair((3, 4, 5)), pair((4, 5), seed=1)
    f = lambda a, b: (a * 2, a.sum(0))
    args, targs = ((x, y), (tx, ty)) if isinstance(in_dims, tuple) else ((x,), (tx,))
    g = (lambda a, b: f(a, b)) if isinstance(in_dims, tuple) else (lambda a: f(a, None))
    ours = vmap(g, in_dims=in_dims, out_dims=out_dims)(*args)
    theirs = torch.func.vmap(g, in_dims=in_dims, out_dims=out_dims)(*targs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.numpy())


def test_trees_and_unbatched_outputs():
    (x, tx), (y, ty) = pair((3, 2)), pair((2,), seed=1)
    f = lambda d: {'s': d['a'] + d['b'], 'c': d['b'] * 1, 'l': [d['a'].sum()]}
    ours = vmap(f, in_dims=({'a': 0, 'b': None},))({'a': x, 'b': y})
    theirs = torch.func.vmap(f, in_dims=({'a': 0, 'b': None},))({'a': tx, 'b': ty})
    for k in ('s', 'c'): np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy())
    np.testing.assert_allclose(ours['l'][0].numpy(), theirs['l'][0].numpy())
    assert tuple(ours['c'].shape) == (3, 2)          # unbatched output: expanded over the batch
    out = vmap(lambda a, b: b, in_dims=(0, None), out_dims=(None))(x, y)
    np.testing.assert_allclose(out.numpy(), y.numpy())


def test_nested_vmap():
    (x, tx), (y, ty) = pair((3, 4)), pair((5, 4), seed=1)
    f = lambda a, b: (a * b).sum() + a @ b
    ours = vmap(vmap(f, in_dims=(None, 0)), in_dims=(0, None))(x, y)
    theirs = torch.func.vmap(torch.func.vmap(f, in_dims=(None, 0)), in_dims=(0, None))(tx, ty)
    assert tuple(ours.shape) == (3, 5)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    both = vmap(vmap(lambda a: a.sin().sum(-1)), in_dims=1)(pair((2, 3, 4))[0])
    np.testing.assert_allclose(both.numpy(), np.sin(pair((2, 3, 4))[0].numpy()).sum(-1).transpose(1, 0))


def test_chunk_size():
    (x, tx) = pair((7, 3))
    for c in (1, 2, 3, 7, 100):
        np.testing.assert_allclose(vmap(lambda a: a.softmax(0), chunk_size=c)(x).numpy(), torch.func.vmap(lambda a: a.softmax(0), chunk_size=c)(tx).numpy())


@pytest.mark.parametrize('chunk', [None, 2])
@pytest.mark.parametrize('create_graph', [False, True])
def test_autograd_grad_of_an_outer_graph(chunk, create_graph):
    "vmap over autograd.grad with batched grad_outputs on a graph built outside the vmap (a Jacobian row by row, as TorchJD's "
    "mtl_backward): torch's is_grads_batched; retain_graph=False frees the graph once, after the last sample, as torch's."
    def run(T, x, w):
        x, w = x.clone().requires_grad_(), w.clone().requires_grad_()
        y = (w * x.sin()).sum(1)                      # 2 outputs
        z = (x * x).sum()                             # its grad_output left unbatched
        vjp = lambda v, u: T.autograd.grad((y, z), (x, w), (v, u), create_graph=create_graph)
        jx, jw = T.vmap(vjp, in_dims=(0, None), chunk_size=chunk)(T.eye(2, dtype=x.dtype), T.tensor(3., dtype=x.dtype))
        after = None
        if create_graph: (gx,) = T.autograd.grad(jx.sum() + jw.square().sum(), (x,)); after = gx
        else:
            try: y.sum().backward()
            except RuntimeError as e: after = str(e)[:40]
        return jx, jw, after
    (x, tx), (w, tw) = pair((3,)), pair((2, 3), seed=1)
    mine, theirs = run(litnn, x, w), run(torch, tx, tw)
    for a, b in zip(mine[:2], theirs[:2]): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    if create_graph: np.testing.assert_allclose(mine[2].numpy(), theirs[2].numpy(), rtol=1e-12)
    else: assert mine[2] == theirs[2] and mine[2].startswith('Trying to backward through the graph a')


def test_fallbacks(monkeypatch):
    "An op without a rule loops over the samples for itself; a function that reads values loops as a whole: both exact."
    calls = []
    for name in ('_loop_op', '_loop_call'):
        orig = getattr(V, name)
        monkeypatch.setattr(V, name, lambda *a, _o=orig, _n=name, **k: (calls.append(_n), _o(*a, **k))[1])
    (x, tx) = pair((4, 3))
    f = lambda T, a: a.roll(1, 0).sin() * 2
    np.testing.assert_allclose(vmap(lambda a: f(litnn, a))(x).numpy(), torch.func.vmap(lambda a: f(torch, a))(tx).numpy())
    assert calls == ['_loop_op']
    calls.clear()
    idx = litnn.tensor([[0, 2], [1, 1], [3, 0], [2, 2]])
    g = lambda i: litnn.nn.functional.one_hot(i, 4).sum(0)      # one_hot checks the values of its input
    np.testing.assert_array_equal(vmap(g)(idx).numpy(), litnn.stack([g(i) for i in idx]).numpy())
    assert calls[-1] == '_loop_call'


def test_randomness():
    x = litnn.full((3, 4), 0.5)
    with pytest.raises(RuntimeError, match="randomness error mode"): vmap(lambda a: a + litnn.rand(4))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"): vmap(lambda a: a.bernoulli())(x)
    with pytest.raises(RuntimeError, match="randomness error mode"): torch.func.vmap(lambda a: a + torch.rand(4))(torch.full((3, 4), 0.5))
    same = vmap(lambda a: litnn.nn.functional.dropout(a, 0.5), randomness='same')(x)
    assert (same == same[0]).all()
    litnn.manual_seed(1)
    diff = vmap(lambda a: a + litnn.rand(4), randomness='different')(x)
    assert not (diff[0] == diff[1]).all()
    assert litnn.rand(1).shape == (1,)           # the generators are back


ERRORS = [
    ("in_dim out of range", lambda T, x: T.func.vmap(T.sin, in_dims=2)(x)),
    ("in_dim negative", lambda T, x: T.func.vmap(T.sin, in_dims=-3)(x)),
    ("in_dims type", lambda T, x: T.func.vmap(T.sin, in_dims=1.5)(x)),
    ("in_dims structure", lambda T, x: T.func.vmap(T.add, in_dims=(0,))(x, x)),
    ("sizes", lambda T, x: T.func.vmap(T.add)(x, T.ones(3, 3))),
    ("nothing mapped", lambda T, x: T.func.vmap(T.add, in_dims=(None, None))(x, x)),
    ("non-tensor mapped", lambda T, x: T.func.vmap(T.add, in_dims=(0, 0))(x, 2.)),
    ("scalar input", lambda T, x: T.func.vmap(T.sin)(T.tensor(1.))),
    ("non-tensor output", lambda T, x: T.func.vmap(lambda a: 3)(x)),
    ("out_dims None batched", lambda T, x: T.func.vmap(T.sin, out_dims=None)(x)),
    ("randomness value", lambda T, x: T.func.vmap(T.sin, randomness='x')(x)),
    ("no inputs", lambda T, x: T.func.vmap(T.sin)()),
    ("chunk_size", lambda T, x: T.func.vmap(T.sin, chunk_size=0)(x)),
    ("item", lambda T, x: T.func.vmap(lambda a: a.sum().item())(x)),
    ("in_dims dict", lambda T, x: T.func.vmap(T.sin, in_dims={'a': 0})(x)),
    ("batched boolean mask", lambda T, x: T.func.vmap(lambda a: a[a > 0])(x)),
]


@pytest.mark.parametrize('i', range(len(ERRORS)), ids=[e[0] for e in ERRORS])
def test_errors_as_torch(i):
    _, f = ERRORS[i]
    with pytest.raises(Exception) as te: f(torch, torch.ones(2, 3))
    with pytest.raises(te.type) as le: f(litnn, litnn.ones(2, 3))
    theirs, ours = str(te.value), str(le.value)
    if 'TreeSpec' in theirs: theirs = theirs.split(' in_dims has structure')[0]    # torch's tree reprs differ
    else: theirs = theirs.replace('sin', 'sin').replace('torch.', '')
    assert theirs.split(':')[-1].strip()[:60] in ours or theirs[:60] in ours, (theirs, ours)


def test_per_sample_gradients_of_a_model():
    "vmap(grad(loss)) over functional_call equals a loop, and torch.func on the same weights."
    litnn.manual_seed(0)
    model = litnn.nn.Sequential(litnn.nn.Linear(3, 5), litnn.nn.Tanh(), litnn.nn.Linear(5, 2))
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)).double()
    model.double()
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    (x, tx), (y, ty) = pair((6, 3)), (litnn.tensor([0, 1, 1, 0, 1, 0]), torch.tensor([0, 1, 1, 0, 1, 0]))
    def loss(T, m, p, a, b): return T.nn.functional.cross_entropy(T.func.functional_call(m, p, (a[None],)), b[None])
    params = {k: v.detach() for k, v in model.named_parameters()}
    tparams = {k: v.detach() for k, v in tmodel.named_parameters()}
    ours = vmap(grad(lambda p, a, b: loss(litnn, model, p, a, b)), in_dims=(None, 0, 0))(params, x, y)
    theirs = torch.func.vmap(torch.func.grad(lambda p, a, b: loss(torch, tmodel, p, a, b)), in_dims=(None, 0, 0))(tparams, tx, ty)
    for k in params:
        assert tuple(ours[k].shape) == tuple(theirs[k].shape) == (6,) + tuple(params[k].shape)
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-10, atol=1e-12)
        for i in range(6):
            np.testing.assert_allclose(ours[k][i].numpy(), grad(lambda p: loss(litnn, model, p, x[i], y[i]))(params)[k].numpy(), rtol=1e-12)


def test_hook_is_off_outside_vmap():
    from litnn.autograd.graph import _Mode
    assert _Mode.batched is None
    with pytest.raises(ValueError): vmap(litnn.sin)(litnn.tensor(1.))
    assert _Mode.batched is None
    with pytest.raises(ZeroDivisionError): vmap(lambda a: 1 / 0)(litnn.ones(2))
    assert _Mode.batched is None and V._level[0] == 0


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_vmap_cuda():
    x = litnn.randn(4, 2, 3, device='cuda')
    w = litnn.randn(3, 5, device='cuda')
    f = lambda a: (a @ w).softmax(-1).sum(0) + a[1, :2].sum()
    np.testing.assert_allclose(vmap(f)(x).cpu().numpy(), litnn.stack([f(a) for a in x]).cpu().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="randomness error mode"): vmap(lambda a: a + litnn.rand(3, device='cuda'))(x)


def _twin_mlp():
    litnn.manual_seed(0)
    model = litnn.nn.Sequential(litnn.nn.Linear(3, 5), litnn.nn.Tanh(), litnn.nn.Linear(5, 2)).double()
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2)).double()
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    return model, tmodel


def test_per_sample_gradients_run_batched(no_loop):
    "vmap(grad(mse)) over functional_call: one backward over the batch, no loop, torch's numbers."
    model, tmodel = _twin_mlp()
    (x, tx), (y, ty) = pair((6, 3)), pair((6, 2), seed=1)
    def loss(T, m, p, a, b): return T.nn.functional.mse_loss(T.func.functional_call(m, p, (a,)), b)
    params = {k: v.detach() for k, v in model.named_parameters()}
    tparams = {k: v.detach() for k, v in tmodel.named_parameters()}
    g, v = vmap(litnn.func.grad_and_value(lambda p, a, b: loss(litnn, model, p, a, b)), in_dims=(None, 0, 0))(params, x, y)
    tg, tv = torch.func.vmap(torch.func.grad_and_value(lambda p, a, b: loss(torch, tmodel, p, a, b)), in_dims=(None, 0, 0))(tparams, tx, ty)
    np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=1e-12)
    for k in params: np.testing.assert_allclose(g[k].numpy(), tg[k].numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('in_dims,argnums', [((0, 0), 0), ((0, None), (0, 1)), ((None, 0), 1), ((0, 0), (0, 1))])
def test_batched_grad_argnums_against_torch(in_dims, argnums, no_loop):
    (x, tx), (w, tw) = pair((4, 3)), pair((4, 3), seed=1)
    if in_dims[0] is None: x, tx = x[0], tx[0]
    if in_dims[1] is None: w, tw = w[0], tw[0]
    f = lambda T: (lambda a, b: ((a * b).sin().sum() + (a @ b) ** 2, {'aux': a.exp()}))
    ours = vmap(litnn.func.grad(f(litnn), argnums, has_aux=True), in_dims=in_dims)(x, w)
    theirs = torch.func.vmap(torch.func.grad(f(torch), argnums, has_aux=True), in_dims=in_dims)(tx, tw)
    flat = lambda t: [t] if hasattr(t, 'shape') else [l for s in (t.values() if isinstance(t, dict) else t) for l in flat(s)]
    for o, t in zip(flat(ours), flat(theirs)):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)


def test_grad_of_grad_in_vmap_and_fallbacks():
    (x, tx) = pair((5, 3))
    f = lambda T: (lambda a: (a.sin() * a ** 2).sum())
    ours = vmap(litnn.func.grad(lambda a: litnn.func.grad(f(litnn))(a).pow(2).sum()))(x)
    theirs = torch.func.vmap(torch.func.grad(lambda a: torch.func.grad(f(torch))(a).pow(2).sum()))(tx)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    # nested vmaps and a batch closed over: the loop, same numbers
    ours = vmap(vmap(litnn.func.grad(f(litnn))))(x[:, None].expand(5, 2, 3))
    np.testing.assert_allclose(ours.numpy(), theirs[:, None].expand(5, 2, 3).numpy() * 0 + torch.func.vmap(torch.func.grad(f(torch)))(tx)[:, None].numpy(), rtol=1e-10)
    w = litnn.ones(3, dtype=litnn.float64)
    ours = vmap(lambda a: litnn.func.grad(lambda v: (v * a).sin().sum())(w))(x)
    theirs = torch.func.vmap(lambda a: torch.func.grad(lambda v: (v * a).sin().sum())(torch.ones(3, dtype=torch.float64)))(tx)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    # cross_entropy reads its targets' values: the whole-function loop, still torch's numbers
    model, tmodel = _twin_mlp()
    y, ty = litnn.tensor([0, 1, 1, 0, 1]), torch.tensor([0, 1, 1, 0, 1])
    def ce(T, m, p, a, b): return T.nn.functional.cross_entropy(T.func.functional_call(m, p, (a[None],)), b[None])
    g = vmap(litnn.func.grad(lambda p, a, b: ce(litnn, model, p, a, b)), in_dims=(None, 0, 0))(dict(model.named_parameters()), x, y)
    tg = torch.func.vmap(torch.func.grad(lambda p, a, b: ce(torch, tmodel, p, a, b)), in_dims=(None, 0, 0))(dict(tmodel.named_parameters()), tx, ty)
    for k in g: np.testing.assert_allclose(g[k].detach().numpy(), tg[k].detach().numpy(), rtol=1e-10, atol=1e-12)


# Found by torch's OpInfo samples under vmap (/work/w/helpers/opdb-transforms.md): 0-d samples reduced to a number,
# ops whose litnn implementation reads numbers from a tensor argument (torch runs its kernel per sample).
def test_full_reductions_of_0d_samples():
    x, tx = pair((3,))
    for name in ('sum', 'mean', 'median', 'nanmedian'):
        np.testing.assert_allclose(vmap(getattr(litnn, name))(x).numpy(), torch.func.vmap(getattr(torch, name))(tx).numpy())
    l = lambda T: (lambda a, b: T.nn.functional.margin_ranking_loss(a, b, b.sign(), reduction='sum'))
    y, ty = pair((3,), seed=1)
    np.testing.assert_allclose(vmap(l(litnn))(x, y).numpy(), torch.func.vmap(l(torch))(tx, ty).numpy())


def test_linspace_logspace_with_batched_tensor_bounds():
    s, ts = pair((3,))
    e, te = pair((3,), seed=1)
    for name in ('linspace', 'logspace'):
        f = lambda T: (lambda a, b: getattr(T, name)(a, b, 5, dtype=T.float64))
        np.testing.assert_allclose(vmap(f(litnn))(s, e).numpy(), torch.func.vmap(f(torch))(ts, te).numpy(), rtol=1e-12)


def test_embedding_bag_and_ctc_loss_under_vmap():
    w, tw = pair((2, 10, 3))
    idx = np.array([[1, 2, 4, 5, 4, 3, 2, 9], [0, 2, 4, 5, 7, 3, 2, 8]])
    off = np.array([0, 4])
    f = lambda T: (lambda a, i: T.nn.functional.embedding_bag(i, a, T.tensor(off), mode='sum'))
    np.testing.assert_allclose(vmap(f(litnn))(w, litnn.tensor(idx)).numpy(), torch.func.vmap(f(torch))(tw, torch.tensor(idx)).numpy(), rtol=1e-12)
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(4), size=(2, 6, 1)))      # (batch, T, N=1, C)
    tg = np.array([[1, 2], [3, 3]])
    def ctc(T):
        return lambda a, t: T.nn.functional.ctc_loss(a, t[None], T.tensor([6]), T.tensor([2]), reduction='sum')
    ours = vmap(ctc(litnn))(litnn.tensor(lp), litnn.tensor(tg))
    theirs = torch.func.vmap(ctc(torch))(torch.tensor(lp), torch.tensor(tg))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


def test_view_copy_of_a_moved_batch():
    x, tx = pair((5, 2, 4, 3))
    f = lambda T: (lambda a: T.view_copy(a, (20, 3)))
    np.testing.assert_allclose(vmap(f(litnn), in_dims=1)(x).numpy(), torch.func.vmap(f(torch), in_dims=1)(tx).numpy())


def test_median_of_all_values_per_sample():
    # median() flattens its whole input: under vmap it must not take the median across the batch
    x, tx = pair((4, 5))
    for name in ('median', 'nanmedian'):
        np.testing.assert_allclose(vmap(getattr(litnn, name))(x).numpy(), torch.func.vmap(getattr(torch, name))(tx).numpy())


def test_repr_inside_vmap_as_torch():
    "A tensor printed inside vmap: torch's BatchedTensor(lvl=..., bdim=..., value=...) with the value indented by 4, per level."
    def reprs(T):
        out = []
        def foo(t):
            out.append(repr(t).replace('torch.', '').replace('litnn.', ''))
            return t.mean()
        x = T.arange(6.).reshape(2, 3)
        T.func.vmap(foo)(x)
        T.func.vmap(T.func.vmap(foo))(x.reshape(2, 3, 1))
        return out
    assert reprs(litnn) == reprs(torch)


def test_function_vmap_staticmethod_as_torch():
    "An autograd.Function's own vmap staticmethod: its info and in_dims, out_dims, the returns it must give, kwarg-only tensors refused."
    def run(T):
        seen = []
        class Scale(T.autograd.Function):
            @staticmethod
            def forward(x, y): return x * 2 + y
            @staticmethod
            def setup_context(ctx, inputs, output): pass
            @staticmethod
            def vmap(info, in_dims, x, y):
                seen.append((info.batch_size, info.randomness, in_dims, isinstance(in_dims, tuple)))
                x = x.movedim(in_dims[0], 0) if in_dims[0] is not None else x
                y = y.movedim(in_dims[1], 0) if in_dims[1] is not None else y
                return Scale.apply(x, y), 0
        xs, y = T.arange(6.).reshape(2, 3), T.ones(3)
        out = [T.func.vmap(Scale.apply, in_dims=(0, None), randomness='same')(xs, y).tolist(),
               T.func.vmap(Scale.apply)(xs, xs).tolist()]
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(x): return x
            @staticmethod
            def setup_context(ctx, inputs, output): pass
            @staticmethod
            def vmap(info, in_dims, x): return BAD(x)
        errs = []
        for BAD in (lambda x: x, lambda x: (x, 0, 0), lambda x: (x[0], (None,)), lambda x: ([x], (None,)), lambda x: ((x, x), None)):
            try:
                r = T.func.vmap(Bad.apply)(xs)
                errs.append([t.tolist() for t in r] if isinstance(r, tuple) else r.tolist())
            except RuntimeError as e: errs.append((type(e).__name__ if type(e).__name__ in ('RuntimeError', 'NotImplementedError') else 'RuntimeError', str(e).split(' Got')[0].split(' out_dims has')[0]))
        class Both(Bad):
            generate_vmap_rule = True
        class KwOnly(Bad):
            @staticmethod
            def forward(x, *, y): return x + y
        for call in (lambda: T.func.vmap(Both.apply)(xs), lambda: T.func.vmap(KwOnly.apply)(xs, y=y)):
            try: call(); errs.append('ok')
            except RuntimeError as e: errs.append((isinstance(e, NotImplementedError), str(e).split(' Got:')[0]))
        return seen, out, errs
    assert run(litnn) == run(torch)


# From PyTorch's test/functorch/test_vmap.py run against litnn (/work/w/tt/vmap): the API's contract, side by side.
def _outcome(f):
    "(the value as nested lists, or the exception's type and message)."
    try: r = f()
    except Exception as e: return (next(c.__name__ for c in type(e).__mro__ if c.__module__ == 'builtins'), str(e))
    return _plain(r)

def _plain(r):
    if isinstance(r, (tuple, list)): return [_plain(x) for x in r]
    if isinstance(r, dict): return {k: _plain(v) for k, v in r.items()}
    return r.tolist() if hasattr(r, 'tolist') else r

def test_vmap_inplace_writes_the_callers_tensor():
    "An in-place op inside vmap writes the input's memory and returns the caller's tensor (a view of it for another out_dim)."
    def run(T):
        V = T.func.vmap
        x0 = T.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
        x = x0.clone(); r = V(T.Tensor.acos_)(x)
        y = x0.clone(); s = V(T.Tensor.acos_, out_dims=(1,))(y)
        z = T.ones(3, 4, 2); w = V(V(T.Tensor.mul_, in_dims=(0, None)), in_dims=(2, None))(z, T.arange(4.))
        f = T.zeros(2, 3); V(T.Tensor.fill_)(f, T.tensor([5., 7.]))
        c = T.zeros(2, 3); V(T.Tensor.copy_, in_dims=(1, None))(c, T.tensor([1., 2.]))
        def g(t):
            u = t * 2
            u.mul_(t)
            return u
        a = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        ga, = T.autograd.grad(V(g)(a).sum(), a)
        errs = [_outcome(lambda: V(T.Tensor.copy_, in_dims=(None, 0))(T.zeros(3), T.ones(2, 3))),
                _outcome(lambda: V(T.Tensor.fill_, in_dims=(None, 0))(T.zeros(3), T.ones(2)))]
        errs = [(e[0], 'there exists a Tensor `other` in extra_args that has more elements than `self`' in e[1]) for e in errs]
        return (r is x, x.tolist(), s._base is y, s.tolist(), w.tolist(), f.tolist(), c.tolist(), ga.tolist(), errs)
    lt, tt = run(litnn), run(torch)
    assert (lt[0], lt[2]) == (tt[0], tt[2])
    np.testing.assert_allclose(lt[1], tt[1], rtol=1e-6); np.testing.assert_allclose(lt[3], tt[3], rtol=1e-6)
    assert lt[4:] == tt[4:]

def test_vmap_out_dims_and_in_dims_contract():
    "out_dims/in_dims read as torch reads them (a tree prefix, list and tuple distinct), with torch's errors."
    def run(T):
        V, x = T.func.vmap, T.arange(6.).reshape(2, 3)
        return [_outcome(lambda: V(lambda t: t, out_dims=(1,))(x)),
                _outcome(lambda: V(lambda t: (t, 'hi'), out_dims=(0, None))(x)),
                _outcome(lambda: V(lambda t: 'hi', out_dims=None)(x)),
                _outcome(lambda: V(lambda t: (t.sum(), (t, t)), out_dims=(0, (0, 1)))(x)),
                _outcome(lambda: V(lambda t: t, out_dims='lol')(x)),
                _outcome(lambda: V(lambda t: t, out_dims=('lol',))(x)),
                _outcome(lambda: V(lambda t: t, out_dims=2)(x)),
                _outcome(lambda: V(lambda t: t, out_dims=-3)(x)),
                _outcome(lambda: V(lambda t: 3.14)(x)),
                _outcome(lambda: V(lambda z: z[0] + z[1], in_dims=((0, 0),))([x, x])),
                _outcome(lambda: V(lambda z: z[0] + z[1], in_dims=([0],))([x, x])),
                _outcome(lambda: V(lambda z: z[0] + z[1], in_dims=([0, 0],))([x, x])),
                _outcome(lambda: V(lambda z: z['a'] + z['b'], in_dims=({'b': 0, 'a': 1},))({'a': x.t(), 'b': x})),
                _outcome(lambda: V(T.mul, in_dims=[0, 0])(x, x)),
                _outcome(lambda: V(T.mul, in_dims=None)(x, x)),
                _outcome(lambda: V(T.mul, in_dims=(0, 'a'))(x, x))]
    assert run(litnn) == run(torch)

def test_vmap_views_of_the_input():
    "A view function inside vmap gives a view of vmap's input, as torch (the batch's memory is a view too)."
    def run(T):
        V, x, y = T.func.vmap, T.rand(3, 2, 5), T.rand(2, 3, 5)
        fs = [lambda t: t.t(), lambda t: t[0:1], lambda t: t.unsqueeze(0), lambda t: t.view(10), lambda t: t.transpose(0, 1)]
        return ([V(f)(x)._base is x for f in fs] + [V(f, in_dims=1)(y)._base is y for f in fs if f is not fs[3]]
                + [V(V(lambda t: t.t()), in_dims=1)(T.rand(4, 3, 2, 5))._base is not None])
    assert run(litnn) == run(torch)

def test_vmap_chunks_and_generators():
    "chunk_vmap and vmap(chunk_size=) equal vmap (with 'same' randomness each chunk draws the same numbers); a generator passed to a random op obeys vmap's randomness."
    import importlib
    def run(T, chunk_vmap):
        V, x = T.func.vmap, T.arange(24.).reshape(4, 2, 3)
        f = lambda t: (t * 2 + 1, {'s': t.sum(0)})
        out = [_plain(chunk_vmap(f, in_dims=1, out_dims=(1, {'s': 0}), chunks=c)(x)) for c in (1, 2, 3, 5)]
        out += [_plain(V(f, in_dims=2, chunk_size=c)(x)) for c in (1, 2, 5)]
        g = lambda t: t + T.rand_like(t)
        T.manual_seed(0); same = V(g, randomness='same')(x)
        T.manual_seed(0); chunked = V(g, randomness='same', chunk_size=3)(x)
        T.manual_seed(0); chunked2 = chunk_vmap(g, randomness='same', chunks=2)(x)
        gen = T.Generator()
        errs = [_outcome(lambda: V(lambda t: t + T.rand(3, generator=gen))(x)),
                _outcome(lambda: V(lambda t: T.randperm(4, generator=gen))(x))]
        gen.manual_seed(1); d = V(lambda t: t + T.rand(3, generator=gen), randomness='different')(x[:, 0])
        gen.manual_seed(1); s = V(lambda t: t + T.rand(3, generator=gen), randomness='same')(x[:, 0])
        flags = [bool((chunked == same).all()), bool((chunked2 == same).all()), bool((d[0] - x[0, 0] != d[1] - x[1, 0]).any()),
                 bool(((s - x[:, 0]) == (s - x[:, 0])[0]).all())]
        return out, [(e[0], 'randomness error mode' in e[1]) for e in errs], flags
    lit = run(litnn, importlib.import_module('litnn.func.vmap').chunk_vmap)
    import functorch.experimental
    assert lit == run(torch, functorch.experimental.chunk_vmap)

def test_vmap_dimension_views_and_control_flow():
    "diagonal, unbind, split/chunk, unfold, real/imag/view_as_real run on the batch (a view of the input, as torch); `if x:` is torch's error."
    def run(T):
        V, x, c = T.func.vmap, T.arange(60.).reshape(3, 4, 5), T.ones(3, 2, dtype=T.complex64)
        fs = [lambda t: t.diagonal(1, 1, 0), lambda t: t.unbind(-1), lambda t: t.split(2, 1), lambda t: t.chunk(2, 0),
              lambda t: t.unfold(1, 2, 2)]
        outs = [V(f)(x) for f in fs] + [V(f, in_dims=2)(x) for f in fs]
        flat = [o for out in outs for o in (out if isinstance(out, tuple) else (out,))]
        cs = [V(f)(c) for f in (T.real, T.imag, T.view_as_real)]
        return ([_plain(o) for o in flat], [o._base is x for o in flat], [o._base is c for o in cs],
                _outcome(lambda: V(lambda t: t if t.sum() > 0 else -t)(x)))
    lt, tt = run(litnn), run(torch)
    assert lt[:3] == tt[:3]
    assert lt[3][0] == tt[3][0] and 'data-dependent control flow' in lt[3][1] and 'data-dependent control flow' in tt[3][1]

def test_vmap_dynamic_shape_ops_refused():
    "nonzero, argwhere, where(cond), unique inside vmap: torch's refusal (their output shape depends on each sample's values)."
    def run(T):
        V, x = T.func.vmap, T.tensor([[1., 0., 2.], [0., 0., 3.]])
        fs = [lambda t: T.where(t > 0), lambda t: t.nonzero(), lambda t: t.unique(), lambda t: t.unique(dim=0)]   # (argwhere: torch's loop fails in stack)
        return [_outcome(lambda: V(f)(x)) for f in fs] + [_outcome(lambda: V(lambda t: t * T.where(x > 0)[0].sum())(x))]
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('read', ['item', 'bool', 'tolist', 'float', 'int', 'numpy'])
def test_reading_a_batched_value_is_torch_error(read):
    "Reading a number or an array out of a batched tensor: torch's RuntimeError, its class and words."
    import torch as T
    outs = []
    for lib in (T, litnn):
        f = {'item': lambda x: x.item(), 'bool': bool, 'tolist': lambda x: x.tolist(), 'float': float, 'int': int,
             'numpy': lambda x: x.numpy()}[read]
        with pytest.raises(RuntimeError) as e: lib.func.vmap(f)(lib.ones(3))
        outs.append((type(e.value).__name__, str(e.value)))
    assert outs[0] == outs[1]


# Random operations inside vmap (33a_vmap `_random`, torch's BatchRulesRandomness): (name, f(T, x, y, p), in_dims).
# x: (4, 3, 5) normal values; y: (3, 5) ones, unbatched unless in_dims says so; p: (4, 3, 5) probabilities.
RANDOM = [
    ('randn', lambda T, x, y, p: T.randn(2, 3), (0, None, None)),
    ('rand generator', lambda T, x, y, p: T.rand(2, 3, generator=T.Generator().manual_seed(5)), (0, None, None)),
    ('randint', lambda T, x, y, p: T.randint(0, 9, (5,)), (0, None, None)),
    ('normal sizes', lambda T, x, y, p: T.normal(1., 2., (3,)), (0, None, None)),
    ('randperm', lambda T, x, y, p: T.randperm(5), (0, None, None)),
    ('rand_like batched', lambda T, x, y, p: T.rand_like(x), (0, None, None)),
    ('randn_like unbatched', lambda T, x, y, p: T.randn_like(y), (0, None, None)),
    ('randint_like', lambda T, x, y, p: T.randint_like(x, 3, 7), (0, None, None)),
    ('normal batched mean', lambda T, x, y, p: T.normal(x, 1.), (0, None, None)),
    ('normal batched std', lambda T, x, y, p: T.normal(y, x.abs() + 1), (0, None, None)),
    ('normal unbatched', lambda T, x, y, p: T.normal(0., y), (0, None, None)),
    ('binomial', lambda T, x, y, p: T.binomial(y * 5, p), (0, None, 0)),
    ('binomial unbatched', lambda T, x, y, p: T.binomial(y * 5, y * 0.5), (0, None, None)),
    ('bernoulli', lambda T, x, y, p: T.bernoulli(p), (0, None, 0)),
    ('bernoulli p=', lambda T, x, y, p: T.bernoulli(x, 0.3), (0, None, None)),
    ('poisson', lambda T, x, y, p: T.poisson(x.abs()), (0, None, None)),
    ('_standard_gamma', lambda T, x, y, p: T._standard_gamma(x.abs() + 0.5), (0, None, None)),
    ('_sample_dirichlet', lambda T, x, y, p: T._sample_dirichlet(x.abs() + 0.5), (0, None, None)),
    ('multinomial rows', lambda T, x, y, p: T.multinomial(p, 2), (0, None, 0)),
    ('multinomial unbatched', lambda T, x, y, p: T.multinomial(y[0], 2), (0, None, None)),
    ('normal_ batched', lambda T, x, y, p: x.normal_(), (0, None, None)),
    ('uniform_ batched at 1', lambda T, x, y, p: x.uniform_(2, 3), (1, None, None)),
    ('random_', lambda T, x, y, p: x.random_(0, 10), (0, None, None)),
    ('exponential_', lambda T, x, y, p: x.exponential_(), (0, None, None)),
    ('normal_ unbatched', lambda T, x, y, p: y.normal_(), (0, None, None)),
    ('bernoulli_ batched p', lambda T, x, y, p: x.bernoulli_(p), (0, None, 0)),
    ('bernoulli_ unbatched p', lambda T, x, y, p: x.bernoulli_(y * 0.5), (0, None, None)),
    ('bernoulli_ into unbatched', lambda T, x, y, p: y.bernoulli_(p), (0, None, 0)),
    ('randn out=', lambda T, x, y, p: T.randn(3, 5, out=y), (0, None, None)),
    ('normal out=', lambda T, x, y, p: T.normal(y, y, out=y), (0, None, None)),
    ('rrelu', lambda T, x, y, p: T.rrelu(x), (0, None, None)),
    ('nested different', lambda T, x, y, p: T.func.vmap(lambda a: a + T.randn(5), randomness='different')(x), (0, None, None)),
    ('nested same inside', lambda T, x, y, p: T.func.vmap(lambda a: a + T.randn(5), randomness='same')(x), (0, None, None)),
]


@pytest.mark.parametrize('mode', ['error', 'same', 'different'])
@pytest.mark.parametrize('i', range(len(RANDOM)), ids=[r[0] for r in RANDOM])
def test_vmap_random_ops_as_torch(i, mode):
    "torch's refusal (type and message), or torch's draw: litnn draws torch's stream, so the same seed gives the same numbers."
    _, f, in_dims = RANDOM[i]
    xa = np.random.default_rng(0).standard_normal((4, 3, 5)).astype('float32')
    pa = np.random.default_rng(1).random((4, 3, 5)).astype('float32')
    def run(T):
        x, y, p = T.tensor(xa), T.ones(3, 5), T.tensor(pa)
        if in_dims[2] is None: p = p[0]
        T.manual_seed(3)
        try: return T.func.vmap(lambda x, y, p: f(T, x, y, p), in_dims=in_dims, randomness=mode)(x, y, p), x
        except Exception as e: return e, None
    (a, xl), (b, xt) = run(litnn), run(torch)
    if isinstance(b, Exception):
        assert type(a) is type(b) or isinstance(a, type(b)), (a, b)
        assert str(a) == str(b)
        return
    assert not isinstance(a, Exception), a
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xl.numpy(), xt.numpy(), rtol=1e-5, atol=1e-6)    # what an in-place draw wrote into the caller's x


def test_jacfwd_randomness_as_torch():
    x = np.random.default_rng(0).random((3, 4)).astype('float32')
    for T in (torch, litnn):
        with pytest.raises(RuntimeError, match="randomness error mode"): T.func.jacfwd(T.bernoulli)(T.tensor(x))
    for mode in ('same', 'different'):
        a, b = litnn.func.jacfwd(litnn.bernoulli, randomness=mode)(litnn.tensor(x)), torch.func.jacfwd(torch.bernoulli, randomness=mode)(torch.tensor(x))
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    f = lambda T: (lambda t: t * T.rand(4))
    litnn.manual_seed(2); a = litnn.func.jacfwd(f(litnn), randomness='same')(litnn.tensor(x[0]))
    torch.manual_seed(2); b = torch.func.jacfwd(f(torch), randomness='same')(torch.tensor(x[0]))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)      # one draw for every basis vector: a diagonal of it


OUT_AND_EQUAL = [      # (name, f(T, a, b, o, ob)): a (3, 2) batched, b (2,) unbatched, o (2,) and ob (3, 2) outs
    ('abs out= batched', lambda T, a, b, o, ob: T.func.vmap(lambda x, y: T.abs(x, out=y))(a, ob)),
    ('abs out= unbatched, input batched', lambda T, a, b, o, ob: T.func.vmap(lambda x: T.abs(x, out=o))(a)),
    ('abs out= nothing batched', lambda T, a, b, o, ob: T.func.vmap(lambda x: T.abs(b, out=o))(a)),
    ('add out= batched out only', lambda T, a, b, o, ob: T.func.vmap(lambda y: T.add(b, b, out=y))(ob)),
    ('mul out=', lambda T, a, b, o, ob: T.func.vmap(lambda x, y: T.mul(x, 2, out=y))(a, ob)),
    ('matmul out=', lambda T, a, b, o, ob: T.func.vmap(lambda x, y: T.matmul(x, x, out=y))(a, ob[:, 0])),
    ('equal', lambda T, a, b, o, ob: T.func.vmap(T.equal)(a, a)),
    ('Tensor.equal one batched', lambda T, a, b, o, ob: T.func.vmap(lambda x: x.equal(b))(a)),
    ('equal nothing batched', lambda T, a, b, o, ob: T.func.vmap(lambda x: T.equal(b, b), out_dims=None)(a)),
    ('allclose', lambda T, a, b, o, ob: T.func.vmap(lambda x: T.allclose(x, b))(a)),
]


@pytest.mark.parametrize('i', range(len(OUT_AND_EQUAL)), ids=[c[0] for c in OUT_AND_EQUAL])
def test_vmap_out_variants_and_equal_as_torch(i):
    "out= with a batched tensor, equal and allclose of batched tensors: torch's RuntimeError in its words; unbatched: the plain result."
    f = OUT_AND_EQUAL[i][1]
    a = np.random.default_rng(0).standard_normal((3, 2))
    def run(T):
        try: return f(T, T.tensor(a), T.tensor(a[0]), T.zeros(2, dtype=T.float64), T.zeros(3, 2, dtype=T.float64))
        except Exception as e: return e
    x, y = run(litnn), run(torch)
    if isinstance(y, Exception):
        assert isinstance(x, type(y)) and str(x) == str(y), (x, y)
    elif isinstance(y, bool): assert x is y
    else: np.testing.assert_allclose(x.numpy(), y.numpy())


def _legacy_vmap_hessian(lib):
    "pytorch-minimize's Hessian: the legacy private vmap of torch._vmap_internals over autograd.grad with grad_outputs rows."
    import importlib, warnings
    vi = importlib.import_module(lib.__name__ + '._vmap_internals')
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)       # unused by f: its gradient is None
    g, = lib.autograd.grad((x.sin() * x ** 2).sum(), x, create_graph=True)
    hvp = lambda v: lib.autograd.grad(g, x, v, retain_graph=True)
    both = lambda v: lib.autograd.grad(g, (x, w), v, retain_graph=True, allow_unused=True)
    h, = vi._vmap(hvp)(lib.eye(3, dtype=lib.float64))
    hn, none = vi._vmap(both, allow_none_pass_through=True)(lib.eye(3, dtype=lib.float64))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        hd, = vi.vmap(hvp, out_dims=1)(lib.eye(3, dtype=lib.float64))
    return h.tolist(), hn.tolist(), none, hd.tolist(), [(c.category.__name__, str(c.message)) for c in caught]

def test_legacy_vmap_internals_as_torch():
    "torch._vmap_internals._vmap (pytorch-minimize imports it): batched autograd.grad, None passed through, vmap deprecated."
    l, t = _legacy_vmap_hessian(litnn), _legacy_vmap_hessian(torch)
    for a, b in zip(l[:2] + l[3:4], t[:2] + t[3:4]): np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert l[2] is t[2] is None and l[4] == t[4]

"""litnn.func's transforms (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian) against torch.func on the same inputs (33_function_transforms)."""
import numpy as np
import pytest
import litnn
torch = pytest.importorskip('torch')
import torch.func

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])


def pair(shape, dtype='float64', seed=0, device='cpu'):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return litnn.tensor(a, device=device), torch.tensor(a)


def close(ours, theirs, tol=1e-10):
    "Trees of tensors equal in structure, shape and value."
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs): close(o, t, tol)
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for k in theirs: close(ours[k], theirs[k], tol)
    else:
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


SCALAR_FUNCS = {
    'sin_sum': lambda T, x, y: x.sin().sum(),
    'product': lambda T, x, y: (x * y).sum() + (x ** 3).mean(),
    'matmul': lambda T, x, y: (x @ y.t()).tanh().sum(),
    'softmax': lambda T, x, y: (x.softmax(-1) * y).sum() + x.exp().logsumexp(0).sum(),
    'unused_y': lambda T, x, y: x.abs().sum(),
}


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('argnums', [0, 1, (0, 1), (1,)])
@pytest.mark.parametrize('name', SCALAR_FUNCS)
def test_grad_and_value_against_torch(name, argnums, dtype):
    f = SCALAR_FUNCS[name]
    (x, tx), (y, ty) = pair((3, 4), dtype), pair((3, 4), dtype, seed=1)
    tol = 1e-10 if dtype == 'float64' else 1e-5
    close(litnn.func.grad(lambda a, b: f(litnn, a, b), argnums)(x, y), torch.func.grad(lambda a, b: f(torch, a, b), argnums)(tx, ty), tol)
    g, v = litnn.func.grad_and_value(lambda a, b: f(litnn, a, b), argnums)(x, y)
    tg, tv = torch.func.grad_and_value(lambda a, b: f(torch, a, b), argnums)(tx, ty)
    close(g, tg, tol); close(v, tv, tol)
    assert not v.requires_grad and not any(t.requires_grad for t in (g if isinstance(g, tuple) else (g,)))


def test_nested_grad_higher_derivatives():
    x, tx = litnn.tensor(0.7, dtype=litnn.float64), torch.tensor(0.7, dtype=torch.float64)
    f = lambda T: (lambda a: a.sin() * a ** 3)
    g, tg = f(litnn), f(torch)
    for _ in range(4):
        g, tg = litnn.func.grad(g), torch.func.grad(tg)
        close(g(x), tg(tx))


def test_grad_of_closure_and_mixed_nesting():
    (x, tx), (y, ty) = pair((3,)), pair((3,), seed=1)
    def f(T):
        return lambda a: T.func.grad(lambda b: (a * b.sin()).sum())(a * 2).pow(2).sum()
    close(litnn.func.grad(f(litnn))(x), torch.func.grad(f(torch))(tx))
    # a grad inside ordinary autograd: differentiable when the input requires grad
    xr = x.clone().requires_grad_()
    litnn.func.grad(lambda a: (a ** 3).sum())(xr).sum().backward()
    close(xr.grad, 6 * tx)


def test_grad_trees_and_aux():
    (w, tw), (b, tb), (x, tx) = pair((2, 3)), pair((2,), seed=1), pair((5, 3), seed=2)
    f = lambda T: (lambda p, a: (((a @ p['w'].t() + p['b']).tanh() ** 2).sum(), {'out': a.sum()}))
    g, aux = litnn.func.grad(f(litnn), has_aux=True)({'w': w, 'b': b}, x)
    tg, taux = torch.func.grad(f(torch), has_aux=True)({'w': tw, 'b': tb}, tx)
    close(g, tg); close(aux, taux)
    g, (v, aux) = litnn.func.grad_and_value(f(litnn), has_aux=True)({'w': w, 'b': b}, x)
    tg, (tv, taux) = torch.func.grad_and_value(f(torch), has_aux=True)({'w': tw, 'b': tb}, tx)
    close(g, tg); close(v, tv); close(aux, taux)
    close(litnn.func.grad(lambda ps: sum((p ** 2).sum() for p in ps))([w, b]), torch.func.grad(lambda ps: sum((p ** 2).sum() for p in ps))([tw, tb]))


def test_grad_of_a_model_matches_backward():
    litnn.manual_seed(0)
    model = litnn.nn.Sequential(litnn.nn.Linear(4, 6), litnn.nn.ReLU(), litnn.nn.Linear(6, 3))
    x, y = litnn.randn(8, 4), litnn.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    params = {k: v.detach() for k, v in model.named_parameters()}
    loss = lambda p: litnn.nn.functional.cross_entropy(litnn.func.functional_call(model, p, x), y)
    g = litnn.func.grad(loss)(params)
    litnn.nn.functional.cross_entropy(model(x), y).backward()
    for k, p in model.named_parameters(): np.testing.assert_allclose(g[k].numpy(), p.grad.numpy(), rtol=1e-6, atol=1e-7)


GRAD_ERRORS = [
    lambda T, x: T.func.grad(lambda a: a)(x),
    lambda T, x: T.func.grad(lambda a: 3.)(x),
    lambda T, x: T.func.grad(lambda a: a.sum(), argnums=2)(x),
    lambda T, x: T.func.grad(lambda a: a.sum(), argnums=1.5)(x),
    lambda T, x: T.func.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x),
    lambda T, x: T.func.grad(lambda a: a.sum(), argnums=())(x),
    lambda T, x: T.func.grad(lambda a: a.sum(), has_aux=True)(x),
    lambda T, x: T.func.grad(lambda a: (a.sum(), 1, 2), has_aux=True)(x),
    lambda T, x: T.func.grad(lambda a: a.sum())(3.),
    lambda T, x: T.func.grad(lambda a: a.sum())(),
    lambda T, x: T.func.jvp(lambda a: a, x, x),
    lambda T, x: T.func.jvp(lambda a: a, (x,), (x, x)),
    lambda T, x: T.func.jvp(lambda a: a, (x,), (T.ones(2),)),
    lambda T, x: T.func.jvp(lambda a: a, (x,), x),
    lambda T, x: T.func.vjp(lambda a: a, x)[1](T.ones(2)),
    lambda T, x: T.func.vjp(lambda a: 3, x),
    # torch's checks of auxes, outputs, primals/tangents, argnums, complex numbers and chunk sizes (test_eager_transforms.py)
    lambda T, x: T.func.grad(lambda a: (a.sum(), 1), has_aux=True)(x),
    lambda T, x: T.func.grad(lambda a: (a.sum(), [a, 'abc']), has_aux=True)(x),
    lambda T, x: T.func.grad(lambda a: (a.sum(), None), has_aux=True)(x),
    lambda T, x: T.func.vjp(lambda a: (a, 1.0), x, has_aux=True),
    lambda T, x: T.func.vjp(lambda a: None, x),
    lambda T, x: T.func.vjp(lambda a: (), x),
    lambda T, x: T.func.jvp(lambda a: (a, 'abc'), (x,), (x,), has_aux=True),
    lambda T, x: T.func.jvp(lambda a: None, (x,), (x,)),
    lambda T, x: T.func.jvp(T.sin, (), ()),
    lambda T, x: T.func.jvp(lambda a: a, ((),), ((),)),
    lambda T, x: T.func.jvp(T.sin, (1.0,), (x,)),
    lambda T, x: T.func.jvp(T.sin, (x,), (1.0,)),
    lambda T, x: T.func.jvp(lambda a, b: a, ((x, x), 1), ((x, x), x)),
    lambda T, x: T.func.jvp(lambda a: (a, T.zeros(3)), (x,), (x,), strict=True),
    lambda T, x: T.func.jacrev(lambda a: None)(x),
    lambda T, x: T.func.jacfwd(lambda a: ())(x),
    lambda T, x: T.func.jacrev(lambda a: 1)(x),
    lambda T, x: T.func.jacfwd(lambda a: 1)(x),
    lambda T, x: T.func.jacrev(lambda a: (a, 'abc'), has_aux=True)(x),
    lambda T, x: T.func.jacfwd(lambda a: (a, 'abc'), has_aux=True)(x),
    lambda T, x: T.func.jacrev(lambda a: [a, a], has_aux=True)(x),
    lambda T, x: T.func.jacfwd(lambda a: [a, a], has_aux=True)(x),
    lambda T, x: T.func.jacrev(lambda a: a.conj())(x.to(T.cfloat)),
    lambda T, x: T.func.jacfwd(lambda a: a.conj())(x.to(T.cfloat)),
    lambda T, x: T.func.jacrev(lambda a: a * 0.5j)(x),
    lambda T, x: T.func.jacfwd(lambda a: a * 0.5j)(x),
    lambda T, x: T.func.hessian(lambda a: a.abs().sum())(x.to(T.cfloat)),
    lambda T, x: T.func.jacrev(T.sin, chunk_size=0)(x),
    lambda T, x: T.func.grad(T.mul, argnums=("0",))(x[0], x[1]),
    lambda T, x: T.func.grad(T.mul, argnums=(0, -2))(x[0], x[1]),
    lambda T, x: T.func.jacrev(T.mul, argnums=(1, 0.0))(x, x),
]


@pytest.mark.parametrize('i', range(len(GRAD_ERRORS)))
def test_errors_as_torch(i):
    f = GRAD_ERRORS[i]
    with pytest.raises(Exception) as te: f(torch, torch.ones(3))
    with pytest.raises(te.type) as le: f(litnn, litnn.ones(3))
    theirs = str(te.value).split(' Got primals with structure')[0].replace('torch.Size', 'litnn.Size')
    assert theirs in str(le.value), (str(te.value), str(le.value))


def test_vjp_against_torch():
    (x, tx), (y, ty) = pair((3, 4)), pair((4,), seed=1)
    f = lambda T: (lambda a, b: ((a @ b).sin(), a * b))
    out, fn = litnn.func.vjp(f(litnn), x, y)
    tout, tfn = torch.func.vjp(f(torch), tx, ty)
    close(out, tout)
    (c1, tc1), (c2, tc2) = pair((3,), seed=3), pair((3, 4), seed=4)
    close(fn((c1, c2)), tfn((tc1, tc2)))
    close(fn((2 * c1, c2)), tfn((2 * tc1, tc2)))          # called again
    out, fn, aux = litnn.func.vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)
    tout, tfn, taux = torch.func.vjp(lambda a: (a.exp(), a.sum()), tx, has_aux=True)
    close(aux, taux); close(fn(c2), tfn(tc2))


def test_jvp_against_torch():
    (x, tx), (y, ty), (u, tu), (v, tv) = pair((3, 4)), pair((4,), seed=1), pair((3, 4), seed=2), pair((4,), seed=3)
    f = lambda T: (lambda a, b: ((a @ b).sin(), (a * b).exp()))
    close(litnn.func.jvp(f(litnn), (x, y), (u, v)), torch.func.jvp(f(torch), (tx, ty), (tu, tv)))
    ours = litnn.func.jvp(lambda a: (a.tanh(), a.sum()), (x,), (u,), has_aux=True)
    theirs = torch.func.jvp(lambda a: (a.tanh(), a.sum()), (tx,), (tu,), has_aux=True)
    close(ours, theirs)



def test_jvp_of_a_dict_of_parameters_keeps_their_graph():
    "torch's forward-mode tutorial: jvp over a dict of parameters that require grad; the output stays differentiable in them."
    res = {}
    for T in (litnn, torch):
        T.manual_seed(0)
        model = T.nn.Linear(3, 2)
        inp = T.tensor(np.random.default_rng(0).standard_normal((4, 3)), dtype=T.float32)
        params = dict(model.named_parameters())
        tangents = {k: T.ones_like(p) for k, p in params.items()}
        out, tangent = T.func.jvp(lambda p: T.func.functional_call(model, p, inp), (params,), (tangents,))
        assert out.requires_grad
        (out * out).sum().backward()
        res[T] = out, tangent, model.weight.grad, model.bias.grad
    close(res[litnn], res[torch], tol=1e-6)

JAC_FUNCS = {
    'elementwise': (lambda T, x, y: x.sin() * y, (3,), (3,)),
    'matrix_out': (lambda T, x, y: T.outer(x, y).tanh(), (3,), (2,)),
    'tuple_out': (lambda T, x, y: (x.sum() * y, (x ** 2).cumsum(0)), (3,), (2,)),
    'matrix_in': (lambda T, x, y: (x @ y).softmax(0), (2, 3), (3,)),
    'scalar_out': (lambda T, x, y: (x * x).sum() + y.sum(), (2, 2), (2,)),
}


@pytest.mark.parametrize('argnums', [0, 1, (0, 1)])
@pytest.mark.parametrize('name', JAC_FUNCS)
def test_jacobians_against_torch(name, argnums):
    f, xs, ys = JAC_FUNCS[name]
    (x, tx), (y, ty) = pair(xs), pair(ys, seed=1)
    theirs = torch.func.jacrev(lambda a, b: f(torch, a, b), argnums)(tx, ty)
    close(litnn.func.jacrev(lambda a, b: f(litnn, a, b), argnums)(x, y), theirs)
    close(litnn.func.jacfwd(lambda a, b: f(litnn, a, b), argnums)(x, y), torch.func.jacfwd(lambda a, b: f(torch, a, b), argnums)(tx, ty))


def test_jacobian_aux_and_hessian():
    (x, tx), (y, ty) = pair((3,)), pair((2, 3), seed=1)
    j, aux = litnn.func.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(x)
    tj, taux = torch.func.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(tx)
    close(j, tj); close(aux, taux)
    j, aux = litnn.func.jacfwd(lambda a: (a.exp(), a.sum()), has_aux=True)(x)
    close(j, tj); close(aux, taux)
    f = lambda T: (lambda a, b: ((b @ a).tanh() ** 2).sum() + (a ** 4).sum())
    close(litnn.func.hessian(f(litnn))(x, y), torch.func.hessian(f(torch))(tx, ty))
    close(litnn.func.hessian(f(litnn), argnums=(0, 1))(x, y), torch.func.hessian(f(torch), argnums=(0, 1))(tx, ty))


def test_hessian_by_finite_differences():
    x = litnn.tensor([0.3, -0.2, 0.5], dtype=litnn.float64)
    f = lambda a: (a.sin() * a.roll(1, 0)).sum() + (a ** 3).prod()
    H = litnn.func.hessian(f)(x).numpy()
    g = lambda a: litnn.func.grad(f)(litnn.tensor(a)).numpy()
    eps = 1e-6
    fd = np.stack([(g(x.numpy() + eps * e) - g(x.numpy() - eps * e)) / (2 * eps) for e in np.eye(3)], 1)
    np.testing.assert_allclose(H, fd, rtol=1e-6, atol=1e-7)


def test_functional_call_tuple_of_dicts():
    litnn.manual_seed(0)
    model = litnn.nn.Sequential(litnn.nn.Linear(3, 4), litnn.nn.BatchNorm1d(4)).eval()
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)).eval()
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    x, tx = pair((5, 3), 'float32')
    params = {k: v * 2 for k, v in model.named_parameters()}
    tparams = {k: v * 2 for k, v in tmodel.named_parameters()}
    ours = litnn.func.functional_call(model, (params, dict(model.named_buffers())), (x,))
    theirs = torch.func.functional_call(tmodel, (tparams, dict(tmodel.named_buffers())), (tx,))
    close(ours, theirs, 1e-5)
    for bad in [(params, params), 3, (params, 3)]:
        with pytest.raises(ValueError) as te: torch.func.functional_call(tmodel, bad if bad != (params, params) else (tparams, tparams), (tx,))
        with pytest.raises(ValueError) as le: litnn.func.functional_call(model, bad, (x,))
        assert str(te.value).split(' but got')[0].split('[')[0] in str(le.value)


@pytest.mark.parametrize('device', DEVICES)
def test_transforms_on_device(device):
    x, tx = pair((3,), 'float32', device=device)
    close(litnn.func.grad(lambda a: a.sin().sum())(x), torch.func.grad(lambda a: a.sin().sum())(tx), 1e-5)
    close(litnn.func.jacfwd(lambda a: a.exp())(x), torch.func.jacfwd(lambda a: a.exp())(tx), 1e-5)


def test_transforms_take_any_pytree_as_torch():
    "torch.func takes arguments apart with torch.utils._pytree: namedtuples, OrderedDicts and registered types are nodes."
    import collections
    res = []
    for lib in (torch, litnn):
        P = collections.namedtuple('P', 'w b')
        p = P(lib.tensor([1., 2.]), collections.OrderedDict(s=lib.tensor(3.)))
        g = lib.func.grad(lambda p, x: ((p.w * x).sum() + p.b['s'] ** 2))(p, lib.tensor([4., 5.]))
        assert type(g).__name__ == 'P' and isinstance(g.b, collections.OrderedDict)
        v = lib.vmap(lambda p: p.w.sum() * p.b['s'], in_dims=(P(0, collections.OrderedDict(s=None)),))(P(lib.ones(3, 2), collections.OrderedDict(s=lib.tensor(2.))))
        res.append((g.w.tolist(), g.b['s'].item(), v.tolist()))
    assert res[0] == res[1]


def test_jacrev_chunk_size_arguments_as_torch():
    "jacrev's chunk_size (and torch's private _preallocate_and_copy) give the same Jacobians."
    (x, tx), (y, ty) = pair((10, 2)), pair((1, 2), seed=1)
    f = lambda T: (lambda a, b: ((a.sin(), a + b), (a + 2, a.sum())))
    for chunk in (1, 3, 1000):
        for pre in (True, False):
            close(litnn.func.jacrev(f(litnn), argnums=(0, 1), chunk_size=chunk, _preallocate_and_copy=pre)(x, y),
                  torch.func.jacrev(f(torch), argnums=(0, 1), chunk_size=chunk, _preallocate_and_copy=pre)(tx, ty))


def test_no_grad_around_transforms_as_torch():
    "no_grad where a transform is called hides its results' history from outside; the transform still differentiates."
    def run(T):
        res = []
        x = T.tensor(1.5, dtype=T.float64, requires_grad=True)
        with T.no_grad(): y = T.func.grad(T.sin)(x)
        res.append((y.item(), y.requires_grad))
        def f(a):
            with T.no_grad(): shift = a ** 2
            return a ** 2 - shift
        with T.no_grad(): y = T.func.grad(f)(x)
        res.append((y.item(), y.requires_grad))
        def h(a):
            with T.no_grad(): shift = T.func.grad(lambda b: 0.25 * b ** 4)(a)
            return a ** 3 - shift
        y = T.func.grad(h)(x)
        (z,) = T.autograd.grad(y, x)
        res.append((y.item(), z.item()))
        def h2(a):
            with T.no_grad(): _, value = T.func.grad_and_value(lambda b: b ** 3)(a)
            return a ** 3 - value
        y = T.func.grad(h2)(x)
        res.append((y.item(), T.autograd.grad(y, x)[0].item()))
        with T.no_grad():
            out, vjp_fn = T.func.vjp(lambda a: a ** 2, x)
            (g,) = vjp_fn(T.tensor(1.0, dtype=T.float64))
        res.append((out.requires_grad, g.requires_grad))
        out, vjp_fn = T.func.vjp(lambda a: a ** 2, x)
        with T.no_grad(): (g,) = vjp_fn(T.tensor(1.0, dtype=T.float64))
        res.append((out.requires_grad, g.requires_grad))
        with T.no_grad(): out, vjp_fn = T.func.vjp(lambda a: a ** 2, x)
        (g,) = vjp_fn(T.tensor(1.0, dtype=T.float64))
        res.append((out.requires_grad, g.requires_grad, T.autograd.grad(g, x)[0].item()))
        return res
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('name', ['relu_times_x', 'relu_squared', 'leaky_relu', 'multi_input'])
def test_hessian_through_relu_as_torch(name):
    "hessian (jacfwd over jacrev) through relu-like gradients that read their own result."
    fs = dict(relu_times_x=lambda T, x, y, z: (x.relu() * x).sum() + (y * z.sum()).sum(),
              relu_squared=lambda T, x, y, z: (x.relu() ** 2).sum() * y.sum() + z.relu().sum(),
              leaky_relu=lambda T, x, y, z: (T.nn.functional.leaky_relu(x, 0.1) * x).sum() + (y.relu() * z[:3]).sum(),
              multi_input=lambda T, x, y, z: ((x.relu() * x) @ y.sin() @ z).sum())
    (x, tx), (y, ty), (z, tz) = pair((2, 3)), pair((3, 5), seed=1), pair((5, 5), seed=2)
    f = fs[name]
    close(litnn.func.hessian(lambda a: f(litnn, *a))((x, y, z)), torch.func.hessian(lambda a: f(torch, *a))((tx, ty, tz)))


def test_function_without_setup_context_refused_by_transforms_as_torch():
    "An autograd.Function whose forward takes ctx (no setup_context) is refused inside torch.func's transforms, not outside."
    def run(T):
        class MySin(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin()
            @staticmethod
            def backward(ctx, gy):
                (x,) = ctx.saved_tensors
                return gy * x.cos()
        x = T.tensor([0.1, 0.5, -1.0], dtype=T.float64)
        calls = [lambda: T.func.grad(lambda a: MySin.apply(a).sum())(x), lambda: T.func.jacrev(MySin.apply)(x),
                 lambda: T.func.jacfwd(MySin.apply)(x), lambda: T.func.vjp(MySin.apply, x), lambda: T.func.jvp(MySin.apply, (x,), (x,)),
                 lambda: T.func.hessian(lambda a: MySin.apply(a).sum())(x)]
        msgs = []
        for c in calls:
            with pytest.raises(RuntimeError) as e: c()
            msgs.append(str(e.value))
        xr = x.clone().requires_grad_()
        (g,) = T.autograd.grad(MySin.apply(xr).sum(), xr)   # outside a transform: allowed
        return msgs, g.tolist()
    assert run(litnn) == run(torch)


def test_reverse_transforms_refuse_saved_tensor_hooks_as_torch():
    "grad, grad_and_value, vjp, jacrev, hessian refuse saved tensor hooks set around them or inside; jvp and jacfwd take them."
    def run(T):
        x = T.tensor([0.1, 0.5, -1.0], dtype=T.float64)
        f = lambda a: a.sin().sum()
        def g(a):
            with T.autograd.graph.save_on_cpu(): return f(a)
        res = []
        calls = dict(grad=lambda h: T.func.grad(h)(x), grad_and_value=lambda h: T.func.grad_and_value(h)(x), vjp=lambda h: T.func.vjp(h, x),
                     jacrev=lambda h: T.func.jacrev(h)(x), hessian=lambda h: T.func.hessian(h)(x), jacfwd=lambda h: T.func.jacfwd(h)(x),
                     jvp=lambda h: T.func.jvp(h, (x,), (x,)), vmap_grad=lambda h: T.func.vmap(T.func.grad(h))(x[None]))
        for name, call in calls.items():
            for where in ('around', 'inside'):
                try:
                    if where == 'around':
                        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t): call(f)
                    else: call(g)
                    res.append((name, where, 'ok'))
                except RuntimeError as e: res.append((name, where, str(e)))
        with T.autograd.graph.save_on_cpu(): pass   # hooks work again afterwards
        return res
    assert run(litnn) == run(torch)


def test_autograd_functional_and_retain_grad_refused_inside_transforms_as_torch():
    "torch.autograd.functional.* and Tensor.retain_grad() inside grad / vjp / jacrev (and autograd.functional inside vmap) refuse, as torch's."
    def run(T):
        AF = T.autograd.functional
        x3, x0 = T.tensor([0.1, 0.5, -1.0], dtype=T.float64), T.tensor(0.3, dtype=T.float64)
        calls = [lambda: T.func.grad(lambda a: AF.jacobian(lambda b: b.sin().sum(), a))(x0),
                 lambda: T.func.grad(lambda a: AF.vjp(lambda b: b.sin().sum(), a)[1])(x0),
                 lambda: T.func.grad(lambda a: AF.hessian(lambda b: (b ** 3).sum(), a))(x0),
                 lambda: T.func.jacrev(lambda a: AF.jacobian(lambda b: b.sin(), a))(x3),
                 lambda: T.func.vmap(lambda a: AF.jacobian(lambda b: b.sin().sum(), a))(x3.reshape(3, 1)),
                 lambda: T.func.vmap(lambda a: AF.vjp(lambda b: b.sin().sum(), a)[1])(x3.reshape(3, 1)),
                 lambda: T.func.grad(lambda a: (a.sin().retain_grad(), a.sum())[1])(x3),
                 lambda: T.func.vjp(lambda a: (a.sin().retain_grad(), a)[1], x3)]
        msgs = []
        for c in calls:
            with pytest.raises(RuntimeError) as e: c()
            msgs.append(str(e.value))
        # outside a transform both still work
        y = x3.clone().requires_grad_().sin()
        y.retain_grad()
        return msgs, AF.jacobian(lambda b: b.sin(), x3).tolist()
    assert run(litnn) == run(torch)



# requires_grad_() inside a transform (10_tensor `_refuse_in_transform`): torch refuses the method for any tensor, and
# sets the flag itself (factories' requires_grad=, Parameter, the attribute) without asking.
def _rg_captured(T, x):
    def f(y): x.requires_grad_(); return (x * y).sum()
    return f
REQUIRES_GRAD_IN_TRANSFORMS = [
    ('grad captured', lambda T, x: T.func.grad(_rg_captured(T, x))(T.ones(2))),
    ('grad inner', lambda T, x: T.func.grad(lambda y: (T.ones(2).requires_grad_() * y).sum())(T.ones(2))),
    ('grad input False', lambda T, x: T.func.grad(lambda y: y.requires_grad_(False).sum())(T.ones(2))),
    ('grad attribute', lambda T, x: T.func.grad(lambda y: (T.ones(2).__setattr__('requires_grad', True) or y * 2).sum())(T.ones(2))),
    ('grad factory', lambda T, x: T.func.grad(lambda y: (T.ones(2, requires_grad=True) * y).sum())(T.ones(2))),
    ('grad tensor()', lambda T, x: T.func.grad(lambda y: (T.tensor([1., 2.], requires_grad=True) * y).sum())(T.ones(2))),
    ('grad Parameter', lambda T, x: T.func.grad(lambda y: (T.nn.Parameter(T.ones(2)) * y).sum())(T.ones(2))),
    ('vmap', lambda T, x: T.func.vmap(lambda y: y.requires_grad_())(T.ones(3, 2))),
    ('vmap inner', lambda T, x: T.func.vmap(lambda y: T.ones(2).requires_grad_() * y)(T.ones(3, 2))),
    ('jvp', lambda T, x: T.func.jvp(lambda y: T.ones(2).requires_grad_() * y, (T.ones(2),), (T.ones(2),))[1]),
    ('vjp', lambda T, x: T.func.vjp(lambda y: T.ones(2).requires_grad_() * y, T.ones(2))[0]),
    ('jacrev', lambda T, x: T.func.jacrev(lambda y: x.requires_grad_() * y)(T.ones(2))),
    ('outside', lambda T, x: x.requires_grad_()),
]


@pytest.mark.parametrize('i', range(len(REQUIRES_GRAD_IN_TRANSFORMS)), ids=[c[0] for c in REQUIRES_GRAD_IN_TRANSFORMS])
def test_requires_grad_inside_transforms_as_torch(i):
    f = REQUIRES_GRAD_IN_TRANSFORMS[i][1]
    def run(T):
        try: return f(T, T.ones(2))
        except Exception as e: return e
    a, b = run(litnn), run(torch)
    if isinstance(b, Exception):
        assert isinstance(a, type(b)) and str(a) == str(b), (a, b)
    else:
        assert not isinstance(a, Exception), a
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy())

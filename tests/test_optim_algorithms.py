"""The algorithms of torch.optim beyond SGD, Adam, AdamW and RMSprop (those are in test_optim.py; Adafactor and Muon have
their own files). Adadelta, Adagrad, Adamax, NAdam, RAdam, ASGD, Rprop, SparseAdam and LBFGS side by side with torch.optim: 25 steps from the
same start give the same parameters (float64 to 1e-12, float32 to 2e-5) and state dicts over grids of options;
checkpoints cross between the libraries; hooks run in torch's order; bad arguments raise torch's errors."""
import inspect
import importlib, itertools, warnings

import numpy as np
import pytest

import litnn
from nn_pairs import err
from test_optim import compare, make, run, arrays, grad_seq, to_np, to_lib, assert_same_tree, params

torch = pytest.importorskip('torch')

GRIDS = {
    'Adadelta': [dict(lr=lr, rho=rho, eps=eps, weight_decay=wd, maximize=mx)
                 for lr, rho, eps, wd, mx in itertools.product([1.0, 0.3], [0.9, 0.5], [1e-6, 1e-3], [0, 0.1], [False, True])],
    'Adagrad': [dict(lr=0.1, lr_decay=ld, weight_decay=wd, initial_accumulator_value=iv, eps=eps, maximize=mx)
                for ld, wd, iv, eps, mx in itertools.product([0, 0.05], [0, 0.1], [0, 0.5], [1e-10, 1e-3], [False, True])],
    'Adamax': [dict(lr=0.05, betas=b, eps=eps, weight_decay=wd, maximize=mx)
               for b, eps, wd, mx in itertools.product([(0.9, 0.999), (0.5, 0.7)], [1e-8, 1e-2], [0, 0.1], [False, True])],
    'NAdam': [dict(lr=0.05, betas=b, eps=eps, weight_decay=wd, momentum_decay=md, decoupled_weight_decay=dw, maximize=mx)
              for b, eps, wd, md, dw, mx in itertools.product([(0.9, 0.999), (0.5, 0.7)], [1e-8, 1e-2], [0, 0.1], [4e-3, 0.1],
                                                             [False, True], [False, True])],
    'RAdam': [dict(lr=0.05, betas=b, eps=eps, weight_decay=wd, decoupled_weight_decay=dw, maximize=mx)
              for b, eps, wd, dw, mx in itertools.product([(0.9, 0.999), (0.5, 0.7)], [1e-8, 1e-2], [0, 0.1], [False, True],
                                                         [False, True])],
    'ASGD': [dict(lr=0.05, lambd=lam, alpha=al, t0=t0, weight_decay=wd, maximize=mx)
             for lam, al, t0, wd, mx in itertools.product([1e-4, 0.5], [0.75, 0.3], [1e6, 5], [0, 0.1], [False, True])],
    'Rprop': [dict(lr=lr, etas=e, step_sizes=s, maximize=mx)
              for lr, e, s, mx in itertools.product([0.01, 0.2], [(0.5, 1.2), (0.3, 1.7)], [(1e-6, 50), (0.005, 0.1)], [False, True])],
}
CASES = [(name, kw) for name, grid in GRIDS.items() for kw in grid]


@pytest.mark.parametrize('name,kw', CASES, ids=[f"{n}-{kw}" for n, kw in CASES])
def test_matches_torch_over_25_steps(name, kw): compare(name, kw, steps=25)


FLAGS = {'Adadelta': dict(foreach=False, capturable=False), 'Adagrad': dict(foreach=False, fused=None),
         'Adamax': dict(foreach=False, capturable=False), 'NAdam': dict(foreach=False, capturable=False),
         'RAdam': dict(foreach=False, capturable=False), 'ASGD': dict(foreach=False, capturable=False),
         'Rprop': dict(foreach=False, capturable=False)}


@pytest.mark.parametrize('name', list(GRIDS))
def test_float32_groups_holes_and_flags(name):
    "float32; two groups with their own lr; a parameter skipped on some steps; torch's implementation flags accepted."
    kw = {**GRIDS[name][1], **FLAGS[name]}
    compare(name, kw, steps=20, dtype=np.float32)
    groups = [([0, 2], {}), ([1], {'lr': 0.02})]
    compare(name, kw, steps=20, groups=groups, holes=True)


@pytest.mark.parametrize('name', list(GRIDS))
def test_state_dict_crosses_libraries(name):
    "torch's state dict loads into litnn (and back) and both continue identically; the dicts have the same structure."
    kw = GRIDS[name][3]
    arrs, g1, g2 = arrays(5), grad_seq(6, 8), grad_seq(7, 8)
    (tp, to) = make(torch, name, kw, arrs)
    run(torch, tp, to, g1)
    (lp, lo) = make(litnn, name, kw, [p.detach().numpy() for p in tp])
    lo.load_state_dict(to_lib(litnn, to.state_dict()))
    (tp, reloaded) = make(torch, name, kw, [p.detach().numpy() for p in tp])
    reloaded.load_state_dict(to.state_dict())        # loading casts float state (NAdam's mu_product...) to the parameter's dtype
    assert_same_tree(to_np(lo.state_dict()), to_np(reloaded.state_dict()), 0, 0)
    run(litnn, lp, lo, g2); run(torch, tp, reloaded, g2)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    (tp2, to2) = make(torch, name, kw, [p.detach().numpy() for p in lp])
    to2.load_state_dict(to_lib(torch, lo.state_dict()))
    run(torch, tp2, to2, g1); run(litnn, lp, lo, g1)
    for a, b in zip(lp, tp2): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_adagrad_state_exists_before_the_first_step():
    arrs = arrays(1)
    (_, lo), (_, to) = make(litnn, 'Adagrad', dict(initial_accumulator_value=0.3), arrs), make(torch, 'Adagrad', dict(initial_accumulator_value=0.3), arrs)
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 0, 0)


BAD = [('Adadelta', dict(lr=-1)), ('Adadelta', dict(rho=1.1)), ('Adadelta', dict(eps=-1)), ('Adadelta', dict(weight_decay=-1)),
       ('Adagrad', dict(lr=-1)), ('Adagrad', dict(lr_decay=-1)), ('Adagrad', dict(weight_decay=-1)),
       ('Adagrad', dict(initial_accumulator_value=-1)), ('Adagrad', dict(eps=-1)),
       ('Adamax', dict(lr=-1)), ('Adamax', dict(eps=-1)), ('Adamax', dict(betas=(1.0, 0.9))), ('Adamax', dict(betas=(0.9, -0.1))),
       ('Adamax', dict(weight_decay=-1)), ('NAdam', dict(momentum_decay=-1)), ('NAdam', dict(betas=(0.9, 1.0))),
       ('NAdam', dict(weight_decay=-0.1)), ('RAdam', dict(lr=-1)), ('RAdam', dict(betas=(-0.1, 0.9))), ('RAdam', dict(eps=-1e-3)),
       ('ASGD', dict(lr=-1)), ('ASGD', dict(weight_decay=-1)), ('Rprop', dict(lr=-1)), ('Rprop', dict(etas=(1.1, 1.2))),
       ('Rprop', dict(etas=(0.5, 0.9))), ('SparseAdam', dict(lr=0)), ('SparseAdam', dict(eps=0)),
       ('SparseAdam', dict(betas=(1.0, 0.9))), ('Adagrad', dict(fused=True, foreach=True))]


@pytest.mark.parametrize('name,kw', BAD, ids=[f"{n}-{kw}" for n, kw in BAD])
def test_bad_arguments_raise_torchs_errors(name, kw):
    def f(lib): return getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], **kw)
    assert err(f, litnn) == err(f, torch)


def test_tensor_lr_must_have_one_element():
    for name in GRIDS:
        def f(lib): return getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], lr=lib.ones(2))
        assert err(f, litnn) == err(f, torch)


def test_sparse_adam_refuses_dense_gradients_as_torch():
    def f(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SparseAdam([p])
        opt.step()                      # without gradients: nothing happens
        p.grad = lib.ones(2)
        opt.step()
    assert err(f, litnn) == err(f, torch)
    assert str(litnn.optim.SparseAdam([litnn.nn.Parameter(litnn.ones(1))])) == str(torch.optim.SparseAdam([torch.nn.Parameter(torch.ones(1))]))


@pytest.mark.parametrize('params', [lambda L: [L.zeros(2, 2).to_sparse().requires_grad_()], lambda L: [L.zeros(2, dtype=L.complex64, requires_grad=True)],
                                    lambda L: [{'params': [L.ones(2, requires_grad=True)]}, {'params': [L.ones(1, requires_grad=True), L.zeros(2, 2).to_sparse().requires_grad_()]}]])
def test_sparse_adam_refuses_sparse_and_complex_parameters(params):
    "SparseAdam's parameters are dense and real: torch names the [group, index] of each one that is not."
    f = lambda lib: lib.optim.SparseAdam(params(lib))
    assert err(f, litnn) == err(f, torch)


@pytest.mark.parametrize('name', list(GRIDS) + ['SGD', 'Adam', 'AdamW', 'RMSprop'])
def test_reprs_and_defaults_match_torch(name):
    (_, lo), (_, to) = make(litnn, name, {}, arrays(0)), make(torch, name, {}, arrays(0))
    assert str(lo) == str(to) and lo.defaults == to.defaults


# --- the machinery shared by all optimizers ----------------------------------------------------------------

def hook_log(lib, name):
    "The calls of every kind of hook around step, state_dict and load_state_dict, in order."
    calls = []
    p = lib.nn.Parameter(lib.ones(2, dtype=lib.float64))
    opt = getattr(lib.optim, name)([p])
    optimizer_module = importlib.import_module(lib.__name__ + '.optim.optimizer')
    g1 = optimizer_module.register_optimizer_step_pre_hook(lambda o, a, k: calls.append('global pre'))
    g2 = optimizer_module.register_optimizer_step_post_hook(lambda o, a, k: calls.append('global post'))
    opt.register_step_pre_hook(lambda o, a, k: calls.append(('pre', len(a), sorted(k))))
    h = opt.register_step_post_hook(lambda o, a, k: calls.append('post'))
    opt.register_state_dict_pre_hook(lambda o: calls.append('sd pre'))
    opt.register_state_dict_pre_hook(lambda o: calls.append('sd pre first'), prepend=True)
    opt.register_state_dict_post_hook(lambda o, sd: calls.append(('sd post', sorted(sd))) or {**sd, 'note': 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: calls.append(('load pre', sorted(sd))) or {k: v for k, v in sd.items() if k != 'note'})
    opt.register_load_state_dict_post_hook(lambda o: calls.append('load post'))
    try:
        p.grad = lib.ones(2, dtype=lib.float64)
        opt.step()
        h.remove()
        opt.step(closure=lambda: calls.append('closure') or lib.tensor(1.))
        sd = opt.state_dict()
        calls.append(sd['note'])
        opt.load_state_dict(sd)
    finally: g1.remove(); g2.remove()
    opt.step()
    return calls


@pytest.mark.parametrize('name', ['SGD', 'Adam', 'Adadelta', 'Rprop'])
def test_hooks_run_as_torchs(name):
    assert hook_log(litnn, name) == hook_log(torch, name)


def test_step_pre_hook_can_replace_arguments():
    for lib in (litnn, torch):
        p = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([p], lr=0.5)
        seen = []
        opt.register_step_pre_hook(lambda o, args, kwargs: (args, {'closure': lambda: seen.append(1) or lib.tensor(2.)}))
        p.grad = lib.ones(1)
        assert float(opt.step()) == 2. and seen == [1]
        assert err(lambda lib: (opt.register_step_pre_hook(lambda o, a, k: 5), opt.step()), lib)[0] is RuntimeError


@pytest.mark.parametrize('name', list(GRIDS) + ['SGD', 'Adam', 'RMSprop'])
def test_add_param_group_zero_grad_and_closures(name):
    "A group added after some steps, zero_grad in both modes, and a closure's loss returned by step, as torch."
    def go(lib):
        arrs = arrays(9)
        ps = params(lib, arrs)
        opt = getattr(lib.optim, name)(ps[:2], **({'lr': 0.05} if name != 'Adadelta' else {}))
        out = []
        for i in range(6):
            if i == 3: opt.add_param_group({'params': [ps[2]], 'lr': 0.01})
            opt.zero_grad(set_to_none=(i % 2 == 0))
            def closure():
                loss = sum(((p - 0.3) ** 2).sum() for p in ps)
                loss.backward()
                return loss
            out.append(opt.step(closure).item())
        return out, [p.detach().numpy() for p in ps], [len(opt.param_groups), sorted(opt.param_groups[1])]
    (l_losses, l_ps, l_groups), (t_losses, t_ps, t_groups) = go(litnn), go(torch)
    np.testing.assert_allclose(l_losses, t_losses, rtol=1e-12)     # the losses' sums may round differently in the last bit
    for a, b in zip(l_ps, t_ps): np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert l_groups == t_groups


def test_differentiable_is_accepted_and_a_graph_step_refused_with_a_reason():
    # accepted as torch; a step that would have to record a graph (a non-leaf that requires grad) is refused
    for name in GRIDS:
        getattr(litnn.optim, name)([litnn.nn.Parameter(litnn.ones(1))], differentiable=True)
        if 'differentiable' not in inspect.signature(getattr(torch.optim, name)).parameters: continue
        q = litnn.ones(1, requires_grad=True).clone(); q.grad = litnn.ones(1)
        with pytest.raises(NotImplementedError, match="cannot record the update for autograd"):
            getattr(litnn.optim, name)([q], differentiable=True).step()


# --- LBFGS ---------------------------------------------------------------------------------------------------

def lbfgs_run(lib, kw, problem, steps=3, dtype='float64'):
    "LBFGS over `problem` from a fixed start; the parameters, losses and state after each step."
    rng = np.random.default_rng(3)
    X, Y = rng.standard_normal((20, 3)), rng.standard_normal((20, 1))
    dt = getattr(lib, dtype)
    if problem == 'rosenbrock':
        ps = [lib.nn.Parameter(lib.tensor([-1.5, 2.], dtype=dt))]
        f = lambda: (1 - ps[0][0]) ** 2 + 100 * (ps[0][1] - ps[0][0] ** 2) ** 2
    else:   # a small tanh regression, two parameter tensors
        ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal((3, 4)) * 0.5, dtype=dt)), lib.nn.Parameter(lib.tensor(rng.standard_normal((4, 1)), dtype=dt))]
        x, y = lib.tensor(X, dtype=dt), lib.tensor(Y, dtype=dt)
        f = lambda: (((x @ ps[0]).tanh() @ ps[1] - y) ** 2).mean()
    opt = lib.optim.LBFGS(ps, **kw)
    def closure():
        opt.zero_grad()
        loss = f()
        loss.backward()
        return loss
    out = []
    for _ in range(steps):
        out.append(opt.step(closure).item())
    st = opt.state[ps[0]]
    return out, [p.detach().numpy() for p in ps], st['func_evals'], st['n_iter'], opt


LBFGS_KW = [dict(), dict(line_search_fn='strong_wolfe'), dict(lr=0.5, max_iter=7), dict(history_size=3, line_search_fn='strong_wolfe'),
            dict(max_iter=30, max_eval=12, line_search_fn='strong_wolfe'), dict(tolerance_grad=1e-3, tolerance_change=1e-4, lr=0.8)]


@pytest.mark.parametrize('kw', LBFGS_KW, ids=str)
@pytest.mark.parametrize('problem', ['rosenbrock', 'regression'])
def test_lbfgs_matches_torch(kw, problem):
    (ll, lp, le, ln, lo), (tl, tp, te, tn, to) = lbfgs_run(litnn, kw, problem), lbfgs_run(torch, kw, problem)
    assert (le, ln) == (te, tn)
    # the models' own gradients differ from torch's by an ulp at the first iteration (reduction order); 60 quasi-Newton
    # iterations amplify that, so the trajectories are compared to 2e-6 here and to 1e-12 over a few iterations below
    np.testing.assert_allclose(ll, tl, rtol=2e-6, atol=1e-10)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-8)
    (_, lp, *_), (_, tp, *_) = lbfgs_run(litnn, {**kw, 'max_iter': 5}, problem, 1), lbfgs_run(torch, {**kw, 'max_iter': 5}, problem, 1)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    lsd, tsd = lo.state_dict(), to.state_dict()
    assert lsd['param_groups'] == tsd['param_groups']
    ls, ts = lsd['state'][0], tsd['state'][0]
    assert list(ls) == list(ts)
    for k in ts:
        if isinstance(ts[k], list): assert len(ls[k]) == len(ts[k]) and [type(v).__name__ for v in ls[k]] == [type(v).__name__ for v in ts[k]], k


def test_lbfgs_float32_and_errors():
    (ll, lp, *_), (tl, tp, *_) = lbfgs_run(litnn, dict(line_search_fn='strong_wolfe'), 'regression', 2, 'float32'), \
                                 lbfgs_run(torch, dict(line_search_fn='strong_wolfe'), 'regression', 2, 'float32')
    np.testing.assert_allclose(ll, tl, rtol=1e-3)
    def groups(lib):
        return lib.optim.LBFGS([{'params': [lib.nn.Parameter(lib.ones(1))]}, {'params': [lib.nn.Parameter(lib.ones(1))]}])
    assert err(groups, litnn) == err(groups, torch)
    def bad_search(lib):
        p = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.LBFGS([p], line_search_fn='armijo')
        def closure():
            opt.zero_grad(); l = (p ** 2).sum(); l.backward(); return l
        opt.step(closure)
    assert err(bad_search, litnn) == err(bad_search, torch)
    assert str(litnn.optim.LBFGS([litnn.nn.Parameter(litnn.ones(1))])) == str(torch.optim.LBFGS([torch.nn.Parameter(torch.ones(1))]))


@pytest.mark.parametrize('kw', [dict(), dict(line_search_fn='strong_wolfe')], ids=str)
def test_lbfgs_complex_parameters_step_as_real_pairs(kw):
    "Found by torch's optim_db (LBFGS supports complex): a complex parameter's gradient and update go through view_as_real."
    def go(lib):
        z = lib.nn.Parameter(lib.tensor([1.5 - 0.5j, -1 + 2j], dtype=lib.complex128))
        w = lib.nn.Parameter(lib.tensor([0.3, -0.2], dtype=lib.float64))
        target = lib.tensor([0.5 + 1j, 2 - 1j], dtype=lib.complex128)
        opt = lib.optim.LBFGS([z, w], max_iter=5, **kw)
        def closure():
            opt.zero_grad()
            d = z * (1 + w) - target
            l = (d * d.conj()).real.sum() + (z.abs() ** 4).sum() * 0.01
            l.backward(); return l
        losses = [opt.step(closure).item() for _ in range(3)]
        return losses, z.detach().numpy().copy(), w.detach().numpy().copy(), len(opt.state[z]['old_dirs'])
    (ll, lz, lw, ln), (tl, tz, tw, tn) = go(litnn), go(torch)
    assert ln == tn
    np.testing.assert_allclose(ll, tl, rtol=1e-9)
    np.testing.assert_allclose(lz, tz, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(lw, tw, rtol=1e-8, atol=1e-10)


# --- on the GPU ---------------------------------------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")
ON_DEVICE = {'ASGD': {'step', 'eta', 'mu', 'ax'}}    # torch keeps ASGD's scalars on the parameter's device


@needs_gpu
@pytest.mark.parametrize('name', list(GRIDS))
def test_cuda_matches_cpu(name):
    "The same run on CuPy arrays: the same parameters; buffers on the GPU, step counters where torch keeps them."
    kw, arrs, grads = GRIDS[name][5], arrays(9), grad_seq(10, 8)
    def go(device):
        ps = [litnn.nn.Parameter(litnn.tensor(a.copy(), device=device)) for a in arrs]
        opt = getattr(litnn.optim, name)(ps, **kw)
        for gs in grads:
            for p, g in zip(ps, gs): p.grad = litnn.tensor(g.copy(), device=device)
            opt.step()
        return [p.detach().cpu().numpy() for p in ps], opt
    (cpu, _), (gpu, opt) = go('cpu'), go('cuda')
    for a, b in zip(cpu, gpu): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for s in opt.state.values():
        for k, v in s.items():
            on_gpu = k in ON_DEVICE.get(name, set()) or (k not in ('step', 'mu_product'))
            assert v.device.type == ('cuda' if on_gpu else 'cpu'), (name, k)


@needs_gpu
def test_lbfgs_on_cuda_matches_cpu():
    def go(device):
        x = litnn.nn.Parameter(litnn.tensor([-1.5, 2.], dtype=litnn.float64, device=device))
        opt = litnn.optim.LBFGS([x], line_search_fn='strong_wolfe')
        def closure():
            opt.zero_grad(); l = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2; l.backward(); return l
        opt.step(closure)
        return x.detach().cpu().numpy()
    np.testing.assert_allclose(go('cuda'), go('cpu'), rtol=1e-6)


@pytest.mark.parametrize('name', ['Adam', 'AdamW', 'RMSprop', 'Adafactor'] + list(GRIDS))
def test_step_counters_follow_a_float64_default_dtype(name):
    "torch's `_get_scalar_dtype`: under `set_default_dtype(float64)` the step (and ASGD's eta and mu, NAdam's mu_product) are float64."
    kw = GRIDS[name][1] if name in GRIDS else {}
    for lib in (litnn, torch): lib.set_default_dtype(lib.float64)
    try: compare(name, kw, steps=8)     # same values and the same state dict, dtypes included
    finally:
        for lib in (litnn, torch): lib.set_default_dtype(lib.float32)


def test_fused_adam_counts_steps_in_float32_under_a_float64_default():
    for lib in (litnn, torch): lib.set_default_dtype(lib.float64)
    try:
        arrs, grads = arrays(0), grad_seq(1, 2)
        (lp, lo), (tp, to) = make(litnn, 'Adam', dict(fused=True), arrs), make(torch, 'Adam', dict(fused=True), arrs)
        run(litnn, lp, lo, grads); run(torch, tp, to, grads)
        assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 1e-12, 1e-14)
        assert str(lo.state[lp[0]]['step'].dtype) == 'litnn.float32'
    finally:
        for lib in (litnn, torch): lib.set_default_dtype(lib.float32)


COMPLEX = [('RMSprop', dict(centered=True, momentum=0.5, weight_decay=0.1, maximize=True)), ('Adagrad', GRIDS['Adagrad'][7]),
           ('Adadelta', GRIDS['Adadelta'][3]), ('Adamax', GRIDS['Adamax'][2]), ('NAdam', GRIDS['NAdam'][5]),
           ('RAdam', GRIDS['RAdam'][2]), ('ASGD', GRIDS['ASGD'][5]), ('Rprop', GRIDS['Rprop'][3]), ('Adam', dict(amsgrad=True))]

@pytest.mark.parametrize('name,kw', COMPLEX, ids=[n for n, _ in COMPLEX])
def test_complex_parameters_step_as_pairs_of_reals(name, kw):
    "torch steps a complex parameter as `view_as_real` pairs (state included; Adagrad's and Rprop's initial values fill both parts)."
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in [(3, 2), (4,)]]
    grads = [[rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape) for a in arrs] for _ in range(12)]
    (lp, lo), (tp, to) = make(litnn, name, kw, arrs), make(torch, name, kw, arrs)
    run(litnn, lp, lo, grads); run(torch, tp, to, grads)
    for a, b in zip(lp, tp): np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert_same_tree(to_np(lo.state_dict()), to_np(to.state_dict()), 1e-12, 1e-14)

"""Pruning side by side with torch 2.13: the masks of l1_unstructured, ln_structured, custom_from_mask and
global_unstructured equal torch's on the same weights; random pruning keeps torch's counts and structure;
repeated pruning (PruningContainer), the weight_orig / weight_mask state_dict entries, the forward pre-hooks,
outputs and gradients, remove, is_pruned, _apply, loading torch's state_dicts, and the errors torch raises."""
import math

import numpy as np
import pytest

import litnn
from nn_pairs import err

torch = pytest.importorskip('torch')
import torch.nn.utils.prune  # noqa: E402  (torch does not import it with torch.nn.utils)
LIBS = (litnn, torch)


def arr(t): return t.detach().cpu().numpy() if hasattr(t, 'detach') else np.asarray(t)


def close(a, b, rtol=1e-6, atol=1e-7): np.testing.assert_allclose(arr(a), arr(b), rtol=rtol, atol=atol)


def pair(make, dtype='float32', seed=0):
    "The module `make(lib)` in both libraries with torch's initial values."
    torch.manual_seed(seed)
    tm = make(torch).to(getattr(torch, dtype))
    lm = make(litnn).to(getattr(litnn, dtype))
    tsd = tm.state_dict()
    for k, v in lm.state_dict(keep_vars=True).items(): v.data = litnn.tensor(arr(tsd[k]).copy())
    return lm, tm


def both(lm, tm, f):
    "Run `f(module, prune_namespace, lib)` on both."
    for m, lib in ((lm, litnn), (tm, torch)): f(m, lib.nn.utils.prune, lib)


def assert_same_state(lm, tm):
    ls, ts = lm.state_dict(), tm.state_dict()
    assert list(ls) == list(ts)
    for k in ls: close(ls[k], ts[k])


def assert_same_run(lm, tm, x, rtol=1e-5, atol=1e-6):
    res = []
    for m, lib in ((lm, litnn), (tm, torch)):
        y = m(lib.tensor(x))
        (y * y).sum().backward()
        res.append((y, {n: p.grad for n, p in m.named_parameters()}))
    (yl, gl), (yt, gt) = res
    close(yl, yt, rtol, atol)
    assert list(gl) == list(gt)
    for n in gl: close(gl[n], gt[n], rtol, atol)


CONV = lambda lib: lib.nn.Conv2d(3, 6, 3)
LIN = lambda lib: lib.nn.Linear(5, 4)
XCONV = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype('float32')
XLIN = np.random.default_rng(0).standard_normal((2, 5)).astype('float32')


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('amount', [0.3, 7, 0, 1.0])
def test_l1_unstructured(amount, dtype):
    lm, tm = pair(CONV, dtype)
    both(lm, tm, lambda m, prune, lib: prune.l1_unstructured(m, 'weight', amount=amount))
    assert_same_state(lm, tm)
    assert [type(h).__name__ for h in lm._forward_pre_hooks.values()] == ['L1Unstructured']
    assert type(lm.weight) is litnn.Tensor and type(lm.weight_orig) is litnn.nn.Parameter
    assert_same_run(lm, tm, XCONV.astype(dtype), 1e-4, 1e-5)


def test_l1_unstructured_with_importance_scores_and_bias():
    lm, tm = pair(LIN)
    scores = np.random.default_rng(1).standard_normal((4, 5)).astype('float32')
    both(lm, tm, lambda m, prune, lib: prune.l1_unstructured(m, 'weight', amount=0.5, importance_scores=lib.tensor(scores)))
    both(lm, tm, lambda m, prune, lib: prune.l1_unstructured(m, 'bias', amount=2))
    assert_same_state(lm, tm)
    assert list(lm.state_dict()) == ['weight_orig', 'bias_orig', 'weight_mask', 'bias_mask']
    assert_same_run(lm, tm, XLIN)


@pytest.mark.parametrize('n', [1, 2, math.inf, -math.inf])
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_ln_structured(n, dim):
    lm, tm = pair(CONV)
    both(lm, tm, lambda m, prune, lib: prune.ln_structured(m, 'weight', amount=0.34, n=n, dim=dim))
    assert_same_state(lm, tm)
    assert_same_run(lm, tm, XCONV, 1e-4, 1e-5)


@pytest.mark.parametrize('dim', [0, 1])
def test_ln_structured_fro(dim):
    "'fro' over the one other dim of a Linear's weight (torch raises for a conv's three; litnn's norm does not: see the report)."
    lm, tm = pair(LIN)
    both(lm, tm, lambda m, prune, lib: prune.ln_structured(m, 'weight', amount=1, n='fro', dim=dim))
    assert_same_state(lm, tm)


def test_custom_from_mask():
    lm, tm = pair(LIN)
    mask = (np.random.default_rng(2).random((4, 5)) > 0.5).astype('float32')
    both(lm, tm, lambda m, prune, lib: prune.custom_from_mask(m, 'weight', mask=lib.tensor(mask)))
    assert_same_state(lm, tm)
    close(lm.weight_mask, mask)
    assert_same_run(lm, tm, XLIN)


def test_identity():
    lm, tm = pair(LIN)
    both(lm, tm, lambda m, prune, lib: prune.identity(m, 'weight'))
    assert_same_state(lm, tm)
    assert lm.weight_mask.sum().item() == 20


@pytest.mark.parametrize('steps', [
    ['l1:0.3', 'ln:1:0', 'l1:0.3'], ['ln:2:1', 'l1:5'], ['custom', 'l1:0.5', 'ln:1:-1'], ['l1:0.2', 'custom']])
def test_repeated_pruning_uses_a_container(steps):
    lm, tm = pair(CONV)
    mask = (np.random.default_rng(3).random((6, 3, 3, 3)) > 0.3).astype('float32')
    for s in steps:
        kind, *a = s.split(':')
        def f(m, prune, lib):
            if kind == 'l1': prune.l1_unstructured(m, 'weight', amount=float(a[0]) if '.' in a[0] else int(a[0]))
            elif kind == 'ln': prune.ln_structured(m, 'weight', amount=1, n=int(a[0]), dim=int(a[1]))
            else: prune.custom_from_mask(m, 'weight', mask=lib.tensor(mask))
        both(lm, tm, f)
        assert_same_state(lm, tm)
    hook = next(iter(lm._forward_pre_hooks.values()))
    assert type(hook).__name__ == 'PruningContainer' and len(hook) == len(steps) and len(lm._forward_pre_hooks) == 1
    assert [type(h).__name__ for h in hook] == [type(h).__name__ for h in next(iter(tm._forward_pre_hooks.values()))]
    assert_same_run(lm, tm, XCONV, 1e-4, 1e-5)


@pytest.mark.parametrize('amount', [0.5, 9])
def test_global_unstructured(amount):
    make = lambda lib: lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.ReLU(), lib.nn.Linear(4, 3))
    lm, tm = pair(make)
    both(lm, tm, lambda m, prune, lib: prune.l1_unstructured(m[2], 'weight', amount=2))
    both(lm, tm, lambda m, prune, lib: prune.global_unstructured(
        [(m[0], 'weight'), (m[0], 'bias'), (m[2], 'weight')], pruning_method=prune.L1Unstructured, amount=amount))
    assert_same_state(lm, tm)
    assert_same_run(lm, tm, XLIN)


def test_global_unstructured_with_importance_scores():
    make = lambda lib: lib.nn.Sequential(lib.nn.Linear(5, 4), lib.nn.Linear(4, 3))
    lm, tm = pair(make)
    s = np.random.default_rng(4).standard_normal((4, 5)).astype('float32')
    both(lm, tm, lambda m, prune, lib: prune.global_unstructured(
        [(m[0], 'weight'), (m[1], 'weight')], pruning_method=prune.L1Unstructured,
        importance_scores={(m[0], 'weight'): lib.tensor(s)}, amount=10))
    assert_same_state(lm, tm)


@pytest.mark.parametrize('amount', [0.4, 10])
def test_random_unstructured_counts(amount):
    litnn.manual_seed(0)
    m = litnn.nn.Conv2d(3, 6, 3)
    litnn.nn.utils.prune.random_unstructured(m, 'weight', amount=amount)
    k = round(amount * 162) if isinstance(amount, float) else amount
    assert int((m.weight_mask == 0).sum()) == k
    assert int((m.weight == 0).sum()) == k
    before = m.weight_mask.clone()
    litnn.nn.utils.prune.random_unstructured(m, 'weight', amount=amount)
    remaining = 162 - k
    k2 = round(amount * remaining) if isinstance(amount, float) else amount
    assert int((m.weight_mask == 0).sum()) == k + k2
    assert bool(((before == 0) <= (m.weight_mask == 0)).all())     # pruned stays pruned


@pytest.mark.parametrize('dim', [0, 1, -1])
def test_random_structured_channels(dim):
    litnn.manual_seed(0)
    m = litnn.nn.Conv2d(4, 6, 3)
    litnn.nn.utils.prune.random_structured(m, 'weight', amount=0.5, dim=dim)
    size = m.weight.shape[dim]
    per_channel = m.weight_mask.movedim(dim, 0).reshape(size, -1)
    kept = per_channel.sum(1) != 0
    assert int((~kept).sum()) == round(0.5 * size)
    assert bool(((per_channel == 0).all(1) | (per_channel == 1).all(1)).all())
    ratio = {}
    for lib in LIBS:    # torch's structure: the same kept fraction
        lib.manual_seed(0)
        t = lib.nn.utils.prune.random_structured(lib.nn.Conv2d(4, 6, 3), 'weight', amount=0.5, dim=dim)
        ratio[lib.__name__] = float(t.weight_mask.sum()) / t.weight_mask.numel()
    assert ratio['litnn'] == ratio['torch']


def test_remove_makes_pruning_permanent():
    lm, tm = pair(CONV)
    both(lm, tm, lambda m, prune, lib: prune.l1_unstructured(m, 'weight', amount=0.5))
    both(lm, tm, lambda m, prune, lib: prune.ln_structured(m, 'weight', amount=2, n=2, dim=0))
    orig = lm.weight_orig
    assert litnn.nn.utils.prune.is_pruned(lm) and torch.nn.utils.prune.is_pruned(tm)
    both(lm, tm, lambda m, prune, lib: prune.remove(m, 'weight'))
    assert_same_state(lm, tm)
    assert list(lm.state_dict()) == ['bias', 'weight'] and lm.weight is orig   # re-registered last, as torch and not lm._forward_pre_hooks
    assert not litnn.nn.utils.prune.is_pruned(lm)
    assert_same_run(lm, tm, XCONV, 1e-4, 1e-5)


def test_is_pruned_looks_at_submodules():
    for lib in LIBS:
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 2)))
        assert not lib.nn.utils.prune.is_pruned(net)
        lib.nn.utils.prune.identity(net[1][0], 'bias')
        assert lib.nn.utils.prune.is_pruned(net)


def test_apply_and_hooks_through_pruned_modules():
    lm, tm = pair(CONV)
    both(lm, tm, lambda m, prune, lib: prune.l1_unstructured(m, 'weight', amount=0.5))
    calls = []
    for m in (lm, tm):
        m.register_forward_pre_hook(lambda mod, args: calls.append(float((mod.weight == 0).sum())))
        m.double()
    assert lm.weight_orig.dtype == litnn.float64 and lm.weight_mask.dtype == litnn.float64
    assert_same_state(lm, tm)
    assert_same_run(lm, tm, XCONV.astype('float64'), 1e-10, 1e-12)
    assert calls[0] == calls[1] == 81.0    # the pruning hook runs first, so user hooks see the pruned weight
    lm.float()
    lm(litnn.ones(1, 3, 4, 4))
    assert lm.weight.dtype == litnn.float32


def test_load_torch_saved_state_dict(tmp_path):
    lm, tm = pair(CONV)
    both(lm, tm, lambda m, prune, lib: prune.identity(m, 'weight'))
    torch.nn.utils.prune.l1_unstructured(tm, 'weight', amount=0.6)
    torch.save(tm.state_dict(), tmp_path / 'pruned.pt')
    lm.load_state_dict(litnn.load(tmp_path / 'pruned.pt'))
    assert_same_state(lm, tm)
    assert_same_run(lm, tm, XCONV, 1e-4, 1e-5)


def test_method_api_prune_and_a_user_method():
    t = np.random.default_rng(5).standard_normal((4, 6)).astype('float32')
    for make in [lambda p: p.L1Unstructured(amount=0.5), lambda p: p.LnStructured(amount=2, n=1, dim=1),
                 lambda p: p.LnStructured(amount=1, n=2, dim=0)]:
        a, b = (make(lib.nn.utils.prune).prune(lib.tensor(t)) for lib in LIBS)
        close(a, b)
    a, b = (lib.nn.utils.prune.L1Unstructured(amount=3).prune(lib.tensor(t), importance_scores=lib.tensor(-t[::-1].copy()))
            for lib in LIBS)
    close(a, b)
    masks = []
    for lib in LIBS:
        class EveryOther(lib.nn.utils.prune.BasePruningMethod):
            PRUNING_TYPE = 'unstructured'
            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask
        m = lib.nn.Linear(3, 2)
        EveryOther.apply(m, 'weight')
        EveryOther.apply(m, 'weight')     # again: on what is left
        masks.append(m.weight_mask)
        assert type(m._forward_pre_hooks[next(iter(m._forward_pre_hooks))]).__name__ == 'PruningContainer'
    close(masks[0], masks[1])


def errors(f):
    return [err(lambda: f(lib.nn.utils.prune, lib)) for lib in LIBS]


ERRORS = dict(
    amount_type=lambda p, lib: p.l1_unstructured(lib.nn.Linear(2, 2), 'weight', amount='a'),
    amount_float=lambda p, lib: p.l1_unstructured(lib.nn.Linear(2, 2), 'weight', amount=1.5),
    amount_negative=lambda p, lib: p.random_unstructured(lib.nn.Linear(2, 2), 'weight', amount=-1),
    amount_too_big=lambda p, lib: p.l1_unstructured(lib.nn.Linear(2, 2), 'weight', amount=5),
    structured_1d=lambda p, lib: p.ln_structured(lib.nn.Linear(2, 2), 'bias', amount=1, n=2, dim=0),
    structured_dim=lambda p, lib: p.ln_structured(lib.nn.Linear(2, 2), 'weight', amount=1, n=2, dim=2),
    random_structured_dim=lambda p, lib: p.random_structured(lib.nn.Linear(2, 2), 'weight', amount=1, dim=3),
    remove_unpruned=lambda p, lib: p.remove(lib.nn.Linear(2, 2), 'weight'),
    missing_tensor=lambda p, lib: p.l1_unstructured(lib.nn.Linear(2, 2), 'nope', amount=1),
    scores_shape=lambda p, lib: p.l1_unstructured(lib.nn.Linear(2, 2), 'weight', amount=1, importance_scores=lib.ones(3)),
    global_structured=lambda p, lib: p.global_unstructured([(lib.nn.Linear(2, 2), 'weight')], p.LnStructured, amount=1, n=1, dim=0),
    global_not_iterable=lambda p, lib: p.global_unstructured(3, p.L1Unstructured, amount=1),
    global_scores_type=lambda p, lib: p.global_unstructured([(lib.nn.Linear(2, 2), 'weight')], p.L1Unstructured, importance_scores=[], amount=1),
    container_type=lambda p, lib: p.PruningContainer(p.Identity()).add_pruning_method(3),
    custom_mask_shape=lambda p, lib: p.custom_from_mask(lib.nn.Linear(2, 2), 'weight', mask=lib.ones(3)),
    abstract=lambda p, lib: p.BasePruningMethod(),
)


@pytest.mark.parametrize('name', list(ERRORS))
def test_errors_as_torch(name):
    (lt, lmsg), (tt, tmsg) = errors(ERRORS[name])
    assert lt is tt, (lmsg, tmsg)
    if name in ('missing_tensor', 'scores_shape', 'container_type', 'global_structured', 'custom_mask_shape'):
        return   # messages name torch's objects (module repr, torch.Size, class paths)
    assert lmsg == tmsg


def test_failed_pruning_leaves_the_module_as_it_was():
    for lib in LIBS:
        m = lib.nn.Linear(2, 2)
        w = m.weight
        with pytest.raises(ValueError): lib.nn.utils.prune.l1_unstructured(m, 'weight', amount=5)
        # torch re-registers the weight after the bias; litnn restores the module exactly, its parameters' order too
        assert list(m.state_dict()) == (['weight', 'bias'] if lib is litnn else ['bias', 'weight'])
        assert m.weight is w and not m._forward_pre_hooks


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")
def test_prune_on_gpu():
    out = {}
    for dev in ('cpu', 'cuda'):
        m = litnn.nn.Conv2d(3, 6, 3)
        m.weight.data = litnn.tensor(np.random.default_rng(0).standard_normal((6, 3, 3, 3)).astype('float32'))
        m.to(dev)
        litnn.nn.utils.prune.l1_unstructured(m, 'weight', amount=0.3)
        litnn.nn.utils.prune.ln_structured(m, 'weight', amount=2, n=2, dim=0)
        litnn.nn.utils.prune.random_unstructured(m, 'bias', amount=2)
        y = m(litnn.tensor(XCONV).to(dev))
        y.sum().backward()
        out[dev] = [arr(m.weight_mask), arr(y - m.bias[None, :, None, None]), arr(m.weight_orig.grad)]   # bias: drawn per device
        assert int((m.bias_mask == 0).sum()) == 2
    for a, c in zip(out['cpu'], out['cuda']): np.testing.assert_allclose(c, a, rtol=1e-4, atol=1e-5)

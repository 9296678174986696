"""Gradient clipping side by side with torch.nn.utils: clip_grad_norm_ (every norm type, mixed dtypes, missing
gradients, non-finite norms), get_total_norm, clip_grads_with_norm_ and clip_grad_value_ give torch's gradients and
returned norms; errors and warnings match."""
import math, warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from nn_pairs import err

torch = pytest.importorskip('torch')

SHAPES = [(3, 4), (5,), (2, 1, 3)]


def setup(lib, grads, dtypes=None):
    "Parameters with the given gradient arrays (None: no gradient)."
    ps = []
    for i, g in enumerate(grads):
        dt = (dtypes or [None] * len(grads))[i]
        shape = (2,) if g is None else g.shape
        p = lib.nn.Parameter(lib.zeros(*shape, dtype=getattr(lib, dt) if dt else None))
        if g is not None: p.grad = lib.tensor(g.astype(dt or 'float32'))
        ps.append(p)
    return ps


def grads_of(ps): return [None if p.grad is None else p.grad.numpy() for p in ps]


def random_grads(seed, scale=1.0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * scale).astype(dtype) for s in SHAPES]


def both(f, grads, dtypes=None):
    "Run `f(lib, params)` in both libraries: results (as floats) and gradients after."
    out = []
    for lib in (litnn, torch):
        ps = setup(lib, grads, dtypes)
        r = f(lib, ps)
        out.append((None if r is None else (r.item(), str(r.dtype).split('.')[-1]), grads_of(ps)))
    return out


def assert_close_runs(a, b, rtol=1e-6):
    (ra, ga), (rb, gb) = a, b
    if ra is None: assert rb is None
    else:
        assert ra[1] == rb[1]
        np.testing.assert_allclose(ra[0], rb[0], rtol=rtol)
    for x, y in zip(ga, gb):
        if x is None: assert y is None
        else:
            assert x.dtype == y.dtype
            np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-7)


@pytest.mark.parametrize('norm_type', [2.0, 1, 3.5, 0.5, math.inf, -math.inf, 0])
@pytest.mark.parametrize('max_norm', [0.1, 1.0, 1e6])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type), random_grads(0, 3.0))
    assert_close_runs(a, b)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), scale=st.floats(1e-3, 1e3), max_norm=st.floats(1e-3, 1e3),
       norm_type=st.sampled_from([2.0, 1.0, math.inf, 3.0]))
def test_clip_grad_norm_random(seed, scale, max_norm, norm_type):
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type), random_grads(seed, scale, np.float64),
                dtypes=['float64'] * len(SHAPES))
    assert_close_runs(a, b, rtol=1e-12)


def test_clip_grad_norm_skips_missing_gradients_and_accepts_one_tensor():
    gs = random_grads(1, 5.0)
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0), [gs[0], None, gs[2]])
    assert_close_runs(a, b)
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps[0], 1.0), gs[:1])
    assert_close_runs(a, b)
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(iter(ps), 1.0), gs)     # a one-shot iterator is read once
    assert_close_runs(a, b)


def test_clip_grad_norm_mixed_dtypes():
    gs = random_grads(2, 4.0, np.float64)
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0), gs, dtypes=['float32', 'float64', 'float32'])
    assert_close_runs(a, b)
    assert a[0][1] == 'float64'


def test_no_gradients_returns_zero():
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0), [None, None])
    assert a == b and a[0] == (0.0, 'float32')


def test_nonfinite_norm():
    gs = random_grads(3)
    gs[1][2] = np.nan
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0), gs)
    assert math.isnan(a[0][0]) and math.isnan(b[0][0])
    assert all(np.isnan(g).all() for g in a[1]) and all(np.isnan(g).all() for g in b[1])
    gs[1][2] = np.inf
    for lib in (litnn, torch):
        ps = setup(lib, gs)
        before = grads_of(ps)
        with pytest.raises(RuntimeError) as e: lib.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
        assert str(e.value) == ("The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
                                "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                                "`error_if_nonfinite=False`")
        for x, y in zip(before, grads_of(ps)): np.testing.assert_array_equal(x, y)   # nothing changed


def test_empty_generator_warns():
    for lib in (litnn, torch):
        with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_get_total_norm_and_clip_grads_with_norm_match_torch():
    def f(lib, ps):
        total = lib.nn.utils.get_total_norm([p.grad for p in ps], 3.0)
        lib.nn.utils.clip_grads_with_norm_(ps, 0.5, total)
        return total
    a, b = both(f, random_grads(4, 2.0))
    assert_close_runs(a, b)


def test_clip_grad_norm_does_not_record_a_graph():
    w = litnn.nn.Parameter(litnn.ones(3))
    w.grad = litnn.tensor([3.0, 4.0, 0.0])
    total = litnn.nn.utils.clip_grad_norm_([w], 1.0)
    assert total.grad_fn is None and w.grad.grad_fn is None and not w.grad.requires_grad


def test_deprecated_clip_grad_norm():
    w = litnn.nn.Parameter(litnn.ones(2))
    w.grad = litnn.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="deprecated in favor of `litnn.nn.utils.clip_grad_norm_`"):
        assert litnn.nn.utils.clip_grad_norm(w, 1.0).item() == 5.0


@pytest.mark.parametrize('clip_value', [0.5, 2, 100.0])
def test_clip_grad_value_matches_torch(clip_value):
    gs = random_grads(5, 2.0)
    a, b = both(lambda lib, ps: lib.nn.utils.clip_grad_value_(ps, clip_value), [gs[0], None, gs[2]])
    assert_close_runs(a, b, rtol=0)
    assert max(np.abs(g).max() for g in a[1] if g is not None) <= clip_value


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('norm_type', [2.0, math.inf])
def test_clip_grad_norm_on_cuda(norm_type):
    gs = random_grads(6, 3.0, np.float64)
    def go(device):
        ps = [litnn.nn.Parameter(litnn.zeros(*g.shape, dtype=litnn.float64, device=device)) for g in gs]
        for p, g in zip(ps, gs): p.grad = litnn.tensor(g, device=device)
        total = litnn.nn.utils.clip_grad_norm_(ps, 1.0, norm_type)
        return total.item(), total.device.type, [p.grad.cpu().numpy() for p in ps]
    (tc, dc, gc), (tg, dg, gg) = go('cpu'), go('cuda')
    assert (dc, dg) == ('cpu', 'cuda')
    np.testing.assert_allclose(tc, tg, rtol=1e-12)
    for a, b in zip(gc, gg): np.testing.assert_allclose(a, b, rtol=1e-12)

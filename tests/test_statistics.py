"""reference/torch/statistics (quantile, nanquantile) against torch 2.13: values and gradients, q's included."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)


@pytest.mark.parametrize('fn', ['quantile', 'nanquantile'])
@pytest.mark.parametrize('interpolation', ['linear', 'midpoint', 'lower', 'higher', 'nearest'])
@pytest.mark.parametrize('q', [[0.2318341720884639, 0.07875386135027063], 0.6])
def test_quantile_gradient_reaches_a_tensor_q_like_torch(fn, interpolation, q):
    # torch's quantile is differentiable in a tensor q through its linear weights (OpInfo quantile, sample 37)
    x = rng.standard_normal((3, 5))
    if fn == 'nanquantile': x[1, 2] = np.nan
    qa = np.asarray(q)
    res = {}
    for lib in (litnn, torch):
        X, Q = lib.tensor(x, requires_grad=True), lib.tensor(qa, requires_grad=True)
        out = getattr(lib, fn)(X, Q, dim=1, interpolation=interpolation)
        c = lib.tensor(np.cos(np.arange(out.numel()) * 0.37).reshape(tuple(out.shape)))
        gs = lib.autograd.grad((out * c).sum(), [X, Q], allow_unused=True)      # lower/higher/nearest: q is not used
        res[lib] = [out.detach().numpy()] + [None if g is None else g.numpy() for g in gs]
    for l, t in zip(res[litnn], res[torch]):
        assert (l is None) == (t is None)
        if t is None: continue
        np.testing.assert_allclose(l, t, rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize('dim', [0, 1, 2, -1, None])
@pytest.mark.parametrize('keepdim', [False, True])
def test_quantile_result_layout(dim, keepdim):
    "Quantiles for a tensor of q are laid out as torch's: q varies fastest in memory, the q dimension first in the shape."
    import torch as T
    outs = []
    for lib in (T, litnn):
        x, q = lib.arange(24.).reshape(2, 3, 4), lib.tensor([0.25, 0.75])
        r = x.quantile(q, dim=dim, keepdim=keepdim)
        outs.append((r.tolist(), tuple(r.shape), tuple(s for s, n in zip(r.stride(), r.shape) if n > 1)))
    assert outs[0] == outs[1]


def test_where_of_a_condition_alone_gives_contiguous_indices():
    import torch as T
    outs = []
    for lib in (T, litnn):
        c = lib.arange(24.).reshape(2, 3, 4) > 5
        outs.append([(t.tolist(), t.stride()) for t in lib.where(c)] + [(t.stride(), t.dtype.is_floating_point) for t in c.nonzero(as_tuple=True)])
    assert outs[0] == outs[1]

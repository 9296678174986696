"""Half precision (bfloat16, float16) rounded where torch rounds: log_softmax over the last dimension keeps the sum of
exponentials and its log in the half dtype, over the others in float32 (nbs/reference/torch/prod_norm_cumsum_softmax);
var and std differentiate by torch's composite formula, each op rounded (nbs/16_reductions); logsumexp sums in float32; logsigmoid's gradient reads its buffer rounded to the half dtype. Against torch: the
log-probabilities, their gradients, cross_entropy, var and std with their gradients. Exponentials computed by different libraries may
differ in their last float32 bit, which can move a rounded half-precision value by one unit: so at most 1% of the
elements may differ, and those by one unit in the last place (before: 8-9% over the last dimension)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def _close(got, want, dt):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    ulp = np.spacing(np.abs(want).astype(np.float16 if dt == 'float16' else np.float32)).astype(np.float64)
    if dt == 'bfloat16': ulp = ulp * 2.0**16     # bfloat16 keeps 8 bits of float32's 24
    assert np.mean(got != want) <= 0.01
    assert np.all(np.abs(got - want) <= ulp * 1.001)

@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('shape,dim', [((64, 50), -1), ((64, 50), 1), ((64, 50), 0), ((4, 7, 33), 2), ((4, 7, 33), 1), ((5, 9, 1), 1), ((3, 200), -1)])
def test_log_softmax(dt, shape, dim):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32) * 3
    g = np.cos(np.arange(x.size)).reshape(shape).astype(np.float32)
    out = []
    for L in (litnn, torch):
        t = L.tensor(x, dtype=getattr(L, dt), requires_grad=True)
        y = L.log_softmax(t, dim); y.backward(L.tensor(g, dtype=getattr(L, dt)))
        out.append((y.detach().float().numpy(), t.grad.float().numpy()))
    (y, gx), (ty, tgx) = out
    _close(y, ty, dt); _close(gx, tgx, dt)

@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
def test_cross_entropy_none(dt):
    rng = np.random.default_rng(1)
    x, t = (rng.standard_normal((37, 10)) * 4).astype(np.float32), rng.integers(0, 10, 37)
    got = litnn.nn.functional.cross_entropy(litnn.tensor(x, dtype=getattr(litnn, dt)), litnn.tensor(t), reduction='none')
    want = torch.nn.functional.cross_entropy(torch.tensor(x, dtype=getattr(torch, dt)), torch.tensor(t), reduction='none')
    _close(got.float().numpy(), want.float().numpy(), dt)


@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('fn,kw', [('var', dict(dim=1)), ('std', dict(dim=(0, 2))), ('var', {}), ('std', {}),
                                   ('std', dict(dim=-1, correction=0, keepdim=True)), ('var', dict(dim=2, unbiased=False))])
def test_var_std(dt, fn, kw):
    x = np.random.default_rng(0).standard_normal((6, 7, 9)).astype(np.float32) * 3
    out = []
    for L in (litnn, torch):
        t = L.tensor(x, dtype=getattr(L, dt), requires_grad=True)
        y = getattr(t, fn)(**kw); y.backward(L.ones_like(y) * 0.7)
        out.append((y.detach().float().numpy(), t.grad.float().numpy()))
    (y, gx), (ty, tgx) = out
    _close(y, ty, dt); _close(gx, tgx, dt)

@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('dim', [-1, 1, (0, 2)])
def test_logsumexp(dt, dim):
    "torch's logsumexp is composed of ops, each rounded to the half dtype, its sum adding in float32."
    x = np.random.default_rng(3).standard_normal((5, 6, 70)).astype(np.float32) * 3
    out = []
    for L in (litnn, torch):
        t = L.tensor(x, dtype=getattr(L, dt), requires_grad=True)
        y = L.logsumexp(t, dim); y.backward(L.ones_like(y))
        out.append((y.detach().float().numpy(), t.grad.float().numpy()))
    (y, gx), (ty, tgx) = out
    _close(y, ty, dt); _close(gx, tgx, dt)

@pytest.mark.parametrize('dt', ['bfloat16', 'float16', 'float32'])
def test_logsigmoid(dt):
    "torch's log_sigmoid_backward reads the buffer e^-|x| its forward kept in the input's dtype."
    x = np.random.default_rng(0).standard_normal((64, 50)).astype(np.float32) * 3
    g = np.cos(np.arange(x.size)).reshape(x.shape).astype(np.float32)
    out = []
    for L in (litnn, torch):
        t = L.tensor(x, dtype=getattr(L, dt), requires_grad=True)
        y = L.nn.functional.logsigmoid(t); y.backward(L.tensor(g, dtype=getattr(L, dt)))
        out.append((y.detach().float().numpy(), t.grad.float().numpy()))
    (y, gx), (ty, tgx) = out
    if dt == 'float32': np.testing.assert_allclose(gx, tgx, rtol=1e-6, atol=1e-7); np.testing.assert_allclose(y, ty, rtol=1e-6, atol=1e-7)
    else: _close(y, ty, dt); _close(gx, tgx, dt)


@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('src', ['bfloat16', 'float32', 'int64'])
def test_sum_with_half_dtype_accumulates_in_float32(dt, src):
    # sum(dtype=half) rounds once, as torch (masked.var of a bfloat16 (5, 5, 5): 2944 for torch's 3008)
    a = (np.random.default_rng(0).standard_normal((5, 5, 5)) * 5) ** 2
    for dims in (None, 1, (0, 1, 2)):       # (torch sums some multi-dim reductions before the cast: (0, 2) is left out)
        got, want = (lib.sum(lib.tensor(a).to(getattr(lib, src)), dims, dtype=getattr(lib, dt)).float().numpy() for lib in (litnn, torch))
        np.testing.assert_array_equal(got, want)
    x = np.random.default_rng(1).standard_normal((5, 5, 5)).astype(np.float32)
    got, want = (lib.masked.var(lib.tensor(x).to(lib.bfloat16), None, correction=-1).float().item() for lib in (litnn, torch))
    assert got == want


@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
@pytest.mark.parametrize('dims', [1, 2, 3])
def test_avg_pool_sums_windows_in_float32(dt, dims):
    # each window summed in float32 and divided before one rounding, as torch (OpInfo avg_pool2d bf16: 1.2 ulp off before)
    x = np.random.default_rng(2).standard_normal((2, 3) + (9,) * dims) * 8
    pool = lambda lib: getattr(lib.nn.functional, f'avg_pool{dims}d')(lib.tensor(x).to(getattr(lib, dt)), 3, 2, 1)
    if dims == 3:     # torch has no half precision avg_pool3d on CPU: litnn refuses it as torch does
        msgs = []
        for lib in (torch, litnn):
            with pytest.raises(NotImplementedError) as e: pool(lib)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]
        return
    _close(pool(litnn).float().numpy(), pool(torch).float().numpy(), dt)


@pytest.mark.parametrize('dt', ['bfloat16', 'float16'])
def test_logspace_rounds_its_ends_to_the_half_dtype(dt):
    # torch rounds start and end to the dtype, then takes exponents and powers in float32 (OpInfo logspace bf16 #310: 20480)
    for args in ((4.3, -3, 2), (-3, 4.3, 4), (0, 4, 4), (4.3, 1.2, 4), (1.0, 2.0, 7, 2.0), (0.1, 0.9, 5)):
        got, want = (lib.logspace(*args, dtype=getattr(lib, dt)).float().numpy() for lib in (litnn, torch))
        ulp = np.spacing(want.astype(np.float16)).astype(np.float32) if dt == 'float16' else 0   # float16: powers may differ in the last bit
        assert np.all(np.abs(got - want) <= ulp), (args, got, want)

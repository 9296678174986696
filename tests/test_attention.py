"""F.scaled_dot_product_attention, F.multi_head_attention_forward and nn.MultiheadAttention side by side with
torch 2.13: values and gradients from the same inputs and weights in float64 and float32, for every mask kind and
option; gradcheck; errors; reprs, state_dict keys, hooks, a torch-saved state_dict; GELU's accuracy; CuPy."""
import io, math, warnings
import numpy as np
import pytest

import litnn
import litnn.nn.functional as LF
from litnn.autograd import gradcheck, gradgradcheck
from nn_pairs import err

torch = pytest.importorskip('torch')
import torch.nn.functional as TF

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=2e-4, atol=2e-5)}


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def pair(a, requires_grad=False):
    return litnn.tensor(a.copy(), requires_grad=requires_grad), torch.tensor(a.copy(), requires_grad=requires_grad)


def close(l, t, dtype=np.float64, msg=''):
    if l is None or t is None:
        assert l is None and t is None, msg
        return
    l, t = l.detach().numpy(), t.detach().numpy()
    assert l.shape == t.shape, (msg, l.shape, t.shape)
    np.testing.assert_allclose(l, t, err_msg=msg, equal_nan=True, **TOL[dtype])


def both(f, arrays, dtype, grad_out_seed=9):
    "Run `f(lib, *tensors)` on litnn and torch; compare the outputs and the gradients of every input."
    res = []
    for lib, k in ((litnn, 0), (torch, 1)):
        ts = [pair(a.astype(dtype), True)[k] for a in arrays]
        out = f(lib, *ts)
        outs = out if isinstance(out, tuple) else (out,)
        loss = sum((o * lib.tensor(rand(*o.shape, seed=grad_out_seed + i, dtype=dtype))).sum()
                   for i, o in enumerate(outs) if o is not None and o.requires_grad)
        loss.backward()
        res.append((outs, [t.grad for t in ts]))
    (lo, lg), (to, tg) = res
    for i, (a, b) in enumerate(zip(lo, to)): close(a, b, dtype, f'output {i}')
    for i, (a, b) in enumerate(zip(lg, tg)): close(a, b, dtype, f'grad {i}')
    return lo


# --- scaled_dot_product_attention ------------------------------------------------------------------------

MASKS = ['none', 'bool', 'bool_heads', 'float', 'causal', 'dead_rows', 'dead_rows_float']


def make_mask(kind, lib, L, S, dtype):
    rng = np.random.default_rng(3)
    if kind in ('none', 'causal'): return None
    if kind == 'bool': return lib.tensor(rng.random((L, S)) > 0.3)                     # broadcast over batch and heads
    if kind == 'bool_heads': return lib.tensor(rng.random((2, 1, L, S)) > 0.4)         # per batch, shared by heads
    if kind == 'float': return lib.tensor(rng.standard_normal((3, L, S)).astype(dtype))  # per head
    m = rng.random((L, S)) > 0.3
    m[1] = False                                                                        # a query that sees nothing
    if kind == 'dead_rows': return lib.tensor(m)
    return lib.tensor(np.where(m, 0, -np.inf).astype(dtype))


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('kind', MASKS)
@pytest.mark.parametrize('L,S', [(4, 4), (3, 5), (5, 3)])
def test_sdpa_values_and_grads(dtype, kind, L, S):
    q, k, v = rand(2, 3, L, 6, seed=1), rand(2, 3, S, 6, seed=2), rand(2, 3, S, 5, seed=3)
    def f(lib, q, k, v):
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=make_mask(kind, lib, L, S, dtype),
                                                              is_causal=kind == 'causal')
    out = both(f, (q, k, v), dtype)[0]
    if kind.startswith('dead_rows'): assert (out[:, :, 1] == 0).all()      # torch's 0 for a fully masked row


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_sdpa_scale_broadcast_unbatched_gqa(dtype):
    f = lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.7)
    both(f, (rand(4, 6, seed=1), rand(5, 6, seed=2), rand(5, 3, seed=3)), dtype)                  # 2-D
    both(f, (rand(2, 3, 4, 6, seed=1), rand(1, 5, 6, seed=2), rand(3, 5, 3, seed=3)), dtype)      # batch dims broadcast
    g = lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True)
    both(g, (rand(2, 6, 4, 8, seed=1), rand(2, 2, 4, 8, seed=2), rand(2, 2, 4, 8, seed=3)), dtype)
    h = lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, enable_gqa=True, attn_mask=lib.tensor(np.random.default_rng(0).random((2, 6, 4, 4)) > 0.3))
    both(h, (rand(2, 6, 4, 8, seed=1), rand(2, 2, 4, 8, seed=2), rand(2, 2, 4, 8, seed=3)), dtype)


def test_sdpa_large_logits_are_stable():
    q, k, v = rand(2, 4, 8, seed=1) * 1e4, rand(2, 5, 8, seed=2) * 1e4, rand(2, 5, 3, seed=3)
    for dtype in (np.float64, np.float32):
        out = both(lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v), (q, k, v), dtype)[0]
        assert np.isfinite(out.detach().numpy()).all()


def test_sdpa_is_one_node_and_matches_the_composed_ops():
    q, k, v = (litnn.tensor(rand(2, 3, 4, seed=i), requires_grad=True) for i in range(3))
    out = LF.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert type(out.grad_fn).__name__ == 'ScaledDotProductAttentionBackward0'
    assert out.grad_fn.next_functions[0][0].variable is q


def test_sdpa_gradcheck():
    m = litnn.tensor(np.random.default_rng(0).random((3, 4)) > 0.3)
    for kw in (dict(), dict(is_causal=True), dict(attn_mask=m), dict(attn_mask=litnn.tensor(rand(3, 4)), scale=0.3)):
        f = lambda q, k, v: LF.scaled_dot_product_attention(q, k, v, **kw)
        args = [litnn.tensor(rand(2, *s, seed=i), requires_grad=True) for i, s in enumerate(((3, 2), (4, 2), (4, 3)))]
        assert gradcheck(f, args)
        assert gradgradcheck(f, args)


def test_sdpa_dropout():
    "Dropout zeroes weights after the softmax and scales the rest by 1/(1-p); p=1 gives zeros, as torch."
    litnn.manual_seed(0)
    S = 50
    v = litnn.eye(S, dtype=litnn.float64, requires_grad=True)
    q = k = litnn.zeros(S, 4, dtype=litnn.float64)
    out = LF.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    vals = set(np.round(out.detach().numpy().ravel(), 12))
    assert vals == {0.0, round(1 / S / 0.75, 12)}
    assert 0.2 < (out == 0).float().mean().item() < 0.3
    out.sum().backward()
    kept = out.detach().numpy()                                   # out = the kept weights (v is the identity)
    np.testing.assert_allclose(v.grad.numpy(), np.repeat(kept.sum(0)[:, None], S, 1), rtol=1e-12)   # backward used the same
    assert (LF.scaled_dot_product_attention(q, k, v, dropout_p=1.0) == 0).all()


SDPA_ERRORS = [
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(1, 3, 4), lib.ones(1, 5, 4), lib.ones(1, 5, 2),
                                                               attn_mask=lib.ones(3, 5, dtype=lib.bool), is_causal=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(2, 3, 4), lib.ones(2, 5, 3), lib.ones(2, 5, 2)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(2, 3, 4), lib.ones(2, 5, 4), lib.ones(2, 4, 2)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(3, 4, dtype=lib.float64), lib.ones(5, 4), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, 2),
                                                               attn_mask=lib.ones(3, 5, dtype=lib.long)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(4), lib.ones(4), lib.ones(4)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, 2), dropout_p=1.5),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(1, 3, 2, 4), lib.ones(1, 2, 2, 4), lib.ones(1, 2, 2, 4),
                                                               enable_gqa=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, 2),
                                                               attn_mask=lib.ones(4, 5, dtype=lib.bool)),
]


@pytest.mark.parametrize('i', range(len(SDPA_ERRORS)))
def test_sdpa_errors(i):
    assert err(SDPA_ERRORS[i], litnn) == err(SDPA_ERRORS[i], torch)


# --- MultiheadAttention ---------------------------------------------------------------------------------

def twins(dtype=np.float64, seed=0, **kw):
    "torch's MultiheadAttention and litnn's, with torch's weights (nonzero biases)."
    torch.manual_seed(seed)
    t = torch.nn.MultiheadAttention(**kw).to(torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():
        for p in t.parameters(): p.add_(torch.randn_like(p) * 0.1)
    l = litnn.nn.MultiheadAttention(**kw).to(litnn.float64 if dtype == np.float64 else litnn.float32)
    l.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return l, t


OPTIONS = [dict(), dict(bias=False), dict(add_bias_kv=True), dict(add_zero_attn=True), dict(kdim=3, vdim=5),
           dict(kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True, batch_first=True), dict(batch_first=True)]
MHA_MASKS = ['none', 'attn_bool', 'attn_float', 'attn_3d', 'kpm_bool', 'kpm_float', 'both', 'causal']


def mha_masks(kind, lib, L, S, N, H, dtype):
    rng = np.random.default_rng(5)
    am = kpm = None
    if kind in ('attn_bool', 'both'): am = lib.tensor(rng.random((L, S)) > 0.7)
    if kind == 'attn_float': am = lib.tensor((rng.standard_normal((L, S))).astype(dtype))
    if kind == 'attn_3d': am = lib.tensor(rng.standard_normal((N * H, L, S)).astype(dtype))
    if kind == 'causal': am = lib.tensor(np.triu(np.full((L, S), -np.inf), 1).astype(dtype))
    if kind in ('kpm_bool', 'both'): kpm = lib.tensor(np.arange(S)[None] >= np.array([[S], [S - 2]]))
    if kind == 'kpm_float': kpm = lib.tensor(np.where(np.arange(S)[None] >= np.array([[S], [S - 2]]), -np.inf, 0.).astype(dtype))
    return am, kpm


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('opt', range(len(OPTIONS)))
@pytest.mark.parametrize('kind', MHA_MASKS)
@pytest.mark.parametrize('need_weights,average', [(True, True), (True, False), (False, True)])
def test_mha_against_torch(dtype, opt, kind, need_weights, average):
    kw = dict(embed_dim=8, num_heads=2, **OPTIONS[opt])
    L, S, N = 4, 4 if kind == 'causal' else 6, 2
    lm, tm = twins(dtype, **kw)
    bf = kw.get('batch_first', False)
    shape = lambda seq, d: (N, seq, d) if bf else (seq, N, d)
    xs = (rand(*shape(L, 8), seed=1), rand(*shape(S, kw.get('kdim', 8)), seed=2), rand(*shape(S, kw.get('vdim', 8)), seed=3))
    if 'kdim' not in kw and opt % 2 == 0: xs = (xs[0], xs[1], xs[1])       # key is value, as often
    def f(lib, q, k, v):
        m = lm if lib is litnn else tm
        am, kpm = mha_masks(kind, lib, L, S, N, 2, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            out = m(q, k, v, key_padding_mask=kpm, attn_mask=am, need_weights=need_weights, average_attn_weights=average,
                    is_causal=kind == 'causal' and not need_weights)
        return out
    both(f, xs, dtype)
    for (n, lp), tp in zip(lm.named_parameters(), tm.parameters()): close(lp.grad, tp.grad, dtype, n)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_mha_self_attention_unbatched_and_eval(dtype):
    lm, tm = twins(dtype, embed_dim=8, num_heads=4, dropout=0.3)
    lm.eval(); tm.eval()
    x = rand(5, 8, seed=4)
    for need in (True, False):
        both(lambda lib, x: (lm if lib is litnn else tm)(x, x, x, need_weights=need), (x,), dtype)
    am = np.random.default_rng(0).random((4, 5, 5)) > 0.5
    both(lambda lib, x: (lm if lib is litnn else tm)(x, x, x, attn_mask=lib.tensor(am)), (x,), dtype)


def test_mha_dropout_in_training_only():
    lm, _ = twins(embed_dim=8, num_heads=2, dropout=0.5)
    x = litnn.tensor(rand(4, 2, 8))
    a, b = lm(x, x, x)[0], lm(x, x, x)[0]
    assert not litnn.allclose(a, b)
    lm.eval()
    assert litnn.allclose(lm(x, x, x)[0], lm(x, x, x)[0])


def test_mha_functional_form():
    lm, tm = twins(embed_dim=8, num_heads=2)
    x = rand(4, 2, 8)
    def f(lib, x):
        m = lm if lib is litnn else tm
        return lib.nn.functional.multi_head_attention_forward(
            x, x, x, 8, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight, m.out_proj.bias,
            training=False, need_weights=True)
    both(f, (x,), np.float64)


def test_mha_gradcheck():
    lm, _ = twins(embed_dim=4, num_heads=2, add_bias_kv=True, add_zero_attn=True)
    kpm = litnn.tensor([[False, False, True], [False, False, False]])
    f = lambda q, k: lm(q, k, k, key_padding_mask=kpm, need_weights=False)[0]
    assert gradcheck(f, [litnn.tensor(rand(2, 2, 4, seed=1), requires_grad=True), litnn.tensor(rand(3, 2, 4, seed=2), requires_grad=True)])


def test_mha_parameters_repr_state_dict():
    for kw in OPTIONS + [dict(add_bias_kv=True, bias=False)]:
        lm, tm = twins(embed_dim=8, num_heads=2, **kw)
        assert repr(lm) == repr(tm)
        assert list(lm.state_dict()) == list(tm.state_dict())
        assert [(n, tuple(p.shape)) for n, p in lm.named_parameters()] == [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
        assert lm._qkv_same_embed_dim == tm._qkv_same_embed_dim and lm.head_dim == tm.head_dim
    assert type(lm.out_proj).__name__ == 'NonDynamicallyQuantizableLinear'
    assert litnn.nn.MultiheadAttention(8, 2).bias_k is None


def test_mha_initialisation():
    "Xavier-uniform projections, zero biases, as torch: the statistics of the weights match."
    m = litnn.nn.MultiheadAttention(64, 4)
    bound = math.sqrt(6 / (64 + 3 * 64))
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert (m.in_proj_bias == 0).all() and (m.out_proj.bias == 0).all()


MHA_ERRORS = [
    lambda lib: lib.nn.MultiheadAttention(8, 3),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(3, 8), lib.ones(3, 8)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 6), lib.ones(3, 2, 6), lib.ones(3, 2, 6)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8), attn_mask=lib.ones(3, 4, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8), attn_mask=lib.ones(5, 3, 3)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8), key_padding_mask=lib.ones(2, 4, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8), key_padding_mask=lib.ones(2, 3, dtype=lib.long)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8), is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(3, 2, 8), lib.ones(4, 2, 8), lib.ones(3, 2, 8)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(2, 3, 2, 8), lib.ones(2, 3, 2, 8), lib.ones(2, 3, 2, 8)),
    # static keys/values: no bias_k/bias_v added to them, and (batch * heads, seq, head_dim) each
    lambda lib: _static_kv(lib, True, static_k=lib.ones(4, 3, 4)),
    lambda lib: _static_kv(lib, True, static_v=lib.ones(4, 3, 4)),
    lambda lib: _static_kv(lib, False, static_k=lib.ones(5, 3, 4)),
    lambda lib: _static_kv(lib, False, static_v=lib.ones(4, 3, 3)),
]


def _static_kv(lib, bias_kv, **static):
    m, x = lib.nn.MultiheadAttention(8, 2, add_bias_kv=bias_kv), lib.ones(3, 2, 8)
    return lib.nn.functional.multi_head_attention_forward(x, x, x, 8, 2, m.in_proj_weight, m.in_proj_bias, m.bias_k, m.bias_v, False,
                                                          0.0, m.out_proj.weight, m.out_proj.bias, **static)


@pytest.mark.parametrize('i', range(len(MHA_ERRORS)))
def test_mha_errors(i):
    l, t = err(MHA_ERRORS[i], litnn), err(MHA_ERRORS[i], torch)
    assert l[0] is t[0] and l[1] == t[1].replace('torch.Size', 'litnn.Size')


def test_mha_mismatched_mask_types_warn():
    x = litnn.ones(3, 2, 8)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        litnn.nn.MultiheadAttention(8, 2)(x, x, x, key_padding_mask=litnn.zeros(2, 3, dtype=litnn.bool), attn_mask=litnn.zeros(3, 3))


def test_mha_hooks_fire_as_torch():
    calls = {}
    for lib in (litnn, torch):
        m, log = lib.nn.MultiheadAttention(8, 2), []
        m.register_forward_pre_hook(lambda mod, args: log.append(('pre', len(args))))
        m.register_forward_hook(lambda mod, args, out: log.append(('fwd', type(out).__name__, len(out))))
        m.out_proj.register_forward_hook(lambda mod, args, out: log.append('out_proj'))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(('bwd', len(go))))
        x = lib.ones(3, 2, 8, requires_grad=True)
        m(x, x, x)[0].sum().backward()
        calls[lib.__name__] = log
    assert calls['litnn'] == calls['torch']
    assert calls['litnn'][:2] == [('pre', 3), ('fwd', 'tuple', 2)] and ('bwd', 2) in calls['litnn']
    assert 'out_proj' not in calls['litnn']       # the function uses out_proj's weights, not the module (as torch)


def test_torch_saved_state_dict_loads(tmp_path):
    torch.manual_seed(1)
    tm = torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True).double()
    path = tmp_path / 'mha.pt'
    torch.save(tm.state_dict(), path)
    lm = litnn.nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True).double()
    lm.load_state_dict(litnn.load(path))
    q, k, v = rand(3, 2, 8, seed=1), rand(5, 2, 4, seed=2), rand(5, 2, 6, seed=3)
    lo, lw = lm(*(litnn.tensor(a) for a in (q, k, v)))
    to, tw = tm(*(torch.tensor(a) for a in (q, k, v)))
    close(lo, to); close(lw, tw)


def test_activation_module_path():
    "torch keeps MultiheadAttention in torch.nn.modules.activation, and so does litnn (47a_multihead_attention writes it there)."
    from litnn.nn.modules.activation import MultiheadAttention
    assert litnn.nn.MultiheadAttention is MultiheadAttention
    assert MultiheadAttention.__module__ == 'litnn.nn.modules.activation' == torch.nn.MultiheadAttention.__module__.replace('torch', 'litnn')


# --- GELU's accuracy and speed path ------------------------------------------------------------------------

@pytest.mark.parametrize('approximate', ['none', 'tanh'])
def test_gelu_accuracy_against_torch(approximate):
    "Exact GELU: float64 to double precision, float32 within torch's float32 tolerance (atol 1e-5, rtol 1.3e-6)."
    x = np.concatenate([np.linspace(-12, 12, 200001), [0.0, -0.0, 1e-8, -1e-30, 50, -50]])
    for dtype, tol in ((np.float64, dict(rtol=1e-13, atol=1e-14)), (np.float32, dict(rtol=1.3e-6, atol=1e-5))):
        l = litnn.tensor(x.astype(dtype), requires_grad=True)
        t = torch.tensor(x.astype(dtype), requires_grad=True)
        ly, ty = LF.gelu(l, approximate=approximate), TF.gelu(t, approximate=approximate)
        assert ly.dtype == l.dtype
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
        ly.sum().backward(); ty.sum().backward()
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), **tol)
        err_f = np.abs(ly.detach().numpy().astype(np.float64) - TF.gelu(torch.tensor(x), approximate=approximate).numpy()).max()
        terr = np.abs(ty.detach().numpy().astype(np.float64) - TF.gelu(torch.tensor(x), approximate=approximate).numpy()).max()
        assert err_f <= max(4 * terr, 1e-15), (dtype, err_f, terr)      # litnn's error is of the order of torch's own


def test_gelu_second_derivative_and_half():
    for approximate in ('none', 'tanh'):
        x = litnn.tensor(rand(7), requires_grad=True)
        assert gradgradcheck(lambda x: LF.gelu(x, approximate=approximate), [x])
    h = litnn.tensor(rand(5), dtype=litnn.float16, requires_grad=True)
    y = LF.gelu(h)
    y.sum().backward()
    assert y.dtype == h.grad.dtype == litnn.float16
    th = torch.tensor(rand(5), dtype=torch.float16, requires_grad=True)
    TF.gelu(th).sum().backward()
    np.testing.assert_allclose(h.grad.numpy().astype(np.float32), th.grad.numpy().astype(np.float32), atol=2e-3)


# --- CuPy -------------------------------------------------------------------------------------------------

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_attention_on_gpu():
    q, k, v = rand(2, 3, 4, 5, seed=1), rand(2, 3, 4, 5, seed=2), rand(2, 3, 4, 5, seed=3)
    res = []
    for dev in ('cpu', 'cuda'):
        t = [litnn.tensor(a, device=dev, requires_grad=True) for a in (q, k, v)]
        y = LF.scaled_dot_product_attention(*t, is_causal=True)
        gq, = litnn.autograd.grad(y.square().sum(), t[0], create_graph=True)
        (y.sum() + gq.square().sum()).backward()
        m = litnn.nn.MultiheadAttention(5, 1).double().to(dev)
        m.load_state_dict({k: v.to(dev) for k, v in twins(embed_dim=5, num_heads=1)[0].state_dict().items()})
        res.append([y.detach().cpu().numpy(), m(t[0][0], t[1][0], t[2][0])[0].detach().cpu().numpy()] + [a.grad.cpu().numpy() for a in t])
    for c, g in zip(*res): np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('approximate', ['none', 'tanh'])
def test_gelu_backward_twice_with_retain_graph(dtype, approximate):
    "Backward writes the gradient over the saved Φ(x); a second backward (retain_graph) recomputes it."
    x = litnn.tensor(rand(7).astype(dtype), requires_grad=True)
    y = LF.gelu(x, approximate=approximate)
    y.backward(litnn.ones_like(y), retain_graph=True)
    first = x.grad.clone()
    y.backward(litnn.ones_like(y) * 3)
    np.testing.assert_allclose(x.grad.numpy(), 4 * first.numpy(), rtol=1e-6)


@pytest.mark.parametrize('kdim,vdim,ek,ev', [(4, 4, 8, 8), (4, 6, 4, 5), (8, 4, 8, 8)])
def test_separate_projection_weights_must_fit_the_inputs(kdim, vdim, ek, ev):
    "With kdim/vdim, torch checks each projection weight against its input: an AssertionError naming key or value."
    f = lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=kdim, vdim=vdim)(lib.ones(5, 2, 8), lib.ones(4, 2, ek), lib.ones(4, 2, ev))
    assert err(f, litnn) == err(f, torch)


@pytest.mark.parametrize('masks', ['none', 'kpm', 'attn', 'both', 'attn3d', 'attn3d_kpm', 'bool_both'])
def test_mha_merge_masks_like_torch(masks):
    "MultiheadAttention.merge_masks: torch's fast-path helper, public on the module: (merged mask, type 0/1/2 or None)."
    am = np.triu(np.full((3, 3), -np.inf, np.float32), 1)
    am3 = np.arange(36, dtype=np.float32).reshape(4, 3, 3)
    kpm = np.array([[False, True, False], [False, False, True]])
    res = []
    for L in (torch, litnn):
        m, q = L.nn.MultiheadAttention(8, 2, batch_first=True), L.zeros(2, 3, 8)
        a = {'attn': am, 'both': am, 'attn3d': am3, 'attn3d_kpm': am3, 'bool_both': am == 0}.get(masks)
        k = kpm if masks in ('kpm', 'both', 'attn3d_kpm', 'bool_both') else None
        merged, kind = m.merge_masks(None if a is None else L.tensor(a), None if k is None else L.tensor(k), q)
        res.append((kind, None if merged is None else (tuple(merged.shape), str(merged.dtype).split('.')[1], merged.numpy())))
    assert res[1][0] == res[0][0]
    if res[0][1] is None: assert res[1][1] is None
    else:
        assert res[1][1][:2] == res[0][1][:2]
        np.testing.assert_array_equal(res[1][1][2], res[0][1][2])


@pytest.mark.parametrize('need_weights', [False, True])
@pytest.mark.parametrize('masks', ['kpm_bool', 'attn_bool', 'both', 'kpm_float', 'attn_3d'])
def test_mha_fast_path_masks(masks, need_weights):
    """MultiheadAttention's fast path (eval, no grad, batch_first, self-attention): torch reads its masks as bool masks (any
    nonzero float masks the key out) and a query row whose keys are all masked comes out NaN."""
    w = {n: np.cos(np.arange(int(np.prod(s)), dtype=np.float32) * (i + 1)).reshape(s)
         for i, (n, s) in enumerate([('in_proj_weight', (12, 4)), ('in_proj_bias', (12,)), ('out_proj.weight', (4, 4)), ('out_proj.bias', (4,))])}
    x = np.cos(np.arange(60, dtype=np.float32) * 0.7).reshape(3, 5, 4)
    kpm = np.zeros((3, 5), np.float32); kpm[1] = -1e9; kpm[2, 1:] = -1.0; kpm[0, 0] = 0.5
    am = np.zeros((5, 5), bool); am[3] = True
    am3 = np.zeros((6, 5, 5), bool); am3[3, 2] = True          # (batch * heads, L, S): one head of batch 1, row 2
    res = []
    for lib in (torch, litnn):
        m = lib.nn.MultiheadAttention(4, 2, batch_first=True).eval()
        m.load_state_dict({k: lib.tensor(v) for k, v in w.items()})
        kw = {}
        if masks in ('kpm_bool', 'both'): kw['key_padding_mask'] = lib.tensor(kpm != 0)
        if masks == 'kpm_float': kw['key_padding_mask'] = lib.tensor(kpm)
        if masks in ('attn_bool', 'both'): kw['attn_mask'] = lib.tensor(am)
        if masks == 'attn_3d': kw['attn_mask'] = lib.tensor(am3)
        t = lib.tensor(x)
        with lib.no_grad(): out, wt = m(t, t, t, need_weights=need_weights, **kw)
        res.append((out.numpy(), None if wt is None else wt.numpy()))
    (to, tw), (lo, lw) = res
    np.testing.assert_array_equal(np.isnan(lo), np.isnan(to))
    np.testing.assert_allclose(lo, to, rtol=1e-5, atol=1e-5)
    assert (tw is None) == (lw is None)
    if tw is not None: np.testing.assert_allclose(lw, tw, rtol=1e-5, atol=1e-5)


def test_fast_path_goes_through_native_multi_head_attention_as_torch():
    "MultiheadAttention's fast path calls <lib>._native_multi_head_attention, looked up at call time (torch's test_multihead_self_attn_two_masks_fast_path_mock)."
    import unittest.mock as mock
    def called(lib, **kw):
        lib.manual_seed(0)
        m = lib.nn.MultiheadAttention(16, 8, batch_first=True, **kw.pop('mk', {})).eval()
        q = lib.rand(8, 5, 16)
        masks = dict(attn_mask=lib.randint(0, 2, (5, 5)).bool(), key_padding_mask=lib.randint(0, 2, (8, 5)).bool())
        with mock.patch.object(lib, '_native_multi_head_attention', mock.MagicMock(return_value=(lib.Tensor(), lib.Tensor()))) as fm:
            with (lib.no_grad() if kw.pop('no_grad', True) else mock.MagicMock()):
                m(q, q if kw.pop('self_attn', True) else q.clone(), q, **masks)
        return fm.called
    for kw in ({}, {'no_grad': False}, {'self_attn': False}, {'mk': {'add_bias_kv': True}}, {'mk': {'bias': False}}):
        assert called(litnn, **dict(kw)) == called(torch, **dict(kw)), kw

@pytest.mark.parametrize('mask_type', [None, 0, 1, 2])
@pytest.mark.parametrize('need_weights, average', [(True, True), (True, False), (False, True)])
def test_native_multi_head_attention_as_torch(mask_type, need_weights, average):
    def run(lib):
        g = np.random.default_rng(3)
        t = lambda *s: lib.tensor(g.standard_normal(s), dtype=lib.float64)
        B, L, E, H = 2, 4, 8, 2
        q, w, b, pw, pb = t(B, L, E), t(3 * E, E), t(3 * E), t(E, E), t(E)
        kpm = lib.tensor([[False, False, True, False], [True, True, True, True]])      # a fully masked batch: NaN rows
        am = lib.tensor(g.integers(0, 2, (L, L)).astype(bool))
        mask = {None: None, 0: am, 1: kpm, 2: (am.view(1, 1, L, L).expand(B, H, L, L) + kpm.view(B, 1, 1, L).expand(-1, H, -1, -1))}[mask_type]
        out, wt = lib._native_multi_head_attention(q, q, q, E, H, w, b, pw, pb, mask, need_weights, average, mask_type)
        return out.numpy(), None if wt is None else wt.numpy()
    (o1, w1), (o2, w2) = run(litnn), run(torch)
    np.testing.assert_allclose(o1, o2, rtol=1e-9, atol=1e-9)      # (NaN where torch has NaN)
    assert (w1 is None) == (w2 is None)
    if w1 is not None: np.testing.assert_allclose(w1, w2, rtol=1e-9, atol=1e-9)


def _proj(lib, E, seed=0):
    g = np.random.default_rng(seed)
    return [lib.tensor(g.standard_normal(s) * 0.3) for s in ((3 * E, E), (3 * E,), (E, E), (E,))]


@pytest.mark.parametrize('need_weights', [False, True])
@pytest.mark.parametrize('average', [False, True])
@pytest.mark.parametrize('mode', ['self', 'encdec', 'generic'])
def test_native_multi_head_attention_nested_as_torch(need_weights, average, mode):
    "Nested inputs: a nested output, sequence by sequence; the weights dense, zero-padded to the longest L and S."
    E, H = 8, 2
    res = {}
    for lib in (litnn, torch):
        g = np.random.default_rng(1)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            mk = lambda: lib.nested.nested_tensor([lib.tensor(g.standard_normal((n, E))) for n in (3, 5)])
            q = mk(); k = q if mode == 'self' else mk(); v = k if mode != 'generic' else mk()
        with lib.no_grad():
            o, w = lib._native_multi_head_attention(q, k, v, E, H, *_proj(lib, E), None, need_weights=need_weights,
                                                    average_attn_weights=average, mask_type=1)
        res[lib.__name__] = (o.is_nested, [c.numpy() for c in o.unbind()], None if w is None else (w.is_nested, w.numpy()))
    l, t = res['litnn'], res['torch']
    assert l[0] == t[0] and (l[2] is None) == (t[2] is None)
    for a, b in zip(l[1], t[1]): np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    if t[2] is not None: assert l[2][0] == t[2][0]; np.testing.assert_allclose(l[2][1], t[2][1], rtol=1e-9, atol=1e-12)


def test_mha_fast_path_equals_slow_path_bitwise_as_torch():
    """The fast path projects self-attention's q, k, v in one product, as the slow path does: the same bits (torch's
    test_multihead_attention_fastpath_for_all_batchfirst asks it of torch, single-threaded), and torch's values."""
    outs = {}
    for lib in (torch, litnn):
        lib.manual_seed(0)
        mha = lib.nn.MultiheadAttention(100, 2, batch_first=True).eval()
        if lib is litnn: mha.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in outs['sd'].items()})
        else: outs['sd'] = mha.state_dict()
        with lib.no_grad():
            q = lib.tensor(rand(5, 2, 100, seed=2, dtype=np.float32))
            a, _ = mha(q, q, q)
            mha.batch_first = False
            qt = q.transpose(1, 0)
            b, _ = mha(qt, qt, qt)
        outs[lib.__name__] = (a.numpy(), b.transpose(1, 0).numpy())
    assert (outs['litnn'][0] == outs['litnn'][1]).all()
    np.testing.assert_allclose(outs['litnn'][0], outs['torch'][0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('shape', [(2, 3, 12, 2), (4, 2, 24, 4), (1, 5, 48, 4)])
def test_transform_bias_rescale_qkv_as_torch(shape):
    B, T, D3, H = shape
    x, b = rand(B, T, D3, seed=3), rand(D3, seed=4)
    outs = [lib._transform_bias_rescale_qkv(lib.tensor(x), lib.tensor(b), num_heads=H) for lib in (litnn, torch)]
    for l, t in zip(*outs):
        assert tuple(l.shape) == tuple(t.shape) and l.stride() == t.stride()
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        nts = [lib._transform_bias_rescale_qkv(lib.nested.nested_tensor([lib.tensor(x[i, :T - i]) for i in range(B)]),
                                               lib.tensor(b), H) for lib in (litnn, torch)]
    for l, t in zip(*nts):
        assert tuple(l.shape) == tuple(t.shape)
        np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)
    from torch_pairs import same_message
    same_message(lambda lib: lib._transform_bias_rescale_qkv(lib.tensor(x), lib.tensor(b), num_heads=5))
    same_message(lambda lib: lib._transform_bias_rescale_qkv(lib.tensor(x[..., :-3]), lib.tensor(b[:-3]), num_heads=2))   # (D odd)


EMPTY_SDPA = [((0, 4, 6), (0, 3, 6), (0, 3, 6), 'causal_mask'), ((0, 2, 4, 6), (0, 2, 3, 6), (0, 2, 3, 6), None),
              ((2, 0, 6), (2, 3, 7), (2, 3, 5), None), ((2, 4, 6), (2, 3, 7), (2, 3, 0), None), ((0, 4, 6), (0, 3, 6), (0, 3, 9), 'bad_shape'),
              ((0, 4, 6), (0, 3, 6), (0, 3, 6), 'long'), ((0, 4, 6), (0, 3, 6), (0, 3, 6), 'int_inputs'), ((0, 4), (0, 3), (0, 3), 'grad'),
              ((2, 3, 4), (2, 5, 4), (0, 5, 4), None), ((1, 4, 6), (2, 0, 6), (2, 0, 5), None), ((3, 0, 4), (2, 5, 4), (2, 5, 4), None),
              ((0, 3, 4), (2, 5, 4), (2, 5, 4), None), ((2, 4, 6), (2, 0, 6), (2, 3, 5), None), ((2, 4, 0), (2, 3, 0), (2, 3, 5), None)]


@pytest.mark.parametrize('case', EMPTY_SDPA)
def test_sdpa_empty_result_returns_before_the_other_checks_as_torch(case):
    """No query positions or an empty value: zeros of query's batch and length after only the rank, dtype and mask-dtype
    checks (torch 2.13: even with is_causal and a mask, or batches that do not broadcast); other empty inputs compute."""
    from torch_pairs import same
    qs, ks, vs, kind = case
    def f(lib):
        dt = lib.int64 if kind == 'int_inputs' else lib.float32
        q, k, v = (lib.zeros(s, dtype=dt, requires_grad=kind == 'grad') for s in (qs, ks, vs))
        mask = {'causal_mask': lib.ones(4, 3).bool(), 'bad_shape': lib.zeros(9, 9).bool(), 'long': lib.zeros(4, 3, dtype=lib.int64)}.get(kind)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, mask, 0.0, kind == 'causal_mask')
        if kind == 'grad': out.sum().backward(); return tuple(q.grad.shape), out.requires_grad
        return tuple(out.shape), out.stride(), str(out.dtype).split('.')[-1], out.abs().sum().item()
    same(f)


@pytest.mark.parametrize('qd,md', [('float64', 'float32'), ('float16', 'float32'), ('bfloat16', 'float32'), ('float32', 'float64'),
                                   ('float64', 'float16'), ('float32', 'int64'), ('float16', 'bfloat16')])
def test_sdpa_float32_mask_goes_with_any_query_dtype_as_torch(qd, md):
    """torch takes an attn_mask that is bool, float32 or the query's dtype (a float32 mask with float64 queries: HF RT-DETR
    in double); other dtypes are refused with its message. Values and gradients in the query's dtype."""
    q, k, v = (rand(2, 2, 3, 4, seed=s) for s in range(3)); m = rand(3, 3, seed=3)
    def run(lib, F):
        qq, kk, vv = (lib.tensor(a, dtype=getattr(lib, qd), requires_grad=True) for a in (q, k, v))
        mm = lib.tensor(m if md != 'int64' else (m > 0), dtype=getattr(lib, md))
        try: o = F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mm)
        except RuntimeError as e: return str(e)
        (o.double() * lib.tensor(rand(2, 2, 3, 4, seed=4))).sum().backward()
        return str(o.dtype).split('.')[-1], [t.detach().double().numpy() for t in (o, qq.grad, kk.grad, vv.grad)]
    a, b = run(litnn, LF), run(torch, TF)
    if isinstance(b, str): assert a == b; return
    assert a[0] == b[0]
    tol = dict(rtol=1e-10, atol=1e-12) if qd == 'float64' else dict(rtol=2e-2, atol=2e-2)    # (half precision: its own rounding)
    for x, y in zip(a[1], b[1]): np.testing.assert_allclose(x, y, **tol)

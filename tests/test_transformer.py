"""nn.TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and Transformer side
by side with torch 2.13 from the same weights: outputs and gradients (inputs and every parameter) in float64 and
float32 for every option and mask; inference with padding (torch's nested-tensor path); warnings, reprs, state_dict
keys, hooks, errors, a torch-saved checkpoint through litnn.load; CuPy."""
import warnings
import numpy as np
import pytest

import litnn
from litnn.autograd import gradcheck
from nn_pairs import err

torch = pytest.importorskip('torch')

TOL = {np.float64: dict(rtol=1e-9, atol=1e-11), np.float32: dict(rtol=3e-4, atol=3e-5)}


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def close(l, t, dtype, msg=''):
    if l is None or t is None:
        assert l is None and t is None, msg
        return
    l, t = l.detach().numpy(), t.detach().numpy()
    assert l.shape == t.shape, (msg, l.shape, t.shape)
    np.testing.assert_allclose(l, t, err_msg=msg, equal_nan=True, **TOL[dtype])


def twins(make, dtype=np.float64, seed=0):
    "`make(lib)` in torch and litnn, litnn loading torch's weights (randomised biases and norms too)."
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t, l = make(torch), make(litnn)
    t = t.to(torch.float64 if dtype == np.float64 else torch.float32)
    l = l.to(litnn.float64 if dtype == np.float64 else litnn.float32)
    with torch.no_grad():
        for p in t.parameters(): p.add_(torch.randn_like(p) * 0.1)
    l.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return l, t


def run_both(l, t, f, arrays, dtype):
    "f(lib, module, *tensors) on both; compare outputs and gradients of the inputs and of every parameter."
    res = []
    for lib, m in ((litnn, l), (torch, t)):
        ts = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        out = f(lib, m, *ts)
        (out * lib.tensor(rand(*out.shape, seed=7, dtype=dtype))).sum().backward()
        res.append((out, [x.grad for x in ts]))
    close(res[0][0], res[1][0], dtype, 'output')
    for i, (a, b) in enumerate(zip(res[0][1], res[1][1])): close(a, b, dtype, f'input grad {i}')
    for (n, lp), (_, tp) in zip(l.named_parameters(), t.named_parameters()): close(lp.grad, tp.grad, dtype, n)
    return res[0][0]


def causal(lib, n, dtype):
    return lib.tensor(np.triu(np.full((n, n), -np.inf), 1).astype(dtype))


ACTS = {'relu': lambda lib: 'relu', 'gelu': lambda lib: 'gelu', 'fn_gelu': lambda lib: lib.nn.functional.gelu,
        'callable': lambda lib: lib.nn.functional.silu, 'module': lambda lib: lib.nn.GELU(approximate='tanh')}
LAYER_OPTS = [dict(), dict(norm_first=True), dict(batch_first=True), dict(bias=False, layer_norm_eps=1e-3),
              dict(norm_first=True, batch_first=True)]


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('act', list(ACTS))
@pytest.mark.parametrize('opt', range(len(LAYER_OPTS)))
@pytest.mark.parametrize('masks', ['none', 'causal', 'is_causal', 'kpm', 'bool_both'])
def test_encoder_layer(dtype, act, opt, masks):
    kw = LAYER_OPTS[opt]
    l, t = twins(lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=ACTS[act](lib), **kw), dtype)
    bf, S, N = kw.get('batch_first', False), 5, 2
    x = rand(*((N, S, 8) if bf else (S, N, 8)), seed=1)
    def f(lib, m, x):
        kpm = lib.tensor(np.arange(S)[None] >= np.array([[S], [S - 2]])) if masks in ('kpm', 'bool_both') else None
        am = causal(lib, S, dtype) if masks in ('causal', 'is_causal') else \
             lib.tensor(np.triu(np.ones((S, S), bool), 1)) if masks == 'bool_both' else None
        return m(x, src_mask=am, src_key_padding_mask=kpm, is_causal=masks == 'is_causal')
    run_both(l, t, f, (x,), dtype)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('act', ['relu', 'gelu', 'callable'])
@pytest.mark.parametrize('opt', range(len(LAYER_OPTS)))
@pytest.mark.parametrize('masks', ['none', 'tgt_causal', 'all'])
def test_decoder_layer(dtype, act, opt, masks):
    kw = LAYER_OPTS[opt]
    l, t = twins(lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=ACTS[act](lib), **kw), dtype)
    bf, T, S, N = kw.get('batch_first', False), 4, 6, 2
    tgt, mem = rand(*((N, T, 8) if bf else (T, N, 8)), seed=1), rand(*((N, S, 8) if bf else (S, N, 8)), seed=2)
    def f(lib, m, tgt, mem):
        a = dict()
        if masks != 'none': a['tgt_mask'] = causal(lib, T, dtype)
        if masks == 'all':
            a['memory_mask'] = lib.tensor(np.random.default_rng(3).random((T, S)) > 0.8)
            a['tgt_key_padding_mask'] = lib.tensor(np.arange(T)[None] >= np.array([[T], [T - 1]]))
            a['memory_key_padding_mask'] = lib.tensor(np.arange(S)[None] >= np.array([[S - 1], [S - 2]]))
            a['memory_mask'] = a['memory_mask'] & ~lib.tensor(np.eye(T, S, dtype=bool))   # every query sees a key
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return m(tgt, mem, **a)
    run_both(l, t, f, (tgt, mem), dtype)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('norm_first', [False, True])
def test_stacks_and_transformer(dtype, norm_first):
    make = lambda lib: lib.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                                          dropout=0.0, norm_first=norm_first, activation='gelu')
    l, t = twins(make, dtype)
    src, tgt = rand(6, 2, 8, seed=1), rand(4, 2, 8, seed=2)
    def f(lib, m, src, tgt):
        return m(src, tgt, tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=src.dtype),
                 src_key_padding_mask=lib.tensor([[False] * 6, [False] * 4 + [True] * 2]),
                 memory_key_padding_mask=lib.tensor([[False] * 6, [False] * 4 + [True] * 2]))
    run_both(l, t, f, (src, tgt), dtype)
    enc = lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True), 3,
                                                norm=lib.nn.LayerNorm(8))
    l, t = twins(enc, dtype)
    run_both(l, t, lambda lib, m, x: m(x, mask=causal(lib, 5, dtype)), (rand(2, 5, 8, seed=3),), dtype)
    dec = lambda lib: lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2)
    l, t = twins(dec, dtype)
    run_both(l, t, lambda lib, m, x, mem: m(x, mem, tgt_is_causal=True, tgt_mask=causal(lib, 3, dtype)),
             (rand(3, 2, 8, seed=4), rand(5, 2, 8, seed=5)), dtype)


def test_unbatched():
    l, t = twins(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0))
    run_both(l, t, lambda lib, m, s, x: m(s, x), (rand(5, 8, seed=1), rand(3, 8, seed=2)), np.float64)


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_inference_with_padding_is_torch_nested_path(dtype):
    "torch's encoder in eval with a padding mask runs nested tensors: padded positions come out as 0."
    enc = lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
    l, t = twins(enc, dtype)
    l.eval(); t.eval()
    x = rand(3, 5, 8, seed=1, dtype=dtype)
    pad = np.arange(5)[None] >= np.array([[5], [3], [4]])
    with litnn.no_grad(): lo = l(litnn.tensor(x), src_key_padding_mask=litnn.tensor(pad))
    with torch.no_grad(): to = t(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
    close(lo, to, dtype)
    assert (lo[1, 3:] == 0).all()
    lo = l(litnn.tensor(x), src_key_padding_mask=litnn.tensor(pad))          # grad enabled: no nested path, in both
    to = t(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
    close(lo, to, dtype)


def test_dropout_in_training_only():
    m = litnn.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = litnn.tensor(rand(4, 2, 8, dtype=np.float32))
    assert not litnn.allclose(m(x), m(x))
    m.eval()
    assert litnn.allclose(m(x), m(x))


def test_gradcheck_layer():
    m = litnn.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, norm_first=True).double()
    f = lambda x, mem: m(x, mem, tgt_mask=litnn.nn.Transformer.generate_square_subsequent_mask(3, dtype=litnn.float64))
    assert gradcheck(f, [litnn.tensor(rand(3, 1, 4, seed=1), requires_grad=True), litnn.tensor(rand(2, 1, 4, seed=2), requires_grad=True)])


MODULES = [lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16),
           lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.GELU(), bias=False),
           lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, norm_first=True),
           lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 2, norm=lib.nn.LayerNorm(8)),
           lambda lib: lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16), 2),
           lambda lib: lib.nn.Transformer(8, 2, 2, 1, 16)]


@pytest.mark.parametrize('i', range(len(MODULES)))
def test_repr_state_dict_parameters(i):
    l, t = twins(MODULES[i])
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())
    assert [(n, tuple(p.shape)) for n, p in l.named_parameters()] == [(n, tuple(p.shape)) for n, p in t.named_parameters()]


def test_attributes():
    for lib in (litnn, torch):
        m = lib.nn.TransformerEncoderLayer(8, 2, activation='gelu')
        assert (m.activation_relu_or_gelu, m.norm_first, m.activation is lib.nn.functional.gelu) == (2, False, True)
    assert litnn.nn.TransformerEncoderLayer(8, 2, activation=litnn.nn.functional.silu).activation_relu_or_gelu == 0


NESTED_WARNINGS = [lambda lib: lib.nn.TransformerEncoderLayer(8, 2), lambda lib: lib.nn.TransformerEncoderLayer(8, 2, batch_first=True, norm_first=True),
                   lambda lib: lib.nn.TransformerEncoderLayer(8, 2, batch_first=True, bias=False),
                   lambda lib: lib.nn.TransformerEncoderLayer(8, 2, batch_first=True, activation=lib.nn.functional.silu),
                   lambda lib: lib.nn.TransformerEncoderLayer(8, 1, batch_first=True), lambda lib: lib.nn.TransformerEncoderLayer(8, 2, batch_first=True)]


@pytest.mark.parametrize('i', range(len(NESTED_WARNINGS)))
def test_nested_tensor_warnings(i):
    got = []
    for lib in (litnn, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            m = lib.nn.TransformerEncoder(NESTED_WARNINGS[i](lib), 2)
        got.append(([str(x.message) for x in w], m.use_nested_tensor))
    assert got[0] == got[1]


def test_square_subsequent_mask():
    for n in (1, 4):
        np.testing.assert_array_equal(litnn.nn.Transformer.generate_square_subsequent_mask(n).numpy(),
                                      torch.nn.Transformer.generate_square_subsequent_mask(n).numpy())
    assert litnn.nn.Transformer.generate_square_subsequent_mask(3, dtype=litnn.float64).dtype == litnn.float64


ERRORS = [lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation='tanh'),
          lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(3, 2, 8), lib.ones(3, 3, 8)),
          lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(3, 2, 8), lib.ones(3, 2, 4)),
          lambda lib: lib.nn.TransformerEncoderLayer(8, 2)(lib.ones(3, 2, 8), src_key_padding_mask=lib.ones(2, 3, dtype=lib.long))]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    assert err(ERRORS[i], litnn) == err(ERRORS[i], torch)


def test_hooks_fire_on_sublayers():
    logs = []
    for lib in (litnn, torch):
        m, log = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), []
        for name, sub in m.named_modules():
            sub.register_forward_hook(lambda mod, args, out, name=name: log.append(name))
        m(lib.ones(3, 2, 8))
        logs.append(log)
    assert logs[0] == logs[1]


def test_torch_checkpoint_loads(tmp_path):
    torch.manual_seed(3)
    t = torch.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0).double()
    torch.save(t.state_dict(), tmp_path / 'tr.pt')
    l = litnn.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0).double()
    l.load_state_dict(litnn.load(tmp_path / 'tr.pt'))
    s, x = rand(5, 2, 8, seed=1), rand(3, 2, 8, seed=2)
    close(l(litnn.tensor(s), litnn.tensor(x)), t(torch.tensor(s), torch.tensor(x)), np.float64)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_transformer_on_gpu():
    l, _ = twins(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0))
    s, x = rand(5, 2, 8, seed=1), rand(3, 2, 8, seed=2)
    cpu = l(litnn.tensor(s), litnn.tensor(x))
    g = l.to('cuda')(litnn.tensor(s, device='cuda'), litnn.tensor(x, device='cuda'))
    np.testing.assert_allclose(g.detach().cpu().numpy(), cpu.detach().numpy(), rtol=1e-6, atol=1e-8)


def _nested_pair(comps):
    return [lib.nested.nested_tensor([lib.tensor(c) for c in comps]) for lib in (torch, litnn)]


def test_nested_input_on_the_fast_path():
    "A strided nested batch through an encoder layer / self-attention in inference (torch's fast path): each sequence on its own."
    rng = np.random.default_rng(0)
    comps = [rng.normal(size=(2, 8)), rng.normal(size=(3, 8)), np.zeros((0, 8))]
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=torch.double).eval()
    ll = litnn.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=litnn.double).eval()
    ll.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in tl.state_dict().items()})
    tn, ln = _nested_pair(comps)
    with torch.no_grad(), litnn.no_grad():
        to, lo = tl(tn), ll(ln)
        assert lo.is_nested and [tuple(c.shape) for c in lo.unbind()] == [tuple(c.shape) for c in to.unbind()]
        for a, b in zip(to.unbind(), lo.unbind()): np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-9, atol=1e-12)
        (to, tw), (lo, lw) = tl.self_attn(tn, tn, tn), ll.self_attn(ln, ln, ln)   # padded weights, zeros past each length
        np.testing.assert_allclose(lw.numpy(), tw.numpy(), rtol=1e-9, atol=1e-12)
        for a, b in zip(to.unbind(), lo.unbind()): np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-9, atol=1e-12)


def test_nested_input_off_the_fast_path_is_refused():
    "Off the fast path, MultiheadAttention refuses a nested tensor with torch's AssertionError and reason."
    comps = [np.ones((2, 8)), np.ones((3, 8))]
    reasons = []
    for lib in (torch, litnn):
        tn = lib.nested.nested_tensor([lib.tensor(c) for c in comps])
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=lib.double).eval()
        cases = [lambda: layer(tn),                                                   # grad enabled, parameters need it
                 lambda: layer.train()(tn),
                 lambda: lib.nn.TransformerEncoderLayer(8, 1, 16, batch_first=True, dtype=lib.double).eval()(tn),
                 lambda: lib.nn.TransformerEncoderLayer(8, 2, 16, dtype=lib.double).eval()(tn),
                 lambda: layer.eval()(lib.nested.nested_tensor([]))]
        got = []
        for case in cases:
            with (torch.no_grad() if lib is torch else litnn.no_grad()) if case is not cases[0] else warnings.catch_warnings():
                with pytest.raises(AssertionError, match="MultiheadAttention does not support NestedTensor outside of its fast path") as e:
                    case()
            got.append(str(e.value).split('because ')[-1])
        reasons.append(got)
    assert reasons[0] == reasons[1]


def test_backends_mha_switch_turns_the_fast_path_off_as_torch():
    "torch.backends.mha.set_fastpath_enabled(False): attention and the encoder layer refuse a nested batch, naming the switch."
    import torch as T
    msgs = []
    for L in (litnn, T):
        L.manual_seed(0)
        mha = L.nn.MultiheadAttention(4, 2, batch_first=True).eval()
        layer = L.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True).eval()
        x = L.nested.nested_tensor([L.randn(3, 4), L.randn(2, 4)])
        assert L.backends.mha.get_fastpath_enabled() is True
        L.backends.mha.set_fastpath_enabled(False)
        try:
            with L.no_grad():
                for f in (lambda: mha(x, x, x), lambda: layer(x)):
                    with pytest.raises(AssertionError) as e: f()
                    msgs.append(str(e.value).replace('litnn', 'torch'))
        finally: L.backends.mha.set_fastpath_enabled(True)
        with L.no_grad(): assert mha(x, x, x)[0].is_nested
    assert msgs[:2] == msgs[2:] and 'get_fastpath_enabled() was not True' in msgs[0]


def _fast_path_pair(norm_first=False):
    "A small eval-mode batch_first encoder layer in torch and litnn with the same weights."
    tm = torch.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True, norm_first=norm_first).eval()
    lm = litnn.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True, norm_first=norm_first).eval()
    for (n, tp), lp in zip(tm.named_parameters(), lm.parameters()):
        w = np.cos(np.arange(tp.numel(), dtype=np.float32)).reshape(tuple(tp.shape))
        with torch.no_grad(): tp.copy_(torch.tensor(w))
        with litnn.no_grad(): lp.copy_(litnn.tensor(w))
    return tm, lm


@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('masks', ['kpm_bool', 'attn_bool', 'both', 'kpm_float'])
def test_fast_path_masks(masks, norm_first):
    """torch's encoder-layer fast path (eval, no grad, batch_first): its masks act as bool masks (any nonzero float masks the
    key out) and a query row whose keys are all masked comes out NaN (the slow path gives that attention 0)."""
    tm, lm = _fast_path_pair(norm_first)
    x = np.cos(np.arange(60, dtype=np.float32)).reshape(3, 5, 4)
    kpm = np.zeros((3, 5), np.float32); kpm[1] = -1e9; kpm[2, 1:] = -1.0; kpm[0, 0] = 0.5
    am = np.zeros((5, 5), bool); am[3] = True
    def run(lib, m):
        kw = {}
        if masks in ('kpm_bool', 'both'): kw['src_key_padding_mask'] = lib.tensor(kpm != 0)
        if masks == 'kpm_float': kw['src_key_padding_mask'] = lib.tensor(kpm)
        if masks in ('attn_bool', 'both'): kw['src_mask'] = lib.tensor(am)
        with lib.no_grad(): return m(lib.tensor(x), **kw).numpy()
    want, got = run(torch, tm), run(litnn, lm)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_slow_path_masks_give_no_nan():
    "Off the fast path (training, or grad enabled) a fully masked row is not NaN, in torch and litnn."
    tm, lm = _fast_path_pair()
    x = np.cos(np.arange(60, dtype=np.float32)).reshape(3, 5, 4)
    kpm = np.zeros((3, 5), bool); kpm[1] = True
    for lib, m in ((torch, tm), (litnn, lm)):
        assert not np.isnan(m(lib.tensor(x), src_key_padding_mask=lib.tensor(kpm)).detach().numpy()).any()
        m.train()
        with lib.no_grad(): assert not np.isnan(m(lib.tensor(x), src_key_padding_mask=lib.tensor(kpm)).numpy()).any()


# torch's fast-path operators: TransformerEncoderLayer calls torch._transformer_encoder_layer_fwd (inference), and
# TransformerEncoder hands it a nested tensor for a left-aligned padding mask; litnn's call the same-named operators under the
# same conditions (a test may stand in for them, as torch's test_transformers does).
from unittest import mock

FAST_CASES = [dict(nested=n, check=c, kpm=k, am=a) for n in (True, False) for c in (True, False)
              for k in (None, [[0, 0, 1]], [[1, 0, 1]]) for a in (None, [[1, 0, 1], [0, 1, 0], [1, 0, 1]])]


@pytest.mark.parametrize('case', range(len(FAST_CASES) + 2))
def test_encoder_fast_path_operator_calls_as_torch(case):
    c = FAST_CASES[case] if case < len(FAST_CASES) else dict(nested=True, check=True, kpm=[[0, 0, 1]], am=None)
    calls = {}
    for lib in (litnn, torch):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(d_model=2, nhead=2, dim_feedforward=8, batch_first=True)
        enc = lib.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=c['nested'], mask_check=c['check']).eval()
        x = lib.tensor([[[1., 2.], [3., 4.], [5., 6.]]])
        kpm = None if c['kpm'] is None else lib.tensor(c['kpm']).bool()
        am = None if c['am'] is None else lib.tensor(c['am']).bool()
        real = lib._transformer_encoder_layer_fwd
        lib.backends.mha.set_fastpath_enabled(case != len(FAST_CASES))      # one case with the fast path switched off
        try:
            with mock.patch.object(lib, '_transformer_encoder_layer_fwd', side_effect=real) as m, lib.no_grad():
                out = enc(x, src_key_padding_mask=kpm, mask=am)
        finally: lib.backends.mha.set_fastpath_enabled(True)
        if case == len(FAST_CASES) + 1:                                      # with grad: never the fast path
            with mock.patch.object(lib, '_transformer_encoder_layer_fwd', side_effect=real) as m2: enc(x, src_key_padding_mask=kpm)
            assert not m2.called
        calls[lib.__name__] = (m.call_count, [a[0].is_nested for a, _ in m.call_args_list], out.shape, out.isnan().tolist())
    assert calls['litnn'] == calls['torch'], calls


@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('masks', ['kpm_float', 'am_float', 'both_bool', 'both_float'])
def test_encoder_layer_fast_path_values_as_torch(norm_first, masks):
    "The fast path's masks are bool (any nonzero value hides the key) and a row left without keys is NaN, as torch's."
    l, t = twins(lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=norm_first, activation='gelu'))
    l.eval(); t.eval()
    x = rand(2, 4, 8, seed=3)
    kpm = np.array([[0., 0., 0.5, 1.], [2., 2., 2., 2.]])
    am = np.array([[0., 1.5, 0., 0.], [0., 0., 0., -1.], [0.] * 4, [3., 0., 0., 0.]])
    def call(lib, m):
        k = None if masks == 'am_float' else lib.tensor(kpm != 0) if masks == 'both_bool' else lib.tensor(kpm)
        a = None if masks == 'kpm_float' else lib.tensor(am != 0) if masks == 'both_bool' else lib.tensor(am)
        with lib.no_grad(): return m(lib.tensor(x), src_mask=a, src_key_padding_mask=k)
    close(call(litnn, l), call(torch, t), np.float64)


def test_nested_tensor_from_mask_as_torch():
    from torch_pairs import same_message
    x = rand(2, 3, 2)
    for m in ([[1, 1, 0], [1, 0, 0]], [[1, 0, 1], [1, 1, 1]]):
        for check in (True, False):
            f = lambda lib: [c.tolist() for c in lib._nested_tensor_from_mask(lib.tensor(x), lib.tensor(m).bool(), mask_check=check).unbind()]
            if m[0] == [1, 0, 1] and check: same_message(f)
            else: assert f(litnn) == f(torch)
        assert litnn._nested_tensor_from_mask_left_aligned(litnn.tensor(x), litnn.tensor(m).bool()) == \
            torch._nested_tensor_from_mask_left_aligned(torch.tensor(x), torch.tensor(m).bool())
    same_message(lambda lib: lib._nested_tensor_from_mask(lib.tensor(x), lib.ones(2, 3)))
    same_message(lambda lib: lib._nested_tensor_from_mask(lib.tensor(x), lib.ones(2, 2).bool()))
    same_message(lambda lib: lib._nested_tensor_from_mask(lib.tensor(x[0]), lib.ones(2, 3).bool()))


@pytest.mark.parametrize('dtype', ['float64', 'float32', 'bfloat16', 'float16'])
@pytest.mark.parametrize('dropout', [0.0, 0.7])
@pytest.mark.parametrize('kind', ['dense', 'nested', 'masked', 'gqa'])
@pytest.mark.parametrize('backends', ['MATH', 'FLASH_ATTENTION', 'both'])
def test_fused_sdp_choice_as_torch(dtype, dropout, kind, backends):
    def choice(lib):
        g = np.random.default_rng(0)
        mk = lambda *s: lib.tensor(g.standard_normal(s)).to(getattr(lib, dtype))
        if kind == 'nested':
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                q = lib.nested.nested_tensor([mk(3, 2, 8), mk(5, 2, 8)]).transpose(1, 2)
            k = v = q
        else:
            q = mk(2, 4, 6, 8); k = v = mk(2, 2 if kind == 'gqa' else 4, 5, 8)
        mask = mk(6, 5) if kind == 'masked' else None
        B = lib.nn.attention.SDPBackend
        on = [B.MATH, B.FLASH_ATTENTION] if backends == 'both' else [getattr(B, backends)]
        with lib.nn.attention.sdpa_kernel(on), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: return lib._fused_sdp_choice(q, k, v, mask, dropout, enable_gqa=kind == 'gqa')
            except RuntimeError as e: return str(e)
    assert choice(litnn) == choice(torch)

"""torch.nn.attention side by side with litnn.nn.attention: SDPBackend, sdpa_kernel over the torch.backends.cuda switches,
the CPU kernel choice of scaled_dot_product_attention (its refusals, errors and warnings), and nn.attention.bias's causal masks."""
import warnings
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import torch.nn.attention as TA
import torch.nn.attention.bias as TB
import litnn
import litnn.nn.attention as LA
import litnn.nn.attention.bias as LB

LIBS = [(torch, TA, TB), (litnn, LA, LB)]


@pytest.fixture(autouse=True)
def all_kernels_on():
    "Each test starts and ends with every kernel switched on and the default priority, in both libraries."
    def reset():
        for lib, A, _ in LIBS: A._sdpa_kernel(list(A.SDPBackend.__members__.values()), set_priority=False)
        torch._C._set_sdp_priority_order([1, 2, 0, 3, 4]); LA._priority[:] = [1, 2, 0, 3, 4]
    reset(); yield; reset()


def names(backends): return [b.name for b in backends]

def run(f):
    "What `f` does: its value, or its exception's type and message; and the messages of its warnings (C++ origin notes cut)."
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: out = ('ok', f())
        except Exception as e: out = (type(e).__name__, str(e).replace('torch.', 'litnn.'))
    return out, [str(x.message).split(' (Triggered internally at')[0] for x in w]


# ---- SDPBackend

def test_sdpbackend_members_values_reprs():
    t, l = torch.nn.attention.SDPBackend, LA.SDPBackend
    assert list(l.__members__) == list(t.__members__) == ['ERROR', 'MATH', 'FLASH_ATTENTION', 'EFFICIENT_ATTENTION', 'CUDNN_ATTENTION', 'OVERRIDEABLE']
    for name in t.__members__:
        tb, lb = getattr(t, name), getattr(l, name)
        assert (lb.name, lb.value, int(lb), repr(lb), str(lb), f'{lb}') == (tb.name, tb.value, int(tb), repr(tb), str(tb), f'{tb}')
        assert l(lb.value) is lb and t(tb.value) == tb
        assert (lb == lb.value) == (tb == tb.value) == False
    assert [10, 11, 12][l.EFFICIENT_ATTENTION] == [10, 11, 12][t.EFFICIENT_ATTENTION] == 12
    assert (l.__module__, l.__name__, LA.sdpa_kernel.__module__) == ('litnn.nn.attention', 'SDPBackend', 'litnn.nn.attention')
    assert LA.WARN_FOR_UNFUSED_KERNELS is TA.WARN_FOR_UNFUSED_KERNELS is False
    assert hasattr(litnn.nn, 'attention') and hasattr(torch.nn, 'attention') and litnn.nn.attention is LA


# ---- sdpa_kernel and the switches

def switch_states(lib):
    c = lib.backends.cuda
    return (c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled())

@pytest.mark.parametrize('backends', ['MATH', 'FLASH_ATTENTION', ['MATH', 'EFFICIENT_ATTENTION'], ['CUDNN_ATTENTION', 'CUDNN_ATTENTION'],
                                      [], ['ERROR'], ['OVERRIDEABLE', 'MATH', 'FLASH_ATTENTION', 'EFFICIENT_ATTENTION', 'CUDNN_ATTENTION']])
def test_sdpa_kernel_sets_the_backends_cuda_switches_and_restores_them(backends):
    seen = []
    for lib, A, _ in LIBS:
        arg = getattr(A.SDPBackend, backends) if isinstance(backends, str) else [getattr(A.SDPBackend, b) for b in backends]
        before = switch_states(lib), names(A._cur_sdpa_kernel_backends())
        with A.sdpa_kernel(arg) as r:
            inside = r, switch_states(lib), names(A._cur_sdpa_kernel_backends()), names(A._cur_sdpa_kernel_backends(with_priority=True))
        assert (switch_states(lib), names(A._cur_sdpa_kernel_backends())) == before
        seen.append(inside)
    assert seen[0] == seen[1]

def test_one_state_with_backends_cuda():
    "torch.backends.cuda's functions and sdpa_kernel read and write the same switches."
    for lib, A, _ in LIBS:
        lib.backends.cuda.enable_math_sdp(False)
        assert 'MATH' not in names(A._cur_sdpa_kernel_backends())
        with A.sdpa_kernel([A.SDPBackend.MATH, A.SDPBackend.FLASH_ATTENTION]):
            assert switch_states(lib) == (True, False, True, False)
        assert switch_states(lib) == (True, True, False, True)             # math stays off: the state before the block
        lib.backends.cuda.enable_math_sdp(True)

def test_sdpa_kernel_restores_after_an_exception_and_as_a_decorator():
    for lib, A, _ in LIBS:
        with pytest.raises(KeyError):
            with A.sdpa_kernel(A.SDPBackend.CUDNN_ATTENTION):
                assert switch_states(lib) == (False, False, False, True)
                raise KeyError('inside')
        assert switch_states(lib) == (True, True, True, True)

        @A.sdpa_kernel(A.SDPBackend.MATH)
        def f(): return switch_states(lib)
        assert f() == f() == (False, False, True, False) and switch_states(lib) == (True, True, True, True)

@pytest.mark.parametrize('bad', [1, 'MATH', None, 0.5, {}])
def test_sdpa_kernel_rejects_what_torch_rejects(bad):
    assert run(lambda: TA.sdpa_kernel(bad).__enter__()) == run(lambda: LA.sdpa_kernel(bad).__enter__())
    assert run(lambda: LA.sdpa_kernel(bad).__enter__())[0][0] == 'AssertionError'
    assert switch_states(litnn) == (True, True, True, True)

def test_sdpa_kernel_a_tuple_is_rejected_and_list_items_are_not_checked():
    for lib, A, _ in LIBS:
        assert run(lambda: A.sdpa_kernel((A.SDPBackend.MATH,)).__enter__())[0] == (
            'AssertionError', 'Backend must be an instance of SDPBackend or a list of SDPBackend instances, got tuple')
        with A.sdpa_kernel([0, 'MATH']): assert A._cur_sdpa_kernel_backends() == []

def test_set_priority_orders_as_torch():
    seen = []
    for lib, A, _ in LIBS:
        B, out = A.SDPBackend, []
        prio = lambda: names(A._cur_sdpa_kernel_backends(with_priority=True))
        with A.sdpa_kernel([B.CUDNN_ATTENTION, B.MATH], set_priority=True): out.append(prio())
        out.append(prio())
        with A.sdpa_kernel([B.MATH, B.CUDNN_ATTENTION]):
            with A.sdpa_kernel(B.FLASH_ATTENTION, set_priority=True): out.append(prio())
            out.append(prio())
        out.append(prio())
        seen.append(out)
    assert seen[0] == seen[1]
    assert seen[1][1] == ['FLASH_ATTENTION', 'EFFICIENT_ATTENTION', 'MATH', 'CUDNN_ATTENTION', 'OVERRIDEABLE']
    assert torch._C._get_sdp_priority_order() == LA._priority


# ---- the kernel choice of scaled_dot_product_attention (CPU)

R = np.random.default_rng(0)
def arrays(*shapes): return [R.standard_normal(s) for s in shapes]

def sdpa(lib, A, backends, arrs, mask=None, transpose_q=False, dtype='float32', **kw):
    "Attention of `arrs` under `backends` (names) in `lib`; `mask` an array (bool or float), or a CausalBias factory call."
    dt = getattr(lib, dtype)
    q, k, v = (lib.tensor(a, dtype=dt) for a in arrs)
    if transpose_q: q = q.transpose(-1, -2).contiguous().transpose(-1, -2)
    if isinstance(mask, np.ndarray): kw['attn_mask'] = lib.tensor(mask)
    backends = [getattr(A.SDPBackend, b) for b in backends]
    with A.sdpa_kernel(backends): return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw).tolist()

FLASH, MATH, NONE = ['FLASH_ATTENTION'], ['MATH'], []
CASES = {   # name: (backends, shapes of q, k, v, keywords)
    '4d flash':            (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {}),
    '4d math':             (MATH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {}),
    '4d none':             (NONE, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {}),
    'efficient and cudnn': (['EFFICIENT_ATTENTION', 'CUDNN_ATTENTION', 'OVERRIDEABLE'], [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], {}),
    '3d flash':            (FLASH, [(3, 4, 8), (3, 5, 8), (3, 5, 8)], {}),
    '5d flash':            (FLASH, [(1, 2, 3, 4, 8), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8)], {}),
    'dropout flash':       (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(dropout_p=0.5)),
    'causal flash':        (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(is_causal=True)),
    'scale flash':         (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(scale=0.3)),
    'batch 1 keys':        (FLASH, [(2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 8)], {}),
    'fewer heads':         (FLASH, [(2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)], {}),
    'gqa':                 (FLASH, [(2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)], dict(enable_gqa=True)),
    'gqa not dividing':    (FLASH, [(2, 3, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)], dict(enable_gqa=True)),
    'gqa k, v heads':      (FLASH, [(2, 4, 4, 8), (2, 2, 5, 8), (2, 1, 5, 8)], dict(enable_gqa=True)),
    'value dim':           (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)], {}),
    'value dim math':      (MATH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)], {}),
    'transposed query':    (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(transpose_q=True)),
    'float64 flash':       (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(dtype='float64')),
    'long flash':          (FLASH, [(1, 1, 2, 3)] * 3, dict(dtype='int64')),
    'long none':           (NONE, [(1, 1, 2, 3)] * 3, dict(dtype='int64')),
    'rank 1 none':         (NONE, [(8,), (5, 8), (5, 8)], {}),
    'empty query none':    (NONE, [(2, 0, 3), (2, 4, 3), (2, 4, 3)], {}),
    'empty keys flash':    (FLASH, [(2, 3, 2, 8), (2, 3, 0, 8), (2, 3, 0, 8)], {}),
    'mask 2d flash':       (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=R.random((4, 5)) > .3)),
    'mask 3d flash':       (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=R.random((3, 4, 5)) > .3)),
    'mask 3d math':        (MATH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=R.random((3, 4, 5)) > .3)),
    'mask 4d bcast flash': (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=R.random((1, 3, 1, 5)) > .3)),
    'float mask flash':    (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=R.standard_normal((4, 5)).astype(np.float32))),
    'mask wrong size':     (FLASH, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=np.ones((3, 5), bool))),
    'mask, causal, none':  (NONE, [(2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)], dict(mask=np.ones((4, 5), bool), is_causal=True)),
}

@pytest.mark.parametrize('case', list(CASES))
def test_kernel_choice_as_torch_on_the_cpu(case):
    backends, shapes, kw = CASES[case]
    arrs = arrays(*shapes)
    (t, tw), (l, lw) = (run(lambda: sdpa(lib, A, backends, arrs, **kw)) for lib, A, _ in LIBS)
    assert (l[0], lw) == (t[0], tw)
    if t[0] == 'ok': np.testing.assert_allclose(np.array(l[1]), np.array(t[1]), rtol=1e-4, atol=1e-5)
    else: assert l[1] == t[1]

def test_refusals_give_torchs_messages():
    arrs = arrays((3, 4, 8), (3, 5, 8), (3, 5, 8))
    (out, w) = run(lambda: sdpa(litnn, LA, FLASH, arrs))
    assert out == ('RuntimeError', 'No available kernel.  Aborting execution.')
    assert w == ['Flash attention kernel not used because:',
                 'All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: 3, Key dim: 3, Value dim: 3 instead.']
    assert run(lambda: sdpa(litnn, LA, NONE, arrs))[0] == ('RuntimeError', 'No viable backend for scaled_dot_product_attention was found. '
                                                          'This is likely due to turning off both the math kernel and the fused kernels.')
    litnn.backends.cuda.enable_flash_sdp(False); litnn.backends.cuda.enable_math_sdp(False)     # the same, set the other way
    assert run(lambda: sdpa(litnn, LA, ['MATH'], arrs))[0][0] == 'ok'           # sdpa_kernel switches math on for its block
    with pytest.raises(RuntimeError, match='No viable backend'): litnn.nn.functional.scaled_dot_product_attention(*(litnn.tensor(a) for a in arrs))


# ---- nn.attention.bias

def bias_attention(lib, Bmod, variant, L, S, arrs, **kw):
    "Output and q, k, v gradients of attention with a causal bias, in `lib`."
    q, k, v = (lib.tensor(a, requires_grad=True) for a in arrs)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        bias = getattr(Bmod, f'causal_{variant}')(L, S)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias, **kw)
    (out * lib.tensor(arrs[0][..., :1] + 1)).sum().backward()
    return [out.tolist()] + [t.grad.tolist() for t in (q, k, v)]

@pytest.mark.parametrize('variant', ['upper_left', 'lower_right'])
@pytest.mark.parametrize('L,S', [(2, 5), (5, 2), (4, 4), (1, 3)])
def test_causal_bias_results_and_gradients_match_torch(variant, L, S):
    arrs = arrays((2, 3, L, 4), (2, 3, S, 4), (2, 3, S, 4))
    t, l = (bias_attention(lib, Bm, variant, L, S, arrs) for lib, _, Bm in LIBS)
    for a, b in zip(l, t): np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-10, atol=1e-12)

def test_causal_bias_with_gqa_and_scale():
    arrs = arrays((1, 4, 3, 4), (1, 2, 6, 4), (1, 2, 6, 4))
    t, l = (bias_attention(lib, Bm, 'lower_right', 3, 6, arrs, enable_gqa=True, scale=0.7) for lib, _, Bm in LIBS)
    for a, b in zip(l, t): np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-10, atol=1e-12)

@pytest.mark.parametrize('L,S', [(3, 4), (4, 3), (3, 3), (1, 1)])
def test_causal_bias_repr_materialize_and_attributes(L, S):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for f in ('causal_upper_left', 'causal_lower_right'):
            tb, lb = getattr(TB, f)(L, S), getattr(LB, f)(L, S)
            assert repr(lb) == repr(tb) and str(lb) == str(tb)
            assert lb._materialize().tolist() == tb._materialize().tolist() and lb._materialize().dtype is litnn.bool
            assert (int(lb.variant), lb.variant.name, lb.seq_len_q, lb.seq_len_kv) == (int(tb.variant), tb.variant.name, tb.seq_len_q, tb.seq_len_kv)
            assert isinstance(lb, litnn.Tensor) and isinstance(lb, LB.CausalBias)
    assert [(v.name, v.value, repr(v), str(v)) for v in LB.CausalVariant] == [(v.name, v.value, repr(v), str(v)) for v in TB.CausalVariant]
    assert (LB.CausalBias.__module__, LB.causal_lower_right.__module__, sorted(LB.__all__)) == ('litnn.nn.attention.bias', 'litnn.nn.attention.bias', sorted(TB.__all__))

def test_causal_bias_warnings_and_errors_as_torch():
    def scenario(lib, A, Bm):
        F = lib.nn.functional
        q, k = lib.ones(1, 2, 3, 4), lib.ones(1, 2, 5, 4)
        bad = Bm.causal_lower_right(3, 5); bad.variant = 3
        return [run(lambda: Bm.causal_lower_right(4, 2)._materialize().tolist()),
                run(lambda: Bm.causal_upper_left(4, 2)._materialize().tolist()),
                run(lambda: Bm.causal_lower_right(2, 3, 4)), run(lambda: Bm.causal_upper_left(2)),
                run(lambda: Bm.CausalBias(1, 2, 3)),
                run(lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=Bm.causal_lower_right(3, 5), is_causal=True)),
                run(lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=Bm.causal_upper_left(3, 5), is_causal=True)),
                run(lambda: F.scaled_dot_product_attention(q, k.double(), k, attn_mask=Bm.causal_lower_right(3, 5))),
                run(lambda: F.scaled_dot_product_attention(q[0, 0, 0], k, k, attn_mask=Bm.causal_lower_right(3, 5))),
                run(lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=Bm.causal_lower_right(4, 5))),
                run(lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=bad)),
                run(lambda: F.scaled_dot_product_attention(q, k, k, Bm.causal_lower_right(3, 5), 0.0, False).shape[-2])]
    t, l = scenario(*LIBS[0]), scenario(*LIBS[1])
    assert l[:7] == t[:7] and l[8:] == t[8:]
    assert l[7] == (('ValueError', 'Expected query, key, and value to have the same dtype, but got query.dtype: litnn.float32, '
                                   'key.dtype: litnn.float64, and value.dtype: litnn.float32 instead.'), [])
    assert l[7] == t[7]          # (torch's message names torch.float32: run() writes it as litnn's)
    assert l[0][1] == ['Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!']

def test_warn_for_unfused_kernels():
    seen = []
    for lib, A, Bm in LIBS:
        q, k = lib.ones(1, 2, 3, 4), lib.ones(1, 2, 5, 4)
        A.WARN_FOR_UNFUSED_KERNELS = True
        try: seen.append([run(lambda: lib.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=f(3, 5)).shape[-1])
                          for f in (Bm.causal_lower_right, Bm.causal_upper_left)])
        finally: A.WARN_FOR_UNFUSED_KERNELS = False
    assert seen[0] == seen[1] == [(('ok', 4), ["Efficient attention can't be used because:", "Flash attention can't be used because:"]), (('ok', 4), [])]

def test_causal_bias_inside_sdpa_kernel():
    "Upper-left runs as is_causal and lower-right with a 2-d mask: the CPU flash kernel takes both; a 3-d call is refused."
    for lib, A, Bm in LIBS:
        F = lib.nn.functional
        with A.sdpa_kernel(A.SDPBackend.FLASH_ATTENTION):
            for f in (Bm.causal_upper_left, Bm.causal_lower_right):
                assert F.scaled_dot_product_attention(lib.ones(1, 2, 3, 4), lib.ones(1, 2, 5, 4), lib.ones(1, 2, 5, 4), attn_mask=f(3, 5)).shape == (1, 2, 3, 4)
                assert run(lambda: F.scaled_dot_product_attention(lib.ones(2, 3, 4), lib.ones(2, 5, 4), lib.ones(2, 5, 4), attn_mask=f(3, 5)))[0][0] == 'RuntimeError'


def test_choice_on_a_gpu_is_the_first_kernel_switched_on():
    "litnn's deliberate simplification on a GPU (torch's CUDA kernels' limits are not modelled): any of flash, efficient, cuDNN, math on runs."
    import types
    t = types.SimpleNamespace(device=types.SimpleNamespace(type='cuda'), numel=lambda: 1)
    B, choose = LA.SDPBackend, lambda: LA._select_sdp_backend(t, t, t)
    assert choose() is B.FLASH_ATTENTION
    with LA.sdpa_kernel([B.CUDNN_ATTENTION, B.MATH]): assert choose() is B.MATH
    with LA.sdpa_kernel([B.CUDNN_ATTENTION, B.MATH], set_priority=True): assert choose() is B.CUDNN_ATTENTION
    with LA.sdpa_kernel(B.EFFICIENT_ATTENTION): assert choose() is B.EFFICIENT_ATTENTION
    for none in ([], B.OVERRIDEABLE):
        with LA.sdpa_kernel(none), pytest.raises(RuntimeError, match='No viable backend for scaled_dot_product_attention was found'): choose()

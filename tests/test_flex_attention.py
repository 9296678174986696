"""`litnn.nn.attention.flex_attention` against torch 2.13's on the same inputs: block masks (attributes, repr, str,
sparsity, slicing, cropping), dense masks, the attention's output, logsumexp and gradients (of q, k, v and of tensors a
score_mod closes over), and the errors and warnings of bad calls."""
import warnings
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import litnn
import litnn.nn.attention.flex_attention as L
import torch.nn.attention.flex_attention as T


def lt(x, requires_grad=False): return litnn.tensor(x.detach().numpy(), requires_grad=requires_grad)


def close(a, b, tol=1e-5):
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)


@pytest.fixture(autouse=True)
def quiet(monkeypatch):
    "torch's eager flex_attention runs its operator uncompiled with this flag, the same math, faster; litnn's only skips the warning."
    monkeypatch.setattr(T, '_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG', True)
    monkeypatch.setattr(L, '_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG', True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        yield


def masks(M):
    "The same mask_mods over torch's or litnn's tensors."
    doc = M.tensor([0] * 5 + [1] * 7 + [2] * 4 + [3] * 4)
    def causal(b, h, q, kv): return q >= kv
    def window(b, h, q, kv): return (q - kv).abs() <= 3
    def document(b, h, q, kv): return doc[q] == doc[kv]
    def per_head(b, h, q, kv): return (q - kv >= h) | (b == 1)
    def row_empty(b, h, q, kv): return (q >= kv) & (q != 6)
    return dict(causal=causal, window=window, document=document, per_head=per_head, row_empty=row_empty,
                causal_window=M.nn.attention.flex_attention.and_masks(causal, window),
                doc_or_window=M.nn.attention.flex_attention.or_masks(document, window),
                noop=M.nn.attention.flex_attention.noop_mask)


def score_mods(M, captured):
    "The same score_mods; `captured` are (slopes (H,), rel (Q, KV)) of that library."
    slopes, rel = captured
    def identity(score, b, h, q, kv): return score
    def alibi(score, b, h, q, kv): return score + slopes[h] * (kv - q)
    def softcap(score, b, h, q, kv): return 3 * M.tanh(score / 3)
    def relative(score, b, h, q, kv): return score + rel[q, kv] * slopes[h]
    def causal_score(score, b, h, q, kv): return M.where(q >= kv, score, -float('inf'))
    return dict(identity=identity, alibi=alibi, softcap=softcap, relative=relative, causal_score=causal_score)


def same_block_mask(tb, lb):
    assert repr(tb).replace('torch.', 'litnn.') == repr(lb)
    assert str(tb) == str(lb)
    for a in T.BlockMask._TENSOR_ATTRS:
        x, y = getattr(tb, a), getattr(lb, a)
        assert (x is None) == (y is None), a
        if x is not None:
            assert x.tolist() == y.tolist(), a
            assert str(x.dtype).split('.')[-1] == str(y.dtype).split('.')[-1], a
    assert (tb.shape, tb.BLOCK_SIZE, tb.seq_lengths, tb.numel()) == (lb.shape, lb.BLOCK_SIZE, lb.seq_lengths, lb.numel())
    assert tb.sparsity() == pytest.approx(lb.sparsity())
    assert tb.to_dense().tolist() == lb.to_dense().tolist()
    for kw in ({}, dict(grid_size=-1), dict(grid_size=3), dict(grid_size=(2, 5), limit=2)):
        assert tb.to_string(**kw) == lb.to_string(**kw), kw
    assert len(tb.as_tuple()) == len(lb.as_tuple()) and len(tb.as_tuple(flatten=False)) == len(lb.as_tuple(flatten=False))


@pytest.mark.parametrize('name', ['causal', 'window', 'document', 'per_head', 'row_empty', 'causal_window', 'doc_or_window', 'noop'])
def test_block_masks(name):
    tm, lm = masks(torch)[name], masks(litnn)[name]
    for B, H, Q, KV, bs, sep in [(None, None, 20, 20, 4, True), (2, 3, 20, 20, (4, 8), True), (2, None, 18, 20, 128, True),
                                 (None, 2, 20, 17, 5, False)]:
        tb = T.create_block_mask(tm, B, H, Q, KV, device='cpu', BLOCK_SIZE=bs, separate_full_blocks=sep)
        lb = L.create_block_mask(lm, B, H, Q, KV, device='cpu', BLOCK_SIZE=bs, separate_full_blocks=sep)
        same_block_mask(tb, lb)
        assert T.create_mask(tm, B, H, Q, KV, device='cpu').tolist() == L.create_mask(lm, B, H, Q, KV, device='cpu').tolist()


def test_block_mask_slicing_adjust_and_write_order():
    tm, lm = masks(torch)['per_head'], masks(litnn)['per_head']
    tb = T.create_block_mask(tm, 2, 3, 20, 20, device='cpu', BLOCK_SIZE=4, compute_dq_write_order=True)
    lb = L.create_block_mask(lm, 2, 3, 20, 20, device='cpu', BLOCK_SIZE=4, compute_dq_write_order=True)
    same_block_mask(tb, lb)
    for ti, li in [(0, 0), ((0, 1), (0, 1)), ((-1, slice(1, 3)), (-1, slice(1, 3))),
                   ((slice(0, 2), slice(1, 2), torch.tensor([1, 3])), (slice(0, 2), slice(1, 2), litnn.tensor([1, 3])))]:
        same_block_mask(tb[ti], lb[li])
    same_block_mask(tb._adjust(12, 9), lb._adjust(12, 9))
    same_block_mask(tb.to('cpu'), lb.to('cpu'))
    tb2 = T.create_block_mask(tm, 2, 3, 20, 20, device='cpu', BLOCK_SIZE=4, separate_full_blocks=False)
    lb2 = L.create_block_mask(lm, 2, 3, 20, 20, device='cpu', BLOCK_SIZE=4, separate_full_blocks=False)
    same_block_mask(T.BlockMask.from_kv_blocks(tb2.kv_num_blocks, tb2.kv_indices, BLOCK_SIZE=4),
                    L.BlockMask.from_kv_blocks(lb2.kv_num_blocks, lb2.kv_indices, BLOCK_SIZE=4))


def test_score_mod_masks():
    torch.manual_seed(0)
    slopes, rel = torch.randn(3), torch.randn(20, 20)
    ts, ls = score_mods(torch, (slopes, rel)), score_mods(litnn, (lt(slopes), lt(rel)))
    for name in ts:
        assert T.create_mask(ts[name], 2, 3, 20, 20, device='cpu').tolist() == L.create_mask(ls[name], 2, 3, 20, 20, device='cpu').tolist()


CASES = [  # score_mod, mask_mod, (Bq, Bkv, Hq, Hkv, Q, KV, E, Ev), keyword arguments
    ('identity', None, (2, 2, 3, 3, 20, 20, 8, 8), {}),
    ('alibi', 'causal', (2, 2, 3, 3, 20, 20, 8, 5), {}),
    ('softcap', 'document', (2, 2, 3, 3, 20, 20, 8, 8), dict(scale=0.7)),
    ('relative', 'causal_window', (2, 2, 3, 3, 20, 20, 4, 8), {}),
    ('causal_score', None, (1, 1, 3, 3, 20, 20, 8, 8), {}),
    ('identity', 'row_empty', (2, 2, 3, 3, 20, 20, 8, 8), {}),
    ('alibi', 'per_head', (2, 2, 6, 3, 20, 20, 8, 8), dict(enable_gqa=True)),
    ('identity', 'window', (2, 1, 3, 3, 20, 20, 8, 8), {}),
    ('softcap', 'doc_or_window', (2, 2, 3, 3, 20, 20, 8, 8), dict(return_lse=True)),
]


def inputs(case, requires_grad=False):
    _, mask, (Bq, Bkv, Hq, Hkv, Q, KV, E, Ev), _ = case
    torch.manual_seed(1)
    t = [torch.randn(Bq, Hq, Q, E), torch.randn(Bkv, Hkv, KV, E), torch.randn(Bkv, Hkv, KV, Ev),
         torch.randn(Hq), torch.randn(Q, KV)]
    t = [x.requires_grad_(requires_grad) for x in t]
    l = [lt(x, requires_grad) for x in t]
    tbm = lbm = None
    if mask is not None:
        tbm = T.create_block_mask(masks(torch)[mask], Bq, Hq, Q, KV, device='cpu', BLOCK_SIZE=4)
        lbm = L.create_block_mask(masks(litnn)[mask], Bq, Hq, Q, KV, device='cpu', BLOCK_SIZE=4)
    return t, l, tbm, lbm


@pytest.mark.parametrize('case', CASES, ids=[f'{c[0]}-{c[1]}-{i}' for i, c in enumerate(CASES)])
def test_forward(case):
    t, l, tbm, lbm = inputs(case)
    kw = case[3]
    tout = T.flex_attention(*t[:3], score_mod=score_mods(torch, t[3:])[case[0]], block_mask=tbm, **kw)
    lout = L.flex_attention(*l[:3], score_mod=score_mods(litnn, l[3:])[case[0]], block_mask=lbm, **kw)
    if kw.get('return_lse'):
        close(tout[1], lout[1]); tout, lout = tout[0], lout[0]
    close(tout, lout)
    assert tout.stride() == lout.stride() and str(tout.dtype)[6:] == str(lout.dtype)[6:]
    taux = T.flex_attention(*t[:3], block_mask=tbm, return_aux=T.AuxRequest(lse=True), enable_gqa=kw.get('enable_gqa', False))
    laux = L.flex_attention(*l[:3], block_mask=lbm, return_aux=L.AuxRequest(lse=True), enable_gqa=kw.get('enable_gqa', False))
    close(taux[0], laux[0]); close(taux[1].lse, laux[1].lse)
    assert laux[1].max_scores is None and type(laux[1]).__name__ == 'AuxOutput'


@pytest.mark.parametrize('case', CASES[1:4] + CASES[5:8], ids=[f'{c[0]}-{c[1]}' for c in CASES[1:4] + CASES[5:8]])
def test_gradients(case, monkeypatch):
    "Gradients of q, k, v, of the logsumexp's input and of the tensors a score_mod captures (torch's CPU check lifted on both sides)."
    monkeypatch.setattr(T, '_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG', False)    # torch lifts captured tensors only when compiling
    monkeypatch.setattr(T, '_validate_device', lambda q, k, v: None)
    monkeypatch.setattr(L, '_validate_device', lambda q, k, v: None)
    t, l, tbm, lbm = inputs(case, requires_grad=True)
    kw = dict(case[3], return_aux=T.AuxRequest(lse=True))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tout, taux = T.flex_attention(*t[:3], score_mod=score_mods(torch, t[3:])[case[0]], block_mask=tbm, **kw)
    lout, laux = L.flex_attention(*l[:3], score_mod=score_mods(litnn, l[3:])[case[0]], block_mask=lbm, **dict(kw, return_aux=L.AuxRequest(lse=True)))
    close(tout, lout)
    torch.manual_seed(2)
    g, glse = torch.randn_like(tout), torch.randn_like(taux.lse).masked_fill(taux.lse.isinf(), 0)
    ((tout * g).sum() + (taux.lse.masked_fill(taux.lse.isinf(), 0) * glse).sum()).backward()
    ((lout * lt(g)).sum() + (laux.lse.masked_fill(laux.lse.isinf(), 0) * lt(glse)).sum()).backward()
    for a, b in zip(t, l):
        assert (a.grad is None) == (b.grad is None) or (b.grad is not None and not b.grad.any()), (a.grad, b.grad)
        if a.grad is not None: close(a.grad, b.grad, 1e-4)


def err(f):
    try: f()
    except Exception as e: return type(e).__name__, str(e)


def test_errors():
    def calls(M, F):
        bm = F.create_block_mask(masks(M)['causal'], 1, 2, 8, 8, device='cpu', BLOCK_SIZE=4)
        r = M.randn
        return [
            lambda: F.flex_attention(r(2, 8, 4), r(2, 8, 4), r(2, 8, 4)),
            lambda: F.flex_attention(r(4), r(4), r(4)),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 3, 8, 4), r(1, 3, 8, 4)),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 3, 8, 4), r(1, 3, 8, 4), enable_gqa=True),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 5), r(1, 2, 8, 5)),
            lambda: F.flex_attention(r(2, 2, 8, 4), r(3, 2, 8, 4), r(3, 2, 8, 4)),
            lambda: F.flex_attention(r(2, 2, 8, 4), r(3, 2, 8, 4), r(3, 2, 8, 4), block_mask=bm),
            lambda: F.flex_attention(r(1, 2, 12, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), block_mask=bm),
            lambda: F.flex_attention(r(1, 2, 4, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), block_mask=bm),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), block_mask=bm[0]),
            lambda: F.flex_attention(r(1, 2, 8, 4, requires_grad=True), r(1, 2, 8, 4), r(1, 2, 8, 4)),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), return_aux=F.AuxRequest(max_scores=True)),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), return_lse=True, return_aux=F.AuxRequest()),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), kernel_options={'BACKEND': 'CUDNN'}),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), kernel_options={'BACKEND': 'AUTO', 'FORCE_USE_FLEX_ATTENTION': True}),
            lambda: F.flex_attention(r(1, 2, 8, 4), r(1, 2, 8, 4), r(1, 2, 8, 4), kernel_options={'OUTPUT_MAX': True}),
            lambda: F.create_block_mask(lambda s, b, h, q, kv: s, 1, 1, 8, 8, device='cpu'),
            lambda: F.create_block_mask(lambda b, h: b, 1, 1, 8, 8, device='cpu'),
            lambda: F.create_block_mask(masks(M)['causal'], 1, 1, 8, 8, device='cpu', dq_kv_order=1),
            lambda: F.and_masks(masks(M)['causal'], None),
            lambda: bm[0].mask_mod(*(M.tensor(0),) * 4),
            lambda: F.BlockMask.from_kv_blocks(M.ones(3, dtype=M.int32), M.zeros(3, dtype=M.int32)),
            lambda: F.BlockMask.from_kv_blocks(bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks),
        ]
    tc, lc = calls(torch, T), calls(litnn, L)
    for i, (a, b) in enumerate(zip(tc, lc)):
        te, le = err(a), err(b)
        assert te is not None, i
        if te[0] == 'AssertionError' and 'and_masks' not in te[1]: te = (te[0], te[1].replace('torch.', 'litnn.'))
        assert te[0] == le[0] and te[1].replace('torch.', 'litnn.') == le[1].replace('torch.', 'litnn.'), (i, te, le)


def test_mixed_dtypes_and_float64():
    "torch lets key/value dtypes differ from the query's (low-precision kv): the scores are float32, the output the query's dtype."
    torch.manual_seed(3)
    q, k, v = torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4, dtype=torch.float64), torch.randn(1, 2, 8, 4)
    close(T.flex_attention(q, k, v), L.flex_attention(lt(q), lt(k), lt(v)))
    q, k, v = (x.double() for x in (q, k, v))
    to, ta = T.flex_attention(q, k, v, return_aux=T.AuxRequest(lse=True))
    lo, la = L.flex_attention(lt(q), lt(k), lt(v), return_aux=L.AuxRequest(lse=True))
    close(to, lo, 1e-10); close(ta.lse, la.lse, 1e-10)
    assert lo.dtype == litnn.float64 and la.lse.dtype == litnn.float64


def test_warnings(monkeypatch):
    for M in (T, L):
        monkeypatch.setattr(M, '_WARNINGS_SHOWN', set())
        monkeypatch.setattr(M, '_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG', False)
    got = []
    for M, lib in ((T, torch), (L, litnn)):
        q = lib.randn(1, 1, 4, 4)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            M.flex_attention(q, q, q, return_lse=True); M.flex_attention(q, q, q, return_lse=True)
            M.create_block_mask(masks(lib)['causal'], 1, 1, 4, 4, device='cpu', _compile=True)
        got.append([(x.category.__name__, str(x.message).replace('torch.', '')) for x in w
                    if str(x.message).startswith(('return_lse', 'flex_attention called', '_compile flag'))])   # not torch.compile's own
    assert len(got[0]) == 3
    assert got[0] == got[1]


def test_vmap_index_by_batched_tensors_and_bitwise():
    "What score_mods and mask_mods do under vmap, batched in one gather (not a loop per sample), as torch.vmap computes it."
    torch.manual_seed(4)
    doc, rel, x = torch.randint(0, 3, (6,)), torch.randn(6, 6, requires_grad=True), torch.randn(4, 6, 6)
    i, j = torch.tensor([0, 2, 5]), torch.tensor([1, 1, 4, 5])
    fns = [lambda M, d, r, a, b: d[a] == d[b],
           lambda M, d, r, a, b: r[a, b],
           lambda M, d, r, a, b: r[a][b] * r[b, a],
           lambda M, d, r, a, b: r[2, b] + r[a, 3],
           lambda M, d, r, a, b: (a >= b) & (d[a] == d[b]) | (a - b > 3) ^ (b == 1),
           lambda M, d, r, a, b: a.new_ones((), dtype=M.bool) & (a != b)]
    for k, f in enumerate(fns):
        def nested(M, vmap, d, r):
            g = vmap(lambda a, b: f(M, d, r, a, b), in_dims=(None, 0))
            return vmap(g, in_dims=(0, None))
        t = nested(torch, torch.vmap, doc, rel)(i, j)
        lr = lt(rel, True)
        l = nested(litnn, litnn.func.vmap, lt(doc), lr)(lt(i), lt(j))
        close(t.double(), l.double()); assert str(t.dtype)[6:] == str(l.dtype)[6:], k
        if t.dtype.is_floating_point:
            t.sum().backward(); l.sum().backward()
            close(rel.grad, lr.grad); rel.grad = None
    # a batched tensor indexed by another batch's indices, and by its own
    tv = torch.vmap(lambda xs, a: xs[a, a], in_dims=(0, None))(x, i)
    lv = litnn.func.vmap(lambda xs, a: xs[a, a], in_dims=(0, None))(lt(x), lt(i))
    close(tv, lv)
    tv = torch.vmap(lambda xs, a: xs[a], in_dims=(0, 0))(x, torch.tensor([1, 0, 5, 2]))
    lv = litnn.func.vmap(lambda xs, a: xs[a], in_dims=(0, 0))(lt(x), litnn.tensor([1, 0, 5, 2]))
    close(tv, lv)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_half_precision_and_layout(dtype):
    "Half-precision inputs: float32 scores, the output in the inputs' dtype; the output laid out as the query (here B, L, H, E)."
    torch.manual_seed(5)
    def to_l(x): return litnn.tensor(x.detach().float().numpy()).to(getattr(litnn, dtype))
    q, k, v = (torch.randn(1, 2, 8, 4).to(getattr(torch, dtype)) for _ in range(3))
    to, lo = T.flex_attention(q, k, v), L.flex_attention(to_l(q), to_l(k), to_l(v))
    assert lo.dtype == getattr(litnn, dtype)
    close(to.float(), lo.float(), 1e-2)
    x = torch.randn(2, 8, 3, 4)
    to, lo = T.flex_attention(*(x.transpose(1, 2),) * 3), L.flex_attention(*(lt(x).transpose(1, 2),) * 3)
    close(to, lo); assert to.stride() == lo.stride()
    assert repr(T._score_mod_signature).replace('torch.', '') == repr(L._score_mod_signature).replace('litnn.', '')


def test_compiled_flex_attention_runs_its_operator_eagerly(monkeypatch):
    """`torch.compile(flex_attention)` is torch's advice: litnn's compiler runs the operator as a step it does not record
    (a graph break, so later calls run eagerly), with the same results."""
    litnn.manual_seed(0)
    q = litnn.randn(1, 2, 8, 4)
    bm = L.create_block_mask(masks(litnn)['causal'], None, None, 8, 8, device='cpu', BLOCK_SIZE=4)
    compiled = litnn.compile(L.flex_attention)
    outs = [compiled(q, q, q, block_mask=bm) for _ in range(2)] + [compiled(q, q, q)]   # noop_mask: a tensor made in the vmapped function
    refs = [L.flex_attention(q, q, q, block_mask=bm)] * 2 + [L.flex_attention(q, q, q)]
    for r, o in zip(refs, outs): close(r, o, 1e-6)

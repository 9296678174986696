"""nn.utils.rnn (PackedSequence, pack/pad utilities) and the recurrent layers on packed sequences, side by side
with torch 2.13: values, batch sizes, permutations, gradients through packing and padding, float64 and float32;
reprs, conversions and errors; gradcheck; the CuPy variant when a GPU is present."""
import numpy as np
import pytest

import litnn
from litnn.autograd import gradcheck
from nn_pairs import err, norm

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported")
LU, TU = litnn.nn.utils.rnn, torch.nn.utils.rnn


def arr(*shape, seed=0, dtype='float64'):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def both(a, grad=True):
    return litnn.tensor(a.copy(), requires_grad=grad), torch.tensor(a.copy(), requires_grad=grad)


def close(l, t, tol=1e-12, msg=''):
    if isinstance(t, (tuple, list)):
        assert len(l) == len(t), msg
        for a, b in zip(l, t): close(a, b, tol, msg)
        return
    assert (l is None) == (t is None), msg
    if t is None: return
    t, l = t.detach().numpy(), l.detach().numpy()
    assert l.shape == t.shape and l.dtype == t.dtype, (msg, l.shape, t.shape, l.dtype, t.dtype)
    np.testing.assert_allclose(l, t, rtol=tol, atol=tol, err_msg=msg)


def same_packed(lp, tp, tol=1e-12):
    close(lp.data, tp.data, tol, 'data')
    for f in ('batch_sizes', 'sorted_indices', 'unsorted_indices'): close(getattr(lp, f), getattr(tp, f), 0, f)


LENGTHS = [[4, 3, 1], [3, 3, 3], [1], [2, 5, 5, 1, 3], [4, 2, 4, 2]]


@pytest.mark.parametrize('lengths', LENGTHS, ids=str)
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_pack_and_pad_match_torch(lengths, batch_first, dtype):
    T, B = max(lengths), len(lengths)
    x = both(arr(*((B, T, 2) if batch_first else (T, B, 2)), dtype=dtype))
    enforce = lengths == sorted(lengths, reverse=True)
    w = arr(*((B, T + 1, 2) if batch_first else (T + 1, B, 2)), seed=1, dtype=dtype)
    res = []
    for k, (lib, U) in enumerate(((litnn, LU), (torch, TU))):
        ln = lengths if k == 0 else torch.tensor(lengths)
        p = U.pack_padded_sequence(x[k], ln, batch_first=batch_first, enforce_sorted=enforce)
        padded, lens = U.pad_packed_sequence(p, batch_first=batch_first, padding_value=-2.5, total_length=T + 1)
        (padded * lib.tensor(w)).sum().backward()
        res.append((p, padded, lens, x[k].grad))
    (lp, lpad, llen, lg), (tp, tpad, tlen, tg) = res
    same_packed(lp, tp); close(lpad, tpad); close(llen, tlen, 0); close(lg, tg)


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('padding_side', ['right', 'left'])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_pad_sequence_and_inverses_match_torch(batch_first, padding_side, dtype):
    lens = [3, 5, 1, 5]
    seqs = [both(arr(n, 2, 3, seed=n + i, dtype=dtype)) for i, n in enumerate(lens)]
    res = []
    for k, (lib, U) in enumerate(((litnn, LU), (torch, TU))):
        out = U.pad_sequence([s[k] for s in seqs], batch_first=batch_first, padding_value=7., padding_side=padding_side)
        (out * lib.tensor(arr(*out.shape, seed=9, dtype=dtype))).sum().backward()
        res.append((out, [s[k].grad for s in seqs]))
    close(res[0][0], res[1][0]); close(res[0][1], res[1][1])
    if padding_side == 'right':    # unpad, pack, unpack: the sequences back
        for k, (lib, U) in enumerate(((litnn, LU), (torch, TU))):
            padded = U.pad_sequence([s[k].detach() for s in seqs], batch_first=batch_first)
            back = U.unpad_sequence(padded, lib.tensor(lens), batch_first=batch_first)
            unpacked = U.unpack_sequence(U.pack_sequence([s[k].detach() for s in seqs], enforce_sorted=False))
            res[k] = back + unpacked
        close(res[0], res[1])


def test_packed_sequence_object():
    lp = LU.pack_sequence([litnn.tensor([1., 2., 3.]), litnn.tensor([4.]), litnn.tensor([5., 6.])], enforce_sorted=False)
    tp = TU.pack_sequence([torch.tensor([1., 2., 3.]), torch.tensor([4.]), torch.tensor([5., 6.])], enforce_sorted=False)
    assert repr(lp) == norm(repr(tp))
    assert lp._fields == tp._fields and len(lp) == 4 and lp[0] is lp.data
    data, batch_sizes, sorted_indices, unsorted_indices = lp
    assert batch_sizes.tolist() == tp.batch_sizes.tolist() and batch_sizes.dtype == litnn.int64
    d = lp.double()
    assert type(d) is LU.PackedSequence and d.data.dtype == litnn.float64 and d.batch_sizes is lp.batch_sizes
    assert lp.to(litnn.float32) is lp and lp.float() is lp and lp.cpu() is lp
    assert lp.long().data.dtype == litnn.int64 and lp.half().data.dtype == litnn.float16
    assert lp.is_cuda is False and lp.is_pinned() is False
    assert LU.PackedSequence((lp.data, lp.batch_sizes)).batch_sizes is lp.batch_sizes     # (data, batch_sizes) in one tuple
    assert LU.invert_permutation(litnn.tensor([2, 0, 1])).tolist() == TU.invert_permutation(torch.tensor([2, 0, 1])).tolist()
    assert LU.invert_permutation(None) is None


ERRORS = [
    lambda lib, U: U.pack_padded_sequence(lib.ones(4, 3, 1), [4, 2, 3]),
    lambda lib, U: U.pack_padded_sequence(lib.ones(4, 3, 1), [4, 2, 0], enforce_sorted=False),
    lambda lib, U: U.pack_padded_sequence(lib.ones(4, 3, 1), [4, 2]),
    lambda lib, U: U.pack_sequence([lib.ones(2), lib.ones(3)]),
    lambda lib, U: U.pad_packed_sequence(U.pack_sequence([lib.ones(4), lib.ones(2)]), total_length=3),
    lambda lib, U: U.pad_sequence([lib.ones(2, 3), lib.ones(3, 4)]),
    lambda lib, U: U.pad_sequence([lib.ones(2, 3), lib.ones(3, 3)], padding_side='middle'),
    lambda lib, U: U.pad_sequence([]),
    lambda lib, U: U.pad_sequence(5),
    lambda lib, U: U.PackedSequence(lib.ones(3)),
    lambda lib, U: U.pack_padded_sequence(lib.ones(0, 0), []),                          # empty: refused before the lengths
    lambda lib, U: U.pack_padded_sequence(lib.ones(0, 1, 10), lib.ones(11, 14, 14, 2), True),
]


@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    assert err(ERRORS[i], litnn, LU) == err(ERRORS[i], torch, TU)


KINDS = {'RNN': {}, 'RNN_relu': dict(nonlinearity='relu'), 'LSTM': {}, 'GRU': {}, 'LSTM_proj': dict(proj_size=2)}
CONFIGS = [dict(), dict(num_layers=2), dict(bidirectional=True), dict(num_layers=2, bidirectional=True, bias=False)]


def make(lib, kind, *a, **kw):
    return getattr(lib.nn, kind.split('_')[0])(*a, **KINDS[kind], **kw)


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('cfg', CONFIGS, ids=str)
@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize('with_h0', [False, True])
@pytest.mark.parametrize('lengths', [[5, 3, 3, 1], [2, 5, 1, 4]], ids=str)
def test_layers_on_packed_sequences_match_torch(kind, cfg, dtype, with_h0, lengths):
    tm = make(torch, kind, 3, 4, **cfg).to(getattr(torch, dtype))
    lm = make(litnn, kind, 3, 4, **cfg).to(getattr(litnn, dtype))
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    B, T = len(lengths), max(lengths)
    x = both(arr(T, B, 3, dtype=dtype))
    L = cfg.get('num_layers', 1) * (2 if cfg.get('bidirectional') else 1)
    sizes = ((KINDS[kind].get('proj_size') or 4), 4) if kind.startswith('LSTM') else (4,)
    hs = [both(arr(L, B, n, seed=3 + i, dtype=dtype)) for i, n in enumerate(sizes)] if with_h0 else None
    res = []
    for k, (lib, U, m) in enumerate(((litnn, LU, lm), (torch, TU, tm))):
        p = U.pack_padded_sequence(x[k], lengths, enforce_sorted=lengths == sorted(lengths, reverse=True))
        h = None if hs is None else (tuple(v[k] for v in hs) if len(sizes) == 2 else hs[0][k])
        out, hn = m(p, h)
        assert type(out).__name__ == 'PackedSequence'
        finals = list(hn) if isinstance(hn, tuple) else [hn]
        padded, _ = U.pad_packed_sequence(out)
        loss = (padded * lib.tensor(arr(*padded.shape, seed=11, dtype=dtype))).sum()
        for i, f in enumerate(finals): loss = loss + (f * lib.tensor(arr(*f.shape, seed=12 + i, dtype=dtype))).sum()
        loss.backward()
        res.append(([out.data, out.batch_sizes, out.sorted_indices, out.unsorted_indices] + finals,
                    [x[k].grad] + [v[k].grad for v in hs or []] + [q.grad for q in m.parameters()]))
    tol = 1e-10 if dtype == 'float64' else 2e-5
    close(res[0][0], res[1][0], tol, 'outputs'); close(res[0][1], res[1][1], tol, 'gradients')


def test_packed_gradcheck():
    litnn.manual_seed(0)
    m = litnn.nn.LSTM(2, 3, bidirectional=True, dtype=litnn.float64)
    x = litnn.randn(4, 3, 2, dtype=litnn.float64, requires_grad=True)
    def f(x, *ps):
        out, (h, c) = m(LU.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False))
        return out.data, h, c
    assert gradcheck(f, (x, *m.parameters()))


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_packed_on_gpu():
    litnn.manual_seed(0)
    m = litnn.nn.GRU(2, 3, bidirectional=True, dtype=litnn.float64)
    x = arr(4, 3, 2)
    res = []
    for dev in ('cpu', 'cuda'):
        m.to(dev)
        for p in m.parameters(): p.grad = None
        xt = litnn.tensor(x, device=dev, requires_grad=True)
        p = LU.pack_padded_sequence(xt, [2, 4, 1], enforce_sorted=False)
        assert p.sorted_indices.device.type == dev and p.batch_sizes.device.type == 'cpu'
        out, h = m(p)
        padded, lengths = LU.pad_packed_sequence(out, batch_first=True)
        (padded.square().sum() + h.sum()).backward()
        res.append([padded.detach().cpu().numpy(), h.detach().cpu().numpy(), xt.grad.cpu().numpy()] + [q.grad.cpu().numpy() for q in m.parameters()])
    for a, b in zip(*res): np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize('f', [lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(5, 3, 2), L.tensor([[5, 3, 1]])),
                               lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(5, 3, 2), [[5, 3, 1]]),
                               lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(5, 3, 2), ['5', '3', '1']),
                               lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(5), [5]),
                               lambda L: L.nn.utils.rnn.unpad_sequence(L.ones(3, 2, 1), L.tensor([3]))])
def test_bad_lengths_and_inputs(f):
    "2-D or string lengths, an input with no batch dimension, fewer lengths than sequences: torch's exception and words."
    assert err(f, litnn) == err(f, torch)


def test_length_beyond_the_padding_refused():
    "torch's kernel packs a length longer than the padded batch by reading past its end; litnn refuses, and leaves the input be."
    x = litnn.ones(5, 3, 2)
    with pytest.raises(RuntimeError, match='at most the padded sequence length 5, but found a length of 6'):
        litnn.nn.utils.rnn.pack_padded_sequence(x, [6, 3, 1])

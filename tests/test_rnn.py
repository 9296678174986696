"""nn.RNN / LSTM / GRU and their cells side by side with torch 2.13, from the same weights (copied by
state_dict) and inputs: outputs, final states and gradients (of the input, the initial states and every
parameter) in float64 and float32, for every option; gradcheck; dropout between layers only; hooks;
state_dict keys and a state_dict saved by torch; reprs and errors; the CuPy variant when a GPU is present."""
import warnings
import numpy as np
import pytest

import litnn
from litnn.autograd import gradcheck, gradgradcheck
from nn_pairs import err, norm
from torch_pairs import same_error

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:LSTM with projections is not supported")

KINDS = {'RNN': {}, 'RNN_relu': dict(nonlinearity='relu'), 'LSTM': {}, 'GRU': {}}


def make(lib, kind, *args, **kw):
    cls = getattr(lib.nn, kind.split('_')[0])
    return cls(*args, **KINDS[kind], **kw)


def pair(kind, *args, dtype='float64', **kw):
    "The same layer in torch and litnn: torch's initial weights copied into litnn's by state_dict."
    tm = make(torch, kind, *args, **kw).to(getattr(torch, dtype))
    lm = make(litnn, kind, *args, **kw).to(getattr(litnn, dtype))
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    return lm, tm


def arr(*shape, seed=0, dtype='float64'):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def both(a, grad=True):
    return litnn.tensor(a.copy(), requires_grad=grad), torch.tensor(a.copy(), requires_grad=grad)


def close(l, t, tol, msg=''):
    if isinstance(t, (tuple, list)):
        assert len(l) == len(t), msg
        for a, b in zip(l, t): close(a, b, tol, msg)
        return
    assert (l is None) == (t is None), msg
    if t is None: return
    t = t.detach().numpy(); l = l.detach().numpy()
    assert l.shape == t.shape and l.dtype == t.dtype, (msg, l.shape, t.shape, l.dtype, t.dtype)
    np.testing.assert_allclose(l, t, rtol=tol, atol=tol, err_msg=msg)


def flat(out):
    "(output, h) or (output, (h, c)) as a flat list of tensors."
    o, h = out
    return [o] + (list(h) if isinstance(h, tuple) else [h])


def run_both(lm, tm, x, hx=None, seed=1):
    "Forward both; a loss weighting every output by fixed random numbers; backward. The outputs and all gradients."
    res = []
    for lib, m, xs, hs in ((litnn, lm, x[0], hx and [h[0] for h in hx]), (torch, tm, x[1], hx and [h[1] for h in hx])):
        h = None if hs is None else (tuple(hs) if len(hs) == 2 else hs[0])
        outs = flat(m(xs, h))
        loss = sum((o * lib.tensor(arr(*o.shape, seed=seed + i, dtype=str(o.dtype).split('.')[-1]))).sum() for i, o in enumerate(outs))
        loss.backward()
        grads = [xs.grad] + [v.grad for v in hs or []] + [p.grad for _, p in m.named_parameters()]
        res.append((outs, grads))
    return res


CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True),
    dict(bias=False),
    dict(batch_first=True, num_layers=2),
    dict(num_layers=3, bidirectional=True, batch_first=True, bias=False),
]
PROJ = [dict(proj_size=2), dict(proj_size=2, num_layers=2, bidirectional=True), dict(proj_size=1, batch_first=True, bias=False)]


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('cfg', CONFIGS, ids=str)
@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize('with_h0', [False, True])
def test_layer_matches_torch(kind, cfg, dtype, with_h0):
    lm, tm = pair(kind, 3, 4, dtype=dtype, **cfg)
    T, B = 5, 2
    x = both(arr(*((B, T, 3) if cfg.get('batch_first') else (T, B, 3)), dtype=dtype))
    nd = 2 if cfg.get('bidirectional') else 1
    hx = None
    if with_h0:
        shape = (cfg.get('num_layers', 1) * nd, B, 4)
        hx = [both(arr(*shape, seed=7 + i, dtype=dtype)) for i in range(2 if kind == 'LSTM' else 1)]
    (lo, lg), (to, tg) = run_both(lm, tm, x, hx)
    tol = 1e-10 if dtype == 'float64' else 2e-5
    close(lo, to, tol, 'outputs'); close(lg, tg, tol, 'gradients')


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('cfg', PROJ, ids=str)
@pytest.mark.parametrize('with_h0', [False, True])
def test_lstm_proj_size(cfg, dtype, with_h0):
    lm, tm = pair('LSTM', 3, 4, dtype=dtype, **cfg)
    assert list(lm.state_dict()) == list(tm.state_dict())
    T, B = 4, 3
    x = both(arr(*((B, T, 3) if cfg.get('batch_first') else (T, B, 3)), dtype=dtype))
    nd, L = 2 if cfg.get('bidirectional') else 1, cfg.get('num_layers', 1)
    hx = [both(arr(L * nd, B, cfg['proj_size'], seed=3, dtype=dtype)), both(arr(L * nd, B, 4, seed=4, dtype=dtype))] if with_h0 else None
    (lo, lg), (to, tg) = run_both(lm, tm, x, hx)
    tol = 1e-10 if dtype == 'float64' else 2e-5
    close(lo, to, tol, 'outputs'); close(lg, tg, tol, 'gradients')


@pytest.mark.parametrize('kind', list(KINDS))
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('with_h0', [False, True])
def test_unbatched_input(kind, batch_first, with_h0):
    lm, tm = pair(kind, 3, 4, num_layers=2, bidirectional=True, batch_first=batch_first)
    x = both(arr(5, 3))
    hx = [both(arr(4, 4, seed=5 + i)) for i in range(2 if kind == 'LSTM' else 1)] if with_h0 else None
    (lo, lg), (to, tg) = run_both(lm, tm, x, hx)
    close(lo, to, 1e-10); close(lg, tg, 1e-10)


@pytest.mark.parametrize('kind', list(KINDS))
def test_dropout_in_eval_is_off(kind):
    lm, tm = pair(kind, 3, 4, num_layers=3, dropout=0.7)
    lm.eval(); tm.eval()
    (lo, lg), (to, tg) = run_both(lm, tm, both(arr(6, 2, 3)))
    close(lo, to, 1e-10); close(lg, tg, 1e-10)


@pytest.mark.parametrize('kind', list(KINDS))
def test_dropout_in_training_acts_between_layers_only(kind):
    "A 2-layer net in training = layer 0, dropout of its output (same seed, same mask), layer 1; p=0 and 1 layer: no dropout."
    litnn.manual_seed(0)
    net = make(litnn, kind, 3, 4, num_layers=2, dropout=0.5, dtype=litnn.float64)
    l0, l1 = (make(litnn, kind, n, 4, dtype=litnn.float64) for n in (3, 4))
    sd = net.state_dict()
    l0.load_state_dict({k.replace('_l0', '_l0'): v for k, v in sd.items() if k.endswith('_l0')})
    l1.load_state_dict({k.replace('_l1', '_l0'): v for k, v in sd.items() if k.endswith('_l1')})
    x = litnn.tensor(arr(6, 2, 3))
    litnn.manual_seed(5); y = net(x)[0]
    litnn.manual_seed(5); mid = litnn.nn.functional.dropout(l0(x)[0], 0.5, training=True)
    expected = l1(mid)[0]
    np.testing.assert_allclose(y.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    assert (mid == 0).sum().item() > (l0(x)[0] == 0).sum().item()          # the mask hit layer 0's output...
    if kind != 'RNN_relu': assert (y == 0).sum().item() == 0              # ...and not the last layer's
    litnn.manual_seed(5); y2 = net(x)[0]
    litnn.manual_seed(6); y3 = net(x)[0]
    assert np.array_equal(y.detach().numpy(), y2.detach().numpy()) and not np.array_equal(y.detach().numpy(), y3.detach().numpy())
    net.dropout = 0.0
    np.testing.assert_array_equal(net(x)[0].detach().numpy(), net.eval()(x)[0].detach().numpy())
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got dropout=0.5 and num_layers=1"):
        one = make(litnn, kind, 3, 4, dropout=0.5)
    np.testing.assert_array_equal(one(x.float())[0].detach().numpy(), one.eval()(x.float())[0].detach().numpy())


CELLS = ['RNNCell', 'RNNCell_relu', 'LSTMCell', 'GRUCell']


def make_cell(lib, kind, *a, **kw):
    return getattr(lib.nn, kind.split('_')[0])(*a, **(dict(nonlinearity='relu') if kind.endswith('relu') else {}), **kw)


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('kind', CELLS)
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('mode', ['batched', 'unbatched', 'no_hx'])
def test_cells_match_torch(kind, dtype, bias, mode):
    tm = make_cell(torch, kind, 3, 4, bias=bias).to(getattr(torch, dtype))
    lm = make_cell(litnn, kind, 3, 4, bias=bias).to(getattr(litnn, dtype))
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    shape = (3,) if mode == 'unbatched' else (2, 3)
    x = both(arr(*shape, dtype=dtype))
    n = 2 if kind == 'LSTMCell' else 1
    hs = None if mode == 'no_hx' else [both(arr(*shape[:-1], 4, seed=3 + i, dtype=dtype)) for i in range(n)]
    res = []
    for k, (lib, m) in enumerate(((litnn, lm), (torch, tm))):
        h = None if hs is None else (tuple(v[k] for v in hs) if n == 2 else hs[0][k])
        out = m(x[k], h)
        outs = list(out) if n == 2 else [out]
        sum((o * lib.tensor(arr(*o.shape, seed=9 + i, dtype=dtype))).sum() for i, o in enumerate(outs)).backward()
        res.append((outs, [x[k].grad] + [v[k].grad for v in hs or []] + [p.grad for p in m.parameters()]))
    tol = 1e-12 if dtype == 'float64' else 1e-5
    close(res[0][0], res[1][0], tol); close(res[0][1], res[1][1], tol)


def test_cell_reprs_and_errors():
    for kind, kw in [('RNNCell', {}), ('RNNCell', dict(bias=False, nonlinearity='relu')), ('LSTMCell', dict(bias=False)), ('GRUCell', {})]:
        assert norm(repr(getattr(torch.nn, kind)(10, 20, **kw))) == repr(getattr(litnn.nn, kind)(10, 20, **kw))
    calls = [
        ('LSTMCell', lambda lib, m: m(lib.ones(3, 5))),
        ('LSTMCell', lambda lib, m: m(lib.ones(3, 10), (lib.ones(2, 20), lib.ones(3, 20)))),
        ('LSTMCell', lambda lib, m: m(lib.ones(3, 10), (lib.ones(3, 20), lib.ones(3, 21)))),
        ('LSTMCell', lambda lib, m: m(lib.ones(3, 10, 1))),
        ('LSTMCell', lambda lib, m: m(lib.ones(10), (lib.ones(1, 2, 20), lib.ones(20)))),
        ('GRUCell', lambda lib, m: m(lib.ones(3, 10), lib.ones(2, 20))),
        ('GRUCell', lambda lib, m: m(lib.ones(3, 10), lib.ones(1, 3, 20))),
        ('RNNCell', lambda lib, m: m(lib.ones(3, 10), lib.ones(3, 19))),
        ('RNNCell', lambda lib, m: m(lib.ones(1, 1, 3, 10))),
        ('LSTMCell', lambda lib, m: m(lib.ones(3, 10), lib.ones(3, 20))),      # hx a tensor, not the (h, c) pair
    ]
    for kind, f in calls:
        assert err(f, litnn, getattr(litnn.nn, kind)(10, 20)) == err(f, torch, getattr(torch.nn, kind)(10, 20)), kind
    f = lambda lib: lib.nn.RNNCell(10, 20, nonlinearity='foo')(lib.ones(3, 10))
    assert err(f, litnn) == err(f, torch)


REPRS = [('LSTM', (10, 20), dict(num_layers=2, batch_first=True)),
         ('LSTM', (10, 20), dict(proj_size=5, bidirectional=True, dropout=0.5, bias=False, num_layers=2)),
         ('RNN', (3, 4), dict(nonlinearity='relu')), ('RNN', (3, 4, 2, 'relu', False), {}), ('GRU', (3, 4), dict(dropout=0.25, num_layers=3)),
         ('GRU', (3, 4), {}), ('RNN', (3, 4), dict(dropout=1))]


@pytest.mark.parametrize('kind,args,kw', REPRS, ids=str)
def test_reprs_state_dict_keys_and_weights(kind, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tm, lm = getattr(torch.nn, kind)(*args, **kw), getattr(litnn.nn, kind)(*args, **kw)
    assert repr(lm) == norm(repr(tm))
    assert list(lm.state_dict()) == list(tm.state_dict())
    assert [tuple(v.shape) for v in lm.state_dict().values()] == [tuple(v.shape) for v in tm.state_dict().values()]
    assert lm._flat_weights_names == tm._flat_weights_names and lm._all_weights == tm._all_weights
    assert [[tuple(w.shape) for w in ws] for ws in lm.all_weights] == [[tuple(w.shape) for w in ws] for ws in tm.all_weights]
    assert all(a is b for a, b in zip(lm._flat_weights, lm.parameters()))
    assert lm.flatten_parameters() is None
    for name in ('mode', 'input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout', 'bidirectional', 'proj_size'):
        assert getattr(lm, name) == getattr(tm, name), name


def test_initialisation_range_and_flat_weights_follow_assignment():
    litnn.manual_seed(0)
    m = litnn.nn.LSTM(3, 16, num_layers=2, bidirectional=True)
    for p in m.parameters():
        assert p.abs().max().item() <= 0.25 and p.abs().max().item() > 0.2     # U(-1/√16, 1/√16), filled
    w = litnn.nn.Parameter(litnn.zeros(64, 3))
    m.weight_ih_l0 = w
    assert m._flat_weights[0] is w and m.all_weights[0][0] is w
    assert m.to(litnn.float64)._flat_weights[0].dtype == litnn.float64


def test_torch_saved_state_dict_loads(tmp_path):
    "A state_dict torch 2.13 saved (torch.save) loads through litnn.load and gives torch's outputs."
    torch.manual_seed(0)
    mods = dict(lstm=torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2), gru=torch.nn.GRU(3, 4, batch_first=True),
                rnn=torch.nn.RNN(3, 4, nonlinearity='relu', bias=False), cell=torch.nn.LSTMCell(3, 4))
    path = tmp_path / 'rnns.pt'
    torch.save({k: m.state_dict() for k, m in mods.items()}, path)
    sds = litnn.load(path)
    lmods = dict(lstm=litnn.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2), gru=litnn.nn.GRU(3, 4, batch_first=True),
                 rnn=litnn.nn.RNN(3, 4, nonlinearity='relu', bias=False), cell=litnn.nn.LSTMCell(3, 4))
    x = arr(4, 2, 3, dtype='float32')
    for k, m in lmods.items():
        m.load_state_dict(sds[k])
        lo, to = m(litnn.tensor(x[0] if k == 'cell' else x)), mods[k](torch.tensor(x[0] if k == 'cell' else x))
        close(flat(lo) if k != 'cell' else list(lo), flat(to) if k != 'cell' else list(to), 1e-6, k)


LAYER_ERRORS = [
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(3, 4, 9)),
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(3, 4, 5, 10)),
    lambda lib: lib.nn.RNN(10, 20)(lib.ones(3, 4, 5, 10)),
    lambda lib: lib.nn.GRU(10, 20)(lib.ones(10)),
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(3, 4, 10), (lib.ones(2, 3, 20), lib.ones(2, 4, 20))),
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(3, 4, 10), (lib.ones(2, 4, 20), lib.ones(2, 3, 20))),
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(3, 4, 10, dtype=lib.float64)),
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(4, 10), (lib.ones(2, 3, 20), lib.ones(2, 4, 20))),
    lambda lib: lib.nn.LSTM(10, 20, 2)(lib.ones(3, 4, 10), (lib.ones(3, 20), lib.ones(2, 4, 20))),
    lambda lib: lib.nn.GRU(10, 20)(lib.ones(3, 4, 10), lib.ones(1, 3, 20)),
    lambda lib: lib.nn.GRU(10, 20, bidirectional=True)(lib.ones(3, 4, 10), lib.ones(1, 4, 20)),
    lambda lib: lib.nn.RNN(10, 20)(lib.ones(3, 4, 10), lib.ones(3, 20)),
    lambda lib: lib.nn.RNN(10, 20)(lib.ones(3, 10), lib.ones(1, 3, 20)),
    lambda lib: lib.nn.LSTM(10, 20, proj_size=5)(lib.ones(3, 4, 10), (lib.ones(1, 4, 20), lib.ones(1, 4, 20))),
    lambda lib: lib.nn.LSTM(10, 20)(lib.ones(0, 4, 10)),
    lambda lib: lib.nn.RNN(10, 20, nonlinearity='x'),
    lambda lib: lib.nn.GRU(10, 20, proj_size=3),
    lambda lib: lib.nn.RNN(10, 20, proj_size=3),
    lambda lib: lib.nn.LSTM(10, 20, proj_size=30),
    lambda lib: lib.nn.LSTM(10, 20, proj_size=-1),
    lambda lib: lib.nn.LSTM(10, 20, dropout=2),
    lambda lib: lib.nn.LSTM(10, 20, dropout=True),
    lambda lib: lib.nn.LSTM(10, 20, bias=1),
    lambda lib: lib.nn.LSTM(10, 20, batch_first=None),
    lambda lib: lib.nn.LSTM(10.0, 20),
    lambda lib: lib.nn.LSTM(0, 20),
    lambda lib: lib.nn.LSTM(10, 20.0),
    lambda lib: lib.nn.LSTM(10, 0),
    lambda lib: lib.nn.LSTM(10, 20, num_layers=0),
    lambda lib: lib.nn.LSTM(10, 20)(lib.ones(3, 4, 10), (lib.ones(1, 4, 20),) * 3),     # three states
]


@pytest.mark.parametrize('i', range(len(LAYER_ERRORS)))
def test_layer_errors(i):
    assert err(LAYER_ERRORS[i], litnn) == err(LAYER_ERRORS[i], torch)


def test_empty_batch():
    for lib in (litnn, torch):
        out, (h, c) = lib.nn.LSTM(3, 4, bidirectional=True)(lib.ones(5, 0, 3))
        assert tuple(out.shape) == (5, 0, 8) and tuple(h.shape) == (2, 0, 4)


@pytest.mark.parametrize('kind', ['RNN', 'LSTM', 'GRU'])
def test_gradcheck(kind):
    "Finite differences for the input, the initial states and every parameter (gradcheck perturbs them in place)."
    litnn.manual_seed(0)
    kw = dict(proj_size=1) if kind == 'LSTM' else {}
    m = getattr(litnn.nn, kind)(2, 2, num_layers=2, bidirectional=True, dtype=litnn.float64, **kw)
    x = litnn.randn(3, 2, 2, dtype=litnn.float64, requires_grad=True)
    hs = [litnn.randn(4, 2, n, dtype=litnn.float64, requires_grad=True) for n in ((1, 2) if kind == 'LSTM' else (2,))]
    h = tuple(hs) if kind == 'LSTM' else hs[0]
    assert gradcheck(lambda *a: tuple(flat(m(x, h))), (x, *hs, *m.parameters()))
    assert gradgradcheck(lambda x: flat(m(x, h))[0], (x,))


def test_hooks_fire_as_on_torch():
    "Forward pre-hooks, forward hooks and full backward hooks: the same calls, arguments' shapes and order."
    def record(lib):
        m = lib.nn.GRU(3, 4, num_layers=2)
        calls = []
        m.register_forward_pre_hook(lambda mod, args: calls.append(('pre', [tuple(a.shape) for a in args])))
        m.register_forward_hook(lambda mod, args, out: calls.append(('fwd', tuple(out[0].shape), tuple(out[1].shape))))
        m.register_full_backward_pre_hook(lambda mod, go: calls.append(('bpre', [None if g is None else tuple(g.shape) for g in go])))
        m.register_full_backward_hook(lambda mod, gi, go: calls.append(('bwd', [None if g is None else tuple(g.shape) for g in gi])))
        x = lib.ones(5, 2, 3, requires_grad=True)
        out, h = m(x, lib.zeros(2, 2, 4))
        (out.sum() + h.sum()).backward()
        return calls
    assert record(litnn) == record(torch)


def test_lstm_hooks_with_nested_outputs():
    def record(lib):
        m = lib.nn.LSTM(3, 4)
        calls = []
        m.register_forward_hook(lambda mod, args, out: calls.append((type(out).__name__, type(out[1]).__name__, tuple(out[1][1].shape))))
        m.register_full_backward_hook(lambda mod, gi, go: calls.append(('bwd', [None if g is None else tuple(g.shape) for g in go])))
        out, (h, c) = m(lib.ones(5, 2, 3, requires_grad=True))
        out.sum().backward()
        return calls
    assert record(litnn) == record(torch)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('kind', list(KINDS))
def test_on_gpu(kind):
    "The same layers on CuPy arrays (to('cuda')): outputs and gradients equal the CPU's."
    litnn.manual_seed(0)
    m = make(litnn, kind, 3, 4, num_layers=2, bidirectional=True, dtype=litnn.float64, **(dict(proj_size=2) if kind == 'LSTM' else {}))
    x = arr(5, 2, 3)
    res = []
    for dev in ('cpu', 'cuda'):
        m.to(dev)
        for p in m.parameters(): p.grad = None
        xt = litnn.tensor(x, device=dev, requires_grad=True)
        outs = flat(m(xt))
        sum(o.square().sum() for o in outs).backward()
        res.append([o.detach().cpu().numpy() for o in outs] + [xt.grad.cpu().numpy()] + [p.grad.cpu().numpy() for p in m.parameters()])
    for a, b in zip(*res): np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize('kind', ['LSTM', 'GRU', 'RNN'])
def test_word_language_model_training_matches_torch(kind):
    """A word-level language model trained as pytorch/examples' word_language_model trains it (embedding, a 2-layer
    recurrent net whose state is carried over and detached between batches, a decoder, log_softmax + NLLLoss,
    clip_grad_norm_, a manual SGD update through `p.data`): the same losses as torch, step after step."""
    ntokens, emb, nhid, bsz, bptt, lr = 30, 8, 12, 4, 5, 5.0
    stream = np.random.default_rng(0).integers(0, ntokens, 200)
    def train(lib, sd):
        nn = lib.nn
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder, self.rnn = nn.Embedding(ntokens, emb), getattr(nn, kind)(emb, nhid, 2, dropout=0.0)
                self.decoder = nn.Linear(nhid, ntokens)
            def forward(self, x, hidden):
                out, hidden = self.rnn(self.encoder(x), hidden)
                return lib.nn.functional.log_softmax(self.decoder(out).view(-1, ntokens), dim=1), hidden
        model = Model()
        model.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
        data = lib.tensor(stream).narrow(0, 0, len(stream) // bsz * bsz).view(bsz, -1).t().contiguous()
        zeros = next(model.parameters()).new_zeros(2, bsz, nhid)
        hidden, losses = ((zeros, zeros) if kind == 'LSTM' else zeros), []
        for i in range(0, data.size(0) - 1, bptt):
            n = min(bptt, data.size(0) - 1 - i)
            x, y = data[i:i + n], data[i + 1:i + 1 + n].reshape(-1)
            hidden = tuple(h.detach() for h in hidden) if isinstance(hidden, tuple) else hidden.detach()
            model.zero_grad()
            out, hidden = model(x, hidden)
            loss = lib.nn.NLLLoss()(out, y)
            loss.backward()
            lib.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)
            losses.append(loss.item())
        return losses
    torch.manual_seed(0)
    ref = torch.nn.Module()
    ref.encoder, ref.rnn, ref.decoder = torch.nn.Embedding(ntokens, emb), getattr(torch.nn, kind)(emb, nhid, 2), torch.nn.Linear(nhid, ntokens)
    sd = {k: v.detach().numpy().copy() for k, v in ref.state_dict().items()}
    tl, ll = train(torch, sd), train(litnn, sd)
    assert len(tl) == 10
    np.testing.assert_allclose(ll, tl, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize('dtype, pre', [(d, p) for d in ('float64', 'float32') for p in (-100., -89., -30., 95.)] + [('float64', -88.5)])
def test_lstm_saturated_gates_match_torch_relatively(dtype, pre):
    '''Gates pushed far into saturation: the cell and output agree with torch relatively, not only to an absolute
    tolerance (σ(-100) is 3.7e-44 in float64, 0 in float32). Not float32 at -88.5: σ is a subnormal there, which
    torch's oneDNN LSTM flushes to zero and litnn (like torch.sigmoid) keeps.'''
    lm, tm = pair('LSTM', 1, 1, dtype=dtype)
    with torch.no_grad():
        for p in tm.parameters(): p.zero_()
        tm.weight_ih_l0.fill_(abs(pre))
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    x = np.full((2, 1, 1), np.sign(pre), dtype)
    (lo, (lh, lc)), (to, (th, tc)) = lm(litnn.tensor(x)), tm(torch.tensor(x))
    for l, t in ((lo, to), (lh, th), (lc, tc)):
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-6 if dtype == 'float32' else 1e-12, atol=0)


def test_lstm_refuses_states_of_another_dtype():
    "The RNN's and GRU's products refuse a float64 state with a float32 input; the LSTM refuses it too (litnn says which dtypes)."
    f = lambda lib: lib.nn.LSTM(3, 4)(lib.ones(5, 2, 3), (lib.ones(1, 2, 4, dtype=lib.float64), lib.ones(1, 2, 4, dtype=lib.float64)))
    same_error(f)
    with pytest.raises(RuntimeError, match="input's dtype litnn.float32, but got litnn.float64 and litnn.float64"): f(litnn)

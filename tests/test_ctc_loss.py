"""reference/nn/loss_ctc against torch 2.13: F.ctc_loss and nn.CTCLoss (losses, gradients, target layouts, reductions, errors)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
TOL = dict(float64=dict(rtol=1e-10, atol=1e-12), float32=dict(rtol=2e-4, atol=1e-5))

def _case(T, N, C, S, blank=0, repeats=False):
    "Random log-probabilities, padded targets (no blank), lengths."
    lp = rng.normal(size=(T, N, C))
    labels = [c for c in range(C) if c != blank]
    tl = rng.integers(0, S + 1, size=N); tl[0] = S
    il = rng.integers(max(1, T // 2), T + 1, size=N); il[0] = T
    tg = rng.choice(labels, size=(N, max(S, 1)))
    if repeats: tg[:, 1] = tg[:, 0]
    return lp, tg, il, tl

CASES = [(6, 3, 5, 3, 0, False), (10, 4, 6, 4, 0, True), (8, 2, 4, 2, 3, False), (12, 5, 8, 5, 2, True), (4, 2, 3, 0, 0, False)]

@pytest.mark.parametrize('case', CASES, ids=lambda v: str(v))
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_loss_and_gradient(case, reduction, dtype):
    T, N, C, S, blank, rep = case
    lp, tg, il, tl = _case(T, N, C, S, blank, rep)
    rs = np.random.default_rng(1).normal(size=N).astype(dtype)
    got = []
    for lib in (litnn, torch):
        x = lib.tensor(lp.astype(dtype), requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x.log_softmax(-1), lib.tensor(tg), lib.tensor(il), lib.tensor(tl), blank=blank, reduction=reduction)
        (loss * lib.tensor(rs)).sum().backward() if reduction == 'none' else loss.backward()
        got.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(got[0][0], got[1][0], **TOL[dtype])
    np.testing.assert_allclose(got[0][1], got[1][1], **TOL[dtype])

def test_gradient_of_log_probs_themselves():
    "torch's gradient for log_probs (with its exp(lp) term), without a log_softmax in between."
    lp, tg, il, tl = _case(7, 3, 5, 3)
    g = []
    for lib in (litnn, torch):
        x = lib.tensor(lp, requires_grad=True)
        lib.nn.functional.ctc_loss(x, lib.tensor(tg), lib.tensor(il), lib.tensor(tl), reduction='sum').backward()
        g.append(x.grad.numpy())
    np.testing.assert_allclose(g[0], g[1], rtol=1e-10, atol=1e-12)

def test_concatenated_targets_lists_and_unbatched():
    lp, tg, il, tl = _case(8, 3, 5, 3)
    flat = np.concatenate([tg[n, :tl[n]] for n in range(3)])
    ref = torch.nn.functional.ctc_loss(torch.tensor(lp).log_softmax(2), torch.tensor(tg), torch.tensor(il), torch.tensor(tl), reduction='none')
    for targets in (flat, tg):
        got = litnn.nn.functional.ctc_loss(litnn.tensor(lp).log_softmax(2), litnn.tensor(targets), il.tolist(), tuple(tl.tolist()), reduction='none')
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10)
    one = litnn.nn.functional.ctc_loss(litnn.tensor(lp[:, 0]).log_softmax(1), litnn.tensor(tg[0]), litnn.tensor(il[0]), litnn.tensor(tl[0]))
    ref1 = torch.nn.functional.ctc_loss(torch.tensor(lp[:, 0]).log_softmax(1), torch.tensor(tg[0]), torch.tensor(il[0]), torch.tensor(tl[0]))
    np.testing.assert_allclose(one.numpy(), ref1.numpy(), rtol=1e-10)
    assert one.dim() == 0

@pytest.mark.parametrize('zero_infinity', [False, True])
def test_impossible_alignment(zero_infinity):
    lp, tg, il = rng.normal(size=(6, 2, 5)), np.array([[1, 2, 2], [3, 1, 0]]), np.array([2, 5])
    got = []
    for lib in (litnn, torch):
        x = lib.tensor(lp, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(x.log_softmax(2), lib.tensor(tg), lib.tensor(il), lib.tensor([3, 2]), reduction='none', zero_infinity=zero_infinity)
        loss[1].backward() if not zero_infinity else loss.sum().backward()
        got.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-10)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-10, atol=1e-12)

def test_module_and_gradcheck():
    assert repr(litnn.nn.CTCLoss()) == repr(torch.nn.CTCLoss()) == 'CTCLoss()'
    assert list(litnn.nn.CTCLoss(blank=2).state_dict()) == []
    lp, tg, il, tl = _case(5, 2, 4, 2, blank=3)
    lm, tm = litnn.nn.CTCLoss(blank=3, reduction='sum'), torch.nn.CTCLoss(blank=3, reduction='sum')
    np.testing.assert_allclose(lm(litnn.tensor(lp).log_softmax(2), litnn.tensor(tg), litnn.tensor(il), litnn.tensor(tl)).numpy(),
                               tm(torch.tensor(lp).log_softmax(2), torch.tensor(tg), torch.tensor(il), torch.tensor(tl)).numpy(), rtol=1e-10)
    x = litnn.tensor(lp, requires_grad=True)
    assert litnn.autograd.gradcheck(lambda x: litnn.nn.functional.ctc_loss(x.log_softmax(2), litnn.tensor(tg), litnn.tensor(il), litnn.tensor(tl), blank=3), (x,))

def test_no_second_derivative():
    errs = []
    for lib in (torch, litnn):
        x = lib.tensor(rng.normal(size=(4, 1, 3)), requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.ctc_loss(x, lib.tensor([[1]]), [4], [1]), x, create_graph=True)
        with pytest.raises(RuntimeError) as e: g.sum().backward()
        errs.append(str(e.value))
    assert errs[0] == errs[1]

lp0 = lambda T: T.randn(6, 2, 5).log_softmax(2)
tg0 = lambda T: T.tensor([[1, 2, 2], [3, 1, 0]])
ERRORS = [lambda F, T: F.ctc_loss(lp0(T), tg0(T), [7, 5], [3, 2]), lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5, 4], [3, 2]),
          lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5], [3, 2, 1]), lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5], [4, 2]),
          lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5], [3, 2], blank=5), lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5], [3, 2], blank=-1),
          lambda F, T: F.ctc_loss(lp0(T), T.tensor([1, 2, 2, 3, 1]), [6, 5], [3, 3]),
          lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5], [3, 2], reduction='foo'),
          lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, -1], [3, 2]), lambda F, T: F.ctc_loss(lp0(T), tg0(T), [6, 5], [3, -1]),
          lambda F, T: F.ctc_loss(lp0(T).unsqueeze(0), tg0(T), [6, 5], [3, 2])]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors_as_torch(i):
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: ERRORS[i](lib.nn.functional, lib)
        msgs.append((e.type, str(e.value)))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('shape, lengths', [((0, 0, 4), ([], [])), ((5, 0, 4), ([], [])), ((0, 2, 4), ([0, 0], [0, 0])),
                                            ((3, 2, 0), ([3, 3], [0, 0]))])
def test_empty_log_probs_refused(shape, lengths):
    "torch refuses an empty log_probs (before the blank's range): 'log_probs tensor must not be empty'."
    from torch_pairs import same_message
    il, tl = lengths
    def f(lib):
        L = lib.long
        return lib.nn.functional.ctc_loss(lib.rand(*shape), lib.tensor([], dtype=L), lib.tensor(il, dtype=L), lib.tensor(tl, dtype=L),
                                          reduction='none')
    assert same_message(f) is RuntimeError

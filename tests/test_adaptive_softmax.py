"""AdaptiveLogSoftmaxWithLoss (reference/nn/adaptive) with the same weights as torch 2.13."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from functional_pairs import DTYPES, tol, pair, same, same_error

rng = np.random.default_rng(0)


# --- AdaptiveLogSoftmaxWithLoss: the same weights in both libraries ----------------------------------------------

def asm_pair(dt, *args, **kwargs):
    torch.manual_seed(0)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs).to(torch.float64 if dt == np.float64 else torch.float32)
    l = litnn.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs).to(litnn.float64 if dt == np.float64 else litnn.float32)
    l.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return l, t


def grads_match(l, t, dt):
    for (ln, lp), (tn, tp) in zip(l.named_parameters(), t.named_parameters()):
        assert ln == tn
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), **tol(dt))


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('kwargs', [dict(cutoffs=[4, 10]), dict(cutoffs=[3, 8, 15], div_value=2., head_bias=True), dict(cutoffs=[19])])
def test_adaptive_log_softmax_forward_like_torch(dt, kwargs):
    l, t = asm_pair(dt, 16, 20, **kwargs)
    a = rng.normal(size=(9, 16)).astype(dt)
    target = np.array([0, 3, 4, 9, 10, 12, 19, 2, 15])
    lx, tx = pair(a)
    lo, to = l(lx, litnn.tensor(target)), t(tx, torch.tensor(target))
    assert type(lo).__name__ == type(to).__name__ == '_ASMoutput' and lo._fields == to._fields
    same(lo.output, to.output, dt); same(lo.loss, to.loss, dt)
    w = rng.normal(size=9).astype(dt)
    ((lo.output * litnn.tensor(w)).sum() + lo.loss).backward(); ((to.output * torch.tensor(w)).sum() + to.loss).backward()
    same(lx.grad, tx.grad, dt); grads_match(l, t, dt)
    lx.grad = None; tx.grad = None; l.zero_grad(); t.zero_grad()
    llp, tlp = l.log_prob(lx), t.log_prob(tx)
    same(llp, tlp, dt)
    w = rng.normal(size=(9, 20)).astype(dt)
    (llp * litnn.tensor(w)).sum().backward(); (tlp * torch.tensor(w)).sum().backward()
    same(lx.grad, tx.grad, dt); grads_match(l, t, dt)
    assert l.predict(lx).tolist() == t.predict(tx).tolist()
    lu, tu = l(lx[0], litnn.tensor(target[0])), t(tx[0], torch.tensor(target[0]))   # unbatched
    same(lu.output, tu.output, dt); same(lu.loss, tu.loss, dt)


@pytest.mark.parametrize('bias', [-3., 0., 3.])
def test_adaptive_log_softmax_predict_like_torch(bias):
    "The head's argmax in the shortlist, in a cluster, or mixed: predict's three paths."
    l, t = asm_pair(np.float64, 16, 12, [3, 7], head_bias=True)
    with torch.no_grad(): t.head.bias[3:] = bias
    l.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    a = rng.normal(size=(20, 16))
    assert l.predict(litnn.tensor(a)).tolist() == t.predict(torch.tensor(a)).tolist()


def test_adaptive_log_softmax_module():
    l, t = asm_pair(np.float64, 16, 20, [4, 10], div_value=2.)
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())
    assert type(l).__module__ == 'litnn.nn.modules.adaptive'
    for k in ('in_features', 'n_classes', 'cutoffs', 'div_value', 'head_bias', 'shortlist_size', 'n_clusters', 'head_size'):
        assert getattr(l, k) == getattr(t, k)
    l.reset_parameters()
    assert [tuple(p.shape) for p in l.parameters()] == [tuple(p.shape) for p in t.parameters()]


@pytest.mark.parametrize('args', [(16, 20, []), (16, 20, [10, 4]), (16, 20, [4, 20]), (16, 20, [0, 4]), (16, 20, [4, 4]), (16, 20, [2.5])])
def test_adaptive_log_softmax_bad_cutoffs(args):
    same_error(lambda: litnn.nn.AdaptiveLogSoftmaxWithLoss(*args), lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(*args))


@pytest.mark.parametrize('make', [lambda lib: (lib.ones(3, 16), lib.tensor([0, 1])), lambda lib: (lib.ones(3, 16), lib.tensor([0, 1, 20])),
                                  lambda lib: (lib.ones(3, 16), lib.tensor([-1, 1, 2])), lambda lib: (lib.ones(3, 2, 16), lib.tensor([0, 1, 2])),
                                  lambda lib: (lib.ones(3, 16), lib.tensor(1)), lambda lib: (lib.ones(3, 16), lib.tensor([[1]]))])
def test_adaptive_log_softmax_bad_input(make):
    l, t = asm_pair(np.float64, 16, 20, [4, 10])
    same_error(lambda: l(*make(litnn)), lambda: t(*make(torch)))


DEVICES = ['cpu', pytest.param('cuda', marks=pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)"))]


@pytest.mark.parametrize('device', DEVICES)
def test_adaptive_log_softmax_on_device(device):
    l, _ = asm_pair(np.float64, 16, 20, [4, 10])
    x, y = rng.normal(size=(6, 16)), np.array([0, 5, 12, 19, 3, 9])
    cpu = l(litnn.tensor(x), litnn.tensor(y))
    l.to(device)
    dev = l(litnn.tensor(x, device=device), litnn.tensor(y, device=device))
    assert dev.loss.device.type == device
    np.testing.assert_allclose(dev.output.detach().cpu().numpy(), cpu.output.detach().numpy(), rtol=1e-12)
    assert l.predict(litnn.tensor(x, device=device)).cpu().tolist() == l.cpu().predict(litnn.tensor(x)).tolist()

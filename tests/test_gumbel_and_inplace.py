"""F.gumbel_softmax and the in-place rectifiers (reference/nn/gumbel_softmax_and_inplace_rectifiers) side by side with torch 2.13."""
import warnings
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF
from functional_pairs import DTYPES, pair, same, raised, same_error

rng = np.random.default_rng(0)


# --- gumbel_softmax: the same noise in both libraries ----------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('hard', [False, True])
@pytest.mark.parametrize('tau,dim', [(1, -1), (0.3, 0), (2.5, 1)])
def test_gumbel_softmax_like_torch(noise, dt, hard, tau, dim):
    a = rng.normal(size=(3, 4, 5)).astype(dt)
    noise['e'] = rng.exponential(size=a.shape).astype(dt)
    w = rng.normal(size=a.shape).astype(dt)
    (l, t) = pair(a)
    ly, ty = LF.gumbel_softmax(l, tau, hard, dim=dim), TF.gumbel_softmax(t, tau, hard, dim=dim)
    same(ly, ty, dt)
    assert ly.dtype == litnn.float64 if dt == np.float64 else ly.dtype == litnn.float32
    (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


def test_gumbel_softmax_seeded_and_warns():
    litnn.manual_seed(3); a = LF.gumbel_softmax(litnn.zeros(4, 6), hard=True)
    litnn.manual_seed(3); b = LF.gumbel_softmax(litnn.zeros(4, 6), hard=True)
    assert a.tolist() == b.tolist() and a.sum(-1).tolist() == [1.] * 4
    for F, lib in ((LF, litnn), (TF, torch)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always'); F.gumbel_softmax(lib.zeros(2, 3), eps=1e-3)
        assert [str(x.message) for x in w] == ["`eps` parameter is deprecated and has no effect."]
    same_error(lambda: LF.gumbel_softmax(litnn.tensor([1, 2])), lambda: TF.gumbel_softmax(torch.tensor([1, 2])))
    same_error(lambda: LF.gumbel_softmax(litnn.ones(2, 2), dim=2), lambda: TF.gumbel_softmax(torch.ones(2, 2), dim=2))


# --- relu_ and leaky_relu_ -------------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('name,args', [('relu_', ()), ('leaky_relu_', ()), ('leaky_relu_', (0.2,))])
def test_inplace_rectifiers_like_torch(dt, name, args):
    a = rng.normal(size=(3, 4)).astype(dt)
    l, t = pair(a)
    lh, th = l * 1, t * 1
    lo, to = getattr(LF, name)(lh, *args), getattr(TF, name)(th, *args)
    assert lo is lh and to is th
    same(lh, th, dt)
    assert type(lh.grad_fn).__name__ == type(th.grad_fn).__name__
    w = rng.normal(size=a.shape).astype(dt)
    (lh * litnn.tensor(w)).sum().backward(); (th * torch.tensor(w)).sum().backward()
    same(l.grad, t.grad, dt)


def test_inplace_rectifiers_errors_like_torch():
    same_error(lambda: LF.relu_(np.ones(2)), lambda: TF.relu_(np.ones(2)))
    same_error(lambda: LF.leaky_relu_(litnn.tensor([1, 2])), lambda: TF.leaky_relu_(torch.tensor([1, 2])))
    for lib, F in ((litnn, LF), (torch, TF)):
        assert F.relu_(lib.tensor([1, -2])).tolist() == [1, 0]
    same_error(lambda: LF.leaky_relu_(litnn.ones(2, requires_grad=True)), lambda: TF.leaky_relu_(torch.ones(2, requires_grad=True)))


def test_inplace_leaky_relu_negative_slope_backward():
    def negative_slope_backward(lib, F):
        x = lib.tensor([1., -2.], requires_grad=True)
        F.leaky_relu_(x * 1, -0.5).sum().backward()
    (lt, _), (tt, _) = raised(lambda: negative_slope_backward(litnn, LF)), raised(lambda: negative_slope_backward(torch, TF))
    assert lt is tt

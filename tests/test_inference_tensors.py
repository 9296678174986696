"""Inference tensors (nbs/13b_grad_modes): what `inference_mode` makes is marked, and outside the mode autograd refuses
to save it, to change it in place and to make it require gradients, as torch does; case by case against torch."""
import pytest
import litnn
torch = pytest.importorskip('torch')

def _made(L):
    with L.inference_mode():
        a = L.ones(3); v = a[1:]
    return a, v

def _outcome(f):
    "What `f()` gives: a plain value, 'ok' for a tensor, or the RuntimeError's message."
    try: r = f()
    except RuntimeError as e: return str(e)
    return r if isinstance(r, (bool, int, float, tuple, list)) else 'ok'

INSIDE = {      # run inside inference_mode
    'marked': lambda L: L.ones(3).is_inference(),
    'op result': lambda L: (L.ones(3) * 2).is_inference(),
    'random': lambda L: L.randn(2).is_inference(),
    'from data': lambda L: L.tensor([1.]).is_inference(),
    'like': lambda L: L.zeros_like(L.ones(2)).is_inference(),
    'several outputs': lambda L: [t.is_inference() for t in L.ones(4).split(2)],
    'in place': lambda L: (lambda a: a.add_(1).is_inference())(L.ones(2)),
    'view': lambda L: L.ones(3)[1:].is_inference(),
    'nested off': lambda L: (lambda m: (m.__enter__(), L.ones(2).is_inference(), m.__exit__(None, None, None))[1])(L.inference_mode(False)),
    'module parameter': lambda L: (lambda m: (m.weight.is_inference(), m.weight.requires_grad))(L.nn.Linear(3, 2)),
}

@pytest.mark.parametrize('name', INSIDE)
def test_inside(name):
    def run(L):
        with L.inference_mode(): return _outcome(lambda: INSIDE[name](L))
    assert run(litnn) == run(torch)

def _normal_in_mode(L):
    n = L.ones(3)
    with L.inference_mode():
        v = n[1:]; n.add_(1)
        return v.is_inference(), n._version, n.is_inference()

def test_normal_tensor_in_mode():
    assert _normal_in_mode(litnn) == _normal_in_mode(torch) == (False, 1, False)

OUTSIDE = {     # a = ones(3), v = a[1:] made inside; run outside
    'is_inference': lambda L, a, v: a.is_inference(),
    'view made inside': lambda L, a, v: v.is_inference(),
    'view made outside': lambda L, a, v: a[:2].is_inference(),
    'detach': lambda L, a, v: a.detach().is_inference(),
    'data': lambda L, a, v: a.data.is_inference(),
    'clone': lambda L, a, v: a.clone().is_inference(),
    'op result': lambda L, a, v: (a + 1).is_inference(),
    'to': lambda L, a, v: a.to(L.float64).is_inference(),
    'function': lambda L, a, v: L.is_inference(a),
    'version': lambda L, a, v: a._version,
    'add_': lambda L, a, v: a.add_(1),
    'view mul_': lambda L, a, v: v.mul_(2),
    'setitem': lambda L, a, v: a.__setitem__(0, 5.),
    'zero_': lambda L, a, v: a.zero_(),
    'fill_': lambda L, a, v: a.fill_(2.),
    'copy_': lambda L, a, v: a.copy_(L.zeros(3)),
    'clamp_': lambda L, a, v: a.clamp_(0, 0.5),
    'uniform_': lambda L, a, v: a.uniform_(),
    'in place under no_grad': lambda L, a, v: L.no_grad()(lambda: a.add_(1))(),
    'requires_grad_': lambda L, a, v: a.requires_grad_(),
    'requires_grad_ False': lambda L, a, v: a.requires_grad_(False).is_inference(),
    'Parameter': lambda L, a, v: L.nn.Parameter(a),
    'Parameter without grad': lambda L, a, v: L.nn.Parameter(a, requires_grad=False).is_inference(),
    'mul saves it': lambda L, a, v: L.ones(3, requires_grad=True) * a,
    'add saves nothing': lambda L, a, v: (L.ones(3, requires_grad=True) + a).sum().backward(),
    'linear saves the input': lambda L, a, v: L.nn.functional.linear(a, L.ones(2, 3, requires_grad=True)),
    'matmul': lambda L, a, v: L.ones(2, 3, requires_grad=True) @ a,
    'mse target': lambda L, a, v: L.nn.functional.mse_loss(L.ones(3, requires_grad=True), a),
    'cat saves nothing': lambda L, a, v: L.cat([L.ones(3, requires_grad=True), a]).sum().backward(),
    'no recording': lambda L, a, v: (a.exp() * 2).requires_grad,
    'item': lambda L, a, v: (a * 2).sum().item(),
}

@pytest.mark.parametrize('name', OUTSIDE)
def test_outside(name):
    def run(L):
        a, v = _made(L)
        return _outcome(lambda: OUTSIDE[name](L, a, v)), a
    (got, a), (want, _) = run(litnn), run(torch)
    assert got == want
    if isinstance(want, str) and want.startswith('Inplace'):
        assert a.tolist() == [1., 1., 1.]     # refused before anything is written (torch's kernel writes, then raises)

def _inf(L, rg=True):
    with L.inference_mode(): return L.ones(2, 3, requires_grad=rg)

def _viewed_in_mode(L, rg=True):
    "A normal tensor (a non-leaf when `rg`) and a view of it made inside inference_mode."
    a = L.ones(2, 3, requires_grad=rg).clone()
    with L.inference_mode(): v = a.view_as(a)
    return a, v

VIEWS = {       # views and in-place view ops around inference tensors and inference_mode (torch's creation meta)
    'view inside of one that requires grad': lambda L: L.inference_mode()(
        lambda: (lambda v: (v.is_inference(), v.requires_grad, v._is_view()))(L.ones(2, 3, requires_grad=True).view(-1)))(),
    'view outside': lambda L: (lambda v: (v.is_inference(), v.requires_grad, v._is_view(), v.is_leaf, v.grad_fn is None))(_inf(L).view(-1)),
    'select outside': lambda L: (lambda v: (v.is_inference(), v.requires_grad, v._is_view()))(_inf(L)[0]),
    't outside': lambda L: (lambda v: (v.requires_grad, v._is_view()))(_inf(L).t()),
    'view outside shares memory': lambda L: (lambda c: (L.inference_mode()(lambda: c.view(-1).mul_(3))(), c.sum().item())[1])(_inf(L, False)),
    'transpose_ outside': lambda L: _inf(L, False).transpose_(0, 1),
    'transpose_ outside, requires grad': lambda L: _inf(L).transpose_(0, 1),
    'add_ outside, requires grad': lambda L: _inf(L).add_(1),
    'out= outside': lambda L: L.mul(L.ones(2, 3), 2, out=_inf(L, False)),
    'resize_ inside, requires grad': lambda L: L.inference_mode()(lambda: tuple(L.ones(3, requires_grad=True).resize_(2).shape))(),
    'resize_ outside, requires grad': lambda L: L.ones(3, requires_grad=True).resize_(2),
    'mode view add_': lambda L: _viewed_in_mode(L)[1].add_(2),
    'mode view transpose_': lambda L: _viewed_in_mode(L)[1].transpose_(0, 1),
    'mode view of view add_': lambda L: _viewed_in_mode(L)[1].view(-1).add_(2),
    'mode view add_, no grad needed': lambda L: _viewed_in_mode(L, False)[1].add_(2).sum().item(),
    'mode view requires grad': lambda L: (lambda a, v: (v.requires_grad, v.is_leaf, v._is_view(), v.is_inference()))(*_viewed_in_mode(L)),
    'no_grad view transpose_': lambda L: (lambda a: L.no_grad()(lambda: a.view_as(a))().transpose_(0, 1))(L.ones(2, 3, requires_grad=True).clone()),
}

@pytest.mark.parametrize('name', VIEWS)
def test_views_and_inference_mode(name):
    assert _outcome(lambda: VIEWS[name](litnn)) == _outcome(lambda: VIEWS[name](torch))

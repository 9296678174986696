"""`ctx.mark_dirty` in a custom autograd.Function (nbs/14_custom_functions): the input changed in place comes back
itself with the Function's history, its version moves on, a view's base is rewritten (CopySlices), and the in-place
refusals hold; case by case against torch."""
import pytest
import litnn
torch = pytest.importorskip('torch')

def _functions(L):
    class Double_(L.autograd.Function):
        @staticmethod
        def forward(ctx, x): ctx.mark_dirty(x); return x.mul_(2)
        @staticmethod
        def backward(ctx, g): return g * 2
    class Sneaky(L.autograd.Function):      # marks an input it does not return
        @staticmethod
        def forward(ctx, x, y): ctx.mark_dirty(x); x.add_(y); return y * 1
        @staticmethod
        def backward(ctx, g): return g, g
    class Exp_(L.autograd.Function):        # dirty, returned and saved for backward
        @staticmethod
        def forward(ctx, x): ctx.mark_dirty(x); x.exp_(); ctx.save_for_backward(x); return x
        @staticmethod
        def backward(ctx, g): (r,) = ctx.saved_tensors; return g * r
    class Pair_(L.autograd.Function):       # two outputs, the second one dirty
        @staticmethod
        def forward(ctx, x, y): ctx.mark_dirty(y); y.add_(x); return x * 3, y
        @staticmethod
        def backward(ctx, g1, g2): return g1 * 3 + g2, g2
    return Double_, Sneaky, Exp_, Pair_

def _names(fn): return fn.name().replace('torch::autograd::', '') if fn is not None else None

CASES = {
    'returned itself': lambda L, D, S, E, P: (lambda x: (lambda y: (D.apply(y) is y, _names(y.grad_fn), y._version))(x.clone()))(L.ones(2, requires_grad=True)),
    'gradient': lambda L, D, S, E, P: (lambda x: (D.apply(x.clone()).sum().backward(), x.grad.tolist())[1])(L.ones(2, requires_grad=True)),
    'leaf': lambda L, D, S, E, P: D.apply(L.ones(2, requires_grad=True)),
    'view of a leaf': lambda L, D, S, E, P: D.apply(L.ones(4, requires_grad=True)[:2]),
    'view': lambda L, D, S, E, P: (lambda x: (lambda h: (lambda v: (v.grad_fn.name(), _names(h.grad_fn), h.sum().backward(), x.grad.tolist()))(D.apply(h[1:3])))(x.clone()))(L.ones(4, requires_grad=True)),
    'not returned': lambda L, D, S, E, P: S.apply(L.ones(2), L.ones(2, requires_grad=True)),
    'saved dirty output': lambda L, D, S, E, P: (lambda a: (E.apply(a * 1).sum().backward(), a.grad.tolist())[1])(L.zeros(2, requires_grad=True)),
    'second output dirty': lambda L, D, S, E, P: (lambda a, b: (lambda o: (o[1] is b, (o[0].sum() + o[1].sum()).backward(), a.grad.tolist()))(P.apply(a, b)))(L.ones(2, requires_grad=True), L.zeros(2)),
    'nothing recorded': lambda L, D, S, E, P: (lambda n: (D.apply(n) is n, n.requires_grad, n.tolist()))(L.ones(2)),
    'stale saved value': lambda L, D, S, E, P: (lambda x: (lambda y: (lambda z: (D.apply(y), z.sum().backward()))(y * y))(x * 1))(L.ones(2, requires_grad=True)),
}

@pytest.mark.parametrize('name', CASES)
def test_mark_dirty(name):
    def run(L):
        try: return CASES[name](L, *_functions(L))
        except RuntimeError as e: return str(e).split(' [')[0].split(': [')[0]
    got, want = run(litnn), run(torch)
    if isinstance(want, tuple): got, want = tuple(g for g in got if not isinstance(g, L_T)), tuple(w for w in want if not isinstance(w, T_T))
    assert got == want

L_T, T_T = litnn.Tensor, torch.Tensor

"""Side-by-side helpers for the everyday tensor API tests (creation, sorting, random, shapes):
run one function in litnn and in torch on the same arrays and compare values, dtypes, grad_fn
names and input gradients."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])

def host(t):
    "A tensor of either library (or a number) as a numpy array."
    if isinstance(t, (torch.Tensor, litnn.Tensor)): t = t.detach().cpu()
    if isinstance(t, (torch.Tensor, litnn.Tensor)) and str(t.dtype).split('.')[-1] == 'bfloat16': t = t.float()   # (numpy() refuses bfloat16 in both)
    return np.asarray(t.numpy() if hasattr(t, 'numpy') else t)

def make(lib, a, dev='cpu', grad=True):
    "A tensor of array `a` in `lib`; floating arrays require grad when `grad`."
    f = grad and a.dtype.kind == 'f'
    if lib is torch: return torch.tensor(a, requires_grad=f)
    return litnn.tensor(a, device=dev, requires_grad=f)

def node(t): return None if t.grad_fn is None else type(t.grad_fn).__name__

def flat(o): return list(o) if isinstance(o, (tuple, list)) else [o]

def check(f, *arrays, dev='cpu', name=True, grads=True, rtol=1e-12, atol=1e-12):
    "Run `f(lib, *tensors)` in litnn and torch: same shapes, dtypes, values, grad_fn names and input gradients."
    rng = np.random.default_rng(1)
    lx, tx = [make(litnn, a, dev) for a in arrays], [make(torch, a) for a in arrays]
    lo, to = flat(f(litnn, *lx)), flat(f(torch, *tx))
    assert len(lo) == len(to)
    for l, t in zip(lo, to):
        assert tuple(l.shape) == tuple(t.shape), (tuple(l.shape), tuple(t.shape))
        assert l.dtype.name == str(t.dtype).removeprefix('torch.'), (l.dtype, t.dtype)
        np.testing.assert_allclose(host(l), host(t), rtol=rtol, atol=atol, equal_nan=True)
        if name: assert node(l) == node(t), (node(l), node(t))
    outs = [(l, t) for l, t in zip(lo, to) if t.requires_grad]
    if not grads or not outs: return lo
    gs = [rng.standard_normal(tuple(t.shape)) for _, t in outs]
    litnn.autograd.backward([l for l, _ in outs], [litnn.tensor(g, dtype=l.dtype, device=dev) for g, (l, _) in zip(gs, outs)])
    torch.autograd.backward([t for _, t in outs], [torch.tensor(g, dtype=t.dtype) for g, (_, t) in zip(gs, outs)])
    for l, t in zip(lx, tx):
        if t.grad is None: assert l.grad is None
        else: np.testing.assert_allclose(host(l.grad), host(t.grad), rtol=rtol, atol=atol)
    return lo

def same_error(f, match=True):
    "`f(lib)` raises the same exception type in both libraries (and, if `match`, the same message, torch->litnn)."
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type) as le: f(litnn)
    if match: assert str(le.value).replace('litnn', 'torch') == str(te.value).split('\n')[0], (str(le.value), str(te.value))
    return te.type

def outcome(fn, lib):
    """What `fn(lib)` gives, comparable across the libraries: a tensor's shape, dtype name and values; any other result
    as it is; an exception's type name and first message line (with litnn's name read as torch's). Warnings are
    silenced: the tests compare results, not warnings."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = fn(lib)
    except Exception as e: return 'error', type(e).__name__, str(e).split('\n')[0].replace('litnn', 'torch')
    if isinstance(r, (torch.Tensor, litnn.Tensor)):
        return tuple(r.shape), str(r.dtype).split('.')[-1], r.tolist()
    return r

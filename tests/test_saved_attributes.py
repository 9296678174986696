"""`grad_fn._saved_<name>` and `_raw_saved_<name>` (nbs/35a_saved_tensor_hooks): what a node saved, read by torch's names,
against torch on the same inputs; identity where torch keeps the input itself, hooks on one saved tensor."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

def _inputs(L):
    return (L.tensor([0.5, 1.5, 2.5], requires_grad=True), L.tensor([1.0, 2.0, 3.0], requires_grad=True),
            L.ones(3, 2, requires_grad=True))

CASES = {   # name: (op, the attributes read)
    'exp': (lambda L, x, w, M: x.exp(), ['result']), 'tanh': (lambda L, x, w, M: x.tanh(), ['result']),
    'sigmoid': (lambda L, x, w, M: x.sigmoid(), ['result']), 'sqrt': (lambda L, x, w, M: x.sqrt(), ['result']),
    'relu': (lambda L, x, w, M: x.relu(), ['result']), 'sin': (lambda L, x, w, M: x.sin(), ['self']),
    'cos': (lambda L, x, w, M: x.cos(), ['self']), 'log': (lambda L, x, w, M: x.log(), ['self']),
    'abs': (lambda L, x, w, M: x.abs(), ['self']), 'erf': (lambda L, x, w, M: x.erf(), ['self']),
    'pow': (lambda L, x, w, M: x.pow(2), ['self', 'exponent']), 'square': (lambda L, x, w, M: x.square(), ['self', 'exponent']),
    'pow tensor': (lambda L, x, w, M: x.pow(w), ['self', 'exponent', 'result']),
    'mul': (lambda L, x, w, M: x * w, ['self', 'other']), 'div': (lambda L, x, w, M: x / w, ['self', 'other']),
    'maximum': (lambda L, x, w, M: L.maximum(x, w), ['self', 'other']), 'atan2': (lambda L, x, w, M: L.atan2(x, w), ['self', 'other']),
    'mm': (lambda L, x, w, M: x[None] @ M, ['self', 'mat2']), 'mv': (lambda L, x, w, M: M.t() @ x, ['self', 'vec']),
    'dot': (lambda L, x, w, M: x @ w, ['self', 'tensor']), 'sum': (lambda L, x, w, M: x.sum(), ['self_sym_sizes']),
    'sum dim': (lambda L, x, w, M: M.sum(1), ['dim', 'keepdim', 'self_sym_sizes']),
    'softmax': (lambda L, x, w, M: x.softmax(0), ['dim', 'result']), 'log_softmax': (lambda L, x, w, M: x.log_softmax(0), ['dim', 'result']),
    'gelu': (lambda L, x, w, M: L.nn.functional.gelu(x), ['self', 'approximate']),
    'leaky_relu': (lambda L, x, w, M: L.nn.functional.leaky_relu(x), ['self', 'negative_slope']),
    'view': (lambda L, x, w, M: M.view(6), ['self_sym_sizes']), 'expand': (lambda L, x, w, M: x.expand(2, 3), ['self_sym_sizes']),
}

def _read(L, name):
    x, w, M = _inputs(L)
    op, attrs = CASES[name]
    fn = op(L, x, w, M).grad_fn
    out = {}
    for a in attrs:
        v = getattr(fn, '_saved_' + a)
        if isinstance(v, L.Tensor): v = (np.round(v.detach().numpy(), 5).tolist(), v is x, v is w, v is M)
        elif isinstance(v, tuple): v = tuple(v)
        out[a] = v
    return out

@pytest.mark.parametrize('name', CASES)
def test_saved(name):
    assert _read(litnn, name) == _read(torch, name)

def _hooked(L):
    x = L.tensor([1., 2.], requires_grad=True)
    y = x.pow(2); log = []
    y.grad_fn._raw_saved_self.register_hooks(lambda t: (log.append('pack'), t * 1)[1], lambda t: (log.append('unpack'), t)[1])
    try: y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as e: log.append(str(e))
    y.sum().backward()
    try: y.grad_fn._saved_self
    except RuntimeError as e: log.append(str(e)[:60])
    z = x.exp(); z.grad_fn._raw_saved_result.register_hooks(lambda t: t.detach().clone(), lambda t: t)
    z.sum().backward()
    return log, x.grad.tolist()

def test_raw_saved_hooks():
    (log, grad), (want_log, want_grad) = _hooked(litnn), _hooked(torch)
    assert log == want_log
    assert np.allclose(grad, want_grad, rtol=1e-6)

@pytest.mark.parametrize('attr', ['_saved_foo', '_raw_saved_exponent', '_other_thing'])
def test_missing(attr):
    def run(L):
        try: getattr(L.ones(2, requires_grad=True).pow(2).grad_fn, attr)
        except AttributeError as e: return str(e)
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('op', ['exp', 'tanh', 'sigmoid'])
def test_saved_result_shares_the_output_version_counter(op):
    "`grad_fn._saved_result` shares the output's version counter: an in-place change of the output under no_grad shows on both."
    def run(L):
        a = L.tensor([0.1, 0.2], requires_grad=True)
        b = getattr(L, op)(a)
        u = b.grad_fn._saved_result
        before = (b._version, u._version)
        with L.no_grad(): b += 1
        return before, (b._version, u._version), u.tolist() == b.tolist()
    assert run(litnn) == run(torch)


# test_autograd.py test_custom_function_saved_tensors / test_get_data_and_hooks_from_raw_saved_variable: the slots
# `_raw_saved_<name>` hands out are instances of torch.autograd.SavedTensor (one class: litnn had a second, private
# one), with `data` (the packed object under hooks, the input itself, the output detached; None once freed) and
# `unpack_hook`
def test_raw_saved_slots_are_autograd_saved_tensors_with_data_and_unpack_hook():
    import torch
    res = []
    for lib in (litnn, torch):
        def pack_hook(t): return ('packed', t)
        def unpack_hook(p): return p[1]
        a = lib.tensor(2.0, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            b = a ** 2
        c = b.exp()
        d = c ** 2
        pow_sv, exp_sv, pow2_sv = b.grad_fn._raw_saved_self, c.grad_fn._raw_saved_result, d.grad_fn._raw_saved_self
        r = [all(isinstance(s, lib.autograd.SavedTensor) for s in (pow_sv, exp_sv, pow2_sv)),
             pow_sv.data[0] == 'packed' and pow_sv.data[1] is a, pow_sv.unpack_hook is unpack_hook,
             exp_sv.data is c, exp_sv.data.requires_grad, exp_sv.data.tolist(), exp_sv.unpack_hook,
             pow2_sv.data is c, pow2_sv.unpack_hook]
        d.backward()
        r += [exp_sv.data, exp_sv.unpack_hook, pow_sv.data, pow_sv.unpack_hook]
        with pytest.raises(RuntimeError, match='Trying to create a SavedTensor object from Python is forbidden'):
            lib.autograd.SavedTensor()
        res.append(r)
    assert res[0] == res[1]

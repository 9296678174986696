"""Cases from PyTorch's ModuleInfo database (torch.testing._internal.common_modules.module_db) where litnn differed from
torch 2.13, written out here without that database: the same module built in both libraries with the same constructor
arguments and weights, the same inputs; outputs, input and parameter gradients (fixed cotangent) must agree.
The sweep that found them: /work/w/moduleinfo/sweep.py."""
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')


def _arr(shape, seed, dtype='float32'):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _to(lib, x, grad):
    "numpy -> a tensor of `lib`; a float array becomes a leaf that requires grad when `grad`."
    if isinstance(x, np.ndarray):
        t = lib.tensor(x)
        return t.requires_grad_(True) if grad and x.dtype.kind == 'f' else t
    if isinstance(x, tuple): return tuple(_to(lib, v, grad) for v in x)
    if isinstance(x, dict): return {k: _to(lib, v, grad) for k, v in x.items()}
    return x


def _flat(x):
    if isinstance(x, (tuple, list)): return [t for v in x for t in _flat(v)]
    return [x] if x is not None else []


def _compare(name, ctor, args, kwargs=None, train=True, rtol=1e-4, atol=1e-5):
    kwargs = kwargs or {}
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(**ctor).train(train)
    lm = getattr(litnn.nn, name)(**ctor).train(train)
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    assert repr(lm) == repr(tm)
    ta, tk = _to(torch, args, True), _to(torch, kwargs, True)
    la, lk = _to(litnn, args, True), _to(litnn, kwargs, True)
    to, lo = _flat(tm(*ta, **tk)), _flat(lm(*la, **lk))
    assert len(to) == len(lo)
    loss_t = loss_l = 0
    for i, (a, b) in enumerate(zip(to, lo)):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype).split('.')[-1] == str(b.dtype).split('.')[-1]
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=rtol, atol=atol)
        if a.requires_grad:
            c = _arr(tuple(a.shape), 100 + i, str(a.dtype).split('.')[-1])
            loss_t = loss_t + (a * torch.tensor(c)).sum()
            loss_l = loss_l + (b * litnn.tensor(c)).sum()
    loss_t.backward(); loss_l.backward()
    for a, b in zip(_flat(ta) + _flat(list(tk.values())), _flat(la) + _flat(list(lk.values()))):
        if isinstance(a, torch.Tensor) and a.requires_grad:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=10 * rtol, atol=10 * atol)
    lp = dict(lm.named_parameters())
    for n, p in tm.named_parameters():
        if p.grad is not None: np.testing.assert_allclose(lp[n].grad.numpy(), p.grad.numpy(), rtol=10 * rtol, atol=10 * atol)


# MultiheadAttention with a batch of one and a key_padding_mask: the combined (1, 1, 1, S) mask was taken for a
# (1, 1, L, S) attention mask and reshaped to (1, L, S). module_db: nn.MultiheadAttention, unbatched inputs.
_KPM = np.array([False, True, False])
MHA_CASES = [
    (dict(embed_dim=3, num_heads=3, batch_first=True, add_bias_kv=kv, add_zero_attn=za), x_shape, kpm)
    for kv in (False, True) for za in (False, True)
    for x_shape, kpm in (((3, 3), _KPM), ((1, 3, 3), _KPM[None]))]


@pytest.mark.parametrize('ctor,x_shape,kpm', MHA_CASES)
def test_multihead_attention_key_padding_mask_batch_of_one(ctor, x_shape, kpm):
    x = _arr(x_shape, 0)
    _compare('MultiheadAttention', ctor, (x, x, x), dict(key_padding_mask=kpm))


# Activations with no options of their own (Softsign, Tanhshrink, LogSigmoid) took any keyword as an attribute:
# module_db's factory-kwargs probe builds them with device=/dtype=, which torch's Module.__init__ refuses.
@pytest.mark.parametrize('name', ['Softsign', 'Tanhshrink', 'LogSigmoid', 'Sigmoid', 'Tanh', 'Softmin', 'ELU'])
@pytest.mark.parametrize('args,kwargs', [((), dict(device='cpu', dtype='float64')), ((), dict(foo=1)), ((1, 2, 3), {})])
def test_activation_constructor_refuses_unknown_arguments(name, args, kwargs):
    def attempt(lib):
        kw = {k: getattr(lib, v) if k == 'dtype' else v for k, v in kwargs.items()}
        try: getattr(lib.nn, name)(*args, **kw)
        except Exception as e: return type(e), str(e)
        return None, None
    assert attempt(litnn) == attempt(torch)

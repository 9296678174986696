"""The deprecated signatures torch's argument parser still binds (its tools/autograd/deprecated.yaml): a number before
the tensors, `torch.add(x, 2, y)` for `x + 2 * y`, `x.addcmul(0.5, a, b)`, `torch.addmm(beta, x, alpha, m1, m2)`; the
values, and the one warning torch gives (reference/torch/with_numpy_argument_names, `_with_deprecated`)."""
import warnings
import pytest
import litnn
torch = pytest.importorskip('torch')

CALLS = {
    'add': lambda L, x, m, b: L.add(x, 2, x), 'add_method': lambda L, x, m, b: x.add(2, x),
    'add_inplace': lambda L, x, m, b: x.clone().add_(2, x), 'add_out': lambda L, x, m, b: L.add(x, 2, x, out=L.empty(2)),
    'add_numbers': lambda L, x, m, b: L.add(2, 3, x), 'add_0d_alpha': lambda L, x, m, b: L.add(x, L.tensor(2.), x),
    'add_bools': lambda L, x, m, b: L.add(L.tensor(True), L.tensor(True), True),
    'add_method_0d_alpha': lambda L, x, m, b: x.add(L.tensor(3.), x),
    'sub': lambda L, x, m, b: L.sub(x, 2, x), 'sub_method': lambda L, x, m, b: x.sub(2, x), 'sub_inplace': lambda L, x, m, b: x.clone().sub_(2, x),
    'addcmul': lambda L, x, m, b: L.addcmul(x, 0.5, x, x), 'addcmul_method': lambda L, x, m, b: x.addcmul(0.5, x, x),
    'addcmul_inplace': lambda L, x, m, b: x.clone().addcmul_(0.5, x, x), 'addcdiv': lambda L, x, m, b: L.addcdiv(x, 0.5, x, x),
    'addcdiv_method': lambda L, x, m, b: x.addcdiv(0.5, x, x),
    'addmm_beta_alpha': lambda L, x, m, b: L.addmm(2, m, 3, m, m), 'addmm_beta': lambda L, x, m, b: L.addmm(2, m, m, m),
    'addmm_method_beta_alpha': lambda L, x, m, b: m.addmm(2, 3, m, m), 'addmm_method_beta': lambda L, x, m, b: m.addmm(2, m, m),
    'addmm_inplace': lambda L, x, m, b: m.clone().addmm_(2, 3, m, m), 'addmm_out': lambda L, x, m, b: L.addmm(2, m, 3, m, m, out=L.empty(2, 2)),
    'addmv': lambda L, x, m, b: L.addmv(2, x, 3, m, x), 'addmv_method': lambda L, x, m, b: x.addmv(2, 3, m, x),
    'addr': lambda L, x, m, b: L.addr(2, m, 3, x, x), 'addr_method': lambda L, x, m, b: m.addr(2, x, x),
    'baddbmm': lambda L, x, m, b: L.baddbmm(2, b, 3, b, b), 'baddbmm_method': lambda L, x, m, b: b.baddbmm(2, 3, b, b),
    'addbmm': lambda L, x, m, b: L.addbmm(2, m, 3, b, b), 'addbmm_beta': lambda L, x, m, b: L.addbmm(2, m, b, b),
}

def run(lib, name):
    x = lib.tensor([1., 2.]); m = lib.tensor([[1., 2.], [3., 4.]]); b = m.reshape(1, 2, 2)
    lib.set_warn_always(True)        # torch warns once in the process: on every call here
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = CALLS[name](lib, x, m, b)
    finally: lib.set_warn_always(False)
    return r, [str(v.message).split(' (Triggered internally')[0].replace('torch.dtype', 'litnn.dtype') for v in w]

@pytest.mark.parametrize('name', list(CALLS))
def test_deprecated_signature(name):
    (t, tw), (l, lw) = run(torch, name), run(litnn, name)
    assert l.tolist() == t.tolist() and str(l.dtype)[6:] == str(t.dtype)[6:]
    assert lw == tw and len(lw) == 1

def test_deprecated_signature_records_grad():
    x, y = litnn.tensor([1., 2.], requires_grad=True), torch.tensor([1., 2.], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        litnn.add(x, 3, x).sum().backward(); torch.add(y, 3, y).sum().backward()
    assert x.grad.tolist() == y.grad.tolist()

@pytest.mark.parametrize('f', [lambda L, x: L.add(x, 2, x, alpha=2), lambda L, x: L.add(x, 2, x, x), lambda L, x: x.add(2, x, x),
                               lambda L, x: L.addcmul(x, 2, x, x, value=3), lambda L, x: x.add(x, 2), lambda L, x: L.add(x, x, 2),
                               lambda L, x: L.addcmul(x, x, x, 2), lambda L, x: x.addcmul(x, x, 2), lambda L, x: x.sub_(x, 2),
                               lambda L, x: L.addmm(L.ones(2, 2), L.ones(2, 2), L.ones(2, 2), 2),
                               lambda L, x: L.add(x, x.clone().requires_grad_()[:1].reshape(()), x)])
def test_not_a_deprecated_signature(f):
    "More arguments, the number given by keyword too, or a tensor (not a 0-d one) where the number goes: a TypeError in both."
    for lib in (torch, litnn):
        with pytest.raises(TypeError): f(lib, lib.ones(2))

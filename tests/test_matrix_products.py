"Matrix products with scalar factors (addmm, addmv, addr, baddbmm, addbmm and their methods and in-place forms) against PyTorch."
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
A = {k: rng.standard_normal(s).astype(np.float32) for k, s in
     dict(M=(2, 2), a=(2, 3), b=(3, 2), v=(3,), v2=(2,), B1=(4, 2, 3), B2=(4, 3, 2), BM=(4, 2, 2)).items()}

def calls(lib, k):
    "Each way torch spells a product with scalar factors `k` (beta=/alpha=), on fresh copies of the inputs."
    t = {n: lib.tensor(x) for n, x in A.items()}
    M, a, b, v, v2, B1, B2, BM = (t[n] for n in ('M', 'a', 'b', 'v', 'v2', 'B1', 'B2', 'BM'))
    return {'addmm': lambda: lib.addmm(M, a, b, **k), 'Tensor.addmm': lambda: M.addmm(a, b, **k),
            'addmm_': lambda: M.clone().addmm_(a, b, **k), 'addmm(out=)': lambda: lib.addmm(M, a, b, out=lib.empty(2, 2), **k),
            'addmv': lambda: lib.addmv(v2, a, v, **k), 'Tensor.addmv': lambda: v2.addmv(a, v, **k),
            'addmv_': lambda: v2.clone().addmv_(a, v, **k), 'torch.addmv_': lambda: lib.addmv_(v2.clone(), a, v, **k),
            'addr': lambda: lib.addr(M, v2, v2, **k), 'Tensor.addr': lambda: M.addr(v2, v2, **k), 'addr_': lambda: M.clone().addr_(v2, v2, **k),
            'baddbmm': lambda: lib.baddbmm(BM, B1, B2, **k), 'baddbmm_': lambda: BM.clone().baddbmm_(B1, B2, **k),
            'addbmm': lambda: lib.addbmm(M, B1, B2, **k), 'addbmm_': lambda: M.clone().addbmm_(B1, B2, **k)}

@pytest.mark.parametrize('name', list(calls(torch, {})))
@pytest.mark.parametrize('arg', ['beta', 'alpha'])
def test_a_tensor_for_beta_or_alpha(name, arg):
    "A 0-d tensor without grad (float or int) is read as its number; a 1-d one or one requiring grad: TypeError, as torch's parser."
    for val in (np.float32(2.5), np.int64(3)):
        want = calls(torch, {arg: torch.tensor(val)})[name]()
        got = calls(litnn, {arg: litnn.tensor(val)})[name]()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
        assert str(got.dtype)[6:] == str(want.dtype)[6:]
    for make in (lambda lib: lib.tensor([2.]), lambda lib: lib.tensor(2., requires_grad=True)):
        with pytest.raises(TypeError): calls(torch, {arg: make(torch)})[name]()
        with pytest.raises(TypeError, match=arg): calls(litnn, {arg: make(litnn)})[name]()


_ADDR_DTYPES = ['bool', 'uint8', 'int16', 'int64', 'float32', 'float64', 'complex64']
_ADDR_FACTORS = [{}, dict(alpha=2), dict(beta=0), dict(beta=True), dict(alpha=False), dict(alpha=1.5), dict(beta=0.5 + 0.5j)]

@pytest.mark.parametrize('k', _ADDR_FACTORS, ids=str)
def test_addr_result_dtype_and_scalar_checks(k):
    """addr in the promoted dtype of its three tensors (a bool input with integer vectors stays in their dtype), and
    torch's checks of beta/alpha on that dtype: a bool only for a bool result, a float or complex one not for an integer result."""
    import itertools
    for d0, d1, d2 in itertools.product(_ADDR_DTYPES, repeat=3):
        if any(isinstance(v, complex) for v in k.values()) and 'complex' not in (d0 + d1 + d2) and any(d.startswith('float') for d in (d0, d1, d2)):
            continue     # a complex number into a real floating result: torch's overflow message, not this test's subject
        out = []
        for lib in (torch, litnn):
            a, b = lib.ones(3, dtype=getattr(lib, d0)), lib.arange(3).to(getattr(lib, d1))
            m = lib.ones(3, 3, dtype=getattr(lib, d2))
            try:
                r = lib.addr(m, a, b, **k)
                out.append((str(r.dtype).split('.')[-1], np.asarray(r.to(lib.complex128).tolist())))
            except RuntimeError as e: out.append(('RuntimeError', str(e)))
        (td, tv), (ld, lv) = out
        assert td == ld, (d0, d1, d2, k, out)
        if td == 'RuntimeError': assert tv == lv
        else: np.testing.assert_allclose(lv, tv)

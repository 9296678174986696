"""Arithmetic whose operands have different dtypes, or half precision with an `alpha`/`value`, against torch 2.13.

torch promotes the operands to one dtype *before* it computes (`a.add_(b, alpha=s)` with a float32 `a` and a bfloat16
`b` computes `s * b` in float32), and computes half precision in float32, rounding once. litnn once rounded
`alpha * b` to bfloat16 in `add_` (a Muon step on float32 weights lost three digits) and squared a bfloat16 gradient
in bfloat16 inside `addcmul_`. Results are compared with torch's to the tolerance of the result's dtype
(`torch.testing.assert_close`'s defaults), which any correct implementation meets on any CPU; the old behaviour
missed them by 50x (float32) or more."""
import itertools
import numpy as np, pytest, torch
import litnn

DTYPES = ['float32', 'bfloat16', 'float16', 'float64']
rng = np.random.default_rng(0)
A, B = rng.standard_normal((2, 3, 64)).astype(np.float32), rng.standard_normal((2, 3, 64)).astype(np.float32)
C = (rng.uniform(0.5, 2, (2, 3, 64)) * rng.choice([-1, 1], (2, 3, 64))).astype(np.float32)   # away from 0: a divisor

CASES = {
    'add_ alpha': lambda L, a, b, c: a.add_(b, alpha=-0.02),
    'sub_ alpha': lambda L, a, b, c: a.sub_(b, alpha=0.37),
    'add alpha': lambda L, a, b, c: a.add(b, alpha=-0.02),
    'sub alpha': lambda L, a, b, c: a.sub(b, alpha=0.37),
    'add_': lambda L, a, b, c: a.add_(b),
    'mul_': lambda L, a, b, c: a.mul_(b),
    'div_': lambda L, a, b, c: a.div_(c),
    'addcmul_': lambda L, a, b, c: a.addcmul_(b, c, value=0.3),
    'addcdiv_': lambda L, a, b, c: a.addcdiv_(b, c, value=-0.3),
    'addcmul': lambda L, a, b, c: a.addcmul(b, c, value=0.3),
    'addcdiv': lambda L, a, b, c: a.addcdiv(b, c, value=-0.3),
    'torch.addcmul': lambda L, a, b, c: L.addcmul(a, b, c, value=2),
    'torch.addcdiv_ keyword': lambda L, a, b, c: a.addcdiv_(b, c),
    'lerp_': lambda L, a, b, c: a.lerp_(b, 0.3),
    'mul_ number': lambda L, a, b, c: a.mul_(0.875),
}

def run(lib, case, da, db):
    a, b, c = (lib.tensor(v).to(getattr(lib, d)) for v, d in ((A, da), (B, db), (C, db)))
    return CASES[case](lib, a, b, c)

@pytest.mark.parametrize('case', CASES)
@pytest.mark.parametrize('da,db', list(itertools.product(DTYPES, DTYPES)))
def test_mixed_dtypes_as_torch(case, da, db):
    try: expected = run(torch, case, da, db)
    except RuntimeError as e:       # e.g. a float64 result into a bfloat16 tensor in place: refused by both
        with pytest.raises(RuntimeError): run(litnn, case, da, db)
        return
    got = run(litnn, case, da, db)
    assert str(got.dtype) == str(expected.dtype).replace('torch', 'litnn')
    torch.testing.assert_close(torch.from_numpy(got.double().numpy()), expected.double(),
                               **{k: v for k, v in zip(('rtol', 'atol'), TOL[str(expected.dtype)])})

# torch.testing.assert_close's defaults for each result dtype (compared in float64 here)
TOL = {'torch.float32': (1.3e-6, 1e-5), 'torch.bfloat16': (1.6e-2, 1e-5), 'torch.float16': (1e-3, 1e-5),
       'torch.float64': (1e-7, 1e-7)}

def test_the_reported_case():
    "The tester's numbers: a bfloat16 update into float32 weights equals the out-of-place add, and torch."
    p = litnn.tensor([[1., -2., 0.5]]); u = litnn.tensor([[0.3, -0.7, 0.55]]).bfloat16()
    a = p.clone(); a.add_(u, alpha=-0.02)
    assert a.tolist() == p.add(u, alpha=-0.02).tolist()
    tp = torch.tensor([[1., -2., 0.5]]); tu = torch.tensor([[0.3, -0.7, 0.55]]).bfloat16()
    torch.testing.assert_close(torch.tensor(a.tolist()), tp.add(tu, alpha=-0.02))   # float32's tolerance: FMA or not

@pytest.mark.parametrize('op', ['addcmul', 'addcdiv'])
def test_addc_gradients_with_mixed_dtypes(op):
    """Gradients reach each operand in its own dtype, equal to torch's to bfloat16's precision: torch's backward rounds
    `value * tensor1` to bfloat16 before multiplying by the float64 gradient, litnn does not (both are within
    bfloat16's rounding of the exact gradient). The values themselves agree to float64's precision."""
    def grads(lib):
        x = lib.tensor(A[0]).requires_grad_()
        t1 = lib.tensor(B[0]).bfloat16().requires_grad_()
        t2 = lib.tensor(C[0]).double().requires_grad_()
        y = getattr(lib, op)(x, t1, t2, value=0.7)
        (y * y).sum().backward()
        return y, x.grad, t1.grad, t2.grad
    mine, theirs = grads(litnn), grads(torch)
    np.testing.assert_allclose(mine[0].detach().numpy(), theirs[0].detach().numpy(), rtol=1e-12)
    for m, t in zip(mine, theirs):
        assert str(m.dtype) == str(t.dtype).replace('torch', 'litnn')
        np.testing.assert_allclose(m.detach().double().numpy(), t.detach().double().numpy(), rtol=2 ** -7, atol=1e-6)

def test_inplace_refusals_unchanged():
    "Mixed dtypes in place keep torch's refusals: a result that cannot be cast, a leaf that requires grad."
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        litnn.ones(3, dtype=litnn.long).addcmul_(litnn.ones(3), litnn.ones(3))
    w = litnn.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad'):
        w.addcmul_(litnn.ones(3).bfloat16(), litnn.ones(3))

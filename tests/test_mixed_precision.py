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


# Half precision with a Python number, and elementwise functions of half precision: torch computes in float32 and rounds
# once, reading the number of `mul`/`div` unrounded (its `add`/`sub` round the number to the tensor's dtype first);
# its *_backward kernels (sigmoid for bfloat16 only, tanh, silu, elu, ...) compute the gradient in float32 too, while
# its gradient formulas (sin's `grad * cos(x)`) take their steps in half precision. The results are equal to torch's
# to the bit: a number rounded to bfloat16 first (0.37 -> 0.369) shifts about half of the products.
_P = (np.abs(A[0, 0]) + 0.05).astype(np.float32)
ROUNDED_ONCE = {
    'x * 0.37': lambda L, x: x * 0.37, '0.37 * x': lambda L, x: 0.37 * x, 'x / 3.3': lambda L, x: x / 3.3,
    '3.3 / p': lambda L, x: 3.3 / (x.abs() + 0.05), 'x + 0.3': lambda L, x: x + 0.3, 'x - 0.3': lambda L, x: x - 0.3,
    '0.3 - x': lambda L, x: 0.3 - x, 'add number alpha': lambda L, x: L.add(x, 0.37, alpha=3), 'mul_ 0.9': lambda L, x: x.clone().mul_(0.9),
    'div_ 3.3': lambda L, x: x.clone().div_(3.3), 'add_ 0.013': lambda L, x: x.clone().add_(0.013), 'x.mul(x).add(0.1)': lambda L, x: x.mul(x).add(0.1),
    'rsqrt': lambda L, x: (x.abs() + 0.05).rsqrt(), 'hardswish': lambda L, x: L.nn.functional.hardswish(x),
    'mish': lambda L, x: L.nn.functional.mish(x), 'logsigmoid': lambda L, x: L.nn.functional.logsigmoid(x),
    'leaky_relu': lambda L, x: L.nn.functional.leaky_relu(x, 0.01), 'elu': lambda L, x: L.nn.functional.elu(x),
    'selu': lambda L, x: L.nn.functional.selu(x), 'softplus': lambda L, x: L.nn.functional.softplus(x),
    'silu': lambda L, x: L.nn.functional.silu(x), 'sigmoid': lambda L, x: x.sigmoid(), 'tanh': lambda L, x: x.tanh(),
    'exp': lambda L, x: x.exp(), 'sin': lambda L, x: x.sin(), 'erf (bfloat16)': lambda L, x: x.erf(), 'atan2': lambda L, x: L.atan2(x, x + 1),
    'fmod number': lambda L, x: L.fmod(x, 0.3), 'remainder number': lambda L, x: L.remainder(x, 0.3), 'pow number': lambda L, x: (x.abs() + 0.05) ** 0.37,
}
ROUNDED_ONCE['softmax'] = lambda L, x: x.softmax(-1)
ROUNDED_ONCE.update({'lerp number': lambda L, x: L.lerp(x, x.flip(0), 0.3), 'lerp number above half': lambda L, x: x.lerp(x.flip(0), 0.7),
                     'lerp tensor weight': lambda L, x: L.lerp(x, x.flip(0), x.abs() / (1 + x.abs())),
                     'lerp_ (an EMA step)': lambda L, x: x.clone().lerp_(x.flip(0), 0.1)})
GRADIENT_ROUNDED_ONCE = ('x * 0.37', 'x / 3.3', 'sigmoid', 'tanh', 'silu', 'elu', 'selu', 'exp', 'sin', 'hardswish', 'leaky_relu', 'mish', 'softmax')

@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('case', ROUNDED_ONCE)
def test_half_precision_rounds_as_torch(case, dtype):
    if dtype == 'float16' and case in ('erf (bfloat16)', 'mish'): pytest.skip("torch's float16 erf and mish_backward round otherwise")
    out = {}
    for L in (torch, litnn):
        x = L.tensor(A[0]).to(getattr(L, dtype)).requires_grad_(case in GRADIENT_ROUNDED_ONCE)
        y = ROUNDED_ONCE[case](L, x)
        if x.requires_grad: y.backward(L.tensor(B[0]).to(y.dtype))
        out[L] = [y.detach().float().numpy()] + ([x.grad.float().numpy()] if x.requires_grad else [])
    for t, l in zip(out[torch], out[litnn]): np.testing.assert_array_equal(l, t)


@pytest.mark.parametrize('weight', [0.3, 0.7, 0.5, 'tensor'])
def test_lerp_is_torchs_fused_multiply_add(weight):
    "torch's lerp is one fused multiply-add per element (one rounding): a separate product and sum differ in a quarter of float32 results."
    r = np.random.default_rng(1)
    a, b, w = (r.standard_normal(10000).astype(np.float32) for _ in range(3))
    t, l = (L.lerp(L.tensor(a), L.tensor(b), L.tensor(np.abs(w) / (1 + np.abs(w))) if weight == 'tensor' else weight).numpy()
            for L in (torch, litnn))
    np.testing.assert_array_equal(l, t)


# torch's vectorized CPU kernels compute `add(a, b, alpha=s)`, `addcmul` and `lerp` as fused multiply-adds (one
# rounding); a separate product and sum differ in one float32 result of five. And the optimizers are these operations in
# torch's order, so their steps are torch's to the bit where no square root takes part (torch's vectorized float32 sqrt,
# Sleef's, is off by an ulp now and then: there within a few ulps).
FUSED = {'add alpha': lambda L, a, b, c: L.add(a, b, alpha=0.3), 'sub alpha': lambda L, a, b, c: L.sub(a, b, alpha=0.37),
         'add_ alpha': lambda L, a, b, c: a.clone().add_(b, alpha=-0.01), 'sub_ alpha': lambda L, a, b, c: a.clone().sub_(b, alpha=1e-3),
         'add number alpha': lambda L, a, b, c: L.add(a, 2.5, alpha=0.3), 'addcmul': lambda L, a, b, c: L.addcmul(a, b, c, value=0.3),
         'addcmul_': lambda L, a, b, c: a.clone().addcmul_(b, c, value=-0.7), 'addcdiv_': lambda L, a, b, c: a.clone().addcdiv_(b, c, value=0.3),
         'lerp_': lambda L, a, b, c: a.clone().lerp_(b, 0.1)}

@pytest.mark.parametrize('case', FUSED)
def test_fused_multiply_adds_as_torch(case):
    r = np.random.default_rng(2)
    arrays = [r.standard_normal(20000).astype(np.float32) for _ in range(3)]
    t, l = (FUSED[case](L, *map(L.tensor, arrays)).numpy() for L in (torch, litnn))
    np.testing.assert_array_equal(l, t)

OPTIMIZERS = [('SGD', {}), ('SGD', dict(momentum=0.9)), ('SGD', dict(momentum=0.9, nesterov=True, weight_decay=1e-2)),
              ('SGD', dict(momentum=0.9, dampening=0.1)), ('RAdam', {}), ('Adamax', dict(weight_decay=0.1)), ('NAdam', dict(weight_decay=0.1)),
              ('Adam', {}), ('AdamW', dict(weight_decay=0.1)), ('Adam', dict(amsgrad=True, weight_decay=0.1)),
              ('RMSprop', dict(momentum=0.9, centered=True)), ('Adagrad', dict(weight_decay=0.1))]

@pytest.mark.parametrize('name,kw', OPTIMIZERS, ids=lambda v: str(v))
def test_optimizer_steps_as_torch(name, kw):
    r = np.random.default_rng(3)
    w, grads = r.standard_normal((64, 32)).astype(np.float32), [r.standard_normal((64, 32)).astype(np.float32) for _ in range(6)]
    out = {}
    for L in (torch, litnn):
        p = L.nn.Parameter(L.tensor(w.copy()))
        opt = getattr(L.optim, name)([p], lr=1e-2, **kw)
        for g in grads: p.grad = L.tensor(g.copy()); opt.step()
        out[L] = p.detach().numpy()
    if name in ('SGD', 'Adamax'): np.testing.assert_array_equal(out[litnn], out[torch])
    else: np.testing.assert_allclose(out[litnn], out[torch], rtol=0, atol=4 * np.spacing(np.abs(out[torch]).max()))

"Complex tensors side by side with torch 2.13: dtypes, promotion, printing, views, and gradients (torch's conjugate Wirtinger convention)."
import warnings
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip('torch')

def L(t, requires_grad=False):
    "A litnn tensor with the values and dtype of torch tensor `t`."
    return litnn.tensor(t.detach().numpy(), dtype=getattr(litnn, str(t.dtype).split('.')[1]), requires_grad=requires_grad)

def close(a, b, tol=1e-6):
    assert str(a.dtype).split('.')[1] == str(b.dtype).split('.')[1], (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().resolve_conj().numpy(), b.detach().resolve_conj().numpy(), rtol=tol, atol=tol)

def rnd(*shape, dtype=torch.complex128, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)

# --- dtypes and promotion ---------------------------------------------------------------------------------------
DT = ['float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128', 'int32', 'int64', 'uint8', 'bool']

@pytest.mark.parametrize('a', DT)
@pytest.mark.parametrize('b', ['complex64', 'complex128'])
def test_promote_types(a, b):
    assert str(litnn.promote_types(getattr(litnn, a), getattr(litnn, b))) == str(torch.promote_types(getattr(torch, a), getattr(torch, b))).replace('torch', 'litnn')

@pytest.mark.parametrize('dims', ['float32', 'float64', 'bfloat16', 'int64', 'int32', 'bool', 'complex64'])
@pytest.mark.parametrize('other', [1j, 2.5, 'c64_0d', 'c128_0d', 'f64_0d'])
def test_result_dtype(dims, other):
    def make(lib, o):
        if isinstance(o, str):
            d = dict(c64_0d='complex64', c128_0d='complex128', f64_0d='float64')[o]
            return lib.tensor(1 + 1j if 'c' in d else 1.5, dtype=getattr(lib, d))
        return o
    t, l = torch.ones(2, dtype=getattr(torch, dims)), litnn.ones(2, dtype=getattr(litnn, dims))
    assert str((l * make(litnn, other)).dtype).split('.')[1] == str((t * make(torch, other)).dtype).split('.')[1]

def test_dtype_attributes():
    for n in ('complex64', 'complex128', 'cfloat', 'cdouble'):
        a, b = getattr(litnn, n), getattr(torch, n)
        assert (a.is_complex, a.is_floating_point, a.is_signed, a.itemsize) == (b.is_complex, b.is_floating_point, b.is_signed, b.itemsize)
        assert str(a.to_real()).split('.')[1] == str(b.to_real()).split('.')[1]
    assert litnn.float32.to_complex() is litnn.complex64 and litnn.float64.to_complex() is litnn.complex128
    assert litnn.finfo(litnn.cfloat).eps == torch.finfo(torch.cfloat).eps

@pytest.mark.parametrize('dt', ['float16', 'bfloat16', 'float32', 'float64', 'complex32', 'complex64', 'complex128',
                                'int64', 'uint8', 'bool', 'float8_e5m2', 'float8_e4m3fn'])
def test_dtype_to_complex_and_to_real(dt):
    "torch's toComplexType: float16's is complex32, bfloat16's complex64; integers, bool and float8 have none (RuntimeError)."
    a, b = getattr(litnn, dt), getattr(torch, dt)
    assert str(a.to_real()).split('.')[1] == str(b.to_real()).split('.')[1]
    try: want = str(b.to_complex()).split('.')[1]
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)): a.to_complex()
    else: assert str(a.to_complex()).split('.')[1] == want

def test_complex_scalar_with_half_stays_computable():
    "litnn has no complex32 arrays: a float16 tensor times 1j computes in complex64 (torch's complex32)."
    assert (litnn.ones(2, dtype=litnn.half) * 1j).dtype is litnn.complex64

def test_inference_and_default_dtype():
    assert litnn.tensor([1 + 2j]).dtype is litnn.complex64
    assert litnn.tensor(np.array([1 + 2j])).dtype is litnn.complex128     # numpy data keeps its dtype, as torch
    old = litnn.get_default_dtype()
    try:
        litnn.set_default_dtype(litnn.float64); torch.set_default_dtype(torch.float64)
        assert litnn.tensor([1j]).dtype is litnn.complex128
        assert str(litnn.tensor([1j])) == str(torch.tensor([1j]))
        assert (litnn.arange(2) * 1j).dtype is litnn.complex128
    finally:
        litnn.set_default_dtype(old); torch.set_default_dtype(torch.float32)

# --- printing ---------------------------------------------------------------------------------------------------
CASES = [[1 + 2j, 3 - 1j], [1.5 + 2j, 3 - 1.25j], [[1e-5 + 2j, 3e6 - 1j]], 1 + 2j, [complex('nan'), 1j, complex('inf'), -2 - 3.5j],
         [0.1234567 + 1j, 2], [[0j, -0.0 - 1j], [2.5 + 0j, 1e-9j]], [1e10 + 1e-10j]]

@pytest.mark.parametrize('data', CASES)
@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_repr(data, dtype):
    assert repr(litnn.tensor(data, dtype=getattr(litnn, dtype))) == repr(torch.tensor(data, dtype=getattr(torch, dtype))).replace('torch.', 'litnn.')

def test_repr_misc():
    t = rnd(4, 5, dtype=torch.complex64)
    assert repr(L(t)) == repr(t)
    assert repr(litnn.zeros(0, dtype=litnn.cfloat)) == repr(torch.zeros(0, dtype=torch.cfloat)).replace('torch.', 'litnn.')
    assert repr(litnn.zeros(2, dtype=litnn.cfloat, requires_grad=True) * 2) == repr(torch.zeros(2, dtype=torch.cfloat, requires_grad=True) * 2)
    big = rnd(40, 40, dtype=torch.complex64)
    assert repr(L(big)) == repr(big)

# --- creation, parts, views ---------------------------------------------------------------------------------------
def test_complex_polar_views():
    re, im = torch.randn(3, 4, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    close(litnn.complex(L(re), L(im)), torch.complex(re, im))
    r = re.abs()
    close(litnn.polar(L(r), L(im)), torch.polar(r, im))
    z = rnd(3, 4)
    close(litnn.view_as_real(L(z)), torch.view_as_real(z))
    close(litnn.view_as_complex(L(torch.view_as_real(z))), z)
    close(L(z).real, z.real); close(L(z).imag, z.imag)
    close(litnn.real(L(z)), torch.real(z)); close(litnn.imag(L(z)), torch.imag(z))
    close(L(z).conj(), z.conj()); close(litnn.conj_physical(L(z)), torch.conj_physical(z))
    close(litnn.angle(L(z)), torch.angle(z)); close(L(z).abs(), z.abs()); close(L(z).sgn(), z.sgn())
    x = torch.tensor([-2., 0., 3., float('nan')])
    close(litnn.angle(L(x)), torch.angle(x))
    close(litnn.angle(litnn.tensor([-2, 0, 3])), torch.angle(torch.tensor([-2, 0, 3])))
    close(L(re).cfloat(), re.cfloat()); close(L(re).cdouble(), re.cdouble())
    close(litnn.tensor(0j).conj(), torch.tensor(0j).conj())

def test_views_share_memory():
    z, t = litnn.tensor([1 + 2j, 3 - 4j]), torch.tensor([1 + 2j, 3 - 4j])
    z.real[0] = 7; t.real[0] = 7
    z.imag.mul_(2); t.imag.mul_(2)
    litnn.view_as_real(z)[1, 1] = 5; torch.view_as_real(t)[1, 1] = 5
    close(z, t)
    z.real = litnn.tensor([0., 1.]); t.real = torch.tensor([0., 1.])
    close(z, t)
    assert z.real._base is z and litnn.view_as_real(z)._base is z
    x = litnn.tensor([1., 2.])
    assert x.real is x and x.conj() is x and not x.conj().is_conj()
    c = z.conj()
    assert c.is_conj() and not c.resolve_conj().is_conj() and c.resolve_conj().tolist() == c.tolist()

def test_item_and_tolist():
    z = litnn.tensor([1 + 2j])
    assert z.item() == 1 + 2j and complex(z) == 1 + 2j and z.tolist() == [1 + 2j]

def test_randn_complex():
    z = litnn.randn(20000, dtype=litnn.cfloat, generator=litnn.Generator().manual_seed(0))
    assert z.dtype is litnn.complex64
    assert abs(z.real.var().item() - 0.5) < 0.03 and abs(z.imag.var().item() - 0.5) < 0.03

def test_errors():
    with pytest.raises(RuntimeError, match='^Input tensor must have one or more dimensions$'): litnn.view_as_complex(litnn.tensor(2.))
    with pytest.raises(RuntimeError, match='^Input tensor must have one or more dimensions$'): torch.view_as_complex(torch.tensor(2.))  # (a 0-d input)
    for f, g in [(lambda m: m.view_as_complex(m.ones(3)), RuntimeError), (lambda m: m.view_as_complex(m.ones(3, 2, dtype=m.int64)), RuntimeError),
                 (lambda m: m.view_as_real(m.ones(3)), RuntimeError), (lambda m: m.imag(m.ones(3)), RuntimeError),
                 (lambda m: m.sign(m.ones(3, dtype=m.cfloat)), RuntimeError),
                 (lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64)), RuntimeError),
                 (lambda m: m.complex(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)), RuntimeError),
                 # out= must have exactly the complex dtype of the inputs (no casting, unlike other out=)
                 (lambda m: m.complex(m.ones(2, dtype=m.float64), m.ones(2, dtype=m.float64), out=m.zeros(2, dtype=m.complex64)), RuntimeError),
                 (lambda m: m.complex(m.ones(2), m.ones(2), out=m.zeros(2, dtype=m.complex128)), RuntimeError),
                 (lambda m: m.polar(m.ones(2, dtype=m.float64), m.ones(2, dtype=m.float64), out=m.zeros(2, dtype=m.float64)), RuntimeError),
                 (lambda m: m.ones(2, dtype=m.int64).requires_grad_(), RuntimeError)]:
        with pytest.raises(g): f(torch)
        with pytest.raises(g): f(litnn)
    z = litnn.ones(2, dtype=litnn.cfloat).requires_grad_()   # complex tensors can require grad
    assert z.requires_grad
    with pytest.raises(RuntimeError): torch.ones(2).add_(torch.ones(2, dtype=torch.cfloat))
    with pytest.raises(RuntimeError): litnn.ones(2).add_(litnn.ones(2, dtype=litnn.cfloat))

def test_cast_complex_to_real_warns():
    "torch warns once a process (TORCH_WARN_ONCE), and every time under set_warn_always(True): an earlier test may have had the one."
    was = litnn.is_warn_always_enabled()
    litnn.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="discards the imaginary part"): r = litnn.tensor([1 + 2j]).to(litnn.float32)
    finally: litnn.set_warn_always(was)
    assert r.tolist() == [1.0]

# --- elementwise and reductions: values against torch -------------------------------------------------------------
UNARY = ['exp', 'log', 'sqrt', 'sin', 'cos', 'tan', 'tanh', 'sigmoid', 'reciprocal', 'neg', 'abs', 'sgn', 'angle', 'square',
         'sinh', 'cosh', 'expm1', 'log1p', 'rsqrt', 'asin', 'atan', 'log2', 'log10']

@pytest.mark.parametrize('name', UNARY)
@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_unary_values(name, dtype):
    z = rnd(5, dtype=dtype, seed=1)
    close(getattr(L(z), name)(), getattr(z, name)(), tol=1e-5 if dtype == torch.complex64 else 1e-10)

@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'div', 'pow'])
def test_binary_values(op):
    a, b, x = rnd(3, 4, seed=2), rnd(4, seed=3), torch.randn(3, 4, dtype=torch.float64)
    for u, v in [(a, b), (a, x), (x, b), (a, 2.5), (x, 1j), (a, 1j)]:
        U = L(u) if isinstance(u, torch.Tensor) else u
        V = L(v) if isinstance(v, torch.Tensor) else v
        close(getattr(litnn, op)(U, V), getattr(torch, op)(u, v), tol=1e-9)

def test_reductions_and_products():
    a, b = rnd(3, 4, seed=4), rnd(4, 2, seed=5)
    for f in ('sum', 'mean', 'prod'): close(getattr(L(a), f)(), getattr(a, f)(), tol=1e-9)
    close(L(a).sum(0), a.sum(0)); close(L(a).mean(1, keepdim=True), a.mean(1, keepdim=True))
    close(L(a) @ L(b), a @ b, tol=1e-9)
    close(L(a).cumsum(1), a.cumsum(1), tol=1e-9)

# --- gradients ------------------------------------------------------------------------------------------------------
def grads_like_torch(fn, *inputs, tol=1e-9):
    "Gradients of the real loss `fn(...)` (summed after `abs` if complex) for torch and litnn on the same values."
    ts = [i.detach().clone().requires_grad_() for i in inputs]
    ls = [L(i, requires_grad=True) for i in inputs]
    def loss(lib, out): return (out.abs() if out.is_complex() else out).sum() if out.dim() else (out.abs() if out.is_complex() else out)
    loss(torch, fn(torch, *ts)).backward(); loss(litnn, fn(litnn, *ls)).backward()
    for t, l in zip(ts, ls): close(l.grad, t.grad, tol)

GRAD_FNS = {
    'mul': (lambda m, a, b: a * b, 2), 'div': (lambda m, a, b: a / b, 2), 'exp_mul': (lambda m, a: a.exp() * a, 1),
    'matmul': (lambda m, a, b: a.reshape(2, 3) @ b.reshape(3, 2), 2), 'abs2': (lambda m, a: (a * a.conj()).real, 1),
    'angle': (lambda m, a: a.angle(), 1), 'sgn': (lambda m, a: a.sgn() * a, 1), 'real_imag': (lambda m, a: a.real * a.imag, 1),
    'view_as_real': (lambda m, a: m.view_as_real(a) ** 2, 1), 'sqrt_log': (lambda m, a: a.sqrt() + a.log(), 1),
    'sum_prod': (lambda m, a: a.prod() + a.sum(), 1), 'pow': (lambda m, a: a ** 3, 1), 'pow_c': (lambda m, a, b: a ** b, 2),
    'index': (lambda m, a: a[1:4] * a[0], 1), 'transpose': (lambda m, a: a.reshape(2, 3).t() @ a.reshape(2, 3), 1),
    'tanh_sigmoid': (lambda m, a: a.tanh() + a.sigmoid(), 1), 'conj_mul': (lambda m, a, b: a.conj() * b, 2),
    'cast': (lambda m, a: a.to(m.complex64).to(m.complex128) * 2, 1),
}

@pytest.mark.parametrize('name', GRAD_FNS)
def test_gradients_vs_torch(name):
    fn, n = GRAD_FNS[name]
    inputs = [rnd(6, seed=10 + i) for i in range(n)]
    grads_like_torch(fn, *inputs, tol=1e-5 if name == 'cast' else 1e-9)

def test_mixed_real_complex_gradients():
    x, th, z = torch.rand(4, dtype=torch.float64) + 0.5, torch.randn(4, dtype=torch.float64), rnd(4, seed=7)
    grads_like_torch(lambda m, r, t: m.polar(r, t), x, th)
    grads_like_torch(lambda m, r, t: m.complex(r, t) * 1j, x, th)
    grads_like_torch(lambda m, r, c: r * c, x, z)
    grads_like_torch(lambda m, r, c: (r.to(m.complex128) + c).exp(), x, z)
    grads_like_torch(lambda m, r: m.view_as_complex(r.reshape(2, 2)) ** 2, x)
    grads_like_torch(lambda m, r: (r * 1j).exp().real, x)

def test_leaf_grad_and_descent():
    "torch's gradient of a real loss of a complex leaf is dL/da + i dL/db: plain SGD descends."
    w = litnn.tensor([3 + 4j, -1 + 0.5j], dtype=litnn.cdouble, requires_grad=True)
    target = litnn.tensor([1 - 1j, 2j], dtype=litnn.cdouble)
    opt = litnn.optim.SGD([w], lr=0.1)
    losses = []
    for _ in range(50):
        opt.zero_grad(); loss = ((w - target).abs() ** 2).sum(); loss.backward(); opt.step(); losses.append(loss.item())
    assert losses[-1] < 1e-6 * losses[0]
    wt = torch.tensor([3 + 4j, -1 + 0.5j], dtype=torch.cdouble, requires_grad=True)
    ((wt - torch.tensor([1 - 1j, 2j], dtype=torch.cdouble)).abs() ** 2).sum().backward()
    w2 = litnn.tensor([3 + 4j, -1 + 0.5j], dtype=litnn.cdouble, requires_grad=True)
    ((w2 - target).abs() ** 2).sum().backward()
    close(w2.grad, wt.grad)

GC = [lambda z: z.exp() * z, lambda z: z.abs(), lambda z: z.angle(), lambda z: z.sgn(), lambda z: z.real * z.imag,
      lambda z: litnn.view_as_real(z), lambda z: z @ z.conj(), lambda z: z.sqrt().sin() / z, lambda z: z.conj() * z.sum()]

@pytest.mark.parametrize('i', range(len(GC)))
def test_gradcheck_complex(i):
    z = litnn.randn(3, dtype=litnn.cdouble, generator=litnn.Generator().manual_seed(i)).requires_grad_()
    assert gradcheck(GC[i], (z,))
    assert gradgradcheck(GC[i], (z,))

def test_gradcheck_mixed():
    x = litnn.rand(3, dtype=litnn.double).add(0.5).requires_grad_()
    t = litnn.randn(3, dtype=litnn.double).requires_grad_()
    assert gradcheck(lambda a, b: litnn.polar(a, b), (x, t))
    assert gradcheck(lambda a, b: litnn.complex(a, b), (x, t))
    assert gradcheck(lambda a: litnn.view_as_complex(a.reshape(3, 1).expand(3, 2).contiguous()) * 1j, (x,))

def test_gradcheck_detects_wrong_complex_gradient():
    "gradcheck must see the imaginary part: a Function whose backward forgets the conjugate fails it."
    class Bad(litnn.autograd.Function):
        @staticmethod
        def forward(ctx, z): ctx.save_for_backward(z); return z * z
        @staticmethod
        def backward(ctx, g): (z,) = ctx.saved_tensors; return g * 2 * z      # torch's convention needs conj(2 z)
    z = litnn.randn(3, dtype=litnn.cdouble).requires_grad_()
    assert not gradcheck(Bad.apply, (z,), raise_exception=False)
    class Good(Bad):
        @staticmethod
        def backward(ctx, g): (z,) = ctx.saved_tensors; return g * 2 * z.conj()
    assert gradcheck(Good.apply, (z,))

def test_complex_linear_module():
    "A Linear layer with complex parameters trains with the gradients torch gives."
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2, dtype=torch.cdouble)
    lm = litnn.nn.Linear(3, 2, dtype=litnn.cdouble)
    lm.load_state_dict({k: L(v) for k, v in tm.state_dict().items()})
    x = rnd(5, 3, seed=3)
    (tm(x).abs() ** 2).mean().backward(); (lm(L(x)).abs() ** 2).mean().backward()
    for (n, p), (_, q) in zip(tm.named_parameters(), lm.named_parameters()): close(q.grad, p.grad)

def test_save_load_complex(tmp_path):
    for d in (torch.complex64, torch.complex128):
        z = L(rnd(3, 2, dtype=d))
        litnn.save({'z': z, 'sd': litnn.nn.Linear(2, 2, dtype=z.dtype).state_dict()}, tmp_path / 'c.pt')
        back = litnn.load(tmp_path / 'c.pt')
        assert back['z'].dtype is z.dtype and back['z'].tolist() == z.tolist()
        assert back['sd']['weight'].dtype is z.dtype
        b = __import__('io').BytesIO(); litnn.save({'z': z}, b, format='torch'); b.seek(0)      # a torch-format file torch reads
        t = torch.load(b, weights_only=True)['z']
        assert t.dtype == getattr(torch, str(z.dtype).split('.')[1]) and t.tolist() == z.tolist()
    torch.save({'w': torch.tensor([1 + 2j], dtype=torch.complex128), 'v': torch.tensor([[3 - 1j]])}, tmp_path / 't.pt')
    got = litnn.load(tmp_path / 't.pt')                  # a file torch wrote
    assert got['w'].dtype is litnn.complex128 and got['w'].tolist() == [1 + 2j]
    assert got['v'].dtype is litnn.complex64 and got['v'].tolist() == [[3 - 1j]]

def _raises_same(f):
    "f(lib) raises in both libraries: the same exception type and message (module names aside)."
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: f(lib)
        msgs.append((type(e.value).__name__, str(e.value).replace('litnn.', 'torch.')))
    assert msgs[0] == msgs[1]

def test_complex_refusals_as_torch():
    z = np.array([1 + 2j, -3 + 0.5j], np.complex64)
    _raises_same(lambda lib: lib.view_as_real(lib.tensor(z).conj()))          # a conjugate bit: resolve it first
    _raises_same(lambda lib: lib.tensor(z).abs_())                              # |z| is real: no in-place abs
    _raises_same(lambda lib: (lib.tensor(z, requires_grad=True) * 2).sum().backward())   # no implicit gradient for a complex scalar
    _raises_same(lambda lib: lib.autograd.grad(lib.tensor(z, requires_grad=True).sum(), []))
    assert litnn.view_as_real(litnn.tensor(z).conj().resolve_conj()).tolist() == torch.view_as_real(torch.tensor(z).conj().resolve_conj()).tolist()
    assert litnn.tensor([-1., 2.]).abs_().tolist() == [1., 2.]

def test_linspace_with_complex_bounds():
    for args, kw in (((0, 1j, 3), {}), ((1j, 2, 4), {'dtype': 'complex128'}), ((-1 + 1j, 1 - 1j, 5), {})):
        l = litnn.linspace(*args, **{k: getattr(litnn, v) for k, v in kw.items()})
        t = torch.linspace(*args, **{k: getattr(torch, v) for k, v in kw.items()})
        close(l, t)
    _raises_same(lambda lib: lib.linspace(0, 1j, 3, dtype=lib.float32))


def test_logsumexp_of_complex_is_on_logs_principal_branch():
    "logsumexp of complex input shifts by the largest REAL part (torch's kernel): the imaginary part stays in (-pi, pi]."
    z = np.array([[3 + 2j, 1 - 3j, 2.5 + 3j], [0.5j, -1 + 1j, 2 - 2.5j]], np.complex64) * 3
    for dim in (0, 1, (0, 1)):
        want = torch.logsumexp(torch.tensor(z), dim)
        got = litnn.logsumexp(litnn.tensor(z), dim)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_complex_abs_is_hypot_as_torch():
    "torch's |z| is hypot(re, im), correctly rounded where numpy's complex abs can be one ulp off (|(-1+1j)/sqrt(2)| is 1.0)."
    import math
    vals = [complex(-math.sqrt(2), math.sqrt(2)) - complex(-math.sqrt(.5), math.sqrt(.5)), 3 + 4j, complex(1e-200, 1e-200), complex(1e200, 1e200)]
    vals += list(np.random.default_rng(0).standard_normal(200) + 1j * np.random.default_rng(1).standard_normal(200))
    for dt in ('complex64', 'complex128'):
        want = torch.tensor(vals, dtype=getattr(torch, dt)).abs()
        got = litnn.tensor(vals, dtype=getattr(litnn, dt)).abs()
        assert str(got.dtype).split('.')[-1] == str(want.dtype).split('.')[-1]
        if dt == 'complex64': np.testing.assert_array_equal(got.numpy(), want.numpy())
        else: np.testing.assert_array_max_ulp(got.numpy(), want.numpy(), maxulp=1)   # (torch's SIMD hypot: rarely 1 ulp apart)
    for v in vals[:4]:     # one element: torch's scalar kernel, std::hypot
        assert litnn.tensor([v], dtype=litnn.complex128).abs().item() == torch.tensor([v], dtype=torch.complex128).abs().item()


@pytest.mark.parametrize('value', [0, 2.5, 'tensor'])
def test_setting_real_and_imag_parts(value):
    "z.real = v / z.imag = v write into z; a number fills the part, as torch's setters."
    got = []
    for lib in (torch, litnn):
        z = lib.tensor(np.array([1 + 2j, -3 + 0.5j, 4j], np.complex64))
        v = lib.tensor([7., 8., 9.]) if value == 'tensor' else value
        z.real = v; z.imag = v
        got.append(np.asarray(z.tolist()))
    np.testing.assert_array_equal(got[1], got[0])

@pytest.mark.parametrize('dtype', [torch.complex64, torch.complex128])
def test_complex_pow_is_torchs_to_the_bit(dtype):
    "torch's complex pow is exp(e·log x) (numpy's ** multiplies for whole exponents), but for 0, 1, 2, 3, -2, ±½, -1 with a number exponent."
    x = torch.tensor([0.3 + 0.4j, -1.5 + 2j, 2 - 0.5j, 0j, -1 + 0j, 1e-30 + 1e-30j, 3e20 - 1e20j, complex('inf'), complex('nan')], dtype=dtype)
    ex = torch.tensor([2, 3, 5, 2, 7, 4, -3, 0, 1], dtype=dtype)
    om = torch.tensor(np.exp(-2j * np.pi / 16), dtype=dtype)               # S4's FFT nodes: om ** arange(L // 2 + 1)
    def same(tl, tt):
        a, b = tl.numpy(), tt.numpy()
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.view(a.real.dtype), b.view(b.real.dtype))     # bitwise (NaNs, signed zeros) as reals
    same(litnn.tensor(om.numpy()) ** litnn.arange(0, 9), om ** torch.arange(0, 9))
    same(L(x) ** L(ex), x ** ex)
    for e in [4, 5, 8, 100, -4, 1.5, 1j]:
        same(L(x) ** e, x ** e)
    for e in [2, 3, 0, 1, 2.0, 2 + 0j, 0.5, -1, -0.5]:     # products, sqrt, reciprocal: torch's vector and scalar loops round these apart
        a, b = (L(x) ** e).numpy(), (x ** e).numpy()
        np.testing.assert_allclose(a.view(a.real.dtype), b.view(b.real.dtype), rtol=1e-6, atol=1e-30)
    lx, tx = L(x[:3], requires_grad=True), x[:3].clone().requires_grad_()
    (lx ** 5).abs().sum().backward(); (tx ** 5).abs().sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5)

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_complex_and_polar_keep_each_part_as_torch(dtype):
    "torch.complex writes the parts as they are: an infinite or NaN imaginary part leaves the real part alone, -0 stays -0 (and prints as -0.j)."
    inf, nan = float('inf'), float('nan')
    re, im = [0.1, 1., 1., -0.0, 2., nan, inf, -inf], [-0.0, inf, nan, -0.0, -inf, 1., 0., -0.0]
    ab, an = [1., inf, 2., 0., 3.], [0., 0., inf, 1., -0.0]
    for make in (lambda lib: lib.complex(lib.tensor(re, dtype=getattr(lib, dtype)), lib.tensor(im, dtype=getattr(lib, dtype))),
                 lambda lib: lib.polar(lib.tensor(ab, dtype=getattr(lib, dtype)), lib.tensor(an, dtype=getattr(lib, dtype)))):
        l, t = make(litnn), make(torch)
        a, b = l.numpy(), t.numpy()
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.view(a.real.dtype), b.view(b.real.dtype))
        assert repr(l).replace('litnn', 'torch') == repr(t)

# --- the lazy conjugate: a view of its memory (17d_complex_numbers) ---------------------------------------------------
CONJ_WRITES = {
    'setitem': lambda T, x, y: y.__setitem__(0, 5 + 5j),
    'add_': lambda T, x, y: y.add_(1),
    'copy_': lambda T, x, y: y.copy_(T.tensor([1j, 2j, 3., -1j])),
    'imag': lambda T, x, y: y.imag.__setitem__(1, 7.),
    'view_of_conj': lambda T, x, y: y[1:].mul_(2j),
    'fill_zero': lambda T, x, y: (y.fill_(1j), y[2:].zero_()),
    'out=': lambda T, x, y: T.add(y, 1j, out=y),
    'base_write': lambda T, x, y: x.__setitem__(1, 2 - 3j),
    'conj_of_conj': lambda T, x, y: y.conj().__setitem__(0, 9.),
    'two_conjugates': lambda T, x, y: x.conj().mul_(1j),
}

@pytest.mark.parametrize('write', list(CONJ_WRITES))
def test_conj_view_writes_through(write):
    out = []
    for T in (torch, litnn):
        x = T.tensor([1 + 2j, 3 - 1j, 2., -1j])
        y = x.conj()
        CONJ_WRITES[write](T, x, y)
        out.append((x.tolist(), y.tolist(), y.is_conj(), y[1:].is_conj(), y.detach().is_conj(), y.conj().is_conj(),
                    y.conj()._base is x, y._base is x, y.imag._base is x, x._version))
    assert out[0] == out[1]

def test_conj_view_strides_and_grad():
    out = []
    for T in (torch, litnn):
        x = T.zeros(2, 3, dtype=T.complex64); y = x.t().conj(); y[0, 1] = 1j
        a = T.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        b = a.clone(); c = b.conj(); b.mul_(2)                       # the base changes: the view's history is regenerated
        (c * T.tensor([1j, 2.])).abs().sum().backward()
        g1, a.grad = a.grad.clone(), None
        b = a.clone(); c = b.conj(); c.mul_(1j)                      # an in-place change through the conjugate: CopySlices
        (b.abs() ** 2 + b.real).sum().backward()
        out.append((x.tolist(), y.stride(), x[:, ::2].conj().stride(), type(c.grad_fn).__name__, type(b.grad_fn).__name__,
                    b.tolist(), np.round(g1.numpy(), 5).tolist(), a.grad.tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_gradient_for_complex_input_as_torch(upper):
    "cholesky's backward keeps the complex diagonal of tril(Lᴴ gL)/2, as torch's (litnn kept its real part only)."
    r = np.random.default_rng(11)
    X = r.standard_normal((2, 4, 4)) + 1j * r.standard_normal((2, 4, 4))
    A = X @ np.swapaxes(X.conj(), -1, -2) + np.eye(4)
    G = r.standard_normal((2, 4, 4)) + 1j * r.standard_normal((2, 4, 4))
    got = []
    for L in (torch, litnn):
        a = L.tensor(A, requires_grad=True)
        g, = L.autograd.grad(L.linalg.cholesky(a, upper=upper), a, L.tensor(G))
        got.append(g.detach().resolve_conj().numpy())
    np.testing.assert_allclose(got[1], got[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('shape,dim', [((3, 5), 1), ((4,), 0), ((2, 3, 4), 0)])
def test_logcumsumexp_gradient_for_complex_input_as_torch(shape, dim):
    "logcumsumexp of a complex tensor differentiates (torch's formula: the log of the gradient itself, no split by sign)."
    r = np.random.default_rng(12)
    x0, G = (r.standard_normal(shape) + 1j * r.standard_normal(shape) for _ in range(2))
    got = []
    for L in (torch, litnn):
        x = L.tensor(x0, requires_grad=True)
        g, = L.autograd.grad(L.logcumsumexp(x, dim), x, L.tensor(G))
        got.append(g.detach().resolve_conj().numpy())
    np.testing.assert_allclose(got[1], got[0], rtol=1e-10, atol=1e-12)
    assert litnn.autograd.gradcheck(lambda t: litnn.logcumsumexp(t, dim), (litnn.tensor(x0, requires_grad=True),))

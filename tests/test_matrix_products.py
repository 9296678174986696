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


def _same_message(f):
    "f(lib) raises in torch and litnn: the same exception type and message."
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: f(lib)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize('shapes', [((3, 2, 4), (3, 2, 3), (3, 4, 4)), ((3, 2, 4), (3, 2, 3), (2, 3, 4)), ((3, 5, 4), (3, 2, 3), (3, 4, 4)),
                                    ((3, 5, 4), (3, 2, 3), (3, 3, 4)), ((3, 2, 4), (3, 2), (3, 3, 4))])
def test_baddbmm_shape_checks_as_torch(shapes):
    "batch2's first two sizes are checked before input is expanded, in torch's words."
    _same_message(lambda lib: lib.baddbmm(*[lib.ones(s) for s in shapes]))


@pytest.mark.parametrize('shapes', [((2, 4), (3, 2, 3), (3, 4, 4)), ((2, 4), (3, 2, 3), (2, 3, 4)), ((2, 4), (2, 3), (3, 3, 4)),
                                    ((5, 4), (3, 2, 3), (3, 3, 4)), ((2, 4), (2, 2, 3), (3, 4, 4))])
def test_addbmm_shape_checks_as_torch(shapes):
    "input is expanded to the product's shape first, then the ranks, the batch counts and the inner sizes (bmm's message)."
    _same_message(lambda lib: lib.addbmm(*[lib.ones(s) for s in shapes]))


def test_tensordot_dims_checks_and_out_as_torch():
    a, b = np.random.default_rng(0).standard_normal((2, 3)), np.random.default_rng(1).standard_normal((3, 4))
    for dims in (1.5, np.int64(1), 3, -1, (1, [0]), ([1], 0), ([1.0], [0]), ([True], [0])):
        _same_message(lambda lib: lib.tensordot(lib.tensor(a), lib.tensor(b), dims))
    for dims in (((1,), (0,)), ([np.int64(1)], [0])):
        np.testing.assert_allclose(litnn.tensordot(litnn.tensor(a), litnn.tensor(b), dims).numpy(),
                                   torch.tensordot(torch.tensor(a), torch.tensor(b), dims).numpy(), rtol=1e-12)
    for dt in ('float32', 'int32'):
        _same_message(lambda lib: lib.tensordot(lib.tensor(a), lib.tensor(b), 1, out=lib.empty(2, 4, dtype=getattr(lib, dt))))
    for shape in ((0,), (2, 4)):            # an empty out is resized (no warning); one of the right shape is written
        lo, to = litnn.full(shape, 7., dtype=litnn.float64), torch.full(shape, 7., dtype=torch.float64)
        assert litnn.tensordot(litnn.tensor(a), litnn.tensor(b), 1, out=lo) is lo
        torch.tensordot(torch.tensor(a), torch.tensor(b), 1, out=to)
        np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-6)
    with pytest.warns(UserWarning, match='was resized'):
        litnn.tensordot(litnn.tensor(a), litnn.tensor(b), 1, out=litnn.empty(3, dtype=litnn.float64))


def test_cross_shapes_that_do_not_broadcast_as_torch():
    import warnings
    warnings.simplefilter('ignore', UserWarning)        # torch.cross without dim: deprecated
    _same_message(lambda lib: lib.linalg.cross(lib.ones(4, 3), lib.ones(3, 3)))
    _same_message(lambda lib: lib.cross(lib.ones(4, 3), lib.ones(3, 3)))
    _same_message(lambda lib: lib.cross(lib.ones(2, 4), lib.ones(3, 4)))     # the default dim: input's first size 3
    for s in ((1, 3), (3, 1)):
        assert tuple(litnn.cross(litnn.ones(s), litnn.ones(3, 3)).shape) == tuple(torch.cross(torch.ones(s), torch.ones(3, 3)).shape)


@pytest.mark.parametrize('use_gelu', [False, True])
def test_private_addmm_activation_as_torch(use_gelu):
    "torch._addmm_activation: addmm then ReLU (or exact GELU on the CPU); out= of the result's dtype."
    rng = np.random.default_rng(3)
    a, m1, m2 = (rng.standard_normal(s) for s in ((2, 3), (2, 4), (4, 3)))
    l = litnn._addmm_activation(litnn.tensor(a), litnn.tensor(m1), litnn.tensor(m2), beta=0.5, alpha=2, use_gelu=use_gelu)
    t = torch._addmm_activation(torch.tensor(a), torch.tensor(m1), torch.tensor(m2), beta=0.5, alpha=2, use_gelu=use_gelu)
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)
    o = litnn.empty(0, dtype=litnn.float64)
    assert litnn._addmm_activation(litnn.tensor(a), litnn.tensor(m1), litnn.tensor(m2), out=o) is o and tuple(o.shape) == (2, 3)


def test_private_compute_linear_combination_as_torch():
    "torch._compute_linear_combination: r[i] = sum_j c[i, j] x[j]; an out= is accumulated into; an empty input refused."
    rng = np.random.default_rng(4)
    x, c = rng.standard_normal((3, 2, 2)).astype(np.float32), rng.random((5, 3)).astype(np.float32)
    l, t = litnn._compute_linear_combination(litnn.tensor(x), litnn.tensor(c)), torch._compute_linear_combination(torch.tensor(x), torch.tensor(c))
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-6)
    lo, to = litnn.ones(5, 2, 2), torch.ones(5, 2, 2)
    litnn._compute_linear_combination(litnn.tensor(x), litnn.tensor(c), out=lo); torch._compute_linear_combination(torch.tensor(x), torch.tensor(c), out=to)
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=1e-6)
    _same_message(lambda lib: lib._compute_linear_combination(lib.rand([]), lib.rand(2, 2)))


def test_inplace_fused_products_check_self_as_torch():
    "addmm_/baddbmm_/addmv_ refuse a self of another shape than the result ('Bad in-place call'); addr_ wants a 2-D self of the outer's shape."
    for f in [lambda lib: lib.ones(3, 1).addmm_(lib.ones(3, 2), lib.ones(2, 4)), lambda lib: lib.ones(3).addmm_(lib.ones(2, 4), lib.ones(4, 3)),
              lambda lib: lib.ones(1, 3, 4).baddbmm_(lib.ones(2, 3, 5), lib.ones(2, 5, 4)), lambda lib: lib.ones(1).addmv_(lib.ones(3, 5), lib.ones(5)),
              lambda lib: lib.addmv_(lib.ones(1), lib.ones(3, 5), lib.ones(5)), lambda lib: lib.ones(3, 4).addr_(lib.ones(3), lib.ones(5)),
              lambda lib: lib.ones(3, 5, 1).addr_(lib.ones(3), lib.ones(5))]:
        _same_message(f)
    for lib in (torch, litnn):      # a self of the result's shape is written in place
        x = lib.ones(2, 3); assert x.addmm_(lib.ones(2, 4), lib.ones(4, 3), beta=2) is x and x.tolist() == [[6.0] * 3] * 2


@pytest.mark.parametrize('k', [dict(beta=1j), dict(alpha=1j), dict(beta=0, alpha=2j), dict(alpha=1e300)], ids=str)
def test_scalar_factors_read_in_the_compute_type(k):
    "torch reads beta and alpha in the kernel's type: a complex number (or one out of range) for a float product is its RuntimeError."
    for name in calls(torch, {}):
        _same_message(lambda lib: calls(lib, k)[name]())

@pytest.mark.parametrize('dt', ['float16', 'bfloat16', 'float64', 'int64', 'int32', 'uint8'])
@pytest.mark.parametrize('k', [dict(beta=1j), dict(beta=1 + 0j), dict(beta=1e10), dict(alpha=1e300), dict(beta=-1), dict(beta=300), dict(beta=2.7, alpha=1.5)], ids=str)
def test_scalar_factors_per_dtype(dt, k):
    "addmm's scalars checked (c10's checked_convert) in the compute type: float for the halves, the integer type for integers (truncated)."
    def f(lib):
        o = lib.ones(2, 2, dtype=getattr(lib, dt))
        return lib.addmm(o, o, o, **k)
    try: want = f(torch)
    except RuntimeError: return _same_message(f)
    got = f(litnn)
    assert str(got.dtype)[6:] == str(want.dtype)[6:]
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy())

def test_scalar_factors_of_an_empty_product_are_not_read():
    for lib in (torch, litnn):       # torch's kernel does not run: nothing checks beta, the result keeps its dtype
        assert lib.addmm(lib.ones(2, 0), lib.ones(2, 0), lib.ones(0, 0), beta=1j).dtype == lib.float32

def test_addbmm_inplace_resizes_self_as_torch():
    "torch's addbmm_ writes through addbmm_out: a self that broadcasts to the result is resized to it (addmm_ refuses)."
    def run(lib, make, **k):
        b1, b2 = lib.arange(24.).reshape(2, 3, 4), lib.arange(16.).reshape(2, 4, 2)
        x = make(lib)
        r = x.addbmm_(b1, b2, **k)
        assert r is x
        return x
    for make in (lambda lib: lib.ones(1, 2), lambda lib: lib.ones(2), lambda lib: lib.tensor(5.), lambda lib: lib.ones(3, 1)):
        for k in ({}, dict(beta=2), dict(beta=0)):
            want, got = run(torch, make, **k), run(litnn, make, **k)
            assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
            np.testing.assert_allclose(got.numpy(), want.numpy())
    _same_message(lambda lib: run(lib, lambda lib: lib.ones(2, 2)))
    _same_message(lambda lib: run(lib, lambda lib: lib.ones(1, 2, requires_grad=True)))     # a leaf's in-place error first

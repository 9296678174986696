"""Activation modules and their functional forms side by side with torch: reprs, values, grad_fn names, gradients,
in-place behaviour, softmax's implicit dim (and its warning), errors; finite-difference checks in float64."""
import warnings
import numpy as np
import pytest

import litnn
from litnn.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip('torch')
lnn, tnn = litnn.nn, torch.nn
LF, TF = litnn.nn.functional, torch.nn.functional
rng = np.random.default_rng(0)


def randn(*shape, dtype=np.float32):
    "Random values away from 0 (the kinks of relu and leaky_relu)."
    a = rng.standard_normal(shape)
    return np.asarray(np.where(np.abs(a) < 0.05, 0.5, a), dtype)


def np_(t): return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


MODULES = [
    lambda nn: nn.ReLU(), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.ReLU(True),
    lambda nn: nn.LeakyReLU(), lambda nn: nn.LeakyReLU(0.2), lambda nn: nn.LeakyReLU(0.2, inplace=True),
    lambda nn: nn.GELU(), lambda nn: nn.GELU('tanh'), lambda nn: nn.GELU(approximate='none'),
    lambda nn: nn.SiLU(), lambda nn: nn.SiLU(inplace=True), lambda nn: nn.Tanh(), lambda nn: nn.Sigmoid(),
    lambda nn: nn.Softmax(dim=1), lambda nn: nn.Softmax(-1), lambda nn: nn.LogSoftmax(dim=0), lambda nn: nn.LogSoftmax(1),
]


@pytest.mark.parametrize('make', MODULES)
def test_module_matches_torch(make):
    "repr, empty state_dict, value, grad_fn name and input gradient (through a multiply so in-place is legal)."
    lm, tm = make(lnn), make(tnn)
    assert repr(lm) == repr(tm)
    assert lm.state_dict() == {} and list(tm.state_dict()) == []
    a, r = randn(4, 5), randn(4, 5)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    lo, to = lm(lx * 1), tm(tx * 1)
    np.testing.assert_allclose(np_(lo), to.detach().numpy(), atol=2e-6, rtol=1e-5)
    assert lo.grad_fn.name() == type(to.grad_fn).__name__
    (lo * litnn.tensor(r)).sum().backward(); (to * torch.tensor(r)).sum().backward()
    np.testing.assert_allclose(np_(lx.grad), tx.grad.numpy(), atol=2e-6, rtol=1e-5)


def test_module_reprs_in_a_sequential():
    def build(nn): return nn.Sequential(nn.Linear(3, 4), nn.ReLU(True), nn.LeakyReLU(0.1), nn.GELU('tanh'), nn.SiLU(), nn.Tanh(),
                                        nn.Sigmoid(), nn.Softmax(), nn.LogSoftmax(dim=-1))
    assert repr(build(lnn)) == repr(build(tnn))


@pytest.mark.parametrize('name,kw', [('relu', {}), ('leaky_relu', {}), ('leaky_relu', dict(negative_slope=0.3)), ('gelu', {}),
                                     ('gelu', dict(approximate='tanh')), ('silu', {}), ('tanh', {}), ('sigmoid', {}),
                                     ('softmax', dict(dim=0)), ('softmax', dict(dim=-1, dtype=torch.float64)),
                                     ('log_softmax', dict(dim=1)), ('log_softmax', dict(dim=0, dtype=torch.float64))])
@pytest.mark.parametrize('shape', [(3, 4), (2, 3, 4), (5,)])
def test_functional_matches_torch(name, kw, shape):
    if 'dim' in kw and kw['dim'] == 1 and len(shape) == 1: kw = dict(kw, dim=0)
    lkw = {k: (litnn.float64 if v is torch.float64 else v) for k, v in kw.items()}
    a = randn(*shape)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    lo, to = getattr(LF, name)(lx, **lkw), getattr(TF, name)(tx, **kw)
    assert lo.dtype.name == str(to.dtype)[6:] and lo.grad_fn.name() == type(to.grad_fn).__name__
    np.testing.assert_allclose(np_(lo), to.detach().numpy(), atol=2e-6, rtol=1e-5)
    lo.exp().sum().backward(); to.exp().sum().backward()
    np.testing.assert_allclose(np_(lx.grad), tx.grad.numpy(), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize('f', [lambda F, x: F.relu(x, inplace=True), lambda F, x: F.leaky_relu(x, 0.2, inplace=True),
                               lambda F, x: F.leaky_relu(x, inplace=True), lambda F, x: F.silu(x, inplace=True)])
def test_inplace_forms_match_torch(f):
    "The result is the input tensor itself, with torch's grad_fn, values and gradients; without autograd, too."
    a = randn(3, 4)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = lx * 2, tx * 2
    lo, to = f(LF, ly), f(TF, ty)
    assert lo is ly and to is ty
    assert lo.grad_fn.name() == type(to.grad_fn).__name__
    np.testing.assert_allclose(np_(lo), to.detach().numpy(), atol=2e-6)
    lo.sum().backward(); to.sum().backward()
    np.testing.assert_allclose(np_(lx.grad), tx.grad.numpy(), atol=2e-6)
    lz, tz = litnn.tensor(a), torch.tensor(a)
    assert f(LF, lz) is lz and f(TF, tz) is tz
    np.testing.assert_allclose(np_(lz), tz.numpy(), atol=2e-6)


def test_inplace_on_a_saved_tensor_is_caught_like_torch():
    for lib in (litnn, torch):
        x = lib.ones(3, requires_grad=True)
        s = x.sigmoid()
        lib.nn.functional.relu(s, inplace=True)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"): s.sum().backward()


def test_inplace_on_a_leaf_that_requires_grad_raises_like_torch():
    for f in (lambda F, x: F.relu(x, inplace=True), lambda F, x: F.leaky_relu(x, inplace=True), lambda F, x: F.silu(x, inplace=True)):
        with pytest.raises(RuntimeError) as te: f(TF, torch.ones(2, requires_grad=True))
        with pytest.raises(RuntimeError) as le: f(LF, litnn.ones(2, requires_grad=True))
        assert str(le.value) == str(te.value)


@pytest.mark.parametrize('ndim', [0, 1, 2, 3, 4])
@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
def test_softmax_implicit_dim_like_torch(ndim, name):
    "dim=None: torch's legacy choice of dim (0 for 0-, 1- and 3-d, else 1) and its deprecation warning."
    a = randn(*(2, 3, 4, 5)[:ndim])
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated") as wl:
        lo = getattr(LF, name)(litnn.tensor(a))
    with pytest.warns(UserWarning) as wt: to = getattr(TF, name)(torch.tensor(a))
    assert str(wl[0].message) == str(wt[0].message)
    np.testing.assert_allclose(np_(lo), to.numpy(), atol=2e-6)
    mod = {'softmax': 'Softmax', 'log_softmax': 'LogSoftmax'}[name]
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        np.testing.assert_allclose(np_(getattr(lnn, mod)()(litnn.tensor(a))), to.numpy(), atol=2e-6)


def test_softmax_with_dim_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        LF.softmax(litnn.ones(2, 3), dim=1); lnn.LogSoftmax(dim=0)(litnn.ones(2, 3))


@pytest.mark.parametrize('f', [lambda lib: lib.nn.GELU('fast')(lib.ones(2)),
                               lambda lib: lib.nn.functional.gelu(lib.ones(2), approximate='exact'),
                               lambda lib: lib.nn.functional.softmax(lib.ones(2, 3), dim=2),
                               lambda lib: lib.nn.Softmax(dim=-3)(lib.ones(2, 3)),
                               lambda lib: lib.nn.functional.log_softmax(lib.ones(2, 3), dim=5)])
def test_errors_like_torch(f):
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type): f(litnn)


def test_integer_inputs_like_torch():
    "relu keeps integers; softmax of integers refuses (torch: no implicit float)."
    x = [[-1, 2], [3, -4]]
    lo, to = LF.relu(litnn.tensor(x)), TF.relu(torch.tensor(x))
    assert lo.dtype.name == 'int64' and lo.tolist() == to.tolist()
    with pytest.raises(Exception) as te: TF.softmax(torch.tensor(x), 1)
    with pytest.raises(te.type): LF.softmax(litnn.tensor(x), 1)


@pytest.mark.parametrize('f', [lambda F, x: F.relu(x), lambda F, x: F.leaky_relu(x, 0.1), lambda F, x: F.gelu(x),
                               lambda F, x: F.gelu(x, approximate='tanh'), lambda F, x: F.silu(x), lambda F, x: F.tanh(x),
                               lambda F, x: F.sigmoid(x), lambda F, x: F.softmax(x, 1), lambda F, x: F.log_softmax(x, 0),
                               lambda F, x: F.leaky_relu(x * 1, 0.1, inplace=True), lambda F, x: F.silu(x * 1, inplace=True)])
def test_gradcheck_float64(f):
    x = litnn.tensor(randn(3, 4, dtype=np.float64), requires_grad=True)
    assert gradcheck(lambda x: f(LF, x), (x,)) and gradgradcheck(lambda x: f(LF, x), (x,))


def test_modules_in_a_network_match_torch():
    "Linear + each activation, torch's weights: the same output and weight gradients."
    for act in ('ReLU', 'GELU', 'SiLU', 'Tanh', 'Sigmoid', 'LeakyReLU'):
        tnet = tnn.Sequential(tnn.Linear(5, 6), getattr(tnn, act)(), tnn.Linear(6, 3), tnn.LogSoftmax(dim=1))
        lnet = lnn.Sequential(lnn.Linear(5, 6), getattr(lnn, act)(), lnn.Linear(6, 3), lnn.LogSoftmax(dim=1))
        lnet.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tnet.state_dict().items()})
        x = randn(7, 5)
        lo, to = lnet(litnn.tensor(x)), tnet(torch.tensor(x))
        np.testing.assert_allclose(np_(lo), to.detach().numpy(), atol=1e-5)
        lo.sum().backward(); to.sum().backward()
        for lp, tp in zip(lnet.parameters(), tnet.parameters()):
            np.testing.assert_allclose(np_(lp.grad), tp.grad.numpy(), atol=1e-5, err_msg=act)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_activations_on_gpu():
    a = randn(3, 4)
    for make in MODULES:
        x = litnn.tensor(a, device='cuda', requires_grad=True)
        y = make(lnn)(x * 1)
        y.sum().backward()
        ref = make(lnn)(litnn.tensor(a))
        np.testing.assert_allclose(np_(y), np_(ref), atol=1e-5)
        assert x.grad.device.type == 'cuda'


@pytest.mark.parametrize('name', ['softplus', 'softshrink', 'logsigmoid', 'gelu'])
def test_the_kernel_activations_take_out_as_torch(name):
    "torch._C._nn's softplus, softshrink, log_sigmoid and gelu take out= (the other functional activations do not)."
    import warnings
    torch = pytest.importorskip('torch')
    outcomes = []
    for lib in (torch, litnn):
        f, x = getattr(lib.nn.functional, name), lib.tensor([-3., -0.2, 0.4, 25.])
        got = []
        for o in (lib.empty(4), lib.empty(2), lib.empty(4, dtype=lib.float64)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')      # the resize of a wrong-shaped out warns in both
                    r = f(x, out=o)
                got.append((r is o, np.round(o.numpy().astype(np.float64), 6).tolist()))
            except RuntimeError as e: got.append(str(e))
        try: f(x.clone().requires_grad_(), out=lib.empty(4))
        except RuntimeError as e: got.append(str(e))
        outcomes.append(got)
    assert outcomes[0] == outcomes[1]
    with pytest.raises(TypeError): litnn.nn.functional.elu(litnn.ones(2), out=litnn.empty(2))   # as torch's: no out=


@pytest.mark.parametrize('name, alpha', [('elu_', 2.), ('elu_', -2.), ('celu_', 0.5), ('celu_', -2.), ('selu_', None)])
def test_in_place_elus_backward_from_their_result_as_torch(name, alpha):
    "elu_, celu_ and selu_ save their result (EluBackward1, CeluBackward1); a negative alpha cannot be inverted: refused."
    torch = pytest.importorskip('torch')
    got = []
    for lib in (torch, litnn):
        x = lib.tensor([-1., 2., -0.3, 0.], requires_grad=True); y = x * 1
        getattr(lib.nn.functional, name)(y, *([] if alpha is None else [alpha]))
        try: y.backward(lib.tensor([1., 2., 3., 4.])); got.append((type(y.grad_fn).__name__, np.round(x.grad.numpy(), 6).tolist()))
        except RuntimeError as e: got.append(str(e))
    assert got[0] == got[1]


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(7,), (64, 64), (4, 8, 24, 24)])
def test_relu_bits_match_torch_small_and_large(dtype, shape):
    "relu's special values to the bit, below and above the size where litnn's numpy path changes roads (-0.0 stays -0.0, NaN stays NaN), in layouts a layer gives (transposed, strided)"
    a = rng.standard_normal(shape).astype(dtype)
    a.flat[:6] = [-0.0, 0.0, np.nan, -np.inf, np.inf, -1e-45]
    ints = np.int32 if dtype == np.float32 else np.int64
    for v in (a, a.T, a.reshape(-1)[::2]):
        want = torch.relu(torch.from_numpy(v)).numpy()
        for got in (litnn.relu(litnn.from_numpy(v)), LF.relu(litnn.from_numpy(v.copy()).requires_grad_())):
            got = got.detach().numpy()
            assert got.shape == want.shape and np.array_equal(np.ascontiguousarray(got).view(ints), np.ascontiguousarray(want).view(ints))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', ['leaky', 'leaky0', 'leaky_neg', 'leaky_steep', 'leaky_', 'where', 'where_number', 'threshold'])
def test_selecting_ops_bits_match_torch_on_large_tensors(case, dtype):
    """Ops that pick one of two values per element (where, leaky_relu and its gradient, threshold) to the bit, values and
    gradients, above the size where litnn's numpy road picks bits with a mask instead of numpy's where: NaN, infinities,
    -0.0 and subnormals among the inputs and the incoming gradients"""
    f = dict(leaky=lambda L, x: LF_of(L).leaky_relu(x, 0.2), leaky0=lambda L, x: LF_of(L).leaky_relu(x, 0.),
             leaky_neg=lambda L, x: LF_of(L).leaky_relu(x, -0.3), leaky_steep=lambda L, x: LF_of(L).leaky_relu(x, 2.5),
             leaky_=lambda L, x: LF_of(L).leaky_relu(x * 1, 0.1, inplace=True), where=lambda L, x: L.where(x > 0, x, x * 2),
             where_number=lambda L, x: L.where(x > 0, x, 0.), threshold=lambda L, x: LF_of(L).threshold(x, 0.1, 20.))[case]
    r = np.random.default_rng(1)
    a = (r.standard_normal((8, 8, 24, 24)) * 3).astype(dtype)
    a.flat[:8] = [0., -0., np.nan, np.inf, -np.inf, 1e-45, -1e-45, 30.]
    g = r.standard_normal(a.shape).astype(dtype)
    g.flat[8:12] = [np.nan, np.inf, -np.inf, -0.]
    got = []
    for L in (litnn, torch):
        x = L.tensor(a, requires_grad=True)
        y = f(L, x)
        y.backward(L.tensor(g))
        got.append((y.detach().numpy(), x.grad.numpy()))
    ints = np.int32 if dtype == np.float32 else np.int64
    for u, v in zip(*got): assert u.dtype == v.dtype and np.array_equal(u.view(ints), v.view(ints))

def LF_of(L): return L.nn.functional


@pytest.mark.parametrize('dt', ['float32', 'float64'])
@pytest.mark.parametrize('case', ['prelu_one', 'prelu_channels', 'rrelu_eval', 'rrelu_eval_inplace'])
def test_large_prelu_and_eval_rrelu_with_special_values_to_the_bit(dt, case):
    "30,000 elements with NaN, infinities, -0.0 and subnormals (each side picked by _where, without where's branch per element): values and the input's gradient are torch's bits."
    import numpy as np
    rng = np.random.default_rng(4)
    sp = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, -1e-39, 0.5, -0.5, 3.0, -3.0], np.float32)
    a = np.concatenate([np.tile(sp, 500), rng.standard_normal(23000).astype(np.float32)]); rng.shuffle(a)
    a, g = a.reshape(100, 30, 10).astype(dt), rng.standard_normal((100, 30, 10)).astype(dt)
    out = []
    for L in (litnn, torch):
        x = L.tensor(a, requires_grad=True)
        F = L.nn.functional
        if case == 'prelu_one': y = F.prelu(x, L.tensor([0.25], dtype=x.dtype))
        elif case == 'prelu_channels': y = F.prelu(x, L.tensor(np.linspace(-1, 1, 30).astype(dt)))
        elif case == 'rrelu_eval': y = F.rrelu(x)
        else: y = F.rrelu(x.clone(), inplace=True)
        y.backward(L.tensor(g))
        out.append([np.ascontiguousarray(t.detach().numpy()).view(np.uint8) for t in (y, x.grad)])
    assert all((p == q).all() for p, q in zip(*out))

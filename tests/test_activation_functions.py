"""The activation functions of 40a_activation_functions (and their modules, 40b_activation_modules) against torch 2.13: values, first and second derivatives, in-place forms, reprs, errors."""
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF

# name, kwargs: each function on the same inputs in both libraries
CASES = [('elu', {}), ('elu', {'alpha': 0.5}), ('selu', {}), ('celu', {}), ('celu', {'alpha': 2.0}),
         ('hardtanh', {}), ('hardtanh', {'min_val': -2., 'max_val': 0.5}), ('relu6', {}), ('hardsigmoid', {}),
         ('hardswish', {}), ('mish', {}), ('softplus', {}), ('softplus', {'beta': 2., 'threshold': 3.}), ('softsign', {}),
         ('softshrink', {}), ('softshrink', {'lambd': 1.2}), ('hardshrink', {}), ('hardshrink', {'lambd': 1.2}),
         ('tanhshrink', {}), ('threshold', {'threshold': 0.3, 'value': -2.}), ('logsigmoid', {}), ('softmin', {'dim': 1}),
         ('glu', {}), ('glu', {'dim': 0}), ('rrelu', {'training': False})]
SMOOTH = {'elu', 'selu', 'celu', 'mish', 'softplus', 'softsign', 'tanhshrink', 'logsigmoid', 'softmin', 'glu'}

def inputs(dtype):
    rng = np.random.default_rng(0)
    a = rng.normal(scale=3, size=(4, 6))
    a[0, :6] = [-3., 3., 0.5, -0.5, 6., 0.]          # on the kinks of hardtanh/hardswish/shrink/relu6 (torch's side)
    return a.astype(dtype)

@pytest.mark.parametrize('name,kw', CASES, ids=[f"{n}-{'-'.join(map(str, k.values()))}" for n, k in CASES])
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_values_and_gradients_match_torch(name, kw, dtype):
    a = inputs(dtype)
    lx = litnn.tensor(a, requires_grad=True); tx = torch.tensor(a, requires_grad=True)
    ly, ty = getattr(LF, name)(lx, **kw), getattr(TF, name)(tx, **kw)
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    assert ly.dtype.name == str(ty.dtype).removeprefix('torch.')
    gy = np.random.default_rng(1).normal(size=ly.shape).astype(dtype)
    ly.backward(litnn.tensor(gy)); ty.backward(torch.tensor(gy))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__

@pytest.mark.parametrize('name,kw', [c for c in CASES if c[0] in SMOOTH], ids=lambda v: str(v))
def test_second_derivatives_match_torch(name, kw):
    a = inputs('float64')[1:3]      # off the kinks; an even number of rows for glu
    lx = litnn.tensor(a, requires_grad=True); tx = torch.tensor(a, requires_grad=True)
    (lg,) = litnn.autograd.grad(getattr(LF, name)(lx, **kw).sum(), lx, create_graph=True)
    (tg,) = torch.autograd.grad(getattr(TF, name)(tx, **kw).sum(), tx, create_graph=True)
    np.testing.assert_allclose(lg.detach().numpy(), tg.detach().numpy(), rtol=1e-10, atol=1e-12)
    (lh,) = litnn.autograd.grad((lg * lg).sum(), lx); (th,) = torch.autograd.grad((tg * tg).sum(), tx)
    np.testing.assert_allclose(lh.numpy(), th.numpy(), rtol=1e-9, atol=1e-12)

@pytest.mark.parametrize('name', ['elu', 'selu', 'celu', 'mish', 'softplus', 'logsigmoid', 'hardswish', 'glu'])
def test_gradcheck(name):
    x = litnn.tensor(inputs('float64')[1:3] + 0.01, requires_grad=True)   # off the kinks
    assert litnn.autograd.gradcheck(getattr(LF, name), (x,))

@pytest.mark.parametrize('name,kw', [('elu', {}), ('selu', {}), ('celu', {}), ('hardtanh', {}), ('relu6', {}),
                                     ('hardsigmoid', {}), ('hardswish', {}), ('mish', {}),
                                     ('threshold', {'threshold': 0.3, 'value': -2.}), ('rrelu', {})])
def test_inplace(name, kw):
    a = inputs('float64')
    lx, tx = litnn.tensor(a), torch.tensor(a)
    ly = getattr(LF, name)(lx, **kw, inplace=True); ty = getattr(TF, name)(tx, **kw, inplace=True)
    assert ly is lx
    np.testing.assert_allclose(lx.numpy(), tx.numpy(), rtol=1e-12)

def test_prelu_against_torch():
    a = inputs('float64').reshape(2, 3, 4)
    for w in ([0.25], [0.1, -0.2, 0.3]):
        lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        lw, tw = litnn.tensor(w, requires_grad=True, dtype=litnn.float64), torch.tensor(w, requires_grad=True, dtype=torch.float64)
        ly, ty = LF.prelu(lx, lw), TF.prelu(tx, tw)
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy())
        (ly * ly).sum().backward(); (ty * ty).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match='Mismatch of parameter numbers'): LF.prelu(litnn.ones(2, 4), litnn.ones(3))
    with pytest.raises(RuntimeError): TF.prelu(torch.ones(2, 4), torch.ones(3))

def test_rrelu_training_draws_slopes_in_range():
    litnn.manual_seed(0)
    x = litnn.full((20_000,), -1., requires_grad=True)
    y = LF.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    slopes = -y.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 5 * (0.2 / np.sqrt(12)) / np.sqrt(slopes.size)   # uniform: 5 sigma
    np.testing.assert_array_equal(x.grad.numpy(), slopes)                             # gradient = the slope used

MODULES = [('ELU', ()), ('ELU', (0.5, True)), ('SELU', ()), ('SELU', (True,)), ('CELU', (2.0,)), ('GLU', ()), ('GLU', (0,)),
           ('Hardtanh', ()), ('Hardtanh', (-2., 2., True)), ('ReLU6', ()), ('ReLU6', (True,)), ('Hardsigmoid', ()),
           ('Hardswish', (True,)), ('Mish', ()), ('PReLU', ()), ('PReLU', (3, 0.1)), ('RReLU', ()), ('RReLU', (0.1, 0.2, True)),
           ('Softplus', ()), ('Softplus', (2, 10)), ('Softsign', ()), ('Softshrink', ()), ('Hardshrink', (1.5,)),
           ('Tanhshrink', ()), ('Threshold', (0.1, 2.)), ('Threshold', (0.1, 2., True)), ('LogSigmoid', ()), ('Softmin', ()),
           ('Softmin', (1,)), ('Softmax2d', ())]

@pytest.mark.parametrize('name,args', MODULES, ids=lambda v: str(v))
def test_modules_repr_state_dict_and_forward(name, args):
    lm, tm = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    lm.eval(); tm.eval()
    a = inputs('float64').reshape(2, 3, 2, 2)[:, :2] if name in ('GLU', 'Softmax2d', 'PReLU') else inputs('float64')
    if name == 'PReLU' and args: a = inputs('float64').reshape(2, 3, 4)
    lm.double(); tm.double()
    with torch.no_grad():
        want = tm(torch.tensor(a.copy()))
    np.testing.assert_allclose(lm(litnn.tensor(a.copy())).detach().numpy(), want.numpy(), rtol=1e-12, atol=1e-14)

def test_errors_match_torch():
    from torch_pairs import same_error
    same_error(lambda lib: lib.nn.functional.glu(lib.ones(3)))
    same_error(lambda lib: lib.nn.functional.prelu(lib.ones(2, 8, 3), lib.ones(2, 4)))     # weight of 2 dims
    same_error(lambda lib: lib.nn.functional.rrelu(lib.ones(5, 5), lower=0.3, upper=0.1))
    same_error(lambda lib: lib.nn.functional.rrelu(lib.ones(5, 5), lower=0.3, upper=0.1, training=True))
    same_error(lambda lib: lib.nn.functional.glu(lib.tensor(1.)))
    same_error(lambda lib: lib.nn.functional.softshrink(lib.ones(3), -1.))
    same_error(lambda lib: lib.nn.Hardtanh(2., 1.))
    same_error(lambda lib: lib.nn.Softmax2d()(lib.ones(2, 3)))
    with pytest.raises(RuntimeError, match='Halving dimension must be even, but dimension 0 is size 3'):
        LF.glu(litnn.ones(3))

@pytest.mark.parametrize('name', ['hardshrink', 'softshrink'])
def test_shrink_signed_zeros_and_nan_match_torch(name):
    # torch zeroes the inside of hardshrink with +0 (softshrink keeps the sign: x - x); NaN is "outside"
    # in both, so it passes through with its gradient
    a = np.array([-0.5, -1., 0.2, -0., 0., np.nan, np.inf, -2.], dtype='float32')
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = getattr(LF, name)(lx, 1.2), getattr(TF, name)(tx, 1.2)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(np.signbit(ly.detach().numpy()), np.signbit(ty.detach().numpy()))
    ly.sum().backward(); ty.sum().backward()
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize('args', [('a', 1.), (0.5, None), ([1.], 0.)])
def test_threshold_takes_numbers(args):
    "threshold's threshold and value are Numbers: anything else is torch's TypeError naming the argument, not numpy's."
    with pytest.raises(TypeError) as t: TF.threshold(torch.ones(3), *args)
    with pytest.raises(TypeError) as l: LF.threshold(litnn.ones(3), *args)
    assert str(l.value) == str(t.value)


def test_softmax_of_empty_float_tensor_is_in_the_graph():
    "softmax/log_softmax of an empty float tensor run their op, as torch's: grad_fn named so, and a create_graph gradient that needs grad."
    for f in ('softmax', 'log_softmax'):
        for shape, dim in [((0, 10), 0), ((0, 10), 1), ((10, 0), 1)]:
            for dtype in (None, 'float64'):
                names, flags = [], []
                for lib, F in ((torch, TF), (litnn, LF)):
                    x = lib.rand(*shape, requires_grad=True)
                    y = getattr(F, f)(x, dim=dim, dtype=None if dtype is None else getattr(lib, dtype))
                    g, = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
                    g.sum().backward()                 # the gradient is itself differentiable
                    names.append(type(y.grad_fn).__name__); flags.append((g.requires_grad, tuple(g.shape), str(y.dtype).split('.')[1]))
                assert names[0] == names[1] and flags[0] == flags[1], (f, shape, dim, names, flags)
    for lib in (torch, litnn):          # an empty integer tensor passes, unchanged (no kernel runs)
        assert lib.zeros(0, 3, dtype=lib.int64).softmax(1).dtype == lib.int64


@pytest.mark.parametrize('training, lower, upper', [(False, -5.0, 1.0), (False, 0.1, 0.3), (True, -5.0, 1.0), (True, -3.0, -3.0)])
def test_rrelu_in_place_backward(training, lower, upper):
    """rrelu_ is torch's RreluWithNoiseBackward1 (it reads the result): off the noise path (eval) with a
    negative mean slope its backward refuses as leaky_relu_'s; in training the gradient is the drawn slopes."""
    res = []
    for lib in (torch, litnn):
        lib.manual_seed(0)
        a = lib.tensor([-1., 1., -2.], requires_grad=True)
        b = lib.nn.functional.rrelu_(a.clone(), lower, upper, training=training)
        name = type(b.grad_fn).__name__
        try:
            b.backward(lib.ones(3)); res.append((name, a.grad.tolist(), b.tolist()))
        except RuntimeError as e: res.append((name, str(e)))
    assert res[0][0] == res[1][0] == 'RreluWithNoiseBackward1'
    if training:    # drawn slopes (litnn's draws may differ): the gradient is each element's slope, y / x
        assert len(res[0]) == len(res[1]) == 3
        grad, y = res[1][1], res[1][2]
        np.testing.assert_allclose(grad, [y[0] / -1, 1.0, y[2] / -2], rtol=1e-6)
        assert all(lower <= g <= upper for g in (grad[0], grad[2]))
    else: assert res[0][1:] == res[1][1:]


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16', 'float32'])
@pytest.mark.parametrize('lambd', [0.3, 0.1, 0.5])
def test_hardshrink_reads_lambd_in_the_input_dtype(dtype, lambd):
    "torch's hardshrink kernel rounds lambd to the input's dtype (bfloat16's 0.3 is 0.30078): values equal to it are inside."
    def run(L):
        x = L.tensor([1, 0.5, 0.3, 0.6, 0.1, -0.1, -0.3], dtype=getattr(L, dtype), requires_grad=True)
        y = x.hardshrink(lambd); y.sum().backward()
        return y.detach().float().tolist(), x.grad.float().tolist(), str(y.dtype).split('.')[1]
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'bool', 'complex64'])
@pytest.mark.parametrize('lambd', [-1, -0.25, 0.5, float('nan'), 1e39, 70000.0])
def test_softshrink_lambda_check_names_the_dtype(dtype, lambd):
    "torch's softshrink_check: floating inputs only, then 0 <= lambd <= the dtype's largest value, in that dtype's words."
    from torch_pairs import same_message
    def f(lib): return lib.nn.functional.softshrink(lib.ones(2, dtype=getattr(lib, dtype)), lambd)
    if dtype.startswith('float') or dtype == 'bfloat16':
        try: torch.nn.functional.softshrink(torch.ones(2, dtype=getattr(torch, dtype)), lambd)
        except RuntimeError: pass
        else:   # accepted by torch: the same values
            np.testing.assert_allclose(f(litnn).float().numpy(), f(torch).float().numpy()); return
    same_message(f)

@pytest.mark.parametrize('name,kw', [('softplus', {'beta': np.log(2) / (1 - 1e-3)}), ('softplus', {'threshold': np.float64(10)}),
                                     ('leaky_relu', {'negative_slope': np.float64(0.1)}), ('elu', {'alpha': np.float64(0.5)}),
                                     ('celu', {'alpha': np.float64(0.5)}), ('softshrink', {'lambd': np.float64(0.2)}),
                                     ('leaky_relu', {'negative_slope': np.float32(0.1), 'inplace': True}), ('elu', {'alpha': np.float64(1.0), 'inplace': True})])
def test_numpy_scalar_parameters_are_numbers(name, kw):
    "A numpy float64 parameter (nflows' softplus(x, beta=np.log(2) / ...)) is a number to torch: a float32 input stays float32."
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    l, t = getattr(LF, name)(litnn.tensor(x), **kw), getattr(TF, name)(torch.tensor(x), **kw)
    assert str(l.dtype).split('.')[1] == str(t.dtype).split('.')[1] == 'float32'
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-6, atol=1e-7)


MASKED_GRADS = [('relu', {}), ('relu6', {}), ('hardtanh', {}), ('hardtanh', {'min_val': -2., 'max_val': 0.5}),
                ('threshold', {'threshold': 0.3, 'value': -2.}), ('hardshrink', {}), ('softshrink', {}), ('hardsigmoid', {})]

@pytest.mark.parametrize('name,kw', MASKED_GRADS, ids=[f"{n}-{'-'.join(map(str, k.values()))}" for n, k in MASKED_GRADS])
@pytest.mark.parametrize('n', [9, 5000])
def test_masked_gradients_have_torchs_signed_zeros(name, kw, n):
    "Where the input is outside the active range the gradient is +0.0 even for a negative, infinite or NaN incoming"
    "gradient (torch's where/masked_fill), and -0.0 passes where it is inside: the same bits as torch, small and large."
    rng = np.random.default_rng(3)
    for dtype in ('float32', 'float64'):
        a = rng.normal(scale=4, size=n).astype(dtype)
        a[:9] = [-5., -1., -0.5, 0., 0.25, 0.5, 2., 6., 7.]
        finite = -np.abs(rng.normal(size=n)).astype(dtype)
        finite[::7] = -0.0
        special = finite.copy()
        special[1::11], special[2::13] = np.inf, np.nan
        for g in (finite, special):
            outs = []
            for lib, F in ((litnn, LF), (torch, TF)):
                x = lib.tensor(a, requires_grad=True)
                getattr(F, name)(x, **kw).backward(lib.tensor(g))
                outs.append(x.grad.numpy())
            u = 'u4' if dtype == 'float32' else 'u8'
            np.testing.assert_array_equal(outs[0].view(u), outs[1].view(u))


@pytest.mark.parametrize('dim', [0, 1, -1])
@pytest.mark.parametrize('dt', ['float64', 'float32'])
@pytest.mark.parametrize('log', [False, True])
def test_private_softmax_backward_data_as_torch(log, dt, dim):
    """torch._softmax_backward_data / _log_softmax_backward_data (called from libraries' own autograd Functions: HF SEW-D's
    XSoftmax): the input gradient from the forward's output, as torch's, and differentiable again."""
    r = np.random.default_rng(1)
    x, g, h = (r.standard_normal((3, 4, 5)) for _ in range(3))
    name = '_log_softmax_backward_data' if log else '_softmax_backward_data'
    def run(lib):
        d = getattr(lib, dt)
        xx, gg = lib.tensor(x, dtype=d, requires_grad=True), lib.tensor(g, dtype=d, requires_grad=True)
        y = (xx.log_softmax(dim) if log else xx.softmax(dim))
        gi = getattr(lib, name)(gg, y, dim, d)
        (gi * lib.tensor(h, dtype=d)).sum().backward()
        return [t.detach().double().numpy() for t in (gi, xx.grad, gg.grad)], str(gi.dtype).split('.')[-1]
    (a, ad), (b, bd) = run(litnn), run(torch)
    assert ad == bd
    for u, v in zip(a, b): np.testing.assert_allclose(u, v, rtol=1e-12 if dt == 'float64' else 1e-5, atol=1e-12 if dt == 'float64' else 1e-6)

"""41a_feature_dropout against torch 2.13: what is dropped (whole channels), scales, eval identity, in-place, warnings, errors."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

FUNCS = [('dropout1d', (8, 16, 30)), ('dropout1d', (16, 30)), ('dropout2d', (8, 16, 5, 6)), ('dropout2d', (8, 16, 30)),
         ('dropout3d', (4, 16, 3, 4, 5)), ('dropout3d', (16, 3, 4, 5)), ('feature_alpha_dropout', (8, 16, 5, 6))]

@pytest.mark.parametrize('name,shape', FUNCS, ids=lambda v: str(v))
def test_whole_channels_and_gradient(name, shape):
    litnn.manual_seed(0)
    x = litnn.ones(*shape, dtype=litnn.float64, requires_grad=True)
    kw = {'training': True}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        y = getattr(litnn.nn.functional, name)(x, 0.4, **kw)
    a = y.detach().numpy()
    batched = len(shape) in ((3,) if name == 'dropout1d' else (5,) if name == 'dropout3d' else (3, 4))
    per_channel = a.reshape(shape[:2] + (-1,)) if batched else a.reshape(shape[:1] + (-1,))
    assert (np.ptp(per_channel, -1) == 0).all()                               # a channel is kept or dropped whole
    if name != 'feature_alpha_dropout':
        assert set(np.unique(a)) <= {0., 1 / 0.6}
        frac = (per_channel[..., 0] == 0).mean()
        n = per_channel[..., 0].size
        assert abs(frac - 0.4) < 5 * np.sqrt(0.4 * 0.6 / n)                   # binomial, 5 sigma
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), a if name != 'feature_alpha_dropout' else x.grad.numpy())

def test_alpha_dropout_values_and_statistics():
    litnn.manual_seed(1)
    p = 0.2
    y = litnn.nn.functional.alpha_dropout(litnn.zeros(100_000, dtype=litnn.float64), p, True).numpy()
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * p + 1) * (1 - p))
    np.testing.assert_allclose(sorted(set(np.round(y, 12))), sorted({round(a * alpha * p, 12), round(-alpha * a * (1 - p), 12)}))
    z = litnn.nn.functional.alpha_dropout(litnn.randn(200_000, dtype=litnn.float64), p, True)
    assert abs(z.mean().item()) < 5 / np.sqrt(200_000) * 1.1 and abs(z.std().item() - 1) < 0.01

@pytest.mark.parametrize('name', ['dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout'])
def test_identity_in_evaluation_and_extremes(name):
    f = getattr(litnn.nn.functional, name)
    x = litnn.ones(2, 3, 4, 5) if name != 'dropout1d' else litnn.ones(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same = (lambda a, b: a is b) if name != 'dropout3d' else (lambda a, b: a.tolist() == b.tolist())   # 4-D: a view, as torch's
        assert same(f(x, 0.5, training=False), x) and same(f(x, 0.0, training=True), x)
        tf = getattr(torch.nn.functional, name)
        tx = torch.ones(*x.shape)
        np.testing.assert_array_equal(f(x, 1.0, True).numpy(), tf(tx, 1.0, True).numpy())

def test_inplace():
    litnn.manual_seed(0)
    x = litnn.ones(4, 8, 3)
    y = litnn.nn.functional.dropout1d(x, 0.5, True, inplace=True)
    assert y is x and set(np.unique(x.numpy())) <= {0., 2.}
    x = litnn.ones(8, 3)
    assert litnn.nn.functional.dropout1d(x, 0.5, True, inplace=True) is x and x.shape == (8, 3)

def test_warnings_as_torch():
    for name, shape in [('dropout2d', (3, 4)), ('dropout2d', (2, 3, 4)), ('dropout3d', (3, 4))]:
        msgs = []
        for lib in (torch, litnn):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                getattr(lib.nn.functional, name)(lib.ones(*shape), 0.5)
            msgs.append([str(m.message) for m in w])
        assert msgs[0] == msgs[1]

@pytest.mark.parametrize('f', [lambda lib: lib.nn.functional.dropout1d(lib.ones(1, 2, 3, 4)),
                               lambda lib: lib.nn.functional.dropout2d(lib.ones(1, 2, 3, 4), 1.5),
                               lambda lib: lib.nn.AlphaDropout(-0.1), lambda lib: lib.nn.Dropout3d(2.)])
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value) == str(t.value)

@pytest.mark.parametrize('name', ['Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout'])
def test_modules(name):
    for args in [(), (0.3, True)]:
        lm, tm = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(lm) == repr(tm)
    x = litnn.ones(2, 3, 4, 5, 6) if name == 'Dropout3d' else litnn.ones(2, 3, 4) if name == 'Dropout1d' else litnn.ones(2, 3, 4, 5)
    assert lm.eval()(x) is x


@pytest.mark.parametrize('name,x', [('dropout', (4,)), ('dropout1d', (2, 3, 4)), ('dropout2d', (2, 3, 4, 4)), ('dropout3d', (2, 3, 2, 2, 2)),
                                    ('alpha_dropout', (4,)), ('feature_alpha_dropout', (2, 3, 4))])
@pytest.mark.parametrize('training', [1, 0, 'yes', None, np.bool_(True)])
def test_training_must_be_a_bool(name, x, training):
    "torch's parser takes a Python bool only for `training` (it names its C++ op: dropout, feature_dropout, ...)."
    with pytest.raises(TypeError) as t: getattr(torch.nn.functional, name)(torch.ones(x), 0.5, training)
    with pytest.raises(TypeError) as l: getattr(litnn.nn.functional, name)(litnn.ones(x), 0.5, training)
    assert str(l.value) == str(t.value)


@pytest.mark.parametrize('name', ['dropout', 'dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout'])
def test_p_may_be_a_zero_dim_tensor_like_torch(name):
    "torch's C++ parser takes a 0-d tensor for the float p (the same draws as the float); a 1-element 1-d one is a TypeError."
    outs = []
    for L in (torch, litnn):
        f = getattr(L.nn.functional, name)
        L.manual_seed(0)
        shape = {'dropout1d': (2, 3, 4), 'dropout3d': (2, 3, 4, 2, 2)}.get(name, (2, 3, 4, 2))
        y = f(L.ones(*shape), L.tensor(0.5), True)
        L.manual_seed(0)
        outs.append((y.numpy(), f(L.ones(*shape), 0.5, True).numpy()))
        if name == 'dropout':
            with pytest.raises(TypeError, match=r"dropout\(\): argument 'p' \(position 2\) must be float, not Tensor"):
                f(L.ones(3), L.tensor([0.5]))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-6)
    np.testing.assert_allclose(outs[1][0], outs[1][1])

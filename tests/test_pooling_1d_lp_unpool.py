"""reference/nn/pooling_1d_lp_and_unpool against torch 2.13: 1-d max/avg/adaptive pooling, adaptive max pooling, LP pooling, max unpooling."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error, same_message

rng = np.random.default_rng(0)

def compare(f, a, dtype='float64', n_out=1):
    lx, tx = litnn.tensor(a.astype(dtype), requires_grad=True), torch.tensor(a.astype(dtype), requires_grad=True)
    ly, ty = f(litnn, lx), f(torch, tx)
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(ly[1].numpy(), ty[1].numpy()); ly, ty = ly[0], ty[0]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)

F1 = [lambda lib, x: lib.nn.functional.max_pool1d(x, 3), lambda lib, x: lib.nn.functional.max_pool1d(x, 3, 2, 1, 2, True),
      lambda lib, x: lib.nn.functional.max_pool1d(x, 2, return_indices=True),
      lambda lib, x: lib.nn.functional.avg_pool1d(x, 3), lambda lib, x: lib.nn.functional.avg_pool1d(x, 4, 2, 2, True, False),
      lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 4), lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 4),
      lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 5, True),
      lambda lib, x: lib.nn.functional.lp_pool1d(x, 2, 3), lambda lib, x: lib.nn.functional.lp_pool1d(x, 3., 2, 1)]

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('i', range(len(F1)))
@pytest.mark.parametrize('shape', [(2, 3, 11), (3, 9)])
def test_one_dimensional(i, shape, dtype):
    a = rng.normal(size=shape)
    if 'lp_pool' in F1[i].__code__.co_names or i >= 8: a = np.abs(a) + 0.1
    compare(F1[i], a, dtype)

F2 = [lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 3), lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (4, None), True),
      lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, (2, 5)), lambda lib, x: lib.nn.functional.lp_pool2d(x, 2, 2),
      lambda lib, x: lib.nn.functional.lp_pool2d(x, 1.5, (2, 3), 1, True)]

@pytest.mark.parametrize('i', range(len(F2)))
@pytest.mark.parametrize('shape', [(2, 3, 7, 9), (3, 6, 5)])
def test_two_dimensional(i, shape):
    a = rng.normal(size=shape)
    if i >= 3: a = np.abs(a) + 0.1
    compare(F2[i], a)

@pytest.mark.parametrize('n,kw', [(1, dict(kernel_size=2)), (1, dict(kernel_size=3, stride=2, padding=1)),
                                  (2, dict(kernel_size=2)), (2, dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0)))], ids=str)
def test_max_unpool(n, kw):
    a = rng.normal(size=(2, 3) + (8,) * n)
    pool = lambda lib, x: getattr(lib.nn.functional, f'max_pool{n}d')(x, **kw, return_indices=True)
    ty, ti = pool(torch, torch.tensor(a)); ly, li = pool(litnn, litnn.tensor(a))
    unpool = lambda lib, y, i, **o: getattr(lib.nn.functional, f'max_unpool{n}d')(y, i, **kw, **o)
    for extra in ({}, {'output_size': (8,) * n}):
        lx, tx = litnn.tensor(ly.numpy(), requires_grad=True), torch.tensor(ty.numpy(), requires_grad=True)
        try: tu = unpool(torch, tx, ti, **extra)
        except RuntimeError as e:               # an index past the default size: the same error
            with pytest.raises(RuntimeError) as l: unpool(litnn, lx, li, **extra)
            import re                       # which invalid index is named first depends on the loop order
            assert re.sub(r'index: \d+', 'index: #', str(l.value)) == re.sub(r'index: \d+', 'index: #', str(e)); continue
        lu = unpool(litnn, lx, li, **extra)
        np.testing.assert_array_equal(lu.detach().numpy(), tu.detach().numpy())
        g = rng.normal(size=tuple(tu.shape))
        lu.backward(litnn.tensor(g)); tu.backward(torch.tensor(g))
        np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())

ERRORS = [lambda lib: lib.nn.functional.max_pool1d(lib.ones(2, 3, 4, 5), 2), lambda lib: lib.nn.functional.avg_pool1d(lib.ones(3), 2),
          lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.ones(3), 2), lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.ones(3, 4), 2),
          lambda lib: lib.nn.functional.adaptive_max_pool1d(lib.ones(2, 3, 4), (2, 2)),
          lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.long), 2, output_size=(9, 9))]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value) == str(t.value)

MODULES = [('MaxPool1d', (2,), (2, 3, 8)), ('MaxPool1d', (3, 2, 1, 1, False, True), (2, 3, 8)), ('AvgPool1d', (3,), (2, 3, 8)),
           ('AvgPool1d', (3, 1, 1, True, False), (2, 3, 8)), ('AdaptiveAvgPool1d', (5,), (2, 3, 8)), ('AdaptiveMaxPool1d', (3,), (2, 3, 8)),
           ('AdaptiveMaxPool2d', ((5, 7),), (2, 3, 9, 9)), ('AdaptiveMaxPool2d', (3,), (3, 6, 6)), ('LPPool2d', (2, 3), (2, 3, 9, 9)),
           ('LPPool1d', (1.5, 2, 1), (2, 3, 8))]

@pytest.mark.parametrize('name,args,shape', MODULES, ids=lambda v: str(v))
def test_modules(name, args, shape):
    lm, tm = getattr(litnn.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(lm) == repr(tm)
    a = np.abs(rng.normal(size=shape)) + 0.1
    np.testing.assert_allclose(lm(litnn.tensor(a)).numpy(), tm(torch.tensor(a)).numpy(), rtol=1e-11)
    for n, args in (('MaxUnpool2d', (2,)), ('MaxUnpool1d', (3, 2, 1))):
        assert repr(getattr(litnn.nn, n)(*args)) == repr(getattr(torch.nn, n)(*args))

@pytest.mark.parametrize('p', [float('inf'), -float('inf')])
@pytest.mark.parametrize('f,shape', [(lambda lib, x, p: lib.nn.functional.lp_pool1d(x, p, 2, ceil_mode=True), (2, 3, 7)),
                                     (lambda lib, x, p: lib.nn.functional.lp_pool2d(x, p, (2, 3), stride=1), (2, 3, 5, 6)),
                                     (lambda lib, x, p: lib.nn.functional.lp_pool3d(x, p, 2), (1, 2, 4, 4, 5)),
                                     (lambda lib, x, p: lib.nn.LPPool2d(p, 2)(x), (3, 4, 6))])
def test_lp_pool_infinite_norm(f, shape, p):
    "torch reads p = inf (-inf) as the largest (smallest) |x| of each window, by max pooling, not as a power average."
    compare(lambda lib, x: f(lib, x, p), rng.normal(size=shape))

@pytest.mark.parametrize('name,shape', [('adaptive_max_pool1d', (1, 1, 0)), ('adaptive_max_pool1d', (1, 0, 3)),
                                        ('adaptive_max_pool2d', (1, 1, 0, 4)), ('adaptive_max_pool2d', (1, 0, 4, 4)),
                                        ('adaptive_max_pool2d', (1, 0, 4)), ('adaptive_max_pool3d', (1, 1, 0, 4, 4)),
                                        ('adaptive_max_pool3d', (2, 3, 0, 3)), ('adaptive_max_pool3d', (1, 0, 3, 3, 3))])
def test_adaptive_max_pool_refuses_empty_non_batch_dims(name, shape):
    "An empty channel or spatial dim is torch's RuntimeError (naming the dim), not an argmax of nothing; an empty batch is fine."
    f = lambda lib: getattr(lib.nn.functional, name)(lib.ones(*shape), 2)
    assert same_error(f) is RuntimeError
    with pytest.raises(RuntimeError) as t: f(torch)
    with pytest.raises(RuntimeError) as l: f(litnn)
    assert str(l.value) == str(t.value)
    empty = (0,) + (3,) * (len(shape) - 1)
    g = lambda lib: tuple(getattr(lib.nn.functional, name)(lib.ones(*empty), 2).shape)
    assert g(litnn) == g(torch)


# --- max unpooling of empty batches, output_size lengths, layouts (PyTorch's test_pooling.py cases) -------------------

def _err(f, lib):
    try: f(lib)
    except Exception as e: return type(e).__name__, str(e)
    return None

@pytest.mark.parametrize('d', [1, 2, 3])
def test_max_unpool_of_an_empty_batch_like_torch(d):
    "An empty batch pools, unpools and back-propagates (zeros), as torch's."
    def run(lib):
        P, U = getattr(lib.nn, f'MaxPool{d}d'), getattr(lib.nn, f'MaxUnpool{d}d')
        x = lib.zeros(0, 10, *([10] * d), requires_grad=True)
        o, i = P(2, stride=2, return_indices=True)(x)
        u = U(2, stride=2)(o, i)
        u.sum().backward()
        return tuple(u.shape), tuple(x.grad.shape)
    assert run(litnn) == run(torch)

@pytest.mark.parametrize('size', [(5, 5), (1, 1, 5, 5), (1, 5, 5), (5,), [1, 2, 3, 4, 5]])
def test_max_unpool2d_output_size_lengths_like_torch(size):
    "output_size: the spatial sizes, or (N, C, *spatial); any other length is torch's ValueError."
    def run(lib):
        o, i = lib.nn.functional.max_pool2d(lib.arange(25.).reshape(1, 1, 5, 5), 2, return_indices=True)
        return tuple(lib.nn.functional.max_unpool2d(o, i, 2, output_size=size).shape)
    a, b = _err(run, litnn), _err(run, torch)
    assert a == b, (a, b)
    if a is None: assert run(litnn) == run(torch)

def test_max_unpool2d_keeps_a_channels_last_layout_like_torch():
    def run(lib):
        x = lib.tensor(rng.normal(size=(2, 4, 9, 9))).contiguous(memory_format=lib.channels_last)
        out = []
        for inp in (x, x[:, ::2]):
            o, i = lib.nn.MaxPool2d(3, stride=2, return_indices=True)(inp)
            out.append((o.stride(), lib.nn.MaxUnpool2d(3, stride=2)(o, i).stride()))
        return out
    assert run(litnn) == run(torch)


def test_adaptive_max_pool_output_too_large_is_torch_storage_error():
    "An output size whose storage overflows: torch's RuntimeError naming the sizes (test_pooling's test_adaptive_pooling_size_overflow)."
    for f in (lambda L: L.nn.AdaptiveMaxPool1d(0x3FFFFFFFFFFFFFFF)(L.empty([2, 2, 2])),
              lambda L: L.nn.functional.adaptive_max_pool2d(L.empty([2, 3, 4]), (2 ** 40, 2 ** 30))):
        same_message(f)

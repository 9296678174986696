"""reference/nn/pooling_fractional_max against torch 2.13: fractional_max_pool2d and FractionalMaxPool2d with the same random samples."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
# (input shape, kernel, output_size, output_ratio)
CASES = [((2, 3, 10, 11), 3, (4, 5), None), ((1, 2, 9, 9), 2, 5, None), ((3, 12, 7), (3, 2), None, (0.5, 0.7)),
         ((2, 2, 25, 20), 2, (13, 11), None), ((1, 1, 8, 8), 2, (1, 7), None), ((2, 4, 31, 17), (3, 4), None, (0.6, 0.6))]

@pytest.mark.parametrize('case', CASES, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_values_indices_gradients(case, dtype):
    shape, k, out, ratio = case
    a = rng.normal(size=shape).astype(dtype)
    n = 1 if len(shape) == 3 else shape[0]
    u = rng.random(size=(n, shape[-3], 2)).astype(dtype)
    res = []
    for lib in (litnn, torch):
        x = lib.tensor(a, requires_grad=True)
        y, i = lib.nn.functional.fractional_max_pool2d(x, k, out, ratio, True, _random_samples=lib.tensor(u))
        y.backward(lib.tensor(np.arange(y.numel(), dtype=dtype).reshape(tuple(y.shape))))
        res.append((y.detach().numpy(), i.numpy(), x.grad.numpy()))
    for l, t in zip(*res): np.testing.assert_array_equal(l, t)

def test_ties_and_nan_as_torch():
    a = np.zeros((1, 1, 7, 7)); a[0, 0, 2, 3] = a[0, 0, 4, 4] = np.nan
    u = np.array([[[0.4, 0.7]]])
    l = litnn.nn.functional.fractional_max_pool2d(litnn.tensor(a), 3, 4, return_indices=True, _random_samples=litnn.tensor(u))
    t = torch.nn.functional.fractional_max_pool2d(torch.tensor(a), 3, 4, return_indices=True, _random_samples=torch.tensor(u))
    np.testing.assert_array_equal(l[1].numpy(), t[1].numpy())

def test_random_samples_drawn_and_gradcheck():
    x = litnn.tensor(rng.normal(size=(2, 3, 9, 8)), requires_grad=True)
    assert litnn.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5)).shape == (2, 3, 4, 4)
    u = litnn.tensor(rng.random(size=(2, 3, 2)))
    assert litnn.autograd.gradcheck(lambda t: litnn.nn.functional.fractional_max_pool2d(t, 2, 5, _random_samples=u), (x,))

def test_module():
    u = rng.random(size=(1, 2, 2))
    for kw in [dict(output_size=4), dict(output_ratio=0.5, return_indices=True), dict(output_size=(4, 3), _random_samples=u)]:
        lkw, tkw = dict(kw), dict(kw)
        if '_random_samples' in kw: lkw['_random_samples'], tkw['_random_samples'] = litnn.tensor(u), torch.tensor(u)
        lm, tm = litnn.nn.FractionalMaxPool2d(3, **lkw), torch.nn.FractionalMaxPool2d(3, **tkw)
        assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
        assert (lm.kernel_size, lm.output_size, lm.output_ratio) == (tm.kernel_size, tm.output_size, tm.output_ratio)
    a = rng.normal(size=(1, 2, 10, 9))
    np.testing.assert_array_equal(lm(litnn.tensor(a)).numpy(), tm(torch.tensor(a)).numpy())

x4 = lambda T: T.ones(1, 2, 10, 11)
ERRORS = [lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_size=(4, 10)), lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_size=(10, 10)),
          lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_ratio=(0.5, 0.5, 0.5)), lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_ratio=0.5),
          lambda T, F: F.fractional_max_pool2d(x4(T), 3), lambda T, F: F.fractional_max_pool2d(T.ones(2, 3, 4, 5, 6), 2, output_size=1),
          lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_size=(4, 5), _random_samples=T.ones(1, 2, 3)),
          lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_size=(4, 5), _random_samples=T.ones(1, 2, 2, 1)),
          lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_size=(4, 5), _random_samples=T.ones(1, 2, 2, dtype=T.float64)),
          lambda T, F: F.fractional_max_pool2d(x4(T), 3, output_size=(4, 5), _random_samples=T.ones(1, 3, 2)),
          lambda T, F: T.nn.FractionalMaxPool2d(3), lambda T, F: T.nn.FractionalMaxPool2d(3, output_size=4, output_ratio=0.5),
          lambda T, F: T.nn.FractionalMaxPool2d(3, output_ratio=1.5)]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors_as_torch(i):
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: ERRORS[i](lib, lib.nn.functional)
        msgs.append((e.type, str(e.value)))
    assert msgs[0] == msgs[1]


def _raised(f, lib):
    try: f(lib)
    except Exception as e: return type(e).__name__, str(e)
    return None

@pytest.mark.parametrize('k,out', [((), (3, 3)), ((1,), (3, 3)), ([2], (3, 3)), (2, (3,)), (2, ()), (2, [3])])
def test_kernel_and_output_size_of_the_wrong_length_are_refused_as_torch(k, out):
    "A kernel_size or output_size of other than one int or two ints is torch's RuntimeError (a 1-sequence is not widened)."
    def run(lib):
        x, s = lib.zeros(2, 7, 7, dtype=lib.float64), lib.full((1, 2, 2), 0.5, dtype=lib.float64)
        lib.nn.functional.fractional_max_pool2d(x, k, output_size=out, _random_samples=s)
    a, b = _raised(run, litnn), _raised(run, torch)
    assert a == b and a is not None, (a, b)

@pytest.mark.parametrize('shape', [(1, 0, 50, 32), (2, 3, 0, 32), (3, 0, 32), (0, 16, 50, 32)])
def test_empty_non_batch_dims_refused_as_torch(shape):
    "An empty dim after the first is torch's RuntimeError; an empty batch pools to an empty output."
    def run(lib):
        return tuple(lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(lib.zeros(*shape)).shape)
    a, b = _raised(run, litnn), _raised(run, torch)
    assert a == b, (a, b)
    if a is None: assert run(litnn) == run(torch)

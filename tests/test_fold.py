"""reference/nn/fold against torch 2.13: F.unfold/F.fold and nn.Unfold/nn.Fold (values, gradients, reprs, errors)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
# (input shape, kernel_size, dilation, padding, stride)
CASES = [((2, 3, 5, 6), 2, 1, 0, 1), ((1, 2, 7, 6), (3, 2), (1, 2), (1, 0), (2, 1)), ((2, 1, 4, 4), 3, 1, 1, 1),
         ((3, 5, 5), 2, 2, 1, 2), ((2, 2, 9, 3), (4, 1), 2, (2, 1), 3), ((1, 3, 6, 6), 6, 1, 0, 1)]
TOL = dict(float64=dict(rtol=1e-13, atol=1e-13), float32=dict(rtol=1e-5, atol=1e-5))

@pytest.mark.parametrize('shape,k,d,p,s', CASES, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_unfold_values_and_gradients(shape, k, d, p, s, dtype):
    a = rng.normal(size=shape).astype(dtype)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = litnn.nn.functional.unfold(lx, k, d, p, s), torch.nn.functional.unfold(tx, k, d, p, s)
    np.testing.assert_array_equal(ly.detach().numpy(), ty.detach().numpy())
    g = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **TOL[dtype])
    assert type(ly.grad_fn).__name__ == type(ty.grad_fn).__name__ or ly.dim() == 2

@pytest.mark.parametrize('shape,k,d,p,s', CASES, ids=lambda v: str(v))
@pytest.mark.parametrize('dtype', ['float64', 'float32'])
def test_fold_values_and_gradients(shape, k, d, p, s, dtype):
    size = shape[-2:]
    cshape = tuple(torch.nn.functional.unfold(torch.zeros(shape), k, d, p, s).shape)
    a = rng.normal(size=cshape).astype(dtype)
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ly, ty = litnn.nn.functional.fold(lx, size, k, d, p, s), torch.nn.functional.fold(tx, size, k, d, p, s)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **TOL[dtype])
    g = rng.normal(size=ty.shape).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())
    assert ly.shape == ty.shape

def test_gradcheck_and_second_order():
    x = litnn.tensor(rng.normal(size=(1, 2, 4, 5)), requires_grad=True)
    assert litnn.autograd.gradcheck(lambda t: litnn.nn.functional.unfold(t, 2, padding=1, stride=(1, 2)), (x,))
    c = litnn.tensor(rng.normal(size=(2, 8, 6)), requires_grad=True)
    assert litnn.autograd.gradcheck(lambda t: litnn.nn.functional.fold(t, (3, 4), 2), (c,))
    a = rng.normal(size=(1, 2, 4, 4))
    lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (lg,) = litnn.autograd.grad((litnn.nn.functional.unfold(lx, 2) ** 3).sum(), lx, create_graph=True)
    (tg,) = torch.autograd.grad((torch.nn.functional.unfold(tx, 2) ** 3).sum(), tx, create_graph=True)
    np.testing.assert_allclose(lg.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    (lh,) = litnn.autograd.grad(lg.sum(), lx); (th,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(lh.numpy(), th.numpy(), rtol=1e-12)

def test_empty_batch_and_unbatched():
    for lib in (torch, litnn):
        assert tuple(lib.nn.functional.unfold(lib.ones(0, 2, 3, 4), 2).shape) == (0, 8, 6)
        assert tuple(lib.nn.functional.fold(lib.ones(0, 8, 6), (3, 4), 2).shape) == (0, 2, 3, 4)
        assert tuple(lib.nn.functional.fold(lib.ones(8, 6), (3, 4), 2).shape) == (2, 3, 4)

def test_modules_and_reprs():
    for args in [(2,), ((2, 3), 2, 1, (1, 2))]:
        assert repr(litnn.nn.Unfold(*args)) == repr(torch.nn.Unfold(*args))
        assert repr(litnn.nn.Fold((5, 6), *args)) == repr(torch.nn.Fold((5, 6), *args))
    a = rng.normal(size=(2, 3, 5, 6))
    lu, tu = litnn.nn.Unfold(2, padding=1)(litnn.tensor(a)), torch.nn.Unfold(2, padding=1)(torch.tensor(a))
    np.testing.assert_array_equal(lu.numpy(), tu.numpy())
    lf, tf = litnn.nn.Fold((5, 6), 2, padding=1)(lu), torch.nn.Fold((5, 6), 2, padding=1)(tu)
    np.testing.assert_allclose(lf.numpy(), tf.numpy(), rtol=1e-14)
    assert list(litnn.nn.Fold(3, 2).state_dict()) == list(torch.nn.Fold(3, 2).state_dict()) == []

ERRORS = [lambda F, lib: F.unfold(lib.ones(3, 4), 2), lambda F, lib: F.unfold(lib.ones(4), 2), lambda F, lib: F.unfold(lib.ones(()), 2),
          lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4, 5), 2), lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 5),
          lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 0), lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 2, stride=0),
          lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 2, padding=-1), lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 2, dilation=0),
          lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 1, dilation=0, padding=-1, stride=0),
          lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), (2, 2, 2)), lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4), 2.0),
          lambda F, lib: F.unfold(lib.ones(1, 0, 3, 4), 2), lambda F, lib: F.unfold(lib.ones(1, 2, 3, 4, dtype=lib.int64), 2),
          lambda F, lib: F.fold(lib.ones(1, 7, 6), (3, 4), 2), lambda F, lib: F.fold(lib.ones(1, 8, 5), (3, 4), 2),
          lambda F, lib: F.fold(lib.ones(1, 1, 8, 6), (3, 4), 2), lambda F, lib: F.fold(lib.ones(8), (3, 4), 2),
          lambda F, lib: F.fold(lib.ones(1, 8, 6), (3, 4, 5), 2), lambda F, lib: F.fold(lib.ones(1, 8, 6), (1, 1), 2),
          lambda F, lib: F.fold(lib.ones(1, 8, 6), (0, 4), 2), lambda F, lib: F.fold(lib.ones(1, 0, 6), (3, 4), 2),
          lambda F, lib: F.fold(lib.ones(1, 8, 6), (3, 4), 2, dilation=0, padding=-1, stride=0),
          lambda F, lib: F.fold(lib.ones(1, 8, 6), (3, 4), 2, dilation=0, padding=-1),
          lambda F, lib: F.fold(lib.ones(1, 8, 6, dtype=lib.int32), (3, 4), 2)]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors_as_torch(i):
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: ERRORS[i](lib.nn.functional, lib)
        msgs.append((e.type, str(e.value)))
    assert msgs[0] == msgs[1]


def test_bfloat16_unfold_and_fold():
    "torch's im2col/col2im kernels take bfloat16 (OpInfo samples); the result stays bfloat16."
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) / 8
    c = np.arange(72, dtype=np.float32).reshape(1, 8, 9) / 8
    for f, a in [(lambda lib, t: lib.nn.functional.unfold(t, 2), x), (lambda lib, t: lib.nn.functional.fold(t, (4, 4), 2), c)]:
        want = f(torch, torch.tensor(a).bfloat16())
        got = f(litnn, litnn.tensor(a).to(litnn.bfloat16))
        assert got.dtype == litnn.bfloat16
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1e-2)


def test_fold_non_positive_blocks_message():
    "torch checks that the array of sliding blocks is non-empty before matching its count (-4 * -3 = 12 must not pass)."
    msgs = []
    for lib in (torch, litnn):
        fold = lib.nn.Fold(output_size=(4, 5), kernel_size=(2, 2), stride=1, dilation=8, padding=0)
        with pytest.raises(RuntimeError) as e:
            fold(lib.randn(1, 12, 12))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]

"""The in-place views of reference/torch/inplace_views against torch 2.13: values, dtypes, grad_fn names, gradients, errors."""
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck
from api_pairs import torch, check, same_error, host, DEVICES

rng = np.random.default_rng(0)
def R(*s): return rng.standard_normal(s)
x23, x34, x134, v4 = R(2, 3), R(3, 4), R(1, 3, 4), R(4)


# ---- reference/torch/inplace_views
INPLACE_VIEWS = [
    ('unsqueeze_', lambda L, a: (a * 1).unsqueeze_(1), [x23]),
    ('unsqueeze_neg', lambda L, a: (a * 1).unsqueeze_(-1), [x23]),
    ('squeeze_all', lambda L, a: (a * 1).squeeze_(), [x134]),
    ('squeeze_dim', lambda L, a: (a * 1).squeeze_(0), [x134]),
    ('squeeze_dims', lambda L, a: (a * 1).squeeze_((0, 1)), [x134]),
    ('t_', lambda L, a: (a * 1).t_(), [x23]),
    ('t_vector', lambda L, a: (a * 1).t_(), [v4]),
    ('transpose_', lambda L, a: (a * 1).transpose_(0, 2), [x134]),
    ('swapaxes_', lambda L, a: (a * 1).swapaxes_(-1, 1), [x134]),
    ('swapdims_', lambda L, a: (a * 1).swapdims_(0, 1).unsqueeze_(0), [x23]),
    ('as_strided', lambda L, a: a.as_strided((2, 2), (1, 2)), [x23]),
    ('as_strided_offset', lambda L, a: L.as_strided(a, (2, 3), (3, 1), 3), [x34]),
    ('as_strided_overlap', lambda L, a: a.as_strided((4, 3), (1, 1)), [x34]),
    ('as_strided_of_view', lambda L, a: a.t()[1:].as_strided((3, 2), (2, 1)), [x34]),
    ('as_strided_of_expanded', lambda L, a: a.expand(3, 4).as_strided((2, 2), (1, 2)), [v4]),
    ('as_strided_', lambda L, a: (a * 1).as_strided_((3,), (2,), 1), [x23]),
]

@pytest.mark.parametrize('case', INPLACE_VIEWS, ids=[c[0] for c in INPLACE_VIEWS])
@pytest.mark.parametrize('dt', [np.float64, np.float32])
def test_inplace_views(case, dt):
    _, f, arrays = case
    check(f, *[a.astype(dt) for a in arrays], name=True, rtol=1e-6, atol=1e-6)

@pytest.mark.parametrize('dev', DEVICES)
def test_inplace_views_share_memory_and_bump_versions(dev):
    for lib in (litnn, torch):
        x = lib.zeros(2, 3) if lib is torch else lib.zeros(2, 3, device=dev)
        base = x
        x = x[:]
        v = x._version
        x.unsqueeze_(0).transpose_(0, 2).squeeze_(2)
        x[1, 0] = 5.
        assert tuple(x.shape) == (3, 2) and x._version == v + 4 and base[0, 1].item() == 5.

def test_inplace_view_on_a_view_of_a_non_leaf():
    res = []
    for lib in (litnn, torch):
        a = lib.ones(3, requires_grad=True)
        v = (a * 2)[1:]
        v.unsqueeze_(0).t_()
        (v * lib.tensor([[3.], [4.]])).sum().backward()
        res.append((tuple(v.shape), type(v.grad_fn).__name__, a.grad.tolist()))
    assert res[0] == res[1] == ((2, 1), 'TBackward1', [0., 6., 8.])

def test_inplace_view_of_saved_tensor_refuses_backward():
    for lib in (litnn, torch):
        a = lib.ones(3, requires_grad=True)
        y = a * 2
        z = (y * y).sum()            # saves y
        y.unsqueeze_(0)
        with pytest.raises(RuntimeError, match='modified by an inplace operation'): z.backward()

@pytest.mark.parametrize('f', [
    lambda L: L.ones(2, requires_grad=True).unsqueeze_(0), lambda L: L.ones(1, 2, requires_grad=True).squeeze_(),
    lambda L: L.ones(2, 2, requires_grad=True).t_(), lambda L: L.ones(2, 2, requires_grad=True).transpose_(0, 1),
    lambda L: L.ones(2, 2, 2).t_(), lambda L: L.ones(2, 3).unsqueeze_(5), lambda L: L.ones(2, 3).transpose_(0, 5),
    lambda L: L.ones(2, 3).squeeze_(5), lambda L: L.ones(2, 3).swapaxes_(-3, 0),
    lambda L: L.arange(6.).as_strided((3, 3), (3, 1)), lambda L: L.arange(6.).as_strided((3,), (1, -1)),
    lambda L: L.arange(6.).as_strided((3,), (-1,)), lambda L: L.arange(6, dtype=L.float64).as_strided((7,), (1,)),
])
def test_inplace_view_errors(f):
    same_error(f)

def test_as_strided_gradcheck():
    x = litnn.tensor(R(3, 4), requires_grad=True)
    assert gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1), (x,))
    assert gradcheck(lambda t: (t * 1).t_().unsqueeze_(1).squeeze_(), (x,))
    y = litnn.tensor(R(4), requires_grad=True)
    g, = litnn.autograd.grad((y.as_strided((3, 2), (1, 1)) ** 2).sum(), y, create_graph=True)
    gg, = litnn.autograd.grad(g.sum(), y)
    yt = torch.tensor(y.detach().numpy(), requires_grad=True)
    gt, = torch.autograd.grad((yt.as_strided((3, 2), (1, 1)) ** 2).sum(), yt, create_graph=True)
    ggt, = torch.autograd.grad(gt.sum(), yt)
    np.testing.assert_allclose(host(gg), host(ggt))

"MaskedTensor (torch.masked.maskedtensor) side by side with torch: values, masks, reprs, errors, gradients."
import warnings
import numpy as np, pytest, torch
import litnn

warnings.filterwarnings('ignore', 'The PyTorch API of MaskedTensors')
warnings.filterwarnings('ignore', '.*is not implemented in __torch_dispatch__')

D = [[1., -2, 3, 0.5], [4, 5, -6, 2]]
M = [[True, False, True, True], [False, False, True, True]]

def pair(data=D, mask=M, **kw):
    return (torch.masked.masked_tensor(torch.tensor(data), torch.tensor(mask), **kw),
            litnn.masked.masked_tensor(litnn.tensor(data), litnn.tensor(mask), **kw))

def same(t, l):
    assert type(l).__name__ == 'MaskedTensor', type(l)
    assert repr(t) == repr(l), (repr(t), repr(l))
    tm, lm = t.get_mask().numpy(), l.get_mask().numpy()
    np.testing.assert_array_equal(tm, lm)
    np.testing.assert_allclose(t.get_data().detach().numpy()[tm], l.get_data().detach().numpy()[lm], rtol=1e-5, atol=1e-6)

def test_paths():
    for n in ('MaskedTensor', 'masked_tensor', 'as_masked_tensor', 'is_masked_tensor'):
        assert getattr(litnn.masked, n).__module__ == getattr(torch.masked, n).__module__.replace('torch', 'litnn')

def test_repr_and_members():
    t, l = pair()
    same(t, l)
    assert l.is_sparse_coo() is False and l.is_sparse_csr() is False and l.is_sparse is False
    assert litnn.masked.is_masked_tensor(l) and not litnn.masked.is_masked_tensor(l.get_data())
    assert l.shape == tuple(t.shape) and str(l.dtype).replace('litnn', 'torch') == str(t.dtype)
    for data, mask in [(3., True), (3., False), ([1, 2], [True, False]), ([True, False], [False, True]), ([[[1.5]]], [[[True]]])]:
        same(*pair(data, mask))

@pytest.mark.parametrize('name', ['abs', 'exp', 'log', 'sin', 'cos', 'tanh', 'sigmoid', 'sqrt', 'neg', 'square', 'floor', 'sign', 'isnan'])
def test_unary(name):
    t, l = pair()
    same(getattr(t, name)(), getattr(l, name)())

def test_unary_args():
    t, l = pair()
    same(t.clamp(-1, 2), l.clamp(-1, 2)); same(t.pow(2), l.pow(2)); same(-t, -l); same(abs(t), abs(l))

@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'truediv', 'lt', 'le', 'gt', 'ge', 'eq', 'ne'])
def test_binary(op):
    t, l = pair(); t2, l2 = pair([[2.] * 4] * 2)
    f = getattr(__import__('operator'), op)
    same(f(t, t2), f(l, l2)); same(f(t, 2.), f(l, 2.))

def test_binary_reflected_and_methods():
    t, l = pair()
    same(3 * t, 3 * l); same(t.add(t), l.add(l)); same(t.maximum(t), l.maximum(l))

def test_mask_mismatch():
    t, l = pair(); t2, l2 = pair(mask=[[True] * 4] * 2)
    with pytest.raises(ValueError) as et: t + t2
    with pytest.raises(ValueError) as el: l + l2
    assert str(et.value) == str(el.value)

@pytest.mark.parametrize('name', ['sum', 'mean', 'amax', 'amin', 'prod', 'argmax', 'argmin'])
def test_reductions(name):
    t, l = pair()
    same(getattr(t, name)(), getattr(l, name)())
    for dim in (0, 1):
        same(getattr(t, name)(dim), getattr(l, name)(dim))
        same(getattr(t, name)(dim, keepdim=True), getattr(l, name)(dim, keepdim=True))

def test_all():
    t, l = pair([[True, False], [False, True]], [[True, False], [False, True]])
    same(t.all(), l.all()); same(t.all(0), l.all(0))

def test_softmax_and_to_tensor():
    t, l = pair()
    same(t.softmax(-1), l.softmax(-1))
    np.testing.assert_allclose(t.to_tensor(0).detach().numpy(), l.to_tensor(0).detach().numpy())

def test_passthrough():
    t, l = pair()
    same(t.t(), l.t()); same(t.transpose(0, 1), l.transpose(0, 1)); same(t.view(4, 2), l.view(4, 2))
    same(t[1], l[1]); same(t.unsqueeze(0), l.unsqueeze(0)); same(t.select(1, 2), l.select(1, 2))

def test_errors():
    for data, mask in [(D, [[1] * 4] * 2), (D, [True] * 4), (D, [[True] * 3] * 2)]:
        with pytest.raises(Exception) as et: torch.masked.masked_tensor(torch.tensor(data), torch.tensor(mask))
        with pytest.raises(type(et.value)) as el: litnn.masked.masked_tensor(litnn.tensor(data), litnn.tensor(mask))
        assert str(et.value) == str(el.value)
    with pytest.raises(TypeError, match='data must be a Tensor'): litnn.masked.masked_tensor(D, litnn.tensor(M))

def test_warns_as_torch():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        litnn.masked.masked_tensor(litnn.tensor(D), litnn.tensor(M))
    assert any('prototype stage' in str(x.message) for x in w)

@pytest.mark.parametrize('f', [lambda x: x.sum(), lambda x: x.mean(), lambda x: (x * x).sum(), lambda x: x.exp().sum(1).sum(),
    lambda x: x.amax(1).sum(), lambda x: (x.softmax(-1) * x).sum(), lambda x: x.var(), lambda x: x.prod(0).sum(),
    lambda x: x.std(1).sum(), lambda x: (x / (x * x + 1)).mean()])
def test_grad(f):
    t, l = pair(requires_grad=True)
    assert l.requires_grad
    f(t).backward(); f(l).backward()
    same(t.grad, l.grad)

def test_data_only_conversions():
    t, l = pair()
    same(t.detach(), l.detach()); same(t.clone(), l.clone()); same(t.flatten(), l.flatten()); same(t.reshape(8), l.reshape(8))
    td, ld = t.double(), l.double()
    same(td, ld); assert str(ld.dtype) == 'litnn.float64' and str(td.dtype) == 'torch.float64'
    same(t.to(torch.float64), l.to(litnn.float64))

def test_as_masked_tensor_keeps_history():
    tw = torch.tensor(D, requires_grad=True); lw = litnn.tensor(D, requires_grad=True)
    t = torch.masked.as_masked_tensor(tw * 2, torch.tensor(M)); l = litnn.masked.as_masked_tensor(lw * 2, litnn.tensor(M))
    same(t, l)
    assert l.requires_grad == t.requires_grad

def test_graph_attributes():
    t, l = pair(requires_grad=True)
    assert l.is_leaf == t.is_leaf and l.grad_fn is None
    assert (l * 2).requires_grad and (l * 2).grad_fn is not None and not (l * 2).is_leaf

def test_inplace():
    t, l = pair()
    assert t.exp_() is t and l.exp_() is l
    same(t, l)
    t.add_(t); l.add_(l); same(t, l)
    t *= 2; l *= 2; same(t, l)
    t.clamp_(0, 50); l.clamp_(0, 50); same(t, l)
    t2, l2 = pair(mask=[[True] * 4] * 2)
    with pytest.raises(ValueError, match='Input masks must match'): l.add_(l2)

"""LazyLinear materialised by load_state_dict (49_lazy_modules) and Module._apply / to_empty onto and off the meta
device (24_apply_to, 31_meta_device), side by side with torch: parameter identity, requires_grad, grads, in_features."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')


def linear_state(T, i=4, o=3, seed=0):
    rng = np.random.default_rng(seed)
    return {'weight': T.tensor(rng.standard_normal((o, i)).astype('float32')),
            'bias': T.tensor(rng.standard_normal(o).astype('float32'))}


def lazy_story(T):
    "What a user sees loading a checkpoint into a LazyLinear and calling it."
    m = T.nn.LazyLinear(3)
    w0 = m.weight
    r = m.load_state_dict(linear_state(T))
    out = [repr(r), m.weight is w0, type(m.weight).__name__, m.weight.requires_grad, m.has_uninitialized_params(),
           type(m).__name__, repr(m), m.in_features, tuple(m.weight.shape), m.weight.detach().numpy().tolist()]
    y = m(T.ones(2, 4))
    out += [type(m).__name__, repr(m), m.in_features, tuple(y.shape)]
    return out, y.detach().numpy()


def test_lazy_linear_load_state_dict_then_call():
    (a, ya), (b, yb) = lazy_story(litnn), lazy_story(torch)
    assert a == b
    np.testing.assert_allclose(ya, yb, rtol=1e-6, atol=1e-6)      # (the last bit depends on the BLAS's order of sums)


def test_lazy_linear_loaded_then_wrong_input():
    for T in (litnn, torch):
        m = T.nn.LazyLinear(3)
        m.load_state_dict(linear_state(T))
        with pytest.raises(AssertionError, match="The in_features inferred from input: 5 is not equal to in_features from self.weight: 4"):
            m(T.ones(2, 5))


def test_lazy_linear_partial_and_nested_load():
    def story(T):
        m = T.nn.LazyLinear(3, bias=False)
        m.load_state_dict({'weight': T.ones(3, 5)})
        out = [tuple(m.weight.shape), repr(m)]
        m = T.nn.LazyLinear(3)
        r = m.load_state_dict({'weight': T.ones(3, 5)}, strict=False)
        out += [repr(r), repr(m.bias), type(m).__name__]
        s = T.nn.Sequential(T.nn.LazyLinear(3), T.nn.ReLU(), T.nn.LazyLinear(2))
        s.load_state_dict({'0.weight': T.ones(3, 4), '0.bias': T.ones(3), '2.weight': T.ones(2, 3), '2.bias': T.ones(2)})
        out += [repr(s), tuple(s[2].weight.shape), tuple(s(T.ones(1, 4)).shape), repr(s)]
        return out
    a, b = story(litnn), story(torch)
    assert [str(v).replace('litnn', 'torch') for v in a] == [str(v) for v in b]


def apply_story(T):
    out = []
    m = T.nn.Linear(2, 3)
    w0 = m.weight
    m.weight.grad = T.ones(3, 2)
    m.double()
    out.append(('double keeps', m.weight is w0, str(m.weight.grad.dtype)))
    m.float()
    m.to('meta')
    out.append(('to meta', m.weight is w0, str(m.weight.device), str(m.weight.grad.device), type(m.weight).__name__,
                m.weight.requires_grad, m.weight.grad.requires_grad))
    w1 = m.weight
    m.to_empty(device='cpu')
    out.append(('to_empty', m.weight is w1, str(m.weight.device), str(m.weight.grad.device), type(m.weight).__name__,
                m.weight.requires_grad, tuple(m.weight.shape), str(m.weight.dtype)))
    m = T.nn.Linear(2, 3, device='meta')
    m.weight.requires_grad_(False)
    w0, b0 = m.weight, m.bias
    assert m.to_empty(device='cpu') is m
    out.append(('requires_grad kept', m.weight is w0, m.bias is b0, m.weight.requires_grad, m.bias.requires_grad))
    m = T.nn.Linear(2, 3, device='meta')
    w0 = m.weight
    m.to_empty(device='meta')
    out.append(('meta to meta', m.weight is w0, str(m.weight.device)))
    m = T.nn.Linear(2, 3)
    w0 = m.weight
    m.to_empty(device='cpu')
    out.append(('cpu to cpu', m.weight is w0))
    s = T.nn.Sequential(T.nn.Linear(2, 3, device='meta'))
    s.to_empty(device='cpu', recurse=False)
    out.append(('recurse=False', str(s[0].weight.device)))
    bn = T.nn.BatchNorm1d(3, device='meta')
    b0 = bn.running_mean
    bn.to_empty(device='cpu')
    out.append(('buffers', bn.running_mean is b0, tuple(bn.running_mean.shape), str(bn.num_batches_tracked.dtype),
                str(bn.num_batches_tracked.device)))
    m = T.nn.LazyLinear(3)
    m.to('meta')
    out.append(('lazy to meta', type(m.weight).__name__, str(m.weight.device)))
    return out


def test_apply_and_to_empty_onto_and_off_meta():
    a, b = apply_story(litnn), apply_story(torch)
    assert [str(v).replace('litnn', 'torch') for v in a] == [str(v) for v in b]


def test_optimizer_holds_old_parameters_after_to_empty():
    for T in (litnn, torch):
        m = T.nn.Linear(2, 3, device='meta')
        opt = T.optim.SGD(m.parameters(), lr=0.1)
        m.to_empty(device='cpu')
        assert opt.param_groups[0]['params'][0] is not m.weight
        assert opt.param_groups[0]['params'][0].device.type == 'meta'

"""functional_call (litnn.func and nn.utils.stateless) against torch's on the same modules and weights (32_functional_call)."""
import warnings
import numpy as np
import pytest
import litnn
from litnn.nn.utils.stateless import _functional_call, _reparametrize_module
torch = pytest.importorskip('torch')
import torch.func

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])


def twin(make):
    "The same module in litnn and torch, with torch's weights copied from litnn's."
    litnn.manual_seed(0)
    m, t = make(litnn), make(torch)
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    return m, t


def arr(t): return t.detach().cpu().numpy()


def mlp(T): return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))


class Tied:
    "A module with a tied weight, in either library."
    def __new__(cls, T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.enc, self.dec = T.nn.Linear(2, 2, bias=False), T.nn.Linear(2, 2, bias=False)
                self.dec.weight = self.enc.weight
                self.register_buffer('scale', T.ones(()))
            def forward(self, x): return self.dec(self.enc(x)) * self.scale
        return M()


def test_values_and_gradients_against_torch():
    m, t = twin(mlp)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype('float32')
    new = {k: (v.detach() * 0.5).requires_grad_() for k, v in m.named_parameters()}
    tnew = {k: torch.tensor(arr(v)).requires_grad_() for k, v in new.items()}
    out = litnn.func.functional_call(m, new, litnn.tensor(x))
    tout = torch.func.functional_call(t, tnew, torch.tensor(x))
    np.testing.assert_allclose(arr(out), arr(tout), rtol=1e-5, atol=1e-6)
    out.pow(2).sum().backward(); tout.pow(2).sum().backward()
    for k in new: np.testing.assert_allclose(arr(new[k].grad), arr(tnew[k].grad), rtol=1e-5, atol=1e-6)
    assert all(p.grad is None for p in m.parameters())               # the module's own parameters took no part
    assert all(isinstance(p, litnn.nn.Parameter) for p in m.parameters())


def test_module_untouched_after_call_and_after_an_error():
    m, _ = twin(mlp)
    before = {k: v for k, v in m.named_parameters()}
    values = {k: v.detach().clone() for k, v in m.state_dict().items()}
    litnn.func.functional_call(m, {'0.weight': litnn.zeros(4, 3)}, litnn.ones(1, 3))
    with pytest.raises(RuntimeError):
        litnn.func.functional_call(m, {'0.weight': litnn.zeros(5, 5), '2.bias': litnn.zeros(2)}, litnn.ones(1, 3))
    with pytest.raises(ZeroDivisionError):
        class Boom(litnn.nn.Module):
            def forward(self, x): return 1 / 0
        m.add_module('boom', Boom())
        litnn.func.functional_call(m, {'0.weight': litnn.zeros(4, 3)}, litnn.ones(1, 3))
    del m.boom
    for k, v in m.named_parameters():
        assert v is before[k]
        np.testing.assert_array_equal(arr(v), arr(values[k]))


def test_a_failing_swap_is_undone():
    m, _ = twin(mlp)
    w = m[0].weight
    with pytest.raises(AttributeError, match="Sequential has no attribute `9`"):
        litnn.func.functional_call(m, {'0.weight': litnn.zeros(4, 3), '9.weight': litnn.zeros(1)}, litnn.ones(1, 3))
    assert m[0].weight is w
    with pytest.raises(TypeError, match="is not an instance of torch.Tensor"):
        litnn.func.functional_call(m, {'0.weight': 3.0}, litnn.ones(1, 3))


def test_new_names_are_removed_again():
    m, _ = twin(mlp)
    class UsesExtra(litnn.nn.Module):
        def forward(self, x): return x * self.extra
    u = UsesExtra()
    out = litnn.func.functional_call(u, {'extra': litnn.tensor(3.)}, litnn.ones(2))
    assert out.tolist() == [3., 3.] and not hasattr(u, 'extra')


@pytest.mark.parametrize('strict', [False, True])
def test_strict_as_torch(strict):
    m, t = twin(mlp)
    given = {'0.weight': np.zeros((4, 3), 'float32'), 'extra': np.zeros(1, 'float32')}
    def run(T, mod):
        return T.func.functional_call(mod, {k: T.tensor(v) for k, v in given.items()}, T.ones(1, 3), strict=strict)
    if not strict:
        np.testing.assert_allclose(arr(run(litnn, m)), arr(run(torch, t)), rtol=1e-6)
        return
    with pytest.raises(RuntimeError) as te: run(torch, t)
    with pytest.raises(RuntimeError) as le: run(litnn, m)
    assert str(le.value) == str(te.value)


def test_tied_weights_as_torch():
    m, t = Tied(litnn), Tied(torch)
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    w = np.array([[2., 0.], [1., 3.]], 'float32')
    x = np.array([[1., 2.]], 'float32')
    for tie in (True, False):
        ours = litnn.func.functional_call(m, {'enc.weight': litnn.tensor(w)}, litnn.tensor(x), tie_weights=tie)
        theirs = torch.func.functional_call(t, {'enc.weight': torch.tensor(w)}, torch.tensor(x), tie_weights=tie)
        np.testing.assert_allclose(arr(ours), arr(theirs), rtol=1e-6)
    with pytest.raises(ValueError) as te:
        torch.func.functional_call(t, {'enc.weight': torch.tensor(w), 'dec.weight': torch.tensor(w)}, torch.tensor(x))
    with pytest.raises(ValueError) as le:
        litnn.func.functional_call(m, {'enc.weight': litnn.tensor(w), 'dec.weight': litnn.tensor(w)}, litnn.tensor(x))
    assert str(le.value) == str(te.value)
    same = litnn.tensor(w)      # the same tensor for both tied names is fine
    litnn.func.functional_call(m, {'enc.weight': same, 'dec.weight': same}, litnn.tensor(x))


def test_buffers_and_in_forward_updates_as_torch():
    m, t = twin(lambda T: T.nn.BatchNorm1d(3))
    x = np.random.default_rng(1).standard_normal((6, 3)).astype('float32')
    state = {k: litnn.tensor(v.numpy().copy()) for k, v in m.named_buffers()}
    tstate = {k: torch.tensor(v.numpy().copy()) for k, v in m.named_buffers()}
    out = litnn.func.functional_call(m, state, litnn.tensor(x))
    tout = torch.func.functional_call(t, tstate, torch.tensor(x))
    np.testing.assert_allclose(arr(out), arr(tout), rtol=1e-5, atol=1e-6)
    for k in state: np.testing.assert_allclose(arr(state[k]), arr(tstate[k]), rtol=1e-6)
    np.testing.assert_array_equal(m.running_mean.numpy(), np.zeros(3, 'float32'))
    assert int(m.num_batches_tracked) == 0


def test_args_kwargs_forms():
    class K(litnn.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = litnn.nn.Parameter(litnn.ones(2))
        def forward(self, x, y=None, *, z=1.): return x * self.w + (0 if y is None else y) * z
    k, w = K(), {'w': litnn.tensor([2., 3.])}
    assert litnn.func.functional_call(k, w, litnn.ones(2)).tolist() == [2., 3.]
    assert litnn.func.functional_call(k, w, (litnn.ones(2), litnn.ones(2))).tolist() == [3., 4.]
    assert litnn.func.functional_call(k, w, (litnn.ones(2),), {'y': litnn.ones(2), 'z': 2.}).tolist() == [4., 5.]
    assert litnn.func.functional_call(k, w, None, {'x': litnn.ones(2)}).tolist() == [2., 3.]


def test_stateless_functional_call_is_deprecated():
    m, t = twin(mlp)
    x = litnn.ones(1, 3)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated") as rec:
        out = litnn.nn.utils.stateless.functional_call(m, dict(m.named_parameters()), x)
    with pytest.warns(FutureWarning) as trec:
        torch.nn.utils.stateless.functional_call(t, dict(t.named_parameters()), torch.ones(1, 3))
    assert str(rec[0].message) == str(trec[0].message)
    np.testing.assert_allclose(arr(out), arr(m(x)))


def test_data_parallel_refused():
    m, _ = twin(mlp)
    dp = litnn.nn.DataParallel(m)
    with pytest.raises(RuntimeError, match="can't be used with nn.DataParallel"): litnn.func.functional_call(dp, {}, litnn.ones(1, 3))


def test_reparametrize_module_context():
    m, _ = twin(mlp)
    w0, z = m[0].weight, litnn.zeros(4, 3)
    with _reparametrize_module(m, {'0.weight': z}):
        assert m[0].weight is z and dict(m.named_parameters())['0.weight'] is z
    assert m[0].weight is w0


@pytest.mark.parametrize('device', DEVICES)
def test_on_device(device):
    m, t = twin(mlp)
    m.to(device)
    x = litnn.ones(2, 3, device=device)
    params = {k: v * 2 for k, v in m.named_parameters()}
    out = litnn.func.functional_call(m, params, x)
    assert out.device.type == device
    tout = torch.func.functional_call(t, {k: v * 2 for k, v in t.named_parameters()}, torch.ones(2, 3))
    np.testing.assert_allclose(arr(out), arr(tout), rtol=1e-5, atol=1e-6)

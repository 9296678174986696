"""Parametrizations side by side with torch 2.13: register_parametrization (stacked, right_inverse, unsafe,
cached), remove_parametrizations, the class swap, reprs, state_dict keys and values, loading torch's state_dicts,
outputs and gradients, errors; weight_norm, spectral_norm (given the same u, v) and orthogonal (given the same
original) from nn.utils.parametrizations, and the hook-based nn.utils.weight_norm / spectral_norm."""
import copy, pickle, warnings

import numpy as np
import pytest

import litnn
from nn_pairs import err, norm

torch = pytest.importorskip('torch')
LIBS = (litnn, torch)


def arr(t): return t.detach().cpu().numpy() if hasattr(t, 'detach') else np.asarray(t)


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(arr(a), arr(b), rtol=rtol, atol=atol)


def put(lt, tt):
    "Give litnn tensor `lt` torch tensor `tt`'s values."
    lt.data = litnn.tensor(arr(tt).copy())


def same_weights(lm, tm):
    "Copy every parameter and buffer of torch module `tm` into litnn module `lm` (same names)."
    tsd = tm.state_dict()
    for k, v in lm.state_dict(keep_vars=True).items(): put(v, tsd[k])


def pair(make, dtype='float32', seed=0):
    "The module `make(lib)` in both libraries with torch's initial values."
    torch.manual_seed(seed)
    tm = make(torch).to(getattr(torch, dtype))
    lm = make(litnn).to(getattr(litnn, dtype))
    same_weights(lm, tm)
    return lm, tm


def parametrizations(lib):
    nn = lib.nn
    class Symmetric(nn.Module):
        def forward(self, X): return X.triu() + X.triu(1).mT
        def right_inverse(self, A): return A.triu()
    class NoInverse(nn.Module):
        def forward(self, X): return X * 2
    class Scale(nn.Module):
        def __init__(self, s): super().__init__(); self.s = s
        def forward(self, X): return X * self.s
        def right_inverse(self, X): return X / self.s
    class Skew(nn.Module):
        def forward(self, X): return X - X.mT
    class Cut(nn.Module):      # changes the shape
        def forward(self, X): return X[:, :2]
    class ToDouble(nn.Module): # changes the dtype
        def forward(self, X): return X.double()
    class Split(nn.Module):    # two originals
        def forward(self, A, B): return A + B
        def right_inverse(self, X): return X / 2, X / 2
    return dict(Symmetric=Symmetric, NoInverse=NoInverse, Scale=Scale, Skew=Skew, Cut=Cut, ToDouble=ToDouble, Split=Split)


def P(lib): return lib.nn.utils.parametrize


def outputs_and_grads(lm, tm, x):
    "Forward and backward on both: output, and the gradient of every parameter by name."
    outs = []
    for m, lib in ((lm, litnn), (tm, torch)):
        xx = lib.tensor(x)
        y = m(xx)
        (y * y).sum().backward()
        outs.append((y, {n: p.grad for n, p in m.named_parameters()}))
    (yl, gl), (yt, gt) = outs
    assert list(gl) == list(gt)
    return yl, yt, gl, gt


def assert_same_run(lm, tm, x, rtol=1e-5, atol=1e-6):
    yl, yt, gl, gt = outputs_and_grads(lm, tm, x)
    close(yl, yt, rtol, atol)
    for n in gl: close(gl[n], gt[n], rtol, atol)


def assert_same_state(lm, tm, rtol=1e-6, atol=1e-7):
    ls, ts = lm.state_dict(), tm.state_dict()
    assert list(ls) == list(ts)
    for k in ls: close(ls[k], ts[k], rtol, atol)


X = np.random.default_rng(0).standard_normal((2, 3))


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_register_repr_state_dict_outputs_grads(dtype):
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 3), dtype)
    for m, lib in ((lm, litnn), (tm, torch)): P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
    assert repr(lm) == repr(tm) and type(lm).__name__ == 'ParametrizedLinear'
    assert_same_state(lm, tm)
    close(lm.weight, tm.weight)
    assert_same_run(lm, tm, X.astype(dtype))
    assert [n for n, _ in lm.named_parameters()] == ['bias', 'parametrizations.weight.original']
    assert P(litnn).is_parametrized(lm) and P(litnn).is_parametrized(lm, 'weight') and not P(litnn).is_parametrized(lm, 'bias')
    assert P(litnn).type_before_parametrizations(lm) is litnn.nn.Linear


def test_stacked_and_assignment_through_right_inverse():
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 3))
    for m, lib in ((lm, litnn), (tm, torch)):
        ps = parametrizations(lib)
        P(lib).register_parametrization(m, 'weight', ps['Symmetric']())
        P(lib).register_parametrization(m, 'weight', ps['Scale'](3.0))
        m.weight = lib.tensor([[1., 2., 3.], [2., 4., 5.], [3., 5., 6.]])
    assert repr(lm) == repr(tm)
    assert_same_state(lm, tm)
    close(lm.weight, [[1., 2., 3.], [2., 4., 5.], [3., 5., 6.]])
    assert_same_run(lm, tm, X.astype('float32'))


def test_the_parameter_object_becomes_original():
    for lib in LIBS:
        m = lib.nn.Linear(2, 2); w = m.weight
        P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
        assert m.parametrizations.weight.original is w


def test_several_originals():
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 2))
    for m, lib in ((lm, litnn), (tm, torch)): P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Split']())
    assert_same_state(lm, tm)
    assert list(lm.state_dict()) == ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    assert_same_run(lm, tm, X.astype('float32'))
    for m, lib in ((lm, litnn), (tm, torch)): P(lib).remove_parametrizations(m, 'weight')
    assert_same_state(lm, tm)
    assert type(lm.weight) is litnn.nn.Parameter


def test_buffer_parametrized():
    for lib in LIBS:
        m = lib.nn.BatchNorm1d(3)
        P(lib).register_parametrization(m, 'running_var', parametrizations(lib)['Scale'](2.0))
    ls, ts = litnn.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    for m, lib in ((ls, litnn), (ts, torch)): P(lib).register_parametrization(m, 'running_var', parametrizations(lib)['Scale'](2.0))
    assert list(ls.state_dict()) == list(ts.state_dict())
    close(ls.running_var, ts.running_var)
    assert ls.parametrizations.running_var.original.requires_grad is False


def test_unsafe_allows_shape_and_dtype_changes():
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 2))
    for m, lib in ((lm, litnn), (tm, torch)): P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Cut'](), unsafe=True)
    assert tuple(lm.weight.shape) == tuple(tm.weight.shape) == (2, 2)
    assert lm.parametrizations.weight.unsafe is True
    for lib in LIBS:
        m = lib.nn.Linear(2, 2)
        P(lib).register_parametrization(m, 'weight', parametrizations(lib)['ToDouble'](), unsafe=True)
        assert str(m.weight.dtype).split('.')[-1] == 'float64'


@pytest.mark.parametrize('leave', [True, False])
def test_remove_parametrizations(leave):
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 3))
    for m, lib in ((lm, litnn), (tm, torch)):
        P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
        P(lib).register_parametrization(m, 'bias', parametrizations(lib)['Scale'](2.0))
        P(lib).remove_parametrizations(m, 'weight', leave_parametrized=leave)
    assert repr(lm) == repr(tm) and type(lm).__name__ == 'ParametrizedLinear'
    assert_same_state(lm, tm)
    for m, lib in ((lm, litnn), (tm, torch)): P(lib).remove_parametrizations(m, 'bias', leave_parametrized=leave)
    assert type(lm) is litnn.nn.Linear and not hasattr(lm, 'parametrizations')
    assert repr(lm) == repr(tm)
    assert_same_state(lm, tm)
    assert_same_run(lm, tm, X.astype('float32'))


def test_cached():
    for lib in LIBS:
        calls = []
        class Counting(lib.nn.Module):
            def forward(self, X): calls.append(1); return X
        m = P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', Counting())
        calls.clear()
        with P(lib).cached():
            with P(lib).cached(): a = m.weight
            b = m.weight
            m(lib.ones(1, 2))
        assert len(calls) == 1 and a is b
        m.weight; m.weight
        assert len(calls) == 3


def test_hooks_and_apply_through_parametrized_modules():
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 3))
    seen = {}
    for m, lib in ((lm, litnn), (tm, torch)):
        P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
        m.register_forward_hook(lambda mod, args, out, lib=lib: seen.update({lib.__name__: type(mod).__name__}))
        m.double()
    assert seen == {} and str(lm.parametrizations.weight.original.dtype) == 'litnn.float64'
    assert_same_run(lm, tm, X)
    assert seen == {'litnn': 'ParametrizedLinear', 'torch': 'ParametrizedLinear'}
    lm.to(litnn.float32)
    assert lm.weight.dtype == litnn.float32 and lm.parametrizations.weight.original.dtype == litnn.float32


def test_deepcopy_and_pickle():
    m = P(litnn).register_parametrization(litnn.nn.Linear(2, 2), 'weight', parametrizations(litnn)['Symmetric']())
    c = copy.deepcopy(m)
    assert type(c).__name__ == 'ParametrizedLinear' and type(c) is type(m)
    close(c.weight, m.weight)
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    t = P(torch).register_parametrization(torch.nn.Linear(2, 2), 'weight', parametrizations(torch)['Symmetric']())
    assert err(pickle.dumps, m) == err(pickle.dumps, t)


def test_load_torch_saved_state_dict(tmp_path):
    lm, tm = pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2), lib.nn.Linear(2, 4)), seed=1)
    for m, lib in ((lm, litnn), (tm, torch)):
        P(lib).register_parametrization(m[0], 'weight', parametrizations(lib)['Symmetric']())
        lib.nn.utils.parametrizations.weight_norm(m[2])
        lib.nn.utils.parametrizations.spectral_norm(m[3])
    with torch.no_grad():
        for p in tm.parameters(): p.add_(0.5)
    torch.save(tm.state_dict(), tmp_path / 'p.pt')
    lm.load_state_dict(litnn.load(tmp_path / 'p.pt'))
    assert_same_state(lm, tm)
    assert_same_run(lm, tm, X.astype('float32'), 1e-4, 1e-5)
    assert_same_state(lm, tm, 1e-4, 1e-6)     # the power iteration moved u, v the same way


def test_full_backward_hooks_on_parametrized_modules():
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 3))
    got = {}
    for m, lib in ((lm, litnn), (tm, torch)):
        P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
        m.register_full_backward_hook(lambda mod, gi, go, lib=lib: got.update({lib.__name__: (gi[0], go[0])}))
        x = lib.tensor(X.astype('float32'), requires_grad=True)
        m(x).pow(2).sum().backward()
    for a, b in zip(got['litnn'], got['torch']): close(a, b)


def test_torch_reads_litnn_state_dict():
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 3), seed=2)
    for m, lib in ((lm, litnn), (tm, torch)): P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
    with litnn.no_grad(): lm.parametrizations.weight.original.mul_(3)
    tm.load_state_dict({k: torch.tensor(arr(v)) for k, v in lm.state_dict().items()})
    close(tm.weight, lm.weight)


def test_transfer_parametrizations_and_params():
    for lib in LIBS:
        a = P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', parametrizations(lib)['Symmetric']())
        b = P(lib).transfer_parametrizations_and_params(a, lib.nn.Linear(2, 2))
        assert type(b).__name__ == 'ParametrizedLinear'
        assert b.parametrizations.weight.original is a.parametrizations.weight.original


def errors(f):
    "The exception of `f(lib)` in both libraries, as (type, message)."
    return [err(lambda: f(lib)) for lib in LIBS]


ERRORS = dict(
    missing_tensor=lambda lib: P(lib).register_parametrization(lib.nn.Linear(2, 2), 'nope', parametrizations(lib)['Skew']()),
    shape=lambda lib: P(lib).register_parametrization(lib.nn.Linear(3, 2), 'weight', parametrizations(lib)['Cut']()),
    dtype=lambda lib: P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', parametrizations(lib)['ToDouble']()),
    stacked_shape=lambda lib: P(lib).register_parametrization(
        P(lib).register_parametrization(lib.nn.Linear(3, 2), 'weight', parametrizations(lib)['Scale'](2.)), 'weight', parametrizations(lib)['Cut']()),
    stacked_dtype=lambda lib: P(lib).register_parametrization(
        P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', parametrizations(lib)['Scale'](2.)), 'weight', parametrizations(lib)['ToDouble']()),
    remove_missing=lambda lib: P(lib).remove_parametrizations(lib.nn.Linear(2, 2), 'weight'),
    no_right_inverse=lambda lib: setattr(P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', parametrizations(lib)['NoInverse']()), 'weight', lib.ones(2, 2)),
    leave_unparametrized_sequence=lambda lib: P(lib).remove_parametrizations(
        P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', parametrizations(lib)['Split']()), 'weight', leave_parametrized=False),
    empty_list=lambda lib: P(lib).ParametrizationList([], lib.ones(2)),
    set_param_on_property=lambda lib: setattr(P(lib).register_parametrization(lib.nn.Linear(2, 2), 'weight', parametrizations(lib)['Symmetric']()),
                                              'weight', lib.nn.Parameter(lib.ones(2, 2))),
)


@pytest.mark.parametrize('name', list(ERRORS))
def test_errors_as_torch(name):
    lerr, terr = errors(ERRORS[name])
    assert lerr[0] is terr[0]
    if name == 'missing_tensor': assert lerr[1].startswith("Module 'Linear(in_features=2") and terr[1].endswith("name 'nope'") and lerr[1].endswith("name 'nope'")
    else: assert lerr[1] == terr[1]


# --- nn.utils.parametrizations -------------------------------------------------------------------------------

@pytest.mark.parametrize('dim', [0, 1, None])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_weight_norm(dim, dtype):
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 4), dtype)
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
    assert repr(lm) == repr(tm)
    assert_same_state(lm, tm, rtol=1e-5)
    assert_same_run(lm, tm, X.astype(dtype))


def test_weight_norm_conv_and_old_keys():
    lm, tm = pair(lambda lib: lib.nn.Conv2d(2, 3, 3))
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.parametrizations.weight_norm(m)
    assert_same_state(lm, tm, rtol=1e-5)
    x = np.random.default_rng(1).standard_normal((1, 2, 5, 5)).astype('float32')
    assert_same_run(lm, tm, x, rtol=1e-4, atol=1e-5)
    # a checkpoint of the hook-based weight_norm loads into the parametrized module
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        old = torch.nn.utils.weight_norm(torch.nn.Conv2d(2, 3, 3))
    sd = {k: litnn.tensor(arr(v)) for k, v in old.state_dict().items()}
    lm.load_state_dict(sd); tm.load_state_dict(old.state_dict())
    assert_same_state(lm, tm)


@pytest.mark.parametrize('make,dim', [(lambda lib: lib.nn.Linear(5, 4), None), (lambda lib: lib.nn.Conv2d(2, 3, 3), None),
                                      (lambda lib: lib.nn.ConvTranspose2d(2, 3, 3), None), (lambda lib: lib.nn.Linear(5, 4), 1)])
def test_spectral_norm_given_the_same_u_v(make, dim):
    lm, tm = pair(make)
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=2, dim=dim)
    assert repr(lm) == repr(tm)
    assert list(lm.state_dict()) == list(tm.state_dict())
    same_weights(lm, tm)          # the random u, v too
    shape = (2, 5) if isinstance(tm, torch.nn.Linear) else (1, 2, 5, 5)
    x = np.random.default_rng(2).standard_normal(shape).astype('float32')
    for _ in range(3): assert_same_run(lm, tm, x, rtol=1e-4, atol=1e-5)   # training: each call iterates
    assert_same_state(lm, tm, rtol=1e-4, atol=1e-6)
    lm.eval(); tm.eval()
    assert_same_run(lm, tm, x, rtol=1e-4, atol=1e-5)
    assert_same_state(lm, tm, rtol=1e-4, atol=1e-6)


def test_spectral_norm_converges_and_errors():
    litnn.manual_seed(0)
    m = litnn.nn.utils.parametrizations.spectral_norm(litnn.nn.Linear(6, 5))
    for _ in range(20): m(litnn.ones(1, 6))
    close(litnn.linalg.matrix_norm(m.weight.detach(), ord=2), 1.0, rtol=1e-4)
    v = litnn.nn.utils.parametrizations.spectral_norm(litnn.nn.Embedding(3, 1), name='weight')
    assert v.weight.shape == (3, 1)
    for f in [lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), name='nope'),
              lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0),
              lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=2)]:
        (lt, lmsg), (tt, tmsg) = errors(f)
        assert lt is tt and lmsg.split("'")[0] == tmsg.split("'")[0]


def orthogonal_pair(shape, kind, triv=True, dtype='float64'):
    make = lambda lib: lib.nn.Linear(shape[1], shape[0], bias=False)
    lm, tm = pair(make, dtype)
    torch.manual_seed(3)
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=kind, use_trivialization=triv)
    assert list(lm.state_dict()) == list(tm.state_dict())
    same_weights(lm, tm)      # the original, and the base made from torch's random completion
    return lm, tm


@pytest.mark.parametrize('kind', ['matrix_exp', 'cayley', 'householder'])
@pytest.mark.parametrize('shape', [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_map_given_the_same_original(kind, shape):
    lm, tm = orthogonal_pair(shape, kind)
    close(lm.weight, tm.weight, 1e-10, 1e-12)
    Q = lm.weight if shape[0] >= shape[1] else lm.weight.mT
    close(Q.mT @ Q, np.eye(min(shape)), 1e-10, 1e-12)
    # move the original off the identity: the maps themselves (and their gradients) are compared
    rng = np.random.default_rng(4)
    step = rng.standard_normal(shape) * 0.3
    with torch.no_grad(): tm.parametrizations.weight.original.add_(torch.tensor(step))
    with litnn.no_grad(): lm.parametrizations.weight.original.add_(litnn.tensor(step))
    close(lm.weight, tm.weight, 1e-9, 1e-11)
    assert_same_run(lm, tm, rng.standard_normal((2, shape[1])), 1e-8, 1e-10)


@pytest.mark.parametrize('shape', [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_householder_without_trivialization(shape):
    lm, tm = orthogonal_pair(shape, 'householder', triv=False)
    close(lm.weight, tm.weight, 1e-10, 1e-12)
    # assignment runs right_inverse: geqrf, deterministic
    Q = np.linalg.qr(np.random.default_rng(5).standard_normal((max(shape), min(shape))))[0]
    Q = Q if shape[0] >= shape[1] else Q.T
    lm.weight = litnn.tensor(Q); tm.weight = torch.tensor(Q)
    assert_same_state(lm, tm, 1e-10, 1e-12)
    close(lm.weight, Q, 1e-10, 1e-12)
    assert_same_run(lm, tm, np.ones((1, shape[1])), 1e-8, 1e-10)


def test_orthogonal_float32_and_errors():
    lm, tm = orthogonal_pair((4, 4), 'matrix_exp', dtype='float32')
    assert lm.weight.dtype == litnn.float32
    assert_same_run(lm, tm, np.ones((1, 4), 'float32'), 1e-5, 1e-6)
    for f in [lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), orthogonal_map='nope'),
              lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), name='bias'),
              lambda lib: setattr(lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), use_trivialization=False), 'weight', lib.eye(2)),
              lambda lib: setattr(lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 2)), 'weight', lib.eye(3))]:
        (lt, lmsg), (tt, tmsg) = errors(f)
        assert lt is tt and norm(lmsg) == norm(tmsg).replace('torch.Size', 'litnn.Size')


# --- the hook-based versions ------------------------------------------------------------------------------------

@pytest.mark.parametrize('dim', [0, 1, None])
def test_legacy_weight_norm(dim):
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 4))
    for m, lib in ((lm, litnn), (tm, torch)):
        with pytest.warns(FutureWarning, match='is deprecated in favor of'): lib.nn.utils.weight_norm(m, dim=dim)
    assert list(lm.state_dict()) == list(tm.state_dict()) == ['bias', 'weight_g', 'weight_v']
    assert_same_state(lm, tm)
    assert type(lm.weight) is litnn.Tensor and [type(h).__name__ for h in lm._forward_pre_hooks.values()] == ['WeightNorm']
    assert_same_run(lm, tm, X.astype('float32'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert errors(lambda lib: lib.nn.utils.weight_norm(lm if lib is litnn else tm, dim=dim))[0][0] is RuntimeError
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.remove_weight_norm(m)
    assert_same_state(lm, tm)
    assert type(lm.weight) is litnn.nn.Parameter and not lm._forward_pre_hooks
    (lt, lmsg), (tt, tmsg) = errors(lambda lib: lib.nn.utils.remove_weight_norm(lm if lib is litnn else tm))
    assert lt is tt is ValueError and lmsg == tmsg


def test_legacy_spectral_norm_given_the_same_u_v():
    lm, tm = pair(lambda lib: lib.nn.Conv2d(2, 3, 3))
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.spectral_norm(m, n_power_iterations=2)
    assert list(lm.state_dict()) == list(tm.state_dict()) == ['bias', 'weight_orig', 'weight_u', 'weight_v']
    assert lm.state_dict()._metadata[''] == tm.state_dict()._metadata['']
    same_weights(lm, tm)
    x = np.random.default_rng(6).standard_normal((1, 2, 5, 5)).astype('float32')
    for _ in range(3): assert_same_run(lm, tm, x, 1e-4, 1e-5)
    assert_same_state(lm, tm, 1e-4, 1e-6)
    (lt, _), (tt, _) = errors(lambda lib: lib.nn.utils.spectral_norm(lm if lib is litnn else tm))
    assert lt is tt is RuntimeError
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.remove_spectral_norm(m)
    assert_same_state(lm, tm, 1e-4, 1e-6)
    assert not lm._state_dict_hooks and not lm._load_state_dict_pre_hooks   # torch leaves its load pre-hook
    lm.load_state_dict(lm.state_dict())


def test_legacy_spectral_norm_loads_version_0_checkpoints():
    # a tall weight: v is solved from W^T W, which is invertible only then
    lm, tm = pair(lambda lib: lib.nn.Linear(3, 4), 'float64')
    for m, lib in ((lm, litnn), (tm, torch)): lib.nn.utils.spectral_norm(m)
    same_weights(lm, tm)
    for m in (lm, tm): m(m.weight_orig.new_ones(1, 3))
    tsd = tm.state_dict()
    old = {k: v for k, v in tsd.items() if k != 'weight_v'}; old['weight'] = tm.weight.detach()
    from collections import OrderedDict
    old = OrderedDict(old); old._metadata = OrderedDict({'': {'version': 1}})   # no spectral_norm version: 0
    lold = OrderedDict((k, litnn.tensor(arr(v))) for k, v in old.items()); lold._metadata = OrderedDict({'': {'version': 1}})
    tm.load_state_dict(old); lm.load_state_dict(lold)
    assert_same_state(lm, tm, 1e-8, 1e-10)


# --- GPU ----------------------------------------------------------------------------------------------------------

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")
def test_parametrizations_on_gpu():
    out = {}
    for dev in ('cpu', 'cuda'):
        litnn.manual_seed(0)
        m = litnn.nn.Linear(4, 4)
        m.weight.data = litnn.tensor(np.linspace(-1, 1, 16, dtype='float32').reshape(4, 4))
        litnn.nn.utils.parametrizations.orthogonal(m, orthogonal_map='cayley')
        w = litnn.nn.utils.parametrizations.weight_norm(litnn.nn.Linear(4, 2))
        w.parametrizations.weight.original1.data = litnn.ones(2, 4)
        m.to(dev); w.to(dev)
        y = w(m(litnn.ones(1, 4, device=dev)))
        y.sum().backward()
        out[dev] = [arr(y), arr(m.parametrizations.weight.original.grad), arr(w.parametrizations.weight.original0.grad)]
    for a, c in zip(out['cpu'], out['cuda']): np.testing.assert_allclose(c, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('lib', [litnn, torch], ids=['litnn', 'torch'])
def test_orthogonal_on_top_of_another_parametrization_fails_as_torch(lib):
    "Its base is only set when orthogonal is the first parametrization: on top of another, reading the weight is torch's TypeError."
    m = lib.nn.Linear(4, 4)
    P(lib).register_parametrization(m, 'weight', parametrizations(lib)['Symmetric']())
    lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map='cayley')
    with pytest.raises(TypeError, match="unsupported operand type"): m.weight


@pytest.mark.parametrize('dim', [5, -3, 2])
def test_weight_norm_dim_out_of_range(dim):
    "torch's IndexError from norm_except_dim, before anything is registered (the module keeps its plain weight)."
    for lib in (torch, litnn):
        m = lib.nn.Linear(3, 3)
        with pytest.raises(IndexError, match=rf'Dimension out of range \(expected to be in range of \[-2, 1\], but got {dim}\)'):
            lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
        assert not hasattr(m, 'parametrizations') and type(m.weight) is lib.nn.Parameter


def test_norm_except_dim_negative_dim():
    v = np.arange(1., 7.).reshape(2, 3)
    for d in (-2, 0, 1, -1):
        np.testing.assert_allclose(litnn.norm_except_dim(litnn.tensor(v), 2, d).numpy(), torch.norm_except_dim(torch.tensor(v), 2, d).numpy())

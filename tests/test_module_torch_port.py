"""Module behaviours found by running PyTorch's own Module tests against litnn, side by side with torch:
`torch.__future__` (overwrite / swap on conversion and in load_state_dict), `torch.utils.swap_tensors`, rebinding the
global hook dictionaries, `torch.nn.modules.utils`, `Module.to`'s argument checks, `ipu`/`xpu`/`mtia`/`T_destination`,
complex `orthogonal` and `spectral_norm`, `set_` under no_grad, and `clip_grad_norm_` with inf gradients."""
import math, warnings
from collections import OrderedDict

import pytest

import litnn

torch = pytest.importorskip('torch')
LIBS = [litnn, torch]


@pytest.fixture(autouse=True)
def _switches_off():
    yield
    for lib in LIBS:
        lib.__future__.set_swap_module_params_on_conversion(False)
        lib.__future__.set_overwrite_module_params_on_conversion(False)


@pytest.mark.parametrize('lib', LIBS)
def test_future_switches_default_and_set(lib):
    f = lib.__future__
    assert (f.get_swap_module_params_on_conversion(), f.get_overwrite_module_params_on_conversion()) == (False, False)
    f.set_swap_module_params_on_conversion(True); f.set_overwrite_module_params_on_conversion(True)
    assert (f.get_swap_module_params_on_conversion(), f.get_overwrite_module_params_on_conversion()) == (True, True)


def _convert(lib, swap, overwrite):
    lib.__future__.set_swap_module_params_on_conversion(swap)
    lib.__future__.set_overwrite_module_params_on_conversion(overwrite)
    m = lib.nn.Linear(3, 2); w = m.weight; m.weight.grad = lib.ones(2, 3); g = m.weight.grad
    m.double()
    return (m.weight is w, m.weight.grad is g, str(w.dtype)[-7:], str(g.dtype)[-7:], str(m.weight.dtype)[-7:],
            str(m.weight.grad.dtype)[-7:], type(m.weight).__name__, m.weight.requires_grad)


@pytest.mark.parametrize('swap,overwrite', [(False, False), (False, True), (True, False), (True, True)])
def test_apply_honours_future_switches(swap, overwrite):
    assert _convert(litnn, swap, overwrite) == _convert(torch, swap, overwrite)


def test_swap_poisons_accumulate_grad():
    out = {}
    for lib in LIBS:
        lib.__future__.set_swap_module_params_on_conversion(True)
        m = lib.nn.Linear(2, 3); y = (m.weight * 2).sum()   # a graph that uses the leaf without saving it
        m.half()
        with pytest.raises(RuntimeError, match="Trying to execute AccumulateGrad node that was poisoned by swap_tensors"):
            y.backward()
        m(lib.randn(2, 2, dtype=lib.half)).sum().backward()
        out[lib] = (str(m.weight.grad.dtype)[-7:], tuple(m.weight.grad.shape))
    assert out[litnn] == out[torch]


def test_swap_tensors_side_by_side():
    import weakref
    res = {}
    for lib in LIBS:
        a, b = lib.nn.Parameter(lib.ones(2)), lib.zeros(3, dtype=lib.float64)
        a.grad = lib.full((2,), 7.); keep = a
        lib.utils.swap_tensors(a, b)
        res[lib] = (a is keep, type(a).__name__, a.tolist(), a.requires_grad, a.grad, type(b).__name__, b.tolist(), b.grad.tolist())
        t = lib.ones(1); r = weakref.ref(t)
        with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated with it"):
            lib.utils.swap_tensors(t, lib.ones(1))
    assert res[litnn] == res[torch]


@pytest.mark.parametrize('assign', [False, True])
def test_load_state_dict_swap(assign):
    res = {}
    for lib in LIBS:
        lib.manual_seed(0)
        lib.__future__.set_swap_module_params_on_conversion(True)
        m, src = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        with lib.no_grad(): src.weight.fill_(3.); src.bias.fill_(-1.)
        w = m.weight
        sd = {k: v.double() for k, v in src.state_dict().items()} if assign else src.state_dict()
        m.load_state_dict(sd, assign=assign)
        res[lib] = (m.weight is w, type(m.weight).__name__, m.weight.requires_grad, str(m.weight.dtype)[-7:], m.weight.tolist(),
                    m.weight.data_ptr() == src.weight.data_ptr())
    assert res[litnn] == res[torch]


def test_global_hook_dicts_rebound():
    res = {}
    for lib in LIBS:
        mod, calls = lib.nn.modules.module, []
        saved = mod._global_forward_hooks
        h = mod.register_module_forward_hook(lambda m, i, o: calls.append('old'))
        mod._global_forward_hooks = OrderedDict()
        try:
            lib.nn.Sigmoid()(lib.ones(2))
            mod.register_module_forward_hook(lambda m, i, o: calls.append('new'))
            lib.nn.Sigmoid()(lib.ones(2))
        finally: mod._global_forward_hooks = saved; h.remove()
        res[lib] = calls
    assert res[litnn] == res[torch] == ['new']


def test_nn_modules_utils():
    for lib in LIBS:
        u = lib.nn.modules.utils
        assert (u._single(5), u._pair(3), u._triple([1, 2, 3]), u._quadruple(0)) == ((5,), (3, 3), (1, 2, 3), (0, 0, 0, 0))
        assert u._reverse_repeat_tuple((1, 2, 3), 2) == (3, 3, 2, 2, 1, 1)
        assert u._list_with_default([None, 3], [8, 4, 5, 6]) == [5, 3]
        with pytest.raises(ValueError, match="Input dimension should be at least 3"): u._list_with_default([None, None], [4, 5])
    res = {}
    for lib in LIBS:
        sd = OrderedDict([("module.a", 1), ("module.b.c", 2), ("x", 3)])
        sd._metadata = OrderedDict([("", {}), ("module", {}), ("module.b", {}), ("other", {})])
        lib.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
        res[lib] = (list(sd.items()), list(sd._metadata))
    assert res[litnn] == res[torch]


TO_CASES = [(('cpu',), {'copy': True}), (('dev', True), {}), ((None, True), {}), (('dev', 'f32', True, True), {}),
            (('f32', False, False), {}), (('dev', 'f32', False), {'copy': False}), (([],), {}), (({},), {'non_blocking': True}),
            (('dev', 't'), {'non_blocking': True}), (('f32', 'cpu'), {}), (('dev', 'f32', 1), {}), (('cpu', 'cpu'), {}),
            ((), {'x': 1}), (('dev',), {'foo': 1}), (('f32', True), {}), (('dev', 'f32'), {}), (('t',), {}), ((None, None), {})]


def _to_outcome(lib, args, kw, target):
    conv = {'dev': lib.device('cpu'), 'f32': lib.float32, 't': lib.ones(1, dtype=lib.float64)}
    args = tuple(conv.get(a, a) if isinstance(a, str) else a for a in args)
    try: getattr(target(lib), 'to')(*args, **kw); return 'OK'
    except Exception as e:
        msg = str(e).replace('torch.', 'litnn.')
        return type(e).__name__, msg.split(', but expected')[0]


@pytest.mark.parametrize('args,kw', TO_CASES)
def test_module_to_argument_checks(args, kw):
    assert _to_outcome(litnn, args, kw, lambda lib: lib.nn.Linear(2, 2)) == _to_outcome(torch, args, kw, lambda lib: lib.nn.Linear(2, 2))


@pytest.mark.parametrize('args,kw', TO_CASES)
def test_tensor_to_argument_checks(args, kw):
    assert _to_outcome(litnn, args, kw, lambda lib: lib.ones(2)) == _to_outcome(torch, args, kw, lambda lib: lib.ones(2))


@pytest.mark.parametrize('name', ['ipu', 'xpu', 'mtia'])
def test_module_and_tensor_unavailable_devices(name):
    for target in (lambda lib: lib.nn.Linear(2, 2), lambda lib: lib.ones(1)):
        kinds = []
        for lib in LIBS:
            with pytest.raises((RuntimeError, AssertionError)) as e: getattr(target(lib), name)()
            kinds.append(e.type)
        assert kinds[0] is kinds[1]


def test_module_attributes_present():
    for n in ("ipu", "xpu", "mtia", "T_destination"):
        assert hasattr(litnn.nn.Module, n) and n in dir(litnn.nn.Linear(1, 1))
    assert repr(litnn.nn.Module.T_destination) == repr(torch.nn.Module.T_destination)


@pytest.mark.parametrize('kind', ['matrix_exp', 'cayley'])
@pytest.mark.parametrize('triv', [False, True])
@pytest.mark.parametrize('shape', [(4, 4), (5, 3), (3, 5)])
def test_orthogonal_complex_is_unitary(kind, triv, shape):
    litnn.manual_seed(0)
    m = litnn.nn.Linear(*shape, dtype=litnn.complex64)
    litnn.nn.utils.parametrizations.orthogonal(m, "weight", kind, use_trivialization=triv)
    X = m.weight.detach()
    if X.size(-2) < X.size(-1): X = X.mT
    assert (X.mH @ X - litnn.eye(X.size(-1), dtype=litnn.complex64)).abs().max().item() < 1e-4


def test_spectral_norm_complex_phase():
    res = {}
    for lib in LIBS:
        m = lib.nn.Linear(2, 2, dtype=lib.cfloat)
        with lib.no_grad():
            m.weight = lib.nn.Parameter(lib.diag(lib.tensor([0.3 + 0.4j, -1.0 + 0.5j], dtype=lib.cfloat)))
            lib.nn.utils.parametrizations.spectral_norm(m)
            res[lib] = [complex(z) for z in m.weight.diagonal().tolist()]
    assert all(abs(a - b) < 1e-5 for a, b in zip(res[litnn], res[torch]))


def test_set_under_no_grad():
    res = {}
    for lib in LIBS:
        w = lib.nn.Parameter(lib.arange(9.).reshape(3, 3))
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
            w.set_(w.detach().triu(1))
        with lib.no_grad(): w.set_(w.triu(1))
        res[lib] = (w.requires_grad, w.is_leaf, w.tolist())
    assert res[litnn] == res[torch]


def test_clip_grad_norm_inf_no_warning():
    res = {}
    for lib in LIBS:
        p = lib.ones(3, requires_grad=True); p.grad = lib.tensor([1.0, math.inf, 2.0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            n = lib.nn.utils.clip_grad_norm_([p], 1.0)
        res[lib] = (n.item(), [math.isnan(x) for x in p.grad.tolist()], [str(w.message) for w in caught])
    assert res[litnn] == res[torch]

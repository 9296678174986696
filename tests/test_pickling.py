"""pickle and copy.deepcopy of tensors, Parameters and modules, before and after backward, side by side with torch 2.13
(issue 14: "cannot pickle 'weakref.ReferenceType' object" after backward)."""
import copy, pickle
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')


def net(lib): return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3), lib.nn.ReLU(), lib.nn.Linear(3, 1))


def trained(lib, seed=0):
    "A small net (with BatchNorm buffers) after one forward/backward, and its input."
    m = net(lib)
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in m.parameters(): p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    x = lib.tensor(rng.standard_normal((4, 2)).astype(np.float32))
    m(x).pow(2).sum().backward()
    return m, x


def arr(t): return None if t is None else t.detach().cpu().numpy()


@pytest.mark.parametrize('op', ['pickle', 'deepcopy'])
@pytest.mark.parametrize('after_backward', [False, True])
def test_module_copies_like_torch(op, after_backward):
    def run(lib):
        m, x = trained(lib) if after_backward else (net(lib), None)
        if x is None:
            x = lib.ones(4, 2)
            with lib.no_grad():
                for p in m.parameters(): p.fill_(0.5)
        c = pickle.loads(pickle.dumps(m)) if op == 'pickle' else copy.deepcopy(m)
        out = [arr(c(x)), sorted(c.state_dict()), [arr(p.grad) is None for p in c.parameters()]]
        out.append(all(a is not b for a, b in zip(c.parameters(), m.parameters())))
        return out
    lit, tor = run(litnn), run(torch)
    assert np.allclose(lit[0], tor[0], atol=1e-6) and lit[1:] == tor[1:]


@pytest.mark.parametrize('kind', ['tensor', 'parameter', 'nonleaf', 'int'])
def test_tensor_pickle_like_torch(kind):
    def run(lib):
        if kind == 'int': t = lib.arange(5)
        else:
            leaf = lib.nn.Parameter(lib.ones(3)) if kind == 'parameter' else lib.ones(3, requires_grad=True)
            (leaf * lib.tensor([1., 2., 3.])).sum().backward()
            t = leaf * 2 if kind == 'nonleaf' else leaf
        if kind != 'nonleaf': t.label = ['x']
        b = pickle.loads(pickle.dumps(t))
        return (type(b).__name__, arr(b).tolist(), str(b.dtype).split('.')[-1], b.requires_grad, b.is_leaf, b.grad is None,
                getattr(b, 'label', None))
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('kind', ['tensor', 'parameter'])
def test_tensor_deepcopy_after_backward_like_torch(kind):
    "deepcopy keeps .grad on a plain tensor and drops it on a Parameter, as torch 2.13."
    def run(lib):
        t = lib.nn.Parameter(lib.ones(3)) if kind == 'parameter' else lib.ones(3, requires_grad=True)
        (t * lib.tensor([1., 2., 3.])).sum().backward()
        if kind == 'tensor': t.label = ['x']
        c = copy.deepcopy(t)
        shares = np.shares_memory(c.detach().numpy(), t.detach().numpy())
        return type(c).__name__, arr(c.grad) if c.grad is None else arr(c.grad).tolist(), getattr(c, 'label', None), shares
    assert run(litnn) == run(torch)


def test_deepcopy_of_a_non_leaf_raises_like_torch():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as e: copy.deepcopy(x * 2)
        return str(e.value)
    assert run(litnn) == run(torch)


def test_optimizer_and_training_continue_after_a_pickled_round_trip():
    "A model pickled after backward trains on, in another object, to the same weights as the original."
    m, x = trained(litnn)
    c = pickle.loads(pickle.dumps(m))
    for model in (m, c):
        opt = litnn.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad(); model(x).pow(2).sum().backward(); opt.step()
    assert all(np.array_equal(arr(a), arr(b)) for a, b in zip(m.parameters(), c.parameters()))


def test_module_setstate_fills_registries_of_old_pickles_like_torch():
    for lib in (litnn, torch):
        m = lib.nn.Module.__new__(lib.nn.Module)
        m.__setstate__({'training': True, '_parameters': {}, '_buffers': {}, '_modules': {}})
        assert m._forward_pre_hooks == {} and m._state_dict_hooks == {} and m._non_persistent_buffers_set == set()
        assert '_compiled_call_impl' not in lib.nn.Linear(1, 1).__getstate__()


def test_pickling_a_tensor_with_gradient_hooks_warns_as_torch():
    "A tensor's gradient hooks are not pickled or saved: torch warns (not for a Parameter, nor for an unserializable_hook)."
    import io, warnings
    def run(lib):
        from importlib import import_module
        hooks = import_module(f'{lib.__name__}.utils.hooks')
        x = lib.ones(1, requires_grad=True)
        before = x._backward_hooks
        x.register_hook(lambda g: g)
        q = lib.ones(1, requires_grad=True); q.register_hook(hooks.unserializable_hook(lambda g: g))
        p = lib.nn.Parameter(lib.ones(1)); p.register_hook(lambda g: g)
        y = x * 2; y.register_hook(lambda g: g)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            pickle.dumps(x); pickle.dumps(q); pickle.dumps(p); lib.save(x, io.BytesIO())
        msgs = [str(m.message).split(' at 0x')[0] for m in w]
        return before, len(x._backward_hooks), len(y._backward_hooks), msgs
    lit, tor = run(litnn), run(torch)
    assert lit == tor and lit[3] == ['backward hook <function test_pickling_a_tensor_with_gradient_hooks_warns_as_torch.'
                                     '<locals>.run.<locals>.<lambda>'] * 2, (lit, tor)


FUNCTIONS = ['tanh', 'add', 'matmul', 'zeros', 'sigmoid', 'nn.functional.relu', 'nn.functional.conv2d', 'linalg.norm', 'linalg.matmul',
             'special.erf', 'fft.fft']

def _function(lib, path):
    obj = lib
    for part in path.split('.'): obj = getattr(obj, part)
    return obj

@pytest.mark.parametrize('path', FUNCTIONS)
def test_public_functions_pickle_by_name_as_torchs(path):
    """`pickle.dumps(torch.tanh)` works (a module holding `self.act = torch.tanh` pickles): litnn's public functions are
    wrappers, named where they are published, so pickle finds the same object again; also once __torch_function__
    dispatch has wrapped them (a process run with a Tensor subclass), checked in a fresh process."""
    import pickle, subprocess, sys
    f = _function(litnn, path)
    assert pickle.loads(pickle.dumps(f)) is f
    code = ("import pickle, litnn\nclass T(litnn.Tensor): pass\n"
            f"f = litnn.{path}\nassert hasattr(f, '_dispatches_to')\nassert pickle.loads(pickle.dumps(f)) is f\nprint('ok')")
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    assert p.stdout.strip() == 'ok', p.stderr[-2000:]


def _slotted_classes(lib):
    # test_serialization.py's TestWrapperSubclass: a tensor subclass that keeps a tensor in a __slot__ (made at module level
    # of this file so that pickle finds it by name)
    class Wrapper(lib.Tensor):
        __slots__ = ['elem', 'other']

        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_subclass(cls, elem.to('meta'), elem.requires_grad)
            r.elem = elem
            return r

        def clone(self): return type(self)(self.elem.clone())
    return Wrapper


SlotWrapperTorch, SlotWrapperLitnn = _slotted_classes(torch), _slotted_classes(litnn)
SlotWrapperTorch.__qualname__, SlotWrapperLitnn.__qualname__ = 'SlotWrapperTorch', 'SlotWrapperLitnn'


def test_tensor_subclass_slots_survive_deepcopy_and_pickle_as_torch():
    # torch's Tensor.__deepcopy__ and __reduce_ex__ copy a subclass's set __slots__ (an unset one stays unset) and its __dict__
    out = []
    for lib, cls in ((torch, SlotWrapperTorch), (litnn, SlotWrapperLitnn)):
        t = cls(lib.ones(2))   # (a wrapper over a meta tensor, as the test's)
        t.foo = 'bar'
        row = []
        for new in (copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
            row.append((type(new) is cls, new.elem.tolist(), new.elem is not t.elem, hasattr(new, 'other'), new.foo, tuple(new.shape), str(new.device)))
        out.append(row)
    assert out[0] == out[1] and out[0][0][0]

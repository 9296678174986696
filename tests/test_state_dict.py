"""state_dict / load_state_dict side by side with torch: keys and their order, _metadata, keep_vars, extra state,
the error messages, strict / assign, dtype casts, every hook (order and arguments); and litnn's atomic load,
which torch does not have. Random module trees and random corruptions of their state dicts at the end."""
import copy, warnings
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from nn_pairs import err, exc, norm, same, stand_ins

torch = pytest.importorskip('torch')


# --- helpers ------------------------------------------------------------------------------------

def arr(t):
    "The values of tensor `t` as a numpy array (bfloat16 as float32), for either library."
    t = t.detach().cpu()
    return np.array((t.float() if 'bfloat16' in str(t.dtype) else t).numpy())

def convert(sd, lib):
    "A state dict of numpy arrays / python values as `lib` tensors (same order, same _metadata)."
    out = OrderedDict((k, lib.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in sd.items())
    if hasattr(sd, '_metadata'): out._metadata = copy.deepcopy(sd._metadata)
    return out

def as_numpy(sd):
    "A state dict with its tensors as numpy arrays (for moving weights from one library to the other)."
    out = OrderedDict((k, arr(v) if hasattr(v, 'detach') else v) for k, v in sd.items())
    if hasattr(sd, '_metadata'): out._metadata = copy.deepcopy(sd._metadata)
    return out

def snapshot(m):
    "Every parameter and buffer of `m` (persistent or not): the object and a copy of its values."
    return {k: (v, arr(v).copy()) for k, v in list(m.named_parameters(remove_duplicate=False)) + list(m.named_buffers(remove_duplicate=False))}

def unchanged(m, snap):
    now = snapshot(m)
    return list(now) == list(snap) and all(now[k][0] is snap[k][0] and np.array_equal(now[k][1], snap[k][1]) for k in snap)

def seeded(lib, m, seed=0):
    "Fill every float tensor of `m` with seeded random values and every int one with a counter, the same in both libs."
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for k, v in m.state_dict(keep_vars=True).items():
            if not hasattr(v, 'copy_'): continue
            a = rng.standard_normal(tuple(v.shape)) if v.is_floating_point() else np.arange(int(np.prod(v.shape))).reshape(tuple(v.shape)) + 3
            v.copy_(lib.tensor(np.asarray(a, dtype=np.float64 if v.is_floating_point() else np.int64)))
    return m

def load_err(m, sd, **kw):
    "The exception `m.load_state_dict(sd)` raises, as (type, message in litnn's names), or its result's repr."
    try: return 'ok', repr(m.load_state_dict(sd, **kw))
    except Exception as e: return exc(e)


# --- what state_dict produces -------------------------------------------------------------------

MODELS = {
    'Net': lambda S, lib: S.Net(),
    'Deep': lambda S, lib: S.Deep(),
    'Linear': lambda S, lib: S.Linear(3, 2),
    'Linear no bias': lambda S, lib: S.Linear(3, 2, bias=False),
    'Norm': lambda S, lib: S.Norm(4),
    'Module': lambda S, lib: lib.nn.Module(),
    'Sequential': lambda S, lib: lib.nn.Sequential(S.Linear(2, 2), S.Norm(2), lib.nn.Sequential(S.Linear(2, 1))),
    'ModuleList': lambda S, lib: lib.nn.ModuleList([S.Linear(1, 1), S.Net()]),
    'ModuleDict': lambda S, lib: lib.nn.ModuleDict({'enc': S.Linear(2, 2), 'dec': S.Norm(2)}),
    'ParameterList': lambda S, lib: lib.nn.ParameterList([lib.nn.Parameter(lib.zeros(2)), lib.nn.Parameter(lib.ones(1))]),
    'ParameterDict': lambda S, lib: lib.nn.ParameterDict({'b': lib.nn.Parameter(lib.zeros(2)), 'a': lib.nn.Parameter(lib.ones(1))}),
}

@pytest.mark.parametrize('model', list(MODELS))
def test_keys_order_metadata_like_torch(model):
    def run(lib):
        sd = MODELS[model](stand_ins(lib), lib).state_dict()
        return (type(sd).__name__, list(sd), [tuple(v.shape) for v in sd.values()], type(sd._metadata).__name__,
                list(sd._metadata.items()))
    same(run)


def test_non_persistent_and_none_excluded():
    def run(lib):
        m = stand_ins(lib).Net()
        m.register_buffer('nothing', None)
        m.register_parameter('empty', None)
        return list(m.state_dict())
    keys = same(run)
    assert 'norm.cache' not in keys and 'nothing' not in keys and 'empty' not in keys


@pytest.mark.parametrize('keep_vars', [False, True])
def test_keep_vars_like_torch(keep_vars):
    def run(lib):
        m = stand_ins(lib).Net()
        sd = m.state_dict(keep_vars=keep_vars)
        objs = dict(list(m.named_parameters()) + list(m.named_buffers()))
        return [(k, type(v).__name__, v.requires_grad, v is objs[k], v.is_leaf) for k, v in sd.items()]
    same(run)


def test_state_dict_shares_memory_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        sd = m.state_dict()
        with lib.no_grad():
            sd['fc1.weight'].add_(1.)
            m.norm.running_mean.add_(2.)
        return arr(m.fc1.weight).tolist(), arr(sd['norm.running_mean']).tolist()
    same(run)


def test_prefix_destination_positional():
    def run(lib):
        m = stand_ins(lib).Net()
        d = {}
        out = m.state_dict(destination=d, prefix='model.')
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            pos = m.fc1.state_dict(None, 'p.', True)
        return (out is d, list(d), hasattr(d, '_metadata'), list(pos), [x.category.__name__ for x in w],
                list(m.state_dict(prefix='x.')._metadata))
    same(run)


def test_version_in_metadata_like_torch():
    def run(lib):
        S = stand_ins(lib)
        class V(S.Linear): _version = 3
        m = lib.nn.Module(); m.v = V(1, 1); m.l = S.Linear(1, 1)
        return list(m.state_dict()._metadata.items())
    assert same(run)[1] == ('v', {'version': 3})


def extra_module(lib):
    class Extra(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.zeros(2))
            self.state = {'steps': 0, 'names': ['a']}
            self.child = stand_ins(lib).Linear(1, 1)
        def get_extra_state(self): return copy.deepcopy(self.state)
        def set_extra_state(self, state): self.state = state
    return Extra()

def test_extra_state_like_torch():
    def run(lib):
        m = extra_module(lib)
        m.state['steps'] = 5
        sd = m.state_dict()
        m2 = extra_module(lib)
        r = repr(m2.load_state_dict(sd))
        missing = load_err(extra_module(lib), {k: v for k, v in sd.items() if k != '_extra_state'})
        plain = stand_ins(lib).Linear(1, 1)
        unexpected = load_err(plain, {**plain.state_dict(), '_extra_state': 1})
        return list(sd), sd['_extra_state'], r, m2.state, missing, unexpected, load_err(plain, {**plain.state_dict(), '_extra_state': 1}, strict=False)
    same(run)


def test_extra_state_that_registers_a_module():
    "set_extra_state runs as the load walks (torch's order): a module it registers is loaded in turn, its keys expected."
    def run(lib):
        class M(lib.nn.Module):
            def __init__(self, foo): super().__init__(); self.foo = foo
            def get_extra_state(self): return self.foo
            def set_extra_state(self, state): self.foo = state
        m2 = M('something else')
        r = repr(m2.load_state_dict(M(M(3)).state_dict()))
        return r, list(m2._modules), m2.foo.foo
    same(run)


def test_default_extra_state_methods_raise():
    m = litnn.nn.Module()
    with pytest.raises(RuntimeError, match='should never be called'): m.get_extra_state()
    with pytest.raises(RuntimeError, match='should never be called'): m.set_extra_state(1)


# --- loading ------------------------------------------------------------------------------------

@pytest.mark.parametrize('model', list(MODELS))
def test_weights_move_from_torch_to_litnn_and_back(model):
    src = seeded(torch, MODELS[model](stand_ins(torch), torch), seed=1)
    dst = MODELS[model](stand_ins(litnn), litnn)
    keep = {k: v for k, v in dst.state_dict(keep_vars=True).items()}
    assert repr(dst.load_state_dict(convert(as_numpy(src.state_dict()), litnn))) == '<All keys matched successfully>'
    for (k, a), (k2, b) in zip(src.state_dict().items(), dst.state_dict(keep_vars=True).items()):
        assert k == k2 and b is keep[k] and str(a.dtype).split('.')[-1] == str(b.dtype).split('.')[-1]
        np.testing.assert_array_equal(arr(a), arr(b))
    back = MODELS[model](stand_ins(torch), torch)
    back.load_state_dict(convert(as_numpy(dst.state_dict()), torch))
    for (k, a), b in zip(src.state_dict().items(), back.state_dict().values()): np.testing.assert_array_equal(arr(a), arr(b))


CORRUPT = {
    'missing': lambda sd, lib: sd.pop('fc1.bias'),
    'missing many': lambda sd, lib: [sd.pop(k) for k in ['fc1.bias', 'norm.num_batches_tracked', 'fc2.weight']],
    'unexpected top': lambda sd, lib: sd.__setitem__('head.weight', lib.zeros(1)),
    'unexpected leaf': lambda sd, lib: sd.__setitem__('fc1.gamma', lib.zeros(1)),
    'unexpected root param': lambda sd, lib: sd.__setitem__('scale', lib.zeros(1)),
    'unexpected bias of no-bias': lambda sd, lib: sd.__setitem__('fc2.bias', lib.zeros(2)),
    'non-persistent given': lambda sd, lib: sd.__setitem__('norm.cache', lib.zeros(3)),
    'size mismatch': lambda sd, lib: sd.__setitem__('fc2.weight', lib.zeros(2, 5)),
    'size mismatch 0-d': lambda sd, lib: sd.__setitem__('norm.num_batches_tracked', lib.zeros(2)),
    'one-element for 0-d': lambda sd, lib: sd.__setitem__('norm.num_batches_tracked', lib.tensor([7])),
    'scalar shape mismatch': lambda sd, lib: sd.__setitem__('steps', lib.tensor(1.)),
    'list value': lambda sd, lib: sd.__setitem__('fc1.bias', [0., 0., 0.]),
    'numpy value': lambda sd, lib: sd.__setitem__('fc1.bias', np.zeros(3, np.float32)),
    'int value': lambda sd, lib: sd.__setitem__('steps', 3),
    'float64 values': lambda sd, lib: [sd.__setitem__(k, v.double()) for k, v in list(sd.items())],
    'float into int buffer': lambda sd, lib: sd.__setitem__('norm.num_batches_tracked', lib.tensor(3.7)),
    'int into float param': lambda sd, lib: sd.__setitem__('fc1.bias', lib.tensor([1, 2, 3])),
    'bool into float param': lambda sd, lib: sd.__setitem__('fc1.bias', lib.tensor([True, False, True])),
    'half values': lambda sd, lib: [sd.__setitem__(k, v.half()) for k, v in list(sd.items()) if v.is_floating_point()],
    'bfloat16 values': lambda sd, lib: [sd.__setitem__(k, v.bfloat16()) for k, v in list(sd.items()) if v.is_floating_point()],
    'everything wrong': lambda sd, lib: [sd.pop('fc1.bias'), sd.__setitem__('x.y', lib.zeros(1)), sd.__setitem__('fc2.weight', lib.zeros(1)),
                                         sd.__setitem__('norm.weight', 'w'), sd.__setitem__('z', lib.zeros(1))],
}

@pytest.mark.parametrize('strict', [True, False])
@pytest.mark.parametrize('corruption', list(CORRUPT))
def test_load_outcomes_and_messages_like_torch(corruption, strict):
    "Same result or same exception type and message; and litnn's model is untouched whenever it raises."
    def run(lib):
        sd = seeded(lib, stand_ins(lib).Net(), seed=2).state_dict()
        CORRUPT[corruption](sd, lib)
        m = stand_ins(lib).Net()
        snap = snapshot(m)
        out = load_err(m, sd, strict=strict)
        if out[0] != 'ok':   # torch is not atomic: its values after a failed load are half loaded
            assert unchanged(m, snap) or lib is torch
            return out
        values = {k: arr(v).tolist() for k, v in m.state_dict().items()}
        dts = {k: str(v.dtype).split('.')[-1] for k, v in m.state_dict().items()}
        return out, values, dts, [v is snap[k][0] for k, v in m.state_dict(keep_vars=True).items()]
    same(run)


def test_full_error_message_like_torch():
    def run(lib):
        sd = stand_ins(lib).Net().state_dict()
        CORRUPT['everything wrong'](sd, lib)
        return load_err(stand_ins(lib).Net(), sd)
    t, msg = same(run)
    assert t is RuntimeError and msg.startswith('Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "fc1.bias". \n\tUnexpected key(s)')
    assert msg.endswith('size mismatch for fc2.weight: copying a param with shape litnn.Size([1]) from checkpoint, '
                        'the shape in current model is litnn.Size([2, 3]).')
    assert msg.count('\n\t') == 4


def test_not_a_mapping_like_torch():
    same(lambda lib: err(stand_ins(lib).Net().load_state_dict, [('fc1.weight', lib.zeros(3, 4))]))


def test_incompatible_keys_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        sd = m.state_dict(); sd.pop('fc1.bias'); sd['extra'] = lib.zeros(1)
        k = m.load_state_dict(sd, strict=False)
        ok = m.load_state_dict(m.state_dict())
        return (repr(k), str(k), k.missing_keys, k.unexpected_keys, tuple(k) == (k.missing_keys, k.unexpected_keys),
                type(k).__name__, repr(ok), str(ok), ok == ([], []), k._fields)
    same(run)


def test_loaded_tensors_are_copies_parameters_kept():
    def run(lib):
        src, dst = seeded(lib, stand_ins(lib).Net(), 3), stand_ins(lib).Net()
        objs = [v for v in dst.state_dict(keep_vars=True).values()]
        sd = src.state_dict()
        dst.load_state_dict(sd)
        with lib.no_grad(): sd['fc1.weight'].add_(100.)
        return ([a is b for a, b in zip(objs, dst.state_dict(keep_vars=True).values())],
                bool((arr(dst.fc1.weight) == arr(src.fc1.weight)).any()), dst.fc1.weight.requires_grad, dst.fc1.weight.is_leaf)
    idents, shared, *_ = same(run)
    assert all(idents) and not shared


def test_load_keeps_requires_grad_and_grad():
    def run(lib):
        m = stand_ins(lib).Net()
        m.fc1.weight.requires_grad_(False)
        m.fc2.weight.grad = lib.ones(2, 3)
        m.load_state_dict(seeded(lib, stand_ins(lib).Net(), 4).state_dict())
        return m.fc1.weight.requires_grad, arr(m.fc2.weight.grad).tolist(), m.fc2.weight.grad_fn is None
    same(run)


# --- assign -------------------------------------------------------------------------------------

def test_assign_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        m.fc1.bias.requires_grad_(False)
        old = dict(m.state_dict(keep_vars=True))
        sd = {k: (v.double() if v.is_floating_point() else v.clone()) for k, v in seeded(lib, stand_ins(lib).Net(), 5).state_dict().items()}
        keys = repr(m.load_state_dict(sd, assign=True))
        new = m.state_dict(keep_vars=True)
        return (keys, [(k, type(v).__name__, str(v.dtype).split('.')[-1], v.requires_grad, v is old[k], v is sd[k],
                        np.shares_memory(arr(v), arr(sd[k])) if v.dtype == sd[k].dtype else None) for k, v in new.items()],
                [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], sorted(m.norm._non_persistent_buffers_set))
    same(run)


def test_assign_parameter_in_state_dict_gets_requires_grad_of_model():
    def run(lib):
        m = stand_ins(lib).Linear(2, 2)
        m.weight.requires_grad_(False)
        src = stand_ins(lib).Linear(2, 2)
        sd = src.state_dict(keep_vars=True)
        m.load_state_dict(sd, assign=True)
        return m.weight is src.weight, m.weight.requires_grad, src.weight.requires_grad, m.bias is src.bias
    assert same(run) == (True, False, False, True)


def test_assign_int_into_param_message_like_torch():
    def run(lib):
        sd = stand_ins(lib).Net().state_dict()
        sd['fc1.weight'] = lib.zeros(3, 4, dtype=lib.int64)
        m = stand_ins(lib).Net()
        snap = snapshot(m)
        return load_err(m, sd, assign=True), unchanged(m, snap)
    lit, tor = run(litnn), run(torch)
    assert lit[0] == (tor[0][0], norm(tor[0][1]))
    assert lit[0][0] is RuntimeError and 'While copying the parameter named "fc1.weight", whose dimensions in the model are litnn.Size([3, 4])' in lit[0][1]
    assert lit[1] is True


def test_assign_strict_false_size_mismatch():
    same(lambda lib: load_err(stand_ins(lib).Net(), {'fc1.weight': lib.zeros(1)}, strict=False, assign=True))


# --- atomic: litnn's guarantee, torch's lack of it ----------------------------------------------

def test_torch_is_not_atomic_litnn_is():
    "The same failing load: torch has already overwritten fc1 when it raises on fc2; litnn changed nothing."
    def run(lib):
        m = seeded(lib, stand_ins(lib).Net(), 0)
        sd = seeded(lib, stand_ins(lib).Net(), 1).state_dict()
        sd['fc2.weight'] = lib.zeros(5, 5)
        before = arr(m.fc1.weight).copy()
        out = load_err(m, sd)
        return out, bool(np.array_equal(arr(m.fc1.weight), before)), bool(np.array_equal(arr(m.fc1.weight), arr(sd['fc1.weight'])))
    lit, tor = run(litnn), run(torch)
    assert lit[0] == (tor[0][0], norm(tor[0][1]))           # same error
    assert lit[1:] == (True, False)                           # litnn: untouched
    assert tor[1:] == (False, True)                           # torch: half loaded


ATOMIC_CASES = {
    'size mismatch last': lambda sd, lib, m: sd.__setitem__('fc2.weight', lib.zeros(9)),
    'missing last': lambda sd, lib, m: sd.pop('fc2.weight'),
    'unexpected': lambda sd, lib, m: sd.__setitem__('zzz', lib.zeros(1)),
    'wrong type first': lambda sd, lib, m: sd.__setitem__('fc1.weight', None),
    'custom pre-hook error': lambda sd, lib, m: m.fc2.register_load_state_dict_pre_hook(
        lambda mod, sd_, prefix, md, strict, missing, unexpected, errors: errors.append('custom problem in ' + prefix)),
    'post-hook adds a missing key': lambda sd, lib, m: m.norm.register_load_state_dict_post_hook(
        lambda mod, keys: keys.missing_keys.append('norm.imaginary')),
    'post-hook raises': lambda sd, lib, m: m.register_load_state_dict_post_hook(lambda mod, keys: 1 / 0),
    'post-hook returns a value': lambda sd, lib, m: m.fc2.register_load_state_dict_post_hook(lambda mod, keys: keys),
    'post-hook present, key unexpected': lambda sd, lib, m: [m.register_load_state_dict_post_hook(lambda mod, keys: None),
                                                             sd.__setitem__('zzz', lib.zeros(1))],
}

@pytest.mark.parametrize('case', list(ATOMIC_CASES))
def test_failed_load_changes_nothing(case):
    "Whatever makes the load fail, every parameter and buffer is the same object with the same values; torch's error."
    def run(lib):
        m = seeded(lib, stand_ins(lib).Net(), 0)
        sd = seeded(lib, stand_ins(lib).Net(), 1).state_dict()
        ATOMIC_CASES[case](sd, lib, m)
        snap = snapshot(m)
        out = load_err(m, sd)
        return out, unchanged(m, snap)
    lit, tor = run(litnn), run(torch)
    assert lit[0][0] is tor[0][0] and lit[0][0] != 'ok'
    if lit[0][0] is RuntimeError: assert lit[0][1] == norm(tor[0][1])
    assert lit[1] is True
    assert tor[1] is False       # torch copied what it had checked before failing


def test_custom_load_from_state_dict_error_is_atomic():
    "A module overriding _load_from_state_dict (calling super) and adding its own error: nothing loaded anywhere."
    def build(lib):
        S = stand_ins(lib)
        class Strict(S.Linear):
            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)
                if (state_dict[prefix + 'weight'] == 0).all(): errors.append(f'{prefix}weight is all zeros')
        m = lib.nn.Sequential(S.Linear(2, 2), Strict(2, 2), S.Linear(2, 2))
        return seeded(lib, m, 0)
    def run(lib):
        m = build(lib)
        sd = seeded(lib, build(lib), 1).state_dict()
        with lib.no_grad(): sd['1.weight'].zero_()
        snap = snapshot(m)
        return load_err(m, sd), unchanged(m, snap)
    lit, tor = run(litnn), run(torch)
    assert lit[0] == (tor[0][0], norm(tor[0][1])) and lit[0][1].endswith('1.weight is all zeros')
    assert lit[1] is True and tor[1] is False


def test_extra_state_error_rolls_back_tensors():
    def build(lib):
        class Bad(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.zeros(2))
                self.after = stand_ins(lib).Linear(1, 1)
            def get_extra_state(self): return 0
            def set_extra_state(self, state):
                if state: raise ValueError('refused')
        return Bad()
    def run(lib):
        m = build(lib)
        sd = seeded(lib, build(lib), 1).state_dict(); sd['_extra_state'] = 1
        snap = snapshot(m)
        return err(m.load_state_dict, sd), unchanged(m, snap)
    lit, tor = run(litnn), run(torch)
    assert lit[0] == tor[0] == (ValueError, 'refused')
    assert lit[1] is True and tor[1] is False


def test_direct_load_from_state_dict_copies_at_once_like_torch():
    "Outside load_state_dict, _load_from_state_dict makes its changes at once, as torch's does."
    def run(lib):
        m, missing, unexpected, errors = stand_ins(lib).Linear(2, 1), [], [], []
        m._load_from_state_dict({'weight': lib.ones(1, 2), 'x': lib.zeros(1), 'bias': lib.zeros(3)}, '', {}, True, missing, unexpected, errors)
        return arr(m.weight).tolist(), missing, unexpected, [norm(e) for e in errors]
    same(run)


# --- hooks --------------------------------------------------------------------------------------

def hooked_tree(lib, calls):
    "Net with state_dict and load_state_dict hooks on several modules, each recording its call and arguments."
    m = stand_ins(lib).Net()
    for name, mod in [('root', m), ('fc1', m.fc1), ('norm', m.norm)]:
        mod.register_state_dict_pre_hook(lambda mod, prefix, keep_vars, n=name: calls.append(('sd pre', n, prefix, keep_vars)))
        mod.register_state_dict_post_hook(lambda mod, sd, prefix, md, n=name: calls.append(('sd post', n, prefix, list(sd), dict(md))))
        mod.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, md, strict, missing, unexpected, errors, n=name:
            calls.append(('load pre', n, prefix, list(sd), {k: v for k, v in md.items()}, strict, list(missing), list(unexpected), list(errors))))
        mod.register_load_state_dict_post_hook(
            lambda mod, keys, n=name: calls.append(('load post', n, type(keys).__name__, list(keys.missing_keys), list(keys.unexpected_keys))))
    return m

@pytest.mark.parametrize('keep_vars', [False, True])
def test_state_dict_hook_order_and_arguments_like_torch(keep_vars):
    def run(lib):
        calls = []
        hooked_tree(lib, calls).state_dict(keep_vars=keep_vars)
        return calls
    calls = same(run)
    assert [c[:2] for c in calls] == [('sd pre', 'root'), ('sd pre', 'fc1'), ('sd post', 'fc1'), ('sd pre', 'norm'),
                                      ('sd post', 'norm'), ('sd post', 'root')]


@pytest.mark.parametrize('assign', [False, True])
@pytest.mark.parametrize('strict', [False, True])
def test_load_hook_order_and_arguments_like_torch(strict, assign):
    def run(lib):
        calls = []
        m = hooked_tree(lib, calls)
        sd = seeded(lib, stand_ins(lib).Net(), 1).state_dict()
        sd.pop('fc2.weight'); sd['fc1.extra'] = lib.zeros(1)
        out = load_err(m, sd, strict=strict, assign=assign)
        return out, calls
    out, calls = same(run)
    assert [c[:2] for c in calls] == [('load pre', 'root'), ('load pre', 'fc1'), ('load post', 'fc1'),
                                      ('load pre', 'norm'), ('load post', 'norm'), ('load post', 'root')]


def test_load_hooks_with_metadata_like_torch():
    def run(lib):
        seen = []
        m = stand_ins(lib).Net()
        m.fc1.register_load_state_dict_pre_hook(lambda mod, sd, prefix, md, *a: seen.append(dict(md)))
        m.load_state_dict(m.state_dict())
        m.load_state_dict(dict(m.state_dict()))          # no _metadata
        m.load_state_dict(m.state_dict(), assign=True)
        return seen
    assert same(run) == [{'version': 1}, {}, {'version': 1, 'assign_to_params_buffers': True}]


def test_post_hook_clearing_keys_makes_strict_load_pass_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        def excuse(mod, keys):
            keys.missing_keys.clear(); keys.unexpected_keys.clear()
        m.register_load_state_dict_post_hook(excuse)
        sd = seeded(lib, stand_ins(lib).Net(), 1).state_dict()
        sd.pop('fc1.bias'); sd['junk'] = lib.zeros(1)
        return load_err(m, sd), arr(m.fc1.weight).tolist()
    assert same(run)[0] == ('ok', '<All keys matched successfully>')


def test_pre_hook_renaming_keys_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        def rename(mod, sd, prefix, *a):
            for k in [k for k in sd if k.startswith(prefix + 'old_')]: sd[k.replace('old_', '')] = sd.pop(k)
        m.fc1.register_load_state_dict_pre_hook(rename)
        sd = seeded(lib, stand_ins(lib).Net(), 1).state_dict()
        sd['fc1.old_weight'] = sd.pop('fc1.weight')
        return load_err(m, sd), arr(m.fc1.weight).tolist(), list(sd)
    assert same(run)[0][0] == 'ok'


def test_parent_pre_hook_edits_reach_children_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: sd.__setitem__('fc1.bias', lib.full((3,), 9.)))
        sd = m.state_dict(); sd.pop('fc1.bias')
        return load_err(m, sd), arr(m.fc1.bias).tolist()
    assert same(run) == (('ok', '<All keys matched successfully>'), [9., 9., 9.])


def test_private_load_pre_hook_without_module_like_torch():
    def run(lib):
        seen = []
        m = stand_ins(lib).Net()
        h = m.fc1._register_load_state_dict_pre_hook(lambda *a: seen.append((len(a), a[1])))
        h2 = m.fc1._register_load_state_dict_pre_hook(lambda mod, *a: seen.append((len(a), mod is m.fc1)), with_module=True)
        m.load_state_dict(m.state_dict())
        h.remove(); h2.remove()
        m.load_state_dict(m.state_dict())
        return seen
    assert same(run) == [(7, 'fc1.'), (7, True)]


def test_state_dict_private_hook_replacement_like_torch():
    def run(lib):
        m = stand_ins(lib).Net()
        h = m._register_state_dict_hook(lambda mod, sd, prefix, md: OrderedDict(only=1))
        root = dict(m.state_dict()); h.remove()
        h = m.fc1._register_state_dict_hook(lambda mod, sd, prefix, md: OrderedDict(only=1))
        child = list(m.state_dict()); h.remove()
        def public(mod, sd, prefix, md): return {}
        m.register_state_dict_post_hook(public)
        e1 = err(m.state_dict)
        e2 = err(m._register_state_dict_hook, public)
        return root, child, e1, e2
    same(run)


def test_hook_handles_remove_like_torch():
    def run(lib):
        calls = []
        m = stand_ins(lib).Linear(1, 1)
        hs = [m.register_state_dict_pre_hook(lambda *a: calls.append('sd pre')),
              m.register_state_dict_post_hook(lambda *a: calls.append('sd post')),
              m.register_load_state_dict_pre_hook(lambda *a: calls.append('load pre')),
              m.register_load_state_dict_post_hook(lambda *a: calls.append('load post'))]
        m.load_state_dict(m.state_dict())
        for h in hs: h.remove()
        m.load_state_dict(m.state_dict())
        return calls, [len(d) for d in (m._state_dict_pre_hooks, m._state_dict_hooks, m._load_state_dict_pre_hooks,
                                        m._load_state_dict_post_hooks)]
    assert same(run) == (['sd pre', 'sd post', 'load pre', 'load post'], [0, 0, 0, 0])


def test_version_based_custom_loader_like_torch():
    "The pattern layers use to read old checkpoints: a version in _metadata and a key renamed in _load_from_state_dict."
    def build(lib, version):
        class Layer(stand_ins(lib).Linear):
            _version = version
            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, *rest):
                if local_metadata.get('version', 1) < 2 and prefix + 'w' in state_dict:
                    state_dict[prefix + 'weight'] = state_dict.pop(prefix + 'w')
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, *rest)
        m = lib.nn.Module(); m.layer = Layer(2, 2)
        return m
    def run(lib):
        old = seeded(lib, build(lib, 1), 3)
        sd = old.state_dict()
        sd['layer.w'] = sd.pop('layer.weight')
        new = build(lib, 2)
        return load_err(new, sd), arr(new.layer.weight).tolist() == arr(old.layer.weight).tolist(), new.state_dict()._metadata['layer']
    assert same(run) == (('ok', '<All keys matched successfully>'), True, {'version': 2})


def test_assign_leaves_callers_metadata_alone():
    "torch writes `assign_to_params_buffers` into the caller's state_dict._metadata; litnn gives hooks a copy."
    def run(lib):
        m = stand_ins(lib).Linear(1, 1)
        sd = m.state_dict()
        m.load_state_dict(sd, assign=True)
        return sd._metadata['']
    assert run(torch) == {'version': 1, 'assign_to_params_buffers': True}
    assert run(litnn) == {'version': 1}


def test_deepcopy_repoints_wrapped_hooks():
    m = stand_ins(litnn).Net()
    seen = []
    m.fc1.register_load_state_dict_pre_hook(lambda mod, *a: seen.append(mod))
    m2 = copy.deepcopy(m)
    m2.load_state_dict(m2.state_dict())
    assert seen == [m2.fc1]


def test_module_has_every_state_dict_method():
    for name in ['state_dict', '_save_to_state_dict', 'load_state_dict', '_load_from_state_dict', 'get_extra_state',
                 'set_extra_state', 'register_state_dict_pre_hook', 'register_state_dict_post_hook',
                 '_register_state_dict_hook', 'register_load_state_dict_pre_hook', '_register_load_state_dict_pre_hook',
                 'register_load_state_dict_post_hook']:
        assert callable(getattr(litnn.nn.Module, name)) and hasattr(torch.nn.Module, name), name


# --- random trees and random corruptions ----------------------------------------------------------

NAMES = st.sampled_from(['a', 'b', 'w', 'x0', '0'])
TREE = st.lists(st.one_of(
    st.tuples(st.just('module'), st.integers(0, 20), NAMES),
    st.tuples(st.just('share_module'), st.integers(0, 20), NAMES, st.integers(0, 20)),
    st.tuples(st.just('param'), st.integers(0, 20), NAMES, st.integers(0, 3), st.booleans()),
    st.tuples(st.just('buffer'), st.integers(0, 20), NAMES, st.booleans(), st.sampled_from(['float', 'int', 'none'])),
    st.tuples(st.just('none'), st.integers(0, 20), NAMES)), max_size=20)

CORRUPTIONS = st.lists(st.one_of(
    st.tuples(st.just('drop'), st.integers(0, 50)),
    st.tuples(st.just('add'), st.integers(0, 50), NAMES),
    st.tuples(st.just('reshape'), st.integers(0, 50)),
    st.tuples(st.just('cast'), st.integers(0, 50)),
    st.tuples(st.just('junk'), st.integers(0, 50))), max_size=4)


def build_tree(lib, ops):
    mods = [lib.nn.Module()]
    for op in ops:
        kind, m, name = op[0], mods[op[1] % len(mods)], op[2]
        try:
            if kind == 'module':
                c = lib.nn.Module(); setattr(m, name, c); mods.append(c)
            elif kind == 'share_module':
                j = mods[op[3] % len(mods)]
                if not any(x is m for x in j.modules()): setattr(m, name, j)
            elif kind == 'param':
                p = lib.nn.Parameter(lib.zeros(op[3]) if op[3] else lib.tensor(0.)); p.requires_grad_(op[4]); setattr(m, name, p)
            elif kind == 'buffer':
                t = None if op[4] == 'none' else lib.zeros(2) if op[4] == 'float' else lib.tensor([1, 2, 3])
                m.register_buffer(name, t, persistent=op[3])
            elif kind == 'none': setattr(m, name, None)
        except Exception: pass
    return seeded(lib, mods[0], 7)


def corrupt(lib, sd, ops):
    for op in ops:
        keys = list(sd)
        k = keys[op[1] % len(keys)] if keys else None
        if op[0] == 'drop' and k: sd.pop(k)
        elif op[0] == 'add': sd[(k + '.' if k else '') + op[2]] = lib.zeros(1)
        elif op[0] == 'reshape' and k and hasattr(sd[k], 'reshape'): sd[k] = lib.zeros(9, 9)
        elif op[0] == 'cast' and k and hasattr(sd[k], 'double'): sd[k] = sd[k].double() + 1
        elif op[0] == 'junk' and k: sd[k] = 'junk'
    return sd


@settings(max_examples=120, deadline=None)
@given(TREE, CORRUPTIONS, st.booleans(), st.booleans(), st.booleans())
def test_random_trees_and_corruptions_like_torch(tree, corruptions, strict, assign, hooked):
    "With `hooked`, a post-hook on the root switches litnn to changes-with-undo-log; the outcome must not change."
    def run(lib):
        src = build_tree(lib, tree)
        sd = src.state_dict()
        meta = copy.deepcopy(list(sd._metadata.items()))   # torch writes assign_to_params_buffers into it (see below)
        keys = list(sd)
        sd = corrupt(lib, sd, corruptions)
        for t in sd.values():   # offset the source's values so a successful load is visible
            if hasattr(t, 'add_') and t.is_floating_point():
                with lib.no_grad(): t.add_(0.5)
        dst = build_tree(lib, tree)
        if hooked: dst.register_load_state_dict_post_hook(lambda m, keys: None)
        snap = snapshot(dst)
        out = load_err(dst, sd, strict=strict, assign=assign)
        if out[0] != 'ok':   # litnn: untouched; torch: whatever it had copied before failing
            assert unchanged(dst, snap) or lib is torch, out
            return keys, meta, out
        after = {k: (str(v.dtype).split('.')[-1], arr(v).tolist()) for k, v in dst.state_dict().items()}
        return keys, meta, out, after
    same(run)


# --- issue 12: what can fail while the changes are made ----------------------------------------

def expanded_linear(lib, post_hook=False):
    "Linear(3, 2) with a buffer made by expand (its elements share memory: it cannot be copied into)."
    m = seeded(lib, lib.nn.Linear(3, 2), 0)
    m.register_buffer('mask', lib.ones(1, 3).expand(2, 3))
    if post_hook: m.register_load_state_dict_post_hook(lambda mod, keys: None)
    return m

@pytest.mark.parametrize('post_hook', [False, True])
def test_expanded_buffer_found_before_any_change(post_hook):
    "torch copies weight and bias, then raises on the expanded buffer; litnn raises the same error and changed nothing."
    def run(lib):
        m = expanded_linear(lib, post_hook)
        snap = snapshot(m)
        return load_err(m, {k: v + 1 for k, v in m.state_dict().items()}), unchanged(m, snap)
    lit, tor = run(litnn), run(torch)
    assert lit[0] == (tor[0][0], norm(tor[0][1])) and 'refers to a single memory location' in lit[0][1]
    assert lit[1] is True and tor[1] is False

def test_expanded_buffer_strict_false_and_assign():
    "strict=False raises the same; assign=True replaces the buffer (no copy into it), as torch does."
    def run(lib):
        m = expanded_linear(lib)
        sd = {k: v + 1 for k, v in m.state_dict().items()}
        out = load_err(m, sd, strict=False)
        ok = load_err(m, sd, assign=True)
        return out[0], ok, arr(m.mask).tolist()
    lit, tor = run(litnn), run(torch)
    assert lit == tor and lit[0] is RuntimeError

def test_read_only_destination_found_before_any_change():
    "A parameter viewing read-only memory: litnn's error names it; nothing was copied."
    m = litnn.nn.Linear(2, 2)
    ro = np.zeros((2,), np.float32); ro.flags.writeable = False
    m.register_buffer('frozen', litnn.from_numpy(ro) if hasattr(litnn, 'from_numpy') else litnn.Tensor._make(ro))
    snap = snapshot(m)
    kind, msg = load_err(m, {k: v + 1 for k, v in m.state_dict().items()})
    assert kind is RuntimeError and 'While copying the parameter named "frozen"' in msg and 'read-only' in msg
    assert unchanged(m, snap)

def extra_pair(lib):
    "Two children with extra state; the second refuses the state 'bad'."
    class Extra(lib.nn.Module):
        def __init__(self):
            super().__init__(); self.state = {'n': 0}; self.w = lib.nn.Parameter(lib.zeros(2))
        def get_extra_state(self): return self.state
        def set_extra_state(self, state):
            if state == 'bad': raise ValueError('refused')
            self.state['n'] = state['n']        # in place, as many real modules do
    return lib.nn.Sequential(Extra(), Extra())

def test_second_set_extra_state_raising_restores_the_first():
    def run(lib):
        m = extra_pair(lib)
        sd = m.state_dict(); sd['0._extra_state'] = {'n': 7}; sd['1._extra_state'] = 'bad'; sd['0.w'] = lib.ones(2)
        out = err(m.load_state_dict, sd)
        return out, m[0].state, arr(m[0].w).tolist()
    lit, tor = run(litnn), run(torch)
    assert lit[0] == tor[0] == (ValueError, 'refused')
    assert lit[1:] == ({'n': 0}, [0., 0.])
    assert tor[1:] == ({'n': 7}, [1., 1.])       # torch keeps what it made before the error

def test_extra_state_rolled_back_with_post_hooks():
    "The same failure when the tree has post-hooks (changes made during the walk): every change undone."
    m = extra_pair(litnn)
    m.register_load_state_dict_post_hook(lambda mod, keys: None)
    sd = m.state_dict(); sd['0._extra_state'] = {'n': 7}; sd['1._extra_state'] = 'bad'; sd['0.w'] = litnn.ones(2)
    with pytest.raises(ValueError, match='refused'): m.load_state_dict(sd)
    assert m[0].state == {'n': 0} and m[0].w.tolist() == [0., 0.]

@pytest.mark.parametrize('failure', [MemoryError, KeyboardInterrupt])
def test_copy_failing_during_commit_rolls_back(monkeypatch, failure):
    "Whatever still fails while tensors are copied (out of memory, ^C) takes back the copies already made."
    m = seeded(litnn, stand_ins(litnn).Net(), 0)
    sd = seeded(litnn, stand_ins(litnn).Net(), 1).state_dict()
    snap, real, calls = snapshot(m), litnn.Tensor.copy_, []
    def flaky(self, src, *a, **k):
        calls.append(1)
        if len(calls) == 4: raise failure()
        return real(self, src, *a, **k)
    monkeypatch.setattr(litnn.Tensor, 'copy_', flaky)
    with pytest.raises(failure): m.load_state_dict(sd)
    monkeypatch.setattr(litnn.Tensor, 'copy_', real)
    assert len(calls) == 4 and unchanged(m, snap)

def test_pre_hook_raising_changes_nothing():
    "A load pre-hook of the last module raises: torch has already copied the first modules, litnn has not."
    def run(lib):
        m = seeded(lib, stand_ins(lib).Net(), 0)
        sd = seeded(lib, stand_ins(lib).Net(), 1).state_dict()
        m.fc2.register_load_state_dict_pre_hook(lambda *a: 1 / 0)
        snap = snapshot(m)
        return err(m.load_state_dict, sd)[0], unchanged(m, snap)
    lit, tor = run(litnn), run(torch)
    assert lit == (ZeroDivisionError, True) and tor == (ZeroDivisionError, False)

def test_assign_then_extra_state_failure_restores_the_objects():
    m = extra_pair(litnn)
    w0 = m[0].w
    sd = m.state_dict(); sd['0.w'] = litnn.ones(2); sd['1._extra_state'] = 'bad'
    with pytest.raises(ValueError): m.load_state_dict(sd, assign=True)
    assert m[0].w is w0 and m[0].w.tolist() == [0., 0.]


def test_non_tensor_entry_message_is_torchs_text():
    "The message names `torch.Tensor` as torch's does (callers match it with a regex), not normalised to litnn's name."
    msgs = []
    for lib in (litnn, torch):
        try: lib.nn.Linear(2, 2, bias=False).load_state_dict({'weight': np.ones((2, 2))})
        except RuntimeError as e: msgs.append(str(e))
    assert msgs[0] == msgs[1]
    assert 'expected torch.Tensor or Tensor-like object from checkpoint but received' in msgs[0]


@pytest.mark.parametrize('post_hook', [False, True])
def test_swap_failure_reported_like_torch(post_hook):
    "With swap on, a subclass whose module_load raises gives torch's error-list line (litnn then undoes the whole load)."
    def run(lib):
        class Broken(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func is lib.Tensor.module_load: return args[1]    # not detached: refused by load_state_dict
                with lib._C.DisableTorchFunctionSubclass():
                    r = func(*args, **(kwargs or {}))
                    return cls(r) if func == lib.Tensor.detach else r
        old = lib.__future__.get_swap_module_params_on_conversion()
        lib.__future__.set_swap_module_params_on_conversion(True)
        try:
            m = lib.nn.Linear(2, 3)
            if post_hook: m.register_load_state_dict_post_hook(lambda mod, keys: None)
            w0 = arr(m.weight).copy()
            out = load_err(m, {'weight': lib.ones(3, 2).as_subclass(Broken), 'bias': lib.ones(3)})
            return out, (arr(m.weight) == w0).all()
        finally: lib.__future__.set_swap_module_params_on_conversion(old)
    (t, msg), kept = same(run)
    assert t is RuntimeError and msg.startswith('Error(s) in loading state_dict for Linear:\n\tWhile swapping the parameter named "weight"')


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'bfloat16', 'int64'])
def test_real_torch_tensors_load_as_tensor_likes(dtype):
    """Real torch's tensors (safetensors.torch.load_file gives them to a program on litnn) are Tensor-like by torch's
    rule: a litnn module loads them, bfloat16 included; numpy arrays and lists are still refused (the test above)."""
    src = torch.nn.Linear(3, 2).to(getattr(torch, dtype) if dtype != 'int64' else torch.float32)
    sd = src.state_dict() if dtype != 'int64' else {k: (v * 100).long() for k, v in src.state_dict().items()}
    m = litnn.nn.Linear(3, 2).to(getattr(litnn, dtype) if dtype != 'int64' else litnn.float32)
    assert str(m.load_state_dict(sd)) == '<All keys matched successfully>'
    for k, v in sd.items():
        np.testing.assert_array_equal(m.state_dict()[k].float().numpy(), v.float().to(getattr(torch, str(m.state_dict()[k].dtype)[6:])).float().numpy())
    m.load_state_dict(src.state_dict(keep_vars=True) if dtype != 'int64' else sd)     # Parameters requiring grad


def test_positional_args_warning_as_torch():
    "state_dict(destination, prefix) still works, with torch's FutureWarning text (it points to the docs)."
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            d = OrderedDict()
            keys = list(lib.nn.Linear(1, 1).state_dict(d, 'p.'))
        return keys, [(x.category, str(x.message)) for x in w]
    keys, warned = same(run)
    assert keys == ['p.weight', 'p.bias'] and warned[0][0] is FutureWarning


def test_swap_on_conversion_after_a_half_forward_with_a_transposed_weight():
    # F.linear's general road makes weight.t(), a view with history; litnn's memory bookkeeping keeps a weak reference
    # to the weight for it, which swap_tensors must not take for the user's (torch: m.float() swaps fine)
    import torch, litnn
    out = []
    for L in (torch, litnn):
        L.__future__.set_swap_module_params_on_conversion(True)
        try:
            m = L.nn.Linear(2, 3).half(); w = m.weight
            m(L.ones(2, 2, dtype=L.half)).sum().backward()
            m.float()
            out.append((m.weight is w, m.weight.dtype == L.float32, m.weight.grad.dtype == L.float32))
        finally:
            L.__future__.set_swap_module_params_on_conversion(False)
    assert out[0] == out[1] == (True, True, True)
    import weakref
    t = litnn.ones(2); r = weakref.ref(t)      # a user's weak reference still stops the swap, as torch's
    try: litnn.utils.swap_tensors(t, litnn.zeros(2)); raised = None
    except RuntimeError as e: raised = str(e)
    assert raised == "Cannot swap t1 because it has weakref associated with it"

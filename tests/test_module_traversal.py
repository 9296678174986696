"""Traversal, printing and train/eval of Modules, side by side with torch: named_* walks, get_/set_submodule,
reprs, __dir__, train/eval, requires_grad_ and zero_grad; plus random module trees built the same way in both."""
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from litnn.nn.modules.traversal import set_repr_options
from nn_pairs import err, exc, same, stand_ins

torch = pytest.importorskip('torch')


def names(pairs): return [n for n, _ in pairs]


# --- the walks ----------------------------------------------------------------------------------

WALKS = {
    'named_parameters': lambda m: names(m.named_parameters()),
    'named_parameters prefix': lambda m: names(m.named_parameters(prefix='model')),
    'named_parameters no recurse': lambda m: names(m.net.named_parameters(recurse=False)) + names(m.head.named_parameters(recurse=False)),
    'named_parameters all': lambda m: names(m.named_parameters(remove_duplicate=False)),
    'named_buffers': lambda m: names(m.named_buffers()),
    'named_buffers prefix all': lambda m: names(m.named_buffers(prefix='p', remove_duplicate=False)),
    'named_buffers no recurse': lambda m: names(m.net.named_buffers(recurse=False)),
    'named_children': lambda m: names(m.named_children()),
    'named_modules': lambda m: names(m.named_modules()),
    'named_modules all': lambda m: names(m.named_modules(remove_duplicate=False)),
    'named_modules prefix': lambda m: names(m.named_modules(prefix='root')),
    'named_modules memo': lambda m: names(m.named_modules(memo={m.net.fc1})),
    'counts': lambda m: (len(list(m.parameters())), len(list(m.buffers())), len(list(m.children())),
                         len(list(m.modules())), len(list(m.modules(remove_duplicate=False))),
                         len(list(m.parameters(recurse=False))), len(list(m.buffers(recurse=False)))),
    'identity': lambda m: ([type(x).__name__ for x in m.modules()], next(m.parameters()) is m.net.fc1.weight,
                           list(m.children())[0] is m.net),
}

@pytest.mark.parametrize('walk', list(WALKS))
def test_walks(walk):
    same(lambda lib: WALKS[walk](stand_ins(lib).Deep()))


def test_walks_are_lazy_generators():
    def run(lib):
        m = stand_ins(lib).Net()
        g = m.parameters()
        return type(g).__name__, next(g) is m.fc1.weight
    assert same(run) == ('generator', True)


def test_named_members_custom():
    "`_named_members` is the one walk: any member list works (here: buffers other than `cache`)."
    def run(lib):
        members = lambda mod: [(k, v) for k, v in mod._buffers.items() if k != 'cache']
        return names(stand_ins(lib).Deep()._named_members(members, prefix='x', recurse=True))
    assert same(run) == ['x.net.steps', 'x.net.norm.running_mean', 'x.net.norm.num_batches_tracked']


# --- reaching by name ---------------------------------------------------------------------------

@pytest.mark.parametrize('target', ['', 'net', 'net.fc1', 'again', 'net.nope', 'net.steps', 'net.norm.cache',
                                    'missing', 'head.in_features', 'net..fc1'])
def test_get_submodule(target):
    def run(lib):
        m = stand_ins(lib).Deep()
        try: return type(m.get_submodule(target)).__name__
        except Exception: return err(m.get_submodule, target)
    same(run)


@pytest.mark.parametrize('target', ['net.fc1.weight', 'head.bias', 'net.fc2.bias', 'net.steps', 'net.fc1',
                                    'net.nope', 'nope.weight', 'head.in_features', 'tied.weight'])
def test_get_parameter(target):
    def run(lib):
        m = stand_ins(lib).Deep()
        try: return tuple(m.get_parameter(target).shape)
        except Exception: return err(m.get_parameter, target)
    same(run)


@pytest.mark.parametrize('target', ['net.steps', 'net.norm.cache', 'net.norm.num_batches_tracked', 'net.fc1.weight',
                                    'net.nope', 'net.norm.training', 'x.y'])
def test_get_buffer(target):
    def run(lib):
        m = stand_ins(lib).Deep()
        try: return tuple(m.get_buffer(target).shape)
        except Exception: return err(m.get_buffer, target)
    same(run)


@pytest.mark.parametrize('target,strict', [('net.fc1', False), ('net.fc1', True), ('net.new', False), ('net.new', True),
                                           ('new', False), ('', False), ('net.steps', False), ('nope.x', False),
                                           ('head.in_features', False), ('net.norm.weight', True), ('value', False)])
def test_set_submodule(target, strict):
    def run(lib):
        S = stand_ins(lib)
        m = S.Deep()
        value = 3 if target == 'value' else S.Scale(7)
        try: m.set_submodule(target if target != 'value' else 'head', value, strict=strict)
        except Exception as e: return err(m.set_submodule, target if target != 'value' else 'head', value, strict)
        return names(m.named_modules()), type(m.get_submodule(target)).__name__
    same(run)


# --- printing -----------------------------------------------------------------------------------

@pytest.mark.parametrize('make', ['Net', 'Deep', 'Linear', 'Module', 'Norm', 'Scale'])
def test_repr(make):
    def run(lib):
        S = stand_ins(lib)
        m = lib.nn.Module() if make == 'Module' else S.Linear(2, 3) if make == 'Linear' else \
            S.Scale(2) if make == 'Scale' else S.Norm(2) if make == 'Norm' else getattr(S, make)()
        return repr(m), str(m), m._get_name(), m.extra_repr()
    same(run)


def test_repr_multiline_extra_repr_and_blank_lines():
    def run(lib):
        class Odd(lib.nn.Module):
            def __init__(self, extra, child=True):
                super().__init__()
                self.extra = extra
                if child: self.inner = stand_ins(lib).Linear(1, 1)
            def extra_repr(self): return self.extra
        outer = Odd("a\n\nb")
        outer.deeper = Odd("x\n\ny", child=False)
        outer.single = Odd("one line", child=False)
        outer.empty = Odd("", child=False)
        return repr(outer)
    same(run)


def test_repr_renamed_class():
    def run(lib):
        class Renamed(lib.nn.Module):
            def _get_name(self): return 'Other'
        m = lib.nn.Module(); m.r = Renamed()
        return repr(m)
    assert 'Other()' in same(run)


def test_repr_collapse_is_opt_in():
    def build(lib): return lib.nn.Sequential(*(stand_ins(lib).Linear(2, 2) for _ in range(3)), stand_ins(lib).Scale(1))
    same(lambda lib: repr(build(lib)))                 # default: exactly torch's
    set_repr_options(collapse_repeats=True)
    try:
        r = repr(build(litnn))
        plain = litnn.nn.Module(); plain.a = stand_ins(litnn).Scale(1); plain.b = stand_ins(litnn).Scale(1)
        r_plain = repr(plain)
    finally: set_repr_options(collapse_repeats=False)
    assert r == ("Sequential(\n  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
                 "  (3): Scale(k=1)\n)")
    assert r_plain == "Module(\n  (a): Scale(k=1)\n  (b): Scale(k=1)\n)"   # plain modules never collapse
    assert repr(build(litnn)).count('Linear') == 3


def test_dir():
    def run(lib):
        m = stand_ins(lib).Deep()
        m.plain = 1
        own = sorted(set(dir(m)) - set(dir(type(m))))
        s = lib.nn.Sequential(lib.nn.Module())
        return own, dir(m) == sorted(dir(m)), [k for k in dir(s) if k[0].isdigit()]
    same(run)


# --- train / eval / requires_grad_ / zero_grad ---------------------------------------------------

def test_train_eval():
    def run(lib):
        m = stand_ins(lib).Deep()
        out = [m.eval() is m, [x.training for x in m.modules()]]
        m.net.train(); out.append([x.training for x in m.modules(remove_duplicate=False)])
        out.append(m.train() is m); out.append([x.training for x in m.modules()])
        m.train(False); out.append([x.training for x in m.modules()])
        return out
    same(run)


@pytest.mark.parametrize('mode', [0, 1, 'False', None, 1.0])
def test_train_refuses_non_bool(mode):
    same(lambda lib: err(stand_ins(lib).Net().train, mode))


def test_requires_grad_():
    def run(lib):
        m = stand_ins(lib).Deep()
        out = [m.net.requires_grad_(False) is m.net, [(n, p.requires_grad) for n, p in m.named_parameters()]]
        m.requires_grad_(); out.append([p.requires_grad for p in m.parameters()])
        m.net.fc1.weight.requires_grad = False
        out.append([n for n, p in m.named_parameters() if not p.requires_grad])
        return out
    same(run)


def test_requires_grad_integer_parameter_refused():
    def run(lib):
        m = lib.nn.Module(); m.i = lib.nn.Parameter(lib.arange(2), requires_grad=False)
        return err(m.requires_grad_)
    assert same(run)[0] is RuntimeError


def forward_backward(lib, m, twice=False):
    "Backward through every parameter of the Deep stand-in (sum of squares, no matmul needed)."
    for _ in range(2 if twice else 1):
        loss = sum(((p * 1.5) * p).sum() for p in m.parameters())
        loss.backward()


def test_zero_grad_set_to_none():
    def run(lib):
        m = stand_ins(lib).Deep()
        for p in m.parameters(): p.data = lib.ones(p.shape)
        forward_backward(lib, m)
        before = [p.grad.tolist() for p in m.parameters()]
        m.zero_grad()
        return before, [p.grad for p in m.parameters()]
    assert same(run)[1] == [None] * 7


def test_zero_grad_in_place():
    def run(lib):
        m = stand_ins(lib).Deep()
        for p in m.parameters(): p.data = lib.ones(p.shape)
        forward_backward(lib, m)
        grads = [p.grad for p in m.parameters()]
        versions = [g._version for g in grads]
        m.zero_grad(set_to_none=False)
        out = [all(p.grad is g for p, g in zip(m.parameters(), grads)), [g.tolist() for g in grads],
               [g._version > v for g, v in zip(grads, versions)]]
        forward_backward(lib, m, twice=True)
        out.append([p.grad.tolist() for p in m.parameters()])
        return out
    assert same(run)[0] is True


@pytest.mark.filterwarnings('ignore:Using backward\\(\\) with create_graph=True')
def test_zero_grad_detaches_a_graph_grad():
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([2.]))
        m = lib.nn.Module(); m.p = p
        (p * p).sum().backward(create_graph=True)
        had_graph = p.grad.grad_fn is not None
        m.zero_grad(set_to_none=False)
        return had_graph, p.grad.grad_fn, p.grad.requires_grad, p.grad.tolist()
    assert same(run) == (True, None, False, [0.])


# --- random trees, built the same way in both ------------------------------------------------------

NAMES = st.sampled_from(['a', 'b', 'w', 'training', 'x0', '0'])
OPS = st.lists(st.one_of(
    st.tuples(st.just('module'), st.integers(0, 20), NAMES),
    st.tuples(st.just('share_module'), st.integers(0, 20), NAMES, st.integers(0, 20)),
    st.tuples(st.just('param'), st.integers(0, 20), NAMES, st.integers(0, 3)),
    st.tuples(st.just('share_param'), st.integers(0, 20), NAMES, st.integers(0, 20)),
    st.tuples(st.just('buffer'), st.integers(0, 20), NAMES, st.booleans(), st.booleans()),
    st.tuples(st.just('plain'), st.integers(0, 20), NAMES),
    st.tuples(st.just('delete'), st.integers(0, 20), NAMES),
    st.tuples(st.just('none'), st.integers(0, 20), NAMES)), max_size=25)


def build_random(lib, ops):
    "Apply `ops` to a growing tree of plain Modules; record every error. Shares never create cycles."
    mods, params, log = [lib.nn.Module()], [], []
    for op in ops:
        kind, i = op[0], op[1] % len(mods)
        m, name = mods[i], op[2]
        try:
            if kind == 'module':
                child = lib.nn.Module(); setattr(m, name, child); mods.append(child)
            elif kind == 'share_module':
                j = op[3] % len(mods)
                if any(x is m for x in mods[j].modules()): continue   # would close a cycle
                setattr(m, name, mods[j])
            elif kind == 'param':
                p = lib.nn.Parameter(lib.zeros(op[3])); setattr(m, name, p); params.append(p)
            elif kind == 'share_param':
                if params: setattr(m, name, params[op[3] % len(params)])
            elif kind == 'buffer':
                m.register_buffer(name, None if op[4] else lib.zeros(1), persistent=op[3])
            elif kind == 'plain': setattr(m, name, 'text')
            elif kind == 'delete': delattr(m, name)
            elif kind == 'none': setattr(m, name, None)
            log.append('ok')
        except Exception as e: log.append(exc(e))
    return mods[0], log


def describe(root, log):
    return (log, repr(root), names(root.named_parameters()), names(root.named_parameters(remove_duplicate=False)),
            names(root.named_buffers()), names(root.named_buffers(remove_duplicate=False)),
            names(root.named_modules()), names(root.named_modules(remove_duplicate=False)), names(root.named_children()),
            [(list(m._parameters), list(m._buffers), list(m._modules), sorted(m._non_persistent_buffers_set))
             for m in root.modules()],
            [sorted(set(dir(m)) - set(dir(type(m)))) for m in root.modules()])


@settings(max_examples=150, deadline=None)
@given(OPS)
def test_random_trees_match_torch(ops):
    same(lambda lib: describe(*build_random(lib, ops)))

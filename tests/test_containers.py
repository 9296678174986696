"""Containers side by side with torch: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict give
the same names, indexing, mutations, reprs and errors (torch's names read as litnn's)."""
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from litnn.nn.modules.traversal import set_repr_options
from nn_pairs import err, exc, norm, same, stand_ins

torch = pytest.importorskip('torch')


def names(pairs): return [n for n, _ in pairs]
def ks(seq): return [m.k for m in seq]
def state(m): return list(m._modules), names(m.named_parameters())


def seq(lib, *ks_, od=False):
    S = stand_ins(lib)
    mods = [S.Scale(k) for k in ks_]
    return lib.nn.Sequential(OrderedDict((f"s{k}", m) for k, m in zip(ks_, mods))) if od else lib.nn.Sequential(*mods)


# --- Sequential -----------------------------------------------------------------------------------

def test_sequential_forward():
    def run(lib):
        s = seq(lib, 2, 3)
        return s(lib.tensor([1., -2.])).tolist(), lib.nn.Sequential()(lib.tensor([5.])).tolist()
    assert same(run) == ([6., -12.], [5.])


def test_sequential_forward_with_weights_from_torch():
    "The same weights through a chain of linear layers: same outputs and gradients, same names."
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)]
    x = rng.standard_normal((5, 4)).astype(np.float32)
    class LLinear(litnn.nn.Module):
        def __init__(self, w):
            super().__init__(); self.weight = litnn.nn.Parameter(litnn.tensor(w)); self.bias = litnn.nn.Parameter(litnn.zeros(len(w)))
        def forward(self, x): return x @ self.weight.t() + self.bias
    tnet = torch.nn.Sequential(*(torch.nn.Linear(w.shape[1], w.shape[0]) for w in ws))
    with torch.no_grad():
        for layer, w in zip(tnet, ws): layer.weight.copy_(torch.tensor(w)); layer.bias.zero_()
    lnet = litnn.nn.Sequential(*(LLinear(w) for w in ws))
    assert names(lnet.named_parameters()) == names(tnet.named_parameters())
    lout, tout = lnet(litnn.tensor(x)), tnet(torch.tensor(x))
    np.testing.assert_allclose(lout.tolist(), tout.tolist(), rtol=1e-5, atol=1e-5)
    lout.sum().backward(); tout.sum().backward()
    for (n, lp), (_, tp) in zip(lnet.named_parameters(), tnet.named_parameters()):
        np.testing.assert_allclose(lp.grad.tolist(), tp.grad.tolist(), rtol=1e-5, atol=1e-5, err_msg=n)


@pytest.mark.parametrize('od', [False, True])
def test_sequential_construction_and_names(od):
    def run(lib):
        s = seq(lib, 1, 2, 3, od=od)
        net = lib.nn.Module(); net.body = lib.nn.Sequential(s, stand_ins(lib).Linear(2, 2))
        return state(s), names(net.named_parameters()), names(net.named_modules()), len(s), ks(s), repr(net)
    same(run)


def test_sequential_refuses_plain_dict():
    same(lambda lib: err(lib.nn.Sequential, {'a': lib.nn.Module()}))
    same(lambda lib: err(lib.nn.Sequential, lib.nn.Module(), 3))


@pytest.mark.parametrize('idx', [0, 2, -1, -3, 3, -4, slice(1, None), slice(None, None, -1), slice(0, 3, 2),
                                 slice(5, 9), 'a', 1.0, np.int64(1)])
@pytest.mark.parametrize('od', [False, True])
def test_sequential_getitem(idx, od):
    def run(lib):
        s = seq(lib, 1, 2, 3, od=od)
        try: r = s[idx]
        except Exception as e: return exc(e)
        return (type(r).__name__, list(r._modules), ks(r)) if isinstance(idx, slice) else r.k
    same(run)


@pytest.mark.parametrize('idx', [0, -1, 3, slice(0, 2), slice(None, None, 2), -4])
@pytest.mark.parametrize('od', [False, True])
def test_sequential_delitem_and_pop(idx, od):
    def run(lib):
        s, t = seq(lib, 1, 2, 3, od=od), seq(lib, 1, 2, 3, od=od)
        try: del s[idx]
        except Exception as e: return exc(e)
        popped = t.pop(idx)
        return state(s), ks(s), state(t), ks(popped) if isinstance(idx, slice) else popped.k
    same(run)


@pytest.mark.parametrize('idx', [0, -1, 3])
def test_sequential_setitem(idx):
    def run(lib):
        s = seq(lib, 1, 2, 3, od=True)
        try: s[idx] = stand_ins(lib).Scale(9)
        except Exception as e: return exc(e)
        return state(s), ks(s)
    same(run)
    same(lambda lib: err(seq(lib, 1).__setitem__, 0, 3))


@pytest.mark.parametrize('index', [0, 1, 3, -1, -3, 4, -4])
def test_sequential_insert(index):
    def run(lib):
        s = seq(lib, 1, 2, 3)
        try: r = s.insert(index, stand_ins(lib).Scale(9))
        except Exception as e: return exc(e)
        return r is s, state(s), ks(s)
    same(run)


def test_sequential_insert_non_module():
    same(lambda lib: err(seq(lib, 1).insert, 0, 3))


def test_sequential_append_extend():
    def run(lib):
        s = seq(lib, 1)
        out = [s.append(stand_ins(lib).Scale(2)) is s, s.extend(seq(lib, 3, 4)) is s, s.extend([stand_ins(lib).Scale(5)]) is s]
        return out, state(s), ks(s), err(s.append, 3)
    same(run)


def test_sequential_operators():
    def run(lib):
        a, b = seq(lib, 1, 2), seq(lib, 3, od=True)
        out = [ks(a + b), state(a + b), (a + b)[2] is b[0], ks(a * 2), ks(3 * b), (a * 2)[2] is a[0]]
        c = seq(lib, 1, 2); c += b; out += [ks(c), state(c)]
        d = seq(lib, 1, 2); d *= 3; out += [ks(d), state(d)]
        for bad in (lambda: a + [1], lambda: a + lib.nn.ModuleList(), lambda: a * 0, lambda: a * -1, lambda: a * 2.0,
                    lambda: 2.5 * a):
            out.append(err(bad))
        e = seq(lib, 1); out.append(err(e.__iadd__, 3)); out.append(err(e.__imul__, 0))
        return out
    same(run)


def test_sequential_iteration_and_len():
    def run(lib):
        s = seq(lib, 4, 5, 6)
        return [m.k for m in s], len(s), list(reversed([m.k for m in s])), [k for k in dir(s) if k.isdigit()]
    same(run)


# --- ModuleList -----------------------------------------------------------------------------------

def mlist(lib, *ks_): return lib.nn.ModuleList([stand_ins(lib).Scale(k) for k in ks_])


@pytest.mark.parametrize('idx', [0, -1, 3, -4, slice(1, None), slice(None, None, -1), 'a'])
def test_modulelist_getitem(idx):
    def run(lib):
        l = mlist(lib, 1, 2, 3)
        try: r = l[idx]
        except Exception as e: return exc(e)
        return (type(r).__name__, state(r), ks(r)) if isinstance(idx, slice) else r.k
    same(run)


@pytest.mark.parametrize('idx', [0, -1, 3, slice(0, 2), slice(None, None, 2)])
def test_modulelist_delitem_pop_setitem(idx):
    def run(lib):
        l, m, n = mlist(lib, 1, 2, 3), mlist(lib, 1, 2, 3), mlist(lib, 1, 2, 3)
        try: del l[idx]
        except Exception as e: return exc(e)
        popped = m.pop(idx)
        out = [state(l), ks(l), state(m), ks(popped) if isinstance(idx, slice) else popped.k]
        if not isinstance(idx, slice):
            n[idx] = stand_ins(lib).Scale(9); out.append(ks(n))
        return out
    same(run)


def test_modulelist_mutations():
    def run(lib):
        l = lib.nn.ModuleList()
        out = [l.append(stand_ins(lib).Scale(1)) is l, l.extend(mlist(lib, 2, 3)) is l]
        l.insert(1, stand_ins(lib).Scale(9)); l.insert(10, stand_ins(lib).Scale(8))
        l += [stand_ins(lib).Scale(4)]
        both = l + mlist(lib, 5)
        out += [ks(l), state(l), type(both).__name__, ks(both), both[0] is l[0], len(l)]
        out += [err(l.extend, 3), err(l.append, 3), err(l.__setitem__, 0, 3), err(lib.nn.ModuleList, 3)]
        return out
    same(run)


@pytest.mark.parametrize('ks_', [(), (1,), (1, 1, 1), (1, 1, 2, 2, 2, 1), (1, 2, 1, 2)])
def test_modulelist_repr(ks_):
    same(lambda lib: repr(mlist(lib, *ks_)))


def test_modulelist_repr_nested_and_linear():
    def run(lib):
        S = stand_ins(lib)
        inner = lib.nn.ModuleList([S.Linear(2, 2) for _ in range(3)])
        outer = lib.nn.ModuleList([inner, lib.nn.Sequential(S.Linear(1, 1), S.Linear(1, 1)), S.Net(), S.Net()])
        net = S.Net(); net.layers = outer
        return repr(net), names(net.named_parameters())
    same(run)


def test_modulelist_repr_ignores_extra_repr_and_indents_blank_lines():
    def run(lib):
        class Odd(lib.nn.Module):
            def extra_repr(self): return "a\n\nb"
        class L(lib.nn.ModuleList):
            def extra_repr(self): return "ignored"
        return repr(L([Odd(), Odd()])), repr(L([Odd(), stand_ins(lib).Scale(1)]))
    same(run)


# --- ModuleDict -----------------------------------------------------------------------------------

def test_moduledict():
    def run(lib):
        S = stand_ins(lib)
        d = lib.nn.ModuleDict({'b': S.Scale(2), 'a': S.Linear(1, 2)})
        d['c'] = S.Scale(3)
        d.update([('e', S.Scale(5)), ['f', S.Scale(6)]])
        d.update(OrderedDict(g=S.Scale(7)))
        d.update(lib.nn.ModuleDict({'h': S.Scale(8)}))
        out = [list(d), list(d.keys()), [type(v).__name__ for v in d.values()], [k for k, _ in d.items()], len(d),
               'a' in d, 'z' in d, state(d), repr(d)]
        out.append(d.pop('c').k); del d['b']; out.append(list(d))
        out += [err(d.__getitem__, 'nope'), err(d.__setitem__, 'x.y', S.Scale(1)), err(d.__setitem__, 'q', 3),
                err(d.update, 3), err(d.update, [('a',)]), err(d.update, [3]), err(d.__setitem__, 'training', S.Scale(1))]
        d.clear(); out += [len(d), repr(d)]
        return out
    same(run)


# --- ParameterList ----------------------------------------------------------------------------------

def test_parameterlist():
    def run(lib):
        P = lib.nn.Parameter
        l = lib.nn.ParameterList([P(lib.zeros(2, 3)), lib.ones(1, dtype=lib.float64), 'x', lib.arange(2).to(lib.float16) if hasattr(lib.Tensor, 'to') and lib is torch else lib.zeros(2, dtype=lib.float16)])
        out = [norm(repr(l)), names(l.named_parameters()), len(l), [type(v).__name__ for v in l], l[2], type(l[-1]).__name__]
        l.append(lib.ones(3)); l.extend([P(lib.ones(1)), 7]); l += [lib.zeros(4)]
        out += [names(l.named_parameters()), len(l), norm(repr(l)), type(l[1:3]).__name__, len(l[1:3]), len(l[::2]),
                l[1:3][0] is l[1]]
        l[0] = lib.ones(5); out += [tuple(l[0].shape), type(l[0]).__name__, l._parameters['0'] is l[0]]
        l[2] = 'y'; out += [l[2], names(l.named_parameters())]
        out += [err(l.__getitem__, 20), err(l.__getitem__, 'a'), err(l), err(l.extend, lib.zeros(2)), err(l.extend, 3),
                err(l.__setitem__, 50, lib.ones(1)), isinstance(l[1], lib.nn.Parameter)]
        return out
    same(run)


def test_parameterlist_requires_grad_kept():
    def run(lib):
        frozen = lib.nn.Parameter(lib.ones(1), requires_grad=False)
        l = lib.nn.ParameterList([frozen, lib.ones(1)])
        return l[0] is frozen, l[0].requires_grad, l[1].requires_grad
    assert same(run) == (True, False, True)


# --- ParameterDict ----------------------------------------------------------------------------------

def test_parameterdict():
    def run(lib):
        P = lib.nn.Parameter
        d = lib.nn.ParameterDict({'b': lib.zeros(2), 'a': P(lib.ones(3)), 'c': 5})
        out = [norm(repr(d)), list(d), names(d.named_parameters()), len(d), 'a' in d, list(reversed(d))]
        d.update([('z', lib.ones(1)), ('y', 'text')])
        d.update(OrderedDict(x=lib.ones(2), w=lib.ones(2)))
        d.update({'v': lib.ones(1), 'u': lib.ones(1)})       # a plain dict: sorted
        out += [list(d), list(d.keys()), [k for k, _ in d.items()], [type(v).__name__ for v in d.values()]]
        out += [d.get('a') is d['a'], d.get('nope', 3), d.setdefault('a', None) is d['a'],
                type(d.setdefault('new', lib.ones(1))).__name__, d.setdefault('n2') is None]
        out += [d.pop('c'), d.popitem()[0], list(d)]
        c = d.copy(); out += [list(c), c['a'] is d['a'], type(c).__name__]
        e = d | lib.nn.ParameterDict(OrderedDict(q=lib.ones(1)))
        out += [list(e), list(d)]
        d |= lib.nn.ParameterDict({'r': lib.ones(1)}); out.append(list(d))
        f = d.fromkeys(['k1', 'k2'], lib.ones(1)); out += [list(f), f['k1'] is f['k2']]
        out += [err(d.__getitem__, 1), err(d.__getitem__, 'nope'), err(d), err(d, 1), err(d.update, 3),
                err(d.update, [('a',)]), err(d.update, [3])]
        del d['a']; out.append(list(d))
        d.clear(); out += [list(d), len(d), repr(d)]
        return out
    same(run)


def test_parameterdict_non_string_key_leaves_no_trace():
    "litnn checks the key before recording it (torch records it, then raises): a failed set changes nothing."
    d = litnn.nn.ParameterDict({'a': litnn.ones(1)})
    t = torch.nn.ParameterDict({'a': torch.ones(1)})
    assert norm(err(t.__setitem__, 1, torch.ones(1))[1]) == err(d.__setitem__, 1, litnn.ones(1))[1]
    assert list(d) == ['a'] and len(d) == 1
    assert len(t) == 2     # torch's leftover key


# --- reprs with collapsing (litnn's opt-in) --------------------------------------------------------

def test_collapse_opt_in_sequential_and_moduledict():
    S = stand_ins(litnn)
    s = litnn.nn.Sequential(S.Scale(1), S.Scale(1), S.Scale(2), S.Scale(1), S.Scale(1))
    d = litnn.nn.ModuleDict({'a': S.Scale(1), 'b': S.Scale(1), 'c': S.Scale(2)})
    od = litnn.nn.Sequential(OrderedDict([('x', S.Scale(1)), ('y', S.Scale(1))]))
    default = repr(s), repr(d), repr(od)
    set_repr_options(collapse_repeats=True)
    try: collapsed = repr(s), repr(d), repr(od)
    finally: set_repr_options(collapse_repeats=False)
    assert default == (repr(s), repr(d), repr(od))
    assert default[0].count('Scale') == 5
    assert collapsed == ("Sequential(\n  (0-1): 2 x Scale(k=1)\n  (2): Scale(k=2)\n  (3-4): 2 x Scale(k=1)\n)",
                         "ModuleDict(\n  (a, b): 2 x Scale(k=1)\n  (c): Scale(k=2)\n)",
                         "Sequential(\n  (x, y): 2 x Scale(k=1)\n)")


def test_collapse_after_delete_is_still_a_range():
    S = stand_ins(litnn)
    s = litnn.nn.Sequential(*(S.Scale(1) for _ in range(4)), S.Scale(2))
    del s[1]
    set_repr_options(collapse_repeats=True)
    try: r = repr(s)
    finally: set_repr_options(collapse_repeats=False)
    assert r == "Sequential(\n  (0-2): 3 x Scale(k=1)\n  (3): Scale(k=2)\n)"


# --- random sequences of list operations ------------------------------------------------------------

LIST_OPS = st.lists(st.one_of(
    st.tuples(st.just('append'), st.integers(0, 3)),
    st.tuples(st.just('insert'), st.integers(-5, 5), st.integers(0, 3)),
    st.tuples(st.just('del'), st.integers(-5, 5)),
    st.tuples(st.just('delslice'), st.integers(-4, 4), st.integers(-4, 4), st.sampled_from([1, 2, -1])),
    st.tuples(st.just('pop'), st.integers(-5, 5)),
    st.tuples(st.just('set'), st.integers(-5, 5), st.integers(0, 3)),
    st.tuples(st.just('extend'), st.lists(st.integers(0, 3), max_size=3))), max_size=15)


def run_list_ops(lib, kind, ops):
    S = stand_ins(lib)
    c = getattr(lib.nn, kind)()
    log = []
    for op in ops:
        try:
            if op[0] == 'append': c.append(S.Scale(op[1]))
            elif op[0] == 'insert': c.insert(op[1], S.Scale(op[2]))
            elif op[0] == 'del': del c[op[1]]
            elif op[0] == 'delslice': del c[op[1]:op[2]:op[3]]
            elif op[0] == 'pop': c.pop(op[1])
            elif op[0] == 'set': c[op[1]] = S.Scale(op[2])
            elif op[0] == 'extend': c.extend([S.Scale(k) for k in op[1]])
            log.append('ok')
        except Exception as e: log.append(exc(e))
    return log, list(c._modules), ks(c._modules.values()), repr(c), len(c)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(['Sequential', 'ModuleList']), LIST_OPS)
def test_random_list_operations_match_torch(kind, ops):
    same(lambda lib: run_list_ops(lib, kind, ops))

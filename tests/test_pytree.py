"""litnn.utils._pytree against torch.utils._pytree on the same trees: leaves, specs (repr, counts), errors, key paths."""
from collections import OrderedDict, defaultdict, deque, namedtuple
import pytest
import litnn
import litnn.utils._pytree as lp
torch = pytest.importorskip('torch')
import torch.utils._pytree as tp

Pair = namedtuple('Pair', 'x y')
TREES = [[1, (2, 3)], {'b': 1, 'a': [2]}, deque([1, 2], maxlen=3), defaultdict(list, k=[1]), OrderedDict(a=(1,)), Pair(1, [2]),
         None, 5, [], {'weights': [1.0, (2, None)], 'step': Pair(1, OrderedDict(lr=0.1))}, ((), [[]], {})]


@pytest.mark.parametrize('tree', TREES, ids=repr)
def test_flatten_as_torch(tree):
    (l, s), (tl, ts) = lp.tree_flatten(tree), tp.tree_flatten(tree)
    assert l == tl and repr(s) == repr(ts).replace('torch', 'litnn')
    assert (s.num_nodes, s.num_leaves, s.num_children) == (ts.num_nodes, ts.num_leaves, ts.num_children)
    back = lp.tree_unflatten(l, s)
    assert back == tree and type(back) is type(tree)
    assert [lp.keystr(k) for k, _ in lp.tree_leaves_with_path(tree)] == [tp.keystr(k) for k, _ in tp.tree_leaves_with_path(tree)]
    assert lp.treespec_pprint(s) == tp.treespec_pprint(ts)


@pytest.mark.parametrize('bad', [
    lambda m: m.tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20,)]),
    lambda m: m.tree_map(lambda x, y: x, {'a': 1}, {'b': 1}),
    lambda m: m.tree_map(lambda x, y: x, [1, (2, 3)], [10, [20, 30]]),
    lambda m: m.tree_unflatten([1], m.tree_structure([1, 2])),
    lambda m: m.tree_unflatten([1], 5),
    lambda m: m.tree_map(lambda x, y: x, Pair(1, 2), (1, 2))])
def test_errors_as_torch(bad):
    errs = []
    for m in (tp, lp):
        with pytest.raises(Exception) as e: bad(m)
        errs.append((type(e.value).__name__, str(e.value).replace('torch', 'litnn')))
    assert errs[0] == errs[1]


def test_maps_and_predicates_as_torch():
    tree = {'a': [1, 2.0, 'x', True], 'b': (3, None)}
    for f in (lambda m: m.tree_map_only(int, lambda x: -x, tree), lambda m: m.tree_map_only((int, str), lambda x: x * 2, tree),
              lambda m: m.tree_map(lambda x, y: [x] + y, [5, 6], [[7, 9], [1, 2]]), lambda m: m.tree_any(lambda x: x is None, tree),
              lambda m: m.tree_all_only(int, lambda x: x > 0, tree), lambda m: m.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple))):
        assert f(lp) == f(tp)


def test_register_constant_and_dataclass_as_torch():
    import dataclasses

    class Key:
        def __init__(self, s): self.s = s
        def __eq__(self, o): return isinstance(o, Key) and o.s == self.s
        def __hash__(self): return hash(self.s)

    class NoHash:
        def __eq__(self, o): return True

    def run(lib, P):
        out = []
        P.register_constant(Key)
        try:
            leaves, spec = P.tree_flatten({'a': Key('k'), 'b': lib.ones(1)})
            out.append((len(leaves), P.tree_unflatten(leaves, spec)['a'].s))
        finally: P._deregister_pytree_node(Key)
        for f in (lambda: P.register_constant(NoHash), lambda: P.register_constant(object)):
            try: f()
            except Exception as e: out.append((type(e).__name__, str(e)))

        @dataclasses.dataclass
        class Point:
            x: object
            y: object = None
        P.register_dataclass(Point)
        leaves, spec = P.tree_flatten([Point(lib.ones(2)), 3])
        back = P.tree_unflatten([lib.zeros(2), 4], spec)
        out.append((len(leaves), back[0].y, back[1], [str(k) for k in P.tree_flatten_with_path(Point(1, 2))[0][1][0]]))
        for f in (lambda: P.register_dataclass(Point, field_names=['x']), lambda: P.register_dataclass(type('Plain', (), {}))):
            try: f()
            except Exception as e: out.append((type(e).__name__, str(e).replace('<locals>', '').split("'")[0]))
        P._deregister_pytree_node(Point)
        return out
    assert run(litnn, lp) == run(torch, tp)


def test_register_namedtuple_class_and_twice_as_torch():
    "norse registers its parameter namedtuples: torch accepts that (flattening keeps the shared namedtuple entry) and refuses a second registration"
    from collections import namedtuple

    def run(P):
        NT = namedtuple('NT', 'a b')
        out = []
        P.register_pytree_node(NT, lambda x: (list(x)[::-1], None), lambda xs, c: NT(*xs[::-1]))
        try:
            leaves, spec = P.tree_flatten(NT(1, [2, 3]))
            out.append((leaves, P.tree_unflatten([4, 5, 6], spec), P.tree_map(lambda v: v * 10, NT(1, 2))))
            for cls in (NT, namedtuple, list):
                try: P.register_pytree_node(cls, lambda x: (x, None), lambda xs, c: xs)
                except Exception as e: out.append((type(e).__name__, str(e).split(' is ')[1]))
        finally: P._deregister_pytree_node(NT)
        return out
    assert repr(run(lp)) == repr(run(tp))

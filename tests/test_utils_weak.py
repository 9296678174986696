"""litnn.utils.weak side by side with torch.utils.weak: WeakIdRef, WeakIdKeyDictionary (its mapping API, entries leaving
with their keys, removals during iteration), TensorWeakRef. PyTorch's test/test_weak.py runs 25/25 (see the tt-misc log)."""
import copy, gc, re
import pytest
torch = pytest.importorskip('torch')
import torch.utils.weak as tw
import litnn
import litnn.utils.weak as lw

def scenario(m, w):
    "a run of operations on the weak dictionary of `w` with tensors of `m`: the list of what each gives"
    out = []
    a, b, c = m.ones(2), m.zeros(3), m.ones(2)
    d = w.WeakIdKeyDictionary({a: 1, b: 2})
    out += [len(d), d[a], a in d, c in d, 13 in d, d.get(c, 'no'), sorted(d.values())]
    d[c] = 3; out.append(len(d))
    del c; gc.collect(); out.append(len(d))
    out.append(d.setdefault(a, 9)); out.append(d.pop(b)); out.append(d.pop(b, 'gone'))
    for e, f in ((KeyError, lambda: d[m.ones(1)]), (TypeError, lambda: d[13]), (TypeError, lambda: d.__setitem__(13, 1)),
                 (KeyError, lambda: w.WeakIdKeyDictionary().popitem()), (ValueError, lambda: d.update([(1, 2, 3)])), (TypeError, lambda: d.update(42))):
        with pytest.raises(e): f()
    e1, e2 = m.ones(1), m.ones(1)
    x = w.WeakIdKeyDictionary({e1: 'x', e2: 'y'})
    out += [type(x | {a: 0}).__name__, type({a: 0} | x).__name__, x == w.WeakIdKeyDictionary({e2: 'y', e1: 'x'}), x != d]
    out.append(sorted(copy.deepcopy(x).values())); out.append(sorted(x.copy().values()))
    for k in x:                               # a key dying during an iteration
        del e2; gc.collect(); break
    out += [len(x), list(x.values()), len(x.keyrefs())]
    out.append(re.sub('0x[0-9a-f]+', 'ADDR', repr(x)))
    t = m.arange(3.); r = w.TensorWeakRef(t); out.append(r() is t); del t; gc.collect(); out.append(r())
    i = m.ones(1); out += [w.WeakIdRef(i) == w.WeakIdRef(i), hash(w.WeakIdRef(i)) == id(i), w.WeakIdRef(i) == w.WeakIdRef(m.ones(1))]
    out.append(w.WeakTensorKeyDictionary is w.WeakIdKeyDictionary)
    return out

def test_weak_dictionary_as_torch():
    assert scenario(litnn, lw) == scenario(torch, tw)

def test_names_as_torch():
    assert sorted(lw.__all__) == sorted(tw.__all__) and lw.WeakIdKeyDictionary.__module__ == 'litnn.utils.weak'

"""torch._foreach_* side by side with torch 2.13: values, the tuple/list they return, and the errors of bad lists."""
import pytest, numpy as np
import litnn
torch = pytest.importorskip('torch')

def _a(L): return [L.tensor([1., -2.]), L.tensor([[0.5, 3.], [2., 4.]])]
def _b(L): return [L.tensor([3., 0.25]), L.tensor([[2., 1.], [-1., 0.5]])]
def _p(L): return [x.abs() + 0.5 for x in _a(L)]

CASES = {
    'add scalar': lambda L: L._foreach_add(_a(L), 1.5), 'add list alpha': lambda L: L._foreach_add(_a(L), _b(L), alpha=2),
    'add scalars': lambda L: L._foreach_add(_a(L), [1., 2.]), 'add tensor': lambda L: L._foreach_add(_a(L), L.tensor(2.)),
    'sub': lambda L: L._foreach_sub(_a(L), _b(L)), 'mul scalar kw': lambda L: L._foreach_mul(_a(L), scalar=0.5),
    'mul list': lambda L: L._foreach_mul(_a(L), _b(L)), 'div': lambda L: L._foreach_div(_a(L), _p(L)),
    'div int': lambda L: L._foreach_div([L.tensor([1, 2])], 2), 'pow scalar': lambda L: L._foreach_pow(_p(L), 2),
    'pow list': lambda L: L._foreach_pow(_p(L), _b(L)), 'pow number base': lambda L: L._foreach_pow(2., _a(L)),
    'maximum scalar': lambda L: L._foreach_maximum(_a(L), 0.), 'minimum list': lambda L: L._foreach_minimum(_a(L), _b(L)),
    'clamp_min': lambda L: L._foreach_clamp_min(_a(L), 0.75), 'clamp_max scalars': lambda L: L._foreach_clamp_max(_a(L), [0., 1.]),
    'lerp scalar': lambda L: L._foreach_lerp(_a(L), _b(L), 0.3), 'lerp tensors': lambda L: L._foreach_lerp(_a(L), _b(L), _p(L)),
    'lerp weights kw': lambda L: L._foreach_lerp(_a(L), _b(L), weight=[0.1, 0.9]),
    'addcmul': lambda L: L._foreach_addcmul(_a(L), _a(L), _b(L), value=0.5), 'addcmul scalars': lambda L: L._foreach_addcmul(_a(L), _a(L), _b(L), [1., 2.]),
    'addcdiv tensor': lambda L: L._foreach_addcdiv(_a(L), _b(L), _p(L), L.tensor([1., -1.])),
    'norm': lambda L: L._foreach_norm(_a(L)), 'norm 1': lambda L: L._foreach_norm(_a(L), 1), 'norm inf': lambda L: L._foreach_norm(_a(L), float('inf')),
    'norm dtype': lambda L: L._foreach_norm(_a(L), 2, dtype=L.float64), 'max': lambda L: L._foreach_max(_a(L)), 'powsum': lambda L: L._foreach_powsum(_a(L), 2),
    'clone': lambda L: L._foreach_clone(_a(L)), 'mm': lambda L: L._foreach_mm([_a(L)[1]], [_b(L)[1]]),
    'sqrt': lambda L: L._foreach_sqrt(_p(L)), 'exp': lambda L: L._foreach_exp(_a(L)), 'neg': lambda L: L._foreach_neg(_a(L)),
    'sign': lambda L: L._foreach_sign(_a(L)), 'reciprocal': lambda L: L._foreach_reciprocal(_p(L)), 'sigmoid': lambda L: L._foreach_sigmoid(_a(L)),
    'add_ in place': lambda L: (lambda a: (L._foreach_add_(a, _b(L), alpha=0.1), a)[1])(_a(L)),
    'mul_ returns': lambda L: (lambda a: type(L._foreach_mul_(a, 2.)).__name__)(_a(L)),
    'lerp_ in place': lambda L: (lambda a: (L._foreach_lerp_(a, _b(L), 0.5), a)[1])(_a(L)),
    'addcdiv_ in place': lambda L: (lambda a: (L._foreach_addcdiv_(a, _b(L), _p(L), value=-0.5), a)[1])(_a(L)),
    'sqrt_ in place': lambda L: (lambda a: (L._foreach_sqrt_(a), a)[1])(_p(L)),
    'copy_': lambda L: (lambda a: (L._foreach_copy_(a, _b(L)), a)[1])(_a(L)), 'zero_': lambda L: (lambda a: (L._foreach_zero_(a), a)[1])(_a(L)),
    'empty list': lambda L: L._foreach_add([], 1), 'lengths differ': lambda L: L._foreach_add(_a(L), _b(L)[:1]),
    'in place on a leaf that requires grad': lambda L: L._foreach_mul_([L.ones(2, requires_grad=True)], 2),
    # pytorch_optimizer's Adamax, AdaMod, AdaPNM, ADOPT, CAME keep running maxima with these (a tensor operand, in place)
    'maximum_ list in place': lambda L: (lambda a: (L._foreach_maximum_(a, _b(L)), a)[1])(_a(L)),
    'minimum_ list in place': lambda L: (lambda a: (L._foreach_minimum_(a, _b(L)), a)[1])(_a(L)),
    'maximum_ scalar in place': lambda L: (lambda a: (L._foreach_maximum_(a, 0.), a)[1])(_a(L)),
    'maximum_ nan either side': lambda L: (lambda a: (L._foreach_maximum_(a, [L.tensor([float('nan'), 0.])]), a)[1])([L.tensor([1., float('nan')])]),
    'maximum_ half from float': lambda L: (lambda a: (L._foreach_maximum_(a, [L.tensor([2., 3.])]), a)[1])([L.tensor([1., 5.], dtype=L.float16)]),
    'minimum_ int from float': lambda L: L._foreach_minimum_([L.tensor([1, 5])], [L.tensor([2., 3.])]),
    'grad through out of place': lambda L: (lambda x: (L._foreach_mul([x], 3.)[0].sum().backward(), x.grad)[1])(L.ones(2, requires_grad=True)),
    # torch's parser and checks (the error cases of test/test_foreach.py's binary/pointwise tests, run here without OpInfo)
    'scalar list too short': lambda L: L._foreach_add(_a(L), [1.]), 'empty scalar list': lambda L: L._foreach_mul_(_a(L), []),
    'scalar list of numpy numbers': lambda L: L._foreach_mul(_a(L), [np.float64(2.), np.int64(3)]),
    'a list mixing numbers and tensors': lambda L: L._foreach_add(_a(L), [1., _b(L)[1]]),
    'None in the tensors': lambda L: L._foreach_add([_a(L)[0], None], 1), 'None in the other list': lambda L: L._foreach_add(_a(L), [_b(L)[0], None]),
    'None in addcmul tensor1': lambda L: L._foreach_addcmul(_a(L), [None, None], _b(L)),
    'add a 1-d tensor of values': lambda L: L._foreach_add(_a(L), L.tensor([1., 2.])),
    'mul_ a 2-d tensor of values': lambda L: L._foreach_mul_(_a(L), L.ones(1, 1)),
    'sub a 1-d tensor (no Tensor overload)': lambda L: L._foreach_sub(_a(L), L.tensor([1., 2.])),
    'sub_ a 1-d tensor, tuple': lambda L: L._foreach_sub_(tuple(_a(L)), L.tensor([1., 2.])),
    'sub a 1-d tensor with alpha': lambda L: L._foreach_sub(_a(L), L.tensor([1., 2.]), alpha=2),
    'maximum a 1-d tensor': lambda L: L._foreach_maximum(_a(L), L.tensor([1., 2.])),
    'pow / pow_ a 1-d tensor': lambda L: '|'.join(str(e) for e in _errors(lambda: L._foreach_pow(_p(L), L.ones(2)), lambda: L._foreach_pow_(_p(L), L.ones(2)))),
    'sub a 0-d tensor is a number': lambda L: L._foreach_sub(_a(L), L.tensor(2.)),
    'addcmul scalars too short': lambda L: L._foreach_addcmul(_a(L), _a(L), _b(L), [1.]),
    'addcdiv 0-d scalars tensor': lambda L: L._foreach_addcdiv(_a(L), _b(L), _p(L), L.tensor(1.)),
    'addcdiv scalars tensor too long': lambda L: L._foreach_addcdiv(_a(L), _b(L), _p(L), L.tensor([1., 2., 3.])),
    'addcmul_ non-contiguous scalars': lambda L: L._foreach_addcmul_(_a(L), _b(L), _p(L), L.tensor([[0., 1.], [2., 3.]])[:, 1]),
    'max of an empty tensor': lambda L: L._foreach_max([L.ones(2), L.ones(0)]),
}

def _errors(*fs):
    "The exceptions the calls `fs` raise (each must raise)."
    out = []
    for f in fs:
        try: f()
        except Exception as e: out.append(e)
        else: raise AssertionError("no error")
    return out

def _run(L, f):
    try: r = f(L)
    except Exception as e: return type(e).__name__, str(e)
    if isinstance(r, str): return r
    kind = type(r).__name__ if isinstance(r, (list, tuple)) else 'tensor'
    rs = r if isinstance(r, (list, tuple)) else [r]
    return kind, [(np.asarray(t.detach().tolist(), dtype=np.float64), str(t.dtype).split('.')[-1]) for t in rs]

@pytest.mark.parametrize('case', CASES)
def test_foreach_as_torch(case):
    t, l = _run(torch, CASES[case]), _run(litnn, CASES[case])
    if isinstance(t, tuple) and t[0] in ('tuple', 'list', 'tensor'):
        assert l[0] == t[0] and len(l[1]) == len(t[1]), (t, l)
        for (a, da), (b, db) in zip(t[1], l[1]):
            assert da == db; np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)
    else: assert l == t, (t, l)

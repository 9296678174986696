"""torch.library and torch.ops side by side with torch 2.13: custom operators (schemas read from annotations, calls
checked against them, the autograd node and its formula, fakes on meta tensors, mutation, refusals) and Library's
define/impl. Each case runs the same code on both libraries and compares what it prints or raises."""
import itertools, typing
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')
_n = itertools.count()


def run(lib, case):
    "What `case(lib, ns)` returns, or the exception it raises (type and message), with litnn's names spelled as torch's."
    ns = f"t{next(_n)}"            # a fresh namespace per run: operators cannot be defined twice
    try: out = case(lib, ns)
    except Exception as e: out = (type(e).__name__, str(e).split('Declaration')[0].split(' (with implementation')[0])
    return repr(out).replace('litnn', 'torch').replace(ns, 'NS')


def sin_op(lib, ns, autograd=True):
    Tensor = lib.Tensor
    def numpy_sin(x: Tensor) -> Tensor:
        return lib.from_numpy(np.sin(x.numpy()))       # below autograd: numpy() of a grad tensor is allowed, as torch
    op = lib.library.custom_op(f"{ns}::numpy_sin", numpy_sin, mutates_args=())
    if autograd:
        def setup_context(ctx, inputs, output): ctx.save_for_backward(inputs[0])
        def backward(ctx, g): return g * ctx.saved_tensors[0].cos()
        op.register_autograd(backward, setup_context=setup_context)
    return op


def case_forward_and_grad(lib, ns):
    op = sin_op(lib, ns)
    x = lib.tensor([0.5, 1.0, -2.0], dtype=lib.float64, requires_grad=True)
    y = op(x)
    y.sum().backward()
    return y.grad_fn.name(), np.round(y.detach().numpy(), 12).tolist(), np.round(x.grad.numpy(), 12).tolist()

def case_no_formula(lib, ns):
    op = sin_op(lib, ns, autograd=False)
    y = op(lib.ones(2, requires_grad=True))
    return y.requires_grad, y.sum().backward()

def case_by_name(lib, ns):
    sin_op(lib, ns)
    packet = getattr(getattr(lib.ops, ns), 'numpy_sin')
    return (str(packet), repr(packet), repr(packet.default), packet.default.name(), packet.overloads(),
            packet.default(lib.zeros(1)).tolist(), packet(lib.zeros(1)).tolist())

def case_unknown_op(lib, ns):
    sin_op(lib, ns)
    return getattr(getattr(lib.ops, ns), 'nope')

def case_schema_and_checks(lib, ns):
    Tensor = lib.Tensor
    def two(x: Tensor, n: int, s: float = 2.0) -> tuple[Tensor, Tensor]: return x * n, x * s
    op = lib.library.custom_op(f"{ns}::two", two, mutates_args=())
    out = [str(op._opoverload._schema), [t.tolist() for t in op(lib.ones(2), 3)], [t.tolist() for t in op(lib.ones(2), 3, s=4.0)]]
    for args, kw in (((lib.ones(2), 'a'), {}), ((lib.ones(2),), {}), ((lib.ones(2), 3), {'zz': 1}), ((lib.ones(2), 1.5), {})):
        try: op(*args, **kw)
        except RuntimeError as e: out.append(str(e).split('Declaration')[0].split('. Schema')[0])
    return out

@pytest.mark.parametrize('fn', ['no_annotation', 'bad_default', 'varargs', 'unknown_mutated', 'no_return', 'tuple_param', 'ok_mutated', 'unknown'])
def test_infer_schema_as_torchs(fn):
    def case(lib, ns):
        Tensor, Optional = lib.Tensor, typing.Optional
        fns = {
            'no_annotation': lambda x: x,
            'bad_default': (lambda: None),
            'varargs': None, 'unknown_mutated': None, 'no_return': None, 'tuple_param': None, 'ok_mutated': None, 'unknown': None}
        def bad_default(x: Tensor, l: list[int] = (1, 2)) -> Tensor: ...
        def varargs(x: Tensor, *args) -> Tensor: ...
        def mutated(x: Tensor, out: Tensor) -> None: ...
        def no_return(x: Tensor): ...
        def tuple_param(x: tuple[Tensor, Tensor]) -> Tensor: ...
        def many(x: Optional[Tensor], xs: list[Tensor], n: Optional[int] = None, b: bool = True, s: str = 'a',
                 d: lib.dtype = lib.float32, *, k: float = 1e-5) -> list[Tensor]: ...
        f, mutates = {'no_annotation': (lambda x: x, ()), 'bad_default': (bad_default, ()), 'varargs': (varargs, ()),
                      'unknown_mutated': (mutated, {'y'}), 'no_return': (no_return, ()), 'tuple_param': (tuple_param, ()),
                      'ok_mutated': (mutated, {'out'}), 'unknown': (many, 'unknown')}[fn]
        s = lib.library.infer_schema(f, mutates_args=mutates)
        return s, str(lib.library.custom_op(f"{ns}::f", f, mutates_args=mutates)._opoverload._schema)
    t, l = run(torch, case), run(litnn, case)
    if 'unsupported type' in t:         # (the lists of valid types are spelled differently: the first sentence agrees)
        t, l = t.split('The valid types')[0], l.split('The valid types')[0]
    assert l == t

def case_meta_and_fake(lib, ns):
    op = sin_op(lib, ns)
    out = []
    try: op(lib.ones(2, device='meta'))
    except RuntimeError as e: out.append(str(e))
    op.register_fake(lambda x: lib.empty_like(x))
    y = op(lib.ones(3, 4, device='meta'))
    return out + [tuple(y.shape), str(y.device), str(y.dtype)]

def case_alias_and_wrong_return(lib, ns):
    Tensor, out = lib.Tensor, []
    def same(x: Tensor) -> Tensor: return x
    def view(x: Tensor) -> Tensor: return x.view(-1)
    def three(x: Tensor) -> Tensor: return 3
    for name, f in (('same', same), ('view', view), ('three', three)):
        try: lib.library.custom_op(f"{ns}::{name}", f, mutates_args=())(lib.ones(2)); out.append('ok')
        except RuntimeError as e: out.append(str(e).split(': ', 1)[-1][:80] if 'implementation' in str(e) else str(e))
    return out

def case_keyword_only_and_mutation(lib, ns):
    Tensor = lib.Tensor
    def mul(x: Tensor, *, val: float) -> Tensor: return x * val
    op = lib.library.custom_op(f"{ns}::mul", mul, mutates_args=())
    op.register_autograd(lambda ctx, g: g * ctx.val,
                         setup_context=lambda ctx, inputs, keyword_only_inputs, output: setattr(ctx, 'val', keyword_only_inputs['val']))
    x = lib.tensor([1., 2.], requires_grad=True)
    op(x, val=3.0).sum().backward()
    def fill_(out: Tensor, value: float) -> None: out.fill_(value)
    f = lib.library.custom_op(f"{ns}::fill_", fill_, mutates_args={"out"})
    t = lib.zeros(3)
    r = f(t, 7.0)
    try: f.register_autograd(lambda ctx, g: g)
    except RuntimeError as e: err = str(e).split(' with schema')[0]
    return x.grad.tolist(), r, t.tolist(), str(f._opoverload._schema), err

def case_list_of_tensors(lib, ns):
    Tensor = lib.Tensor
    def cat2(xs: list[Tensor]) -> Tensor: return lib.cat(xs)
    op = lib.library.custom_op(f"{ns}::cat2", cat2, mutates_args=())
    op.register_autograd(lambda ctx, g: ([g[:2], g[2:]],))
    a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
    op([a, b]).mul(lib.arange(5.)).sum().backward()
    return a.grad.tolist(), b.grad.tolist()

def case_register_by_name(lib, ns):
    sin_op(lib, ns, autograd=False)
    lib.library.register_autograd(f"{ns}::numpy_sin", lambda ctx, g: g * 2, setup_context=lambda ctx, inputs, output: None)
    x = lib.ones(2, requires_grad=True)
    getattr(lib.ops, ns).numpy_sin(x).sum().backward()
    out = [x.grad.tolist()]
    try: lib.library.register_fake(f"{ns}::unknown_op", lambda x: x)
    except RuntimeError as e: out.append(str(e))
    return out

def case_library_define_impl(lib, ns):
    L = lib.library.Library(ns, "DEF")
    L.define("mul3(Tensor x) -> Tensor")
    L.impl("mul3", lambda x: x * 3, "CompositeImplicitAutograd")
    x = lib.ones(2, requires_grad=True)
    op = getattr(lib.ops, ns).mul3
    op(x).sum().backward()
    out = [op(lib.ones(2)).tolist(), x.grad.tolist()]
    try: L.define("mul3(Tensor x) -> Tensor")
    except RuntimeError as e: out.append(str(e).split('. Each')[0])
    return out

def case_gradcheck(lib, ns):
    op = sin_op(lib, ns)
    return lib.autograd.gradcheck(op, (lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True),))

def case_no_mutates_args(lib, ns):
    def f(x: lib.Tensor) -> lib.Tensor: return x.clone()
    return lib.library.custom_op(f"{ns}::f", f)

def case_triton_op(lib, ns):
    "spikingjelly's neuron operators: a triton_op (the function is kernel and fake), then an autograd formula on it"
    @lib.library.triton_op(f"{ns}::sadd", mutates_args=())
    def sadd(x: lib.Tensor, y: lib.Tensor, alpha: float) -> lib.Tensor:
        return x + alpha * y
    x, y = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    out = [sadd(x, y, 2.).tolist(), getattr(lib.ops, ns).sadd(lib.ones(2), lib.ones(2), 0.5).tolist(),
           tuple(sadd(lib.ones(3, device='meta'), lib.ones(3, device='meta'), 1.).shape)]
    try: sadd(x, y, 2.).sum().backward()
    except RuntimeError as e: out.append(str(e))
    def setup(ctx, inputs, output): ctx.alpha = inputs[2]
    sadd.register_autograd(lambda ctx, g: (g, g * ctx.alpha, None), setup_context=setup)
    sadd(x, y, 3.).sum().backward()
    from importlib import import_module
    with import_module(lib.__name__ + '._subclasses.fake_tensor').unset_fake_temporarily() as mode: out.append(mode)
    return out + [x.grad.tolist(), y.grad.tolist()]

CASES = [c for n, c in sorted(globals().items()) if n.startswith('case_')]

@pytest.mark.parametrize('case', CASES, ids=[c.__name__[5:] for c in CASES])
def test_custom_ops_as_torchs(case):
    assert run(litnn, case) == run(torch, case)


def test_operator_tags_as_torch():
    "An operator's tags: what it declared, after the pt2_compliant_tag every custom op gets."
    res = []
    for lib in (litnn, torch):
        ns = f"tags{next(_n)}"
        @lib.library.custom_op(f'{ns}::one', mutates_args=(), tags=lib.Tag.pointwise)
        def one(x: lib.Tensor) -> lib.Tensor: return x.clone()
        @lib.library.custom_op(f'{ns}::two', mutates_args=(), tags=(lib.Tag.pointwise, lib.Tag.core))
        def two(x: lib.Tensor) -> lib.Tensor: return x.clone()
        lib.library.define(f'{ns}::three', '(Tensor x) -> Tensor', tags=lib.Tag.core)
        ops = getattr(lib.ops, ns)
        res.append([[t.name for t in o.default.tags] for o in (ops.one, ops.two, ops.three)])
    assert res[0] == res[1]

"""Tensor.grad_dtype (torch 2.13): the dtype a leaf's gradients take, compared with torch on the same programs."""
import pytest
import litnn

torch = pytest.importorskip('torch')


def _program(lib, steps):
    "Run `steps` (a list of (kind, arg)) on a fresh leaf; returns what each step shows (values, dtypes, errors)."
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = []
    for kind, arg in steps:
        try:
            if kind == 'get': out.append(str(x.grad_dtype).split('.')[-1])
            elif kind == 'set': x.grad_dtype = None if arg is None else getattr(lib, arg) if isinstance(arg, str) and hasattr(lib, arg) else arg
            elif kind == 'assign': x.grad = None if arg is None else lib.ones(2, dtype=getattr(lib, arg))
            elif kind == 'backward': (x * arg).sum().backward()
            elif kind == 'grad': out.append(str(lib.autograd.grad((x * arg).sum(), x)[0].dtype).split('.')[-1])
            elif kind == 'nonleaf':
                y = x * 2
                if arg == 'get': y.grad_dtype
                else: y.grad_dtype = lib.float16
            if x.grad is not None: out.append((str(x.grad.dtype).split('.')[-1], x.grad.tolist()))
        except Exception as e: out.append((type(e).__name__, str(e)))
    return out


PROGRAMS = {
    'default is the dtype': [('get', None), ('backward', 3.0)],
    'half gradients': [('set', 'float16'), ('get', None), ('backward', 3.0), ('backward', 3.0), ('assign', 'float32')],
    'double from autograd.grad': [('set', 'float64'), ('grad', 2.0), ('backward', 2.0)],
    'None allows any dtype': [('set', None), ('get', None), ('assign', 'float64'), ('backward', 3.0), ('assign', 'float16'), ('backward', 1.0)],
    'the default refuses another dtype': [('assign', 'float64'), ('assign', 'int64')],
    'a non-leaf has none': [('nonleaf', 'get'), ('nonleaf', 'set')],
    'not a dtype': [('set', 'float16x'), ('set', 3)],
    'back to the default dtype': [('set', 'float16'), ('set', 'float32'), ('backward', 2.0)],
}


@pytest.mark.parametrize('name', PROGRAMS)
def test_grad_dtype_as_torch(name):
    assert _program(litnn, PROGRAMS[name]) == _program(torch, PROGRAMS[name])


def test_grad_dtype_of_a_leaf_without_grad_and_a_parameter():
    for lib in (litnn, torch):
        z = lib.ones(2)
        z.grad_dtype = lib.int64
        assert z.grad_dtype == lib.int64
        assert lib.nn.Parameter(lib.ones(2)).grad_dtype == lib.float32

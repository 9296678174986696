"""CPU autocast's casting policy against torch 2.13's own op lists (torch.testing._internal.autocast_test_lists, the lists
PyTorch's test/test_autocast.py runs): for every op, under autocast to bfloat16 and to float16, the output dtype as torch's,
and the result bitwise equal to the op run on its inputs cast by hand (what the test checks). The nn lists run through
nn.functional (torch._C._nn, which the test calls, is torch's C++ namespace)."""
import ast, importlib.util, warnings
import pytest
torch = pytest.importorskip('torch')
import litnn

# The lists' class is read from torch's file and run with torch = litnn or torch, without importing that module: it
# imports torch's test framework (common_utils), which needs `expecttest` and freezes torch.backends' flags on import.
_LISTS = importlib.util.find_spec('torch.testing._internal.autocast_test_lists').origin
_CLASS = next(n for n in ast.parse(open(_LISTS).read()).body if isinstance(n, ast.ClassDef) and n.name == 'AutocastCPUTestLists')

def lists(m):
    "AutocastCPUTestLists made with `m`'s tensors (its source run with torch = m)"
    ns = {'torch': m, '__name__': 'autocast_test_lists'}
    exec(compile(ast.Module([_CLASS], []), _LISTS, 'exec'), ns)
    return ns['AutocastCPUTestLists'](m.device('cpu'))

PAIRED = ('torch_expect_builtin_promote', 'methods_expect_builtin_promote', 'torch_need_autocast_promote')   # (op, args for bf16, args for fp16, ...)
CASES = [(lst, i, amp) for lst in PAIRED + ('torch_16', 'nn_16', 'torch_fp32', 'nn_fp32')
         for i in range(len(getattr(lists(torch), lst))) for amp in ('bfloat16', 'float16')]

def run(m, L, lst, i, amp):
    e = getattr(L, lst)[i]
    op = e[0]
    args = e[1 if amp == 'bfloat16' else 2] if lst in PAIRED else e[1]
    kw = e[2] if lst not in PAIRED and len(e) == 3 else {}
    f = getattr(m.nn.functional, op) if lst.startswith('nn_') else None if lst.startswith('methods') else getattr(m, op)
    call = (lambda a: f(*a, **kw)) if f is not None else (lambda a: getattr(a[0], op)(*a[1:]))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with m.autocast('cpu', dtype=getattr(m, amp)):
            out = call(args)
        low = getattr(m, amp) if lst in ('torch_16', 'nn_16') else m.float32
        cast = lambda v: v.to(low) if isinstance(v, m.Tensor) and v.is_floating_point() else type(v)(cast(x) for x in v) if isinstance(v, (list, tuple)) else v
        control = call(cast(args))
    out, control = (out[0], control[0]) if isinstance(out, tuple) else (out, control)
    return str(out.dtype).split('.')[-1], bool(m.equal(out, control))

LITNN, TORCH = lists(litnn), lists(torch)

@pytest.mark.parametrize('lst,i,amp', CASES)
def test_cpu_autocast_as_torch(lst, i, amp):
    op = getattr(TORCH, lst)[i][0]
    if lst.startswith('nn_') and not hasattr(torch.nn.functional, op): pytest.skip(f"{op}: torch._C._nn's only")
    assert run(litnn, LITNN, lst, i, amp) == run(torch, TORCH, lst, i, amp)


@pytest.mark.parametrize('kw', [dict(enabled=1), dict(enabled=None), dict(enabled=0), dict(enabled=True), dict(enabled=False)])
def test_enabled_must_be_a_bool_on_entry_as_torch(kw):
    "torch keeps autocast's `enabled` as given and its C++ setter refuses a non-bool on entry (0 and None too)"
    res = []
    for m in (litnn, torch):
        try:
            with m.autocast('cpu', **kw): res.append(('ok', m.is_autocast_enabled('cpu')))
        except TypeError as e: res.append(('TypeError', str(e)))
        m.set_autocast_enabled('cpu', False)
    assert res[0] == res[1]

"""Top-level names of issue 29 side by side with PyTorch 2.13: the constants, the process-wide switches, the float8
dtypes, histogram, nonzero_static, empty_permuted and the view copies (values, dtypes, errors, gradients)."""
import math, warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from api_pairs import check, same_error, host

# constants
@pytest.mark.parametrize('name', ['inf', 'nan', 'pi', 'e', 'newaxis'])
def test_constants(name):
    l, t = getattr(litnn, name), getattr(torch, name)
    assert type(l) is type(t)
    if name == 'newaxis': assert l is None
    else: assert l is getattr(math, name) and (l == t or (math.isnan(l) and math.isnan(t)))
    assert name in litnn.__all__

def test_constants_in_use():
    for lib in (litnn, torch):
        x = lib.tensor([[1., 2., 3.]])
        out = x.masked_fill(lib.tensor([[False, True, False]]), -lib.inf).softmax(-1)
        assert out[0, 1].item() == 0 and x[:, lib.newaxis].shape == (1, 1, 3)

# process-wide switches
def test_warn_always():
    for lib in (litnn, torch):
        assert lib.is_warn_always_enabled() is False
        lib.set_warn_always(True); assert lib.is_warn_always_enabled() is True
        lib.set_warn_always(False); assert lib.is_warn_always_enabled() is False
    for bad in (1, 'x', None): same_error(lambda lib: lib.set_warn_always(bad))

@pytest.mark.parametrize('t', ['DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'FloatTensor'])
@pytest.mark.parametrize('by_name', [False, True])
def test_set_default_tensor_type(t, by_name):
    try:
        for lib in (litnn, torch):
            lib.set_warn_always(True)       # the deprecation shows once per process otherwise, in both
            with pytest.warns(UserWarning, match='set_default_tensor_type\\(\\) is deprecated as of PyTorch 2.1'):
                lib.set_default_tensor_type(f'torch.{t}' if by_name else getattr(lib, t))
        assert litnn.get_default_dtype().name == str(torch.get_default_dtype()).removeprefix('torch.')
        assert litnn.tensor([1.5]).dtype.name == str(torch.tensor([1.5]).dtype).removeprefix('torch.')
    finally:
        litnn.set_default_dtype(litnn.float32); torch.set_default_dtype(torch.float32)
        litnn.set_warn_always(False); torch.set_warn_always(False)

def test_set_default_tensor_type_warns_once():
    "Both warn the first time (a refused argument too), then only while set_warn_always is on."
    counts = {}
    for lib in (litnn, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            for t in ('FloatTensor', 'FloatTensor'): lib.set_default_tensor_type(getattr(lib, t))
            lib.set_warn_always(True); lib.set_default_tensor_type(lib.FloatTensor); lib.set_warn_always(False)
            lib.set_default_tensor_type(lib.FloatTensor)
        counts[lib.__name__] = len([w for w in caught if 'deprecated' in str(w.message)])
    assert counts['litnn'] == counts['torch'] >= 1, counts

def test_set_default_tensor_type_refusals():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same_error(lambda lib: lib.set_default_tensor_type(lib.LongTensor))
        same_error(lambda lib: lib.set_default_tensor_type('torch.IntTensor'))
        same_error(lambda lib: lib.set_default_tensor_type(lib.float64))
        same_error(lambda lib: lib.set_default_tensor_type(3))
        same_error(lambda lib: lib.set_default_tensor_type('torch.Foo'))
        same_error(lambda lib: lib.set_default_tensor_type('foo_no_such_module'))
        if not torch.cuda.is_available(): same_error(lambda lib: lib.set_default_tensor_type('torch.cuda.FloatTensor'), match=False)
        litnn.set_default_tensor_type('litnn.FloatTensor')
    assert litnn.get_default_dtype() is litnn.float32 and torch.get_default_dtype() is torch.float32

def test_is_storage():
    for obj in (lambda lib: lib.tensor([1, 2]), lambda lib: [1, 2], lambda lib: np.zeros(2)):
        assert litnn.is_storage(obj(litnn)) is torch.is_storage(obj(torch)) is False

def test_get_device_module():
    assert litnn.get_device_module('cuda') is litnn.cuda and litnn.get_device_module(litnn.device('cuda:0')) is litnn.cuda
    assert torch.get_device_module('cuda') is torch.cuda
    same_error(lambda lib: lib.get_device_module(3))
    same_error(lambda lib: lib.get_device_module('meta'))
    same_error(lambda lib: lib.get_device_module('foo'), match=False)
    assert litnn.get_device_module('cpu') is litnn.cpu and torch.get_device_module('cpu') is torch.cpu   # tests/test_cpu_module.py

# view copies: the view, then a contiguous copy; torch's grad_fn names (`ViewBackward0_copy`) and gradients
COPIES = [('view_copy', ([6, 4],)), ('expand_copy', None), ('permute_copy', ([2, 0, 1],)), ('transpose_copy', (0, 2)),
          ('t_copy', None), ('diagonal_copy', (1, 1, 2)), ('squeeze_copy', None), ('unsqueeze_copy', (1,)),
          ('unbind_copy', (1,)), ('unfold_copy', (2, 2, 1)), ('split_with_sizes_copy', ([1, 2], 1)), ('alias_copy', ()),
          ('as_strided_copy', ((2, 2), (1, 2), 1)), ('slice_copy', (2, 1, 4, 2)), ('slice_copy', (-1, None, 100)),
          ('select_copy', (1, -1))]
SPECIAL = {'expand_copy': lambda lib, x: lib.expand_copy(x[:, :1], [2, 5, 4]), 't_copy': lambda lib, x: lib.t_copy(x[0]),
           'squeeze_copy': lambda lib, x: (lib.squeeze_copy(x[:, :1]), lib.squeeze_copy(x[:, :1], 1))}

@pytest.mark.parametrize('name,args', COPIES)
def test_view_copies(name, args):
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    f = SPECIAL[name] if args is None else (lambda lib, x: getattr(lib, name)(x, *args))
    outs = check(f, a)
    for o in outs: assert o.is_contiguous()

def test_split_copy_and_copies_into_out():
    "split_copy (an int size), and out= for the copies that give several tensors: written in place (no resize), None returned."
    a = np.random.default_rng(0).standard_normal((5, 3))
    check(lambda lib, x: lib.split_copy(x, 2), a)
    check(lambda lib, x: lib.split_copy(x, 2, 1), a)
    for lib in (litnn, torch):
        x, d = lib.tensor(a), lib.float64
        outs = [[lib.empty(2, 3, dtype=d), lib.empty(2, 3, dtype=d), lib.empty(1, 3, dtype=d)], [lib.empty(3, dtype=d), lib.empty(3, dtype=d)],
                [lib.empty(1, 3, dtype=d), lib.empty(4, 3, dtype=d)]]
        assert lib.split_copy(x, 2, out=outs[0]) is None
        assert lib.unbind_copy(x[:2], out=outs[1]) is None
        assert lib.split_with_sizes_copy(x, [1, 4], out=outs[2]) is None
        got = [[host(o) for o in os] for os in outs]
        if lib is litnn: want = got
        else: assert all(np.array_equal(g, w) for gs, ws in zip(got, want) for g, w in zip(gs, ws))
    same_error(lambda lib: lib.split_copy(lib.ones(4), 2, out=[lib.empty(2)]))
    same_error(lambda lib: lib.unbind_copy(lib.ones(2, 2), out=[lib.empty(2)]))
    same_error(lambda lib: lib.split_with_sizes_copy(lib.ones(4), [1, 3], out=[lib.empty(1)]))
    same_error(lambda lib: lib.split_copy(lib.ones(4), [1, 3]))
    same_error(lambda lib: lib.unbind_copy(lib.ones(2, 2, dtype=lib.float64), out=[lib.empty(2), lib.empty(2)]))   # no cast into out
    same_error(lambda lib: lib.split_with_sizes_copy(lib.ones(4, dtype=lib.float64), [1, 3], out=[lib.empty(1), lib.empty(3)]))
    for lib in (litnn, torch):       # (but split_copy's kernel casts)
        o = [lib.empty(2, dtype=lib.int64), lib.empty(2)]
        lib.split_copy(lib.arange(4, dtype=lib.float64) + 0.5, 2, out=o)
        assert o[0].tolist() == [0, 1] and o[1].tolist() == [2.5, 3.5]

def test_view_copies_do_not_alias():
    for lib in (litnn, torch):
        x = lib.zeros(2, 3)
        lib.transpose_copy(x, 0, 1)[0, 0] = 1.
        lib.select_copy(x, 0, 1)[0] = 1.
        assert x.sum().item() == 0

def test_detach_copy():
    x = litnn.randn(2, 3, requires_grad=True)
    out = litnn.detach_copy(x)
    assert out.is_contiguous() and np.array_equal(out.detach().numpy(), x.detach().numpy())
    t = torch.detach_copy(torch.tensor(x.detach().numpy(), requires_grad=True))   # torch 2.13: requires grad, a node that cannot backward
    assert out.requires_grad == t.requires_grad and type(out.grad_fn).__name__ == type(t.grad_fn).__name__
    same_error(lambda lib: lib.detach_copy(lib.ones(2, requires_grad=True)).sum().backward())

def test_view_copy_errors():
    a = np.arange(6.)
    same_error(lambda lib: lib.view_copy(lib.tensor(a), [4]), match=False)
    same_error(lambda lib: lib.slice_copy(lib.tensor(a), 0, 0, 4, 0), match=False)
    same_error(lambda lib: lib.select_copy(lib.tensor(a), 0, 9), match=False)


def test_star_import_gives_torchs_public_names():
    "`from torch import *`: every name of torch's __all__ that litnn has comes with it; no submodule, no grad_fn class."
    got, want = {}, {}
    exec('from litnn import *', got)
    exec('from torch import *', want)
    missing = [n for n in want if n != '__builtins__' and hasattr(litnn, n) and n not in got
               and type(want[n]) is not type(math)]     # (torch's __all__ names one module, export: litnn's star import gives none)
    assert not missing, missing
    for n in ('tensor', 'zeros', 'float32', 'Tensor', 'no_grad', 'manual_seed', 'cat', 'inf'): assert n in got
    assert not [n for n, v in got.items() if type(v) is type(math) or n.endswith('Backward0')]

def test_private_aliases_are_the_same_object():
    "torch's private names that are its public functions (torch._segment_reduce is torch.segment_reduce) are in litnn too"
    pairs = [(n, m) for n in dir(torch) if n.startswith('_') and not n.startswith('__') and callable(getattr(torch, n))
             for m in dir(torch) if not m.startswith('_') and getattr(torch, m) is getattr(torch, n)]
    assert ('_segment_reduce', 'segment_reduce') in pairs
    for n, m in pairs:
        if hasattr(litnn, n) and hasattr(litnn, m): assert getattr(litnn, n) is getattr(litnn, m), (n, m)

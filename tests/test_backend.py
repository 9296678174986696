"litnn's backend against torch: dtypes and their promotion, devices, the default dtype, seeding."
import itertools
import numpy as np, pytest
import litnn

torch = pytest.importorskip('torch')

NAMES = ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool']
PAIRS = list(itertools.product(NAMES, NAMES))

def name(d):
    "The bare name of a litnn or torch dtype: 'float32'."
    return str(d).rsplit('.', 1)[-1]

def ld(n): return getattr(litnn, n)
def td(n): return getattr(torch, n)

def one(n):
    "A value every dtype holds exactly."
    return True if n == 'bool' else 1

## promote_types

@pytest.mark.parametrize('a,b', PAIRS)
def test_promote_types_all_pairs(a, b):
    assert name(litnn.promote_types(ld(a), ld(b))) == name(torch.promote_types(td(a), td(b)))

WIDE = ['uint16', 'uint32', 'uint64', 'complex64', 'complex128'] + NAMES

@pytest.mark.parametrize('a,b', [(a, b) for a, b in itertools.product(WIDE, WIDE) if {a, b} & {'uint16', 'uint32', 'uint64'}])
def test_promote_types_of_the_wide_unsigned(a, b):
    "uint16/32/64 promote to a float only: with bool, another integer or a complex dtype torch raises its RuntimeError."
    try: t = name(torch.promote_types(td(a), td(b)))
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match='Promotion for uint16, uint32, uint64 types is not supported') as le:
            litnn.promote_types(ld(a), ld(b))
        assert str(le.value) == str(e)
    else: assert name(litnn.promote_types(ld(a), ld(b))) == t

@pytest.mark.parametrize('b', WIDE + ['complex32', 'float8_e5m2'])
def test_promote_types_of_complex32(b):
    "complex32 (a dtype litnn names but does not store) promotes as torch's: complex32 with float16, bool and integers."
    for x, y in (('complex32', b), (b, 'complex32')):
        try: t = name(torch.promote_types(td(x), td(y)))
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as le: litnn.promote_types(ld(x), ld(y))
            assert str(le.value) == str(e)
        else: assert name(litnn.promote_types(ld(x), ld(y))) == t

def test_promote_types_returns_litnn_dtypes():
    assert litnn.promote_types(litnn.int8, litnn.uint8) is litnn.int16
    assert litnn.promote_types(litnn.float16, litnn.bfloat16) is litnn.float32
    assert isinstance(litnn.promote_types(litnn.bool, litnn.bool), litnn.dtype)

## result type of binary ops

def _pair(lib, a, b, da, db, op):
    x = lib.tensor([one(a)] * 2 if da else one(a), dtype=getattr(lib, a))
    y = lib.tensor([one(b)] * 2 if db else one(b), dtype=getattr(lib, b))
    return name(op(x, y).dtype)

OPS = {'add': lambda x, y: x + y, 'mul': lambda x, y: x * y}

@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('dims', [(True, True), (True, False), (False, True), (False, False)],
                         ids=['dim-dim', 'dim-0d', '0d-dim', '0d-0d'])
def test_binary_result_dtype_tensor_tensor(op, dims):
    bad = []
    for a, b in PAIRS:
        l, t = _pair(litnn, a, b, *dims, OPS[op]), _pair(torch, a, b, *dims, OPS[op])
        if l != t: bad.append((a, b, l, t))
    assert bad == []

@pytest.mark.parametrize('dims', [(True, True), (True, False), (False, True)], ids=['dim-dim', 'dim-0d', '0d-dim'])
def test_true_division_result_dtype(dims):
    bad = []
    for a, b in PAIRS:
        if b == 'bool': continue   # x / False is a division by zero: skip the values, not the dtype logic
        l, t = _pair(litnn, a, b, *dims, lambda x, y: x / y), _pair(torch, a, b, *dims, lambda x, y: x / y)
        if l != t: bad.append((a, b, l, t))
    assert bad == []

PY_SCALARS = [True, 2, 2.5]
NP_SCALARS = [np.float64(2.5), np.float32(2.5), np.int64(2), np.int32(2)]

def _scalar_mismatches(dim, side, op, scalars):
    bad = []
    for a in NAMES:
        for s in scalars:
            res = []
            for lib in (litnn, torch):
                x = lib.tensor([one(a)] * 3 if dim else one(a), dtype=getattr(lib, a))
                r = OPS[op](x, s) if side == 'left' else OPS[op](s, x)
                res.append(f"{type(r).__name__}:{name(r.dtype)}")
            if res[0] != res[1]: bad.append((a, repr(s), *res))
    return bad

@pytest.mark.parametrize('dim', [True, False], ids=['dim', '0d'])
@pytest.mark.parametrize('side', ['left', 'right'])
@pytest.mark.parametrize('op', OPS)
def test_binary_result_dtype_tensor_python_scalar(dim, side, op):
    assert _scalar_mismatches(dim, side, op, PY_SCALARS) == []

@pytest.mark.parametrize('dim', [True, False], ids=['dim', '0d'])
@pytest.mark.parametrize('side', ['left', 'right'])
@pytest.mark.parametrize('op', OPS)
def test_binary_result_dtype_tensor_numpy_scalar(dim, side, op):
    # numpy scalars count as Python numbers in torch: they never widen a tensor's dtype
    assert _scalar_mismatches(dim, side, op, NP_SCALARS) == []

def test_numpy_scalar_times_tensor_is_a_tensor():
    # `np.float64(2.5) * t` first asks numpy; torch makes numpy defer, so the result is a Tensor
    x, tx = litnn.tensor([1., 2.]), torch.tensor([1., 2.])
    assert isinstance(np.float64(2.5) * tx, torch.Tensor)
    r = np.float64(2.5) * x
    assert isinstance(r, litnn.Tensor)
    assert r.dtype is litnn.float32 and r.tolist() == (np.float64(2.5) * tx).tolist()

def test_out_of_range_int_scalar_wraps_like_torch():
    # torch converts the number to the tensor's dtype (wrapping); it does not raise
    for a, s in [('uint8', -3), ('int8', 200)]:
        want = (torch.tensor([1, 2], dtype=td(a)) + s).tolist()
        assert (litnn.tensor([1, 2], dtype=ld(a)) + s).tolist() == want

def test_bfloat16_tensor_times_python_float_stays_bfloat16():
    for lib in (litnn, torch):
        x = lib.tensor([1., 2.], dtype=lib.bfloat16)
        assert name((x * 2.5).dtype) == name((2.5 + x).dtype) == 'bfloat16'

def test_scalar_result_values_match():
    for lib_vals in [(lambda lib: (lib.tensor([1, 2]) * 2.5).tolist()),
                     (lambda lib: (lib.tensor([True, False]) + 3).tolist()),
                     (lambda lib: (lib.tensor([1, 2], dtype=lib.uint8) * True).tolist()),
                     (lambda lib: (7 / lib.tensor([2, 4])).tolist())]:
        assert lib_vals(litnn) == lib_vals(torch)

def test_scalar_promotion_follows_default_dtype():
    prev = litnn.get_default_dtype(), torch.get_default_dtype()
    try:
        litnn.set_default_dtype(litnn.float64); torch.set_default_dtype(torch.float64)
        for lib in (litnn, torch):
            assert name((lib.tensor([1, 2]) * 0.5).dtype) == 'float64'
            assert name((lib.tensor([1, 2], dtype=lib.float32) * 0.5).dtype) == 'float32'
            assert name((lib.tensor([1, 2]) / 2).dtype) == 'float64'
    finally:
        litnn.set_default_dtype(prev[0]); torch.set_default_dtype(prev[1])

## dtypes

def test_dtype_aliases():
    assert litnn.float is litnn.float32 and torch.float is torch.float32
    assert litnn.double is litnn.float64 and torch.double is torch.float64
    assert litnn.half is litnn.float16 and torch.half is torch.float16
    assert litnn.long is litnn.int64 and torch.long is torch.int64
    assert litnn.int is litnn.int32 and torch.int is torch.int32
    assert litnn.short is litnn.int16 and torch.short is torch.int16

@pytest.mark.parametrize('n', NAMES)
def test_dtype_properties(n):
    l, t = ld(n), td(n)
    assert repr(l) == repr(t).replace('torch.', 'litnn.')
    assert l.is_floating_point == t.is_floating_point
    assert l.is_signed == t.is_signed
    assert l.itemsize == t.itemsize
    assert l.is_complex == t.is_complex

def test_dtype_pickles_to_itself():
    import pickle
    for n in NAMES: assert pickle.loads(pickle.dumps(ld(n))) is ld(n)

## default dtype

@pytest.fixture
def restore_default():
    prev = litnn.get_default_dtype(), torch.get_default_dtype()
    yield
    litnn.set_default_dtype(prev[0]); torch.set_default_dtype(prev[1])

def test_default_dtype_is_float32():
    assert litnn.get_default_dtype() is litnn.float32
    assert name(torch.get_default_dtype()) == 'float32'

@pytest.mark.parametrize('d', ['float64', 'float16', 'float32'])
def test_set_default_dtype_effect(d, restore_default):
    litnn.set_default_dtype(ld(d)); torch.set_default_dtype(td(d))
    assert litnn.get_default_dtype() is ld(d)
    mk = [lambda lib: lib.tensor(2.5), lambda lib: lib.tensor([1., 2]), lambda lib: lib.ones(2),
          lambda lib: lib.zeros(2, 3), lambda lib: lib.arange(0., 1., 0.25), lambda lib: lib.arange(3),
          lambda lib: lib.linspace(0, 1, 5), lambda lib: lib.full((2,), 1.5), lambda lib: lib.rand(2),
          lambda lib: lib.tensor(3), lambda lib: lib.eye(2), lambda lib: lib.full((2,), 3)]
    for f in mk: assert name(f(litnn).dtype) == name(f(torch).dtype)

@pytest.mark.parametrize('d', ['float64', 'float16'])
def test_set_default_dtype_effect_on_Tensor_constructor(d, restore_default):
    # torch.Tensor(...) is the legacy constructor of the default tensor type
    litnn.set_default_dtype(ld(d)); torch.set_default_dtype(td(d))
    for args in [(2,), (2, 3), ([1, 2],)]:
        assert name(litnn.Tensor(*args).dtype) == name(torch.Tensor(*args).dtype) == d

def test_set_default_dtype_restored():
    # the fixture in the previous tests must leave float32 behind
    assert litnn.get_default_dtype() is litnn.float32
    assert litnn.tensor(2.5).dtype is litnn.float32

@pytest.mark.parametrize('bad', ['int64', 'bool', 'uint8'])
def test_set_default_dtype_rejects_non_float(bad, restore_default):
    with pytest.raises(TypeError): torch.set_default_dtype(td(bad))
    with pytest.raises(TypeError): litnn.set_default_dtype(ld(bad))
    assert litnn.get_default_dtype() is litnn.float32

## devices

DEVICES = ['cpu', 'cuda', 'cuda:0', 'cuda:1', 'cuda:12', 'cpu:0']

@pytest.mark.parametrize('s', DEVICES)
def test_device_from_string(s):
    l, t = litnn.device(s), torch.device(s)
    assert str(l) == str(t)
    assert repr(l) == repr(t)
    assert (l.type, l.index) == (t.type, t.index)

@pytest.mark.parametrize('args', [('cuda', 1), ('cuda', 0), ('cpu', 0), ('cuda', None)])
def test_device_from_type_and_index(args):
    l, t = litnn.device(*args), torch.device(*args)
    assert (repr(l), str(l)) == (repr(t), str(t))

@pytest.mark.skipif(litnn.cuda.is_available() or torch.cuda.is_available(), reason='an index alone names a GPU that exists')
def test_device_index_alone_without_an_accelerator():
    for f in (lambda lib: lib.device(3), lambda lib: lib.zeros(1, device=0), lambda lib: lib.zeros(1).to(1),
              lambda lib: lib.nn.Linear(2, 2).to(0)):
        with pytest.raises(RuntimeError, match='Cannot access accelerator device when none is available'): f(torch)
        with pytest.raises(RuntimeError, match='Cannot access accelerator device when none is available'): f(litnn)

@pytest.mark.parametrize('s', ['float64', 'xyz', 'cuda:x', 'cpu:0:1', 'cu da', 'CPU', 'cpu:-1', 'cuda0', 'float', '', 'cpu:01', ' cpu', 'cpu ', 'cuda:', 'a_b'])
def test_bad_device_strings_raise_as_torch(s):
    "c10's grammar (letters and _, then an optional :index): 'Invalid device string', 'Expected one of ...', 'must not be empty'."
    with pytest.raises(RuntimeError) as t: torch.device(s)
    with pytest.raises(RuntimeError) as l: litnn.device(s)
    assert str(l.value).replace('litnn', 'torch') == str(t.value)
    with pytest.raises(RuntimeError, match=str(t.value)[:20]): litnn.ones(1).to(s)

def test_device_from_device():
    assert litnn.device(litnn.device('cuda:1')) == litnn.device('cuda', 1)
    assert torch.device(torch.device('cuda:1')) == torch.device('cuda', 1)

def test_device_equality_and_hash():
    for lib in (litnn, torch):
        assert lib.device('cuda:1') == lib.device('cuda', 1)
        assert lib.device('cuda:1') != lib.device('cuda:0')
        assert lib.device('cuda') != lib.device('cuda:0')    # no index is not index 0
        assert lib.device('cpu') != lib.device('cuda')
        assert hash(lib.device('cuda:1')) == hash(lib.device('cuda', 1))
        assert len({lib.device('cpu'), lib.device('cpu'), lib.device('cuda:0')}) == 2

def test_device_equality_with_string():
    for s in ['cpu', 'cuda:0']:
        assert (litnn.device(s) == s) == (torch.device(s) == s)

def test_device_pickles():
    import pickle
    d = litnn.device('cuda:3')
    assert pickle.loads(pickle.dumps(d)) == d

BAD_DEVICES = [('tpu',), ('cuda:x',), ('cuda:-1',), ('cuda:1:2',), ('CUDA',), ('cuda: 1',), ('',), ('cuda:01',),
               ('cuda:1', 2), ('cuda', -1), ('cpu', -1), ('cpu:1',)]

@pytest.mark.parametrize('args', BAD_DEVICES, ids=[repr(a) for a in BAD_DEVICES])
def test_device_errors_match_torch(args):
    try: torch.device(*args); terr = None
    except Exception as e: terr = type(e)
    try: litnn.device(*args); lerr = None
    except Exception as e: lerr = type(e)
    assert lerr == terr

def test_device_tpu_message():
    with pytest.raises(RuntimeError, match='tpu'): torch.device('tpu')
    with pytest.raises(RuntimeError, match='tpu'): litnn.device('tpu')

def test_tensor_device_is_cpu():
    t = litnn.tensor([1., 2.])
    assert t.device == litnn.device('cpu') and str(t.device) == str(torch.tensor([1.]).device)
    assert t.is_cuda is False and t.get_device() == torch.tensor([1.]).get_device()

def test_cuda_is_available_is_a_bool():
    assert isinstance(litnn.cuda.is_available(), bool)

## seeds

def test_manual_seed_reproducible():
    litnn.manual_seed(123)
    a = litnn.rand(5).tolist(), litnn.randn(2, 3).tolist(), litnn.randint(0, 10, (4,)).tolist(), litnn.randperm(6).tolist()
    litnn.manual_seed(123)
    b = litnn.rand(5).tolist(), litnn.randn(2, 3).tolist(), litnn.randint(0, 10, (4,)).tolist(), litnn.randperm(6).tolist()
    assert a == b
    litnn.manual_seed(124)
    assert litnn.rand(5).tolist() != a[0]

def test_manual_seed_returns_generator_and_initial_seed():
    g = litnn.manual_seed(7)
    tg = torch.manual_seed(7)
    assert isinstance(g, litnn.Generator) and isinstance(tg, torch.Generator)
    assert litnn.initial_seed() == torch.initial_seed() == 7
    assert g.initial_seed() == tg.initial_seed() == 7

def test_generator_object_reproducible_and_independent():
    g1 = litnn.Generator().manual_seed(5)
    a = litnn.rand(4, generator=g1).tolist()
    litnn.manual_seed(0); litnn.rand(3)   # the global generator does not disturb g1
    g2 = litnn.Generator().manual_seed(5)
    assert litnn.rand(4, generator=g2).tolist() == a

def test_generator_state_roundtrip():
    litnn.manual_seed(3)
    s = litnn.default_generator.get_state()
    a = litnn.rand(3).tolist()
    litnn.default_generator.set_state(s)
    assert litnn.rand(3).tolist() == a

def test_random_ranges():
    litnn.manual_seed(0)
    r = litnn.rand(1000).numpy()
    assert r.min() >= 0 and r.max() < 1
    i = litnn.randint(3, 7, (1000,)).numpy()
    assert set(i.tolist()) == {3, 4, 5, 6}
    assert sorted(litnn.randperm(10).tolist()) == list(range(10))

## no GPU: every road from a device to an array library ends in one check (backend._cuda_xp)

import os, subprocess, sys, textwrap, types
from litnn import backend as B

CUDA_ENTRY_POINTS = {
    'zeros': lambda L: L.zeros(2, device='cuda'), 'ones': lambda L: L.ones(2, 3, device='cuda:0'),
    'empty': lambda L: L.empty(2, device='cuda'), 'full': lambda L: L.full((2,), 1., device='cuda'),
    'rand': lambda L: L.rand(2, device='cuda'), 'randn': lambda L: L.randn(3, device='cuda'),
    'randint': lambda L: L.randint(0, 3, (2,), device='cuda'), 'randperm': lambda L: L.randperm(3, device='cuda'),
    'normal': lambda L: L.normal(0., 1., (2,), device='cuda'), 'arange': lambda L: L.arange(3, device='cuda'),
    'linspace': lambda L: L.linspace(0, 1, 3, device='cuda'), 'logspace': lambda L: L.logspace(0, 1, 3, device='cuda'),
    'eye': lambda L: L.eye(2, device='cuda'), 'tril_indices': lambda L: L.tril_indices(3, 3, device='cuda'),
    'empty_strided': lambda L: L.empty_strided((2,), (1,), device='cuda'), 'scalar_tensor': lambda L: L.scalar_tensor(1., device='cuda'),
    'tensor': lambda L: L.tensor([1.], device='cuda'), 'as_tensor': lambda L: L.as_tensor([1.], device='cuda'),
    'asarray': lambda L: L.asarray(np.ones(2), device='cuda'),
    'zeros_like': lambda L: L.zeros_like(L.ones(2), device='cuda'), 'full_like': lambda L: L.full_like(L.ones(2), 3., device='cuda'),
    'randn_like': lambda L: L.randn_like(L.ones(2), device='cuda'),
    'new_zeros': lambda L: L.ones(2).new_zeros(3, device='cuda'), 'new_tensor': lambda L: L.ones(2).new_tensor([1.], device='cuda'),
    'Tensor.cuda': lambda L: L.ones(2).cuda(), 'Tensor.to': lambda L: L.ones(2).to('cuda'),
    'Tensor.to(device=)': lambda L: L.ones(2).to(device=L.device('cuda', 0)),
    'Linear': lambda L: L.nn.Linear(2, 2, device='cuda'), 'Conv2d': lambda L: L.nn.Conv2d(1, 1, 3, device='cuda'),
    'Embedding': lambda L: L.nn.Embedding(3, 2, device='cuda'), 'LayerNorm': lambda L: L.nn.LayerNorm(2, device='cuda'),
    'Module.cuda': lambda L: L.nn.Linear(2, 2).cuda(), 'Module.to': lambda L: L.nn.Linear(2, 2).to('cuda'),
    'cuda.current_device': lambda L: L.cuda.current_device(),
}

@pytest.mark.skipif(litnn.cuda.is_available(), reason='a GPU is present')
@pytest.mark.parametrize('name', list(CUDA_ENTRY_POINTS))
def test_cuda_without_a_gpu_raises_torchs_assertion_error(name):
    f = CUDA_ENTRY_POINTS[name]
    with pytest.raises(AssertionError, match='litnn found no CUDA device: ') as e: f(litnn)
    assert B._no_cuda(B._cupy_problem) == str(e.value)          # the backend's one message, whichever road
    if not torch.cuda.is_available():
        if name == 'asarray':     # torch's CPU build says it differently here; litnn keeps one exception for all
            with pytest.raises(RuntimeError, match='not linked with support for cuda'): f(torch)
        else:
            with pytest.raises(AssertionError, match='not compiled with CUDA'): f(torch)

NO_DEVICE = 'CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected'

def test_message_when_cupy_is_installed_but_unusable(monkeypatch):
    monkeypatch.setattr(B, 'cupy', None)
    monkeypatch.setattr(B, '_cupy_problem', NO_DEVICE)
    for f in (lambda: litnn.zeros(2, device='cuda'), lambda: litnn.ones(2).cuda(), lambda: litnn.nn.Linear(2, 2, device='cuda')):
        with pytest.raises(AssertionError) as e: f()
        msg = str(e.value)
        assert 'CuPy is installed but cannot be used' in msg and NO_DEVICE in msg and 'install CuPy (' not in msg, msg
    monkeypatch.setattr(B, '_cupy_problem', None)                  # not installed: say how to install it
    with pytest.raises(AssertionError, match=r"install CuPy \(pip install 'litnn\[cuda\]'\)"): litnn.zeros(2, device='cuda')

class CUDARuntimeError(RuntimeError): pass                          # as cupy_backends names it

def fake_cupy(count):
    "A stand-in for CuPy whose getDeviceCount returns `count`, or raises it when it is an exception."
    def get():
        if isinstance(count, Exception): raise count
        return count
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=get)))

def test_load_cupy_reports_cupys_own_reason(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'cupy', None)                  # not installed
    assert B._load_cupy() == (None, None)
    monkeypatch.setitem(sys.modules, 'cupy', fake_cupy(CUDARuntimeError('cudaErrorNoDevice: no CUDA-capable device is detected')))
    assert B._load_cupy() == (None, NO_DEVICE)
    monkeypatch.setitem(sys.modules, 'cupy', fake_cupy(0))
    assert B._load_cupy() == (None, 'CUDA sees no device')
    ok = fake_cupy(1)
    monkeypatch.setitem(sys.modules, 'cupy', ok)
    assert B._load_cupy() == (ok, None)
    # a CuPy whose import itself fails (a wheel for another CUDA): its ImportError is the reason
    (tmp_path / 'cupy').mkdir()
    (tmp_path / 'cupy' / '__init__.py').write_text("raise ImportError('CuPy failed to load libnvrtc.so.12: cannot open shared object file')\n")
    monkeypatch.delitem(sys.modules, 'cupy')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert B._load_cupy() == (None, 'ImportError: CuPy failed to load libnvrtc.so.12: cannot open shared object file')

def test_a_cupy_without_a_driver_at_import(tmp_path):
    "End to end: `import litnn` with an installed CuPy that finds no driver."
    (tmp_path / 'cupy').mkdir()
    (tmp_path / 'cupy' / '__init__.py').write_text(textwrap.dedent("""
        class CUDARuntimeError(RuntimeError): pass
        class _runtime:
            def getDeviceCount(): raise CUDARuntimeError('cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version')
        class cuda: runtime = _runtime
        """))
    code = ("import litnn\nprint(litnn.cuda.is_available())\n"
            "try: litnn.zeros(2, device='cuda')\nexcept AssertionError as e: print(e)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    available, msg = r.stdout.strip().splitlines()
    assert available == 'False'
    assert 'CuPy is installed but cannot be used' in msg
    assert 'CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version' in msg


def test_preferred_linalg_library_as_torch_without_cuda():
    "torch.backends.cuda.preferred_linalg_library: the default backend, and torch's refusals of the others and of bad values."
    import torch
    for lib in (torch, litnn):
        assert repr(lib.backends.cuda.preferred_linalg_library()) == '<_LinalgBackend.Default: 0>'
        assert str(lib.backends.cuda.preferred_linalg_library('default')) == '_LinalgBackend.Default'
    for arg in ('x', 'magma', 'cusolver', 3):
        with pytest.raises(RuntimeError) as te: torch.backends.cuda.preferred_linalg_library(arg)
        with pytest.raises(RuntimeError) as le: litnn.backends.cuda.preferred_linalg_library(arg)
        assert str(le.value) == str(te.value)


WIDE = ['uint16', 'uint32', 'uint64']

def _dtype_or_error(f):
    try: return name(f().dtype)
    except Exception as e: return type(e).__name__, str(e).split('\n')[0].replace('litnn', 'torch')

@pytest.mark.parametrize('op', ['add', 'mul', 'eq', 'where', 'result_type'])
@pytest.mark.parametrize('a,b', [(x, w) for w in WIDE for x in ['bool', 'uint8', 'int8', 'int64', 'float32', 'complex64', w]])
@pytest.mark.parametrize('dims', [(1, 0), (0, 1), (0, 0)])
def test_wide_unsigned_with_a_zero_dim_tensor_promotes_as_torch(op, a, b, dims):
    """test_type_promotion's grid (port-15): a 0-d tensor's dtype folds into a dimensioned one by torch's combine_categories:
    over bool (and as a float over an integer) the two promote, so bool with a 0-d uint16 is refused as promote_types refuses it."""
    def f(lib):
        x, y = (lib.ones([2] if d else [], dtype=getattr(lib, n)) for n, d in zip((a, b), dims))
        if op == 'where': return lib.where(lib.tensor([True, False]), x, y)
        if op == 'result_type': return lib.empty(0, dtype=lib.result_type(x, y))
        return getattr(lib, op)(x, y)
    mine, theirs = _dtype_or_error(lambda: f(litnn)), _dtype_or_error(lambda: f(torch))
    if 'NotImplementedError' in str(theirs): pytest.skip("torch's CPU kernels lack this unsigned type (litnn computes it)")
    assert mine == theirs

@pytest.mark.parametrize('op', ['add_', 'mul_', 'div_', 'bitwise_or_', 'copy_'])
@pytest.mark.parametrize('a,b', [(x, w) for w in WIDE for x in ['uint8', 'int8', 'int32', 'float32', 'complex64']]
                         + [(w, x) for w in WIDE for x in ['uint8', 'int64', 'float64']])
@pytest.mark.parametrize('zero_dim', [False, True])
def test_in_place_ops_refuse_a_promotion_torch_refuses(op, a, b, zero_dim):
    "uint8.add_(uint16 tensor): torch's common dtype comes first and is refused; the fast in-place write narrowed it away (copy_ converts)"
    def f(lib):
        x = lib.ones(2, dtype=getattr(lib, a))
        getattr(x, op)(lib.ones([] if zero_dim else [2], dtype=getattr(lib, b)))
        return x
    mine, theirs = _dtype_or_error(lambda: f(litnn)), _dtype_or_error(lambda: f(torch))
    if 'NotImplementedError' in str(theirs): pytest.skip("torch's CPU kernels lack this unsigned type (litnn computes it)")
    assert mine == theirs

"""The names of `torch.cuda` that programs call unconditionally (RNG states, streams and events, memory statistics,
`is_initialized` and the rest), side by side with torch: on a machine without a GPU, against torch's CPU build (values;
exception types and messages, torch's names and its missing CUDA written as litnn's); their signatures against
torch 2.13's; and, on a GPU, the CuPy path."""
import collections, inspect, warnings

import pytest

import litnn
from litnn.backend import _no_cuda, _cupy_problem
from nn_pairs import norm

torch = pytest.importorskip('torch')
NO_GPU = not litnn.cuda.is_available()
needs_cpu_build = pytest.mark.skipif(not NO_GPU or torch.backends.cuda.is_built(),
                                     reason="compares with torch's CPU build, on a machine without a GPU")
needs_gpu = pytest.mark.skipif(NO_GPU, reason="needs a GPU (CuPy)")
NO_CUDA = _no_cuda(_cupy_problem)


def words(msg):
    "torch's CPU-build message in litnn's words: its names as litnn's, its missing CUDA as litnn's reason."
    for torch_says in ('Torch not compiled with CUDA enabled', 'PyTorch was compiled without CUDA support'):
        msg = msg.replace(torch_says, NO_CUDA)
    return norm(msg)


def outcome(f, lib, translate=False):
    "What `f(lib)` gives: ('value', v), or ('raises', type, message); with the warnings it raised, as (category, message)."
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: r = ('value', f(lib))
        except Exception as e:
            msg = e.args[0] if isinstance(e, KeyError) else str(e)
            r = ('raises', type(e), words(msg) if translate else msg)
    return r, [(x.category, words(str(x.message)) if translate else str(x.message)) for x in w if x.category is not DeprecationWarning]


def same(f):
    "Assert `f(litnn)` gives what `f(torch)` gives on torch's CPU build (in litnn's words); return it."
    mine, theirs = outcome(f, litnn), outcome(f, torch, translate=True)
    assert mine == theirs, f'litnn: {mine!r}\ntorch: {theirs!r}'
    return mine


def entered(ctx):
    "Enter and leave context manager `ctx`; what `__enter__` returned."
    with ctx as v: return v


BYTES = lambda lib: lib.zeros(16, dtype=lib.uint8)
LEGACY = ['FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'LongTensor', 'IntTensor', 'ShortTensor', 'CharTensor',
          'ByteTensor', 'BoolTensor']

CASES = {
    # random
    'get_rng_state()': lambda lib: lib.cuda.get_rng_state(),
    'get_rng_state(0)': lambda lib: lib.cuda.get_rng_state(0),
    "get_rng_state('cuda:0')": lambda lib: lib.cuda.get_rng_state('cuda:0'),
    "get_rng_state('cpu')": lambda lib: lib.cuda.get_rng_state('cpu'),
    'get_rng_state_all()': lambda lib: lib.cuda.get_rng_state_all(),
    'set_rng_state(bytes)': lambda lib: lib.cuda.set_rng_state(BYTES(lib)),
    'set_rng_state(bytes, 1)': lambda lib: lib.cuda.set_rng_state(BYTES(lib), 1),
    'set_rng_state_all([bytes])': lambda lib: lib.cuda.set_rng_state_all([BYTES(lib), BYTES(lib)]),
    'set_rng_state_all([])': lambda lib: lib.cuda.set_rng_state_all([]),
    'default_generators': lambda lib: lib.cuda.default_generators,
    # streams and events
    'Stream()': lambda lib: lib.cuda.Stream(),
    'Stream(0, priority=-1)': lambda lib: lib.cuda.Stream(0, priority=-1),
    "Stream('cuda:0')": lambda lib: lib.cuda.Stream('cuda:0'),
    'ExternalStream(0, device=-1)': lambda lib: lib.cuda.ExternalStream(0, device=-1),
    'Event()': lambda lib: lib.cuda.Event(),
    'Event(enable_timing=True)': lambda lib: lib.cuda.Event(enable_timing=True),
    'Event(blocking=True, interprocess=True)': lambda lib: lib.cuda.Event(blocking=True, interprocess=True),
    'current_stream()': lambda lib: lib.cuda.current_stream(),
    'current_stream(0)': lambda lib: lib.cuda.current_stream(0),
    'default_stream()': lambda lib: lib.cuda.default_stream(),
    "default_stream('cuda:0')": lambda lib: lib.cuda.default_stream('cuda:0'),
    'set_stream(None)': lambda lib: lib.cuda.set_stream(None),
    'with stream(None)': lambda lib: entered(lib.cuda.stream(None)),
    'with StreamContext(None)': lambda lib: entered(lib.cuda.StreamContext(None)),
    'StreamContext(None).stream': lambda lib: lib.cuda.StreamContext(None).stream,
    'with stream(object())': lambda lib: entered(lib.cuda.stream(object())),   # no GPU: the block changes nothing
    # __init__
    'is_initialized()': lambda lib: lib.cuda.is_initialized(),
    'init()': lambda lib: lib.cuda.init(),
    'get_arch_list()': lambda lib: lib.cuda.get_arch_list(),
    'get_gencode_flags()': lambda lib: lib.cuda.get_gencode_flags(),
    'current_blas_handle()': lambda lib: lib.cuda.current_blas_handle(),
    'has_half, has_magma': lambda lib: (lib.cuda.has_half, lib.cuda.has_magma),
    'OutOfMemoryError': lambda lib: (lib.cuda.OutOfMemoryError is lib.OutOfMemoryError, issubclass(lib.cuda.OutOfMemoryError, RuntimeError)),
    'with device(-1)': lambda lib: entered(lib.cuda.device(-1)),
    'with device(0)': lambda lib: entered(lib.cuda.device(0)),
    "device('cpu')": lambda lib: lib.cuda.device('cpu'),
    'with device_of(cpu tensor)': lambda lib: entered(lib.cuda.device_of(lib.zeros(2))),
    'device_of(1)': lambda lib: lib.cuda.device_of(1),
    'isinstance(cpu tensor, cuda.FloatTensor)': lambda lib: isinstance(lib.zeros(2), lib.cuda.FloatTensor),
    'cuda.FloatTensor()': lambda lib: lib.cuda.FloatTensor(),
    'cuda.LongTensor([1, 2])': lambda lib: lib.cuda.LongTensor([1, 2]),
    **{f'cuda.{n}(2)': (lambda n: lambda lib: getattr(lib.cuda, n)(2))(n) for n in LEGACY},
    # memory
    'memory_stats()': lambda lib: lib.cuda.memory_stats(),
    "memory_stats('cpu')": lambda lib: lib.cuda.memory_stats('cpu'),
    'memory_stats(0)': lambda lib: lib.cuda.memory_stats(0),
    'memory_stats_as_nested_dict()': lambda lib: lib.cuda.memory_stats_as_nested_dict(),
    'memory_summary()': lambda lib: lib.cuda.memory_summary(),
    'memory_summary(0, abbreviated=True)': lambda lib: lib.cuda.memory_summary(0, abbreviated=True),
    "memory_summary('cuda')": lambda lib: lib.cuda.memory_summary('cuda'),
    "memory_summary('cpu')": lambda lib: lib.cuda.memory_summary('cpu'),
    'mem_get_info()': lambda lib: lib.cuda.mem_get_info(),
    'mem_get_info(0)': lambda lib: lib.cuda.mem_get_info(0),
    "mem_get_info('cpu')": lambda lib: lib.cuda.mem_get_info('cpu'),
    'memory_cached()': lambda lib: lib.cuda.memory_cached(),
    'max_memory_cached()': lambda lib: lib.cuda.max_memory_cached(),
    'list_gpu_processes()': lambda lib: lib.cuda.list_gpu_processes(),
    'set_per_process_memory_fraction(0.5)': lambda lib: lib.cuda.set_per_process_memory_fraction(0.5),
    'set_per_process_memory_fraction(2)': lambda lib: lib.cuda.set_per_process_memory_fraction(2),
    'get_per_process_memory_fraction()': lambda lib: lib.cuda.get_per_process_memory_fraction(),
    'caching_allocator_alloc(16)': lambda lib: lib.cuda.caching_allocator_alloc(16),
    'caching_allocator_alloc(16, 0)': lambda lib: lib.cuda.caching_allocator_alloc(16, 0),
}


@needs_cpu_build
@pytest.mark.parametrize('case', list(CASES))
def test_like_torch_cpu_build(case):
    same(CASES[case])


@needs_cpu_build
def test_the_cases_cover_both_outcomes():
    "The cases are not vacuous: some raise (with a message naming litnn's reason) and some return."
    results = [outcome(f, litnn)[0] for f in CASES.values()]
    assert sum(r[0] == 'raises' for r in results) >= 30 and sum(r[0] == 'value' for r in results) >= 20
    assert ('raises', AssertionError, NO_CUDA) in results
    assert ('raises', TypeError, f'type litnn.cuda.FloatTensor not available. {NO_CUDA}.') in results


# torch's CPU build has no caching allocator and no device stub for these: it fails on a missing C binding
# (AttributeError: module 'torch._C' has no attribute '_cuda_...'), or, for `device(None)` and `ExternalStream(ptr)`,
# on comparing None with 0 inside its stub (TypeError). litnn answers as a machine without a GPU: nothing to reset,
# no segments, nothing to delete, and `device(None)` the documented no-op.
DEVIATIONS = {
    'reset_max_memory_allocated()': (lambda lib: lib.cuda.reset_max_memory_allocated(), AttributeError, ('value', None)),
    'reset_max_memory_cached()': (lambda lib: lib.cuda.reset_max_memory_cached(), AttributeError, ('value', None)),
    'reset_accumulated_memory_stats()': (lambda lib: lib.cuda.reset_accumulated_memory_stats(), AttributeError, ('value', None)),
    'memory_snapshot()': (lambda lib: lib.cuda.memory_snapshot(), AttributeError, ('value', [])),
    'caching_allocator_delete(0)': (lambda lib: lib.cuda.caching_allocator_delete(0), AttributeError, ('raises', AssertionError, NO_CUDA)),
    'with device(None)': (lambda lib: entered(lib.cuda.device(None)), TypeError, ('value', None)),
    'ExternalStream(0)': (lambda lib: lib.cuda.ExternalStream(0), TypeError,
                          ('raises', RuntimeError, 'litnn.cuda.Stream requires CUDA support')),
}


@needs_cpu_build
@pytest.mark.parametrize('case', list(DEVIATIONS))
def test_where_torch_cpu_build_fails_on_a_missing_binding(case):
    f, torch_raises, litnn_gives = DEVIATIONS[case]
    (theirs, their_warnings), (mine, my_warnings) = outcome(f, torch, translate=True), outcome(f, litnn)
    assert theirs[:2] == ('raises', torch_raises)
    assert mine == litnn_gives
    assert my_warnings == their_warnings         # the FutureWarnings of the deprecated resets, in litnn's words


@needs_cpu_build
def test_deprecated_names_warn_as_torch():
    for name in ('memory_cached', 'max_memory_cached', 'reset_max_memory_allocated', 'reset_max_memory_cached'):
        _, w = outcome(lambda lib: getattr(lib.cuda, name)(), litnn)
        assert [c for c, _ in w] == [FutureWarning] and f'litnn.cuda.{name}' in w[0][1]


def test_summary_rows_as_torch_prints_them(monkeypatch):
    "litnn's table (from made-up statistics) has torch's layout: the same rows and widths for the metrics it has."
    from litnn.cuda.memory import _summary
    mb = 2**20
    mine = {'allocated_bytes.all.current': 3 * mb, 'allocated_bytes.all.peak': 900 * mb, 'allocated_bytes.all.allocated': 5 * 2**30,
            'allocated_bytes.all.freed': 5 * 2**30 - 3 * mb, 'reserved_bytes.all.current': 1000 * mb, 'reserved_bytes.all.peak': 1000 * mb}
    full = collections.OrderedDict(num_ooms=0, num_alloc_retries=0)
    for metric in ('allocated_bytes', 'active_bytes', 'requested_bytes', 'reserved_bytes', 'inactive_split_bytes', 'allocation', 'active',
                   'segment', 'inactive_split'):
        for pool in ('all', 'large_pool', 'small_pool'):
            for m in ('current', 'peak', 'allocated', 'freed'): full[f'{metric}.{pool}.{m}'] = mine.get(f'{metric}.{pool}.{m}', 7)
    for metric in ('oversize_allocations', 'oversize_segments'):
        for m in ('current', 'peak', 'allocated', 'freed'): full[f'{metric}.{m}'] = 0
    monkeypatch.setattr(torch.cuda.memory, 'memory_stats', lambda device=None: full)
    theirs, ours = torch.cuda.memory_summary(0, abbreviated=True).splitlines(), _summary(mine, 0).splitlines()
    row = lambda lines, name: next(l for l in lines if l.startswith(f'| {name} '))
    assert row(ours, 'Allocated memory') == row(theirs, 'Allocated memory')
    assert row(ours, 'GPU reserved memory')[:36] == row(theirs, 'GPU reserved memory')[:36]   # current and peak; no totals in CuPy
    assert {len(l) for l in ours} == {len(l) for l in theirs} == {77}
    assert ours[1].replace('litnn', 'PyTorch').split() == theirs[1].split()


def test_memory_stats_flattens_as_torch(monkeypatch):
    from litnn.cuda.memory import _flatten
    nested = {'reserved_bytes': {'all': {'peak': 4, 'current': 3}}, 'allocated_bytes': {'all': {'current': 1, 'peak': 2}}, 'num_ooms': 0}
    monkeypatch.setattr(torch.cuda.memory, 'memory_stats_as_nested_dict', lambda device=None: nested)
    assert collections.OrderedDict(sorted(_flatten(nested))) == torch.cuda.memory_stats()
    assert list(collections.OrderedDict(sorted(_flatten(nested)))) == list(torch.cuda.memory_stats())


FUNCTIONS = ['get_rng_state', 'set_rng_state', 'get_rng_state_all', 'set_rng_state_all', 'current_stream', 'default_stream', 'set_stream',
             'stream', 'StreamContext', 'Stream', 'ExternalStream', 'Event', 'memory_stats', 'memory_stats_as_nested_dict', 'memory_summary',
             'mem_get_info', 'memory_cached', 'max_memory_cached', 'reset_max_memory_allocated', 'reset_max_memory_cached',
             'reset_accumulated_memory_stats', 'memory_snapshot', 'list_gpu_processes', 'set_per_process_memory_fraction',
             'get_per_process_memory_fraction', 'caching_allocator_alloc', 'caching_allocator_delete', 'is_initialized', 'init',
             'device', 'device_of', 'current_blas_handle', 'get_arch_list', 'get_gencode_flags']
METHODS = [('Stream', m) for m in ('query', 'synchronize', 'wait_event', 'wait_stream', 'record_event')] + \
          [('Event', m) for m in ('record', 'wait', 'query', 'synchronize', 'elapsed_time')]


def params(f):
    "A callable's parameters as names, kinds and defaults (annotations aside)."
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]


@pytest.mark.skipif(not torch.__version__.startswith('2.13'), reason="litnn follows torch 2.13's signatures")
@pytest.mark.parametrize('name', FUNCTIONS)
def test_signature_as_torch(name):
    assert params(getattr(litnn.cuda, name)) == params(getattr(torch.cuda, name))


@pytest.mark.skipif(not torch.__version__.startswith('2.13'), reason="litnn follows torch 2.13's signatures")
@pytest.mark.parametrize('cls,method', METHODS)
def test_method_signature_as_torch(cls, method):
    assert params(getattr(getattr(litnn.cuda, cls), method)) == params(getattr(getattr(torch.cuda, cls), method))


def test_names_live_where_torch_keeps_them():
    for name in FUNCTIONS + LEGACY:
        t, l = getattr(torch.cuda, name), getattr(litnn.cuda, name)
        assert l.__module__ == t.__module__.replace('torch', 'litnn', 1), name
    assert litnn.cuda.default_generators == () if NO_GPU else len(litnn.cuda.default_generators) == litnn.cuda.device_count()
    assert {'default_generators', 'OutOfMemoryError', 'Stream', 'memory_stats'} <= set(dir(litnn.cuda))


# ---- on a GPU: the CuPy path ----

@needs_gpu
def test_rng_state_round_trip_on_gpu():
    c = litnn.cuda
    s = c.get_rng_state()
    assert s.dtype == litnn.uint8 and not s.is_cuda and s.dim() == 1
    a = litnn.rand(5, device='cuda').tolist()
    assert litnn.rand(5, device='cuda').tolist() != a
    c.set_rng_state(s)
    assert litnn.rand(5, device='cuda').tolist() == a
    c.manual_seed(11); s11 = c.get_rng_state(); b = litnn.randn(4, device='cuda').tolist()
    c.manual_seed(12); c.set_rng_state(s11)
    assert c.initial_seed() == 11 and litnn.randn(4, device='cuda').tolist() == b
    states = c.get_rng_state_all(); x = litnn.rand(3, device='cuda').tolist()
    c.set_rng_state_all(states); assert litnn.rand(3, device='cuda').tolist() == x
    with pytest.raises(RuntimeError, match='RNG state is wrong size'): c.set_rng_state(s[:16])
    with pytest.raises(TypeError, match='RNG state must be a litnn.ByteTensor'): c.set_rng_state(s.float())
    with pytest.raises(TypeError, match='RNG state must be a litnn.ByteTensor'): c.set_rng_state(s.cuda())
    assert len(states) == len(c.default_generators) == c.device_count()
    assert c.default_generators[0] is litnn.backend._cuda_generators[0]


@needs_gpu
def test_events_time_gpu_work():
    c = litnn.cuda
    start, end = c.Event(enable_timing=True), c.Event(enable_timing=True)
    assert start.query() and repr(start) == '<litnn.cuda.Event uninitialized>'
    with pytest.raises(ValueError, match='Both events must be recorded before calculating elapsed time.'): start.elapsed_time(end)
    start.record()
    x = litnn.randn(1024, 1024, device='cuda')
    for _ in range(10): x = x @ x / 1024
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms > 0 and end.query() and start.device == litnn.device('cuda', 0)
    with pytest.raises(ValueError, match="Both events must be created with argument 'enable_timing=True'."):
        c.Event().elapsed_time(c.Event())
    e = c.Event(); e.record(c.Stream()); e.wait(); e.synchronize(); assert e.query() and e.cuda_event != 0


@needs_gpu
def test_stream_context_on_gpu():
    c = litnn.cuda
    s = c.Stream(priority=-1)
    assert c.current_stream() == c.default_stream() and c.default_stream().cuda_stream == 0
    assert s != c.default_stream() and s.device == litnn.device('cuda', c.current_device()) and s.cuda_stream != 0
    with c.stream(s):
        assert c.current_stream() == s
        y = litnn.ones(1000, device='cuda') * 2
    assert c.current_stream() == c.default_stream()
    s.synchronize()
    assert s.query() and y.sum().item() == 2000
    with s:
        with c.stream(None): assert c.current_stream() == s
    c.set_stream(s); assert c.current_stream() == s
    c.set_stream(c.default_stream()); assert c.current_stream() == c.default_stream()
    ev = s.record_event(); c.default_stream().wait_event(ev); c.default_stream().wait_stream(s)
    assert c.ExternalStream(s.cuda_stream) == s and hash(c.ExternalStream(s.cuda_stream)) == hash(s)
    assert s.__cuda_stream__() == (0, s.cuda_stream) and repr(s).startswith('<litnn.cuda.Stream device=cuda:')
    assert isinstance(s.priority, int) and s.priority <= 0


@needs_gpu
def test_memory_stats_on_gpu():
    c = litnn.cuda
    c.reset_peak_memory_stats(); c.reset_accumulated_memory_stats()
    base = c.memory_allocated()
    x = litnn.zeros(2**20, device='cuda')
    s = c.memory_stats()
    assert set(s) == {'allocated_bytes.all.current', 'allocated_bytes.all.peak', 'allocated_bytes.all.allocated', 'allocated_bytes.all.freed',
                      'reserved_bytes.all.current', 'reserved_bytes.all.peak'}
    assert list(s) == sorted(s)
    assert s['allocated_bytes.all.current'] == c.memory_allocated() == base + 4 * 2**20
    assert s['allocated_bytes.all.allocated'] >= 4 * 2**20 and s['reserved_bytes.all.current'] == c.memory_reserved()
    assert c.memory_stats_as_nested_dict()['allocated_bytes']['all']['peak'] == s['allocated_bytes.all.peak']
    del x
    assert c.memory_stats()['allocated_bytes.all.freed'] >= 4 * 2**20
    text = c.memory_summary()
    assert 'litnn CUDA memory summary, device ID 0' in text and 'Allocated memory' in text
    free, total = c.mem_get_info(); assert 0 < free <= total
    assert c.is_initialized()
    c.init()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)
        assert c.memory_cached() == c.memory_reserved() and c.reset_max_memory_allocated() is None
    p = c.caching_allocator_alloc(4096)
    assert c.memory_allocated() >= base + 4096
    c.caching_allocator_delete(p)
    with pytest.raises(RuntimeError, match='invalid device pointer'): c.caching_allocator_delete(p)
    p = c.caching_allocator_alloc(4096, stream=c.Stream()); c.caching_allocator_delete(p)
    c.set_per_process_memory_fraction(0.5); assert abs(c.get_per_process_memory_fraction() - 0.5) < 1e-6
    c.set_per_process_memory_fraction(1.0); assert c.get_per_process_memory_fraction() == 1.0
    with pytest.raises(TypeError, match='must be `float`'): c.set_per_process_memory_fraction(1)
    snap = c.memory_snapshot()
    assert len(snap) == c.device_count() and snap[0]['total_size'] == c.memory_reserved(0)


@needs_gpu
def test_list_gpu_processes_on_gpu():
    pytest.importorskip('pynvml')
    text = litnn.cuda.list_gpu_processes()
    assert text.startswith('GPU:0\n') and ('no processes are running' in text or 'MB GPU memory' in text)


@needs_gpu
def test_init_names_on_gpu():
    c = litnn.cuda
    major, minor = c.get_device_capability()
    assert f'sm_{major}{minor}' in c.get_arch_list() and f'compute_{major}{minor}' in c.get_gencode_flags()
    assert isinstance(c.current_blas_handle(), int)
    x = c.FloatTensor(2, 3)
    assert x.is_cuda and x.dtype == litnn.float32 and tuple(x.shape) == (2, 3)
    assert isinstance(x, c.FloatTensor) and not isinstance(x, c.DoubleTensor) and not isinstance(x, litnn.FloatTensor)
    assert c.LongTensor([1, 2]).tolist() == [1, 2]
    with c.device(0): assert c.current_device() == 0
    with c.device_of(litnn.zeros(1, device='cuda')): assert c.current_device() == 0

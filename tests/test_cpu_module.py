"""litnn.cpu side by side with torch.cpu (one device, always ready; streams and events that do nothing; the current
stream a `stream(...)` block selects), and litnn.Stream / litnn.Event side by side with torch.Stream / torch.Event on
the CPU and meta devices: reprs, fields, methods, and the errors of a backend that keeps no events."""
import inspect, os, pickle, subprocess, sys

import pytest

import litnn

torch = pytest.importorskip('torch')
NO_GPU = not litnn.cuda.is_available() and not torch.cuda.is_available()
# With a GPU, Stream() and Event() are CUDA ones, and torch numbers its streams its own way: the comparisons below are
# the CPU's; the CUDA side is test_cuda_streams_and_events_work (and reference/cpu's `#| cuda` cell).
cpu_default = pytest.mark.skipif(not NO_GPU, reason="a GPU is here: Stream() is a CUDA stream, numbered by each library its own way")


def outcome(f):
    "What a call gives: its result's repr with torch's prefix as litnn's, or the exception's type and message (less c10's plea)."
    try: r = f()
    except Exception as e: return type(e).__name__, str(e).split('  (Could this error')[0].replace('torch.', 'litnn.')
    return repr(r).replace('torch.', 'litnn.')


def test_cpu_module_answers():
    for lib in (torch, litnn):
        c = lib.cpu
        assert (c.is_available(), c.is_initialized(), c.device_count(), c.current_device()) == (True, True, 1, 'cpu')
        assert (c.set_device('cpu'), c.set_device(0), c.synchronize(), c.synchronize('cpu')) == (None,) * 4
    assert sorted(set(torch.cpu.__all__) - {'get_capabilities'}) == sorted(set(litnn.cpu.__all__) - {'get_capabilities'})
    assert 'get_capabilities' in litnn.cpu.__all__


def test_cpu_signatures():
    for name in ('synchronize', 'current_stream', 'stream', 'set_device', 'device_count', 'current_device', 'is_available'):
        assert list(inspect.signature(getattr(torch.cpu, name)).parameters) == list(inspect.signature(getattr(litnn.cpu, name)).parameters)
    assert list(inspect.signature(torch.cpu.Stream).parameters) == list(inspect.signature(litnn.cpu.Stream).parameters)
    assert inspect.signature(litnn.cpu.Stream).parameters['priority'].default == -1


def test_cpu_streams_and_context():
    for lib in (torch, litnn):
        c = lib.cpu
        d = c.current_stream()
        assert d is c.current_stream('cpu') and isinstance(d, c.Stream)
        s = c.Stream(priority=3)
        ctx = c.stream(s)
        assert isinstance(ctx, c.StreamContext)
        with ctx:
            assert c.current_stream() is s
            with c.stream(None): assert c.current_stream() is s
        assert c.current_stream() is d
        assert [s.wait_stream(d), s.record_event(), s.wait_event(c.Event())] == [None] * 3
        e = c.Event()
        assert [e.query(), e.record(), e.record(s), e.synchronize(), e.wait(), e.wait(s)] == [True] + [None] * 5
        assert repr(s).startswith(f'<{lib.__name__}.cpu.Stream object at')
        assert c.Stream.__module__ == f'{lib.__name__}.cpu' and c.StreamContext.__mro__[1].__name__ == 'AbstractContextManager'


def test_get_capabilities():
    t, l = torch.cpu.get_capabilities(), litnn.cpu.get_capabilities()
    assert type(t) is type(l) and l is litnn.cpu.get_capabilities()
    assert l['architecture'] == t['architecture']
    for k in ('avx', 'avx2', 'avx512_f', 'avx512_bf16', 'avx512_vnni', 'fma3', 'sse4_2', 'neon', 'sve'):
        if k in l and k in t: assert l[k] == t[k], k
    assert litnn.cpu._is_avx2_supported() == torch.cpu._is_avx2_supported()
    assert litnn.cpu._is_avx512_supported() == torch.cpu._is_avx512_supported()


def test_get_device_module():
    assert litnn.get_device_module('cpu') is litnn.cpu and torch.get_device_module('cpu') is torch.cpu
    assert litnn.get_device_module(litnn.device('cpu')) is litnn.cpu
    if NO_GPU:
        assert torch.get_device_module() is torch.cpu and litnn.get_device_module() is litnn.cpu
    assert outcome(lambda: litnn.get_device_module('meta')) == outcome(lambda: torch.get_device_module('meta'))


def test_stream_and_event_are_top_level():
    assert (torch.Stream.__module__, torch.Event.__module__) == ('torch', 'torch')
    assert (litnn.Stream.__module__, litnn.Event.__module__) == ('litnn', 'litnn')
    assert litnn.Stream is not litnn.cpu.Stream and litnn.Event is not litnn.cpu.Event


STREAMS = [lambda lib: lib.Stream(), lambda lib: lib.Stream('cpu'), lambda lib: lib.Stream('cpu:0'),
           lambda lib: lib.Stream(device='cpu', priority=3), lambda lib: lib.Stream(lib.device('cpu')),
           lambda lib: lib.Stream(None), lambda lib: lib.Stream('meta'), lambda lib: lib.Stream(3, -1, 0),
           lambda lib: lib.Stream(stream_id=2, device_index=0, device_type=0), lambda lib: lib.Stream(0, -1, 14),
           ]


def test_stream_of_a_device_type_litnn_lacks():
    assert repr(litnn.Stream(0, -1, 9)).replace('litnn.', 'torch.') == repr(torch.Stream(0, -1, 9))
    assert litnn.Stream(0, 0, 1).device_type == torch.Stream(0, 0, 1).device_type == 1


@pytest.mark.parametrize('make', STREAMS)
@cpu_default
def test_stream_fields(make):
    for get in (repr, lambda s: s.device, lambda s: s.device_type, lambda s: s.device_index, lambda s: s.stream_id,
                lambda s: s.query(), lambda s: s.synchronize(), lambda s: s.is_capturing(), lambda s: s.__enter__() is s,
                lambda s: s.__exit__(None, None, None), lambda s: s.native_handle, lambda s: s.record_event(),
                lambda s: bool(s)):
        assert outcome(lambda: get(make(litnn))) == outcome(lambda: get(make(torch)))


@cpu_default
def test_stream_methods_and_errors():
    for f in [lambda lib: lib.Stream().wait_stream(lib.Stream()), lambda lib: lib.Stream().wait_stream(lib.Stream('meta')),
              lambda lib: lib.Stream().wait_event(lib.Event()), lambda lib: lib.Stream().wait_event(lib.Event('meta')),
              lambda lib: lib.Stream().record_event(lib.Event()), lambda lib: lib.Stream('meta').record_event(),
              lambda lib: lib.Stream() == lib.Stream(), lambda lib: lib.Stream() == lib.Stream('meta'),
              lambda lib: lib.Stream(3, -1, 0) == lib.Stream(), lambda lib: lib.Stream() == 0,
              lambda lib: hash(lib.Stream()) == hash(lib.Stream()), lambda lib: hash(lib.Stream(3, -1, 0)) == hash(lib.Stream()),
              lambda lib: lib.Stream('cpu', 1), lambda lib: lib.Stream(foo=1), lambda lib: lib.Stream(0, 0, 99),
              lambda lib: setattr(lib.Stream(), 'device_index', 2), lambda lib: setattr(lib.Stream(), 'x', 2),
              lambda lib: pickle.dumps(lib.Stream()), lambda lib: lib.Stream('foo')]:
        t, l = outcome(lambda: f(torch)), outcome(lambda: f(litnn))
        if t[0] == 'RuntimeError' and 'device string' in t[1]: assert l[0] == 'RuntimeError' and 'device string' in l[1]
        else: assert l == t


def test_stream_errors_without_accelerator():
    if not NO_GPU: pytest.skip('these are the messages of a machine without a GPU')
    for f in [lambda lib: lib.Stream(5), lambda lib: lib.Event(0), lambda lib: lib.Stream('cuda'), lambda lib: lib.Event('cuda')]:
        assert outcome(lambda: f(litnn)) == outcome(lambda: f(torch))


def test_stream_type_error_names_the_device_class():
    assert outcome(lambda: torch.Stream(device=1.5)) == ('TypeError', "Stream(): argument 'device' must be litnn.device, not float")
    assert outcome(lambda: litnn.Stream(device=1.5))[0] == 'TypeError'
    assert outcome(lambda: litnn.Event(1.5)) == outcome(lambda: torch.Event(1.5))


EVENTS = [lambda lib: lib.Event(), lambda lib: lib.Event('cpu'), lambda lib: lib.Event('cpu:0'), lambda lib: lib.Event(None),
          lambda lib: lib.Event(lib.device('cpu'), enable_timing=True), lambda lib: lib.Event(blocking=True),
          lambda lib: lib.Event(interprocess=True), lambda lib: lib.Event(enable_timing=True, blocking=True, interprocess=True),
          lambda lib: lib.Event('meta')]


@pytest.mark.parametrize('make', EVENTS)
@cpu_default
def test_event_fields(make):
    for get in (repr, lambda e: e.device, lambda e: e.event_id, lambda e: e.query(), lambda e: e.synchronize(),
                lambda e: e.wait(), lambda e: e.record(), lambda e: e.ipc_handle(), lambda e: bool(e)):
        assert outcome(lambda: get(make(litnn))) == outcome(lambda: get(make(torch)))


@cpu_default
def test_event_methods_and_errors():
    for f in [lambda lib: lib.Event().record(lib.Stream()), lambda lib: lib.Event().record(lib.Stream('meta')),
              lambda lib: lib.Event('meta').record(lib.Stream()), lambda lib: lib.Event().wait(lib.Stream()),
              lambda lib: lib.Event().elapsed_time(lib.Event()),
              lambda lib: lib.Event(enable_timing=True).elapsed_time(lib.Event()),
              lambda lib: lib.Event(enable_timing=True).elapsed_time(lib.Event(enable_timing=True)),
              lambda lib: lib.Event().elapsed_time(1), lambda lib: lib.Event() == lib.Event(),
              lambda lib: lib.Event(enable_timing=1), lambda lib: lib.Event(foo=True),
              lambda lib: lib.Event.from_ipc_handle(lib.device('cpu'), b''),
              lambda lib: setattr(lib.Event(), 'event_id', 1), lambda lib: setattr(lib.Event(), 'x', 1),
              lambda lib: pickle.dumps(lib.Event())]:
        assert outcome(lambda: f(litnn)) == outcome(lambda: f(torch))


@cpu_default
def test_subclasses_take_attributes():
    for lib in (torch, litnn):
        S, E = type('S', (lib.Stream,), {}), type('E', (lib.Event,), {})
        s, e = S(), E()
        s.x = e.x = 1
        assert repr(s) == repr(lib.Stream()) and repr(e) == repr(lib.Event())


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_cuda_streams_and_events_work():
    s, t = litnn.Stream(), litnn.Stream('cuda')
    e = s.record_event(litnn.Event(enable_timing=True))
    t.wait_event(e); t.wait_stream(s); s.synchronize()
    assert (s.device_type, s.device_index, s.query(), s.is_capturing(), s == t) == (1, 0, True, False, False)
    assert s.native_handle == s.stream_id != 0 and repr(s) == f"litnn.Stream device_type=cuda, device_index=0, stream_id={s.stream_id}"
    e2 = litnn.Event('cuda', enable_timing=True); e2.record(s); e2.synchronize()
    assert e.elapsed_time(e2) >= 0 and e.query() and e.event_id != 0
    with s: assert litnn.cuda.current_stream().cuda_stream == s.native_handle
    with pytest.raises(RuntimeError, match="Event device type CUDA does not match recording stream's device type CPU"):
        litnn.Event('cuda').record(litnn.Stream('cpu'))


# --- memory between steps (reference/cpu: glibc's mmap and trim thresholds) ---------------------------------------

_GLIBC = litnn.cpu._glibc()

_FAULTS = """
import resource, numpy as np, litnn
def step(): return [np.ones(1 << 19, np.float32) for _ in range(8)]     # eight 2 MiB results, freed together
step()
r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20): step()
print(litnn.cpu._malloc_tuned, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0) / 20)
"""

def _run(**env):
    e = {k: v for k, v in os.environ.items() if not k.startswith('MALLOC_') and k not in ('LITNN_MALLOPT', 'GLIBC_TUNABLES')}
    out = subprocess.run([sys.executable, '-c', _FAULTS], env={**e, **env}, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    tuned, faults = out.stdout.split()
    return tuned == 'True', float(faults)

@pytest.mark.skipif(not _GLIBC, reason="glibc's malloc only")
def test_freed_memory_is_kept_for_the_next_step():
    "On glibc, importing litnn sets the thresholds: a step that frees 16 MiB and allocates it again takes (almost) no page fault."
    tuned, faults = _run()
    assert tuned and faults < 64, faults

def test_the_users_settings_win():
    "LITNN_MALLOPT=0, or any of glibc's own malloc settings, leaves malloc as it is; the decision reads only the environment."
    from litnn.cpu import _keep_freed_memory
    for env in ({'LITNN_MALLOPT': '0'}, {'MALLOC_TRIM_THRESHOLD_': '1000000'}, {'MALLOC_MMAP_THRESHOLD_': '65536'},
                {'MALLOC_TOP_PAD_': '0'}, {'MALLOC_MMAP_MAX_': '0'}, {'GLIBC_TUNABLES': 'glibc.malloc.trim_threshold=1'}):
        assert _keep_freed_memory(env) is False, env
    if _GLIBC: assert _run(LITNN_MALLOPT='0')[0] is False

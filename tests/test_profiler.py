"""litnn.profiler and litnn.autograd.profiler side by side with torch's: the same names, schedules, actions, table
columns and event tree; a Chrome trace of a GPT training step that is valid Trace Event Format JSON."""
import gzip, json, sys, warnings
from pathlib import Path
import pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
from torch.profiler import ProfilerActivity as TA

ROOT = Path(__file__).resolve().parent.parent

def test_names_and_paths():
    assert litnn.profiler.profile.__module__ == 'litnn.profiler.profiler'
    assert litnn.profiler.record_function is litnn.autograd.profiler.record_function
    assert litnn.autograd.profiler.profile.__module__ == 'litnn.autograd.profiler'
    assert litnn.autograd.profiler_util.EventList.__module__ == 'litnn.autograd.profiler_util'
    assert set(torch.profiler.__all__) - {'DeviceType', 'ExecutionTraceObserver'} <= set(dir(litnn.profiler))
    assert [(a.name, a.value) for a in litnn.profiler.ProfilerActivity] == [(a.name, a.value) for a in TA.__members__.values()]
    assert [(a.name, a.value) for a in litnn.profiler.ProfilerAction] == [(a.name, a.value) for a in torch.profiler.ProfilerAction]
    assert repr(litnn.profiler.ProfilerActivity.CPU).replace('litnn', '') == repr(TA.CPU)

@pytest.mark.parametrize('kw', [dict(wait=1, warmup=1, active=2), dict(wait=2, warmup=1, active=1, repeat=2, skip_first=3),
                                dict(wait=0, warmup=2, active=3, repeat=1), dict(wait=3, warmup=1, active=1, skip_first=2, skip_first_wait=1)])
def test_schedule_as_torch(kw):
    ls, ts = litnn.profiler.schedule(**kw), torch.profiler.schedule(**kw)
    assert [ls(i).name for i in range(25)] == [ts(i).name for i in range(25)]

def test_schedule_errors_and_warning():
    for lib in (litnn, torch):
        with pytest.raises(AssertionError, match='active=0'): lib.profiler.schedule(wait=1, warmup=1, active=0)
        with pytest.warns(UserWarning, match="won't be using warmup"): lib.profiler.schedule(wait=1, warmup=0, active=1)

def run(lib, **kw):
    "The same program profiled by `lib`: a record_function block, a forward and a backward."
    x = lib.ones(4, 4, requires_grad=True)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kw) as prof:
        with lib.profiler.record_function('block'):
            y = (x * 2).tanh().sum()
        y.backward()
    return prof

def test_events_as_torch():
    "The operations litnn runs have torch's names, shapes and parents; backward nodes are wrapped as torch's engine does."
    lp, tp = run(litnn, record_shapes=True), run(torch, record_shapes=True)
    lnames, tnames = [e.name for e in lp.events()], [e.name for e in tp.events()]
    for name in ['block', 'aten::mul', 'aten::tanh', 'aten::sum', 'autograd::engine::evaluate_function: SumBackward0', 'SumBackward0',
                 'autograd::engine::evaluate_function: TanhBackward0', 'TanhBackward0', 'MulBackward0',
                 'autograd::engine::evaluate_function: torch::autograd::AccumulateGrad', 'torch::autograd::AccumulateGrad']:
        assert name in lnames and name in tnames, name
    parent = lambda p, n: next(e.cpu_parent.name for e in p.events() if e.name == n)
    for n in ('aten::mul', 'aten::tanh', 'SumBackward0'): assert parent(lp, n) == parent(tp, n)
    shapes = lambda p, n: next(e.input_shapes for e in p.events() if e.name == n)
    assert shapes(lp, 'aten::tanh') == shapes(tp, 'aten::tanh') == [[4, 4]]
    assert shapes(lp, 'aten::mul')[0] == shapes(tp, 'aten::mul')[0] == [4, 4]
    assert type(lp.events()).__name__ == type(tp.events()).__name__ == 'EventList'
    assert type(lp.key_averages()[0]).__name__ == type(tp.key_averages()[0]).__name__ == 'FunctionEventAvg'

def header(table): return [h for h in table.splitlines()[1].strip().split('  ') if h.strip()]

@pytest.mark.parametrize('kw', [{}, dict(record_shapes=True), dict(profile_memory=True)])
def test_table_columns_as_torch(kw):
    lp, tp = run(litnn, **kw), run(torch, **kw)
    group = dict(group_by_input_shape=True) if kw.get('record_shapes') else {}
    lt = lp.key_averages(**group).table(sort_by='cpu_time_total', row_limit=3)
    tt = tp.key_averages(**group).table(sort_by='cpu_time_total', row_limit=3)
    assert [h.strip() for h in header(lt)] == [h.strip() for h in header(tt)]
    assert len(lt.splitlines()) == len(tt.splitlines()) == 3 + 3 + 2
    assert lt.splitlines()[-1].startswith('Self CPU time total: ')
    widths = lambda t: [len(c) for c in t.splitlines()[0].split('  ')]
    n = len(header(tt)) - 1 - bool(kw.get("record_shapes"))
    assert widths(lt)[1:1 + n] == widths(tt)[1:1 + n] == [12] * n   # the name and shapes columns fit their longest entries

def test_schedule_and_trace_handler(tmp_path):
    "Both libraries hand the trace over at the same steps and write one file per cycle."
    for lib in (litnn, torch):
        steps, d = [], tmp_path / lib.__name__
        handler = lib.profiler.tensorboard_trace_handler(str(d), worker_name='w')
        def ready(p): steps.append(p.step_num); handler(p)
        with lib.profiler.profile(schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready) as p:
            for _ in range(10):
                (lib.ones(3) * 2).sum(); p.step()
        assert steps == [4, 8]
        files = sorted(d.iterdir())
        assert len(files) == 2 and all(f.name.startswith('w.') and f.name.endswith('.pt.trace.json') for f in files)
        names = {ev['name'] for ev in json.loads(files[0].read_text())['traceEvents']}
        assert {'ProfilerStep#2', 'ProfilerStep#3', 'aten::mul'} <= names

def check_trace_schema(trace):
    "What chrome://tracing and Perfetto need of a JSON trace (the Trace Event Format)."
    assert isinstance(trace, dict) and isinstance(trace['traceEvents'], list)
    complete = [ev for ev in trace['traceEvents'] if ev['ph'] == 'X']
    assert complete
    for ev in trace['traceEvents']:
        assert ev['ph'] in ('X', 'M', 's', 'f', 'i')     # torch adds flow ('s', 'f') and instant ('i') events
        if ev['ph'] in 'XM': assert isinstance(ev['name'], str) and isinstance(ev['pid'], (int, str)) and isinstance(ev['tid'], (int, str))
        if ev['ph'] == 'X':
            assert isinstance(ev['ts'], (int, float)) and isinstance(ev['dur'], (int, float)) and ev['dur'] >= 0
            assert isinstance(ev['args'], dict) and isinstance(ev['cat'], str)
    return complete

def test_chrome_trace_schema_as_torch(tmp_path):
    for lib in (litnn, torch):
        prof = run(lib, record_shapes=True)
        prof.export_chrome_trace(str(tmp_path / f'{lib.__name__}.json'))
        complete = check_trace_schema(json.loads((tmp_path / f'{lib.__name__}.json').read_text()))
        if lib is litnn: assert all(type(e['pid']) is int and type(e['tid']) is int for e in complete)
        ev = next(e for e in complete if e['name'] == 'aten::tanh')
        assert ev['cat'] == 'cpu_op' and ev['args']['Input Dims'] == [[4, 4]]
        assert next(e for e in complete if e['name'] == 'block')['cat'] == 'user_annotation'
    prof = run(litnn)
    prof.export_chrome_trace(str(tmp_path / 't.json.gz'))
    check_trace_schema(json.loads(gzip.open(tmp_path / 't.json.gz').read()))

def test_gpt_training_step_profiled(tmp_path, monkeypatch):
    "A nanoGPT training step (bench/gpt_step.py's model) under the profiler: its operations, and a valid trace."
    monkeypatch.syspath_prepend(str(ROOT / 'bench'))
    import gpt_step
    step = gpt_step.make_step(litnn)
    with litnn.profiler.profile(activities=[litnn.profiler.ProfilerActivity.CPU], record_shapes=True,
                                schedule=litnn.profiler.schedule(wait=0, warmup=1, active=1, repeat=1)) as prof:
        for _ in range(2):
            with litnn.profiler.record_function('train_step'): step()
            prof.step()
    names = {a.key for a in prof.key_averages()}
    assert {'ProfilerStep#1', 'train_step', 'aten::addmm', 'aten::embedding', 'aten::native_layer_norm', 'aten::gelu',
            'autograd::engine::evaluate_function: AddmmBackward0', 'Optimizer.step#AdamW.step',
            'Optimizer.zero_grad#AdamW.zero_grad'} <= names, sorted(names)     # the optimizer's blocks named as torch's
    assert prof.key_averages().table(sort_by='self_cpu_time_total', row_limit=10).count('\n') == 10 + 5
    prof.export_chrome_trace(str(tmp_path / 'gpt.json'))
    complete = check_trace_schema(json.loads((tmp_path / 'gpt.json').read_text()))
    steps = [e for e in complete if e['name'] == 'ProfilerStep#1']
    assert len(steps) == 1
    s = steps[0]
    inside = [e for e in complete if e['tid'] == s['tid'] and e['ts'] >= s['ts'] and e['ts'] + e['dur'] <= s['ts'] + s['dur'] + 1e-3]
    assert len(inside) > 100

def test_autograd_profiler_old_api():
    x = litnn.ones(3, requires_grad=True)
    with litnn.autograd.profiler.profile(record_shapes=True) as p:
        with litnn.autograd.profiler.record_function('f'): (x * x).sum().backward()
    tx = torch.ones(3, requires_grad=True)
    with torch.autograd.profiler.profile(record_shapes=True) as tp:
        with torch.autograd.profiler.record_function('f'): (tx * tx).sum().backward()
    assert p.function_events[0].name == tp.function_events[0].name == 'f'
    assert [h.strip() for h in header(p.table())] == [h.strip() for h in header(tp.table())]
    assert p.total_average().key == tp.total_average().key == 'Total'
    assert p.self_cpu_time_total > 0
    assert repr(litnn.autograd.profiler.profile()).replace('litnn', 'torch') == repr(torch.autograd.profiler.profile())
    assert litnn.autograd.profiler.profile().table() == torch.autograd.profiler.profile().table() == ''

def test_off_is_untouched():
    "After a profile (even one that raised), Op.apply's hook and the engine's are off."
    from litnn.autograd.grad_mode import _Mode
    with pytest.raises(ValueError):
        with litnn.profiler.profile(): litnn.ones(2) + 1; raise ValueError
    assert _Mode.trace is None and _Mode.profiler is None
    rf = litnn.profiler.record_function('x')
    with rf: litnn.ones(2) * 2
    assert rf.record is None

def test_stack_column():
    """with_stack: torch's 'Source Location' column when averages are grouped by stack (torch 2.13's own with_stack fails to
    decode its frames on this machine, so only litnn runs here)."""
    lp = run(litnn, with_stack=True)
    assert 'Source Location' not in lp.key_averages().table()
    assert header(lp.key_averages(group_by_stack_n=3).table(row_limit=2))[-1].strip() == 'Source Location'
    assert any('test_profiler.py' in f for e in lp.events() for f in e.stack)

def test_profile_resumes_after_an_onnx_trace():
    from litnn.onnx.tracing import trace_module
    m = litnn.nn.Linear(3, 2)
    with litnn.profiler.profile() as p:
        litnn.ones(2) + 1
        trace_module(m, (litnn.ones(1, 3),))
        litnn.ones(2) * 2
    names = [e.name for e in p.events()]
    assert names[0] == 'aten::add' and names[-1] == 'aten::mul'

def test_custom_function_as_torch():
    "A custom autograd.Function's forward is one event named for its class, its backward node SqBackward, as torch's."
    def build(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): ctx.save_for_backward(x); return x * x
            @staticmethod
            def backward(ctx, g): x, = ctx.saved_tensors; return 2 * x * g
        return Sq
    out = []
    for lib in (litnn, torch):
        Sq, x = build(lib), lib.ones(2, requires_grad=True)
        with lib.profiler.profile() as p: Sq.apply(x).sum().backward()
        ev = {e.name: e for e in p.events()}
        out.append((ev['Sq'].cpu_parent, [c.name for c in ev['Sq'].cpu_children], ev['SqBackward'].cpu_parent.name,
                    'aten::mul' in [c.name for c in ev['SqBackward'].cpu_children]))
    assert out[0] == out[1] == (None, ['aten::mul'], 'autograd::engine::evaluate_function: SqBackward', True)

def test_itt_module_as_a_torch_without_itt():
    "torch.profiler.itt: the same public names; litnn has no ITT build, so it answers as such a torch does (torch's stub message)."
    import litnn.profiler.itt as itt
    assert litnn.profiler.itt is itt
    assert sorted(itt.__all__) == sorted(torch.profiler.itt.__all__)
    assert itt.is_available() is False
    for f in (lambda: itt.range_push('step'), itt.range_pop, lambda: itt.mark('x'), lambda: itt.range('step {}', 1).__enter__()):
        with pytest.raises(RuntimeError, match="ITT functions not installed. Are you sure you have a ITT build?"): f()

def test_profiler_enabled_and_hand_built_events():
    "test_autograd.py's test_profiler and test_profiler_function_event_avg: `torch.autograd._profiler_enabled()` in and out of a profile (both APIs); FunctionEvent takes torch's parameters, in torch's order, and an average of hand-built events (flops None) sums as torch's."
    def run(lib):
        seen = [lib.autograd._profiler_enabled()]
        with lib.autograd.profiler.profile(): seen.append(lib.autograd._profiler_enabled())
        with lib.profiler.profile(): seen.append(lib.autograd._profiler_enabled())
        seen.append(lib.autograd._profiler_enabled())
        U = lib.autograd.profiler_util
        e = U.FunctionEvent(0, 'foo', 0, 10, 15, 'ovl', 3, [[2, 3]], node_id=0)
        avg = U.FunctionEventAvg()
        avg.add(e)
        avg.add(U.FunctionEvent(id=1, node_id=0, name='foo', thread=0, start_us=20, end_us=30))
        avg.add(avg)
        attrs = [e.overload_name, e.fwd_thread, e.input_shapes, e.node_id, e.flops, e.scope, e.device_type.name, e.is_async]
        return seen, attrs, avg.key, avg.count, avg.cpu_time_total, avg.self_cpu_time_total, avg.cpu_time, avg.flops
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert run(litnn) == run(torch)

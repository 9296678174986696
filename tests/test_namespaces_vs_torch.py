"""The names of torch's sub-namespaces (torch.autograd, torch.overrides, torch.utils.data, torch.func, torch.optim,
torch.profiler, torch.hub, torch.amp, torch.nn, torch.nn.functional...) that litnn adds for issue 29, side by side with
PyTorch 2.13: the same values, the same behaviour, the same exception types."""
import importlib, warnings
import pytest

torch = pytest.importorskip('torch')
import litnn

def both(): return (torch, litnn)

# torch.overrides (reference/overrides)

def _logged(lib):
    class Logged:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return (func.__name__, [t.__name__ for t in types], len(args), sorted(kwargs or {}))
    class Sub(Logged): pass
    class Declines:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None): return NotImplemented
    return Logged, Sub, Declines

@pytest.mark.parametrize('ns', ['overrides', 'autograd', 'nn.functional'])
def test_torch_function_protocol(ns):
    outs = []
    for lib in both():
        m = importlib.import_module(lib.__name__ + '.' + ns)
        O = importlib.import_module(lib.__name__ + '.overrides')
        Logged, Sub, Declines = _logged(lib)
        def double(x, scale=2):
            if O.has_torch_function_unary(x): return m.handle_torch_function(double, (x,), x, scale=scale)
            return x * scale
        t = lib.tensor([1., 2.])
        r = [m.has_torch_function((t, 1)), m.has_torch_function([Logged()]), O.has_torch_function_variadic(1, Sub()),
             O.has_torch_function_unary(lib.nn.Parameter(t)), double(t).tolist(), double(Logged()),
             m.handle_torch_function(double, (Logged(), Sub()), 1, scale=3) if hasattr(m, 'handle_torch_function') else None]
        with pytest.raises(TypeError, match='no implementation found for'): double(Declines())
        with pytest.raises(TypeError, match='expected a sequence'): m.has_torch_function(1)
        if hasattr(m, 'is_tensor_like'):
            r += [m.is_tensor_like(t), m.is_tensor_like(lib.nn.Parameter(t)), m.is_tensor_like(Logged()), m.is_tensor_like([1.])]
        outs.append(r)
    assert outs[0] == outs[1]

# torch.autograd (reference/backprop/engine_switches)

def test_autograd_switches():
    outs = []
    for lib in both():
        A = lib.autograd
        r = [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        with A.set_multithreading_enabled(False), A._force_original_view_tracking(True), A.enforce_grad_layout_policy(False):
            r += [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        r += [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
        A.set_multithreading_enabled(False); r.append(A.is_multithreading_enabled())
        A.set_multithreading_enabled(True); r.append(A.is_multithreading_enabled())
        @A._force_original_view_tracking(True)
        def f(): return A.is_view_replay_enabled()
        r += [A.is_view_replay_enabled(), f(), A.is_view_replay_enabled()]
        with A.enforce_grad_layout_policy(False):
            x = lib.ones(2, 3).t().requires_grad_(); (x * 2).sum().backward(); r.append(x.grad.tolist())
        outs.append(r)
    assert outs[0] == outs[1]

def test_nested_io_function_and_saved_tensor():
    msgs = []
    for lib in both():
        class Double(lib.autograd.NestedIOFunction):
            def forward_extended(self, x): return x * 2
            def backward_extended(self, g): return g * 2
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(AttributeError) as e1: Double()(x)
        with pytest.raises(AttributeError) as e2: Double.apply(x)
        with pytest.raises(RuntimeError) as e3: lib.autograd.SavedTensor()
        msgs.append((str(e1.value), str(e2.value), str(e3.value)))
        assert issubclass(lib.autograd.NestedIOFunction, lib.autograd.Function)
    assert msgs[0] == msgs[1]

# torch.nn.functional (reference/nn/grouped_and_scaled_mm, reference/nn/functional_namespace)

def _pair(lib, *shapes, dtype='float32', seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s).astype('float32')).to(getattr(lib, dtype)) for s in shapes]

@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
@pytest.mark.parametrize('case', ['3d3d', '2d3d', '3d2d', '2d2d'])
def test_grouped_mm(case, dtype):
    shapes = {'3d3d': ((3, 8, 16), (3, 16, 8)), '2d3d': ((32, 16), (4, 16, 8)), '3d2d': ((4, 8, 16), (16, 32)),
              '2d2d': ((8, 32), (32, 16))}[case]
    offs = None if case == '3d3d' else [4, 12, 12, 32] if case != '2d2d' else [8, 8, 20, 32]
    res = []
    for lib in both():
        a, b = _pair(lib, *shapes, dtype=dtype)
        a.requires_grad_(); b.requires_grad_()
        o = None if offs is None else lib.tensor(offs, dtype=lib.int32)
        out = lib.nn.functional.grouped_mm(a, b, offs=o)
        (out.float() * lib.arange(out.numel()).reshape(out.shape).float().sin()).sum().backward()
        res.append([t.detach().float().numpy() for t in (out, a.grad, b.grad)] + [str(out.dtype).split('.')[-1]])
    import numpy as np
    tol = 2e-2 if dtype == 'bfloat16' else 1e-4
    for x, y in zip(res[0][:3], res[1][:3]): np.testing.assert_allclose(y, x, rtol=tol, atol=tol)
    assert res[0][3] == res[1][3]

@pytest.mark.parametrize('case', range(9))
def test_grouped_mm_errors(case):
    msgs = []
    for lib in both():
        F, r = lib.nn.functional, lambda *s: _pair(lib, *s)
        i32 = lambda *v: lib.tensor(v, dtype=lib.int32)
        calls = [lambda: F.grouped_mm(*r((16, 16), (4, 16, 8))),
                 lambda: F.grouped_mm(*r((16, 16), (4, 16, 8)), offs=lib.tensor([3, 8, 8, 16])),
                 lambda: F.grouped_mm(*r((3, 4, 5), (3, 5, 8))),
                 lambda: F.grouped_mm(*r((16, 16), (4, 16, 8)), offs=i32(3, 8, 8, 16), bias=lib.zeros(8)),
                 lambda: F.grouped_mm(*[t.double() for t in r((3, 8, 16), (3, 16, 8))]),
                 lambda: F.grouped_mm(*r((2, 8, 16), (3, 16, 8))),
                 lambda: F.grouped_mm(*r((3, 8, 16), (3, 8, 8))),
                 lambda: F.grouped_mm(*[t.bfloat16() for t in r((3, 8, 16), (3, 16, 8))], out_dtype=lib.float32),
                 lambda: F.grouped_mm(r((3, 8, 16))[0], r((3, 16, 8))[0].bfloat16())]
        with pytest.raises(RuntimeError) as e: calls[case]()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]

def test_scaled_mm():
    import numpy as np
    res = []
    for lib in both():
        F = lib.nn.functional
        a, b = _pair(lib, (16, 32), (16, 32))
        a8, b8 = a.to(lib.float8_e4m3fn), b.to(lib.float8_e4m3fn).t()
        S = F.ScalingType
        r = [F.scaled_mm(a8, b8, lib.tensor(2.), S.TensorWise, lib.tensor(0.25), S.TensorWise),
             F.scaled_mm(a8, b8, lib.tensor([2.]), [S.TensorWise], lib.tensor(0.25), S.TensorWise, output_dtype=lib.float32,
                         bias=lib.ones(16, dtype=lib.float32)),
             F.scaled_mm(a8, b8, lib.arange(16.).reshape(16, 1), S.RowWise, lib.ones(1, 16) / 4, S.RowWise, output_dtype=lib.float16),
             F.scaled_mm(a8, b8, lib.tensor(1.), S.TensorWise, lib.tensor(1.), S.TensorWise, output_dtype=None)]
        out = [(str(t.dtype).split('.')[-1], t.float().numpy()) for t in r]
        errs = []
        for call, exc in [(lambda: F.scaled_mm(a8, a8, lib.tensor(1.), S.TensorWise, lib.tensor(1.), S.TensorWise), ValueError),
                          (lambda: F.scaled_mm(a, b.t(), lib.tensor(1.), S.TensorWise, lib.tensor(1.), S.TensorWise), ValueError),
                          (lambda: F.scaled_mm(a8, b8, lib.tensor(1.), S.BlockWise1x128, lib.tensor(1.), S.TensorWise), ValueError),
                          (lambda: F.scaled_grouped_mm(a8, b8, lib.tensor(1.), S.RowWise, lib.tensor(1.), S.RowWise), NotImplementedError)]:
            with pytest.raises(exc) as e: call()
            errs.append(str(e.value).splitlines()[0])
        res.append((out, errs, sorted(S.__members__), sorted(F.SwizzleType.__members__)))
    (o0, e0, s0, w0), (o1, e1, s1, w1) = res
    assert [d for d, _ in o0] == [d for d, _ in o1] and e1 == [e[:len(x)] for e, x in zip(e0, e1)] and s0 == s1 and w0 == w1
    for (_, x), (_, y) in zip(o0, o1): np.testing.assert_allclose(y, x, rtol=1e-2, atol=1e-2)

def test_functional_namespace_values():
    import litnn.nn.functional as LF, torch.nn.functional as TF
    for n in ['GRID_SAMPLE_INTERPOLATION_MODES', 'GRID_SAMPLE_PADDING_MODES', 'reproducibility_notes', 'sparse_support_notes',
              'tf32_notes', 'TYPE_CHECKING']:
        assert getattr(LF, n) == getattr(TF, n), n
    assert LF.BroadcastingList2[int] is TF.BroadcastingList2[int] is None
    msgs = []
    for F in (TF, LF):
        F.assert_int_or_pair(3, 'k', '{} bad'); F.assert_int_or_pair((1, 2), 'k', '{} bad')
        with pytest.raises(AssertionError) as e: F.assert_int_or_pair([1, 2, 3], 'kernel_size', '{} must be int or pair')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]

def test_boolean_dispatch():
    import torch._jit_internal as TJ, litnn._jit_internal as LJ
    res = []
    for J in (TJ, LJ):
        def with_i(x, flag=False): "doc"; return ('with', x)
        def without(x, flag=False): return ('without', x)
        f = J.boolean_dispatch('flag', 1, False, with_i, without, 'mod', 'name')
        res.append((f(1), f(1, True), f(1, flag=True), f(1, flag=0), f.__doc__, without.__doc__, f.__name__, f.__module__,
                    sorted(J.boolean_dispatched[f])))
        def a(x): "a"
        def b(x): "b"
        with pytest.raises(RuntimeError, match='only one function can have a docstring'): J.boolean_dispatch('f', 0, 0, a, b, None, None)
    assert res[0] == res[1]

# torch.utils.data's DataPipes (reference/utils/data/datapipes/datapipe, .../decorator)

def _pipes(lib, suffix):
    U = lib.utils.data
    class Source(U.IterDataPipe):
        def __init__(self, n): self.n = n
        def __iter__(self): yield from range(self.n)
    @U.functional_datapipe('t5_scale_' + suffix)
    class Scale(U.IterDataPipe):
        "Scale each sample."
        def __init__(self, source_dp, k=2): self.source_dp, self.k = source_dp, k
        def __iter__(self):
            for x in self.source_dp: yield x * self.k
    @U.functional_datapipe('t5_chunk_' + suffix)
    class Chunk(U.IterDataPipe):
        def __init__(self, source_dp, size): self.source_dp, self.size = source_dp, size
        def __iter__(self):
            buf = []
            for x in self.source_dp:
                buf.append(x)
                if len(buf) == self.size: yield U.DataChunk(buf); buf = []
            if buf: yield U.DataChunk(buf)
    class Squares(U.MapDataPipe):
        def __getitem__(self, i): return i * i
        def __len__(self): return 4
    @U.functional_datapipe('t5_plus_' + suffix)
    class Plus(U.MapDataPipe):
        def __init__(self, dp, k): self.dp, self.k = dp, k
        def __getitem__(self, i): return self.dp[i] + self.k
        def __len__(self): return len(self.dp)
    return Source, Scale, Chunk, Squares, Plus

def test_functional_datapipe_chains():
    import pickle
    outs = []
    for lib in both():
        U = lib.utils.data
        Source, Scale, Chunk, Squares, Plus = _pipes(lib, 'x')
        dp = getattr(getattr(Source(7), 't5_scale_x')(k=3), 't5_chunk_x')(3)
        r = [list(dp), repr(dp), str(dp), [c.as_str('-') for c in dp], getattr(Source(1), 't5_scale_x').__doc__,
             't5_scale_x' in dir(Source(1)), 't5_scale_x' in U.MapDataPipe.functions,
             isinstance(dp, U.IterableDataset), isinstance(Squares(), U.Dataset), getattr(Squares(), 't5_plus_x')(10)[3],
             repr(U.DataChunk([1, 2])), list(U.DataChunk([1, 2]).raw_iterator()), U.DFIterDataPipe()._is_dfpipe(),
             U.IterDataPipe().reset(), repr(U.MapDataPipe())]
        with pytest.raises(Exception, match='already taken'): U.functional_datapipe('t5_scale_x')(Scale)
        with pytest.raises(AttributeError) as e: Source(1).nothing
        r.append(str(e.value))
        with pytest.raises(TypeError): U.functional_datapipe('t5_nd_x')(U.non_deterministic(Source))
        for kind in (U.IterDataPipe, U.MapDataPipe):
            for n in [n for n in kind.functions if n.startswith('t5_')]: del kind.functions[n]
        outs.append(r)
    assert outs[0] == outs[1]

def test_datapipe_determinism_and_validation():
    outs = []
    for lib in both():
        U = lib.utils.data
        class Arrival(U.IterDataPipe):
            def __iter__(self): yield from [3, 1, 2]
        Arrival = U.non_deterministic(Arrival)
        class Maybe(U.IterDataPipe):
            def __init__(self, shuffle=False): self.shuffle = shuffle
            def __iter__(self): yield from [1, 2]
        Maybe = U.non_deterministic(lambda shuffle=False: shuffle)(Maybe)
        class Ints(U.IterDataPipe[int]):
            def __init__(self, xs): self.xs = xs
            @U.runtime_validation
            def __iter__(self): yield from self.xs
        class Takes(U.IterDataPipe):
            @U.argument_validation
            def __init__(self, source_dp: U.IterDataPipe, k: int = 1): self.source_dp = source_dp
        class Loose(U.IterDataPipe):
            @U.argument_validation
            def __init__(self, source_dp: U.IterDataPipe[int]): self.source_dp = source_dp
        r = [list(Arrival()), list(Maybe(shuffle=True)), Loose([1]).source_dp]
        errs = []
        def err(call, exc):
            with pytest.raises(exc) as e: call()
            errs.append(str(e.value).splitlines()[0])
        with U.guaranteed_datapipes_determinism():
            r.append(list(Maybe()))
            err(Arrival, TypeError); err(lambda: Maybe(shuffle=True), TypeError)
        r.append(list(Arrival()))
        err(lambda: Maybe(shuffle=1), TypeError)
        err(lambda: U.non_deterministic(int), TypeError); err(lambda: U.non_deterministic(3), TypeError)
        err(lambda: U.non_deterministic(lambda: True)(int), TypeError)
        with U.runtime_validation_disabled(): r.append(list(Ints([1, 'a'])))
        err(lambda: list(Ints([1])), AttributeError)
        err(lambda: Takes([1]), TypeError); err(lambda: Takes(Ints([1])), AttributeError)
        def f(self): yield 1
        err(lambda: U.runtime_validation(f), TypeError)
        outs.append((r, errs))
    assert outs[0] == outs[1]

class _TorchCount(torch.utils.data.IterDataPipe):
    def __iter__(self): yield from range(6)

class _LitnnCount(litnn.utils.data.IterDataPipe):
    def __iter__(self): yield from range(6)

def test_dataloader_over_a_datapipe():
    outs = [[b.tolist() for b in lib.utils.data.DataLoader(C(), batch_size=4)] for lib, C in ((torch, _TorchCount), (litnn, _LitnnCount))]
    assert outs[0] == outs[1] == [[0, 1, 2, 3], [4, 5]]

# torch.func (reference/func/einops, reference/func/batch_norm_replacement)

PATTERNS = [('b c h w -> b h w c', {}), ('b c h (w s) -> b (c s) h w', dict(s=2)), ('b ... -> b (...)', {}),
            ('b c h w -> (b c) 1 h w', {}), ('b c h w -> b c () h w', {}), ('b c (h h1) (w w1) -> b (c h1 w1) h w', dict(h1=2, w1=3)),
            ('b c (h h1) (w w1) -> (b h1 w1) h w c', dict(h1=2, w1=2)), ('... w -> w ...', {}), ('b ... w -> (b w) (...)', {}),
            ('b c h w -> (w h c b)', {}), ('b c h w -> b c h w', {}), ('b (c1 c2) h w -> b c2 c1 h w', dict(c1=3))]

@pytest.mark.parametrize('pattern,kw', PATTERNS)
def test_rearrange(pattern, kw):
    import numpy as np
    res = []
    for lib in both():
        x = lib.arange(2 * 6 * 4 * 6.).reshape(2, 6, 4, 6).requires_grad_()
        y = lib.func.rearrange(x, pattern, **kw)
        (y * lib.arange(y.numel()).reshape(y.shape)).sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0]); np.testing.assert_array_equal(res[0][1], res[1][1])

def test_rearrange_list_and_errors():
    assert tuple(torch.func.rearrange([torch.ones(2, 3)] * 4, 'n a b -> a (n b)').shape) == \
           tuple(litnn.func.rearrange([litnn.ones(2, 3)] * 4, 'n a b -> a (n b)').shape)
    for p, kw in [('b c h w -> b c h', {}), ('b b h w -> b h w', {}), ('b c h w -> b c h w', dict(q=3)),
                  ('b c (h x) w -> b c h x w', dict(x=5)), ('b c h -> b c h', {}), ('b (c x y) h w -> b c h w x y', {}),
                  ('b c h w -> b c (h w', {}), ('b c h w', {}), ('(b ...) c h w -> b c h w', {})]:
        errs = []
        for lib in both():
            with pytest.raises(Exception) as e: lib.func.rearrange(lib.ones(2, 6, 4, 6), p, **kw)
            errs.append((type(e.value).__name__, type(e.value).__mro__[1]))
        assert errs[0] == errs[1], p

def test_replace_all_batch_norm_modules_():
    outs = []
    for lib in both():
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Sequential(lib.nn.BatchNorm1d(4, track_running_stats=False)))
        r = lib.func.replace_all_batch_norm_modules_(net)
        assert r is net
        outs.append([(m.running_mean, m.running_var, m.num_batches_tracked, m.track_running_stats) for m in (net[1], net[2][0])]
                    + [sorted(n for n, _ in net.named_buffers()), repr(net)])
    assert outs[0] == outs[1]

def test_debug_unwrap():
    outs = []
    for lib in both():
        F, seen = lib.func, []
        def f(x):
            seen.append((tuple(x.shape), tuple(F.debug_unwrap(x).shape), tuple(F.debug_unwrap(x, recurse=False).shape)))
            return x.sum()
        F.vmap(F.vmap(f))(lib.ones(2, 3, 4))
        t = lib.ones(2)
        assert F.debug_unwrap(t) is t
        outs.append(seen[-1])
    assert outs[0] == outs[1]

# small module constants: torch.optim.lr_scheduler, torch.hub; torch.nested.masked_select

def test_module_constants():
    import math
    assert litnn.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING == torch.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING
    assert litnn.optim.lr_scheduler.inf == torch.optim.lr_scheduler.inf == math.inf
    for n in ['ENV_GITHUB_TOKEN', 'READ_DATA_CHUNK']: assert getattr(litnn.hub, n) == getattr(torch.hub, n), n
    assert str(litnn.hub.MAP_LOCATION).count('|') == str(torch.hub.MAP_LOCATION).count('|')
    for lib in both():
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1.)
        s = lib.optim.lr_scheduler.StepLR(opt, 1)
        with pytest.warns(UserWarning, match='The epoch parameter'): s.step(1)

@pytest.mark.parametrize('shape,mask', [((2, 3), [[True, False, True], [False, True, False]]), ((6, 2), [True, False]),
                                        ((2, 3, 2), [[[True], [False], [True]], [[False], [True], [False]]]), ((3, 3), False)])
def test_nested_masked_select(shape, mask):
    res = []
    for lib in both():
        t = lib.arange(float(math_prod(shape))).reshape(shape)
        nt = lib.nested.masked_select(t, lib.tensor(mask))
        res.append((nt.is_nested, str(nt.layout).split('.')[-1], nt.offsets().tolist(), nt.values().tolist()))
    assert res[0] == res[1]
    for lib in both():
        nt = lib.nested.masked_select(lib.ones(2, 2), lib.ones(2, 2).bool())
        with pytest.raises(RuntimeError, match='requires a strided tensor'): lib.nested.masked_select(nt, lib.ones(2, 2).bool())

def math_prod(s):
    import math
    return math.prod(s)

# torch.profiler / torch.autograd's profiler names (reference/backprop/profiler, reference/backprop/profiler_util)

def _flopped(lib):
    from importlib import import_module
    P = import_module(lib.__name__ + '.profiler')
    x, w, b = lib.ones(8, 16), lib.ones(32, 16), lib.ones(32)
    with P.profile(activities=[P.ProfilerActivity.CPU], with_flops=True) as p:
        lib.mm(x, w.t()); lib.matmul(x, w.t()); lib.addmm(b, x, w.t()); lib.nn.functional.linear(x, w, b)
        lib.nn.functional.conv2d(lib.ones(2, 6, 8, 8), lib.ones(6, 2, 3, 3), groups=3, stride=2)
        lib.nn.functional.conv1d(lib.ones(2, 6, 8), lib.ones(4, 6, 3)); x * x; x + x
        lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 4, 5)); lib.baddbmm(lib.ones(2, 3, 5), lib.ones(2, 3, 4), lib.ones(2, 4, 5))
    return p

def test_profile_with_flops():
    res = []
    for lib in both():
        p = _flopped(lib)
        fl = {e.key: e.flops for e in p.key_averages() if e.flops}
        conv = fl.pop('aten::conv2d', 0) + fl.pop('aten::convolution', 0)      # torch credits aten::conv2d, litnn aten::convolution
        table = p.key_averages().table(sort_by='flops', row_limit=3).splitlines()
        res.append((fl, conv, table[1].split()[-2:], [l.split()[-1] for l in table[3:6]], p.key_averages().total_average().flops > 0))
    assert res[0] == res[1]

def test_profiler_types_and_step_tracker():
    for name in ['DeviceType', 'ProfilerActivity', 'ProfilerState']:
        t, l = getattr(torch.autograd, name), getattr(litnn.autograd, name)
        assert {k: v.value for k, v in t.__members__.items()} == {k: v.value for k, v in l.__members__.items()}, name
    assert {k: v.value for k, v in torch.profiler.RecordScope.__members__.items()} == \
           {k: v.value for k, v in litnn.profiler.RecordScope.__members__.items()}
    assert litnn.profiler.DeviceType is litnn.autograd.DeviceType and litnn.profiler.ProfilerActivity is litnn.autograd.ProfilerActivity
    assert litnn.autograd.kineto_available() == torch.autograd.kineto_available()
    assert litnn.profiler.Optimizer is litnn.optim.Optimizer
    assert litnn.profiler.register_optimizer_step_post_hook is litnn.optim.optimizer.register_optimizer_step_post_hook
    for lib in both():
        with pytest.raises(TypeError, match='No constructor defined'): lib.autograd.ProfilerEvent()
    res = []
    for lib in both():
        K = lib.profiler.KinetoStepTracker
        start = K.current_step()
        K.init_step_count('t5_a'); K.init_step_count('t5_b')
        r = [K.increment_step(n) - start for n in ('t5_a', 't5_b', 't5_a', 't5_a')]
        with pytest.warns(UserWarning, match='increased more than 1'):
            K._step_dict['t5_a'] += 1; r.append(K.increment_step('t5_a') - start)
        r += [K.erase_step_count('t5_a'), K.erase_step_count('t5_b'), K.erase_step_count('t5_a')]
        res.append(r)
    assert res[0] == res[1]

# torch.nn.utils.memory_format, torch.amp.is_autocast_available

def test_convert_conv_weight_memory_format():
    res = []
    for lib in both():
        U, nn = lib.nn.utils, lib.nn
        lib.manual_seed(0)
        m = nn.Sequential(nn.Conv2d(8, 4, 3), nn.ReLU(), nn.Sequential(nn.ConvTranspose2d(4, 2, 3)), nn.Conv3d(2, 2, 1))
        w = m[0].weight
        before = [p.detach().clone() for p in m.parameters()]
        out = U.convert_conv2d_weight_memory_format(m, lib.channels_last)
        U.convert_conv3d_weight_memory_format(m, lib.channels_last_3d)
        res.append((out is m, m[0].weight is w, m[0].weight.is_contiguous(memory_format=lib.channels_last),
                    m[2][0].weight.is_contiguous(memory_format=lib.channels_last), m[3].weight.is_contiguous(memory_format=lib.channels_last_3d),
                    all(lib.equal(a, b) for a, b in zip(before, m.parameters()))))
    assert res[0] == res[1]

@pytest.mark.parametrize('d', ['cpu', 'cuda', 'cuda:0', 'xpu', 'mps', 'meta', 'hip', 'lazy', 'privateuseone', 'gpu', 'CPU', ''])
def test_is_autocast_available(d):
    res = []
    for lib in both():
        try: res.append(lib.amp.is_autocast_available(d))
        except RuntimeError as e: res.append(str(e).replace('torch', 'litnn'))
    assert res[0] == res[1]

def test_docstring_fragments():
    for ns, names in [('linalg', ['common_notes']), ('special', ['common_args', 'multi_dim_common']),
                      ('fft', ['common_args', 'factory_common_args'])]:
        for n in names: assert getattr(getattr(litnn, ns), n) == getattr(getattr(torch, ns), n), (ns, n)

# torch.optim.swap_in_optimizer_params_and_state (reference/optim/stateless)

@pytest.mark.parametrize('name', ['SGD', 'Adam', 'AdamW', 'RMSprop'])
def test_swap_in_optimizer_params_and_state(name):
    import numpy as np
    res = []
    for lib in both():
        lib.manual_seed(0)
        model = lib.nn.Linear(2, 2)
        with lib.no_grad(): model.weight.copy_(lib.tensor([[1., 2.], [3., 4.]])); model.bias.copy_(lib.tensor([0.5, -0.5]))
        kw = dict(momentum=0.9) if name in ('SGD', 'RMSprop') else {}
        opt = getattr(lib.optim, name)(model.parameters(), lr=0.1, **kw)
        model(lib.ones(1, 2)).sum().backward(); opt.step()
        copy = {n: p.detach().clone().requires_grad_() for n, p in model.named_parameters()}
        sd = opt.state_dict(); sd['param_groups'][0]['lr'] = 0.5
        sd['state'] = {k: {n: (v.clone() if isinstance(v, lib.Tensor) else v) for n, v in st.items()} for k, st in sd['state'].items()}
        for i, p in enumerate(copy.values()): p.grad = lib.ones_like(p) * (i + 1)
        with lib.optim.swap_in_optimizer_params_and_state(opt, copy, sd):
            inside = (opt.param_groups[0]['lr'], opt.param_groups[0]['params'][0] is copy['weight'])
            opt.step()
        res.append((inside, opt.param_groups[0]['lr'], opt.param_groups[0]['params'][1] is model.bias,
                    [p.detach().numpy().copy() for p in copy.values()], [p.detach().numpy().copy() for p in model.parameters()],
                    sorted(opt.state[model.bias])))
        errs = []
        for bad in ({'state': [], 'param_groups': []}, {'state': {}, 'param_groups': [{}]}, {'state': {}, 'param_groups': []},
                    dict(opt.state_dict(), state={**opt.state_dict()['state'], 9: {}})):
            with pytest.raises(RuntimeError) as e: lib.optim.swap_in_optimizer_params_and_state(opt, copy, bad).__enter__()
            errs.append(str(e.value))
        with pytest.raises(RuntimeError) as e:
            lib.optim.swap_in_optimizer_params_and_state(getattr(lib.optim, name)(model.parameters(), lr=0.1), copy, sd).__enter__()
        errs.append(str(e.value))
        res.append(errs)
    assert res[0][:3] == res[2][:3] and res[0][5] == res[2][5] and res[1] == res[3]
    for a, b in zip(res[0][3] + res[0][4], res[2][3] + res[2][4]): np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert litnn.optim.swap_in_optimizer_params_and_state.__module__ == 'litnn.optim'

def test_nn_factory_kwargs():
    res = []
    for lib in both():
        f = lib.nn.factory_kwargs
        r = [f(None), f({}), f({'device': 'cpu', 'dtype': lib.float64}) == {'device': 'cpu', 'dtype': lib.float64},
             f({'factory_kwargs': {'dtype': lib.float16}, 'device': 'cpu'}) == {'dtype': lib.float16, 'device': 'cpu'}]
        for bad in ({'dtpye': 1}, {'dtype': lib.float64, 'factory_kwargs': {'dtype': lib.float16}}):
            with pytest.raises(TypeError) as e: f(bad)
            r.append(str(e.value))
        ns = {}; exec(f'from {lib.__name__}.nn import *', ns)
        r.append(all(n in ns for n in ('Linear', 'Conv2d', 'Parameter', 'functional', 'factory_kwargs')))
        res.append(r)
    assert res[0] == res[1]

def test_execution_trace_observer(tmp_path):
    import json
    res = []
    for lib in both():
        et = lib.profiler.ExecutionTraceObserver()
        f = str(tmp_path / f'{lib.__name__}.json')
        r = [et.register_callback(f) is et, et.is_registered, et.get_output_file_path() == f, et.is_running()]
        et.start(); r.append(et.is_running())
        x = lib.ones(2, 3); y = (x * x).sum()
        et.stop(); r.append(et.is_running()); et.unregister_callback(); r.append(et.is_registered)
        t = json.loads(open(f).read())
        nodes = {n['name']: n for n in t['nodes']}
        mul, s = nodes['aten::mul'], nodes['aten::sum']
        r += [sorted(t), t['schema'], t['nodes'][0]['id'] if False else sorted(n['id'] for n in t['nodes'])[:2],
              nodes['[pytorch|profiler|execution_trace|thread]']['ctrl_deps'], mul['ctrl_deps'], mul['inputs']['types'],
              mul['inputs']['shapes'], mul['outputs']['shapes'], mul['outputs']['strides'], mul['inputs']['values'][0][2:],
              s['inputs']['values'][0][0] == mul['outputs']['values'][0][0], [a['name'] for a in mul['attrs']],
              sorted(mul), sorted(mul['inputs'])]
        res.append(r)
    assert res[0] == res[1]

def test_small_module_names():
    assert litnn.nested.DType is litnn.dtype and litnn.nested.Device is litnn.device
    assert litnn.profiler.is_fbcode() is torch.profiler.is_fbcode() is False
    assert litnn.optim.lr_scheduler.TYPE_CHECKING is torch.optim.lr_scheduler.TYPE_CHECKING is False


def test_nn_common_types_as_torch():
    "torch.nn.common_types (norse annotates its conv layers with _size_2_t from it): every alias, the same typing args"
    import typing
    tc, lc = importlib.import_module('torch.nn.common_types'), importlib.import_module('litnn.nn.common_types')
    names = sorted(n for n in vars(tc) if n.startswith('_') and n.endswith('_t'))
    assert names and names == sorted(n for n in vars(lc) if n.startswith('_') and n.endswith('_t'))
    def show(a): return str(a).replace('torch.', 'litnn.').replace('litnn._tensor.', 'litnn.')
    for n in names:
        assert show(typing.get_args(getattr(tc, n))) == show(typing.get_args(getattr(lc, n))), n


@pytest.mark.parametrize('name,exc', [('_check', RuntimeError), ('_check_index', IndexError), ('_check_value', ValueError),
                                      ('_check_type', TypeError), ('_check_not_implemented', NotImplementedError)])
def test_check_functions_as_torch(name, exc):
    "torch._check and its kin: a Python bool condition, a callable message evaluated on failure, torch's default message."
    for lib in both():
        f = getattr(lib, name)
        f(True)
        with pytest.raises(exc, match='^Expected cond to be True, but got False'): f(False)
        with pytest.raises(exc, match='^custom 3$'): f(False, lambda: f"custom {1 + 2}")
        with pytest.raises(exc, match=r'^tensor\(\[0, 1, 2\]\)$'): f(False, lambda: lib.arange(3))
        with pytest.raises(TypeError, match='cond must be a bool'): f('wrong type')
        with pytest.raises(TypeError, match='cond must be a bool'): f(lib.tensor(True))


def test_use_deterministic_algorithms_takes_bools_only():
    for lib in both():
        with pytest.raises(TypeError, match=r"argument 'mode' \(position 1\) must be bool, not int"): lib.use_deterministic_algorithms(1)
        with pytest.raises(TypeError, match=r"argument 'warn_only' must be bool, not int"): lib.use_deterministic_algorithms(False, warn_only=1)
        assert not lib.are_deterministic_algorithms_enabled()


def test_config_namespace():
    "torch.__config__: show(), parallel_info() and _cxx_flags() return text, the thread count among it."
    for lib in both():
        for f in (lib.__config__.show, lib.__config__.parallel_info, lib.__config__._cxx_flags): assert isinstance(f(), str)
        assert f"at::get_num_threads() : {lib.get_num_threads()}" in lib.__config__.parallel_info()

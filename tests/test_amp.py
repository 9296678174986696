"""litnn.amp side by side with torch.amp: autocast's casting of products and losses (dtypes, values,
gradients), its checks and warnings, nesting and the decorator form; GradScaler's scale, unscale_,
step skipping, update rule, state_dict and errors, on the same training steps."""
import inspect, pickle, warnings

import numpy as np
import pytest

import litnn
from litnn.amp import _autocast
from nn_pairs import err, same, exc

torch = pytest.importorskip('torch')
NO_GPU = not litnn.cuda.is_available()


# --- the ops' hook ------------------------------------------------------------------------------------
# Each product and loss calls `_autocast(op, ...)` first (one line at its top, see nbs/02d_amp). The fixture
# checks that every entry point has that line, so the tests below exercise the real ops.
ENTRY_POINTS = [('linear', 'litnn.nn.functional', 'linear'), ('matmul', 'litnn._products', 'matmul'),
                ('mm', 'litnn._products', 'mm'), ('bmm', 'litnn._products', 'bmm'), ('addmm', 'litnn._products', 'addmm'),
                ('conv1d', 'litnn.nn.functional', 'conv1d'), ('conv2d', 'litnn.nn.functional', 'conv2d'),
                ('cross_entropy', 'litnn.nn.functional', 'cross_entropy'), ('nll_loss', 'litnn.nn.functional', 'nll_loss'),
                ('mse_loss', 'litnn.nn.functional', 'mse_loss'), ('l1_loss', 'litnn.nn.functional', 'l1_loss'),
                ('binary_cross_entropy_with_logits', 'litnn.nn.functional', 'binary_cross_entropy_with_logits'),
                ('binary_cross_entropy', 'litnn.nn.functional', 'binary_cross_entropy')]


@pytest.fixture
def ops_hooked():
    import importlib
    for op, modname, name in ENTRY_POINTS:
        f = inspect.unwrap(getattr(importlib.import_module(modname), name))   # under the out= wrapper (writing_into_out)
        assert '_autocast' in f.__code__.co_names, f"{modname}.{name} has no autocast hook"


def pair(shape_x, shape_w, seed=0, dtype=np.float32):
    r = np.random.default_rng(seed)
    return r.standard_normal(shape_x).astype(dtype), r.standard_normal(shape_w).astype(dtype)


def run_both(f, dtype, arrays, grad=True):
    "f(lib, *tensors) under CPU autocast to `dtype` in both libraries: (dtype name, values, input grads) of each."
    out = {}
    for lib in (litnn, torch):
        ts = [lib.tensor(a, requires_grad=grad) for a in arrays]
        with lib.autocast('cpu', dtype=getattr(lib, dtype)):
            y = f(lib, *ts)
        if grad: y.float().sum().backward()
        out[lib.__name__] = (str(y.dtype).split('.')[-1], y.float().detach().numpy(),
                             [t.grad.numpy() if t.grad is not None else None for t in ts],
                             [str(t.grad.dtype).split('.')[-1] if t.grad is not None else None for t in ts])
    return out['litnn'], out['torch']


PRODUCTS = {
    'linear': (lambda lib, x, w: lib.nn.functional.linear(x, w), (4, 3), (5, 3)),
    'linear_bias': (lambda lib, x, w: lib.nn.functional.linear(x, w, bias=w[:, 0] * 1), (4, 3), (5, 3)),
    'Linear_module': (None, (4, 3), (5, 3)),
    'matmul': (lambda lib, x, w: lib.matmul(x, w.T), (2, 4, 3), (5, 3)),
    'at': (lambda lib, x, w: x @ w.T, (4, 3), (5, 3)),
    'mm': (lambda lib, x, w: lib.mm(x, w.T), (4, 3), (5, 3)),
    'bmm': (lambda lib, x, w: lib.bmm(x, w), (2, 4, 3), (2, 3, 5)),
    'addmm': (lambda lib, x, w: lib.addmm(w[:, 0], x, w.T), (4, 3), (5, 3)),
    'conv1d': (lambda lib, x, w: lib.nn.functional.conv1d(x, w), (2, 3, 8), (4, 3, 3)),
    'conv2d': (lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding=1), (2, 3, 6, 6), (4, 3, 3, 3)),
}


def module_linear(lib, x, w):
    m = lib.nn.Linear(3, 5, bias=False)
    with lib.no_grad(): m.weight.copy_(w)
    return m(x)


@pytest.mark.parametrize('name', PRODUCTS)
def test_products_run_in_float16(ops_hooked, name):
    f, sx, sw = PRODUCTS[name]
    f = f or module_linear
    (ldt, ly, lg, lgdt), (tdt, ty, tg, tgdt) = run_both(f, 'float16', pair(sx, sw))
    assert (ldt, lgdt) == (tdt, tgdt) and ldt == 'float16' and lgdt[0] == 'float32'
    np.testing.assert_allclose(ly, ty, rtol=2e-3, atol=2e-3)
    for a, b in zip(lg, tg):
        if a is not None or b is not None: np.testing.assert_allclose(a, b, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize('name', PRODUCTS)
def test_products_inputs_cast_to_bfloat16(ops_hooked, name):
    f, sx, sw = PRODUCTS[name]
    f = f or module_linear
    (ldt, ly, lg, lgdt), (tdt, ty, tg, tgdt) = run_both(f, 'bfloat16', pair(sx, sw))
    assert tdt == 'bfloat16' and lgdt == tgdt       # gradients of the float32 inputs are float32
    np.testing.assert_allclose(ly, ty, rtol=2e-2, atol=5e-2)
    for a, b in zip(lg, tg):
        if a is not None or b is not None: np.testing.assert_allclose(a, b, rtol=2e-2, atol=5e-2)


def test_bfloat16_products_stay_bfloat16(ops_hooked):
    (ldt, *_), (tdt, *_) = run_both(PRODUCTS['mm'][0], 'bfloat16', pair((4, 3), (5, 3)))
    assert ldt == tdt


LOSSES = {
    'cross_entropy': lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([0, 1, 2, 0])),
    'nll_loss': lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([0, 1, 2, 0])),
    'mse_loss': lambda lib, x: lib.nn.functional.mse_loss(x, x.detach() * 0.5),
    'l1_loss': lambda lib, x: lib.nn.functional.l1_loss(x, x.detach() * 0.5),
    'bce_with_logits': lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(x, (x.detach() > 0).to(x.dtype)),
}


@pytest.mark.parametrize('name', LOSSES)
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_losses_of_low_precision_logits_run_in_float32(ops_hooked, name, dtype):
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    def f(lib, t):
        logits = lib.mm(t, lib.eye(3))       # a product: low precision under autocast
        return LOSSES[name](lib, logits)
    (ldt, ly, lg, lgdt), (tdt, ty, tg, tgdt) = run_both(f, dtype, [x])
    assert (ldt, lgdt) == (tdt, tgdt) and ldt == 'float32'
    tol = 1e-2 if dtype == 'bfloat16' else 2e-3
    np.testing.assert_allclose(ly, ty, rtol=tol, atol=tol)
    np.testing.assert_allclose(lg[0], tg[0], rtol=5 * tol, atol=5 * tol)


def test_pointwise_and_float64_untouched(ops_hooked):
    x = np.random.default_rng(2).standard_normal((4, 3))
    for lib in (litnn, torch):
        with lib.autocast('cpu'):
            t = lib.tensor(x)                                          # float64
            assert lib.mm(t, t.T).dtype == lib.float64
            h = lib.tensor(x.astype(np.float32)).to(lib.bfloat16)
            assert h.softmax(-1).dtype == lib.bfloat16 and h.relu().dtype == lib.bfloat16
            assert (h + lib.tensor(x.astype(np.float32))).dtype == lib.float32   # ordinary promotion
            assert lib.mm(lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64)).dtype == lib.int64


def test_nesting_and_decorator(ops_hooked):
    x, w = pair((4, 3), (5, 3))
    def dtypes(lib):
        X, W = lib.tensor(x), lib.tensor(w)
        out = []
        with lib.autocast('cpu', dtype=lib.float16):
            out.append(lib.mm(X, W.T).dtype)
            with lib.autocast('cpu', enabled=False):
                out.append(lib.mm(X, W.T).dtype)
                with lib.autocast('cpu', dtype=lib.float16): out.append(lib.mm(X, W.T).dtype)
            out.append(lib.mm(X, W.T).dtype)
            out.append(lib.is_autocast_enabled('cpu'))
        out += [lib.mm(X, W.T).dtype, lib.is_autocast_enabled('cpu'), lib.get_autocast_dtype('cpu'), lib.get_autocast_dtype('cuda')]

        @lib.autocast('cpu', dtype=lib.float16)
        def f(a, b): return lib.mm(a, b.T)
        out += [f(X, W).dtype, lib.mm(X, W.T).dtype, f.__name__]
        with lib.amp.autocast(device_type='cpu', dtype=lib.float16, cache_enabled=False): out.append(lib.mm(X, W.T).dtype)
        return [str(o) for o in out]
    same(lambda lib: [o.replace('torch.', '').replace('litnn.', '') for o in dtypes(lib)])


def test_autocast_checks():
    same(lambda lib: err(lib.autocast, 3)[0])
    same(lambda lib: err(lib.autocast, 'tpu')[0])
    same(lambda lib: err(lib.autocast('cpu'), 3))
    for dt in ('float32', 'float64', 'int64'):
        def warned(lib):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                a = lib.autocast('cpu', dtype=getattr(lib, dt))
            return a._enabled, [(type(m.message), str(m.message).replace('torch', 'litnn')) for m in w]
        same(warned)


@pytest.mark.skipif(not NO_GPU, reason="torch's CPU build answers for a machine without a GPU")
def test_cuda_autocast_without_gpu():
    def warned(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            a = lib.autocast('cuda')
            b = lib.cuda.amp.autocast()
        return a._enabled, b._enabled, [(type(m.message), str(m.message).replace('torch', 'litnn')) for m in w]
    same(warned)
    same(lambda lib: lib.is_autocast_enabled())


def test_bce_is_refused_under_cuda_autocast_only():
    import litnn.amp as amp
    x = litnn.rand(3)
    with litnn.autocast('cpu'): assert _autocast('binary_cross_entropy', x)[0].dtype == litnn.float32
    saved = amp._dtype_on['cuda']
    amp._dtype_on['cuda'], amp._active = litnn.float16, True      # a CUDA region, without a GPU to enter one
    try:
        with pytest.raises(RuntimeError, match='unsafe to autocast'): _autocast('binary_cross_entropy', x)
    finally: amp._dtype_on['cuda'], amp._active = saved, False


# --- GradScaler ---------------------------------------------------------------------------------------

def scaler_run(lib, grads_per_step, **kw):
    "Steps of SGD under a GradScaler('cpu'); each step's gradient is set to the given values times the scale."
    p = lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([p], lr=0.1)
    s = lib.amp.GradScaler('cpu', **kw)
    log = []
    for g in grads_per_step:
        opt.zero_grad()
        loss = s.scale((p * lib.tensor(g, dtype=lib.float32)).sum())
        loss.backward()
        ret = s.step(opt)
        s.update()
        log.append((repr(loss.item()), [round(v, 6) for v in p.tolist()], s.get_scale(), s._get_growth_tracker(), ret))
    return log, s.state_dict()


def test_scaler_steps_skips_and_rescales():
    inf, nan = float('inf'), float('nan')
    steps = [[1., 2., 3.], [1., inf, 3.], [1., 1., 1.], [nan, 0., 0.], [0.5, 0.5, 0.5], [1., 1., 1.], [1., 1., 1.]]
    same(lambda lib: scaler_run(lib, steps, init_scale=8., growth_interval=2))
    same(lambda lib: scaler_run(lib, steps, init_scale=2.**16, growth_factor=4., backoff_factor=0.25, growth_interval=1))
    same(lambda lib: scaler_run(lib, [[1., 1., 1.]] * 3, init_scale=3.4e38, growth_interval=1))   # growth would overflow


def test_scaler_unscale_then_clip():
    def run(lib):
        p = lib.nn.Parameter(lib.tensor([3., 4.]))
        opt = lib.optim.SGD([p], lr=1.)
        s = lib.amp.GradScaler('cpu', init_scale=1024.)
        s.scale((p * p).sum() / 2).backward()
        s.unscale_(opt)
        g1 = p.grad.tolist()
        n = lib.nn.utils.clip_grad_norm_([p], 1.0)
        e = err(s.unscale_, opt)
        s.step(opt); s.update()
        return g1, round(n.item(), 5), e, [round(v, 5) for v in p.tolist()]
    same(run)


def test_scaler_errors_and_disabled():
    def run(lib):
        S = lib.amp.GradScaler
        p = lib.nn.Parameter(lib.ones(2)); opt = lib.optim.SGD([p], lr=0.1)
        out = [err(S('cpu').step, opt), err(S('cpu').update), err(S('cpu').unscale_, opt), err(S('cpu').load_state_dict, {}),
               err(S, 'cpu', growth_factor=1.), err(S, 'cpu', backoff_factor=1.)]
        s = S('cpu'); s.scale(p.sum()).backward(); s.step(opt)
        out += [err(s.step, opt), err(s.unscale_, opt), err(s.step, opt, closure=lambda: 0), err(s.scale, 3)]
        out.append(err(pickle.dumps, s))
        s.update()
        s2 = pickle.loads(pickle.dumps(s))
        out.append((s2.get_scale(), s2._get_growth_tracker(), s2.state_dict()))
        off = S('cpu', enabled=False)
        out += [off.is_enabled(), off.get_scale(), off.state_dict(), off.load_state_dict({}), off.scale(p) is p]
        return out
    same(run)


def test_scaler_state_dict_round_trip_and_setters():
    def run(lib):
        s = lib.amp.GradScaler('cpu', init_scale=16., growth_interval=3)
        p = lib.nn.Parameter(lib.ones(2)); opt = lib.optim.SGD([p], lr=0.1)
        s.scale(p.sum()).backward(); s.step(opt); s.update()
        sd = s.state_dict()
        t = lib.amp.GradScaler('cpu'); t.load_state_dict(sd)
        t.set_growth_factor(3.); t.set_backoff_factor(0.25); t.set_growth_interval(7)
        u = lib.amp.GradScaler('cpu'); u.scale(p.sum()); u.load_state_dict(sd)
        return sd, t.state_dict(), u.state_dict(), t.get_growth_factor(), t.get_backoff_factor(), t.get_growth_interval()
    same(run)


def test_scaler_new_scale():
    def run(lib):
        s = lib.amp.GradScaler('cpu', init_scale=16.)
        p = lib.nn.Parameter(lib.ones(2)); opt = lib.optim.SGD([p], lr=0.1)
        s.scale(p.sum()).backward(); s.step(opt); s.update(new_scale=4.)
        a = s.get_scale()
        s.scale(p.sum()); s.update(new_scale=lib.tensor(2.))
        return a, s.get_scale(), err(s.update, lib.tensor([1., 2.]))
    same(run)


def test_scaler_refuses_fp16_grads():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.float16)); opt = lib.optim.SGD([p], lr=0.1)
        s = lib.amp.GradScaler('cpu'); s.scale(p.float().sum()).backward()
        return err(s.step, opt)
    same(run)


@pytest.mark.skipif(not NO_GPU, reason="torch's CPU build answers for a machine without a GPU")
def test_cuda_scaler_without_gpu():
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            a, b = lib.amp.GradScaler(), lib.cuda.amp.GradScaler()
        return a.is_enabled(), b.is_enabled(), a.get_scale(), [(type(m.message), str(m.message).replace('torch', 'litnn')) for m in w]
    same(run)
    from litnn.cuda.amp import GradScaler, autocast   # noqa: F401 (the import form of older programs)


# --- custom_fwd / custom_bwd --------------------------------------------------------------------------

def custom_function_run(lib, cast_inputs):
    seen = []
    class F(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type='cpu', cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen.append(('fwd', str(a.dtype).split('.')[-1], lib.is_autocast_enabled('cpu')))
            return lib.mm(a, b)
        @staticmethod
        @lib.amp.custom_bwd(device_type='cpu')
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen.append(('bwd', lib.is_autocast_enabled('cpu'), str(lib.get_autocast_dtype('cpu')).split('.')[-1]))
            return lib.mm(g, b.t()), lib.mm(a.t(), g)
    x, w = pair((2, 3), (3, 4))
    a = lib.tensor(x, requires_grad=True)
    with lib.autocast('cpu', dtype=lib.float16):
        y = F.apply(a, lib.tensor(w))
    y.float().sum().backward()
    return seen, str(y.dtype).split('.')[-1], str(a.grad.dtype).split('.')[-1], np.round(a.grad.float().numpy(), 2).tolist()


@pytest.mark.parametrize('cast_inputs', [None, 'float32', 'float64'])
def test_custom_fwd_bwd(ops_hooked, cast_inputs):
    same(lambda lib: custom_function_run(lib, cast_inputs and getattr(lib, cast_inputs)))
    same(lambda lib: err(lib.amp.custom_fwd, lambda: 0, device_type=3))
    same(lambda lib: err(lib.amp.custom_bwd, lambda: 0, device_type=None))


def test_cuda_amp_custom_decorators_warn_as_torchs():
    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            f = lib.cuda.amp.custom_fwd(lambda ctx, a: a)
            b = lib.cuda.amp.custom_bwd(lambda ctx, g: g)
        return callable(f), callable(b), [(type(m.message), str(m.message).replace('torch', 'litnn')) for m in w]
    same(run)


@pytest.mark.parametrize('dev', ['cpu', 'cuda', 'mps', 'xpu', 'hpu', 'xla', 'ipu', 'mtia', 'maia', 'meta', 'privateuseone', 'bogus'])
def test_autocast_state_of_any_device_type_as_torch(dev):
    "kornia asks is_autocast_enabled(d) for cpu, cuda, mps and xpu"
    import torch
    def ask(L):
        try: return L.is_autocast_enabled(dev), str(L.get_autocast_dtype(dev)).split('.')[-1]
        except Exception as e: return type(e).__name__, str(e)[:40]
    assert ask(litnn) == ask(torch)



def test_autocast_state_switches_as_torchs():
    "torch's low-level switches (and their deprecated one-device spellings, as timm calls them) read and set the same state."
    import warnings
    torch = pytest.importorskip('torch')
    def run(lib):
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            out += [lib.is_autocast_cpu_enabled(), str(lib.get_autocast_cpu_dtype()), str(lib.get_autocast_gpu_dtype()),
                    lib.is_autocast_cache_enabled(), str(lib.get_autocast_xla_dtype()), str(lib.get_autocast_ipu_dtype())]
            lib.set_autocast_enabled('cpu', True); lib.set_autocast_dtype('cpu', lib.float16)
            out += [lib.is_autocast_enabled('cpu'), lib.is_autocast_enabled(), str(lib.get_autocast_dtype('cpu'))]
            lib.set_autocast_cpu_enabled(False); lib.set_autocast_cpu_dtype(lib.bfloat16)
            out += [lib.is_autocast_enabled('cpu'), str(lib.get_autocast_dtype('cpu'))]
            lib.set_autocast_enabled(True); out.append(lib.is_autocast_enabled('cuda')); lib.set_autocast_enabled(False)
            out += [lib.autocast_increment_nesting(), lib.autocast_decrement_nesting()]
            out.append(sorted({(x.category.__name__, str(x.message).split(' is deprecated')[0]) for x in w}))
        try: lib.set_autocast_enabled('cpu', 1)
        except Exception as e: out.append((type(e).__name__, str(e)))
        return [str(o).replace('litnn', 'torch') for o in out]
    assert run(litnn) == run(torch)
    assert not litnn.is_autocast_enabled('cpu') and not litnn.amp._active


def test_cuda_amp_common_as_torch():
    "torch.cuda.amp.common.amp_definitely_not_available (a module torch.cuda.amp imports): no CUDA device and no torch_xla"
    import importlib.util
    torch = pytest.importorskip('torch')
    from litnn.cuda.amp import common
    assert common.amp_definitely_not_available() == (not (litnn.cuda.is_available() or importlib.util.find_spec('torch_xla')))
    assert litnn.cuda.amp.amp_definitely_not_available is common.amp_definitely_not_available
    if not torch.cuda.is_available() and not litnn.cuda.is_available():
        assert common.amp_definitely_not_available() == torch.cuda.amp.common.amp_definitely_not_available()


@pytest.mark.parametrize('device_type', ['mps', 'xla', 'cpu:0', 'cuda:1', 'hpu', 'xpu', 'ipu', 'mtia', 'maia', 'meta', 'foo',
                                         'privateuseone', 3])
def test_autocast_device_types_as_torch(device_type):
    "torch.autocast takes every device type its build knows (mps, xla, ... with or without an index), whether or not one"
    "is here: the region reports itself on and keeps the type's dtype; meta, junk, privateuseone (no module) and a non-string refuse."
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try:
                with lib.autocast(device_type=device_type):
                    inside = lib.is_autocast_enabled(device_type), str(lib.get_autocast_dtype(device_type)).split('.')[-1]
                return 'ok', inside, lib.is_autocast_enabled(device_type)
            except Exception as e: return type(e).__name__, str(e).split('\n')[0][:60]
    assert run(litnn) == run(torch)


def test_a_region_without_dtype_takes_the_current_one():
    "autocast(device_type) without a dtype takes get_autocast_dtype's: an outer region's, or set_autocast_dtype's (torch's)."
    outs = []
    for lib in (litnn, torch):
        x, got = lib.ones(2, 2), []
        with lib.autocast('cpu', dtype=lib.float16):
            with lib.autocast('cpu'): got.append((x @ x).dtype)
        try:
            lib.set_autocast_dtype('cpu', lib.float16)
            with lib.autocast('cpu'): got.append((x @ x).dtype)
        finally: lib.set_autocast_dtype('cpu', lib.bfloat16)
        with lib.autocast('cpu'): got.append((x @ x).dtype)
        outs.append([str(d).split('.')[-1] for d in got])
    assert outs[0] == outs[1] == ['float16', 'float16', 'bfloat16']


def test_autocast_state_belongs_to_a_thread():
    "torch keeps autocast's state per thread: a region in one thread casts nothing in another, and a new thread starts with the defaults."
    import threading
    def run(lib):
        x, seen = lib.ones(2, 2), {}
        def other(): seen.update(dtype=(x @ x).dtype, on=lib.is_autocast_enabled('cpu'), fast=lib.get_autocast_dtype('cpu'),
                                 cache=lib.is_autocast_cache_enabled())
        with lib.autocast('cpu', dtype=lib.float16):
            lib.set_autocast_cache_enabled(False)
            t = threading.Thread(target=other); t.start(); t.join()
            inside = (x @ x).dtype
            lib.set_autocast_cache_enabled(True)
        def enter_and_leave_open():        # a thread that never closes its region leaves the main thread's state alone
            lib.autocast('cpu').__enter__(); seen['left'] = lib.is_autocast_enabled('cpu')
        t = threading.Thread(target=enter_and_leave_open); t.start(); t.join()
        name = lambda v: str(v).split('.')[-1]       # float16 for litnn.float16 and torch.float16
        return {k: name(v) for k, v in seen.items()}, name(inside), lib.is_autocast_enabled('cpu'), name((x @ x).dtype)
    got = run(litnn)
    assert got == run(torch)
    assert got == ({'dtype': 'float32', 'on': 'False', 'fast': 'bfloat16', 'cache': 'True', 'left': 'True'}, 'float16', False, 'float32')

"""Fixes found by running PyTorch's test/test_modules.py (TestModule over torch's `module_db`) against litnn: each case
compares litnn with real torch on the same inputs. Below them, the ModuleInfo database itself run through both libraries
(module-db-1): each module built from the same constructor input, torch's state copied into litnn's, the same forward
input; outputs, input and parameter gradients of a fixed cotangent, the state after the call and the reprs compared;
every error input; and the memory-format cases where litnn's layouts differed."""
import dataclasses, io, re
import numpy as np
import pytest
import litnn
torch = pytest.importorskip('torch')


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('approximate', ['none', 'tanh'])
def test_gelu_backward_is_reentrant_and_matches_torch(dtype, approximate):
    # test_grad_nn_TransformerEncoderLayer (gelu_activation): gradcheck runs backward twice on one graph ("Backward is not
    # reentrant"); the second backward recomputed Φ(x) by another formula than forward's fused loop
    x = np.random.default_rng(0).standard_normal((4, 33)).astype(dtype)
    g = np.random.default_rng(1).standard_normal((4, 33)).astype(dtype)
    grads = {}
    for lib in (litnn, torch):
        t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.gelu(t, approximate=approximate)
        grads[lib] = [lib.autograd.grad(out, t, lib.tensor(g), retain_graph=True)[0].detach().numpy() for _ in range(3)]
    a, b, c = grads[litnn]
    assert np.array_equal(a, b) and np.array_equal(a, c)
    np.testing.assert_allclose(a, grads[torch][0], rtol=1e-5 if dtype == 'float32' else 1e-12, atol=1e-6 if dtype == 'float32' else 1e-14)


def test_meta_tensor_data_ptr_and_storage_offset_as_torch():
    # test_device_ctx_init: assert_metadata_eq reads storage_offset() of parameters built under `with torch.device('meta')`
    for lib in (litnn, torch):
        t = lib.empty(4, 3, device='meta')
        assert (t.data_ptr(), t.storage_offset(), t.untyped_storage().data_ptr()) == (0, 0, 0)
    assert litnn.ones(5)[2:].storage_offset() == torch.ones(5)[2:].storage_offset() == 2


@pytest.mark.parametrize('dtype', ['complex64', 'complex128', 'float32'])
def test_meta_real_imag_and_view_as_real_as_torch(dtype):
    # test_device_ctx_init_nn_ConvTranspose*d_cpu_complex*: the inputs are made under the meta device (view_as_real)
    out = {}
    for lib in (litnn, torch):
        t = lib.empty(3, 2, dtype=getattr(lib, dtype), device='meta')
        r = lib.view_as_real(t) if t.is_complex() else t
        out[lib] = [(str(v.dtype).split('.')[1], tuple(v.shape), v.device.type) for v in (t.real, r)]
        if t.is_complex(): out[lib].append((str(t.imag.dtype), tuple(t.imag.shape)))
    assert out[litnn][:2] == out[torch][:2] and len(out[litnn]) == len(out[torch])


@pytest.mark.parametrize('name', ['ConvTranspose1d', 'ConvTranspose2d', 'Linear', 'BatchNorm2d', 'LSTM'])
def test_modules_built_on_the_meta_device_as_torch(name):
    # test_device_ctx_init: a module made under `with torch.device('meta')` has the CPU module's metadata
    args = {'ConvTranspose1d': (3, 4, 2), 'ConvTranspose2d': (3, 4, 2), 'Linear': (3, 4), 'BatchNorm2d': (3,), 'LSTM': (3, 4)}[name]
    meta = {}
    for lib in (litnn, torch):
        with lib.device('meta'): m = getattr(lib.nn, name)(*args)
        cpu = getattr(lib.nn, name)(*args)
        meta[lib] = [(n, tuple(p.shape), p.stride(), p.storage_offset(), p.requires_grad, p.is_meta) for n, p in
                     list(m.named_parameters()) + list(m.named_buffers())]
        assert [x[:5] for x in meta[lib]] == [(n, tuple(p.shape), p.stride(), p.storage_offset(), p.requires_grad) for n, p in
                                              list(cpu.named_parameters()) + list(cpu.named_buffers())]
    assert meta[litnn] == meta[torch]


def test_save_load_whole_module_with_slots_dataclass_as_torch():
    # test_pickle_nn_LinearCrossEntropyLoss: its `options` is a dataclass(slots=True, frozen=True), whose state is a list
    reprs = []
    for lib in (litnn, torch):
        m = lib.nn.LinearCrossEntropyLoss(3, 4, options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2, acc_policy='accurate'))
        f = io.BytesIO(); lib.save(m, f); f.seek(0)
        back = lib.load(f, weights_only=False)
        assert back.options == m.options and back.options is not m.options
        reprs.append(repr(back))
    assert reprs[0] == reprs[1]
    # a weights-only load still refuses the classes, as torch's
    f = io.BytesIO(); litnn.save(litnn.nn.LinearCrossEntropyLoss(3, 4), f); f.seek(0)
    with pytest.raises(Exception, match='not allow-listed'): litnn.load(f)


_LAYOUT_CASES = [('Conv1d', (3, 4, 3), (2, 3, 5), None, None), ('Conv2d', (3, 4, 3), (2, 3, 5, 6), 'channels_last', None),
                 ('Conv2d', (3, 4, 3), (2, 3, 5, 6), None, 'channels_last'), ('Conv2d', (3, 4, 1), (2, 3, 5, 6), 'channels_last', None),
                 ('Conv2d', (4, 4, 3, 1, 1, 1, 4), (2, 4, 5, 6), 'channels_last', None),   # depthwise
                 ('Conv2d', (3, 5, (2, 3), 2), (2, 3, 7, 8), 'channels_last', None),
                 ('MaxPool2d', (3,), (2, 3, 6, 6), 'channels_last', None), ('AvgPool2d', (3,), (2, 3, 6, 6), 'channels_last', None),
                 ('LPPool2d', (2, 3), (2, 3, 6, 6), 'channels_last', None), ('AdaptiveAvgPool2d', (3,), (2, 3, 6, 6), 'channels_last', None),
                 ('ZeroPad2d', (1,), (2, 3, 5, 6), 'channels_last', None), ('ReflectionPad2d', (1,), (2, 3, 5, 6), 'channels_last', None),
                 ('ReplicationPad3d', (1,), (2, 3, 4, 5, 6), 'channels_last_3d', None)]


def _layouts(lib, mod, ctor, shape, fmt, mfmt):
    x = lib.tensor(np.random.default_rng(0).standard_normal(shape))
    if fmt: x = x.contiguous(memory_format=getattr(lib, fmt))
    x.requires_grad_(True)
    lib.manual_seed(0)
    m = getattr(lib.nn, mod)(*ctor).double()
    if mfmt: m.to(memory_format=getattr(lib, mfmt))
    out = m(x)
    ins = [x] + list(m.parameters())
    gs = lib.autograd.grad(out, ins, lib.empty_like(out).copy_(lib.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape))))
    return [(tuple(t.shape), t.stride()) for t in (out, *gs)], [g.detach().numpy() for g in gs], len(ins)


@pytest.mark.parametrize('case', _LAYOUT_CASES, ids=lambda c: f"{c[0]}-{c[3]}-{c[4]}")
def test_gradient_layouts_as_torch(case):
    # test_memory_format: the gradients of a channels-last input (and of a channels-last module's weights) are channels-last
    # as torch's kernels give them; a convolution's weight and bias gradients are dense, not views of one buffer
    a, ga, _ = _layouts(torch, *case)
    b, gb, _ = _layouts(litnn, *case)
    assert a == b
    for u, v in zip(ga, gb): np.testing.assert_allclose(v, u, rtol=1e-10, atol=1e-12)


# ---- the ModuleInfo database through both libraries (module-db-1) ----
from torch.testing._internal.common_modules import module_db, ModuleErrorEnum   # noqa: E402
# importing torch's test framework (common_utils, through common_modules) freezes torch.backends' flags for the whole
# process (disable_global_flags), and pytest imports this file while it collects, before every other test of its worker:
# unfrozen again, so that the tests that set those flags (tests/test_namespaces.py) run as they do alone
if torch.backends.flags_frozen(): torch.backends.flags_frozen.__globals__['__allow_nonbracketed_mutation_flag'] = True   # (the flag of torch.backends' own module)

TOL = {torch.float32: dict(rtol=1.3e-6, atol=1e-5), torch.float64: dict(rtol=1e-7, atol=1e-7)}
# float32 gradients are sums of many products: torch's summation order differs from numpy's (litnn's are as close to
# float64's as torch's, module-db-1's log), so they get float32's tolerance for reductions
TOLG = {torch.float32: dict(rtol=1e-4, atol=1e-5), torch.float64: TOL[torch.float64]}
RANDOM = ('FractionalMaxPool2d', 'FractionalMaxPool3d')


def to_l(v, memo):
    "A torch value as litnn's: tensors by value (one torch tensor given twice: one litnn tensor), modules and functions by name."
    if isinstance(v, torch.Tensor):
        if id(v) not in memo:
            t = litnn.tensor(v.detach().numpy(), dtype=getattr(litnn, str(v.dtype)[6:]))
            for nd, fmt in ((4, 'channels_last'), (5, 'channels_last_3d')):     # (the memory-format cases' inputs keep their layout)
                if v.dim() == nd and not v.is_contiguous() and v.is_contiguous(memory_format=getattr(torch, fmt)):
                    t = t.contiguous(memory_format=getattr(litnn, fmt))
            memo[id(v)] = t.requires_grad_() if v.requires_grad else t
        return memo[id(v)]
    if isinstance(v, torch.dtype): return getattr(litnn, str(v)[6:])
    if isinstance(v, torch.nn.TransformerEncoderLayer):
        a = v.self_attn
        return litnn.nn.TransformerEncoderLayer(a.embed_dim, a.num_heads, v.linear1.out_features, v.dropout.p, to_l(v.activation, memo),
                                                v.norm1.eps, a.batch_first, v.norm_first, v.linear1.bias is not None,
                                                dtype=to_l(v.linear1.weight.dtype, memo))
    if isinstance(v, torch.nn.Module): return getattr(litnn.nn, type(v).__name__)()
    if dataclasses.is_dataclass(v):
        return getattr(litnn.nn, type(v).__name__)(**{f.name: to_l(getattr(v, f.name), memo) for f in dataclasses.fields(v) if f.init})
    if callable(v) and getattr(torch.nn.functional, getattr(v, '__name__', ''), None) is v: return getattr(litnn.nn.functional, v.__name__)
    if type(v) in (list, tuple): return type(v)(to_l(x, memo) for x in v)
    if isinstance(v, dict): return {k: to_l(x, memo) for k, x in v.items()}
    return v


def tensors(v):
    if isinstance(v, (torch.Tensor, litnn.Tensor)): return [v]
    if isinstance(v, (list, tuple)): return [x for e in v for x in tensors(e)]
    if isinstance(v, dict): return [x for e in v.values() for x in tensors(e)]
    return []


def close(t, l, where, tol, random=False):
    assert isinstance(l, litnn.Tensor), where
    assert tuple(l.shape) == tuple(t.shape) and str(l.dtype)[6:] == str(t.dtype)[6:], (where, l.shape, t.shape, l.dtype, t.dtype)
    if not random:
        np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), equal_nan=True, err_msg=where, **tol)


def run_both(mi, inp, dtype, training):
    "Build, copy the state, run forward and backward in both libraries: (torch module, litnn module, torch/litnn outputs and inputs)."
    ci, fi = inp.constructor_input, inp.forward_input
    memo = {}
    torch.manual_seed(0)
    tm = mi.module_cls(*ci.args, **ci.kwargs).to(dtype).train(training)
    lm = getattr(litnn.nn, mi.module_cls.__name__)(*to_l(ci.args, memo), **to_l(ci.kwargs, memo))
    lm.to(getattr(litnn, str(dtype)[6:])).train(training)
    for t in tensors((fi.args, fi.kwargs)):
        if t.requires_grad and t.grad_fn is not None: t.retain_grad()
    la, lk = to_l(fi.args, memo), to_l(fi.kwargs, memo)
    if mi.is_lazy:
        with torch.no_grad(): tm(*[a.detach() if isinstance(a, torch.Tensor) else a for a in fi.args], **fi.kwargs)
        with litnn.no_grad(): lm(*la, **lk)
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, lm, tm(*fi.args, **fi.kwargs), lm(*la, **lk), tensors((fi.args, fi.kwargs)), tensors((la, lk))


def compare_module_input(mi, inp, dtype, training):
    tm, lm, tout, lout, tin, lin = run_both(mi, inp, dtype, training)
    tol, tolg, random = TOL[dtype], TOLG[dtype], mi.module_cls.__name__ in RANDOM
    tt, lt = tensors(tout), tensors(lout)
    assert len(tt) == len(lt)
    for i, (a, b) in enumerate(zip(tt, lt)): close(a, b, f'out[{i}]', tol, random)
    diff = [(a, b) for a, b in zip(tt, lt) if a.requires_grad and a.dtype.is_floating_point]
    if diff and not random:
        rng = np.random.default_rng(1)
        gs = [rng.standard_normal(tuple(a.shape)) for a, _ in diff]
        torch.autograd.backward([a for a, _ in diff], [torch.tensor(g, dtype=a.dtype) for g, (a, _) in zip(gs, diff)])
        litnn.autograd.backward([b for _, b in diff], [litnn.tensor(g, dtype=b.dtype) for g, (_, b) in zip(gs, diff)])
        for i, (a, b) in enumerate(zip(tin, lin)):
            if a.requires_grad and a.grad is not None: close(a.grad, b.grad, f'input[{i}].grad', tolg)
        lp = dict(lm.named_parameters())
        assert list(lp) == [k for k, _ in tm.named_parameters()]
        for k, p in tm.named_parameters():
            if p.grad is not None: close(p.grad, lp[k].grad, f'{k}.grad', tolg)
    tsd, lsd = tm.state_dict(), lm.state_dict()
    assert list(lsd) == list(tsd)
    for k in tsd: close(tsd[k], lsd[k], f'state {k}', tol, random and not k.endswith('num_batches_tracked'))
    assert repr(lm) == repr(tm) and lm.extra_repr() == tm.extra_repr()


@pytest.mark.parametrize('dtype', [torch.float64, torch.float32], ids=str)
def test_first_input_of_every_module(dtype):
    "The first two ModuleInputs of every ModuleInfo (training and eval), forward, backward, state and repr."
    n = 0
    for mi in module_db:
        for training in (True, False):
            torch.manual_seed(0)
            for inp in mi.module_inputs_func(mi, device='cpu', dtype=dtype, requires_grad=True, training=training)[:2]:
                if inp.forward_input is None: continue
                compare_module_input(mi, inp, dtype, training); n += 1
    assert n > 400


def test_error_inputs():
    "Every module_error_inputs_func case: litnn raises torch's exception type, with a message that matches the ModuleInfo's regex."
    n = 0
    for mi in module_db:
        if mi.module_error_inputs_func is None: continue
        lcls = getattr(litnn.nn, mi.module_cls.__name__)
        for ei in mi.module_error_inputs_func(mi, device='cpu', dtype=torch.float32, requires_grad=False, training=True):
            ci, fi, memo = ei.module_error_input.constructor_input, ei.module_error_input.forward_input, {}
            with pytest.raises(Exception) as info:
                lm = lcls(*to_l(ci.args, memo), **to_l(ci.kwargs, memo))
                if ei.error_on == ModuleErrorEnum.FORWARD_ERROR: lm(*to_l(fi.args, memo), **to_l(fi.kwargs, memo))
            assert ei.error_type.__name__ in {c.__name__ for c in type(info.value).__mro__}, (mi.name, info.value)
            assert re.search(ei.error_regex, str(info.value)), (mi.name, ei.error_regex, str(info.value))
            n += 1
    assert n >= 90


def _fmt_flags(v, fmt):
    "(contiguous, channels-last contiguous) of each tensor."
    nd = 4 if str(fmt).endswith('channels_last') else 5
    return [(t.is_contiguous(), t.dim() == nd and t.is_contiguous(memory_format=fmt)) for t in v]


# the (module, ModuleInput index) pairs whose output or gradient layouts differed (module-db-1, sweep 2 "memfmt")
MEMFMT = [('nn.AvgPool3d', 0), ('nn.AvgPool3d', 1), ('nn.AvgPool3d', 5), ('nn.LPPool3d', 0), ('nn.LPPool3d', 1),
          ('nn.BatchNorm2d', 3), ('nn.BatchNorm3d', 3), ('nn.GroupNorm', 6), ('nn.GroupNorm', 8), ('nn.GroupNorm', 9), ('nn.MSELoss', 0), ('nn.MSELoss', 6),
          ('nn.AdaptiveAvgPool2d', 2), ('nn.AdaptiveAvgPool3d', 3), ('nn.MaxPool3d', 0), ('nn.MaxPool3d', 3),
          ('nn.AdaptiveMaxPool2d', 0), ('nn.AdaptiveMaxPool2d', 3), ('nn.AdaptiveMaxPool3d', 0)]


@pytest.mark.parametrize('name,i', MEMFMT)
@pytest.mark.parametrize('module_fmt', ['contiguous_format', 'channels_last'])
def test_memory_format(name, i, module_fmt):
    """test_modules.py's test_memory_format: a channels-last input (and module), cotangents laid out as the outputs:
    values, and the layout of the outputs and of every gradient, as torch's."""
    mi = next(m for m in module_db if m.name == name)
    dtype = torch.float64
    inp = mi.module_inputs_func(mi, device='cpu', dtype=dtype, requires_grad=True, training=True)[i]
    args = tensors(inp.forward_input.args)
    nd = max(t.dim() for t in args)
    fmt = torch.channels_last if nd == 4 else torch.channels_last_3d
    lfmt = getattr(litnn, str(fmt)[6:])
    to_fmt = lambda t: (t.detach().to(memory_format=fmt) if t.dim() == nd else t.detach().clone()).requires_grad_(t.requires_grad)
    inp.forward_input.args = tuple(to_fmt(t) if isinstance(t, torch.Tensor) else t for t in inp.forward_input.args)
    tm, lm, tout, lout, tin, lin = run_both(mi, inp, dtype, True)
    assert [tuple(l.stride()) for l in lin if l.dim() == nd] == [tuple(t.stride()) for t in tin if t.dim() == nd]
    if module_fmt == 'channels_last' and nd == 4:
        tm.to(memory_format=fmt); lm.to(memory_format=lfmt)
        tout, lout = tm(*inp.forward_input.args), lm(*lin)
    tt, lt = tensors(tout), tensors(lout)
    for a, b in zip(tt, lt): close(a, b, 'out', TOL[dtype])
    assert _fmt_flags(lt, lfmt) == _fmt_flags(tt, fmt)
    tt, lt = [a for a in tt if a.requires_grad], [b for a, b in zip(tt, lt) if a.requires_grad]   # (not the indices)
    rng = np.random.default_rng(2)
    gs = [rng.random(tuple(a.shape)) for a in tt]
    tg = torch.autograd.grad(tt, [t for t in tin if t.requires_grad] + list(tm.parameters()),
                             [torch.empty_like(a).copy_(torch.tensor(g)) for a, g in zip(tt, gs)])
    lg = litnn.autograd.grad(lt, [t for t in lin if t.requires_grad] + list(lm.parameters()),
                             [litnn.empty_like(b).copy_(litnn.tensor(g)) for b, g in zip(lt, gs)])
    for a, b in zip(tg, lg): close(a, b, 'grad', TOL[dtype])
    assert _fmt_flags(lg, lfmt) == _fmt_flags(tg, fmt)
    assert [tuple(b.stride()) for b in lg] == [tuple(a.stride()) for a in tg]


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_mse_loss_gradient_bits(reduction):
    "MSELoss's float32 gradients bit for bit: torch's kernel computes norm * (input - target) * grad, in that order."
    torch.manual_seed(0)
    x0, y0 = torch.randn(64, 37), torch.randn(64, 37)
    grads = []
    for lib in (torch, litnn):
        x, y = lib.tensor(x0.numpy()).requires_grad_(), lib.tensor(y0.numpy()).requires_grad_()
        loss = lib.nn.MSELoss(reduction=reduction)(x, y)
        loss.backward(lib.full(loss.shape, 0.37))
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for a, b in zip(*grads): np.testing.assert_array_equal(b, a)


def test_mean_gradient_is_dense():
    "mean's gradient is torch's mean_backward, expand then divide: a new row-major tensor, not a stride-0 broadcast view."
    for f in (lambda lib, x: x.mean(), lambda lib, x: x.mean((-1, -2), keepdim=True), lambda lib, x: x.mean(1),
              lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1)):
        strides = []
        for lib in (torch, litnn):
            x = lib.ones(2, 3, 4, 5, requires_grad=True)
            y = f(lib, x)
            g, = lib.autograd.grad(y, x, lib.ones_like(y))
            strides.append(tuple(g.stride()))
            assert g.eq(1 / (x.numel() // y.numel())).all()
        assert strides[1] == strides[0]


def test_broadcast_operand_gradient_is_row_major():
    "The gradient of a broadcast operand (RMSNorm's or LayerNorm's weight by a channels-last input) is torch's sum_to: row-major."
    strides = []
    for lib in (torch, litnn):
        x = lib.randn(4, 2, 2, 5).to(memory_format=lib.channels_last)
        w, b = lib.randn(2, 2, 5, requires_grad=True), lib.randn(2, 1, 5, requires_grad=True)
        y = x * w + b
        strides.append([tuple(g.stride()) for g in lib.autograd.grad(y, [w, b], lib.ones_like(y))])
    assert strides[1] == strides[0] == [(10, 5, 1), (5, 5, 1)]

"""`_apply`, `apply`, `to` and the casts of Modules, side by side with torch: dtypes after each conversion,
parameter and gradient identity, integer buffers, the forms of `to`, errors; plus the GPU move."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from nn_pairs import err, same, stand_ins

torch = pytest.importorskip('torch')


def dtypes(m):
    "The dtype names of every parameter, gradient and buffer of `m`, by name."
    out = {k: str(v.dtype).split('.')[-1] for k, v in m.named_parameters()}
    out.update({k + '.grad': str(v.grad.dtype).split('.')[-1] for k, v in m.named_parameters() if v.grad is not None})
    out.update({k: str(v.dtype).split('.')[-1] for k, v in m.named_buffers()})
    return out


def net_with_grads(lib):
    "The stand-in Net, with a gradient on fc1.weight and a float (non-persistent) and an int buffer."
    m = stand_ins(lib).Net()
    m.fc1.weight.grad = lib.ones(3, 4)
    return m


CASTS = {
    'float': lambda m, lib: m.float(),
    'double': lambda m, lib: m.double(),
    'half': lambda m, lib: m.half(),
    'bfloat16': lambda m, lib: m.bfloat16(),
    'to dtype': lambda m, lib: m.to(lib.float64),
    'to device dtype': lambda m, lib: m.to('cpu', lib.float16),
    'to device dtype non_blocking': lambda m, lib: m.to('cpu', lib.float64, True),
    'to dtype non_blocking': lambda m, lib: m.to(lib.float16, True),
    'to tensor': lambda m, lib: m.to(lib.zeros(1, dtype=lib.float64)),
    'to int tensor': lambda m, lib: m.to(lib.zeros(1, dtype=lib.int64)),
    'to keywords': lambda m, lib: m.to(device='cpu', dtype=lib.float64, non_blocking=True),
    'to dtype keyword': lambda m, lib: m.to(dtype=lib.float16),
    'to device keyword': lambda m, lib: m.to(device=lib.device('cpu')),
    'to python float': lambda m, lib: m.to(float),
    'to nothing': lambda m, lib: m.to(),
    'type dtype': lambda m, lib: m.type(lib.float64),
    'type name': lambda m, lib: m.type(f'{lib.__name__}.DoubleTensor'),
    'type half': lambda m, lib: m.type(lib.float16),
    'cpu': lambda m, lib: m.cpu(),
}


@pytest.mark.parametrize('cast', list(CASTS))
def test_cast_dtypes_like_torch(cast):
    "Every parameter, grad and buffer ends with torch's dtype; integer buffers only change with `type`."
    def run(lib):
        m = net_with_grads(lib)
        if cast == 'to int tensor':
            try: CASTS[cast](m, lib)
            except TypeError as e: return 'TypeError', str(e).replace('torch', 'litnn')
        return CASTS[cast](m, lib) is m, dtypes(m)
    same(run)


def test_int_buffer_kept_by_double_changed_by_type():
    d = same(lambda lib: dtypes(net_with_grads(lib).double()))
    assert d['norm.num_batches_tracked'] == 'int64' and d['fc1.weight'] == 'float64' and d['norm.cache'] == 'float64'
    assert same(lambda lib: dtypes(net_with_grads(lib).type(lib.float64)))['norm.num_batches_tracked'] == 'float64'


@pytest.mark.parametrize('cast', ['double', 'half', 'to dtype', 'to keywords', 'type dtype', 'cpu', 'float'])
def test_identity_like_torch(cast):
    "Parameters and their grads stay the same objects; a buffer is a new object exactly when it changed."
    def run(lib):
        m = net_with_grads(lib)
        params, grad = list(m.parameters()), m.fc1.weight.grad
        bufs = dict(m.named_buffers())
        CASTS[cast](m, lib)
        return ([a is b for a, b in zip(params, m.parameters())], m.fc1.weight.grad is grad,
                {k: v is bufs[k] for k, v in m.named_buffers()})
    out = same(run)
    assert all(out[0]) and out[1]


def test_optimizer_list_follows_conversion():
    "A list of parameters taken before `.double()` (what an optimizer holds) sees the converted tensors."
    def run(lib):
        m = net_with_grads(lib)
        opt_params = list(m.parameters())
        m.double()
        return [str(p.dtype) for p in opt_params], all(a is b for a, b in zip(opt_params, m.parameters()))
    dts, ident = same(lambda lib: (lambda r: ([d.split('.')[-1] for d in r[0]], r[1]))(run(lib)))
    assert dts == ['float64'] * 4 and ident


def test_values_survive_and_round_like_torch():
    def run(lib):
        m = stand_ins(lib).Linear(3, 2)
        with lib.no_grad(): m.weight.copy_(lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=lib.float32))
        a = m.double().weight.detach().numpy().copy()
        b = m.half().float().weight.detach().numpy().copy()
        c = m.bfloat16().float().weight.detach().numpy().copy()
        return a.tolist(), b.tolist(), c.tolist(), m.weight.requires_grad
    same(run)


def test_grad_values_converted():
    def run(lib):
        m = net_with_grads(lib)
        m.fc1.weight.grad.mul_(0.1)
        m.half()
        return m.fc1.weight.grad.float().numpy().tolist()
    same(run)


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'bool', 'int8', 'uint8'])
def test_to_non_float_dtype_refused(dtype):
    def run(lib):
        m = net_with_grads(lib)
        return err(m.to, getattr(lib, dtype)), err(m.to, 'cpu', getattr(lib, dtype)), err(lambda: m.to(dtype=getattr(lib, dtype))), dtypes(m)
    (t, msg), *_ = same(run)
    assert t is TypeError and msg == f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=litnn.{dtype}"


BAD_CALLS = {"to('cpu', 'cpu')": lambda m, lib: m.to('cpu', 'cpu'),
             "to(color='red')": lambda m, lib: m.to(color='red'),
             "to_empty('cpu')": lambda m, lib: m.to_empty('cpu'),
             "to_empty()": lambda m, lib: m.to_empty(),
             "to(float32, True, False, 1)": lambda m, lib: m.to(lib.float32, True, False, 1)}

@pytest.mark.parametrize('call', list(BAD_CALLS))
def test_bad_arguments_are_type_errors(call):
    def run(lib):
        m = stand_ins(lib).Net()
        return err(BAD_CALLS[call], m, lib)[0], dtypes(m)
    assert same(run)[0] is TypeError


def test_apply_order_like_torch():
    def run(lib):
        seen = []
        m = stand_ins(lib).Deep()
        out = m.apply(lambda mod: seen.append(type(mod).__name__))
        return out is m, seen
    assert same(run)[1][-1] == 'Deep'


def test_apply_init_weights_under_no_grad():
    "The documentation's example: fill every Linear's weight with 1 in `apply`, under no_grad."
    def run(lib):
        S = stand_ins(lib)
        @lib.no_grad()
        def init_weights(m):
            if type(m) is S.Linear: m.weight.fill_(1.0)
        net = lib.nn.Sequential(S.Linear(2, 2), S.Linear(2, 2))
        net.apply(init_weights)
        return [p.detach().numpy().tolist() for p in net.parameters()], [p.requires_grad for p in net.parameters()]
    assert same(run)[0][0] == [[1., 1.], [1., 1.]]


def test_apply_fn_with_grad_enabled_refuses_inplace_on_leaf():
    "Without no_grad, filling a leaf that requires grad in place fails in both."
    def run(lib):
        def init(m):
            if hasattr(m, 'weight') and m.weight is not None: m.weight.fill_(1.0)
        return err(stand_ins(lib).Linear(2, 2).apply, init)[0]
    assert same(run) is RuntimeError


def test_underscore_apply_recurse_false():
    def run(lib):
        m = net_with_grads(lib)
        m._apply(lambda t: t.double() if t.is_floating_point() else t, recurse=False)
        a = dtypes(m)
        m.norm._apply(lambda t: t.half() if t.is_floating_point() else t, recurse=False)
        return a, dtypes(m)
    a, b = same(run)
    assert a['steps'] == 'float64' and a['fc1.weight'] == 'float32' and b['norm.weight'] == 'float16'


def test_shared_parameter_converted_once_in_effect():
    def run(lib):
        m = stand_ins(lib).Deep()
        m.half()
        return m.tied.weight is m.net.fc1.weight, str(m.tied.weight.dtype).split('.')[-1], len(list(m.parameters()))
    assert same(run)[0] is True


def test_none_entries_skipped():
    def run(lib):
        m = stand_ins(lib).Linear(2, 2, bias=False)
        m.register_buffer('nothing', None)
        m.double()
        return m.bias is None, m.nothing is None, str(m.weight.dtype).split('.')[-1]
    assert same(run) == (True, True, 'float64')


def test_to_empty_like_torch():
    def run(lib):
        m = net_with_grads(lib).double()
        w = m.fc1.weight
        out = m.to_empty(device='cpu')
        return (out is m, m.fc1.weight is w, type(m.fc1.weight).__name__, tuple(m.fc1.weight.shape),
                dtypes(m), m.fc1.weight.requires_grad)
    same(run)
    m = net_with_grads(litnn)
    arrays = [p._data for p in m.parameters()]
    m.to_empty(device='cpu')
    assert all(p._data is not a for p, a in zip(m.parameters(), arrays))


def test_to_empty_recurse_false():
    def run(lib):
        m = stand_ins(lib).Net()
        inner, outer = m.fc1.weight, m.steps
        a = m.fc1.weight.detach().numpy()
        m.to_empty(device='cpu', recurse=False)
        return m.steps is outer, m.fc1.weight.detach().numpy() is a or np.shares_memory(m.fc1.weight.detach().numpy(), a)
    assert same(run) == (False, True)


def test_share_memory_returns_self():
    m = stand_ins(litnn).Net()
    assert m.share_memory() is m
    assert same(lambda lib: (lambda m: m.share_memory() is m)(stand_ins(lib).Net()))


def test_conversions_inside_forward_graph_free():
    "After a conversion the parameters are still leaves requiring grad, with no graph attached."
    def run(lib):
        m = net_with_grads(lib).double()
        return [(p.is_leaf, p.requires_grad, p.grad_fn is None) for p in m.parameters()]
    assert all(all(t) for t in same(run))


def test_module_has_every_conversion_method():
    for name in ['_apply', 'apply', 'to', 'cpu', 'cuda', 'type', 'float', 'double', 'half', 'bfloat16',
                 'to_empty', 'share_memory']:
        assert callable(getattr(litnn.nn.Module, name)), name
        assert hasattr(torch.nn.Module, name)


def test_patch_left_builtins_alone():
    import litnn.nn.modules.apply_to as mod
    assert mod.float is float and mod.type is type


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(['float', 'double', 'half', 'bfloat16', 'to dtype', 'to dtype non_blocking',
                                 'type dtype', 'type half', 'cpu', 'to tensor']), min_size=1, max_size=5))
def test_random_conversion_sequences_like_torch(ops):
    def run(lib):
        m = net_with_grads(lib)
        out = []
        for op in ops:
            CASTS[op](m, lib)
            out.append(dtypes(m))
        return out
    same(run)


# --- GPU ----------------------------------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason='no GPU (CuPy) here')


def test_cuda_without_gpu_raises():
    if litnn.cuda.is_available(): pytest.skip('a GPU is present')
    with pytest.raises(AssertionError): stand_ins(litnn).Net().cuda()
    with pytest.raises(AssertionError): stand_ins(litnn).Net().to('cuda')


@needs_gpu
@pytest.mark.parametrize('how', ["to('cuda')", 'cuda()', "to('cuda', litnn.float64)", 'cuda(0)'])
def test_to_cuda_moves_params_grads_buffers(how):
    m = net_with_grads(litnn)
    params, grad = list(m.parameters()), m.fc1.weight.grad
    ref = {k: v.detach().numpy().copy() for k, v in m.named_parameters()}
    assert eval('m.' + how) is m
    assert all(a is b for a, b in zip(params, m.parameters()))
    assert m.fc1.weight.grad is grad and grad.device.type == 'cuda'
    for t in list(m.parameters()) + list(m.buffers()): assert t.device.type == 'cuda'
    assert m.norm.num_batches_tracked.dtype == litnn.int64
    m.cpu()
    for t in list(m.parameters()) + list(m.buffers()) + [grad]: assert t.device.type == 'cpu'
    for k, v in m.named_parameters(): np.testing.assert_allclose(v.detach().numpy(), ref[k], rtol=1e-6)


@needs_gpu
def test_to_empty_on_cuda():
    m = stand_ins(litnn).Net().to_empty(device='cuda')
    assert {t.device.type for t in list(m.parameters()) + list(m.buffers())} == {'cuda'}


def test_type_to_integer_refused_for_parameters_requiring_grad():
    def run(lib):
        m = stand_ins(lib).Linear(2, 2)
        return err(m.type, lib.int64)
    assert same(run)[0] is RuntimeError


@pytest.mark.parametrize('make,fmt', [(lambda lib: lib.nn.Conv2d(2, 3, 2), 'channels_last'),
                                      (lambda lib: lib.nn.Conv3d(2, 3, 2), 'channels_last_3d')])
def test_to_memory_format_like_torch(make, fmt):
    "`to(memory_format=)` lays out the 4-d (5-d) parameters and their grads, and leaves the others (the bias) alone."
    strides = []
    for lib in (litnn, torch):
        lib.manual_seed(0)
        m = make(lib)
        m(lib.ones(1, 2, *[3] * (m.weight.dim() - 2))).sum().backward()
        w = m.weight
        m.to(lib.float64, memory_format=getattr(lib, fmt))
        assert m.weight is w and m.weight.dtype == lib.float64
        assert m.weight.is_contiguous(memory_format=getattr(lib, fmt))
        strides.append((m.weight.stride(), m.weight.grad.stride(), m.bias.stride()))
    assert strides[0] == strides[1]
    assert err(lambda: litnn.nn.Conv3d(2, 3, 2).to(memory_format=litnn.channels_last)) == \
           err(lambda: torch.nn.Conv3d(2, 3, 2).to(memory_format=torch.channels_last))


def test_apply_to_sparse_replaces_the_parameter():
    "A conversion that changes the layout (strided -> sparse) makes new Parameter objects, as torch's "
    "`_has_compatible_shallow_copy_type` refuses `param.data = sparse` (test_nn's test_overwrite_module_params_on_conversion)."
    def run(lib):
        m = lib.nn.Linear(3, 2)
        m.weight.grad = lib.ones(2, 3)
        w, g = m.weight, m.weight.grad
        m._apply(lambda t: lib.sparse_coo_tensor(lib.zeros([2, 1]), lib.ones([1]), lib.Size([2, 3])))
        return (str(w.layout).split('.')[-1], str(g.layout).split('.')[-1], str(m.weight.layout).split('.')[-1],
                str(m.weight.grad.layout).split('.')[-1], m.weight is w, type(m.weight).__name__)
    same(run)

"""Fixes found by running PyTorch's test/test_modules.py (TestModule over torch's `module_db`) against litnn: each case
compares litnn with real torch on the same inputs."""
import io
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

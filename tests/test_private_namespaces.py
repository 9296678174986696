"""torch's private namespaces that programs reach into (`torch._C._nn`, `torch._VF`, the global switches of `torch._C`):
the same program run under torch 2.13 and litnn, comparing results, identities and errors (reference/torch/underscore_C)."""
import warnings
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import litnn

def _np(v):
    if isinstance(v, (tuple, list)): return type(v)(_np(t) for t in v)
    if hasattr(v, 'detach'): return v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else np.asarray(v.detach().numpy())
    return v

def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b): _same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    else: assert a == b, (a, b)

def _run(lib, code, data):
    "Run `code` (an expression over `T`, `nn`, `VF`, `C` and tensors `x`, `y`, `t`, `s`) under `lib`; the result, or the error's type and words."
    ns = dict(T=lib, nn=lib._C._nn, VF=lib._VF, C=lib._C, F=lib.nn.functional,
              **{k: lib.tensor(v) for k, v in data.items()})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return 'ok', _np(eval(code, ns))
    except Exception as e:
        return type(e).__name__, str(e).replace('torch', 'litnn')

rng = np.random.default_rng(0)
DATA = dict(x=rng.standard_normal((2, 3, 4, 4)).astype(np.float32), y=rng.standard_normal((2, 3, 4, 4)).astype(np.float32),
            p=rng.uniform(0.05, 0.95, (2, 5)).astype(np.float32), q=rng.integers(0, 2, (2, 5)).astype(np.float32),
            t=np.array([0, 2], dtype=np.int64), s=rng.standard_normal((2, 5)).astype(np.float32),
            i=np.array([[1, 2], [1, 2], [3, 4]], dtype=np.int64), c=np.array([1, 1, 2, 2, 2, 3], dtype=np.int64))

NN_CALLS = [
    'nn.elu(x)', 'nn.elu(x, 0.5, 2.0, 1.5)', 'nn.hardtanh(x)', 'nn.hardtanh(x, -0.5, 0.25)', 'nn.leaky_relu(x, 0.2)',
    'nn.log_sigmoid(x)', 'nn.glu(s[:, :4])', 'nn.glu(x, 2)', 'nn.silu(x)', 'nn.mish(x)', 'nn.relu6(x * 4)',
    'nn.hardsigmoid(x)', 'nn.hardswish(x)', 'nn.silu_(x.clone())', 'nn.hardswish_(x.clone())', 'nn.gelu(x)',
    "nn.gelu(x, approximate='tanh')", 'nn.softplus(x, 2, 10)', 'nn.softshrink(x, 0.3)', 'nn.linear(s, s)',
    'nn.one_hot(t, 4)', 'nn.avg_pool2d(x, 2)', 'nn.scaled_dot_product_attention(x, y, y)',
    'nn.mse_loss(x, y)', 'nn.mse_loss(x, y, 0)', 'nn.mse_loss(x, y, 2)', 'nn.mse_loss(x, y, reduction=2)',
    'nn.l1_loss(x, y, 2)', 'nn.smooth_l1_loss(x, y, 1, 0.5)', 'nn.huber_loss(x, y, 0, 0.5)', 'nn.soft_margin_loss(s, q * 2 - 1)',
    'nn.binary_cross_entropy(p, q)', 'nn.binary_cross_entropy(p, q, None, 2)', 'nn.nll_loss(s, t)', 'nn.nll_loss(s, t, None, 0)',
    'nn.nll_loss_nd(s, t, None, 2, 0)', 'nn.cross_entropy_loss(s, t)', 'nn.cross_entropy_loss(s, t, None, 1, -100, 0.1)',
    'nn.cross_entropy_loss(x, y.softmax(1))', 'nn.multi_margin_loss(s, t)', 'nn.multilabel_margin_loss(s, T.tensor([[0, 3, -1, 0, 0], [4, -1, 0, 0, 0]]))',
    'nn.im2col(x, (2, 2), (1, 1), (0, 0), (1, 1))', 'nn.col2im(nn.im2col(x, (2, 2), (1, 1), (1, 1), (2, 2)), (4, 4), (2, 2), (1, 1), (1, 1), (2, 2))',
    'nn.pad(x, (1, 2))', "nn.pad(x, (1, 1, 1, 1), 'reflect')", 'nn.pad(x, [1, 1], value=2.0)',
    'nn.pad_sequence([s[0], s[1, :3]])', 'nn.pad_sequence([s[0], s[1, :3]], True, -1.0)', "nn.pad_sequence([s[0], s[1, :3]], True, 0.0, 'left')",
    'nn.adaptive_avg_pool2d(x, (2, 3))', 'nn.adaptive_max_pool2d(x, (2, 2))', 'nn.max_pool2d_with_indices(x, 2)',
    'nn.max_pool2d_with_indices(x, 3, 1, 1)', 'nn.upsample_nearest2d(x, (8, 6))', 'nn.upsample_nearest2d(x, None, (2.0, 1.5))',
    'nn.upsample_bilinear2d(x, (6, 6), False)', 'nn.upsample_bilinear2d(x, (6, 6), True)', 'nn.upsample_bicubic2d(x, None, False, (2.0, 2.0))',
    'nn.reflection_pad1d(s[None], [1, 2])', 'nn.reflection_pad2d(x, (1, 1, 2, 0))', 'nn.replication_pad2d(x, [2, 2, 1, 1])',
    'nn.replication_pad3d(x[None], [1, 1, 1, 1, 1, 1])', 'nn.reflection_pad3d(x[None], (1, 1, 1, 1, 1, 1))', 'nn.replication_pad1d(s[None], (0, 3))',
    'nn.flatten_dense_tensors([s, x])', 'nn.unflatten_dense_tensors(nn.flatten_dense_tensors([s, x]), [s, x])',
    'nn.upsample_linear1d(s[None], (9,), False)', 'nn.upsample_nearest1d(s[None], (9,))', 'nn.upsample_trilinear3d(x[None], (4, 6, 6), False)',
]


NN_ERRORS = ["nn.mse_loss(x, y, 'mean')", 'nn.mse_loss(x, y, True)', 'nn.l1_loss(x, y, 1.0)', "nn.nll_loss(s, t, None, 'sum')",
             "nn.cross_entropy_loss(s, t, None, 'mean')", "nn.binary_cross_entropy(p, q, None, 'none')", 'nn.silu(x, True)',
             'nn.elu(x, inplace=True)', 'nn.leaky_relu(x, 0.2, True)', 'nn.reflection_pad1d(s[None], [1, 2], 3)', 'nn.nosuch']


@pytest.mark.parametrize('code', ['nn.mse_loss(x, y, 5)', 'nn.log_sigmoid()', 'nn.im2col(x, 2, 1, 0)'])
def test_nn_error_types_match_torch(code):
    "The type of the error only: a missing argument is worded by torch's parser in torch, by Python in litnn."
    want, got = _run(torch, code, DATA), _run(litnn, code, DATA)
    assert want[0] != 'ok' and want[0] == got[0], (want, got)

def test_nn_functional_objects_are_torchs():
    "Where torch's F.X is torch._C._nn.X, litnn's is the same object too; and a gradient flows through the adapted ones."
    tf = torch.nn.functional
    shared = {n: f.__name__ for n in dir(tf) if not n.startswith('_') and (f := getattr(tf, n)) is getattr(torch._C._nn, getattr(f, '__name__', ''), None)}
    assert shared['gelu'] == 'gelu' and shared['logsigmoid'] == 'log_sigmoid'     # (F.logsigmoid is _nn.log_sigmoid)
    for n, cpp in shared.items(): assert getattr(litnn._C._nn, cpp) is getattr(litnn.nn.functional, n), n
    assert set(shared.values()) <= set(dir(litnn._C._nn))
    for lib in (torch, litnn):
        x = lib.tensor([[-1.0, 0.5], [2.0, -3.0]], requires_grad=True)
        lib._C._nn.mse_loss(lib._C._nn.elu(x, 1.0, 2.0), lib.zeros(2, 2), 2).backward()
        if lib is torch: want = x.grad.numpy()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6)

VF_CALLS = [
    "VF.einsum('ij,jk->ik', [s[:, :3], s.T[:3]])", "VF.einsum('bij->bji', (s[None],))", "VF.einsum('ii->i', [s[:, :2]], path=None)",
    "VF.meshgrid([s[0], s[1]], indexing='ij')", "VF.meshgrid([s[0], s[1, :2]], indexing='xy')", 'VF.meshgrid([s[0], s[1]])',
    'VF.norm(s)', 'VF.norm(s, 1)', 'VF.norm(s, 2, [1])', 'VF.norm(s, 3, [0], True)', 'VF.norm(s, p=1, dim=[0], keepdim=True)',
    "VF.norm(s, float('inf'), [1])", 'VF.frobenius_norm(s, [0, 1])', 'VF.nuclear_norm(s)',
    'VF.tensordot(s, s, [1], [1])', 'VF.tensordot(x, y, [1, 2], [1, 2])', 'VF.split_with_sizes(s, [2, 3], 1)', 'VF.split(s, 2, 1)', 'VF.split(s, 1)',
    'VF.atleast_1d(T.tensor(1.0))', 'VF.atleast_1d([T.tensor(1.0), s])', 'VF.atleast_2d(s[0])', 'VF.atleast_3d([s])',
    'VF.broadcast_tensors([s, s[0]])', 'VF.cartesian_prod([s[0, :2], s[1, :3]])', 'VF.block_diag([s, s[:1]])', 'VF.chain_matmul([s, s.T, s])',
    'VF.cdist(s, s)', 'VF.cdist(s, s[:1], 1.0)', 'VF.cdist(s, s, 2.0, 2)', 'VF.cdist(s, s, 2.0, None)',
    'VF.unique_dim(i, 0)', 'VF.unique_dim(i, 0, True, True, True)', 'VF.unique_dim(i.T, 1, True, False, True)',
    'VF.unique_consecutive(c)', 'VF.unique_consecutive(c, True)', 'VF.unique_consecutive(c, True, True)', 'VF.unique_consecutive(c, False, True, 0)',
    'VF.stft(s[0].repeat(8), 8, 2, 8, T.hann_window(8), False, True, True)', 'VF.stft(s[0].repeat(8), 8, None, None, None, True, True, True)',
    'VF.istft(VF.stft(s[0].repeat(8), 8, 2, 8, T.hann_window(8), False, True, True), 8, 2, 8, T.hann_window(8), True)',
    'VF.add(s, s)', 'VF.matmul(s, s.T)', 'VF.cat([s, s], 1)', 'VF.dropout(s, 0.0, True)', 'VF.feature_dropout(x, 0.0, True)',
    'VF.frobenius_norm(s, [1], True)', 'VF.threshold(s, 0.1, 20.0)', 'VF.threshold_(s.clone(), 0.1, 20.0)',
]

@pytest.mark.parametrize('code', NN_CALLS + VF_CALLS)
def test_calls_match_torch(code):
    want, got = _run(torch, code, DATA), _run(litnn, code, DATA)
    assert want[0] == got[0] == 'ok', (want, got)
    _same(want[1], got[1])

VF_ERRORS = ["VF.einsum('ij->ji', s)", "VF.norm(s, 'fro')", 'VF.meshgrid(s)', 'VF.broadcast_tensors(s)', 'VF.nosuch', 'VF.float32', 'VF.Tensor']

@pytest.mark.parametrize('code', NN_ERRORS + VF_ERRORS)
def test_errors_match_torch(code):
    want, got = _run(torch, code, DATA), _run(litnn, code, DATA)
    assert want[0] != 'ok' and want == got, (want, got)

def test_vf_names_are_the_namespace_functions():
    "Where torch's _VF.X is torch.X (C++ in both), litnn's _VF.X is litnn.X."
    for n in ['lstm', 'gru', 'rnn_tanh', 'rnn_relu', 'lstm_cell', 'gru_cell', 'rnn_tanh_cell', 'rnn_relu_cell', 'frobenius_norm',
              'nuclear_norm', 'split_with_sizes', 'dropout', 'feature_dropout', 'alpha_dropout', 'threshold', 'istft', 'add']:
        assert getattr(torch._VF, n) is getattr(torch, n), n
        assert getattr(litnn._VF, n) is getattr(litnn, n), n
    assert torch._VF.einsum is not torch.einsum and litnn._VF.einsum is not litnn.einsum

@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_tanh', 'rnn_relu'])
@pytest.mark.parametrize('bidirectional,batch_first', [(False, False), (True, True)])
def test_vf_rnn_as_nn_modules_rnn_calls_it(mode, bidirectional, batch_first):
    "A custom layer calling `_VF.lstm(input, hx, flat_weights, bias, layers, dropout, train, bidirectional, batch_first)`."
    outs = []
    for lib in (torch, litnn):
        lib.manual_seed(0)
        kind = {'lstm': 'LSTM', 'gru': 'GRU'}.get(mode, 'RNN')
        kw = {} if kind != 'RNN' else {'nonlinearity': mode[4:]}
        m = getattr(lib.nn, kind)(4, 3, num_layers=2, bidirectional=bidirectional, batch_first=batch_first, **kw)
        with lib.no_grad():
            for k, p in enumerate(m.parameters()): p.copy_(lib.tensor(np.linspace(-0.5, 0.5, p.numel(), dtype=np.float32).reshape(tuple(p.shape)) * (k + 1) / 3))
        x = lib.tensor(DATA['x'][:, :, 0, :].copy())
        nd = 2 * (2 if bidirectional else 1)
        h = lib.zeros(nd, 2 if batch_first else 3, 3)
        hx = (h, h) if mode == 'lstm' else h
        res = getattr(lib._VF, mode)(x, hx, m._flat_weights, True, 2, 0.0, False, bidirectional, batch_first)
        outs.append(_np(tuple(res)))
    _same(*outs)

def test_vf_cells():
    outs = []
    for lib in (torch, litnn):
        w_ih, w_hh = lib.tensor(np.linspace(-1, 1, 48, dtype=np.float32).reshape(12, 4)), lib.tensor(np.linspace(1, -1, 36, dtype=np.float32).reshape(12, 3))
        x, h = lib.tensor(DATA['s'][:, :4].copy()), lib.tensor(DATA['s'][:, 1:4].copy())
        outs.append(_np((lib._VF.lstm_cell(x, (h, h), w_ih, w_hh), lib._VF.gru_cell(x, h, w_ih[:9], w_hh[:9]),
                         lib._VF.rnn_tanh_cell(x, h, w_ih[:3], w_hh[:3]), lib._VF.rnn_relu_cell(x, h, w_ih[:3], w_hh[:3], None, None))))
    _same(*outs)

SWITCHES = [('_jit_set_profiling_executor', None), ('_jit_set_profiling_mode', None),
            ('_jit_set_autocast_mode', None), ('_jit_override_can_fuse_on_cpu', '_jit_can_fuse_on_cpu'),
            ('_jit_override_can_fuse_on_gpu', '_jit_can_fuse_on_gpu'), ('_jit_set_texpr_fuser_enabled', '_jit_texpr_fuser_enabled'),
            ('_set_graph_executor_optimize', '_get_graph_executor_optimize'), ('_set_cudnn_enabled', '_get_cudnn_enabled'),
            ('_set_cudnn_benchmark', '_get_cudnn_benchmark'), ('_set_cudnn_deterministic', '_get_cudnn_deterministic'),
            ('_set_cudnn_allow_tf32', '_get_cudnn_allow_tf32'), ('_set_cublas_allow_tf32', '_get_cublas_allow_tf32'),
            ('_set_mkldnn_enabled', '_get_mkldnn_enabled'), ('_set_warnAlways', '_get_warnAlways')]

def _calls(C, setter, getter):
    "What a program sees: the default, what each setting returns and leaves, and the errors of bad arguments."
    set_ = getattr(C, setter)
    get = getattr(C, getter) if getter else lambda: (lambda old: (set_(old), old)[1])(set_(True))   # (a setter that returns the old value)
    seen, start = [get()], get()
    try:
        for v in (not start, start, not start):
            seen += [set_(v), get()]
        for bad in ('a', 1, 1.5, None, ()):
            try: seen.append(('ok', set_(*bad) if isinstance(bad, tuple) else set_(bad), get()))
            except Exception as e: seen.append((type(e).__name__, str(e).replace('torch', 'litnn')))
        for bad in ((True, True), ()):
            try: seen.append(('ok', set_(*bad)))
            except Exception as e: seen.append((type(e).__name__, str(e).replace('torch', 'litnn')))
    finally: set_(start)
    return seen

@pytest.mark.parametrize('setter,getter', SWITCHES)
def test_switches_match_torch(setter, getter):
    assert _calls(torch._C, setter, getter) == _calls(litnn._C, setter, getter)

def test_switches_share_backends_state():
    "The cuDNN and cuBLAS switches are the flags `torch.backends` shows."
    for lib in (torch, litnn):
        lib._C._set_cudnn_enabled(False)
        try: assert lib.backends.cudnn.enabled is False
        finally: lib._C._set_cudnn_enabled(True)
        lib._C._set_cublas_allow_tf32(True)
        try: assert lib.backends.cuda.matmul.allow_tf32 is True and lib.get_float32_matmul_precision() == 'high'
        finally: lib._C._set_cublas_allow_tf32(False)

def test_default_device_and_device_count():
    assert litnn._C._get_default_device() == torch._C._get_default_device() == 'cpu'
    for lib in (torch, litnn):
        lib.set_default_device('meta')
        try: assert lib._C._get_default_device() == 'cpu'
        finally: lib.set_default_device(None)
    assert litnn._C._cuda_getDeviceCount() == litnn.cuda.device_count()
    with pytest.raises(TypeError, match=r'_get_default_device\(\) takes no arguments \(1 given\)'): litnn._C._get_default_device(1)

def test_private_namespaces_are_modules_at_torchs_paths():
    import importlib
    for name in ('_C', '_C._nn', '_VF'):
        m = importlib.import_module('litnn.' + name)
        assert m.__name__ == 'litnn.' + name and getattr(litnn, name.split('.')[0]) is importlib.import_module('litnn.' + name.split('.')[0])
    assert litnn._C._nn is importlib.import_module('litnn._C._nn')
    assert litnn._C._nn.mse_loss.__module__ == 'litnn._C._nn' and litnn._C._jit_set_profiling_mode.__module__ == 'litnn._C'

FLAG_CALLS = ["C._get_float32_matmul_precision()", "C._set_float32_matmul_precision('medium')", "C._get_float32_matmul_precision()",
              "T.get_float32_matmul_precision()", "C._set_float32_matmul_precision('bad')", "C._get_float32_matmul_precision()",
              "C._set_float32_matmul_precision(1)", "C._set_float32_matmul_precision('highest')", "C._get_float32_matmul_precision(1)",
              "C._get_deterministic_algorithms()", "C._set_deterministic_algorithms(True, warn_only=True)", "C._get_deterministic_algorithms()",
              "C._get_deterministic_algorithms_warn_only()", "T.are_deterministic_algorithms_enabled()", "C._set_deterministic_algorithms(1)",
              "C._set_deterministic_algorithms(False)", "C._get_deterministic_algorithms()", "C._get_deterministic_algorithms_warn_only()"]

def test_precision_and_determinism_switches_match_torch():
    "The flags `torch.set_float32_matmul_precision` and `torch.use_deterministic_algorithms` set, through torch._C."
    seen = {}
    for lib in (torch, litnn):
        prec, det, warn = lib.get_float32_matmul_precision(), lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled()
        try: seen[lib] = [_run(lib, code, {}) for code in FLAG_CALLS]
        finally: lib.set_float32_matmul_precision(prec); lib.use_deterministic_algorithms(det, warn_only=warn)
    assert seen[torch] == seen[litnn]

"""User mistakes at forward time (wrong shapes, ranks, dtypes, index values), litnn against torch on the same inputs:
the same exception type and message, and the module's parameters and buffers unchanged after the error.
The sweep that found these: /work/w/adv/forward_errors.py."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')


def outcome(lib, f):
    "('ok', '') or (exception type name, first line of its message), with litnn's name read as torch's."
    try: f(lib); return 'ok', ''
    except Exception as e: return type(e).__name__, str(e).replace('litnn', 'torch').split('\n')[0]


def same(f):
    t, l = outcome(torch, f), outcome(litnn, f)
    assert l == t, f'torch: {t}\nlitnn: {l}'
    return t


def state(m): return {k: v.detach().numpy().copy() for k, v in list(m.named_parameters()) + list(m.named_buffers())}


@pytest.mark.parametrize('index', [[[-1]], [[-1, 7]], [[5, -7]], [[0, -4]]])
def test_gather_refuses_a_negative_index(index):
    # numpy wraps -1 to the last element: torch refuses the first index out of [0, size), in order
    assert same(lambda L: L.gather(L.zeros(3, 4), 1, L.tensor(index)))[0] == 'RuntimeError'
    assert same(lambda L: L.zeros(3, 4).gather(0, L.tensor(index) % 3 - 3))[0] == 'RuntimeError'


@pytest.mark.parametrize('i', [-1, 0, 1])
def test_gather_of_0d(i):
    same(lambda L: L.gather(L.tensor(2.), 0, L.tensor(i)))


@pytest.mark.parametrize('hx', ['T(1, 2, 3)', 'T(1, 3, 3)', 'T(1, 2, 3).double()', '(T(1, 2, 3),)', 'T(3)', '(T(1, 2, 3),) * 3'])
@pytest.mark.parametrize('x', ['T(5, 2, 4)', 'T(5, 4)'])
def test_lstm_hidden_state_not_a_pair(hx, x):
    # torch's LSTM reads hx[0] and hx[1]: a lone tensor or a 1-tuple fails on that indexing
    def f(L):
        L.manual_seed(0)
        T = lambda *s: L.randn(s)
        m = L.nn.LSTM(4, 3)
        before = state(m)
        try: m(eval(x), eval(hx))
        finally: assert all(np.array_equal(before[k], v) for k, v in state(m).items())
    same(f)


@pytest.mark.parametrize('x', [(2, 4), (4,)])
def test_lstm_cell_one_state(x):
    same(lambda L: L.nn.LSTMCell(4, 3)(L.randn(x), (L.randn(x[:-1] + (3,)),)))


CONVS = [('conv1d', (2, 3, 4), (2, 3, 2)), ('conv2d', (1, 3, 4, 4), (2, 3, 2, 2)), ('conv2d', (4, 3, 40, 40), (2, 3, 5, 5)),
         ('conv2d', (3, 4, 4), (2, 3, 2, 2)), ('conv3d', (1, 3, 4, 4, 4), (2, 3, 2, 2, 2)), ('conv_transpose1d', (1, 3, 4), (3, 2, 2)),
         ('conv_transpose2d', (1, 3, 4, 4), (3, 2, 2, 2)), ('conv_transpose3d', (1, 3, 4, 4, 4), (3, 2, 2, 2, 2)),
         ('conv2d', (1, 4, 4, 4), (2, 3, 2, 2)), ('conv_transpose2d', (1, 4, 4, 4), (3, 2, 2, 2))]


@pytest.mark.parametrize('fn,xs,ws', CONVS)
@pytest.mark.parametrize('wdt', ['bool', 'float32'])
def test_conv_of_bool_input(fn, xs, ws, wdt):
    # torch's CPU kernels dispatch on the input's dtype after the shape checks: none takes bool (the kernel's name in the message)
    same(lambda L: getattr(L.nn.functional, fn)(L.ones(xs, dtype=L.bool), L.ones(ws, dtype=getattr(L, wdt))))


@pytest.mark.parametrize('cls,xs', [('Conv1d', (2, 3, 6)), ('Conv2d', (2, 3, 6, 6)), ('ConvTranspose2d', (2, 3, 6, 6)), ('ConvTranspose3d', (2, 3, 4, 4, 4))])
def test_conv_module_of_bool_input_leaves_it_unchanged(cls, xs):
    def f(L):
        m = getattr(L.nn, cls)(3, 4, 2)
        before = state(m)
        try: m(L.ones(xs, dtype=L.bool))
        finally: assert all(np.array_equal(before[k], v) for k, v in state(m).items())
    assert same(f)[0] != 'ok'       # (with a bias of float: torch's bias check speaks first)


def test_pointwise_loss_of_a_python_number():
    # torch's mse_loss/l1_loss compare target.size() first
    for fn in ('mse_loss', 'l1_loss'):
        same(lambda L: getattr(L.nn.functional, fn)(L.ones(3, 4), 2.0))
    same(lambda L: L.nn.MSELoss()(L.ones(3, 4), 1.0))


TRANSPOSED = [('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2), {}), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2, 2), {}),
              ('conv_transpose1d', (1, 3, 5), (3, 2, 2, 2), {}), ('conv_transpose3d', (1, 3, 4, 4, 4), (3, 2, 2, 2), {}),
              ('conv_transpose2d', (1, 4, 5, 5), (4, 2, 2, 2), dict(groups=3)), ('conv_transpose3d', (1, 4, 4, 4, 4), (4, 2, 2, 2, 2), dict(groups=3)),
              ('conv_transpose2d', (1, 4, 5, 5), (4, 2, 2, 2), dict(groups=2)), ('conv_transpose2d', (1, 2, 5, 5), (2, 2, 2, 2), dict(groups=4)),
              ('conv_transpose1d', (1, 3, 5), (3, 2, 2), dict(bias=(3,))), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(bias=(2, 1))),
              ('conv_transpose2d', (1, 4, 5, 5), (4, 2, 2, 2), dict(bias=(2,), groups=2)), ('conv_transpose3d', (1, 3, 4, 4, 4), (3, 2, 2, 2, 2), dict(bias=(3,))),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(groups=0)), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(padding=-1)),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=0)), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(dilation=0)),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(output_padding=-1)), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=(1, 1, 1))),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=0, groups=0)), ('conv_transpose2d', (1, 4, 5, 5), (3, 2, 2, 2), dict(bias=(5,))),
              ('conv_transpose3d', (3, 4, 4, 4), (3, 2, 2, 2, 2), dict(bias=(3,))), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(dilation=-1)),
              ('conv_transpose1d', (1, 3, 5), (3, 2, 2), dict(dilation=0)), ('conv_transpose3d', (1, 3, 5, 5, 5), (3, 2, 2, 2, 2), dict(dilation=0)),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(dilation=0, output_padding=1)), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(dilation=(0, 1))),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(dilation=0, bias=(7,))), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=0, padding=-1)),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=0, output_padding=-1)), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(groups=0, stride=(1, 1, 1))),
              ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=0, dilation=-1)), ('conv_transpose2d', (1, 3, 5, 5), (3, 2, 2, 2), dict(stride=2, output_padding=1))]


@pytest.mark.parametrize('fn,xs,ws,kw', TRANSPOSED)
def test_conv_transpose_checks_as_aten(fn, xs, ws, kw):
    # ATen's _convolution checks each argument against the weight's rank, then groups, channels and bias, before any kernel
    def f(L):
        k = dict(kw)
        if 'bias' in k: k['bias'] = L.ones(k['bias'])
        return getattr(L.nn.functional, fn)(L.ones(xs), L.ones(ws), **k)
    same(f)


def test_conv_transpose_module_with_wrong_channels_unchanged():
    def f(L):
        m = L.nn.ConvTranspose2d(3, 4, 2, groups=1)
        before = state(m)
        try: m(L.ones(1, 4, 5, 5))
        finally: assert all(np.array_equal(before[k], v) for k, v in state(m).items())
    assert same(f)[0] == 'RuntimeError'


CONV_ARGS = [dict(stride=0, padding=-1), dict(dilation=0, padding=-1), dict(stride=0, dilation=0), dict(dilation=-1), dict(groups=0, stride=0),
             dict(groups=0, stride=(1, 1, 1, 1)), dict(groups=0, padding=-1), dict(dilation=0, bias=(7,)), dict(groups=2), dict(groups=4),
             dict(bias=(2, 1)), dict(dilation=0, groups=2), dict(padding=-1, groups=2), dict(stride=0, bias=(7,)), dict(dilation=0)]


@pytest.mark.parametrize('fn,xs,ws', [('conv2d', (1, 3, 5, 5), (2, 3, 2, 2)), ('conv1d', (1, 3, 5), (2, 3, 2)), ('conv3d', (1, 3, 4, 4, 4), (2, 3, 2, 2, 2))])
@pytest.mark.parametrize('kw', CONV_ARGS)
def test_conv_checks_in_aten_order(fn, xs, ws, kw):
    # groups first, then the sizes and their signs, ranks, weight vs groups ("at least groups"), channels, bias; a zero dilation last
    def f(L):
        k = dict(kw)
        if 'bias' in k: k['bias'] = L.ones(k['bias'])
        return getattr(L.nn.functional, fn)(L.ones(xs), L.ones(ws), **k)
    same(f)


@pytest.mark.parametrize('fn,xs,ws', [('conv2d', (1, 3, 5, 5), (2, 3, 2, 2)), ('conv3d', (1, 3, 5, 5, 5), (2, 3, 2, 2, 2))])
def test_conv_zero_dilation_before_dtype(fn, xs, ws):
    same(lambda L: getattr(L.nn.functional, fn)(L.ones(xs, dtype=L.float64), L.ones(ws), dilation=0))


POOLS = {'max_pool3d': lambda F, x: F.max_pool3d(x, 2), 'avg_pool3d': lambda F, x: F.avg_pool3d(x, 2),
         'max_pool2d': lambda F, x: F.max_pool2d(x[0], 2), 'avg_pool2d': lambda F, x: F.avg_pool2d(x[0], 2),
         'max_pool1d': lambda F, x: F.max_pool1d(x[0, 0], 2), 'avg_pool1d': lambda F, x: F.avg_pool1d(x[0, 0], 2),
         'lp_pool2d': lambda F, x: F.lp_pool2d(x[0], 2, 2), 'adaptive_avg_pool3d': lambda F, x: F.adaptive_avg_pool3d(x, 2)}


@pytest.mark.parametrize('dt', ['bool', 'float16', 'bfloat16', 'int64', 'int32', 'uint8'])
@pytest.mark.parametrize('fn', list(POOLS))
def test_pool_dtypes_as_torch_kernels(fn, dt):
    # each CPU kernel takes its own set of dtypes: avg_pool2d floating and Long, avg_pool3d's frame float, double and Long
    same(lambda L: POOLS[fn](L.nn.functional, L.ones(2, 3, 4, 4, 4).to(getattr(L, dt))))


@pytest.mark.parametrize('xdt,tgt,wdt', [('float32', [0, 1, 5], 'float64'), ('float32', [0, 1, 2], 'float64'), ('float64', [0, 1, 2], 'float32'),
                                         ('float32', [0, 1, 2], 'int64'), ('float32', [0, 1, 2], 'float32')])
def test_multi_margin_loss_weight_dtype(xdt, tgt, wdt):
    same(lambda L: L.nn.MultiMarginLoss(weight=L.ones(3, dtype=getattr(L, wdt)))(L.ones(3, 3, dtype=getattr(L, xdt)), L.tensor(tgt)))


@pytest.mark.parametrize('src', ['F.conv2d(T(1, 3, 5, 5), T(2, 3), groups=0)', 'F.conv2d(T(5, 5), T(2, 3))', 'F.conv2d(T(3, 5, 5), T(2, 3))',
                                 'F.conv1d(T(3, 5), T(2, 3))', 'F.conv3d(T(1, 3, 5, 5, 5), T(2, 3), groups=0)', 'F.conv3d(T(3, 5, 5, 5), T(2, 3))',
                                 'F.conv2d(T(1, 3, 5, 5), T(2, 3), T(4))', 'F.conv2d(T(1, 3, 5, 5), T(2, 3), stride=(1, 1, 1))', 'F.conv1d(T(1, 3, 5), T(2))'])
def test_conv_weight_of_rank_below_3(src):
    same(lambda L: eval(src, dict(F=L.nn.functional, T=lambda *s: L.ones(s))))


BCAST = [((3, 4), (3, 5), (3, 4)), ((3, 5), (3, 4), (3, 4)), ((3, 4), (3, 5), (3, 5)), ((5, 1), (3, 4), (3, 5)), ((3, 4), (2, 1, 4), (3, 1))]

@pytest.mark.parametrize('a,b,c', BCAST)
@pytest.mark.parametrize('src', ['L.where(Z(a) > 0, Z(b), Z(c))', 'L.where(Z(a) > 0, Z(b), 0.)', 'L.where(Z(a) > 0, 0., Z(b))',
                                 'L.where(Z(a) > 0, Z(b).requires_grad_(), Z(c))', 'L.heaviside(Z(a), Z(b))',
                                 'F.hinge_embedding_loss(Z(a), Z(b))', 'F.cosine_embedding_loss(Z(a), Z(a), Z(b[:1]))',
                                 'L.addcmul(Z(a), Z(b), Z(c))', 'L.lerp(Z(a), Z(b), Z(c))', 'L.clamp(Z(a), Z(b), Z(c))'])
def test_broadcast_error_names_operands_in_iterator_order(src, a, b, c):
    # TensorIterator broadcasts its operands in order (where: the condition first): its error names the shape so far as
    # `a` and the next operand's as `b`
    same(lambda L: eval(src, dict(L=L, F=L.nn.functional, Z=L.zeros, a=a, b=b, c=c)))


EB_IDS = [[[1, 9]], [[9, -1]], [[1, 2], [6, 8]], [[6, 1], [1, 2]], [[1, 2], [1, 6]], [[1, 2], [2, 2], [1, 6]], [[1, 6, 1], [1, 2, 2]],
          [[1, 2], [1, 6], [2, 2]]]

@pytest.mark.parametrize('threads', [1, 2, 3])
@pytest.mark.parametrize('ids', EB_IDS)
@pytest.mark.parametrize('kw', ["mode='mean'", "mode='sum'", "mode='max'", "mode='sum', per_sample_weights=L.ones(ids.shape)", 'weight=W.half()',
                                'weight=W.double()', 'weight=W.t().contiguous().t()', 'max_norm=1.', 'padding_idx=0'])
def test_embedding_bag_index_out_of_range(ids, kw, threads):
    # torch's fbgemm kernel (float32/half weights of unit row stride, sum or mean, no padding_idx) runs one chunk of bags per
    # thread; a failing chunk walks its bags with absolute offsets over its own ids (fbgemm_spmdm_report_error_). The other
    # kernels name the id; max_norm renormalises first, and select() refuses the smallest id out of range.
    # (not here: ids out of range in two chunks, where torch's threads race to report)
    def f(L):
        prior = L.get_num_threads()
        L.set_num_threads(threads)
        try:
            W = L.ones(5, 3)
            args = eval(f'dict({kw})', dict(L=L, W=W, ids=L.tensor(ids)))
            L.nn.functional.embedding_bag(L.tensor(ids), args.pop('weight', W), **args)
        finally: L.set_num_threads(prior)
    same(f)


@pytest.mark.parametrize('threads', [1, 2])
@pytest.mark.parametrize('ids,offsets', [([1, 9, 2], [0, 1]), ([1, 2, 9], [0, 1]), ([9, 2, 1], [0, 2]), ([1, 2, 9], [0, 2]), ([1, 2, 9], [0, 3]),
                                         ([1, 6, 2], [0, 1, 2]), ([6, 1, 2], [0, 0, 2]), ([1, 2, 6], [0, 2, 1])])
@pytest.mark.parametrize('last', [False, True])
def test_embedding_bag_offsets_index_out_of_range(ids, offsets, last, threads):
    # with include_last_offset, ids after the last offset are in no bag: torch's fbgemm kernel never reads them
    def f(L):
        prior = L.get_num_threads()
        L.set_num_threads(threads)
        try: return L.nn.functional.embedding_bag(L.tensor(ids), L.ones(5, 3), L.tensor(offsets), include_last_offset=last).tolist()
        finally: L.set_num_threads(prior)
    if (ids, offsets, last, threads) == ([1, 2, 6], [0, 2, 1], False, 2): pytest.skip('two chunks fail: torch reports the first to throw')
    same(f)


@pytest.mark.parametrize('src', ["F.embedding_bag(L.tensor([1.0]), W, L.tensor([0]), padding_idx=9)", "F.embedding_bag(L.tensor([1.0]), W, L.tensor([0]), max_norm=1.)",
                                 "F.embedding_bag(L.tensor([[1.0]]), W)", "F.embedding_bag(L.tensor([1]), W, L.tensor([0.]))",
                                 "F.embedding_bag(L.tensor([1.]), W, padding_idx=9)", "F.embedding_bag(L.tensor([9]), W, L.tensor([0]), max_norm=1., mode='bad')",
                                 "F.embedding_bag(L.tensor([9]), W, L.tensor([0]), max_norm=1., mode='mean', per_sample_weights=L.ones(1))",
                                 "F.embedding_bag(L.tensor([[1, 2]]), L.ones(5), per_sample_weights=L.ones(3))", "L.nn.EmbeddingBag(5, 3)(L.tensor([1.0]))",
                                 "L.nn.Embedding(5, 3, max_norm=1.)(L.tensor([7]))", "F.embedding(L.tensor([1.0]), W, max_norm=1.)",
                                 "F.embedding(L.tensor([-1]), W, max_norm=1.)", "L.embedding_renorm_(W, L.tensor([7, -9, -1]), 1., 2.)",
                                 "L.embedding_renorm_(W, L.tensor([7, 6, -1]), 1., 2.)"])
def test_embedding_checks_in_torch_order(src):
    # torch's Python checks, then max_norm's renorm (embedding_renorm_: select() on the sorted ids), then its C++ checks
    same(lambda L: eval(src, dict(L=L, F=L.nn.functional, W=L.ones(5, 3))))


@pytest.mark.parametrize('dt', ['bool', 'float16', 'bfloat16', 'int32', 'uint8', 'int64', 'float64'])
@pytest.mark.parametrize('shape', [(2, 3, 4), (2, 3, 4, 4), (2, 3, 4, 4, 4)])
def test_local_response_norm_dtypes_as_its_pools(dt, shape):
    # built as torch builds it, on avg_pool2d (3-d input) or avg_pool3d: their kernels refuse what they refuse
    def f(L):
        out = L.nn.LocalResponseNorm(2)(L.arange(float(np.prod(shape))).reshape(shape).to(getattr(L, dt)))
        return out.double().numpy().round(4).tolist()
    same(f)
    x = np.random.default_rng(0).standard_normal(shape)
    np.testing.assert_allclose(litnn.nn.functional.local_response_norm(litnn.tensor(x), 3, 1e-2).numpy(),
                               torch.nn.functional.local_response_norm(torch.tensor(x), 3, 1e-2).numpy(), rtol=1e-12)


MHA = 'L.nn.MultiheadAttention(4, 2)'
@pytest.mark.parametrize('src', [f'{MHA}(T(3, 2, 4), T(3, 2, 4), T(3, 2, 4), attn_mask=T(3, 3).double())', f'{MHA}(T(3, 2, 4), T(3, 2, 4), T(3, 2, 4), attn_mask=T(3, 3).half())',
                                 f'{MHA}(T(3, 2, 4), T(3, 2, 4), T(3, 2, 4), attn_mask=T(4, 3, 3).double())',
                                 f'{MHA}(T(3, 2, 4), T(3, 2, 4), T(3, 2, 4), attn_mask=T(3, 3) > 0, key_padding_mask=T(2, 3).double())',
                                 f'{MHA}(T(3, 2, 4), T(3, 2, 4), T(3, 2, 4), key_padding_mask=T(2, 3).double())',
                                 f'{MHA}(T(3, 2, 4), T(3, 3, 4), T(3, 3, 4))', f'{MHA}(T(3, 2, 4), T(3, 3, 4), T(3, 3, 5))',
                                 'L.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.)(T(3, 2, 4), T(5, 2, 5))',
                                 'L.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.)(T(3, 2, 4), T(5, 3, 4))',
                                 'L.nn.Transformer(4, 2, 1, 1, 8, dropout=0.)(T(3, 2, 4), T(5, 3, 4))'])
def test_attention_errors_from_torchs_layout(src):
    # torch's need_weights path adds the mask by baddbmm (one dtype), projects key and value together when they are one
    # tensor, and views the projections as (seq, batch·heads, head_dim): its errors name those
    def f(L):
        L.manual_seed(0)
        eval(src, dict(L=L, T=lambda *s: L.randn(s)))
    same(f)


@pytest.mark.parametrize('kpm', [False, True])
@pytest.mark.parametrize('mask', [None, (3, 3), (4, 3, 3)])
@pytest.mark.parametrize('kv', ['same', 'kv', 'all'])
def test_attention_values_after_layout_change(mask, kpm, kv):
    rng = np.random.default_rng(0)
    x, y, m, p = (rng.standard_normal(s).astype('float32') for s in ((3, 2, 4), (5, 2, 4), mask or (1,), (2, 5 if kv != 'same' else 3)))
    outs = []
    for L in (litnn, torch):
        L.manual_seed(0)
        mha = L.nn.MultiheadAttention(4, 2)
        q = L.tensor(x, requires_grad=True)
        k = q if kv == 'same' else L.tensor(y)
        v = k if kv != 'all' else L.tensor(y[::-1].copy())
        am = None if mask is None else L.tensor(m[..., :k.shape[0]] if kv != 'same' else m)
        if am is not None and kv != 'same': am = L.tensor(rng.standard_normal(m.shape[:-1] + (5,)).astype('float32')) if L is litnn else L.tensor(outs[0][3])
        o, w = mha(q, k, v, attn_mask=am, key_padding_mask=L.tensor(p > 0) if kpm else None)
        o.sum().backward()
        outs.append((o.detach().numpy(), w.detach().numpy(), q.grad.numpy(), None if am is None else am.numpy()))
    for a, b in zip(outs[0][:3], outs[1][:3]): np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('a,b,c', [((3, 4), (3, 4), (3, 4)), ((3, 4), (2, 1, 4), (3, 1)), ((3, 4), (3, 5), (3, 4)), ((3, 4), (3, 1), (4,)),
                                   ((3, 4), (3, 4), (2, 3, 4))])
@pytest.mark.parametrize('tg', ['Z(a)', 'Z(a) > 0', 'Z(a).long()', 'Z(a).double()'])
@pytest.mark.parametrize('kw', ['weight=Z(b)', 'pos_weight=Z(b)', 'pos_weight=Z(c), weight=Z(b)', '', 'pos_weight=Z(c), X=1'])
def test_bce_with_logits_steps_as_torch(a, b, c, tg, kw):
    # torch's formula runs in place into a tensor of input's shape: a larger weight or pos_weight is refused; a bool
    # target fails at `1 - target`, an integer one at the in-place product
    def f(L):
        Z = L.zeros
        args = eval(f'dict({kw})', dict(Z=Z, b=b, c=c))
        x = Z(a).long() if args.pop('X', 0) else Z(a)
        return L.nn.functional.binary_cross_entropy_with_logits(x, eval(tg, dict(Z=Z, a=a)), **args).tolist()
    same(f)


@pytest.mark.parametrize('x,tgt', [('I(3, 3)', 'L.tensor([0, 1, 2])'), ('I(3, 3)', 'L.zeros(3, 3)'), ('I(3, 3, 3)', 'L.zeros(3, 3).long()'),
                                   ('I(3, 3)', 'L.zeros(3, 3).long()'), ('T(3, 3)', 'L.zeros(3, 3)')])
def test_multilabel_margin_loss_shape_before_dtype(x, tgt):
    same(lambda L: L.nn.MultiLabelMarginLoss()(eval(x, dict(I=lambda *s: L.randint(0, 3, s), T=lambda *s: L.randn(s))), eval(tgt, dict(L=L))))


@pytest.mark.parametrize('dt', ['bool', 'uint8', 'int8', 'int32', 'int64', 'complex64'])
@pytest.mark.parametrize('m', ['Dropout()', 'AlphaDropout()', 'FeatureAlphaDropout()', 'Dropout2d()', 'Dropout1d()', 'Dropout3d()'])
def test_dropout_of_non_float_input(dt, m):
    # torch's noise has the input's dtype: bernoulli_ refuses a complex one; the first in-place step by a float refuses the
    # others (alpha dropout's is on noise - 1, a Long for a bool input)
    def f(L):
        x = L.ones(2, 3, 4, 4).to(getattr(L, dt))
        eval('L.nn.' + m)(x[0] if '1d' in m else x)
    same(f)


@pytest.mark.parametrize('p', [0.5, 'tensor', 'full'])
def test_bernoulli_of_complex(p):
    same(lambda L: L.ones(2, dtype=L.complex64).bernoulli_({'tensor': L.tensor(0.5), 'full': L.full((2,), 0.5)}.get(p, p)))
    same(lambda L: L.bernoulli(L.ones(2, dtype=L.complex64)))


@pytest.mark.parametrize('src', ['F.kl_div(L.ones(3), 1.0)', 'F.kl_div(L.ones(3), 1.0, reduction="bad")', 'F.kl_div(L.ones(3), 1.0, size_average=True)',
                                 'F.kl_div(1.0, L.ones(3), reduction="sum")', 'F.kl_div(L.ones(3).long(), L.ones(3))', 'L.nn.KLDivLoss()(L.ones(3), 1.0)'])
def test_kl_div_warns_before_its_argument_check(src):
    # torch's Python kl_div reads the reduction (and warns about 'mean') before torch.kl_div parses its arguments
    import warnings
    def f(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try: eval(src, dict(L=L, F=L.nn.functional))
            finally: f.warned = sorted(str(x.message)[:60] for x in w)
    same(f); t = f.warned
    same(f); assert f.warned == t


@pytest.mark.parametrize('src', ['L.tensor(1.).size(-3)', 'L.tensor(1.).size(0)', 'L.tensor(1.).size(-1)', 'L.ones(2).size(-3)', 'L.ones(2).size(1)',
                                 'L.nn.AvgPool2d(2)(L.randn(()))', 'L.nn.LPPool2d(2, 2)(L.randn(()))', 'L.nn.AvgPool2d(2)(L.randn(3))',
                                 'L.nn.Bilinear(3, 4, 2)(L.randn(()), L.randn(()))', 'L.nn.Bilinear(3, 4, 2)(L.randn(3), L.randn(5))'])
def test_size_of_a_scalar(src):
    # size(dim) does not read a 0-d tensor as 1-d: "Dimension specified as d but tensor has no dimensions"; the pools and
    # bilinear ask for a size first
    same(lambda L: eval(src, dict(L=L)))


@pytest.mark.parametrize('dt', ['complex64', 'int64', 'bool', 'float16'])
@pytest.mark.parametrize('m', ['ELU()', 'CELU()', 'SELU()', 'Hardsigmoid()', 'Hardswish()', 'Hardshrink()', 'Softshrink()', 'Softplus()', 'Mish()',
                               'LogSigmoid()', 'GLU()', 'PReLU()', 'RReLU()', 'RReLU().eval()', 'SiLU()', 'Softsign()', 'Tanhshrink()'])
def test_activation_kernels_of_real_types_only(m, dt):
    # torch's kernels for these take real floating types only (rrelu's training kernel no half either): complex refused too
    same(lambda L: eval('L.nn.' + m)(L.ones(2, 4).to(getattr(L, dt))).tolist())


@pytest.mark.parametrize('src', ['F.binary_cross_entropy(L.ones(3, 4).long() * 3, L.ones(3, 4).long())', 'F.binary_cross_entropy(L.ones(3, 4) > 0, L.ones(3, 4) > 0)',
                                 'F.binary_cross_entropy(L.ones(3, 4).int() * 3, L.ones(3, 4).int())', 'F.binary_cross_entropy(L.ones(3, 4).half() * 3, L.ones(3, 4).half())',
                                 "L.nn.PoissonNLLLoss(reduction=None)(L.ones(3), L.ones(3))", "L.nn.PoissonNLLLoss(reduction=1)(L.ones(3), L.ones(3))",
                                 "L.nn.PoissonNLLLoss(reduction='bad')(L.ones(3), L.ones(3))",
                                 'F.max_unpool2d(L.ones(3, 2), L.zeros(3, 2).long(), 2)', 'F.max_unpool2d(L.ones(2), L.zeros(2).long(), 2)',
                                 'F.max_unpool2d(L.ones(1, 1, 1, 3, 2), L.zeros(1, 1, 1, 3, 2).long(), 2)'])
def test_loss_and_unpool_checks_as_torch(src):
    same(lambda L: eval(src, dict(L=L, F=L.nn.functional)))


@pytest.mark.parametrize('shape', [(3,), (2, 3), (), (1, 1, 1, 3, 4, 4), (2, 3, 5, 5)])
@pytest.mark.parametrize('kw', ['output_size=2', 'output_ratio=0.5'])
def test_fractional_max_pool2d_reads_sizes_as_torch(shape, kw):
    # torch's Python draws the random samples first, reading input.size(0) and input.size(-3), before its kernel's rank check
    def f(L):
        L.manual_seed(0)
        return L.nn.FractionalMaxPool2d(2, **eval(f'dict({kw})'))(L.randn(shape)).sum().item()
    t, l = outcome(torch, f), outcome(litnn, f)
    assert l[0] == t[0] and l[1] == t[1]


DISPATCH = ['nn.GELU()(X)', "nn.GELU('tanh')(X)", 'nn.LeakyReLU()(X)', 'F.leaky_relu(X.clone(), inplace=True)', 'F.leaky_relu_(X.clone())',
            'nn.Hardtanh()(X)', 'nn.ReLU6()(X)', 'F.hardtanh_(X.clone())', 'nn.Threshold(0.1, 20.)(X)', 'F.threshold_(X.clone(), 0.1, 2.)',
            "F.threshold(X, 'a', 1.)", 'F.silu(X)', 'F.relu(X)',
            'nn.Upsample(scale_factor=2)(X4)', 'nn.UpsamplingBilinear2d(scale_factor=2)(X4)', 'nn.UpsamplingNearest2d(scale_factor=2)(X4)',
            'F.interpolate(X3, scale_factor=2)', "F.interpolate(X3, scale_factor=2, mode='linear')", "F.interpolate(X4, scale_factor=2, mode='bicubic')",
            "F.interpolate(X4, scale_factor=2, mode='area')", "F.interpolate(X5, scale_factor=2, mode='trilinear')",
            'nn.FractionalMaxPool2d(2, output_size=2)(X4)', 'nn.FractionalMaxPool3d(2, output_size=2)(X5)',
            'nn.MSELoss()(X, X)', "nn.MSELoss(reduction='none')(X, X)", 'nn.SmoothL1Loss()(X, X)', 'nn.HuberLoss()(X, X)',
            'nn.BatchNorm2d(3)(X4)', 'nn.BatchNorm2d(3).eval()(X4)', 'F.batch_norm(X4, None, None, training=True)', 'nn.InstanceNorm2d(3)(X4)',
            'F.layer_norm(X, (4,))', 'F.group_norm(X4, 1)', 'F.nll_loss(X, I)', 'F.log_softmax(X, 1)', 'F.cross_entropy(X, I)',
            'F.binary_cross_entropy(X, X)', 'F.logsigmoid(X)', 'F.multi_margin_loss(X, I)', 'F.multilabel_margin_loss(X, I2)',
            'F.max_pool1d(X3, 2)', 'F.max_pool2d(X4, 2)', 'F.avg_pool2d(X4, 2)', 'F.lp_pool2d(X4, 2, 2)', 'F.max_pool3d(X4, 2)',
            'F.adaptive_max_pool2d(X4, 2)', 'F.adaptive_max_pool3d(X4, 2)', 'F.max_unpool2d(X4, I4, 2)', 'F.max_unpool3d(X5, I5, 2)',
            'L.igamma(X, X)', 'F.grid_sample(X4, X4[:, :2].permute(0, 2, 3, 1), align_corners=False)',
            'F.ctc_loss(X3.log_softmax(2) if X3.is_floating_point() else X3, L.ones(3, 2).long(), (2, 2, 2), (2, 2, 2))']


@pytest.mark.parametrize('dt', ['complex64', 'int64', 'bool', 'float16', 'bfloat16'])
@pytest.mark.parametrize('src', DISPATCH)
def test_kernels_take_torchs_dtypes(src, dt):
    # one mechanism, torch's AT_DISPATCH: each kernel names the dtypes it takes (`_dispatch`); complex input to a kernel of real
    # types is refused with its NotImplementedError (clamp's own message for hardtanh/relu6), integers where only floats run
    def f(L):
        d = getattr(L, dt)
        env = dict(L=L, F=L.nn.functional, nn=L.nn, X=L.ones(2, 4).to(d), X3=L.ones(2, 3, 4).to(d), X4=L.ones(2, 3, 4, 4).to(d),
                   X5=L.ones(1, 3, 5, 5, 5).to(d), I=L.zeros(2).long(), I2=L.zeros(2, 4).long(), I4=L.zeros(2, 3, 4, 4).long(),
                   I5=L.zeros(1, 3, 5, 5, 5).long())
        L.manual_seed(0)
        eval(src, env)
    same(f)


@pytest.mark.parametrize('a,b,dims', [((2, 3), (4, 5), '1'), ((2, 3), (4, 5), '([-1], [0])'), ((2, 3), (4, 5), '([1], [-2])'),
                                      ((2, 3), (4, 5), '([-1], [-2])'), ((2, 3), (4, 5), 'L.tensor(1)'), ((2, 3), (4, 5), 'L.tensor([[1], [0]])'),
                                      ((2, 3), (4, 5), '2'), ((2, 3, 4), (3, 5, 4), '([1, -1], [0, 2])')])
def test_tensordot_names_dims_as_given(a, b, dims):
    # torch's message shows the dims it was given; an int `dims` contracts a's last dims as range(-dims, 0)
    same(lambda L: L.tensordot(L.randn(a), L.randn(b), dims=eval(dims, dict(L=L))))


@pytest.mark.parametrize('src', ['F.kl_div(C, C)', 'F.kl_div(C, X)', 'F.kl_div(X, C)', 'F.kl_div(I, X)', 'F.pdist(C)', 'F.pdist(I)', 'F.pdist(I > 0)',
                                 'F.pdist(X.half())', 'F.pdist(X.bfloat16())', 'F.pdist(X[:1].half())', 'F.pdist(X, -1)', 'F.pdist(X[0])',
                                 'L.histc(C)', 'L.histc(C, min=0, max=1)', 'L.histc(I)', 'L.histc(I > 0)', 'L.histc(C[:0])'])
def test_complex_and_integer_refused_in_torchs_words(src):
    # kl_div names complex inputs first; pdist checks floating dtypes then p, then its float/double kernel (for two rows or
    # more); histc's range comes from aminmax (no complex), its counts from a floating kernel
    same(lambda L: eval(src, dict(L=L, F=L.nn.functional, X=L.ones(2, 4), C=L.ones(2, 4, dtype=L.complex64), I=L.ones(2, 4).long())).tolist())


@pytest.mark.parametrize('dt,pd', [('float32', 'float64'), ('float16', 'float64'), ('bfloat16', 'float16'), ('float64', 'float32'),
                                   ('complex64', 'float64'), ('complex64', 'float32'), ('float32', 'float16'), ('int64', 'float32')])
@pytest.mark.parametrize('m', ['LayerNorm(4)', 'GroupNorm(1, 2)', 'BatchNorm1d(2)'])
def test_mixed_dtype_words_as_torch(m, dt, pd):
    # parameters of float32 with an input that is not half precision: "all inputs must share same datatype"; parameters of
    # another dtype: "expect parameter to have scalar type of Float"; complex input: checked so before its kernel refuses it
    def f(L):
        mod = eval('L.nn.' + m).to(getattr(L, pd))
        return mod(L.ones(*((2, 4) if m.startswith('Layer') else (2, 2, 4))).to(getattr(L, dt))).tolist()
    same(f)

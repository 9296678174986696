"""torch's top-level names litnn added for issue 29 (functional RNN kernels, SyncBatchNorm's kernels, the old norms, the
removed functions, Tensor plumbing...): side by side with torch 2.13 (values, gradients, dtypes, exception types)."""
import numpy as np, pytest, torch, litnn

def T(m, a, grad=False, dtype=None):
    t = m.tensor(np.asarray(a), dtype=dtype)
    return t.requires_grad_() if grad else t

def close(l, t, tol=1e-5):
    assert str(l.dtype).replace('litnn', 'torch') == str(t.dtype), (l.dtype, t.dtype)
    assert tuple(l.shape) == tuple(t.shape), (l.shape, t.shape)
    np.testing.assert_allclose(np.array(l.detach().tolist(), dtype=float), t.detach().double().numpy(), rtol=tol, atol=tol)

def both_raise(fl, ft, exact=True):
    with pytest.raises(Exception) as et: ft(torch)
    with pytest.raises(type(et.value)) as el: fl(litnn)
    if exact: assert str(el.value) in (str(et.value), str(et.value).replace('torch.', 'litnn.')), (str(el.value), str(et.value))

rng = np.random.default_rng(0)

# ---- functional RNN kernels: torch.lstm/gru/rnn_tanh/rnn_relu and their cells
def rnn_weights(mode, I, H, L, bidir, bias, proj=0):
    gates = dict(lstm=4, gru=3, rnn_tanh=1, rnn_relu=1)[mode]
    ws = []
    for layer in range(L):
        for d in range(2 if bidir else 1):
            i = I if layer == 0 else (proj or H) * (2 if bidir else 1)
            ws += [rng.normal(size=(gates * H, i)) * .4, rng.normal(size=(gates * H, proj or H)) * .4]
            if bias: ws += [rng.normal(size=gates * H) * .1, rng.normal(size=gates * H) * .1]
            if proj: ws += [rng.normal(size=(proj, H)) * .4]
    return [w.astype(np.float32) for w in ws]

RNN_CASES = [(mode, L, bidir, bias, bf) for mode in ('lstm', 'gru', 'rnn_tanh', 'rnn_relu') for L, bidir, bias, bf in
             [(1, False, True, False), (2, True, True, True), (2, False, False, False)]]

@pytest.mark.parametrize('mode,L,bidir,bias,bf', RNN_CASES)
def test_rnn_ops(mode, L, bidir, bias, bf):
    I, H, B, S, nd = 3, 4, 2, 5, 2 if bidir else 1
    ws, x = rnn_weights(mode, I, H, L, bidir, bias), rng.normal(size=(B, S, I) if bf else (S, B, I)).astype(np.float32)
    h0 = (rng.normal(size=(L * nd, B, H)) * .5).astype(np.float32)
    outs = {}
    for m in (litnn, torch):
        params, xx, h = [T(m, w, True) for w in ws], T(m, x, True), T(m, h0, True)
        hx = (h, h * 2) if mode == 'lstm' else h
        res = getattr(m, mode)(xx, hx, params, bias, L, 0., True, bidir, bf)
        sum(r.sin().sum() for r in res).backward()
        outs[m] = res, [xx.grad, h.grad] + [p.grad for p in params]
    (rl, gl), (rt, gt) = outs[litnn], outs[torch]
    assert len(rl) == len(rt)
    for a, b in zip(rl, rt): close(a, b)
    for a, b in zip(gl, gt): close(a, b, 1e-4)

def test_lstm_projection_and_packed():
    ws = rnn_weights('lstm', 3, 4, 1, False, True, proj=2)
    x, lengths = rng.normal(size=(5, 2, 3)).astype(np.float32), [5, 3]
    h0, c0 = np.zeros((1, 2, 2), np.float32), np.zeros((1, 2, 4), np.float32)
    res = {}
    for m in (litnn, torch):
        p = m.nn.utils.rnn.pack_padded_sequence(T(m, x), lengths)
        res[m] = m.lstm(p.data, p.batch_sizes, (T(m, h0), T(m, c0)), [T(m, w) for w in ws], True, 1, 0., False, False)
    for a, b in zip(res[litnn], res[torch]): close(a, b)

@pytest.mark.parametrize('name', ['rnn_tanh_cell', 'rnn_relu_cell', 'gru_cell', 'lstm_cell'])
def test_rnn_cells(name):
    gates = dict(lstm_cell=4, gru_cell=3).get(name, 1)
    x, h = rng.normal(size=(3, 5)).astype(np.float32), rng.normal(size=(3, 4)).astype(np.float32)
    ws = [rng.normal(size=s).astype(np.float32) for s in [(gates * 4, 5), (gates * 4, 4), (gates * 4,), (gates * 4,)]]
    outs = {}
    for m in (litnn, torch):
        hx = (T(m, h, True), T(m, h * 0.5, True)) if name == 'lstm_cell' else T(m, h, True)
        params = [T(m, w, True) for w in ws]
        r = getattr(m, name)(T(m, x), hx, *params)
        r = r if isinstance(r, tuple) else (r,)
        sum(t.sum() for t in r).backward()
        outs[m] = r, [p.grad for p in params]
    for a, b in zip(outs[litnn][0] + tuple(outs[litnn][1]), outs[torch][0] + tuple(outs[torch][1])): close(a, b, 1e-4)

def test_rnn_op_errors():
    ws = rnn_weights('lstm', 3, 4, 2, False, True)
    x, h = np.zeros((5, 2, 3), np.float32), np.zeros((2, 2, 4), np.float32)
    both_raise(lambda m: m.lstm(T(m, x), (T(m, h),), [T(m, w) for w in ws], True, 2, 0., False, False, False),
               lambda m: m.lstm(T(m, x), (T(m, h),), [T(m, w) for w in ws], True, 2, 0., False, False, False))
    both_raise(lambda m: m.lstm(T(m, x), (T(m, h), T(m, h)), [T(m, w) for w in ws[:-1]], True, 2, 0., False, False, False),
               lambda m: m.lstm(T(m, x), (T(m, h), T(m, h)), [T(m, w) for w in ws[:-1]], True, 2, 0., False, False, False))
    g = rnn_weights('gru', 3, 4, 1, False, True)
    both_raise(lambda m: m.gru(T(m, x), T(m, h[:1]), [T(m, w) for w in g[:3]], True, 1, 0., False, False, False),
               lambda m: m.gru(T(m, x), T(m, h[:1]), [T(m, w) for w in g[:3]], True, 1, 0., False, False, False))

# ---- SyncBatchNorm's kernels: CUDA-only in torch 2.13, so checked against the batch norm they decompose
def test_batch_norm_update_stats():
    x = rng.normal(size=(4, 3, 5)).astype(np.float32)
    res = {}
    for m in (litnn, torch):
        rm, rv = m.zeros(3), m.ones(3)
        res[m] = m.batch_norm_update_stats(T(m, x), rm, rv, 0.1) + (rm, rv)
    for a, b in zip(res[litnn], res[torch]): close(a, b)

def test_batch_norm_kernels_are_batch_norm():
    "Split a batch over three 'processes': the kernels' forward and backward equal torch's F.batch_norm and its gradients."
    x, w, b = rng.normal(size=(6, 3, 4)), rng.normal(size=3), rng.normal(size=3)
    dy, eps = rng.normal(size=(6, 3, 4)), 1e-5
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    ref = torch.nn.functional.batch_norm(tx, rm_t, rv_t, tw, tb, True, 0.1, eps)
    ref.backward(torch.tensor(dy))
    L = litnn
    parts = [L.tensor(x[s]) for s in (slice(0, 1), slice(1, 4), slice(4, 6))]
    stats = [L.batch_norm_stats(p, eps) for p in parts]
    counts = L.tensor([float(p.size(0) * p.size(2)) for p in parts], dtype=L.float64)
    rm, rv = L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)
    mean, invstd = L.batch_norm_gather_stats_with_counts(L.tensor(x), L.stack([s[0] for s in stats]), L.stack([s[1] for s in stats]),
                                                         rm, rv, 0.1, eps, counts)
    close(rm, rm_t); close(rv, rv_t)
    out = L.batch_norm_elemt(L.tensor(x), L.tensor(w), L.tensor(b), mean, invstd, eps)
    close(out, ref.detach())
    sums = [L.batch_norm_backward_reduce(L.tensor(dy[s]), p, mean, invstd, L.tensor(w), True, True, True)
            for s, p in zip((slice(0, 1), slice(1, 4), slice(4, 6)), parts)]
    sum_dy, sum_dy_xmu = sum(s[0] for s in sums), sum(s[1] for s in sums)
    close(sum(s[2] for s in sums), tw.grad); close(sum(s[3] for s in sums), tb.grad)
    gx = L.batch_norm_backward_elemt(L.tensor(dy), L.tensor(x), mean, invstd, L.tensor(w), sum_dy, sum_dy_xmu,
                                     L.tensor([4, 12, 8], dtype=L.int32))
    close(gx, tx.grad)
    g2, _ = L.batch_norm_gather_stats(L.tensor(x), L.stack([stats[0][0]] * 2), L.stack([stats[0][1]] * 2), None, None, 0.1, eps, 4)
    close(g2, torch.tensor(x[:1]).mean((0, 2)))
    assert L.batch_norm_backward_reduce(L.tensor(dy), L.tensor(x), mean, invstd, None, False, True, True) == (None,) * 4
    assert L.batch_norm_stats(L.tensor(x).half(), eps)[1].dtype == L.float32

# ---- the old norms and segment_reduce
import warnings

def grads_match(fn, arrays, tol=1e-5):
    "fn(m, *tensors) in litnn and torch: values, dtypes and the gradients of sum(out·w)."
    res = {}
    for m in (litnn, torch):
        ts = [T(m, a, True) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            out = fn(m, *ts)
        if out.requires_grad:
            w = T(m, np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype)
            g = m.autograd.grad((out * w).sum(), ts, allow_unused=True)
        else: g = [None] * len(ts)
        res[m] = out, g
    close(res[litnn][0], res[torch][0], tol)
    for a, b in zip(res[litnn][1], res[torch][1]):
        assert (a is None) == (b is None)
        if a is not None: close(a, b, tol)

A = rng.normal(size=(3, 4)).astype(np.float32)
B3 = rng.normal(size=(2, 3, 4))

@pytest.mark.parametrize('call', [lambda m, x: m.frobenius_norm(x, [0, 1]), lambda m, x: m.frobenius_norm(x, 1, keepdim=True),
                                  lambda m, x: m.frobenius_norm(x, [-1]), lambda m, x: m.nuclear_norm(x),
                                  lambda m, x: m.nuclear_norm(x, True), lambda m, x: m.norm_except_dim(x),
                                  lambda m, x: m.norm_except_dim(x, 2, 1), lambda m, x: m.norm_except_dim(x, 3, -1),
                                  lambda m, x: m.norm_except_dim(x, 1, 0)])
def test_old_norms(call):
    grads_match(call, [A])

@pytest.mark.parametrize('call', [lambda m, x: m.nuclear_norm(x, [0, 2]), lambda m, x: m.nuclear_norm(x, [2, 1], True),
                                  lambda m, x: m.norm_except_dim(x, 2, 1), lambda m, x: m.norm_except_dim(x, 2, 2),
                                  lambda m, x: m.frobenius_norm(x, [0, 2])])
def test_old_norms_3d(call):
    grads_match(call, [B3])

def test_old_norms_1d_and_errors():
    grads_match(lambda m, x: m.norm_except_dim(x, 2, 0), [np.array([3., -4.])])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        both_raise(lambda m: m.frobenius_norm(m.ones(2, 2), [0, 1, 0]), lambda m: m.frobenius_norm(m.ones(2, 2), [0, 1, 0]))
        both_raise(lambda m: m.frobenius_norm(m.tensor([1, 2]), [0]), lambda m: m.frobenius_norm(m.tensor([1, 2]), [0]))
        both_raise(lambda m: m.norm_except_dim(m.tensor([1, 2])), lambda m: m.norm_except_dim(m.tensor([1, 2])))
        both_raise(lambda m: m.norm_except_dim(m.ones(2, 3, 4), 2, 5), lambda m: m.norm_except_dim(m.ones(2, 3, 4), 2, 5))
        both_raise(lambda m: m.nuclear_norm(m.ones(3)), lambda m: m.nuclear_norm(m.ones(3)))
        both_raise(lambda m: m.frobenius_norm(m.ones(2)), lambda m: m.frobenius_norm(m.ones(2)), exact=False)

SEG = np.array([1., 3., 3., 2., 5., 4., 0.5, -1.])
@pytest.mark.parametrize('reduce', ['sum', 'mean', 'max', 'min', 'prod', 'amax', 'amin'])
@pytest.mark.parametrize('initial', [None, 2.5])
@pytest.mark.parametrize('by', ['lengths', 'offsets'])
def test_segment_reduce(reduce, initial, by):
    lengths = np.array([2, 0, 3, 1, 2])
    def call(m, d):
        idx = dict(lengths=T(m, lengths)) if by == 'lengths' else dict(offsets=T(m, np.concatenate([[0], np.cumsum(lengths)])))
        return m.segment_reduce(d, reduce, initial=initial, **idx)
    grads_match(call, [SEG])
    grads_match(call, [SEG.astype(np.float32)])

def test_segment_reduce_axes_and_errors():
    d = rng.normal(size=(2, 6, 3))
    grads_match(lambda m, x: m.segment_reduce(x, 'sum', lengths=T(m, [[2, 4], [3, 3]]), axis=1), [d])
    grads_match(lambda m, x: m.segment_reduce(x, 'max', lengths=T(m, [1, 1]), axis=0), [d])
    grads_match(lambda m, x: m.segment_reduce(x, 'mean', lengths=T(m, [[[1, 2]] * 6] * 2), axis=-1), [d])
    ties = np.array([3., 3., 1.])
    grads_match(lambda m, x: m.segment_reduce(x, 'max', lengths=T(m, [3])), [ties])
    grads_match(lambda m, x: m.segment_reduce(x, 'prod', lengths=T(m, [3])), [np.array([0., 2., 1.])])
    x = SEG
    for kw in [dict(), dict(lengths=[2, 2]), dict(lengths=[8], axis=1), dict(lengths=[8.]), dict(indices=[8])]:
        both_raise(lambda m: m.segment_reduce(T(m, x), 'sum', **{k: (T(m, v) if k != 'axis' else v) for k, v in kw.items()}),
                   lambda m: m.segment_reduce(T(m, x), 'sum', **{k: (T(m, v) if k != 'axis' else v) for k, v in kw.items()}))
    both_raise(lambda m: m.segment_reduce(T(m, x), 'foo', lengths=T(m, [8])), lambda m: m.segment_reduce(T(m, x), 'foo', lengths=T(m, [8])))
    both_raise(lambda m: m.segment_reduce(T(m, [1, 2]), 'sum', lengths=T(m, [2])), lambda m: m.segment_reduce(T(m, [1, 2]), 'sum', lengths=T(m, [2])))

@pytest.mark.parametrize('reduce', ['sum', 'mean', 'max', 'min', 'prod'])
@pytest.mark.parametrize('shape', [(0,), (0, 3)])
def test_segment_reduce_of_no_elements(reduce, shape):
    "only zero-length segments (PyTorch's test_simple_zero_length): the identities (or initial), and in the graph as torch's"
    for initial in (None, 2.):
        res = []
        for m in (litnn, torch):
            x = T(m, np.ones(shape), True)
            out = m._segment_reduce(x, reduce, lengths=T(m, [0, 0]), initial=initial)     # (torch's other name for segment_reduce)
            g, = m.autograd.grad(out.sum(), x)
            res.append((tuple(out.shape), np.asarray(out.detach().numpy()).tolist(), out.requires_grad, tuple(g.shape)))
        assert str(res[0]) == str(res[1])

# ---- the functions removed in 1.9: the same RuntimeError, word for word
@pytest.mark.parametrize('call', [lambda m: m.eig(m.eye(2)), lambda m: m.eig(m.eye(2), True), lambda m: m.lstsq(m.eye(2), m.eye(2)),
                                  lambda m: m.solve(m.eye(2), m.eye(2)), lambda m: m.symeig(m.eye(2)), lambda m: m.matrix_rank(m.eye(2)),
                                  lambda m: m.eye(2).eig(), lambda m: m.eye(2).lstsq(m.eye(2)), lambda m: m.eye(2).solve(m.eye(2)),
                                  lambda m: m.eye(2).symeig(eigenvectors=True), lambda m: m.matrix_rank(m.eye(2), symmetric=True)])
def test_removed_functions(call):
    with pytest.raises(RuntimeError) as et: call(torch)
    with pytest.raises(RuntimeError) as el: call(litnn)
    assert str(el.value) == str(et.value)

def test_removed_functions_paths():
    for n in ('eig', 'lstsq', 'solve', 'symeig', 'matrix_rank'):
        assert getattr(litnn, n).__module__ == 'litnn._linalg_utils' and getattr(litnn, n).__name__ == getattr(torch, n).__name__

# ---- the Tensor's remaining attributes
@pytest.mark.parametrize('make', [lambda m: m.empty(2, 3, 5, 7), lambda m: m.empty(2, 3, 5, 7).transpose(1, 2),
                                  lambda m: m.empty(2, 5, 7, 3).permute(0, 3, 1, 2), lambda m: m.empty(1, 2, 3, 4),
                                  lambda m: m.empty(2, 1, 3), lambda m: m.empty(3, 4)[:, ::2], lambda m: m.empty(4, 4).t()[1:],
                                  lambda m: m.empty(3, 1, 4).expand(3, 5, 4), lambda m: m.empty(5), lambda m: m.tensor(1.),
                                  lambda m: m.empty(2, 2, 2).permute(2, 0, 1), lambda m: m.empty(0, 3)])
@pytest.mark.parametrize('check', [False, True, 'formats'])
def test_dim_order(make, check):
    def call(m):
        return make(m).dim_order(ambiguity_check=[m.contiguous_format, m.channels_last] if check == 'formats' else check)
    try: want = call(torch)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)): call(litnn)
        return
    assert call(litnn) == want

def test_dim_order_errors():
    both_raise(lambda m: m.empty(2, 3).dim_order(ambiguity_check='x'), lambda m: m.empty(2, 3).dim_order(ambiguity_check='x'))
    both_raise(lambda m: m.empty(2, 3).dim_order(ambiguity_check=[1]), lambda m: m.empty(2, 3).dim_order(ambiguity_check=[1]))

def test_small_tensor_attributes():
    for m in (litnn, torch):
        y = m.ones(2, requires_grad=True)
        a, b = (y * 2).unbind()
        assert (y.output_nr, a.output_nr, b.output_nr) == (0, 0, 1)
        assert y.const_data_ptr() == y.data_ptr() and m.is_distributed(y) is False and y.is_distributed() is False
        assert y.name is None
        with pytest.raises(AttributeError, match="attribute 'output_nr' of '.*' objects is not writable"): a.output_nr = 2
        with pytest.raises(AttributeError, match="attribute 'name' of '.*' objects is not writable"): a.name = 'x'
        with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"): assert y.volatile is False
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"): y.volatile = True
    with pytest.raises(RuntimeError) as et: torch.ones(1).reinforce(1.)
    with pytest.raises(RuntimeError) as el: litnn.ones(1).reinforce(1.)
    assert str(el.value) == str(et.value)          # torch's words, as the removed linalg functions'
    both_raise(lambda m: m.is_distributed(3), lambda m: m.is_distributed(3), exact=False)

def test_as_subclass_and_module_load():
    for m in (litnn, torch):
        class Sub(m.Tensor): pass
        x = m.arange(3.)
        s = x.as_subclass(Sub)
        assert type(s) is Sub and s.data_ptr() == x.data_ptr() and s.tolist() == [0., 1., 2.]
        w = m.ones(2, requires_grad=True)
        (w.as_subclass(Sub) * m.tensor([2., 3.])).sum().backward()
        assert w.grad.tolist() == [2., 3.]
        assert type(m.zeros(1).as_subclass(m.nn.Parameter)).__name__ == 'Parameter'
        p, o = m.zeros(2), m.ones(2, requires_grad=True)
        r = p.module_load(o)
        assert r.tolist() == [1., 1.] and p.tolist() == [1., 1.] and not r.requires_grad and r is not p
        r2 = m.zeros(2).module_load(o, assign=True)
        assert r2.data_ptr() == o.data_ptr() and not r2.requires_grad
    both_raise(lambda m: m.ones(1).as_subclass(int), lambda m: m.ones(1).as_subclass(int))

# ---- in-place products, geqrf / ormqr, slice_inverse
def test_addmm_inplace_and_addmv_():
    M, a, b, v = rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(4, 3)), rng.normal(size=4)
    res = {}
    for m in (litnn, torch):
        x, w = T(m, M), T(m, a, True)
        y = x.clone().requires_grad_(False)
        base = T(m, rng.normal(size=2) * 0 + 1.)
        c = T(m, M, True) * 1
        r = c.addmm_(w, T(m, b), beta=0.5, alpha=2.)
        r.sum().backward()
        res[m] = (r, w.grad, m.addmv_(base, T(m, a), T(m, v), beta=2), base, y.addmm_(T(m, a), T(m, b)))
        assert r is c
    for l, t in zip(res[litnn], res[torch]): close(l, t, 1e-6)
    both_raise(lambda m: m.ones(2, 2, requires_grad=True).addmm_(m.eye(2), m.eye(2)),
               lambda m: m.ones(2, 2, requires_grad=True).addmm_(m.eye(2), m.eye(2)), exact=False)

@pytest.mark.parametrize('shape', [(4, 3), (3, 5), (2, 4, 4), (3, 3)])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_geqrf(shape, dtype):
    x = rng.normal(size=shape).astype(dtype)
    (la, lt), (ta, tt) = litnn.geqrf(T(litnn, x)), torch.geqrf(T(torch, x))
    close(la, ta, 1e-4); close(lt, tt, 1e-4)
    assert type(litnn.geqrf(T(litnn, x))).__name__ == 'geqrf' and T(litnn, x).geqrf().__match_args__ == T(torch, x).geqrf().__match_args__ == ('a', 'tau')

@pytest.mark.parametrize('shape,other', [((4, 3), (4, 2)), ((4, 3), (2, 4)), ((3, 5), (3, 3)), ((2, 4, 3), (2, 4, 4))])
@pytest.mark.parametrize('left', [True, False])
@pytest.mark.parametrize('transpose', [False, True])
def test_ormqr(shape, other, left, transpose):
    x = rng.normal(size=shape)
    if not left: other = other[:-2] + (other[-1], other[-2])
    o = rng.normal(size=other)
    a, tau = [t.numpy() for t in torch.geqrf(torch.tensor(x))]
    try: torch.ormqr(torch.tensor(a), torch.tensor(tau), torch.tensor(o), left, transpose)
    except RuntimeError:
        both_raise(lambda m: m.ormqr(T(m, a), T(m, tau), T(m, o), left, transpose), lambda m: m.ormqr(T(m, a), T(m, tau), T(m, o), left, transpose), exact=False)
        return
    grads_match(lambda m, A, t, O: m.ormqr(A, t, O, left, transpose), [a, tau, o], 1e-6)

def test_geqrf_ormqr_errors():
    x = np.eye(3)
    both_raise(lambda m: m.geqrf(m.ones(3)), lambda m: m.geqrf(m.ones(3)))
    both_raise(lambda m: m.geqrf(m.ones(3, 3, dtype=m.int64)), lambda m: m.geqrf(m.ones(3, 3, dtype=m.int64)))
    both_raise(lambda m: m.geqrf(T(m, x, True))[0].sum().backward(), lambda m: m.geqrf(T(m, x, True))[0].sum().backward())
    both_raise(lambda m: m.ormqr(T(m, x), T(m, [1., 1., 1.]), T(m, np.ones((2, 2)))), lambda m: m.ormqr(T(m, x), T(m, [1., 1., 1.]), T(m, np.ones((2, 2)))))
    both_raise(lambda m: m.ormqr(T(m, x), T(m, x), T(m, x)), lambda m: m.ormqr(T(m, x), T(m, x), T(m, x)))

def test_slice_inverse():
    for m in (litnn, torch):
        base = m.arange(10.)
        r = m.slice_inverse(base[2:8:2], base, 0, 2, 8, 2)
        assert r.tolist() == list(range(10)) and r.data_ptr() == base.data_ptr()
        b2 = m.arange(12.).reshape(3, 4)
        r2 = b2[:, 1:3].slice_inverse(b2, 1, 1, 3)
        assert r2.tolist() == b2.tolist() and r2.stride() == (4, 1)

# ---- grid_sampler*, affine_grid_generator, max_pool1d_with_indices, embedding_renorm_, conv_tbc
@pytest.mark.parametrize('mode', [0, 1, 2])
@pytest.mark.parametrize('padding', [0, 1, 2])
@pytest.mark.parametrize('align', [False, True])
def test_grid_sampler(mode, padding, align):
    inp, grid = rng.normal(size=(2, 3, 4, 5)), rng.uniform(-1.2, 1.2, size=(2, 3, 2, 2))
    grads_match(lambda m, i, g: m.grid_sampler(i, g, mode, padding, align), [inp, grid], 1e-6)
    grads_match(lambda m, i, g: m.grid_sampler_2d(i, g, mode, padding, align), [inp, grid], 1e-6)
    if mode != 2:
        inp3, grid3 = rng.normal(size=(1, 2, 3, 4, 3)), rng.uniform(-1, 1, size=(1, 2, 2, 2, 3))
        grads_match(lambda m, i, g: m.grid_sampler_3d(i, g, mode, padding, align), [inp3, grid3], 1e-6)
    both_raise(lambda m: m.grid_sampler_3d(T(m, inp), T(m, grid), mode, padding, align),
               lambda m: m.grid_sampler_3d(T(m, inp), T(m, grid), mode, padding, align))

@pytest.mark.parametrize('align', [False, True])
def test_affine_grid_generator(align):
    grads_match(lambda m, th: m.affine_grid_generator(th, [2, 1, 3, 4], align), [rng.normal(size=(2, 2, 3))])

@pytest.mark.parametrize('args', [(2,), (3, 2, 1, 1, True), (2, [], 1), (3, 1, 0, 2)])
def test_max_pool1d_with_indices(args):
    x = rng.normal(size=(2, 3, 9))
    (lv, li), (tv, ti) = litnn.max_pool1d_with_indices(T(litnn, x), *args), torch.max_pool1d_with_indices(T(torch, x), *args)
    close(lv, tv); close(li, ti)
    grads_match(lambda m, t: m.max_pool1d_with_indices(t, *args)[0], [x])

def test_embedding_renorm_():
    w, idx = rng.normal(size=(6, 3)) * 2, [0, 2, 2, 5]
    res = {m: m.embedding_renorm_(T(m, w), T(m, idx), 1.5, 2.) for m in (litnn, torch)}
    close(res[litnn], res[torch])
    res = {m: m.embedding_renorm_(T(m, w), T(m, idx), 1., 1.) for m in (litnn, torch)}
    close(res[litnn], res[torch])
    t = litnn.ones(2, 2) * 3
    assert litnn.embedding_renorm_(t, litnn.tensor([1]), 1., 2.) is t

@pytest.mark.parametrize('pad', [0, 1, 2])
def test_conv_tbc(pad):
    grads_match(lambda m, x, w, b: m.conv_tbc(x, w, b, pad), [rng.normal(size=(6, 2, 3)), rng.normal(size=(3, 3, 4)), rng.normal(size=4)])
    x, w, b = np.zeros((5, 2, 3)), np.zeros((3, 3, 4)), np.zeros(4)
    for args in [(x[0], w, b), (x, w[:, :2], b), (x, w, b[:3]), (x, w[0], b)]:
        both_raise(lambda m: m.conv_tbc(*[T(m, a) for a in args]), lambda m: m.conv_tbc(*[T(m, a) for a in args]))

# ---- binomial: the same distribution (moments), dtypes, broadcasting, errors
@pytest.mark.filterwarnings('ignore:An output with one or more elements was resized')   # torch's, broadcasting count
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_binomial(dtype):
    c, p = np.array([[20.], [5.]], dtype), np.array([0.3, 0.9, 0.], dtype)
    litnn.manual_seed(0); torch.manual_seed(0)
    draws = {m: m.binomial(T(m, np.broadcast_to(c, (2, 3)).repeat(20000, 0)), T(m, np.tile(p, (40000, 1)))) for m in (litnn, torch)}
    mean, var = c * p, c * p * (1 - p)           # each library's 20,000 draws per (count, prob) against the exact moments, to 6 sigma
    for m, d in draws.items():
        assert str(d.dtype).split('.')[-1] == dtype and tuple(d.shape) == (40000, 3)
        d = np.array(d.double().reshape(2, 20000, 3).tolist())
        assert (abs(d.mean(1) - mean) <= 1e-12 + 6 * np.sqrt(var / 20000)).all(), (m.__name__, d.mean(1), mean)
        assert (abs(d.var(1, ddof=1) - var) <= 1e-12 + 6 * var * np.sqrt(3 / 20000)).all(), (m.__name__, d.var(1, ddof=1), var)
    for m in (litnn, torch):
        r = m.binomial(T(m, np.array([-1., 3., 4.], dtype)), T(m, np.array([.5, float('nan'), 1.], dtype)))
        assert r[0].item() == 0 and np.isnan(r[1].item()) and r[2].item() == 4
        assert tuple(m.binomial(T(m, c), T(m, p)).shape) == (2, 3)

def test_binomial_errors():
    both_raise(lambda m: m.binomial(m.tensor([1]), m.tensor([.5])), lambda m: m.binomial(m.tensor([1]), m.tensor([.5])))
    both_raise(lambda m: m.binomial(m.ones(2), m.ones(2, dtype=m.float64)), lambda m: m.binomial(m.ones(2), m.ones(2, dtype=m.float64)))
    both_raise(lambda m: m.binomial(m.ones(3), m.ones(2) / 2), lambda m: m.binomial(m.ones(3), m.ones(2) / 2))
    both_raise(lambda m: m.binomial(m.ones(2, requires_grad=True), m.tensor([.5, .5])).sum().backward(),
               lambda m: m.binomial(m.ones(2, requires_grad=True), m.tensor([.5, .5])).sum().backward())
    g = litnn.Generator().manual_seed(3)
    a = litnn.binomial(litnn.full((5,), 50.), litnn.full((5,), .5), generator=g)
    g.manual_seed(3)
    assert litnn.binomial(litnn.full((5,), 50.), litnn.full((5,), .5), generator=g).tolist() == a.tolist()

def test_binomial_dtype_errors_as_torch():
    # torch checks count, then prob, for a floating dtype (ValueError), then that they match; its CPU kernel has no half/bfloat16
    cases = [('int32', 'float32'), ('float32', 'int64'), ('float32', 'int16'), ('float32', 'bool'), ('float32', 'complex64'),
             ('float64', 'float32'), ('float16', 'float16'), ('bfloat16', 'bfloat16')]
    for cd, pd in cases:
        out = []
        for m in (litnn, torch):
            try: m.binomial(m.tensor([10, 10]).to(getattr(m, cd)), m.tensor([0.5, 0.5]).to(getattr(m, pd))); out.append(None)
            except Exception as e: out.append((type(e).__name__, str(e)))
        assert out[0] == out[1] and out[1] is not None, (cd, pd, out)


# ---- torch.cond and torch.while_loop (torch compiles them even eagerly; litnn runs them as Python)
def test_cond():
    x = np.array([1., -2., 3.])
    for pred in (True, False, 'sum>0', 'sum<0'):
        res = {}
        for m in (litnn, torch):
            t = T(m, x)
            p = (t.sum() > 0 if pred == 'sum>0' else t.sum() < 0) if isinstance(pred, str) else pred
            res[m] = m.cond(p, lambda a: a.relu() * 2, lambda a: a.abs() + 1, (t,))
        close(res[litnn], res[torch])
    for bad in [lambda m: m.cond(T(m, x) > 0, lambda a: a, lambda a: a, (T(m, x),)),
                lambda m: m.cond(T(m, x).sum() > 0, lambda a: a, lambda a: a, T(m, x)),
                lambda m: m.cond(T(m, x).sum() > 0, 3, lambda a: a, (T(m, x),)),
                lambda m: m.cond('yes', lambda a: a, lambda a: a, (T(m, x),))]:
        both_raise(bad, bad)
    assert litnn.cond.__module__ == 'litnn'

def test_while_loop():
    res = {}
    for m in (litnn, torch):
        i0, x0 = m.tensor(0), m.tensor(1.5)
        res[m] = m.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, x * 2 - 1), (i0, x0))
        none = m.while_loop(lambda i, x: i > 10, lambda i, x: (i + 1, x + 0), (i0, x0))
        assert none[0] is not i0 and none[0].item() == 0 and isinstance(none, tuple)
    for a, b in zip(res[litnn], res[torch]): close(a, b)
    # torch's compiled path raises RuntimeErrors (dynamo's subclass for a non-scalar predicate); litnn raises the
    # messages of torch's eager kernel (while_loop_dense)
    for bad in [lambda m: m.while_loop(lambda n: n > 0, lambda n: (n - 1,), (m.tensor([3, 1]),)),
                lambda m: m.while_loop(lambda n: n > 0, 5, (m.tensor(3),))]:
        for m in (torch, litnn):
            with pytest.raises(RuntimeError): bad(m)
    with pytest.raises(RuntimeError, match="carried_inputs must be a tuple or list"):
        litnn.while_loop(lambda n: n > 0, lambda n: (n - 1,), litnn.tensor(3))
    assert litnn.while_loop.__module__ == 'litnn._higher_order_ops.while_loop'

# ---- process settings and paths
def test_deterministic_debug_mode():
    try:
        for mode in ('warn', 'error', 'default', 1, 2, 0):
            for m in (litnn, torch):
                m.set_deterministic_debug_mode(mode)
            assert litnn.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
            assert litnn.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
            assert litnn.is_deterministic_algorithms_warn_only_enabled() == torch.is_deterministic_algorithms_warn_only_enabled()
        for bad in (3, 'x', 1.0, -1):
            both_raise(lambda m: m.set_deterministic_debug_mode(bad), lambda m: m.set_deterministic_debug_mode(bad))
    finally:
        torch.set_deterministic_debug_mode(0); litnn.set_deterministic_debug_mode(0)

def test_small_process_functions():
    assert litnn.compiled_with_cxx11_abi() is torch.compiled_with_cxx11_abi() is True
    assert litnn.set_flush_denormal(False) is True and litnn.set_flush_denormal(True) is False
    torch.set_flush_denormal(False)
    for bad in (1, 'a', None):
        both_raise(lambda m: m.set_flush_denormal(bad), lambda m: m.set_flush_denormal(bad), exact=False)
    assert litnn.thread_safe_generator() is None is torch.thread_safe_generator()
    assert litnn.random.thread_safe_generator is litnn.thread_safe_generator
    import os
    assert litnn.get_file_path('a', 'b') == os.path.join(os.path.dirname(os.path.dirname(litnn.__file__)), 'a', 'b')
    assert litnn.prepare_multiprocessing_environment('x') is None is torch.prepare_multiprocessing_environment('x')

def test_classproperty():
    for m in (litnn, torch):
        class A:
            k = 2
            @m.classproperty
            def twice(cls): return cls.k * 2
            @m.classproperty
            @staticmethod
            def const(): return 7
        class B(A): k = 5
        assert (A.twice, A().twice, B.twice, A.const) == (4, 4, 10, 7)
    assert litnn.classproperty.__module__ == 'litnn._utils'

# ---- the old sparse products
def test_old_sparse_products():
    s, d = np.array([[0., 2., 0.], [0., 0., 0.], [1., 0., 3.]]), np.arange(6.).reshape(3, 2)
    res = {}
    for m in (litnn, torch):
        S, D = T(m, s).to_sparse(), T(m, d)
        h = m.hspmm(S, D)
        res[m] = (m.dsmm(S, D), h.to_dense(), h._indices(), h._values(), m.hsmm(S, D).to_dense(),
                  m.saddmm(T(m, np.eye(3)).to_sparse(), S, T(m, np.ones((3, 3))), beta=2, alpha=3).to_dense())
        assert h.is_sparse and h.sparse_dim() == 1 and h.dense_dim() == 1
    for a, b in zip(res[litnn], res[torch]): close(a, b)
    grads_match(lambda m, D: m.dsmm(T(m, s).to_sparse(), D), [d])
    both_raise(lambda m: m.hspmm(T(m, s), T(m, d)), lambda m: m.hspmm(T(m, s), T(m, d)), exact=False)
    both_raise(lambda m: m.hspmm(T(m, s).to_sparse(), T(m, d).to_sparse()), lambda m: m.hspmm(T(m, s).to_sparse(), T(m, d).to_sparse()))


# ---- build flags, error classes, aliases and the complex legacy storages (reference/torch/small_namespaces, storage)
def test_build_flags_aliases_and_error_classes_as_torch():
    import litnn, torch
    for n in ('has_lapack', 'has_spectral', 'has_openmp', 'has_mkl', 'TYPE_CHECKING'):
        assert type(getattr(litnn, n)) is type(getattr(torch, n)) is bool
    assert litnn.has_lapack and litnn.has_spectral and litnn.TYPE_CHECKING is torch.TYPE_CHECKING
    assert litnn.GradScaler is litnn.amp.GradScaler and torch.GradScaler is torch.amp.GradScaler
    assert repr(litnn.legacy_contiguous_format).replace('litnn', 'torch') == repr(torch.legacy_contiguous_format)
    for n in ('OutOfMemoryError', 'AcceleratorError'):
        assert issubclass(getattr(litnn, n), RuntimeError) and issubclass(getattr(torch, n), RuntimeError)

@pytest.mark.parametrize('name', ['ComplexFloatStorage', 'ComplexDoubleStorage'])
def test_complex_legacy_storages_as_torch(name):
    import warnings, litnn, torch
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        mine, theirs = getattr(litnn, name)([1 + 2j, 3, -1j]), getattr(torch, name)([1 + 2j, 3, -1j])
        assert [mine[i] for i in range(3)] == [theirs[i] for i in range(3)]
        assert all(type(mine[i]) is complex for i in range(3))
        assert str(mine.dtype).split('.')[-1] == str(theirs.dtype).split('.')[-1] and mine.type().replace('litnn', 'torch') == theirs.type()
        assert mine.size() == theirs.size() and mine.element_size() == theirs.element_size()


@pytest.mark.parametrize('reduce, initial', [('max', 0), ('max', None), ('min', 1000), ('min', None), ('prod', 2), ('prod', None),
                                             ('sum', 1.5), ('mean', None), ('max', 10)])
def test_segment_reduce_gradients_with_nan_and_ties_as_torch(reduce, initial):
    "torch's segment kernel: max/min share the gradient among the elements equal to the result (a NaN equal to a NaN), prod gives each the product of the others."
    got = []
    for lib in (torch, litnn):
        d = lib.tensor([1., float('nan'), 3., 4., 5., 5., 2., 0., 7.], dtype=lib.float64, requires_grad=True)
        out = lib.segment_reduce(d, reduce, lengths=lib.tensor([1, 2, 3, 0, 3]), initial=initial)
        (out * lib.arange(1., 6., dtype=lib.float64)).nan_to_num(0.).sum().backward()
        got.append((np.nan_to_num(out.detach().numpy(), nan=-99.).tolist(), np.nan_to_num(d.grad.numpy(), nan=-99.).tolist()))
    assert got[0] == got[1]


def test_functional_conv_tbc_is_torchs_and_contiguous():
    "torch.nn.functional.conv_tbc is torch.conv_tbc; its (time, batch, out) result is contiguous."
    assert litnn.nn.functional.conv_tbc is litnn.conv_tbc and torch.nn.functional.conv_tbc is torch.conv_tbc
    arrays = [rng.normal(size=s) for s in [(9, 4, 5), (3, 5, 6), (6,)]]
    def run(m):
        y = m.nn.functional.conv_tbc(*(m.tensor(a) for a in arrays), 3)
        return tuple(y.shape), y.stride(), y.detach().numpy()
    (s1, st1, a1), (s2, st2, a2) = run(litnn), run(torch)
    assert (s1, st1) == (s2, st2) and np.allclose(a1, a2)

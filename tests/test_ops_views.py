"""Views, shape operations, joining/splitting and conversions (litnn.views, litnn.dims,
litnn.conversions), indexing and
`__setitem__` (litnn.indexing) against torch: values, dtypes, grad_fn names, gradients (finite
differences and torch's), memory sharing and version counters, errors, and random slicing with
hypothesis."""
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip('torch')
from hypothesis import given, settings, strategies as st, HealthCheck

DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])
rng = np.random.default_rng(0)

def R(*shape): return rng.standard_normal(shape)
def I(*vals): return np.array(vals[0] if len(vals) == 1 else vals, dtype=np.int64)

@pytest.fixture(autouse=True)
def grad_mode_on():
    yield
    litnn.set_grad_enabled(True); torch.set_grad_enabled(True)

def host(t): return np.asarray(t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().cpu().numpy())

def make(lib, a, dev='cpu'):
    "A tensor of `a` in `lib`; floating arrays require grad."
    f = a.dtype.kind == 'f'
    if lib is torch: return torch.tensor(a, requires_grad=f)
    return litnn.tensor(a, device=dev, requires_grad=f)

def node(t): return None if t.grad_fn is None else type(t.grad_fn).__name__

def check(f, *arrays, dev='cpu', name=True, grads=True):
    "Run `f(lib, *tensors)` in litnn and torch: same values, dtypes, grad_fn names and input gradients."
    lx, tx = [make(litnn, a, dev) for a in arrays], [make(torch, a) for a in arrays]
    lo, to = f(litnn, *lx), f(torch, *tx)
    lo, to = (lo, to) if isinstance(to, (tuple, list)) else ((lo,), (to,))
    assert len(lo) == len(to)
    for l, t in zip(lo, to):
        assert tuple(l.shape) == tuple(t.shape)
        assert l.dtype.name == str(t.dtype).removeprefix('torch.')
        np.testing.assert_allclose(host(l), host(t), rtol=1e-12, atol=0)
        if name: assert node(l) == node(t), (node(l), node(t))
    if not grads: return lo
    outs = [(l, t) for l, t in zip(lo, to) if t.requires_grad]
    if not outs: return lo
    gs = [R(*t.shape) for _, t in outs]
    litnn.autograd.backward([l for l, _ in outs], [litnn.tensor(g, dtype=l.dtype, device=dev) for g, (l, _) in zip(gs, outs)])
    torch.autograd.backward([t for _, t in outs], [torch.tensor(g, dtype=t.dtype) for g, (_, t) in zip(gs, outs)])
    for l, t in zip(lx, tx):
        if t.grad is None: assert l.grad is None
        else:
            assert l.grad.dtype.name == str(t.grad.dtype).removeprefix('torch.')
            np.testing.assert_allclose(host(l.grad), host(t.grad), rtol=1e-12, atol=1e-12)
    return lo

# (id, f(lib, *tensors), arrays, options for `check`)
x3 = R(2, 3, 4)
m3 = x3 > 0
CASES = [
    ('view', lambda L, x: x.view(6, 4), [x3], {}),
    ('view_infer', lambda L, x: x.view(-1, 2, 2), [x3], {}),
    ('view_tuple', lambda L, x: x.view((4, 6)), [x3], {}),
    ('reshape', lambda L, x: x.reshape(4, -1), [x3], {}),
    ('reshape_fn', lambda L, x: L.reshape(x, (24,)), [x3], {}),
    ('reshape_copy', lambda L, x: x.transpose(0, 1).reshape(-1), [x3], {'name': False}),   # torch: UnsafeViewBackward0
    ('flatten', lambda L, x: x.flatten(), [x3], {}),
    ('flatten_mid', lambda L, x: L.flatten(x, 1), [x3], {}),
    ('flatten_01', lambda L, x: x.flatten(0, 1), [x3], {}),
    ('unflatten', lambda L, x: x.unflatten(2, (2, -1)), [x3], {}),
    ('squeeze_all', lambda L, x: x.squeeze(), [R(2, 1, 3, 1)], {}),
    ('squeeze_dim', lambda L, x: x.squeeze(1), [R(2, 1, 3, 1)], {}),
    ('squeeze_noop', lambda L, x: x.squeeze(0), [R(2, 1, 3, 1)], {}),
    ('squeeze_dims', lambda L, x: L.squeeze(x, (1, -1)), [R(2, 1, 3, 1)], {}),
    ('unsqueeze', lambda L, x: x.unsqueeze(0), [x3], {}),
    ('unsqueeze_neg', lambda L, x: L.unsqueeze(x, -2), [x3], {}),
    ('transpose', lambda L, x: x.transpose(0, 2), [x3], {}),
    ('swapaxes', lambda L, x: L.swapaxes(x, -1, 0), [x3], {}),
    ('swapdims', lambda L, x: x.swapdims(1, 2), [x3], {}),
    ('t', lambda L, x: x.t(), [R(3, 4)], {}),
    ('t_1d', lambda L, x: L.t(x), [R(3)], {}),
    ('T', lambda L, x: x.T, [R(3, 4)], {}),
    ('mT', lambda L, x: x.mT, [x3], {}),
    ('permute', lambda L, x: x.permute(2, 0, 1), [x3], {}),
    ('permute_tuple', lambda L, x: L.permute(x, (1, -1, 0)), [x3], {}),
    ('movedim', lambda L, x: x.movedim(0, -1), [x3], {}),
    ('movedim_many', lambda L, x: L.movedim(x, (0, 1), (2, 0)), [x3], {}),
    ('expand', lambda L, x: x.expand(2, 3, 4), [R(3, 1)], {}),
    ('expand_as', lambda L, x, y: x.expand_as(y), [R(3, 1), x3], {}),
    ('repeat', lambda L, x: x.repeat(2, 1, 3), [x3], {}),
    ('repeat_new_dims', lambda L, x: x.repeat(2, 2, 1), [R(3, 2)], {}),
    ('tile', lambda L, x: L.tile(x, (2,)), [R(3, 2)], {}),
    ('chunk', lambda L, x: x.chunk(2, 1), [x3], {}),
    ('chunk_uneven', lambda L, x: L.chunk(x, 3, 2), [R(2, 3, 5)], {}),
    ('split', lambda L, x: x.split(3, 2), [x3], {}),
    ('split_sizes', lambda L, x: L.split(x, [1, 3], -1), [x3], {}),
    ('unbind', lambda L, x: x.unbind(1), [x3], {}),
    ('unbind_fn', lambda L, x: L.unbind(x), [x3], {}),
    ('narrow', lambda L, x: x.narrow(2, 1, 2), [x3], {}),
    ('narrow_neg', lambda L, x: L.narrow(x, -1, -3, 2), [x3], {}),
    ('select', lambda L, x: x.select(1, -1), [x3], {}),
    ('stack', lambda L, x, y: L.stack([x, y], 1), [x3, R(2, 3, 4)], {}),
    ('stack_last', lambda L, x, y: L.stack((x, y), -1), [x3, R(2, 3, 4)], {}),
    ('cat', lambda L, x, y: L.cat([x, y], 1), [x3, R(2, 1, 4)], {}),
    ('cat_neg', lambda L, x, y: L.concat([x, y], -1), [x3, R(2, 3, 2)], {}),
    ('concatenate', lambda L, x, y: L.concatenate([x, y]), [x3, R(1, 3, 4)], {}),
    ('cat_promote', lambda L, x, y: L.cat([x.float(), y]), [x3, R(1, 3, 4)], {}),
    ('cat_int', lambda L, x, y: L.cat([x, y]), [R(2, 2), I([[1, 2]])], {}),
    ('cat_empty', lambda L, x, y: L.cat([x, y, x], 0), [R(2, 2), np.zeros(0)], {}),
    ('flip', lambda L, x: x.flip(0, 2), [x3], {}),
    ('flip_fn', lambda L, x: L.flip(x, [-1]), [x3], {}),
    ('tril', lambda L, x: x.tril(), [x3], {}),
    ('triu', lambda L, x: L.triu(x, 1), [x3], {}),
    ('tril_neg', lambda L, x: L.tril(x, -1), [R(4, 3)], {}),
    ('gather', lambda L, x, i: x.gather(1, i), [R(3, 4), I([[0, 0], [3, 1], [2, 2]])], {}),
    ('gather_small', lambda L, x, i: L.gather(x, 0, i), [R(3, 4), I([[0, 2, 2]])], {}),
    ('gather_3d', lambda L, x, i: x.gather(-1, i), [x3, rng.integers(0, 4, (2, 3, 5))], {}),
    ('index_select', lambda L, x, i: x.index_select(1, i), [x3, I(2, 0, 2)], {}),
    ('index_select_0', lambda L, x, i: L.index_select(x, 0, i), [x3, I(1, 1)], {}),
    ('masked_fill', lambda L, x: x.masked_fill(L.tensor(m3), 2.5), [x3], {}),
    ('masked_fill_bcast', lambda L, x, m: x.masked_fill(m, -1.), [x3, np.array([[True], [False], [True]])], {}),
    ('masked_fill_bigger_mask', lambda L, x, m: L.masked_fill(x, m, 0.), [R(3, 1), rng.random((2, 3, 4)) > 0.5], {}),
    ('masked_fill_tensor', lambda L, x, v: x.masked_fill(L.tensor(~m3), v), [x3, np.array(3.)], {}),
    ('masked_fill_0d_tensor', lambda L, x, v: x.masked_fill(L.tensor(True), v), [np.array(-4.8), np.array(-1.5)], {}),   # ~ of a 0-d mask is a numpy scalar
    ('scatter_add', lambda L, x, i, s: x.scatter_add(1, i, s), [R(3, 4), I([[0, 0], [3, 1], [2, 2]]), R(3, 2)], {}),
    ('scatter_add_bigger_src', lambda L, x, i, s: L.scatter_add(x, 0, i, s), [R(3, 4), I([[0, 2, 2]]), R(2, 4)], {'grads': False}),   # torch's backward fails here
    ('to_float', lambda L, x: x.to(L.float32), [x3], {}),
    ('float', lambda L, x: x.float(), [x3], {}),
    ('half_double', lambda L, x: x.half().double(), [x3], {}),
    ('to_int', lambda L, x: x.to(L.int32), [x3], {}),
    ('long', lambda L, x: x.long(), [x3], {}),
    ('clone', lambda L, x: x.clone(), [x3], {}),
    ('clone_fn', lambda L, x: L.clone(x.t()), [R(3, 4)], {}),
    ('contiguous', lambda L, x: x.transpose(0, 1).contiguous(), [x3], {}),
]

@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_against_torch(case, dev):
    _, f, arrays, opts = case
    check(f, *arrays, dev=dev, **opts)

# float32 casts are too coarse for finite differences; gradcheck mishandles empty inputs (cat_empty)
GRADCHECK = [c for c in CASES if c[0] not in ('to_int', 'long', 'half_double', 'float', 'to_float', 'cat_promote', 'cat_empty')]

@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('case', GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(case, dev):
    _, f, arrays, _ = case
    xs = [make(litnn, a, dev) for a in arrays]
    if any(x.requires_grad for x in xs): assert gradcheck(lambda *a: f(litnn, *a), xs)

SECOND = ['view', 'squeeze_all', 'permute', 'repeat', 'chunk', 'unbind', 'cat', 'stack', 'gather', 'index_select',
          'masked_fill_tensor', 'scatter_add', 'narrow', 'flip', 'tril', 'expand']

def double_backward_check(f, xs):
    "Backward is differentiable: gradcheck (x, g) -> d<f(x), g>/dx, with the upstream gradient g an input too."
    outs = [o for o in (f(*xs) if isinstance(f(*xs), tuple) else (f(*xs),)) if o.requires_grad]
    gs = [litnn.tensor(R(*o.shape), device=o.device, requires_grad=True) for o in outs]
    n = len(xs)
    def first(*args):
        xs2, gs2 = args[:n], args[n:]
        o = f(*xs2)
        o = [t for t in (o if isinstance(o, tuple) else (o,)) if t.requires_grad]
        wrt = [x for x in xs2 if x.requires_grad]
        return tuple(g for g in litnn.autograd.grad(o, wrt, gs2, create_graph=True, allow_unused=True) if g is not None)
    return gradcheck(first, list(xs) + gs)

@pytest.mark.parametrize('case', [c for c in CASES if c[0] in SECOND], ids=SECOND)
def test_double_backward(case):
    _, f, arrays, _ = case
    assert double_backward_check(lambda *a: f(litnn, *a), [make(litnn, a) for a in arrays])

## indexing

M = R(4, 5, 3)
mask = M[..., 0] > 0
KEYS = [
    ('int', lambda i: 0), ('neg_int', lambda i: -1), ('slice', lambda i: slice(1, None)), ('step', lambda i: slice(None, None, 2)),
    ('full_slice', lambda i: slice(None)), ('int_slice', lambda i: (1, slice(1, 4))), ('colon_int', lambda i: (slice(None), 2)),
    ('ellipsis_int', lambda i: (Ellipsis, 1)), ('none', lambda i: None), ('none_mid', lambda i: (slice(None), None)),
    ('int_none', lambda i: (1, None)), ('ellipsis_none', lambda i: (1, Ellipsis, None)), ('all_ints', lambda i: (1, 2, 0)),
    ('ellipsis', lambda i: Ellipsis), ('empty_tuple', lambda i: ()), ('colons', lambda i: (slice(None), slice(None))),
    ('tensor_idx', lambda i: i([0, 2, 0, 3])), ('list_idx', lambda i: [1, 1, 0]), ('idx_2d', lambda i: i([[0, 1], [1, 1]])),
    ('colon_idx', lambda i: (slice(None), i([4, 0, 4]))), ('idx_slice', lambda i: (i([3, 3]), slice(1, 4))),
    ('int_idx', lambda i: (0, i([1, 1, 2]))), ('idx_idx', lambda i: (i([0, 1, 1]), i([2, 2, 4]))),
    ('idx_sep', lambda i: (i([0, 1, 1]), slice(None), i([2, 2, 0]))), ('idx_neg', lambda i: i([-1, 0, -1])),
    ('zero_d_int_tensor', lambda i: i(2)), ('mask', lambda i: i(mask)), ('mask_np', lambda i: mask),
    ('mask_colon', lambda i: (slice(None), i(M[0, :, 0] > 0))), ('bool_list', lambda i: [True, False, True, True]),
    ('two_ellipses', lambda i: (Ellipsis, 1, Ellipsis)), ('ellipsis_none_ellipsis', lambda i: (Ellipsis, None, Ellipsis)),   # torch: a second ... is no dims
    ('idx_two_ellipses', lambda i: (i([0, 1]), Ellipsis, Ellipsis)),
]

@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('key', KEYS, ids=[k[0] for k in KEYS])
def test_getitem(key, dev):
    _, k = key
    check(lambda L, x: x[k(lambda v: L.tensor(v) if L is torch else L.tensor(v, device=dev))], M, dev=dev)
    assert gradcheck(lambda x: x[k(lambda v: litnn.tensor(v, device=dev))], [litnn.tensor(R(4, 5, 3), device=dev, requires_grad=True)])

def test_index_accumulates_repeats():
    x = litnn.tensor(R(3, 2), requires_grad=True)
    x[litnn.tensor([0, 0, 2, 0])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3, 3], [0, 0], [1, 1]])
    y = litnn.tensor(R(2, 3), requires_grad=True)
    (y[:, [1, 1]] * 2).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[0, 4, 0]] * 2)

def test_index_higher_order():
    x = litnn.tensor(R(3, 2), requires_grad=True)
    assert gradgradcheck(lambda x: x[litnn.tensor([0, 0, 2])] * x, [x])
    assert gradgradcheck(lambda x: x[1, None] * x[:, 0:1], [x])
    for k in [litnn.tensor([0, 0, 2]), (1, slice(None)), (slice(1, None), litnn.tensor([1, 1])), litnn.tensor([[True, False], [True, True], [False, False]])]:
        assert double_backward_check(lambda x: x[k], [x])

def test_int_with_index_arrays_torch_order():
    "An integer separated from index tensors by a slice: torch selects first (numpy would move dims)."
    a = R(3, 4, 5)
    check(lambda L, x: x[0, :, L.tensor([1, 2, 1])], a)
    check(lambda L, x: x[L.tensor([1, 0]), :, 2], a)
    check(lambda L, x: x[:, 1, L.tensor([[0, 1]])], a)
    check(lambda L, x: x[None, 1, ..., L.tensor([4, 4])], a)
    def f(L, x, v):
        y = x * 1
        y[0, :, L.tensor([1, 1, 3])] = v
        return y
    check(f, a, R(4, 1))

def test_index_errors():
    x, t = litnn.ones(3, 4), torch.ones(3, 4)
    for k in [3, (0, 4), (0, 0, 0), [5], (slice(None), [-5])]:
        with pytest.raises(IndexError): t[k]
        with pytest.raises(IndexError): x[k]
    for f in [lambda L: L.ones(3)[L.tensor([0.])], lambda L: L.ones(3)[1.5], lambda L: L.tensor(1.)[0],
              lambda L: L.ones(3, 4)[L.ones(3, 1, dtype=L.bool)]]:
        with pytest.raises(IndexError): f(torch)
        with pytest.raises(IndexError): f(litnn)
    with pytest.raises(ValueError, match='step must be greater than zero'): x[::-1]
    with pytest.raises(ValueError): t[::-1]
    for k in ['a', b'a', (0, 'a'), [[0, 1], 'a']]:         # torch reads a string as a sequence to make an index tensor of: TypeError
        with pytest.raises(TypeError, match=r"new\(\): invalid data type '(str|bytes)'"): t[k]
        with pytest.raises(TypeError, match=r"new\(\): invalid data type '(str|bytes)'"): x[k]

@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_slicing(data):
    "Random basic (and integer-array) indexing: same values as numpy, same gradients as torch."
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    a = rng.standard_normal(shape)
    key, dim = [], 0
    for _ in range(data.draw(st.integers(0, len(shape) + 1))):
        kind = data.draw(st.sampled_from(['int', 'slice', 'none', 'array']))
        if kind == 'none': key.append(None); continue
        if dim >= len(shape): break
        n = shape[dim]
        if kind == 'int' and n: key.append(data.draw(st.integers(-n, n - 1)))
        elif kind == 'array' and n: key.append(np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))))
        else: key.append(slice(data.draw(st.none() | st.integers(-5, 5)), data.draw(st.none() | st.integers(-5, 5)), data.draw(st.none() | st.integers(1, 3))))
        dim += 1
    if data.draw(st.booleans()): key.append(Ellipsis)
    key = tuple(key)
    first = next((i for i, k in enumerate(key) if isinstance(k, np.ndarray)), None)    # one index array at most
    key = tuple(slice(None) if isinstance(k, np.ndarray) and i != first else k for i, k in enumerate(key))
    x = litnn.tensor(a, requires_grad=True)
    y = x[key]
    t = torch.tensor(a, requires_grad=True)
    tk = tuple(torch.tensor(k) if isinstance(k, np.ndarray) else k for k in key)
    u = t[tk]
    np.testing.assert_array_equal(y.detach().numpy(), u.detach().numpy())
    if not (any(isinstance(k, np.ndarray) for k in key) and any(isinstance(k, int) for k in key)):
        np.testing.assert_array_equal(y.detach().numpy(), a[key])     # numpy agrees, but for ints among arrays
    if not any(isinstance(k, np.ndarray) for k in key):
        assert y._is_view() and u._is_view() and y._base is x
    g = np.asarray(rng.standard_normal(u.shape))
    y.backward(litnn.tensor(g)); u.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    # the same index, written to (unless an element repeats: which write wins is unspecified)
    pos = torch.arange(a.size).reshape(shape)[tk]
    if len(np.unique(pos.numpy())) < pos.numel(): return
    v, g2 = np.asarray(rng.standard_normal(u.shape)), np.asarray(rng.standard_normal(shape))
    res = []
    for lib in (litnn, torch):
        x, w = lib.tensor(a, requires_grad=True), lib.tensor(v, requires_grad=True)
        z = x * 1
        z[key if lib is litnn else tk] = w
        z.backward(lib.tensor(g2))
        res.append([r.detach().numpy() for r in (z, x.grad, w.grad)])
    for l, r in zip(*res): np.testing.assert_array_equal(l, r)

## views share memory and the version counter

VIEWS = [lambda x: x.view(-1), lambda x: x.reshape(4, 3), lambda x: x[1], lambda x: x[:, 1:], lambda x: x[None],
         lambda x: x.t(), lambda x: x.T, lambda x: x.permute(1, 0), lambda x: x.transpose(0, 1), lambda x: x.unsqueeze(1),
         lambda x: x[:1].squeeze(0), lambda x: x.narrow(1, 1, 2), lambda x: x.select(0, 2), lambda x: x.split(2, 1)[1],
         lambda x: x.chunk(2)[0], lambda x: x.unbind(1)[2], lambda x: x.flatten(), lambda x: x.unflatten(1, (2, 2)),
         lambda x: x[:, :1].expand(3, 4), lambda x: x.movedim(0, 1), lambda x: x[...], lambda x: x.mT, lambda x: x[0][1:][0]]

@pytest.mark.parametrize('i', range(len(VIEWS)))
def test_views_share_memory_and_version(i):
    base = litnn.tensor(R(3, 4))
    v = VIEWS[i](base)
    t = VIEWS[i](torch.tensor(R(3, 4)))
    assert v._is_view() and t._is_view()
    assert v._base is base
    with litnn.no_grad(): base.add_(1)
    assert v._version == base._version == 1
    if i != 18:   # an expanded view is read-only
        with litnn.no_grad(): v.mul_(2)
        assert base._version == 2
    np.testing.assert_array_equal(host(v), host(VIEWS[i](base)))

def test_not_views():
    x = litnn.tensor(R(3, 4))
    for f in [lambda x: x[[0, 1]], lambda x: x.flip(0), lambda x: x.repeat(1, 2), lambda x: x.clone(), lambda x: x.t().contiguous(),
              lambda x: x.t().reshape(-1), lambda x: litnn.cat([x, x]), lambda x: x.detach(), lambda x: x.double()]:
        y = f(x)
        assert not y._is_view()
    assert x.contiguous() is x and x.contiguous()._base is None

@pytest.mark.parametrize('view', [lambda y: y[0], lambda y: y.view(-1), lambda y: y.t(), lambda y: y[:, 1:]])
def test_inplace_through_view_detected(view):
    "Saving the base, then changing a view in place, makes backward raise, as torch."
    for lib in (torch, litnn):
        a = lib.tensor(R(2, 3), requires_grad=True)
        b = a * 2
        c = b * b                         # saves b
        with lib.no_grad(): view(b).mul_(3)
        with pytest.raises(RuntimeError, match='modified by an inplace operation'): c.sum().backward()

def test_inplace_on_view_with_grad():
    "In-place ops that need gradients on views: torch's leaf error; on a non-leaf the base's history is rewritten (17c_inplace_on_views)."
    res = []
    for lib in (torch, litnn):
        w = lib.ones(3, requires_grad=True)
        def write(): w[:2][0] = 5.
        with pytest.raises(RuntimeError, match='a view of a leaf Variable that requires grad'): write()
        with pytest.raises(RuntimeError, match='in-place operation'): w[0].mul_(2)
        y = w * 1
        v = y[1:]
        s = lib.tensor(3., requires_grad=True)
        v[0] = s
        with lib.no_grad(): v.mul_(2)
        (y * lib.tensor([1., 2., 3.])).sum().backward()
        res.append((y.tolist(), type(y.grad_fn).__name__, type(v.grad_fn).__name__, w.grad.tolist(), s.grad.tolist(), y._version))
    assert res[0] == res[1]

def test_inplace_on_view_refused_before_writing():
    for lib in (torch, litnn):
        y = lib.ones(3, requires_grad=True) * 1
        with pytest.raises(RuntimeError, match='multiple views'): y.unbind(0)[1].mul_(2)
        with lib.no_grad(): v = y[1:]
        with pytest.raises(RuntimeError, match='no_grad mode'): v.mul_(2)
        assert y.tolist() == [1., 1., 1.] and y._version == 0

def test_view_incompatible():
    for lib in (torch, litnn):
        x = lib.ones(2, 3, 4)
        with pytest.raises(RuntimeError, match='view size is not compatible'): x.transpose(0, 1).view(-1)
        with pytest.raises(RuntimeError, match='invalid for input of size 24'): x.view(5, -1)
        with pytest.raises(RuntimeError, match='only one dimension can be inferred'): x.view(-1, -1)
        assert x.transpose(0, 1).view(3, 2, 2, 2).shape == (3, 2, 2, 2)     # splitting a dim is fine
        assert x[:, 1:].view(2, 2, 2, 2).shape == (2, 2, 2, 2)
    np.testing.assert_array_equal(litnn.ones(2, dtype=litnn.int32).view(litnn.float32).numpy(), torch.ones(2, dtype=torch.int32).view(torch.float32).numpy())

@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_viewable_matches_torch(shape, data):
    "`_viewable` agrees with torch's view and numpy's copy-free reshape on random strided layouts."
    from litnn._views import _viewable
    a = np.arange(np.prod(shape) * 2.).reshape(shape + [2])[..., 0]     # non-contiguous
    perm = data.draw(st.permutations(range(len(shape))))
    a = a.transpose(perm)
    n = a.size
    divs = [d for d in range(1, n + 1) if n % d == 0]
    new = [data.draw(st.sampled_from(divs))]
    new.append(n // new[0])
    if data.draw(st.booleans()): new.insert(data.draw(st.integers(0, 2)), 1)
    t = torch.from_numpy(a)
    try: t.view(new); tv = True
    except RuntimeError: tv = False
    assert _viewable(a, tuple(new)) == tv == np.shares_memory(a.reshape(new), a)

## __setitem__ (CopySlices)

MASK34 = R(3, 4) > 0
SETS = [
    ('int_scalar', lambda L, x, v: (0, 5.)), ('slice_tensor', lambda L, x, v: (slice(1, None), v)),
    ('idx_tensor', lambda L, x, v: (L.tensor([2, 0]), v)), ('mask', lambda L, x, v: (L.tensor(MASK34), 1.5)),
    ('colon_int', lambda L, x, v: ((slice(None), 1), v[0, 0])), ('broadcast_row', lambda L, x, v: ((slice(1, 3),), v[0])),
    ('leading_ones', lambda L, x, v: (1, v[:1])), ('ellipsis', lambda L, x, v: (Ellipsis, v[:1])),   # torch: CopyBackwards
    ('colon_idx', lambda L, x, v: ((slice(None), L.tensor([3, 0])), v.t()[:3])), ('slice_idx', lambda L, x, v: ((slice(1, None), L.tensor([3, 0])), v.t()[:1])),
    ('colons', lambda L, x, v: ((slice(None), slice(None)), v[1])), ('none', lambda L, x, v: (None, v[1])),
]

@pytest.mark.parametrize('dev', DEVICES)
@pytest.mark.parametrize('case', SETS, ids=[c[0] for c in SETS])
def test_setitem_against_torch(case, dev):
    _, kv = case
    def f(L, x, v):
        y = x * 1
        k, val = kv(L, x, v)
        y[k] = val
        return y
    check(f, R(3, 4), R(2, 4), dev=dev, name=case[0] not in ('ellipsis', 'colons'))
    assert gradcheck(lambda x, v: f(litnn, x, v), [litnn.tensor(R(3, 4), requires_grad=True, device=dev), litnn.tensor(R(2, 4), requires_grad=True, device=dev)])

def test_setitem_higher_order():
    def f(x, v):
        y = x * x
        y[1:, litnn.tensor([0, 2])] = v * v
        return y
    assert gradgradcheck(f, [litnn.tensor(R(3, 4), requires_grad=True), litnn.tensor(R(2, 2), requires_grad=True)])

def test_setitem_plain_and_errors():
    for lib in (torch, litnn):
        x = lib.zeros(2, 3)
        x[0] = 7
        x[1, lib.tensor([0, 2])] = lib.tensor([1., 2.])
        x[0, 1:] = lib.tensor([3, 4])                         # int values cast to float
        assert x.tolist() == [[7., 3., 4.], [1., 0., 2.]] and x._version == 3
        assert not x.requires_grad and x.grad_fn is None
        i = lib.zeros(3, dtype=lib.int64)
        i[1] = 2.7
        assert i.tolist() == [0, 2, 0]
        w = lib.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match='leaf Variable that requires grad'): w[0] = 1.
        with lib.no_grad(): w[0] = 1.
        assert w.tolist() == [1., 0., 0.] and w.grad_fn is None and w._version == 1
        y = lib.zeros(2, 2)
        v = lib.ones(2, requires_grad=True)
        y[0] = v                                           # a tensor that needs no grad takes history from value
        assert type(y.grad_fn).__name__ == 'CopySlices' and y.grad_fn.name() == 'torch::autograd::CopySlices'
        assert y.requires_grad
        y.sum().backward()
        assert v.grad.tolist() == [1., 1.]

def test_setitem_saved_version():
    for lib in (torch, litnn):
        a = lib.tensor(R(3), requires_grad=True)
        b = a * 1
        c = b * b
        b[0] = 0.
        with pytest.raises(RuntimeError, match='modified by an inplace operation'): c.sum().backward()

def test_masked_fill_and_scatter_add_inplace():
    for lib in (torch, litnn):
        x = lib.tensor([1., -2., 3.])
        x.masked_fill_(lib.tensor([False, True, False]), 0.)
        assert x.tolist() == [1., 0., 3.] and x._version == 1
        x.scatter_add_(0, lib.tensor([0, 0]), lib.tensor([1., 1.]))
        assert x.tolist() == [3., 0., 3.]
    check(lambda L, x: (x * 1).masked_fill_(L.tensor(MASK34), 0.5), R(3, 4))

## errors, same type as torch

ERRORS = [
    lambda L: L.ones(2, 3).permute(0, 1, 1), lambda L: L.ones(2, 3).permute(0), lambda L: L.ones(2, 3).permute(0, 2),
    lambda L: L.ones(2, 3, 4).t(), lambda L: L.ones(3).mT, lambda L: L.ones(2, 3).transpose(0, 2),
    lambda L: L.cat([L.ones(2, 3), L.ones(3, 2)]), lambda L: L.cat([L.ones(2, 3), L.ones(3)]), lambda L: L.cat([]),
    lambda L: L.cat([L.tensor(1.), L.tensor(2.)]), lambda L: L.stack([L.ones(2), L.ones(3)]), lambda L: L.stack([]),
    lambda L: L.stack([L.ones(2)], 2), lambda L: L.ones(2, 3).narrow(1, 2, 2), lambda L: L.ones(2, 3).narrow(1, 4, 0),
    lambda L: L.ones(2, 3).narrow(1, 0, -1), lambda L: L.ones(2, 3).select(0, 2), lambda L: L.tensor(1.).select(0, 0),
    lambda L: L.ones(2, 3).split([1, 1], 1), lambda L: L.ones(2, 3).split(0, 1), lambda L: L.ones(2, 3).split(-1),
    lambda L: L.ones(2, 3).chunk(0), lambda L: L.tensor(1.).unbind(), lambda L: L.ones(2).unbind(1),
    lambda L: L.ones(2, 3).repeat(2), lambda L: L.ones(2, 3).flatten(1, 0), lambda L: L.ones(2, 4).unflatten(1, (3, -1)),
    lambda L: L.ones(2, 3).unsqueeze(3), lambda L: L.ones(2, 3).squeeze(2), lambda L: L.ones(2, 3).flip(0, 0),
    lambda L: L.ones(3).tril(), lambda L: L.ones(2, 3).gather(1, L.zeros(2, 2)), lambda L: L.ones(2, 3).gather(1, L.zeros(2, dtype=L.int64)),
    lambda L: L.ones(2, 3).gather(1, L.zeros(3, 2, dtype=L.int64)), lambda L: L.ones(2, 3).gather(1, L.full((2, 2), 5)),
    lambda L: L.ones(2, 3).index_select(1, L.zeros(2, 2, dtype=L.int64)), lambda L: L.ones(2, 3).index_select(1, L.zeros(1)),
    lambda L: L.ones(2, 3).masked_fill(L.ones(2, 3), 1.), lambda L: L.ones(2, 3).masked_fill(L.ones(3, 2, dtype=L.bool), 1.),
    lambda L: L.ones(2, 3).masked_fill(L.ones(2, 3, dtype=L.bool), L.ones(1)), lambda L: list(L.tensor(1.)),
    lambda L: 'a' in L.ones(2), lambda L: L.ones(2, 3).view(L.int64), lambda L: L.ones(2, 3).movedim((0, 1), (0,)),
    lambda L: L.ones(2).expand(3), lambda L: L.ones(2, 3).masked_fill_(L.ones(2, 2, 3, dtype=L.bool), 1.), lambda L: L.ones(2, 3).scatter_add(1, L.zeros(2, 4, dtype=L.int64), L.ones(2, 3)),
    # a 0-d value tensor is written as value.item(), with a number's overflow check (OpInfo error_inputs)
    lambda L: L.zeros(2, dtype=L.int64).masked_fill(L.tensor(True), L.tensor(1j)),
    lambda L: L.zeros(2, dtype=L.int8).masked_fill(L.tensor(True), L.tensor(1000)),
    # out= that overlaps itself (expanded) or an input: 'unsupported operation' (OpInfo error_inputs)
    lambda L: L.gather(L.arange(6.), 0, L.tensor([0, 1, 2]), out=L.zeros(1).expand(3)),
    lambda L: (lambda x: L.gather(x, 0, L.arange(6), out=x))(L.arange(6.)),
    lambda L: (lambda x: L.take(x, L.tensor([0, 1, 2]), out=x[:3]))(L.arange(6.)),
    lambda L: (lambda x: L.masked_select(x, x > 2, out=x))(L.arange(6.)),
    lambda L: L.masked_select(L.arange(6.), L.arange(6.) > 2, out=L.zeros(1).expand(3)),
    lambda L: L.index_select(L.ones(3, 6), 0, L.tensor([0, 1]), out=L.zeros(1, 6).expand(2, 6)),
    # scatter_add: torch's shape checks, and an index out of bounds (a negative one too: numpy would wrap it)
    lambda L: L.scatter_add(L.ones(3, 5), 0, L.tensor([[34, 0], [0, 0]]), L.ones(2, 5)),
    lambda L: L.scatter_add(L.ones(3, 5), 0, L.tensor([[-1, 0], [0, 0]]), L.ones(2, 5)),
    lambda L: L.scatter_add(L.ones(3, 5), 0, L.zeros(2, 2, dtype=L.int64), L.ones(2, 5, 2)),
    lambda L: L.scatter_add(L.ones(3, 5, 3), 0, L.zeros(2, 2, dtype=L.int64), L.ones(2, 5)),
    lambda L: L.narrow_copy(L.ones(10, 5, 20), 3, 0, 0), lambda L: L.narrow_copy(L.ones(10, 5, 20), -4, 0, 0),   # RuntimeError, IndexError
    lambda L: L.hstack([]), lambda L: L.vstack(()), lambda L: L.dstack([]), lambda L: L.column_stack([]), lambda L: L.row_stack([]),
]

@pytest.mark.parametrize('i', range(len(ERRORS)))
def test_errors(i):
    with pytest.raises(Exception) as te: ERRORS[i](torch)
    with pytest.raises(te.type): ERRORS[i](litnn)

def test_error_messages():
    for lib in (torch, litnn):
        with pytest.raises(RuntimeError, match='Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for tensor number 1'):
            lib.cat([lib.ones(2, 3), lib.ones(3, 2)])
        with pytest.raises(RuntimeError, match='Tensors must have same number of dimensions: got 2 and 1'): lib.cat([lib.ones(2, 3), lib.ones(3)])
        with pytest.raises(RuntimeError, match=r'stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at entry 1'):
            lib.stack([lib.ones(2), lib.ones(3)])
        with pytest.raises(RuntimeError, match='duplicate dims are not allowed'): lib.ones(2, 3).permute(1, 1)
        with pytest.raises(RuntimeError, match=r'start \(2\) \+ length \(2\) exceeds dimension size \(3\)'): lib.ones(2, 3).narrow(1, 2, 2)
        with pytest.raises(RuntimeError, match='split_with_sizes expects split_sizes to sum exactly to 3'): lib.ones(2, 3).split([1, 1], 1)
        with pytest.raises(RuntimeError, match='masked_fill_ only supports boolean masks, but got mask with dtype float'):
            lib.ones(2).masked_fill(lib.ones(2), 0.)

## joining, splitting, iteration

def test_cat_stack_details():
    for lib in (torch, litnn):
        x = lib.ones(2, dtype=lib.int64)
        assert lib.cat([x, lib.tensor([])]).dtype == lib.float32            # empty 1-d tensors still promote
        assert lib.cat([lib.ones(2, 3), lib.tensor([])]).shape == (2, 3)   # ... but are skipped
        assert lib.stack([lib.ones(2, dtype=lib.float32), lib.ones(2, dtype=lib.float64)]).dtype == lib.float64
        assert [p.shape[0] for p in lib.zeros(5).chunk(4)] == [2, 2, 1]
        assert len(lib.zeros(0).split(2)) == 1 and len(lib.zeros(0).chunk(3)) == 3
    a, b = litnn.ones(2, requires_grad=True), litnn.ones(0, requires_grad=True)
    litnn.cat([a, b]).sum().backward()
    assert a.grad.tolist() == [1., 1.] and b.grad.shape == (0,)

def test_split_partial_gradient():
    for lib in (torch, litnn):
        x = lib.tensor(np.arange(6.), requires_grad=True)
        p = x.split(2)
        (p[0] * 2 + 0).sum().backward()
        assert x.grad.tolist() == [2., 2., 0., 0., 0., 0.]

def test_iter_contains_len():
    for lib in (torch, litnn):
        x = lib.tensor([[1, 2], [3, 4]])
        assert [r.tolist() for r in x] == [[1, 2], [3, 4]]
        assert (3 in x, 5 in x, lib.tensor(4) in x, 2.0 in x) == (True, False, True, True)
        assert len(x) == 2
        w = lib.ones(2, 3, requires_grad=True)
        rows = list(w)
        assert type(rows[0].grad_fn).__name__ == 'UnbindBackward0' if lib is torch else rows[0].grad_fn.name() == 'UnbindBackward0'
        (rows[1] * 3).sum().backward()
        assert w.grad.tolist() == [[0., 0., 0.], [3., 3., 3.]]

## conversions

def test_to_forms():
    for lib in (torch, litnn):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        assert x.to(lib.float64) is x and x.to('cpu') is x and x.to(lib.device('cpu')) is x and x.to(x) is x
        assert x.to('cpu', lib.float64) is x and x.to(dtype=lib.float64, device='cpu') is x and x.cpu() is x
        assert x.to(lib.float64, copy=True) is not x and x.to('cpu', copy=True) is not x
        assert x.to(lib.ones(1)).dtype == lib.float32
        assert x.to('cpu', lib.float16).dtype == lib.float16
        assert x.to(lib.float32, True).dtype == lib.float32                 # positional non_blocking
        assert x.to(lib.float32, non_blocking=True).dtype == lib.float32
        assert x.to(float).dtype == lib.float64 and x.to(int).dtype == lib.int64 and x.to(bool).dtype == lib.bool
        for n in ['float', 'double', 'half', 'bfloat16', 'long', 'int', 'short', 'char', 'byte', 'bool']:
            y = getattr(x, n)()
            assert str(y.dtype).rsplit('.', 1)[-1] == str(getattr(torch.ones(1, dtype=torch.float64), n)().dtype).rsplit('.', 1)[-1]
            assert y.requires_grad == y.is_floating_point()
        assert x.long().grad_fn is None and x.float().grad_fn is not None
        assert x.type_as(lib.ones(1, dtype=lib.int32)).dtype == lib.int32
        assert x.double() is x

def test_to_gradient_dtype():
    check(lambda L, x: x.float() * 2, R(3))
    check(lambda L, x, y: x.float() * y.half().float(), R(3), R(3))

@pytest.mark.skipif(litnn.cuda.is_available(), reason='checks the error on a machine without CUDA')
def test_cuda_without_gpu():
    from litnn.backend import to_device
    with pytest.raises(Exception) as e: to_device(np.ones(1), 'cuda')
    x = litnn.ones(2)
    for f in [lambda: x.cuda(), lambda: x.to('cuda'), lambda: x.to('cuda:0', litnn.float64)]:
        with pytest.raises(e.type): f()
    # an index alone names the accelerator's device, which a machine without one refuses first (torch: the same words)
    with pytest.raises(RuntimeError, match='Cannot access accelerator device when none is available'): x.cuda(0)

@pytest.mark.skipif(not litnn.cuda.is_available(), reason='needs a GPU')
def test_cuda_roundtrip():
    x = litnn.tensor(R(3), requires_grad=True)
    y = x.cuda()
    assert y.device.type == 'cuda' and y.grad_fn.name() == 'ToCopyBackward0' and y.cuda() is y
    (y * 2).sum().backward()
    assert x.grad.device.type == 'cpu' and x.grad.tolist() == [2., 2., 2.]
    z = litnn.tensor(R(4, 3), device='cuda')
    assert z[litnn.tensor([0, 0])].device == z.device                   # a CPU index tensor works on a GPU tensor

def test_clone_contiguous_new():
    for lib in (torch, litnn):
        x = lib.tensor(R(3, 4), requires_grad=True)
        assert x.contiguous() is x and x.is_contiguous() and not x.t().is_contiguous()
        c = x.t().contiguous()
        assert c.is_contiguous() and (type(c.grad_fn).__name__ if lib is torch else c.grad_fn.name()) == 'CloneBackward0'
        k = x.clone()
        assert k.data_ptr() != x.data_ptr() and k.tolist() == x.tolist()
        assert x.new_zeros(2, 3).dtype == lib.float64 and x.new_zeros((2, 3)).shape == (2, 3)
        assert x.new_ones(2, dtype=lib.int32).dtype == lib.int32 and x.new_empty(4).shape == (4,)
        assert x.new_full((2,), 3).tolist() == [3., 3.] and x.new_full((2,), 3).dtype == lib.float64
        assert x.new_tensor([1, 2]).dtype == lib.float64 and not x.new_tensor([1., 2.]).requires_grad
        assert x.new_zeros(2, requires_grad=True).requires_grad


def test_index_gradient_with_a_new_axis_before_an_index_array():
    "A None in the key adds an axis and uses no dim of the input: the gradient's bounds check counts dims past it (found by test_random_slicing)."
    for shape, key in [((1, 0), (None, [0])), ((2, 3), (None, slice(None), [2, 2])), ((3,), (None, None, [0, -1, 0]))]:
        grads = []
        for lib in (litnn, torch):
            x = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
            y = x[tuple(lib.tensor(k) if isinstance(k, list) else k for k in key)]
            y.backward(lib.ones(y.shape, dtype=lib.float64))
            grads.append(np.asarray(x.grad.tolist()))
        np.testing.assert_array_equal(grads[0], grads[1])


VIEW_DTYPE_CASES = {
    'offset not divisible': lambda L: L.ones(4, 4, 3)[:, :, 1:].view(L.float64),
    'stride not divisible': lambda L: L.ones(4, 4, 2).as_strided((4, 4, 2), (2, 1, 1)).view(L.float64),
    'last stride not 1': lambda L: L.arange(32.).reshape(4, 8)[:, ::2].view(L.float64),
    'narrower, last stride not 1': lambda L: L.arange(8.).reshape(2, 4).t().view(L.int16),
    '0-d': lambda L: L.tensor(1.0).view(L.float64),
    '0-d same size': lambda L: L.tensor(1.0).view(L.int32),
    'size not divisible': lambda L: L.ones(3, 5).view(L.float64),
    'offset divisible': lambda L: L.arange(12.).reshape(3, 4)[:, 2:4].view(L.float64),
    'narrower slice': lambda L: L.arange(12.).reshape(3, 4)[:, 2:4].view(L.int16),
    'same size, any strides': lambda L: L.arange(12.).reshape(3, 4).t()[::2].view(L.int32),
}

@pytest.mark.parametrize('case', VIEW_DTYPE_CASES)
def test_view_dtype_checks_the_layout_as_torch(case):
    "Between element sizes torch checks the last stride, and for a wider element the size, offset and strides (h8's port)."
    torch = pytest.importorskip('torch')
    got = []
    for L in (torch, litnn):
        try:
            v = VIEW_DTYPE_CASES[case](L)
            got.append((tuple(v.shape), tuple(v.stride()), v.storage_offset(), v.reshape(-1).tolist()))
        except RuntimeError as e: got.append(str(e))
    assert got[0] == got[1]


@pytest.mark.parametrize('size', [0, 1])
def test_unfold_of_a_0d_tensor_as_torch(size):
    torch = pytest.importorskip('torch')
    got = []
    for L in (torch, litnn):
        x = L.tensor(0.5, requires_grad=True)
        y = x.unfold(0, size, 2)
        (y * 3).sum().backward()
        got.append((tuple(y.shape), y.tolist(), x.grad.item()))
    assert got[0] == got[1]


def test_masked_fill_complex_value_into_real():
    "A complex 0-d value with no imaginary part fills a real tensor silently (torch: value.item(), checked for overflow)."
    import warnings
    for lib in (torch, litnn):
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            assert lib.zeros(2, dtype=lib.int64).masked_fill(lib.tensor(True), lib.tensor(1 + 0j)).tolist() == [1, 1]


@pytest.mark.parametrize('call', ['method', 'function'])
@pytest.mark.parametrize('shape,dim,sizes', [((1,), 'A', (1, 1)), ((1,), 0.5, (1, 1)), ((1,), 0, []), ((1,), 0, [2, 2]),
                                             ((), 0, [0]), ((5, 10), 1, (-1, -1)), ((5, 10), 1, (-1, 4)), ((2, 0), 1, (2, -1, 0))])
def test_unflatten_errors_as_torch(call, shape, dim, sizes):
    "unflatten's errors: the argument's position, empty sizes, and torch's wording of infer_size's errors."
    def f(lib):
        x = lib.zeros(shape)
        return x.unflatten(dim, sizes) if call == 'method' else lib.unflatten(x, dim, sizes)
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type) as le: f(litnn)
    assert str(le.value) == str(te.value).split('\nException raised from')[0]

"""Autograd details compared with torch: views whose memory was written where autograd did not record it (no_grad, a
detached alias), batch norm's double backward, activation constructors' errors, `resize_`'s parser, indexing with
`__torch_function__` objects and the identity of Tensor methods under a TorchFunctionMode."""
import pytest
import litnn
torch = pytest.importorskip("torch")

def _outcome(f):
    "What calling `f` gives: its value, or the exception's type name and message."
    try: return f()
    except Exception as e: return (type(e).__name__, str(e).replace('torch', 'litnn'))

def _node(t):
    "The name of `t`'s grad_fn, or the exception reading it raises."
    return _outcome(lambda: type(t.grad_fn).__name__)

# --- item: a view's history after a write autograd did not record --------------------------------------------------

def _nograd_on_view(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]
    with lib.no_grad(): v.mul_(2)
    out = [_node(v), _node(a), v._version, a._version]
    a.sum().backward(retain_graph=True); out.append(x.grad.tolist()); x.grad = None
    v.sum().backward(); out.append(x.grad.tolist())
    return out

def _nograd_on_base(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a.t(); w = a[1, 1:]
    with lib.no_grad(): a[0, 0] = 5
    out = [_node(v), _node(w)]
    (v * lib.arange(6.).view(3, 2)).sum().backward(); out.append(x.grad.tolist())
    return out

def _nograd_on_leaf_base(lib):
    x = lib.ones(2, 3, requires_grad=True); v = x[0]
    with lib.no_grad(): x.mul_(2)
    out = [_node(v), [type(f[0]).__name__ for f in v.grad_fn.next_functions]]
    v.sum().backward(); return out + [x.grad.tolist()]

def _detached_alias(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]
    a.detach().mul_(2)
    return [_node(v), a._version]

def _other_view_then_recorded(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]; w = a[1]
    with lib.no_grad(): w.zero_()
    out = [_node(v), _node(w)]
    w.mul_(2)
    out += [_node(v), _node(w), _node(a)]
    a.sum().backward(); return out + [x.grad.tolist()]

def _hooks_stay(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]; v.retain_grad()
    calls = []
    v.register_hook(lambda g: calls.append(1))
    with lib.no_grad(): a.add_(1)
    (v * 3).sum().backward()
    return [_node(v), v.grad.tolist(), calls, x.grad.tolist()]

def _inference_write(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]
    with lib.inference_mode(): a.mul_(2)
    return [_node(v)]

def _multi_output_views(lib):
    out = []
    for make in (lambda a: a.unbind(0)[1], lambda a: a.split(1)[0], lambda a: a.chunk(2)[1], lambda a: a.unbind(0)[0][1:]):
        for quiet in (False, True):
            x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = make(a)
            if quiet:
                with lib.no_grad(): a.mul_(2)
            else: a.mul_(2)
            out += [_node(v), repr(v), _outcome(lambda: v.sum().tolist())]
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a.unbind(0)[0]
    with lib.no_grad(): v.mul_(2)
    return out + [_node(v), _outcome(lambda: v.mul_(2) and None)]

def _custom_function_view(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x.view_as(x)
        @staticmethod
        def backward(ctx, g): return g
    out = []
    for quiet in (False, True):
        x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = F.apply(a)
        if quiet:
            with lib.no_grad(): a.mul_(2)
        else: a.mul_(2)
        out.append(_node(v))
    return out

def _saved_then_nograd(lib):
    x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]
    y = (a * a).sum()
    with lib.no_grad(): v.mul_(2)
    return [_outcome(lambda: y.backward())]

def _inplace_view_ops(lib):
    out = []
    for op, args in (('t_', ()), ('squeeze_', ()), ('unsqueeze_', (0,)), ('transpose_', (0, 1))):
        for quiet in (True, False):
            for on_view in (False, True):
                x = lib.ones(2, 3, requires_grad=True); a = x.clone(); v = a[0]; w = a[:, 1:]
                t = w if on_view else a
                if quiet:
                    with lib.no_grad(): getattr(t, op)(*args)
                else: getattr(t, op)(*args)
                out.append([_node(v), _node(w), _node(a), a._version])
    return out

@pytest.mark.parametrize("case", [_inplace_view_ops, _nograd_on_view, _nograd_on_base, _nograd_on_leaf_base, _detached_alias, _other_view_then_recorded,
                                  _hooks_stay, _inference_write, _multi_output_views, _custom_function_view, _saved_then_nograd])
def test_view_history_after_unrecorded_write(case):
    assert case(litnn) == case(torch)

# --- item: batch norm's double backward -----------------------------------------------------------------------------

def _summary(t): return None if t is None else round(float(t.detach().abs().sum()), 6)

def _norm_double_backward(lib, make, shape, train):
    lib.manual_seed(0)
    m = make(lib).double()
    if not train: m.eval()
    x = lib.tensor(torch.linspace(-2, 3, steps=int(torch.tensor(shape).prod())).reshape(shape).sin().tolist(), dtype=lib.float64, requires_grad=True)
    ps = list(m.parameters())
    out = []
    for square in (False, True):
        y = m(x)
        w = lib.arange(float(y.numel()), dtype=lib.float64).reshape(y.shape)
        gs = lib.autograd.grad(((y * y) if square else y * w).sum(), [x] + ps, create_graph=True)
        for g in gs:
            out.append(g.grad_fn is not None)
            if g.requires_grad:
                out.append([_summary(t) for t in lib.autograd.grad((g * g).sum() if square else g.sum(), [x] + ps, allow_unused=True, retain_graph=True)])
    return out

@pytest.mark.parametrize("make,shape", [(lambda lib: lib.nn.BatchNorm1d(3, affine=False), (4, 3)),
                                        (lambda lib: lib.nn.BatchNorm1d(3), (4, 3, 5)),
                                        (lambda lib: lib.nn.BatchNorm2d(3, affine=False), (2, 3, 4, 4)),
                                        (lambda lib: lib.nn.BatchNorm2d(3), (2, 3, 2, 2)),
                                        (lambda lib: lib.nn.BatchNorm3d(3, affine=False), (2, 3, 2, 2, 2)),
                                        (lambda lib: lib.nn.BatchNorm3d(3, track_running_stats=False), (2, 3, 2, 2, 2)),
                                        (lambda lib: lib.nn.LayerNorm(3), (4, 3))])
@pytest.mark.parametrize("train", [False, True])
def test_norm_double_backward(make, shape, train):
    a, b = _norm_double_backward(litnn, make, shape, train), _norm_double_backward(torch, make, shape, train)
    assert [x if not isinstance(x, list) else [v is None for v in x] for x in a] == [x if not isinstance(x, list) else [v is None for v in x] for x in b]
    for p, q in zip(a, b):
        if isinstance(p, list): assert p == [pytest.approx(v, rel=1e-6, abs=1e-9) if v is not None else None for v in q]

# --- item: activation modules' constructors with wrong arguments ----------------------------------------------------

_CTOR_CASES = [((1,), {}), ((1, 2), {}), ((), {'x': 2}), ((), {'inplace': 1, 'x': 2}), ((1, 2, 3, 4, 5, 6, 7, 8), {}),
               ((), {'dim': 1, 'foo': 2}), (('a',), {}), ((None,), {}), ((), {'inplace': True}), ((), {'device': 'cpu'})]

def _construct(lib, name, a, k):
    try: m = getattr(lib.nn, name)(*a, **k)
    except Exception as e: return type(e).__name__, str(e)
    return repr(m), [b.__name__ for b in type(m).__mro__ if not b.__name__.startswith('_')][:2]

@pytest.mark.parametrize("name", sorted(torch.nn.modules.activation.__all__))
def test_activation_constructor_errors(name):
    for a, k in _CTOR_CASES:
        assert _construct(litnn, name, a, k) == _construct(torch, name, a, k), (a, k)

def test_hardtanh_old_argument_names():
    for lib in (litnn, torch):
        with pytest.warns(FutureWarning) as rec:
            m = lib.nn.Hardtanh(min_value=-2., max_value=3.)
        assert [str(w.message) for w in rec] == ["keyword argument `min_value` is deprecated and renamed to `min_val`",
                                                 "keyword argument `max_value` is deprecated and renamed to `max_val`"]
        assert repr(m) == 'Hardtanh(min_val=-2.0, max_val=3.0)'
        with pytest.raises(AssertionError, match=r"max_val \(2\) must be greater than min_val \(2\)"): lib.nn.Hardtanh(2, 2)

# --- item: resize_ / resize_as_ behind torch's argument parser --------------------------------------------------------

def _resize_cases(lib):
    out = []
    for args, kw in [((2, 3), {}), (((2, 3),), {}), ((lib.Size([2, 3]),), {}), (([2, 3],), {}), ((6,), {}), ((), {}),
                     ((2.0, 3), {}), ((True, 3), {}), (('a',), {}), ((None,), {}), (((2, 3), 4), {}), ((2, True), {}),
                     ((3.0,), {}), ((True,), {}), ((-1, 3), {}), ((2, -3), {}), (((2, 3.5),), {}), ((lib.tensor([2, 3]),), {}),
                     ((lib.tensor(2), 3), {}), ((), {'size': (2, 3)}), ((2, 3), {'foo': 1}),
                     ((2, 3), {'memory_format': lib.contiguous_format}), ((2, 3, 4, 5), {'memory_format': lib.channels_last}),
                     ((2, 3), {'memory_format': lib.channels_last}), ((2, 3), {'memory_format': lib.preserve_format})]:
        x = lib.zeros(4, 3)
        out.append(_outcome(lambda: (tuple(x.resize_(*args, **kw).shape), x.stride(), x._version)))
    for rg in (True, False):
        x = lib.zeros(4, 3, requires_grad=True)
        y = x if rg else x * 2
        out.append(_outcome(lambda: y.resize_(2, 3)))
    x = lib.zeros(4, 3); v = x[1:]
    out.append(_outcome(lambda: (tuple(v.resize_(5, 3).shape), v.stride(), v._version, x._version)))
    out.append(_outcome(lambda: (tuple(x.resize_as_(lib.zeros(2, 2)).shape), x._version)))
    out.append(_outcome(lambda: x.resize_as_([1, 2])))
    out.append(_outcome(lambda: tuple(x.resize_as_(lib.zeros(2, 3, 4, 5), memory_format=lib.channels_last).stride())))
    out.append(_outcome(lambda: tuple(x.resize_as_(the_template=lib.zeros(3)).shape)))
    return out

def test_resize_parser():
    assert _resize_cases(litnn) == _resize_cases(torch)

@pytest.mark.parametrize("method", ['new_zeros', 'new_ones', 'expand', 'reshape', 'repeat', 'permute', 'tile', 'flip'])
def test_int_list_varargs_after_a_non_int(method):
    "Several positional sizes are a list only when the first is an int; a bool later in the list is an int (torch's parser)."
    for args in [(2.0, 3), (True, 3), (2, 3.0), (2, True), (3.0,), (True,)]:
        got = [_outcome(lambda: tuple(getattr(lib.zeros(6) if method != 'expand' else lib.zeros(1, 1), method)(*args).shape)) for lib in (litnn, torch)]
        assert got[0] == got[1], args

# --- items: indexing with __torch_function__ objects; Tensor methods' identity under a TorchFunctionMode ------------

def _indexing_handed(lib):
    log = []
    class TF:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append((func is lib.Tensor.__getitem__, func is lib.Tensor.__setitem__, [t.__name__ for t in types], len(args), kwargs))
            return 'handled'
        def __index__(self): return 0
    class Sub(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(('Sub', func.__name__, [t.__name__ for t in types]))
            return super().__torch_function__(func, types, args, kwargs or {})
    x = lib.arange(6.).reshape(2, 3)
    out = [x[TF()], x[(TF(), 1)], x[[TF()]], x.__setitem__(TF(), 1.), x.__setitem__(0, TF()), x.__setitem__((TF(), 1), 1.)]
    s = lib.tensor([0, 1]).as_subclass(Sub)
    r = x[s]; out.append((type(r).__name__, r.tolist()))
    y = x.clone(); out.append(y.__setitem__(s, 5.)); out.append(y.tolist())
    y = x.clone(); out.append(y.__setitem__(0, lib.tensor([7., 8, 9]).as_subclass(Sub))); out.append(y.tolist())
    out.append(x[TF():2].tolist())
    return out, log

def test_indexing_hands_torch_function_objects_the_call():
    assert _indexing_handed(litnn) == _indexing_handed(torch)

_METHODS = ['dim', 'numel', 'exp', 'reshape', 'detach', 'abs', 'tolist', 'item', 'backward', 'register_hook', 'split', 'norm',
            'unique', 't', 'permute', 'sum', 'add', 'view', 'relu', 'zero_', 'new', 'storage_offset', 'retain_grad', 'is_complex']

def _mode_sees(lib):
    before = {n: getattr(lib.Tensor, n) for n in _METHODS}
    seen = []
    class M(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    x = lib.ones(2, 3, requires_grad=True)
    with M():
        y = x * 2
        for n in ['dim', 'numel', 'exp', 'detach', 'abs', 'tolist', 'sum', 'relu', 'storage_offset', 't', 'is_complex']: getattr(y, n)()
        y.reshape(6); y.permute(1, 0); y.split(1); y.norm(); y.view(3, 2); y.add(1)
        z = y.detach().clone(); z.zero_(); z[0, 0].item(); z.unique()
        y.retain_grad(); y.register_hook(lambda g: g); y.sum().backward()
    return ([n for n in _METHODS if before[n] is not getattr(lib.Tensor, n)],
            sorted({n for n in _METHODS for f in seen if f is before[n]}))

def test_methods_keep_their_identity_under_a_mode():
    """A registry keyed by `torch.Tensor.X` before any mode or subclass still finds what a TorchFunctionMode is handed
    (each library in a fresh process: litnn turns dispatch on at its first subclass or mode)."""
    import subprocess, sys, pathlib
    code = "import sys, {0} as lib; sys.path.insert(0, {1!r}); import test_autograd_unrecorded_writes_and_identity as t; print(t._mode_sees(lib))"
    here = str(pathlib.Path(__file__).parent)
    got = [subprocess.run([sys.executable, '-c', code.format(m, here)], capture_output=True, text=True, cwd=str(pathlib.Path(here).parent)).stdout
           for m in ('litnn', 'torch')]
    assert got[0] and got[0] == got[1]

def _optimizer_step_on_viewed_parameter(lib):
    out = []
    for name, kw in (('SGD', dict(lr=0.1, momentum=0.9)), ('Adam', dict(lr=0.1)), ('AdamW', dict(lr=0.1)), ('RMSprop', dict(lr=0.1)), ('Adagrad', dict(lr=0.1))):
        p = lib.nn.Parameter(lib.ones(2, 3)); v = p[0]
        with lib.no_grad(): q = p[1]
        opt = getattr(lib.optim, name)([p], **kw)
        (p * p).sum().backward(); opt.step()
        out.append((name, _node(v), _node(q), p._version))
    return out

def test_optimizer_step_regenerates_views():
    "An optimizer step is an in-place change under no_grad: a live view of the parameter regenerates, a no_grad one goes stale."
    assert _optimizer_step_on_viewed_parameter(litnn) == _optimizer_step_on_viewed_parameter(torch)

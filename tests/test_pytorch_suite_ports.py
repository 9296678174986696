"""Differences found by running test files of PyTorch's own suite (test/nn/test_embedding.py, test/nn/test_dropout.py,
test/test_view_ops.py, test/test_type_promotion.py, test/nn/test_pooling.py, ...) with litnn in place of torch; each case
here is self-contained and runs the same call in litnn and in real torch, comparing results or exception types and
messages."""
import warnings
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')
LIBS = [litnn, torch]


def _raised(fn, lib):
    try: fn(lib)
    except Exception as e: return type(e).__name__, str(e).split('\n')[0].replace('litnn', 'torch')
    return None


def _same_error(fn):
    r = [_raised(fn, lib) for lib in LIBS]
    assert r[0] == r[1] and r[1] is not None, r


# test_embedding.py test_embedding_bag_dimension_errors: torch.embedding_bag (the kernel, table first) checks shapes itself
# and raises RuntimeErrors; F.embedding_bag's Python checks raise ValueErrors
@pytest.mark.parametrize('case', [
    lambda L: L.embedding_bag(L.zeros(2, 6, dtype=L.float64), L.full((2, 0, 0, 6, 6), 2), L.zeros(2, 0, 0, 6, 6, dtype=L.int64)),
    lambda L: L.embedding_bag(L.zeros(2, 2, dtype=L.float64), L.ones(2, dtype=L.int64), L.zeros(2, 0, 0, 6, 6, dtype=L.int64)),
    lambda L: L.embedding_bag(L.zeros(2, 2, 2, dtype=L.float64), L.full((2,), 2), L.zeros(2, dtype=L.int64)),
    lambda L: L.nn.functional.embedding_bag(L.full((2, 0, 0, 6, 6), 2), L.zeros(2, 6, dtype=L.float64), L.zeros(2, 0, 0, 6, 6, dtype=L.int64)),
    lambda L: L.nn.functional.embedding_bag(L.full((2,), 2), L.zeros(2, 2, 2, dtype=L.float64), L.zeros(2, dtype=L.int64)),
])
def test_embedding_bag_kernel_shape_errors(case):
    _same_error(case)


def test_meshgrid_indexing_warning_once_per_process():
    # test_tensor_creation_ops.py test_meshgrid_warns_if_no_indexing (assertWarnsOnceRegex): torch warns from C++ once per
    # process (TORCH_WARN_ONCE), and at every call only under set_warn_always(True)
    import warnings
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.meshgrid(lib.tensor([1, 2])); lib.meshgrid(lib.tensor([1, 2]))
        assert len(w) <= 1, lib
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                lib.meshgrid(lib.tensor([1, 2])); lib.meshgrid(lib.tensor([1, 2]), indexing='ij')
            assert len(w) == 1 and str(w[0].message).startswith("torch.meshgrid: in an upcoming release, it will be required to pass the "
                                                                "indexing argument."), lib
        finally:
            lib.set_warn_always(False)


@pytest.mark.parametrize('dtype', ['complex64', 'float32', 'int64'])
def test_view_dtype_refuses_a_lazy_conjugate(dtype):
    # test_view_ops.py test_conj_neg_view_numpy_error: Tensor.view(dtype) of a conjugate view raises, even to its own dtype;
    # resolved (or conjugated back) it views as before
    _same_error(lambda L: L.tensor([1 + 2j, 3j]).conj().view(getattr(L, dtype)))
    for lib in LIBS:
        c = lib.tensor([1 + 2j, 3j]).conj()
        assert c.resolve_conj().view(lib.float32).tolist() == [1.0, -2.0, 0.0, -3.0]
        assert c.conj().view(lib.float32).tolist() == [1.0, 2.0, 0.0, 3.0]


def test_imaginary_part_of_a_lazy_conjugate_has_the_negative_bit():
    # test_view_ops.py test_conj_neg_view_numpy_error / test_conj_imag_view: z.conj().imag is a negative view (is_neg): its
    # views and detach() keep the bit, clone(), resolve_neg() and operations drop it; numpy() and view(dtype) refuse it
    def f(L):
        i = L.tensor([1 + 2j, 3j]).conj().imag
        bits = [i.is_neg(), i[0:1].is_neg(), i.view(2, 1).is_neg(), i.detach().is_neg(), i.clone().is_neg(),
                i.resolve_neg().is_neg(), (i + 0).is_neg(), i.resolve_conj().is_neg(), L.tensor([1 + 2j]).imag.is_neg(),
                L.tensor([1 + 2j]).conj().real.is_neg()]
        return bits, i.tolist(), i.resolve_neg().numpy().tolist()
    assert f(litnn) == f(torch) == ([True, True, True, True, False, False, False, True, False, False], [-2.0, -3.0], [-2.0, -3.0])
    _same_error(lambda L: L.tensor([1 + 2j]).conj().imag.numpy())
    _same_error(lambda L: L.tensor([1 + 2j]).conj().imag.view(L.int32))


# test_serialization.py in the manner of its simple CPU tests: a lazy conjugate (and its imaginary part, a negative view)
# saved and loaded keeps its conjugate (negative) bit and values; litnn's loader refused the bits as attributes
@pytest.mark.parametrize('make', [lambda L: L.tensor([1+2j, 3-1j]).conj(), lambda L: L.tensor([1+2j, 3-1j]).conj().imag,
                                  lambda L: L.tensor([1+2j, 3-1j, 5j]).conj()[1:]])
def test_save_load_keeps_conjugate_and_negative_bits(make):
    import io
    out = []
    for L in LIBS:
        b = io.BytesIO(); L.save(make(L), b); b.seek(0)
        t = L.load(b)
        out.append((t.is_conj(), t.is_neg(), t.resolve_conj().resolve_neg().tolist()))
    assert out[0] == out[1]


# an empty checkpoint (a save cut off before it wrote anything): torch.load raises EOFError (its unpickler runs out of
# input at once), which scripts catch to start afresh
def test_load_empty_file_raises_eof_error(tmp_path):
    import io
    p = tmp_path / 'empty.pt'; p.write_bytes(b'')
    for L in LIBS:
        for f in (io.BytesIO(b''), p, str(p)):
            for wo in (True, False):
                with pytest.raises(EOFError): L.load(f, weights_only=wo)


# the conjugate and negative bits through .data, nn.Parameter, pickle and deepcopy (torch: the first three keep them,
# deepcopy drops them and keeps the conjugated values); litnn dropped them in .data and Parameter and kept them in deepcopy
@pytest.mark.parametrize('how', ['data', 'param', 'pickle', 'deepcopy', 'buffer'])
@pytest.mark.parametrize('imag', [False, True])
def test_conjugate_bits_through_data_parameter_copies(how, imag):
    import copy, pickle
    out = []
    for L in LIBS:
        x = L.tensor([1+2j, 3-1j]).conj()
        if imag: x = x.imag
        y = {'data': lambda: x.data, 'param': lambda: L.nn.Parameter(x, requires_grad=False), 'buffer': lambda: L.nn.Buffer(x),
             'pickle': lambda: pickle.loads(pickle.dumps(x)), 'deepcopy': lambda: copy.deepcopy(x)}[how]()
        out.append((y.is_conj(), y.is_neg(), y.resolve_conj().resolve_neg().tolist()))
    assert out[0] == out[1]


# files written by torch.save: a lazy conjugate (its imaginary part, a negative view) is stored as the storage's plain
# values plus metadata {'conj': True} ({'neg': True}); litnn.load ignored the metadata and gave the unconjugated values
@pytest.mark.parametrize('make', [lambda z: z.conj(), lambda z: z.conj().imag, lambda z: z.conj()[1:], lambda z: [z, z.conj()]])
def test_load_torch_file_with_conjugate_and_negative_bits(make):
    import io
    b = io.BytesIO(); torch.save(make(torch.tensor([1+2j, 3-1j, 5j])), b)
    def desc(x):
        if isinstance(x, list): return [desc(v) for v in x]
        return (x.is_conj(), x.is_neg(), x.shape[0], x.stride(), x.resolve_conj().resolve_neg().tolist())
    out = []
    for L in LIBS:
        b.seek(0); out.append(desc(L.load(b)))
    assert out[0] == out[1]


# and litnn.save(format='torch') of one: torch reads the values as litnn holds them, without litnn's private attributes
@pytest.mark.parametrize('imag', [False, True])
def test_save_torch_format_conjugate_reads_in_torch(imag):
    import io
    x = litnn.tensor([1+2j, 3-1j]).conj()
    if imag: x = x.imag
    b = io.BytesIO(); litnn.save(x, b, format='torch'); b.seek(0)
    y = torch.load(b, weights_only=True)
    assert y.resolve_conj().resolve_neg().tolist() == x.resolve_conj().resolve_neg().tolist() and y.__dict__ == {}


# test_convolution.py's shape checks, transposed: a padding that leaves no output raises ATen's RuntimeError (litnn
# reached numpy's "negative dimensions are not allowed", or made an empty output for a zero size)
@pytest.mark.parametrize('case', [
    lambda L: L.nn.functional.conv_transpose1d(L.ones(1, 2, 3), L.ones(2, 3, 3), padding=3),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(2, 1, 2), L.ones(2, 3, 1, 1), padding=(0, 1)),
    lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 2, 3, 3), L.ones(2, 3, 3, 3), padding=5),
    lambda L: L.nn.ConvTranspose1d(2, 3, 1, padding=1)(L.ones(2, 1)),
])
def test_conv_transpose_output_too_small(case):
    _same_error(case)


# test_autograd.py test_retain_grad_cycle: a tensor divided by a constant (a number, or a tensor that needs no grad) is
# not saved by DivBackward0 (torch saves self only for other's gradient), so it may change in place before backward and
# is freed with its last reference; litnn saved it and raised "modified by an inplace operation"
@pytest.mark.parametrize('op', ['y / 2', 'y / c', 'y.div(c)', 'y / b', 'torch.true_divide(y, c)', 'y.double() / b',
                                'c / y', 'y / w', 'y.div(w)'])
def test_div_saves_dividend_only_for_divisor_grad(op):
    out = []
    for L in LIBS:
        x = L.tensor([1., 2., 3.], requires_grad=True)
        c, b, w = L.tensor([2., 4., 8.]), L.tensor([[2.], [4.]]), L.tensor([2., 4., 8.], requires_grad=True)
        y = x * 1
        z = eval(op, {'y': y, 'c': c, 'b': b, 'w': w, 'torch': L})
        y.add_(1)
        try:
            z.sum().backward()
            out.append((x.grad.tolist(), None if w.grad is None else w.grad.tolist()))
        except RuntimeError as e: out.append(type(e).__name__)
    assert out[0] == out[1], out


def test_div_by_constant_frees_dividend():
    import gc, weakref
    x = litnn.ones(5, 5, requires_grad=True)
    def run():
        y = x * 2
        y.retain_grad()
        return y / 2, weakref.ref(y)
    z, ref = run(); gc.collect()
    assert ref() is None and z.grad_fn._saved_self is None
    z.sum().backward()
    assert x.grad.tolist() == [[1.] * 5] * 5


def _graph_desc(fn):
    if fn is None: return 'None'
    return type(fn).__name__ + '(' + ', '.join(_graph_desc(f) for f, _ in fn.next_functions) + ')'


# test_autograd.py test_once_differentiable: a once-differentiable backward's results sit behind torch's DelayedError
# node, named Error, with an edge per result (None for a None result); litnn's was _DelayedErrorBackward, edges for
# tensors only
def test_once_differentiable_node_is_error_with_an_edge_per_result():
    out = []
    for L in LIBS:
        class MyFunction(L.autograd.Function):
            @staticmethod
            def forward(ctx, t1, s, t2):
                ctx.s = s; ctx.save_for_backward(t1, t2)
                return t1 + s * t2 + t1 * t2
            @staticmethod
            @L.autograd.function.once_differentiable
            def backward(ctx, g):
                t1, t2 = ctx.saved_tensors
                return g + g * t2, None, g * ctx.s + g * t1
        x, y = L.tensor([1., 2.], requires_grad=True), L.tensor([3., 4.], requires_grad=True)
        MyFunction.apply(x, 2, y).sum().backward(L.ones((), requires_grad=True), create_graph=True)
        node = x.grad.grad_fn.next_functions[1][0]
        out.append((_graph_desc(x.grad.grad_fn), node.name(), x.grad.tolist(), _raised(lambda L: x.grad.sum().backward(), L)))
    assert out[0] == out[1], out


# test_autograd.py test_next_functions, test_materialize_grads: torch._C._functions' node classes
def test_C_functions_nodes():
    out = []
    for L in LIBS:
        x = L.ones(2, requires_grad=True)
        F = L._C._functions
        r = [isinstance((x * 2).grad_fn.next_functions[0][0], F.AccumulateGrad)]
        u = F.UndefinedGrad()(x * 1)
        r += [type(u.grad_fn).__name__, u.grad_fn.name(), [type(f).__name__ for f, _ in u.grad_fn.next_functions]]
        u.sum().backward(); r.append(x.grad)
        a = F.DelayedError(b"no second derivative", 2)(x.detach().requires_grad_(), None)
        r += [type(a[0].grad_fn).__name__, a[1], len(a[0].grad_fn.next_functions), a[0].tolist()]
        r.append(_raised(lambda L: a[0].sum().backward(), L))
        r.append(_raised(lambda L: F.DelayedError(b"m", 2)(x), L))
        out.append(r)
    assert out[0] == out[1], out


# test_autograd.py test_resize: the deprecated non-inplace Tensor.resize / resize_as (autograd's Resize: same number of
# elements, sizes unpacked); litnn had neither
@pytest.mark.parametrize('case', ['x.resize(3, 2)', 'x.resize((3, 2))', 'x.resize(4)', 'x.resize_as(L.ones(2, 3))',
                                  'x.view(2, 3).t().resize(6)', 'x.resize(6, 1)'])
def test_tensor_resize_deprecated(case):
    import warnings
    out = []
    for L in LIBS:
        x = L.arange(6.).requires_grad_()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try:
                y = eval(case, {'x': x, 'L': L})
                y.sum().backward()
                r = (tuple(y.shape), y.tolist(), x.grad.tolist())
            except RuntimeError as e: r = str(e).replace('litnn', 'torch')
        out.append((r, [str(m.message) for m in w]))
    assert out[0] == out[1], out


# test_autograd.py test_gradcheck_backward_mul_by_grad_output: gradcheck's last check runs backward with zero output
# gradients and wants zero input gradients; a backward adding a small constant passed litnn's Jacobian check
@pytest.mark.parametrize('fast_mode', [False, True])
def test_gradcheck_backward_not_multiplied_by_grad_output(fast_mode):
    import warnings
    out = []
    for L in LIBS:
        def fn2(x):
            y = x.clone()
            y.register_hook(lambda g: g + 1e-2)
            return y
        def fn3(x):
            return x * 3
        x = L.ones(2, dtype=L.double, requires_grad=True)
        r = [_raised(lambda L: L.autograd.gradcheck(fn2, (x,), atol=1e-1, fast_mode=fast_mode), L),
             L.autograd.gradcheck(fn2, (x,), atol=1e-1, raise_exception=False, fast_mode=fast_mode),
             L.autograd.gradcheck(fn3, (x,), fast_mode=fast_mode)]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r.append(L.autograd.gradgradcheck(fn3, (x,), fast_mode=fast_mode))
        out.append(r)
    assert out[0] == out[1], out


# test_autograd.py test_custom_function_saved_tensors: a custom Function's node lists its saved slots as
# _raw_saved_tensors (None too, whose hooks are refused); litnn's had no such attribute
def test_custom_function_raw_saved_tensors():
    out = []
    for L in LIBS:
        class MyFn(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None)
                return x * 2
            @staticmethod
            def backward(ctx, g): return g
        a = L.ones(3, requires_grad=True)
        y = MyFn.apply(a)
        s = y.grad_fn._raw_saved_tensors
        r = [len(s), type(s[0]).__name__]
        for args in [(lambda x: x,), (1, 1), (lambda x: x, lambda x: x)]:
            r.append(_raised(lambda L: s[1].register_hooks(*args), L))
        s[0].register_hooks(lambda x: x * 0 + 7, lambda x: x * 2)
        r += [_raised(lambda L: s[0].register_hooks(lambda x: x, lambda x: x), L), y.grad_fn.saved_tensors[0].tolist()]
        y.sum().backward()
        r += [a.grad.tolist(), _raised(lambda L: y.grad_fn._raw_saved_tensors, L)]
        out.append(r)
    assert out[0] == out[1], out


# test_linalg.py-style dtype checks: half precision (and integers for eigh) reach torch's kernel errors; litnn computed
# inv, solve, cholesky, eigh, eig of a bfloat16 matrix in float64 (a float64 result) and failed in numpy for float16
@pytest.mark.parametrize('case', [
    lambda L: L.linalg.inv(L.eye(2, dtype=L.bfloat16)), lambda L: L.linalg.inv(L.eye(2, dtype=L.float16)),
    lambda L: L.inverse(L.eye(2, dtype=L.bfloat16)), lambda L: L.linalg.inv_ex(L.eye(2, dtype=L.bfloat16)),
    lambda L: L.linalg.solve(L.eye(2, dtype=L.bfloat16), L.ones(2, dtype=L.bfloat16)),
    lambda L: L.linalg.cholesky(L.eye(2, dtype=L.float16)), lambda L: L.linalg.cholesky_ex(L.eye(2, dtype=L.bfloat16)),
    lambda L: L.linalg.eigh(L.eye(2, dtype=L.bfloat16)), lambda L: L.linalg.eigvalsh(L.eye(2, dtype=L.float16)),
    lambda L: L.linalg.eigh(L.eye(2, dtype=L.int64)), lambda L: L.linalg.eigvalsh(L.eye(2, dtype=L.int32)),
    lambda L: L.linalg.eig(L.eye(2, dtype=L.bfloat16)), lambda L: L.linalg.eigvals(L.eye(2, dtype=L.float16)),
    lambda L: L.linalg.slogdet(L.eye(2, dtype=L.float16)), lambda L: L.linalg.det(L.eye(2, dtype=L.int64)),
])
def test_linalg_low_precision_and_integer_errors(case):
    _same_error(case)


# set_grad_enabled's repr and str name the mode, as torch's (a script printing the object it got back)
def test_set_grad_enabled_repr():
    out = []
    for L in LIBS:
        r = [repr(L.set_grad_enabled(False)), str(L.set_grad_enabled(True)), repr(L.autograd.set_grad_enabled(True))]
        out.append([s.replace('litnn', 'torch') for s in r])
    assert out[0] == out[1], out


# test_nn.py test_overwrite_module_params_on_conversion: after m.double() (the parameter's .data replaced by a float64
# tensor) a float32 view taken before is written under no_grad; torch regenerates its history as AsStridedBackward0 of
# the (now float64) base. litnn took the dtype change for a complex/real view pair and raised a reshape error
def test_view_written_after_base_data_replaced():
    out = []
    for L in LIBS:
        m = L.nn.Linear(3, 2)
        mw = m.weight[:]
        m.double()
        with L.no_grad():
            mw[0][0] = 5
        r = [str(mw.dtype), type(mw.grad_fn).__name__, mw.tolist()[0][0], mw._base is m.weight, str(m.weight.dtype)]
        mw.sum().backward()
        r += [str(m.weight.grad.dtype), m.weight.grad.tolist()]
        a = L.ones(4, requires_grad=True)
        v = a[1:]
        a.data = L.zeros(4, dtype=L.float64)
        with L.no_grad():
            v.mul_(2)
        v.sum().backward()
        r += [v.tolist(), a.tolist(), a.grad.tolist(), type(v.grad_fn).__name__]
        out.append([str(x).replace('litnn', 'torch') for x in r])
    assert out[0] == out[1], out


# test_nn.py test_swap_module_params_poisons_acc_grad (its forward runs a Linear on an input needing no gradient): a
# product keeps an operand only for the other operand's gradient, as torch's mm/addmm/bmm/matmul/einsum/baddbmm, so a
# weight changed in place between forward and backward (an optimizer's step, a no_grad update) is refused only where a
# gradient reads it; litnn kept both operands and raised "modified by an inplace operation" where torch computes
@pytest.mark.parametrize('op', [
    lambda L, x, w: L.nn.functional.linear(x, w, L.ones(3)), lambda L, x, w: L.nn.functional.linear(x, w),
    lambda L, x, w: L.nn.functional.linear(x.expand(5, 4, 2), w), lambda L, x, w: x @ w.t(), lambda L, x, w: L.mm(x, w.t()),
    lambda L, x, w: L.addmm(L.ones(3), x, w.t(), beta=2, alpha=3), lambda L, x, w: L.matmul(x[0], w.t()),
    lambda L, x, w: L.bmm(x.expand(2, 4, 2), w.t().expand(2, 2, 3)), lambda L, x, w: L.einsum('ij,kj->ik', x, w),
    lambda L, x, w: L.baddbmm(L.ones(2, 4, 3), x.expand(2, 4, 2), w.t().expand(2, 2, 3), alpha=2),
    lambda L, x, w: L.addmv(L.ones(3), w, x[0]), lambda L, x, w: L.addbmm(L.ones(4, 3), x.expand(2, 4, 2), w.t().expand(2, 2, 3)),
])
@pytest.mark.parametrize('input_grad', [False, True])
def test_product_keeps_operand_only_for_other_gradient(op, input_grad):
    out = []
    for L in LIBS:
        x = L.tensor(np.arange(8, dtype=np.float32).reshape(4, 2) / 7, requires_grad=input_grad)
        w = L.tensor(np.arange(6, dtype=np.float32).reshape(3, 2) / 5 - 0.3, requires_grad=True)
        y = op(L, x, w)
        with L.no_grad():
            w.mul_(2)
        r = _raised(lambda L: (y * y).sum().backward(), L)     # (the type: which tensor the message names is left)
        out.append([r and r[0], None if r else w.grad.numpy().copy()])
    assert out[0][0] == out[1][0], out       # (gradients to float32's precision: addmm's may differ from torch's in an ulp or two)
    assert (out[0][1] is None) == (out[1][1] is None) and (out[0][1] is None or np.allclose(out[0][1], out[1][1], rtol=1e-6, atol=0)), out


# Side-by-side sweep of in-place changes between forward and backward (in the manner of test_autograd.py's saved-tensor
# checks): torch's binary ops keep what the needed gradients read. fmod/remainder(x, w) read x and w only for w's gradient;
# atan2/xlogy/logaddexp never read their result. litnn kept x, w and the result always, so changing x (or the result) in
# place before backward raised "modified by an inplace operation" where torch computes
@pytest.mark.parametrize('op', ['fmod', 'remainder', 'atan2', 'xlogy', 'hypot', 'copysign', 'logaddexp', 'logaddexp2'])
@pytest.mark.parametrize('changed', ['input', 'output', 'other'])
def test_binary_ops_keep_what_needed_gradients_read(op, changed):
    out = []
    for L in LIBS:
        x = L.tensor(np.arange(1, 10, dtype=np.float32).reshape(3, 3) / 10 + 0.5, requires_grad=True)
        w = L.tensor(np.linspace(0.2, 0.9, 9, dtype=np.float32).reshape(3, 3), requires_grad=changed == 'other')
        xx = x * 1
        y = getattr(L, op)(xx, w)
        with L.no_grad():
            {'input': xx, 'output': y, 'other': w}[changed].mul_(1.5)
        r = _raised(lambda L: y.sum().backward(), L)
        out.append([r and r[0], None if r else np.round(x.grad.numpy(), 4).tolist()])
    assert out[0] == out[1], out


# lerp with a tensor weight keeps input and end only for weight's gradient and weight only for theirs (torch's
# derivatives), so lerp(x, end, w) with w needing no gradient lets x change in place before backward (litnn raised)
def test_lerp_keeps_what_needed_gradients_read():
    out = []
    for L in LIBS:
        x = L.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        w = L.tensor(np.linspace(0.1, 0.9, 6, dtype=np.float32).reshape(2, 3))
        xx = x * 1
        y = L.lerp(xx, L.ones(2, 3), w)
        with L.no_grad():
            xx.mul_(2)
        y.sum().backward()
        out.append(np.round(x.grad.numpy(), 6).tolist())
    assert out[0] == out[1], out


# lerp with a 0-dim weight tensor of another dtype: torch 2.13 promotes it as a number (tensor(0.1) weights float64
# tensors; a complex one makes the result complex), its gradient in its own dtype; litnn raised "expected dtype double
# for `weight`". A weight with dims must still match
@pytest.mark.parametrize('case', [
    lambda L: L.lerp(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), L.tensor(0.1)),
    lambda L: L.lerp(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), L.tensor(0.1, dtype=L.bfloat16)),
    lambda L: L.lerp(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), L.tensor(True)),
    lambda L: L.lerp(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), L.tensor(0.1, dtype=L.complex64)),
    lambda L: L.lerp(L.zeros(3), L.ones(3), L.tensor(0.1, dtype=L.float64)),
    lambda L: L.zeros(3).lerp_(L.ones(3), L.tensor(0.1, dtype=L.float64)),
    lambda L: L.lerp(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), L.tensor([0.1])),
    lambda L: L.lerp(L.zeros(3, dtype=L.float64), L.ones(3), L.tensor(0.1)),
])
def test_lerp_zero_dim_weight_promotes(case):
    r = []
    for L in LIBS:
        try:
            t = case(L)
            r.append((str(t.dtype).replace('litnn', 'torch'), np.round(np.asarray(t.tolist(), dtype=complex), 8).tolist()))
        except Exception as e: r.append((type(e).__name__, str(e)))
    assert r[0] == r[1], r


def test_lerp_zero_dim_weight_gradient():
    out = []
    for L in LIBS:
        x = L.zeros(3, dtype=L.float64, requires_grad=True)
        w = L.tensor(0.1, requires_grad=True)
        y = L.lerp(x, L.ones(3, dtype=L.float64), w)
        y.sum().backward()
        out.append([type(y.grad_fn).__name__, str(w.grad.dtype).replace('litnn', 'torch'), w.grad.item(), x.grad.tolist()])
    assert out[0] == out[1], out


# A 0-dim tensor given for an activation's number argument (F.leaky_relu(x, torch.tensor(0.2)), nn.Hardtanh(t, 1.5),
# threshold, softplus, celu, hardshrink, softshrink): torch's parser takes it as a Scalar (its value, no gradient);
# litnn passed the tensor to numpy and raised a TypeError or AttributeError
@pytest.mark.parametrize('case', [
    lambda L: L.nn.functional.leaky_relu(L.arange(-2., 2.), L.tensor(0.2, dtype=L.float64)),
    lambda L: L.nn.functional.leaky_relu(L.arange(-2., 2., dtype=L.float64), L.tensor(0.1)),
    lambda L: L.nn.functional.leaky_relu_(L.arange(-2., 2.), L.tensor(0.2)),
    lambda L: L.nn.functional.threshold(L.arange(3.), L.tensor(1.), 0.),
    lambda L: L.nn.functional.hardtanh(L.arange(3.), L.tensor(0.5), 1.5),
    lambda L: L.nn.functional.celu(L.arange(-2., 2.), L.tensor(0.5)),
    lambda L: L.nn.functional.softplus(L.arange(-2., 2.), L.tensor(2.), L.tensor(10.)),
    lambda L: L.nn.functional.hardshrink(L.arange(-2., 2.), L.tensor(0.5)),
    lambda L: L.nn.functional.softshrink(L.arange(-2., 2.), L.tensor(0.5)),
    lambda L: L.nn.LeakyReLU(L.tensor(0.2))(L.arange(-2., 2.)),
    lambda L: L.nn.Threshold(L.tensor(1.), 0.)(L.arange(3.)),
    # cdist of two dtypes: torch's kernels refuse (the matmul road's message past 25 rows); litnn computed in float64
    lambda L: L.cdist(L.ones(2, 3), L.ones(2, 3, dtype=L.float64)),
    lambda L: L.cdist(L.ones(2, 3, dtype=L.float64), L.ones(2, 3), 1.),
    lambda L: L.cdist(L.ones(30, 3), L.ones(30, 3, dtype=L.float64)),
    lambda L: L.cdist(L.ones(2, 3), L.ones(2, 3, dtype=L.int64)),
])
def test_number_arguments_given_as_0dim_tensors(case):
    r = []
    for L in LIBS:
        try:
            t = case(L)
            r.append((str(t.dtype).replace('litnn', 'torch'), np.round(np.asarray(t.tolist()), 6).tolist()))
        except Exception as e: r.append((type(e).__name__, str(e)))
    assert r[0] == r[1], r


# test_nn.py test_batchnorm_load_state_dict: a BatchNorm built on the meta device and loaded with assign=True from a dict
# without num_batches_tracked gets a real 0 counter (a meta counter has no value to keep); a real counter is kept
@pytest.mark.parametrize('meta', [True, False])
def test_batchnorm_load_state_dict_without_counter(meta):
    from collections import OrderedDict
    r = []
    for L in LIBS:
        if meta:
            with L.device('meta'): bn = L.nn.BatchNorm2d(3)
        else:
            bn = L.nn.BatchNorm2d(3); bn.num_batches_tracked.fill_(10)
        bn.load_state_dict(OrderedDict(), assign=meta, strict=False)
        r.append((bn.num_batches_tracked.device.type, bn.num_batches_tracked.item(), bn.running_mean.device.type))
    assert r[0] == r[1]


# test_nn.py test_affine_grid_error_checking (side by side): theta's batch must be size[0]; torch's kernel is a bmm of the
# base grid by theta, so the error is bmm's (litnn's reshape raised numpy's message)
@pytest.mark.parametrize('n,t,d', [(1, 2, 2), (2, 1, 2), (3, 2, 3), (1, 2, 3)])
def test_affine_grid_theta_batch_must_match_size(n, t, d):
    _same_error(lambda L: L.nn.functional.affine_grid(L.zeros(t, d, d + 1), L.Size([n, 1] + [2] * d), align_corners=False))


# test_nn.py test_grid_sample (side by side, special coordinates): border and reflection clip a NaN coordinate (and an
# infinite one, which reflection turns into NaN) to 0; a tap outside passes no gradient even with a NaN weight; bicubic taps of a huge coordinate read outside (torch's
# safe_downgrade_to_int_range), so they weigh nothing (zeros) or the edge (border); values and both gradients
@pytest.mark.parametrize('mode', ['bilinear', 'nearest', 'bicubic'])
@pytest.mark.parametrize('padding_mode', ['zeros', 'border', 'reflection'])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_grid_sample_nan_inf_and_huge_coordinates(mode, padding_mode, dtype):
    nan, inf = float('nan'), float('inf')
    r = []
    for L in LIBS:
        inp = L.arange(1., 13).view(1, 1, 3, 4).to(getattr(L, dtype)).requires_grad_()
        g = L.tensor([[[[nan, 0.], [0., nan], [inf, 0.], [-inf, 0.3], [nan, nan], [1e30, 0.], [-1e30, 0.2], [3., -5e9]]]])
        g = g.to(getattr(L, dtype)).requires_grad_()
        for ac in (True, False):
            y = L.nn.functional.grid_sample(inp, g, mode=mode, padding_mode=padding_mode, align_corners=ac)
            if mode == 'bilinear' and padding_mode != 'zeros':     # torch's backward of a NaN point there crashes (segfault)
                r.append([y.detach().numpy()]); continue
            y.sum().backward()
            r.append([y.detach().numpy(), inp.grad.numpy(), g.grad.numpy()])
            inp.grad = g.grad = None
    for a, b in zip(r[:2], r[2:]):
        for x, y in zip(a, b): np.testing.assert_allclose(x, y, atol=1e-5, equal_nan=True)


# test_nn.py test_interpolate (side by side): a size given as integer tensors (a scalar, a tuple of them, a 1-element
# tensor, int32) is read as its value, as torch's kernels read it; litnn multiplied numpy arrays by the tensor
@pytest.mark.parametrize('dim,mode', [(1, 'nearest'), (1, 'linear'), (2, 'bilinear'), (2, 'area'), (3, 'trilinear'), (2, 'bicubic')])
@pytest.mark.parametrize('make', [lambda L: L.tensor(3), lambda L: L.tensor([3]), lambda L: L.tensor(3, dtype=L.int32)])
@pytest.mark.parametrize('as_tuple', [False, True])
def test_interpolate_integer_tensor_size(dim, mode, make, as_tuple):
    r = []
    for L in LIBS:
        x = L.arange(2. ** dim).view([1, 1] + [2] * dim)
        size = (make(L),) * dim if as_tuple else make(L)
        r.append(L.nn.functional.interpolate(x, size=size, mode=mode).numpy())
    np.testing.assert_allclose(r[0], r[1], rtol=1e-6)


# test_pruning.py (side by side): ln_structured(n='fro') over a conv weight asks torch.norm for 'fro' over 4 dims, which
# torch sends to linalg.matrix_norm and refuses ("dim must be a 2-tuple"); litnn computed a vector norm. matrix_norm checks
# its order before A and dim, as torch's kernel does
@pytest.mark.parametrize('case', [
    lambda L: L.norm(L.ones(2, 3, 4), p='fro', dim=(0, 1, 2)),
    lambda L: L.ones(2, 3, 4, 5).norm(p='fro', dim=[0, 1, 2, 3], keepdim=True),
    lambda L: L.norm(L.ones(2, 3, 4), p='bad'),
    lambda L: L.norm(L.ones(2, 3, 4), p='nuc', dim=0),
    lambda L: L.linalg.matrix_norm(L.ones(2, 3, 4), 3, (0, 1, 2)),
    lambda L: L.linalg.matrix_norm(L.ones(3), 'bad'),
    lambda L: L.linalg.matrix_norm(L.ones(2, 3, dtype=L.int64), 0.5),
    lambda L: L.nn.utils.prune.ln_structured(L.nn.Conv2d(2, 2, 2), 'weight', amount=1, n='fro', dim=0),
])
def test_norm_fro_over_more_than_two_dims_and_matrix_norm_order_first(case):
    import torch.nn.utils.prune  # noqa: F401 (torch imports prune only on demand)
    _same_error(case)


@pytest.mark.parametrize('dim', [None, 0, (1,), (0, 1), (-1, -2)])
def test_norm_fro_over_at_most_two_dims_is_the_vector_norm(dim):
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    r = [L.norm(L.tensor(x), p='fro', dim=dim).numpy() for L in LIBS]
    np.testing.assert_allclose(r[0], r[1], rtol=1e-6)


# test_unary_ufuncs.py manner (side by side): special.ndtri is Cephes' rational approximation (torch's calc_ndtri); the
# erfinv formula litnn used turned every p below 1e-16 (float64) or 3e-8 (float32) into -inf and lost digits below 1e-5
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_ndtri_tails(dtype):
    ps = [0, 1e-300, 1e-40, 1e-20, 1e-17, 1e-16, 1e-10, 1e-5, 0.01, 0.13, 0.14, 0.3, 0.5, 0.7, 0.86, 0.87, 0.99,
          1 - 1e-10, 1 - 1e-16, 1.0, -0.1, 1.1, float('nan')]
    ps += np.exp(-np.random.RandomState(1).rand(200) * 80).tolist()
    r = [L.special.ndtri(L.tensor(ps, dtype=getattr(L, dtype))).numpy() for L in LIBS]
    np.testing.assert_allclose(r[0], r[1], rtol=4e-6 if dtype == 'float32' else 1e-14, equal_nan=True)


# test_utils.py checkpoint manner (side by side): a tensor argument of a non-reentrant checkpoint changed in place before
# backward is refused, as torch keeps the arguments as saved tensors of a node; litnn recomputed from the changed value
# and returned a silently wrong gradient. Keyword arguments are not saved (torch does not refuse those)
@pytest.mark.parametrize('which', ['input', 'leaf', 'kwarg', 'none'])
def test_checkpoint_refuses_inputs_changed_in_place(which):
    r = []
    for L in LIBS:
        w = L.ones(3, requires_grad=True); b = L.arange(3.); k = L.full((3,), 2.)
        h = w * 1
        try:
            y = L.utils.checkpoint.checkpoint(lambda a, bb, kk=None: (a * bb).exp() * kk, h, b, kk=k, use_reentrant=False)
            with L.no_grad():
                {'input': h, 'leaf': b, 'kwarg': k, 'none': L.zeros(1)}[which].add_(1)
            y.sum().backward()
            r.append(w.grad.tolist())
        except RuntimeError as e:
            r.append(str(e).replace('litnn', 'torch'))
    if isinstance(r[1], str): assert r[0] == r[1]
    else: np.testing.assert_allclose(r[0], r[1], rtol=1e-6)


# test_nn.py test_grid_sample_large (issues 24823, 35202; side by side on CPU): a huge but finite coordinate samples 0
# with zeros padding (litnn's int64 floor overflowed into NaN weights); torch's 3-d kernel reads an infinite coordinate
# as outside (0), its 2-d kernel gives NaN
@pytest.mark.parametrize('dim,coord', [(2, 7.5e19), (2, -1e30), (2, float('inf')), (3, float('inf')), (3, 1e20), (3, -float('inf'))])
@pytest.mark.parametrize('mode', ['bilinear', 'nearest'])
def test_grid_sample_huge_and_infinite_coordinates(dim, coord, mode):
    r = []
    for L in LIBS:
        img = L.arange(1., 1 + 3 ** dim).view([1, 1] + [3] * dim).requires_grad_()
        grid = L.zeros([1, 1, 1, 2, dim]) if dim == 3 else L.zeros(1, 1, 2, 2)
        grid[..., 0, 0] = coord
        y = L.nn.functional.grid_sample(img, grid, mode=mode, align_corners=False)
        y.sum().backward()
        r.append((y.detach().numpy(), img.grad.numpy()))
    for a, b in zip(*r): np.testing.assert_allclose(a, b, equal_nan=True)


# test_nn.py test_upsamplingBiMode2d (side by side, uint8): torch resizes a uint8 image bilinearly with its separable
# fixed-point kernel (int16 weights, the width pass rounded to uint8 before the height pass); litnn weighted in float and
# rounded once, 1 off in ~15% of pixels. Without antialias, and upsampling with it, now exact; antialiased downsampling
# keeps an occasional 1 (under 1% of pixels)
@pytest.mark.parametrize('hw,out', [((64, 64), (32, 48)), ((100, 80), (224, 224)), ((31, 17), (13, 40)), ((8, 8), (8, 3))])
@pytest.mark.parametrize('antialias,align_corners', [(False, False), (False, True), (True, False)])
@pytest.mark.parametrize('channels_last', [False, True])
def test_interpolate_bilinear_uint8_as_torch(hw, out, antialias, align_corners, channels_last):
    x = np.random.RandomState(sum(hw)).randint(0, 256, (2, 3) + hw).astype(np.uint8)
    r = []
    for L in LIBS:
        t = L.tensor(x)
        if channels_last: t = t.contiguous(memory_format=L.channels_last)
        y = L.nn.functional.interpolate(t, size=out, mode='bilinear', align_corners=align_corners, antialias=antialias)
        r.append((y.numpy().astype(int), y.dtype.itemsize, y.is_contiguous(memory_format=L.channels_last)))
    assert r[0][1:] == r[1][1:]
    d = np.abs(r[0][0] - r[1][0])
    upsampling = out[0] >= hw[0] and out[1] >= hw[1]
    if antialias and not upsampling: assert d.max() <= 1 and (d > 0).mean() < 0.01
    else: assert d.max() == 0


# test_nn.py test_activations_bfloat16_half_cpu (side by side): GLU in half/bfloat16 as torch's kernels: the forward in
# float32 rounded once; the backward rounds sigmoid(b) to the input's dtype, then s * g and (1 - s) * s * a * g in float32
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('dim', [-1, 1])
def test_glu_half_precision_as_torch(dtype, dim):
    r = []
    for L in LIBS:
        x = L.tensor(np.random.RandomState(37).randn(4, 6, 2, 64).astype(np.float32)).to(getattr(L, dtype)).requires_grad_()
        y = L.nn.functional.glu(x, dim)
        y.backward(L.tensor(np.random.RandomState(38).randn(*y.shape).astype(np.float32)).to(getattr(L, dtype)))
        r.append((y.detach().float().numpy(), x.grad.float().numpy()))
    for a, b in zip(*r): np.testing.assert_array_equal(a, b)


# test_torch.py test_deepcopy: one copy.deepcopy of tensors over one memory (a tensor, its views, its storages) gives
# copies that share one copied memory, as torch's; litnn copied each view's elements alone, so a write through one copy
# did not reach the others
@pytest.mark.filterwarnings('ignore::UserWarning')
def test_deepcopy_keeps_shared_memory_as_torch():
    import copy
    r = []
    for L in LIBS:
        a = L.arange(25.).reshape(5, 5); b = L.ones(5, 5)
        w = copy.deepcopy([a, [a.storage(), b.untyped_storage()], b, a.view(25), a[1:, 2:].t(), {'s': a[3]}])
        w[0].add_(1); w[2].sub_(1)
        r.append((w[1][0].tolist(), list(w[1][1])[:8], w[3].tolist(), w[4].tolist(), w[4].stride(), w[4].storage_offset(),
                  w[5]['s'].tolist(), a.tolist(), w[0].data_ptr() == w[3].data_ptr()))
    assert r[0] == r[1]


# test_torch.py test_tensor_storage_type: Tensor.storage_type() (missing in litnn) is the legacy storage class of the
# tensor's dtype; torch.storage._dtype_to_storage_type_map names them
@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'int16', 'int32', 'int64', 'bool', 'float16', 'bfloat16', 'float32',
                                   'float64', 'complex64', 'complex128'])
def test_tensor_storage_type_as_torch(dtype):
    r = []
    for L in LIBS:
        t = L.zeros(3, dtype=getattr(L, dtype))
        r.append((t.storage_type().__name__, t.storage_type() is getattr(L, t.storage_type().__name__),
                  L.storage._dtype_to_storage_type_map()[t.dtype]))
    assert r[0] == r[1]


# test_torch.py storage tests: storage methods litnn lacked (AttributeError): get_device, to(device=), is_pinned,
# pickle_storage_type, resizable, and UntypedStorage's casts (each byte becomes one element) and new()
@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('cast,dtype', [('float', 'float32'), ('double', 'float64'), ('half', 'float16'), ('long', 'int64'),
                                        ('byte', 'uint8'), ('bool', 'bool'), ('complex_float', 'complex64')])
def test_storage_methods_as_torch(cast, dtype):
    r = []
    for L in LIBS:
        s = L.arange(4).to(getattr(L, dtype)).storage()
        u = L.tensor([1, 256, -2], dtype=L.int16).untyped_storage()
        c = getattr(u, cast)()
        r.append((s.get_device(), s.is_pinned(), s.pickle_storage_type(), s.resizable(), s.to(device='cpu').tolist(),
                  type(s.to(device='cpu')).__name__, u.get_device(), u.resizable(), u.to(device='cpu') is u,
                  type(u.new()).__name__, u.new().size(), type(c).__name__, c.dtype == getattr(L, dtype), c.tolist(),
                  L.from_numpy(np.zeros(3)).untyped_storage().resizable()))
    assert r[0] == r[1]


# test_torch.py test_cummax_cummin: once a NaN is met the running value stays NaN, and torch's kernel moves the index to
# each later NaN (its test is `isnan(x) || (!isnan(out) && x >= out)`); litnn kept the first NaN's index, so the
# indices and the gradient (sent to that index) differed
@pytest.mark.parametrize('op', ['cummax', 'cummin'])
@pytest.mark.parametrize('values', [[float('nan'), 1., float('nan'), 2.], [1., float('nan'), 3., float('nan'), float('nan'), 0.],
                                    [4, float('inf'), 1.5, -float('inf'), 0, float('nan'), 1]])
def test_cummax_cummin_nan_index_as_torch(op, values):
    r = []
    for L in LIBS:
        x = L.tensor([values, values[::-1]], requires_grad=True)
        v, i = getattr(L, op)(x, 1)
        (v.nan_to_num() * L.arange(1., len(values) + 1)).sum().backward()
        r.append((v.detach().numpy(), i.tolist(), x.grad.tolist(), getattr(L, op)(x.detach().t(), 0).indices.tolist()))
    np.testing.assert_array_equal(r[0][0], r[1][0])
    assert r[0][1:] == r[1][1:]


# test_torch.py test_scatter_reduce_*: scatter/scatter_ with reduce= and a tensor src warn once (TORCH_WARN_ONCE) that the
# argument is deprecated; with a number src they do not. litnn did not warn
def test_scatter_reduce_argument_deprecation_warning_as_torch():
    import warnings
    r = []
    for L in LIBS:
        L.set_warn_always(True)
        try:
            out = []
            for src in (L.ones(2, 2), 2.):
                for reduce in ('add', 'multiply', 'bad'):
                    with warnings.catch_warnings(record=True) as w:
                        warnings.simplefilter('always')
                        try: out.append(L.full((4, 4), 3.).scatter(0, L.tensor([[1], [2]]), src, reduce=reduce).tolist())
                        except RuntimeError as e: out.append(str(e))
                    out.append([str(x.message).split(' (Triggered')[0] for x in w])
        finally: L.set_warn_always(False)
        r.append(out)
    assert r[0] == r[1]


# test_scatter_gather_ops.py test_scatter_reduce_{sum,prod,mean}: in float16/bfloat16 torch's CPU kernel sums and
# multiplies in float32 and rounds once (a mean: the sum rounded, then divided); litnn rounded at every step, so ~10% of
# the positions that receive several values differed in the last bits
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('reduce', ['sum', 'prod', 'mean', 'amax'])
@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('shape', [(60,), (6, 7), (5, 6, 7)])
def test_scatter_reduce_half_precision_as_torch(dtype, reduce, include_self, shape):
    g = np.random.RandomState(len(shape))
    base, src = g.uniform(-3, 4, shape).astype(np.float32), g.uniform(-3, 4, shape).astype(np.float32)
    idx = g.randint(0, shape[0], shape)
    r = [L.tensor(base).to(getattr(L, dtype)).scatter_reduce(0, L.tensor(idx), L.tensor(src).to(getattr(L, dtype)), reduce,
                                                             include_self=include_self).float().numpy() for L in LIBS]
    np.testing.assert_array_equal(r[0], r[1])


# test_scatter_gather_ops.py test_scatter_reduce_amax/amin: complex tensors have no amax/amin kernel in torch
# (NotImplementedError); litnn compared complex numbers. An empty index returns before the kernel, in both
@pytest.mark.parametrize('reduce', ['amax', 'amin'])
@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_scatter_reduce_complex_amax_refused_as_torch(reduce, dtype):
    _same_error(lambda L: L.zeros(3, dtype=getattr(L, dtype)).scatter_reduce(0, L.tensor([0, 1]), L.tensor([1 + 1j, 2j], dtype=getattr(L, dtype)), reduce))
    r = [L.zeros(3, dtype=getattr(L, dtype)).scatter_reduce(0, L.tensor([], dtype=L.long), L.tensor([], dtype=getattr(L, dtype)), reduce).tolist() for L in LIBS]
    assert r[0] == r[1]


# test_scatter_gather_ops.py test_scatter__reductions: the legacy scatter(..., reduce='add'/'multiply') combines float16
# and bfloat16 values in float32 and rounds once, as scatter_reduce does; litnn rounded at every step
@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('reduce', ['add', 'multiply'])
@pytest.mark.parametrize('shape', [(60,), (5, 6, 7)])
def test_legacy_scatter_reduce_half_precision_as_torch(dtype, reduce, shape):
    g = np.random.RandomState(len(shape) + 7)
    base, src = g.uniform(-3, 4, shape).astype(np.float32), g.uniform(-3, 4, shape).astype(np.float32)
    idx = g.randint(0, shape[0], shape)
    r = [L.tensor(base).to(getattr(L, dtype)).scatter(0, L.tensor(idx), L.tensor(src).to(getattr(L, dtype)), reduce=reduce).float().numpy()
         for L in LIBS]
    np.testing.assert_array_equal(r[0], r[1])


# test_torch.py test_multinomial (non-contiguous probabilities): without replacement (or one sample) torch draws its
# exponentials into empty_like(p), laid out as p, in memory order; for a transposed or permuted p that is column by
# column, so litnn (row by row) drew other categories from the same seed
@pytest.mark.parametrize('shape', [(3, 4), (5, 7), (6, 2)])
@pytest.mark.parametrize('k', [1, 2])
def test_multinomial_transposed_probabilities_as_torch(shape, k):
    r = []
    for L in LIBS:
        L.manual_seed(3)
        p = L.rand(shape[::-1], dtype=L.float64).t()
        q = L.zeros([2, shape[1], 7, 1, shape[0], 1, 10], dtype=L.float64).uniform_().transpose(1, 4)[1, :, 5, 0, :, 0, 4]
        L.manual_seed(9)
        r.append((L.multinomial(p, k, False).tolist(), L.multinomial(p.float(), k, False).tolist(), L.multinomial(q, k, False).tolist(),
                  L.multinomial(p, 4, True).tolist()))
    assert r[0] == r[1]


# test_torch.py test_copy_ (all dtype pairs): copy_ of a bfloat16 tensor into an integer tensor converts through float, as
# torch (and litnn's .to()) do: -7.3 -> 249 in uint8; numpy's assignment from ml_dtypes' bfloat16 saturated (0), with or
# without autograd recording the copy
@pytest.mark.parametrize('dst', ['uint8', 'int8', 'int16', 'int32', 'int64'])
@pytest.mark.parametrize('grad', [False, True])
def test_copy_bfloat16_into_integers_as_torch(dst, grad):
    r = []
    for L in LIBS:
        src = L.tensor([-7.3, 200.7, -0.5, 3.9, 300.2, 255.9, -255.1, -129.5]).bfloat16()
        out = L.zeros(8, dtype=getattr(L, dst))
        r.append(out.copy_(src).tolist())
        into = L.zeros(2, 8, dtype=getattr(L, dst))
        into[1] = src
        into[0, ::2] = src[:4]
        r.append(into.tolist())             # (a write through indexing too)
        if grad:
            x = L.zeros(8, requires_grad=True).clone()
            r.append(x.copy_(src.requires_grad_()).tolist())
    assert r[:len(r) // 2] == r[len(r) // 2:]


# test_torch.py test_check: torch._check and its kin refuse a tensor condition with a message that points to
# torch._check_tensor_all (litnn printed the class)
@pytest.mark.parametrize('name', ['_check', '_check_index', '_check_value', '_check_type', '_check_not_implemented'])
@pytest.mark.parametrize('cond', [lambda L: L.tensor(True), lambda L: L.tensor([True, False]), lambda L: 'wrong type', lambda L: 1])
def test_check_functions_refuse_non_bool_as_torch(name, cond):
    _same_error(lambda L: getattr(L, name)(cond(L)))


# index_reduce (prod/mean/amax) in float16/bfloat16 rounds at every step, as torch's index_reduce kernel: it shares
# scatter_reduce's node but not its float32 sums (a regression of the scatter_reduce change caught by the side-by-side run)
@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('reduce', ['prod', 'mean', 'amax'])
@pytest.mark.parametrize('include_self', [True, False])
def test_index_reduce_half_precision_as_torch(dtype, reduce, include_self):
    for seed in range(3):
        g = np.random.RandomState(seed)
        base, src, i = g.uniform(-3, 4, (5, 6)).astype(np.float32), g.uniform(-3, 4, (9, 6)).astype(np.float32), g.randint(0, 5, 9)
        r = [L.tensor(base).to(getattr(L, dtype)).index_reduce(0, L.tensor(i), L.tensor(src).to(getattr(L, dtype)), reduce,
                                                                include_self=include_self).float().numpy() for L in LIBS]
        np.testing.assert_array_equal(r[0], r[1])


# test_torch.py test_typed_storage_internal_no_warning: torch's own code (and libraries that borrowed it) calls the private
# twins of TypedStorage's methods, which work without the deprecation warning (litnn had none of them)
def test_typed_storage_private_twins_as_torch():
    import warnings
    r = []
    for L in LIBS:
        s0 = L.FloatStorage(4, _internal=True)
        t0 = L.arange(3.)
        out = []
        with warnings.catch_warnings():
            warnings.filterwarnings('error', 'TypedStorage is deprecated')
            s0._setitem(slice(0, 2), 1.5)
            s0._setitem(3, -2.0)
            out += [s0._size(), s0._element_size(), s0._nbytes(), s0._is_shared(), s0._pickle_storage_type(), str(s0._dtype),
                    str(L.FloatStorage._dtype), s0._data_ptr() == s0._untyped_storage.data_ptr()]
            c = s0._deepcopy({})
            out += [c._size(), c._getitem(0), c._getitem(3), c._data_ptr() != s0._data_ptr()]
            s0._resize_(6)
            out.append(s0._size())
            out += [t0._typed_storage()._size(), t0._typed_storage()._getitem(2), L.TypedStorage(dtype=L.int64, device='cpu', _internal=True)._size(),
                    L.TypedStorage(wrap_storage=s0._untyped_storage, dtype=L.int32, _internal=True)._size()]
        r.append([str(o).replace('litnn', 'torch') for o in out])
    assert r[0] == r[1]


# test_torch.py test_upsample_nearest1d_meta: interpolating a meta tensor only computes the shape (litnn built its dense
# resampling matrices, MemoryError for the test's 4e8-long dims)
@pytest.mark.parametrize('mode,shape,kw', [('nearest', (2 * 10 ** 8, 3, 2 * 10 ** 8), dict(scale_factor=2)),
                                           ('linear', (2, 3, 10 ** 9), dict(size=3 * 10 ** 9)),
                                           ('bilinear', (1, 2, 10 ** 6, 10 ** 6), dict(scale_factor=1.5)),
                                           ('bicubic', (1, 2, 7, 9), dict(size=(5, 20), align_corners=True))])
def test_interpolate_meta_tensor_shape_only_as_torch(mode, shape, kw):
    r = []
    for L in LIBS:
        x = L.empty(*shape, device='meta')
        z = L.nn.functional.interpolate(x, mode=mode, **kw)
        r.append((tuple(z.shape), str(z.device), str(z.dtype).split('.')[-1], z.is_contiguous()))
    assert r[0] == r[1]


# test_binary_ufuncs.py-style pow edge cases: torch's float16 kernel raises to ±0.5 with pow, not sqrt (its float32/64
# and bfloat16 kernels use sqrt), so -0 and -inf give what +0 and +inf give there (litnn took the sqrt path for all)
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64'])
@pytest.mark.parametrize('e', [0.5, -0.5, 2.5, -1, 3])
def test_pow_half_and_minus_half_special_values_as_torch(dtype, e):
    r = []
    for L in LIBS:
        x = L.tensor([-float('inf'), -0.0, 0.0, 4.0, -4.0, float('inf'), float('nan'), 0.25], dtype=getattr(L, dtype))
        y = x.pow(e).float().numpy()
        r.append((y, np.signbit(y) & ~np.isnan(y)))
    np.testing.assert_array_equal(r[0][0], r[1][0])
    np.testing.assert_array_equal(r[0][1], r[1][1])


# test_foreach.py test_foreach_l2_large_value: a norm over one element is that element's absolute value in torch (its kernel
# takes no power and no root), so 3e38 does not overflow to inf; litnn squared it (also linalg.vector_norm/Tensor.norm with dim)
@pytest.mark.parametrize('ord', [2, 1, 3, 0.5, -1, float('inf'), 0])
def test_norm_over_single_elements_as_torch(ord):
    r = []
    for L in LIBS:
        x = L.tensor([[3e38], [-1.5], [0.]])
        out = [L.linalg.vector_norm(x, ord, dim=1), L.linalg.vector_norm(x, ord, dim=(1,), keepdim=True), L.linalg.vector_norm(x[0, 0], ord),
               L._foreach_norm([x[0], x[1]], ord), L.linalg.vector_norm(x[:2].T, ord, dim=0), L.linalg.vector_norm(x.half()[1:], ord, dim=1)]
        if ord not in (0, 0.5, -1):
            y = x[1:].clone().requires_grad_()
            L.linalg.vector_norm(y, ord, dim=1).sum().backward()
            out.append(y.grad)
        r.append([t.tolist() if isinstance(t, L.Tensor) else [u.tolist() for u in t] for t in out])
    assert r[0] == r[1]


# test_unary_ufuncs.py-style logit(eps): torch's kernel clamps x < eps to eps, else x > 1 - eps to 1 - eps; with eps > 0.5
# the bounds cross and that order matters (litnn's clip took min(max(x, eps), 1 - eps): the sign of the result flipped)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('eps', [0.6, 0.9, 0.1, 0.5])
def test_logit_eps_clamp_order_as_torch(dtype, eps):
    r = []
    for L in LIBS:
        x = L.tensor([0., 0.3, 0.45, 0.55, 0.7, 1., -0.1, 1.1, float('nan')], dtype=getattr(L, dtype))
        r.append([L.logit(x, eps).float().tolist(), x.clone().logit_(eps).float().tolist()])
    np.testing.assert_allclose(np.array(r[0], dtype=float), np.array(r[1], dtype=float), rtol=1e-6, equal_nan=True)


# test_dataloader.py-style loader attributes: over an IterableDataset torch's loader keeps an _InfiniteConstantSampler
# (None forever) as its sampler and names the kind in `_dataset_kind` (libraries read both); litnn kept a SequentialSampler
# over the stream and had no `_dataset_kind`. A timeout without workers fails when iterating, as torch's single-process iterator asserts.
def test_dataloader_stream_sampler_and_kind_as_torch():
    import itertools
    r = []
    for L in LIBS:
        D = L.utils.data

        class Stream(D.IterableDataset):
            def __iter__(self): return iter(range(5))

        out = []
        for kw in [dict(), dict(batch_size=2), dict(batch_size=None), dict(batch_size=2, drop_last=True)]:
            dl = D.DataLoader(Stream(), **kw)
            out += [type(dl.sampler).__name__, type(dl.batch_sampler).__name__ if dl.batch_sampler is not None else None,
                    dl._dataset_kind, [b.tolist() if isinstance(b, L.Tensor) else b for b in dl], list(itertools.islice(dl.sampler, 3)),
                    type(dl.sampler).__module__.replace('litnn', 'torch')]
        m = D.DataLoader(D.TensorDataset(L.arange(4)), batch_size=2)
        out += [m._dataset_kind, type(m.sampler).__name__]
        out.append(_raised(lambda L: list(L.utils.data.DataLoader(L.utils.data.TensorDataset(L.arange(4)), timeout=0.5)), L))
        r.append(out)
    assert r[0] == r[1]


# test_distributions.py (Wishart's singular-sample redraw, positive-definite arguments): torch's positive_definite
# constraint asks whether the Cholesky factorization succeeds (cholesky_ex's info is 0); litnn asked for a positive
# smallest eigenvalue, which near-singular matrices fail where the factorization succeeds (so validation refused a
# covariance torch accepts, and Wishart redrew other samples)
def test_positive_definite_constraint_is_cholesky_success_as_torch():
    e = 2.0 ** -52
    mats = [[[4., 2., 2.], [2., 1. + k * e, 1.], [2., 1., 1. + 2 * k * e]] for k in (1, 2, 4, 8)]
    mats += [[[2., 0., 0.], [0., 1., 0.], [0., 0., -1e-300]], [[1., 2., 0.], [2., 1., 0.], [0., 0., 1.]], [[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]]]
    r = []
    for L in LIBS:
        m = L.tensor(mats, dtype=L.float64)
        out = [L.distributions.constraints.positive_definite.check(m).tolist()]
        for a in mats[:4]:
            out.append(_raised(lambda L: L.distributions.MultivariateNormal(L.zeros(3, dtype=L.float64), covariance_matrix=L.tensor(a, dtype=L.float64), validate_args=True), L))
        r.append(out)
    assert r[0] == r[1]


# test_binary_ufuncs.py-style dtype refusals: igammac (and special.gammaincc, igammac_) of integer tensors names torch's
# igammac_cpu kernel; litnn named igamma_cpu for both
@pytest.mark.parametrize('fn', [lambda L: L.igamma, lambda L: L.igammac, lambda L: L.special.gammainc, lambda L: L.special.gammaincc,
                                lambda L: L.Tensor.igammac_, lambda L: L.Tensor.igamma])
@pytest.mark.parametrize('dtype', ['int32', 'int64', 'uint8', 'bool', 'complex64'])
def test_igamma_igammac_dtype_refusals_as_torch(fn, dtype):
    _same_error(lambda L: fn(L)(L.tensor([1, 2]).to(getattr(L, dtype)), L.tensor([1, 2]).to(getattr(L, dtype))))


# test_foreach.py-style argument errors: torch's parser refuses a tensor (or a number) where a list of tensors belongs and
# `alpha` with a number or a list of numbers (TypeError); litnn iterated the tensor's rows or ignored the combination
@pytest.mark.parametrize('call', [
    lambda L: L._foreach_add(L.ones(2), 1), lambda L: L._foreach_add_(L.ones(2), 1), lambda L: L._foreach_mul(L.ones(2), [L.ones(2)]),
    lambda L: L._foreach_add([L.ones(2)], 2, alpha=2), lambda L: L._foreach_sub([L.ones(2)], 2.5, alpha=2), lambda L: L._foreach_add([L.ones(2)], [1.], alpha=2),
    lambda L: L._foreach_exp(L.ones(2)), lambda L: L._foreach_sqrt_(L.ones(2)), lambda L: L._foreach_add(5, 1)])
def test_foreach_refuses_non_list_self_and_alpha_with_numbers_as_torch(call):
    _same_error(call)


def test_foreach_alpha_with_tensor_operands_still_works_as_torch():
    r = []
    for L in LIBS:
        t = [L.ones(2), L.arange(3.)]
        r.append([x.tolist() for x in L._foreach_add(t, [L.ones(2), L.ones(3)], alpha=2) + L._foreach_sub(t, [L.ones(2), L.ones(3)], alpha=0.5)]
                 + [L._foreach_add([L.ones(2)], L.tensor(1.), alpha=2)[0].tolist()])
    assert r[0] == r[1]


# test_complex.py-style dtype inference: under a bfloat16 default dtype torch has no default complex type, so
# torch.tensor of Python complex numbers refuses (RuntimeError); litnn made complex64. Typed numpy complex values and
# promotion with a complex scalar still give complex64 in both.
def test_complex_inference_under_bfloat16_default_as_torch():
    r = []
    for L in LIBS:
        old = L.get_default_dtype()
        L.set_default_dtype(L.bfloat16)
        try:
            out = [_raised(lambda L: L.tensor(1j), L), _raised(lambda L: L.tensor([1j, 2]), L), _raised(lambda L: L.tensor([[True, 1j]]), L)]
            out += [str(L.tensor(np.complex64(1j)).dtype), str((L.ones(2) * 1j).dtype), str(L.tensor([1.5]).dtype)]
        finally:
            L.set_default_dtype(old)
        r.append([str(o).replace('litnn', 'torch') for o in out])
    assert r[0] == r[1]


def test_dir_of_a_tensor_lists_only_what_it_has():
    "test_autograd.py's test_dir: every name dir(x) lists is an attribute of x (`volatile` and, on the CPU, `__cuda_array_interface__` are left out, as torch's Tensor.__dir__ does); `imag` of a real tensor raises RuntimeError."
    import warnings
    def run(lib):
        x = lib.randn(3, 3)
        p = lib.nn.Parameter(lib.randn(2, 2))
        p.extra = 1
        out = []
        for t in (x, p):
            keys = dir(t)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                missing = [k for k in keys if k not in ('imag', 'real') and not hasattr(t, k)]
            out.append((missing, 'volatile' in keys, '__cuda_array_interface__' in keys, 'shape' in keys, 'extra' in keys))
        return out
    assert run(litnn) == run(torch)
    assert _raised(lambda lib: hasattr(lib.randn(2), 'imag'), litnn)[0] == _raised(lambda lib: hasattr(lib.randn(2), 'imag'), torch)[0]


# test_autograd.py test_gradcheck_adjusted_atol_complex_inputs: the Jacobians in a complex input are compared entry by
# entry as complex numbers (|a - n| <= atol + rtol |n|), as torch's allclose does, not their real and imaginary parts
# one by one (here a real part misses its own bound while the complex entry is within torch's)
def test_gradcheck_compares_complex_input_jacobians_as_complex_numbers():
    res = []
    for lib in LIBS:
        lib.manual_seed(97)
        z = 10e-3 * lib.rand(2, dtype=lib.complex128, requires_grad=True)
        res.append([lib.autograd.gradcheck(lambda z: 1.0 / lib.norm(z), (z,), fast_mode=fm, atol=8.3e-6, rtol=1e-9,
                                           raise_exception=False) for fm in (True, False)])
    assert res[0] == res[1] == [True, True]


# test_autograd.py test_gradcheck_get_numerical_jacobian / test_gradcheck_get_analytical_jacobian: torch's deprecated
# helpers (one row per input element, one column per output element; FutureWarning; grad_out other than 1.0 refused)
def test_gradcheck_get_numerical_and_analytical_jacobian_as_torch():
    import sys, warnings
    res = []
    for lib in LIBS:
        m = sys.modules[lib.__name__ + '.autograd.gradcheck']
        a = lib.tensor([[1., 2.], [3., 4.]], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            num = m.get_numerical_jacobian(lambda xs: ((xs[0] * xs[1]).sum(0), xs[0]), (a, b), eps=1e-6)
            num_t = m.get_numerical_jacobian(lambda xs: (xs[0] * xs[1]).sum(0), (a, b), target=(b,), eps=1e-6)
            ana, reentrant, sizes_ok, types_ok = m.get_analytical_jacobian((a, b), (a * b * b).sum(0))
        assert [x.category for x in w] == [FutureWarning] * 3
        assert "`get_numerical_jacobian` was part of PyTorch's private API" in str(w[0].message)
        res.append(([x.detach().numpy() for x in num + num_t + ana], reentrant, sizes_ok, types_ok))
        for f in (lambda: m.get_numerical_jacobian(lambda xs: xs[0], (a,), grad_out=2.0),
                  lambda: m.get_analytical_jacobian((a,), a * 1, grad_out=2.0),
                  lambda: m.get_analytical_jacobian((a,), (a * 1j).sum())):
            with warnings.catch_warnings(), pytest.raises(ValueError, match='Expected'):
                warnings.simplefilter('ignore')
                f()
    for x, y in zip(res[0][0], res[1][0]): np.testing.assert_allclose(x, y, atol=1e-6)
    assert res[0][1:] == res[1][1:] == (True, True, True)


# test_autograd.py test_no_grad_copy_sparse: embedding / embedding_bag with sparse=True give the weight a sparse COO
# gradient, one uncoalesced entry per looked-up id (padding ids left out; scale_grad_by_freq refused at backward), as
# torch's embedding_sparse_backward; litnn ignored `sparse` and gave a dense one
_SPARSE_EMBEDDING_CASES = [
    lambda t, F, w: F.embedding(t.tensor([[1, 3, 1], [0, 5, 3]]), w, sparse=True),
    lambda t, F, w: F.embedding(t.tensor([1, 3, 1]), w, padding_idx=1, sparse=True),
    lambda t, F, w: F.embedding(t.tensor([1, 1]), w, padding_idx=1, sparse=True),
    lambda t, F, w: F.embedding(t.tensor([1, 3, 1]), w, padding_idx=-5, sparse=True),
    lambda t, F, w: F.embedding(t.tensor([1, 3, 1]), w, scale_grad_by_freq=True, sparse=True),
    lambda t, F, w: F.embedding(t.tensor([], dtype=t.long), w, sparse=True),
    lambda t, F, w: F.embedding(t.tensor([[0, 2]], dtype=t.int32), w, max_norm=100.0, sparse=True),
    lambda t, F, w: F.embedding_bag(t.tensor([1, 2, 4, 5, 4, 3, 2, 1]), w, t.tensor([0, 3]), mode='sum', sparse=True),
    lambda t, F, w: F.embedding_bag(t.tensor([[1, 2], [4, 1]]), w, mode='sum', sparse=True, padding_idx=1),
    lambda t, F, w: F.embedding_bag(t.tensor([[1, 2], [4, 1]]), w, mode='mean', sparse=True, padding_idx=4),
    lambda t, F, w: F.embedding_bag(t.tensor([1, 2, 4, 5]), w, t.tensor([0, 2]), mode='sum', sparse=True,
                                    per_sample_weights=t.tensor([1., 2., 3., 4.], dtype=t.float64)),
    lambda t, F, w: F.embedding_bag(t.tensor([1, 2, 4, 5]), w, t.tensor([0, 2]), sparse=True, scale_grad_by_freq=True),
]


@pytest.mark.parametrize('case', range(len(_SPARSE_EMBEDDING_CASES)))
def test_embedding_sparse_gradient_as_torch(case):
    res = []
    for lib in LIBS:
        w = lib.tensor(np.arange(12.).reshape(6, 2), requires_grad=True)
        try:
            y = _SPARSE_EMBEDDING_CASES[case](lib, lib.nn.functional, w)
            (y * lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape))).sum().backward()
            g = w.grad
            res.append((str(g.layout).split('.')[-1], g._nnz(), g.is_coalesced(), g._indices().tolist(),
                        np.asarray(g._values().tolist()), np.asarray(g.to_dense().tolist())))
        except RuntimeError as e: res.append(str(e))
    if isinstance(res[0], str): assert res[0] == res[1]; return
    assert res[0][:4] == res[1][:4]
    for a, b in zip(res[0][4:], res[1][4:]): np.testing.assert_allclose(a, b, rtol=1e-12)


# torch's AccumulateGrad keeps a sparse gradient as .grad only if its parts are contiguous: an expanded values tensor
# (test_no_grad_copy_sparse's NonContGradFunc) is cloned; a contiguous one handed to two leaves is kept by one of them
def test_sparse_gradient_with_expanded_values_is_cloned_into_grad():
    res = []
    for lib in LIBS:
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b): return a + b
            @staticmethod
            def backward(ctx, g):
                ng = lib.sparse_coo_tensor(lib.ones(1, 1, dtype=lib.long).expand(1, 8), lib.rand(1, 3).expand(8, 3), (10, 3))
                Twice.p = ng._values().data_ptr()
                return ng, ng
        a, b = lib.randn(10, 3, requires_grad=True), lib.randn(10, 3, requires_grad=True)
        Twice.apply(a, b).sum().backward()
        ptrs = a.grad._values().data_ptr(), b.grad._values().data_ptr()
        res.append((ptrs[0] == ptrs[1], Twice.p in ptrs, a.grad._values().stride(), a.grad._values().is_contiguous()))
    assert res[0] == res[1] == (False, False, (3, 1), True)


# test_autograd.py test_autograd_node_isinstance: torch.autograd.function.BackwardCFunction is the base of every custom
# Function's ctx / grad_fn class (a Node), whose apply runs the Function's backward (or vjp) and apply_jvp its jvp
def test_backward_c_function_is_the_base_of_custom_function_nodes():
    res = []
    for lib in LIBS:
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.seen = isinstance(ctx, lib.autograd.function.BackwardCFunction)
                return x * 2
            @staticmethod
            def backward(ctx, g): return g * 3
            @staticmethod
            def jvp(ctx, t): return t * 5
        a = lib.ones(2, requires_grad=True)
        out = Double.apply(a)
        BC = lib.autograd.function.BackwardCFunction
        res.append((issubclass(BC, lib.autograd.graph.Node), issubclass(BC, lib.autograd.function.FunctionCtx),
                    isinstance(out.grad_fn, BC), out.grad_fn.seen, out.grad_fn.apply(lib.ones(2)).tolist(),
                    out.grad_fn.apply_jvp(lib.ones(2)).tolist()))
    assert res[0] == res[1] == (True, True, True, True, [3.0, 3.0], [5.0, 5.0])


# test_distributions.py's test_wishart_moments: Wishart.rsample of 900,000 float32 samples (df 2.5 for 3x3) checks its
# support (positive_definite: cholesky_ex's info) and raised LinAlgError ("the routine failed on its input") where torch
# redraws the singular samples. numpy factors float32 in double and refused near-singular matrices that litnn's own
# potf2 (the judge of which matrices fail, run in float32) accepted; the judge now runs in double as numpy does.
_NEAR_SINGULAR_F32 = [
    [[1.8159966468811035, -0.2787979543209076, 1.2641185522079468], [-0.2787979543209076, 0.6692582368850708, -0.9695825576782227],
     [1.2641185522079468, -0.9695825576782227, 1.8399854898452759]],
    [[2.339815855026245, 0.6775686144828796, 2.8281948566436768], [0.6775686144828796, 1.436564326286316, -1.483461618423462],
     [2.8281948566436768, -1.483461618423462, 7.692540168762207]],
    [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    [[4.0, 2.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]],
]


def test_cholesky_ex_of_near_singular_float32_batch_as_torch():
    r = []
    for L in LIBS:
        a = L.tensor(_NEAR_SINGULAR_F32, dtype=L.float32)
        out = [_raised(lambda L: L.linalg.cholesky_ex(a).info.tolist(), L)]
        out.append(_raised(lambda L: L.distributions.constraints.positive_definite.check(a).tolist(), L))
        res = L.linalg.cholesky_ex(a[3:])
        out.append((res.info.tolist(), np.round(res.L.numpy(), 5).tolist()))
        out.append(_raised(lambda L: L.linalg.cholesky(a[:1]), L)[0])
        r.append(out)
    assert r[0] == r[1]


def test_wishart_rsample_of_near_singular_draws_as_torch():
    "Wishart with df just above ndim - 1 draws near-singular samples; its support check redraws them, as torch's, without raising"
    r = []
    for L in LIBS:
        L.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')     # "Low df values detected", "Singular sample detected": both warn
            d = L.distributions.Wishart(df=L.tensor(2.05), scale_tril=L.tensor([[1.2, 0.0, 0.0], [0.3, 1.9, 0.0], [-0.3, 0.5, 0.5]]))
            s = d.rsample((60000,))
        r.append((tuple(s.shape), bool(L.isfinite(s).all()), np.allclose(s.mean(0).numpy(), d.mean.numpy(), atol=0.3)))
    assert r[0] == r[1] == ((60000, 3, 3), True, True)


# test_autograd.py test_input_buffer_accum: gather(..., sparse_grad=True) hands the input a sparse COO gradient (one
# uncoalesced entry per gathered element, torch's _gather_sparse_backward), which adds up with a dense one from another
# use; litnn ignored sparse_grad and gave a dense gradient
_SPARSE_GATHER_CASES = [
    lambda t, x: x.gather(1, t.tensor([[[0, 2, 1, 0]], [[2, 2, 0, 1]]]), sparse_grad=True),
    lambda t, x: x.gather(2, t.tensor([[[3], [0], [1]], [[0], [0], [0]]]), sparse_grad=True),
    lambda t, x: t.gather(x, 0, t.tensor([[[1, 0, 1, 0]]]), sparse_grad=True),
    lambda t, x: x.gather(-1, t.tensor([[[3, 3]]], dtype=t.int32), sparse_grad=True),
    lambda t, x: x.gather(0, t.zeros(0, 3, 4, dtype=t.long), sparse_grad=True),
    lambda t, x: (x * 2).gather(1, t.tensor([[[0, 2, 1, 0]], [[2, 2, 0, 1]]]), sparse_grad=True) + x[:, :1] * 3,
]


@pytest.mark.parametrize('case', range(len(_SPARSE_GATHER_CASES)))
def test_gather_sparse_grad_as_torch(case):
    res = []
    for lib in LIBS:
        x = lib.tensor(np.arange(24.).reshape(2, 3, 4), requires_grad=True)
        m = x * 1
        seen = []
        m.register_hook(seen.append)
        y = _SPARSE_GATHER_CASES[case](lib, m)
        go = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape))
        y.backward(go)
        res.append([(str(g.layout).split('.')[-1], g._nnz() if g.is_sparse else None,
                     g._indices().tolist() if g.is_sparse else None, g.to_dense().tolist()) for g in seen]
                   + [x.grad.to_dense().tolist(), go.tolist()])
    assert res[0] == res[1]


# test_autograd.py test_where_functional: gradgradcheck differentiates in the grad_outputs it is given only where they
# require grad (torch's diff_grad_output_indices); litnn made every given one require grad, so a float32 grad_output
# given with float64 inputs was perturbed in float32 and the check failed where torch's passes
def test_gradgradcheck_keeps_given_grad_outputs_requires_grad():
    res = []
    for lib in LIBS:
        lib.manual_seed(0)
        cond = lib.tensor(np.arange(25).reshape(5, 5) % 3 == 0)
        x = lib.randn(5, 1, 5, dtype=lib.double, requires_grad=True)
        y = lib.randn(5, 5, 1, dtype=lib.double, requires_grad=True)
        go = lib.randn(5, 5, 5)
        go_rg = lib.randn(5, 5, 5, dtype=lib.double, requires_grad=True)
        res.append((lib.autograd.gradgradcheck(lambda c, x, y: lib.where(c, x, y), [cond, x, y], [go]),
                    lib.autograd.gradgradcheck(lambda c, x, y: lib.where(c, x, y), [cond, x, y], [go_rg]),
                    lib.autograd.gradgradcheck(lambda c, x, y: lib.where(c, x, y), [cond, x, y]), go.requires_grad))
    assert res[0] == res[1] == (True, True, True, False)
def test_cholesky_ex_of_matrices_that_fail_gives_lapacks_partial_factor_as_torch():
    "torch returns what LAPACK leaves in L for a matrix that is not positive-definite: the columns before the failing one, the failing pivot on the diagonal, the input's lower triangle after it (litnn gave NaN)"
    mats = [[[4., 2, 1, 0], [2, 1, 3, 1], [1, 3, 5, 2], [0, 1, 2, 7]], [[1., 2, 0, 0], [2, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
            [[float('nan'), 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], [[4., 2, 0, 0], [2, 5, 1, 0], [0, 1, 3, 0], [0, 0, 0, 1]]]
    r = []
    for L in LIBS:
        out = []
        for dt in (L.float32, L.float64, L.complex128):
            for upper in (False, True):
                res = L.linalg.cholesky_ex(L.tensor(mats, dtype=dt), upper=upper)
                out.append((res.info.tolist(), np.round(np.nan_to_num(res.L.numpy().astype(np.complex128), nan=7.0), 5).tolist()))
        r.append(out)
    assert r[0] == r[1]


# test/nn/test_convolution.py test_conv_backend: torch.ops.aten.convolution (the op every conv reaches) was missing from
# litnn's aten namespace
@pytest.mark.parametrize('shape, transposed, dilated, groups, bias', [
    ((2, 6, 7), False, False, 3, True), ((2, 6, 7), True, True, 3, False), ((2, 6, 7, 8), False, True, 3, True),
    ((2, 6, 7, 8), True, False, 3, True), ((2, 6, 5, 6, 7), False, False, 3, False), ((0, 6, 7, 8), False, False, 3, True)])
def test_aten_convolution_as_torch(shape, transposed, dilated, groups, bias):
    rng = np.random.default_rng(0)
    dim = len(shape) - 2
    xa = rng.standard_normal(shape)
    wa = rng.standard_normal(((shape[1], 12 // groups) if transposed else (12, shape[1] // groups)) + (3,) * dim)
    ba = rng.standard_normal(12)
    res = []
    for L in LIBS:
        x, w = L.tensor(xa, requires_grad=True), L.tensor(wa, requires_grad=True)
        b = L.tensor(ba, requires_grad=True) if bias else None
        out = L.ops.aten.convolution(x, w, b, (2,) * dim, (1,) * dim, (2 if dilated else 1,) * dim, transposed, (0,) * dim, groups)
        out.sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy(), w.grad.numpy(), None if b is None else b.grad.numpy(), str(L.ops.aten.convolution)))
    for a, t in zip(*res):
        if isinstance(a, np.ndarray): np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-10)
        else: assert a == t


def test_aten_convolution_refuses_a_wrong_argument_type_as_torch():
    _same_error(lambda L: L.ops.aten.convolution.default(L.ones(1, 1, 3), L.ones(1, 1, 2), None, 1.5, [0], [1], False, [0], 1))


# test/test_stateless.py test_functional_call_with_jit: functional_call refuses TorchScript modules ("Jitted modules");
# litnn's jit.script/trace return the module itself (which stays usable), but a ScriptModule subclass is refused
def test_functional_call_refuses_a_script_module_as_torch():
    def call(L):
        class M(L.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.l = L.nn.Linear(1, 1)
        return L.func.functional_call(M(), {}, (L.ones(1, 1),))
    _same_error(call)
    _same_error(lambda L: L.nn.utils.stateless.functional_call(M2(L)(), {}, (L.ones(1, 1),)))


def M2(L):
    class M(L.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.l = L.nn.Linear(1, 1)
    return M


# found calling torch.ops.aten.convolution as test_convolution.py does: torch's operator argument parser takes a number
# for a bool (its truth) and a bool for an int, but no lone int for an int[] without a size (litnn took 0 for flip's dims
# and refused transposed=0)
@pytest.mark.parametrize('call', [
    lambda L, x: L.ops.aten.flip.default(x, 0), lambda L, x: L.ops.aten.flip.default(x, [0]),
    lambda L, x: L.ops.aten.view.default(x, 3), lambda L, x: L.ops.aten.sort.default(x, 0, 1)[0],
    lambda L, x: L.ops.aten.sort.default(x, 0, 1.0)[0], lambda L, x: L.ops.aten.sort.default(x, True, False)[0],
    lambda L, x: L.ops.aten.sum.dim_IntList(x.reshape(1, 3), 1), lambda L, x: L.ops.aten.amax.default(x.reshape(1, 3), 1),
    lambda L, x: L.ops.aten.convolution.default(x.reshape(1, 1, 3), L.ones(2, 1, 2), None, [1], [0], [1], 0, [0], True),
    lambda L, x: L.ops.aten.convolution.default(x.reshape(1, 1, 3), L.ones(1, 2, 2), None, [2], [0], [1], 1, [1], 1)])
def test_aten_argument_conversions_as_torch(call):
    r = []
    for L in LIBS:
        try: r.append(call(L, L.tensor([3., 1., 2.])).tolist())
        except Exception as e: r.append((type(e).__name__, str(e).split('\n')[0].replace('litnn', 'torch')))
    assert r[0] == r[1], r

"""NumPy's argument names (`axis`, `keepdims`, `x`/`a`/`x1`, `x2`), as torch's argument parser reads them: side by side
with torch, and the lists of functions torch writes in Python (which do not take them) read off torch itself."""
import inspect, types
import numpy as np, pytest, torch, litnn
from litnn._python_arg_parser import _PYTHON_FUNCTIONS, _PYTHON_METHODS, _NUMPY_NAMES


def _params(f):
    try: return set(inspect.signature(f).parameters)
    except (TypeError, ValueError): return set()


def test_python_lists_are_torchs():
    "A name is on the lists exactly when torch's own function or method of that name is written in Python."
    fns = {n for n, f in vars(litnn).items() if not n.startswith('_') and type(f) is types.FunctionType
           and _params(f) & set(_NUMPY_NAMES) and hasattr(torch, n)
           and not isinstance(getattr(torch, n), types.BuiltinFunctionType)}
    assert fns == _PYTHON_FUNCTIONS
    meths = {n for n, f in vars(litnn.Tensor).items() if not n.startswith('_') and type(f) is types.FunctionType
             and _params(f) & {'dim', 'keepdim', 'other'} and n in dir(torch.Tensor)
             and type(inspect.getattr_static(torch.Tensor, n)).__name__ not in ('method_descriptor', 'wrapper_descriptor', 'builtin_function_or_method')}
    assert meths == _PYTHON_METHODS


def _x(lib): return lib.tensor(np.arange(1., 7.).reshape(2, 3))

CASES = {
    'cumprod axis': lambda L: L.cumprod(_x(L), axis=0), 'cumsum axis': lambda L: _x(L).cumsum(axis=1),
    'sum axis keepdims': lambda L: L.sum(_x(L), axis=1, keepdims=True), 'Tensor.sum axis keepdims': lambda L: _x(L).sum(axis=0, keepdims=True),
    'mean axis keepdims': lambda L: L.mean(_x(L), axis=0, keepdims=True), 'argmax axis': lambda L: _x(L).argmax(axis=1),
    'max axis': lambda L: _x(L).max(axis=0).values, 'std axis': lambda L: _x(L).std(axis=0), 'var axis': lambda L: L.var(_x(L), axis=1),
    'cat axis': lambda L: L.cat([_x(L), _x(L)], axis=0), 'stack axis': lambda L: L.stack([_x(L), _x(L)], axis=1),
    'softmax axis': lambda L: L.softmax(_x(L), axis=1), 'squeeze axis': lambda L: L.squeeze(_x(L)[None], axis=0),
    'unsqueeze axis': lambda L: L.unsqueeze(_x(L), axis=0), 'sort axis': lambda L: L.sort(_x(L), axis=0).values,
    'logsumexp axis': lambda L: L.logsumexp(_x(L), axis=1), 'all axis': lambda L: L.all(_x(L) > 2, axis=0),
    'any axis keepdims': lambda L: (_x(L) > 2).any(axis=1, keepdims=True), 'prod axis': lambda L: L.prod(_x(L), axis=1),
    'diff axis': lambda L: L.diff(_x(L), axis=1), 'gather axis': lambda L: L.gather(_x(L), axis=1, index=L.zeros(2, 1, dtype=L.long)),
    'unbind axis': lambda L: _x(L).unbind(axis=0)[1], 'narrow axis': lambda L: L.narrow(_x(L), axis=1, start=0, length=2),
    'size axis': lambda L: _x(L).size(axis=1), 'flip dims stays': lambda L: L.flip(_x(L), dims=(0,)),
    'add x1 x2': lambda L: L.add(x1=_x(L), x2=_x(L)), 'mul input x2': lambda L: L.mul(input=_x(L), x2=_x(L)),
    'exp x': lambda L: L.exp(x=_x(L)), 'abs a': lambda L: L.abs(a=_x(L)), 'sub x1 other': lambda L: L.sub(x1=_x(L), other=1),
    'Tensor.add x2': lambda L: _x(L).add(x2=_x(L)), 'count_nonzero axis': lambda L: L.count_nonzero(_x(L), axis=0),
    'index_select axis': lambda L: L.index_select(_x(L), axis=1, index=L.tensor([0, 2])),
    'cummax axis': lambda L: L.cummax(_x(L), axis=1).values, 'median axis': lambda L: L.median(_x(L), axis=1).values,
    'amax axis keepdims': lambda L: L.amax(_x(L), axis=1, keepdims=True), 'nansum axis': lambda L: L.nansum(_x(L), axis=0),
    'both dim and axis': lambda L: L.sum(_x(L), dim=0, axis=1), 'split axis (Python in torch)': lambda L: _x(L).split(1, axis=0),
    'norm axis (Python in torch)': lambda L: L.norm(_x(L), axis=0), 'unique axis (Python in torch)': lambda L: L.unique(_x(L), axis=0),
    'linalg.vector_norm axis': lambda L: L.linalg.vector_norm(_x(L), axis=0), 'special.logsumexp axis': lambda L: L.special.logsumexp(_x(L), axis=1),
    'linalg.matmul x2': lambda L: L.linalg.matmul(_x(L), x2=_x(L).T), 'fft.fft x (dim stays)': lambda L: L.fft.fft(_x(L), dim=0).real,
    # torch.norm, torch.solve... are Python in torch, but linalg.norm, linalg.solve, linalg.lstsq, linalg.matrix_rank are C++
    'linalg.norm axis keepdims': lambda L: L.linalg.norm(_x(L), axis=0, keepdims=True),
    'linalg.norm ord axis pair': lambda L: L.linalg.norm(_x(L), ord=1, axis=(-2, -1)),
    'linalg.solve x2 stays A B': lambda L: L.linalg.solve(L.eye(2, dtype=L.float64), x2=_x(L)),
    'linalg.lstsq a': lambda L: L.linalg.lstsq(a=L.eye(2, dtype=L.float64), B=_x(L)).solution,
    'misspelled axes': lambda L: _x(L).sum(axes=0), 'F.softmax axis (Python in torch)': lambda L: L.nn.functional.softmax(_x(L), axis=1),
}


def _outcome(f, lib):
    try: r = f(lib)
    except Exception as e: return ('raise', type(e).__name__)
    return ('ok', r.numpy().tolist() if isinstance(r, lib.Tensor) else r)


@pytest.mark.parametrize('name', CASES)
def test_numpy_names_as_torch(name):
    t, l = _outcome(CASES[name], torch), _outcome(CASES[name], litnn)
    assert l[0] == t[0] and (t[0] == 'raise' and l[1] == t[1] or np.allclose(l[1], t[1], rtol=1e-6)), (t, l)


def test_shared_functions_stay_one_object():
    assert litnn.linalg.matmul is litnn.matmul and litnn.special.logsumexp is litnn.logsumexp
    F, tF = litnn.nn.functional, torch.nn.functional
    names = ('conv2d', 'conv_transpose2d', 'pdist', 'cosine_similarity', 'rms_norm')
    # the same object where torch's is (C++ bound twice); F.rms_norm is Python in torch's nn.functional, torch.rms_norm C++
    assert [getattr(F, n) is getattr(litnn, n) for n in names] == [getattr(tF, n) is getattr(torch, n) for n in names]
    assert F.conv2d is litnn.conv2d and F.conv_transpose2d is litnn.conv_transpose2d and F.pdist is litnn.pdist


def test_the_wrapper_keeps_name_doc_signature():
    for f, orig in ((litnn.sum, litnn._reductions.sum), (litnn.Tensor.cumsum, None)):
        assert hasattr(f, '__wrapped__') and f.__name__ == f.__wrapped__.__name__ and f.__doc__ == f.__wrapped__.__doc__
        assert inspect.signature(f) == inspect.signature(f.__wrapped__)


# keyword names of torch's overloads where litnn's function names that position otherwise (`indices_or_sections`)
_OVERLOAD_KW = [('tensor_split', {'indices': (1, 3)}), ('tensor_split', {'sections': 3}),
                ('tensor_split', {'tensor_indices_or_sections': 'T'}), ('hsplit', {'sections': 2}), ('hsplit', {'indices': (1,)}),
                ('vsplit', {'indices': [1]}), ('vsplit', {'sections': 2}), ('dsplit', {'sections': 2}), ('dsplit', {'indices': (1,)}),
                ('tensor_split', {'indices_or_sections': 2}), ('tensor_split', {'indices': 2}), ('tensor_split', {'sections': (1,)}),
                ('hsplit', {'indices_or_sections': 2})]


@pytest.mark.parametrize('method', [False, True])
@pytest.mark.parametrize('name,kw', _OVERLOAD_KW)
def test_overload_keyword_names_as_torch(name, kw, method):
    "`torch.tensor_split(x, indices=(1,), dim=-3)` (torchvision's elastic transform): each overload's own keyword is taken, the others refused."
    def run(lib):
        x = lib.arange(48.).reshape(2, 4, 6)
        k = {n: (lib.tensor([1, 3]) if v == 'T' else v) for n, v in kw.items()}
        if name == 'tensor_split': k['dim'] = -1
        try: return [t.numpy() for t in (getattr(x, name)(**k) if method else getattr(lib, name)(x, **k))]
        except Exception as e: return type(e)
    want, got = run(torch), run(litnn)
    if isinstance(want, type): assert got is want
    else: assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))


def test_addmm_inplace_keyword_names_as_torch():
    "`x.addmm_(mat1=a, mat2=b)`: torch's names of the positions litnn's in-place method calls `a` and `b`."
    r = np.random.default_rng(0); x, a, b = r.standard_normal((2, 3)), r.standard_normal((2, 4)), r.standard_normal((4, 3))
    want = torch.tensor(x).addmm_(mat1=torch.tensor(a), mat2=torch.tensor(b), beta=0.5)
    got = litnn.tensor(x).addmm_(mat1=litnn.tensor(a), mat2=litnn.tensor(b), beta=0.5)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)

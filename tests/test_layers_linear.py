"""Linear, Bilinear, Identity, Flatten, Unflatten, Dropout and Embedding side by side with torch: reprs, state_dict keys,
torch's weights loaded into litnn giving the same outputs and gradients (input and parameters), grad_fn names,
default initialization, errors; finite-difference gradient checks of the new ops in float64."""
import math, warnings
import numpy as np
import pytest

import litnn
from litnn.autograd import gradcheck, gradgradcheck
from torch_pairs import same_error, same_message

torch = pytest.importorskip('torch')
lnn, tnn = litnn.nn, torch.nn
LF, TF = litnn.nn.functional, torch.nn.functional
rng = np.random.default_rng(0)


def randn(*shape, dtype=np.float32): return np.asarray(rng.standard_normal(shape), dtype)
def np_(t): return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def load_from_torch(lm, tm):
    "Load torch module `tm`'s state_dict into litnn module `lm` (same keys required)."
    sd = {k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    assert list(lm.state_dict()) == list(sd)
    lm.load_state_dict(sd)


def check_pair(lm, tm, *inputs, atol=1e-5, grad_inputs=True, name=True):
    "Same output, grad_fn name, and gradients of a random projection wrt inputs and parameters."
    lx = [litnn.tensor(a, requires_grad=grad_inputs and a.dtype.kind == 'f') for a in inputs]
    tx = [torch.tensor(a, requires_grad=grad_inputs and a.dtype.kind == 'f') for a in inputs]
    lo, to = lm(*lx), tm(*tx)
    np.testing.assert_allclose(np_(lo), to.detach().double().numpy(), atol=atol, rtol=1e-5)
    if name: assert lo.grad_fn.name() == type(to.grad_fn).__name__
    r = randn(*to.shape)
    (lo * litnn.tensor(r)).sum().backward(); (to * torch.tensor(r)).sum().backward()
    for l, t in zip(lx, tx):
        if t.requires_grad: np.testing.assert_allclose(np_(l.grad), t.grad.double().numpy(), atol=atol, rtol=1e-5)
    for (n, lp), (_, tp) in zip(lm.named_parameters(), tm.named_parameters()):
        if tp.grad is None: assert lp.grad is None, n
        else: np.testing.assert_allclose(np_(lp.grad), tp.grad.double().numpy(), atol=atol, rtol=1e-5, err_msg=n)


# --- Linear ---------------------------------------------------------------------------------------

@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('shape', [(6, 5), (5,), (3, 4, 5), (2, 3, 2, 5), (1, 5), (0, 5)])
def test_linear_matches_torch(bias, shape):
    tm, lm = tnn.Linear(5, 3, bias=bias), lnn.Linear(5, 3, bias=bias)
    assert repr(lm) == repr(tm)
    load_from_torch(lm, tm)
    check_pair(lm, tm, randn(*shape))


def test_linear_non_contiguous_inputs_match_torch():
    tm, lm = tnn.Linear(4, 3), lnn.Linear(4, 3)
    load_from_torch(lm, tm)
    a = randn(4, 2, 3)
    for f in (lambda x: x.transpose(0, 2), lambda x: x.permute(1, 2, 0)[:, 1:]):     # (.., 4) last dims, strided
        lx, tx = litnn.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        lo, to = lm(f(lx)), tm(f(tx))
        assert lo.grad_fn.name() == type(to.grad_fn).__name__
        np.testing.assert_allclose(np_(lo), to.detach().numpy(), atol=1e-5)
        lo.sum().backward(); to.sum().backward()
        np.testing.assert_allclose(np_(lx.grad), tx.grad.numpy(), atol=1e-5)
    tw = tm.weight.detach().t().contiguous().t()          # a column-major weight, as a transposed checkpoint gives
    lw = litnn.tensor(tw.numpy()).t().contiguous().t()
    assert not lw.is_contiguous()
    x = randn(5, 4)
    np.testing.assert_allclose(np_(LF.linear(litnn.tensor(x), lw)), TF.linear(torch.tensor(x), tw).numpy(), atol=1e-5)


def test_linear_is_one_node_in_2d():
    "The hot path records torch's AddmmBackward0 over (bias, x, weight.t()): the weight's edge through TBackward0."
    lm = lnn.Linear(4, 3)
    x = litnn.ones(2, 4, requires_grad=True)
    y = lm(x)
    assert y.grad_fn.name() == 'AddmmBackward0'
    assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions] == ['AccumulateGrad'] * 2 + ['TBackward0']
    assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions[2][0].next_functions] == ['AccumulateGrad']
    assert LF.linear(x, lm.weight).grad_fn.name() == 'MmBackward0'


def test_linear_default_init_matches_torch():
    "kaiming_uniform_(a=sqrt(5)) and the bias bound 1/sqrt(fan_in): the same range and spread as torch's."
    litnn.manual_seed(0); torch.manual_seed(0)
    lm, tm = lnn.Linear(400, 300), tnn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    for lp, tp in ((lm.weight, tm.weight), (lm.bias, tm.bias)):
        a, b = np_(lp), tp.detach().double().numpy()
        assert np.abs(a).max() <= bound and np.abs(a).max() > 0.98 * bound
        assert abs(a.std() - b.std()) < 0.05 * b.std() and abs(a.mean()) < 0.1 * bound
    with pytest.warns(UserWarning, match="zero-element"):       # torch warns too
        assert lnn.Linear(0, 3).bias.abs().max().item() == 0    # fan_in 0: bound 0, as torch
    lm.reset_parameters()
    assert np.abs(np_(lm.weight)).max() <= bound


@pytest.mark.parametrize('dtype', ['float64', 'float16'])
def test_linear_dtype_and_device_arguments(dtype):
    lm, tm = lnn.Linear(3, 2, dtype=getattr(litnn, dtype), device='cpu'), tnn.Linear(3, 2, dtype=getattr(torch, dtype), device='cpu')
    assert (lm.weight.dtype.name, lm.bias.dtype.name) == (str(tm.weight.dtype)[6:], str(tm.bias.dtype)[6:])
    assert lm.weight.requires_grad and lm.weight.device.type == 'cpu'


@pytest.mark.parametrize('f', [
    lambda lib: lib.nn.functional.linear(lib.ones(2, 5), lib.ones(3, 4)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 5), lib.ones(3, 4), lib.ones(3)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 7, 5), lib.ones(3, 4), lib.ones(3)),
    lambda lib: lib.nn.functional.linear(lib.ones(5), lib.ones(3, 4)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 4, dtype=lib.float64), lib.ones(3, 4)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 4), lib.ones(3, 4), lib.ones(3, dtype=lib.float64)),
    lambda lib: lib.nn.functional.linear(lib.tensor(1.), lib.ones(3, 4)),
    lambda lib: lib.nn.functional.linear(lib.ones(2, 4), lib.ones(3, 4), lib.ones(5)),
    lambda lib: lib.nn.Linear(4, 3)(lib.ones(2, 5)),
])
def test_linear_errors_like_torch(f):
    "The same exception type, and torch's message for shapes and dtypes."
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type) as le: f(litnn)
    if 'dtype' in str(te.value) or 'cannot be multiplied' in str(te.value) or '1D' in str(te.value): assert str(le.value) == str(te.value)


FOLD_CASES = {     # torch's matmul folds a batch into mm's rows only when no copy is needed or the matrix requires grad
    'linear_transposed_batch': lambda lib: lib.nn.functional.linear(lib.ones(2, 6, 5, 4).transpose(-1, -2), lib.ones(4, 4)),
    'linear_transposed_batch_bias': lambda lib: lib.nn.functional.linear(lib.ones(6, 5, 4).transpose(-1, -2), lib.ones(4, 4), lib.ones(4)),
    'linear_transposed_weight_grad': lambda lib: lib.nn.functional.linear(lib.ones(6, 5, 4).transpose(-1, -2), lib.ones(4, 4, requires_grad=True)),
    'linear_contiguous_batch': lambda lib: lib.nn.functional.linear(lib.ones(2, 6, 4, 5), lib.ones(4, 4)),
    'linear_contiguous_batch_bias': lambda lib: lib.nn.functional.linear(lib.ones(2, 6, 4, 5), lib.ones(4, 4), lib.ones(4)),
    'module_transposed_batch': lambda lib: lib.nn.Linear(4, 4)(lib.ones(6, 5, 4).transpose(-1, -2)),
    'matmul_transposed_batch': lambda lib: lib.ones(2, 6, 5, 4).transpose(-1, -2) @ lib.ones(4, 4),
    'matmul_permuted_batch': lambda lib: lib.ones(5, 6, 4).transpose(0, 1) @ lib.ones(3, 2),
    'matmul_transposed_batch_vector': lambda lib: lib.ones(6, 5, 4).transpose(-1, -2) @ lib.ones(4),
    'matmul_transposed_batch_dtype': lambda lib: lib.ones(6, 5, 4).transpose(-1, -2) @ lib.ones(5, 2, dtype=lib.float64),
    'matmul_contiguous_batch_dtype': lambda lib: lib.ones(6, 4, 5) @ lib.ones(5, 2, dtype=lib.float64),
    'matmul_empty_transposed_batch': lambda lib: lib.ones(0, 5, 4).transpose(-1, -2) @ lib.ones(4, 2),
}

@pytest.mark.parametrize('case', FOLD_CASES)
def test_linear_and_matmul_messages_follow_torchs_fold_or_bmm_choice(case):
    "torch-dct's LinearDCT (a weight that does not require grad) on a transposed batch: bmm's message, as torch's."
    same_message(FOLD_CASES[case])


def test_linear_gradcheck_float64():
    w, b = litnn.tensor(randn(3, 4, dtype=np.float64), requires_grad=True), litnn.tensor(randn(3, dtype=np.float64), requires_grad=True)
    for shape in [(5, 4), (4,), (2, 3, 4)]:
        x = litnn.tensor(randn(*shape, dtype=np.float64), requires_grad=True)
        assert gradcheck(LF.linear, (x, w, b)) and gradcheck(LF.linear, (x, w))
        assert gradgradcheck(LF.linear, (x, w, b))


def test_linear_loads_a_torch_mlp_and_trains_the_same():
    "A two-layer MLP with torch's weights: same loss and parameter gradients after one step of SGD by hand."
    tnet = tnn.Sequential(tnn.Linear(6, 8), tnn.ReLU(), tnn.Linear(8, 3))
    lnet = lnn.Sequential(lnn.Linear(6, 8), lnn.ReLU(), lnn.Linear(8, 3))
    assert repr(lnet) == repr(tnet)
    load_from_torch(lnet, tnet)
    x = randn(10, 6)
    for _ in range(2):
        lo, to = lnet(litnn.tensor(x)).pow(2).mean(), tnet(torch.tensor(x)).pow(2).mean()
        assert abs(lo.item() - to.item()) < 1e-5
        lo.backward(); to.backward()
        with litnn.no_grad(), torch.no_grad():
            for lp, tp in zip(lnet.parameters(), tnet.parameters()):
                np.testing.assert_allclose(np_(lp.grad), tp.grad.numpy(), atol=1e-5)
                lp -= 0.1 * lp.grad; tp -= 0.1 * tp.grad
                lp.grad = None; tp.grad = None


# --- Bilinear -------------------------------------------------------------------------------------

@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('lead', [(5,), (2, 3), (), (0,)])
def test_bilinear_matches_torch(bias, lead):
    tm, lm = tnn.Bilinear(3, 4, 2, bias=bias), lnn.Bilinear(3, 4, 2, bias=bias)
    assert repr(lm) == repr(tm)
    load_from_torch(lm, tm)
    check_pair(lm, tm, randn(*lead, 3), randn(*lead, 4))


def test_bilinear_init_and_errors():
    litnn.manual_seed(0)
    m = lnn.Bilinear(16, 4, 300)
    assert np.abs(np_(m.weight)).max() <= 0.25 and np.abs(np_(m.weight)).max() > 0.24 and np.abs(np_(m.bias)).max() <= 0.25
    for f in [lambda lib: lib.nn.Bilinear(0, 2, 3),
              lambda lib: lib.nn.functional.bilinear(lib.ones(2, 3), lib.ones(3, 4), lib.ones(5, 3, 4)),
              lambda lib: lib.nn.functional.bilinear(lib.ones(2, 4), lib.ones(2, 4), lib.ones(5, 3, 4)),
              lambda lib: lib.nn.functional.bilinear(lib.ones(2, 3), lib.ones(2, 3), lib.ones(5, 3, 4)),
              lambda lib: lib.nn.functional.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 4), lib.ones(4))]:
        with pytest.raises(Exception) as te: f(torch)
        with pytest.raises(te.type) as le: f(litnn)
        assert str(le.value) == str(te.value)


def test_bilinear_gradcheck_float64():
    args = [litnn.tensor(randn(*s, dtype=np.float64), requires_grad=True) for s in [(3, 2), (3, 4), (5, 2, 4), (5,)]]
    assert gradcheck(LF.bilinear, args) and gradgradcheck(LF.bilinear, args)


# --- Identity, Flatten, Unflatten -----------------------------------------------------------------

@pytest.mark.parametrize('make,shape', [
    (lambda nn: nn.Identity(3, k=2), (2, 3)),
    (lambda nn: nn.Flatten(), (2, 3, 4)),
    (lambda nn: nn.Flatten(0, -2), (2, 3, 4)),
    (lambda nn: nn.Flatten(-2, -1), (2, 3, 4, 5)),
    (lambda nn: nn.Unflatten(1, (2, 6)), (3, 12)),
    (lambda nn: nn.Unflatten(-1, [3, -1]), (2, 12)),
])
def test_shape_layers_match_torch(make, shape):
    lm, tm = make(lnn), make(tnn)
    assert repr(lm) == repr(tm) and lm.state_dict() == {} and list(tm.state_dict()) == []
    check_pair(lm, tm, randn(*shape), name=False)


def test_identity_returns_its_input_and_flatten_views():
    x = litnn.ones(2, 3, 4)
    assert lnn.Identity()(x) is x
    y = lnn.Flatten()(x)
    assert y._base is x and y.shape == (2, 12)


@pytest.mark.parametrize('args', [(1, 3), (1, (2, 3.0)), (1, '23')])
def test_unflatten_constructor_errors(args):
    with pytest.raises(Exception) as te: tnn.Unflatten(*args)
    with pytest.raises(te.type) as le: lnn.Unflatten(*args)
    assert str(le.value) == str(te.value)


def test_flatten_errors_like_torch():
    same_error(lambda lib: lib.nn.Flatten(2, 1)(lib.ones(2, 3, 4)))
    same_error(lambda lib: lib.nn.Unflatten(1, (2, 2))(lib.ones(2, 6)))


# --- Dropout --------------------------------------------------------------------------------------

@pytest.mark.parametrize('p', [0.0, 0.2, 0.5, 0.9, 1.0])
def test_dropout_statistics_and_scaling_match_torch(p):
    litnn.manual_seed(0); torch.manual_seed(0)
    x = np.ones((200, 500), np.float32)
    lo, to = np_(LF.dropout(litnn.tensor(x), p)), TF.dropout(torch.tensor(x), p).numpy()
    assert set(np.unique(lo)) == set(np.unique(to))               # 0 and 1/(1-p) (or only one of them)
    assert abs((lo == 0).mean() - (to == 0).mean()) < 0.01
    assert abs(lo.mean() - to.mean()) < 0.02


def test_dropout_grad_is_the_mask_and_grad_fn_is_torchs():
    for lib in (litnn, torch):
        lib.manual_seed(3)
        x = lib.ones(1000, requires_grad=True)
        y = lib.nn.functional.dropout(x * 2, 0.3)
        y.sum().backward()
        assert type(y.grad_fn).__name__ == 'MulBackward0'
        np.testing.assert_allclose(np_(x.grad) if lib is litnn else x.grad.numpy(), np_(y) if lib is litnn else y.detach().numpy(), rtol=1e-6)


def test_dropout_module_train_eval_and_repr():
    for args in [(), (0.2,), (0.3, True)]:
        assert repr(lnn.Dropout(*args)) == repr(tnn.Dropout(*args))
    d = lnn.Dropout(0.5)
    x = litnn.ones(4, 100)
    assert (d(x) == 0).any().item()
    d.eval()
    assert d(x) is x
    assert LF.dropout(x, 0.) is x and LF.dropout(x, 0.5, training=False) is x
    assert d.state_dict() == {}


def test_dropout_is_reproducible_with_manual_seed_and_inplace():
    litnn.manual_seed(5); a = np_(LF.dropout(litnn.ones(50), 0.5))
    litnn.manual_seed(5); b = litnn.ones(50) * 1
    out = LF.dropout(b, 0.5, inplace=True)
    assert out is b
    np.testing.assert_array_equal(a, np_(b))
    litnn.manual_seed(6); assert not np.array_equal(a, np_(LF.dropout(litnn.ones(50), 0.5)))


@pytest.mark.parametrize('f', [lambda lib: lib.nn.Dropout(1.5), lambda lib: lib.nn.Dropout(-0.1),
                               lambda lib: lib.nn.functional.dropout(lib.ones(3), 2.), lambda lib: lib.nn.functional.dropout(lib.ones(3), -1., training=False),
                               lambda lib: lib.nn.functional.dropout(lib.arange(4), 0.5)])
def test_dropout_errors_like_torch(f):
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type) as le: f(litnn)
    assert str(le.value) == str(te.value)


def test_dropout_gradcheck_float64():
    x = litnn.tensor(randn(4, 5, dtype=np.float64), requires_grad=True)
    def f(x): litnn.manual_seed(0); return LF.dropout(x, 0.4)     # the same mask at every evaluation
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


# --- Embedding ------------------------------------------------------------------------------------

@pytest.mark.parametrize('kw', [{}, dict(padding_idx=2), dict(padding_idx=-1), dict(scale_grad_by_freq=True),
                                dict(padding_idx=0, scale_grad_by_freq=True)])
@pytest.mark.parametrize('shape', [(7,), (3, 4), (2, 2, 3), ()])
def test_embedding_matches_torch(kw, shape):
    tm, lm = tnn.Embedding(6, 3, **kw), lnn.Embedding(6, 3, **kw)
    assert repr(lm) == repr(tm) and lm.padding_idx == tm.padding_idx
    load_from_torch(lm, tm)
    ids = rng.integers(0, 6, shape).astype(np.int64)
    if shape == (7,): ids[:3] = 2                                   # repeated ids
    check_pair(lm, tm, ids)


def test_embedding_max_norm_matches_torch():
    for norm_type in (2., 1.):
        tm, lm = tnn.Embedding(5, 4, max_norm=1.5, norm_type=norm_type), lnn.Embedding(5, 4, max_norm=1.5, norm_type=norm_type)
        assert repr(lm) == repr(tm)
        load_from_torch(lm, tm)
        ids = np.array([[0, 2], [2, 3]])
        check_pair(lm, tm, ids)
        np.testing.assert_allclose(np_(lm.weight), tm.weight.detach().numpy(), atol=1e-6)   # renormalized in place, the same rows


@pytest.mark.parametrize('make', [lambda L: L.randn(2, 4).double(), lambda L: L.randn(2, 5, 4).double(), lambda L: L.randn(4).double(),
                                  lambda L: L.randn(5, 2, 4).double().transpose(0, 1), lambda L: L.randn(2, 5, 3, 4).double().transpose(1, 2)])
@pytest.mark.parametrize('bias_dtype', ['float16', 'float32'])
def test_linear_bias_of_another_dtype_like_torch(make, bias_dtype):
    "torch refuses it on its addmm paths (2-D or contiguous input) and adds it into the product's dtype otherwise (matmul, then add_)."
    res = []
    for L in (torch, litnn):
        L.manual_seed(0)
        x, w = make(L).requires_grad_(), L.randn(3, 4).double().requires_grad_()
        b = L.randn(3).to(getattr(L, bias_dtype)).requires_grad_()
        try: y = L.nn.functional.linear(x, w, b)
        except RuntimeError as e: res.append(str(e)); continue
        y.sum().backward()
        res.append((str(y.dtype).split('.')[1], y.detach().numpy(), b.grad.float().numpy()))
    if isinstance(res[0], str): assert res[1] == res[0]
    else:
        assert res[1][0] == res[0][0]
        for a, c in zip(res[0][1:], res[1][1:]): np.testing.assert_allclose(c, a, rtol=1e-6)


def test_embedding_max_norm_scales_in_double_like_torch():
    "torch's embedding_renorm_ computes max_norm / (norm + 1e-7) in double: the rows come out bit for bit (L1 norm, summed alike)."
    rng = np.random.default_rng(0)
    for _ in range(50):
        w = (rng.standard_normal((5, 7)) * 3).astype(np.float32)
        tw, lw = torch.tensor(w), litnn.tensor(w)
        TF.embedding(torch.tensor([0, 2, 4]), tw, max_norm=0.7, norm_type=1.0)
        LF.embedding(litnn.tensor([0, 2, 4]), lw, max_norm=0.7, norm_type=1.0)
        assert np.array_equal(lw.numpy(), tw.numpy())


def test_embedding_max_norm_keeps_the_forward_ad_tangent():
    "torch renormalizes `weight.detach()`: the looked-up rows' values shrink, their tangent passes through unchanged."
    outs = []
    for L in (torch, litnn):
        w = L.tensor(np.arange(16.).reshape(4, 4) - 5)
        with L.autograd.forward_ad.dual_level():
            dual = L.autograd.forward_ad.make_dual(w, L.tensor(np.arange(16.).reshape(4, 4)))
            p, t = L.autograd.forward_ad.unpack_dual(L.nn.functional.embedding(L.tensor([[0, 1], [2, 2]]), dual, max_norm=1.0))
            outs.append((p.numpy(), t.numpy(), w.numpy()))
    for a, b in zip(*outs): np.testing.assert_allclose(b, a, rtol=1e-6)


@pytest.mark.parametrize('n,d,ids', [(0, 0, []), (10, 0, [[0, 2], [4, 3]]), (4, 0, [1])])
def test_embedding_of_width_zero_backward_like_torch(n, d, ids):
    shapes = []
    for L in (torch, litnn):
        e = L.nn.Embedding(n, d)
        out = e(L.tensor(ids, dtype=L.int64))
        out.sum().backward()
        shapes.append((tuple(out.shape), tuple(e.weight.grad.shape)))
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize('dtype', ['int8', 'uint8', 'int16', 'uint16', 'uint64', 'bool', 'float16'])
def test_embedding_takes_long_and_int_ids_only(dtype):
    "F.embedding refuses every id dtype but int64 and int32, with torch's message; embedding_bag converts integer ids."
    f = lambda lib: lib.nn.functional.embedding(lib.tensor([1, 0]).to(getattr(lib, dtype)), lib.ones(4, 2))
    assert same_error(f) is RuntimeError
    with pytest.raises(RuntimeError) as t: f(torch)
    with pytest.raises(RuntimeError) as l: f(litnn)
    assert str(l.value).replace('litnn.', 'torch.') == str(t.value)
    if dtype in ('int8', 'uint8', 'int16'):
        bag = lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 0]).to(getattr(lib, dtype)), lib.arange(8.).reshape(4, 2),
                                                          lib.tensor([0])).tolist()
        assert bag(litnn) == bag(torch)
    assert lnn.Embedding(4, 2)(litnn.tensor([3, 1], dtype=litnn.int32)).shape == (2, 2)

def test_embedding_init_and_padding_row():
    litnn.manual_seed(0)
    e = lnn.Embedding(1000, 50, padding_idx=3)
    w = np_(e.weight)
    assert (w[3] == 0).all() and abs(w.std() - 1) < 0.02 and abs(w.mean()) < 0.02
    assert list(e.state_dict()) == list(tnn.Embedding(2, 2).state_dict())


def test_embedding_from_pretrained_like_torch():
    w = randn(4, 3)
    for kw in [{}, dict(freeze=False), dict(padding_idx=1, max_norm=2.)]:
        lm, tm = lnn.Embedding.from_pretrained(litnn.tensor(w), **kw), tnn.Embedding.from_pretrained(torch.tensor(w), **kw)
        assert repr(lm) == repr(tm) and lm.weight.requires_grad == tm.weight.requires_grad
        ids = np.array([0, 1, 3])
        np.testing.assert_allclose(np_(lm(litnn.tensor(ids))), tm(torch.tensor(ids)).detach().numpy(), atol=1e-6)


def test_embedding_reprs_match_torch():
    for kw in [dict(max_norm=1.), dict(norm_type=1.), dict(scale_grad_by_freq=True), dict(sparse=True), dict(padding_idx=-2)]:
        assert repr(lnn.Embedding(5, 2, **kw)) == repr(tnn.Embedding(5, 2, **kw))


@pytest.mark.parametrize('f', [
    lambda lib: lib.nn.Embedding(10, 3, padding_idx=10),
    lambda lib: lib.nn.Embedding(10, 3, padding_idx=-11),
    lambda lib: lib.nn.Embedding.from_pretrained(lib.ones(3)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1., 2.]), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1, 7]), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1, -1]), lib.ones(5, 2)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([1]), lib.ones(5, 2), padding_idx=9),
])
def test_embedding_errors_like_torch(f):
    with pytest.raises(Exception) as te: f(torch)
    with pytest.raises(te.type) as le: f(litnn)
    assert str(le.value) == str(te.value).replace('torch.', 'litnn.')


@pytest.mark.parametrize('kw', [{}, dict(padding_idx=1), dict(scale_grad_by_freq=True)])
def test_embedding_gradcheck_float64(kw):
    "The plain lookup against finite differences; with padding_idx or scale_grad_by_freq the gradient is deliberately not"
    "the derivative (as torch's), so only its own derivative (double backward) is checked by finite differences."
    w = litnn.tensor(randn(5, 3, dtype=np.float64), requires_grad=True)
    ids = litnn.tensor([[1, 2, 1], [4, 1, 0]])
    f = lambda w: LF.embedding(ids, w, **kw)
    if not kw: assert gradcheck(f, (w,))
    assert gradgradcheck(f, (w,))


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_layers_on_gpu():
    x = litnn.tensor(randn(4, 5), device='cuda', requires_grad=True)
    lin = lnn.Linear(5, 3).cuda()
    y = LF.dropout(lin(x), 0.5)
    e = lnn.Embedding(6, 3).cuda()
    z = e(litnn.tensor([1, 2, 1], device='cuda'))
    (y.sum() + z.sum()).backward()
    assert lin.weight.grad.device.type == 'cuda' and e.weight.grad.device.type == 'cuda'
    np.testing.assert_allclose(np_(e.weight.grad)[1], [2., 2., 2.])


def test_non_dynamically_quantizable_linear_where_torch_has_it():
    "word_language_model allow-lists torch.nn.modules.linear.NonDynamicallyQuantizableLinear (MultiheadAttention's out_proj)."
    import torch, litnn
    L = litnn.nn.modules.linear.NonDynamicallyQuantizableLinear
    assert L is type(litnn.nn.MultiheadAttention(4, 2).out_proj) and issubclass(L, litnn.nn.Linear)
    assert torch.nn.modules.linear.NonDynamicallyQuantizableLinear is type(torch.nn.MultiheadAttention(4, 2).out_proj)


@pytest.mark.parametrize('dtype', ['int32', 'int64', 'float64'])
def test_bilinear_keeps_integer_dtype(dtype):
    "An int32 bilinear stays int32 (the sum over in2 features does not promote, as torch's kernel; OpInfo samples)."
    a, b, w = np.arange(6).reshape(2, 3), np.arange(8).reshape(2, 4) - 3, np.arange(60).reshape(5, 3, 4) % 7
    want = torch.nn.functional.bilinear(*(torch.tensor(v, dtype=getattr(torch, dtype)) for v in (a, b, w)))
    got = litnn.nn.functional.bilinear(*(litnn.tensor(v, dtype=getattr(litnn, dtype)) for v in (a, b, w)))
    assert str(got.dtype).split('.')[-1] == str(want.dtype).split('.')[-1] == dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize('shape', [(0,), (3, 0), (3, 4, 0)])
@pytest.mark.parametrize('bias', [True, False])
def test_linear_with_no_input_features(shape, bias):
    "Linear(0, 2): every output is the bias (or 0), for 1-D, 2-D and batched inputs; the weight's gradient is empty."
    outs = []
    for lib in (torch, litnn):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')             # "Initializing zero-element tensors is a no-op"
            m = lib.nn.Linear(0, 2, bias=bias)
        if bias: lib.nn.init.constant_(m.bias, 1.5)
        y = m(lib.ones(shape))
        y.sum().backward()
        outs.append((y.tolist(), tuple(y.shape), type(y.grad_fn).__name__, tuple(m.weight.grad.shape)))
    assert outs[0] == outs[1]


@pytest.mark.parametrize('dt', ['float32', 'float64', 'float16'])
@pytest.mark.parametrize('n, ids, d', [(1000, 1000, 300), (50, 5000, 64), (10, 20, 8), (3000, 200, 16), (4, 300, 5)])
@pytest.mark.parametrize('kw', [{}, {'padding_idx': 3}])
@pytest.mark.parametrize('special', [False, True])
def test_embedding_weight_gradient_sums_rows_in_torchs_order(dt, n, ids, d, kw, special):
    "Each row of the weight's gradient adds its rows in the order they come, from 0 (torch's index_add_): to the bit, with NaN, infinities, -0.0 and subnormals kept in their own rows."
    rng = np.random.default_rng(n + ids)
    idx = rng.integers(0, n, (ids,))
    g = (rng.standard_normal((ids, d)) * rng.choice([1e-3, 1, 1e3], (ids, d))).astype(dt)
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, 6e4, -6e4], np.float32).astype(dt)
    if special:
        g.reshape(-1)[rng.integers(0, g.size, g.size // 50)] = rng.choice(values, g.size // 50)
        g[::7] = -0.0
    grads = []
    for L in (litnn, torch):
        w = L.tensor(rng.standard_normal((n, d)).astype(dt) if L is litnn else grads_w, requires_grad=True)
        if L is litnn: grads_w = w.detach().numpy().copy()
        L.nn.functional.embedding(L.tensor(idx.reshape(-1, 4) if ids % 4 == 0 else idx), w, **kw).backward(L.tensor(g.reshape((-1, 4, d)) if ids % 4 == 0 else g))
        grads.append(w.grad.numpy())
    assert grads[0].dtype == grads[1].dtype and (grads[0].view(np.uint8) == grads[1].view(np.uint8)).all()

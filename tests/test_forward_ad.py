"""Forward-mode AD (`litnn.autograd.forward_ad`, 14b_forward_mode) against torch.autograd.forward_ad and torch.func on the same inputs:
primal and tangent of many operations in float64, custom Functions with `jvp`, jvp/jacfwd/hessian, forward-over-reverse, errors."""
import numpy as np
import pytest
import litnn
import litnn.nn.functional as LF
from litnn.autograd import forward_ad as lfw
torch = pytest.importorskip('torch')
import torch.nn.functional as TF
import torch.autograd.forward_ad as tfw
import torch.func


def arr(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def to_np(t): return None if t is None else t.detach().cpu().numpy()


def run(lib, fn, shapes, dual=None, seed=0):
    "Primal and tangent of `fn(lib, F, *inputs)` with the inputs `dual` (indices, all by default) made dual."
    T, F, fw = (litnn, LF, lfw) if lib == 'litnn' else (torch, TF, tfw)
    dual = range(len(shapes)) if dual is None else dual
    with fw.dual_level():
        ins = []
        for i, s in enumerate(shapes):
            p = T.tensor(arr(s, seed + i), dtype=T.float64)
            ins.append(fw.make_dual(p, T.tensor(arr(s, seed + 100 + i), dtype=T.float64)) if i in dual else p)
        out = fn(T, F, *ins)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        res = [fw.unpack_dual(o) for o in outs]
        return [(to_np(p), to_np(t)) for p, t in res]


A, B = (3, 4), (3, 4)
CASES = {
    # elementwise, binary with broadcasting
    'add': ([A, B], lambda T, F, x, y: x + y),
    'add_bcast': ([(3, 1), (1, 4)], lambda T, F, x, y: T.add(x, y, alpha=2.5)),
    'add_number': ([A], lambda T, F, x: x + 1.5),
    'sub': ([A, B], lambda T, F, x, y: x - y),
    'rsub': ([A], lambda T, F, x: 2 - x),
    'mul': ([A, (4,)], lambda T, F, x, y: x * y),
    'mul_number': ([A], lambda T, F, x: x * 2.5),
    'div': ([A, B], lambda T, F, x, y: x / (y.abs() + 0.5)),
    'rdiv': ([A], lambda T, F, x: 1 / (x.abs() + 0.5)),
    'div_same': ([A], lambda T, F, x: x / (x.exp() + x)),
    'pow_scalar': ([A], lambda T, F, x: x ** 3),
    'pow_tensor': ([A, B], lambda T, F, x, y: (x.abs() + 0.5) ** y),
    'atan2': ([A, B], lambda T, F, x, y: T.atan2(x, y)),
    'hypot': ([A, B], lambda T, F, x, y: T.hypot(x, y)),
    'maximum': ([A, B], lambda T, F, x, y: T.maximum(x, y)),
    'minimum': ([A, B], lambda T, F, x, y: T.minimum(x, y)),
    'where': ([A, B], lambda T, F, x, y: T.where(x > 0, x, y)),
    'lerp': ([A, B], lambda T, F, x, y: T.lerp(x, y, 0.3)),
    'addcmul': ([A, B, B], lambda T, F, x, y, z: T.addcmul(x, y, z, value=0.5)),
    'clamp': ([A], lambda T, F, x: x.clamp(-0.5, 0.5)),
    # elementwise, unary
    'neg': ([A], lambda T, F, x: -x),
    'exp': ([A], lambda T, F, x: x.exp()),
    'log': ([A], lambda T, F, x: (x.abs() + 0.1).log()),
    'log1p': ([A], lambda T, F, x: x.abs().log1p()),
    'expm1': ([A], lambda T, F, x: x.expm1()),
    'sin_cos': ([A], lambda T, F, x: x.sin() * x.cos()),
    'tan': ([A], lambda T, F, x: (x * 0.3).tan()),
    'tanh': ([A], lambda T, F, x: x.tanh()),
    'sigmoid': ([A], lambda T, F, x: x.sigmoid()),
    'sqrt': ([A], lambda T, F, x: (x.abs() + 0.1).sqrt()),
    'rsqrt': ([A], lambda T, F, x: (x.abs() + 0.1).rsqrt()),
    'reciprocal': ([A], lambda T, F, x: (x.abs() + 0.5).reciprocal()),
    'abs': ([A], lambda T, F, x: x.abs()),
    'erf': ([A], lambda T, F, x: T.erf(x)),
    'floor': ([A], lambda T, F, x: x.floor()),
    'sign': ([A], lambda T, F, x: x.sign()),
    'relu': ([A], lambda T, F, x: F.relu(x)),
    'gelu': ([A], lambda T, F, x: F.gelu(x)),
    'gelu_tanh': ([A], lambda T, F, x: F.gelu(x, approximate='tanh')),
    'silu': ([A], lambda T, F, x: F.silu(x)),
    'elu': ([A], lambda T, F, x: F.elu(x)),
    'leaky_relu': ([A], lambda T, F, x: F.leaky_relu(x, 0.1)),
    'softplus': ([A], lambda T, F, x: F.softplus(x)),
    'mish': ([A], lambda T, F, x: F.mish(x)),
    'hardtanh': ([A], lambda T, F, x: F.hardtanh(x)),
    'logsigmoid': ([A], lambda T, F, x: F.logsigmoid(x)),
    # reductions
    'sum': ([A], lambda T, F, x: x.sum()),
    'sum_dim': ([A], lambda T, F, x: x.sum(1, keepdim=True)),
    'mean': ([A], lambda T, F, x: x.mean(0)),
    'prod': ([A], lambda T, F, x: x.prod(1)),
    'amax': ([A], lambda T, F, x: x.amax(1)),
    'max_dim': ([A], lambda T, F, x: x.max(1)),
    'min_all': ([A], lambda T, F, x: x.min()),
    'norm': ([A], lambda T, F, x: x.norm()),
    'vector_norm': ([A], lambda T, F, x: T.linalg.vector_norm(x, 3, dim=1)),
    'var': ([A], lambda T, F, x: x.var(1)),
    'std': ([A], lambda T, F, x: x.std()),
    'logsumexp': ([A], lambda T, F, x: x.logsumexp(1)),
    'cumsum': ([A], lambda T, F, x: x.cumsum(1)),
    'cumprod': ([A], lambda T, F, x: x.cumprod(0)),
    'softmax': ([A], lambda T, F, x: F.softmax(x, -1)),
    'log_softmax': ([A], lambda T, F, x: F.log_softmax(x, 0)),
    # products
    'matmul': ([A, (4, 5)], lambda T, F, x, y: x @ y),
    'matmul_bcast': ([(2, 3, 4), (4, 2)], lambda T, F, x, y: T.matmul(x, y)),
    'mm': ([A, (4, 2)], lambda T, F, x, y: T.mm(x, y)),
    'bmm': ([(2, 3, 4), (2, 4, 5)], lambda T, F, x, y: T.bmm(x, y)),
    'mv': ([A, (4,)], lambda T, F, x, y: T.mv(x, y)),
    'dot': ([(4,), (4,)], lambda T, F, x, y: T.dot(x, y)),
    'linear': ([A, (5, 4), (5,)], lambda T, F, x, w, b: F.linear(x, w, b)),
    'linear_nobias': ([A, (5, 4)], lambda T, F, x, w: F.linear(x, w)),
    'addmm': ([(3, 2), A, (4, 2)], lambda T, F, c, x, y: T.addmm(c, x, y, beta=0.5, alpha=2.0)),
    'einsum': ([A, (4, 5)], lambda T, F, x, y: T.einsum('ij,jk->ik', x, y)),
    'outer': ([(3,), (4,)], lambda T, F, x, y: T.outer(x, y)),
    # views, shapes, indexing
    'reshape': ([A], lambda T, F, x: x.reshape(2, 6)),
    'view': ([A], lambda T, F, x: x.view(-1)),
    'transpose': ([A], lambda T, F, x: x.transpose(0, 1)),
    'permute': ([(2, 3, 4)], lambda T, F, x: x.permute(2, 0, 1)),
    't': ([A], lambda T, F, x: x.t()),
    'unsqueeze_squeeze': ([A], lambda T, F, x: x.unsqueeze(1).squeeze()),
    'flatten': ([(2, 3, 4)], lambda T, F, x: x.flatten(1)),
    'expand': ([(3, 1)], lambda T, F, x: x.expand(3, 4)),
    'slice': ([A], lambda T, F, x: x[1:, ::2]),
    'select': ([A], lambda T, F, x: x[1]),
    'fancy_index': ([A], lambda T, F, x: x[:, [0, 2, 2]]),
    'mask_index': ([A], lambda T, F, x: x[x > 0]),
    'gather': ([A], lambda T, F, x: x.gather(1, T.tensor([[0, 1], [2, 3], [1, 1]]))),
    'index_select': ([A], lambda T, F, x: x.index_select(0, T.tensor([2, 0]))),
    'cat': ([A, B], lambda T, F, x, y: T.cat([x, y], 1)),
    'stack': ([A, B], lambda T, F, x, y: T.stack([x, y])),
    'split': ([A], lambda T, F, x: x.split(2, 1)),
    'chunk': ([A], lambda T, F, x: x.chunk(3, 0)),
    'unbind': ([A], lambda T, F, x: x.unbind(1)),
    'narrow': ([A], lambda T, F, x: x.narrow(1, 1, 2)),
    'flip': ([A], lambda T, F, x: x.flip(0)),
    'roll': ([A], lambda T, F, x: x.roll(1, 1)),
    'repeat': ([A], lambda T, F, x: x.repeat(2, 1)),
    'tril': ([A], lambda T, F, x: x.tril()),
    'diagonal': ([A], lambda T, F, x: x.diagonal()),
    'masked_fill': ([A], lambda T, F, x: x.masked_fill(x > 0, 0.0)),
    'clone_contiguous': ([A], lambda T, F, x: x.t().contiguous().clone()),
    'to_float32': ([A], lambda T, F, x: x.to(T.float32) * 1),
    'pad_constant': ([A], lambda T, F, x: F.pad(x, (1, 2), value=0.5)),
    'pad_reflect': ([(2, 3, 4)], lambda T, F, x: F.pad(x, (1, 1), mode='reflect')),
    # nn
    'layer_norm': ([(2, 3, 4), (4,), (4,)], lambda T, F, x, w, b: F.layer_norm(x, (4,), w, b)),
    'layer_norm_plain': ([A], lambda T, F, x: F.layer_norm(x, (4,))),
    'batch_norm_train': ([(5, 3), (3,), (3,)], lambda T, F, x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    'group_norm': ([(2, 4, 3)], lambda T, F, x: F.group_norm(x, 2)),
    'conv1d': ([(2, 3, 7), (4, 3, 3), (4,)], lambda T, F, x, w, b: F.conv1d(x, w, b, padding=1)),
    'conv2d': ([(1, 2, 5, 5), (3, 2, 3, 3)], lambda T, F, x, w: F.conv2d(x, w, stride=2)),
    'max_pool2d': ([(1, 2, 4, 4)], lambda T, F, x: F.max_pool2d(x, 2)),
    'avg_pool2d': ([(1, 2, 4, 4)], lambda T, F, x: F.avg_pool2d(x, 2)),
    'adaptive_avg_pool2d': ([(1, 2, 4, 4)], lambda T, F, x: F.adaptive_avg_pool2d(x, 1)),
    'mse_loss': ([A, B], lambda T, F, x, y: F.mse_loss(x, y)),
    'l1_loss': ([A, B], lambda T, F, x, y: F.l1_loss(x, y)),
    'smooth_l1_loss': ([A, B], lambda T, F, x, y: F.smooth_l1_loss(x, y)),
    'cross_entropy': ([A], lambda T, F, x: F.cross_entropy(x, T.tensor([0, 3, 1]))),
    'cross_entropy_probs': ([A, B], lambda T, F, x, y: F.cross_entropy(x, y.softmax(1))),
    'nll_loss': ([A], lambda T, F, x: F.nll_loss(F.log_softmax(x, 1), T.tensor([0, 3, 1]))),
    'bce_with_logits': ([A, B], lambda T, F, x, y: F.binary_cross_entropy_with_logits(x, y.sigmoid())),
    'bce': ([A], lambda T, F, x: F.binary_cross_entropy(x.sigmoid(), T.tensor([[0., 1, 1, 0]] * 3, dtype=T.float64))),
    'kl_div': ([A, B], lambda T, F, x, y: F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction='batchmean')),
    'normalize': ([A], lambda T, F, x: F.normalize(x, dim=1)),
    'embedding': ([(5, 3)], lambda T, F, w: F.embedding(T.tensor([[0, 4], [2, 2]]), w)),
    'sdpa': ([(1, 3, 4), (1, 5, 4), (1, 5, 4)], lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v)),
    'cosine_similarity': ([A, B], lambda T, F, x, y: F.cosine_similarity(x, y)),
    'mlp': ([(2, 4), (5, 4), (5,), (3, 5)], lambda T, F, x, w1, b1, w2: F.linear(F.gelu(F.linear(x, w1, b1)), w2).softmax(-1)),
    # linear algebra
    'det': ([(3, 3)], lambda T, F, x: T.linalg.det(x)),
    'inv': ([(3, 3)], lambda T, F, x: T.linalg.inv(x + 3 * T.eye(3, dtype=T.float64))),
    'solve': ([(3, 3), (3, 2)], lambda T, F, a, b: T.linalg.solve(a + 3 * T.eye(3, dtype=T.float64), b)),
}


def check(name, dual=None):
    shapes, fn = CASES[name]
    ours, theirs = run('litnn', fn, shapes, dual), run('torch', fn, shapes, dual)
    assert len(ours) == len(theirs)
    for (p, t), (tp, tt) in zip(ours, theirs):
        np.testing.assert_allclose(p, tp, rtol=1e-10, atol=1e-12)
        assert (t is None) == (tt is None), (t, tt)
        if t is not None:
            assert t.shape == tt.shape
            np.testing.assert_allclose(t, tt, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize('name', list(CASES))
def test_op_tangent(name):
    check(name)


@pytest.mark.parametrize('name', [n for n, (s, _) in CASES.items() if len(s) > 1])
def test_op_tangent_first_input_only(name):
    check(name, dual=[0])


@pytest.mark.parametrize('name', [n for n, (s, _) in CASES.items() if len(s) > 1])
def test_op_tangent_last_input_only(name):
    check(name, dual=[len(CASES[name][0]) - 1])


def test_level_api():
    x = litnn.tensor([1., 2.], dtype=litnn.float64)
    assert lfw.unpack_dual(x) == (x, None) and type(lfw.unpack_dual(x)).__name__ == 'UnpackedDualTensor'
    assert lfw.UnpackedDualTensor._fields == tfw.UnpackedDualTensor._fields
    with lfw.dual_level() as level:
        assert level == 0 == lfw._current_level
        d = lfw.make_dual(x, litnn.ones(2, dtype=litnn.float64))
        assert d._base is x
        u = lfw.unpack_dual(d)
        assert u.primal is not d and lfw.unpack_dual(u.primal).tangent is None
        assert lfw.unpack_dual(d.detach()).tangent is None
        assert lfw.unpack_dual(d > 0).tangent is None and lfw.unpack_dual(d.argmax()).tangent is None
        assert lfw.unpack_dual(x).tangent is None
    assert lfw._current_level == -1 and lfw.unpack_dual(d).tangent is None
    assert lfw.enter_dual_level() == 0
    y = lfw.make_dual(x, x)
    lfw.exit_dual_level()
    assert lfw.unpack_dual(y).tangent is None

    @lfw.dual_level()
    def decorated(): return lfw._current_level
    assert decorated() == 0 and lfw._current_level == -1


def errors(T, fw):
    "The messages of the misuses torch checks."
    out, x = [], T.tensor([1., 2.])
    def catch(f):
        try: f(); out.append(None)
        except Exception as e: out.append((type(e).__name__, str(e)))
    catch(lambda: fw.make_dual(x, x))
    catch(lambda: fw.exit_dual_level())
    with fw.dual_level():
        catch(fw.enter_dual_level)
        catch(lambda: fw.make_dual(T.tensor([1, 2]), x))
        catch(lambda: fw.make_dual(x, T.tensor([1, 2])))
        catch(lambda: fw.make_dual(x, T.ones(3)))
        catch(lambda: fw.exit_dual_level(level=3))
    return out


def test_errors_match_torch():
    ours, theirs = errors(litnn, lfw), errors(torch, tfw)
    for o, t in zip(ours, theirs):
        assert o[0] == t[0]
        assert o[1] == t[1].replace('torch.', 'litnn.')


def custom_functions(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x); ctx.save_for_forward(x); ctx.k = k
            return x ** 3 * k
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g * ctx.k, None
        @staticmethod
        def jvp(ctx, tx, tk):
            assert tk is None
            x, = ctx.saved_tensors
            return 3 * x ** 2 * tx * ctx.k

    class MulAdd(T.autograd.Function):       # two tensor inputs, two outputs, setup_context style
        @staticmethod
        def forward(x, y): return x * y, x + y
        @staticmethod
        def setup_context(ctx, inputs, output): ctx.save_for_backward(*inputs); ctx.save_for_forward(*inputs)
        @staticmethod
        def backward(ctx, g1, g2):
            x, y = ctx.saved_tensors
            return g1 * y + g2, g1 * x + g2
        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * y + x * ty, tx + ty

    class SavedForBackwardOnly(T.autograd.Function):   # jvp does not see what forward saved for backward
        @staticmethod
        def forward(ctx, x): ctx.save_for_backward(x); return x * 2
        @staticmethod
        def backward(ctx, g): return g * 2
        @staticmethod
        def jvp(ctx, t):
            assert len(ctx.saved_tensors) == 0
            return t * 2

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x): return x * 2
        @staticmethod
        def backward(ctx, g): return g * 2
    return Cube, MulAdd, NoJvp, SavedForBackwardOnly


@pytest.mark.parametrize('lib', ['litnn', 'torch'])
def test_custom_function_jvp(lib):
    T, fw = (litnn, lfw) if lib == 'litnn' else (torch, tfw)
    Cube, MulAdd, NoJvp, SavedOnly = custom_functions(T)
    x, y = T.tensor(arr(4, 0), dtype=T.float64), T.tensor(arr(4, 1), dtype=T.float64)
    tx = T.tensor(arr(4, 2), dtype=T.float64)
    with fw.dual_level():
        d = fw.make_dual(x, tx)
        np.testing.assert_allclose(to_np(fw.unpack_dual(Cube.apply(d, 2.0)).tangent), to_np(6 * x ** 2 * tx))
        a, b = MulAdd.apply(d, y)
        np.testing.assert_allclose(to_np(fw.unpack_dual(a).tangent), to_np(tx * y))
        np.testing.assert_allclose(to_np(fw.unpack_dual(b).tangent), to_np(tx))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function for custom autograd.Function to use it with forward mode AD."):
            NoJvp.apply(d)
        assert fw.unpack_dual(NoJvp.apply(x)).tangent is None
        np.testing.assert_allclose(to_np(fw.unpack_dual(SavedOnly.apply(d)).tangent), to_np(2 * tx))



@pytest.mark.parametrize('lib', ['litnn', 'torch'])
def test_custom_function_keeps_result_on_ctx(lib):
    "torch's forward-mode tutorial keeps its output as `ctx.result` and `del`s it in jvp: ctx has no `result` of its own."
    T, fw = (litnn, lfw) if lib == 'litnn' else (torch, tfw)
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            assert not hasattr(ctx, 'result')
            ctx.result = T.exp(x)
            return ctx.result
        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            del ctx.result
            assert not hasattr(ctx, 'result')
            return gO
    x = T.tensor(arr((3, 3), 0), dtype=T.float64, requires_grad=True)
    t = T.tensor(arr((3, 3), 1), dtype=T.float64)
    with fw.dual_level():
        tangent = fw.unpack_dual(Exp.apply(fw.make_dual(x, t))).tangent
    np.testing.assert_allclose(to_np(tangent), np.exp(arr((3, 3), 0)) * arr((3, 3), 1))
    assert T.autograd.gradcheck(Exp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                check_undefined_grad=False, check_batched_grad=False)

def test_reverse_mode_through_dual_tensors():
    "The primal computation records the graph as usual; the tangent is differentiable too (as torch's)."
    res = {}
    for T, fw in ((litnn, lfw), (torch, tfw)):
        x = T.tensor(arr(4, 0), dtype=T.float64, requires_grad=True)
        t = T.tensor(arr(4, 1), dtype=T.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, t)
            y = (d.sin() * d).tanh().sum()
            p, jt = fw.unpack_dual(y)
            gx, gt = T.autograd.grad(p + jt, (x, t))
        res[T.__name__] = [to_np(v) for v in (p, jt, gx, gt)]
    for o, t in zip(res['litnn'], res['torch']): np.testing.assert_allclose(o, t, rtol=1e-10)


def test_chain_in_no_grad():
    "Forward mode needs no graph: tangents flow under no_grad too."
    for T, fw in ((litnn, lfw), (torch, tfw)):
        with T.no_grad(), fw.dual_level():
            d = fw.make_dual(T.tensor([0.5], dtype=T.float64), T.tensor([1.0], dtype=T.float64))
            y = F_ = d.exp().log_softmax(0) + d.tanh()
            assert not y.requires_grad
            np.testing.assert_allclose(to_np(fw.unpack_dual(y).tangent), [1 - np.tanh(0.5) ** 2])


FUNCS = {
    'poly': lambda T, x, y: (x ** 3 * y).sum(1),
    'mlp': lambda T, x, y: (x @ y.t()).tanh().softmax(-1),
    'mixed': lambda T, x, y: T.cat([x.sin(), (x * y).logsumexp(0, keepdim=True)]),
    'norm': lambda T, x, y: T.nn.functional.layer_norm(x * y, (4,)),
    'prod': lambda T, x, y: (x * y).prod(1) / x.sum(),   # prod's backward divides its saved output by x: two paths from x
}


def pair(shape, seed):
    a = arr(shape, seed)
    return litnn.tensor(a), torch.tensor(a)


def close(ours, theirs, tol=1e-10):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs): close(o, t, tol)
    else:
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=tol, atol=tol)


@pytest.mark.parametrize('name', FUNCS)
def test_func_jvp(name):
    (x, tx_), (y, ty_) = pair((3, 4), 0), pair((3, 4), 1)
    (u, tu), (v, tv) = pair((3, 4), 2), pair((3, 4), 3)
    f = FUNCS[name]
    close(litnn.func.jvp(lambda a, b: f(litnn, a, b), (x, y), (u, v)), torch.func.jvp(lambda a, b: f(torch, a, b), (tx_, ty_), (tu, tv)))


@pytest.mark.parametrize('argnums', [0, 1, (0, 1)])
@pytest.mark.parametrize('name', FUNCS)
def test_jacfwd(name, argnums):
    (x, tx_), (y, ty_) = pair((3, 4), 0), pair((3, 4), 1)
    f = FUNCS[name]
    close(litnn.func.jacfwd(lambda a, b: f(litnn, a, b), argnums)(x, y), torch.func.jacfwd(lambda a, b: f(torch, a, b), argnums)(tx_, ty_))


@pytest.mark.parametrize('name', FUNCS)
def test_hessian_forward_over_reverse(name):
    (x, tx_), (y, ty_) = pair((2, 4), 0), pair((2, 4), 1)
    f = FUNCS[name]
    ours = litnn.func.jacfwd(litnn.func.jacrev(lambda a: f(litnn, a, y).sum()))(x)
    close(ours, torch.func.hessian(lambda a: f(torch, a, ty_).sum())(tx_), 1e-9)
    close(litnn.func.hessian(lambda a: f(litnn, a, y).sum())(x), ours, 1e-12)


@pytest.mark.parametrize('name', [n for n in FUNCS if n != 'norm'])   # layer_norm's third derivative is off in reverse mode alone too
def test_reverse_over_forward(name):
    (x, tx_), (y, ty_) = pair((2, 4), 0), pair((2, 4), 1)
    f = FUNCS[name]
    close(litnn.func.jacrev(litnn.func.jacfwd(lambda a: f(litnn, a, y).sum()))(x),
          torch.func.jacrev(torch.func.jacfwd(lambda a: f(torch, a, ty_).sum()))(tx_), 1e-9)


def test_hvp_jvp_of_grad():
    "Forward-over-reverse Hessian-vector product: jvp of grad."
    (x, tx_), (v, tv) = pair(5, 0), pair(5, 1)
    f = lambda T: (lambda a: (a.sin() * a.exp()).sum() + a.softmax(0)[0])
    close(litnn.func.jvp(litnn.func.grad(f(litnn)), (x,), (v,)), torch.func.jvp(torch.func.grad(f(torch)), (tx_,), (tv,)))


def test_nested_jvp():
    "jvp of jvp: the inner one falls back to the double-backward trick, through which the outer level pushes its tangent."
    (x, tx_), (v, tv), (w, tw) = pair(4, 0), pair(4, 1), pair(4, 2)
    def g(T, jvp):
        f = lambda a: (a ** 3).sin()
        return lambda a: jvp(f, (a,), (T.ones_like(a),))[1]
    close(litnn.func.jvp(g(litnn, litnn.func.jvp), (x,), (v,)), torch.func.jvp(g(torch, torch.func.jvp), (tx_,), (tv,)))


def test_func_jvp_errors_and_aux():
    x, tx_ = pair(3, 0)
    out, jt, aux = litnn.func.jvp(lambda a: (a.exp(), a.sum()), (x,), (litnn.ones(3, dtype=litnn.float64),), has_aux=True)
    tout, tjt, taux = torch.func.jvp(lambda a: (a.exp(), a.sum()), (tx_,), (torch.ones(3, dtype=torch.float64),), has_aux=True)
    close((out, jt, aux), (tout, tjt, taux))
    assert not out.requires_grad and not jt.requires_grad and lfw.unpack_dual(aux).tangent is None
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"): litnn.func.jvp(litnn.sin, x, x)
    # an output independent of the input: zeros, as torch
    close(litnn.func.jvp(lambda a: litnn.ones(2, dtype=litnn.float64), (x,), (x,)), torch.func.jvp(lambda a: torch.ones(2, dtype=torch.float64), (tx_,), (tx_,)))


def test_saved_output_carries_tangent():
    "tanh saves its output for backward: forward-over-reverse needs that output's tangent (here via autograd.grad in a level)."
    res = []
    for T, fw in ((litnn, lfw), (torch, tfw)):
        x = T.tensor(arr(3, 0), dtype=T.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, T.ones(3, dtype=T.float64))
            g, = T.autograd.grad(d.tanh().sigmoid().sum(), d, create_graph=True)
            res.append(to_np(fw.unpack_dual(g).tangent))
    np.testing.assert_allclose(res[0], res[1], rtol=1e-10)


def test_rules_used():
    "The notebook's table: which rule each kind of operation takes."
    x = litnn.tensor(arr((2, 3), 0))
    with lfw.dual_level():
        d = lfw.make_dual(x, x)
        d.t(); d * d; d + 1; d.tanh(); LF.softmax(d, 1)
    rule = {c.__name__: r.__name__ for c, r in lfw._RULES.items()}
    assert rule['TBackward0'] == '_linear' and rule['MulBackward0'] == '_multilinear' and rule['AddBackward0'] == '_affine'
    assert rule['TanhBackward0'] == '_elementwise' and rule['SoftmaxBackward0'] == '_double_backward'


def _set(y, k, v):
    y[k] = v
    return y


INPLACE = {
    'mul_': lambda T, d: d.clone().mul_(2),
    'add_dual': lambda T, d: d.clone().add_(d, alpha=3),
    'sub_into_plain': lambda T, d: T.ones(3, dtype=T.float64).sub_(d),
    'div_': lambda T, d: d.clone().div_(d.exp()),
    'tanh_': lambda T, d: d.clone().tanh_(),
    'clamp_': lambda T, d: d.clone().clamp_(-0.1, 0.4),
    'relu_inplace': lambda T, d: T.nn.functional.relu(d.clone(), inplace=True),
    'copy_': lambda T, d: T.zeros(3, dtype=T.float64).copy_(d),
    'zero_': lambda T, d: d.clone().zero_(),
    'fill_': lambda T, d: d.clone().fill_(2.0),
    'masked_fill_': lambda T, d: d.clone().masked_fill_(d > 0, 1.0),
    'index_add_': lambda T, d: d.clone().index_add_(0, T.tensor([0, 0]), d[1:] * 2),
    'setitem_number': lambda T, d: _set(d.clone(), 0, 5.0),
    'setitem_dual': lambda T, d: _set(T.zeros(3, dtype=T.float64), slice(0, 2), d[1:] * 3),
    'setitem_mask': lambda T, d: _set(d.clone(), d > 0, d[d > 0] ** 2),
    'view_inplace': lambda T, d: (lambda y: (y[1:].mul_(2), y)[1])(d.clone()),
    'view_of_view_inplace': lambda T, d: (lambda y: (y[1:][:1].add_(d[:1]), y)[1])(d.clone()),
    'transposed_view_inplace': lambda T, d: (lambda y: (y.t()[0].mul_(d), y)[1])(d.clone().reshape(3, 1).expand(3, 2).contiguous()),
    'unsqueeze_': lambda T, d: d.clone().unsqueeze_(0) * 1,
    't_': lambda T, d: d.clone().reshape(1, 3).t_() * 1,
    'views_follow_base': lambda T, d: (lambda y, v, w: (y.mul_(2), w.add_(d[:2]), T.stack([v, w]))[2])(*(lambda y: (y, y[1:], y[:2]))(d.clone())),
}


@pytest.mark.parametrize('name', INPLACE)
def test_inplace(name):
    res = []
    for T, fw in ((litnn, lfw), (torch, tfw)):
        with fw.dual_level():
            d = fw.make_dual(T.tensor([0.3, -0.2, 0.5], dtype=T.float64), T.tensor([1., 2, 3], dtype=T.float64))
            p, t = fw.unpack_dual(INPLACE[name](T, d))
            res.append((to_np(p), to_np(t)))
    (p, t), (tp, tt) = res
    np.testing.assert_allclose(p, tp, rtol=1e-12)
    assert (t is None) == (tt is None)
    if t is not None: np.testing.assert_allclose(t, tt, rtol=1e-12)


def test_repr_shows_tangent():
    outs = []
    for T, fw in ((litnn, lfw), (torch, tfw)):
        x = T.tensor([-0.0346, 0.5917, -1.5602], dtype=T.float64, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, T.ones(3))
            outs.append((repr(d), repr(fw.make_dual(T.tensor(1.), T.tensor(2.))), repr(d.exp())))
        outs[-1] += (repr(d),)
    assert outs[0] == tuple(s.replace('torch.', 'litnn.') for s in outs[1])


def model_and_inputs(T):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Conv2d(2, 3, 3, padding=1), T.nn.BatchNorm2d(3), T.nn.GELU(), T.nn.Flatten(), T.nn.Linear(48, 5), T.nn.LayerNorm(5)).double()
    return m


def test_module_jvp_through_functional_call():
    "jvp with respect to a model's parameters (a dict of primals), as a sensitivity analysis does."
    res = []
    for T in (litnn, torch):
        m = model_and_inputs(T)
        sd = {k: T.tensor(v.detach().numpy()) for k, v in model_and_inputs(torch).state_dict().items()}
        m.load_state_dict(sd)
        m.eval()             # torch.func refuses the in-place update of the running statistics
        params = {k: v.detach() for k, v in m.named_parameters()}
        tangents = {k: T.tensor(arr(tuple(v.shape), i)) for i, (k, v) in enumerate(params.items())}
        x = T.tensor(arr((2, 2, 4, 4), 99))
        out, jt = T.func.jvp(lambda p: T.func.functional_call(m, p, (x,)), (params,), (tangents,))
        res.append((to_np(out), to_np(jt)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-8, atol=1e-10)


def test_module_with_dual_input():
    res = []
    for T, fw in ((litnn, lfw), (torch, tfw)):
        m = model_and_inputs(T)
        m.load_state_dict({k: T.tensor(v.detach().numpy()) for k, v in model_and_inputs(torch).state_dict().items()})
        with fw.dual_level():
            d = fw.make_dual(T.tensor(arr((2, 2, 4, 4), 5)), T.tensor(arr((2, 2, 4, 4), 6)))
            p, t = fw.unpack_dual(m(d))
        res.append((to_np(p), to_np(t), to_np(m[1].running_mean)))
    for o, t in zip(*res): np.testing.assert_allclose(o, t, rtol=1e-8, atol=1e-10)


def test_jvp_under_vmap():
    "vmap over tangents: the Jacobian one column per sample, as torch.func's jacfwd is built."
    x, tx_ = pair(4, 0)
    f = lambda T: (lambda a: (a.sin() * a.sum()).tanh())
    ours = litnn.func.vmap(lambda t: litnn.func.jvp(f(litnn), (x,), (t,))[1])(litnn.eye(4, dtype=litnn.float64))
    theirs = torch.func.vmap(lambda t: torch.func.jvp(f(torch), (tx_,), (t,))[1])(torch.eye(4, dtype=torch.float64))
    close(ours, theirs)


def test_profiler_and_dual_level():
    "A profile recording around a dual level, and one inside it: tangents still flow, the ops are recorded."
    x = litnn.tensor(arr(3, 0))
    with litnn.profiler.profile() as prof:
        with lfw.dual_level():
            d = lfw.make_dual(x, litnn.ones(3, dtype=litnn.float64))
            t = lfw.unpack_dual(d.sin()).tangent
    np.testing.assert_allclose(to_np(t), np.cos(arr(3, 0)))
    assert any(e.name == 'aten::sin' for e in prof.events())
    with lfw.dual_level():
        d = lfw.make_dual(x, litnn.ones(3, dtype=litnn.float64))
        with litnn.profiler.profile() as prof:
            y = d.exp()
        np.testing.assert_allclose(to_np(lfw.unpack_dual(d.cos()).tangent), -np.sin(arr(3, 0)))
    assert any(e.name == 'aten::exp' for e in prof.events())


@pytest.mark.parametrize('device', ['cpu'] + (['cuda'] if litnn.cuda.is_available() else []))
def test_on_device(device):
    "The rules and the in-place bookkeeping build their index arrays in the tensor's own array module."
    a, t = arr((3, 4), 0), arr((3, 4), 1)
    with lfw.dual_level():
        d = lfw.make_dual(litnn.tensor(a, device=device), litnn.tensor(t, device=device))
        y = (d.tanh() @ d.t()).softmax(-1).clone()
        y[0].mul_(2)
        p, jt = lfw.unpack_dual(y)
    with tfw.dual_level():
        d = tfw.make_dual(torch.tensor(a), torch.tensor(t))
        y = (d.tanh() @ d.t()).softmax(-1).clone()
        y[0].mul_(2)
        tp, tjt = tfw.unpack_dual(y)
    assert p.device.type == device and jt.device.type == device
    np.testing.assert_allclose(to_np(p), to_np(tp), rtol=1e-10)
    np.testing.assert_allclose(to_np(jt), to_np(tjt), rtol=1e-9, atol=1e-12)


def test_max_unpool_tangent_follows_repeated_indices():
    # OpInfo's max_unpool samples repeat indices: the tangent is unpooled like the values (one of the repeats wins), not summed
    x, t = arr((1, 1, 2, 2), 0), arr((1, 1, 2, 2), 1)
    x[..., 1, 0], t[..., 1, 0] = x[..., 0, 1], t[..., 0, 1]     # the repeats equal: which one wins is unspecified in torch
    idx = np.array([[[[0, 5], [5, 3]]]])
    outs = []
    for T, F in ((litnn, LF), (torch, TF)):
        f = lambda a: F.max_unpool2d(a, T.tensor(idx), 2)
        outs.append([o.numpy() for o in T.func.jvp(f, (T.tensor(x),), (T.tensor(t),))])
    np.testing.assert_allclose(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1])


def test_embedding_tangent_includes_padding_rows():
    # padding_idx zeroes only the gradient: the looked-up rows (padding rows too) carry their tangents, as torch's jvp
    w, t = arr((5, 3), 0), arr((5, 3), 1)
    idx = np.array([[0, 2], [2, 4]])
    outs = []
    for T, F in ((litnn, LF), (torch, TF)):
        f = lambda a: F.embedding(T.tensor(idx), a, padding_idx=2)
        outs.append([o.numpy() for o in T.func.jvp(f, (T.tensor(w),), (T.tensor(t),))])
    np.testing.assert_allclose(outs[0][1], outs[1][1])
    np.testing.assert_allclose(outs[0][0], outs[1][0])


COMPLEX_OPS = {
    'exp': lambda T, F, a, b: T.exp(a), 'sin': lambda T, F, a, b: T.sin(a), 'abs': lambda T, F, a, b: a.abs(),
    'angle': lambda T, F, a, b: a.angle(), 'sqrt': lambda T, F, a, b: a.sqrt(), 'sgn': lambda T, F, a, b: T.sgn(a),
    'mul_conj': lambda T, F, a, b: a * b.conj(), 'div': lambda T, F, a, b: a / b, 'real_imag': lambda T, F, a, b: a.real * b.imag,
    'matmul': lambda T, F, a, b: a.reshape(2, 3) @ b.reshape(3, 2), 'norm': lambda T, F, a, b: a.norm(),
    'conv1d': lambda T, F, a, b: F.conv1d(a.reshape(1, 1, 6), b[:3].reshape(1, 1, 3), padding='same'),
}


@pytest.mark.parametrize('name', list(COMPLEX_OPS))
def test_complex_tangents_like_torch(name):
    "make_dual takes complex primals and tangents, as torch; the tangents of complex operations (holomorphic or not) are torch's."
    res = []
    for T, F, fw in ((litnn, LF, lfw), (torch, TF, tfw)):
        c = lambda s: T.tensor(arr(6, s) + 1j * arr(6, s + 1), dtype=T.complex128)
        with fw.dual_level():
            a, b = fw.make_dual(c(0), c(2)), fw.make_dual(c(4), c(6))
            p, t = fw.unpack_dual(COMPLEX_OPS[name](T, F, a, b))
            res.append((to_np(p), to_np(t)))
    (lp, lt), (tp, tt) = res
    np.testing.assert_allclose(lp, tp, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lt, tt, rtol=1e-10, atol=1e-12)


def _custom_jvp_outcome(lib, fw, case):
    "One of torch's checks of a custom Function's `jvp` (custom_function.cpp), run in `lib`: the tangents, or the error."
    F = lib.autograd.Function
    class Inplace(F):
        @staticmethod
        def forward(ctx, foo, flag):
            ctx.mark_dirty(foo); ctx.flag = flag; foo.mul_(2); return foo
        @staticmethod
        def vjp(ctx, g): return 2 * g, None
        @staticmethod
        def jvp(ctx, g, _):
            if ctx.flag == 'new': return 2 * g
            if ctx.flag == 'same': return g
            g.mul_(2); return g
    class View(F):
        @staticmethod
        def forward(ctx, foo, flag):
            ctx.flag = flag; return foo.narrow(0, 0, 2)
        @staticmethod
        def vjp(ctx, g): return g, None
        @staticmethod
        def jvp(ctx, g, _):
            r = g.narrow(0, 0, 2)
            if ctx.flag != 'ok': r = r.clone()
            if ctx.flag == 'view_of_other': r = r.view_as(r)
            return r
    class AsIs(F):
        @staticmethod
        def forward(ctx, x, y): return x + y, x
        @staticmethod
        def vjp(ctx, g1, g2): return g1 + g2, g1
        @staticmethod
        def jvp(ctx, xt, yt): return xt + yt, (xt.view_as(xt) if case == 'as_is_view' else xt)
    class NonDiff(F):
        @staticmethod
        def forward(ctx, x, y, z):
            out = z.clone(); ctx.mark_non_differentiable(out); return x.clone(), y.clone(), out
        @staticmethod
        def jvp(ctx, xt, yt, zt):
            return xt, (None if yt is None else yt + 1), (xt.clone() if case == 'nondiff_tangent' else None)
    d = lambda shape: fw.make_dual(lib.arange(1.0, 1.0 + np.prod(shape), dtype=lib.float64).reshape(shape),
                                   lib.full(shape, 0.5, dtype=lib.float64))
    with fw.dual_level():
        try:
            if case.startswith('inplace'): outs = [Inplace.apply(d((3,)).clone(), case.split('_')[1])]
            elif case.startswith('view'): outs = [View.apply(d((4,)), case[5:])]
            elif case.startswith('as_is'): outs = list(AsIs.apply(d(()), lib.tensor(1.0, dtype=lib.float64)))
            else: outs = list(NonDiff.apply(d(()), lib.tensor(3), lib.tensor(4)))
        except RuntimeError as e: return str(e)
        res = []
        for o in outs:
            t = fw.unpack_dual(o).tangent
            res.append(None if t is None else t.tolist())
        return res


@pytest.mark.parametrize('case', ['inplace_mul', 'inplace_new', 'inplace_same', 'view_ok', 'view_not_a_view', 'view_view_of_other',
                                  'as_is', 'as_is_view', 'nondiff', 'nondiff_tangent'])
def test_custom_function_jvp_checks_as_torch(case):
    """Forward runs with forward AD off; jvp's tangents are checked as torch checks them (in place for a dirty input, views for views,
    None for non-differentiable outputs); an integer input gets a None tangent."""
    assert _custom_jvp_outcome(litnn, lfw, case) == _custom_jvp_outcome(torch, tfw, case)


def test_dual_level_refusals_and_detach_as_torch():
    "A tangent that is itself dual is refused; out= with a dual tensor is refused (torch's `<op>_out`); detach_ drops the tangent."
    def run(lib, fw):
        res = []
        with fw.dual_level():
            dual = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0]))
            bar = lib.tensor([3.0, 4.0])
            for f in (lambda: fw.make_dual(lib.tensor([1.0, 1.0]), dual), lambda: lib.add(bar, bar, out=dual),
                      lambda: lib.add(dual, bar, out=bar), lambda: lib.mul(dual, 2, out=lib.empty(2)),
                      lambda: lib.add(lib.tensor([3.0, 4.0]), 1, out=lib.empty(2)).tolist()):   # (torch writes, then raises: bar is not compared)
                try: res.append(f())
                except RuntimeError as e: res.append(str(e))
            d = dual.clone(); d.detach_()
            res.append(fw.unpack_dual(d * 2).tangent)
            res.append(fw.unpack_dual(dual.detach() * 2).tangent)
            res.append(fw.unpack_dual(dual.clone() * 2).tangent.tolist())
        return res
    assert run(litnn, lfw) == run(torch, tfw)


@pytest.mark.parametrize('op', ['relu', 'leaky_relu', 'hardtanh', 'elu'])
def test_tangent_of_a_recorded_gradient_through_activations(op):
    "forward over reverse: the gradient of an activation (one that reads its own result or input) keeps the tangent of the incoming gradient."
    x = arr((5,), 0)
    t = arr((5,), 1)
    res = []
    for T, fw in ((torch, tfw), (litnn, lfw)):
        F = getattr(T.nn.functional, op)
        with fw.dual_level():
            w = T.tensor(x).requires_grad_()
            wd = fw.make_dual(w, T.tensor(t))
            r = F(wd)
            g = 2 * r
            (gx,) = T.autograd.grad(r, w, g, create_graph=True)
            res.append((to_np(fw.unpack_dual(gx).primal), to_np(fw.unpack_dual(gx).tangent)))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-12)
    assert res[1][1] is not None
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-12)

# --- tangents of views of a dual tensor (make_dual's primal keeps no tangent of its own, as torch's) -----------------
FW_VIEW_CASES = {
    'inplace_on_a_view': lambda T, fw, d: (d[1:].mul_(2), d),
    'two_views': lambda T, fw, d: (d[:2].add_(d[2:].clone().expand(2)), d),
    'view_of_view': lambda T, fw, d: (d.view(3, 1)[1:].mul_(3), d),
    'read_view': lambda T, fw, d: (None, d.view(3, 1)[1:]),
}

@pytest.mark.parametrize('case', list(FW_VIEW_CASES))
def test_tangents_of_dual_views(case):
    out = []
    for T, fw in ((litnn, lfw), (torch, tfw)):
        x, t = T.tensor([1., 2., 3.]), T.tensor([.1, .2, .3])
        with fw.dual_level():
            d = fw.make_dual(x.clone(), t)
            _, r = FW_VIEW_CASES[case](T, fw, d)
            u = fw.unpack_dual(r)
            out.append((np.round(u.primal.numpy(), 6).tolist(), np.round(u.tangent.numpy(), 6).tolist(),
                        fw.unpack_dual(d).tangent is t, fw.unpack_dual(d._base).tangent is None))
    assert out[0] == out[1]


def _jvp_pair(make, primals, tangents):
    "func.jvp of `make(lib)` in torch and litnn on the same numbers: [(outputs, tangents)] as numpy, torch's first."
    res = []
    for L in (torch, litnn):
        out, tan = L.func.jvp(make(L), tuple(L.tensor(p) for p in primals), tuple(L.tensor(t) for t in tangents))
        flat = lambda v: [x.detach().resolve_conj().numpy() for x in (v if isinstance(v, tuple) else (v,))]
        res.append((flat(out), flat(tan)))
    return res

@pytest.mark.parametrize('name', ['svd', 'svd_reduced', 'svdvals', 'qr', 'eigh', 'eigvalsh', 'eig_values'])
def test_decompositions_push_tangents_as_torch(name):
    """Forward mode through the decompositions: the backward that two passes differentiate must treat the cotangent as
    given even where its value is zero (litnn's tangents of U, V, Q, eigenvectors and eigenvalues were all zero)."""
    r = np.random.default_rng(21)
    X, T = r.standard_normal((4, 3)), r.standard_normal((4, 3))
    S, TS = r.standard_normal((4, 4)), r.standard_normal((4, 4))
    S, TS = S + S.T, TS + TS.T        # (eigh: a symmetric matrix moved symmetrically)
    make, p, t = {'svd': (lambda L: lambda a: L.linalg.svd(a, full_matrices=False)[1:2] + (L.linalg.svd(a, full_matrices=False)[0].abs(),), X, T),
                  'svd_reduced': (lambda L: lambda a: L.linalg.svd(a, full_matrices=False)[2].abs(), X, T),
                  'svdvals': (lambda L: lambda a: L.linalg.svdvals(a), X, T),
                  'qr': (lambda L: lambda a: L.linalg.qr(a), X, T),
                  'eigh': (lambda L: lambda a: (L.linalg.eigh(a)[0], L.linalg.eigh(a)[1].abs()), S, TS),
                  'eigvalsh': (lambda L: lambda a: L.linalg.eigvalsh(a), S, TS),
                  'eig_values': (lambda L: lambda a: L.linalg.eigvals(a), S, TS)}[name]
    (to, tt), (lo, lt) = _jvp_pair(make, (p,), (t,))
    for a, b in zip(to + tt, lo + lt):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10)
    assert any(np.abs(v).max() > 1e-3 for v in lt)

@pytest.mark.parametrize('dtype', ['float64', 'complex128'])
def test_logcumsumexp_tangent_as_torch(dtype):
    "logcumsumexp's forward formula is torch's: two backward passes took the log of a zero cotangent (NaN tangents)."
    r = np.random.default_rng(22)
    x, t = r.standard_normal((3, 5)) * 5, r.standard_normal((3, 5))
    if dtype == 'complex128': x, t = x + 1j * r.standard_normal((3, 5)), t + 1j * r.standard_normal((3, 5))
    (to, tt), (lo, lt) = _jvp_pair(lambda L: lambda a: L.logcumsumexp(a, 1), (x,), (t,))
    np.testing.assert_allclose(lt[0], tt[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(lo[0], to[0], rtol=1e-12)


def test_forward_mode_of_an_op_whose_backward_has_no_derivative_as_torch():
    "ctc_loss: its backward has no derivative, so forward mode has no formula: torch's NotImplementedError naming _ctc_loss."
    msgs = []
    for L in (torch, litnn):
        lp = L.tensor(np.log(np.full((5, 2, 4), 0.25)))
        tg, il, tl = L.tensor([[1, 2], [1, 1]]), L.tensor([5, 5]), L.tensor([2, 2])
        with pytest.raises(NotImplementedError) as e:
            L.func.jvp(lambda x: L.nn.functional.ctc_loss(x, tg, il, tl), (lp,), (L.ones_like(lp),))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# test_autograd.py test_metadata_check_check_conj: make_dual keeps the tangent as given only where it has the primal's
# conjugate and negative bits too; otherwise the tangent is copied into a tensor laid out as the primal, with its bits
# (torch's has_same_meta / new_with_same_meta), the values unchanged
@pytest.mark.parametrize('primal_kind', ['plain', 'conj', 'neg'])
@pytest.mark.parametrize('tangent_kind', ['plain', 'conj', 'neg'])
def test_make_dual_tangent_takes_the_primal_conj_and_neg_bits(primal_kind, tangent_kind):
    import torch
    res = []
    for lib in (litnn, torch):
        def make(kind):
            z = lib.view_as_complex(lib.tensor(np.arange(12.).reshape(2, 3, 2)))
            return z.conj() if kind == 'conj' else z.conj().imag if kind == 'neg' else z
        x, t = make(primal_kind), make(tangent_kind)
        if x.is_complex() != t.is_complex():
            res.append(None); continue
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(x, t)
            u = fw.unpack_dual(d).tangent
            tr = fw.unpack_dual(lib.real(d) if d.is_complex() else d * 1).tangent
            res.append((u is t, u.is_conj(), u.is_neg(), u.tolist() == t.tolist(), tr.tolist()))
    assert res[0] == res[1]


# test_autograd.py test_view_inplace_non_differentiable_views: an in-place op on a dual writes its tangent in place, so
# the tensor given to make_dual changes too (torch's in-place formulas); and a dual written into a view of a tensor
# without a tangent gives that tensor one (zero elsewhere) when the view is a forward view (indexing, narrow...), not
# when the tensor is only the primal of make_dual
def test_inplace_on_dual_updates_tangent_in_place_and_views_give_their_base_one():
    import torch
    res = []
    for lib in (litnn, torch):
        fw = lib.autograd.forward_ad
        foo, bar = lib.tensor([1., 2.], dtype=lib.float64), lib.ones(2, dtype=lib.float64)
        with fw.dual_level():
            dual = fw.make_dual(foo, bar)
            dual *= 2
            r = [bar.tolist(), fw.unpack_dual(dual).tangent is bar, fw.unpack_dual(foo).tangent]
            y = lib.zeros(2, 2, dtype=lib.float64)
            y[1].copy_(fw.make_dual(lib.ones(2, dtype=lib.float64), lib.full((2,), 5.0, dtype=lib.float64)))
            r.append(fw.unpack_dual(y).tangent.tolist())
            z = lib.zeros(3, dtype=lib.float64)
            z.narrow(0, 1, 2).add_(fw.make_dual(lib.ones(2, dtype=lib.float64), lib.full((2,), 2.0, dtype=lib.float64)))
            r.append(fw.unpack_dual(z).tangent.tolist())
            base = lib.rand(2, dtype=lib.float64)
            d2 = fw.make_dual(base, lib.ones(2, dtype=lib.float64))
            d2.narrow(0, 0, 1).mul_(3)
            r += [fw.unpack_dual(base).tangent, fw.unpack_dual(d2).tangent.tolist()]
        res.append(r)
    assert res[0] == res[1]

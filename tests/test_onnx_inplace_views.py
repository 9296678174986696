"litnn.onnx.export of forwards that write in place, into tensors and into views: run by onnxruntime, compared with litnn and torch."
import io
import numpy as np, pytest
import litnn, torch
from litnn.onnx.tracing import trace_module

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')


def _module(lib, forward, init=None):
    "A module of `lib` whose forward is `forward(self, lib, *args)`."
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            if init: init(self, lib)
        def forward(self, *args): return forward(self, lib, *args)
    return M


def _scale_cols(self, lib, x):
    y = x * 1
    y[:, :2] *= 2
    return y

def _into_input(self, lib, x):
    x[:, :2] *= 2
    return x

def _rows_add(self, lib, x):
    y = x + 0
    y[1:3] += 1
    return y.sin()

def _narrow_add(self, lib, x):
    y = x.exp()
    v = y.narrow(1, 0, 2)
    v.add_(1)
    return y, v * 3

def _masked_view(self, lib, x):
    y = x.clone()
    y[:, 1:].masked_fill_(y[:, 1:] > 0, 0.)
    return y

def _tensor_index(self, lib, x, idx):
    y = x.clone()
    y[idx] = x[0] * 5
    return y

def _const_index(self, lib, x):
    y = x.clone()
    y[lib.tensor([0, 2])] = 7.
    return y

def _gru_init(self, lib):
    self.ih, self.hh = lib.nn.Linear(3, 9), lib.nn.Linear(3, 9)

def _gru_loop(self, lib, x):
    "A GRU cell written out, its outputs written into a buffer column by column: out[:, t] = h."
    B, T, _ = x.shape
    out, h = lib.zeros(B, T, 3), lib.zeros(B, 3)
    for t in range(T):
        (ri, zi, ni), (rh, zh, nh) = self.ih(x[:, t]).chunk(3, 1), self.hh(h).chunk(3, 1)
        r, z = (ri + rh).sigmoid(), (zi + zh).sigmoid()
        n = (ni + r * nh).tanh()
        h = (1 - z) * n + z * h
        out[:, t] = h
    return out, h

def _rotary(self, lib, x):
    "Rotary embedding on the first d features of the last axis, in place: x[..., :d] = rotated."
    d = 4
    x = x.clone()
    pos = lib.arange(x.shape[-2]).float()[:, None] * lib.tensor([1.0, 0.1])
    cos, sin = pos.cos(), pos.sin()
    x1, x2 = x[..., 0:d:2], x[..., 1:d:2]
    x[..., :d] = lib.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
    return x

def _mixed(self, lib, x):
    y = x * 1
    y[y < 0] = 0.                # a boolean mask of y's shape: Where
    y.t()[0].zero_()             # a transposed view
    y[:, 0].copy_(x[:, 1])
    y.T[1].fill_(3.)
    return y

def _base_regenerates_views(self, lib, x):
    y = x * 1
    v, w = y[:, 1], y[1:]
    y.relu_()                    # the base itself: its live views read the new value
    return v + 1, w * 2

def _view_of_view(self, lib, x):
    y = x * 1
    v = y[1:][:, ::2]            # a view of a view, with a step
    v.mul_(-1)
    v[0] = 10.
    return y, v

def _scalar_write(self, lib, x):
    y = x * 1
    y[0, 1] = x[2, 2]
    y[2][3] = 4.
    return y

def _ints(self, lib, x):
    k = (x * 10).long()
    k[:, 0] += 100
    return k

def _two_writes_then_read(self, lib, x):
    y = x.clone()
    a, b = y[0], y[:, 0]
    a.add_(1)
    b.mul_(3)                    # b overlaps a: reads a's write
    return a, b, y

def _chained_views_read(self, lib, x):
    y = x.clone()
    v = y[1]
    y[1] = y[2] * 2
    return v.sum(), y

def _vector_shift(self, lib, x):
    y = x.clone()
    y[1:] = y[:-1] * 2           # reads the old values
    return y


CASES = {
    'scale_cols': (_scale_cols, None, [(3, 5)]),
    'into_input': (_into_input, None, [(3, 5)]),
    'rows_add': (_rows_add, None, [(4, 5)]),
    'narrow_add': (_narrow_add, None, [(3, 5)]),
    'masked_view': (_masked_view, None, [(3, 5)]),
    'tensor_index': (_tensor_index, None, [(4, 5), 'idx']),
    'const_index': (_const_index, None, [(3, 5)]),
    'gru_loop': (_gru_loop, _gru_init, [(2, 4, 3)]),
    'rotary': (_rotary, None, [(2, 6, 6)]),
    'mixed': (_mixed, None, [(3, 5)]),
    'base_regenerates_views': (_base_regenerates_views, None, [(3, 5)]),
    'view_of_view': (_view_of_view, None, [(4, 6)]),
    'scalar_write': (_scalar_write, None, [(3, 5)]),
    'ints': (_ints, None, [(3, 5)]),
    'two_writes_then_read': (_two_writes_then_read, None, [(3, 5)]),
    'chained_views_read': (_chained_views_read, None, [(3, 5)]),
    'vector_shift': (_vector_shift, None, [(4, 3)]),
}


def _inputs(spec, seed=0):
    rng = np.random.default_rng(seed)
    return [np.array([2, 0], dtype=np.int64) if s == 'idx' else rng.standard_normal(s).astype(np.float32) for s in spec]


def _eager(lib, forward, init, arrays):
    lib.manual_seed(0)
    m = _module(lib, forward, init)().eval()
    with lib.no_grad(): out = m(*[lib.tensor(a.copy()) for a in arrays])
    return m, [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize('case', CASES)
def test_write_exports_and_runs_as_litnn_and_torch(case):
    forward, init, spec = CASES[case]
    arrays = _inputs(spec)
    m, want = _eager(litnn, forward, init, arrays)
    tm = _module(torch, forward, init)().eval()
    if init: tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    with torch.no_grad(): tout = tm(*[torch.tensor(a.copy()) for a in arrays])
    for w, t in zip(want, tout if isinstance(tout, tuple) else (tout,)):      # litnn's eager result is torch's
        np.testing.assert_allclose(w, t.numpy(), rtol=1e-5, atol=1e-6)
    names = [f'in{i}' for i in range(len(arrays))]
    f = io.BytesIO()
    litnn.onnx.export(m, tuple(litnn.tensor(a.copy()) for a in arrays), f, input_names=names)
    sess = ort.InferenceSession(f.getvalue())
    for seed in (0, 1):       # on the traced inputs and on others
        arrays = _inputs(spec, seed)
        got = sess.run(None, {n: a.copy() for n, a in zip(names, arrays)})
        _, want = _eager(litnn, forward, init, arrays)
        assert len(got) == len(want)
        for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _kinds(forward, *args):
    tr, *_ = trace_module(_module(litnn, forward)(), args)
    return [n.kind for n in tr.nodes]


def test_write_into_a_view_is_one_put_and_views_are_read_again_only_when_used():
    kinds = _kinds(_rows_add, litnn.randn(4, 5))
    assert kinds == ['AddBackward0', 'SliceBackward0', 'AddBackward0', 'PutAt', 'TakeAt', 'PutAt', 'SinBackward0']
    def unused_view(self, lib, x):
        y = x * 2
        y.narrow(0, 0, 1).add_(1)
        return y
    assert _kinds(unused_view, litnn.randn(3, 2)) == ['MulBackward0', 'SliceBackward0', 'AddBackward0', 'PutAt']


def test_write_into_a_traced_input_keeps_the_graph_input():
    proto = litnn.onnx.export(_module(litnn, _into_input)(), (litnn.randn(3, 5),), input_names=['x'])
    assert [i.name for i in proto.graph.input] == ['x']


def test_put_at_and_take_at_are_scatter_and_gather():
    proto = litnn.onnx.export(_module(litnn, _narrow_add)(), (litnn.randn(3, 5),))
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count('ScatterND') == 1 and ops.count('Gather') == 1


def test_models_without_writes_record_nothing_new():
    def plain(self, lib, x): return (x[:, 1:] * 2).relu().sum(0)
    assert _kinds(plain, litnn.randn(3, 4)) == ['SliceBackward0', 'MulBackward0', 'ReluBackward0', 'SumBackward1']
    m = litnn.nn.Sequential(litnn.nn.Linear(4, 3), litnn.nn.ReLU()).eval()
    ops = [n.op_type for n in litnn.onnx.export(m, (litnn.randn(2, 4),)).graph.node]
    assert ops == ['Gemm', 'Relu', 'Identity']


def test_writes_on_constants_stay_constants():
    def const_mask(self, lib, x):
        m = lib.zeros(4)
        m[1:3] = 1.
        m.mul_(2)
        return x * m
    assert _kinds(const_mask, litnn.randn(2, 4)) == ['MulBackward0']


def test_untracked_in_place_changes_are_still_refused():
    def reshaped(self, lib, x):
        y = x * 2
        y.unsqueeze_(0)
        return y * 3
    with pytest.raises(RuntimeError, match="changed in place, in module"):
        trace_module(_module(litnn, reshaped)(), (litnn.randn(3),))


def test_a_write_that_fails_fails_as_in_eager():
    def bad(self, lib, x):
        y = x * 1
        y[:, :2] = lib.ones(3)
        return y
    with pytest.raises(Exception) as e, litnn.no_grad(): _module(litnn, bad)()(litnn.randn(3, 5))
    with pytest.raises(Exception) as f: litnn.onnx.export(_module(litnn, bad)(), (litnn.randn(3, 5),))
    assert (type(e.value), str(e.value)) == (type(f.value), str(f.value))


def test_the_hook_is_removed_after_an_export_even_when_it_fails():
    from litnn.autograd.grad_mode import _Mode
    def boom(self, lib, x):
        x[0] = 1.
        raise ValueError('boom')
    with pytest.raises(ValueError): litnn.onnx.export(_module(litnn, boom)(), (litnn.randn(3),))
    assert _Mode.writes is None and _Mode.trace is None
    y = litnn.zeros(3); y[1] = 2.; y[2:].add_(1)            # plain writes again
    assert y.tolist() == [0., 2., 1.]


def test_dynamic_axes_with_whole_writes_and_a_clear_error_for_partial_ones():
    def whole(self, lib, x):
        y = x * 1
        y.relu_()
        y.masked_fill_(y > 1, 1.)
        return y
    f = io.BytesIO()
    litnn.onnx.export(_module(litnn, whole)(), (litnn.randn(3, 4),), f, input_names=['x'], output_names=['y'],
                      dynamic_axes={'x': {0: 'b'}, 'y': {0: 'b'}})
    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32) * 2
    got = ort.InferenceSession(f.getvalue()).run(None, {'x': x})[0]
    np.testing.assert_allclose(got, np.minimum(np.maximum(x, 0), 1))
    with pytest.raises(RuntimeError, match='recorded at the element positions of the traced sizes'):
        litnn.onnx.export(_module(litnn, _scale_cols)(), (litnn.randn(3, 5),), io.BytesIO(), input_names=['x'], dynamic_axes={'x': {0: 'b'}})


def test_in_place_modules_and_functional_forms_export():
    "nn.ReLU(inplace=True) and F.relu_ in a CNN, a write in a submodule: as litnn and torch compute them."
    def build(lib):
        class Block(lib.nn.Module):
            def forward(self, x):
                x[:, :1] = x[:, :1] * 0.5            # a write into a channel, inside a submodule
                return lib.nn.functional.relu_(x)
        return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3), lib.nn.ReLU(inplace=True), Block(), lib.nn.Flatten()).eval()
    litnn.manual_seed(0); m = build(litnn)
    tm = build(torch); tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 2, 6, 6)).astype(np.float32)
    with litnn.no_grad(): want = m(litnn.tensor(x)).numpy()
    with torch.no_grad(): np.testing.assert_allclose(tm(torch.tensor(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    f = io.BytesIO(); litnn.onnx.export(m, (litnn.tensor(x),), f, input_names=['x'])
    np.testing.assert_allclose(ort.InferenceSession(f.getvalue()).run(None, {'x': x})[0], want, rtol=1e-5, atol=1e-6)

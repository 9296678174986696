"litnn.onnx.export: each model family exported, run by onnxruntime and compared with litnn and with torch on torch's weights."
import importlib.util, io, os, subprocess, sys
from pathlib import Path
import numpy as np, pytest
import litnn, torch

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')
sys.path.insert(0, str(Path(__file__).parent))
import onnx_models

WLM = Path(__file__).parent / 'word_language_model'
RTOL, ATOL = 1e-5, 1e-6


def wlm_models(lib):
    "pytorch/examples' word_language_model/model.py, imported with `lib` as its torch."
    saved = {k: sys.modules.get(k) for k in ('torch', 'torch.nn', 'torch.nn.functional')}
    sys.modules.update({'torch': lib, 'torch.nn': lib.nn, 'torch.nn.functional': lib.nn.functional})
    try:
        spec = importlib.util.spec_from_file_location(f'wlm_model_{lib.__name__}', WLM / 'model.py')
        mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
        return mod
    finally:
        for k, v in saved.items(): sys.modules[k] = v


def tensors(x):
    if isinstance(x, (litnn.Tensor, torch.Tensor)): return [x]
    if isinstance(x, dict): x = list(x.values())
    if isinstance(x, (tuple, list)): return [t for e in x for t in tensors(e)]
    return []


def to_litnn(x):
    if isinstance(x, torch.Tensor): return litnn.tensor(x.detach().numpy())
    if isinstance(x, (tuple, list)): return type(x)(to_litnn(e) for e in x)
    return x


def run(f, args, names):
    "The outputs of the ONNX model in `f` (bytes or a path) on `args`, fed by input name."
    sess = ort.InferenceSession(f if isinstance(f, (str, os.PathLike)) else f.getvalue())
    return sess.run(None, {n: t.numpy() for n, t in zip(names, tensors(args))})


# family: (builder(lib) -> model, inputs(lib, batch, seq) -> args, input names, output names, dynamic axes)
def _ids(lib, shape, n=20): return lib.randint(0, n, shape) if lib is litnn else torch.randint(0, n, shape)
def _rnn_args(kind):
    def args(lib, b, s):
        h = lambda: (lib.randn(2, b, 8) if lib is litnn else torch.randn(2, b, 8))
        return (_ids(lib, (s, b)), (h(), h()) if kind == 'LSTM' else h())
    return args

_BATCH = {0: 'batch'}
FAMILIES = {
    'mlp': (onnx_models.mlp, lambda lib, b, s: (lib.randn(b, 3, 4),), ['x'], ['y'], {'x': _BATCH, 'y': _BATCH}),
    'cnn': (onnx_models.cnn, lambda lib, b, s: (lib.randn(b, 3, 8, 8),), ['x'], ['y'], {'x': _BATCH, 'y': _BATCH}),
    'gpt': (onnx_models.gpt, lambda lib, b, s: (_ids(lib, (b, 7), 23),), ['idx'], ['logits'], {'idx': _BATCH, 'logits': _BATCH}),
    'gpt_masked': (lambda lib: onnx_models.gpt(lib, flash=False), lambda lib, b, s: (_ids(lib, (b, 7), 23),), ['idx'], ['logits'],
                   {'idx': _BATCH, 'logits': _BATCH}),
    **{k.lower(): (lambda lib, k=k: wlm_models(lib).RNNModel(k, 20, 8, 8, 2), _rnn_args(k),
                   ['input', 'h', 'c'] if k == 'LSTM' else ['input', 'h'], None,
                   {'input': {0: 'seq', 1: 'batch'}, 'h': {1: 'batch'}, 'c': {1: 'batch'}} if k == 'LSTM' else
                   {'input': {0: 'seq', 1: 'batch'}, 'h': {1: 'batch'}})
       for k in ('LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU')},
    'nn_transformer': (onnx_models.seq2seq, lambda lib, b, s: (lib.randn(b, 6, 8), lib.randn(b, 5, 8)), ['src', 'tgt'], None,
                       {'src': _BATCH, 'tgt': _BATCH}),
    'transformer': (lambda lib: wlm_models(lib).TransformerModel(20, 8, 2, 16, 2), lambda lib, b, s: (_ids(lib, (s, b)),), ['src'], None,
                    {'src': {1: 'batch'}}),
}


@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('family', FAMILIES)
def test_family_runs_in_onnxruntime_as_in_litnn_and_torch(family):
    build, inputs, names, out_names, axes = FAMILIES[family]
    torch.manual_seed(0); litnn.manual_seed(0)
    tm = build(torch).eval()
    lm = build(litnn)
    lm.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    lm.train()                                    # export must evaluate in eval semantics, and give the mode back
    f = io.BytesIO()
    litnn.onnx.export(lm, inputs(litnn, 2, 5), f, input_names=names, output_names=out_names, dynamic_axes=axes)
    assert lm.training and all(m.training for m in lm.modules())
    lm.eval()
    for b, s in ((3, 5), (5, 6) if 'seq' in str(axes) else (5, 5)):     # fresh inputs, another batch (and sequence) size
        targs = inputs(torch, b, s)
        largs = to_litnn(targs)
        got = run(f, largs, names)
        with litnn.no_grad(): want = [t.numpy() for t in tensors(lm(*largs))]
        with torch.no_grad(): ref = [t.numpy() for t in tensors(tm(*targs))]
        assert len(got) == len(want) == len(ref)
        for g, w, r in zip(got, want, ref):
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
            np.testing.assert_allclose(g, r, rtol=RTOL, atol=1e-5)


def test_file_passes_checker_and_strict_shape_inference_with_state_dict_initializers(tmp_path):
    model = onnx_models.cnn(litnn)
    path = tmp_path / 'cnn.onnx'
    litnn.onnx.export(model, litnn.randn(2, 3, 8, 8), str(path), input_names=['x'], dynamic_axes={'x': [0]})
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto, full_check=True)
    onnx.shape_inference.infer_shapes(proto, check_type=True, strict_mode=True)
    params = {i.name for i in proto.graph.initializer if i.name in model.state_dict()}
    assert params == set(model.state_dict()) - {'bn.num_batches_tracked'}
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == 'x_dynamic_axes_1'
    assert proto.opset_import[0].version == 18
    for k, v in model.state_dict().items():
        if k in params:
            np.testing.assert_array_equal(onnx.numpy_helper.to_array(next(i for i in proto.graph.initializer if i.name == k)), v.numpy())


def test_state_is_unchanged():
    model = onnx_models.cnn(litnn).train()
    eq, fn = litnn.Tensor.__eq__, litnn.eq
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    litnn.onnx.export(model, (litnn.randn(4, 3, 8, 8),), io.BytesIO())
    assert model.training and all(m.training for m in model.modules())
    for k, v in model.state_dict().items(): np.testing.assert_array_equal(v.numpy(), before[k])   # batch norm did not update
    assert not any('forward' in m.__dict__ for m in model.modules())
    assert litnn.autograd.graph._Mode.trace is None and not litnn.onnx.is_in_onnx_export()
    assert litnn.Tensor.__eq__ is eq and litnn.eq is fn


class Structured(litnn.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = litnn.nn.Linear(3, 2), litnn.nn.Linear(3, 2)
    def forward(self, x, pair, scale=None, extra=None):
        y = self.a(x) * scale + self.b(pair[0]) - pair[1].sum()
        return {'y': y, 'rest': [x.relu(), (x,)], 'extra': extra['w'] * 2}


def test_nested_inputs_and_outputs_and_keyword_arguments():
    model = Structured()
    x, p0, p1, s, w = (litnn.randn(2, 2 if i == 3 else 3) for i in range(5))
    f = io.BytesIO()
    litnn.onnx.export(model, (x, [p0, p1], {'scale': s}), f, kwargs={'extra': {'w': w}})
    sess = ort.InferenceSession(f.getvalue())
    assert [i.name for i in sess.get_inputs()] == ['input_0', 'input_1', 'input_2', 'input_3', 'input_4']
    assert [o.name for o in sess.get_outputs()] == ['output_0', 'output_1', 'output_2', 'output_3']
    x, p0, p1, s, w = (litnn.randn(2, 2 if i == 3 else 3) for i in range(5))
    got = sess.run(None, {f'input_{i}': t.numpy() for i, t in enumerate((x, p0, p1, s, w))})
    with litnn.no_grad(): want = tensors(model(x, [p0, p1], scale=s, extra={'w': w}))
    for g, t in zip(got, want): np.testing.assert_allclose(g, t.numpy(), rtol=RTOL, atol=ATOL)


def test_export_params_false_and_initializers_as_inputs():
    model = litnn.nn.Linear(3, 2)
    f = io.BytesIO()
    litnn.onnx.export(model, litnn.randn(1, 3), f, export_params=False)
    p = onnx.load_from_string(f.getvalue())
    assert [i.name for i in p.graph.initializer] == [] and {'weight', 'bias'} <= {i.name for i in p.graph.input}
    x = litnn.randn(1, 3)
    got, = ort.InferenceSession(f.getvalue()).run(None, {'input_0': x.numpy(), 'weight': model.weight.detach().numpy(), 'bias': model.bias.detach().numpy()})
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=RTOL, atol=ATOL)
    f = io.BytesIO()
    litnn.onnx.export(model, litnn.randn(1, 3), f, keep_initializers_as_inputs=True)
    p = onnx.load_from_string(f.getvalue())
    assert {i.name for i in p.graph.initializer} == {'weight', 'bias'} <= {i.name for i in p.graph.input}


def test_is_in_onnx_export():
    seen = []
    class M(litnn.nn.Module):
        def forward(self, x): seen.append(litnn.onnx.is_in_onnx_export()); return x * 2
    litnn.onnx.export(M(), litnn.ones(2), io.BytesIO())
    assert seen == [True, True] and not litnn.onnx.is_in_onnx_export()


class Inner(litnn.nn.Module):
    def forward(self, x): return x.cumsum(1)

class Outer(litnn.nn.Module):
    def __init__(self): super().__init__(); self.body = litnn.nn.Sequential(litnn.nn.Linear(3, 3), Inner())
    def forward(self, x): return self.body(x)


def test_unsupported_operation_names_the_operation_and_module():
    with pytest.raises(litnn.onnx.UnsupportedOperatorError, match=r"operation 'cumsum' \(CumsumBackward0\), called in module 'body.1' \(Inner\), has no ONNX translation"):
        litnn.onnx.export(Outer(), litnn.randn(2, 3), io.BytesIO())
    assert issubclass(litnn.onnx.UnsupportedOperatorError, RuntimeError)
    class Proj(litnn.nn.Module):
        def __init__(self): super().__init__(); self.rnn = litnn.nn.LSTM(3, 4, proj_size=2)
        def forward(self, x): return self.rnn(x)
    with pytest.raises(litnn.onnx.UnsupportedOperatorError, match="proj_size .module 'rnn'"):
        litnn.onnx.export(Proj(), litnn.randn(4, 1, 3), io.BytesIO())
    class Mask(litnn.nn.Module):
        def forward(self, x): return x[x > 0]
    with pytest.raises(litnn.onnx.UnsupportedOperatorError, match='boolean mask'):
        litnn.onnx.export(Mask(), litnn.randn(5), io.BytesIO())


def test_untraced_computations_fail_loudly():
    class InPlace(litnn.nn.Module):
        def __init__(self): super().__init__(); self.lin = litnn.nn.Linear(3, 3)
        def forward(self, x): y = self.lin(x); y.t_(); return y + 1     # an in-place change of shape: not recorded
    with pytest.raises(RuntimeError, match=r"changed in place, in module '\(the model\)'"):
        litnn.onnx.export(InPlace(), litnn.randn(2, 3), io.BytesIO())
    class Numpy(litnn.nn.Module):
        def __init__(self): super().__init__(); self.lin = litnn.nn.Linear(3, 3)
        def forward(self, x): return self.lin(x) * litnn.tensor(np.tanh(x.numpy()))
    with pytest.raises(RuntimeError, match=r"used by MulBackward0 in module '\(the model\)'.*changes with the input"):
        litnn.onnx.export(Numpy(), litnn.randn(2, 3), io.BytesIO())
    class Branch(litnn.nn.Module):
        def forward(self, x): return x.exp() if x.sum().item() > 0 else x.tanh()
    with pytest.raises(RuntimeError, match="depend on the input's values"):
        litnn.onnx.export(Branch(), litnn.ones(3), io.BytesIO())
    class Sized(litnn.nn.Module):      # a creation function sized by a dynamic axis: a constant that changes
        def forward(self, x): return x + litnn.arange(x.shape[0]).float()
    with pytest.raises(RuntimeError, match='changes with the input'):
        litnn.onnx.export(Sized(), litnn.randn(3), io.BytesIO(), input_names=['x'], dynamic_axes={'x': [0]})
    litnn.onnx.export(Sized(), litnn.randn(3), io.BytesIO())            # (a constant without dynamic axes)


def test_bad_arguments():
    m, x = litnn.nn.Linear(3, 2), litnn.randn(1, 3)
    with pytest.raises(TypeError, match='must be an nn.Module, not function'): litnn.onnx.export(lambda x: x, x, io.BytesIO())
    with pytest.raises(TypeError, match='binary stream, not int'): litnn.onnx.export(m, x, 3)
    with pytest.raises(TypeError, match='positional'): litnn.onnx.export(m, x, io.BytesIO(), None)      # keyword-only, as torch 2.13
    with pytest.raises(ValueError, match='only training=TrainingMode.EVAL'):
        litnn.onnx.export(m, x, io.BytesIO(), training=litnn.onnx.TrainingMode.TRAINING)
    assert isinstance(litnn.onnx.export(m, x), onnx.ModelProto)                                          # f=None: the model
    with pytest.raises(ValueError, match='opset_version 9 is not supported'): litnn.onnx.export(m, x, io.BytesIO(), opset_version=9)
    with pytest.raises(TypeError, match='input_names must be a list of strings'): litnn.onnx.export(m, x, io.BytesIO(), input_names='x')
    with pytest.raises(ValueError, match="dynamic_axes names 'z'"):
        litnn.onnx.export(m, x, io.BytesIO(), input_names=['x'], dynamic_axes={'z': [0]})
    with pytest.raises(TypeError, match=r"dynamic_axes\['x'\] must be"):
        litnn.onnx.export(m, x, io.BytesIO(), input_names=['x'], dynamic_axes={'x': 0})
    class Dyn(litnn.nn.Module):        # a size that follows no single axis, where -1 cannot stand for it
        def forward(self, x): return x[:1].expand(x.shape[0] * 2, 3)
    with pytest.raises(litnn.onnx.UnsupportedOperatorError, match='ExpandBackward0 .* uses sizes'):
        litnn.onnx.export(Dyn(), litnn.randn(1, 3), io.BytesIO(), input_names=['x'], dynamic_axes={'x': [0]})


def test_missing_onnx_package_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, 'onnx', None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'litnn\[onnx\]'"):
        litnn.onnx.export(litnn.nn.Linear(1, 1), litnn.ones(1, 1), io.BytesIO())


def test_import_needs_no_onnx():
    code = "import sys, litnn, litnn.onnx; assert 'onnx' not in sys.modules and 'onnxruntime' not in sys.modules; print(litnn.onnx.export.__name__)"
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env={**os.environ, 'PYTHONPATH': str(Path(litnn.__file__).parents[1])})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'export'


# The word-level language model of pytorch/examples, run unmodified under `import litnn as torch`.
_RUNNER = """
import sys, runpy, litnn
sys.modules['torch'] = litnn
for name in ('nn', 'nn.functional', 'onnx'):
    mod = litnn
    for part in name.split('.'): mod = getattr(mod, part)
    sys.modules['torch.' + name] = mod
sys.path.insert(0, sys.argv[1])
sys.argv = [sys.argv[1] + '/main.py'] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name='__main__')
"""

def _corpus(root):
    rng = np.random.default_rng(0)
    words = "the cat sat on a mat and dog ran to big red house with blue door".split()
    (root / 'data').mkdir()
    for name, n in (('train', 60), ('valid', 15), ('test', 15)):
        (root / 'data' / f'{name}.txt').write_text('\n'.join(' '.join(rng.choice(words, rng.integers(4, 10))) for _ in range(n)) + '\n')


def _main(tmp_path, model, *extra):
    (tmp_path / 'run.py').write_text(_RUNNER)
    args = [sys.executable, str(tmp_path / 'run.py'), str(WLM), '--data', str(tmp_path / 'data'), '--epochs', '1', '--emsize', '8',
            '--nhid', '8', '--nlayers', '2', '--bptt', '5', '--batch_size', '4', '--save', str(tmp_path / 'model.pt'), '--model', model, *extra]
    return subprocess.run(args, capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, 'PYTHONPATH': str(Path(litnn.__file__).parents[1])})


def _load(tmp_path):
    saved = sys.modules.get('model')
    sys.modules['model'] = wlm_models(litnn)
    try: return litnn.load(str(tmp_path / 'model.pt'), weights_only=False)
    finally:
        if saved is None: del sys.modules['model']
        else: sys.modules['model'] = saved


@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('kind', ['LSTM', 'GRU'])
def test_word_language_model_exports_with_onnx_export(tmp_path, kind):
    _corpus(tmp_path)
    out = _main(tmp_path, kind, '--onnx-export', str(tmp_path / 'lm.onnx'))
    assert out.returncode == 0, out.stderr[-3000:]
    assert 'exported in ONNX format' in out.stdout and 'End of training' in out.stdout
    model = _load(tmp_path).eval()
    ids, hidden = litnn.randint(0, model.ntoken, (5, 1)), model.init_hidden(1)
    hidden = (litnn.randn(*hidden[0].shape), litnn.randn(*hidden[1].shape)) if kind == 'LSTM' else litnn.randn(*hidden.shape)
    got = run(str(tmp_path / 'lm.onnx'), (ids, hidden), [f'input_{i}' for i in range(3)])
    with litnn.no_grad(): want = tensors(model(ids, hidden))
    for g, w in zip(got, want): np.testing.assert_allclose(g, w.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.filterwarnings('ignore')
def test_word_language_model_transformer(tmp_path):
    "main.py's export_onnx calls model.init_hidden, which its TransformerModel lacks (in torch too): export the trained model directly."
    _corpus(tmp_path)
    out = _main(tmp_path, 'Transformer', '--onnx-export', str(tmp_path / 'lm.onnx'))
    assert out.returncode != 0 and "AttributeError: 'TransformerModel' object has no attribute 'init_hidden'" in out.stderr
    assert 'End of training' in out.stdout
    model = _load(tmp_path)
    litnn.onnx.export(model, (litnn.zeros(5, 1, dtype=litnn.long),), str(tmp_path / 'lm.onnx'))
    ids = litnn.randint(0, model.input_emb.num_embeddings, (5, 1))
    got, = run(str(tmp_path / 'lm.onnx'), (ids,), ['input_0'])
    with litnn.no_grad(): want = model.eval()(ids)
    np.testing.assert_allclose(got, want.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.filterwarnings('ignore')
def test_operator_zoo_against_torch():
    "Activations, comparisons, casts, where/masked_fill, joins, indexing, reductions, tril/triu, pooling, 1-d conv and norms at once."
    torch.manual_seed(0)
    tm = onnx_models.zoo(torch).eval()
    lm = onnx_models.zoo(litnn)
    lm.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    f = io.BytesIO()
    litnn.onnx.export(lm, (litnn.randn(2, 4, 10), litnn.randint(0, 9, (2, 5))), f, input_names=['x', 'ids'], dynamic_axes={'x': [0], 'ids': [0]})
    proto = onnx.load_from_string(f.getvalue())
    assert {n.op_type for n in proto.graph.node} >= {'Conv', 'BatchNormalization', 'Where', 'Greater', 'Or', 'Mod', 'Trilu', 'Gather',
                                                   'Slice', 'Unsqueeze', 'Concat', 'Split', 'ReduceMax', 'MaxPool', 'Cast', 'Clip'}
    used = {i for n in proto.graph.node for i in n.input}
    assert all(i.name in used for i in proto.graph.initializer)
    x, ids = torch.randn(3, 4, 10), torch.randint(0, 9, (3, 5))
    got = run(f, (litnn.tensor(x.numpy()), litnn.tensor(ids.numpy())), ['x', 'ids'])
    with litnn.no_grad(): want = tensors(lm.eval()(litnn.tensor(x.numpy()), litnn.tensor(ids.numpy())))
    with torch.no_grad(): ref = tensors(tm(x, ids))
    assert len(got) == len(want) == len(ref) == 6
    for g, w, r in zip(got, want, ref):
        assert g.dtype == w.numpy().dtype and g.shape == tuple(r.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=RTOL, atol=1e-5)
        np.testing.assert_allclose(g, r.numpy(), rtol=RTOL, atol=1e-4)


DEVICES = ['cpu'] + (['cuda'] if litnn.cuda.is_available() else [])

@pytest.mark.filterwarnings('ignore')
@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('family', ['cnn', 'gpt_masked', 'lstm'])
def test_export_on_each_device(device, family):
    "A model on the GPU exports the same file, run on the CPU by onnxruntime."
    build, inputs, names, out_names, axes = FAMILIES[family]
    litnn.manual_seed(0)
    model = build(litnn).to(device).eval()
    args = inputs(litnn, 2, 5)
    moved = tuple(a.to(device) if isinstance(a, litnn.Tensor) else tuple(t.to(device) for t in a) for a in args)
    f = io.BytesIO()
    litnn.onnx.export(model, moved, f, input_names=names, output_names=out_names, dynamic_axes=axes)
    got = run(f, args, names)
    with litnn.no_grad(): want = [t.cpu().numpy() for t in tensors(model(*moved))]
    for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=RTOL, atol=1e-5)
    assert all(p.device.type == device for p in model.parameters())

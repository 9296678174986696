"""litnn.utils.tensorboard's summary functions return the protocol buffers torch.utils.tensorboard's return on the same
values (numpy arrays given to both, or torch and litnn tensors of the same values), field for field; its helper
modules (_convert_np, _utils, _embedding) give the same arrays and files; every SummaryWriter method writes event files
that TensorBoard's EventAccumulator reads back as torch's; bad input raises torch's exception with torch's message."""
import io, os, re, contextlib, warnings

import numpy as np
import pytest

torch = pytest.importorskip('torch')
pytest.importorskip('tensorboard')
pytest.importorskip('PIL')
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
import torch.utils.tensorboard as T  # noqa: E402
import torch.utils.tensorboard.summary as ts  # noqa: E402
import torch.utils.tensorboard._utils as tu  # noqa: E402
import torch.utils.tensorboard._convert_np as tc  # noqa: E402
import litnn  # noqa: E402
import litnn.utils.tensorboard as L  # noqa: E402
import litnn.utils.tensorboard.summary as ls  # noqa: E402
import litnn.utils.tensorboard._utils as lu  # noqa: E402
import litnn.utils.tensorboard._convert_np as lc  # noqa: E402

R = np.random.default_rng(0)


def both(fn_name, *args, module=('summary',), **kwargs):
    "The result of `fn_name(*args)` in torch's module and litnn's, with printed output captured."
    out = []
    for mod in ((ts, ls) if module == ('summary',) else module):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf): res = getattr(mod, fn_name)(*args, **kwargs)
        out.append((res, buf.getvalue()))
    return out


def same_proto(fn_name, *args, **kwargs):
    (t, tout), (l, lout) = both(fn_name, *args, **kwargs)
    assert l == t, f"{fn_name}:\nlitnn {l}\ntorch {t}"
    assert lout == tout
    return l


def same_error(fn_name, *args, module=(ts, ls), **kwargs):
    errs = []
    for mod in module:
        with pytest.raises(Exception) as e: getattr(mod, fn_name)(*args, **kwargs)
        errs.append(e.value)
    assert type(errs[1]) is type(errs[0]) and str(errs[1]) == str(errs[0]), errs


# --- summary.py: protos equal to torch's ---

@pytest.mark.parametrize('value,kw', [(0.5, {}), (np.float32(2.5), {}), (np.array([[3.]]), {}), (1.25, dict(new_style=True)),
                                      (1.25, dict(new_style=True, double_precision=True))])
def test_scalar(value, kw):
    same_proto('scalar', 'loss', value, **kw)


def test_scalar_from_tensors():
    assert ls.scalar('x', litnn.tensor([0.3])) == ts.scalar('x', torch.tensor([0.3]))
    assert ls.scalar('x', litnn.tensor(0.3, dtype=litnn.bfloat16)) == ts.scalar('x', torch.tensor(0.3, dtype=torch.bfloat16))
    same_error('scalar', 'x', np.zeros(3))


@pytest.mark.parametrize('bins,max_bins', [('auto', 5), ('fd', 5), ('doane', None), (10, None), (30, 7), (64, 5), ([0., 0.5, 1.], None)])
def test_histogram(bins, max_bins):
    same_proto('histogram', 'h', R.standard_normal(300), bins, max_bins)


def test_histogram_default_bins_and_tensors():
    x = R.standard_normal(500).astype(np.float32)
    assert ls.histogram('h', litnn.tensor(x), _torch_default_bins()) == ts.histogram('h', torch.tensor(x), _torch_default_bins())
    assert ls.histogram('h', litnn.tensor(x, dtype=litnn.bfloat16), 20) == ts.histogram('h', torch.tensor(x, dtype=torch.bfloat16), 20)
    same_proto('histogram', 'h', np.arange(10), _torch_default_bins())
    same_error('histogram', 'h', np.zeros(0), 'tensorflow')


def _torch_default_bins():
    v, pos = 1e-12, []
    while v < 1e20: pos.append(v); v *= 1.1
    return [-b for b in reversed(pos)] + [0] + pos


def test_writer_default_bins_are_torchs(tmp_path):
    lw, tw = L.SummaryWriter(str(tmp_path / 'l')), T.SummaryWriter(str(tmp_path / 't'))
    assert lw.default_bins == tw.default_bins
    lw.close(); tw.close()


def test_histogram_raw_and_make_histogram():
    same_proto('histogram_raw', 'r', 0., 3., 4, 6., 14., [1., 2., 3.], [1, 1, 2])
    same_proto('make_histogram', R.random(100), 7)


@pytest.mark.parametrize('shape,fmt', [((3, 5, 7), 'CHW'), ((1, 8, 8), 'CHW'), ((5, 7, 3), 'HWC'), ((6, 4), 'HW'), ((2, 1, 8, 8), 'NCHW'),
                                       ((10, 3, 4, 4), 'NCHW'), ((4, 4, 3, 2), 'HWCN')])
def test_image(shape, fmt):
    same_proto('image', 'im', R.random(shape), dataformats=fmt)
    same_proto('image', 'im', (R.random(shape) * 255).astype(np.uint8), dataformats=fmt)


def test_image_rescale_and_tensors():
    x = R.random((3, 6, 6)).astype(np.float32)
    same_proto('image', 'im', x, rescale=2, dataformats='CHW')
    assert ls.image('im', litnn.tensor(x), dataformats='CHW') == ts.image('im', torch.tensor(x), dataformats='CHW')


def test_image_boxes():
    img = np.arange(3 * 32 * 32, dtype=float).reshape(3, 32, 32) / (3 * 32 * 32)
    same_proto('image_boxes', 'b', img, np.array([[10, 10, 40, 40]]))
    same_proto('image_boxes', 'b', img, np.array([[2, 2, 20, 20], [5, 8, 30, 25]]), labels=['cat', 'dog'])
    same_proto('image_boxes', 'b', img, np.array([[2, 2, 20, 20]]), rescale=0.5)


def test_audio():
    same_proto('audio', 'a', np.arange(42, dtype=float))        # clipped, with torch's printed warning
    same_proto('audio', 'a', np.sin(np.linspace(0, 50, 1000)), sample_rate=8000)
    same_error('audio', 'a', np.zeros((2, 3)))


def test_video_without_moviepy():
    try: import moviepy  # noqa: F401
    except ImportError: pass
    else: pytest.skip('moviepy installed: the GIF bytes are moviepy\'s')
    same_proto('video', 'v', R.random((3, 4, 1, 8, 8)))


def test_text_custom_scalars_pr_curves_mesh():
    same_proto('text', 't', 'a|b\n-|-\nc|d')
    same_proto('custom_scalars', {'Taiwan': {'twse': ['Multiline', ['twse/0050', 'twse/2330']]},
                                  'USA': {'dow': ['Margin', ['dow/aaa', 'dow/bbb', 'dow/ccc']]}})
    same_error('custom_scalars', {'A': {'m': ['Margin', ['a', 'b']]}})
    labels, preds = R.integers(0, 2, 100), R.random(100)
    same_proto('pr_curve', 'pr', labels, preds)
    same_proto('pr_curve', 'pr', labels, preds, num_thresholds=200, weights=R.random(100))
    same_proto('pr_curve_raw', 'raw', [75, 64, 21, 5, 0], [150, 105, 18, 0, 0], [0, 45, 132, 150, 150], [0, 11, 54, 70, 75],
               [0.3333333, 0.3786982, 0.5384616, 1.0, 0.0], [1.0, 0.8533334, 0.28, 0.0666667, 0.0], 5)
    np.testing.assert_array_equal(ls.compute_curve(labels, preds, num_thresholds=11), ts.compute_curve(labels, preds, num_thresholds=11))
    v = np.array([[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]], dtype=float)
    c = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], dtype=int)
    f = np.array([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], dtype=int)
    same_proto('mesh', 'm', v, c, f, None)
    same_proto('mesh', 'm', v, None, None, {'camera': {'fov': 75}}, display_name='cube', description='a cube')
    assert ls.mesh('m', litnn.tensor(v), litnn.tensor(c), None, None) == ts.mesh('m', torch.tensor(v), torch.tensor(c), None, None)


def test_hparams():
    hp = {'lr': 0.1, 'bsize': 1, 'opt': 'sgd', 'flag': True, 'none': None}
    for (t, _), (l, _) in [both('hparams', hp, {'acc': 1}), both('hparams', hp, {'a': 1, 'b': 2}, {'opt': ['sgd', 'adam'], 'bsize': [1, 2]})]:
        assert l == t
    assert ls.hparams({'t': litnn.tensor([0.5])}, {}) == ts.hparams({'t': torch.tensor([0.5])}, {})
    same_error('hparams', {'lr': [0.1]}, {})
    same_error('hparams', [1], {})
    same_error('hparams', {'lr': 0.1}, 3)
    same_error('hparams', {'lr': 0.1}, {}, {'lr': ['x']})
    same_error('hparams', {'lr': 0.1}, {}, [1])


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint8', 'int16', 'int32', 'int64', 'bool',
                                   'complex64', 'complex128'])
def test_tensor_proto(dtype):
    x = np.arange(6).reshape(2, 3) % 2 if dtype == 'bool' else np.arange(6).reshape(2, 3) * 1.5 if dtype.startswith('f') or dtype.startswith('b') else np.arange(6).reshape(2, 3)
    t = torch.tensor(x, dtype=getattr(torch, dtype)) if not dtype.startswith('complex') else torch.complex(torch.tensor(x * 1.), torch.tensor(-x * 1.)).to(getattr(torch, dtype))
    l = litnn.tensor(x, dtype=getattr(litnn, dtype)) if not dtype.startswith('complex') else litnn.complex(litnn.tensor(x * 1.), litnn.tensor(-x * 1.)).to(getattr(litnn, dtype))
    assert ls.tensor_proto('x', l) == ts.tensor_proto('x', t)


def test_tensor_proto_scalar_empty_and_half_bits():
    assert ls.tensor_proto('x', litnn.tensor(0.1)) == ts.tensor_proto('x', torch.tensor(0.1))
    assert ls.tensor_proto('x', litnn.empty(0)) == ts.tensor_proto('x', torch.empty(0))
    for f in (1.0, -2.5, 1e-3):
        assert ls.half_to_int(f) == ts.half_to_int(f) and ls.int_to_half(ls.half_to_int(f)) == ts.int_to_half(ts.half_to_int(f))


# --- _convert_np.py and _utils.py ---

def test_make_np():
    for x in (1.1, 0, np.float16(1.5), np.int64(10 ** 11), 1 << 63, np.zeros((2, 3))):
        a, b = lc.make_np(x), tc.make_np(x)
        assert type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype
    x = R.random((2, 3)).astype(np.float32)
    for dt in ('float32', 'float64', 'float16', 'bfloat16', 'int64', 'uint8', 'bool'):
        a, b = lc.make_np(litnn.tensor(x * 10).to(getattr(litnn, dt))), tc.make_np(torch.tensor(x * 10).to(getattr(torch, dt)))
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert lc.make_np(litnn.ones(2, requires_grad=True) * 2).tolist() == [2., 2.]
    assert lc.make_np(litnn.empty(3, device='meta')).shape == tc.make_np(torch.empty(3, device='meta')).shape
    same_error('make_np', {'a': 1}, module=(tc, lc))


def test_utils_layouts():
    for shape, fmt in [((3, 4, 5), 'chw'), ((17, 3, 2, 2), 'nchw'), ((16, 1, 4, 4), 'NCHW'), ((4, 5), 'hw'), ((4, 5, 1), 'hwc')]:
        x = R.random(shape)
        np.testing.assert_array_equal(lu.convert_to_HWC(x, fmt), tu.convert_to_HWC(x, fmt))
    same_error('convert_to_HWC', np.zeros((2, 2)), 'HH', module=(tu, lu))
    same_error('convert_to_HWC', np.zeros((2, 2)), 'CHW', module=(tu, lu))
    same_error('make_grid', np.zeros((2, 2, 3, 3)), module=(tu, lu))
    same_error('make_grid', [1], module=(tu, lu))
    for shape in [(16, 3, 3, 4, 4), (5, 2, 1, 3, 3), (3, 3, 3, 3, 3), (1, 2, 3, 2, 2)]:
        x = R.random(shape)
        np.testing.assert_array_equal(lu._prepare_video(x.copy()), tu._prepare_video(x.copy()))
    x = (R.random((3, 2, 3, 2, 2)) * 255).astype(np.uint8)
    np.testing.assert_array_equal(lu._prepare_video(x.copy()), tu._prepare_video(x.copy()))


def test_figure_to_image():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figs = []
    for _ in range(2):
        fig = plt.figure(figsize=(2, 1), dpi=40); plt.plot([0, 1], [1, 0]); figs.append(fig)
    a, b = lu.figure_to_image(figs, close=False), tu.figure_to_image(figs, close=False)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (2, 3, 40, 80) and all(plt.fignum_exists(f.number) for f in figs)
    lu.figure_to_image(figs[0])
    assert not plt.fignum_exists(figs[0].number)
    plt.close('all')


# --- the writer: event files and the projector's files as torch's ---

def _write_all(lib, d):
    import litnn.utils.tensorboard  # noqa: F401
    mod = L if lib is litnn else T
    r = np.random.default_rng(1)
    with mod.SummaryWriter(str(d)) as w:
        w.add_histogram_raw('raw', 0., 3., 4, 6., 14., [1., 2., 3.], [1, 1, 2], 1, walltime=1.)
        w.add_image_with_boxes('boxes', r.random((3, 16, 16)), np.array([[1, 1, 9, 9], [4, 4, 12, 14]]), 1, walltime=1., labels=['a', 'b'])
        w.add_image_with_boxes('box1', r.random((3, 16, 16)), np.array([[1, 1, 9, 9]]), 1, walltime=1., labels='one')
        w.add_audio('audio', lib.tensor(np.sin(np.linspace(0, 30, 500))), 1, sample_rate=1000, walltime=1.)
        w.add_pr_curve('pr', lib.tensor(r.integers(0, 2, 50)), lib.tensor(r.random(50)), 1, num_thresholds=20, walltime=1.)
        w.add_pr_curve_raw('prraw', [3, 2, 1], [2, 1, 0], [0, 1, 2], [0, 1, 2], [0.6, 0.66, 1.], [1., 0.66, 0.33], 1, num_thresholds=3, walltime=1.)
        w.add_mesh('mesh', lib.tensor([[[1., 1, 1], [-1, -1, 1], [1, -1, -1]]]), faces=lib.tensor([[[0, 1, 2]]]), global_step=1, walltime=1.)
        w.add_tensor('tensor', lib.tensor([[1, 2], [3, 4]], dtype=lib.int32), 1, walltime=1.)
        w.add_custom_scalars_multilinechart(['a', 'b'], category='c', title='t')
        w.add_custom_scalars_marginchart(['v', 'lo', 'hi'])
        w.add_custom_scalars({'x': {'y': ['Multiline', ['z']]}})
        w.add_embedding(lib.tensor([[1., 2.], [3., 4.], [5., 6.]]), metadata=lib.tensor([1., 2., 3.]),
                        label_img=lib.zeros(3, 3, 4, 4), global_step=2, tag='emb/one')
        w.add_embedding(lib.tensor([[1., 2.], [3., 4.]]), metadata=[('a', 1), ('b', 2)], metadata_header=['n', 'i'], tag='two')
    return str(d)


def _read(logdir):
    acc = EventAccumulator(logdir, size_guidance={'scalars': 0, 'histograms': 0, 'images': 0, 'tensors': 0, 'audio': 0}); acc.Reload()
    tags = acc.Tags()
    out = {'histograms': {t: [(e.step, e.histogram_value) for e in acc.Histograms(t)] for t in tags['histograms']},
           'images': {t: [(e.step, e.width, e.height, bytes(e.encoded_image_string)) for e in acc.Images(t)] for t in tags['images']},
           'audio': {t: [(e.step, bytes(e.encoded_audio_string), e.sample_rate, e.length_frames) for e in acc.Audio(t)] for t in tags['audio']},
           'tensors': {t: [(e.step, bytes(e.tensor_proto.SerializeToString())) for e in acc.Tensors(t)] for t in tags['tensors']},
           'plugins': {p: acc.PluginTagToContent(p) for p in ('pr_curves', 'mesh', 'custom_scalars', 'tensor')}}
    files = {}
    for root, _, fs in os.walk(logdir):
        for f in fs:
            if not f.startswith('events.out'): files[os.path.relpath(os.path.join(root, f), logdir)] = open(os.path.join(root, f), 'rb').read()
    out['files'] = files
    return out


def test_every_writer_method_reads_back_as_torchs(tmp_path):
    ours, theirs = _read(_write_all(litnn, tmp_path / 'l')), _read(_write_all(torch, tmp_path / 't'))
    for kind in theirs: assert ours[kind] == theirs[kind], kind
    assert sorted(ours['files']) == ['00000/two/metadata.tsv', '00000/two/tensors.tsv', '00002/emb%2fone/metadata.tsv',
                                     '00002/emb%2fone/sprite.png', '00002/emb%2fone/tensors.tsv', 'projector_config.pbtxt']


def test_writer_errors_as_torchs(tmp_path):
    for bad in [lambda w: w.add_histogram_raw('r', 0, 1, 2, 1, 1, [1.], [1, 1]),
                lambda w: w.add_custom_scalars_marginchart(['a', 'b']),
                lambda w: w.add_embedding(np.zeros((3, 2)), metadata=['a']),
                lambda w: w.add_embedding(np.zeros((3, 2, 1))),
                lambda w: w.add_embedding(np.zeros((3, 2)), metadata=[('a', 1)] * 3, metadata_header=['x'], global_step=5)]:
        errs = []
        for mod, d in ((T, 't'), (L, 'l')):
            w = mod.SummaryWriter(str(tmp_path / d))
            with pytest.raises(Exception) as e: bad(w)
            errs.append(e.value); w.close()
        assert type(errs[1]) is type(errs[0]) and str(errs[1]) == str(errs[0])


def test_file_writer_and_package_names(tmp_path):
    assert sorted(L.__all__) == sorted(T.__all__)
    assert L.RecordWriter is T.RecordWriter
    fw = L.FileWriter(tmp_path, max_queue=1)
    fw.add_summary(ls.scalar('s', 1.), 3, walltime=7.)
    fw.flush(); fw.close()
    acc = EventAccumulator(str(tmp_path)); acc.Reload()
    assert [(e.step, e.wall_time, e.value) for e in acc.Scalars('s')] == [(3, 7., 1.)]
    assert L.SummaryWriter._encode('a/b%c\\d') == T.SummaryWriter._encode('a/b%c\\d')


# --- add_graph: litnn's trace, drawn as torch draws TorchScript's ---

def _nets(lib):
    nn = lib.nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
            self.head = nn.Linear(8, 2)
        def forward(self, x): return self.head(self.body(x))
    class DictNet(nn.Module):
        def __init__(self):
            super().__init__(); self.l = nn.Linear(3, 5)
        def forward(self, x): return {'out': self.l(x)}
    return Net, DictNet


def _graph_view(g):
    "What litnn's graph shares with torch's: the IO nodes and their shapes, the parameters' nodes, the boxes the operations sit in."
    io_nodes = [(n.name, n.op, [[d.size for d in s.dim] for s in n.attr['_output_shapes'].list.shape]) for n in g.node if n.op == 'IO Node']
    params = sorted((re.sub(r'\.\d+$', '', n.name), n.op, n.attr['attr'].s) for n in g.node if n.op == 'prim::GetAttr')   # (less TorchScript's .N)
    boxes = sorted({n.name.rpartition('/')[0] for n in g.node if n.op.startswith('aten::')})
    return io_nodes, params, boxes


def test_graph_as_torchs(tmp_path):
    from torch.utils.tensorboard._pytorch_graph import graph as tgraph
    from litnn.utils.tensorboard._pytorch_graph import graph as lgraph
    (TNet, TDict), (LNet, LDict) = _nets(torch), _nets(litnn)
    ws = []
    for g, N, x in ((tgraph, TNet, torch.zeros(2, 4)), (lgraph, LNet, litnn.zeros(2, 4))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            ws.append(g(N(), x)); ws.append([(x.category, str(x.message)) for x in w])
    (tg, tstats), twarn, (lg, lstats), lwarn = ws
    assert lwarn == twarn and len(twarn) == 3
    assert _graph_view(lg) == _graph_view(tg) and lstats == tstats and lg.versions == tg.versions
    assert {n.op for n in lg.node if n.op.startswith('aten::')} == {'aten::addmm', 'aten::relu'}   # (torch's: aten::linear, aten::relu)
    m = LNet().train()
    lgraph(m, (litnn.zeros(2, 4),))
    assert m.training                                          # eval while traced, then back
    errs = []
    for g, D, x in ((tgraph, TDict, torch.zeros(1, 3)), (lgraph, LDict, litnn.zeros(1, 3))):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), pytest.raises(RuntimeError) as e: g(D(), x)
        errs.append((str(e.value), buf.getvalue()))
    assert errs[0] == errs[1]
    lg, tg = lgraph(LDict(), litnn.zeros(1, 3), use_strict_trace=False)[0], tgraph(TDict(), torch.zeros(1, 3), use_strict_trace=False)[0]
    assert _graph_view(lg)[0] == _graph_view(tg)[0]
    assert [(n.op, n.attr['attr'].s) for n in lg.node[-2:]] == [(n.op, n.attr['attr'].s) for n in tg.node[-2:]]   # the dict, built
    assert [n.op for n in lg.node[:2]] == ['IO Node', 'IO Node']                                                  # IO nodes first
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(RuntimeError): lgraph(LNet(), litnn.zeros(1, 9))
    for mod, lib, d in ((T, torch, 't'), (L, litnn, 'l')):
        with mod.SummaryWriter(str(tmp_path / d)) as w: w.add_graph(_nets(lib)[0](), lib.zeros(2, 4))
    graphs = []
    for d in 'tl':
        acc = EventAccumulator(str(tmp_path / d)); acc.Reload()
        graphs.append((_graph_view(acc.Graph()), acc.RunMetadata('step1')))
    assert graphs[0] == graphs[1]

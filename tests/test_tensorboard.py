"""litnn.utils.tensorboard side by side with torch.utils.tensorboard: the same calls write event files
that TensorBoard's EventAccumulator reads back with the same scalars, histograms, images (decoded
pixels), text and directory layout; the same errors."""
import io, os

import numpy as np
import pytest

import litnn
from nn_pairs import err, same

torch = pytest.importorskip('torch')
pytest.importorskip('tensorboard')
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
import torch.utils.tensorboard  # noqa: E402
import litnn.utils.tensorboard  # noqa: E402


def write(lib, logdir):
    "One log of every kind, from the same numbers; the writer's log dir."
    r = np.random.default_rng(0)
    w = lib.utils.tensorboard.SummaryWriter(str(logdir))
    for step in range(4):
        w.add_scalar('train/loss', lib.tensor(1.5 / (step + 1)), step, walltime=100. + step)
        w.add_scalar('plain', 0.25 * step, step, walltime=100. + step)
        w.add_scalars('lr', {'head': 0.1 * step, 'body': lib.tensor(0.01)}, step, walltime=200.)
    w.add_scalar('new', 3.5, 1, new_style=True, walltime=1.)
    w.add_histogram('weights', lib.tensor(r.standard_normal(500)), 3, walltime=5.)
    w.add_histogram('ints', np.array([1, 2, 2, 3, 3, 3]), 0, bins=4, walltime=5.)
    w.add_histogram('maxbins', lib.tensor(r.standard_normal(300)), 0, max_bins=7, bins=30, walltime=5.)
    w.add_image('chw', lib.tensor(r.random((3, 5, 7)).astype(np.float32)), 0, walltime=6.)
    w.add_image('hw', r.random((4, 4)), 0, dataformats='HW', walltime=6.)
    w.add_image('hwc_uint8', (r.random((4, 6, 1)) * 255).astype(np.uint8), 0, dataformats='HWC', walltime=6.)
    w.add_images('batch', lib.tensor(r.random((10, 1, 3, 3)).astype(np.float32)), 1, walltime=7.)
    w.add_text('notes', 'a **bold** note', 2, walltime=8.)
    w.flush()
    w.close()
    return str(logdir)


def read(logdir):
    "Everything EventAccumulator finds, in plain values (pixels decoded)."
    from PIL import Image
    acc = EventAccumulator(logdir, size_guidance={'scalars': 0, 'histograms': 0, 'images': 0, 'tensors': 0}); acc.Reload()
    tags = acc.Tags()
    out = {'scalars': {t: [(e.step, e.wall_time, e.value) for e in acc.Scalars(t)] for t in tags['scalars']},
           'histograms': {t: [(e.step, e.histogram_value) for e in acc.Histograms(t)] for t in tags['histograms']},
           'images': {t: [(e.step, e.width, e.height, np.asarray(Image.open(io.BytesIO(e.encoded_image_string))).tolist())
                          for e in acc.Images(t)] for t in tags['images']},
           'tensors': {t: [(e.step, bytes(e.tensor_proto.SerializeToString())) for e in acc.Tensors(t)] for t in tags['tensors']}}
    subdirs = sorted(d for d in os.listdir(logdir) if os.path.isdir(os.path.join(logdir, d)))
    out['subdirs'] = {d: read(os.path.join(logdir, d)) for d in subdirs}
    return out


def test_event_files_read_back_as_torchs(tmp_path):
    ours = read(write(litnn, tmp_path / 'litnn'))
    theirs = read(write(torch, tmp_path / 'torch'))
    for kind in ('scalars', 'histograms', 'images', 'tensors', 'subdirs'):
        assert ours[kind] == theirs[kind], kind
    assert set(ours['scalars']) == {'train/loss', 'plain'} and set(ours['subdirs']) == {'lr_head', 'lr_body'}
    assert ours['tensors'].keys() == {'notes/text_summary', 'new'}


def test_context_manager_default_logdir_and_reopen(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with litnn.utils.tensorboard.SummaryWriter(comment='_exp') as w:
        w.add_scalar('a', 1., 0)
        d = w.get_logdir()
    assert d.startswith('runs' + os.sep) and d.endswith('_exp') and os.path.isdir(d)
    w.add_scalar('a', 2., 1)      # after close: a new event file, as torch's
    w.close()
    acc = EventAccumulator(d); acc.Reload()
    assert [e.value for e in acc.Scalars('a')] == [1., 2.]


def test_purge_step(tmp_path):
    def run(lib):
        d = str(tmp_path / lib.__name__)
        w = lib.utils.tensorboard.SummaryWriter(d)
        for s in range(5): w.add_scalar('x', float(s), s)
        w.close()
        w = lib.utils.tensorboard.SummaryWriter(d, purge_step=2)
        w.add_scalar('x', 20., 2); w.close()
        acc = EventAccumulator(d); acc.Reload()
        return [(e.step, e.value) for e in acc.Scalars('x')]
    same(run)


def test_errors(tmp_path):
    def run(lib):
        w = lib.utils.tensorboard.SummaryWriter(str(tmp_path / lib.__name__))
        out = [err(w.add_scalar, 'x', lib.ones(2)), err(w.add_histogram, 'h', np.array([])),
               err(w.add_image, 'i', np.zeros((3, 4, 4)), dataformats='CCH'), err(w.add_image, 'i', np.zeros((4, 4)))]
        w.close()
        return [(t, ' '.join(m.split('tensor shape')[0].split())) for t, m in out]   # torch's have stray spaces
    same(run)


def test_figure(tmp_path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    def run(lib):
        fig = plt.figure(figsize=(2, 1), dpi=20); plt.plot([0, 1], [1, 0])
        d = str(tmp_path / lib.__name__)
        with lib.utils.tensorboard.SummaryWriter(d) as w: w.add_figure('fig', fig, 0)
        return read(d)['images']
    same(run)


def hparams_log(lib, logdir):
    "A sweep of three runs written with `lib`'s add_hparams; what EventAccumulator reads in each run's folder."
    from tensorboard.plugins.hparams import metadata
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    with lib.utils.tensorboard.SummaryWriter(str(logdir)) as w:
        w.add_hparams({'lr': 0.1, 'bsize': 32, 'optim': 'sgd', 'nesterov': True, 'skipped': None},
                      {'hparam/accuracy': 0.75, 'hparam/loss': lib.tensor(0.5)}, run_name='a')
        w.add_hparams({'lr': 0.01, 'bsize': 64, 'optim': 'adam', 'nesterov': False},
                      {'hparam/accuracy': 0.8}, hparam_domain_discrete={'optim': ['sgd', 'adam'], 'bsize': [32, 64], 'nesterov': [True, False]},
                      run_name='b', global_step=7)
        w.add_hparams({'lr': lib.tensor([0.5]), 'name': 'x'}, {'m': 1}, run_name='c', global_step=2)
    out = {}
    for run in sorted(os.listdir(logdir)):
        if not os.path.isdir(logdir / run): continue
        acc = EventAccumulator(str(logdir / run)); acc.Reload()
        contents = acc.PluginTagToContent(metadata.PLUGIN_NAME)
        out[run] = dict(
            tags=sorted(contents),
            content=contents,                                         # the plugin data, byte for byte
            experiment=metadata.parse_experiment_plugin_data(contents[metadata.EXPERIMENT_TAG]),
            start=metadata.parse_session_start_info_plugin_data(contents[metadata.SESSION_START_INFO_TAG]),
            end=metadata.parse_session_end_info_plugin_data(contents[metadata.SESSION_END_INFO_TAG]),
            scalars={t: [(e.step, e.value) for e in acc.Scalars(t)] for t in acc.Tags()['scalars']},
            events=[(e.step, [v.tag for v in e.summary.value])                 # every event, in order, with its step
                    for f in sorted(os.listdir(logdir / run)) if not os.path.isdir(logdir / run / f)
                    for e in EventFileLoader(str(logdir / run / f)).Load() if e.HasField('summary')])
    return out


def test_add_hparams_writes_what_torch_writes(tmp_path):
    from tensorboard.plugins.hparams import metadata
    ours, theirs = hparams_log(litnn, tmp_path / 'litnn'), hparams_log(torch, tmp_path / 'torch')
    assert sorted(ours) == sorted(theirs) == ['a', 'b', 'c']
    assert ours == theirs
    a, b = ours['a'], ours['b']
    assert a['tags'] == sorted([metadata.EXPERIMENT_TAG, metadata.SESSION_START_INFO_TAG, metadata.SESSION_END_INFO_TAG])
    assert a['scalars'] == {'hparam/accuracy': [(0, 0.75)], 'hparam/loss': [(0, 0.5)]}
    assert b['scalars'] == {'hparam/accuracy': [(7, pytest.approx(0.8))]}
    assert b['events'] == [(7, [metadata.EXPERIMENT_TAG]), (7, [metadata.SESSION_START_INFO_TAG]), (7, [metadata.SESSION_END_INFO_TAG]),
                           (7, ['hparam/accuracy'])]
    assert {h.name for h in a['experiment'].hparam_infos} == {'lr', 'bsize', 'optim', 'nesterov'}     # None: left out
    assert [m.name.tag for m in a['experiment'].metric_infos] == ['hparam/accuracy', 'hparam/loss']
    assert a['start'].hparams['optim'].string_value == 'sgd' and a['start'].hparams['lr'].number_value == 0.1
    assert a['end'].status == 1                                                     # STATUS_SUCCESS
    assert [v.string_value for v in next(h for h in b['experiment'].hparam_infos if h.name == 'optim').domain_discrete.values] == ['sgd', 'adam']


def test_add_hparams_errors_as_torchs(tmp_path):
    def run(lib):
        w = lib.utils.tensorboard.SummaryWriter(str(tmp_path / lib.__name__))
        out = [err(w.add_hparams, [('lr', 0.1)], {}), err(w.add_hparams, {'lr': 0.1}, 'acc'),
               err(w.add_hparams, {'lr': [0.1]}, {}), err(w.add_hparams, {'lr': np.int64(3)}, {}),
               err(w.add_hparams, {'lr': 0.1}, {}, {'lr': [1]}), err(w.add_hparams, {'lr': 0.1}, {}, {'bs': [1.]}),
               err(w.add_hparams, {'lr': 0.1}, {}, [0.1])]
        w.close()
        return out
    same(run)


def test_onnx_graph_as_torch(tmp_path, capsys):
    # add_onnx_graph: torch's translation of an ONNX file (Variable nodes for inputs and outputs, one node per operator
    # named by its first output, printed while read), the same GraphDef and the same event read back
    pytest.importorskip('onnx')
    from torch.utils.tensorboard._onnx_graph import load_onnx_graph as torch_load
    from litnn.utils.tensorboard._onnx_graph import load_onnx_graph
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    f = str(tmp_path / 'm.onnx')
    m = litnn.nn.Sequential(litnn.nn.Conv2d(1, 2, 3), litnn.nn.ReLU(), litnn.nn.Flatten(), litnn.nn.Linear(8, 4), litnn.nn.Softmax(1))
    litnn.onnx.export(m, (litnn.zeros(2, 1, 4, 4),), f, input_names=['x'], output_names=['y'])
    t = torch_load(f); printed = capsys.readouterr().out
    assert load_onnx_graph(f) == t and capsys.readouterr().out == printed
    graphs = []
    for lib in (litnn, torch):
        w = lib.utils.tensorboard.SummaryWriter(str(tmp_path / lib.__name__))
        w.add_onnx_graph(f); w.close()
        acc = EventAccumulator(str(tmp_path / lib.__name__)); acc.Reload()
        graphs.append(acc.Graph())
    assert graphs[0] == graphs[1] == t

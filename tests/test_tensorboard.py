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
    w = litnn.utils.tensorboard.SummaryWriter(str(tmp_path / 'g'))
    with pytest.raises(NotImplementedError, match='add_graph'): w.add_graph(litnn.nn.Linear(2, 2), litnn.zeros(1, 2))
    w.close()


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

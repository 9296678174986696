"""litnn.viz: every picture is drawn from real data. The autograd graph of an expression is read
the same way from litnn and from PyTorch and must be the same graph; the hook timeline shows the
order of a real run (PyTorch's order); `summary` prints what torchinfo prints for the same model
built with torch.nn; the training curves plot the values given; every figure writes a PNG."""
import math
import matplotlib
matplotlib.use('Agg')   # no display: draw to files
import pytest

import litnn
from litnn.viz import autograd_graph, draw_graph, hook_timeline, plot_hook_calls, plot_history, summary
from litnn.nn.modules.backward_hooks import record_hook_calls, HOOK_KINDS

torch = pytest.importorskip('torch')
torchinfo = pytest.importorskip('torchinfo')

PNG = b'\x89PNG\r\n\x1a\n'
LIBS = (litnn, torch)


def png_written(path, min_bytes=5_000):
    data = path.read_bytes()
    return data[:8] == PNG and len(data) > min_bytes


def graph(g):
    "A Graph as plain data: (kind, name, shape, requires_grad, is_leaf) per node, and the edges."
    return [(n.kind, n.name, n.shape, n.requires_grad, n.is_leaf) for n in g.nodes], g.edges


# --- the autograd graph -----------------------------------------------------------------------------

def seed(lib):
    x = lib.tensor(2.)
    w = lib.tensor(3., requires_grad=True)
    a, b = x + w, w + 1
    return dict(x=x, w=w, a=a, b=b, y=a * b)


def test_graph_of_the_seed_example_has_exactly_these_nodes_and_edges():
    t = seed(litnn)
    g = autograd_graph(t['y'], params={k: t[k] for k in 'xwy'})
    assert [(n.id, n.kind, n.name) for n in g.nodes] == [
        (0, 'tensor', 'y'), (1, 'fn', 'MulBackward0'), (2, 'fn', 'AddBackward0'), (3, 'none', 'None'),
        (4, 'acc', 'AccumulateGrad'), (5, 'tensor', 'w'), (6, 'fn', 'AddBackward0'), (7, 'none', 'None')]
    assert g.edges == [(0, 1), (1, 2), (1, 6), (2, 3), (2, 4), (4, 5), (6, 4), (6, 7)]
    assert [(n.shape, n.requires_grad, n.is_leaf) for n in g.nodes if n.kind == 'tensor'] == [((), True, False), ((), True, True)]
    assert len(autograd_graph(t['y'], show_none=False).nodes) == 6


def test_graph_of_the_seed_example_is_torchs():
    def run(lib):
        t = seed(lib)
        return graph(autograd_graph(t['y'], params=t))
    assert run(litnn) == run(torch)
    nodes, edges = run(litnn)
    assert [n[1] for n in nodes if n[0] == 'tensor'] == ['y', 'a', 'w', 'b']   # named intermediates get boxes


EXPRESSIONS = {
    'sum of products': lambda lib, x, w: (x * w).sum(),
    'a leaf used twice in one op': lambda lib, x, w: (w * w).sum(),
    'exp and division': lambda lib, x, w: (w.exp() / (x + 1)).mean(),
    'matmul': lambda lib, x, w: (x.reshape(2, 3) @ w.reshape(3, 2)).sum(),
    'tanh and sigmoid': lambda lib, x, w: (w.tanh() + x.sigmoid() * w).sum(),
    'addmm of a transpose': lambda lib, x, w: lib.addmm(w[:1], x.reshape(1, 6), w.reshape(6, 1).t().t()).sum(),
}


@pytest.mark.parametrize('name', EXPRESSIONS)
def test_graph_is_torchs(name):
    def run(lib):
        x = lib.tensor([1., 2., 3., 4., 5., 6.])
        w = lib.tensor([.5, -1., 2., .25, 1.5, -.5], requires_grad=True)
        return graph(autograd_graph(EXPRESSIONS[name](lib, x, w), params={'x': x, 'w': w}))
    assert run(litnn) == run(torch)


def test_detach_cuts_the_path_as_in_torch():
    def run(lib):
        x, w = lib.tensor(2.), lib.tensor(3., requires_grad=True)
        y = (x + w.detach()) * (w + 1)
        g = autograd_graph(y, params={'w': w, 'y': y})
        y.backward()
        return graph(g), w.grad.item()
    (nodes, edges), grad = run(litnn)
    assert run(torch) == ((nodes, edges), grad) and grad == 5.
    names = [n[1] for n in nodes]
    assert names == ['y', 'MulBackward0', 'None', 'AddBackward0', 'AccumulateGrad', 'w', 'None']
    assert names.count('AddBackward0') == 1          # the path through `x + w` is gone


def test_retained_grads_and_leaf_grads_are_shown():
    for lib in LIBS:
        t = seed(lib)
        t['a'].retain_grad()
        t['y'].backward()
        g = autograd_graph(t['y'], params={'w': t['w'], 'a': t['a'], 'y': t['y']})
        shown = {n.name: (n.retains_grad, n.grad) for n in g.nodes if n.kind == 'tensor'}
        assert shown == {'y': (False, None), 'a': (True, 4.), 'w': (False, 9.)}, lib.__name__
    # litnn's graph knows which tensors retain their grad, named or not
    t = seed(litnn); t['a'].retain_grad()
    g = autograd_graph(t['y'])
    assert [n.retains_grad for n in g.nodes if n.kind == 'tensor'] == [False, True, False]


def test_several_roots_share_their_graph():
    w = litnn.tensor([1., 2.], requires_grad=True)
    h = w * 2
    g = autograd_graph([h.sum(), h.mean()], params={'w': w})
    assert [n.name for n in g.nodes].count('MulBackward0') == 1
    assert [n.name for n in g.nodes].count('AccumulateGrad') == 1
    assert sum(1 for n in g.nodes if n.kind == 'tensor') == 3      # two roots and w


def test_draw_graph_draws_every_node_and_edge(tmp_path):
    t = seed(litnn)
    t['a'].retain_grad(); t['y'].backward()
    params = {k: t[k] for k in 'xway'}
    g = autograd_graph(t['y'], params)
    fig = draw_graph(t['y'], params, path=tmp_path/'graph.png')
    ax = fig.axes[0]
    boxes = [x for x in ax.texts if x.get_text()]
    arrows = [x for x in ax.texts if not x.get_text() and x.arrow_patch is not None]
    assert len(boxes) == len(g.nodes) and len(arrows) == len(g.edges)
    assert [b.get_text() for b in boxes] == ['y\nscalar\nrequires_grad', 'MulBackward0',
                                             'a\nscalar\nrequires_grad\nretains grad\ngrad 4.0', 'AddBackward0',
                                             'no grad', 'AccumulateGrad', 'w\nscalar\nrequires_grad\ngrad 9.0',
                                             'AddBackward0', 'no grad']
    assert png_written(tmp_path/'graph.png')


def test_draw_graph_of_a_torch_tensor_and_a_long_edge(tmp_path):
    "A torch graph draws too; an edge that skips rows is drawn through bends, so no box sits in its way."
    t = seed(torch)
    fig = draw_graph(t['y'], {'w': t['w'], 'a': t['a'], 'y': t['y']}, path=tmp_path/'g.svg')
    assert len(fig.axes[0].lines) == 1                            # the AddBackward0 of b -> AccumulateGrad
    assert (tmp_path/'g.svg').read_text().lstrip().startswith('<?xml')


# --- the hook timeline ------------------------------------------------------------------------------

def nested(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Linear(3, 1))


def calls_in(fig):
    "The `(module name, hook kind)` calls a timeline shows, read left to right."
    ax = fig.axes[0]
    rows = [t.get_text().split()[0] for t in ax.get_yticklabels()]
    marks = sorted((x, rows[round(y)], c.get_label()) for c in ax.collections for x, y in c.get_offsets())
    return [('' if n == '(model)' else n, k) for _, n, k in marks]


def test_hook_timeline_shows_the_order_of_a_real_run_which_is_torchs(tmp_path):
    fig = hook_timeline(nested(litnn), litnn.randn(4, 2, requires_grad=True), path=tmp_path/'hooks.png')
    shown = calls_in(fig)
    assert shown == record_hook_calls(nested(torch), torch.randn(4, 2, requires_grad=True))
    assert len(shown) == 4 * 7 and shown[0] == ('', 'forward_pre') and shown[-1] == ('', 'backward')
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ['(model)  Sequential', '0  Linear', '1  ReLU',
                                                           '2  Sequential', '2.0  Linear', '2.1  ReLU', '3  Linear']
    assert sorted(ax.get_legend_handles_labels()[1]) == sorted(HOOK_KINDS)
    assert png_written(tmp_path/'hooks.png', 10_000)


def test_hook_timeline_leaves_no_hook_behind():
    model = nested(litnn)
    hook_timeline(model, litnn.randn(1, 2, requires_grad=True))
    assert all(not (m._forward_pre_hooks or m._forward_hooks or m._backward_pre_hooks or m._backward_hooks)
               for m in model.modules())


def test_plot_hook_calls_without_a_model_labels_rows_by_name():
    calls = [('', 'forward_pre'), ('a', 'forward_pre'), ('a', 'forward'), ('', 'forward')]
    fig = plot_hook_calls(calls)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ['(model)', 'a']
    assert calls_in(fig) == calls


# --- summary, against torchinfo ---------------------------------------------------------------------

def mlp(lib):
    nn = lib.nn
    m = nn.Sequential(nn.Flatten(), nn.Sequential(nn.Linear(64, 16), nn.ReLU()), nn.Linear(16, 10))
    m[2].weight.requires_grad_(False)
    return m


def cnn(lib):
    nn = lib.nn
    m = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, bias=False),
                      nn.ReLU(), nn.Flatten(), nn.Linear(16 * 5 * 5, 10))
    m[0].requires_grad_(False)
    return m


def tower(lib):
    nn = lib.nn
    class Tower(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Linear(4, 8)
            self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(8, 8), nn.ReLU()) for _ in range(2)])
            self.head = nn.Linear(8, 3, bias=False)
            self.scale = nn.Parameter(lib.ones(3))       # a parameter of the model itself
        def forward(self, x):
            x = self.stem(x)
            for b in self.blocks: x = b(x)
            return self.head(self.blocks[0](x)) * self.scale    # blocks[0] runs twice
    return Tower()


def torchinfo_lines(model, size, **kw):
    return str(torchinfo.summary(model, input_size=size, verbose=0, **kw)).splitlines()


def comparable(lines):
    "A summary table without the two lines litnn words differently: the mult-adds unit, and the input size."
    # torchinfo prints its Units enum ('Units.MEGABYTES') and counts the input with Python's object
    # overhead (sys.getsizeof of the storage); litnn writes '(M)' and counts the data bytes.
    return [l for l in lines if not l.startswith(('Total mult-adds', 'Input size', 'Estimated Total'))]


CASES = {
    'mlp': (mlp, (2, 1, 8, 8), {}),
    'mlp, mult-adds column': (mlp, (5, 64), {'col_names': ('output_size', 'num_params', 'mult_adds', 'trainable')}),
    'cnn, mult-adds column': (cnn, (4, 1, 14, 14), {'col_names': ('output_size', 'num_params', 'mult_adds', 'trainable')}),
    'tower': (tower, (3, 4), {}),
    'tower, depth 1': (tower, (3, 4), {'depth': 1}),
    'tower, depth 2': (tower, (3, 4), {'depth': 2, 'col_names': ('num_params', 'trainable')}),
}


@pytest.mark.parametrize('case', CASES)
def test_summary_prints_what_torchinfo_prints(case):
    build, size, kw = CASES[case]
    kw = {'col_names': ('output_size', 'num_params', 'trainable'), **kw}
    ours = repr(summary(build(litnn), size, **kw)).splitlines()
    theirs = torchinfo_lines(build(torch), size, **kw)
    assert comparable(ours) == comparable(theirs)
    assert len(ours) == len(theirs)


@pytest.mark.parametrize('build', [mlp, cnn, tower])
def test_summary_totals(build):
    model, tmodel = build(litnn), build(torch)
    size = {mlp: (2, 1, 8, 8), cnn: (4, 1, 14, 14), tower: (3, 4)}[build]
    s, t = summary(model, size), torchinfo.summary(tmodel, input_size=size, verbose=0)
    ps = list(model.parameters())
    assert s.total_params == sum(p.numel() for p in ps) == t.total_params
    assert s.trainable_params == sum(p.numel() for p in ps if p.requires_grad) == t.trainable_params
    assert s.total_param_bytes == 4 * s.total_params
    # torchinfo counts the bytes of parameters of modules without children only, so it misses the
    # Tower's own `scale` (3 floats); litnn counts every parameter
    assert t.total_param_bytes == s.total_param_bytes - (4 * 3 if build is tower else 0)
    assert (s.total_output_bytes, s.total_mult_adds) == (t.total_output_bytes, t.total_mult_adds)
    assert s.total_input == 4 * math.prod(size)
    assert str(s) == repr(s)


def test_summary_rows_of_a_model_with_a_module_list():
    s = summary(tower(litnn), (3, 4))
    rows = [(r.name, r.class_name, r.depth, r.depth_index, r.output_size, r.is_recursive) for r in s.summary_list]
    assert rows == [('', 'Tower', 0, 1, [3, 3], False), ('stem', 'Linear', 1, 1, [3, 8], False),
                    ('blocks', 'ModuleList', 1, 2, None, False),
                    ('blocks.0', 'Sequential', 2, 1, [3, 8], False), ('blocks.0.0', 'Linear', 3, 1, [3, 8], False),
                    ('blocks.0.1', 'ReLU', 3, 2, [3, 8], False),
                    ('blocks.1', 'Sequential', 2, 2, [3, 8], False), ('blocks.1.0', 'Linear', 3, 3, [3, 8], False),
                    ('blocks.1.1', 'ReLU', 3, 4, [3, 8], False),
                    ('blocks.0', 'Sequential', 2, 3, [3, 8], True), ('blocks.0.0', 'Linear', 3, 5, [3, 8], True),
                    ('blocks.0.1', 'ReLU', 3, 6, [3, 8], True), ('head', 'Linear', 1, 3, [3, 3], False)]


def test_summary_inputs_modes_and_errors():
    class Two(litnn.nn.Module):
        def __init__(self):
            super().__init__(); self.fc = litnn.nn.Linear(3, 2)
        def forward(self, a, b): return self.fc(a) + b
    model = Two()
    model.train(); model.fc.eval()
    seen = []
    model.fc.register_forward_hook(lambda m, args, out: seen.append(m.training))
    s = summary(model, [(4, 3), (4, 2)])
    assert (s.summary_list[0].output_size, s.total_input, seen) == ([4, 2], 4 * (12 + 8), [False])
    assert (model.training, model.fc.training) == (True, False)           # every module's own mode is back
    summary(model, [(4, 3), (4, 2)], mode='train'); summary(model, [(4, 3), (4, 2)], mode='same')
    assert seen == [False, True, False] and (model.training, model.fc.training) == (True, False)
    s = summary(model, input_data=[litnn.ones(1, 3, dtype=litnn.float64).float(), litnn.zeros(1, 2)])
    assert s.summary_list[1].output_size == [1, 2]
    assert summary(litnn.nn.Flatten(), (2, 3, 4), dtypes=[litnn.float64]).total_input == 8 * 24
    with pytest.raises(ValueError, match='input_size or input_data'): summary(model)
    with pytest.raises(ValueError, match="unknown col_names \\['kernel_size'\\]"): summary(model, (1, 3), col_names=('kernel_size',))
    assert not any(m._forward_hooks and len(m._forward_hooks) > 1 for m in model.modules())   # only the test's own hook


# --- training curves --------------------------------------------------------------------------------

def test_plot_history_from_a_list_of_epochs(tmp_path):
    history = [{'epoch': e, 'loss': 1 / e, 'val_loss': 1.2 / e, 'val_acc': 1 - 0.5 / e, 'lr': 0.1} for e in (1, 2, 3)]
    fig = plot_history(history, path=tmp_path/'curves.png', title='run 1')
    assert [ax.get_title() for ax in fig.axes] == ['loss', 'acc', 'lr']
    loss, val_loss = fig.axes[0].lines
    assert (loss.get_label(), val_loss.get_label()) == ('loss', 'val_loss')
    assert list(loss.get_xdata()) == [1, 2, 3] and list(val_loss.get_ydata()) == [h['val_loss'] for h in history]
    assert list(fig.axes[1].lines[0].get_ydata()) == [h['val_acc'] for h in history]
    assert fig._suptitle.get_text() == 'run 1'
    assert png_written(tmp_path/'curves.png')


def test_plot_history_from_a_dict_of_lists():
    fig = plot_history({'train_loss': [2., 1., .5, .4], 'val_loss': [2.1, 1.3, .9], 'train_accuracy': [.2, .5, .7, .8]})
    assert [ax.get_title() for ax in fig.axes] == ['loss', 'accuracy']
    train, val = fig.axes[0].lines
    assert list(train.get_xdata()) == [1, 2, 3, 4] and list(val.get_xdata()) == [1, 2, 3]   # a shorter series stops early
    assert list(fig.axes[1].lines[0].get_ydata()) == [.2, .5, .7, .8]


# --- without matplotlib ----------------------------------------------------------------------------

WITHOUT_MATPLOTLIB = r"""
import sys
sys.modules['matplotlib'] = None        # `import matplotlib...` now fails as if it were not installed
import litnn, litnn.viz                 # importing needs nothing more
print(len(litnn.viz.summary(litnn.nn.Linear(2, 3), (1, 2)).summary_list))   # nor does summary, which draws nothing
x = litnn.tensor(2., requires_grad=True)
for draw in (lambda: litnn.viz.draw_graph(x * 3), lambda: litnn.viz.plot_history({'loss': [1., .5]}),
             lambda: litnn.viz.hook_timeline(litnn.nn.Linear(2, 1), litnn.ones(1, 2))):
    try: draw()
    except ModuleNotFoundError as e: print(type(e).__name__, e.name, e, sep='|')
"""

def test_drawing_without_matplotlib_says_which_extra_installs_it():
    import subprocess, sys
    r = subprocess.run([sys.executable, '-c', WITHOUT_MATPLOTLIB], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    rows, *errors = r.stdout.strip().splitlines()
    assert int(rows) >= 1
    assert len(errors) == 3, r.stdout
    for line in errors:
        kind, name, msg = line.split('|')
        assert kind == 'ModuleNotFoundError' and name == 'matplotlib'
        assert 'matplotlib' in msg and 'pip install "litnn[train]"' in msg

"""Issue 14, objects in checkpoints: numpy arrays kept by litnn.save/load (as torch.save keeps them), and
litnn.save(obj, f, format="torch") read by real torch.load(weights_only=True)."""
import io, os, pickle
from collections import OrderedDict
import numpy as np
import pytest
import litnn
from test_serialization import DTYPES, values, tensor

torch = pytest.importorskip('torch')


def litnn_roundtrip(obj):
    b = io.BytesIO(); litnn.save(obj, b); b.seek(0); return litnn.load(b)


def torch_roundtrip(obj):
    b = io.BytesIO(); torch.save(obj, b); b.seek(0); return torch.load(b, weights_only=False)


# --- numpy arrays --------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', [d for d in DTYPES if d != 'bfloat16'] + ['bfloat16'])
def test_numpy_arrays_and_scalars_kept_like_torch(dtype):
    a = values(dtype, (2, 3)) if dtype != 'bfloat16' else values('bfloat16', (2, 3))
    obj = {'a': a, 'col': a[:, 1], 'scalar': a.reshape(-1)[0], 'empty': a[:0]}
    ours, theirs = litnn_roundtrip(obj), torch_roundtrip(obj)
    for k in obj:
        assert type(ours[k]) is type(theirs[k]), k
        assert ours[k].dtype == theirs[k].dtype and np.array_equal(np.ascontiguousarray(ours[k]).view(np.uint8), np.ascontiguousarray(theirs[k]).view(np.uint8))


def test_numpy_array_sharing_memory_with_a_tensor_stored_once():
    a = np.arange(1000.)
    b = io.BytesIO(); litnn.save({'a': a, 't': litnn.from_numpy(a) if hasattr(litnn, 'from_numpy') else litnn.Tensor._make(a)}, b)
    assert len(b.getvalue()) < 1000 * 8 + 2000                      # one copy of the memory
    back = litnn.load(io.BytesIO(b.getvalue()))
    assert type(back['a']) is np.ndarray and back['a'].flags.writeable and back['t'].tolist() == a.tolist()


def test_numpy_arrays_litnn_cannot_store_are_refused():
    for bad in [np.zeros(2, np.longdouble), np.array(['a']), np.array([object()]), np.zeros(2, np.int8).view([('a', 'i1')])]:
        with pytest.raises(TypeError, match='a numpy array of dtype'): litnn.save({'x': bad}, io.BytesIO())
    for good in (np.arange(3, dtype=np.uint16), np.arange(3, dtype=np.uint32)):     # numpy's wide unsigned types are litnn dtypes now
        b = io.BytesIO(); litnn.save({'x': good}, b); b.seek(0); assert litnn.load(b)['x'].tolist() == [0, 1, 2]


# --- format="torch" ------------------------------------------------------------------------------

def torch_reads(obj):
    b = io.BytesIO(); litnn.save(obj, b, format='torch'); b.seek(0)
    return torch.load(b, weights_only=True), b


def test_a_model_trained_in_litnn_deploys_in_torch():
    litnn.manual_seed(0)
    net = litnn.nn.Sequential(litnn.nn.Linear(4, 8), litnn.nn.BatchNorm1d(8), litnn.nn.ReLU(), litnn.nn.Linear(8, 3))
    opt = litnn.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    x = litnn.randn(16, 4)
    for _ in range(3):
        opt.zero_grad(); net(x).pow(2).mean().backward(); opt.step()
    ck, _ = torch_reads({'model': net.state_dict(), 'optimizer': opt.state_dict(), 'epoch': 3})
    tnet = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    assert repr(tnet.load_state_dict(ck['model'])) == '<All keys matched successfully>'
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1, momentum=0.9)
    topt.load_state_dict(ck['optimizer'])
    net.eval(); tnet.eval()
    assert np.allclose(tnet(torch.tensor(x.numpy())).detach().numpy(), net(x).detach().numpy(), atol=1e-6)
    assert type(ck['model']) is OrderedDict and ck['model']._metadata[''] == {'version': 1} and ck['epoch'] == 3
    assert ck['model']['1.num_batches_tracked'].dtype == torch.int64


@pytest.mark.parametrize('dtype', DTYPES)
def test_every_dtype_bit_for_bit_in_torch(dtype):
    a = values(dtype, (3, 4))
    t = tensor(litnn, dtype, a)
    back, _ = torch_reads({'t': t, 'p': litnn.nn.Parameter(t) if t.is_floating_point() else t})
    assert str(back['t'].dtype) == f'torch.{dtype}'
    mine = t._data.view(np.uint8) if dtype != 'bool' else t._data
    theirs = back['t'].view(torch.uint8).numpy() if dtype == 'bfloat16' else back['t'].numpy()
    assert np.array_equal(np.asarray(theirs).view(np.uint8), np.asarray(mine).view(np.uint8))
    assert type(back['p']) is (torch.nn.Parameter if t.is_floating_point() else torch.Tensor)


def test_views_share_one_storage_in_torch_and_values_types_survive():
    w = litnn.arange(12.).reshape(3, 4)
    back, b = torch_reads({'w': w, 'wt': w.t(), 'col': w[:, 1], 'z': litnn.zeros(2, 0, 3), 'scalar': litnn.tensor(2.5),
                           'g': litnn.ones(2, requires_grad=True), 'misc': (1, 'x', None, {3, 4}, [2.5, True]),
                           'dtype': litnn.bfloat16, 'device': litnn.device('cpu'), 'size': litnn.Size([2, 3])})
    assert back['wt'].tolist() == w.t().tolist() and back['col'].tolist() == w[:, 1].tolist()
    assert back['w'].untyped_storage().data_ptr() == back['wt'].untyped_storage().data_ptr() == back['col'].untyped_storage().data_ptr()
    assert back['z'].shape == (2, 0, 3) and back['scalar'].item() == 2.5 and back['g'].requires_grad
    assert back['misc'] == (1, 'x', None, {3, 4}, [2.5, True])
    assert back['dtype'] is torch.bfloat16 and back['device'] == torch.device('cpu') and back['size'] == torch.Size([2, 3])
    mine = litnn.load(io.BytesIO(b.getvalue()))                      # litnn reads its own torch files
    assert mine['wt'].tolist() == w.t().tolist() and np.shares_memory(mine['w']._data, mine['wt']._data)


def test_torch_format_is_deterministic_atomic_and_refuses_code(tmp_path):
    obj = {'w': litnn.arange(4.), 'n': 1}
    a, b = io.BytesIO(), io.BytesIO()
    litnn.save(obj, a, format='torch'); litnn.save(obj, b, format='torch')
    assert a.getvalue() == b.getvalue()
    path = tmp_path / 'm.pt'
    litnn.save({'old': 1}, path, format='torch')
    with pytest.raises(TypeError, match='save its state_dict'): litnn.save({'m': litnn.nn.Linear(1, 1)}, path, format='torch')
    assert torch.load(path, weights_only=True) == {'old': 1} and os.listdir(tmp_path) == ['m.pt']
    with pytest.raises(ValueError, match="format must be 'litnn' or 'torch'"): litnn.save(obj, io.BytesIO(), format='pt')


# --- whole objects: saved as data, loaded only from allow-listed classes ---------------------------

class Tied(litnn.nn.Module):
    "A model whose decoder shares the encoder module (tied), with a plain attribute."
    def __init__(self):
        super().__init__()
        self.enc = litnn.nn.Linear(3, 3)
        self.dec = self.enc
        self.norm = litnn.nn.BatchNorm1d(3)
        self.scale = 0.5
    def forward(self, x): return self.dec(litnn.relu(self.norm(self.enc(x)))) * self.scale


CLASSES = [Tied, litnn.nn.Linear, litnn.nn.BatchNorm1d]

def test_whole_module_refused_until_allow_listed_then_loads_whole(tmp_path):
    litnn.manual_seed(0)
    m = Tied()
    x = litnn.randn(4, 3)
    m(x).sum().backward()                                          # after backward: grads are not saved
    path = tmp_path / 'model.pt'
    litnn.save(m, path)
    with pytest.raises(pickle.UnpicklingError, match=r"object of class test_checkpoint_objects.Tied, which is not allow-listed"):
        litnn.load(path)
    with litnn.serialization.safe_globals([Tied]):
        with pytest.raises(pickle.UnpicklingError, match='litnn.nn.modules.linear.Linear'): litnn.load(path)
    with litnn.serialization.safe_globals(CLASSES): back = litnn.load(path)
    assert litnn.serialization.get_safe_globals() == []              # the context manager restored the list
    assert type(back) is Tied and back.dec is back.enc and back.scale == 0.5 and back.training
    assert type(back.enc.weight) is litnn.nn.Parameter and back.enc.weight.grad is None
    m.eval(); back.eval()
    assert back(x).tolist() == m(x).tolist()
    assert {k: v.tolist() for k, v in back.state_dict().items()} == {k: v.tolist() for k, v in m.state_dict().items()}
    back.train(); back(x).sum().backward()                           # it trains
    assert back.enc.weight.grad is not None


def test_add_and_clear_safe_globals():
    S = litnn.serialization
    try:
        S.add_safe_globals([Tied, (litnn.nn.Linear, 'my.Linear')])
        assert S.get_safe_globals() == [Tied, (litnn.nn.Linear, 'my.Linear')]
    finally: S.clear_safe_globals()
    assert S.get_safe_globals() == []


def test_like_torch_a_whole_model_needs_its_classes_allow_listed():
    "The same rule in torch 2.13: refused by default, loaded under safe_globals."
    m = torch.nn.Linear(2, 2)
    b = io.BytesIO(); torch.save(m, b); b.seek(0)
    with pytest.raises(pickle.UnpicklingError, match='add_safe_globals'): torch.load(b)
    b.seek(0)
    with torch.serialization.safe_globals([torch.nn.Linear]): assert type(torch.load(b)) is torch.nn.Linear


def test_objects_cannot_name_code_to_run(tmp_path):
    "A crafted file naming os.system as an object's class: refused, nothing imported or run."
    import json
    import litnn._checkpoint_file as CF
    marker = tmp_path / 'ran'
    structure = {'tensors': [], 'root': {'type': 'object', 'index': 0},
                 'objects': [{'class': 'os.system', 'state': {'cmd': f'touch {marker}'}}]}
    b = io.BytesIO()
    CF._write({}, {'format': 'litnn', 'version': '3', 'structure': json.dumps(structure)}, b, checksums=True)
    with pytest.raises(pickle.UnpicklingError, match='os.system, which is not allow-listed'): litnn.load(io.BytesIO(b.getvalue()))
    assert not marker.exists()


def test_module_with_a_hook_function_is_refused_as_torch():
    m = litnn.nn.Linear(1, 1)
    m.register_forward_hook(lambda *a: None)   # a local function: pickle's error, as torch.save's
    with pytest.raises(AttributeError, match=r"Can't pickle local object '.*<lambda>'"): litnn.save(m, io.BytesIO())


def test_torch_format_refuses_objects():
    with pytest.raises(TypeError, match="stores data, not objects such as a litnn.nn.modules.linear.Linear"):
        litnn.save(litnn.nn.Linear(1, 1), io.BytesIO(), format='torch')


def test_weights_only_false_loads_imported_modules_and_the_programs_own_classes_only(tmp_path):
    """As example programs do (torch.load(f, weights_only=False)): litnn Modules of imported classes load, and so do the
    program's own classes (here this test file's, outside Python's installation); an installed library's class does not."""
    m = Tied()
    path = tmp_path / 'model.pt'
    litnn.save(m, path)
    back = litnn.load(path, weights_only=False)
    assert type(back) is Tied and back.dec is back.enc
    with pytest.raises(pickle.UnpicklingError, match='not allow-listed'): litnn.load(path, weights_only=True)
    class Plain: pass
    import test_checkpoint_objects as me
    me.Plain = Plain; Plain.__qualname__ = 'Plain'
    try:
        p = Plain(); p.lr, p.sizes = 0.1, [2, 3]
        litnn.save({'settings': p}, path)
        with pytest.raises(pickle.UnpicklingError, match='test_checkpoint_objects.Plain, which is not allow-listed'):
            litnn.load(path)                                       # weights_only=True: the allow-list is needed
        back = litnn.load(path, weights_only=False)['settings']
        assert type(back) is Plain and (back.lr, back.sizes) == (0.1, [2, 3])
    finally: del me.Plain
    import string
    litnn.save(string.Formatter(), path)                           # the standard library's: refused even when trusted
    with pytest.raises(pickle.UnpicklingError, match='string.Formatter, which is not allow-listed'): litnn.load(path, weights_only=False)


def test_settings_objects_saved_beside_the_weights_load_trusted_as_in_torch(tmp_path):
    """`torch.save({'args': args, 'config': cfg, ...})`: argparse's Namespace, SimpleNamespace, dataclasses and the
    script's own classes come back with weights_only=False (and are refused without it), in a script run as __main__."""
    import subprocess, sys, textwrap
    template = textwrap.dedent('''
        import sys, io, argparse, dataclasses, types, pickle
        import LIB as torch
        class Foo:
            def __init__(self): self.a = 1
        @dataclasses.dataclass
        class Cfg:
            lr: float = 0.1
            layers: tuple = (1, 2)
        buf = io.BytesIO()
        torch.save({'x': torch.ones(2), 'foo': Foo(), 'args': argparse.Namespace(lr=0.5, name='run'), 'cfg': Cfg(), 'ns': types.SimpleNamespace(a=[1, 2])}, buf)
        buf.seek(0)
        try: torch.load(buf); print('loaded')
        except pickle.UnpicklingError: print('refused')
        buf.seek(0); r = torch.load(buf, weights_only=False)
        print(type(r['foo']).__name__, r['foo'].a, r['args'], r['cfg'], r['ns'], r['x'].tolist())
        ''')
    outs = []
    for lib in ('litnn', 'torch'):
        script = tmp_path / f'train_{lib}.py'
        script.write_text(template.replace('LIB', lib))
        p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        outs.append(p.stdout)
    assert outs[0] == outs[1] and outs[0].startswith('refused\nFoo 1 Namespace(lr=0.5')


@pytest.mark.parametrize('wrap', ['prune', 'weight_norm', 'spectral_norm'])
def test_weights_only_false_loads_a_model_carrying_litnn_hooks_like_torch(tmp_path, wrap):
    "torch.save of a pruned / weight-normed model: torch.load(weights_only=False) rebuilds its hook objects; so does litnn."
    import torch.nn.utils.prune, litnn.nn.utils.prune
    outs = []
    for L in (torch, litnn):
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(4, 3), L.nn.ReLU())
        if wrap == 'prune': L.nn.utils.prune.l1_unstructured(m[0], 'weight', amount=0.5)
        else: getattr(L.nn.utils, wrap)(m[0])
        x = L.tensor(np.arange(8.).reshape(2, 4), dtype=L.float32)
        path = tmp_path / f'{L.__name__}.pt'
        L.save(m, path)
        back = L.load(path, weights_only=False)
        hooks = list(back[0]._forward_pre_hooks.values())
        outs.append((sorted(back.state_dict()), [type(h).__name__ for h in hooks], back.eval()(x).tolist(), m.eval()(x).tolist()))
    assert outs[1][:2] == outs[0][:2]
    assert np.allclose(outs[1][2], outs[1][3])                       # the loaded model computes what the saved one did
    with pytest.raises(pickle.UnpicklingError, match='not allow-listed'): litnn.load(path, weights_only=True)


class WithActivation(litnn.nn.Module):
    "A module holding a function, as TransformerEncoderLayer holds its activation (F.relu)."
    def __init__(self): super().__init__(); self.lin = litnn.nn.Linear(2, 2); self.act = litnn.nn.functional.relu
    def forward(self, x): return self.act(self.lin(x))


class TorchWithActivation(torch.nn.Module):
    def __init__(self): super().__init__(); self.lin = torch.nn.Linear(2, 2); self.act = torch.nn.functional.relu


def test_functions_are_stored_by_name_and_need_allow_listing_like_torch(tmp_path):
    "word_language_model's torch.save(model) of a Transformer: the activation function is stored by its name, as pickle does."
    path = tmp_path / 'm.pt'
    litnn.save(WithActivation(), path)
    back = litnn.load(path, weights_only=False)
    assert back.act is litnn.nn.functional.relu and type(back.lin) is litnn.nn.Linear
    tm = TorchWithActivation(); b = io.BytesIO(); torch.save(tm, b)
    for L, f, cls in [(litnn, path, WithActivation), (torch, b, TorchWithActivation)]:
        if L is torch: b.seek(0)
        with L.serialization.safe_globals([cls, L.nn.Linear]):   # the class is allowed but not the function: refused, naming it
            with pytest.raises(pickle.UnpicklingError, match=r'relu'): L.load(f)
        if L is torch: b.seek(0)
        with L.serialization.safe_globals([cls, L.nn.Linear, L.nn.functional.relu]):
            assert L.load(f).act is L.nn.functional.relu
    litnn.save(litnn.nn.TransformerEncoderLayer(4, 2, 8), path)
    assert litnn.load(path, weights_only=False).activation is litnn.nn.functional.relu


def test_a_crafted_global_outside_litnn_is_refused_even_when_trusted():
    import json
    import litnn._checkpoint_file as CF
    structure = {'tensors': [], 'root': {'type': 'global', 'name': 'os.system'}}
    b = io.BytesIO()
    CF._write({}, {'format': 'litnn', 'version': '3', 'structure': json.dumps(structure)}, b, checksums=True)
    for wo in (True, False):
        with pytest.raises(pickle.UnpicklingError, match='os.system, which is not allow-listed'):
            litnn.load(io.BytesIO(b.getvalue()), weights_only=wo)
    with pytest.raises(AttributeError, match="Can't pickle local object"): litnn.save({'f': lambda x: x}, io.BytesIO())   # as torch.save


def test_a_builtin_function_saves_by_name_and_loads_only_allow_listed_like_torch():
    for L in (litnn, torch):
        b = io.BytesIO(); L.save({'f': print}, b); b.seek(0)
        with pytest.raises(pickle.UnpicklingError, match=r'safe_globals\(\[(builtins.)?print\]\)'): L.load(b)
        b.seek(0)
        with L.serialization.safe_globals([print]): assert L.load(b)['f'] is print

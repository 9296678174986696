"""litnn.load on PyTorch's own `torch.save` files, read without importing torch: real files written by torch
(trained models, checkpoints with optimizer state, every dtype, views and tied weights) give what
`torch.load(weights_only=True)` gives, and crafted files that try to run code are refused without running it."""
import io, os, pickle, zipfile
from collections import OrderedDict

import numpy as np
import pytest

import litnn
import litnn._torch_files as T
from nn_pairs import stand_ins
from test_serialization import DTYPES, arr, describe, from_litnn, tensor, torch_training, values

torch = pytest.importorskip('torch')


def saved(obj, **kw):
    b = io.BytesIO(); torch.save(obj, b, **kw); b.seek(0)
    return b


def both(obj, **kw):
    "What litnn.load and torch.load(weights_only=True) make of the file torch.save writes for `obj`."
    b = saved(obj, **kw)
    ours = litnn.load(b)
    b.seek(0)
    return ours, torch.load(b, weights_only=True)


def same(obj, **kw):
    ours, theirs = both(obj, **kw)
    a, b = describe(ours, litnn), describe(theirs, torch)
    assert a == b, f'litnn: {a!r}\ntorch: {b!r}'
    return ours


# --- the proof that it is useful -----------------------------------------------------------------------

def test_model_trained_in_torch_gives_same_outputs_in_litnn(tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    opt = torch.optim.Adam(tm.parameters(), lr=0.01)
    x, y = torch.randn(32, 4), torch.randn(32, 3)
    for _ in range(20):
        opt.zero_grad(); ((tm(x) - y) ** 2).mean().backward(); opt.step()
    torch.save(tm.state_dict(), tmp_path / 'model.pth')
    lm = litnn.nn.Sequential(litnn.nn.Linear(4, 16), litnn.nn.ReLU(), litnn.nn.Linear(16, 3))
    sd = litnn.load(tmp_path / 'model.pth')
    assert type(sd) is OrderedDict and list(sd) == list(tm.state_dict()) and sd._metadata == tm.state_dict()._metadata
    assert repr(lm.load_state_dict(sd)) == '<All keys matched successfully>'
    np.testing.assert_allclose(lm(litnn.tensor(x.numpy()))._data, tm(x).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('opt_name', ['SGD', 'Adam'])
def test_training_checkpoint_with_optimizer_state(opt_name, tmp_path):
    model, opt, loss = torch_training(opt_name)
    ckpt = {'epoch': 2, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': loss,
            'best': 0.25, 'tag': 'run-1', 'history': [1.0, 0.5], 'shape': torch.Size([3, 4])}
    torch.save(ckpt, tmp_path / 'ckpt.tar')
    back = litnn.load(tmp_path / 'ckpt.tar')
    assert describe(back, litnn) == describe(torch.load(tmp_path / 'ckpt.tar', weights_only=True), torch)
    assert [type(k) for k in back['optimizer_state_dict']['state']] == [int] * len(opt.state_dict()['state'])
    model2, opt2, _ = torch_training(opt_name)                 # back into torch, through litnn's own format
    b = io.BytesIO(); litnn.save(back, b); b.seek(0)
    again = litnn.load(b)
    model2.load_state_dict(from_litnn(again['model_state_dict']))
    opt2.load_state_dict(from_litnn(again['optimizer_state_dict']))
    assert describe(opt2.state_dict(), torch) == describe(opt.state_dict(), torch)
    assert describe(model2.state_dict(), torch) == describe(model.state_dict(), torch)


# --- values ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES)
def test_every_dtype_bit_for_bit(dtype):
    ts = [tensor(torch, dtype, values(dtype, shape, seed=i)) for i, shape in enumerate([(), (0,), (7,), (3, 4), (2, 0, 5)])]
    ours = same(ts)
    for o, t in zip(ours, ts):
        assert o.dtype == getattr(litnn, dtype)
        raw = (t.view(torch.int16) if dtype == 'bfloat16' else t).numpy().tobytes()
        assert o._data.tobytes() == raw and o._data.flags.writeable


def test_python_values_like_torch():
    same({'none': None, 'b': (True, False), 'i': [0, -1, 2**100], 'f': [1.5, -0.0, float('inf'), 1e-320], 's': 'ünï 🚀',
          'bytes': b'\x00\xffab', 'set': {1, 2}, 'dtypes': [torch.float16, torch.bfloat16, torch.int64, torch.bool],
          'devices': [torch.device('cpu'), torch.device('cuda', 1)], 'size': torch.Size([2, 3]), 3: 'int key',
          (1, 'a'): 'tuple key', 'nested': OrderedDict(a={'b': [1, (2, 3)]})})


def test_counter_and_a_multistep_scheduler_state_like_torch():
    "collections.Counter is on torch's weights_only list: MultiStepLR keeps its milestones in one."
    o = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    sd = torch.optim.lr_scheduler.MultiStepLR(o, milestones=[3, 3, 8]).state_dict()
    ours, theirs = both({'c': __import__('collections').Counter('abca'), 'sched': sd})
    assert type(ours['c']) is type(theirs['c']) and type(ours['sched']['milestones']) is type(theirs['sched']['milestones'])
    assert ours == theirs


def test_parameters_and_requires_grad_like_torch():
    x = torch.ones(2, requires_grad=True)
    ours = same([torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.zeros(3), requires_grad=False), x, (x * 2).detach()])
    assert [type(o) for o in ours] == [litnn.nn.Parameter, litnn.nn.Parameter, litnn.Tensor, litnn.Tensor]


@pytest.mark.parametrize('protocol', [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    "torch.save(pickle_protocol=4) files: torch's weights_only reader refuses them (FRAME); litnn reads them."
    obj = {'w': torch.arange(6.).reshape(2, 3), 'meta': OrderedDict(x=1), 'p': torch.nn.Parameter(torch.ones(2))}
    b = saved(obj, pickle_protocol=protocol)
    assert describe(litnn.load(b), litnn) == describe(obj, torch)


def test_views_share_memory_like_torch():
    def run(objs):
        ours, theirs = objs
        with torch.no_grad(): theirs[0].mul_(-1)
        with litnn.no_grad(): ours[0].mul_(-1)
        return [arr(t).tolist() for t in theirs], [arr(t).tolist() for t in ours]
    base = torch.arange(60.).reshape(6, 10)
    views = [base, base.t(), base[2:5, 1::3], base[:, 7], base.reshape(-1)[13:29], base[1].expand(4, 10)]
    theirs, ours = run(both(views))
    assert ours == theirs
    ours, _ = both(views)
    assert ours[2]._data.strides == (40, 12) and ours[5]._data.strides == (0, 4)
    assert all(np.shares_memory(o._data, ours[0]._data) for o in ours[1:])


def test_tied_weights_state_dict_like_torch():
    m = stand_ins(torch).Deep()
    with torch.no_grad():
        for i, t in enumerate(m.state_dict().values()): t.copy_(torch.full(t.shape, float(i)))
    sd = same(m.state_dict())
    assert list(sd) == list(m.state_dict())
    with litnn.no_grad(): sd['net.fc1.weight'].add_(100.)
    assert sd['tied.weight'].tolist() == sd['net.fc1.weight'].tolist() == sd['again.weight'].tolist()
    model = stand_ins(litnn).Deep()
    assert repr(model.load_state_dict(sd)) == '<All keys matched successfully>'


def test_archive_names_and_file_objects(tmp_path):
    torch.save({'w': torch.ones(2)}, tmp_path / 'my.model.v2.pt')
    assert zipfile.ZipFile(tmp_path / 'my.model.v2.pt').namelist()[0].split('/')[0] != 'archive'
    for src in [tmp_path / 'my.model.v2.pt', str(tmp_path / 'my.model.v2.pt'), open(tmp_path / 'my.model.v2.pt', 'rb'), saved({'w': torch.ones(2)})]:
        assert litnn.load(src)['w'].tolist() == [1., 1.]
        if hasattr(src, 'close'): src.close()


def rewrite(f, changes):
    "A copy of zip `f` with entries replaced (name -> bytes, or a function of the old bytes; None drops it)."
    f.seek(0)
    z, out = zipfile.ZipFile(f), io.BytesIO()
    with zipfile.ZipFile(out, 'w') as w:
        for n in z.namelist():
            new = changes.get(n.split('/', 1)[1], z.read(n))
            if callable(new): new = new(z.read(n))
            if new is not None: w.writestr(n, new)
    out.seek(0)
    return out


def test_big_endian_file():
    t = torch.tensor([1.5, -2., 3.25], dtype=torch.float64)
    f = rewrite(saved({'w': t, 'i': torch.tensor([1, 2], dtype=torch.int32)}),
                {'byteorder': b'big', 'data/0': lambda b: np.frombuffer(b, '<f8').astype('>f8').tobytes(),
                 'data/1': lambda b: np.frombuffer(b, '<i4').astype('>i4').tobytes()})
    assert torch.load(f, weights_only=True)['w'].tolist() == [1.5, -2., 3.25]      # the file is a valid torch file
    f.seek(0)
    back = litnn.load(f)
    assert back['w'].tolist() == [1.5, -2., 3.25] and back['i'].tolist() == [1, 2] and back['w'].dtype == litnn.float64


# --- map_location ------------------------------------------------------------------------------------

def on_cuda(obj):
    "A torch file whose storages say they were saved on cuda:0 (no GPU here to save one for real)."
    return rewrite(saved(obj), {'data.pkl': lambda b: b.replace(b'X\x03\x00\x00\x00cpu', b'X\x06\x00\x00\x00cuda:0')})


def test_cuda_file_with_map_location():
    base = torch.arange(4.)
    f = on_cuda({'w': base, 'v': base[1:]})
    assert torch.load(f, map_location='cpu', weights_only=True)['v'].tolist() == [1., 2., 3.]
    if not litnn.cuda.is_available():
        f.seek(0)
        with pytest.raises(RuntimeError, match=r"storage '0'.*map_location=litnn.device\('cpu'\)"): litnn.load(f)
    seen = []
    for loc in ['cpu', litnn.device('cpu'), {'cuda:0': 'cpu'}, lambda s, l: seen.append(l) or s]:
        f.seek(0)
        back = litnn.load(f, map_location=loc)
        assert back['v'].tolist() == [1., 2., 3.] and back['w'].device == litnn.device('cpu')
        assert np.shares_memory(back['v']._data, back['w']._data)
    assert seen == ['cuda:0']                                       # one storage, placed once


# --- files that must be refused ---------------------------------------------------------------------------

def G(module, name):
    "A stand-in that a crafted pickle names as global `module.name` (whatever that is, nothing is imported)."
    return type(name, (), {'_global': (module, name)})

class Call:
    "In a crafted pickle: call `func(*args)` while loading, then BUILD with `state` if given."
    def __init__(self, func, *args, state=None): self.func, self.args, self.state = func, args, state

class Pid:
    def __init__(self, *pid): self.pid = pid

class Crafter(pickle._Pickler):
    "Python's pickler, able to name any global and to write any call: the tool of an attacker."
    def persistent_id(self, obj): return obj.pid if type(obj) is Pid else None
    def reducer_override(self, obj):
        if type(obj) is not Call: return NotImplemented
        return (obj.func, obj.args) if obj.state is None else (obj.func, obj.args, obj.state)
    def save_global(self, obj, name=None):
        g = obj.__dict__.get('_global') if isinstance(obj, type) else None
        if g is None: return super().save_global(obj, name)
        if self.proto >= 4: self.save(g[0]); self.save(g[1]); self.write(pickle.STACK_GLOBAL)
        else: self.write(pickle.GLOBAL + f'{g[0]}\n{g[1]}\n'.encode())
        self.memoize(obj)

def torch_zip(obj, storages=None, protocol=2, raw_pickle=None):
    pkl = io.BytesIO()
    if raw_pickle is None: Crafter(pkl, protocol).dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w') as z:
        z.writestr('archive/data.pkl', pkl.getvalue() if raw_pickle is None else raw_pickle)
        z.writestr('archive/byteorder', 'little')
        for k, v in (storages or {}).items(): z.writestr(f'archive/data/{k}', v)
        z.writestr('archive/version', '3\n')
    out.seek(0)
    return out

REBUILD = G('torch._utils', '_rebuild_tensor_v2')
FLOATS = G('torch', 'FloatStorage')
DATA = {'0': np.arange(6, dtype=np.float32).tobytes()}

def tensor_call(storage=None, offset=0, size=(2, 3), stride=(3, 1)):
    storage = Pid('storage', FLOATS, '0', 'cpu', 6) if storage is None else storage
    return Call(REBUILD, storage, offset, size, stride, False, OrderedDict())


def test_crafted_good_file_loads_in_both():
    "The crafting tools write what torch.save writes: a sound file loads in torch and in litnn alike."
    obj = {'w': tensor_call(), 'p': Call(G('torch._utils', '_rebuild_parameter'), tensor_call(offset=3, size=(3,), stride=(1,)),
                                         True, OrderedDict())}
    f = torch_zip(obj, DATA)
    theirs = torch.load(f, weights_only=True); f.seek(0)
    assert describe(litnn.load(f), litnn) == describe(theirs, torch)
    assert describe(litnn.load(torch_zip(obj, DATA, protocol=4)), litnn) == describe(theirs, torch)


def test_one_storage_under_two_dtypes_shares_memory():
    "torch.save refuses to write this, but the format allows it: two typed views of one storage's bytes."
    ints = Pid('storage', G('torch', 'IntStorage'), '0', 'cpu', 6)
    back = litnn.load(torch_zip([tensor_call(), tensor_call(storage=ints, size=(6,), stride=(1,))], DATA))
    assert back[1].dtype == litnn.int32 and back[1].tolist() == np.arange(6, dtype=np.float32).view(np.int32).tolist()
    assert np.shares_memory(back[0]._data, back[1]._data)


def test_code_execution_refused_and_not_run(tmp_path):
    marker = tmp_path / 'ran'
    class Evil:
        def __reduce__(self): return (os.system, (f'touch {marker}',))
    class EvalEvil:
        def __reduce__(self): return (eval, (f"open({str(marker)!r}, 'w')",))
    cases = [(torch_zip(None, raw_pickle=pickle.dumps({'w': Evil()}, protocol=2)), 'posix.system'),
             (torch_zip(None, raw_pickle=pickle.dumps({'w': EvalEvil()}, protocol=2)), 'builtins.eval'),
             (torch_zip(None, raw_pickle=pickle.dumps([EvalEvil()], protocol=4)), 'builtins.eval'),       # STACK_GLOBAL
             (torch_zip({'w': tensor_call(), 'x': Call(G('builtins', 'exec'), f"open({str(marker)!r}, 'w')")}, DATA), 'builtins.exec'),
             (torch_zip({'x': Call(G('subprocess', 'Popen'), ['touch', str(marker)])}), 'subprocess.Popen'),
             (torch_zip({'x': Call(G('builtins', 'getattr'), 'os', 'system')}), 'builtins.getattr'),
             (torch_zip({'x': Call(G('torch', 'load'), 'other.pt')}), 'torch.load'),
             (torch_zip({'x': Call(G('torch.serialization', 'add_safe_globals'), [])}), 'torch.serialization.add_safe_globals')]
    for f, name in cases:
        with pytest.raises(pickle.UnpicklingError, match=f"asks for the global '{name}'.*nothing was run"): litnn.load(f)
        f.seek(0)
        with pytest.raises(pickle.UnpicklingError, match=f"asks for the global '{name}'.*nothing was run"): litnn.load(f, weights_only=False)
    assert not marker.exists()
    crafted = torch_zip({'x': Call(G('numpy.core.multiarray', '_reconstruct'), 1)})     # numpy's rebuild, called wrongly
    with pytest.raises(pickle.UnpicklingError, match=r"weights_only=True: it holds numpy objects \(numpy.core.multiarray._reconstruct\)"):
        litnn.load(crafted)
    crafted.seek(0)
    with pytest.raises(pickle.UnpicklingError, match='malformed'): litnn.load(crafted, weights_only=False)
    with pytest.raises(pickle.UnpicklingError, match='numpy'): litnn.load(saved({'loss': np.float64(1.5)}))


GADGETS = {
    'call a storage type': ({'x': Call(FLOATS)}, {}, 'is not a function'),
    'call a dtype': ({'x': Call(G('torch', 'float32'))}, {}, 'is not a function'),
    'BUILD on a set': ({'x': Call(G('builtins', 'set'), [1], state={'a': 1})}, {}, 'BUILD may only set plain attributes of an OrderedDict, not of a set'),
    'BUILD a dunder': ({'x': Call(G('collections', 'OrderedDict'), state={'__class__': 1})}, {}, 'BUILD may only set plain attributes'),
    'BUILD on a tensor': ({'x': Call(REBUILD, Pid('storage', FLOATS, '0', 'cpu', 6), 0, (6,), (1,), False, OrderedDict(), state={'_data': 1})},
                          DATA, 'not of a Tensor'),
    'storage is not a storage': ({'x': tensor_call(storage='/etc/passwd')}, DATA, "a tensor's storage is a str"),
    'view past the end': ({'x': tensor_call(size=(4, 3))}, DATA, 'does not fit its storage: shape [4, 3], offset 0 and stride [3, 1] reach past'),
    'offset past the end': ({'x': tensor_call(offset=6, size=(1,), stride=(1,))}, DATA, 'reach past the end'),
    'negative stride': ({'x': tensor_call(stride=(-3, 1))}, DATA, 'does not fit its storage'),
    'size not a tuple': ({'x': tensor_call(size=5)}, DATA, 'does not fit its storage'),
    'other persistent id': ({'x': Pid('module', 'os')}, {}, 'unexpected persistent id'),
    'storage type not allowed': ({'x': tensor_call(storage=Pid('storage', G('torch', 'ComplexHalfStorage'), '0', 'cpu', 3))}, DATA,
                                 'tensors of a type litnn does not have (torch.ComplexHalfStorage)'),
    'parameter of a string': ({'x': Call(G('torch._utils', '_rebuild_parameter'), 'w', True, OrderedDict())}, {}, "a Parameter's data is a str"),
    'codecs for other things': ({'x': Call(G('_codecs', 'encode'), 'abc', 'rot13')}, {}, '_codecs.encode used for something other than bytes'),
    'REDUCE with a list of args': (None, {}, 'the arguments of'),
}


@pytest.mark.parametrize('case', list(GADGETS))
def test_allowed_names_cannot_be_misused(case):
    obj, storages, reason = GADGETS[case]
    if obj is None:   # REDUCE whose argument is a list, written by hand: GLOBAL set, EMPTY_LIST, REDUCE
        f = torch_zip(None, raw_pickle=b'\x80\x02c__builtin__\nset\n]R.')
    else: f = torch_zip(obj, storages)
    with pytest.raises(pickle.UnpicklingError, match='litnn.load: cannot load') as e: litnn.load(f)
    assert reason in str(e.value)


MALFORMED = {
    'garbage': b'\x80\x02\xff\xfe',
    'no STOP': b'\x80\x02}q\x00',
    'stack underflow': b'\x80\x02t.',
    'memo miss': b'\x80\x02h\x05.',
    'unhashable key': b'\x80\x02}(]K\x01u.',
    'SETITEMS on a list': b'\x80\x02](K\x01K\x02u.',
    'APPEND on a dict': b'\x80\x02}K\x01a.',
}

@pytest.mark.parametrize('case', list(MALFORMED))
def test_malformed_pickles_refused(case):
    with pytest.raises(pickle.UnpicklingError, match='litnn.load: cannot load'): litnn.load(torch_zip(None, raw_pickle=MALFORMED[case]))


def test_instructions_torch_never_writes_are_refused():
    f = torch_zip(None, raw_pickle=pickle.dumps({'a': 1}, protocol=0))   # text instructions
    with pytest.raises(pickle.UnpicklingError, match='unsupported pickle instruction'): litnn.load(f)


def test_dtypes_litnn_lacks_are_named():
    with pytest.raises(pickle.UnpicklingError, match='tensors of a type litnn does not have'): litnn.load(saved(torch.zeros(2, dtype=torch.float8_e8m0fnu)))

def test_wide_unsigned_tensors_load():
    for dt in (torch.uint16, torch.uint32, torch.uint64):
        t = litnn.load(saved(torch.tensor([1, 7, 2**15], dtype=dt)))
        assert str(t.dtype) == str(dt).replace('torch', 'litnn') and t.tolist() == [1, 7, 2**15]


CORRUPT = {
    'truncated': (lambda f: io.BytesIO(f.getvalue()[:len(f.getvalue()) // 2]), 'not a valid zip file'),
    'storage missing': (lambda f: rewrite(f, {'data/0': None}), "storage '0' is missing"),
    'storage too short': (lambda f: rewrite(f, {'data/0': lambda b: b[:-4]}), "storage '0' holds 20 bytes, not the 6 x 4 bytes"),
    'storage too long': (lambda f: rewrite(f, {'data/0': lambda b: b + bytes(4)}), "storage '0' holds 28 bytes"),
    'bit flip (CRC)': (lambda f: io.BytesIO(f.getvalue().replace(np.arange(6, dtype=np.float32)[1:].tobytes(),
                                                                 np.arange(6, dtype=np.float32)[:-1].tobytes())), "record 'archive/data/0' cannot be read (Bad CRC-32"),
    'no data.pkl': (lambda f: rewrite(f, {'data.pkl': None}), 'not a PyTorch checkpoint'),
}

@pytest.mark.parametrize('case', list(CORRUPT))
def test_corrupt_torch_files_refused(case, tmp_path):
    make, reason = CORRUPT[case]
    path = tmp_path / 'bad.pt'
    path.write_bytes(make(saved({'w': torch.arange(6.)})).getvalue())
    with pytest.raises(RuntimeError, match='litnn.load: cannot load') as e: litnn.load(path)
    assert reason in str(e.value) and str(path) in str(e.value)


def test_torchscript_archive_refused(tmp_path):
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), tmp_path / 'scripted.pt')
    with pytest.raises(RuntimeError, match=r'TorchScript archive \(torch.jit.save\)'): litnn.load(tmp_path / 'scripted.pt')


def test_bad_file_leaves_the_model_unchanged():
    model = litnn.nn.Linear(3, 2)
    before = {k: v.tolist() for k, v in model.state_dict().items()}
    evil = torch_zip({'weight': tensor_call(), 'bias': Call(G('os', 'system'), 'true')}, DATA)
    with pytest.raises(pickle.UnpicklingError): model.load_state_dict(litnn.load(evil))
    short = rewrite(saved(torch.nn.Linear(3, 2).state_dict()), {'data/1': lambda b: b[:4]})
    with pytest.raises(RuntimeError, match='holds 4 bytes'): model.load_state_dict(litnn.load(short))
    assert {k: v.tolist() for k, v in model.state_dict().items()} == before


def test_no_torch_import(monkeypatch):
    "The reader never imports torch: it works with torch made unimportable."
    import sys
    f = saved(torch.nn.Linear(2, 2).state_dict())
    monkeypatch.setitem(sys.modules, 'torch', None)                 # `import torch` would now raise ImportError
    assert list(litnn.load(f)) == ['weight', 'bias']
    assert not any(isinstance(v, type(sys)) and v.__name__.startswith('torch') for v in vars(T).values())


# --- GPU ------------------------------------------------------------------------------------------

@pytest.mark.skipif(not litnn.cuda.is_available(), reason='no GPU (CuPy) here')
def test_torch_file_onto_gpu():
    base = torch.arange(12.).reshape(3, 4)
    back = litnn.load(saved([base, base.t()]), map_location='cuda')
    assert back[0].device.type == 'cuda' and back[1].tolist() == base.t().tolist()
    back[0][0, 1] = 100.
    assert back[1][1, 0].item() == 100.


# --- issue 12: zip errors, declared sizes, memory ------------------------------------------------------

def patch_sizes(raw, name, size):
    "Zip bytes `raw` with the uncompressed size of entry `name` changed to `size`, in both its headers (a lie)."
    out, enc = bytearray(raw), name.encode()
    for sig, at in [(b'PK\x03\x04', 22), (b'PK\x01\x02', 24)]:
        i = 0
        while (i := out.find(sig, i)) >= 0:
            n = 30 if sig == b'PK\x03\x04' else 46
            if out[i + n: i + n + len(enc)] == enc: out[i + at: i + at + 4] = size.to_bytes(4, 'little')
            i += 4
    return bytes(out)


def set_flag(raw, name, bit):
    "Zip bytes with general-purpose flag `bit` set for entry `name` (0x1: encrypted)."
    out, enc = bytearray(raw), name.encode()
    for sig, at, n in [(b'PK\x03\x04', 6, 30), (b'PK\x01\x02', 8, 46)]:
        i = 0
        while (i := out.find(sig, i)) >= 0:
            if out[i + n: i + n + len(enc)] == enc: out[i + at] |= bit
            i += 4
    return bytes(out)


def recompressed(f, method):
    "A copy of zip `f` with every entry compressed with `method`."
    f.seek(0)
    z, out = zipfile.ZipFile(f), io.BytesIO()
    with zipfile.ZipFile(out, 'w', compression=method) as w:
        for n in z.namelist(): w.writestr(n, z.read(n))
    out.seek(0)
    return out


def load_error(raw):
    class Named(io.BytesIO): name = 'bad.pt'
    with pytest.raises(Exception) as e: litnn.load(Named(raw if isinstance(raw, bytes) else raw.getvalue()))
    return e.value


ZIP_ERRORS = {
    'declared size larger than a stored record': (lambda: patch_sizes(torch_zip({'w': Call(REBUILD, Pid('storage', FLOATS, '0', 'cpu', 2**28),
                                                                                  0, (2**28,), (1,), False, OrderedDict())}, DATA).getvalue(),
                                                                      'archive/data/0', 2**30),
                                                   "record 'archive/data/0' declares 1073741824 bytes but holds 24"),
    'deflate bomb beyond deflate\'s ratio': (lambda: patch_sizes(recompressed(saved(torch.arange(6.)), zipfile.ZIP_DEFLATED).getvalue(),
                                                                 'archive/data/0', 2**31), "declares 2147483648 bytes but holds"),
    'unknown compression method': (lambda: recompressed(saved(torch.arange(6.)), zipfile.ZIP_BZIP2), 'uses compression method 12'),
    'encrypted entry': (lambda: set_flag(saved(torch.arange(6.)).getvalue(), 'archive/data/0', 0x1), "record 'archive/data/0' is encrypted"),
    'damaged deflate stream': (lambda: _damaged_deflate(), "record 'archive/data/0' cannot be read"),
    'bad CRC in data.pkl': (lambda: _flip_stored(saved({'weight': torch.ones(2)}), 'archive/data.pkl', b'weight', b'weighu'),
                            "record 'archive/data.pkl' cannot be read (Bad CRC-32"),
    'not a zip at all after PK': (lambda: b'PK\x03\x04' + bytes(100), 'it is not a valid zip file'),
}


def _damaged_deflate():
    "A deflated torch file whose storage's compressed bytes are garbled (a zlib error while reading)."
    raw = bytearray(recompressed(saved(torch.arange(600.)), zipfile.ZIP_DEFLATED).getvalue())
    z = zipfile.ZipFile(io.BytesIO(bytes(raw)))
    info = z.getinfo('archive/data/0')
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 2, start + min(40, info.compress_size)): raw[i] ^= 0xA5
    return bytes(raw)


def _flip_stored(f, name, old, new):
    raw = f.getvalue()
    assert raw.count(old) == 1
    return raw.replace(old, new)


@pytest.mark.parametrize('case', list(ZIP_ERRORS))
def test_zip_errors_are_litnns_load_error_naming_file_and_record(case):
    make, reason = ZIP_ERRORS[case]
    e = load_error(make())
    assert isinstance(e, litnn.serialization.CheckpointError), repr(e)
    assert 'bad.pt' in str(e) and reason in str(e), str(e)


def test_absurd_shapes_and_memory_errors_are_litnns_load_error(monkeypatch):
    for size, stride in [((2**70,), (1,)), ((2**40, 2**40), (2**40, 1)), ((-1,), (1,))]:
        e = load_error(torch_zip({'w': tensor_call(size=size, stride=stride)}, DATA))
        assert isinstance(e, (litnn.serialization.CheckpointError, pickle.UnpicklingError)) and 'bad.pt' in str(e), repr(e)
    big = Call(REBUILD, Pid('storage', FLOATS, '0', 'cpu', 2**62), 0, (2**62,), (1,), False, OrderedDict())
    e = load_error(torch_zip({'w': big}, DATA))
    assert isinstance(e, litnn.serialization.CheckpointError) and "storage '0' holds 24 bytes" in str(e)
    empty = np.empty
    def no_memory(n, *a, **k):   # the storage's 2400 bytes are too many; the small records read before it are not
        if n > 1000: raise MemoryError()
        return empty(n, *a, **k)
    monkeypatch.setattr(T.np, 'empty', no_memory)
    e = load_error(saved(torch.arange(600.)))
    monkeypatch.undo()
    assert isinstance(e, litnn.serialization.CheckpointError) and 'more memory than there is' in str(e) and "'archive/data/0'" in str(e)


def test_byteorder_other_than_little_or_big_is_litnns_load_error():
    "torch raises a ValueError naming neither torch.load nor the file; litnn refuses it as every other damaged record."
    f = rewrite(saved(torch.arange(3.)), {'byteorder': b'middle'})
    with pytest.raises(ValueError, match='Unknown endianness type: middle'): torch.load(f, weights_only=True)
    for order, said in [(b'middle', "'middle'"), (b'\xff\xfe', "'\ufffd\ufffd'"), (b'x' * 100, '100 bytes long')]:
        e = load_error(rewrite(saved(torch.arange(3.)), {'byteorder': order}))
        assert isinstance(e, litnn.serialization.CheckpointError), repr(e)
        assert str(e).startswith("litnn.load: cannot load 'bad.pt': its byte order is unknown: record 'archive/byteorder' is " + said), str(e)


@pytest.mark.parametrize('method', [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_peak_memory_is_the_tensor_plus_a_small_buffer(method):
    "A 32 MB tensor, stored and deflated: loading it takes its size plus at most a few MB (torch's bound), not twice."
    import tracemalloc
    f = recompressed(saved({'w': torch.zeros(8 * 2**20)}), method)
    nbytes = 32 * 2**20
    tracemalloc.start()
    try:
        back = litnn.load(f)
        _, peak = tracemalloc.get_traced_memory()
    finally: tracemalloc.stop()
    assert back['w'].shape == (8 * 2**20,)
    assert peak < nbytes + 2**20, (peak - nbytes) / 2**20


def _tagged(L):
    "A tensor and a Parameter carrying Python attributes (one a tensor itself), with a plain tensor beside them."
    t = L.ones(2); t.foo, t.n = 'bar', {'k': L.zeros(1)}
    p = L.nn.Parameter(L.arange(3.)); p.tag, p._is_initialized = 'w', True
    return {'t': t, 'p': p, 'plain': L.ones(1)}

def _seen(d):
    "What a loaded `_tagged` shows: classes, values and every attribute."
    attrs = lambda x: {k: (v['k'].tolist() if isinstance(v, dict) else v) for k, v in vars(x).items() if not k.startswith('_grad')}
    return {k: (type(v).__name__, v.tolist(), attrs(v)) for k, v in d.items()}

def test_tensor_attributes_survive_torch_files_both_ways():
    """torch.save keeps the Python attributes set on a tensor or a Parameter (`_rebuild_from_type_v2`,
    `_rebuild_parameter_with_state`), and torch.load(weights_only=True) restores them: so do litnn's reader and writer."""
    torch = pytest.importorskip('torch')
    b = io.BytesIO(); torch.save(_tagged(torch), b)
    want = _seen(torch.load(io.BytesIO(b.getvalue())))
    assert want['t'][2] == {'foo': 'bar', 'n': [0.0]} and want['p'][2]['tag'] == 'w'
    assert _seen(litnn.load(io.BytesIO(b.getvalue()))) == want                      # torch's file, read by litnn
    b = io.BytesIO(); litnn.save(_tagged(litnn), b, format='torch')
    assert _seen(torch.load(io.BytesIO(b.getvalue()))) == want                      # litnn's torch-format file, read by torch
    b = io.BytesIO(); litnn.save(_tagged(litnn), b)
    assert _seen(litnn.load(io.BytesIO(b.getvalue()))) == want                      # litnn's own format

def test_tensor_attributes_that_would_replace_a_tensors_own_are_refused():
    "A file giving a tensor an attribute it already has (`grad`, `_data`, `requires_grad`) is refused, nothing replaced."
    for name in ('grad', 'requires_grad', '_data', '__class__'):
        state = {name: 1}
        with pytest.raises(pickle.UnpicklingError, match='would replace'): T._set_state(litnn.ones(1), state)


def _metas(L):
    "Meta tensors (one requiring grad, one a Parameter of a meta-device Linear) beside a real one."
    return {'m': L.ones(2, 3, device='meta'), 'g': L.zeros(2, device='meta', requires_grad=True),
            'w': L.nn.Linear(3, 2, device='meta').weight, 'c': L.ones(2)}

def _described(d): return {k: (type(v).__name__, str(v.device), tuple(v.shape), str(v.dtype)[6:], v.requires_grad) for k, v in d.items()}

def test_meta_tensors_save_without_memory_and_load_on_the_meta_device():
    """torch.save writes a meta tensor as `_rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad)` and
    torch.load gives it back on the meta device (map_location or not): so do litnn's reader, writer and own format."""
    torch = pytest.importorskip('torch')
    b = io.BytesIO(); torch.save(_metas(torch), b)
    want = _described(torch.load(io.BytesIO(b.getvalue()), map_location='cpu'))
    assert want['m'][1] == 'meta' and want['w'][0] == 'Parameter'
    assert _described(litnn.load(io.BytesIO(b.getvalue()), map_location='cpu')) == want
    b = io.BytesIO(); litnn.save(_metas(litnn), b, format='torch')
    assert _described(torch.load(io.BytesIO(b.getvalue()), map_location='cpu')) == want
    b = io.BytesIO(); litnn.save(_metas(litnn), b)
    assert _described(litnn.load(io.BytesIO(b.getvalue()), map_location='cpu')) == want


NUMPY_OBJECTS = {       # what checkpoints hold beside tensors: metrics, random states, arrays of every plain dtype and layout
    'best': np.float64(0.9375), 'epoch': np.int64(7), 'flag': np.bool_(True), 'h': np.float16(1.5), 'c': np.complex64(1 - 2j),
    'grid': np.arange(12.).reshape(3, 4), 'fortran': np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
    'big_endian': np.arange(4, dtype='>f4'), 'zero_d': np.array(3.5), 'empty': np.zeros((0, 3), np.int8),
    'names': np.array(['ab', 'c']), 'bytes': np.array([b'x', b'yz']), 'mask': np.array([True, False]),
    'rng': np.random.default_rng(0).bit_generator.state['state']['state'], 'state': np.random.RandomState(0).get_state()[1][:5],
    'nested': [np.float32(1), {'w': torch.ones(2)}],
}

def _same(a, b):
    "Equal values, types, dtypes (byte order included) and memory order."
    if isinstance(a, dict): return type(a) is type(b) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)): return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return (type(b) is np.ndarray and a.dtype == b.dtype and a.dtype.byteorder == b.dtype.byteorder and a.shape == b.shape
                and a.flags.f_contiguous == b.flags.f_contiguous and np.array_equal(a, b))
    if isinstance(a, np.generic): return type(a) is type(b) and a.tobytes() == b.tobytes()
    if isinstance(a, torch.Tensor): return isinstance(b, litnn.Tensor) and np.array_equal(a.numpy(), b.numpy())
    return type(a) is type(b) and a == b


@pytest.mark.parametrize('numpy_names', ['numpy._core', 'numpy.core'])    # (numpy 1 wrote numpy.core: files of both kinds exist)
def test_numpy_arrays_and_numbers_load_as_with_torch_weights_only_false(numpy_names):
    data = saved(NUMPY_OBJECTS).getvalue()
    if numpy_names == 'numpy.core':
        z, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
        with zipfile.ZipFile(out, 'w') as w:
            for n in z.namelist():
                r = z.read(n)
                w.writestr(n, r.replace(b'numpy._core.multiarray', b'numpy.core.multiarray') if n.endswith('data.pkl') else r)
        data = out.getvalue()
        assert b'numpy.core.multiarray' in data
    expected = torch.load(io.BytesIO(data), weights_only=False)
    got = litnn.load(io.BytesIO(data), weights_only=False)
    assert _same(expected, got)
    got['grid'][0, 0] = 99.          # a writable array of its own, as pickle's
    assert _same(np.float64(0.9375), litnn.load(io.BytesIO(data), weights_only=False)['best'])
    assert np.dtype('>f4').isnative is False and np.dtype('f8').byteorder == '='     # numpy's shared dtypes untouched


def test_numpy_objects_need_weights_only_false_or_an_allow_list_as_with_torch():
    data = saved({'a': np.arange(3.), 'n': np.float64(1)}).getvalue()
    with pytest.raises(pickle.UnpicklingError): torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError, match=r'weights_only=True: it holds numpy objects .*add_safe_globals'):
        litnn.load(io.BytesIO(data))
    from numpy._core import multiarray as ma
    names = [ma._reconstruct, np.ndarray, np.dtype, type(np.dtype('float64')), ma.scalar]
    with torch.serialization.safe_globals(names): expected = torch.load(io.BytesIO(data))
    with litnn.serialization.safe_globals(names): got = litnn.load(io.BytesIO(data))
    assert _same(expected, got)
    assert litnn.serialization.get_safe_globals() == []


@pytest.mark.parametrize('obj', [np.array([1, 'a'], dtype=object), np.zeros(2, dtype=[('x', 'f4'), ('y', 'i4')]),
                                 np.array(['2020-01-01'], dtype='datetime64[D]')])
def test_numpy_arrays_litnn_cannot_rebuild_without_pickle_are_refused_and_nothing_runs(obj):
    "Arrays of Python objects (pickled inside), structured and datetime arrays: torch unpickles them; litnn refuses, naming the dtype."
    data = saved({'a': obj}).getvalue()
    torch.load(io.BytesIO(data), weights_only=False)
    with pytest.raises(pickle.UnpicklingError, match='dtype'): litnn.load(io.BytesIO(data), weights_only=False)


def test_a_crafted_numpy_state_is_refused():
    "BUILD with bytes that do not fill the shape, or a dtype state with fields, is a clear refusal (no array of garbage)."
    good = pickle.dumps(np.arange(4.), protocol=2)
    short = good.replace(b'\x00\x00\x00\x00\x00\x00\x08@', b'')         # the last element's bytes gone
    def load(p): return T.Unpickler(p, lambda pid: None, 'crafted', trusted=True).load()
    np.testing.assert_array_equal(load(good), np.arange(4.))
    with pytest.raises((pickle.UnpicklingError, ValueError)): load(short)
    dtype_fields = pickle.dumps(np.dtype([('x', 'f4')]), protocol=2)
    with pytest.raises(pickle.UnpicklingError): load(dtype_fields)


def test_save_format_torch_writes_through_write_alone_as_torch():
    # test_serialization.py's FilelikeMock: torch.save calls only write and flush (a file object need not seek, tell or
    # say it is seekable, and its write may return None); litnn.save(format="torch") too, and both libraries read the result
    class Sink:
        def __init__(self): self.b, self.calls = io.BytesIO(), set()
        def write(self, d): self.calls.add('write'); self.b.write(d)   # returns None
        def flush(self): self.calls.add('flush')
    files = []
    for lib, kw in ((torch, {}), (litnn, {'format': 'torch'})):
        w = Sink()
        x = lib.arange(12.).reshape(3, 4)
        lib.save({'x': x, 'col': x[:, 1], 'n': 3}, w, **kw)
        assert w.calls <= {'write', 'flush'} and 'write' in w.calls
        files.append(w.b.getvalue())
    for data in files:
        for lib in (torch, litnn):
            back = lib.load(io.BytesIO(data), weights_only=True)
            assert (back['x'].tolist(), back['col'].tolist(), back['col'].stride(), back['n']) == (
                np.arange(12.).reshape(3, 4).tolist(), [1., 5., 9.], (4,), 3)


def test_load_reads_a_torch_file_through_read_seek_and_tell_alone_as_torch():
    # test_serialization.py's FilelikeMock (no `seekable`, no `readinto`): torch.load reads a torch.save file through
    # read, seek and tell; litnn.load too
    class Source:
        def __init__(self, data): self.b = io.BytesIO(data)
        def read(self, *a): return self.b.read(*a)
        def readline(self, *a): return self.b.readline(*a)
        def seek(self, *a): return self.b.seek(*a)
        def tell(self): return self.b.tell()
    data = saved({'a': torch.arange(6.).reshape(2, 3)}).getvalue()
    for lib in (torch, litnn):
        assert lib.load(Source(data), weights_only=True)['a'].tolist() == [[0., 1., 2.], [3., 4., 5.]]

"""litnn.save / litnn.load: round trips of every dtype and structure (compared with torch.save/torch.load where
both can hold the value), training checkpoints with real torch optimizer state, atomic saves, and files that
must be refused without running anything."""
import io, json, math, os, pickle, zipfile
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
import litnn.serialization as S
from nn_pairs import stand_ins

torch = pytest.importorskip('torch')

DTYPES = ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool']


def arr(t):
    t = t.detach().cpu()
    return np.array((t.float() if 'bfloat16' in str(t.dtype) else t).numpy())


def describe(x, lib):
    "A library-neutral description of a loaded object: types, keys, dtypes, shapes, values, flags."
    if isinstance(x, lib.Tensor):
        return ('tensor', type(x).__name__, str(x.dtype).split('.')[-1], tuple(x.shape), arr(x).tolist(), x.requires_grad, x.is_leaf)
    if isinstance(x, lib.dtype): return ('dtype', str(x).split('.')[-1])
    if isinstance(x, lib.device): return ('device', str(x))
    if isinstance(x, float): return ('float', repr(x))
    if isinstance(x, dict):
        return (type(x).__name__, [(describe(k, lib), describe(v, lib)) for k, v in x.items()],
                describe(getattr(x, '_metadata', None), lib))
    if isinstance(x, (list, tuple)): return (type(x).__name__, [describe(v, lib) for v in x])
    return (type(x).__name__, x)


def roundtrip(obj, lib=litnn):
    b = io.BytesIO()
    lib.save(obj, b)
    b.seek(0)
    return lib.load(b, weights_only=True) if lib is torch else lib.load(b)


def same_roundtrip(make):
    "Save and load `make(lib)` with each library; the loaded objects must describe the same."
    a, b = describe(roundtrip(make(litnn)), litnn), describe(roundtrip(make(torch), torch), torch)
    assert a == b, f'litnn: {a!r}\ntorch: {b!r}'
    return a


def values(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == 'bool': return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith(('int', 'uint')):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)
    x = rng.standard_normal(shape) * 100
    if x.size: x.reshape(-1)[:3] = [np.inf, -np.inf, -0.0][:x.size]
    return x


def tensor(lib, dtype, a): return lib.tensor(a.astype(np.float32) if dtype == 'bfloat16' else a, dtype=getattr(lib, dtype))


# --- values ---------------------------------------------------------------------------------------

@pytest.mark.parametrize('shape', [(), (0,), (5,), (2, 3), (2, 0, 3), (3, 4, 5)])
@pytest.mark.parametrize('dtype', DTYPES)
def test_every_dtype_and_shape_like_torch(dtype, shape):
    same_roundtrip(lambda lib: tensor(lib, dtype, values(dtype, shape)))


@pytest.mark.parametrize('dtype', DTYPES)
def test_bytes_exact(dtype):
    t = tensor(litnn, dtype, values(dtype, (4, 3), seed=1))
    u = roundtrip(t)
    assert u.dtype == t.dtype and u._data.tobytes() == t._data.tobytes() and u._data.flags.writeable


def test_nan_payload_and_signed_zero_survive():
    t = litnn.tensor([np.nan, -0.0, 0.0, np.inf], dtype=litnn.float64)
    u = roundtrip(t)
    assert u._data.tobytes() == t._data.tobytes()


def test_non_contiguous_tensors():
    def make(lib):
        base = lib.tensor(np.arange(24.).reshape(4, 6))
        return [base.t(), base[::2, 1::3], base[:, 2]]
    out = same_roundtrip(make)
    assert out[1][0][3] == (6, 4)


@pytest.mark.parametrize('value', [None, True, False, 0, -1, 2**100, -2**70, 1.5, -0.0, 1e-320, 1e308, float('inf'),
                                   float('-inf'), '', 'text', 'ünïcödé 🚀', 'a\x00b\n"quoted"\\', [], (), {},
                                   [1, [2, [3, []]]], (1, (2.5, 'x'), None), {'a': {'b': {'c': [1, (2,)]}}}])
def test_python_values_like_torch(value):
    same_roundtrip(lambda lib: {'v': value})


def test_nan_float():
    assert math.isnan(roundtrip({'loss': float('nan')})['loss'])


def test_dict_keys_of_every_kind_and_order_like_torch():
    def make(lib):
        return {3: 'int', 'b': 'str', 1.5: 'float', True: 'bool', None: 'none', (1, 'x'): 'tuple', -7: 'neg',
                2**80: 'big', 'a': {0: 1, 10: 2, 2: 3}}
    out = same_roundtrip(make)
    assert [k for k, _ in out[1]][:3] == [('int', 3), ('str', 'b'), ('float', '1.5')]


def test_ordered_dict_and_metadata_like_torch():
    def make(lib):
        sd = stand_ins(lib).Deep().state_dict()
        return {'plain': OrderedDict([('z', 1), ('a', 2)]), 'sd': sd}
    out = same_roundtrip(make)
    assert out[1][1][1][0] == 'OrderedDict' and out[1][1][1][2] != ('NoneType', None)


def test_dtype_and_device_values_like_torch():
    same_roundtrip(lambda lib: [lib.float32, lib.bfloat16, lib.int64, lib.bool, lib.device('cpu'), lib.device('cuda', 1)])


def test_parameters_and_requires_grad_like_torch():
    def make(lib):
        x = lib.ones(2, requires_grad=True)
        frozen = lib.nn.Parameter(lib.zeros(3), requires_grad=False)
        return [lib.nn.Parameter(lib.ones(2)), frozen, x, (x * 2).sum(), lib.zeros(1)]
    out = same_roundtrip(make)
    assert [o[1] for o in out[1]] == ['Parameter', 'Parameter', 'Tensor', 'Tensor', 'Tensor']
    assert [o[5] for o in out[1]] == [True, False, True, True, False]


def test_identity_and_sharing_like_torch():
    def run(lib):
        p = lib.nn.Parameter(lib.arange(4.))
        out = roundtrip([p, p, p.detach(), lib.zeros(2)], lib)
        with lib.no_grad(): out[0].add_(1.)
        return out[0] is out[1], arr(out[2]).tolist(), out[2] is out[0], arr(out[3]).tolist()
    a, b = run(litnn), run(torch)
    assert a == b == (True, [1., 2., 3., 4.], False, [0., 0.])


def test_tied_weights_state_dict_shares_memory_after_load_like_torch():
    def run(lib):
        m = stand_ins(lib).Deep()
        sd = roundtrip(m.state_dict(), lib)
        with lib.no_grad(): sd['net.fc1.weight'].add_(5.)
        return arr(sd['tied.weight']).tolist(), list(sd)
    a, b = run(litnn), run(torch)
    assert a == b and a[0][0][0] == 5.


def test_loaded_arrays_are_writable_and_own_memory():
    out = roundtrip({'a': litnn.ones(3), 'b': litnn.tensor(5)})
    out['a'].add_(1.)
    assert out['a'].tolist() == [2., 2., 2.] and out['b'].item() == 5


# --- state dicts and checkpoints --------------------------------------------------------------------

def test_state_dict_roundtrip_loads_into_model():
    src = stand_ins(litnn).Net()
    with litnn.no_grad():
        for i, t in enumerate(src.state_dict().values()): t.copy_(litnn.full(t.shape, i + 1))
    sd = roundtrip(src.state_dict())
    assert type(sd) is OrderedDict and list(sd) == list(src.state_dict()) and sd._metadata == src.state_dict()._metadata
    dst = stand_ins(litnn).Net()
    assert repr(dst.load_state_dict(sd)) == '<All keys matched successfully>'
    for a, b in zip(src.state_dict().values(), dst.state_dict().values()): assert a.tolist() == b.tolist() and a.dtype == b.dtype


def to_lib(x, lib):
    "A structure of torch tensors with its tensors rebuilt in `lib` (via numpy), everything else as is."
    if isinstance(x, torch.Tensor): return tensor(lib, str(x.dtype).split('.')[-1], arr(x)).requires_grad_(x.requires_grad)
    if isinstance(x, dict):
        out = type(x)((k, to_lib(v, lib)) for k, v in x.items())
        if hasattr(x, '_metadata'): out._metadata = x._metadata
        return out
    if isinstance(x, (list, tuple)): return type(x)(to_lib(v, lib) for v in x)
    return x


def from_litnn(x):
    if isinstance(x, litnn.Tensor): return torch.from_numpy(arr(x).astype(x._data.dtype) if x.dtype != litnn.bfloat16 else arr(x)).to(getattr(torch, x.dtype.name))
    if isinstance(x, dict): return type(x)((k, from_litnn(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)): return type(x)(from_litnn(v) for v in x)
    return x


def torch_training(opt_name):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1))
    opt = {'SGD': lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
           'Adam': lambda p: torch.optim.Adam(p, lr=1e-3)}[opt_name](model.parameters())
    for _ in range(2):
        opt.zero_grad()
        loss = model(torch.randn(5, 3)).pow(2).mean()
        loss.backward()
        opt.step()
    return model, opt, loss


@pytest.mark.parametrize('opt_name', ['SGD', 'Adam'])
def test_torch_training_checkpoint_through_litnn(opt_name, tmp_path):
    "PyTorch's checkpoint recipe with a real optimizer: through litnn's format and back into torch, nothing lost."
    model, opt, loss = torch_training(opt_name)
    ckpt = {'epoch': 2, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': loss}
    path = tmp_path / 'ckpt.pt'
    litnn.save(to_lib(ckpt, litnn), path)
    back = litnn.load(path)
    assert list(back['optimizer_state_dict']['state']) == list(opt.state_dict()['state'])
    assert all(type(k) is int for k in back['optimizer_state_dict']['state'])
    # the same structure torch.save/torch.load gives for the torch checkpoint
    assert describe(back, litnn) == describe(roundtrip(ckpt, torch), torch)
    model2, opt2, _ = torch_training(opt_name)
    model2.load_state_dict(from_litnn(back['model_state_dict']))
    opt2.load_state_dict(from_litnn(back['optimizer_state_dict']))
    assert describe(opt2.state_dict(), torch) == describe(opt.state_dict(), torch)
    assert describe(model2.state_dict(), torch) == describe(model.state_dict(), torch)


def test_checkpoint_recipe_in_litnn(tmp_path):
    S_ = stand_ins(litnn)
    net = S_.Net()
    state = {'state': {0: {'momentum_buffer': litnn.ones(3, 4)}, 1: {'momentum_buffer': litnn.zeros(3)}},
             'param_groups': [{'lr': 0.001, 'momentum': 0.9, 'nesterov': False, 'foreach': None, 'params': [0, 1, 2, 3]}]}
    path = tmp_path / 'model.pt'
    litnn.save({'epoch': 7, 'model_state_dict': net.state_dict(), 'optimizer_state_dict': state, 'loss': litnn.tensor(0.25)}, path)
    ck = litnn.load(path, weights_only=True)
    model = S_.Net()
    assert repr(model.load_state_dict(ck['model_state_dict'])) == '<All keys matched successfully>'
    assert ck['epoch'] == 7 and ck['loss'].item() == 0.25 and ck['optimizer_state_dict']['param_groups'] == state['param_groups']
    assert ck['optimizer_state_dict']['state'][1]['momentum_buffer'].tolist() == [0., 0., 0.]


# --- the file -------------------------------------------------------------------------------------

def test_file_layout(tmp_path):
    t = litnn.ones(2, 3)
    litnn.save({'a': t, 'b': t.detach(), 'c': litnn.tensor(1)}, tmp_path / 'x.pt')
    with zipfile.ZipFile(tmp_path / 'x.pt') as zf:
        assert zf.namelist() == ['structure.json', 'tensors/0.bin', 'tensors/1.bin']
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        h = json.loads(zf.read('structure.json'))
        assert (h['format'], h['version']) == ('litnn', 1)
        assert h['tensors'][0] == {'data': 'tensors/0.bin', 'dtype': 'float32', 'shape': [2, 3], 'device': 'cpu',
                                   'requires_grad': False, 'parameter': False}
        assert [r['data'] for r in h['tensors']] == ['tensors/0.bin', 'tensors/0.bin', 'tensors/1.bin']
        assert h['root'] == {'type': 'dict', 'items': [['a', {'type': 'tensor', 'index': 0}], ['b', {'type': 'tensor', 'index': 1}],
                                                       ['c', {'type': 'tensor', 'index': 2}]]}
        assert zf.read('tensors/1.bin') == np.int64(1).tobytes()


def test_paths_and_file_objects(tmp_path):
    obj = {'w': litnn.arange(3.)}
    litnn.save(obj, str(tmp_path / 's.pt'))
    litnn.save(obj, tmp_path / 'p.pt')
    with open(tmp_path / 'f.pt', 'wb') as f: litnn.save(obj, f)
    for name in ['s.pt', 'p.pt', 'f.pt']:
        assert litnn.load(tmp_path / name)['w'].tolist() == [0., 1., 2.]
        assert litnn.load(str(tmp_path / name))['w'].tolist() == [0., 1., 2.]
        with open(tmp_path / name, 'rb') as f: assert litnn.load(f)['w'].tolist() == [0., 1., 2.]
    with pytest.raises(FileNotFoundError): litnn.save(obj, tmp_path / 'missing' / 'x.pt')
    with pytest.raises(FileNotFoundError): litnn.load(tmp_path / 'nope.pt')


def test_save_overwrites_atomically(tmp_path, monkeypatch):
    path = tmp_path / 'ck.pt'
    litnn.save({'version': 1, 'w': litnn.ones(2)}, path)
    old = path.read_bytes()
    calls = []
    real = S.B.to_device
    def failing(a, dev):
        calls.append(1)
        if len(calls) == 2: raise OSError('disk full (simulated)')
        return real(a, dev)
    monkeypatch.setattr(S.B, 'to_device', failing)
    with pytest.raises(OSError, match='simulated'): litnn.save({'version': 2, 'a': litnn.ones(1000), 'b': litnn.zeros(1000)}, path)
    monkeypatch.undo()
    assert len(calls) == 2                                   # it failed in the middle of writing the arrays
    assert path.read_bytes() == old and litnn.load(path)['version'] == 1
    assert os.listdir(tmp_path) == ['ck.pt']                 # no temporary file left behind


def test_save_writes_temp_file_in_same_folder_then_replaces(tmp_path, monkeypatch):
    seen = []
    real = os.replace
    monkeypatch.setattr(os, 'replace', lambda a, b: (seen.append((os.path.dirname(a), os.path.basename(a), b)), real(a, b))[1])
    litnn.save([1], tmp_path / 'a.pt')
    (folder, tmp, dst), = seen
    assert folder == str(tmp_path) and tmp.startswith('.a.pt.') and tmp.endswith('.tmp') and str(dst) == str(tmp_path / 'a.pt')


def test_unsaveable_objects_rejected_before_writing(tmp_path):
    path = tmp_path / 'x.pt'
    path.write_bytes(b'old')
    class Thing: pass
    for obj, where in [({'model': stand_ins(litnn).Net()}, "obj['model']"), ([1, {2: Thing()}], 'obj[1][2]'),
                       ({'a': np.zeros(2)}, "obj['a']"), ({'s': {1, 2}}, "obj['s']"), ({'f': print}, "obj['f']"),
                       ({'n': np.int64(3)}, "obj['n']"), ({b'k': 1}, 'obj key')]:
        with pytest.raises(TypeError, match=r'litnn.save cannot store ' + where.replace('[', r'\[').replace(']', r'\]')):
            litnn.save(obj, path)
    assert path.read_bytes() == b'old' and os.listdir(tmp_path) == ['x.pt']
    with pytest.raises(TypeError, match='save its state_dict'): litnn.save(stand_ins(litnn).Net(), io.BytesIO())


# --- refused files ----------------------------------------------------------------------------------

def zip_with(structure=None, files=None, raw=None):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as zf:
        if raw is not None: zf.writestr('structure.json', raw)
        elif structure is not None: zf.writestr('structure.json', json.dumps(structure))
        for name, data in (files or {}).items(): zf.writestr(name, data)
    b.seek(0)
    return b


def good(**tensor_fields):
    rec = {'data': 'tensors/0.bin', 'dtype': 'float32', 'shape': [2], 'device': 'cpu', 'requires_grad': False, 'parameter': False}
    rec.update(tensor_fields)
    return {'format': 'litnn', 'version': 1, 'tensors': [rec], 'root': {'type': 'tensor', 'index': 0}}

DATA = {'tensors/0.bin': np.ones(2, np.float32).tobytes()}

BAD = {
    'pickle': (lambda: io.BytesIO(pickle.dumps({'a': 1})), 'not a zip file'),
    'empty file': (lambda: io.BytesIO(b''), 'not a zip file'),
    'no structure': (lambda: zip_with(files=DATA), 'no structure.json'),
    'torch pickle zip': (lambda: zip_with(files={'archive/data.pkl': b'\x80\x02}q\x00.'}), 'PyTorch (pickle) checkpoint'),
    'not json': (lambda: zip_with(raw='{"format": '), 'not valid JSON'),
    'NaN constant': (lambda: zip_with(raw='{"format": "litnn", "version": 1, "tensors": [], "root": NaN}'), 'not valid JSON'),
    'not an object': (lambda: zip_with(raw='[1, 2]'), 'not a litnn structure'),
    'other format': (lambda: zip_with({**good(), 'format': 'other'}, DATA), 'not a litnn structure'),
    'newer version': (lambda: zip_with({**good(), 'version': 2}, DATA), 'format version 2'),
    'no tensor list': (lambda: zip_with({**good(), 'tensors': {}}, DATA), 'no tensor list'),
    'bad dtype': (lambda: zip_with(good(dtype='object'), DATA), "has dtype 'object'"),
    'dtype not a string': (lambda: zip_with(good(dtype=['float32']), DATA), 'has dtype'),
    'negative shape': (lambda: zip_with(good(shape=[-2]), DATA), 'has shape'),
    'float shape': (lambda: zip_with(good(shape=[2.0]), DATA), 'has shape'),
    'bool shape': (lambda: zip_with(good(shape=[True, True]), DATA), 'has shape'),
    'missing data file': (lambda: zip_with(good(data='tensors/9.bin'), DATA), 'is not in the zip'),
    'path-like data name': (lambda: zip_with(good(data='../../etc/passwd'), DATA), 'is not in the zip'),
    'too few bytes': (lambda: zip_with(good(shape=[3]), DATA), 'should hold 12 bytes'),
    'too many bytes': (lambda: zip_with(good(shape=[1]), DATA), 'should hold 4 bytes'),
    'huge shape': (lambda: zip_with(good(shape=[10**9, 10**9]), DATA), 'should hold'),
    'index out of range': (lambda: zip_with({**good(), 'root': {'type': 'tensor', 'index': 5}}, DATA), 'bad tensor record'),
    'unknown record': (lambda: zip_with({**good(), 'root': {'type': 'pickle', 'data': 'x'}}, DATA), 'unknown record'),
    'object without type': (lambda: zip_with({**good(), 'root': {'a': 1}}, DATA), 'unknown record'),
    'bad float': (lambda: zip_with({**good(), 'root': {'type': 'float', 'value': '1e5'}}, DATA), 'bad float record'),
    'bad dict items': (lambda: zip_with({**good(), 'root': {'type': 'dict', 'items': [[1]]}}, DATA), 'bad dict record'),
    'unhashable key': (lambda: zip_with({**good(), 'root': {'type': 'dict', 'items': [[[1], 2]]}}, DATA), 'bad dict record'),
    'int requires grad': (lambda: zip_with(good(dtype='int32', requires_grad=True), DATA), 'tensor 0'),
    'shared file, other shape': (lambda: zip_with({**good(), 'tensors': [good()['tensors'][0], {**good()['tensors'][0], 'shape': [1, 2]}]}, DATA),
                                 'another dtype or shape'),
}

@pytest.mark.parametrize('case', list(BAD))
def test_bad_files_refused_with_a_reason(case):
    make, reason = BAD[case]
    with pytest.raises(RuntimeError, match='is not a valid litnn checkpoint') as e: litnn.load(make())
    assert reason in str(e.value)


def test_torch_file_refused(tmp_path):
    torch.save({'w': torch.ones(2)}, tmp_path / 't.pt')
    with pytest.raises(RuntimeError, match=r'PyTorch \(pickle\) checkpoint; litnn never unpickles'): litnn.load(tmp_path / 't.pt')


def test_load_never_unpickles(monkeypatch):
    "Loading a full checkpoint works with pickle made unusable: nothing in it goes through pickle."
    b = io.BytesIO()
    litnn.save({'sd': stand_ins(litnn).Deep().state_dict(), 'x': (1, 2.5, None, 'y', litnn.float16)}, b)
    def boom(*a, **k): raise AssertionError('pickle used')
    for name in ['loads', 'load', 'Unpickler']: monkeypatch.setattr(pickle, name, boom)
    b.seek(0)
    assert list(litnn.load(b)['sd']) == list(stand_ins(litnn).Deep().state_dict())


def test_map_location():
    b = io.BytesIO(); litnn.save({'w': litnn.ones(2)}, b)
    for loc in [None, 'cpu', litnn.device('cpu'), {'cpu': 'cpu'}, {'cuda:0': 'cpu'}]:
        b.seek(0); assert litnn.load(b, map_location=loc)['w'].device == litnn.device('cpu')
    b.seek(0)
    with pytest.raises(TypeError, match='map_location'): litnn.load(b, map_location=lambda s, l: s)


def test_cuda_checkpoint_without_gpu():
    if litnn.cuda.is_available(): pytest.skip('a GPU is present')
    f = zip_with(good(device='cuda:0'), DATA)
    with pytest.raises(RuntimeError, match="map_location=litnn.device\\('cpu'\\)"): litnn.load(f)
    f.seek(0); assert litnn.load(f, map_location='cpu').tolist() == [1., 1.]
    f.seek(0); assert litnn.load(f, map_location={'cuda:0': 'cpu'}).tolist() == [1., 1.]


def test_top_level_names():
    assert litnn.save is S.save and litnn.load is S.load


# --- random structures ------------------------------------------------------------------------------

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False, width=64), st.text(max_size=8))
KEYS = st.one_of(st.integers(-5, 5), st.text(max_size=4), st.booleans(), st.none(), st.tuples(st.integers(0, 3), st.text(max_size=2)))
TENSORS = st.tuples(st.sampled_from(DTYPES), st.lists(st.integers(0, 3), max_size=3), st.integers(0, 10**6))

def structures(tensors):
    return st.recursive(st.one_of(SCALARS, tensors), lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.lists(kids, max_size=3).map(tuple),
        st.dictionaries(KEYS, kids, max_size=4), st.dictionaries(st.text(max_size=4), kids, max_size=4).map(OrderedDict)), max_leaves=12)

def build(lib, spec):
    "Turn tensor specs (dtype, shape, seed) inside `spec` into `lib` tensors."
    if isinstance(spec, dict): return type(spec)((k, build(lib, v)) for k, v in spec.items())
    if isinstance(spec, list): return [build(lib, v) for v in spec]
    if isinstance(spec, tuple) and len(spec) == 4 and spec[0] == 'T': return tensor(lib, spec[1], values(spec[1], tuple(spec[2]), spec[3]))
    if isinstance(spec, tuple): return tuple(build(lib, v) for v in spec)
    return spec

@settings(max_examples=80, deadline=None)
@given(structures(TENSORS.map(lambda t: ('T',) + t)))
def test_random_structures_like_torch(spec):
    same_roundtrip(lambda lib: {'root': build(lib, spec)})


# --- GPU ------------------------------------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason='no GPU (CuPy) here')

@needs_gpu
def test_cuda_tensors_roundtrip():
    t = litnn.arange(6., device='cuda').reshape(2, 3)
    p = litnn.nn.Parameter(litnn.ones(2, device='cuda'))
    b = io.BytesIO(); litnn.save({'t': t, 'p': p, 'same': t}, b)
    b.seek(0); out = litnn.load(b)
    assert out['t'].device.type == 'cuda' and out['t'].tolist() == t.tolist() and out['same'] is out['t']
    assert type(out['p']) is litnn.nn.Parameter and out['p'].device.type == 'cuda'
    b.seek(0); assert litnn.load(b, map_location='cpu')['t'].device.type == 'cpu'
    b.seek(0); assert litnn.load(b, map_location={'cuda:0': 'cpu'})['p'].device.type == 'cpu'
    cpu = io.BytesIO(); litnn.save({'w': litnn.ones(2)}, cpu)
    cpu.seek(0); assert litnn.load(cpu, map_location='cuda')['w'].device.type == 'cuda'

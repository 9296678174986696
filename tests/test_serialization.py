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
import litnn._checkpoint_file as CF
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


def test_counter_like_torch():
    from collections import Counter
    out = same_roundtrip(lambda lib: {'c': Counter({2: 1, 5: 2}), 'empty': Counter(), 'in': [Counter('aab')]})
    assert out[1][0][1][0] == 'Counter'
    back = roundtrip(Counter({7: 3}))
    assert type(back) is Counter and back == Counter({7: 3})


def test_dtype_and_device_values_like_torch():
    same_roundtrip(lambda lib: [lib.float32, lib.bfloat16, lib.int64, lib.bool, lib.device('cpu'), lib.device('cuda', 1)])


def test_sizes_sets_and_bytes_like_torch():
    same_roundtrip(lambda lib: {'size': lib.Size([2, 3]), 'empty': lib.Size([]), 'set': {1, 'a', (2, 3)},
                                'bytes': b'\x00\xff', b'key': bytes(3)})
    back = roundtrip({frozenset({4, 'x'}): frozenset()})      # torch's weights_only refuses frozensets; litnn keeps them
    assert back == {frozenset({4, 'x'}): frozenset()} and type(next(iter(back))) is frozenset


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



def test_optimizer_state_dict_key_types_exact():
    "JSON keys are strings; litnn's structure keeps ints, bools, None, tuples and floats as keys."
    state = {'state': {0: {'step': litnn.tensor(3.), 'exp_avg': litnn.ones(2)}, 7: {'step': litnn.tensor(1.)}},
             'param_groups': [{'lr': 1e-3, 'betas': (0.9, 0.999), 'eps': 1e-8, 'amsgrad': False, 'params': [0, 7]}],
             'odd keys': {True: 1, None: 2, (1, 'a'): 3, 2.5: 4, -3: 5, '0': 6}}
    back = roundtrip(state)
    assert [type(k) for k in back['state']] == [int, int] and list(back['state']) == [0, 7]
    assert [(type(k), k) for k in back['odd keys']] == [(type(k), k) for k in state['odd keys']]
    assert back['param_groups'] == state['param_groups'] and type(back['param_groups'][0]['betas']) is tuple
    assert back['state'][0]['exp_avg'].tolist() == [1., 1.] and back['state'][7]['step'].item() == 1.


def litnn_sgd():
    "litnn.optim.SGD if that part is built (it is written beside this one)."
    try: import litnn.optim
    except Exception: return None
    return getattr(litnn.optim, 'SGD', None)

@pytest.mark.skipif(litnn_sgd() is None, reason='litnn.optim.SGD not built yet')
def test_litnn_optimizer_state_dict_roundtrip():
    net = stand_ins(litnn).Net()
    opt = litnn.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for p in net.parameters(): p.grad = litnn.ones_like(p)
    opt.step()
    sd = opt.state_dict()
    back = roundtrip(sd)
    assert list(back['state']) == list(sd['state']) and back['param_groups'] == sd['param_groups']
    opt2 = litnn.optim.SGD(stand_ins(litnn).Net().parameters(), lr=0.1, momentum=0.9)
    opt2.load_state_dict(back)
    assert describe(opt2.state_dict(), litnn) == describe(sd, litnn)


# --- shared memory ----------------------------------------------------------------------------------

def entries(raw):
    "The (name, dtype, shape) of each entry of safetensors bytes, and the parsed structure of a litnn file."
    n = int.from_bytes(raw[:8], 'little')
    h = json.loads(raw[8:8 + n])
    meta = h.pop('__metadata__', {})
    return ({k: (v['dtype'], v['shape']) for k, v in h.items()},
            json.loads(meta['structure']) if 'structure' in meta else None)


def saved(obj):
    b = io.BytesIO(); litnn.save(obj, b)
    return b.getvalue()


def test_views_share_one_entry_and_memory_after_load_like_torch():
    def run(lib):
        base = lib.arange(2000.).reshape(40, 50)
        views = [base, base.t(), base[3:7, ::2], base[:, 5], base.reshape(-1)[100:300], base[0].expand(3, 50)]
        out = roundtrip(views, lib)
        with lib.no_grad(): out[0].mul_(-1)
        return [arr(v).tolist() for v in out]
    assert run(litnn) == run(torch)
    base = litnn.arange(2000.).reshape(40, 50)
    raw = saved([base, base.t(), base[3:7, ::2], base[:, 5], base.detach()])
    ents, structure = entries(raw)
    assert ents == {'0': ('F32', [40, 50])}
    assert len(raw) < 2000 * 4 + 2000                            # the memory once, plus the header
    assert [(r.get('offset'), r.get('stride')) for r in structure['tensors']] == [(None, None), (0, [1, 50]), (150, [50, 2]),
                                                                                  (5, [50]), (None, None)]


def test_a_slice_saves_only_its_span_unlike_torch(tmp_path):
    big = np.arange(1_000_000, dtype=np.float32)
    t = litnn.tensor(big)
    raw = saved({'part': t[1000:1010], 'other': t[1005:1100:10]})
    assert len(raw) < 1000 + 4 * 100                              # the header, and elements 1000 to 1095
    back = litnn.load(io.BytesIO(raw))
    assert back['part'].tolist() == big[1000:1010].tolist() and back['other'].tolist() == big[1005:1100:10].tolist()
    tb = io.BytesIO(); torch.save({'part': torch.from_numpy(big)[1000:1010]}, tb)
    assert len(tb.getvalue()) > 4_000_000                          # torch writes the whole storage


def test_views_of_one_block_with_gaps_store_the_span():
    base = litnn.arange(100.)
    a, b = base[10:20], base[50:60]
    raw = saved([a, b])
    ents, structure = entries(raw)
    assert ents == {'0': ('F32', [50])}
    assert [(r['offset'], r['stride']) for r in structure['tensors']] == [(0, [1]), (40, [1])]
    back = litnn.load(io.BytesIO(raw))
    assert back[0].tolist() == list(range(10, 20)) and back[1].tolist() == list(range(50, 60))


def test_expanded_tensor_saves_its_memory_once():
    t = litnn.tensor([1., 2., 3.]).expand(10_000, 3)
    raw = saved(t)
    assert len(raw) < 1000
    back = litnn.load(io.BytesIO(raw))
    assert back.shape == (10_000, 3) and back[9999].tolist() == [1., 2., 3.] and back._data.strides == (0, 4)


def test_arrays_that_cannot_be_described_as_views_are_copied():
    a = np.arange(12, dtype=np.float32)
    negative = litnn.Tensor._make(a[::-2])                        # negative stride
    plain = litnn.Tensor._make(a)
    back = roundtrip([negative, plain, litnn.zeros(0, 3)])
    assert back[0].tolist() == a[::-2].tolist()
    assert back[1].tolist() == a.tolist() and back[2].shape == (0, 3)
    other_dtype = litnn.Tensor._make(a.view(np.int32))            # same bytes, another dtype: refused, as torch.save refuses it
    x = torch.arange(12.)
    for lib, pair in ((litnn, [plain, other_dtype]), (torch, [x, x.view(torch.int32)])):
        with pytest.raises(RuntimeError, match='view the same data as different types'):
            lib.save(pair, io.BytesIO())


def test_entry_names_are_the_keys_and_unique():
    t = litnn.ones(1)
    ents, _ = entries(saved({'a.b': t, 'a': {'b': litnn.zeros(1)}, '__metadata__': litnn.ones(2), 'l': [litnn.ones(3)]}))
    assert set(ents) == {'a.b', 'a.b#1', '__metadata__#1', 'l.0'}
    ents, _ = entries(saved(litnn.ones(2)))
    assert set(ents) == {'obj'}


# --- the file -------------------------------------------------------------------------------------

def test_file_is_safetensors_with_litnn_metadata(tmp_path):
    import safetensors
    t = litnn.ones(2, 3)
    litnn.save({'a': t, 'b': t.detach(), 'c': litnn.tensor(1)}, tmp_path / 'x.pt')
    with safetensors.safe_open(tmp_path / 'x.pt', framework='numpy') as f:
        meta = f.metadata()
        assert sorted(f.keys()) == ['a', 'c'] and f.get_tensor('c').tolist() == 1
    assert (meta['format'], meta['version']) == ('litnn', '3')
    structure = json.loads(meta['structure'])
    assert structure['tensors'][0] == {'dtype': 'float32', 'shape': [2, 3], 'device': 'cpu', 'requires_grad': False,
                                       'parameter': False, 'storage': 'a'}
    assert [r['storage'] for r in structure['tensors']] == ['a', 'a', 'c']
    assert structure['root'] == {'type': 'dict', 'items': [['a', {'type': 'tensor', 'index': 0}], ['b', {'type': 'tensor', 'index': 1}],
                                                           ['c', {'type': 'tensor', 'index': 2}]]}


def test_torch_reads_a_litnn_state_dict_with_safetensors(tmp_path):
    from safetensors.torch import load_file
    src = stand_ins(litnn).Net()
    with litnn.no_grad():
        for i, t in enumerate(src.state_dict().values()): t.copy_(litnn.full(t.shape, i + 0.5))
    litnn.save(src.state_dict(), tmp_path / 'sd.safetensors')
    got = load_file(tmp_path / 'sd.safetensors')
    assert set(got) == set(src.state_dict())
    for k, v in src.state_dict().items(): assert got[k].tolist() == v.tolist() and str(got[k].dtype) == f'torch.{v.dtype.name}'
    tm = stand_ins(torch).Net()
    assert repr(tm.load_state_dict(got)) == '<All keys matched successfully>'


def litnn_mlp():
    nn = litnn.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def test_save_file_then_torch_gives_same_outputs(tmp_path):
    "The reverse direction: litnn writes a plain safetensors file, PyTorch loads it and computes the same."
    from safetensors.torch import load_file, save_file
    litnn.manual_seed(3)
    m = litnn_mlp()
    S.save_file(m.state_dict(), tmp_path / 'mlp.safetensors', metadata={'source': 'litnn'})
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    assert repr(tm.load_state_dict(load_file(tmp_path / 'mlp.safetensors'))) == '<All keys matched successfully>'
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(tm(torch.from_numpy(x)).detach().numpy(), m(litnn.tensor(x))._data, rtol=1e-5, atol=1e-6)
    import safetensors
    with safetensors.safe_open(tmp_path / 'mlp.safetensors', framework='numpy') as f: assert f.metadata() == {'source': 'litnn'}
    # and back: torch's safetensors file into litnn
    save_file(tm.state_dict(), tmp_path / 'back.safetensors')
    m2 = litnn_mlp()
    assert repr(m2.load_state_dict(S.load_file(tmp_path / 'back.safetensors'))) == '<All keys matched successfully>'
    assert m2(litnn.tensor(x)).tolist() == m(litnn.tensor(x)).tolist()


@pytest.mark.parametrize('dtype', DTYPES)
def test_torch_safetensors_files_read_bit_for_bit(dtype, tmp_path):
    from safetensors.torch import save_file
    t = tensor(torch, dtype, values(dtype, (3, 5), seed=4))
    save_file({'x': t, 'y': t[1:].clone()}, tmp_path / 't.safetensors')
    for got in [S.load_file(tmp_path / 't.safetensors'), litnn.load(tmp_path / 't.safetensors'),
                litnn.load(tmp_path / 't.safetensors', map_location='cpu')]:
        assert sorted(got) == ['x', 'y'] and got['x'].dtype == getattr(litnn, dtype)
        want = t.view(torch.int16) if dtype == 'bfloat16' else t
        assert got['x']._data.tobytes() == want.numpy().tobytes()


def test_save_file_rejects_non_tensors_and_copies_shared(tmp_path):
    with pytest.raises(TypeError, match='dict of str names'): S.save_file({'a': np.ones(2)}, tmp_path / 'x')
    with pytest.raises(TypeError, match='dict of str names'): S.save_file([litnn.ones(1)], tmp_path / 'x')
    with pytest.raises(TypeError, match='metadata'): S.save_file({'a': litnn.ones(1)}, tmp_path / 'x', {'a': 1})
    w = litnn.arange(6.).reshape(2, 3)
    S.save_file({'w': w, 'wt': w.t(), 'row': w[1]}, tmp_path / 'x')
    got = S.load_file(tmp_path / 'x')
    assert got['wt'].tolist() == w.t().tolist() and got['row'].tolist() == [3., 4., 5.] and got['wt'].shape == (3, 2)


def test_paths_and_file_objects(tmp_path):
    obj = {'w': litnn.arange(3.)}
    litnn.save(obj, str(tmp_path / 's.pt'))
    litnn.save(obj, tmp_path / 'p.pt')
    with open(tmp_path / 'f.pt', 'wb') as f: litnn.save(obj, f)
    for name in ['s.pt', 'p.pt', 'f.pt']:
        assert litnn.load(tmp_path / name)['w'].tolist() == [0., 1., 2.]
        assert litnn.load(str(tmp_path / name))['w'].tolist() == [0., 1., 2.]
        with open(tmp_path / name, 'rb') as f: assert litnn.load(f)['w'].tolist() == [0., 1., 2.]
    b = io.BytesIO(b'prefix')                                    # a file object is read from where it stands
    b.seek(6); litnn.save(obj, b); b.seek(6)
    assert litnn.load(b)['w'].tolist() == [0., 1., 2.]
    with pytest.raises(RuntimeError, match='Parent directory'): litnn.save(obj, tmp_path / 'missing' / 'x.pt')
    with pytest.raises(FileNotFoundError): litnn.load(tmp_path / 'nope.pt')
    assert sorted(os.listdir(tmp_path)) == ['f.pt', 'p.pt', 's.pt']


@pytest.mark.parametrize('f', [3, None, b'x.pt', 2.5])
def test_what_is_neither_a_path_nor_a_file(f):
    "torch's AttributeErrors (an int is not a file descriptor, bytes are not a path, for litnn either)."
    for lib in (torch, litnn):
        with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object with a 'write' attribute"):
            lib.save({'w': lib.ones(2)}, f)
        with pytest.raises(AttributeError, match="object has no attribute 'seek'. You can only"): lib.load(f)


def test_save_to_a_directory(tmp_path):
    for lib in (torch, litnn):
        with pytest.raises(RuntimeError): lib.save({'w': lib.ones(2)}, tmp_path)
    assert os.listdir(tmp_path) == []          # no temporary file left behind


def test_pickle_module_argument(tmp_path):
    "litnn never unpickles: pickle_module is accepted as torch's, and refused beside weights_only=True with torch's words."
    path = tmp_path / 'w.pt'
    litnn.save({'w': litnn.ones(2)}, path); torch.save({'w': torch.ones(2)}, tmp_path / 't.pt')
    for lib, p in ((torch, tmp_path / 't.pt'), (litnn, path)):
        with pytest.raises(RuntimeError, match='Can not safely load weights when explicit pickle_module is specified'):
            lib.load(p, pickle_module=pickle, weights_only=True)
        assert lib.load(p, pickle_module=pickle)['w'].tolist() == [1., 1.]


# --- atomic saving ----------------------------------------------------------------------------------

def test_failed_write_leaves_old_file(tmp_path, monkeypatch):
    import litnn._checkpoint_file as CF
    path = tmp_path / 'ck.pt'
    litnn.save({'version': 1, 'w': litnn.ones(2)}, path)
    old = path.read_bytes()
    def half_then_fail(out, header, arrays):
        out.write(header); out.write(b'\0' * 100)
        raise OSError('disk full (simulated)')
    monkeypatch.setattr(CF, '_write_to', half_then_fail)
    with pytest.raises(OSError, match='simulated'): litnn.save({'version': 2, 'a': litnn.ones(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == old and litnn.load(path)['version'] == 1
    assert os.listdir(tmp_path) == ['ck.pt']                 # no temporary file left behind
    def fsync_fails(fd): raise OSError('I/O error (simulated)')
    monkeypatch.setattr(os, 'fsync', fsync_fails)
    with pytest.raises(OSError, match='I/O error'): litnn.save({'version': 3}, path)
    monkeypatch.undo()
    assert path.read_bytes() == old and os.listdir(tmp_path) == ['ck.pt']


def test_save_writes_temp_file_in_same_folder_then_replaces(tmp_path, monkeypatch):
    seen, synced = [], []
    real_replace, real_fsync = os.replace, os.fsync
    monkeypatch.setattr(os, 'replace', lambda a, b: (seen.append((os.path.dirname(a), os.path.basename(a), b, len(synced))), real_replace(a, b))[1])
    monkeypatch.setattr(os, 'fsync', lambda fd: (synced.append(fd), real_fsync(fd))[1])
    litnn.save([1], tmp_path / 'a.pt')
    (folder, tmp, dst, n_synced), = seen
    assert folder == str(tmp_path) and tmp.startswith('.a.pt.') and tmp.endswith('.tmp') and str(dst) == str(tmp_path / 'a.pt')
    assert n_synced == 1 and len(synced) == 2                 # the file before the rename, the folder after


def test_saved_file_gets_the_permissions_open_gives(tmp_path):
    litnn.save({'a': 1}, tmp_path / 'x.pt')
    (tmp_path / 'y').write_bytes(b'')
    assert (tmp_path / 'x.pt').stat().st_mode == (tmp_path / 'y').stat().st_mode


CHILD = r'''
import sys, numpy as np, litnn
path, n = sys.argv[1], int(sys.argv[2])
litnn.save({'version': 1, 'w': litnn.arange(1000.)}, path)
print('saved', flush=True)
big = litnn.tensor(np.ones(n, np.float32))
litnn.save({'version': 2, 'w': big}, path)
print('done', flush=True)
'''

def test_killed_during_save_leaves_previous_checkpoint(tmp_path):
    "Really kill a process in the middle of saving a large checkpoint: the previous one must be intact."
    import signal, subprocess, sys, time
    path = tmp_path / 'ck.pt'
    for attempt, n in enumerate([50_000_000, 100_000_000, 200_000_000]):
        for p in tmp_path.iterdir(): p.unlink()
        child = subprocess.Popen([sys.executable, '-c', CHILD, str(path), str(n)], stdout=subprocess.PIPE, text=True,
                                 cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        try:
            assert child.stdout.readline().strip() == 'saved'
            first = path.read_bytes()
            deadline, killed_mid_save = time.time() + 60, False
            while time.time() < deadline and child.poll() is None:
                # litnn's temporary file, or the one recent safetensors versions write and rename onto it
                if any(p.name != 'ck.pt' and p.stat().st_size > 0 for p in tmp_path.iterdir()):
                    child.send_signal(signal.SIGKILL); child.wait()
                    killed_mid_save = path.read_bytes() == first
                    break
                time.sleep(0.0005)
        finally:
            if child.poll() is None: child.kill(); child.wait()
            child.stdout.close()
        assert child.returncode in (0, -signal.SIGKILL)
        back = litnn.load(path)                                   # whatever happened, the file is a whole checkpoint
        assert back['version'] in (1, 2)
        if killed_mid_save:
            assert path.read_bytes() == first and back['version'] == 1 and back['w'].tolist() == list(range(1000))
            leftovers = [p for p in tmp_path.iterdir() if p.name != 'ck.pt']
            assert leftovers and all(p.name.startswith('.') for p in leftovers)
            for p in leftovers:
                if 0 < p.stat().st_size < 4 * n:                  # cut short: refused, not half-loaded
                    with pytest.raises(RuntimeError, match='truncated'): litnn.load(p)
            return
    pytest.fail('never managed to kill the child in the middle of a save')


def test_unsaveable_objects_rejected_before_writing(tmp_path):
    path = tmp_path / 'x.pt'
    path.write_bytes(b'old')
    class Thing: pass
    class MyList(list): pass
    # what pickle (torch.save's pickler) cannot store fails with pickle's own error, as in torch: local classes and functions, memoryviews
    for obj, err, msg in [({'model': stand_ins(litnn).Net()}, AttributeError, "Can't pickle local object 'stand_ins.<locals>.Net'"),
                          ({'f': lambda: 0}, AttributeError, "Can't pickle local object"), ([1, {2: Thing}], AttributeError, "local object .*Thing"),
                          ({Thing: 1}, AttributeError, "local object"), (MyList([1]), AttributeError, "local object .*MyList"),
                          ({'set': {lambda: 0}}, AttributeError, "local object"), ({'b': memoryview(b'ab')}, TypeError, 'cannot pickle memoryview')]:
        for lib in (litnn, torch):
            with pytest.raises(err, match=msg): lib.save(obj, path if lib is litnn else io.BytesIO())
    # what pickle stores but a litnn checkpoint does not gets litnn's TypeError, naming where it sits
    for obj, where in [({'a': np.zeros(2, np.longdouble)}, "obj['a']"), ({'s': range(3)}, "obj['s']"), ({'n': np.array(['x'])}, "obj['n']")]:
        with pytest.raises(TypeError, match=r'litnn.save cannot store ' + where.replace('[', r'\[').replace(']', r'\]')):
            litnn.save(obj, path)
    assert path.read_bytes() == b'old' and os.listdir(tmp_path) == ['x.pt']


def test_cyclic_and_shared_containers():
    a = []; a.append(a)
    with pytest.raises(ValueError, match='contains itself or is nested more than 100 levels deep'): litnn.save(a, io.BytesIO())
    shared, t = [1, 2], litnn.ones(2)
    back = roundtrip({'a': shared, 'b': shared, 'x': t, 'y': t})
    assert back['a'] == back['b'] == [1, 2] and back['a'] is not back['b']      # containers by value
    assert back['x'] is back['y']                                               # tensors keep their identity


# --- refused files ----------------------------------------------------------------------------------

def craft(structure, arrays=None, version='3', meta=None):
    "A litnn checkpoint with the given structure and arrays, as bytes (with valid checksums: what is wrong is the content)."
    b = io.BytesIO()
    arrays = {'w': np.ones(2, np.float32)} if arrays is None else arrays
    m = {'format': 'litnn', 'version': version, 'structure': structure if isinstance(structure, str) else json.dumps(structure)}
    S._write(arrays, {**m, **(meta or {})}, b, checksums=True)
    return b.getvalue()


def header_file(header, data=b''):
    h = json.dumps(header).encode()
    return len(h).to_bytes(8, 'little') + h + data


def rec(**fields):
    return {'dtype': 'float32', 'shape': [2], 'device': 'cpu', 'requires_grad': False, 'parameter': False, 'storage': 'w', **fields}


def good(**fields): return {'tensors': [rec(**fields)], 'root': {'type': 'tensor', 'index': 0}}


GOOD = saved({'w': litnn.arange(10.), 'n': 3})

BAD = {
    'empty file': (b'', 'the file is empty'),
    'too short': (b'abc', 'too short'),
    'text': (b'hello world, not a checkpoint', 'it is not a checkpoint'),
    'cut in the header': (GOOD[:40], 'it is truncated: its header needs'),
    'cut in the data': (GOOD[:-4], 'it is truncated: its tensors need'),
    'header not JSON': (b'\x05' + bytes(7) + b'{abc}', 'its header is not valid JSON'),
    'bytes do not match shape': (header_file({'w': {'dtype': 'F32', 'shape': [3], 'data_offsets': [0, 8]}}, bytes(8)),
                                 "tensor 'w' is declared float32 [3] (12 bytes) but its data_offsets give it 8 bytes"),
    'dtype litnn lacks': (header_file({'w': {'dtype': 'F8_E8M0', 'shape': [1], 'data_offsets': [0, 1]}}, bytes(1)),
                          "tensor 'w' has dtype 'F8_E8M0', which litnn does not have"),
    'malformed entry': (header_file({'w': {'dtype': 'F32', 'shape': [1]}}, bytes(4)), "the header entry of tensor 'w' is malformed"),
    'negative shape': (header_file({'w': {'dtype': 'F32', 'shape': [-1], 'data_offsets': [0, 0]}}), "entry of tensor 'w' is malformed"),
    'overlapping data': (header_file({'a': {'dtype': 'F32', 'shape': [1], 'data_offsets': [0, 4]},
                                      'b': {'dtype': 'F32', 'shape': [1], 'data_offsets': [0, 4]}}, bytes(4)), 'start at 0, but the tensor before ends at 4'),
    'gap in the data': (header_file({'a': {'dtype': 'F32', 'shape': [1], 'data_offsets': [0, 4]},
                                     'b': {'dtype': 'F32', 'shape': [1], 'data_offsets': [8, 12]}}, bytes(12)), 'start at 8, but the tensor before ends at 4'),
    'extra bytes': (header_file({'a': {'dtype': 'F32', 'shape': [1], 'data_offsets': [0, 4]}}, bytes(8)), 'it has 4 bytes after its last tensor'),
    'metadata not strings': (header_file({'__metadata__': {'a': 1}}), '__metadata__ is not a JSON object of strings'),
    'header too large': ((10**9).to_bytes(8, 'little') + b'{}', 'more than safetensors allows'),
    'header not UTF-8': (b'\x03' + bytes(7) + b'{\xff}', 'its header is not valid JSON'),
    'newer version': (craft(good(), version='4'), 'format version 4, newer than this litnn reads (version 3): upgrade litnn'),
    'bad version': (craft(good(), version='x'), "format version 'x'"),
    'structure not JSON': (craft('{"tensors": '), 'its structure is not valid JSON'),
    'structure not an object': (craft([1]), 'its structure is not a JSON object'),
    'structure nested too deeply': (craft('{"tensors": [], "root": ' + '[' * 100_000 + ']' * 100_000 + '}'), 'its structure is nested too deeply'),
    'no tensor list': (craft({**good(), 'tensors': {}}), 'no list of tensors'),
    'record not an object': (craft({**good(), 'tensors': [3]}), 'tensor 0 is not a JSON object'),
    'bad dtype': (craft(good(dtype='object')), "tensor 0 has dtype 'object'"),
    'negative shape in record': (craft(good(shape=[-2])), 'tensor 0 has shape [-2]'),
    'float shape': (craft(good(shape=[2.0])), 'has shape'),
    'bool shape': (craft(good(shape=[True, True])), 'has shape'),
    'missing storage': (craft(good(storage='nope')), "its storage 'nope' is not in the file"),
    'dtype differs from storage': (craft(good(dtype='float64')), "tensor 0 is float64 but its storage 'w' is float32"),
    'shape differs from storage': (craft(good(shape=[3])), "its shape is [3] but its storage 'w' has shape [2]"),
    'view past the end': (craft(good(shape=[2], offset=1, stride=[1])), 'reach past the end of its storage of 2 elements'),
    'huge stride': (craft(good(shape=[2], offset=0, stride=[10**12])), 'reach past the end'),
    'negative stride': (craft(good(shape=[2], offset=1, stride=[-1])), 'do not describe a tensor'),
    'offset without stride': (craft(good(offset=0)), 'do not describe a tensor'),
    'device not a string': (craft(good(device=0)), 'tensor 0 has device 0'),
    'unknown device': (craft(good(device='mps')), "cannot place a tensor saved on 'mps'"),
    'int requires grad': (craft(good(dtype='int32', requires_grad=True), {'w': np.ones(2, np.int32)}), 'tensor 0:'),
    'index out of range': (craft({**good(), 'root': {'type': 'tensor', 'index': 5}}), 'bad tensor record'),
    'unknown record': (craft({**good(), 'root': {'type': 'pickle', 'data': 'x'}}), 'unknown record'),
    'object without type': (craft({**good(), 'root': {'a': 1}}), 'unknown record'),
    'bad float': (craft({**good(), 'root': {'type': 'float', 'value': '1e5'}}), 'bad float record'),
    'bad dict items': (craft({**good(), 'root': {'type': 'dict', 'items': [[1]]}}), 'bad dict record'),
    'unhashable key': (craft({**good(), 'root': {'type': 'dict', 'items': [[[1], 2]]}}), 'bad dict record'),
    'bad device record': (craft({**good(), 'root': {'type': 'device', 'name': 'tpu'}}), 'bad device record'),
    'first litnn format (zip)': (lambda: zip_bytes({'structure.json': '{}'}), 'litnn checkpoint of format version 1'),
    'other zip': (lambda: zip_bytes({'readme.txt': 'hi'}), 'not a PyTorch checkpoint'),
}

def zip_bytes(files):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        for k, v in files.items(): z.writestr(k, v)
    return b.getvalue()


@pytest.mark.parametrize('case', list(BAD))
def test_bad_files_refused_with_the_file_and_the_reason(case, tmp_path):
    data, reason = BAD[case]
    path = tmp_path / f'{case.replace(" ", "_")}.pt'
    path.write_bytes(data() if callable(data) else data)
    with pytest.raises(RuntimeError, match='litnn.load: cannot load') as e: litnn.load(path)
    assert reason in str(e.value) and str(path) in str(e.value)


ST_SIZES = {'F32': 4, 'F16': 2, 'BF16': 2, 'I64': 8, 'U8': 1, 'BOOL': 1, 'F64': 8}

@st.composite
def st_files(draw):
    "A hand-made safetensors file: a valid layout (tensors back to back), then maybe one thing broken."
    entries, pos = [], 0
    for k in draw(st.lists(st.sampled_from('abcd'), unique=True, max_size=3)):
        d, sh = draw(st.sampled_from(sorted(ST_SIZES))), draw(st.lists(st.integers(0, 3), max_size=2))
        n = math.prod(sh) * ST_SIZES[d]
        entries.append([k, d, sh, pos, pos + n]); pos += n
    data = draw(st.binary(min_size=pos, max_size=pos))
    entries = draw(st.permutations(entries))                     # header order need not be data order
    meta = draw(st.sampled_from([None, {'k': 'v'}, {'k': 1}, [], {}]))
    broken = draw(st.sampled_from(['nothing', 'nothing', 'start', 'stop', 'dtype', 'shape', 'pad', 'cut']))
    if broken in ('start', 'stop', 'dtype', 'shape') and entries:
        e = entries[draw(st.integers(0, len(entries) - 1))]
        if broken == 'start': e[3] += draw(st.integers(-3, 3))
        if broken == 'stop': e[4] += draw(st.integers(-3, 3))
        if broken == 'dtype': e[1] = draw(st.sampled_from(sorted(ST_SIZES)))
        if broken == 'shape': e[2] = draw(st.lists(st.integers(0, 3), max_size=2))
    h = {k: {'dtype': d, 'shape': sh, 'data_offsets': [a, b]} for k, d, sh, a, b in entries}
    if meta is not None: h['__metadata__'] = meta
    j = json.dumps(h).encode()
    raw = len(j).to_bytes(8, 'little') + j + data
    if broken == 'pad': raw += bytes(draw(st.integers(1, 4)))
    if broken == 'cut': raw = raw[:len(raw) - draw(st.integers(1, len(raw)))]
    return raw

@settings(max_examples=400, deadline=None)
@given(st_files())
def test_reader_accepts_exactly_what_the_safetensors_library_accepts(raw):
    "Hand-made files, right and wrong: litnn accepts a file iff the safetensors library does, and reads the same bytes."
    import safetensors
    try: ref = {k: bytes(v['data']) for k, v in safetensors.deserialize(raw)}
    except safetensors.SafetensorError: ref = None
    try: got = {k: v._data.tobytes() for k, v in S.load_file(io.BytesIO(raw)).items()}
    except RuntimeError as e:
        assert 'litnn.load: cannot load' in str(e)
        got = None
    assert got == ref, (raw, got, ref)


def test_reader_agrees_with_library_on_real_files():
    import safetensors
    raw = saved({'w': litnn.arange(6.).reshape(2, 3), 'h': litnn.ones(3, dtype=litnn.bfloat16), 'e': litnn.zeros(0), 'b': litnn.tensor(True)})
    ref = {k: bytes(v['data']) for k, v in safetensors.deserialize(raw)}
    assert {k: v._data.tobytes() for k, v in S.load_file(io.BytesIO(raw)).items()} == ref


def test_good_file_of_the_bad_file_tests_loads():
    assert litnn.load(io.BytesIO(craft(good()))).tolist() == [1., 1.]
    assert litnn.load(io.BytesIO(craft(good(shape=[1], offset=1, stride=[1])))).tolist() == [1.]
    back = litnn.load(io.BytesIO(GOOD))
    assert back['n'] == 3 and back['w'].tolist() == list(range(10))


def test_pickles_refused_without_running(tmp_path):
    marker = tmp_path / 'ran'
    class Evil:
        def __reduce__(self): return (os.system, (f'touch {marker}',))
    for proto in [2, 4, 5]:
        with pytest.raises(pickle.UnpicklingError, match='is a pickle, and litnn never unpickles'):
            litnn.load(io.BytesIO(pickle.dumps({'w': Evil()}, protocol=proto)))
    assert not marker.exists()
    legacy = io.BytesIO(); torch.save({'w': torch.ones(2)}, legacy, _use_new_zipfile_serialization=False); legacy.seek(0)
    with pytest.raises(pickle.UnpicklingError, match='legacy format'): litnn.load(legacy)


def test_load_never_unpickles(monkeypatch):
    "Loading a full checkpoint works with pickle made unusable: nothing in it goes through pickle."
    b = io.BytesIO()
    litnn.save({'sd': stand_ins(litnn).Deep().state_dict(), 'x': (1, 2.5, None, 'y', litnn.float16)}, b)
    def boom(*a, **k): raise AssertionError('pickle used')
    for name in ['loads', 'load', 'Unpickler']: monkeypatch.setattr(pickle, name, boom)
    b.seek(0)
    assert list(litnn.load(b)['sd']) == list(stand_ins(litnn).Deep().state_dict())


def test_bad_checkpoint_leaves_the_model_unchanged(tmp_path):
    model = stand_ins(litnn).Net()
    with litnn.no_grad():
        for t in model.state_dict().values(): t.copy_(litnn.full(t.shape, 7))
    before = {k: v.tolist() for k, v in model.state_dict().items()}
    other = stand_ins(litnn).Net()
    litnn.save(other.state_dict(), tmp_path / 'ok.pt')
    raw = (tmp_path / 'ok.pt').read_bytes()
    (tmp_path / 'cut.pt').write_bytes(raw[:len(raw) - 10])
    with pytest.raises(RuntimeError, match='truncated'): model.load_state_dict(litnn.load(tmp_path / 'cut.pt'))
    sd = litnn.load(tmp_path / 'ok.pt')
    sd['fc2.weight'] = litnn.zeros(5, 5)                             # loads, but does not fit: nothing is copied
    with pytest.raises(RuntimeError, match='size mismatch'): model.load_state_dict(sd)
    assert {k: v.tolist() for k, v in model.state_dict().items()} == before


# --- map_location and devices -----------------------------------------------------------------------

def with_device(raw, device):
    "A litnn checkpoint (bytes) rewritten as if its tensors had been saved on `device` (a CuPy checkpoint)."
    import safetensors
    meta = json.loads(raw[8:8 + int.from_bytes(raw[:8], 'little')])['__metadata__']
    structure = json.loads(meta['structure'])
    for r in structure['tensors']: r['device'] = device
    arrays = {k: np.frombuffer(v["data"], litnn.backend._by_name[CF._ST_DTYPES[v['dtype']]].np).reshape(v['shape'])
              for k, v in safetensors.deserialize(raw)}
    meta = {k: v for k, v in meta.items() if k not in ('checksum', 'checksums')}
    b = io.BytesIO(); S._write(arrays, {**meta, 'structure': json.dumps(structure)}, b, checksums=True)
    return b.getvalue()


def test_map_location_forms():
    raw = saved({'w': litnn.ones(2), 'v': litnn.ones(3)})
    for loc in [None, 'cpu', litnn.device('cpu'), {'cpu': 'cpu'}, {'cuda:0': 'cpu'}, lambda s, l: s, lambda s, l: None]:
        assert litnn.load(io.BytesIO(raw), map_location=loc)['w'].device == litnn.device('cpu')
    seen = []
    litnn.load(io.BytesIO(raw), map_location=lambda storage, location: seen.append((storage.shape, location)))
    assert seen == [((2,), 'cpu'), ((3,), 'cpu')]
    with pytest.raises(TypeError, match='map_location should be'): litnn.load(io.BytesIO(raw), map_location=3)
    with pytest.raises(TypeError, match='map_location returned a list'): litnn.load(io.BytesIO(raw), map_location=lambda s, l: [s])


def test_cuda_checkpoint_loads_into_cpu_model():
    "A checkpoint saved on CuPy (its records say cuda:0) loads into a CPU model with map_location."
    litnn.manual_seed(1)
    src = litnn_mlp()
    raw = with_device(saved({'model': src.state_dict(), 'step': 3}), 'cuda:0')
    assert {r['device'] for r in entries(raw)[1]['tensors']} == {'cuda:0'}
    if not litnn.cuda.is_available():
        with pytest.raises(RuntimeError, match=r"CPU-only machine, please use litnn.load with map_location=litnn.device\('cpu'\)"):
            litnn.load(io.BytesIO(raw))
    x = litnn.randn(3, 4)
    for loc in ['cpu', litnn.device('cpu'), {'cuda:0': 'cpu'}, lambda storage, location: storage]:
        ck = litnn.load(io.BytesIO(raw), map_location=loc)
        dst = litnn_mlp()
        assert repr(dst.load_state_dict(ck['model'])) == '<All keys matched successfully>'
        assert all(t.device.type == 'cpu' for t in dst.state_dict().values())
        assert dst(x).tolist() == src(x).tolist()


def test_top_level_names():
    assert litnn.save is S.save and litnn.load is S.load
    assert set(S.__all__) == {'save', 'load', 'add_safe_globals', 'get_safe_globals', 'clear_safe_globals', 'SourceChangeWarning',
                              'safe_globals', 'save_file', 'load_file', 'LoadEndianness', 'get_default_load_endianness',
                              'set_default_load_endianness', 'get_crc32_options', 'set_crc32_options', 'get_default_mmap_options',
                              'set_default_mmap_options', 'check_module_version_greater_or_equal', 'DEFAULT_PROTOCOL', 'PROTOCOL_VERSION',
                              'MAGIC_NUMBER', 'LONG_SIZE', 'INT_SIZE', 'SHORT_SIZE', 'MAP_PRIVATE', 'MAP_SHARED', 'get_unsafe_globals_in_checkpoint'}
    assert all(hasattr(torch.serialization, n) for n in S.__all__ if n not in ('save_file', 'load_file'))
    assert all(n in torch.serialization.__all__ and getattr(S, n).__module__ == 'litnn.serialization'
               for n in ['add_safe_globals', 'get_safe_globals', 'clear_safe_globals', 'safe_globals'])


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


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 4), st.integers(0, 6)), min_size=1, max_size=5))
def test_random_views_of_one_tensor_like_torch(views):
    "Random strided views of one block: litnn's saved views hold the same values and share memory as torch's."
    def run(lib):
        base = lib.arange(40.)
        ts = [base[s:s + 3 * k + 1:k].reshape(-1)[:n] for s, k, n in views] + [base]
        out = roundtrip(ts, lib)
        with lib.no_grad(): out[-1].add_(1000.)
        return [arr(t).tolist() for t in out]
    assert run(litnn) == run(torch)


# --- GPU ------------------------------------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason='no GPU (CuPy) here')

@needs_gpu
def test_cuda_tensors_roundtrip():
    t = litnn.arange(6., device='cuda').reshape(2, 3)
    p = litnn.nn.Parameter(litnn.ones(2, device='cuda'))
    b = io.BytesIO(); litnn.save({'t': t, 'p': p, 'same': t, 'view': t.t()}, b)
    b.seek(0); out = litnn.load(b)
    assert out['t'].device.type == 'cuda' and out['t'].tolist() == t.tolist() and out['same'] is out['t']
    assert out['view'].tolist() == t.t().tolist() and out['view'].device.type == 'cuda'
    assert type(out['p']) is litnn.nn.Parameter and out['p'].device.type == 'cuda'
    b.seek(0); assert litnn.load(b, map_location='cpu')['t'].device.type == 'cpu'
    b.seek(0); assert litnn.load(b, map_location={'cuda:0': 'cpu'})['p'].device.type == 'cpu'
    cpu = io.BytesIO(); litnn.save({'w': litnn.ones(2)}, cpu)
    cpu.seek(0); assert litnn.load(cpu, map_location='cuda')['w'].device.type == 'cuda'


@needs_gpu
def test_cupy_checkpoint_into_cpu_model(tmp_path):
    litnn.manual_seed(2)
    src = litnn_mlp()
    gpu = litnn_mlp().cuda()
    gpu.load_state_dict(src.state_dict())
    litnn.save(gpu.state_dict(), tmp_path / 'gpu.pt')
    dst = litnn_mlp()
    dst.load_state_dict(litnn.load(tmp_path / 'gpu.pt', map_location='cpu'))
    x = litnn.randn(2, 4)
    assert dst(x).tolist() == src(x).tolist()


def test_save_takes_torchs_arguments_and_checks_the_directory(tmp_path):
    "torch.save's pickle arguments are accepted (litnn never pickles); a missing parent directory is torch's RuntimeError."
    torch = pytest.importorskip('torch')
    p = tmp_path / 'x.pt'
    litnn.save(litnn.ones(2), p, pickle_protocol=4)
    litnn.save(litnn.ones(2), str(p), pickle, 2, _use_new_zipfile_serialization=True)
    assert litnn.load(p).tolist() == [1., 1.]
    for lib in (torch, litnn):      # pickle_module=None is no module: torch's AttributeError (and the file is left as it was)
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'Pickler'"): lib.save(lib.zeros(2), io.BytesIO(), None)
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'Pickler'"): litnn.save(litnn.zeros(2), p, None)
    assert litnn.load(p).tolist() == [1., 1.]
    missing = tmp_path / 'nope' / 'x.pt'
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(RuntimeError) as e: lib.save(lib.ones(1), missing)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    assert not missing.parent.exists()


def test_source_change_warning_is_torchs_warning_class():
    "torch.serialization.SourceChangeWarning: code filters it by name (warnings.simplefilter('ignore', SourceChangeWarning))."
    from litnn.serialization import SourceChangeWarning
    assert issubclass(SourceChangeWarning, Warning) and 'SourceChangeWarning' in litnn.serialization.__all__
    assert [c.__name__ for c in SourceChangeWarning.__mro__] == [c.__name__ for c in torch.serialization.SourceChangeWarning.__mro__]


def test_saving_to_an_open_file_flushes_it_like_torch(tmp_path):
    # torch.save to a file object flushes it: the file can be loaded by its name right away (mmap too)
    import tempfile
    for lib in (torch, litnn):
        sd = OrderedDict(w=lib.arange(6.).reshape(2, 3))
        with tempfile.NamedTemporaryFile(dir=tmp_path) as f:
            lib.save(sd, f)
            assert arr(lib.load(f.name)['w']).tolist() == [[0., 1., 2.], [3., 4., 5.]]
            assert arr(lib.load(f.name, mmap=True)['w']).tolist() == [[0., 1., 2.], [3., 4., 5.]]


def test_loading_a_file_object_without_readinto_like_torch():
    class Reader:   # read/seek/tell only, as test_serialization.py's FilelikeMock
        def __init__(self, data): self.b = io.BytesIO(data)
        def read(self, *a): return self.b.read(*a)
        def readline(self, *a): return self.b.readline(*a)
        def seek(self, *a): return self.b.seek(*a)
        def tell(self): return self.b.tell()
    for lib in (torch, litnn):
        b = io.BytesIO(); lib.save(lib.arange(12.).reshape(3, 4), b)
        assert arr(lib.load(Reader(b.getvalue()))).tolist() == np.arange(12.).reshape(3, 4).tolist()


def test_storages_load_without_an_allow_list_like_torch():
    # torch.load(weights_only=True) rebuilds TypedStorage/UntypedStorage; a storage saved with its tensor stays shared
    for lib in (torch, litnn):
        a = lib.arange(6.)
        back = roundtrip([a.storage(), a], lib)
        assert type(back[0]).__name__ == 'TypedStorage' and back[0].tolist() == [0., 1., 2., 3., 4., 5.]
        assert back[1].tolist() == [0., 1., 2., 3., 4., 5.]
        u = roundtrip(a.untyped_storage(), lib)
        assert u.nbytes() == 24 and bytes(u.tolist()[4:8]) == bytes(np.float32(1.).data)   # (torch gives a uint8 TypedStorage)



def test_storages_share_memory_with_their_tensors_after_loading_like_torch():
    # test_serialization.py's _test_serialization_data: storages saved beside tensors over the same memory (the whole
    # storage, a slice's storage, one storage twice) load over the memory of those tensors, as torch's
    import warnings
    out = []
    for lib in (torch, litnn):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')   # TypedStorage is deprecated (both libraries warn)
            a = lib.arange(25.).reshape(5, 5)
            t = lib.arange(3.)
            b = [a, a[1:], a.storage(), a.reshape(-1)[1:4].storage(), (t.storage(), t.storage())]
            c = roundtrip(b, lib)
            c[0].fill_(10)
            c[4][0][0] = 7.
            out.append((c[1].tolist(), c[2].tolist(), c[3].tolist(), c[4][1].tolist(), c[2].data_ptr() == c[0].data_ptr(),
                        [type(x).__name__ for x in c[2:4]]))
    assert out[0] == out[1]

@pytest.mark.parametrize('dtype', ['float8_e5m2', 'float8_e4m3fn'])
def test_float8_views_save_like_torch(dtype):
    # a strided view of a float8 tensor (its storage spans more than it) saves and loads as in torch
    out = []
    for lib in (litnn, torch):
        x = lib.arange(0.0, 10.0).to(getattr(lib, dtype))
        back = roundtrip({'x': x, 'odd': x[1::2], 'even': x[0::2]}, lib)
        back['odd'][0] = lib.tensor(0.25, dtype=getattr(lib, dtype))   # views of one storage, as torch's
        out.append({k: (str(v.dtype).split('.')[-1], v.stride(), v.float().tolist()) for k, v in back.items()})
    assert out[0] == out[1] and out[0]['x'][2][1] == 0.25


def test_serialization_settings_as_torch():
    "torch.serialization's constants and settings: the same values, defaults, checks and context-manager behaviour."
    import mmap, numpy
    for lib in (litnn, torch):
        S = lib.serialization
        assert (S.DEFAULT_PROTOCOL, S.PROTOCOL_VERSION, S.MAGIC_NUMBER, S.INT_SIZE, S.SHORT_SIZE) == (2, 1001, 0x1950a86a20f9469cfc6c, 4, 2)
        assert [e.name for e in S.LoadEndianness] == ['NATIVE', 'LITTLE', 'BIG'] and S.get_default_load_endianness() is None
        S.set_default_load_endianness(S.LoadEndianness.LITTLE); assert S.get_default_load_endianness() is S.LoadEndianness.LITTLE
        S.set_default_load_endianness(None)
        with pytest.raises(TypeError, match='Invalid argument type'): S.set_default_load_endianness('little')
        assert S.get_crc32_options() is True and S.get_default_mmap_options() == mmap.MAP_PRIVATE
        with S.set_default_mmap_options(mmap.MAP_SHARED): assert S.get_default_mmap_options() == mmap.MAP_SHARED
        assert S.get_default_mmap_options() == mmap.MAP_PRIVATE
        with pytest.raises(ValueError, match='expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got 7'): S.set_default_mmap_options(7)
        assert S.check_module_version_greater_or_equal(numpy, (1, 20)) and not S.check_module_version_greater_or_equal(numpy, (99,))


@pytest.mark.parametrize('value', [1 + 2j, complex(float('inf'), float('nan')), bytearray(b'ab\x00'), {'m': [3j, bytearray()]}], ids=repr)
def test_complex_numbers_and_bytearrays_round_trip_like_torch(value, tmp_path):
    "torch saves a Python complex (a complex tensor's `.item()`) and a bytearray and loads them with weights_only: so does litnn."
    out = []
    for lib in (torch, litnn):
        lib.save(value, tmp_path / 'x.pt'); out.append(lib.load(tmp_path / 'x.pt'))
    assert repr(out[1]) == repr(out[0]) and type(out[1]) is type(out[0])

def test_a_bad_complex_record_is_refused():
    "A complex record whose parts are not floats is a bad file, refused with its name (what the decoder reads after the checksums)."
    from litnn._checkpoint_records import _decode
    with pytest.raises(Exception, match='bad.pt'): _decode({"type": "complex", "real": 0.0, "imag": "x"}, [], 'bad.pt')
    with pytest.raises(Exception, match='bad.pt'): _decode({"type": "complex", "real": 0.0}, [], 'bad.pt')
    assert _decode({"type": "complex", "real": 0.0, "imag": {"type": "float", "value": "nan"}}, [], 'ok.pt').imag != 0



def test_load_refuses_a_file_object_that_cannot_seek_or_tell_as_torch():
    # test_serialization.py's test_load_error_msg: torch.load names the missing method (seek first, then tell)
    class Reader:
        def __init__(self): self.b = io.BytesIO(b'data')
        def read(self, *a): return self.b.read(*a)
    class ReaderSeek(Reader):
        def seek(self, *a): return self.b.seek(*a)
    for obj in (Reader(), ReaderSeek(), 5):
        msgs = []
        for lib in (torch, litnn):
            with pytest.raises(AttributeError) as e: lib.load(obj)
            msgs.append(str(e.value).replace('litnn', 'torch'))
        assert msgs[0] == msgs[1]


def test_save_refuses_one_memory_viewed_as_two_dtypes_as_torch():
    # test_serialization.py's test_save_different_dtype_error: torch.save refuses tensors/storages over one storage with
    # different dtypes (nothing written); numpy arrays (pickled as copies) and empty tensors are not affected
    import warnings
    for lib, kw in ((torch, {}), (litnn, {}), (litnn, {'format': 'torch'})):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            a = lib.randn(10, dtype=lib.complex128)
            f = lib.randn(10)
            s_bytes = lib.TypedStorage(wrap_storage=f.storage().untyped(), dtype=lib.uint8)
            for obj in ([a, a.imag], [a.storage(), a.imag], [a, a.imag.storage()], [f, s_bytes], [f.storage(), s_bytes]):
                b = io.BytesIO()
                with pytest.raises(RuntimeError, match='Cannot save multiple tensors or storages that view the same data as different types'):
                    lib.save(obj, b, **kw)
            n = np.arange(4.)
            for obj in ([a.real, a.imag], [n, n.view(np.int64)], [lib.tensor([]), lib.tensor([], dtype=lib.int8)]):
                lib.save(obj, io.BytesIO(), **kw)

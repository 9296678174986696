"""Misuse of the nn.Module API and its neighbours (devices, Parameter and its lazy placeholders, nn.init, containers,
save/load), litnn against torch 2.13 on the same calls: the same exception type and message, and the object unchanged
after the error. Each case is one expression over `L` (the library). The sweep that found the differences (about 2,350
misuse cases over Module, hooks, containers, optimizers, schedulers, data loading and checkpoints): /work/w/adv2/sweep.py."""
import io, os
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')


def outcome(lib, code, **ns):
    "('ok', '') or (exception type name, message) of evaluating `code` with `L` the library, litnn's name read as torch's."
    try: eval(code, {'L': lib, 'np': np, 'io': io, **ns}); return 'ok', ''
    except Exception as e: return type(e).__name__, str(e).replace('litnn', 'torch')


def same(code, **ns):
    t, l = outcome(torch, code, **ns), outcome(litnn, code, **ns)
    assert l == t, f'torch: {t}\nlitnn: {l}'
    return t


# --- the cases that differed ------------------------------------------------------------------------------------

@pytest.mark.parametrize('bad', ["'yes'", 'None', '1', '0', '1.0', 'L.tensor(True)', '[]'])
def test_requires_grad_flag_not_bool(bad):
    # torch's C++ signature names the argument requires_grad (its .pyi stub says mode, which the parser never shows)
    assert same(f'L.zeros(1).requires_grad_({bad})')[1].startswith("requires_grad_(): argument 'requires_grad' (position 1)")
    for lib in (torch, litnn):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(TypeError): m.requires_grad_(eval(bad, {'L': lib}))
        assert all(p.requires_grad for p in m.parameters())
    same(f'L.nn.Linear(2, 2).requires_grad_({bad})')


@pytest.mark.parametrize('code', ['L.device(-1)', "L.device('cpu', -1)", "L.device('cuda', -2)", 'L.zeros(1, device=-1)',
                                  'L.zeros(1).to(-1)', 'L.zeros(1).cuda(-1)', 'L.nn.Linear(2, 2).to(-1)', 'L.nn.Linear(2, 2).cuda(-3)',
                                  "L.zeros(1).cuda('cpu')", "L.nn.Linear(2, 2).cuda('cpu')", "L.zeros(1).cuda('meta')",
                                  'L.zeros(1).cuda(1.5)', 'L.zeros(1).cuda([0])', "L.device('cuda:-1')"])
def test_bad_device_index_or_type(code):
    # a negative index is refused before anything asks for an accelerator; Tensor.cuda refuses a non-CUDA device itself
    assert same(code)[0] in ('RuntimeError', 'TypeError')


@pytest.mark.skipif(litnn.cuda.is_available(), reason='an index names the accelerator: with one, cuda(0) works')
@pytest.mark.parametrize('code', ['L.zeros(1).cuda(0)', 'L.nn.Linear(2, 2).cuda(0)', 'L.device(0)', 'L.zeros(1).to(0)'])
def test_an_index_without_accelerator(code):
    assert same(code) == ('RuntimeError', 'Cannot access accelerator device when none is available.')


def test_module_left_unchanged_by_a_bad_device():
    for lib in (torch, litnn):
        m = lib.nn.Linear(2, 2)
        before = {k: v.clone() for k, v in m.state_dict().items()}
        for bad in (-1, 'cpu', 1.5):
            with pytest.raises((RuntimeError, TypeError)): m.cuda(bad)
        assert all(v.device.type == 'cpu' and v.dtype == before[k].dtype and v.equal(before[k]) for k, v in m.state_dict().items())


@pytest.mark.parametrize('cls', ['UninitializedParameter', 'UninitializedBuffer'])
@pytest.mark.parametrize('bad', ['[1., 2.]', '3', '3.0', 'None', 'np.ones(2)', 'L.ones(2)', "'s'", '()'])
def test_lazy_placeholder_requires_grad_not_bool(cls, bad):
    # torch makes both with Tensor._make_subclass, whose flag is a bool
    assert same(f'L.nn.{cls}({bad})')[0] == 'TypeError'


@pytest.mark.parametrize('fn', ['eye_', 'orthogonal_', 'dirac_', 'sparse_', 'trunc_normal_'])
@pytest.mark.parametrize('bad', ['[1., 2.]', 'None', 'np.ones((2, 3))', 'np.ones((2, 3, 4))'])
def test_init_of_a_non_tensor(fn, bad):
    # torch asks tensor.ndimension() (trunc_normal_: tensor.is_meta) first: the AttributeError names that attribute
    extra = ', 0.5' if fn == 'sparse_' else ''
    assert same(f'L.nn.init.{fn}({bad}{extra})')[0] == 'AttributeError'


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_orthogonal_of_16_bit_floats(dtype):
    # the QR factorization has no 16-bit kernel in torch
    assert same(f'L.nn.init.orthogonal_(L.empty(2, 3, dtype=L.{dtype}))')[0] == 'NotImplementedError'


@pytest.mark.parametrize('fn', ['trunc_normal_', 'orthogonal_'])
def test_init_of_a_meta_tensor_is_a_no_op(fn):
    for lib in (torch, litnn):
        t = lib.empty(2, 3, device='meta')
        assert getattr(lib.nn.init, fn)(t) is t and t.shape == (2, 3)


@pytest.mark.parametrize('fn', ['xavier_uniform_', 'xavier_normal_'])
@pytest.mark.parametrize('gain', ['None', "'x'", '[1]'])
def test_xavier_bad_gain(fn, gain):
    assert same(f'L.nn.init.{fn}(L.empty(2, 3), gain={gain})')[0] == 'TypeError'


@pytest.mark.parametrize('key', ['slice(0, 2)', '[0]', '{}', '0', '1.5', 'None'])
def test_parameterdict_bad_key(key):
    # an unhashable key fails as torch's dict of keys does; litnn leaves no half-added key behind (torch keeps int keys)
    same(f'L.nn.ParameterDict({{"a": L.ones(1)}}).__setitem__({key}, L.ones(2))')
    p = litnn.nn.ParameterDict({'a': litnn.ones(1)})
    with pytest.raises(TypeError): p[eval(key)] = litnn.ones(2)
    assert list(p.keys()) == ['a'] and len(p) == 1 and [n for n, _ in p.named_parameters()] == ['a']


def test_save_with_an_impossible_pickle_protocol(tmp_path):
    for lib in (torch, litnn):
        with pytest.raises(ValueError, match=r'^pickle protocol must be <= 5$'):
            lib.save({'a': lib.ones(1)}, str(tmp_path / f'{lib.__name__}.pt'), pickle_protocol=99)
    assert not os.path.exists(tmp_path / 'litnn.pt')


def test_load_from_a_text_file():
    assert same("L.load(io.StringIO('x'))") == ('AssertionError', 'Expected bytes, got str')


# --- what already held, kept so: the sweep's representative misuse, checked the same way ------------------------

REGISTRATION = [f"L.nn.Linear(2, 2).{meth}({name}, {value})"
                for meth in ['register_buffer', 'register_parameter', 'add_module', 'register_module']
                for name in ["''", "'a.b'", "'weight'", "'training'", '1', 'None']
                for value in ['None', 'L.zeros(2)', 'L.nn.Parameter(L.zeros(2))', 'L.nn.ReLU()', '3']]


@pytest.mark.parametrize('code', REGISTRATION)
def test_registration_with_bad_names_and_values(code):
    same(code)


SETATTR = [("m.register_buffer('b', L.zeros(2))", "m.b = L.nn.Parameter(L.ones(2))"), ('', 'm.weight = L.ones(2, 2)'),
           ('', 'm.weight = 3'), ('', 'm.weight = L.nn.ReLU()'), ("m.register_buffer('b', L.zeros(2))", 'm.b = 3'),
           ("m.register_buffer('b', L.zeros(2))", 'm.b = L.nn.ReLU()'), ('m.c = L.nn.ReLU()', 'm.c = 3'),
           ('m.c = L.nn.ReLU()', 'm.c = L.ones(1)'), ('', "m.training = 'x'"), ('', 'del m.nope'), ('', 'del m.weight; del m.weight')]


@pytest.mark.parametrize('pre,code', SETATTR)
def test_setattr_over_members(pre, code):
    def run(lib):
        m = lib.nn.Linear(2, 2)
        if pre: exec(pre, {'L': lib, 'm': m})
        keys = sorted(m.state_dict())
        try: exec(code, {'L': lib, 'm': m}); err = ('ok', '')
        except Exception as e: err = (type(e).__name__, str(e).replace('litnn', 'torch'))
        return err, keys, sorted(m.state_dict()), sorted(m._modules)
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('path', ["''", "'1.1.running_mean'", "'0.weight.x'", "'0.nope'", "'1.5'", "'0.'", "'w'", "'b.x'", 'None', '0'])
@pytest.mark.parametrize('meth', ['get_submodule', 'get_parameter', 'get_buffer'])
def test_get_by_bad_path(meth, path):
    net = lambda L: L.nn.Sequential(L.nn.Linear(2, 2), L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2)))
    t, l = outcome(torch, f'm.{meth}({path})', m=net(torch)), outcome(litnn, f'm.{meth}({path})', m=net(litnn))
    assert l == t, f'torch: {t}\nlitnn: {l}'


@pytest.mark.parametrize('mode', ["'x'", 'None', '0', '1', 'L.tensor(False)', "mode='eval'"])
def test_train_with_a_non_bool(mode):
    assert same(f'L.nn.Linear(2, 2).train({mode})')[0] == 'ValueError'


@pytest.mark.parametrize('code', ['L.nn.Sequential(L.nn.ReLU())[3]', 'L.nn.Sequential(L.nn.ReLU())[1.0]', "L.nn.ModuleList([L.nn.ReLU()]).insert(0, 3)",
                                  'L.nn.ModuleList([L.nn.ReLU()]).extend(3)', 'L.nn.ModuleList([L.nn.ReLU()])[-2]',
                                  "L.nn.ModuleDict({'a': L.nn.ReLU()})['z']", "L.nn.ModuleDict({'a': L.nn.ReLU()}).update(3)",
                                  "L.nn.ParameterList([L.ones(1)])[5]", "L.nn.ParameterDict({'a': L.ones(1)})[0]",
                                  'L.nn.Sequential(3)', 'L.nn.ModuleList([3])', "L.nn.ModuleDict({'a.b': L.nn.ReLU()})",
                                  'L.optim.SGD([], lr=0.1)', 'L.optim.SGD([L.nn.Parameter(L.ones(1))], lr=-1)',
                                  'L.optim.Adam([L.nn.Parameter(L.ones(1))], betas=(1.0, 0.9))', 'L.optim.Adam(L.ones(2, requires_grad=True))',
                                  'L.utils.data.DataLoader(range(4), batch_size=0)', 'L.utils.data.DataLoader(range(4), sampler=[0], shuffle=True)',
                                  'L.utils.data.DataLoader(range(4), num_workers=-1)', "L.utils.data.DataLoader(range(4), drop_last='x')",
                                  'L.nn.Parameter([1., 2.])', 'L.nn.Parameter(L.tensor([1, 2]))'])
def test_neighbours_misuse(code):
    same(code)


OPTIMIZERS = ['SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adamax', 'NAdam', 'RAdam', 'Adadelta', 'ASGD', 'Rprop', 'SparseAdam']


@pytest.mark.parametrize('name', OPTIMIZERS)
def test_step_with_state_of_another_shape(name):
    # a parameter's .data replaced after a step: torch's first in-place update on the old state fails; litnn's array steps
    # broadcast, refused in numpy's words, or (Adam's compiled kernel) updated part of the parameter; now torch's error,
    # raised before anything changes
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        kw = {'momentum': 0.9} if name in ('SGD', 'RMSprop') else {}
        opt = getattr(lib.optim, name)([p], lr=0.1, **kw)
        sparse = name == 'SparseAdam'
        p.grad = lib.ones(2).to_sparse() if sparse else lib.ones(2); opt.step()
        p.data = lib.ones(3); p.grad = lib.ones(3).to_sparse() if sparse else lib.ones(3)
        try: opt.step(); return 'ok', p.tolist()
        except Exception as e: return type(e).__name__, str(e), p.tolist()
    t, l = run(torch), run(litnn)
    assert l[:2] == t[:2]
    if l[0] != 'ok': assert l[2] == [1., 1., 1.]


def test_optimizer_state_loaded_from_another_model():
    def run(lib):
        a, b = lib.nn.Linear(2, 3), lib.nn.Linear(3, 3)
        oa = lib.optim.Adam(a.parameters(), lr=0.1)
        a(lib.ones(1, 2)).sum().backward(); oa.step()
        ob = lib.optim.Adam(b.parameters(), lr=0.1)
        ob.load_state_dict(oa.state_dict())
        b(lib.ones(1, 3)).sum().backward()
        with pytest.raises(RuntimeError) as e: ob.step()
        return str(e.value)
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('kw', ['sampler=[7]', 'sampler=[0, -9]', 'batch_sampler=[[0, 9]]', 'batch_size=2, sampler=[1, 4]'])
def test_loader_index_out_of_range(kw):
    # the one-indexing-per-tensor fast path of TensorDataset batches leaves an out-of-range index to the per-sample path
    same(f'list(L.utils.data.DataLoader(L.utils.data.TensorDataset(L.arange(4.), L.arange(4)), {kw}))')


@pytest.mark.parametrize('cls', ['UninitializedParameter', 'UninitializedBuffer'])
@pytest.mark.parametrize('args', ["L.ones(2), 'nope'", '3, dtype=3', 'True, dtype=L.int64', "3, 'meta'"])
def test_lazy_placeholder_checks_device_and_dtype_first(cls, args):
    same(f'L.nn.{cls}({args})')


@pytest.mark.parametrize('code', ['R.pack_padded_sequence([1, 2], [2])', 'R.pack_padded_sequence(None, [2])',
                                  'R.pad_sequence([L.ones(2), L.ones(2, 3)])', 'R.pad_sequence([1, 2])', 'R.pad_sequence([L.ones(2, 3), 1])',
                                  'R.pad_sequence([L.ones(2, 3), L.ones(2, 4)])', 'R.pad_sequence([L.ones(2, 3), L.ones(2, 4, 3)])',
                                  'R.pad_sequence([L.ones(2, 3, 4), L.ones(2, 4)])'])
def test_rnn_utils_misuse(code):
    # torch's C++ takes tensors (TypeError naming the argument) and copies each sequence into a slot of the first's shape
    t = outcome(torch, code, R=torch.nn.utils.rnn)
    assert outcome(litnn, code, R=litnn.nn.utils.rnn) == t and t[0] != 'ok'


@pytest.mark.parametrize('result', ['3', 'None', '[t]', "'s'"])
def test_apply_of_a_conversion_that_returns_no_tensor(result):
    # torch's _has_compatible_shallow_copy_type refuses it before the parameter changes
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2))
        before = m[0].weight.detach().clone()
        try: m._apply(lambda t: eval(result, {'t': t})); err = ('ok', '')
        except Exception as e: err = (type(e).__name__, str(e))
        return err, type(m[0].weight).__name__, m[0].weight.detach().equal(before)
    assert run(litnn) == run(torch)

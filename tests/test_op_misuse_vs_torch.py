"Tensor functions called with wrong or edge arguments, run by the same code on real torch and litnn: the same exception type and message, or the same result."
import io, warnings
import numpy as np, pytest, torch
import litnn

def _run(case, lib):
    "('ok', dtype, shape, values) for a tensor, ('ok', value) for anything else, or ('err', exception type name, message)."
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = case(lib)
    except Exception as e:
        return ('err', type(e).__name__, str(e).replace('litnn', 'torch'))
    return ('ok', _plain(r))

def _plain(r):
    "A result as plain Python: a tensor as (dtype, shape, values), tuples and lists item by item."
    if isinstance(r, (torch.Tensor, litnn.Tensor)): return (str(r.dtype).split('.')[-1], tuple(r.shape), r.detach().tolist())
    if isinstance(r, (tuple, list)) and not isinstance(r, (torch.Size, litnn.Size)): return [_plain(x) for x in r]
    return tuple(r) if isinstance(r, (torch.Size, litnn.Size)) else r

def _same(case):
    t, l = _run(case, torch), _run(case, litnn)
    assert l[:2] == t[:2], (t, l)    # outcome and exception type (or result) first
    assert l == t

def _grid(lib, shape=(2, 3), dt='float32'): return lib.arange(np.prod(shape), dtype=getattr(lib, dt)).reshape(shape)

# --- sizes and bounds that must be refused: numpy would answer with an empty or wrapped result
REFUSED = {
    'split_with_sizes negative size that still sums': lambda L: _grid(L).split([4, -1], 1),
    'split_with_sizes negative size checked before the sum': lambda L: _grid(L).split([1, -1], 1),
    'tril_indices negative row': lambda L: L.tril_indices(-1, 4),
    'triu_indices negative col': lambda L: L.triu_indices(3, -2),
    'randint high past uint8': lambda L: L.randint(0, 300, (3,), dtype=L.uint8),
    'randint low below int8': lambda L: L.randint(-200, 0, (3,), dtype=L.int8),
    'randint low below uint8': lambda L: L.randint(-1, 1, (3,), dtype=L.uint8),
    'randint bool past 1': lambda L: L.randint(3, (3,), dtype=L.bool),
    'randint int16 checked on an empty size': lambda L: L.randint(0, 70000, (0,), dtype=L.int16),
    'randint float16 past its range': lambda L: L.randint(0, 70000, (2,), dtype=L.float16),
    'randint from >= to checked first': lambda L: L.randint(5, 5, (2,), dtype=L.uint8),
    'random_ int8 past its range': lambda L: L.zeros(2, dtype=L.int8).random_(0, 300),
    'randperm bool': lambda L: L.randperm(3, dtype=L.bool),
    'randperm bool of none': lambda L: L.randperm(0, dtype=L.bool),
    'randperm complex': lambda L: L.randperm(3, dtype=L.complex64),
    'randperm negative before dtype': lambda L: L.randperm(-1, dtype=L.bool),
    'normal numbers int64 dtype': lambda L: L.normal(0., 1., (2,), dtype=L.int64),
    'normal int64 mean tensor': lambda L: L.normal(L.zeros(2, dtype=L.int64), 1.),
    'normal int32 std tensor': lambda L: L.normal(0., L.ones(2, dtype=L.int32)),
    'normal_ int64': lambda L: L.zeros(2, dtype=L.int64).normal_(),
    'arange to a complex end': lambda L: L.arange(1j),
    'arange of a complex step': lambda L: L.arange(0, 3, 1 + 2j),
    'arange to a complex 0-d tensor': lambda L: L.arange(L.tensor(3 + 1j)),
}
# a mask of another dtype than bool is named by its C++ type, as torch's kernel names it
for d in ['uint8', 'int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'float16', 'bfloat16', 'complex64']:
    REFUSED[f'masked_fill with a {d} mask'] = lambda L, d=d: L.ones(3).masked_fill(L.ones(3, dtype=getattr(L, d)), 0.)
# numpy arrays of dtypes no tensor has: refused with from_numpy's message, also when dtype= asks for a conversion
for d in ['object', '<U1', 'datetime64[s]']:
    for how in ['tensor', 'as_tensor', 'from_numpy']:
        REFUSED[f'{how} of a numpy {d} array'] = lambda L, d=d, how=how: getattr(L, how)(np.arange(6).astype(d).reshape(2, 3))
    REFUSED[f'as_tensor of a numpy {d} array with dtype='] = lambda L, d=d: L.as_tensor(np.arange(6).astype(d), dtype=L.float32)
    REFUSED[f'tensor of a numpy {d} array with dtype='] = lambda L, d=d: L.tensor(np.arange(6).astype(d), dtype=L.float64)
for d in ['>f4', '>i2']:     # byte order is its own error, a ValueError
    REFUSED[f'tensor of a numpy {d} array'] = lambda L, d=d: L.tensor(np.arange(6).astype(d))
    REFUSED[f'from_numpy of a numpy {d} array'] = lambda L, d=d: L.from_numpy(np.arange(6).astype(d))

@pytest.mark.parametrize('name', list(REFUSED))
def test_refused_as_torch(name): _same(REFUSED[name])

# --- the neighbours of those cases that must still work
ACCEPTED = {
    'split_with_sizes zeros': lambda L: _grid(L).split([0, 3], 1),
    'tril_indices zero rows': lambda L: L.tril_indices(0, 4),
    'randint uint8 up to 256': lambda L: L.randint(0, 256, (300,), dtype=L.uint8).shape,
    'randint int8 from -128': lambda L: L.randint(-128, -127, (3,), dtype=L.int8),
    'randint bool 0..1': lambda L: L.randint(0, 1, (3,), dtype=L.bool),
    'randint float32 wide': lambda L: L.randint(0, 2 ** 30, (3,), dtype=L.float32).shape,
    'randperm float': lambda L: L.randperm(4, dtype=L.float32).sort()[0],
    'normal of no elements in int64': lambda L: L.normal(0., 1., (0,), dtype=L.int64),
    'normal complex': lambda L: L.normal(0., 1., (2,), dtype=L.complex64).shape,
    'as_tensor of a numpy uint16 array with dtype=': lambda L: L.as_tensor(np.arange(3).astype('uint16'), dtype=L.float32),
    'tensor of a numpy float16 array': lambda L: L.tensor(np.arange(3).astype('float16')),
    'arange to a complex end with no imaginary part': lambda L: L.arange(3 + 0j),
    'arange of a complex step with no imaginary part': lambda L: L.arange(0, 3, 1 + 0j),
    'arange to a complex 0-d tensor with no imaginary part': lambda L: L.arange(L.tensor(3 + 0j)),
}

@pytest.mark.parametrize('name', list(ACCEPTED))
def test_accepted_as_torch(name): _same(ACCEPTED[name])

# --- out= under autograd: refused only where autograd would record something. Ops with no derivative take inputs and an
# out that require grad; those whose result is not differentiable check out alone, under their aten:: name.
def _out_call(fn, which):
    def case(L):
        x = L.tensor([1., 2., 3.], requires_grad=which == 'input')
        o = L.zeros(0, dtype=L.int64) if fn in ('argmax', 'searchsorted', 'bucketize', 'nonzero') else L.zeros(3, requires_grad=which == 'out')
        args = {'logical_not': (x,), 'argmax': (x,), 'nonzero': (x,), 'floor': (x,), 'exp': (x,),
                'searchsorted': (x, x), 'bucketize': (x, x)}.get(fn, (x, x))
        getattr(L, fn)(*args, out=o)
        return o
    return case
OUT_GRAD = {f'{fn} out= with {which} requiring grad': _out_call(fn, which)
            for fn in ['eq', 'ne', 'lt', 'ge', 'greater', 'logical_and', 'logical_not', 'argmax', 'searchsorted', 'bucketize',
                       'nonzero', 'floor_divide', 'heaviside', 'remainder', 'mul', 'floor', 'exp']
            for which in ['input', 'out']}
OUT_GRAD['bitwise_and out= requiring grad'] = lambda L: L.bitwise_and(L.tensor([1, 2]), 1, out=L.zeros(2, requires_grad=True))

@pytest.mark.parametrize('name', list(OUT_GRAD))
def test_out_under_autograd_as_torch(name): _same(OUT_GRAD[name])

# --- Python ints beyond int64, where torch's parser reads a C long long: ValueError for one int; for an element of a
# list of ints, the list's TypeError (its message then carries a C++ backtrace: compared up to it)
_BIG = 2 ** 63
PAST_INT64 = {
    'topk k': lambda L: L.topk(L.arange(6.), 10 ** 20),
    'topk k below int64': lambda L: L.topk(L.arange(6.), -10 ** 20),
    'kthvalue k': lambda L: L.kthvalue(L.arange(6.), _BIG),
    'topk dim': lambda L: L.arange(6.).topk(1, _BIG),
    'cumsum dim': lambda L: L.ones(2).cumsum(_BIG),
    'softmax dim': lambda L: L.ones(2).softmax(_BIG),
    'unsqueeze dim': lambda L: L.arange(6).unsqueeze(_BIG),
    'select index': lambda L: L.arange(6).select(0, _BIG),
    'transpose dim': lambda L: L.ones(2, 2).transpose(0, _BIG),
    'flatten start_dim': lambda L: L.ones(2, 2).flatten(_BIG),
    'chunk chunks': lambda L: L.arange(6).chunk(_BIG),
    'roll shifts': lambda L: L.arange(6).roll(_BIG),
    'linspace steps': lambda L: L.linspace(0, 1, _BIG),
    'eye n': lambda L: L.eye(_BIG),
    'diagonal offset': lambda L: L.ones(2, 2).diagonal(_BIG),
    'diag diagonal': lambda L: L.ones(2, 2).diag(_BIG),
    'max_pool1d kernel_size': lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 4), _BIG),
    'reshape size': lambda L: L.arange(6.).reshape(_BIG, 2),
    'repeat repeats': lambda L: L.arange(2).repeat(_BIG),
    'permute dims': lambda L: L.ones(2, 2).permute(0, _BIG),
    'max_pool1d kernel_size list': lambda L: L.nn.functional.max_pool1d(L.ones(1, 1, 4), (_BIG,)),
}

@pytest.mark.parametrize('name', list(PAST_INT64))
def test_ints_past_int64_as_torch(name):
    t, l = _run(PAST_INT64[name], torch), _run(PAST_INT64[name], litnn)
    assert t[0] == 'err' and l[:2] == t[:2], (t, l)
    assert l[2] == t[2].split('\nException raised from')[0] + ('"' if '\nException raised from' in t[2] else ''), (t, l)

# --- a Python int read into torch's Scalar: an int64, else a uint64; past both, pybind11's OverflowError
SCALAR_PAST_UINT64 = {
    'float + 2**64': lambda L: L.ones(2) + 2 ** 64,
    'float + below int64': lambda L: L.ones(2) + (-2 ** 63 - 1),
    'float - below int64': lambda L: L.ones(2) - (-2 ** 63 - 1),
    'float * 2**64': lambda L: L.ones(2) * 2 ** 64,
    'float add below int64': lambda L: L.ones(2).add(-2 ** 63 - 1),
    'int64 + 2**64': lambda L: L.ones(2, dtype=L.int64) + 2 ** 64,
    'int64 + below int64': lambda L: L.ones(2, dtype=L.int64) + (-2 ** 63 - 1),
    'float > 2**64': lambda L: L.ones(2) > 2 ** 64,
    'float ** 2**64': lambda L: L.ones(2) ** 2 ** 64,
    'pow below int64': lambda L: L.ones(2).pow(-2 ** 63 - 1),
    'clamp max 2**64': lambda L: L.ones(2).clamp(max=2 ** 64),
    'full float32 2**64': lambda L: L.full((2,), 2 ** 64, dtype=L.float32),
    'full float32 below int64': lambda L: L.full((2,), -2 ** 63 - 1, dtype=L.float32),
    'fill_ 2**64': lambda L: L.ones(2).fill_(2 ** 64),
    'fill_ below int64': lambda L: L.ones(2).fill_(-2 ** 63 - 1),
    'masked_fill 2**64': lambda L: L.ones(2).masked_fill(L.tensor([True, False]), 2 ** 64),
    'where 2**64': lambda L: L.where(L.tensor([True]), L.ones(1), 2 ** 64),
    'scalar_tensor below int64': lambda L: L.scalar_tensor(-2 ** 63 - 1),
    'scalar_tensor 2**64': lambda L: L.scalar_tensor(2 ** 64),
    # and the neighbours that still work: a uint64 Scalar into a float, an int64 one wrapping as torch's
    'float * 2**63': lambda L: L.ones(2) * 2 ** 63,
    'float + 2**64 - 1': lambda L: L.ones(2, dtype=L.float64) + (2 ** 64 - 1),
    'int64 + 2**63 wraps': lambda L: L.ones(2, dtype=L.int64) + 2 ** 63,
}

@pytest.mark.parametrize('name', list(SCALAR_PAST_UINT64))
def test_scalar_ints_past_uint64_as_torch(name): _same(SCALAR_PAST_UINT64[name])

# --- an int index past int64, and arange's integer bounds (torch's Scalar, then its int64)
INDEX_AND_ARANGE_PAST_INT64 = {
    'index 2**63': lambda L: L.arange(6.)[2 ** 63],
    'index below int64': lambda L: L.arange(6.)[-2 ** 63 - 1],
    'index in a tuple': lambda L: L.ones(2, 2)[0, 2 ** 63],
    'index after ...': lambda L: L.ones(2, 2)[..., -2 ** 63 - 1],
    'setitem index 2**63': lambda L: L.arange(6).__setitem__(2 ** 63, 1),
    'index int64 max is out of bounds': lambda L: L.ones(2)[2 ** 63 - 1],
    'arange to 2**63': lambda L: L.arange(2 ** 63),
    'arange step past int64': lambda L: L.arange(0, 2 ** 63, 2 ** 62),
    'arange to 2**64': lambda L: L.arange(2 ** 64),
    'arange from below int64': lambda L: L.arange(-2 ** 63 - 1, 0),
    'arange float start to 2**64': lambda L: L.arange(0., 2 ** 64),
}

@pytest.mark.parametrize('name', list(INDEX_AND_ARANGE_PAST_INT64))
def test_index_and_arange_past_int64_as_torch(name): _same(INDEX_AND_ARANGE_PAST_INT64[name])

# --- required arguments left out: torch's parser's words ("1 required positional arguments", names in double quotes)
MISSING = {
    'cumsum method without dim': lambda L: L.ones(2).cumsum(),
    'cumsum without dim': lambda L: L.cumsum(L.ones(2)),
    'cumsum without anything': lambda L: L.cumsum(),
    'softmax method without dim': lambda L: L.ones(2).softmax(),
    'log_softmax without dim': lambda L: L.log_softmax(L.ones(2)),
    'logsumexp without dim': lambda L: L.logsumexp(L.ones(2)),
    'topk without k': lambda L: L.topk(L.ones(2)),
    'transpose with one dim': lambda L: L.ones(2).transpose(0),
    'gather without dim and index': lambda L: L.gather(L.ones(2)),
    'zeros without size': lambda L: L.zeros(),
    'linspace without steps: several signatures': lambda L: L.linspace(0, 1),
}

@pytest.mark.parametrize('name', list(MISSING))
def test_missing_arguments_as_torch(name): _same(MISSING[name])

# --- size(dim) of a wrong type: the parser's message, named and positioned, checked before the rank
SIZE_DIM = {
    'size float dim': lambda L: L.ones(2).size(1.),
    'size float dim of a 0-d tensor': lambda L: L.tensor(1.).size(1.),
    'size bool dim': lambda L: L.ones(2).size(True),
    'size 0-d int tensor dim': lambda L: L.ones(2, 3).size(L.tensor(1)),
}

@pytest.mark.parametrize('name', list(SIZE_DIM))
def test_size_dim_as_torch(name): _same(SIZE_DIM[name])

# --- copy_ of a source that broadcasts to more than the destination: torch names the output's shape
COPY_INTO = {
    'copy_ into a smaller tensor': lambda L: L.zeros(3).copy_(L.ones(2, 3)),
    'copy_ into a tensor of a size-1 dim': lambda L: L.zeros(1, 3).copy_(L.ones(2, 1)),
    'copy_ of sizes that do not broadcast': lambda L: L.zeros(3).copy_(L.ones(2)),
    'copy_ broadcast into a bigger tensor': lambda L: L.zeros(2, 3).copy_(L.arange(3.)),
}

@pytest.mark.parametrize('name', list(COPY_INTO))
def test_copy_into_as_torch(name): _same(COPY_INTO[name])

# --- more ints past int64: names of several signatures (torch matches on types, then unpacks the chosen one's ints),
# the factories' sizes, F.pad's pad, split's size, a seed
PAST_INT64_UNPACKED = {
    'sum dim': lambda L: L.arange(6.).sum(_BIG),
    'sum dim keyword': lambda L: L.arange(6.).sum(dim=-_BIG - 1),
    'sum dim list': lambda L: L.arange(6.).sum([_BIG]),
    'narrow start': lambda L: L.arange(6).narrow(0, _BIG, 1),
    'view size': lambda L: L.arange(6.).view(_BIG),
    'view sizes': lambda L: L.arange(6.).view(2, _BIG),
    'randint high': lambda L: L.randint(0, _BIG, (2,)),
    'randint low': lambda L: L.randint(-_BIG - 1, 0, (2,)),
    'split size': lambda L: L.arange(6).split(_BIG),
    'zeros size': lambda L: L.zeros(_BIG),
    'zeros size tuple': lambda L: L.zeros((_BIG, 2)),
    'zeros size keyword': lambda L: L.zeros(size=(2, -_BIG - 1)),
    'ones second size': lambda L: L.ones(2, _BIG),
    'empty size': lambda L: L.empty(_BIG),
    'overflow named before a negative size': lambda L: L.zeros(-1, _BIG),
    'nn.Linear features': lambda L: L.nn.Linear(_BIG, 2),
    'F.pad': lambda L: L.nn.functional.pad(L.ones(2), (_BIG, 0)),
    'manual_seed 2**64': lambda L: L.manual_seed(2 ** 64),
    'manual_seed below int64': lambda L: L.manual_seed(-_BIG - 1),
}

@pytest.mark.parametrize('name', list(PAST_INT64_UNPACKED))
def test_ints_past_int64_unpacked_as_torch(name):
    t, l = _run(PAST_INT64_UNPACKED[name], torch), _run(PAST_INT64_UNPACKED[name], litnn)
    assert t[0] == 'err' and l[:2] == t[:2], (t, l)
    assert l[2] == t[2].split('\nException raised from')[0] + ('"' if '\nException raised from' in t[2] else ''), (t, l)

# --- and their neighbours that still work
INT64_EDGES_ACCEPTED = {
    'sum dim -1': lambda L: L.arange(6.).sum(-1),
    'view -1': lambda L: L.arange(6.).view(-1),
    'split of int64 max': lambda L: L.arange(6).split(2 ** 63 - 1),
    'zeros negative size still its own error': lambda L: L.zeros(-1, 2),
    'ones negative size': lambda L: L.ones(2, -3),
    'manual_seed 2**64 - 1': lambda L: L.manual_seed(2 ** 64 - 1).initial_seed(),
    'manual_seed -2**63': lambda L: L.manual_seed(-_BIG).initial_seed(),
}

@pytest.mark.parametrize('name', list(INT64_EDGES_ACCEPTED))
def test_int64_edges_accepted_as_torch(name): _same(INT64_EDGES_ACCEPTED[name])

# --- Python data for a uint64 tensor: each int unpacked as a uint64 (values past int64 kept exactly), pybind11's words
# past it, floats refused
UINT64_DATA = {
    '2**63': lambda L: L.tensor([2 ** 63], dtype=L.uint64),
    '2**64 - 1': lambda L: L.tensor([2 ** 64 - 1, 0], dtype=L.uint64),
    'nested past int64': lambda L: L.tensor([[2 ** 63], [1]], dtype=L.uint64),
    'scalar past int64': lambda L: L.tensor(2 ** 63 + 5, dtype=L.uint64),
    'bools and ints': lambda L: L.tensor([True, 2], dtype=L.uint64),
    'empty': lambda L: L.tensor([], dtype=L.uint64),
    '2**64': lambda L: L.tensor([2 ** 64], dtype=L.uint64),
    'negative': lambda L: L.tensor([-1], dtype=L.uint64),
    'negative after a big one': lambda L: L.tensor([2 ** 63, -1], dtype=L.uint64),
    'a float': lambda L: L.tensor([1.5], dtype=L.uint64),
    'a float scalar': lambda L: L.tensor(1.5, dtype=L.uint64),
    'a complex': lambda L: L.tensor([1 + 2j], dtype=L.uint64),
    'ragged': lambda L: L.tensor([[1, 2], [3]], dtype=L.uint64),
    'int64 past int64': lambda L: L.tensor([2 ** 63], dtype=L.int64),
    'uint32 past int64': lambda L: L.tensor([2 ** 63], dtype=L.uint32),
    'uint8 wraps a negative': lambda L: L.tensor([-1], dtype=L.uint8),
    'numpy uint64 array': lambda L: L.tensor(np.array([2 ** 63], dtype=np.uint64), dtype=L.uint64),
}

@pytest.mark.parametrize('name', list(UINT64_DATA))
def test_uint64_data_as_torch(name): _same(UINT64_DATA[name])

# --- factories given a first size that is not an int beside more positional arguments: no list of ints, so too many arguments
SIZES_SPREAD = {
    'zeros tuple then int': lambda L: L.zeros((2,), 3),
    'ones two tuples': lambda L: L.ones((1, 4), (1, 4)),
    'empty two lists': lambda L: L.empty([1], [2]),
    'zeros str then int': lambda L: L.zeros('a', 3),
    'zeros float then int': lambda L: L.zeros(2.0, 3),
    'zeros tuple then int with dtype': lambda L: L.zeros((2,), 3, dtype=L.float64),
    'zeros int then tuple: unpacking': lambda L: L.zeros(2, (3,)),
    'zeros one float': lambda L: L.zeros(2.0),
    'new_zeros tuple then int': lambda L: L.ones(1).new_zeros((2,), 3),
}

@pytest.mark.parametrize('name', list(SIZES_SPREAD))
def test_sizes_spread_as_torch(name): _same(SIZES_SPREAD[name])

# --- nn layers and modules given wrong arguments: the same exception, result (as text) and warnings as torch's
def _outcome(case, lib):
    "('ok', result as text) or ('err', type name, message), with the warnings raised on the way (category, message)."
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        try: r = ('ok', repr(_plain(case(lib))))
        except Exception as e: r = ('err', type(e).__name__, str(e))
    return tuple(x.replace('litnn', 'torch') for x in r), [(x.category.__name__, str(x.message).replace('litnn', 'torch')) for x in w]

def _same_outcome(case):
    t, l = _outcome(case, torch), _outcome(case, litnn)
    assert l[0][:2] == t[0][:2], (t, l)
    assert l == t

def _lin(L): L.manual_seed(0); return L.nn.Linear(2, 3)
NN_MISUSE = {
    # torch's Dropout modules compare p with the ints 0 and 1, its functions with 0.0 and 1.0
    'Dropout p a str': lambda L: L.nn.Dropout('0.5'),
    'Dropout2d p a str': lambda L: L.nn.Dropout2d('0.5'),
    'AlphaDropout p a str': lambda L: L.nn.AlphaDropout('0.5'),
    'F.dropout p a str': lambda L: L.nn.functional.dropout(L.ones(2), '0.5'),
    'Dropout p 1.5': lambda L: L.nn.Dropout(1.5),
    # a transposed convolution takes a padding string as its letters (torch's _pair), refused by the convolution itself
    'ConvTranspose2d padding same': lambda L: (lambda m: (repr(m), m.padding, list(m._reversed_padding_repeated_twice)))(L.nn.ConvTranspose2d(3, 6, 3, padding='same')),
    'ConvTranspose1d padding valid': lambda L: repr(L.nn.ConvTranspose1d(3, 6, 3, padding='valid')),
    'ConvTranspose2d padding same forward': lambda L: L.nn.ConvTranspose2d(3, 6, 3, padding='same')(L.ones(1, 3, 4, 4)),
    'Conv2d padding bad string': lambda L: L.nn.Conv2d(3, 6, 3, padding='bad'),
    'Conv2d padding same with stride 2': lambda L: L.nn.Conv2d(3, 6, 3, padding='same', stride=2),
    # (a bad padding_mode is not compared: torch prints a set of four whose order its installed .pyc fixed)
    'Conv2d padding_mode bad: the type': lambda L: pytest.raises(ValueError, L.nn.Conv2d, 3, 6, 3, padding_mode='bad').typename,
    'Conv2d groups not dividing in_channels': lambda L: L.nn.Conv2d(3, 6, 3, groups=2),
    'Conv2d groups 0': lambda L: L.nn.Conv2d(4, 6, 3, groups=0),
    'ConvTranspose2d padding_mode reflect': lambda L: L.nn.ConvTranspose2d(3, 6, 3, padding_mode='reflect'),
    # torch warns of an even kernel's 'same' padding in the convolution, not when the module is made
    'Conv2d even kernel padding same: no warning when made': lambda L: repr(L.nn.Conv2d(3, 6, 4, padding='same')),
    'module.to a complex dtype warns': lambda L: (lambda m: (m.to(L.complex64), str(m.weight.dtype))[1])(_lin(L)),
    'module.to an int dtype': lambda L: _lin(L).to(L.int64),
    'Linear(0, 3)': lambda L: (lambda m: (repr(m), tuple(m.weight.shape)))(L.nn.Linear(0, 3)),
    'Linear(-1, 3)': lambda L: L.nn.Linear(-1, 3),
    'Embedding padding_idx out of range': lambda L: L.nn.Embedding(5, 3, padding_idx=5),
    'Embedding padding_idx below': lambda L: L.nn.Embedding(5, 3, padding_idx=-6),
    'LSTM dropout with one layer warns': lambda L: repr(L.nn.LSTM(3, 4, dropout=0.5)),
    'LSTM dropout past 1': lambda L: L.nn.LSTM(3, 4, dropout=1.5),
    'LSTM proj_size not below hidden_size': lambda L: L.nn.LSTM(3, 4, proj_size=4),
    'MultiheadAttention embed_dim not divisible': lambda L: L.nn.MultiheadAttention(10, 3),
    'BatchNorm1d on a 4-d input': lambda L: L.nn.BatchNorm1d(3)(L.ones(2, 3, 4, 5)),
    'BatchNorm2d on a 3-d input': lambda L: L.nn.BatchNorm2d(3)(L.ones(2, 3, 4)),
    'BatchNorm1d one value per channel': lambda L: L.nn.BatchNorm1d(3)(L.ones(1, 3)),
    'Transformer d_model not divisible by nhead': lambda L: L.nn.Transformer(d_model=10, nhead=3),
    'Transformer src of another d_model': lambda L: (L.manual_seed(0), L.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8, dropout=0.)(L.ones(3, 2, 6), L.ones(3, 2, 8)))[1],
    'Transformer batch sizes differ': lambda L: (L.manual_seed(0), L.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8, dropout=0.)(L.ones(3, 2, 8), L.ones(3, 3, 8)))[1],
}

@pytest.mark.parametrize('name', list(NN_MISUSE))
def test_nn_misuse_as_torch(name): _same_outcome(NN_MISUSE[name])

# --- messages: numpy scalars of no tensor dtype (a top-level one by its numpy name; in a list, read as an array),
# a norm's order that is not a number, expand to a size below -1, meshgrid's order of checks
MESSAGES = {
    'tensor of a numpy str scalar': lambda L: L.tensor(np.str_('a')),
    'tensor of a numpy bytes scalar': lambda L: L.tensor(np.bytes_(b'a')),
    'tensor of numpy str scalars': lambda L: L.tensor([np.str_('ab'), np.str_('b')]),
    'tensor of a number and a numpy str scalar': lambda L: L.tensor([1, np.str_('a')]),
    'tensor of nested numpy str scalar': lambda L: L.tensor([[1], [np.str_('a')]]),
    'tensor of numpy bytes scalars': lambda L: L.tensor([np.bytes_(b'a')]),
    'tensor of numpy dates': lambda L: L.tensor([np.datetime64('2020-01-01'), np.datetime64('2020-01-02')]),
    'tensor of a number and a numpy date': lambda L: L.tensor([1, np.datetime64('2020-01-01')]),
    'tensor of numpy timedeltas': lambda L: L.tensor([np.timedelta64(1)]),
    'tensor of str': lambda L: L.tensor(['a', 1]),
    'tensor of a number and a str': lambda L: L.tensor([1, 'a']),
    'tensor of an object': lambda L: L.tensor([1, object()]),
    'norm of a tuple order': lambda L: L.norm(L.ones(2, 3), (0, 1)),
    'norm method of a list order': lambda L: L.ones(2).norm([0]),
    'vector_norm of a str order': lambda L: L.linalg.vector_norm(L.ones(2), 'x'),
    'vector_norm of None': lambda L: L.linalg.vector_norm(L.ones(2), None),
    'vector_norm of a 0-d tensor order': lambda L: L.linalg.vector_norm(L.ones(2), L.tensor(3.)),
    'vector_norm of a bool order': lambda L: L.linalg.vector_norm(L.ones(2), True),
    'expand a new dim to -2': lambda L: L.ones(1, 3).expand(-2, 3),
    'expand a size-1 dim to -2': lambda L: L.ones(2, 1).expand(2, -2),
    'expand to -5': lambda L: L.ones(1).expand(-5),
    'expand a dim of 3 to -2': lambda L: L.ones(3).expand(-2),
    'broadcast_to -2': lambda L: L.broadcast_to(L.ones(1, 3), (-2, 3)),
    'expand -1 kept': lambda L: L.ones(1, 3).expand(2, -1),
    'meshgrid dtype before rank': lambda L: L.meshgrid(L.ones(2, 2), L.ones(2, dtype=L.int64), indexing='ij'),
    'meshgrid dtype before indexing': lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.int64), indexing='bad'),
    'meshgrid indexing before rank': lambda L: L.meshgrid(L.ones(2, 2), L.ones(2), indexing='bad'),
    'meshgrid empty before indexing': lambda L: L.meshgrid([], indexing='bad'),
}

@pytest.mark.parametrize('name', list(MESSAGES))
def test_messages_as_torch(name): _same(MESSAGES[name])

# --- a numpy scalar stored into a uint64 tensor (inferred or asked for): torch takes a Python int only there
NUMPY_SCALARS_INTO_UINT64 = {
    'a numpy uint64': lambda L: L.tensor(np.uint64(1)),
    'numpy uint64s in a list': lambda L: L.tensor([np.uint64(1), np.uint64(2)]),
    'nested numpy uint64': lambda L: L.tensor([[np.uint64(1)]]),
    'a numpy uint64 past int64': lambda L: L.tensor(np.uint64(2 ** 63)),
    'a numpy uint64 with dtype uint64': lambda L: L.tensor(np.uint64(1), dtype=L.uint64),
    'a numpy int64 into uint64': lambda L: L.tensor([np.int64(3)], dtype=L.uint64),
    'a numpy float into uint64': lambda L: L.tensor([np.float32(1.)], dtype=L.uint64),
    'arrays of uint64 in a list': lambda L: L.tensor([np.array([1], dtype=np.uint64)]),
    'as_tensor of a numpy uint64': lambda L: L.as_tensor(np.uint64(5)),
    # and what still works: another dtype, a 0-d array, Python ints, other unsigned scalars
    'a numpy uint64 into float32': lambda L: L.tensor(np.uint64(1), dtype=L.float32),
    'numpy uint64s into int64': lambda L: L.tensor([np.uint64(1)], dtype=L.int64),
    'a 0-d uint64 array': lambda L: L.tensor(np.array(3, dtype=np.uint64)),
    'Python ints into uint64': lambda L: L.tensor([3], dtype=L.uint64),
    'a numpy uint32': lambda L: L.tensor(np.uint32(3)),
    'a numpy uint64 times a tensor': lambda L: L.ones(2) * np.uint64(3),
}

@pytest.mark.parametrize('name', list(NUMPY_SCALARS_INTO_UINT64))
def test_numpy_scalars_into_uint64_as_torch(name): _same(NUMPY_SCALARS_INTO_UINT64[name])

# --- scaled_dot_product_attention with attn_mask and is_causal: torch's math kernel refuses the pair, its CPU flash
# kernel (4-d inputs it takes) applies both
def _sdpa_both(shapes, **kw):
    def case(L):
        L.manual_seed(0)
        q, k, v, m = [L.randn(*s) for s in shapes]
        args = dict(kw)
        if args.pop('bool_mask', False): m = m > 0
        return L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=True, **args)
    return case
SDPA_MASK_AND_CAUSAL = {
    '4-d, float mask': _sdpa_both([(1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3)]),
    '4-d, bool mask': _sdpa_both([(1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3)], bool_mask=True),
    '4-d, longer keys': _sdpa_both([(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), (3, 5)]),
    '4-d, grouped heads': _sdpa_both([(1, 4, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3)], enable_gqa=True),
    '4-d, 4-d mask': _sdpa_both([(2, 2, 3, 4), (2, 2, 3, 4), (2, 2, 3, 4), (2, 2, 3, 3)]),
    '3-d: math refuses': _sdpa_both([(2, 3, 4), (2, 3, 4), (2, 3, 4), (3, 3)]),
    '2-d: math refuses': _sdpa_both([(3, 4), (3, 4), (3, 4), (3, 3)]),
    '4-d with dropout: math refuses': _sdpa_both([(1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3)], dropout_p=0.5),
    '4-d, value of another head dim: math refuses': _sdpa_both([(1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 6), (3, 3)]),
    '4-d, broadcast batch: math refuses': _sdpa_both([(2, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3)]),
}

@pytest.mark.parametrize('name', list(SDPA_MASK_AND_CAUSAL))
def test_sdpa_mask_and_causal_as_torch(name):
    t, l = _run(SDPA_MASK_AND_CAUSAL[name], torch), _run(SDPA_MASK_AND_CAUSAL[name], litnn)
    assert l[0] == t[0] and (t[0] == 'err' and l == t or np.allclose(l[1][2], t[1][2], atol=1e-5) and l[1][:2] == t[1][:2]), (t, l)

# --- nn.utils: clip_grad_value_ with no gradient at all (torch's foreach clamp refuses the empty list), pad_sequence of a
# 0-d first sequence (torch slices its sizes past their length)
def _linear_grads(L, backward):
    L.manual_seed(0); m = L.nn.Linear(2, 2)
    if backward: m(L.ones(1, 2)).sum().backward()
    return m
NN_UTILS = {
    'clip_grad_value_ before any backward': lambda L: L.nn.utils.clip_grad_value_(_linear_grads(L, False).parameters(), 1.),
    'clip_grad_value_ of no parameters': lambda L: L.nn.utils.clip_grad_value_([], 1.),
    'clip_grad_value_ foreach=False, no gradient': lambda L: L.nn.utils.clip_grad_value_(_linear_grads(L, False).parameters(), 1., foreach=False),
    'clip_grad_value_ with one gradient left': lambda L: (lambda m: (setattr(m.bias, 'grad', None), L.nn.utils.clip_grad_value_(m.parameters(), .5), m.weight.grad)[2])(_linear_grads(L, True)),
    'pad_sequence of 0-d tensors': lambda L: L.nn.utils.rnn.pad_sequence([L.tensor(1.), L.tensor(2.)]),
    'pad_sequence of one 0-d tensor, batch_first': lambda L: L.nn.utils.rnn.pad_sequence([L.tensor(2.)], batch_first=True),
    'pad_sequence with a later 0-d tensor': lambda L: L.nn.utils.rnn.pad_sequence([L.ones(2), L.tensor(2.)]),
}

@pytest.mark.parametrize('name', list(NN_UTILS))
def test_nn_utils_misuse_as_torch(name): _same(NN_UTILS[name])

# --- smooth L1 and Huber losses are one node each, as torch's (a printed loss names it); values and gradients of both
# operands match, and smooth L1 with beta = 0 is l1_loss's graph
def _robust_loss(fn, reduction, target_dtype='float32', **kw):
    def case(L):
        L.manual_seed(0)
        a = (L.rand(2, 3) * 3).requires_grad_(); b = L.rand(2, 3).to(getattr(L, target_dtype)).requires_grad_()
        out = getattr(L.nn.functional, fn)(a, b, reduction=reduction, **kw)
        ga, gb = L.autograd.grad(out.sum(), (a, b))
        return type(out.grad_fn).__name__, out, ga, gb
    return case
ROBUST_LOSSES = {f'{fn} {red} {kw}': _robust_loss(fn, red, **kw) for fn, kws in [('smooth_l1_loss', [{}, {'beta': 0.5}, {'beta': 0.}, {'target_dtype': 'float64'}]), ('huber_loss', [{}, {'delta': 0.5}])]
                 for red in ['mean', 'sum', 'none'] for kw in kws}

@pytest.mark.parametrize('name', list(ROBUST_LOSSES))
def test_robust_losses_as_torch(name):
    t, l = _run(ROBUST_LOSSES[name], torch), _run(ROBUST_LOSSES[name], litnn)
    assert t[0] == l[0] == 'ok' and t[1][0] == l[1][0], (t, l)
    for a, b in zip(t[1][1:], l[1][1:]):
        assert a[:2] == b[:2] and np.allclose(a[2], b[2], rtol=1e-6, atol=1e-7), (a, b)

def _soft_margin(reduction, signs):
    def case(L):
        L.manual_seed(0)
        a = (L.randn(2, 3) * 3).requires_grad_(); b = L.randn(2, 3).sign() if signs else L.randn(2, 3)
        out = L.nn.functional.soft_margin_loss(a, b, reduction=reduction)
        return type(out.grad_fn).__name__, out, L.autograd.grad(out.sum(), a)[0]
    return case
ROBUST_LOSSES.update({f'soft_margin_loss {red} {"signs" if s else "reals"}': _soft_margin(red, s) for red in ['mean', 'sum', 'none'] for s in [True, False]})

@pytest.mark.parametrize('name', [n for n in ROBUST_LOSSES if n.startswith('soft_margin')])
def test_soft_margin_loss_as_torch(name): test_robust_losses_as_torch(name)

# --- cross_entropy against class probabilities: torch's C++ divides the sum by a number (DivBackward1, what a printed
# loss shows); no element: a NaN filled in and negated (NegBackward0)
def _ce_probs(shape, **kw):
    def case(L):
        L.manual_seed(0)
        x = L.randn(*shape, requires_grad=True); p = L.rand(*shape).softmax(1) if shape[0] else L.zeros(*shape)
        out = L.nn.functional.cross_entropy(x, p, **kw)
        return type(out.grad_fn).__name__, out, L.autograd.grad(out, x)[0]
    return case
ROBUST_LOSSES.update({'cross_entropy probs': _ce_probs((4, 3)), 'cross_entropy probs smoothed': _ce_probs((4, 3), label_smoothing=0.1),
                      'cross_entropy probs, weight None': _ce_probs((4, 3), weight=None), 'cross_entropy probs 3-d': _ce_probs((2, 3, 2)),
                      'cross_entropy probs of no element': _ce_probs((0, 3))})

@pytest.mark.parametrize('name', [n for n in ROBUST_LOSSES if n.startswith('cross_entropy')])
def test_cross_entropy_probs_as_torch(name):
    t, l = _run(ROBUST_LOSSES[name], torch), _run(ROBUST_LOSSES[name], litnn)
    assert t[0] == l[0] == 'ok' and t[1][0] == l[1][0], (t, l)
    for a, b in zip(t[1][1:], l[1][1:]):
        assert a[:2] == b[:2] and np.allclose(a[2], b[2], rtol=1e-6, atol=1e-7, equal_nan=True), (a, b)


# --- prelu's checks in torch's order: dtypes alike, then the weight's count against the channels, then the kernel
PRELU = {
    'int count mismatch': lambda L: L.prelu(L.ones(2, 3, dtype=L.int64), L.ones(2, dtype=L.int64)),
    'int per channel': lambda L: L.prelu(L.ones(2, 3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    'int one weight': lambda L: L.prelu(L.ones(2, 3, dtype=L.int64), L.ones(1, dtype=L.int64)),
    'dtypes differ': lambda L: L.prelu(L.ones(2, 3, dtype=L.int64), L.ones(3)),
    'zero-dim input': lambda L: L.prelu(L.ones(()), L.ones(2)),
}


@pytest.mark.parametrize('name', list(PRELU))
def test_prelu_checks_as_torch(name): _same(PRELU[name])


# --- indexing, views and in-place: index tensors must be long, int, byte or bool (a list or array of any numbers is
# made an int64 index, floats truncated); dims named twice, negative sizes and strides counted as torch's unsigned sizes
def _g(L, dt=None): return L.arange(6, dtype=dt or L.float32).reshape(2, 3)
def _set(t, k, v): t[k] = v; return t
INDEX_VIEWS = {f'index with an {d} tensor': (lambda L, d=d: _g(L)[L.tensor([1, 0], dtype=getattr(L, d))])
               for d in ['int8', 'int16', 'int32', 'int64', 'uint8', 'bool', 'float32', 'uint16', 'uint32', 'uint64']}
INDEX_VIEWS.update({
    'set through an int8 index tensor': lambda L: _set(_g(L), L.tensor([1], dtype=L.int8), 0.),
    'set through an int32 index tensor': lambda L: _set(_g(L), L.tensor([1], dtype=L.int32), 0.),
    'index_put_ with an int16 index': lambda L: _g(L).index_put_((L.tensor([1], dtype=L.int16),), L.tensor(0.)),
    'index a list holding a float': lambda L: _g(L)[[0, 1.5]],
    'index a list of one float': lambda L: _g(L)[[0.7]],
    'index a list of a bool and a float': lambda L: _g(L)[[True, 1.5]],
    'index a list holding a negative float': lambda L: _g(L)[[-1.5]],
    'index a list holding a complex number': lambda L: _g(L)[[1j]],
    'index a list holding a float out of range': lambda L: _g(L)[[0, 2.0 ** 40]],
    'index a numpy float array': lambda L: _g(L)[np.array([0.5, 1.7])],
    'index a numpy int8 array': lambda L: _g(L)[np.array([1, 0], dtype=np.int8)],
    'index a numpy uint64 array': lambda L: _g(L)[np.array([1, 0], dtype=np.uint64)],
    'index an empty numpy float array': lambda L: _g(L)[np.array([])],
    'index a tuple holding a numpy float array': lambda L: _g(L)[(np.array([0.5]),)],
    'index a float tensor inside a tuple': lambda L: _g(L)[:, L.tensor([0.])],
    'squeeze a dim named twice': lambda L: L.ones(1, 1).squeeze((0, 0)),
    'squeeze a dim named twice, once negative': lambda L: L.ones(1, 1).squeeze((0, -2)),
    'squeeze a 0-d tensor with a dim named twice': lambda L: L.tensor(1.).squeeze((0, -1)),
    'squeeze distinct dims': lambda L: L.ones(1, 2, 1).squeeze((0, 2)),
    'squeeze a dim out of range among others': lambda L: L.ones(1, 1).squeeze((0, 5)),
    'as_strided of a negative size': lambda L: L.arange(6.).as_strided((-1,), (1,)),
    'as_strided of a negative stride': lambda L: L.arange(6.).as_strided((2,), (-1,)),
    'empty_strided of a negative stride': lambda L: L.empty_strided((2,), (-1,)),
    'empty_strided of a negative stride on a 2-d': lambda L: L.empty_strided((2, 3), (1, -2)),
    'empty_strided of a negative stride on a size-1 dim': lambda L: L.empty_strided((1,), (-1,)).shape,
    'empty_strided of a negative stride with no elements': lambda L: L.empty_strided((0,), (-1,)).shape,
    'empty_strided of a negative size': lambda L: L.empty_strided((-1,), (1,)),
    'empty_strided of a negative size beside a zero': lambda L: L.empty_strided((-1, 0), (1, 1)),
    'requires_grad set True on a non-leaf': lambda L: setattr(L.ones(2, requires_grad=True) * 2, 'requires_grad', True),
    'requires_grad set False on a non-leaf': lambda L: setattr(L.ones(2, requires_grad=True) * 2, 'requires_grad', False),
    'requires_grad set to 1 on a non-leaf': lambda L: setattr(L.ones(2, requires_grad=True) * 2, 'requires_grad', 1),
    'requires_grad_ on a non-leaf': lambda L: (L.ones(2, requires_grad=True) * 2).requires_grad_().requires_grad,
    'requires_grad_(False) on a non-leaf': lambda L: (L.ones(2, requires_grad=True) * 2).requires_grad_(False),
    'requires_grad set on a leaf made by an op without grad': lambda L: (lambda t: (setattr(t, 'requires_grad', True), t.requires_grad)[1])(L.ones(2) * 2),
    'tril_indices in float32': lambda L: L.tril_indices(3, 3, dtype=L.float32),
    'triu_indices in bool': lambda L: L.triu_indices(3, 3, dtype=L.bool),
    'tril_indices in int8': lambda L: L.tril_indices(3, 3, dtype=L.int8),
    'triu_indices in float64 with an offset': lambda L: L.triu_indices(3, 2, 1, dtype=L.float64),
    'tril_indices in int32': lambda L: L.tril_indices(3, 3, dtype=L.int32),
    'cartesian_prod of a 2-d tensor': lambda L: L.cartesian_prod(L.ones(2, 2)),
    'cartesian_prod of a 0-d tensor second': lambda L: L.cartesian_prod(L.ones(2), L.tensor(1.)),
    'cartesian_prod of one 1-d tensor': lambda L: L.cartesian_prod(L.arange(3)),
})
# an empty mask is checked against the dims it covers (numpy takes it on any dim); a numpy scalar set into a tensor must be
# an integer, a float64 or a complex128 (Python's own float and complex): torch refuses numpy's other floats and its bool
for shape in [(0,), (0, 3), (2, 0), (0, 0)]:
    INDEX_VIEWS[f'index with an empty bool mask of shape {shape}'] = lambda L, shape=shape: _g(L)[L.zeros(shape, dtype=L.bool)]
INDEX_VIEWS['index an empty tensor with an empty bool mask'] = lambda L: L.zeros(0, 3)[L.zeros(0, dtype=L.bool)]
INDEX_VIEWS['set through an empty bool mask of the wrong shape'] = lambda L: _set(_g(L), L.zeros(0, dtype=L.bool), 1.)
for v in ['float32', 'float64', 'float16', 'int64', 'int32', 'uint8', 'bool_', 'complex64', 'complex128']:
    for dt in ['float32', 'int64', 'complex64']:
        INDEX_VIEWS[f'set a numpy {v} scalar into {dt}'] = lambda L, v=v, dt=dt: _set(_g(L, getattr(L, dt)), 0, getattr(np, v)(1))

# attributes torch's TensorBase defines refuse assignment in its words
for a in ['shape', 'dtype', 'device', 'is_leaf', 'ndim', 'layout', 'is_cuda', 'is_sparse', 'is_meta', 'nbytes', 'itemsize',
          'retains_grad', 'output_nr', 'name', 'is_quantized', 'is_nested']:
    INDEX_VIEWS[f'assign to .{a}'] = lambda L, a=a: (lambda t: setattr(t, a, getattr(t, a)))(L.ones(2, requires_grad=True) * 2)

@pytest.mark.parametrize('name', list(INDEX_VIEWS))
def test_indexing_and_views_misuse_as_torch(name): _same(INDEX_VIEWS[name])

def test_complex_into_real_warns_as_torch():
    "A complex value written into a real tensor (copy_, setitem, .to) keeps its real part with torch's UserWarning, not numpy's ComplexWarning."
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        litnn.set_warn_always(True)
        try:
            a = litnn.zeros(2).copy_(litnn.tensor([1 + 2j, 3j]))
            b = litnn.zeros(2, 3); b[0] = litnn.tensor([1j, 2, 3 + 1j])
            c = litnn.tensor([2 + 1j]).to(litnn.float32)
        finally: litnn.set_warn_always(False)
    assert a.tolist() == [1., 0.] and b[0].tolist() == [0., 2., 3.] and c.tolist() == [2.]
    assert [type(x.message) for x in w] == [UserWarning] * 3, [repr(x.message) for x in w]
    assert {str(x.message) for x in w} == {"Casting complex values to real discards the imaginary part"}
    assert all(x.filename == __file__ for x in w)       # each names the line that wrote

# --- autograd.Function's ctx marks tensors only; func transforms' checks in torch's order
def _fn(L, fwd):
    class Fn(L.autograd.Function):
        @staticmethod
        def forward(ctx, x): return fwd(ctx, x)
        @staticmethod
        def backward(ctx, g): return g
    return Fn.apply(L.ones(2, requires_grad=True))
FUNCTIONS_AND_TRANSFORMS = {
    'mark_non_differentiable of a number': lambda L: _fn(L, lambda c, x: (c.mark_non_differentiable(3), x * 2)[1]),
    'mark_non_differentiable of None': lambda L: _fn(L, lambda c, x: (c.mark_non_differentiable(None), x * 2)[1]),
    'mark_non_differentiable of an output': lambda L: _fn(L, lambda c, x: (lambda y: (c.mark_non_differentiable(y), y)[1])(x * 2)).requires_grad,
    'mark_dirty of a number': lambda L: _fn(L, lambda c, x: (c.mark_dirty(3), x * 2)[1]),
    'mark_dirty of a string': lambda L: _fn(L, lambda c, x: (c.mark_dirty('x'), x * 2)[1]),
    'jacfwd of a float input': lambda L: L.func.jacfwd(lambda x: x * 2)(3.),
    'jacfwd with an unknown randomness': lambda L: L.func.jacfwd(lambda x: x, randomness='foo')(L.ones(3)),
    'jacfwd with randomness same': lambda L: L.func.jacfwd(lambda x: x * 2, randomness='same')(L.ones(2)),
    'jacfwd of a float input with an unknown randomness': lambda L: L.func.jacfwd(lambda x: x, randomness='foo')(3.),
    'vmap with an unknown randomness': lambda L: L.func.vmap(lambda x: x, randomness='foo')(L.ones(3)),
    'vjp with cotangents of another structure': lambda L: L.func.vjp(lambda x: (x * 2, x), L.ones(3))[1](L.ones(3)),
    'vjp with a dict of cotangents for a list': lambda L: L.func.vjp(lambda x: [x * 2, x], L.ones(3))[1]({'a': L.ones(3)}),
}

@pytest.mark.parametrize('name', list(FUNCTIONS_AND_TRANSFORMS))
def test_functions_and_transforms_misuse_as_torch(name): _same(FUNCTIONS_AND_TRANSFORMS[name])

# --- torch.load's **pickle_load_args: accepted (encoding= of old checkpoints), with torch's warning unless weights_only=False,
# and its unpickler's TypeError for a name that unpickler does not take
def _load_with(L, **kw):
    import io
    b = io.BytesIO(); L.save({'a': L.arange(3.)}, b); b.seek(0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        r = L.load(b, **kw)
    return r['a'], sorted({str(x.message) for x in w})
LOAD_ARGS = {
    'encoding': dict(encoding='latin1'),
    'encoding, weights_only=False': dict(encoding='latin1', weights_only=False),
    'encoding, weights_only=True': dict(encoding='latin1', weights_only=True),
    'errors': dict(errors='strict'),
    'errors, weights_only=False': dict(errors='strict', weights_only=False),
    'fix_imports, weights_only=False': dict(fix_imports=True, weights_only=False),
    'an unknown name': dict(foo=1),
    'an unknown name, weights_only=False': dict(foo=1, weights_only=False),
    'none': dict(),
}

@pytest.mark.parametrize('name', list(LOAD_ARGS))
def test_load_pickle_args_as_torch(name): _same(lambda L: _load_with(L, **LOAD_ARGS[name]))

# --- serialization.get_unsafe_globals_in_checkpoint: the classes a checkpoint names that load would refuse, in a file
# each library saves (litnn's own format, or torch's zip), and in a file torch saved (the zip read by litnn)
class _Plain:
    def __init__(self): self.v = 1

def _unsafe(L, make, saver=None, allow=()):
    import io
    b = io.BytesIO(); (saver or L).save(make(saver or L), b); b.seek(0)
    L.serialization.add_safe_globals(list(allow))
    try: return sorted(g.replace('litnn', 'torch') for g in L.serialization.get_unsafe_globals_in_checkpoint(b))
    finally: L.serialization.clear_safe_globals()
UNSAFE_OBJECTS = {
    'tensors and containers': lambda L: {'a': L.ones(2), 'b': [1, 2.5, 'x', None], 'c': __import__('collections').OrderedDict(x=L.zeros(1))},
    'a module': lambda L: L.nn.Linear(2, 2),
    'nested modules': lambda L: L.nn.Sequential(L.nn.Linear(1, 1), L.nn.ReLU()),
    'a plain object': lambda L: {'p': _Plain()},
    'a Parameter, dtypes, a device, a Size': lambda L: [L.nn.Parameter(L.ones(2)), L.float16, L.device('cpu'), L.Size([2])],
    'sets, complex numbers, bytearrays': lambda L: [{1, 2}, 1 + 2j, bytearray(b'a')],
}
UNSAFE = {f'{n}, saved by {who}': (lambda L, make=make, who=who: _unsafe(L, make, torch if who == 'torch' else None))
          for n, make in UNSAFE_OBJECTS.items() for who in ('each', 'torch')}
UNSAFE['torch-saved slice, range, frozenset, defaultdict'] = lambda L: _unsafe(L, lambda T: [slice(1, 2), range(2), frozenset({1}), __import__('collections').defaultdict(int)], torch)
UNSAFE['a plain object allow-listed'] = lambda L: _unsafe(L, UNSAFE_OBJECTS['a plain object'], allow=[_Plain])
UNSAFE['garbage'] = lambda L: L.serialization.get_unsafe_globals_in_checkpoint(__import__('io').BytesIO(b'garbage'))
UNSAFE['an empty file'] = lambda L: L.serialization.get_unsafe_globals_in_checkpoint(__import__('io').BytesIO(b''))

@pytest.mark.parametrize('name', list(UNSAFE))
def test_unsafe_globals_in_checkpoint_as_torch(name): _same(UNSAFE[name])

# --- a dim out of range, in the ops that take one (torch's IndexError "Dimension out of range ..." or the op's own words)
def _dim_call(L, op, d):
    t = _g(L)
    calls = {'topk': lambda: t.topk(1, d), 'kthvalue': lambda: t.kthvalue(1, d), 'roll': lambda: t.roll(1, d), 'chunk': lambda: t.chunk(1, d),
             'split': lambda: t.split(1, d), 'narrow': lambda: t.narrow(d, 0, 1), 'select': lambda: t.select(d, 0), 'norm': lambda: t.norm(dim=d),
             'diff': lambda: t.diff(dim=d), 'renorm': lambda: t.renorm(2, d, 1.), 'unique_consecutive': lambda: t.unique_consecutive(dim=d),
             'aminmax': lambda: t.aminmax(dim=d), 'cross': lambda: L.ones(2, 3).cross(L.ones(2, 3), dim=d), 'std_mean': lambda: L.std_mean(t, d),
             'var_mean': lambda: L.var_mean(t, d), 'cat': lambda: L.cat([t, t], d), 'stack': lambda: L.stack([t, t], d + (1 if d > 0 else -1)),
             'gather': lambda: t.gather(d, L.zeros(1, 1, dtype=L.long)), 'index_select': lambda: t.index_select(d, L.tensor([0])),
             'scatter': lambda: t.scatter(d, L.zeros(1, 1, dtype=L.long), 1.), 'repeat_interleave': lambda: t.repeat_interleave(2, dim=d),
             'tensor_split': lambda: t.tensor_split(2, dim=d), 'movedim': lambda: t.movedim(d, 0), 'transpose': lambda: t.transpose(d, 0)}
    return calls[op]() if op in calls else getattr(t, op)(d)
DIM_OPS = ['sum', 'mean', 'prod', 'max', 'min', 'argmax', 'argmin', 'amax', 'amin', 'std', 'var', 'logsumexp', 'cumsum', 'cumprod', 'cummax',
           'cummin', 'softmax', 'log_softmax', 'norm', 'all', 'any', 'median', 'nanmedian', 'mode', 'sort', 'argsort', 'topk', 'kthvalue',
           'unbind', 'flip', 'roll', 'squeeze', 'unsqueeze', 'chunk', 'split', 'narrow', 'select', 'count_nonzero', 'nansum', 'logcumsumexp',
           'diff', 'renorm', 'unique_consecutive', 'flatten', 'std_mean', 'var_mean', 'aminmax', 'nanmean', 'cross', 'cat', 'stack', 'gather',
           'index_select', 'scatter', 'repeat_interleave', 'tensor_split', 'movedim', 'transpose']
DIMS = {f'{op} dim {d}': (lambda L, op=op, d=d: _dim_call(L, op, d)) for op in DIM_OPS for d in (2, -3, 100)}

@pytest.mark.parametrize('name', list(DIMS))
def test_dim_out_of_range_as_torch(name): _same(DIMS[name])

# --- hash_tensor (torch 2.13): the xor of the elements' 64-bit words (floats as float64, integers and bools as int64), a uint64
HASH = {
    'all of a float tensor': lambda L: L.hash_tensor(_g(L)),
    'over dim 1': lambda L: L.hash_tensor(_g(L), 1),
    'over both dims, kept': lambda L: L.hash_tensor(_g(L), (0, 1), keepdim=True),
    'method over dim 0': lambda L: _g(L).hash_tensor(0),
    'int64': lambda L: L.hash_tensor(L.arange(6)),
    'bool': lambda L: L.hash_tensor(L.tensor([True, False, True])),
    'float16': lambda L: L.hash_tensor(L.tensor([1.5, -2.25], dtype=L.float16)),
    'bfloat16': lambda L: L.hash_tensor(L.tensor([3.], dtype=L.bfloat16)),
    'float64 over two dims': lambda L: L.hash_tensor(L.arange(60, dtype=L.float64).reshape(3, 4, 5) / 7, (0, 2)),
    'int8 negative': lambda L: L.hash_tensor(L.tensor([-1, 5], dtype=L.int8)),
    'uint8': lambda L: L.hash_tensor(L.tensor([3, 200], dtype=L.uint8)),
    'nan and negative zero': lambda L: L.hash_tensor(L.tensor([float('nan'), -0.0])),
    '0-d': lambda L: L.hash_tensor(L.tensor(3.)),
    'a transposed view': lambda L: L.hash_tensor(_g(L).t(), 0),
    'requiring grad': lambda L: L.hash_tensor(L.ones(2, requires_grad=True)).requires_grad,
    'empty without dim': lambda L: L.hash_tensor(L.zeros(0)),
    'over an empty dim': lambda L: L.hash_tensor(L.zeros(0, 3), 0),
    'over a full dim of an empty tensor': lambda L: L.hash_tensor(L.zeros(0, 3), 1),
    'over the full dim of a 3x0 tensor, kept': lambda L: L.hash_tensor(L.zeros(3, 0), 0, keepdim=True),
    'over dims 0 and 2 of a 2x3x4, kept': lambda L: L.hash_tensor(L.arange(24).reshape(2, 3, 4), (0, 2), keepdim=True),
    'complex': lambda L: L.hash_tensor(L.ones(2, dtype=L.complex64)),
    'uint32': lambda L: L.hash_tensor(L.ones(2, dtype=L.uint32)),
    'mode 1': lambda L: L.hash_tensor(L.ones(2), mode=1),
    'dim out of range': lambda L: L.hash_tensor(_g(L), 5),
    'dim named twice': lambda L: L.hash_tensor(_g(L), (0, 0)),
    'keepdim positional': lambda L: L.hash_tensor(_g(L), 1, True),
    'a float dim': lambda L: L.hash_tensor(_g(L), 1.5),
}

@pytest.mark.parametrize('name', list(HASH))
def test_hash_tensor_as_torch(name): _same(HASH[name])

# --- torch.distributions misuse: numbers where torch calls a torch function, dtypes, constraint and size checks
def _D(L): return L.distributions
def _dt(r): return (str(r.dtype).split('.')[-1], tuple(r.shape))
DISTRIBUTIONS = {
    **{f'{name} icdf of a number': (lambda L, make=make: make(L).icdf(0.5)) for name, make in {
        'Normal': lambda L: _D(L).Normal(0., 1.), 'Exponential': lambda L: _D(L).Exponential(1.),
        'Cauchy': lambda L: _D(L).Cauchy(0., 1.), 'HalfNormal': lambda L: _D(L).HalfNormal(1.),
        'LogNormal': lambda L: _D(L).LogNormal(0., 1.), 'HalfCauchy': lambda L: _D(L).HalfCauchy(1.)}.items()},
    'Normal icdf of a tensor': lambda L: _dt(_D(L).Normal(L.zeros(3), L.ones(3)).icdf(L.full((3,), 0.25))),
    'Exponential icdf of a tensor': lambda L: _D(L).Exponential(L.ones(2)).icdf(L.tensor([0., 0.5])).round(decimals=4),
    'Cauchy icdf of a tensor': lambda L: _D(L).Cauchy(0., 1.).icdf(L.tensor([0.5])),
    'MultivariateNormal log_prob of a float64 value': lambda L: _dt(_D(L).MultivariateNormal(L.zeros(3), L.eye(3)).log_prob(L.zeros(3, dtype=L.float64))),
    'MultivariateNormal float64 log_prob of a float32 value': lambda L: _dt(_D(L).MultivariateNormal(L.zeros(3, dtype=L.float64), L.eye(3, dtype=L.float64)).log_prob(L.zeros(2, 3))),
    'MultivariateNormal log_prob at the mean': lambda L: _D(L).MultivariateNormal(L.zeros(2, dtype=L.float64), L.eye(2, dtype=L.float64) * 4).log_prob(L.zeros(2, dtype=L.float64)).round(decimals=10),
    'MultivariateNormal by precision, its covariance': lambda L: _D(L).MultivariateNormal(L.zeros(2, dtype=L.float64), precision_matrix=L.tensor([[2., 0.], [0., 4.]], dtype=L.float64)).covariance_matrix.round(decimals=10),
    'MultivariateNormal not positive-definite': lambda L: _D(L).MultivariateNormal(L.zeros(2), L.tensor([[1., 2.], [2., 1.]])),
    'MultivariateNormal log_prob gradient dtype': lambda L: (lambda m: (_D(L).MultivariateNormal(m, L.eye(2)).log_prob(L.ones(2, dtype=L.float64)).backward(), _dt(m.grad))[1])(L.zeros(2, requires_grad=True)),
    'LowRankMultivariateNormal log_prob of a float64 value': lambda L: _dt(_D(L).LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), L.ones(2)).log_prob(L.zeros(2, dtype=L.float64))),
    'kl of two MultivariateNormals': lambda L: _D(L).kl_divergence(_D(L).MultivariateNormal(L.zeros(2, dtype=L.float64), L.eye(2, dtype=L.float64)),
                                                                   _D(L).MultivariateNormal(L.ones(2, dtype=L.float64), L.eye(2, dtype=L.float64) * 2)).round(decimals=10),
    'independent constraint of -1 dims': lambda L: _D(L).constraints.independent(_D(L).constraints.real, -1),
    'independent constraint of 1.0 dims': lambda L: _D(L).constraints.independent(_D(L).constraints.real, 1.),
    'independent constraint of a non-constraint': lambda L: _D(L).constraints.independent(3, 1),
    'independent constraint of 0 dims': lambda L: _D(L).constraints.independent(_D(L).constraints.real, 0).event_dim,
    'corr_cholesky check of an int64 matrix': lambda L: _D(L).constraints.corr_cholesky.check(L.eye(2, dtype=L.int64)),
    'corr_cholesky check of a bool matrix': lambda L: _D(L).constraints.corr_cholesky.check(L.eye(2, dtype=L.bool)),
    'corr_cholesky check of a bfloat16 matrix': lambda L: _D(L).constraints.corr_cholesky.check(L.tensor([[1., 0.], [0.6, 0.81]], dtype=L.bfloat16)),
    'VonMises sample of a negative size': lambda L: _D(L).VonMises(L.zeros(3), L.ones(3)).sample((-1,)),
    'VonMises sample shape': lambda L: tuple(_D(L).VonMises(L.zeros(3), L.ones(3)).sample((2,)).shape),
}

@pytest.mark.parametrize('name', list(DISTRIBUTIONS))
def test_distributions_misuse_as_torch(name): _same(DISTRIBUTIONS[name])

# --- convolutions given another dtype than their weight: the kernel torch picks names the error (padding strings take
# torch's other road, which has no bias check); transposed ones refuse an empty image unless the batch or channels are empty
CONV_LAYERS = {
    'Conv2d': (lambda L: L.nn.Conv2d(4, 2, 3), (2, 4, 6, 6)), 'Conv2d without bias': (lambda L: L.nn.Conv2d(4, 2, 3, bias=False), (2, 4, 6, 6)),
    "Conv2d 'same'": (lambda L: L.nn.Conv2d(4, 2, 3, padding='same'), (2, 4, 6, 6)),
    "Conv1d 'same'": (lambda L: L.nn.Conv1d(4, 2, 3, padding='same'), (2, 4, 6)),
    "Conv2d 'same', even kernel": (lambda L: L.nn.Conv2d(4, 2, 4, padding='same'), (2, 4, 6, 6)),
    "Conv2d 'same', dilated": (lambda L: L.nn.Conv2d(4, 2, 3, padding='same', dilation=2), (2, 4, 6, 6)),
    "Conv2d 'valid'": (lambda L: L.nn.Conv2d(4, 2, 3, padding='valid'), (2, 4, 6, 6)),
    "Conv3d 'same'": (lambda L: L.nn.Conv3d(4, 2, 3, padding='same'), (2, 4, 5, 5, 5)),
    'Conv2d dilated': (lambda L: L.nn.Conv2d(4, 2, 3, dilation=2), (2, 4, 6, 6)),
    'Conv2d dilated without bias': (lambda L: L.nn.Conv2d(4, 2, 3, dilation=2, bias=False), (2, 4, 6, 6)),
    'Conv3d dilated without bias': (lambda L: L.nn.Conv3d(4, 2, 3, dilation=2, bias=False), (2, 4, 6, 6, 6)),
    'ConvTranspose1d': (lambda L: L.nn.ConvTranspose1d(4, 2, 3), (2, 4, 6)),
    'ConvTranspose2d without bias': (lambda L: L.nn.ConvTranspose2d(4, 2, 3, bias=False), (2, 4, 6, 6)),
    'ConvTranspose2d dilated': (lambda L: L.nn.ConvTranspose2d(4, 2, 3, dilation=2, bias=False), (2, 4, 6, 6)),
    'ConvTranspose3d': (lambda L: L.nn.ConvTranspose3d(4, 2, 3), (2, 4, 3, 3, 3)),
}
CONV_DTYPES = {f'{name} of {dt}': (lambda L, make=make, shape=shape, dt=dt: make(L)(L.ones(*shape, dtype=getattr(L, dt))))
               for name, (make, shape) in CONV_LAYERS.items()
               for dt in ('float64', 'int64', 'int32', 'int16', 'uint8', 'bool', 'float16', 'bfloat16', 'complex64')}
CONV_DTYPES.update({
    "conv2d 'same' with a float64 bias": lambda L: L.nn.functional.conv2d(L.ones(1, 2, 4, 4), L.ones(3, 2, 3, 3), L.ones(3, dtype=L.float64), padding='same'),
    "conv1d 'valid' with a float64 bias": lambda L: L.nn.functional.conv1d(L.ones(1, 2, 4), L.ones(3, 2, 3), L.ones(3, dtype=L.float64), padding='valid'),
    "conv3d 'same' with a float64 bias": lambda L: L.nn.functional.conv3d(L.ones(1, 2, 3, 3, 3), L.ones(3, 2, 3, 3, 3), L.ones(3, dtype=L.float64), padding='same'),
    'conv2d padding 1 with a float64 bias': lambda L: L.nn.functional.conv2d(L.ones(1, 2, 4, 4), L.ones(3, 2, 3, 3), L.ones(3, dtype=L.float64), padding=1),
    'conv2d padding 1 with a float64 bias, gradient': lambda L: (lambda b: (L.nn.functional.conv2d(L.ones(1, 2, 4, 4), L.ones(3, 2, 3, 3), b, padding='same').sum().backward(), b.grad)[1])(L.ones(3, dtype=L.float64, requires_grad=True)),
    **{f'{name} of an empty image {shape}': (lambda L, make=make, shape=shape: tuple(make(L)(L.ones(*shape)).shape)) for name, make, shape in [
        ('ConvTranspose1d', lambda L: L.nn.ConvTranspose1d(4, 2, 3), (2, 4, 0)),
        ('ConvTranspose2d', lambda L: L.nn.ConvTranspose2d(4, 2, 3, stride=2), (2, 4, 5, 0)),
        ('ConvTranspose2d unbatched', lambda L: L.nn.ConvTranspose2d(4, 2, 3), (4, 5, 0)),
        ('ConvTranspose3d', lambda L: L.nn.ConvTranspose3d(4, 2, 3), (1, 4, 0, 2, 2)),
        ('ConvTranspose2d, an empty batch', lambda L: L.nn.ConvTranspose2d(4, 2, 3), (0, 4, 5, 5)),
        ('ConvTranspose2d, no channels', lambda L: L.nn.ConvTranspose2d(0, 2, 3), (2, 0, 5, 5)),
        ('ConvTranspose2d, an empty batch and image', lambda L: L.nn.ConvTranspose2d(4, 2, 3), (0, 4, 5, 0)),
        ('ConvTranspose2d, wrong channels first', lambda L: L.nn.ConvTranspose2d(4, 2, 3), (2, 3, 5, 0)),
        ('Conv2d', lambda L: L.nn.Conv2d(4, 2, 1), (2, 4, 5, 0))]},
    'ConvTranspose2d empty image with too big an output_padding': lambda L: L.nn.ConvTranspose2d(4, 2, 3, output_padding=5)(L.ones(2, 4, 5, 0)),
    'ConvTranspose2d empty image in int32': lambda L: L.nn.ConvTranspose2d(4, 2, 3)(L.ones(2, 4, 5, 0, dtype=L.int32)),
})

@pytest.mark.parametrize('name', list(CONV_DTYPES))
def test_conv_dtypes_and_empty_images_as_torch(name): _same(CONV_DTYPES[name])

# --- nn functions given a list or a numpy array: the first thing torch's code touches names the error
def _F(L): return L.nn.functional
NOT_TENSORS = {}
for what, make in {'a list': lambda: [[[1., 2.], [3., 4.]]], 'a numpy array': lambda: np.ones((1, 2, 2), np.float32)}.items():
    NOT_TENSORS.update({f'{fn} of {what}': (lambda L, call=call, make=make: call(L, make())) for fn, call in {
        'group_norm': lambda L, x: _F(L).group_norm(x, 1),
        'adaptive_avg_pool2d': lambda L, x: _F(L).adaptive_avg_pool2d(x, 1),
        'adaptive_max_pool2d': lambda L, x: _F(L).adaptive_max_pool2d(x, 1),
        'adaptive_avg_pool3d': lambda L, x: _F(L).adaptive_avg_pool3d(x, 1),
        'adaptive_max_pool3d': lambda L, x: _F(L).adaptive_max_pool3d(x, 1),
        'adaptive_avg_pool1d': lambda L, x: _F(L).adaptive_avg_pool1d(x, 1),
        'max_pool1d with indices': lambda L, x: _F(L).max_pool1d(x, 1, return_indices=True),
        'max_pool2d with indices': lambda L, x: _F(L).max_pool2d(x, 1, return_indices=True),
        'max_pool2d': lambda L, x: _F(L).max_pool2d(x, 1),
        'unfold': lambda L, x: _F(L).unfold(x, 1),
        'fold': lambda L, x: _F(L).fold(x, 1, 1),
        'layer_norm': lambda L, x: _F(L).layer_norm(x, (2,)),
    }.items()})

@pytest.mark.parametrize('name', list(NOT_TENSORS))
def test_nn_functions_of_non_tensors_as_torch(name): _same(NOT_TENSORS[name])

# --- layers and data loading: empty inputs, messages, what takes no arguments
LAYER_AND_DATA = {
    'EmbeddingBag offsets not starting at 0': lambda L: L.nn.EmbeddingBag(5, 3)(L.tensor([1, 2]), L.tensor([1])),
    'EmbeddingBag int32 offsets not starting at 0': lambda L: L.nn.EmbeddingBag(5, 3)(L.tensor([1, 2], dtype=L.int32), L.tensor([1], dtype=L.int32)),
    'EmbeddingBag int32 offsets, int64 ids': lambda L: L.nn.EmbeddingBag(5, 3)(L.tensor([1, 2]), L.tensor([1], dtype=L.int32)),
    'InstanceNorm2d with affine, an empty batch': lambda L: L.nn.InstanceNorm2d(4, affine=True)(L.ones(0, 4, 3, 3)),
    'InstanceNorm2d, an empty batch': lambda L: tuple(L.nn.InstanceNorm2d(4)(L.ones(0, 4, 3, 3)).shape),
    'batch_norm of no channels with a weight': lambda L: L.nn.functional.batch_norm(L.ones(0, 0, 2), None, None, L.ones(0), training=True),
    'BatchNorm2d, an empty batch': lambda L: tuple(L.nn.BatchNorm2d(4)(L.ones(0, 4, 3, 3)).shape),
    'BatchNorm1d of no channels': lambda L: L.nn.BatchNorm1d(0)(L.ones(2, 0)),
    'instance_norm of an empty batch with a bias': lambda L: L.nn.functional.instance_norm(L.ones(0, 4, 3), bias=L.ones(4)),
    'pixel_unshuffle of an empty batch': lambda L: tuple(L.nn.functional.pixel_unshuffle(L.ones(0, 2, 4, 4), 2).shape),
    'pixel_unshuffle of an empty image': lambda L: tuple(L.nn.functional.pixel_unshuffle(L.ones(2, 2, 4, 0), 2).shape),
    'pixel_unshuffle of an empty, indivisible image': lambda L: L.nn.functional.pixel_unshuffle(L.ones(2, 2, 3, 0), 2),
    'pixel_shuffle of an empty batch': lambda L: tuple(L.nn.functional.pixel_shuffle(L.ones(0, 8, 4, 4), 2).shape),
    'default_collate of a tensor': lambda L: L.utils.data.default_collate(L.ones(2, 3)),
    'default_collate of a tuple of tensors': lambda L: L.utils.data.default_collate((L.ones(2), L.zeros(2))),
    'Sampler given a data source': lambda L: L.utils.data.Sampler(range(3)),
    'Sampler subclass passing its data source up': lambda L: type('S', (L.utils.data.Sampler,), {
        '__init__': lambda s, ds: super(type(s), s).__init__(ds), '__iter__': lambda s: iter([])})([1]),
    'Sampler subclass': lambda L: list(type('S', (L.utils.data.Sampler,), {'__init__': lambda s, ds: setattr(s, 'ds', ds), '__iter__': lambda s: iter(s.ds)})([2, 1])),
    'Sampler itself': lambda L: type(L.utils.data.Sampler()).__name__,
}

@pytest.mark.parametrize('name', list(LAYER_AND_DATA))
def test_layer_and_data_misuse_as_torch(name): _same(LAYER_AND_DATA[name])

@pytest.mark.parametrize('dtypes', [('float64', 'float32'), ('float16', 'float32'), ('float32', 'float64'), ('int64', 'float32'), ('complex64', 'float32'), ('float32', 'float32')])
def test_rms_norm_dtype_mismatch_warns_as_torch(dtypes):
    "torch's fused rms_norm wants the input's and weight's dtypes alike: it warns (TORCH_WARN_ONCE: seen here with warn_always on)."
    def run(L):
        was = L.is_warn_always_enabled(); L.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                try: L.nn.functional.rms_norm(L.ones(2, 4, dtype=getattr(L, dtypes[0])), (4,), L.ones(4, dtype=getattr(L, dtypes[1])))
                except RuntimeError as e: err = str(e)
                else: err = None
        finally: L.set_warn_always(was)
        return err, [str(x.message).split(' (Triggered internally')[0] for x in w if 'Mismatch dtype' in str(x.message)]
    assert run(litnn) == run(torch)

# --- adaptive average pooling of half and bfloat16 sums in float32 and rounds once, as torch's kernel (two rounded
# matrix products before: a last-bit difference in about half of the elements)
def _wave(L, *shape, dt='float32'): return L.tensor((np.sin(np.arange(np.prod(shape))) * 0.5).astype(np.float32).reshape(shape)).to(getattr(L, dt))
HALF_POOLS = {f'{name} in {dt}': (lambda L, f=f, dt=dt: f(L, _wave(L, 2, 4, 16, 16, dt=dt)).float())
              for dt in ('float16', 'bfloat16') for name, f in {
                  'adaptive_avg_pool2d to 3': lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 3),
                  'adaptive_avg_pool2d to (3, 5)': lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (3, 5)),
                  'adaptive_avg_pool2d to (7, None)': lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (7, None)),
                  'adaptive_avg_pool1d to 5': lambda L, x: L.nn.functional.adaptive_avg_pool1d(x.flatten(2), 5)}.items()}

@pytest.mark.parametrize('name', list(HALF_POOLS))
def test_half_adaptive_avg_pool_as_torch(name): _same(HALF_POOLS[name])

@pytest.mark.parametrize('shape', [(2, 4, 0), (2, 4, 0, 3), (0, 4, 3), (2, 4, 0, 0)])
def test_group_norm_of_empty_images_as_torch(shape):
    "Nothing to average in a group: an empty result, without numpy's 'Mean of empty slice' warning (torch gives none)."
    def run(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            y = L.nn.GroupNorm(2, 4)(L.ones(*shape, requires_grad=True))
            y.sum().backward()
        return tuple(y.shape), [str(x.message) for x in w]
    assert run(litnn) == run(torch)

# --- linear's checks in torch's order: with a bias (addmm) the bias's dtype against the weight's, then the input's,
# then the shapes; without one (mm) the shapes, then the dtypes; bool last
def _linear_call(L, xd, wd, bd, xs):
    x, w = L.ones(*xs, dtype=getattr(L, xd)), L.ones(3, 12, dtype=getattr(L, wd))
    r = L.nn.functional.linear(x, w, None if bd is None else L.ones(3, dtype=getattr(L, bd)))
    return str(r.dtype).split('.')[-1], tuple(r.shape)
LINEAR_CHECKS = {f'input {xd} {xs}, weight {wd}, bias {bd}': (lambda L, a=(xd, wd, bd, xs): _linear_call(L, *a))
                 for xd in ('float32', 'float64', 'int64', 'bool') for wd in ('float32', 'float64', 'int64', 'bool')
                 for bd in (None, 'float32', 'int64') for xs in ((2, 12), (2, 48), (12,), (4, 2, 12), (4, 2, 48))}

@pytest.mark.parametrize('name', list(LINEAR_CHECKS))
def test_linear_checks_in_torch_order(name): _same(LINEAR_CHECKS[name])

# --- functional checks found by the functional sweep: unsigned hardtanh, complex attention and probability targets,
# fractional max pooling given more random samples than the batch
def _F2(L): return L.nn.functional
FUNCTIONAL_CHECKS = {
    'hardtanh of uint8 (negative limits)': lambda L: _F2(L).hardtanh(L.ones(2, dtype=L.uint8)),
    'hardtanh_ of uint8': lambda L: _F2(L).hardtanh_(L.ones(2, dtype=L.uint8)),
    'Hardtanh module of uint8': lambda L: L.nn.Hardtanh()(L.ones(2, dtype=L.uint8)),
    'hardtanh of uint8 within 0..1': lambda L: _F2(L).hardtanh(L.tensor([0, 3], dtype=L.uint8), 0., 1.),
    'relu6 of uint8': lambda L: _F2(L).relu6(L.tensor([0, 9], dtype=L.uint8)),
    'hardtanh of int8': lambda L: _F2(L).hardtanh(L.tensor([-3, 3], dtype=L.int8)),
    'hardtanh of uint16': lambda L: _F2(L).hardtanh(L.ones(2, dtype=L.uint16)),
    'relu6 of uint32': lambda L: _F2(L).relu6(L.ones(2, dtype=L.uint32)),
    'hardtanh of uint64 within 0..2': lambda L: _F2(L).hardtanh(L.ones(2, dtype=L.uint64), 0., 2.),
    'sdpa of complex64': lambda L: _F2(L).scaled_dot_product_attention(*[L.ones(1, 2, 2, dtype=L.complex64)] * 3),
    'sdpa of complex128': lambda L: _F2(L).scaled_dot_product_attention(*[L.ones(1, 2, 2, dtype=L.complex128)] * 3),
    'sdpa of int64': lambda L: _F2(L).scaled_dot_product_attention(*[L.ones(1, 2, 2, dtype=L.int64)] * 3),
    'cross_entropy of complex probabilities': lambda L: _F2(L).cross_entropy(L.ones(2, 3, dtype=L.complex64), L.ones(2, 3, dtype=L.complex64)),
    'cross_entropy of a complex probability target': lambda L: _F2(L).cross_entropy(L.ones(2, 3), L.ones(2, 3, dtype=L.complex64)),
    'cross_entropy of a complex input': lambda L: _F2(L).cross_entropy(L.ones(2, 3, dtype=L.complex64), L.ones(2, 3)),
    'cross_entropy of a bfloat16 probability target': lambda L: _F2(L).cross_entropy(L.ones(2, 3, dtype=L.bfloat16), L.full((2, 3), 0.5, dtype=L.bfloat16)),
    **{f'rrelu (eval) of {dt}': (lambda L, dt=dt: _F2(L).rrelu(L.tensor((np.sin(np.arange(96)) * 2).astype(np.float32)).to(getattr(L, dt))).float())
       for dt in ('float16', 'bfloat16', 'float32')},
    'RReLU(0.1, 0.3) (eval) of float16': lambda L: L.nn.RReLU(0.1, 0.3).eval()(L.tensor((np.sin(np.arange(96)) * 2).astype(np.float32)).half()).float(),
    'rrelu_ (eval) of bfloat16': lambda L: _F2(L).rrelu_(L.tensor((np.sin(np.arange(96)) * 2).astype(np.float32)).bfloat16()).float(),
    **{f'fractional_max_pool2d of {shape} with 2 samples': (lambda L, shape=shape: _F2(L).fractional_max_pool2d(
        L.arange(float(np.prod(shape))).reshape(shape), 2, output_size=2, _random_samples=L.full((2, 3, 2), 0.5)))
       for shape in [(1, 3, 4, 4), (0, 3, 4, 4), (3, 3, 4, 4), (3, 4, 4), (2, 3, 4, 4)]},
}

@pytest.mark.parametrize('name', list(FUNCTIONAL_CHECKS))
def test_functional_checks_as_torch(name): _same(FUNCTIONAL_CHECKS[name])

# --- creation arguments: a device of the wrong type (the parser's TypeError, named for the factory called), an index or an
# empty string for a *_like factory (not read as "no device"), more elements than an int64 counts, NaN and infinite steps
def _dev_call(L, fn, dev):
    return {'tensor': lambda: L.tensor([1., 2.], device=dev), 'arange': lambda: L.arange(3, device=dev), 'full': lambda: L.full((2,), 1., device=dev),
            'ones_like': lambda: L.ones_like(L.ones(2), device=dev), 'eye': lambda: L.eye(2, device=dev),
            'rand': lambda: L.rand(2, device=dev), 'randint': lambda: L.randint(3, (2,), device=dev)}.get(fn, lambda: getattr(L, fn)(2, device=dev))()
CREATION_CHECKS = {
    **{f'{fn}(device={dn})': (lambda L, fn=fn, d=d: str(_dev_call(L, fn, d).device))
       for fn in ('zeros', 'ones', 'empty', 'tensor', 'arange', 'full', 'ones_like', 'eye', 'rand', 'randint')
       for dn, d in (('1.5', 1.5), ('[cpu]', ['cpu']), ('True', True), ('0', 0), ("''", ''), ('cpu', 'cpu'), ('np.int64(0)', np.int64(0)), ('np.bool_(True)', np.bool_(True)))},
    **{f'device({v!r})': (lambda L, v=v: str(L.device(v))) for v in (1.5, True, None, 'cpu', 'cpu:0', np.int64(0), np.bool_(True))},
    **{f'{fn} of 2**62 x 2**62': (lambda L, fn=fn: getattr(L, fn)(2 ** 62, 2 ** 62).shape) for fn in ('zeros', 'ones', 'empty', 'rand', 'randn')},
    'full of 2**62 x 2**62': lambda L: L.full((2 ** 62, 2 ** 62), 1.).shape,
    'randint of 2**62 x 2**62': lambda L: L.randint(3, (2 ** 62, 2 ** 62)).shape,
    'arange with a NaN step': lambda L: L.arange(0, 1, float('nan')),
    'arange int32 with a NaN step': lambda L: L.arange(0, 1, float('nan'), dtype=L.int32),
    'arange int32 with an infinite step': lambda L: L.arange(0, 1, float('inf'), dtype=L.int32),
    'arange int64 with an infinite step': lambda L: L.arange(0, 1, float('inf'), dtype=L.int64),
    'arange with an infinite step': lambda L: L.arange(0, 1, float('inf')),
    'range to infinity': lambda L: L.range(0, float('inf')),
    'range out of bool': lambda L: L.range(0, 2, out=L.zeros(3, dtype=L.bool)),
    'range of bool': lambda L: L.range(0, 2, dtype=L.bool),
    'range of float64': lambda L: L.range(0, 1, 0.25, dtype=L.float64),
    'zeros of a numpy array size': lambda L: L.zeros(np.array([2, 3])),
    'empty of a numpy array size': lambda L: L.empty(np.array([2, 3])),
    'from_numpy of a tensor': lambda L: L.from_numpy(L.ones(2)),
    'from_numpy of a list': lambda L: L.from_numpy([1, 2]),
    'orthogonal_ with a tensor gain': lambda L: L.nn.init.orthogonal_(L.zeros(3, 4), gain=L.tensor(2.)).shape,
    'orthogonal_ with a tensor gain of 0': lambda L: L.nn.init.orthogonal_(L.zeros(3, 4), gain=L.tensor(0.)),
    **{f'pack_padded_sequence of no lengths, enforce_sorted={es}, batch_first={bf}':
       (lambda L, es=es, bf=bf: L.nn.utils.rnn.pack_padded_sequence(L.ones(2, 3, 2), [], batch_first=bf, enforce_sorted=es).data)
       for es in (True, False) for bf in (True, False)},
    'autograd.grad of a number output': lambda L: L.autograd.grad([1.], [L.ones(2, requires_grad=True)]),
    'autograd.grad of a None output': lambda L: L.autograd.grad([None], [L.ones(2, requires_grad=True)]),
    'expand(implicit=True)': lambda L: L.ones(3, 1).expand(3, 4, implicit=True),
}

@pytest.mark.parametrize('name', list(CREATION_CHECKS))
def test_creation_checks_as_torch(name): _same(CREATION_CHECKS[name])

@pytest.mark.parametrize('first', ['as_tensor', 'from_numpy'])
def test_read_only_numpy_warning_once_as_torch(first):
    "as_tensor and from_numpy of a read-only array share torch's warning, given once a process."
    import subprocess, sys
    code = ("import warnings, numpy as np, {lib} as L\na = np.zeros(2); a.setflags(write=False)\n"
            "with warnings.catch_warnings(record=True) as w:\n warnings.simplefilter('always')\n"
            " for f in ['{first}', 'as_tensor', 'from_numpy']: getattr(L, f)(a)\n"
            "print([str(x.message).split(' (Triggered')[0] for x in w])")
    out = [subprocess.run([sys.executable, '-c', code.format(lib=lib, first=first)], capture_output=True, text=True, timeout=120).stdout
           for lib in ('torch', 'litnn')]
    assert out[0] and out[1] == out[0]

# --- indexing: a numpy bool is not an index; every entry but a bool counts as a dim a 0-d tensor lacks; an int out of
# range with a tensor value says "dimension"; type names as torch's messages give them (numpy.float32, numpy.ndarray)
INDEX_CHECKS = {
    **{f'{how} with a numpy bool': f for how, f in {
        'get': lambda L: _grid(L, (3, 4))[np.bool_(True)],
        'set': lambda L: _grid(L, (3, 4)).__setitem__(np.bool_(True), 1.),
        'get of a 0-d tensor': lambda L: L.tensor(5.)[np.bool_(True)]}.items()},
    **{f'0-d tensor indexed by {kn}': (lambda L, k=k: L.tensor(5.)[k(L)]) for kn, k in {
        'a float': lambda L: 1.5, 'a float in a tuple': lambda L: (None, 1.5), 'a float tensor': lambda L: L.tensor([0.]),
        'a 0-d float tensor': lambda L: L.tensor(1.), 'a 0-d long tensor': lambda L: L.tensor(0), 'a long tensor': lambda L: L.tensor([0]),
        'a bool tensor': lambda L: L.tensor([True]), 'a 0-d bool tensor': lambda L: L.tensor(True), 'True': lambda L: True,
        'a numpy int': lambda L: np.int64(0), 'a numpy float': lambda L: np.float32(0), 'a numpy array': lambda L: np.array([0]),
        'a dict': lambda L: {}, 'a set': lambda L: {0}, 'a complex': lambda L: 1j, 'a string': lambda L: 'a', 'an int': lambda L: 0,
        'an empty long tensor': lambda L: L.tensor([], dtype=L.long), 'a slice': lambda L: slice(0, 1)}.items()},
    **{f'set a tensor value at {kn}': (lambda L, k=k: _grid(L, (3, 4)).__setitem__(k, L.ones(5))) for kn, k in {
        'row 5': 5, 'row -4': -4, '(0, 4)': (0, 4), '(0, 0, 0)': (0, 0, 0), '(0, None, 0, 0)': (0, None, 0, 0), '(0, 0, 0, ...)': (0, 0, 0, Ellipsis)}.items()},
    'set an int value at row 5': lambda L: _grid(L, (3, 4)).__setitem__(5, L.tensor(7)),
    'get with a numpy float': lambda L: _grid(L, (3, 4))[np.float32(1)],
    'set with a numpy float': lambda L: _grid(L, (3, 4)).__setitem__(np.float32(1), 0.),
    'assigning an array to .grad': lambda L: setattr(L.ones(3, requires_grad=True), 'grad', np.ones(3)),
    'custom Function backward returning an array': lambda L: type('F', (L.autograd.Function,), {
        'forward': staticmethod(lambda ctx, x: x * 2), 'backward': staticmethod(lambda ctx, g: np.ones(3))}).apply(L.ones(3, requires_grad=True)).sum().backward(),
}

@pytest.mark.parametrize('name', list(INDEX_CHECKS))
def test_index_checks_as_torch(name): _same(INDEX_CHECKS[name])

# --- torch.tensor(data, dtype=...) of a leaf that is no number: the given dtype converts it (nothing is inferred), in the
# words of a float (complex too) or an int (bool too) conversion; without a dtype torch's inference words stay
TENSOR_DATA_CHECKS = {f'tensor({dn}, dtype={dt})': (lambda L, d=d, dt=dt: L.tensor(d(), dtype=None if dt is None else getattr(L, dt)))
                      for dn, d in {'[1, None]': lambda: [1, None], "[1, 'a']": lambda: [1, 'a'], "['a', 1]": lambda: ['a', 1], '[1, [2, 3]]': lambda: [1, [2, 3]],
                                    '[[1], 2]': lambda: [[1], 2], '[1, object()]': lambda: [1, object()], '[[1, 2], [3, None]]': lambda: [[1, 2], [3, None]]}.items()
                      for dt in (None, 'float32', 'float64', 'bfloat16', 'int32', 'uint8', 'bool', 'complex64')}
# linalg.solve broadcasts B's batch with A's: B is "tensor a" in the message
TENSOR_DATA_CHECKS.update({f'linalg.solve of A {a} and B {b}': (lambda L, a=a, b=b: L.linalg.solve(L.eye(2).expand(*a), L.ones(*b)))
                           for a, b in [((3, 2, 2), (2, 2, 1)), ((4, 3, 2, 2), (5, 3, 2, 1)), ((3, 2, 2), (2, 2)), ((3, 2, 2), (3, 2)),
                                        ((2, 2, 2), (3, 2)), ((2, 2), (5, 2, 2)), ((2, 2), (5, 2)), ((2, 2, 2), (4, 2, 1))]})

@pytest.mark.parametrize('name', list(TENSOR_DATA_CHECKS))
def test_tensor_data_and_solve_checks_as_torch(name): _same(TENSOR_DATA_CHECKS[name])

# --- linalg: an SVD of a matrix holding NaN or infinity is LAPACK's refusal in torch's words (batch element named), for
# every function computed through it; logdet's checks name logdet
LINALG_CHECKS = {
    'svd of NaN': lambda L: L.linalg.svd(L.full((2, 2), float('nan'))),
    'pinv of inf (NaN, no error)': lambda L: L.linalg.pinv(L.full((2, 2), float('inf'))).isnan(),
    'matrix_rank of NaN': lambda L: L.linalg.matrix_rank(L.full((2, 3), float('nan'))),
    'svdvals of a batch, the second NaN': lambda L: L.linalg.svdvals(L.stack([L.eye(2), L.full((2, 2), float('nan'))])),
    'svd of a NaN batch': lambda L: L.linalg.svd(L.full((3, 2, 2), float('nan'))),
    'torch.svd of NaN': lambda L: L.svd(L.full((2, 2), float('nan'))),
    'matrix_norm ord=2 of NaN': lambda L: L.linalg.matrix_norm(L.full((2, 2), float('nan')), ord=2),
    'cond of NaN': lambda L: L.linalg.cond(L.full((2, 2), float('nan'))),
    'svd of a finite matrix': lambda L: L.linalg.svdvals(L.tensor([[3., 0.], [0., 4.]])),
    **{f'logdet of {n}': (lambda L, m=m: L.logdet(m(L))) for n, m in {
        'int64': lambda L: L.eye(2, dtype=L.long), 'bool': lambda L: L.eye(2, dtype=L.bool), 'float16': lambda L: L.eye(2).half(),
        'bfloat16': lambda L: L.eye(2).bfloat16(), '2x3': lambda L: L.ones(2, 3), '1-d': lambda L: L.ones(3), '0-d': lambda L: L.tensor(2.),
        '0x0': lambda L: L.ones(0, 0), '2I': lambda L: L.eye(2) * 2, 'complex I': lambda L: L.eye(2, dtype=L.complex64)}.items()},
}

@pytest.mark.parametrize('name', list(LINALG_CHECKS))
def test_linalg_checks_as_torch(name): _same(LINALG_CHECKS[name])

def test_logdet_of_a_negative_determinant_is_nan(): assert litnn.logdet(-litnn.eye(3)).isnan().item() and torch.logdet(-torch.eye(3)).isnan().item()

# --- autograd switches given what is not a bool, saved-tensor hooks that are not callables: torch's C++ binding refuses
AUTOGRAD_SWITCH_CHECKS = {
    'set_detect_anomaly(True, check_nan=str)': lambda L: L.autograd.set_detect_anomaly(True, check_nan='x'),
    'set_detect_anomaly(1)': lambda L: L.autograd.set_detect_anomaly(1),
    "set_detect_anomaly('yes')": lambda L: L.autograd.set_detect_anomaly('yes'),
    'detect_anomaly(check_nan=str)': lambda L: L.autograd.detect_anomaly(check_nan='x').__enter__(),
    "set_anomaly_enabled('a')": lambda L: L.set_anomaly_enabled('a'),
    "set_anomaly_enabled(True, 'a')": lambda L: L.set_anomaly_enabled(True, 'a'),
    'set_anomaly_enabled(False) then is_anomaly_enabled': lambda L: (L.set_anomaly_enabled(False), L.is_anomaly_enabled())[1],
    'saved_tensors_hooks(1, 2)': lambda L: L.autograd.graph.saved_tensors_hooks(1, 2).__enter__(),
    'saved_tensors_hooks(None, None)': lambda L: L.autograd.graph.saved_tensors_hooks(None, None).__enter__(),
}

@pytest.mark.parametrize('name', list(AUTOGRAD_SWITCH_CHECKS))
def test_autograd_switch_checks_as_torch(name): _same(AUTOGRAD_SWITCH_CHECKS[name])

# --- reductions: nansum/nanmean into a complex dtype have no kernel; renorm prints a negative maxnorm as a C++ Scalar
def _x23(L): return L.arange(6.).reshape(2, 3)
REDUCTION_CHECKS = {
    'x.aminmax(dim=1)': lambda L: _x23(L).aminmax(dim=1),
    'torch.aminmax(x, 1)': lambda L: L.aminmax(_x23(L), 1), 'x.aminmax()': lambda L: _x23(L).aminmax(),
    'torch.aminmax(x, dim=0, keepdim=True)': lambda L: L.aminmax(_x23(L), dim=0, keepdim=True),
    'x.aminmax(dim=0) backward': lambda L: (lambda x: (x.aminmax(dim=0).max.sum().backward(), x.grad)[1])(_x23(L).requires_grad_()),
    'renorm maxnorm -1': lambda L: _x23(L).renorm(2, 0, -1), 'renorm maxnorm -1.5': lambda L: _x23(L).renorm(2, 0, -1.5), 'renorm maxnorm -1.0': lambda L: _x23(L).renorm(2, 0, -1.0),
    'nansum into complex64': lambda L: L.nansum(_x23(L), 1, dtype=L.complex64), 'nanmean into complex128': lambda L: L.nanmean(_x23(L), 1, dtype=L.complex128),
    'x.nansum(dtype=complex64)': lambda L: _x23(L).nansum(dtype=L.complex64), 'nansum into float64': lambda L: L.nansum(_x23(L), dtype=L.float64),
}

@pytest.mark.parametrize('name', list(REDUCTION_CHECKS))
def test_reduction_checks_as_torch(name): _same(REDUCTION_CHECKS[name])

# --- parametrizations.weight_norm of a 1-d parameter (a bias): g keeps every element's norm, as torch's norm_except_dim
def _weight_norm_case(L, mk, **kw):
    m, n = mk(L), kw.get('name', 'weight')
    with L.no_grad(): getattr(m, n).copy_(L.arange(float(getattr(m, n).numel())).reshape(getattr(m, n).shape) - 1.5)   # (no 0: its g is 0, its grad NaN)
    m = L.nn.utils.parametrizations.weight_norm(m, **kw); p = getattr(m.parametrizations, n)
    getattr(m, n).sum().backward()
    return p.original0, getattr(m, n), p.original0.grad, p.original1.grad.mul(1e5).round().div(1e5)   # (v's gradient: a last bit apart, 0 vs 3e-8)
WEIGHT_NORM_CHECKS = {
    'weight_norm of a Linear bias': lambda L: _weight_norm_case(L, lambda L: L.nn.Linear(2, 3), name='bias'),
    'weight_norm of a Linear bias, dim=None': lambda L: _weight_norm_case(L, lambda L: L.nn.Linear(2, 3), name='bias', dim=None),
    'weight_norm of a Conv1d weight, dim=1': lambda L: _weight_norm_case(L, lambda L: L.nn.Conv1d(2, 3, 2), dim=1),
    'weight_norm of a Linear weight, dim=None': lambda L: _weight_norm_case(L, lambda L: L.nn.Linear(2, 3), dim=None),
}

@pytest.mark.parametrize('name', list(WEIGHT_NORM_CHECKS))
def test_weight_norm_checks_as_torch(name): _same(WEIGHT_NORM_CHECKS[name])

# --- nn options torch's parser types (ignore_index an int, label_smoothing a float, log_target a bool), a module's
# memory_format, a bool alpha of in-place add_/sub_ and of an optimizer's weight decay, capturable steps on the CPU
def _ce(L, **kw): return L.nn.functional.cross_entropy(L.full((3, 4), 0.3), L.tensor([0, 1, 3]), **kw)
def _opt_step(L, name, **kw):
    L.manual_seed(0)
    w = L.nn.Parameter(L.ones(2, 2)); w.grad = L.full((2, 2), 0.5)
    o = getattr(L.optim, name)([w], **kw)
    try: o.step()
    except Exception as e: return (type(e).__name__, str(e), w)    # the parameter is unchanged (torch may keep new state)
    return w
MODULE_AND_OPTIM_OPTIONS = {
    'cross_entropy ignore_index float': lambda L: _ce(L, ignore_index=2.5),
    'cross_entropy ignore_index str': lambda L: _ce(L, ignore_index='x'),
    'cross_entropy ignore_index bool': lambda L: _ce(L, ignore_index=True),
    'cross_entropy ignore_index 0-d tensor': lambda L: _ce(L, ignore_index=L.tensor(1)),
    'cross_entropy label_smoothing str': lambda L: _ce(L, label_smoothing='x'),
    'cross_entropy label_smoothing 0-d tensor': lambda L: _ce(L, label_smoothing=L.tensor(0.25)),
    'CrossEntropyLoss ignore_index float': lambda L: L.nn.CrossEntropyLoss(ignore_index=2.5)(L.full((3, 4), 0.3), L.tensor([0, 1, 3])),
    'nll_loss ignore_index str': lambda L: L.nn.functional.nll_loss(L.full((3, 4), -0.3), L.tensor([0, 1, 3]), ignore_index='x'),
    'NLLLoss ignore_index float': lambda L: L.nn.NLLLoss(ignore_index=2.5)(L.full((3, 4), -0.3), L.tensor([0, 1, 3])),
    'kl_div log_target str': lambda L: L.nn.functional.kl_div(L.ones(3, 4), L.ones(3, 4), reduction='sum', log_target='x'),
    'KLDivLoss log_target 1': lambda L: L.nn.KLDivLoss(reduction='sum', log_target=1)(L.ones(3, 4), L.ones(3, 4)),
    'Module.to memory_format str': lambda L: _lin(L).to(memory_format='x'),
    'Module.to dtype and memory_format int': lambda L: _lin(L).to(L.float64, memory_format=3),
    'Module.to memory_format None': lambda L: _lin(L).to(memory_format=None).weight.dtype is L.float32,
    'Module.to channels_last': lambda L: _lin(L).to(memory_format=L.channels_last).weight,
    'add_ bool alpha': lambda L: L.ones(2).add_(L.ones(2), alpha=True),
    'add_ bool alpha, a number': lambda L: L.ones(2).add_(1, alpha=True),
    'sub_ bool alpha': lambda L: L.ones(2).sub_(L.ones(2), alpha=True),
    'add_ numpy bool alpha': lambda L: L.ones(2).add_(L.ones(2), alpha=np.bool_(True)),
    'add_ bool alpha into bool': lambda L: L.ones(2, dtype=L.bool).add_(L.ones(2, dtype=L.bool), alpha=True),
    'add_ float alpha 1': lambda L: L.ones(2).add_(L.ones(2), alpha=1.0),
}
for name in ['SGD', 'Adam', 'RMSprop', 'Adagrad', 'Adamax', 'NAdam', 'RAdam', 'ASGD']:
    MODULE_AND_OPTIM_OPTIONS[f'{name} weight_decay=True'] = lambda L, name=name: _opt_step(L, name, weight_decay=True)
MODULE_AND_OPTIM_OPTIONS['SGD nesterov momentum=True'] = lambda L: _opt_step(L, 'SGD', momentum=True, nesterov=True)
MODULE_AND_OPTIM_OPTIONS['AdamW weight_decay=True'] = lambda L: _opt_step(L, 'AdamW', weight_decay=True)
for name in ['Adam', 'AdamW', 'RMSprop', 'Adadelta', 'Adamax', 'NAdam', 'RAdam', 'ASGD', 'Rprop']:
    MODULE_AND_OPTIM_OPTIONS[f'{name} capturable on the CPU'] = lambda L, name=name: _opt_step(L, name, capturable=True)

@pytest.mark.parametrize('name', list(MODULE_AND_OPTIM_OPTIONS))
def test_module_and_optim_options_as_torch(name): _same(MODULE_AND_OPTIM_OPTIONS[name])

# --- Optimizer.load_state_dict is atomic: a state its optimizer's __setstate__ refuses (Adam's, from SGD with momentum,
# has no 'step') raises torch's KeyError and leaves the optimizer as it was (torch's is left holding the refused state)
@pytest.mark.parametrize('name', ['Adam', 'AdamW', 'NAdam', 'RAdam', 'Adamax', 'ASGD'])
def test_optimizer_load_state_dict_refused_changes_nothing(name):
    w = litnn.nn.Parameter(litnn.ones(2)); w.grad = litnn.ones(2)
    o = getattr(litnn.optim, name)([w], lr=0.1)
    o.step()
    sgd = litnn.optim.SGD([w], lr=0.5, momentum=0.9); sgd.step()
    before = (repr(o.state_dict()), o.param_groups[0]['lr'])
    tw = torch.nn.Parameter(torch.ones(2)); tw.grad = torch.ones(2)
    to = getattr(torch.optim, name)([tw], lr=0.1); to.step()
    ts = torch.optim.SGD([tw], lr=0.5, momentum=0.9); ts.step()
    with pytest.raises(KeyError) as te: to.load_state_dict(ts.state_dict())
    with pytest.raises(KeyError) as le: o.load_state_dict(sgd.state_dict())
    assert str(le.value) == str(te.value)
    assert (repr(o.state_dict()), o.param_groups[0]['lr']) == before
    o.step()                          # and it still steps
MODULE_AND_OPTIM_OPTIONS['Adadelta weight_decay=True'] = lambda L: _opt_step(L, 'Adadelta', weight_decay=True)
MODULE_AND_OPTIM_OPTIONS['Adadelta weight_decay 0.1'] = lambda L: _opt_step(L, 'Adadelta', weight_decay=0.1, lr=0.5)

# --- a refused call leaves the module as it was: BatchNorm's forward does not count a batch it refuses (torch's counts
# it), weight_norm with a dim out of range keeps the weight (torch's has deleted it), a parametrization whose right_inverse
# changes the shape leaves the tensor's value (torch's keeps right_inverse's); the errors are torch's
def _bn_one_sample(L):
    m = L.nn.BatchNorm1d(3)
    with pytest.raises(ValueError) as e: m(L.ones(1, 3))
    with pytest.raises(RuntimeError): m(L.ones(2, 4))         # another channel count
    return str(e.value)
def _weight_norm_bad_dim(L):
    L.manual_seed(0); m = L.nn.Linear(2, 3)
    with pytest.raises(IndexError) as e: L.nn.utils.weight_norm(m, dim=5)
    return str(e.value)

def _parametrize_reshaping_inverse(L):
    m = L.nn.BatchNorm1d(3)
    P = type('P', (L.nn.Module,), {'forward': lambda s, x: x, 'right_inverse': lambda s, x: x[:1]})
    with pytest.raises(ValueError) as e: L.nn.utils.parametrize.register_parametrization(m, 'weight', P())
    return str(e.value)

@pytest.mark.parametrize('case', [_bn_one_sample, _weight_norm_bad_dim, _parametrize_reshaping_inverse])
def test_refused_module_calls_change_nothing(case):
    assert case(litnn).replace('litnn', 'torch') == case(torch)
    m = litnn.nn.BatchNorm1d(3) if case is _bn_one_sample else litnn.nn.Linear(2, 3)
    if case is _parametrize_reshaping_inverse:     # torch's BatchNorm is left with the 1-element weight right_inverse made
        m = litnn.nn.BatchNorm1d(3); m.weight.data.fill_(2.)
        P = type('P', (litnn.nn.Module,), {'forward': lambda s, x: x, 'right_inverse': lambda s, x: x[:1]})
        with pytest.raises(ValueError): litnn.nn.utils.parametrize.register_parametrization(m, 'weight', P())
        assert m.weight.tolist() == [2., 2., 2.] and type(m) is litnn.nn.BatchNorm1d and not hasattr(m, 'parametrizations')
    elif case is _bn_one_sample:
        for x in (litnn.ones(1, 3), litnn.ones(2, 4)):
            with pytest.raises(Exception): m(x)
        assert m.num_batches_tracked.item() == 0 and m(litnn.ones(2, 3)).shape == (2, 3) and m.num_batches_tracked.item() == 1
    else:
        names = [n for n, _ in m.named_parameters()]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with pytest.raises(IndexError): litnn.nn.utils.weight_norm(m, dim=5)
        assert [n for n, _ in m.named_parameters()] == names and not m._forward_pre_hooks

# --- layer options torch's parser types (an int divisor_override, bool embedding flags, float eps and momentum), and the
# kernel checks of transposed convolutions and 3-d pooling, before numpy could answer with its own error or a result
LAYER_OPTIONS = {
    'AvgPool2d divisor_override 1.5': lambda L: L.nn.AvgPool2d(2, divisor_override=1.5)(L.ones(1, 2, 6, 6)),
    'AvgPool3d divisor_override 1.5': lambda L: L.nn.AvgPool3d(2, divisor_override=1.5)(L.ones(1, 2, 4, 4, 4)),
    'avg_pool2d divisor_override 0-d tensor': lambda L: L.nn.functional.avg_pool2d(L.ones(1, 2, 6, 6), 2, divisor_override=L.tensor(3)),
    'Embedding sparse=1': lambda L: L.nn.Embedding(10, 3, sparse=1)(L.tensor([1, 2])).shape,
    'Embedding scale_grad_by_freq=1': lambda L: L.nn.Embedding(10, 3, scale_grad_by_freq=1)(L.tensor([1, 2])).shape,
    'EmbeddingBag sparse=1': lambda L: L.nn.EmbeddingBag(10, 3, sparse=1)(L.tensor([[1, 2]])),
    'embedding_bag scale_grad_by_freq=1': lambda L: L.nn.functional.embedding_bag(L.tensor([1, 2]), L.ones(10, 3), L.tensor([0]), scale_grad_by_freq=1),
    'embedding_bag include_last_offset=1': lambda L: L.nn.functional.embedding_bag(L.tensor([1, 2]), L.ones(10, 3), L.tensor([0]), include_last_offset=1),
    'embedding_bag sparse=1 and a bad mode: the mode first': lambda L: L.nn.functional.embedding_bag(L.tensor([1, 2]), L.ones(10, 3), L.tensor([0]), sparse=1, mode='bad'),
    'F.embedding sparse None': lambda L: L.nn.functional.embedding(L.tensor([1, 2]), L.ones(10, 3), sparse=None),
    'LayerNorm eps str': lambda L: L.nn.LayerNorm(4, eps='x')(L.ones(2, 3, 4)),
    'layer_norm eps 0-d tensor': lambda L: [round(v, 3) for v in L.nn.functional.layer_norm(L.arange(8.).reshape(2, 4), (4,), eps=L.tensor(0.5)).flatten().tolist()],
    'GroupNorm eps str': lambda L: L.nn.GroupNorm(2, 4, eps='x')(L.ones(2, 4, 3)),
    'group_norm eps None': lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3), 2, eps=None),
    'InstanceNorm1d eps str': lambda L: L.nn.InstanceNorm1d(3, eps='x')(L.ones(2, 3, 5)),
    'InstanceNorm2d momentum str': lambda L: L.nn.InstanceNorm2d(3, momentum='x', track_running_stats=True)(L.ones(2, 3, 4, 4)),
    'InstanceNorm1d momentum None': lambda L: [round(v, 3) for v in L.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True)(L.arange(30.).reshape(2, 3, 5)).flatten().tolist()],
    'ConvTranspose2d no out_channels': lambda L: L.nn.ConvTranspose2d(2, 0, 3)(L.ones(1, 2, 5, 5)),
    'ConvTranspose1d no out_channels': lambda L: L.nn.ConvTranspose1d(2, 0, 3)(L.ones(1, 2, 5)),
    'ConvTranspose2d kernel 0': lambda L: L.nn.ConvTranspose2d(2, 4, 0)(L.ones(1, 2, 5, 5)),
    'ConvTranspose1d kernel 0': lambda L: L.nn.ConvTranspose1d(2, 4, 0)(L.ones(1, 2, 5)),
    'conv_transpose2d kernel 0 and dilation 0': lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 2, 5, 5), L.ones(2, 3, 0, 3), dilation=0),
    'conv_transpose2d empty image before the empty weight': lambda L: L.nn.functional.conv_transpose2d(L.ones(1, 2, 0, 5), L.ones(2, 0, 3, 3)),
    'LocalResponseNorm size 0': lambda L: L.nn.LocalResponseNorm(0)(L.ones(1, 4, 3, 3)),
    'LocalResponseNorm size -1': lambda L: L.nn.LocalResponseNorm(-1)(L.ones(1, 4, 3, 3)),
    'LocalResponseNorm size 0, 3-d': lambda L: L.nn.LocalResponseNorm(0)(L.ones(1, 4, 3)),
    'max_pool3d kernel -1': lambda L: L.nn.functional.max_pool3d(L.ones(1, 1, 3, 3, 3), (-1, 1, 1), stride=1),
    'avg_pool3d kernel -3: the pad check first': lambda L: L.nn.functional.avg_pool3d(L.ones(1, 1, 3, 3, 3), (-3, 1, 1), stride=1),
    'avg_pool3d kernel 0 before the empty input': lambda L: L.nn.functional.avg_pool3d(L.ones(1, 1, 3, 3, 0), (0, 1, 1), stride=1),
    'Bilinear no out_features': lambda L: L.nn.Bilinear(4, 5, 0)(L.ones(2, 4), L.ones(2, 5)),
    'Upsample scale_factor inf': lambda L: L.nn.Upsample(None, float('inf'))(L.ones(1, 2, 3, 3)),
    'interpolate scale_factor nan, linear': lambda L: L.nn.functional.interpolate(L.ones(1, 2, 3), scale_factor=float('nan'), mode='linear'),
    'CosineSimilarity eps -1': lambda L: L.nn.CosineSimilarity(eps=-1.)(L.ones(2, 3), L.ones(4, 3)),
    'cosine_similarity eps -1e-9': lambda L: L.nn.functional.cosine_similarity(L.ones(2, 3), L.ones(2, 3), eps=-1e-9),
    'cosine_similarity eps -1 of integers: the dtype first': lambda L: L.nn.functional.cosine_similarity(L.ones(2, 3, dtype=L.long), L.ones(2, 3, dtype=L.long), eps=-1),
    'MaxUnpool2d kernel -1: a negative output size': lambda L: L.nn.MaxUnpool2d(-1)(*L.nn.MaxPool2d(2, return_indices=True)(L.arange(32.).reshape(1, 2, 4, 4))),
    'MaxUnpool2d padding 2.0: a float output size': lambda L: L.nn.MaxUnpool2d(2, padding=2.0)(*L.nn.MaxPool2d(2, return_indices=True)(L.arange(32.).reshape(1, 2, 4, 4))),
    'MaxUnpool1d padding 1.5: named as the 2-d function': lambda L: L.nn.MaxUnpool1d(2, padding=1.5)(*L.nn.MaxPool1d(2, return_indices=True)(L.arange(8.).reshape(1, 2, 4))),
    'MaxUnpool3d padding 2.0': lambda L: L.nn.MaxUnpool3d(2, padding=2.0)(*L.nn.MaxPool3d(2, return_indices=True)(L.arange(128.).reshape(1, 2, 4, 4, 4))),
    'MaxUnpool2d output_size given': lambda L: L.nn.MaxUnpool2d(2)(*L.nn.MaxPool2d(2, return_indices=True)(L.arange(32.).reshape(1, 2, 4, 4)), output_size=(4, 5)),
    'bilinear of an empty batch': lambda L: L.nn.functional.bilinear(L.ones(0, 4), L.ones(0, 5), L.ones(3, 4, 5)),
}

@pytest.mark.parametrize('name', list(LAYER_OPTIONS))
def test_layer_options_as_torch(name): _same(LAYER_OPTIONS[name])

# --- ctc_loss's checks in torch's order (the lengths' sizes, the target lengths' signs, the targets' size, then the input
# lengths); clip_grad_norm_ reads max_norm as a float before it looks for gradients; an LSTM checks its states' sizes before their dtype
def _ctc(L, il, tl, targets=((1, 2), (3, 4))):
    return L.nn.CTCLoss()(L.full((4, 2, 5), -1.6), L.tensor(targets), L.tensor(il), L.tensor(tl))
def _no_grads(L): return [L.nn.Parameter(L.ones(2))]
ORDER_CHECKS = {
    'ctc_loss target longer than the targets and input_lengths past T': lambda L: _ctc(L, [5, 4], [5, 2]),
    'ctc_loss negative target length and input_lengths past T': lambda L: _ctc(L, [5, 4], [-1, 2]),
    'ctc_loss concatenated targets short and input_lengths past T': lambda L: _ctc(L, [5, 4], [5, 2], (1, 2, 3, 4)),
    'ctc_loss negative input length': lambda L: _ctc(L, [-1, 4], [2, 2]),
    'clip_grad_norm_ max_norm a str, no gradients': lambda L: L.nn.utils.clip_grad_norm_(_no_grads(L), 'x'),
    'clip_grad_norm_ max_norm None, no gradients': lambda L: L.nn.utils.clip_grad_norm_(_no_grads(L), None),
    'clip_grads_with_norm_ max_norm a str, no gradients': lambda L: L.nn.utils.clip_grads_with_norm_(_no_grads(L), 'x', L.tensor(1.)),
    'LSTM hx of another size and dtype: the size first': lambda L: L.nn.LSTM(4, 5)(L.ones(3, 2, 4), (L.zeros(4, 2, 5, dtype=L.int64), L.zeros(1, 2, 5)))[0],
    'LSTM input of another size, hx int: the input first': lambda L: L.nn.LSTM(4, 5)(L.ones(3, 2, 5), (L.zeros(1, 2, 5, dtype=L.int64), L.zeros(1, 2, 5)))[0],
    'LSTM three states': lambda L: L.nn.LSTM(4, 5)(L.ones(3, 2, 4), (L.zeros(1, 2, 5),) * 3)[0],
}

@pytest.mark.parametrize('name', list(ORDER_CHECKS))
def test_check_order_as_torch(name): _same(ORDER_CHECKS[name])

# --- a refused pruning leaves the module as it was (torch's re-registers the parameter last, and pruning a tensor again
# drops the hook already pruning it); the errors are torch's
def _prune_refusals(L):
    import importlib; P = importlib.import_module(L.__name__ + '.nn.utils.prune')
    out = []
    for f in [lambda m: P.l1_unstructured(m, 'weight', amount=10), lambda m: P.ln_structured(m, 'weight', amount=1, n=2, dim=5),
              lambda m: P.custom_from_mask(m, 'weight', mask=L.ones(2))]:
        L.manual_seed(0); m = L.nn.Linear(2, 3)
        with pytest.raises(Exception) as e: f(m)
        out.append((e.type.__name__, str(e.value).replace('litnn', 'torch')))
        if L is litnn: assert [n for n, _ in m.named_parameters()] == ['weight', 'bias'] and not m._forward_pre_hooks and not dict(m.named_buffers())
    L.manual_seed(0); m = L.nn.Linear(2, 3); P.l1_unstructured(m, 'weight', amount=1)
    with pytest.raises(ValueError) as e: P.l1_unstructured(m, 'weight', amount=10)
    if L is litnn:
        assert len(m._forward_pre_hooks) == 1 and (m(L.ones(1, 2)) == m.weight_orig.mul(m.weight_mask).sum(1) + m.bias).all()
    return out + [str(e.value)]

def test_refused_pruning_changes_nothing(): assert _prune_refusals(litnn) == _prune_refusals(torch)

# --- distributions, fft, special, complex tensors and nn utilities given what they refuse (op-misuse-8)
def _Dn(L): return L.distributions
def _mvn(L, cov, **kw): return tuple(_Dn(L).MultivariateNormal(L.zeros(2), L.tensor(cov), **kw).event_shape)
_NAN, _INF = float('nan'), float('inf')
def _setitem(L, key, value):
    x = L.zeros(3)
    x[key(L)] = value(L)
    return x
MISUSE_8 = {
    # cholesky (LAPACK's potrf) stops at a NaN pivot: NaN or inf in the matrix is "not positive-definite"
    'cholesky of inf': lambda L: L.linalg.cholesky(L.full((2, 2), _INF)),
    'cholesky of a NaN pivot': lambda L: L.linalg.cholesky(L.tensor([[_NAN, 0.], [0., 1.]])),
    'cholesky of a NaN below the diagonal': lambda L: L.linalg.cholesky(L.tensor([[[1., 0.], [0., 1.]], [[1., 0.], [_NAN, 1.]]])),
    'cholesky of inf below the diagonal': lambda L: L.linalg.cholesky(L.tensor([[1., 0.], [_INF, 1.]])),
    'cholesky of inf in the last pivot': lambda L: L.linalg.cholesky(L.tensor([[4., 2.], [2., _INF]])),
    'cholesky NaN above the diagonal (not read)': lambda L: L.linalg.cholesky(L.tensor([[1., _NAN], [0., 1.]])),
    'cholesky_ex of inf': lambda L: L.linalg.cholesky_ex(L.full((2, 2), _INF)).info,
    'cholesky_ex of NaNs, batched': lambda L: L.linalg.cholesky_ex(L.tensor([[[1., 0.], [0., 1.]], [[1., _NAN], [_NAN, 1.]]])).info,
    'MultivariateNormal inf covariance, validated': lambda L: _mvn(L, [[_INF, _INF], [_INF, _INF]], validate_args=True),
    'MultivariateNormal NaN covariance, not validated': lambda L: _mvn(L, [[_NAN, 0.], [0., 1.]], validate_args=False),
    'Wishart inf covariance, not validated': lambda L: tuple(_Dn(L).Wishart(L.tensor([3.]), L.full((2, 2), _INF), validate_args=False).batch_shape),
    'LowRankMultivariateNormal NaN cov_diag': lambda L: tuple(_Dn(L).LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), L.tensor([_NAN, 1.])).batch_shape),
    # torch.finfo of an integer dtype is torch's TypeError
    'Gumbel of integer loc': lambda L: _Dn(L).Gumbel(L.tensor([0, 1]), L.tensor([1., 2.])).batch_shape,
    'ContinuousBernoulli of integer probs': lambda L: _Dn(L).ContinuousBernoulli(L.tensor([0, 1])).batch_shape,
    'RelaxedBernoulli log_prob of integers': lambda L: _Dn(L).RelaxedBernoulli(L.tensor([0.5]), L.tensor([0.3, 0.6])).log_prob(L.ones(2, dtype=L.int64)),
    'SigmoidTransform of integers': lambda L: _Dn(L).transforms.SigmoidTransform()(L.ones(4, dtype=L.int64)),
    'StickBreakingTransform inverse of integers': lambda L: _Dn(L).transforms.StickBreakingTransform().inv(L.ones(4, dtype=L.int64)),
    'SoftplusTransform of integers (nn.functional.softplus)': lambda L: _Dn(L).transforms.SoftplusTransform()(L.ones(2, dtype=L.int64)),
    'SoftplusTransform log_abs_det_jacobian of bools': lambda L: _Dn(L).transforms.SoftplusTransform().log_abs_det_jacobian(L.ones(2, dtype=L.bool), None),
    'ContinuousBernoulli cdf at inf': lambda L: _Dn(L).ContinuousBernoulli(L.tensor([0.3, 0.6]), validate_args=False).cdf(L.tensor([_INF, -_INF])),
    'IndependentTransform of a 0-d input': lambda L: _Dn(L).transforms.IndependentTransform(_Dn(L).transforms.ExpTransform(), 1)(L.tensor(0.5)),
    'IndependentTransform inverse of a 0-d input': lambda L: _Dn(L).transforms.IndependentTransform(_Dn(L).transforms.ExpTransform(), 1).inv(L.tensor(0.5)),
    'IndependentTransform with -1 dims': lambda L: _Dn(L).transforms.IndependentTransform(_Dn(L).transforms.ExpTransform(), -1)(L.ones(4)),
    'PowerTransform forward_shape of a float': lambda L: _Dn(L).transforms.PowerTransform(L.tensor(2.)).forward_shape(0.5),
    'AffineTransform inverse_shape of a float': lambda L: _Dn(L).transforms.AffineTransform(0., 2.).inverse_shape(0.5),
    'AffineTransform forward_shape broadcasts': lambda L: _Dn(L).transforms.AffineTransform(0., L.ones(3)).forward_shape((2, 1)),
    'AffineTransform forward_shape mismatch': lambda L: _Dn(L).transforms.AffineTransform(0., L.ones(3)).forward_shape((2, 2)),
    # fft: an inverse transform of a real input writes through conj_physical's out=, which keeps its dtype
    'ifft of a real input into a complex128 out': lambda L: L.fft.ifft(L.arange(4.), out=L.empty(4, dtype=L.complex128)),
    'ihfft of a real input into a complex128 out': lambda L: L.fft.ihfft(L.arange(4.), out=L.empty(3, dtype=L.complex128)),
    'ifft of a complex input into a complex128 out': lambda L: L.fft.ifft(L.arange(4.).to(L.complex64), out=L.empty(4, dtype=L.complex128)),
    'fft of a real input into a complex128 out': lambda L: L.fft.fft(L.arange(4.), out=L.empty(4, dtype=L.complex128)),
    # special: a number is not a tensor; special.round keeps its dtype in out=
    **{f'special.{f} of a float': (lambda L, f=f: getattr(L.special, f)(0.5)) for f in ['airy_ai', 'bessel_j0', 'bessel_y1', 'modified_bessel_k0',
        'scaled_modified_bessel_k1', 'spherical_bessel_j0', 'entr', 'erfcx', 'i0e', 'i1', 'i1e', 'log_ndtr', 'ndtr', 'ndtri']},
    'special.i1e of a list': lambda L: L.special.i1e([0.5]),
    'special.round into a float64 out': lambda L: L.special.round(L.tensor([0.5, 1.5]), out=L.empty(2, dtype=L.float64)),
    'special.round into a float32 out': lambda L: L.special.round(L.tensor([0.5, 1.5]), out=L.empty(2)),
    'Size of a Size item (sample_n of a Size)': lambda L: L.Size([L.Size([2])]),
    'Size of a numpy float item': lambda L: L.Size([np.float64(2.)]),
    'Normal.sample_n of a Size': lambda L: _Dn(L).Normal(0., 1.).sample_n(L.Size([2])),
    # complex tensors
    'real[index tensor] = complex tensor': lambda L: _setitem(L, lambda L: L.tensor([0, 1]), lambda L: L.tensor([1j, 2j])),
    'real[index list] = complex tensor': lambda L: _setitem(L, lambda L: [0, 1], lambda L: L.tensor([1j, 2j])),
    'real[index tensor] = complex 0-d': lambda L: _setitem(L, lambda L: L.tensor([0, 1]), lambda L: L.tensor(1j)),
    'real[mask] = complex 0-d': lambda L: _setitem(L, lambda L: L.tensor([True, False, True]), lambda L: L.tensor(1j)),
    'real[mask] = complex 0-d with no imaginary part': lambda L: _setitem(L, lambda L: L.tensor([True, False, True]), lambda L: L.tensor(2 + 0j)),
    'real[mask] = complex tensor': lambda L: _setitem(L, lambda L: L.tensor([True, False, True]), lambda L: L.tensor([1j, 2j])),
    'real[slice] = complex tensor (copy_: real part)': lambda L: _setitem(L, lambda L: slice(0, 2), lambda L: L.tensor([1 + 1j, 2j])),
    'real[index tensor] = complex number': lambda L: _setitem(L, lambda L: L.tensor([0, 1]), lambda L: 1 + 1j),
    'view_as_complex at an odd storage offset': lambda L: L.view_as_complex(L.zeros(3, 4)[:, 1:3]),
    'view_as_complex of a reshaped odd offset': lambda L: L.view_as_complex(L.arange(7.)[1:].reshape(3, 2)),
    'view_as_complex at an even storage offset': lambda L: L.view_as_complex(L.arange(8.)[2:].reshape(3, 2)),
    'view_as_complex of no elements': lambda L: L.view_as_complex(L.zeros(0, 2)),
    'view_as_complex of an expanded last dim': lambda L: L.view_as_complex(L.zeros(3, 1).expand(3, 2)),
    'mvlgamma of complex': lambda L: L.mvlgamma(L.ones(2, dtype=L.complex64), 1),
    'mvlgamma of complex, p checked first': lambda L: L.ones(2, dtype=L.complex128).mvlgamma(0),
    'mvlgamma of bool, before p': lambda L: L.mvlgamma(L.ones(2, dtype=L.bool), 0),
    'special.multigammaln of bool': lambda L: L.special.multigammaln(L.ones(2, dtype=L.bool), 1),
    'random_ of complex': lambda L: L.zeros(2, dtype=L.complex64).random_(),
    'random_(to) of complex': lambda L: L.zeros(2, dtype=L.complex64).random_(5),
    'random_(from, to) of complex': lambda L: L.zeros(2, dtype=L.complex64).random_(0, 5),
    'random_(from > to) of complex': lambda L: L.zeros(2, dtype=L.complex64).random_(5, 3),
    'log_normal_ of complex': lambda L: L.zeros(2, dtype=L.complex64).log_normal_(),
    'log_normal_ of integers, a bad std first': lambda L: L.zeros(2, dtype=L.int64).log_normal_(std=-1.),
    'geometric_ of complex': lambda L: L.zeros(2, dtype=L.complex64).geometric_(0.5),
    'geometric_ of bool': lambda L: L.zeros(2, dtype=L.bool).geometric_(0.5),
    'geometric_ of integers': lambda L: L.zeros(2, dtype=L.int64).geometric_(0.5).ge(1),
    # nn utilities
    'init.orthogonal_ of complex': lambda L: L.nn.init.orthogonal_(L.empty(2, 3, dtype=L.complex64)),
    'weight_norm of an attribute that is no parameter': lambda L: L.nn.utils.weight_norm(_lin(L), 'training'),
    'pack_padded_sequence with lengths on meta': lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(3, 2, 2), L.tensor([3, 2], device='meta')),
    'pack_padded_sequence unsorted, lengths on meta': lambda L: L.nn.utils.rnn.pack_padded_sequence(L.ones(3, 2, 2), L.tensor([3, 2], device='meta'), enforce_sorted=False),
    'weight_norm of a missing name': lambda L: L.nn.utils.weight_norm(_lin(L), 'nope'),
}

class _warn_always:
    "torch's and litnn's TORCH_WARN_ONCE warnings given every time inside: a case's warning leaves the once of another test alone."
    def __enter__(self):
        self.was = [L.is_warn_always_enabled() for L in (torch, litnn)]
        for L in (torch, litnn): L.set_warn_always(True)
    def __exit__(self, *exc):
        for L, w in zip((torch, litnn), self.was): L.set_warn_always(w)

@pytest.mark.parametrize('name', list(MISUSE_8))
def test_misuse_8_as_torch(name):
    with _warn_always(): _same(MISUSE_8[name])

def test_refused_setitem_and_weight_norm_change_nothing():
    "A refused `x[index] = complex` leaves x; a refused weight_norm leaves the module's parameters and hooks."
    for L in (torch, litnn):
        x = L.arange(3.)
        with _warn_always(), pytest.raises(RuntimeError): x[L.tensor([0, 1])] = L.tensor([1j, 2j])
        assert x.tolist() == [0., 1., 2.]
        m = _lin(L)
        with pytest.raises(KeyError): L.nn.utils.weight_norm(m, 'training')
        assert [n for n, _ in m.named_parameters()] == ['weight', 'bias'] and not m._forward_pre_hooks

# complex values cast to a real dtype: torch's UserWarning (once a process), never numpy's ComplexWarning; or silently
COMPLEX_CASTS_8 = {
    'fill_ of a real tensor with a complex 0-d tensor': lambda L: L.zeros(2).fill_(L.tensor(1 + 2j)),
    'fill_ of a bool tensor with a complex 0-d tensor': lambda L: L.zeros(2, dtype=L.bool).fill_(L.tensor(3j)),
    'sum(dtype=float32) of complex': lambda L: L.tensor([1 + 2j, -1 + 0j, 3j]).sum(dtype=L.float32),
    'sum(0, dtype=float64) of complex': lambda L: L.tensor([1 + 2j, 2 + 0j]).sum(0, dtype=L.float64),
    'real[slice] = complex warns': lambda L: _setitem(L, lambda L: slice(0, 2), lambda L: L.tensor([1 + 1j, 2j])),
    'real[mask] = complex 0-d, real valued, is silent': lambda L: _setitem(L, lambda L: L.tensor([True, False, True]), lambda L: L.tensor(2 + 0j)),
}

@pytest.mark.parametrize('name', list(COMPLEX_CASTS_8))
def test_complex_casts_warn_as_torch(name):
    "(torch's warning is TORCH_WARN_ONCE: warn always while comparing, so that no test's order matters)"
    with _warn_always(): t, l = (_outcome(COMPLEX_CASTS_8[name], L) for L in (torch, litnn))
    assert l[0] == t[0]
    assert l[1] == [(c, m.split(' (Triggered')[0]) for c, m in t[1]]     # (torch's names its C++ line)

# the same exception type as torch's (its message comes from torch's Python calling torch.clamp on a number)
def _clip_with_number(L, total_norm):
    m = _lin(L)
    for p in m.parameters(): p.grad = L.ones_like(p)
    return L.nn.utils.clip_grads_with_norm_(m.parameters(), 1., total_norm)
TYPE_ONLY_8 = {f'clip_grads_with_norm_ with total_norm {v}': (lambda L, v=v: _clip_with_number(L, v)) for v in (2., float('inf'), 0)}

@pytest.mark.parametrize('name', list(TYPE_ONLY_8))
def test_misuse_8_exception_types_as_torch(name):
    t, l = _run(TYPE_ONLY_8[name], torch), _run(TYPE_ONLY_8[name], litnn)
    assert l[:2] == t[:2] == ('err', 'TypeError'), (t, l)

# --- op-misuse-9: compile / _dynamo / compiler arguments, Generator seeds, thread counts, DataLoader prefetch
def _f9(x): return x * 2
def _seed_kept(L, v):
    "Generator.manual_seed(v) refused or not, and the generator's seed after it (a refused seed changes nothing)."
    g = L.Generator(); g.manual_seed(7)
    try: g.manual_seed(v); r = 'ok'
    except Exception as e: r = (type(e).__name__, str(e))
    return [r, g.initial_seed()]
def _global_seed(L, v):
    "torch.manual_seed converts with int() (a float, a 0-d tensor, a numpy integer); the global state is restored after."
    state = L.get_rng_state()
    try: L.manual_seed(v); return [L.initial_seed(), L.rand(2)]
    finally: L.set_rng_state(state)
MISUSE_9 = {
    "compile backend=''": lambda L: L.compile(_f9, backend=''),
    "compile mode='bad' with backend 'eager' (the mode is the backend's)": lambda L: callable(L.compile(_f9, mode='bad', backend='eager')),
    "compile mode='' with inductor (falsy: the default)": lambda L: callable(L.compile(_f9, mode='', backend='inductor')),
    "compile mode=1 with inductor": lambda L: L.compile(_f9, mode=1),
    "compile options a str": lambda L: L.compile(_f9, options='x'),
    "compile options a str, backend eager": lambda L: callable(L.compile(_f9, options='x', backend='eager')),
    'compile mode and options': lambda L: L.compile(_f9, mode='default', options={}),
    'compile dynamic=1': lambda L: L.compile(_f9, dynamic=1, backend='eager'),
    "compile dynamic='yes'": lambda L: L.compile(_f9, dynamic='yes', backend='eager'),
    "compile of an int with a bad mode (the mode first)": lambda L: L.compile(3, mode='bad'),
    "compile of an int with a bad backend (the backend first)": lambda L: L.compile(3, backend='bad'),
    'compile of an int': lambda L: L.compile(3, backend='eager'),
    '_dynamo.disable of an int': lambda L: L._dynamo.disable(3),
    'compiler.disable of an int': lambda L: L.compiler.disable(3),
    'compiler.allow_in_graph of a str': lambda L: L.compiler.allow_in_graph('s'),
    "_dynamo.optimize('bad')": lambda L: L._dynamo.optimize('bad'),
    '_dynamo.explain(3)(x)': lambda L: L._dynamo.explain(3)(L.ones(2)),
    '_dynamo.explain(None)()': lambda L: L._dynamo.explain(None)(),
    '_dynamo.register_backend(3)': lambda L: L._dynamo.register_backend(3),
    'graph_break() outside fullgraph runs on': lambda L: L.compile(lambda x: (L._dynamo.graph_break(), x + 1)[1], backend='eager')(L.ones(2)),
    **{f'Generator.manual_seed({n})': (lambda L, v=v: _seed_kept(L, v(L))) for n, v in {
        '1.5': lambda L: 1.5, '1.0': lambda L: 1.0, "'3'": lambda L: '3', 'None': lambda L: None, 'True': lambda L: True,
        'a 0-d tensor': lambda L: L.tensor(3), 'np.int64': lambda L: np.int64(5), 'np.float32': lambda L: np.float32(2),
        '3+0j': lambda L: 3 + 0j, '-1': lambda L: -1, '2**64 - 1': lambda L: 2**64 - 1, '2**64': lambda L: 2**64}.items()},
    **{f'manual_seed({n})': (lambda L, v=v: _global_seed(L, v(L))) for n, v in {
        '1.5': lambda L: 1.5, 'np.int64': lambda L: np.int64(5), 'a 0-d tensor': lambda L: L.tensor(3), 'True': lambda L: True}.items()},
    **{f'set_num_threads({v})': (lambda L, v=v: L.set_num_threads(v)) for v in (2**31, 2**63, -2**40, 0)},
    'set_num_interop_threads(2**40)': lambda L: L.set_num_interop_threads(2**40),
    'DataLoader workers with prefetch_factor=0': lambda L: list(L.utils.data.DataLoader(range(4), num_workers=1, prefetch_factor=0)),
}

@pytest.mark.parametrize('name', list(MISUSE_9))
def test_misuse_9_as_torch(name): _same(MISUSE_9[name])

def test_graph_break_under_fullgraph_is_unsupported_as_torch():
    "torch._dynamo.graph_break() in a function compiled with fullgraph=True: torch's Unsupported (its message is its own)."
    for L in (torch, litnn):
        c = L.compile(lambda x: (L._dynamo.graph_break(), x + 1)[1], fullgraph=True, backend='eager')
        with pytest.raises(L._dynamo.exc.Unsupported, match='graph_break'): c(L.ones(2))

# sparse: a size given to sparse_coo_tensor is the whole shape (values with dense dims need them in it); a dense tensor
# of under 2 dims converted to a compressed layout is torch's IndexError
SPARSE_9 = {
    'sparse_coo_tensor size without the dense dim': lambda L: L.sparse_coo_tensor([[0, 1], [1, 0]], [[1., 2.], [3., 4.]], (2, 2)),
    'sparse_coo_tensor size with the dense dim': lambda L: L.sparse_coo_tensor([[0, 1], [1, 0]], [[1., 2.], [3., 4.]], (2, 2, 2)).to_dense(),
    'sparse_coo_tensor size inferred with a dense dim': lambda L: L.sparse_coo_tensor(L.tensor([[0, 1]]), L.ones(2, 3)).to_dense(),
    **{f'{d}-d to_sparse(layout={lay}, blocksize={bs})': (lambda L, d=d, lay=lay, bs=bs: (L.ones(4) if d else L.tensor(1.)).to_sparse(layout=getattr(L, lay), blocksize=bs))
       for d in (0, 1) for lay, bs in (('sparse_csr', None), ('sparse_csc', None), ('sparse_bsr', (1, 1)), ('sparse_bsc', (2, 2)))},
    '1-d to_sparse_bsr': lambda L: L.ones(4).to_sparse_bsr((2, 2)),
}

@pytest.mark.parametrize('name', list(SPARSE_9))
def test_sparse_misuse_9_as_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')      # (torch's "Sparse invariant checks are implicitly disabled")
        _same(SPARSE_9[name])

def test_compile_keywords_as_torch():
    "torch.compile takes its own keywords only: an unknown one is Python's TypeError; torch's newer ones are accepted."
    for L in (torch, litnn):
        with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"): L.compile(_f9, foo=1)
        assert L.compile(_f9, backend='eager', name='f', recompile_limit=4, isolate_recompiles=False, shapes_spec=None)(L.ones(2)).tolist() == [2., 2.]

# --- op-misuse-10: index writes, tensor construction, torch.save/torch.load destinations and arguments
def _g3(L): return L.arange(24.).reshape(2, 3, 4)
def _written(L, key, value):
    "`x[key] = value` into a (2, 3, 4) tensor, and the tensor after (a refused write leaves it as it was)."
    x = _g3(L)
    try: x[key(L)] = value(L)
    except Exception as e: return [type(e).__name__, str(e).replace('litnn', 'torch'), x]
    return x
def _called(L, method, *args, **kw):
    "`x.method(*args)` on a (3, 4) tensor of zeros, and the tensor after (a refused call leaves it as it was)."
    x = L.zeros(3, 4)
    try: r = getattr(x, method)(*(a(L) if callable(a) else a for a in args), **kw)
    except Exception as e: return [type(e).__name__, str(e).replace('litnn', 'torch'), x]
    return [r, x]
MISUSE_10 = {
    # x[index tensors] = value is torch's index_put: the value's shape is checked against the indexed shape before the positions
    'setitem out-of-range index tensor and a value that does not broadcast': lambda L: _written(L, lambda L: L.tensor([0, 2]), lambda L: L.ones(5)),
    'setitem out-of-range index list and a value that does not broadcast': lambda L: _written(L, lambda L: (0, [0, 1], [0, 5]), lambda L: L.ones(3)),
    'setitem full-rank mask and a 2-d value': lambda L: _written(L, lambda L: L.ones(2, 3, 4, dtype=L.bool), lambda L: L.ones(3, 4)),
    'setitem mask of the wrong shape and a complex value': lambda L: _written(L, lambda L: L.tensor([True, False, True]), lambda L: L.tensor(1 + 1j)),
    # index_fill_: a value tensor's dims first, then the index's dtype, then the dim, then the index's dims
    'index_fill_ 1-d value with an int32 index': lambda L: _called(L, 'index_fill_', 0, lambda L: L.tensor([0, 1], dtype=L.int32), lambda L: L.ones(2)),
    'index_fill_ 1-d value with a bad dim': lambda L: _called(L, 'index_fill_', 2, lambda L: L.tensor([0, 1]), lambda L: L.ones(2)),
    'index_fill_ 2-d index': lambda L: _called(L, 'index_fill_', 0, lambda L: L.tensor([[0, 2]]), 1.),
    'index_fill_ 2-d index with a bad dim': lambda L: _called(L, 'index_fill_', 5, lambda L: L.tensor([[0, 2]]), 1.),
    # index tensors of gather/scatter/index_select are int32 or int64 only
    **{f'{m} with a {d} index': (lambda L, m=m, d=d, a=a: _called(L, m, *a(L, getattr(L, d))))
       for d in ('int16', 'int8', 'uint8') for m, a in (
           ('index_select', lambda L, dt: (0, L.tensor([0, 1], dtype=dt))), ('gather', lambda L, dt: (0, L.zeros(1, 4, dtype=dt))),
           ('scatter_add', lambda L, dt: (0, L.zeros(1, 4, dtype=dt), L.ones(1, 4))), ('scatter_add_', lambda L, dt: (0, L.zeros(1, 4, dtype=dt), L.ones(1, 4, dtype=L.float64))))},
    'scatter_add with a float index': lambda L: _called(L, 'scatter_add', 0, lambda L: L.zeros(1, 4), lambda L: L.ones(1, 4)),
    # index_reduce_: torch's checks in its order (dim of self, index dims and dtype, source dtype, dim and size, other sizes), then positions
    **{f'index_reduce_ {n}': (lambda L, a=a: _called(L, 'index_reduce_', *a, 'prod')) for n, a in {
        'source of the wrong shape': (0, lambda L: L.tensor([0, 2]), lambda L: L.ones(2, 3)),
        'dim past self (source 3-d)': (2, lambda L: L.tensor([0, 2]), lambda L: L.ones(2, 4, 1)),
        'dim past the 1-d source': (1, lambda L: L.tensor([0, 2]), lambda L: L.ones(4)),
        'float64 source before the count': (1, lambda L: L.tensor([0, 2]), lambda L: L.ones(3, 4, dtype=L.float64)),
        'negative dim past self': (-3, lambda L: L.tensor([0, 2]), lambda L: L.ones(2, 4, 1)),
        'negative index': (0, lambda L: L.tensor([0, -1]), lambda L: L.ones(2, 4)),
        'out-of-range index and a source of the wrong shape': (0, lambda L: L.tensor([0, 5]), lambda L: L.ones(2, 3)),
        '2-d index with a 1-d source': (1, lambda L: L.tensor([[0, 2]]), lambda L: L.ones(4)),
        '0-d source': (0, lambda L: L.tensor([0]), lambda L: L.tensor(1.)),
        'ok': (1, lambda L: L.tensor([0, 2, 0]), lambda L: L.full((3, 3), 2.))}.items()},
    # index_put_ with accumulate: the indices are checked as without it; no indices at all: the value's shape, then torch's kernel error
    'index_put_ accumulate with index tensors that do not broadcast': lambda L: _called(L, 'index_put_', (L.tensor([0, 1]), L.tensor([0, 1, 2])), L.tensor(1.), accumulate=True),
    'index_put_ accumulate with a mask of the wrong shape': lambda L: _called(L, 'index_put_', (L.tensor([True, False]),), L.tensor(1.), accumulate=True),
    'index_put_ accumulate with a value of too many dims': lambda L: _called(L, 'index_put_', (L.tensor([0, 1]), L.tensor([0, 1])), L.ones(2, 4), accumulate=True),
    **{f'index_put_ of no indices, value {v}, accumulate={acc}': (lambda L, v=v, acc=acc: _called(L, 'index_put_', (), eval(v, {'L': L}), accumulate=acc))
       for v in ('L.ones(2)', 'L.ones(3)', 'L.ones(4, dtype=L.float64)') for acc in (False, True)},
    # masked_fill(_): a value tensor's dims first
    **{f'{m} with a 1-d value and a {n} mask': (lambda L, m=m, mk=mk: _called(L, m, mk, lambda L: L.ones(2)))
       for m in ('masked_fill_', 'masked_fill') for n, mk in (('uint8', lambda L: L.ones(3, 4, dtype=L.uint8)), ('3-d', lambda L: L.ones(2, 3, 4, dtype=L.bool)),
                                                              ('non-broadcasting', lambda L: L.ones(3, dtype=L.bool)))},
    # legacy constructors: data must be a sequence (a numpy array of a dtype no tensor has is from_numpy's error), sizes are C long longs
    **{f'{c}({d})': (lambda L, c=c, d=d: getattr(L, c)(eval(d, {'np': np})))
       for c in ('Tensor', 'LongTensor') for d in ('None', '{1, 2}', "{'a': 1}", 'iter([1, 2])', 'np.array([1, 2], dtype=object)',
                                                   "np.array(['a', 'b'])", 'np.datetime64("2020")', '(x for x in [1])')},
    # numbers of Python data for an integer or bool dtype are C integers: numpy floats (not float64) and bools are refused
    **{f'tensor({d}, dtype={t})': (lambda L, d=d, t=t: L.tensor(eval(d, {'np': np}), dtype=getattr(L, t)))
       for d in ('[np.float32(1), 2]', 'np.float16(1.5)', 'np.bool_(True)', '[[1], [np.bool_(True)]]', '[np.float64(1.5)]', '[np.int8(3)]')
       for t in ('int64', 'uint8', 'bool', 'float16')},
}

@pytest.mark.parametrize('name', list(MISUSE_10))
def test_misuse_10_as_torch(name): _same(MISUSE_10[name])

@pytest.mark.parametrize('make', ['tensor', 'Tensor'])
def test_complex_array_to_a_real_dtype_warns_as_torch(make):
    "A complex numpy array made a real tensor keeps its real parts with torch's UserWarning (TORCH_WARN_ONCE: seen with warn_always on), never numpy's ComplexWarning."
    def run(L):
        was = L.is_warn_always_enabled(); L.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                a = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
                r = (L.tensor(a, dtype=L.int8) if make == 'tensor' else L.Tensor(a)).tolist()
        finally: L.set_warn_always(was)
        return r, [(x.category.__name__, str(x.message).split(' (Triggered internally')[0]) for x in w]
    assert run(litnn) == run(torch)

@pytest.mark.parametrize('size', [2**63, -2**63 - 1])
@pytest.mark.parametrize('cls', ['Tensor', 'LongTensor'])
def test_legacy_constructor_size_past_int64_as_torch(cls, size):
    "torch unpacks a legacy constructor's sizes as C long longs: its TypeError (its message ends with a C++ stack, not compared)."
    msgs = []
    for L in (torch, litnn):
        with pytest.raises(TypeError) as e: getattr(L, cls)(size)
        msgs.append(str(e.value).split('\n')[0])
    assert msgs[1].startswith(msgs[0])

def _save_misuse(L, obj, where, tmp, **kw):
    "torch.save(obj(L), where(tmp)) refused or not; then the bytes of tmp/x.pt (saved before: a refused save leaves them)."
    p = tmp / 'x.pt'
    L.save(L.arange(3.), p)
    before = p.read_bytes()
    try: L.save(obj(L), where(tmp), **kw); r = 'ok'
    except Exception as e: r = (type(e).__name__, str(e).replace(str(tmp), '<tmp>').replace('litnn', 'torch'))
    return r, p.read_bytes() == before
SAVE_10 = {
    "save to ''": (lambda L: L.ones(2), lambda tmp: '', {}),
    "save to '' in the legacy format": (lambda L: L.ones(2), lambda tmp: '', {'_use_new_zipfile_serialization': False}),
    'save to a directory in the legacy format': (lambda L: L.ones(2), lambda tmp: tmp, {'_use_new_zipfile_serialization': False}),
    'save to a missing directory in the legacy format': (lambda L: L.ones(2), lambda tmp: tmp / 'no' / 'x.pt', {'_use_new_zipfile_serialization': False}),
    'save to a path ending in a separator': (lambda L: L.ones(2), lambda tmp: str(tmp) + '/', {}),
    'save a lambda to a file opened to read': (lambda L: (lambda: 1), lambda tmp: open(tmp / 'x.pt', 'rb'), {}),
    'save with pickle_module=3': (lambda L: L.ones(2), lambda tmp: tmp / 'no' / 'x.pt', {'pickle_module': 3}),
    'save with pickle_protocol=99 to a missing directory': (lambda L: L.ones(2), lambda tmp: tmp / 'no' / 'x.pt', {'pickle_protocol': 99}),
    'save a lambda to a StringIO (the stream refuses bytes first)': (lambda L: (lambda: 1), lambda tmp: io.StringIO(), {}),
    'save to a file opened as text': (lambda L: L.ones(2), lambda tmp: open(tmp / 'y.txt', 'w'), {}),
}

@pytest.mark.parametrize('name', list(SAVE_10))
def test_save_misuse_10_as_torch(name, tmp_path):
    obj, where, kw = SAVE_10[name]
    (tmp_path / 't').mkdir(); (tmp_path / 'l').mkdir()
    t, l = (_save_misuse(L, obj, where, tmp_path / d, **kw) for L, d in ((torch, 't'), (litnn, 'l')))
    assert l[0] == t[0]
    assert l[1]         # litnn's file is left as it was (torch may have truncated its own)

def test_failed_save_leaves_the_file(tmp_path):
    "A save refused while encoding (an object no checkpoint holds) or by its pickle arguments leaves the file there as it was (torch may truncate it)."
    p = tmp_path / 'x.pt'
    litnn.save({'a': litnn.arange(4.)}, p)
    before = p.read_bytes()
    for kw, obj in (({}, lambda: 1), ({'pickle_module': None}, litnn.ones(2)), ({'pickle_protocol': 99}, litnn.ones(2))):
        with pytest.raises(Exception): litnn.save(obj, p, **kw)
        assert p.read_bytes() == before
    assert [f.name for f in tmp_path.iterdir()] == ['x.pt']     # no temporary file left behind

LOAD_10 = {
    'load a missing file with map_location=3': (lambda p: p.parent / 'missing.pt', {'map_location': 3}),
    'load a missing file with pickle_module=3': (lambda p: p.parent / 'missing.pt', {'pickle_module': 3}),
    'load a missing file with foo=1': (lambda p: p.parent / 'missing.pt', {'foo': 1}),
    'load a directory with map_location=3': (lambda p: p.parent, {'map_location': 3}),
    'load an int with mmap=True': (lambda p: 3, {'mmap': True}),
    'load None with map_location=3': (lambda p: None, {'map_location': 3}),
    'load 3 with pickle_module=3': (lambda p: 3, {'pickle_module': 3}),
}

@pytest.mark.parametrize('name', list(LOAD_10))
def test_load_misuse_10_as_torch(name, tmp_path):
    "torch.load opens the file first (after reading pickle_module's name), then reads the arguments that rebuild its contents."
    where, kw = LOAD_10[name]
    def attempt(L):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: L.load(where(tmp_path / 'x.pt'), **kw)
            except Exception as e: return type(e).__name__, str(e).replace('litnn', 'torch')
    t, l = attempt(torch), attempt(litnn)
    assert l[0] == t[0], (t, l)
    assert l[1].split('. You can only')[0] == t[1].split('. You can only')[0]

def test_weights_only_load_takes_a_layout_as_torch(tmp_path):
    "torch's weights-only unpickler allows torch.layout (as dtypes and devices): a layout saved is loaded back."
    for L in (torch, litnn):
        p = tmp_path / f'{L.__name__}.pt'
        L.save({'l': L.strided, 's': [L.sparse_coo, L.sparse_csr]}, p)
        assert L.load(p, weights_only=True) == {'l': L.strided, 's': [L.sparse_coo, L.sparse_csr]}

# linalg and nn.functional: torch's checks in its order (the kernel's dtype last)
LINALG_10 = {
    'solve with a 0-d B': lambda L: L.linalg.solve(L.eye(2), L.tensor(1.)),
    'solve complex A, 0-d real B (the dtypes first)': lambda L: L.linalg.solve(L.eye(2, dtype=L.complex64), L.tensor(1.)),
    'solve half A, float B (the dtypes before the kernel)': lambda L: L.linalg.solve(L.eye(2, dtype=L.float16), L.ones(2)),
    'solve half A and B': lambda L: L.linalg.solve(L.eye(2, dtype=L.float16), L.ones(2, dtype=L.float16)),
    'solve 1-d int A': lambda L: L.linalg.solve(L.ones(3, dtype=L.long), L.tensor(1.)),
    'solve non-square A, 0-d B': lambda L: L.linalg.solve(L.ones(2, 3), L.tensor(1.)),
    'solve float A, float64 B of the wrong size': lambda L: L.linalg.solve(L.eye(2), L.ones(3, dtype=L.float64)),
    "eigh of an int matrix with UPLO='X'": lambda L: L.linalg.eigh(L.eye(2, dtype=L.long), UPLO='X'),
    "eigvalsh of a half matrix with UPLO='X'": lambda L: L.linalg.eigvalsh(L.eye(2, dtype=L.float16), UPLO='X'),
    "eigh of a vector with UPLO='X'": lambda L: L.linalg.eigh(L.ones(3), UPLO='X'),
    "qr of a half matrix with mode='bad'": lambda L: L.linalg.qr(L.eye(2, dtype=L.float16), mode='bad'),
    "qr of a half matrix": lambda L: L.linalg.qr(L.eye(2, dtype=L.float16)),
    **{f'matrix_norm({a}, {kw})': (lambda L, a=a, kw=kw: eval(f'L.linalg.matrix_norm(L.{a}, {kw})', {'L': L}))
       for a, kw in (('eye(2)', 'dtype=L.complex64'), ('eye(2, dtype=L.complex64)', 'dtype=L.float64'), ('eye(2, dtype=L.complex64)', 'dtype=L.complex128'),
                     ('eye(2, dtype=L.float16)', 'ord=2'), ('eye(2, dtype=L.float16)', 'ord=1'), ("eye(2, dtype=L.float16)", "ord='nuc', dtype=L.float32"),
                     ('eye(2)', "ord='fro', dtype=L.float16"), ('eye(2)', "ord='fro', dtype=L.int64"), ('eye(2, dtype=L.long)', 'dtype=L.float32'),
                     ('ones(3)', 'dtype=L.long'), ('eye(2, dtype=L.long)', "ord='bad'"))},
    'matrix_norm with an int dim (the parser wants a tuple)': lambda L: L.linalg.matrix_norm(L.eye(2, dtype=L.long), dim=5),
    'matrix_norm with dim=0': lambda L: L.linalg.matrix_norm(L.eye(2), dim=0),
    "grid_sample mode='bad' with grid of another dtype": lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 4, 4), L.zeros(1, 2, 2, 2, dtype=L.float64), mode='bad', align_corners=False),
    "grid_sample padding_mode='bad' of an int input": lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 4, 4, dtype=L.long), L.zeros(1, 2, 2, 2), padding_mode='bad', align_corners=False),
    **{f'interpolate of {dt} to size {sz} ({m})': (lambda L, dt=dt, sz=sz, m=m: L.nn.functional.interpolate(L.ones(1, 1, 4, 4, dtype=getattr(L, dt)), size=sz, mode=m).shape)
       for dt in ('long', 'int32') for sz in (0, (0, 2)) for m in ('nearest', 'bilinear', 'bicubic')},
}

@pytest.mark.parametrize('name', list(LINALG_10))
def test_linalg_misuse_10_as_torch(name): _same(LINALG_10[name])

def _dist_refusal(L, call):
    "`call(torch.distributed)` refused: the exception's type and message, and whether a default group is left (never)."
    d = L.distributed
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try: call(d); r = 'ok'
        except Exception as e: r = (type(e).__name__, str(e).replace('litnn', 'torch'))
    left = d.is_initialized()
    if left: d.destroy_process_group()
    return r, left
DIST_10 = {
    'init_process_group with an unknown URL scheme': lambda d: d.init_process_group('gloo', init_method='foo://x', rank=0, world_size=1),
    "init_process_group with rank '0'": lambda d: d.init_process_group('gloo', init_method='file:///nonexistent/om10', rank='0', world_size=1),
    "init_process_group with world_size '1'": lambda d: d.init_process_group('gloo', init_method='file:///nonexistent/om10', rank=0, world_size='1'),
    'init_process_group with an int timeout': lambda d: d.init_process_group('gloo', init_method='file:///nonexistent/om10', rank=0, world_size=1, timeout=5),
    'init_process_group with an init_method of 3': lambda d: d.init_process_group('gloo', init_method=3, rank=0, world_size=1),
    'destroy_process_group before init': lambda d: d.destroy_process_group(),
    'TCPStore of world size 0': lambda d: d.TCPStore('127.0.0.1', 0, 0, True),
}

@pytest.mark.parametrize('name', list(DIST_10))
def test_distributed_misuse_10_as_torch(name):
    t, l = _dist_refusal(torch, DIST_10[name]), _dist_refusal(litnn, DIST_10[name])
    assert l == t

def test_store_add_takes_an_int_as_torch():
    "Store.add takes an int (or an index): a str is torch's binding's TypeError (its message lists the signatures)."
    for L in (torch, litnn):
        s = L.distributed.HashStore()
        with pytest.raises(TypeError, match='add\\(\\): incompatible function arguments'): s.add('k', 'x')
        assert s.add('k', True) == 1 and s.add('k', np.int64(2)) == 3

# --- op-misuse-11: out= under autograd, multi-output out=, copy_ broadcasting, the parser's keywords
def _rg(L, shape=(2, 3)): return (L.arange(6, dtype=L.float32).reshape(shape) / 7 + 0.1).requires_grad_()
def _out_state(call):
    "What `call(L, out)` leaves: out's requires_grad and values, or the error (type, message) and out's values untouched."
    def case(L):
        out = L.zeros(4)
        try: call(L, out); r = ('ok', out.requires_grad)
        except Exception as e: r = (type(e).__name__, str(e).replace('litnn', 'torch'))
        return r, out.detach().tolist() == [0.] * 4 if r[0] != 'ok' else tuple(out.shape)
    return case
OUT_AUTOGRAD_11 = {     # functions without a derivative write into out= whatever requires grad; the copies of views mark out
    'all of an input requiring grad': lambda L, o: L.all(_rg(L), out=o.bool()),
    'isin of an input requiring grad': lambda L, o: L.isin(_rg(L), _rg(L), out=o.bool()),
    'signbit of an input requiring grad': lambda L, o: L.signbit(_rg(L), out=o.bool()),
    'special.bessel_j0 of an input requiring grad': lambda L, o: L.special.bessel_j0(_rg(L), out=o),
    'special.bessel_j0 into an out requiring grad': lambda L, o: L.special.bessel_j0(_rg(L).detach(), out=o.requires_grad_()),
    'special.chebyshev_polynomial_t into an out requiring grad': lambda L, o: L.special.chebyshev_polynomial_t(_rg(L).detach(), 2, out=o.requires_grad_()),
    'alias_copy of an input requiring grad': lambda L, o: L.alias_copy(_rg(L), out=o),
    'alias_copy into an out requiring grad': lambda L, o: L.alias_copy(_rg(L).detach(), out=o.requires_grad_()),
    'transpose_copy of an input requiring grad': lambda L, o: L.transpose_copy(_rg(L), 0, 1, out=o),
    'conj_physical into an out requiring grad': lambda L, o: L.conj_physical(_rg(L).detach(), out=o.requires_grad_()),
    'floor_divide of an input requiring grad': lambda L, o: L.floor_divide(_rg(L), 2., out=o),
    'chain_matmul of an input requiring grad': lambda L, o: L.chain_matmul(_rg(L), out=o),
    'chain_matmul into an out requiring grad': lambda L, o: L.chain_matmul(_rg(L).detach(), out=o.requires_grad_()),
    'chain_matmul of two matrices, one requiring grad (mm)': lambda L, o: L.chain_matmul(_rg(L), _rg(L).mT.detach(), out=o),
    'tensordot of an input requiring grad': lambda L, o: L.tensordot(_rg(L), _rg(L), out=o),
    'quantile into an out requiring grad': lambda L, o: L.quantile(_rg(L), 0.5, out=o.requires_grad_()),
    'special.ndtr of an input requiring grad': lambda L, o: L.special.ndtr(_rg(L), out=o),
    'fft.ifft of a real input requiring grad (conj_physical out=)': lambda L, o: L.fft.ifft(_rg(L), out=o.to(L.complex64)),
    'fft.ihfft of a real input into an out requiring grad': lambda L, o: L.fft.ihfft(_rg(L).detach(), out=o.to(L.complex64).requires_grad_()),
    'linalg.eigvals of an input requiring grad': lambda L, o: L.linalg.eigvals(_rg(L, (3, 2))[:2] @ _rg(L, (2, 3))[:, :2], out=o.to(L.complex64)),
}

@pytest.mark.parametrize('name', list(OUT_AUTOGRAD_11))
def test_out_under_autograd_11_as_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t, l = _out_state(OUT_AUTOGRAD_11[name])(torch), _out_state(OUT_AUTOGRAD_11[name])(litnn)
    assert l[0] == t[0]
    assert l[1] is True if l[0][0] != 'ok' else l[1] == t[1]    # a refused call leaves out as it was (torch's chain_matmul resizes it first)

def test_composite_out_records_the_copy_as_torch():
    "tensordot and chain_matmul of one matrix are composites in torch: out= records a copy, and the gradient flows through out."
    for f in (lambda L, x, o: L.tensordot(x, x, out=o), lambda L, x, o: L.chain_matmul(x, out=o)):
        g = []
        for L in (torch, litnn):
            x = _rg(L); o = L.zeros(0)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore'); f(L, x, o)
            (o * o).sum().backward()
            g.append(x.grad.tolist())
        np.testing.assert_allclose(g[1], g[0], rtol=1e-5)

MULTI_OUT_11 = {
    'geqrf with an int32 tau': lambda L: L.geqrf(_grid(L), out=(L.zeros(2, 3), L.zeros(2, dtype=L.int32))),
    'linalg.lstsq with int32 singular values': lambda L: L.linalg.lstsq(_grid(L), _grid(L), out=(L.zeros(3, 3), L.zeros(0), L.zeros(0, dtype=L.int64), L.zeros(0, dtype=L.int32))),
    'unbind_copy with None in out': lambda L: L.unbind_copy(_grid(L), out=(L.zeros(3), None)),
    'split_copy into one tensor': lambda L: L.split_copy(_grid(L), 1, out=L.zeros(3)),
    'unbind_copy into one tensor': lambda L: L.unbind_copy(_grid(L), out=L.zeros(3)),
}

@pytest.mark.parametrize('name', list(MULTI_OUT_11))
def test_multi_output_out_misuse_11_as_torch(name):
    "The exception type, and every tensor of out unchanged (torch checks them all before it writes the first)."
    res = []
    for L in (torch, litnn):
        outs = []
        real = L.zeros
        def zeros(*a, **k):
            t = real(*a, **k); outs.append(t); return t
        L2 = type('L', (), {k: getattr(L, k) for k in ('geqrf', 'linalg', 'unbind_copy', 'split_copy', 'float32', 'int32', 'int64', 'arange')})
        L2.zeros = staticmethod(zeros)
        try: MULTI_OUT_11[name](L2); r = 'ok'
        except Exception as e: r = type(e).__name__
        res.append((r, [o.tolist() for o in outs]))
    assert res[1] == res[0]

MISUSE_11 = {
    'copy_ from a tensor with more (leading one) dims': lambda L: L.ones(3).copy_(L.ones(1, 3)),
    'copy_ into a 0-d tensor from a 1-element 1-d one': lambda L: L.ones(()).copy_(L.ones(1)),
    'copy_ from more dims that do not broadcast': lambda L: L.ones(3).copy_(L.ones(1, 4)),
    'copy_ of fewer dims still broadcasts': lambda L: L.zeros(2, 3).copy_(L.arange(3.)),
    'floor with dtype=': lambda L: L.floor(_grid(L), dtype=L.float64),
    'ceil with dtype=': lambda L: L.ceil(_grid(L), dtype=L.float32),
    'trunc with decimals=': lambda L: L.trunc(_grid(L), decimals=1),
    'round with decimals= still taken': lambda L: L.round(_grid(L) / 3, decimals=1),
    'exp with dtype=': lambda L: L.exp(_grid(L), dtype=L.float64),
    'unique of None': lambda L: L.unique(None),
    'unique of an int': lambda L: L.unique(3),
    'unique with dim of a str': lambda L: L.unique('a', dim=0),
    'unique_consecutive of a list': lambda L: L.unique_consecutive([1, 1, 2]),
    'torch.hardshrink into a float64 out': lambda L: L.hardshrink(_grid(L), out=L.zeros(2, 3, dtype=L.float64)),
    'lerp of a tensor weight into a float64 out': lambda L: L.lerp(_grid(L), _grid(L), _grid(L), out=L.zeros(2, 3, dtype=L.float64)),
    'lerp of a number weight into a float64 out (cast)': lambda L: L.lerp(_grid(L), _grid(L) * 2, 0.5, out=L.zeros(2, 3, dtype=L.float64)),
    'frobenius_norm into a float64 out': lambda L: L.frobenius_norm(_grid(L), 1, out=L.zeros(2, dtype=L.float64)),
    'nuclear_norm into a float64 out': lambda L: L.nuclear_norm(_grid(L), out=L.zeros((), dtype=L.float64)),
    'nanmean into a complex out': lambda L: L.nanmean(_grid(L), out=L.zeros((), dtype=L.complex64)),
    'nanmean into a float64 out': lambda L: L.nanmean(_grid(L), out=L.zeros((), dtype=L.float64)),
    'cross into its own first input': lambda L: (lambda a: (L.cross(a, L.ones(2, 3), dim=1, out=a), a)[1])(_grid(L)),
    'linalg.cross into its second input': lambda L: (lambda b: (L.linalg.cross(_grid(L), b, out=b), b)[1])(L.ones(2, 3)),
    'linalg.cross into an expanded out': lambda L: L.linalg.cross(_grid(L), L.ones(2, 3), out=L.zeros(1).expand(2, 3)),
}

@pytest.mark.parametrize('name', list(MISUSE_11))
def test_misuse_11_as_torch(name): _same(MISUSE_11[name])

def test_set_materialize_grads_takes_a_bool_as_torch():
    "ctx.set_materialize_grads('no') is torch's TypeError in forward (its binding takes a Python bool only)."
    res = []
    for L in (torch, litnn):
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, v): ctx.set_materialize_grads(v); return x * 2
            @staticmethod
            def backward(ctx, g, *_): return g * 2, None
        x = L.ones(2, requires_grad=True)
        with pytest.raises(TypeError, match='set_materialize_grads received an invalid combination of arguments'): F.apply(x, 'no')
        F.apply(x, False).sum().backward()
        res.append(x.grad.tolist())
    assert res[1] == res[0]

PARSER_11 = {     # a method's list of ints given spread (torch's parser packs them), and tensors and device types checked first
    'Tensor.squeeze of two dims given spread': lambda L: L.zeros(1, 3, 1).squeeze(0, 2),
    'Tensor.squeeze_ of two dims given spread': lambda L: L.zeros(1, 3, 1).squeeze_(0, 2),
    'Tensor.count_nonzero of two dims given spread': lambda L: L.eye(3).count_nonzero(0, 1),
    'Tensor.hsplit at indices given spread': lambda L: L.arange(12.).reshape(2, 6).hsplit(1, 4),
    'Tensor.vsplit at indices given spread': lambda L: L.arange(12.).reshape(6, 2).vsplit(1, 2, 3),
    'Tensor.dsplit at indices given spread': lambda L: L.arange(12.).reshape(1, 2, 6).dsplit(2, 5),
    'Tensor.squeeze with a str among the spread dims': lambda L: L.zeros(1, 3, 1).squeeze(0, 'a'),
    'torch.squeeze of two dims given spread (functions do not)': lambda L: L.squeeze(L.zeros(1, 3, 1), 0, 2),
    'Tensor.sum of two ints (keepdim is no dim)': lambda L: L.zeros(2, 3).sum(0, 1),
    'Tensor.view given spread still': lambda L: L.arange(6.).view(3, 2),
    'numel of None': lambda L: L.numel(None),
    'get_device of a list': lambda L: L.get_device([1]),
    'set_autocast_dtype to None': lambda L: L.set_autocast_dtype('cpu', None),
    'set_autocast_dtype of a device': lambda L: L.set_autocast_dtype(L.device('cpu'), L.bfloat16),
    'set_autocast_cpu_dtype to 3': lambda L: L.set_autocast_cpu_dtype(3),
    'get_autocast_dtype of 3': lambda L: L.get_autocast_dtype(3),
    'is_autocast_enabled of a device': lambda L: L.is_autocast_enabled(L.device('cpu')),
    'set_autocast_enabled of 3': lambda L: L.set_autocast_enabled(3, True),
}

@pytest.mark.parametrize('name', list(PARSER_11))
def test_parser_misuse_11_as_torch(name):
    "The same result or exception type and message; a refused autocast setter leaves autocast's dtype as it was."
    before = (torch.get_autocast_dtype('cpu'), litnn.get_autocast_dtype('cpu'))
    _same(PARSER_11[name])
    assert (torch.get_autocast_dtype('cpu'), litnn.get_autocast_dtype('cpu')) == before

def test_split_copies_write_out_below_autograd_as_torch():
    "split_copy and split_with_sizes_copy write out= with no autograd check and record nothing; unbind_copy checks out alone."
    res = []
    for L in (torch, litnn):
        a, r = _rg(L), []
        for call in (lambda o: L.split_copy(a, 1, out=o), lambda o: L.split_copy(a.detach(), 1, out=o),
                     lambda o: L.split_with_sizes_copy(a.detach(), [1, 1], out=o), lambda o: L.unbind_copy(a, out=[x[0] for x in o]),
                     lambda o: L.unbind_copy(a.detach(), out=[x[0] for x in o])):
            o = [L.zeros(1, 3, requires_grad=True), L.zeros(1, 3)] if len(r) % 2 else [L.zeros(1, 3), L.zeros(1, 3)]
            try: call(o); r.append([(t.requires_grad, t.tolist()) for t in o])
            except RuntimeError as e: r.append(('RuntimeError', 'functions with out=' in str(e)))
        res.append(r)
    assert res[1] == res[0]

CLAMP_11 = {     # torch has no bool kernel for number bounds: clamp_min/clamp_max (and clamp_ in place) refuse them as clamp does;
                 # with a tensor bound they are maximum/minimum, whose kernels refuse complex (after an in-place cast check)
    'clamp_min of a bool tensor to True': lambda L: L.clamp_min(L.tensor([True, False]), True),
    'clamp_max of a bool tensor to False': lambda L: L.clamp_max(L.tensor([True, False]), False),
    'clamp_min_ of a bool tensor to True': lambda L: L.tensor([True, False]).clamp_min_(True),
    'clamp_ of a bool tensor to min=False': lambda L: L.tensor([True, False]).clamp_(min=False),
    'clamp_ of a bool tensor to min=1 (a cast)': lambda L: L.tensor([True, False]).clamp_(min=1),
    'clamp_ of a bool tensor to a bool tensor bound': lambda L: L.tensor([True, False]).clamp_(min=L.tensor(True)),
    'clamp_min of a bool tensor to 1 (int64)': lambda L: L.clamp_min(L.tensor([True, False]), 1),
    'clamp_min_ of uint8 to True': lambda L: L.ones(2, dtype=L.uint8).clamp_min_(True),
    'clamp_min_ of a float tensor to a complex tensor (the cast first)': lambda L: L.ones(2).clamp_min_(L.ones(2, dtype=L.complex64)),
    'clamp_max_ of a bool tensor to a complex tensor': lambda L: L.tensor([True, False]).clamp_max_(L.ones(2, dtype=L.complex64)),
    'clamp_min of a float tensor to a complex tensor (maximum)': lambda L: L.clamp_min(L.ones(2), L.ones(2, dtype=L.complex64)),
    'clamp_max_ of a complex tensor to a float tensor (minimum)': lambda L: L.ones(2, dtype=L.complex64).clamp_max_(L.ones(2)),
    'clamp_min of a complex tensor to a number': lambda L: L.clamp_min(L.ones(2, dtype=L.complex64), 1.),
    'clamp_min_ of a float tensor to 1j': lambda L: L.ones(2).clamp_min_(1j),
}

@pytest.mark.parametrize('name', list(CLAMP_11))
def test_clamp_of_bools_11_as_torch(name): _same(CLAMP_11[name])

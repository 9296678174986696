"""litnn.utils.data side by side with torch.utils.data: the same batches, lengths, collated structures
(types, dtypes, shapes, values), splits and errors; seeded shuffling reproducible, and torch's order: litnn's
CPU generator is torch's (00_backend), so a seeded shuffle, split or sampler gives torch's indices."""
import warnings
from collections import namedtuple, OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import litnn
from litnn.utils.data.dataloader import _tensor_batch
from nn_pairs import err, same

torch = pytest.importorskip('torch')


def plain(x):
    "A library-free picture of a collated value: containers by type name, tensors as (dtype, shape, values)."
    if isinstance(x, (torch.Tensor, litnn.Tensor)):
        return ('tensor', str(x.dtype).split('.')[-1], tuple(x.shape), x.tolist())
    if isinstance(x, tuple) and hasattr(x, '_fields'): return (type(x).__name__, *map(plain, x))
    if isinstance(x, dict): return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)): return (type(x).__name__, [plain(v) for v in x])
    return x


def tensor_data(lib, n=10):
    "Images and labels of `n` samples: float32 (n, 2, 3) and int64 (n,)."
    x = np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)
    return lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(np.arange(n) % 3))


def batches(loader): return [plain(b) for b in loader]


# --- datasets -------------------------------------------------------------------------------------

def test_tensor_dataset_samples_and_len():
    same(lambda lib: (len(tensor_data(lib)), plain(tensor_data(lib)[4]), plain(tensor_data(lib)[-1])))


def test_tensor_dataset_size_mismatch():
    same(lambda lib: err(lib.utils.data.TensorDataset, lib.zeros(3), lib.zeros(4)))


def test_subset_and_concat():
    def run(lib):
        D = lib.utils.data
        ds = tensor_data(lib)
        sub = D.Subset(ds, [7, 2, 5])
        cat = ds + D.Subset(ds, [0, 1])
        return (len(sub), plain(sub[1]), plain(sub.__getitems__([0, 2])), len(cat), plain(cat[10]), plain(cat[-1]),
                cat.cumulative_sizes, err(cat.__getitem__, -13), err(D.ConcatDataset, []))
    same(run)


def test_subset_subclass_must_override_getitems():
    def run(lib):
        class Bad(lib.utils.data.Subset):
            def __getitem__(self, i): return 0
        return err(Bad, range(3), [0])[0]
    same(run)


def test_dataset_base_class():
    same(lambda lib: err(lib.utils.data.Dataset().__getitem__, 0))
    assert litnn.utils.data.Dataset[int] is not None   # generic, as torch's


# --- DataLoader batching --------------------------------------------------------------------------

@pytest.mark.parametrize('n,bs,drop_last', [(10, 1, False), (10, 3, False), (10, 3, True), (10, 5, True),
                                            (10, 10, False), (10, 11, False), (10, 11, True), (7, 2, True)])
def test_loader_batches_and_len(n, bs, drop_last):
    def run(lib):
        dl = lib.utils.data.DataLoader(tensor_data(lib, n), batch_size=bs, drop_last=drop_last)
        return len(dl), batches(dl)
    same(run)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 30), bs=st.integers(1, 12), drop_last=st.booleans(),
       shape=st.lists(st.integers(1, 3), max_size=2), dt=st.sampled_from(['float32', 'float64', 'int64', 'int32', 'bool']))
def test_loader_batches_fuzz(n, bs, drop_last, shape, dt):
    x = (np.arange(n * int(np.prod(shape)), dtype=np.float64).reshape(n, *shape) % 5).astype(dt)
    def run(lib):
        ds = lib.utils.data.TensorDataset(lib.tensor(x), lib.arange(n))
        dl = lib.utils.data.DataLoader(ds, batch_size=bs, drop_last=drop_last)
        return len(dl), batches(dl)
    same(run)


def test_loader_without_batching():
    def run(lib):
        dl = lib.utils.data.DataLoader(tensor_data(lib, 4), batch_size=None)
        return len(dl), batches(dl)
    same(run)


def test_loader_with_sampler_and_batch_sampler():
    def run(lib):
        D, ds = lib.utils.data, tensor_data(lib)
        a = D.DataLoader(ds, batch_size=3, sampler=[9, 0, 4, 4, 1])
        b = D.DataLoader(ds, batch_sampler=[[3, 1], [0], [9, 8, 7]])
        c = D.DataLoader(ds, batch_size=2, sampler=D.SequentialSampler(range(5)))
        return len(a), batches(a), len(b), batches(b), len(c), batches(c)
    same(run)


def test_loader_over_numpy_and_python_samples():
    "A plain list of samples: numpy arrays, numbers, strings, nested containers."
    P = namedtuple('P', 'a b')
    samples = [{'img': np.full((2, 2), i, np.uint8), 'y': i, 'w': i / 2, 'ok': i % 2 == 0, 'name': f's{i}',
                'pair': (np.float32(i), [i, i + 1]), 'p': P(np.int32(i), np.float64(i)), 'od': OrderedDict(k=i)}
               for i in range(5)]
    same(lambda lib: batches(lib.utils.data.DataLoader(samples, batch_size=2)))


def test_loader_calls_getitems():
    def run(lib):
        calls = []
        class DS(lib.utils.data.Dataset):
            def __len__(self): return 5
            def __getitem__(self, i): raise AssertionError('the loader should use __getitems__')
            def __getitems__(self, idx): calls.append(list(idx)); return [(i, float(i)) for i in idx]
        out = batches(lib.utils.data.DataLoader(DS(), batch_size=2))
        sub = batches(lib.utils.data.DataLoader(lib.utils.data.Subset(DS(), [4, 3, 2]), batch_size=2))
        return out, sub, calls
    same(run)


def test_loader_custom_collate_fn():
    same(lambda lib: batches(lib.utils.data.DataLoader(list(range(5)), batch_size=2, collate_fn=lambda b: sum(b))))


def test_iterable_dataset():
    def run(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self): return iter([lib.tensor([i, -i]) for i in range(7)])
            def __len__(self): return 7
        D = lib.utils.data
        out = []
        for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)]:
            dl = D.DataLoader(Stream(), **kw)
            out += [len(dl), batches(dl)]
        out += [err(D.DataLoader, Stream(), shuffle=True), err(D.DataLoader, Stream(), sampler=[0]),
                err(D.ConcatDataset, [Stream()])]
        return out
    same(run)


def test_num_workers_warns_and_loads_the_same_batches():
    ds = tensor_data(litnn)
    with pytest.warns(UserWarning, match="num_workers=2 workers are played"):
        dl = litnn.utils.data.DataLoader(ds, batch_size=3, num_workers=2, persistent_workers=True, prefetch_factor=4)
    assert batches(dl) == batches(litnn.utils.data.DataLoader(ds, batch_size=3))
    assert litnn.utils.data.get_worker_info() is None


def test_workers_draw_torchs_random_numbers():
    """torch's worker w seeds torch's, Python's and numpy's streams from the loader's base seed + w (numpy through
    _generate_state) and gets batches w, w + n, ... ; worker_init_fn runs in it first; persistent workers keep their
    streams and draw no new base seed; the main process's streams are untouched. litnn plays the workers in-process."""
    import random

    def run(lib):
        class D(lib.utils.data.Dataset):
            def __len__(self): return 7
            def __getitem__(self, i):
                info = lib.utils.data.get_worker_info()
                return [i, lib.rand(1).item(), random.random(), float(np.random.rand()),
                        None if info is None else (info.id, info.num_workers, info.seed % 997)]
        def init(w): np.random.seed(int(np.random.get_state()[1][0]) + w); lib.manual_seed(lib.initial_seed() + 100)
        out = []
        for kw in [dict(num_workers=2), dict(num_workers=3, shuffle=True), dict(num_workers=2, worker_init_fn=init),
                   dict(num_workers=2, persistent_workers=True, shuffle=True)]:
            lib.manual_seed(0); random.seed(0); np.random.seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                dl = lib.utils.data.DataLoader(D(), batch_size=2, collate_fn=list, **kw)
                out += [[b for b in dl] for epoch in range(2)]   # (torch warns about 3 workers on 2 CPUs)
            out.append((lib.rand(1).item(), random.random(), float(np.random.rand()), lib.utils.data.get_worker_info()))
        return out
    assert run(litnn) == run(torch)


def test_collate_of_arrays_and_tensors_mixed():
    "torch's collate takes numpy arrays with as_tensor: a tensor among them passes as it is, without tensor()'s copy warning."
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        same(lambda lib: plain(lib.utils.data.default_collate([np.ones(2), lib.ones(2, dtype=lib.float64)])))


def test_num_workers_must_be_an_integer():
    "torch starts range(num_workers) workers (when it iterates): a float is a TypeError; litnn says so at once."
    same(lambda lib: err(lambda: list(lib.utils.data.DataLoader(tensor_data(lib), num_workers=1.5))))


@pytest.mark.parametrize('f', [lambda D: list(D.DataLoader(range(4), shuffle=True, generator=3)),
                               lambda D: D.random_split(range(4), [2, 2], generator=3),
                               lambda D: list(D.RandomSampler(range(4), generator='seed'))])
def test_generator_must_be_a_generator(f):
    "A generator that is not one is torch's TypeError (litnn's message names the argument), not an AttributeError."
    same(lambda lib: err(f, lib.utils.data)[0])
    with pytest.raises(TypeError, match="generator"): f(litnn.utils.data)     # (random_(generator=3): torch's invalid combination)


# --- default_collate ------------------------------------------------------------------------------

@pytest.mark.parametrize('case', ['ints', 'floats', 'bools', 'mixed', 'strs', 'bytes', 'np_scalars', 'np_int8',
                                  'np_bool', 'np_arrays', 'tensors', 'tuples', 'lists', 'dicts', 'namedtuples', 'nested'])
def test_default_collate(case):
    P = namedtuple('P', 'x y')
    def batch(lib):
        return {'ints': [1, 2, 3], 'floats': [0.5, 1.5], 'bools': [True, False], 'mixed': [1, 2.5], 'strs': ['a', 'b'],
                'bytes': [b'a', b'b'], 'np_scalars': [np.float32(1), np.float32(2)], 'np_int8': [np.int8(1), np.int8(-2)],
                'np_bool': [np.bool_(True), np.bool_(False)],
                'np_arrays': [np.arange(6, dtype=np.int16).reshape(2, 3)] * 2,
                'tensors': [lib.tensor([1., 2.], dtype=lib.float64), lib.tensor([3., 4.], dtype=lib.float64)],
                'tuples': [(lib.tensor([1]), 2, 'a'), (lib.tensor([3]), 4, 'b')],
                'lists': [[1, 2.0], [3, 4.0]],
                'dicts': [{'a': 1, 'b': [np.ones(2)]}, {'a': 2, 'b': [np.zeros(2)]}],
                'namedtuples': [P(1, lib.zeros(2, 2)), P(2, lib.ones(2, 2))],
                'nested': [{'x': (1, {'y': [0.5, np.int64(3)]})}, {'x': (2, {'y': [1.5, np.int64(4)]})}]}[case]
    same(lambda lib: plain(lib.utils.data.default_collate(batch(lib))))


def test_default_collate_errors():
    def run(lib):
        c = lib.utils.data.default_collate
        return [err(c, [[1, 2], [3]]), err(c, [object()]), err(c, [np.array(['a'])]),
                err(c, [lib.zeros(2), lib.zeros(3)])[0], err(c, [])[0]]
    same(run)


def test_default_collate_keeps_the_graph():
    a, b = litnn.tensor([1., 2.], requires_grad=True), litnn.tensor([3., 4.], requires_grad=True)
    (litnn.utils.data.default_collate([a, b]) * litnn.tensor([[1.], [2.]])).sum().backward()
    assert a.grad.tolist() == [1., 1.] and b.grad.tolist() == [2., 2.]


def test_default_convert():
    P = namedtuple('P', 'x y')
    data = [np.arange(3), (np.float32(2), 'a', [np.ones((1, 2))]), {'k': np.int8(1)}, P(np.zeros(1), 3), 7, 'x']
    same(lambda lib: [plain(lib.utils.data.default_convert(d)) for d in data])


# --- the one-step path of TensorDatasets ----------------------------------------------------------

def slow(b): return litnn.utils.data.default_collate(b)   # any other collate function takes the general path


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 40), bs=st.integers(1, 16), drop_last=st.booleans(), seed=st.integers(0, 2**31))
def test_one_step_path_equals_general_path(n, bs, drop_last, seed):
    D = litnn.utils.data
    ds = D.TensorDataset(litnn.randn(n, 2, 2), litnn.arange(n), litnn.randn(n) > 0)
    splits = D.random_split(ds, [0.5, 0.5], generator=litnn.Generator().manual_seed(seed))
    for d in [ds, *splits, D.Subset(splits[0], list(range(len(splits[0]))[::-1]))]:
        fast = D.DataLoader(d, batch_size=bs, shuffle=True, drop_last=drop_last, generator=litnn.Generator().manual_seed(seed))
        gen = D.DataLoader(d, batch_size=bs, shuffle=True, drop_last=drop_last, generator=litnn.Generator().manual_seed(seed),
                           collate_fn=slow)
        assert batches(fast) == batches(gen)


def test_one_step_path_only_where_it_cannot_differ():
    D = litnn.utils.data
    ds = tensor_data(litnn)
    assert _tensor_batch(ds, [0, 3]) is not None and _tensor_batch(D.Subset(ds, [1, 2]), [1]) is not None
    class Doubled(D.TensorDataset):
        def __getitem__(self, i): return tuple(2 * t[i] for t in self.tensors)
    class Listed(D.TensorDataset):
        def __getitems__(self, idx): return [self[i] for i in idx]
    assert _tensor_batch(Doubled(*ds.tensors), [1]) is None and _tensor_batch(Listed(*ds.tensors), [1]) is None
    assert _tensor_batch(ds, [np.int64(1)]) is None and _tensor_batch(ds, [True]) is None and _tensor_batch(ds, []) is None
    # a subclass's own __getitem__ is honoured by the loader
    xb, yb = next(iter(D.DataLoader(Doubled(*ds.tensors), batch_size=4)))
    assert yb.tolist() == [0, 2, 4, 0] and xb.tolist() == (2 * ds.tensors[0][:4]).tolist()
    # tensors that require grad: the batch carries the graph, as torch.stack's would
    w = litnn.randn(10, 2, requires_grad=True)
    xb, = next(iter(D.DataLoader(D.TensorDataset(w), batch_size=3, sampler=[4, 4, 0])))
    xb.sum().backward()
    assert xb.grad_fn is not None and w.grad[:, 0].tolist() == [1., 0., 0., 0., 2., 0., 0., 0., 0., 0.]


def test_one_step_path_out_of_range_index():
    same(lambda lib: err(list, lib.utils.data.DataLoader(tensor_data(lib), batch_sampler=[[0, 10]]))[0])


# --- random_split ---------------------------------------------------------------------------------

@pytest.mark.parametrize('n,lengths', [(10, [3, 7]), (10, [0.3, 0.7]), (30, [0.3, 0.3, 0.4]), (10, [0.34, 0.33, 0.33]),
                                       (7, [0.5, 0.5]), (5, [1.0]), (11, [0.1] * 10), (3, [0, 3])])
def test_random_split_sizes(n, lengths):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter('always')
        sizes = same(lambda lib: [len(s) for s in lib.utils.data.random_split(range(n), lengths)])
    parts = litnn.utils.data.random_split(range(n), lengths, generator=litnn.Generator().manual_seed(1))
    assert sorted(i for p in parts for i in p) == list(range(n)) and [len(p) for p in parts] == sizes


def test_random_split_errors_and_warning():
    def run(lib):
        rs = lib.utils.data.random_split
        return [err(rs, range(10), [3, 3]), err(rs, range(10), [1.2, -0.2]), err(rs, range(10), [0.5, 0.6])]
    same(run)
    for lib in (torch, litnn):
        with pytest.warns(UserWarning, match="Length of split at index 1 is 0"): lib.utils.data.random_split(range(2), [1.0, 0.0])


def test_random_split_reproducible():
    rs = litnn.utils.data.random_split
    a = [p.indices for p in rs(range(50), [20, 30], generator=litnn.Generator().manual_seed(5))]
    assert a == [p.indices for p in rs(range(50), [0.4, 0.6], generator=litnn.Generator().manual_seed(5))]
    assert a != [p.indices for p in rs(range(50), [20, 30], generator=litnn.Generator().manual_seed(6))]
    litnn.manual_seed(2); b = [p.indices for p in rs(range(50), [20, 30])]
    litnn.manual_seed(2); assert b == [p.indices for p in rs(range(50), [20, 30])]


# --- seeded shuffling -----------------------------------------------------------------------------

def order(loader): return [i for _, y in loader for i in y.tolist()]


def test_shuffle_with_generator_reproducible_and_new_each_epoch():
    ds = litnn.utils.data.TensorDataset(litnn.zeros(100, 1), litnn.arange(100))
    def loader(seed): return litnn.utils.data.DataLoader(ds, batch_size=16, shuffle=True, generator=litnn.Generator().manual_seed(seed))
    l1, l2 = loader(0), loader(0)
    e1 = [order(l1) for _ in range(3)]
    assert e1 == [order(l2) for _ in range(3)]
    assert all(sorted(e) == list(range(100)) for e in e1)
    assert len({tuple(e) for e in e1}) == 3 and e1[0] != list(range(100))
    assert order(loader(1)) != e1[0]
    # torch's loader shuffles too; the orders differ (another RNG), but both are permutations
    t = order(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.zeros(100, 1), torch.arange(100)),
                                          batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(0)))
    assert sorted(t) == sorted(e1[0])


def test_shuffle_with_manual_seed():
    ds = litnn.utils.data.TensorDataset(litnn.zeros(50, 1), litnn.arange(50))
    def run():
        litnn.manual_seed(7)
        dl = litnn.utils.data.DataLoader(ds, batch_size=8, shuffle=True)
        return order(dl), order(dl), litnn.rand(()).item()
    a, b = run(), run()
    assert a == b and a[0] != a[1] and sorted(a[0]) == list(range(50))
    # two 64-bit draws of the global generator per epoch (the iterator's base seed, the sampler's seed), as torch
    litnn.manual_seed(7)
    for _ in range(4): litnn.empty((), dtype=litnn.int64).random_()
    assert litnn.rand(()).item() == a[2]


def test_seeded_shuffles_and_splits_are_torchs():
    "The same seed gives torch's shuffled order, epoch after epoch, torch's splits and samplers, and leaves the generator where torch's is."
    def run(lib):
        lib.manual_seed(7)
        D = lib.utils.data
        ds = D.TensorDataset(lib.zeros(23, 1), lib.arange(23))
        epochs = [order(D.DataLoader(ds, batch_size=5, shuffle=True)) for _ in range(2)]
        split = [list(s.indices) for s in D.random_split(range(11), [0.3, 0.7])]
        with_g = order(D.DataLoader(ds, batch_size=4, shuffle=True, generator=lib.Generator().manual_seed(3)))
        samplers = (list(D.RandomSampler(range(9), replacement=True, num_samples=40)), list(D.SubsetRandomSampler([5, 6, 7, 8])),
                    list(D.WeightedRandomSampler([0.1, 0.9, 0.5], 6)))
        return epochs, split, with_g, samplers, lib.rand(3).tolist()
    assert run(litnn) == run(torch)


def test_random_sampler_options():
    RS = litnn.utils.data.RandomSampler
    g = lambda: litnn.Generator().manual_seed(3)
    r = list(RS(range(10), replacement=True, num_samples=25, generator=g()))
    assert len(r) == 25 and all(0 <= i < 10 for i in r) and r == list(RS(range(10), True, 25, generator=g()))
    over = list(RS(range(4), num_samples=10, generator=g()))
    assert len(over) == 10 and sorted(over[:4]) == sorted(over[4:8]) == [0, 1, 2, 3]
    assert len(RS(range(4), num_samples=10)) == 10
    s = list(litnn.utils.data.SubsetRandomSampler([5, 7, 9], generator=g()))
    assert sorted(s) == [5, 7, 9]
    same(lambda lib: (err(lib.utils.data.RandomSampler, range(3), replacement=1),
                      err(lib.utils.data.RandomSampler, range(3), num_samples=0),
                      err(lib.utils.data.RandomSampler, range(0))))


# --- samplers and argument checks -----------------------------------------------------------------

def test_batch_sampler():
    def run(lib):
        BS = lib.utils.data.BatchSampler
        out = [(list(BS(range(n), b, d)), len(BS(range(n), b, d))) for n in (0, 1, 7, 9) for b in (1, 3, 9) for d in (False, True)]
        return out + [err(BS, range(3), 0, False), err(BS, range(3), True, False), err(BS, range(3), 2, 1)]
    same(run)


def test_loader_argument_errors():
    def run(lib):
        D, ds = lib.utils.data, tensor_data(lib)
        dl = D.DataLoader(ds)
        return [err(D.DataLoader, ds, shuffle=True, sampler=[0]), err(D.DataLoader, ds, batch_sampler=[[0]], batch_size=2),
                err(D.DataLoader, ds, batch_sampler=[[0]], drop_last=True), err(D.DataLoader, ds, batch_size=None, drop_last=True),
                err(D.DataLoader, ds, num_workers=-1), err(D.DataLoader, ds, timeout=-1),
                err(D.DataLoader, ds, prefetch_factor=2), err(D.DataLoader, ds, persistent_workers=True),
                err(D.DataLoader, ds, batch_size=0), err(setattr, dl, 'batch_size', 4), err(setattr, dl, 'dataset', ds)]
    same(run)
    dl = litnn.utils.data.DataLoader(tensor_data(litnn)); dl.collate_fn = list   # other attributes may change
    assert dl.collate_fn is list


def test_loader_attributes():
    def run(lib):
        D, ds = lib.utils.data, tensor_data(lib)
        a, b = D.DataLoader(ds, batch_size=4, shuffle=True), D.DataLoader(ds, batch_sampler=[[0]])
        return (a.batch_size, a.drop_last, type(a.sampler).__name__, type(a.batch_sampler).__name__, a.collate_fn.__name__,
                b.batch_size, type(b.sampler).__name__, D.DataLoader(ds, batch_size=None).collate_fn.__name__)
    same(run)


@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_loader_on_gpu():
    D = litnn.utils.data
    ds = D.TensorDataset(litnn.randn(20, 3).cuda(), litnn.arange(20).cuda())
    xb, yb = next(iter(D.DataLoader(ds, batch_size=8, shuffle=True, generator=litnn.Generator().manual_seed(0))))
    assert xb.device.type == yb.device.type == 'cuda' and xb.shape == (8, 3)
    assert (xb.cpu() == ds.tensors[0].cpu()[yb.cpu()]).all().item()


# --- torch's submodule paths, lazy and weighted sampling ---------------------------------------------

SUBMODULE_NAMES = {'dataloader': ['DataLoader', 'default_collate', 'default_convert', 'get_worker_info'],
                   'dataset': ['Dataset', 'IterableDataset', 'TensorDataset', 'Subset', 'ConcatDataset', 'random_split'],
                   'sampler': ['Sampler', 'SequentialSampler', 'RandomSampler', 'SubsetRandomSampler',
                               'WeightedRandomSampler', 'BatchSampler']}


@pytest.mark.parametrize('mod', SUBMODULE_NAMES)
def test_submodule_imports(mod):
    import importlib
    for lib in ('litnn', 'torch'):
        m = importlib.import_module(f'{lib}.utils.data.{mod}')
        for name in SUBMODULE_NAMES[mod]:
            assert getattr(m, name) is getattr(importlib.import_module(f'{lib}.utils.data'), name), (lib, mod, name)


def test_random_sampler_endless_stream_is_lazy():
    import itertools, tracemalloc
    tracemalloc.start()
    for lib in (litnn, torch):
        s = lib.utils.data.RandomSampler(range(7), replacement=True, num_samples=10**10)
        assert len(s) == 10**10
        head = list(itertools.islice(iter(s), 1000))
        assert len(head) == 1000 and set(head) <= set(range(7))
    assert tracemalloc.get_traced_memory()[1] < 50 * 2**20   # the whole stream would be 75 GiB
    tracemalloc.stop()
    # without replacement, many epochs lazily too
    s = litnn.utils.data.RandomSampler(range(3), num_samples=10**10)
    assert sorted(itertools.islice(iter(s), 3)) == [0, 1, 2]


@pytest.mark.parametrize('n', [1, 31, 32, 33, 100])
def test_random_sampler_with_replacement_counts(n):
    same(lambda lib: len(list(lib.utils.data.RandomSampler(range(5), replacement=True, num_samples=n))))


def test_weighted_random_sampler():
    for lib in (litnn, torch):
        g = lib.Generator().manual_seed(0)
        idx = list(lib.utils.data.WeightedRandomSampler([0., 1., 3.], 4000, generator=g))
        counts = np.bincount(idx, minlength=3)
        assert counts[0] == 0 and abs(counts[2] / counts[1] - 3) < 0.4
        assert sorted(lib.utils.data.WeightedRandomSampler(lib.tensor([1., 2., 3.]), 3, replacement=False)) == [0, 1, 2]
    W = lambda lib, *a, **k: lib.utils.data.WeightedRandomSampler(*a, **k)
    same(lambda lib: len(W(lib, [1., 2.], 5)))
    same(lambda lib: err(W, lib, [[1., 2.]], 2))
    same(lambda lib: err(W, lib, [1., 2.], 0))
    same(lambda lib: err(W, lib, [1., 2.], 2, replacement=1))
    same(lambda lib: sorted(W(lib, [1., 0.], 2, replacement=False)))
    same(lambda lib: err(lambda: list(W(lib, [1., 0.], 3, replacement=False))))
    for bad in ([1., float('nan')], [1., float('inf')], [0., 0.]): same(lambda lib: err(lambda: list(W(lib, bad, 2))))
    same(lambda lib: err(lambda: list(W(lib, [1., -1.], 2))))


def collate_module(lib):
    import importlib
    return importlib.import_module(lib.__name__ + '.utils.data._utils.collate')


def test_collate_with_a_registry_of_its_own():
    """torch's `collate(batch, collate_fn_map=...)`: the map's functions take their types (subclasses in the map's order);
    containers are collated around them; the default registry extends, and an unregistered type is torch's TypeError."""
    def pad(lib):
        return lambda batch, *, collate_fn_map: lib.nn.utils.rnn.pad_sequence(batch, batch_first=True)
    def padded(lib):
        C = collate_module(lib)
        return plain(C.collate([{'a': lib.ones(2), 'b': (1, 2.5)}, {'a': lib.ones(3), 'b': (3, 4.5)}],
                               collate_fn_map={**C.default_collate_fn_map, lib.Tensor: pad(lib)}))
    same(padded)
    same(lambda lib: collate_module(lib).collate([(True, 2)] * 2, collate_fn_map={int: lambda b, collate_fn_map: sum(b)}))
    same(lambda lib: err(collate_module(lib).collate, [1.5, 2.5], collate_fn_map={int: lambda b, collate_fn_map: 0}))
    same(lambda lib: sorted(k.__name__ for k in collate_module(lib).default_collate_fn_map if isinstance(k, type)))
    same(lambda lib: plain(collate_module(lib).collate_numpy_array_fn([np.ones(2)] * 2, collate_fn_map=collate_module(lib).default_collate_fn_map)))


@pytest.mark.parametrize('kind', ['nested', 'sparse'])
def test_default_collate_refuses_nested_and_sparse_tensors(kind):
    make = (lambda lib: lib.nested.nested_tensor([lib.ones(2), lib.ones(3)])) if kind == 'nested' else (lambda lib: lib.ones(2, 2).to_sparse())
    same(lambda lib: err(lib.utils.data.default_collate, [make(lib), make(lib)]))


@pytest.mark.parametrize('kw', [dict(multiprocessing_context='fork'), dict(num_workers=1, multiprocessing_context='bad'),
                                dict(num_workers=1, multiprocessing_context=3)], ids=['no workers', 'bad name', 'not a context'])
def test_multiprocessing_context_checks_as_torchs(kw):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same(lambda lib: err(lib.utils.data.DataLoader, range(3), **kw))


def test_multiprocessing_context_name_becomes_a_context():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same(lambda lib: (lib.utils.data.DataLoader(range(3)).multiprocessing_context,
                          type(lib.utils.data.DataLoader(range(3), num_workers=1, multiprocessing_context='spawn').multiprocessing_context).__name__))



def test_iterable_dataset_without_iter_cannot_be_made_as_torch():
    "torch's IterableDataset is an abstract Iterable: an instance needs `__iter__` (and ConcatDataset never sees one without)."
    torch = pytest.importorskip('torch')
    for lib in (torch, litnn):
        with pytest.raises(TypeError, match="abstract"): lib.utils.data.IterableDataset()
        class Counting(lib.utils.data.IterableDataset):
            def __iter__(self): return iter(range(3))
        assert list(Counting()) == [0, 1, 2]
        assert isinstance(Counting(), lib.utils.data.Dataset)


def test_real_torch_tensors_from_a_dataset_collate_into_litnn_tensors():
    """A torch program run with `import litnn as torch` that reads its data through torchvision gets real torch tensors
    from the dataset: litnn's loader collates them (and converts them unbatched) as their numpy arrays, into litnn tensors."""
    torch = pytest.importorskip('torch')
    class Images(torch.utils.data.Dataset):       # what torchvision's dataset with transforms.ToTensor() gives
        def __len__(self): return 5
        def __getitem__(self, i): return torch.full((1, 2, 2), i / 10), i
    batches = list(litnn.utils.data.DataLoader(Images(), batch_size=2))
    want = list(torch.utils.data.DataLoader(Images(), batch_size=2))
    assert [type(x) for b in batches for x in b] == [litnn.Tensor] * 6
    for (x, y), (tx, ty) in zip(batches, want):
        assert (x.dtype, y.dtype) == (litnn.float32, litnn.int64)
        np.testing.assert_array_equal(x.numpy(), tx.numpy()); np.testing.assert_array_equal(y.numpy(), ty.numpy())
    x, y = next(iter(litnn.utils.data.DataLoader(Images(), batch_size=None)))
    assert type(x) is litnn.Tensor and y == 0
    with pytest.raises(TypeError, match='found'): litnn.utils.data.default_collate([object(), object()])


# --- behaviours PyTorch's test_dataloader.py checks ------------------------------------------------

def test_dataloader_is_generic_like_torchs():
    "DataLoader[...] in an annotation (torch's DataLoader is Generic[T_co])."
    for lib in (torch, litnn):
        assert lib.utils.data.DataLoader[list].__origin__ is lib.utils.data.DataLoader


@pytest.mark.parametrize('num_workers', [1, 1000])
def test_excessive_num_workers_warns_like_torch(num_workers):
    "torch's warning (in __init__) when num_workers exceeds the CPUs this process may use; none below."
    def warned(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.utils.data.DataLoader(list(range(4)), num_workers=num_workers)
        return [str(x.message) for x in w if 'excessive worker creation' in str(x.message)]
    assert warned(litnn) == warned(torch)
    assert len(warned(litnn)) == (num_workers == 1000)


@pytest.mark.parametrize('batch_size', [None, 3])
def test_iterable_dataset_longer_than_its_len_warns_like_torch(batch_size):
    "After len(dataloader), an iterator that yields more than the stream's reported length warns, as torch's."
    def run(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self): return iter(range(30))
            def __len__(self): return 20
        dl = lib.utils.data.DataLoader(Stream(), batch_size=batch_size)
        counts = []
        for take_len in (False, True):
            if take_len: n = len(dl)
            it = iter(dl)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                got = [next(it) for _ in range(23 if batch_size is None else 10)]
            counts.append([str(x.message).split(' was reported')[-1] for x in w])
        return n, counts
    assert run(litnn) == run(torch)


def test_subset_random_sampler_draws_at_first_next_like_torch():
    "Iterators of a sampler draw their permutation at the first next() (torch's are generators): seeding in between counts."
    def run(lib):
        weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
        D = lib.utils.data
        out = []
        for sampler in (D.SubsetRandomSampler(range(10)), D.RandomSampler(range(20)),
                        D.WeightedRandomSampler(weights, num_samples=5, replacement=False)):
            its = (iter(sampler), iter(sampler))
            ls = ([], [])
            for idx in range(len(sampler)):
                for i in range(2):
                    if idx == 0: lib.manual_seed(0)
                    ls[i].append(next(its[i]))
            out.append(ls)
        return out
    got, want = run(litnn), run(torch)
    assert got == want
    assert all(a == b for a, b in got)


def test_default_collate_of_memmap_rows_like_torch(tmp_path):
    "Rows of a np.memmap (an ndarray subclass) collate, and as_tensor shares a memmap's memory, as torch's."
    arr = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])
    m = np.memmap(tmp_path / 'a.bin', dtype=arr.dtype, mode='w+', shape=arr.shape)
    m[:] = arr
    for lib in (torch, litnn):
        t = lib.utils.data.default_collate(list(m))
        assert (str(t.dtype).split('.')[-1], t.tolist(), str(t.device)) == ('int64', arr.tolist(), 'cpu')
    a, b = litnn.as_tensor(m), torch.as_tensor(m)
    assert type(a.numpy()) is np.ndarray and a.tolist() == b.tolist()
    m[0, 0] = 9
    assert a[0, 0].item() == b[0, 0].item() == 9        # shared memory, both
    assert litnn.as_tensor(np.asmatrix([[1, 2]])).tolist() == torch.as_tensor(np.asmatrix([[1, 2]])).tolist()


@pytest.mark.parametrize('exc', [KeyError('k'), ValueError('bad value'), OSError(2, 'no file')])
def test_exception_wrapper_and_worker_constants_like_torch(exc):
    "torch._utils.ExceptionWrapper (what DataLoader workers send back) re-raises as torch's; MP_STATUS_CHECK_INTERVAL's value."
    import torch._utils, litnn._utils
    def reraised(mod):
        try: raise exc
        except Exception: w = mod.ExceptionWrapper(where="in DataLoader worker process 1")
        with pytest.raises(Exception) as e: w.reraise()
        return type(e.value), str(e.value).split('\n')[:2], w.exc_type, w.where
    assert reraised(litnn._utils) == reraised(torch._utils)
    assert litnn.utils.data._utils.MP_STATUS_CHECK_INTERVAL == torch.utils.data._utils.MP_STATUS_CHECK_INTERVAL

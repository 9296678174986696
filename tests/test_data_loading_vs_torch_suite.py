"""litnn.utils.data against torch 2.13 on the cases of PyTorch's test/test_dataloader.py that differed, and around them:
a DataLoader with workers over a DataPipe (each worker its shard, batches round-robin, the seeds of each pass), samplers'
and random_split's draws for a seeded generator."""
import warnings
import pytest

import litnn
torch = pytest.importorskip('torch')


def both(f):
    "f(lib, dp) for litnn and torch, dp being lib.utils.data.datapipes.iter; warnings (litnn's played workers) silenced."
    import torch.utils.data.datapipes.iter as tdp, litnn.utils.data.datapipes.iter as ldp
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return outcome(lambda: f(litnn, ldp)), outcome(lambda: f(torch, tdp))


def outcome(f):
    try: return f()
    except Exception as e: return type(e).__name__


def _passes(lib, dl, n=2):
    "The batches of `n` passes over `dl`, as lists."
    plain = lambda b: b.tolist() if isinstance(b, lib.Tensor) else [plain(x) for x in b] if isinstance(b, (list, tuple)) else b
    return [[plain(b) for b in dl] for _ in range(n)]


@pytest.mark.parametrize('batch_size', [1, 3])
@pytest.mark.parametrize('num_workers,persistent', [(0, False), (1, False), (1, True), (2, False), (2, True), (3, True)])
def test_dataloader_workers_shard_and_seed_a_datapipe_as_torch(batch_size, num_workers, persistent):
    "test_dataloader's IntegrationTestDataLoaderDataPipe with batches: worker w of n keeps every n-th sample of the shuffled pipe, seeded per pass as torch's workers"
    def f(lib, dp):
        pipe = dp.IterableWrapper(list(range(10))).shuffle().sharding_filter()
        lib.manual_seed(5)
        dl = lib.utils.data.DataLoader(pipe, batch_size=batch_size, num_workers=num_workers, shuffle=True,
                                       persistent_workers=persistent)
        return _passes(lib, dl, 3), lib.rand(2).tolist()
    mine, theirs = both(f)
    assert mine == theirs


def test_dataloader_workers_each_iterate_a_whole_datapipe_without_sharding_filter_as_torch():
    "test_multiprocessing_iterdatapipe: without a sharding_filter every worker yields every sample (2 workers: each batch twice)"
    def f(lib, dp):
        pipe = dp.IterableWrapper([[1, 2, 3, 4], [1, 2, 3, 4, 5, 6]]).map(lambda r: [x + 1 for x in r]).filter(lambda r: len(r) == 4)
        return _passes(lib, lib.utils.data.DataLoader(pipe, num_workers=2, batch_size=2, shuffle=True), 1)
    mine, theirs = both(f)
    batch = [[2], [3], [4], [5]]   # each worker's one batch: the one sample the filter keeps, collated column by column
    assert mine == theirs == [[batch, batch]]


@pytest.mark.parametrize('drop_last', [False, True])
def test_dataloader_workers_shard_a_datapipe_round_robin_as_torch(drop_last):
    def f(lib, dp):
        pipe = dp.IterableWrapper(list(range(7))).sharding_filter()
        return _passes(lib, lib.utils.data.DataLoader(pipe, num_workers=3, batch_size=2, drop_last=drop_last), 1)
    mine, theirs = both(f)
    assert mine == theirs


def test_dataloader_workers_refuse_a_datapipe_sharded_twice_as_torch():
    "two sharding_filters on one path: torch's apply_sharding refuses (RuntimeError; torch's worker wraps it, same type)"
    def f(lib, dp):
        pipe = dp.IterableWrapper(list(range(7))).sharding_filter().map(lambda x: x * 2).sharding_filter()
        return list(lib.utils.data.DataLoader(pipe, num_workers=2))
    mine, theirs = both(f)
    assert mine == theirs == 'RuntimeError'


@pytest.mark.parametrize('make', [
    lambda lib, g: list(lib.utils.data.RandomSampler(range(20), generator=g)),
    lambda lib, g: list(lib.utils.data.RandomSampler(range(20), replacement=True, num_samples=30, generator=g)),
    lambda lib, g: list(lib.utils.data.RandomSampler(range(20), num_samples=45, generator=g)),
    lambda lib, g: list(lib.utils.data.SubsetRandomSampler(list(range(3, 15)), generator=g)),
    lambda lib, g: list(lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=True, generator=g)),
    lambda lib, g: list(lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=False, generator=g)),
    lambda lib, g: list(lib.utils.data.BatchSampler(lib.utils.data.RandomSampler(range(10), generator=g), 3, False)),
    lambda lib, g: [list(s) for s in lib.utils.data.random_split(range(106), [0.1, 0.2, 0.3, 0.4], generator=g)],
    lambda lib, g: [b.tolist() for b in lib.utils.data.DataLoader(list(range(12)), batch_size=5, shuffle=True, generator=g)],
    lambda lib, g: [b.tolist() for b in lib.utils.data.DataLoader(list(range(12)), batch_size=5, shuffle=True, num_workers=2, generator=g)],
])
def test_samplers_draw_torchs_indices_for_a_seeded_generator(make):
    "test_sampler_reproducibility/test_splits_reproducibility checked across libraries: the same seed gives torch's indices"
    def f(lib, dp):
        return make(lib, lib.Generator().manual_seed(42)), make(lib, lib.Generator().manual_seed(7))
    mine, theirs = both(f)
    assert mine == theirs


@pytest.mark.parametrize('case', [
    lambda W, w: repr(w),
    lambda W, w: setattr(w, 'id', 3999),
    lambda W, w: setattr(w, 'a', 3),
    lambda W, w: delattr(w, 'seed'),
    lambda W, w: W(id=1),
    lambda W, w: (w == W(1, 2, 3, w.dataset), w.rng, w.worker_method),
    lambda W, w: hash(W(1, 2, 3, (4,))) == hash(W(1, 2, 3, (4,))),
])
def test_worker_info_is_torchs_frozen_dataclass(case):
    "test_dataloader's _test_worker_info_init_fn assigns to a WorkerInfo: torch 2.13 raises dataclasses.FrozenInstanceError"
    def f(lib, dp):
        W = lib.utils.data._utils.worker.WorkerInfo
        return case(W, W(id=1, num_workers=2, seed=3, dataset=[5]))
    def run(lib):
        try: return f(lib, None)
        except Exception as e: return type(e).__name__, str(e)
    assert run(litnn) == run(torch)


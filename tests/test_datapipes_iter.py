"""litnn.utils.data.datapipes.iter (reference/utils/data/datapipes/iter) side by side with torch 2.13: the links' samples,
lengths and errors, and a DataLoader's shuffle and per-epoch seeds for a DataPipe (the same orders as torch's)."""
import warnings
import pytest

import litnn
torch = pytest.importorskip('torch')


def both(f):
    "f(lib, dp) for torch and litnn, with lib.utils.data.datapipes.iter as dp."
    import torch.utils.data.datapipes.iter as tdp, litnn.utils.data.datapipes.iter as ldp
    return f(litnn, ldp), f(torch, tdp)


def outcome(f):
    try: return f()
    except Exception as e: return type(e).__name__, str(e.args[0]).split('\n')[0]


@pytest.mark.parametrize('case', [
    lambda dp: list(dp.IterableWrapper([(1, 2), (3, 4)]).map(lambda a: a * 10, input_col=0)),
    lambda dp: list(dp.IterableWrapper([(1, 2), (3, 4)]).map(lambda a, b: a + b, input_col=[0, 1])),
    lambda dp: list(dp.IterableWrapper([(1, 2), (3, 4)]).map(lambda a: -a, input_col=1, output_col=-1)),
    lambda dp: list(dp.IterableWrapper([[1, 2], [3, 4]]).map(lambda a: 0, input_col=0, output_col=[1])),
    lambda dp: dp.IterableWrapper([1]).map(str, output_col=1),
    lambda dp: list(dp.IterableWrapper([[1, 2, 3, 4], [1, 2, 3, 4, 5, 6]]).map(lambda r: [x + 1 for x in r]).filter(lambda r: len(r) == 4)),
    lambda dp: list(dp.IterableWrapper(range(3)).filter(lambda x: x)),
    lambda dp: dp.IterableWrapper(range(3)).shuffle(buffer_size=0),
    lambda dp: (len(dp.IterableWrapper(range(5)).map(str)), type(dp.IterableWrapper(range(5)).map(str)).__name__),
    lambda dp: len(dp.IterableWrapper(range(5)).filter(bool)),
    lambda dp: len(dp.IterableWrapper(iter(range(5)))),
])
def test_links_like_torch(case):
    got, want = both(lambda lib, dp: outcome(lambda: case(dp)))
    assert got == want


def test_sharding_filter_like_torch():
    def run(lib, dp):
        s = dp.IterableWrapper(range(10)).sharding_filter()
        full = list(s)
        s.apply_sharding(3, 1)
        return full, list(s), len(s), outcome(lambda: s.apply_sharding(2, 2))
    got, want = both(run)
    assert got == want


def test_shuffle_seeded_like_torch():
    "A shuffler reseeds from the global generator at each iteration: torch's order for the same manual_seed."
    def run(lib, dp):
        p = dp.IterableWrapper(range(12)).shuffle(buffer_size=4)
        lib.manual_seed(3); a = list(p)
        b = list(p)
        return a, b
    got, want = both(run)
    assert got == want and got[0] != got[1]


def test_dataloader_shuffles_a_datapipe_like_torch():
    "shuffle=True adds a shuffler (torch's warning) or turns the graph's on; each epoch's seed comes from the loader's generator."
    def run(lib, dp):
        D = lib.utils.data
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            D.DataLoader(dp.IterableWrapper(range(10)), shuffle=True)
        added = [str(x.message) for x in w if 'does not contain a `Shuffler`' in str(x.message)]
        dl = D.DataLoader(dp.IterableWrapper(range(30)).shuffle(buffer_size=5).sharding_filter(), shuffle=True, batch_size=4)
        lib.manual_seed(1); a = [t.tolist() for t in dl]
        lib.manual_seed(1); b = [t.tolist() for t in dl]
        lib.manual_seed(2); c = [t.tolist() for t in dl]
        g = D.DataLoader(dp.IterableWrapper(range(30)).shuffle(buffer_size=5), shuffle=True, generator=lib.Generator().manual_seed(7))
        e1, e2 = [t.item() for t in g], [t.item() for t in g]
        off = [t.item() for t in D.DataLoader(dp.IterableWrapper(range(8)).shuffle(), shuffle=False)]
        return added, a, b, c, e1, e2, off
    got, want = both(run)
    assert got == want
    assert got[1] == got[2] != got[3] and got[4] != got[5] and got[6] == list(range(8))

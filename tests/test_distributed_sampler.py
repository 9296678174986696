"DistributedSampler (nbs/75b_distributed_sampler.ipynb): the same partitions as torch's for the same seed and epoch."
import itertools, pytest, torch
import torch.utils.data.distributed as tdist
import litnn
from litnn.utils.data.distributed import DistributedSampler, _torch_cpu_randperm


@pytest.mark.parametrize('n', [0, 1, 2, 7, 10, 97, 1000, 60000])
@pytest.mark.parametrize('seed', [0, 1, 123, 2**31 + 5, 2**40 + 3, -7])
def test_randperm_is_torchs(n, seed):
    assert _torch_cpu_randperm(n, seed) == torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()


@pytest.mark.parametrize('n,replicas', [(10, 3), (10, 2), (2, 5), (17, 4), (64, 8), (1, 1), (5, 7)])
@pytest.mark.parametrize('shuffle,drop_last', list(itertools.product([True, False], [True, False])))
def test_partitions_equal_torchs(n, replicas, shuffle, drop_last):
    data = list(range(n))
    for seed, epoch in [(0, 0), (0, 3), (42, 1)]:
        for rank in range(replicas):
            ours = DistributedSampler(data, replicas, rank, shuffle=shuffle, seed=seed, drop_last=drop_last)
            theirs = tdist.DistributedSampler(data, replicas, rank, shuffle=shuffle, seed=seed, drop_last=drop_last)
            ours.set_epoch(epoch); theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)
            assert (len(ours), ours.num_samples, ours.total_size) == (len(theirs), theirs.num_samples, theirs.total_size)


def test_bad_rank_matches_torch():
    for rank in (-1, 3):
        with pytest.raises(ValueError) as ours: DistributedSampler(range(4), 3, rank)
        with pytest.raises(ValueError) as theirs: tdist.DistributedSampler(range(4), 3, rank)
        assert str(ours.value) == str(theirs.value)


def test_in_a_dataloader():
    ds = litnn.utils.data.TensorDataset(litnn.arange(10.))
    s = litnn.utils.data.DistributedSampler(ds, num_replicas=2, rank=1, seed=3)
    batches = [b[0].tolist() for b in litnn.utils.data.DataLoader(ds, batch_size=2, sampler=s)]
    want = tdist.DistributedSampler(range(10), 2, 1, seed=3)
    assert sum(batches, []) == [float(i) for i in want]
    assert litnn.utils.data.distributed.DistributedSampler is DistributedSampler

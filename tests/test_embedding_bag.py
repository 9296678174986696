"""reference/nn/embedding_bag against torch 2.13: every mode, offsets and 2-D input, per-sample weights, padding_idx, gradients, module."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)
W = rng.normal(size=(10, 4))
IDS = np.array([1, 2, 4, 4, 3, 9, 0, 2, 2])
CASES = [dict(offsets=[0, 2, 2, 5]), dict(offsets=[0, 3, 9], include_last_offset=True), dict(offsets=[0, 4], padding_idx=2),
         dict(offsets=[0, 1, 1, 8], padding_idx=-1), dict(offsets=[0, 2, 5], max_norm=1.0), dict(offsets=[0, 5], scale_grad_by_freq=True)]

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('kw', CASES, ids=str)
def test_one_dimensional(kw, mode, dtype):
    kw = dict(kw)
    if mode == 'max' and kw.get('scale_grad_by_freq'): return
    offsets = kw.pop('offsets')
    lw, tw = litnn.tensor(W.astype(dtype), requires_grad=True), torch.tensor(W.astype(dtype), requires_grad=True)
    ly = litnn.nn.functional.embedding_bag(litnn.tensor(IDS), lw, litnn.tensor(offsets), mode=mode, **kw)
    if kw.get('scale_grad_by_freq'):
        # torch 2.13's embedding_bag kernel scales rows by the wrong counts (here rows 3 and 4 by index 2's count of 3, see
        # test_torch_scale_grad_by_freq_quirk); the documented meaning is embedding's: each row by its own frequency
        e = torch.nn.functional.embedding(torch.tensor(IDS), tw, scale_grad_by_freq=True)
        ty = torch.stack([e[:5].sum(0), e[5:].sum(0)]) / (torch.tensor([[5.], [4.]], dtype=e.dtype) if mode == 'mean' else 1)
    else: ty = torch.nn.functional.embedding_bag(torch.tensor(IDS), tw, torch.tensor(offsets), mode=mode, **kw)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), **tol)

@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
def test_two_dimensional_and_per_sample_weights(mode):
    ids = IDS[:8].reshape(2, 4)
    psw = rng.uniform(size=ids.shape) if mode == 'sum' else None
    lw, tw = litnn.tensor(W, requires_grad=True), torch.tensor(W, requires_grad=True)
    lp = None if psw is None else litnn.tensor(psw, requires_grad=True); tp = None if psw is None else torch.tensor(psw, requires_grad=True)
    ly = litnn.nn.functional.embedding_bag(litnn.tensor(ids), lw, mode=mode, per_sample_weights=lp)
    ty = torch.nn.functional.embedding_bag(torch.tensor(ids), tw, mode=mode, per_sample_weights=tp)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    (ly ** 2).sum().backward(); (ty ** 2).sum().backward()
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    if psw is not None: np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-12)

ERRORS = [lambda lib: lib.nn.functional.embedding_bag(lib.tensor([[1, 2]]), lib.ones(5, 2), lib.tensor([0])),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2)),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2), lib.tensor([0]), mode='bogus'),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2), lib.tensor([0]), mode='max', per_sample_weights=lib.ones(2)),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2), lib.tensor([0]), mode='sum', per_sample_weights=lib.ones(3)),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5), lib.tensor([0])),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2), lib.tensor([0]), mode='max', scale_grad_by_freq=True),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2), lib.tensor([0]), mode='sum', per_sample_weights=lib.ones(2, dtype=lib.float64)),
          lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.ones(5, 2, dtype=lib.float64), lib.tensor([0]), mode='sum', per_sample_weights=lib.ones(2))]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value).replace('litnn.', 'torch.').replace("<class 'torch.tensor.Tensor'>", "<class 'torch.Tensor'>") == str(t.value)

RUN_ERRORS = [dict(input=[1, 2], offsets=[1, 2]), dict(input=[1, 2], offsets=[0, 3]), dict(input=[1, 2], offsets=[0, 3], include_last_offset=True),
              dict(input=[1, 2], offsets=[0, 2, 1]), dict(input=[1, 7], offsets=[0, 1]), dict(input=[1, -1], offsets=[0, 1])]

@pytest.mark.parametrize('kw', RUN_ERRORS, ids=str)
def test_bad_offsets_and_indices_are_runtime_errors(kw):
    "torch checks offsets[0] == 0, offsets[-1] <= len(input), then the indices: RuntimeErrors (not embedding's IndexError)."
    kw = dict(kw)
    f = lambda lib: lib.nn.functional.embedding_bag(lib.tensor(kw['input']), lib.ones(6, 2), lib.tensor(kw['offsets']),
                                                     include_last_offset=kw.get('include_last_offset', False))
    # torch's message for a bad index depends on how its threads split the bags (its thread count, and OMP_NUM_THREADS,
    # which can keep set_num_threads(2) serial): litnn gives its parallel kernel's, which must be one of torch's messages
    threads, messages = torch.get_num_threads(), set()
    try:
        for n in (1, 2):           # (one thread takes offsets that step back: only the parallel split refuses them)
            torch.set_num_threads(n)
            try: f(torch)
            except RuntimeError as e: messages.add(str(e))
    finally: torch.set_num_threads(threads)
    assert messages
    with pytest.raises(RuntimeError) as l: f(litnn)
    assert str(l.value) in messages, (str(l.value), messages)    # (torch's offsets[0] message ends in its C++ print of that 0-d tensor: litnn's too)

@pytest.mark.parametrize('padding_idx', [None, 9])
@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
@pytest.mark.parametrize('offsets', [[0, 1, 1], [0, 1, 2], [0, 2], [0, 1, 3]], ids=str)
def test_include_last_offset_ends_the_last_bag_as_torch(offsets, dtype, mode, padding_idx):
    "torch's CPU kernels other than fbgemm's (max, padding_idx, float64) end the last bag at the end of the input, not at the last offset."
    if mode != 'max' and padding_idx is None and dtype != 'float64' and offsets[-1] < 3:
        return    # fbgemm's kernel: ids after the last offset give undefined results (memory it did not write) in torch 2.13
    out = []
    for L in (torch, litnn):
        w = L.tensor(W.astype(dtype), requires_grad=True)
        y = L.nn.functional.embedding_bag(L.tensor([1, 2, 3]), w, L.tensor(offsets), mode=mode, include_last_offset=True, padding_idx=padding_idx)
        y.float().pow(2).sum().backward()
        out.append((y.detach().float().numpy(), w.grad.float().numpy()))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=2e-3, atol=1e-3)
    if dtype != 'float16':     # (torch's half backward: rows after the last offset get what its forward did not use)
        np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('mode', ['sum', 'mean', 'max'])
@pytest.mark.parametrize('ids', [[[-1, 1]], [[11, 8]], [[1, 2], [3, 11]]], ids=str)
@pytest.mark.parametrize('padding_idx,dtype', [(0, 'float32'), (None, 'float64'), (0, 'float64')])
def test_out_of_range_id_named_as_torch(mode, ids, padding_idx, dtype):
    "torch's kernels other than fbgemm's name the bad id: 'Expected idx >= 0 && idx < num_embeddings but found idx to be ...'."
    f = lambda L: L.nn.functional.embedding_bag(L.tensor(ids), L.tensor(W.astype(dtype)), mode=mode, padding_idx=padding_idx)
    with pytest.raises(RuntimeError) as t: f(torch)
    with pytest.raises(RuntimeError) as l: f(litnn)
    assert str(l.value) == str(t.value)


def test_module():
    for kw in [dict(mode='sum'), dict(max_norm=1.0, padding_idx=-1), dict(mode='max', norm_type=1.0, scale_grad_by_freq=False)]:
        lm, tm = litnn.nn.EmbeddingBag(10, 3, **kw), torch.nn.EmbeddingBag(10, 3, **kw)
        assert repr(lm) == repr(tm) and list(lm.state_dict()) == list(tm.state_dict())
    lm = litnn.nn.EmbeddingBag(10, 3, padding_idx=2)
    assert lm.weight[2].tolist() == [0., 0., 0.]
    lm = litnn.nn.EmbeddingBag.from_pretrained(litnn.tensor(W), mode='max')
    tm = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(W), mode='max')
    np.testing.assert_allclose(lm(litnn.tensor(IDS), litnn.tensor([0, 3])).numpy(), tm(torch.tensor(IDS), torch.tensor([0, 3])).numpy())
    assert not lm.weight.requires_grad


def test_torch_scale_grad_by_freq_quirk():
    "What the test above works around: torch's embedding_bag gives row 3 (seen once) a third of its gradient."
    w = torch.ones(10, 1, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.embedding_bag(torch.tensor(IDS), w, torch.tensor([0, 5]), mode='sum', scale_grad_by_freq=True).sum().backward()
    lw = litnn.ones(10, 1, dtype=litnn.float64, requires_grad=True)
    litnn.nn.functional.embedding_bag(litnn.tensor(IDS), lw, litnn.tensor([0, 5]), mode='sum', scale_grad_by_freq=True).sum().backward()
    assert w.grad[3].item() == pytest.approx(1 / 3) and lw.grad[3].item() == 1.0      # litnn: 1 occurrence, count 1


@pytest.mark.parametrize('mode', ['sum', 'mean'])
def test_node_is_torchs_and_many_bags_fit(mode):
    "The result's node is torch's EmbeddingBagBackward0; 50,000 bags of 1,000,000 entries pool without a bags-by-entries matrix (400 GB dense)."
    lib_y = {}
    for lib in (litnn, torch):
        w = lib.tensor(W, requires_grad=True)
        lib_y[lib.__name__] = lib.nn.functional.embedding_bag(lib.tensor(IDS), w, lib.tensor([0, 2, 2, 5]), mode=mode)
    assert lib_y['litnn'].grad_fn.name() == lib_y['torch'].grad_fn.name() == 'EmbeddingBagBackward0'
    n, bags = 1_000_000, 50_000
    ids = rng.integers(0, 10, n)
    offsets = np.sort(rng.choice(np.arange(1, n), bags - 1, replace=False))
    offsets = np.concatenate([[0], offsets])
    w = litnn.tensor(W, requires_grad=True)
    y = litnn.nn.functional.embedding_bag(litnn.tensor(ids), w, litnn.tensor(offsets), mode=mode)
    want = np.add.reduceat(W[ids], offsets, axis=0)
    if mode == 'mean': want /= np.diff(np.append(offsets, n))[:, None]
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-9, atol=1e-9)
    y.sum().backward()
    per_entry = np.ones(n) if mode == 'sum' else (1 / np.diff(np.append(offsets, n)))[np.searchsorted(offsets, np.arange(n), 'right') - 1]
    np.testing.assert_allclose(w.grad.numpy(), np.bincount(ids, per_entry, minlength=10)[:, None].repeat(4, 1), rtol=1e-9)


@pytest.mark.parametrize('ids,offsets', [([0., 1.], [0]), ([0, 1], [0.]), ([[0., 1.]], None)])
def test_floating_ids_or_offsets_refused(ids, offsets):
    f = lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor(ids), None if offsets is None else lib.tensor(offsets))
    same_error(f)
    with pytest.raises(RuntimeError, match='scalar types: Long, Int; but got litnn.FloatTensor instead .while checking arguments for embedding_bag'):
        f(litnn)


def test_bool_ids_convert():
    "embedding_bag takes any integer (and bool) ids, as torch converts them."
    f = lambda lib: lib.nn.EmbeddingBag(5, 2, mode='sum')(lib.tensor([True, False, True]), lib.tensor([0])).shape
    assert tuple(f(litnn)) == tuple(f(torch)) == (1, 2)


def test_old_argument_order_is_swapped_with_a_warning():
    "embedding_bag(weight, input, offsets): torch's backward compatibility swaps them back, with a warning."
    res = []
    for lib in (litnn, torch):
        w = lib.tensor(W); ids = lib.tensor(IDS); off = lib.tensor([0, 4])
        with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag was changed"):
            out = lib.nn.functional.embedding_bag(w, ids, off)
        res.append(out.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)

"""Meta's LLaMA reference `llama/model.py` (rotary embeddings with `torch.polar` and `torch.view_as_complex`), run with
litnn in place of torch, side by side with torch 2.13 from the same weights: generation with its KV cache, and a few
AdamW steps of training.

The file is Meta's, under its own license, so litnn does not ship a copy: the test reads it from
`$LITNN_LLAMA_MODEL` (a path to `model.py`), from `$LITNN_LLAMA_REPO` (a clone of meta-llama/llama, working tree or
bare), or from the snapshot this project's sessions keep of that repository, and is skipped without one.

What a reader changes to run it on one machine, as text, and nothing else: the `fairscale` model-parallel layers
become `nn.Linear` / `nn.Embedding` (one process: world size 1), the two `.cuda()` calls go, and for training the
`@torch.inference_mode()` on `Transformer.forward` goes and the KV cache (meant for generation) is detached before
each step, as torch itself needs (else the second backward runs into the first step's freed graph)."""
import os, re, subprocess, sys, types
import numpy as np, pytest
import litnn

torch = pytest.importorskip('torch')

_SNAPSHOT = '/work/.mirror/meta-llama+llama/repo'

def _source():
    "The text of meta-llama/llama's llama/model.py, or a skip."
    if os.environ.get('LITNN_LLAMA_MODEL'): return open(os.environ['LITNN_LLAMA_MODEL']).read()
    for repo in (os.environ.get('LITNN_LLAMA_REPO'), _SNAPSHOT):
        if not repo or not os.path.isdir(repo): continue
        tree = os.path.join(repo, 'llama', 'model.py')
        if os.path.isfile(tree): return open(tree).read()
        r = subprocess.run(['git', '--git-dir', repo, 'show', 'HEAD:llama/model.py'], capture_output=True, text=True)
        if r.returncode == 0: return r.stdout
    pytest.skip("meta-llama/llama's llama/model.py not found: set LITNN_LLAMA_MODEL or LITNN_LLAMA_REPO")

def _fairscale(lib):
    "One-process stand-ins for fairscale's model-parallel pieces that model.py imports."
    fs = types.SimpleNamespace(get_model_parallel_world_size=lambda: 1)
    fs.ColumnParallelLinear = lambda i, o, bias=True, gather_output=True, init_method=None: lib.nn.Linear(i, o, bias=bias)
    fs.RowParallelLinear = lambda i, o, bias=True, input_is_parallel=False, init_method=None: lib.nn.Linear(i, o, bias=bias)
    fs.ParallelEmbedding = lambda n, d, init_method=None: lib.nn.Embedding(n, d)
    return fs

def load(lib, training=False):
    "model.py executed as a module with `lib` (torch or litnn) as its torch."
    src = _source().replace('.cuda()', '')
    if training: src = src.replace('@torch.inference_mode()', '')
    src = src.replace('import fairscale.nn.model_parallel.initialize as fs_init', 'fs_init = _fs')
    src, n = re.subn(r'from fairscale\.nn\.model_parallel\.layers import \((.*?)\)\n',
                     lambda m: ', '.join(x.strip() for x in m[1].split(',') if x.strip()) + ' = '
                     + ', '.join(f'_fs.{x.strip()}' for x in m[1].split(',') if x.strip()) + '\n', src, flags=re.S)
    assert n == 1 and 'fairscale' not in src
    if lib is litnn:
        src = re.sub(r'^import torch$', 'import litnn as torch', src, flags=re.M)
        src = src.replace('import torch.nn.functional as F', 'import litnn.nn.functional as F').replace('from torch import nn', 'from litnn import nn')
        assert not re.search(r'^\s*(import torch|from torch)', src, flags=re.M)
    name = f'llama_model_{lib.__name__}_{training}'
    mod = types.ModuleType(name); mod._fs = _fairscale(lib)
    sys.modules[name] = mod                          # @dataclass looks its module up
    exec(compile(src, f'llama/model.py [{lib.__name__}]', 'exec'), mod.__dict__)
    return mod

CONFIG = dict(dim=32, n_layers=2, n_heads=4, vocab_size=64, multiple_of=32, max_batch_size=4, max_seq_len=16)

def pair(training, **kw):
    "The torch model and the litnn model with the same weights."
    T, L = load(torch, training), load(litnn, training)
    torch.manual_seed(0)
    mt = T.Transformer(T.ModelArgs(**CONFIG, **kw))
    ml = L.Transformer(L.ModelArgs(**CONFIG, **kw))
    ml.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in mt.state_dict().items()})
    return T, L, mt, ml

def tokens(*shape, seed=0):
    t = torch.randint(0, CONFIG['vocab_size'], shape, generator=torch.Generator().manual_seed(seed))
    return t, litnn.tensor(t.numpy())

def test_rotary_embedding():
    "precompute_freqs_cis (polar, complex64) and apply_rotary_emb (view_as_complex, a complex product, view_as_real)."
    T, L = load(torch), load(litnn)
    ft, fl = T.precompute_freqs_cis(8, 32), L.precompute_freqs_cis(8, 32)
    assert str(fl.dtype) == 'litnn.complex64' and fl.shape == ft.shape
    np.testing.assert_allclose(fl.numpy(), ft.numpy(), rtol=1e-6, atol=1e-6)
    g = torch.Generator().manual_seed(1)
    q, k = (torch.randn(2, 16, 4, 8, generator=g, requires_grad=True) for _ in range(2))
    ql, kl = (litnn.tensor(t.detach().numpy(), requires_grad=True) for t in (q, k))
    (qt_, kt_), (ql_, kl_) = T.apply_rotary_emb(q, k, ft[:16]), L.apply_rotary_emb(ql, kl, fl[:16])
    for a, b in ((qt_, ql_), (kt_, kl_)): np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6)
    w = torch.randn(2, 16, 4, 8, generator=g)
    ((qt_ * w).sum() + (kt_ ** 2).sum()).backward()
    ((ql_ * litnn.tensor(w.numpy())).sum() + (kl_ ** 2).sum()).backward()
    np.testing.assert_allclose(ql.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(kl.grad.numpy(), k.grad.numpy(), rtol=1e-5, atol=1e-6)

def test_generation_with_kv_cache():
    "The file as Meta wrote it (inference mode, the cache written in place): a prompt, then one token at a time."
    T, L, mt, ml = pair(training=False)
    pt, pl = tokens(2, 6)
    outs = []
    for lib, m, p in ((torch, mt, pt), (litnn, ml, pl)):
        logits, toks, pos = [], p, 0
        for _ in range(4):                          # greedy decoding, reusing the cache from start_pos on
            out = m(toks, pos)
            assert not out.requires_grad
            logits.append(out.numpy()); pos += toks.shape[1]
            toks = out[:, -1].argmax(-1, keepdim=True)
        outs.append(logits)
    for a, b in zip(*outs): np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)

@pytest.mark.parametrize('n_kv_heads', [None, 2])
def test_training_losses(n_kv_heads):
    "A few AdamW steps of next-token training from the same weights give torch's losses (float32, rtol 1e-4)."
    T, L, mt, ml = pair(training=True, n_kv_heads=n_kv_heads)
    tt, tl = tokens(4, CONFIG['max_seq_len'] + 1, seed=2)
    losses = []
    for lib, m, tok in ((torch, mt, tt), (litnn, ml, tl)):
        opt = lib.optim.AdamW(m.parameters(), lr=1e-2)
        out = []
        for _ in range(5):
            for layer in m.layers:                   # the generation cache: a fresh graph each step
                a = layer.attention
                a.cache_k, a.cache_v = a.cache_k.detach(), a.cache_v.detach()
            logits = m(tok[:, :-1], 0)
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, CONFIG['vocab_size']), tok[:, 1:].reshape(-1))
            opt.zero_grad(); loss.backward(); opt.step()
            out.append(loss.item())
        losses.append(out)
    assert losses[0][-1] < losses[0][0] - 0.5                  # it learns
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
    for (k, a), b in zip(mt.state_dict().items(), ml.state_dict().values()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-3, atol=1e-4, err_msg=k)

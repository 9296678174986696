"""What third-party programs written for torch (gpt-fast, mamba ports, d2l, rasbt's notebooks) met in litnn, side by side
with PyTorch 2.13: `jit.ScriptModule`, `backends.cuda.sdp_kernel`, `load(mmap=)`, the DataLoader's iterator and its
`pin_memory` warning, the warning of `float()` on a tensor that requires grad, `_inductor.config`/`_functorch.config`,
`return_types`' class path, a bad `view`'s exception chain, and warnings shown twice after numba compiled Adam's step."""
import os, pickle, subprocess, sys, textwrap, warnings
import pytest

torch = pytest.importorskip('torch')
import litnn

def both(): return (torch, litnn)

def run(code, lib):
    "stdout+stderr of `code` run in a fresh process, with `torch` meaning `lib`."
    pre = 'import litnn as torch\n' if lib == 'litnn' else 'import torch\n'
    r = subprocess.run([sys.executable, '-c', pre + textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                       env={**os.environ, 'PYTHONWARNINGS': ''})
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr

# 1. torch.jit.ScriptModule / script_method

def _scripted(lib):
    class M(lib.jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.k = 3
            self.lin = lib.nn.Linear(2, 2)
        @lib.jit.script_method
        def f(self, x, i: int):
            return x * self.k + i
        def forward(self, x):
            return self.f(x, 1)
    return M()

def test_script_module_is_a_module_and_runs():
    outs = []
    for lib in both():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            m = _scripted(lib)
            lib.jit.script(m)
        outs.append(([(x.category, str(x.message), os.path.basename(x.filename)) for x in w], m(lib.ones(2)).tolist(), isinstance(m, lib.nn.Module), isinstance(m, lib.jit.ScriptModule),
                     list(m.state_dict()), m.training, [c.__name__ for c in lib.jit.ScriptModule.__mro__]))
    assert outs[0] == outs[1]

# 2. torch.backends.cuda.sdp_kernel

def _sdp_state(lib):
    c = lib.backends.cuda
    return (c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled())

@pytest.mark.parametrize('kw', [dict(enable_flash=False, enable_mem_efficient=False), dict(enable_math=False), {},
                                dict(enable_flash=False, enable_math=False, enable_mem_efficient=False, enable_cudnn=False)])
def test_sdp_kernel_warns_and_sets_the_switches(kw):
    outs = []
    for lib in both():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            cm = lib.backends.cuda.sdp_kernel(**kw)
            warned = [(x.category, str(x.message), os.path.basename(x.filename)) for x in w]
            with cm as context: inside = _sdp_state(lib)
        outs.append((warned, inside, context, _sdp_state(lib)))
    assert outs[0] == outs[1]

def test_sdp_kernel_math_only_still_computes():
    outs = []
    for lib in both():
        q = lib.ones(1, 1, 2, 4)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with lib.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False, enable_math=True):
                outs.append(lib.nn.functional.scaled_dot_product_attention(q, q, q).sum().item())
    assert outs[0] == outs[1] == 8.0

# 3. torch.load(mmap=)

@pytest.mark.parametrize('mmap', [True, False, None])
def test_load_accepts_mmap(tmp_path, mmap):
    p = str(tmp_path / 'x.pt')
    torch.save({'w': torch.arange(4.)}, p)        # a torch file, read by both
    outs = []
    for lib in both():
        sd = lib.load(p, mmap=mmap, weights_only=True)
        sd['w'].add_(1)                                 # private to the process: the file keeps its values
        outs.append((sd['w'].tolist(), lib.load(p, mmap=mmap)['w'].tolist()))
    assert outs[0] == outs[1] == ([1., 2., 3., 4.], [0., 1., 2., 3.])

def test_load_mmap_wants_a_path(tmp_path):
    p = str(tmp_path / 'x.pt')
    torch.save({'w': torch.ones(2)}, p)
    outs = []
    for lib in both():
        with open(p, 'rb') as fh:
            with pytest.raises(Exception) as e: lib.load(fh, mmap=True)
        outs.append((e.type, str(e.value)))
    assert outs[0] == outs[1]
    litnn.save({'w': litnn.ones(2)}, p)                 # litnn's own checkpoints too
    assert litnn.load(p, mmap=True)['w'].tolist() == [1., 1.]

# 4. DataLoader's iterator and pin_memory

def _iterate(lib):
    dl = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(10.)), batch_size=4)
    it = iter(dl)
    out = [type(it).__name__, len(it), next(it)[0].tolist(), it._num_yielded, iter(it) is it]
    with pytest.raises(AttributeError) as e: it.next()
    out += [str(e.value), [b[0].tolist() for b in it], it._num_yielded, next(it, 'done')]
    with pytest.raises(NotImplementedError) as e: pickle.dumps(iter(dl))
    return out + [e.value.args]

def test_dataloader_iterator():
    assert _iterate(torch) == _iterate(litnn)

def test_dataloader_iterator_of_a_stream():
    outs = []
    for lib in both():
        class S(lib.utils.data.IterableDataset):
            def __iter__(self): return iter(range(5))
        it = iter(lib.utils.data.DataLoader(S(), batch_size=2))
        with pytest.raises(TypeError) as e: len(it)
        outs.append((type(it).__name__, str(e.value), [b.tolist() for b in it], it._num_yielded))
    assert outs[0] == outs[1]

@pytest.mark.skipif(litnn.accelerator.is_available() or torch.accelerator.is_available(), reason='warns only without an accelerator')
@pytest.mark.parametrize('device', ['', 'cuda'])
def test_pin_memory_without_accelerator_warns(device):
    outs = []
    for lib in both():
        dl = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(4)), batch_size=2, pin_memory=True,
                                       pin_memory_device=device)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            xs = [x for (x,) in dl]
        outs.append(([(x.category, str(x.message)) for x in w], [x.tolist() for x in xs], xs[0].is_pinned()))
    assert outs[0] == outs[1]
    assert outs[0][0]

# 5. float() of a tensor that requires grad

SCALAR_WARNING = '''
import warnings
warnings.simplefilter('always')
w = torch.ones(1, requires_grad=True)
def shown(f):
    with warnings.catch_warnings(record=True) as r:
        warnings.simplefilter('always'); f()
    return [str(x.message).split(' (Triggered internally')[0] for x in r]
print([(name, shown(f)) for name, f in [('int', lambda: int(w)), ('item', w.item), ('tolist', w.tolist), ('bool', lambda: bool(w)),
       ('no grad', lambda: float(w.detach())), ('float', lambda: float(w * 2)), ('float again', lambda: float(w * 3)),
       ('complex', lambda: complex(w))]])
torch.set_warn_always(True)
print(shown(lambda: float(w)), shown(lambda: float(w)))
'''

def test_float_of_a_tensor_that_requires_grad_warns_once():
    t, l = run(SCALAR_WARNING, 'torch'), run(SCALAR_WARNING, 'litnn')
    assert t == l
    assert 'Converting a tensor with requires_grad=True to a scalar' in t

# 6. torch._inductor.config, torch._functorch.config

@pytest.mark.parametrize('name', ['_inductor.config', '_functorch.config'])
def test_compiler_configs_are_torchs_settings(name):
    import importlib
    t, l = (importlib.import_module(lib.__name__ + '.' + name) for lib in both())
    for k in l.__all__:                                   # every litnn setting is torch's, with torch's default
        v = getattr(l, k)
        if hasattr(v, '_values'):
            for a, b in v._values.items(): assert getattr(getattr(t, k), a) == b, (k, a)
        else: assert getattr(t, k) == v, k
    outs = []
    for m in (t, l):
        errs = []
        for f in (lambda: m.nope, lambda: setattr(m, 'nope', 1)):
            with pytest.raises(AttributeError) as e: f()
            errs.append(str(e.value).replace('litnn.', 'torch.'))
        outs.append(errs)
    assert outs[0] == outs[1]

def test_gpt_fast_sets_its_switches():
    code = '''
    import torch._inductor.config, torch._functorch.config
    torch._inductor.config.coordinate_descent_tuning = True
    torch._inductor.config.triton.unique_kernel_names = True
    torch._inductor.config.fx_graph_cache = True
    torch._functorch.config.enable_autograd_cache = True
    c = torch._inductor.config
    print(c.coordinate_descent_tuning, c.triton.unique_kernel_names, c.fx_graph_cache, torch._functorch.config.enable_autograd_cache)
    for f in (lambda: setattr(c.triton, 'nope', 1), lambda: c.triton.nope, lambda: setattr(c, 'triton', 1)):
        try: f()
        except AttributeError as e: print(str(e).replace('litnn', 'torch'))
    '''
    assert run(code, 'torch') == run(code, 'litnn') == ('True True True True\ntorch._inductor.config.triton.nope does not exist\n'
        'torch._inductor.config.triton.nope does not exist\ntorch._inductor.config.triton does not exist\n')

# 7. return_types' class path

def _typed(lib):
    x = lib.tensor([[1., 5.], [3., 2.]])
    rs = [lib.max(x, 0), lib.min(x, 1), lib.sort(x), lib.topk(x, 1), lib.linalg.lstsq(lib.eye(2), lib.ones(2, 1)),
          lib.frexp(x), lib.aminmax(x), lib.cummax(x, 0), lib.linalg.slogdet(x), lib.linalg.eigh(x @ x.T), lib.median(x, 0)]
    return [(type(r).__module__.replace(lib.__name__, 'LIB'), type(r).__qualname__, type(r).__name__,
             repr(r).split('(')[0].replace(lib.__name__, 'LIB'), type(pickle.loads(pickle.dumps(r))) is type(r)) for r in rs]

def test_return_types_live_in_return_types():
    assert _typed(torch) == _typed(litnn)

def test_every_return_type_is_torchs():
    names = [T.__name__ for T in litnn.return_types.all_return_types]
    assert len(names) == len(set(names)) > 30
    assert [n for n in names if not hasattr(torch.return_types, n)] == []

# 8. A bad view's exception chain

@pytest.mark.parametrize('requires_grad', [False, True])
@pytest.mark.parametrize('how', ['view', 'reshape'])
def test_a_bad_view_chains_nothing(requires_grad, how):
    outs = []
    for lib in both():
        with pytest.raises(RuntimeError) as e: getattr(lib.zeros(2, 3, requires_grad=requires_grad), how)(-1, 4)
        outs.append((str(e.value), e.value.__context__, e.value.__cause__))
    assert outs[0] == outs[1]

# 9. Warnings shown once per place, also after numba compiled Adam's step

ADAM = '''
import warnings
F = torch.nn.functional
x = torch.rand(4, 3); y = torch.rand(4, 3)
w = torch.nn.Parameter(torch.ones(3))
opt = torch.optim.Adam([w])
for i in range(3):
    l = F.binary_cross_entropy((x * w).clamp(0, 1), y, size_average=False)
    l.backward(); opt.step(); opt.zero_grad()
def f(): warnings.warn("user warning")
f(); opt.step(); f()
'''

def test_warnings_are_not_shown_again_after_the_first_adam_step():
    t, l = run(ADAM, 'torch'), run(ADAM, 'litnn')
    count = lambda out: (out.count('size_average and reduce args will be deprecated'), out.count('UserWarning: user warning'))
    assert count(t) == count(l) == (1, 1)

def test_import_litnn_does_not_import_numba():
    assert run("import sys; print('numba' in sys.modules)", 'litnn').strip() == 'False'

# 12. DINO's DINOHead builds its last layer with the deprecated nn.utils.weight_norm: torch's FutureWarning comes from
# `@deprecated` on WeightNorm.apply, so it names the line in weight_norm() that calls apply (shown once under the
# default filters however many heads a program builds), and a direct WeightNorm.apply call names the caller.

def test_weight_norm_warns_where_torch_does():
    from litnn.nn.utils.weight_norm import WeightNorm as LitWN
    from torch.nn.utils.weight_norm import WeightNorm as TorchWN
    outs = []
    for lib, WN in ((torch, TorchWN), (litnn, LitWN)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.nn.utils.weight_norm(lib.nn.Linear(3, 4))
            lib.nn.utils.weight_norm(lib.nn.Conv1d(3, 4, 2), dim=None)
            WN.apply(lib.nn.Linear(3, 4), 'weight', 0)
        outs.append([(x.category, str(x.message), os.path.basename(x.filename)) for x in w])
        assert w[0].lineno == w[1].lineno != w[2].lineno
    assert outs[0] == outs[1]
    assert [f for *_, f in outs[1]] == ['weight_norm.py', 'weight_norm.py', 'test_ported_programs.py']

# 13. tkipf/pygcn builds its adjacency with the legacy torch.sparse.FloatTensor(indices, values, shape): torch warns once
# per form of the call (from C++, naming the caller's line), and the result takes the values' dtype, not the class's.

LEGACY_SPARSE = ["lib.sparse.FloatTensor(i, v, lib.Size([2, 2]))", "lib.sparse.FloatTensor(i, v)", "lib.sparse.FloatTensor(2, 3)",
                 "lib.sparse.FloatTensor()", "lib.sparse.FloatTensor(i, v.long(), (2, 2))", "lib.sparse.LongTensor(i, v, (2, 2))",
                 "lib.sparse.DoubleTensor(lib.Size([3]))", "lib.sparse.FloatTensor((2, 2))", "lib.sparse.FloatTensor(i, v, (2, 2))"]

def test_legacy_sparse_constructors_as_torch():
    outs = {}
    for lib in both():
        code = f"""
            import warnings
            i, v = torch.tensor([[0, 1], [1, 0]]), torch.tensor([1., 2.])
            for call in {LEGACY_SPARSE!r}:
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter('always')
                    try: r = eval(call, dict(lib=torch, i=i, v=v)); print(call, str(r.dtype).split('.')[1], r.layout, tuple(r.shape), r._nnz(), r.to_dense().tolist())
                    except TypeError as e: print(call, 'TypeError', e)
                for x in w: print('  ', x.category.__name__, str(x.message).split(' (Triggered internally')[0], x.filename)
            """
        outs[lib] = run(code, lib.__name__).replace('litnn.', 'torch.')
    assert outs[torch] == outs[litnn]
    assert outs[litnn].count('is deprecated') == 4

# 14. PyTorch-GAN's InfoGAN calls nn.Softmax() without a dim: torch's warning names the caller of F.softmax /
# log_softmax / softmin (their `_stacklevel` counts Python frames; litnn's argument-parser wrapper is not counted) and,
# for the modules, torch's own module.py; softmin's warning says softmin.

def test_implicit_softmax_dim_warns_where_torch_does():
    outs = []
    for lib in both():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            x = lib.ones(2, 3)
            lib.nn.functional.softmax(x); lib.nn.functional.log_softmax(x); lib.nn.functional.softmin(x)
            lib.nn.Softmax()(x); lib.nn.LogSoftmax()(x); lib.nn.Softmin()(x)
            lib.nn.functional.softmax(lib.ones(3), _stacklevel=2)
        outs.append([(str(x.message), os.path.basename(x.filename)) for x in w])
    assert outs[0] == outs[1]
    assert [f for _, f in outs[1]] == ['test_ported_programs.py'] * 3 + ['module.py'] * 3 + ['functional.py']

# 15. Warnings torch raises in C++ name the Python line that called the op; litnn's ops are Python, wrapped by its
# argument parser: `_stacklevel_outside` names the first frame outside litnn (torch.tensor of a tensor, std/var
# without degrees of freedom), found while checking where the programs' warnings pointed.

def test_cpp_warnings_name_the_caller():
    outs = []
    for lib in both():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            lib.tensor(lib.ones(2)); lib.as_tensor(lib.ones(1)).std(); lib.var(lib.ones(1)); lib.std_mean(lib.ones(1), dim=0)
            lib.ones(1, 1).var(1, keepdim=True)
        outs.append([(str(x.message).replace('litnn.', 'torch.').split(' (Triggered internally')[0], os.path.basename(x.filename), x.lineno) for x in w])
    assert outs[0] == outs[1] and len(outs[0]) == 5

def test_cross_and_same_padding_warn_once_naming_the_caller():
    code = """
        import os, warnings
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            for _ in range(2):
                torch.cross(torch.ones(3, 3), torch.ones(3, 3))
                torch.nn.functional.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 2), padding='same')
        for x in w: print(x.category.__name__, str(x.message).split(' (Triggered internally')[0], os.path.basename(x.filename), x.lineno)
        """
    outs = [run(code, lib.__name__).replace('litnn.', 'torch.') for lib in both()]
    assert outs[0] == outs[1] and outs[0].count('Warning') == 2

# 16. torch.nn._reduction is a module of its own (third-party losses import it); its legacy-flag warning names the
# line that called legacy_get_string, so F.binary_cross_entropy(size_average=False) (yunjey's VAE tutorial), which
# goes through legacy_get_enum, warns from _reduction.py in torch; litnn's _Reduction was a class in functional.py.

def test_reduction_module_and_its_warnings_as_torch():
    import torch.nn._reduction
    import litnn.nn._reduction
    outs = []
    for lib in both():
        F, R = lib.nn.functional, lib.nn._reduction
        p, t = lib.full((2, 3), 0.3), lib.ones(2, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = [F.binary_cross_entropy(p, t, size_average=False).item(), F.binary_cross_entropy_with_logits(p, t, reduce=False).shape,
                 F.mse_loss(p, t, size_average=False).item(), R.legacy_get_enum(None, False), R.legacy_get_string(False, True),
                 R.get_enum('elementwise_mean'), type(lib.nn.MSELoss(size_average=False)).__name__]
            c, lp = lib.tensor([0, 2]), F.log_softmax(lib.ones(2, 3), 1)     # the functions torch routes through legacy_get_enum
            r += [F.kl_div(lp, p, size_average=False).item(), F.hinge_embedding_loss(p, t, size_average=False).item(),
                  F.soft_margin_loss(p, t, reduce=False).shape, F.cosine_embedding_loss(p, p, lib.ones(2), size_average=False).item(),
                  F.margin_ranking_loss(p[0], p[1], t[0], size_average=False).item(), F.multi_margin_loss(p, c, size_average=False).item(),
                  F.multilabel_margin_loss(p, c.new_zeros(2, 3), size_average=False).item(), F.triplet_margin_loss(p, p, p, size_average=False).item(),
                  F.nll_loss(lp, c, size_average=False).item(), F.smooth_l1_loss(p, t, reduce=False).shape]
        with pytest.raises(ValueError) as e: R.get_enum('avg')
        outs.append((r, str(e.value), [(str(x.message), os.path.basename(x.filename)) for x in w]))
    assert outs[0][:2] == outs[1][:2]
    assert outs[0][2] == outs[1][2]
    assert [f for _, f in outs[1][2]][:2] == ['_reduction.py'] * 2

def test_cpp_warnings_name_the_caller_once_torch_function_dispatch_is_on():
    "A Tensor subclass with __torch_function__ turns litnn's dispatch wrappers on (for good): warnings still name the caller."
    code = """
        import os, warnings
        class Sub(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None): return super().__torch_function__(func, types, args, kwargs or {})
        torch.ones(2).as_subclass(Sub) + 1
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            torch.tensor(torch.ones(2)); torch.as_tensor(torch.ones(1)).std(); torch.var(torch.ones(1))
        for x in w: print(str(x.message).split(' (Triggered internally')[0][:40], os.path.basename(x.filename), x.lineno)
        """
    outs = [run(code, lib.__name__).replace('litnn.', 'torch.') for lib in both()]
    assert outs[0] == outs[1] and outs[0].count('<string>') == 3

# kornia's warp_affine builds its sampling grid from `linspace`: an ulp there moved grid_sample's floor at pixel centres and
# changed the gradient of the matrix by O(1). torch's kernel counts the first half from `start`, the second from `end`,
# each value one fused multiply-add (two roundings in float16/bfloat16; float64 then truncation for integers).

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32', 'uint8'])
def test_linspace_values_are_torchs_bit_for_bit(dtype):
    import numpy as np
    rng = np.random.default_rng(0)
    ints = dtype.startswith(('int', 'uint'))
    cases = [(-1, 1, 18), (-1 + 1 / 12, 1 - 1 / 12, 12), (0, 1, 7), (2, -5, 9), (0.5, 1.5, 2), (3, 3, 5)]
    cases += [(float(a), float(b), int(n)) for a, b, n in zip(rng.normal(0, 5, 40), rng.normal(0, 5, 40), rng.integers(2, 400, 40))]
    if ints: cases = [(int(a), int(b), n) for a, b, n in cases] + [(10, -50, 7)] * (dtype == 'uint8')
    for a, b, n in cases:
        t = torch.linspace(a, b, n, dtype=getattr(torch, dtype))
        l = litnn.linspace(a, b, n, dtype=getattr(litnn, dtype))
        if not ints: t, l = t.float(), l.float()
        assert np.array_equal(t.numpy(), l.numpy()), (a, b, n)

# logspace too: torch's kernel takes each power with the C library's pow, numpy's vectorised power (SIMD on AVX-512 CPUs)
# can differ from it in the last bit; the bounds are read in the dtype, checked for overflow.

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32', 'uint8', None])
def test_logspace_values_are_torchs_bit_for_bit(dtype):
    import numpy as np
    rng = np.random.default_rng(1)
    cases = [(0, 1, 5, 10), (-2, 3, 17, 10), (0, 10, 100, 2), (1, 5, 33, 3.5), (-10, 10, 1001, 10), (0.5, 2.5, 7, np.e),
             (0.1, 0.7, 50, 10), (2.5, 2.5, 1, 2), (0, 3, 0, 10), (5, -5, 11, 0.5), (0, 1.5, 4, -2.0), (-1, 3, 5, 10)]
    cases += [(float(a), float(b), int(n), float(c)) for a, b, n, c in
              zip(rng.normal(0, 2, 20), rng.normal(0, 2, 20), rng.integers(2, 300, 20), rng.uniform(0.1, 5, 20))]
    for a, b, n, base in cases:
        if dtype in ('uint8', 'int32', 'int64') and not (0 <= min(a, b) and abs(base) ** max(a, b) < 255 and base > 0):
            continue              # (a power outside the integer dtype: C's cast is undefined there)
        r = [lib.logspace(a, b, n, base=base, **({} if dtype is None else dict(dtype=getattr(lib, dtype)))) for lib in both()]
        t, l = (x.double().numpy() for x in r)
        assert r[0].dtype.itemsize == r[1].dtype.itemsize and np.array_equal(t, l, equal_nan=True), (a, b, n, base)

def test_linspace_logspace_bounds_overflow_as_torch():
    for f, args, dt in [('linspace', (0, 1e5, 5), 'float16'), ('logspace', (0, 1e39, 5), 'float32'), ('linspace', (-300, 3, 5), 'uint8'),
                        ('logspace', (0, 1e39, 5), 'bfloat16')]:
        msgs = []
        for lib in both():
            with pytest.raises(RuntimeError) as e: getattr(lib, f)(*args, dtype=getattr(lib, dt))
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1] and 'without overflow' in msgs[0]
    for f, args, dt in [('logspace', (0, 1e39, 1), 'float32'), ('linspace', (1e39, 0, 0), 'float32'), ('logspace', (-1, 3, 1), 'uint8')]:
        a, b = (getattr(lib, f)(*args, dtype=getattr(lib, dt)).tolist() for lib in both())     # (one or no value: nothing read)
        assert a == b

def test_affine_grid_is_torchs_bit_for_bit():
    """torch's linspace_from_neg_one (linspace, then * (n - 1) / n) in the dtype and its bmm's order of summation: the
    same bits for the identity maps (exact products: kornia's pixel centres), within a rounding of the terms' size for
    others (torch's CPU bmm fuses multiply-adds where the CPU has FMA, so its last bits depend on the machine)."""
    import numpy as np
    rng = np.random.default_rng(0)
    for dt in ('float32', 'float64'):
        for ac in (False, True):
            for size, k in [((2, 1, 16, 20), 2), ((2, 3, 5, 7), 2), ((2, 1, 1, 4), 2), ((2, 1, 3, 4, 5), 3)]:
                for th in (rng.normal(size=(2, k, k + 1)), np.tile(np.eye(k, k + 1), (2, 1, 1))):
                    with warnings.catch_warnings():
                        warnings.simplefilter('ignore')     # (the unit-size warning of align_corners=True)
                        a, b = (lib.nn.functional.affine_grid(lib.tensor(th, dtype=getattr(lib, dt)), size, align_corners=ac).numpy() for lib in both())
                    if (th == np.tile(np.eye(k, k + 1), (2, 1, 1))).all(): assert np.array_equal(a, b), (dt, ac, size)
                    else: np.testing.assert_allclose(a, b, rtol=0, atol=2 * np.finfo(dt).eps * np.abs(th).sum(-1).max())

@pytest.mark.parametrize('padding_mode', ['border', 'reflection', 'zeros'])
@pytest.mark.parametrize('align_corners', [False, True])
def test_grid_sample_on_the_edge_pixels_gives_torchs_gradient(padding_mode, align_corners):
    "torch's clip_coordinates_set_grad: a point exactly on the first or last pixel gets no gradient from border / reflection."
    import numpy as np
    x = np.random.default_rng(0).random((1, 2, 4, 5))
    pts = np.array([(0, 1.3), (4, 2.2), (1.5, 0), (2.5, 3), (0, 0), (4, 3), (-0.5, 1.2), (4.5, 1.7), (-1, 1), (5, 2), (2, 1)])
    size = np.array([5, 4])
    g = (pts * 2 / (size - 1) - 1 if align_corners else (2 * pts + 1) / size - 1).reshape(1, 1, -1, 2)
    out = []
    for lib in both():
        gt = lib.tensor(g, requires_grad=True)
        o = lib.nn.functional.grid_sample(lib.tensor(x), gt, padding_mode=padding_mode, align_corners=align_corners)
        (o * lib.linspace(0.5, 1.5, o.numel(), dtype=lib.float64).reshape(o.shape)).sum().backward()
        out.append((o.detach().numpy(), gt.grad.numpy()))
    np.testing.assert_allclose(out[1][0], out[0][0], atol=1e-12)
    np.testing.assert_allclose(out[1][1], out[0][1], atol=1e-12)

def test_identity_warp_at_pixel_centres_gives_torchs_gradient():
    "kornia's warp_affine / a spatial transformer at identity: grid points on pixel centres, where an ulp moves grid_sample's floor."
    import numpy as np
    x = np.random.default_rng(0).random((1, 2, 16, 20))
    out = []
    for lib in both():
        th = lib.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], requires_grad=True)
        o = lib.nn.functional.grid_sample(lib.tensor(x, dtype=lib.float32), lib.nn.functional.affine_grid(th, (1, 2, 16, 20), align_corners=False), align_corners=False)
        (o * lib.linspace(0.5, 1.5, o.numel()).reshape(o.shape)).sum().backward()
        out.append(th.grad.numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-4, atol=1e-4)

def test_flatten_dense_tensors_as_torch():
    "improved-diffusion's fp16_util (and apex) keep float32 master parameters through torch._utils' two helpers."
    import numpy as np
    outs = []
    for lib in both():
        from importlib import import_module
        U = import_module(lib.__name__ + '._utils')
        a, b, c = lib.arange(6.).reshape(2, 3).t(), lib.ones(4), lib.zeros(2, 0)
        flat = U._flatten_dense_tensors([a, b, c])
        parts = U._unflatten_dense_tensors(flat, [a, b, c])
        parts[1].mul_(3)
        errs = []
        for f in (lambda: U._flatten_dense_tensors([]), lambda: U._unflatten_dense_tensors(lib.ones(3), [lib.ones(4)])):
            try: f()
            except Exception as e: errs.append((type(e).__name__, str(e)))
        one = U._flatten_dense_tensors([b])
        outs.append((flat.tolist(), type(parts).__name__, [(tuple(p.shape), p.stride(), p.tolist()) for p in parts], errs,
                     one.data_ptr() == b.data_ptr(), str(U._flatten_dense_tensors([lib.ones(2), lib.ones(2, dtype=lib.int64)]).dtype).split('.')[-1]))
    assert outs[0] == outs[1]

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_arange_values_are_torchs_bit_for_bit(dtype):
    "torch's arange kernel: float64 fused multiply-adds, 32 bytes of values per vector counting from its first value, the tail one by one."
    import numpy as np
    rng = np.random.default_rng(1)
    cases = [(-1, 1, 0.1), (0, 2, 0.1), (-3, 3, 0.07), (0.3, 17.1, 0.37), (5, -5, -0.3), (0, 1, 1 / 3), (2.5, 9, 1)]
    cases += [(float(a), float(a) + float(s) * (int(n) + 0.5), float(s)) for a, s, n in zip(rng.normal(0, 3, 60), rng.normal(0, 1, 60), rng.integers(0, 500, 60))]
    for a, b, s in cases:
        t, l = (lib.arange(a, b, s, dtype=getattr(lib, dtype)).numpy() for lib in both())
        assert t.shape == l.shape and np.array_equal(t, l), (a, b, s)

# third-party-11: what pyro-ppl's import met (torch.distributions constraints subclassed with keyword bounds,
# register_kl with pyro's own Distribution base, torch.serialization's annotation aliases)

def test_constraint_bounds_by_keyword_as_torch():
    "pyro subclasses `type(constraints.positive)` and calls `super().__init__(lower_bound=0.0)`."
    outs = []
    for lib in both():
        C = lib.distributions.constraints
        class _SoftplusPositive(type(C.positive)):
            def __init__(self): super().__init__(lower_bound=0.0)
        x = lib.tensor([-1., 0., 2.])
        row = [repr(_SoftplusPositive()), _SoftplusPositive().check(x).tolist(), repr(C._Interval(lower_bound=0, upper_bound=2)),
               repr(C._LessThan(upper_bound=1.)), C._GreaterThan(lower_bound=0.).check(x).tolist(), repr(C.integer_interval(0, 3)),
               repr(C.half_open_interval(0., 1.)), C.interval(0., 2.).check(x).tolist(),
               # each bounded class derives from Constraint alone, as torch's: no isinstance across them
               [isinstance(c, t) for c in (C.integer_interval(0, 3), C.half_open_interval(0., 1.), C.nonnegative_integer, C._IntegerLessThan(2))
                for t in (type(C.interval(0., 1.)), type(C.greater_than(0.)), type(C.less_than(0.)))],
               [c.is_discrete for c in (C.integer_interval(0, 3), C.half_open_interval(0., 1.), C.nonnegative_integer, C._IntegerLessThan(2))]]
        for f in (lambda: C._GreaterThan(), lambda: C._Interval(0, 1, 2), lambda: C._Interval(lower_bound=0, up=1), lambda: C._HalfOpenInterval(0)):
            try: f()
            except TypeError as e: row.append(str(e))
        outs.append(row)
    assert outs[0] == outs[1]

def test_register_kl_takes_any_class_as_torch():
    "torch's check (`not isinstance(t, type) and issubclass(...)`) lets any class register; a non-class fails in issubclass."
    outs = []
    for lib in both():
        D = lib.distributions
        class Base: pass                      # pyro registers KLs against its own Distribution base
        class Delta(D.Normal, Base): pass
        f = D.kl.register_kl(Delta, Base)(lambda p, q: lib.tensor(7.))
        try:
            with warnings.catch_warnings(record=True) as w:     # (Delta, Base) and (Normal, Normal) tie: torch warns
                warnings.simplefilter('always')
                row = [D.kl_divergence(Delta(0., 1.), Delta(0., 2.)).item(), [str(x.message) for x in w]]
            try: D.kl.register_kl(3, D.Normal)
            except TypeError as e: row.append(str(e))
        finally:
            del D.kl._KL_REGISTRY[Delta, Base]; D.kl._KL_MEMOIZE.clear()
        outs.append(row)
    assert outs[0] == outs[1] and outs[0][::2] == [7.0, 'issubclass() arg 1 must be a class']

def test_serialization_annotation_aliases_as_torch():
    "pyro's param store imports `MAP_LOCATION` from torch.serialization."
    for lib in both():
        from importlib import import_module
        S = import_module(lib.__name__ + '.serialization')
        assert S.STORAGE_KEY_SEPARATOR == ',' and 'MAP_LOCATION' not in S.__all__
        assert str(S.MAP_LOCATION).count('|') == 4 and str(S.STORAGE).count('|') == 2
        with pytest.raises(AttributeError, match="has no attribute 'MAP_LOCATIONS'"): S.MAP_LOCATIONS

def test_jit_tracer_warning_as_torch():
    "pyro's jit_iter filters `torch.jit.TracerWarning` around `list(tensor)`."
    for lib in both():
        W = lib.jit.TracerWarning
        assert issubclass(W, Warning) and W.__module__ == lib.__name__ + '.jit._trace' and W.__qualname__ == 'TracerWarning'
        assert callable(W.ignore_lib_warnings)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always'); warnings.filterwarnings('ignore', category=W)
            warnings.warn('traced', W); warnings.warn('kept', UserWarning)
            parts = list(lib.arange(3.))
        assert [str(w.message) for w in caught] == ['kept'] and [p.item() for p in parts] == [0., 1., 2.]

def test_transform_that_is_a_module_as_torch():
    "pyro's TransformModule(Transform, nn.Module): Transform.__init__ calls super().__init__(), so Module's runs too."
    outs = []
    for lib in both():
        class TM(lib.distributions.Transform, lib.nn.Module):
            bijective = True
            domain = codomain = lib.distributions.constraints.real
            def __init__(self):
                super().__init__(cache_size=1)
                self.a = lib.nn.Parameter(lib.tensor(2.))
            def _call(self, x): return x * self.a
            def _inverse(self, y): return y / self.a
            def log_abs_det_jacobian(self, x, y): return self.a.abs().log().expand_as(x)
            __hash__ = object.__hash__
        class CM(lib.distributions.ComposeTransform, lib.nn.ModuleList):
            def __init__(self, parts):
                super().__init__(parts)
                for p in parts: self.append(p)
            __hash__ = object.__hash__
        t = TM(); x = lib.tensor([1., 2.]); y = t(x)
        lp = lib.distributions.TransformedDistribution(lib.distributions.Normal(0., 1.), [t]).log_prob(y).sum(); lp.backward()
        c = CM([TM(), TM()])
        outs.append(([n for n, _ in t.named_parameters()], y.tolist(), round(lp.item(), 6), t.a.grad.item(), t.inv(y).tolist(),
                     len(list(c.parameters())), c(x).tolist(), t._cache_size))
    assert outs[0] == outs[1]

# third-party-12 (build-nanogpt's train_gpt2.py under CPU autocast(bfloat16)): the gradient of a broadcast operand
# (a Linear's bias, `x @ w.T + b`, `x * s`) in half precision is summed in float32 and rounded once, as torch's sum;
# numpy summed bfloat16 in bfloat16 (178 for torch's 188) and float16 in float16

@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_half_precision_broadcast_gradient_sums_as_torch(dtype):
    import numpy as np
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((4, 32, 16)), rng.standard_normal((24, 16)) * .1, rng.standard_normal(24)
    g, s = rng.standard_normal((4, 32, 24)) * 30, rng.standard_normal((4, 1, 24))
    out = []
    for lib in both():
        dt = getattr(lib, dtype)
        t = lambda a, grad=True: lib.tensor(a, dtype=lib.float32).to(dt).requires_grad_(grad)
        X, W, Bb, G, S = t(x), t(w), t(b), t(g, False), t(s)
        lib.nn.functional.linear(X, W, Bb).backward(G)
        B2 = t(b); (X.detach() @ W.detach().T + B2).backward(G)
        (X.detach() @ W.detach().T * S).backward(G)
        with lib.autocast('cpu', dtype=lib.bfloat16):
            B3 = lib.tensor(b, dtype=lib.float32, requires_grad=True); y = lib.nn.functional.linear(X.detach().float(), W.detach().float(), B3)
        y.backward(G.bfloat16())
        out.append([a.float().numpy() for a in (Bb.grad, B2.grad, S.grad, B3.grad)])     # (the sums; not the products)
    for a, c in zip(*out): np.testing.assert_array_equal(a, c)

# third-party-12 (half-precision gradients of the layers DETR/whisper/nanoGPT use): torch's index_add_ and scatter_add_
# of float16/bfloat16 sum in float32 and round once, its embedding backward (and index_put_(accumulate=True)) adds the
# rows one by one, each sum rounded: litnn had index_add_/scatter_add_ rounding every add and the embedding's gradient
# summed once by a one-hot product

@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('n', [28, 500])
def test_half_precision_index_sums_as_torch(dtype, n):
    import numpy as np
    rng = np.random.default_rng(n)
    idx, g, s = rng.integers(0, 7, n), rng.standard_normal((n, 8)) * 4, rng.standard_normal((7, 8))
    out = []
    for lib in both():
        dt = getattr(lib, dtype)
        G, S, I = lib.tensor(g, dtype=lib.float32).to(dt), lib.tensor(s, dtype=lib.float32).to(dt), lib.tensor(idx)
        e = lib.nn.Embedding(7, 8).to(dt); e(I.view(4, -1) if n % 4 == 0 else I).backward(G.view(4, -1, 8) if n % 4 == 0 else G)
        out.append([t.detach().float().numpy() for t in (
            S.clone().index_add_(0, I, G), lib.index_add(S, 0, I, G), S.clone().scatter_add_(0, I[:, None].expand(-1, 8), G),
            lib.scatter_add(S, 0, I[:, None].expand(-1, 8), G), S.clone().index_put_((I,), G, accumulate=True), e.weight.grad)])
    for a, c in zip(*out): np.testing.assert_array_equal(a, c)

# third-party-13 (mamba-minimal's selective scan under CPU autocast: `einsum(x, C, 'b d n, b n -> b d')` with x float32
# and C bfloat16): einsum is no autocast op, but the `bmm` of each contracting pair inside it is, so torch casts that
# pair's floating operands (not float64) to the autocast dtype; litnn's einsum ignored autocast (float32 results, and
# "expected scalar type Float but found BFloat16" for the mixed pair)

def test_einsum_under_autocast_as_torch():
    import numpy as np
    rng = np.random.default_rng(0)
    cases = [('ij,jk->ik', [(2, 3), (3, 2)]), ('bhid,bhjd->bhij', [(1, 2, 3, 4), (1, 2, 5, 4)]), ('ij,ij->ij', [(2, 3), (2, 3)]),
             ('ij,ij->i', [(2, 3), (2, 3)]), ('ij->j', [(2, 3)]), ('i,j->ij', [(2,), (3,)]), ('bld,dn->bldn', [(2, 3, 4), (4, 5)]),
             ('bdn,bn->bd', [(2, 4, 5), (2, 5)])]
    for eq, shapes in cases:
        for dts in [('float32', 'float32'), ('float64', 'float64'), ('float16', 'float16'), ('bfloat16', 'float32'),
                    ('float32', 'bfloat16'), ('float32', 'float64'), ('int64', 'float32')]:
            arrs = [rng.standard_normal(s) for s in shapes]
            out = []
            for lib in both():
                ts = [lib.tensor(a).to(getattr(lib, d)) for a, d in zip(arrs, dts)]
                try:
                    with lib.autocast('cpu', dtype=lib.bfloat16): r = lib.einsum(eq, *ts)
                    out.append((str(r.dtype).split('.')[1], r.float().numpy()))
                except RuntimeError as e: out.append((str(e), None))
            assert out[0][0] == out[1][0], (eq, dts, out[0][0], out[1][0])
            if out[0][1] is not None: np.testing.assert_array_equal(out[0][1], out[1][1])

# third-party-13 (vector-quantize-pytorch's LatentQuantize: `torch.linspace(-0.5, 0.5, level)` with `level` a 0-d integer
# tensor): torch's parser hands linspace/logspace/histc an int for `steps`/`bins`; litnn passed the tensor on to numpy
# (TypeError from `ndarray < Tensor`; logspace took its complex path and warned "Casting complex values to real")

def test_integer_tensor_steps_and_bins_as_torch():
    import warnings
    out = []
    for lib in both():
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            n = lib.tensor(5)
            out.append([lib.linspace(-0.5, 0.5, n).tolist(), lib.linspace(0, 4, lib.tensor(3, dtype=lib.uint8), dtype=lib.int64).tolist(),
                        lib.logspace(0, 2, n, base=2).tolist(), lib.arange(10.).histc(n).tolist(), lib.arange(10.).histc(bins=n, min=0, max=20).tolist()])
    assert out[0] == out[1]
    for lib in both():     # floats are refused by the parser in both
        with pytest.raises(TypeError): lib.linspace(0, 1, lib.tensor(3.))

# third-party-13 (mamba-minimal's `einsum(delta, B, u, 'b l d_in, b l n, b l d_in -> b l d_in n')` in bfloat16 under
# autocast): torch takes three or more operands in pairs, left to right, each pair's product rounded to the half dtype;
# litnn computed bfloat16 chains in float32 rounded once (and numpy's float16 einsum paired them otherwise). bfloat16:
# bit for bit; float16: a rare last-bit difference remains where torch's float32 accumulation order meets a rounding tie

@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_half_precision_einsum_chains_as_torch(dtype):
    import numpy as np
    rng = np.random.default_rng(1)
    for eq, shapes in [('ij,jk,kl->il', [(8, 16), (16, 16), (16, 8)]), ('bld,bln,bld->bldn', [(2, 12, 32), (2, 12, 4), (2, 12, 32)]),
                       ('ii,ij,j->i', [(4, 4), (4, 5), (5,)]), ('ab,bc,cd,de->ae', [(3, 4), (4, 5), (5, 6), (6, 2)]),
                       ('bij,bjk,bkl->bil', [(2, 8, 40), (2, 40, 30), (2, 30, 3)])]:
        arrs = [rng.standard_normal(s) for s in shapes]
        r = [lib.einsum(eq, *[lib.tensor(a, dtype=lib.float32).to(getattr(lib, dtype)) for a in arrs]).float().numpy() for lib in both()]
        if dtype == 'bfloat16': np.testing.assert_array_equal(r[0], r[1], err_msg=eq)
        else:       # (before: 25-50% of the elements of these chains differed)
            np.testing.assert_allclose(r[0], r[1], rtol=1e-3, atol=1e-3, err_msg=eq)
            assert (r[0] != r[1]).mean() <= 0.05, eq


def test_pytree_builtin_node_functions_by_torch_names():
    "transformers' ModelOutput registers itself with `_pytree._dict_flatten/_dict_unflatten/_dict_flatten_with_keys` (third-party-14)."
    import collections, torch.utils._pytree as tp, litnn.utils._pytree as lp
    Pt = collections.namedtuple('Pt', 'x y')
    samples = {'tuple': (1, 2), 'list': [1, 2], 'dict': {'a': 1, 'b': 2}, 'namedtuple': Pt(1, 2),
               'ordereddict': collections.OrderedDict(b=1, a=2), 'defaultdict': collections.defaultdict(list, a=1, b=2),
               'deque': collections.deque([1, 2], maxlen=3)}
    for kind, d in samples.items():
        for P in (tp, lp):
            vals, ctx = getattr(P, f'_{kind}_flatten')(d)
            keyed, kctx = getattr(P, f'_{kind}_flatten_with_keys')(d)
            back = getattr(P, f'_{kind}_unflatten')(vals, ctx)
            got = (vals, ctx, [(str(k), v) for k, v in keyed], kctx, back, type(back))
            if P is tp: want = got
        assert got == want, kind

    class Out(dict):                                    # a ModelOutput-like mapping registered by the dict functions
        pass
    res = []
    for P in (tp, lp):
        P.register_pytree_node(Out, P._dict_flatten, lambda v, c: Out(P._dict_unflatten(v, c)), serialized_type_name='t.Out',
                               flatten_with_keys_fn=P._dict_flatten_with_keys)
        try:
            tree = Out(a=1, b=[2, 3])
            leaves, spec = P.tree_flatten(tree)
            back = P.tree_unflatten([v * 10 for v in leaves], spec)
            res.append((leaves, type(back).__name__, dict(back), [(P.keystr(k), v) for k, v in P.tree_flatten_with_path(tree)[0]]))
        finally: P._deregister_pytree_node(Out)
    assert res[0] == res[1]


def test_jit_overload_declarations_as_torch(tmp_path, monkeypatch):
    "torch_geometric's utilities declare TorchScript signatures with `torch.jit._overload` at import (third-party-14)."
    import importlib
    src = ("def run(ovl):\n    @ovl\n    def f(x: int) -> int: ...\n    @ovl\n    def f(x: float) -> float:\n        pass\n"
           "    def f(x): return x * 2\n    out = [f(3)]\n    try:\n        @ovl\n        def g(x: int) -> int: return x\n"
           "    except RuntimeError as e: out.append(str(e))\n    return out\n\n"
           "class M:\n    def run(self, ovl):\n        @ovl\n        def forward(self, x: int) -> int: ...\n        return forward\n")
    (tmp_path / 'tp14_overloads.py').write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module('tp14_overloads')
    got = [mod.run(lib.jit._overload) for lib in (torch, litnn)]
    assert got[0] == got[1] and got[0][0] == 6 and 'Expecting `pass` or `...` here!' in got[0][1]
    assert [callable(mod.M().run(lib.jit._overload_method)) for lib in (torch, litnn)] == [True, True]

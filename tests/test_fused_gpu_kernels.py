"""The GPU kernels of 36_fused_kernels, checked on any machine with a C++ compiler.

CuPy compiles each entry of `fused._ELEMENTWISE` (an `ElementwiseKernel`: a CUDA C body run at every index) and of
`fused._SUMS` (a `ReductionKernel`: a summand added up over some axes). Here the same text is compiled as host C++
(`T` a float or a double, `erf`/`exp`/`log`/`sqrt` from <cmath>, overloaded for float as CUDA's are) and driven the way
CuPy drives it (inputs broadcast together, outputs written in place when the caller passes them, sums over the axes
asked for). So every formula is checked against numpy here, and litnn's GELU, softmax, log-softmax, cross-entropy,
LayerNorm and AdamW are run with these kernels put where CuPy's would be, against their unfused results.
The `cupy.RawKernel`s of `fused._RAW` (Adam's step for all parameters in one launch, NLL's pick and its gradient)
are compiled the same way with a loop over the grid's blocks and threads, numpy arrays standing for device memory,
and checked bit for bit against the per-tensor kernel and the numpy path, and against torch.
On a GPU, tools/test_gpu.sh runs the kernels through CuPy itself."""
import ctypes, hashlib, math, os, re, shutil, subprocess, tempfile
import numpy as np, pytest
import litnn, litnn.fused as F

CXX = shutil.which('g++') or shutil.which('c++') or shutil.which('clang++')
pytestmark = pytest.mark.skipif(CXX is None, reason='no C++ compiler to build the kernels as host code')
_CTYPE = {np.float32: 'float', np.float64: 'double'}
_DIR = tempfile.mkdtemp(prefix='litnn_host_kernels_')

def _params(spec):
    return [p.split()[-1] for p in spec.split(',')]

def _build(source):
    "A shared library compiled from `source`, cached by its text."
    name = hashlib.sha1(source.encode()).hexdigest()[:16]
    so = os.path.join(_DIR, name + '.so')
    if not os.path.exists(so):
        cpp = os.path.join(_DIR, name + '.cpp')
        open(cpp, 'w').write(source)
        subprocess.run([CXX, '-O1', '-shared', '-fPIC', '-o', so, cpp], check=True, capture_output=True)
    return ctypes.CDLL(so)

class HostElementwise:
    "An ElementwiseKernel run on the CPU: the body compiled as C++ in a loop over the broadcast elements."
    def __init__(self, ins, outs, body):
        self.ins, self.outs, self.body = _params(ins), _params(outs), body
    def __call__(self, *args):
        ins, outs = args[:len(self.ins)], list(args[len(self.ins):])
        arrays = [a for a in ins if isinstance(a, np.ndarray)]
        dtype = arrays[0].dtype.type
        shape = np.broadcast_shapes(*(a.shape for a in arrays), *(o.shape for o in outs))
        scalar = [not isinstance(a, np.ndarray) for a in ins]
        T = _CTYPE[dtype]
        sig = ', '.join([f'T {n}_' if s else f'const T* {n}_' for n, s in zip(self.ins, scalar)] + [f'T* {n}_' for n in self.outs])
        loads = ' '.join([f'T {n} = {n}_;' if s else f'T {n} = {n}_[i];' for n, s in zip(self.ins, scalar)] +
                         [f'T {n} = {n}_[i];' for n in self.outs])
        stores = ' '.join(f'{n}_[i] = {n};' for n in self.outs)
        src = (f'#include <cmath>\nusing namespace std;\ntypedef {T} T;\nextern "C" void run(long n_, {sig}) {{\n'
               f'  for (long i = 0; i < n_; i++) {{ {loads} {{ {self.body} }} {stores} }}\n}}\n')
        lib = _build(src)
        c_ins = [np.ascontiguousarray(np.broadcast_to(a, shape)) if isinstance(a, np.ndarray) else dtype(a) for a in ins]
        given = bool(outs)
        if not given: outs = [np.empty(shape, dtype) for _ in self.outs]
        work = [np.ascontiguousarray(np.broadcast_to(o, shape)).copy() for o in outs]
        ctype = ctypes.c_float if dtype is np.float32 else ctypes.c_double
        cargs = [ctype(a) if s else a.ctypes.data_as(ctypes.c_void_p) for a, s in zip(c_ins, scalar)]
        lib.run(ctypes.c_long(math.prod(shape)), *cargs, *(w.ctypes.data_as(ctypes.c_void_p) for w in work))
        for o, w in zip(outs, work): o[...] = w
        return outs[0] if len(outs) == 1 else tuple(outs)

class HostSum:
    "A ReductionKernel run on the CPU: the summand compiled as C++, added up over `axis` of the broadcast inputs."
    def __init__(self, ins, out, summand):
        self.ins, self.summand = _params(ins), summand
    def __call__(self, *args, axis=None, keepdims=False):
        dtype = args[0].dtype.type
        shape = np.broadcast_shapes(*(a.shape for a in args))
        axes = tuple(range(len(shape))) if axis is None else tuple(d % len(shape) for d in np.atleast_1d(axis))
        keep = [d for d in range(len(shape)) if d not in axes]
        cols = math.prod(shape[d] for d in axes)
        moved = [np.ascontiguousarray(np.broadcast_to(a, shape).transpose(keep + list(axes))).reshape(-1, cols) for a in args]
        T = _CTYPE[dtype]
        sig = ', '.join(f'const T* {n}_' for n in self.ins)
        loads = ' '.join(f'T {n} = {n}_[row_ * cols_ + j_];' for n in self.ins)
        src = (f'#include <cmath>\nusing namespace std;\ntypedef {T} T;\nextern "C" void run(long rows_, long cols_, {sig}, T* out_) {{\n'
               f'  for (long row_ = 0; row_ < rows_; row_++) {{ T a = 0; for (long j_ = 0; j_ < cols_; j_++) {{ {loads} T b = ({self.summand}); a = a + b; }} out_[row_] = a; }}\n}}\n')
        lib = _build(src)
        out = np.empty(moved[0].shape[0], dtype)
        lib.run(ctypes.c_long(out.size), ctypes.c_long(cols), *(m.ctypes.data_as(ctypes.c_void_p) for m in moved),
                out.ctypes.data_as(ctypes.c_void_p))
        out = out.reshape([shape[d] for d in keep])
        if keepdims: out = out.reshape([1 if d in axes else shape[d] for d in range(len(shape))])
        return out

_HOST_GRID = ('#include <cmath>\nusing namespace std;\nstruct litnn_dim3 { unsigned x, y, z; };\n'
              'static litnn_dim3 blockIdx, threadIdx, blockDim, gridDim;\n#define __global__\n')
_CARG = {'int': ctypes.c_int, 'long long': ctypes.c_longlong, 'float': ctypes.c_float, 'double': ctypes.c_double}

class HostRaw:
    """A RawKernel run on the CPU: `fused._raw_source`'s text compiled as C++ and called once per block and thread of
    the grid, in turn (exact for kernels whose threads share nothing); numpy arrays stand for device memory."""
    def __init__(self, name, dtype):
        self.T = _CTYPE[np.dtype(dtype).type]
        params = F._RAW[name][0]
        self.params = [q.strip() for q in params.split(',')]
        names = ', '.join(q.split()[-1] for q in self.params)
        self.lib = _build(_HOST_GRID + F._raw_source(name, dtype) +
                          f'extern "C" void launch_(unsigned grid_, unsigned block_, {params}) {{\n'
                          f'  gridDim.x = grid_; blockDim.x = block_;\n'
                          f'  for (unsigned b_ = 0; b_ < grid_; b_++) for (unsigned t_ = 0; t_ < block_; t_++) {{\n'
                          f'    blockIdx.x = b_; threadIdx.x = t_; litnn_{name}({names}); }}\n}}\n')
    def __call__(self, grid, block, args):
        cargs = []
        for q, a in zip(self.params, args):
            if '*' in q: cargs.append(a.ctypes.data_as(ctypes.c_void_p))
            else:
                ty = q.rsplit(' ', 1)[0].replace('const ', '')
                cargs.append(_CARG[self.T if ty == 'T' else ty](a))
        self.lib.launch_(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), *cargs)

def host_kernel(name, dtype=None):
    if name in F._RAW: return HostRaw(name, dtype)
    if name in F._ELEMENTWISE: return HostElementwise(*F._ELEMENTWISE[name])
    return HostSum(*F._SUMS[name])

@pytest.fixture
def on_host(monkeypatch):
    "The GPU path of fused.py taken by numpy arrays, with the host-compiled kernels where CuPy's would be."
    kernels = {}
    def kernel(name):
        if name not in kernels: kernels[name] = host_kernel(name)
        return kernels[name]
    def gpu(*arrays):
        dt = arrays[0].dtype
        return dt in (np.float32, np.float64) and all(type(a) is np.ndarray and a.dtype == dt for a in arrays)
    def raw_kernel(name, dtype):
        key = (name, np.dtype(dtype).name)
        if key not in kernels: kernels[key] = host_kernel(name, dtype)
        kernels[name] = kernels[key]
        return kernels[key]
    monkeypatch.setattr(F, '_kernel', kernel)
    monkeypatch.setattr(F, '_raw_kernel', raw_kernel)
    monkeypatch.setattr(F, '_gpu', gpu)
    monkeypatch.setattr(F, '_address', lambda a: a.ctypes.data)        # host memory stands for the device's
    monkeypatch.setattr(F, '_to_device', lambda host, like: host)
    return kernels

rng = np.random.default_rng(0)

def _tol(dtype): return dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)

# ---- each formula against numpy
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_gelu_kernels(dtype):
    x = np.concatenate([rng.standard_normal(500) * 3, [0, 6, -6, 13, -13]]).astype(dtype)
    y, cdf = host_kernel('gelu')(x)
    phi = 0.5 * (1 + np.vectorize(math.erf)(x.astype(np.float64) / math.sqrt(2)))
    np.testing.assert_allclose(cdf, phi, **_tol(dtype)); np.testing.assert_allclose(y, x * phi, **_tol(dtype))
    g = rng.standard_normal(x.size).astype(dtype)
    dx = host_kernel('gelu_backward')(g, x, cdf)
    want = g * (phi + x.astype(np.float64) * np.exp(-x.astype(np.float64) ** 2 / 2) / math.sqrt(2 * math.pi))
    np.testing.assert_allclose(dx, want, **_tol(dtype))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_softmax_kernels(dtype, dim):
    x = (rng.standard_normal((4, 7, 5)) * 4).astype(dtype)
    m = x.max(axis=dim, keepdims=True)
    s = host_kernel('sum_exp')(x, m, axis=dim, keepdims=True)
    np.testing.assert_allclose(s, np.exp(x - m).sum(axis=dim, keepdims=True), **_tol(dtype))
    y = host_kernel('softmax')(x, m, s); ly = host_kernel('log_softmax')(x, m, s)
    x64 = x.astype(np.float64); e = np.exp(x64 - x64.max(axis=dim, keepdims=True)); want = e / e.sum(axis=dim, keepdims=True)
    np.testing.assert_allclose(y, want, **_tol(dtype)); np.testing.assert_allclose(ly, np.log(want), **_tol(dtype))
    g = rng.standard_normal(x.shape).astype(dtype)
    sp = host_kernel('sum_product')(g, y, axis=dim, keepdims=True)
    np.testing.assert_allclose(host_kernel('softmax_backward')(g, y, sp), y * (g - (g * y).sum(axis=dim, keepdims=True)), **_tol(dtype))
    np.testing.assert_allclose(host_kernel('log_softmax_backward')(g, ly, g.sum(axis=dim, keepdims=True)),
                               g - np.exp(ly) * g.sum(axis=dim, keepdims=True), **_tol(dtype))

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_adam_kernel_updates_in_place(dtype):
    p, d, m, v = (rng.standard_normal(300).astype(dtype) for _ in range(4)); v = np.abs(v)
    want_p, want_m, want_v = p.copy(), m.copy(), v.copy()
    t = dtype
    decay, beta1, beta2, step, bc2, eps = t(1 - 1e-3 * 1e-2), 0.9, 0.999, t(1e-3 / (1 - 0.9 ** 3)), t(math.sqrt(1 - 0.999 ** 3)), t(1e-8)
    ins = (d, decay, t(1 - beta1), t(beta2), t(1 - beta2), step, bc2, eps)
    host_kernel('adam')(*ins, p, m, v)
    want_m += t(1 - beta1) * (d - want_m); want_v = want_v * t(beta2) + t(1 - beta2) * d * d
    want_p = want_p * decay - want_m * step / (np.sqrt(want_v) / bc2 + eps)
    for got, want in ((p, want_p), (m, want_m), (v, want_v)): np.testing.assert_allclose(got, want, **_tol(dtype))

# ---- litnn's functions, with the kernels where CuPy's would be, against their unfused results
def _step(fn, *inputs):
    for t in inputs: t.grad = None
    y = fn(); (y * litnn.linspace(-1, 1, y.numel()).reshape(y.shape).to(y.dtype)).sum().backward()
    return [y.detach().numpy().copy()] + [t.grad.numpy().copy() for t in inputs]

def _both(fn, inputs, on_host_fixture, monkeypatch):
    fused = _step(fn, *inputs)
    monkeypatch.undo()                                    # back to numba's loops or numpy's passes
    plain = _step(fn, *inputs)
    return fused, plain

CASES = {
    'gelu': lambda x: litnn.nn.functional.gelu(x),
    'softmax': lambda x: x.softmax(-1),
    'softmax dim 0': lambda x: litnn.softmax(x, 0),
    'log_softmax': lambda x: litnn.nn.functional.log_softmax(x, dim=1),
    'cross_entropy': lambda x: litnn.nn.functional.cross_entropy(x.reshape(-1, 16), litnn.arange(x.numel() // 16) % 16),
}

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('case', list(CASES))
def test_litnn_functions_take_the_kernels(case, dtype, on_host, monkeypatch):
    litnn.manual_seed(0)
    x = (litnn.randn(6, 5, 16) * 3).to(getattr(litnn, dtype)).requires_grad_()
    fused, plain = _both(lambda: CASES[case](x), [x], on_host, monkeypatch)
    assert on_host, 'the fused path did not run'
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == 'float32' else dict(rtol=1e-11, atol=1e-12)
    for f, p in zip(fused, plain): np.testing.assert_allclose(f, p, **tol)

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('affine', [True, False])
def test_layer_norm_takes_the_kernels(dtype, affine, on_host, monkeypatch):
    litnn.manual_seed(1)
    ln = litnn.nn.LayerNorm(24, elementwise_affine=affine).to(getattr(litnn, dtype))
    if affine:
        with litnn.no_grad(): ln.weight.normal_(); ln.bias.normal_()
    x = (litnn.randn(3, 7, 24) * 2 + 0.5).to(getattr(litnn, dtype)).requires_grad_()
    params = [x] + list(ln.parameters())
    fused, plain = _both(lambda: ln(x), params, on_host, monkeypatch)
    assert {'layer_norm', 'layer_norm_backward', 'sum_g_xhat'} <= set(on_host)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-11)
    for f, p in zip(fused, plain): np.testing.assert_allclose(f, p, **tol)

@pytest.mark.parametrize('foreach', [None, False])
@pytest.mark.parametrize('opt', ['Adam', 'AdamW'])
def test_adam_step_takes_the_kernel(opt, foreach, on_host, monkeypatch):
    def train():
        litnn.manual_seed(2)
        model = litnn.nn.Sequential(litnn.nn.Linear(8, 16), litnn.nn.GELU(), litnn.nn.Linear(16, 3))
        o = getattr(litnn.optim, opt)(model.parameters(), lr=1e-2, weight_decay=0.1, foreach=foreach)
        x, y = litnn.randn(32, 8), litnn.randint(0, 3, (32,))
        for _ in range(4):
            o.zero_grad(); litnn.nn.functional.cross_entropy(model(x), y).backward(); o.step()
        return [p.detach().numpy().copy() for p in model.parameters()] + \
               [o.state[p]['exp_avg_sq'].numpy().copy() for p in model.parameters()]
    fused = train()
    assert ('adam_many' if foreach is None else 'adam') in on_host and ('adam' if foreach is None else 'adam_many') not in on_host
    monkeypatch.undo()
    plain = train()
    for f, p in zip(fused, plain): np.testing.assert_allclose(f, p, rtol=1e-5, atol=1e-6)

# ---- the multi-tensor Adam step: one launch for all parameters, bit for bit the per-tensor kernel and the numpy path
def _adam_case(dtype, r):
    "Parameters of several sizes (one of three chunks, an empty one, a strided gradient) and per-tensor scalars."
    t = np.dtype(dtype).type
    sizes = [2 * F._GPU_CHUNK + 1000, 300, 1, 0, 77]
    ps = [r.standard_normal(n).astype(t) for n in sizes]
    ds = [r.standard_normal(n).astype(t) for n in sizes]
    ds[1] = r.standard_normal(600).astype(t)[::2]                      # a strided gradient, only read
    ms = [r.standard_normal(n).astype(t) for n in sizes]
    vs = [np.abs(r.standard_normal(n)).astype(t) for n in sizes]
    hyper = [(1 - 1e-3 * 0.1, 0.9, 0.999, 1e-3 / (1 - 0.9 ** 3), math.sqrt(1 - 0.999 ** 3), 1e-8),
             (1.0, 0.3, 0.99, 0.5 / (1 - 0.3 ** 7), math.sqrt(1 - 0.99 ** 7), 1e-6),      # beta1 < 0.5: lerp's other side
             (0.99, 0.0, 0.9, 1e-2, math.sqrt(1 - 0.9), 1e-8),
             (1.0, 0.9, 0.999, 1e-3, 0.5, 1e-8),
             (0.999, 0.95, 0.5, 3e-4 / (1 - 0.95 ** 100), math.sqrt(1 - 0.5 ** 100), 1e-3)]
    return ps, ds, ms, vs, hyper

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_adam_many_is_the_per_tensor_kernel_bit_for_bit(dtype, on_host):
    ps, ds, ms, vs, hyper = _adam_case(dtype, np.random.default_rng(5))
    each = [[x.copy() for x in xs] for xs in (ps, ms, vs)]
    steps = [(p, d, m, v, *h) for p, d, m, v, h in zip(ps, ds, ms, vs, hyper)]
    assert F.adam_many(steps) == [] and 'adam_many' in on_host and 'adam' not in on_host
    for p, m, v, d, h in zip(*each, ds, hyper): assert F.adam(p, d, m, v, *h)          # the per-tensor kernel
    for got, want in zip(ps + ms + vs, sum(each, [])): np.testing.assert_array_equal(got, want)
    assert not np.array_equal(ps[0], _adam_case(dtype, np.random.default_rng(5))[0][0])   # it did update

def test_adam_many_leaves_what_it_does_not_take(on_host):
    a = np.ones(6, np.float32)
    mixed = (a, np.ones(6), np.zeros(6, np.float32), np.zeros(6, np.float32), 1.0, 0.9, 0.999, 1e-3, 1.0, 1e-8)
    strided = (np.ones(12, np.float32)[::2], a, np.zeros(6, np.float32), np.zeros(6, np.float32), 1.0, 0.9, 0.999, 1e-3, 1.0, 1e-8)
    assert F.adam_many([mixed, strided]) == [mixed, strided] and 'adam_many' not in on_host

def _train(lib, opt, kw, dtype='float32', steps=4):
    "Two param groups (different lr and eps), parameters of several shapes, the same gradients on every path."
    r = np.random.default_rng(6)
    shapes = [(2 * F._GPU_CHUNK // 100 + 3, 100), (7, 5), (), (13,)]
    ps = [lib.nn.Parameter(lib.tensor(r.standard_normal(s)).to(getattr(lib, dtype))) for s in shapes]
    o = getattr(lib.optim, opt)([{'params': ps[:2]}, {'params': ps[2:], 'lr': 3e-2, 'eps': 1e-6}], lr=1e-2, **kw)
    for step in range(steps):
        r2 = np.random.default_rng(100 + step)
        for p in ps: p.grad = lib.tensor(r2.standard_normal(tuple(p.shape)) * 3).to(p.dtype)
        o.step()
    names = [k for k in ('exp_avg', 'exp_avg_sq', 'max_exp_avg_sq') if k in o.state[ps[0]]]
    return [p.detach().numpy().copy() for p in ps] + [o.state[p][k].numpy().copy() for p in ps for k in names]

ADAM_KW = {'Adam': dict(), 'Adam L2': dict(weight_decay=0.1), 'AdamW': dict(weight_decay=0.1, decoupled_weight_decay=True),
           'maximize': dict(maximize=True, weight_decay=0.05), 'betas': dict(betas=(0.8, 0.99)),
           'fused': dict(fused=True, weight_decay=0.1), 'amsgrad': dict(amsgrad=True)}

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('case', list(ADAM_KW))
def test_adam_takes_one_launch_bit_for_bit_the_numpy_path(case, dtype, on_host, monkeypatch):
    multi = _train(litnn, 'Adam', ADAM_KW[case], dtype)
    assert ('adam_many' in on_host) == (case != 'amsgrad') and 'adam' not in on_host   # AMSGrad keeps the numpy path
    monkeypatch.undo(); monkeypatch.setattr(F, 'enabled', False)        # numpy's passes
    plain = _train(litnn, 'Adam', ADAM_KW[case], dtype)
    for f, p in zip(multi, plain):     # float64: the numpy path's fused steps are long double's, now and then a unit off an FMA's
        if dtype == 'float32': np.testing.assert_array_equal(f, p)
        else: np.testing.assert_allclose(f, p, rtol=1e-13, atol=1e-300)

@pytest.mark.parametrize('case', list(ADAM_KW))
def test_adam_in_one_launch_against_torch(case, on_host):
    torch = pytest.importorskip('torch')
    kw = dict(ADAM_KW[case], fused=False) if case != 'fused' else ADAM_KW[case]   # torch's reference: its for-loop
    got, want = _train(litnn, 'Adam', ADAM_KW[case], 'float64'), _train(torch, 'Adam', kw, 'float64')
    assert ('adam_many' in on_host) == (case != 'amsgrad')
    for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)

def test_complex_parameters_take_the_launch_as_float_pairs(on_host, monkeypatch):
    def run():
        litnn.manual_seed(7)
        p = litnn.nn.Parameter(litnn.randn(40, dtype=litnn.complex64)); q = litnn.nn.Parameter(litnn.randn(5))
        o = litnn.optim.AdamW([p, q], lr=1e-2)
        for i in range(3):
            p.grad = litnn.randn(40, dtype=litnn.complex64); q.grad = litnn.randn(5); o.step()
        return [p.detach().numpy().copy(), q.detach().numpy().copy(), o.state[p]['exp_avg_sq'].numpy().copy()]
    multi = run()
    assert 'adam_many' in on_host
    monkeypatch.undo(); monkeypatch.setattr(F, 'enabled', False)
    for f, p in zip(multi, run()): np.testing.assert_array_equal(f, p)

def test_fused_on_the_cpu_and_its_refusals_as_torch():
    torch = pytest.importorskip('torch')
    got, want = _train(litnn, 'AdamW', dict(fused=True)), _train(torch, 'AdamW', dict(fused=True))   # numpy arrays: the CPU path
    for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
            lib.optim.Adam([lib.nn.Parameter(lib.ones(2))], fused=True, foreach=True)
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64)); p.grad = lib.ones(2, dtype=lib.complex64)
        with pytest.raises(RuntimeError, match="requires all the params to be floating point Tensors of supported devices"):
            lib.optim.Adam([p], fused=True).step()

# ---- NLL's pick and its gradient: one kernel each, bit for bit the numpy path's operations
NLL_TARGETS = {'all kept': [0, 3, 4, 1, 2, 4, 0], 'some ignored': [0, -100, 4, 1, -100, 4, 0], 'ignore 2': [2, 3, 4, 2, 2, 4, 0],
               'all ignored': [-100] * 7}

def _nll_run(reduction, weighted, targets, dtype, backward):
    litnn.manual_seed(11)
    x = (litnn.randn(7, 5) * 3).to(getattr(litnn, dtype)).requires_grad_()
    w = litnn.rand(5).to(x.dtype) + 0.5 if weighted else None
    ignore = 2 if targets == 'ignore 2' else -100
    y = litnn.nn.functional.nll_loss(x, litnn.tensor(NLL_TARGETS[targets]), weight=w, reduction=reduction, ignore_index=ignore)
    if backward == 'sum': y.sum().backward()                      # a broadcast gradient for 'none'
    else: (y * (litnn.linspace(-1, 2, y.numel()).reshape(y.shape).to(y.dtype) if y.ndim else 0.7)).sum().backward()
    return y.detach().numpy().copy(), x.grad.numpy().copy()

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('backward', ['sum', 'scaled'])
@pytest.mark.parametrize('targets', list(NLL_TARGETS))
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_nll_kernels_are_the_numpy_path_bit_for_bit(reduction, weighted, targets, backward, dtype, on_host, monkeypatch):
    fused = _nll_run(reduction, weighted, targets, dtype, backward)
    assert {'nll', 'nll_backward'} <= set(on_host)
    monkeypatch.undo()
    plain = _nll_run(reduction, weighted, targets, dtype, backward)
    for f, p in zip(fused, plain): np.testing.assert_array_equal(f, p)

@pytest.mark.parametrize('smoothing', [0.0, 0.1])
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_cross_entropy_with_the_kernels_against_torch(reduction, weighted, smoothing, on_host):
    torch = pytest.importorskip('torch')
    r = np.random.default_rng(12)
    x, t, w = r.standard_normal((9, 6)) * 4, np.array([0, 5, 2, -100, 1, 1, 3, 5, 4]), r.random(6) + 0.5
    out = {}
    for lib in (litnn, torch):
        xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.cross_entropy(xt, lib.tensor(t), weight=lib.tensor(w) if weighted else None,
                                            reduction=reduction, label_smoothing=smoothing)
        (y * lib.linspace(-1, 2, y.numel(), dtype=lib.float64).reshape(y.shape)).sum().backward()
        out[lib.__name__] = (y.detach().numpy(), xt.grad.numpy())
    assert {'nll', 'nll_backward', 'log_softmax'} <= set(on_host)
    for a, b in zip(out['litnn'], out['torch']): np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)

@pytest.mark.parametrize('reduction', ['mean', 'none'])
def test_nll_kernel_forward_then_a_recorded_backward(reduction, on_host, monkeypatch):
    def run():                                    # create_graph: backward's gradient is a tensor, the numpy path's formula
        litnn.manual_seed(15)
        x = litnn.randn(6, 4, requires_grad=True)
        y = litnn.nn.functional.cross_entropy(x, litnn.tensor([0, 3, -100, 1, 2, 2]), reduction=reduction)
        (g,) = litnn.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = litnn.autograd.grad((g * g).sum(), x)
        return [y.detach().numpy(), g.detach().numpy(), gg.numpy()]
    fused = run()
    assert 'nll' in on_host and 'nll_backward' not in on_host
    monkeypatch.undo()
    for f, p in zip(fused, run()): np.testing.assert_allclose(f, p, rtol=1e-5, atol=1e-6)

def test_nll_kernels_leave_other_inputs_to_numpy(on_host):
    x = litnn.randn(2, 3, 4, requires_grad=True)
    litnn.nn.functional.nll_loss(x, litnn.zeros(2, 4, dtype=litnn.int64)).backward()       # 3-D: the numpy path
    litnn.nn.functional.nll_loss(litnn.randn(3, 4), litnn.zeros(3, dtype=litnn.uint8))       # byte targets too
    assert 'nll' not in on_host and F.nll_loss(np.ones((2, 3), np.float16), np.zeros(2, np.int64), None, -100) is None

NVCC = shutil.which('nvcc')

@pytest.mark.skipif(NVCC is None, reason='no nvcc to compile the raw kernels for a GPU (none is needed to run them here)')
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('name', sorted(F._RAW))
def test_raw_kernels_compile_for_the_gpu_as_written(name, dtype, tmp_path):
    "nvcc's PTX of the text CuPy compiles, with its options: float stays float, and no multiply-add is contracted (the `fma` written stay)."
    code = _ptx(F._raw_source(name, dtype), F._OPTIONS.get(name, ()), tmp_path)
    assert f'.entry litnn_{name}(' in code
    if dtype == np.float32: assert not re.search(r'\.f64\b', code)   # sqrt(float)...: float's own, no double detour
    if name in F._OPTIONS: assert 'fma.' not in _ptx(_unfused(F._raw_source(name, dtype)), F._OPTIONS[name], tmp_path)

def _ptx(src, options, tmp_path):
    cu, ptx = tmp_path / 'k.cu', tmp_path / 'k.ptx'
    cu.write_text(src)
    subprocess.run([NVCC, '-ptx', '-arch=sm_80', *options, '-o', str(ptx), str(cu)], check=True, capture_output=True)
    return ptx.read_text()

def _unfused(src):
    "The text with its written `fma(a, b, c)` (torch's fused steps) as a product and a sum: with the kernel's options no `fma.` may remain."
    return '#define litnn_unfused(a, b, c) ((a) * (b) + (c))\n' + src.replace('fma(', 'litnn_unfused(')

@pytest.mark.skipif(NVCC is None, reason='no nvcc to compile the kernels for a GPU (none is needed to run them here)')
@pytest.mark.parametrize('name', sorted(F._ELEMENTWISE))
def test_elementwise_bodies_compile_for_the_gpu(name, tmp_path):
    "Each elementwise body in a kernel of its own (CuPy wraps it likewise), float32, with CuPy's options for it."
    ins, outs, body = F._ELEMENTWISE[name]
    ins, outs = _params(ins), _params(outs)
    sig = ', '.join([f'const T* {n}_' for n in ins] + [f'T* {n}_' for n in outs])
    src = (f'typedef float T;\nextern "C" __global__ void litnn_{name}(long long n_, {sig}) {{\n'
           f'  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; if (i >= n_) return;\n'
           f'  {" ".join(f"const T {n} = {n}_[i];" for n in ins)} {" ".join(f"T {n} = {n}_[i];" for n in outs)}\n'
           f'  {{ {body} }}\n  {" ".join(f"{n}_[i] = {n};" for n in outs)}\n}}\n')
    code = _ptx(src, F._OPTIONS.get(name, ()), tmp_path)
    assert f'.entry litnn_{name}(' in code and not re.search(r'\.f64\b', code)
    if name in F._OPTIONS: assert 'fma.' not in _ptx(_unfused(src), F._OPTIONS[name], tmp_path)

def test_the_switch_keeps_numpy_arrays_on_the_cpu_paths():
    assert not F._gpu(np.ones(3, np.float32))
    assert F.softmax(np.ones((2, 3), np.float32), 1) is None and F.softmax_backward(np.ones(3), np.ones(3), 0) is None

# ---- on a GPU: CuPy's own compilation of the same text, against the host kernels, and litnn on CUDA tensors
@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('name', sorted(F._ELEMENTWISE) + sorted(F._SUMS))
def test_cupy_compiles_and_agrees(name):
    import cupy
    ins = F._ELEMENTWISE[name][0] if name in F._ELEMENTWISE else F._SUMS[name][0]
    n_in = len(_params(ins))
    r = np.random.default_rng(3)
    args = [np.abs(r.standard_normal((5, 6))).astype(np.float32) + 0.1 for _ in range(n_in)]
    if name == 'adam':
        args = [args[0]] + [np.float32(v) for v in (0.999, 0.1, 0.999, 0.001, 1e-3, 0.05, 1e-8)]
        outs = [np.abs(r.standard_normal((5, 6))).astype(np.float32) for _ in range(3)]
        host, dev = [o.copy() for o in outs], [cupy.asarray(o) for o in outs]
        host_kernel(name)(*args, *host)
        F._kernel(name)(*(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args), *dev)
        for h, d in zip(host, dev): np.testing.assert_allclose(cupy.asnumpy(d), h, rtol=1e-5, atol=1e-6)
        return
    kw = {} if name in F._ELEMENTWISE else dict(axis=1, keepdims=True)
    want, got = host_kernel(name)(*args, **kw), F._kernel(name)(*(cupy.asarray(a) for a in args), **kw)
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_allclose(cupy.asnumpy(g), w, rtol=1e-5, atol=1e-6)

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
def test_cuda_tensors_take_the_kernels_and_agree_with_the_cpu():
    F._gpu_kernels.clear()
    litnn.manual_seed(4)
    ln = litnn.nn.LayerNorm(16)
    x = litnn.randn(4, 8, 16)
    out = {}
    for dev in ('cpu', 'cuda'):
        m, xd = ln.to(dev), x.to(dev).detach().requires_grad_()   # a leaf on each device
        y = litnn.nn.functional.gelu(m(xd)).log_softmax(-1).softmax(0)
        (y * litnn.linspace(-1, 1, y.numel(), device=dev).reshape(y.shape)).sum().backward()
        out[dev] = [y.detach().cpu().numpy(), xd.grad.cpu().numpy(), m.weight.grad.cpu().numpy()]
        m.zero_grad()
    assert {'gelu', 'gelu_backward', 'layer_norm', 'softmax', 'log_softmax'} <= set(F._gpu_kernels)
    for c, g in zip(out['cpu'], out['cuda']): np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_cupy_adam_many_is_the_per_tensor_kernel_bit_for_bit(dtype, monkeypatch):
    import cupy
    ps, ds, ms, vs, hyper = _adam_case(dtype, np.random.default_rng(8))
    dev = lambda xs: [cupy.asarray(x) for x in xs]
    many, each = [[dev(xs) for xs in (ps, ms, vs)] for _ in range(2)]
    gs = dev(ds)
    assert F.adam_many([(p, d, m, v, *h) for p, d, m, v, h in zip(many[0], gs, many[1], many[2], hyper)]) == []
    for p, m, v, d, h in zip(*each, gs, hyper): assert F.adam(p, d, m, v, *h)
    on_host = [[x.copy() for x in xs] for xs in (ps, ms, vs)]
    monkeypatch.setattr(F, '_raw_kernel', lambda name, dtype: host_kernel(name, dtype))
    monkeypatch.setattr(F, '_gpu', lambda *arrays: True); monkeypatch.setattr(F, '_address', lambda a: a.ctypes.data)
    monkeypatch.setattr(F, '_to_device', lambda host, like: host)
    F.adam_many([(p, d, m, v, *h) for p, d, m, v, h in zip(on_host[0], ds, on_host[1], on_host[2], hyper)])
    for got, want, host in zip(sum(many, []), sum(each, []), sum(on_host, [])):
        np.testing.assert_array_equal(cupy.asnumpy(got), cupy.asnumpy(want))
        np.testing.assert_allclose(cupy.asnumpy(got), host, rtol=1e-6 if dtype == np.float32 else 1e-15, atol=0)

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('case', list(ADAM_KW))
def test_cuda_adam_in_one_launch_is_the_per_tensor_paths(case, monkeypatch):
    def train(**extra):
        r = np.random.default_rng(9)
        ps = [litnn.nn.Parameter(litnn.tensor(r.standard_normal(s), dtype=litnn.float32, device='cuda'))
              for s in [(1400, 100), (7, 5), (), (13,)]]
        o = litnn.optim.Adam([{'params': ps[:2]}, {'params': ps[2:], 'lr': 3e-2}], lr=1e-2, **dict(ADAM_KW[case], **extra))
        for step in range(3):
            r2 = np.random.default_rng(100 + step)
            for p in ps: p.grad = litnn.tensor(r2.standard_normal(tuple(p.shape)), dtype=litnn.float32, device='cuda')
            o.step()
        return [p.detach().cpu().numpy() for p in ps] + [o.state[p]['exp_avg_sq'].cpu().numpy() for p in ps]
    F._gpu_kernels.clear()
    multi = train()
    assert (('adam_many', 'float32') in F._gpu_kernels) == (case != 'amsgrad')
    per_tensor = train(foreach=False) if case != 'fused' else train(fused=None, foreach=False)
    monkeypatch.setattr(F, 'enabled', False)
    passes = train() if case != 'fused' else train(fused=None)
    for m, p, q in zip(multi, per_tensor, passes):
        np.testing.assert_array_equal(m, p); np.testing.assert_array_equal(m, q)

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('targets', list(NLL_TARGETS))
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_cuda_nll_kernels_are_cupys_operations_bit_for_bit(reduction, weighted, targets, monkeypatch):
    def run():
        litnn.manual_seed(13)
        x = (litnn.randn(7, 5) * 3).to('cuda').requires_grad_()
        w = (litnn.rand(5) + 0.5).to('cuda') if weighted else None
        y = litnn.nn.functional.nll_loss(x, litnn.tensor(NLL_TARGETS[targets]).to('cuda'), weight=w, reduction=reduction)
        (y * (litnn.linspace(-1, 2, y.numel(), device='cuda').reshape(y.shape) if y.ndim else 0.7)).sum().backward()
        return y.detach().cpu().numpy(), x.grad.cpu().numpy()
    F._gpu_kernels.clear()
    fused = run()
    assert {('nll', 'float32'), ('nll_backward', 'float32')} <= set(F._gpu_kernels)
    monkeypatch.setattr(F, 'enabled', False)
    for f, p in zip(fused, run()): np.testing.assert_array_equal(f, p)

@pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU")
@pytest.mark.parametrize('smoothing', [0.0, 0.1])
def test_cuda_cross_entropy_takes_the_kernels_and_agrees_with_the_cpu(smoothing):
    r = np.random.default_rng(14)
    x, t = r.standard_normal((64, 50)).astype(np.float32) * 3, r.integers(0, 50, 64)
    t[::7] = -100
    out = {}
    for dev in ('cpu', 'cuda'):
        xt = litnn.tensor(x, device=dev, requires_grad=True)
        y = litnn.nn.functional.cross_entropy(xt, litnn.tensor(t, device=dev), label_smoothing=smoothing)
        y.backward()
        out[dev] = (y.item(), xt.grad.cpu().numpy())
    np.testing.assert_allclose(out['cuda'][0], out['cpu'][0], rtol=1e-5)
    np.testing.assert_allclose(out['cuda'][1], out['cpu'][1], rtol=1e-4, atol=1e-6)

"""torch's small namespaces side by side: litnn.cuda, accelerator, backends, compile, jit, and the
submodule paths programs import from. On a machine without a GPU, litnn answers as torch's CPU build
(values, and exception types; litnn's messages name CuPy instead of torch's build)."""
import importlib, warnings

import pytest

import litnn
from nn_pairs import err, same

torch = pytest.importorskip('torch')
NO_GPU = not litnn.cuda.is_available()
needs_no_gpu = pytest.mark.skipif(not NO_GPU, reason="compares with torch's CPU build, on a machine without a GPU")


def outcome(f, *args, **kwargs):
    "What `f(*args)` gives: ('value', v) or ('raises', exception type)."
    try: return ('value', f(*args, **kwargs))
    except Exception as e: return ('raises', type(e))


CUDA_CALLS = [('is_available', ()), ('device_count', ()), ('is_bf16_supported', ()), ('is_tf32_supported', ()), ('empty_cache', ()),
              ('memory_allocated', ()), ('max_memory_allocated', ()), ('memory_reserved', ()), ('max_memory_reserved', ()),
              ('memory_allocated', ('cpu',)), ('manual_seed', (1,)), ('manual_seed_all', (1,)), ('manual_seed', ('a',)),
              ('current_device', ()), ('synchronize', ()), ('get_device_name', ()), ('get_device_name', (0,)),
              ('get_device_properties', (0,)), ('get_device_capability', ()), ('set_device', ('cpu',)),
              ('set_device', (-1,)), ('seed', ()), ('seed_all', ()), ('initial_seed', ())]


@needs_no_gpu
@pytest.mark.parametrize('name,args', CUDA_CALLS, ids=[f'{n}{a}' for n, a in CUDA_CALLS])
def test_cuda_like_torch_cpu_build(name, args):
    same(lambda lib: outcome(getattr(lib.cuda, name), *args))


@needs_no_gpu
def test_cuda_where_torch_cpu_build_has_no_binding():
    # torch's CPU build fails here on a missing C binding (AttributeError: torch._C has no '_cuda_setDevice');
    # litnn raises the AssertionError torch raises for the other device questions, and resets nothing quietly
    assert outcome(torch.cuda.set_device, 0) == ('raises', AttributeError)
    assert outcome(litnn.cuda.set_device, 0) == ('raises', AssertionError)
    assert outcome(litnn.cuda.reset_peak_memory_stats) == ('value', None)


@pytest.mark.skipif(NO_GPU, reason='needs a GPU')
def test_cuda_on_gpu():
    import cupy
    assert litnn.cuda.get_device_name() == cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()
    assert litnn.cuda.current_device() == 0 and litnn.cuda.device_count() >= 1
    litnn.cuda.reset_peak_memory_stats()
    base = litnn.cuda.memory_allocated()
    x = litnn.zeros(2**20, device='cuda')
    assert litnn.cuda.memory_allocated() - base == 4 * 2**20
    del x
    assert litnn.cuda.max_memory_allocated() - base == 4 * 2**20
    litnn.cuda.manual_seed(5); a = litnn.rand(3, device='cuda').tolist()
    litnn.cuda.manual_seed_all(5); assert litnn.rand(3, device='cuda').tolist() == a


ACCELERATOR_CALLS = ['is_available', 'current_accelerator', 'device_count', 'current_device_index', 'current_device_idx',
                     'synchronize', 'empty_cache', 'memory_allocated', 'max_memory_allocated', 'memory_reserved',
                     'max_memory_reserved', 'reset_peak_memory_stats']


@needs_no_gpu
@pytest.mark.parametrize('name', ACCELERATOR_CALLS)
def test_accelerator_like_torch_cpu_build(name):
    same(lambda lib: err(getattr(lib.accelerator, name)) if name not in ('is_available', 'current_accelerator', 'device_count')
         else getattr(lib.accelerator, name)())
    same(lambda lib: err(lib.accelerator.set_device_index, 0))


BACKEND_VALUES = ['cudnn.benchmark', 'cudnn.deterministic', 'cudnn.enabled', 'cudnn.allow_tf32', 'cuda.matmul.allow_tf32',
                  'cuda.matmul.allow_fp16_reduced_precision_reduction', 'cuda.matmul.allow_bf16_reduced_precision_reduction',
                  'mkldnn.enabled', 'mkldnn.deterministic', 'mkldnn.allow_tf32']
BACKEND_CALLS = ['cuda.flash_sdp_enabled', 'cuda.mem_efficient_sdp_enabled', 'cuda.math_sdp_enabled', 'cuda.cudnn_sdp_enabled',
                 'cudnn.is_available', 'cudnn.version', 'mps.is_available', 'mps.is_built', 'cpu.get_cpu_capability']


def attr(obj, path):
    for p in path.split('.'): obj = getattr(obj, p)
    return obj


@pytest.mark.parametrize('path', BACKEND_VALUES)
def test_backend_defaults(path):
    same(lambda lib: attr(lib.backends, path))


@needs_no_gpu
@pytest.mark.parametrize('path', BACKEND_CALLS + ['cuda.is_built'])
def test_backend_questions(path):
    same(lambda lib: attr(lib.backends, path)())


def test_backend_import_forms_and_settable_switches():
    import litnn.backends.cudnn as cudnn
    from litnn.backends import cuda, mps
    assert cudnn is litnn.backends.cudnn and cuda is litnn.backends.cuda and mps is litnn.backends.mps
    for lib in (litnn, torch):
        lib.backends.cudnn.benchmark = True
        assert lib.backends.cudnn.benchmark is True
        lib.backends.cudnn.benchmark = False
        with lib.backends.cudnn.flags(enabled=False, deterministic=True):
            assert (lib.backends.cudnn.enabled, lib.backends.cudnn.deterministic) == (False, True)
        assert (lib.backends.cudnn.enabled, lib.backends.cudnn.deterministic) == (True, False)


PRECISION_STEPS = """
import warnings
def steps(lib):
    out = [lib.get_float32_matmul_precision(), lib.backends.cuda.matmul.allow_tf32]
    lib.set_float32_matmul_precision('high'); out.append(lib.backends.cuda.matmul.allow_tf32)
    lib.set_float32_matmul_precision('medium'); out += [lib.get_float32_matmul_precision(), lib.backends.cuda.matmul.allow_tf32]
    lib.set_float32_matmul_precision('highest'); out.append(lib.backends.cuda.matmul.allow_tf32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always'); lib.set_float32_matmul_precision('bad')
    out += [lib.get_float32_matmul_precision(), len(w)]
    lib.set_float32_matmul_precision('highest')
    return out
import {lib}; print(repr(steps({lib})))
"""


def test_tf32_and_matmul_precision_are_one_setting():
    # torch keeps this state process-wide and refuses to read the precision after the flag was set
    # (a RuntimeError about mixing its legacy and new APIs; litnn reads it): each library runs in a fresh process
    import subprocess, sys
    run = lambda lib: subprocess.run([sys.executable, '-c', PRECISION_STEPS.format(lib=lib)], capture_output=True,
                                     text=True, check=True).stdout
    assert run('litnn') == run('torch')
    litnn.backends.cuda.matmul.allow_tf32 = True
    assert litnn.get_float32_matmul_precision() == 'high'
    litnn.backends.cuda.matmul.allow_tf32 = False
    assert litnn.get_float32_matmul_precision() == 'highest'


def test_deterministic_algorithms_flag():
    def steps(lib):
        out = [lib.are_deterministic_algorithms_enabled()]
        lib.use_deterministic_algorithms(True, warn_only=True)
        out += [lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled()]
        lib.use_deterministic_algorithms(False)
        return out + [lib.are_deterministic_algorithms_enabled()]
    same(steps)


def test_compile_wraps_model_and_runs_the_same():
    "compile returns torch's kinds of object (tests/test_compile.py checks what they compute)."
    m = litnn.nn.Sequential(litnn.nn.Linear(3, 2), litnn.nn.ReLU())
    for c in (litnn.compile(m), litnn.compile()(m), litnn.compile(mode='reduce-overhead')(m)):
        assert type(c).__name__ == 'OptimizedModule' and c._orig_mod is m
    assert litnn.compile(m, disable=True) is m
    f = lambda x: x * 2
    assert callable(litnn.compile(f, fullgraph=True, dynamic=False, backend='inductor'))
    assert m.compile() is None and m.compile(mode='max-autotune') is None
    tm = torch.nn.Linear(3, 2)
    assert tm.compile() is None
    same(lambda lib: err(lib.compile, 1))
    assert 'compile' in litnn.nn.Module.__dict__   # defined once, on Module itself
    same(lambda lib: lib.compiler.is_compiling())


def test_jit_no_ops():
    m = litnn.nn.Linear(2, 2)
    assert litnn.jit.script(m) is m and litnn.jit.trace(m, litnn.zeros(1, 2)) is m
    same(lambda lib: (lib.jit.is_scripting(), lib.jit.is_tracing()))
    for lib in (litnn, torch):
        @lib.jit.ignore
        def f(x): return x + 1

        @lib.jit.unused
        def g(x): return x + 2

        @lib.jit.ignore(drop=True)
        def h(x): return x + 3

        @lib.jit.export
        def k(x): return x + 4
        assert (f(0), g(0), h(0), k(0)) == (1, 2, 3, 4)
    assert litnn.jit.Final is torch.jit.Final
    from litnn.jit import script, trace   # noqa: F401  (the import form programs use)


def test_jit_trace_runs_the_function_once_on_the_example_inputs_as_torch():
    # torch's tracer runs the function to record it: its errors show at trace time, and what it does to its inputs is done
    for lib in (litnn, torch):
        def f(x): raise NotImplementedError
        with pytest.raises(NotImplementedError): lib.jit.trace(f, (lib.zeros(2),))
        with pytest.raises(NotImplementedError): lib.jit.trace(f, lib.zeros(2))

        def g(x, y): return x.add_(y)
        x = lib.zeros(2)
        lib.jit.trace(g, (x, lib.ones(2)), check_trace=False)
        assert x.tolist() == [1., 1.]
        x = lib.zeros(2)
        lib.jit.trace(g, [x, lib.ones(2)], check_trace=False)   # a list: its elements are the arguments
        assert x.tolist() == [1., 1.]
        h = lib.jit.trace(lambda x, y: x * y, example_kwarg_inputs={'x': lib.ones(2), 'y': lib.ones(2)})
        assert h(x=lib.ones(2), y=lib.full((2,), 3.)).tolist() == [3., 3.]
        bn = lib.nn.BatchNorm1d(2)
        lib.jit.trace_module(bn, {'forward': lib.tensor([[1., 2.], [3., 6.]])})
        assert bn.num_batches_tracked.item() >= 1, lib   # (torch's trace checks run it again: 5 times)
        with pytest.warns(DeprecationWarning, match=r'^`torch.jit.trace` is deprecated. Please switch to `torch.compile`'):
            lib.jit.trace(lambda x: x, lib.zeros(1))
        with pytest.warns(DeprecationWarning, match=r'^`torch.jit.trace_method` is deprecated'):
            lib.jit.trace_module(lib.nn.Linear(2, 2), {'forward': lib.zeros(1, 2)})


NN_MODULE_FILES = ['module', 'linear', 'conv', 'pooling', 'activation', 'dropout', 'sparse', 'normalization', 'batchnorm',
                   'container', 'loss', 'flatten']


@pytest.mark.parametrize('f', NN_MODULE_FILES)
def test_nn_module_file_paths(f):
    tm, lm = importlib.import_module(f'torch.nn.modules.{f}'), importlib.import_module(f'litnn.nn.modules.{f}')
    names = [n for n in dir(tm) if isinstance(getattr(tm, n), type) and getattr(tm, n).__module__ == tm.__name__
             and hasattr(litnn.nn, n)]
    assert names, f
    for n in names: assert getattr(lm, n) is getattr(litnn.nn, n), (f, n)


def test_module_py_private_names_programs_import():
    "Names programs import from torch.nn.modules.module though torch keeps them private (summaries, state-dict tools)."
    from litnn.nn.modules.module import _addindent, _IncompatibleKeys, _EXTRA_STATE_KEY_SUFFIX, _WrappedHook  # noqa: F401
    import torch.nn.modules.module as tm
    s = 'Net(\n(fc): Linear()\n\n)'
    assert _addindent(s, 2) == tm._addindent(s, 2) and _EXTRA_STATE_KEY_SUFFIX == tm._EXTRA_STATE_KEY_SUFFIX
    assert repr(_IncompatibleKeys(['a'], [])) == repr(tm._IncompatibleKeys(['a'], []))
    assert _IncompatibleKeys is type(litnn.nn.Linear(1, 1).load_state_dict(litnn.nn.Linear(1, 1).state_dict()))


def test_serialization_module():
    import litnn.serialization
    assert litnn.serialization.save is litnn.save and litnn.serialization.load is litnn.load


def test_attention_kernel_switches():
    def steps(lib):
        b = lib.backends.cuda
        b.enable_flash_sdp(False); b.enable_math_sdp(False)
        out = [b.flash_sdp_enabled(), b.math_sdp_enabled(), b.mem_efficient_sdp_enabled()]
        b.enable_flash_sdp(True); b.enable_math_sdp(True)
        return out + [b.flash_sdp_enabled(), b.math_sdp_enabled()]
    same(steps)


def test_namespaces_are_packages_so_submodule_imports_resolve_under_another_name():
    "dcgan's `import torch.backends.cudnn as cudnn` with litnn standing in for torch: the parent must be a package, as torch's is."
    import sys, importlib, importlib.abc, importlib.util
    import torch
    class Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            if name == 'tch' or name.startswith('tch.'): return importlib.util.spec_from_loader(name, self)
        def create_module(self, spec): return importlib.import_module('litnn' + spec.name[3:])
        def exec_module(self, module): pass
    finder = Alias(); sys.meta_path.insert(0, finder)
    try:
        import tch.backends.cudnn as cudnn
        assert cudnn is litnn.backends.cudnn and hasattr(cudnn, 'benchmark')
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if k == 'tch' or k.startswith('tch.')]: del sys.modules[k]
    for name in ('backends', 'accelerator', 'compiler', 'jit'):
        assert hasattr(getattr(torch, name), '__path__') and hasattr(getattr(litnn, name), '__path__'), name


def test_version_is_the_pytorch_version_followed():
    "Programs gate features on torch.__version__ (einx needs >= 2.2; x-transformers' flash attention >= 2.0): litnn answers 2.13.0."
    from packaging import version
    v = litnn.__version__
    assert isinstance(v, str) and v.split('+')[0] == '2.13.0' and v >= '2.2' and v >= (2, 0) and not v < '2.13'
    assert version.parse(v) >= version.parse('2.2') and litnn.version.__version__ == v
    assert type(v).__name__ == type(torch.__version__).__name__ == 'TorchVersion'
    assert litnn.version.cuda is None or litnn.cuda.is_available()


def test_torch_version_compares_as_torchs():
    "TorchVersion against torch's own on the same strings and tuples; a packaging Version compares as a version too."
    from torch.torch_version import TorchVersion as TV
    from packaging.version import Version
    from litnn.torch_version import TorchVersion
    cases = ['2.13.0', '2.13', '2.13.0+cpu', '2.13.1', '2.14.0.dev20261201', '2.13.0rc1', '2.13.0a0', '2.13.0.post1', '2.2', '10.0',
             '2.13.0+litnn', 'x', (2, 13), (2, 12, 9)]
    for a in ['2.13.0+litnn', '2.13.0', '2.14.0a0+git123', '1.9.1', '2.0.0.dev5']:
        for b in cases:
            for op in ('__lt__', '__le__', '__eq__', '__ge__', '__gt__'):
                assert getattr(TorchVersion(a), op)(b) == getattr(TV(a), op)(b), (a, b, op)
    assert TorchVersion('2.13.0+litnn') >= Version('2.2') and TorchVersion('2.13.0') == Version('2.13')


def test_mkldnn_flags_set_and_restore_as_torch():
    "torch.backends.mkldnn.flags: a with block's switches, restored after it; set_flags gives the old ones."
    def run(lib):
        m, names = lib.backends.mkldnn, ('enabled', 'deterministic', 'allow_tf32')
        seen = [tuple(getattr(m, n) for n in names)]
        with m.flags(enabled=False, deterministic=True):
            seen.append(tuple(getattr(m, n) for n in names[:2]))
        seen.append(tuple(getattr(m, n) for n in names))
        seen.append(tuple(m.set_flags(False)[:3])); seen.append(m.enabled); m.set_flags(True)
        return seen
    assert run(litnn) == run(torch)

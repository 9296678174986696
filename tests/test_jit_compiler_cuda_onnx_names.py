"""torch.jit, torch.compiler, torch.cuda and torch.onnx names, compared with torch 2.13 (CPU) on the same inputs."""
import io, typing, warnings
import pytest
import torch
import litnn

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _outcome(f):
    "(result, None) or (None, (exception type name, message))."
    try: return f(), None
    except Exception as e: return None, (type(e).__name__, str(e))


# ---- torch.jit

@pytest.mark.parametrize("obj,target", [
    ([1, 2], typing.List[int]), ([1, "a"], typing.List[int]), ({"a": [1]}, typing.Dict[str, typing.List[int]]),
    ({"a": [1.0]}, dict[str, list[int]]), ((1, "a"), typing.Tuple[int, str]), ((1,), typing.Tuple[int, str]),
    (None, typing.Optional[int]), ("x", typing.Optional[int]), (3, (str, int)), (3, int), (3.0, int),
    ([1], [int]), ([1], typing.List), ({}, dict), ({}, typing.Dict), ([], typing.List[str]), ([[1], [2]], list[list[int]]),
    (1, typing.Union[str, typing.List[int]])])
def test_jit_isinstance(obj, target):
    with warnings.catch_warnings(record=True) as wl:
        warnings.simplefilter("always")
        got = _outcome(lambda: litnn.jit.isinstance(obj, target))
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        want = _outcome(lambda: torch.jit.isinstance(obj, target))
    assert got == want
    assert [str(w.message) for w in wl] == [str(w.message) for w in wt]


def test_jit_errors_and_classes():
    for name in ["Error", "ScriptWarning", "TracingCheckError"]:
        assert [c.__name__ for c in getattr(litnn.jit, name).__mro__] == [c.__name__ for c in getattr(torch.jit, name).__mro__]
    assert issubclass(litnn.jit.RecursiveScriptModule, litnn.jit.ScriptModule)
    assert issubclass(litnn.jit.TopLevelTracedModule, litnn.jit.TracedModule)
    assert issubclass(litnn.jit.TracedModule, litnn.jit.ScriptModule)
    for args in [(None, None), ("a\nb", None, "extra"), (None, "t1\nt2")]:
        assert litnn.jit.TracingCheckError(*args).message == torch.jit.TracingCheckError(*args).message
    assert litnn.jit.Attribute(1, int) == torch.jit.Attribute(1, int)
    assert repr(litnn.jit.Attribute(1, int)) == repr(torch.jit.Attribute(1, int))
    with pytest.raises(TypeError, match="No constructor defined"): litnn.jit.ScriptFunction()
    with pytest.raises(TypeError, match="No constructor defined"): torch.jit.ScriptFunction()


def test_attribute_unwrapped_by_a_script_module():
    for lib in (torch, litnn):
        class M(lib.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.words = lib.jit.Attribute(["a"], typing.List[str])
        assert M().words == ["a"]


def test_interface():
    for lib in (torch, litnn):
        class Runner:
            def run(self, x: lib.Tensor) -> lib.Tensor:
                pass
        assert lib.jit.interface(Runner) is Runner
    for bad in [3, "x"]:
        assert _outcome(lambda: litnn.jit.interface(bad)) == _outcome(lambda: torch.jit.interface(bad))


def test_freeze_and_optimize_for_inference():
    for fn in ["freeze", "optimize_for_inference"]:
        # a module that was not scripted, and one in training mode
        assert _outcome(lambda: getattr(litnn.jit, fn)(litnn.nn.Linear(2, 2).eval()))[1] == \
               _outcome(lambda: getattr(torch.jit, fn)(torch.nn.Linear(2, 2).eval()))[1]
    assert _outcome(lambda: litnn.jit.freeze(litnn.jit.script(litnn.nn.Linear(2, 2))))[1] == \
           _outcome(lambda: torch.jit.freeze(torch.jit.script(torch.nn.Linear(2, 2))))[1]
    tm, lm = torch.nn.Linear(3, 2).eval(), litnn.nn.Linear(3, 2).eval()
    lm.load_state_dict({k: litnn.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = torch.randn(4, 3)
    tf, lf = torch.jit.freeze(torch.jit.script(tm)), litnn.jit.freeze(litnn.jit.script(lm))
    assert torch.allclose(tf(x), torch.from_numpy(lf(litnn.tensor(x.numpy())).detach().numpy()), atol=1e-6)
    with torch.no_grad(): tm.weight.zero_()
    with litnn.no_grad(): lm.weight.zero_()       # torch's constants are the module's tensors: an in-place change shows
    assert torch.allclose(tf(x), torch.from_numpy(lf(litnn.tensor(x.numpy())).detach().numpy()), atol=1e-6)
    o = litnn.jit.optimize_for_inference(litnn.jit.script(litnn.nn.Linear(2, 2)))
    assert not o.training
    assert type(_outcome(lambda: litnn.jit.run_frozen_optimizations(litnn.nn.Linear(2, 2)))[1]) is \
           type(_outcome(lambda: torch.jit.run_frozen_optimizations(torch.nn.Linear(2, 2)))[1])


def test_save_load(tmp_path):
    for f in [tmp_path / "m.pt", io.BytesIO()]:      # a plain module: torch's AttributeError (no save / save_to_buffer)
        assert _outcome(lambda: litnn.jit.save(litnn.nn.Linear(2, 2), f))[1] == _outcome(lambda: torch.jit.save(torch.nn.Linear(2, 2), f))[1]
    for p in [tmp_path / "none.pt", tmp_path]:
        assert _outcome(lambda: litnn.jit.load(str(p)))[1] == _outcome(lambda: torch.jit.load(str(p)))[1]
    assert _outcome(lambda: litnn.jit.load(io.BytesIO(), map_location=3))[1] == _outcome(lambda: torch.jit.load(io.BytesIO(), map_location=3))[1]
    m = litnn.jit.script(litnn.nn.Sequential(litnn.nn.Linear(2, 3), litnn.nn.Tanh()))
    p = tmp_path / "s.pt"
    litnn.jit.save(m, p, _extra_files={"a.txt": "hello"})
    extra = {"a.txt": ""}
    back = litnn.jit.load(p, map_location="cpu", _extra_files=extra)
    assert extra == {"a.txt": b"hello"}            # torch: bytes back, as here
    x = litnn.randn(5, 2)
    assert litnn.equal(back(x), m(x))
    litnn.jit.save(back, io.BytesIO())             # what load returned is scripted
    # a TorchScript archive from torch: refused with a reason
    tp = tmp_path / "torchscript.pt"
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), tp)
    with pytest.raises(RuntimeError, match="TorchScript archive"): litnn.jit.load(tp)


def test_fuser_settings():
    for lib in (torch, litnn):
        old = lib.jit.set_fusion_strategy([("DYNAMIC", 3)])
        assert lib.jit.set_fusion_strategy(old) == [("DYNAMIC", 3)]
        with lib.jit.fuser("fuser1"), lib.jit.optimized_execution(False): pass
        assert lib.jit.onednn_fusion_enabled() is False
        lib.jit.enable_onednn_fusion(True); assert lib.jit.onednn_fusion_enabled() is True
        lib.jit.enable_onednn_fusion(False)
    assert litnn.jit.last_executed_optimized_graph() is None     # (torch's: None until a scripted function ran)
    assert _outcome(lambda: litnn.jit.set_fusion_strategy([("X", 1)])) == _outcome(lambda: torch.jit.set_fusion_strategy([("X", 1)]))
    assert _outcome(lambda: litnn.jit.fuser("bad").__enter__()) == _outcome(lambda: torch.jit.fuser("bad").__enter__())


def test_strict_fusion_script_if_tracing_export_opnames():
    for lib in (torch, litnn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.jit.strict_fusion(): pass
        assert [str(x.message) for x in w] == ["Only works in script mode"]
        f = lib.jit.script_if_tracing(lambda x: x * 2)
        assert f(3) == 6
    assert type(_outcome(lambda: litnn.jit.export_opnames(litnn.nn.Linear(2, 2)))[1]) is \
           type(_outcome(lambda: torch.jit.export_opnames(torch.nn.Linear(2, 2)))[1])
    obj = type("O", (), {})
    litnn.jit.set_module(obj, "a.b"); assert obj.__module__ == "a.b"
    assert _outcome(lambda: litnn.jit.set_module(obj, 1)) == _outcome(lambda: torch.jit.set_module(obj, 1))


def test_compilation_unit():
    src = "def f(x: Tensor, k: int) -> Tensor:\n    return x * k + 1\n\ndef g(x):\n    return torch.relu(x)\n"
    tcu, lcu = torch.jit.CompilationUnit(src), litnn.jit.CompilationUnit(src)
    x = torch.randn(3)
    assert torch.allclose(tcu.f(x, 2), torch.from_numpy(lcu.f(litnn.tensor(x.numpy()), 2).numpy()))
    assert torch.allclose(tcu.g(x), torch.from_numpy(lcu.g(litnn.tensor(x.numpy())).numpy()))
    assert (lcu.find_function("zz"), len(lcu.get_functions())) == (tcu.find_function("zz"), len(tcu.get_functions()))
    assert _outcome(lambda: lcu.zz) == _outcome(lambda: tcu.zz)


# ---- torch.compiler

class _Src:
    def __init__(self, builtin, nn): self.b, self.n = builtin, nn
    def is_unspecialized_builtin_nn_module(self): return self.b
    def is_unspecialized_nn_module(self): return self.n

class _Guard:
    def __init__(self, guard_type, is_global, value, b=False, n=False):
        self.guard_type, self.is_global, self.value = guard_type, is_global, value
        self.orig_guard = type("G", (), {"source": _Src(b, n)})()

@pytest.mark.parametrize("name", ["skip_all_guards_unsafe", "skip_guard_on_inbuilt_nn_modules_unsafe", "skip_guard_on_all_nn_modules_unsafe",
                                  "skip_guard_on_globals_unsafe", "keep_portable_guards_unsafe", "keep_tensor_guards_unsafe"])
def test_guard_filters(name):
    def entries(lib):
        return [_Guard("TENSOR_MATCH", False, lib.ones(1)), _Guard("GLOBAL_STATE", True, None, b=True),
                _Guard("TENSOR_MATCH", True, lib.nn.Parameter(lib.ones(1)), n=True), _Guard("SHAPE_ENV", False, None, b=True, n=True)]
    assert getattr(litnn.compiler, name)(entries(litnn)) == getattr(torch.compiler, name)(entries(torch))
    if name == "keep_tensor_guards_unsafe":
        assert litnn.compiler.keep_tensor_guards_unsafe(entries(litnn), True) == torch.compiler.keep_tensor_guards_unsafe(entries(torch), True)


def test_compiler_small_names():
    assert repr(litnn.compiler.CacheInfo()) == repr(torch.compiler.CacheInfo())
    assert litnn.compiler.CacheInfo().empty() == torch.compiler.CacheInfo().empty()
    assert repr(litnn.compiler.NestedCompileRegionOptions(partitioner="p")) == repr(torch.compiler.NestedCompileRegionOptions(partitioner="p"))
    assert litnn.compiler.FuncType == torch.compiler.FuncType
    for lib in (torch, litnn):
        seq = [lib.compiler.set_enable_guard_collectives(v) for v in (True, True, False, False)]
        assert seq == [False, True, True, False]
    with pytest.raises(RuntimeError): litnn.compiler.load_compiled_function(io.BytesIO(b"x"))


# ---- torch.onnx

def test_onnx_errors_and_enums():
    assert [c.__name__ for c in litnn.onnx.OnnxExporterError.__mro__] == [c.__name__ for c in torch.onnx.OnnxExporterError.__mro__]
    assert issubclass(litnn.onnx.UnsupportedOperatorError, litnn.onnx.OnnxExporterError)
    for name in ["OperatorExportTypes", "TensorProtoDataType"]:
        l, t = getattr(litnn.onnx, name), getattr(torch.onnx, name)
        assert [(k, int(v)) for k, v in l.__members__.items()] == [(k, int(v)) for k, v in t.__members__.items()]
        m = next(iter(l.__members__))
        assert (repr(l[m]), str(l[m]), l[m] == 0) == (repr(t.__members__[m]), str(t.__members__[m]), t.__members__[m] == 0)


@pytest.mark.parametrize("member", list(torch.onnx.JitScalarType.__members__))
def test_jit_scalar_type(member):
    l, t = litnn.onnx.JitScalarType[member], torch.onnx.JitScalarType[member]
    assert (int(l), repr(l), l.scalar_name(), l.onnx_type().name, l.onnx_compatible()) == \
           (int(t), repr(t), t.scalar_name(), t.onnx_type().name, t.onnx_compatible())
    assert _outcome(l.torch_name) == _outcome(t.torch_name)
    td = _outcome(t.dtype)[0]
    if td is not None and hasattr(litnn, str(td).split(".")[1]):
        assert l.dtype() is getattr(litnn, str(td).split(".")[1])
        assert litnn.onnx.JitScalarType.from_dtype(l.dtype()) == torch.onnx.JitScalarType.from_dtype(td)
    assert litnn.onnx.JitScalarType.from_onnx_type(int(t.onnx_type())) == torch.onnx.JitScalarType.from_onnx_type(int(t.onnx_type()))


def test_jit_scalar_type_errors():
    J, T = litnn.onnx.JitScalarType, torch.onnx.JitScalarType
    for f, g in [(lambda: J.from_dtype(None), lambda: T.from_dtype(None)), (lambda: J.from_value(3), lambda: T.from_value(3)),
                 (lambda: J.from_value(3, 1), lambda: T.from_value(3, 1)), (lambda: J._from_name("x"), lambda: T._from_name("x"))]:
        assert _outcome(f)[1] == _outcome(g)[1]
    assert J.from_value(3, J.FLOAT) == T.from_value(3, T.FLOAT)
    assert J.from_value(litnn.ones(1, dtype=litnn.int32)) == T.from_value(torch.ones(1, dtype=torch.int32))


@pytest.mark.parametrize("name", ["custom::my_op", "::my_op", "bad", "onnx::Relu", "a::1b"])
def test_custom_op_symbolic(name):
    got = _outcome(lambda: litnn.onnx.register_custom_op_symbolic(name, lambda g, x: x, 17))
    want = _outcome(lambda: torch.onnx.register_custom_op_symbolic(name, lambda g, x: x, 17))
    assert got == want
    assert _outcome(lambda: litnn.onnx.unregister_custom_op_symbolic(name, 17)) == _outcome(lambda: torch.onnx.unregister_custom_op_symbolic(name, 17))


@pytest.mark.parametrize("mode", ["EVAL", "TRAINING", "PRESERVE"])
@pytest.mark.parametrize("training", [True, False])
def test_select_model_mode_for_export(mode, training):
    seen = []
    for lib in (torch, litnn):
        m = lib.nn.Linear(2, 2).train(training)
        with lib.onnx.select_model_mode_for_export(m, getattr(lib.onnx.TrainingMode, mode)): inside = m.training
        seen.append((inside, m.training))
    assert seen[0] == seen[1]
    assert _outcome(lambda: litnn.onnx.select_model_mode_for_export(litnn.nn.Linear(1, 1), 0).__enter__())[1][0] == "TypeError"


def test_onnx_producer():
    pytest.importorskip("onnx")
    assert (litnn.onnx.producer_name, litnn.onnx.producer_version) == ("litnn", str(litnn.__version__))
    b = io.BytesIO()
    litnn.onnx.export(litnn.nn.Linear(2, 1), (litnn.ones(1, 2),), b)
    import onnx
    p = onnx.load_from_string(b.getvalue())
    assert (p.producer_name, p.producer_version) == (litnn.onnx.producer_name, litnn.onnx.producer_version)


# ---- torch.cuda (on a machine without a GPU, as this one; the GPU paths are in the notebook's `cuda` cells)

_no_gpu = pytest.mark.skipif(litnn.cuda.is_available() or torch.cuda.is_available(), reason="compares the CPU-only behaviour")

@_no_gpu
@pytest.mark.parametrize("name", ["temperature", "power_draw", "clock_rate", "utilization", "memory_usage", "device_memory_used"])
def test_cuda_nvml_queries(name):
    got, want = _outcome(getattr(litnn.cuda, name)), _outcome(getattr(torch.cuda, name))
    if "pynvml" in __import__("sys").modules: assert got[1][0] == want[1][0]
    else: assert got == want        # ModuleNotFoundError, torch's message


@_no_gpu
@pytest.mark.parametrize("call", ["can_device_access_peer(0, 1)", "ipc_collect()", "get_sync_debug_mode()", "set_sync_debug_mode('warn')",
                                  "set_sync_debug_mode('bad')", "current_solver_handle()", "cudart()", "get_stream_from_external(0)",
                                  "check_error(0)", "CudaError(1)", "FloatStorage(3)", "MemPool()", "use_mem_pool(None).__enter__()",
                                  "get_allocator_backend()", "reset_peak_host_memory_stats()", "reset_accumulated_host_memory_stats()",
                                  "host_memory_stats()", "host_memory_stats_as_nested_dict()", "caching_allocator_enable(True)"])
def test_cuda_calls_without_gpu(call):
    got = _outcome(lambda: eval("C." + call, {"C": litnn.cuda}))
    want = _outcome(lambda: eval("C." + call, {"C": torch.cuda}))
    assert (got[1] or [None])[0] == (want[1] or [None])[0]          # the same exception type (messages say why, in each library's words)
    if want[1] is None: assert got[0] == want[0]


def test_cuda_classes_and_constants():
    for name in ["CudaError", "DeferredCudaCallError", "AcceleratorError"]:
        assert [c.__name__ for c in getattr(litnn.cuda, name).__mro__] == [c.__name__ for c in getattr(torch.cuda, name).__mro__]
    assert (litnn.cuda.cudaStatus.SUCCESS, litnn.cuda.cudaStatus.ERROR_NOT_READY) == (torch.cuda.cudaStatus.SUCCESS, torch.cuda.cudaStatus.ERROR_NOT_READY)
    assert litnn.cuda.TYPE_CHECKING is torch.cuda.TYPE_CHECKING
    for n in ["Byte", "Double", "Float", "Half", "Long", "Int", "Short", "Char", "Bool", "BFloat16", "ComplexDouble", "ComplexFloat"]:
        l, t = getattr(litnn.cuda, n + "Storage"), getattr(torch.cuda, n + "Storage")
        assert repr(l) == repr(t).replace("torch", "litnn") and str(l.dtype) == str(t.dtype).replace("torch", "litnn")
        assert not isinstance(getattr(litnn, n + "Storage")(2), l)
    if not litnn.cuda.is_available() and not torch.cuda.is_available():
        assert _outcome(lambda: litnn.cuda.caching_allocator_disabled().__enter__())[1][0] == \
               _outcome(lambda: torch.cuda.caching_allocator_disabled().__enter__())[1][0]


def test_flatbuffer_and_onnx_type_checking(tmp_path):
    p = tmp_path / "m.ff"
    assert _outcome(lambda: litnn.jit.save_jit_module_to_flatbuffer(litnn.nn.Linear(2, 2), p))[1] == \
           _outcome(lambda: torch.jit.save_jit_module_to_flatbuffer(torch.nn.Linear(2, 2), p))[1]
    assert _outcome(lambda: litnn.jit.jit_module_from_flatbuffer(str(p)))[1] == _outcome(lambda: torch.jit.jit_module_from_flatbuffer(str(p)))[1]
    m = litnn.jit.script(litnn.nn.Linear(2, 2))
    litnn.jit.save_jit_module_to_flatbuffer(m, p)
    x = litnn.randn(3, 2)
    assert litnn.equal(litnn.jit.jit_module_from_flatbuffer(p)(x), m(x))
    assert litnn.onnx.TYPE_CHECKING is torch.onnx.TYPE_CHECKING


def test_cuda_classproperty_and_device_alias():
    for lib in (torch, litnn):
        class K:
            @lib.cuda.classproperty
            def name(cls): return cls.__name__
        assert K.name == "K"
    assert str(litnn.cuda.Device) == str(torch.cuda.Device).replace("torch", "litnn")

"""torch._C's names that code outside torch uses, side by side with torch."""
import pickle, re, torch, litnn


def test_generator_repr_and_class_path():
    for lib in (torch, litnn):
        assert re.fullmatch(rf'<{lib.__name__}\._C\.Generator object at 0x[0-9a-f]+>', repr(lib.Generator()))
        assert lib._C.Generator is lib.Generator
    g = pickle.loads(pickle.dumps(litnn.Generator().manual_seed(5)))
    assert g.initial_seed() == 5


def test_probes_as_torch():
    for lib in (torch, litnn):
        assert lib._C._get_tracing_state() is None and lib._C._log_api_usage_once('litnn.test') is None
        assert lib._C._current_graph_task_id() == -1
        lib._C._set_grad_enabled(False); assert not lib.is_grad_enabled()
        lib._C._set_grad_enabled(True); assert lib.is_grad_enabled()
        assert isinstance(lib.ones(1), lib._C.TensorBase)


def test_graph_task_id_inside_a_backward():
    for lib in (torch, litnn):
        seen = []
        x = lib.ones(2, requires_grad=True); y = x * 2
        y.register_hook(lambda g: seen.append(lib._C._current_graph_task_id()))
        y.sum().backward()
        assert len(seen) == 1 and seen[0] != -1


def test_disabled_torch_function_subclass():
    for lib in (torch, litnn):
        class Sub(lib.Tensor):
            calls = 0
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                cls.calls += 1
                with lib._C.DisableTorchFunctionSubclass(): return func(*args, **(kwargs or {}))
        q = lib.randn(1, 1, 2, 4).as_subclass(Sub)
        Sub.calls = 0
        with lib._C.DisableTorchFunctionSubclass():
            out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        assert out.shape == (1, 1, 2, 4) and Sub.calls == 0
        lib.nn.functional.scaled_dot_product_attention(q, q, q)
        assert Sub.calls >= 1


def test_linalg_error_at_C():
    for lib in (torch, litnn):
        assert lib._C._LinAlgError is lib.linalg.LinAlgError
        try: lib.linalg.cholesky(-lib.eye(2))
        except lib._C._LinAlgError as e: assert 'not positive-definite' in str(e)
        else: raise AssertionError('no error')


def test_pinv_takes_rcond():
    a = [[1., 2.], [3., 4.], [5., 6.]]
    for args, kw in (((1e-3,), {}), ((), {'rcond': 1e-3}), ((), {'rcond': 0.5}), ((0.5, False), {})):
        t, l = (lib.linalg.pinv(lib.tensor(a), *args, **kw).numpy() for lib in (torch, litnn))
        assert abs(t - l).max() < 1e-5


def test_has_lapack_as_torch():
    "torch._C.has_lapack: code checks it before calling linear algebra; litnn's runs on NumPy's LAPACK."
    import torch
    assert litnn._C.has_lapack is torch._C.has_lapack is True


def test_get_privateuse1_backend_name_as_torch():
    "torch's test_multihead_attention asks it to know the devices its fast path runs on."
    assert litnn._C._get_privateuse1_backend_name() == torch._C._get_privateuse1_backend_name()


def test_tag_members_as_torch():
    assert [(t.name, t.value) for t in litnn.Tag] == [(t.name, t.value) for t in torch.Tag.__members__.values()]
    assert (repr(litnn.Tag.pt2_compliant_tag), str(litnn.Tag.out)) == (repr(torch.Tag.pt2_compliant_tag), str(torch.Tag.out))

"""torch.export side by side with torch 2.13: the same module exported by both gives the same signature (lifted
parameters, buffers and constants, by torch's names), the same state, a module computing the same results, the same
guards and refusals; the signature's kinds, Dim's reprs and the tracer's UserError are torch's."""
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')


def program(lib):
    lib.manual_seed(0)

    class M(lib.nn.Module):
        def __init__(s):
            super().__init__(); s.c = lib.nn.Conv2d(3, 4, 3); s.bn = lib.nn.BatchNorm2d(4); s.fc = lib.nn.Linear(4 * 6 * 6, 5)
            s.register_buffer('step', lib.zeros(()), persistent=False)

        def forward(s, x, scale=2.0):
            h = s.bn(s.c(x)).relu()
            y = s.fc(h.view(h.size(0), -1)) * scale
            a, b = y.split([2, 3], dim=1)
            return {'a': a, 'b': b.softmax(-1), 'm': y.max(dim=1).values}
    m = M().eval()
    x = lib.randn(2, 3, 8, 8)
    ep = lib.export.export(m, (x,))
    sig = ep.graph_signature
    x2 = lib.randn(2, 3, 8, 8)
    out = ep.module()(x2)
    errors = []
    for f in (lambda: ep.module()(lib.randn(3, 3, 8, 8)), lambda: ep(x2),
              lambda: lib.export.export(lambda t: t, (x,)), lambda: lib.export.export(m, [x])):
        try: f()
        except Exception as e: errors.append((type(e).__name__, str(e).split('\n')[0]))
    return dict(parameters=sig.parameters, buffers=sig.buffers, non_persistent=sig.non_persistent_buffers,
                user_inputs=sig.user_inputs, inputs_to_parameters=sig.inputs_to_parameters, inputs_to_buffers=sig.inputs_to_buffers,
                specs=[str(s) for s in sig.input_specs], state=list(ep.state_dict), constants=list(ep.constants),
                out={k: v.detach().numpy() for k, v in out.items()}, eager=m(x2)['a'].detach().numpy(), errors=errors,
                module_state=sorted(ep.module().state_dict()))


@pytest.fixture(scope='module')
def both(): return program(litnn), program(torch)


@pytest.mark.parametrize('key', ['parameters', 'buffers', 'non_persistent', 'user_inputs', 'inputs_to_parameters',
                                 'inputs_to_buffers', 'specs', 'state', 'constants', 'module_state'])
def test_signature_and_state_as_torch(both, key):
    L, T = both
    assert L[key] == T[key]


def test_exported_module_computes_as_torch(both):
    L, T = both
    for k in T['out']: np.testing.assert_allclose(L['out'][k], T['out'][k], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(L['out']['a'], L['eager'], rtol=0, atol=0)    # the same calls as eager, in the same order


def test_guards_and_refusals_as_torch(both):
    L, T = both
    assert [e[0] for e in L['errors']] == [e[0] for e in T['errors']]
    assert L['errors'] == T['errors']           # Guard failed: x.size()[0] == 2, ...


def test_lifted_constant_and_user_outputs_as_torch():
    res = []
    for lib in (litnn, torch):
        g = lib.tensor([1., 2.])

        class UsesGlobal(lib.nn.Module):
            def forward(self, x): return x * g + 1, x.sum()
        ep = lib.export.export(UsesGlobal(), (lib.ones(2),))
        sig = ep.graph_signature
        res.append(([s.kind.name for s in sig.input_specs], len(sig.output_specs), [s.kind.name for s in sig.output_specs],
                    ep.module()(lib.full((2,), 3.))[0].tolist()))
    assert res[0] == res[1]


def test_dynamic_dimension_lifts_the_guard():
    for lib in (litnn, torch):
        class Net(lib.nn.Module):
            def __init__(self): super().__init__(); self.l = lib.nn.Linear(3, 2)
            def forward(self, x): return self.l(x).relu()
        ep = lib.export.export(Net(), (lib.ones(4, 3),), dynamic_shapes={'x': {0: lib.export.Dim('batch')}})
        assert tuple(ep.module()(lib.ones(7, 3)).shape) == (7, 2)


def test_kinds_dims_and_user_error_as_torch():
    from torch.export import graph_signature as tgs
    lgs = litnn.export.graph_signature
    assert [(k.name, k.value) for k in lgs.InputKind] == [(k.name, k.value) for k in tgs.InputKind]
    assert [(k.name, k.value) for k in lgs.OutputKind] == [(k.name, k.value) for k in tgs.OutputKind]
    for lib in (litnn, torch):
        assert repr(lib.export.Dim('batch', min=1, max=64)) == "Dim('batch', min=1, max=64)"
        assert repr(lib.export.Dim.STATIC) == 'DimHint(STATIC)' and repr(lib.export.Dim.AUTO(min=2)) == 'DimHint(AUTO, min=2)'
        assert [repr(lib.export.Dim('b', **kw)) for kw in ({}, {'min': 2}, {'max': 9})] == ["Dim('b', min=0)", "Dim('b')", "Dim('b', min=0, max=9)"]
        assert repr(lib.export.dims('h', 'w', max=512)) == "(Dim('h', min=0, max=512), Dim('w', min=0, max=512))"
        with pytest.raises(AssertionError, match='inconsistent min=5, max=2'): lib.export.Dim('b', min=5, max=2)
    assert [(m.name, m.value) for m in litnn._dynamo.exc.UserErrorType] == [(m.name, m.value) for m in torch._dynamo.exc.UserErrorType]


def test_export_with_a_dead_weak_proxy_alive_in_the_process():
    "export looks at every live object for tensors: a weak proxy whose referent is gone must not break it (it did)."
    import gc, weakref

    class Thing: pass
    t = Thing(); proxy = weakref.proxy(t); del t; gc.collect()
    ep = litnn.export.export(litnn.nn.Linear(2, 2), (litnn.ones(1, 2),))
    assert ep.graph_signature.parameters == ('weight', 'bias')
    assert proxy is not None

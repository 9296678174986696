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


def saved_and_loaded(lib, path):
    "A program with a dict input (its batch dims dynamic), a slice, a dtype argument and a global tensor, through save and load."
    lib.manual_seed(0)
    g = lib.arange(4.)

    class M(lib.nn.Module):
        def __init__(s):
            super().__init__(); s.e = lib.nn.Embedding(10, 8); s.l = lib.nn.Linear(8, 4)

        def forward(s, idx, extra):
            h = s.e(idx) + extra['bias'][:, None, :].to(lib.float64).float()
            return s.l(h)[..., ::2], (s.l(h) * g).sum(-1)
    m = M().eval()
    b = lib.export.Dim('b')
    ep = lib.export.export(m, (lib.randint(0, 10, (2, 5)), {'bias': lib.randn(2, 8)}),
                           dynamic_shapes={'idx': {0: b}, 'extra': {'bias': {0: b}}})
    lib.export.save(ep, path, extra_files={'note': 'hello'})
    extra = {'note': ''}
    ep2 = lib.export.load(path, extra_files=extra)
    x, bias = lib.randint(0, 10, (3, 5)), lib.randn(3, 8)
    outs = [t.detach().numpy() for t in ep2.module()(x, {'bias': bias})]
    eager = [t.detach().numpy() for t in m(x, {'bias': bias})]
    try: ep2.module()(lib.randint(0, 10, (3, 6)), {'bias': bias}); guard = None
    except Exception as e: guard = type(e).__name__
    sig = ep2.graph_signature
    return dict(outs=outs, eager=eager, guard=guard, extra=extra, parameters=sig.parameters, user_inputs=sig.user_inputs,
                state=list(ep2.state_dict), n_constants=len(ep2.constants))


def test_save_and_load_keep_the_program_as_torch(tmp_path):
    t, l = saved_and_loaded(torch, tmp_path / 't.pt2'), saved_and_loaded(litnn, tmp_path / 'l.pt2')
    for k in ('guard', 'extra', 'parameters', 'user_inputs', 'state', 'n_constants'): assert t[k] == l[k], k
    for a, b, e in zip(t['outs'], l['outs'], l['eager']):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6); np.testing.assert_array_equal(b, e)


def test_load_refuses_what_it_cannot_read(tmp_path):
    import zipfile, json
    p = tmp_path / 'bad.pt2'; p.write_bytes(b'garbage')
    for lib in (torch, litnn):
        with pytest.raises(zipfile.BadZipFile): lib.export.load(p)
        with pytest.raises(TypeError, match="The 'ep' parameter must be an instance of 'ExportedProgram', got 'int' instead."):
            lib.export.save(3, tmp_path / 'x.pt2')
    m = litnn.nn.Linear(2, 2)     # a tampered litnn archive naming a function outside litnn: refused, nothing run
    litnn.export.save(litnn.export.export(m, (litnn.randn(1, 2),)), tmp_path / 'ok.pt2')
    with zipfile.ZipFile(tmp_path / 'ok.pt2') as z: files = {n: z.read(n) for n in z.namelist()}
    prog = json.loads(files['archive/models/litnn_program.json'])
    prog['steps'][0]['target'] = 'os.system'
    files['archive/models/litnn_program.json'] = json.dumps(prog)
    with zipfile.ZipFile(tmp_path / 'evil.pt2', 'w') as z:
        for n, v in files.items(): z.writestr(n, v)
    with pytest.raises(RuntimeError, match="'os.system' is neither a litnn name nor an operator"): litnn.export.load(tmp_path / 'evil.pt2')
    torch.export.save(torch.export.export(torch.nn.Linear(2, 2), (torch.randn(1, 2),)), tmp_path / 'torch.pt2')
    with pytest.raises(RuntimeError, match='holds no litnn program'): litnn.export.load(tmp_path / 'torch.pt2')

"""torch.fx against real torch: the same programs traced by both give the same graphs, code and results."""
import operator, textwrap, types
import numpy as np
import pytest
torch = pytest.importorskip('torch')
import litnn

def run_both(src):
    "Run `src` (written against `torch`) with torch and with litnn as `torch`; return both namespaces."
    out = []
    for lib in (torch, litnn):
        ns = {'torch': lib, 'operator': operator, '__name__': 'fxprog'}
        exec(compile(textwrap.dedent(src), 'fxprog', 'exec'), ns)
        out.append(ns)
    return out

def same_text(a, b): assert str(a) == str(b).replace('litnn', 'torch'), f"\n{a}\n---\n{str(b).replace('litnn', 'torch')}"

MODELS = {
'mlp': '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 3)
    def forward(self, x):
        return self.fc2(torch.nn.functional.relu(self.fc1(x)))
args = (torch.randn(5, 4),)
''',
'method_getitem': '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 6)
    def forward(self, x):
        y = self.lin(x).view(-1, 2, 3)
        return y[:, 0] + y.sum(dim=1) * 2 - x.shape[0]
args = (torch.randn(4, 6),)
''',
'residual': '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(3)
        self.conv2 = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.relu = torch.nn.ReLU()
        self.seq = torch.nn.Sequential(torch.nn.Identity(), torch.nn.ReLU())
    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.conv2(out)
        return self.seq(out + x)
args = (torch.randn(2, 3, 5, 5),)
''',
'functions': '''
def M_fn(x, y):
    z = torch.cat([x, y], dim=0)
    w = torch.tanh(z) @ torch.ones(3, 3) + torch.neg(x.mean())
    return torch.stack([w, -w]).abs(), z.max(dim=1)
class M(torch.nn.Module):
    def forward(self, x, y): return M_fn(x, y)
args = (torch.randn(2, 3), torch.randn(2, 3))
''',
}

@pytest.mark.parametrize('name', MODELS)
def test_graph_and_code_match_torch(name):
    t, l = run_both(MODELS[name] + 'm = M(); gm = torch.fx.symbolic_trace(m)\n')
    same_text(t['gm'].graph, l['gm'].graph)
    same_text(t['gm'].code, l['gm'].code)
    # the traced module computes what the module does
    la = l['args']
    l['m'].eval(); l['gm'].eval()
    arr = lambda r: (r[0] if isinstance(r, tuple) else r).detach().numpy()
    np.testing.assert_allclose(arr(l['gm'](*la)), arr(l['m'](*la)), rtol=1e-5, atol=1e-6)

def test_function_trace_and_concrete_args():
    t, l = run_both('''
def f(x, flag, y=None):
    x = x + 1 if flag else x - 1
    return x if y is None else x * y
gm = torch.fx.symbolic_trace(f, concrete_args={'flag': True, 'y': None})
''')
    same_text(t['gm'].graph, l['gm'].graph)
    same_text(t['gm'].code, l['gm'].code)
    assert l['gm'](litnn.ones(2), True, None).tolist() == [2., 2.]

def test_interpreter_equals_module():
    _, l = run_both(MODELS['residual'] + 'm = M().eval(); gm = torch.fx.symbolic_trace(m)\n')
    x = l['args'][0]
    np.testing.assert_allclose(np.asarray(litnn.fx.Interpreter(l['gm']).run(x).detach()), np.asarray(l['m'](x).detach()), rtol=1e-6)

def test_transformer_add_to_mul():
    src = MODELS['method_getitem'] + '''
class AddToMul(torch.fx.Transformer):
    def call_function(self, target, args, kwargs):
        return super().call_function(operator.mul if target is operator.add else target, args, kwargs)
m = M(); gm = torch.fx.symbolic_trace(m); tm = AddToMul(gm).transform()
'''
    t, l = run_both(src)
    same_text(t['tm'].code, l['tm'].code)
    x = l['args'][0]; y = l['m'].lin(x).view(-1, 2, 3)
    np.testing.assert_allclose(np.asarray(l['tm'](x).detach()), np.asarray((y[:, 0] * (y.sum(dim=1) * 2) - 4).detach()), rtol=1e-6)

def test_replace_pattern_docs_example():
    t, l = run_both('''
class M(torch.nn.Module):
    def forward(self, x, w1, w2):
        val1 = torch.neg(w1)
        m1 = torch.cat([val1, w2]).sum()
        val2 = torch.neg(w1)
        m2 = torch.cat([val2, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)
def pattern(a1, a2):
    val1 = torch.neg(a1)
    return torch.cat([val1, a2]).sum()
def replacement(w1, w2):
    return torch.stack([w1, w2])
traced = torch.fx.symbolic_trace(M())
n = len(torch.fx.replace_pattern(traced, pattern, replacement))
''')
    assert t['n'] == l['n'] == 2
    same_text(t['traced'].code, l['traced'].code)

def test_graph_building_and_names():
    t, l = run_both('''
g = torch.fx.Graph()
x = g.placeholder('x'); s = g.call_method('sum', (x,)); s2 = g.call_function(torch.relu, (s,))
a = g.call_function(operator.add, (s2, s2)); a2 = g.call_function(operator.add, (a, 1))
with g.inserting_before(a): m = g.call_function(torch.max, (x,))
g.output((a2, m))
d = g.call_function(torch.neg, (x,))
g.erase_node(d)
g.lint()
names = [n.name for n in g.nodes]; code = g.python_code('self').src; text = str(g)
''')
    assert t['names'] == l['names']
    same_text(t['text'], l['text']); same_text(t['code'], l['code'])

def test_proxy_errors_match_torch():
    for src, exc in [('def f(x):\n    if x.sum() > 0: return x\n    return -x', 'TraceError'),
                     ('def f(x):\n    return [i for i in x]', 'TraceError'),
                     ('def f(x):\n    return len(x)', 'RuntimeError')]:
        errs = []
        for lib in (torch, litnn):
            ns = {'torch': lib}; exec(src, ns)
            with pytest.raises(Exception) as e: lib.fx.symbolic_trace(ns['f'])
            errs.append((type(e.value).__name__, str(e.value)))
        assert errs[0] == errs[1] and errs[0][0] == exc

def test_wrap_and_custom_tracer():
    t, l = run_both('''
def helper(x): return x * 2 if x.dim() else x
torch.fx.wrap('helper')
class M(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.relu = torch.nn.ReLU()
    def forward(self, x): return self.relu(helper(x)) + 1.0
class Lower(torch.fx.Tracer):
    def is_leaf_module(self, m, qn): return False if isinstance(m, torch.nn.ReLU) else super().is_leaf_module(m, qn)
gm = torch.fx.symbolic_trace(M()); g2 = Lower().trace(M())
''')
    same_text(t['gm'].code, l['gm'].code)
    same_text(t['g2'], l['g2'])

def test_namespaces_restored_after_failed_trace():
    relu, add = litnn.relu, litnn.Tensor.add
    def f(x):
        if x > 0: return x
    with pytest.raises(litnn.fx.proxy.TraceError): litnn.fx.symbolic_trace(f)
    assert litnn.relu is relu and litnn.Tensor.add is add

def test_graph_module_copy_and_state_dict():
    import copy, pickle
    _, l = run_both(MODELS['mlp'] + 'm = M(); gm = torch.fx.symbolic_trace(m)\n')
    gm, x = l['gm'], l['args'][0]
    assert sorted(gm.state_dict()) == sorted(l['m'].state_dict())
    for g2 in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm))):
        assert g2.code == gm.code
        np.testing.assert_allclose(np.asarray(g2(x).detach()), np.asarray(gm(x).detach()), rtol=1e-6)

def test_print_tabular_without_tabulate():
    try: import tabulate  # noqa
    except ImportError:
        with pytest.raises(ImportError): litnn.fx.symbolic_trace(lambda x: x + 1).graph.print_tabular()


def test_user_functions_are_named_by_their_module_after_litnns_are_rewrapped():
    """A wrapped user function is printed as `__main___name`, as torch's, also after litnn's public functions were
    replaced (a Tensor subclass turns on __torch_function__ dispatch) and their old objects freed: the table of public
    names must not take a new function for a freed one that had its id. In a fresh process (dispatch stays on)."""
    import subprocess, sys
    code = textwrap.dedent('''
        import litnn
        from litnn.fx import symbolic_trace, wrap
        symbolic_trace(lambda x: litnn.relu(x) + 1)          # fills the table of public names
        class T(litnn.Tensor): pass                          # rewraps litnn's functions; the old wrappers are freed
        import gc; gc.collect()
        names = set()
        for i in range(300):                                 # new functions, some at the freed objects' addresses
            exec(f"def f{i}(x): return x * 2", globals())
            wrap(f"f{i}")
            g = eval(f"lambda x: f{i}(x) + 1")
            names |= {n.name for n in symbolic_trace(g).graph.nodes if n.op == "call_function" and n.name != "add"}
            assert f'__main___f{i}(x)' in symbolic_trace(g).code, symbolic_trace(g).code
        print(len(names))''')
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=600)
    assert p.stdout.strip() == '300', p.stderr[-3000:]

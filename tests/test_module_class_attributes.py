"""A Module subclass keeping torch's functions as class attributes (`act = torch.tanh`, then `self.act(x)`): functions
torch writes in C++ are not bound as methods, those it writes in Python (F.relu) are, in litnn as in torch."""
import pytest
import litnn
torch = pytest.importorskip('torch')

def _program(lib):
    nn, F = lib.nn, lib.nn.functional
    class M(nn.Module):
        act, act2, gelu, lin, py = lib.tanh, lib.sigmoid, F.gelu, F.linear, F.relu
        def forward(self, x): return self.act(x) + self.act2(x) + self.gelu(x)
    x = lib.tensor([0.5, -1.0, 2.0])
    out = {'forward': M()(x).tolist(), 'linear': M().lin(x, lib.ones(2, 3)).tolist(), 'same': M().act is lib.tanh}
    try: M().py(x); out['py'] = 'ran'
    except Exception as e: out['py'] = type(e).__name__
    class Sub(M): act = lib.exp      # a subclass's own, too
    out['sub'] = Sub()(x).tolist()
    return out

def test_torch_functions_as_class_attributes():
    t, l = _program(torch), _program(litnn)
    assert t.keys() == l.keys() and t['py'] == l['py'] and t['same'] == l['same']
    for k in ('forward', 'linear', 'sub'): assert l[k] == pytest.approx(t[k], rel=1e-6)

@pytest.mark.parametrize('lib', [torch, litnn], ids=['torch', 'litnn'])
def test_default_activation_is_the_published_function(lib):
    "A default argument bound when litnn's class was made is the object `import litnn as torch` users see (F.relu)"
    F = lib.nn.functional
    assert lib.nn.TransformerEncoderLayer(8, 2).activation is F.relu
    assert lib.nn.TransformerDecoderLayer(8, 2).activation is F.relu

def test_default_activation_after_dispatch_is_switched_on():
    "Once a Tensor subclass switches __torch_function__ dispatch on (F.relu gets its dispatch wrapper), defaults follow"
    import subprocess, sys
    code = ("import litnn\nclass M(litnn.Tensor): pass\nF = litnn.nn.functional\n"
            "print(litnn.nn.TransformerEncoderLayer(8, 2).activation is F.relu, litnn._segment_reduce is litnn.segment_reduce)")
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split() == ['True', 'True']

"""Helpers for the side-by-side tests of `litnn.nn` against `torch.nn`: one piece of code, run on both.

The stand-in modules are written once and built on each library's `nn.Module`, so their class
names, attribute names and `extra_repr` are the same in both; only the library differs."""
from types import SimpleNamespace


def norm(s):
    "Text from torch with torch's names written as litnn's (`torch.FloatTensor` -> `litnn.FloatTensor`)."
    return s.replace('torch', 'litnn')


def exc(e):
    "An exception as (type, message), the message in litnn's names (KeyError's unquoted)."
    return type(e), norm(str(e.args[0]) if e.args else '')


def err(f, *args, **kwargs):
    "The exception `f(*args, **kwargs)` raises, as (type, message)."
    try: f(*args, **kwargs)
    except Exception as e: return exc(e)
    raise AssertionError(f'{f} raised nothing')


def same(f):
    "Run `f(lib)` on litnn and on torch; assert the results are equal and return litnn's."
    import litnn, torch
    a, b = f(litnn), f(torch)
    assert a == b, f'litnn: {a!r}\ntorch: {b!r}'
    return a


def stand_ins(lib):
    "Small modules with torch's names and reprs, subclassing `lib.nn.Module`."
    nn = lib.nn

    class Linear(nn.Module):
        def __init__(self, in_features, out_features, bias=True):
            super().__init__()
            self.in_features, self.out_features = in_features, out_features
            self.weight = nn.Parameter(lib.zeros(out_features, in_features))
            if bias: self.bias = nn.Parameter(lib.zeros(out_features))
            else: self.register_parameter('bias', None)
        def extra_repr(self):
            return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"

    class Scale(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
        def forward(self, x): return x * self.k
        def extra_repr(self): return f"k={self.k}"

    class Norm(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.weight = nn.Parameter(lib.ones(n))
            self.register_buffer('running_mean', lib.zeros(n))
            self.register_buffer('num_batches_tracked', lib.tensor(0))
            self.register_buffer('cache', lib.zeros(n), persistent=False)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = Linear(4, 3)
            self.norm = Norm(3)
            self.fc2 = Linear(3, 2, bias=False)
            self.register_buffer('steps', lib.zeros(1))

    class Deep(nn.Module):
        "A tree with a shared submodule, a shared parameter, an empty slot and a multi-line extra_repr."
        def __init__(self):
            super().__init__()
            self.net = Net()
            self.head = Linear(2, 2)
            self.again = self.net.fc1          # the same module under a second name
            self.register_module('missing', None)
            self.tied = Linear(4, 3)
            self.tied.weight = self.net.fc1.weight
        def extra_repr(self): return "depth=2\nwidth=4"

    return SimpleNamespace(lib=lib, nn=nn, Linear=Linear, Scale=Scale, Norm=Norm, Net=Net, Deep=Deep)

"""The torch path decides the file (CONTRIBUTING.md): every public name litnn shares with PyTorch 2.13 that torch defines
in Python is defined at torch's path (`litnn_obj.__module__` is torch's with `torch` -> `litnn`), and litnn's modules
import each other without cycles; a name torch implements in C++ is in the group file `tools/missing_names.py` gives it.
Measured by `python -m pytest tests/test_torch_paths.py -s` (it prints the counts)."""
import ast, importlib, inspect, sys, warnings
from pathlib import Path
import pytest

torch = pytest.importorskip('torch')
import litnn

ROOT = Path(__file__).resolve().parent.parent

# torch's namespaces whose public names litnn shares (walked for names; each name is judged by its own __module__)
NAMESPACES = ['', 'nn', 'nn.functional', 'nn.init', 'nn.modules', 'nn.parameter', 'nn.utils', 'nn.utils.rnn', 'nn.utils.parametrize',
              'nn.utils.parametrizations', 'nn.utils.prune', 'nn.utils.stateless', 'nn.parallel', 'nn.attention', 'optim',
              'optim.lr_scheduler', 'optim.swa_utils', 'autograd', 'autograd.graph', 'autograd.functional', 'autograd.grad_mode',
              'autograd.function', 'autograd.profiler', 'autograd.profiler_util', 'profiler.profiler', 'hub', 'distributions', 'distributions.constraints', 'distributions.transforms', 'distributions.kl',
              'distributions.constraint_registry', 'utils.data', 'utils.hooks', 'utils.checkpoint', 'utils.dlpack', 'utils.tensorboard',
              'linalg', 'special', 'func', 'distributed', 'multiprocessing', 'testing', 'amp', 'cpu', 'cuda', 'random', 'backends',
              'onnx', 'serialization', 'fft', 'masked', 'sparse', 'nested', 'profiler', 'compiler', 'accelerator', 'jit', 'library']

def shared_names():
    "(where, litnn object, torch's module) for each public class or function litnn shares with torch, once per object."
    warnings.simplefilter('ignore')
    seen, out = set(), []
    for ns in NAMESPACES:
        try:
            t = importlib.import_module('torch' + ('.' + ns if ns else ''))
            l = importlib.import_module('litnn' + ('.' + ns if ns else ''))
        except ImportError: continue
        for name in sorted(dir(t)):
            if name.startswith('_') or not hasattr(l, name): continue
            to, lo = getattr(t, name, None), getattr(l, name)
            if not (inspect.isclass(to) or inspect.isfunction(to)): continue
            tm = getattr(to, '__module__', None)
            if not isinstance(tm, str) or not tm.startswith('torch') or tm.startswith('torch._C'): continue
            if (id(lo), name) in seen: continue
            seen.add((id(lo), name))
            out.append((f"{'torch.' + ns if ns else 'torch'}.{name}", lo, tm))
    return out

def misplaced():
    return sorted({f"{where} {getattr(lo, '__module__', None)} -> {'litnn' + tm[5:]}" for where, lo, tm in shared_names()
                   if getattr(lo, '__module__', None) != 'litnn' + tm[5:]})

def test_names_are_at_torchs_path():
    names = shared_names()
    wrong = misplaced()
    print(f"\n{len(names) - len(wrong)} of {len(names)} shared names are defined at torch's path; {len(wrong)} are not")
    assert wrong == [], 'defined away from torch\'s path (see CONTRIBUTING.md):\n' + '\n'.join(wrong)

def imports_of(path, package):
    """The litnn modules a file imports, anywhere in it: an import deferred into a function body is how a cycle is
    usually hidden, so it counts as one."""
    tree, found = ast.parse(path.read_text(encoding='utf-8')), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import): found |= {a.name for a in node.names if a.name.split('.')[0] == 'litnn'}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')[:len(package.split('.')) - node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            if base.split('.')[0] != 'litnn': continue
            found.add(base)
            found |= {f'{base}.{a.name}' for a in node.names}     # `from . import x` imports the module x
    return found

def import_graph():
    files = {}
    for p in (ROOT/'litnn').rglob('*.py'):
        rel = p.relative_to(ROOT).with_suffix('')
        mod = '.'.join(rel.parts[:-1] if rel.name == '__init__' else rel.parts)
        files[mod] = (p, mod if rel.name == '__init__' else mod.rsplit('.', 1)[0])
    # a module's own packages are imported before it by Python itself: those edges are no cycle of litnn's making
    def ancestor(i, m): return m.startswith(i + '.')
    return {m: {i for i in imports_of(p, pkg) if i in files and i != m and not ancestor(i, m)} for m, (p, pkg) in files.items()}

def cycles(graph):
    "The strongly connected components of more than one module (Tarjan's algorithm)."
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop(); on.discard(w); comp.add(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index: visit(v)
    return sorted(out)

def test_no_import_cycles():
    "No litnn module imports, directly or through others, a module that imports it (imports inside functions count)."
    found = cycles(import_graph())
    print(f"\n{len(found)} import cycles, through {sum(map(len, found))} modules")
    assert found == [], 'import cycles (see CONTRIBUTING.md):\n' + '\n'.join(' '.join(c) for c in found)

GROUPS = ['_tensor', '_creation', '_conversions', '_views', '_pointwise', '_indexing', '_reductions', '_products', '_sorting',
          '_random', '_nn_ops']

def test_cpp_names_are_in_their_group_file():
    "A name torch implements in C++ (a torch function or Tensor method) defined in a group file is in the file of its group."
    sys.path.insert(0, str(ROOT/'tools'))
    from missing_names import group
    checked, wrong = 0, []
    for g in GROUPS:
        m = importlib.import_module(f'litnn.{g}')
        for name, o in vars(m).items():
            if name.startswith('_') or not inspect.isfunction(o) or o.__module__ != m.__name__: continue
            method = not hasattr(torch, name) or inspect.ismodule(getattr(torch, name))   # Tensor.storage, not torch.storage
            if method and not hasattr(torch.Tensor, name): continue       # litnn's own (gelu, leaky_relu: nn.functional's)
            checked += 1
            if group(name, method) != g: wrong.append(f'{name}: in litnn/{g}.py, its group is litnn/{group(name, method)}.py')
    print(f"\n{checked - len(wrong)} of {checked} C++ names are in their group's file")
    assert wrong == [], '\n'.join(wrong)

"""The torch path decides the file (CONTRIBUTING.md): every public name litnn shares with PyTorch 2.13 that torch defines
in Python is defined at torch's path (`litnn_obj.__module__` is torch's with `torch` -> `litnn`), and litnn's modules
import each other without cycles.

The move is under way (issue 26): `tests/data/torch_paths_todo.txt` lists the names still elsewhere and
`tests/data/import_cycles_todo.txt` the import cycles still there. Both may only shrink: a name that moves must leave the list (the test
fails on a stale entry), and no new name or cycle may join it."""
import ast, importlib, inspect, sys, warnings
from pathlib import Path
import pytest

torch = pytest.importorskip('torch')
import litnn

ROOT = Path(__file__).resolve().parent.parent
TODO = ROOT/'tests'/'data'/'torch_paths_todo.txt'

# torch's namespaces whose public names litnn shares (walked for names; each name is judged by its own __module__)
NAMESPACES = ['', 'nn', 'nn.functional', 'nn.init', 'nn.modules', 'nn.parameter', 'nn.utils', 'nn.utils.rnn', 'nn.utils.parametrize',
              'nn.utils.parametrizations', 'nn.utils.prune', 'nn.utils.stateless', 'nn.parallel', 'nn.attention', 'optim',
              'optim.lr_scheduler', 'optim.swa_utils', 'autograd', 'autograd.graph', 'autograd.functional', 'autograd.grad_mode',
              'autograd.function', 'distributions', 'distributions.constraints', 'distributions.transforms', 'distributions.kl',
              'distributions.constraint_registry', 'utils.data', 'utils.hooks', 'utils.checkpoint', 'utils.tensorboard',
              'linalg', 'special', 'func', 'distributed', 'multiprocessing', 'testing', 'amp', 'cuda', 'random', 'backends',
              'onnx', 'serialization', 'fft', 'masked', 'sparse', 'nested', 'profiler', 'compiler', 'accelerator', 'jit']

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
    todo = [l for l in TODO.read_text().splitlines() if l.strip()] if TODO.exists() else []
    new = sorted(set(wrong) - set(todo))
    assert new == [], 'defined away from torch\'s path (see CONTRIBUTING.md):\n' + '\n'.join(new)
    stale = sorted(set(todo) - set(wrong))
    assert stale == [], 'now at torch\'s path: remove from tests/data/torch_paths_todo.txt:\n' + '\n'.join(stale)

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

def test_no_new_import_cycles():
    "The modules caught in an import cycle may only be fewer than those listed in tests/data/import_cycles_todo.txt."
    found = cycles(import_graph())
    print(f"\n{len(found)} import cycles, through {sum(map(len, found))} modules")
    caught = {m for c in found for m in c}
    allowed = {l.strip() for l in (ROOT/'tests'/'data'/'import_cycles_todo.txt').read_text().splitlines() if l.strip()}
    new = [c for c in found if not set(c) <= allowed]
    assert new == [], 'import cycles (see CONTRIBUTING.md):\n' + '\n'.join(' '.join(c) for c in new)
    assert sorted(allowed - caught) == [], 'no longer in a cycle: remove from tests/data/import_cycles_todo.txt'

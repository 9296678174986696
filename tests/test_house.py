"""The house rules that a reader of litnn's code relies on, checked on the exported package:

- one definition per method: a method of a class (in its body, or `@patch`ed on from any notebook) is defined once.
  The only exception is a simpler stand-in that an early part needs before the real method exists: the stand-in
  says so on its line ("stand-in") and the method is private;
- one class per name: two classes of the same name in two files would read as copies with small variations;
- a module imports what it uses, by name, from the module that defines it (relative imports in the package), not the
  whole package: `import litnn` and then `litnn.something` hides where a name comes from and what loads first.
"""
import ast, sys
from collections import defaultdict
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent/'litnn'


def _files(): return [f for f in sorted(PKG.rglob('*.py')) if f.name != '_modidx.py']


TORCH_NAMESAKES = {'Stream', 'Event',   # torch.Stream, torch.Event (C++) and torch.cpu.Stream, torch.cpu.Event (Python)
                   'profile'}   # torch.autograd.profiler.profile and torch.profiler.profile
TORCH_NAMESAKES |= {'StreamContext',   # torch.cpu.StreamContext and torch.cuda.StreamContext
                    'device'}          # torch.device and torch.cuda.device (a context manager)
TORCH_NAMESAKES |= {'CrossMapLRN2d'}    # torch.nn.CrossMapLRN2d (a Module) and torch.nn.modules._functions.CrossMapLRN2d (its Function)
TORCH_NAMESAKES |= {'Linear', 'Conv2d', 'ReLU6', 'LSTM', '_ConvNd', 'GRU', 'LSTMCell', 'GRUCell', 'RNNCell', 'Embedding', 'EmbeddingBag', 'LayerNorm', 'GroupNorm', '_ConvTransposeNd'}   # torch.nn's float layers and torch.ao.nn.quantized's (and .dynamic's) quantized ones
TORCH_NAMESAKES |= {'Node', 'Transformer'}   # torch.autograd.graph.Node and torch.fx.Node; torch.nn.Transformer and torch.fx.Transformer


def _method_definitions():
    "(class name, method name) -> [(file, line, source line)] for class bodies and `@patch`ed functions."
    defs = defaultdict(list)
    for f in _files():
        text = f.read_text(encoding='utf-8')
        lines, tree = text.splitlines(), ast.parse(text)
        for n in tree.body:
            # a subclass that keeps its base's name under an older path (torch.cuda.amp.autocast of torch.amp.autocast) is
            # a class of its own, not a copy
            if isinstance(n, ast.ClassDef) and any(ast.unparse(b).split('.')[-1] == n.name for b in n.bases): continue
            if isinstance(n, ast.ClassDef):
                for m in n.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(
                            'setter' in ast.unparse(d) or 'deleter' in ast.unparse(d) for d in m.decorator_list):
                        defs[(f'{f.relative_to(PKG)}:{n.name}', m.name)].append((f, m.lineno, lines[m.lineno - 1]))
            elif isinstance(n, ast.FunctionDef) and any('patch' in ast.unparse(d) for d in n.decorator_list):
                ann = n.args.args[0].annotation if n.args.args else None
                if ann is None: continue
                for cls in ast.unparse(ann).strip('()').split('|'):
                    defs[(cls.strip(), n.name)].append((f, n.lineno, lines[n.lineno - 1]))
    # a class body and @patch onto the same class meet under the class's plain name, except torch's own namesakes: classes
    # torch itself defines twice, unrelated (torch.Stream and torch.cpu.Stream), keep their file
    merged = defaultdict(list)
    for (cls, name), where in defs.items(): merged[(cls if cls.split(':')[-1] in TORCH_NAMESAKES else cls.split(':')[-1], name)] += where
    return merged


def test_each_method_is_defined_once():
    twice = {}
    for (cls, name), where in _method_definitions().items():
        if len({(f, line) for f, line, _ in where}) < 2: continue
        if len({f for f, _, _ in where}) < 2: continue                   # one file: a property's getter and setter
        earlier = sorted(where, key=lambda w: (w[0] != where[0][0], w[1]))[:-1]
        if not name.startswith('_') or name.startswith('__') and name.endswith('__'):
            twice[f'{cls}.{name}'] = [f'{f.relative_to(PKG)}:{line}' for f, line, _ in where]
        elif not any('stand-in' in src for _, _, src in where):
            twice[f'{cls}.{name}'] = [f'{f.relative_to(PKG)}:{line}' for f, line, _ in where]
    assert twice == {}, f'methods defined more than once (define each once, or mark a private stand-in): {twice}'


def test_a_stand_in_is_replaced_by_the_real_method():
    "The stand-in is the first definition loaded; the class ends up with the later, real one."
    import litnn
    assert litnn.nn.Module._call_impl.__module__ == 'litnn.nn.modules.hooks'


def test_the_checker_finds_a_method_defined_twice(tmp_path, monkeypatch):
    "The rule's check fails on a package where a public method is defined in two files."
    pkg = tmp_path/'litnn'; pkg.mkdir()
    (pkg/'a.py').write_text('class T:\n    def reshape(self): pass\n')
    (pkg/'b.py').write_text('@patch\ndef reshape(self:T): pass\n')
    monkeypatch.setattr(sys.modules[__name__], "PKG", pkg)
    import pytest
    with pytest.raises(AssertionError, match='T.reshape'): test_each_method_is_defined_once()


# Modules that may `import litnn`, and why.
IMPORTS_THE_PACKAGE = {
    'training.py': 'a user program (trains a model as a script would)',
    'train.py': 'a user program (trains a model as a script would)',
    'onnx/tracing.py': "the package itself is what is patched while tracing: user code calls `torch.eq(...)`",
    'fx/_symbolic_trace.py': "a trace patches the package's namespaces: traced code calls `torch.relu(...)`",
    '_VF.py': "`torch._VF.X` is torch's own function X, bound from C++: a name is looked up in the package's namespace",
    'fx/graph.py': "generated code reaches functions as `torch.relu`: the package is its global `torch`",
    'fx/graph_module.py': "`to_folder` writes a module that imports the package, and what it writes is read from it",
    'utils/benchmark/utils/timer.py': "a timed statement's global `torch` is the package (as torch's Timer gives it torch)",
}


def _package_imports():
    "{file: [line]} of `import litnn` (at module level or in a function) in the package's modules."
    found = defaultdict(list)
    for f in _files():
        for n in ast.walk(ast.parse(f.read_text(encoding='utf-8'))):
            if isinstance(n, ast.Import) and any(a.name == 'litnn' for a in n.names):
                found[f.relative_to(PKG).as_posix()].append(n.lineno)
    return dict(found)


def test_modules_import_names_not_the_package():
    extra = {f: lines for f, lines in _package_imports().items() if f not in IMPORTS_THE_PACKAGE}
    assert extra == {}, f'modules that `import litnn` (import each name from the module that defines it): {extra}'


def test_the_allow_list_of_package_imports_is_current():
    "A module that no longer imports the package leaves the list."
    assert set(IMPORTS_THE_PACKAGE) <= set(_package_imports()), set(IMPORTS_THE_PACKAGE) - set(_package_imports())


def test_the_checker_finds_a_package_import(tmp_path, monkeypatch):
    pkg = tmp_path/'litnn'; (pkg/'nn').mkdir(parents=True)
    (pkg/'nn'/'a.py').write_text('def f():\n    import litnn\n    return litnn.zeros(1)\n')
    (pkg/'b.py').write_text('from .nn import a\nimport litnn.nn as nn\n')     # names from a module: allowed
    monkeypatch.setattr(sys.modules[__name__], "PKG", pkg)
    import pytest
    with pytest.raises(AssertionError, match="'nn/a.py': \\[2\\]"): test_modules_import_names_not_the_package()

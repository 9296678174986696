"""Print the tables `_PARSER_TYPES` (and `_NN_PARSER_TYPES`, `_PARSER_ARITY`, `_PARSER_POSITIONAL`, `_PARSER_SIGNATURES`,
`_F_CPP`) of reference/torch/with_numpy_argument_names from the type stubs of an installed torch
(`torch/_C/__init__.pyi` for Tensor methods, `torch/_C/_VariableFunctions.pyi` for functions): the arguments that every
overload of a name types as `Tensor` or as an int, for the names litnn has. Run beside torch and litnn:
`python tools/parser_types.py`, then paste each table into the notebook cell that defines it."""
import ast, builtins, collections, inspect, os, pprint, types
import torch, litnn

# functions torch binds by hand (torch/csrc/autograd/python_torch_functions_manual.cpp, tensor_new.cpp): they read
# their arguments themselves (lists, arrays, numbers), whatever the stubs say
_MANUAL = {'sparse_coo_tensor', 'sparse_csr_tensor', 'sparse_csc_tensor', 'sparse_bsr_tensor', 'sparse_bsc_tensor',
           'sparse_compressed_tensor', 'tensor', 'as_tensor', 'asarray', 'from_numpy', 'frombuffer', 'range',
           'set_num_threads', 'set_num_interop_threads', 'set_flush_denormal'}   # (torch/csrc/Module.cpp: "expects an int, but got float")
# names torch binds by hand with one signature (python_torch_functions_manual.cpp, python_variable_methods.cpp: nonzero's
# `as_tuple`), whatever overloads the stubs list: a wrong argument is explained for that one signature
_ONE_SIGNATURE = {'nonzero'}
# the signatures of tools/autograd/deprecated.yaml (their argument names, a method's without self): torch's parser marks
# them hidden, so print_error does not count them when it picks the one signature whose error it reports
_DEPRECATED = {'add': [('self', 'alpha', 'other')], 'sub': [('self', 'alpha', 'other')],
               'addcdiv': [('self', 'value', 'tensor1', 'tensor2')], 'addcmul': [('self', 'value', 'tensor1', 'tensor2')],
               **{n: [('beta', 'self', 'alpha', a, b), ('beta', 'self', a, b)] for n, a, b in
                  (('addbmm', 'batch1', 'batch2'), ('baddbmm', 'batch1', 'batch2'), ('addmm', 'mat1', 'mat2'),
                   ('sspaddmm', 'mat1', 'mat2'), ('addmv', 'mat', 'vec'), ('addr', 'vec1', 'vec2'))}}

def _deprecated(name, overload, method):
    "Whether `overload` (of `_overloads`) is one of torch's deprecated signatures of `name`."
    names = tuple(a for a, _, p in overload if p is not None)
    return builtins.any(names == tuple(n for n in sig if not (method and n == 'self')) for sig in _DEPRECATED.get(name.rstrip('_'), ()))
# methods torch binds by hand (torch/csrc/autograd/python_variable_methods.cpp) whose stubs omit their one argument:
# `float(*, MemoryFormat? memory_format=None)`
_CONVERSIONS = {'bfloat16', 'bool', 'byte', 'cdouble', 'cfloat', 'chalf', 'char', 'double', 'float', 'half', 'int', 'long', 'short'}
# methods torch binds by hand whose stub names their argument otherwise than the binding (python_variable_methods.cpp:
# "requires_grad_(bool requires_grad=True)"; the stub says `mode`), as (overloads) for _overloads' table
_HAND_BOUND = {'requires_grad_': [([('requires_grad', '_bool', 1)], (0, 1), 1)]}
_INTS = {'_int', '_int | SymInt', 'SymInt | _int', 'SymInt'}
_NUMBERS = {'Number | _complex', 'Number', '_complex'}
_SCALARS = _NUMBERS | {'Tensor', '_float', '_int', '_bool'}     # a number, or a tensor where some signature takes one
_FORMATS = {'torch.memory_format', 'memory_format | None', 'torch.memory_format | None'}   # ('M?': None too)
_GENERATORS = {'Generator | None', 'Generator'}      # ('G?': torch's parser takes None for a generator in every signature)

def _overloads(path, cls=None):
    "name -> list of overloads, each a list of (argument, annotation, position from 1 after self, or None if keyword-only)."
    tree = ast.parse(open(path).read())
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body if cls else tree.body
    out = collections.defaultdict(list)
    for n in body:
        if not isinstance(n, ast.FunctionDef): continue
        pos = n.args.posonlyargs + n.args.args
        defaults = dict(zip([a.arg for a in pos][len(pos) - len(n.args.defaults):], n.args.defaults))
        defaults.update((a.arg, d) for a, d in zip(n.args.kwonlyargs, n.args.kw_defaults) if d is not None)
        if cls: pos = pos[1:]
        # (an int list whose default is empty takes None for it: torch.amax(x, None), avg_pool1d(x, 2, None))
        ann = lambda a: (ast.unparse(a.annotation) + ' | None' * (ast.unparse(defaults[a.arg]) == '()' if a.arg in defaults else False)
                         if a.annotation else None)
        required = len(pos) - len(n.args.defaults) + sum(d is None for d in n.args.kw_defaults)
        kw = [a for a in pos if a.arg == 'memory_format']     # keyword-only in every signature of torch's (the stubs of
        pos = [a for a in pos if a.arg != 'memory_format']    # cpu, contiguous, is_contiguous write it by position)
        sig = [(a.arg, ann(a), i + 1) for i, a in enumerate(pos)] + [(a.arg, ann(a), None) for a in kw + n.args.kwonlyargs]
        out[n.name].append((sig, (required, len(sig)), None if n.args.vararg else len(pos)))
    return out

def _same_signature(sig):
    "What tells one of the parser's signatures from another: the stubs write some twice, for ints and for SymInts."
    norm = lambda a: (a or '').replace(' | None', '').replace('Sequence[_int | SymInt]', '_size').replace('_int | SymInt', '_int')
    return frozenset((n, norm(a)) for n, a, _ in sig)

_LISTS, _INT_OR_LISTS = {'_size', 'Sequence[_int | SymInt]'}, {'_int | _size', '_int | SymInt | Sequence[_int | SymInt]'}

def _int_list_kind(a):
    "'I' for an int list (`int[]`: one int alone refused), 'I1' for a list or one int (`int[1]`), '?' added where None is taken."
    bare = {x.replace(' | None', '') for x in a}
    kind = 'I' if bare <= _LISTS else 'I1' if bare <= _INT_OR_LISTS else None
    return kind and kind + '?' * any(x.endswith(' | None') for x in a)

def _typed(ovs):
    """{argument: (kind, position)} for arguments every overload has and types alike: 'T' a Tensor ('T?': or None), 'i' an int, 'f' a
    float, 'S' a number (a Scalar: a 0-d tensor outside the graph too), 'n' a number or a Tensor where a signature takes
    one, 'b' a bool ('b?': or None), 'M' a memory format
    ('M?': or None), 'G?' a torch.Generator or None, 'L' a list of Tensors, 'I' a list of ints ('I1': or one int; '?': or None); the position (from 1) they all give it, 0 if they differ or take it by keyword only."""
    seen, anns, poss = collections.Counter(), collections.defaultdict(set), collections.defaultdict(set)
    ovs = [o for o, *_ in ovs]
    for o in ovs:
        for name, a, p in o: seen[name] += 1; anns[name].add(a); poss[name].add(p)
    out = {}
    for name, a in anns.items():
        if seen[name] != len(ovs) or name in ('self', 'reduction'): continue   # (reduction: an int in C++, nn.functional's string)
        kind = ('T' if a == {'Tensor'} else 'T?' if a <= {'Tensor', 'Tensor | None'} else 'i' if a <= _INTS else 'i?' if a <= _INTS | {x + ' | None' for x in _INTS} else 'f' if a == {'_float'} else 'S' if a <= _SCALARS - {'Tensor'} and a & _NUMBERS
                else 'n' if a <= _SCALARS and a & _NUMBERS
                else 'b' if a == {'_bool'} else 'b?' if a <= {'_bool', '_bool | None'} else 'M' if a == {'torch.memory_format'}
                else 'M?' if a <= _FORMATS else 'G?' if a <= _GENERATORS else 'L' if a == {'tuple[Tensor, ...] | list[Tensor]'} else _int_list_kind(a))
        if kind: out[name] = (kind, poss[name].pop() if len(poss[name]) == 1 and None not in poss[name] else 0)
    return out

def _positional(f, method):
    "How many arguments litnn's `f` takes by position (a method's self not counted); None for any number."
    ps = list(inspect.signature(f).parameters.values())[method:]
    if any(p.kind is p.VAR_POSITIONAL for p in ps): return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in ps)

def table():
    """`_PARSER_TYPES`; `_PARSER_ARITY`: for a name of several signatures, each one's (required, all) count of
    arguments, which torch's parser uses to pick the signature whose error it reports; `_PARSER_POSITIONAL`: for a
    name whose litnn function takes more arguments by position than any signature of torch's, each signature's
    (required, all, by position) counts."""
    d = os.path.dirname(torch.__file__)
    meth, func = _overloads(f'{d}/_C/__init__.pyi', 'TensorBase'), _overloads(f'{d}/_C/_VariableFunctions.pyi')
    for name in _CONVERSIONS: meth[name] = [([('memory_format', 'torch.memory_format | None', None)], (0, 1), 0)]
    meth.update(_HAND_BOUND)
    out, arity, positional = {}, {}, {}
    for kind, ovs, obj in (('m', meth, litnn.Tensor), ('f', func, litnn)):
        for name in sorted(ovs):
            if name.startswith('_') or not hasattr(obj, name) or name in _MANUAL: continue
            f = inspect.unwrap(getattr(obj, name))
            t = _typed(ovs[name])
            sigs = {_same_signature(o): (a, p) for o, a, p in ovs[name]}
            most = max((p for _, p in sigs.values()), default=None) if all(p is not None for _, p in sigs.values()) else None
            python = isinstance(getattr(torch.Tensor if kind == 'm' else torch, name, None), types.FunctionType)  # (its own signature)
            try: loose = not python and most is not None and (n := _positional(f, kind == 'm')) is not None and n > most or most is not None and n is None
            except (TypeError, ValueError): loose = False
            if loose: positional[(kind, name)] = tuple(sorted(a + (p,) for a, p in sigs.values()))
            if t: out[(kind, name)] = t
            shown = {_same_signature(o): a for o, a, p in ovs[name] if not _deprecated(name, o, kind == 'm')}
            if (t or loose) and len(sigs) > 1 and name not in _ONE_SIGNATURE: arity[(kind, name)] = tuple(sorted(shown.values()))
    return out, arity, positional

_YAML_KINDS = {'Tensor': 'T', 'Tensor?': 'T?', 'Scalar': 'S', 'int': 'i', 'SymInt': 'i', 'float': 'f', 'bool': 'b', 'bool?': 'b?'}

def nn_table(ops):
    """`_NN_PARSER_TYPES`: for the `torch._C._nn` functions `ops` (those nn.functional's Python functions call), each argument's
    (kind, position from 1; 0 keyword-only) from their C++ signatures in ATen's native_functions.yaml (torchgen's copy,
    installed with torch; the stub `_C/_nn.pyi` is written by hand). An int list with a size (`int[2]`) also takes one int
    ('I1'), one with a default of `[]` also None ('?'); `self` is the parser's `input`."""
    import re, torchgen
    path = os.path.join(os.path.dirname(torchgen.__file__), 'packaged/ATen/native/native_functions.yaml')
    sigs = {m[1]: m[2] for m in re.finditer(r'^- func: ([a-z0-9_]+)\((.*)\) ->', open(path).read(), re.M)}
    out = {}
    for op in sorted(ops):
        args, pos, t = [a.strip() for a in sigs[op].split(',') if a.strip()], 1, {}
        for a in args:
            if a == '*': pos = None; continue
            ann, name = a.split('=')[0].split()
            default = a.split('=')[1] if '=' in a else None
            if m := re.fullmatch(r'(?:int|SymInt)\[(\d*)\](\?)?', ann): kind = ('I1' if m[1] else 'I') + '?' * bool(m[2] or default == '[]')
            else: kind = _YAML_KINDS.get(ann)
            if kind: t['input' if name == 'self' else name] = (kind, pos or 0)
            if pos: pos += 1
        out[op] = t
    return out

# signatures of torch's parser that torchgen does not make: functions bound by hand (python_torch_functions_manual.cpp:
# range), and Python functions of torch that hand every argument to the C++ function of their name (torch.cdist's
# compute_mode is turned into an int first: its own check, any object here)
_MANUAL_SIGNATURES = {('f', 'range'): ('range(Scalar start, Scalar end, Scalar step=1, *, Tensor out=None, ScalarType? dtype=None, '
                                       'Layout layout=torch.strided, Device? device=None, bool requires_grad=False)',),
                      ('f', 'cdist'): ('cdist(Tensor x1, Tensor x2, double p=2, PyObject* compute_mode=None)',)}

def signatures():
    """`_PARSER_SIGNATURES`: for a function or method litnn shares with torch that torch's parser binds with several
    signatures (and those of `_MANUAL_SIGNATURES`), the signature strings its parser holds, in its order (`|deprecated` marks a hidden one). They are made
    as torch's build makes them (torchgen's gen_python_functions, shipped with torch: native_functions.yaml grouped with
    its out= variants, deprecated.yaml, sorted), so the listing of an invalid combination is torch's text."""
    import torchgen
    from torchgen.gen import parse_native_yaml
    from torchgen.packaged.autograd import gen_python_functions as g
    d = os.path.dirname(torchgen.__file__) + '/packaged'
    nf = [f for f in parse_native_yaml(f'{d}/ATen/native/native_functions.yaml', f'{d}/ATen/native/tags.yaml').native_functions
          if g.should_generate_py_binding(f)]
    out = {}
    for kind, obj, tobj, method, pred in (('m', litnn.Tensor, torch.Tensor, True, g.is_py_variable_method),
                                           ('f', litnn, torch, False, g.is_py_torch_function)):
        pairs = g.load_signatures(nf, f'{d}/autograd/deprecated.yaml', method=method)
        for name, ovs in g.group_filter_overloads(pairs, pred).items():
            name = str(name)
            if name.startswith('_') or not hasattr(obj, name) or name in _MANUAL or name in _ONE_SIGNATURE: continue
            if isinstance(getattr(tobj, name, None), types.FunctionType): continue     # (Python in torch: its own signature)
            sigs = [o.signature.signature_str(symint=True) for o in g.sort_overloads(g.group_overloads(ovs, symint=True), symint=True)]
            if len(sigs) > 1: out[(kind, name)] = tuple(sigs)
    return {**out, **_MANUAL_SIGNATURES}

def f_cpp():
    """`_F_CPP`: nn.functional's names that torch binds from C++ (torch._C._nn's, or torch's own) and litnn writes in its
    nn.functional: a call all `__torch_function__`s decline is worded by torch's C++ dispatcher, under the name torch
    gives it there (`F.logsigmoid` is `torch._C._nn.log_sigmoid`: 'nn.log_sigmoid')."""
    out = {}
    for name in dir(litnn.nn.functional):
        ours, theirs = getattr(litnn.nn.functional, name), getattr(torch.nn.functional, name, None)
        if name.startswith('_') or not callable(theirs) or isinstance(theirs, (type, types.FunctionType)): continue
        if getattr(inspect.unwrap(ours), '__module__', None) != 'litnn.nn.functional': continue
        out[name] = ('nn.' if theirs.__module__ == 'torch._C._nn' else '') + theirs.__name__
    return out

if __name__ == '__main__':
    from litnn._python_arg_parser import _FUNCTIONAL_CALLS
    print('_NN_PARSER_TYPES = ' + pprint.pformat(nn_table({op for side, op, _ in _FUNCTIONAL_CALLS.values() if side == 'nn'}), width=120, compact=True))
    kinds, arity, positional = table()     # (not `types`: signatures() below reads the module)
    print('_PARSER_TYPES = ' + pprint.pformat(kinds, width=120, compact=True))
    print('_PARSER_ARITY = ' + pprint.pformat(arity, width=120, compact=True))
    print('_PARSER_POSITIONAL = ' + pprint.pformat(positional, width=120, compact=True))
    print('_PARSER_SIGNATURES = ' + pprint.pformat(signatures(), width=120, compact=True))
    print('_F_CPP = ' + pprint.pformat(f_cpp(), width=120, compact=True))

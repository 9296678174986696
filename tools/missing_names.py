"""Public names of torch and torch.Tensor that litnn lacks, each with the file it belongs in:
`python tools/missing_names.py [--all]`; `--count` prints, per namespace, how many of torch's public names litnn lacks.

Where a name goes is CONTRIBUTING.md's rule: a name torch defines in Python goes to torch's path (`torch.a.b.X` ->
`litnn/a/b.py`); a name torch implements in C++ goes to the private file of its group, as torch's own Python
references (`torch/_refs/__init__.py`, whose `__all__` is sectioned by group) would place it: `_pointwise`,
`_reductions`, `_views`, `_creation`, `_products`, `_conversions`, plus `_indexing`, `_sorting`, `_random` and `_nn_ops`
(torch's top-level neural-network operators, `torch/_refs/nn/functional`) for the groups `_refs/__init__.py` leaves out. By default the families litnn does not model (sparse, quantized, complex views, storages,
other devices' kernels, symbolic shapes) are left out; `--all` lists everything."""
import inspect, re, sys
import torch, litnn

SKIP = re.compile(r'sparse|quantiz|q_|quant|qparams|qscheme|int_repr|dequantize|_indices|indices$|values$|storage|'
                  r'stft|istft|cudnn|miopen|mkldnn|fbgemm|mps|xpu|ipu|mtia|xla|vulkan|sym_|autocast|_copy$|coalesce|'
                  r'to_dense|to_padded|nested|resize|set_|record_stream|ir_|type_comment|parse_|fork|wait$|dlpack')

# torch/_refs' sections -> litnn's group files
_SECTIONS = {'Elementwise Unary References': '_pointwise', 'Elementwise Binary References': '_pointwise',
             'Elementwise Ternary References': '_pointwise', 'Conditional references': '_pointwise',
             'Data conversion and movement references': '_conversions', 'Reduction ops': '_reductions',
             'Statistical operations': '_reductions', 'Test-related functions': '_pointwise',
             'Linear algebra ops': '_products', 'View & Shape Ops': '_views', 'Tensor Creation': '_creation'}
# 1. looked up first: the families torch/_refs/__init__.py has no section for (random sampling, sorting, indexing,
#    the Tensor's own attributes), and products and reductions it files among elementwise ops
# 2. then torch's neural-network operators (_NN below); 3. then the section of torch/_refs/__init__.py (_SECTIONS)
_FAMILIES = [(re.compile(r'^(batch_norm_\w+|rnn_(tanh|relu)(_cell)?|gru_cell|lstm_cell|grid_sampler_[23]d|affine_grid_generator|'
                         r'max_pool1d_with_indices)$'), '_nn_ops'),     # nn kernels that an indexing word would misfile
             (re.compile(r'^(normal|bernoulli|multinomial|poisson|binomial|uniform|random|exponential|geometric|cauchy|'
                         r'log_normal|standard_gamma|sample_dirichlet)$'), '_random'),
             (re.compile(r'^(sort|argsort|msort|topk|kthvalue|median|nanmedian|mode|unique|unique_consecutive|'
                         r'searchsorted|bucketize|histc|bincount|isin)$'), '_sorting'),
             (re.compile(r'index|gather|scatter|^masked_|^take|^put$|^nonzero|^argwhere$'), '_indexing'),
             (re.compile(r'smm$|spmm$|^(mm|bmm|mv|matmul|dot|vdot|inner|outer|addmm|addmv|addbmm|baddbmm|addr|ger|'
                         r'kron|tensordot|einsum|chain_matmul|cross|cdist)$'), '_products'),
             (re.compile(r'^(is_\w+|numel|nelement|get_device|element_size|ndimension|dim|size|stride|storage_offset|'
                         r'data_ptr|new|type|pin_memory|resolve_neg|resolve_conj|item|tolist|numpy|dtype|device|shape|ndim|grad|'
                         r'requires_grad|is_leaf|data|layout)$'), '_tensor'),
             (re.compile(r'^(count_nonzero|trace|logsumexp|logcumsumexp|cum\w+|argmax|argmin|aminmax|var_mean|std_mean|'
                         r'nansum|nanmean|quantile|nanquantile|cov|corrcoef|dist|renorm|max|min|trapezoid|trapz|cumulative_trapezoid|'
                         r'frobenius_norm|nuclear_norm|native_norm|norm_except_dim|segment_reduce|hash_tensor)$'), '_reductions')]
# the neural-network operators of torch/_refs/nn/functional and kin
_NN = re.compile(r'^(batch_norm|instance_norm|group_norm|layer_norm|native_\w+|grid_sampler|affine_grid|gru|lstm|rnn_|'
                 r'conv\w*|embedding\w*|dropout|alpha_dropout|feature_\w*dropout|\w+_pool\d?d|\w+_loss|kl_div|bilinear|'
                 r'prelu|rrelu|selu|celu|hardshrink|binary_cross_entropy\w*|threshold|pixel_\w+|channel_shuffle|pdist|pairwise_distance|'
                 r'cosine_similarity|constant_pad_nd)_?$')
# 4. what is left, by name; 5. anything else is pointwise (a function) or the Tensor's plumbing (a method)
_BY_NAME = [(re.compile(r'eig|lstsq|(^|_)solve|geqrf|ormqr|qr$|svd|cholesky|^lu|det$|inverse|lobpcg|lowrank|triangular|matrix_'),
             '_products'),
            (re.compile(r'^(sum|prod|mean|std|var|amax|amin|all|any|norm)'), '_reductions'),
            (re.compile(r'^(to|type|type_as|float|double|half|bfloat16|int|long|short|bool|byte|char|cpu|cuda|numpy|tolist|'
                        r'item|copy|cfloat|cdouble|chalf|view_as_real|view_as_complex|from_file|frombuffer|can_cast)$'),
             '_conversions'),
            (re.compile(r'_copy$|^(as_strided|unfold|view|expand|permute|squeeze|unsqueeze|alias|detach|split|split_with_sizes|slice|t|'
                        r'transpose|tile|narrow|select|unsafe_split|unsafe_chunk|unsafe_split_with_sizes|adjoint|diagflat|'
                        r'repeat_interleave|combinations|T|mT|H|mH)$'), '_views'),
            (re.compile(r'^(empty|zeros|ones|full|arange|range|linspace|logspace|eye|tensor|rand|randn|randint|randperm|'
                        r'from_numpy|as_tensor|asarray|scalar_tensor|vander|\w+_window|tril_indices|triu_indices|new_\w+)'), '_creation')]

def refs_groups():
    "name -> litnn group file, read from the sections of torch._refs' __all__."
    import torch._refs
    src = inspect.getsource(torch._refs)
    block = src[src.index('__all__ = ['):]
    block, groups, section = block[:block.index('\n]\n')], {}, None
    for line in block.splitlines():
        s = line.strip()
        if s.startswith('#') and '"' not in s and "'" not in s:
            if s.lstrip('# ').strip(): section = s.lstrip('# ').strip()     # a section's title, between bare '#' lines
        elif not s.startswith('#'):
            for n in re.findall(r'["\'](\w+)["\']', s.split('#')[0]): groups[n] = _SECTIONS.get(section)
    return groups

# torch's other names for the same operation: an alias goes with the name it aliases
_ALIASES = dict(swapaxes='transpose', swapdims='transpose', moveaxis='movedim', concat='cat', concatenate='cat',
                row_stack='vstack', clip='clamp', arctan2='atan2', absolute='abs', negative='neg', subtract='sub',
                multiply='mul', divide='div', true_divide='div', greater='gt', greater_equal='ge', less='lt', less_equal='le',
                not_equal='ne', ger='outer', fix='trunc', arcsin='asin', arccos='acos', arctan='atan', arcsinh='asinh',
                arccosh='acosh', arctanh='atanh', special_expit='sigmoid')
# where torch/_refs/__init__.py files an operation in a section that is not its group
_MISFILED = {'rsqrt': '_pointwise', 'slice_inverse': '_views'}

_GROUPS = None
def group(name, method=False, fallback=True):
    """The group file of a name torch implements in C++ (CONTRIBUTING.md): its family (random sampling, sorting,
    indexing, the Tensor's attributes, the products and reductions torch/_refs files elsewhere), else a neural-network
    operator, else its section of torch/_refs/__init__.py, else by name; what is in none is pointwise (a function) or
    the Tensor's own plumbing (a method, litnn/_tensor.py). An alias goes with the name it aliases."""
    global _GROUPS
    if _GROUPS is None: _GROUPS = refs_groups()
    base = name.rstrip('_') if name not in ('__and__',) else name
    base = _ALIASES.get(base, base)
    if base in _MISFILED: return _MISFILED[base]
    for rx, g in _FAMILIES:
        if rx.search(base): return g
    if _NN.search(base): return '_nn_ops'
    if _GROUPS.get(base): return _GROUPS[base]
    for rx, g in _BY_NAME:
        if rx.search(base): return g
    if not fallback: return None
    return '_tensor' if method else '_pointwise'

def home(name, obj, method=False):
    "The litnn file where `name` (torch's object `obj`) belongs."
    m = getattr(obj, '__module__', None)
    python = inspect.isfunction(obj) or inspect.isclass(obj)      # torch wrote it in Python (a builtin says 'torch' too)
    if python and not method and isinstance(m, str) and m.startswith('torch') and not m.startswith('torch._C'):
        return 'litnn/' + '/'.join(m.split('.')[1:]) + '.py' if m != 'torch' else 'litnn/__init__.py'
    return f'litnn/{group(name, method)}.py'

def missing(space, names, everything):
    out = []
    for n in sorted(names):
        if n.startswith('_') or hasattr(space, n) or (not everything and SKIP.search(n)): continue
        out.append(n)
    return out

NAMESPACES = ['torch', 'torch.Tensor', 'torch.nn', 'torch.nn.functional', 'torch.nn.init', 'torch.nn.utils', 'torch.linalg',
              'torch.special', 'torch.fft', 'torch.autograd', 'torch.func', 'torch.optim', 'torch.optim.lr_scheduler',
              'torch.distributions', 'torch.utils.data', 'torch.sparse', 'torch.nested', 'torch.masked', 'torch.profiler',
              'torch.hub', 'torch.cpu', 'torch.cuda', 'torch.amp', 'torch.signal.windows', 'torch.testing', 'torch.onnx',
              'torch.distributed', 'torch.jit', 'torch.compiler', 'torch.backends']

_tree = litnn.__file__.rsplit('/', 1)[0]

def _public(space):
    "The public names of a torch namespace: not private, not a module, not a typing helper or another library's object."
    for n in dir(space):
        if n.startswith('_'): continue
        o = getattr(space, n, None)
        if inspect.ismodule(o): continue
        m = getattr(o, '__module__', None)
        if (inspect.isclass(o) or inspect.isfunction(o)) and isinstance(m, str) and not m.startswith('torch'): continue
        if type(o).__module__ == 'typing': continue
        yield n

def counts():
    "For each namespace: torch's public names, and how many litnn lacks (all of them; and outside the families SKIP leaves out)."
    import importlib
    rows = []
    for ns in NAMESPACES:
        t = torch.Tensor if ns == 'torch.Tensor' else importlib.import_module(ns)
        try: l = litnn.Tensor if ns == 'torch.Tensor' else importlib.import_module('litnn' + ns[len('torch'):])
        except ImportError: l = None
        if l is not None and ns != 'torch.Tensor' and not l.__file__.startswith(_tree): l = None   # another checkout's
        names = list(_public(t))
        lacks = [n for n in names if l is None or not hasattr(l, n)]
        rows.append((ns, len(names), len(lacks), len([n for n in lacks if not SKIP.search(n)])))
    return rows

if __name__ == '__main__':
    if '--count' in sys.argv:
        print(f"{'namespace':26s} {'torch names':>11s} {'litnn lacks':>11s} {'(outside SKIP)':>14s}")
        rows = counts()
        for ns, n, lack, lack_kept in rows: print(f"{ns:26s} {n:11d} {lack:11d} {lack_kept:14d}")
        print(f"{'total':26s} {sum(r[1] for r in rows):11d} {sum(r[2] for r in rows):11d} {sum(r[3] for r in rows):14d}")
        sys.exit()
    everything = '--all' in sys.argv
    tensor = missing(litnn.Tensor, dir(torch.Tensor), everything)
    funcs = missing(litnn, [n for n in dir(torch) if callable(getattr(torch, n)) and not isinstance(getattr(torch, n), type)], everything)
    print(f'Tensor methods ({len(tensor)}):')
    for n in tensor: print(f'  Tensor.{n:32s} {home(n, getattr(torch.Tensor, n), method=True)}')
    print(f'\ntorch functions ({len(funcs)}):')
    for n in funcs: print(f'  torch.{n:32s} {home(n, getattr(torch, n))}')

"""Public names of torch and torch.Tensor that litnn lacks, each with the file it belongs in:
`python tools/missing_names.py [--all]`.

Where a name goes is CONTRIBUTING.md's rule: a name torch defines in Python goes to torch's path (`torch.a.b.X` ->
`litnn/a/b.py`); a name torch implements in C++ goes to the private file of its group, as torch's own Python
references (`torch/_refs/__init__.py`, whose `__all__` is sectioned by group) would place it: `_pointwise`,
`_reductions`, `_views`, `_creation`, `_products`, `_conversions`, plus `_indexing`, `_sorting`, `_random` and `_nn_ops`
(torch's top-level neural-network operators, `torch/_refs/nn/functional`) for the groups `_refs/__init__.py` leaves out. By default the families litnn does not model (sparse, quantized, complex views, storages,
other devices' kernels, symbolic shapes) are left out; `--all` lists everything."""
import inspect, re, sys
import torch, litnn

SKIP = re.compile(r'sparse|quantiz|q_|quant|qparams|qscheme|int_repr|dequantize|complex|conj|real$|imag$|_indices|indices$|values$|storage|'
                  r'stft|istft|cudnn|miopen|mkldnn|fbgemm|mps|xpu|ipu|mtia|xla|vulkan|sym_|autocast|_copy$|coalesce|'
                  r'to_dense|to_padded|nested|resize|set_|record_stream|ir_|type_comment|parse_|fork|wait$|dlpack')

# torch/_refs' sections -> litnn's group files
_SECTIONS = {'Elementwise Unary References': '_pointwise', 'Elementwise Binary References': '_pointwise',
             'Elementwise Ternary References': '_pointwise', 'Conditional references': '_pointwise',
             'Data conversion and movement references': '_conversions', 'Reduction ops': '_reductions',
             'Statistical operations': '_reductions', 'Linear algebra ops': '_products', 'View & Shape Ops': '_views',
             'Tensor Creation': '_creation'}
_BY_NAME = [(re.compile(r'^(batch_norm|grid_sampler|affine_grid|gru|lstm|rnn_|conv_tbc|embedding_renorm)'), '_nn_ops'),
            (re.compile(r'_norm$'), '_reductions'), (re.compile(r'smm$|spmm$'), '_products'),
            (re.compile(r'rand|normal|bernoulli|multinomial|poisson|binomial|exponential_|geometric_|cauchy_|log_normal'), '_random'),
            (re.compile(r'sort|topk|kthvalue|median|mode$|unique|searchsorted|bucketize|histc|bincount'), '_sorting'),
            (re.compile(r'index|gather|scatter|masked|take|put|nonzero|where$|select'), '_indexing'),
            (re.compile(r'^(mm|bmm|mv|matmul|dot|vdot|inner|outer|addmm|addmv|addbmm|baddbmm|addr|ger|kron|tensordot|einsum|chain_matmul)'), '_products'),
            (re.compile(r'^(sum|prod|mean|std|var|amax|amin|max|min|all|any|norm|logsumexp|cum|nan|count)'), '_reductions'),
            (re.compile(r'^(to|type|float|double|half|bfloat16|int|long|short|bool|byte|char|cpu|cuda|numpy|tolist|item|'
                        r'cfloat|cdouble|chalf|view_as_real|view_as_complex|from_file|frombuffer)$'), '_conversions'),
            (re.compile(r'eig|lstsq|solve|geqrf|ormqr|qr$|svd|cholesky|^lu|det$|inverse|lobpcg|lowrank|triangular|matrix_'), '_products'),
            (re.compile(r'^(angle|polar|complex|histogram|histogramdd)$'), '_pointwise'),
            (re.compile(r'_copy$|^(as_strided|unfold|view|expand|permute|squeeze|unsqueeze|alias|detach|split|slice|t|transpose)'), '_views'),
            (re.compile(r'^(empty|zeros|ones|full|arange|range|linspace|logspace|eye|tensor)'), '_creation')]

def refs_groups():
    "name -> litnn group file, read from the sections of torch._refs' __all__."
    import torch._refs
    src = inspect.getsource(torch._refs)
    block = src[src.index('__all__ = ['):]
    block, groups, section = block[:block.index('\n]\n')], {}, None
    for line in block.splitlines():
        s = line.strip()
        if s.startswith('#') and '"' not in s and "'" not in s: section = s.lstrip('# ').strip()
        elif not s.startswith('#'):
            for n in re.findall(r'["\'](\w+)["\']', s.split('#')[0]): groups[n] = _SECTIONS.get(section)
    return groups

_GROUPS = None
def home(name, obj, method=False):
    "The litnn file where `name` (torch's object `obj`) belongs."
    global _GROUPS
    m = getattr(obj, '__module__', None)
    python = inspect.isfunction(obj) or inspect.isclass(obj)      # torch wrote it in Python (a builtin says 'torch' too)
    if python and not method and isinstance(m, str) and m.startswith('torch') and not m.startswith('torch._C'):
        return 'litnn/' + '/'.join(m.split('.')[1:]) + '.py' if m != 'torch' else 'litnn/__init__.py'
    if _GROUPS is None: _GROUPS = refs_groups()
    base = name.rstrip('_')
    group = _GROUPS.get(base) or next((g for rx, g in _BY_NAME if rx.search(base)), None)
    if group: return f'litnn/{group}.py'
    # a Tensor method in no group is the Tensor's own plumbing (attributes, hooks, subclassing), which torch keeps in
    # torch/_tensor.py and litnn in litnn/_tensor.py; a function in no group is an operator of its own: ask in review
    return 'litnn/_tensor.py' if method else 'litnn/_pointwise.py (?: no torch/_refs group; decide in review)'

def missing(space, names, everything):
    out = []
    for n in sorted(names):
        if n.startswith('_') or hasattr(space, n) or (not everything and SKIP.search(n)): continue
        out.append(n)
    return out

if __name__ == '__main__':
    everything = '--all' in sys.argv
    tensor = missing(litnn.Tensor, dir(torch.Tensor), everything)
    funcs = missing(litnn, [n for n in dir(torch) if callable(getattr(torch, n)) and not isinstance(getattr(torch, n), type)], everything)
    print(f'Tensor methods ({len(tensor)}):')
    for n in tensor: print(f'  Tensor.{n:32s} {home(n, getattr(torch.Tensor, n), method=True)}')
    print(f'\ntorch functions ({len(funcs)}):')
    for n in funcs: print(f'  torch.{n:32s} {home(n, getattr(torch, n))}')

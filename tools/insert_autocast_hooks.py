"""For the integrator, once: insert autocast's one-line hook at the top of each product, softmax, layer_norm and
loss (after its docstring), so `litnn.autocast` casts their inputs (nbs/02d_amp explains the hook):

    python tools/insert_autocast_hooks.py --nbs .    # edits nbs/03a, 21, 22, 23, 25, 26; then nbdev_export
    python tools/insert_autocast_hooks.py .          # or the exported litnn/*.py only, to try it

Each hook reads `if amp._active: input, weight, bias = amp._autocast('linear', input, weight, bias)`: one
attribute test (about 30 ns) outside autocast. Delete this script once the hooks are in the notebooks."""
import json, re, sys
from pathlib import Path
HOOKS = {  # file stem -> [(function, hook line)]
    'reductions': [('matmul', "input, other"), ('mm', "input, mat2"), ('mv', "input, vec"), ('bmm', "input, mat2"), ('addmm', "input, mat1, mat2")],
    'linear': [('linear', "input, weight, bias")],
    'conv': [('conv1d', "input, weight, bias"), ('conv2d', "input, weight, bias")],
    'activation': [('softmax', "input,"), ('log_softmax', "input,")],
    'normalization': [('layer_norm', "input, weight, bias")],
    'loss': [('cross_entropy', "input, weight"), ('nll_loss', "input, weight"), ('mse_loss', "input, target"), ('l1_loss', "input, target"),
             ('binary_cross_entropy', "input, target, weight"), ('binary_cross_entropy_with_logits', "input, target, weight, pos_weight")],
}
def hook(fn, names): return f"    if amp._active: {names} = amp._autocast('{fn}', {names.rstrip(',')})\n"
def insert(src, fn, names):
    "src with the hook after the first line of `fn`'s body that is its docstring."
    lines = src.splitlines(keepends=True)
    for i, l in enumerate(lines):
        if re.match(rf"def {fn}\(", l):
            j = i
            while not re.search(r'\)\s*(->[^:]*)?:\s*(#.*)?$', lines[j]): j += 1      # signature over several lines
            k = j + 1
            if lines[k].strip().startswith(('"', "'")):
                q = lines[k].strip()[:3] if lines[k].strip()[:3] in ('"""', "'''") else lines[k].strip()[0]
                if q in ('"""', "'''") and lines[k].strip().count(q) < 2:
                    k += 1
                    while q not in lines[k]: k += 1
                k += 1
            return ''.join(lines[:k] + [hook(fn, names)] + lines[k:]), True
    return src, False
if __name__ == '__main__' and sys.argv[1] != '--nbs':
    root = Path(sys.argv[1])
    files = {'reductions': root/'litnn/reductions.py', 'linear': root/'litnn/nn/modules/linear.py', 'conv': root/'litnn/nn/modules/conv.py',
             'activation': root/'litnn/nn/modules/activation.py', 'normalization': root/'litnn/nn/modules/normalization.py', 'loss': root/'litnn/nn/modules/loss.py'}
    for stem, fns in HOOKS.items():
        p = files[stem]; s = p.read_text()
        i = s.index('\nfrom .'); s = s[:i] + '\nfrom litnn import amp   # autocast hook' + s[i:]
        for fn, names in fns:
            s, ok = insert(s, fn, names)
            print(stem, fn, 'ok' if ok else 'NOT FOUND')
        p.write_text(s)

NOTEBOOKS = {'reductions': '03a_reductions', 'linear': '21_linear', 'conv': '23_conv', 'activation': '22_activation',
             'normalization': '25_normalization', 'loss': '26_loss'}

def apply_to_notebooks(root):
    "The same hooks in the notebooks (the source of truth): `python apply_hooks.py --nbs REPO`, then nbdev_export."
    for stem, fns in HOOKS.items():
        p = Path(root)/'nbs'/f'{NOTEBOOKS[stem]}.ipynb'
        nb = json.loads(p.read_text())
        cells = [c for c in nb['cells'] if c['cell_type'] == 'code']
        imports = next(c for c in cells if ''.join(c['source']).startswith('#| export') and 'import' in ''.join(c['source']))
        imports['source'] = (''.join(imports['source']).rstrip('\n') + '\nfrom litnn import amp   # autocast: the `_autocast` hook of the ops below\n').splitlines(keepends=True)
        imports['source'][-1] = imports['source'][-1].rstrip('\n')
        for fn, names in fns:
            for c in cells:
                src = ''.join(c['source'])
                if src.startswith('#| export') and re.search(rf"^def {fn}\(", src, re.M):
                    new, ok = insert(src, fn, names)
                    c['source'] = new.splitlines(keepends=True); print(p.name, fn, 'ok' if ok else 'NOT FOUND'); break
            else: print(p.name, fn, 'NOT FOUND')
        p.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')

if __name__ == '__main__' and sys.argv[1] == '--nbs': apply_to_notebooks(sys.argv[2])

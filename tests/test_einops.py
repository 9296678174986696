"""The einops library on litnn tensors (reference/func/einops: litnn's backend for einops): the same program gives
torch's results, whether einops is imported before or after litnn, and without importing torch."""
import pathlib, subprocess, sys
import pytest
pytest.importorskip('einops')
pytest.importorskip('torch')

PROGRAM = """
import numpy as np
from einops import rearrange, reduce, repeat, pack, unpack, einsum, parse_shape, asnumpy
x = torch.arange(24.).reshape(2, 3, 4)
print(rearrange(x, 'b c h -> (b h) c').tolist())
print(reduce(x, 'b c h -> c', 'sum').tolist(), reduce(x, 'b c h -> b', 'max').tolist(), reduce(x, 'b (c1 c2) h -> b c1', 'mean', c2=1).tolist())
print(reduce(x > 3, 'b c h -> b', 'any').tolist(), reduce(x, 'b c h -> b', 'prod').tolist(), str(reduce(x, 'b c h -> b', 'min').dtype)[6:])
print(repeat(x, 'b c h -> b c h r', r=2).tolist(), repeat(torch.tensor([1., 2.]), 'n -> b n', b=2).tolist())
p, ps = pack([x, x[:, :1]], 'b * h'); print(p.tolist(), [list(s) for s in ps])
a, b = unpack(p, ps, 'b * h'); print(a.tolist(), b.tolist())
print(einsum(x, x, 'b c h, b c h -> b').tolist(), parse_shape(x, 'b c _'), asnumpy(x).sum())
y = torch.ones(2, 3, requires_grad=True)
(rearrange(y, 'a b -> (a b)') * torch.arange(6.)).pow(2).sum().backward(); print(y.grad.tolist())
try: rearrange(x, 'a b -> a')
except Exception as e: print(type(e).__name__)
"""

def run(first, lib):
    imports = {'einops first': f"import einops\nimport {lib} as torch\n", 'litnn first': f"import {lib} as torch\nimport einops\n"}[first]
    check = "import sys\nassert 'torch' not in sys.modules\n" if lib == 'litnn' else ""
    p = subprocess.run([sys.executable, '-c', imports + PROGRAM + check], capture_output=True, text=True,
                       cwd=pathlib.Path(__file__).parent.parent, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout

@pytest.mark.parametrize('first', ['einops first', 'litnn first'])
def test_einops_on_litnn_tensors_as_on_torch_tensors(first):
    assert run(first, 'litnn') == run(first, 'torch')

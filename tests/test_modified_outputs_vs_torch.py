"""An output that backward reads, changed in place after forward: torch's version check refuses the backward (it would
compute with the changed values) with the same message; where backward does not read it, both compute. Compared with
torch 2.13 on the same inputs."""
import pytest
import litnn

torch = pytest.importorskip('torch')

OPS = {
    'exp': lambda L, x: x.exp(), 'sigmoid': lambda L, x: x.sigmoid(), 'softmax': lambda L, x: x.softmax(-1),
    'eigh': lambda L, x: L.linalg.eigh(x), 'eigvalsh': lambda L, x: L.linalg.eigvalsh(x), 'qr': lambda L, x: L.linalg.qr(x),
    'svd': lambda L, x: L.linalg.svd(x), 'svdvals': lambda L, x: L.linalg.svdvals(x), 'inv': lambda L, x: L.linalg.inv(x),
    'cholesky': lambda L, x: L.linalg.cholesky(x), 'det': lambda L, x: L.linalg.det(x), 'lu_factor': lambda L, x: L.linalg.lu_factor(x),
    'solve': lambda L, x: L.linalg.solve(x, x), 'max': lambda L, x: x.max(), 'max_dim': lambda L, x: x.max(0),
    'sort': lambda L, x: x.sort(0), 'topk': lambda L, x: x.topk(2), 'prod': lambda L, x: x.prod(),
}


def run(L, op):
    L.manual_seed(0)
    x = L.randn(4, 4, dtype=L.float64)
    x = (x @ x.T + 4 * L.eye(4, dtype=L.float64)).requires_grad_()
    outs = OPS[op](L, x)
    outs = tuple(outs) if isinstance(outs, tuple) else (outs,)
    with L.no_grad(): outs[0].mul_(2)
    try:
        sum(t.sum() for t in outs if t.requires_grad).backward()
        return 'computed', round(float(x.grad.sum()), 6)
    except RuntimeError as e: return 'RuntimeError', str(e).replace('litnn', 'torch')


@pytest.mark.parametrize('op', OPS)
def test_changed_output_as_torch(op):
    assert run(litnn, op) == run(torch, op)

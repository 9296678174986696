"einsum against PyTorch (values, gradients, implicit outputs, broadcasting, diagonals, errors) and finite differences."
import numpy as np, pytest
import litnn
from litnn.autograd import gradcheck, gradgradcheck
torch = pytest.importorskip('torch')

rng = np.random.default_rng(0)
CASES = [  # equation, operand shapes
    ('ij,jk->ik', [(2, 3), (3, 4)]), ('ij,jk', [(2, 3), (3, 4)]), ('ij,kj->ik', [(2, 3), (4, 3)]),
    ('ij->ji', [(2, 3)]), ('ij->', [(2, 3)]), ('ij', [(2, 3)]), ('ba', [(2, 3)]), ('Ab,bC->AC', [(2, 3), (3, 4)]),
    ('i,j->ij', [(3,), (4,)]), ('i,i->', [(5,), (5,)]), ('i,i->i', [(5,), (5,)]), ('ij,ij->ij', [(2, 3), (2, 3)]),
    ('bij,bjk->bik', [(2, 3, 4), (2, 4, 5)]), ('bij,jk->bik', [(2, 3, 4), (4, 5)]),
    ('abc,cd,de->abe', [(2, 3, 4), (4, 5), (5, 2)]), ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 2)]),
    ('i,jk->k', [(3,), (2, 4)]), ('ij,k->', [(2, 3), (4,)]),
    ('ii->i', [(3, 3)]), ('ii', [(3, 3)]), ('iji->ij', [(2, 3, 2)]), ('ijj->i', [(2, 3, 3)]), ('iij,j->i', [(3, 3, 4), (4,)]),
    ('...ij->...ji', [(2, 5, 3, 4)]), ('...ij->...ji', [(3, 4)]), ('b...,...', [(2, 3, 4), (4,)]),
    ('...i,...i->...', [(2, 1, 3), (4, 3)]), ('ij,jk->ik', [(2, 1), (3, 4)]), ('...', [(2, 3)]), ('i->i', [(4,)]),
    ('i j , j k -> i k', [(2, 3), (3, 4)]),
]

def run(lib, eq, arrays, create_graph=False):
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = lib.einsum(eq, *xs)
    g = rng.standard_normal(tuple(out.shape)) if out.dim() else np.float64(rng.standard_normal())
    grads = lib.autograd.grad(out, xs, lib.tensor(np.asarray(g)), create_graph=create_graph)
    return out, grads

@pytest.mark.parametrize('eq,shapes', CASES)
def test_einsum_matches_torch(eq, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    state = rng.bit_generator.state
    ol, gl = run(litnn, eq, arrays)
    rng.bit_generator.state = state                     # the same output gradient for torch
    ot, gt = run(torch, eq, arrays)
    assert tuple(ol.shape) == tuple(ot.shape) and ol.dtype.name == str(ot.dtype).split('.')[-1]
    np.testing.assert_allclose(ol.detach().numpy(), ot.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, b in zip(gl, gt): np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    rng.bit_generator.state = state
    _, gr = run(litnn, eq, arrays, create_graph=True)  # the recorded backward gives the same
    for a, b in zip(gr, gl): np.testing.assert_allclose(a.detach().numpy(), b.numpy(), rtol=1e-12, atol=1e-12)

@pytest.mark.parametrize('eq,shapes', [c for c in CASES if c[0] in ('ij,jk->ik', 'iij,j->i', 'ijj->i', 'i,jk->k', 'abc,cd,de->abe', '...i,...i->...', 'ii')])
def test_einsum_gradcheck(eq, shapes):
    xs = [litnn.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert gradcheck(lambda *t: litnn.einsum(eq, *t), xs)
    assert gradgradcheck(lambda *t: litnn.einsum(eq, *t), xs)

def test_einsum_float32_list_and_same_operand_twice():
    a = rng.standard_normal((3, 3)).astype(np.float32)
    res = []
    for lib in (litnn, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.einsum('ij,jk->ik', [x, x])             # operands as one list; x used twice: gradients add
        y.sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), str(y.dtype).split('.')[-1]))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5); np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5)
    assert res[0][2] == res[1][2] == 'float32'

def test_einsum_integers():
    a, b = np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4)
    l, t = litnn.einsum('ij,jk', litnn.tensor(a), litnn.tensor(b)), torch.einsum('ij,jk', torch.tensor(a), torch.tensor(b))
    assert l.tolist() == t.tolist() and l.dtype is litnn.int64

ERRORS = [('ij,jk', [(2, 3), (4, 2)]), ('ijk', [(2, 2)]), ('ij,jk', [(2, 2)]), ('ij', [(2, 2), (2,)]), ('i1', [(2, 2)]),
          ('ij->iji', [(2, 2)]), ('ij->k', [(2, 2)]), ('...ij', [(2,)])]

@pytest.mark.parametrize('eq,shapes', ERRORS)
def test_einsum_errors_match_torch(eq, shapes):
    msgs = []
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError) as e: lib.einsum(eq, *[lib.ones(*s) for s in shapes])
        msgs.append(str(e.value).split('\n')[0])
    assert msgs[0] == msgs[1]

def test_einsum_dtype_error_and_no_operand():
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError, match='expected scalar type Float but found Double'):
            lib.einsum('ij,jk', lib.ones(2, 3), lib.ones(3, 4, dtype=lib.float64))
    for args in (('ij',), ('ij', []), ('', [])):      # torch.functional.einsum's own check: a ValueError
        msgs = []
        for lib in (litnn, torch):
            with pytest.raises(ValueError) as e: lib.einsum(*args)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]

MIXED = [  # equation, (shape, dtype) per operand: torch multiplies pairs that contract nothing (types promote) and
           # bmm's those that do (one dtype, no bool); a letter summed in one operand makes integers int64
    ('hn,bh->bhn', [((3, 4), 'complex64'), ((2, 3), 'float32')]),        # S4's contract("h n, b h -> b h n", dB, u)
    ('bh,hn->bhn', [((2, 3), 'float32'), ((3, 4), 'complex64')]), ('hn,bh->bhn', [((3, 4), 'complex64'), ((2, 3), 'float64')]),
    ('hn,bh->bn', [((3, 4), 'complex64'), ((2, 3), 'float32')]), ('bh,hn->bn', [((2, 3), 'float32'), ((3, 4), 'complex64')]),
    ('ij,j->i', [((3, 3), 'complex64'), ((3,), 'float32')]), ('bh,bh->bh', [((2, 3), 'float32'), ((2, 3), 'int64')]),
    ('bh,bh->b', [((2, 3), 'float32'), ((2, 3), 'float64')]), ('bh,bh->', [((2, 3), 'float32'), ((2, 3), 'int64')]),
    ('bh,bh->bh', [((2, 3), 'float16'), ((2, 3), 'int8')]), ('bh,hn->bhn', [((2, 3), 'int64'), ((3, 4), 'complex64')]),
    ('ij,j->j', [((2, 3), 'int32'), ((3,), 'int32')]), ('ij,j->', [((2, 3), 'int32'), ((3,), 'int32')]),
    ('ij,i->i', [((2, 3), 'bool'), ((2,), 'bool')]), ('ij,j->i', [((2, 3), 'bool'), ((3,), 'bool')]),
    ('ij,ij->i', [((2, 3), 'int32'), ((2, 3), 'bool')]), ('ij,ij->i', [((2, 3), 'bool'), ((2, 3), 'int32')]),
    ('ij,i->i', [((2, 3), 'int32'), ((2,), 'float32')]), ('ij,j->j', [((2, 3), 'uint8'), ((3,), 'uint8')]),
    ('hn,bh,n->bh', [((3, 4), 'complex64'), ((2, 3), 'float32'), ((4,), 'float32')]),
    ('bh,bh,bh->bh', [((2, 3), 'float32'), ((2, 3), 'float64'), ((2, 3), 'complex64')]),
    ('d,d,d,ca->', [((4,), 'complex64'), ((4,), 'bool'), ((1,), 'float64'), ((1, 1), 'int32')]),
]

@pytest.mark.parametrize('eq,ops', MIXED)
def test_einsum_of_mixed_dtypes_is_torchs(eq, ops):
    "Operands of different dtypes (or integers): torch's result dtype, values and real/complex gradients, or its error."
    r = np.random.default_rng(1)
    arrays = [(r.standard_normal(s) + (1j * r.standard_normal(s) if d.startswith('complex') else 0)).astype(d) if d[0] in 'fc'
              else (r.random(s) > 0.5) if d == 'bool' else r.integers(0, 5, s).astype(d) for s, d in ops]
    res = []
    for lib in (litnn, torch):
        xs = [lib.from_numpy(a.copy()).requires_grad_(a.dtype.kind in 'fc') for a in arrays]
        try: y = lib.einsum(eq, *xs)
        except (RuntimeError, NotImplementedError) as e: res.append((type(e).__name__, str(e))); continue
        grads = ()
        if y.requires_grad:
            (y.abs() if y.is_complex() else y).sum().backward()
            grads = tuple((str(x.grad.dtype).split('.')[-1], x.grad.numpy()) for x in xs if x.requires_grad)
        res.append((str(y.dtype).split('.')[-1], y.detach().numpy(), grads))
    assert res[0][0] == res[1][0], res
    if len(res[0]) == 2: assert res[0][1] == res[1][1]; return
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5, atol=1e-6)
    assert [d for d, _ in res[0][2]] == [d for d, _ in res[1][2]]
    for (_, gl), (_, gt) in zip(res[0][2], res[1][2]): np.testing.assert_allclose(gl, gt, rtol=1e-5, atol=1e-6)


def test_opt_einsum_switches_read_and_refuse_as_torchs():
    "torch.backends.opt_einsum: the same answers and the same refusals, with or without the opt_einsum package."
    torch = pytest.importorskip('torch')
    import torch.backends.opt_einsum as T
    import litnn.backends.opt_einsum as L
    assert (L.is_available(), L.enabled, L.strategy) == (T.is_available(), T.enabled, T.strategy)
    assert (L.get_opt_einsum() is None) == (T.get_opt_einsum() is None)
    def tries(m):
        out = []
        for args in ((True,), (None, 'greedy'), (None, 'fastest'), (False,), (None, 'optimal')):
            try: m.set_flags(*args); out.append((m.enabled, m.strategy))
            except ValueError as e: out.append(str(e))
        m.enabled = m.is_available()
        m.strategy = 'auto' if m.is_available() else None
        m.enabled = True; out.append(m.enabled)          # a plain assignment is not checked (torch 2.13's checks never run)
        m.enabled = m.is_available()
        return out
    assert tries(L) == tries(T)
    with L.flags(enabled=False): assert L.enabled is False and L._optimize() == 'greedy'
    assert L.enabled == T.enabled


@pytest.mark.parametrize('strategy', ['auto', 'optimal'])
def test_einsum_of_three_operands_in_any_order_is_the_product(strategy, monkeypatch):
    "The contraction order (numpy's greedy or optimal search) changes the cost, not the result or its gradients."
    import litnn.backends.opt_einsum as L
    monkeypatch.setattr(L, '_optimize', lambda: 'optimal' if strategy == 'optimal' else 'greedy')
    monkeypatch.setattr(litnn.functional, '_optimize', L._optimize)
    rng = np.random.default_rng(0)
    a, b, c = (litnn.tensor(rng.standard_normal(s), requires_grad=True) for s in ((30, 2), (2, 40), (40, 3)))
    r = litnn.einsum('ij,jk,kl->il', a, b, c)
    np.testing.assert_allclose(r.detach().numpy(), (a @ b @ c).detach().numpy(), rtol=1e-10)
    r.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), (b @ c).sum(1).detach().numpy()[None, :].repeat(30, 0), rtol=1e-10)


LAYOUTS = [  # two operands that contract a letter: torch's bmm decides where each output letter lies in memory
    ('ij,jk->ik', [(3, 4), (4, 5)]), ('ij,jk->ki', [(3, 4), (4, 5)]), ('ij,kj->ik', [(3, 4), (5, 4)]),
    ('bhid,bhjd->bhij', [(2, 3, 4, 5), (2, 3, 6, 5)]), ('bhij,bhjd->bhid', [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ('ibhd,jbhd->ijbh', [(4, 2, 3, 5), (6, 2, 3, 5)]), ('ibhd,jhd->ijbh', [(4, 2, 3, 5), (6, 3, 5)]),
    ('bij,bkj->bki', [(2, 3, 4), (2, 5, 4)]), ('bij,bjk->kib', [(2, 3, 4), (2, 4, 5)]), ('ad,bac->bdc', [(2, 3), (4, 2, 5)]),
    ('db,dea->eb', [(2, 3), (2, 4, 5)]), ('...ij,...jk->...ik', [(2, 3, 4), (2, 4, 5)]), ('bid,bjd->bij', [(1, 3, 4), (2, 5, 4)]),
    # three operands: torch without opt_einsum contracts left to right, the last pair decides
    ('ij,jk,kl->il', [(3, 4), (4, 5), (5, 2)]), ('ij,jk,kl->li', [(3, 4), (4, 5), (5, 2)]), ('abc,cd,de->abe', [(2, 3, 4), (4, 5), (5, 2)]),
]

@pytest.mark.parametrize('eq,shapes', LAYOUTS)
def test_einsum_result_is_laid_out_as_torchs(eq, shapes):
    """The result's strides are torch's, so `.view` after einsum works (or refuses) as in torch: attention scores
    ('bhid,bhjd->bhij') come out contiguous, where numpy's einsum could hand back a transposed array."""
    if len(shapes) > 2 and torch.backends.opt_einsum.enabled: pytest.skip("torch follows opt_einsum's path here")
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    l, t = litnn.einsum(eq, *map(litnn.tensor, arrays)), torch.einsum(eq, *map(torch.tensor, arrays))
    assert (l.stride(), l.is_contiguous()) == (t.stride(), t.is_contiguous())
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)
    if t.is_contiguous(): assert tuple(l.view(-1).shape) == tuple(t.view(-1).shape)

def test_einsum_equation_errors_in_torchs_order_and_words():
    "torch scans the equation as written: spaces skipped (indices count them), '...' whole and once per operand/output, then the sizes."
    cases = [('. ..', [(2,)]), ('... ...', [(2,)]), ('1', [(2,)]), (',', [(2,)]), ('', [(2,), (2,)]), ('', [(2,)]), ('ai', [(2,)]),
             ('ai...', [(2,)]), ('a->... .', [(2,)]), ('a->..', [(2,)]), ('a->1', [(2,)]), ('a->aa', [(2,)]), ('a->i', [(2,)]),
             ('aa', [(2, 3)]), ('aa', [(1, 3)]), ('...,...', [(2,), (2, 3)]), ('a...,a...', [(2, 2, 3), (2, 5, 3)]), ('a,a', [(2,), (3,)]),
             ('a, ba', [(2,), (2, 3)]), (' a , 1', [(2,), (2,)]), ('a b -> a 1', [(2, 3)]), ('a-b', [(2, 3)]), ('a->a,', [(2,)]),
             ('1,', [(2,)]), ('..a', [(2,)]), ('a...->...a...', [(2, 3)])]
    for eq, shapes in cases:
        msgs = []
        for lib in (litnn, torch):
            with pytest.raises(RuntimeError) as e: lib.einsum(eq, *[lib.ones(*s) for s in shapes])
            msgs.append(str(e.value).split('\n')[0])
        assert msgs[0] == msgs[1], eq
    for eq, shapes in [(' i j -> j', [(2, 3)]), ('i...,...->i...', [(2, 3), (3,)]), ('ii', [(3, 3)])]:
        xs = [np.random.default_rng(1).standard_normal(s) for s in shapes]
        np.testing.assert_allclose(litnn.einsum(eq, *[litnn.tensor(x) for x in xs]).numpy(),
                                   torch.einsum(eq, *[torch.tensor(x) for x in xs]).numpy(), rtol=1e-12)


# HF transformers' XLNet in float64 (its float32 positional tensors meet float64 weights): torch's bmm names the
# second operand's dtype as expected once m*k*n reaches 400 (its other CPU path), the first one's below; litnn always
# named the first. einsum's pairs, matmul and bmm alike
DTYPE_ORDER = [('einsum', 'ibh,hnd->ibnd', (16, 2, 16), (16, 2, 8)), ('einsum', 'ibh,hnd->ibnd', (3, 2, 4), (4, 2, 5)),
               ('einsum', 'ij,jk->ik', (8, 7), (7, 8)), ('einsum', 'ij,jk->ik', (7, 7), (7, 7)),
               ('einsum', 'bij,bjk->bik', (3, 10, 4), (3, 4, 10)), ('einsum', 'ji,kj->ik', (4, 10), (10, 4)),
               ('einsum', 'i,i->', (400,), (400,)), ('einsum', 'i,i->', (399,), (399,)),
               ('bmm', None, (1, 10, 4), (1, 4, 10)), ('bmm', None, (1, 10, 4), (1, 4, 9)), ('bmm', None, (2, 1, 400), (2, 400, 1)),
               ('matmul', None, (2, 3, 10, 4), (3, 4, 10)), ('matmul', None, (5, 1, 1, 57), (1, 57, 7))]
@pytest.mark.parametrize('op, eq, s1, s2', DTYPE_ORDER)
def test_product_dtype_error_names_dtypes_as_torch(op, eq, s1, s2):
    for d1, d2 in (('float32', 'float64'), ('float64', 'complex64')):
        msgs = []
        for lib in (torch, litnn):
            x, y = lib.ones(*s1, dtype=getattr(lib, d1)), lib.ones(*s2, dtype=getattr(lib, d2))
            with pytest.raises(RuntimeError) as e:
                lib.einsum(eq, x, y) if op == 'einsum' else getattr(lib, op)(x, y)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]

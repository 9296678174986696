"""litnn's sparse tensors side by side with PyTorch 2.13's: COO and CSR construction, parts, conversions, coalescing,
printing, torch.sparse.mm/sum/softmax, spmm/smm/sspaddmm, sparse @ dense with gradients to both operands, the errors
for what litnn refuses, and pytorch/examples' GCN (examples/gcn/main.py) trained a few steps on a random graph."""
import warnings, numpy as np, pytest
torch = pytest.importorskip('torch')
import litnn

warnings.filterwarnings('ignore', message='.*Sparse.*')   # torch's notes on invariant checks and CSR's beta state

RNG = np.random.default_rng(0)
IDX = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]])            # (0, 2) twice: uncoalesced
VAL = np.array([3., 4., 5., 1., -2.], np.float32)
D = RNG.standard_normal((3, 4)).astype(np.float32)

def both(f):
    "f(torch) and f(litnn)."
    return f(torch), f(litnn)

def coo(lib, requires_grad=False, idx=IDX, val=VAL, size=(3, 3)):
    return lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(val), size, requires_grad=requires_grad)

def same(t, l, atol=1e-5):
    "Same layout, dtype, shape and values (sparse ones compared as their parts, then densely)."
    assert str(l.layout).split('.')[1] == str(t.layout).split('.')[1]
    assert str(l.dtype).split('.')[1] == str(t.dtype).split('.')[1]
    assert tuple(l.shape) == tuple(t.shape)
    if t.layout == torch.sparse_coo:
        assert l.is_coalesced() == t.is_coalesced() and l._nnz() == t._nnz()
        np.testing.assert_array_equal(l._indices().numpy(), t._indices().numpy())
        np.testing.assert_allclose(l._values().detach().numpy(), t._values().detach().numpy(), rtol=1e-5, atol=atol)
        t, l = t.detach().to_dense(), l.detach().to_dense()
    elif t.layout == torch.sparse_csr:
        np.testing.assert_array_equal(l.crow_indices().numpy(), t.crow_indices().numpy())
        np.testing.assert_array_equal(l.col_indices().numpy(), t.col_indices().numpy())
        t, l = t.detach().to_dense(), l.detach().to_dense()
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=atol)

def same_repr(t, l): assert repr(l) == repr(t).replace('torch.', 'litnn.')

def same_error(f):
    "f(torch) and f(litnn) raise the same type (and litnn's message is torch's when litnn runs the case)."
    errs = []
    for lib in (torch, litnn):
        with pytest.raises(Exception) as e: f(lib)
        errs.append(e.value)
    assert type(errs[1]) is type(errs[0]), (errs[0], errs[1])
    return errs

# --- layouts, construction, parts

def test_layouts():
    assert repr(litnn.sparse_coo) == 'litnn.sparse_coo' and repr(litnn.sparse_csr) == 'litnn.sparse_csr'
    assert repr(litnn.strided) == 'litnn.strided' and type(litnn.sparse_coo) is litnn.layout
    t, l = both(coo)
    assert l.layout is litnn.sparse_coo and type(l) is litnn.Tensor
    assert (l.is_sparse, l.is_sparse_csr) == (t.is_sparse, t.is_sparse_csr) == (True, False)
    tc, lc = t.to_sparse_csr(), l.to_sparse_csr()
    assert lc.layout is litnn.sparse_csr and (lc.is_sparse, lc.is_sparse_csr) == (tc.is_sparse, tc.is_sparse_csr)
    assert litnn.ones(2).is_sparse is False and litnn.ones(2).layout is litnn.strided

def test_coo_parts():
    t, l = both(coo)
    same(t, l)
    assert (l.sparse_dim(), l.dense_dim(), l._nnz(), l.numel(), l.dim()) == (t.sparse_dim(), t.dense_dim(), t._nnz(), t.numel(), t.dim())
    assert l.is_coalesced() is t.is_coalesced() is False
    tc, lc = t.coalesce(), l.coalesce()
    same(tc, lc)
    np.testing.assert_array_equal(lc.indices().numpy(), tc.indices().numpy())
    np.testing.assert_array_equal(lc.values().numpy(), tc.values().numpy())
    assert lc.coalesce() is lc and tc.coalesce() is tc
    same(t.to_dense(), l.to_dense())
    assert (litnn.ones(2, 3).sparse_dim(), litnn.ones(2, 3).dense_dim()) == (0, 2)

def test_size_inferred_and_dtype():
    t, l = both(lambda lib: lib.sparse_coo_tensor(IDX, VAL.tolist()))
    same(t, l)
    t, l = both(lambda lib: lib.sparse_coo_tensor(IDX.astype(np.int32), lib.ones(5), (3, 3), dtype=lib.int64))
    same(t, l)
    t, l = both(lambda lib: lib.sparse_coo_tensor(IDX, lib.tensor(VAL, dtype=lib.float64), (4, 5)))
    same(t, l)
    t, l = both(lambda lib: lib.sparse_coo_tensor(IDX[:1], lib.tensor(D[:, :2].T.copy()).reshape(2, 3)[:, :2].repeat(3, 1)[:5], (3, 2)))
    same(t, l)

def test_csr():
    crow, col, val = [0, 1, 3, 3], [2, 0, 2], [3., 4., 5.]
    t, l = both(lambda lib: lib.sparse_csr_tensor(crow, col, val, (3, 3)))
    same(t, l)
    same(t.to_sparse_coo(), l.to_sparse_coo())
    same(t.to_dense(), l.to_dense())
    t, l = both(lambda lib: lib.sparse_csr_tensor(lib.tensor(crow, dtype=lib.int32), lib.tensor(col, dtype=lib.int32), lib.tensor(val)))
    same(t, l)
    assert l.crow_indices().dtype == litnn.int32
    same_repr(t, l)
    same(t.values(), l.values())

def test_conversions():
    x = D * (RNG.random(D.shape) < 0.5)
    t, l = both(lambda lib: lib.tensor(x))
    for f in (lambda a: a.to_sparse(), lambda a: a.to_sparse_coo(), lambda a: a.to_sparse(1), lambda a: a.to_sparse_csr(),
              lambda a: a.to_sparse(layout=(torch if a.__class__ is torch.Tensor else litnn).sparse_csr),
              lambda a: a.to_sparse().to_sparse_csr(), lambda a: a.to_sparse_csr().to_sparse(), lambda a: a.to_sparse(dense_dim=1)):
        same(f(t), f(l))
    z3 = np.zeros((2, 2, 3), np.float32); z3[1, 0, 2] = 1.
    same(torch.tensor(z3).to_sparse(2), litnn.tensor(z3).to_sparse(2))
    same(torch.zeros(2, 2, 3).to_sparse(2), litnn.zeros(2, 2, 3).to_sparse(2))
    assert l.to_dense() is l and t.to_dense() is t

def test_0d_to_sparse():
    "A 0-d tensor's sparse form has no sparse dim: one entry (none when zero), its transpose itself, back to dense intact."
    for v in (1.5, 0.):
        t, l = both(lambda lib: lib.tensor(v).to_sparse())
        same(t, l); same_repr(t, l)
        same(t.t(), l.t()); same(t * 2, l * 2)
        assert (l.sparse_dim(), l.dense_dim(), l._nnz()) == (t.sparse_dim(), t.dense_dim(), t._nnz())

def test_t_of_sparse():
    "t() of a COO tensor: at most 2 sparse dims and no dense one, in torch's words."
    x = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    for f in (lambda lib: lib.tensor(x).to_sparse().t(), lambda lib: lib.tensor(x).to_sparse(2).t(), lambda lib: lib.tensor(x[0]).to_sparse(1).t()):
        t, l = same_error(f)
        assert str(l) == str(t)
    same(torch.tensor(x[0]).to_sparse().t(), litnn.tensor(x[0]).to_sparse().t())

def test_sparse_mask():
    t, l = both(coo)
    tm, lm = t.coalesce(), l.coalesce()
    same(torch.tensor(D[:, :3]).sparse_mask(tm), litnn.tensor(D[:, :3]).sparse_mask(lm))
    same(torch.tensor(D[:, :3]).sparse_mask(t), litnn.tensor(D[:, :3]).sparse_mask(l))

def test_elementwise():
    t, l = both(coo)
    same(t * 2, l * 2); same(2 * t, 2 * l); same(t / 2, l / 2); same(-t, -l)
    same(t + t, l + l); same(t - t.coalesce(), l - l.coalesce())
    same(torch.eye(3) + t, litnn.eye(3) + l)
    same(torch.eye(3) - t, litnn.eye(3) - l)

# --- printing

def test_repr():
    t, l = both(coo)
    same_repr(t, l); same_repr(t.coalesce(), l.coalesce())
    same_repr(*both(lambda lib: coo(lib, requires_grad=True)))
    same_repr(*both(lambda lib: lib.sparse_coo_tensor(IDX, lib.tensor(VAL, dtype=lib.float64), (3, 3))))
    same_repr(*both(lambda lib: lib.sparse_coo_tensor(IDX, lib.tensor(VAL).requires_grad_(), (3, 3))))
    same_repr(*both(lambda lib: lib.zeros(2, 2, 3).to_sparse(2)))
    same_repr(*both(lambda lib: lib.tensor([[0, 1.5], [2, 0]]).to_sparse(1)))
    same_repr(*both(lambda lib: lib.tensor([[0, 1], [2, 0]]).to_sparse()))
    same_repr(t.to_sparse_csr(), l.to_sparse_csr())
    same_repr(*both(lambda lib: lib.tensor(D).to_sparse()))
    assert str(l) == repr(l)

# --- products and gradients

@pytest.mark.parametrize('how', ['sparse.mm', 'mm', 'matmul', 'spmm'])
def test_sparse_dense_product_and_grads(how):
    outs = []
    for lib in (torch, litnn):
        s, d = coo(lib, requires_grad=True), lib.tensor(D, requires_grad=True)
        f = {'sparse.mm': lambda: lib.sparse.mm(s, d), 'mm': lambda: lib.mm(s, d), 'matmul': lambda: s @ d, 'spmm': lambda: lib.spmm(s, d)}[how]
        o = f()
        (o * o).sum().backward()
        outs.append((o, s.grad, d.grad, type(o.grad_fn).__name__))
    (to, tsg, tdg, tn), (lo, lsg, ldg, ln) = outs
    same(to, lo); same(tsg, lsg); same(tdg, ldg)
    assert ln == tn

def test_grads_through_values():
    outs = []
    for lib in (torch, litnn):
        v, d = lib.tensor(VAL, requires_grad=True), lib.tensor(D, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(IDX), v, (3, 3))
        o = lib.sparse.mm(s, d)
        (o.sin()).sum().backward()
        outs.append((s, o, v.grad, d.grad))
    for t, l in zip(*outs): same(t, l)
    assert type(outs[1][0].grad_fn).__name__ == type(outs[0][0].grad_fn).__name__
    # torch.mm too
    outs = []
    for lib in (torch, litnn):
        v, d = lib.tensor(VAL, requires_grad=True), lib.tensor(D, requires_grad=True)
        o = lib.mm(lib.sparse_coo_tensor(lib.tensor(IDX), v, (3, 3)), d)
        (o ** 2).sum().backward()
        outs.append((o, v.grad, d.grad))
    for t, l in zip(*outs): same(t, l)

def test_grad_accumulates_over_two_backwards():
    outs = []
    for lib in (torch, litnn):
        s, d = coo(lib, requires_grad=True), lib.tensor(D)
        lib.sparse.mm(s, d).sum().backward(); lib.sparse.mm(s, d * 2).sum().backward()
        outs.append(s.grad)
    np.testing.assert_allclose(outs[1].to_dense().numpy(), outs[0].to_dense().numpy(), rtol=1e-5)

def test_dense_sparse_product():
    outs = []
    for lib in (torch, litnn):
        x = lib.tensor(D.T.copy(), requires_grad=True)
        s = coo(lib, requires_grad=True)
        o = x @ s
        (o * o).sum().backward()
        outs.append((o, x.grad, s.grad))
    for t, l in zip(*outs): same(t, l)

def test_csr_product():
    t, l = both(lambda lib: coo(lib).to_sparse_csr())
    for f in (lambda lib, s: lib.mm(s, lib.tensor(D)), lambda lib, s: s @ lib.tensor(D)):
        same(f(torch, t), f(litnn, l))
    lx = litnn.tensor(D, requires_grad=True)
    tx = torch.tensor(D, requires_grad=True)
    lo, to = litnn.mm(l, lx), torch.mm(t, tx)
    lo.sum().backward(); to.sum().backward()
    same(tx.grad, lx.grad)

def test_smm_sspaddmm():
    t, l = both(coo)
    same(torch.smm(t, torch.tensor(D)), litnn.smm(l, litnn.tensor(D)))
    same(t.smm(torch.tensor(D)), l.smm(litnn.tensor(D)))
    tc, lc = t.coalesce(), l.coalesce()
    dd = D[:, :3].copy()
    same(torch.sspaddmm(tc, tc, torch.tensor(dd)), litnn.sspaddmm(lc, lc, litnn.tensor(dd)))
    same(torch.sspaddmm(tc, tc, torch.tensor(dd), beta=0.5, alpha=2), litnn.sspaddmm(lc, lc, litnn.tensor(dd), beta=0.5, alpha=2))
    same(tc.sspaddmm(tc, torch.tensor(dd)), lc.sspaddmm(lc, litnn.tensor(dd)))

@pytest.mark.parametrize('dim', [None, 0, 1, (0, 1), -1])
def test_sparse_sum(dim):
    t, l = both(coo)
    kw = {} if dim is None else {'dim': dim}
    same(torch.sparse.sum(t, **kw), litnn.sparse.sum(l, **kw))

def test_sparse_sum_hybrid():
    x = np.zeros((3, 2, 4), np.float32); x[0, 1] = D[0]; x[2, 0] = D[1]
    t, l = torch.tensor(x).to_sparse(2), litnn.tensor(x).to_sparse(2)
    for dim in (0, 1, 2, (0, 2), (0, 1), None):
        kw = {} if dim is None else {'dim': dim}
        same(torch.sparse.sum(t, **kw), litnn.sparse.sum(l, **kw))
    same(torch.sparse.sum(t, dim=1, dtype=torch.float64), litnn.sparse.sum(l, dim=1, dtype=litnn.float64))

@pytest.mark.parametrize('fn', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_sparse_softmax(fn, dim):
    t, l = both(coo)
    same(getattr(torch.sparse, fn)(t, dim), getattr(litnn.sparse, fn)(l, dim))
    x = np.zeros((3, 2, 4), np.float32); x[0, 1] = D[0]; x[2, 0] = D[1]; x[2, 1] = D[2]
    t, l = torch.tensor(x).to_sparse(2), litnn.tensor(x).to_sparse(2)
    for d in (0, 1, 2):
        same(getattr(torch.sparse, fn)(t, d), getattr(litnn.sparse, fn)(l, d))
    same(getattr(torch.sparse, fn)(t, 1, dtype=torch.float64), getattr(litnn.sparse, fn)(l, 1, dtype=litnn.float64))

# --- errors

def test_errors_match_torch():
    i = [[0, 1], [1, 0]]
    for f in (lambda lib: coo(lib).indices(), lambda lib: coo(lib).values(), lambda lib: lib.ones(2).indices(),
              lambda lib: lib.ones(2).coalesce(), lambda lib: lib.ones(2).is_coalesced(), lambda lib: coo(lib).crow_indices(),
              lambda lib: lib.ones(2).crow_indices(), lambda lib: coo(lib) + lib.ones(3, 3),
              lambda lib: lib.sparse_coo_tensor(i, lib.ones(3), (2, 2)), lambda lib: lib.sparse_coo_tensor(i, lib.ones(2), (2, 2, 2)),
              lambda lib: lib.mm(coo(lib), lib.ones(2, 2)), lambda lib: lib.sparse.mm(coo(lib), lib.ones(2, 2))):
        te, le = same_error(f)
        assert str(le) == str(te), (str(te), str(le))

def test_indices_are_checked():
    "torch checks indices against the size only with check_invariants=True; litnn always does (a wrong index never reads on)."
    i = [[0, 1], [1, 0]]
    for f in (lambda lib, **k: lib.sparse_coo_tensor(i, lib.ones(2), (1, 2), **k), lambda lib, **k: lib.sparse_coo_tensor([[0, -1]], lib.ones(2), (2,), **k)):
        with pytest.raises(RuntimeError): f(torch, check_invariants=True)
        with pytest.raises(RuntimeError): f(litnn)

def test_unsupported_dense_ops_raise():
    "What litnn does not run on sparse tensors raises NotImplementedError (torch's type for missing sparse kernels)."
    s = coo(litnn)
    for f in (lambda: s.exp(), lambda: s.view(-1), lambda: s[0:1],
              lambda: s.mean(), lambda: s.exp_(), lambda: s == s, lambda: s.max(), lambda: litnn.exp(s),
              lambda: s.tolist(), lambda: s.flip(0)):
        with pytest.raises(NotImplementedError): f()
    same(*both(lambda lib: lib.sparse.mm(coo(lib), coo(lib))))     # sparse @ sparse: tests/test_sparse_nested_more.py
    te, le = same_error(lambda lib: coo(lib).numpy())
    assert str(le) == str(te)
    with pytest.raises(RuntimeError): s.reshape(9)           # reshape's own error (NotImplementedError is a RuntimeError)
    with pytest.raises(NotImplementedError): litnn.sparse.softmax(coo(litnn, requires_grad=True), 1)
    for f in (lambda: torch.exp(coo(torch)), lambda: coo(torch).view(-1)):
        with pytest.raises(NotImplementedError): f()

def test_detach_clone_to():
    t, l = both(coo)
    same(t.detach(), l.detach()); same(t.clone(), l.clone())
    same(t.to(torch.float64), l.to(litnn.float64)); same(t.double(), l.double())
    assert l.to('cpu') is l and l.device == litnn.device('cpu')
    assert l.is_cpu is t.is_cpu is True and l.is_cuda is t.is_cuda is False

# --- pytorch/examples' GCN (examples/gcn/main.py): its layers on litnn sparse tensors, trained side by side

def gcn_classes(lib):
    nn, F = lib.nn, lib.nn.functional
    class GraphConv(nn.Module):
        def __init__(self, input_dim, output_dim, use_bias=False):
            super().__init__()
            self.kernel = nn.Parameter(lib.Tensor(input_dim, output_dim))
            nn.init.xavier_normal_(self.kernel)
            self.bias = None
            if use_bias:
                self.bias = nn.Parameter(lib.Tensor(output_dim))
                nn.init.zeros_(self.bias)
        def forward(self, input_tensor, adj_mat):
            support = lib.mm(input_tensor, self.kernel)
            output = lib.spmm(adj_mat, support)
            if self.bias is not None: output = output + self.bias
            return output
    class GCN(nn.Module):
        def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
            super().__init__()
            self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
            self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
            self.dropout = nn.Dropout(dropout_p)
        def forward(self, input_tensor, adj_mat):
            x = self.gc1(input_tensor, adj_mat)
            x = F.relu(x)
            x = self.dropout(x)
            x = self.gc2(x, adj_mat)
            return F.log_softmax(x, dim=1)
    return GCN

def load_graph(lib, V=30, E=80, F_in=12, C=4, seed=0):
    "load_cora's preprocessing, on a random graph: scaled features and the renormalized adjacency, both sparse."
    rng = np.random.default_rng(seed)
    content = (rng.random((V, F_in)) < 0.3).astype(np.int32)
    edges = rng.integers(0, V, (E, 2)).astype(np.int32)
    features = lib.FloatTensor(content)
    scale_vector = lib.sum(features, dim=1)
    scale_vector = 1 / scale_vector
    scale_vector[scale_vector == float('inf')] = 0
    scale_vector = lib.diag(scale_vector).to_sparse()
    features = scale_vector @ features
    labels = lib.LongTensor(rng.integers(0, C, V))
    adj_mat = lib.sparse_coo_tensor(edges.T, lib.ones(E), (V, V), dtype=lib.int64)
    adj_mat = lib.eye(V) + adj_mat
    degree_mat = lib.sum(adj_mat, dim=1)
    degree_mat = lib.sqrt(1 / degree_mat)
    degree_mat[degree_mat == float('inf')] = 0
    degree_mat = lib.diag(degree_mat).to_sparse()
    adj_mat = degree_mat @ adj_mat @ degree_mat
    return features.to_sparse().to('cpu'), labels.to('cpu'), adj_mat.to_sparse().to('cpu')

def test_gcn_example_trains_as_torch():
    results = []
    for lib in (torch, litnn):
        features, labels, adj_mat = load_graph(lib)
        results.append((features, adj_mat))
        lib.manual_seed(0)
        gcn = gcn_classes(lib)(features.shape[1], 16, int(labels.max().item()) + 1, True, 0.5)
        results.append(gcn)
    (tf, tadj), tgcn, (lf, ladj), lgcn = results
    same(tf, lf); same(tadj, ladj)
    lgcn.load_state_dict({k: litnn.tensor(v.detach().numpy()) for k, v in tgcn.state_dict().items()})
    losses = []
    for lib, gcn, (features, _, adj_mat) in ((torch, tgcn, load_graph(torch)), (litnn, lgcn, load_graph(litnn))):
        labels = lib.LongTensor(np.random.default_rng(0).integers(0, 4, 30))
        idx_train, idx_val = lib.arange(0, 20), lib.arange(20, 30)
        opt = lib.optim.Adam(gcn.parameters(), lr=0.01, weight_decay=5e-4)
        crit = lib.nn.NLLLoss()
        gcn.dropout.p = 0.0          # dropout's masks come from each library's own generator: off, so the runs compare
        run = []
        for epoch in range(5):
            gcn.train(); opt.zero_grad()
            output = gcn(features, adj_mat)
            loss = crit(output[idx_train], labels[idx_train])
            loss.backward(); opt.step()
            gcn.eval()
            with lib.no_grad():
                out = gcn(features, adj_mat)
                run.append((loss.item(), crit(out[idx_val], labels[idx_val]).item(),
                            ((out[idx_val].argmax(dim=1) == labels[idx_val]).float().sum() / len(idx_val)).item()))
        losses.append(run)
    np.testing.assert_allclose(np.array(losses[1]), np.array(losses[0]), rtol=1e-4, atol=1e-5)
    assert losses[0][-1][0] < losses[0][0][0]

def test_pickle_deepcopy_and_save():
    import copy, io, pickle
    for s in (coo(litnn, requires_grad=True), coo(litnn).to_sparse_csr()):
        for r in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s)):
            assert r.layout is s.layout and r.requires_grad == s.requires_grad
            np.testing.assert_array_equal(r.detach().to_dense().numpy(), s.detach().to_dense().numpy())
    m = litnn.nn.Module(); m.register_buffer('adj', coo(litnn))
    assert m.state_dict()['adj'].layout is litnn.sparse_coo
    b = io.BytesIO(); litnn.save(m.state_dict(), b); b.seek(0)      # saved and loaded: tests/test_sparse_nested_more.py
    m.load_state_dict(litnn.load(b))
    np.testing.assert_array_equal(m.adj.to_dense().numpy(), coo(litnn).to_dense().numpy())


@pytest.mark.parametrize('idx', [[[0.7], [1.9]], [[True], [False]], 'float tensor', 'int32 tensor'])
def test_coo_indices_cast_to_int64(idx):
    "torch's constructor casts any indices to int64 (1.9 -> 1), as test_nn's test_overwrite_module_params_on_conversion uses."
    def make(lib):
        i = lib.tensor([[0.7], [1.9]]) if idx == 'float tensor' else lib.tensor([[0], [2]], dtype=lib.int32) if idx == 'int32 tensor' else idx
        s = lib.sparse_coo_tensor(i, lib.ones(1), (3, 3))
        return s._indices().tolist(), str(s._indices().dtype).split('.')[1], s.to_dense().tolist()
    t, l = both(make)
    assert t == l

def test_sparse_and_dense_gradients_of_one_input_are_summed():
    """A custom Function's backward may give a sparse gradient; with a dense one for the same input the sum is dense, whatever
    the order (torch's InputBuffer puts the dense one first), and two sparse ones stay sparse; with create_graph torch refuses."""
    def run(L):
        class Fixed(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, g):
                ctx.save_for_backward(g); return x
            @staticmethod
            def backward(ctx, gx):
                (g,) = ctx.saved_tensors; return g, None
        size = (6, 3, 2)
        sp1 = L.sparse_coo_tensor(L.tensor([[0, 3, 4], [0, 2, 2]]), L.ones(3, 2, dtype=L.float64), size)
        sp2 = L.sparse_coo_tensor(L.tensor([[0, 1, 3, 4], [0, 1, 2, 2]]), 2 * L.ones(4, 2, dtype=L.float64), size)
        dense = L.full(size, 0.5, dtype=L.float64)
        out = []
        for order in [(sp1, dense, sp2), (dense, sp1, sp2), (sp1, sp2)]:
            for create_graph in (False, True):
                x = L.zeros(size, dtype=L.float64, requires_grad=True)
                y = Fixed.apply(x, order[0])
                for g in order[1:]: y = y + Fixed.apply(x, g)
                try: y.sum().backward(create_graph=create_graph)
                except RuntimeError as e: out.append(str(e)); continue     # torch refuses sparse + dense with create_graph
                out.append((str(x.grad.layout).split('.')[-1], x.grad.to_dense().tolist()))
        return out
    assert run(litnn) == run(torch)

def test_sparse_mask_of_a_tensor_that_requires_grad():
    "sparse_mask is differentiable in its dense input: the gradient goes back to the mask's entries, twice for an entry given twice."
    def run(L):
        t = L.tensor([1., 2., 3.], requires_grad=True)
        c = t.sparse_mask(L.tensor([1., 0., 1.]).to_sparse())
        (c.to_dense() * L.tensor([1., 10., 100.])).sum().backward()
        got = [str(c.layout).split('.')[-1], c.grad_fn.name(), c.to_dense().tolist(), t.grad.tolist()]
        t.grad = None
        m2 = L.sparse_coo_tensor(L.tensor([[0, 2, 0]]), L.ones(3), (3,))      # uncoalesced: entry 0 twice
        (t.sparse_mask(m2).to_dense() * L.tensor([1., 10., 100.])).sum().backward()
        with L.no_grad(): rg = t.sparse_mask(m2).requires_grad
        return got + [t.grad.tolist(), rg]
    assert run(litnn) == run(torch)
    x = litnn.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    mk = litnn.tensor((RNG.random((3, 4)) > 0.5).astype(np.float64)).to_sparse()
    assert litnn.autograd.gradcheck(lambda x: x.sparse_mask(mk).to_dense(), (x,))


@pytest.mark.parametrize('layout', ['coo', 'csr', 'csc', 'bsr'])
@pytest.mark.parametrize('dtype', ['float64', 'float32', 'int64', 'bool'])
def test_sum_of_all_elements_of_a_sparse_tensor_as_torch(layout, dtype):
    # torch sums a sparse tensor's stored values into a dense 0-d tensor (test_autograd.py's test_sparse_mm_backward);
    # litnn refused sum() on sparse tensors
    def run(L):
        D = np.array([[0., 1.5, 0., 2.], [3., 0., 0., -1.], [0., 0., 4., 0.]])
        x = L.tensor(D, dtype=getattr(L, dtype)) if dtype != 'bool' else L.tensor(D != 0)
        s = {'coo': x.to_sparse, 'csr': x.to_sparse_csr, 'csc': x.to_sparse_csc, 'bsr': lambda: x[:2].to_sparse_bsr((1, 2))}[layout]()
        r = s.sum()
        return str(r.layout).split('.')[-1], str(r.dtype).split('.')[-1], r.item()
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('grad', ['dense', 'sparse', 'sum'])
def test_mm_of_two_sparse_matrices_gradients_as_torch(grad):
    # torch.mm's gradients for sparse @ sparse are the plain products g @ b.T and a.T @ g (dense for a dense gradient,
    # the product's own entries for a sparse one); litnn kept them to the operands' patterns, as torch.sparse.mm does
    def run(L):
        A = np.array([[0., 1.5, 0., 2.], [3., 0., 0., -1.], [0., 0., 4., 0.]])
        Bm = np.array([[0., 1.], [2., 0.], [0., 0.], [0.5, 0.]])
        G = np.array([[1., -2.], [0.5, 3.], [-1., 0.25]])
        a, b = L.tensor(A).to_sparse().requires_grad_(), L.tensor(Bm).to_sparse().requires_grad_()
        r = a.mm(b)
        if grad == 'sum': r.sum().backward()
        else: r.backward(L.tensor(G) if grad == 'dense' else L.tensor(G).sparse_mask(r.detach().coalesce()))
        return [(str(t.grad.layout).split('.')[-1], t.grad.to_dense().tolist()) for t in (a, b)]
    assert run(litnn) == run(torch)


@pytest.mark.parametrize('call', ['x.to_sparse()', 'x.to_sparse(1)', 'x.to_sparse_coo()', 'x.to_sparse(dense_dim=1)',
                                  'x.to_sparse_csr().to_sparse()'])
@pytest.mark.parametrize('how', ['dense', 'sparse', 'via_dense'])
def test_dense_to_coo_is_differentiable_as_torch(call, how):
    # torch records ToSparseBackward1 (ToSparseBackward0 for to_sparse(sparse_dim)); the gradient goes back dense
    # (test_autograd.py's test_to_sparse_backward); litnn refused a dense tensor that requires grad
    def run(L):
        X = np.array([[0., 1.5, 0., 2.], [3., 0., 0., -1.], [0., 0., 4., 0.]])
        G = np.arange(12.).reshape(3, 4) - 5
        x = L.tensor(X, requires_grad=True)
        s = eval(call)
        if how == 'via_dense': g, = L.autograd.grad((s.to_dense() * L.tensor(G)).sum(), x)
        else: g, = L.autograd.grad(s, x, L.tensor(G) if how == 'dense' else L.tensor(G).to_sparse(s.sparse_dim()))
        return type(s.grad_fn).__name__, s.sparse_dim(), str(g.layout).split('.')[-1], g.tolist()
    assert run(litnn) == run(torch)


# test_autograd.py test_graph_save_on_cpu (sparse case): the elementwise product with a sparse COO operand, which litnn
# refused. torch: dense * sparse keeps the sparse pattern; two coalesced operands give their common entries; otherwise
# the uncoalesced operand (of two, the one with fewer entries, else the second) is walked and each entry multiplied by
# the other's coalesced value there (0 where it has none), in its pattern, uncoalesced
def _mul_cases(t):
    def S(i, v, n=6): return t.sparse_coo_tensor(t.tensor([i]), t.tensor(v), (n,))
    return [(S([0, 1, 1, 3], [1., 2., 3., 4.]), S([1, 3, 4], [10., 20., 30.])),
            (S([1, 3, 4], [10., 20., 30.]), S([0, 1, 1, 3], [1., 2., 3., 4.])),
            (S([3, 1], [1., 2.]), S([1, 5], [10., 20.])), (S([3, 1], [1., 2.]).coalesce(), S([1, 5], [10., 20.])),
            (S([3, 1], [1., 2.]), S([1, 5], [10., 20.]).coalesce()),
            (S([3, 1], [1., 2.]).coalesce(), S([1, 5], [10., 20.]).coalesce()),
            (S([2, 2, 0], [1., 2., 3.]), S([2], [5.])), (t.arange(6.), S([2, 2, 0], [1., 2., 3.])),
            (S([2, 2, 0], [1., 2., 3.]).coalesce(), t.arange(6.)),
            (t.sparse_coo_tensor(t.tensor([[0, 1, 1]]), t.arange(6.).reshape(3, 2), (3, 2)),
             t.sparse_coo_tensor(t.tensor([[1, 2]]), t.ones(2, 2) * 3, (3, 2))),
            (t.sparse_coo_tensor(t.tensor([[0, 1], [1, 0]]), t.tensor([1., 2.]), (2, 2)), t.arange(4.).reshape(2, 2))]


@pytest.mark.parametrize('case', range(11))
def test_sparse_elementwise_product_as_torch(case):
    res = []
    for lib in (litnn, torch):
        a, b = _mul_cases(lib)[case]
        r = a * b
        res.append((r.layout == lib.sparse_coo, r._indices().tolist(), r._values().tolist(), r.is_coalesced(), r.to_dense().tolist()))
    assert res[0] == res[1]


def test_sparse_times_itself_gradient_as_torch():
    res = []
    for lib in (litnn, torch):
        x = lib.sparse_coo_tensor(lib.tensor([[1, 1]]), lib.tensor([1.0, 1.0]), requires_grad=True)
        y = x * x
        y.to_dense().sum().backward()
        res.append((y._values().tolist(), x.grad._indices().tolist(), x.grad._values().tolist()))
    assert res[0] == res[1]

# --- zero-preserving elementwise ops: the op of the stored values (coalesced first, but for neg and conj)

ZERO_PRESERVING = ('abs neg sqrt sin tan tanh asin atan sinh asinh atanh expm1 log1p sign sgn floor ceil round trunc frac erf '
                   'erfinv deg2rad rad2deg relu').split()

@pytest.mark.parametrize('name', ZERO_PRESERVING)
def test_zero_preserving_unary_ops(name):
    "Values, pattern, dtype and is_coalesced as torch's (uncoalesced and coalesced COO, and CSR); the in-place form likewise."
    small = lambda lib, **k: coo(lib, val=VAL / 8, **k)
    same(*both(lambda lib: getattr(lib, name)(small(lib))))
    same(*both(lambda lib: getattr(small(lib).coalesce(), name)()))
    same(*both(lambda lib: getattr(lib, name)(small(lib).to_sparse_csr())))
    same(*both(lambda lib: getattr(small(lib).coalesce(), name + '_')()))
    if name == 'neg': same(*both(lambda lib: small(lib).neg_()))      # linear: no coalescing needed
    else:
        te, le = same_error(lambda lib: getattr(small(lib), name + '_')())
        assert str(le) == str(te) == f"{name}_ requires coalesced input"

@pytest.mark.parametrize('name', ['abs', 'neg', 'sign', 'floor', 'frac', 'deg2rad', 'rad2deg'])
def test_zero_preserving_unary_gradients(name):
    "Where torch's derivative formulas run on sparse tensors, the gradient is sparse, as torch's (is_coalesced too)."
    def grad(lib):
        s = coo(lib, val=VAL / 8, requires_grad=True)
        getattr(lib, name)(s * 1).to_dense().sum().backward()
        return s.grad
    same(*both(grad))

def test_ops_without_sparse_kernels_are_refused():
    "exp, cos, log... move 0: torch has no sparse kernel (NotImplementedError for COO, RuntimeError for CSR), nor has litnn."
    for name in ('exp', 'cos', 'log', 'sigmoid'):
        te, le = same_error(lambda lib: getattr(lib, name)(coo(lib)))
        assert str(te).startswith(str(le)) and f"'aten::{name}'" in str(le)    # (torch lists its backends after)
        te, le = same_error(lambda lib: getattr(lib, name)(coo(lib).to_sparse_csr()))
        assert str(le) == str(te)

@pytest.mark.parametrize('dim', [0, 1, -1, (0, 1), [1, 0]])
def test_sum_over_dims(dim):
    "Tensor.sum(dim) and torch.sum of a COO tensor: sparse while a sparse dim is left, coalesced, as torch's; keepdim too."
    same(*both(lambda lib: coo(lib).sum(dim)))
    same(*both(lambda lib: lib.sum(coo(lib), dim, dtype=lib.float64)))
    same(*both(lambda lib: lib.sparse.sum(coo(lib), dim)))
    same(*both(lambda lib: coo(lib, idx=np.array([[0, 1, 1, 0]]), val=np.ones((4, 2), np.float32), size=(3, 2)).sum(dim)))   # a dense dim
    if not isinstance(dim, int): return
    same(*both(lambda lib: coo(lib).sum(dim, keepdim=True)))          # (torch: the summed dim's index 0, uncoalesced)

# --- indexing: select, unsqueeze, index_select, narrow_copy (torch has no sparse views: slicing is refused)

def hybrid(lib): return lib.sparse_coo_tensor(lib.tensor([[1, 0, 1]]), lib.tensor(VAL[:3, None] * [1, 2]), (3, 2))   # a dense dim

INDEXING = {'s[0]': lambda x: x[0], 's[2]': lambda x: x[2], 'select(1, 2)': lambda x: x.select(1, 1), 'select(0, -1)': lambda x: x.select(0, -1),
            's[:, 1]': lambda x: x[:, 1], 's[..., 0]': lambda x: x[..., 0], 's[0, 1]': lambda x: x[0, 1], 's[None]': lambda x: x[None],
            'unsqueeze(0)': lambda x: x.unsqueeze(0), 'unsqueeze(1)': lambda x: x.unsqueeze(1), 'unsqueeze(-1)': lambda x: x.unsqueeze(-1),
            'index_select(0)': lambda x: x.index_select(0, x.new_tensor([1, 1, 0]).long()),
            'index_select(1)': lambda x: x.index_select(1, x.new_tensor([1, 0]).long()),
            'narrow_copy(1)': lambda x: x.narrow_copy(1, 0, 2), 'narrow_copy(0)': lambda x: x.narrow_copy(0, 1, 2)}

@pytest.mark.parametrize('case', INDEXING)
@pytest.mark.parametrize('make', ['uncoalesced', 'coalesced', 'hybrid'])
def test_indexing(case, make):
    "Entries, order, is_coalesced and layout (dense when no sparse dim is left) as torch's, for COO and hybrid tensors."
    f = INDEXING[case]
    mk = dict(uncoalesced=coo, coalesced=lambda lib: coo(lib).coalesce(), hybrid=hybrid)[make]
    try: t = f(mk(torch))
    except (IndexError, RuntimeError) as e:
        with pytest.raises(type(e)): f(mk(litnn))
        return
    same(t, f(mk(litnn)))

def test_indexing_refusals():
    "Slices, narrow (views), indexing by a list and out-of-range indices: torch's errors."
    for f in (lambda x: x[0:1], lambda x: x.narrow(1, 0, 2), lambda x: x[[1, 0]], lambda x: x[5], lambda x: x[0, 0, 0],
              lambda x: x.narrow_copy(0, -1, 1), lambda x: x.narrow_copy(1, 2, 2)):
        te, le = same_error(lambda lib: f(coo(lib)))
        if not isinstance(te, NotImplementedError): assert str(le) == str(te)

# --- joining sparse tensors; products with vectors and batches; zero_

JOINS = {'cat(0)': lambda lib: lib.cat([coo(lib), coo(lib).coalesce()]), 'cat(-1)': lambda lib: lib.cat([coo(lib).coalesce(), coo(lib)], -1),
         'cat hybrid dense dim': lambda lib: lib.cat([hybrid(lib), hybrid(lib)], 1), 'cat dtypes': lambda lib: lib.cat([coo(lib).double(), coo(lib)]),
         'cat one': lambda lib: lib.cat([coo(lib).coalesce()]), 'stack(0)': lambda lib: lib.stack([coo(lib), coo(lib).coalesce()]),
         'stack(2)': lambda lib: lib.stack([coo(lib), coo(lib)], 2), 'stack hybrid': lambda lib: lib.stack([hybrid(lib), hybrid(lib)], -1),
         'mv': lambda lib: lib.mv(coo(lib), lib.arange(3.)), 's @ v': lambda lib: coo(lib) @ lib.arange(3.), 'v @ s': lambda lib: lib.arange(3.) @ coo(lib),
         'csr @ v': lambda lib: coo(lib).to_sparse_csr() @ lib.arange(3.), 'mv csr': lambda lib: lib.mv(coo(lib).to_sparse_csr(), lib.arange(3.)),
         'bmm': lambda lib: lib.bmm(lib.stack([coo(lib), coo(lib).coalesce() * 2]), lib.tensor(D[None, :3, :2].repeat(2, 0))),
         'zero_': lambda lib: coo(lib).zero_(), 'zero_ hybrid': lambda lib: hybrid(lib).zero_(), 'zero_ csr': lambda lib: coo(lib).to_sparse_csr().zero_()}

@pytest.mark.parametrize('case', JOINS)
def test_joins_products_and_zero(case):
    "Entries in torch's order, is_coalesced, layout and values as torch's."
    same(*both(JOINS[case]))

def test_joins_and_products_refusals_and_gradients():
    "torch's errors for mixed layouts, shapes and sizes; gradients through sparse @ vector and bmm as torch's."
    for f in (lambda lib: lib.cat([coo(lib), coo(lib).to_dense()]), lambda lib: lib.cat([coo(lib), coo(lib, size=(3, 4))])):
        te, le = same_error(f)
        assert str(le) == str(te)
    for f in (lambda lib: lib.mv(coo(lib), lib.arange(2.)), lambda lib: coo(lib) @ lib.arange(4.),
              lambda lib: lib.bmm(lib.stack([coo(lib), coo(lib)]), lib.ones(3, 3, 2))):
        same_error(f)
    def grads(lib):
        s, v = coo(lib, requires_grad=True), lib.arange(3., requires_grad=True)
        (s @ v).pow(2).sum().backward()
        return s.grad, v.grad
    for t, l in zip(*both(grads)): same(t, l)

# --- more zero-preserving operations through the same rule: predicates, nan_to_num, pow and division by a number

VALUE_OPS = {'isnan': lambda x: x.isnan(), 'isinf': lambda x: x.isinf(), 'signbit': lambda x: x.signbit(), 'nan_to_num': lambda x: x.nan_to_num(),
             'pow(2)': lambda x: x.pow(2), 'pow(-1)': lambda x: x.pow(-1), 'x ** 0.5': lambda x: x.abs() ** 0.5, 'pow(3)': lambda x: x.pow(3),
             'floor_divide': lambda x: x // 2, 'div floor': lambda x: x.div(2, rounding_mode='floor'), 'div trunc': lambda x: x.div(2, rounding_mode='trunc'),
             'pow(0)': lambda x: x.pow(0), 'pow_': lambda x: x.coalesce().pow_(2), 'div by sparse': lambda x: x / x}

@pytest.mark.parametrize('case', VALUE_OPS)
@pytest.mark.parametrize('layout', ['coo', 'coalesced', 'csr'])
def test_value_ops(case, layout):
    "Results (values, is_coalesced, dtype) or errors (type; message where litnn words it as torch) as torch's."
    f = VALUE_OPS[case]
    mk = dict(coo=coo, coalesced=lambda lib: coo(lib).coalesce(), csr=lambda lib: coo(lib).to_sparse_csr())[layout]
    try: t = f(mk(torch))
    except (RuntimeError, NotImplementedError) as e:
        with pytest.raises(type(e)) as le: f(mk(litnn))
        if isinstance(e, NotImplementedError): assert str(e).startswith(str(le.value))
        elif 'Sparse division' not in str(e) and case != 'div floor': assert str(le.value) == str(e)   # (CSR div floor: litnn's floor_divide words)
        return
    same(t, f(mk(litnn)))

def test_pow_gradient():
    "pow's gradient to a sparse input is sparse, as torch's."
    def grad(lib):
        s = coo(lib, requires_grad=True)
        (s * 1).pow(2).to_dense().sum().backward()
        return s.grad
    same(*both(grad))

@pytest.mark.parametrize('shape', [(3,), (1, 3), (3, 1), (3, 3)])
def test_product_with_a_broadcast_dense_operand(shape):
    "sparse * dense (either side) broadcasts the dense operand to the sparse one's shape: its pattern, its flag, as torch's."
    d = RNG.standard_normal(shape).astype(np.float32)
    same(*both(lambda lib: coo(lib) * lib.tensor(d)))
    same(*both(lambda lib: lib.tensor(d) * coo(lib).coalesce()))

def test_division_by_a_tensor_is_refused():
    for f in (lambda lib: coo(lib) / coo(lib), lambda lib: coo(lib) / lib.ones(3)):
        te, le = same_error(f)
        assert str(le) == str(te)

@pytest.mark.parametrize('p', [2, 1, 3, float('inf'), 'fro'])
def test_norm(p):
    "torch's norm of a sparse tensor: a full reduction over its coalesced values (a dense 0-d result); dims or keepdim refused."
    same(*both(lambda lib: coo(lib).norm(p)))
    same(*both(lambda lib: coo(lib).norm(p, dim=(1, 0))))
    for f in (lambda lib: coo(lib).norm(p, dim=0), lambda lib: coo(lib).norm(p, dim=(0, 1), keepdim=True)):
        if p == 'fro': continue
        te, le = same_error(f)
        assert str(le) == str(te)

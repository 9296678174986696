"The 8-bit float dtypes (ml_dtypes underneath) side by side with torch 2.13: casts, printing, promotion, views, files."
import io
import numpy as np, pytest
import litnn

torch = pytest.importorskip('torch')
pytest.importorskip('ml_dtypes')
NAMES = ['float8_e4m3fn', 'float8_e5m2', 'float8_e4m3fnuz', 'float8_e5m2fnuz']

def values():
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.standard_normal(200) * 10 ** rng.uniform(-6, 5, 200), [0., -0., 1e-9, 0.1, 0.5, 1.5, 240., 250., 448., 449., 500.,
                        57344., 60000., 1e6, -1e6, np.inf, -np.inf, np.nan]])
    return v.astype(np.float32)

@pytest.mark.parametrize('name', NAMES)
def test_dtype_attributes(name):
    a, b = getattr(litnn, name), getattr(torch, name)
    assert (a.is_floating_point, a.is_signed, a.is_complex, a.itemsize) == (b.is_floating_point, b.is_signed, b.is_complex, b.itemsize)
    fa, fb = litnn.finfo(a), torch.finfo(b)
    assert (fa.max, fa.min, fa.eps, fa.bits) == (fb.max, fb.min, fb.eps, fb.bits)
    assert repr(a) == repr(b).replace('torch', 'litnn')

@pytest.mark.parametrize('name', NAMES)
def test_casts_round_as_torch(name):
    v = values()
    t = torch.from_numpy(v).to(getattr(torch, name)).float().numpy()
    l = litnn.tensor(v).to(getattr(litnn, name)).float().numpy()
    np.testing.assert_array_equal(l, t)
    for back in ('bfloat16', 'float16', 'float64'):     # and from float8 to the other floats
        t2 = torch.from_numpy(v).to(getattr(torch, name)).to(getattr(torch, back)).double().numpy()
        l2 = litnn.tensor(v).to(getattr(litnn, name)).to(getattr(litnn, back)).double().numpy()
        np.testing.assert_array_equal(l2, t2)

@pytest.mark.parametrize('name', NAMES)
def test_printing(name):
    for v in ([1.5, -2.25, 300., 0.1], [[0.5, 1.], [2., 4.]], [1e-3, 100.], []):
        t = torch.tensor(v).to(getattr(torch, name)); l = litnn.tensor(v).to(getattr(litnn, name))
        assert repr(l) == repr(t).replace('torch.', 'litnn.')
    assert repr(litnn.zeros(2, dtype=getattr(litnn, name))) == repr(torch.zeros(2, dtype=getattr(torch, name))).replace('torch.', 'litnn.')

def test_promotion_refused_as_torch():
    for a in NAMES:
        for b in ('float32', 'int64', 'float8_e5m2'):
            if a == b: continue
            with pytest.raises(RuntimeError) as et: torch.promote_types(getattr(torch, a), getattr(torch, b))
            with pytest.raises(RuntimeError) as el: litnn.promote_types(getattr(litnn, a), getattr(litnn, b))
            assert str(el.value) == str(et.value)
    with pytest.raises(RuntimeError, match='Promotion for Float8'): litnn.ones(2, dtype=litnn.float8_e4m3fn) + litnn.ones(2)

def test_views_copies_and_grad():
    v = [1.5, -2.25, 288., 0.1015625]
    t, l = torch.tensor(v).to(torch.float8_e4m3fn), litnn.tensor(v).to(litnn.float8_e4m3fn)
    assert l.view(litnn.uint8).tolist() == t.view(torch.uint8).tolist()
    assert l.tolist() == t.tolist() and l[0].item() == t[0].item()
    assert litnn.cat([l, l]).tolist() == torch.cat([t, t]).tolist()
    assert l.reshape(2, 2).t().contiguous().tolist() == t.reshape(2, 2).t().contiguous().tolist()
    assert (l == l).tolist() == (t == t).tolist() and l.abs().tolist() == t.abs().tolist()
    assert litnn.ones(2, dtype=litnn.float8_e5m2, requires_grad=True).requires_grad
    assert litnn.empty(2, dtype=litnn.float8_e4m3fnuz).fill_(1).tolist() == [1., 1.]

def test_files_both_ways(tmp_path):
    x = torch.tensor([1.5, -2., 0.25, 3.]).to(torch.float8_e4m3fn)
    b = io.BytesIO(); torch.save({'x': x, 'y': x.reshape(2, 2).t(), 'f': torch.ones(3, dtype=torch.float8_e5m2fnuz)}, b); b.seek(0)
    d = litnn.load(b)
    assert d['x'].dtype is litnn.float8_e4m3fn and d['x'].tolist() == x.tolist() and d['y'].tolist() == x.reshape(2, 2).t().tolist()
    assert d['f'].dtype is litnn.float8_e5m2fnuz
    b = io.BytesIO(); litnn.save(d, b, format='torch'); b.seek(0)
    back = torch.load(b, weights_only=True)
    assert back['x'].dtype == torch.float8_e4m3fn and back['x'].tolist() == x.tolist() and back['y'].tolist() == x.reshape(2, 2).t().tolist()
    litnn.save({'x': d['x'], 'e5': litnn.ones(2, dtype=litnn.float8_e5m2)}, tmp_path / 'c.pt')      # litnn's own format (safetensors names)
    own = litnn.load(tmp_path / 'c.pt')
    assert own['x'].dtype is litnn.float8_e4m3fn and own['x'].tolist() == x.tolist() and own['e5'].dtype is litnn.float8_e5m2

"""reference/nn/grid_sample against torch 2.13: affine_grid and grid_sample in every mode, padding mode and alignment; both gradients."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from torch_pairs import same_error

rng = np.random.default_rng(0)

@pytest.mark.parametrize('align', [False, True])
@pytest.mark.parametrize('size', [(2, 3, 4, 5), (1, 1, 1, 3), (2, 1, 6, 1)])
def test_affine_grid(size, align):
    th = rng.normal(size=(size[0], 2, 3))
    lt, tt = litnn.tensor(th, requires_grad=True), torch.tensor(th, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        lg, tg = litnn.nn.functional.affine_grid(lt, size, align), torch.nn.functional.affine_grid(tt, size, align)
    np.testing.assert_allclose(lg.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = rng.normal(size=tuple(tg.shape))
    lg.backward(litnn.tensor(g)); tg.backward(torch.tensor(g))
    np.testing.assert_allclose(lt.grad.numpy(), tt.grad.numpy(), rtol=1e-12, atol=1e-13)

@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('align', [False, True])
@pytest.mark.parametrize('padding', ['zeros', 'border', 'reflection'])
@pytest.mark.parametrize('mode', ['bilinear', 'nearest', 'bicubic', 'trilinear', 'nearest3d'])
def test_grid_sample(mode, padding, align, dtype):
    volume = mode in ('trilinear', 'nearest3d')                            # 5-D: a volume and (x, y, z) grid
    mode = {'trilinear': 'bilinear', 'nearest3d': 'nearest'}.get(mode, mode)
    x = rng.normal(size=(2, 3, 4, 5, 6) if volume else (2, 3, 5, 6)).astype(dtype)
    grid = (rng.uniform(-1.6, 1.6, size=(2, 3, 4, 7, 3) if volume else (2, 4, 7, 2))).astype(dtype)      # inside and outside the image
    lx, lg = litnn.tensor(x, requires_grad=True), litnn.tensor(grid, requires_grad=True)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    ly = litnn.nn.functional.grid_sample(lx, lg, mode, padding, align)
    ty = torch.nn.functional.grid_sample(tx, tg, mode, padding, align)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-10, atol=1e-12)
    if mode == 'bicubic' and dtype == 'float32': tol['atol'] = 1e-4     # 16 taps' float32 terms cancel in the grid's gradient
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    g = rng.normal(size=tuple(ty.shape)).astype(dtype)
    ly.backward(litnn.tensor(g)); ty.backward(torch.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)
    np.testing.assert_allclose(lg.grad.numpy(), tg.grad.numpy(), **tol)

def test_spatial_transformer_step():
    "affine_grid then grid_sample, differentiated with respect to theta, as the STN tutorial trains it."
    # a theta whose sampling points fall on no pixel exactly: there bilinear sampling has one-sided derivatives, and
    # a last-bit difference in the grid would pick the other side
    th = np.array([[[0.913, 0.107, 0.0513], [-0.0971, 1.093, 0.0117]]]); x = rng.normal(size=(1, 1, 8, 8))
    out = []
    for lib in (litnn, torch):
        t = lib.tensor(th, requires_grad=True)
        y = lib.nn.functional.grid_sample(lib.tensor(x), lib.nn.functional.affine_grid(t, (1, 1, 8, 8), False), align_corners=False)
        (y ** 2).sum().backward()
        out.append((y.detach().numpy(), t.grad.numpy()))
    for a, b in zip(*out): np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)

def test_warning_without_align_corners():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        litnn.nn.functional.affine_grid(litnn.ones(1, 2, 3), (1, 1, 2, 2))

ERRORS = [lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), 'bogus', align_corners=False),
          lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 2, 2, 2, 3), 'bicubic', align_corners=False),
          lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 2, 2, 2), align_corners=False),
          lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2), lib.zeros(1, 2, 2), align_corners=False),
          lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 3), align_corners=False),
          lambda lib: lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), padding_mode='bogus', align_corners=False),
          lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 3, 3), (1, 1, 2, 2), False),
          lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3, dtype=lib.long), (1, 1, 2, 2), False),
          lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), (1, 2, 2), False),
          lambda lib: lib.nn.functional.affine_grid(lib.ones(1, 2, 3), (1, 1, 0, 2), False)]

@pytest.mark.parametrize('f', ERRORS)
def test_errors(f):
    kind = same_error(f)
    with pytest.raises(kind) as t: f(torch)
    with pytest.raises(kind) as l: f(litnn)
    assert str(l.value).replace('litnn.', 'torch.') == str(t.value)


@pytest.mark.parametrize('padding_mode', ['zeros', 'border', 'reflection'])
def test_nearest_with_nan_and_infinite_coordinates_as_torch(padding_mode):
    "torch's nearest kernel: NaN is clipped to 0 by border and reflection, and samples 0 with zeros (as inf does there)."
    inp = np.arange(1., 10., dtype=np.float32).reshape(1, 1, 3, 3)
    pts = [[np.nan, 0.], [0.3, np.nan], [0.2, 0.3]] + ([[np.inf, 0.], [-np.inf, 0.5]] if padding_mode != 'reflection' else [])
    g = np.array([[pts]], np.float32)
    got = []
    for lib in (torch, litnn):
        gr = lib.tensor(g).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter('error', RuntimeWarning)            # no integer made of a NaN
            o = lib.nn.functional.grid_sample(lib.tensor(inp), gr, mode='nearest', padding_mode=padding_mode, align_corners=False)
        o.sum().backward()
        got.append((o.detach().numpy().tolist(), gr.grad.numpy().tolist()))
    assert got[0] == got[1]


@pytest.mark.parametrize('nd', [2, 3])
def test_affine_grid_backward_twice_and_channels_last_grad(nd):
    "affine_grid's node keeps no saved tensor (torch saves only the size): a second backward needs no retain_graph, and a"
    "channels-last gradient gives the same theta.grad (test_nn's test_affine_grid_backward_cl_cf_consistency)."
    rng = np.random.default_rng(nd)
    th, gr = rng.random((6, nd, nd + 1)), rng.random((6, 4, 5, 2) if nd == 2 else (6, 4, 5, 5, 3))
    def run(lib):
        theta = lib.tensor(th, requires_grad=True)
        size = [6, 3, 4, 5] if nd == 2 else [6, 3, 4, 5, 5]
        grid = lib.nn.functional.affine_grid(theta, size, align_corners=False)
        g = lib.tensor(gr)
        grid.backward(g.contiguous(memory_format=lib.channels_last if nd == 2 else lib.channels_last_3d))
        first = theta.grad.clone()
        grid.backward(g)
        return type(grid.grad_fn).__name__, first.numpy(), theta.grad.numpy()
    t, l = run(torch), run(litnn)
    assert t[0] == l[0]
    np.testing.assert_allclose(l[1], t[1], rtol=1e-12)
    np.testing.assert_allclose(l[2], t[2], rtol=1e-12)


@pytest.mark.parametrize('shape', [(1, 1, 0, 2), (1, 1, 2, 0, 3), (1, 1, 0)])
def test_grid_sample_empty_spatial_dims_refused(shape):
    grid = {4: (1, 1, 1, 2), 5: (1, 1, 1, 1, 3), 3: (1, 1, 1)}[len(shape)]
    msgs = []
    for lib in (torch, litnn):
        with pytest.raises(RuntimeError) as e:
            lib.nn.functional.grid_sample(lib.empty(shape), lib.empty(grid), align_corners=False)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


KERNEL_CASES = [((5, 5, 5, 5, 5), (1, 1, 1, 4, 4)), ((5, 5, 5, 5), (1, 1, 4, 4)), ((1, 5, 5, 5, 5), (1, 1, 1, 4, 3)),
                ((1, 5, 5, 5), (1, 1, 4, 2)), ((1, 5, 5, 5), (1, 1, 4, 3)), ((1, 5, 0, 5), (1, 1, 4, 2)), ((2, 3, 4, 4), (1, 3, 3, 2))]

@pytest.mark.parametrize('name', ['grid_sampler', 'grid_sampler_2d', 'grid_sampler_3d', '_grid_sampler_2d_cpu_fallback'])
@pytest.mark.parametrize('shapes', KERNEL_CASES)
def test_grid_sampler_kernels_check_in_torchs_order(name, shapes):
    "torch.grid_sampler{,_2d,_3d}: the common checks (batch size, the grid's last size, empty spatial dims) come before the 4-d / 5-d one."
    x, g = rng.normal(size=shapes[0]).astype(np.float32), rng.uniform(-1, 1, size=shapes[1]).astype(np.float32)
    res = []
    for lib in (torch, litnn):
        try: res.append(('ok', tuple(getattr(lib, name)(lib.tensor(x), lib.tensor(g), 0, 0, True).shape)))
        except RuntimeError as e: res.append(('RuntimeError', str(e)))
    assert res[0] == res[1]

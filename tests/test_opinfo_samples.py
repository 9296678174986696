"""Cases where litnn differed from torch on PyTorch's own OpInfo sample inputs (op_db, torch 2.13), found by the sweep
/work/w/opinfo/values.py and fixed: each case runs the same call in both libraries on the same values and compares
the result's structure (named tuple types), shapes, dtypes and values. Self-contained: no dependency on op_db."""
import warnings
import numpy as np
import pytest
import litnn

torch = pytest.importorskip('torch')


def _same(t, l):
    "torch's result `t` and litnn's `l`: the same structure, type names, shapes, dtypes, values (NaN-equal)."
    if isinstance(t, torch.Tensor):
        assert isinstance(l, litnn.Tensor), type(l)
        assert tuple(t.shape) == tuple(l.shape) and str(t.dtype)[6:] == str(l.dtype)[6:], (t.shape, t.dtype, l.shape, l.dtype)
        a, b = t.detach().resolve_conj().numpy(), l.detach().numpy()
        tol = dict(rtol=1.3e-6, atol=1e-5) if a.dtype in (np.float32, np.complex64) else dict(rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(b, a, equal_nan=True, **tol) if a.dtype.kind in 'fc' else np.testing.assert_array_equal(b, a)
    elif isinstance(t, (tuple, list)):
        assert type(t).__name__ == type(l).__name__ and len(t) == len(l), (type(t), type(l))
        for a, b in zip(t, l): _same(a, b)
    else:
        assert type(t) is type(l) and t == l, (t, l)


def _arr(shape, dtype, seed=0):
    "Fixed values in `dtype` (numpy), complex ones with both parts."
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape) + (1j * r.standard_normal(shape) if np.dtype(dtype).kind == 'c' else 0)
    return a.astype(dtype)


_i, _n = float('inf'), float('nan')
CASES = {
    # erfcx of a negative float32 is torch's 2 * exp(x * x) with x * x rounded to float32 (reference inputs: -9.1 gave
    # 3.306299e+31 in torch, litnn's exact square 3.3062907e+31)
    'erfcx_float32_negative_squares_in_float32': lambda L: L.special.erfcx(L.tensor([-9.100171, -7.3, -6.2, -6.05, -5.3, -3.1, -1.5, -0.2, 0.,
                                                                                     0.7, 4., 60., 1e8, -26.6, -26.8])),
    'erfcx_float64_unchanged': lambda L: L.special.erfcx(L.tensor([-9.100171, -6.05, -1.5, 0.7, 60.], dtype=L.float64)),
    # torch.lu(get_infos=True) returns torch.return_types._lu_with_info (LU, pivots, info); without it a plain tuple
    'lu_get_infos_named': lambda L: L.lu(L.tensor(_arr((3, 5), np.float32)), True, True),
    'lu_plain_tuple': lambda L: L.lu(L.tensor(_arr((2, 4, 4), np.float64)), True, False),
    'tensor_lu_plain_tuple': lambda L: L.tensor(_arr((3, 5), np.float32)).lu(True, True),     # the method unpacks it
    # complex LU pivots on LAPACK's cabs1 (|re| + |im|), not on the modulus
    'lu_complex_pivots': lambda L: L.lu(L.tensor(_arr((3, 3, 5), np.complex64, 1)), True, True),
    'lu_factor_complex_pivots': lambda L: L.linalg.lu_factor(L.tensor(_arr((4, 6, 5), np.complex128, 2))),
    'linalg_lu_complex': lambda L: L.linalg.lu(L.tensor(_arr((3, 5, 4), np.complex128, 3))),
    # normal(mean, std, size) takes the factories' layout= and pin_memory=
    'normal_size_layout': lambda L: (L.manual_seed(0), L.normal(1.6, 0.3, [2, 2, 2], dtype=L.float32, layout=L.strided,
                                                               device='cpu', pin_memory=False))[1],
    # polygamma n >= 2 and zeta far below zero (reference inputs -4988429.2): the same values, without millions of steps
    'polygamma_far_below_zero': lambda L: [L.polygamma(n, L.tensor([-4988429.2, -13437.7, -1001.2, -2.5, 1., 501., 1e20],
                                                                   dtype=L.float64)) for n in (2, 3, 4)],
    # trigamma as torch's kernel (calc_trigamma) in the input's dtype: float32 loses digits near the negative poles with it
    'trigamma_float32_near_poles': lambda L: [L.polygamma(1, L.tensor([-3.973021984100342, -1.3, -0.5001, -7.99, 0.2, 3.7, 40.])),
                                              L.special.polygamma(1, L.tensor([-3.973021984100342, -2.0001, 1e-3], dtype=L.float64)),
                                              L.tensor([-3.973021984100342, -1.3]).polygamma(1)],
    'zeta_far_below_zero': lambda L: L.special.zeta(L.tensor([5., 4., 2.5, 3.], dtype=L.float64),
                                                    L.tensor([-4988429.2, -13437.7, -5000.5, 2.], dtype=L.float64)),
    # complex -> bool is "either part nonzero" (c10's cast), not the real part; no warning
    'complex_to_bool': lambda L: [L.tensor([-0.001j, 0j, 1j, 2 + 0j, complex('nan')], dtype=d).bool() for d in (L.complex64, L.complex128)],
    'complex_to_bool_to': lambda L: L.tensor([[0.5j, 0j], [0j, -1 + 0j]], dtype=L.complex64).to(L.bool),
    # erfinv / erfc of a broadcast (stride-0) input: values in their places (ravel orders of input and result agreed only
    # for dense layouts)
    'erfinv_expanded': lambda L: L.erfinv(L.tensor([-0.942, -0.1962, -0.4803]).expand(3, 1, 3)),
    'erfc_expanded': lambda L: L.erfc(L.tensor([-0.942, 0.1962, 1.4803]).reshape(3, 1).expand(3, 4).t()),
    # double -> half / bfloat16 rounds through float, as c10's Half(float) and BFloat16(float) do (twice)
    'double_to_half_through_float': lambda L: L.tensor([float.fromhex('0x1.57dfffe964df3p+1'), float.fromhex('-0x1.1cdfffe43a2cfp+3'),
                                                        2.5, 65519.9], dtype=L.float64).half().float(),
    'long_to_bfloat16_through_float': lambda L: L.tensor([2**24 + 1, 2**25 + 3, 16777217 * 3, -5]).bfloat16().float(),
    # zeta's domain checks in Cephes' order: s < 1 is NaN before q's poles (zeta(-8, 0) is NaN, not inf)
    'zeta_domain_order': lambda L: L.special.zeta(L.tensor([-8., 1., 2., 2.5, 0.5, float('nan'), 5.], dtype=L.float64),
                                                  L.tensor([0., 0., -3., -2.5, 2., 1., -2.], dtype=L.float64)),
    # sort along a broadcast (stride-0) dim: torch takes it as sorted, indices 0, 1, 2... (not its tie order of a copy)
    'sort_broadcast_dim': lambda L: [L.sort(L.zeros(1).expand(100)), L.sort(L.tensor([[3.], [1.], [2.]]).expand(3, 40), descending=True),
                                     L.argsort(L.tensor([[3., 1., 2.]]).expand(40, 3), dim=0)],
    'zeta_int64': lambda L: L.special.zeta(L.tensor([-8]), L.tensor([9, 0])),
    # igamma/igammac edges in torch's order, a NaN failing each comparison (P(inf, nan) = 0, P(nan, inf) = 1, P(nan, 0) = 0),
    # and x so large that the continued fraction's factor is 0 (no NaN from inf * 0)
    # out= of the copies giving several tensors: unbind_copy and split_with_sizes_copy resize each out as any out= does
    'unbind_copy_out_resized': lambda L: (lambda o: (L.unbind_copy(L.arange(15.).reshape(5, 3), 0, out=o), o)[1])([L.empty(0) for _ in range(5)]),
    'split_with_sizes_copy_out_resized': lambda L: (lambda o: (L.split_with_sizes_copy(L.arange(125.).reshape(5, 5, 5), [1, 3, 1], -1, out=o), o)[1])(
        [L.empty(0), L.empty(2), L.empty(0)]),
    # linalg.ldl_solve writes its out= (litnn took it and left it unwritten)
    'ldl_solve_out': lambda L: (lambda LD, piv, o: (L.linalg.ldl_solve(LD, piv, L.linspace(-1, 2, 6).reshape(3, 2), out=o), o)[1])(
        *L.linalg.ldl_factor(L.tensor([[4., 1, 0], [1, 3, 1], [0, 1, 2]])), L.empty(0)),
    # out= where torch takes it: avg_pool2d/avg_pool3d (torch._C._nn), hash_tensor (uint64), native_batch_norm (three
    # outs), torch.lu (resize_as_ and copy_ of each, as torch's Python: another dtype casts)
    'avg_pool_out': lambda L: [(lambda o: (f(L.arange(n * 1.).reshape(s), 2, out=o), o)[1])(L.empty(e))
                               for f, n, s, e in ((L.nn.functional.avg_pool2d, 96, (2, 3, 4, 4), 0), (L.nn.functional.avg_pool3d, 128, (2, 1, 4, 4, 4), 3))],
    'hash_tensor_out': lambda L: [(lambda o: (L.hash_tensor(L.linspace(-3, 5, 12).reshape(3, 4), *d, out=o), o)[1])(L.empty(0, dtype=L.uint64))
                                  for d in ((), (1,))],
    'native_batch_norm_out': lambda L: (lambda o: (L.native_batch_norm(L.linspace(-2, 7, 24).reshape(4, 3, 2), L.linspace(0.5, 2, 3), L.zeros(3),
                                                                       L.zeros(3), L.ones(3), True, 0.1, 1e-5, out=o), o)[1])(
        (L.empty(0), L.empty(0), L.empty(0))),
    'lu_out': lambda L: [(lambda o: (L.lu(L.tensor(_arr((2, 3, 3), np.float32)), True, g, out=o), o)[1])(
        [L.empty(0, dtype=L.float64), L.empty(5, dtype=L.int64)] + ([L.empty(0, dtype=L.int32)] if g else [])) for g in (False, True)],
    # _segment_reduce with offsets: each run starts at its own offset (the first need not be 0) and torch checks no sum
    'segment_reduce_offsets_as_given': lambda L: [L._segment_reduce(d, r, axis=o.dim() - 1, unsafe=False, initial=1, offsets=o)
                                                  for o, d in ((L.tensor([0, 0, 0, 0, 0]), L.arange(5.)), (L.tensor([1, 2, 5]), L.arange(5.)),
                                                               (L.tensor([3, 3, 3]), L.arange(5.)), (L.tensor([[0, 2, 5], [1, 1, 3]]), L.arange(10.).reshape(2, 5)))
                                                  for r in ('max', 'sum', 'mean', 'prod', 'min')],
    'igamma_edges': lambda L: [f(L.tensor([_i, _i, _n, _n, _n, 1.5, 800., 1e-300], dtype=L.float64),
                                 L.tensor([_n, _i, _i, 0., _n, 1e300, 1e300, 1e300], dtype=L.float64)) for f in (L.igamma, L.igammac)],
}


@pytest.mark.parametrize('name', list(CASES))
def test_opinfo_sample(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        _same(CASES[name](torch), CASES[name](litnn))


def test_complex_to_bool_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert litnn.tensor([1j], dtype=litnn.complex64).bool().tolist() == [True]


def test_repeat_interleave_output_size_checked():
    "A tensor of counts whose sum is not output_size: torch's kernel refuses it."
    for L in (torch, litnn):
        with pytest.raises(RuntimeError, match='allocated size does not match required size'):
            L.repeat_interleave(L.ones(4, 1), repeats=L.tensor([1, 2, 1, 1]), dim=0, output_size=6)
        assert L.repeat_interleave(L.ones(4, 1), repeats=L.tensor([1, 2, 1, 1]), dim=0, output_size=5).shape == (5, 1)


def test_lu_out_arity_as_torch():
    "torch.lu's out= holds 2 tensors, 3 with get_infos: torch's Python raises TypeError naming the count it expected."
    for L in (torch, litnn):
        for g, o in ((False, (L.empty(0), L.empty(0, dtype=L.int32), L.empty(0, dtype=L.int32))), (True, (L.empty(0), L.empty(0, dtype=L.int32))),
                     (False, L.empty(0))):
            with warnings.catch_warnings(), pytest.raises(TypeError, match=f'expected tuple of {3 if g else 2} elements but got {len(o)}'):
                warnings.simplefilter('ignore')
                L.lu(L.ones(2, 2), True, g, out=o)


def test_to_memory_format_keeps_unconverted_self():
    "x.to(memory_format=contiguous_format) of a strided slice is x itself in torch (its suggest_memory_format is contiguous)."
    for L in (torch, litnn):
        x = L.arange(12.).reshape(2, 3, 2)[..., 1]
        assert x.to(memory_format=L.contiguous_format) is x and x.float(memory_format=L.contiguous_format) is x
        assert x.to(memory_format=L.contiguous_format, copy=True).is_contiguous()


def test_nonzero_out_type_checked_first():
    "nonzero's parser refuses an out that is no tensor (TypeError) before as_tuple's RuntimeError."
    for L in (torch, litnn):
        for a in (True, False):
            with pytest.raises(TypeError, match="nonzero\\(\\): argument 'out' must be Tensor, not tuple"):
                L.nonzero(L.ones(3), as_tuple=a, out=(L.empty(0, dtype=L.long),))
        with pytest.raises(RuntimeError, match='nonzero does not support the out kwarg when as_tuple is True'):
            L.nonzero(L.ones(3), as_tuple=True, out=L.empty(0, dtype=L.long))


@pytest.mark.parametrize('make', [lambda L: L.randn(2, 6, 4).transpose(1, 2).contiguous().transpose(1, 2), lambda L: L.randn(2, 6, 8)[:, :, ::2],
                                  lambda L: L.randn(2, 6, 4, 4)[:, :, :3]])
def test_native_group_norm_refuses_non_contiguous(make):
    "torch.native_group_norm's kernel takes an input contiguous in its suggested memory format only (F.group_norm copies first)."
    for L in (torch, litnn):
        x = make(L)
        with pytest.raises(RuntimeError, match=r'Expected X.is_contiguous\(memory_format\) to be true'):
            L.native_group_norm(x, None, None, 2, 6, x[0, 0].numel(), 2, 1e-5)
        assert L.nn.functional.group_norm(x, 2).shape == x.shape


def test_normal_tensor_mean_refuses_layout():
    for L in (torch, litnn):
        with pytest.raises(TypeError, match='invalid combination of arguments'):
            L.normal(L.zeros(2), 1., layout=L.strided)


_HALF_CASES = {
    # torch's logit kernel in float16/bfloat16 rounds 1 - x, the quotient and the log each to the dtype (eps and 1 - eps too)
    'logit_half_steps': lambda L, d: [L.logit(L.linspace(0, 1, 301, dtype=d), e) for e in (None, 0.01, 0.3)],
    'logit_half_strided': lambda L, d: L.logit(L.linspace(0.2, 0.8, 64, dtype=d)[::3]),
    # histc's bin in float16/bfloat16: (x - min) * bins / (max - min), each step rounded to the dtype (-2.4004 -> bin 38)
    # ndtr is (1 + erf(x / sqrt 2)) / 2 as torch's kernel: each step rounded, 0 in the far left tail
    'ndtr_half_steps': lambda L, d: L.special.ndtr(L.linspace(-6, 6, 301).to(d)),
    # huber_loss in float16 and smooth_l1_loss in bfloat16 are computed in float32 and rounded once by torch's kernels;
    # the other half dtype rounds each step
    'huber_and_smooth_l1_half': lambda L, d: [f(L.linspace(-9, 9, 97).to(d), L.linspace(3, -4, 97).to(d), reduction=r, **{k: v})
                                              for f, k in ((L.nn.functional.huber_loss, 'delta'), (L.nn.functional.smooth_l1_loss, 'beta'))
                                              for v in (8.698115367693557, 0.3) for r in ('none', 'sum')],
    # addr as torch's kernel: beta * input + (alpha * vec1) * vec2, each step in the dtype, beta and alpha read in it first
    'addr_half_steps': lambda L, d: [L.addr(L.linspace(-9, 9, 40).reshape(5, 8).to(d), L.linspace(-3, 4, 5).to(d), L.linspace(5, -2, 8).to(d),
                                            beta=b, alpha=a) for b, a in ((0.6, 0.2), (0, 2.5), (1, 3))],
    # add/sub with alpha: a fused multiply-add in torch's vectors, alpha * y rounded first in its scalar tail (past the
    # last whole 32-element vector of each inner loop): small tensors, row ends of broadcasts, each thread's last elements
    'add_alpha_scalar_tail': lambda L, d: [f(L.linspace(-9, 9, n).reshape(s).to(d), L.linspace(6, -5, n).reshape(s).to(d)[..., :w], alpha=a)
                                          for f in (L.add, L.sub) for a in (-3.125, 0.1) for n, s, w in ((25, (25,), 25), (280, (7, 40), 40),
                                                                                                          (280, (7, 40), 1), (100000, (100000,), 100000))],
    # bilinear's second contraction is a batched product as torch's: in half precision summed in float32, rounded once
    'bilinear_half': lambda L, d: L.nn.functional.bilinear(L.linspace(-2, 3, 45).reshape(9, 5).to(d), L.linspace(4, -1, 63).reshape(9, 7).to(d),
                                                           L.linspace(-1, 1, 210).reshape(6, 5, 7).to(d), L.linspace(0, 1, 6).to(d)),
    # adaptive_avg_pool3d in half precision as torch's kernel: each window summed in the dtype, then divided by its depth,
    # height and width in turn (each step rounded); a (1, 1, 1) output is torch's mean
    'adaptive_avg_pool3d_half': lambda L, d: [L.nn.functional.adaptive_avg_pool3d(L.linspace(-9, 9, 420).reshape(2, 5, 6, 7).to(d), o)
                                              for o in ((3, 2, 4), (2, 4, 3), 1)],
    'interpolate_area_3d_half': lambda L, d: [L.nn.functional.interpolate(L.linspace(-9, 9, 360).reshape(2, 3, 4, 3, 5).to(d), mode='area', **k)
                                              for k in (dict(size=(2, 5, 3)), dict(scale_factor=0.6))],
    # addbmm in half precision: torch adds one batch's product at a time (an addmm each, rounded to the dtype)
    'addbmm_half_per_batch': lambda L, d: [L.addbmm(L.linspace(-5, 5, 30).reshape(5, 6).to(d), L.linspace(-2, 3, 60).reshape(3, 5, 4).to(d),
                                                    L.linspace(4, -3, 72).reshape(3, 4, 6).to(d), beta=b, alpha=a) for b, a in ((1, 1), (0.6, 0.2), (0, 1.5))],
    # _segment_reduce sum/mean in half precision: torch adds row by row in the dtype from `initial`, then divides
    'segment_reduce_half': lambda L, d: [L._segment_reduce(L.linspace(-9, 9, 250).reshape(10, 5, 5).to(d), r, lengths=L.tensor([3, 0, 2, 4, 1]),
                                                           unsafe=True, **k) for r in ('sum', 'mean') for k in ({}, dict(initial=1))],
    'histc_half_steps': lambda L, d: [L.histc(L.tensor([-8.4766, -1.7656, -4.3242, -2.4004, -7.9492]).to(d), 100, -10, 10),
                                      L.histc(L.linspace(-4, 4, 200).to(d), 37, -3.3, 2.7), L.histc(L.linspace(-4, 4, 99).to(d), 64)],
}


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('name', list(_HALF_CASES))
def test_opinfo_sample_half(name, dtype):
    "Half precision results bit for bit: torch's rounding at each step where its kernel rounds."
    # add's scalar tails fall where torch's threads cut the work: both libraries run with the same thread counts (another
    # test in this process may have set torch's to 1), restored after
    before = torch.get_num_threads(), litnn.get_num_threads()
    try:
        for k in ((1, 2) if name == 'add_alpha_scalar_tail' else (None,)):
            if k is not None: torch.set_num_threads(k); litnn.set_num_threads(k)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                t, l = _HALF_CASES[name](torch, getattr(torch, dtype)), _HALF_CASES[name](litnn, getattr(litnn, dtype))
            for a, b in zip(*((t, l) if isinstance(t, list) else ([t], [l]))):
                assert str(a.dtype)[6:] == str(b.dtype)[6:] and tuple(a.shape) == tuple(b.shape)
                np.testing.assert_array_equal(b.float().numpy(), a.float().numpy())
    finally: torch.set_num_threads(before[0]); litnn.set_num_threads(before[1])


def test_ndtr_left_tail_as_torch():
    "torch's ndtr adds 1 to erf: its far left tail is 0 (erfc would give 7.6e-24 at -10), bit for bit in float32/float64."
    for d in ('float32', 'float64'):
        x = [-40., -10., -8.3, -6., -5., -4.]
        a = torch.special.ndtr(torch.tensor(x, dtype=getattr(torch, d))).numpy()
        b = litnn.special.ndtr(litnn.tensor(x, dtype=getattr(litnn, d))).numpy()
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize('kw', [dict(size=(13, 9)), dict(size=(40, 37), align_corners=True), dict(size=(5, 30)),
                                dict(scale_factor=1.7), dict(size=(13, 9), antialias=True)])
def test_bicubic_uint8_as_torch(kw):
    "uint8 bicubic resizing goes torch's separable int16 fixed-point road (width pass rounded to uint8 first), any channels."
    x = np.random.default_rng(0).integers(0, 256, (2, 5, 20, 17), dtype=np.uint8)
    a = torch.nn.functional.interpolate(torch.tensor(x), mode='bicubic', **kw).numpy()
    b = litnn.nn.functional.interpolate(litnn.tensor(x), mode='bicubic', **kw).numpy()
    np.testing.assert_array_equal(b, a)


def test_embedding_bag_float16_sums_in_float32():
    "embedding_bag sums float16 rows in float32 and rounds once (torch's fbgemm kernel); a mean divides that rounded sum."
    L = lambda M: [M.nn.functional.embedding_bag(M.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]), M.linspace(-7, 9, 70).reshape(10, 7).half(),
                                                 M.tensor([0, 3, 3, 11]), mode=m, padding_idx=p) for m in ('sum', 'mean') for p in (None, 5)]
    W = lambda M: [M.nn.functional.embedding_bag(M.tensor([3, 1, 4, 1, 5, 9, 2, 6]), M.linspace(-7, 9, 70).reshape(10, 7).half(), M.tensor([0, 3]),
                                                 mode='sum', per_sample_weights=M.linspace(-2, 3, 8).half(), padding_idx=p) for p in (None, 1)]
    for a, b in zip(L(torch) + W(torch), L(litnn) + W(litnn)): np.testing.assert_array_equal(b.float().numpy(), a.float().numpy())


def _expanded_ints(L):
    "An int64 matrix broadcast along dim 0 (stride 0), as the OpInfo sweep's expanded variant makes its inputs."
    return L.arange(20).reshape(4, 5).narrow(0, 0, 1).expand(4, 5)


# results laid out as torch's TensorIterator and clone lay them out (strides compared, values too)
_LAYOUT_CASES = {
    # an integer input cast to float first: the copy keeps the input's layout (preserve_format), a broadcast dim is not
    # put innermost (numpy's order 'K' did, so the result was column-major)
    'int_to_float_unary_expanded': lambda L: [f(_expanded_ints(L)) for f in (L.log1p, L.sin, L.sqrt, L.erf, L.deg2rad, L.logit)],
    'int_to_float_binary_expanded': lambda L: [f(_expanded_ints(L), L.tensor(3)) for f in (L.atan2, L.copysign, L.true_divide, L.ldexp)],
    'conversions_expanded': lambda L: [_expanded_ints(L).double(), _expanded_ints(L).half(), _expanded_ints(L).to(L.int32),
                                       _expanded_ints(L).float().bfloat16(), L.arange(12.).reshape(3, 4).t().to(L.float64, copy=True)],
    # rounding an integer tensor (and the sign of a bool one) is a clone: a transpose stays one
    'rounding_ints_transposed': lambda L: [f(L.arange(20).reshape(4, 5).t()) for f in (L.ceil, L.floor, L.round, L.trunc)] +
                                          [L.sign(L.arange(20).reshape(4, 5).t() > 7), L.sgn(L.arange(20).reshape(4, 5).t() > 7)],
    # zeta and the special polynomials take their first tensor operand's layout (a number takes no part)
    'zeta_and_polynomials_transposed': lambda L: [L.special.zeta(L.linspace(2, 9, 20).reshape(4, 5).t(), L.tensor(2.)),
                                                  L.special.chebyshev_polynomial_t(L.linspace(-1, 1, 20).reshape(4, 5).t(), L.tensor(3.)),
                                                  L.special.hermite_polynomial_he(L.linspace(-1, 1, 20).reshape(4, 5).t(), 3),
                                                  L.special.laguerre_polynomial_l(0.5, L.arange(20).reshape(4, 5).t())],
    # cfloat()/cdouble() take memory_format= as float() does; to(memory_format=) keeps a tensor it does not convert when
    # its suggest_memory_format is the one asked for (torch's to_will_alias: a strided slice stays one)
    'complex_conversions_memory_format': lambda L: [L.arange(6.).reshape(2, 3).t().cfloat(memory_format=L.contiguous_format),
                                                    L.arange(6.).reshape(2, 3).t().cdouble(memory_format=L.contiguous_format),
                                                    L.arange(12.).reshape(2, 3, 2).cfloat()[..., 1].cfloat(memory_format=L.contiguous_format),
                                                    L.arange(12.).reshape(2, 3, 2)[..., 1].float(memory_format=L.contiguous_format),
                                                    L.arange(12.).reshape(2, 3, 2)[..., 1].to(memory_format=L.contiguous_format),
                                                    L.arange(12.).reshape(2, 3, 2)[..., 1].double(memory_format=L.contiguous_format)],
    # the *_scatter ops copy their input as torch's clone_preserve_strides (its whole memory, strides and offset): an
    # as_strided view lands where it would in the input itself (a strided slice's gaps, a transpose), an expanded input
    # is copied as clone copies it
    'as_strided_scatter_input_memory': lambda L: [L.as_strided_scatter(x, L.tensor([[100., 200], [300, 400]]), (2, 2), (1, 2), o)
                                                  for x in (L.arange(18.).reshape(3, 3, 2)[..., 1], L.arange(9.).reshape(3, 3).t(),
                                                            L.arange(3.).expand(3, 3), L.arange(9.).reshape(3, 3)) for o in (0, 1)],
    'slice_select_scatter_keep_strides': lambda L: [L.slice_scatter(L.arange(18.).reshape(3, 3, 2)[..., 1], L.ones(3, 1), 1, 0, 1),
                                                    L.select_scatter(L.arange(18.).reshape(3, 3, 2)[..., 1], L.ones(3), 0, 1)],
    # polygamma n >= 2 (zeta's flat work) gives its result the input's layout back
    'polygamma_transposed': lambda L: [L.polygamma(n, L.linspace(0.5, 5, 20).reshape(4, 5).t()) for n in (0, 1, 2, 3)],
    # igamma's result, made by a reshape of its flat work, takes its first operand's layout
    'igamma_transposed': lambda L: [f(L.linspace(0.5, 9, 20).reshape(4, 5).t(), L.tensor(2.)) for f in (L.igamma, L.igammac)],
    # a unary op whose formula is not one numpy ufunc (erfinv's float64 steps, complex log1p's where) keeps the order of a
    # broadcast input's dims, as numpy's ufuncs and torch do (numpy's copies put the stride-0 dim innermost)
    'unary_formulas_expanded': lambda L: [L.erfinv(L.linspace(-0.9, 0.9, 20).reshape(4, 5)[:1].expand(4, 5)),
                                          L.log1p(L.linspace(-0.5, 2, 20).reshape(4, 5).to(L.complex64)[:1].expand(4, 5)),
                                          L.erfinv(L.linspace(-0.9, 0.9, 400).reshape(20, 20)[:1].expand(20, 20)),
                                          L.erfinv(L.linspace(-0.9, 0.9, 20).reshape(4, 5).t())],
    # a number to a tensor power is row-major whatever the exponent's layout (torch's pow.Scalar asks for no strides);
    # ldexp multiplies by it (OpInfo's transposed sample: (10, 1, 5) and (10, 5))
    'number_to_tensor_power_row_major': lambda L: [L.pow(2., L.arange(20.).reshape(4, 5).t()), 3 ** L.arange(20).reshape(4, 5).t(),
                                                   L.float_power(2, L.arange(20.).reshape(4, 5).t()), L.pow(2., L.arange(40.).reshape(4, 10)[:, ::2]),
                                                   L.pow(L.tensor(2.), L.arange(20.).reshape(4, 5).t()),
                                                   L.ldexp(L.arange(50.).reshape(10, 1, 5).mT.contiguous().mT, L.arange(50.).reshape(10, 5).mT.contiguous().mT),
                                                   L.ldexp(L.arange(50).reshape(10, 1, 5).mT.contiguous().mT, L.arange(50).reshape(10, 5).mT.contiguous().mT)],
    # ldexp is torch's mul(input, _pow2(input, other)): 2 is a 0-d tensor of input's dtype for float64, half and complex
    # inputs (other's layout takes part), a number for integer and float32 ones; an integer exponent of a float input goes
    # to torch's ldexp kernel (laid out as a product of the two)
    'ldexp_pow2_as_torch': lambda L: [L.ldexp(L.arange(50).reshape(10, 1, 5).to(dt).mT.contiguous().mT,
                                              (L.arange(50).reshape(10, 5) * 0.25 - 4).to(odt).mT.contiguous().mT)
                                      for dt in (L.float32, L.float64, L.complex64, L.int64, L.float16)
                                      for odt in (L.float32, L.float64, L.int64, L.int32)],
}


@pytest.mark.parametrize('name', list(_LAYOUT_CASES))
def test_opinfo_sample_layout(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t, l = _LAYOUT_CASES[name](torch), _LAYOUT_CASES[name](litnn)
    for a, b in zip(t, l):
        assert tuple(b.stride()) == tuple(a.stride()), (b.stride(), a.stride())
        np.testing.assert_allclose(b.float().numpy(), a.float().numpy(), rtol=1.3e-6, atol=1e-5)     # (float32: torch.testing's defaults)


@pytest.mark.parametrize('view', [lambda a: a, lambda a: a.t(), lambda a: a[:, ::2], lambda a: a[:1].expand(3, 4)], ids=['plain', 't', 'gaps', 'expanded'])
def test_as_strided_scatter_gradients_of_any_layout(view):
    "as_strided_scatter's view is of the result's memory (its input's, copied): first and second derivatives by finite differences."
    from litnn.autograd import gradcheck, gradgradcheck
    x = litnn.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    v = litnn.tensor([1., 2.], dtype=litnn.float64, requires_grad=True)
    f = lambda x, v: litnn.as_strided_scatter(view(x), v, (2,), (2,), 1)
    assert gradcheck(f, (x, v)) and gradgradcheck(f, (x, v))


def test_native_batch_norm_statistics_have_no_tangent():
    "native_batch_norm's saved mean and invstd are not differentiable in either mode: no gradient, no forward tangent."
    for L in (torch, litnn):
        F = torch.autograd.forward_ad if L is torch else litnn.autograd.forward_ad
        x = L.linspace(-2, 3, 24, dtype=L.float64).reshape(4, 3, 2)
        with F.dual_level():
            r = L.native_batch_norm(F.make_dual(x, L.ones_like(x)), None, None, None, None, True, 0.1, 1e-5)
            assert [F.unpack_dual(t).tangent is None for t in r] == [False, True, True]
        assert [t.requires_grad for t in L.native_batch_norm(x.clone().requires_grad_(), None, None, None, None, True, 0.1, 1e-5)] == [True, False, False]


def test_make_dual_lays_the_tangent_out_as_the_primal():
    "make_dual copies a tangent laid out otherwise into zeros laid out as the primal (its memory too): as_strided reads both alike."
    for L in (torch, litnn):
        F = torch.autograd.forward_ad if L is torch else litnn.autograd.forward_ad
        x, t, y, ty = L.arange(10.)[1:], L.linspace(1, 2, 9), L.arange(4.), L.ones(4)
        with F.dual_level():
            d = F.make_dual(x, t)
            assert F.unpack_dual(d).tangent is not t and F.unpack_dual(F.make_dual(y, ty)).tangent is ty
            got = F.unpack_dual(d.as_strided((4,), (2,), 0)).tangent.tolist()
        np.testing.assert_allclose(got, [0., 1.125, 1.375, 1.625])


def test_matmul_vector_matrix_out_restrided():
    "matmul(vector, matrix, out=) is torch's mm_out into out as a 1 x n matrix (resized so: row-major), then squeeze_(0)."
    for make in (lambda L: L.zeros(8)[::2], lambda L: L.zeros(0), lambda L: L.zeros(1, 4), lambda L: L.zeros(2, 2)):
        res = []
        for L in (torch, litnn):
            o, x, w = make(L), L.arange(3.), L.arange(12.).reshape(4, 3)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                r = L.matmul(x, w.t(), out=o)
            assert r is o
            res.append((tuple(o.shape), tuple(o.stride()), o.tolist()))
        assert res[0] == res[1]


def test_dot_vdot_of_lazy_conjugates_return_one():
    "dot of two lazy conjugates and vdot(x, conj(y)) are torch's conjugate views of the plain product (is_conj), same values."
    a = _arr((5,), np.complex64)
    for f in ('dot', 'vdot'):
        got = []
        for L in (torch, litnn):
            x = L.tensor(a)
            r = [getattr(L, f)(u, v) for u in (x, x.conj()) for v in (x, x.conj())]
            got.append(([t.is_conj() for t in r], [complex(t) for t in r]))
        assert got[0][0] == got[1][0]
        np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-5)


def test_conj_tangent_is_a_lazy_conjugate():
    "forward AD: conj's tangent is conj of the tangent (is_conj), conj_physical's a computed one; ifft of a real input (a conj) too."
    for L in (torch, litnn):
        F = L.autograd.forward_ad
        x = L.tensor(_arr((6,), np.complex128)); t = L.tensor(_arr((6,), np.complex128, 1))
        r = L.tensor(_arr((2, 6), np.float64)); tr = L.tensor(_arr((2, 6), np.float64, 1))
        with F.dual_level():
            outs = [F.make_dual(x, t).conj(), F.make_dual(x, t).conj_physical(), F.make_dual(x, t).conj().conj(),
                    L.fft.ifft(F.make_dual(r, tr), n=8, dim=1, norm='ortho'), L.fft.ihfft(F.make_dual(r, tr))]
            tans = [F.unpack_dual(o).tangent for o in outs]
            if L is torch: want = [(u.is_conj(), u.resolve_conj().numpy()) for u in tans]
            else: got = [(u.is_conj(), u.resolve_conj().numpy()) for u in tans]
    for (wc, wv), (gc, gv) in zip(want, got):
        assert wc == gc
        np.testing.assert_allclose(gv, wv, rtol=1e-12, atol=1e-12)


def test_lu_solve_left_false_conjugate_view_but_empty():
    "lu_solve(left=False) of complex matrices is torch's conjugate view (X = (A^-H B^H)^H); of an empty B a plain tensor."
    A = _arr((3, 3), np.complex64)
    for B in (_arr((4, 3), np.complex64, 1), np.zeros((0, 3), np.complex64), np.zeros((2, 0, 3), np.complex64)):
        got = []
        for L in (torch, litnn):
            LU, piv = L.linalg.lu_factor(L.tensor(A))
            r = L.linalg.lu_solve(LU, piv, L.tensor(B), left=False, adjoint=B.ndim == 3)
            got.append((r.is_conj(), tuple(r.shape), r.resolve_conj().numpy()))
        assert got[0][:2] == got[1][:2]
        np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('name', ['hermite_polynomial_h', 'hermite_polynomial_he', 'laguerre_polynomial_l', 'legendre_polynomial_p'])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_polynomial_recurrences_round_as_torch(name, dtype):
    """torch's CPU kernels (built with FMA, as on every x86-64 with AVX2 and on arm64) fuse the first product of their
    recurrences' `a * b - c * d`; over degrees up to 60 the plain float32 expression drifted past torch.testing's
    tolerance in ~5% of elements (OpInfo reference inputs: 1,740 of 943,593 for hermite_polynomial_h)."""
    r = np.random.default_rng(0)
    x = (r.standard_normal(4000) * 3).astype(dtype)
    if name == 'legendre_polynomial_p': x = np.clip(x / 3, -1, 1)
    n = r.integers(0, 60, 4000).astype(dtype)
    t = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    l = getattr(litnn.special, name)(litnn.tensor(x), litnn.tensor(n)).numpy()
    tol = dict(rtol=1.3e-6, atol=1e-5) if dtype == 'float32' else dict(rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(l, t, equal_nan=True, **tol)


@pytest.mark.parametrize('padding_mode', ['zeros', 'border', 'reflection'])
@pytest.mark.parametrize('align_corners', [False, True])
def test_grid_sample_2d_float32_coordinates_as_torch(padding_mode, align_corners):
    """torch's vectorised 2-d grid sampler maps x to (x + 1)·(n/2) - 1/2 with the product and the difference rounded once
    (its compiler fuses them), not ((x + 1)·n - 1)/2: with a 150-pixel side the float32 coordinates differed in the last bit,
    ~500 of 72,000 outputs past torch.testing's tolerance (OpInfo reference inputs: 6 samples, up to 2,602 of 943,920)."""
    r = np.random.default_rng(0)
    inp = (r.standard_normal((2, 3, 120, 150)) * 30).astype(np.float32)
    g = r.uniform(-1.1, 1.1, (2, 100, 120, 2)).astype(np.float32)
    t = torch.nn.functional.grid_sample(torch.tensor(inp), torch.tensor(g), 'bilinear', padding_mode, align_corners).numpy()
    l = litnn.nn.functional.grid_sample(litnn.tensor(inp), litnn.tensor(g), 'bilinear', padding_mode, align_corners).numpy()
    np.testing.assert_allclose(l, t, rtol=1.3e-6, atol=1e-5)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32'])
@pytest.mark.parametrize('padding_mode', ['zeros', 'border', 'reflection'])
@pytest.mark.parametrize('align_corners', [False, True])
def test_grid_sample_3d_weights_as_torch(dtype, padding_mode, align_corners):
    """torch's 3-d grid sampler weighs a corner by (x_hi - x) or (x - x_lo), for x, then y, then z, each step in the input's
    dtype; litnn's 1 - fraction, z first, rounded otherwise in float16/bfloat16 (OpInfo samples: 12 of 24 differed)."""
    r = np.random.default_rng(1)
    inp, g = r.standard_normal((2, 3, 5, 5, 5)), r.uniform(-1.2, 1.2, (2, 4, 5, 6, 3))
    got = [L.nn.functional.grid_sample(L.tensor(inp).to(getattr(L, dtype)), L.tensor(g).to(getattr(L, dtype)), 'bilinear',
                                       padding_mode, align_corners).float().numpy() for L in (torch, litnn)]
    tol = dict(float16=(1e-3, 1e-5), bfloat16=(1.6e-2, 1e-5), float32=(1.3e-6, 1e-5))[dtype]
    np.testing.assert_allclose(got[1], got[0], rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32'])
@pytest.mark.parametrize('padding_mode', ['zeros', 'border', 'reflection'])
@pytest.mark.parametrize('align_corners', [False, True])
def test_grid_sample_bicubic_separable_as_torch(dtype, padding_mode, align_corners):
    """torch's bicubic grid sampler interpolates each row of 4 taps along x, then the 4 rows along y (cubic_interp1d),
    each step rounded in float16/bfloat16; litnn summed the 16 products tap by tap (OpInfo half samples: 12 of 12 differed)."""
    r = np.random.default_rng(2)
    inp, g = r.standard_normal((2, 3, 5, 5)), r.uniform(-1.2, 1.2, (2, 6, 7, 2))
    got = [L.nn.functional.grid_sample(L.tensor(inp).to(getattr(L, dtype)), L.tensor(g).to(getattr(L, dtype)), 'bicubic',
                                       padding_mode, align_corners).float().numpy() for L in (torch, litnn)]
    tol = dict(float16=(1e-3, 1e-5), bfloat16=(1.6e-2, 1e-5), float32=(1.3e-6, 1e-5))[dtype]
    np.testing.assert_allclose(got[1], got[0], rtol=tol[0], atol=tol[1])

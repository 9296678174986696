"""Cases found by sweeping PyTorch's own OpInfo database (op.error_inputs and float64 sample gradients) against litnn,
each compared with real torch on the same call: the exception type and first line of its message, or the outputs'
grad_fn names and the gradients for a fixed cotangent. (The sweeps: /work/w/opinfo/errors.py and grads.py.)"""
import numpy as np, pytest
torch = pytest.importorskip('torch')
import litnn

def _raised(M, fn):
    try: fn(M)
    except Exception as e: return type(e).__name__, (str(e).splitlines() or [''])[0].replace('litnn.', 'torch.')
    return None

ERRORS = {   # M -> a call that raises in torch 2.13
    'take_along_dim_index_dtype': lambda M: M.take_along_dim(M.ones(2, 3), M.zeros(2, 1, dtype=M.int32), 1),
    'sum_to_size_not_expandable': lambda M: M.ones(10, 5, 10).sum_to_size(10, 10),
    'sum_to_size_too_many_dims': lambda M: M.ones(10, 5, 10).sum_to_size(4, 10, 5, 10),
    'sum_to_size_broadcast_1': lambda M: M.ones(10, 5, 10).sum_to_size(11, 1),
    'sum_to_size_no_size': lambda M: M.ones(2).sum_to_size(),
    'complex_float_int': lambda M: M.complex(M.ones(2), M.ones(2, dtype=M.int32)),
    'complex_int_float': lambda M: M.complex(M.ones(2, dtype=M.int32), M.ones(2)),
    'complex_float_double': lambda M: M.complex(M.ones(2), M.ones(2, dtype=M.float64)),
    'movedim_counts_differ': lambda M: M.ones(2, 3, 4, 5, 6).movedim((3, -3), (1, 0, -1)),
    'movedim_repeated_source': lambda M: M.ones(2, 3, 4, 5, 6).movedim((0, 4, -5), (0, 1, 2)),
    'movedim_repeated_destination': lambda M: M.ones(2, 3, 4, 5, 6).movedim((0, 1, 2), (0, 4, -5)),
    'movedim_counts_before_range': lambda M: M.ones(2, 3).movedim((7,), (0, 1)),
    'linspace_1d_bounds': lambda M: M.linspace(M.ones(1), M.ones(1), 5),
    'linspace_1d_start_before_steps': lambda M: M.linspace(M.ones(1), 3, -1),
    'linspace_1d_end': lambda M: M.linspace(M.tensor(1.0), M.ones(2), 5),
    'logspace_1d_end': lambda M: M.logspace(2, M.ones(2), 5),
    'cov_aweights_dtype_before_numel': lambda M: M.cov(M.ones(2, 5), aweights=M.ones(2, dtype=M.long)),
    'cov_fweights_dtype_before_numel': lambda M: M.cov(M.ones(2, 5), fweights=M.ones(2)),
    'narrow_copy_negative_length': lambda M: M.ones(10).narrow_copy(0, 0, -1),
    'narrow_copy_negative_start_and_length': lambda M: M.ones(10).narrow_copy(0, -3, -8),
    'narrow_copy_start_range_first': lambda M: M.ones(10).narrow_copy(0, 12, -3),
    'empty_permuted_dim_range': lambda M: M.empty_permuted((2,), (3,)),
    'empty_permuted_negative_dim': lambda M: M.empty_permuted((2, 3), (-1, 0)),
    'empty_permuted_duplicate': lambda M: M.empty_permuted((2, 3), (0, 0)),
    'conv2d_same_ranks_first': lambda M: M.nn.functional.conv2d(M.ones(1, 1, 4, 3), M.ones(1, 2, 2), padding='same'),
    'conv1d_same_ranks_first': lambda M: M.nn.functional.conv1d(M.ones(1, 1, 4), M.ones(1, 1, 2, 2), padding='same'),
    'conv3d_same_ranks_first': lambda M: M.nn.functional.conv3d(M.ones(1, 1, 3, 4, 5), M.ones(1, 1, 4, 3), padding='same'),
    'avg_pool3d_negative_pad_before_shape': lambda M: M.nn.functional.avg_pool3d(M.ones(0, 1, 49, 50), 3, padding=-1),
    'avg_pool3d_big_pad_before_shape': lambda M: M.nn.functional.avg_pool3d(M.ones(0, 1, 49, 50), 2, stride=1, padding=4),
    'max_pool3d_negative_pad_before_shape': lambda M: M.nn.functional.max_pool3d(M.ones(0, 1, 49, 50), 3, padding=-1),
    'max_pool3d_big_pad_per_dim': lambda M: M.nn.functional.max_pool3d(M.ones(1, 1, 4, 4, 4), 3, padding=(0, 1, 2)),
    'max_pool3d_pad_with_zero_dilation': lambda M: M.nn.functional.max_pool3d(M.ones(1, 1, 4, 4, 4), 3, padding=1, dilation=0),
    'scatter_src_dims_before_bounds': lambda M: M.zeros(3, 5).scatter(0, M.tensor([[34, 1], [1, 2]]), M.ones(5, 2, 2)),
    'scatter_reduce_src_dims': lambda M: M.zeros(3, 5).scatter_reduce(0, M.tensor([[0, 1]]), M.ones(1, 2, 1), 'sum'),
    'scatter_0d_src_index_too_long': lambda M: M.zeros(3).scatter(0, M.tensor([0, 1]), M.tensor(2.0)),
    'multinomial_too_many_categories': lambda M: M.multinomial(M.ones(2 ** 24 + 1), 1),
}

@pytest.mark.parametrize('case', list(ERRORS))
def test_error_like_torch(case):
    want = _raised(torch, ERRORS[case])
    assert want is not None
    assert _raised(litnn, ERRORS[case]) == want

def _x(M, *shape, lo=-2.0):
    n = int(np.prod(shape))
    return M.linspace(lo, 3.0, n, dtype=M.float64).reshape(shape).requires_grad_()

GRADS = {   # M -> (outputs, inputs that require grad)
    'take_along_dim_negative_index': lambda M: (lambda x: ([M.take_along_dim(x, M.tensor([[-1, 0], [-3, 2]]), 1)], [x]))(_x(M, 2, 3)),
    'sum_empty_dim_list': lambda M: (lambda x: ([x.sum(dim=()), x.sum(dim=[], keepdim=True)], [x]))(_x(M, 2, 3)),
    'sum_empty_dim_0d': lambda M: (lambda x: ([x.sum(dim=())], [x]))(_x(M)),
    'gather_0d_input': lambda M: (lambda x: ([x.gather(0, M.tensor([0, 0]))], [x]))(_x(M)),
    'to_channels_last_copy': lambda M: (lambda x: ([x.to(memory_format=M.channels_last), x.float(memory_format=M.channels_last)], [x]))(_x(M, 2, 3, 2, 2)),
    'H_of_matrix': lambda M: (lambda x: ([x.H], [x]))(_x(M, 2, 3)),
    'vdot_real': lambda M: (lambda x, y: ([M.vdot(x, y), M.linalg.vecdot(x, y)], [x, y]))(_x(M, 4), _x(M, 4, lo=1.0)),
    'scatter_0d_src': lambda M: (lambda x, s: ([x.scatter(0, M.tensor([1]), s), x.scatter_reduce(0, M.tensor([2]), s, 'sum')], [x, s]))(_x(M, 3), _x(M, lo=2.0)),
    'gather_empty_index': lambda M: (lambda x: ([x.gather(0, M.zeros(2, 0, dtype=M.long))], [x]))(_x(M, 5)),
}

def test_H_of_0d_is_itself_with_warning():
    for M in (torch, litnn):
        x = M.tensor(2.0, requires_grad=True)
        before = M.is_warn_always_enabled()
        M.set_warn_always(True)           # (a TORCH_WARN_ONCE: another test in this process may have used up the once)
        try:
            with pytest.warns(UserWarning, match='Tensor.H is deprecated on 0-D tensors'): assert x.H is x
        finally: M.set_warn_always(before)

def test_vdot_complex_grad_fn():
    for M in (torch, litnn):
        c = M.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        assert type(M.vdot(c, c.detach()).grad_fn).__name__ == 'VdotBackward0'

@pytest.mark.parametrize('case', list(GRADS))
def test_grads_like_torch(case):
    res = {}
    for M in (torch, litnn):
        outs, ins = GRADS[case](M)
        cts = [M.linspace(-1.0, 2.0, o.numel(), dtype=M.float64).reshape(o.shape) for o in outs]
        gs = M.autograd.grad(outs, ins, cts, allow_unused=True)
        res[M] = ([type(o.grad_fn).__name__ for o in outs], [tuple(o.shape) for o in outs],
                  [None if g is None else np.asarray(g.detach().numpy()) for g in gs])
    (tn, ts, tg), (ln, ls, lg) = res[torch], res[litnn]
    assert ln == tn and ls == ts
    for a, b in zip(tg, lg):
        assert (a is None) == (b is None)
        if a is not None: np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)

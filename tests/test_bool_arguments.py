"""torch's argument parser takes only True or False for a bool argument of a C++-bound function (keepdim, descending,
largest, sorted, stable, unbiased, requires_grad): 1, None, a numpy bool or a tensor is a TypeError naming the argument
(reference/torch/with_numpy_argument_names, `_bool_arg`)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

_CALLS = {
    'sum_kw_int': lambda L, x: x.sum(0, keepdim=1), 'sum_kw_npbool': lambda L, x: x.sum(0, keepdim=np.True_),
    'sum_kw_none': lambda L, x: x.sum(0, keepdim=None), 'sum_kw_str': lambda L, x: x.sum(0, keepdim='yes'),
    'sum_kw_tensor': lambda L, x: x.sum(0, keepdim=L.tensor(True)), 'max_pos': lambda L, x: x.max(0, 1),
    'fn_sum_pos': lambda L, x: L.sum(x, 0, 1), 'mean_pos': lambda L, x: x.mean(0, 1), 'argmax_pos': lambda L, x: x.argmax(0, 1),
    'topk_largest': lambda L, x: x.topk(1, largest=0), 'ones_requires_grad': lambda L, x: L.ones(2, requires_grad=1),
    'zeros_requires_grad_np': lambda L, x: L.zeros(2, requires_grad=np.True_), 'requires_grad_pos': lambda L, x: x.requires_grad_(1),
    'kthvalue_pos': lambda L, x: x.kthvalue(1, 0, 1), 'amax_pos': lambda L, x: x.amax(0, 1), 'logsumexp_pos': lambda L, x: x.logsumexp(0, 1),
    'sort_kw': lambda L, x: L.sort(x, descending=1), 'argsort_kw': lambda L, x: L.argsort(x, descending=1),
    'std_unbiased': lambda L, x: x.std(0, unbiased=1), 'std_mean_keepdim': lambda L, x: L.std_mean(x, 0, keepdim=1),
    'unique_sorted': lambda L, x: L.unique(x, sorted=1), 'unique_inverse': lambda L, x: x.unique(return_inverse=1),
    'unique_counts_none': lambda L, x: L.unique(x, return_counts=None), 'unique_dim_sorted': lambda L, x: L.unique(x, sorted=np.True_, dim=0),
    'Parameter_int': lambda L, x: L.nn.Parameter(x, 1), 'Parameter_none': lambda L, x: L.nn.Parameter(x, requires_grad=None),
    'Parameter_npbool': lambda L, x: L.nn.Parameter(x, np.True_),
    'nonzero_as_tuple_none': lambda L, x: x.nonzero(as_tuple=None), 'fn_nonzero_as_tuple_int': lambda L, x: L.nonzero(x, as_tuple=1),
}
_ACCEPTED = {'sum_true': lambda L, x: x.sum(0, True), 'max_true': lambda L, x: x.max(0, True)[0], 'sort_pos': lambda L, x: L.sort(x, 0, True)[0],
             'var_pos': lambda L, x: x.var(0, True, True), 'kw_false': lambda L, x: x.mean(1, keepdim=False)}


@pytest.mark.parametrize('name', sorted(_CALLS))
def test_a_bool_argument_that_is_not_a_bool_is_refused_as_torch(name):
    x = torch.arange(6.).reshape(2, 3)
    with pytest.raises(TypeError): _CALLS[name](torch, x)
    with pytest.raises(TypeError, match='must be bool|keepdim|descending|largest|unbiased|requires_grad|sorted|return_inverse|return_counts|require_grad'):
        _CALLS[name](litnn, litnn.arange(6.).reshape(2, 3))


@pytest.mark.parametrize('name', sorted(_ACCEPTED))
def test_true_and_false_are_accepted_by_position_and_keyword(name):
    a = _ACCEPTED[name](torch, torch.arange(6.).reshape(2, 3))
    b = _ACCEPTED[name](litnn, litnn.arange(6.).reshape(2, 3))
    np.testing.assert_allclose(b.numpy(), a.numpy())


def test_the_message_names_the_argument_and_its_position_as_torch():
    for call in (lambda L: L.ones(2, 3).sum(0, keepdim=1), lambda L: L.ones(2, 3).max(0, 1), lambda L: L.sum(L.ones(2, 3), 0, 1),
                 lambda L: L.ones(2, 3).topk(1, largest=0), lambda L: L.ones(2, 3).nonzero(as_tuple=None)):
        with pytest.raises(TypeError) as t: call(torch)
        with pytest.raises(TypeError) as l: call(litnn)
        assert str(l.value) == str(t.value)

"""torch's argument parser for float and int arguments of C++-bound functions (the random in-place fills, logit,
nan_to_num, polygamma, mvlgamma): a real number, a numpy number or a 0-d tensor outside the graph is read as its number;
a tensor of more elements or one that requires grad, a complex number, a string or None (where not optional) is a
TypeError naming the argument and its position (`_float_arg`, `_int_arg` in 10_tensor)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

FLOAT_CALLS = ['x.uniform_(v, 2)', 'x.normal_(0, v)', 'x.exponential_(v)', 'x.geometric_(v)', 'x.log_normal_(v)', 'x.cauchy_(0, v)',
               'x.clone().logit_(v)', 'L.logit(x, v)', 'L.nan_to_num(x, v)', 'L.nan_to_num(x, 0.0, v)']
VALUES = ['L.tensor(0.5)', 'L.tensor(1)', 'L.tensor(True)', 'L.tensor(0.5, requires_grad=True)', 'L.tensor([0.5])',
          'np.float32(0.2)', 'True', '1+0j', "'1'", 'None', 'L.tensor(1+1j)', '0.3']


def _run(L, call, value):
    x = L.full((3,), 0.5)
    try: r = eval(call, dict(L=L, np=np, x=x, v=eval(value, dict(L=L, np=np))))
    except Exception as e: return type(e).__name__, str(e)
    return 'ok', str(r.dtype).split('.')[-1], tuple(r.shape)


@pytest.mark.parametrize('value', VALUES)
@pytest.mark.parametrize('call', FLOAT_CALLS)
def test_float_arguments_as_torch(call, value):
    assert _run(litnn, call, value) == _run(torch, call, value)


@pytest.mark.parametrize('call', ['x.mvlgamma_(2.0)', 'L.mvlgamma(x + 2, 2.0)', 'L.polygamma(1.0, x)', 'x.polygamma_(1.0)',
                                  'x.polygamma(1.0)', 'x.polygamma(L.tensor(1))', 'L.mvlgamma(x + 2, np.int64(2))', 'x.polygamma_(True)'])
def test_int_arguments_as_torch(call):
    assert _run(litnn, call, 'None') == _run(torch, call, 'None')


def test_a_0d_tensor_argument_gives_the_same_numbers_as_its_number():
    for L in (litnn, torch):
        L.manual_seed(0); a = L.empty(5).uniform_(L.tensor(-1.0), L.tensor(2))
        L.manual_seed(0); b = L.empty(5).uniform_(-1.0, 2)
        assert a.tolist() == b.tolist()
    litnn.manual_seed(0); torch.manual_seed(0)
    assert litnn.empty(5).normal_(0.5, litnn.tensor(2.0)).tolist() == torch.empty(5).normal_(0.5, torch.tensor(2.0)).tolist()

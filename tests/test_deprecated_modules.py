"""The deprecated NLLLoss2d and Container (reference/nn/loss_deprecated_names) side by side with torch 2.13."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')
from functional_pairs import DTYPES, pair, same

rng = np.random.default_rng(0)


# --- reference/nn/loss_deprecated_names: NLLLoss2d, Container ----------------------------------------------------------------

def built(make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        m = make()
    return m, [(x.category, str(x.message), x.filename) for x in w]


def test_deprecated_modules_warn_like_torch():
    for name, kwargs in (('NLLLoss2d', dict(ignore_index=1)), ('Container', {})):
        (lm, lw), (tm, tw) = built(lambda: getattr(litnn.nn, name)(**kwargs)), built(lambda: getattr(torch.nn, name)(**kwargs))
        assert lw == tw and lw[0][0] is FutureWarning and lw[0][2] == __file__
        assert repr(lm) == repr(tm)
        assert getattr(litnn.nn, name).__deprecated__ == getattr(torch.nn, name).__deprecated__
    for lib in (litnn, torch):                                   # subclassing warns; building the subclass does not
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            class Old(lib.nn.Container): pass
            Old()
        assert len(w) == 1


@pytest.mark.parametrize('dt', DTYPES)
def test_nll_loss2d_like_torch(dt):
    a = rng.normal(size=(2, 4, 3, 5)).astype(dt)
    target = rng.integers(0, 4, (2, 3, 5))
    weight = np.abs(rng.normal(size=4)).astype(dt)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        lm, tm = litnn.nn.NLLLoss2d(litnn.tensor(weight), ignore_index=2), torch.nn.NLLLoss2d(torch.tensor(weight), ignore_index=2)
        c = litnn.nn.Container(a=litnn.nn.Linear(2, 3), b=litnn.nn.ReLU())
    l, t = pair(a)
    ly, ty = lm(l, litnn.tensor(target)), tm(t, torch.tensor(target))
    same(ly, ty, dt); ly.backward(); ty.backward(); same(l.grad, t.grad, dt)
    assert isinstance(lm, litnn.nn.NLLLoss) and list(lm.state_dict()) == list(tm.state_dict())
    assert list(c.state_dict()) == ['a.weight', 'a.bias']
    assert type(lm).__module__ == 'litnn.nn.modules.loss' and litnn.nn.modules.loss.NLLLoss2d is type(lm)

"""channel_shuffle (reference/nn/channelshuffle) side by side with torch 2.13."""
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF
from functional_pairs import DTYPES, pair, same, same_error

rng = np.random.default_rng(0)


# --- channel_shuffle ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('shape,groups', [((2, 6, 3), 2), ((2, 6, 3, 2), 3), ((1, 4, 2, 2, 2), 4), ((2, 5, 1), 1)])
def test_channel_shuffle_like_torch(dt, shape, groups):
    a = rng.normal(size=shape).astype(dt)
    w = rng.normal(size=shape).astype(dt)
    for lf, tf in ((LF.channel_shuffle, TF.channel_shuffle), (litnn.nn.ChannelShuffle(groups), torch.nn.ChannelShuffle(groups))):
        l, t = pair(a)
        ly, ty = (lf(l), tf(t)) if isinstance(lf, litnn.nn.Module) else (lf(l, groups), tf(t, groups))
        same(ly, ty, dt); assert ly.is_contiguous()
        (ly * litnn.tensor(w)).sum().backward(); (ty * torch.tensor(w)).sum().backward()
        same(l.grad, t.grad, dt)


def test_native_channel_shuffle_has_no_derivative():
    l, t = pair(rng.normal(size=(2, 4, 3)))
    ly, ty = LF.native_channel_shuffle(l, 2), TF.native_channel_shuffle(t, 2)
    same(ly, ty); assert ly.requires_grad and ty.requires_grad
    same_error(lambda: ly.sum().backward(), lambda: ty.sum().backward())
    assert not LF.native_channel_shuffle(l.detach(), 2).requires_grad


@pytest.mark.parametrize('make', [lambda lib: lib.ones(2, 6, 2), lambda lib: lib.ones(6, 2), lambda lib: lib.ones(6), lambda lib: [1.]])
@pytest.mark.parametrize('groups', [0, -1, 4, 2.5, True, 3])
@pytest.mark.parametrize('name', ['channel_shuffle', 'native_channel_shuffle'])
def test_channel_shuffle_errors_like_torch(make, groups, name):
    lf, tf = getattr(LF, name), getattr(TF, name)
    try: expected = tf(make(torch), groups)
    except Exception:
        same_error(lambda: lf(make(litnn), groups), lambda: tf(make(torch), groups)); return
    assert lf(make(litnn), groups).tolist() == expected.tolist()


def test_channel_shuffle_module():
    l, t = litnn.nn.ChannelShuffle(3), torch.nn.ChannelShuffle(3)
    assert repr(l) == repr(t) and list(l.state_dict()) == list(t.state_dict()) == []
    assert type(l).__module__ == 'litnn.nn.modules.channelshuffle' and litnn.nn.modules.ChannelShuffle is l.__class__
    same_error(lambda: litnn.nn.ChannelShuffle(2.5)(litnn.ones(1, 2, 2)), lambda: torch.nn.ChannelShuffle(2.5)(torch.ones(1, 2, 2)))

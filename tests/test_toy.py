"""The book's toy model (nbs/21a_toy_model.ipynb) against the same model built from PyTorch's layers: the same repr,
the same state_dict names, shapes and dtypes, and with the same weights the same outputs and gradients."""
import numpy as np
import torch

import litnn
from litnn.toy import ToyNet, toy_net


class TorchToy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.norm, self.act, self.fc2 = torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.ReLU(), torch.nn.Linear(3, 1)
    def forward(self, x): return self.fc2(self.act(self.norm(self.fc1(x))))


X = [[0., 1.], [1., 0.], [1., 1.], [2., -1.]]


def test_same_repr_and_state():
    net, tnet = toy_net(), TorchToy()
    assert repr(net).replace('ToyNet', 'X') == repr(tnet).replace('TorchToy', 'X')
    ours = [(k, tuple(v.shape), str(v.dtype).split('.')[1]) for k, v in net.state_dict().items()]
    assert ours == [(k, tuple(v.shape), str(v.dtype).split('.')[1]) for k, v in tnet.state_dict().items()]


def test_same_outputs_and_gradients():
    for mode in ('train', 'eval'):
        net, tnet = toy_net(3), TorchToy()
        tnet.load_state_dict({k: torch.tensor(v.numpy()) for k, v in net.state_dict().items()})
        getattr(net, mode)(); getattr(tnet, mode)()
        ours, theirs = net(litnn.tensor(X)), tnet(torch.tensor(X))
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
        ours.sum().backward(); theirs.sum().backward()
        for (k, p), (_, q) in zip(net.named_parameters(), tnet.named_parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)
        for (k, b), (_, c) in zip(net.named_buffers(), tnet.named_buffers()):
            np.testing.assert_allclose(b.numpy(), c.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_the_seed_decides_the_weights():
    assert np.array_equal(toy_net().fc2.weight.detach().numpy(), toy_net().fc2.weight.detach().numpy())
    assert not np.array_equal(toy_net(1).fc1.weight.detach().numpy(), toy_net().fc1.weight.detach().numpy())
    assert isinstance(toy_net(), ToyNet) and toy_net(n_in=4).fc1.in_features == 4

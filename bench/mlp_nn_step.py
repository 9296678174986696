"""The 784-512-512-10 MLP training step at batch 64, written as users write it: `nn.Linear`,
`nn.ReLU`, `nn.Sequential`, `nn.CrossEntropyLoss` and `optim.SGD` (lr 0.01, no momentum).

Target (issue 4): litnn at most 1.15x the hand-written numpy step of `mlp_step.py`; the same
program in torch for comparison.
"""
from mlp_step import X, Y, W0, B0, lr, compare
import litnn, torch
torch.set_num_threads(1)

def make_step(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    with lib.no_grad():
        for lin, w, b in zip(model[::2], W0, B0): lin.weight.copy_(lib.tensor(w)); lin.bias.copy_(lib.tensor(b))
    loss_fn, opt = nn.CrossEntropyLoss(), lib.optim.SGD(model.parameters(), lr=lr)
    x, y = lib.tensor(X), lib.tensor(Y)
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step, [lin.weight for lin in model[::2]] + [lin.bias for lin in model[::2]]

if __name__ == '__main__':
    compare("MLP 784-512-512-10, batch 64, nn.Linear + CrossEntropyLoss + optim.SGD: one training step", make_step)

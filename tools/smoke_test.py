"""A PyTorch-style program run against an installed litnn wheel with only its base requirements (.ci/run, step 2).

Run it outside the clone (`python -I smoke_test.py`), so that `import litnn` finds the installed package, not the
source tree. It trains a small classifier on the digits that ship inside the wheel, saves and reloads its
state_dict, checks a gradient against a finite difference, and checks that a missing optional extra is named."""
import os, sys, tempfile

import litnn as torch
import litnn
from litnn import nn
import litnn.nn.functional as F
from litnn.utils.data import DataLoader, TensorDataset
from litnn.datasets import Digits

assert 'site-packages' in torch.__file__, f"litnn was imported from {torch.__file__}, not from the installed wheel"
extras = [m for m in ('torch', 'matplotlib', 'tqdm', 'tensorboard', 'onnx', 'mpi4py', 'numba', 'cupy') if m in sys.modules]
assert extras == [], f"import litnn pulled in {extras}"

torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(64, 64), nn.Linear(64, 10)
    def forward(self, x): return self.fc2(F.relu(self.fc1(x.flatten(1))))

model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
X, y = Digits(train=True).tensors
loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
for epoch in range(3):
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
Xt, yt = Digits(train=False).tensors
with torch.no_grad(): acc = (model(Xt).argmax(1) == yt).float().mean().item()
assert acc > 0.9, f"test accuracy {acc:.3f}"

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 'model.pt')
    torch.save(model.state_dict(), path)
    again = Net(); again.load_state_dict(torch.load(path))
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), again.parameters()))

x = torch.randn(3, dtype=torch.float64, requires_grad=True)
(x.tanh() ** 2).sum().backward()
h = 1e-6; e = torch.zeros(3, dtype=torch.float64); e[0] = h
fd = (((x + e).tanh() ** 2).sum() - ((x - e).tanh() ** 2).sum()).item() / (2 * h)
assert abs(x.grad[0].item() - fd) < 1e-6

import litnn.viz                      # imports without matplotlib (not a base requirement); drawing needs it
assert 'Total params' in repr(litnn.viz.summary(model, input_size=(1, 64)))
try: litnn.viz.draw_graph(loss)
except ModuleNotFoundError as err: assert 'litnn[train]' in str(err), str(err)
else: raise AssertionError('litnn.viz drew a picture without matplotlib')

print(f"smoke test: litnn {torch.__version__} from {os.path.dirname(torch.__file__)}: test accuracy {acc:.1%}, "
      "state_dict saved and reloaded, gradient equals its finite difference: OK")

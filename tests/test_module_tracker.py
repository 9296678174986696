"""torch.utils.module_tracker.ModuleTracker side by side with torch: the modules it reports running, forward and backward."""
import pytest, torch, litnn


def _run(lib):
    from importlib import import_module
    ModuleTracker = import_module(lib.__name__ + '.utils.module_tracker').ModuleTracker
    seen = []
    class Seen(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x): seen.append(('forward', sorted(tracker.parents), tracker.is_bw)); return x.clone()
        @staticmethod
        def backward(ctx, g): seen.append(('backward', sorted(tracker.parents), tracker.is_bw)); return g
    class Record(lib.nn.Module):
        def forward(self, x): return Seen.apply(x)
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = lib.nn.Linear(3, 3), lib.nn.Sequential(Record(), lib.nn.Linear(3, 2), Record())
        def forward(self, x): return self.b(self.a(x)) + Seen.apply(x[:, :2])
    net = Net()
    with ModuleTracker() as tracker:
        for _ in range(2):
            net(lib.randn(2, 3, requires_grad=True)).sum().backward()
            seen.append(('after', sorted(tracker.parents), tracker.is_bw))
        with lib.no_grad(): net(lib.randn(2, 3))
        seen.append(('no grad', sorted(tracker.parents), tracker.is_bw))
    return seen


def test_module_tracker_as_torch():
    assert _run(litnn) == _run(torch)

"""What the model libraries built on transformers and timm (peft, diffusers, sentence-transformers, accelerate) ask of torch,
each case written inline and compared with real torch on the same inputs."""
import json, os, subprocess, sys
from pathlib import Path
import numpy as np
import pytest
import litnn

torch = pytest.importorskip("torch")

# `import torch[.a.b]` gives litnn[.a.b]: a script's own imports run unchanged
AS_TORCH = r'''
import sys, runpy, importlib, importlib.abc, importlib.util
import litnn
class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name == 'torch' or name.startswith('torch.'): return importlib.util.spec_from_loader(name, self)
    def create_module(self, spec): return importlib.import_module('litnn' + spec.name[5:])
    def exec_module(self, module): pass
sys.meta_path.insert(0, _Finder())
sys.modules['torch'] = litnn
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name='__main__')
'''

def _both_ways(tmp_path, code):
    "Run `code` with torch, then with litnn as torch; each prints one JSON line."
    script = tmp_path / "script.py"
    script.write_text(code)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    def run(*pre):
        r = subprocess.run([sys.executable, *pre, str(script)], capture_output=True, text=True, timeout=180, env=env)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout.strip().splitlines()[-1])
    return run(), run("-c", AS_TORCH)

JOIN = r'''
import json, tempfile, warnings
import torch, torch.distributed as dist
from torch.distributed.algorithms.join import Join, Joinable, JoinHook
from torch.distributed.algorithms import Join as J2
out = {"same": J2 is Join, "all": __import__("torch.distributed.algorithms.join", fromlist=["x"]).__all__}
class Counter(Joinable):
    def __init__(self, init=True):
        if init: super().__init__()
        self.steps, self.log = 0, []
    def step(self):
        out.setdefault("works", []).append(type(Join.notify_join_context(self)).__name__); self.steps += 1
    def join_hook(self, **kwargs):
        outer = self
        class Hook(JoinHook):
            def main_hook(self): outer.log.append("main")
            def post_hook(self, is_last_joiner): outer.log.append(["post", is_last_joiner, kwargs])
        return Hook()
    @property
    def join_device(self): return torch.device("cpu")
    @property
    def join_process_group(self): return dist.group.WORLD
def err(f):
    try: return f()
    except Exception as e: return [type(e).__name__, str(e)]
dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
c, d = Counter(), Counter()
with Join([c, d], tag=1):
    for _ in range(3): c.step(); d.step()
out["log"] = [c.log, d.log, c.steps]
out["config"] = [list(c._join_config), list(d._join_config), type(c._join_config).__name__]
with Join([c], enable=False, throw_on_early_termination=True): c.step()
out["disabled"] = c.log
with Join([c], throw_on_early_termination=True): c.step()
out["throw"] = c.log
out["empty"] = err(lambda: Join([]))
out["abstract"] = err(lambda: Joinable())
out["no init"] = err(lambda: Join.notify_join_context(Counter(init=False)))
def raising():
    with Join([c]): raise KeyError("k")
out["exc"] = [err(raising), c.log]
out["hook"] = [JoinHook().main_hook(), JoinHook().post_hook(True)]
dist.destroy_process_group()
out["outside"] = Join.notify_join_context(Counter())
print(json.dumps(out))
'''

def test_join_context_manager_as_torch(tmp_path):
    "torch.distributed.algorithms.join (accelerate imports Join at start-up): hooks, configs, kwargs, the disabled and throwing modes, errors, on a one-process gloo world."
    want, got = _both_ways(tmp_path, JOIN)
    assert got == want

def _err(f):
    try: return f()
    except Exception as e: return [type(e).__name__, str(e)]

def _rebuild_like_accelerate(lib):
    "accelerate's init_empty_weights and set_module_tensor_to_device: type(p)(p.to(device), **p.__dict__), before and after training."
    out = []
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
    old_register = lib.nn.Module.register_parameter
    def register_empty_parameter(module, name, param):      # accelerate.big_modeling.init_on_device's hook, as written there
        old_register(module, name, param)
        if param is not None:
            param_cls = type(module._parameters[name])
            kwargs = module._parameters[name].__dict__
            kwargs["requires_grad"] = param.requires_grad
            module._parameters[name] = param_cls(module._parameters[name].to("meta"), **kwargs)
    lib.nn.Module.register_parameter = register_empty_parameter
    try: e = lib.nn.Linear(3, 4)
    finally: lib.nn.Module.register_parameter = old_register
    out.append([str(e.weight.device), type(e.weight).__name__, e.weight.requires_grad, list(e.weight.shape)])
    m(lib.ones(5, 3)).pow(2).sum().backward()
    m[0].weight.register_hook(lambda g: g * 2)
    for name, p in list(m.named_parameters()):                # set_module_tensor_to_device's rebuild of a trained parameter
        mod = m.get_submodule(name.rsplit(".", 1)[0]); tensor_name = name.rsplit(".", 1)[1]
        kwargs = mod._parameters[tensor_name].__dict__
        new = type(p)(p.to("cpu") * 1, requires_grad=p.requires_grad, **{k: v for k, v in kwargs.items() if k != "requires_grad"})
        mod._parameters[tensor_name] = new
        out.append([type(new).__name__, new.requires_grad, new.grad is None, new.is_leaf, np.round(new.detach().numpy(), 5).tolist()])
    m(lib.ones(1, 3)).sum().backward()
    out.append([p.grad.numpy().round(5).tolist() for p in m.parameters()])
    out.append(_err(lambda: lib.nn.Parameter(lib.ones(2), foo=1)))
    out.append(_err(lambda: lib.nn.Parameter(lib.ones(2), True, 3)))
    return out

def test_parameter_rebuilt_from_its_dict_as_torch():
    "type(p)(p.to(device), **p.__dict__) (accelerate, used by diffusers' and transformers' from_pretrained): litnn's autograd bookkeeping in __dict__ must not reach the constructor."
    assert _rebuild_like_accelerate(litnn) == _rebuild_like_accelerate(torch)

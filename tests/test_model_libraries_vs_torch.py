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

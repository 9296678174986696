"""litnn.jit: TorchScript's entry points, as `torch.jit`; litnn runs Python, so each returns what it is given. Hand-written."""
from .._jit_internal import Final, export, ignore, is_scripting, unused, _overload, _overload_method   # 16aj_jit_internal
from ._script import ScriptModule, script, script_method                  # 16ak_jit_script
from ._trace import TracerWarning, is_tracing, trace, trace_module       # 16al_jit_trace
from ._async import Future, fork, wait                                    # reference/futures
from . import annotations                                                 # reference/jit/annotations
from .annotations import annotate
annotate.__module__ = __name__       # torch defines it in torch/jit/__init__.py

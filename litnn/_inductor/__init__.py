"""litnn._inductor: of torch's `_inductor` package litnn has only `config` (nbs/reference/inductor/config). Hand-written."""
from . import config     # torch/_inductor/__init__.py imports it too: torch._inductor.config works after import torch

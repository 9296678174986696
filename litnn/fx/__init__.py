"""litnn.fx: of torch's FX package, what models call at import (`wrap`) and what code asks of a running trace; litnn has no FX tracer. Hand-written."""
from ._symbolic_trace import wrap          # reference/fx/symbolic_trace
from . import experimental

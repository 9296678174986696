"""litnn.fx: torch.fx's program capture and transformation: `symbolic_trace`, `Graph`, `Node`, `Proxy`, `GraphModule`, `Interpreter`, `Transformer`, `replace_pattern`, `wrap`. Hand-written."""
from .graph_module import GraphModule            # reference/fx/graph_module
from ._symbolic_trace import symbolic_trace, Tracer, wrap, PH  # reference/fx/symbolic_trace
from .graph import Graph, CodeGen                 # reference/fx/graph
from .node import Node, map_arg, has_side_effect  # reference/fx/node
from .proxy import Proxy                          # reference/fx/proxy
from .interpreter import Interpreter, Transformer  # reference/fx/interpreter
from .subgraph_rewriter import replace_pattern    # reference/fx/subgraph_rewriter
from . import experimental

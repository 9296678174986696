"""litnn.viz: pictures of litnn's objects, drawn from real runs (hand-written; not loaded by `import litnn`).

matplotlib is needed only to draw (it comes with the `train` and `dev` extras); `summary` needs nothing."""
from .plots import GraphNode, Graph, autograd_graph, draw_graph, plot_hook_calls, hook_timeline, plot_history   # 19_viz
from .model_summary import LayerInfo, ModelStatistics, summary                                                   # 19a_summary

__all__ = ['GraphNode', 'Graph', 'autograd_graph', 'draw_graph', 'plot_hook_calls', 'hook_timeline', 'plot_history',
           'LayerInfo', 'ModelStatistics', 'summary']

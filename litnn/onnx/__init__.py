"litnn.onnx: export a model to ONNX by tracing its forward (as `torch.onnx`); the `onnx` package is imported only by `export`."
from .tracing import is_in_onnx_export     # 60_onnx_tracing
from .translate import UnsupportedOperatorError   # 60a_onnx_translate
from .export import export, TrainingMode   # 60b_onnx_export

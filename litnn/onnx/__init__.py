"Export to ONNX by tracing a forward (as `torch.onnx`); the `onnx` package is imported only when `export` runs."
from .tracing import is_in_onnx_export                  # 60_onnx_tracing
from .translate import UnsupportedOperatorError         # 60a_onnx_translate, 60b_onnx_shape_ops
from .exporter import export, TrainingMode              # 60c_onnx_export

"""litnn.utils.tensorboard: `SummaryWriter`, event files for TensorBoard, as `torch.utils.tensorboard`. Hand-written."""
try:
    import tensorboard
except ImportError as e:
    raise ImportError("litnn.utils.tensorboard needs the tensorboard package: pip install 'litnn[tensorboard]' (or tensorboard)") from e
if not hasattr(tensorboard, "__version__") or tuple(int(p) for p in tensorboard.__version__.split(".")[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del tensorboard
from tensorboard.summary.writer.record_writer import RecordWriter   # (torch re-exports tensorboard's)
from .writer import FileWriter, SummaryWriter   # 56_tensorboard (summary.py, _utils.py, _convert_np.py, _embedding.py: 56a-56d)

__all__ = ['FileWriter', 'RecordWriter', 'SummaryWriter']

"""litnn.utils.tensorboard: `SummaryWriter`, event files for TensorBoard, as `torch.utils.tensorboard`. Hand-written."""
from .writer import SummaryWriter   # 31g_tensorboard

__all__ = ['SummaryWriter']

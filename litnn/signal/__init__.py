"""litnn.signal: PyTorch's torch.signal. Hand-written: its one part is the windows package."""
from . import windows   # reference/signal/windows/windows

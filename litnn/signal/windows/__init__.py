"""litnn.signal.windows: PyTorch's torch.signal.windows. Hand-written: the windows are exported from reference/signal/windows/windows."""
from .windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming, hamming, hann,
                      kaiser, nuttall)

__all__ = ['bartlett', 'blackman', 'cosine', 'exponential', 'gaussian', 'general_cosine', 'general_hamming', 'hamming',
           'hann', 'kaiser', 'nuttall']

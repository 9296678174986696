"""litnn.nn.utils: utilities for training modules, as `torch.nn.utils`. Hand-written."""
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_   # 30b_clip_grad
from . import clip_grad
from . import rnn                         # 27a_packed_sequences
from . import stateless                   # 36_functional_call

__all__ = ['clip_grad_norm_', 'clip_grad_norm', 'clip_grad_value_', 'get_total_norm', 'clip_grads_with_norm_', 'rnn', 'stateless']

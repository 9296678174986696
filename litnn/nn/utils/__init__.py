"""litnn.nn.utils: utilities for training modules, as `torch.nn.utils`. Hand-written."""
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_   # 30b_clip_grad
from . import clip_grad
from . import rnn                         # 27a_packed_sequences
from . import parametrize                 # 17_parametrize
from . import parametrizations            # 17a_parametrizations
from . import prune                       # 17b_prune
from .weight_norm import weight_norm, remove_weight_norm          # 17c_weight_norm_hook
from .spectral_norm import spectral_norm, remove_spectral_norm    # 17d_spectral_norm_hook
from .init import skip_init              # 18a_skip_init
from . import stateless                   # 36_functional_call
from .convert_parameters import parameters_to_vector, vector_to_parameters   # 30ba_convert_parameters
from . import convert_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights   # 30bb_fusion
from . import fusion
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format   # reference/nn/utils/memory_format
from . import memory_format

__all__ = ['clip_grad_norm_', 'clip_grad_norm', 'clip_grad_value_', 'get_total_norm', 'clip_grads_with_norm_', 'rnn',
           'parametrize', 'parametrizations', 'prune', 'weight_norm', 'remove_weight_norm', 'spectral_norm', 'remove_spectral_norm',
           'skip_init', 'stateless', 'parameters_to_vector', 'vector_to_parameters', 'convert_parameters',
           'fuse_conv_bn_eval', 'fuse_conv_bn_weights', 'fuse_linear_bn_eval', 'fuse_linear_bn_weights', 'fusion',
           'convert_conv2d_weight_memory_format', 'convert_conv3d_weight_memory_format', 'memory_format']

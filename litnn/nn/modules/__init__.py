"""litnn.nn.modules: `Module`, built part by part, and the modules made from it (as `torch.nn.modules`).

`Module` is defined in `module.py` (nbs/10_registration); each later part adds its methods to
that one class with `@patch` when it is imported, so the imports below, in dependency order,
are what make `Module` complete. Hand-written: add each new part here."""
from .module import Module
from . import traversal, train_eval   # 11_traversal, 12_train_eval: methods patched onto Module
from . import apply_to                # 13_apply_to
from . import hooks                   # 14_hooks (also installs the global hook functions into module.py)
from . import backward_hooks          # 14a_backward_hooks
from . import state_dict              # 15_state_dict
from .traversal import set_repr_options
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict   # 16_containers, 16b_dict_and_parameter_containers
from .linear import Identity, Linear, Bilinear   # 21_linear
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout   # 21a_dropout, 21c_feature_dropout
from .sparse import Embedding, EmbeddingBag   # 21b_sparse, 21d_embedding_bag
from .flatten import Flatten, Unflatten   # 21e_flatten
from .activation import (ReLU, LeakyReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax,   # 22_activation, 22c_activation_modules, 28a
                         ELU, SELU, CELU, GLU, Hardtanh, ReLU6, Hardsigmoid, Hardswish, Mish, PReLU, RReLU, Softplus, Softsign,
                         Softshrink, Hardshrink, Tanhshrink, Threshold, LogSigmoid, Softmin, Softmax2d, MultiheadAttention)
from .conv import Conv1d, Conv2d     # 23_conv
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d   # 24_pooling
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm   # 25_normalization
from .group_norm import GroupNorm, RMSNorm   # 25a_group_norm
from .loss import NLLLoss, CrossEntropyLoss   # 26_loss
from .elementwise_loss import L1Loss, MSELoss, BCELoss, BCEWithLogitsLoss   # 26d_elementwise_losses
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell   # 27_rnn, 27_rnn_cells
from . import batchnorm              # torch's file name for classes defined in normalization.py
from .transformer import (TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
                          Transformer)   # 29_transformer

__all__ = ['Module', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
           'Identity', 'Linear', 'Bilinear', 'Flatten', 'Unflatten', 'Dropout', 'Embedding',
           'ReLU', 'LeakyReLU', 'GELU', 'SiLU', 'Tanh', 'Sigmoid', 'Softmax', 'LogSoftmax',
           'Conv1d', 'Conv2d', 'MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d',
           'BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'LayerNorm', 'GroupNorm', 'RMSNorm',
           'L1Loss', 'NLLLoss', 'MSELoss', 'BCELoss', 'BCEWithLogitsLoss', 'CrossEntropyLoss',
           'RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell',
           'MultiheadAttention', 'TransformerEncoderLayer', 'TransformerDecoderLayer', 'TransformerEncoder',
           'TransformerDecoder', 'Transformer']

__all__ += ['ELU', 'SELU', 'CELU', 'GLU', 'Hardtanh', 'ReLU6', 'Hardsigmoid', 'Hardswish', 'Mish', 'PReLU', 'RReLU',
            'Softplus', 'Softsign', 'Softshrink', 'Hardshrink', 'Tanhshrink', 'Threshold', 'LogSigmoid', 'Softmin', 'Softmax2d']

_PADDING = [f'{kind}Pad{n}d' for kind in ('Constant', 'Zero', 'Reflection', 'Replication', 'Circular') for n in (1, 2, 3)]
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,   # 23b_padding
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      CircularPad1d, CircularPad2d, CircularPad3d)
__all__ += _PADDING

from .distance import CosineSimilarity, PairwiseDistance   # 26a_distance
__all__ += ['CosineSimilarity', 'PairwiseDistance']

_MORE_LOSSES = ['SmoothL1Loss', 'HuberLoss', 'KLDivLoss', 'PoissonNLLLoss', 'GaussianNLLLoss', 'MarginRankingLoss',
                'HingeEmbeddingLoss', 'CosineEmbeddingLoss', 'SoftMarginLoss', 'TripletMarginLoss', 'TripletMarginWithDistanceLoss',
                'MultiLabelMarginLoss', 'MultiLabelSoftMarginLoss', 'MultiMarginLoss']
from .more_losses import (SmoothL1Loss, HuberLoss, KLDivLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss,   # 26b_more_losses
                          HingeEmbeddingLoss, CosineEmbeddingLoss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
                          MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss)
__all__ += _MORE_LOSSES

__all__ += ['Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout']

from .more_normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LocalResponseNorm   # 25b_more_normalization
__all__ += ['InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'LocalResponseNorm']

from .conv_transpose import ConvTranspose1d, ConvTranspose2d   # 23c_conv_transpose
__all__ += ['ConvTranspose1d', 'ConvTranspose2d']

from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle   # 24c_upsampling
__all__ += ['Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d', 'PixelShuffle', 'PixelUnshuffle']

_MORE_POOLING = ['MaxPool1d', 'AvgPool1d', 'AdaptiveAvgPool1d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'LPPool1d', 'LPPool2d',
                 'MaxUnpool1d', 'MaxUnpool2d']
from .more_pooling import (MaxPool1d, AvgPool1d, AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, LPPool1d, LPPool2d,   # 24b
                           MaxUnpool1d, MaxUnpool2d)
__all__ += _MORE_POOLING

__all__ += ['EmbeddingBag']

from .fold import Fold, Unfold   # 24d_fold
__all__ += ['Fold', 'Unfold']

from .conv3d import Conv3d, ConvTranspose3d   # 23d_conv3d
__all__ += ['Conv3d', 'ConvTranspose3d']

from .pooling3d import MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d   # 24e_pooling3d
__all__ += ['MaxPool3d', 'AvgPool3d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool3d']

from .ctc_loss import CTCLoss   # 26c_ctc_loss
__all__ += ['CTCLoss']

from .fractional_max_pool import FractionalMaxPool2d   # 24f_fractional_max_pool
__all__ += ['FractionalMaxPool2d']

_LAZY = ['LazyLinear', 'LazyConv1d', 'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d', 'LazyConvTranspose3d',
         'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d', 'LazyInstanceNorm1d', 'LazyInstanceNorm2d', 'LazyInstanceNorm3d']
from . import lazy   # 18a_lazy_modules
from .lazy import *
__all__ += _LAZY
from .sync_batchnorm import SyncBatchNorm   # 52a_sync_batchnorm
__all__ += ['SyncBatchNorm']
from .channelshuffle import ChannelShuffle   # 24h_channel_shuffle (torch's file name too)
__all__ += ['ChannelShuffle']
from .adaptive import AdaptiveLogSoftmaxWithLoss   # 26e_adaptive_softmax (torch's file name too)
__all__ += ['AdaptiveLogSoftmaxWithLoss']
from .more_pooling3d import LPPool3d, MaxUnpool3d   # 24i_more_pooling3d
__all__ += ['LPPool3d', 'MaxUnpool3d']
from .fractional_max_pool3d import FractionalMaxPool3d   # 24j_fractional_max_pool3d
__all__ += ['FractionalMaxPool3d']
from .deprecated import NLLLoss2d, Container   # 26f_deprecated_modules
__all__ += ['NLLLoss2d', 'Container']

# Where torch keeps each class: `torch.nn.modules.<file>.<Class>`. The classes of the later parts are also reachable from
# the module of torch's file name, so `from litnn.nn.modules.activation import ELU` runs as in torch. (Files litnn lacks
# are hand-written alias modules: batchnorm.py, instancenorm.py, pixelshuffle.py.)
from . import instancenorm, pixelshuffle, batchnorm
_TORCH_FILES = {conv: ['ConvTranspose1d', 'ConvTranspose2d', 'Conv3d', 'ConvTranspose3d'],
                pooling: _MORE_POOLING + ['MaxPool3d', 'AvgPool3d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool3d', 'FractionalMaxPool2d'],
                normalization: ['LocalResponseNorm', 'GroupNorm', 'RMSNorm'], batchnorm: ['SyncBatchNorm'], loss: _MORE_LOSSES + ['CTCLoss', 'L1Loss', 'MSELoss', 'BCELoss', 'BCEWithLogitsLoss'],   # 26b, 26c, 26d
                container: []}
_TORCH_FILES[pooling] += ['LPPool3d', 'MaxUnpool3d', 'FractionalMaxPool3d']         # 24i_more_pooling3d, 24j
_TORCH_FILES[loss] += ['NLLLoss2d']; _TORCH_FILES[container] += ['Container']       # 26f_deprecated_modules
_TORCH_FILES[linear] = _LAZY[:1]; _TORCH_FILES[conv] += _LAZY[1:7]                 # 18a_lazy_modules
_TORCH_FILES[batchnorm] += _LAZY[7:10]; _TORCH_FILES[instancenorm] = _LAZY[10:]
for _file, _names in _TORCH_FILES.items():
    for _name in _names: setattr(_file, _name, globals()[_name])

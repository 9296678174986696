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
from .container import Sequential, ModuleList   # 16_containers
from .more_containers import ModuleDict, ParameterList, ParameterDict   # 16b_more_containers
from .linear import Identity, Linear, Bilinear, Flatten, Unflatten   # 21_linear
from .dropout import Dropout          # 21a_dropout
from .sparse import Embedding         # 21b_sparse
from .activation import ReLU, LeakyReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax   # 22_activation
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,   # 23_conv, 23c, 23d, 29b_lazy_modules
                   LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,   # 23b_padding
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      CircularPad1d, CircularPad2d, CircularPad3d)
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d,   # 24_pooling, 24b, 24e, 24f, 24i, 24j
                      MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d,
                      LPPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                      AdaptiveAvgPool3d)
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d   # 24c_upsampling
from .pixelshuffle import PixelShuffle, PixelUnshuffle   # 24ca_pixel_shuffle
from .fold import Fold, Unfold   # 24d_fold
from .channelshuffle import ChannelShuffle   # 24h_channel_shuffle
from .batchnorm import (BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm,   # 25_batch_norm, 52a_sync_batchnorm, 29b
                        LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d)
from .normalization import LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm   # 25a_layer_group_norm, 25b_instance_norm
from .instancenorm import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,   # 25b_instance_norm, 29b_lazy_modules
                           LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d)
from .loss import (L1Loss, NLLLoss, NLLLoss2d, PoissonNLLLoss, GaussianNLLLoss, KLDivLoss, MSELoss, BCELoss,   # 26_loss, 26b-d, 26f
                   BCEWithLogitsLoss, HingeEmbeddingLoss, MultiLabelMarginLoss, SmoothL1Loss, HuberLoss, SoftMarginLoss,
                   CrossEntropyLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss, MarginRankingLoss, MultiMarginLoss,
                   TripletMarginLoss, TripletMarginWithDistanceLoss, CTCLoss)
from .distance import PairwiseDistance, CosineSimilarity   # 26a_distance
from .adaptive import AdaptiveLogSoftmaxWithLoss   # 26e_adaptive_softmax
from .container import Container   # 26f_deprecated_modules
from .linear import LazyLinear   # 29b_lazy_modules
from . import lazy   # 29b_lazy_modules
from .rnn import RNNBase, RNN, LSTM, GRU   # 27_rnn
from .rnn_cells import RNNCellBase, RNNCell, LSTMCell, GRUCell   # 27_rnn_cells
from . import flatten      # torch's file name for classes defined in linear.py
from .multihead_attention import MultiheadAttention   # 28a_multihead_attention
from .multihead_attention import NonDynamicallyQuantizableLinear   # 28a_multihead_attention (torch keeps it in linear.py: see _TORCH_FILES)
from .transformer import (TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
                          Transformer)   # 29_transformer

__all__ = ['Module', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
           'Identity', 'Linear', 'Bilinear', 'Flatten', 'Unflatten', 'Dropout', 'Embedding',
           'ReLU', 'LeakyReLU', 'GELU', 'SiLU', 'Tanh', 'Sigmoid', 'Softmax', 'LogSoftmax',
           'RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell',
           'MultiheadAttention', 'TransformerEncoderLayer', 'TransformerDecoderLayer', 'TransformerEncoder',
           'TransformerDecoder', 'Transformer']
__all__ += ['Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d', 'LazyConv1d',
            'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d', 'LazyConvTranspose3d',
            'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'ZeroPad1d', 'ZeroPad2d', 'ZeroPad3d',
            'ReflectionPad1d', 'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
            'ReplicationPad3d', 'CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'MaxPool1d', 'MaxPool2d',
            'MaxPool3d', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'MaxUnpool1d', 'MaxUnpool2d', 'MaxUnpool3d',
            'FractionalMaxPool2d', 'FractionalMaxPool3d', 'LPPool1d', 'LPPool2d', 'LPPool3d', 'AdaptiveMaxPool1d',
            'AdaptiveMaxPool2d', 'AdaptiveMaxPool3d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d',
            'Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d', 'PixelShuffle', 'PixelUnshuffle', 'Fold',
            'Unfold', 'ChannelShuffle', 'BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'SyncBatchNorm',
            'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d', 'LayerNorm', 'GroupNorm', 'RMSNorm',
            'LocalResponseNorm', 'InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'LazyInstanceNorm1d',
            'LazyInstanceNorm2d', 'LazyInstanceNorm3d', 'L1Loss', 'NLLLoss', 'NLLLoss2d', 'PoissonNLLLoss',
            'GaussianNLLLoss', 'KLDivLoss', 'MSELoss', 'BCELoss', 'BCEWithLogitsLoss', 'HingeEmbeddingLoss',
            'MultiLabelMarginLoss', 'SmoothL1Loss', 'HuberLoss', 'SoftMarginLoss', 'CrossEntropyLoss',
            'MultiLabelSoftMarginLoss', 'CosineEmbeddingLoss', 'MarginRankingLoss', 'MultiMarginLoss',
            'TripletMarginLoss', 'TripletMarginWithDistanceLoss', 'CTCLoss', 'PairwiseDistance', 'CosineSimilarity',
            'AdaptiveLogSoftmaxWithLoss', 'Container', 'LazyLinear']

_MORE_ACTIVATIONS = ['ELU', 'SELU', 'CELU', 'GLU', 'Hardtanh', 'ReLU6', 'Hardsigmoid', 'Hardswish', 'Mish', 'PReLU', 'RReLU',
                     'Softplus', 'Softsign', 'Softshrink', 'Hardshrink', 'Tanhshrink', 'Threshold', 'LogSigmoid', 'Softmin', 'Softmax2d']
from .more_activation_modules import (ELU, SELU, CELU, GLU, Hardtanh, ReLU6, Hardsigmoid, Hardswish, Mish, PReLU, RReLU,   # 22c_more_activation_modules
                                      Softplus, Softsign, Softshrink, Hardshrink, Tanhshrink, Threshold, LogSigmoid, Softmin, Softmax2d)
__all__ += _MORE_ACTIVATIONS

from .feature_dropout import Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout   # 21c_feature_dropout
__all__ += ['Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout']

from .embedding_bag import EmbeddingBag   # 21d_embedding_bag
__all__ += ['EmbeddingBag']

# Where torch keeps each class: `torch.nn.modules.<file>.<Class>`. The classes of the later parts are also reachable from
# the module of torch's file name, so `from litnn.nn.modules.activation import ELU` runs as in torch. (Files litnn lacks
# are hand-written alias modules: flatten.py.)
_TORCH_FILES = {activation: _MORE_ACTIVATIONS + ['MultiheadAttention'], linear: ['NonDynamicallyQuantizableLinear'],
                dropout: ['Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout', 'FeatureAlphaDropout'], sparse: ['EmbeddingBag'],
                container: ['ModuleDict', 'ParameterList', 'ParameterDict'],   # 16b_more_containers
                rnn: ['RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell']}   # 27_rnn_cells
for _file, _names in _TORCH_FILES.items():
    for _name in _names: setattr(_file, _name, globals()[_name])

"""litnn.nn.modules: `Module`, built part by part, and the modules made from it (as `torch.nn.modules`).

`Module` is defined in `module.py` (nbs/10_registration); each later part adds its methods to
that one class with `@patch` when it is imported, so the imports below, in dependency order,
are what make `Module` complete. Then one line per file, as torch's `nn/modules/__init__.py`:
each class is defined in the file where torch keeps it. Hand-written: add each new file here."""
from .module import Module
from . import traversal, train_eval   # 11_traversal, 12_train_eval: methods patched onto Module
from . import apply_to                # 13_apply_to
from . import hooks                   # 14_hooks (its hooks for every module are written into module.py)
from . import backward_hooks          # 14a_backward_hooks
from . import state_dict              # 15_state_dict
from .traversal import set_repr_options
from .container import Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear, LazyLinear
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout
from .sparse import Embedding, EmbeddingBag
from .flatten import Flatten, Unflatten
from .activation import (ReLU, LeakyReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax, ELU, SELU, CELU, GLU, Hardtanh, ReLU6,
                         Hardsigmoid, Hardswish, Mish, PReLU, RReLU, Softplus, Softsign, Softshrink, Hardshrink, Tanhshrink,
                         Threshold, LogSigmoid, Softmin, Softmax2d, MultiheadAttention)
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
                   LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d)
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
                      ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      CircularPad1d, CircularPad2d, CircularPad3d)
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d,
                      MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d,
                      LPPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                      AdaptiveAvgPool3d)
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .fold import Fold, Unfold
from .channelshuffle import ChannelShuffle
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d
from .normalization import LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d
from .loss import (L1Loss, NLLLoss, NLLLoss2d, PoissonNLLLoss, GaussianNLLLoss, KLDivLoss, MSELoss, BCELoss,
                   BCEWithLogitsLoss, HingeEmbeddingLoss, MultiLabelMarginLoss, SmoothL1Loss, HuberLoss, SoftMarginLoss,
                   CrossEntropyLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss, MarginRankingLoss, MultiMarginLoss,
                   TripletMarginLoss, TripletMarginWithDistanceLoss, CTCLoss, LinearCrossEntropyLoss)
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .distance import PairwiseDistance, CosineSimilarity
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder, Transformer
from . import lazy                    # LazyModuleMixin; the Lazy* layers are in their layers' files
from . import utils                   # reference/nn/modules/utils: _pair, consume_prefix_in_state_dict_if_present

__all__ = [n for n in dir() if n[:1].isupper()]

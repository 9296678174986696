"""litnn.nn.modules: `Module`, built part by part, and the modules made from it (as `torch.nn.modules`).

`Module` is defined in `module.py` (nbs/10_registration); each later part adds its methods to
that one class with `@patch` when it is imported, so the imports below, in dependency order,
are what make `Module` complete. Hand-written: add each new part here."""
from .module import Module
from . import traversal, train_eval   # 11_traversal, 12_train_eval: methods patched onto Module
from . import apply_to                # 13_apply_to
from . import hooks                   # 14_hooks (also installs the global hook functions into module.py)
from . import state_dict              # 15_state_dict
from .traversal import set_repr_options
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear, Flatten, Unflatten   # 21_linear
from .dropout import Dropout          # 21a_dropout
from .sparse import Embedding         # 21b_sparse
from .activation import ReLU, LeakyReLU, GELU, SiLU, Tanh, Sigmoid, Softmax, LogSoftmax   # 22_activation
from .conv import Conv1d, Conv2d     # 23_conv
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d   # 24_pooling
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm   # 25_normalization
from .group_norm import GroupNorm, RMSNorm   # 25a_group_norm
from .loss import L1Loss, NLLLoss, MSELoss, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss   # 26_loss
from .attention import MultiheadAttention   # 28_attention
activation.MultiheadAttention = MultiheadAttention   # where torch keeps it: torch.nn.modules.activation
from .transformer import (TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder,
                          Transformer)   # 29_transformer

__all__ = ['Module', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict',
           'Identity', 'Linear', 'Bilinear', 'Flatten', 'Unflatten', 'Dropout', 'Embedding',
           'ReLU', 'LeakyReLU', 'GELU', 'SiLU', 'Tanh', 'Sigmoid', 'Softmax', 'LogSoftmax',
           'Conv1d', 'Conv2d', 'MaxPool2d', 'AvgPool2d', 'AdaptiveAvgPool2d',
           'BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'LayerNorm', 'GroupNorm', 'RMSNorm',
           'L1Loss', 'NLLLoss', 'MSELoss', 'BCELoss', 'BCEWithLogitsLoss', 'CrossEntropyLoss',
           'MultiheadAttention', 'TransformerEncoderLayer', 'TransformerDecoderLayer', 'TransformerEncoder',
           'TransformerDecoder', 'Transformer']

"""litnn.nn.functional: the functional forms of the layers and losses, as `torch.nn.functional`.

Each function is built in the notebook of its part, beside the module that uses it (`linear` with
`Linear` in `litnn/nn/modules/linear.py`, `conv2d` with `Conv2d`, ...). Hand-written: it only gathers
them under torch's name, one line per part, in the parts' order."""
from .modules.linear import linear, bilinear   # 21_linear
from .modules.dropout import dropout           # 21a_dropout
from .modules.sparse import embedding          # 21b_sparse
from .modules.activation import relu, leaky_relu, gelu, silu, tanh, sigmoid, softmax, log_softmax   # 22_activation
from .modules.conv import conv1d, conv2d   # 23_conv
from .modules.pooling import max_pool2d, avg_pool2d, adaptive_avg_pool2d   # 24_pooling
from .modules.normalization import batch_norm, layer_norm   # 25_normalization
from .modules.group_norm import group_norm, rms_norm   # 25a_group_norm
from .modules.loss import cross_entropy, nll_loss, mse_loss, l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits   # 26_loss
from .modules.attention import scaled_dot_product_attention, multi_head_attention_forward   # 28_attention

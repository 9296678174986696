"""litnn.nn.functional: the functional forms of the layers and losses, as `torch.nn.functional`.

Each function is built in the notebook of its part, beside the module that uses it (`linear` with
`Linear` in `litnn/nn/modules/linear.py`, `conv2d` with `Conv2d`, ...). Hand-written: it only gathers
them under torch's name, one line per part, in the parts' order."""
from .modules.linear import linear, bilinear   # 21_linear
from .modules.dropout import dropout           # 21a_dropout
from .modules.feature_dropout import dropout1d, dropout2d, dropout3d, alpha_dropout, feature_alpha_dropout   # 21c
from .modules.sparse import embedding          # 21b_sparse
from .modules.embedding_bag import embedding_bag   # 21d_embedding_bag
from .modules.activation import relu, leaky_relu, gelu, silu, tanh, sigmoid, softmax, log_softmax   # 22_activation
from .modules.more_activations import (elu, selu, celu, glu, hardtanh, relu6, hardsigmoid, hardswish, mish, prelu, rrelu,   # 22b
                                       softplus, softsign, softshrink, hardshrink, tanhshrink, threshold, logsigmoid, softmin,
                                       elu_, selu_, celu_, hardtanh_, rrelu_, threshold_)
from .modules.conv import conv1d, conv2d   # 23_conv
from .modules.padding import pad           # 23b_padding
from .modules.conv_transpose import conv_transpose1d, conv_transpose2d   # 23c_conv_transpose
from .modules.pooling import max_pool2d, avg_pool2d, adaptive_avg_pool2d   # 24_pooling
from .modules.more_pooling import (max_pool1d, avg_pool1d, adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d,   # 24b
                                   lp_pool1d, lp_pool2d, max_unpool1d, max_unpool2d)
from .modules.upsampling import interpolate, pixel_shuffle, pixel_unshuffle   # 24c_upsampling
from .modules.grid_sample import affine_grid, grid_sample   # 24f_grid_sample
from .modules.normalization import batch_norm, layer_norm   # 25_normalization
from .modules.group_norm import group_norm, rms_norm   # 25a_group_norm
from .modules.more_normalization import instance_norm, local_response_norm, normalize   # 25b_more_normalization
from .modules.distance import one_hot, cosine_similarity, pairwise_distance, pdist   # 26a_distance
from .modules.loss import cross_entropy, nll_loss   # 26_loss
from .modules.elementwise_loss import mse_loss, l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits   # 26d_elementwise_losses
from .modules.more_losses import (smooth_l1_loss, huber_loss, kl_div, poisson_nll_loss, gaussian_nll_loss,   # 26b_more_losses
                                  margin_ranking_loss, hinge_embedding_loss, soft_margin_loss, cosine_embedding_loss,
                                  triplet_margin_loss, triplet_margin_with_distance_loss, multi_margin_loss,
                                  multilabel_margin_loss, multilabel_soft_margin_loss)
from .modules.fold import fold, unfold   # 24d_fold
from .modules.conv3d import conv3d, conv_transpose3d   # 23d_conv3d
from .modules.pooling3d import max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d   # 24e_pooling3d
from .modules.ctc_loss import ctc_loss   # 26c_ctc_loss
from .modules.fractional_max_pool import fractional_max_pool2d   # 24f_fractional_max_pool
from .modules.attention import scaled_dot_product_attention   # 28_attention
from .modules.multihead_attention import multi_head_attention_forward   # 28a_multihead_attention
from .modules.gumbel import gumbel_softmax, relu_, leaky_relu_   # 22d_gumbel_and_inplace
from .modules.with_indices import (max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices,   # 24g_with_indices
                                   adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices, adaptive_max_pool3d_with_indices,
                                   fractional_max_pool2d_with_indices, upsample, upsample_nearest, upsample_bilinear)
from .modules.channelshuffle import channel_shuffle, native_channel_shuffle   # 24h_channel_shuffle
from .modules.more_pooling3d import lp_pool3d, max_unpool3d   # 24i_more_pooling3d
from .modules.fractional_max_pool3d import fractional_max_pool3d, fractional_max_pool3d_with_indices   # 24j_fractional_max_pool3d

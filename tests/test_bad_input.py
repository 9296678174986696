"""Bad input at every door: each public `nn` constructor and functional of litnn and torch, run on the same bad
inputs (wrong types, wrong ranks, empty batches, NaN and inf, integer and float64 inputs to float32 layers,
bad sizes and options). Where torch raises, litnn must raise the same exception type with a message of its own
(not an accidental `AttributeError` or a numpy message); where torch computes, litnn must compute the same
shape, the same NaN/inf positions and the same finite values (and, for NaN/inf inputs, gradients with the
same NaN/inf positions). The issue-12 cases come first."""
import math, warnings
import numpy as np, pytest
import litnn
import litnn.nn.functional as LF
torch = pytest.importorskip('torch')
import torch.nn.functional as TF


# --- issue 12: the exception types that differed ------------------------------------------------------------

def raises(f):
    "The exception type and message `f()` raises."
    with pytest.raises(Exception) as e: f()
    return e.type, str(e.value)


def both(f):
    "f(litnn) and f(torch) raise the same type; litnn's message."
    (lt, lm), (tt, tm) = raises(lambda: f(litnn)), raises(lambda: f(torch))
    assert lt is tt, f'litnn raised {lt.__name__}: {lm}\ntorch raised {tt.__name__}: {tm}'
    return lm


@pytest.mark.parametrize('bad', [[1., 2., 3.], np.ones(3, np.float32), (1., 2., 3.), None, 3.])
def test_linear_of_non_tensor(bad):
    m = both(lambda lib: lib.nn.Linear(3, 2)(bad))
    assert "argument 'input' (position 1) must be Tensor" in m


@pytest.mark.parametrize('write', [lambda e: e.add_(1), lambda e: e.mul_(2), lambda e: e.copy_(e.clone() * 0),
                                   lambda e: e.sub_(1), lambda e: e.exp_(), lambda e: e.clamp_(0, 1)])
def test_inplace_into_expanded(write):
    m = both(lambda lib: write(lib.ones(1, 3).expand(2, 3)))
    assert 'more than one element of the written-to tensor refers to a single memory location' in m


def test_bool_negation_and_subtraction():
    for f in (lambda lib: -lib.tensor([True, False]), lambda lib: lib.tensor([True]).neg_(),
              lambda lib: lib.neg(lib.tensor([True]))):
        assert 'Negation, the `-` operator, on a bool tensor is not supported' in both(f)
    for f in (lambda lib: lib.tensor([True]) - lib.tensor([False]), lambda lib: lib.tensor([True]) - True,
              lambda lib: True - lib.tensor([True]), lambda lib: lib.sub(lib.tensor([True]), lib.tensor([True]), alpha=2),
              lambda lib: lib.tensor([True]).sub_(lib.tensor([False]))):
        assert 'Subtraction, the `-` operator, with two bool tensors is not supported' in both(f)


def test_batch_norm_with_no_channels():
    both(lambda lib: lib.nn.BatchNorm1d(0)(lib.ones(2, 0)))
    both(lambda lib: lib.nn.BatchNorm2d(0).eval()(lib.ones(2, 0, 3, 3)))
    for lib in (litnn, torch):     # without a weight there is nothing to read: both compute an empty result
        assert lib.nn.BatchNorm1d(0, affine=False)(lib.ones(2, 0)).shape == (2, 0)


def test_flatten_of_0d():
    assert 'Dimension out of range' in both(lambda lib: lib.nn.Flatten()(lib.tensor(1.)))
    both(lambda lib: lib.flatten(lib.tensor(1.), 0, 1))
    assert litnn.flatten(litnn.tensor(1.)).shape == torch.flatten(torch.tensor(1.)).shape == (1,)


@pytest.mark.parametrize('seed', [-1, -2**63, 0, 2**63, 2**64 - 1, 1.7, '12'])
def test_manual_seed_accepted(seed):
    litnn.manual_seed(seed); torch.manual_seed(seed)
    assert litnn.initial_seed() == torch.initial_seed()


@pytest.mark.parametrize('seed', [2**64, 2**70, -2**63 - 1, -2**70, 'x', None, [1]])
def test_manual_seed_refused(seed):
    both(lambda lib: lib.manual_seed(seed))
    litnn.manual_seed(0)


# --- every public constructor and functional -----------------------------------------------------------------

RNG = np.random.default_rng(0)
def f32(*shape): return RNG.standard_normal(shape).astype(np.float32)
def prob(*shape): return RNG.uniform(0.05, 0.95, shape).astype(np.float32)
def idx(n, *shape): return RNG.integers(0, n, shape)

# name: (constructor args, constructor kwargs, inputs as arrays, random output?)
MODULES = dict(
    AdaptiveAvgPool2d=((2,), {}, [f32(2, 3, 4, 4)]),
    AvgPool2d=((2,), {}, [f32(2, 3, 4, 4)]),
    BCELoss=((), {}, [prob(4, 3), prob(4, 3)]),
    BCEWithLogitsLoss=((), {}, [f32(4, 3), prob(4, 3)]),
    BatchNorm1d=((3,), {}, [f32(4, 3)]),
    BatchNorm2d=((3,), {}, [f32(2, 3, 4, 4)]),
    BatchNorm3d=((3,), {}, [f32(2, 3, 2, 2, 2)]),
    Bilinear=((2, 3, 4), {}, [f32(5, 2), f32(5, 3)]),
    Conv1d=((2, 3, 3), {}, [f32(2, 2, 8)]),
    Conv2d=((2, 3, 3), {}, [f32(2, 2, 6, 6)]),
    CrossEntropyLoss=((), {}, [f32(4, 5), idx(5, 4)]),
    Dropout=((0.5,), {}, [f32(3, 4)]),
    Embedding=((10, 3), {}, [idx(10, 2, 4)]),
    Flatten=((), {}, [f32(2, 3, 4)]),
    GELU=((), {}, [f32(3, 4)]),
    Identity=((), {}, [f32(3, 4)]),
    L1Loss=((), {}, [f32(4, 3), f32(4, 3)]),
    LayerNorm=((4,), {}, [f32(2, 3, 4)]),
    LeakyReLU=((), {}, [f32(3, 4)]),
    Linear=((3, 2), {}, [f32(4, 3)]),
    LogSoftmax=((1,), {}, [f32(3, 4)]),
    MSELoss=((), {}, [f32(4, 3), f32(4, 3)]),
    MaxPool2d=((2,), {}, [f32(2, 3, 4, 4)]),
    NLLLoss=((), {}, [f32(4, 5), idx(5, 4)]),
    ReLU=((), {}, [f32(3, 4)]),
    SiLU=((), {}, [f32(3, 4)]),
    Sigmoid=((), {}, [f32(3, 4)]),
    Softmax=((1,), {}, [f32(3, 4)]),
    Tanh=((), {}, [f32(3, 4)]),
    Unflatten=((1, (2, 2)), {}, [f32(3, 4)]),
)
RANDOM = {'Dropout', 'dropout'}                      # outputs differ between the libraries: compare shapes only
CONTAINERS = {'Module', 'Sequential', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict', 'Container'}

# name: (function of (F, *tensors), inputs as arrays); weights are inputs too, so they get bad values as well
FUNCTIONALS = dict(
    adaptive_avg_pool2d=(lambda F, x: F.adaptive_avg_pool2d(x, (2, 2)), [f32(2, 3, 4, 4)]),
    avg_pool2d=(lambda F, x: F.avg_pool2d(x, 2), [f32(2, 3, 4, 4)]),
    batch_norm=(lambda F, x, m, v: F.batch_norm(x, m, v), [f32(4, 3), f32(3), prob(3)]),
    bilinear=(lambda F, a, b, w, c: F.bilinear(a, b, w, c), [f32(5, 2), f32(5, 3), f32(4, 2, 3), f32(4)]),
    binary_cross_entropy=(lambda F, x, t: F.binary_cross_entropy(x, t), [prob(4, 3), prob(4, 3)]),
    binary_cross_entropy_with_logits=(lambda F, x, t: F.binary_cross_entropy_with_logits(x, t), [f32(4, 3), prob(4, 3)]),
    conv1d=(lambda F, x, w: F.conv1d(x, w), [f32(2, 2, 8), f32(3, 2, 3)]),
    conv2d=(lambda F, x, w, b: F.conv2d(x, w, b), [f32(2, 2, 6, 6), f32(3, 2, 3, 3), f32(3)]),
    cross_entropy=(lambda F, x, t: F.cross_entropy(x, t), [f32(4, 5), idx(5, 4)]),
    dropout=(lambda F, x: F.dropout(x, 0.5), [f32(3, 4)]),
    embedding=(lambda F, i, w: F.embedding(i, w), [idx(10, 2, 4), f32(10, 3)]),
    gelu=(lambda F, x: F.gelu(x), [f32(3, 4)]),
    l1_loss=(lambda F, x, t: F.l1_loss(x, t), [f32(4, 3), f32(4, 3)]),
    layer_norm=(lambda F, x, w, b: F.layer_norm(x, (4,), w, b), [f32(2, 3, 4), f32(4), f32(4)]),
    leaky_relu=(lambda F, x: F.leaky_relu(x), [f32(3, 4)]),
    linear=(lambda F, x, w, b: F.linear(x, w, b), [f32(4, 3), f32(2, 3), f32(2)]),
    log_softmax=(lambda F, x: F.log_softmax(x, 1), [f32(3, 4)]),
    max_pool2d=(lambda F, x: F.max_pool2d(x, 2), [f32(2, 3, 4, 4)]),
    mse_loss=(lambda F, x, t: F.mse_loss(x, t), [f32(4, 3), f32(4, 3)]),
    nll_loss=(lambda F, x, t: F.nll_loss(x, t), [f32(4, 5), idx(5, 4)]),
    relu=(lambda F, x: F.relu(x), [f32(3, 4)]),
    sigmoid=(lambda F, x: F.sigmoid(x), [f32(3, 4)]),
    silu=(lambda F, x: F.silu(x), [f32(3, 4)]),
    softmax=(lambda F, x: F.softmax(x, 1), [f32(3, 4)]),
    tanh=(lambda F, x: F.tanh(x), [f32(3, 4)]),
)


# --- the layers and functionals of the second round: fewer bad inputs each (FEW), so the file stays quick -------

class Of:
    "A constructor argument that is a module of the library under test (DataParallel's, TransformerEncoder's)."
    def __init__(self, make): self.make = make
    def __repr__(self): return 'Of'
def resolve(lib, args): return [a.make(lib) if isinstance(a, Of) else a for a in args]

def sign(*shape): return np.where(RNG.standard_normal(shape) > 0, 1., -1.).astype(np.float32)
def grid(*shape): return RNG.uniform(-1, 1, shape).astype(np.float32)
def unpool_indices(n, c, *size):
    "Valid max-pool indices of a 2-wide window over an output of twice `size`, flattened per channel."
    if len(size) == 1: return 2 * np.arange(size[0]) + idx(2, n, c, size[0])
    h, w = size
    rows, cols = 2 * np.arange(h)[:, None] + idx(2, n, c, h, w), 2 * np.arange(w)[None] + idx(2, n, c, h, w)
    return rows * 2 * w + cols
ACT = [f32(3, 4)]
PAIR = lambda: [f32(4, 3), f32(4, 3)]
CTC = lambda: [f32(6, 2, 4), RNG.integers(1, 4, (2, 3)), np.array([6, 5]), np.array([3, 2])]
LAYER = lambda lib: lib.nn.TransformerEncoderLayer(4, 2, 8, 0.0)
DLAYER = lambda lib: lib.nn.TransformerDecoderLayer(4, 2, 8, 0.0)
MORE_MODULES = dict(
    AdaptiveAvgPool1d=((2,), {}, [f32(2, 3, 6)]), AdaptiveAvgPool3d=((2,), {}, [f32(2, 3, 4, 4, 4)]),
    AdaptiveMaxPool1d=((2,), {}, [f32(2, 3, 6)]), AdaptiveMaxPool2d=((2,), {}, [f32(2, 3, 4, 4)]),
    AdaptiveMaxPool3d=((2,), {}, [f32(2, 3, 4, 4, 4)]),
    AlphaDropout=((0.5,), {}, [f32(3, 4)]), FeatureAlphaDropout=((0.5,), {}, [f32(2, 3, 4, 4)]),
    Dropout1d=((0.5,), {}, [f32(2, 3, 4)]), Dropout2d=((0.5,), {}, [f32(2, 3, 4, 4)]), Dropout3d=((0.5,), {}, [f32(2, 3, 2, 2, 2)]),
    AvgPool1d=((2,), {}, [f32(2, 3, 6)]), AvgPool3d=((2,), {}, [f32(2, 3, 4, 4, 4)]),
    MaxPool1d=((2,), {}, [f32(2, 3, 6)]), MaxPool3d=((2,), {}, [f32(2, 3, 4, 4, 4)]),
    LPPool1d=((2, 2), {}, [f32(2, 3, 6)]), LPPool2d=((2, 2), {}, [f32(2, 3, 4, 4)]),
    MaxUnpool1d=((2,), {}, [f32(2, 3, 3), unpool_indices(2, 3, 3)]),
    MaxUnpool2d=((2,), {}, [f32(2, 3, 2, 2), unpool_indices(2, 3, 2, 2)]),
    FractionalMaxPool2d=((2,), {'output_size': 2}, [f32(2, 3, 5, 5)]),
    CELU=((), {}, ACT), ELU=((), {}, ACT), GLU=((), {}, ACT), Hardshrink=((), {}, ACT), Hardsigmoid=((), {}, ACT),
    Hardswish=((), {}, ACT), Hardtanh=((), {}, ACT), LogSigmoid=((), {}, ACT), Mish=((), {}, ACT), PReLU=((), {}, ACT),
    RReLU=((), {}, ACT), ReLU6=((), {}, ACT), SELU=((), {}, ACT), Softmin=((1,), {}, ACT), Softplus=((), {}, ACT),
    Softshrink=((), {}, ACT), Softsign=((), {}, ACT), Tanhshrink=((), {}, ACT), Threshold=((0.1, 20.), {}, ACT),
    Softmax2d=((), {}, [f32(2, 3, 4, 4)]),
    CircularPad1d=((1,), {}, [f32(2, 3, 5)]), CircularPad2d=((1,), {}, [f32(2, 3, 4, 4)]), CircularPad3d=((1,), {}, [f32(2, 3, 3, 3, 3)]),
    ConstantPad1d=((1, 0.5), {}, [f32(2, 3, 5)]), ConstantPad2d=((1, 0.5), {}, [f32(2, 3, 4, 4)]),
    ConstantPad3d=((1, 0.5), {}, [f32(2, 3, 3, 3, 3)]),
    ReflectionPad1d=((1,), {}, [f32(2, 3, 5)]), ReflectionPad2d=((1,), {}, [f32(2, 3, 4, 4)]), ReflectionPad3d=((1,), {}, [f32(2, 3, 3, 3, 3)]),
    ReplicationPad1d=((1,), {}, [f32(2, 3, 5)]), ReplicationPad2d=((1,), {}, [f32(2, 3, 4, 4)]),
    ReplicationPad3d=((1,), {}, [f32(2, 3, 3, 3, 3)]),
    ZeroPad1d=((1,), {}, [f32(2, 3, 5)]), ZeroPad2d=((1,), {}, [f32(2, 3, 4, 4)]), ZeroPad3d=((1,), {}, [f32(2, 3, 3, 3, 3)]),
    Conv3d=((2, 3, 2), {}, [f32(2, 2, 4, 4, 4)]),
    ConvTranspose1d=((2, 3, 3), {}, [f32(2, 2, 5)]), ConvTranspose2d=((2, 3, 3), {}, [f32(2, 2, 4, 4)]),
    ConvTranspose3d=((2, 3, 2), {}, [f32(2, 2, 3, 3, 3)]),
    Fold=((4, 2), {}, [f32(2, 12, 9)]), Unfold=((2,), {}, [f32(2, 3, 4, 4)]),
    PixelShuffle=((2,), {}, [f32(2, 8, 3, 3)]), PixelUnshuffle=((2,), {}, [f32(2, 2, 4, 4)]),
    Upsample=((None, 2.), {}, [f32(2, 3, 4)]), UpsamplingBilinear2d=((None, 2.), {}, [f32(2, 3, 4, 4)]),
    UpsamplingNearest2d=((None, 2.), {}, [f32(2, 3, 4, 4)]),
    GroupNorm=((2, 4), {}, [f32(2, 4, 3)]), RMSNorm=((4,), {}, [f32(2, 3, 4)]),
    InstanceNorm1d=((3,), {}, [f32(2, 3, 5)]), InstanceNorm2d=((3,), {}, [f32(2, 3, 4, 4)]),
    InstanceNorm3d=((3,), {}, [f32(2, 3, 3, 3, 3)]), LocalResponseNorm=((2,), {}, [f32(2, 3, 4, 4)]),
    CosineSimilarity=((), {}, PAIR()), PairwiseDistance=((), {}, PAIR()),
    CTCLoss=((), {}, CTC()),
    CosineEmbeddingLoss=((), {}, [f32(4, 3), f32(4, 3), sign(4)]),
    GaussianNLLLoss=((), {}, [f32(4, 3), f32(4, 3), prob(4, 3)]),
    HingeEmbeddingLoss=((), {}, [f32(4, 3), sign(4, 3)]), HuberLoss=((), {}, PAIR()), SmoothL1Loss=((), {}, PAIR()),
    KLDivLoss=((), {'reduction': 'batchmean'}, [f32(4, 3), prob(4, 3)]),
    MarginRankingLoss=((), {}, [f32(4), f32(4), sign(4)]),
    MultiLabelMarginLoss=((), {}, [f32(4, 3), np.array([[0, 2, -1], [1, -1, 0], [2, 1, 0], [0, -1, -1]])]),
    MultiLabelSoftMarginLoss=((), {}, [f32(4, 3), idx(2, 4, 3).astype(np.float32)]),
    MultiMarginLoss=((), {}, [f32(4, 5), idx(5, 4)]),
    PoissonNLLLoss=((), {}, [f32(4, 3), prob(4, 3)]), SoftMarginLoss=((), {}, [f32(4, 3), sign(4, 3)]),
    TripletMarginLoss=((), {}, [f32(4, 3), f32(4, 3), f32(4, 3)]),
    TripletMarginWithDistanceLoss=((), {}, [f32(4, 3), f32(4, 3), f32(4, 3)]),
    EmbeddingBag=((10, 3), {}, [idx(10, 2, 4)]),
    RNN=((3, 4), {}, [f32(5, 2, 3)]), LSTM=((3, 4), {}, [f32(5, 2, 3)]), GRU=((3, 4), {}, [f32(5, 2, 3)]),
    RNNBase=(('LSTM', 3, 4), {}, [f32(5, 2, 3)]), RNNCellBase=((3, 4, True, 1), {}, [f32(2, 3)]),
    RNNCell=((3, 4), {}, [f32(2, 3)]), LSTMCell=((3, 4), {}, [f32(2, 3)]), GRUCell=((3, 4), {}, [f32(2, 3)]),
    MultiheadAttention=((4, 2), {}, [f32(3, 2, 4), f32(3, 2, 4), f32(3, 2, 4)]),
    TransformerEncoderLayer=((4, 2, 8, 0.0), {}, [f32(3, 2, 4)]),
    TransformerDecoderLayer=((4, 2, 8, 0.0), {}, [f32(3, 2, 4), f32(2, 2, 4)]),
    TransformerEncoder=((Of(LAYER), 1), {'enable_nested_tensor': False}, [f32(3, 2, 4)]),
    TransformerDecoder=((Of(DLAYER), 1), {}, [f32(3, 2, 4), f32(2, 2, 4)]),
    Transformer=((4, 2, 1, 1, 8, 0.0), {}, [f32(3, 2, 4), f32(2, 2, 4)]),
    DataParallel=((Of(lambda lib: lib.nn.Linear(3, 2)),), {}, [f32(4, 3)]),
    # 49_lazy_modules: the first (bad) input is also the one the shapes are learnt from
    LazyLinear=((2,), {}, [f32(4, 3)]),
    LazyConv1d=((2, 3), {}, [f32(2, 2, 8)]), LazyConv2d=((2, 3), {}, [f32(2, 2, 6, 6)]), LazyConv3d=((2, 2), {}, [f32(2, 2, 4, 4, 4)]),
    LazyConvTranspose1d=((2, 3), {}, [f32(2, 2, 5)]), LazyConvTranspose2d=((2, 3), {}, [f32(2, 2, 4, 4)]),
    LazyConvTranspose3d=((2, 2), {}, [f32(2, 2, 3, 3, 3)]),
    LazyBatchNorm1d=((), {}, [f32(4, 3)]), LazyBatchNorm2d=((), {}, [f32(2, 3, 4, 4)]), LazyBatchNorm3d=((), {}, [f32(2, 3, 2, 2, 2)]),
    LazyInstanceNorm1d=((), {}, [f32(2, 3, 5)]), LazyInstanceNorm2d=((), {}, [f32(2, 3, 4, 4)]),
    LazyInstanceNorm3d=((), {}, [f32(2, 3, 3, 3, 3)]),
    SyncBatchNorm=((3,), {}, [f32(4, 3)]),
)
MHA = lambda F, q, k, v, w, b, ow, ob: F.multi_head_attention_forward(q, k, v, 4, 2, w, b, None, None, False, 0., ow, ob)
MORE_FUNCTIONALS = dict(
    adaptive_avg_pool1d=(lambda F, x: F.adaptive_avg_pool1d(x, 2), [f32(2, 3, 6)]),
    adaptive_avg_pool3d=(lambda F, x: F.adaptive_avg_pool3d(x, 2), [f32(2, 3, 4, 4, 4)]),
    adaptive_max_pool1d=(lambda F, x: F.adaptive_max_pool1d(x, 2), [f32(2, 3, 6)]),
    adaptive_max_pool2d=(lambda F, x: F.adaptive_max_pool2d(x, 2), [f32(2, 3, 4, 4)]),
    adaptive_max_pool3d=(lambda F, x: F.adaptive_max_pool3d(x, 2), [f32(2, 3, 4, 4, 4)]),
    avg_pool1d=(lambda F, x: F.avg_pool1d(x, 2), [f32(2, 3, 6)]),
    avg_pool3d=(lambda F, x: F.avg_pool3d(x, 2), [f32(2, 3, 4, 4, 4)]),
    max_pool1d=(lambda F, x: F.max_pool1d(x, 2), [f32(2, 3, 6)]),
    max_pool3d=(lambda F, x: F.max_pool3d(x, 2), [f32(2, 3, 4, 4, 4)]),
    lp_pool1d=(lambda F, x: F.lp_pool1d(x, 2, 2), [f32(2, 3, 6)]),
    lp_pool2d=(lambda F, x: F.lp_pool2d(x, 2, 2), [f32(2, 3, 4, 4)]),
    max_unpool1d=(lambda F, x, i: F.max_unpool1d(x, i, 2), [f32(2, 3, 3), unpool_indices(2, 3, 3)]),
    max_unpool2d=(lambda F, x, i: F.max_unpool2d(x, i, 2), [f32(2, 3, 2, 2), unpool_indices(2, 3, 2, 2)]),
    fractional_max_pool2d=(lambda F, x: F.fractional_max_pool2d(x, 2, output_size=2), [f32(2, 3, 5, 5)]),
    affine_grid=(lambda F, t: F.affine_grid(t, [2, 3, 4, 4], align_corners=False), [f32(2, 2, 3)]),
    grid_sample=(lambda F, x, g: F.grid_sample(x, g, align_corners=False), [f32(2, 3, 4, 4), grid(2, 3, 3, 2)]),
    alpha_dropout=(lambda F, x: F.alpha_dropout(x, 0.5, True), [f32(3, 4)]),
    feature_alpha_dropout=(lambda F, x: F.feature_alpha_dropout(x, 0.5, True), [f32(2, 3, 4, 4)]),
    dropout1d=(lambda F, x: F.dropout1d(x, 0.5), [f32(2, 3, 4)]),
    dropout2d=(lambda F, x: F.dropout2d(x, 0.5), [f32(2, 3, 4, 4)]),
    dropout3d=(lambda F, x: F.dropout3d(x, 0.5), [f32(2, 3, 2, 2, 2)]),
    celu=(lambda F, x: F.celu(x), ACT), celu_=(lambda F, x: F.celu_(x), ACT), elu=(lambda F, x: F.elu(x), ACT),
    elu_=(lambda F, x: F.elu_(x), ACT), glu=(lambda F, x: F.glu(x), ACT), hardshrink=(lambda F, x: F.hardshrink(x), ACT),
    hardsigmoid=(lambda F, x: F.hardsigmoid(x), ACT), hardswish=(lambda F, x: F.hardswish(x), ACT),
    hardtanh=(lambda F, x: F.hardtanh(x), ACT), hardtanh_=(lambda F, x: F.hardtanh_(x), ACT),
    logsigmoid=(lambda F, x: F.logsigmoid(x), ACT), mish=(lambda F, x: F.mish(x), ACT), relu6=(lambda F, x: F.relu6(x), ACT),
    rrelu=(lambda F, x: F.rrelu(x, training=True), ACT), rrelu_=(lambda F, x: F.rrelu_(x, training=True), ACT),
    selu=(lambda F, x: F.selu(x), ACT), selu_=(lambda F, x: F.selu_(x), ACT), softmin=(lambda F, x: F.softmin(x, 1), ACT),
    softplus=(lambda F, x: F.softplus(x), ACT), softshrink=(lambda F, x: F.softshrink(x), ACT),
    softsign=(lambda F, x: F.softsign(x), ACT), tanhshrink=(lambda F, x: F.tanhshrink(x), ACT),
    threshold=(lambda F, x: F.threshold(x, 0.1, 20.), ACT), threshold_=(lambda F, x: F.threshold_(x, 0.1, 20.), ACT),
    prelu=(lambda F, x, w: F.prelu(x, w), [f32(3, 4), np.array([0.25], np.float32)]),
    conv3d=(lambda F, x, w: F.conv3d(x, w), [f32(2, 2, 4, 4, 4), f32(3, 2, 2, 2, 2)]),
    conv_transpose1d=(lambda F, x, w: F.conv_transpose1d(x, w), [f32(2, 2, 5), f32(2, 3, 3)]),
    conv_transpose2d=(lambda F, x, w: F.conv_transpose2d(x, w), [f32(2, 2, 4, 4), f32(2, 3, 3, 3)]),
    conv_transpose3d=(lambda F, x, w: F.conv_transpose3d(x, w), [f32(2, 2, 3, 3, 3), f32(2, 3, 2, 2, 2)]),
    fold=(lambda F, x: F.fold(x, 4, 2), [f32(2, 12, 9)]), unfold=(lambda F, x: F.unfold(x, 2), [f32(2, 3, 4, 4)]),
    pad=(lambda F, x: F.pad(x, (1, 1)), [f32(2, 3, 4)]),
    pixel_shuffle=(lambda F, x: F.pixel_shuffle(x, 2), [f32(2, 8, 3, 3)]),
    pixel_unshuffle=(lambda F, x: F.pixel_unshuffle(x, 2), [f32(2, 2, 4, 4)]),
    interpolate=(lambda F, x: F.interpolate(x, scale_factor=2.), [f32(2, 3, 4)]),
    group_norm=(lambda F, x, w, b: F.group_norm(x, 2, w, b), [f32(2, 4, 3), f32(4), f32(4)]),
    instance_norm=(lambda F, x: F.instance_norm(x), [f32(2, 3, 5)]),
    rms_norm=(lambda F, x, w: F.rms_norm(x, (4,), w), [f32(2, 3, 4), f32(4)]),
    local_response_norm=(lambda F, x: F.local_response_norm(x, 2), [f32(2, 3, 4, 4)]),
    normalize=(lambda F, x: F.normalize(x), ACT),
    cosine_similarity=(lambda F, a, b: F.cosine_similarity(a, b), PAIR()),
    pairwise_distance=(lambda F, a, b: F.pairwise_distance(a, b), PAIR()),
    pdist=(lambda F, x: F.pdist(x), [f32(4, 3)]),
    ctc_loss=(lambda F, lp, t, il, tl: F.ctc_loss(lp, t, il, tl), CTC()),
    cosine_embedding_loss=(lambda F, a, b, t: F.cosine_embedding_loss(a, b, t), [f32(4, 3), f32(4, 3), sign(4)]),
    gaussian_nll_loss=(lambda F, x, t, v: F.gaussian_nll_loss(x, t, v), [f32(4, 3), f32(4, 3), prob(4, 3)]),
    hinge_embedding_loss=(lambda F, x, t: F.hinge_embedding_loss(x, t), [f32(4, 3), sign(4, 3)]),
    huber_loss=(lambda F, x, t: F.huber_loss(x, t), PAIR()),
    smooth_l1_loss=(lambda F, x, t: F.smooth_l1_loss(x, t), PAIR()),
    kl_div=(lambda F, x, t: F.kl_div(x, t, reduction='batchmean'), [f32(4, 3), prob(4, 3)]),
    margin_ranking_loss=(lambda F, a, b, t: F.margin_ranking_loss(a, b, t), [f32(4), f32(4), sign(4)]),
    multi_margin_loss=(lambda F, x, t: F.multi_margin_loss(x, t), [f32(4, 5), idx(5, 4)]),
    multilabel_margin_loss=(lambda F, x, t: F.multilabel_margin_loss(x, t),
                            [f32(4, 3), np.array([[0, 2, -1], [1, -1, 0], [2, 1, 0], [0, -1, -1]])]),
    multilabel_soft_margin_loss=(lambda F, x, t: F.multilabel_soft_margin_loss(x, t), [f32(4, 3), idx(2, 4, 3).astype(np.float32)]),
    poisson_nll_loss=(lambda F, x, t: F.poisson_nll_loss(x, t), [f32(4, 3), prob(4, 3)]),
    soft_margin_loss=(lambda F, x, t: F.soft_margin_loss(x, t), [f32(4, 3), sign(4, 3)]),
    triplet_margin_loss=(lambda F, a, p, n: F.triplet_margin_loss(a, p, n), [f32(4, 3), f32(4, 3), f32(4, 3)]),
    triplet_margin_with_distance_loss=(lambda F, a, p, n: F.triplet_margin_with_distance_loss(a, p, n),
                                       [f32(4, 3), f32(4, 3), f32(4, 3)]),
    one_hot=(lambda F, i: F.one_hot(i, 5), [idx(5, 4)]),
    embedding_bag=(lambda F, i, w: F.embedding_bag(i, w), [idx(10, 2, 4), f32(10, 3)]),
    scaled_dot_product_attention=(lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v), [f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4)]),
    multi_head_attention_forward=(MHA, [f32(3, 2, 4), f32(3, 2, 4), f32(3, 2, 4), f32(12, 4), f32(12), f32(4, 4), f32(4)]),
)
# reference/nn/gumbel_softmax_and_inplace_rectifiers, reference/nn/pooling_indices_and_upsample, reference/nn/channelshuffle, reference/nn/adaptive
MORE_MODULES.update(ChannelShuffle=((2,), {}, [f32(2, 4, 3)]),
                    AdaptiveLogSoftmaxWithLoss=((16, 20, [4, 10]), {}, [f32(4, 16), idx(20, 4)]),   # reference/nn/adaptive
                    LPPool3d=((2, 2), {}, [f32(2, 3, 4, 4, 4)]),                                        # reference/nn/pooling_lp_and_unpool_3d
                    MaxUnpool3d=((2,), {}, [f32(2, 3, 2, 2, 2), TF.max_pool3d(torch.tensor(f32(2, 3, 4, 4, 4)), 2, return_indices=True)[1].numpy()]),
                    NLLLoss2d=((), {}, [f32(2, 5, 3, 3), idx(5, 2, 3, 3)]),                              # reference/nn/loss_deprecated_names
                    FractionalMaxPool3d=((2,), dict(output_size=2), [f32(2, 3, 5, 5, 5)]))                 # reference/nn/pooling_stochastic_fractional_max_3d
MORE_FUNCTIONALS.update(
    gumbel_softmax=(lambda F, x: F.gumbel_softmax(x), ACT), gumbel_softmax_hard=(lambda F, x: F.gumbel_softmax(x, hard=True), ACT),
    relu_=(lambda F, x: F.relu_(x), ACT), leaky_relu_=(lambda F, x: F.leaky_relu_(x, 0.2), ACT),
    max_pool1d_with_indices=(lambda F, x: F.max_pool1d_with_indices(x, 2), [f32(2, 3, 6)]),
    max_pool2d_with_indices=(lambda F, x: F.max_pool2d_with_indices(x, 2), [f32(2, 3, 4, 4)]),
    max_pool3d_with_indices=(lambda F, x: F.max_pool3d_with_indices(x, 2), [f32(2, 3, 4, 4, 4)]),
    adaptive_max_pool1d_with_indices=(lambda F, x: F.adaptive_max_pool1d_with_indices(x, 2), [f32(2, 3, 6)]),
    adaptive_max_pool2d_with_indices=(lambda F, x: F.adaptive_max_pool2d_with_indices(x, 2), [f32(2, 3, 4, 4)]),
    adaptive_max_pool3d_with_indices=(lambda F, x: F.adaptive_max_pool3d_with_indices(x, 2), [f32(2, 3, 4, 4, 4)]),
    fractional_max_pool2d_with_indices=(lambda F, x: F.fractional_max_pool2d_with_indices(x, 2, output_size=2), [f32(2, 3, 5, 5)]),
    upsample=(lambda F, x: F.upsample(x, scale_factor=2.), [f32(2, 3, 4)]),
    upsample_nearest=(lambda F, x: F.upsample_nearest(x, scale_factor=2.), [f32(2, 3, 4)]),
    upsample_bilinear=(lambda F, x: F.upsample_bilinear(x, scale_factor=2.), [f32(2, 3, 4, 4)]),
    channel_shuffle=(lambda F, x: F.channel_shuffle(x, 2), [f32(2, 4, 3)]),
    native_channel_shuffle=(lambda F, x: F.native_channel_shuffle(x, 2), [f32(2, 4, 3)]),
    lp_pool3d=(lambda F, x: F.lp_pool3d(x, 2, 2), [f32(2, 3, 4, 4, 4)]),
    fractional_max_pool3d=(lambda F, x: F.fractional_max_pool3d(x, 2, output_size=2), [f32(2, 3, 5, 5, 5)]),
    fractional_max_pool3d_with_indices=(lambda F, x: F.fractional_max_pool3d_with_indices(x, 2, output_size=2), [f32(2, 3, 5, 5, 5)]),
    max_unpool3d=(lambda F, x, i: F.max_unpool3d(x, i, 2), [f32(2, 3, 2, 2, 2), TF.max_pool3d(torch.tensor(f32(2, 3, 4, 4, 4)), 2, return_indices=True)[1].numpy()]),
)
FEW = ['numpy', 'none', 'scalar_tensor', 'empty_batch', 'nan', 'int64', 'float64']
MODULES.update(MORE_MODULES); FUNCTIONALS.update(MORE_FUNCTIONALS)
# added after the others, so that their random inputs stay as they were
MODULES.update(CrossMapLRN2d=((3,), {}, [f32(2, 3, 4, 4)]), LinearCrossEntropyLoss=((3, 4), {}, [f32(5, 3), idx(4, 5)]))
FUNCTIONALS.update(linear_cross_entropy=(lambda F, x, w, t: F.linear_cross_entropy(x, w, t), [f32(5, 3), f32(4, 3), idx(4, 5)]))
def _f8(lib, x): return x.to(lib.float8_e4m3fn) if isinstance(x, lib.Tensor) else x
def _scaled_mm(F, x, w):
    lib = torch if F is TF else litnn
    one = lib.tensor(1.)
    return F.scaled_mm(_f8(lib, x), _f8(lib, w).t(), one, F.ScalingType.TensorWise, one, F.ScalingType.TensorWise,
                       output_dtype=lib.float32)
def _offs(F): return (torch if F is TF else litnn).tensor([2, 6], dtype=(torch if F is TF else litnn).int32)
FUNCTIONALS.update(
    grouped_mm=(lambda F, a, b: F.grouped_mm(a, b, offs=_offs(F)), [f32(6, 8), f32(2, 8, 4)]),
    scaled_mm=(_scaled_mm, [f32(16, 32), f32(16, 32)]),
    scaled_grouped_mm=(lambda F, a, b: F.scaled_grouped_mm(a, b, None, None, None, None, offs=_offs(F)), [f32(6, 8), f32(2, 8, 4)]))
RANDOM |= {'LazyLinear', 'LazyConv1d', 'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d',   # initialised
           'LazyConvTranspose3d'}                                                  # in their first call: nothing to copy before
RANDOM |= {'AlphaDropout', 'FeatureAlphaDropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'RReLU', 'FractionalMaxPool2d',
           'alpha_dropout', 'feature_alpha_dropout', 'dropout1d', 'dropout2d', 'dropout3d', 'rrelu', 'rrelu_', 'fractional_max_pool2d',
           'gumbel_softmax', 'gumbel_softmax_hard', 'fractional_max_pool2d_with_indices', 'FractionalMaxPool3d', 'fractional_max_pool3d',
           'fractional_max_pool3d_with_indices'}
def variants_of(name): return FEW if name in MORE_MODULES or name in MORE_FUNCTIONALS else list(VARIANTS)


def _nonfinite(a, v):
    b = a.copy(); b.flat[0], b.flat[-1] = v, -v if v == math.inf else v
    return b

# variant: array -> what to pass (a function of the library, so tensors come from the right one)
VARIANTS = dict(
    list=lambda a: lambda lib: a.tolist(),
    numpy=lambda a: lambda lib: a,
    none=lambda a: lambda lib: None,
    number=lambda a: lambda lib: 1.5,
    scalar_tensor=lambda a: lambda lib: lib.tensor(a.flat[0]),
    extra_dims=lambda a: lambda lib: lib.tensor(a[None, None]),
    empty_batch=lambda a: lambda lib: lib.tensor(a[:0]),
    empty_features=lambda a: lambda lib: lib.tensor(a[..., :0]),
    nan=lambda a: lambda lib: lib.tensor(_nonfinite(a, math.nan)) if a.dtype.kind == 'f' else lib.tensor(a),
    inf=lambda a: lambda lib: lib.tensor(_nonfinite(a, math.inf)) if a.dtype.kind == 'f' else lib.tensor(a),
    int64=lambda a: lambda lib: lib.tensor(a.astype(np.int64)),
    bool=lambda a: lambda lib: lib.tensor(a > 0),
    float64=lambda a: lambda lib: lib.tensor(a.astype(np.float64)),
    float_indices=lambda a: lambda lib: lib.tensor(a.astype(np.float32)),
    out_of_range=lambda a: lambda lib: lib.tensor(a + 100 if a.dtype.kind == 'i' else a * 1e30),
    negative=lambda a: lambda lib: lib.tensor(-a - 1 if a.dtype.kind == 'i' else -a),
)


def outcome(run):
    "('raise', type, message) or ('ok', result) for `run()`, numpy warnings silenced."
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try: return ('ok', run())
        except Exception as e: return ('raise', type(e), str(e))


def arrays(v):
    "The result as comparable numpy arrays: tensors (and their gradients), tuples of them, or other values."
    if hasattr(v, 'detach'): return [v.detach().cpu().numpy()]
    if isinstance(v, (tuple, list)): return [a for x in v for a in arrays(x)]
    return [v]


def assert_same(l, t, compare_values=True, what=''):
    if t[0] == 'raise':
        assert l[0] == 'raise', f'{what}: torch raised {t[1].__name__}: {t[2]}\nlitnn returned {l[1]!r}'
        if t[1] is AttributeError and 'has no attribute' in t[2]:
            # torch's Python wrappers (F.tanh, F.softmax, nn.Flatten...) call a method of the non-tensor and trip; the C++
            # functions behind them (torch.tanh...) raise TypeError. litnn's one function serves both: either is fine.
            assert l[1] is AttributeError or (l[1] is TypeError and 'must be Tensor' in l[2]), f'{what}: {l[1].__name__}: {l[2]}'
            return
        assert l[1] is t[1], f'{what}: litnn raised {l[1].__name__}: {l[2]}\ntorch raised {t[1].__name__}: {t[2]}'
        assert l[2] and 'has no attribute' not in l[2] and 'numpy' not in l[2].replace('numpy.ndarray', ''), \
            f'{what}: litnn\'s message does not name the problem: {l[2]}'
        return
    assert l[0] == 'ok', f'{what}: torch returned, litnn raised {l[1].__name__}: {l[2]}'
    la, ta = arrays(l[1]), arrays(t[1])
    assert len(la) == len(ta), what
    for a, b in zip(la, ta):
        if not isinstance(b, np.ndarray): continue
        assert a.shape == b.shape and a.dtype == b.dtype, f'{what}: {a.shape} {a.dtype} vs torch {b.shape} {b.dtype}'
        if not compare_values or b.dtype.kind not in 'fc': continue
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f'{what}: NaN positions')
        np.testing.assert_array_equal(np.isposinf(a), np.isposinf(b), err_msg=f'{what}: +inf positions')
        np.testing.assert_array_equal(np.isneginf(a), np.isneginf(b), err_msg=f'{what}: -inf positions')
        fin = np.isfinite(b)
        np.testing.assert_allclose(a[fin], b[fin], rtol=1e-4, atol=1e-5, err_msg=what)


def make_module(lib, name, args, kwargs):
    m = getattr(lib.nn, name)(*resolve(lib, args), **kwargs)
    return m


def copy_weights(lm, tm):
    "Give litnn's module torch's parameters and buffers, so values can be compared."
    if any(torch.nn.parameter.is_lazy(v) for v in tm.state_dict().values()): return   # nothing to copy yet (49_lazy_modules)
    with litnn.no_grad():
        sd = {k: litnn.tensor(v.detach().cpu().numpy().copy()) for k, v in tm.state_dict().items()}
        lm.load_state_dict(sd)


def run_with_grads(out, leaves):
    "The output and, when it is differentiable, the gradients of its sum w.r.t. the float leaves."
    if getattr(out, 'requires_grad', False):
        out.sum().backward()
        return [out] + [x.grad for x in leaves if x.grad is not None]
    return out


# Differences that remain in parts other helpers own this round (issue 12 lists them for their notebooks): strict
# xfails, so that each fix shows up as an XPASS failure and its entry here is deleted. {owner: {name-input: variants}}
NOT_YET = {
    '15_elementwise_ops gelu cells, 40_activation': {'GELU-in0': 'inf', 'gelu-in0': 'inf'},
    '42_conv': {'conv1d-in0': 'nan inf', 'conv1d-in1': 'nan inf'},
    'reference/nn/upsampling (seen through reference/nn/pooling_indices_and_upsample upsample*): NaN positions differ': {'upsample_bilinear-in0': 'nan'},
    'reference/nn/embedding_bag: litnn computes where torch raises RuntimeError': {'embedding_bag-in1': 'int64'},
    "22b_more_activations (torch's vectorized and scalar loops disagree at NaN; the test tensor is small enough for the scalar one), NaN positions": {'prelu-in1': 'nan'},
    "22b_more_activations (torch's vectorized and scalar loops disagree at NaN; the test tensor is small enough for the scalar one), values": {'Hardswish-in0': 'nan', 'Hardtanh-in0': 'nan', 'ReLU6-in0': 'nan', 'hardswish-in0': 'nan', 'hardtanh-in0': 'nan', 'relu6-in0': 'nan'},
    'reference/nn/upsampling: NaN/inf positions of the result or gradient differ': {'UpsamplingBilinear2d-in0': 'nan'},
    'reference/nn/pooling_3d: NaN/inf positions of the result or gradient differ': {'AdaptiveAvgPool3d-in0': 'nan', 'adaptive_avg_pool3d-in0': 'nan'},
    'reference/nn/loss_regression_and_margin: NaN/inf positions of the result or gradient differ': {'MultiLabelMarginLoss-in0': 'nan', 'MultiMarginLoss-in0': 'nan', 'multi_margin_loss-in0': 'nan', 'multilabel_margin_loss-in0': 'nan'},
    "reference/nn/grouped_and_scaled_mm: torch 2.13's CPU grouped_mm backward refuses sum()'s expanded gradient "
    "(Invalid strides/sizes), litnn computes it": {'grouped_mm-in0': 'nan inf', 'grouped_mm-in1': 'nan inf'},
    'reference/nn/grouped_and_scaled_mm: empty operands torch computes and litnn refuses (offsets past an empty '
    "mat_a, an empty N's strides, an empty K)": {'grouped_mm-in0': 'empty_batch', 'grouped_mm-in1': 'empty_features',
                                                 'scaled_mm-in0': 'empty_features'},
}
_NOT_YET = {f'{k}-{v}': owner for owner, m in NOT_YET.items() for k, vs in m.items() for v in vs.split()}

# Where torch's float32 statistics overflow (deviations of 1e30 squared) and litnn's do not: compared with torch in float64.
BETTER = {'BatchNorm1d-in0-out_of_range', 'BatchNorm2d-in0-out_of_range', 'BatchNorm3d-in0-out_of_range',
          'LayerNorm-in0-out_of_range', 'layer_norm-in0-out_of_range'}


def cases(names):
    "pytest params (name, input, variant), the known differences marked as strict xfails naming their owner."
    out = []
    for n, i, v in names:
        id = f'{n}-in{i}-{v}'
        marks = [pytest.mark.xfail(strict=True, reason=f'not yet: {_NOT_YET[id]}')] if id in _NOT_YET else []
        out.append(pytest.param(n, i, v, id=id, marks=marks))
    return out


MODULE_CASES = [(n, i, v) for n, (_, _, ins) in MODULES.items() for i in range(len(ins)) for v in variants_of(n)]
FUNCTIONAL_CASES = [(n, i, v) for n, (_, ins) in FUNCTIONALS.items() for i in range(len(ins)) for v in variants_of(n)]


def widen(x, wide):
    "torch in float64 for the BETTER cases (litnn's float32 is compared with it)."
    return x.double() if wide and isinstance(x, torch.Tensor) and x.dtype == torch.float32 else x


def _module_outcome(lib, name, i, variant, tmod=None, wide=False):
    args, kwargs, ins = MODULES[name]
    def run():
        torch.manual_seed(0); litnn.manual_seed(0)
        m = make_module(lib, name, args, kwargs)
        if tmod is not None: copy_weights(m, tmod)
        if wide: m.double()
        xs = [widen(VARIANTS[variant](a)(lib) if j == i else lib.tensor(a), wide) for j, a in enumerate(ins)]
        leaves = [x for x in xs if isinstance(x, lib.Tensor) and x.dtype.is_floating_point]
        grads = variant in ('nan', 'inf')
        for x in leaves if grads else (): x.requires_grad_(True)
        out = m(*xs)
        return run_with_grads(out, leaves) if grads else out
    return run


def as_float32(r):
    return ('ok', [a.astype(np.float32) if a.dtype == np.float64 else a for a in arrays(r[1])]) if r[0] == 'ok' else r


@pytest.mark.parametrize('name,i,variant', cases(MODULE_CASES))
def test_module_bad_input(name, i, variant):
    torch.manual_seed(0)
    tm = make_module(torch, name, *MODULES[name][:2])
    wide = f'{name}-in{i}-{variant}' in BETTER
    t = outcome(_module_outcome(torch, name, i, variant, wide=wide))
    l = outcome(_module_outcome(litnn, name, i, variant, tm))
    assert_same(l, as_float32(t) if wide else t, name not in RANDOM, f'{name} input {i} {variant}')


@pytest.mark.parametrize('name,i,variant', cases(FUNCTIONAL_CASES))
def test_functional_bad_input(name, i, variant):
    f, ins = FUNCTIONALS[name]
    wide = f'{name}-in{i}-{variant}' in BETTER
    def run(lib, F):
        def go():
            xs = [widen(VARIANTS[variant](a)(lib) if j == i else lib.tensor(a), wide) for j, a in enumerate(ins)]
            leaves = [x for x in xs if isinstance(x, lib.Tensor) and x.dtype.is_floating_point]
            grads = variant in ('nan', 'inf')
            for x in leaves if grads else (): x.requires_grad_(True)
            out = f(F, *xs)
            return run_with_grads(out, leaves) if grads else out
        return go
    t = outcome(run(torch, TF))
    assert_same(outcome(run(litnn, LF)), as_float32(t) if wide else t, name not in RANDOM, f'{name} input {i} {variant}')


# constructor arguments: each one replaced by a bad value
BAD_ARGS = [-1, 0, 2.5, '3', None, (2, 2), True, math.nan]
def bad_id(b): return repr(b).replace(' ', '')     # '(2,2)': NOT_YET's variants are split on spaces
CTOR_CASES = [pytest.param(n, j, b, id=f'{n}-arg{j}-{bad_id(BAD_ARGS[b])}', marks=[pytest.mark.xfail(strict=True, reason=_NOT_YET[f'{n}-arg{j}-{bad_id(BAD_ARGS[b])}'])]
                            if f'{n}-arg{j}-{bad_id(BAD_ARGS[b])}' in _NOT_YET else [])
              for n, (args, _, _) in MODULES.items() for j in range(len(args)) for b in range(len(BAD_ARGS))]


@pytest.mark.parametrize('name,j,b', CTOR_CASES)
def test_constructor_bad_argument(name, j, b):
    args, kwargs, ins = MODULES[name]
    def run(lib):
        def go():
            a = list(args); a[j] = BAD_ARGS[b]
            m = getattr(lib.nn, name)(*resolve(lib, a), **kwargs)
            return [tuple(p.shape) for p in m.parameters()]
        return go
    assert_same(outcome(run(litnn)), outcome(run(torch)), what=f'{name}({BAD_ARGS[b]!r} as argument {j})')


CONTAINER_CALLS = dict(
    Sequential=lambda nn: nn.Sequential(1),
    Sequential_list=lambda nn: nn.Sequential([nn.ReLU()]),
    ModuleList=lambda nn: nn.ModuleList([1]),
    ModuleList_module=lambda nn: nn.ModuleList(nn.ReLU()),
    ModuleDict=lambda nn: nn.ModuleDict({'a': 1}),
    ModuleDict_list=lambda nn: nn.ModuleDict([1]),
    ModuleDict_key=lambda nn: nn.ModuleDict({1: nn.ReLU()}),
    Module=lambda nn: nn.Module(3),
    ParameterList=lambda nn: nn.ParameterList(3),
    ParameterDict=lambda nn: nn.ParameterDict(3),
    Container=lambda nn: nn.Container(a=3),
)


@pytest.mark.parametrize('name', list(CONTAINER_CALLS))
def test_container_bad_argument(name):
    run = lambda lib: lambda: len(list(CONTAINER_CALLS[name](lib.nn).children()))
    assert_same(outcome(run(litnn)), outcome(run(torch)), what=name)


def test_every_public_name_has_bad_input_cases():
    "A new public layer or functional gets its row in MODULES / FUNCTIONALS (and with it every bad input above)."
    nn = litnn.nn
    modules = {n for n in dir(nn) if isinstance(getattr(nn, n), type) and issubclass(getattr(nn, n), nn.Module)}
    functionals = {n for n in dir(LF) if not n.startswith('_') and callable(getattr(LF, n)) and not isinstance(getattr(LF, n), type)
                   and (getattr(getattr(LF, n), '__module__', None) or '').startswith('litnn.nn')}   # not the helpers it imports
    helpers = {'assert_int_or_pair'}     # an argument checker torch keeps in nn.functional, not an operation on tensors
    assert modules - CONTAINERS - set(MODULES) == set() and functionals - helpers - set(FUNCTIONALS) == set()


# --- out= (torch's rules: resize with a warning unless empty, castable dtype, never differentiable) -----------

OUT_CALLS = dict(
    add=lambda lib, out: lib.add(lib.ones(3), lib.tensor([1., 2., 3.]), alpha=2, out=out),
    sub=lambda lib, out: lib.sub(lib.ones(3), 0.5, out=out),
    mul=lambda lib, out: lib.mul(lib.ones(3), lib.tensor([1., 2., 3.]), out=out),
    div=lambda lib, out: lib.div(lib.tensor([1., 2., 3.]), 2, out=out),
    div_floor=lambda lib, out: lib.div(lib.tensor([1., 2., 3.]), 2, rounding_mode='floor', out=out),
    matmul=lambda lib, out: lib.matmul(lib.ones(2, 3), lib.ones(3), out=out),
    cat=lambda lib, out: lib.cat([lib.ones(1), lib.zeros(2)], out=out),
    stack=lambda lib, out: lib.stack([lib.ones(2), lib.zeros(2)], 1, out=out)[:, 0],
)


@pytest.mark.parametrize('name', list(OUT_CALLS))
@pytest.mark.parametrize('out', ['same', 'empty', 'wrong_shape', 'float64', 'int64', 'requires_grad', 'list'])
def test_out_argument(name, out):
    def run(lib):
        def go():
            shape = tuple(OUT_CALLS[name](lib, None).shape) if name != 'stack' else (2, 2)
            o = dict(same=lambda: lib.empty(shape), empty=lambda: lib.empty(0), wrong_shape=lambda: lib.empty(7),
                     float64=lambda: lib.empty(shape, dtype=lib.float64), int64=lambda: lib.empty(shape, dtype=lib.int64),
                     requires_grad=lambda: lib.empty(shape, requires_grad=True), list=lambda: [0.] * 3)[out]()
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                r = OUT_CALLS[name](lib, o)
            resized = [str(x.message)[:40] for x in w if 'resized' in str(x.message)]
            return (r.detach().numpy() if name == 'stack' else o.numpy()), (r is o or name == 'stack'), resized
        return go
    l, t = outcome(run(litnn)), outcome(run(torch))
    if t[0] == 'raise': return assert_same(l, t, what=f'{name} out={out}')
    assert l[0] == 'ok', l
    np.testing.assert_array_equal(l[1][0], t[1][0])
    assert l[1][0].dtype == t[1][0].dtype and l[1][1:] == t[1][1:]


def test_out_with_inputs_requiring_grad():
    for name in ('add', 'mul', 'matmul', 'cat'):
        f = {'add': lambda lib, x, o: lib.add(x, 1, out=o), 'mul': lambda lib, x, o: lib.mul(x, x, out=o),
             'matmul': lambda lib, x, o: lib.matmul(x, x, out=o), 'cat': lambda lib, x, o: lib.cat([x], out=o)}[name]
        m = both(lambda lib: f(lib, lib.ones(2, 2, requires_grad=True), lib.empty(2, 2)))
        assert f"{name}(): functions with out=... arguments don't support automatic differentiation" in m
    with litnn.no_grad(), torch.no_grad():     # without recording, torch writes: so does litnn
        for lib in (litnn, torch): assert lib.add(lib.ones(2, requires_grad=True), 1, out=lib.empty(2)).tolist() == [2., 2.]


# --- matmul's inner sizes: the message of the kernel torch's matmul runs (dot, mv, mm after folding, bmm) ----

@pytest.mark.parametrize('a, b', [((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 5)), ((2, 3), (4, 5)), ((2, 2, 3), (4, 5)),
                                  ((2, 2, 3), (4,)), ((3,), (2, 4, 5)), ((2, 3), (2, 4, 5)), ((2, 2, 3), (2, 4, 5)),
                                  ((2, 2, 3), (3, 4, 5)), ((3, 2, 3), (2, 3, 5)), ((1, 2, 3), (5, 4, 5)),
                                  ((2, 1, 2, 3), (3, 4, 5))])
def test_matmul_size_mismatch_message(a, b):
    msgs = [raises(lambda: m.matmul(m.ones(a), m.ones(b))) for m in (litnn, torch)]
    assert msgs[0] == msgs[1]
    assert raises(lambda: litnn.ones(a) @ litnn.ones(b)) == msgs[1]


@pytest.mark.parametrize('f, a, b', [('mm', (2, 3), (4, 5)), ('bmm', (2, 2, 3), (2, 4, 5)), ('mv', (2, 3), (4,)),
                                     ('dot', (3,), (4,))])
def test_product_size_mismatch_message(f, a, b):
    assert raises(lambda: getattr(litnn, f)(litnn.ones(a), litnn.ones(b))) == raises(lambda: getattr(torch, f)(torch.ones(a), torch.ones(b)))


@pytest.mark.parametrize('expr', ['x @ 2', '2 @ x', 'm.matmul(x, 2)', 'm.matmul(2.5, x)', 'x @ None'])
def test_matmul_of_non_tensor_is_type_error(expr):
    l, t = (raises(lambda: eval(expr, dict(m=m, x=m.ones(2, 3)))) for m in (litnn, torch))
    assert l == t


@pytest.mark.parametrize('kw', [dict(momentum=None), dict(momentum='0.1'), dict(momentum=1), dict(momentum=True)])
def test_functional_batch_norm_number_arguments(kw):
    "F.batch_norm reads momentum and eps as floats: None (the module's 'cumulative average') is torch's TypeError here."
    import torch as T
    outs = []
    for lib in (T, litnn):
        try:
            rm = lib.zeros(3)
            lib.nn.functional.batch_norm(lib.ones(2, 3), rm, lib.ones(3), training=True, **kw)
            outs.append(rm.tolist())
        except TypeError as e: outs.append(str(e))
    assert outs[0] == outs[1]


_MASK_KEYS = [((3,), lambda L: L.tensor([[True, False, True]])), ((3,), lambda L: L.tensor([[True]])), ((2, 3), lambda L: L.tensor([[[True]]])),
              ((2, 3), lambda L: (0, L.tensor([[True, True, True]]))), ((2, 3), lambda L: (L.tensor([True, False]), L.tensor([[True]]))),
              ((2, 3), lambda L: L.tensor([True, False, True])), ((2, 3), lambda L: (slice(None), L.tensor([True, False])))]

@pytest.mark.parametrize('case', range(len(_MASK_KEYS)))
def test_boolean_mask_errors(case):
    "A mask that covers more dims than the tensor has: torch's 'too many indices' first; else the mask's shape mismatch."
    import torch as T
    shape, key = _MASK_KEYS[case]
    msgs = []
    for lib in (T, litnn):
        with pytest.raises(IndexError) as e: lib.ones(*shape)[key(lib)]
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]

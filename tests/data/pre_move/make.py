"""Write the checkpoints in this folder with litnn as it was before its package took torch's layout (issue 26:
"The torch path decides the file"). They record the old class paths (`litnn.nn.modules.more_activation_modules.ELU`,
`litnn.nn.modules.more_containers.ModuleDict`...), and tests/test_old_checkpoints.py loads them into today's classes.

This script ran once, at commit 85dc241 plus this session's fixes; it cannot run after the move (the old paths are
gone), and it need not: the files are the test data.

    python tests/data/pre_move/make.py"""
import warnings
from pathlib import Path
import litnn
from litnn import nn
from litnn.distributions import Normal, Categorical, TransformedDistribution, transforms, constraints

HERE = Path(__file__).parent
warnings.simplefilter('ignore')

def model():
    "A model that holds an instance of every Module class that was defined away from torch's file, and their state."
    litnn.manual_seed(0)
    return nn.Sequential(
        nn.Linear(4, 6), nn.ELU(), nn.SELU(), nn.CELU(), nn.Hardtanh(), nn.ReLU6(), nn.Hardsigmoid(), nn.Hardswish(),
        nn.Mish(), nn.PReLU(), nn.RReLU(), nn.Softplus(), nn.Softsign(), nn.Softshrink(), nn.Hardshrink(),
        nn.Tanhshrink(), nn.Threshold(0.1, 0.0), nn.LogSigmoid(), nn.Softmin(1), nn.GLU(), nn.Bilinear(3, 3, 2),
        nn.ModuleDict({'huber': nn.HuberLoss(), 'smooth': nn.SmoothL1Loss(), 'kl': nn.KLDivLoss(), 'ctc': nn.CTCLoss(),
                       'margin': nn.MarginRankingLoss(), 'triplet': nn.TripletMarginLoss(), 'nll2d': nn.NLLLoss2d()}),
        nn.ModuleList([nn.MaxPool1d(2), nn.AvgPool1d(2), nn.AdaptiveMaxPool2d(2), nn.LPPool2d(2, 2), nn.MaxUnpool2d(2),
                       nn.MaxPool3d(2), nn.AvgPool3d(2), nn.LPPool3d(2, 2), nn.MaxUnpool3d(2),
                       nn.FractionalMaxPool2d(2, output_size=3), nn.Upsample(scale_factor=2), nn.UpsamplingNearest2d(scale_factor=2)]),
        nn.ModuleList([nn.InstanceNorm1d(3, affine=True), nn.LocalResponseNorm(2), nn.GroupNorm(1, 6), nn.RMSNorm(6),
                       nn.LayerNorm(6), nn.BatchNorm1d(6), nn.Dropout1d(), nn.AlphaDropout(), nn.FeatureAlphaDropout(),
                       nn.Conv3d(1, 2, 2), nn.ConvTranspose2d(1, 2, 2), nn.ConvTranspose3d(1, 2, 2),
                       nn.EmbeddingBag(5, 3), nn.LSTMCell(3, 4), nn.GRUCell(3, 4), nn.RNNCell(3, 4),
                       nn.MultiheadAttention(6, 2), nn.Identity(), nn.Flatten(), nn.Unflatten(1, (2, 3))]),
        nn.ParameterList([nn.Parameter(litnn.ones(2))]), nn.ParameterDict({'p': nn.Parameter(litnn.zeros(3))}),
    )

if __name__ == '__main__':
    m = model()
    litnn.save(m, HERE/'model.litnn')                          # litnn's format: class paths in its JSON records
    objects = {'normal': Normal(litnn.zeros(2), litnn.ones(2)), 'categorical': Categorical(logits=litnn.zeros(3)),
               'transformed': TransformedDistribution(Normal(0., 1.), [transforms.ExpTransform()]),
               'transforms': [transforms.SoftmaxTransform(), transforms.StickBreakingTransform(), transforms.CorrCholeskyTransform()],
               'constraints': [constraints.positive_semidefinite, constraints.corr_cholesky, constraints.positive],
               'sgd': litnn.optim.SGD(m.parameters(), lr=0.1).state_dict()}
    litnn.save({k: v for k, v in objects.items() if k != 'sgd'}, HERE/'objects.litnn')   # records of class and state
    print({p.name: p.stat().st_size for p in sorted(HERE.iterdir()) if p.suffix != '.py'})
    print(sorted({type(x).__module__ + '.' + type(x).__name__ for x in m.modules()}))

"""litnn.distributions: probability distributions, as `torch.distributions`. Hand-written."""
from . import constraints
from .distribution import Distribution                      # 33_distributions
from .normal import Normal
from .uniform import Uniform
from .laplace import Laplace
from .exponential import Exponential

"""litnn.distributions: probability distributions, as `torch.distributions`. Hand-written."""
from . import constraints
from .distribution import Distribution                      # 33_distributions
from .normal import Normal
from .uniform import Uniform
from .laplace import Laplace
from .exponential import Exponential
from .gamma import Gamma                                    # 33h_gamma (33c_special: lgamma, digamma...)
from .dirichlet import Dirichlet                            # 33j_dirichlet
from .beta import Beta                                      # 33k_beta

"""litnn.distributions: probability distributions, as `torch.distributions`. Hand-written."""
from . import constraints                                   # 33a_constraints (33xb_multinomial, 33y_mixture_same_family, 33z_structured_constraints)
from .distribution import Distribution                      # 33_distributions
from .exp_family import ExponentialFamily                   # 33ca_exp_family (33b_dist_utils: helpers)
from .normal import Normal                                  # 33d_normal
from .uniform import Uniform                                # 33e_uniform
from .laplace import Laplace                                # 33f_laplace
from .exponential import Exponential                        # 33g_exponential
from .gamma import Gamma                                    # 33h_gamma
from .dirichlet import Dirichlet                            # 33j_dirichlet
from .beta import Beta                                      # 33k_beta
from .bernoulli import Bernoulli                            # 33l_bernoulli
from .categorical import Categorical                        # 33m_categorical
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough   # 33n_one_hot_categorical (and 33yb_relaxed_categorical)
from .poisson import Poisson                                # 33o_poisson
from .binomial import Binomial                              # 33p_binomial
from .multivariate_normal import MultivariateNormal         # 33q_multivariate_normal
from .independent import Independent                        # 33r_independent
from . import transforms                                    # 33s_transforms, 33za_structured_transforms
from .transforms import *
from .transformed_distribution import TransformedDistribution  # 33t_transformed_distribution
from .log_normal import LogNormal                           # 33u_log_normal
from .cauchy import Cauchy                                   # 33w_cauchy
from .half_cauchy import HalfCauchy                         # 33wa_half_cauchy
from .half_normal import HalfNormal                         # 33wb_half_normal
from .chi2 import Chi2                                       # 33wc_chi2
from .studentT import StudentT                               # 33wd_student_t
from .gumbel import Gumbel                                   # 33we_gumbel
from .weibull import Weibull                                 # 33wf_weibull
from .pareto import Pareto                                   # 33wg_pareto
from .geometric import Geometric                             # 33x_geometric
from .negative_binomial import NegativeBinomial             # 33xa_negative_binomial
from .multinomial import Multinomial                         # 33xb_multinomial
from .kl import kl_divergence, register_kl                  # 33v_kl, 33xc_kl_cauchy_gumbel_pareto
from .mixture_same_family import MixtureSameFamily       # 33y_mixture_same_family
from .relaxed_bernoulli import RelaxedBernoulli   # 33ya_relaxed_bernoulli
from .relaxed_categorical import RelaxedOneHotCategorical   # 33yb_relaxed_categorical
from .lowrank_multivariate_normal import LowRankMultivariateNormal   # 33yc_lowrank_multivariate_normal
from .constraint_registry import biject_to, transform_to   # 33zb_constraint_registry
from .inverse_gamma import InverseGamma                     # 33zc_inverse_gamma
from .kumaraswamy import Kumaraswamy                        # 33zd_kumaraswamy
from .logistic_normal import LogisticNormal                 # 33ze_logistic_normal
from .fishersnedecor import FisherSnedecor                  # 33zf_fishersnedecor
from .continuous_bernoulli import ContinuousBernoulli         # 33zg_continuous_bernoulli
from .von_mises import VonMises                             # 33zh_von_mises
from .generalized_pareto import GeneralizedPareto           # reference/distributions/generalized_pareto
from .wishart import Wishart                                 # reference/distributions/wishart
from .lkj_cholesky import LKJCholesky                         # reference/distributions/lkj_cholesky

# torch's public names, what `from torch.distributions import *` gives: the distributions, the KL and constraint
# registries' functions and every transform (not the submodules constraints, transforms, utils)
__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy",
           "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
           "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "StudentT", "Poisson", "Uniform", "VonMises", "Weibull", "Wishart", "TransformedDistribution", "biject_to",
           "kl_divergence", "register_kl", "transform_to"]
__all__.extend(transforms.__all__)

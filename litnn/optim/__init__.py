"""litnn.optim: optimizers and learning-rate schedulers, as `torch.optim`. Hand-written."""
from .optimizer import Optimizer                              # 30_optim
from .sgd import SGD                                          # 30n_sgd
from .adam import Adam                                        # 30o_adam
from .adamw import AdamW                                      # 30oa_adamw
from .rmsprop import RMSprop                                  # 30p_rmsprop
from .adadelta import Adadelta                                # 30c_adadelta
from .adagrad import Adagrad                                  # 30d_adagrad
from .adamax import Adamax                                    # 30e_adamax
from .nadam import NAdam                                      # 30f_nadam
from .radam import RAdam                                      # 30g_radam
from .asgd import ASGD                                        # 30h_asgd
from .rprop import Rprop                                      # 30i_rprop
from .sparse_adam import SparseAdam                           # 30j_sparse_adam
from .lbfgs import LBFGS                                      # 30k_lbfgs
from ._adafactor import Adafactor                             # 30q_adafactor
from ._muon import Muon                                       # 30r_muon
from . import optimizer
from . import lr_scheduler                                    # 30a_lr_scheduler, 30l_schedulers, 30la_plateau_sequential
from . import swa_utils                                       # 30m_swa
from ._stateless import swap_in_optimizer_params_and_state    # reference/optim/stateless

# As torch/optim/__init__.py: Adafactor and Muon are written in private files (as torch's _adafactor.py and _muon.py)
# and presented here, so that their path is torch's, `litnn.optim.Adafactor` and `litnn.optim.Muon`.
Adafactor.__module__ = "litnn.optim"
Muon.__module__ = "litnn.optim"

__all__ = ['Optimizer', 'SGD', 'Adam', 'AdamW', 'RMSprop', 'Adadelta', 'Adagrad', 'Adamax', 'NAdam', 'RAdam', 'ASGD', 'Rprop',
           'SparseAdam', 'LBFGS', 'Adafactor', 'Muon', 'lr_scheduler', 'swa_utils',
           'swap_in_optimizer_params_and_state']

"""litnn.optim: optimizers and learning-rate schedulers, as `torch.optim`. Hand-written."""
from .optimizer import Optimizer, SGD, Adam, AdamW, RMSprop
from . import optimizer
from . import lr_scheduler

__all__ = ['Optimizer', 'SGD', 'Adam', 'AdamW', 'RMSprop', 'lr_scheduler']

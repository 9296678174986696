"""litnn.utils: helpers, as torch.utils."""
from . import data   # 31_dataset to 31e_chain_stack_datasets: Dataset, samplers, default_collate, DataLoader
from . import _pytree   # reference/utils/pytree: tree_flatten, tree_map... (torch.utils imports it too)
from ._swap_tensors import swap_tensors   # reference/torch/future: torch.utils.swap_tensors (torch defines it in utils/__init__.py)

def set_module(obj, mod):
    "Set `obj.__module__` to the string `mod`, for nicer printing (torch defines it in utils/__init__.py)."
    if not isinstance(mod, str): raise TypeError("The mod argument should be a string")
    obj.__module__ = mod

"""litnn.utils: helpers, as torch.utils."""
from . import data   # 31_data: Dataset, DataLoader, samplers, default_collate

"""`torch.distributed._composable.fsdp`: `fully_shard` and its policies, the same objects as `torch.distributed.fsdp` (76b_fully_shard). Hand-written."""
from ...fsdp import CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy, fully_shard, register_fsdp_forward_method

__all__ = ['CPUOffloadPolicy', 'FSDPModule', 'MixedPrecisionPolicy', 'OffloadPolicy', 'fully_shard', 'register_fsdp_forward_method']

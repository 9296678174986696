"""`torch.distributed._composable`: the composable distributed APIs; litnn has `fully_shard` (its `fsdp` package). Hand-written."""

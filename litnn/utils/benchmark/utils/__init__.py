"""litnn.utils.benchmark.utils: the modules of `torch.utils.benchmark` (reference/utils/benchmark). Hand-written."""

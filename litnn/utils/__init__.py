"""litnn.utils: helpers, as torch.utils."""

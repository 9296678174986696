"""litnn._library: the machinery under `litnn.library`, as torch._library. Hand-written."""

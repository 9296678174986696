"""litnn._functorch: of torch's `_functorch` package litnn has only `config` (nbs/reference/functorch/config). Hand-written."""

"""litnn._inductor: of torch's `_inductor` package litnn has only `config` (nbs/reference/inductor/config). Hand-written."""

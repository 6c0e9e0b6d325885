"""Spider middlewares, one module a concern."""

"""The page model: the compiled walk over lxml's own tree (``_walk``, built by the project's
build), and what Python builds from it."""

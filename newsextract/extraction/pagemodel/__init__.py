"""The page model: decode, parse, clean, cut into blocks and count once. The walks over
lxml's own tree are compiled (``_walk``, ``_text``, built by the project's build)."""

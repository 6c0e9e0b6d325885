"""Decision: which blocks are the article (the combiner, regions and the rules after the
classifier), from the evidence."""

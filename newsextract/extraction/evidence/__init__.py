"""Evidence: what each block looks like to the methods (layout and wording features, stop
lists, the classifiers; methods C and D), from the page model."""

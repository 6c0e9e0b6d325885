"""Training and measuring method E's block classifier: apart from the runtime.

The runtime (:mod:`newsextract.extraction`) needs only the page and the shipped model; this
package reads the development sets, labels their blocks, fits the model
(``newsextract train``) and measures how it holds on pages it never saw (``--holdout``,
``--folds``).
"""

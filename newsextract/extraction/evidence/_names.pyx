# cython: language_level=3, boundscheck=False, wraparound=False
"""The learned class and id word scores of a page's elements, in one compiled pass."""


def name_scores(tuple element_names not None, dict names not None, double[::1] out not None) -> None:
    """Fill ``out[i]`` with the mean learned score of element ``i``'s class and id words that
    the model knows (0 when it knows none); each distinct word list is scored once. The mean
    adds in the words' order, as Python's ``sum`` does, then divides."""
    cdef dict memo = {}
    cdef Py_ssize_t i, known
    cdef double total, score
    cdef tuple words
    for i in range(len(element_names)):
        words = <tuple>element_names[i]
        found = memo.get(words)
        if found is None:
            total = 0.0
            known = 0
            for word in words:
                value = names.get(word)
                if value is not None:
                    total += <double>value
                    known += 1
            score = total / known if known else 0.0
            memo[words] = score
        else:
            score = <double>found
        out[i] = score

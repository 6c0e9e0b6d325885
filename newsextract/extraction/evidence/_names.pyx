# cython: language_level=3, boundscheck=False, wraparound=False
"""Words looked up in the model's tables in compiled loops: the learned class and id word
scores of a page's elements, and the log-odds and stop-list rows of its distinct words."""

from cpython.dict cimport PyDict_GetItem
from cpython.object cimport PyObject


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


ctypedef fused number:
    double
    long long


def word_lookup(tuple words not None, dict table not None, number missing, number[::1] out not None) -> None:
    """Fill ``out[i]`` with ``table[words[i]]``, ``missing`` for words not in the table."""
    cdef Py_ssize_t i
    cdef PyObject* found
    for i in range(len(words)):
        found = PyDict_GetItem(table, words[i])
        out[i] = missing if found is NULL else <number><object>found

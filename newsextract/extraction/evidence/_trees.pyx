# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Boosted oblivious trees, predicted in C: each row goes down every tree (one comparison a
level), and its leaf values are summed in the order and the pairs numpy's ``sum`` adds them
(pairwise, blocks of eight), so that the logits are those of the numpy prediction, bit for bit.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc

from newsextract.extraction.evidence._sums cimport pairwise_sum


def tree_logits(
    const double[:, ::1] x not None,
    const long long[:, ::1] features not None,
    const double[:, ::1] thresholds not None,
    const double[:, ::1] leaves not None,
    double base,
    double[::1] out not None,
) -> None:
    """Fill ``out`` with ``base`` plus each row's leaf values, one tree after another (a tree
    goes right at a level when the row's feature is above the level's threshold)."""
    cdef Py_ssize_t rows = x.shape[0], trees = features.shape[0], depth = features.shape[1]
    cdef Py_ssize_t row, tree, level, leaf
    cdef const double* features_of_row
    cdef const long long* tested
    cdef const double* limits
    cdef double* values = NULL
    if trees == 0:
        for row in range(rows):
            out[row] = base
        return
    values = <double*>PyMem_Malloc(trees * sizeof(double))
    if values is NULL:
        raise MemoryError()
    try:
        with nogil:
            for row in range(rows):
                features_of_row = &x[row, 0]
                for tree in range(trees):
                    tested = &features[tree, 0]
                    limits = &thresholds[tree, 0]
                    if depth == 6:
                        leaf = _leaf6(features_of_row, tested, limits)
                    elif depth == 4:
                        leaf = _leaf4(features_of_row, tested, limits)
                    else:
                        leaf = 0
                        for level in range(depth):  # no branch: the comparison is the bit
                            leaf |= (features_of_row[tested[level]] > limits[level]) << level
                    values[tree] = leaves[tree, leaf]
                out[row] = base + (0.0 + pairwise_sum(values, trees))
    finally:
        PyMem_Free(values)


# The shipped model's depths, unrolled: the levels' comparisons then run side by side.
cdef inline Py_ssize_t _leaf4(const double* row, const long long* tested,
                              const double* limits) noexcept nogil:
    return ((row[tested[0]] > limits[0]) | ((row[tested[1]] > limits[1]) << 1)
            | ((row[tested[2]] > limits[2]) << 2) | ((row[tested[3]] > limits[3]) << 3))


cdef inline Py_ssize_t _leaf6(const double* row, const long long* tested,
                              const double* limits) noexcept nogil:
    return (_leaf4(row, tested, limits) | ((row[tested[4]] > limits[4]) << 4)
            | ((row[tested[5]] > limits[5]) << 5))

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Boosted oblivious trees, predicted in C: each row goes down every tree (one comparison a
level), and its leaf values are summed in the order and the pairs numpy's ``sum`` adds them
(pairwise, blocks of eight), so that the logits are those of the numpy prediction, bit for bit.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc


cdef double pairwise_sum(const double* values, Py_ssize_t n) noexcept nogil:
    """numpy's pairwise summation of ``n`` contiguous values (its float64 ``add.reduce``)."""
    cdef Py_ssize_t i, half
    cdef double total
    cdef double partial[8]
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[i]
        return total
    if n <= 128:
        for i in range(8):
            partial[i] = values[i]
        i = 8
        while i < n - (n % 8):
            partial[0] += values[i]
            partial[1] += values[i + 1]
            partial[2] += values[i + 2]
            partial[3] += values[i + 3]
            partial[4] += values[i + 4]
            partial[5] += values[i + 5]
            partial[6] += values[i + 6]
            partial[7] += values[i + 7]
            i += 8
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        while i < n:
            total += values[i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return pairwise_sum(values, half) + pairwise_sum(values + half, n - half)


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
                    leaf = 0
                    for level in range(depth):  # no branch: the comparison is the bit
                        leaf |= (features_of_row[tested[level]] > limits[level]) << level
                    values[tree] = leaves[tree, leaf]
                out[row] = base + (0.0 + pairwise_sum(values, trees))
    finally:
        PyMem_Free(values)

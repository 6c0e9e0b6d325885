# cython: language_level=3
"""Sums in the order numpy adds them, so that compiled features equal numpy's bit for bit."""


cdef inline double pairwise_sum(const double* values, Py_ssize_t n) noexcept nogil:
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

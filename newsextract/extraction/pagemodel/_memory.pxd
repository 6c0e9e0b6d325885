# cython: language_level=3
"""Memory of the compiled page model's own (never a node of the tree: those are lxml's)."""

from libc.stdlib cimport realloc


cdef inline void* grown(void* block, size_t size) except NULL:
    """``block`` reallocated to ``size`` bytes; MemoryError when it cannot be."""
    cdef void* larger = realloc(block, size)
    if larger is NULL:
        raise MemoryError()
    return larger


cdef struct Numbers:
    long long* values
    Py_ssize_t size
    Py_ssize_t capacity


cdef inline int numbers_add(Numbers* numbers, long long value) except -1:
    """Append ``value``, growing the array (free ``numbers.values`` when done)."""
    if numbers.size == numbers.capacity:
        numbers.capacity = max(2 * numbers.capacity, 256)
        numbers.values = <long long*>grown(numbers.values, numbers.capacity * sizeof(long long))
    numbers.values[numbers.size] = value
    numbers.size += 1
    return 0


cdef inline bytearray numbers_bytes(Numbers* numbers):
    """The values as the bytes of int64 values (for ``numpy.frombuffer``)."""
    if not numbers.size:
        return bytearray()
    return bytearray((<char*>numbers.values)[: numbers.size * sizeof(long long)])

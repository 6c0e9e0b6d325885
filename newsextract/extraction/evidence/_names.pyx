# cython: language_level=3, boundscheck=False, wraparound=False
"""Words looked up in the model's tables in compiled loops: the learned class and id word
scores of a page's elements, and the numbers of its distinct words in the model's word
tables (for their log-odds and stop-list rows)."""

from libc.stdlib cimport free, malloc
from libc.string cimport memchr, memcmp, memset


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object text, Py_ssize_t* size) except? NULL


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


cdef class WordTable:
    """Words numbered by their line in UTF-8 text of lines, each ended by a line break (the
    model's word arrays), looked up in C: the table is made from the bytes at once, with no
    string for each word, and a word repeated takes its last line's number, as a dict made
    from the lines would."""

    cdef bytes lines
    cdef Py_ssize_t* starts  # where each word starts; word i ends one byte before word i + 1
    cdef Py_ssize_t* slots  # open addressing: word numbers, -1 where empty
    cdef Py_ssize_t mask
    cdef Py_ssize_t count  # words (lines)
    cdef readonly Py_ssize_t distinct  # different words among them

    def __cinit__(self, bytes lines not None):
        cdef const char* data = lines
        cdef Py_ssize_t size = len(lines), at = 0, capacity = 16, i, slot
        cdef const char* end
        if size and data[size - 1] != b"\n":
            raise ValueError("a word table's text must end with a line break")
        self.lines = lines
        self.count = lines.count(b"\n")
        while capacity < 2 * self.count:
            capacity *= 2
        self.mask = capacity - 1
        self.starts = <Py_ssize_t*>malloc((self.count + 1) * sizeof(Py_ssize_t))
        self.slots = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
        if self.starts is NULL or self.slots is NULL:
            raise MemoryError()
        memset(self.slots, 0xFF, capacity * sizeof(Py_ssize_t))  # all -1
        for i in range(self.count):
            self.starts[i] = at
            end = <const char*>memchr(data + at, b"\n", size - at)
            at = end - data + 1
        self.starts[self.count] = size
        for i in range(self.count):
            slot = self.find(data + self.starts[i], self.starts[i + 1] - self.starts[i] - 1)
            if self.slots[slot] < 0:
                self.distinct += 1
            self.slots[slot] = i

    def __dealloc__(self):
        free(self.starts)
        free(self.slots)

    def __len__(self) -> int:
        return self.count

    def __reduce__(self):
        return WordTable, (self.lines,)

    cdef Py_ssize_t find(self, const char* word, Py_ssize_t size) noexcept:
        """The slot of ``word``: the one holding it, else the empty one where it would go."""
        cdef unsigned long long code = 14695981039346656037ULL
        cdef Py_ssize_t i, slot, number
        cdef const char* data = self.lines
        for i in range(size):
            code = (code ^ <unsigned char>word[i]) * 1099511628211ULL
        slot = <Py_ssize_t>(code & <unsigned long long>self.mask)
        while True:
            number = self.slots[slot]
            if number < 0:
                return slot
            if (self.starts[number + 1] - self.starts[number] - 1 == size
                    and memcmp(data + self.starts[number], word, size) == 0):
                return slot
            slot = (slot + 1) & self.mask

    def lookup(self, tuple words not None, long long missing, long long[::1] out not None) -> None:
        """Fill ``out[i]`` with the number of ``words[i]``, ``missing`` for a word not in the
        table (a word that is no valid UTF-8, with a lone surrogate, never is)."""
        cdef Py_ssize_t i, size, number
        cdef const char* word
        cdef str text
        if out.shape[0] < len(words):
            raise ValueError("out is shorter than words")
        for i in range(len(words)):
            text = words[i]
            try:
                word = PyUnicode_AsUTF8AndSize(text, &size)
            except UnicodeEncodeError:
                out[i] = missing
                continue
            number = self.slots[self.find(word, size)]
            out[i] = missing if number < 0 else number

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The block table's text counts and words, in one compiled pass over the page's text.

The page's blocks arrive joined by NULs (no block text holds one), as the block table joins
them; every count is an integer, so these are exactly the numbers numpy counted before.
"""

from cpython.unicode cimport PyUnicode_Substring
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memset

from newsextract.extraction.pagemodel._memory cimport Numbers, grown, numbers_add, numbers_bytes

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    void PyUnicode_WRITE(int kind, void* data, Py_ssize_t index, Py_UCS4 value)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch)
    bint Py_UNICODE_ISUPPER(Py_UCS4 ch)

# Character property bits (features._PROP_*), and the block table's count columns
# (features._COUNT_NAMES) filled here.
cdef enum:
    CJK = 1
    WORD = 2
    PUNCT = 4
    END = 8
    CLOSE = 16
    DIGIT = 32
    UPPER = 64
    PIPE = 128
    NEWLINE = 256
    CJK_DATE = 512
cdef enum:
    COL_PUNCT = 0
    COL_SENTENCE_END = 1
    COL_DIGITS = 2
    COL_UPPER = 3
    COL_PIPES = 4
    COL_DATE_LIKE = 5
    COL_BYLINE = 6
    COL_COPYRIGHT = 7
    COL_CJK = 8
    COL_LINE_BREAKS = 9
    COL_CAPITALISED = 12
    COL_FINAL_STOP = 13

PROPERTY_BITS = {
    "cjk": CJK, "word": WORD, "punct": PUNCT, "end": END, "close": CLOSE, "digit": DIGIT,
    "upper": UPPER, "pipe": PIPE, "newline": NEWLINE, "cjk_date": CJK_DATE,
}


cdef inline Py_UCS4 code_at(int kind, const void* data, Py_ssize_t i, Py_ssize_t size) noexcept:
    """The code point at ``i``, or NUL past either end (as between blocks)."""
    if i < 0 or i >= size:
        return 0
    return PyUnicode_READ(kind, data, i)


cdef extern from "Python.h":
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index)
    int PyUnicode_KIND(object text)
    const void* PyUnicode_DATA(object text)


def fill_text_counts(
    str joined not None,
    const unsigned short[:] table not None,
    double[:] lengths not None,
    double[:] words not None,
    double[:, :] counts not None,
) -> None:
    """Fill each block's characters, words and the counted columns of ``counts`` from
    ``joined`` (the blocks' texts joined by NULs; ``table``: each BMP character's property
    bits, characters past it reading the last slot). A byline: the block opens with "By",
    "von", "par", "por", "di" or "door" (either case first), a space and a capital, or names
    a reporter (記者, 记者); a copyright: the block, lower-cased, holds "\u00a9", "(c)",
    "copyright", "all rights reserved" or "版权"."""
    cdef int kind = PyUnicode_KIND(joined)
    cdef const void* data = PyUnicode_DATA(joined)
    cdef Py_ssize_t size = len(joined), i, block = 0, start = 0, last
    cdef Py_UCS4 code, second
    cdef unsigned short props, following, before_props = 0
    cdef bint word_before = False, dated = False
    for i in range(size + 1):
        code = code_at(kind, data, i, size)
        if code == 0:  # a block ends
            lengths[block] = i - start
            last = i - 1
            if i > start:
                props = table[min(code_at(kind, data, last, size), 0xFFFF)]
                before_props = table[min(code_at(kind, data, last - 1, size), 0xFFFF)] if last > start else 0
                if props & END or (props & CLOSE and before_props & END):
                    counts[block, COL_FINAL_STOP] = 1.0
            counts[block, COL_DATE_LIKE] = 1.0 if dated else 0.0
            words[block] += counts[block, COL_CJK]
            block += 1
            start = i + 1
            word_before = dated = False
            if block == lengths.shape[0]:
                break
            continue
        if i == start and _opens_with_byline(kind, data, i, size):
            counts[block, COL_BYLINE] = 1.0
        if code >= 40:
            _mark_named(kind, data, i, size, block, counts)
        props = table[min(code, 0xFFFF)]
        following = table[min(code_at(kind, data, i + 1, size), 0xFFFF)]
        if props & PUNCT:
            counts[block, COL_PUNCT] += 1
        if props & END and following & CLOSE:
            counts[block, COL_SENTENCE_END] += 1
        if props & UPPER:
            counts[block, COL_UPPER] += 1
        if props & PIPE:
            counts[block, COL_PIPES] += 1
        if props & CJK:
            counts[block, COL_CJK] += 1
        if props & NEWLINE:
            counts[block, COL_LINE_BREAKS] += 1
        if props & WORD:
            if not word_before:
                words[block] += 1
                if props & UPPER:
                    counts[block, COL_CAPITALISED] += 1
            word_before = True
        else:
            word_before = False
        if props & DIGIT:
            counts[block, COL_DIGITS] += 1
            if not dated:
                dated = _date_like(kind, data, i, size, table)
    return None


cdef bint _opens_with_byline(int kind, const void* data, Py_ssize_t i, Py_ssize_t size) noexcept:
    """Whether the block starting at ``i`` matches `` ?(?:[Bb][Yy]|[Vv]on|[Pp]ar|[Pp]or|
    [Dd]i|[Dd]oor) [A-Z]``."""
    cdef unsigned int first
    cdef Py_ssize_t length = 0
    if code_at(kind, data, i, size) == 32:
        i += 1
    first = code_at(kind, data, i, size)
    if first == 66 or first == 98:  # B b
        length = 2 if _lower_is(kind, data, i + 1, size, b"y") else 0
    elif first == 86 or first == 118:  # V v
        length = 3 if _is(kind, data, i + 1, size, b"on") else 0
    elif first == 80 or first == 112:  # P p
        length = 3 if _is(kind, data, i + 1, size, b"ar") or _is(kind, data, i + 1, size, b"or") else 0
    elif first == 68 or first == 100:  # D d
        length = 2 if _is(kind, data, i + 1, size, b"i") else (
            4 if _is(kind, data, i + 1, size, b"oor") else 0)
    if length == 0 or code_at(kind, data, i + length, size) != 32:
        return False
    first = code_at(kind, data, i + length + 1, size)
    return 65 <= first <= 90


cdef bint _is(int kind, const void* data, Py_ssize_t i, Py_ssize_t size, const char* word) noexcept:
    """Whether the text at ``i`` is ``word`` (ASCII), exactly."""
    cdef Py_ssize_t j = 0
    while word[j] != 0:
        if code_at(kind, data, i + j, size) != <unsigned char>word[j]:
            return False
        j += 1
    return True


cdef bint _lower_is(int kind, const void* data, Py_ssize_t i, Py_ssize_t size,
                    const char* word) noexcept:
    """Whether the text at ``i``, its ASCII letters lower-cased, is ``word`` (lower-case
    ASCII): what ``str.lower`` gives for these words (no other character lower-cases to one
    of their letters alone)."""
    cdef Py_ssize_t j = 0
    cdef unsigned int code
    while word[j] != 0:
        code = code_at(kind, data, i + j, size)
        if 65 <= code <= 90:
            code += 32
        if code != <unsigned char>word[j]:
            return False
        j += 1
    return True


cdef void _mark_named(int kind, const void* data, Py_ssize_t i, Py_ssize_t size,
                      Py_ssize_t block, double[:, :] counts) noexcept:
    """Mark the block when a reporter's title or a copyright word (lower-cased) starts at
    ``i``."""
    cdef unsigned int code = code_at(kind, data, i, size)
    cdef unsigned int next_code = code_at(kind, data, i + 1, size)
    if (code == 0x8A18 or code == 0x8BB0) and next_code == 0x8005:
        counts[block, COL_BYLINE] = 1.0
    elif counts[block, COL_COPYRIGHT] == 0.0 and (
        code == 0xA9
        or (code == 40 and _lower_is(kind, data, i, size, b"(c)"))
        or ((code == 67 or code == 99) and _lower_is(kind, data, i, size, b"copyright"))
        or ((code == 65 or code == 97) and _lower_is(kind, data, i, size, b"all rights reserved"))
        or (code == 0x7248 and next_code == 0x6743)
    ):
        counts[block, COL_COPYRIGHT] = 1.0


cdef bint _date_like(int kind, const void* data, Py_ssize_t i, Py_ssize_t size,
                     const unsigned short[:] table) noexcept:
    """Whether the digit at ``i`` starts a year (19xx, 20xx), a time (9:30) or a CJK date
    (7月)."""
    cdef Py_UCS4 first = code_at(kind, data, i, size)
    cdef Py_UCS4 second = code_at(kind, data, i + 1, size)
    cdef bint d2 = table[min(code_at(kind, data, i + 2, size), 0xFFFF)] & DIGIT
    cdef bint d3 = table[min(code_at(kind, data, i + 3, size), 0xFFFF)] & DIGIT
    cdef bint d4 = table[min(code_at(kind, data, i + 4, size), 0xFFFF)] & DIGIT
    cdef bint before = table[min(code_at(kind, data, i - 1, size), 0xFFFF)] & DIGIT
    cdef bint century = (first == 49 and second == 57) or (first == 50 and second == 48)
    if century and d2 and d3 and not d4 and not before:
        return True
    if second == 58 and d2 and d3:
        return True
    return table[min(second, 0xFFFF)] & CJK_DATE != 0


cdef enum:
    NOT_TOKEN = 0
    LETTER = 1
    CJK_CHAR = 2


cdef inline int token_kind(Py_UCS4 code) noexcept:
    """What the word pattern makes of a character (features._token_kind)."""
    if code < 128:  # ASCII, most text: its letters, as the Unicode tables say
        return LETTER if 97 <= (<unsigned int>code | 32) <= 122 else NOT_TOKEN
    if (
        0x3040 <= code <= 0x30FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
    ):
        return CJK_CHAR
    return LETTER if Py_UNICODE_ISALNUM(code) and not Py_UNICODE_ISDECIMAL(code) else NOT_TOKEN


cdef struct Vocabulary:
    # Open addressing: ``slots`` hold word numbers (-1: empty); word n is the text's
    # characters ``starts[n]`` to ``starts[n] + lengths[n]``, hashed to ``hashes[n]``.
    Py_ssize_t* slots
    Py_ssize_t capacity
    Py_ssize_t* starts
    Py_ssize_t* lengths
    size_t* hashes
    Py_ssize_t size
    Numbers ids  # each word of the text, numbered


cdef size_t _hash(const char* data, Py_ssize_t size) noexcept:
    """FNV-1a over a word's bytes (a text's words share its character width)."""
    cdef size_t value = 14695981039346656037ULL
    cdef Py_ssize_t i
    for i in range(size):
        value = (value ^ <unsigned char>data[i]) * 1099511628211ULL
    return value


cdef int _rehash(Vocabulary* words) except -1:
    cdef Py_ssize_t capacity = max(2 * words.capacity, 1024), n, slot
    free(words.slots)
    words.slots = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
    if words.slots is NULL:
        raise MemoryError()
    memset(words.slots, 0xFF, capacity * sizeof(Py_ssize_t))  # all -1
    words.capacity = capacity
    for n in range(words.size):
        slot = words.hashes[n] & (capacity - 1)
        while words.slots[slot] >= 0:
            slot = (slot + 1) & (capacity - 1)
        words.slots[slot] = n
    return 0


cdef int _add_word(Vocabulary* words, str text, const char* data, int kind, Py_ssize_t start,
                   Py_ssize_t end, list vocabulary) except -1:
    """Number the word ``text[start:end]``: the number of its first occurrence, or the next
    one (and the word joins ``vocabulary``)."""
    cdef Py_ssize_t length = end - start, slot, found
    cdef const char* word = data + start * kind
    cdef size_t hashed = _hash(word, length * kind)
    if 2 * (words.size + 1) > words.capacity:
        _rehash(words)
    slot = hashed & (words.capacity - 1)
    found = words.slots[slot]
    while found >= 0 and not (
        words.hashes[found] == hashed
        and words.lengths[found] == length
        and memcmp(data + words.starts[found] * kind, word, length * kind) == 0
    ):
        slot = (slot + 1) & (words.capacity - 1)
        found = words.slots[slot]
    if found < 0:
        found = words.size
        if found % 1024 == 0:
            words.starts = <Py_ssize_t*>grown(words.starts, (found + 1024) * sizeof(Py_ssize_t))
            words.lengths = <Py_ssize_t*>grown(words.lengths, (found + 1024) * sizeof(Py_ssize_t))
            words.hashes = <size_t*>grown(words.hashes, (found + 1024) * sizeof(size_t))
        words.starts[found], words.lengths[found], words.hashes[found] = start, length, hashed
        words.slots[slot] = found
        words.size += 1
        vocabulary.append(PyUnicode_Substring(text, start, end))
    numbers_add(&words.ids, found)
    return 0


def token_table(str lowered not None, long long[:] sizes not None, double[:] token_chars not None) -> tuple:
    """The words of the lower-cased blocks joined by NULs (runs of letters; each CJK
    character a word of its own); fills each block's word count and characters in words.
    Returns the distinct words in the order they first occur, and the number of each word
    of the text among them, in order (int64 values, as bytes): a string is made for each
    distinct word only."""
    cdef int kind = PyUnicode_KIND(lowered)
    cdef const void* data = PyUnicode_DATA(lowered)
    cdef Py_ssize_t size = len(lowered), i, block = 0, run = -1
    cdef Py_UCS4 code
    cdef int char_kind
    cdef Vocabulary words
    cdef list vocabulary = []
    memset(&words, 0, sizeof(Vocabulary))
    try:
        for i in range(size):
            code = PyUnicode_READ(kind, data, i)
            if code == 0:
                if run >= 0:
                    _add_word(&words, lowered, <const char*>data, kind, run, i, vocabulary)
                    sizes[block] += 1
                    run = -1
                block += 1
                continue
            char_kind = token_kind(code)
            if char_kind == LETTER:
                token_chars[block] += 1
                if run < 0:
                    run = i
                continue
            if run >= 0:
                _add_word(&words, lowered, <const char*>data, kind, run, i, vocabulary)
                sizes[block] += 1
                run = -1
            if char_kind == CJK_CHAR:
                token_chars[block] += 1
                _add_word(&words, lowered, <const char*>data, kind, i, i + 1, vocabulary)
                sizes[block] += 1
        if run >= 0:
            _add_word(&words, lowered, <const char*>data, kind, run, size, vocabulary)
            sizes[block] += 1
        return tuple(vocabulary), numbers_bytes(&words.ids)
    finally:
        free(words.slots)
        free(words.starts)
        free(words.lengths)
        free(words.hashes)
        free(words.ids.values)


def upper_case_table() -> bytearray:
    """One byte a character of the Basic Multilingual Plane: 1 where ``c.isupper()``, as
    Python's own ``str`` judges it. Built in C at import: the loop in Python took 30 ms."""
    upper = bytearray(0x10000)
    cdef unsigned char[:] view = upper
    cdef Py_UCS4 code
    for code in range(0x10000):
        view[code] = Py_UNICODE_ISUPPER(code)
    return upper


cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND


cpdef str fold_text(str text):
    """Lower-cased words joined by single spaces: what ``" ".join(re.findall(r"\\w+",
    text.lower()))`` gives (a word character is alphanumeric or "_", as ``re`` reads
    ``\\w``), in one pass.

    >>> fold_text("  The -- Headline: 2017! ")
    'the headline 2017'
    """
    cdef str lowered = text.lower()
    cdef int kind = PyUnicode_KIND(lowered)
    cdef const void* data = PyUnicode_DATA(lowered)
    cdef Py_ssize_t size = len(lowered), i, length = 0
    cdef Py_UCS4 code
    cdef bint in_word = False
    cdef Py_UCS4* folded = <Py_UCS4*>malloc(max(size, 1) * sizeof(Py_UCS4))
    if folded is NULL:
        raise MemoryError()
    try:
        for i in range(size):
            code = PyUnicode_READ(kind, data, i)
            if code == 95 or Py_UNICODE_ISALNUM(code):
                if not in_word and length:
                    folded[length] = 32
                    length += 1
                folded[length] = code
                length += 1
                in_word = True
            else:
                in_word = False
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, folded, length)
    finally:
        free(folded)


def headline_matches(
    tuple texts not None,
    const Py_ssize_t[::1] indexes not None,
    const unsigned char[::1] always not None,
    frozenset headlines not None,
    Py_ssize_t min_inside,
    Py_ssize_t max_folded,
    double[::1] out not None,
) -> None:
    """Set ``out[i]`` to 1 for the texts of ``indexes`` whose folded text is one of
    ``headlines``, or is inside one of them and longer than ``min_inside``, or (``always``)
    is simply not empty; a folded text longer than ``max_folded`` never matches. Each
    distinct text is folded once (menus and teasers repeat theirs)."""
    cdef dict folds = {}
    cdef Py_ssize_t k, index
    cdef str text, folded, headline
    cdef bint found
    for k in range(indexes.shape[0]):
        index = indexes[k]
        text = <str>texts[index]
        folded = folds.get(text)
        if folded is None:
            folded = folds[text] = fold_text(text)
        if not folded or len(folded) > max_folded:
            continue
        found = always[index] or folded in headlines
        if not found and len(folded) > min_inside:
            for headline in headlines:
                if folded in headline:
                    found = True
                    break
        if found:
            out[index] = 1.0


def mojibake_runs(str text not None, dict byte_of not None) -> tuple:
    """What ``re.subn`` of mojibake's run pattern with its decoding gives, in one pass: each
    run (a lead character of U+00C2-U+00F4 and its one to three continuation characters,
    U+0080-U+00BF or a cp1252 character of the bytes 0x80-0x9F) read back as the bytes
    ``byte_of`` gives and decoded as UTF-8, or kept where that fails. Returns the text (``text``
    itself when no run decodes) and the count of runs, decoded or not."""
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t size = len(text), at = 0, kept = 0, runs = 0, needed, j
    cdef Py_UCS4 lead
    cdef unsigned char[4] raw
    cdef list pieces = []
    while at < size:
        lead = PyUnicode_READ(kind, data, at)
        needed = 1 if 0xC2 <= lead <= 0xDF else 2 if 0xE0 <= lead <= 0xEF else (
            3 if 0xF0 <= lead <= 0xF4 else 0)
        if needed == 0 or at + needed >= size:
            at += 1
            continue
        raw[0] = <unsigned char>lead
        for j in range(1, needed + 1):
            if not _continuation(PyUnicode_READ(kind, data, at + j), byte_of, &raw[j]):
                break
        else:
            runs += 1
            try:
                decoded = (<bytes>raw[: needed + 1]).decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                pieces.append(text[kept:at])
                pieces.append(decoded)
                kept = at + needed + 1
            at += needed + 1
            continue
        at += 1
    if not pieces:
        return text, runs
    pieces.append(text[kept:])
    return "".join(pieces), runs


cdef bint _continuation(Py_UCS4 code, dict byte_of, unsigned char* byte) except -1:
    """Whether ``code`` stands for a UTF-8 continuation byte, which goes to ``byte``."""
    if 0x80 <= code <= 0xBF:
        byte[0] = <unsigned char>code
        return True
    if code < 0x100:
        return False
    found = byte_of.get(chr(code))
    if found is None:
        return False
    byte[0] = <unsigned char>(<long>found)
    return True


def single_spaced(str text not None) -> str:
    """``" ".join(text.split())`` in one pass, with no string made for each word: every run
    of white space (``str.isspace``) one space, none at either end."""
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t size = len(text), i, kept = 0
    cdef bint space = True  # as after a space: the text's leading white space goes
    cdef Py_UCS4 code
    cdef void* out = malloc(size * kind + 1)
    if out is NULL:
        raise MemoryError()
    try:
        for i in range(size):
            code = PyUnicode_READ(kind, data, i)
            if Py_UNICODE_ISSPACE(code):
                if not space:
                    PyUnicode_WRITE(kind, out, kept, 32)
                    kept += 1
                    space = True
                continue
            PyUnicode_WRITE(kind, out, kept, code)
            kept += 1
            space = False
        if space and kept:
            kept -= 1  # the space written after the last word
        return PyUnicode_FromKindAndData(kind, out, kept)
    finally:
        free(out)

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Method E's first-stage feature matrix, filled in C from the block table in a few passes.

Every value is computed with the operations, in the order, that the numpy code it replaced
used (``tests/reference_features.py`` keeps that code as the oracle), so the matrix is the
same bit for bit. Logarithms are left to numpy: the columns named in ``features.LOG_FEATURES``
are written here as the values whose ``log1p`` numpy takes afterwards.
"""

from cpython.mem cimport PyMem_Calloc, PyMem_Free

from newsextract.extraction.evidence._sums cimport pairwise_sum

#: Ancestor levels whose subtree totals become features (0 = the block's own element).
cdef Py_ssize_t[5] SUBTREE_LEVELS = [0, 1, 2, 3, 5]
cdef Py_ssize_t[6] RATE_COLUMNS = [0, 1, 2, 3, 4, 8]  # counts of characters become rates
cdef Py_ssize_t WORD_RATE_COLUMN = 12  # a count of words becomes a share of the block's words
cdef Py_ssize_t SENTENCE_ENDS = 1  # the column of sentence ends in the counts
#: A block with fewer characters adds nothing to its containers' score (readability: 25).
cdef double CONTAINER_MIN_CHARS = 25.0
#: A container's share of the page's text at which it counts as holding most of it.
cdef double MAJORITY_SHARE = 0.5
cdef Py_ssize_t WINDOW_HALF = 3  # blocks on each side in the layout and wording windows

# The same, for the feature names and the tests: the values are set here only.
SUBTREE_LEVELS_DEFAULT = tuple([SUBTREE_LEVELS[k] for k in range(5)])
CONTAINER_MIN_CHARS_DEFAULT = int(CONTAINER_MIN_CHARS)
MAJORITY_SHARE_DEFAULT = MAJORITY_SHARE
WINDOW_HALF_DEFAULT = WINDOW_HALF
cdef Py_ssize_t FLAG_COLUMNS = 3  # positive, negative, comment: the flags read one by one


cdef struct Table:
    Py_ssize_t blocks, elements, width, chain  # chain: the columns of ancestors in use
    const double* chars
    const double* words
    const double* link_chars
    const double* counts
    Py_ssize_t count_columns
    const long long* tags
    const long long* ancestors
    const double* element_flags
    const double* element_any
    Py_ssize_t flag_columns


cdef struct Totals:
    double* chars
    double* link_chars
    double* blocks
    double* ends
    long long* parent


cdef struct Scratch:
    double* ends  # sentence ends of each block, at most 20
    double* running_chars  # running sums of characters and link characters, from 0
    double* running_links
    double* box  # readability's container scores, and their grandparents' halves
    double* by_half


cdef inline double dmax(double a, double b) noexcept nogil:
    return a if a >= b else b  # np.maximum on numbers that are never NaN


cdef inline double dmin(double a, double b) noexcept nogil:
    return a if a <= b else b


cdef inline long long ancestor(const Table* table, Py_ssize_t block, Py_ssize_t level) noexcept nogil:
    return table.ancestors[block * table.width + level]


def fill_layout(
    const double[::1] chars not None,
    const double[::1] words not None,
    const double[::1] link_chars not None,
    const double[:, ::1] counts not None,
    const long long[::1] tags not None,
    const long long[:, ::1] ancestors not None,
    Py_ssize_t levels,
    const double[:, ::1] element_flags not None,
    const double[:, ::1] element_any not None,
    const double[::1] name_score not None,
    const double[::1] heading not None,
    double total_chars,
    double page_chars_log,
    double page_blocks_log,
    double[:, ::1] out not None,
) -> int:
    """Fill the layout columns of ``out`` (columns as ``features.feature_names()``, from 0),
    one row a block; return the number of columns written. ``name_score``: each element's
    class and id score, with a last slot of 0 for "no element"; ``heading``: 1 at the tag
    indexes that are headings; ``total_chars``: numpy's sum of ``chars``; ``page_chars_log``
    and ``page_blocks_log``: numpy's log1p of it and of the number of blocks."""
    cdef Table table
    cdef Totals totals
    cdef Py_ssize_t n = chars.shape[0], column = 0, block
    cdef bint failed
    cdef double* scratch = NULL
    cdef Scratch work
    if n == 0:
        return 0
    table.blocks, table.elements, table.width = n, element_flags.shape[0], ancestors.shape[1]
    table.chain = min(levels + 1, table.width)
    table.chars, table.words, table.link_chars = &chars[0], &words[0], &link_chars[0]
    table.counts, table.count_columns = &counts[0, 0], counts.shape[1]
    table.tags, table.ancestors = &tags[0], &ancestors[0, 0]
    table.element_flags, table.element_any = &element_flags[0, 0], &element_any[0, 0]
    table.flag_columns = element_flags.shape[1]
    failed = totals_init(&totals, table.elements) < 0
    scratch = <double*>PyMem_Calloc(3 * n + 2 + 2 * (table.elements + 1), sizeof(double))
    if scratch is NULL or failed:
        PyMem_Free(scratch)
        totals_free(&totals)
        raise MemoryError()
    work.ends, work.running_chars, work.running_links = scratch, scratch + n, scratch + 2 * n + 1
    work.box, work.by_half = scratch + 3 * n + 2, scratch + 3 * n + 2 + table.elements + 1
    try:
        with nogil:
            for block in range(n):
                work.ends[block] = dmin(table.counts[block * table.count_columns + SENTENCE_ENDS], 20.0)
            element_totals(&table, work.ends, &totals)
            column = own_columns(&table, &heading[0], heading.shape[0], total_chars, out, column)
            column = flag_columns(&table, out, column)
            column = subtree_columns(&table, &totals, total_chars, out, column)
            column = neighbour_columns(&table, work.ends, out, column)
            column = page_columns(&table, &work, page_chars_log, page_blocks_log, out, column)
            column = name_columns(&table, &name_score[0], out, column)
            column = container_columns(&table, &totals, &work, total_chars, out, column)
        return column
    finally:
        PyMem_Free(scratch)
        totals_free(&totals)


cdef int totals_init(Totals* totals, Py_ssize_t elements) noexcept:
    """Zeroed sums (-1 parents) for ``elements``; -1 when memory runs out (free it all then)."""
    cdef Py_ssize_t size = max(elements, 1), element
    totals.chars = <double*>PyMem_Calloc(size, sizeof(double))
    totals.link_chars = <double*>PyMem_Calloc(size, sizeof(double))
    totals.blocks = <double*>PyMem_Calloc(size, sizeof(double))
    totals.ends = <double*>PyMem_Calloc(size, sizeof(double))
    totals.parent = <long long*>PyMem_Calloc(size, sizeof(long long))
    if (totals.chars is NULL or totals.link_chars is NULL or totals.blocks is NULL
            or totals.ends is NULL or totals.parent is NULL):
        return -1
    for element in range(size):
        totals.parent[element] = -1
    return 0


cdef void totals_free(Totals* totals) noexcept:
    PyMem_Free(totals.chars)
    PyMem_Free(totals.link_chars)
    PyMem_Free(totals.blocks)
    PyMem_Free(totals.ends)
    PyMem_Free(totals.parent)


cdef void element_totals(const Table* table, const double* ends, Totals* totals) noexcept nogil:
    """Sums over each element's subtree, block after block as ``np.bincount`` adds them, and
    each element's parent as the chains give it."""
    cdef Py_ssize_t block, level
    cdef long long element
    for block in range(table.blocks):
        for level in range(table.chain):
            element = ancestor(table, block, level)
            if element < 0:
                continue
            totals.chars[element] += table.chars[block]
            totals.link_chars[element] += table.link_chars[block]
            totals.blocks[element] += 1.0
            totals.ends[element] += ends[block]
            if level + 1 < table.chain:
                totals.parent[element] = ancestor(table, block, level + 1)


cdef Py_ssize_t own_columns(
    const Table* table, const double* heading, Py_ssize_t tag_count, double total_chars,
    double[:, ::1] out, Py_ssize_t first,
) noexcept nogil:
    """The block's own text, place and tag (features.feature_names: log_chars .. tag_heading)."""
    cdef Py_ssize_t block, column, level, depth, rates = first + 6
    cdef double safe, before = 0.0, total = dmax(total_chars, 1.0)
    cdef double spread = <double>max(table.blocks - 1, 1)
    cdef const double* counts
    for block in range(table.blocks):
        safe = dmax(table.chars[block], 1.0)
        out[block, first] = table.chars[block]
        out[block, first + 1] = table.words[block]
        out[block, first + 2] = table.link_chars[block] / safe
        out[block, first + 3] = <double>block / spread
        before += table.chars[block]  # np.cumsum, then the block's own characters taken off
        out[block, first + 4] = (before - table.chars[block]) / total
        depth = 0
        for level in range(table.chain):
            depth += ancestor(table, block, level) >= 0
        out[block, first + 5] = <double>depth
        counts = table.counts + block * table.count_columns
        for column in range(table.count_columns):
            out[block, rates + column] = counts[column]
        for column in RATE_COLUMNS:
            out[block, rates + column] = counts[column] / safe
        out[block, rates + WORD_RATE_COLUMN] = counts[WORD_RATE_COLUMN] / dmax(table.words[block], 1.0)
        for column in range(tag_count):
            out[block, rates + table.count_columns + column] = 0.0
        out[block, rates + table.count_columns + table.tags[block]] = 1.0
        out[block, rates + table.count_columns + tag_count] = heading[table.tags[block]]
    return rates + table.count_columns + tag_count + 1


cdef Py_ssize_t flag_columns(const Table* table, double[:, ::1] out, Py_ssize_t first) noexcept nogil:
    """self_*, near_* (the most of the three elements above) and any_* flags."""
    cdef Py_ssize_t block, flag, level
    cdef long long own, above
    cdef double near
    for block in range(table.blocks):
        own = ancestor(table, block, 0)
        for flag in range(FLAG_COLUMNS):
            out[block, first + flag] = table.element_flags[own * table.flag_columns + flag]
            near = 0.0
            for level in range(1, 4):
                above = ancestor(table, block, min(level, table.width - 1))
                if above >= 0:
                    near = dmax(near, table.element_flags[above * table.flag_columns + flag])
            out[block, first + FLAG_COLUMNS + flag] = near
        for flag in range(table.flag_columns):
            out[block, first + 2 * FLAG_COLUMNS + flag] = (
                table.element_any[own * table.flag_columns + flag]
            )
    return first + 2 * FLAG_COLUMNS + table.flag_columns


cdef Py_ssize_t subtree_columns(
    const Table* table, const Totals* totals, double total_chars, double[:, ::1] out,
    Py_ssize_t first,
) noexcept nogil:
    """Share, link density, blocks (for log1p) and sentence ends of the subtree of each
    block's ancestor at SUBTREE_LEVELS."""
    cdef Py_ssize_t block, k, column
    cdef long long element
    cdef double total = dmax(total_chars, 1.0)
    for block in range(table.blocks):
        for k in range(5):
            column = first + 4 * k
            element = ancestor(table, block, min(SUBTREE_LEVELS[k], table.width - 1))
            if element < 0:
                out[block, column] = 1.0
                out[block, column + 1] = 0.0
                out[block, column + 2] = 0.0
                out[block, column + 3] = 0.0
                continue
            out[block, column] = totals.chars[element] / total
            out[block, column + 1] = totals.link_chars[element] / dmax(totals.chars[element], 1.0)
            out[block, column + 2] = totals.blocks[element]
            out[block, column + 3] = totals.ends[element] / dmax(totals.blocks[element], 1.0)
    return first + 20


cdef Py_ssize_t neighbour_columns(
    const Table* table, const double* ends, double[:, ::1] out, Py_ssize_t first
) noexcept nogil:
    """Characters (for log1p), link density and sentence ends of the blocks 2 and 1 before
    and 1 and 2 after; past the ends: no characters, all links, no endings."""
    cdef Py_ssize_t block, k, other, column
    cdef Py_ssize_t[4] offsets = [-2, -1, 1, 2]
    for block in range(table.blocks):
        for k in range(4):
            column = first + 3 * k
            other = block + offsets[k]
            if other < 0 or other >= table.blocks:
                out[block, column] = 0.0
                out[block, column + 1] = 1.0
                out[block, column + 2] = 0.0
            else:
                out[block, column] = table.chars[other]
                out[block, column + 1] = table.link_chars[other] / dmax(table.chars[other], 1.0)
                out[block, column + 2] = ends[other]
    return first + 12


cdef Py_ssize_t page_columns(
    const Table* table, Scratch* work, double page_chars_log, double page_blocks_log,
    double[:, ::1] out, Py_ssize_t first,
) noexcept nogil:
    """win_chars (for log1p), win_links, page_log_chars, page_blocks, same_parent. The
    window sums are differences of running sums, as numpy's."""
    cdef Py_ssize_t block, n = table.blocks, start, end
    cdef double* running_chars = work.running_chars
    cdef double* running_links = work.running_links
    cdef double window_chars
    running_chars[0] = running_links[0] = 0.0
    running_chars[1] = table.chars[0]
    running_links[1] = table.link_chars[0]
    for block in range(1, n):
        running_chars[block + 1] = running_chars[block] + table.chars[block]
        running_links[block + 1] = running_links[block] + table.link_chars[block]
    for block in range(n):
        end, start = min(block + WINDOW_HALF + 1, n), max(block - WINDOW_HALF, 0)
        window_chars = running_chars[end] - running_chars[start]
        out[block, first] = window_chars
        out[block, first + 1] = (running_links[end] - running_links[start]) / dmax(window_chars, 1.0)
        out[block, first + 2] = page_chars_log
        out[block, first + 3] = page_blocks_log
        out[block, first + 4] = (
            block > 0 and ancestor(table, block, 1) == ancestor(table, block - 1, 1)
        )
    return first + 5


cdef Py_ssize_t name_columns(
    const Table* table, const double* score, double[:, ::1] out, Py_ssize_t first
) noexcept nogil:
    """The class and id score of the block's element, the mean of the three above it, and
    the most, the least and the sum along the whole chain (no element: the last slot, 0)."""
    cdef Py_ssize_t block, level
    cdef long long element
    cdef double chain[256]  # the widest chain read; MAX_ANCESTORS_DEFAULT is 48
    cdef double highest, lowest
    cdef Py_ssize_t width = min(table.width, 256)
    for block in range(table.blocks):
        for level in range(width):
            element = ancestor(table, block, level)
            chain[level] = score[element if element >= 0 else table.elements]
        highest = lowest = chain[0]
        for level in range(1, width):
            highest = dmax(highest, chain[level])
            lowest = dmin(lowest, chain[level])
        out[block, first] = chain[0]
        out[block, first + 1] = near_mean(chain, width)
        out[block, first + 2] = highest
        out[block, first + 3] = lowest
        out[block, first + 4] = pairwise_sum(chain, width)
    return first + 5


cdef inline double near_mean(const double* chain, Py_ssize_t width) noexcept nogil:
    """The mean of the (up to) three scores above the element's, added left to right."""
    cdef Py_ssize_t level, count = min(width, 4) - 1
    cdef double total
    if count == 0:
        return chain[0]
    total = chain[1]
    for level in range(2, count + 1):
        total += chain[level]
    return total / <double>count


cdef Py_ssize_t container_columns(
    const Table* table, const Totals* totals, Scratch* work, double total_chars,
    double[:, ::1] out, Py_ssize_t first,
) noexcept nogil:
    """Readability's container vote (features.container_features)."""
    cdef Py_ssize_t block, level, size = table.elements + 1, found, best = -1, k
    cdef long long element, parent = -1
    cdef double total = dmax(total_chars, 1.0), top = 0.0, score, highest = 0.0
    cdef double* box = work.box
    cdef double* by_half = work.by_half
    for block in range(table.blocks):  # np.bincount of each level, then the two added
        if table.chars[block] >= CONTAINER_MIN_CHARS:
            score = (1.0 + table.counts[block * table.count_columns]) + dmin(
                table.chars[block] / 100.0, 3.0
            )
        else:
            score = 0.0
        element = ancestor(table, block, 1)
        box[element if element >= 0 else size - 1] += score
        element = ancestor(table, block, 2)
        by_half[element if element >= 0 else size - 1] += score * 0.5
    for element in range(size):
        box[element] = box[element] + by_half[element]
    for element in range(size - 1):
        box[element] *= 1.0 - totals.link_chars[element] / dmax(totals.chars[element], 1.0)
    box[size - 1] = 0.0
    for element in range(size - 1):
        if best < 0 or box[element] > box[best]:
            best = element
    if best >= 0:
        top = box[best]
        parent = totals.parent[best]
    for block in range(table.blocks):
        for k in range(6):
            out[block, first + k] = 0.0
        out[block, first + 6] = <double>table.width
        for level in range(table.chain):
            element = ancestor(table, block, level)
            if element >= 0 and totals.chars[element] / total >= MAJORITY_SHARE:
                out[block, first + 6] = <double>level
                break
        if top <= 0.0:
            continue
        found = -1
        for level in range(table.chain):
            element = ancestor(table, block, level)
            if element == best and found < 0:
                found = level
            if parent >= 0 and element == parent:
                out[block, first + 2] = 1.0
            score = box[element if element >= 0 else size - 1]
            highest = score if level == 0 else dmax(highest, score)
        out[block, first] = found >= 0
        out[block, first + 1] = <double>found
        out[block, first + 3] = totals.chars[best] / total
        element = ancestor(table, block, 1) if table.width > 1 else -1
        out[block, first + 4] = box[element if element >= 0 else size - 1] / top if table.width > 1 else 0.0
        out[block, first + 5] = highest / top
    return first + 7


def fill_wording(
    const long long[::1] token_block not None,
    const long long[::1] token_counts not None,
    const unsigned char[::1] stop_flags not None,
    const unsigned char[::1] own_flags not None,
    double stop_share,
    const double[::1] token_chars not None,
    const double[::1] words not None,
    const double[:, ::1] counts not None,
    double[:, ::1] out not None,
    Py_ssize_t first,
) -> int:
    """Fill the wording columns of ``out`` from column ``first`` (wording.WORDING_FEATURE_NAMES;
    the last two for log1p; ``token_counts``: each block's tokens); return the column after
    them."""
    cdef Py_ssize_t n = out.shape[0], tokens = token_block.shape[0], block, token
    cdef double* sizes = <double*>PyMem_Calloc(n + 1, sizeof(double))
    cdef double* stop_hits = <double*>PyMem_Calloc(n + 1, sizeof(double))
    cdef double* own_hits = <double*>PyMem_Calloc(n + 1, sizeof(double))
    if sizes is NULL or stop_hits is NULL or own_hits is NULL:
        PyMem_Free(sizes)
        PyMem_Free(stop_hits)
        PyMem_Free(own_hits)
        raise MemoryError()
    try:
        with nogil:
            for block in range(n):
                sizes[block] = <double>token_counts[block]
            for token in range(tokens):
                block = token_block[token]
                stop_hits[block] += stop_flags[token]
                own_hits[block] += own_flags[token]
            density_columns(stop_hits, sizes, n, out, first)
            density_columns(own_hits, sizes, n, out, first + 3)
            for block in range(n):
                out[block, first + 2] = stop_share
                out[block, first + 5] = token_chars[block] / dmax(sizes[block], 1.0)
                out[block, first + 6] = words[block] / dmax(counts[block, SENTENCE_ENDS], 1.0)
        return first + 7
    finally:
        PyMem_Free(sizes)
        PyMem_Free(stop_hits)
        PyMem_Free(own_hits)


cdef void density_columns(
    const double* hits, const double* sizes, Py_ssize_t n, double[:, ::1] out, Py_ssize_t first
) noexcept nogil:
    """A block's share of flagged tokens, and that share over the window of blocks around it
    (the counts are whole numbers: every sum is exact)."""
    cdef Py_ssize_t block, other
    cdef double window_hits, window_sizes
    for block in range(n):
        out[block, first] = hits[block] / dmax(sizes[block], 1.0)
        window_hits = window_sizes = 0.0
        for other in range(max(block - WINDOW_HALF, 0), min(block + WINDOW_HALF + 1, n)):
            window_hits += hits[other]
            window_sizes += sizes[other]
        out[block, first + 1] = window_hits / dmax(window_sizes, 1.0)


def fill_context(
    const double[::1] p not None,
    const double[::1] mass not None,
    const double[::1] chars not None,
    const double[::1] raw_chars not None,
    const double[::1] link_chars not None,
    const double[::1] title not None,
    const long long[:, ::1] ancestors not None,
    Py_ssize_t levels,
    Py_ssize_t elements,
    const long long[::1] context_levels not None,
    double total_mass,
    double page_mass_log,
    double[:, ::1] out not None,
) -> int:
    """Fill ``out`` with the second-stage features (context.context_feature_names); the first
    column as the ratio whose ``log`` is the logit, and log_chars for its ``log1p``. ``mass``:
    ``p`` times ``chars`` (the characters, at least 1); ``total_mass``: numpy's sum of it, at
    least 1e-9, and ``page_mass_log`` its log1p. Returns the number of columns written."""
    cdef Py_ssize_t n = p.shape[0], width = ancestors.shape[1], chain = min(levels + 1, width)
    cdef Py_ssize_t size = max(elements, 1), scratch_size = 2 * size + 2 * (n + 1)
    cdef double* scratch = <double*>PyMem_Calloc(scratch_size, sizeof(double))
    if scratch is NULL:
        raise MemoryError()
    cdef double* element_mass = scratch
    cdef double* element_chars = scratch + size
    cdef double* running_mass = scratch + 2 * size
    cdef double* running_chars = scratch + 2 * size + n + 1
    cdef Py_ssize_t block, level, k, column, other, best = 0, first_sure = -1, last_sure = -1
    cdef Py_ssize_t[4] offsets = [-2, -1, 1, 2]
    cdef long long element
    cdef double score, best_score = 0.0, highest = 0.0, clipped, rest
    cdef bint seen_title = False
    try:
        with nogil:
            for block in range(n):  # np.bincount along the chains, block after block
                for level in range(chain):
                    element = ancestors[block, level]
                    if element >= 0:
                        element_mass[element] += mass[block]
                        element_chars[element] += chars[block]
            for element in range(size):
                element_chars[element] = dmax(element_chars[element], 1.0)
                score = element_mass[element] * element_mass[element] / element_chars[element]
                if element == 0 or score > best_score:
                    best, best_score = element, score
            for block in range(n):
                running_mass[block + 1] = running_mass[block] + mass[block]
                running_chars[block + 1] = running_chars[block] + chars[block]
                highest = p[block] if block == 0 else dmax(highest, p[block])
                if p[block] >= 0.5:
                    last_sure = block
                    if first_sure < 0:
                        first_sure = block
            for block in range(n):
                clipped = dmin(dmax(p[block], 1e-4), 1 - 1e-4)
                rest = dmin(dmax(1 - p[block], 1e-4), 1.0)
                out[block, 0] = clipped / rest
                for k in range(4):
                    other = block + offsets[k]
                    out[block, 1 + k] = p[other] if 0 <= other < n else 0.0
                out[block, 5] = window_mean(running_mass, running_chars, block, 3, n)
                out[block, 6] = window_mean(running_mass, running_chars, block, 8, n)
                for k in range(context_levels.shape[0]):
                    column = 7 + 2 * k
                    element = ancestors[block, min(context_levels[k], width - 1)]
                    if element >= 0:
                        out[block, column] = element_mass[element] / element_chars[element]
                        out[block, column + 1] = element_mass[element] / total_mass
                    else:
                        out[block, column] = p[block]
                        out[block, column + 1] = 1.0
                column = 7 + 2 * context_levels.shape[0]
                out[block, column] = 0.0
                for level in range(chain):
                    if ancestors[block, level] == best:
                        out[block, column] = 1.0
                        break
                out[block, column + 1] = element_mass[best] / total_mass
                out[block, column + 2] = element_mass[best] / element_chars[best]
                out[block, column + 3] = first_sure <= block <= last_sure and first_sure >= 0
                out[block, column + 4] = highest
                out[block, column + 5] = page_mass_log
                seen_title = seen_title or title[block] != 0.0
                out[block, column + 6] = title[block]
                out[block, column + 7] = seen_title
                out[block, column + 8] = raw_chars[block]
                out[block, column + 9] = link_chars[block] / chars[block]
        return 7 + 2 * context_levels.shape[0] + 10
    finally:
        PyMem_Free(scratch)


cdef inline double window_mean(
    const double* running_mass, const double* running_chars, Py_ssize_t block, Py_ssize_t half,
    Py_ssize_t n,
) noexcept nogil:
    """Mass over characters of the blocks within ``half`` of ``block``: differences of the
    running sums, as numpy's window sums."""
    cdef Py_ssize_t end = min(block + half + 1, n), start = max(block - half, 0)
    return (running_mass[end] - running_mass[start]) / (running_chars[end] - running_chars[start])

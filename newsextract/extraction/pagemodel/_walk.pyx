# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The page model's walk over libxml2's own tree, compiled.

lxml's tree is read in place through lxml's public C API: nodes are never freed, unlinked
or changed here (lxml's proxies may point at any of them), and the walk is a loop with
explicit parent links, never recursion, so a page nested 100,000 deep costs no C stack.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memchr, memcmp, memcpy, memset, strcmp, strlen
from lxml.includes cimport etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Document, _Element

from newsextract.extraction.pagemodel._memory cimport Numbers, grown, numbers_add, numbers_bytes

cetree.import_lxml__etree()

# Python's str.isspace() on ASCII: the ASCII characters a text made only of them is "space".
cdef bint[128] _SPACE
for _code in range(128):
    _SPACE[_code] = chr(_code).isspace()

cdef const char* _LINE_BREAK = b"\xef\xb7\x90"  # U+FDD0, where a <br> stood (blocks.py)


cdef struct Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int buffer_add(Buffer* buffer, const char* data, Py_ssize_t size) except -1:
    cdef Py_ssize_t needed = buffer.size + size
    cdef char* grown
    if needed > buffer.capacity:
        grown = <char*>realloc(buffer.data, max(needed, 2 * buffer.capacity, 256))
        if grown is NULL:
            raise MemoryError()
        buffer.data = grown
        buffer.capacity = max(needed, 2 * buffer.capacity, 256)
    memcpy(buffer.data + buffer.size, data, size)
    buffer.size = needed
    return 0


cdef inline bint is_text(tree.xmlNode* node) noexcept nogil:
    return node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE


cdef inline bint is_skipped(tree.xmlNode* node) noexcept nogil:
    return node.type == tree.XML_XINCLUDE_START or node.type == tree.XML_XINCLUDE_END


cdef int compare_pointers(const void* a, const void* b) noexcept nogil:
    cdef size_t x = (<size_t*>a)[0]
    cdef size_t y = (<size_t*>b)[0]
    return (x > y) - (x < y)


cdef bint contains(size_t* sorted_nodes, Py_ssize_t count, size_t node) noexcept nogil:
    cdef Py_ssize_t low = 0, high = count - 1, middle
    while low <= high:
        middle = (low + high) >> 1
        if sorted_nodes[middle] == node:
            return True
        if sorted_nodes[middle] < node:
            low = middle + 1
        else:
            high = middle - 1
    return False


cdef bint ascii_only(const char* data, Py_ssize_t size) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(size):
        if <unsigned char>data[i] >= 128:
            return False
    return True


cdef bint all_space(const char* data, Py_ssize_t size) except -1:
    """str.isspace() of the UTF-8 text (never called on an empty one)."""
    cdef Py_ssize_t i
    if not ascii_only(data, size):
        return PyUnicode_DecodeUTF8(data, size, NULL).isspace()
    for i in range(size):
        if not _SPACE[<unsigned char>data[i]]:
            return False
    return True


cdef Py_ssize_t stripped_length(const char* data, Py_ssize_t size) except -1:
    """len(text.strip()) of the UTF-8 text."""
    cdef Py_ssize_t start = 0, end = size
    if not ascii_only(data, size):
        return len(PyUnicode_DecodeUTF8(data, size, NULL).strip())
    while start < end and _SPACE[<unsigned char>data[start]]:
        start += 1
    while end > start and _SPACE[<unsigned char>data[end - 1]]:
        end -= 1
    return end - start


cdef object attribute(tree.xmlNode* node, const char* name):
    """``element.get(name)``, read from the node's attribute list: a value that is one text
    node (nearly every value an HTML parser makes) without asking libxml2 for a copy."""
    cdef tree.xmlAttr* attr = node.properties
    cdef tree.xmlNode* value
    while attr is not NULL:
        if attr.ns is NULL and strcmp(<const char*>attr.name, name) == 0:
            value = attr.children
            if value is not NULL and value.next is NULL and value.type == tree.XML_TEXT_NODE:
                return PyUnicode_DecodeUTF8(
                    <const char*>value.content, strlen(<const char*>value.content), NULL
                )
            return cetree.attributeValueFromNsName(node, NULL, <tree.const_xmlChar*>name)
        attr = attr.next
    return None


cdef int require_element(_Element root) except -1:
    """Refuse a comment, processing instruction or entity for a walk's root, as lxml's own
    walks do: an entity's children are its declaration, not the page."""
    if root._c_node.type != tree.XML_ELEMENT_NODE:
        raise ValueError(f"a walk starts at an element, not at {type(root).__name__}")
    return 0


cdef class TagNames:
    """Each node name's tag string, looked up by the name's address: libxml2 keeps one copy
    of each name in the document's dictionary. One instance serves one walk of one tree."""

    cdef const char* addresses[256]
    cdef list tags
    cdef dict by_name

    def __cinit__(self):
        self.by_name = {}
        self.tags = [None] * 256

    cdef str of(self, tree.xmlNode* node):
        """The node's tag as lxml gives it ("{namespace}name" in a namespace)."""
        cdef const char* name = <const char*>node.name
        cdef size_t slot = ((<size_t>name) >> 3) & 255
        if node.ns is not NULL:
            return cetree.namespacedName(node)
        if self.addresses[slot] == name:
            return <str>self.tags[slot]
        key = <bytes>name
        tag = self.by_name.get(key)
        if tag is None:
            tag = self.by_name[key] = cetree.pyunicode(node.name)
        self.addresses[slot] = name
        self.tags[slot] = tag
        return tag


_new_object = object.__new__
_set_attribute = object.__setattr__


cdef class _Runs:
    """The walk's state: the open run of text and the blocks closed."""

    cdef Buffer text
    cdef Buffer scratch  # one text or tail, when it spans several text nodes
    cdef bint content
    cdef list tags
    cdef list attrs
    cdef Py_ssize_t link_chars
    cdef Py_ssize_t in_link
    cdef list blocks
    cdef _Document doc
    cdef object block_class
    cdef TagNames names

    def __cinit__(self):
        self.tags = []
        self.attrs = []
        self.blocks = []

    def __dealloc__(self):
        free(self.text.data)
        free(self.scratch.data)

    cdef int close(self, tree.xmlNode* owner, Py_ssize_t depth, bint hidden) except -1:
        """Close the open run: a block when its text is not empty once normalised."""
        cdef str text
        if self.content:
            text = normalise_text(PyUnicode_DecodeUTF8(self.text.data, self.text.size, NULL))
            if text:
                self.add_block(owner, depth, hidden, text)
            self.tags = []
            self.attrs = []
            self.content = False
        elif self.tags:
            self.tags = []
            self.attrs = []
        self.text.size = 0
        self.link_chars = 0
        return 0

    cdef int add_block(self, tree.xmlNode* owner, Py_ssize_t depth, bint hidden, str text) except -1:
        # What Block(...) builds, in one step: a frozen dataclass's __init__ sets each field
        # through object.__setattr__. tests/test_extraction_page.py checks that the fields
        # are exactly Block's.
        block = _new_object(self.block_class)
        _set_attribute(
            block,
            "__dict__",
            {
                "index": len(self.blocks),
                "element": cetree.elementFactory(self.doc, owner),
                "tag": self.names.of(owner) if owner.type == tree.XML_ELEMENT_NODE else "",
                "text": text,
                "depth": depth,
                "link_chars": min(self.link_chars, len(text)),
                "inline_tags": tuple(self.tags),
                "attr_texts": tuple(self.attrs),
                "hidden": hidden,
            },
        )
        self.blocks.append(block)
        return 0

    cdef int add_text(self, const char* data, Py_ssize_t size) except -1:
        if size == 0:
            return 0
        if self.content:
            buffer_add(&self.text, data, size)
        elif not all_space(data, size):
            buffer_add(&self.text, data, size)
            self.content = True
        if self.in_link:
            self.link_chars += stripped_length(data, size)
        return 0

    cdef tree.xmlNode* add_text_nodes(self, tree.xmlNode* node) except? NULL:
        """Take the run of text nodes starting at ``node`` as one text, as lxml's ``.text``
        and ``.tail`` read it; return the node after the run."""
        cdef tree.xmlNode* following = node.next
        cdef const char* content
        if following is NULL or not (is_text(following) or is_skipped(following)):
            content = <const char*>node.content
            if content is not NULL:
                self.add_text(content, strlen(content))
            return following
        self.scratch.size = 0
        while node is not NULL and (is_text(node) or is_skipped(node)):
            if is_text(node) and node.content is not NULL:
                content = <const char*>node.content
                buffer_add(&self.scratch, content, strlen(content))
            node = node.next
        self.add_text(self.scratch.data, self.scratch.size)
        return node

    cdef int end_inline(self, str tag) except -1:
        """An inline element's end tag: a link closes, a line break marks the text."""
        if tag == "a":
            if self.in_link:
                self.in_link -= 1
        elif tag == "br" and self.content:
            buffer_add(&self.text, _LINE_BREAK, 3)
        return 0

    cdef int add_inline(self, tree.xmlNode* node, str tag) except -1:
        self.tags.append(tag)
        if node.properties is NULL:
            return 0
        value = attribute(node, b"title")
        if value and not value.isspace():
            self.attrs.append(value.strip())
        value = attribute(node, b"alt")
        if value and not value.isspace():
            self.attrs.append(value.strip())
        return 0


def block_list(_Element root not None, hidden, frozenset block_tags not None, block_class) -> list:
    """The blocks of ``root``'s tree (``block_class`` instances), in document order, as
    :func:`blocks.split_blocks` cuts them: one for each run of an element's direct text
    that is not empty once normalised. ``hidden``: the hidden block elements."""
    cdef _Runs state = _Runs()
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* node
    cdef tree.xmlNode* parent
    cdef Py_ssize_t count = 0, depth = 0, capacity = 64
    cdef size_t* hidden_nodes = NULL
    cdef tree.xmlNode** owners = NULL
    cdef bint* hiding = NULL
    cdef bint is_block
    cdef TagNames names = TagNames()
    cdef str tag
    require_element(root)
    state.doc = root._doc
    state.block_class = block_class
    state.names = names
    hidden_list = [element for element in hidden if isinstance(element, _Element)]
    try:
        hidden_nodes = <size_t*>malloc(max(len(hidden_list), 1) * sizeof(size_t))
        owners = <tree.xmlNode**>malloc(capacity * sizeof(tree.xmlNode*))
        hiding = <bint*>malloc(capacity * sizeof(bint))
        if hidden_nodes is NULL or owners is NULL or hiding is NULL:
            raise MemoryError()
        for element in hidden_list:
            hidden_nodes[count] = <size_t>(<_Element>element)._c_node
            count += 1
        qsort(hidden_nodes, count, sizeof(size_t), compare_pointers)
        owners[0] = top
        hiding[0] = contains(hidden_nodes, count, <size_t>top)
        node = top.children
        parent = top
        while True:
            if node is NULL:  # the end of ``parent``'s children: its end tag
                if parent is top:
                    break
                node = parent
                parent = node.parent
                tag = names.of(node)
                if tag in block_tags:
                    state.close(owners[depth], depth, hiding[depth])
                    depth -= 1
                else:
                    state.end_inline(tag)
                node = node.next
                continue
            if is_text(node) or is_skipped(node):
                node = state.add_text_nodes(node)
                continue
            if node.type == tree.XML_ELEMENT_NODE:
                tag = names.of(node)
                if tag in block_tags:
                    state.close(owners[depth], depth, hiding[depth])
                    depth += 1
                    if depth == capacity:
                        capacity *= 2
                        owners = <tree.xmlNode**>grown(owners, capacity * sizeof(tree.xmlNode*))
                        hiding = <bint*>grown(hiding, capacity * sizeof(bint))
                    owners[depth] = node
                    hiding[depth] = hiding[depth - 1] or contains(hidden_nodes, count, <size_t>node)
                else:
                    state.add_inline(node, tag)
                    if tag == "a":
                        state.in_link += 1
                parent = node  # into its children; an empty element's end tag comes next
                node = node.children
                continue
            if node.type == tree.XML_ENTITY_REF_NODE:  # lxml reads "&name;" as its text
                state.tags.append("")
                entity = f"&{cetree.pyunicode(node.name)};".encode()
                state.add_text(<const char*>entity, len(entity))
            node = node.next  # comments and processing instructions: only their tails count
        if top.type == tree.XML_ELEMENT_NODE:  # the root's end tag, then its tail, as iterwalk
            tag = names.of(top)
            if tag not in block_tags:
                state.end_inline(tag)
        if top.next is not NULL and (is_text(top.next) or is_skipped(top.next)):
            state.add_text_nodes(top.next)
        state.close(owners[0], 0, hiding[0])
        return state.blocks
    finally:
        free(hidden_nodes)
        free(owners)
        free(hiding)


def block_columns(
    tuple blocks not None,
    dict tag_index not None,
    long long other_tag,
    long long[::1] tags not None,
    double[::1] link_chars not None,
    double[::1] inline_tags not None,
    double[::1] images not None,
) -> tuple:
    """What the block table reads of each block, in one pass: fills each block's tag index
    (``other_tag`` for tags not in ``tag_index``), link characters, inline tags and images;
    returns (texts, elements, hidden) as a tuple and two lists."""
    cdef Py_ssize_t n = len(blocks), i
    cdef list texts = [None] * n, elements = [None] * n, hidden = [None] * n
    cdef tuple inline
    for i in range(n):
        block = blocks[i]
        texts[i] = block.text
        elements[i] = block.element
        hidden[i] = block.hidden
        found = tag_index.get(block.tag)
        tags[i] = other_tag if found is None else <long long>found
        link_chars[i] = block.link_chars
        inline = <tuple>block.inline_tags
        inline_tags[i] = len(inline)
        images[i] = inline.count("img")
    return tuple(texts), elements, hidden


# Open addressing from a node's address to its number (the tree does not change meanwhile).
cdef struct NodeIds:
    size_t* keys
    Py_ssize_t* values
    Py_ssize_t capacity  # a power of two
    Py_ssize_t size


cdef inline size_t _slot(NodeIds* table, size_t key) noexcept nogil:
    cdef size_t mask = <size_t>table.capacity - 1
    cdef size_t slot = ((key >> 4) * <size_t>11400714819323198485ULL) & mask
    while table.keys[slot] != 0 and table.keys[slot] != key:
        slot = (slot + 1) & mask
    return slot


cdef int ids_init(NodeIds* table, Py_ssize_t capacity) except -1:
    table.capacity = capacity
    table.size = 0
    table.keys = <size_t*>calloc(capacity, sizeof(size_t))
    table.values = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
    if table.keys is NULL or table.values is NULL:
        raise MemoryError()
    return 0


cdef int ids_put(NodeIds* table, size_t key, Py_ssize_t value) except -1:
    cdef NodeIds grown
    cdef Py_ssize_t i
    if 2 * (table.size + 1) > table.capacity:
        ids_init(&grown, 2 * table.capacity)
        for i in range(table.capacity):
            if table.keys[i] != 0:
                ids_put(&grown, table.keys[i], table.values[i])
        free(table.keys)
        free(table.values)
        table[0] = grown
    cdef size_t slot = _slot(table, key)
    if table.keys[slot] == 0:
        table.size += 1
    table.keys[slot] = key
    table.values[slot] = value
    return 0


cdef inline Py_ssize_t ids_get(NodeIds* table, size_t key) noexcept nogil:
    cdef size_t slot = _slot(table, key)
    return table.values[slot] if table.keys[slot] == key else -2


def element_tree(list block_elements not None, list hidden not None, ClassNames class_names,
                 dict tag_bits, frozenset page_tags, long long page_mask, long long hidden_bit,
                 long long[::1] own not None) -> tuple:
    """Number every element enclosing a block, parents before children, in one walk up
    (what features._element_tree did in Python, to the same numbers): an element is judged
    once, however many blocks it encloses, and its flags are OR-ed with its parent's. Its
    class and id text is judged by ``class_names``.

    Fills ``own`` (each block's element); returns (parents, depth, bits, bits_any, names),
    the int64 arrays as the bytes of their values.
    """
    cdef NodeIds ids
    cdef Numbers parents, depths, bits, bits_any
    cdef Py_ssize_t n = len(block_elements), i, ident
    cdef long long judged, deepest = 0
    cdef tree.xmlNode* current
    cdef tree.xmlNode* parent
    cdef tree.xmlNode** path = NULL
    cdef Py_ssize_t path_size = 0, path_capacity = 64
    cdef TagNames names = TagNames()
    cdef list words_of = []
    parents.values = depths.values = bits.values = bits_any.values = NULL
    parents.size = depths.size = bits.size = bits_any.size = 0
    parents.capacity = depths.capacity = bits.capacity = bits_any.capacity = 0
    ids_init(&ids, 1024)
    try:
        path = <tree.xmlNode**>grown(NULL, path_capacity * sizeof(tree.xmlNode*))
        for i in range(n):
            current = (<_Element>block_elements[i])._c_node
            path_size = 0
            ident = ids_get(&ids, <size_t>current)
            while ident == -2:  # up to the first element numbered already, or past the root
                if path_size == path_capacity:
                    path_capacity *= 2
                    path = <tree.xmlNode**>grown(path, path_capacity * sizeof(tree.xmlNode*))
                path[path_size] = current
                path_size += 1
                parent = current.parent
                if parent is NULL or parent.type != tree.XML_ELEMENT_NODE:
                    ident = -1
                else:
                    current = parent
                    ident = ids_get(&ids, <size_t>parent)
            while path_size > 0:
                path_size -= 1
                current = path[path_size]
                judged = _judge(current, class_names, names, tag_bits, page_tags, page_mask,
                                words_of)
                numbers_add(&parents, ident)
                if ident >= 0:
                    numbers_add(&depths, depths.values[ident] + 1)
                    numbers_add(&bits_any, judged | bits_any.values[ident])
                else:
                    numbers_add(&depths, 1)
                    numbers_add(&bits_any, judged)
                deepest = max(deepest, depths.values[depths.size - 1])
                numbers_add(&bits, judged)
                ident = bits.size - 1
                ids_put(&ids, <size_t>current, ident)
            own[i] = ident
            if hidden[i]:  # the block's element or a block element above it is hidden
                bits.values[ident] |= hidden_bit
                bits_any.values[ident] |= hidden_bit
        return (
            numbers_bytes(&parents),
            deepest,
            numbers_bytes(&bits),
            numbers_bytes(&bits_any),
            tuple(words_of),
        )
    finally:
        free(ids.keys)
        free(ids.values)
        free(path)
        free(parents.values)
        free(depths.values)
        free(bits.values)
        free(bits_any.values)


cdef long long _judge(tree.xmlNode* node, ClassNames class_names, TagNames names,
                      dict tag_bits, frozenset page_tags, long long page_mask,
                      list words_of) except? -1:
    """An element's flag bits; its class and id words go to ``words_of``."""
    cdef long long judged = 0
    classes = ident = None
    if node.properties is not NULL:
        classes = attribute(node, b"class")
        ident = attribute(node, b"id")
    tag = names.of(node)
    words = ()
    if classes or ident:
        judged, words = class_names.judge(f"{classes or ''} {ident or ''}")
        if judged and tag in page_tags:  # never a comment section nor noise
            judged &= page_mask
    judged |= tag_bits.get(tag, 0)
    words_of.append(words)
    return judged


cdef class ClassNames:
    """The flag bits and the words of an element's class and id text ("class id"), judged
    once a text: its words are the runs of two or more ASCII letters of its first 200
    characters lower-cased, each distinct word once in order, and its bits those of its
    words, OR-ed. ``word_bits`` judges a word it has not seen. Both memos (of texts, of
    words) live as long as the instance; each is emptied when it holds ``size``, so memory
    stays bounded."""

    cdef readonly dict texts
    cdef readonly dict words
    cdef object word_bits
    cdef public Py_ssize_t size

    def __init__(self, word_bits, Py_ssize_t size):
        self.texts = {}
        self.words = {}
        self.word_bits = word_bits
        self.size = size

    cdef tuple judge(self, str text):
        found = self.texts.get(text)
        if found is not None:
            return <tuple>found
        if len(self.texts) >= self.size:
            self.texts.clear()
        if len(self.words) >= self.size:
            self.words.clear()
        cdef list words = _letter_runs(text[:200].lower())
        cdef long long bits = 0
        for word in words:
            known = self.words.get(word)
            if known is None:
                known = self.words[word] = self.word_bits(word)
            bits |= <long long>known
        judged = (bits, tuple(words))
        self.texts[text] = judged
        return judged

    def __call__(self, str text not None) -> tuple:
        return self.judge(text)


cdef list _letter_runs(str text):
    """The distinct runs of two or more letters a-z in ``text``, in order."""
    cdef list words = []
    cdef Py_ssize_t i = 0, start, n = len(text)
    while i < n:
        if not (u'a' <= text[i] <= u'z'):
            i += 1
            continue
        start = i
        while i < n and u'a' <= text[i] <= u'z':
            i += 1
        if i - start >= 2:
            word = text[start:i]
            if word not in words:
                words.append(word)
    return words


cdef class _WalkUp:
    """A walk up from an element to the first ancestor already judged, memoised by node: one
    instance a page, while its tree does not change."""

    cdef NodeIds memo
    cdef TagNames names
    cdef tree.xmlNode** path  # the nodes of the last walk, nearest first
    cdef Py_ssize_t path_size
    cdef Py_ssize_t path_capacity

    def __cinit__(self, *args, **kwargs):
        ids_init(&self.memo, 256)
        self.names = TagNames()

    def __dealloc__(self):
        free(self.memo.keys)
        free(self.memo.values)
        free(self.path)

    cdef Py_ssize_t walk_up(self, tree.xmlNode* node, frozenset stop) except -3:
        """Collect the node and its ancestors, nearest first, in ``path``, up to the first
        the memo holds (whose value is returned), the first whose tag is in ``stop`` (not
        collected) or past the top (-2 for both)."""
        cdef Py_ssize_t known = -2
        self.path_size = 0
        while node is not NULL:
            known = ids_get(&self.memo, <size_t>node)
            if known != -2 or (stop is not None and self.names.of(node) in stop):
                break
            if self.path_size == self.path_capacity:
                self.path_capacity = max(2 * self.path_capacity, 32)
                self.path = <tree.xmlNode**>grown(
                    self.path, self.path_capacity * sizeof(tree.xmlNode*)
                )
            self.path[self.path_size] = node
            self.path_size += 1
            node = node.parent
            if node is not NULL and node.type != tree.XML_ELEMENT_NODE:
                node = NULL
        return known if node is not NULL else -2


cdef class Places(_WalkUp):
    """Numbers the places of one page's elements: the same number, the same place. An
    element's place is its tag, class and id (digits left out: generated ids number their
    elements) and its parent's place; each element is read once, by a walk up in C."""

    cdef dict numbers

    def __init__(self):
        self.numbers = {}

    def __call__(self, _Element element not None) -> int:
        cdef tree.xmlNode* node
        cdef Py_ssize_t number = self.walk_up(element._c_node, None)
        number = -1 if number == -2 else number
        while self.path_size > 0:
            self.path_size -= 1
            node = self.path[self.path_size]
            key = (self.names.of(node), attribute(node, b"class") or "",
                   _without_digits(attribute(node, b"id") or ""), number)
            number = self.numbers.setdefault(key, len(self.numbers))
            ids_put(&self.memo, <size_t>node, number)
        return number


cdef str _without_digits(str text):
    """``re.sub(r"\\d+", "", text)``: the text less its decimal digits, of any script."""
    cdef Py_UCS4 char
    for char in text:
        if Py_UNICODE_ISDECIMAL(char):
            return "".join([kept for kept in text if not Py_UNICODE_ISDECIMAL(<Py_UCS4>kept)])
    return text


cdef class AttributeJudge:
    """An element's own flags from its attributes, judged in C for :class:`Inherited` (no
    element object is made): ``judge_text`` of the values of ``text_attributes`` joined by
    spaces (a missing one as ""), cut to ``max_chars`` (-1: whole), remembered by text (the
    memo emptied when it holds ``memo_size``); where that gives 0, ``flag`` when the tag is
    one of ``tags`` or an attribute of ``values`` ((UTF-8 name, values), ...) has one of its
    values, else 0."""

    cdef tuple text_attributes
    cdef object judge_text
    cdef Py_ssize_t max_chars
    cdef frozenset tags
    cdef tuple values
    cdef long long flag
    cdef dict memo
    cdef Py_ssize_t memo_size

    def __init__(self, tuple text_attributes not None, judge_text, Py_ssize_t max_chars=-1,
                 frozenset tags=frozenset(), tuple values=(), long long flag=0,
                 Py_ssize_t memo_size=20_000):
        self.text_attributes = text_attributes
        self.judge_text = judge_text
        self.max_chars = max_chars
        self.tags = tags
        self.values = values
        self.flag = flag
        self.memo = {}
        self.memo_size = memo_size

    cdef long long judge(self, tree.xmlNode* node, TagNames names) except? -1:
        text = " ".join([attribute(node, <bytes>name) or "" for name in self.text_attributes])
        if self.max_chars >= 0:
            text = text[: self.max_chars]
        found = self.memo.get(text)
        if found is None:
            if len(self.memo) >= self.memo_size:
                self.memo.clear()
            found = self.memo[text] = int(self.judge_text(text))
        if found or not self.flag:
            return <long long>found
        if names.of(node) in self.tags:
            return self.flag
        for name, allowed in self.values:
            value = attribute(node, <bytes>name)
            if value is not None and value in <frozenset>allowed:
                return self.flag
        return 0

    def __call__(self, _Element element not None) -> int:
        return self.judge(element._c_node, TagNames())


cdef class Inherited(_WalkUp):
    """Flags of an element or-ed with those of every ancestor, up to (not including) the
    first element whose tag is in ``stop``; memoised by node, so use one a page, and only
    while its tree does not change. ``own`` judges one element, once. With ``reads`` (the
    attributes ``own`` reads), an element that has none of them and whose tag is not in
    ``tags`` is judged 0 without a call: most elements of a page, for the cost of a look at
    its attributes in C. An :class:`AttributeJudge` for ``own`` judges in C as well; ``own``
    never calls the instance it judges for (the walk's path is the instance's)."""

    cdef object own
    cdef AttributeJudge own_in_c
    cdef frozenset stop
    cdef tuple reads
    cdef frozenset tags

    def __init__(self, own, frozenset stop=frozenset(), tuple reads=(), frozenset tags=frozenset()):
        self.own = own
        self.own_in_c = own if isinstance(own, AttributeJudge) else None
        self.stop = stop
        self.reads = reads
        self.tags = tags

    def __call__(self, _Element element not None) -> int:
        cdef tree.xmlNode* node
        cdef Py_ssize_t flags = self.walk_up(element._c_node, self.stop)
        flags = 0 if flags == -2 else flags
        while self.path_size > 0:
            self.path_size -= 1
            node = self.path[self.path_size]
            if not self.judged(node):
                pass
            elif self.own_in_c is not None:
                flags |= self.own_in_c.judge(node, self.names)
            else:
                flags |= self.own(cetree.elementFactory(element._doc, node))
            ids_put(&self.memo, <size_t>node, flags)
        return flags

    cdef bint judged(self, tree.xmlNode* node) except -1:
        """Whether ``own`` must judge the element (else its own flags are 0)."""
        if not self.reads or self.names.of(node) in self.tags:
            return True
        if node.properties is NULL:
            return False
        for name in self.reads:
            if has_attribute(node, <bytes>name):
                return True
        return False


cdef bint has_attribute(tree.xmlNode* node, const char* name) noexcept:
    return _find_attribute(node, name) is not NULL


def is_hidden(_Element element not None) -> bool:
    """Whether the element's own attributes hide it. Of ``style`` (``display: none`` or
    ``visibility: hidden``, in any case and spacing), ``hidden`` and ``aria-hidden="true"``,
    the first the element has that hides it decides: ``hidden`` hides unless the element is a
    part that React's streamed rendering moves into place (``id="S:0"``)."""
    return _hides(element._c_node)


cdef bint _hides(tree.xmlNode* node) except -1:
    """:func:`is_hidden` of a node."""
    if node.type != tree.XML_ELEMENT_NODE or node.properties is NULL:
        return False
    style = attribute(node, b"style")
    if style is not None and _hides_by_style(style):
        return True
    if _find_attribute(node, b"hidden") is not NULL:
        return not _is_streamed_part(attribute(node, b"id") or "")
    return attribute(node, b"aria-hidden") == "true"


cdef bint _hides_by_style(str style) except -1:
    """``re.search(r"display\\s*:\\s*none|visibility\\s*:\\s*hidden", style, re.I)``."""
    cdef Py_ssize_t at
    for at in range(len(style)):
        if _declares(style, at, "display", "none") or _declares(style, at, "visibility", "hidden"):
            return True
    return False


cdef bint _declares(str style, Py_ssize_t at, str name, str value) except -1:
    """Whether ``name``, white space, ":", white space and ``value`` start at ``at`` (the
    letters in any case, as ``re.IGNORECASE`` reads them)."""
    at = _letters_at(style, at, name)
    if at < 0:
        return False
    while at < len(style) and Py_UNICODE_ISSPACE(style[at]):
        at += 1
    if at >= len(style) or style[at] != ":":
        return False
    at += 1
    while at < len(style) and Py_UNICODE_ISSPACE(style[at]):
        at += 1
    return _letters_at(style, at, value) >= 0


cdef Py_ssize_t _letters_at(str text, Py_ssize_t at, str word) except -2:
    """Where ``word`` (lower-case ASCII) ends in ``text`` when it starts at ``at`` in any
    case, -1 when it does not. ``re.IGNORECASE`` also takes the dotted and dotless I for "i"
    and the long s for "s"."""
    cdef Py_ssize_t j
    cdef unsigned int code, letter
    if at + len(word) > len(text):
        return -1
    for j in range(len(word)):
        code, letter = text[at + j], word[j]
        if 65 <= code <= 90:
            code += 32
        if code != letter and not (
            (letter == 105 and (code == 0x130 or code == 0x131)) or (letter == 115 and code == 0x17F)
        ):
            return -1
    return at + len(word)


cdef bint _is_streamed_part(str ident) except -1:
    """``re.match(r"S:\\d+$", ident)``: "S:", decimal digits, then the end or a last line
    break."""
    cdef Py_ssize_t at = 2, size = len(ident)
    if size > 0 and ident[size - 1] == "\n":
        size -= 1
    if size < 3 or ident[0] != "S" or ident[1] != ":":
        return False
    while at < size:
        if not Py_UNICODE_ISDECIMAL(ident[at]):
            return False
        at += 1
    return True


def cleaning_parts(_Element root not None, frozenset noise_tags not None,
                   frozenset page_holders not None, frozenset archive_ids not None,
                   frozenset block_tags not None) -> tuple:
    """What cleaning removes, in one walk of ``root``'s subtree (itself included), in
    document order: the ``<head>`` elements (whose subtrees are not walked: they go whole);
    the noise elements that may hold the page (tags in ``page_holders``), for the caller to
    judge; the elements removed otherwise, in this order: the other noise elements (by tag),
    those a web archive inserted (by id), the hidden ones (:func:`is_hidden`) that are not
    blocks; and the set of hidden block elements, which stay."""
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* node = top
    cdef TagNames names = TagNames()
    cdef _Document doc = root._doc
    cdef list heads = [], holders = [], noise = [], archive = [], hidden_inline = []
    cdef set hidden_blocks = set()
    cdef bint descend
    require_element(root)
    while node is not NULL:
        descend = True
        if node.type == tree.XML_ELEMENT_NODE:
            tag = names.of(node)
            if tag == "head":
                heads.append(cetree.elementFactory(doc, node))
                descend = node is top  # a head below the root goes whole, unread
            if descend:
                if tag in noise_tags:
                    (holders if tag in page_holders else noise).append(
                        cetree.elementFactory(doc, node)
                    )
                if node.properties is not NULL:
                    if archive_ids and has_attribute(node, b"id"):
                        if attribute(node, b"id") in archive_ids:
                            archive.append(cetree.elementFactory(doc, node))
                    if _hides(node):
                        if tag in block_tags:
                            hidden_blocks.add(cetree.elementFactory(doc, node))
                        else:
                            hidden_inline.append(cetree.elementFactory(doc, node))
        node = _next_node(node, top, descend)
    return heads, holders, noise + archive + hidden_inline, hidden_blocks


cdef inline tree.xmlNode* _next_node(tree.xmlNode* node, tree.xmlNode* top, bint descend) noexcept:
    """The next node of ``top``'s subtree in document order, without recursion (entity
    references are not entered: their children are the entity's declaration)."""
    if descend and node.children is not NULL and node.type == tree.XML_ELEMENT_NODE:
        return node.children
    while node is not top:
        if node.next is not NULL:
            return node.next
        node = node.parent
        if node is NULL:
            return NULL
    return NULL


def text_chars(_Element element not None) -> int:
    """``sum(map(len, element.itertext()))``: the characters of the text nodes in the
    element's subtree and of its entity references as "&name;" (not a comment's or processing
    instruction's content, nor the element's own tail), counted in their UTF-8, with no string
    made."""
    cdef tree.xmlNode* top = element._c_node
    cdef tree.xmlNode* node
    cdef Py_ssize_t chars = 0
    require_element(element)
    node = _next_node(top, top, True)
    while node is not NULL:
        if node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
            chars += _utf8_chars(<const unsigned char*>node.content)
        elif node.type == tree.XML_ENTITY_REF_NODE:  # lxml gives its text as "&name;"
            chars += 2 + _utf8_chars(<const unsigned char*>node.name)
        node = _next_node(node, top, True)
    return chars


cdef inline Py_ssize_t _utf8_chars(const unsigned char* byte) noexcept:
    """The characters of a NUL-terminated UTF-8 text (0 for NULL)."""
    cdef Py_ssize_t chars = 0
    if byte is NULL:
        return 0
    while byte[0] != 0:
        chars += (byte[0] & 0xC0) != 0x80  # not a continuation byte
        byte += 1
    return chars


cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch)
    Py_UCS4 PyUnicode_READ(int kind, const void* data, Py_ssize_t index)
    int PyUnicode_KIND(object text)
    const void* PyUnicode_DATA(object text)
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

from unicodedata import is_normalized, normalize

cdef Py_UCS4 LINE_BREAK = 0xFDD0  # where a <br> stood (blocks.py)


cpdef str normalise_text(str text):
    """Fold runs of white space; keep single line breaks (``\\u2028`` or a ``<br>`` mark);
    compose characters (Unicode NFC), so that one text is written one way whatever the page's
    editor produced (Bengali "\\u09dc" is "\\u09a1\\u09bc" to every search and corpus tool).
    What white space is, is Python's ``str.split()``'s answer; one pass after the NFC check.
    """
    if not text.isascii() and not is_normalized("NFC", text):
        text = normalize("NFC", text)
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t size = len(text), i, length = 0, start, end
    cdef Py_UCS4 code
    cdef bint space = False, breaks = False
    cdef Py_UCS4* out = <Py_UCS4*>malloc(max(size, 1) * sizeof(Py_UCS4))
    if out is NULL:
        raise MemoryError()
    try:
        for i in range(size):  # white space folded to one space between words
            code = PyUnicode_READ(kind, data, i)
            if code == 0:
                continue
            if code == 0x2028:
                code = LINE_BREAK
            elif code == 0x200B:
                code = 32
            if code == 32 or Py_UNICODE_ISSPACE(code):
                space = length > 0
                continue
            if space:
                out[length] = 32
                length += 1
                space = False
            if code == LINE_BREAK:
                breaks = True
            out[length] = code
            length += 1
        if breaks:
            length = _line_breaks(out, length)
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, length)
    finally:
        free(out)


cdef Py_ssize_t _line_breaks(Py_UCS4* text, Py_ssize_t size) noexcept:
    """Each break mark, with one space before it and every space or mark after it, becomes
    one "\\n"; then the ends lose their white space (the folded text's, and new lines)."""
    cdef Py_ssize_t i = 0, length = 0, start = 0
    while i < size:
        if text[i] == LINE_BREAK or (text[i] == 32 and i + 1 < size and text[i + 1] == LINE_BREAK):
            i += 1
            while i < size and (text[i] == 32 or text[i] == LINE_BREAK):
                i += 1
            text[length] = 10
        else:
            text[length] = text[i]
            i += 1
        length += 1
    while start < length and (text[start] == 10 or text[start] == 32):
        start += 1
    while length > start and (text[length - 1] == 10 or text[length - 1] == 32):
        length -= 1
    if start:
        for i in range(length - start):
            text[i] = text[start + i]
    return length - start


def with_attributes(_Element root not None, tuple attribute_names not None) -> list:
    """The elements of ``root``'s subtree (itself included), in document order, that have
    any of the attributes named (bytes, without a namespace)."""
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* node = top
    cdef _Document doc = root._doc
    cdef list found = []
    require_element(root)
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE and node.properties is not NULL:
            for name in attribute_names:
                if has_attribute(node, <bytes>name):
                    found.append(cetree.elementFactory(doc, node))
                    break
        node = _next_node(node, top, True)
    return found


def source_counts(bytes source not None) -> tuple:
    """In one pass over a page's UTF-8 bytes: its "<" characters, its control characters
    that XML forbids (page.py's _XML_ILLEGAL_CHARS below the space: in UTF-8 a byte under
    0x20 is always that character), and whether it holds U+FFFE or U+FFFF (EF BF BE or BF)."""
    cdef const unsigned char* data = <const unsigned char*>PyBytes_AS_STRING(source)
    cdef Py_ssize_t size = len(source), i, less_than = 0, forbidden = 0
    cdef unsigned char byte
    for i in range(size):  # no branch: the compiler vectorises it
        byte = data[i]
        less_than += byte == 60
        forbidden += (byte < 32) & (byte != 9) & (byte != 10) & (byte != 13)
    return less_than, forbidden, _has_nonchars(data, size)


ctypedef fused _Char:  # a str's 1, 2 or 4 bytes a character
    uint8_t
    uint16_t
    uint32_t


def text_counts(str text not None) -> tuple:
    """What :func:`source_counts` gives for a page's UTF-8 bytes, of its text."""
    cdef Py_ssize_t[3] counts
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    if kind == 1:
        _count_text(<const uint8_t*>data, len(text), counts)
    elif kind == 2:
        _count_text(<const uint16_t*>data, len(text), counts)
    else:
        _count_text(<const uint32_t*>data, len(text), counts)
    return counts[0], counts[1], counts[2] > 0


cdef void _count_text(const _Char* data, Py_ssize_t size, Py_ssize_t* counts) noexcept nogil:
    cdef Py_ssize_t i, less_than = 0, forbidden = 0, nonchars = 0
    cdef uint32_t char
    for i in range(size):  # no branch: the compiler vectorises it
        char = data[i]
        less_than += char == 60
        forbidden += (char < 32) & (char != 9) & (char != 10) & (char != 13)
        nonchars += (char == 0xFFFE) | (char == 0xFFFF)
    counts[0], counts[1], counts[2] = less_than, forbidden, nonchars


def without_overlong_tags(str html not None, Py_ssize_t length) -> str:
    """``re.sub(rf"<([A-Za-z][^\\s/<>]*)[^<>]{{{length},}}", r"<\\1", html)`` in one pass:
    each start tag whose name starts a run of more than ``length`` characters without "<" or
    ">" keeps "<" and its name (cut so that ``length`` characters stay after it, as the
    regex backtracks) and loses the rest of the run. ``html`` itself when none does."""
    cdef int kind = PyUnicode_KIND(html)
    cdef const void* data = PyUnicode_DATA(html)
    cdef Py_ssize_t size = len(html), at = 0, run_end, name_end, kept = 0
    cdef list pieces = []
    cdef Py_UCS4 code
    while at < size:
        if PyUnicode_READ(kind, data, at) != 60 or at + 1 >= size:  # "<"
            at += 1
            continue
        code = PyUnicode_READ(kind, data, at + 1)
        if not ((65 <= code <= 90) or (97 <= code <= 122)):
            at += 1
            continue
        run_end = at + 1
        while run_end < size:
            code = PyUnicode_READ(kind, data, run_end)
            if code == 60 or code == 62:
                break
            run_end += 1
        if run_end - at - 1 > length:
            name_end = at + 2
            while name_end < run_end:
                code = PyUnicode_READ(kind, data, name_end)
                if code == 47 or Py_UNICODE_ISSPACE(code):
                    break
                name_end += 1
            name_end = min(name_end, run_end - length)
            pieces.append(html[kept:name_end])
            kept = run_end
        at = run_end  # no "<" before the run's end
    if not pieces:
        return html
    pieces.append(html[kept:])
    return "".join(pieces)


cdef bint _has_nonchars(const unsigned char* data, Py_ssize_t size) noexcept nogil:
    cdef const unsigned char* end = data + size
    cdef const unsigned char* found = <const unsigned char*>memchr(data, 0xEF, size)
    while found is not NULL and found + 2 < end:
        if found[1] == 0xBF and (found[2] == 0xBE or found[2] == 0xBF):
            return True
        found = <const unsigned char*>memchr(found + 1, 0xEF, end - found - 1)
    return False


cdef int _cached_index(const char** addresses, int* indexes, const char* name,
                       list wanted) except -2:
    """The position of the name in ``wanted`` (UTF-8 bytes), -1 if absent; names are libxml2
    dictionary strings, looked up once each by address."""
    cdef size_t slot = ((<size_t>name) >> 3) & 255
    cdef Py_ssize_t i
    if addresses[slot] == name:
        return indexes[slot]
    indexes[slot] = -1
    for i in range(len(wanted)):
        if strcmp(name, <const char*>(<bytes>wanted[i])) == 0:
            indexes[slot] = i
            break
    addresses[slot] = name
    return indexes[slot]


cdef tree.xmlAttr* _find_attribute(tree.xmlNode* node, const char* name) noexcept:
    """The attribute ``element.get(name)`` reads: the first without a namespace."""
    cdef tree.xmlAttr* attr = node.properties
    while attr is not NULL:
        if attr.ns is NULL and strcmp(<const char*>attr.name, name) == 0:
            return attr
        attr = attr.next
    return NULL


cdef bint _value_is(tree.xmlNode* node, tree.xmlAttr* attr, bytes wanted) except -1:
    """Whether the attribute's value is ``wanted`` (UTF-8), as ``element.get`` reads it."""
    cdef tree.xmlNode* value = attr.children
    cdef const char* content
    if value is not NULL and value.next is NULL and value.type == tree.XML_TEXT_NODE:
        content = <const char*>value.content
        return (
            <Py_ssize_t>strlen(content) == len(wanted)
            and memcmp(content, <const char*>wanted, len(wanted)) == 0
        )
    text = attribute(node, <const char*>attr.name)
    return text is not None and (<str>text).encode("utf-8", "surrogatepass") == wanted


def tag_or_attribute(_Element element not None, bytes tag not None, bytes name not None,
                     bytes value not None) -> list:
    """What the XPath ``//TAG | //*[@NAME='VALUE']`` finds in the element's document, in
    document order, in one walk: the elements in no namespace whose tag is ``tag``, and the
    elements whose attribute ``name`` (in no namespace) is ``value`` (UTF-8, each once)."""
    cdef _Document doc = element._doc
    cdef tree.xmlNode* top = (<tree.xmlDoc*>doc._c_doc).children
    cdef tree.xmlNode* node
    cdef tree.xmlAttr* attr
    cdef list found = []
    while top is not NULL:  # the root element, and what else a document holds beside it
        node = top
        while node is not NULL:
            if node.type == tree.XML_ELEMENT_NODE:
                attr = _find_attribute(node, <const char*>name)
                if (node.ns is NULL and strcmp(<const char*>node.name, <const char*>tag) == 0) or (
                    attr is not NULL and _value_is(node, attr, value)
                ):
                    found.append(cetree.elementFactory(doc, node))
            node = _next_node(node, top, True)
        top = top.next
    return found


def tag_attribute_matches(_Element context not None, bint include_self, tuple tags not None,
                          tuple plans not None, dict found not None) -> None:
    """One walk of ``context``'s subtree (itself too when ``include_self``), in document
    order: an element whose tag is ``tags[i]`` (UTF-8) is added to ``found[expression]`` for
    each expression ``plans[i]`` ((attribute name or b"", ((value, expressions), ...)), ...)
    gives its attribute's value (b"" for a name of b""; UTF-8). What a walk of ``iter(tag)``
    and ``element.get(name)`` for each tag finds, comparing bytes in place, without a proxy
    for the elements nobody wants."""
    cdef tree.xmlNode* top = context._c_node
    cdef tree.xmlNode* node = top
    cdef _Document doc = context._doc
    cdef const char* addresses[256]
    cdef int indexes[256]
    cdef int index
    cdef list wanted = list(tags)
    require_element(context)
    memset(addresses, 0, sizeof(addresses))
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE and node.ns is NULL and (
            include_self or node is not top
        ):
            index = _cached_index(addresses, indexes, <const char*>node.name, wanted)
            if index >= 0:
                _add_matches(node, doc, <tuple>plans[index], found)
        node = _next_node(node, top, True)


cdef int _add_matches(tree.xmlNode* node, _Document doc, tuple plan, dict found) except -1:
    cdef tree.xmlAttr* attr
    element = None
    for name, pairs in plan:
        attr = NULL
        if name:
            attr = _find_attribute(node, <bytes>name)
            if attr is NULL:
                continue
        for value, expressions in <tuple>pairs:
            if (attr is NULL and not value) or (attr is not NULL and _value_is(node, attr, value)):
                if element is None:
                    element = cetree.elementFactory(doc, node)
                for expression in <tuple>expressions:
                    (<list>found[expression]).append(element)
    return 0


# Tags looked up by their name's address (libxml2 keeps one copy of each name in the
# document's dictionary), in a table on the stack: a walk that allocates a kilobyte on the
# heap pays, just after a page's tree was freed, for the allocator sorting its chunks
# (about 30 us, ten times the walk's cost).
cdef struct TagFlags:
    const char* names[64]
    int flags[64]


cdef int tag_flags(TagFlags* cache, tree.xmlNode* node, tuple sets) except -1:
    """Bit ``i`` set when the element's tag (as lxml gives it) is in ``sets[i]``."""
    cdef const char* name = <const char*>node.name
    cdef size_t slot = ((<size_t>name) >> 3) & 63
    cdef int flags = 0, i
    if node.ns is NULL and cache.names[slot] == name:
        return cache.flags[slot]
    tag = cetree.namespacedName(node) if node.ns is not NULL else cetree.pyunicode(node.name)
    for i in range(len(sets)):
        if tag in <frozenset>sets[i]:
            flags |= 1 << i
    if node.ns is NULL:
        cache.names[slot] = name
        cache.flags[slot] = flags
    return flags


cdef bint _may_be_noise(tree.xmlNode* node, TagFlags* tags, tuple tag_sets,
                        frozenset archive_ids, tuple hiding) except -1:
    """Whether cleaning may remove the element for what it is itself: a noise tag, an
    archive's id, or (not a block element) an attribute that may hide it."""
    cdef int flags = tag_flags(tags, node, tag_sets)  # 1: noise, 2: block
    if flags & 1:
        return True
    if node.properties is NULL:
        return False
    if archive_ids and has_attribute(node, b"id") and attribute(node, b"id") in archive_ids:
        return True
    if flags & 2:
        return False
    for name in hiding:
        if has_attribute(node, <bytes>name):
            return True
    return False


def kept_by_cleaning(list elements not None, frozenset noise_tags not None,
                     frozenset block_tags not None, frozenset archive_ids not None,
                     tuple hiding not None, is_noise) -> list:
    """The elements that neither are nor lie inside an element cleaning removes, in order.
    ``is_noise(element)`` gives the verdict; it is asked only of the elements on the way up
    that may be noise by their tag or attributes (the others never are)."""
    cdef TagFlags tags
    cdef tuple tag_sets = (noise_tags, block_tags)
    cdef tree.xmlNode* node
    cdef list kept = []
    cdef bint removed
    memset(&tags, 0, sizeof(TagFlags))
    for element in elements:
        node = (<_Element?>element)._c_node
        removed = False
        while node is not NULL and node.type == tree.XML_ELEMENT_NODE:
            if _may_be_noise(node, &tags, tag_sets, archive_ids, hiding):
                if is_noise(cetree.elementFactory((<_Element>element)._doc, node)):
                    removed = True
                    break
            node = node.parent
        if not removed:
            kept.append(element)
    return kept


def named_candidates(_Element region not None, frozenset noise_tags not None,
                     dict verdicts not None, judge) -> list:
    """The elements below ``region``, in document order, that are named as noise: by their tag,
    or by their "id class" name, whose verdict is looked up in ``verdicts`` or else asked of
    ``judge(name)``."""
    cdef tree.xmlNode* top = region._c_node
    cdef tree.xmlNode* node = _next_node(top, top, True)
    cdef TagFlags tags
    cdef tuple tag_sets = (noise_tags,)
    cdef list found = []
    require_element(region)
    memset(&tags, 0, sizeof(TagFlags))
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE:
            if tag_flags(&tags, node, tag_sets):
                found.append(cetree.elementFactory(region._doc, node))
            elif node.properties is not NULL and _named(node, verdicts, judge):
                found.append(cetree.elementFactory(region._doc, node))
        node = _next_node(node, top, True)
    return found


cdef bint _named(tree.xmlNode* node, dict verdicts, judge) except -1:
    ident = attribute(node, b"id")
    classes = attribute(node, b"class")
    if not ident and not classes:
        return False
    name = f"{ident or ''} {classes or ''}"
    verdict = verdicts.get(name)
    if verdict is None:
        verdict = judge(name)
    return bool(verdict)


def structured_parts(_Element root not None, bint scripts) -> tuple:
    """What a page says of itself, in one walk of ``root``'s tree (itself included): its meta
    tags (name, property or itemprop, lower-cased, the first of each -> content, stripped),
    its first ``<title>``, the ``href`` of its first ``<link rel=canonical>`` (None without
    one) and, when ``scripts``, its ``<script>`` elements."""
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* node = top
    cdef const char* name
    cdef dict meta = {}
    cdef list found_scripts = []
    title = canonical = None
    require_element(root)
    while node is not NULL:
        if node.type == tree.XML_ELEMENT_NODE and node.ns is NULL:
            name = <const char*>node.name
            if strcmp(name, b"meta") == 0:
                if node.properties is not NULL:
                    _add_meta(node, meta)
            elif strcmp(name, b"title") == 0:
                if title is None:
                    title = cetree.elementFactory(root._doc, node)
            elif strcmp(name, b"link") == 0:
                if canonical is None and node.properties is not NULL:
                    rel = attribute(node, b"rel")
                    if rel is not None and (<str>rel).lower() == "canonical":
                        canonical = attribute(node, b"href") or ""
            elif scripts and strcmp(name, b"script") == 0:
                found_scripts.append(cetree.elementFactory(root._doc, node))
        node = _next_node(node, top, True)
    return meta, title, canonical, found_scripts


cdef int _add_meta(tree.xmlNode* node, dict meta) except -1:
    key = attribute(node, b"property") or attribute(node, b"name") or attribute(node, b"itemprop")
    if not key:
        return 0
    content = attribute(node, b"content")
    if content:
        key = (<str>key).lower()
        if key not in meta:
            meta[key] = (<str>content).strip()
    return 0

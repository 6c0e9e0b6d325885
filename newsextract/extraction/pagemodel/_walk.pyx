# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The page model's walk over libxml2's own tree, compiled.

lxml's tree is read in place through lxml's public C API: nodes are never freed, unlinked
or changed here (lxml's proxies may point at any of them), and the walk is a loop with
explicit parent links, never recursion, so a page nested 100,000 deep costs no C stack.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy, strlen
from lxml.includes cimport etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Document, _Element

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


cdef class _Runs:
    """The walk's state: the open run of text, the owners' stack and the runs closed."""

    cdef Buffer text
    cdef Buffer scratch  # one text or tail, when it spans several text nodes
    cdef bint content
    cdef list tags
    cdef list attrs
    cdef Py_ssize_t link_chars
    cdef Py_ssize_t in_link
    cdef list runs
    cdef _Document doc

    def __cinit__(self):
        self.tags = []
        self.attrs = []
        self.runs = []

    def __dealloc__(self):
        free(self.text.data)
        free(self.scratch.data)

    cdef int close(self, tree.xmlNode* owner, Py_ssize_t depth, bint hidden) except -1:
        """Close the open run: a run when it holds real text (blocks.py normalises it)."""
        if self.content:
            self.runs.append(
                (
                    cetree.elementFactory(self.doc, owner),
                    PyUnicode_DecodeUTF8(self.text.data, self.text.size, NULL),
                    depth,
                    self.link_chars,
                    tuple(self.tags),
                    tuple(self.attrs),
                    hidden,
                )
            )
            self.tags = []
            self.attrs = []
            self.content = False
        elif self.tags:
            self.tags = []
            self.attrs = []
        self.text.size = 0
        self.link_chars = 0
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
        cdef object value
        for name in (b"title", b"alt"):
            value = cetree.attributeValueFromNsName(
                node, NULL, <tree.const_xmlChar*><const char*>name
            )
            if value and not value.isspace():
                self.attrs.append(value.strip())
        return 0


cdef str tag_of(tree.xmlNode* node, dict names):
    """The node's tag as lxml gives it ("{namespace}name" in a namespace)."""
    if node.ns is not NULL:
        return cetree.namespacedName(node)
    key = <bytes>(<const char*>node.name)
    tag = names.get(key)
    if tag is None:
        tag = names[key] = cetree.pyunicode(node.name)
    return tag


def block_runs(_Element root not None, hidden, frozenset block_tags not None) -> list:
    """The runs of direct text of ``root``'s tree, as :func:`blocks.split_blocks` cuts it:
    ``(owner element, raw text, depth, link chars, inline tags, attribute texts, hidden)``
    for each run with real text, in document order. ``hidden``: hidden block elements."""
    cdef _Runs state = _Runs()
    cdef tree.xmlNode* top = root._c_node
    cdef tree.xmlNode* node
    cdef tree.xmlNode* parent
    cdef Py_ssize_t count = 0, depth = 0, capacity = 64
    cdef size_t* hidden_nodes = NULL
    cdef tree.xmlNode** owners = NULL
    cdef bint* hiding = NULL
    cdef bint is_block
    cdef dict names = {}
    cdef str tag
    state.doc = root._doc
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
                tag = tag_of(node, names)
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
                tag = tag_of(node, names)
                if tag in block_tags:
                    state.close(owners[depth], depth, hiding[depth])
                    depth += 1
                    if depth == capacity:
                        capacity *= 2
                        owners = <tree.xmlNode**>_grow(owners, capacity * sizeof(tree.xmlNode*))
                        hiding = <bint*>_grow(hiding, capacity * sizeof(bint))
                    owners[depth] = node
                    hiding[depth] = hiding[depth - 1] or contains(hidden_nodes, count, <size_t>node)
                else:
                    state.add_inline(node, tag)
                    if tag == "a":
                        state.in_link += 1
                if node.children is not NULL:
                    parent = node
                    node = node.children
                    continue
                # An empty element's end tag at once.
                if tag in block_tags:
                    state.close(owners[depth], depth, hiding[depth])
                    depth -= 1
                else:
                    state.end_inline(tag)
                node = node.next
                continue
            if node.type == tree.XML_ENTITY_REF_NODE:  # lxml reads "&name;" as its text
                state.tags.append("")
                entity = f"&{cetree.pyunicode(node.name)};".encode()
                state.add_text(<const char*>entity, len(entity))
            node = node.next  # comments and processing instructions: only their tails count
        if top.type == tree.XML_ELEMENT_NODE:  # the root's end tag, then its tail, as iterwalk
            tag = tag_of(top, names)
            if tag not in block_tags:
                state.end_inline(tag)
        if top.next is not NULL and (is_text(top.next) or is_skipped(top.next)):
            state.add_text_nodes(top.next)
        state.close(owners[0], 0, hiding[0])
        return state.runs
    finally:
        free(hidden_nodes)
        free(owners)
        free(hiding)


cdef void* _grow(void* data, size_t size) except NULL:
    cdef void* grown = realloc(data, size)
    if grown is NULL:
        raise MemoryError()
    return grown

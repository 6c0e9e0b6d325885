"""The compiled page model against the Python walk it replaced (tests/reference_blocks.py).

Every field of every block must be identical (elements by identity): on hand-made trees that
the parser never makes (entities, CDATA, nested links, namespaces, 100,000 levels), on pages
in every encoding the tests cover, on generated and mutated pages (hypothesis), and on
subtrees, as the template fast path cuts them. Also: the one-line error of a checkout whose
extension was never built.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from functools import cache

import pytest
from devdata import SHARED_DATA, require_set
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree
from reference_blocks import first_difference, reference_split_blocks
from test_extraction_encoding import CHINESE, FRENCH, JAPANESE

from newsextract.evaluation.dataset import read_manifest
from newsextract.exceptions import NewsExtractError
from newsextract.extraction.pagemodel.blocks import Block, split_blocks
from newsextract.extraction.pagemodel.compiled import text_chars
from newsextract.extraction.pagemodel.page import clean_tree, parse_html, parse_page

Tree = tuple[etree._Element, set[etree._Element] | None]


def assert_same_blocks(
    root: etree._Element, hidden: set[etree._Element] | None
) -> tuple[Block, ...]:
    """The compiled walk cuts ``root``'s tree as the reference does, field by field."""
    expected = reference_split_blocks(root, hidden)
    found = split_blocks(root, hidden)
    assert first_difference(found, expected) is None, [b.text for b in expected]
    return expected


def cleaned_tree(
    body: bytes | str,
    content_type: str | None = None,
    refusals: tuple[type[Exception], ...] = (NewsExtractError,),
) -> tuple[etree._Element, set[etree._Element]] | None:
    """The tree as the page model parses and cleans it, with its hidden blocks; None when
    the page is refused."""
    try:
        parsed = parse_html(body, content_type)
        return parsed.root, clean_tree(parsed.root)
    except refusals:
        return None


#: What the generated and mutated pages may raise before the walk: typed errors only (a
#: control character that a character reference put in the tree, ``&#1;``, once raised lxml's
#: ValueError when cleaning joined texts; such characters now become spaces there).
PARSE_REFUSALS = (NewsExtractError,)


def assert_same_on_tree(root: etree._Element, hidden: set[etree._Element]) -> tuple[Block, ...]:
    """Compare on the tree and on every subtree (which finds its own hidden blocks)."""
    assert_same_blocks(root, hidden)
    for element in root.iter(etree.Element):
        assert_same_blocks(element, None)
    return reference_split_blocks(root, hidden)


def xml(markup: str, **options: bool) -> etree._Element:
    return etree.fromstring(markup, etree.XMLParser(**options))


def html(markup: str) -> etree._Element:
    return etree.fromstring(markup, etree.HTMLParser())


# --- hand-made trees --------------------------------------------------------------------


def tag_of(level: int) -> str:
    return ("div", "span", "a", "p", "b")[level % 5]


@cache
def deep_chain(levels: int, piece: int = 200) -> etree._Element:
    """A tree ``levels`` elements deep, each with text, a child and a tail, grafted from parsed
    pieces: lxml's SubElement checks every ancestor, so building it element by element takes
    quadratic time, and libxml2 parses no piece deeper than 256."""
    root: etree._Element | None = None
    deepest: etree._Element | None = None
    for start in range(0, levels, piece):
        numbers = range(start, start + piece)
        opened = "".join(f"<{tag_of(n)} title=' t{n} '>t{n}<br/>" for n in numbers)
        closed = "".join(f"</{tag_of(n)}> tail{n}" for n in reversed(numbers[1:]))
        part = xml(opened + closed + f"</{tag_of(start)}>")
        part.tail = f" tail{start}"
        if deepest is None:
            root = part
        else:
            deepest.append(part)
        deepest = part
        for _ in range(piece - 1):
            deepest = deepest[-1]
    assert root is not None
    return root


def with_comments_and_pis() -> Tree:
    root = html("<html><body><div>a<p>b</p></div></body></html>")
    div, p = root.find(".//div"), root.find(".//p")
    assert div is not None and p is not None
    p.insert(0, etree.Comment(" first "))
    p[0].tail = " after comment "
    p.append(etree.ProcessingInstruction("pi", "data"))
    p.append(etree.Comment("no tail"))
    p.append(etree.ProcessingInstruction("x"))
    p[-1].tail = "pi tail"
    div.insert(0, etree.Comment("c"))
    div.append(etree.Comment("last"))
    div[-1].tail = " div tail "
    return root, None


def with_entities() -> Tree:
    root = html("<html><body><p>x</p><div><a href=y>link</a></div></body></html>")
    p, a = root.find(".//p"), root.find(".//a")
    assert p is not None and a is not None
    p.append(etree.Entity("amp"))
    p[-1].tail = " and more"
    p.append(etree.Entity("#38"))
    p.insert(0, etree.Entity("lt"))  # before the first text of a run
    a.append(etree.Entity("nbsp"))  # inside a link: its "&nbsp;" counts as link text
    a[-1].tail = " tail"
    return root, None


def with_declared_entities() -> Tree:
    markup = '<!DOCTYPE r [<!ENTITY e "v"><!ENTITY f "<b>w</b>">]><r><p>x &e; y &f;</p></r>'
    return xml(markup, resolve_entities=False), None


def with_cdata_and_adjacent_text() -> Tree:
    root = xml("<r><p>a<![CDATA[ b ]]>c<!--x-->d<![CDATA[]]></p><div><![CDATA[\u3000]]></div></r>")
    root.append(etree.Element("p"))
    root[-1].text = etree.CDATA(" cdata <b> text ")
    return root, None


def with_nested_links() -> Tree:
    root = etree.Element("div")
    outer = etree.SubElement(root, "a")
    outer.text = " outer "
    inner = etree.SubElement(outer, "a")
    inner.text = " inner "
    inner.tail = " back in outer "
    block = etree.SubElement(inner, "p")
    block.text = "block in a link"
    block.tail = " after block "
    outer.tail = " plain"
    return root, None


def with_hidden(root_hidden: bool) -> Tree:
    root = html(
        "<html><body><div id=h>a<p>b<span>c</span></p>d<ul><li>e</li></ul></div>"
        "<p id=v>f</p><span id=s>g</span></body></html>"
    )
    hidden = {root.find(f".//*[@id='{name}']") for name in ("h", "s")}  # s: inline, ignored
    hidden.add(etree.Element("p"))  # an element of another tree
    if root_hidden:
        hidden.add(root)
    return root, hidden


def inline_root_with_tail() -> Tree:
    root = html(
        "<html><body><p>x <a href=y title=t>link <b>bold</b></a> tail <br>z</p></body></html>"
    )
    link = root.find(".//a")
    assert link is not None
    return link, None


def namespaced() -> Tree:
    markup = (
        '<r xmlns="urn:x" xmlns:h="urn:h"><p>a<b>b</b></p><h:p title=" t ">c</h:p>'
        '<div xmlns="">d<p>e</p></div></r>'
    )
    return xml(markup), None


TREES: dict[str, Callable[[], Tree]] = {
    "100000 levels": lambda: (deep_chain(100_000), None),
    "empty element": lambda: (etree.Element("div"), None),
    "empty inline element": lambda: (etree.Element("span"), None),
    "root with text only": lambda: (xml("<span> \u3000a b </span>"), None),
    "comments and processing instructions": with_comments_and_pis,
    "entities": with_entities,
    "declared entities": with_declared_entities,
    "cdata and adjacent text": with_cdata_and_adjacent_text,
    "br runs": lambda: (html("<p><br><br>a<br><br> <br>b<br></p><p><br>c<a><br></a></p>"), None),
    "nested links": with_nested_links,
    "whitespace titles": lambda: (
        html(
            "<p><span title=' \u3000 '>a</span><img alt='\n'><img alt=' x '><b title=''>c</b></p>"
        ),
        None,
    ),
    "non-ascii spaces at run starts": lambda: (
        html(
            "<div>\u3000<p>\u00a0a</p>\u2028<p>\u2028\u3000</p>\u3000b<a>\u00a0\u3000</a>"
            "<p><a>\u3000link\u00a0</a></p>\u0085<p>\u200bz</p></div>"
        ),
        None,
    ),
    "inline root with a tail": inline_root_with_tail,
    "br root with a tail": lambda: (html("<p>a<br>b</p>").find(".//br"), None),
    "hidden blocks": lambda: with_hidden(root_hidden=False),
    "hidden root": lambda: with_hidden(root_hidden=True),
    "namespaced tags": namespaced,
}


EMPTY_TREES = frozenset({"empty element", "empty inline element"})


@pytest.mark.parametrize("name", TREES)
def test_compiled_walk_matches_the_reference_on_edge_cases(name: str) -> None:
    root, hidden = TREES[name]()
    expected = assert_same_blocks(root, hidden)
    assert bool(expected) is (name not in EMPTY_TREES)  # something was compared
    if hidden:
        assert any(block.hidden for block in expected)


def test_subtrees_of_a_deep_tree_match_the_reference() -> None:
    root = deep_chain(2_000)
    for element in list(root.iter())[::97]:
        assert_same_blocks(element, None)


PARSED_PAGES = {
    "empty": "",
    "white space": " \n ",
    "empty html": "<html></html>",
    "empty body": "<html><body></body></html>",
    "only a comment": "<!-- only a comment -->",
    "only a declaration": "<?xml version='1.0'?>",
    "deeper than libxml2 parses": "<html><body>" + "<div>x" * 5_000 + "</body></html>",
    "blocks in inline elements, deep": "<html><body>" + "<span><p>y" * 3_000 + "</body></html>",
}


@pytest.mark.parametrize("markup", PARSED_PAGES.values(), ids=PARSED_PAGES.keys())
def test_compiled_walk_matches_the_reference_on_parsed_pages(markup: str) -> None:
    tree = cleaned_tree(markup)
    if tree is not None:  # None: not a document, the walk never runs
        assert_same_on_tree(*tree)


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        (JAPANESE, "shift_jis"),
        (JAPANESE, "euc_jp"),
        (CHINESE, "gb18030"),
        (FRENCH, "cp1252"),
        (JAPANESE + CHINESE + FRENCH, "utf-8"),
    ],
    ids=["shift_jis", "euc_jp", "gb18030", "cp1252", "utf-8"],
)
@pytest.mark.parametrize("declared", [False, True], ids=["detected", "declared"])
def test_compiled_walk_matches_the_reference_in_every_encoding(
    text: str, encoding: str, declared: bool
) -> None:
    """The pages of tests/test_extraction_encoding.py, with a link and a title added."""
    markup = f"<div title='{text[3:9]}'>{text}<a href=x>{text[3:9]}</a>\u3000</div>"
    body = f"<html><body>{markup}</body></html>".encode(encoding, "xmlcharrefreplace")
    content_type = f"text/html; charset={encoding}" if declared else None
    tree = cleaned_tree(body, content_type)
    assert tree is not None
    blocks = assert_same_on_tree(*tree)
    assert [b.text for b in parse_page(body, None, content_type).blocks] == [b.text for b in blocks]
    assert blocks[0].text.startswith(text[3:9])  # decoded as written: the walk saw real text


def declared_entity() -> etree._Element:
    entity = xml('<!DOCTYPE r [<!ENTITY e "v"><!ENTITY f "w">]><r>&e;</r>', resolve_entities=False)[
        0
    ]
    entity.tail = " tail"
    return entity


NON_ELEMENTS: dict[str, Callable[[], etree._Element]] = {
    "comment": lambda: etree.Comment("text"),
    "processing instruction": lambda: etree.ProcessingInstruction("pi", "text"),
    "entity": lambda: etree.Entity("amp"),
    "declared entity": declared_entity,  # its children pointer is the DTD's declaration
}


@pytest.mark.parametrize("kind", NON_ELEMENTS)
def test_a_root_that_is_no_element_is_refused_as_the_reference_refuses_it(kind: str) -> None:
    root = NON_ELEMENTS[kind]()
    with pytest.raises(ValueError):
        reference_split_blocks(root, set())
    with pytest.raises(ValueError):
        split_blocks(root, set())


# --- generated and mutated pages (hypothesis) ------------------------------------------

WORDS = st.sampled_from(
    [" ", "\n", "\u3000", "\u00a0", "\u2028", "\u200b", "word", "Zürich", "東京", "&amp;", "&#12;"]
)
VOIDS = st.sampled_from(
    ["<br>", "<img alt=' '>", "<img alt=' x '>", "<!-- c -->", "<?pi x?>", "<![CDATA[ c ]]>", ""]
)
OPENING = st.sampled_from(
    [
        "div",
        "p",
        "li",
        "td",
        "h2",
        "a href=x",
        "b",
        "span title=' t '",
        "em title='\u3000'",
        "div hidden",
        "p style='display:none'",
        "span aria-hidden=true",
        "x:p",
        "noscript",
        "script",
    ]
)


def _element(opening: str, children: list[str]) -> str:
    return f"<{opening}>{''.join(children)}</{opening.split()[0]}>"


TREES_MARKUP = st.recursive(
    st.one_of(WORDS, VOIDS),
    lambda children: st.builds(_element, OPENING, st.lists(children, max_size=5)),
    max_leaves=40,
)
SOUP = st.lists(
    st.one_of(WORDS, VOIDS, st.sampled_from(["<div>", "</div>", "<p>", "<a href=x>", "</a>"])),
    max_size=30,
).map("".join)
ENCODINGS = st.sampled_from(["utf-8", "cp1252", "shift_jis", "euc_jp", "gb18030"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(TREES_MARKUP, SOUP), ENCODINGS)
@example("<a href=x>link<div>inner</div>tail</a>more<br><i>x</i>", "utf-8")
@example("<p>\u3000<br>\u2028</p><div><span title=' '>\u00a0</span></div>x", "gb18030")
def test_compiled_walk_matches_the_reference_on_generated_pages(markup: str, codec: str) -> None:
    body = f"<html><body>{markup}</body></html>".encode(codec, "xmlcharrefreplace")
    tree = cleaned_tree(body, f"text/html; charset={codec}", PARSE_REFUSALS)
    if tree is not None:
        assert_same_on_tree(*tree)


#: A few development pages to mutate, spread over the set (read in place).
MUTATED_PAGES = 4


@cache
def development_pages() -> tuple[bytes, ...]:
    folder = require_set(SHARED_DATA, "dragnet")
    entries = list(read_manifest(folder / "manifest.jsonl"))
    step = len(entries) // MUTATED_PAGES
    return tuple(entry.read_html() for entry in entries[::step][:MUTATED_PAGES])


SNIPPETS = st.sampled_from(
    ["<div>", "</p>", "<a href=x>", "</a>", "<br>", "<!--", "-->", "<![CDATA[", "&#12;", "\x00"]
)
MUTATION = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 2**20), st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("cut"), st.integers(0, 2**20), st.integers(0, 2**20)),
    st.tuples(st.just("insert"), st.integers(0, 2**20), SNIPPETS.map(str.encode)),
)


def mutated(page: bytes, mutations: list[tuple[str, int, object]]) -> bytes:
    for kind, at, value in mutations:
        at %= len(page) + 1
        if kind == "flip" and isinstance(value, bytes):
            page = page[:at] + value + page[at + len(value) :]
        elif kind == "cut" and isinstance(value, int):
            page = page[at : at + value]
        elif isinstance(value, bytes):
            page = page[:at] + value + page[at:]
    return page


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, MUTATED_PAGES - 1), st.lists(MUTATION, min_size=1, max_size=6))
def test_compiled_walk_matches_the_reference_on_mutated_pages(
    which: int, mutations: list[tuple[str, int, object]]
) -> None:
    tree = cleaned_tree(mutated(development_pages()[which], mutations), None, PARSE_REFUSALS)
    if tree is None:
        return
    root, hidden = tree
    assert_same_blocks(root, hidden)
    elements = list(root.iter(etree.Element))
    for element in elements[:: max(1, len(elements) // 5)]:
        assert_same_blocks(element, None)


# --- trees built with lxml's API (hypothesis): nodes no parsed page holds -------------------

TEXTS = st.one_of(st.none(), st.sampled_from(["", " ", "\u3000", "\u00a0\u2028", "a", " b c "]))
API_TAGS = st.sampled_from(["p", "div", "li", "a", "b", "br", "span", "{urn:x}p", "{urn:x}a"])


@st.composite
def api_tree(draw: st.DrawFn, depth: int = 0) -> etree._Element:
    """An element with text, title and alt, and children of every node kind, each with a tail."""
    element = etree.Element(draw(API_TAGS))
    element.text = draw(TEXTS)
    for name in draw(st.lists(st.sampled_from(["title", "alt"]), max_size=2, unique=True)):
        element.set(name, draw(st.sampled_from([" ", "\u3000", " t "])))
    for _ in range(draw(st.integers(0, 4 if depth < 4 else 0))):
        kind = draw(st.sampled_from(["element", "element", "comment", "pi", "entity", "cdata"]))
        if kind == "element":
            child = draw(api_tree(depth + 1))
        elif kind == "comment":
            child = etree.Comment(draw(st.sampled_from(["", "c"])))
        elif kind == "pi":
            child = etree.ProcessingInstruction("pi", draw(st.sampled_from(["", "d"])))
        elif kind == "entity":
            child = etree.Entity(draw(st.sampled_from(["amp", "nbsp", "#38", "#x3000"])))
        else:
            child = etree.Element(draw(API_TAGS))
            child.text = etree.CDATA(draw(st.sampled_from(["", " ", "x <y>"])))
        element.append(child)
        child.tail = draw(TEXTS)
    return element


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(api_tree(), st.data())
def test_compiled_walk_matches_the_reference_on_trees_built_with_lxml(
    root: etree._Element, data: st.DataObject
) -> None:
    elements = list(root.iter(etree.Element))
    hidden = set(data.draw(st.lists(st.sampled_from(elements), max_size=3)))
    assert_same_blocks(root, hidden)
    for element in elements:
        assert_same_blocks(element, None)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(api_tree())
def test_text_is_counted_as_lxml_iterates_it(root: etree._Element) -> None:
    for element in root.iter(etree.Element):
        assert text_chars(element) == sum(map(len, element.itertext()))


# --- a checkout whose extension was never built -----------------------------------------

HIDE_EXTENSION = {
    "sys.modules entry None": (
        "import sys; sys.modules['newsextract.extraction.pagemodel._walk'] = None"
    ),
    "import blocked": (
        "import sys\n"
        "class Blocker:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.endswith('pagemodel._walk'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Blocker())"
    ),
}


@pytest.mark.parametrize("how", HIDE_EXTENSION)
def test_an_unbuilt_extension_fails_with_one_line_naming_the_fix(how: str) -> None:
    script = (
        HIDE_EXTENSION[how]
        + "\nimport json\ntry:\n    import newsextract.extraction.pagemodel.blocks\n"
        "except ImportError as error:\n    print(json.dumps(str(error)))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    message = json.loads(run.stdout)
    assert "\n" not in message
    assert "compiled page model is not built" in message
    assert "pip install -e ." in message

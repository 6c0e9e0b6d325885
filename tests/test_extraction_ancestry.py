"""What an element inherits from its ancestors, read by the compiled walk up."""

from __future__ import annotations

from lxml import etree, html

from newsextract.extraction.pagemodel.ancestry import Inherited

PAGE = """<html><body class="layout"><div id="menu"><ul><li><a href="/">Home</a></li></ul></div>
<main><article class="story"><p>One <b>bold</b> word.</p><dialog><p>Sure?</p></dialog>
<div role="dialog"><span>x</span></div></article></main><footer><p>(c)</p></footer>
</body></html>"""


def own(element: etree._Element) -> int:
    """1 for a class, 2 for an id, 4 for a role, 8 for a <dialog>."""
    return (
        bool(element.get("class"))
        | bool(element.get("id")) << 1
        | bool(element.get("role")) << 2
        | (element.tag == "dialog") << 3
    )


def inherited_by_python(element: etree._Element, stop: frozenset[str]) -> int:
    flags = 0
    node: etree._Element | None = element
    while node is not None and node.tag not in stop:
        flags |= own(node)
        node = node.getparent()
    return flags


def test_flags_are_those_of_the_element_and_its_ancestors_up_to_a_stop_tag() -> None:
    root = html.fromstring(PAGE)
    stop = frozenset({"body"})
    inherited = Inherited(own, stop)
    for element in root.iter(etree.Element):
        assert inherited(element) == inherited_by_python(element, stop), element.tag


def test_elements_without_the_attributes_read_are_not_judged() -> None:
    root = html.fromstring(PAGE)
    judged: list[str] = []

    def counting(element: etree._Element) -> int:
        judged.append(element.tag)
        return own(element)

    inherited = Inherited(counting, frozenset(), (b"class", b"id", b"role"), frozenset({"dialog"}))
    for element in root.iter(etree.Element):
        assert inherited(element) == inherited_by_python(element, frozenset()), element.tag
    assert sorted(judged) == ["article", "body", "dialog", "div", "div"]

"""The comment section's heading ends the article: blogs whose comment containers have names
that say nothing, in English, German, Japanese and WordPress's "N Responses to “Title”";
forums, Q&A pages, a section called "Comment" and a heading before the article keep what
follows."""

from __future__ import annotations

import json

import numpy as np
import pytest

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.decision import combiner
from newsextract.extraction.decision.comments import (
    MAX_HEADINGS,
    MIN_ARTICLE_CHARS,
    before_comments_heading,
    is_comments_heading,
)

ARTICLE = [
    "The council approved the new cycle lanes on Tuesday evening after a debate that lasted "
    "almost four hours and drew the largest public gallery of the year.",
    "Work on the first stretch, between the station and the market square, is to begin in "
    "March and should take about eleven weeks, the council's engineers said.",
    "Shop owners on the route had asked for deliveries to be allowed in the mornings, and the "
    "final plan keeps two loading bays on each side of the street.",
]
COMMENTS = [
    "About time too. I have been cycling to the station for years and the junction by the bank "
    "is a nightmare every single morning.",
    "Posted by: Harriet | March 2, 2026 8:14 AM",
    "Eleven weeks of roadworks in the busiest street of the town, right before the summer "
    "season starts. Who plans these things?",
    "Posted by: Tom | March 2, 2026 9:02 AM",
]
assert sum(map(len, ARTICLE)) >= MIN_ARTICLE_CHARS


def _page(heading: str, *, head: str = "", article: list[str] = ARTICLE) -> str:
    paragraphs = "".join(f"<p>{text}</p>" for text in article)
    comments = "".join(f"<p>{text}</p>" for text in COMMENTS)
    return (
        f"<html><head>{head}</head><body><div class='entry'>{paragraphs}</div>"
        f"<div class='box'>{heading}{comments}</div></body></html>"
    )


def _kept(html: str) -> list[str]:
    page = parse_page(html.encode(), "https://blog.example.com/2026/03/cycle-lanes")
    kept = before_comments_heading(tuple(range(len(page.blocks))), page)
    return [page.blocks[i].text for i in kept]


@pytest.mark.parametrize(
    "heading",
    [
        "<h2>Comments</h2>",
        "<h3>12 Comments</h3>",
        "<h3>1 Comment</h3>",
        "<h2>Comments (2)</h2>",
        "<h4>COMMENTS:</h4>",
        "<h3>2 Responses to “Cycle lanes approved”</h3>",
        "<h3>One thought on “Cycle lanes approved”</h3>",
        "<h2>Kommentare</h2>",
        "<h2>3 Kommentare</h2>",
        "<h2>コメント</h2>",
    ],
)
def test_the_comment_sections_heading_ends_the_article(heading: str) -> None:
    assert _kept(_page(heading)) == ARTICLE


@pytest.mark.parametrize(
    "text",
    ["Comment", "Recent Comments", "34", "5/10", "Leave a Reply", "20 replies to this topic"],
)
def test_other_headings_end_nothing(text: str) -> None:
    assert _kept(_page(f"<h2>{text}</h2>")) == [*ARTICLE, text, *COMMENTS]


def test_a_comments_line_that_is_no_heading_ends_nothing() -> None:
    html = _page("<p>Comments</p>")
    assert _kept(html) == [*ARTICLE, "Comments", *COMMENTS]
    page = parse_page(html.encode())
    assert not any(is_comments_heading(block) for block in page.blocks)


def test_a_heading_before_the_article_ends_nothing() -> None:
    html = _page("<h2>Comments</h2>", article=ARTICLE[:1])
    assert len(ARTICLE[0]) < MIN_ARTICLE_CHARS
    assert _kept(html) == [*ARTICLE[:1], "Comments", *COMMENTS]


def test_a_page_of_many_posts_keeps_them() -> None:
    post = "".join(f"<p>{text}</p>" for text in ARTICLE) + "<h3>4 Comments</h3>"
    html = f"<html><body>{post * (MAX_HEADINGS + 1)}</body></html>"
    assert len(_kept(html)) == (len(ARTICLE) + 1) * (MAX_HEADINGS + 1)


@pytest.mark.parametrize(
    "head",
    [
        '<script type="application/ld+json">'
        + json.dumps({"@context": "https://schema.org", "@type": "DiscussionForumPosting"})
        + "</script>",
        '<script type="application/ld+json">'
        + json.dumps({"@type": ["WebPage", "QAPage"]})
        + "</script>",
    ],
)
def test_a_forum_thread_or_a_question_keeps_its_replies(head: str) -> None:
    assert _kept(_page("<h2>Comments</h2>", head=head)) == [*ARTICLE, "Comments", *COMMENTS]


def test_a_question_declared_in_microdata_keeps_its_answers() -> None:
    html = _page("<h2>Comments</h2>").replace(
        "<body>", '<body itemscope itemtype="https://schema.org/QAPage">'
    )
    assert _kept(html) == [*ARTICLE, "Comments", *COMMENTS]


def test_the_article_comes_out_without_the_comments_under_their_heading() -> None:
    article = extract_article(parse_page(_page("<h2>Comments</h2>").encode()))
    assert article.body.splitlines() == ARTICLE


def _thread(head: str) -> str:
    post = "".join(f"<p>{text}</p>" for text in ARTICLE)
    replies = "".join(f"<div class='comment'><p>{text}</p></div>" for text in COMMENTS[::2])
    return f"<html><head>{head}</head><body><div>{post}</div>{replies}</body></html>"


def test_a_declared_thread_keeps_the_replies_in_its_comment_containers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    everything = lambda page, *rest: np.full(len(page.blocks), 0.9)  # noqa: E731
    monkeypatch.setattr(combiner, "combined_scores", everything)
    forum = '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>'
    thread = extract_article(parse_page(_thread(forum).encode())).body.splitlines()
    assert thread == [*ARTICLE, *COMMENTS[::2]]
    blog = extract_article(parse_page(_thread("").encode())).body.splitlines()
    assert blog == ARTICLE


@pytest.mark.parametrize(("post_holder", "comments_kept"), [("article", False), ("div", True)])
def test_a_short_post_in_an_article_leaves_out_the_longer_comments_below_it(
    monkeypatch: pytest.MonkeyPatch, post_holder: str, comments_kept: bool
) -> None:
    """The comments outweigh the post, as a forum's posts outweigh its heading; only an
    ``<article>`` holding the post, and none of the comments, tells an article apart."""
    everything = lambda page, *rest: np.full(len(page.blocks), 0.9)  # noqa: E731
    monkeypatch.setattr(combiner, "combined_scores", everything)
    post = f"<{post_holder}><p>{ARTICLE[0]}</p></{post_holder}>"
    replies = "".join(f"<div class='comment'><p>{text}</p></div>" for text in COMMENTS[::2] * 2)
    body = extract_article(parse_page(f"<html><body>{post}{replies}</body></html>".encode())).body
    assert body.startswith(ARTICLE[0])
    assert (COMMENTS[0] in body) is comments_kept

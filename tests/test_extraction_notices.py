"""Rights notices are left out of the body; a paragraph about copyright is not."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newsextract.extraction import extract_article, parse_page
from newsextract.extraction.decision import notices
from newsextract.extraction.decision.notices import (
    NOTICE_MAX_WORDS,
    USE_NOTICE_MAX_WORDS,
    is_rights_notice,
    without_rights_notices,
)

ARTICLE = [
    "The harbour authority said on Monday that the new ferry terminal will open in May, two "
    "months later than planned, after storms damaged the pier last winter.",
    "Passengers will be able to buy tickets at the terminal and online, and the old waiting "
    "room will become a small museum of the island's shipping history.",
]


@pytest.mark.parametrize(
    "text",
    [
        "Copyright 2012 Dow Jones & Company, Inc. All Rights Reserved",
        "© 2026 Harbour Gazette",
        "(c) 2025 The Example Times",
        "Alle Rechte vorbehalten.",
        "Tous droits réservés © Le Journal",
        "版权所有 © 2026 新闻网",
        "For personal non-commercial use only.",
    ],
)
def test_a_rights_notice_is_left_out(text: str) -> None:
    words = np.array([30.0, 30.0, len(text.split())])
    assert without_rights_notices((0, 1, 2), [*ARTICLE, text], words) == (0, 1)


def test_a_paragraph_about_copyright_stays() -> None:
    text = (
        "The court ruled that the photographer kept the copyright of the picture, and that all "
        "rights reserved by the agency's contract did not extend to the magazine's later uses "
        "of it, a decision lawyers said would matter to every freelance photographer working for "
        "newspapers in the country."
    )
    assert len(text.split()) > NOTICE_MAX_WORDS
    assert not is_rights_notice(text, len(text.split()))


def test_the_article_comes_out_without_the_notice_among_its_paragraphs() -> None:
    # Between two kept paragraphs, the article's container would take the notice in.
    first, second = (f"<p>{text}</p>" for text in ARTICLE)
    notice = "<p>Copyright 2026 Harbour Gazette. All Rights Reserved</p>"
    html = f"<html><body><article>{first}{notice}{second}</article></body></html>"
    assert extract_article(parse_page(html.encode())).body.splitlines() == ARTICLE


def test_a_notice_of_the_terms_of_use_is_left_out_though_longer() -> None:
    text = (
        "This copy is for your personal, non-commercial use only. Distribution and use of this "
        "material are governed by our Subscriber Agreement and by copyright law. For "
        "non-personal use or to order multiple copies, please contact Dow Jones Reprints at "
        "1-800-843-0008 or visit www.djreprints.com."
    )
    assert NOTICE_MAX_WORDS < len(text.split()) <= USE_NOTICE_MAX_WORDS
    assert is_rights_notice(text, len(text.split()))
    assert not is_rights_notice(text, USE_NOTICE_MAX_WORDS + 1)


_PIECES = st.sampled_from(
    [
        *"copyrightalsevdnbu ()\u00a9C\u00c9\u017b\u0130\u0131\u017f\u212a",
        "2024",
        "r\u00e9serv\u00e9s",
    ]
    + [
        "\u7248\u6743\u6240\u6709",
        "\u8457\u4f5c\u6a29",
        "ALL RIGHTS RESERVED",
        "non-commercial use",
    ]
)


@given(st.lists(_PIECES, min_size=1, max_size=14).map("".join))
def test_a_text_without_a_key_is_no_notice_by_either_pattern(text: str) -> None:
    if notices._NOTICE.search(text) or notices._USE_NOTICE.search(text):
        assert notices._has_key(text)

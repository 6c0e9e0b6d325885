"""Extraction end to end on news pages built here, so that a clone without the development data
still checks that the shipped model reads a real-looking article whole: headline, date, byline,
navigation, related links, comments and footer around six or more paragraphs, in English, in
Russian and in Japanese served as Shift_JIS bytes.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import pytest

from newsextract.extraction import extract_article, parse_page

ENGLISH = [
    "The harbour authority confirmed on Monday that the old grain pier will close to ships at "
    "the end of the month, after divers found that its timber piles had rotted below the "
    "waterline.",
    "Engineers had inspected the pier every spring for a decade, but the last survey showed "
    "that the damage had spread much faster than expected during the wet winter.",
    "The three freighters that still call there each week will move to the container quay on "
    "the other side of the bay, which the authority says has room for them until the autumn.",
    "Fishermen who land their catch at the pier will keep a small berth at its landward end, "
    "where the piles were replaced with concrete when the fish market was built.",
    "The authority has not yet decided whether to repair the pier or pull it down; a report on "
    "the cost of each choice is due before the board meets again in January.",
    "Local historians have asked that the pier's iron cranes be kept whatever happens, since "
    "they are the last of their kind on this stretch of the coast.",
    "A public meeting about the closure will be held at the maritime museum next Thursday, and "
    "the authority has promised to answer every question that residents send in beforehand.",
]

RUSSIAN = [
    "Городской совет в понедельник утвердил план ремонта старого моста через реку, который "
    "закрыли для грузовиков ещё прошлой осенью после проверки его опор.",
    "По словам инженеров, работы начнутся в марте и продлятся около полутора лет, а движение "
    "для пешеходов и велосипедистов сохранится на всё это время.",
    "Автобусы, которые сейчас ходят в объезд через промышленный район, вернутся на прежний "
    "маршрут только после того, как мост полностью откроют.",
    "Жители прибрежных улиц попросили совет ограничить ночные работы, и в плане появился пункт "
    "о том, что шумные машины будут работать только днём.",
    "Стоимость ремонта оказалась ниже, чем ожидали, потому что часть старых металлических "
    "балок можно оставить, укрепив их новыми креплениями.",
    "Городской музей уже договорился забрать чугунные фонари с перил моста, чтобы после "
    "ремонта вернуть их на место в отреставрированном виде.",
    "Следующее обсуждение проекта пройдёт в библиотеке на набережной, куда приглашают всех, "
    "кто хочет задать вопросы подрядчику.",
]

JAPANESE = [
    "市は月曜日、老朽化した市民体育館を来年の春から建て替えると発表した。新しい体育館は同じ場所に建てられ、二年後の完成を目指す。",
    "工事の間、体育館を使っていた地域のクラブは近くの小学校と高校の施設を借りて練習を続ける。市はすでに学校側と調整を始めている。",
    "新しい体育館には、車いすでも使いやすい観客席と、災害のときに避難所として使える広い倉庫が設けられる予定だ。",
    "建設費は国の補助金と市の積立金でまかなう。市の担当者は、住民の新たな負担はないと説明している。",
    "説明会に参加した住民からは、駐車場をもっと広くしてほしいという意見や、夜間の利用時間を延ばしてほしいという声が上がった。",
    "市は寄せられた意見をもとに設計を見直し、秋までに最終的な計画をまとめる方針だ。",
    "次の説明会は来月、市役所の大会議室で開かれる。事前の申し込みは必要ない。",
]


@dataclass(frozen=True)
class Words:
    """The words around the article, in the page's language."""

    site: str
    headline: str
    byline: str
    sections: tuple[str, ...]
    related: tuple[str, ...]
    comments: tuple[str, ...]
    footer: str
    lang: str


ENGLISH_WORDS = Words(
    site="The Harbour Gazette",
    headline="Old grain pier to close after divers find rotten piles",
    byline="By our shipping correspondent",
    sections=("Home", "Local", "Business", "Sport", "Weather", "Opinion", "Contact us"),
    related=(
        "Ferry timetable changes for the winter season",
        "New lighthouse keeper takes up the post",
        "Fish market to open on Sundays from next year",
    ),
    comments=(
        "About time too, that pier has looked unsafe for years.",
        "Please keep the cranes, they are part of the town.",
    ),
    footer="Copyright 2026 The Harbour Gazette. All rights reserved. Privacy policy. Terms.",
    lang="en",
)
RUSSIAN_WORDS = Words(
    site="Городские новости",
    headline="Совет утвердил ремонт старого моста",
    byline="Автор: отдел городских новостей",
    sections=("Главная", "Город", "Экономика", "Спорт", "Погода", "Мнения", "Контакты"),
    related=(
        "Новое расписание автобусов на зиму",
        "В парке открылась обновлённая библиотека",
        "Набережную украсят к празднику",
    ),
    comments=("Наконец-то, мост давно пора чинить.", "Надеюсь, фонари правда вернут на место."),
    footer="© 2026 Городские новости. Все права защищены. Политика конфиденциальности.",
    lang="ru",
)
JAPANESE_WORDS = Words(
    site="市民新聞",
    headline="市民体育館、来春から建て替え",
    byline="社会部",
    sections=("ホーム", "地域", "経済", "スポーツ", "天気", "社説", "お問い合わせ"),
    related=("図書館の開館時間を延長", "駅前の再開発計画がまとまる", "夏祭りの日程が決定"),
    comments=("駐車場が広くなるとうれしいです。", "工事中の練習場所が心配です。"),
    footer="Copyright 2026 市民新聞 All rights reserved. 無断転載を禁じます。",
    lang="ja",
)


def news_page(words: Words, paragraphs: list[str], charset: str = "utf-8") -> str:
    """A news article page laid out as news sites do."""
    e = html.escape
    nav = "".join(
        f'<li><a href="/section/{i}">{e(s)}</a></li>' for i, s in enumerate(words.sections)
    )
    related = "".join(
        f'<li><a href="/news/{i}.html">{e(r)}</a></li>' for i, r in enumerate(words.related)
    )
    comments = "".join(
        f'<li class="comment"><span class="user">reader{i}</span><p>{e(c)}</p></li>'
        for i, c in enumerate(words.comments)
    )
    body = "".join(f"<p>{e(p)}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="{words.lang}"><head><meta charset="{charset}">
<title>{e(words.headline)} | {e(words.site)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"><script src="/static/site.js"></script>
</head><body>
<header class="site-header"><a class="logo" href="/">{e(words.site)}</a>
<nav class="main-nav"><ul>{nav}</ul></nav>
<form class="search" action="/search"><input name="q"><button>Search</button></form></header>
<main><article class="story">
<h1 class="headline">{e(words.headline)}</h1>
<div class="meta"><span class="byline">{e(words.byline)}</span>
<time datetime="2026-11-23T09:30:00+00:00">2026-11-23 09:30</time></div>
<div class="story-body">{body}</div>
<div class="share"><a href="/share/mail">Mail</a> <a href="/share/print">Print</a></div>
</article>
<aside class="related"><h2>Related</h2><ul>{related}</ul></aside>
<section class="comments"><h2>Comments (2)</h2><ol>{comments}</ol>
<form action="/comment"><textarea name="text"></textarea><button>Send</button></form></section>
</main>
<footer class="site-footer"><ul>{nav}</ul><p>{e(words.footer)}</p></footer>
</body></html>"""


CASES = {
    "english": (news_page(ENGLISH_WORDS, ENGLISH).encode(), ENGLISH, ENGLISH_WORDS),
    "russian": (news_page(RUSSIAN_WORDS, RUSSIAN).encode(), RUSSIAN, RUSSIAN_WORDS),
    "shift_jis": (
        news_page(JAPANESE_WORDS, JAPANESE, charset="Shift_JIS").encode("shift_jis"),
        JAPANESE,
        JAPANESE_WORDS,
    ),
}


def _leaked(words: Words, body: str) -> list[str]:
    """The text around the article found in the body: a navigation entry as a line of its own
    (its word may well occur in a paragraph), longer pieces anywhere."""
    lines = set(body.split("\n"))
    short = [text for text in (*words.sections, words.site) if text in lines]
    long = [text for text in (*words.related, *words.comments, words.footer) if text in body]
    return short + long


@pytest.mark.parametrize("name", list(CASES))
def test_the_body_is_every_paragraph_and_nothing_around_them(name: str) -> None:
    data, paragraphs, words = CASES[name]
    article = extract_article(parse_page(data, url=f"https://news.example/{name}.html"))
    assert article.body.split("\n") == paragraphs
    leaked = _leaked(words, article.body)
    assert not leaked, f"navigation, related links, comments or footer in the body: {leaked}"


@pytest.mark.parametrize("name", list(CASES))
def test_the_headline_and_date_are_read(name: str) -> None:
    data, _, words = CASES[name]
    article = extract_article(parse_page(data, url=f"https://news.example/{name}.html"))
    assert article.headline == words.headline
    assert article.date_published.startswith("2026-11-23")
    assert not article.body.startswith(words.headline)


def test_the_shift_jis_page_is_bytes_that_are_not_utf8() -> None:
    data, paragraphs, _ = CASES["shift_jis"]
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert paragraphs[0].encode("shift_jis") in data

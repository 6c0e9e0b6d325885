"""Build a mirror news site at test time from page groups of the development data.

The pages stay in ``shared/data``; the mirror is written into a temporary directory
and served by ``tests/site_server.py``. It holds:

- articles at ``/article/<n>.html``: pages of the five ``msv_big9_dev`` sites and the four
  ``cleanportaleval`` portals, plus re-encoded pages (GB18030, Shift_JIS, EUC-JP, cp1252,
  declared in the HTTP header, in a meta tag or not at all) and a page with control
  characters; one article is reachable only through a 301 redirect;
- listings: ``/index.html`` -> ``/section/<slug>/index.html`` -> ``page-2.html`` ...;
- ``/sitemap.xml``, ``/sitemap_index.xml`` (two parts), ``/feed.xml`` (RSS), ``/atom.xml``,
  ``/robots.txt`` (with its sitemap and one disallowed article);
- id-range URLs ``/news/<id>.html`` for ids 1-40 with gaps (404);
- injected faults: a dead link, a 500, a slow page, a redirect loop, a PDF and a binary
  body served as ``text/html``, a page disallowed by robots.txt, a real page that holds
  no article.

Which URL holds which gold text stays in this process (:class:`Mirror`); the server
only serves files.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape
from itertools import zip_longest
from pathlib import Path

from newsextract.evaluation.dataset import ManifestEntry, read_manifest
from newsextract.extraction.pagemodel.encoding import decode_html

#: Pages taken from each site of a group: 8 keeps a full crawl of the mirror to a few seconds.
PAGES_PER_SITE_DEFAULT = 8
#: Articles a listing page shows before its "next page" link.
LISTING_PAGE_SIZE_DEFAULT = 5
#: Seconds the slow page waits: well over the DOWNLOAD_TIMEOUT the tests set (6 s).
SLOW_DELAY_DEFAULT = 15.0
#: The id range served at /news/<id>.html and its gaps (a run of three misses included).
NEWS_IDS = range(1, 41)
NEWS_GAPS = frozenset({5, 12, 13, 14, 27, 33})
#: Dates for sitemap lastmod and feed pubDate: the first half of the articles is old.
OLD_DATE = date(2026, 1, 10)
NEW_DATE = date(2026, 7, 1)
SINCE_SPLIT = "2026-06-01"

# data set, grouping field, the groups taken; msv pages are spread over their four years.
_SOURCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("msv_big9_dev", "site", ("bbc.co.uk", "cnn.com", "foxnews.com", "latimes.com", "nypost.com")),
    (
        "cleanportaleval",
        "site_group",
        (
            "bbc.co.uk_news",
            "blogs.wsj.com_brussels",
            "tv.msnbc.com_news",
            "washingtonpost.com_blog1",
        ),
    ),
)
# (chinese_wced id prefix, served encoding, where it is declared)
_GB18030_PAGES = (("2397c95d", "header"), ("36efbc69", "meta"), ("274a65d9", "none"))
# (cleanportaleval id, where cp1252 is declared); both are UTF-8 originals with curly quotes
_CP1252_PAGES = (("tv.msnbc.com_news_16", "header"), ("tv.msnbc.com_news_17", "none"))
CONTROL_PAGE = "tv.msnbc.com_news_18"
# A portal page whose gold text says it holds no article: served as a fault, not an article.
_NO_ARTICLE_PAGE = "bbc.co.uk_news_04"
_CONTROL_CHARS = "\x01\x0b\x0c\x1b"
_REDIRECT_TARGET_PAGE = "tv.msnbc.com_news_20"
_META_REFRESH = re.compile(rb"<meta[^>]+http-equiv=[\"']?refresh[^>]*>", re.I)
_META_CHARSET = re.compile(r"<meta[^>]*charset[^>]*>", re.I)
_HEAD = re.compile(rb"<head[^>]*>", re.I)
_PNG_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 16
_PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


@dataclass(frozen=True)
class MirrorArticle:
    """One article page of the mirror and the gold text it must yield."""

    path: str
    gold: str
    lang: str
    source: str  # "<data set>/<id>" or "own/<slug>"
    section: str
    encoding: str  # the bytes' encoding as served
    declared: str  # "original", "header", "meta" or "none"
    published: str  # ISO date used in the sitemap and feeds


@dataclass(frozen=True)
class Fault:
    """An injected failure: the URL path, what is wrong, and the HTTP status if one is sent."""

    path: str
    kind: str
    status: int | None


@dataclass(frozen=True)
class Mirror:
    root: Path
    origin: str
    articles: tuple[MirrorArticle, ...]
    faults: tuple[Fault, ...]
    redirect_from: str  # a 301 to an article no listing links to
    redirect_to: str
    listings: tuple[str, ...]  # every listing page path
    news_ids: dict[int, MirrorArticle]  # id -> article served at /news/<id>.html

    def url(self, path: str) -> str:
        return self.origin + path

    def article_by_url(self) -> dict[str, MirrorArticle]:
        return {self.url(article.path): article for article in self.articles}


@dataclass(frozen=True)
class _Page:
    """An article before it is written: its bytes, route headers and gold text."""

    body: bytes
    gold: str
    lang: str
    source: str
    section: str
    encoding: str = "original"
    declared: str = "original"
    headers: tuple[tuple[str, str], ...] = ()


def build_mirror(
    root: Path, shared_data: Path, origin: str, per_site: int = PAGES_PER_SITE_DEFAULT
) -> Mirror:
    """Write the mirror site into ``root`` (served at ``origin``) and describe it."""
    pages = [*_data_pages(shared_data, per_site), *_encoded_pages(shared_data), *_own_pages()]
    pages.append(_control_page(shared_data))
    routes: dict[str, dict[str, object]] = {}
    articles = _write_articles(root, pages, routes)
    hidden = _write_redirect_target(root, shared_data, len(articles) + 1)
    faults = _write_faults(root, routes, slow_body=articles[0].path)
    faults += (_write_no_article(root, shared_data),)
    routes["/article/903.html"] = {"status": 301, "location": hidden.path}
    listings = _write_listings(root, articles, faults)
    everything = (*articles, hidden)
    _write_sitemaps(root, origin, everything)
    _write_feeds(root, origin, everything)
    _write_robots(root, origin, faults)
    news_ids = _write_news_ids(root, articles)
    (root / "_routes.json").write_text(json.dumps(routes, indent=1), encoding="utf-8")
    return Mirror(
        root=root,
        origin=origin,
        articles=everything,
        faults=faults,
        redirect_from="/article/903.html",
        redirect_to=hidden.path,
        listings=listings,
        news_ids=news_ids,
    )


# --- pages -----------------------------------------------------------------------------


def _data_pages(shared_data: Path, per_site: int) -> Iterable[_Page]:
    reserved = {CONTROL_PAGE, _REDIRECT_TARGET_PAGE, _NO_ARTICLE_PAGE}
    reserved |= {pid for pid, _ in _CP1252_PAGES}
    for folder, field, groups in _SOURCES:
        entries = [e for e in read_manifest(shared_data / folder) if e.id not in reserved]
        for group in groups:
            members = _spread([e for e in entries if e.group_key(field) == group])
            section = re.sub(r"[^a-z0-9]+", "-", group.lower()).strip("-")
            for entry in members[:per_site]:
                yield _Page(
                    _localise(entry.read_html(), entry),
                    entry.read_gold(),
                    entry.lang,
                    f"{folder}/{entry.id}",
                    section,
                )


def _spread(entries: list[ManifestEntry]) -> list[ManifestEntry]:
    """A site's pages in id order, taking the years in turn so the first few cover every
    template the site had (msv pages have a ``year``; other sets keep plain id order)."""
    by_year: dict[str, list[ManifestEntry]] = {}
    for entry in sorted(entries, key=lambda e: e.id):
        by_year.setdefault(str(entry.fields.get("year") or ""), []).append(entry)
    rows = zip_longest(*(by_year[year] for year in sorted(by_year)))
    return [entry for row in rows for entry in row if entry is not None]


def _localise(html: bytes, entry: ManifestEntry) -> bytes:
    """Keep the page's own links off the mirror: a <base> to its original site first in
    <head>, and no meta refresh (which would send the crawler to a page that is not here)."""
    host = entry.fields.get("host") or entry.fields.get("site") or entry.fields.get("domain")
    base = f'<base href="http://{host or "example.org"}/">'.encode()
    html = _META_REFRESH.sub(b"", html)
    match = _HEAD.search(html)
    if match is None:
        return base + html
    return html[: match.end()] + base + html[match.end() :]


def _entry(shared_data: Path, folder: str, id_prefix: str) -> ManifestEntry:
    return next(e for e in read_manifest(shared_data / folder) if e.id.startswith(id_prefix))


def _reencode(folder: str, entry: ManifestEntry, encoding: str, declared: str) -> _Page:
    text = decode_html(_localise(entry.read_html(), entry), None).text
    label = {"gb18030": "GB18030", "cp1252": "windows-1252"}.get(encoding, encoding)
    meta = f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'
    text = _META_CHARSET.sub(meta if declared == "meta" else "", text, count=1)
    text = _META_CHARSET.sub("", text)
    header = (("Content-Type", f"text/html; charset={label}"),) if declared == "header" else ()
    return _Page(
        text.encode(encoding, "xmlcharrefreplace"),
        entry.read_gold(),
        entry.lang,
        f"{folder}/{entry.id}",
        "encodings",
        encoding,
        declared,
        header,
    )


def _encoded_pages(shared_data: Path) -> Iterable[_Page]:
    for prefix, declared in _GB18030_PAGES:
        entry = _entry(shared_data, "chinese_wced", prefix)
        yield _reencode("chinese_wced", entry, "gb18030", declared)
    for page_id, declared in _CP1252_PAGES:
        entry = _entry(shared_data, "cleanportaleval", page_id)
        yield _reencode("cleanportaleval", entry, "cp1252", declared)


def _control_page(shared_data: Path) -> _Page:
    """A page whose paragraphs hold C0 control characters (an XML export must survive them)."""
    entry = _entry(shared_data, "cleanportaleval", CONTROL_PAGE)
    html = _localise(entry.read_html(), entry)
    html = html.replace(b"</p>", _CONTROL_CHARS.encode() + b"</p>", 3)
    html = html.replace(b"<title>", b"<title>" + _CONTROL_CHARS.encode(), 1)
    return _Page(html, entry.read_gold(), entry.lang, f"cleanportaleval/{entry.id}", "encodings")


def _own_pages() -> Iterable[_Page]:
    """Japanese articles written for the mirror, served as Shift_JIS and EUC-JP."""
    for (slug, title, paragraphs), (encoding, declared) in zip(
        JAPANESE_ARTICLES,
        (("shift_jis", "header"), ("euc_jp", "meta"), ("shift_jis", "none")),
        strict=True,
    ):
        label = {"shift_jis": "Shift_JIS", "euc_jp": "EUC-JP"}[encoding]
        html = render_article(title, paragraphs, label if declared == "meta" else None)
        header = (("Content-Type", f"text/html; charset={label}"),) if declared == "header" else ()
        gold = "\n".join(paragraphs)
        yield _Page(
            html.encode(encoding),
            gold,
            "ja",
            f"own/{slug}",
            "encodings",
            encoding,
            declared,
            header,
        )


def _write_articles(
    root: Path, pages: list[_Page], routes: dict[str, dict[str, object]]
) -> list[MirrorArticle]:
    articles = []
    for number, page in enumerate(pages, 1):
        path = f"/article/{number}.html"
        _write(root, path, page.body)
        if page.headers:
            routes[path] = {"headers": dict(page.headers)}
        published = OLD_DATE if number <= len(pages) // 2 else NEW_DATE
        articles.append(
            MirrorArticle(
                path,
                page.gold,
                page.lang,
                page.source,
                page.section,
                page.encoding,
                page.declared,
                (published + timedelta(days=number)).isoformat(),
            )
        )
    return articles


def _write_redirect_target(root: Path, shared_data: Path, number: int) -> MirrorArticle:
    entry = _entry(shared_data, "cleanportaleval", _REDIRECT_TARGET_PAGE)
    path = f"/article/{number}.html"
    _write(root, path, _localise(entry.read_html(), entry))
    return MirrorArticle(
        path,
        entry.read_gold(),
        entry.lang,
        f"cleanportaleval/{entry.id}",
        "hidden",
        "original",
        "original",
        (NEW_DATE + timedelta(days=number)).isoformat(),
    )


def _write_faults(
    root: Path, routes: dict[str, dict[str, object]], slow_body: str
) -> tuple[Fault, ...]:
    """The fault URLs, all shaped like articles so the crawl treats them as such."""
    _write(root, "/files/report.pdf", _PDF_BYTES)
    _write(root, "/article/906.html", _PNG_BYTES)  # binary bytes served as text/html
    _write(root, "/article/907.html", b"<html><body><p>disallowed</p></body></html>")
    routes["/article/901.html"] = {"status": 500}
    routes["/article/902.html"] = {"delay": SLOW_DELAY_DEFAULT, "file": slow_body.lstrip("/")}
    routes["/article/904.html"] = {"status": 302, "location": "/loop/a.html"}
    routes["/loop/a.html"] = {"status": 302, "location": "/article/904.html"}
    routes["/article/905.html"] = {
        "file": "files/report.pdf",
        "headers": {"Content-Type": "application/pdf"},
    }
    return (
        Fault("/article/900.html", "dead-link", 404),
        Fault("/article/901.html", "server-error", 500),
        Fault("/article/902.html", "timeout", None),
        Fault("/article/904.html", "redirect-loop", None),
        Fault("/article/905.html", "non-html", 200),
        Fault("/article/906.html", "binary-as-html", 200),
        Fault("/article/907.html", "robots", None),
    )


def _write_no_article(root: Path, shared_data: Path) -> Fault:
    """A real page with no main text (its gold is empty): it must become a failure record."""
    entry = _entry(shared_data, "cleanportaleval", _NO_ARTICLE_PAGE)
    assert not re.search(r"\w", re.sub(r"<!--.*?-->", "", entry.read_gold())), entry.id
    _write(root, "/article/908.html", _localise(entry.read_html(), entry))
    return Fault("/article/908.html", "no-article", 200)


# --- listings, sitemaps, feeds ------------------------------------------------------------


def _write_listings(
    root: Path, articles: list[MirrorArticle], faults: tuple[Fault, ...]
) -> tuple[str, ...]:
    sections: dict[str, list[MirrorArticle]] = {}
    for article in articles:
        sections.setdefault(article.section, []).append(article)
    listings = ["/index.html"]
    for section, members in sections.items():
        listings += _write_section(root, section, members)
    links = [(f"/section/{s}/index.html", s.replace("-", " ")) for s in sections]
    links += [(f.path, f"Breaking: {f.kind}") for f in faults]
    links += [("/article/903.html", "Moved story")]  # a 301 to an article listed nowhere else
    links += [("/files/report.pdf", "Annual report (PDF)")]
    _write(root, "/index.html", render_listing("Mirror news", links, None).encode())
    return tuple(listings)


def _write_section(root: Path, section: str, members: list[MirrorArticle]) -> list[str]:
    size = LISTING_PAGE_SIZE_DEFAULT
    chunks = [members[i : i + size] for i in range(0, len(members), size)]
    paths = [f"/section/{section}/index.html"]
    paths += [f"/section/{section}/page-{n}.html" for n in range(2, len(chunks) + 1)]
    for number, chunk in enumerate(chunks):
        following = paths[number + 1] if number + 1 < len(paths) else None
        links = [(a.path, f"Story {a.path.rsplit('/', 1)[-1]}") for a in chunk]
        _write(root, paths[number], render_listing(section, links, following).encode())
    return paths


def _write_sitemaps(root: Path, origin: str, articles: Iterable[MirrorArticle]) -> None:
    items = list(articles)
    _write(root, "/sitemap.xml", _urlset(origin, items))
    half = len(items) // 2
    parts = (items[:half], items[half:])
    for number, part in enumerate(parts, 1):
        _write(root, f"/sitemaps/part-{number}.xml", _urlset(origin, part))
    entries = "".join(
        f"<sitemap><loc>{origin}/sitemaps/part-{n}.xml</loc></sitemap>" for n in (1, 2)
    )
    index = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="{_SITEMAP_NS}">{entries}</sitemapindex>\n'
    )
    _write(root, "/sitemap_index.xml", index.encode())


_SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _urlset(origin: str, articles: Iterable[MirrorArticle]) -> bytes:
    urls = "".join(
        f"<url><loc>{origin}{a.path}</loc><lastmod>{a.published}</lastmod></url>\n"
        for a in articles
    )
    text = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{_SITEMAP_NS}">\n{urls}</urlset>\n'
    )
    return text.encode()


def feed_items(mirror: Mirror) -> tuple[MirrorArticle, ...]:
    """The articles the feeds list: the latest ten (by publication date)."""
    return tuple(sorted(mirror.articles, key=lambda a: a.published)[-10:])


def _write_feeds(root: Path, origin: str, articles: Iterable[MirrorArticle]) -> None:
    latest = sorted(articles, key=lambda a: a.published)[-10:]
    rss_items = "".join(
        f"<item><title>Story {a.path}</title><link>{origin}{a.path}</link>"
        f"<pubDate>{_rfc822(a.published)}</pubDate></item>\n"
        for a in latest
    )
    rss = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
        f"<title>Mirror news</title><link>{origin}/</link>\n{rss_items}</channel></rss>\n"
    )
    _write(root, "/feed.xml", rss.encode())
    entries = "".join(
        f'<entry><title>Story {a.path}</title><link href="{origin}{a.path}"/>'
        f"<id>{origin}{a.path}</id><updated>{a.published}T06:00:00Z</updated></entry>\n"
        for a in latest
    )
    atom = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<title>Mirror news</title><id>{origin}/</id>\n{entries}</feed>\n"
    )
    _write(root, "/atom.xml", atom.encode())


def _rfc822(iso_day: str) -> str:
    day = date.fromisoformat(iso_day)
    return day.strftime("%a, %d %b %Y 06:00:00 +0000")


def _write_robots(root: Path, origin: str, faults: tuple[Fault, ...]) -> None:
    disallowed = "".join(f"Disallow: {f.path}\n" for f in faults if f.kind == "robots")
    text = (
        f"User-agent: *\n{disallowed}Disallow: /private/\n\nSitemap: {origin}/sitemap_index.xml\n"
    )
    _write(root, "/robots.txt", text.encode())


def _write_news_ids(root: Path, articles: list[MirrorArticle]) -> dict[int, MirrorArticle]:
    """Copies of the first articles under id-range URLs, leaving the gaps unserved."""
    served = [i for i in NEWS_IDS if i not in NEWS_GAPS]
    news = {}
    for news_id, article in zip(served, articles, strict=False):
        shutil.copyfile(root / article.path.lstrip("/"), _target(root, f"/news/{news_id}.html"))
        news[news_id] = article
    return news


# --- HTML -------------------------------------------------------------------------------


def render_listing(title: str, links: list[tuple[str, str]], following: str | None) -> str:
    items = "".join(
        f'<li><a href="{escape(href)}">{escape(text)}</a></li>\n' for href, text in links
    )
    more = f'<p class="pager"><a href="{escape(following)}">Next page</a></p>' if following else ""
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title></head><body><h1>{escape(title)}</h1><ul>\n{items}</ul>{more}</body></html>\n"
    )


def render_article(title: str, paragraphs: Iterable[str], meta_charset: str | None) -> str:
    """A Japanese article page with a header, navigation, related links and a footer."""
    meta = (
        f'<meta http-equiv="Content-Type" content="text/html; charset={meta_charset}">'
        if meta_charset
        else ""
    )
    body = "".join(f"<p>{escape(p)}</p>\n" for p in paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="ja"><head>{meta}<title>{escape(title)}</title></head><body>'
        '<header><a href="/index.html">ミラー新聞</a></header>'
        '<nav><a href="/index.html">トップ</a> '
        '<a href="/section/encodings/index.html">地域</a></nav>'
        f"<main><article><h1>{escape(title)}</h1>\n{body}</article></main>"
        '<aside><h2>関連記事</h2><ul><li><a href="/index.html">ほかのニュース一覧へ</a>'
        "</li></ul></aside>"
        "<footer>このサイトは試験用です。</footer></body></html>\n"
    )


def _target(root: Path, url_path: str) -> Path:
    path = root / url_path.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _write(root: Path, url_path: str, data: bytes) -> None:
    _target(root, url_path).write_bytes(data)


# Three short articles written for the mirror (general topics, no names), in characters that
# Shift_JIS, cp932 and EUC-JP all map the same way (no wave dash, no long dashes).
JAPANESE_ARTICLES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "weather",
        "週末は広い範囲で雨、気温は平年並み",
        (
            "気象台によりますと、今週末は前線の影響で広い範囲で雨が降る見込みです。",
            "土曜日の朝から雨が降り始め、夕方には雨脚が強まるところがある見込みです。"
            "山沿いでは一時的に激しく降るおそれがあり、気象台は土砂災害に注意するよう呼びかけています。",
            "日曜日の午後には天気は回復に向かい、月曜日は晴れる見込みです。"
            "最高気温は平年並みで、朝晩は冷え込むため、服装で調節するよう勧めています。",
            "来週は高気圧に覆われて晴れる日が多く、空気が乾燥するため火の取り扱いにも注意が必要です。",
        ),
    ),
    (
        "timetable",
        "春のダイヤ改正、朝の快速列車を増発",
        (
            "鉄道会社は来月のダイヤ改正で、朝の通勤時間帯に快速列車を三本増やすと発表しました。",
            "改正後は都心方面への列車が平日の朝に十分おきに運転され、混雑の緩和が期待されています。"
            "一方で、利用の少ない深夜の普通列車は一部の区間で運転を取りやめます。",
            "駅の時刻表は改正の一週間前から順次張り替えられ、会社のホームページでも新しい時刻を確認できます。",
            "会社は、乗り換えの時間が変わる駅があるため、利用する列車の時刻を事前に確かめるよう呼びかけています。",
        ),
    ),
    (
        "festival",
        "港町で恒例の夏祭り、三年ぶりに花火大会も",
        (
            "港町の夏祭りが週末に開かれ、三年ぶりに花火大会が行われました。",
            "会場となった港の広場には朝から多くの家族連れが訪れ、地元の商店が出した屋台には長い列ができました。"
            "夕方には伝統のみこしが商店街を練り歩き、沿道から大きな声援が送られました。",
            "夜には港の沖合から約五千発の花火が打ち上げられ、海面に映る光に見物客から歓声が上がりました。",
            "実行委員会によりますと、二日間でおよそ八万人が訪れ、会場周辺の交通規制も大きな混乱なく終わったということです。",
        ),
    ),
)

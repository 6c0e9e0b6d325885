"""Keep what a crawl fetched as WARC files, to re-extract it later without a new crawl.

``NEWSEXTRACT_WARC_DIR`` (default off) names the folder; every response that reaches this
middleware becomes a ``response`` record there, in gzipped WARC files of at most
``NEWSEXTRACT_WARC_MAX_SIZE`` bytes (default 1 GB) named ``<spider>-<time>-<serial>.warc.gz``.
``newsextract batch --warc FILE`` reads them back.

It sits at 580 in DOWNLOADER_MIDDLEWARES, just after HttpCompressionMiddleware (590) on a
response's way in: the body written is the decoded one, and the headers say so
(:func:`newsextract.warc.writer.http_block`). Redirects have become new requests by then
(RedirectMiddleware, 600), so the archive holds the pages, not the hops.

Each record also says what the crawl made of the response, so that ``batch --warc --mode site``
can replay the crawl (:mod:`newsextract.warc.replay`): ``Newsextract-Kind`` is the kind of page
the spider asked for (``article`` for the pages its item pipeline reads, ``listing``,
``sitemap``, ``feed``, ``robots``, else ``other``), ``Newsextract-Site`` and
``Newsextract-Language`` what it writes into its pages' records. Each file's ``warcinfo`` record
holds the crawl's values of the settings its template stage reads.
"""

from __future__ import annotations

from pathlib import Path

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.statscollectors import StatsCollector

from newsextract.spiders.base import ITEM_CALLBACKS
from newsextract.warc.writer import (
    ARTICLE_KIND,
    KIND_FIELD,
    LANGUAGE_FIELD,
    MAX_SIZE_DEFAULT,
    SITE_FIELD,
    TEMPLATE_SETTINGS,
    WarcWriter,
    http_block,
)

#: The spider callbacks of the other kinds of page, ``parse_<kind>`` (ListingItem's kinds).
OTHER_KINDS = frozenset({"listing", "sitemap", "feed", "robots"})


class WarcArchive:
    def __init__(
        self,
        folder: Path,
        max_size: int,
        stats: StatsCollector | None = None,
        info: dict[str, str] | None = None,
    ) -> None:
        """``info``: the crawl's settings written into each file's warcinfo record."""
        self.folder = folder
        self.max_size = max_size
        self.stats = stats
        self.info = info or {}
        self.writer: WarcWriter | None = None
        self.spider: Spider | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WarcArchive:
        folder = crawler.settings.get("NEWSEXTRACT_WARC_DIR")
        if not folder:
            raise NotConfigured("NEWSEXTRACT_WARC_DIR is not set")
        max_size = crawler.settings.getint("NEWSEXTRACT_WARC_MAX_SIZE", MAX_SIZE_DEFAULT)
        settings = crawler.settings
        info = {name: str(settings[name]) for name in TEMPLATE_SETTINGS if name in settings}
        archive = cls(Path(folder), max(1, max_size), crawler.stats, info)
        crawler.signals.connect(archive.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(archive.spider_closed, signal=signals.spider_closed)
        return archive

    def spider_opened(self, spider: Spider) -> None:
        self.spider = spider
        info = sorted(self.info.items())
        self.writer = WarcWriter(self.folder, spider.name, self.max_size, "newsextract", info)

    def spider_closed(self, spider: Spider) -> None:
        if self.writer is not None:
            self.writer.close()

    def process_response(self, request: Request, response: Response) -> Response:
        if self.writer is None:
            return response
        headers = [
            (bytes(name), bytes(value))
            for name, values in response.headers.items()
            for value in values
        ]
        block = http_block(response.status, headers, response.body, response.protocol or "")
        self.writer.write_response(response.url, block, fields=self.fields(request, response))
        if self.stats is not None:
            self.stats.inc_value("newsextract/warc/records")
        return response

    def fields(self, request: Request, response: Response) -> list[tuple[str, str]]:
        """What the crawl makes of the response: its kind of page, site and language."""
        fields = []
        for name, value in (
            (KIND_FIELD, page_kind(request, response, self.spider)),
            (SITE_FIELD, getattr(self.spider, "site_name", "")),
            (LANGUAGE_FIELD, getattr(self.spider, "language", "")),
        ):
            if isinstance(value, str) and value:
                fields.append((name, value))
        return fields


def page_kind(request: Request, response: Response, spider: Spider | None) -> str:
    """The kind of page the request's callback reads; "" for a spider that is not one of the
    project's. A start page (``parse``) is judged by its URL, as
    ``newsextract.spiders.base.NewsSpider.parse`` does."""
    is_article = getattr(spider, "is_article", None)
    if not callable(is_article):
        return ""
    callback = request.callback
    name = getattr(callback, "__name__", "") if callback is not None else "parse"
    if name in ITEM_CALLBACKS:
        return ARTICLE_KIND
    if name == "parse":
        return ARTICLE_KIND if is_article(response.url) else "listing"
    kind = name.removeprefix("parse_")
    return kind if kind in OTHER_KINDS else "other"

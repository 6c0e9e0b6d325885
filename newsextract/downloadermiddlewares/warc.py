"""Keep what a crawl fetched as WARC files, to re-extract it later without a new crawl.

``NEWSEXTRACT_WARC_DIR`` (default off) names the folder; every response that reaches this
middleware becomes a ``response`` record there, in gzipped WARC files of at most
``NEWSEXTRACT_WARC_MAX_SIZE`` bytes (default 1 GB) named ``<spider>-<time>-<serial>.warc.gz``.
``newsextract batch --warc FILE`` reads them back.

It sits at 580 in DOWNLOADER_MIDDLEWARES, just after HttpCompressionMiddleware (590) on a
response's way in: the body written is the decoded one, and the headers say so
(:func:`newsextract.warc.writer.http_block`). Redirects have become new requests by then
(RedirectMiddleware, 600), so the archive holds the pages, not the hops.
"""

from __future__ import annotations

from pathlib import Path

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.statscollectors import StatsCollector

from newsextract.warc.writer import MAX_SIZE_DEFAULT, WarcWriter, http_block


class WarcArchive:
    def __init__(self, folder: Path, max_size: int, stats: StatsCollector | None = None) -> None:
        self.folder = folder
        self.max_size = max_size
        self.stats = stats
        self.writer: WarcWriter | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WarcArchive:
        folder = crawler.settings.get("NEWSEXTRACT_WARC_DIR")
        if not folder:
            raise NotConfigured("NEWSEXTRACT_WARC_DIR is not set")
        max_size = crawler.settings.getint("NEWSEXTRACT_WARC_MAX_SIZE", MAX_SIZE_DEFAULT)
        archive = cls(Path(folder), max(1, max_size), crawler.stats)
        crawler.signals.connect(archive.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(archive.spider_closed, signal=signals.spider_closed)
        return archive

    def spider_opened(self, spider: Spider) -> None:
        self.writer = WarcWriter(self.folder, spider.name, self.max_size, "newsextract")

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
        self.writer.write_response(response.url, block)
        if self.stats is not None:
            self.stats.inc_value("newsextract/warc/records")
        return response

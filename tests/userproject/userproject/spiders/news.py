"""A plain Scrapy spider: it follows the site's links and yields the article pages' responses;
the add-on turns them into article records."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response

ARTICLE = re.compile(r"/article/\d{4}/\d{2}/[\w-]+")


class NewsSpider(scrapy.Spider):
    name = "news"

    def __init__(self, start_url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start_url]
        self.allowed_domains = [urlsplit(start_url).hostname or ""]

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if ARTICLE.search(url):
                yield scrapy.Request(url, callback=self.parse_article)
            elif url.endswith(".html"):
                yield scrapy.Request(url, callback=self.parse)

    def parse_article(self, response: Response) -> Iterator[Any]:
        yield response

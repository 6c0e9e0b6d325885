"""Responses a spider yields become page items (``SPIDER_MIDDLEWARES`` 950).

Scrapy's item pipelines receive items, never responses. A spider of a project of your own
(with the :class:`~newsextract.addon.NewsExtract` add-on) can ``yield response`` in a callback
for each article page it wants read; this middleware turns it into the
:class:`~newsextract.items.PageItem` the template and extraction stages take, as the
project's own spiders build it. A response that is not an HTML page becomes a failure record
of stage ``content-type`` instead, as in the project's crawls. Requests and other items pass
untouched.

The record's ``site`` is the spider's ``site_name`` attribute if it has one, else the
registrable domain of the page's URL (as the project's ``site`` spider names it); its
``language`` hint, the spider's ``language`` attribute, if any.
"""

from __future__ import annotations

from typing import Any

from scrapy.http import Response
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from newsextract.extensions.failures import failure_recorded
from newsextract.extensions.jsonl import utc_now
from newsextract.items import FailureItem, PageItem
from newsextract.spiders.content import is_html, looks_binary, media_type
from newsextract.spiders.urls import site_of


class ResponsePages(BaseSpiderMiddleware):
    """Spider middleware: a yielded :class:`Response` becomes a :class:`PageItem`."""

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        return self.page_item(item) if isinstance(item, Response) else item

    def page_item(self, response: Response) -> PageItem | None:
        """The page, or None when it is not HTML (then a failure record says so)."""
        spider = self.crawler.spider
        site = str(getattr(spider, "site_name", "") or site_of(response.url))
        content_type = _content_type(response)
        if not is_html(content_type, response.body):
            declared = media_type(content_type) or "no Content-Type"
            why = "binary body" if looks_binary(response.body) else "not HTML"
            reason = f"not an HTML page ({declared}, {why})"
            failure = FailureItem(
                response.url, "content-type", reason, response.status, site, utc_now()
            )
            self.crawler.signals.send_catch_log(signal=failure_recorded, failure=failure)
            return None
        return PageItem(
            url=response.url,
            body=response.body,
            content_type=content_type,
            status=response.status,
            site=site,
            fetched_at=utc_now(),
            language=str(getattr(spider, "language", "") or ""),
        )


def _content_type(response: Response) -> str:
    value = response.headers.get(b"Content-Type")
    return value.decode("latin-1") if value else ""

"""``idrange``: fetch articles whose URLs hold a running number.

    scrapy crawl idrange -a url_template='https://host/news/{id:08d}.html' \\
        -a ids=1000-2000[:STEP] [-a max_misses=50] [-a window=4] -O articles.jsonl

``ids`` is ``START-END`` (inclusive), ``START-`` (open-ended) or one id, with an optional
``:STEP``. The crawl stops after ``max_misses`` consecutive ids (in id order) that gave no
page (404, error, not HTML), default the setting ``NEWSEXTRACT_MAX_MISSES``. With the
state store on, a re-run resumes after the highest id that gave a page, and ids whose URL
was harvested before are not requested again. A bad ``ids``, ``url_template``,
``max_misses`` or ``window`` stops the crawl before it starts, with one line naming it.

In shared mode (``NEWSEXTRACT_REDIS_URL``, with the state store on) the workers share the
range: each claims chunks of ``NEWSEXTRACT_ID_CHUNK`` ids in Redis, so that no two probe
the same id, and the stop rule counts the misses of every worker
(:mod:`newsextract.sharedmode.idpool`). With the state store off, each worker probes the
whole range.
"""

from __future__ import annotations

import re
import string
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import urlsplit

from scrapy.crawler import Crawler
from scrapy.http import Request, Response
from twisted.python.failure import Failure

from newsextract.sharedmode.idpool import ID_CHUNK_DEFAULT, IdPool
from newsextract.sharedmode.state import RedisStateStore
from newsextract.spiders.arguments import SpiderArgumentError, parsed, whole_number
from newsextract.spiders.base import VALUE_META, NewsSpider
from newsextract.spiders.urls import site_of
from newsextract.state import PendingRequest

#: Consecutive missing ids after which an id-range crawl stops. News sites delete or never
#: publish some ids; 50 bridged every gap seen in the id-numbered sites we profiled.
MAX_MISSES_DEFAULT = 50
#: Ids requested at once. Scrapy's per-site concurrency still applies; the window only
#: bounds how far past the last page the crawl may have asked before it learns of misses.
WINDOW_DEFAULT = 4

_IDS = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d*)\s*)?(?::\s*(\d+)\s*)?$")


@dataclass(frozen=True)
class IdRange:
    """Ids ``start, start+step, ...`` up to ``end`` (inclusive; None: no end)."""

    start: int
    end: int | None
    step: int = 1

    def contains(self, value: int) -> bool:
        return value >= self.start and (self.end is None or value <= self.end)

    def after(self, value: int) -> int:
        """The first id of the range greater than ``value``."""
        if value < self.start:
            return self.start
        return self.start + ((value - self.start) // self.step + 1) * self.step


def parse_ids(text: str) -> IdRange:
    """Read ``-a ids=``.

    >>> parse_ids("1000-2000:5")
    IdRange(start=1000, end=2000, step=5)
    >>> parse_ids("7-"), parse_ids("42")
    (IdRange(start=7, end=None, step=1), IdRange(start=42, end=42, step=1))
    """
    match = _IDS.match(text)
    if match is None:
        raise ValueError(
            f"ids: expected START-END[:STEP], START-[:STEP] or ID, e.g. 1000-2000, got {text!r}"
        )
    start = int(match[1])
    if match[2] is None:
        end: int | None = start if "-" not in text else None
    else:
        end = int(match[2]) if match[2] else None
    step = int(match[3]) if match[3] else 1
    if step < 1 or (end is not None and end < start):
        raise ValueError(f"ids: need START <= END and STEP >= 1, got {text!r}")
    return IdRange(start, end, step)


def check_template(template: str) -> str:
    """Accept an http(s) URL template whose only field is ``{id}`` (with any format spec).

    >>> check_template("https://a.jp/{id:08d}.html")
    'https://a.jp/{id:08d}.html'
    """
    fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    if fields != {"id"}:
        raise ValueError(f"url_template: needs exactly the field {{id}}, got {template!r}")
    url = template.format(id=1)  # a bad format spec fails here, before the crawl starts
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"url_template: needs an absolute http(s) URL, got {template!r}")
    return template


class MissRun:
    """Which ids answered, to tell when ``max_misses`` ids in a row (in id order) missed,
    whatever order the answers arrive in."""

    def __init__(self, last_hit: int, step: int, max_misses: int) -> None:
        self.last_hit = last_hit
        self.step = step
        self.max_misses = max_misses
        self.misses: set[int] = set()

    def hit(self, value: int) -> None:
        if value > self.last_hit:
            self.last_hit = value
            self.misses = {miss for miss in self.misses if miss > value}

    def miss(self, value: int) -> None:
        if value > self.last_hit:
            self.misses.add(value)

    def exhausted(self) -> bool:
        run = 0
        while self.last_hit + (run + 1) * self.step in self.misses:
            run += 1
            if run >= self.max_misses:
                return True
        return False


class IdRangeSpider(NewsSpider):
    name = "idrange"

    def __init__(
        self,
        *args: Any,
        url_template: str | None = None,
        ids: str | None = None,
        max_misses: str | int | None = None,
        window: str | int | None = None,
        language: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if not url_template or not ids:
            missing = "ids" if url_template else "url_template"
            problem = "required: give -a url_template=URL_WITH_{id} and -a ids=START-END"
            raise SpiderArgumentError(missing, problem)
        self.url_template = parsed("url_template", url_template, check_template)
        self.ids = parsed("ids", ids, parse_ids)
        self.max_misses = whole_number("max_misses", max_misses)
        self.window = whole_number("window", window) or WINDOW_DEFAULT
        self.site_name = site_of(self.url_for(self.ids.start))
        self.allowed_domains = [self.site_name]
        self.language = language or ""
        self.next_id = self.ids.start
        self.misses = MissRun(self.ids.start - self.ids.step, self.ids.step, MAX_MISSES_DEFAULT)
        self.pool: IdPool | None = None  # shared mode: the ids this worker claims in Redis

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.max_misses is None:
            spider.max_misses = crawler.settings.getint(
                "NEWSEXTRACT_MAX_MISSES", MAX_MISSES_DEFAULT
            )
        spider.misses.max_misses = spider.max_misses
        store = spider.ledger.store
        if isinstance(store, RedisStateStore):
            chunk = crawler.settings.getint("NEWSEXTRACT_ID_CHUNK", ID_CHUNK_DEFAULT)
            ids = spider.ids
            spider.pool = IdPool(
                store, spider.crawl_key(), ids.step, ids.end, spider.max_misses, chunk
            )
        return spider

    @property
    def progress_key(self) -> str:
        return f"idrange {self.url_template}"

    def crawl_key(self) -> str:
        return self.progress_key

    def url_for(self, value: int) -> str:
        return self.url_template.format(id=value)

    def is_article(self, url: str) -> bool:
        return True

    async def start(self) -> AsyncIterator[Any]:
        self.resume()
        if self.pool is not None:
            first = self.pool.begin(self.next_id)
            if first != self.next_id:
                self.logger.info(
                    "joining the shared round of %s from id %d", self.url_template, first
                )
        for request in self.recovered_requests():
            yield request
        for request in self.next_requests(self.window):
            yield request

    def idle_requests(self) -> Iterator[Request]:
        """Shared mode: the next ids of this worker's chunk, once it has nothing in flight.
        Each answer takes the next id from the pool of the worker that got it, and the queue
        is shared: a worker whose requests the others fetched would keep the rest of its
        chunk, unprobed, to the end."""
        if self.pool is not None:
            yield from self.next_requests(self.window)

    def resume(self) -> None:
        """Start after the highest id a previous run got a page for."""
        store = self.ledger.store
        last = store.progress(self.progress_key) if store is not None else None
        if last is not None and last >= self.ids.start:
            self.next_id = self.ids.after(last)
            self.misses = MissRun(
                self.next_id - self.ids.step, self.ids.step, self.misses.max_misses
            )
            self.logger.info("resuming %s after id %d", self.url_template, last)

    def next_requests(self, count: int) -> Iterator[Request]:
        """Up to ``count`` requests for the next ids; known URLs count as pages found."""
        while count > 0:
            value = self.next_value()
            if value is None:
                return
            url = self.url_for(value)
            if not self.fits(url):  # ids grew past URLLENGTH_LIMIT: no later id fits either
                return
            if self.is_denied(url) or self.ledger.asked(url):
                continue
            if self.is_known(url):
                self.ledger.skip(url)
                self.answered(value, hit=True)
                continue
            if not self.article_budget_left():
                return
            request = self.schedule_article(PendingRequest(url, "parse_id", "on_id_error", value))
            if request is not None:
                count -= 1
                yield request

    def next_value(self) -> int | None:
        """The next id to probe, or None: the range is done or the misses ran out."""
        if self.pool is not None:
            return self.pool.take(self.is_open)
        if not self.ids.contains(self.next_id) or self.misses.exhausted():
            return None
        value = self.next_id
        self.next_id += self.ids.step
        return value

    def is_open(self, value: int) -> bool:
        """Whether some worker holds the request of id ``value`` open (shared mode)."""
        store = self.ledger.store
        return isinstance(store, RedisStateStore) and store.is_pending(
            self.ledger.crawl, self.url_for(value)
        )

    def answered(self, value: int, hit: bool) -> None:
        if hit:
            self.misses.hit(value)
        else:
            self.misses.miss(value)
        if self.pool is not None:
            self.pool.answered(value, hit)

    def parse_id(self, response: Response) -> Iterator[Any]:
        value = int(response.meta[VALUE_META])
        items = list(self.parse_article(response))
        if items and self.ledger.store is not None:
            self.ledger.store.record_progress(self.progress_key, value)
        self.answered(value, hit=bool(items))
        yield from items
        yield from self.next_requests(1)

    def on_id_error(self, failure: Failure) -> Iterator[Any]:
        yield from self.on_error(failure)
        request: Request | None = getattr(failure, "request", None)
        if request is not None and VALUE_META in request.meta:
            self.answered(int(request.meta[VALUE_META]), hit=False)
        yield from self.next_requests(1)

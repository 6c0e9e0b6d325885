"""Scrapy settings for newsextract: polite by default, every record accounted for.

Override any of them on the command line (``-s NAME=VALUE``). The project's own settings:

``NEWSEXTRACT_CONTACT``
    How a site operator reaches you (an e-mail address or URL); it goes into the
    User-Agent. Also read from the environment variable of the same name. Please set it.
``NEWSEXTRACT_DATA_DIR``
    The directory of the state store (``state.sqlite3``) and learned rules; default
    ``./data``, or the environment variable of the same name.
``NEWSEXTRACT_STATE``
    ``off`` forgets nothing and remembers nothing: every run fetches everything. A store
    that is locked, read-only or damaged stops the crawl, with its name, before any request.
``NEWSEXTRACT_FAILURES``, ``NEWSEXTRACT_LISTINGS``
    JSON-lines files (appended to; ``%(name)s``, ``%(time)s`` and other spider attributes
    are filled in as in FEEDS, ``%%`` is a ``%``, any other ``%`` is refused at the start)
    for the failure records and the listing records. Failures go to
    ``<NEWSEXTRACT_DATA_DIR>/failures/<spider>.jsonl`` unless set (``none``: log only).
``NEWSEXTRACT_MAX_MISSES``
    Consecutive missing ids after which the ``idrange`` spider stops.
``NEWSEXTRACT_EXTRACTION_ENABLED``
    False leaves single-page extraction out (pages the template stage does not answer
    are then dropped as failures of stage "pipeline").

``NEWSEXTRACT_WARC_DIR``, ``NEWSEXTRACT_WARC_MAX_SIZE``
    A folder (default: none, off) where every fetched response is kept in gzipped WARC
    files of at most this many bytes (default 1 GB), for ``newsextract batch --warc``.

``NEWSEXTRACT_REDIS_URL``
    A Redis URL (also the environment variable of the same name) switches the crawl to
    shared mode: many workers, on several machines, share one frontier in Redis
    (:mod:`newsextract.sharedmode`); the start requests are made once, by the first worker.
    ``NEWSEXTRACT_WORKER_LEASE`` is how long (seconds) the others wait for a worker that
    stopped answering before they may finish without it.

``scrapy crawl`` (the project's, :mod:`newsextract.commands.crawl`) exits 2 for a bad
argument, and 1 when the crawl could not start or did not complete: a feed not written or
not stored, a state store or a failures file that could not be used, or no response at all
(every request failed at download).

In a Scrapy project of your own, ``ADDONS = {"newsextract.NewsExtract": 300}`` sets the item
pipelines, extensions and feed settings below (:mod:`newsextract.addon`); the
``NEWSEXTRACT_*`` settings then apply there too.

For development, ``-s HTTPCACHE_ENABLED=1`` keeps every response under ``.scrapy/httpcache``
and replays it on the next run, so extraction can be reworked without refetching.
"""

from __future__ import annotations

import os

from newsextract.spiders.base import user_agent

BOT_NAME = "newsextract"
SPIDER_MODULES = ["newsextract.spiders"]
NEWSPIDER_MODULE = "newsextract.spiders"
COMMANDS_MODULE = "newsextract.commands"  # crawl: arguments checked first, exit 1 if incomplete

NEWSEXTRACT_CONTACT = os.environ.get("NEWSEXTRACT_CONTACT", "")
USER_AGENT = user_agent(NEWSEXTRACT_CONTACT)
NEWSEXTRACT_DATA_DIR = os.environ.get("NEWSEXTRACT_DATA_DIR", "data")
NEWSEXTRACT_STATE = os.environ.get("NEWSEXTRACT_STATE", "on")
NEWSEXTRACT_FAILURES = os.environ.get("NEWSEXTRACT_FAILURES", "")
NEWSEXTRACT_LISTINGS = os.environ.get("NEWSEXTRACT_LISTINGS", "")
NEWSEXTRACT_MAX_MISSES = 50  # see newsextract.spiders.idrange.MAX_MISSES_DEFAULT
NEWSEXTRACT_EXTRACTION_ENABLED = True
NEWSEXTRACT_WORKER_LEASE = 30.0  # see newsextract.sharedmode.frontier.WORKER_LEASE_DEFAULT
# Shared mode (NEWSEXTRACT_REDIS_URL set): scrapy-redis's scheduler; nothing otherwise.
ADDONS = {"newsextract.sharedmode.addon.SharedMode": 0}

# Politeness: robots.txt, one request at a time per site, and a delay that follows the
# site's own response time (AutoThrottle aims at one request in flight per site).
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 1
# Scrapy starts this many tasks for each response's output (its default, 100, costs about
# 1 ms a page). A callback here yields one item at most, and idrange's yields its next
# request after it: the second task takes that request while the template stage holds the
# item. The scheduler never raises, which would end a task (newsextract.scheduler).
CONCURRENT_ITEMS = 2
SCHEDULER = "newsextract.scheduler.EmbeddedScheduler"  # shared mode's add-on sets its own
DOWNLOAD_DELAY = 0.5
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 2.0
AUTOTHROTTLE_MAX_DELAY = 60.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 1.0

# Failures become records after these limits, not endless waits.
DOWNLOAD_TIMEOUT = 30
RETRY_ENABLED = True
RETRY_TIMES = 2
DOWNLOAD_MAXSIZE = 32 * 1024 * 1024  # no article page comes near; a video file does
DOWNLOAD_WARNSIZE = 8 * 1024 * 1024
REDIRECT_MAX_TIMES = 10

# Development cache, off by default (see the module docstring).
HTTPCACHE_ENABLED = False
HTTPCACHE_DIR = "httpcache"
HTTPCACHE_EXPIRATION_SECS = 0
HTTPCACHE_IGNORE_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]

# Off unless NEWSEXTRACT_WARC_DIR is set: keep every fetched response in WARC files
# (newsextract.downloadermiddlewares.warc), beside HttpCompressionMiddleware (590).
NEWSEXTRACT_WARC_DIR = os.environ.get("NEWSEXTRACT_WARC_DIR", "")
NEWSEXTRACT_WARC_MAX_SIZE = 1_000_000_000  # see newsextract.warc.writer.MAX_SIZE_DEFAULT
DOWNLOADER_MIDDLEWARES = {"newsextract.downloadermiddlewares.warc.WarcArchive": 580}

SPIDER_MIDDLEWARES = {
    # A page whose spider callback met a state store gone away: a failure record, no traceback.
    "newsextract.spidermiddlewares.state.StateStoreLost": 950,
}
ITEM_PIPELINES = {
    "newsextract.pipelines.templates.TemplatePipeline": 300,
    "newsextract.pipelines.extraction.ExtractionPipeline": 500,
    "newsextract.pipelines.state.HarvestPipeline": 800,
}
EXTENSIONS = {
    "newsextract.extensions.failures.FailureLog": 100,
    "newsextract.extensions.listings.ListingLog": 100,
    # After Scrapy's FeedExporter (0): it tells the harvest stage which articles a feed holds.
    "newsextract.extensions.feeds.FeedWatch": 100,
    "newsextract.extensions.heap.FrozenStartup": 100,
}
FEED_EXPORTERS = {
    "xml": "newsextract.exporters.SafeXmlItemExporter",
    # Scrapy's JSON lines, the same bytes, an article's record made at less cost.
    **dict.fromkeys(
        ("jsonlines", "jsonl", "jl"), "newsextract.exporters.ArticleJsonLinesItemExporter"
    ),
}
FEED_STORAGES = {
    "": "newsextract.exporters.FlushedFileFeedStorage",
    "file": "newsextract.exporters.FlushedFileFeedStorage",
}
FEED_EXPORT_ENCODING = "utf-8"

TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# REQUEST_FINGERPRINTER_IMPLEMENTATION is not set: Scrapy 2.13+ has only the current one.
TELNETCONSOLE_ENABLED = False  # a nightly job needs no open console port
# Scrapy's RemoteControl runs Python code sent to it over HTTP, on in every crawl by default:
# a nightly job needs no such door either.
REMOTE_CONTROL_ENABLED = False
LOG_LEVEL = "INFO"

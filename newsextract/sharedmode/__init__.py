"""Shared mode: many crawl workers on several machines, one Redis between them.

One setting switches it on, ``NEWSEXTRACT_REDIS_URL`` (or the environment variable of the
same name). Then scrapy-redis holds the frontier, and the state store and the learned rules
live in Redis; without it a crawl is one process with SQLite and rule files, as ever.
"""

from newsextract.sharedmode.connection import (
    REDIS_URL_SETTING,
    SharedModeError,
    connect,
    key_prefix,
    redis_url,
)

__all__ = ["REDIS_URL_SETTING", "SharedModeError", "connect", "key_prefix", "redis_url"]

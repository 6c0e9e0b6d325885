"""The learned rules in Redis, for crawl workers that share them (shared mode).

Each site's rules are the bytes of its rule file (the schema of ``RULES.md``), kept in one
Redis hash with the site's history and a revision counter:

``PREFIX:rules:KEY`` (``KEY``: the site's file name, as ``rulefiles.file_key`` makes it)
    ``site`` the site's name, ``xml`` its rule file, ``history`` its history file,
    ``revision`` a counter raised by every write of ``xml``.
``PREFIX:rules:sites``
    the set of site names with rules, for ``newsextract rules export``.
``PREFIX:rules:KEY:lease:KIND``
    the token of the worker learning the site's rules of a kind, for a bounded time.

Reading applies the checks of a rule file (size first, safe parsing, the XPath grammar, the
site's name): a bad value is refused with :class:`~newsextract.exceptions.RuleFileError`, as
a bad file is, and never overwritten. Writes are a compare-and-set (``WATCH`` the hash, read,
change, ``MULTI``/``EXEC``), so two workers saving one site's rules never lose a version.
Workers watch the revision before every page and reload the rules when it moved.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis

from newsextract.exceptions import RuleFileError
from newsextract.sharedmode.connection import KEY_PREFIX_DEFAULT, SharedModeError
from newsextract.templates.rulefiles import file_key
from newsextract.templates.rules import RuleVersion
from newsextract.templates.store import (
    MAX_RULE_FILE_BYTES_DEFAULT,
    LeaseBusyError,
    RuleStoreUnavailableError,
    history_bytes,
    history_records,
    parse_rules,
    render_checked,
    with_version,
)

logger = logging.getLogger(__name__)

#: How long a worker may learn a site's rules before the lease lapses and another may. Induction
#: from a full sample (6 pages) takes well under a second on the benchmark sites and a few
#: seconds on the largest pages allowed; a minute leaves room for a loaded machine, and a worker
#: that dies while learning delays the site's rules by a minute at most.
LEASE_SECONDS_DEFAULT = 60.0
#: Compare-and-set attempts before a write gives up: each retry means another worker wrote
#: the site's rules meanwhile, which a handful of workers never do dozens of times in a row.
MAX_WRITE_ATTEMPTS_DEFAULT = 50

# Delete the lease only if it still holds our token: a lease that lapsed and was taken by
# another worker is theirs.
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


class RedisRuleStore:
    """A site's rule file, history and lease in Redis; see the module's docstring."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = KEY_PREFIX_DEFAULT,
        lease_seconds: float = LEASE_SECONDS_DEFAULT,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.lease_seconds = lease_seconds

    # -- keys ------------------------------------------------------------------------------

    def key(self, site: str) -> str:
        return f"{self.prefix}:rules:{file_key(site)}"

    @property
    def sites_key(self) -> str:
        return f"{self.prefix}:rules:sites"

    def origin(self, site: str) -> str:
        """How errors name a site's rules: the Redis key, as a file's errors name its path."""
        return f"Redis key {self.key(site)}"

    # -- reading ---------------------------------------------------------------------------

    def sites(self) -> list[str]:
        return sorted(_text(name) for name in self.client.smembers(self.sites_key))

    def load(self, site: str) -> list[RuleVersion]:
        with self._reaching(site):
            data = self.rule_bytes(site)
        return [] if data is None else parse_rules(data, self.origin(site), site)

    def rule_bytes(self, site: str) -> bytes | None:
        """The site's rule file as stored (None: no rules), its size checked before it is read."""
        return self._bounded(self.client, site, "xml")

    def _bounded(
        self, client: redis.Redis | redis.client.Pipeline, site: str, field: str
    ) -> bytes | None:
        size = int(client.hstrlen(self.key(site), field))
        if size > MAX_RULE_FILE_BYTES_DEFAULT:
            raise RuleFileError(
                f"{self.origin(site)}: {field} too large ({size:,} bytes, at most "
                f"{MAX_RULE_FILE_BYTES_DEFAULT:,})"
            )
        data = client.hget(self.key(site), field)
        return None if data is None else _bytes(data)

    def revision(self, site: str) -> str | None:
        with self._reaching(site):
            value = self.client.hget(self.key(site), "revision")
        return "0" if value is None else _text(value)

    def load_history(self, site: str) -> list[dict[str, str]]:
        try:
            data = self.history_bytes(site)
        except (RuleFileError, redis.RedisError) as error:
            logger.warning("history of %s not used: %s", site, error)
            return []
        return [] if data is None else history_records(data, site, self.origin(site))

    def history_bytes(self, site: str) -> bytes | None:
        return self._bounded(self.client, site, "history")

    @contextmanager
    def _reaching(self, site: str) -> Iterator[None]:
        try:
            yield
        except redis.RedisError as error:
            raise RuleStoreUnavailableError(
                f"{self.origin(site)}: Redis cannot be reached ({type(error).__name__}: {error})"
            ) from error

    # -- writing ---------------------------------------------------------------------------

    def update(
        self, site: str, change: Callable[[list[RuleVersion]], list[RuleVersion]]
    ) -> list[RuleVersion]:
        """Read, change and write a site's versions as one compare-and-set; a version whose
        XPaths a rule may not hold is refused (RuleFileError), never written, and so are
        rules that cannot be read (a person fixes them; they are not overwritten)."""
        key, origin = self.key(site), self.origin(site)
        for _ in range(MAX_WRITE_ATTEMPTS_DEFAULT):
            with self.client.pipeline() as pipe:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]
                    data = self._bounded(pipe, site, "xml")
                    versions = [] if data is None else parse_rules(data, origin, site)
                    changed = change(list(versions))
                    if changed == versions:
                        return changed
                    rendered = render_checked(site, changed, origin)
                    pipe.multi()
                    self._write(pipe, site, "xml", rendered)
                    pipe.execute()
                    return changed
                except redis.WatchError:
                    continue  # another worker wrote meanwhile: read its version and retry
        raise SharedModeError(
            f"{origin}: written by other workers {MAX_WRITE_ATTEMPTS_DEFAULT} "
            "times while this one tried; not saved"
        )

    def add_version(self, site: str, version: RuleVersion) -> RuleVersion:
        """Save a new version of a kind beside the old ones (as the rule files do: a version a
        person edited stays current and the new one is not saved)."""
        saved: list[RuleVersion] = []
        self.update(site, lambda versions: with_version(site, versions, version, saved))
        return saved[-1]  # the attempt that was written

    def save_history(self, site: str, records: list[dict[str, str]]) -> None:
        """The latest worker's sample wins: it is a sample of earlier results, not a record;
        one not saved while Redis is away only costs re-induction some evidence."""
        try:
            self.put_history_bytes(site, history_bytes(site, records))
        except redis.RedisError as error:
            logger.warning("history of %s not saved: %s", site, error)

    def put_rule_bytes(self, site: str, data: bytes) -> None:
        """Store a rule file as it is (``newsextract rules import``: checked by the caller),
        raising the revision so that every worker reloads it before its next page."""
        with self.client.pipeline() as pipe:
            self._write(pipe, site, "xml", data)
            pipe.execute()

    def put_history_bytes(self, site: str, data: bytes) -> None:
        with self.client.pipeline() as pipe:
            self._write(pipe, site, "history", data)
            pipe.execute()

    def _write(self, pipe: redis.client.Pipeline, site: str, field: str, data: bytes) -> None:
        key = self.key(site)
        pipe.hset(key, mapping={"site": site, field: data})
        if field == "xml":
            pipe.hincrby(key, "revision", 1)
        pipe.sadd(self.sites_key, site)

    # -- the lease of learning -------------------------------------------------------------

    def lease_key(self, site: str, kind: str) -> str:
        return f"{self.key(site)}:lease:{file_key(kind)}"

    def acquire(self, site: str, kind: str) -> str | None:
        """A token when this worker may learn the site's rules of ``kind`` now, else None."""
        token = secrets.token_hex(16)
        milliseconds = max(1, int(self.lease_seconds * 1000))
        taken = self.client.set(self.lease_key(site, kind), token, nx=True, px=milliseconds)
        return token if taken else None

    def release(self, site: str, kind: str, token: str) -> None:
        self.client.eval(_RELEASE, 1, self.lease_key(site, kind), token)

    @contextmanager
    def lease(self, site: str, kind: str) -> Iterator[None]:
        """Held while this worker learns; LeaseBusyError when another worker holds it."""
        token = self.acquire(site, kind)
        if token is None:
            raise LeaseBusyError(f"another worker is learning the {kind} rules of {site}")
        try:
            yield
        finally:
            try:
                self.release(site, kind, token)
            except redis.RedisError as error:  # it lapses on its own
                logger.warning("lease on the %s rules of %s not released: %s", kind, site, error)


def _bytes(value: bytes | str) -> bytes:
    """A value as Redis gave it: bytes, as the clients of :func:`connect` answer."""
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _text(value: bytes | str) -> str:
    return value if isinstance(value, str) else value.decode("utf-8")

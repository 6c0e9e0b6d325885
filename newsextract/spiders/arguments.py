"""Spider arguments (``-a name=value``): read, checked, and refused with one line that names
the argument and says what it accepts.

A mistake in an argument must stop a crawl before it starts, as one clear line and a
non-zero exit, not as a traceback after the start-up log. Every spider reads its arguments
in ``__init__`` with the readers below, which raise :class:`SpiderArgumentError`, a Scrapy
``UsageError``. The project's ``crawl`` command (:mod:`newsextract.commands.crawl`) has the
spider class check them (:meth:`NewsSpider.check_arguments`) before the crawl starts and
logs the error as one line, exit code 2; Scrapy's own command would print an asyncio
traceback. Being a :class:`~newsextract.exceptions.NewsExtractError` too, an error raised
once the crawl is under way is still one line (exit code 1). Unknown names (``-a alow=``)
are only warned about, as Scrapy passes on any argument to the spider and tools such as
scrapyd add their own (``_job``).
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterable
from typing import TypeVar
from urllib.parse import urlsplit

from scrapy.exceptions import UsageError

from newsextract.exceptions import NewsExtractError
from newsextract.sites.patterns import PatternError, UrlPattern, compile_pattern

#: The longest URL a crawl matches or requests: Scrapy's ``URLLENGTH_LIMIT`` default, beyond
#: which its UrlLengthMiddleware drops a request unseen (the spider reads the setting).
MAX_URL_LENGTH_DEFAULT = 2083

T = TypeVar("T")


class SpiderArgumentError(UsageError, NewsExtractError, ValueError):
    """A spider argument that cannot be used; the message names it: ``-a NAME: problem``."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"-a {name}: {problem}", print_help=False)
        self.name = name


def split_arg(value: str | Iterable[str] | None) -> list[str]:
    """A comma-separated spider argument (or a list, from code) as a clean list.

    >>> split_arg("https://a.jp/, https://b.jp/"), split_arg(None)
    (['https://a.jp/', 'https://b.jp/'], [])
    """
    if value is None:
        return []
    parts = value.split(",") if isinstance(value, str) else list(value)
    return [part.strip() for part in parts if part.strip()]


def whole_number(name: str, value: str | int | None, minimum: int = 1) -> int | None:
    """A count such as ``max_pages``; None when not given.

    >>> whole_number("max_pages", "500"), whole_number("max_pages", None)
    (500, None)
    """
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise SpiderArgumentError(
            name, f"expected a whole number, {minimum} or more, got {value!r}"
        )
    return number


def http_urls(
    name: str, value: str | Iterable[str] | None, keywords: tuple[str, ...] = ()
) -> list[str]:
    """Comma-separated absolute http(s) URLs (or one of ``keywords``, e.g. ``robots``)."""
    urls = split_arg(value)
    for url in urls:
        if url in keywords:
            continue
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            accepted = "absolute http:// or https:// URLs, comma-separated"
            if keywords:
                accepted += " (or " + ", ".join(keywords) + ")"
            raise SpiderArgumentError(name, f"expected {accepted}, got {url!r}")
        if len(url) > MAX_URL_LENGTH_DEFAULT:
            problem = f"a URL longer than {MAX_URL_LENGTH_DEFAULT} characters: {url[:80]!r}..."
            raise SpiderArgumentError(name, problem)
    return urls


def url_pattern(name: str, value: str | None) -> UrlPattern | None:
    """A regex searched in each URL, compiled for RE2 (see :mod:`newsextract.sites.patterns`);
    None when not given."""
    if not value:
        return None
    try:
        return compile_pattern(value)
    except PatternError as exc:
        raise SpiderArgumentError(name, str(exc)) from None


def parsed(name: str, value: str, parse: Callable[[str], T]) -> T:
    """``parse(value)``, its ValueError turned into a SpiderArgumentError naming ``name``."""
    try:
        return parse(value)
    except ValueError as exc:
        raise SpiderArgumentError(name, str(exc).removeprefix(f"{name}: ")) from None


def accepted_arguments(spider_class: type) -> list[str]:
    """The keyword arguments the ``__init__`` methods of a spider class and its bases take."""
    names: set[str] = set()
    for klass in spider_class.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        for parameter in inspect.signature(init).parameters.values():
            if parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD):
                names.add(parameter.name)
    names -= {"self", "name"}  # Scrapy's ``name`` would rename the spider: not for users
    return sorted(names)


def unknown_arguments(spider_class: type, given: Iterable[str]) -> list[str]:
    """One warning for each argument the spider does not take (names starting with ``_``,
    which scrapyd and other tools add, are left alone).

    >>> class S:
    ...     def __init__(self, allow=None, deny=None): ...
    >>> unknown_arguments(S, ["alow", "deny", "_job"])
    ["-a alow is not an argument of this spider and is ignored (did you mean 'allow'?); it takes: allow, deny"]
    """  # noqa: E501
    known = accepted_arguments(spider_class)
    warnings = []
    for name in given:
        if name in known or name.startswith("_"):
            continue
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        warnings.append(
            f"-a {name} is not an argument of this spider and is ignored{hint}; "
            f"it takes: {', '.join(known)}"
        )
    return warnings

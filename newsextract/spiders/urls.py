"""URLs as a crawl sees them: which site a URL belongs to, and which URLs are worth a request."""

from __future__ import annotations

import ipaddress
from urllib.parse import urldefrag, urlsplit

#: Second-level labels under which registries sell names (``asahi.co.jp``, ``bbc.co.uk``,
#: ``people.com.cn``): the registrable domain then has three labels, not two. Taken from
#: the public suffix list for the countries whose news sites we profile.
SECOND_LEVEL_LABELS = frozenset(
    {"co", "com", "ne", "or", "ac", "go", "gov", "edu", "net", "org", "news", "ltd", "plc"}
)

#: File extensions of links that are never HTML pages (Scrapy's list, plus feeds).
_NON_PAGE_EXTENSIONS = """
    7z bz2 gz rar tar xz zip bmp gif jpg jpeg png svg ico webp tif tiff avif
    mp3 ogg wav aac m4a mp4 m4v mov avi webm flv mkv wmv
    pdf doc docx xls xlsx ppt pptx odt ods rtf css js json exe dmg apk iso bin
    woff woff2 ttf eot rss atom
"""
NON_PAGE_EXTENSIONS = frozenset(_NON_PAGE_EXTENSIONS.split())

_FETCHABLE_SCHEMES = ("http", "https")


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def registrable_domain(host: str) -> str:
    """The part of a host name a publisher registers: the site a crawl stays on.

    >>> registrable_domain("www.asahi.com"), registrable_domain("news.bbc.co.uk")
    ('asahi.com', 'bbc.co.uk')
    >>> registrable_domain("127.0.0.1"), registrable_domain("localhost")
    ('127.0.0.1', 'localhost')
    """
    host = host.lower().rstrip(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        return host
    labels = host.split(".")
    if len(labels) <= 2:
        return host
    keep = 3 if len(labels[-1]) == 2 and labels[-2] in SECOND_LEVEL_LABELS else 2
    return ".".join(labels[-keep:])


def site_of(url: str) -> str:
    """The registrable domain of a URL's host."""
    return registrable_domain(host_of(url))


def normalise_link(url: str) -> str | None:
    """A link without its fragment, or None when it cannot be fetched over HTTP(S)."""
    url = urldefrag(url.strip())[0]
    if urlsplit(url).scheme.lower() not in _FETCHABLE_SCHEMES:
        return None
    return url


def looks_like_page(url: str) -> bool:
    """False for links whose extension says they are images, media, archives or code.

    >>> looks_like_page("https://a.jp/news/1.html"), looks_like_page("https://a.jp/x.PDF")
    (True, False)
    """
    last = urlsplit(url).path.rsplit("/", 1)[-1]
    if "." not in last:
        return True
    return last.rsplit(".", 1)[-1].lower() not in NON_PAGE_EXTENSIONS

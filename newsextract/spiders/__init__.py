"""Spiders, one module a crawl mode: ``site`` (link crawl, sitemaps, feeds), ``idrange``
(numbered URLs) and one spider per bundled site profile (``profiles``).

The machinery they share is in :mod:`newsextract.spiders.base`; the pure helpers (URLs,
content sniffing, sitemaps, feeds, dates) have no Scrapy import.
"""

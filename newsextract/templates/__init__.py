"""Site templates: learn a site's template from several pages, compile it to XML rules, reuse them.

No Scrapy import here: the crawl's pipeline stage, the CLI and the tests use this package alike.
The entry point is :class:`newsextract.templates.site.SiteTemplates`.
"""

"""Typed errors: every failure says which stage failed and why."""


class NewsExtractError(Exception):
    """Base of every error this package raises on purpose."""


class NotHTMLError(NewsExtractError):
    """The body is not an HTML document (binary, image, PDF, ...)."""


class PageTooComplexError(NewsExtractError):
    """The page holds more elements or blocks than a page is allowed (an element bomb)."""

    def __init__(self, what: str, count: int, limit: int) -> None:
        super().__init__(f"page too complex: {count:,} {what}, more than the limit of {limit:,}")
        self.what = what  # "tags" or "blocks"
        self.count = count
        self.limit = limit


class ExtractionError(NewsExtractError):
    """No main text could be extracted from a page."""


class RuleFileError(NewsExtractError):
    """A rule or template file is missing, malformed or unsafe."""


class SiteProfileError(NewsExtractError):
    """A bundled or user site profile is invalid."""

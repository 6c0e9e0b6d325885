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


def failure_reason(error: Exception) -> str:
    """Why a page gave no article, in one line: the error's class and message.

    >>> failure_reason(PageTooComplexError("tags", 2_000_000, 1_000_000))
    'page too complex: 2,000,000 tags, more than the limit of 1,000,000'
    """
    message = " ".join(str(error).split())
    if isinstance(error, PageTooComplexError):
        return message
    return f"{type(error).__name__}: {message}" if message else type(error).__name__

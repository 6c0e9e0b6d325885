"""Typed errors: every failure says which stage failed and why."""


class NewsExtractError(Exception):
    """Base of every error this package raises on purpose."""


class NotHTMLError(NewsExtractError):
    """The body is not an HTML document (binary, image, PDF, ...)."""


class ExtractionError(NewsExtractError):
    """No main text could be extracted from a page."""


class RuleFileError(NewsExtractError):
    """A rule or template file is missing, malformed or unsafe."""


class SiteProfileError(NewsExtractError):
    """A bundled or user site profile is invalid."""

"""Item pipelines, one module a stage: templates (300), extraction (500), harvest state (800).

A stage that drops a page raises :class:`DropPage` naming its stage, so the failure log
writes a record that says where the page was lost.
"""

from __future__ import annotations

from scrapy.exceptions import DropItem


class DropPage(DropItem):
    """A page dropped on purpose; ``stage`` is one of ``extensions.failures.STAGES``."""

    def __init__(self, message: str, stage: str) -> None:
        super().__init__(message)
        self.stage = stage


__all__ = ["DropPage"]

"""Where the development data lives, and what a test does when it is not there.

A fresh clone has no development data: the tests that need it skip, with a message that says
how to point them at it. In CI (``CI=true``) the data is always laid beside the clone, so
missing data there is a broken setup and those tests fail instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("NEWSEXTRACT_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def missing_data(what: str) -> NoReturn:
    """Skip the test (fail it in CI): ``what`` is not in the development data."""
    message = (
        f"{what} not found: development data missing; "
        "set NEWSEXTRACT_SHARED_DATA to the folder of the development sets"
    )
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)


def require_set(data: Path, name: str) -> Path:
    """The folder of development set ``name`` under ``data``, or a skip (a failure in CI)."""
    folder = data / name
    if not (folder / "manifest.jsonl").exists():
        missing_data(f"development set {name} under {data}")
    return folder

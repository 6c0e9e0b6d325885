"""Shared fixtures: where the development data lives (read in place, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("NEWSEXTRACT_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (SHARED_DATA / "dragnet" / "manifest.jsonl").exists():
        pytest.fail(f"development data not found at {SHARED_DATA}; set NEWSEXTRACT_SHARED_DATA")
    return SHARED_DATA

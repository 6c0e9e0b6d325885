"""Single-page output stays what it was: every pinned page's blocks, scores and record.

A change meant to alter output regenerates the pins with ``python3 tests/pinned.py --write``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from devdata import require_set
from pinned import PINNED_FILE, SETS, development_entries, digest, page_output

PINNED: dict[str, str] = json.loads(PINNED_FILE.read_text())


@pytest.mark.accuracy
@pytest.mark.parametrize("name", SETS)
def test_pinned_pages_give_todays_output(shared_data: Path, name: str) -> None:
    require_set(shared_data, name)
    moved = [
        key
        for key, entry in development_entries(shared_data)
        if key.startswith(f"{name}/") and PINNED.get(key) != digest(page_output(entry))
    ]
    assert not moved, f"{len(moved)} pages changed output (tests/pinned.py): {moved[:10]}"


def test_every_set_has_pinned_pages() -> None:
    for name in SETS:
        assert any(key.startswith(f"{name}/") for key in PINNED), name

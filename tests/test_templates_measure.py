"""The speed-up figures the site-mode measurement prints beside its pages per second."""

from __future__ import annotations

from newsextract.templates.measure import _speedups


def test_speedups_per_page_and_without_the_largest_pages() -> None:
    # 20 pages: 19 small ones 9x faster than the reference, one large one 100x faster
    reference = [9.0] * 19 + [100.0]
    seconds = [1.0] * 20
    sizes = [1_000] * 19 + [1_000_000]
    line = _speedups(reference, seconds, sizes)
    assert "median 9.0x" in line
    assert "geometric mean 10.2x" in line  # 9 ** (19 / 20) * 100 ** (1 / 20) = 10.15
    assert "without the 5% largest pages 9.0x" in line  # the large page left out


def test_speedups_keep_one_page_of_a_short_run() -> None:
    assert "pages 2.0x" in _speedups([2.0], [1.0], [500])

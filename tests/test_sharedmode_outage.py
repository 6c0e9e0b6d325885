"""Shared mode through a Redis outage (issue 36): every article exactly once, in the same run.

Three workers on one Redis with Debian's default persistence (snapshots); Redis is stopped
with SIGTERM after the first articles reach a feed, kept down, and started again on the same
port and folder (:mod:`outage_scenario`). Workers ride out the outage within their retry
budget; any that exited 1 is run once more under its own id; no new crawl from the start
pages. ``benchmarks/redis_outage.py`` runs the same scenario many times.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from outage_scenario import OutageResult, OutageScenario

pytestmark = pytest.mark.e2e

#: A shorter lease than a crawl's 30 s, still far above a pause of a loaded machine, so that
#: the killed worker's requests are taken over sooner; the outages last longer than it.
TEST_LEASE = "10"


def scenario(folder: Path, down: float, **settings: str) -> OutageScenario:
    return OutageScenario(folder, down, {"NEWSEXTRACT_WORKER_LEASE": TEST_LEASE, **settings})


def assert_exactly_once(result: OutageResult) -> None:
    assert result.missing == [], f"missing: {result.missing}"
    assert result.twice == [], f"written twice: {result.twice}"
    assert result.tracebacks == 0
    assert set(result.exit_codes.values()) == {0}, result.exit_codes


@pytest.mark.parametrize("down", [5.0, pytest.param(40.0, marks=pytest.mark.slow)])
def test_every_article_once_through_a_redis_outage(tmp_path: Path, down: float) -> None:
    result = scenario(tmp_path, down).run()
    assert_exactly_once(result)


def test_workers_that_give_up_leave_no_work_behind(tmp_path: Path) -> None:
    """A retry budget shorter than the outage: the workers stop with exit 1, and their
    re-runs under their own ids harvest what they held."""
    result = scenario(tmp_path, 5.0, NEWSEXTRACT_REDIS_RETRY="1").run()
    assert result.gave_up >= 1
    assert_exactly_once(result)


def test_a_worker_killed_during_an_outage_and_started_again(tmp_path: Path) -> None:
    """worker-0 is SIGKILLed while Redis is down, perhaps between its feed writing an article
    and Redis recording it, and started again under its own id once Redis is back: it
    records what its journal holds and takes its requests back at once."""
    result = scenario(tmp_path, 5.0).run(kill_during_outage=True)
    assert_exactly_once(result)


def test_a_worker_killed_during_an_outage_for_good(tmp_path: Path) -> None:
    """worker-0 is SIGKILLed while Redis is down and never started again: the others take
    over what it held once Redis has been up for a lease. Nothing is lost; an article it
    wrote and Redis had not recorded yet is written again (README, docs/SCALING.md)."""
    result = scenario(tmp_path, 5.0).run(kill_during_outage=True, restart_killed=False)
    assert result.missing == [], f"missing: {result.missing}"
    assert len(result.twice) <= 1, f"written twice: {result.twice}"
    assert result.tracebacks == 0

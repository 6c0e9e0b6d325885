"""Shared mode through a Redis outage, many times: how often an article goes missing or twice.

    python benchmarks/redis_outage.py --runs 10 --down 5 40 [--kill] [--kill-for-good] \
        [--crash] [--lease 30] [--retry 60]

Each run is the scenario of ``tests/outage_scenario.py`` (issue 36): three workers with
``NEWSEXTRACT_WORKER_ID`` crawl a 40-article site served on loopback (100 ms a page) and
share one redis-server with Debian's default persistence (snapshots); after the first
articles reach a feed, Redis is stopped with SIGTERM, kept down ``--down`` seconds and
started again on the same port and folder; a worker that exited 1 is run once more under
its own id. ``--kill`` adds the case of a worker SIGKILLed during the outage and started
again under its own id once Redis is back; ``--kill-for-good``, never started again.
``--crash`` adds the case of Redis SIGKILLed instead of stopped (it saves nothing, and comes
back from its last snapshot: none, in a crawl this short). The workers' lease and
retry budget are the crawl's defaults unless given.

Printed per case: the runs, those with every article exactly once, the runs with an article
missing (and how many articles in all), the runs with an article written twice (and how
many), the worker runs that gave up (exit 1), the tracebacks in the logs, and the seconds a
run took. The folders of the runs that were not clean, or where a worker gave up, are kept and
named.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from outage_scenario import OutageResult, OutageScenario  # noqa: E402


@dataclass
class Case:
    """The runs of one outage length (and whether a worker is killed in it)."""

    down: float
    kill: bool
    crash: bool = False
    restart_killed: bool = True
    results: list[OutageResult] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)

    @property
    def name(self) -> str:
        killed = ""
        if self.kill:
            killed = ", a worker SIGKILLed" + ("" if self.restart_killed else " for good")
        return f"{self.down:g} s down{killed}" + (", Redis SIGKILLed" if self.crash else "")

    def row(self) -> str:
        results = self.results
        clean = sum(1 for r in results if not r.missing and not r.twice)
        missing_runs = sum(1 for r in results if r.missing)
        twice_runs = sum(1 for r in results if r.twice)
        missing = sum(len(r.missing) for r in results)
        twice = sum(len(r.twice) for r in results)
        gave_up = sum(r.gave_up for r in results)
        tracebacks = sum(r.tracebacks for r in results)
        mean = sum(self.seconds) / max(1, len(self.seconds))
        return (
            f"| {self.name} | {len(results)} | {clean} | {missing_runs} ({missing}) "
            f"| {twice_runs} ({twice}) | {gave_up} | {tracebacks} | {mean:.0f} |"
        )


HEADER = (
    "| case | runs | exactly once | runs missing (articles) | runs twice (articles) "
    "| gave up | tracebacks | s a run |\n|---|---:|---:|---:|---:|---:|---:|---:|"
)


def run_case(case: Case, runs: int, settings: dict[str, str], keep: Path) -> None:
    for number in range(runs):
        folder = Path(tempfile.mkdtemp(prefix="outage-", dir=keep))
        started = time.monotonic()
        scenario = OutageScenario(folder, case.down, settings)
        result = scenario.run(case.kill, case.restart_killed, case.crash)
        case.seconds.append(time.monotonic() - started)
        case.results.append(result)
        clean = not result.missing and not result.twice
        print(
            f"{case.name}, run {number + 1}: {len(result.missing)} missing, "
            f"{len(result.twice)} twice, {result.gave_up} gave up, codes {result.exit_codes}",
            flush=True,
        )
        if clean and not result.gave_up:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            case.kept.append(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--down", type=float, nargs="+", default=[5.0, 40.0])
    parser.add_argument("--kill", action="store_true", help="also a worker SIGKILLed")
    parser.add_argument("--kill-for-good", action="store_true", help="and never started again")
    parser.add_argument("--crash", action="store_true", help="also Redis SIGKILLed")
    parser.add_argument("--lease", help="NEWSEXTRACT_WORKER_LEASE (default: the crawl's)")
    parser.add_argument("--retry", help="NEWSEXTRACT_REDIS_RETRY (default: the crawl's)")
    options = parser.parse_args()
    settings = {}
    if options.lease:
        settings["NEWSEXTRACT_WORKER_LEASE"] = options.lease
    if options.retry:
        settings["NEWSEXTRACT_REDIS_RETRY"] = options.retry
    keep = Path(tempfile.mkdtemp(prefix="redis-outage-"))
    cases = [Case(down, False) for down in options.down]
    if options.kill:
        cases.append(Case(options.down[0], True))
    if options.kill_for_good:
        cases.append(Case(options.down[0], True, restart_killed=False))
    if options.crash:
        cases.append(Case(options.down[0], False, crash=True))
    for case in cases:
        run_case(case, options.runs, settings, keep)
    print(HEADER)
    for case in cases:
        print(case.row())
    for case in cases:
        for folder in case.kept:
            print(f"kept ({case.name}): {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

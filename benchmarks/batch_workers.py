"""Pages per second of ``newsextract batch`` with one worker and with more, side by side.

    python benchmarks/batch_workers.py dragnet --workers 1 2

Each count of workers runs the whole command (``newsextract batch SET/manifest.jsonl --out
TMP --quiet --workers N``, a process of its own, start-up included) over the set's pages,
``--mode`` single by default; the runs alternate, the best of ``--repeat`` counts. Every
run's files are checked byte for byte against the first one's. ``SET`` is a development set
under ``--data`` (default ``$NEWSEXTRACT_SHARED_DATA`` or ``../shared/data``) or a manifest.
"cpu s" is the CPU time of the run's processes, workers included: on a machine shared with
other work, the wall-clock speed-up falls, while the CPU time says what the pool costs; the
speed-up of processes that only count, taken before and after, says how many cores were
free. The target: 2 workers on 2 free cores read at least 1.8 times the pages a second of one.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from newsextract.evaluation.dataset import development_data_dir, manifest_path, read_manifest


def run_batch(manifest: Path, out: Path, workers: int, mode: str) -> tuple[float, float]:
    """The run's wall-clock seconds, and the CPU seconds of its processes (workers included)."""
    command = [sys.executable, "-m", "newsextract.cli", "batch", str(manifest), "--out", str(out)]
    command += ["--quiet", "--mode", mode, "--workers", str(workers)]
    before = _children_cpu()
    started = time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if finished.returncode not in (0, 1) or not out.is_dir():  # 1: some pages gave no article
        raise SystemExit(f"batch failed ({finished.returncode}): {finished.stderr[-2000:]}")
    return seconds, _children_cpu() - before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _spin(loops: int) -> int:
    total = 0
    for number in range(loops):
        total += number
    return total


def free_cores(workers: int, loops: int = 20_000_000) -> float:
    """How many cores this machine gives now: the speed-up of ``workers`` processes that
    only count, over one doing their work alone (2.0 on two idle cores)."""
    started = time.perf_counter()
    for _ in range(workers):
        _spin(loops)
    alone = time.perf_counter() - started
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        started = time.perf_counter()
        pool.map(_spin, [loops] * workers)
        together = time.perf_counter() - started
    return alone / together


def files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", metavar="SET", help="a development set's name, or a manifest")
    parser.add_argument("--data", type=Path, default=development_data_dir())
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--mode", choices=("single", "site"), default="single")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    given = Path(args.set)
    manifest = manifest_path(given if given.exists() else args.data / args.set)
    pages = sum(1 for _ in read_manifest(manifest))
    best: dict[int, tuple[float, float]] = {}
    cores = [free_cores(max(args.workers))]
    with tempfile.TemporaryDirectory(prefix="batch-workers-") as scratch:
        first: dict[str, bytes] | None = None
        for _ in range(args.repeat):
            for workers in args.workers:
                out = Path(scratch) / f"out{workers}"
                run = run_batch(manifest, out, workers, args.mode)
                best[workers] = min(best.get(workers, run), run)
                written = files(out)
                first = first or written
                if written != first:
                    raise SystemExit(f"{workers} workers wrote other files than the first run")
    cores.append(free_cores(max(args.workers)))
    base = best[args.workers[0]][0]
    print(f"{manifest} ({pages} pages, mode {args.mode}): best of {args.repeat}, start-up included")
    print(f"{'workers':>8} {'seconds':>8} {'pages/s':>8} {'speed-up':>8} {'cpu s':>8}")
    for workers, (seconds, cpu) in best.items():
        speed = f"{pages / seconds:>8.1f} {base / seconds:>7.2f}x"
        print(f"{workers:>8} {seconds:>8.1f} {speed} {cpu:>8.1f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    counted = " and ".join(f"{speed:.2f}x" for speed in cores)
    print(f"{max(args.workers)} processes that only count, before and after: {counted}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

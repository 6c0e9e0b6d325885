"""Start-up: one small page through a whole ``newsextract`` process, beside Python's own start.

    python3 benchmarks/startup.py [--runs 15]

Each command runs ``--runs`` times as a new process (as a user or a shell script runs it),
interleaved, and the median wall time is printed with the fastest and slowest run. The
references in the same run: Python alone, Python importing numpy and lxml (what any run of
newsextract needs), and importing trafilatura when it is installed. Bytecode is written as
usual (``PYTHONDONTWRITEBYTECODE`` is unset for the runs): the first, untimed run of each
command writes it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Ferry resumes after storm | Harbour News</title></head><body>
<nav><a href="/">Home</a> <a href="/city">City</a></nav>
<article><h1>Ferry resumes after storm</h1>
<p>The harbour ferry ran again on Tuesday morning after two days in port, its operator said,
with the first crossing leaving at seven and every later one on time.</p>
<p>Passengers who had waited since Sunday were offered seats on the first three crossings,
and the operator said the timetable would be back to normal by the evening.</p>
</article><footer>All rights reserved.</footer></body></html>
"""


def commands(page: Path, out: Path) -> dict[str, list[str]]:
    python = sys.executable
    found = {
        "python": [python, "-c", "pass"],
        "python + numpy + lxml": [python, "-c", "import numpy, lxml.etree"],
    }
    probe = subprocess.run([python, "-c", "import trafilatura"], capture_output=True)
    if probe.returncode == 0:
        found["python + import trafilatura"] = [python, "-c", "import trafilatura"]
    # The script beside this Python, not a version manager's shim (pyenv's costs a bash
    # start and ``pyenv exec``, which the Python references above do not pay).
    beside = Path(python).parent / "newsextract"
    script = str(beside) if beside.exists() else shutil.which("newsextract") or ""
    found["newsextract extract PAGE"] = [script, "extract", str(page)]
    found["newsextract batch PAGE"] = [script, "batch", str(page), "--out", str(out)]
    return found


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "page.html"
        page.write_text(PAGE, encoding="utf-8")
        runs = commands(page, Path(folder) / "out")
        if not runs["newsextract extract PAGE"][0]:
            print("the newsextract command is not installed (pip install -e .)")
            return 1
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        for command in runs.values():  # writes bytecode, warms the file cache
            timed(command, env)
        for _ in range(args.runs):
            for name, command in runs.items():
                seconds[name].append(timed(command, env))
    print(f"{'command':<30} {'median s':>9} {'fastest':>8} {'slowest':>8}  ({args.runs} runs)")
    for name, times in seconds.items():
        print(f"{name:<30} {statistics.median(times):>9.3f} {min(times):>8.3f} {max(times):>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

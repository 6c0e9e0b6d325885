"""Crawl speed on loopback: pages per second with and without the item pipeline.

    python benchmarks/crawl_speed.py [--articles 600] [--concurrency 16] [--rounds 1]

Generates a news site (listing pages of 50 links, article pages of realistic size with
navigation and footer boilerplate) in a temporary directory, serves it on 127.0.0.1 from a
separate process, and runs the real ``scrapy crawl site`` command once per variant:

- ``no pipeline``: spiders, scheduling, link extraction, the state store, no item stage;
- ``extraction``: single-page extraction only (template stage off);
- ``full``: the project's ITEM_PIPELINES (templates, extraction, harvest state).

Politeness is switched off (no AutoThrottle, no delay, ``--concurrency`` requests per
site) so that the figures measure the crawler, not the waiting. Each variant starts from
an empty state store. Figures are printed side by side; compare them on one machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_VOCABULARY = """council budget school road river election market weather police hospital
minister report station festival company museum harbour village court teacher train bridge
the a of to and in that for on with as by at from was were said would their"""
WORDS = _VOCABULARY.split()
PER_LISTING = 50

VARIANTS: dict[str, list[str]] = {
    "no pipeline": ["-s", "ITEM_PIPELINES={}"],  # page items are not exported
    "extraction": ["-s", "NEWSEXTRACT_TEMPLATES_ENABLED=False", "-O", "out.jsonl"],
    "full": ["-O", "out.jsonl"],
}


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 22))]
    return " ".join(words).capitalize() + "."


def article_page(number: int, rng: random.Random) -> str:
    nav = "".join(f"<li><a href='/section/{s}.html'>{s}</a></li>" for s in WORDS[:12])
    paragraphs = "".join(
        "<p>" + " ".join(sentence(rng) for _ in range(rng.randint(2, 5))) + "</p>"
        for _ in range(rng.randint(6, 18))
    )
    related = "".join(
        f"<li><a href='/article/{rng.randint(1, 999)}.html'>more</a></li>" for _ in range(6)
    )
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Story {number}"
        f"</title></head><body><header><ul class='nav'>{nav}</ul></header><main><article>"
        f"<h1>Story {number}: {sentence(rng)}</h1><p class='byline'>By the news desk</p>"
        f"{paragraphs}</article><aside><ul>{related}</ul></aside></main>"
        "<footer><p>Copyright the example news company. All rights reserved.</p>"
        "<a href='/about.html'>About</a></footer></body></html>"
    )


def listing_page(numbers: range, next_page: str | None) -> str:
    links = "".join(f"<li><a href='/article/{n}.html'>Story {n}</a></li>" for n in numbers)
    more = f"<a href='{next_page}'>next</a>" if next_page else ""
    return f"<!DOCTYPE html><html><body><ul>{links}</ul>{more}</body></html>"


def generate_site(root: Path, articles: int) -> None:
    rng = random.Random(20261129)
    (root / "article").mkdir(parents=True)
    for number in range(1, articles + 1):
        page = article_page(number, rng)
        (root / "article" / f"{number}.html").write_text(page, encoding="utf-8")
    pages = range(1, articles + 1, PER_LISTING)
    for index, first in enumerate(pages):
        name = "index.html" if index == 0 else f"list{index}.html"
        following = f"/list{index + 1}.html" if index + 1 < len(pages) else None
        numbers = range(first, min(first + PER_LISTING, articles + 1))
        (root / name).write_text(listing_page(numbers, following), encoding="utf-8")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (base signature)
        pass


def serve(root: Path) -> None:
    """Serve ``root`` on 127.0.0.1 (port printed on stdout) until killed."""
    os.chdir(root)
    server = ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def crawl(port: int, workdir: Path, concurrency: int, extra: list[str]) -> dict[str, float]:
    workdir.mkdir(parents=True)
    stats_file = workdir / "stats.json"
    settings = {
        "AUTOTHROTTLE_ENABLED": "False",
        "DOWNLOAD_DELAY": "0",
        "CONCURRENT_REQUESTS_PER_DOMAIN": str(concurrency),
        "CONCURRENT_REQUESTS": str(concurrency),
        "LOG_LEVEL": "INFO",
        "NEWSEXTRACT_FAILURES": "failures.jsonl",
        "NEWSEXTRACT_DATA_DIR": str(workdir / "data"),
    }
    arguments = {
        "start_url": f"http://127.0.0.1:{port}/index.html",
        "allow": r"/article/\d+\.html",
        "follow": r"/list\d+\.html",
    }
    command = [sys.executable, "-m", "scrapy", "crawl", "site"]
    command += [part for name, value in arguments.items() for part in ("-a", f"{name}={value}")]
    command += [part for name, value in settings.items() for part in ("-s", f"{name}={value}")]
    command += extra
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "newsextract.settings", "NO_PROXY": "*"}
    started = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"crawl failed:\n{result.stderr[-3000:]}")
    (workdir / "crawl.log").write_text(result.stderr, encoding="utf-8")
    stats = read_stats(result.stderr)
    stats["wall_seconds"] = wall
    stats_file.write_text(json.dumps(stats), encoding="utf-8")
    return stats


def read_stats(log: str) -> dict[str, float]:
    wanted = (
        "response_received_count",
        "elapsed_time_seconds",
        "item_scraped_count",
        "newsextract/articles",
        "newsextract/failures",
    )
    stats: dict[str, float] = {}
    for key in wanted:
        match = re.search(rf"'{re.escape(key)}': ([\d.]+)", log)
        stats[key] = float(match[1]) if match else 0.0
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    with tempfile.TemporaryDirectory(prefix="crawl-speed-") as temp:
        root = Path(temp)
        generate_site(root / "site", args.articles)
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(root / "site")],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline())
            report(port, root, args.concurrency, args.rounds)
        finally:
            server.kill()
            server.wait()
    return 0


def report(port: int, root: Path, concurrency: int, rounds: int) -> None:
    """Run the variants in turn, ``rounds`` times, and print each run: on a shared machine
    the spread between rounds says how far apart two figures must be to mean anything."""
    print(
        f"{'variant':<12} {'round':>5} {'pages':>6} {'articles':>8} {'failures':>8} "
        f"{'crawl s':>8} {'pages/s':>8} {'process s':>9}"
    )
    for round_number in range(1, rounds + 1):
        for number, (name, extra) in enumerate(VARIANTS.items()):
            stats = crawl(port, root / f"run{round_number}-{number}", concurrency, extra)
            pages = stats["response_received_count"]
            elapsed = stats["elapsed_time_seconds"]
            print(
                f"{name:<12} {round_number:>5} {pages:>6.0f} "
                f"{stats['newsextract/articles']:>8.0f} {stats['newsextract/failures']:>8.0f} "
                f"{elapsed:>8.2f} {pages / elapsed if elapsed else 0:>8.1f} "
                f"{stats['wall_seconds']:>9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())

"""Crawl speed on loopback: pages per second with and without the item pipeline.

    python benchmarks/crawl_speed.py [--articles 600] [--concurrency 16] [--rounds 1]
    python benchmarks/crawl_speed.py --redis --workers 1 2 3 --articles 1000 \
        --latency 20-50 --concurrency 4 [--redis-cost]

Generates a news site (listing pages of 50 links, article pages of realistic size with
navigation and footer boilerplate) in a temporary directory, serves it on 127.0.0.1 from a
separate process, and runs the real ``scrapy crawl site`` command once per variant:

- ``no pipeline``: spiders, scheduling, link extraction, the state store, no item stage;
- ``extraction``: single-page extraction only (template stage off);
- ``full``: the project's ITEM_PIPELINES (templates, extraction, harvest state).

Politeness is switched off (no AutoThrottle, no delay, ``--concurrency`` requests per
site) so that the figures measure the crawler, not the waiting. Each variant starts from
an empty state store. Figures are printed side by side; compare them on one machine. After
the rounds come each variant's median and the item stage's cost: the share of pages/s the
full pipeline loses against no pipeline in the same round, and its median over the rounds.

``--redis`` measures shared mode instead: a redis-server of the benchmark's own (a free
loopback port, a temporary folder), emptied before each run; for each N of ``--workers``,
N ``scrapy crawl site`` processes at once with ``NEWSEXTRACT_REDIS_URL``, each with its
own feed and data directory; and one embedded crawl (no Redis, one process) as the
reference. A run's pages/s is the articles in the union of its feeds over the wall time
from the first start to the last exit; the union must hold each article once. Each
worker's peak RSS is its ``ru_maxrss``. ``--latency 20-50`` makes the site answer each
request after 20-50 ms, so that with a small ``--concurrency`` per worker the server, not
the CPU, sets the pace. ``--redis-cost`` adds what one page costs Redis (commands by
kind, split into those sent by the workers and those run inside Lua scripts, Redis's own
microseconds, bytes a key holds at its peak) and this machine's ``redis-benchmark``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import redis

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
    #: Milliseconds each response waits before it is sent, drawn uniformly (0, 0: none).
    latency: tuple[float, float] = (0.0, 0.0)

    def do_GET(self) -> None:
        low, high = self.latency
        if high > 0:
            time.sleep(random.uniform(low, high) / 1000)  # one thread a request: no blocking
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (base signature)
        pass


def parse_latency(text: str) -> tuple[float, float]:
    """``"20-50"`` (milliseconds, uniform), ``"30"`` or ``"0"`` (none).

    >>> parse_latency("20-50")
    (20.0, 50.0)
    """
    low, _, high = text.partition("-")
    bounds = (float(low), float(high or low))
    if bounds[0] < 0 or bounds[1] < bounds[0]:
        raise argparse.ArgumentTypeError(f"latency {text!r}: want LOW-HIGH milliseconds")
    return bounds


def serve(root: Path, latency: tuple[float, float] = (0.0, 0.0)) -> None:
    """Serve ``root`` on 127.0.0.1 (port printed on stdout) until killed."""
    os.chdir(root)
    QuietHandler.latency = latency
    server = ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    server.daemon_threads = True
    server.request_queue_size = 128
    print(server.server_address[1], flush=True)
    server.serve_forever()


def crawl_command(port: int, workdir: Path, concurrency: int, extra: list[str]) -> list[str]:
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
    return command + extra


def crawl_env() -> dict[str, str]:
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "newsextract.settings", "NO_PROXY": "*"}
    env.pop("NEWSEXTRACT_REDIS_URL", None)  # embedded unless a run says otherwise
    return env


def crawl(port: int, workdir: Path, concurrency: int, extra: list[str]) -> dict[str, float]:
    workdir.mkdir(parents=True)
    stats_file = workdir / "stats.json"
    command = crawl_command(port, workdir, concurrency, extra)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, env=crawl_env(), capture_output=True, text=True)
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
    parser.add_argument(
        "--latency", type=parse_latency, default=(0.0, 0.0), metavar="MS[-MS]",
        help="delay of each response in milliseconds, e.g. 20-50 (default 0)",
    )  # fmt: skip
    parser.add_argument("--redis", action="store_true", help="shared mode: workers and Redis")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], metavar="N")
    parser.add_argument("--redis-cost", action="store_true", help="what a page costs Redis")
    parser.add_argument(
        "-s", "--set", action="append", default=[], metavar="NAME=VALUE",
        help="a Scrapy setting for every crawl of a shared-mode run (repeatable)",
    )  # fmt: skip
    parser.add_argument("--keep", type=Path, help="work in this new folder and keep it (logs)")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.latency)
        return 0
    with tempfile.TemporaryDirectory(prefix="crawl-speed-") as temp:
        root = args.keep or Path(temp)
        generate_site(root / "site", args.articles)
        latency = "{}-{}".format(*args.latency)
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(root / "site"), "--latency", latency],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline())
            if args.redis or args.redis_cost:
                report_shared(port, root, args)
            else:
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
    speeds: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for round_number in range(1, rounds + 1):
        for number, (name, extra) in enumerate(VARIANTS.items()):
            stats = crawl(port, root / f"run{round_number}-{number}", concurrency, extra)
            pages = stats["response_received_count"]
            elapsed = stats["elapsed_time_seconds"]
            speeds[name].append(pages / elapsed if elapsed else 0.0)
            print(
                f"{name:<12} {round_number:>5} {pages:>6.0f} "
                f"{stats['newsextract/articles']:>8.0f} {stats['newsextract/failures']:>8.0f} "
                f"{elapsed:>8.2f} {speeds[name][-1]:>8.1f} "
                f"{stats['wall_seconds']:>9.2f}",
                flush=True,
            )
    print_item_stage_cost(speeds)


def print_item_stage_cost(speeds: dict[str, list[float]]) -> None:
    """The median pages/s of each variant, and what the item stage costs: the share of pages/s
    the full pipeline loses, taken round by round (a round's variants ran one after the
    other, so drift between rounds cancels), and its median."""
    for name, values in speeds.items():
        print(f"median {name}: {statistics.median(values):.1f} pages/s")
    paired = [
        1.0 - full / bare
        for bare, full in zip(speeds["no pipeline"], speeds["full"], strict=True)
        if bare > 0
    ]
    if paired:
        costs = ", ".join(f"{100 * cost:.0f}" for cost in paired)
        print(
            f"item stage: {100 * statistics.median(paired):.0f} % of pages/s "
            f"(median of the rounds: {costs})"
        )


# -- shared mode --------------------------------------------------------------------------

#: Seconds between two looks at Redis's memory and keys during a shared run.
SAMPLE_SECONDS = 0.25
#: Commands of redis-benchmark whose requests per second give one Redis's ceiling.
CEILING_TESTS = "set,get,incr,sadd,lpush,rpop"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def redis_server(folder: Path) -> Iterator[int]:
    """A redis-server of the benchmark's own on a free loopback port; yields the port.
    Append-only file fsynced every second, as a production Redis would keep a frontier."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("--redis needs redis-server (Debian: apt-get install redis-server)")
    folder.mkdir(parents=True)
    port = free_port()
    command = [
        binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
        "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
    ]  # fmt: skip
    with (folder / "redis.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"redis-server did not start on port {port}") from None
                time.sleep(0.05)
        client.close()
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class KeyPeak:
    bytes: int = 0
    entries: int = 0


class RedisSampler:
    """Looks at Redis every :data:`SAMPLE_SECONDS` during a run: the peak of ``used_memory``
    and of each key (a run's frontier keys are deleted when it drains, so only a look
    during the run sees them). Counts its own commands, to take them out of the stats."""

    LENGTH = {"hash": "hlen", "set": "scard", "zset": "zcard", "list": "llen", "string": "strlen"}

    def __init__(self, port: int) -> None:
        self.client = redis.Redis(port=port, decode_responses=True)
        self.own: Counter[str] = Counter()
        self.peak_memory = 0
        self.keys: dict[str, KeyPeak] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()  # what is left
        self.client.close()

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self.sample()

    def sample(self) -> None:
        self.own["info"] += 1
        memory = int(self.client.info("memory")["used_memory"])
        self.peak_memory = max(self.peak_memory, memory)
        for key in self.client.scan_iter(count=1000):
            self.own["type"] += 1
            kind = str(self.client.type(key))
            if kind not in self.LENGTH:
                continue
            self.own[self.LENGTH[kind]] += 1
            self.own["memory|usage"] += 1
            entries = int(self.client.execute_command(self.LENGTH[kind], key))  # type: ignore[no-untyped-call]
            size = int(self.client.memory_usage(key, samples=0) or 0)
            peak = self.keys.setdefault(key, KeyPeak())
            peak.bytes, peak.entries = max(peak.bytes, size), max(peak.entries, entries)
        self.own["scan"] += 1 + len(self.keys) // 1000


@dataclass
class Run:
    """One run: its workers' feeds and stats, and what Redis saw."""

    label: str
    workers: int
    wall: float
    stats: list[dict[str, float]]
    peak_rss_mb: list[float]
    urls: list[str]
    load: float
    commandstats: dict[str, dict[str, float]] = field(default_factory=dict)
    memory_before: int = 0
    memory_after: int = 0
    sampler: RedisSampler | None = None
    harvested: int = 0

    @property
    def articles(self) -> int:
        return len(set(self.urls))

    @property
    def duplicates(self) -> int:
        return len(self.urls) - self.articles

    @property
    def pages(self) -> float:
        return sum(s["response_received_count"] for s in self.stats)

    @property
    def crawl_seconds(self) -> float:
        """The longest crawl as Scrapy timed it (open to close: without the start-up)."""
        return max(s["elapsed_time_seconds"] for s in self.stats)

    @property
    def rate(self) -> float:
        return self.articles / self.wall


def feed_urls(path: Path) -> list[str]:
    """The URLs of the article records of a JSONL feed."""
    if not path.exists():
        return []
    records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return [str(r["url"]) for r in records if line_is_article(r)]


def line_is_article(record: dict[str, object]) -> bool:
    return "articleBody" in record or "headline" in record


#: ``--set`` of the command line: settings given to every crawl of a shared-mode report.
EXTRA_SETTINGS: list[str] = []


def run_workers(
    port: int, workdir: Path, concurrency: int, count: int, redis_url: str | None
) -> tuple[float, list[dict[str, float]], list[float], list[str]]:
    """``count`` crawls at once; their wall time (first start to last exit), stats, peak
    RSS (MB, from the kernel's accounting of each finished child) and article URLs."""
    shared = ["-s", f"NEWSEXTRACT_REDIS_URL={redis_url}"] if redis_url else []
    shared += [part for setting in EXTRA_SETTINGS for part in ("-s", setting)]
    processes: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}
    started = time.perf_counter()
    for number in range(count):
        folder = workdir / f"worker{number + 1}"
        folder.mkdir(parents=True)
        command = crawl_command(port, folder, concurrency, [*shared, "-o", "out.jsonl"])
        with (folder / "crawl.log").open("wb") as output:
            process = subprocess.Popen(
                command, cwd=folder, env=crawl_env(), stdout=output, stderr=subprocess.STDOUT
            )
        processes[process.pid] = (process, folder)
    peak_rss: dict[int, float] = {}
    cpu: dict[int, float] = {}
    while len(peak_rss) < count:
        for pid, (process, _) in processes.items():
            if pid in peak_rss:
                continue
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                process.returncode = os.waitstatus_to_exitcode(status)
                peak_rss[pid] = usage.ru_maxrss / 1024  # kB on Linux
                cpu[pid] = usage.ru_utime + usage.ru_stime
        time.sleep(0.02)
    wall = time.perf_counter() - started
    stats, urls = [], []
    for process, folder in processes.values():
        log = (folder / "crawl.log").read_text(encoding="utf-8", errors="replace")
        if process.returncode != 0:
            raise SystemExit(f"crawl in {folder.name} exited {process.returncode}:\n{log[-3000:]}")
        stats.append(read_stats(log))
        urls += feed_urls(folder / "out.jsonl")
    for pid, stat in zip(processes, stats, strict=True):
        stat["cpu_seconds"] = cpu[pid]
    return wall, stats, [peak_rss[pid] for pid in processes], urls


def run_embedded(port: int, workdir: Path, concurrency: int) -> Run:
    load = os.getloadavg()[0]
    wall, stats, rss, urls = run_workers(port, workdir, concurrency, 1, None)
    return Run("embedded", 1, wall, stats, rss, urls, load)


def run_shared(
    port: int, redis_port: int, workdir: Path, concurrency: int, count: int, label: str
) -> Run:
    """``count`` workers sharing a freshly emptied Redis."""
    client = redis.Redis(port=redis_port, decode_responses=True)
    client.flushall()
    client.config_resetstat()
    memory_before = int(client.info("memory")["used_memory"])
    sampler = RedisSampler(redis_port)
    sampler.start()
    load = os.getloadavg()[0]
    url = f"redis://127.0.0.1:{redis_port}/0"
    try:
        wall, stats, rss, urls = run_workers(port, workdir, concurrency, count, url)
    finally:
        sampler.stop()
    run = Run(label, count, wall, stats, rss, urls, load, sampler=sampler)
    run.commandstats = {
        name.removeprefix("cmdstat_"): values
        for name, values in client.info("commandstats").items()
    }
    run.memory_before = memory_before
    run.memory_after = int(client.info("memory")["used_memory"])
    run.harvested = int(client.hlen("newsextract:state:harvested"))
    client.close()
    return run


def report_shared(port: int, root: Path, args: argparse.Namespace) -> None:
    EXTRA_SETTINGS[:] = args.set
    concurrency = args.concurrency
    low, high = args.latency
    print(
        f"site: {args.articles} articles, {low:g}-{high:g} ms a response; "
        f"{concurrency} concurrent requests per worker; {os.cpu_count()} CPUs"
    )
    reference = run_embedded(port, root / "embedded", concurrency)
    runs: list[Run] = []
    with redis_server(root / "redis") as redis_port:
        if args.redis:
            for count in args.workers:
                label = f"shared x{count}"
                runs.append(run_shared(port, redis_port, root / label, concurrency, count, label))
        print_throughput(reference, runs, args.articles)
        if args.redis_cost:
            if runs:
                print_cost(runs[0])
            with monitored(redis_port, root / "monitor.log") as monitor_log:
                label = "cost"
                cost = run_shared(port, redis_port, root / label, concurrency, 1, label)
            if not runs:
                print_cost(cost)
            print_round_trips(cost, monitor_log)
            print_ceiling(redis_port, runs[0] if runs else cost, cost)
            print_dupefilter_size(redis_port)


def print_throughput(reference: Run, runs: list[Run], expected: int) -> None:
    one = next((run for run in runs if run.workers == 1), None)
    print(
        f"\n{'mode':<11} {'workers':>7} {'articles':>8} {'repeats':>7} {'missing':>7} "
        f"{'wall s':>7} {'pages/s':>8} {'vs 1':>5} {'vs emb.':>7} {'crawl s':>7} "
        f"{'CPU s':>6} {'peak RSS MB each':>18} "
        f"{'load':>5}"
    )
    for run in [reference, *runs]:
        versus_one = f"{run.rate / one.rate:.2f}" if one else "-"
        rss = " ".join(f"{value:.0f}" for value in run.peak_rss_mb)
        print(
            f"{run.label:<11} {run.workers:>7} {run.articles:>8} {run.duplicates:>7} "
            f"{expected - run.articles:>7} {run.wall:>7.2f} {run.rate:>8.1f} {versus_one:>5} "
            f"{run.rate / reference.rate:>7.2f} {run.crawl_seconds:>7.2f} "
            f"{sum(s['cpu_seconds'] for s in run.stats):>6.1f} {rss:>18} "
            f"{run.load:>5.2f}",
            flush=True,
        )
    if any(run.duplicates or run.articles != expected for run in [reference, *runs]):
        print("CHECK FAILED: a union of feeds repeats or misses articles")


def calls(run: Run) -> Counter[str]:
    """Calls of each command during the run, the sampler's own taken out."""
    own = run.sampler.own if run.sampler else Counter()
    found: Counter[str] = Counter()
    for name, values in run.commandstats.items():
        if name in ("config|resetstat", "flushall"):
            continue
        left = int(values["calls"]) - own.get(name, 0)
        if left > 0:
            found[name] = left
    return found


def print_cost(run: Run) -> None:
    pages, articles = run.pages, run.harvested or run.articles
    found = calls(run)
    total = sum(found.values())
    print(f"\nwhat a page costs Redis ({run.label}: {pages:.0f} pages, {articles} articles)")
    print(f"{'command':<16} {'calls':>8} {'per page':>9} {'usec/call':>9}")
    for name, number in found.most_common():
        per_call = float(run.commandstats[name]["usec_per_call"])
        print(f"{name:<16} {number:>8} {number / pages:>9.2f} {per_call:>9.1f}")
    # Scripts' and EXEC's time holds the commands they ran, which also have rows of their own:
    # those alone are a floor of Redis's time a page, every row added up a ceiling.
    wrapping = ("evalsha", "eval", "exec", "multi")
    floor = sum(float(run.commandstats[name]["usec"]) for name in wrapping if name in found)
    every = sum(float(run.commandstats[name]["usec"]) for name in found)
    print(
        f"all commands (also those inside scripts) per page: {total / pages:.1f}; "
        f"Redis CPU per page {floor / pages:.0f}-{every / pages:.0f} usec (scripts and "
        "transactions alone - every row, inner commands counted twice)"
    )
    grown = run.memory_after - run.memory_before
    peak_memory = run.sampler.peak_memory if run.sampler else 0
    print(
        f"used_memory: {run.memory_before} before, peak {peak_memory}"
        f", {run.memory_after} after; kept after the run: {grown / articles:.0f} bytes per "
        f"harvested URL ({articles} harvested)"
    )
    if run.sampler:
        print(f"{'key (peak during the run)':<58} {'entries':>8} {'bytes':>10} {'B/entry':>8}")
        for key, peak in sorted(run.sampler.keys.items(), key=lambda item: -item[1].bytes):
            per = peak.bytes / peak.entries if peak.entries else 0
            print(f"{key:<58} {peak.entries:>8} {peak.bytes:>10} {per:>8.0f}")


@contextmanager
def monitored(port: int, path: Path) -> Iterator[Path]:
    """``redis-cli MONITOR`` into ``path`` while the block runs: it tells a command a
    worker sent from one a Lua script ran (``[0 lua]``)."""
    with path.open("wb") as out:
        process = subprocess.Popen(["redis-cli", "-p", str(port), "monitor"], stdout=out)
        time.sleep(0.2)
        try:
            yield path
        finally:
            time.sleep(0.2)
            process.terminate()
            process.wait()


def print_round_trips(run: Run, log: Path) -> None:
    sent: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    pattern = re.compile(r'^[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"')
    sampler = set((run.sampler.own if run.sampler else Counter()).keys()) | {"scan", "memory"}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = pattern.match(line)
        if not match:
            continue
        origin, command = match[1], match[2].lower()
        if origin == "lua":
            inside[command] += 1
        elif command not in sampler and command not in ("flushall", "config", "info"):
            sent[command] += 1
    pages = run.pages
    print(
        f"\nrequests the workers send ({run.label}, 1 worker under MONITOR, "
        f"{pages:.0f} pages): {sum(sent.values()) / pages:.1f} a page; "
        f"commands run inside scripts: {sum(inside.values()) / pages:.1f} a page"
    )
    print("  sent:   " + ", ".join(f"{n} {c / pages:.2f}" for n, c in sent.most_common()))
    print("  inside: " + ", ".join(f"{n} {c / pages:.2f}" for n, c in inside.most_common()))
    run.commandstats["_sent_per_page"] = {"calls": sum(sent.values()) / pages}


def print_ceiling(port: int, run: Run, monitored_run: Run) -> None:
    output = subprocess.run(
        ["redis-benchmark", "-p", str(port), "-q", "-n", "100000", "-t", CEILING_TESTS],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rates = {
        match[1]: float(match[2])
        for match in re.finditer(r"(\w+): ([\d.]+) requests per second", output)
    }
    print(
        f"\nredis-benchmark -q -n 100000 -t {CEILING_TESTS} (this machine, load "
        f"{os.getloadavg()[0]:.2f}):"
    )
    for name, rate in rates.items():
        print(f"  {name:<6} {rate:>10.0f} requests/s")
    mean = sum(rates.values()) / len(rates)
    every = sum(calls(run).values()) / run.pages
    sent = monitored_run.commandstats.get("_sent_per_page", {}).get("calls", every)
    print(
        f"mean {mean:.0f} requests/s over {every:.1f} commands a page (scripts' inner ones "
        f"too) = {mean / every:.0f} pages/s for one Redis; over {sent:.1f} requests sent a "
        f"page = {mean / sent:.0f} pages/s"
    )


#: Entries written to measure the duplicate filter's size per entry, large enough for the
#: hash table encoding a real crawl's filter has (past a few hundred entries).
DUPEFILTER_SAMPLE = 200_000


def print_dupefilter_size(port: int) -> None:
    """Bytes per entry of the duplicate filter's key at a size a real crawl reaches: the
    shared filter's hash (a SHA-1 fingerprint in hex to a 32-hex call token) and, for
    comparison, scrapy-redis's own set of fingerprints."""
    client = redis.Redis(port=port)
    client.flushall()
    rng = random.Random(1)
    with client.pipeline(transaction=False) as pipe:
        for number in range(DUPEFILTER_SAMPLE):
            fingerprint = f"{rng.getrandbits(160):040x}"
            pipe.hset("hash", fingerprint, f"{rng.getrandbits(128):032x}")
            pipe.sadd("set", fingerprint)
            if number % 10_000 == 0:
                pipe.execute()
        pipe.execute()
    print(f"\nduplicate filter, {DUPEFILTER_SAMPLE} entries (MEMORY USAGE ... SAMPLES 0):")
    for key, shape in (("hash", "fingerprint -> token hash (shared mode)"), ("set", "set")):
        size = int(client.memory_usage(key, samples=0) or 0)
        per = size / DUPEFILTER_SAMPLE
        print(f"  {shape:<42} {per:>6.0f} B/entry, {per * 1e6 / 2**20:>6.0f} MiB a million")
    client.flushall()
    client.close()


if __name__ == "__main__":
    sys.exit(main())

"""The page view's speed on long pages, beside trafilatura's extraction of the same pages.

    python benchmarks/view_speed.py [--largest 5] [--repeat 3]

Pages: the 2 MB page of ``tests/test_views.py`` (``two_megabyte_page``) and the ``--largest``
development pages by size (``--data``, default ``$NEWSEXTRACT_SHARED_DATA`` or
``../shared/data``). Per page, in seconds, the best of ``--repeat`` runs: parse and extract
(``parse_page`` + ``extract_article``, as ``batch``), render the view of a page analysed
beforehand (``render_view``), the whole ``show`` path (``write_view``: parse, analyse, render
and write the file), and trafilatura's ``extract`` of the page's decoded text, the reference,
in the same process. The target: ``show`` under a second on the 2 MB page.
"""

from __future__ import annotations

import argparse
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # for the tests' page builder

from newsextract.evaluation.dataset import development_data_dir, read_manifest  # noqa: E402
from newsextract.extraction import extract_article, parse_page  # noqa: E402
from newsextract.extraction.pagemodel.encoding import decode_html  # noqa: E402
from newsextract.records import article_record  # noqa: E402
from newsextract.views.page_view import analyse_page, render_view  # noqa: E402
from newsextract.views.view_file import write_view  # noqa: E402
from tests.test_views import two_megabyte_page  # noqa: E402

URL = "http://news.example/big.html"


def largest_pages(data: Path, count: int) -> list[tuple[str, bytes, str | None]]:
    """The ``count`` largest pages of every set, by their size unpacked (a gzip file ends
    with it), as (name, bytes, URL)."""
    sized = []
    for manifest in sorted(data.glob("*/manifest.jsonl")):
        for entry in read_manifest(manifest):
            raw = entry.html_path.read_bytes()
            size = struct.unpack("<I", raw[-4:])[0] if entry.html_path.suffix == ".gz" else len(raw)
            sized.append((size, f"{manifest.parent.name}/{entry.id}", entry))
    sized.sort(key=lambda item: -item[0])
    return [(name, entry.read_html(), entry.url) for _, name, entry in sized[:count]]


def best(repeat: int, run: Callable[..., object], *args: object) -> float:
    """The shortest of ``repeat`` runs of ``run(*args)``."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run(*args)
        times.append(time.perf_counter() - started)
    return min(times)


def parse_and_extract(body: bytes, url: str | None) -> None:
    extract_article(parse_page(body, url))


def render_seconds(body: bytes, url: str | None, repeat: int) -> float:
    """``render_view`` alone: it consumes its page, so each run analyses a fresh one first."""
    times = []
    for _ in range(repeat):
        analysis = analyse_page(parse_page(body, url))
        record = article_record(analysis.article, url)
        started = time.perf_counter()
        render_view(analysis, record)
        times.append(time.perf_counter() - started)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=development_data_dir())
    parser.add_argument("--largest", type=int, default=5, help="development pages, largest first")
    parser.add_argument("--repeat", type=int, default=3, help="runs a figure is the best of")
    args = parser.parse_args(argv)
    import trafilatura

    pages: list[tuple[str, bytes, str | None]] = [("2 MB page", two_megabyte_page().encode(), URL)]
    if args.data.is_dir():
        pages += largest_pages(args.data, args.largest)
    else:
        print(f"no development data in {args.data}: the generated page only")
    out = Path(tempfile.mkdtemp()) / "view.html"
    write_view(b"<p>A first page loads the model.</p>", None, out)
    print(f"{'page':<34}{'bytes':>10}{'blocks':>8}{'extract':>9}{'render':>8}{'show':>8}"
          f"{'traf.':>8}{'show/traf.':>11}")  # fmt: skip
    for name, body, url in pages:
        text = decode_html(body).text
        blocks = len(parse_page(body, url).blocks)
        extract = best(args.repeat, parse_and_extract, body, url)
        render = render_seconds(body, url, args.repeat)
        show = best(args.repeat, write_view, body, url, out)
        reference = best(args.repeat, trafilatura.extract, text, url)
        print(
            f"{name[:33]:<34}{len(body):>10,}{blocks:>8,}{extract:>9.3f}{render:>8.3f}"
            f"{show:>8.3f}{reference:>8.3f}{show / reference:>11.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Pages per second read from a web archive against read from saved page files, same run.

    python benchmarks/warc_speed.py --pages 300

The first ``--pages`` pages of the dragnet development set (``--data``, default
``$NEWSEXTRACT_SHARED_DATA`` or ``../shared/data``) are written into a temporary gzipped WARC
(:class:`newsextract.warc.writer.WarcWriter`, as a crawl writes it). Each pass then reads and
extracts every page (``parse_page`` + ``extract_article``, as ``batch`` in single mode):
from the saved ``.html.gz`` files, and from the archive (:class:`WarcReader`, the HTTP
Content-Type passed on). Passes alternate, the best of ``--repeat`` counts. The target: the
archive costs under 10 % on top of extraction itself.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import itertools
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from newsextract.evaluation.dataset import development_data_dir, read_manifest
from newsextract.extraction import extract_article, parse_page
from newsextract.warc.reader import WarcReader
from newsextract.warc.writer import WarcWriter, http_block

#: The archive's header, and what the file pass is told too: like for like, since a page
#: decoded with a Content-Type skips part of the charset search.
CONTENT_TYPE = "text/html"
HTML = [(b"Content-Type", CONTENT_TYPE.encode())]


def write_archive(folder: Path, pages: Iterable[tuple[str, bytes]]) -> Path:
    writer = WarcWriter(folder, "bench")
    for url, body in pages:
        writer.write_response(url, http_block(200, HTML, body))
    writer.close()
    return writer.files[0]


def extract(body: bytes, url: str | None, content_type: str | None = None) -> None:
    # A page that gives no article costs its time all the same.
    with contextlib.suppress(Exception):
        extract_article(parse_page(body, url, content_type))


def from_files(entries: list[tuple[str, Path]]) -> float:
    started = time.perf_counter()
    for url, path in entries:
        extract(gzip.decompress(path.read_bytes()), url, CONTENT_TYPE)
    return time.perf_counter() - started


def from_archive(archive: Path) -> float:
    started = time.perf_counter()
    for response in WarcReader(archive):
        extract(response.body, response.url, response.content_type)
    return time.perf_counter() - started


def read_only(archive: Path) -> float:
    started = time.perf_counter()
    for _ in WarcReader(archive):
        pass
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=development_data_dir())
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    manifest = args.data / "dragnet" / "manifest.jsonl"
    chosen = list(itertools.islice(read_manifest(manifest), args.pages))
    entries = [(e.url or f"http://dragnet.test/{e.id}.html", e.html_path) for e in chosen]
    with tempfile.TemporaryDirectory() as folder:
        pages = ((url, e.read_html()) for (url, _), e in zip(entries, chosen, strict=True))
        archive = write_archive(Path(folder), pages)
        extract(chosen[0].read_html(), entries[0][0])  # loads the models: not timed
        files_s, warc_s, read_s = [], [], []
        for _ in range(args.repeat):
            files_s.append(from_files(entries))
            warc_s.append(from_archive(archive))
            read_s.append(read_only(archive))
        size = archive.stat().st_size
    n, files, warc, read = len(entries), min(files_s), min(warc_s), min(read_s)
    print(f"{n} dragnet pages, archive {size / 1e6:.1f} MB gzipped, best of {args.repeat}")
    print(f"from files   {n / files:7.1f} pages/s")
    print(f"from WARC    {n / warc:7.1f} pages/s")
    print(f"overhead     {100 * (warc - files) / files:+.1f} % (WARC against files, same run)")
    print(f"reading WARC {1000 * read / n:.2f} ms/page = {100 * read / files:.1f} % of extraction")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fuzz the compiled page model against the Python walk it replaced (tests/reference_blocks.py).

Every page (a development page mutated: bytes flipped, cut, tags inserted, spliced; or a
page generated from a small grammar, sometimes in a legacy encoding) goes through
parse -> clean -> the compiled walk, and the blocks must equal the reference walk's, field by
field, on the whole tree and on a few subtrees; a share of the pages also goes through
``parse_page`` and ``extract_article``, and its compiled features are compared with the
numpy code they replaced (tests/reference_features.py), byte for byte. Page ``i`` comes from
its own seeded generator, so ``--start i --pages 1`` replays it alone. Exit status 1 on any
mismatch or crash.

Under AddressSanitizer, in a copy of the repository of its own (the ASan build would
otherwise replace the normal one), with CPython itself not instrumented::

    NEWSEXTRACT_SANITIZE=address python3 setup.py build_ext --inplace --force
    LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 \\
        python3 benchmarks/fuzz.py --pages 100000

(``detect_leaks=0``: CPython keeps its objects alive at exit by design.)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT), str(REPO_ROOT / "tests")]

from devdata import SHARED_DATA  # noqa: E402
from lxml import etree  # noqa: E402
from reference_blocks import first_difference, reference_split_blocks  # noqa: E402
from reference_features import (  # noqa: E402
    reference_context_features,
    reference_first_stage_features,
)

from newsextract.evaluation.dataset import read_manifest  # noqa: E402
from newsextract.exceptions import NewsExtractError  # noqa: E402
from newsextract.extraction.evidence.classifier import (  # noqa: E402
    default_model,
    first_stage_features,
    title_blocks,
)
from newsextract.extraction.evidence.context import context_features  # noqa: E402
from newsextract.extraction.pagemodel import _walk  # noqa: E402
from newsextract.extraction.pagemodel.blocks import split_blocks  # noqa: E402
from newsextract.extraction.pagemodel.blocktable import read_blocks  # noqa: E402
from newsextract.extraction.pagemodel.page import (  # noqa: E402
    Page,
    clean_tree,
    parse_html,
    parse_page,
)
from newsextract.extraction.record.article import extract_article  # noqa: E402

#: Sets whose pages are mutated: English news, Chinese in GB encodings, and broken markup.
SETS_DEFAULT = ("dragnet", "chinese_wced", "msv_chaos")
PER_SET_DEFAULT = 60
#: One page in this many also goes through parse_page and extract_article (whole-page cost).
EXTRACT_EVERY_DEFAULT = 20
#: Subtrees walked on their own as well as the whole tree (templates/fastpath.py does that).
SUBTREES_PER_PAGE = 3

SNIPPETS = (
    "<div>", "</div>", "<p>", "</p>", "<a href=x>", "</a>", "<br>", "<br/>", "<li>", "</li>",
    "<span title=' '>", "<img alt='\u3000'>", "<img alt=' photo '>", "<b title=' t '>",
    "<!-- c -->", "<!--", "-->", "<?pi x?>", "<![CDATA[ x ]]>", "&amp;", "&nbsp;", "&#0;",
    "&#x2028;", "&bogus;", "\u3000", "\u00a0", "\u2028", "\u200b", "\x00", "\ufeff", "\r",
    "<table><tr><td>", "</td>", "</table>", "<script>", "</script>", "<style>", "<noscript>",
    "<div hidden>", "<div style='display:none'>", "<p aria-hidden=true>", "<h2>", "<pre>",
    "<x:p xmlns:x='urn:x'>", "<svg><p>", "<math><mi>", "<frameset>", "<body>", "<html>",
    "<head>", "<title>", "<meta charset=shift_jis>", "<option>", "<select>", "<template>",
    "<button>", "<textarea>", "</body>", "</html>", "<", ">", "\"", "'", "=",
)  # fmt: skip
TAGS = (
    "div", "p", "span", "a", "b", "li", "ul", "td", "tr", "table", "h1", "br", "img", "section",
    "article", "pre", "em", "blockquote", "figure", "figcaption", "font",
)  # fmt: skip
WORDS = (
    "news", "word", "Zürich", "東京の天気", "北京", "кошка", "مرحبا", " ", "\n", "\t",
    "\u3000", "\u00a0", "\u2028", "\u200b", "e\u0301", "&amp;", "&lt;", "&#12288;", ". ",
)  # fmt: skip
ATTRIBUTES = (
    "", " title=' '", " title='\u3000x '", " alt=\"\u00a0\"", " class=x", " hidden",
    " style='display:none'", " href=x", " id=y",
)  # fmt: skip
ENCODINGS = ("utf-8", "cp1252", "shift_jis", "euc_jp", "gb18030", "utf-16")


@dataclass
class Tally:
    """What the run found so far."""

    pages: int = 0
    rejected: int = 0  # typed errors (NewsExtractError): an accepted answer
    walks: int = 0
    mismatches: list[str] = field(default_factory=list)
    crashes: list[int] = field(default_factory=list)  # the pages' indices
    #: (stage, exception type, message) -> how often, and the first page that raised it
    crash_kinds: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    first_crash: dict[tuple[str, str, str], int] = field(default_factory=dict)


def load_pages(data: Path, sets: Sequence[str], per_set: int) -> list[bytes]:
    """Up to ``per_set`` pages of each set, spread over the set, read in place."""
    pages: list[bytes] = []
    for name in sets:
        manifest = data / name / "manifest.jsonl"
        if not manifest.exists():
            continue
        entries = list(read_manifest(manifest))
        step = max(1, len(entries) // per_set)
        pages += [entry.read_html() for entry in entries[::step][:per_set]]
    return pages


def mutate(rng: random.Random, page: bytes, pages: Sequence[bytes]) -> bytes:
    """One to four mutations of ``page``."""
    for _ in range(rng.randint(1, 4)):
        page = rng.choice(MUTATIONS)(rng, page, pages)
    return page


def flip_bytes(rng: random.Random, page: bytes, pages: Sequence[bytes]) -> bytes:
    data = bytearray(page)
    for _ in range(rng.randint(1, 16) if data else 0):
        data[rng.randrange(len(data))] = rng.choice((0, 0x3C, 0x3E, 0x80, 0xA0, rng.randrange(256)))
    return bytes(data)


def cut(rng: random.Random, page: bytes, pages: Sequence[bytes]) -> bytes:
    start = rng.randrange(len(page) + 1)
    return page[start : start + rng.choice((64, 512, 4096, 32768, len(page)))]


def insert_tags(rng: random.Random, page: bytes, pages: Sequence[bytes]) -> bytes:
    for _ in range(rng.randint(1, 24)):
        at = rng.randrange(len(page) + 1)
        page = page[:at] + rng.choice(SNIPPETS).encode() + page[at:]
    return page


def splice(rng: random.Random, page: bytes, pages: Sequence[bytes]) -> bytes:
    other = rng.choice(pages) if pages else page
    return page[: rng.randrange(len(page) + 1)] + other[rng.randrange(len(other) + 1) :]


def repeat(rng: random.Random, page: bytes, pages: Sequence[bytes]) -> bytes:
    start = rng.randrange(len(page) + 1)
    piece = page[start : start + rng.randint(1, 200)]
    return page[:start] + piece * rng.randint(2, 400) + page[start:]


MUTATIONS: tuple[Callable[[random.Random, bytes, Sequence[bytes]], bytes], ...] = (
    flip_bytes,
    cut,
    insert_tags,
    splice,
    repeat,
)


def generated_html(rng: random.Random, budget: int = 60) -> str:
    """Nested markup from a small grammar; now and then a chain deeper than libxml2 parses."""
    parts: list[str] = []
    open_tags: list[str] = []
    for _ in range(rng.randint(1, budget)):
        choice = rng.random()
        if choice < 0.35:
            tag = rng.choice(TAGS)
            parts.append(f"<{tag}{rng.choice(ATTRIBUTES)}>")
            open_tags.append(tag)
        elif choice < 0.55 and open_tags:
            parts.append(f"</{open_tags.pop()}>")
        elif choice < 0.65:
            parts.append(rng.choice(SNIPPETS))
        else:
            parts.append(rng.choice(WORDS) * rng.randint(1, 3))
    if rng.random() < 0.02:
        depth = rng.randint(200, 3000)
        parts.append("".join(f"<{rng.choice(TAGS)}>x" for _ in range(depth)))
    return "<html><body>" + "".join(parts) + "</body></html>"


def generated_page(rng: random.Random) -> tuple[bytes, str | None]:
    """A generated page's bytes in one of the covered encodings, with or without a header."""
    html = generated_html(rng)
    encoding = rng.choice(ENCODINGS)
    body = html.encode(encoding, "xmlcharrefreplace")
    if rng.random() < 0.5:
        return body, f"text/html; charset={encoding}"
    return body, None


def make_page(index: int, seed: int, pages: Sequence[bytes]) -> tuple[bytes, str | None]:
    """Page ``index`` of the run: the same bytes for the same seed, whatever the order."""
    rng = random.Random(seed * 1_000_003 + index)
    if pages and rng.random() < 0.6:
        return mutate(rng, rng.choice(pages), pages), None
    body, content_type = generated_page(rng)
    return (mutate(rng, body, pages) if rng.random() < 0.3 else body), content_type


def compare(root: etree._Element, hidden: set[etree._Element] | None) -> str | None:
    """Where the compiled walk and the reference differ on ``root``'s tree, or None."""
    expected = reference_split_blocks(root, hidden)
    difference: str | None = first_difference(split_blocks(root, hidden), expected)
    return difference


def compare_features(page: Page) -> str | None:
    """Which of method E's compiled matrices differs from the numpy reference, or None."""
    model = default_model()
    table = read_blocks(page)
    first = first_stage_features(table, model.names, model.stop_words)
    if (
        first.tobytes()
        != reference_first_stage_features(table, model.names, model.stop_words).tobytes()
    ):
        return "first stage"
    p = model.layout.predict(first)
    title = title_blocks(page, table)
    if (
        context_features(table, p, title).tobytes()
        != reference_context_features(table, p, title).tobytes()
    ):
        return "context"
    return None


def check_page(
    index: int, body: bytes, content_type: str | None, extract: bool, tally: Tally
) -> None:
    """Parse, clean, walk the tree and a few subtrees both ways; maybe extract. A crash (an
    exception that is not a typed error) is counted with the stage that raised it."""
    stage = "parse_html"
    try:
        parsed = parse_html(body, content_type)
        stage = "clean_tree"
        hidden = clean_tree(parsed.root)
        stage = "walk"
        walk_both(index, parsed.root, hidden, tally)
        if extract:
            stage = "parse_page+extract_article"
            page = parse_page(body, "http://example.org/fuzz", content_type)
            difference = compare_features(page)
            if difference is not None:
                tally.mismatches.append(f"page {index} features: {difference}")
            extract_article(page)
    except NewsExtractError:
        tally.rejected += 1
    except Exception as error:  # a finding: count it, keep its replay index, go on
        kind = (stage, type(error).__name__, str(error)[:200])
        tally.crashes.append(index)
        tally.crash_kinds[kind] += 1
        tally.first_crash.setdefault(kind, index)


def walk_both(index: int, root: etree._Element, hidden: set[etree._Element], tally: Tally) -> None:
    """Compare the walks on the whole tree and on a few subtrees (hidden found by each)."""
    rng = random.Random(index)
    elements = list(root.iter(etree.Element))
    picked = rng.sample(elements, min(SUBTREES_PER_PAGE, len(elements)))
    for subtree, hidden_here in [(root, hidden)] + [(element, None) for element in picked]:
        difference = compare(subtree, hidden_here)
        tally.walks += 1
        if difference is not None:
            tally.mismatches.append(f"page {index} <{subtree.tag}>: {difference}")


def run(args: argparse.Namespace) -> Tally:
    pages = load_pages(args.data, args.sets.split(","), args.per_set)
    print(f"compiled walk: {_walk.__file__}", flush=True)
    print(f"{len(pages)} development pages to mutate; seed {args.seed}", flush=True)
    tally = Tally()
    started = time.monotonic()
    for index in range(args.start, args.start + args.pages):
        body, content_type = make_page(index, args.seed, pages)
        check_page(index, body, content_type, index % args.extract_every == 0, tally)
        tally.pages += 1
        if tally.pages % args.report_every == 0 or tally.pages == args.pages:
            report(tally, time.monotonic() - started)
    return tally


def report(tally: Tally, seconds: float) -> None:
    print(
        f"pages {tally.pages:,}  walks {tally.walks:,}  rejected {tally.rejected:,}  "
        f"mismatches {len(tally.mismatches)}  crashes {len(tally.crashes)}  "
        f"{tally.pages / max(seconds, 1e-9):,.0f} pages/s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--start", type=int, default=0, help="index of the first page")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--sets", default=",".join(SETS_DEFAULT))
    parser.add_argument("--per-set", type=int, default=PER_SET_DEFAULT)
    parser.add_argument("--extract-every", type=int, default=EXTRACT_EVERY_DEFAULT)
    parser.add_argument("--report-every", type=int, default=5_000)
    args = parser.parse_args(argv)
    tally = run(args)
    for finding in tally.mismatches[:20]:
        print(finding)
    for (stage, name, message), count in tally.crash_kinds.most_common():
        first = tally.first_crash[(stage, name, message)]
        print(f"{count} crashes in {stage} (first: page {first}): {name}: {message}")
    return 1 if tally.mismatches or tally.crashes else 0


if __name__ == "__main__":
    sys.exit(main())

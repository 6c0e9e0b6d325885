"""newsextract as a DataTrove pipeline step: web archives into article records, at any scale.

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter
    from newsextract.integrations.datatrove import ArticleExtractor, NewsWarcReader, article_record

    LocalPipelineExecutor(
        pipeline=[
            NewsWarcReader("warc/"),
            ArticleExtractor(),
            JsonlWriter("articles/", adapter=article_record, compression=None),
        ],
        tasks=2,
    ).run()

:class:`ArticleExtractor` is a DataTrove extractor (``BaseExtractor``: each page is read in a
child process with a per-page timeout, and a page that gives no article is dropped and
counted). A document leaves it with the article's body as its text and the rest of the
article record in its metadata: headline, dates, authors, language, site, fetch time, the
extraction's method and confidence, and ``warcRecordId`` (the document's id). With
:func:`article_record` as the writer's adapter, each line is the record ``newsextract batch
--warc`` writes (single mode) for the same archive.

:class:`NewsWarcReader` reads web archives as ``batch --warc`` does: of an archive a
newsextract crawl wrote, only the article pages, with the crawl's site and language; of
another archive, every HTML response with a 2xx status; each decoded with its HTTP charset.
After DataTrove's own ``WarcReader`` (which keeps neither the HTTP headers nor the crawl's
fields), :class:`ArticleExtractor` reads every HTML response it gives, its site being the
URL's host name.

The same pipeline runs on a cluster with DataTrove's ``SlurmPipelineExecutor`` or
``RayPipelineExecutor`` in place of the local one (see the README).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

try:
    from datatrove.data import Document, DocumentsPipeline
    from datatrove.pipeline.extractors.base import BaseExtractor, ExtractorSandbox
    from datatrove.pipeline.readers.base import BaseDiskReader
    from datatrove.utils.typeshelper import StatHints
except ImportError as error:  # the optional extra is not installed
    raise ImportError(
        "newsextract.integrations.datatrove needs DataTrove: pip install 'newsextract[datatrove]'"
    ) from error

logger = logging.getLogger(__name__)

#: Seconds a page may take. DataTrove's own extractors allow 1 s for trafilatura; a page of
#: ours is read in 20-50 ms as a rule, but the largest ones of the development data take a
#: few seconds, and the first page waits for the model.
TIMEOUT_DEFAULT = 10.0
#: The page the sandbox reads before the first document, so that the model is loaded then.
WARMUP_PAGE = "<html><body><article><p>" + "A warm-up sentence. " * 20 + "</p></article></body>"
#: The Content-Type a page is read with: the document's text, encoded again.
_UTF8_HTML = "text/html; charset=utf-8"


class ArticleExtractor(BaseExtractor):  # type: ignore[misc]  # DataTrove ships no type hints
    """The article of each HTML document: its body as the text, its record in the metadata."""

    name = "📰 newsextract"
    _requires_dependencies = ["newsextract"]

    def __init__(self, timeout: float = TIMEOUT_DEFAULT) -> None:
        super().__init__(timeout)

    def extract(self, text: str) -> str:
        """The article body of one HTML page (DataTrove's extractor interface)."""
        record = page_record(text, None, "", "", "")
        return str(record["articleBody"]) if isinstance(record, dict) else ""

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        """``BaseExtractor.run``, with the whole record kept: a page goes to the sandbox with
        what the reader knew of it (URL, site, fetch time), and comes back as its record."""
        warmup = (WARMUP_PAGE, None, "", "", "")
        with ExtractorSandbox(timeout=self.timeout, warmup_text=warmup) as sandbox:
            for document in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    record = self._record(sandbox, document)
                if record is None:
                    self.stat_update(StatHints.dropped)
                    continue
                document.text = record.pop("articleBody")
                document.metadata.update(record)
                self.stat_update(StatHints.forwarded)
                self.update_doc_stats(document)
                yield document

    def _record(self, sandbox: Any, document: Document) -> dict[str, Any] | None:
        metadata = document.metadata
        url = metadata.get("url") or None
        site = metadata.get("site") or (urlsplit(url).hostname if url else "") or ""
        page = (document.text, url, site, str(metadata.get("date") or ""), str(document.id))
        try:
            answer = sandbox.process_document(page, page_record)
        except TimeoutError:
            self.stat_update("timeout")
            logger.warning("timeout: %s took over %s s", url or document.id, self.timeout)
            return None
        except EOFError:  # the sandbox's process died (out of memory?); a new one follows
            self.stat_update("broken_process")
            return None
        if isinstance(answer, str):
            self.stat_update("no_article")
            return None
        return dict(answer)


def page_record(
    html: str, url: str | None, site: str, fetched_at: str, record_id: str
) -> dict[str, Any] | str:
    """The record ``batch --warc`` writes for the page, or why it gives none. It runs in the
    sandbox's process: what it imports is imported there."""
    from newsextract.evaluation import runner
    from newsextract.warc.batch import ArchivedEntry, article_record

    entry = ArchivedEntry(
        id=record_id,
        url=url,
        html_path=Path(url or record_id or "page"),
        text_path=None,
        lang="",
        fields={"domain": site} if site else {},
        content_type=_UTF8_HTML,
        body=html.encode("utf-8", "replace"),
        record_id=record_id,
        fetched_at=fetched_at,
    )
    outcome = runner.extract_one(entry, runner.load_method("combined"), "combined")
    if outcome.error or not outcome.body.strip():
        return outcome.error or "no main text found"
    return article_record(outcome, entry)


class NewsWarcReader(BaseDiskReader):  # type: ignore[misc]
    """A DataTrove reader of web archives (the arguments of DataTrove's ``WarcReader``, whose
    base it shares) reading the pages ``batch --warc`` reads: each document's text is the
    page decoded with its HTTP charset; its metadata the URL, the WARC-Date, the Content-Type
    and, from a newsextract crawl's archive, the site and language. It reads with the
    project's own archive reader, so it needs none of DataTrove's ``io`` extra."""

    name = "🕷 newsextract Warc"
    _requires_dependencies = ["newsextract"]

    def read_file(self, filepath: str) -> Iterator[Document]:
        from newsextract.extraction.pagemodel.encoding import decode_html
        from newsextract.warc.reader import WarcReader as ArchiveReader
        from newsextract.warc.replay import not_a_page

        with _local_file(self.data_folder, filepath) as path:
            reader = ArchiveReader(path)
            for number, response in enumerate(reader):
                with self.track_time():
                    if not_a_page(response) is not None:
                        self.stat_update("not_a_page")
                        continue
                    page = {
                        "text": decode_html(response.body, response.content_type).text,
                        "id": response.record_id,
                        "url": response.url,
                        "date": response.date,
                        "content_type": response.content_type,
                        "site": response.site or urlsplit(response.url).hostname or "",
                        "language": response.language,
                    }
                    document = self.get_document_from_dict(page, filepath, number)
                if document:
                    yield document
            if reader.damage:
                damage = f"{path}: damaged, {reader.damage}"
                logger.warning("%s; the records before it were read", damage)


@contextlib.contextmanager
def _local_file(folder: Any, filepath: str) -> Iterator[Path]:
    """The archive as a local file (the archive reader checks a file's tail for damage): the
    file itself, or a copy of a remote one in a temporary folder."""
    resolved = folder.resolve_paths(filepath)
    if Path(resolved).is_file():
        yield Path(resolved)
        return
    with tempfile.TemporaryDirectory(prefix="newsextract-warc-") as scratch:
        local = Path(scratch) / Path(filepath).name
        with folder.open(filepath, "rb", compression=None) as remote, local.open("wb") as copy:
            shutil.copyfileobj(remote, copy)
        yield local


def article_record(writer: Any, document: Document) -> dict[str, Any]:
    """A writer's adapter (``JsonlWriter(..., adapter=article_record)``): the document as the
    record ``batch --warc`` writes, field for field."""
    from newsextract.items import ArticleItem

    metadata = document.metadata
    names = [field.name for field in dataclasses.fields(ArticleItem)]
    record = {name: metadata.get(name) for name in names}
    record["articleBody"] = document.text
    record["warcRecordId"] = metadata.get("warcRecordId", document.id)
    return record

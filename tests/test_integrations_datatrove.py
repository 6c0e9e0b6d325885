"""DataTrove: a crawl's web archive through NewsWarcReader -> ArticleExtractor -> JsonlWriter, in
two tasks, gives the records of ``newsextract batch --warc``."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from crawl_runner import CrawlRunner, read_jsonl
from mirror import Mirror

MODULE = "newsextract.integrations.datatrove"


def _records(folder: Path) -> list[dict[str, Any]]:
    lines = [
        line for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines()
    ]
    return sorted((json.loads(line) for line in lines), key=lambda r: str(r["warcRecordId"]))


@pytest.mark.e2e
def test_a_pipeline_of_two_tasks_gives_the_records_of_batch_warc(
    mirror_site: Mirror, crawl_runner: CrawlRunner, tmp_path: Path
) -> None:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter

    from newsextract.integrations.datatrove import ArticleExtractor, NewsWarcReader, article_record

    crawl = crawl_runner.run(
        tmp_path / "crawl",
        "site",
        {"start_url": mirror_site.url("/index.html"), "allow": r"/article/\d+\.html"},
        settings={
            "NEWSEXTRACT_WARC_DIR": "warc",
            "NEWSEXTRACT_WARC_MAX_SIZE": "100000",  # rotated: files for both tasks
            "NEWSEXTRACT_STATE": "off",
        },
    )
    assert crawl.returncode == 0, crawl.log[-3000:]
    warc = tmp_path / "crawl" / "warc"
    archives = sorted(warc.glob("site-*.warc.gz"))
    assert len(archives) >= 2
    batch_out = tmp_path / "batch.jsonl"
    command = [sys.executable, "-m", "newsextract.cli", "batch", "--warc", *map(str, archives)]
    result = subprocess.run(
        [*command, "--out", str(batch_out), "--quiet"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    LocalPipelineExecutor(
        pipeline=[
            NewsWarcReader(str(warc), glob_pattern="site-*.warc.gz"),
            ArticleExtractor(),
            JsonlWriter(str(tmp_path / "records"), adapter=article_record, compression=None),
            JsonlWriter(str(tmp_path / "documents"), compression=None),
        ],
        tasks=2,
        workers=2,
        logging_dir=str(tmp_path / "logs"),
    ).run()
    assert len(list((tmp_path / "records").glob("*.jsonl"))) == 2  # one file a task
    expected = sorted(read_jsonl(batch_out), key=lambda r: str(r["warcRecordId"]))
    assert len(expected) >= 20
    assert _records(tmp_path / "records") == expected
    documents = [
        json.loads(line)
        for path in sorted((tmp_path / "documents").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    by_id = {str(record["warcRecordId"]): record for record in expected}
    for document in documents:  # DataTrove's own format: the record's fields in the metadata
        record = by_id[document["id"]]
        assert document["text"] == record["articleBody"]
        assert {
            name: document["metadata"].get(name) for name in record if name != "articleBody"
        } == {name: value for name, value in record.items() if name != "articleBody"}
    assert len(documents) == len(expected)


def test_the_extractor_alone_gives_the_body(tmp_path: Path) -> None:
    from newsextract.integrations.datatrove import ArticleExtractor

    paragraphs = "".join(
        f"<p>Paragraph {n} of a story about the harbour, its boats and the people who fish "
        "there every morning of the year.</p>"
        for n in range(8)
    )
    body = ArticleExtractor().extract(f"<html><body><article>{paragraphs}</article></body></html>")
    assert body.splitlines()[0].startswith("Paragraph 0 of a story")
    assert ArticleExtractor().extract("<html><body></body></html>") == ""


def test_without_datatrove_the_import_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in sys.modules if name.split(".")[0] == "datatrove"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "datatrove", None)
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    with pytest.raises(ImportError, match=r"pip install 'newsextract\[datatrove\]'"):
        importlib.import_module(MODULE)

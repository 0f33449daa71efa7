"""``ssegen generate`` on each third-party AsyncAPI document of ``../shared/corpus/asyncapi/``
(asyncapi/spec v2.0/v2.6/v3.0, parser-js, avro-schema-parser; ``MANIFEST.json`` names repo,
path and commit of each): none crashes, and a provider that yields nothing says why.

The corpus is third-party data: it is read from ``../shared`` and copied into a temporary
specs folder at test time, never into the project; without ``../shared`` (a fresh clone)
the test skips with the reason.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SHARED, shared_path

from ssegen.cli import main

MANIFEST = SHARED / "corpus" / "asyncapi" / "MANIFEST.json"
ENTRIES = sorted(json.loads(MANIFEST.read_text(encoding="utf-8"))) if MANIFEST.exists() else ["corpus-absent"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_corpus_document_generates_without_crashing(tmp_path: Path, entry: str) -> None:
    corpus = shared_path("corpus", "asyncapi")
    specs = tmp_path / "specs"
    shutil.copytree(corpus / entry, specs / entry)
    result = CliRunner().invoke(
        main, ["generate", "--specs", str(specs), "--out", str(tmp_path / "out"), "--format", "json", "-q", entry]
    )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 0:
        assert (tmp_path / "out" / entry / "__init__.py").is_file()
        return
    diagnostics = json.loads(result.output[result.output.index("[") :])
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert errors, result.output
    for d in errors:
        if d["code"] == "provider-empty":
            # It names what the document has instead of a stream (e.g. only request operations).
            assert f"{entry}/" in d["message"] and ": " in d["message"].split("describes a stream", 1)[1]

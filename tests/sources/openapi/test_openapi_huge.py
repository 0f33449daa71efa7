"""Huge OpenAPI documents (issue 15's hostile case): thousands of operations are skipped with
one info line, and a document past the YAML node limit is refused with an error naming it,
while the provider's other sources still load. Built at test time (megabytes are not
committed); how fast is measured in ``benchmarks/``, not asserted here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ssegen.load import load_provider
from ssegen.sources import document
from ssegen.sources.document import MAX_NODES

STREAM = {
    "post": {
        "responses": {
            "200": {
                "description": "stream",
                "content": {
                    "text/event-stream": {
                        "schema": {
                            "type": "object",
                            "required": ["id"],
                            "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
                        }
                    }
                },
            }
        }
    }
}


def _document(operations: int) -> dict[str, object]:
    """An OpenAPI 3.1 document with one streaming operation and ``operations`` JSON ones."""
    plain = {
        "get": {
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
        }
    }
    paths: dict[str, object] = {f"/things/{i}": plain for i in range(operations)}
    paths["/stream"] = STREAM
    return {"openapi": "3.1.0", "info": {"title": "Huge", "version": "1"}, "paths": paths}


@pytest.mark.parametrize(
    "operations",
    [2_000, pytest.param(20_000, marks=pytest.mark.slow)],  # 20,000: 4 s, .ci/run runs it
)
def test_thousands_of_operations_are_skipped_with_one_info_line(tmp_path: Path, operations: int) -> None:
    folder = tmp_path / "huge"
    folder.mkdir()
    (folder / "openapi.json").write_text(json.dumps(_document(operations)), encoding="utf-8")
    result = load_provider(tmp_path, "huge")
    assert result.provider is not None and [c.address for c in result.provider.channels] == ["/stream"]
    (found,) = [d for d in result.diagnostics if d.code == "openapi-streams-found"]
    assert found.message.startswith(f"1 of {operations + 1} ")
    assert len(result.diagnostics) < 10  # nothing per skipped operation


@pytest.mark.parametrize(
    "limit",
    [
        # The same path at a fiftieth of the limit: the default run's.
        pytest.param(MAX_NODES // 50, id="limit-lowered"),
        # At the limit itself: about 10 s, the composer walks a million nodes (.ci/run runs it).
        pytest.param(MAX_NODES, id="limit", marks=[pytest.mark.e2e, pytest.mark.slow]),
    ],
)
def test_an_alias_bomb_is_refused_a_large_plain_document_is_read_and_the_other_sources_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """A YAML document whose aliases add more than :data:`MAX_NODES` nodes is refused with
    ``yaml-too-large`` at the line of the value repeated; one as large without aliases (a
    provider's 50 MB document of 125,000 schemas) is read in linear time.  ``limit`` stands for
    :data:`MAX_NODES` (the loader reads the module's constant at each alias)."""
    monkeypatch.setattr(document, "MAX_NODES", limit)
    folder = tmp_path / "huge"
    folder.mkdir()
    head = "openapi: 3.1.0\ninfo: {title: Big, version: '1'}\npaths: {}\n"
    # 601 aliases of a list of limit/500 + 1 items: 1.2 times the limit
    bomb = head + "x-a: &a [" + "0," * (limit // 500) + "0]\nx-b: [" + "*a," * 600 + "*a]\n"
    (folder / "bomb.yaml").write_text(bomb, encoding="utf-8")
    (folder / "big.yaml").write_text(head + "x-big: [" + "0," * limit + "0]\n", encoding="utf-8")
    small = {"openapi": "3.1.0", "info": {"title": "Small", "version": "1"}, "paths": {"/stream": STREAM}}
    (folder / "small.json").write_text(json.dumps(small), encoding="utf-8")
    result = load_provider(tmp_path, "huge")
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    assert [(d.code, d.file, d.line) for d in errors] == [("yaml-too-large", "huge/bomb.yaml", 4)]
    assert f"more than {limit} nodes" in errors[0].message
    assert result.provider is not None and [c.address for c in result.provider.channels] == ["/stream"]

"""The AsyncAPI loader on the real seeds: every wart survives with its diagnostic."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import SEED_SPECS, SPECS, shared_path

from ssegen.diagnostics import Severity
from ssegen.load import load_provider
from ssegen.sources import detect


def _codes(provider: str) -> dict[str, list[tuple[str, int, str]]]:
    result = load_provider(SPECS, provider)
    codes: dict[str, list[tuple[str, int, str]]] = {}
    for d in result.diagnostics:
        codes.setdefault(d.code, []).append((d.file, d.line, d.pointer))
    return codes


@pytest.mark.parametrize("seed", sorted(SEED_SPECS))
def test_specs_hold_the_seeds_byte_for_byte(seed: str) -> None:
    path, digest = SEED_SPECS[seed]
    assert hashlib.sha256((SPECS / path).read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("seed", sorted(SEED_SPECS))
def test_recorded_seed_hashes_match_shared_seeds(seed: str) -> None:
    seeds = shared_path("seeds")
    (original,) = seeds.glob(f"{seed}_*.txt")
    assert hashlib.sha256(original.read_bytes()).hexdigest() == SEED_SPECS[seed][1]


def test_scraped_page_is_detected_by_content_not_name(tmp_path: Path) -> None:
    text = (SPECS / "mistral" / "asyncapi-page.txt").read_text(encoding="utf-8")
    detected = detect(text)
    assert detected is not None and detected.format == "asyncapi-page"
    assert text.splitlines()[detected.line_offset - 1].strip() == "Raw ↑"
    plain = detect(detected.text)
    assert plain is not None and plain.format == "asyncapi"


def test_seeds_load_without_errors() -> None:
    for provider in ("deepseek", "mistral"):
        result = load_provider(SPECS, provider)
        assert result.provider is not None
        assert not result.diagnostics.has_errors, [d.format() for d in result.diagnostics]


def test_mistral_contact_email_flow_sequence_is_a_warning_with_its_line() -> None:
    ((file, line, pointer),) = _codes("mistral")["info-field-type"]
    assert (file, pointer) == ("mistral/asyncapi-page.txt", "/info/contact/email")
    # The scraped value is `[email\xa0protected]` (a no-break space inside): a YAML flow sequence.
    assert (
        "email: [email\xa0protected]"
        in (SPECS / "mistral" / "asyncapi-page.txt").read_text(encoding="utf-8").splitlines()[line - 1]
    )


def test_ref_with_sibling_description_keeps_the_description() -> None:
    assert ("mistral/asyncapi-page.txt", 395, "/components/schemas/ChatCompletionChunk/properties/usage") in _codes(
        "mistral"
    )["ref-siblings"]
    provider = load_provider(SPECS, "mistral").provider
    assert provider is not None
    chunk = provider.channel("/chat/completions").message("ChatCompletionChunk").payload  # type: ignore[union-attr]
    usage = chunk.property("usage")
    assert usage is not None and usage.description.startswith("Token usage. Present only on the final chunk")
    assert usage.schema.name == "Usage" and usage.schema.description == "Token usage for the completed stream."


@pytest.mark.parametrize(
    ("provider", "code", "pointer"),
    [
        ("deepseek", "nullable-keyword", "/components/schemas/ChatCompletionDelta/properties/content/nullable"),
        ("mistral", "type-list-null", "/components/schemas/DeltaMessage/properties/content/type"),
        (
            "deepseek",
            "oneof-null-branch",
            "/components/schemas/ChatCompletionChunkChoice/properties/finish_reason/oneOf/0",
        ),
        ("mistral", "enum-null", "/components/schemas/ChatStreamChoice/properties/finish_reason/enum"),
        ("mistral", "empty-array", "/components/schemas/ChatCompletionUsageChunk/properties/choices/maxItems"),
        ("deepseek", "literal-payload", "/components/messages/StreamDone/payload"),
        ("mistral", "literal-payload", "/components/messages/StreamDone/payload"),
    ],
)
def test_each_standard_spelling_is_normalized_with_an_info(provider: str, code: str, pointer: str) -> None:
    """Standard spellings (nullable forms, `maxItems: 0`, a literal `[DONE]` payload) are infos, so a
    strict build passes on them; the place of each is still reported."""
    result = load_provider(SPECS, provider)
    found = [d for d in result.diagnostics if d.code == code and d.pointer == pointer]
    assert len(found) == 1
    assert found[0].severity is Severity.INFO and found[0].line > 0


def test_every_nullability_style_becomes_one_flag() -> None:
    ds = load_provider(SPECS, "deepseek").provider
    ms = load_provider(SPECS, "mistral").provider
    assert ds is not None and ms is not None
    ds_choice = ds.channel("/chat/completions").message("ChatCompletionChunk").payload.property("choices").schema.items  # type: ignore[union-attr]
    ms_choice = ms.channel("/chat/completions").message("ChatCompletionChunk").payload.property("choices").schema.items  # type: ignore[union-attr]
    for choice in (ds_choice, ms_choice):
        finish = choice.property("finish_reason").schema  # type: ignore[union-attr]
        assert finish.type == "string" and finish.nullable and None not in finish.enum and "stop" in finish.enum
    delta = ds_choice.property("delta").schema  # type: ignore[union-attr]
    assert delta.property("content").schema.nullable  # type: ignore[union-attr]
    # `role` is not nullable in the AsyncAPI document, but the docs example (specs/deepseek/api-docs.txt:395) sends
    # `"role": null`, so reconciliation widens it (see test_reconcile.py).
    assert delta.property("role").schema.nullable  # type: ignore[union-attr]


def test_names_come_from_spec_and_path_never_counters() -> None:
    ms = load_provider(SPECS, "mistral").provider
    assert ms is not None
    fim_choice = ms.channel("/fim/completions").message("FimCompletionChunk").payload.property("choices").schema.items  # type: ignore[union-attr]
    assert fim_choice.name == "FimStreamChoice"
    assert fim_choice.property("delta").schema.name == "FimStreamChoiceDelta"  # type: ignore[union-attr]
    tool = (
        ms.channel("/chat/completions")
        .message("ChatCompletionChunk")
        .payload.property("choices")
        .schema.items.property("delta")
        .schema.property("tool_calls")
        .schema.items
    )  # type: ignore[union-attr]
    assert tool.property("function").schema.name == "ToolCallDeltaFunction"  # type: ignore[union-attr]


def test_names_do_not_depend_on_key_order(tmp_path: Path) -> None:
    import yaml

    text = (SPECS / "mistral" / "asyncapi-page.txt").read_text(encoding="utf-8").split("Raw ↑\n", 1)[1]
    data = yaml.safe_load(text)

    def reverse(node: object) -> object:
        if isinstance(node, dict):
            return {k: reverse(v) for k, v in reversed(list(node.items()))}
        if isinstance(node, list):
            return [reverse(v) for v in node]
        return node

    (tmp_path / "mistral").mkdir()
    (tmp_path / "mistral" / "spec.yaml").write_text(yaml.safe_dump(reverse(data), sort_keys=False), encoding="utf-8")
    reordered = load_provider(tmp_path, "mistral").provider
    original = load_provider(SPECS, "mistral").provider
    assert reordered is not None and original is not None

    def names(schema: object, acc: set[str]) -> set[str]:
        from ssegen.ir import Schema

        assert isinstance(schema, Schema)
        if schema.name:
            acc.add(schema.name)
        for p in schema.properties:
            names(p.schema, acc)
        if schema.items is not None:
            names(schema.items, acc)
        return acc

    def all_names(provider: object) -> set[str]:
        acc: set[str] = set()
        for channel in provider.channels:  # type: ignore[attr-defined]
            for message in channel.messages:
                names(message.payload, acc)
        return acc

    assert all_names(reordered) == all_names(original)


def test_bad_source_is_an_error_naming_file_and_line_and_other_sources_still_load(tmp_path: Path) -> None:
    folder = tmp_path / "mistral"
    folder.mkdir()
    (folder / "a-good.txt").write_bytes((SPECS / "mistral" / "asyncapi-page.txt").read_bytes())
    (folder / "b-broken.yaml").write_text("asyncapi: 2.6.0\nchannels:\n  /x: [unclosed\n", encoding="utf-8")
    result = load_provider(tmp_path, "mistral")
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    assert [(d.file, d.code) for d in errors] == [("mistral/b-broken.yaml", "yaml-syntax")]
    assert errors[0].line == 4
    assert result.provider is not None and result.provider.channel("/chat/completions") is not None

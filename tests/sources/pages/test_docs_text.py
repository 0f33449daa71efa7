"""The flattened docs-page loader (specs/deepseek/api-docs.txt) and the docs -> IR merge step.

Tested on the real seeds and on small texts.
"""

from __future__ import annotations

import shutil
from collections import Counter

import pytest
from conftest import ROOT, SEED_SPECS, SPECS

from ssegen.diagnostics import Diagnostics, Severity
from ssegen.ir import Channel, Message, Property, Provenance, Provider, Schema
from ssegen.load import load_provider
from ssegen.normalize.docs import merge_docs
from ssegen.sources.pages.docs_text import DocsResult, FieldFact, load_docs_text, looks_like_docs_text

DOCS = SPECS / "deepseek" / "api-docs.txt"
DOCS_REL = "deepseek/api-docs.txt"
SCHEMA_FILE = "deepseek/asyncapi-page.txt"
CHOICE = "/components/schemas/ChatCompletionChunkChoice/properties"


def _text() -> str:
    return DOCS.read_text(encoding="utf-8")


def _lines() -> list[str]:
    return _text().split("\n")


def _load(text: str, file: str = DOCS_REL) -> tuple[DocsResult, Diagnostics]:
    diagnostics = Diagnostics()
    return load_docs_text(text, file, diagnostics), diagnostics


def _fact_at(result: DocsResult, line: int) -> FieldFact:
    found = [f for f in result.facts if f.provenance.line == line]
    assert len(found) == 1, [f.provenance for f in result.facts]
    return found[0]


def _edited(edit: str) -> str:
    """The seed text with its streaming finish_reason list edited (lines 361-366)."""
    lines = _lines()
    assert lines[360] == "Possible values: [stop" and lines[364] == ", insufficient_system_resource"
    if edit == "add":
        lines.insert(365, ", model_length")
    elif edit == "drop":
        del lines[364]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def schema_provider(tmp_path_factory: pytest.TempPathFactory) -> Provider:
    """The DeepSeek IR from the AsyncAPI page (specs/deepseek/asyncapi-page.txt) alone, before any docs merge."""
    specs = tmp_path_factory.mktemp("specs")
    (specs / "deepseek").mkdir()
    shutil.copyfile(SPECS / "deepseek" / "asyncapi-page.txt", specs / "deepseek" / "asyncapi-page.txt")
    result = load_provider(specs, "deepseek")
    assert result.provider is not None
    return result.provider


def _merge(provider: Provider, text: str) -> tuple[Provider, Diagnostics]:
    docs, diagnostics = _load(text)
    return merge_docs(provider, docs, diagnostics), diagnostics


def _member(provider: Provider, *path: str) -> Property:
    """The member at ``path`` under ChatCompletionChunk (``choices`` steps into the item)."""
    channel = provider.channel("/chat/completions")
    assert channel is not None
    message = channel.message("ChatCompletionChunk")
    assert message is not None
    schema = message.payload
    prop: Property | None = None
    for name in path:
        prop = schema.property(name)
        assert prop is not None, name
        schema = prop.schema.items if prop.schema.items is not None else prop.schema
    assert prop is not None
    return prop


def _codes(diagnostics: Diagnostics, code: str) -> list:
    return [d for d in diagnostics if d.code == code]


# -- the page ------------------------------------------------------------------------------


def test_detects_the_flattened_docs_page_and_no_other_format() -> None:
    assert looks_like_docs_text(_text())
    for seed in ("000", "002", "003", "004"):
        path = SPECS / SEED_SPECS[seed][0]
        assert not looks_like_docs_text(path.read_text(encoding="utf-8", errors="replace")), seed
    assert not looks_like_docs_text("")
    assert not looks_like_docs_text(
        "| a | b |\n|---|---|\n| x | y |\nPOST/chat/completions\nPossible values: [a\n]\nResponses\n"
    )
    assert not looks_like_docs_text("<table><tr><td>POST/x</td></tr></table>\nPOST/x\nPossible values: [a]\nResponses")
    assert not looks_like_docs_text("POST/chat/completions\nResponses\n")  # no Possible values


def test_endpoint_method_and_title_come_from_the_method_line() -> None:
    result, _ = _load(_text())
    assert (result.method, result.address, result.title) == ("POST", "/chat/completions", "Create Chat Completion")
    assert result.address_line == 2 and _lines()[1] == "POST/chat/completions"
    assert result.file == DOCS_REL


def test_facts_per_section_and_stream_facts_in_page_order() -> None:
    result, _ = _load(_text())
    counts = Counter(f.section for f in result.facts)
    assert counts["stream"] == 11 and counts["response"] == 32 and counts["request"] > 20
    stream = [f.provenance.line for f in result.facts if f.section == "stream"]
    assert stream == [348, 352, 356, 357, 358, 361, 377, 378, 379, 380, 381]


def test_sections_split_at_responses_and_the_two_ok_returns_lines() -> None:
    result, _ = _load(_text())
    lines = _lines()
    assert lines[161] == "Responses" and lines[164].startswith("OK, returns a chat completion object")
    assert lines[337].startswith("OK, returns a streamed sequence of chat completion chunk")
    for fact in result.facts:
        line = fact.provenance.line
        expected = "request" if line < 162 else "response" if line < 338 else "stream"
        assert fact.section == expected, fact


def test_possible_values_are_rejoined_across_lines_with_that_line_as_provenance() -> None:
    result, _ = _load(_text())
    lines = _lines()
    finish = _fact_at(result, 361)
    assert lines[360] == "Possible values: [stop"
    assert finish.values == ("stop", "length", "content_filter", "tool_calls", "insufficient_system_resource")
    role = _fact_at(result, 358)
    assert lines[357] == "Possible values: [assistant" and role.values == ("assistant",)
    obj = _fact_at(result, 381)
    assert lines[380] == "Possible values: [chat.completion.chunk" and obj.values == ("chat.completion.chunk",)
    fmt = _fact_at(result, 69)
    assert fmt.values == ("text", "json_object") and fmt.default == "text"


def test_ranges_are_constraints_not_values() -> None:
    result, _ = _load(_text())
    penalty = _fact_at(result, 56)  # description line; "Possible values: >= -2" is line 53
    assert _lines()[52] == "Possible values: >= -2"
    assert penalty.values == () and penalty.constraint == ">= -2 and <= 2" and penalty.default == "0"
    assert penalty.description.startswith("Number between -2.0 and 2.0.")
    assert not any(v.startswith((">", "<")) for f in result.facts for v in f.values)


def test_name_blocks_give_name_type_and_markers() -> None:
    result, _ = _load(_text())
    choices = _fact_at(result, 352)
    assert (choices.name, choices.type, choices.required, choices.nullable) == ("choices", "object[]", True, False)
    assert choices.description == "A list of chat completion choices."
    delta = _fact_at(result, 356)
    assert (delta.name, delta.type, delta.required) == ("delta", "object", True)
    response_format = _fact_at(result, 67)
    assert (response_format.name, response_format.nullable, response_format.required) == (
        "response_format",
        True,
        False,
    )
    assert _fact_at(result, 357).name == ""  # scalar members lose their names on the page


def test_description_lines_broken_by_code_spans_are_joined() -> None:
    result, _ = _load(_text())
    finish = _fact_at(result, 361)
    assert finish.description == (
        "The reason the model stopped generating tokens. This will be stop if the model hit a natural stop point "
        "or a provided stop sequence, length if the maximum number of tokens specified in the request was reached, "
        "content_filter if content was omitted due to a flag from our content filters, tool_calls if the model "
        "called a tool, or insufficient_system_resource if the request is interrupted due to insufficient resource "
        "of the inference system."
    )
    assert _fact_at(result, 381).description == "The object type, which is always chat.completion.chunk."
    prefix = _fact_at(result, 45)  # a paragraph opener ("You must set ...") continues the description
    assert "You must set base_url" in prefix.description and prefix.description.endswith("to use this feature.")


def test_fact_pointers_number_facts_per_section() -> None:
    result, _ = _load(_text())
    for section in ("request", "response", "stream"):
        facts = [f for f in result.facts if f.section == section]
        assert [f.provenance.pointer for f in facts] == [f"/sections/{section}/facts/{k}" for k in range(len(facts))]
    assert all(f.provenance.file == DOCS_REL for f in result.facts)


def test_example_stream_is_harvested_in_wire_form() -> None:
    result, diagnostics = _load(_text())
    assert len(result.example_streams) == 1
    stream = result.example_streams[0]
    assert stream.provenance == Provenance(DOCS_REL, 385, "/sections/stream/examples/0")
    assert _lines()[384].startswith("data: {")
    events = stream.events()
    assert len(events) == 12 and events[-1].data == "[DONE]"
    assert stream.wire.endswith(b"data: [DONE]\n\n") and stream.wire.count(b"\n\n") == 12
    assert stream.wire == (ROOT / "tests" / "data" / "deepseek_docs_stream.sse").read_bytes()
    assert stream.event_lines == tuple(range(385, 397))
    assert stream.event_provenance(10) == Provenance(DOCS_REL, 395, "/sections/stream/examples/0/events/10")
    assert '"role": null' in _lines()[394]
    assert not _codes(diagnostics, "docs-example-not-json")


def test_the_seed_loads_without_warnings_and_deterministically() -> None:
    first, diagnostics = _load(_text())
    second, _ = _load(_text())
    assert first == second
    # One info: how the request's named members are placed (docs_request.py).
    assert [d.code for d in diagnostics] == ["docs-request-nested"], [d.format() for d in diagnostics]


def test_crlf_line_ends_give_the_same_facts() -> None:
    lf, _ = _load(_text())
    crlf, _ = _load(_text().replace("\n", "\r\n"))
    assert crlf.facts == lf.facts and crlf.example_streams == lf.example_streams


def test_unclosed_values_list_is_a_warning_and_read_as_far_as_it_goes() -> None:
    text = (
        "T\nPOST/x\nResponses\nOK, returns a streamed sequence\n- text/event-stream\n"
        "Possible values: [stop\n, length\nThe reason.\n"
    )
    result, diagnostics = _load(text, "p/page.txt")
    fact = _fact_at(result, 6)
    assert fact.values == ("stop", "length") and fact.description == "The reason."
    (diag,) = _codes(diagnostics, "docs-values-unclosed")
    assert (diag.severity, diag.file, diag.line, diag.pointer) == (
        Severity.WARNING,
        "p/page.txt",
        6,
        "/sections/stream/facts/0",
    )


def test_page_without_endpoint_or_stream_section_is_reported() -> None:
    result, diagnostics = _load("Possible values: [a\n]\nThe thing.\nResponses\n", "p/page.txt")
    assert result.address == "" and result.facts[0].values == ("a",)
    assert [d.code for d in diagnostics] == ["docs-endpoint-missing"]
    _, diagnostics = _load(
        "T\nPOST/x\nPossible values: [a\n]\nThe thing.\nResponses\nOK, returns a thing\n- application/json\n"
    )
    (diag,) = _codes(diagnostics, "docs-stream-missing")
    assert diag.line == 2


def test_non_json_example_payload_is_reported() -> None:
    text = "T\nPOST/x\nResponses\nOK, returns a streamed sequence\n- text/event-stream\ndata: {oops\ndata: [DONE]\n"
    result, diagnostics = _load(text, "p/page.txt")
    (diag,) = _codes(diagnostics, "docs-example-not-json")
    assert (diag.line, diag.pointer) == (6, "/sections/stream/examples/0/events/0")
    assert result.example_streams[0].wire == b"data: {oops\n\ndata: [DONE]\n\n"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n\n",
        "\x00\x01\ufeff",
        "Possible values: [",
        "POST/\nResponses\nOK, returns\ndata:",
        "]\n]\n,\nrequired\nobject[]\n" * 50,
        "data: \n" * 3,
    ],
)
def test_bad_input_never_crashes(text: str) -> None:
    result, _ = _load(text)
    assert isinstance(result, DocsResult)
    assert not looks_like_docs_text(text)


# -- merging into the schema (specs/deepseek/: AsyncAPI page + docs text) -------------------


def test_enum_facts_match_their_schema_members_on_the_real_seeds(schema_provider: Provider) -> None:
    _, diagnostics = _merge(schema_provider, _text())
    matched = {d.line: d.message for d in _codes(diagnostics, "docs-matched")}
    assert f"{CHOICE}/finish_reason)" in matched[361] and "ChatCompletionChunk.choices[].finish_reason" in matched[361]
    assert "/components/schemas/ChatCompletionDelta/properties/role)" in matched[358]
    assert "/components/schemas/ChatCompletionChunk/properties/object)" in matched[381]
    assert f"{SCHEMA_FILE}:395 " in matched[361]


def test_every_stream_fact_matches_the_member_it_describes(schema_provider: Provider) -> None:
    _, diagnostics = _merge(schema_provider, _text())
    pointers = {
        d.line: d.message.split("(", 1)[1].split(")", 1)[0].split(" ")[1] for d in _codes(diagnostics, "docs-matched")
    }
    chunk = "/components/schemas/ChatCompletionChunk/properties"
    delta = "/components/schemas/ChatCompletionDelta/properties"
    expected = {
        348: f"{chunk}/id",
        352: f"{chunk}/choices",
        356: f"{CHOICE}/delta",
        357: f"{delta}/content",
        358: f"{delta}/role",
        361: f"{CHOICE}/finish_reason",
        377: f"{CHOICE}/index",
        378: f"{chunk}/created",
        379: f"{chunk}/model",
        380: f"{chunk}/system_fingerprint",
        381: f"{chunk}/object",
    }
    assert {line: pointers[line] for line in expected} == expected


def test_diagnostics_on_the_real_seeds(schema_provider: Provider) -> None:
    _, diagnostics = _merge(schema_provider, _text())
    counts = Counter(d.code for d in diagnostics)
    assert counts == {"docs-matched": 15, "docs-unmatched": 28, "docs-request-nested": 1}
    assert all(d.severity is Severity.INFO for d in diagnostics)
    assert all(d.file == DOCS_REL for d in diagnostics)


def test_seeds_that_agree_change_nothing_but_sources(schema_provider: Provider) -> None:
    merged, _ = _merge(schema_provider, _text())
    assert merged.channels == schema_provider.channels
    assert merged.sources == schema_provider.sources + (DOCS_REL,)


def test_response_facts_do_not_override_stream_facts(schema_provider: Provider) -> None:
    _, diagnostics = _merge(schema_provider, _text())
    unmatched = {d.line: d.message for d in _codes(diagnostics, "docs-unmatched")}
    assert 184 in unmatched and 251 in unmatched  # response finish_reason / [chat.completion]
    matched = {d.line for d in _codes(diagnostics, "docs-matched")}
    assert 258 in matched  # response-only "Number of tokens in the generated completion." -> usage.completion_tokens


def test_response_fact_fills_a_member_the_stream_section_does_not_describe(schema_provider: Provider) -> None:
    lines = _lines()
    del lines[360:376]  # the streaming finish_reason block
    _, diagnostics = _merge(schema_provider, "\n".join(lines))
    matched = {d.line: d.message for d in _codes(diagnostics, "docs-matched")}
    assert f"{CHOICE}/finish_reason)" in matched[184]


def test_docs_value_missing_from_the_schema_enum_is_added_with_a_warning(schema_provider: Provider) -> None:
    merged, diagnostics = _merge(schema_provider, _edited("add"))
    finish = _member(merged, "choices", "finish_reason").schema
    assert finish.enum == (
        "stop",
        "length",
        "content_filter",
        "tool_calls",
        "insufficient_system_resource",
        "model_length",
    )
    assert finish.nullable
    (diag,) = _codes(diagnostics, "docs-enum-added")
    assert diag.severity is Severity.WARNING
    assert (diag.file, diag.line, diag.pointer) == (SCHEMA_FILE, 401, f"{CHOICE}/finish_reason/oneOf/1")
    assert "'model_length'" in diag.message and f"{DOCS_REL}:361" in diag.message
    assert not _codes(diagnostics, "docs-enum-missing")
    # the input IR is untouched
    assert "model_length" not in _member(schema_provider, "choices", "finish_reason").schema.enum


def test_schema_enum_value_the_docs_lack_is_reported_and_kept(schema_provider: Provider) -> None:
    merged, diagnostics = _merge(schema_provider, _edited("drop"))
    assert "insufficient_system_resource" in _member(merged, "choices", "finish_reason").schema.enum
    (diag,) = _codes(diagnostics, "docs-enum-missing")
    assert diag.severity is Severity.WARNING
    assert (diag.file, diag.pointer) == (SCHEMA_FILE, f"{CHOICE}/finish_reason/oneOf/1")
    assert "'insufficient_system_resource'" in diag.message and f"{DOCS_REL}:361" in diag.message
    assert merged.channels == schema_provider.channels


def test_values_never_match_a_disjoint_enum(schema_provider: Provider) -> None:
    lines = _lines()
    assert lines[380] == "Possible values: [chat.completion.chunk"
    lines[380] = "Possible values: [chat.completion"
    merged, diagnostics = _merge(schema_provider, "\n".join(lines))
    assert _member(merged, "object").schema.enum == ("chat.completion.chunk",)
    assert 381 in {d.line for d in _codes(diagnostics, "docs-unmatched")}
    assert not _codes(diagnostics, "docs-enum-added")


def test_ambiguous_fact_is_left_unmatched(schema_provider: Provider) -> None:
    _, diagnostics = _merge(schema_provider, _text())
    token = {d.line: d.message for d in _codes(diagnostics, "docs-unmatched")}[233]  # "The token."
    assert "ambiguous" in token


# -- merging into small IRs ------------------------------------------------------------------

_PAGE = """Create Chat Completion
POST/chat/completions
Request
A thing.
Responses
OK, returns a streamed sequence of chat completion chunk
objects
- text/event-stream
Schema
{body}
"""


def _tiny_provider(description: str = "", shared: bool = False) -> Provider:
    prop_prov = Provenance("t/spec.yaml", 12, "/components/schemas/Chunk/properties/model")
    model = Property("model", Schema("string", prop_prov), True, description, prop_prov)
    chunk = Schema(
        "object", Provenance("t/spec.yaml", 10, "/components/schemas/Chunk"), name="Chunk", properties=(model,)
    )
    channels = [
        Channel(
            "/chat/completions",
            (Message("Chunk", "data", chunk, chunk.provenance),),
            Provenance("t/spec.yaml", 3, "/channels/a"),
        )
    ]
    if shared:
        channels.insert(
            0,
            Channel(
                "/beta/completions",
                (Message("Chunk", "data", chunk, chunk.provenance),),
                Provenance("t/spec.yaml", 5, "/channels/b"),
            ),
        )
    return Provider("t", tuple(channels), ("t/spec.yaml",))


def test_empty_schema_description_gets_the_docs_description() -> None:
    docs, diagnostics = _load(_PAGE.format(body="The model to generate the completion."), "t/page.txt")
    merged = merge_docs(_tiny_provider(), docs, diagnostics)
    chan = merged.channel("/chat/completions")
    assert chan is not None
    model = chan.messages[0].payload.properties[0]
    assert model.description == "The model to generate the completion."
    (diag,) = _codes(diagnostics, "docs-description-added")
    assert (diag.severity, diag.file, diag.line, diag.pointer) == (
        Severity.INFO,
        "t/spec.yaml",
        12,
        "/components/schemas/Chunk/properties/model",
    )
    assert "t/page.txt:10" in diag.message


def test_a_change_applies_to_the_declaration_on_every_channel() -> None:
    docs, diagnostics = _load(_PAGE.format(body="The model to generate the completion."), "t/page.txt")
    merged = merge_docs(_tiny_provider(shared=True), docs, diagnostics)
    descriptions = {c.address: c.messages[0].payload.properties[0].description for c in merged.channels}
    assert descriptions == {
        "/beta/completions": "The model to generate the completion.",
        "/chat/completions": "The model to generate the completion.",
    }


def test_a_non_matching_fact_is_not_forced() -> None:
    docs, diagnostics = _load(_PAGE.format(body="The weather in Paris, which is usually grey."), "t/page.txt")
    provider = _tiny_provider("Identifier of the model that produced the chunk.")
    merged = merge_docs(provider, docs, diagnostics)
    assert merged.channels == provider.channels
    assert not _codes(diagnostics, "docs-matched")
    (diag,) = _codes(diagnostics, "docs-unmatched")
    assert (diag.severity, diag.file, diag.line) == (Severity.INFO, "t/page.txt", 10)


def test_a_page_for_another_endpoint_changes_nothing() -> None:
    docs, diagnostics = _load(
        _PAGE.format(body="The model.").replace("POST/chat/completions", "POST/embeddings"), "t/page.txt"
    )
    provider = _tiny_provider()
    assert merge_docs(provider, docs, diagnostics) is provider
    (diag,) = _codes(diagnostics, "docs-channel-missing")
    assert (diag.severity, diag.file, diag.line) == (Severity.WARNING, "t/page.txt", 2)


def test_merge_is_deterministic(schema_provider: Provider) -> None:
    first, d1 = _merge(schema_provider, _edited("add"))
    second, d2 = _merge(schema_provider, _edited("add"))
    assert first == second and d1.items == d2.items


def _enum_provider(schema: Schema) -> Provider:
    prov = Provenance("t/spec.yaml", 20, "/components/schemas/Chunk/properties/finish_reason")
    member = Property("finish_reason", schema, False, "Why it stopped.", prov)
    chunk = Schema(
        "object", Provenance("t/spec.yaml", 10, "/components/schemas/Chunk"), name="Chunk", properties=(member,)
    )
    channel = Channel(
        "/chat/completions",
        (Message("Chunk", "data", chunk, chunk.provenance),),
        Provenance("t/spec.yaml", 3, "/channels/a"),
    )
    return Provider("t", (channel,), ("t/spec.yaml",))


def test_an_enum_inside_a_union_variant_is_extended() -> None:
    variant = Schema(
        "string",
        Provenance("t/spec.yaml", 22, "/components/schemas/Chunk/properties/finish_reason/anyOf/0"),
        enum=("stop",),
    )
    union = Schema(
        "union",
        Provenance("t/spec.yaml", 20, "/components/schemas/Chunk/properties/finish_reason"),
        variants=(variant, Schema("object", variant.provenance)),
    )
    docs, diagnostics = _load(_PAGE.format(body="Possible values: [stop\n, length\n]\nWhy it stopped."), "t/page.txt")
    merged = merge_docs(_enum_provider(union), docs, diagnostics)
    new_union = merged.channels[0].messages[0].payload.properties[0].schema
    assert new_union.type == "union" and new_union.variants[0].enum == ("stop", "length")
    (diag,) = _codes(diagnostics, "docs-enum-added")
    assert (diag.line, diag.pointer) == (22, "/components/schemas/Chunk/properties/finish_reason/anyOf/0")


def test_docs_values_for_a_non_string_enum_are_not_applied() -> None:
    codes = Schema(
        "integer", Provenance("t/spec.yaml", 20, "/components/schemas/Chunk/properties/finish_reason"), enum=(1, 2)
    )
    docs, diagnostics = _load(_PAGE.format(body="Possible values: [1\n, 2\n, 3\n]\nWhy it stopped."), "t/page.txt")
    merged = merge_docs(_enum_provider(codes), docs, diagnostics)
    assert merged.channels[0].messages[0].payload.properties[0].schema.enum == (1, 2)
    assert [d.code for d in diagnostics if d.code.startswith("docs-enum")] == ["docs-enum-not-applied"]
    assert _codes(diagnostics, "docs-matched")

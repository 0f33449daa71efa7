"""Tests of the markdown streaming-page loader (src/ssegen/sources/pages/markdown/).

The real page is ``specs/xerotier/streaming-api.md`` (Xerotier "Streaming API", markdown as scraped), read
from its verbatim copy under ``specs/``;
each scraped quirk also has a small synthetic page of its own.
"""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import ROOT
from helpers.pages import diagnostic_lines as _codes
from helpers.pages import member_schema as _member
from helpers.pages import page_message as _message
from hypothesis import given, settings
from hypothesis import strategies as st

from ssegen.diagnostics import Diagnostics
from ssegen.irjson import dumps
from ssegen.sources.pages.markdown import load_markdown_page, looks_like_markdown_streaming_page
from ssegen.sources.pages.messages import PageResult

SPEC = ROOT / "specs" / "xerotier" / "streaming-api.md"
FILE = "xerotier/streaming-api.md"


def _load(text: str, file: str = FILE) -> tuple[PageResult, Diagnostics]:
    diagnostics = Diagnostics()
    return load_markdown_page(text, file, diagnostics), diagnostics


# -- the seed ---------------------------------------------------------------------------


def test_detects_markdown_streaming_page_by_content(source: str) -> None:
    assert looks_like_markdown_streaming_page(source)
    assert not looks_like_markdown_streaming_page(
        (ROOT / "specs" / "siliconstorm" / "inference-api.md").read_text(encoding="utf-8")
    )
    assert not looks_like_markdown_streaming_page(
        (ROOT / "specs" / "deepseek" / "asyncapi-page.txt").read_text(encoding="utf-8")
    )
    assert not looks_like_markdown_streaming_page("# Title\n\nJust prose.\n")
    assert not looks_like_markdown_streaming_page("")


def test_page_title_and_channel(page: PageResult) -> None:
    assert page.title == "Streaming API"
    assert page.channel is not None
    assert page.channel.address == "/chat/completions"
    assert [m.kind for m in page.channel.messages][:1] == ["data"]
    assert [m.name for m in page.channel.messages][-2:] == ["StreamError", "StreamDone"]


def test_chunk_schema_is_named_from_its_object_row(page: PageResult) -> None:
    chunk = _message(page, "ChatCompletionChunk")
    assert chunk.kind == "data"
    assert chunk.payload.name == "ChatCompletionChunk"
    assert [p.name for p in chunk.payload.properties] == [
        "id",
        "object",
        "created",
        "model",
        "service_tier",
        "system_fingerprint",
        "choices",
        "usage",
    ]
    assert _member(chunk.payload, "object").enum == ("chat.completion.chunk",)


def test_split_pipe_type_cell_is_one_nullable_type(page: PageResult, diags: Diagnostics) -> None:
    chunk = _message(page, "ChatCompletionChunk").payload
    tier = _member(chunk, "service_tier")
    assert (tier.type, tier.nullable) == ("string", True)
    assert tier.description == "Service tier. Always present, may be null."
    usage = _member(chunk, "usage")
    assert (usage.type, usage.nullable, usage.name) == ("object", True, "ChatCompletionChunkUsage")
    tool_calls = _member(chunk, "choices", "delta", "tool_calls")
    assert (tool_calls.type, tool_calls.nullable) == ("array", True)
    assert _codes(diags, "table-cell-pipe") == [23, 24, 26, 31, 32, 33, 34, 54, 55]


def test_conditional_presence_makes_members_optional(page: PageResult) -> None:
    chunk = _message(page, "ChatCompletionChunk").payload
    required = {p.name: p.required for p in chunk.properties}
    assert required["service_tier"] is True  # "Always present, may be null."
    assert required["usage"] is False  # "Present only in the final chunk ..."
    assert required["choices"] is True  # "optional logprobs" is about a choice member


def test_choice_object_is_built_from_prose_and_tables(page: PageResult, diags: Diagnostics) -> None:
    choice = _member(_message(page, "ChatCompletionChunk").payload, "choices").items
    assert choice is not None
    assert choice.name == "ChatCompletionChunkChoice"
    assert [p.name for p in choice.properties] == ["delta", "finish_reason", "logprobs", "index"]
    required = {p.name: p.required for p in choice.properties}
    assert required == {"delta": True, "finish_reason": True, "logprobs": False, "index": True}
    delta = choice.property("delta")
    assert delta is not None
    assert delta.schema.name == "ChatCompletionChunkChoiceDelta"
    assert [p.name for p in delta.schema.properties] == ["role", "content", "tool_calls", "refusal"]
    assert delta.provenance.line == 25  # the prose that names it
    assert delta.schema.provenance.line == 29  # the Delta Object table
    assert _codes(diags, "choice-members-prose") == [25]


def test_choice_index_comes_from_the_examples(page: PageResult, diags: Diagnostics) -> None:
    index = _member(_message(page, "ChatCompletionChunk").payload, "choices", "index")
    assert index.type == "integer"
    assert _codes(diags, "member-from-example") == [66]


def test_finish_reason_enum_from_values_table_is_nullable(page: PageResult) -> None:
    finish = _member(_message(page, "ChatCompletionChunk").payload, "choices", "finish_reason")
    assert finish.name == "ChatCompletionChunkChoiceFinishReason"
    assert finish.enum == ("stop", "length", "content_filter", "tool_calls")
    assert finish.nullable
    assert "- length: Maximum token limit reached." in finish.description
    assert finish.provenance.line == 41


def test_dotted_names_nest_under_logprobs(page: PageResult) -> None:
    logprobs = _member(_message(page, "ChatCompletionChunk").payload, "choices", "logprobs")
    assert (logprobs.type, logprobs.name, logprobs.nullable) == ("object", "ChatCompletionChunkChoiceLogprobs", True)
    assert [p.name for p in logprobs.properties] == ["content", "refusal"]
    assert _member(logprobs, "content").type == "array"
    refusal = logprobs.property("refusal")
    assert refusal is not None and not refusal.required  # "Present when the model refuses"


def test_members_absent_from_examples_are_not_required(page: PageResult, diags: Diagnostics) -> None:
    delta = _member(_message(page, "ChatCompletionChunk").payload, "choices", "delta")
    assert {p.name: p.required for p in delta.properties} == {
        "role": False,
        "content": False,
        "tool_calls": False,
        "refusal": False,
    }
    assert _codes(diags, "required-relaxed") == [32, 33, 34]


def test_one_vendor_message_per_event_type(page: PageResult) -> None:
    assert page.channel is not None
    vendor = [m for m in page.channel.messages if m.kind == "vendor"]
    assert len(vendor) == 47  # 45 table rows, x_context_fork and x_chat.metadata
    names = [m.name for m in vendor]
    assert names[:2] == ["XResearchSearching", "XResearchReading"]
    assert "XContextFork" in names and "XChatMetadata" in names and "XAnalystContextRefreshed" in names
    assert len(set(names)) == len(names)
    for message in vendor:
        type_prop = message.payload.properties[0]
        assert type_prop.name == "type" and type_prop.required
        assert type_prop.schema.enum == (message.title,)
        assert message.title.startswith("x_")


def test_vendor_fields_are_read_from_the_fields_prose(page: PageResult) -> None:
    searching = _message(page, "XResearchSearching")
    assert searching.summary == "Web search tool invoked."
    assert [p.name for p in searching.payload.properties] == ["type", "name", "arguments"]
    arguments = searching.payload.property("arguments")
    assert arguments is not None
    assert (arguments.schema.type, arguments.description) == ("string", "JSON string with query")
    files = _member(_message(page, "XMockupCreated").payload, "files")
    assert files.type == "array" and files.items is not None
    assert files.items.name == "XMockupCreatedFile"
    assert [p.name for p in files.items.properties] == ["path", "contentType", "size"]
    question = _message(page, "XAskUserQuestion").payload
    assert _member(question, "allowFreeText").type == "boolean"
    options = question.property("options")
    assert options is not None and options.schema.type == "array" and not options.required
    error = _message(page, "XMockupError").payload
    assert {p.name: p.required for p in error.properties}["bundleId"] is False
    assert _member(_message(page, "XResearchResult").payload, "metadata").name == "XResearchResultMetadata"


def test_same_fields_as_copies_the_fields(page: PageResult) -> None:
    created = _message(page, "XArtifactCreated").payload
    updated = _message(page, "XArtifactUpdated").payload
    assert [p.name for p in updated.properties] == [p.name for p in created.properties]
    assert _member(updated, "type").enum == ("x_artifact.updated",)


def test_untyped_numeric_fields_are_any_with_a_diagnostic(page: PageResult, diags: Diagnostics) -> None:
    assert _member(_message(page, "XDeepThinkPlanCreated").payload, "total_subtasks").type == "any"
    assert _member(_message(page, "XDeepThinkPlanCreated").payload, "title").type == "string"
    assert 191 in _codes(diags, "field-type-unknown")


def test_prose_only_vendor_events(page: PageResult) -> None:
    fork = _message(page, "XContextFork")
    assert [p.name for p in fork.payload.properties] == ["type", "branch_id", "branch_name", "message_count"]
    assert fork.provenance.line == 232
    metadata = _message(page, "XChatMetadata")
    assert [p.name for p in metadata.payload.properties] == [
        "type",
        "messageId",
        "userMessageId",
        "sequence",
        "context",
        "usage",
    ]
    assert _member(metadata.payload, "context").name == "XChatMetadataContext"
    assert _member(metadata.payload, "sequence").type == "integer"
    assert metadata.payload.property("messageId").provenance.line == 244  # type: ignore[union-attr]
    assert metadata.examples and metadata.examples[0].data.startswith('{"type":"x_chat.metadata"')


def test_stream_error_message(page: PageResult) -> None:
    error = _message(page, "StreamError")
    assert (error.kind, error.event) == ("error", "error")
    inner = _member(error.payload, "error")
    assert inner.name == "StreamErrorError"
    assert [p.name for p in inner.properties] == ["message", "type", "code"]
    etype = inner.property("type")
    assert etype is not None
    assert etype.schema.enum == ("server_error", "timeout_error", "stream_idle_timeout")
    assert not etype.required  # the `(none)` row: a cancellation has no type
    code = inner.property("code")
    assert code is not None and code.required and not code.schema.enum
    assert "- cancelled [(none)]: Request was cancelled" in code.description
    assert error.provenance.line == 283


def test_error_codes_from_the_error_types_table(page: PageResult) -> None:
    assert [(e.code, e.provenance.line) for e in page.error_codes] == [
        ("timeout", 291),
        ("stream_idle_timeout", 294),
        ("cancelled", 297),
    ]
    assert page.error_codes[2].provenance.pointer == "/sections/error-types/tables/0/rows/3"


def test_continued_rows_are_joined(diags: Diagnostics) -> None:
    assert _codes(diags, "table-row-continued") == [289, 291, 294, 297]


def test_stream_done_terminator(page: PageResult) -> None:
    done = _message(page, "StreamDone")
    assert done.kind == "terminator"
    assert done.payload.enum == ("[DONE]",)
    assert done.content_type == "text/plain"


def test_example_streams_are_harvested_in_wire_form(page: PageResult) -> None:
    assert [s.name for s in page.example_streams] == [
        "refusal-streaming",
        "annotated-stream-example",
        "tool-call-stream-example",
        "chat-metadata-event-x_chatmetadata",
        "mid-stream-errors",
        "heartbeats",
    ]
    refusal = page.example_streams[0]
    assert refusal.provenance.line == 66
    assert b"#" not in refusal.wire  # annotation lines are not wire
    events = refusal.events()
    assert len(events) == 5 and events[-1].data == "[DONE]"
    assert refusal.wire.endswith(b"data: [DONE]\n\n")
    assert refusal.wire.count(b"\n\n") == 5
    assert refusal.event_lines == (66, 68, 69, 71, 72)  # annotation lines 65, 67, 70 dropped
    assert not refusal.full_text


def test_multiline_json_is_rejoined_into_one_data_line(page: PageResult, diags: Diagnostics) -> None:
    stream = next(s for s in page.example_streams if s.name.startswith("chat-metadata"))
    assert stream.wire.startswith(b'data: {"type":"x_chat.metadata","messageId":"msg_ext_abc123"')
    assert stream.wire.count(b"\n") == 2
    assert _codes(diags, "example-data-rejoined") == [242]


def test_event_error_frame_is_normalized(page: PageResult) -> None:
    stream = next(s for s in page.example_streams if s.name == "mid-stream-errors")
    assert stream.wire == (
        b'event: error\ndata: {"error":{"message":"Request timed out after 30s. Your Free tier has a 30-second '
        b'timeout limit.","type":"timeout_error","code":"timeout"}}\n\ndata: [DONE]\n\n'
    )
    assert [e.event for e in stream.events()] == ["error", "message"]
    assert stream.event_lines == (283, 285)


def test_heartbeat_comment_is_a_stream_of_its_own(page: PageResult) -> None:
    stream = next(s for s in page.example_streams if s.name == "heartbeats")
    assert stream.wire == b": heartbeat\n\n"
    assert stream.events()[0].comment == "heartbeat"


def test_wire_format_samples_are_not_harvested(page: PageResult, diags: Diagnostics) -> None:
    assert _codes(diags, "wire-format-sample") == [11, 13, 154]
    searching = _message(page, "XResearchSearching")
    assert [(e.name, e.provenance.line) for e in searching.examples] == [("wire-format", 154)]


def test_provenance_lines_point_at_the_source(page: PageResult, lines: list[str]) -> None:
    chunk = _message(page, "ChatCompletionChunk")
    assert lines[chunk.provenance.line - 1] == "| Field | Type | Description |"
    model = chunk.payload.property("model")
    assert model is not None and lines[model.provenance.line - 1].startswith("| model |")
    assert model.provenance.pointer == "/sections/chunk-structure/tables/0/rows/3"
    fork = _message(page, "XContextFork")
    assert lines[fork.provenance.line - 1].startswith("Fields: branch_id")
    reading = _message(page, "XResearchReading")
    assert lines[reading.provenance.line - 1].startswith("x_research.reading |")
    done = _message(page, "StreamDone")
    assert lines[done.provenance.line - 1].startswith("data: [DONE]")


def test_repeated_section_titles_get_distinct_slugs(page: PageResult) -> None:
    searching = _message(page, "XResearchSearching")
    assert searching.examples[0].provenance.pointer == "/sections/wire-format-1/examples/0"


def test_seed_diagnostics(diags: Diagnostics) -> None:
    counts = Counter(d.code for d in diags)
    assert counts == Counter(
        {
            "choice-members-prose": 1,
            "example-data-rejoined": 1,
            "field-type-unknown": 11,
            "member-from-example": 1,
            "required-relaxed": 3,
            "table-cell-pipe": 9,
            "table-row-continued": 4,
            "table-unterminated": 11,
            "wire-format-sample": 3,
        }
    )
    assert not diags.has_errors


def test_output_is_deterministic(source: str) -> None:
    first, d1 = _load(source)
    second, d2 = _load(source)
    assert first.channel is not None and second.channel is not None
    assert dumps(first.channel) == dumps(second.channel)
    assert first.example_streams == second.example_streams
    assert d1.items == d2.items


# -- synthetic quirks ---------------------------------------------------------------------

CHUNK_HEAD = """Chunk Structure
| Field | Type | Description |
|---|---|---|
"""


def _chunk(rows: str, tail: str = "") -> str:
    return CHUNK_HEAD + rows + "| choices | array | Array of choice objects containing delta. |\n" + tail


def test_synthetic_split_pipe_in_type_cell() -> None:
    page, diags = _load(_chunk("| name | string | null | A name. |\n| tags | array | null | Tags. |\n"))
    chunk = _message(page, "ChatCompletionChunk").payload
    assert (_member(chunk, "name").type, _member(chunk, "name").nullable) == ("string", True)
    assert _member(chunk, "name").description == "A name."
    assert (_member(chunk, "tags").type, _member(chunk, "tags").nullable) == ("array", True)
    assert _codes(diags, "table-cell-pipe") == [4, 5]


def test_synthetic_row_without_leading_pipe() -> None:
    page, _ = _load(_chunk("id | string | Identifier. |\ncreated | integer | Time.\n"))
    chunk = _message(page, "ChatCompletionChunk").payload
    assert [p.name for p in chunk.properties] == ["id", "created", "choices"]
    assert _member(chunk, "created").type == "integer"
    assert _member(chunk, "created").description == "Time."


def test_synthetic_continued_cells() -> None:
    text = _chunk("") + (
        "\nError Types\n| Type | Code | Description |\n|---|---|---|\n"
        "bad_error |\nbad |\nIt went badly. |\n| (none) | gone |\nGone away. |\n"
    )
    page, diags = _load(text)
    assert [(e.code, e.meaning, e.provenance.line) for e in page.error_codes] == [
        ("bad", "It went badly.", 9),
        ("gone", "Gone away.", 12),
    ]
    assert _codes(diags, "table-row-continued") == [9, 12]


def test_synthetic_continued_cells_keep_the_cells_apart() -> None:
    text = "Error Types\n| Type | Code | Description |\n|---|---|---|\nserver_error |\nvaries | Something failed. |\n"
    page, _ = _load(_chunk("") + "\n" + text)
    assert page.error_codes == []  # `varies` is not a code
    page2, diags = _load(_chunk("") + "\n" + text.replace("varies", "boom"))
    assert [(e.code, e.meaning) for e in page2.error_codes] == [("boom", "Something failed.")]


def test_synthetic_dotted_names_nest() -> None:
    page, _ = _load(
        _chunk(
            "| usage | object | Usage. |\n| usage.prompt_tokens | integer | Prompt. |\n"
            "| usage.details.cached | integer | Cached. |\n"
        )
    )
    usage = _member(_message(page, "ChatCompletionChunk").payload, "usage")
    assert usage.name == "ChatCompletionChunkUsage"
    assert [p.name for p in usage.properties] == ["prompt_tokens", "details"]
    details = _member(usage, "details")
    assert (details.type, details.name) == ("object", "ChatCompletionChunkUsageDetails")
    assert _member(details, "cached").type == "integer"


def test_synthetic_table_without_header_row() -> None:
    text = _chunk("") + "\nMore Things\n| a | string | A. |\n| b | string | B. |\n"
    page, diags = _load(text)
    assert [d for d in diags if d.code == "table-no-header"]
    assert _codes(diags, "table-no-header") == [7]


def test_synthetic_unterminated_table_ends_at_the_first_line_without_a_pipe() -> None:
    page, diags = _load(_chunk("| id | string | Id. |\n", tail="Delta Object\nSome prose.\n"))
    chunk = _message(page, "ChatCompletionChunk").payload
    assert [p.name for p in chunk.properties] == ["id", "choices"]
    assert _codes(diags, "table-unterminated") == [5]


def test_synthetic_extra_cells_that_are_not_types_join_the_description() -> None:
    page, diags = _load(_chunk("| mode | string | one | or | two |\n"))
    mode = _member(_message(page, "ChatCompletionChunk").payload, "mode")
    assert mode.description == "one | or | two"
    assert _codes(diags, "table-cell-extra") == [4]


def test_synthetic_prose_line_starting_with_data_is_not_wire() -> None:
    text = _chunk("") + '\nVendor Events\ndata: lines within the stream carry vendor events.\ndata: {"a": 1}\n'
    page, _ = _load(text)
    assert [s.wire for s in page.example_streams] == [b'data: {"a": 1}\n\n']
    assert page.example_streams[0].provenance.line == 8


def test_synthetic_unknown_type_is_any_with_a_diagnostic() -> None:
    page, diags = _load(_chunk("| when | timestamp | When. |\n"))
    assert _member(_message(page, "ChatCompletionChunk").payload, "when").type == "any"
    assert _codes(diags, "type-unknown") == [4]


def test_page_without_chunk_table_has_no_channel() -> None:
    page, diags = _load('Title\nSome prose.\ndata: {"x": 1}\n')
    assert page.channel is None
    assert [d.code for d in diags if d.severity.value == "error"] == ["chunk-table-missing"]
    assert len(page.example_streams) == 1


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "|",
        "| a |\n|---|\n",
        "data: {",
        'data: {\n"a":',
        "# x\ndata:",
        "\r\n|---|\r\n",
        "x_a | Fields: (((",
        "\x00\x01",
    ],
)
def test_bad_input_never_raises(text: str) -> None:
    _load(text)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "| Field | Type | Description |",
                "|---|---|---|",
                "| a | string | null | x |",
                "b | c |",
                "data: {",
                "data: [DONE]",
                "event: error",
                ": heartbeat",
                "# note",
                "Chunk Structure",
                "}",
                "| choices | array | objects containing x |",
                "x_a.b | Fields: a (array of {b, c}), d (optional",
                "Same fields as x_a.b",
                "",
                "Fields: q, r",
            ]
        ),
        max_size=25,
    )
)
def test_random_pages_never_raise(parts: list[str]) -> None:
    _load("\n".join(parts))


VENDOR = """
Demo Events (x_demo.*)
| Type | Description |
|---|---|
x_demo.one | First. Fields: label, hits, flag (boolean), items (optional array of {id, size}), note (when known). |
x_demo.two | Second. Same fields as x_demo.one. |
x_demo.three | Third. Same fields as x_demo.nowhere. |
x_demo_one | Collides with the first. |
"""


def test_synthetic_vendor_fields() -> None:
    page, diags = _load(_chunk("") + VENDOR)
    one = _message(page, "XDemoOne").payload
    assert [(p.name, p.schema.type, p.required) for p in one.properties] == [
        ("type", "string", True),
        ("label", "string", True),
        ("hits", "any", True),
        ("flag", "boolean", True),
        ("items", "array", False),
        ("note", "string", False),
    ]
    assert _member(one, "items").items.name == "XDemoOneItem"  # type: ignore[union-attr]
    assert [p.name for p in _member(one, "items").items.properties] == ["id", "size"]  # type: ignore[union-attr]
    two = _message(page, "XDemoTwo").payload
    assert [p.name for p in two.properties] == [p.name for p in one.properties]
    assert _member(two, "items").items.name == "XDemoTwoItem"  # type: ignore[union-attr]
    assert [p.name for p in _message(page, "XDemoThree").payload.properties] == ["type"]
    assert _codes(diags, "vendor-fields-unknown-ref") == [11]
    assert _codes(diags, "message-name-collision") == [12]
    assert sorted(set(_codes(diags, "field-type-unknown"))) == [9]

"""Tests of the HTML-table page loader (src/ssegen/sources/pages/html/).

The real page is ``specs/siliconstorm/inference-api.md`` (Siliconstorm/MindIE inference API: markdown with
HTML tables, two translations of one document), read from its
verbatim copy under ``specs/``; broken
tables and streams are small synthetic pages.
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
from ssegen.ir import ErrorCode
from ssegen.irjson import dumps
from ssegen.sources.pages.html import load_html_page, looks_like_html_table_page
from ssegen.sources.pages.messages import PageResult

SPEC = ROOT / "specs" / "siliconstorm" / "inference-api.md"
FILE = "siliconstorm/inference-api.md"


def _load(text: str, file: str = FILE) -> tuple[PageResult, Diagnostics]:
    diagnostics = Diagnostics()
    return load_html_page(text, file, diagnostics), diagnostics


# -- the seed ------------------------------------------------------------------------------


def test_detects_html_table_page_by_content(source: str) -> None:
    assert looks_like_html_table_page(source)
    assert not looks_like_html_table_page(
        (ROOT / "specs" / "xerotier" / "streaming-api.md").read_text(encoding="utf-8")
    )
    assert not looks_like_html_table_page(
        (ROOT / "specs" / "mistral" / "asyncapi-page.txt").read_text(encoding="utf-8")
    )
    assert not looks_like_html_table_page("<p>no tables</p>")


def test_page_title_and_channel(page: PageResult) -> None:
    assert page.title == "Siliconstorm Reasoning interface documentation"
    assert page.channel is not None
    assert page.channel.address == "/chat/completions"
    assert [m.name for m in page.channel.messages] == ["ChatCompletionChunk", "StreamDone"]
    assert page.channel.description == "Provides text/streaming reasoning processing capabilities."


def test_data_row_is_the_payload_itself(page: PageResult, diags: Diagnostics) -> None:
    chunk = _message(page, "ChatCompletionChunk")
    assert chunk.kind == "data"
    assert chunk.title == "Explanation of Streaming Inference Results"
    assert chunk.payload.description == "The result of a single inference."
    assert [p.name for p in chunk.payload.properties] == [
        "id",
        "object",
        "created",
        "model",
        "full_text",
        "usage",
        "choices",
    ]
    assert _codes(diags, "table-data-wrapper") == [898, 1353]


def test_nesting_from_rowspan_placeholders(page: PageResult) -> None:
    chunk = _message(page, "ChatCompletionChunk").payload
    assert [p.name for p in _member(chunk, "usage").properties] == [
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
    ]
    choice = _member(chunk, "choices").items
    assert choice is not None
    assert [p.name for p in choice.properties] == ["index", "delta", "finish_reason"]
    assert [p.name for p in _member(chunk, "choices", "delta").properties] == ["role", "content"]


def test_names_come_from_the_path(page: PageResult) -> None:
    chunk = _message(page, "ChatCompletionChunk").payload
    assert chunk.name == "ChatCompletionChunk"
    assert _member(chunk, "usage").name == "ChatCompletionChunkUsage"
    assert _member(chunk, "choices").items.name == "ChatCompletionChunkChoice"  # type: ignore[union-attr]
    assert _member(chunk, "choices", "delta").name == "ChatCompletionChunkChoiceDelta"
    assert _member(chunk, "choices", "finish_reason").name == "ChatCompletionChunkChoiceFinishReason"


def test_types_are_mapped_to_json_types(page: PageResult) -> None:
    chunk = _message(page, "ChatCompletionChunk").payload
    assert _member(chunk, "created").type == "integer"
    assert _member(chunk, "usage", "prompt_tokens").type == "integer"  # `int`
    assert _member(chunk, "choices").type == "array"  # `list`
    assert _member(chunk, "full_text").type == "string"


def test_descriptions_keep_list_items(page: PageResult) -> None:
    finish = _member(_message(page, "ChatCompletionChunk").payload, "choices", "finish_reason")
    assert finish.description.startswith(
        "Reason for completion, returned only in the final inference result.\n- stop:\n  - The request was CANCELLED"
    )
    assert "\n- length:\n  - The request ended because it reached the maximum sequence length" in finish.description


def test_finish_reason_enum_lists_only_the_streaming_values(page: PageResult, diags: Diagnostics) -> None:
    finish = _member(_message(page, "ChatCompletionChunk").payload, "choices", "finish_reason")
    assert finish.enum == ("stop", "length")
    # The table says string; the examples send null. The page loader states what the page
    # documents, and the provider-wide reconcile step widens it (example-widened).
    assert not finish.nullable


def test_examples_sending_null_widen_the_schema_in_the_provider() -> None:
    from ssegen.load import load_provider

    result = load_provider(ROOT / "specs", "siliconstorm")
    assert result.provider is not None
    chunk = result.provider.channel("/chat/completions").message("ChatCompletionChunk").payload  # type: ignore[union-attr]
    finish = chunk.property("choices").schema.items.property("finish_reason")  # type: ignore[union-attr]
    assert finish.schema.nullable
    widened = [d for d in result.diagnostics if d.code == "example-widened"]
    assert [(d.file, d.pointer) for d in widened] == [("siliconstorm/inference-api.md", "/choices/0/finish_reason")]
    assert "siliconstorm/inference-api.md:981" in widened[0].message


def test_presence_from_descriptions_and_examples(page: PageResult) -> None:
    chunk = _message(page, "ChatCompletionChunk").payload
    required = {p.name: p.required for p in chunk.properties}
    assert required == {
        "id": True,
        "object": True,
        "created": True,
        "model": True,
        "full_text": False,
        "usage": False,
        "choices": True,
    }
    assert _member(chunk, "object").enum == ("chat.completion.chunk",)


def test_duplicate_table_is_merged(page: PageResult, diags: Diagnostics) -> None:
    assert page.channel is not None
    assert [m.name for m in page.channel.messages].count("ChatCompletionChunk") == 1
    assert _message(page, "ChatCompletionChunk").provenance.line == 889
    assert _codes(diags, "duplicate-table") == [1344]
    assert _codes(diags, "duplicate-table-conflict") == []


def test_non_streaming_tables_are_skipped_and_the_request_table_read(page: PageResult, diags: Diagnostics) -> None:
    assert _codes(diags, "table-skipped") == [735, 1190]
    assert page.channel is not None and page.channel.request is not None
    body = page.channel.request.body
    assert body is not None and body.schema is not None and body.schema.provenance.line == 31


def test_error_codes(page: PageResult) -> None:
    assert [(e.code, e.meaning) for e in page.error_codes] == [
        (701, "Insufficient balance"),
        (702, "Authorization not passed"),
        (801, "Apikey error"),
        (802, "Request timeout"),
        (9999, "Model response exception, handle according to message prompts"),
    ]
    assert [e.provenance.line for e in page.error_codes] == [1480, 1481, 1482, 1483, 1484]
    assert isinstance(page.error_codes[0], ErrorCode)


def test_example_streams_are_harvested(page: PageResult) -> None:
    assert [s.name for s in page.example_streams] == ["streaming-inference-1", "streaming-inference-2"]
    first, second = page.example_streams
    assert (first.provenance.line, second.provenance.line) == (666, 707)
    assert len(first.events()) == 18 and len(second.events()) == 11
    assert all(s.events()[-1].data == "[DONE]" for s in page.example_streams)
    assert first.wire.startswith(b'data: {"id":"endpoint_common_8"')
    assert b"\n\n\n" not in first.wire
    assert '"full_text":"Hello! How can I assist you today?"' in second.events()[-2].data


def test_full_text_mode_is_read_from_the_stream_intro(page: PageResult) -> None:
    first, second = page.example_streams
    assert (first.full_text, second.full_text) == (False, True)  # "“fullTextEnabled”=true"


def test_event_lines_point_at_each_data_line(page: PageResult, lines: list[str]) -> None:
    first = page.example_streams[0]
    assert len(first.event_lines) == len(first.events())
    assert (first.event_lines[0], first.event_lines[-1]) == (666, 700)
    assert all(lines[n - 1].startswith("data: ") for n in first.event_lines)
    assert first.event_provenance(17).pointer == "/sections/streaming-inference-1/examples/0/events/17"


def test_second_translation_streams_are_dropped_as_duplicates(diags: Diagnostics) -> None:
    assert _codes(diags, "example-stream-duplicate") == [1118, 1161]
    assert _codes(diags, "example-stream-truncated") == []


def test_stream_done_comes_from_the_examples(page: PageResult, diags: Diagnostics) -> None:
    done = _message(page, "StreamDone")
    assert (done.kind, done.payload.enum) == ("terminator", ("[DONE]",))
    assert done.provenance.line == 700
    assert _codes(diags, "terminator-from-example") == [700]


def test_invalid_json_fence_is_reported(diags: Diagnostics) -> None:
    assert _codes(diags, "fence-invalid-json") == [1470]


def test_provenance_lines_point_at_the_source(page: PageResult, lines: list[str]) -> None:
    chunk = _message(page, "ChatCompletionChunk")
    assert lines[chunk.provenance.line - 1].startswith("<table")
    full_text = chunk.payload.property("full_text")
    assert full_text is not None
    assert full_text.provenance.line == 924 and "<tr>" in lines[923]
    assert "full_text" in lines[924]
    assert full_text.provenance.pointer == "/sections/table-2/tables/0/rows/5"
    assert page.channel is not None and "chat/completions" in lines[page.channel.provenance.line - 1]


def test_seed_diagnostics(diags: Diagnostics) -> None:
    assert Counter(d.code for d in diags) == Counter(
        {
            "duplicate-table": 1,
            "example-stream-duplicate": 2,
            "fence-invalid-json": 1,
            "required-relaxed": 1,
            "table-data-wrapper": 2,
            "table-skipped": 2,
            "terminator-from-example": 1,
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


# -- synthetic pages --------------------------------------------------------------------------

HEAD = """# Demo API

### Table 2

Explanation of Streaming Inference Results

<table>
<thead><tr><th colspan="3">Parameter Name</th><th>Type</th><th>Description</th></tr></thead>
<tbody>
"""
TAIL = "</tbody>\n</table>\n"
ROWS = """<tr><td colspan="3">id</td><td>string</td><td>Request ID.</td></tr>
<tr><td colspan="3">choices</td><td>list</td><td>Results.</td></tr>
<tr><td rowspan="3">-</td><td colspan="2">index</td><td>integer</td><td>Index.</td></tr>
<tr><td colspan="2">delta</td><td>object</td><td>Delta.</td></tr>
<tr><td>-</td><td>content</td><td>string</td><td>推理文本结果。</td></tr>
"""
STREAM = """
### Streaming Inference 1

```json
data: {"id":"a","choices":[{"index":0,"delta":{"content":"x"}}]}

data: {"id":"a","choices":[{"index":0,"delta":{"content":"y"}}]}

data: [DONE]
```
"""


def test_synthetic_depth_from_placeholders_and_covered_cells() -> None:
    page, diags = _load(HEAD + ROWS + TAIL)
    chunk = _message(page, "ChatCompletionChunk").payload
    assert [p.name for p in chunk.properties] == ["id", "choices"]
    assert [p.name for p in _member(chunk, "choices").items.properties] == ["index", "delta"]  # type: ignore[union-attr]
    assert [p.name for p in _member(chunk, "choices", "delta").properties] == ["content"]
    assert not [d for d in diags if d.severity.value != "info"]


def test_synthetic_chinese_text_is_kept() -> None:
    page, _ = _load(HEAD + ROWS + TAIL)
    assert (
        _member(_message(page, "ChatCompletionChunk").payload, "choices", "delta", "content").description
        == "推理文本结果。"
    )


def test_synthetic_broken_rowspan_reports_its_line() -> None:
    rows = ROWS.replace('<td rowspan="3">-</td>', '<td rowspan="9">-</td>')
    page, diags = _load(HEAD + rows + TAIL)
    assert _codes(diags, "table-rowspan-overflow") == [12]
    chunk = _message(page, "ChatCompletionChunk").payload
    assert [p.name for p in _member(chunk, "choices").items.properties] == ["index", "delta"]  # type: ignore[union-attr]


def test_synthetic_short_rowspan_is_reported_not_fatal() -> None:
    rows = ROWS.replace('<td rowspan="3">-</td>', '<td rowspan="1">-</td>')
    page, diags = _load(HEAD + rows + TAIL)
    assert _codes(diags, "table-row-misaligned") == [13, 14]  # `delta` and `content` now end a column short
    assert page.channel is None  # `delta` is no longer under `choices`
    assert "`choices` has no `delta` row" in [d.message for d in diags if d.code == "table-skipped"][0]


def test_synthetic_invalid_span_values() -> None:
    rows = ROWS.replace('rowspan="3"', 'rowspan="three"').replace(
        '<td colspan="3">id</td>', '<td colspan="99999">id</td>'
    )
    page, diags = _load(HEAD + rows + TAIL)
    assert "table-span-invalid" in {d.code for d in diags}


def test_synthetic_table_without_header_row() -> None:
    text = (
        HEAD.replace(
            '<thead><tr><th colspan="3">Parameter Name</th><th>Type</th><th>Description</th></tr></thead>\n', ""
        )
        + ROWS
        + TAIL
    )
    page, diags = _load(text)
    assert _codes(diags, "table-no-header") == [7]
    chunk = _message(page, "ChatCompletionChunk").payload
    assert [p.name for p in chunk.properties] == ["id", "choices"]
    assert _member(chunk, "choices", "index").description == "Index."


def test_synthetic_conflicting_duplicate_table_reports_differences() -> None:
    second = (HEAD + ROWS + TAIL).replace("# Demo API\n", "").replace("<td>integer</td>", "<td>string</td>")
    page, diags = _load(HEAD + ROWS + TAIL + "\n" + second)
    assert _codes(diags, "duplicate-table-conflict") == [28]  # the second copy's `index` row
    assert _member(_message(page, "ChatCompletionChunk").payload, "choices", "index").type == "integer"


def test_synthetic_truncated_copy_of_a_stream_is_dropped() -> None:
    truncated = (
        '\n### Streamed Inference 1\n\n```json\ndata: {"id":"a","choices":[{"index":0,"delta":{"content":"x"}}]}\n```\n'
    )
    page, diags = _load(HEAD + ROWS + TAIL + STREAM + truncated)
    assert [s.name for s in page.example_streams] == ["streaming-inference-1"]
    assert _codes(diags, "example-stream-truncated") == [31]


def test_synthetic_unterminated_stream_is_kept_and_flagged() -> None:
    stream = (
        "\n### Streaming Inference 1\n\n"
        '```json\ndata: {"id":"a","choices":[{"index":0,"delta":{"content":"x"}}]}\n```\n'
    )
    page, diags = _load(HEAD + ROWS + TAIL + stream)
    assert len(page.example_streams) == 1
    assert _codes(diags, "example-stream-unterminated") == [21]
    assert page.channel is not None and page.channel.message("StreamDone") is None


def test_synthetic_examples_relax_and_check_the_table() -> None:
    page, diags = _load(HEAD + ROWS + TAIL + STREAM)
    index = _member(_message(page, "ChatCompletionChunk").payload, "choices", "index")
    assert index.type == "integer"


def test_page_without_streaming_table_has_no_channel() -> None:
    page, diags = _load(
        "# T\n\n<table><tr><th>Parameter</th><th>Required</th></tr><tr><td>a</td><td>yes</td></tr></table>\n"
    )
    assert page.channel is None
    assert "chunk-table-missing" in {d.code for d in diags}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "<table>",
        "<table><tr><td rowspan='-3'>x</td></tr>",
        "<table></table>",
        "<table><tr></tr></table>",
        "```json\ndata: {\n```",
        "<table><thead><tr><th colspan='0'>P</th><th>Type</th></tr></thead><tbody><tr><td>-</td></tr></tbody></table>",
        "<TABLE><TR><TD>a<TD>string<TD>d</TABLE>",
        "\x00<table>\x00",
    ],
)
def test_bad_input_never_raises(text: str) -> None:
    _load(text)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<table>",
                "</table>",
                "<thead>",
                "<tr>",
                "</tr>",
                "<th colspan='2'>Parameter Name</th>",
                "<th>Type</th>",
                "<td rowspan='4'>-</td>",
                "<td colspan='3'>choices</td>",
                "<td>list</td>",
                "<td>delta</td>",
                "<td>object</td>",
                "```json",
                "```",
                'data: {"a":1}',
                "data: [DONE]",
                "### Streaming Inference 1",
                "| code | x |",
                "|---|---|",
                "| 1 | y |",
                "",
            ]
        ),
        max_size=30,
    )
)
def test_random_pages_never_raise(parts: list[str]) -> None:
    _load("\n".join(parts))

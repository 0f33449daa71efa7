"""Streams marked by code generators' OpenAPI extensions: Fern's ``x-fern-streaming`` (Cohere's
published document) and Speakeasy's ``x-speakeasy-sse-sentinel`` (OpenRouter's)."""

from __future__ import annotations

from pathlib import Path

from ssegen.ir import Provider
from ssegen.load import LoadResult, load_provider

_HEAD = """openapi: 3.1.0
info: {title: Demo, version: '1'}
paths:
  /v2/chat:
    post:
      operationId: chat
"""

_COMPONENTS = """components:
  schemas:
    ChatResponse:
      type: object
      required: [id]
      properties: {id: {type: string}, text: {type: string}}
    StreamedChatResponse:
      type: object
      required: [type]
      properties:
        type: {type: string, enum: [content-delta, message-end]}
        delta: {type: object, properties: {text: {type: string}}}
"""


def _load(tmp_path: Path, text: str) -> tuple[LoadResult, Provider | None]:
    folder = tmp_path / "specs" / "demo"
    folder.mkdir(parents=True)
    (folder / "openapi.yaml").write_text(text, encoding="utf-8")
    result = load_provider(tmp_path / "specs", "demo")
    return result, result.provider


def _codes(result: LoadResult, code: str) -> list[str]:
    return [d.message for d in result.diagnostics if d.code == code]


def test_fern_stream_condition_reads_response_stream_as_the_event_data(tmp_path: Path) -> None:
    doc = (
        _HEAD
        + """      x-fern-streaming:
        format: sse
        stream-condition: $request.stream
        terminator: '[DONE]'
        response: {$ref: '#/components/schemas/ChatResponse'}
        response-stream: {$ref: '#/components/schemas/StreamedChatResponse'}
      responses:
        '200':
          description: OK
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ChatResponse'}
"""
        + _COMPONENTS
    )
    result, provider = _load(tmp_path, doc)
    assert provider is not None, [d.format() for d in result.diagnostics]
    [channel] = provider.channels
    assert channel.address == "/v2/chat"
    messages = {m.name: m for m in channel.messages}
    assert set(messages) == {"StreamedChatResponse", "StreamDone"}
    assert messages["StreamDone"].literal == "[DONE]"
    assert messages["StreamDone"].provenance.pointer == "/paths/~1v2~1chat/post/x-fern-streaming/terminator"
    assert any("x-fern-streaming (format sse)" in m for m in _codes(result, "openapi-stream-vendor"))
    assert "1 of 1 operations" in _codes(result, "openapi-streams-found")[0]


def test_fern_sse_without_response_stream_streams_the_json_response(tmp_path: Path) -> None:
    doc = (
        _HEAD
        + """      x-fern-streaming: {format: sse}
      responses:
        '200':
          description: OK
          content:
            application/json:
              schema: {$ref: '#/components/schemas/StreamedChatResponse'}
"""
        + _COMPONENTS
    )
    result, provider = _load(tmp_path, doc)
    assert provider is not None
    assert [m.name for m in provider.channels[0].messages] == ["StreamedChatResponse"]


def test_fern_json_lines_are_a_channel_framed_as_ndjson(tmp_path: Path) -> None:
    doc = (
        _HEAD
        + """      x-fern-streaming: true
      responses:
        '200':
          description: OK
          content:
            application/json:
              schema: {$ref: '#/components/schemas/StreamedChatResponse'}
"""
        + _COMPONENTS
    )
    result, provider = _load(tmp_path, doc)
    assert provider is not None
    [channel] = provider.channels
    assert channel.framing == "ndjson"
    assert [(m.name, m.event) for m in channel.messages] == [("StreamedChatResponse", "message")]
    [ndjson] = [d for d in result.diagnostics if d.code == "openapi-stream-ndjson"]
    assert ndjson.severity.value == "info" and ndjson.pointer == "/paths/~1v2~1chat/post/x-fern-streaming"
    assert "newline-delimited JSON" in ndjson.message


def test_speakeasy_sentinel_is_the_terminator(tmp_path: Path) -> None:
    doc = (
        _HEAD
        + """      responses:
        '200':
          description: OK
          content:
            text/event-stream:
              schema: {$ref: '#/components/schemas/StreamedChatResponse'}
              x-speakeasy-sse-sentinel: '[DONE]'
"""
        + _COMPONENTS
    )
    result, provider = _load(tmp_path, doc)
    assert provider is not None
    messages = {m.name: m for m in provider.channels[0].messages}
    assert messages["StreamDone"].literal == "[DONE]"
    assert any(
        "x-speakeasy-sse-sentinel declares that `data: [DONE]`" in m for m in _codes(result, "openapi-stream-vendor")
    )


def test_a_sentinel_that_is_no_string_is_reported_and_ignored(tmp_path: Path) -> None:
    doc = (
        _HEAD
        + """      responses:
        '200':
          description: OK
          content:
            text/event-stream:
              schema: {$ref: '#/components/schemas/StreamedChatResponse'}
              x-speakeasy-sse-sentinel: 42
"""
        + _COMPONENTS
    )
    result, provider = _load(tmp_path, doc)
    assert provider is not None
    assert [m.name for m in provider.channels[0].messages] == ["StreamedChatResponse"]
    assert any("x-speakeasy-sse-sentinel must be a non-empty string" in m for m in _codes(result, "message-invalid"))

"""How a channel is framed (``ssegen.ir.Channel.framing``), read from the media type each
source names: OpenAPI response media types, AsyncAPI ``contentType`` and
``defaultContentType`` (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssegen.ir import Provider
from ssegen.load import LoadResult, load_provider
from ssegen.sources.base import framing_of

_CHUNK = """      type: object
      required: [model, done]
      properties:
        model: {type: string}
        done: {type: boolean}
        message: {type: object, properties: {content: {type: string}}}
"""


def _load(tmp_path: Path, name: str, text: str) -> tuple[LoadResult, Provider]:
    folder = tmp_path / "specs" / "demo"
    folder.mkdir(parents=True)
    (folder / name).write_text(text, encoding="utf-8")
    result = load_provider(tmp_path / "specs", "demo")
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    return result, result.provider


@pytest.mark.parametrize(
    ("media_type", "framing"),
    [
        ("text/event-stream", "sse"),
        ("text/event-stream; charset=utf-8", "sse"),
        ("application/x-ndjson", "ndjson"),
        ("Application/JSONL", "ndjson"),
        ("application/jsonlines; charset=utf-8", "ndjson"),
        ("application/json", None),
        ("application/json-seq", None),
    ],
)
def test_framing_of_media_types(media_type: str, framing: str | None) -> None:
    assert framing_of(media_type) == framing


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_openapi_ndjson_response_schema_is_each_line(tmp_path: Path, version: str) -> None:
    doc = f"""openapi: {version}
info: {{title: Local models, version: '1'}}
paths:
  /api/chat:
    post:
      operationId: chat
      responses:
        '200':
          description: one JSON object per line
          content:
            application/x-ndjson:
              schema: {{$ref: '#/components/schemas/ChatChunk'}}
components:
  schemas:
    ChatChunk:
{_CHUNK}"""
    result, provider = _load(tmp_path, "openapi.yaml", doc)
    [channel] = provider.channels
    assert (channel.address, channel.framing) == ("/api/chat", "ndjson")
    assert [(m.name, m.event, m.kind) for m in channel.messages] == [("ChatChunk", "message", "data")]
    [info] = [d for d in result.diagnostics if d.code == "openapi-stream-ndjson"]
    assert info.pointer == "/paths/~1api~1chat/post/responses/200/content/application~1x-ndjson"
    assert "application/x-ndjson" in info.message


def test_openapi_32_item_schema_of_jsonl_is_the_value_not_an_sse_event(tmp_path: Path) -> None:
    doc = f"""openapi: 3.2.0
info: {{title: Local models, version: '1'}}
paths:
  /api/generate:
    post:
      responses:
        '200':
          description: JSON Lines
          content:
            application/jsonl:
              itemSchema: {{$ref: '#/components/schemas/ChatChunk'}}
components:
  schemas:
    ChatChunk:
{_CHUNK}"""
    _, provider = _load(tmp_path, "openapi.yaml", doc)
    [channel] = provider.channels
    assert channel.framing == "ndjson"
    assert [m.name for m in channel.messages] == ["ChatChunk"]
    assert {p.name for p in channel.messages[0].payload.properties} == {"model", "done", "message"}


def test_openapi_prefers_sse_when_an_operation_offers_both(tmp_path: Path) -> None:
    doc = f"""openapi: 3.1.0
info: {{title: Both, version: '1'}}
paths:
  /stream:
    post:
      responses:
        '200':
          description: negotiated by Accept
          content:
            application/x-ndjson:
              schema: {{$ref: '#/components/schemas/ChatChunk'}}
            text/event-stream:
              schema: {{$ref: '#/components/schemas/ChatChunk'}}
components:
  schemas:
    ChatChunk:
{_CHUNK}"""
    result, provider = _load(tmp_path, "openapi.yaml", doc)
    assert provider.channels[0].framing == "sse"
    assert not [d for d in result.diagnostics if d.code == "openapi-stream-ndjson"]
    # Issue 34 item 5: the channel keeps both, its framing's first (the response's
    # Content-Type chooses the framing at run time).
    assert provider.channels[0].media_types == ("text/event-stream", "application/x-ndjson")


def test_asyncapi_channel_lists_its_media_types(tmp_path: Path) -> None:
    doc = f"""asyncapi: 3.0.0
info: {{title: Negotiated, version: '1'}}
channels:
  chat:
    address: /chat
    x-ssegen-media-types: [application/x-ndjson, text/event-stream; charset=utf-8, application/json, 7]
    messages:
      chunk:
        payload:
          $ref: '#/components/schemas/ChatChunk'
operations:
  streamChat:
    action: send
    channel: {{$ref: '#/channels/chat'}}
components:
  schemas:
    ChatChunk:
{_CHUNK}"""
    _, provider = _load(tmp_path, "asyncapi.yaml", doc)
    [channel] = provider.channels
    assert (channel.framing, channel.media_types) == ("ndjson", ("application/x-ndjson", "text/event-stream"))


def test_cohere_channel_keeps_both_media_types() -> None:
    result = load_provider(Path(__file__).resolve().parents[2] / "specs", "cohere")
    assert result.provider is not None
    [channel] = result.provider.channels
    assert (channel.framing, channel.media_types) == ("sse", ("text/event-stream", "application/x-ndjson"))


@pytest.mark.parametrize(
    ("default", "content_type", "framing"),
    [
        ("", "contentType: application/x-ndjson", "ndjson"),
        ("defaultContentType: application/jsonl", "", "ndjson"),
        ("defaultContentType: application/json", "", "sse"),
        ("", "", "sse"),
    ],
)
def test_asyncapi_content_type_frames_the_channel(
    tmp_path: Path, default: str, content_type: str, framing: str
) -> None:
    doc = f"""asyncapi: 3.0.0
info: {{title: Local models, version: '1'}}
{default}
channels:
  chat:
    address: /api/chat
    messages:
      chunk:
        {content_type}
        payload:
          $ref: '#/components/schemas/ChatChunk'
operations:
  streamChat:
    action: send
    channel: {{$ref: '#/channels/chat'}}
components:
  schemas:
    ChatChunk:
{_CHUNK}"""
    _, provider = _load(tmp_path, "asyncapi.yaml", doc)
    assert provider.channels[0].framing == framing


def test_sources_that_frame_one_channel_differently_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "specs" / "demo"
    folder.mkdir(parents=True)
    for name, media_type in (("a-openapi.yaml", "application/x-ndjson"), ("b-openapi.yaml", "text/event-stream")):
        (folder / name).write_text(
            f"""openapi: 3.1.0
info: {{title: Local models, version: '1'}}
paths:
  /api/chat:
    post:
      responses:
        '200':
          description: stream
          content:
            {media_type}:
              schema: {{$ref: '#/components/schemas/ChatChunk'}}
components:
  schemas:
    ChatChunk:
{_CHUNK}""",
            encoding="utf-8",
        )
    result = load_provider(tmp_path / "specs", "demo")
    assert result.provider is not None and result.provider.channels[0].framing == "ndjson"
    [conflict] = [d for d in result.diagnostics if d.code == "framing-conflict"]
    assert conflict.file.endswith("b-openapi.yaml") and "a-openapi.yaml" in conflict.message

"""Direction of AsyncAPI operations, why a provider is empty, and unnamed inline messages.

2.x ``subscribe`` and 3.0 ``action: send`` are what the application sends, so what a
client receives; 2.x ``publish`` and 3.0 ``receive`` are what the client sends: the request
that opens the stream of their channel (skipped with an info naming them on a channel nothing
streams on), except that the ``reply`` of a 3.0 ``receive`` is received.
"""

from __future__ import annotations

from pathlib import Path

from ssegen.load import LoadResult, load_provider

CHUNK = "{type: object, properties: {text: {type: string}}, required: [text]}"
REQUEST = "{type: object, properties: {prompt: {type: string}}}"


def _load(tmp_path: Path, doc: str) -> LoadResult:
    folder = tmp_path / "specs" / "p"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(doc, encoding="utf-8")
    return load_provider(tmp_path / "specs", "p")


def _received(result: LoadResult) -> dict[str, list[str]]:
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    return {c.address: [m.name for m in c.messages] for c in result.provider.channels}


V2 = f"""asyncapi: 2.6.0
info: {{title: T, version: '1'}}
channels:
  /chat:
    publish:
      operationId: sendPrompt
      message: {{name: Prompt, payload: {REQUEST}}}
    subscribe:
      operationId: streamChunks
      message: {{name: Chunk, payload: {CHUNK}}}
"""

V3 = f"""asyncapi: 3.0.0
info: {{title: T, version: '1'}}
channels:
  chat:
    address: /chat
    messages:
      Prompt: {{payload: {REQUEST}}}
      Chunk: {{payload: {CHUNK}}}
operations:
  sendPrompt:
    action: receive
    channel: {{$ref: '#/channels/chat'}}
    messages: [{{$ref: '#/channels/chat/messages/Prompt'}}]
  streamChunks:
    action: send
    channel: {{$ref: '#/channels/chat'}}
    messages: [{{$ref: '#/channels/chat/messages/Chunk'}}]
"""


def test_direction_2x_subscribe_and_3_0_send_are_received_publish_and_receive_are_the_request(
    tmp_path: Path,
) -> None:
    v2 = _load(tmp_path / "v2", V2)
    v3 = _load(tmp_path / "v3", V3)
    assert _received(v2) == _received(v3) == {"/chat": ["Chunk"]}
    for result, pointer in ((v2, "/channels/~1chat/publish"), (v3, "/operations/sendPrompt")):
        assert result.provider is not None
        request = result.provider.channels[0].request
        assert request is not None and request.body is not None and request.body.schema is not None
        assert request.body.schema.property("prompt") is not None and request.provenance.pointer == pointer
        assert not [d for d in result.diagnostics if d.code == "operation-request-skipped"]


def test_send_operation_reply_is_a_request_and_skipped(tmp_path: Path) -> None:
    doc = V3.replace(
        "    messages: [{$ref: '#/channels/chat/messages/Chunk'}]\n",
        "    messages: [{$ref: '#/channels/chat/messages/Chunk'}]\n"
        "    reply: {messages: [{$ref: '#/channels/chat/messages/Prompt'}]}\n",
    )
    result = _load(tmp_path, doc)
    assert _received(result) == {"/chat": ["Chunk"]}
    skipped = [d.message for d in result.diagnostics if d.code == "operation-request-skipped"]
    assert any("reply of send operation `streamChunks`" in m for m in skipped)


def test_provider_empty_names_the_skipped_request_operations(tmp_path: Path) -> None:
    v2 = V2.split("    subscribe:")[0]
    v3 = V3.split("  streamChunks:")[0]
    for name, doc, names in (
        ("v2", v2, "publish operation `sendPrompt` on `/chat`"),
        ("v3", v3, "receive operation `sendPrompt` on `/chat`"),
    ):
        result = _load(tmp_path / name, doc)
        assert result.provider is None
        [empty] = [d for d in result.diagnostics if d.code == "provider-empty"]
        assert "p/asyncapi.yaml: it has only operations the client sends (requests)" in empty.message
        assert names in empty.message
        # the fix, for a user who wrote the client's view
        assert "the stream it sends is `action: send` in 3.0, `subscribe` in 2.x" in empty.message


def test_provider_empty_says_when_a_document_has_no_channels(tmp_path: Path) -> None:
    result = _load(tmp_path, "asyncapi: 3.0.0\ninfo: {title: T, version: '1'}\nchannels: {}\n")
    [empty] = [d for d in result.diagnostics if d.code == "provider-empty"]
    assert empty.message.endswith("p/asyncapi.yaml: it has no channels")


def test_unnamed_inline_2x_message_is_named_from_operation_id_with_a_warning(tmp_path: Path) -> None:
    doc = f"""asyncapi: 2.6.0
info: {{title: T, version: '1'}}
channels:
  /chat:
    subscribe:
      operationId: streamChunks
      message: {{payload: {CHUNK}}}
  /events/{{id}}:
    subscribe:
      message:
        oneOf:
          - {{payload: {CHUNK}}}
          - {{payload: {REQUEST}}}
"""
    result = _load(tmp_path, doc)
    assert _received(result) == {
        "/chat": ["StreamChunks"],
        "/events/{id}": ["EventsIdMessage1", "EventsIdMessage2"],
    }
    named = [d for d in result.diagnostics if d.code == "message-named-from-context"]
    assert [d.severity.value for d in named] == ["warning"] * 3
    assert named[0].pointer == "/channels/~1chat/subscribe/message"
    assert not result.diagnostics.has_errors


_PARTIAL = """asyncapi: 3.0.0
info:
  title: T
  version: '1'
  description: |
    event: content-start
    data: {"type": "content-start"}
channels:
  chat:
    address: /chat
    messages:
      ContentStart: {$ref: '#/components/messages/ContentStart'}
      ToolCallStart: {$ref: '#/components/messages/ToolCallStart'}
operations:
  stream: {action: send, channel: {$ref: '#/channels/chat'}}
components:
  messages:
    ContentStart:
      payload: {type: object, required: [type], properties: {type: {const: content-start}}}
    ToolCallStart:
      payload: {type: object, required: [type], properties: {type: {const: tool-call-start}}}
"""


def test_messages_shown_without_their_event_names_are_reported_with_the_fix(tmp_path: Path) -> None:
    result = _load(tmp_path, _PARTIAL)
    assert result.provider is not None
    events = {m.name: m.event for m in result.provider.channels[0].messages}
    assert events == {"ContentStart": "content-start", "ToolCallStart": "message"}
    [partial] = [d for d in result.diagnostics if d.code == "event-names-partial"]
    assert partial.severity.value == "warning"
    assert "ToolCallStart (type 'tool-call-start')" in partial.message
    assert "x-sse-event: tool-call-start" in partial.message
    assert partial.pointer == "/components/messages/ToolCallStart"


def test_x_sse_event_on_every_message_is_not_partial(tmp_path: Path) -> None:
    doc = _PARTIAL.replace("    ToolCallStart:\n", "    ToolCallStart:\n      x-sse-event: tool-call-start\n")
    result = _load(tmp_path, doc)
    assert result.provider is not None
    assert {m.event for m in result.provider.channels[0].messages} == {"content-start", "tool-call-start"}
    assert not [d for d in result.diagnostics if d.code == "event-names-partial"]

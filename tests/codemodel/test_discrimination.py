"""Messages told apart as the wire does (issue 12): SSE event names, ``const`` and enum tags,
``oneOf`` + ``discriminator`` unions (payload level and nested), ``allOf``, sub-tags, and a
warning for messages no rule tells apart. Each rule is checked on the IR plan and through a
package generated from a small spec, in both wire forms (``data:`` only, and ``event:`` +
``data:``) and both model flavours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.packages import generated_package

from ssegen.ir import Channel
from ssegen.load import load_provider

#: An Anthropic-Messages-style stream written as AsyncAPI 2.6: named SSE events (the
#: description shows ``event:`` lines), each payload fixing ``type`` with ``const`` or a
#: one-value enum, a nested delta union told apart by a ``discriminator`` mapping (one
#: alternative does not declare ``type`` at all), an error frame under ``x-sse-event``.
MESSAGES = """\
asyncapi: 2.6.0
info:
  title: Messages
  version: '1'
  description: |
    A stream of named events:

        event: message_start
        data: {"type": "message_start", "message": {"id": "msg_1"}}

        event: content_block_delta
        data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}

        event: ping
        event: message_stop
channels:
  /v1/messages:
    subscribe:
      message:
        oneOf:
          - $ref: '#/components/messages/message_start'
          - $ref: '#/components/messages/content_block_delta'
          - $ref: '#/components/messages/ping'
          - $ref: '#/components/messages/message_stop'
          - $ref: '#/components/messages/error'
components:
  messages:
    message_start:
      payload:
        type: object
        required: [type, message]
        properties:
          type: {type: string, const: message_start}
          message:
            type: object
            required: [id]
            properties: {id: {type: string}}
      examples:
        - payload: {type: message_start, message: {id: msg_1}}
    content_block_delta:
      payload:
        type: object
        required: [type, index, delta]
        properties:
          type: {type: string, enum: [content_block_delta]}
          index: {type: integer}
          delta:
            oneOf:
              - $ref: '#/components/schemas/TextDelta'
              - $ref: '#/components/schemas/InputJsonDelta'
            discriminator:
              propertyName: type
              mapping:
                text_delta: '#/components/schemas/TextDelta'
                input_json_delta: '#/components/schemas/InputJsonDelta'
      examples:
        - payload: {type: content_block_delta, index: 0, delta: {type: text_delta, text: Hi}}
        - payload: {type: content_block_delta, index: 1, delta: {type: input_json_delta, partial_json: '{"a'}}
    ping:
      payload:
        type: object
        properties:
          type: {type: string, const: ping}
      examples:
        - payload: {type: ping}
    message_stop:
      payload:
        type: object
        properties:
          type: {type: string, const: message_stop}
      examples:
        - payload: {type: message_stop}
    error:
      x-sse-event: error
      payload:
        type: object
        required: [type, error]
        properties:
          type: {type: string, const: error}
          error:
            type: object
            properties: {message: {type: string}}
      examples:
        - payload: {type: error, error: {message: Overloaded}}
  schemas:
    TextDelta:
      type: object
      required: [text]
      properties:
        text: {type: string}
    InputJsonDelta:
      type: object
      required: [type, partial_json]
      properties:
        type: {type: string, const: input_json_delta}
        partial_json: {type: string}
"""


def _channel(tmp_path: Path, text: str, provider: str = "demo") -> tuple[Channel, list[str]]:
    folder = tmp_path / "ir" / provider
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(text, encoding="utf-8")
    result = load_provider(tmp_path / "ir", provider)
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    [channel] = result.provider.channels
    return channel, [f"{d.code}: {d.message}" for d in result.diagnostics]


def test_event_names_come_from_x_sse_event_and_from_the_documents_event_lines(tmp_path: Path) -> None:
    channel, diagnostics = _channel(tmp_path, MESSAGES)
    assert {m.name: m.event for m in channel.messages} == {
        "MessageStart": "message_start",
        "ContentBlockDelta": "content_block_delta",
        "Ping": "ping",
        "MessageStop": "message_stop",
        "Error": "error",
    }
    named = [d for d in diagnostics if d.startswith("event-named")]
    assert len(named) == 4 and "`event: message_start`" in named[0]
    # Every message travels under its own name, so frames without `event:` are told apart by data.
    assert channel.fallback is not None and channel.fallback.tag == "type"
    assert {t.value: t.messages for t in channel.fallback.tagged} == {
        "message_start": ("MessageStart",),
        "content_block_delta": ("ContentBlockDelta",),
        "ping": ("Ping",),
        "message_stop": ("MessageStop",),
        "error": ("Error",),
    }
    assert [d.event for d in channel.dispatch] == sorted(m.event for m in channel.messages)


def test_a_document_without_event_lines_keeps_every_message_on_the_message_event(tmp_path: Path) -> None:
    text = MESSAGES.replace("event: ", "kind: ").replace("x-sse-event: error\n", "")
    channel, _ = _channel(tmp_path, text)
    assert {m.event for m in channel.messages} == {"message"}
    assert [d.event for d in channel.dispatch] == ["message"] and channel.fallback is not None


@pytest.mark.parametrize("model", ["msgspec", "pydantic"])
def test_every_example_decodes_to_its_own_class_in_both_wire_forms(tmp_path: Path, model: str) -> None:
    channel, _ = _channel(tmp_path, MESSAGES)
    with generated_package(tmp_path, {"asyncapi.yaml": MESSAGES}, model=model) as (package, _diagnostics):
        decoder = package.CHANNELS["/v1/messages"]
        for message in channel.messages:
            for example in message.examples:
                for event in ("message", message.event):
                    event_obj = decoder.parse(example.data, event=event)
                    assert type(event_obj) is decoder.messages[message.name], (message.name, event, event_obj)


@pytest.mark.parametrize("model", ["msgspec", "pydantic"])
def test_a_tag_value_no_message_has_is_unknown_never_another_message(tmp_path: Path, model: str) -> None:
    with generated_package(tmp_path, {"asyncapi.yaml": MESSAGES}, model=model) as (package, _):
        decoder = package.CHANNELS["/v1/messages"]
        # `ping` and `message_stop` have the same shape; only their tag tells them apart.
        assert type(decoder.parse('{"type": "message_stop"}')).__name__ == "MessageStop"
        assert type(decoder.parse('{"type": "ping"}')).__name__ == "Ping"
        unknown = decoder.parse('{"type": "content_block_stop", "index": 0}')
        assert isinstance(unknown, package.UnknownEvent) and "'content_block_stop'" in unknown.reason
        # A named event carrying another event's data is not taken for that other event.
        wrong = decoder.parse('{"type": "message_stop"}', event="ping")
        assert isinstance(wrong, package.UnknownEvent)
        # A named event the spec does not list is told apart by its data, as frames without `event:`.
        assert type(decoder.parse('{"type": "ping"}', event="keepalive")).__name__ == "Ping"


#: ``MESSAGES`` ended as Cohere v2 ends its streams (specs/cohere/chat-stream.yaml): a literal
#: ``[DONE]`` terminator without ``x-sse-event`` (so on the ``message`` event) beside the named events.
WITH_DONE = MESSAGES.replace(
    "          - $ref: '#/components/messages/error'\n",
    "          - $ref: '#/components/messages/error'\n          - $ref: '#/components/messages/done'\n",
).replace("  schemas:\n", "    done:\n      payload: {type: string, enum: ['[DONE]']}\n  schemas:\n", 1)


def test_a_data_only_terminator_beside_named_events_keeps_the_tag_dispatch(tmp_path: Path) -> None:
    """The literal does not make ``message`` an event type of its own: the fallback serves it,
    the literal first, then the tag, as it serves frames without ``event:`` when no literal is
    declared (the terminator once took the fallback away: every JSON frame without ``event:``
    became an unknown event)."""
    channel, _ = _channel(tmp_path, WITH_DONE)
    assert {m.name: (m.event, m.kind) for m in channel.messages}["Done"] == ("message", "terminator")
    named = ["content_block_delta", "error", "message_start", "message_stop", "ping"]
    assert [d.event for d in channel.dispatch] == named  # no plan of its own for `message`
    assert channel.fallback is not None and channel.fallback.literals == ("Done",)
    assert channel.fallback.tag == "type"
    assert [t.value for t in channel.fallback.tagged] == [
        "message_start",
        "content_block_delta",
        "ping",
        "message_stop",
        "error",
    ]


@pytest.mark.parametrize("model", ["msgspec", "pydantic"])
@pytest.mark.parametrize("named", [True, False], ids=["named", "data-only"])
def test_a_data_only_terminator_ends_named_and_data_only_streams_typed(tmp_path: Path, model: str, named: bool) -> None:
    channel, _ = _channel(tmp_path, WITH_DONE)
    examples = [(m, e.data) for m in channel.messages if m.literal is None and m.kind != "error" for e in m.examples]
    body = "".join((f"event: {m.event}\n" if named else "") + f"data: {data}\n\n" for m, data in examples)
    with generated_package(tmp_path, {"asyncapi.yaml": WITH_DONE}, model=model) as (package, _):
        decoder = package.CHANNELS["/v1/messages"]
        for size in (5, 1 << 16):
            text = (body + "data: [DONE]\n\n").encode()
            events = list(decoder.decode([text[i : i + size] for i in range(0, len(text), size)]))
            assert [type(e).__name__ for e in events] == [*(m.name for m, _ in examples), "Done"], size
            assert decoder.accumulate(events).complete is True
        assert type(decoder.parse("[DONE]")).__name__ == "Done"
        assert type(decoder.parse('{"type": "ping"}')).__name__ == "Ping"


@pytest.mark.parametrize("model", ["msgspec", "pydantic"])
def test_a_nested_union_with_a_discriminator_mapping_is_a_tagged_union(tmp_path: Path, model: str) -> None:
    with generated_package(tmp_path, {"asyncapi.yaml": MESSAGES}, model=model) as (package, diagnostics):
        decoder = package.CHANNELS["/v1/messages"]
        text = decoder.parse('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}')
        assert type(text.delta).__name__ == "TextDelta" and text.delta.text == "Hi"
        assert text.delta.type == "text_delta"  # the mapping's value, though TextDelta declares no `type`
        arguments = decoder.parse(
            '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{"}}'
        )
        assert type(arguments.delta).__name__ == "InputJsonDelta" and arguments.delta.partial_json == "{"
        # A delta type the spec does not list costs that member only (issue 14): kept raw.
        other = decoder.parse('{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta"}}')
        assert type(other).__name__ == "ContentBlockDelta" and other.index == 1 and other.delta is None
        assert other.off_spec == {"/delta": {"type": "citations_delta"}}
        assert not [d for d in diagnostics if d.code == "union-untagged"]


def test_alternatives_without_a_tag_are_any_json_with_a_warning_naming_them(tmp_path: Path) -> None:
    text = MESSAGES.replace(
        "            discriminator:\n              propertyName: type\n              mapping:\n"
        "                text_delta: '#/components/schemas/TextDelta'\n"
        "                input_json_delta: '#/components/schemas/InputJsonDelta'\n",
        "",
    )
    with generated_package(tmp_path, {"asyncapi.yaml": text}) as (package, diagnostics):
        [warning] = [d for d in diagnostics if d.code == "union-untagged"]
        assert "TextDelta, InputJsonDelta" in warning.message and warning.line > 0
        event = package.CHANNELS["/v1/messages"].parse(
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}'
        )
        assert event.delta == {"type": "text_delta", "text": "Hi"}


#: A message whose payload is ``oneOf`` two objects fixing ``type`` with ``const``, each an
#: ``allOf`` of its own members and a shared base (asyncapi/spec ``websocket-gemini``).
MARKET = """\
asyncapi: 2.6.0
info: {title: Market, version: '1'}
channels:
  /market:
    subscribe:
      message:
        name: marketData
        payload:
          type: object
          oneOf:
            - $ref: '#/components/schemas/heartbeat'
            - $ref: '#/components/schemas/update'
        examples:
          - payload: {type: update, eventId: 1, events: [], socket_sequence: 2}
          - payload: {type: heartbeat, socket_sequence: 1}
components:
  schemas:
    heartbeat:
      allOf:
        - properties: {type: {type: string, const: heartbeat}}
          required: [type]
        - $ref: '#/components/schemas/default'
    update:
      allOf:
        - properties:
            type: {type: string, const: update}
            eventId: {type: integer}
            events: {type: array, items: {type: object}}
          required: [type, eventId, events]
        - $ref: '#/components/schemas/default'
    default:
      type: object
      required: [socket_sequence]
      properties:
        socket_sequence: {type: integer}
"""


def test_a_union_payload_is_one_message_per_alternative_each_keeping_its_examples(tmp_path: Path) -> None:
    channel, diagnostics = _channel(tmp_path, MARKET)
    assert [(m.name, m.variant_of, len(m.examples)) for m in channel.messages] == [
        ("Heartbeat", "MarketData", 1),
        ("Update", "MarketData", 1),
    ]
    assert any(d.startswith("message-union-split") and "told apart by 'type'" in d for d in diagnostics)
    # allOf: one object with every part's members, `required` from each part.
    update = channel.messages[1].payload
    assert [(p.name, p.required) for p in update.properties] == [
        ("type", True),
        ("eventId", True),
        ("events", True),
        ("socket_sequence", True),
    ]
    with generated_package(tmp_path, {"asyncapi.yaml": MARKET}) as (package, _):
        market = package.CHANNELS["/market"]
        for message in channel.messages:
            for example in message.examples:
                assert type(market.parse(example.data)).__name__ == message.name
        # Clearly an update (its tag, half its required members): decoded leniently (issue 14).
        update = market.parse('{"type": "update", "socket_sequence": 3}')
        assert type(update).__name__ == "Update" and update.off_spec == {"/eventId": None, "/events": None}
        assert isinstance(market.parse('{"type": "update"}'), package.UnknownEvent)


#: Slack RTM's shape (asyncapi/spec ``slack-rtm``): optional ``type`` fixed by a one-value
#: enum, two events sharing ``type: emoji_changed`` told apart by ``subtype``, and two
#: messages fixing the same ``type`` value (a wart of that document).
SLACK = """\
asyncapi: 2.6.0
info: {title: RTM, version: '1'}
channels:
  /:
    subscribe:
      message:
        oneOf:
          - name: hello
            payload: {type: object, properties: {type: {type: string, enum: [hello]}}}
          - name: emojiRemoved
            payload:
              type: object
              properties:
                type: {type: string, enum: [emoji_changed]}
                subtype: {type: string, enum: [remove]}
                names: {type: array, items: {type: string}}
          - name: emojiAdded
            payload:
              type: object
              properties:
                type: {type: string, enum: [emoji_changed]}
                subtype: {type: string, enum: [add]}
                name: {type: string}
          - name: botAdded
            payload: {type: object, properties: {type: {type: string, enum: [bot_added]}, bot: {type: object}}}
          - name: botChanged
            payload:
              type: object
              properties: {type: {type: string, enum: [bot_added]}, bot: {type: object}, x: {type: string}}
"""


def test_enum_tags_and_sub_tags_tell_messages_apart(tmp_path: Path) -> None:
    channel, diagnostics = _channel(tmp_path, SLACK)
    assert channel.fallback is not None
    emoji = next(t for t in channel.fallback.tagged if t.value == "emoji_changed")
    assert (emoji.subtag, emoji.messages) == ("subtype", ("EmojiRemoved", "EmojiAdded"))
    with generated_package(tmp_path, {"asyncapi.yaml": SLACK}) as (package, _):
        rtm = package.CHANNELS["/"]
        assert type(rtm.parse('{"type": "hello"}')).__name__ == "Hello"
        assert type(rtm.parse('{"type": "emoji_changed", "subtype": "add", "name": "x"}')).__name__ == "EmojiAdded"
        assert type(rtm.parse('{"type": "emoji_changed", "subtype": "remove"}')).__name__ == "EmojiRemoved"
        assert type(rtm.parse('{"type": "hello"}', event="hello")).__name__ == "Hello"


def test_messages_sharing_a_tag_value_are_reported_with_the_member_that_would_tell_them_apart(
    tmp_path: Path,
) -> None:
    _, diagnostics = _channel(tmp_path, SLACK)
    [warning] = [d for d in diagnostics if d.startswith("messages-indistinguishable")]
    assert "BotAdded and BotChanged" in warning and "'x' (declared by BotChanged only)" in warning


#: asyncapi/spec ``oneof``: two messages whose members are all optional.
LOOSE = """\
asyncapi: 2.6.0
info: {title: OneOf, version: '1'}
channels:
  test2:
    subscribe:
      message:
        oneOf:
          - payload: {$ref: '#/components/schemas/objectWithKey'}
          - payload: {$ref: '#/components/schemas/objectWithKey2'}
components:
  schemas:
    objectWithKey: {type: object, properties: {key: {type: string}}}
    objectWithKey2: {type: object, properties: {key2: {type: string}}}
"""


def test_messages_one_payload_could_match_are_reported(tmp_path: Path) -> None:
    _, diagnostics = _channel(tmp_path, LOOSE)
    [warning] = [d for d in diagnostics if d.startswith("messages-indistinguishable")]
    assert "Test2Message1 is tried first" in warning and "requiring 'key2' (declared by Test2Message2 only)" in warning


def test_mistral_usage_chunk_and_chunk_are_not_reported(tmp_path: Path) -> None:
    from conftest import SPECS

    result = load_provider(SPECS, "mistral")
    assert not [d for d in result.diagnostics if d.code == "messages-indistinguishable"]
    chat = result.provider.channel("/chat/completions") if result.provider else None
    assert chat is not None and chat.fallback is not None
    assert chat.fallback.shaped == ("ChatCompletionUsageChunk", "ChatCompletionChunk")
    assert json.loads(json.dumps(chat.fallback.literals)) == ["StreamDone"]


def test_ssegen_ir_plan_prints_the_plan_in_decode_order(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ssegen.cli import main

    _channel(tmp_path, SLACK)
    result = CliRunner().invoke(main, ["ir", "--plan", "--specs", str(tmp_path / "ir"), "demo"])
    assert result.exit_code == 0, result.output
    plan = result.stdout
    assert plan.startswith("/\n  any event type:\n    tag type = 'hello' -> Hello\n")
    assert "    tag type = 'emoji_changed', by subtype -> EmojiRemoved, EmojiAdded\n" in plan

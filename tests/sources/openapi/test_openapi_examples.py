"""OpenAPI examples written at the media type and at the member level (issue 34 item 8, the rest).

Schema-level ``example``/``examples`` are read (tests/sources/openapi/test_openapi_loader.py).
Here: a media type's ``example`` and ``examples.<name>.value`` (an NDJSON value or lines, an SSE
stream's text) go to the messages they are instances of; a payload schema with no example of its
own gets one built from its members' ``example``s. Both reach the generated ``EXAMPLES`` (what the
conformance tests replay) and ``example_stream()`` (the mock's default stream) instead of
synthesized placeholders.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from helpers.packages import conformance_examples, generated_package

from ssegen.load import load_provider

NDJSON_SPEC = """\
openapi: 3.1.0
info: {title: Lines, version: '1'}
paths:
  /api/lines:
    post:
      operationId: lines
      x-ssegen-accumulate:
        Line:
          - {action: append, value: text, field: content}
          - {action: complete, value: done}
        Oops:
          - {action: error}
      responses:
        '200':
          description: a stream of lines
          content:
            application/x-ndjson:
              schema:
                oneOf:
                  - $ref: '#/components/schemas/Line'
                  - $ref: '#/components/schemas/Oops'
              example: {"text": "Hel", "created_at": "2025-06-02T17:04:11Z"}
              examples:
                whole:
                  summary: a whole reply
                  value: |
                    {"text": "lo", "created_at": "2025-06-02T17:04:12Z"}
                    {"text": "!", "created_at": "2025-06-02T17:04:13Z", "done": true}
                failed:
                  value: {"error": "model runner has unexpectedly stopped"}
                stray:
                  value: {"nothing": "that fits"}
components:
  schemas:
    Line:
      type: object
      required: [text, created_at]
      properties:
        text: {type: string}
        created_at: {type: string, format: date-time}
        done: {type: boolean}
    Oops:
      type: object
      required: [error]
      properties:
        error: {type: string}
"""

SSE_SPEC = """\
openapi: 3.1.0
info: {title: Events, version: '1'}
paths:
  /v1/stream:
    post:
      operationId: stream
      responses:
        '200':
          description: events
          content:
            text/event-stream:
              schema:
                oneOf:
                  - $ref: '#/components/schemas/Delta'
                  - $ref: '#/components/schemas/Done'
              example: |
                event: delta
                data: {"type": "delta", "text": "Hi"}

                event: done
                data: {"type": "done", "reason": "stop"}

                data: [DONE]
components:
  schemas:
    Delta:
      type: object
      required: [type, text]
      properties:
        type: {const: delta}
        text: {type: string}
    Done:
      type: object
      required: [type, reason]
      properties:
        type: {const: done}
        reason: {type: string}
"""

PROPERTY_SPEC = """\
openapi: 3.1.0
info: {title: Members, version: '1'}
paths:
  /api/ticks:
    post:
      operationId: ticks
      responses:
        '200':
          description: ticks
          content:
            application/x-ndjson:
              schema: {$ref: '#/components/schemas/Tick'}
components:
  schemas:
    Tick:
      type: object
      required: [at, price, venue]
      properties:
        at: {type: string, format: date-time, example: '2025-06-02T17:04:11Z'}
        price: {type: number, examples: [101.25]}
        venue: {$ref: '#/components/schemas/Venue'}
        note: {type: string}
    Venue:
      type: object
      required: [code]
      properties:
        code: {type: string, example: XNYS}
        city: {type: string, example: New York}
"""


def _load(tmp_path: Path, text: str) -> tuple[object, list[tuple[str, str]]]:
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "openapi.yaml").write_text(text)
    result = load_provider(specs, "demo")
    assert result.provider is not None
    infos = [(d.code, d.pointer) for d in result.diagnostics if d.code == "example-unmatched"]
    return result.provider.channels[0], infos


def test_ndjson_media_type_examples_go_to_the_messages_they_are_instances_of(tmp_path: Path) -> None:
    channel, unmatched = _load(tmp_path, NDJSON_SPEC)
    line, oops = channel.messages  # type: ignore[attr-defined]
    assert [(e.name, e.data) for e in line.examples] == [
        ("", '{"text":"Hel","created_at":"2025-06-02T17:04:11Z"}'),
        ("whole", '{"text":"lo","created_at":"2025-06-02T17:04:12Z"}'),
        ("whole", '{"text":"!","created_at":"2025-06-02T17:04:13Z","done":true}'),
    ]
    assert [e.provenance.pointer for e in line.examples] == [
        "/paths/~1api~1lines/post/responses/200/content/application~1x-ndjson/example",
        "/paths/~1api~1lines/post/responses/200/content/application~1x-ndjson/examples/whole/value",
        "/paths/~1api~1lines/post/responses/200/content/application~1x-ndjson/examples/whole/value",
    ]
    assert [e.data for e in oops.examples] == ['{"error":"model runner has unexpectedly stopped"}']
    assert unmatched == [
        (
            "example-unmatched",
            "/paths/~1api~1lines/post/responses/200/content/application~1x-ndjson/examples/stray/value",
        )
    ]


def test_sse_media_type_example_stream_gives_each_event_to_its_message(tmp_path: Path) -> None:
    channel, unmatched = _load(tmp_path, SSE_SPEC)
    by_name = {m.name: [e.data for e in m.examples] for m in channel.messages}  # type: ignore[attr-defined]
    assert by_name["Delta"] == ['{"type":"delta","text":"Hi"}']
    assert by_name["Done"] == ['{"type":"done","reason":"stop"}']
    assert unmatched == []


def test_a_payload_with_no_example_gets_one_built_from_its_members_examples(tmp_path: Path) -> None:
    channel, _ = _load(tmp_path, PROPERTY_SPEC)
    [tick] = channel.messages  # type: ignore[attr-defined]
    assert [(e.data, e.provenance.pointer) for e in tick.examples] == [
        (
            '{"at":"2025-06-02T17:04:11Z","price":101.25,"venue":{"code":"XNYS","city":"New York"}}',
            "/components/schemas/Tick/properties",
        )
    ]


def test_a_member_without_example_that_is_required_means_no_built_example(tmp_path: Path) -> None:
    channel, _ = _load(tmp_path, PROPERTY_SPEC.replace("code: {type: string, example: XNYS}", "code: {type: string}"))
    [tick] = channel.messages  # type: ignore[attr-defined]
    assert tick.examples == ()


def test_media_type_examples_reach_the_conformance_tests_and_the_default_stream(tmp_path: Path) -> None:
    with generated_package(tmp_path, {"openapi.yaml": NDJSON_SPEC}) as (package, _):
        tests = importlib.import_module(package.__name__ + ".test_conformance")
        rows = conformance_examples(tests)
        own = [(row[2], row[3]) for row in tests.EXAMPLES]
        assert ("Line", '{"text":"Hel","created_at":"2025-06-02T17:04:11Z"}') in own
        assert not [row for row in rows if row[2] == "Line" and row[5].endswith("synthesized")]
        channel = package.CHANNELS["/api/lines"]
        events = channel.example_stream()
        assert [e.text for e in events] == ["Hel", "lo", "!"]
        result = channel.accumulate(events)
        assert result.errors == [] and result.complete and result.texts == {"content": "Hello!"}

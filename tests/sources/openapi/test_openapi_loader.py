"""The OpenAPI loader on small documents written for these tests (``data/``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ssegen.config import OutputSettings
from ssegen.ir import Provider
from ssegen.load import LoadResult, load_provider
from ssegen.pipeline import build
from ssegen.sources import detect

DATA = Path(__file__).parent / "data"


def _specs(tmp_path: Path, *folders: str) -> Path:
    """A specs folder with one provider ``demo`` holding the files of ``data/<folder>``."""
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    for folder in folders:
        for path in (DATA / folder).iterdir():
            shutil.copy(path, specs / "demo" / path.name)
    return specs


def _load(tmp_path: Path, folder: str) -> tuple[LoadResult, Provider]:
    result = load_provider(_specs(tmp_path, folder), "demo")
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    assert not result.diagnostics.has_errors, [d.format() for d in result.diagnostics]
    return result, result.provider


def _places(result: LoadResult, code: str) -> list[tuple[str, int, str]]:
    return [(d.file, d.line, d.pointer) for d in result.diagnostics if d.code == code]


def test_detected_by_the_openapi_key_in_yaml_and_json() -> None:
    text = (DATA / "chat31" / "openapi.yaml").read_text(encoding="utf-8")
    found = detect(text)
    assert found is not None and found.format == "openapi"
    as_json = detect('{\n  "openapi": "3.1.0",\n  "info": {"title": "x"}\n}')
    assert as_json is not None and as_json.format == "openapi"
    assert detect('Some page quoting `"openapi": "3.1.0"` in its prose.') is None
    page = "# Streaming\n\nOur spec:\n\n```yaml\nopenapi: 3.1.0\ninfo: {title: x}\n```\n"
    assert (found := detect(page)) is None or found.format != "openapi"
    asyncapi = detect((DATA / "events26" / "asyncapi.yaml").read_text(encoding="utf-8"))
    assert asyncapi is not None and asyncapi.format == "asyncapi"


def test_streaming_operation_becomes_a_channel_and_others_are_skipped(tmp_path: Path) -> None:
    result, provider = _load(tmp_path, "chat31")
    assert [c.address for c in provider.channels] == ["/chat/completions"]
    channel = provider.channels[0]
    assert channel.operation_id == "createChatCompletion"
    assert [(m.name, m.kind) for m in channel.messages] == [
        ("ChatCompletionChunk", "data"),
        ("StreamDone", "terminator"),
    ]
    assert provider.title == "Chat API" and provider.servers[0].url == "https://api.example.com/v1"
    ((message,),) = [[d.message for d in result.diagnostics if d.code == "openapi-streams-found"]]
    assert message.startswith("1 of 2 operations stream")
    # The request body is read (a bare object: no `stream` member to find); the skipped
    # `/models` operation says nothing.
    request = channel.request
    assert request is not None and request.method == "POST" and request.servers == ("https://api.example.com/v1",)
    assert request.body is not None and request.body.schema is not None and request.body.schema.type == "object"
    assert request.stream is None and request.media_types == ("text/event-stream",)
    assert not [d for d in result.diagnostics if "/models" in d.pointer.replace("~1", "/")]


def test_schema_is_the_data_payload_with_every_nullable_spelling_normalized(tmp_path: Path) -> None:
    result, provider = _load(tmp_path, "chat31")
    chunk = provider.channels[0].messages[0].payload
    assert chunk.name == "ChatCompletionChunk" and chunk.provenance.line == 46
    choice = chunk.property("choices").schema.items  # type: ignore[union-attr]
    assert choice is not None
    finish = choice.property("finish_reason").schema  # type: ignore[union-attr]
    assert finish.nullable and finish.enum == ("stop", "length")
    delta = choice.property("delta").schema  # type: ignore[union-attr]
    assert delta.name == "ChatCompletionDelta"
    assert all(p.schema.nullable for p in delta.properties)  # `nullable: true` and an `anyOf` null branch
    usage = chunk.property("usage").schema  # type: ignore[union-attr]
    assert usage.type == "object" and usage.nullable  # allOf [$ref] + nullable (3.0 spelling)
    assert [p.name for p in usage.properties if p.required] == ["prompt_tokens", "completion_tokens"]
    file = "demo/openapi.yaml"
    assert (
        file,
        67,
        "/components/schemas/ChatCompletionChunk/properties/choices/items/properties/finish_reason/type",
    ) in (_places(result, "type-list-null"))
    assert (file, 79, "/components/schemas/ChatCompletionDelta/properties/role/nullable") in _places(
        result, "nullable-keyword"
    )
    assert _places(result, "oneof-null-branch") == [
        (file, 83, "/components/schemas/ChatCompletionDelta/properties/content/anyOf/1")
    ]


def test_done_stated_in_the_description_is_the_terminator(tmp_path: Path) -> None:
    result, provider = _load(tmp_path, "chat31")
    done = provider.channels[0].message("StreamDone")
    assert done is not None and done.payload.enum == ("[DONE]",)
    assert _places(result, "openapi-terminator-described") == [
        ("demo/openapi.yaml", 36, "/paths/~1chat~1completions/post/responses/200/content/text~1event-stream")
    ]


def test_done_stated_by_the_request_stream_member_is_the_terminator(tmp_path: Path) -> None:
    """OpenAI's document says it only on the request: `stream` is "terminated by a `data: [DONE]`
    message" (CreateChatCompletionRequest, inside an allOf part, the text wrapped over lines)."""
    specs = _specs(tmp_path, "chat31")
    document = specs / "demo" / "openapi.yaml"
    text = document.read_text(encoding="utf-8")
    text = text.replace("ended by `data: [DONE]`.", "streamed.").replace(
        """      requestBody:
        content:
          application/json:
            schema:
              type: object
""",
        """      requestBody:
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/ChatRequest'
""",
    )
    text = text.replace(
        """components:
  responses:""",
        """components:
  requestBodies: {}
  responses:""",
    ).replace(
        """  schemas:
    ChatCompletionChunk:""",
        """  schemas:
    ChatRequest:
      allOf:
        - type: object
          properties:
            model: {type: string}
        - type: object
          properties:
            stream:
              type: boolean
              description: >-
                If set, tokens are sent as data-only server-sent events, the stream terminated by a `data:
                [DONE]` message.
    ChatCompletionChunk:""",
    )
    document.write_text(text, encoding="utf-8")
    result = load_provider(specs, "demo")
    assert result.provider is not None
    done = result.provider.channels[0].message("StreamDone")
    assert done is not None and done.payload.enum == ("[DONE]",)
    [(file, _, pointer)] = _places(result, "openapi-terminator-described")
    assert (file, pointer) == (
        "demo/openapi.yaml",
        "/components/schemas/ChatRequest/allOf/1/properties/stream/description",
    )


def test_item_schema_events_with_json_content_event_names_and_done(tmp_path: Path) -> None:
    result, provider = _load(tmp_path, "events32")
    channel = provider.channels[0]
    assert [(m.name, m.kind, m.event, m.payload.name) for m in channel.messages] == [
        ("ChunkEvent", "data", "message", "Chunk"),
        ("ErrorEvent", "error", "error", "Error"),
        ("DoneEvent", "terminator", "message", "DoneEvent"),
    ]
    assert _places(result, "literal-payload") == [
        ("demo/openapi.yaml", 51, "/components/schemas/DoneEvent/properties/data")
    ]


def _generated(specs: Path) -> dict[str, str]:
    (report,) = build(specs, ["demo"], OutputSettings())
    assert not report.failed, [d.format() for d in report.diagnostics]
    return report.files


def test_openapi_32_and_asyncapi_26_generate_the_same_package(tmp_path: Path) -> None:
    """The same API as an OpenAPI 3.2 ``itemSchema`` and as AsyncAPI 2.6 gives the same bytes,
    but for what AsyncAPI cannot say: the ``event: error`` SSE event type of ``ErrorEvent``.

    AsyncAPI 2.6 has no place for an SSE event name (its HTTP binding has none), so the
    AsyncAPI twin's ``ErrorEvent`` is a plain ``message`` event; with the ``event`` member
    removed from the OpenAPI document, the two packages are identical.
    """
    openapi = _generated(_specs(tmp_path / "a", "events32"))
    asyncapi = _generated(_specs(tmp_path / "b", "events26"))
    assert _generated(_specs(tmp_path / "d", "events32")) == openapi  # deterministic, wherever the specs are
    assert openapi["demo/models.py"] == asyncapi["demo/models.py"]
    assert openapi["demo/channels.py"] != asyncapi["demo/channels.py"]
    assert 'if event == "error":' in openapi["demo/channels.py"]
    assert "    Error: each(on_error)," in openapi["demo/channels.py"]

    specs = _specs(tmp_path / "c", "events32")
    document = specs / "demo" / "openapi.yaml"
    text = document.read_text(encoding="utf-8")
    without_event = text.replace("      required: [event, data]\n", "      required: [data]\n").replace(
        "        event:\n          const: error\n", ""
    )
    assert without_event != text
    document.write_text(without_event, encoding="utf-8")
    plain = _generated(specs)
    # The client's typed method is named by the operation sending the request: OpenAPI's
    # operationId (stream_chat); the AsyncAPI 2.6 twin states no publish, so its method is named
    # by the address (chat_completions). Everything else is the same.
    named_by_address = (
        asyncapi["demo/client.py"]
        .replace("def chat_completions(", "def stream_chat(")
        .replace("Client.chat_completions`", "Client.stream_chat`")  # AsyncClient's docstring
    )
    assert plain["demo/client.py"] == named_by_address != asyncapi["demo/client.py"]
    assert {k: v for k, v in plain.items() if "manifest" not in k and k != "demo/client.py"} == {
        k: v for k, v in asyncapi.items() if "manifest" not in k and k != "demo/client.py"
    }


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (("openapi: 3.1.0", "openapi: 3.1"), "openapi-version-invalid"),
        (("openapi: 3.1.0", "openapi: '3.1.0'\npaths: 7"), "duplicate-key"),
    ],
)
def test_bad_documents_are_diagnostics_not_crashes(tmp_path: Path, change: tuple[str, str], code: str) -> None:
    specs = _specs(tmp_path, "chat31")
    document = specs / "demo" / "openapi.yaml"
    document.write_text(document.read_text(encoding="utf-8").replace(*change, 1), encoding="utf-8")
    result = load_provider(specs, "demo")
    assert code in {d.code for d in result.diagnostics}


def test_mistral_style_event_schema_is_read_as_an_item_schema(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "openapi.yaml").write_text(
        """openapi: 3.1.0
info: {title: M, version: '1'}
paths:
  /v1/conversations#stream:
    post:
      responses:
        '200':
          description: OK
          content:
            text/event-stream:
              schema:
                $ref: '#/components/schemas/CompletionEvent'
components:
  schemas:
    CompletionEvent:
      type: object
      required: [data]
      properties:
        data:
          $ref: '#/components/schemas/CompletionChunk'
    CompletionChunk:
      type: object
      required: [id]
      properties:
        id: {type: string}
""",
        encoding="utf-8",
    )
    result = load_provider(specs, "demo")
    assert result.provider is not None
    (channel,) = result.provider.channels
    assert channel.address == "/v1/conversations"  # the `#stream` suffix is no part of the HTTP path
    assert [(m.name, m.payload.name) for m in channel.messages] == [("CompletionEvent", "CompletionChunk")]
    assert [d.pointer for d in result.diagnostics if d.code == "openapi-event-schema"] == [
        "/components/schemas/CompletionEvent"
    ]


_HEAD = "openapi: 3.2.0\ninfo: {title: H, version: '1'}\n"
_STREAM = """paths:
  /s:
    post:
      responses:
        '200':
          description: OK
          content:
            text/event-stream:
"""


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (
            _STREAM + "              itemSchema: {$ref: '#/components/schemas/E'}\n"
            "components:\n  schemas:\n    E:\n      oneOf: [{$ref: '#/components/schemas/E'}]\n",
            "ref-circular",
        ),
        (
            _STREAM + "              itemSchema:\n                type: object\n                properties:\n"
            "                  data: {contentMediaType: application/json, contentSchema: "
            "{$ref: '#/paths/~1s/post/responses/200/content/text~1event-stream/itemSchema/properties/data'}}\n",
            "ref-circular",
        ),
        ("paths: 7\n", "openapi-streams-found"),
        ("paths:\n  /s:\n    post:\n      responses: [1, 2]\n", "openapi-streams-found"),
        ("paths:\n  /s:\n    post:\n      responses:\n        '200': {content: text}\n", "openapi-streams-found"),
        ("paths:\n  /s: {$ref: '#'}\n", "openapi-streams-found"),
        (_STREAM + "              schema: {$ref: 'https://example.com/x.yaml'}\n", "ref-remote"),
        (_STREAM + "              schema: {$ref: '../../etc/passwd'}\n", "ref-escape"),
    ],
    ids=[
        "item-self-oneof",
        "content-schema-self",
        "paths-not-mapping",
        "responses-list",
        "content-text",
        "path-item-root-ref",
        "remote-ref",
        "escaping-ref",
    ],
)
def test_hostile_snippets_are_diagnostics_not_crashes(tmp_path: Path, body: str, code: str) -> None:
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "openapi.yaml").write_text(_HEAD + body, encoding="utf-8")
    result = load_provider(specs, "demo")
    assert code in {d.code for d in result.diagnostics}, [d.format() for d in result.diagnostics]


def test_all_of_parts_may_require_members_other_parts_declare(tmp_path: Path) -> None:
    """OpenAI's ``Response`` (``openai/openapi.yaml``): ``allOf`` parts whose ``required`` names
    members of a sibling part; the merged object requires them, with no ``required-unknown``."""
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "openapi.yaml").write_text(
        _HEAD
        + _STREAM
        + "              schema: {$ref: '#/components/schemas/R'}\n"
        + "components:\n  schemas:\n    Base:\n      type: object\n      properties:\n"
        + "        model: {type: string}\n        id: {type: string}\n"
        + "    R:\n      allOf:\n        - $ref: '#/components/schemas/Base'\n"
        + "        - type: object\n          required: [model, created]\n"
        + "          properties:\n            created: {type: integer}\n",
        encoding="utf-8",
    )
    result = load_provider(specs, "demo")
    assert result.provider is not None
    (message,) = result.provider.channels[0].messages
    assert message.name == "R"
    assert [(p.name, p.required) for p in message.payload.properties] == [
        ("model", True),
        ("id", False),
        ("created", True),
    ]
    assert "required-unknown" not in {d.code for d in result.diagnostics}


def test_event_enum_is_paired_with_the_data_branch_its_tag_names(tmp_path: Path) -> None:
    """Mistral's ``SpeechStreamEvents`` (``mistral/openapi.yaml``): ``event`` lists every event type,
    ``data`` is a ``oneOf`` whose branches carry the same value in ``type``; each branch is sent
    with its own event type, not with every one."""
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "openapi.yaml").write_text(
        _HEAD
        + _STREAM
        + """              itemSchema:
                type: object
                required: [event, data]
                properties:
                  event: {type: string, enum: [audio.delta, audio.done, audio.ping]}
                  data:
                    oneOf:
                      - $ref: '#/components/schemas/AudioDelta'
                      - $ref: '#/components/schemas/AudioDone'
components:
  schemas:
    AudioDelta:
      type: object
      required: [type, audio]
      properties:
        type: {type: string, const: audio.delta}
        audio: {type: string}
    AudioDone:
      type: object
      required: [type]
      properties:
        type: {type: string, const: audio.done}
""",
        encoding="utf-8",
    )
    result = load_provider(specs, "demo")
    assert result.provider is not None
    assert [(m.name, m.event) for m in result.provider.channels[0].messages] == [
        ("AudioDelta", "audio.delta"),
        ("AudioDone", "audio.done"),
    ]


EXAMPLES_SPEC = """\
openapi: 3.1.0
info: {title: Lines, version: '1'}
paths:
  /api/lines:
    post:
      responses:
        '200':
          description: a stream of lines
          content:
            application/x-ndjson:
              schema:
                oneOf:
                  - $ref: '#/components/schemas/Line'
                  - $ref: '#/components/schemas/Oops'
components:
  schemas:
    Line:
      type: object
      required: [text]
      properties:
        text: {type: string}
        at: {type: string, format: date-time}
      example: {text: first}
      examples:
        - {text: second, at: '2025-06-02T17:04:11Z'}
        - {text: third}
    Oops:
      type: object
      required: [error]
      properties:
        error: {type: string}
      examples: not a list
"""


def test_schema_examples_become_the_messages_examples(tmp_path: Path) -> None:
    """OpenAPI 3.0's ``example`` and JSON Schema's ``examples`` on a payload schema are the
    message's examples, with their places (issue 34 item 8); a non-list ``examples`` is
    ``example-invalid`` at its pointer, and the message keeps none."""
    specs = tmp_path / "specs"
    (specs / "demo").mkdir(parents=True)
    (specs / "demo" / "openapi.yaml").write_text(EXAMPLES_SPEC)
    result = load_provider(specs, "demo")
    assert result.provider is not None
    (channel,) = result.provider.channels
    line, oops = channel.messages
    assert [e.data for e in line.examples] == [
        '{"text":"first"}',
        '{"text":"second","at":"2025-06-02T17:04:11Z"}',
        '{"text":"third"}',
    ]
    assert [(e.provenance.line, e.provenance.pointer) for e in line.examples] == [
        (23, "/components/schemas/Line/example"),
        (25, "/components/schemas/Line/examples/0"),
        (26, "/components/schemas/Line/examples/1"),
    ]
    assert oops.examples == ()
    assert _places(result, "example-invalid") == [("demo/openapi.yaml", 32, "/components/schemas/Oops/examples")]

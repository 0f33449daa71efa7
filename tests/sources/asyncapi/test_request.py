"""The request of an AsyncAPI channel's stream (``sources/asyncapi/request.py``), on small
documents written here: 2.x ``publish``, 3.0 ``receive`` (with a ``reply``, or beside a
``send``), HTTP bindings, headers, parameters, security and the prose naming ``stream``."""

from __future__ import annotations

from pathlib import Path

from ssegen.ir import Request
from ssegen.load import LoadResult, load_provider

CHUNK = "{type: object, required: [text], properties: {text: {type: string}}}"
BODY = "{type: object, required: [model], properties: {model: {type: string}, stream: {type: boolean}}}"


def _load(tmp_path: Path, doc: str) -> LoadResult:
    folder = tmp_path / "specs" / "p"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(doc, encoding="utf-8")
    return load_provider(tmp_path / "specs", "p")


def _request(result: LoadResult) -> Request:
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    (channel,) = result.provider.channels
    assert channel.request is not None
    return channel.request


def _codes(result: LoadResult, code: str) -> list[str]:
    return [d.pointer for d in result.diagnostics if d.code == code]


V2 = f"""asyncapi: 2.6.0
info: {{title: T, version: '1'}}
servers:
  main:
    url: https://api.example.com
    protocol: https
    security: [{{apiKey: []}}]
  other:
    url: https://other.example.com
    protocol: https
channels:
  /v1/chat/{{model}}:
    description: 'Streamed when the request sets `"stream": true`.'
    parameters:
      model:
        description: The model.
        schema: {{type: string, enum: [small]}}
    servers: [main]
    publish:
      operationId: createChat
      bindings:
        http:
          method: post
          query: {{type: object, required: [alt], properties: {{alt: {{type: string, const: sse}}}}}}
      message:
        name: ChatRequest
        contentType: application/json
        headers:
          type: object
          required: [api-version]
          properties:
            api-version: {{type: string, default: '2024-01-01', description: The version.}}
        payload: {BODY}
        examples:
          - payload: {{model: m, stream: true}}
    subscribe:
      operationId: streamChat
      message: {{name: Chunk, payload: {CHUNK}}}
components:
  securitySchemes:
    apiKey: {{type: httpApiKey, name: x-api-key, in: header, description: The key.}}
"""


def test_2x_publish_message_is_the_request_with_its_bindings_headers_and_security(tmp_path: Path) -> None:
    result = _load(tmp_path, V2)
    request = _request(result)
    assert (request.method, request.path) == ("POST", "/v1/chat/{model}")
    assert request.provenance.pointer == "/channels/~1v1~1chat~1{model}/publish"
    assert request.servers == ("https://api.example.com",)
    body = request.body
    assert body is not None and body.schema is not None and body.schema.property("model") is not None
    assert body.media_type == "application/json" and body.examples == ('{"model":"m","stream":true}',)
    params = {(p.location, p.name): p for p in request.parameters}
    assert params[("path", "model")].schema.enum == ("small",) and params[("path", "model")].required
    assert params[("path", "model")].description == "The model."
    alt = params[("query", "alt")]
    assert (alt.default, alt.fixed, alt.required) == ("sse", True, True)
    version = params[("header", "api-version")]
    assert (version.default, version.fixed, version.required, version.description) == (
        "2024-01-01",
        False,
        True,
        "The version.",
    )
    assert version.provenance.pointer.endswith("/message/headers/properties/api-version")
    (auth,) = request.auth
    assert (auth.type, auth.location, auth.parameter, auth.provenance.pointer) == (
        "httpApiKey",
        "header",
        "x-api-key",
        "/components/securitySchemes/apiKey",
    )
    # The schema names the stream member: it wins over the channel's prose.
    assert request.stream is not None and request.stream.stated == "schema"
    assert not _codes(result, "operation-request-skipped")


def test_2x_without_publish_takes_method_and_stream_from_the_channel(tmp_path: Path) -> None:
    doc = f"""asyncapi: 2.6.0
info: {{title: T, version: '1'}}
channels:
  /chat:
    description: |
      Produced by POST /chat when `stream` is `true`; with
      `stream_options.include_usage` set, the last chunk has usage.
    bindings: {{http: {{type: response, method: POST}}}}
    subscribe:
      message: {{name: Chunk, payload: {CHUNK}}}
"""
    result = _load(tmp_path, doc)
    request = _request(result)
    assert request.method == "POST" and request.body is None and request.servers == ()
    assert request.stream is not None and request.stream.stated == "prose"
    assert request.stream.provenance.pointer == "/channels/~1chat/description"
    assert request.include_usage is not None and request.include_usage.stated == "prose"
    assert _codes(result, "request-schema-missing") == ["/channels/~1chat"]
    assert _codes(result, "request-auth-missing") == ["/channels/~1chat"]


def test_no_method_anywhere_is_post_assumed_and_a_bad_method_is_reported(tmp_path: Path) -> None:
    doc = f"""asyncapi: 2.6.0
info: {{title: T, version: '1'}}
channels:
  /chat:
    bindings: {{http: {{method: FETCH}}}}
    subscribe:
      message: {{name: Chunk, payload: {CHUNK}}}
"""
    result = _load(tmp_path, doc)
    assert _request(result).method == "POST"
    assert _codes(result, "request-method-invalid") == ["/channels/~1chat/bindings/http/method"]
    assert _codes(result, "request-method-assumed") == ["/channels/~1chat"]


V3_REPLY = f"""asyncapi: 3.0.0
info: {{title: T, version: '1'}}
servers:
  main:
    host: api.example.com
    protocol: https
    security: [{{$ref: '#/components/securitySchemes/bearer'}}]
channels:
  chat:
    address: /chat
    messages:
      Request: {{payload: {BODY}}}
      Other: {{payload: {BODY}}}
      Chunk: {{payload: {CHUNK}}}
operations:
  createChat:
    action: receive
    channel: {{$ref: '#/channels/chat'}}
    messages:
      - $ref: '#/channels/chat/messages/Request'
      - $ref: '#/channels/chat/messages/Other'
    bindings: {{http: {{method: POST}}}}
    reply:
      messages: [{{$ref: '#/channels/chat/messages/Chunk'}}]
components:
  securitySchemes:
    bearer: {{type: http, scheme: bearer}}
"""


def test_3_0_receive_with_reply_asks_for_the_reply_and_its_first_message_is_the_body(tmp_path: Path) -> None:
    result = _load(tmp_path, V3_REPLY)
    request = _request(result)
    assert request.provenance.pointer == "/operations/createChat" and request.method == "POST"
    assert request.body is not None and request.body.schema is not None
    assert request.body.provenance.pointer == "/channels/chat/messages/Request"
    assert _codes(result, "request-message-ambiguous") == ["/operations/createChat/messages"]
    assert [(a.name, a.scheme) for a in request.auth] == [("bearer", "bearer")]
    assert request.servers == ("https://api.example.com",)


V3_SEND = f"""asyncapi: 3.0.0
info: {{title: T, version: '1'}}
channels:
  gen:
    address: /models/{{model}}:stream
    parameters:
      model: {{description: The model id., enum: [a, b], default: a}}
    messages:
      Chunk: {{payload: {CHUNK}}}
      Ask: {{payload: {BODY}}}
operations:
  stream:
    action: send
    channel: {{$ref: '#/channels/gen'}}
  ask:
    action: receive
    channel: {{$ref: '#/channels/gen'}}
    messages: [{{$ref: '#/channels/gen/messages/Ask'}}]
    security:
      - $ref: '#/components/securitySchemes/header'
      - $ref: '#/components/securitySchemes/query'
      - $ref: '#/components/securitySchemes/tls'
components:
  securitySchemes:
    header: {{type: httpApiKey, name: x-goog-api-key, in: header}}
    query: {{type: httpApiKey, name: key, in: query}}
    tls: {{type: X509}}
"""


def test_3_0_receive_beside_a_send_is_the_request_and_no_message_of_the_stream(tmp_path: Path) -> None:
    result = _load(tmp_path, V3_SEND)
    assert result.provider is not None
    (channel,) = result.provider.channels
    # The send lists no messages: every message of the channel but the request.
    assert [m.name for m in channel.messages] == ["Chunk"]
    request = _request(result)
    assert request.provenance.pointer == "/operations/ask" and request.path == "/models/{model}:stream"
    (model,) = request.parameters_in("path")
    assert (model.schema.enum, model.default, model.fixed, model.description) == (
        ("a", "b"),
        "a",
        False,
        "The model id.",
    )
    assert [(a.location, a.parameter) for a in request.auth] == [("header", "x-goog-api-key"), ("query", "key")]
    assert _codes(result, "auth-scheme-unsupported") == ["/components/securitySchemes/tls"]
    assert _codes(result, "request-method-assumed") == ["/operations/ask"]


def test_3_0_receive_on_a_channel_nothing_streams_on_is_skipped(tmp_path: Path) -> None:
    doc = V3_SEND.replace(
        "operations:\n",
        "  other:\n    address: /other\n    messages: {Ping: {payload: {type: object}}}\noperations:\n"
        "  lonely:\n    action: receive\n    channel: {$ref: '#/channels/other'}\n",
    )
    result = _load(tmp_path, doc)
    assert result.provider is not None and [c.address for c in result.provider.channels] == ["/models/{model}:stream"]
    assert _codes(result, "operation-request-skipped") == ["/operations/lonely/action"]


def test_x_ssegen_resume_on_the_channel(tmp_path: Path) -> None:
    doc = V3_SEND.replace(
        "    address: /models/{model}:stream\n",
        "    address: /models/{model}:stream\n    x-ssegen-resume: last-event-id\n",
    )
    resume = _request(_load(tmp_path, doc)).resume
    assert resume is not None and (resume.kind, resume.stated) == ("last-event-id", "extension")
    assert resume.provenance.pointer == "/channels/gen/x-ssegen-resume"

"""The request of a streaming OpenAPI operation (``sources/openapi/request.py``), on small
documents written here: body, parameters, security, servers, stream member and resumption."""

from __future__ import annotations

from pathlib import Path

from ssegen.codemodel import build_package_spec
from ssegen.diagnostics import Diagnostics
from ssegen.ir import Request
from ssegen.load import LoadResult, load_provider

STREAM = """      responses:
        '200':
          description: chunks
          content:
            text/event-stream:
              schema: {$ref: '#/components/schemas/Chunk'}
"""

COMPONENTS = """components:
  schemas:
    Chunk:
      type: object
      required: [text]
      properties: {text: {type: string}}
    ChatRequest:
      type: object
      required: [model, messages]
      properties:
        model: {type: string}
        messages: {type: array, items: {type: object, properties: {role: {type: string}}}}
        stream: {type: boolean}
        stream_options:
          type: [object, 'null']
          properties: {include_usage: {type: boolean}}
        background: {type: boolean}
"""


def _load(tmp_path: Path, text: str) -> LoadResult:
    folder = tmp_path / "specs" / "demo"
    folder.mkdir(parents=True)
    (folder / "openapi.yaml").write_text(text, encoding="utf-8")
    return load_provider(tmp_path / "specs", "demo")


def _request(result: LoadResult, address: str = "/chat") -> Request:
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    channel = result.provider.channel(address)
    assert channel is not None and channel.request is not None
    return channel.request


def _codes(result: LoadResult, code: str) -> list[str]:
    return [d.pointer for d in result.diagnostics if d.code == code]


def _doc(operation: str, *, root: str = "", path_item: str = "", components: str = COMPONENTS) -> str:
    return (
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\nservers: [{url: 'https://api.example.com/v1'}]\n"
        + root
        + "paths:\n  /chat:\n"
        + path_item
        + "    post:\n      operationId: createChat\n"
        + operation
        + STREAM
        + components
    )


BODY = """      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/ChatRequest'}
            example: {model: m, messages: [], stream: true}
"""


def test_body_schema_is_resolved_like_payloads_with_its_members_and_provenance(tmp_path: Path) -> None:
    result = _load(tmp_path, _doc(BODY))
    request = _request(result)
    assert (request.method, request.path, request.servers) == ("POST", "/chat", ("https://api.example.com/v1",))
    body = request.body
    assert body is not None and body.required and body.media_type == "application/json"
    assert body.schema is not None and body.schema.name == "ChatRequest"
    assert body.schema.provenance.pointer == "/components/schemas/ChatRequest"
    assert body.schema.provenance.line > 0
    assert body.examples == ('{"model":"m","messages":[],"stream":true}',)
    # The normalize step found the stream member and include_usage in the schema (a nullable object).
    assert request.stream is not None and request.stream.path == ("stream",) and request.stream.stated == "schema"
    assert request.stream.provenance.pointer == "/components/schemas/ChatRequest/properties/stream"
    assert request.include_usage is not None and request.include_usage.path == ("stream_options", "include_usage")
    assert request.media_types == ("text/event-stream",)
    assert not _codes(result, "request-schema-missing") and not _codes(result, "request-stream-member-missing")


def test_parameters_join_path_item_and_operation_the_operation_winning(tmp_path: Path) -> None:
    path_item = """    parameters:
      - {name: version, in: header, required: true, schema: {type: string, default: '2023-06-01'}}
      - {name: alt, in: query, schema: {type: string}}
"""
    operation = """      parameters:
        - {name: alt, in: query, required: true, schema: {type: string, const: sse}}
        - {$ref: '#/components/parameters/Model'}
        - {name: broken}
"""
    components = COMPONENTS + "  parameters:\n    Model: {name: model, in: path, schema: {type: string}}\n"
    doc = _doc(operation, path_item=path_item, components=components).replace("  /chat:\n", "  /chat/{model}:\n")
    result = _load(tmp_path, doc)
    request = _request(result, "/chat/{model}")
    found = {(p.location, p.name): p for p in request.parameters}
    assert set(found) == {("query", "alt"), ("path", "model"), ("header", "version")}
    alt = found[("query", "alt")]
    assert (alt.required, alt.default, alt.fixed) == (True, "sse", True)
    assert alt.provenance.pointer == "/paths/~1chat~1{model}/post/parameters/0"
    assert found[("path", "model")].required and found[("path", "model")].provenance.pointer == (
        "/components/parameters/Model"
    )
    version = found[("header", "version")]
    assert (version.default, version.fixed, version.required) == ("2023-06-01", False, True)
    assert request.parameter("VERSION", "header") is version
    assert _codes(result, "request-parameter-invalid") == ["/paths/~1chat~1{model}/post/parameters/2"]


def test_a_path_variable_no_parameter_declares_is_a_required_string(tmp_path: Path) -> None:
    result = _load(tmp_path, _doc(BODY).replace("  /chat:\n", "  /chat/{id}:\n"))
    request = _request(result, "/chat/{id}")
    (param,) = request.parameters_in("path")
    assert (param.name, param.required, param.schema.type) == ("id", True, "string")
    assert _codes(result, "request-path-parameter-undeclared") == ["/paths/~1chat~1{id}/post"]


SCHEMES = """  securitySchemes:
    bearer: {type: http, scheme: bearer, description: the key as a bearer token}
    header: {type: apiKey, in: header, name: x-api-key}
    query: {type: apiKey, in: query, name: key}
    oauth: {type: oauth2, flows: {}}
    tls: {type: mutualTLS}
"""


def test_operation_security_wins_over_the_document_and_lists_alternatives(tmp_path: Path) -> None:
    operation = BODY + "      security: [{header: []}, {query: []}, {header: []}]\n"
    result = _load(tmp_path, _doc(operation, root="security: [{bearer: []}]\n", components=COMPONENTS + SCHEMES))
    auth = _request(result).auth
    assert [(a.name, a.type, a.location, a.parameter, a.scheme) for a in auth] == [
        ("header", "apiKey", "header", "x-api-key", ""),
        ("query", "apiKey", "query", "key", ""),
    ]
    assert auth[0].provenance.pointer == "/components/securitySchemes/header"


def test_document_security_applies_and_tokens_are_bearer(tmp_path: Path) -> None:
    root = "security: [{bearer: []}, {oauth: []}, {tls: []}, {missing: []}, {bearer: [], header: []}]\n"
    result = _load(tmp_path, _doc(BODY, root=root, components=COMPONENTS + SCHEMES))
    auth = _request(result).auth
    assert [(a.name, a.type, a.parameter, a.scheme) for a in auth] == [
        ("bearer", "http", "Authorization", "bearer"),
        ("oauth", "oauth2", "Authorization", "bearer"),
    ]
    assert auth[0].description == "the key as a bearer token"
    assert _codes(result, "auth-scheme-unsupported") == ["/components/securitySchemes/tls"]
    assert _codes(result, "auth-scheme-unknown") == ["/security/3"]
    assert _codes(result, "auth-combined") == ["/security/4"]


def test_an_empty_operation_security_means_no_auth_and_says_so(tmp_path: Path) -> None:
    operation = BODY + "      security: []\n"
    result = _load(tmp_path, _doc(operation, root="security: [{bearer: []}]\n", components=COMPONENTS + SCHEMES))
    assert _request(result).auth == ()
    assert _codes(result, "request-auth-missing") == ["/paths/~1chat/post"]


def test_servers_of_the_operation_then_of_the_path_item(tmp_path: Path) -> None:
    path_item = "    servers: [{url: 'https://path.example.com'}]\n"
    result = _load(tmp_path, _doc(BODY, path_item=path_item))
    assert _request(result).servers == ("https://path.example.com",)
    operation = BODY + "      servers: [{url: 'https://op.example.com'}, {url: 'https://op2.example.com'}]\n"
    result = _load(tmp_path / "op", _doc(operation, path_item=path_item))
    assert _request(result).servers == ("https://op.example.com", "https://op2.example.com")


def test_a_body_without_json_has_no_schema_and_the_client_takes_a_mapping(tmp_path: Path) -> None:
    operation = """      requestBody:
        content:
          multipart/form-data:
            schema: {type: object}
"""
    result = _load(tmp_path, _doc(operation))
    body = _request(result).body
    assert body is not None and body.schema is None and body.media_type == "multipart/form-data"
    assert _codes(result, "request-body-not-json") == ["/paths/~1chat/post/requestBody"]
    assert _codes(result, "request-schema-missing") == ["/paths/~1chat/post"]


def test_no_request_body_is_reported_and_the_stream_taken_to_always_flow(tmp_path: Path) -> None:
    result = _load(tmp_path, _doc(""))
    request = _request(result)
    assert request.body is None and request.stream is None
    assert _codes(result, "request-schema-missing") == ["/paths/~1chat/post"]
    assert _codes(result, "request-stream-member-missing") == ["/paths/~1chat/post"]


def test_fern_stream_condition_names_the_stream_member(tmp_path: Path) -> None:
    doc = f"""openapi: 3.1.0
info: {{title: T, version: '1'}}
paths:
  /chat:
    post:
      x-fern-streaming:
        format: sse
        stream-condition: $request.stream
        response-stream: {{$ref: '#/components/schemas/Chunk'}}
{BODY}      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {{type: object}}
{COMPONENTS}"""
    request = _request(_load(tmp_path, doc))
    assert request.stream is not None and request.stream.stated == "extension"
    assert request.stream.provenance.pointer == "/paths/~1chat/post/x-fern-streaming/stream-condition"
    assert request.media_types == ("text/event-stream",)


def test_x_ssegen_resume_states_the_resumption_and_a_bad_one_is_reported(tmp_path: Path) -> None:
    operation = (
        BODY
        + """      x-ssegen-resume:
        kind: starting-after
        cursor: seq
        path: /chat/{id}
        parameter: after
        id: response.id
        query: {stream: true}
        when: {background: true}
"""
    )
    resume = _request(_load(tmp_path, _doc(operation))).resume
    assert resume is not None and resume.stated == "extension"
    assert (resume.kind, resume.cursor, resume.method, resume.path, resume.parameter) == (
        "starting-after",
        "seq",
        "GET",
        "/chat/{id}",
        "after",
    )
    assert resume.id_path == ("response", "id") and resume.query == (("stream", "true"),)
    assert resume.when is not None and resume.when.path == ("background",) and resume.when.value is True
    bad = _load(tmp_path / "bad", _doc(BODY + "      x-ssegen-resume: {kind: starting-after, cursor: seq}\n"))
    assert _request(bad).resume is None
    assert _codes(bad, "resume-invalid") == ["/paths/~1chat/post/x-ssegen-resume"]


def test_an_event_object_with_an_id_resumes_with_last_event_id(tmp_path: Path) -> None:
    doc = f"""openapi: 3.2.0
info: {{title: T, version: '1'}}
paths:
  /chat:
    post:
{BODY}      responses:
        '200':
          description: events
          content:
            text/event-stream:
              itemSchema:
                type: object
                required: [data]
                properties:
                  id: {{type: string}}
                  data: {{type: string, contentMediaType: application/json, contentSchema: {{type: object}}}}
{COMPONENTS}"""
    resume = _request(_load(tmp_path, doc)).resume
    assert resume is not None and (resume.kind, resume.stated) == ("last-event-id", "schema")
    assert resume.provenance.pointer.endswith("/itemSchema/properties/id")


def test_a_query_suffix_of_the_path_is_a_fixed_query_parameter(tmp_path: Path) -> None:
    """OpenAI's document tells its beta variant apart as ``/responses?beta=true``."""
    result = _load(tmp_path, _doc(BODY).replace("  /chat:\n", "  /chat?beta=true:\n"))
    request = _request(result, "/chat?beta=true")
    assert request.path == "/chat"
    (beta,) = request.parameters_in("query")
    assert (beta.name, beta.default, beta.fixed, beta.required) == ("beta", "true", True, True)


ERRORS = """components:
  responses:
    Fallback:
      description: any other error
      content:
        application/problem+json:
          schema: {type: object, properties: {title: {type: string}}}
  schemas:
    Chunk:
      type: object
      required: [text]
      properties: {text: {type: string}}
    ApiError:
      type: object
      required: [error]
      properties:
        error:
          type: object
          properties: {message: {type: string}, code: {type: string}}
"""

ERROR_RESPONSES = """      responses:
        '400':
          description: no JSON body
          content:
            text/plain:
              schema: {type: string}
        4XX:
          description: a client error
          content:
            application/json:
              schema: {$ref: '#/components/schemas/ApiError'}
        '503':
          description: no content
        default:
          $ref: '#/components/responses/Fallback'
        '200':
          description: chunks
          content:
            text/event-stream:
              schema: {$ref: '#/components/schemas/Chunk'}
"""


def _errors_doc() -> str:
    return (
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\nservers: [{url: 'https://api.example.com/v1'}]\n"
        "paths:\n  /chat:\n    post:\n      operationId: createChat\n" + ERROR_RESPONSES + ERRORS
    )


def test_error_responses_with_a_json_schema_are_the_requests_errors(tmp_path: Path) -> None:
    """``4XX`` and ``default`` (a ``$ref`` to ``components/responses``) with a JSON media type are
    read, in source order; a status without content or without JSON has none."""
    request = _request(_load(tmp_path, _errors_doc()))
    assert [(e.status, e.media_type, e.description) for e in request.errors] == [
        ("4XX", "application/json", "a client error"),
        ("default", "application/problem+json", "any other error"),
    ]
    api_error, fallback = request.errors
    assert api_error.schema.name == "ApiError" and api_error.schema.property("error") is not None
    assert api_error.provenance.pointer == "/paths/~1chat/post/responses/4XX"
    assert fallback.provenance.pointer == "/components/responses/Fallback"
    assert fallback.schema.name == "CreateChatError"


def test_the_client_decodes_the_first_declared_error_response(tmp_path: Path) -> None:
    """The operation's declared error body is a ``models`` class, and ``APIStatusError.error`` is
    decoded to it (``codemodel/client_errors.py``)."""
    result = _load(tmp_path, _errors_doc())
    assert result.provider is not None
    spec = build_package_spec(result.provider, Diagnostics())
    (op,) = spec.client.operations
    assert op.error_decoder == "msgspec.json.Decoder(ApiError).decode"
    assert "ApiError" in {c.name for c in spec.classes} and "ApiError" in spec.client_model_imports

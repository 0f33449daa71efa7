"""Requests merged across sources and completed (``normalize/request.py``), on IR built here."""

from __future__ import annotations

from ssegen.diagnostics import Diagnostics
from ssegen.ir import (
    Accumulation,
    AuthScheme,
    BodyMember,
    Channel,
    Message,
    Parameter,
    Property,
    Provenance,
    Provider,
    Request,
    RequestBody,
    Schema,
)
from ssegen.normalize.request import attach_request, complete_requests, merge_requests

A = Provenance("p/a.yaml", 3, "/a")
B = Provenance("p/b.md", 7, "/b")


def _boolean(name: str, where: Provenance = A) -> Property:
    return Property(name, Schema("boolean", where), False, "", where)


def _body(*props: Property, name: str = "Body") -> RequestBody:
    return RequestBody("application/json", Schema("object", A, name=name, properties=props), True, A)


def _channel(request: Request | None, **kw: object) -> Channel:
    chunk = Schema("object", A, name="Chunk", properties=(Property("text", Schema("string", A), True, "", A),))
    return Channel("/chat", (Message("Chunk", "data", chunk, A),), A, request=request, **kw)  # type: ignore[arg-type]


def _provider(*channels: Channel) -> Provider:
    return Provider("p", channels, ("p/a.yaml",))


def test_merge_keeps_the_first_source_and_fills_its_gaps() -> None:
    bearer = AuthScheme("bearer", "http", "header", "Authorization", B, "bearer")
    header = Parameter("X-Version", "header", Schema("string", A), True, A, default="1")
    first = Request("POST", "/chat", A, parameters=(header,), body=RequestBody("application/json", None, True, A))
    second = Request(
        "",
        "/chat",
        B,
        parameters=(
            Parameter("x-version", "header", Schema("string", B), False, B),
            header.__class__("alt", "query", Schema("string", B), True, B, "sse", True),
        ),
        body=_body(_boolean("stream", B)),
        stream=BodyMember(("stream",), True, B, "prose"),
        auth=(bearer,),
        servers=("https://b.example",),
        media_types=("text/event-stream",),
        operation_id="createChat",
    )
    diagnostics = Diagnostics()
    merged = merge_requests(first, second, diagnostics)
    assert merged is not None and merged.operation_id == "createChat"
    assert merged is not None and merged.method == "POST" and merged.provenance == A
    # Header names compare case-insensitively: the first source's X-Version is kept.
    assert [(p.location, p.name) for p in merged.parameters] == [("header", "X-Version"), ("query", "alt")]
    assert merged.body is not None and merged.body.schema is not None and merged.body.schema.name == "Body"
    assert merged.auth == (bearer,) and merged.servers == ("https://b.example",)
    assert merged.stream is not None and merged.stream.provenance == B
    assert not list(diagnostics)
    assert merge_requests(None, second, diagnostics) is second and merge_requests(first, None, diagnostics) is first


def test_merge_reports_a_method_and_a_body_two_sources_state_differently() -> None:
    first = Request("POST", "/chat", A, body=_body(name="One"))
    second = Request("PUT", "/chat", B, body=_body(name="Two"))
    diagnostics = Diagnostics()
    merged = merge_requests(first, second, diagnostics)
    assert merged is not None and merged.method == "POST"
    assert merged.body is not None and merged.body.schema is not None and merged.body.schema.name == "One"
    assert [(d.code, d.severity.value) for d in diagnostics] == [
        ("request-conflict", "warning"),
        ("request-conflict", "warning"),
    ]


def test_a_schema_stated_member_wins_over_prose_whichever_source_comes_first() -> None:
    prose = BodyMember(("stream",), True, A, "prose")
    schema = BodyMember(("stream",), True, B, "schema")
    merged = merge_requests(
        Request("POST", "/c", A, stream=prose), Request("POST", "/c", B, stream=schema), Diagnostics()
    )
    assert merged is not None and merged.stream is schema


def test_attach_request_merges_a_docs_request_into_its_channel_only() -> None:
    provider = _provider(_channel(Request("POST", "/chat", A)))
    docs = Request("POST", "/chat", B, body=_body())
    attached = attach_request(provider, "/chat", docs, Diagnostics())
    request = attached.channels[0].request
    assert request is not None and request.body is not None and request.provenance == A
    assert attach_request(provider, "/other", docs, Diagnostics()) is provider
    assert attach_request(provider, "/chat", None, Diagnostics()) is provider


def test_complete_assumes_post_and_reports_every_gap() -> None:
    diagnostics = Diagnostics()
    [channel] = complete_requests(_provider(_channel(None)), diagnostics).channels
    assert channel.request == Request("POST", "/chat", A, media_types=("text/event-stream",))
    assert sorted(d.code for d in diagnostics) == [
        "request-auth-missing",
        "request-method-assumed",
        "request-schema-missing",
        "request-stream-member-missing",
    ]
    assert {d.pointer for d in diagnostics} == {"/a"}


def test_complete_finds_stream_and_include_usage_in_the_body_schema() -> None:
    options = Schema("object", A, name="StreamOptions", properties=(_boolean("include_usage", B),))
    nullable_options = Schema("union", A, variants=(options, Schema("string", A)))
    body = _body(_boolean("stream", B), Property("stream_options", nullable_options, False, "", A))
    bearer = AuthScheme("bearer", "http", "header", "Authorization", A, "bearer")
    diagnostics = Diagnostics()
    request = Request("POST", "/chat", A, body=body, auth=(bearer,), stream=BodyMember(("stream",), True, A, "prose"))
    [channel] = complete_requests(_provider(_channel(request)), diagnostics).channels
    assert channel.request is not None
    assert channel.request.stream == BodyMember(("stream",), True, B, "schema")
    assert channel.request.include_usage == BodyMember(("stream_options", "include_usage"), True, B, "schema")
    assert not list(diagnostics)


def test_a_stream_member_that_is_no_boolean_is_not_the_switch() -> None:
    body = _body(Property("stream", Schema("string", A), False, "", A))
    [channel] = complete_requests(_provider(_channel(Request("POST", "/chat", A, body=body))), Diagnostics()).channels
    assert channel.request is not None and channel.request.stream is None


def test_an_ndjson_channel_answers_with_the_media_type_its_messages_name() -> None:
    line = Message("Line", "data", Schema("object", A), A, content_type="application/jsonl")
    channel = Channel("/api/chat", (line,), A, framing="ndjson", request=Request("POST", "/api/chat", A))
    [done] = complete_requests(_provider(channel), Diagnostics()).channels
    assert done.request is not None and done.request.media_types == ("application/jsonl",)


def test_responses_family_with_sequence_numbers_resumes_with_starting_after() -> None:
    event = Schema(
        "object",
        A,
        name="Created",
        properties=(Property("sequence_number", Schema("integer", B), True, "", B),),
    )
    body = _body(_boolean("background", B))
    channel = Channel(
        "/v1/responses",
        (Message("Created", "data", event, A),),
        A,
        accumulation=Accumulation("responses", (), A),
        request=Request("POST", "/v1/responses", A, body=body),
    )
    diagnostics = Diagnostics()
    [done] = complete_requests(_provider(channel), diagnostics).channels
    resume = done.request.resume if done.request else None
    assert resume is not None and (resume.kind, resume.stated, resume.provenance) == ("starting-after", "family", B)
    assert (resume.method, resume.path, resume.parameter, resume.query) == (
        "GET",
        "/v1/responses/{response_id}",
        "starting_after",
        (("stream", "true"),),
    )
    assert resume.when == BodyMember(("background",), True, B, "schema")
    assert [d.code for d in diagnostics if d.code.startswith("resume")] == ["resume-recognized"]
    # Another family's sequence numbers say nothing.
    chat = Channel(
        "/c", channel.messages, A, accumulation=Accumulation("chat", (), A), request=Request("POST", "/c", A)
    )
    [other] = complete_requests(_provider(chat), Diagnostics()).channels
    assert other.request is not None and other.request.resume is None

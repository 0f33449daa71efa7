"""Every provider in ``specs/`` has the request of each of its streams: method, path, auth and
the member switching streaming on, as its sources state them (``ssegen ir`` shows them)."""

from __future__ import annotations

import pytest
from conftest import SPECS

from ssegen.ir import Request
from ssegen.load import load_provider

#: provider, channel -> (method, path, auth as "location:parameter[:scheme]", stream member, how stated).
EXPECTED: dict[tuple[str, str], tuple[str, str, tuple[str, ...], tuple[str, ...] | None, str]] = {
    ("anthropic", "/v1/messages"): ("POST", "/v1/messages", ("header:x-api-key",), ("stream",), "schema"),
    ("cohere", "/chat"): ("POST", "/chat", ("header:Authorization:bearer",), ("stream",), "schema"),
    ("deepseek", "/beta/completions"): (
        "POST",
        "/beta/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "prose",
    ),
    ("deepseek", "/chat/completions"): (
        "POST",
        "/chat/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "prose",
    ),
    ("gemini", "/models/{model}:streamGenerateContent"): (
        "POST",
        "/models/{model}:streamGenerateContent",
        ("header:x-goog-api-key", "query:key"),
        None,
        "",
    ),
    ("mistral", "/agents/completions"): (
        "POST",
        "/agents/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "prose",
    ),
    ("mistral", "/chat/completions"): (
        "POST",
        "/chat/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "prose",
    ),
    ("mistral", "/fim/completions"): (
        "POST",
        "/fim/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "prose",
    ),
    ("ollama", "/api/chat"): ("POST", "/api/chat", (), ("stream",), "schema"),
    ("ollama", "/api/generate"): ("POST", "/api/generate", (), ("stream",), "schema"),
    ("openai_responses", "/v1/responses"): (
        "POST",
        "/v1/responses",
        ("header:Authorization:bearer",),
        ("stream",),
        "schema",
    ),
    ("siliconstorm", "/chat/completions"): (
        "POST",
        "/chat/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "schema",
    ),
    ("xerotier", "/chat/completions"): (
        "POST",
        "/{project_id}/{endpoint_slug}/v1/chat/completions",
        ("header:Authorization:bearer",),
        ("stream",),
        "prose",
    ),
}

PROVIDERS = sorted(p.name for p in SPECS.iterdir() if p.is_dir())


def _requests(provider: str) -> dict[str, Request]:
    loaded = load_provider(SPECS, provider)
    assert loaded.provider is not None
    found = {}
    for channel in loaded.provider.channels:
        assert channel.request is not None, f"{provider} {channel.address} has no request"
        found[channel.address] = channel.request
    return found


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_stream_of_every_provider_has_its_request(provider: str) -> None:
    requests = _requests(provider)
    assert sorted(requests) == sorted(address for name, address in EXPECTED if name == provider)
    for address, request in requests.items():
        method, path, auth, stream, stated = EXPECTED[(provider, address)]
        assert (request.method, request.path) == (method, path)
        assert tuple(":".join(filter(None, (a.location, a.parameter, a.scheme))) for a in request.auth) == auth
        assert (request.stream.path if request.stream else None) == stream
        assert (request.stream.stated if request.stream else "") == stated
        assert request.provenance.file.startswith(f"{provider}/") and request.provenance.line > 0
        for fact in (*request.auth, *request.parameters, request.stream, request.include_usage):
            assert fact is None or (fact.provenance.file.startswith(f"{provider}/") and fact.provenance.line > 0)
        assert request.media_types == (("application/x-ndjson",) if provider == "ollama" else ("text/event-stream",))


def test_the_providers_own_specs_state_a_body_schema_and_required_headers() -> None:
    anthropic = _requests("anthropic")["/v1/messages"]
    assert anthropic.body is not None and anthropic.body.schema is not None
    assert [p.name for p in anthropic.body.schema.properties if p.required] == ["model", "messages", "max_tokens"]
    version = anthropic.parameter("anthropic-version", "header")
    assert version is not None and version.required and version.default == "2023-06-01"
    gemini = _requests("gemini")["/models/{model}:streamGenerateContent"]
    alt = gemini.parameter("alt", "query")
    assert alt is not None and (alt.default, alt.fixed) == ("sse", True)
    assert [p.name for p in gemini.parameters_in("path")] == ["model"]
    for provider, address, schema in (
        ("anthropic", "/v1/messages", "CreateMessageParams"),
        ("cohere", "/chat", "ChatRequest"),
        ("gemini", "/models/{model}:streamGenerateContent", "GenerateContentRequest"),
        ("openai_responses", "/v1/responses", "CreateResponseRequest"),
        ("ollama", "/api/generate", "GenerateRequest"),
        ("siliconstorm", "/chat/completions", "ChatCompletionRequest"),
        ("deepseek", "/chat/completions", "CreateChatCompletionRequest"),
    ):
        body = _requests(provider)[address].body
        assert body is not None and body.schema is not None and body.schema.name == schema, provider


def test_include_usage_and_resumption_where_the_sources_state_them() -> None:
    usage = {
        (provider, address): request.include_usage is not None
        for provider in PROVIDERS
        for address, request in _requests(provider).items()
    }
    assert [key for key, has in usage.items() if has] == [
        ("deepseek", "/chat/completions"),
        ("mistral", "/chat/completions"),
        ("xerotier", "/chat/completions"),
    ]
    resume = _requests("openai_responses")["/v1/responses"].resume
    assert resume is not None and (resume.kind, resume.stated, resume.cursor) == (
        "starting-after",
        "family",
        "sequence_number",
    )
    assert resume.path == "/v1/responses/{response_id}" and resume.when is not None


def test_the_operation_id_is_the_request_operations() -> None:
    """OpenAPI ``operationId``, AsyncAPI 3.0 the receive operation's key (Gemini, Cohere), 2.x a
    ``publish`` one's (DeepSeek and Mistral have none: their subscribe ids name the stream)."""
    ids = {
        (provider, address): request.operation_id
        for provider in PROVIDERS
        for address, request in _requests(provider).items()
    }
    assert {key: op for key, op in ids.items() if op} == {
        ("anthropic", "/v1/messages"): "createMessage",
        ("cohere", "/chat"): "requestChat",
        ("gemini", "/models/{model}:streamGenerateContent"): "requestGenerateContent",
        ("ollama", "/api/chat"): "chat",
        ("ollama", "/api/generate"): "generate",
        ("openai_responses", "/v1/responses"): "createResponse",
    }

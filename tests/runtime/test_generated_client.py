"""Every provider's generated client (``client.py``, ``requests.py``): ``client.stream(address,
body)`` and the typed method assemble what the mock (``ssegen.transport.SSEMock``) answers, sync and
async; the request carries the spec's method, path, auth, headers and stream member; the package
imports without httpx; mypy checks the typed methods' keywords."""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import GENERATED_PROVIDERS, ROOT
from helpers import flavours
from mypy import api as mypy_api

from ssegen.transport import Route, SSEMock

MOCK_URL = "https://mock.test/api"

#: A body for ``client.stream`` of each channel (address -> JSON object).
BODIES: dict[str, dict[str, dict[str, Any]]] = {
    "anthropic": {"/v1/messages": {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": []}},
    "cohere": {"/chat": {"model": "command-a", "messages": [{"role": "user", "content": "Hi"}]}},
    "deepseek": {
        "/beta/completions": {"model": "deepseek-chat", "prompt": "def f("},
        "/chat/completions": {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}]},
    },
    "gemini": {"/models/{model}:streamGenerateContent": {"contents": [{"parts": [{"text": "Hi"}]}]}},
    "mistral": {
        "/agents/completions": {"agent_id": "a1", "messages": []},
        "/chat/completions": {"model": "mistral-small", "messages": []},
        "/fim/completions": {"model": "codestral", "prompt": "def f("},
    },
    "ollama": {"/api/chat": {"model": "llama3.2", "messages": []}, "/api/generate": {"model": "llama3.2"}},
    "openai_responses": {"/v1/responses": {"model": "gpt-4.1", "input": "Hi"}},
    "siliconstorm": {"/chat/completions": {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}},
    "xerotier": {"/chat/completions": {"model": "m", "messages": []}},
}

#: Path parameters of the channels that have some.
PATH_PARAMS = {
    "/models/{model}:streamGenerateContent": {"model": "gemini-2.5-flash"},
    "xerotier": {"project_id": "p1", "endpoint_slug": "e1"},
}


#: (provider, address) -> (the typed method, its keyword arguments given the package's ``requests``).
TYPED: dict[tuple[str, str], tuple[str, Callable[[ModuleType], dict[str, Any]]]] = {
    ("anthropic", "/v1/messages"): (
        "create_message",
        lambda r: {"model": "m", "max_tokens": 64, "messages": [r.InputMessage(role="user", content="Hi")]},
    ),
    ("cohere", "/chat"): ("request_chat", lambda r: {"model": "m", "messages": [_tagged(r.UserMessage, content="Hi")]}),
    ("deepseek", "/beta/completions"): ("beta_completions", lambda r: {"body": {"model": "m", "prompt": "x"}}),
    ("deepseek", "/chat/completions"): (
        "chat_completions",
        lambda r: {"messages": [{"role": "user", "content": "Hi"}], "extra_body": {"model": "deepseek-chat"}},
    ),
    ("gemini", "/models/{model}:streamGenerateContent"): (
        "request_generate_content",
        lambda r: {"model": "g", "contents": [r.Content(parts=[r.Part(text="Hi")])]},
    ),
    ("mistral", "/agents/completions"): ("agents_completions", lambda r: {"body": {"agent_id": "a", "messages": []}}),
    ("mistral", "/chat/completions"): ("chat_completions", lambda r: {"body": {"model": "m", "messages": []}}),
    ("mistral", "/fim/completions"): ("fim_completions", lambda r: {"body": {"model": "m", "prompt": "x"}}),
    ("ollama", "/api/chat"): (
        "chat",
        lambda r: {"model": "llama3.2", "messages": [r.Message(role="user", content="Hi")]},
    ),
    ("ollama", "/api/generate"): ("generate", lambda r: {"model": "llama3.2", "prompt": "Hi"}),
    ("openai_responses", "/v1/responses"): ("create_response", lambda r: {"model": "gpt-4.1", "input": "Hi"}),
    ("siliconstorm", "/chat/completions"): (
        "chat_completions",
        lambda r: {"model": "m", "messages": [r.ChatCompletionRequestMessage(role="user", content="Hi")]},
    ),
    ("xerotier", "/chat/completions"): (
        "chat_completions",
        lambda r: {"body": {"model": "m", "messages": []}, "project_id": "p1", "endpoint_slug": "e1"},
    ),
}


def _tagged(cls: Any, **members: Any) -> Any:
    """An alternative of a tagged union: msgspec sets its tag (a class constant), pydantic takes it
    as a required field (its discriminated unions read it from the input)."""
    fields = getattr(cls, "model_fields", {})
    return cls(
        **members,
        **{
            name: info.annotation.__args__[0]
            for name, info in fields.items()
            if info.is_required() and name not in members
        },
    )


CASES = [(provider, address) for provider in GENERATED_PROVIDERS for address in BODIES[provider]]


def _package(provider: str, flavour: str = "msgspec") -> ModuleType:
    return flavours.package(provider, flavour)


def _path_params(provider: str, address: str) -> dict[str, str] | None:
    return PATH_PARAMS.get(address) or PATH_PARAMS.get(provider)


def _mocked(provider: str, address: str, flavour: str = "msgspec") -> tuple[SSEMock, Route, dict[str, Any]]:
    """A mock answering the channel, its route, and the result of its whole answer unbroken."""
    channel = _package(provider, flavour).CHANNELS[address]
    mock = SSEMock()
    route = mock.route(channel, check=True)  # the method, key and body checked as ssegen mock does
    return mock, route, channel.accumulate(channel.decode([route.body])).to_dict()


def _run(
    provider: str, address: str, mode: str, typed: bool, flavour: str = "msgspec"
) -> tuple[dict[str, Any], dict[str, Any], Route]:
    """The channel's call through the package's client on the mock: (result, unbroken result, route)."""
    package = _package(provider, flavour)
    mock, route, expected = _mocked(provider, address, flavour)
    method, arguments = TYPED[(provider, address)]
    kwargs = arguments(importlib.import_module(f"{package.__name__}.requests"))

    def open_stream(client: Any) -> Any:
        if typed:
            return getattr(client, method)(**kwargs)
        return client.stream(address, BODIES[provider][address], path_params=_path_params(provider, address))

    if mode == "sync":
        with (
            package.Client(MOCK_URL, "k", http_client=mock.client()) as client,
            open_stream(client) as events,
        ):
            result = events.accumulate().to_dict()
        mock.close()
        return result, expected, route

    async def run() -> dict[str, Any]:
        async with (
            mock.async_client() as http,
            package.AsyncClient(MOCK_URL, "k", http_client=http) as client,
            open_stream(client) as events,
        ):
            return (await events.aaccumulate()).to_dict()  # type: ignore[no-any-return]

    return asyncio.run(run()), expected, route


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("provider", "address"), CASES)
def test_stream_by_address_assembles_the_mocks_answer(provider: str, address: str, mode: str) -> None:
    result, expected, route = _run(provider, address, mode, typed=False)
    assert result == expected and result["complete"]
    assert len(route.requests) == 1


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(("provider", "address"), CASES)
def test_the_typed_method_assembles_the_mocks_answer(provider: str, address: str, mode: str) -> None:
    result, expected, route = _run(provider, address, mode, typed=True)
    assert result == expected and result["complete"]
    assert len(route.requests) == 1


@pytest.mark.parametrize(("provider", "address"), CASES)
def test_the_pydantic_flavours_typed_method_sends_the_same_body(provider: str, address: str) -> None:
    """The pydantic flavour's request models send what the msgspec flavour's Structs send: only the
    members given (an argument left at None is not sent as ``null``)."""
    result, expected, route = _run(provider, address, "sync", typed=True, flavour="pydantic")
    assert result == expected and result["complete"]
    _, _, msgspec_route = _run(provider, address, "sync", typed=True)
    assert json.loads(route.requests[0].content) == json.loads(msgspec_route.requests[0].content)


#: provider, address -> (method, path after the base URL, the key's header or query item, the
#: headers every request carries, the stream member as sent).
SENT = {
    ("anthropic", "/v1/messages"): ("POST", "/v1/messages", ("x-api-key", "k"), {"anthropic-version": "2023-06-01"}),
    ("deepseek", "/beta/completions"): ("POST", "/beta/completions", ("authorization", "Bearer k"), {}),
    ("gemini", "/models/{model}:streamGenerateContent"): (
        "POST",
        "/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        ("x-goog-api-key", "k"),
        {},
    ),
    ("ollama", "/api/chat"): ("POST", "/api/chat", None, {}),
    ("xerotier", "/chat/completions"): ("POST", "/p1/e1/v1/chat/completions", ("authorization", "Bearer k"), {}),
}


@pytest.mark.parametrize(("provider", "address"), sorted(SENT))
def test_the_request_is_the_specs(provider: str, address: str) -> None:
    """Method, path (path parameters filled, fixed query), auth, required headers, and the stream
    member set by the client (Gemini's path streams: no member)."""
    _result, _expected, route = _run(provider, address, "sync", typed=False)
    method, path, key, headers = SENT[(provider, address)]
    request = route.requests[0]
    assert request.method == method
    assert str(request.url) == MOCK_URL + path
    if key is not None:
        assert request.headers[key[0]] == key[1]
    else:
        assert "authorization" not in request.headers
    for name, value in headers.items():
        assert request.headers[name] == value
    body = json.loads(request.content)
    assert body.get("stream") is (None if provider == "gemini" else True)


def test_the_key_defaults_to_the_providers_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "from-env")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-env")
    deepseek, anthropic = _package("deepseek"), _package("anthropic")
    for package, address, header, value in (
        (deepseek, "/chat/completions", "authorization", "Bearer from-env"),
        (anthropic, "/v1/messages", "x-api-key", "anthropic-env"),
    ):
        mock = SSEMock()
        route = mock.route(package.CHANNELS[address])
        with package.Client(http_client=mock.client()) as client:
            assert client.base_url == package.client.Client.default_base_url
            with client.stream(address, {"model": "m", "messages": [], "max_tokens": 1}) as events:
                events.accumulate()
        assert route.requests[0].headers[header] == value
        mock.close()


#: The variable each provider's own SDK reads the key from (docs/client.md, "The generated client"):
#: named in the auth scheme's description where ``<PROVIDER>_API_KEY`` is not it; "" without auth.
SDK_KEY_VARIABLES = {
    "anthropic": "ANTHROPIC_API_KEY",
    "cohere": "CO_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "ollama": "",
    "openai_responses": "OPENAI_API_KEY",
    "siliconstorm": "SILICONSTORM_API_KEY",
    "xerotier": "XEROTIER_API_KEY",
}


@pytest.mark.parametrize("provider", GENERATED_PROVIDERS)
def test_every_operations_key_variable_is_the_one_the_providers_sdk_reads(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key comes from the variable users of the provider's SDK already set (``OPENAI_API_KEY``,
    not ``OPENAI_RESPONSES_API_KEY``), and is sent from it."""
    variable = SDK_KEY_VARIABLES[provider]
    operations = importlib.import_module(f"{_package(provider).__name__}.client").OPERATIONS
    assert {op.auth.env for op in operations.values()} == {variable}
    address = next(iter(BODIES[provider]))
    mock, route, _ = _mocked(provider, address)
    if variable:
        monkeypatch.setenv(variable, "from-env")
    with (
        _package(provider).Client(MOCK_URL, http_client=mock.client(), max_retries=0) as client,
        client.stream(address, BODIES[provider][address], path_params=_path_params(provider, address)) as events,
    ):
        assert events.accumulate().complete
    auth, sent = operations[address].auth, route.requests[0]
    if variable:
        assert sent.headers[auth.name if auth.scheme == "header" else "authorization"].endswith("from-env")
    mock.close()


def test_include_usage_and_typed_bodies_leave_unset_members_out() -> None:
    """A typed call sends only the members given (msgspec ``omit_defaults``), the stream member,
    and ``stream_options.include_usage`` where the spec has it; ``extra_body`` adds members."""
    deepseek = _package("deepseek")
    mock, route, _ = _mocked("deepseek", "/chat/completions")
    with deepseek.Client(MOCK_URL, "k", http_client=mock.client()) as client:
        messages = [{"role": "user", "content": "Hi"}]
        with client.chat_completions(messages=messages, extra_body={"model": "deepseek-chat"}) as events:
            events.accumulate()
    assert json.loads(route.requests[0].content) == {
        "messages": messages,
        "model": "deepseek-chat",
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    mock.close()


def test_the_operations_are_the_requests_of_the_ir() -> None:
    """Base URL, operation paths relative to it (DeepSeek's beta server), auth and resumption."""
    deepseek = _package("deepseek").client
    assert deepseek.Client.default_base_url == "https://api.deepseek.com"
    assert deepseek.OPERATIONS["/beta/completions"].path == "/beta/completions"
    assert deepseek.OPERATIONS["/chat/completions"].include_usage
    assert deepseek.OPERATIONS["/chat/completions"].auth.env == "DEEPSEEK_API_KEY"
    gemini = _package("gemini").client.OPERATIONS["/models/{model}:streamGenerateContent"]
    assert (gemini.query, gemini.stream_member, gemini.auth.name) == ((("alt", "sse"),), None, "x-goog-api-key")
    assert gemini.auth.env == "GEMINI_API_KEY"
    responses = _package("openai_responses").client.OPERATIONS["/v1/responses"]
    assert responses.resume == "responses-starting-after"
    assert _package("ollama").client.OPERATIONS["/api/chat"].auth.scheme == "none"


def test_the_package_imports_without_httpx_and_its_client_names_the_install() -> None:
    code = (
        "import sys; sys.modules['httpx'] = None\n"
        "import generated.anthropic as p\n"
        "result = p.CHANNELS['/v1/messages'].accumulate([])\n"
        "assert issubclass(p.APIStatusError, p.APIError)\n"
        "try:\n"
        "    p.Client\n"
        "except ImportError as exc:\n"
        "    print('ImportError', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "ImportError" in done.stdout and "pip install httpx" in done.stdout


def test_an_unknown_package_attribute_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Clients'"):
        _package("deepseek").Clients  # noqa: B018


#: A user's module: ``# ERROR`` marks each line mypy --strict must reject, ``# REVEAL <text>`` each
#: ``reveal_type`` whose note must contain the text; every other line must pass.
USER_MODULE = '''\
"""The generated clients as a user's code calls them."""

from typing import reveal_type

from generated.anthropic import AsyncClient, Client, requests
from generated.gemini import Client as GeminiClient

with Client() as client:
    message = requests.InputMessage(role="user", content="Hi")
    with client.create_message(model="m", max_tokens=64, messages=[message]) as events:
        reveal_type(events)  # REVEAL Stream[generated.anthropic.models.MessageStartEvent
        for event in events:
            print(type(event).__name__)
    with client.stream("/v1/messages", {"model": "m"}) as by_address:
        reveal_type(by_address)  # REVEAL Stream[generated.anthropic.models.MessageStartEvent
    client.create_message(model="m", max_tokens="64", messages=[message])  # ERROR
    client.create_message(model="m", max_tokens=64, messages=[message], temprature=1)  # ERROR
    client.create_message(model="m", max_tokens=64)  # ERROR
    requests.InputMessage(role="user")  # ERROR
with GeminiClient() as gemini:
    gemini.request_generate_content(contents=[])  # ERROR
    reveal_type(gemini.request_generate_content(model="g", contents=[]))  # REVEAL Stream[
reveal_type(AsyncClient().create_message(model="m", max_tokens=1, messages=[]))  # REVEAL AsyncStream[
'''


def _marked(source: str, mark: str) -> dict[int, str]:
    return {
        number: line.split(f"# {mark}", 1)[1].strip()
        for number, line in enumerate(source.splitlines(), 1)
        if f"# {mark}" in line
    }


def test_mypy_checks_the_typed_methods_keywords_and_types_the_events(tmp_path: Path) -> None:
    user = tmp_path / "user_client.py"
    user.write_text(USER_MODULE, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(f"[mypy]\nmypy_path = {ROOT}\n", encoding="utf-8")
    stdout, stderr, _ = mypy_api.run(
        ["--strict", "--no-incremental", "--config-file", str(tmp_path / "mypy.ini"), str(user)]
    )
    errors: set[int] = set()
    notes: dict[int, str] = {}
    for line in stdout.splitlines():
        head, _, message = line.partition(": ")
        if not head.startswith(str(user)):
            continue
        number = int(head.rsplit(":", 1)[1])
        kind, _, text = message.partition(": ")
        if kind == "error":
            errors.add(number)
        elif kind == "note":
            notes[number] = notes.get(number, "") + text
    assert errors == set(_marked(USER_MODULE, "ERROR")), stdout + stderr
    for number, expected in _marked(USER_MODULE, "REVEAL").items():
        assert expected in notes.get(number, ""), (number, notes.get(number), stdout)
        assert not re.search(r"\bAny\b", notes[number]), notes[number]


def test_a_request_the_mock_refuses_raises_the_packages_api_status_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checking mock refuses a body its schema does not take (400, naming the pointer) and a
    call without a key (401): the client raises the package's exported ``APIStatusError``."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    anthropic = _package("anthropic")
    mock, _route, _ = _mocked("anthropic", "/v1/messages")
    with anthropic.Client(MOCK_URL, "k", http_client=mock.client(), max_retries=0) as client:
        with pytest.raises(anthropic.APIStatusError) as bad, client.stream("/v1/messages", {"model": "m"}):
            pass
    assert bad.value.status_code == 400 and b"messages" in bad.value.body
    with anthropic.Client(MOCK_URL, http_client=mock.client(), max_retries=0) as client:
        with (
            pytest.raises(anthropic.APIError) as unauthorized,
            client.create_message(model="m", max_tokens=1, messages=[]),
        ):
            pass
    assert isinstance(unauthorized.value, anthropic.APIStatusError) and unauthorized.value.status_code == 401
    assert "ANTHROPIC_API_KEY" in str(unauthorized.value)
    mock.close()


#: The class ``APIStatusError.error`` is decoded to: the channel's error message where it is a whole
#: error body (codemodel/client_errors.py), "" where the spec declares none (plain JSON data).
ERROR_CLASSES = {
    "anthropic": "ErrorEvent",
    "cohere": "",
    "deepseek": "",
    "gemini": "ErrorResponse",
    "mistral": "",
    "ollama": "StreamError",
    "openai_responses": "",
    "siliconstorm": "",
    "xerotier": "StreamError",
}


@pytest.mark.parametrize("flavour", ["msgspec", "pydantic"])
@pytest.mark.parametrize("provider", GENERATED_PROVIDERS)
def test_a_4xx_gives_the_specs_error_object_typed_else_plain_json(provider: str, flavour: str) -> None:
    """The mock answers 400 in the provider's error shape: ``error`` is the spec's error class where
    the spec declares one, else the body as plain JSON. Xerotier's declares ``code`` a string, which
    the mock's OpenAI-shaped body sends as null: a body the declared shape refuses is kept as plain
    JSON, and the decoder raises nothing."""
    package = _package(provider, flavour)
    address = next(iter(BODIES[provider]))
    mock = SSEMock()
    mock.route(package.CHANNELS[address], status=400)
    client = package.Client(MOCK_URL, "k", http_client=mock.client(), max_retries=0)
    body, path_params = BODIES[provider][address], _path_params(provider, address)
    with client, pytest.raises(package.APIStatusError) as raised, client.stream(address, body, path_params=path_params):
        pass
    mock.close()
    error, sent = raised.value, json.loads(raised.value.body)
    assert error.status_code == 400
    operation = importlib.import_module(f"{package.__name__}.client").OPERATIONS[address]
    assert (operation.error_decoder is not None) == bool(ERROR_CLASSES[provider])
    if not ERROR_CLASSES[provider] or provider == "xerotier":
        assert error.error == sent
        return
    models = importlib.import_module(f"{package.__name__}.models")
    assert isinstance(error.error, getattr(models, ERROR_CLASSES[provider]))
    typed = error.error.error
    assert typed == sent["error"] if isinstance(typed, str) else typed.message == sent["error"]["message"]


def test_a_body_that_fits_xerotiers_error_shape_is_typed() -> None:
    """Xerotier's pre-stream error body, as its page shows the error object, decodes to its class."""
    client_module = importlib.import_module(f"{_package('xerotier').__name__}.client")
    decoder = client_module.OPERATIONS["/chat/completions"].error_decoder
    body = b'{"error": {"message": "Rate limit", "type": "rate_limit_error", "code": "rate_limited"}}'
    assert decoder(body).error.code == "rate_limited"

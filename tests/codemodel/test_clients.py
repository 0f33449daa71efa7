"""The client's code model (``codemodel/clients.py``): paths relative to the base URL, auth as the
runtime's ``Auth``, method and argument names, the request classes ``client.py`` imports by name."""

from __future__ import annotations

from dataclasses import replace

from conftest import SPECS

from ssegen.codemodel import build_package_spec
from ssegen.codemodel.client_errors import is_error_body
from ssegen.codemodel.clients import client_imports, relative_path, runtime_auth
from ssegen.codemodel.models import ModelsBuilder
from ssegen.codemodel.module_imports import used_names
from ssegen.diagnostics import Diagnostics
from ssegen.ir import AuthScheme, Property, Provenance, Request, Schema
from ssegen.load import load_provider

A = Provenance("p/a.yaml", 3, "/a")


def _request(path: str, *servers: str) -> Request:
    return Request("POST", path, A, servers=servers)


def test_a_path_is_relative_to_the_base_url_across_servers() -> None:
    base = "https://api.deepseek.com"
    assert relative_path(_request("/chat/completions", base), base) == "/chat/completions"
    # DeepSeek's beta channel: its address already holds its server's path.
    assert relative_path(_request("/beta/completions", "https://api.deepseek.com/beta"), base) == "/beta/completions"
    # A server with a path the address lacks: joined, then made relative.
    assert relative_path(_request("/completions", "https://api.deepseek.com/beta"), base) == "/beta/completions"
    # No server of its own, or another host: the path as written.
    assert relative_path(_request("/x"), base) == "/x"
    assert relative_path(_request("/x", "https://other.example/v1"), base) == "/x"


def test_auth_schemes_become_the_runtimes_auth() -> None:
    bearer = AuthScheme("bearerAuth", "http", "header", "Authorization", A, "bearer", "as `Bearer <DEEPSEEK_API_KEY>`")
    assert runtime_auth(bearer, "X_API_KEY") == ("bearer", "", "DEEPSEEK_API_KEY")
    header = AuthScheme("apiKey", "httpApiKey", "header", "x-api-key", A)
    assert runtime_auth(header, "ANTHROPIC_API_KEY") == ("header", "x-api-key", "ANTHROPIC_API_KEY")
    query = AuthScheme("apiKeyQuery", "apiKey", "query", "key", A)
    assert runtime_auth(query, "GEMINI_API_KEY") == ("query", "key", "GEMINI_API_KEY")
    assert runtime_auth(AuthScheme("o", "oauth2", "header", "", A), "E")[0] == "bearer"
    assert runtime_auth(AuthScheme("c", "apiKey", "cookie", "sid", A), "E") == ("none", "", "")


def test_request_class_names_are_imported_but_not_those_inside_literals() -> None:
    names = frozenset({"Message", "Tool", "Role", "ToolChoice"})
    assert used_names(["list[Message] | None", "Role | str"], names) == ("Message", "Role")
    assert used_names(["Literal['Tool'] | ToolChoice"], names) == ("ToolChoice",)
    assert used_names(['Literal["Tool"]', "Annotated[list[Tool], msgspec.Meta(max_length=0)]"], names) == ("Tool",)


def test_every_operation_of_a_provider_has_a_distinct_method_and_keyword_arguments() -> None:
    loaded = load_provider(SPECS, "gemini")
    assert loaded.provider is not None
    spec = build_package_spec(loaded.provider, Diagnostics())
    (op,) = spec.client.operations
    assert (op.method_name, op.body_class, op.stream_member) == (
        "request_generate_content",
        "GenerateContentRequest",
        None,
    )
    assert [a.name for a in op.path_arguments] == ["model"] and op.path_params == "{'model': model}"
    names = [a.name for a in (*op.path_arguments, *op.arguments)]
    assert len(names) == len(set(names)) and "contents" in names
    assert not {"headers", "extra_body", "body", "self"} & set(names)
    assert spec.client.base_url == "https://generativelanguage.googleapis.com/v1beta"
    assert spec.requests.classes[0].name == "GenerateContentRequest"
    assert "GenerateContentRequest" in spec.client_imports and set(spec.client_imports) <= spec.requests.names


def test_the_error_body_is_the_channels_error_message_that_is_a_whole_body() -> None:
    """Anthropic's ``error`` event is its HTTP error body (a tag and ``error``); the Responses
    ``error`` event requires ``sequence_number``, stream bookkeeping: no error body is declared."""
    for provider, expected in (("anthropic", "ErrorEvent"), ("openai_responses", "")):
        loaded = load_provider(SPECS, provider)
        assert loaded.provider is not None
        channel = loaded.provider.channels[0]
        plans = dict(channel.accumulation.steps) if channel.accumulation else {}
        bodies = [m.payload.name for m in channel.messages if is_error_body(m, plans.get(m.name, ()))]
        assert bodies == ([expected] if expected else [])
        spec = build_package_spec(loaded.provider, Diagnostics())
        (op,) = spec.client.operations
        assert op.error_decoder == (f"msgspec.json.Decoder({expected}).decode" if expected else "")
        # besides its error decoder's class, client.py imports from models only the request
        # classes shared with it (the Responses input's FunctionToolCall, now typed)
        assert set(spec.client_model_imports) - set(spec.requests.shared) == ({expected} if expected else set())


def test_an_error_class_named_as_a_used_request_class_is_imported_under_another_name() -> None:
    """``client.py`` imports both modules' classes by name: a model class sharing a request class's
    name (the request builder is its own) is imported as ``_<Name>`` and its decoder says so."""
    loaded = load_provider(SPECS, "gemini")
    assert loaded.provider is not None
    spec = build_package_spec(loaded.provider, Diagnostics())
    (op,) = spec.client.operations
    clashing = replace(op, error_decoder="msgspec.json.Decoder(GenerateContentRequest).decode")
    client, requests, errors = client_imports(
        replace(spec.client, operations=(clashing,)), ["GenerateContentRequest"], spec.requests.names
    )
    assert "GenerateContentRequest" in requests
    assert errors == ("GenerateContentRequest as _GenerateContentRequest",)
    assert client.operations[0].error_decoder == "msgspec.json.Decoder(_GenerateContentRequest).decode"


def test_request_unions_are_typed_where_msgspec_tells_the_alternatives_apart_by_json_type() -> None:
    """A request body is encoded, not decoded leniently: a union of at most one object, one array
    and scalars is the union of their types (Anthropic's ``system: str | list[TextBlockParam]``),
    where a stream's models keep any JSON; two untagged objects stay any JSON on both sides."""
    text = Schema("object", A, name="TextBlock", properties=(Property("text", Schema("string", A), True, "", A),))
    system = Schema("union", A, variants=(Schema("string", A), Schema("array", A, items=text)))
    mode = Schema("string", A, name="Mode", enum=("auto", "none"))
    choice = Schema("union", A, nullable=True, variants=(mode, text, Schema("integer", A)))
    other = Schema("object", A, name="Other", properties=(Property("n", Schema("integer", A), True, "", A),))
    untagged = Schema("union", A, variants=(text, other))
    exact = ModelsBuilder(Diagnostics(), exact_unions=True)
    assert exact.annotation(system) == "str | list[TextBlock]"
    assert exact.annotation(choice) == "Mode | str | TextBlock | int | None"
    assert exact.annotation(untagged) == "Any"
    lenient = ModelsBuilder(Diagnostics())
    assert [lenient.annotation(s) for s in (system, choice, untagged)] == ["Any", "Any", "Any"]


def test_anthropic_request_members_that_are_unions_are_typed() -> None:
    loaded = load_provider(SPECS, "anthropic")
    assert loaded.provider is not None
    spec = build_package_spec(loaded.provider, Diagnostics())
    fields = {(c.name, f.name): f.annotation for c in spec.requests.classes for f in c.fields}
    assert fields["CreateMessageParams", "system"] == "str | list[TextBlockParam] | None"
    assert fields["InputMessage", "content"].startswith("str | list[TextBlockParam | ImageBlockParam")


def test_an_untagged_union_member_keeps_any_but_its_argument_is_the_union_of_its_classes() -> None:
    text = Schema("object", A, name="TextBlock", properties=(Property("text", Schema("string", A), True, "", A),))
    other = Schema("object", A, name="Other", properties=(Property("n", Schema("integer", A), True, "", A),))
    items = Schema("array", A, items=Schema("union", A, variants=(text, other)))
    body = Schema("object", A, name="Body", properties=(Property("blocks", items, False, "", A),))
    exact = ModelsBuilder(Diagnostics(), exact_unions=True)
    exact.payload_class(body)
    (field,) = next(c for c in exact.classes if c.name == "Body").fields
    assert (field.annotation, field.argument) == ("list[Any] | None", "list[TextBlock | Other] | None")
    assert {"TextBlock", "Other"} <= {c.name for c in exact.classes}
    lenient = ModelsBuilder(Diagnostics())
    lenient.payload_class(body)
    (field,) = next(c for c in lenient.classes if c.name == "Body").fields
    assert (field.annotation, field.argument) == ("list[Any] | None", "")

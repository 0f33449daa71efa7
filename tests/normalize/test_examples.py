"""Examples that contradict the schema widen it, with a diagnostic naming both places."""

from __future__ import annotations

from dataclasses import replace

from conftest import SPECS

from ssegen.diagnostics import Diagnostics, Severity
from ssegen.ir import ExampleStream, Provenance, StreamEvent
from ssegen.load import load_provider
from ssegen.normalize.examples import reconcile_examples


def _delta_role(provider: object) -> object:
    chunk = provider.channel("/chat/completions").message("ChatCompletionChunk").payload  # type: ignore[attr-defined]
    return chunk.property("choices").schema.items.property("delta").schema.property("role")


def test_deepseek_docs_role_null_widens_the_asyncapi_schema_with_both_places() -> None:
    result = load_provider(SPECS, "deepseek")
    widened = [d for d in result.diagnostics if d.code == "example-widened"]
    assert len(widened) == 1
    diag = widened[0]
    assert diag.severity is Severity.WARNING
    assert (diag.file, diag.pointer) == ("deepseek/api-docs.txt", "/choices/0/delta/role")
    assert (
        (SPECS / "deepseek" / "api-docs.txt")
        .read_text(encoding="utf-8")
        .splitlines()[diag.line - 1]
        .startswith('data: {"choices": [{"delta": {"content": "", "role": null}')
    )
    assert "deepseek/asyncapi-page.txt:422 /components/schemas/ChatCompletionDelta/properties/role" in diag.message
    assert _delta_role(result.provider).schema.nullable  # type: ignore[attr-defined]


def test_unknown_enum_value_in_an_example_is_added() -> None:
    provider = load_provider(SPECS, "mistral").provider
    assert provider is not None
    data = (
        '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m",'
        '"choices":[{"index":0,"delta":{"role":"tool"},"finish_reason":"error"}]}'
    )
    stream = ExampleStream("s", "/chat/completions", (StreamEvent(data, line=7),), Provenance("mistral/page.md", 7))
    diagnostics = Diagnostics()
    widened = reconcile_examples(replace(provider, example_streams=(stream,)), diagnostics)
    assert sorted(d.pointer for d in diagnostics if d.code == "example-widened") == [
        "/choices/0/delta/role",
        "/choices/0/finish_reason",
    ]
    role = _delta_role(widened).schema  # type: ignore[attr-defined]
    assert role.enum == ("assistant", "tool")
    agents_choice = (
        widened.channel("/agents/completions").message("AgentCompletionChunk").payload.property("choices").schema.items
    )
    assert (
        "error" in agents_choice.property("finish_reason").schema.enum
    )  # one class (ChatStreamChoice), widened everywhere


def test_conforming_examples_change_nothing() -> None:
    provider = load_provider(SPECS, "mistral").provider
    diagnostics = Diagnostics()
    assert reconcile_examples(provider, diagnostics) is provider  # type: ignore[arg-type]
    assert not [d for d in diagnostics if d.code == "example-widened"]


#: An example that breaks a nullable object's member and a union alternative inside an array:
#: jsonschema reports both at the ``anyOf`` (the union, the nullable's ``null`` branch).
NESTED = """\
asyncapi: '2.6.0'
info: {title: r, version: '1'}
channels:
  /s:
    subscribe:
      message:
        name: m
        payload:
          type: object
          required: [type, items, d]
          properties:
            type: {type: string, const: m}
            items:
              type: array
              items:
                oneOf:
                  - {$ref: '#/components/schemas/A'}
                  - {$ref: '#/components/schemas/B'}
                discriminator: {propertyName: type}
            d:
              type: [object, 'null']
              properties:
                reason: {type: string, enum: [x, y]}
        examples:
          - payload: {"type": "m", "items": [{"type": "A"}], "d": {"reason": "z"}}
components:
  schemas:
    A: {type: object, required: [type, status], properties: {type: {type: string, const: A}, status: {type: string}}}
    B: {type: object, required: [type], properties: {type: {type: string, const: B}}}
"""


def test_examples_widen_members_inside_unions_and_nullable_objects(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The fix lands on the member that is wrong, in the alternative the example is of
    (its tag), not on the union; before, nothing was reported and the generated
    conformance test failed."""
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "asyncapi.yaml").write_text(NESTED, encoding="utf-8")
    result = load_provider(tmp_path, "r")
    assert result.provider is not None
    widened = sorted(d.pointer for d in result.diagnostics if d.code == "example-widened")
    assert widened == ["/d/reason", "/items/0"]
    [message] = result.provider.channels[0].messages
    items = message.payload.property("items")
    d = message.payload.property("d")
    assert items is not None and d is not None and items.schema.items is not None
    a = items.schema.items.alternative("A")
    assert a is not None and a.property("status") is not None and not a.property("status").required  # type: ignore[union-attr]
    assert d.schema.property("reason").schema.enum == ("x", "y", "z")  # type: ignore[union-attr]

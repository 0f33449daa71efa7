"""The package spec handed to the templates, and templates that only lay it out."""

from __future__ import annotations

import re
from dataclasses import replace

from conftest import SPECS

from codemodel.build_ir import channel, done, message, obj, provider, req, string
from ssegen.codemodel import build_package_spec
from ssegen.diagnostics import Diagnostics
from ssegen.ir import ErrorCode, Provenance
from ssegen.load import load_provider
from ssegen.output import templates_dir


def test_title_falls_back_to_the_provider_name() -> None:
    spec = build_package_spec(provider(), Diagnostics())
    assert (spec.title, spec.usage_address, spec.error_codes_source) == (
        "demo streaming API",
        "/chat/completions",
        "none documented",
    )


def test_summary_names_the_api_once() -> None:
    for title, summary in [
        ("Anthropic Messages streaming API", "Typed SSE decoding for the Anthropic Messages streaming API."),
        ("DeepSeek Streaming API (HTTP + SSE)", "Typed SSE decoding for the DeepSeek Streaming API (HTTP + SSE)."),
        ("Siliconstorm Reasoning", "Typed SSE decoding for the Siliconstorm Reasoning streaming API."),
        ("Rapid apis", "Typed SSE decoding for the Rapid apis."),
    ]:
        assert build_package_spec(provider(title=title), Diagnostics()).summary == summary


def test_classes_without_a_description_say_what_they_are_not_a_placeholder() -> None:
    spec = build_package_spec(load_provider(SPECS, "anthropic").provider, Diagnostics())
    docs = {c.name: c.doc for c in (*spec.classes, *spec.terminators)}
    assert docs["MessageStartEvent"] == "The payload of ``MessageStart`` messages."
    assert docs["TextBlock"] == "The ``text`` alternative of a union tagged by ``type``."
    assert docs["Message"] == "The value of member ``message`` of :class:`MessageStartEvent`."
    assert all(doc.strip() and "No description" not in doc for doc in docs.values())


def test_usage_example_opens_the_first_channel_and_error_codes_name_their_file() -> None:
    chunk = message("Chunk", obj("Chunk", req("id", string())))
    demo = provider(channel(chunk, done(), address="/v1/stream"), title="Demo API")
    demo = replace(demo, error_codes=(ErrorCode(400, "bad", Provenance("demo/errors.md", 3)),))
    spec = build_package_spec(demo, Diagnostics())
    assert (spec.title, spec.usage_address, spec.error_codes_source) == (
        "Demo API",
        "/v1/stream",
        "from demo/errors.md",
    )
    assert [c.name for c in spec.terminators] == ["Done"] and [c.name for c in spec.classes] == ["Chunk"]


def test_examples_name_the_class_their_channel_decodes_them_to() -> None:
    spec = build_package_spec(load_provider(SPECS, "deepseek").provider, Diagnostics())
    assert spec.examples and all(e.cls for e in spec.examples)
    assert {s.file for s in spec.streams} == {"examples/stream-example.sse"}


#: Jinja logic a template must not hold: comparisons, boolean operators, list filters, computed names.
_DECISION = re.compile(
    r"==|!=|\bor\b|\band\b|selectattr|rejectattr|\|\s*first|\|\s*upper|isascii|\{%-?\s*set\s+\w+\s*="
)


def test_templates_make_no_decisions() -> None:
    for path in sorted(templates_dir().glob("*.jinja")):
        tags = re.findall(r"\{[{%].*?[%}]\}", path.read_text(encoding="utf-8"), flags=re.S)
        code = [re.sub(r'"(?:[^"\\]|\\.)*"', '""', t) for t in tags]  # prose in string literals is not logic
        assert [t for t in code if _DECISION.search(t)] == [], path.name


def test_config_accepts_exactly_the_flavours_the_code_model_knows() -> None:
    from ssegen.codemodel import FLAVOURS
    from ssegen.config import MODEL_FLAVOURS

    assert MODEL_FLAVOURS == tuple(FLAVOURS)


def test_flavours_share_names_fields_and_decode_order() -> None:
    from ssegen.codemodel import MSGSPEC, PYDANTIC

    provider = load_provider(SPECS, "mistral").provider
    msgspec_spec = build_package_spec(provider, Diagnostics(), MSGSPEC)
    pydantic_spec = build_package_spec(provider, Diagnostics(), PYDANTIC)
    fields = [[(c.name, f.name, f.wire, f.required, f.doc) for f in c.fields] for c in msgspec_spec.classes]
    assert fields == [[(c.name, f.name, f.wire, f.required, f.doc) for f in c.fields] for c in pydantic_spec.classes]
    assert msgspec_spec.aliases == pydantic_spec.aliases
    assert [[m.cls for m in c.messages] for c in msgspec_spec.channels] == [
        [m.cls for m in c.messages] for c in pydantic_spec.channels
    ]
    [empty] = [f for c in pydantic_spec.classes for f in c.fields if "max_length=0" in f.annotation]
    assert empty.annotation == "Annotated[list[ChatStreamChoice], pydantic.Field(max_length=0)]"
    assert {m.adapter for c in pydantic_spec.channels for m in c.messages if m.literal is None} >= {
        "pydantic.TypeAdapter(ChatCompletionChunk)"
    }


def test_every_alias_a_models_module_defines_is_named_by_a_field() -> None:
    """A tag member's enum, first given an alias, is typed by the tag's own ``Literal`` once its
    class is rebuilt with its tags: the alias (``ResponseCreatedEventType``) is not emitted."""
    loaded = load_provider(SPECS, "openai_responses")
    assert loaded.provider is not None
    spec = build_package_spec(loaded.provider, Diagnostics())
    annotations = " ".join(f.annotation for c in (*spec.classes, *spec.requests.classes) for f in c.fields)
    assert spec.aliases
    for alias in (*spec.aliases, *spec.requests.aliases):
        assert re.search(rf"\b{alias.name}\b", annotations), alias.name
    assert "ResponseCreatedEventType" not in {a.name for a in spec.aliases}
    created = next(c for c in spec.classes if c.name == "ResponseCreatedEvent")
    assert next(f for f in created.fields if f.wire == "type").annotation == "Literal['response.created']"

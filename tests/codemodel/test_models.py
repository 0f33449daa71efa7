"""The models module's decisions: class names, field identifiers, lenient type expressions."""

from __future__ import annotations

from codemodel.build_ir import HERE, array, done, integer, message, obj, opt, req, string
from ssegen.codemodel.models import ModelsBuilder, field_identifiers
from ssegen.diagnostics import Diagnostics
from ssegen.ir import Schema
from ssegen.naming import ClassName, PythonIdentifier


def _builder() -> tuple[ModelsBuilder, Diagnostics]:
    diagnostics = Diagnostics()
    return ModelsBuilder(diagnostics), diagnostics


def _codes(diagnostics: Diagnostics) -> list[str]:
    return [d.code for d in diagnostics.items]


def test_string_enum_is_a_literal_alias_that_still_accepts_any_string() -> None:
    models, _ = _builder()
    finish = Schema("string", HERE, name="FinishReason", enum=("stop", "length"))
    assert models.annotation(finish) == "FinishReason | str"
    assert [(a.name, a.values) for a in models.aliases] == [("FinishReason", ("stop", "length"))]


def test_integer_enum_beyond_64_bits_stays_plain_int() -> None:
    models, _ = _builder()
    assert models.annotation(Schema("integer", HERE, name="Big", enum=(1, 2**70))) == "int"
    assert models.aliases == []


def test_optional_or_nullable_member_accepts_none_but_any_stays_any() -> None:
    models, _ = _builder()
    assert models.annotation(string(), optional=True) == "str | None"
    assert models.annotation(string(nullable=True)) == "str | None"
    assert models.annotation(Schema("any", HERE), optional=True) == "Any"


def test_max_items_zero_constrains_decoding_to_an_empty_list() -> None:
    models, _ = _builder()
    assert models.annotation(array(integer(), max_items=0)) == "Annotated[list[int], msgspec.Meta(max_length=0)]"


def test_union_with_an_object_variant_is_any() -> None:
    models, _ = _builder()
    union = Schema("union", HERE, variants=(string(), obj("Part", req("a", string()))))
    assert models.annotation(union) == "Any"
    assert models.annotation(Schema("union", HERE, variants=(string(), integer()))) == "str | int"


def test_object_without_members_is_a_plain_dict_and_no_payload_class() -> None:
    models, _ = _builder()
    assert models.annotation(obj("Empty")) == "dict[str, Any]"
    assert models.payload_class(obj("Empty")) is None
    assert models.classes == []


def test_required_fields_come_first_then_optional_ones_in_source_order() -> None:
    models, _ = _builder()
    models.payload_class(obj("Chunk", opt("b", string()), req("a", string()), opt("c", string()), req("d", string())))
    (chunk,) = models.classes
    assert [(f.name, f.required) for f in chunk.fields] == [("a", True), ("d", True), ("b", False), ("c", False)]


def test_required_member_that_may_be_null_is_required_and_typed_with_none() -> None:
    # No default: a decoded event holds None only where the wire sent null, and a payload
    # lacking it is decoded leniently, the absence recorded (tests/runtime/test_hostile_roundtrip.py).
    models, _ = _builder()
    models.payload_class(obj("Chunk", req("role", string(nullable=True))))
    (field,) = models.classes[0].fields
    assert (field.required, field.annotation) == (True, "str | None")


def test_field_alias_is_the_wire_name_only_when_it_differs_from_the_identifier() -> None:
    models, _ = _builder()
    models.payload_class(obj("Chunk", req("finishReason", string()), req("id", string())))
    assert [(f.name, f.alias) for f in models.classes[0].fields] == [("finish_reason", "finishReason"), ("id", None)]


def test_members_mapping_to_one_identifier_get_trailing_underscores_and_a_warning() -> None:
    models, diagnostics = _builder()
    schema = obj("Chunk", opt("x-y", string()), opt("x_y", string()))
    assert field_identifiers(schema) == {"x-y": "x_y", "x_y": "x_y_"}
    models.payload_class(schema)
    assert "identifier-collision" in _codes(diagnostics)
    assert all(isinstance(i, PythonIdentifier) for i in field_identifiers(schema).values())


def test_keyword_member_is_renamed_with_an_info() -> None:
    models, diagnostics = _builder()
    models.payload_class(obj("Chunk", opt("class", string())))
    assert models.classes[0].fields[0].name == "class_"
    assert _codes(diagnostics) == ["identifier-renamed"]


def test_two_schemas_with_one_name_are_told_apart_by_their_place_with_a_warning() -> None:
    models, diagnostics = _builder()
    first = models.payload_class(obj("Delta", req("a", string()), pointer="/components/schemas/Chunk/properties/delta"))
    second = models.payload_class(obj("Delta", req("b", string()), pointer="/components/schemas/Tool/properties/delta"))
    assert (first, second) == ("Delta", "ToolDelta")
    assert isinstance(second, ClassName)
    assert _codes(diagnostics) == ["name-conflict"]


def test_same_schema_used_twice_is_one_class() -> None:
    models, _ = _builder()
    schema = obj("Usage", req("total", integer()))
    assert models.payload_class(schema) == models.payload_class(schema) == "Usage"
    assert len(models.classes) == 1


def test_terminator_named_like_a_class_gets_an_event_suffix() -> None:
    models, _ = _builder()
    models.payload_class(obj("Done", req("a", string())))
    assert models.terminator(done()) == "DoneEvent"
    (terminator,) = models.terminators
    assert (terminator.literal, [f.name for f in terminator.fields]) == ("[DONE]", ["data"])


def test_terminators_with_one_literal_share_their_class() -> None:
    models, _ = _builder()
    assert (
        models.terminator(done()) == models.terminator(message("Done", string("[DONE]"), kind="terminator")) == "Done"
    )
    assert len(models.terminators) == 1

"""Field rows -> properties, shared by both page loaders (src/ssegen/sources/pages/fields.py)."""

from __future__ import annotations

from ssegen.ir import Property, Provenance
from ssegen.sources.pages.fields import FieldRow, dotted_rows, field_property, is_conditional


def _row(
    name: str, cell: str, description: str = "", line: int = 1, children: list[FieldRow] | None = None
) -> FieldRow:
    return FieldRow(name, cell, description, Provenance("p.md", line, f"/rows/{line}"), children or [])


def _property(row: FieldRow, name: str = "Chunk") -> tuple[Property, list[str]]:
    codes: list[str] = []
    return field_property(row, name, lambda code, message, prov: codes.append(code.name)), codes


def test_dotted_names_nest_under_implicit_parents_at_the_first_nested_row() -> None:
    rows = dotted_rows([_row("a.b", "string", line=3), _row("a.c", "integer", line=4), _row("d", "string", line=5)])
    assert [(r.name, r.implicit, [c.name for c in r.children]) for r in rows] == [
        ("a", True, ["b", "c"]),
        ("d", False, []),
    ]
    prop, _ = _property(rows[0], "ChunkA")
    assert (prop.schema.type, prop.schema.name, prop.required, prop.provenance.line) == ("object", "ChunkA", False, 3)


def test_a_prefix_keeps_only_the_rows_under_it() -> None:
    rows = dotted_rows([_row("logprobs.content", "array"), _row("other", "string")], prefix=("logprobs",))
    assert [r.name for r in rows] == ["content"]


def test_nested_rows_of_an_array_are_its_items_named_from_the_item() -> None:
    row = _row(
        "choices",
        "list",
        children=[_row("index", "integer"), _row("delta", "object", children=[_row("content", "string")])],
    )
    prop, codes = _property(row, "ChunkChoices")
    items = prop.schema.items
    assert items is not None and (items.name, [p.name for p in items.properties]) == ("ChunkChoice", ["index", "delta"])
    assert items.properties[1].schema.name == "ChunkChoiceDelta" and codes == []


def test_nested_rows_of_a_scalar_make_an_object_and_are_reported() -> None:
    prop, codes = _property(_row("meta", "string | null", children=[_row("x", "string")]), "ChunkMeta")
    assert (prop.schema.type, prop.schema.nullable, codes) == ("object", True, ["table-children-ignored-type"])


def test_a_stated_only_value_is_a_one_value_enum() -> None:
    prop, _ = _property(_row("object", "string", 'Always "chat.completion.chunk".'), "ChunkObject")
    assert (prop.schema.enum, prop.schema.name) == (("chat.completion.chunk",), "ChunkObject")


def test_listed_values_are_the_enum_when_no_only_value_is_stated() -> None:
    row = _row("finish_reason", "string", "- stop: done\n- length: cut")
    prop = field_property(row, "F", lambda *a: None, listed_values=lambda d: ["stop", "length"])
    assert prop.schema.enum == ("stop", "length")


def test_conditional_wording_makes_a_member_optional_unless_always_present() -> None:
    assert is_conditional("Present only in the final chunk.") and is_conditional("optional, when known")
    assert not is_conditional("Always present, may be null.") and not is_conditional("Model identifier.")
    assert _property(_row("usage", "object | null", "Present only in the final chunk."))[0].required is False

"""The one Type-cell splitter and type-name mapping (src/ssegen/sources/pages/cells.py)."""

from __future__ import annotations

from ssegen.diagnostics import Code, codes
from ssegen.ir import Provenance
from ssegen.sources.pages.cells import is_type_cell, type_schema, type_words

PROV = Provenance("page.md", 7, "/sections/x/tables/0/rows/0")


def _schema(cell: str) -> tuple[object, list[tuple[Code, str]]]:
    reports: list[tuple[Code, str]] = []
    return type_schema(cell, PROV, "Member", lambda *args: reports.append(args)), reports


def test_cell_splits_on_pipes_commas_and_or_with_backticks_dropped() -> None:
    assert type_words("`string` | null") == ["string", "null"]
    assert type_words("string or integer") == ["string", "integer"]
    assert type_words("Array, NULL") == ["array", "null"]
    assert type_words("") == []


def test_a_cell_of_type_words_only_is_a_type_cell() -> None:
    assert is_type_cell("string | null") and is_type_cell("int") and is_type_cell("list or dict")
    assert not is_type_cell("") and not is_type_cell("string of tokens") and not is_type_cell("the text so far")


def test_null_makes_the_one_other_type_nullable() -> None:
    schema, reports = _schema("string | null")
    assert (schema.type, schema.nullable, reports) == ("string", True, [])


def test_two_types_are_a_union_named_for_the_member() -> None:
    schema, reports = _schema("string or integer")
    assert (schema.type, schema.name, [v.type for v in schema.variants], reports) == (
        "union",
        "Member",
        ["string", "integer"],
        [],
    )


def test_documentation_type_names_map_to_json_types() -> None:
    assert [_schema(cell)[0].type for cell in ("int", "float", "list", "dict", "bool", "str")] == [
        "integer",
        "number",
        "array",
        "object",
        "boolean",
        "string",
    ]
    assert _schema("dict")[0].name == "Member"


def test_an_unknown_word_is_any_json_and_reported() -> None:
    schema, reports = _schema("tensor")
    assert schema.type == "any"
    assert [code for code, _ in reports] == [codes.TYPE_UNKNOWN]
    assert "'tensor'" in reports[0][1]


def test_an_empty_cell_is_any_json_and_a_lone_null_is_null() -> None:
    assert _schema("")[0].type == "any"
    assert (_schema("null")[0].type, _schema("null")[0].nullable) == ("null", True)

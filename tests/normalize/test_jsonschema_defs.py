"""``schemas.json`` writes each schema once (``$defs``): references kept as written validate as
the copies they replace, two schemas of one name are both kept, and no fan-out grows it
exponentially."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from conftest import ROOT
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from ssegen.load import load_provider
from ssegen.normalize.jsonschema import INLINE_LIMIT, export_provider

FAN_OUT = ROOT / "tests" / "specs_with_errors" / "ref-fan-out-pattern-properties"


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    folder = tmp_path / "specs" / "p"
    folder.mkdir(parents=True)
    (folder / "asyncapi.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return tmp_path / "specs"


def _document(schemas: dict[str, Any], payload: Any) -> dict[str, Any]:
    return {
        "asyncapi": "2.6.0",
        "info": {"title": "T", "version": "1"},
        "channels": {"/s": {"subscribe": {"message": {"name": "Event", "payload": payload}}}},
        "components": {"schemas": schemas},
    }


def _export(specs: Path, name: str = "p") -> dict[str, Any]:
    provider = load_provider(specs, name).provider
    assert provider is not None
    return export_provider(provider)


def _validator(doc: dict[str, Any], message: str = "Event") -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$defs": doc["$defs"], **doc["channels"]["/s"][message]})


def _expand(node: Any, doc: dict[str, Any]) -> Any:
    """``node`` of the source ``doc`` with every local ``$ref`` replaced by a copy of its target
    (what the loader wrote into ``schemas.json`` before references were kept)."""
    if isinstance(node, list):
        return [_expand(item, doc) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str):
        target: Any = doc
        for token in node["$ref"].removeprefix("#/").split("/"):
            target = target[token]
        return _expand(target, doc)
    return {key: _expand(value, doc) for key, value in node.items()}


def _resolved(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` of ``schemas.json`` with each ``$ref`` into ``defs`` replaced by the entry, as
    JSON Schema resolves it (the ``referencing`` library: RFC 6901 pointer, percent-decoded)."""
    resolver = Registry().with_resource("urn:t", DRAFT202012.create_resource({"$defs": defs})).resolver("urn:t")

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(item) for item in value]
        if not isinstance(value, dict):
            return value
        if set(value) == {"$ref"}:
            return walk(resolver.lookup(value["$ref"]).contents)
        return {key: walk(item) for key, item in value.items()}

    return walk(node)


def _fan(levels: int, fan: int) -> dict[str, Any]:
    """``fan`` references to the next level per level under patternProperties, the last a leaf."""
    schemas: dict[str, Any] = {}
    for level in range(levels):
        refs = {f"^p{i}": {"$ref": f"#/components/schemas/L{level + 1}"} for i in range(fan)}
        schemas[f"L{level}"] = {"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": refs}
    schemas[f"L{levels}"] = {"type": "object", "properties": {"x": {"enum": ["leaf"]}}, "required": ["x"]}
    return schemas


def test_references_kept_as_written_resolve_to_the_copies_they_replace(tmp_path: Path) -> None:
    """Every keyword kept as written, with its references resolved, is exactly the copy the
    loader used to inline, so conform and the conformance tests validate the same instances."""
    schemas = _fan(3, 3)
    schemas["L0"]["not"] = {"$ref": "#/components/schemas/L2"}
    schemas["L0"]["prefixItems"] = [{"$ref": "#/components/schemas/L3"}]
    source = _document(schemas, {"$ref": "#/components/schemas/L0"})
    doc = _export(_write(tmp_path, source))
    top = doc["$defs"]["L0"]
    for keyword in ("patternProperties", "not", "prefixItems"):
        assert _resolved(top[keyword], doc["$defs"]) == _expand(schemas["L0"][keyword], source)
    refs = {json.dumps(r) for r in top["patternProperties"].values()}
    assert refs == {'{"$ref": "#/$defs/p~1asyncapi.json%23~1components~1schemas~1L1"}'}  # one entry, three uses


def test_a_deep_instance_is_checked_through_the_references(tmp_path: Path) -> None:
    source = _document(_fan(4, 10), {"$ref": "#/components/schemas/L0"})
    validator = _validator(_export(_write(tmp_path, source)))

    def nested(leaf: Any) -> Any:
        return {"x": "0", "p1": {"p9": {"p0": {"p4": leaf}}}}

    assert validator.is_valid(nested({"x": "leaf"}))
    assert not validator.is_valid(nested({"x": "other"}))
    assert not validator.is_valid(nested({}))
    [error] = validator.iter_errors(nested({"x": "other"}))
    assert list(error.absolute_path) == ["p1", "p9", "p0", "p4", "x"]


def test_a_nine_level_fan_out_of_kept_references_is_linear_in_the_spec() -> None:
    """The hostile corpus case: 10^9 copies before; each level's target written once now."""
    spec = FAN_OUT / "demo" / "asyncapi.json"
    doc = _export(FAN_OUT, "demo")
    assert len(json.dumps(doc)) < 4 * spec.stat().st_size
    assert len(doc["$defs"]) == 10  # L0 (the payload's class) and the nine targets kept as written
    validator = _validator_of(doc)
    deep: Any = {"x": "leaf"}
    for level in range(9):
        deep = {f"p{level}": deep}
    assert validator.is_valid(deep)
    deep_bad: Any = {"x": "not the leaf"}
    for level in range(9):
        deep_bad = {f"p{level}": deep_bad}
    assert not validator.is_valid(deep_bad)


def _validator_of(doc: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$defs": doc["$defs"], **doc["channels"]["/stream"]["Event"]})


def _union_fan_out(tmp_path: Path, levels: int) -> tuple[dict[str, Any], Path]:
    """The exported schemas of ``levels`` levels of ten array variants each (a union per level)."""
    schemas = {
        f"L{level}": {
            "anyOf": [
                {"type": "array", "maxItems": i + 1, "items": {"$ref": f"#/components/schemas/L{level + 1}"}}
                for i in range(10)
            ]
        }
        for level in range(levels)
    }
    schemas[f"L{levels}"] = {"type": "object", "properties": {"x": {"type": "string", "enum": ["leaf"]}}}
    source = _document(schemas, {"type": "object", "properties": {"u": {"$ref": "#/components/schemas/L0"}}})
    specs = _write(tmp_path, source)
    return _export(specs), specs


def test_a_fan_out_of_unions_through_members_is_written_once_past_the_inline_limit(tmp_path: Path) -> None:
    """Unions are written inline (they are no class); shared ones of more than INLINE_LIMIT bytes
    go to $defs once, so ten variants per level, six levels deep, stay small."""
    doc, specs = _union_fan_out(tmp_path / "six", 6)
    size = len(json.dumps(doc))
    assert size < 8 * (specs / "p" / "asyncapi.json").stat().st_size, size  # was 10^6 copies of L6
    hoisted = [key for key in doc["$defs"] if "#" in key]
    assert hoisted and all(len(json.dumps(doc["$defs"][key], separators=(",", ":"))) > INLINE_LIMIT for key in hoisted)
    # What the references admit, checked three levels deep: a failing instance makes jsonschema try
    # every branch of every level's anyOf (10^levels paths), minutes at six levels.
    doc, _ = _union_fan_out(tmp_path / "three", 3)
    assert [key for key in doc["$defs"] if "#" in key]
    validator = _validator(doc)
    assert validator.is_valid({"u": [[[{"x": "leaf"}]]]})
    assert not validator.is_valid({"u": [[[{"x": "other"}]]]})
    assert validator.is_valid({"u": [[[{"x": "leaf"}, {"x": "leaf"}]]]})  # maxItems 2 to 10 admit two
    assert not validator.is_valid({"u": [[[{"x": "leaf"}] * 11]]})


def test_two_different_schemas_of_one_name_are_both_kept(tmp_path: Path) -> None:
    """Two inline objects titled Delta with different members: each keeps its own entry, told
    apart by six hex digits of its entry's SHA-256, the same on every run."""
    payload = {
        "type": "object",
        "properties": {
            "a": {"title": "Delta", "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            "b": {"title": "Delta", "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        },
    }
    specs = _write(tmp_path, _document({}, payload))
    doc = _export(specs)
    keys = sorted(k for k in doc["$defs"] if k.startswith("Delta"))
    assert len(keys) == 2 and all(len(k) == len("Delta-") + 6 for k in keys), keys
    members = doc["$defs"]["Event"]["properties"]
    a, b = (members[m]["$ref"].removeprefix("#/$defs/") for m in ("a", "b"))
    assert {a, b} == set(keys)
    assert doc["$defs"][a]["required"] == ["text"] and doc["$defs"][b]["required"] == ["n"]
    validator = _validator(doc)
    assert validator.is_valid({"a": {"text": "x"}, "b": {"n": 1}})
    assert not validator.is_valid({"a": {"text": "x"}, "b": {"text": "x"}})  # b is not the first Delta
    assert _export(specs) == doc


def test_one_schema_used_under_one_name_twice_is_one_entry(tmp_path: Path) -> None:
    delta = {"type": "object", "properties": {"text": {"type": "string"}}}
    payload = {
        "type": "object",
        "properties": {"a": {"$ref": "#/components/schemas/Delta"}, "b": {"$ref": "#/components/schemas/Delta"}},
    }
    doc = _export(_write(tmp_path, _document({"Delta": delta}, payload)))
    assert sorted(doc["$defs"]) == ["Delta", "Event"]


def test_conform_inlines_entries_keyed_where_they_are_written(tmp_path: Path) -> None:
    """conform validates against the schema with each entry inlined; a key holding `/` and `#`
    (percent-encoded in the reference) is inlined too, not left to be resolved per event."""
    from ssegen.conform import _inlined

    source = _document(_fan(2, 2), {"$ref": "#/components/schemas/L0"})
    doc = _export(_write(tmp_path, source))
    payload, _ = _inlined({"$defs": doc["$defs"], **doc["channels"]["/s"]["Event"]})["allOf"]
    assert "$ref" not in json.dumps(payload)
    assert payload["patternProperties"]["^p0"]["patternProperties"]["^p1"]["required"] == ["x"]


def _tree() -> dict[str, Any]:
    """A tree whose members named ``n...`` are trees, and whose ``not`` refers back to it too."""
    tree = {
        "type": "object",
        "properties": {"leaf": {"type": "string"}},
        "patternProperties": {"^n": {"$ref": "#/components/schemas/Tree"}},
        "not": {"required": ["forbidden"]},
    }
    return {"Tree": tree}


def test_a_reference_back_to_a_schema_it_is_inside_is_kept_as_a_cycle(tmp_path: Path) -> None:
    """A kept keyword leading back to the schema it is in is checked at every depth, as the source
    means, where it used to be cut to ``{}`` (any JSON) at the second level without a word."""
    source = _document(_tree(), {"$ref": "#/components/schemas/Tree"})
    result = load_provider(_write(tmp_path, source), "p")
    assert result.provider is not None and not [d for d in result.diagnostics.items if d.code.startswith("ref-")]
    doc = export_provider(result.provider)
    validator = _validator(doc)
    deep = {"leaf": "a", "n1": {"n2": {"n3": {"leaf": "b"}}}}
    assert validator.is_valid(deep)
    assert not validator.is_valid({"leaf": "a", "n1": {"n2": {"n3": {"leaf": 5}}}})
    assert not validator.is_valid({"n1": {"n2": {"n3": {"forbidden": 1}}}})
    entry = doc["$defs"]["p/asyncapi.json#/components/schemas/Tree"]
    assert entry["patternProperties"] == {"^n": {"$ref": "#/$defs/p~1asyncapi.json%23~1components~1schemas~1Tree"}}


def test_the_ir_export_writes_the_cycle_as_a_reference_back_to_its_entry(tmp_path: Path) -> None:
    from ssegen.irjson import to_jsonable

    provider = load_provider(_write(tmp_path, _document(_tree(), {"$ref": "#/components/schemas/Tree"})), "p").provider
    first, again = to_jsonable(provider), to_jsonable(provider)
    assert first == again  # deterministic
    entry = first["$defs"]["p/asyncapi.json#/components/schemas/Tree"]
    assert entry["patternProperties"] == {"^n": {"$ref": "#/$defs/p~1asyncapi.json%23~1components~1schemas~1Tree"}}


def test_a_chain_of_references_past_the_depth_limit_is_reported_where_it_is_cut(tmp_path: Path) -> None:
    schemas = {f"S{i}": {"not": {"$ref": f"#/components/schemas/S{i + 1}"}} for i in range(40)}
    schemas["S40"] = {"type": "string"}
    payload = {"type": "object", "properties": {"x": {"type": "string"}}, "not": {"$ref": "#/components/schemas/S0"}}
    result = load_provider(_write(tmp_path, _document(schemas, payload)), "p")
    [diagnostic] = [d for d in result.diagnostics.items if d.code == "ref-too-deep"]
    assert diagnostic.severity == "warning" and diagnostic.pointer.endswith("/not/$ref")

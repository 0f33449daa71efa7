"""The printed IR (``ssegen.irjson``): every schema written once, references at the use sites,
nothing lost, the same text however the IR's objects are shared."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from codemodel.build_ir import channel, message, obj, opt, provider, req, string
from conftest import SPECS
from helpers.ir import inline_schemas

from ssegen.ir import AccumulateStep, Property, Provenance, Schema
from ssegen.irjson import DEFS, dumps, to_jsonable
from ssegen.load import load_provider


def _fan(levels: int, fan: int = 10) -> Schema:
    """Level ``levels`` down to a leaf, each level's ``fan`` members all the next level."""
    schema = obj("Leaf", opt("x", string()))
    for level in range(levels, 0, -1):
        schema = obj(f"L{level}", *(opt(f"p{i}", schema) for i in range(fan)))
    return schema


def _asdict(node: Any) -> Any:
    """The IR node as the tree ``dataclasses.asdict`` gives, through JSON (tuples as lists),
    accumulation steps as a plan states them (``AccumulateStep.to_plan``, as printed)."""
    return json.loads(json.dumps(_tree(node)))


def _tree(value: Any) -> Any:
    if isinstance(value, AccumulateStep):
        return value.to_plan()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _tree(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_tree(item) for item in value]
    if isinstance(value, dict):
        return {key: _tree(item) for key, item in value.items()}
    return value


def _printed(node: Any) -> Any:
    return json.loads(dumps(node))


def _refs(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list):
        return [ref for item in value for ref in _refs(item)]
    if not isinstance(value, dict):
        return []
    if "$ref" in value:
        return [value]
    return [ref for item in value.values() for ref in _refs(item)]


@pytest.mark.parametrize("name", sorted(p.name for p in SPECS.iterdir() if p.is_dir()))
def test_every_seed_reads_back_to_the_whole_tree(name: str) -> None:
    """No fact (provenance included) is lost: references resolved give the old tree form."""
    loaded = load_provider(SPECS, name).provider
    assert loaded is not None
    printed = _printed(loaded)
    assert inline_schemas(printed) == _asdict(loaded)
    wrapped = json.loads(json.dumps({"ir": to_jsonable(loaded, base="#/ir")}))
    assert inline_schemas(wrapped)["ir"] == _asdict(loaded)


def test_a_fan_out_of_a_billion_leaves_prints_each_level_once() -> None:
    chan = channel(message("Event", _fan(9)), address="/stream")
    printed = _printed(provider(chan))
    assert sorted(printed[DEFS]) == ["L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8", "L9", "Leaf"]
    assert printed["channels"][0]["messages"][0]["payload"] == {"$ref": "#/$defs/L1"}
    assert [p["schema"] for p in printed[DEFS]["L4"]["properties"]] == [{"$ref": "#/$defs/L5"}] * 10
    assert len(_refs(printed)) == 1 + 9 * 10


def test_printed_size_grows_linearly_with_the_levels() -> None:
    sizes = [
        len(dumps(provider(channel(message("Event", _fan(levels)), address="/stream")))) for levels in range(1, 10)
    ]
    steps = {b - a for a, b in zip(sizes, sizes[1:], strict=False)}
    assert len(steps) == 1, sizes  # each level adds one entry of ten references, whatever the depth


def test_a_schema_nullable_at_one_use_is_one_entry_with_the_flag_at_that_use() -> None:
    usage = obj("Usage", req("tokens", string()))
    chunk = obj("Chunk", opt("usage", dataclasses.replace(usage, nullable=True)), opt("final", usage))
    printed = _printed(chunk)
    assert printed["$ref"] == "#/$defs/Chunk"
    assert sorted(printed[DEFS]) == ["Chunk", "Usage"]
    assert printed[DEFS]["Usage"]["nullable"] is False
    members = {p["name"]: p["schema"] for p in printed[DEFS]["Chunk"]["properties"]}
    assert members == {"usage": {"$ref": "#/$defs/Usage", "nullable": True}, "final": {"$ref": "#/$defs/Usage"}}
    assert inline_schemas(printed) == _asdict(chunk)


def test_two_schemas_of_one_name_are_told_apart_by_content_hash() -> None:
    first = obj("Delta", req("text", string()), pointer="/components/schemas/Delta")
    second = obj("Delta", req("text", string()), req("index", string()), pointer="/x/Delta")
    root = obj("Root", req("a", first), req("b", second))
    printed = _printed(root)
    keys = sorted(k for k in printed[DEFS] if k.startswith("Delta"))
    assert len(keys) == 2 and all(len(k) == len("Delta-") + 6 for k in keys)
    members = {p["name"]: p["schema"]["$ref"].rsplit("/", 1)[1] for p in printed[DEFS]["Root"]["properties"]}
    assert printed[DEFS][members["a"]]["provenance"]["pointer"] == "/components/schemas/Delta"
    assert printed[DEFS][members["b"]]["provenance"]["pointer"] == "/x/Delta"
    assert inline_schemas(printed) == _asdict(root)


def test_an_unnamed_schema_used_once_stays_inline_and_a_shared_one_is_keyed_by_its_place() -> None:
    shared = Schema("string", Provenance("demo/a b.yaml", 3, "/components/schemas/Id~x"), description="An id.")
    alone = Schema("integer", Provenance("demo/spec.yaml", 4, "/n"))
    root = obj("Root", req("id", shared), req("parent", shared), req("n", alone))
    printed = _printed(root)
    assert sorted(printed[DEFS]) == ["Root", "demo/a b.yaml#/components/schemas/Id~x"]
    members = {p["name"]: p["schema"] for p in printed[DEFS]["Root"]["properties"]}
    assert members["id"] == members["parent"] == {"$ref": "#/$defs/demo~1a%20b.yaml%23~1components~1schemas~1Id~0x"}
    assert members["n"]["type"] == "integer" and members["n"]["provenance"]["pointer"] == "/n"
    assert inline_schemas(printed) == _asdict(root)


def test_output_does_not_depend_on_how_objects_are_shared() -> None:
    """Equal schemas built twice (the loader may convert one definition at two places) print as
    one entry, exactly as when one object is used twice."""
    shared = obj("Usage", req("tokens", string()))
    twice = obj("Chunk", opt("a", shared), opt("b", shared))
    copies = obj(
        "Chunk", opt("a", obj("Usage", req("tokens", string()))), opt("b", obj("Usage", req("tokens", string())))
    )
    assert shared is not copies.properties[0].schema
    assert dumps(twice) == dumps(copies)


def test_entries_and_keys_are_sorted() -> None:
    root = obj("Root", *(req(name, obj(name, req("x", string()))) for name in ("Zeta", "Alpha", "Mid")))
    text = dumps(provider(channel(message("Root", root))))
    keys = list(json.loads(text)[DEFS])
    assert keys == sorted(keys) and [k for k in keys if "#" not in k] == ["Alpha", "Mid", "Root", "Zeta"]
    assert text.index('"$defs"') < text.index('"channels"')


def test_only_ir_nodes_are_printed() -> None:
    with pytest.raises(TypeError, match="IR dataclass"):
        to_jsonable({"type": "object"})
    with pytest.raises(TypeError, match="IR dataclass"):
        to_jsonable(Schema)


def test_a_property_keeps_its_own_provenance_beside_the_reference() -> None:
    member = Property("usage", obj("Usage", req("x", string())), False, "At the use site.", Provenance("f", 9, "/u"))
    printed = _printed(obj("Chunk", member))
    [prop] = printed[DEFS]["Chunk"]["properties"]
    assert prop["provenance"] == {"file": "f", "line": 9, "pointer": "/u"}
    assert prop["description"] == "At the use site." and prop["schema"] == {"$ref": "#/$defs/Usage"}


def test_a_schema_the_request_and_the_stream_share_is_one_entry() -> None:
    """Gemini's ``Content`` is a turn of the request's ``contents`` and each candidate's
    answer: one ``$defs`` entry, referenced from both sides."""
    loaded = load_provider(SPECS, "gemini").provider
    assert loaded is not None
    printed = _printed(loaded)
    defs = printed[DEFS]
    (channel,) = printed["channels"]
    body = defs[channel["request"]["body"]["schema"]["$ref"].rsplit("/", 1)[-1]]
    contents = next(p for p in body["properties"] if p["name"] == "contents")
    candidate = next(p for p in defs["Candidate"]["properties"] if p["name"] == "content")
    assert contents["schema"]["items"] == {"$ref": f"#/{DEFS}/Content"} == candidate["schema"]
    assert [key for key in defs if key.startswith("Content")] == ["Content"]

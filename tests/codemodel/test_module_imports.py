"""The classes ``channels.py`` and ``client.py`` import by name, and the names a class never takes."""

from __future__ import annotations

from dataclasses import dataclass

from codemodel.build_ir import obj, req, string
from ssegen.codemodel.models import ModelsBuilder
from ssegen.codemodel.module_imports import BOUND_NAMES, used_names
from ssegen.diagnostics import Diagnostics


@dataclass(frozen=True)
class _Row:
    expr: str
    doc: str
    rows: tuple[tuple[str, str], ...]


def test_names_used_in_code_strings_are_found_and_prose_is_skipped() -> None:
    spec = _Row(
        "msgspec.json.Decoder(Chunk).decode",
        "Chunk of a Delta (the doc names classes that are not used)",
        (("Union[Chunk, Usage]", "each(on_unknown)"),),
    )
    assert used_names([spec, {"Delta": 1}], {"Chunk", "Usage", "Delta", "Error"}) == ("Chunk", "Delta", "Usage")
    assert used_names([spec], {"Error"}) == ()


def test_a_name_the_generated_modules_bind_is_never_a_class_name() -> None:
    diagnostics = Diagnostics()
    models = ModelsBuilder(diagnostics)
    assert "Channel" in BOUND_NAMES
    name = models.payload_class(obj("Channel", req("id", string())))
    assert name is not None and name != "Channel" and name not in BOUND_NAMES
    [conflict] = [d for d in diagnostics.items if d.code == "name-conflict"]
    assert "channels.py or client.py binds the name 'Channel'" in conflict.message

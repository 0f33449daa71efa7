"""The ``requests`` module imports from ``models`` the classes that are the same, and only those."""

from __future__ import annotations

import importlib

from conftest import SPECS

from ssegen.codemodel import build_package_spec
from ssegen.codemodel.clients import RequestModels
from ssegen.codemodel.models import AliasSpec, ClassSpec, FieldSpec
from ssegen.codemodel.shared_requests import share_with_models
from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider
from ssegen.naming import ClassName, PythonIdentifier


def _cls(name: str, annotation: str, doc: str = "") -> ClassSpec:
    field = FieldSpec(PythonIdentifier.verbatim("value"), "value", annotation, False, doc)
    return ClassSpec(ClassName.verbatim(name), f"A {name}.", (field,))


def test_an_equal_class_naming_only_shared_ones_is_imported_from_models() -> None:
    part, content = _cls("Part", "str | None"), _cls("Content", "list[Part] | None")
    body = _cls("Body", "list[Content] | None")
    role = AliasSpec(ClassName.verbatim("Role"), ("user", "model"), "")
    shared = share_with_models(RequestModels((body, content, part), (role,)), [content, part], [role])
    assert shared.shared == ("Content", "Part", "Role")
    assert [c.name for c in shared.classes] == ["Body"]
    assert shared.aliases == ()
    assert shared.names == frozenset({"Body"})


def test_a_class_differing_in_a_field_doc_or_naming_a_differing_class_stays() -> None:
    """Equal names are not enough: the docstring differs (``Part``), so ``Content``, equal itself,
    names a request ``Part`` that is not the models one, and stays too."""
    request_part, model_part = _cls("Part", "str | None", "sent"), _cls("Part", "str | None", "received")
    content = _cls("Content", "list[Part] | None")
    shared = share_with_models(RequestModels((content, request_part), ()), [content, model_part], [])
    assert shared.shared == ()
    assert [c.name for c in shared.classes] == ["Content", "Part"]


def test_gemini_requests_import_content_and_part_from_models_and_client_imports_them_there() -> None:
    loaded = load_provider(SPECS, "gemini")
    assert loaded.provider is not None
    spec = build_package_spec(loaded.provider, Diagnostics())
    assert {"Content", "Part", "FunctionCall"} <= set(spec.requests.shared)
    assert "GenerateContentRequest" in spec.requests.names
    assert "Content" in spec.client_model_imports
    assert "Content" not in spec.client_imports
    defined = {c.name for c in spec.classes} | {a.name for a in spec.aliases}
    assert set(spec.requests.shared) <= defined


def test_the_generated_requests_module_re_exports_the_models_class_itself() -> None:
    requests = importlib.import_module("generated.gemini.requests")
    models = importlib.import_module("generated.gemini.models")
    assert requests.Part is models.Part
    assert requests.Content is models.Content
    assert "Part" in vars(requests)

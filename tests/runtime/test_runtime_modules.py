"""The runtime modules (src/ssegen/runtime/) as they are written: self-contained, formatted,
typed, verbatim once per output folder (``<out>/_runtime/``), and hashed by the manifest."""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import black
import pytest
from conftest import GENERATED, SPECS
from mypy import api as mypy_api

from ssegen import output
from ssegen.config import OutputSettings
from ssegen.formatting import format_python
from ssegen.runtime import FLAVOUR_MODULES, MODULES, RUNTIME_FOLDER

RUNTIME = Path(output.runtime_dir())

# What each module may import: the generated package depends on msgspec and the stdlib only
# (and on pydantic with `model = "pydantic"`, whose packages alone get pydantic_support.py); the
# streaming client's HTTP modules alone import httpx (client.py, client_stream.py: issue 33), so
# decode and accumulate keep working without it.
ALLOWED = {
    "json_values.py": {"__future__", "collections.abc", "typing"},
    "joined_reads.py": {"__future__", "collections.abc", "typing"},
    "framing.py": {"__future__", "collections.abc", "itertools", "typing", ".joined_reads"},
    "sse_lines.py": {"__future__", "typing", ".framing"},
    "sse_fields.py": {"__future__", "collections.abc", ".framing"},
    "sse_runs.py": {"__future__", "operator", "re", ".framing"},
    "sse.py": {
        "__future__",
        "collections.abc",
        "re",
        ".framing",
        ".sse_fields",
        ".sse_lines",
        ".sse_runs",
    },
    "ndjson.py": {"__future__", "collections.abc", "json", "re", "typing", ".framing", ".json_values"},
    "events.py": {"__future__", "collections.abc", "json", "typing", "msgspec"},
    "usage.py": {"__future__", "collections.abc", "operator", "typing", "msgspec", ".json_values"},
    "lenient.py": {"__future__", "collections.abc", "types", "typing", "msgspec", ".usage", ".json_values"},
    "tables.py": {"__future__", "collections.abc", "typing", "msgspec", ".usage"},
    "partial_json.py": {"__future__", "re", "typing", "msgspec"},
    "accumulate_results.py": {"__future__", "enum", "typing", "msgspec"},
    "accumulate_parts.py": {"__future__", "collections.abc", "typing", "msgspec", ".json_values"},
    "accumulate_choices.py": {
        "__future__",
        "collections.abc",
        "copy",
        "re",
        "typing",
        "msgspec",
        ".accumulate_parts",
        ".accumulate_results",
        ".json_values",
    },
    "accumulate_blocks.py": {
        "__future__",
        "typing",
        "msgspec",
        ".accumulate_parts",
        ".accumulate_results",
        ".partial_json",
        ".json_values",
    },
    "accumulate_errors.py": {
        "__future__",
        "collections.abc",
        "typing",
        "msgspec",
        ".accumulate_blocks",
        ".accumulate_choices",
        ".accumulate_parts",
        ".accumulate_results",
        ".events",
        ".framing",
        ".json_values",
    },
    "accumulate.py": {
        "__future__",
        "typing",
        "msgspec",
        ".accumulate_blocks",
        ".accumulate_choices",
        ".accumulate_errors",
        ".accumulate_parts",
        ".accumulate_results",
        ".usage",
        ".json_values",
    },
    "sink.py": {"__future__", "collections.abc", "typing", ".events", ".framing"},
    "encoding.py": {
        "__future__",
        "collections.abc",
        "re",
        "typing",
        "msgspec",
        ".events",
        ".lenient",
        ".sse",
        ".usage",
        ".json_values",
    },
    "stream_classify.py": {"__future__", "collections.abc", "itertools", "operator", "typing", ".framing"},
    "stream_events.py": {
        "__future__",
        "collections.abc",
        "itertools",
        "threading",
        "types",
        "typing",
        ".events",
        ".framing",
        ".sse",
        ".stream_classify",
    },
    "stream_reader.py": {
        "__future__",
        "collections.abc",
        "itertools",
        "typing",
        ".accumulate",
        ".framing",
        ".sink",
        ".stream_classify",
        ".stream_events",
    },
    "stream_writer.py": {
        "__future__",
        "collections.abc",
        "typing",
        "msgspec",
        ".accumulate",
        ".encoding",
        ".events",
        ".framing",
        ".json_values",
    },
    "stream.py": {
        "__future__",
        "collections.abc",
        "typing",
        ".accumulate",
        ".accumulate_results",
        ".encoding",
        ".events",
        ".framing",
        ".ndjson",
        ".sink",
        ".sse",
        ".stream_classify",
        ".stream_events",
        ".stream_reader",
        ".stream_writer",
    },
    "client_errors.py": {"__future__", "collections.abc", "typing", "msgspec", ".json_values"},
    "client_retry.py": {
        "__future__",
        "asyncio",
        "collections.abc",
        "dataclasses",
        "email.utils",
        "random",
        "time",
        "typing",
        ".accumulate",
        ".json_values",
    },
    "client_request.py": {
        "__future__",
        "collections.abc",
        "dataclasses",
        "enum",
        "re",
        "typing",
        "urllib.parse",
        "msgspec",
        ".accumulate",
        ".client_retry",
        ".stream",
        ".json_values",
    },
    "client_control.py": {
        "__future__",
        "collections.abc",
        "itertools",
        "typing",
        "msgspec",
        ".accumulate",
        ".client_errors",
        ".client_request",
        ".client_retry",
        ".events",
        ".framing",
        ".stream_classify",
        ".json_values",
    },
    "client_stream.py": {
        "__future__",
        "collections.abc",
        "itertools",
        "types",
        "typing",
        "httpx",
        ".accumulate",
        ".client_control",
        ".client_errors",
        ".client_request",
        ".client_retry",
        ".framing",
        ".stream",
        ".stream_classify",
        ".stream_reader",
    },
    "client.py": {
        "__future__",
        "collections.abc",
        "os",
        "types",
        "typing",
        "httpx",
        ".client_control",
        ".client_errors",
        ".client_request",
        ".client_retry",
        ".client_stream",
    },
    "public.py": {
        "__future__",
        ".accumulate",
        ".client_errors",
        ".events",
        ".sse",
        ".stream",
        ".usage",
    },
    "pydantic_support.py": {
        "__future__",
        "collections.abc",
        "typing",
        "msgspec",
        "pydantic",
        ".lenient",
        ".sink",
        ".tables",
    },
}
THIRD_PARTY = {
    "framing.py": set(),
    "sse_lines.py": set(),
    "sse_fields.py": set(),
    "sse_runs.py": set(),
    "sse.py": set(),
    "ndjson.py": set(),
    "events.py": {"msgspec"},
    "usage.py": {"msgspec"},
    "lenient.py": {"msgspec"},
    "tables.py": {"msgspec"},
    "partial_json.py": {"msgspec"},
    "accumulate_results.py": {"msgspec"},
    "accumulate_parts.py": {"msgspec"},
    "accumulate_choices.py": {"msgspec"},
    "accumulate_blocks.py": {"msgspec"},
    "accumulate_errors.py": {"msgspec"},
    "accumulate.py": {"msgspec"},
    "sink.py": set(),
    "encoding.py": {"msgspec"},
    "stream_classify.py": set(),
    "stream_events.py": set(),
    "stream_reader.py": set(),
    "stream_writer.py": {"msgspec"},
    "stream.py": set(),
    "client_errors.py": {"msgspec"},
    "client_retry.py": set(),
    "client_request.py": {"msgspec"},
    "client_control.py": {"msgspec"},
    "client_stream.py": {"httpx"},
    "client.py": {"httpx"},
    "public.py": set(),
    "pydantic_support.py": {"msgspec", "pydantic"},
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_modules_are_the_files_of_the_folder() -> None:
    assert sorted(MODULES + FLAVOUR_MODULES) == sorted(p.name for p in RUNTIME.glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("name", MODULES + FLAVOUR_MODULES)
def test_module_imports_only_stdlib_msgspec_and_its_sibling(name: str) -> None:
    imports = _imports(RUNTIME / name)
    assert imports <= ALLOWED[name], imports - ALLOWED[name]
    assert not any(i.startswith("ssegen") for i in imports)
    assert all(
        i.startswith(".") or i.split(".")[0] in sys.stdlib_module_names or i in THIRD_PARTY[name] for i in imports
    )


@pytest.mark.parametrize("name", MODULES + FLAVOUR_MODULES)
def test_module_is_black_formatted_so_the_copy_is_verbatim(name: str) -> None:
    source = (RUNTIME / name).read_text(encoding="utf-8")
    assert black.format_str(source, mode=black.Mode(line_length=100)) == source
    # formatter = "ruff" at 100 columns copies it verbatim too (ssegen.emit._runtime_verbatim).
    assert format_python(source, name, "ruff", 100) == source


def test_runtime_passes_mypy_strict() -> None:
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(RUNTIME)])
    assert status == 0, stdout + stderr


@pytest.mark.parametrize("name", MODULES)
def test_the_output_folder_holds_one_copy_of_each_module_under_its_header(name: str) -> None:
    source = (RUNTIME / name).read_text(encoding="utf-8")
    header, _, rest = (GENERATED / RUNTIME_FOLDER / name).read_text(encoding="utf-8").partition("\n")
    assert header == (
        f"# Generated by ssegen {output.version()} from ssegen.runtime; "
        "do not edit by hand (regenerate: ssegen generate)."
    )
    assert rest == source, f"{GENERATED / RUNTIME_FOLDER / name} differs from {RUNTIME / name}: run ssegen generate"
    # A provider's own client.py (its operations) shares the runtime client module's name, never its text.
    copies = sorted(
        p.relative_to(GENERATED).as_posix()
        for p in GENERATED.rglob(name)
        if "__pycache__" not in p.parts and p.read_text(encoding="utf-8").partition("\n")[2] == source
    )
    assert copies == [f"{RUNTIME_FOLDER}/{name}"]


def test_editing_a_runtime_module_makes_check_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = output.Manifest.read(GENERATED)
    assert manifest is not None
    providers = sorted(manifest.providers)
    assert {f"runtime/{name}" for name in MODULES + FLAVOUR_MODULES} <= set(
        output.generator_files(output.package_dir())[1]
    )
    assert output.quick_check(SPECS, GENERATED, providers, OutputSettings()) is not None, (
        "generated/ is stale: run ssegen generate"
    )
    copy = tmp_path / "ssegen"
    shutil.copytree(output.package_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert output.fingerprint(copy) == output.generator_fingerprint()
    with (copy / "runtime" / "sse.py").open("a", encoding="utf-8") as f:
        f.write("# an edit\n")
    edited = output.fingerprint(copy)
    assert edited != output.generator_fingerprint()
    monkeypatch.setattr(output, "generator_fingerprint", lambda: edited)
    assert output.quick_check(SPECS, GENERATED, providers, OutputSettings()) is None

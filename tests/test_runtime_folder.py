"""The runtime is written once per output folder (``<out>/_runtime/``) and every provider package
imports it; ``runtime = "installed"`` makes the packages import ``ssegen.runtime`` instead (issue 32).

Each test generates two seed providers into a project of its own, through the CLI as a user runs it.
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import sys
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SPECS

from ssegen import output
from ssegen.cli import main
from ssegen.emit import CONFORMANCE_MODULE
from ssegen.runtime import MODULES, RUNTIME_FOLDER

PROVIDERS = ("deepseek", "ollama")
#: The runtime modules that import httpx: the streaming client's HTTP side.
HTTP_MODULES = ("client.py", "client_stream.py")
BODY = b'data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}\n\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project holding two seed providers, its output folder importable as ``llm``."""
    for name in PROVIDERS:
        shutil.copytree(SPECS / name, tmp_path / "specs" / name)
    monkeypatch.chdir(tmp_path)
    output.generator_fingerprint.cache_clear()
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for module in [m for m in sys.modules if m == "llm" or m.startswith("llm.")]:
        del sys.modules[module]


def _settings(project: Path, **extra: str) -> None:
    lines = ["[tool.ssegen]", 'specs = "specs"', 'out = "llm"', *(f"{k} = {v!r}" for k, v in extra.items())]
    (project / "pyproject.toml").write_text("\n".join(lines).replace("'", '"') + "\n", encoding="utf-8")


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _python_files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _absolute_imports(folder: Path, skip: Collection[Path] = ()) -> set[str]:
    """The top-level names of every absolute import in the Python files under ``folder`` (or of
    the file ``folder``), but those of ``skip``."""
    names: set[str] = set()
    for path in [folder] if folder.is_file() else folder.rglob("*.py"):
        if path.name.startswith("test_") or path in skip:
            continue  # the conformance tests import pytest and jsonschema
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_the_runtime_is_written_once_and_recorded_as_the_folders_own(project: Path) -> None:
    _settings(project)
    assert _run("generate")[0] == 0
    out = project / "llm"
    files = _python_files(out)
    assert [f for f in files if f.startswith(f"{RUNTIME_FOLDER}/")] == sorted(
        f"{RUNTIME_FOLDER}/{name}" for name in ("__init__.py", *MODULES)
    )
    for name in MODULES:  # no provider folder holds a copy of a runtime module
        runtime_text = (out / RUNTIME_FOLDER / name).read_text(encoding="utf-8")
        for other in (f for f in files if f.endswith(f"/{name}") and not f.startswith(f"{RUNTIME_FOLDER}/")):
            # a provider's own client.py (its operations) shares the name of _runtime/client.py only
            assert name == "client.py" and (out / other).read_text(encoding="utf-8") != runtime_text, other
    manifest = json.loads((out / output.MANIFEST).read_text(encoding="utf-8"))
    assert f"{RUNTIME_FOLDER}/stream.py" in manifest["files"]
    assert manifest["settings"]["runtime"] == "vendored"
    assert not any(rel.startswith(RUNTIME_FOLDER) for p in manifest["providers"].values() for rel in p["files"])
    deepseek, ollama = (importlib.import_module(f"llm.{name}") for name in PROVIDERS)
    runtime = importlib.import_module(f"llm.{RUNTIME_FOLDER}.stream")
    assert deepseek.Channel is ollama.Channel is runtime.Channel
    chat = deepseek.CHANNELS["/chat/completions"]
    assert chat.accumulate(chat.decode([BODY])).to_dict()["errors"] == []
    # httpx only in the streaming client's HTTP modules (issue 33): the rest needs msgspec alone,
    # but the checks the conformance tests share (jsonschema), which no package imports.
    client = {out / RUNTIME_FOLDER / name for name in HTTP_MODULES}
    checks = out / CONFORMANCE_MODULE
    assert _absolute_imports(out, skip={*client, checks}) <= {"__future__", "msgspec", *sys.stdlib_module_names}
    assert _absolute_imports(checks) - set(sys.stdlib_module_names) == {"jsonschema"}
    assert f"{CONFORMANCE_MODULE}" in manifest["files"]
    importers = [f for f in files if "_conformance" in (out / f).read_text(encoding="utf-8")]
    assert importers == [CONFORMANCE_MODULE, *(f"{name}/test_conformance.py" for name in sorted(PROVIDERS))]
    third_party = set().union(*(_absolute_imports(path) for path in client)) - set(sys.stdlib_module_names)
    assert third_party == {"httpx"}


def test_check_reports_an_edited_runtime_module_and_a_file_left_in_the_runtime_folder(project: Path) -> None:
    _settings(project)
    assert _run("generate")[0] == 0
    assert _run("check")[0] == 0
    sse = project / "llm" / RUNTIME_FOLDER / "sse.py"
    sse.write_text(sse.read_text(encoding="utf-8") + "# a hand edit\n", encoding="utf-8")
    (project / "llm" / RUNTIME_FOLDER / "extra.py").write_text("x = 1\n", encoding="utf-8")
    code, text = _run("check")
    assert code == 1 and f"{RUNTIME_FOLDER}/sse.py" in text
    code, text = _run("generate")
    assert f"{RUNTIME_FOLDER}/sse.py" in text and f"{RUNTIME_FOLDER}/extra.py" in text
    assert sse.read_text(encoding="utf-8").endswith("# a hand edit\n")  # edited by hand: kept unless --force
    assert _run("generate", "--force")[0] == 0
    assert not sse.read_text(encoding="utf-8").endswith("# a hand edit\n")
    assert (project / "llm" / RUNTIME_FOLDER / "extra.py").is_file()  # not ssegen's: never touched


def test_installed_packages_import_ssegen_runtime_and_switching_removes_the_copy(project: Path) -> None:
    _settings(project)
    assert _run("generate")[0] == 0
    _settings(project, runtime="installed")
    code, text = _run("check")
    assert code == 1
    code, text = _run("generate")
    assert code == 0, text
    out = project / "llm"
    assert not (out / RUNTIME_FOLDER).exists()
    assert not any(f.startswith(RUNTIME_FOLDER) for f in _python_files(out))
    channels = (out / "deepseek" / "channels.py").read_text(encoding="utf-8")
    assert "from ssegen.runtime.stream import" in channels and "_runtime" not in channels
    checks = (out / CONFORMANCE_MODULE).read_text(encoding="utf-8")  # written in either mode
    assert "from ssegen.runtime.sse import iter_events" in checks and "_runtime" not in checks
    deepseek = importlib.import_module("llm.deepseek")
    from ssegen.runtime import stream

    assert deepseek.Channel is stream.Channel
    chat = deepseek.CHANNELS["/chat/completions"]
    assert chat.accumulate(chat.decode([BODY])).to_dict()["errors"] == []
    assert _run("check")[0] == 0


def test_an_unknown_runtime_setting_is_refused_naming_the_file(project: Path) -> None:
    _settings(project, runtime="copied")
    code, text = _run("check")
    assert code == 1 and "pyproject.toml" in text and "runtime 'copied'" in text and "vendored" in text


def test_a_provider_folder_named_like_the_runtime_folder_is_refused(project: Path) -> None:
    _settings(project)
    shutil.copytree(SPECS / "deepseek", project / "specs" / RUNTIME_FOLDER)
    code, text = _run("generate", RUNTIME_FOLDER)
    assert code != 0 and "provider-name-invalid" in text and "runtime" in text
    assert not (project / "llm" / RUNTIME_FOLDER).exists()


def test_tests_written_apart_import_the_runtime_by_its_full_name(project: Path) -> None:
    _settings(project, tests_out="tests/llm")
    assert _run("generate")[0] == 0
    text = (project / "tests" / "llm" / "deepseek" / "test_deepseek_conformance.py").read_text(encoding="utf-8")
    assert "from llm import _conformance as conformance" in text
    checks = (project / "llm" / CONFORMANCE_MODULE).read_text(encoding="utf-8")
    assert f"from .{RUNTIME_FOLDER}.sse import iter_events" in checks

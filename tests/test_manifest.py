"""The manifest records which generator wrote each entry, so `ssegen check` is never fooled by stale
output: not after an edit of ssegen's own code under an unchanged version number, and not after a
git merge that leaves one provider's entry (or part of it) from an older build.

A "generator change" is simulated as a user sees it: a copy of the ssegen package with one file
edited, whose runtime modules are rendered (``output.runtime_dir``) and whose fingerprint is the
running generator's (``output.generator_fingerprint``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import SPECS

import ssegen.pipeline
from ssegen import output
from ssegen.cli import main
from ssegen.config import OutputSettings

PROVIDERS = ("deepseek", "siliconstorm")


@pytest.fixture(autouse=True)
def outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a folder without ssegen's own ``[tool.ssegen]``, with a fresh fingerprint cache."""
    monkeypatch.chdir(tmp_path)
    output.generator_fingerprint.cache_clear()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    for name in PROVIDERS:
        shutil.copytree(SPECS / name, specs / name)
    return tmp_path


def _run(project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [args[0], "--specs", str(project / "specs"), "--out", "generated", *args[1:]])
    return result.exit_code, result.output


def _other_ssegen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Callable[[Path], None]) -> str:
    """Run as the ssegen of a copy of this package with ``edit`` applied to it; return its fingerprint."""
    copy = tmp_path / "other-ssegen"
    if not copy.exists():
        shutil.copytree(output.package_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    edit(copy)
    fingerprint = output.fingerprint(copy)
    monkeypatch.setattr(output, "runtime_dir", lambda: copy / "runtime")
    monkeypatch.setattr(output, "generator_fingerprint", lambda: fingerprint)
    return fingerprint


def _append(rel: str, text: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        with (root / rel).open("a", encoding="utf-8") as f:
            f.write(text)

    return edit


def _counting_build(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    real = ssegen.pipeline.build

    def build(*args: Any, **kwargs: Any) -> list[ssegen.pipeline.ProviderReport]:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(ssegen.pipeline, "build", build)
    return calls


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def build(*_: object, **__: object) -> None:
        raise AssertionError("answered from the manifest's hashes: nothing may be built")

    monkeypatch.setattr(ssegen.pipeline, "build", build)


def _manifest(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project / "generated" / output.MANIFEST).read_text(encoding="utf-8"))
    return data


def _write_manifest(project: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    (project / "generated" / output.MANIFEST).write_text(text, encoding="utf-8")


# --- the fingerprint and the manifest's shape -------------------------------------------------


def test_the_fingerprint_covers_code_templates_and_runtime_and_skips_pycache(tmp_path: Path) -> None:
    copy = tmp_path / "ssegen"
    shutil.copytree(output.package_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    code, rendering = output.generator_files(copy)
    assert "cli/__init__.py" in code and "codemodel/__init__.py" in code and "normalize/__init__.py" in code
    assert "runtime/sse.py" in rendering and "templates/models.py.jinja" in rendering
    assert not [rel for rel in code + rendering if "__pycache__" in rel or not rel.endswith((".py", ".jinja"))]
    before = output.fingerprint(copy)
    assert before == output.generator_fingerprint()
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"compiled")
    assert output.fingerprint(copy) == before
    for rel in ("normalize/__init__.py", "templates/models.py.jinja", "runtime/stream.py"):
        original = (copy / rel).read_bytes()
        (copy / rel).write_bytes(original + b"\n")
        assert output.fingerprint(copy) != before, rel
        (copy / rel).write_bytes(original)
    (copy / "codemodel" / "extra.py").write_text("", encoding="utf-8")  # a new module counts too
    assert output.fingerprint(copy) != before


def test_the_fingerprint_is_computed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []
    real = output.generator_files

    def counted(root: Path) -> tuple[list[str], list[str]]:
        calls.append(root)
        return real(root)

    monkeypatch.setattr(output, "generator_files", counted)
    output._code_digests.cache_clear()
    first = output.generator_fingerprint()
    assert output.generator_fingerprint() == first and output.generator_fingerprint() == first
    assert len(calls) == 2  # once for ssegen's modules, once for its templates and runtime modules


def test_each_provider_entry_records_the_generator_that_built_it(project: Path) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    data = _manifest(project)
    assert sorted(data) == ["files", "generator", "providers", "seal", "settings", "ssegen"]
    current = output.generator_fingerprint()
    assert data["generator"] == current
    for name in PROVIDERS:
        entry = data["providers"][name]
        assert sorted(entry) == ["files", "generator", "inputs", "seal"]
        assert entry["generator"] == current
        assert entry["seal"] == output.seal(data["settings"], current, entry["inputs"], entry["files"])


def test_a_manifest_written_before_fingerprints_is_read_but_never_trusted(project: Path) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    data = _manifest(project)
    del data["generator"], data["seal"]
    for entry in data["providers"].values():
        del entry["generator"], entry["seal"]
    data["templates"] = {"models.py.jinja": "0" * 64}
    _write_manifest(project, data)
    manifest = output.Manifest.read(project / "generated")
    assert manifest is not None and manifest.generator == "" and manifest.providers["deepseek"]["generator"] == ""
    settings = OutputSettings(package="generated")
    assert output.quick_check(project / "specs", project / "generated", list(PROVIDERS), settings) is None
    assert _run(project, "check")[0] == 0  # the output files are right: only the records are older


# --- (a) a generator change that changes the output -------------------------------------------


def _models_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit of ssegen's Python code (not a template, not a runtime module) that changes
    every models.py: what the ssegen version number and the template hashes never showed."""
    _other_ssegen(tmp_path, monkeypatch, _append("codemodel/__init__.py", "# emits a new line\n"))
    real = ssegen.pipeline.render_provider

    def render(*args: Any, **kwargs: Any) -> Any:
        rendered = real(*args, **kwargs)
        models = f"{rendered.provider}/models.py"
        rendered.files[models] += "# a line the new code model emits\n"
        return rendered

    monkeypatch.setattr(ssegen.pipeline, "render_provider", render)


def _code_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A code model change: every provider's models.py differs."""
    _models_change(tmp_path, monkeypatch)
    return [f"{name}/models.py" for name in PROVIDERS]


def _runtime_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An edit of a runtime module, written once into the output folder's runtime."""
    _other_ssegen(tmp_path, monkeypatch, _append("runtime/sse.py", "# a fix in the decoder\n"))
    return ["_runtime/sse.py"]


@pytest.mark.parametrize("change", [_code_change, _runtime_change], ids=["code", "runtime"])
def test_a_generator_change_that_changes_the_output_makes_check_fail_naming_the_files(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Callable[..., str]
) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    assert _run(project, "check")[0] == 0
    changed = change(tmp_path, monkeypatch)  # under the same version number
    built = _counting_build(monkeypatch)
    code, out = _run(project, "check")
    assert code == 1, out
    assert built, "check must rebuild when the generator changed"
    stale = sorted(line for line in out.splitlines() if line.startswith("stale: "))
    assert stale == sorted(f"stale: generated/{rel}" for rel in [*changed, output.MANIFEST])
    # generate brings it up to date, and the next check answers from the hashes again.
    assert _run(project, "generate", "-q")[0] == 0
    assert _run(project, "check")[0] == 0
    _no_build(monkeypatch)
    assert _run(project, "check") == (0, "generated/ is up to date (2 providers)\n")


def test_a_template_change_is_seen_as_a_generator_change(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    before = output.generator_fingerprint()
    after = _other_ssegen(tmp_path, monkeypatch, _append("templates/root_init.py.jinja", "\n"))
    assert after != before
    settings = OutputSettings(package="generated")
    assert output.quick_check(project / "specs", project / "generated", list(PROVIDERS), settings) is None


# --- (b) a generator change that leaves the output as it was ----------------------------------


def test_a_generator_change_with_the_same_output_passes_check_and_generate_rewrites_only_the_manifest(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    folder = project / "generated"
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    new = _other_ssegen(tmp_path, monkeypatch, _append("normalize/__init__.py", "# a comment\n"))
    built = _counting_build(monkeypatch)
    code, out = _run(project, "check")
    assert code == 0, out
    assert built, "an older fingerprint is never trusted: check compares the files"
    assert out.startswith("generated/ is up to date (") and "`ssegen generate` refreshes it" in out
    code, out = _run(project, "generate")
    assert code == 0, out
    for name in PROVIDERS:
        files = len(_manifest(project)["providers"][name]["files"])
        assert f"; 0 of {files} files written" in next(line for line in out.splitlines() if line.startswith(name))
    assert f"only generated/{output.MANIFEST} rewritten: ssegen changed since it was written" in out
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert [p.relative_to(folder).as_posix() for p in after if after[p] != before[p]] == [output.MANIFEST]
    assert set(after) == set(before)
    data = _manifest(project)
    assert data["generator"] == new and {e["generator"] for e in data["providers"].values()} == {new}
    _no_build(monkeypatch)
    assert _run(project, "check") == (0, "generated/ is up to date (2 providers)\n")


def test_a_manifest_that_differs_in_more_than_the_generator_is_stale(project: Path) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    data = _manifest(project)
    data["providers"]["deepseek"]["generator"] = "0" * 64
    data["providers"]["deepseek"]["inputs"]["deepseek/api-docs.txt"] = "0" * 64
    _write_manifest(project, data)
    code, out = _run(project, "check")
    assert code == 1 and f"stale: generated/{output.MANIFEST}" in out


# --- (c) a git merge that left an entry from an older build -----------------------------------


def _merged_with_an_old_deepseek(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Generate with an older ssegen, then with this one; put back the older deepseek files and
    return the older manifest's deepseek entry (one side of a merge kept them)."""
    folder = project / "generated"
    with monkeypatch.context() as older:
        _models_change(tmp_path, older)
        assert _run(project, "generate", "-q")[0] == 0
    old_entry: dict[str, Any] = _manifest(project)["providers"]["deepseek"]
    old_files = {rel: (folder / rel).read_bytes() for rel in old_entry["files"]}
    assert _run(project, "generate", "-q")[0] == 0
    for rel, content in old_files.items():
        (folder / rel).write_bytes(content)
    return old_entry


def test_a_merged_manifest_with_one_provider_from_an_older_generator_fails_check(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_entry = _merged_with_an_old_deepseek(project, tmp_path, monkeypatch)
    data = _manifest(project)
    data["providers"]["deepseek"] = old_entry  # the templates and root files are the new side's
    _write_manifest(project, data)
    built = _counting_build(monkeypatch)
    code, out = _run(project, "check")
    assert code == 1, out
    assert built
    assert "stale: generated/deepseek/models.py" in out and "siliconstorm" not in out


def test_an_entry_stitched_by_a_line_wise_merge_is_not_trusted(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new side changed the fingerprint line, the older side the models.py hash line: git merges
    both without a conflict; the entry's seal no longer matches it."""
    old_entry = _merged_with_an_old_deepseek(project, tmp_path, monkeypatch)
    data = _manifest(project)
    entry = data["providers"]["deepseek"]
    assert entry["generator"] == output.generator_fingerprint() != old_entry["generator"]
    entry["files"]["deepseek/models.py"] = old_entry["files"]["deepseek/models.py"]
    _write_manifest(project, data)
    settings = OutputSettings(package="generated")
    assert output.quick_check(project / "specs", project / "generated", list(PROVIDERS), settings) is None
    code, out = _run(project, "check")
    assert code == 1 and "stale: generated/deepseek/models.py" in out and "siliconstorm" not in out


# --- (d) the fast path ----------------------------------------------------------------------


def test_check_and_generate_answer_from_hashes_without_building_when_everything_matches(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _run(project, "generate", "-q")[0] == 0
    _no_build(monkeypatch)
    assert _run(project, "check") == (0, "generated/ is up to date (2 providers)\n")
    code, out = _run(project, "generate")
    assert code == 0 and out.startswith("generated/ is up to date (2 providers, inputs unchanged; nothing written")

"""Sources are regular files inside the specs folder: symbolic links out of it and FIFOs are refused (issue 25)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from ssegen.cli import main

DEMO = (ROOT / "tests" / "specs_with_errors" / "ref-missing-file" / "demo" / "asyncapi.yaml").read_text(
    encoding="utf-8"
)
SECRET = "TOP-SECRET-FROM-OUTSIDE"
OUTSIDE_SPEC = DEMO.replace("description: A chunk.", f"description: {SECRET}").replace(
    "            other:\n              $ref: 'schemas/nope.yaml#/Usage'\n", ""
)


def _generate(tmp_path: Path, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    run = CliRunner().invoke(
        main,
        ["generate", "--specs", str(tmp_path / "specs"), "--out", str(tmp_path / "out"), "--format", "json", *extra],
    )
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    return run.exit_code, json.loads(run.stdout), run.stderr


def _tree_text(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else ""


def test_a_source_symlinked_to_a_file_outside_the_specs_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "private.yaml").write_text(OUTSIDE_SPEC, encoding="utf-8")
    (tmp_path / "specs" / "demo").mkdir(parents=True)
    (tmp_path / "specs" / "demo" / "asyncapi.yaml").symlink_to(tmp_path / "private.yaml")
    code, diagnostics, _ = _generate(tmp_path)
    assert code == 1
    assert {"code": "source-outside-specs", "file": "demo/asyncapi.yaml"} in [
        {"code": d["code"], "file": d["file"]} for d in diagnostics
    ]
    assert SECRET not in _tree_text(tmp_path / "out")


def test_a_provider_folder_symlinked_outside_the_specs_folder_is_refused_by_generate_and_ir(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "asyncapi.yaml").write_text(OUTSIDE_SPEC, encoding="utf-8")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "demo").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    code, diagnostics, _ = _generate(tmp_path)
    assert code == 1 and [d["code"] for d in diagnostics] == ["source-outside-specs"]
    assert diagnostics[0]["file"] == "demo/" and "outside the specs folder" in str(diagnostics[0]["message"])
    assert SECRET not in _tree_text(tmp_path / "out")
    run = CliRunner().invoke(main, ["ir", "--specs", str(tmp_path / "specs"), "demo"])
    assert run.exit_code == 1 and "source-outside-specs" in run.stderr and SECRET not in run.stdout


def test_a_symlink_inside_the_specs_folder_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "specs" / "demo").mkdir(parents=True)
    (tmp_path / "specs" / "shared.yaml").write_text(OUTSIDE_SPEC, encoding="utf-8")
    (tmp_path / "specs" / "demo" / "asyncapi.yaml").symlink_to(tmp_path / "specs" / "shared.yaml")
    code, diagnostics, _ = _generate(tmp_path)
    assert code == 0, diagnostics


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_ref_to_a_fifo_and_a_fifo_source_are_refused_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "specs" / "demo" / "schemas").mkdir(parents=True)
    (tmp_path / "specs" / "demo" / "asyncapi.yaml").write_text(
        DEMO.replace("schemas/nope.yaml", "schemas/pipe.yaml"), encoding="utf-8"
    )
    os.mkfifo(tmp_path / "specs" / "demo" / "schemas" / "pipe.yaml")
    os.mkfifo(tmp_path / "specs" / "demo" / "other.yaml")
    args = ["--specs", str(tmp_path / "specs")]
    runs = [
        subprocess.run(
            [sys.executable, "-m", "ssegen", *command],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        for command in (
            ["generate", *args, "--out", str(tmp_path / "out"), "--format", "json"],
            ["ir", *args, "demo"],
            ["check", *args, "--out", str(tmp_path / "out")],
        )
    ]
    assert runs[0].returncode == 1, runs[0].stderr
    found = {(d["code"], d["file"]) for d in json.loads(runs[0].stdout)}
    assert ("source-not-regular", "demo/asyncapi.yaml") in found  # the $ref, at its place
    assert ("source-not-regular", "demo/other.yaml") in found
    assert runs[1].returncode == 1 and "schemas/pipe.yaml is not read: pipe.yaml is a FIFO" in runs[1].stderr
    assert runs[2].returncode == 1 and "Traceback" not in runs[2].stderr


@pytest.mark.parametrize("name", ["..", ".", "../specs", ""])
def test_ir_refuses_a_provider_name_that_is_not_a_folder_of_the_specs_folder(tmp_path: Path, name: str) -> None:
    (tmp_path / "specs" / "demo").mkdir(parents=True)
    (tmp_path / "specs" / "demo" / "asyncapi.yaml").write_text(OUTSIDE_SPEC, encoding="utf-8")
    (tmp_path / "asyncapi.yaml").write_text(OUTSIDE_SPEC, encoding="utf-8")
    run = CliRunner().invoke(main, ["ir", "--specs", str(tmp_path / "specs"), name])
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    assert run.exit_code == 1 and "provider-name-invalid" in run.stderr and SECRET not in run.stdout
    generate = CliRunner().invoke(
        main, ["generate", "--specs", str(tmp_path / "specs"), "--out", str(tmp_path / "out"), name]
    )
    assert generate.exit_code == 1 and "provider-name-invalid" in generate.output

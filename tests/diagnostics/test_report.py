"""Diagnostics for people and CI (``ssegen.diagnostics.report``): clickable paths, colour, GitHub
annotations, SARIF; and the CLI's ``--format``, progress line and shell completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS

from ssegen import cli
from ssegen.cli.console import SlowProviderNotice
from ssegen.diagnostics import Diagnostic, Severity
from ssegen.diagnostics.report import display_path, github_line, render, sarif_log, text_line, use_colour

_WIDENED = Diagnostic(
    "deepseek/api-docs.txt",
    395,
    "/choices/0/delta/role",
    "example-widened",
    Severity.WARNING,
    "example sends null, 100%: widened\nnext line",
)


def test_paths_are_shown_from_the_current_directory(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    assert display_path(specs, "deepseek/api-docs.txt", cwd=tmp_path) == "specs/deepseek/api-docs.txt"
    assert display_path(specs, "deepseek/", cwd=tmp_path) == "specs/deepseek/"
    assert display_path(specs, "a.yaml", cwd=tmp_path / "elsewhere") == (specs / "a.yaml").as_posix()
    assert display_path(specs, "", cwd=tmp_path) == ""


def test_text_line_names_the_file_from_the_current_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    line = text_line(_WIDENED, Path("specs"))
    assert line.startswith("specs/deepseek/api-docs.txt:395: /choices/0/delta/role: warning[example-widened]: ")
    assert "\x1b[" not in line
    coloured = text_line(_WIDENED, Path("specs"), colour=True)
    assert click.unstyle(coloured) == line and "\x1b[33" in coloured  # yellow


@pytest.mark.parametrize(
    ("tty", "env", "expected"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # no-color.org: only a non-empty value counts
        (False, {"FORCE_COLOR": "1"}, True),
        (False, {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_colour_on_a_terminal_unless_no_color(tty: bool, env: dict[str, str], expected: bool) -> None:
    assert use_colour(tty, env) is expected


def test_github_annotation_escapes_what_the_runner_would_misread(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    line = github_line(_WIDENED, Path("specs"))
    assert line == (
        "::warning file=specs/deepseek/api-docs.txt,line=395,title=ssegen example-widened::"
        "example sends null, 100%25: widened\\nnext line (at /choices/0/delta/role)"
    )
    info = Diagnostic("", 0, "", "docs-matched", Severity.INFO, "m")
    assert github_line(info, Path("specs")) == "::notice title=ssegen docs-matched::m"


def test_sarif_log_has_a_rule_per_code_and_a_located_result_per_diagnostic(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    error = Diagnostic("demo/asyncapi.yaml", 5, "", "yaml-syntax", Severity.ERROR, "bad")
    log = json.loads(json.dumps(sarif_log([_WIDENED, error], Path("specs"), "1.2.3")))
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    assert run["tool"]["driver"]["name"] == "ssegen" and run["tool"]["driver"]["version"] == "1.2.3"
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rules == ["example-widened", "yaml-syntax"]
    widened, syntax = run["results"]
    assert (widened["level"], syntax["level"]) == ("warning", "error")
    assert rules[syntax["ruleIndex"]] == "yaml-syntax"
    location = widened["locations"][0]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "specs/deepseek/api-docs.txt"},
        "region": {"startLine": 395},
    }
    assert location["logicalLocations"] == [{"fullyQualifiedName": "/choices/0/delta/role", "kind": "element"}]


def test_render_refuses_an_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown diagnostics format"):
        render([_WIDENED], "xml", Path("specs"))


def _broken_specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs" / "broken"
    folder.mkdir(parents=True)
    (folder / "spec.yaml").write_text("asyncapi: 2.6.0\ninfo: [\n", encoding="utf-8")
    return tmp_path / "specs"


@pytest.mark.parametrize("fmt", ["text", "github", "sarif"])
def test_generate_reports_a_broken_spec_in_each_format(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _broken_specs(tmp_path)
    result = CliRunner().invoke(cli.main, ["generate", "--format", fmt, "--out", "out"])
    assert result.exit_code == 1
    if fmt == "text":
        assert "specs/broken/spec.yaml:" in result.output and "error[yaml-syntax]" in result.output
    elif fmt == "github":
        assert "::error file=specs/broken/spec.yaml,line=" in result.output
    else:
        log = json.loads(result.stdout)
        [result_] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "yaml-syntax"]
        assert result_["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "specs/broken/spec.yaml"


def test_a_slow_provider_gets_a_progress_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(SlowProviderNotice, "AFTER", 0.0)
    result = CliRunner().invoke(cli.main, ["generate", "--specs", str(SPECS), "--out", "out", "siliconstorm"])
    assert result.exit_code == 0, result.output
    assert "siliconstorm: building (more than 0 s so far)..." in result.output


def _complete(words: str, cwd: Path = ROOT) -> list[str]:
    env = {
        **os.environ,
        "_SSEGEN_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }
    run = subprocess.run(
        [sys.executable, "-c", "from ssegen.cli import main; main(prog_name='ssegen')"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return [line.split(",", 1)[1] for line in run.stdout.splitlines() if line]


def test_shell_completion_offers_providers_and_channels() -> None:
    assert _complete("ssegen generate de") == ["deepseek"]
    assert "openai_responses" in _complete("ssegen ir ")
    assert _complete("ssegen conform anthropic ") == ["/v1/messages"]
    assert _complete("ssegen conform open") == ["openai_responses"]
    assert _complete("ssegen conform _") == []  # the output folder's _runtime is no provider

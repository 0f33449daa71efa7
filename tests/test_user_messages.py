"""What a user reads when a name or a document is wrong (issue 36 items 3 and 5): a YAML error
gives line, column and the offending line in every report format; an unknown provider gets the
closest name and the list of providers, from ``generate`` and from ``mock``; a failed provider
that never had output does not claim "previous output kept"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ssegen.cli import main

SPEC = """\
asyncapi: 3.0.0
info:
  title: demo
  version: '1'
channels:
  chat: stream: yes
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with two provider folders: ``broken`` (a YAML syntax error on line 6, column 15)
    and ``deepseek`` (empty, never generated)."""
    (tmp_path / "specs" / "broken").mkdir(parents=True)
    (tmp_path / "specs" / "broken" / "asyncapi.yaml").write_text(SPEC)
    (tmp_path / "specs" / "deepseek").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_yaml_error_gives_line_column_and_the_offending_line(project: Path) -> None:
    run = CliRunner().invoke(main, ["generate", "broken", "--out", "gen"])
    assert run.exit_code == 1
    assert "specs/broken/asyncapi.yaml:6:15: /: error[yaml-syntax]: YAML syntax error at column 15" in run.output
    assert "the line reads '  chat: stream: yes'" in run.output


def test_the_column_reaches_the_machine_formats(project: Path) -> None:
    github = CliRunner().invoke(main, ["generate", "broken", "--out", "gen", "--format", "github"])
    assert "file=specs/broken/asyncapi.yaml,line=6,col=15," in github.output
    sarif = CliRunner().invoke(main, ["generate", "broken", "--out", "gen", "--format", "sarif"])
    log = json.loads(sarif.stdout)
    region = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 6, "startColumn": 15}
    as_json = CliRunner().invoke(main, ["generate", "broken", "--out", "gen", "--format", "json"])
    (diag,) = json.loads(as_json.stdout)
    assert (diag["line"], diag["column"]) == (6, 15)


def test_a_long_offending_line_is_quoted_around_the_column(tmp_path: Path) -> None:
    from ssegen.diagnostics import Diagnostics
    from ssegen.sources.document import DocumentError, parse_document

    text = "a: [" + "1, " * 200 + "}\n"
    with pytest.raises(DocumentError) as raised:
        parse_document(text, "long.yaml", Diagnostics())
    message = str(raised.value)
    assert raised.value.line == 1 and raised.value.column > 600
    assert "the line reads '..." in message and "}'" in message and len(message) < 300


def test_generate_of_an_unknown_provider_suggests_and_lists(project: Path) -> None:
    run = CliRunner().invoke(main, ["generate", "deepseak", "--out", "gen"])
    assert run.exit_code == 1
    assert "no provider folder 'deepseak' under specs; did you mean 'deepseek'?" in run.output
    assert "(providers: broken, deepseek)" in run.output
    assert "deepseak: FAILED (1 error); no such provider, nothing generated" in run.output
    assert "previous output kept" not in run.output


def test_mock_of_an_unknown_provider_says_where_it_looked(project: Path) -> None:
    # an output folder name no other test imports (an imported package stays in sys.modules)
    (project / "gen_vendored" / "deepseek").mkdir(parents=True)
    (project / "gen_vendored" / "__init__.py").write_text("")
    (project / "gen_vendored" / "deepseek" / "__init__.py").write_text("CHANNELS = {}\n")
    (project / "gen_vendored" / "deepseek" / "channels.py").write_text("CHANNELS = {}\n")
    (project / "pyproject.toml").write_text('[tool.ssegen]\nout = "gen_vendored"\npackage = "myapp.llm"\n')
    run = CliRunner().invoke(main, ["mock", "deepseak", "--port", "0"])
    assert run.exit_code == 2
    said = " ".join(run.output.split())  # click wraps the usage error
    assert "no generated package 'deepseak' in" in said and "([tool.ssegen] out)" in said
    assert "as myapp.llm.deepseak ([tool.ssegen] package)" in said
    assert "did you mean 'deepseek'?" in said and "(providers found: deepseek)" in said
    assert "run `ssegen generate` first" not in said


def test_mock_before_any_generation_says_to_generate(project: Path) -> None:
    # an import name of its own: the test process can import ssegen's own generated/ package
    (project / "pyproject.toml").write_text('[tool.ssegen]\nout = "gen_never"\npackage = "myapp.llm"\n')
    run = CliRunner().invoke(main, ["mock", "deepseek", "--port", "0"])
    assert run.exit_code == 2
    said = " ".join(run.output.split())
    assert "nothing is generated in" in said and "run `ssegen generate` first" in said


def test_force_builds_output_that_is_up_to_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's first paragraph: a second run says the output is up to date and writes nothing;
    ``--force`` builds from the specs again (the provider's line, not the up-to-date one)."""
    from conftest import ROOT

    monkeypatch.chdir(tmp_path)
    args = ["generate", "ollama", "--specs", str(ROOT / "specs"), "--out", "gen_forced"]
    assert CliRunner().invoke(main, args).exit_code == 0
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "is up to date" in again.output and "nothing written" in again.output
    forced = CliRunner().invoke(main, [*args, "--force"])
    assert forced.exit_code == 0 and "is up to date" not in forced.output
    assert "ollama: 2 channels" in forced.output and "0 of " in forced.output, forced.output

"""``model = "pydantic"`` end to end: every seed provider generated with pydantic models passes its
own conformance tests and mypy --strict, and the setting is read from ``[tool.ssegen]`` and
``--model`` (a switch of flavour makes ``ssegen check`` stale)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from conftest import GENERATED, GENERATED_PROVIDERS, SPECS
from helpers.flavours import PYDANTIC_ROOT, pydantic_output
from mypy import api as mypy_api

from ssegen.cli import main

PROVIDERS = GENERATED_PROVIDERS


def test_every_seed_provider_is_generated_as_pydantic_models() -> None:
    out = pydantic_output()
    assert sorted(p.name for p in out.iterdir() if (p / "channels.py").is_file()) == PROVIDERS
    assert (out / "_runtime" / "pydantic_support.py").is_file()
    assert [p.relative_to(out).as_posix() for p in out.rglob("pydantic_support.py")] == ["_runtime/pydantic_support.py"]
    for provider in PROVIDERS:
        models = (out / provider / "models.py").read_text(encoding="utf-8")
        assert "(pydantic.BaseModel):" in models and "import msgspec" not in models
        assert "depends only on\npydantic, msgspec and the standard library." in (
            out / provider / "__init__.py"
        ).read_text(encoding="utf-8")


#: A conformance test's outcome in a JUnit XML report: passed, or the tag of what it got instead.
_NOT_PASSED = ("failure", "error", "skipped")


@pytest.fixture(scope="module")
def conformance_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict[str, list[tuple[str, str, str]]]]:
    """Every provider's own conformance tests in the pydantic flavour, run by one pytest over all
    the provider folders (one interpreter start, not one per provider): the finished process, and
    for each provider ``(test, outcome, message)`` of every test of it that ran, the outcome
    ``passed`` or one of :data:`_NOT_PASSED` (read from pytest's JUnit XML report)."""
    out = pydantic_output()
    report = tmp_path_factory.mktemp("pydantic_conformance") / "report.xml"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(out.parent),
            f"--junitxml={report}",
            *(str(out / provider) for provider in PROVIDERS),
        ],
        cwd=out.parent,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert report.is_file(), result.stdout + result.stderr
    outcomes: dict[str, list[tuple[str, str, str]]] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        # classname: the test module's dotted path from the root, gen_pydantic.<provider>.test_...
        provider = case.get("classname", "").split(".")[1]
        got = [(child.tag, child.get("message", "") + (child.text or "")) for child in case if child.tag in _NOT_PASSED]
        outcome, message = got[0] if got else ("passed", "")
        outcomes.setdefault(provider, []).append((case.get("name", ""), outcome, message))
    return result, outcomes


@pytest.mark.parametrize("provider", PROVIDERS)
def test_generated_conformance_tests_pass_with_pydantic_models(
    provider: str, conformance_runs: tuple[subprocess.CompletedProcess[str], dict[str, list[tuple[str, str, str]]]]
) -> None:
    result, outcomes = conformance_runs
    # 0: every test passed; 1: some failed (each provider's own are checked below)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    assert (result.returncode == 0) == all(o == "passed" for runs in outcomes.values() for _, o, _ in runs)
    ran = outcomes.get(provider, [])
    assert ran, f"no conformance test of {provider} ran: " + result.stdout[-3000:]
    assert [(name, outcome, message[:2000]) for name, outcome, message in ran if outcome != "passed"] == []


def test_generated_pydantic_packages_pass_mypy_strict() -> None:
    out = pydantic_output()
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(out)])
    assert status == 0, stdout + stderr


def test_model_setting_and_flag_choose_the_flavour_and_check_notices_a_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.ssegen]\nspecs = "{SPECS.as_posix()}"\nout = "llm"\nproviders = ["deepseek"]\nmodel = "pydantic"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["generate", "-q"]).exit_code == 0
    assert "(pydantic.BaseModel):" in (tmp_path / "llm" / "deepseek" / "models.py").read_text(encoding="utf-8")
    assert (tmp_path / "llm" / "_runtime" / "pydantic_support.py").is_file()
    ok = runner.invoke(main, ["check"])
    assert ok.exit_code == 0 and "up to date" in ok.output
    stale = runner.invoke(main, ["check", "--model", "msgspec"])
    assert stale.exit_code == 1 and "llm/deepseek/models.py" in stale.output
    assert runner.invoke(main, ["generate", "-q", "--model", "msgspec"]).exit_code == 0
    assert "(msgspec.Struct" in (tmp_path / "llm" / "deepseek" / "models.py").read_text(encoding="utf-8")
    assert not (tmp_path / "llm" / "_runtime" / "pydantic_support.py").exists()
    assert runner.invoke(main, ["check", "--model", "msgspec"]).exit_code == 0


def test_unknown_model_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ssegen]\nmodel = "attrs"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["generate"])
    assert result.exit_code == 1 and "supported: msgspec, pydantic" in result.output
    assert CliRunner().invoke(main, ["generate", "--model", "attrs"]).exit_code == 2


def test_output_folder_name_is_the_package_the_docstrings_name() -> None:
    init = (pydantic_output() / "deepseek" / "__init__.py").read_text(encoding="utf-8")
    assert f"from {PYDANTIC_ROOT}.deepseek import channel" in init


def test_conform_replays_a_stream_through_a_pydantic_package() -> None:
    capture = GENERATED / "siliconstorm" / "examples" / "streaming-inference-2.sse"
    result = CliRunner().invoke(
        main,
        ["conform", "--out", str(pydantic_output()), "siliconstorm", "/chat/completions", str(capture), "--full-text"],
    )
    assert result.exit_code == 0, result.output
    assert "11 events, 0 violations, complete=True" in result.output

"""ssegen as a build-time step in another repository: config, check, never clobber, watch."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT, SPECS
from helpers.trees import file_tree
from helpers.waiting import wait_for

from ssegen.cli import main


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another repo: specs in `api/`, output in `src/myapp/llm_stream`, settings in pyproject.toml."""
    shutil.copytree(SPECS / "mistral", tmp_path / "api" / "mistral")
    shutil.copytree(SPECS / "deepseek", tmp_path / "api" / "deepseek")
    (tmp_path / "src" / "myapp").mkdir(parents=True)
    (tmp_path / "src" / "myapp" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "myapp"\nversion = "1"\n\n'
        '[tool.ssegen]\nspecs = "api"\nout = "src/myapp/llm_stream"\nproviders = ["mistral"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_config_sets_specs_out_and_providers_and_output_imports_by_its_package(project: Path) -> None:
    code, output = _run("generate")
    assert code == 0, output
    out = project / "src" / "myapp" / "llm_stream"
    assert (out / "mistral" / "models.py").is_file() and not (out / "deepseek").exists()
    assert "from myapp.llm_stream.mistral import channel" in (out / "mistral" / "__init__.py").read_text(
        encoding="utf-8"
    )
    probe = (
        "from myapp.llm_stream.mistral import CHANNELS\n"
        "ch = CHANNELS['/chat/completions']\n"
        "print(ch.accumulate(ch.decode(["
        'b\'data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m",\'\n'
        '  b\'"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\\n\\ndata: [DONE]\\n\\n\''
        "])).choices[0].content)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=project / "src", capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_flags_override_the_config(project: Path) -> None:
    code, output = _run("generate", "--out", "other", "deepseek")
    assert code == 0, output
    assert (project / "other" / "deepseek" / "models.py").is_file()
    assert not (project / "src" / "myapp" / "llm_stream").exists()


def test_bad_config_is_a_clear_error(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.ssegen]\nmodel = "attrs"\n', encoding="utf-8")
    code, output = _run("check")
    assert code == 1 and "pyproject.toml" in output and "model 'attrs' is not supported" in output


def test_check_fails_after_a_spec_edit_naming_stale_files_and_passes_after_regenerating(project: Path) -> None:
    assert _run("generate")[0] == 0
    assert _run("check") == (0, "src/myapp/llm_stream/ is up to date (1 provider)\n")
    page = project / "api" / "mistral" / "asyncapi-page.txt"
    page.write_text(
        page.read_text(encoding="utf-8").replace("Number of tokens in the prompt.", "Prompt tokens."), encoding="utf-8"
    )
    code, output = _run("check")
    assert code == 1
    assert "stale: src/myapp/llm_stream/mistral/models.py" in output
    assert "stale: src/myapp/llm_stream/ssegen-manifest.json" in output
    assert _run("generate")[0] == 0
    assert _run("check")[0] == 0


def test_noop_check_answers_from_the_manifest_without_building(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run("generate")[0] == 0
    import ssegen.pipeline

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("check rebuilt although nothing changed")

    monkeypatch.setattr(ssegen.pipeline, "build", refuse)
    assert _run("check")[0] == 0


def test_hand_edited_file_is_reported_and_kept_unless_forced(project: Path) -> None:
    assert _run("generate")[0] == 0
    models = project / "src" / "myapp" / "llm_stream" / "mistral" / "models.py"
    edited = models.read_text(encoding="utf-8") + "\n# my local patch\n"
    models.write_text(edited, encoding="utf-8")
    code, output = _run("check")
    assert code == 1 and "edited by hand: src/myapp/llm_stream/mistral/models.py" in output
    page = project / "api" / "mistral" / "asyncapi-page.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("Prompt tokens", "Tokens of the prompt"), encoding="utf-8")
    code, output = _run("generate")
    assert code == 1 and "NOT overwritten (edited by hand; use --force)" in output
    assert models.read_text(encoding="utf-8") == edited
    assert _run("generate", "--force")[0] == 0
    assert "# my local patch" not in models.read_text(encoding="utf-8")
    assert _run("check")[0] == 0


def test_files_ssegen_did_not_write_are_left_alone_and_reported(project: Path) -> None:
    assert _run("generate")[0] == 0
    mine = project / "src" / "myapp" / "llm_stream" / "mistral" / "helpers.py"
    mine.write_text("VALUE = 1\n", encoding="utf-8")
    code, output = _run("generate")
    assert code == 0 and "left alone (not written by ssegen): src/myapp/llm_stream/mistral/helpers.py" in output
    assert mine.read_text(encoding="utf-8") == "VALUE = 1\n"
    code, output = _run("check")
    assert code == 0


def test_files_no_longer_generated_are_removed(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.ssegen]\nspecs = "api"\nout = "gen"\n', encoding="utf-8")
    assert _run("generate")[0] == 0
    assert (project / "gen" / "deepseek" / "models.py").is_file()
    shutil.rmtree(project / "api" / "deepseek")
    code, output = _run("generate")
    assert code == 0 and "removed (no longer generated): gen/deepseek/models.py" in output
    assert not (project / "gen" / "deepseek").exists()
    assert _run("check")[0] == 0


def test_pre_commit_hook_runs_ssegen_check() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    check = next(h for h in hooks if h["id"] == "ssegen-check")
    assert check["entry"] == "ssegen check" and check["language"] == "python" and check["pass_filenames"] is False


def test_watch_regenerates_on_spec_change_and_survives_a_broken_spec(project: Path) -> None:
    models = project / "src" / "myapp" / "llm_stream" / "mistral" / "models.py"
    log = project / "watch.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ssegen", "watch", "--debounce", "100"],
            cwd=project,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    try:
        assert wait_for(lambda: models.is_file() and "done in" in log.read_text()), log.read_text()
        time.sleep(0.5)  # the watcher is armed once the first run is printed
        page = project / "api" / "mistral" / "asyncapi-page.txt"
        original = page.read_text(encoding="utf-8")
        page.write_text(original.replace("Number of tokens in the prompt.", "Tokens read."), encoding="utf-8")
        assert wait_for(lambda: "Tokens read." in models.read_text(encoding="utf-8")), log.read_text()
        page.write_text(original.replace("channels:\n", "channels: [\n", 1), encoding="utf-8")
        assert wait_for(lambda: "yaml-syntax" in log.read_text()), log.read_text()
        assert proc.poll() is None, "watch died on a broken spec"
        before = log.read_text().count("done in")
        page.write_text(original.replace("Number of tokens in the prompt.", "Tokens read again."), encoding="utf-8")
        assert wait_for(lambda: "Tokens read again." in models.read_text(encoding="utf-8")), log.read_text()
        # The files are written before the run's summary is printed: count once it is.
        assert wait_for(lambda: log.read_text().count("done in") > before), log.read_text()
        runs = log.read_text().count("done in")
        time.sleep(1.0)
        assert log.read_text().count("done in") == runs, "watch regenerated without a spec change (its own output?)"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_generate_writes_the_same_bytes_from_any_folder_of_the_project(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = project / "src" / "myapp" / "llm_stream"
    trees = []
    for folder in (project, project / "src" / "myapp", project / "api" / "mistral"):
        shutil.rmtree(out, ignore_errors=True)
        monkeypatch.chdir(folder)
        code, output = _run("generate")
        assert code == 0, output
        trees.append(file_tree(out))
        assert _run("check")[0] == 0
    assert trees[0] == trees[1] == trees[2]
    init = (out / "mistral" / "__init__.py").read_text(encoding="utf-8")
    assert "from myapp.llm_stream.mistral import channel" in init
    assert init.startswith("# Generated by ssegen") and " from api/mistral/;" in init.splitlines()[0]
    assert "Generated by ssegen from api/mistral/;" in init


def test_check_rebuilds_when_the_package_name_changes(project: Path) -> None:
    assert _run("generate")[0] == 0
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + 'package = "myapp.streams"\n', encoding="utf-8")
    code, output = _run("check")
    assert code == 1 and "stale: src/myapp/llm_stream/mistral/__init__.py" in output
    assert _run("generate")[0] == 0
    assert _run("check")[0] == 0


def test_tests_out_puts_conformance_tests_apart_from_the_package(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8").replace('providers = ["mistral"]', 'providers = ["deepseek"]')
    pyproject.write_text(text + 'tests_out = "tests/llm_stream"\n', encoding="utf-8")
    code, output = _run("generate")
    assert code == 0, output
    package, tests = project / "src" / "myapp" / "llm_stream" / "deepseek", project / "tests" / "llm_stream"
    assert (package / "schemas.json").is_file() and not (package / "test_conformance.py").exists()
    assert not (package / "examples").exists()
    module = tests / "deepseek" / "test_deepseek_conformance.py"
    assert "from myapp.llm_stream.deepseek import CHANNELS" in module.read_text(encoding="utf-8")
    assert sorted(p.name for p in (tests / "deepseek" / "examples").iterdir()) == ["stream-example.sse"]
    assert (tests / "ssegen-manifest.json").is_file() and not (tests / "__init__.py").exists()
    assert _run("check") == (0, "src/myapp/llm_stream/, tests/llm_stream/ are up to date (1 provider)\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0 and " passed" in run.stdout, run.stdout + run.stderr
    (tests / "deepseek" / "examples" / "stream-example.sse").write_text("edited\n", encoding="utf-8")
    code, output = _run("check")
    assert code == 1 and "edited by hand: tests/llm_stream/deepseek/examples/stream-example.sse" in output

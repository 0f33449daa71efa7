"""ssegen's pre-commit hooks, run by pre-commit itself as docs/build-step.md says: `pre-commit try-repo ../ssegen HOOK`.

pre-commit installs ssegen from this repository (its HEAD plus uncommitted changes to tracked files) into
its own environment; the project is a git repository beside it with specs, config and generated output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SPECS
from helpers.readme import doc_block

# pre-commit installs ssegen into environments of its own: .ci/run runs it (`pytest -m "sdk or slow"`).
pytestmark = pytest.mark.slow

BUILD_STEP = "docs/build-step.md"  # the walkthrough these tests follow

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
SPEC = Path("api-specs") / "deepseek" / "asyncapi-page.txt"


def _env(tmp_path: Path) -> dict[str, str]:
    """This venv's pre-commit first on PATH, its own cache, a git identity for commits."""
    return {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        "PATH": f"{PRE_COMMIT.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }


def test_hooks_pass_when_up_to_date_and_fail_after_a_spec_edit_until_regenerated_and_staged(tmp_path: Path) -> None:
    (tmp_path / "ssegen").symlink_to(ROOT, target_is_directory=True)
    project = tmp_path / "myapp"
    shutil.copytree(SPECS / "deepseek", project / SPEC.parent)
    pyproject = doc_block(BUILD_STEP, "toml", "# your pyproject.toml").text
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    env = _env(tmp_path)

    def sh(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-ec", command], cwd=project, env=env, capture_output=True, text=True)

    generated = sh(f"{sys.executable} -m ssegen generate -q")
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert sh("git init -q && git add -A && git commit -qm 'specs and generated output'").returncode == 0
    check_hook, generate_hook = doc_block(BUILD_STEP, "sh", "pre-commit try-repo").commands()
    assert check_hook.endswith(" ssegen-check") and generate_hook.endswith(" ssegen-generate")

    for hook in (check_hook, generate_hook):
        run = sh(hook)
        assert run.returncode == 0 and "Passed" in run.stdout, run.stdout + run.stderr

    spec = project / SPEC
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("Unique identifier for the chat completion.", "Completion id.", 1),
        encoding="utf-8",
    )
    assert sh("git add -A").returncode == 0  # the spec edit, staged for a commit
    run = sh(check_hook)
    assert run.returncode == 1 and "stale: src/myapp/llm_stream/deepseek/models.py" in run.stdout, run.stdout
    assert sh("git status --porcelain").stdout == f"M  {SPEC.as_posix()}\n", "ssegen-check must not write"

    run = sh(generate_hook)
    assert run.returncode == 1 and "files were modified by this hook" in run.stdout, run.stdout + run.stderr
    unstaged = sh("git diff --name-only").stdout.split()
    assert (
        "src/myapp/llm_stream/deepseek/models.py" in unstaged
        and "src/myapp/llm_stream/ssegen-manifest.json" in unstaged
    )

    assert sh("git add -A").returncode == 0  # the user stages the regenerated files and commits again
    for hook in (generate_hook, check_hook):
        run = sh(hook)
        assert run.returncode == 0 and "Passed" in run.stdout, run.stdout + run.stderr


def test_readme_pre_commit_config_runs_once_its_url_and_commit_are_filled_in(tmp_path: Path) -> None:
    """The docs' `.pre-commit-config.yaml` with a local path for the URL (as it allows) and the commit
    `git -C ../ssegen rev-parse HEAD` prints, run by `pre-commit run` in a project that is up to date."""
    (tmp_path / "ssegen").symlink_to(ROOT, target_is_directory=True)
    project = tmp_path / "myapp"
    shutil.copytree(SPECS / "deepseek", project / SPEC.parent)
    pyproject = doc_block(BUILD_STEP, "toml", "# your pyproject.toml").text
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    env = _env(tmp_path)

    def sh(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-ec", command], cwd=project, env=env, capture_output=True, text=True)

    assert sh(f"{sys.executable} -m ssegen generate -q").returncode == 0
    commit = sh("git -C ../ssegen rev-parse HEAD").stdout.strip()
    config = doc_block(BUILD_STEP, "yaml", "# .pre-commit-config.yaml").text
    assert "https://github.com/your-fork/ssegen" in config and "<commit SHA>" in config
    filled = config.replace("https://github.com/your-fork/ssegen", "../ssegen").replace("<commit SHA>", commit)
    (project / ".pre-commit-config.yaml").write_text(filled, encoding="utf-8")
    assert sh("git init -q && git add -A && git commit -qm 'specs, output, hooks'").returncode == 0
    run = sh("pre-commit run --all-files")
    assert run.returncode == 0 and "ssegen check" in run.stdout and "Passed" in run.stdout, run.stdout + run.stderr

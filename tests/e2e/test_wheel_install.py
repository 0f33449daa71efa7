"""Installed, not editable: a built wheel gives a working `ssegen` with its templates, from any folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import GENERATED, ROOT, SPECS
from helpers.trees import file_tree

# Builds a wheel and installs it into a fresh venv: .ci/run runs it (`pytest -m "sdk or slow"`).
pytestmark = pytest.mark.slow


def test_wheel_installs_into_a_fresh_venv_and_generates_the_golden_output(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(dist.glob("ssegen-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True, check=False
    )
    assert install.returncode == 0, install.stderr[-2000:]

    work = tmp_path / "elsewhere"
    shutil.copytree(SPECS, work / "specs")
    ssegen = env_dir / "bin" / "ssegen"
    where = subprocess.run(
        [str(python), "-c", "import ssegen; print(ssegen.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip().startswith(str(env_dir)), "the wheel, not the source tree, must be imported"
    run = subprocess.run([str(ssegen), "generate", "-q"], cwd=work, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert file_tree(work / "generated") == file_tree(GENERATED)
    check = subprocess.run([str(ssegen), "check"], cwd=work, capture_output=True, text=True, check=False)
    assert check.returncode == 0 and "up to date" in check.stdout

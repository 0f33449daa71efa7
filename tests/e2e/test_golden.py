"""Golden records: regenerating must reproduce generated/ byte for byte, and the IR and diagnostics
of every provider must match tests/golden/ (refreshed on purpose by tests/golden/regen.py)."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GENERATED, ROOT, SPECS
from golden import regen as golden_records
from helpers.trees import file_tree

# Python 3.12 made ``type`` a soft keyword (3.11: ``_``, ``case``, ``match``); a later Python may
# add more. Simulated in the generating process, the output must not change.
_SOFT_KEYWORDS_3_12 = """
import keyword, runpy, sys
keyword.softkwlist = ["_", "case", "match", "type"]
keyword.issoftkeyword = frozenset(keyword.softkwlist).__contains__
sys.argv = ["ssegen", *sys.argv[1:]]
runpy.run_module("ssegen", run_name="__main__")
"""


def _generate(out: Path, hashseed: str, *, soft_keywords_3_12: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    runner = ["-c", _SOFT_KEYWORDS_3_12] if soft_keywords_3_12 else ["-m", "ssegen"]
    return subprocess.run(
        [sys.executable, *runner, "generate", "--specs", str(SPECS), "--out", str(out), "-q"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def root_generation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``ssegen generate --out <tmp>`` from the repository root, as a user types it there (its
    [tool.ssegen]: the specs folder, strict = true, two reviewed warts), hash seed 0: the output
    folder and the finished process.  One whole generation, read by two tests."""
    out = tmp_path_factory.mktemp("root_generation") / "generated"
    result = subprocess.run(
        [sys.executable, "-m", "ssegen", "generate", "--out", str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    return out, result


def test_regenerating_reproduces_committed_output(
    root_generation: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, result = root_generation
    assert result.returncode == 0, result.stdout + result.stderr
    fresh, golden = file_tree(out), file_tree(GENERATED)
    assert sorted(fresh) == sorted(golden)
    different = [name for name in fresh if fresh[name] != golden[name]]
    assert different == [], "regenerate with `ssegen generate` and commit: " + ", ".join(different)
    assert not filecmp.dircmp(out, GENERATED, ignore=["__pycache__"]).diff_files


@pytest.mark.slow  # three whole generations in subprocesses: .ci/run runs it
def test_output_is_identical_across_hash_seeds(tmp_path: Path) -> None:
    trees = []
    for seed in ("1", "2", "12345"):
        out = tmp_path / f"seed{seed}" / "generated"
        result = _generate(out, seed)
        assert result.returncode == 0, result.stderr
        trees.append(file_tree(out))
    assert trees[0] == trees[1] == trees[2]


@pytest.mark.slow  # a whole generation in a subprocess: .ci/run runs it
def test_output_is_identical_with_python_3_12_soft_keywords(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    result = _generate(out, "0", soft_keywords_3_12=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert file_tree(out) == file_tree(GENERATED)
    # the SDKs' spelling, at the use site
    assert "    type: Literal[" in (GENERATED / "anthropic" / "models.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("provider", golden_records.providers())
def test_ir_and_diagnostics_match_the_golden_records(provider: str) -> None:
    ir_json, diagnostics = golden_records.ir_and_diagnostics(provider)
    golden = Path(golden_records.__file__).parent
    assert ir_json == (golden / "ir" / f"{provider}.json").read_text(encoding="utf-8"), (
        "refresh on purpose: tests/golden/regen.py"
    )
    assert diagnostics == (golden / "diagnostics" / f"{provider}.txt").read_text(encoding="utf-8")


def test_the_seeds_build_strict_and_print_at_most_one_screen(
    root_generation: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """`ssegen generate` from the repository root uses its [tool.ssegen] (strict = true, two reviewed
    warts): it passes, and prints one line per provider, not a line per info."""
    _, result = root_generation
    assert result.returncode == 0, result.stdout + result.stderr
    lines = (result.stdout + result.stderr).splitlines()
    assert len(lines) <= 24, "\n".join(lines)
    assert [line for line in lines if "[" in line] == [], "no diagnostic above info on the seeds"

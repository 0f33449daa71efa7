"""`formatter` and `line_length` in [tool.ssegen]: ruff gives black's bytes at 100 columns, a change
of either makes the output stale, bad values are errors naming the key, and neither ssegen's own
nor the user's ruff configuration reaches the output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SPECS

from ssegen.cli import main
from ssegen.config import ConfigError, load_config
from ssegen.formatting import FormatError, format_python


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(SPECS / "mistral", tmp_path / "specs" / "mistral")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _config(project: Path, extra: str) -> None:
    (project / "pyproject.toml").write_text(f'[tool.ssegen]\nout = "generated"\n{extra}', encoding="utf-8")


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_ruff_gives_blacks_bytes_and_the_manifest_records_the_formatter(project: Path) -> None:
    _config(project, "")
    assert _run("generate", "-q")[0] == 0
    black_tree = _tree(project / "generated")
    # The user's own ruff settings (another line length, single quotes) must not leak in.
    (project / "ruff.toml").write_text('line-length = 60\n[format]\nquote-style = "single"\n', encoding="utf-8")
    _config(project, 'formatter = "ruff"\n')
    code, output = _run("check")
    assert code == 1 and "stale: generated/ssegen-manifest.json" in output and "models.py" not in output
    assert _run("generate", "-q")[0] == 0
    ruff_tree = _tree(project / "generated")
    assert set(ruff_tree) == set(black_tree)
    assert [rel for rel in ruff_tree if ruff_tree[rel] != black_tree[rel]] == ["ssegen-manifest.json"]
    assert b'"formatter": "ruff"' in ruff_tree["ssegen-manifest.json"]
    assert _run("check")[0] == 0


def test_a_line_length_change_makes_every_python_file_stale_and_is_applied(project: Path) -> None:
    _config(project, 'formatter = "ruff"\n')
    assert _run("generate", "-q")[0] == 0
    _config(project, 'formatter = "ruff"\nline_length = 79\n')
    code, output = _run("check")
    assert code == 1 and "stale: generated/_runtime/stream.py" in output
    wide = _tree(project / "generated")
    assert _run("generate", "-q")[0] == 0
    narrow = _tree(project / "generated")
    assert all(narrow[rel] != wide[rel] for rel in ("mistral/models.py", "mistral/channels.py", "_runtime/stream.py"))
    for rel, content in narrow.items():
        if rel.endswith(".py"):
            text = content.decode("utf-8")
            assert format_python(text, rel, "ruff", 79) == text, rel
    assert b'"line_length": "79"' in (project / "generated" / "ssegen-manifest.json").read_bytes()


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('formatter = "yapf"', "formatter 'yapf' is not supported (supported: black, ruff)"),
        ("formatter = 1", "formatter must be a string"),
        ('line_length = "100"', "line_length must be an integer (columns), not '100'"),
        ("line_length = true", "line_length must be an integer"),
        ("line_length = 0", "line_length 0 is out of range (1 to 320 columns)"),
        ("line_length = 1000", "line_length 1000 is out of range"),
    ],
)
def test_a_bad_formatter_or_line_length_is_an_error_naming_the_key(project: Path, setting: str, message: str) -> None:
    _config(project, setting + "\n")
    with pytest.raises(ConfigError, match="pyproject.toml: \\[tool.ssegen\\] " + message.replace("(", "\\(")[:40]):
        load_config(project)
    code, output = _run("generate")
    assert code == 1 and message in output


def test_invalid_python_is_a_format_error_naming_the_generated_file() -> None:
    for formatter in ("black", "ruff"):
        with pytest.raises(FormatError, match="mistral/models.py"):
            format_python("# Generated\ndef broken(:\n", "mistral/models.py", formatter)


def test_a_missing_ruff_is_a_clear_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import ssegen.formatting

    monkeypatch.setitem(sys.modules, "ruff.__main__", None)  # as if ruff were not installed
    monkeypatch.setattr(ssegen.formatting, "_RUFF_CACHE", {})
    _config(project, 'formatter = "ruff"\n')
    code, output = _run("generate", "-q")
    assert code == 1 and 'formatter = "ruff" needs the ruff package' in output


def test_a_users_formatter_run_is_not_called_a_hand_edit_and_generate_restores_it(project: Path) -> None:
    import subprocess
    import sys

    _config(project, "")
    assert _run("generate", "-q")[0] == 0
    before = _tree(project / "generated")
    ruff = str(Path(sys.executable).parent / "ruff")
    # The user's own formatter, with its defaults (88 columns): it rewrites most generated files.
    subprocess.run([ruff, "format", "--isolated", "generated"], cwd=project, check=True, capture_output=True)
    touched = sorted(rel for rel, content in _tree(project / "generated").items() if content != before[rel])
    assert "_runtime/stream.py" in touched
    code, output = _run("check")
    assert code == 1 and "edited by hand" not in output, output
    assert {line.split("generated/")[-1] for line in output.splitlines() if line.startswith("reformatted")} == set(
        touched
    )
    assert "exclude the output folder" in output
    code, output = _run("generate")
    assert (
        code == 0
        and "restored ssegen's formatting (another formatter rewrote it): generated/_runtime/stream.py" in output
    )
    assert _tree(project / "generated") == before
    # A real edit after a formatter run is still one.
    subprocess.run([ruff, "format", "--isolated", "generated"], cwd=project, check=True, capture_output=True)
    models = project / "generated" / "mistral" / "models.py"
    models.write_text(models.read_text(encoding="utf-8").replace("class ", "class My", 1), encoding="utf-8")
    code, output = _run("check")
    assert code == 1 and "edited by hand: generated/mistral/models.py" in output
    assert "reformatted by another formatter: generated/_runtime/stream.py" in output

"""The generator's layering (issue 32): ``lint-imports`` keeps the contracts of
``[tool.importlinter]`` in ``pyproject.toml`` (sources -> normalize -> codemodel -> emit -> cli,
the runtime importing nothing of the generator, the tools apart, no import circles), and every
module of ``ssegen`` has its place in them, so a new module cannot slip past the layers."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from conftest import ROOT

from ssegen import output

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _named(contract: dict[str, Any], key: str) -> set[str]:
    """The modules a contract names under ``key`` (a layer's ``a | b`` counts each)."""
    return {name.strip() for entry in contract.get(key, []) for name in entry.split("|")}


def test_lint_imports_keeps_every_contract() -> None:
    # --no-cache: a test writes nothing into the repository.
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False, timeout=300
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_every_top_level_module_has_a_place() -> None:
    package = output.package_dir()
    modules = {f"ssegen.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    modules |= {f"ssegen.{p.parent.name}" for p in package.glob("*/__init__.py")}
    contracts = _contracts()
    layers = next(c for c in contracts if c["type"] == "layers")
    tools = next(c for c in contracts if "ssegen.pytest_plugin" in _named(c, "source_modules"))
    placed = _named(layers, "layers") | _named(tools, "source_modules") | {"ssegen.runtime"}
    assert sorted(modules - placed) == [], "place each new module in a layer or among the tools in pyproject.toml"
    runtime = next(c for c in contracts if _named(c, "source_modules") == {"ssegen.runtime"})
    assert sorted(modules - {"ssegen.runtime"} - _named(runtime, "forbidden_modules")) == [], (
        "forbid the runtime to import each new module in pyproject.toml"
    )

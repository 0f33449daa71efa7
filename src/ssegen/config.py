"""Settings: ``[tool.ssegen]`` in the user's ``pyproject.toml``, overridden by CLI flags.

Example (in the consuming repository's ``pyproject.toml``)::

    [tool.ssegen]
    specs = "api-specs"              # folder of provider folders
    out = "src/myapp/llm_stream"     # output folder (becomes a package)
    package = "myapp.llm_stream"     # its import name (default: derived from `out`)
    providers = ["deepseek"]         # default: every folder under `specs`
    model = "msgspec"                # model flavour: "msgspec" (msgspec.Struct) or "pydantic" (v2 BaseModel)
    strict = false                   # warnings are errors

Relative paths are relative to the folder holding ``pyproject.toml``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

#: Model flavours the emitter supports.
MODEL_FLAVOURS = ("msgspec", "pydantic")


class ConfigError(Exception):
    """``[tool.ssegen]`` is malformed; the message names the file and key."""


@dataclass(frozen=True)
class Config:
    """Resolved settings.

    Attributes:
        specs: folder of provider folders.
        out: output folder.
        package: dotted import name of ``out`` (used in generated docstrings).
        providers: providers to build (empty: all).
        model: model flavour (see :data:`MODEL_FLAVOURS`).
        strict: warnings are errors.
        source: the ``pyproject.toml`` the settings came from (None: defaults).
    """

    specs: Path = Path("specs")
    out: Path = Path("generated")
    package: str = ""
    providers: tuple[str, ...] = ()
    model: str = "msgspec"
    strict: bool = False
    source: Path | None = field(default=None, compare=False)

    @property
    def import_name(self) -> str:
        """``package``, or one derived from ``out``.

        A relative ``out`` maps to a dotted name with a leading ``src/`` dropped
        (``src/myapp/llm`` -> ``myapp.llm``); an absolute one to its last part.
        """
        if self.package:
            return self.package
        if self.out.is_absolute():
            return self.out.name or "generated"
        parts = [p for p in self.out.parts if p not in (".", "")]
        if parts and parts[0] == "src":
            parts = parts[1:]
        return ".".join(parts) or "generated"


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has ``[tool.ssegen]``."""
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError):
                continue
            if "ssegen" in data.get("tool", {}):
                return candidate
    return None


def load_config(start: Path) -> Config:
    """Settings from the nearest ``pyproject.toml`` with ``[tool.ssegen]`` (defaults if none).

    Raises:
        ConfigError: a key has the wrong type or an unknown value.
    """
    path = find_pyproject(start)
    if path is None:
        return Config()
    table: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["ssegen"]
    base = path.parent

    def text(key: str, default: str) -> str:
        value = table.get(key, default)
        if not isinstance(value, str):
            raise ConfigError(f"{path}: [tool.ssegen] {key} must be a string")
        return value

    unknown = sorted(set(table) - {"specs", "out", "package", "providers", "model", "strict"})
    if unknown:
        raise ConfigError(f"{path}: [tool.ssegen] has unknown keys: {', '.join(unknown)}")
    providers = table.get("providers", [])
    if not isinstance(providers, list) or not all(isinstance(p, str) for p in providers):
        raise ConfigError(f"{path}: [tool.ssegen] providers must be a list of strings")
    strict = table.get("strict", False)
    if not isinstance(strict, bool):
        raise ConfigError(f"{path}: [tool.ssegen] strict must be true or false")
    model = text("model", "msgspec")
    if model not in MODEL_FLAVOURS:
        raise ConfigError(
            f"{path}: [tool.ssegen] model {model!r} is not supported (supported: {', '.join(MODEL_FLAVOURS)})"
        )
    return Config(
        specs=_relative(base, Path(text("specs", "specs"))),
        out=_relative(base, Path(text("out", "generated"))),
        package=text("package", ""),
        providers=tuple(providers),
        model=model,
        strict=strict,
        source=path,
    )


def _relative(base: Path, path: Path) -> Path:
    """``path`` resolved against ``base``, shown relative to the working folder when inside it."""
    full = path if path.is_absolute() else base / path
    try:
        return full.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return full


def override(config: Config, **flags: Any) -> Config:
    """``config`` with every flag that is not None applied (CLI flags win over the file)."""
    changes = {k: v for k, v in flags.items() if v is not None}
    if "providers" in changes:
        changes["providers"] = tuple(changes["providers"])
    return replace(config, **changes)

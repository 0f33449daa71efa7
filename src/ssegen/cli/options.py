"""The options several commands share, and the settings they make: ``[tool.ssegen]`` in the
nearest ``pyproject.toml`` (:mod:`ssegen.config`) with the flags given laid over it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..config import MODEL_FLAVOURS, Config, ConfigError, load_config, override
from .report import LEVELS

SPECS_OPTION = click.option(
    "--specs",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help=(
        "Folder of provider folders; every file in specs/<provider>/ is a source.  "
        "[default: specs, or tool.ssegen.specs]"
    ),
)
OUT_OPTION = click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help=(
        "Output folder; it becomes a Python package holding one subpackage per provider.  "
        "[default: generated, or tool.ssegen.out]"
    ),
)
TESTS_OUT_OPTION = click.option(
    "--tests-out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help=(
        "Folder for the conformance tests and their example streams, apart from the packages "
        "(importing them by name).  [default: inside each package, or tool.ssegen.tests_out]"
    ),
)
PACKAGE_OPTION = click.option(
    "--package",
    default=None,
    help=(
        "Import name of the output folder, for generated docstrings "
        "(default: derived from --out, e.g. src/myapp/llm -> myapp.llm)."
    ),
)
MODEL_OPTION = click.option(
    "--model",
    type=click.Choice(MODEL_FLAVOURS),
    default=None,
    help="Generated classes: msgspec Structs or pydantic v2 BaseModels.  [default: msgspec, or tool.ssegen.model]",
)
FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help=(
        "Diagnostics as `path:line: pointer: severity[code]: message` lines on stderr (coloured on a "
        "terminal unless NO_COLOR is set), or on stdout as a JSON array, GitHub Actions annotations "
        "(workflow commands), or a SARIF 2.1.0 log."
    ),
)
IR_FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="The IR with diagnostics as lines on stderr, or one JSON object holding both on stdout.",
)
VERBOSE_OPTION = click.option(
    "--verbose", "-v", is_flag=True, help="Also print info diagnostics (same as --min-severity info)."
)
QUIET_OPTION = click.option(
    "--quiet", "-q", is_flag=True, help="No per-provider summary; diagnostics are still printed (see --min-severity)."
)
MIN_SEVERITY_OPTION = click.option(
    "--min-severity",
    type=click.Choice(LEVELS),
    default=None,
    help="Print diagnostics of this severity and above.  [default: warning; info with -v or --format json]",
)


def config_from_flags(**flags: Any) -> Config:
    """The project's settings with ``flags`` (those given, not None) laid over them.

    Raises:
        click.ClickException: the project's ``[tool.ssegen]`` is broken (:class:`ssegen.config.ConfigError`).
    """
    try:
        return override(load_config(Path.cwd()), **flags)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def least_severity(verbose: bool, given: str | None, fmt: str = "text") -> str:
    """The least severity printed: ``--min-severity``, else info with -v or JSON or SARIF output
    (their readers filter), else warning."""
    return given or ("info" if verbose or fmt in ("json", "sarif") else "warning")


def output_folders(config: Config) -> list[Path]:
    """The folders ssegen writes: ``out``, and ``tests_out`` when set."""
    return [config.out] + ([config.tests_out] if config.tests_out is not None else [])

"""``ssegen diff``: what a spec change does to the streams, classified (issue 37; docs/diff.md).

The command finds the two sides (:mod:`ssegen.diff.sides`), loads each provider of both through
the normal pipeline (:func:`ssegen.load.load_provider`), compares the IRs
(:func:`ssegen.diff.compare_providers`) and prints the report (:mod:`ssegen.diff.report`).
:func:`check_report_lines` gives ``ssegen check --diff`` the same report, from the specs the output
was generated from to the specs now.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .completion import complete_specs_providers
from .console import print_diagnostics
from .options import SPECS_OPTION, config_from_flags

if TYPE_CHECKING:
    from ..config import Config
    from ..diagnostics import Diagnostic
    from ..diff.report import DiffReport
    from ..diff.sides import Specs
    from ..ir import Provider

#: Exit codes: nothing breaking, something breaking (or critical), the comparison could not be made.
EXIT_COMPATIBLE, EXIT_BREAKING, EXIT_UNCOMPARED = 0, 1, 2


@click.command("diff")
@SPECS_OPTION
@click.option(
    "--rev",
    default=None,
    metavar="REV",
    help=(
        "Compare the specs folder at git revision REV (OLD) with the work tree (NEW); the arguments then "
        "name providers (default: all)."
    ),
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help=(
        "The report as text (grouped by channel, a summary line per provider), one JSON document (stable, "
        "docs/diff.md), GitHub Actions annotations of the spec lines, or a SARIF 2.1.0 log; on stdout."
    ),
)
@click.argument("args", nargs=-1, shell_complete=complete_specs_providers)
def diff_command(specs: Path | None, rev: str | None, fmt: str, args: tuple[str, ...]) -> None:
    """Classify what the spec change from OLD to NEW does to the streams.

    \b
      ssegen diff OLD NEW             two specs folders, or two provider folders
      ssegen diff --rev REV [P...]    the specs folder at git revision REV -> the work tree

    Both sides are loaded through the normal pipeline and compared channel by channel and
    message by message. Each change is compatible (a new event type arrives as UnknownEvent, a
    new member or enum value is taken by lenient decoding), breaking (a message, member or event
    gone or renamed, a type changed, a payload decoding as another message, another framing), or
    critical (the generated accumulator would give wrong or incomplete results: the stream's end,
    a member a plan step reads, usage moved).

    Exits 0 when nothing is breaking, 1 when something is breaking or critical, 2 on usage
    errors and when a side's specs have errors (nothing compared for that provider).
    """
    from ..diff.sides import SidesError

    config = config_from_flags(specs=specs)
    with tempfile.TemporaryDirectory(prefix="ssegen-diff-") as tmp:
        try:
            old, new, names = _sides(config, rev, args, Path(tmp))
        except SidesError as exc:
            raise click.UsageError(str(exc)) from None
        report = compare_sides(old, new, names)
    for provider in report.providers:
        print_diagnostics(provider.errors, "text", Path("."))
    _print(report, fmt)
    sys.exit(EXIT_UNCOMPARED if report.failed else EXIT_BREAKING if report.breaking else EXIT_COMPATIBLE)


def _sides(config: Config, rev: str | None, args: tuple[str, ...], tmp: Path) -> tuple[Specs, Specs, list[str]]:
    """The two sides and the providers to compare (the new side's names)."""
    from ..diff.sides import SidesError, folder_specs, revision_specs, specs_folder

    if rev is not None:
        new = specs_folder(config.specs)
        old = revision_specs(config.specs, rev, tmp)
        names = list(args) or list(config.providers) or sorted(set(old.names()) | set(new.names()))
        return old, new, names
    if len(args) != 2:
        raise SidesError(f"give OLD and NEW (two folders), or --rev REV; got {len(args)} arguments")
    old, new = folder_specs(Path(args[0])), folder_specs(Path(args[1]))
    if bool(old.provider) != bool(new.provider):
        raise SidesError("OLD and NEW must both be specs folders or both provider folders")
    return old, new, [new.provider] if new.provider else sorted(set(old.names()) | set(new.names()))


def compare_sides(old: Specs, new: Specs, names: list[str]) -> DiffReport:
    """Load and compare each provider of ``names`` on both sides (a provider folder given alone is
    compared with the other side's, whatever their names)."""
    from ..diff import compare_providers, sorted_changes
    from ..diff.report import DiffReport, ProviderDiff

    providers = []
    for name in sorted(names):
        before, errors = _load(old, old.provider or name)
        after, more = _load(new, name)
        if errors or more:
            providers.append(ProviderDiff(name, errors=errors + more, status="failed"))
            continue
        changes = sorted_changes(compare_providers(name, before, after))
        status = "added" if before is None else "removed" if after is None else "changed" if changes else "unchanged"
        if before is None and after is None:
            status = "failed"
            errors = [_missing(name, old, new)]
        providers.append(ProviderDiff(name, changes, errors, status))
    return DiffReport(old.side, new.side, providers)


def _load(side: Specs, name: str) -> tuple[Provider | None, list[Diagnostic]]:
    """The IR of provider ``name`` on ``side`` (None when the side has no such folder), and the
    error diagnostics that kept it from loading, their files named as the report names them."""
    from dataclasses import replace

    from ..load import load_provider

    if not (side.folder / name).is_dir():
        return None, []
    loaded = load_provider(side.folder, name)
    errors = [
        replace(d, file=side.side.prefix + d.file) for d in loaded.diagnostics.sorted() if d.severity.value == "error"
    ]
    return (loaded.provider if not errors else None), errors


def _missing(name: str, old: Specs, new: Specs) -> Diagnostic:
    from ..diagnostics import Diagnostic, Severity, codes

    message = f"no provider folder {name!r} in {old.side.label} nor in {new.side.label}"
    return Diagnostic("", 0, "", codes.PROVIDER_MISSING.name, Severity.ERROR, message)


def _print(report: DiffReport, fmt: str) -> None:
    from importlib.metadata import version

    from ..diagnostics.report import use_colour
    from ..diff.report import render

    colour = fmt == "text" and use_colour(sys.stdout.isatty())
    click.echo(render(report, fmt, colour=colour, version=version("ssegen")), nl=False, color=colour)


def check_report_lines(config: Config, names: list[str]) -> list[str]:
    """``ssegen check --diff``'s stream report: from the specs the output folder was generated from
    (its manifest's input hashes, :func:`ssegen.diff.sides.generated_specs`) to the specs now, for
    the providers ``names`` whose inputs changed; a line saying why when there is nothing to
    compare."""
    from ..diff.report import text_lines
    from ..diff.sides import generated_specs, specs_folder
    from ..output import Manifest, input_hashes

    manifest = Manifest.read(config.out)
    if manifest is None:
        return [f"no {config.out}/ssegen-manifest.json: nothing to tell what the output was generated from"]
    recorded = {n: manifest.providers[n]["inputs"] for n in names if n in manifest.providers}
    changed = [n for n, inputs in recorded.items() if input_hashes(config.specs, list(inputs)) != inputs]
    changed += [n for n in names if n not in recorded]
    if not changed:
        return ["the specs are those the output was generated from: what differs comes from ssegen itself"]
    with tempfile.TemporaryDirectory(prefix="ssegen-check-") as tmp:
        old, missing = generated_specs(config.specs, {n: recorded[n] for n in changed if n in recorded}, Path(tmp))
        lines = [
            f"{name}: the specs it was generated from are not in the work tree nor in git history "
            f"({', '.join(files)}); `ssegen diff --rev REV` compares with a revision"
            for name, files in sorted(missing.items())
        ]
        report = compare_sides(old, specs_folder(config.specs), [n for n in changed if n not in missing])
    return lines + text_lines(report)

"""``ssegen generate``, ``check`` and ``watch``: build the packages from the specs, and write
them, compare them with the output folders, or rebuild them on every edit.

Each command decides here what happened and asks :mod:`ssegen.cli.report` for the words.
Heavy modules (parsers, jinja2, black) are imported inside the functions, so a no-op
``ssegen check`` or ``generate`` answers from the manifests' hashes in a fraction of a second.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..config import Config
from . import report
from .completion import complete_specs_providers
from .console import SlowProviderNotice, echo_lines, print_diagnostics
from .options import (
    FORMAT_OPTION,
    MIN_SEVERITY_OPTION,
    MODEL_OPTION,
    OUT_OPTION,
    PACKAGE_OPTION,
    QUIET_OPTION,
    SPECS_OPTION,
    TESTS_OUT_OPTION,
    VERBOSE_OPTION,
    config_from_flags,
    least_severity,
    output_folders,
)

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..pipeline import Outcome, ProviderReport


@click.command()
@SPECS_OPTION
@OUT_OPTION
@TESTS_OUT_OPTION
@PACKAGE_OPTION
@MODEL_OPTION
@FORMAT_OPTION
@click.option("--strict", is_flag=True, default=None, help="Treat warnings (spec warts, reconciliations) as errors.")
@click.option(
    "--force",
    is_flag=True,
    help="Build from the specs even when the output is up to date, and overwrite generated files "
    "edited by hand and foreign files in the way.",
)
@click.option(
    "--adopt",
    is_flag=True,
    help=(
        "Take over an output folder that has no ssegen-manifest.json but holds files ssegen did not write "
        "(refused otherwise): files in the way of generated ones are overwritten, others left alone."
    ),
)
@VERBOSE_OPTION
@MIN_SEVERITY_OPTION
@QUIET_OPTION
@click.argument("providers", nargs=-1, shell_complete=complete_specs_providers)
def generate(
    specs: Path | None,
    out: Path | None,
    tests_out: Path | None,
    package: str | None,
    model: str | None,
    fmt: str,
    strict: bool | None,
    force: bool,
    adopt: bool,
    verbose: bool,
    min_severity: str | None,
    quiet: bool,
    providers: tuple[str, ...],
) -> None:
    """Generate packages for PROVIDERS (default: every folder under --specs).

    Writes only files whose content changed, deletes files it wrote before and
    no longer produces, and never touches files it did not write.  It writes only
    into a folder it owns (holding its ssegen-manifest.json, or empty): a folder
    without a manifest that holds other files is refused, naming them, unless
    --adopt.  A generated
    file edited by hand is reported and kept unless --force.  A provider whose
    specs have errors is skipped (its previous output is kept); the others are
    generated.  Prints warnings and errors, and a line per provider counting the
    rest (-v prints infos too).  Exits 1 if any provider failed or a file was not
    overwritten.

    When nothing changed since the last run (inputs, ssegen, settings and output as the
    manifest records them: what `ssegen check` tells from hashes), it says the output is up
    to date and builds nothing, as fast as `check`; diagnostics are then not printed again
    (-v, --min-severity or --format json build anyway, to print them; --force builds anyway).  After an edit of
    ssegen itself that changes none of its output, it rewrites only the manifest (which
    records the generator's fingerprint) and says so.
    """
    config = config_from_flags(
        specs=specs,
        out=out,
        tests_out=tests_out,
        package=package,
        model=model,
        strict=strict,
        providers=providers or None,
    )
    # the diagnostics are wanted, or a build was asked for whatever the hashes say: build
    asked = verbose or min_severity is not None or fmt != "text" or force
    level = least_severity(verbose, min_severity, fmt)
    if not run_generate(config, fmt, level, quiet, force, rebuild=asked, adopt=adopt):
        sys.exit(1)


def run_generate(
    config: Config,
    fmt: str,
    min_severity: str,
    quiet: bool,
    force: bool,
    *,
    rebuild: bool = False,
    adopt: bool = False,
) -> bool:
    """One generate run; True when every provider succeeded and every file was written.

    Prints the diagnostics at ``min_severity`` and above, then (unless ``quiet``) one line per
    provider with its counts, including how many diagnostics were not printed.

    When the output is up to date by the manifests' hashes (as ``check`` tells it, see
    :func:`ssegen.output.quick_check`), nothing is built or written and one line says so
    (unless ``quiet``); its diagnostics are not printed again.  ``rebuild`` builds anyway (the
    diagnostics were asked for: ``-v``, ``--min-severity``, ``--format json``), writing only
    what differs as always.

    Raises:
        click.ClickException: no specs folder or no provider in it, an output folder that
            cannot be written (:class:`ssegen.output.OutputError`), or a formatter that fails.
    """
    started = time.perf_counter()
    _require_specs(config.specs, "; every folder in it is a provider")
    if not rebuild and _answered_from_hashes(config, quiet, started):
        return True
    reports = _build(config, list(config.providers) or None, progress=fmt == "text" and not quiet)
    if not reports:
        raise click.ClickException(f"no provider folder under {config.specs}")
    first_run = not config.out.exists()
    outcomes = _write(config, reports, fmt, force=force, adopt=adopt, first_run=first_run)
    shown = report.shown_levels(min_severity)
    print_diagnostics(_at_levels(reports, shown), fmt, config.specs)
    if any(o.refused for o in outcomes):
        echo_lines(report.refused_lines(outcomes), err=True)
        return False
    if fmt == "text" and not quiet:
        places = {r.name: _places(config, r) for r in reports}
        echo_lines(report.summary_lines(reports, outcomes, shown, places, first_run))
        click.echo(report.done_line(outcomes, time.perf_counter() - started, config.out))
    echo_lines(report.ownership_lines(outcomes, adopt=adopt, force=force), err=True)
    return not any(r.failed for r in reports) and not any(set(o.plan.blocked) - set(o.written) for o in outcomes)


def _require_specs(specs: Path, hint: str) -> None:
    """Raise a :class:`click.ClickException` naming ``specs`` (and ``hint``) when it is no folder."""
    if not specs.is_dir():
        raise click.ClickException(f"no specs folder {specs} (set --specs or [tool.ssegen] specs{hint})")


def _answered_from_hashes(config: Config, quiet: bool, started: float) -> bool:
    """True (having said so unless ``quiet``) when the manifests' hashes tell the output is up to date."""
    from ..discover import provider_names

    names = list(config.providers) or provider_names(config.specs)
    if not names or not _quick_up_to_date(config, names):
        return False
    if not quiet:
        elapsed = time.perf_counter() - started
        detail = f"{report.plural(len(names), 'provider')}, inputs unchanged; nothing written, {elapsed:.2f}s"
        click.echo(report.up_to_date(output_folders(config), detail))
    return True


def _quick_up_to_date(config: Config, names: list[str]) -> bool:
    """True when every output folder is what the specs produce now, told from the manifests' hashes
    alone (inputs, ssegen version and output settings unchanged, every entry written by this very
    ssegen as its generator fingerprint says, no file edited or missing, no file ssegen did not
    write in a provider folder): no parsing, no rendering, no formatting."""
    from ..output import quick_check

    for folder in output_folders(config):
        quick = quick_check(config.specs, folder, names, config.output_settings)
        if quick is None or not quick.up_to_date or quick.foreign:  # foreign: a full run reports them
            return False
    return True


@contextlib.contextmanager
def _formatter_errors() -> Iterator[None]:
    """A formatter that is missing or fails (:class:`ssegen.formatting.FormatError`) as a usage error."""
    from ..formatting import FormatError

    try:
        yield
    except FormatError as exc:
        raise click.ClickException(str(exc)) from None


def _build(config: Config, names: list[str] | None, *, progress: bool = False) -> list[ProviderReport]:
    """Load and render the providers ``names`` (all when None), with the progress line if ``progress``."""
    from ..pipeline import build

    notice = SlowProviderNotice() if progress else None
    try:
        with _formatter_errors():
            return build(
                config.specs,
                names,
                config.output_settings,
                strict=config.strict,
                policy=config.policy,
                on_provider=notice,
            )
    finally:
        if notice is not None:
            notice.close()


def _write(
    config: Config, reports: list[ProviderReport], fmt: str, *, force: bool, adopt: bool, first_run: bool
) -> list[Outcome]:
    """Write what the specs produce now; nothing when every provider failed on a first run (an
    empty output folder would only be in the way).

    Raises:
        click.ClickException: an output folder that cannot be written, after printing the errors.
    """
    from ..output import OutputError
    from ..pipeline import generate as write

    if first_run and all(r.failed for r in reports):
        return []
    try:
        with _formatter_errors():
            return write(
                config.specs,
                config.out,
                reports,
                config.output_settings,
                all_providers=not config.providers,
                force=force,
                adopt=adopt,
                tests_out=config.tests_out,
            )
    except OutputError as exc:
        print_diagnostics(_at_levels(reports, ("error",)), fmt, config.specs)
        raise click.ClickException(str(exc)) from None


def _at_levels(reports: list[ProviderReport], shown: tuple[str, ...]) -> list[Diagnostic]:
    """Every provider's diagnostics of the severities ``shown``, each provider's sorted."""
    return [d for r in reports for d in r.diagnostics.sorted() if d.severity.value in shown]


def _places(config: Config, provider: ProviderReport) -> list[tuple[Path, str]]:
    """``(folder, path)`` of each file ``provider`` makes: its package's, and its tests' apart."""
    places = [(config.out, rel) for rel in provider.files]
    if config.tests_out is not None:
        places += [(config.tests_out, rel) for rel in provider.test_files]
    return places


@click.command()
@SPECS_OPTION
@OUT_OPTION
@TESTS_OUT_OPTION
@PACKAGE_OPTION
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help=(
        "When stale, print what the spec change does to the streams (the `ssegen diff` report, from the specs "
        "the output was generated from), then a unified diff of each stale file (disk -> specs now)."
    ),
)
@MODEL_OPTION
@click.argument("providers", nargs=-1, shell_complete=complete_specs_providers)
def check(
    specs: Path | None,
    out: Path | None,
    tests_out: Path | None,
    package: str | None,
    show_diff: bool,
    model: str | None,
    providers: tuple[str, ...],
) -> None:
    """Exit 0 if --out (and --tests-out) is exactly what the specs produce now, else 1 naming each stale file.

    Answers from the manifests' hashes when no input or setting changed and every
    entry was written by this very ssegen (its code, templates and runtime modules,
    as the fingerprint recorded per provider says: fast); otherwise regenerates in
    memory and compares the files.  A manifest that differs only in the generator
    it records does not fail the check (`ssegen generate` refreshes it, making the
    next check fast again).  Writes nothing: use it in CI and pre-commit after
    `ssegen generate`.
    """
    config = config_from_flags(
        specs=specs, out=out, tests_out=tests_out, package=package, model=model, providers=providers or None
    )
    if not run_check(config, show_diff):
        sys.exit(1)


def run_check(config: Config, show_diff: bool) -> bool:
    """One check; True when the output folders are what the specs produce now.

    From the manifests' hashes when they tell (up to date, or only hand edits of files other
    than Python ones, which may merely be reformatted); else from a full build compared file
    by file (:func:`_compare`), with a diff of each stale file when ``show_diff``.

    Raises:
        click.ClickException: no specs folder, or a formatter that fails.
    """
    from ..discover import provider_names

    _require_specs(config.specs, "")
    names = list(config.providers) or provider_names(config.specs)
    answer = _check_from_hashes(config, names, show_diff)
    if answer is not None:
        return answer
    reports = _build(config, names)
    failed = [r for r in reports if r.failed]
    for r in failed:
        print_diagnostics(_at_levels([r], ("error",)), "text", config.specs)
    if failed:
        lead = report.plural(len(failed), "provider")
        click.echo(f"{lead} with errors (above): fix the specs, then `ssegen generate`", err=True)
        return False
    return _compare(config, reports, show_diff)


def _check_from_hashes(config: Config, names: list[str], show_diff: bool) -> bool | None:
    """The check's answer from the manifests' hashes (having said it), or None when a full
    comparison must tell: a folder the hashes cannot judge, a diff asked for, or an edited
    Python file, which may only be reformatted (a user's formatter)."""
    from ..output import quick_check

    folders = output_folders(config)
    quick = [quick_check(config.specs, folder, names, config.output_settings) for folder in folders]
    if all(q is not None and q.up_to_date for q in quick):
        click.echo(report.up_to_date(folders, report.plural(len(names), "provider")))
        return True
    known = [q for q in quick if q is not None]
    if len(known) < len(quick) or show_diff or any(rel.endswith(".py") for q in known for rel in q.edited):
        return None
    echo_lines(report.hand_edit_lines(folders, known))
    click.echo(report.HAND_EDITED, err=True)
    return False


def _compare(config: Config, reports: list[ProviderReport], show_diff: bool) -> bool:
    """Compare the output folders with what ``reports`` produce, naming each stale file (and, when
    ``show_diff``, the stream report of :func:`ssegen.cli.diff.check_report_lines` and each file's
    diff); True when none is."""
    from ..pipeline import check as compare

    with _formatter_errors():
        outcomes = compare(
            config.specs,
            config.out,
            reports,
            config.output_settings,
            all_providers=not config.providers,
            tests_out=config.tests_out,
        )
    stale = 0
    for o in outcomes:
        echo_lines(report.stale_lines(o))
        stale += len(set(o.plan.stale) | set(o.plan.unowned))
    if show_diff and stale:
        from .diff import check_report_lines

        echo_lines(check_report_lines(config, [r.name for r in reports]))
        for o in outcomes:
            _echo_diffs(o)
    if any(o.plan.reformatted for o in outcomes):
        click.echo(report.REFORMATTED, err=True)
    if stale:
        click.echo(f"{report.plural(stale, 'file')} differ; run `ssegen generate` to update them", err=True)
        return False
    click.echo(report.up_to_date(output_folders(config), report.checked_detail(outcomes)))
    return True


def _echo_diffs(outcome: Outcome) -> None:
    """A unified diff of each stale file of ``outcome``'s folder, from the disk to the specs now."""
    for rel in outcome.plan.stale:
        path = outcome.folder / rel
        disk = _disk_text(outcome.folder, rel)
        click.echo("".join(report.diff_lines(path, disk, outcome.files.get(rel, ""))), nl=False)


def _disk_text(folder: Path, rel: str) -> str:
    """The text of ``rel`` in ``folder``, or "" when it is missing, not a regular UTF-8 file or
    leads outside ``folder`` (a symbolic link, never read): the diff then shows it all added."""
    from ..discover import read_regular
    from ..output import confined

    path = confined(folder, rel)
    try:
        return "" if path is None else read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


@click.command()
@SPECS_OPTION
@OUT_OPTION
@TESTS_OUT_OPTION
@PACKAGE_OPTION
@MODEL_OPTION
@click.option(
    "--debounce", default=300, show_default=True, help="Milliseconds to wait for more changes before regenerating."
)
@VERBOSE_OPTION
@MIN_SEVERITY_OPTION
@QUIET_OPTION
@click.argument("providers", nargs=-1, shell_complete=complete_specs_providers)
def watch(
    specs: Path | None,
    out: Path | None,
    tests_out: Path | None,
    package: str | None,
    model: str | None,
    debounce: int,
    verbose: bool,
    min_severity: str | None,
    quiet: bool,
    providers: tuple[str, ...],
) -> None:
    """Regenerate whenever a spec (or a template or runtime module of ssegen's, when editing ssegen itself) changes.

    Generates once at start, then watches --specs with watchfiles, ignoring the
    output folder, so it never loops on its own output.  A spec broken
    mid-edit prints its diagnostics and the watch goes on.  Stop with Ctrl-C.
    """
    import watchfiles

    from ..output import runtime_dir, templates_dir

    config = config_from_flags(
        specs=specs, out=out, tests_out=tests_out, package=package, model=model, providers=providers or None
    )
    roots = [config.specs.resolve(), templates_dir(), runtime_dir()]
    relevant = _relevant([folder.resolve() for folder in output_folders(config)])
    level = least_severity(verbose, min_severity)
    click.echo(f"watching {', '.join(str(r) for r in roots)} -> {config.out}/ (Ctrl-C to stop)")
    _regenerate(config, level, quiet)
    try:
        for changes in watchfiles.watch(
            *roots, watch_filter=relevant, debounce=debounce, step=50, raise_interrupt=False
        ):
            names = sorted({Path(p).name for _, p in changes})
            click.echo(f"changed: {', '.join(names)}")
            _regenerate(config, level, quiet)
    except KeyboardInterrupt:
        pass


def _relevant(outputs: list[Path]) -> Callable[[object, str], bool]:
    """watchfiles' filter: a change outside the output folders, caches, dotfiles and editors' scratch files."""

    def relevant(change: object, path: str) -> bool:
        resolved = Path(path).resolve()
        if any(resolved.is_relative_to(o) for o in outputs) or "__pycache__" in resolved.parts:
            return False
        return not resolved.name.startswith(".") and not resolved.name.endswith(("~", ".swp", ".tmp"))

    return relevant


def _regenerate(config: Config, level: str, quiet: bool) -> None:
    """One watch run: always a full build, since while editing each run's diagnostics are what
    the user watches for."""
    from ..output import generator_fingerprint

    generator_fingerprint.cache_clear()  # an edited template or runtime module is rendered anew
    try:
        run_generate(config, "text", level, quiet, force=False, rebuild=True)
    except click.ClickException as exc:  # a specs folder renamed mid-watch: say so, keep watching
        click.echo(f"error: {exc.format_message()}", err=True)

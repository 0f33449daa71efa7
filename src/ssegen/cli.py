"""The ``ssegen`` command line (click).

Settings come from ``[tool.ssegen]`` in the nearest ``pyproject.toml`` (see
:mod:`ssegen.config`); flags override them.  Exit codes: 0 success (warnings
allowed), 1 the job found a problem (errors in specs, stale output, a
non-conforming stream), 2 usage errors (click's own).

Heavy modules (parsers, jinja2, black) are imported inside the commands, so a
no-op ``ssegen check`` answers from the manifest in a fraction of a second.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .config import MODEL_FLAVOURS, Config, ConfigError, load_config, override
from .output import MANIFEST

if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .pipeline import Outcome, ProviderReport

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


def _completion_config(ctx: click.Context) -> Config | None:
    """The settings as the command line typed so far gives them (``--specs``, ``--out``), or None
    when the project's config is broken: completion offers nothing rather than fail."""
    try:
        return override(load_config(Path.cwd()), specs=ctx.params.get("specs"), out=ctx.params.get("out"))
    except ConfigError:
        return None


def _complete_specs_providers(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of PROVIDERS: the folders of the specs folder (``--specs`` or the config's)."""
    from .discover import provider_names

    config = _completion_config(ctx)
    if config is None:
        return []
    return [name for name in provider_names(config.specs) if name.startswith(incomplete)]


def _complete_generated_providers(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of conform's PROVIDER: the generated packages in the output folder."""
    config = _completion_config(ctx)
    if config is None or not config.out.is_dir():
        return []
    out = config.out
    return sorted(p.name for p in out.iterdir() if (p / "__init__.py").is_file() and p.name.startswith(incomplete))


def _complete_channels(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of conform's CHANNEL: the addresses in the generated package's ``CHANNELS``."""
    from .conform import ConformError, import_package

    provider = ctx.params.get("provider")
    config = _completion_config(ctx)
    if not provider or config is None:
        return []
    try:
        channels = import_package(config.out, provider).CHANNELS
    except (ConformError, AttributeError):
        return []
    return sorted(address for address in channels if address.startswith(incomplete))


def _config(**flags: Any) -> Config:
    try:
        return override(load_config(Path.cwd()), **flags)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ssegen", message="ssegen %(version)s")
def main() -> None:
    """Generate typed SSE decoders for LLM streaming APIs from their specs.

    ssegen reads AsyncAPI documents and documentation pages from
    specs/<provider>/, builds one intermediate model per provider, and writes a
    Python package per provider into the output folder: msgspec (or, with
    --model pydantic, pydantic v2) chunk classes, a WHATWG-compliant SSE decoder
    (sync and async), a stream accumulator and conformance tests.  The generated
    packages depend only on msgspec (and pydantic for that flavour) and the
    standard library.

    Settings are read from [tool.ssegen] in the nearest pyproject.toml
    (specs, out, package, providers, model, strict, ignore, severity); paths are
    relative to that file, so every folder of the project gives the same output.
    Flags override them.

    \b
    Typical use:
      ssegen generate          write/refresh the packages
      ssegen check             in CI or pre-commit: fail if they are stale
      ssegen watch             regenerate while you edit a spec
      ssegen conform P C FILE  replay a captured stream, strictly
      ssegen mock [P...]       serve the channels' streams (with faults) on loopback
      ssegen codes             the diagnostic codes, their severity and meaning
    """


def _print_diagnostics(diagnostics: list[Diagnostic], fmt: str, specs: Path) -> None:
    """Print ``diagnostics`` in ``fmt`` (:data:`ssegen.diagnostics.report.FORMATS`): text lines on
    stderr, files named from the current directory; the machine formats on stdout."""
    from .diagnostics.report import render, use_colour

    if fmt == "text":
        colour = use_colour(sys.stderr.isatty())
        click.echo(render(diagnostics, fmt, specs, colour=colour), nl=False, err=True, color=colour)
    else:
        click.echo(render(diagnostics, fmt, specs), nl=False)


def _all_diagnostics(reports: list[ProviderReport]) -> list[Diagnostic]:
    return [d for r in reports for d in r.diagnostics.sorted()]


#: Severities from the least to the most severe: ``--min-severity warning`` prints warnings and errors.
_LEVELS = ("info", "warning", "error")

VERBOSE_OPTION = click.option(
    "--verbose", "-v", is_flag=True, help="Also print info diagnostics (same as --min-severity info)."
)
QUIET_OPTION = click.option(
    "--quiet", "-q", is_flag=True, help="No per-provider summary; diagnostics are still printed (see --min-severity)."
)
MIN_SEVERITY_OPTION = click.option(
    "--min-severity",
    type=click.Choice(_LEVELS),
    default=None,
    help="Print diagnostics of this severity and above.  [default: warning; info with -v or --format json]",
)


def _min_severity(verbose: bool, min_severity: str | None, fmt: str = "text") -> str:
    """The least severity printed: ``--min-severity``, else info with -v or JSON or SARIF output
    (their readers filter), else warning."""
    return min_severity or ("info" if verbose or fmt in ("json", "sarif") else "warning")


class _SlowProviderNotice:
    """The progress line: ``<provider>: building (more than 1 s so far)...`` on stderr once a
    provider has taken more than :attr:`AFTER` seconds (a 3 MB OpenAPI document takes several),
    so a person or a CI log sees what ssegen is doing. On a terminal the line is erased when that
    provider is done (its summary line follows); in a log it stays. Call it with each provider's
    name as its build starts; :meth:`close` when the builds are done."""

    AFTER = 1.0

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._shown = False
        self._tty = sys.stderr.isatty()

    def __call__(self, name: str) -> None:
        import threading

        self.close()
        self._timer = threading.Timer(self.AFTER, self._show, (name,))
        self._timer.daemon = True
        self._timer.start()

    def _show(self, name: str) -> None:
        with self._lock:
            click.echo(f"{name}: building (more than {self.AFTER:.0f} s so far)...", err=True, nl=not self._tty)
            self._shown = True

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._lock:
            if self._shown and self._tty:
                click.echo("\r\x1b[K", err=True, nl=False)  # erase the line: the summary says the rest
            self._shown = False


def _plural(count: int, noun: str, nouns: str = "") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


@contextlib.contextmanager
def _formatter_errors() -> Iterator[None]:
    """A formatter that is missing or fails (:class:`ssegen.formatting.FormatError`) as a usage error."""
    from .formatting import FormatError

    try:
        yield
    except FormatError as exc:
        raise click.ClickException(str(exc)) from None


def _quick_up_to_date(config: Config, names: list[str]) -> bool:
    """True when every output folder is what the specs produce now, told from the manifests' hashes
    alone (inputs, templates, runtime, ssegen version and output settings unchanged, no file
    edited or missing, no file ssegen did not write in a provider folder): no parsing, no rendering,
    no formatting."""
    from .output import quick_check

    for folder in _output_folders(config):
        quick = quick_check(config.specs, folder, names, config.output_settings)
        if quick is None or not quick.up_to_date or quick.foreign:  # foreign: a full run reports them
            return False
    return True


def _output_folders(config: Config) -> list[Path]:
    return [config.out] + ([config.tests_out] if config.tests_out is not None else [])


def _run_generate(
    config: Config,
    fmt: str,
    min_severity: str,
    quiet: bool,
    force: bool,
    *,
    rebuild: bool = False,
    adopt: bool = False,
) -> bool:
    """One generate run; True when every provider succeeded.

    Prints the diagnostics at ``min_severity`` and above, then (unless ``quiet``) one line per
    provider with its counts, including how many diagnostics were not printed.

    When the output is up to date by the manifests' hashes (as ``check`` tells it, see
    :func:`ssegen.output.quick_check`), nothing is built or written and one line says so
    (unless ``quiet``); its diagnostics are not printed again.  ``rebuild`` builds anyway (the
    diagnostics were asked for: ``-v``, ``--min-severity``, ``--format json``), writing only
    what differs as always.
    """
    started = time.perf_counter()
    if not config.specs.is_dir():
        raise click.ClickException(
            f"no specs folder {config.specs} (set --specs or [tool.ssegen] specs; every folder in it is a provider)"
        )
    if not rebuild:
        from .discover import provider_names

        names = list(config.providers) or provider_names(config.specs)
        if names and _quick_up_to_date(config, names):
            if not quiet:
                elapsed = time.perf_counter() - started
                detail = f"{_plural(len(names), 'provider')}, inputs unchanged; nothing written, {elapsed:.2f}s"
                click.echo(_up_to_date(_output_folders(config), detail))
            return True

    from .output import OutputError
    from .pipeline import build
    from .pipeline import generate as run_generate

    settings = config.output_settings
    notice = _SlowProviderNotice() if fmt == "text" and not quiet else None
    try:
        with _formatter_errors():
            reports = build(
                config.specs,
                list(config.providers) or None,
                settings,
                strict=config.strict,
                policy=config.policy,
                on_provider=notice,
            )
    finally:
        if notice is not None:
            notice.close()
    if not reports:
        raise click.ClickException(f"no provider folder under {config.specs}")
    first_run = not config.out.exists()
    outcomes: list[Outcome] = []
    if not (first_run and all(r.failed for r in reports)):  # else do not create an empty output folder
        try:
            with _formatter_errors():
                outcomes = run_generate(
                    config.specs,
                    config.out,
                    reports,
                    settings,
                    all_providers=not config.providers,
                    force=force,
                    adopt=adopt,
                    tests_out=config.tests_out,
                )
        except OutputError as exc:
            _print_diagnostics([d for d in _all_diagnostics(reports) if d.severity.value == "error"], fmt, config.specs)
            raise click.ClickException(str(exc)) from None
    shown = _LEVELS[_LEVELS.index(min_severity) :]
    _print_diagnostics([d for d in _all_diagnostics(reports) if d.severity.value in shown], fmt, config.specs)
    if any(o.refused for o in outcomes):
        for o in outcomes:
            _echo_unowned(o.folder, o.plan.unowned, o.files)
        click.echo(
            "nothing written: ssegen writes only into a folder it owns (one with its ssegen-manifest.json, or an "
            "empty one); choose another --out/--tests-out, or take the folder over with `ssegen generate --adopt` "
            "(files in the way are then overwritten, others left alone)",
            err=True,
        )
        return False
    if fmt == "text" and not quiet:
        written = {(o.folder, rel) for o in outcomes for rel in o.written}
        for r in reports:
            click.echo(_summary(r, shown, written, config, first_run))
        for o in outcomes:
            for rel in o.plan.remove:
                click.echo(f"removed (no longer generated): {o.folder / rel}")
            for rel in o.plan.reformatted:
                click.echo(f"restored ssegen's formatting (another formatter rewrote it): {o.folder / rel}")
        elapsed = time.perf_counter() - started
        if outcomes:
            click.echo(f"done in {elapsed:.2f}s -> {', '.join(f'{o.folder}/' for o in outcomes)}")
        else:
            click.echo(f"nothing generated in {elapsed:.2f}s; {config.out}/ not created")
    blocked = False
    for o in outcomes:
        todo = o.plan
        if adopt:
            for rel in sorted(set(todo.foreign) & set(todo.blocked) & set(o.written)):
                click.echo(f"adopted (overwritten, was not written by ssegen): {o.folder / rel}", err=True)
        for rel in sorted(set(todo.foreign) - set(todo.blocked)):
            click.echo(f"left alone (not written by ssegen): {o.folder / rel}", err=True)
        if not force:
            for rel in todo.blocked:
                if adopt and rel in todo.foreign:
                    continue
                why = "edited by hand" if rel in todo.edited else "not written by ssegen"
                click.echo(f"NOT overwritten ({why}; use --force): {o.folder / rel}", err=True)
            for rel in sorted(set(todo.edited) - set(todo.blocked)):
                click.echo(f"kept (edited by hand, no longer generated): {o.folder / rel}", err=True)
        blocked = blocked or bool(set(todo.blocked) - set(o.written))
    return not any(r.failed for r in reports) and not blocked


#: How many files of a folder ssegen does not own are named before "and N more".
_UNOWNED_SHOWN = 20


def _echo_unowned(folder: Path, unowned: list[str], files: dict[str, str]) -> None:
    """Name the files that make ``folder`` not ssegen's (it has no manifest)."""
    if not unowned:
        return
    click.echo(
        f"error: {folder}/ has no {MANIFEST} and holds {_plural(len(unowned), 'file')} ssegen did not write:", err=True
    )
    for rel in unowned[:_UNOWNED_SHOWN]:
        why = "differs from what ssegen would write there" if rel in files else "not generated by ssegen"
        click.echo(f"  {folder / rel} ({why})", err=True)
    if len(unowned) > _UNOWNED_SHOWN:
        click.echo(f"  ... and {len(unowned) - _UNOWNED_SHOWN} more", err=True)


def _summary(
    report: ProviderReport, shown: tuple[str, ...], written: set[tuple[Path, str]], config: Config, first_run: bool
) -> str:
    """One line about one provider: what it holds, its diagnostics by severity, files written."""
    counts = {level: sum(1 for d in report.diagnostics if d.severity.value == level) for level in _LEVELS}
    hidden = [_plural(counts[level], level) for level in reversed(_LEVELS) if counts[level] and level not in shown]
    tally = ", ".join(_plural(counts[level], level) for level in reversed(_LEVELS) if counts[level] and level in shown)
    tally = ", ".join(part for part in (tally, f"{' and '.join(hidden)} not shown (-v)" if hidden else "") if part)
    if report.failed:
        kept = "nothing generated" if first_run else "previous output kept"
        return f"{report.name}: FAILED ({tally}); {kept}"
    mine = [(config.out, rel) for rel in report.files]
    if config.tests_out is not None:
        mine += [(config.tests_out, rel) for rel in report.test_files]
    files = sum(1 for place in mine if place in written)
    return (
        f"{report.name}: {_plural(report.channels, 'channel')}, {_plural(report.messages, 'message')}, "
        f"{_plural(report.classes, 'class', 'classes')}, {tally or 'no diagnostics'}; "
        f"{files} of {_plural(len(mine), 'file')} written, {report.seconds:.2f}s"
    )


@main.command()
@SPECS_OPTION
@OUT_OPTION
@TESTS_OUT_OPTION
@PACKAGE_OPTION
@MODEL_OPTION
@FORMAT_OPTION
@click.option("--strict", is_flag=True, default=None, help="Treat warnings (spec warts, reconciliations) as errors.")
@click.option("--force", is_flag=True, help="Overwrite generated files edited by hand, and foreign files in the way.")
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
@click.argument("providers", nargs=-1, shell_complete=_complete_specs_providers)
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
    (-v, --min-severity or --format json build anyway, to print them).
    """
    config = _config(
        specs=specs,
        out=out,
        tests_out=tests_out,
        package=package,
        model=model,
        strict=strict,
        providers=providers or None,
    )
    asked = verbose or min_severity is not None or fmt != "text"  # the diagnostics are wanted: build
    if not _run_generate(
        config, fmt, _min_severity(verbose, min_severity, fmt), quiet, force, rebuild=asked, adopt=adopt
    ):
        sys.exit(1)


@main.command()
@SPECS_OPTION
@OUT_OPTION
@TESTS_OUT_OPTION
@PACKAGE_OPTION
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of each stale file (disk -> specs now).")
@MODEL_OPTION
@click.argument("providers", nargs=-1, shell_complete=_complete_specs_providers)
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

    Answers from the manifests' hashes when no input, template or ssegen
    version changed (fast); otherwise regenerates in memory and compares.
    Writes nothing: use it in CI and pre-commit after `ssegen generate`.
    """
    from .discover import provider_names
    from .output import quick_check

    config = _config(
        specs=specs, out=out, tests_out=tests_out, package=package, model=model, providers=providers or None
    )
    if not config.specs.is_dir():
        raise click.ClickException(f"no specs folder {config.specs} (set --specs or [tool.ssegen] specs)")
    names = list(config.providers) or provider_names(config.specs)
    folders = _output_folders(config)
    quick = [quick_check(config.specs, folder, names, config.output_settings) for folder in folders]
    if all(q is not None and q.up_to_date for q in quick):
        click.echo(_up_to_date(folders, _plural(len(names), "provider")))
        return
    # A changed Python file may only be reformatted (a user's formatter): the full comparison tells.
    python_changed = any(rel.endswith(".py") for q in quick if q is not None for rel in q.edited)
    if all(q is not None for q in quick) and not show_diff and not python_changed:
        for folder, q in zip(folders, quick, strict=True):
            assert q is not None
            for rel in q.edited:
                click.echo(f"edited by hand: {folder / rel}")
            for rel in q.missing:
                click.echo(f"missing: {folder / rel}")
        click.echo("generated files were changed by hand; `ssegen generate --force` restores them", err=True)
        sys.exit(1)
    from .pipeline import build
    from .pipeline import check as run_check

    with _formatter_errors():
        reports = build(config.specs, names, config.output_settings, strict=config.strict, policy=config.policy)
    failed = [r for r in reports if r.failed]
    for r in failed:
        _print_diagnostics([d for d in r.diagnostics.sorted() if d.severity.value == "error"], "text", config.specs)
    if failed:
        click.echo(
            f"{_plural(len(failed), 'provider')} with errors (above): fix the specs, then `ssegen generate`", err=True
        )
        sys.exit(1)
    with _formatter_errors():
        outcomes = run_check(
            config.specs,
            config.out,
            reports,
            config.output_settings,
            all_providers=not config.providers,
            tests_out=config.tests_out,
        )
    stale = 0
    for o in outcomes:
        todo = o.plan
        for rel in todo.stale:
            why = (
                "edited by hand"
                if rel in todo.edited
                else "not written by ssegen, in the way"
                if rel in todo.foreign
                else "reformatted by another formatter"
                if rel in todo.reformatted
                else "stale"
            )
            click.echo(f"{why}: {o.folder / rel}")
        for rel in sorted(set(todo.foreign) - set(todo.blocked)):
            click.echo(f"not generated by ssegen (left alone): {o.folder / rel}")
        for rel in sorted(set(todo.unowned) - set(todo.stale)):
            click.echo(f"not written by ssegen, in a folder without {MANIFEST} (generate refuses it): {o.folder / rel}")
        if show_diff:
            for rel in todo.stale:
                _echo_diff(o.folder, rel, o.files.get(rel, ""))
        stale += len(set(todo.stale) | set(todo.unowned))
    if any(o.plan.reformatted for o in outcomes):
        click.echo(
            "another formatter rewrote generated files (same code, other layout): exclude the output folder "
            "from it (ruff/black `extend-exclude`, see ssegen's README)",
            err=True,
        )
    if stale:
        click.echo(f"{_plural(stale, 'file')} differ; run `ssegen generate` to update them", err=True)
        sys.exit(1)
    unchanged = sum(len(o.plan.unchanged) for o in outcomes)
    click.echo(_up_to_date(folders, _plural(unchanged, "file")))


def _up_to_date(folders: list[Path], detail: str) -> str:
    return f"{', '.join(f'{f}/' for f in folders)} {'is' if len(folders) == 1 else 'are'} up to date ({detail})"


def _echo_diff(out: Path, rel: str, wanted: str) -> None:
    """A unified diff from ``out/rel`` as it is on disk to ``wanted`` (what the specs produce now)."""
    import difflib

    try:
        disk = (out / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        disk = ""
    lines = difflib.unified_diff(
        disk.splitlines(keepends=True),
        wanted.splitlines(keepends=True),
        f"{out / rel} (on disk)",
        f"{out / rel} (specs now)",
    )
    click.echo("".join(line if line.endswith("\n") else line + "\n" for line in lines), nl=False)


@main.command()
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
@click.argument("providers", nargs=-1, shell_complete=_complete_specs_providers)
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

    from .output import runtime_dir, templates_dir

    config = _config(
        specs=specs, out=out, tests_out=tests_out, package=package, model=model, providers=providers or None
    )
    outputs = [folder.resolve() for folder in _output_folders(config)]
    roots = [config.specs.resolve(), templates_dir(), runtime_dir()]

    def relevant(change: watchfiles.Change, path: str) -> bool:
        resolved = Path(path).resolve()
        if any(resolved.is_relative_to(o) for o in outputs) or "__pycache__" in resolved.parts:
            return False
        return not resolved.name.startswith(".") and not resolved.name.endswith(("~", ".swp", ".tmp"))

    level = _min_severity(verbose, min_severity)

    def run() -> None:
        try:
            # Always a full build: while editing, each run's diagnostics are what the user watches for.
            _run_generate(config, "text", level, quiet, force=False, rebuild=True)
        except click.ClickException as exc:  # a specs folder renamed mid-watch: say so, keep watching
            click.echo(f"error: {exc.format_message()}", err=True)

    click.echo(f"watching {', '.join(str(r) for r in roots)} -> {config.out}/ (Ctrl-C to stop)")
    run()
    try:
        for changes in watchfiles.watch(
            *roots, watch_filter=relevant, debounce=debounce, step=50, raise_interrupt=False
        ):
            names = sorted({Path(p).name for _, p in changes})
            click.echo(f"changed: {', '.join(names)}")
            run()
    except KeyboardInterrupt:
        pass


@main.command("ir")
@SPECS_OPTION
@IR_FORMAT_OPTION
@click.option(
    "--plan",
    is_flag=True,
    help="Print how each channel tells its messages apart (event types, tags, shapes) instead of the IR.",
)
@click.argument("provider", shell_complete=_complete_specs_providers)
def ir_command(specs: Path | None, fmt: str, plan: bool, provider: str) -> None:
    """Print the intermediate model of PROVIDER as JSON (sorted keys).

    Each named or shared schema is written once, in `$defs`, and referenced where
    it is used (`{"$ref": "#/$defs/Name"}`), so the output grows with the spec.

    `--plan` prints each channel's discrimination plan in words instead: per SSE
    event type, the literal payloads, the tag values and the messages told apart by
    shape, in the order the generated decoder tries them (the same plan is in the
    IR's `dispatch` and `fallback`).

    Diagnostics go to stderr (`--format json` puts them on stdout instead,
    as {"ir": ..., "diagnostics": [...]}).  Exits 1 when the specs have errors.
    """
    from . import ir
    from .load import load_provider
    from .normalize.discrimination import plan_text

    config = _config(specs=specs)
    result = load_provider(config.specs, provider)
    reviewed = config.policy.apply(result.diagnostics)
    diagnostics = reviewed.sorted()
    if fmt == "json":
        payload = {
            "ir": ir.to_jsonable(result.provider, base="#/ir") if result.provider else None,
            "diagnostics": [d.to_dict() for d in diagnostics],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        _print_diagnostics(diagnostics, "text", config.specs)
        if result.provider is not None and plan:
            click.echo(plan_text(result.provider), nl=False)
        elif result.provider is not None:
            click.echo(ir.dumps(result.provider), nl=False)
    if reviewed.has_errors:
        sys.exit(1)


@main.command()
@OUT_OPTION
@click.option(
    "--full-text",
    is_flag=True,
    help="Cumulative mode: each chunk carries the whole text so far (MindIE fullTextEnabled).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object (printed whether or not the stream conforms)."
)
@click.argument("provider", shell_complete=_complete_generated_providers)
@click.argument("channel", shell_complete=_complete_channels)
@click.argument("capture", type=click.Path(path_type=Path, dir_okay=False, exists=True))
def conform(out: Path | None, full_text: bool, as_json: bool, provider: str, channel: str, capture: Path) -> None:
    """Replay CAPTURE (a raw text/event-stream body) through PROVIDER's CHANNEL decoder.

    Every event is validated strictly against the spec; each violation is
    printed with its event number and JSON pointer.  Exit 0 when every event
    conforms, 1 otherwise.
    """
    from .conform import ConformError, ConformUsageError
    from .conform import conform as run_conform

    config = _config(out=out)
    try:
        report = run_conform(config.out, provider, channel, capture, full_text=full_text)
    except ConformUsageError as exc:
        raise click.UsageError(str(exc)) from None
    except ConformError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for violation in report.violations:
            click.echo(violation.format())
        final = report.final
        for line in _block_lines(final.get("output", [])):
            click.echo(line)
        if final.get("stop_reason") is not None:
            click.echo(f"stop reason: {final['stop_reason']}")
        for choice in final.get("choices", []):
            click.echo(f"choice {choice['index']} ({choice['finish_reason']}): {choice['content']!r}")
            for name in ("reasoning_content", "refusal"):
                if choice[name] is not None:
                    click.echo(f"  {name}: {choice[name]!r}")
            for call in choice["tool_calls"]:
                click.echo(
                    f"  tool call {call['index']} {call['id']}: "
                    f"{call['function']['name']}({call['function']['arguments']})"
                )
        for error in final["errors"]:
            detail = error.get("data", error.get("message"))
            if detail is None:  # member_off_spec, event_off_spec, snapshot_mismatch: the entry itself
                detail = {k: v for k, v in error.items() if k not in ("kind", "got") or error.get("type") is None}
            click.echo(f"error ({error['kind']}): {json.dumps(detail, ensure_ascii=False)}")
        if final["vendor_events"]:
            click.echo(
                f"{len(final['vendor_events'])} vendor events: "
                + ", ".join(str(v.get("type")) for v in final["vendor_events"])
            )
        click.echo(
            f"{report.events} events, {len(report.violations)} violations, "
            f"complete={final['complete']}, usage={json.dumps(final['usage'])}"
        )
    if report.violations:
        sys.exit(1)


def _replay_option(values: tuple[str, ...]) -> dict[str | None, Path]:
    replays: dict[str | None, Path] = {}
    for value in values:
        address, sep, file = value.partition("=")
        if not sep or not (address.startswith("/") or ":/" in address):  # a file name holding `=`
            address, file = "", value
        path = Path(file)
        if not path.is_file():
            raise click.BadParameter(f"{file}: no such file", param_hint="--replay")
        replays[address or None] = path
    return replays


@main.command()
@OUT_OPTION
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (keep it loopback).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: a free one).")
@click.option(
    "--replay",
    "replays",
    multiple=True,
    metavar="[[PROVIDER:]ADDRESS=]FILE",
    help="Send this capture (a raw text/event-stream body) on a channel; FILE alone when one channel is served.",
)
@click.option("--text", default=None, help="Answer this text (synthesized chat, Messages and Responses streams).")
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="NAME=VALUE",
    help=(
        "Break every stream: cut_at=N (event index), cut_at_byte=N, cut=abort|close, error_event=N, "
        "stall_after=N, stall=SECONDS, read_size=BYTES, delay=SECONDS (repeatable)."
    ),
)
@click.option("--delay", type=float, default=None, help="Seconds to wait before each event (the fault delay=).")
@click.option("-v", "--verbose", is_flag=True, help="Print a line per request.")
@click.argument("providers", nargs=-1, shell_complete=_complete_generated_providers)
def mock(
    out: Path | None,
    host: str,
    port: int,
    replays: tuple[str, ...],
    text: str | None,
    faults: tuple[str, ...],
    delay: float | None,
    verbose: bool,
    providers: tuple[str, ...],
) -> None:
    """Serve the streams of PROVIDERS' channels over HTTP (default: every generated package).

    Each channel answers at its address under its spec's server base path
    (DeepSeek /chat/completions, Anthropic /v1/messages, Mistral
    /v1/chat/completions) and under /PROVIDER too, with chunked text/event-stream:
    the capture given with --replay, else --text synthesized, else the channel's
    example stream or a synthesized answer.  Faults apply to every stream, and per
    request through the x-ssegen-fault header or query parameters
    (?cut_at=3&delay=0.05).  GET / lists the channels.  Needs the mock extra:
    pip install 'ssegen[mock]'.
    """
    import logging

    from .mock import MockUnavailable, bind, create_app, endpoints, listing, make_server
    from .replay import FaultError, Faults, import_provider

    config = _config(out=out)
    names = list(providers) or _generated_names(config.out)
    if not names:
        raise click.ClickException(f"no generated package in {config.out} (run `ssegen generate` first)")
    try:
        base = Faults.parse(faults)
        if delay is not None:
            base = Faults.from_mapping({"delay": delay}, base)
        packages = [import_provider(name, config.out, config.import_name) for name in names]
        served = endpoints(packages, _replay_option(replays), text)
        app = create_app(served, base)
        server = make_server(app, "info" if verbose else "warning")
    except FaultError as exc:
        raise click.UsageError(str(exc)) from None
    except MockUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    url = f"http://{host if ':' not in host else f'[{host}]'}:{sock.getsockname()[1]}"
    click.echo(f"ssegen mock: serving on {url} (faults: {base.describe() or 'none'}); Ctrl-C stops")
    for line in listing(served, url):
        click.echo(line)
    sys.stdout.flush()
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        logging.getLogger("ssegen.mock").setLevel(logging.INFO)
    server.run(sockets=[sock])


def _generated_names(out: Path) -> list[str]:
    if not out.is_dir():
        return []
    return sorted(p.name for p in out.iterdir() if (p / "__init__.py").is_file() and (p / "channels.py").is_file())


def _block_lines(blocks: list[dict[str, Any]]) -> list[str]:
    """A readable summary of a Messages or Responses stream's blocks (items): per block its
    index, kind, id and name, then its texts, tool call and the other text deltas."""
    lines = []
    for block in blocks:
        head = f"block {block['index']} {block['kind']}"
        head += "".join(f" {block[k]}" for k in ("id", "call_id") if block.get(k))
        if block.get("status"):
            head += f" ({block['status']})"
        lines.append(head + ":")
        for name in ("text", "thinking", "refusal"):
            if block.get(name) is not None:
                lines.append(f"  {name}: {block[name]!r}")
        if block.get("signature"):
            lines.append(f"  signature: {len(block['signature'])} characters")
        if block.get("name") or block.get("arguments") is not None:
            call = f"  tool call {block.get('name')}({block.get('arguments') or ''})"
            if block.get("arguments") and block.get("input") is None:
                call += f" (not valid JSON; partial: {json.dumps(block.get('input_partial'), ensure_ascii=False)})"
            lines.append(call)
        for name, text in (block.get("texts") or {}).items():
            lines.append(f"  {name}: {text!r}")
        if block.get("deltas"):
            lines.append(f"  {len(block['deltas'])} other deltas")
    return lines


@main.command("codes")
def codes_command() -> None:
    """Print the catalogue of diagnostic codes (code, severity, meaning) as a markdown table.

    Use a code in `[tool.ssegen]` `ignore = [...]` or `severity = {code = "info"}`.
    """
    from .diagnostics.codes import markdown_table

    click.echo(markdown_table(), nl=False)

"""The ``ssegen`` command line (click).

Settings come from ``[tool.ssegen]`` in the nearest ``pyproject.toml`` (see
:mod:`ssegen.config`); flags override them.  Exit codes: 0 success (warnings
allowed), 1 the job found a problem (errors in specs, stale output, a
non-conforming stream), 2 usage errors (click's own).

Heavy modules (parsers, jinja2, black) are imported inside the commands, so a
no-op ``ssegen check`` answers from the manifest in a fraction of a second.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .config import Config, ConfigError, load_config, override

if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .pipeline import ProviderReport

SPECS_OPTION = click.option(
    "--specs",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Folder of provider folders; every file in specs/<provider>/ is a source.  [default: specs, or tool.ssegen.specs]",
)
OUT_OPTION = click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Output folder; it becomes a Python package holding one subpackage per provider.  [default: generated, or tool.ssegen.out]",
)
PACKAGE_OPTION = click.option(
    "--package",
    default=None,
    help="Import name of the output folder, for generated docstrings (default: derived from --out, e.g. src/myapp/llm -> myapp.llm).",
)
MODEL_OPTION = click.option(
    "--model",
    type=click.Choice(["msgspec", "pydantic"]),
    default=None,
    help="Generated classes: msgspec Structs or pydantic v2 BaseModels.  [default: msgspec, or tool.ssegen.model]",
)
FORMAT_OPTION = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Diagnostics as `file:line: pointer: message` lines, or as a JSON array.",
)


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
    Python package per provider into the output folder: msgspec chunk classes,
    a WHATWG-compliant SSE decoder (sync and async), a stream accumulator and
    conformance tests.  The generated packages depend only on msgspec and the
    standard library.

    Settings are read from [tool.ssegen] in the nearest pyproject.toml
    (specs, out, package, providers, model, strict); flags override them.

    \b
    Typical use:
      ssegen generate          write/refresh the packages
      ssegen check             in CI or pre-commit: fail if they are stale
      ssegen watch             regenerate while you edit a spec
      ssegen conform P C FILE  replay a captured stream, strictly
    """


def _print_diagnostics(diagnostics: list[Diagnostic], fmt: str) -> None:
    from .diagnostics import to_json

    if fmt == "json":
        click.echo(to_json(diagnostics))
    else:
        for diag in diagnostics:
            click.echo(diag.format(), err=True)


def _all_diagnostics(reports: list[ProviderReport]) -> list[Diagnostic]:
    return [d for r in reports for d in r.diagnostics.sorted()]


def _run_generate(config: Config, fmt: str, quiet: bool, force: bool) -> bool:
    """One generate run; True when every provider succeeded."""
    from .pipeline import build
    from .pipeline import generate as run_generate

    started = time.perf_counter()
    reports = build(
        config.specs, list(config.providers) or None, config.import_name, strict=config.strict, model=config.model
    )
    todo, written = run_generate(
        config.specs, config.out, reports, all_providers=not config.providers, force=force, model=config.model
    )
    diagnostics = _all_diagnostics(reports)
    if quiet:
        diagnostics = [d for d in diagnostics if d.severity.value == "error"]
    _print_diagnostics(diagnostics, fmt)
    if fmt == "text" and not quiet:
        done = set(written)
        for r in reports:
            if r.failed:
                errors = sum(1 for d in r.diagnostics if d.severity.value == "error")
                click.echo(f"{r.name}: FAILED ({errors} errors); previous output kept")
            else:
                click.echo(
                    f"{r.name}: {r.channels} channels, {r.messages} messages, {r.classes} classes, "
                    f"{len(r.diagnostics)} diagnostics, {sum(1 for f in r.files if f in done)} of {len(r.files)} files written, {r.seconds:.2f}s"
                )
        for rel in todo.remove:
            click.echo(f"removed (no longer generated): {config.out / rel}")
        click.echo(f"done in {time.perf_counter() - started:.2f}s -> {config.out}/")
    for rel in sorted(set(todo.foreign) - set(todo.blocked)):
        click.echo(f"left alone (not written by ssegen): {config.out / rel}", err=True)
    if not force:
        for rel in todo.blocked:
            why = "edited by hand" if rel in todo.edited else "not written by ssegen"
            click.echo(f"NOT overwritten ({why}; use --force): {config.out / rel}", err=True)
        for rel in sorted(set(todo.edited) - set(todo.blocked)):
            click.echo(f"kept (edited by hand, no longer generated): {config.out / rel}", err=True)
    return not any(r.failed for r in reports) and (force or not todo.blocked)


@main.command()
@SPECS_OPTION
@OUT_OPTION
@PACKAGE_OPTION
@MODEL_OPTION
@FORMAT_OPTION
@click.option("--strict", is_flag=True, default=None, help="Treat warnings (spec warts, reconciliations) as errors.")
@click.option("--force", is_flag=True, help="Overwrite generated files edited by hand, and foreign files in the way.")
@click.option("--quiet", "-q", is_flag=True, help="Print errors only, no summary or warnings.")
@click.argument("providers", nargs=-1)
def generate(
    specs: Path | None,
    out: Path | None,
    package: str | None,
    model: str | None,
    fmt: str,
    strict: bool | None,
    force: bool,
    quiet: bool,
    providers: tuple[str, ...],
) -> None:
    """Generate packages for PROVIDERS (default: every folder under --specs).

    Writes only files whose content changed, deletes files it wrote before and
    no longer produces, and never touches files it did not write.  A generated
    file edited by hand is reported and kept unless --force.  A provider whose
    specs have errors is skipped (its previous output is kept); the others are
    generated.  Exits 1 if any provider failed or a file was not overwritten.
    """
    config = _config(specs=specs, out=out, package=package, model=model, strict=strict, providers=providers or None)
    if not _run_generate(config, fmt, quiet, force):
        sys.exit(1)


@main.command()
@SPECS_OPTION
@OUT_OPTION
@PACKAGE_OPTION
@MODEL_OPTION
@click.argument("providers", nargs=-1)
def check(
    specs: Path | None, out: Path | None, package: str | None, model: str | None, providers: tuple[str, ...]
) -> None:
    """Exit 0 if --out is exactly what the specs produce now, else 1 naming each stale file.

    Answers from the manifest's hashes when no input, template or ssegen
    version changed (fast); otherwise regenerates in memory and compares.
    Writes nothing: use it in CI and pre-commit after `ssegen generate`.
    """
    from .discover import provider_names
    from .output import quick_check

    config = _config(specs=specs, out=out, package=package, model=model, providers=providers or None)
    names = list(config.providers) or provider_names(config.specs)
    quick = quick_check(config.specs, config.out, names, config.model)
    if quick is not None and quick.up_to_date:
        click.echo(f"{config.out}/ is up to date ({len(names)} providers)")
        return
    if quick is not None:
        for rel in quick.edited:
            click.echo(f"edited by hand: {config.out / rel}")
        for rel in quick.missing:
            click.echo(f"missing: {config.out / rel}")
        click.echo("generated files were changed by hand; `ssegen generate --force` restores them", err=True)
        sys.exit(1)
    from .pipeline import build
    from .pipeline import check as run_check

    reports = build(config.specs, names, config.import_name, strict=config.strict, model=config.model)
    todo = run_check(config.specs, config.out, reports, all_providers=not config.providers, model=config.model)
    failed = [r for r in reports if r.failed]
    for r in failed:
        _print_diagnostics([d for d in r.diagnostics.sorted() if d.severity.value == "error"], "text")
    for rel in todo.stale:
        why = (
            "edited by hand"
            if rel in todo.edited
            else "not written by ssegen, in the way"
            if rel in todo.foreign
            else "stale"
        )
        click.echo(f"{why}: {config.out / rel}")
    for rel in sorted(set(todo.foreign) - set(todo.blocked)):
        click.echo(f"not generated by ssegen (left alone): {config.out / rel}")
    if todo.stale or failed:
        click.echo(f"{len(todo.stale)} file(s) differ; run `ssegen generate` to update {config.out}/", err=True)
        sys.exit(1)
    click.echo(f"{config.out}/ is up to date ({len(todo.unchanged)} files)")


@main.command()
@SPECS_OPTION
@OUT_OPTION
@PACKAGE_OPTION
@MODEL_OPTION
@click.option(
    "--debounce", default=300, show_default=True, help="Milliseconds to wait for more changes before regenerating."
)
@click.argument("providers", nargs=-1)
def watch(
    specs: Path | None,
    out: Path | None,
    package: str | None,
    model: str | None,
    debounce: int,
    providers: tuple[str, ...],
) -> None:
    """Regenerate whenever a spec (or a template or runtime module of ssegen's, when editing ssegen itself) changes.

    Generates once at start, then watches --specs with watchfiles, ignoring the
    output folder, so it never loops on its own output.  A spec broken
    mid-edit prints its diagnostics and the watch goes on.  Stop with Ctrl-C.
    """
    import watchfiles

    from .output import runtime_dir, templates_dir

    config = _config(specs=specs, out=out, package=package, model=model, providers=providers or None)
    out_root = config.out.resolve()
    roots = [config.specs.resolve(), templates_dir(), runtime_dir()]

    def relevant(change: watchfiles.Change, path: str) -> bool:
        resolved = Path(path).resolve()
        if resolved.is_relative_to(out_root) or "__pycache__" in resolved.parts:
            return False
        return not resolved.name.startswith(".") and not resolved.name.endswith(("~", ".swp", ".tmp"))

    click.echo(f"watching {', '.join(str(r) for r in roots)} -> {config.out}/ (Ctrl-C to stop)")
    _run_generate(config, "text", quiet=False, force=False)
    try:
        for changes in watchfiles.watch(
            *roots, watch_filter=relevant, debounce=debounce, step=50, raise_interrupt=False
        ):
            names = sorted({Path(p).name for _, p in changes})
            click.echo(f"changed: {', '.join(names)}")
            _run_generate(config, "text", quiet=False, force=False)
    except KeyboardInterrupt:
        pass


@main.command("ir")
@SPECS_OPTION
@FORMAT_OPTION
@click.argument("provider")
def ir_command(specs: Path | None, fmt: str, provider: str) -> None:
    """Print the intermediate model of PROVIDER as JSON (sorted keys).

    Diagnostics go to stderr (`--format json` puts them on stdout instead,
    as {"ir": ..., "diagnostics": [...]}).  Exits 1 when the specs have errors.
    """
    from . import ir
    from .load import load_provider

    config = _config(specs=specs)
    result = load_provider(config.specs, provider)
    diagnostics = result.diagnostics.sorted()
    if fmt == "json":
        payload = {
            "ir": ir.to_jsonable(result.provider) if result.provider else None,
            "diagnostics": [d.to_dict() for d in diagnostics],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        _print_diagnostics(diagnostics, "text")
        if result.provider is not None:
            click.echo(ir.dumps(result.provider), nl=False)
    if result.diagnostics.has_errors:
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
@click.argument("provider")
@click.argument("channel")
@click.argument("capture", type=click.Path(path_type=Path, dir_okay=False, exists=True))
def conform(out: Path | None, full_text: bool, as_json: bool, provider: str, channel: str, capture: Path) -> None:
    """Replay CAPTURE (a raw text/event-stream body) through PROVIDER's CHANNEL decoder.

    Every event is validated strictly against the spec; each violation is
    printed with its event number and JSON pointer.  Exit 0 when every event
    conforms, 1 otherwise.
    """
    from .conform import ConformError
    from .conform import conform as run_conform

    config = _config(out=out)
    try:
        report = run_conform(config.out, provider, channel, capture, full_text=full_text)
    except ConformError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for violation in report.violations:
            click.echo(violation.format())
        final = report.final
        for choice in final["choices"]:
            click.echo(f"choice {choice['index']} ({choice['finish_reason']}): {choice['content']!r}")
            for name in ("reasoning_content", "refusal"):
                if choice[name] is not None:
                    click.echo(f"  {name}: {choice[name]!r}")
            for call in choice["tool_calls"]:
                click.echo(
                    f"  tool call {call['index']} {call['id']}: {call['function']['name']}({call['function']['arguments']})"
                )
        for error in final["errors"]:
            click.echo(
                f"error ({error['kind']}): {json.dumps(error.get('data', error.get('message')), ensure_ascii=False)}"
            )
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

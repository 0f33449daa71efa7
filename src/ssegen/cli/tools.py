"""The tools around the generator: ``ssegen ir`` (the intermediate model), ``codes`` (the
diagnostic catalogue), ``conform`` (replay a capture strictly) and ``mock`` (serve streams)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import report
from .completion import complete_channels, complete_generated_providers, complete_specs_providers
from .console import echo_lines, print_diagnostics
from .options import IR_FORMAT_OPTION, OUT_OPTION, SPECS_OPTION, config_from_flags


@click.command("ir")
@SPECS_OPTION
@IR_FORMAT_OPTION
@click.option(
    "--plan",
    is_flag=True,
    help="Print how each channel tells its messages apart (event types, tags, shapes) instead of the IR.",
)
@click.argument("provider", shell_complete=complete_specs_providers)
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
    from ..irjson import dumps, to_jsonable
    from ..load import load_provider
    from ..normalize.discrimination import plan_text

    config = config_from_flags(specs=specs)
    result = load_provider(config.specs, provider)
    reviewed = config.policy.apply(result.diagnostics)
    diagnostics = reviewed.sorted()
    if fmt == "json":
        payload = {
            "ir": to_jsonable(result.provider, base="#/ir") if result.provider else None,
            "diagnostics": [d.to_dict() for d in diagnostics],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print_diagnostics(diagnostics, "text", config.specs)
        if result.provider is not None:
            click.echo(plan_text(result.provider) if plan else dumps(result.provider), nl=False)
    if reviewed.has_errors:
        sys.exit(1)


@click.command("codes")
def codes_command() -> None:
    """Print the catalogue of diagnostic codes (code, severity, meaning) as a markdown table.

    Use a code in `[tool.ssegen]` `ignore = [...]` or `severity = {code = "info"}`.
    """
    from ..diagnostics.codes import markdown_table

    click.echo(markdown_table(), nl=False)


@click.command()
@OUT_OPTION
@click.option(
    "--full-text",
    is_flag=True,
    help="Cumulative mode: each chunk carries the whole text so far (MindIE fullTextEnabled).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object (printed whether or not the stream conforms)."
)
@click.argument("provider", shell_complete=complete_generated_providers)
@click.argument("channel", shell_complete=complete_channels)
@click.argument("capture", type=click.Path(path_type=Path, dir_okay=False, exists=True))
def conform(out: Path | None, full_text: bool, as_json: bool, provider: str, channel: str, capture: Path) -> None:
    """Replay CAPTURE (a raw text/event-stream body) through PROVIDER's CHANNEL decoder.

    Every event is validated strictly against the spec; each violation is
    printed with its event number and JSON pointer.  Exit 0 when every event
    conforms, 1 otherwise.
    """
    from ..conform import ConformError, ConformUsageError
    from ..conform import conform as run_conform
    from ..diagnostics import escape_controls, json_text

    config = config_from_flags(out=out)
    try:
        result = run_conform(config.out, provider, channel, capture, full_text=full_text)
    except ConformUsageError as exc:
        raise click.UsageError(escape_controls(str(exc))) from None
    except ConformError as exc:
        raise click.ClickException(escape_controls(str(exc))) from None
    if as_json:
        click.echo(json_text(result.to_dict()))
    else:
        echo_lines(report.conform_lines(result))
    if result.violations:
        sys.exit(1)


@click.command()
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
        "stall_after=N, stall=SECONDS, read_size=BYTES, delay=SECONDS, status=CODE, retry_after=SECONDS, "
        "times=N, ids=1 (repeatable)."
    ),
)
@click.option("--delay", type=float, default=None, help="Seconds to wait before each event (the fault delay=).")
@click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="NAME=VALUE",
    help=(
        "Change a bound on each client: max_body=BYTES (1048576), max_text=CHARACTERS (16384), "
        "max_model=CHARACTERS (256), max_connections=N (256), head_timeout=SECONDS (5), body_timeout=SECONDS (10), "
        "keep_alive=SECONDS (5), max_head=BYTES (16384) (repeatable)."
    ),
)
@click.option("-v", "--verbose", is_flag=True, help="Print a line per request.")
@click.argument("providers", nargs=-1, shell_complete=complete_generated_providers)
def mock(
    out: Path | None,
    host: str,
    port: int,
    replays: tuple[str, ...],
    text: str | None,
    faults: tuple[str, ...],
    delay: float | None,
    limits: tuple[str, ...],
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
    (?cut_at=3&delay=0.05).  GET / lists the channels.  A request body must be
    JSON (415 otherwise) within the --limit bounds.  Needs the mock extra:
    pip install 'ssegen[mock]'.
    """
    import logging

    from ..conform import generated_providers
    from ..diagnostics import escape_controls
    from ..mock import Limits, MockUnavailable, bind, create_app, endpoints, is_loopback, listing, make_server
    from ..replay import FaultError, Faults, import_provider

    config = config_from_flags(out=out)
    names = list(providers) or generated_providers(config.out)
    if not names:
        raise click.ClickException(f"no generated package in {config.out} (run `ssegen generate` first)")
    try:
        base = Faults.parse(faults)
        if delay is not None:
            base = Faults.from_mapping({"delay": delay}, base)
        packages = [import_provider(name, config.out, config.import_name) for name in names]
        served = endpoints(packages, _replay_option(replays), text)
        bounds = Limits.parse(limits)
        server = make_server(create_app(served, base, bounds), "info" if verbose else "warning", bounds)
    except FaultError as exc:
        raise click.UsageError(escape_controls(str(exc))) from None
    except MockUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    url = f"http://{host if ':' not in host else f'[{host}]'}:{sock.getsockname()[1]}"
    click.echo(f"ssegen mock: serving on {url} (faults: {base.describe() or 'none'}); Ctrl-C stops")
    if not is_loopback(host):
        click.echo(
            f"ssegen mock: warning: {host} is not a loopback address: other machines can reach the mock", err=True
        )
    echo_lines(listing(served, url))
    sys.stdout.flush()
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        logging.getLogger("ssegen.mock").setLevel(logging.INFO)
    server.run(sockets=[sock])


def _replay_option(values: tuple[str, ...]) -> dict[str | None, Path]:
    """``--replay`` values as channel address (None: the only channel served) -> capture file.

    The captures themselves are read (once, regular files only) by :func:`ssegen.mock.endpoints`.
    """
    replays: dict[str | None, Path] = {}
    for value in values:
        address, sep, file = value.partition("=")
        if not sep or not (address.startswith("/") or ":/" in address):  # a file name holding `=`
            address, file = "", value
        replays[address or None] = Path(file)
    return replays

"""Where the CLI's text goes: lines on stdout or stderr, diagnostics in the chosen format, and
the progress line of a slow build.  The words come from :mod:`ssegen.cli.report`."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic


def echo_lines(lines: Iterable[str], *, err: bool = False) -> None:
    """Print each line (stderr with ``err``)."""
    for line in lines:
        click.echo(line, err=err)


def print_diagnostics(diagnostics: list[Diagnostic], fmt: str, specs: Path) -> None:
    """Print ``diagnostics`` in ``fmt`` (:data:`ssegen.diagnostics.report.FORMATS`): text lines on
    stderr, files named from the current directory; the machine formats on stdout."""
    from ..diagnostics.report import render, use_colour

    if fmt == "text":
        colour = use_colour(sys.stderr.isatty())
        click.echo(render(diagnostics, fmt, specs, colour=colour), nl=False, err=True, color=colour)
    else:
        click.echo(render(diagnostics, fmt, specs), nl=False)


class SlowProviderNotice:
    """The progress line: ``<provider>: building (more than 1 s so far)...`` on stderr once a
    provider has taken more than :attr:`AFTER` seconds (a 3 MB OpenAPI document takes several),
    so a person or a CI log sees what ssegen is doing. On a terminal the line is erased when that
    provider is done (its summary line follows); in a log it stays. Call it with each provider's
    name as its build starts; :meth:`close` when the builds are done."""

    AFTER = 1.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._shown = False
        self._tty = sys.stderr.isatty()

    def __call__(self, name: str) -> None:
        self.close()
        self._timer = threading.Timer(self.AFTER, self._show, (name,))
        self._timer.daemon = True
        self._timer.start()

    def _show(self, name: str) -> None:
        with self._lock:
            click.echo(f"{name}: building (more than {self.AFTER:.0f} s so far)...", err=True, nl=not self._tty)
            self._shown = True

    def close(self) -> None:
        """Stop waiting for the current provider, and erase its line on a terminal."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._lock:
            if self._shown and self._tty:
                click.echo("\r\x1b[K", err=True, nl=False)  # erase the line: the summary says the rest
            self._shown = False

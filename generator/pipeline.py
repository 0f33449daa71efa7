"""The whole job, sources -> IR -> files, for ``generate`` and ``check``.

One direction of data flow: :func:`generator.load.load_provider` reads a
provider folder into IR, :func:`generator.emit.render_provider` turns IR into
file contents, and only then are files compared with or written to disk.
A provider whose sources have errors is skipped (its old output is kept, and
the error names the file, line and pointer); the other providers go on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostics, Severity
from .emit import FileStatus, compare, render_provider, render_root, write
from .load import load_provider, provider_names


@dataclass
class ProviderReport:
    """What happened to one provider.

    Attributes:
        name: the provider.
        diagnostics: every diagnostic of its sources and code model.
        files: output-relative path -> content (empty when it failed).
        channels, messages, classes: counts for the summary.
        seconds: wall time to load and render.
    """

    name: str
    diagnostics: Diagnostics
    files: dict[str, str] = field(default_factory=dict)
    channels: int = 0
    messages: int = 0
    classes: int = 0
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        """True when the provider has error diagnostics (no output produced)."""
        return self.diagnostics.has_errors


def build(specs: Path, providers: list[str] | None, package: str, strict: bool = False) -> list[ProviderReport]:
    """Load and render ``providers`` (all folders under ``specs`` when None).

    Args:
        specs: the specs folder.
        providers: provider names to build, or None for all.
        package: dotted import name of the output folder (for docstrings).
        strict: treat warnings as errors (nothing is produced for a provider
            with warnings).

    Returns:
        One report per provider, in name order.  Never raises for bad specs.
    """
    names = providers if providers else provider_names(specs)
    reports = []
    for name in sorted(names):
        started = time.perf_counter()
        report = ProviderReport(name, Diagnostics())
        if not (specs / name).is_dir():
            report.diagnostics.add("provider-missing", Severity.ERROR, f"no provider folder {name!r} under {specs}")
            reports.append(report)
            continue
        loaded = load_provider(specs, name)
        report.diagnostics = loaded.diagnostics
        if loaded.provider is not None and not loaded.diagnostics.has_errors:
            rendered = render_provider(loaded.provider, package, report.diagnostics)
            if strict and any(d.severity is Severity.WARNING for d in report.diagnostics):
                report.diagnostics.add("strict", Severity.ERROR, "warnings are errors under --strict; nothing generated")
            else:
                report.files = rendered.files
                report.channels = len(loaded.provider.channels)
                report.messages = sum(len(c.messages) for c in loaded.provider.channels)
                assert rendered.model is not None
                report.classes = len(rendered.model.classes) + len(rendered.model.terminators)
        report.seconds = time.perf_counter() - started
        reports.append(report)
    return reports


def all_files(reports: list[ProviderReport]) -> dict[str, str]:
    """The output files of every successful provider, plus the output root's own."""
    files = dict(render_root())
    for report in reports:
        files.update(report.files)
    return files


def generate(out: Path, reports: list[ProviderReport]) -> FileStatus:
    """Write the stale files of ``reports`` under ``out``; return the comparison made first."""
    files = all_files(reports)
    status = compare(out, files, [r.name for r in reports if not r.failed])
    write(out, files, status.stale)
    return status


def check(out: Path, reports: list[ProviderReport]) -> FileStatus:
    """Compare ``out`` with what the specs produce now; writes nothing."""
    return compare(out, all_files(reports), [r.name for r in reports if not r.failed])

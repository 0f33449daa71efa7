"""The ``ssegen diff`` report: what was compared and what changed, in the four formats.

Pure functions from a :class:`DiffReport` to text (docs/diff.md describes each format):

* ``text``: per provider a summary line, then per channel one line per change,
  ``where: impact[kind]: message member: what changed (old: where it was)``, each place as seen
  from the current directory (a git side as ``REV:path``), the impact coloured on a terminal;
* ``json``: one stable document (:func:`report_json`), for CI;
* ``github``: GitHub Actions workflow commands annotating the spec lines (critical ``error``,
  breaking ``warning``, compatible ``notice``);
* ``sarif``: a SARIF 2.1.0 log, a rule per kind that occurs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic, escape_controls
from ..ir import Provenance
from .changes import KINDS, Change, Impact, worst

#: Output formats of :func:`render`.
FORMATS = ("text", "json", "github", "sarif")

#: The version of the JSON report's layout (docs/diff.md); raised when a key changes meaning.
JSON_VERSION = 1

_COLOURS = {Impact.CRITICAL: ("red", True), Impact.BREAKING: ("yellow", True), Impact.COMPATIBLE: ("cyan", False)}
_GITHUB = {Impact.CRITICAL: "error", Impact.BREAKING: "warning", Impact.COMPATIBLE: "notice"}
_SARIF = {Impact.CRITICAL: "error", Impact.BREAKING: "warning", Impact.COMPATIBLE: "note"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Side:
    """One side of the comparison, as the report names it.

    Attributes:
        label: what it is (``specs/``, ``176e126:specs/``, ``old/anthropic/``).
        prefix: what a provenance file (relative to that side's specs folder) is shown after:
            ``specs/`` for a folder, ``176e126:specs/`` for a git revision (git's ``REV:path``).
        on_disk: its files are the user's own, under ``prefix`` from the current directory (a
            GitHub annotation or a SARIF location may point at them).
    """

    label: str
    prefix: str
    on_disk: bool = True

    def place(self, where: Provenance | None) -> str:
        """``where`` as shown: ``prefix + file`` and ``:line`` when known; "" for None."""
        if where is None or not where.file:
            return ""
        return f"{self.prefix}{where.file}" + (f":{where.line}" if where.line else "")


@dataclass
class ProviderDiff:
    """One provider compared.

    Attributes:
        name: the provider (the new side's folder name).
        changes: the classified changes, grouped by channel (:func:`ssegen.diff.sorted_changes`).
        errors: error diagnostics of a side that could not be loaded (then nothing was compared).
        status: ``changed``, ``unchanged``, ``added``, ``removed`` or ``failed``.
    """

    name: str
    changes: list[Change] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    status: str = "unchanged"

    def counts(self) -> dict[str, int]:
        """Changes by impact, most severe first."""
        return {i.value: sum(1 for c in self.changes if c.impact is i) for i in reversed(Impact)}


@dataclass
class DiffReport:
    """A whole ``ssegen diff`` run: its two sides and its providers, in name order."""

    old: Side
    new: Side
    providers: list[ProviderDiff]

    @property
    def changes(self) -> list[Change]:
        """Every change, provider by provider."""
        return [c for p in self.providers for c in p.changes]

    @property
    def breaking(self) -> bool:
        """True when a change is breaking or critical (``ssegen diff`` exits 1)."""
        found = worst(self.changes)
        return found is not None and found is not Impact.COMPATIBLE

    @property
    def failed(self) -> bool:
        """True when a provider could not be compared (``ssegen diff`` exits 2)."""
        return any(p.status == "failed" for p in self.providers)

    def counts(self) -> dict[str, int]:
        """Changes by impact over every provider, most severe first."""
        return {i.value: sum(1 for c in self.changes if c.impact is i) for i in reversed(Impact)}


def render(report: DiffReport, fmt: str, *, colour: bool = False, version: str = "") -> str:
    """``report`` in ``fmt`` (one of :data:`FORMATS`), newline-terminated; ``version`` is ssegen's,
    for SARIF.

    Raises:
        ValueError: ``fmt`` is not one of :data:`FORMATS`.
    """
    if fmt == "json":
        return json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif_log(report, version), indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        return "".join(line + "\n" for line in github_lines(report))
    if fmt == "text":
        return "".join(line + "\n" for line in text_lines(report, colour=colour))
    raise ValueError(f"unknown report format {fmt!r}; one of {', '.join(FORMATS)}")


# -- text ----------------------------------------------------------------------------------------


def summary(counts: dict[str, int]) -> str:
    """``1 critical, 0 breaking, 12 compatible``; ``no change`` when every count is 0."""
    if not any(counts.values()):
        return "no change"
    return ", ".join(f"{n} {impact}" for impact, n in counts.items())


def provider_line(provider: ProviderDiff) -> str:
    """The one-line summary of a provider."""
    if provider.status == "failed" and all(d.code == "provider-missing" for d in provider.errors):
        return f"{provider.name}: not compared, no such provider folder on either side"
    if provider.status == "failed":
        return f"{provider.name}: not compared, its specs have errors (above)"
    status = {"added": " (new provider)", "removed": " (provider removed)"}.get(provider.status, "")
    return f"{provider.name}{status}: {summary(provider.counts())}"


def text_lines(report: DiffReport, *, colour: bool = False) -> list[str]:
    """The text report: a heading, per provider its summary line and its changes by channel,
    then the totals."""
    import click

    lines = [f"ssegen diff {report.old.label} -> {report.new.label}"]
    for provider in report.providers:
        lines.append(provider_line(provider))
        channel = None
        for change in provider.changes:
            if change.channel != channel:
                channel = change.channel
                lines.append(f"  {channel or '(provider)'}")
            label = f"{change.impact.value}[{change.kind.name}]"
            if colour:
                fg, bold = _COLOURS[change.impact]
                label = click.style(label, fg=fg, bold=bold)
            lines.append(f"    {change_line(report, change, label)}")
    verdict = "breaking" if report.breaking else "nothing breaking"
    failed = sum(1 for p in report.providers if p.status == "failed")
    uncompared = f"; {failed} not compared" if failed else ""
    lines.append(f"{summary(report.counts())}: {verdict}{uncompared}")
    return lines


def change_line(report: DiffReport, change: Change, label: str) -> str:
    """``where: label: message member: text (old: where it was)``."""
    new = report.new.place(change.new)
    old = report.old.place(change.old)
    where = new or old or "<ssegen>"
    subject = " ".join(part for part in (change.message, change.member) if part)
    text = f"{subject}: {change.text}" if subject else change.text
    tail = f" (old: {old})" if old and new else ""
    return escape_controls(f"{where}: {label}: {text}{tail}")


# -- json ----------------------------------------------------------------------------------------


def report_json(report: DiffReport) -> dict[str, Any]:
    """The JSON report (docs/diff.md): ``version``, ``old``, ``new`` (the sides' labels),
    ``breaking``, ``counts``, and per provider its ``name``, ``status``, ``counts``, ``changes``
    (:meth:`ssegen.diff.Change.to_dict`, each place with its ``path`` as shown) and ``errors``."""
    return {
        "version": JSON_VERSION,
        "old": report.old.label,
        "new": report.new.label,
        "breaking": report.breaking,
        "counts": report.counts(),
        "providers": [
            {
                "name": p.name,
                "status": p.status,
                "counts": p.counts(),
                "changes": [_change_json(report, c) for c in p.changes],
                "errors": [d.to_dict() for d in p.errors],
            }
            for p in report.providers
        ],
    }


def _change_json(report: DiffReport, change: Change) -> dict[str, Any]:
    data = change.to_dict()
    for key, side, where in (("old", report.old, change.old), ("new", report.new, change.new)):
        if data[key] is not None:
            data[key]["path"] = side.place(where)
    return data


# -- github and sarif ----------------------------------------------------------------------------


def _github_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _annotated(report: DiffReport, change: Change) -> tuple[str, int]:
    """The work-tree file and line a change is annotated at ("" when its side is not on disk)."""
    for side, where in ((report.new, change.new), (report.old, change.old)):
        if where is not None and where.file and side.on_disk:
            return side.prefix + where.file, where.line
    return "", 0


def _message(change: Change) -> str:
    subject = " ".join(part for part in (change.channel, change.message, change.member) if part)
    return f"{subject}: {change.text}" if subject else change.text


def github_lines(report: DiffReport) -> list[str]:
    """One workflow command per change, at its spec line in the work tree."""
    lines = []
    for change in report.changes:
        file, line = _annotated(report, change)
        props = [f"file={_github_escape(escape_controls(file), prop=True)}"] if file else []
        props += [f"line={line}"] if file and line else []
        props.append(f"title={_github_escape(f'ssegen diff {change.kind.name} ({change.impact.value})', prop=True)}")
        text = escape_controls(f"{change.provider} {_message(change)}")
        lines.append(f"::{_GITHUB[change.impact]} {','.join(props)}::{_github_escape(text)}")
    return lines


def sarif_log(report: DiffReport, version: str) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run of tool ``ssegen`` ``version``, a rule per kind that occurs (its
    catalogue summary), a result per change at its work-tree spec line, with its provider, channel,
    message and member as a logical location."""
    kinds = sorted({c.kind.name for c in report.changes})
    rules = [
        {
            "id": name,
            "shortDescription": {"text": KINDS[name].summary},
            "defaultConfiguration": {"level": _SARIF[KINDS[name].impact]},
            "properties": {"impact": KINDS[name].impact.value},
        }
        for name in kinds
    ]
    results = []
    for change in report.changes:
        result: dict[str, Any] = {
            "ruleId": change.kind.name,
            "ruleIndex": kinds.index(change.kind.name),
            "level": _SARIF[change.impact],
            "message": {"text": _message(change)},
        }
        logical = "/".join(part for part in (change.provider, change.channel, change.message, change.member) if part)
        location: dict[str, Any] = {"logicalLocations": [{"fullyQualifiedName": logical, "kind": "element"}]}
        file, line = _annotated(report, change)
        if file:
            physical: dict[str, Any] = {"artifactLocation": {"uri": file}}
            if line:
                physical["region"] = {"startLine": line}
            location["physicalLocation"] = physical
        result["locations"] = [location]
        results.append(result)
    driver = {
        "name": "ssegen",
        "version": version,
        "informationUri": "https://pypi.org/project/ssegen/",
        "rules": rules,
    }
    return {"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}

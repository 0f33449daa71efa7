"""The CLI's report text: pure functions from what a job found to the lines it prints.

Nothing here prints, reads a file or decides an exit code: the commands
(:mod:`ssegen.cli.generate`, :mod:`ssegen.cli.tools`) decide, call these for the words and
print them (:mod:`ssegen.cli.console`), so each line's wording is testable on its own.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import codes, escape_controls
from ..output import MANIFEST

if TYPE_CHECKING:
    from ..conform import ConformReport
    from ..output import Plan, QuickCheck
    from ..pipeline import Outcome, ProviderReport

#: Severities from the least to the most severe: ``--min-severity warning`` prints warnings and errors.
LEVELS = ("info", "warning", "error")

#: How many files of a folder ssegen does not own are named before "and N more".
UNOWNED_SHOWN = 20

REFUSED = (
    "nothing written: ssegen writes only into a folder it owns (one with its ssegen-manifest.json, or an "
    "empty one); choose another --out/--tests-out, or take the folder over with `ssegen generate --adopt` "
    "(files in the way are then overwritten, others left alone)"
)
HAND_EDITED = "generated files were changed by hand; `ssegen generate --force` restores them"
REFORMATTED = (
    "another formatter rewrote generated files (same code, other layout): exclude the output folder "
    "from it (ruff/black `extend-exclude`, see ssegen's docs/build-step.md)"
)


def plural(count: int, noun: str, nouns: str = "") -> str:
    """``1 file``, ``2 files``; ``nouns`` for an irregular plural (``classes``)."""
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


def shown_levels(min_severity: str) -> tuple[str, ...]:
    """The severities printed at ``min_severity`` (one of :data:`LEVELS`) and above."""
    return LEVELS[LEVELS.index(min_severity) :]


def up_to_date(folders: Sequence[Path], detail: str) -> str:
    """``out/ is up to date (<detail>)``, naming every output folder."""
    return f"{', '.join(f'{f}/' for f in folders)} {'is' if len(folders) == 1 else 'are'} up to date ({detail})"


# --- generate -----------------------------------------------------------------------------------


def provider_summary(
    report: ProviderReport,
    shown: tuple[str, ...],
    written: set[tuple[Path, str]],
    mine: list[tuple[Path, str]],
    first_run: bool,
) -> str:
    """One line about one provider: what it holds, its diagnostics by severity, files written.

    ``mine`` are the ``(folder, path)`` of the provider's files, ``written`` those written
    this run; diagnostics below ``shown`` are counted as not shown.  A provider that failed
    keeps its previous output, or on a ``first_run`` has none; a name with no provider folder
    (``provider-missing``) never had any.
    """
    tally = _tally(report, shown)
    if report.failed:
        if any(d.code == codes.PROVIDER_MISSING.name for d in report.diagnostics):
            return f"{report.name}: FAILED ({tally}); no such provider, nothing generated"
        return f"{report.name}: FAILED ({tally}); {'nothing generated' if first_run else 'previous output kept'}"
    files = sum(1 for place in mine if place in written)
    return (
        f"{report.name}: {plural(report.channels, 'channel')}, {plural(report.messages, 'message')}, "
        f"{plural(report.classes, 'class', 'classes')}, {tally or 'no diagnostics'}; "
        f"{files} of {plural(len(mine), 'file')} written, {report.seconds:.2f}s"
    )


def _tally(report: ProviderReport, shown: tuple[str, ...]) -> str:
    """``1 error, 2 warnings, 3 infos not shown (-v)``: the provider's diagnostics by severity."""
    counts = {level: sum(1 for d in report.diagnostics if d.severity.value == level) for level in LEVELS}
    present = [level for level in reversed(LEVELS) if counts[level]]
    tally = ", ".join(plural(counts[level], level) for level in present if level in shown)
    hidden = " and ".join(plural(counts[level], level) for level in present if level not in shown)
    return ", ".join(part for part in (tally, f"{hidden} not shown (-v)" if hidden else "") if part)


def summary_lines(
    reports: list[ProviderReport],
    outcomes: list[Outcome],
    shown: tuple[str, ...],
    places: dict[str, list[tuple[Path, str]]],
    first_run: bool,
) -> list[str]:
    """Per provider its :func:`provider_summary` (``places``: its files by provider name), then
    what else happened to the output folders (removed, restored, manifest refreshed)."""
    written = {(o.folder, rel) for o in outcomes for rel in o.written}
    lines = [provider_summary(r, shown, written, places[r.name], first_run) for r in reports]
    for o in outcomes:
        lines += [f"removed (no longer generated): {o.folder / rel}" for rel in o.plan.remove]
        lines += [
            f"restored ssegen's formatting (another formatter rewrote it): {o.folder / rel}"
            for rel in o.plan.reformatted
        ]
    lines += [
        f"only {o.folder / MANIFEST} rewritten: ssegen changed since it was written, "
        "the files it generates did not (the manifest now records this ssegen)"
        for o in outcomes
        if o.plan.refresh and set(o.written) == set(o.plan.refresh)
    ]
    return lines


def done_line(outcomes: list[Outcome], elapsed: float, out: Path) -> str:
    """The last line of a generate run: where the output went, or that there is none."""
    if outcomes:
        return f"done in {elapsed:.2f}s -> {', '.join(f'{o.folder}/' for o in outcomes)}"
    return f"nothing generated in {elapsed:.2f}s; {out}/ not created"


def ownership_lines(outcomes: list[Outcome], *, adopt: bool, force: bool) -> list[str]:
    """The files generate did not simply write, per output folder: adopted, left alone,
    not overwritten (without ``force``), kept though no longer generated."""
    return [line for outcome in outcomes for line in _ownership_lines(outcome, adopt, force)]


def _ownership_lines(outcome: Outcome, adopt: bool, force: bool) -> list[str]:
    todo, folder = outcome.plan, outcome.folder
    lines = []
    if adopt:
        adopted = sorted(set(todo.foreign) & set(todo.blocked) & set(outcome.written))
        lines += [f"adopted (overwritten, was not written by ssegen): {folder / rel}" for rel in adopted]
    left_alone = sorted(set(todo.foreign) - set(todo.blocked))
    lines += [f"left alone (not written by ssegen): {folder / rel}" for rel in left_alone]
    if force:
        return lines
    for rel in todo.blocked:
        if not (adopt and rel in todo.foreign):
            why = "edited by hand" if rel in todo.edited else "not written by ssegen"
            lines.append(f"NOT overwritten ({why}; use --force): {folder / rel}")
    kept = sorted(set(todo.edited) - set(todo.blocked))
    lines += [f"kept (edited by hand, no longer generated): {folder / rel}" for rel in kept]
    return lines


def refused_lines(outcomes: list[Outcome]) -> list[str]:
    """Why generate wrote nothing: the files in each folder that is not ssegen's, and what to do."""
    return [line for o in outcomes for line in unowned_lines(o.folder, o.plan.unowned, o.files)] + [REFUSED]


def unowned_lines(folder: Path, unowned: list[str], files: dict[str, str]) -> list[str]:
    """The files that make ``folder`` not ssegen's (it has no manifest), the first
    :data:`UNOWNED_SHOWN` by name; none when there are none."""
    if not unowned:
        return []
    lines = [f"error: {folder}/ has no {MANIFEST} and holds {plural(len(unowned), 'file')} ssegen did not write:"]
    for rel in unowned[:UNOWNED_SHOWN]:
        why = "differs from what ssegen would write there" if rel in files else "not generated by ssegen"
        lines.append(f"  {folder / rel} ({why})")
    if len(unowned) > UNOWNED_SHOWN:
        lines.append(f"  ... and {len(unowned) - UNOWNED_SHOWN} more")
    return lines


# --- check --------------------------------------------------------------------------------------


def hand_edit_lines(folders: Sequence[Path], quick: Sequence[QuickCheck]) -> list[str]:
    """What the manifests' hashes tell was edited or deleted, per output folder."""
    lines = []
    for folder, q in zip(folders, quick, strict=True):
        lines += [f"edited by hand: {folder / rel}" for rel in q.edited]
        lines += [f"missing: {folder / rel}" for rel in q.missing]
    return lines


def stale_lines(outcome: Outcome) -> list[str]:
    """Each file of ``outcome``'s folder that is not what the specs produce now, and why."""
    todo, folder = outcome.plan, outcome.folder
    lines = [f"{_why_stale(todo, rel)}: {folder / rel}" for rel in todo.stale]
    left_alone = sorted(set(todo.foreign) - set(todo.blocked))
    lines += [f"not generated by ssegen (left alone): {folder / rel}" for rel in left_alone]
    lines += [
        f"not written by ssegen, in a folder without {MANIFEST} (generate refuses it): {folder / rel}"
        for rel in sorted(set(todo.unowned) - set(todo.stale))
    ]
    return lines


def _why_stale(todo: Plan, rel: str) -> str:
    if rel in todo.edited:
        return "edited by hand"
    if rel in todo.foreign:
        return "not written by ssegen, in the way"
    if rel in todo.reformatted:
        return "reformatted by another formatter"
    return "stale"


def diff_lines(path: Path, disk: str, wanted: str) -> list[str]:
    """A unified diff from ``disk`` (``path``'s text, "" when unreadable) to ``wanted`` (what the
    specs produce now), each line ending in a newline."""
    lines = difflib.unified_diff(
        disk.splitlines(keepends=True), wanted.splitlines(keepends=True), f"{path} (on disk)", f"{path} (specs now)"
    )
    return [line if line.endswith("\n") else line + "\n" for line in lines]


def checked_detail(outcomes: list[Outcome]) -> str:
    """What an up-to-date full check compared, and whether the manifest wants a refresh."""
    detail = plural(sum(len(o.plan.unchanged) for o in outcomes), "file")
    if any(o.plan.refresh for o in outcomes):
        detail += "; the manifest records another ssegen, `ssegen generate` refreshes it for a fast check"
    return detail


# --- conform ------------------------------------------------------------------------------------


def conform_lines(report: ConformReport) -> list[str]:
    """``ssegen conform``'s text: each violation, then the assembled result (blocks, stop
    reason, choices, errors, vendor events) and a closing count. Every line is escaped
    (:func:`ssegen.diagnostics.escape_controls`): the capture's finish reasons, ids, names,
    arguments and error texts reach a terminal, and no control or bidirectional character of
    theirs may move its cursor, retitle its window or forge a line."""
    return [escape_controls(line) for line in _conform_lines(report)]


def _conform_lines(report: ConformReport) -> list[str]:
    final = report.final
    lines = [violation.format() for violation in report.violations]
    lines += block_lines(final.get("output", []))
    if final.get("stop_reason") is not None:
        lines.append(f"stop reason: {final['stop_reason']}")
    for choice in final.get("choices", []):
        lines += _choice_lines(choice)
    lines += [_error_line(error) for error in final["errors"]]
    if final["vendor_events"]:
        kinds = ", ".join(str(v.get("type")) for v in final["vendor_events"])
        lines.append(f"{len(final['vendor_events'])} vendor events: {kinds}")
    lines.append(
        f"{report.events} events, {len(report.violations)} violations, "
        f"complete={final['complete']}, usage={json.dumps(final['usage'])}"
    )
    return lines


def _choice_lines(choice: dict[str, Any]) -> list[str]:
    """One chat choice: its content, reasoning and refusal, and its tool calls."""
    lines = [f"choice {choice['index']} ({choice['finish_reason']}): {choice['content']!r}"]
    lines += [f"  {name}: {choice[name]!r}" for name in ("reasoning_content", "refusal") if choice[name] is not None]
    lines += [
        f"  tool call {call['index']} {call['id']}: {call['function']['name']}({call['function']['arguments']})"
        for call in choice["tool_calls"]
    ]
    return lines


def _error_line(error: dict[str, Any]) -> str:
    detail = error.get("data", error.get("message"))
    if detail is None:  # member_off_spec, event_off_spec, snapshot_mismatch: the entry itself
        detail = {k: v for k, v in error.items() if k not in ("kind", "got") or error.get("type") is None}
    return f"error ({error['kind']}): {json.dumps(detail, ensure_ascii=False)}"


def block_lines(blocks: Iterable[dict[str, Any]]) -> list[str]:
    """A readable summary of a Messages or Responses stream's blocks (items): per block its
    index, kind, id and name, then its texts, tool call and the other text deltas."""
    lines = []
    for block in blocks:
        lines.append(_block_head(block))
        texts = [name for name in ("text", "thinking", "refusal") if block.get(name) is not None]
        lines += [f"  {name}: {block[name]!r}" for name in texts]
        if block.get("signature"):
            lines.append(f"  signature: {len(block['signature'])} characters")
        if block.get("name") or block.get("arguments") is not None:
            lines.append(_block_call(block))
        lines += [f"  {name}: {text!r}" for name, text in (block.get("texts") or {}).items()]
        if block.get("deltas"):
            lines.append(f"  {len(block['deltas'])} other deltas")
    return lines


def _block_head(block: dict[str, Any]) -> str:
    head = f"block {block['index']} {block['kind']}"
    head += "".join(f" {block[k]}" for k in ("id", "call_id") if block.get(k))
    if block.get("status"):
        head += f" ({block['status']})"
    return head + ":"


def _block_call(block: dict[str, Any]) -> str:
    call = f"  tool call {block.get('name')}({block.get('arguments') or ''})"
    if block.get("arguments") and block.get("input") is None:
        call += f" (not valid JSON; partial: {json.dumps(block.get('input_partial'), ensure_ascii=False)})"
    return call

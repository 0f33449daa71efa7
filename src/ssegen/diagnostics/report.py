"""Diagnostics rendered for people and for CI: terminal lines, GitHub annotations, SARIF.

A :class:`~ssegen.diagnostics.Diagnostic` keeps its ``file`` relative to the specs folder (stable
data: golden records, ``--format json``). What a person or a CI system reads instead names the
file as seen from the current directory (``specs/deepseek/api-docs.txt:395``), so an editor, a
terminal or a workflow log can jump to it:

* ``text``: ``path:line: pointer: severity[code]: message``, the severity coloured on a terminal
  (``NO_COLOR`` set, or output not a terminal: no colour; https://no-color.org);
* ``github``: GitHub Actions workflow commands (``::error file=...,line=...,title=...::message``),
  which the runner shows as annotations on the file
  (https://docs.github.com/actions/reference/workflow-commands-for-github-actions);
* ``sarif``: one SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format), for
  code-scanning uploads; every code of the catalogue that occurs is a rule.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from . import Diagnostic, escape_controls, json_text
from .codes import CATALOGUE
from .codes import Severity as _Severity

#: Output formats of :func:`render` (``json`` is :func:`ssegen.diagnostics.to_json`'s).
FORMATS = ("text", "json", "github", "sarif")

_COLOURS = {_Severity.ERROR: ("red", True), _Severity.WARNING: ("yellow", True), _Severity.INFO: ("cyan", False)}
_GITHUB_LEVELS = {_Severity.ERROR: "error", _Severity.WARNING: "warning", _Severity.INFO: "notice"}
_SARIF_LEVELS = {_Severity.ERROR: "error", _Severity.WARNING: "warning", _Severity.INFO: "note"}
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def display_path(specs: Path, file: str, cwd: Path | None = None) -> str:
    """Where ``file`` (relative to the ``specs`` folder) is, as seen from ``cwd`` (default: the
    current directory): a relative POSIX path when it is below ``cwd``, else an absolute one.
    "" stays "" (a diagnostic not tied to a file)."""
    if not file:
        return ""
    path = Path(os.path.abspath(specs / file))
    base = Path(os.path.abspath(cwd or Path.cwd()))
    try:
        shown = path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()
    return shown + "/" if file.endswith("/") and not shown.endswith("/") else shown


def use_colour(stream_is_tty: bool, environ: dict[str, str] | None = None) -> bool:
    """Whether to colour terminal output: on a terminal, unless ``NO_COLOR`` is set to anything
    non-empty (no-color.org); ``FORCE_COLOR`` (non-empty) colours even when not a terminal."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    return bool(env.get("FORCE_COLOR")) or stream_is_tty


def text_line(diag: Diagnostic, specs: Path, *, colour: bool = False) -> str:
    """One diagnostic as ``path:line[:column]: pointer: severity[code]: message``, ``path`` as
    :func:`display_path` gives it; the ``severity[code]`` part styled when ``colour``. Control
    and bidirectional characters from a spec are escaped (:func:`escape_controls`), so a
    property name cannot move the cursor or forge a line."""
    import click

    where = escape_controls(display_path(specs, diag.file))
    where = (f"{where}:{diag.position}" if diag.line else where) if where else "<ssegen>"
    label = f"{diag.severity.value}[{diag.code}]"
    if colour:
        fg, bold = _COLOURS[diag.severity]
        label = click.style(label, fg=fg, bold=bold)
    return f"{where}: {escape_controls(diag.pointer) or '/'}: {label}: {escape_controls(diag.message)}"


def _github_escape(text: str, *, prop: bool = False) -> str:
    """Workflow-command escaping: ``%``, CR and LF always; ``:`` and ``,`` in properties."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github_line(diag: Diagnostic, specs: Path) -> str:
    """One diagnostic as a GitHub Actions workflow command (``error``, ``warning`` or ``notice``)."""
    props = []
    path = escape_controls(display_path(specs, diag.file))
    if path:
        props.append(f"file={_github_escape(path, prop=True)}")
        if diag.line:
            props.append(f"line={diag.line}")
            if diag.column:
                props.append(f"col={diag.column}")
    props.append(f"title={_github_escape(f'ssegen {diag.code}', prop=True)}")
    pointer = f" (at {escape_controls(diag.pointer)})" if diag.pointer else ""
    message = escape_controls(diag.message) + pointer
    return f"::{_GITHUB_LEVELS[diag.severity]} {','.join(props)}::{_github_escape(message)}"


def sarif_log(diagnostics: Iterable[Diagnostic], specs: Path, version: str) -> dict[str, object]:
    """A SARIF 2.1.0 log of ``diagnostics``: one run of tool ``ssegen`` ``version``, a rule per
    code that occurs (its catalogue meaning as the description), a result per diagnostic with its
    file (:func:`display_path`), line and JSON pointer (a logical location)."""
    diags = list(diagnostics)
    codes = sorted({d.code for d in diags})
    rules = [
        {
            "id": code,
            "shortDescription": {"text": CATALOGUE[code].summary if code in CATALOGUE else code},
            "defaultConfiguration": {"level": _SARIF_LEVELS[CATALOGUE[code].severity] if code in CATALOGUE else "note"},
        }
        for code in codes
    ]
    results = []
    for d in diags:
        result: dict[str, object] = {
            "ruleId": d.code,
            "ruleIndex": codes.index(d.code),
            "level": _SARIF_LEVELS[d.severity],
            "message": {"text": d.message},
        }
        location: dict[str, object] = {}
        path = display_path(specs, d.file)
        if path:
            physical: dict[str, object] = {"artifactLocation": {"uri": _uri(path)}}
            if d.line:
                physical["region"] = {"startLine": d.line, **({"startColumn": d.column} if d.column else {})}
            location["physicalLocation"] = physical
        if d.pointer:
            location["logicalLocations"] = [{"fullyQualifiedName": d.pointer, "kind": "element"}]
        if location:
            result["locations"] = [location]
        results.append(result)
    driver = {
        "name": "ssegen",
        "version": version,
        "informationUri": "https://pypi.org/project/ssegen/",
        "rules": rules,
    }
    return {"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}


def _uri(path: str) -> str:
    """A SARIF ``artifactLocation.uri`` for ``path`` (POSIX, relative or absolute): percent-encoded
    (RFC 3986), so ``#``, ``%`` and ``?`` in a file name stay part of it; an absolute path as a
    ``file:`` URI."""
    from urllib.parse import quote

    return PurePosixPath(path).as_uri() if path.startswith("/") else quote(path, safe="/")


def render(diagnostics: Iterable[Diagnostic], fmt: str, specs: Path, *, colour: bool = False) -> str:
    """``diagnostics`` in output format ``fmt`` (one of :data:`FORMATS`), newline-terminated
    ("" when there are none, except for ``json`` and ``sarif``, which always give a document).

    Raises:
        ValueError: ``fmt`` is not one of :data:`FORMATS`.
    """
    from importlib.metadata import version

    from . import to_json

    diags = list(diagnostics)
    if fmt == "json":
        return to_json(diags) + "\n"
    if fmt == "sarif":
        return json_text(sarif_log(diags, specs, version("ssegen"))) + "\n"
    if fmt == "github":
        lines = [github_line(d, specs) for d in diags]
    elif fmt == "text":
        lines = [text_line(d, specs, colour=colour) for d in diags]
    else:
        raise ValueError(f"unknown diagnostics format {fmt!r}; one of {', '.join(FORMATS)}")
    return "".join(line + "\n" for line in lines)

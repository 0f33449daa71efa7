"""The whole job, sources -> IR -> files, for ``generate`` and ``check``.

One direction of data flow: :func:`ssegen.load.load_provider` reads a
provider folder into IR, :func:`ssegen.emit.render_provider` turns IR into
file contents, and only then does :mod:`ssegen.output` compare them with the
output folder and its manifest, and write.  A provider whose sources have errors
is skipped (its previous output and manifest entry are kept, and the error names
the file, line and pointer); the other providers go on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .config import OutputSettings
from .diagnostics import Diagnostics, Policy, Severity, codes
from .discover import provider_names, read_regular
from .emit import render_provider, render_root
from .load import load_provider, provider_problem
from .output import MANIFEST, Manifest, Plan, apply, build_manifest, check_paths, confined, plan


@dataclass
class ProviderReport:
    """What happened to one provider.

    Attributes:
        name: the provider.
        diagnostics: every diagnostic of its sources and code model.
        files: output-relative path -> content (empty when it failed).
        test_files: conformance tests and their example streams, relative to the tests folder,
            when they are written apart from the package (``tests_out``); else empty (they
            are in ``files``).
        inputs: the files it was built from, relative to the specs folder.
        channels, messages, classes: counts for the summary.
        seconds: wall time to load and render.
    """

    name: str
    diagnostics: Diagnostics
    files: dict[str, str] = field(default_factory=dict)
    test_files: dict[str, str] = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    channels: int = 0
    messages: int = 0
    classes: int = 0
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        """True when the provider has error diagnostics (no output produced)."""
        return self.diagnostics.has_errors


def build(
    specs: Path,
    providers: list[str] | None,
    settings: OutputSettings,
    strict: bool = False,
    policy: Policy | None = None,
    on_provider: Callable[[str], None] | None = None,
) -> list[ProviderReport]:
    """Load and render ``providers`` (all folders under ``specs`` when None).

    Args:
        specs: the specs folder.
        providers: provider names to build, or None for all.
        settings: the output folder's import name and the specs folder's name (for docstrings).
        strict: treat warnings as errors (nothing is produced for a provider
            with warnings).
        policy: the project's ignored codes and severity overrides, applied to every
            diagnostic before ``strict`` and the error check.
        on_provider: called with each provider's name as its build starts (the CLI's
            progress line for a slow provider).

    Returns:
        One report per provider, in name order.  Never raises for bad specs.
    """
    policy = policy or Policy()
    names = providers if providers else provider_names(specs)
    reports = []
    for name in sorted(names):
        if on_provider is not None:
            on_provider(name)
        started = time.perf_counter()
        report = ProviderReport(name, Diagnostics())
        problem = provider_problem(specs, name)
        if problem is not None:
            report.diagnostics.add(*problem, file="" if problem[0] is codes.PROVIDER_MISSING else f"{name}/")
            reports.append(report)
            continue
        loaded = load_provider(specs, name)
        report.diagnostics = policy.apply(loaded.diagnostics)
        report.inputs = loaded.inputs
        if loaded.provider is not None and not report.diagnostics.has_errors:
            try:
                rendered = render_provider(loaded.provider, settings, report.diagnostics)
            except RecursionError:
                report.diagnostics.add(
                    codes.SOURCE_TOO_DEEP,
                    "a schema or example nests deeper than the code generator follows; nothing generated",
                    file=f"{name}/",
                )
                report.seconds = time.perf_counter() - started
                reports.append(report)
                continue
            report.diagnostics = policy.apply(report.diagnostics)
            if strict and any(d.severity is Severity.WARNING for d in report.diagnostics):
                report.diagnostics.add(
                    codes.STRICT, "warnings are errors under --strict; nothing generated", file=f"{name}/"
                )
            if not report.diagnostics.has_errors:  # errors of the code model, or --strict: nothing written
                report.files = rendered.files
                report.test_files = rendered.test_files
                report.channels = len(loaded.provider.channels)
                report.messages = sum(len(c.messages) for c in loaded.provider.channels)
                assert rendered.model is not None
                report.classes = len(rendered.model.classes) + len(rendered.model.terminators)
        report.seconds = time.perf_counter() - started
        reports.append(report)
    return reports


@dataclass(frozen=True)
class Outcome:
    """What one output folder needs (``check``) or got (``generate``).

    Attributes:
        folder: the package folder (``out``) or the tests folder (``tests_out``).
        plan: how the folder compares with what the specs produce now.
        files: every file the specs produce now for it (folder-relative path -> content).
        written: the paths written (empty for ``check``).
        refused: the folder is not ssegen's (see :attr:`ssegen.output.Plan.unowned`): nothing
            was written into any folder.
    """

    folder: Path
    plan: Plan
    files: dict[str, str]
    written: tuple[str, ...] = ()
    refused: bool = False


def _destinations(
    out: Path, tests_out: Path | None, reports: list[ProviderReport]
) -> list[tuple[Path, list[ProviderReport], bool]]:
    """``(folder, reports with that folder's files, holds the root __init__.py)`` per output folder."""
    destinations = [(out, reports, True)]
    if tests_out is not None:
        destinations.append((tests_out, [replace(r, files=r.test_files) for r in reports], False))
    return destinations


def produce(
    specs: Path,
    out: Path,
    reports: list[ProviderReport],
    all_providers: bool,
    settings: OutputSettings,
    *,
    package_root: bool = True,
) -> tuple[dict[str, str], Manifest | None]:
    """Every file the specs produce now for ``out`` (root files, providers, manifest) and its old manifest.

    With ``all_providers`` (no explicit provider list), providers that are gone
    from the specs folder are dropped from the manifest, so their files count
    as leftovers.  ``package_root`` is False for a tests folder (no ``__init__.py``).
    """
    old = Manifest.read(out)
    files = dict(render_root(settings)) if package_root else {}
    for report in reports:
        files.update(report.files)
    kept = old
    if old is not None and all_providers:
        current = {r.name for r in reports}
        kept = replace(old, providers={k: v for k, v in old.providers.items() if k in current})
    # Failed providers keep their previous output: keep those files in the set (those inside
    # the folder: a path leading outside through a symbolic link is never read).
    for report in reports:
        if report.failed and kept is not None and report.name in kept.providers:
            for rel in kept.providers[report.name]["files"]:
                text = _kept_text(out, rel)
                if text is not None:
                    files[rel] = text
    manifest = build_manifest(specs, files, reports, kept, settings)
    files[MANIFEST] = manifest.dumps()
    return files, old


def _kept_text(out: Path, rel: str) -> str | None:
    """The text of generated file ``rel`` of ``out``, or None when it is gone, not a regular
    UTF-8 file, or leads outside ``out`` (:func:`ssegen.output.confined`)."""
    path = confined(out, rel)
    try:
        return None if path is None else read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _scanned(reports: list[ProviderReport], old: Manifest | None, all_providers: bool) -> list[str]:
    names = {r.name for r in reports if not r.failed}
    if old is not None and all_providers:
        names |= set(old.providers) - {r.name for r in reports}
    return sorted(names)


def generate(
    specs: Path,
    out: Path,
    reports: list[ProviderReport],
    settings: OutputSettings,
    *,
    all_providers: bool,
    force: bool = False,
    adopt: bool = False,
    tests_out: Path | None = None,
) -> list[Outcome]:
    """Bring ``out`` (and ``tests_out``, when tests are written apart) up to date.

    Hand-edited generated files and files ssegen did not write are left alone
    (see :class:`ssegen.output.Plan`) unless ``force``.  Each folder has its own manifest.
    Nothing is written at all when a folder is not ssegen's (no manifest, files ssegen
    would not write as they are: ``Outcome.refused``) unless ``adopt``, or when a path is
    too long for the file system (:class:`ssegen.output.OutputError`).

    Returns:
        One :class:`Outcome` per folder, the package folder first.
    """
    planned = []
    for folder, views, package_root in _destinations(out, tests_out, reports):
        files, old = produce(specs, folder, views, all_providers, settings, package_root=package_root)
        planned.append((folder, plan(folder, files, _scanned(views, old, all_providers), old), files))
    if not adopt and any(todo.unowned for _, todo, _ in planned):
        return [Outcome(folder, todo, files, refused=bool(todo.unowned)) for folder, todo, files in planned]
    for folder, todo, _ in planned:
        check_paths(folder, todo.write + todo.blocked + todo.remove)
    return [
        Outcome(folder, todo, files, tuple(apply(folder, files, todo, force=force, adopt=adopt)))
        for folder, todo, files in planned
    ]


def check(
    specs: Path,
    out: Path,
    reports: list[ProviderReport],
    settings: OutputSettings,
    *,
    all_providers: bool,
    tests_out: Path | None = None,
) -> list[Outcome]:
    """Compare ``out`` (and ``tests_out``) with what the specs produce now; writes nothing.

    A manifest that differs only in the generator it records (fingerprints and seals: ssegen's
    code changed, its output did not) is in :attr:`ssegen.output.Plan.refresh`, not stale.

    Returns:
        One :class:`Outcome` per folder, the package folder first.
    """
    outcomes = []
    for folder, views, package_root in _destinations(out, tests_out, reports):
        files, old = produce(specs, folder, views, all_providers, settings, package_root=package_root)
        outcomes.append(Outcome(folder, plan(folder, files, _scanned(views, old, all_providers), old), files))
    return outcomes

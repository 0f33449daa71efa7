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
from dataclasses import dataclass, field, replace
from pathlib import Path

from .config import OutputSettings
from .diagnostics import Diagnostics, Policy, Severity, codes
from .discover import provider_names
from .emit import render_provider, render_root
from .load import load_provider
from .naming import is_package_name
from .output import MANIFEST, Manifest, Plan, apply, build_manifest, plan


@dataclass
class ProviderReport:
    """What happened to one provider.

    Attributes:
        name: the provider.
        diagnostics: every diagnostic of its sources and code model.
        files: output-relative path -> content (empty when it failed).
        inputs: the files it was built from, relative to the specs folder.
        channels, messages, classes: counts for the summary.
        seconds: wall time to load and render.
    """

    name: str
    diagnostics: Diagnostics
    files: dict[str, str] = field(default_factory=dict)
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

    Returns:
        One report per provider, in name order.  Never raises for bad specs.
    """
    policy = policy or Policy()
    names = providers if providers else provider_names(specs)
    reports = []
    for name in sorted(names):
        started = time.perf_counter()
        report = ProviderReport(name, Diagnostics())
        if not (specs / name).is_dir():
            report.diagnostics.add(codes.PROVIDER_MISSING, f"no provider folder {name!r} under {specs}")
            reports.append(report)
            continue
        if not is_package_name(name):
            # Checked before anything is read or rendered: the name becomes a package and file paths.
            report.diagnostics.add(
                codes.PROVIDER_NAME_INVALID,
                f"provider folder name {name!r} is not a valid Python package name "
                "(use ASCII letters, digits and underscores, not starting with a digit, not a keyword); "
                "rename the folder",
                file=f"{name}/",
            )
            reports.append(report)
            continue
        loaded = load_provider(specs, name)
        report.diagnostics = policy.apply(loaded.diagnostics)
        report.inputs = loaded.inputs
        if loaded.provider is not None and not report.diagnostics.has_errors:
            rendered = render_provider(loaded.provider, settings, report.diagnostics)
            report.diagnostics = policy.apply(report.diagnostics)
            if strict and any(d.severity is Severity.WARNING for d in report.diagnostics):
                report.diagnostics.add(
                    codes.STRICT, "warnings are errors under --strict; nothing generated", file=f"{name}/"
                )
            if not report.diagnostics.has_errors:  # errors of the code model, or --strict: nothing written
                report.files = rendered.files
                report.channels = len(loaded.provider.channels)
                report.messages = sum(len(c.messages) for c in loaded.provider.channels)
                assert rendered.model is not None
                report.classes = len(rendered.model.classes) + len(rendered.model.terminators)
        report.seconds = time.perf_counter() - started
        reports.append(report)
    return reports


def produce(
    specs: Path, out: Path, reports: list[ProviderReport], all_providers: bool, settings: OutputSettings
) -> tuple[dict[str, str], Manifest | None]:
    """Every file the specs produce now (root files, providers, manifest) and the old manifest.

    With ``all_providers`` (no explicit provider list), providers that are gone
    from the specs folder are dropped from the manifest, so their files count
    as leftovers.
    """
    old = Manifest.read(out)
    files = dict(render_root())
    for report in reports:
        files.update(report.files)
    kept = old
    if old is not None and all_providers:
        current = {r.name for r in reports}
        kept = replace(old, providers={k: v for k, v in old.providers.items() if k in current})
    # Failed providers keep their previous output: keep those files in the set.
    for report in reports:
        if report.failed and kept is not None and report.name in kept.providers:
            for rel in kept.providers[report.name]["files"]:
                path = out / rel
                if path.is_file():
                    files[rel] = path.read_text(encoding="utf-8")
    manifest = build_manifest(specs, files, reports, kept, settings)
    files[MANIFEST] = manifest.dumps()
    return files, old


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
) -> tuple[Plan, list[str]]:
    """Bring ``out`` up to date (``reports`` built with flavour ``model``); return the plan and the paths written.

    Hand-edited generated files and files ssegen did not write are left alone
    (see :class:`ssegen.output.Plan`) unless ``force``.
    """
    files, old = produce(specs, out, reports, all_providers, settings)
    todo = plan(out, files, _scanned(reports, old, all_providers), old)
    written = apply(out, files, todo, force=force)
    return todo, written


def check(
    specs: Path, out: Path, reports: list[ProviderReport], settings: OutputSettings, *, all_providers: bool
) -> tuple[Plan, dict[str, str]]:
    """Compare ``out`` with what the specs produce now; writes nothing.

    Returns:
        The plan, and every file the specs produce now (output-relative path -> content).
    """
    files, old = produce(specs, out, reports, all_providers, settings)
    return plan(out, files, _scanned(reports, old, all_providers), old), files

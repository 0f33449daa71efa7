"""The output folder on disk: the manifest, what to write, and what never to touch.

ssegen records what it wrote in ``<out>/ssegen-manifest.json``: the ssegen
version, a SHA-256 of every template and runtime module (``runtime/sse.py``),
of every input of each provider, and of every file it wrote.  With it:

* ``ssegen check`` and ``ssegen generate`` answer from hashes alone when nothing
  changed (no parsing, no rendering: well under a second);
* a generated file whose content no longer matches the manifest was edited by
  hand: it is reported, and overwritten only with ``--force``; unless it is the
  same code as what the specs produce now in another layout (a user's formatter
  ran over it): then it is reported as reformatted and simply rewritten;
* a file ssegen did not write is left alone and reported, even inside a
  provider's folder;
* ssegen writes only into a folder it owns: one holding its manifest, or one that
  does not exist yet or holds no file.  A folder without a manifest that holds
  files ssegen would not write as they are (a package of the user's, or output
  whose manifest was deleted and one file edited) is refused as a whole, naming
  them (:attr:`Plan.unowned`), unless adopted (``generate --adopt``);
* a file ssegen wrote before but no longer produces (a renamed example, a
  removed provider's files) is deleted, unless it was edited by hand.

This module is deliberately light (hashlib, json): the fast ``check`` imports
nothing else.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from .discover import read_regular
from .runtime import FLAVOUR_MODULES
from .runtime import MODULES as RUNTIME_MODULES

if TYPE_CHECKING:
    from .config import OutputSettings

MANIFEST = "ssegen-manifest.json"


def templates_dir() -> Path:
    """The ``ssegen/templates`` folder, as a package resource (a real folder: ssegen is never zipped)."""
    return Path(str(resources.files("ssegen") / "templates"))


def runtime_dir() -> Path:
    """The ``ssegen/runtime`` folder, as a package resource: the modules copied into every package."""
    return Path(str(resources.files("ssegen") / "runtime"))


def runtime_source(name: str) -> str:
    """The text of runtime module ``name`` (one of ``RUNTIME_MODULES``), read anew each time (``watch``)."""
    return (runtime_dir() / name).read_text(encoding="utf-8")


def version() -> str:
    """The installed ssegen version ("0+unknown" when not installed)."""
    try:
        return metadata.version("ssegen")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def _hash_file(path: Path) -> str | None:
    """SHA-256 of a regular file's bytes; None when it is missing, unreadable or no regular
    file (a FIFO among the inputs is never opened for reading: it would block)."""
    try:
        return sha256(read_regular(path))
    except OSError:
        return None


def template_hashes() -> dict[str, str]:
    """Template file name (``channels.py.jinja``) or runtime module (``runtime/sse.py``) -> SHA-256, sorted.

    Both shape the generated files: an edit of either makes ``check`` rebuild.
    """
    folder = templates_dir()
    hashes = {p.name: sha256(p.read_bytes()) for p in folder.glob("*.jinja")}
    runtime = runtime_dir()
    modules = RUNTIME_MODULES + FLAVOUR_MODULES
    hashes.update({f"runtime/{name}": sha256((runtime / name).read_bytes()) for name in modules})
    return dict(sorted(hashes.items()))


def input_hashes(specs: Path, inputs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Input path (relative to ``specs``) -> SHA-256 ("" for a file that is gone)."""
    return {rel: _hash_file(specs / PurePosixPath(rel)) or "" for rel in sorted(inputs)}


@dataclass
class Manifest:
    """What ssegen wrote into an output folder, and from what.

    Attributes:
        ssegen: the version that wrote it.
        templates: template name (and ``runtime/<module>``) -> SHA-256.
        providers: provider -> {"inputs": {path: sha}, "files": {path: sha}};
            input paths are relative to the specs folder, file paths to the output folder.
        files: the output folder's own files (``__init__.py``) -> SHA-256.
        settings: the :class:`~ssegen.config.OutputSettings` the files were generated with
            (package name, specs folder name).
    """

    ssegen: str = ""
    templates: dict[str, str] = field(default_factory=dict)
    providers: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, out: Path) -> Manifest | None:
        """The manifest of ``out``, or None when there is none (or it is unreadable)."""
        try:
            data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
            return cls(data["ssegen"], data["templates"], data["providers"], data["files"], data.get("settings", {}))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def dumps(self) -> str:
        """Deterministic JSON text (sorted keys, trailing newline)."""
        data = {
            "ssegen": self.ssegen,
            "templates": self.templates,
            "providers": self.providers,
            "files": self.files,
            "settings": self.settings,
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def all_files(self) -> dict[str, str]:
        """Every file ssegen wrote (output-relative path -> SHA-256)."""
        result = dict(self.files)
        for entry in self.providers.values():
            result.update(entry.get("files", {}))
        return result


@dataclass
class Plan:
    """How the output folder compares with what the specs produce now.

    Attributes:
        write: files to create or update (missing, or stale and untouched by hand).
        unchanged: files already identical.
        edited: generated files changed by hand since ssegen wrote them (kept unless forced).
        foreign: files ssegen did not write (never touched); those in the way of a
            generated file are also in ``blocked``.
        blocked: generated paths occupied by a foreign or hand-edited file (written only when forced).
        remove: files ssegen wrote before and no longer produces (deleted by generate).
        reformatted: generated Python files another formatter rewrote (a user's ``ruff format``
            or ``black``): the same code and comments as what the specs produce now, in other
            layout (:func:`ssegen.formatting.same_code`); also in ``write``, since overwriting
            them loses nothing.
        unowned: when the folder has no manifest, every file in it that differs from what
            ssegen would write there (or that ssegen would not write at all): the folder is
            not ssegen's, and generating into it is refused unless adopted.  Empty for a
            folder with a manifest, and for a missing or empty one.
    """

    write: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    reformatted: list[str] = field(default_factory=list)
    unowned: list[str] = field(default_factory=list)

    @property
    def stale(self) -> list[str]:
        """Everything that differs from what the specs produce now."""
        return sorted(set(self.write) | set(self.blocked) | set(self.remove))


def plan(out: Path, files: dict[str, str], providers: list[str], old: Manifest | None) -> Plan:
    """Compare ``files`` (output-relative path -> content) with ``out`` and its manifest.

    Args:
        out: the output folder.
        files: everything the specs produce now for ``providers`` (and the root files).
        providers: the providers built this run (their folders are scanned for
            foreign and leftover files).
        old: the manifest on disk (None for an output folder written before manifests).
    """
    recorded = old.all_files() if old is not None else {}
    result = Plan()
    for rel in sorted(files):
        disk = _hash_file(out / PurePosixPath(rel))
        if disk is None:
            result.write.append(rel)
        elif disk == sha256(files[rel].encode("utf-8")):
            result.unchanged.append(rel)
        elif rel == MANIFEST or (old is not None and recorded.get(rel) == disk):
            result.write.append(rel)  # stale, and as ssegen left it
        elif rel in recorded and _reformatted(out / PurePosixPath(rel), files[rel]):
            result.reformatted.append(rel)
            result.write.append(rel)
        elif rel in recorded:
            result.edited.append(rel)
            result.blocked.append(rel)
        else:
            result.foreign.append(rel)
            result.blocked.append(rel)
    for name in sorted(providers):
        folder = out / name
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(out).as_posix()
            if not path.is_file() or rel in files or "__pycache__" in path.parts:
                continue
            if rel in recorded:
                if _hash_file(path) == recorded[rel]:
                    result.remove.append(rel)
                else:
                    result.edited.append(rel)
            else:
                result.foreign.append(rel)
    if old is None:
        result.unowned = _unowned(out, files)
    return result


def _reformatted(path: Path, wanted: str) -> bool:
    """True when the Python file at ``path`` is ``wanted`` in another formatter's layout."""
    if path.suffix != ".py":
        return False
    from .formatting import same_code

    try:
        return same_code(path.read_text(encoding="utf-8"), wanted)
    except (OSError, UnicodeDecodeError):
        return False


def _unowned(out: Path, files: dict[str, str]) -> list[str]:
    """Files of ``out`` (which has no manifest) that are not exactly what ssegen would write there."""
    if not out.is_dir():
        return []
    found = []
    for path in sorted(out.rglob("*")):
        if "__pycache__" in path.relative_to(out).parts or path.is_dir():
            continue
        rel = path.relative_to(out).as_posix()
        if rel == MANIFEST:
            continue  # unreadable: ssegen's own file, rewritten
        if rel not in files or not path.is_file() or _hash_file(path) != sha256(files[rel].encode("utf-8")):
            found.append(rel)
    return found


def apply(out: Path, files: dict[str, str], todo: Plan, *, force: bool = False, adopt: bool = False) -> list[str]:
    """Carry out ``todo``: write, and delete leftovers; return the paths written.

    Blocked paths are written only with ``force`` (hand-edited and foreign files) or
    ``adopt`` (foreign files only: a folder without a manifest taken over).  Every path
    is confined to ``out``, and every path is checked (:func:`check_paths`) before the
    first file is written, so a path the file system refuses writes nothing.

    Raises:
        ValueError: a path would leave ``out`` (never produced by ssegen's own names).
        OutputError: a path is too long for the file system (nothing written).
    """
    root = out.resolve()
    targets = todo.write + [rel for rel in todo.blocked if force or (adopt and rel in todo.foreign)]
    check_paths(out, targets)
    written = []
    for rel in sorted(targets):
        path = _inside(root, out / PurePosixPath(rel))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[rel].encode("utf-8"))
        written.append(rel)
    for rel in todo.remove:
        path = _inside(root, out / PurePosixPath(rel))
        path.unlink(missing_ok=True)
        if path.parent != root and not any(path.parent.iterdir()):
            path.parent.rmdir()
    return written


class OutputError(Exception):
    """A file cannot be written where ssegen would write it (checked before writing anything)."""


def _limits(folder: Path) -> tuple[int, int]:
    """(longest file name, longest path) in bytes on the file system holding ``folder``."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows): the common limits
        return 255, 4096


def check_paths(out: Path, rels: list[str]) -> None:
    """Raise :class:`OutputError` naming the first of ``rels`` the file system would refuse for its length."""
    name_max, path_max = _limits(out)
    root = out.resolve()
    for rel in sorted(rels):
        for part in PurePosixPath(rel).parts:
            if len(os.fsencode(part)) > name_max:
                raise OutputError(
                    f"cannot write {out / rel}: the file name {part[:40]!r}... is {len(os.fsencode(part))} bytes, "
                    f"longer than the {name_max} the file system allows; nothing was written "
                    "(shorten the provider folder or the docs file name it comes from)"
                )
        if len(os.fsencode(str(root / rel))) >= path_max:
            raise OutputError(
                f"cannot write {out / rel}: the path is longer than the {path_max} bytes the file system "
                "allows; nothing was written"
            )


def _inside(root: Path, path: Path) -> Path:
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        raise ValueError(f"refusing to touch {path}: outside {root}")
    return resolved


def build_manifest(
    specs: Path, files: dict[str, str], reports: list[Any], old: Manifest | None, settings: OutputSettings
) -> Manifest:
    """The manifest for ``files``: built providers replace their entries, others are kept.

    Args:
        specs: the specs folder (inputs are hashed from it).
        files: every file produced this run (output-relative path -> content).
        reports: per-provider results with ``name``, ``inputs``, ``files`` and ``failed``.
        old: the previous manifest, whose other providers' entries are kept.
        settings: recorded, so that a change of package or specs name makes ``check`` rebuild.
    """
    manifest = Manifest(version(), template_hashes(), dict(old.providers) if old else {}, {}, settings.to_manifest())
    for report in reports:
        if report.failed:
            continue
        manifest.providers[report.name] = {
            "inputs": input_hashes(specs, report.inputs),
            "files": {rel: sha256(report.files[rel].encode("utf-8")) for rel in sorted(report.files)},
        }
    manifest.providers = dict(sorted(manifest.providers.items()))
    manifest.files = {
        rel: sha256(content.encode("utf-8"))
        for rel, content in sorted(files.items())
        if "/" not in rel and rel != MANIFEST
    }
    return manifest


@dataclass
class QuickCheck:
    """The answer of :func:`quick_check`.

    Attributes:
        up_to_date: inputs, templates and version match the manifest and no file changed.
        edited: generated files whose content differs from the manifest (hand edits).
        missing: generated files that are gone.
        foreign: files in a provider's folder that ssegen did not write (they do not make the
            output stale; ``generate`` reports them as left alone).
    """

    up_to_date: bool
    edited: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)


def quick_check(specs: Path, out: Path, providers: list[str], settings: OutputSettings) -> QuickCheck | None:
    """Answer ``check`` from hashes alone, or None when a full rebuild must decide.

    None means: no manifest, another ssegen version, changed templates or output
    settings, a changed provider list, or a changed input (a full comparison then
    names each stale file).
    """
    from .discover import source_files

    manifest = Manifest.read(out)
    if manifest is None or manifest.ssegen != version() or manifest.templates != template_hashes():
        return None
    if manifest.settings != settings.to_manifest():
        return None
    if sorted(manifest.providers) != sorted(providers):
        return None
    for name in providers:
        recorded = manifest.providers[name]["inputs"]
        folder_files = {p.relative_to(specs).as_posix() for p in source_files(specs / name)}
        outside = {rel for rel in recorded if not rel.startswith(f"{name}/")}
        if input_hashes(specs, sorted(folder_files | outside)) != recorded:
            return None
    result = QuickCheck(True)
    for rel, digest in sorted(manifest.all_files().items()):
        disk = _hash_file(out / PurePosixPath(rel))
        if disk is None:
            result.missing.append(rel)
        elif disk != digest:
            result.edited.append(rel)
    recorded = manifest.all_files()
    for name in providers:
        folder = out / name
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                rel = path.relative_to(out).as_posix()
                if rel not in recorded and path.is_file() and "__pycache__" not in path.parts:
                    result.foreign.append(rel)
    manifest_disk = _hash_file(out / MANIFEST)
    if manifest_disk != sha256(manifest.dumps().encode("utf-8")):
        result.edited.append(MANIFEST)
    result.up_to_date = not result.edited and not result.missing
    return result

"""The output folder on disk: the manifest, what to write, and what never to touch.

ssegen records what it wrote in ``<out>/ssegen-manifest.json``: the ssegen
version, the output settings, and per provider the SHA-256 of every input, of
every file it wrote, and the fingerprint of the generator that wrote them
(:func:`generator_fingerprint`: ssegen's own code, templates and runtime modules,
so that an edit of ssegen itself is seen even when its version number is not
bumped), sealed together (:func:`seal`).  With it:

* ``ssegen check`` and ``ssegen generate`` answer from hashes alone when nothing
  changed (no parsing, no rendering: well under a second); any doubt (another
  generator, a seal that no longer matches its entry after a line-wise git merge
  of two builds) makes them build in memory and compare the files;
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
  removed provider's files) is deleted, unless it was edited by hand;
* a manifest that differs from the one the specs produce now only in the
  generator records (fingerprints and seals) is not stale output: ``check`` passes
  when every generated file is right, and ``generate`` rewrites only the manifest
  (:attr:`Plan.refresh`).

This module is deliberately light (hashlib, json): the fast ``check`` imports
nothing else.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypedDict

from .discover import read_regular
from .runtime import RUNTIME_FOLDER

if TYPE_CHECKING:
    from .config import OutputSettings

MANIFEST = "ssegen-manifest.json"


def is_root_file(rel: str) -> bool:
    """True for a file of the output folder itself rather than of one provider: its
    ``__init__.py`` and the runtime in :data:`RUNTIME_FOLDER` (the manifest itself aside)."""
    return rel != MANIFEST and ("/" not in rel or rel.startswith(f"{RUNTIME_FOLDER}/"))


def templates_dir() -> Path:
    """The ``ssegen/templates`` folder, as a package resource (a real folder: ssegen is never zipped)."""
    return Path(str(resources.files("ssegen") / "templates"))


def runtime_dir() -> Path:
    """The ``ssegen/runtime`` folder, as a package resource: the modules written into every output folder."""
    return Path(str(resources.files("ssegen") / "runtime"))


def runtime_source(name: str) -> str:
    """The text of runtime module ``name`` (one of :data:`ssegen.runtime.MODULES`), read anew each time (``watch``)."""
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


def package_dir() -> Path:
    """The ``ssegen`` package folder (a real folder: ssegen is never zipped)."""
    return Path(str(resources.files("ssegen")))


#: The package folders whose files are read while rendering (templates, and the runtime
#: modules written into every output folder) rather than imported once at start.
_RENDER_FOLDERS = ("templates", "runtime")


def _digest_files(root: Path, rels: list[str]) -> list[tuple[str, str]]:
    """``(relative path, SHA-256 of its bytes)`` for each of ``rels`` under ``root``, in path order."""
    return [(rel, sha256((root / rel).read_bytes())) for rel in sorted(rels)]


def generator_files(root: Path) -> tuple[list[str], list[str]]:
    """The files of the ssegen package at ``root`` that can change what it writes, as
    ``(code, rendering)`` lists of ``/``-separated relative paths: ``code`` is every ``*.py``
    module ssegen runs (imported once per process), ``rendering`` every template
    (``templates/*.jinja``) and runtime module (``runtime/*.py``), which are read again at each
    render.  ``__pycache__`` is never included."""
    code, rendering = [], []
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if "__pycache__" in path.relative_to(root).parts or not path.is_file():
            continue
        if rel.split("/", 1)[0] in _RENDER_FOLDERS and path.suffix in (".py", ".jinja"):
            rendering.append(rel)
        elif path.suffix == ".py":
            code.append(rel)
    return code, rendering


def fingerprint(root: Path) -> str:
    """Hex SHA-256 over the ssegen package at ``root``: every ``*.py`` under it (its code, and the
    runtime modules written into each output folder) and every template, as sorted relative paths, each
    followed by the SHA-256 of its bytes.  Two ssegen checkouts with the same fingerprint write the
    same output from the same specs and settings (given the same formatter).

    Raises:
        OSError: a file of the package cannot be read.
    """
    code, rendering = generator_files(root)
    return _combine(_digest_files(root, code) + _digest_files(root, rendering))


def _combine(digests: list[tuple[str, str]]) -> str:
    hasher = hashlib.sha256()
    for rel, digest in sorted(digests):
        hasher.update(f"{rel}\0{digest}\n".encode())
    return hasher.hexdigest()


@functools.cache
def _code_digests() -> tuple[tuple[str, str], ...]:
    """The digests of ssegen's own modules, taken once per process: the code that runs is the code
    imported at start, whatever is edited later (``ssegen watch``)."""
    root = package_dir()
    return tuple(_digest_files(root, generator_files(root)[0]))


@functools.cache
def generator_fingerprint() -> str:
    """:func:`fingerprint` of the running ssegen, computed once per process (a few milliseconds).

    ``ssegen watch`` clears this cache before each run (``generator_fingerprint.cache_clear()``), so
    that an edited template or runtime module, which the next render reads anew, is recorded as
    such; ssegen's Python modules are digested as they were at the first call (see
    :func:`_code_digests`), since an edit of them takes effect only in a new process.
    """
    root = package_dir()
    return _combine(list(_code_digests()) + _digest_files(root, generator_files(root)[1]))


def seal(settings: dict[str, str], generator: str, inputs: dict[str, str], files: dict[str, str]) -> str:
    """Hex SHA-256 binding one manifest entry together: the output ``settings``, the ``generator``
    fingerprint, the ``inputs`` and the ``files`` (path -> SHA-256) of one build.

    A line-wise git merge of two manifests can stitch one entry from two builds (one side's new
    fingerprint and file hashes next to the other side's inputs and files); the recorded seal then
    differs from the seal of what the entry says, and ``check`` compares the files instead of
    trusting the hashes.  When both sides rebuilt the entry, its seal line conflicts in the merge.
    """
    record = [settings, generator, inputs, files]
    return sha256(json.dumps(record, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def input_hashes(specs: Path, inputs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Input path (relative to ``specs``) -> SHA-256 ("" for a file that is gone)."""
    return {rel: _hash_file(specs / PurePosixPath(rel)) or "" for rel in sorted(inputs)}


class ProviderRecord(TypedDict):
    """One provider's entry in the manifest.

    Attributes:
        inputs: input path (relative to the specs folder) -> SHA-256 ("" for a file that is gone).
        files: output path (relative to the output folder) -> SHA-256.
        generator: the :func:`generator_fingerprint` of the ssegen that built them ("" in a
            manifest written before fingerprints: never trusted).
        seal: :func:`seal` of the settings, ``generator``, ``inputs`` and ``files``.
    """

    inputs: dict[str, str]
    files: dict[str, str]
    generator: str
    seal: str


#: Keys of a manifest that record which generator wrote it, not what it wrote: a manifest
#: that differs only in them is not stale output (``templates`` is the global template and
#: runtime hashes of manifests written before generator fingerprints).
_GENERATOR_KEYS = frozenset({"generator", "seal", "templates"})


@dataclass
class Manifest:
    """What ssegen wrote into an output folder, and from what.

    Attributes:
        ssegen: the version that wrote it.
        generator: the :func:`generator_fingerprint` that wrote ``files`` (the root files).
        seal: :func:`seal` of ``settings``, ``generator``, no inputs and ``files``.
        providers: provider -> its :class:`ProviderRecord` (inputs, files, generator, seal),
            set when that provider is built and kept as it was while it is not.
        files: the output folder's own files (``__init__.py``) -> SHA-256.
        settings: the :class:`~ssegen.config.OutputSettings` the files were generated with
            (package name, specs folder name, model, formatter, line length, tests folder).
    """

    ssegen: str = ""
    generator: str = ""
    seal: str = ""
    providers: dict[str, ProviderRecord] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, out: Path) -> Manifest | None:
        """The manifest of ``out``, or None when there is none (or it is unreadable).

        A manifest written before generator fingerprints reads with empty ``generator`` and
        ``seal`` fields (its ``templates`` hashes are dropped): it is never trusted by
        :func:`quick_check`, and the next ``generate`` rewrites it. A manifest that is a
        symbolic link leading outside ``out``, or that names a file outside it (``../x``, an
        absolute path: crafted, never written by ssegen), is not read: there is none.
        """
        if confined(out, MANIFEST) is None:
            return None  # a symbolic link leading outside the folder: never read
        try:
            data = json.loads(read_regular(out / MANIFEST).decode("utf-8"))
            providers: dict[str, ProviderRecord] = {
                str(name): {
                    "inputs": _str_map(entry["inputs"]),
                    "files": _path_map(entry["files"]),
                    "generator": _str(entry.get("generator", "")),
                    "seal": _str(entry.get("seal", "")),
                }
                for name, entry in data["providers"].items()
            }
            return cls(
                _str(data["ssegen"]),
                _str(data.get("generator", "")),
                _str(data.get("seal", "")),
                providers,
                _path_map(data["files"]),
                _str_map(data.get("settings", {})),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def dumps(self) -> str:
        """Deterministic JSON text (sorted keys, trailing newline)."""
        data = {
            "ssegen": self.ssegen,
            "generator": self.generator,
            "seal": self.seal,
            "providers": self.providers,
            "files": self.files,
            "settings": self.settings,
        }
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    def all_files(self) -> dict[str, str]:
        """Every file ssegen wrote (output-relative path -> SHA-256)."""
        result = dict(self.files)
        for entry in self.providers.values():
            result.update(entry["files"])
        return result

    def trusted(self, current: str) -> bool:
        """True when the root files and every provider entry were written by the generator whose
        fingerprint is ``current``, each entry as one build (its seal matches it)."""
        if self.generator != current or self.seal != seal(self.settings, self.generator, {}, self.files):
            return False
        return all(
            entry["generator"] == current
            and entry["seal"] == seal(self.settings, entry["generator"], entry["inputs"], entry["files"])
            for entry in self.providers.values()
        )


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _str_map(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return {_str(k): _str(v) for k, v in value.items()}


def _path_map(value: object) -> dict[str, str]:
    """A manifest's ``files``: each key a plain relative POSIX path (no ``..``, ``.``, empty or
    absolute part, no backslash), as ssegen writes them; anything else is a crafted manifest."""
    files = _str_map(value)
    for rel in files:
        parts = rel.split("/")
        if not rel or "\\" in rel or any(part in ("", ".", "..") for part in parts) or ":" in parts[0]:
            raise ValueError(f"{rel!r} is not a path inside the output folder")
    return files


def confined(out: Path, rel: str) -> Path | None:
    """``out / rel``, or None when it leads outside ``out`` (resolved: a symbolic link among its
    parts, or the file itself, pointing elsewhere); only such a path is ever read or written."""
    path = out / PurePosixPath(rel)
    return path if path.resolve().is_relative_to(out.resolve()) else None


def _symlink_out(out: Path, rel: str) -> str:
    """Words naming the part of ``out / rel`` that leads outside ``out``: ``gen/mistral is a
    symbolic link to /elsewhere``."""
    path = out
    for part in PurePosixPath(rel).parts:
        path = path / part
        if path.is_symlink():
            return f"{path} is a symbolic link to {os.readlink(path)}"
    return f"{out / rel} resolves to {(out / rel).resolve()}"


def _hash_inside(out: Path, rel: str) -> str | None:
    """:func:`_hash_file` of ``out / rel``, or :data:`OUTSIDE` (no hash) when it leads outside ``out``."""
    path = confined(out, rel)
    return OUTSIDE if path is None else _hash_file(path)


#: What :func:`_hash_inside` gives for a path leading outside the output folder (never a hash).
OUTSIDE = "outside the output folder"


def differs_only_in_generator(disk: str, wanted: str) -> bool:
    """True when the manifest text ``disk`` equals ``wanted`` but for which generator wrote it:
    the fingerprints and seals (top level and per provider) and the ``templates`` hashes of a
    manifest written before fingerprints.  Every file, input, setting and version recorded
    is the same, so the output is right and only the records are older.
    """
    try:
        old, new = json.loads(disk), json.loads(wanted)
    except ValueError:
        return False
    return _without_generator(old) == _without_generator(new)


def _without_generator(data: object) -> object:
    if not isinstance(data, dict):
        return data
    top = {k: v for k, v in data.items() if k not in _GENERATOR_KEYS}
    providers = top.get("providers")
    if isinstance(providers, dict):
        top["providers"] = {
            name: {k: v for k, v in entry.items() if k not in _GENERATOR_KEYS} if isinstance(entry, dict) else entry
            for name, entry in providers.items()
        }
    return top


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
        refresh: the manifest, when it differs from the one the specs produce now only in
            which generator it records (:func:`differs_only_in_generator`: ssegen's code
            changed, its output did not).  Also in ``write`` (``generate`` rewrites it), but
            not :attr:`stale`: the generated files are what ``check`` answers for.
    """

    write: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    reformatted: list[str] = field(default_factory=list)
    unowned: list[str] = field(default_factory=list)
    refresh: list[str] = field(default_factory=list)

    @property
    def stale(self) -> list[str]:
        """Everything that differs from what the specs produce now (a manifest in :attr:`refresh`
        does not: it records the same output)."""
        return sorted((set(self.write) - set(self.refresh)) | set(self.blocked) | set(self.remove))


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
        disk = _hash_inside(out, rel)  # a path leading outside is never read: foreign or edited
        if disk is None:
            result.write.append(rel)
        elif disk == sha256(files[rel].encode("utf-8")):
            result.unchanged.append(rel)
        elif rel == MANIFEST:
            result.write.append(rel)  # ssegen's own record, rewritten whatever is in it
            if _only_generator_differs(out / MANIFEST, files[rel]):
                result.refresh.append(rel)
        elif old is not None and recorded.get(rel) == disk:
            result.write.append(rel)  # stale, and as ssegen left it
        elif rel in recorded and disk != OUTSIDE and _reformatted(out / PurePosixPath(rel), files[rel]):
            result.reformatted.append(rel)
            result.write.append(rel)
        elif rel in recorded:
            result.edited.append(rel)
            result.blocked.append(rel)
        else:
            result.foreign.append(rel)
            result.blocked.append(rel)
    for rel in _unlisted(out, [*sorted(providers), RUNTIME_FOLDER], files):
        if rel not in recorded:
            result.foreign.append(rel)
        elif _hash_inside(out, rel) == recorded[rel]:
            result.remove.append(rel)
        else:
            result.edited.append(rel)
    if old is None:
        result.unowned = _unowned(out, files)
    return result


def _unlisted(out: Path, folders: list[str], listed: dict[str, str] | set[str]) -> list[str]:
    """The files under each of ``folders`` (of ``out``) that are not in ``listed``, in order; a
    ``__pycache__`` is never looked into."""
    found = []
    for name in folders:
        folder = out / name
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                rel = path.relative_to(out).as_posix()
                if rel not in listed and path.is_file() and "__pycache__" not in path.parts:
                    found.append(rel)
    return found


def _only_generator_differs(path: Path, wanted: str) -> bool:
    """True when the manifest at ``path`` is ``wanted`` but for the generator it records."""
    try:
        return differs_only_in_generator(read_regular(path).decode("utf-8"), wanted)
    except (OSError, UnicodeDecodeError):
        return False


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
        if rel not in files or not path.is_file() or _hash_inside(out, rel) != sha256(files[rel].encode("utf-8")):
            found.append(rel)
    return found


def apply(out: Path, files: dict[str, str], todo: Plan, *, force: bool = False, adopt: bool = False) -> list[str]:
    """Carry out ``todo``: write, and delete leftovers; return the paths written.

    Blocked paths are written only with ``force`` (hand-edited and foreign files) or
    ``adopt`` (foreign files only: a folder without a manifest taken over).  Every path
    is confined to ``out``, and every path is checked (:func:`check_paths`) before the
    first file is written, so a path the file system refuses writes nothing.

    Raises:
        OutputError: a path is too long for the file system, or leads outside ``out`` through
            a symbolic link (nothing written).
    """
    root = out.resolve()
    targets = todo.write + [rel for rel in todo.blocked if force or (adopt and rel in todo.foreign)]
    check_paths(out, targets + todo.remove)
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
    """Raise :class:`OutputError` naming the first of ``rels`` the file system would refuse for its
    length, or that leads outside ``out`` (a symbolic link: a provider folder, a file to adopt,
    the manifest), so that nothing is written when one path cannot be."""
    name_max, path_max = _limits(out)
    root = out.resolve()
    for rel in sorted(rels):
        if confined(out, rel) is None:
            raise OutputError(
                f"refusing to write {out / rel}: {_symlink_out(out, rel)}, outside {out}; nothing was written "
                "(ssegen writes only inside its output folder: replace the link with a folder or file)"
            )
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

    Each built provider's entry records the running generator's fingerprint and is sealed;
    a kept entry (a provider not built this run, or one whose specs failed) keeps the
    fingerprint and seal of the build that wrote its files.

    Args:
        specs: the specs folder (inputs are hashed from it).
        files: every file produced this run (output-relative path -> content).
        reports: per-provider results with ``name``, ``inputs``, ``files`` and ``failed``.
        old: the previous manifest, whose other providers' entries are kept.
        settings: recorded, so that a change of package or specs name makes ``check`` rebuild.
    """
    current = generator_fingerprint()
    recorded_settings = settings.to_manifest()
    providers = dict(old.providers) if old else {}
    for report in reports:
        if report.failed:
            continue
        inputs = input_hashes(specs, report.inputs)
        written = {rel: sha256(report.files[rel].encode("utf-8")) for rel in sorted(report.files)}
        providers[report.name] = {
            "inputs": inputs,
            "files": written,
            "generator": current,
            "seal": seal(recorded_settings, current, inputs, written),
        }
    root = {rel: sha256(content.encode("utf-8")) for rel, content in sorted(files.items()) if is_root_file(rel)}
    return Manifest(
        ssegen=version(),
        generator=current,
        seal=seal(recorded_settings, current, {}, root),
        providers=dict(sorted(providers.items())),
        files=root,
        settings=recorded_settings,
    )


@dataclass
class QuickCheck:
    """The answer of :func:`quick_check`.

    Attributes:
        up_to_date: inputs, generator, settings and version match the manifest and no file changed.
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

    None means: no manifest, another ssegen version, changed output settings, a changed
    provider list, a changed input, or an entry (the root files' or a provider's) not
    written by the running generator as one build: its fingerprint is not
    :func:`generator_fingerprint` (ssegen's code, templates or runtime modules changed
    since, even under the same version number) or its :func:`seal` does not match it
    (stitched by a git merge).  A full comparison then names each stale file.
    """
    from .discover import source_files

    manifest = Manifest.read(out)
    if manifest is None or manifest.ssegen != version() or manifest.settings != settings.to_manifest():
        return None
    if sorted(manifest.providers) != sorted(providers) or not manifest.trusted(generator_fingerprint()):
        return None
    for name in providers:
        recorded = manifest.providers[name]["inputs"]
        folder_files = {p.relative_to(specs).as_posix() for p in source_files(specs / name)}
        outside = {rel for rel in recorded if not rel.startswith(f"{name}/")}
        if input_hashes(specs, sorted(folder_files | outside)) != recorded:
            return None
    result = QuickCheck(True)
    written = manifest.all_files()
    for rel, digest in sorted(written.items()):
        disk = _hash_inside(out, rel)
        if disk is None:
            result.missing.append(rel)
        elif disk != digest:
            result.edited.append(rel)
    result.foreign = _unlisted(out, [*providers, RUNTIME_FOLDER], written)
    manifest_disk = _hash_inside(out, MANIFEST)
    if manifest_disk != sha256(manifest.dumps().encode("utf-8")):
        result.edited.append(MANIFEST)
    result.up_to_date = not result.edited and not result.missing
    return result

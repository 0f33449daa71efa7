"""Where the two sides of ``ssegen diff`` come from: a folder, a git revision, or the specs an
output folder was generated from.

Each is a :class:`Specs`: a specs folder to load providers from (a temporary copy for a revision
or a rebuilt one) and how the report names it (:class:`ssegen.diff.report.Side`). Problems are
:class:`SidesError` (a usage error: exit 2), naming what is wrong.

* :func:`folder_specs`: a folder is a specs folder (provider folders in it) or a provider folder
  (a source file directly in it); :func:`specs_folder`, the configured one;
* :func:`revision_specs`: the configured specs folder at a git revision (``git archive``);
* :func:`generated_specs`: the specs an output folder was generated from, rebuilt from the input
  hashes its manifest records: each file from the work tree when it still has that content,
  else from the first version of it in git history that has (``ssegen check --diff``).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..discover import IGNORED_NAMES, provider_names
from ..sources import detect
from .report import Side

#: How many versions of one file :func:`generated_specs` reads from git history at most.
MAX_VERSIONS = 200


class SidesError(Exception):
    """A side that cannot be had: no such folder, not a git repository, no such revision."""


@dataclass(frozen=True)
class Specs:
    """A specs folder to compare, and how the report names it.

    Attributes:
        folder: the specs folder the providers are loaded from.
        side: its name in the report.
        provider: for a provider folder given alone, its name (the only provider compared);
            "" for a whole specs folder.
    """

    folder: Path
    side: Side
    provider: str = ""

    def names(self) -> list[str]:
        """The providers this side holds."""
        return [self.provider] if self.provider else provider_names(self.folder)


def shown(path: Path) -> str:
    """``path`` as seen from the current directory (relative below it, else absolute), POSIX."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return absolute.as_posix()


def specs_folder(path: Path) -> Specs:
    """The specs folder ``path`` (of provider folders) as a side.

    Raises:
        SidesError: ``path`` is not a folder.
    """
    if not path.is_dir():
        raise SidesError(f"no specs folder {path}")
    return Specs(path, Side(f"{shown(path)}/", f"{shown(path)}/".removeprefix("./")))


def folder_specs(path: Path) -> Specs:
    """``path`` as a side: a provider folder when a file directly in it is a source (of a format
    :func:`ssegen.sources.detect` recognizes), else a specs folder.

    Raises:
        SidesError: ``path`` is not a folder.
    """
    if not path.is_dir():
        raise SidesError(f"no folder {path}")
    if any(_is_source(p) for p in sorted(path.iterdir())):
        parent = shown(path.parent)
        prefix = "" if parent == "." else parent.rstrip("/") + "/"
        return Specs(path.parent, Side(f"{shown(path)}/", prefix), path.name)
    return specs_folder(path)


def _is_source(path: Path) -> bool:
    if not path.is_file() or path.name in IGNORED_NAMES or path.name.startswith("."):
        return False
    try:
        return detect(path.read_text(encoding="utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as exc:  # no git on this machine
        raise SidesError(f"cannot run git: {exc}") from None


def _repository(specs: Path) -> tuple[Path, str]:
    """The top of the git work tree holding ``specs``, and ``specs``' path in it (``specs/``)."""
    if not specs.is_dir():
        raise SidesError(f"no specs folder {specs}")
    top = _git(["rev-parse", "--show-toplevel"], specs)
    prefix = _git(["rev-parse", "--show-prefix"], specs)
    if top.returncode != 0 or prefix.returncode != 0:
        raise SidesError(f"{specs} is not in a git work tree: --rev needs one")
    return Path(top.stdout.decode().strip()), prefix.stdout.decode().strip()


def revision_specs(specs: Path, rev: str, into: Path) -> Specs:
    """The specs folder ``specs`` (of a git work tree) as it is at revision ``rev``, written under
    ``into`` (a temporary folder the caller removes).

    Raises:
        SidesError: not a git work tree, an unknown revision, or no such folder at it.
    """
    top, prefix = _repository(specs)
    commit = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], top)
    if commit.returncode != 0:
        raise SidesError(f"unknown git revision {rev!r}")
    sha = commit.stdout.decode().strip()
    archive = _git(["archive", "--format=tar", sha, "--", prefix or "."], top)
    if archive.returncode != 0:
        raise SidesError(f"{prefix or 'the repository'} does not exist at {rev}: {archive.stderr.decode().strip()}")
    _extract(archive.stdout, into)
    folder = into / prefix if prefix else into
    return Specs(folder, Side(f"{rev}:{prefix or './'}", f"{rev}:{prefix}", on_disk=False))


def _extract(data: bytes, into: Path) -> None:
    """Write the files and folders of tar archive ``data`` under ``into``: regular files and
    folders at relative paths only (no links, devices or ``..``), as ``tarfile``'s ``data`` filter
    keeps them (the filter itself is missing before Python 3.11.4)."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [
            m
            for m in tar.getmembers()
            if (m.isfile() or m.isdir()) and not PurePosixPath(m.name).is_absolute() and ".." not in m.name.split("/")
        ]
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, members=members, filter="data")
        else:  # Python 3.11.0 to 3.11.3
            tar.extractall(into, members=members)


def generated_specs(specs: Path, inputs: dict[str, dict[str, str]], into: Path) -> tuple[Specs, dict[str, list[str]]]:
    """The specs an output folder was generated from, rebuilt under ``into`` from ``inputs``
    (provider -> input file relative to ``specs`` -> SHA-256, as its manifest records them).

    Each file is copied from the work tree when it has that content, else from the first version
    of it in the git history of ``specs`` (the last :data:`MAX_VERSIONS`) that has. A file the
    manifest records as gone (hash "") is left out.

    Returns:
        The side, and per provider the files found nowhere (that provider cannot be compared).
    """
    missing: dict[str, list[str]] = {}
    history: list[tuple[Path, str] | None] = []  # the repository, once looked up
    for provider, files in inputs.items():
        for rel, digest in files.items():
            if not digest:
                continue
            data = _current(specs / PurePosixPath(rel), digest)
            if data is None:
                if not history:
                    history.append(_repository_or_none(specs))
                data = _historical(history[0], rel, digest) if history[0] is not None else None
            if data is None:
                missing.setdefault(provider, []).append(rel)
                continue
            target = into / PurePosixPath(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    side = Side(f"{shown(specs)}/ as the output was generated from", f"(as generated) {shown(specs)}/", False)
    return Specs(into, side), missing


def _current(path: Path, digest: str) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == digest else None


def _repository_or_none(specs: Path) -> tuple[Path, str] | None:
    try:
        return _repository(specs)
    except SidesError:
        return None


def _historical(repository: tuple[Path, str], rel: str, digest: str) -> bytes | None:
    """The content of ``rel`` (relative to the specs folder) with SHA-256 ``digest`` in the git
    history of every branch, newest first; None when no version has it."""
    top, prefix = repository
    log = _git(["log", "--all", "--format=", "--raw", "--no-abbrev", "--", prefix + rel], top)
    blobs: list[str] = []
    for line in log.stdout.decode(errors="replace").splitlines():
        fields = line.split()
        if line.startswith(":") and len(fields) >= 4:
            blobs += [b for b in fields[2:4] if b.strip("0") and b not in blobs]
    for blob in blobs[:MAX_VERSIONS]:
        data = _git(["cat-file", "blob", blob], top)
        if data.returncode == 0 and hashlib.sha256(data.stdout).hexdigest() == digest:
            return data.stdout
    return None

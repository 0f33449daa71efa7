"""Which providers and source files a specs folder holds (cheap: no parsing).

Kept apart from the loaders so that ``ssegen check`` can hash the inputs and
answer from the manifest without importing any parser.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: File names in a provider folder that are never sources.
IGNORED_NAMES = frozenset({".DS_Store", "README.md"})


def provider_names(specs: Path) -> list[str]:
    """Provider folder names under ``specs``, sorted (hidden and ``_`` folders skipped)."""
    if not specs.is_dir():
        return []
    return sorted(p.name for p in specs.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def source_files(folder: Path) -> list[Path]:
    """The source files of a provider folder, sorted by relative path.

    Files under subfolders count too (a spec split across files keeps its parts
    in ``schemas/``); a part that is not itself a document is used only
    through ``$ref``.  Every entry that is not a folder is listed, FIFOs and
    symbolic links too, and so are links to folders outside ``folder``: the
    loader refuses each of them with a diagnostic rather than skip it unsaid.
    """
    if not folder.is_dir():
        return []
    files = [
        p
        for p in folder.rglob("*")
        if (not p.is_dir() or (p.is_symlink() and is_outside(folder, p)))
        and p.name not in IGNORED_NAMES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


class NotRegularFileError(OSError):
    """A path names a FIFO, socket or device (or a folder), which ssegen never reads."""


def is_outside(root: Path, path: Path) -> bool:
    """Whether ``path``, symbolic links resolved, is outside ``root``'s real path (the
    specs folder: a source linked to ``/etc/passwd`` is outside)."""
    return not path.resolve().is_relative_to(root.resolve())


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of ``path``, which must be a regular file (symbolic links followed).

    Opened without blocking, so that a FIFO never blocks the run, and checked on the open
    file (no race between the check and the read).  With ``limit``, at most that many bytes
    are read: a longer file (or one growing past it while read) is refused.

    Raises:
        NotRegularFileError: ``path`` is a FIFO, socket, device or folder.
        FileTooLargeError: ``path`` holds more than ``limit`` bytes.
        OSError: it cannot be opened or read.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            raise NotRegularFileError(f"{path.name} is {kind} (a FIFO, socket or device is never read)")
        data = file.read() if limit is None else file.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise FileTooLargeError(f"{path.name} is larger than {limit:,} bytes")
        return data


class FileTooLargeError(OSError):
    """A file is larger than the reader's limit (see :func:`read_regular`)."""

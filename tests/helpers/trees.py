"""Folder trees as data, for byte-for-byte comparisons of generated output."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def file_tree(root: Path, skip_top: Iterable[str] = ()) -> dict[str, bytes]:
    """Every file below ``root`` (POSIX path relative to it -> bytes), in path order.

    ``__pycache__`` folders are left out (importing a package writes them), and so are the
    top-level entries named in ``skip_top`` (a project's ``.venv``).
    """
    skipped = set(skip_top)
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.relative_to(root).parts[0] not in skipped
    }

"""Which providers and source files a specs folder holds (cheap: no parsing).

Kept apart from the loaders so that ``ssegen check`` can hash the inputs and
answer from the manifest without importing any parser.
"""

from __future__ import annotations

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
    through ``$ref``.
    """
    if not folder.is_dir():
        return []
    files = [
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.name not in IGNORED_NAMES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())

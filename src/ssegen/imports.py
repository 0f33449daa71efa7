"""Which imports a generated module keeps: decided from the rendered code, in Python.

A template imports every name any package may need (``VendorEvent`` for vendor events,
``Sequence`` for batch decoding, ``ClassVar`` for tagged classes, ...); which of them one
provider's module uses follows from the code model in many places.  Rather than mirror each
of those decisions in Jinja conditions, :func:`prune_imports` parses the rendered module and
drops the imported names it never references, so no generated module has an unused import
(``ruff check --select F`` finds nothing) whatever the spec.
"""

from __future__ import annotations

import ast


def prune_imports(source: str) -> str:
    """``source`` without the module-level imports it does not use.

    A name counts as used when the module reads it anywhere (code, annotations, f-strings) or
    lists it in a module-level ``__all__``; ``import X as X`` (an explicit re-export) is kept.
    ``from __future__`` imports, star imports and imports nested in functions or ``if`` blocks
    are kept as they are.  An import statement
    that keeps some of its names is written again on one line (the formatter runs afterwards);
    one that keeps none is removed, with a blank line after it when one is before it too, so
    import groups stay separated by one blank line.

    Args:
        source: a whole Python module, as rendered.

    Returns:
        The module text; ``source`` itself when every import is used.

    Raises:
        SyntaxError: ``source`` is not valid Python (a template bug).
    """
    tree = ast.parse(source)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | _exported(tree)
    edits = _edits(tree, used)
    return _applied(source, edits) if edits else source


def _edits(tree: ast.Module, used: set[str]) -> list[tuple[int, int, str]]:
    """``(first line index, end line index, replacement)`` of each module-level import
    statement binding a name not in ``used`` ("" when it keeps no name), in module order."""
    edits: list[tuple[int, int, str]] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom) or _kept_whole(stmt):
            continue
        kept = [alias for alias in stmt.names if _bound(stmt, alias) in used or _reexported(alias)]
        if len(kept) < len(stmt.names):
            assert stmt.end_lineno is not None
            edits.append((stmt.lineno - 1, stmt.end_lineno, _statement(stmt, kept)))
    return edits


def _applied(source: str, edits: list[tuple[int, int, str]]) -> str:
    """``source`` with ``edits`` made (from the last, so earlier line numbers hold), dropping
    one of the blank lines around a statement removed from between two."""
    lines = source.splitlines(keepends=True)
    for start, end, replacement in reversed(edits):
        if not replacement and _blank(lines, end) and (start == 0 or _blank(lines, start - 1)):
            end += 1  # the statement stood alone between blank lines: keep one of them
        lines[start:end] = [replacement] if replacement else []
    return "".join(lines)


def _kept_whole(stmt: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(stmt, ast.ImportFrom):
        return stmt.module == "__future__" or any(alias.name == "*" for alias in stmt.names)
    return False


def _reexported(alias: ast.alias) -> bool:
    """``from m import X as X``: the explicit re-export form (PEP 484, mypy's
    ``no_implicit_reexport``), kept whether or not the module reads ``X`` (``requests.py``
    re-exports the classes it shares with ``models``)."""
    return alias.asname is not None and alias.asname == alias.name


def _bound(stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    """The name an imported alias binds (``import a.b`` binds ``a``)."""
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if isinstance(stmt, ast.Import) else alias.name


def _statement(stmt: ast.Import | ast.ImportFrom, kept: list[ast.alias]) -> str:
    """The import statement of ``kept`` alone, one line ("" for none)."""
    if not kept:
        return ""
    names = ", ".join(f"{a.name} as {a.asname}" if a.asname else a.name for a in kept)
    if isinstance(stmt, ast.Import):
        return f"import {names}\n"
    return f"from {'.' * stmt.level}{stmt.module or ''} import {names}\n"


def _exported(tree: ast.Module) -> set[str]:
    """The strings of a module-level ``__all__ = [...]`` (or tuple)."""
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
                stmt.value, ast.List | ast.Tuple
            ):
                names |= {e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return names


def _blank(lines: list[str], index: int) -> bool:
    return index < len(lines) and not lines[index].strip()

"""The request classes the ``requests`` module imports from ``models`` instead of defining again.

A request body often reaches the schemas of the streamed messages too: Gemini's request
``contents`` are the same ``Content`` and ``Part`` its responses stream, Ollama's
``tool_calls`` the same ``ToolCall``. The two modules are built by two
:class:`~.models.ModelsBuilder` (so their names never clash), and each would emit its own copy.
A request class (or enum alias) is imported from ``models`` when it is truly the same one:

- ``models`` has a class (alias) of that name whose spec is equal: same schema-derived fields,
  annotations, wire names, defaults, docstrings and options (so the two render identically);
- every class and alias of the ``requests`` module its fields name is shared too (a class naming a
  request class that differs from the ``models`` one of the same name stays in ``requests``:
  imported, it would name the ``models`` one).

``requests.py`` re-exports them (``from .models import Content as Content``: the explicit
re-export form, kept whether or not the module itself names them), so ``requests.Content`` is the
class it always was, and ``client.py`` imports them from ``models``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from .module_imports import TOKEN

if TYPE_CHECKING:
    from .clients import RequestModels
    from .models import AliasSpec, ClassSpec

__all__ = ["share_with_models"]


def share_with_models(
    requests: RequestModels, classes: Iterable[ClassSpec], aliases: Iterable[AliasSpec]
) -> RequestModels:
    """``requests`` without the classes and aliases equal to those of ``models`` (``classes``,
    ``aliases``) that name only shared ones, in :attr:`~.clients.RequestModels.shared` instead
    (sorted); the module's other classes and aliases keep their order."""
    models: dict[str, object] = {c.name: c for c in classes} | {a.name: a for a in aliases}
    own: dict[str, object] = {c.name: c for c in requests.classes} | {a.name: a for a in requests.aliases}
    shared = {name for name, spec in own.items() if models.get(name) == spec}
    named: dict[str, set[str]] = {str(c.name): _named(c, own) for c in requests.classes}
    changed = True
    while changed:  # drop a class naming a request class or alias that stays: a fixed point
        kept = {name for name in shared if named.get(name, set()) <= shared}
        changed = kept != shared
        shared = kept
    return replace(
        requests,
        classes=tuple(c for c in requests.classes if c.name not in shared),
        aliases=tuple(a for a in requests.aliases if a.name not in shared),
        shared=tuple(sorted(shared)),
    )


def _named(cls: ClassSpec, own: dict[str, object]) -> set[str]:
    """The ``requests`` classes and aliases the field annotations of ``cls`` name."""
    return {t for f in cls.fields for t in TOKEN.findall(f.annotation) if t in own and t != cls.name}

"""What every accumulation state shares: texts kept as parts, and values as plain data.

A text (a choice's ``content``, a block's ``text``, a tool call's ``arguments``...) is assembled
as the list of its deltas (:class:`Parts`), joined once when the result is built (:func:`join_parts`)
and compacted while a long stream is read (:data:`COMPACT_PARTS`); a typed value is kept as the
plain JSON data it was sent as (:func:`as_sent`, :func:`usage_of`: what compiled plans call).

This module is ``src/ssegen/runtime/accumulate_parts.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from .json_values import is_object

#: Parts a text may gain before :meth:`Accumulator.compact` joins them into one.
COMPACT_PARTS = 4096


class Parts(list[str]):
    """A text's parts, in stream order: the blocks joined so far, then the parts since."""

    __slots__ = ("blocks",)

    def __init__(self) -> None:
        super().__init__()
        self.blocks = 0

    def compact(self, limit: int = COMPACT_PARTS) -> None:
        """Join the parts after the last block into one block once they number more
        than ``limit`` (earlier blocks are not copied again)."""
        if len(self) - self.blocks > limit:
            self[self.blocks :] = [join_parts(self[self.blocks :])]
            self.blocks += 1


class LastText(Parts):
    """A text's parts in cumulative mode: appending replaces (only the last part counts)."""

    def append(self, text: str) -> None:
        self[:] = [text]


def plain(value: Any) -> Any:
    """``value`` as plain JSON data: dicts as they are, typed objects by wire names
    (a pydantic model through ``model_dump``; this module does not import pydantic)."""
    if isinstance(value, str) or is_object(value):
        return value
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_defaults=True)
    try:
        return msgspec.to_builtins(value)
    except TypeError:
        return repr(value)


def as_sent(value: Any) -> Any:
    """``value`` as plain JSON data (typed objects by wire names): what a plan's ``collect``
    keeps."""
    return plain(value)


def usage_of(members: Iterable[tuple[str, Any]]) -> dict[str, Any] | None:
    """The usage object of a plan's ``usage`` step with ``members`` (docs/accumulation.md):
    ``{name: value}`` of each member sent (not None), in the order given, values as
    plain JSON data (Ollama's final line: ``{"prompt_eval_count": 26, "eval_count": 282,
    "total_duration": 4883583458, ...}``, durations in nanoseconds as sent); None when none is."""
    usage = {name: plain(value) for name, value in members if value is not None}
    return usage or None


def join_parts(parts: list[str]) -> str:
    """The parts joined; a None a leniently decoded event appended (a required text member
    that was missing) is left out."""
    try:
        return "".join(parts)
    except TypeError:  # some part is not a string (the None of a lenient event)
        sent: list[object] = list(parts)
        return "".join(p for p in sent if isinstance(p, str))


def str_or_none(value: Any) -> str | None:
    """``value`` when it is a string, else None."""
    return value if isinstance(value, str) else None


def declares(value: object, wire: str) -> bool:
    """True when the class of the typed object ``value`` declares a member of wire name
    ``wire`` (msgspec ``Struct`` encode names; a pydantic model's fields by alias or name);
    False for a plain value or an undeclared member (OpenRouter's ``delta.reasoning``)."""
    cls = type(value)
    names = getattr(cls, "__struct_encode_fields__", None)
    if names is not None:
        return wire in names
    fields = getattr(cls, "model_fields", None)
    if is_object(fields):
        return any((getattr(f, "alias", None) or n) == wire for n, f in fields.items())
    return False

"""The SSE event types a channel's ``classify`` finds by one table lookup rather than by
testing ``event == ...`` for each in turn.

A branch of ``classify`` (:class:`~.channels.EventBranch`) that is one JSON decoder (no
literal, no tag table, an event type of its own: most named event types, each one message)
is looked up instead: ``classify`` reads the decoder of the frame's event type from a
``dict`` (``kept`` wrapping one whose usage is kept as sent, as the named and tag tables do),
and the message's name, which names a decode error in the reason, from a second one read only
then. The other branches are still tested in turn, after the lookup.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import ANY_EVENT
from ..naming import PythonIdentifier
from .channels import EventBranch, MessageSpec

#: The fewest branches of one decoder a table replaces: with one, its ``elif`` is as short.
MIN_ENTRIES = 2


@dataclass(frozen=True)
class EventTable:
    """The event types ``classify`` looks up, and the branches it still tests.

    Attributes:
        decoders: generated name of the table of decoders by event type.
        names: generated name of the table of message names by event type.
        entries: ``(event type, message)`` of each branch looked up, in branch order.
        tested: the branches tested in turn after the lookup (literals, tag tables, several
            decoders, plain ``message`` events), in branch order.
    """

    decoders: PythonIdentifier
    names: PythonIdentifier
    entries: tuple[tuple[str, MessageSpec], ...]
    tested: tuple[EventBranch, ...]


def event_table(ident: PythonIdentifier, branches: tuple[EventBranch, ...]) -> EventTable | None:
    """The :class:`EventTable` of a channel whose identifier is ``ident`` and whose named
    branches are ``branches``; None when fewer than :data:`MIN_ENTRIES` are one decoder."""
    looked = [b for b in branches if _one_decoder(b)]
    if len(looked) < MIN_ENTRIES:
        return None
    return EventTable(
        decoders=PythonIdentifier.verbatim(f"_BY_EVENT_{ident.upper()}"),
        names=PythonIdentifier.verbatim(f"_MESSAGE_BY_EVENT_{ident.upper()}"),
        entries=tuple((b.event, b.decoders[0]) for b in looked),
        tested=tuple(b for b in branches if not _one_decoder(b)),
    )


def _one_decoder(branch: EventBranch) -> bool:
    """True for a branch of a named event type that is exactly one JSON decoder (plain
    ``message`` events keep their own test: the stream's most frequent, tested first)."""
    return (
        branch.event not in ("message", ANY_EVENT)
        and not branch.literals
        and not branch.tag_field
        and len(branch.decoders) == 1
    )

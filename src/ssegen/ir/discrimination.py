"""A channel's discrimination plan as data: how the messages one SSE event type carries are told
apart (:class:`Dispatch`, one per event type, and the fallback over every message).  Computed by
:mod:`ssegen.normalize.discrimination`, compiled by :mod:`ssegen.codemodel.channels`."""

from __future__ import annotations

from dataclasses import dataclass

#: The event type of a channel's fallback :class:`Dispatch` (every event type without one).
ANY_EVENT = "*"


@dataclass(frozen=True)
class Tagged:
    """The messages one value of a channel's tag member selects.

    Attributes:
        value: the tag member's value (``"ping"``).
        messages: the messages fixing the tag to it, most constrained first (more
            than one when they are told apart by shape within the value: Kraken's
            ``subscriptionStatus`` success and error).
        subtag: a second member that tells those messages apart by its value (Slack's
            ``emoji_changed`` events by ``subtype: add`` / ``remove``), "" for none.
    """

    value: str
    messages: tuple[str, ...]
    subtag: str = ""


@dataclass(frozen=True)
class Dispatch:
    """How a channel tells apart the messages one SSE event type carries, in the
    order they are tried (the channel's discrimination plan, one per event type).

    Attributes:
        event: the SSE event type (``message`` for frames without ``event:``); ``*``
            for the fallback over every message (see :attr:`Channel.fallback`).
        literals: messages whose payload is one literal text (``[DONE]``, a
            keep-alive), compared with the data exactly, first.
        tag: the member whose value selects a message (``type``), "" for none.
        tagged: the messages each value of the tag selects; a payload whose tag has
            another value is none of them (it is tried against ``shaped`` messages that
            declare the tag member without fixing it, else it is unknown).
        shaped: JSON messages told apart by shape (required members, ``maxItems: 0``),
            most constrained first.
    """

    event: str
    literals: tuple[str, ...] = ()
    tag: str = ""
    tagged: tuple[Tagged, ...] = ()
    shaped: tuple[str, ...] = ()

    @property
    def tags(self) -> tuple[str, ...]:
        """The members this dispatch reads values of: its tag and every sub-tag."""
        return tuple(dict.fromkeys(t for t in (self.tag, *(g.subtag for g in self.tagged)) if t))

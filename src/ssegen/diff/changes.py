"""What a spec change does to a consumer of the generated package, as data: the three impacts,
the catalogue of change kinds (:data:`KINDS`), and one :class:`Change` per finding.

The impacts are graded by what a consumer of the package generated from the old spec meets
when the provider streams as the new spec says, and what code written against it meets once
the package is regenerated (issue 37):

* ``compatible``: nothing it relies on changes (a new event type arrives as ``UnknownEvent``, a
  new member or enum value is taken by lenient decoding);
* ``breaking``: a class, member or event it uses is gone or renamed, a member it reads has
  another type, or a payload decodes as another message;
* ``critical``: the accumulator gives wrong or incomplete results (the stream never ends
  ``complete``, a member a plan step reads is gone, usage arrives in another message).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..ir import Provenance


class Impact(Enum):
    """How much a change matters to a consumer, least first (see the module docstring)."""

    COMPATIBLE = "compatible"
    BREAKING = "breaking"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """0 for compatible, 1 for breaking, 2 for critical."""
        return list(Impact).index(self)


@dataclass(frozen=True)
class Kind:
    """One kind of change, as the catalogue states it.

    Attributes:
        name: stable kebab-case identifier (``member-removed``), the ``kind`` of the JSON report.
        impact: the :class:`Impact` every change of this kind has.
        summary: what it does to a consumer, one sentence (the SARIF rule's description).
    """

    name: str
    impact: Impact
    summary: str


_C, _B, _X = Impact.COMPATIBLE, Impact.BREAKING, Impact.CRITICAL

PROVIDER_ADDED = Kind("provider-added", _C, "A new provider folder: a new package, nothing of an older one changes.")
CHANNEL_ADDED = Kind("channel-added", _C, "A new channel (stream endpoint): a new entry of the package's CHANNELS.")
MESSAGE_ADDED = Kind(
    "message-added",
    _C,
    "A new message (event type): an older package keeps its events as UnknownEvent (or says which message "
    "it decodes them as).",
)
MEMBER_ADDED = Kind("member-added", _C, "A new member: an older package ignores it; the regenerated one types it.")
ENUM_VALUE_ADDED = Kind(
    "enum-value-added",
    _C,
    "A new enum value: lenient decoding takes it (an enum is generated as `Literal[...] | str`), typed as the "
    "plain type, not one of the Literal values.",
)
ENUM_VALUES_CHANGED = Kind(
    "enum-values-changed",
    _C,
    "Enum values no longer listed, or a plain member given values: decoding is unchanged (every value of the "
    "plain type is taken); only the Literal alias changes.",
)
VARIANT_ADDED = Kind(
    "variant-added",
    _C,
    "A new alternative of a union: an older package does not decode it as a typed class; lenient decoding keeps "
    "it as sent in the event's off_spec.",
)
TYPE_NARROWED = Kind(
    "type-narrowed",
    _C,
    "A member's type narrowed (any JSON to a scalar type, number to integer, a union to one of its types, null "
    "no longer admitted): an older package still takes every value the new spec allows.",
)
TYPE_RENAMED = Kind(
    "type-renamed",
    _C,
    "A nested class renamed (its schema's component name or title changed): decoding and member access are "
    "unchanged; code importing the class by its old name must use the new one.",
)
ACCUMULATION_ADDED = Kind(
    "accumulation-added",
    _C,
    "The accumulator assembles more than before (a plan for a channel that had none, or a new step); an older "
    "package leaves it out.",
)
CONSTRAINT_CHANGED = Kind(
    "constraint-changed",
    _C,
    "A validation keyword (maximum, pattern, minItems, additionalProperties, ...) changed: the generated models do "
    "not check it; schemas.json and `ssegen conform` do.",
)
DOCS_CHANGED = Kind(
    "docs-changed", _C, "Descriptions, titles, summaries, formats or examples changed: documentation only."
)

PROVIDER_REMOVED = Kind("provider-removed", _B, "A provider folder is gone: its package is no longer generated.")
CHANNEL_REMOVED = Kind("channel-removed", _B, "A channel is gone from the package's CHANNELS.")
MESSAGE_REMOVED = Kind("message-removed", _B, "A message is gone: its class is no longer generated.")
MESSAGE_RENAMED = Kind(
    "message-renamed",
    _B,
    "A message renamed (its class, its SSE event name, its tag value or its literal; found by payload "
    "similarity): an older package no longer recognizes its events, code naming the class breaks.",
)
MEMBER_REMOVED = Kind("member-removed", _B, "A member is gone: code reading it breaks.")
MEMBER_RENAMED = Kind(
    "member-renamed", _B, "A member renamed (same schema under another name): code reading the old name breaks."
)
TYPE_CHANGED = Kind(
    "type-changed",
    _B,
    "A member's type changed so that an older package refuses values the new spec allows (lenient decoding "
    "keeps them in off_spec, the member is None), or its Python type changed (a class to a dict or back).",
)
MEMBER_REQUIRED = Kind(
    "member-required",
    _B,
    "An optional member made required (and not nullable): the regenerated package refuses payloads without it.",
)
MEMBER_OPTIONAL = Kind(
    "member-optional",
    _B,
    "A member an older package requires may now be absent or null: it refuses such payloads.",
)
VARIANT_REMOVED = Kind("variant-removed", _B, "An alternative of a union is gone: its class is no longer generated.")
DECODES_AS_OTHER = Kind(
    "decodes-as-other",
    _B,
    "A discrimination change (event name, tag, shape): one message's payloads decode as another message.",
)
MESSAGE_KIND_CHANGED = Kind(
    "message-kind-changed",
    _B,
    "A message changed what it means to the stream (data, error, vendor, keep-alive, terminator).",
)
MEDIA_TYPE_CHANGED = Kind(
    "media-type-changed",
    _B,
    "A channel's framing (text/event-stream, newline-delimited JSON) or a message's content type changed: an "
    "older package cuts or reads the body differently.",
)

STREAM_END_REMOVED = Kind(
    "stream-end-removed",
    _X,
    "The terminator or completing event is gone: an older package's streams end with complete=False.",
)
STREAM_END_CHANGED = Kind(
    "stream-end-changed",
    _X,
    "The terminator or completing event changed (renamed, or no longer ends the stream): streams end with "
    "complete=False.",
)
ACCUMULATED_MEMBER_LOST = Kind(
    "accumulated-member-lost",
    _X,
    "A member path an accumulation plan step reads no longer resolves: the assembled text, blocks, stop reason "
    "or usage it fed stay empty.",
)
ACCUMULATION_STEP_DROPPED = Kind(
    "accumulation-step-dropped",
    _X,
    "The plan no longer has a step it had (or the channel no plan): the regenerated accumulator leaves out what "
    "it assembled.",
)
ACCUMULATED_MESSAGE_LOST = Kind(
    "accumulated-message-lost",
    _X,
    "A message whose events the accumulator assembles is gone, or renamed so that an older package no longer "
    "recognizes it: its text, blocks or tool calls are missing from the result.",
)
USAGE_MOVED = Kind(
    "usage-moved",
    _X,
    "Usage is sent in another message: an older package's accumulator reads it where it no longer is "
    "(result.usage stays None).",
)

#: Every kind, by name, compatible ones first.
KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        PROVIDER_ADDED,
        CHANNEL_ADDED,
        MESSAGE_ADDED,
        MEMBER_ADDED,
        ENUM_VALUE_ADDED,
        ENUM_VALUES_CHANGED,
        VARIANT_ADDED,
        TYPE_NARROWED,
        TYPE_RENAMED,
        ACCUMULATION_ADDED,
        CONSTRAINT_CHANGED,
        DOCS_CHANGED,
        PROVIDER_REMOVED,
        CHANNEL_REMOVED,
        MESSAGE_REMOVED,
        MESSAGE_RENAMED,
        MEMBER_REMOVED,
        MEMBER_RENAMED,
        TYPE_CHANGED,
        MEMBER_REQUIRED,
        MEMBER_OPTIONAL,
        VARIANT_REMOVED,
        DECODES_AS_OTHER,
        MESSAGE_KIND_CHANGED,
        MEDIA_TYPE_CHANGED,
        STREAM_END_REMOVED,
        STREAM_END_CHANGED,
        ACCUMULATED_MEMBER_LOST,
        ACCUMULATION_STEP_DROPPED,
        ACCUMULATED_MESSAGE_LOST,
        USAGE_MOVED,
    )
}


@dataclass(frozen=True)
class Change:
    """One classified change between two IRs of a provider.

    Attributes:
        kind: the :class:`Kind` (its impact is the change's).
        text: what changed and what it does, one sentence.
        provider: the provider (folder) name.
        channel: the channel address ("" for a provider-wide change).
        message: the message (class) name, the new one when renamed ("" for a channel-wide change).
        member: the payload path of the member concerned, written as plan paths are
            (``choices[*].delta.content``; "" for the message itself).
        old: where the old spec states it (file relative to its specs folder, line, JSON pointer);
            None when the old spec has no such thing.
        new: where the new spec states it, or, for what is gone, the place that held it (the
            object that lost a member, the channel that lost a message); None when the new spec
            has no provider or channel to point at.
    """

    kind: Kind
    text: str
    provider: str
    channel: str = ""
    message: str = ""
    member: str = ""
    old: Provenance | None = None
    new: Provenance | None = None

    @property
    def impact(self) -> Impact:
        """The kind's impact."""
        return self.kind.impact

    def to_dict(self) -> dict[str, Any]:
        """The change as the JSON report writes it (docs/diff.md): ``kind``, ``impact``,
        ``provider``, ``channel``, ``message``, ``member``, ``text``, ``old``, ``new`` (each
        ``{"file", "line", "pointer"}`` or null)."""
        return {
            "kind": self.kind.name,
            "impact": self.impact.value,
            "provider": self.provider,
            "channel": self.channel,
            "message": self.message,
            "member": self.member,
            "text": self.text,
            "old": _place(self.old),
            "new": _place(self.new),
        }


def _place(where: Provenance | None) -> dict[str, Any] | None:
    return None if where is None else {"file": where.file, "line": where.line, "pointer": where.pointer}


def worst(changes: list[Change]) -> Impact | None:
    """The highest impact among ``changes``; None when there are none."""
    return max((c.impact for c in changes), key=lambda i: i.rank, default=None)

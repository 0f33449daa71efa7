"""Usage objects kept as the wire sent them.

A generated message class types the usage members its spec lists; providers send more
(``serviceTier``, ``prompt_cache_hit_tokens``...).  :func:`keep_usage` / :func:`keep_usages`
attach the sent object to the decoded one and :func:`usage_as_sent` reads it back, so the
assembled result reports usage as sent (docs/results.md, "Usage as sent").

This module is ``src/ssegen/runtime/usage.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, TypeVar, cast

import msgspec

from .json_values import is_object

#: The attribute a typed usage object carries the object as sent on (see :func:`keep_usage`).
_SENT = "_ssegen_sent"

T = TypeVar("T")
D = TypeVar("D", bound=str | bytes)


class SentUsage:
    """Mixin of the generated usage classes: one slot, :data:`_SENT`, that :func:`keep_usage`
    attaches the object as sent to and :func:`usage_as_sent` reads.

    A slot of a mixin is what msgspec offers for state beside a ``Struct``'s fields (its
    "mixins with ``__slots__``"): not a field, so never decoded, encoded, compared or shown in
    ``repr``, and no per-instance ``__dict__`` to build (``dict=True`` cost one dict per
    chunk of a stream re-sending its usage with every chunk, as Gemini does). The class keeps
    ``gc=False``: what the slot holds (JSON text, then plain JSON data) refers to nothing."""

    __slots__ = ("_ssegen_sent",)


def keep_usage(chunk: T, data: str | bytes, attr: str = "usage") -> T:
    """``chunk``, its typed usage object (member ``attr``) made to carry the usage
    object as sent, every member included: typed decoding keeps only the members
    the spec lists, and servers send more (DeepSeek ``prompt_cache_hit_tokens`` and
    ``prompt_tokens_details``, OpenRouter ``cost_details``, Groq ``queue_time``).

    ``attr`` may be a dotted path, where a block family's usage is nested (Anthropic
    ``message.usage``, OpenAI Responses ``response.usage``); a segment whose identifier
    is not its wire name is written ``identifier:wire`` (Gemini's
    ``usage_metadata:usageMetadata``).

    Called by the generated ``classify`` on each chunk it decodes: the JSON ``data`` is
    kept on the typed usage, and decoded a second time, for the usage object only, when
    :func:`usage_as_sent` first reads it (a stream that re-sends its usage with every
    chunk, as Gemini's ``usageMetadata``, pays for the one the result keeps). Never
    raises.
    """
    if "." in attr or ":" in attr:
        _keep_nested(chunk, data, attr)
        return chunk
    usage = getattr(chunk, attr, None)
    if usage is not None:
        _attach(usage, data, attr)
    return chunk


def kept(decode: Callable[[D], T], attr: str) -> Callable[[D], T]:
    """``decode`` followed by :func:`keep_usage` of member ``attr``: the entry of a decoder
    table for a message whose usage is kept, the named-event table (``bytes`` data) and the
    tag table (``str`` data: a data-only stream such as OpenRouter's Responses, which sends no
    ``event:`` lines) alike, so that every decode path keeps the usage object as sent."""

    def decode_kept(data: D) -> T:
        return keep_usage(decode(data), data, attr)

    return decode_kept


#: usage path -> a decoder reading only the object at that path
_PROBES: dict[str, Callable[[str | bytes], Any]] = {}
#: usage path -> the identifiers on the way
_NAMES: dict[str, tuple[str, ...]] = {}


def _names(attr: str) -> tuple[str, ...]:
    names = _NAMES.get(attr)
    if names is None:
        names = _NAMES[attr] = tuple(s.partition(":")[0] for s in attr.split("."))
    return names


def _keep_nested(chunk: Any, data: str | bytes, attr: str) -> None:
    usage = _usage_at(chunk, _names(attr))
    if usage is not None:
        _attach(usage, data, attr)


def _usage_at(chunk: Any, names: tuple[str, ...]) -> Any:
    """The typed usage object ``chunk`` holds at member path ``names``; None when a member on
    the way is not sent."""
    usage = chunk
    for name in names:
        usage = getattr(usage, name, None)
        if usage is None:
            return None
    return usage


def keep_usages(chunks: Sequence[Any], values: Sequence[bytes], attr: str = "usage") -> None:
    """:func:`keep_usage` for a run of chunks decoded from ``values`` (their JSON
    data, in the same order), as the generated batch decoder gives them.

    Read once per run of a stream that may send its usage with every chunk (Gemini's
    ``usageMetadata``) or with the last only (chat): the members are read in C, and a run
    without one costs no Python-level loop (the generated batch decoder calls it only for a
    run with one)."""
    names = _names(attr)
    try:
        firsts = list(map(attrgetter(names[0]), chunks))
    except AttributeError:
        firsts = [getattr(chunk, names[0], None) for chunk in chunks]
    if firsts.count(None) == len(firsts):
        return
    if len(names) > 1:
        for chunk, value in zip(chunks, values, strict=False):
            _keep_nested(chunk, value, attr)
        return
    try:
        for usage, value in zip(firsts, values, strict=False):
            if usage is not None:
                usage._ssegen_sent = (value, attr)  # _SENT, written as an attribute: no call
    except (AttributeError, TypeError, ValueError):
        pass  # a class without room (generated before): the typed members only


def keep_last_usage(chunks: Sequence[Any], values: Sequence[bytes], attr: str = "usage") -> None:
    """:func:`keep_usage` for the last of ``chunks`` that sends a usage object (member path
    ``attr``) only, ``values`` their JSON data in the same order: for a reader that reads
    that one alone (``Channel.accumulate`` of a message whose plan replaces the usage, the
    last sent winning), so that a stream re-sending its usage with every chunk (Gemini's
    ``usageMetadata``) pays for one kept object per run instead of one per chunk (a tuple
    and a slot write each, ~0.17 µs). Searched from the end: the generated batch decoder
    calls it for a run with one, most often its last chunk. Never raises."""
    names = _names(attr)
    for i in range(min(len(chunks), len(values)) - 1, -1, -1):
        usage = _usage_at(chunks[i], names)
        if usage is not None:
            _attach(usage, values[i], attr)
            return


def _read_sent(data: str | bytes, attr: str) -> Any:
    """The object at usage path ``attr`` of the JSON text ``data`` (None when it is not
    there): what :func:`keep_usage` kept, read by :func:`usage_as_sent`."""
    decode = _PROBES.get(attr)
    if decode is None:
        probe: Any = Any
        for segment in reversed(attr.split(".")):
            name, _, wire = segment.partition(":")
            probe = msgspec.defstruct(
                "UsageProbe", [(name, probe | None, None)], rename={name: wire or name}
            )
        decode = _PROBES[attr] = msgspec.json.Decoder(probe).decode
    try:
        sent = decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    for name in _names(attr):
        sent = getattr(sent, name, None)
    return sent


def _attach(usage: Any, data: str | bytes, attr: str = "usage") -> None:
    try:
        # Not a field: the SentUsage slot of a usage class (pydantic models have room too);
        # the event's JSON text, with the path to read the usage at.
        setattr(usage, _SENT, (data, attr))
    except (AttributeError, TypeError, ValueError):
        pass  # a class without room (generated before): the typed members only


def usage_as_sent(usage: Any) -> dict[str, Any] | None:
    """The usage object exactly as the server sent it (plain JSON data, the members
    the spec does not list and nested objects included), when the decoder kept it
    on the typed ``usage`` (see :func:`keep_usage`); else None."""
    sent = getattr(usage, _SENT, None)
    if isinstance(sent, tuple):
        # the slot holds what keep_usage wrote: (JSON text, usage path), read back untyped
        data, attr = cast("tuple[str | bytes, str]", sent)
        sent = _read_sent(data, attr)
        try:
            setattr(usage, _SENT, sent)
        except (AttributeError, TypeError, ValueError):
            pass
    return sent if is_object(sent) else None

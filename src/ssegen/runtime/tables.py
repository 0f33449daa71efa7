"""A channel's lookup tables, built at import from the one table the generated module writes.

A generated ``channels.py`` writes each fact of a channel once: the message class of each SSE
event type carrying one message (``_EVENTS_<CHANNEL>``), the classes each tag value selects,
the usage path of each class whose usage is kept as sent (``_USAGE_<CHANNEL>``). The tables
``classify`` reads (decoders by event type, by tag value, by ``event:`` line; the message name
of each event type) are plain ``dict`` s built from those once, when the module is imported, by
the functions here: ``classify`` still does one ``dict`` lookup on a module global per event.

This module is ``src/ssegen/runtime/tables.py`` of ssegen, written verbatim into every output
folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

import msgspec

from .usage import kept

K = TypeVar("K")
T = TypeVar("T")

#: A decode function: JSON text (``str`` or UTF-8 ``bytes``) -> a typed event; raises the
#: model library's errors on invalid JSON or a value that does not fit.
Decode = Callable[[str | bytes], T]


def json_decoder(cls: type[T]) -> Decode[T]:
    """The decode function of class ``cls`` (a ``msgspec.Struct``): the ``decode`` method of
    one ``msgspec.json.Decoder(cls)``, built once (raises ``msgspec.ValidationError`` or
    ``msgspec.DecodeError``)."""
    return msgspec.json.Decoder(cls).decode


def decoder_table(
    classes: Mapping[K, type[T]],
    build: Callable[[type[T]], Decode[T]],
    usage: Mapping[type, str] | None = None,
) -> dict[K, Decode[T]]:
    """The decode function of each key's class: ``build(cls)`` (one per class, shared by the keys
    of one class), wrapped by ``usage.kept`` for a class of ``usage`` (class -> the path of its
    ``usage`` member, whose object as sent the event keeps).

    Args:
        classes: key (an SSE event type, a tag value) -> the class its events decode to.
        build: the model library's decoder of a class (:func:`json_decoder`, pydantic's
            ``pydantic_support.model_decoder``).
        usage: class -> usage member path (``response.usage``) of the classes keeping it.

    Returns:
        key -> decode function, in the order of ``classes``.
    """
    built: dict[type, Decode[T]] = {}
    for cls in classes.values():
        if cls not in built:
            path = (usage or {}).get(cls)
            built[cls] = build(cls) if path is None else kept(build(cls), path)
    return {key: built[cls] for key, cls in classes.items()}


def decoder_tuples(
    classes: Mapping[K, tuple[type[T], ...]],
    build: Callable[[type[T]], Decode[T]],
    usage: Mapping[type, str] | None = None,
) -> dict[K, tuple[Decode[T], ...]]:
    """:func:`decoder_table` of keys selecting several classes, tried in turn (a tag value several
    messages share): key -> their decode functions, in the order of the classes."""
    flat = {(key, n): cls for key, group in classes.items() for n, cls in enumerate(group)}
    built = decoder_table(flat, build, usage)
    return {key: tuple(built[key, n] for n in range(len(group))) for key, group in classes.items()}


def message_names(classes: Mapping[K, type], messages: Mapping[str, type]) -> dict[K, str]:
    """The name of each key's message: the first of ``messages`` (message name -> class, the
    channel's ``Channel.messages``) whose class is the key's; what a decode error's reason is
    worded with (``ResponseCreated: Expected `str` ...``).

    Raises:
        KeyError: a key's class is no message's (a generated module never builds one).
    """
    names: dict[type, str] = {}
    for name, cls in messages.items():
        names.setdefault(cls, name)
    return {key: names[cls] for key, cls in classes.items()}


def named(table: Mapping[str, T]) -> dict[bytes, T]:
    """``table`` keyed by the UTF-8 ``event:`` line of each SSE event type (``b"event: ping"``),
    as ``sse.NamedEvents`` gives a run of named events: the table ``classify_named`` looks up."""
    return {("event: " + event).encode(): value for event, value in table.items()}

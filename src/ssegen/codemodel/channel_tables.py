"""Which of a channel's lookup tables ``channels.py`` writes out, and which it builds at import
from another (runtime ``tables.py``): each fact of a channel is written once.

The decoders by event type (``_BY_EVENT_<CHANNEL>``), the lenient classes of each event type,
a tag table whose values are the event types (OpenAI Responses, Anthropic, Cohere: the ``type``
member repeats the event type), the ``event:`` lines ``classify_named`` looks up, the message
names wording a decode error and ``Encoding.events`` all hold one fact per event type: "event
type E carries one message, of class C". The channel writes it once, ``_EVENTS_<CHANNEL>``
(event type -> class); each of the others is built from it when it holds the same rows, which
is checked here row by row (a table holding other rows is written out). A class whose usage is
kept as sent is written once too (``_USAGE_<CHANNEL>``, class -> usage path: the decoders built
for it keep the usage, as the lenient path does).

Decoders are built per class at import (``tables.decoder_table``, ``tables.decoder_tuples``); a
message keeps a module-level decoder (``_decode_<message>_<channel>``) only when code calls it
by name: a branch ``classify`` tests in turn, the batch decoder, a written ``event:`` table.
The tables ``classify`` reads stay module-level ``dict`` s: one lookup per event, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..naming import ClassName, PythonIdentifier
from .accumulation import EVERY_CHANNEL_RUNS
from .channels import ChannelSpec, EventBranch, MessageSpec
from .event_table import EventTable


@dataclass(frozen=True)
class TagTable:
    """How one branch's tag table (tag value -> decoders, tried in turn) is written.

    Attributes:
        branch: the branch it belongs to (its ``table`` and ``vendor_set`` names).
        from_events: each tag value is an event type of ``_EVENTS_<CHANNEL>`` selecting that
            event type's message alone, and every event type is one: the table is built from
            the decoders by event type (the same decode functions).
        rows: ``(tag value, classes)`` written out (the classes the value selects, in the order
            they are tried); ``()`` when :attr:`from_events`.
        vendor_keys: every tag value of the table is a vendor message's: the vendor set is the
            table's keys (``frozenset(table)``).
        classes: generated name of the tag value -> class table, written when each value selects
            one class (:attr:`single`): the decoders, and the lenient classes and run functions
            of those classes where they are the same for each, are built from it.
        single: each tag value selects one class, written in ``classes``.
        run: the run function of every class of ``classes`` when they share it (vendor messages'
            ``each(on_vendor)``): their rows of the runs table are built from it; else "".
    """

    branch: EventBranch
    from_events: bool
    rows: tuple[tuple[str, tuple[ClassName, ...]], ...]
    vendor_keys: bool
    classes: PythonIdentifier
    single: bool = False
    run: str = ""


@dataclass(frozen=True)
class ChannelTables:
    """A channel's written tables and the ones built from them.

    Attributes:
        messages: generated name of the message name -> class table (``Channel.messages``).
        events: generated name of the event type -> class table.
        event_rows: ``(event type, class)`` of each event type ``classify`` looks up (the
            :class:`~.event_table.EventTable`'s entries), in decode order; ``()`` without one.
        usage: generated name of the class -> usage path table.
        usage_rows: ``(class, usage path)`` of each class keeping its usage as sent that a table
            built here or the lenient path decodes; ``()`` for none.
        names_from_messages: the event types' message names are the first message of each
            class (``tables.message_names``); else they are written out.
        encoding_from_events: ``Encoding.events`` is the events table inverted.
        lenient_from_events: the lenient table's row of each event type of the events table is
            that event type's class alone.
        lenient_rows: the lenient rows written out: ``(event type, tag classes, classes)``, the row's
            classes those of the tag value -> class table named (every class of it, in its order;
            "" for none) followed by ``classes``.
        lenient_every_event: the event type (``*``) of the lenient row holding every class of
            the events table in its order, built from it; "" for none.
        tagged: the tag table of each branch with one.
        decoders: the messages whose decoder code calls by name (module-level), in decode order.
        all_runs: the channel's runs table rows (:attr:`~.channels.ChannelSpec.runs`).
    """

    messages: PythonIdentifier
    events: PythonIdentifier
    event_rows: tuple[tuple[str, ClassName], ...]
    usage: PythonIdentifier
    usage_rows: tuple[tuple[str, str], ...]
    names_from_messages: bool
    encoding_from_events: bool
    lenient_from_events: bool
    lenient_rows: tuple[tuple[str, str, tuple[str, ...]], ...]
    lenient_every_event: str
    tagged: tuple[TagTable, ...]
    decoders: tuple[MessageSpec, ...]
    all_runs: tuple[tuple[str, str], ...]

    @property
    def runs(self) -> tuple[tuple[str, str], ...]:
        """The runs table's rows written out: those of the classes no tag table's :attr:`TagTable.run`
        gives, but for the runtime's own (:data:`EVERY_CHANNEL_RUNS`)."""
        built = {cls for t in self.tagged if t.run for _, (cls,) in t.rows}
        return tuple(row for row in self.all_runs if row[0] not in built and row not in EVERY_CHANNEL_RUNS)


def channel_tables(
    channel: ChannelSpec, encoding_events: tuple[tuple[ClassName, str], ...], table: EventTable | None
) -> ChannelTables:
    """The :class:`ChannelTables` of ``channel``, whose ``Encoding.events`` rows are
    ``encoding_events`` and whose lookup of event types is ``table`` (None without one)."""
    upper = channel.ident.upper()
    order = {m.cls: n for n, m in enumerate(_first_of_class(channel.messages))}
    entries = sorted(table.entries, key=lambda row: order[row[1].cls]) if table is not None else []
    event_rows = tuple((event, message.cls) for event, message in entries)
    tagged = tuple(_tag_table(b, event_rows, channel.runs) for b in channel.tagged_branches)
    written, from_events, every = _lenient(channel.lenient, event_rows)
    built: set[str] = {cls for _, cls in event_rows} | {c for t in tagged for _, group in t.rows for c in group}
    built |= {cls for cls, _ in channel.lenient_usage}
    usage: dict[str, str] = {}
    for message in channel.messages:
        if message.keep_usage and message.cls in built:
            usage.setdefault(message.cls, message.keep_usage)
    return ChannelTables(
        messages=PythonIdentifier.verbatim(f"_MESSAGES_{upper}"),
        events=PythonIdentifier.verbatim(f"_EVENTS_{upper}"),
        event_rows=event_rows,
        usage=channel.lenient_usage_table,
        usage_rows=tuple(usage.items()),
        names_from_messages=_names_from_messages(channel, entries),
        encoding_from_events=bool(event_rows) and dict(encoding_events) == {c: e for e, c in event_rows},
        lenient_from_events=from_events,
        lenient_rows=tuple(_spread(row, tagged) for row in written),
        lenient_every_event=every,
        tagged=tagged,
        decoders=_called(channel, table),
        all_runs=channel.runs,
    )


def _first_of_class(messages: tuple[MessageSpec, ...]) -> list[MessageSpec]:
    """The first message of each class, in order."""
    first: dict[ClassName, MessageSpec] = {}
    for message in messages:
        first.setdefault(message.cls, message)
    return list(first.values())


def _names_from_messages(channel: ChannelSpec, entries: list[tuple[str, MessageSpec]]) -> bool:
    """True when each looked-up message is the first message of its class (its name is then
    found from the class, ``tables.message_names``)."""
    first = {m.cls: m.name for m in _first_of_class(channel.messages)}
    return bool(entries) and all(first[m.cls] == m.name for _, m in entries)


def _tag_table(
    branch: EventBranch, event_rows: tuple[tuple[str, ClassName], ...], runs: tuple[tuple[str, str], ...]
) -> TagTable:
    """How ``branch``'s tag table is written, given the channel's ``event_rows`` and runs table ``runs``."""
    rows = tuple((value, tuple(m.cls for m in group)) for value, group in branch.tagged)
    from_events = bool(event_rows) and dict(rows) == {event: (cls,) for event, cls in event_rows}
    vendor_keys = bool(branch.vendor_tags) and set(branch.vendor_tags) == {value for value, _ in rows}
    classes = [cls for _, group in rows for cls in group]
    single = not from_events and all(len(group) == 1 for _, group in rows) and len(set(classes)) == len(classes)
    shared = {run for cls, run in runs if cls in classes}
    counted = sum(cls in classes for cls, _ in runs) == len(classes)  # one row per class, each given
    return TagTable(
        branch=branch,
        from_events=from_events,
        rows=() if from_events else rows,
        vendor_keys=vendor_keys,
        classes=PythonIdentifier.verbatim(f"{branch.table}_CLASSES"),
        single=single,
        run=shared.pop() if single and counted and len(shared) == 1 else "",
    )


def _spread(row: tuple[str, tuple[str, ...]], tagged: tuple[TagTable, ...]) -> tuple[str, str, tuple[str, ...]]:
    """The written lenient ``row`` as ``(event type, tag classes, classes)``: the classes of the
    tag table of its branch first when the row begins with every one of them, in their order."""
    event, classes = row
    for table in tagged:
        own = tuple(cls for _, (cls,) in table.rows) if table.single else ()
        if own and table.branch.event == event and classes[: len(own)] == own:
            return event, table.classes, classes[len(own) :]
    return event, "", classes


def _lenient(
    rows: tuple[tuple[str, tuple[str, ...]], ...], event_rows: tuple[tuple[str, ClassName], ...]
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], bool, str]:
    """``(rows written out, rows of the event types built, event type of the row of every
    event class)`` of the lenient table ``rows``, given the events table's ``event_rows``."""
    if not event_rows:
        return rows, False, ""
    by_event = {event: (cls,) for event, cls in event_rows}
    from_events = all(dict(rows).get(event) == classes for event, classes in by_event.items())
    every_class = tuple(cls for _, cls in event_rows)
    every = next((event for event, classes in rows if classes == every_class and event not in by_event), "")
    written = tuple(
        (event, classes)
        for event, classes in rows
        if event != every and not (from_events and by_event.get(event) == classes)
    )
    return written, from_events, every


def _called(channel: ChannelSpec, table: EventTable | None) -> tuple[MessageSpec, ...]:
    """The JSON messages whose decoder code calls by name: those of the branches ``classify``
    tests in turn (and of the fallback), the batch decoder's, a written ``event:`` table's."""
    tested = list(channel.branches if table is None else table.tested)
    if channel.fallback is not None:
        tested.append(channel.fallback)
    names = {m.decoder for b in tested for m in (*b.decoders, *b.open)}
    if channel.batch is not None:
        names.add(channel.batch.message.decoder)
    if channel.named is not None and table is None:
        names.update(m.decoder for _, m in channel.named.event_lines)
    return tuple(m for m in channel.json_messages if m.decoder in names)

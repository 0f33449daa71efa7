"""What each channel's ``encode`` and ``example_stream`` need (runtime ``encoding.Encoding``):
the SSE event type each class travels under, the literal classes, the terminator and the
channel's examples, decided once from the channel's messages and the conformance examples.

A channel's encoding needs the package's examples, which need every channel's classes, so it
is decided after the :class:`~ssegen.codemodel.channels.ChannelSpec`: an :class:`EncodedChannel`
is that spec with its encoding, built whole."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ..ir import EACH, Channel, Provider
from ..naming import ClassName
from .channel_tables import ChannelTables, channel_tables
from .channels import ChannelSpec, EventBranch
from .conformance import ExampleCase
from .event_table import EventTable, event_table
from .shared_runs import shared_runs


@dataclass(frozen=True)
class EncodingSpec:
    """One channel's ``Encoding(...)`` arguments.

    Attributes:
        events: ``(class, SSE event type)`` of each class travelling under a named event
            type (the IR's ``Message.event`` other than ``message``), the first message of a
            class deciding.
        literals: ``(class, literal data)`` of each literal message (``[DONE]``).
        terminator: the terminator's class, or None when the spec declares none.
        examples: ``(SSE event type, data)`` of the channel's examples, in spec order (those
            the conformance tests decode, synthesized ones included), without the examples of
            error messages (:func:`error_messages`): they make the default stream of the mock and of
            ``example_stream()``, a stream that succeeds (the conformance tests still decode
            every example).
        error_examples: ``(SSE event type, data)`` of the examples of the channel's error
            messages, in spec order (what the mock's ``error`` fault sends).
        cases: the conformance examples these are, in the order ``examples`` then
            ``error_examples`` hold them: the generated tests read each example's event type
            and data from the channel, and only which message it documents, its name and
            whether ssegen synthesized it from their own table (the data is written once).
        stated_text: ``(text, stop, complete)`` paths of a stated plan's stream text
            (:func:`stated_text`; the runtime's ``StatedText``), or None.
        streams: ``(name, events)`` of the channel's harvested example streams (those the
            conformance tests replay from ``examples/<name>.sse``), each event ``(SSE event
            type, data)``, comments left out; cumulative (``full_text``) streams are not
            included (they assemble only in cumulative mode).
    """

    events: tuple[tuple[ClassName, str], ...]
    literals: tuple[tuple[ClassName, str], ...]
    terminator: ClassName | None
    examples: tuple[tuple[str, str], ...]
    error_examples: tuple[tuple[str, str], ...] = ()
    cases: tuple[ExampleCase, ...] = ()
    stated_text: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None
    streams: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()


@dataclass(frozen=True)
class EncodedChannel(ChannelSpec):
    """A channel as the ``channels`` template lays it out: its :class:`ChannelSpec` and its
    :class:`EncodingSpec` (the ``Encoding(...)`` bound to ``encoding_table``)."""

    encoding: EncodingSpec = field(kw_only=True)

    @property
    def by_event(self) -> EventTable | None:
        """The event types ``classify`` looks up (:func:`~.event_table.event_table`), or None."""
        return event_table(self.ident, self.branches)

    @property
    def tables(self) -> ChannelTables:
        """Which tables are written out and which are built from them (:mod:`.channel_tables`)."""
        return channel_tables(self, self.encoding.events, self.by_event)

    @property
    def tested_branches(self) -> tuple[tuple[str, EventBranch], ...]:
        """``(keyword, branch)`` of each branch ``classify`` tests in turn (those :attr:`by_event`
        does not look up): ``if`` for the first, ``elif`` for the others and for every one
        after the lookup's ``if``, so that the fallback's ``else`` follows them all."""
        table = self.by_event
        tested = self.branches if table is None else table.tested
        return tuple(("if" if i == 0 and table is None else "elif", b) for i, b in enumerate(tested))


def encoded_channel(provider: Provider, channel: ChannelSpec, examples: tuple[ExampleCase, ...]) -> EncodedChannel:
    """``channel`` with its :func:`encoding_spec`, its run functions of equal bodies written once
    (:func:`~.shared_runs.shared_runs`); ``examples`` are the package's (every channel's)."""
    facts = {f.name: getattr(channel, f.name) for f in fields(ChannelSpec)}
    facts["plans"], facts["runs"] = shared_runs(channel.plans, channel.runs)
    return EncodedChannel(**facts, encoding=encoding_spec(provider, channel, examples))


def encoding_spec(provider: Provider, channel: ChannelSpec, examples: tuple[ExampleCase, ...]) -> EncodingSpec:
    """The :class:`EncodingSpec` of ``channel``; ``examples`` are the package's (every channel's)."""
    events: dict[ClassName, str] = {}
    literals: dict[ClassName, str] = {}
    terminator: ClassName | None = None
    source = next(c for c in provider.channels if c.address == channel.address)
    errors = error_messages(source)
    own = [e for e in examples if e.channel == channel.address]
    succeeding = tuple(e for e in own if e.message not in errors)
    failing = tuple(e for e in own if e.message in errors)
    for message in channel.messages:
        if message.cls in events or message.cls in literals:
            continue
        if message.literal is not None:
            literals[message.cls] = message.literal
            if message.kind == "terminator" and terminator is None:
                terminator = message.cls
        if message.event != "message":
            events[message.cls] = message.event
    return EncodingSpec(
        events=tuple(events.items()),
        literals=tuple(literals.items()),
        terminator=terminator,
        examples=tuple((e.event, e.data) for e in succeeding),
        error_examples=tuple((e.event, e.data) for e in failing),
        cases=succeeding + failing,
        stated_text=stated_text(source),
        streams=tuple(
            (s.name, tuple((e.event, e.data) for e in s.events if e.comment is None))
            for s in provider.example_streams
            if s.channel == channel.address and not s.full_text
        ),
    )


def stated_text(channel: Channel) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """Where the stated plan (family ``custom``) of ``channel`` puts a stream's text and how the
    stream ends, for ``example_stream(text=...)`` and ``ssegen mock --text``: ``(text, stop,
    complete)`` member paths of the first message whose steps ``append`` to a stream text at one
    path (no key, no ``[*]``; specs/ollama/api.yaml: ``message.content``), with that message's
    ``stop`` and ``complete`` paths (``()`` when it has none). None for a channel of a known
    family (the runtime synthesizes those its own way) or whose plan has no such step (the
    runtime then says which step is missing)."""
    plan = channel.accumulation
    if plan is None or plan.family != "custom":
        return None
    for _name, steps in plan.steps:
        text = next(
            (s.value for s in steps if s.action == "append" and not s.key and s.value and EACH not in s.value),
            None,
        )
        if text is not None:
            stop = next((s.value for s in steps if s.action == "stop" and not s.key), ())
            complete = next((s.value for s in steps if s.action == "complete"), ())
            return text, stop, complete
    return None


def error_messages(channel: Channel) -> frozenset[str]:
    """The messages of ``channel`` whose every event is an error: ``kind: error`` (an ``event:
    error`` frame) or recorded whole as one by the channel's plan (an ``error`` step with no
    ``value``: Ollama's ``StreamError`` line)."""
    whole = {
        name
        for name, steps in (channel.accumulation.steps if channel.accumulation else ())
        if any(step.action == "error" and not step.value for step in steps)
    }
    return frozenset({m.name for m in channel.messages if m.kind == "error"} | whole)

"""Midstream events: what ``Channel.accumulate`` decodes an NDJSON read's lines as first.

Most lines of a stream send none of the members that close it: Ollama sends ``done_reason``
and its six counts on the last line only, yet the run function tests each of them on every
line (7 of its ~15 tests, ~1 ms of 20,000 lines), and decoding fills each in with its default.
A *closing member* is an optional top-level member of the batch message that only ``stop``,
``usage`` and ``complete`` steps read (with no ``key``, ``when`` or ``variant``). The
*midstream class* is a private struct with the message's members but the closing ones, which
refuses any member it does not declare (the runtime's ``events.midstream_class``, typed as the
message's class, whose kept members its run function reads)::

    _MidstreamChatChunk = midstream_class(ChatChunk, ("done_reason", "total_duration", ...))

A line decodes as it exactly when it decodes as the message sending no closing member and no
member the message does not declare, and then to the same values of the members it keeps.
So its run function is the message's plan without the steps that read closing members only:
each of those does nothing when what it reads is ``None`` (``stop``, ``usage`` and
``complete`` each test it first). The read's lines are decoded so first, when their events are
applied and not handed on (``classify_values(values, every_usage=False)``:
``Channel.accumulate``); a line sending a closing member (even ``null``) or a member the spec
does not list fails that decode, and the read is decoded as the message, as before (one read
in a stream: ~1% more decoding for Ollama). The events never leave the accumulator, and
``decode`` gives the message's class as ever.

Ollama ``/api/chat``, 20,000 lines in 4 KiB reads: the run function 3.2 -> 2.3 ms (CPU
time, best of 15); the closing members left out of the class rather than typed ``None`` in a
subclass (each absent member is filled in with its default), decoding them 84 -> 73 M
instructions and ``accumulate`` 132 -> 121 M (cachegrind), 0.78-0.79x -> 0.82-0.86x the floor
(wall time, ``benchmarks/families.py``).
"""

from __future__ import annotations

from dataclasses import Field, dataclass, replace
from typing import Any, ClassVar, Protocol, TypeVar

from ..ir import AccumulateStep, Channel, Schema
from ..naming import ClassName, PythonIdentifier
from .accumulation import ApplyPlan, message_plan
from .models import ModelsBuilder, field_identifiers


class _Message(Protocol):
    """What :func:`with_midstream` reads of the batch message (``channels.MessageSpec``)."""

    @property
    def name(self) -> str: ...
    @property
    def cls(self) -> ClassName: ...
    @property
    def decoder(self) -> PythonIdentifier: ...
    @property
    def run(self) -> str: ...


class _Batch(Protocol):
    """What :func:`with_midstream` reads of a batch plan (``channels.BatchPlan``, a dataclass
    with a ``midstream`` field)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def lines(self) -> str: ...
    @property
    def message(self) -> _Message: ...


B = TypeVar("B", bound=_Batch)

#: The actions whose step does nothing when every member it reads is ``None``.
CLOSING_ACTIONS = ("stop", "usage", "complete")


@dataclass(frozen=True)
class Midstream:
    """The midstream class of a channel's batch message, and how it is decoded and applied.

    Attributes:
        cls: the private class (``_Midstream<message class>``).
        dropped: the attribute names of the closing members, which it leaves out.
        adapter: the expression building its decoder.
        lines: the module-level name of its decoder of an NDJSON read's lines at once.
        plan: its run function: the message's plan without the steps reading closing
            members only (its ``cls`` the message's, which its events are typed as).
    """

    cls: ClassName
    dropped: tuple[str, ...]
    adapter: str
    lines: str
    plan: ApplyPlan

    def comment(self, message: str) -> str:
        """The comment above the class's definition, for the message class named ``message``
        (one line; the template wraps it)."""
        return f"{message} but its closing members: what ``accumulate`` decodes lines as first"


def _top_members(step: AccumulateStep) -> set[str]:
    """The top-level members of the payload ``step`` reads (its key, value, extra, members
    and ``when`` paths, the latter two relative to its value; its ``variant``'s member)."""
    paths = [step.key, step.value, step.extra]
    paths += [step.value + path for _, path in step.members]
    paths += [step.value + path for path, _ in step.when]
    found = {path[0] for path in paths if path}
    if step.variant is not None:
        found.add(step.variant[0])
    return found


def _closing_step(step: AccumulateStep) -> bool:
    """True for a step that does nothing when every member it reads is ``None``."""
    return step.action in CLOSING_ACTIONS and not step.key and not step.when and step.variant is None


def closing_members(payload: Schema, steps: tuple[AccumulateStep, ...]) -> tuple[str, ...]:
    """The wire names of the optional top-level members of ``payload`` that ``steps`` read
    in closing steps only (see the module docstring), in the payload's order."""
    readers: dict[str, list[AccumulateStep]] = {}
    for step in steps:
        for member in _top_members(step):
            readers.setdefault(member, []).append(step)
    return tuple(
        prop.name
        for prop in payload.properties
        if not prop.required and prop.name in readers and all(map(_closing_step, readers[prop.name]))
    )


def midstream(
    channel: Channel, message: str, cls: ClassName, names: tuple[str, str], models: ModelsBuilder
) -> Midstream | None:
    """The midstream class of the batch message ``message`` (class ``cls``; ``names``: its
    decoder's and its run function's) of an NDJSON ``channel`` decoded by lines (the flavour
    has a lines method); None when it has no closing member (or no plan)."""
    found = channel.message(message)
    accumulation = channel.accumulation
    if found is None or accumulation is None or not models.flavour.lines_method:
        return None
    steps = accumulation.of(message)
    closing = closing_members(found.payload, steps)
    if not closing:
        return None
    idents = field_identifiers(found.payload)
    kept = tuple(step for step in steps if not (_closing_step(step) and _top_members(step) <= set(closing)))
    mid_cls = ClassName.verbatim(f"_Midstream{cls}")
    plan = message_plan(  # its events are typed as the message's (the class is cast to its base)
        found.payload,
        cls,
        PythonIdentifier.verbatim(f"_midstream{names[1]}"),
        kept,
        accumulation.result == "choices",
        models,
        models.flavour.plain,
    )
    return Midstream(
        cls=mid_cls,
        dropped=tuple(idents[name] for name in closing),
        adapter=models.flavour.adapter.format(cls=mid_cls),
        lines=f"_midstream{names[0]}_lines",
        plan=plan,
    )


def with_midstream(
    channel: Channel,
    batch: B | None,
    plans: list[ApplyPlan],
    runs: list[tuple[str, str]],
    models: ModelsBuilder,
) -> B | None:
    """``batch`` with its message's :class:`Midstream` when it decodes an NDJSON read's lines
    at once and the message has one; its run function is then added to ``plans`` and its
    row to ``runs`` (after the message's), in place."""
    if batch is None or not batch.lines or not batch.message.run:
        return batch
    message = batch.message
    mid = midstream(channel, message.name, message.cls, (message.decoder, message.run), models)
    if mid is None:
        return batch
    plans.append(mid.plan)
    runs.insert(runs.index((message.cls, message.run)) + 1, (mid.cls, mid.plan.function))
    return replace(batch, midstream=mid)

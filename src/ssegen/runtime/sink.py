"""The accumulator as compiled code sees it: the one API generated run functions reach it through.

A generated package's ``channels.py`` holds one run function per message (``_apply_<channel>_<message>``,
its accumulation plan compiled by ``ssegen.codemodel.plans``) and a runs table per channel. The run
functions take a :class:`Sink` and use nothing of it but what these protocols declare: the
stream's members (:class:`Sink`), a choice's (:class:`ChoiceSink`) and an output block's
(:class:`BlockSink`). The runs table's other entries are the ``on_*`` functions below.
``accumulate.Accumulator`` (with ``ChoiceState`` and ``BlockState``) is the sink every channel
hands its run functions; mypy checks that it satisfies these protocols (``stream.Run`` takes a
:class:`Sink`), and mypy --strict on the generated packages that their run functions keep to them.

Lists of text parts (``content``, ``text``, ...) are appended to directly: a delta per call of
a method would cost a call per token. ``blocks[index]`` makes the block on first use (the
accumulator's mapping has ``__missing__``); ``states.get(index) or acc.choice(index)`` and
``texts.get(name) or acc.text_parts(name)`` make a choice or a text on first use.

This module is ``src/ssegen/runtime/sink.py`` of ssegen, written verbatim into every output
folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from .events import StreamTruncated, UnknownEvent
from .framing import StreamState


class ChoiceSink(Protocol):
    """One chat choice being assembled (``accumulate.ChoiceState``)."""

    @property
    def content(self) -> list[str]:
        """The parts of the choice's text, in stream order."""
        ...

    @property
    def reasoning_content(self) -> list[str]:
        """The parts of its reasoning text."""
        ...

    @property
    def refusal(self) -> list[str]:
        """The parts of its refusal."""
        ...

    @property
    def content_parts(self) -> list[Any]:
        """Parts kept as sent (plain data): a plan's ``collect``."""
        ...

    finish_reason: str | None

    def add_text(self, field: str, text: str) -> None:
        """Append ``text`` to the choice's text ``field`` (a named one: ``texts``)."""
        ...

    def add_content(self, content: Any) -> None:
        """Append a delta's ``content``: a string, or a list of typed parts."""
        ...

    def add_tool_call(
        self,
        index: int | None,
        id: str | None,
        type: str | None,
        name: str | None,
        arguments: str | None,
        position: int = 0,
    ) -> None:
        """Merge one chat-completions tool-call fragment into the call at ``index`` (without
        one: by its id, name and ``position`` in its delta's list)."""
        ...

    def add_tool_calls_data(self, fragments: Iterable[Any]) -> None:
        """Merge tool-call fragments given as plain JSON data."""
        ...

    def add_call(
        self,
        id: str | None,
        name: str | None,
        arguments: Any,
        partial: Any = None,
        continued: bool = False,
    ) -> None:
        """One tool call sent whole or in parts (a plan's ``tool_call``)."""
        ...


class BlockSink(Protocol):
    """One output block being assembled (``accumulate.BlockState``)."""

    @property
    def text(self) -> list[str]:
        """The parts of the block's text."""
        ...

    @property
    def thinking(self) -> list[str]:
        """The parts of its thinking."""
        ...

    @property
    def signature(self) -> list[str]:
        """The parts of its signature."""
        ...

    @property
    def refusal(self) -> list[str]:
        """The parts of its refusal."""
        ...

    @property
    def arguments(self) -> list[str]:
        """The parts of its tool arguments (JSON text)."""
        ...

    @property
    def deltas(self) -> list[Any]:
        """Values kept as sent (plain data): a plan's ``collect``."""
        ...

    status: str | None

    def open(self, block: Any, members: dict[str, Any] | None = None) -> None:
        """Take the block's identity from the object that opens it (and a plan's ``members``)."""
        ...

    def close(self, block: Any = None) -> None:
        """The block is complete; ``block`` is its finished object when sent."""
        ...

    def add_text(self, name: str, text: Any) -> None:
        """Append a delta's text to the field named for it."""
        ...

    def add_delta(self, delta: Any) -> None:
        """A delta object no ``append`` step takes."""
        ...

    def tool_call(self, id: Any, name: Any, arguments: Any) -> None:
        """A tool call sent whole into this block."""
        ...


class Sink(Protocol):
    """The stream being assembled (``accumulate.Accumulator``)."""

    @property
    def id(self) -> str | None:
        """The completion id, once known."""
        ...

    @property
    def model(self) -> str | None:
        """The model, once known."""
        ...

    @property
    def states(self) -> Mapping[int, ChoiceSink]:
        """The choices so far, by index (:meth:`choice` makes one)."""
        ...

    @property
    def blocks(self) -> Mapping[int, BlockSink]:
        """The output blocks so far, by index; reading an index makes its block."""
        ...

    @property
    def texts(self) -> Mapping[str, list[str]]:
        """The stream's named texts so far (:meth:`text_parts` makes one)."""
        ...

    stop_reason: str | None
    final_text: str | None

    def meta(self, id: str | None, model: str | None) -> None:
        """Record the completion id and model (the first non-empty values win)."""
        ...

    def choice(self, index: int) -> ChoiceSink:
        """The state of choice ``index`` (made on first use)."""
        ...

    def text_parts(self, name: str) -> list[str]:
        """The parts of the stream's named text ``name`` (made on first use)."""
        ...

    def collect(self, name: str, value: Any) -> None:
        """Append ``value`` (plain data) to the stream's named list ``name``."""
        ...

    def tool_call(self, id: Any, name: Any, arguments: Any) -> None:
        """A tool call sent whole outside any block: a new output block after the last."""
        ...

    def merge_usage(self, usage: Any) -> None:
        """Merge a usage object into the stream's."""
        ...

    def set_usage(self, usage: Any, typed: Any = None) -> None:
        """Record the stream's usage object (the last one sent wins)."""
        ...

    def snapshot(self, output: Any) -> None:
        """The finished output the stream sends at its end."""
        ...

    def done(self, event: Any = None) -> None:
        """The stream's terminator was seen."""
        ...

    def error(self, event: Any) -> None:
        """A mid-stream error message."""
        ...

    def error_in_chunk(self, error: Any) -> None:
        """The ``error`` object of an ordinary chunk."""
        ...

    def vendor(self, event: Any) -> None:
        """A provider extension event."""
        ...

    def unknown(self, event: UnknownEvent) -> None:
        """An event no message matched."""
        ...

    def truncated(self, event: StreamTruncated | StreamState) -> None:
        """The stream ended inside an event."""
        ...


def on_done(acc: Sink, event: Any) -> None:
    """A runs table's entry for the terminator (``[DONE]``): the stream is complete."""
    acc.done(event)


def on_error(acc: Sink, event: Any) -> None:
    """A runs table's entry for an error message: recorded, text so far kept."""
    acc.error(event)


def on_vendor(acc: Sink, event: Any) -> None:
    """A runs table's entry for a provider extension event: recorded as plain data."""
    acc.vendor(event)


def on_unknown(acc: Sink, event: UnknownEvent) -> None:
    """A runs table's entry for an event no message matched: recorded (an error when it is one)."""
    acc.unknown(event)


def on_truncated(acc: Sink, event: StreamTruncated) -> None:
    """A runs table's entry for the end of a stream cut inside an event."""
    acc.truncated(event)

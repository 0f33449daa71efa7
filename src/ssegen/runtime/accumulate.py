"""Accumulation: typed events folded into the assembled :class:`StreamResult`.

:class:`Accumulator` holds one :class:`ChoiceState` per chat choice (deltas concatenated per
choice, specs/deepseek/asyncapi-page.txt:16; tool calls built from fragments by ``index``,
specs/mistral/asyncapi-page.txt:561-584) and one :class:`BlockState` per Messages content block
or Responses output item, keyed by index; errors, vendor events and unknown events are
recorded, never dropped.  The compiled plans (the ``_apply_*`` functions of ``channels.py``)
reach it through ``sink.Sink``; :class:`Family` names the built-in plans.

The accumulation is split by job, and this module re-exports the public names of each (user
code and generated packages import them from here: ``from .._runtime.accumulate import
Accumulator, as_sent``):

- ``accumulate_results.py``: the results (:class:`StreamResult`, :class:`ChoiceResult`,
  :class:`BlockResult`, :class:`ToolCallResult`) and :class:`Family`;
- ``accumulate_choices.py``: the per-choice state (:class:`ChoiceState`, its tool calls);
- ``accumulate_blocks.py``: the per-block state (:class:`BlockState`);
- ``accumulate_parts.py``: what the states share (texts as parts, :data:`COMPACT_PARTS`,
  values as plain data: :func:`as_sent`, :func:`usage_of`);
- ``accumulate_errors.py``: the stream errors (:class:`ErrorRecording`, the accumulator's base:
  errors, unknown, off-spec and vendor events, truncation);
- here: the :class:`Accumulator` itself.

This module is ``src/ssegen/runtime/accumulate.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .accumulate_blocks import BlockState, snapshot_block
from .accumulate_choices import ChoiceState
from .accumulate_errors import ErrorRecording
from .accumulate_parts import COMPACT_PARTS, Parts, as_sent, join_parts, plain, usage_of
from .accumulate_results import (
    BLOCK_FAMILIES,
    BlockResult,
    ChoiceResult,
    Family,
    StreamResult,
    ToolCallResult,
    family_of,
)
from .json_values import is_array, is_object
from .usage import usage_as_sent

__all__ = [
    "BLOCK_FAMILIES",
    "COMPACT_PARTS",
    "Accumulator",
    "BlockResult",
    "BlockState",
    "ChoiceResult",
    "ChoiceState",
    "ErrorRecording",
    "Family",
    "StreamResult",
    "ToolCallResult",
    "as_sent",
    "usage_of",
]


class Accumulator(ErrorRecording):
    """Assembles typed events into a :class:`StreamResult`.

    Args:
        full_text: cumulative mode, where each chunk's text is the whole text
            so far (MindIE ``fullTextEnabled``: specs/siliconstorm/inference-api.md:704-723):
            texts are replaced, not appended.

    A ``full_text`` member of a chunk, when present, is authoritative for the
    final content of choice 0 in either mode (specs/siliconstorm/inference-api.md:725;
    the member: specs/siliconstorm/inference-api.md:925-928).

    Attributes:
        states: the :class:`ChoiceState` of each choice seen so far, by index
            (see :meth:`choice`).

    The methods recording what the spec does not say (``error``, ``error_in_chunk``,
    ``unknown``, ``lenient``, ``vendor``, ``truncated``...) are those of its base,
    :class:`ErrorRecording` (``accumulate_errors.py``).
    """

    def __init__(self, full_text: bool = False) -> None:
        super().__init__()
        self.full_text = full_text
        self.id: str | None = None
        self.model: str | None = None
        self._usage: dict[str, Any] | None = None
        #: the last usage object :meth:`set_usage` was given, read when ``usage`` is
        self._usage_sent: tuple[Any, Any] | None = None
        self.final_text: str | None = None
        self.complete = False
        self.states: dict[int, ChoiceState] = {}
        self.stop_reason: str | None = None
        #: the stream's named texts and lists (a plan's unkeyed ``append`` and ``collect``)
        self.texts: dict[str, list[str]] = {}
        self.lists: dict[str, list[Any]] = {}

    @property
    def usage(self) -> dict[str, Any] | None:
        """The stream's usage so far, as plain data (see :class:`StreamResult`)."""
        if self._usage_sent is not None:
            usage, typed = self._usage_sent
            self._usage_sent = None
            sent = usage_as_sent(usage if typed is None else typed)
            data = sent if sent is not None else plain(usage)
            self._usage = data if is_object(data) else None
        return self._usage

    @usage.setter
    def usage(self, value: dict[str, Any] | None) -> None:
        self._usage_sent = None
        self._usage = value

    def text_parts(self, name: str) -> list[str]:
        """The parts of the stream's named text ``name`` (a plan's ``append`` with no key:
        Cohere's ``tool_plan``), created empty on first use: a compiled plan appends a delta it
        knows to be a string to them directly (``(texts.get(name) or
        acc.text_parts(name)).append(delta)``), without a call per delta."""
        parts = self.texts.get(name)
        if parts is None:
            parts = self.texts[name] = Parts()
        return parts

    def collect(self, name: str, value: Any) -> None:
        """Append ``value`` (plain data, as sent) to the stream's named list ``name`` (a
        plan's ``collect`` with no key: Cohere's citations); None adds nothing."""
        if value is not None:
            self.lists.setdefault(name, []).append(value)

    def tool_call(self, id: Any, name: Any, arguments: Any) -> None:
        """A tool call sent whole outside any choice or keyed block (a plan's ``tool_call``
        with no key: each of Ollama's ``message.tool_calls[*]``): a new output block of kind
        ``tool_call`` after the last one (:meth:`BlockState.tool_call`). Each call its own
        block: several calls in one event or across events are all kept."""
        self.blocks[max(self.blocks, default=-1) + 1].tool_call(id, name, arguments)

    def merge_usage(self, usage: Any) -> None:
        """Merge a usage object into the stream's (Messages sends input tokens on
        ``message_start`` and the final output tokens on ``message_delta``: later
        members replace earlier ones, nested objects included)."""
        data = usage_as_sent(usage)
        if data is None:
            data = msgspec.to_builtins(usage)
        if is_object(data):
            self.usage = {**(self.usage or {}), **data}

    def snapshot(self, output: Any) -> None:
        """The finished output the stream sends at its end (Responses
        ``response.completed``'s ``output``): each item is the finished object of the block
        of its id (:func:`snapshot_block`; by position for an item without one) where no
        ``output_item.done`` gave one (see :meth:`BlockState.close`)."""
        if is_array(output):
            for index, item in enumerate(output):
                if item is not None:  # None: an item decoded leniently (off_spec_block)
                    snapshot_block(self.blocks, index, item).snapshot(item)

    def meta(self, id: str | None, model: str | None) -> None:
        """Record the completion id and model (the first non-empty values win)."""
        if self.id is None and id:
            self.id = id
        if self.model is None and model:
            self.model = model

    def compact(self, limit: int = COMPACT_PARTS) -> None:
        """Join the parts of each text and tool-call ``arguments`` into blocks of
        more than ``limit`` parts.

        Called once per read while a stream is accumulated, so memory follows
        the length of the texts, not the number of deltas (a 200 MB stream of
        one-token deltas would otherwise hold a string object per token), and
        time stays linear (a block is joined once).
        """
        for state in self.states.values():
            for parts in (
                state.content,
                state.reasoning_content,
                state.refusal,
                *state.texts.values(),
            ):
                if isinstance(parts, Parts):
                    parts.compact(limit)
            for call in state.tool_calls.values():
                if isinstance(call.arguments, Parts):
                    call.arguments.compact(limit)
        for block in self.blocks.values():
            for parts in (
                block.text,
                block.thinking,
                block.signature,
                block.refusal,
                block.arguments,
                *block.texts.values(),
            ):
                if isinstance(parts, Parts):
                    parts.compact(limit)
        for parts in self.texts.values():
            if isinstance(parts, Parts):
                parts.compact(limit)

    def choice(self, index: int) -> ChoiceState:
        """The state of choice ``index`` (created on first use)."""
        state = self.states.get(index)
        if state is None:
            state = self.states[index] = ChoiceState(index, self.full_text)
        return state

    def done(self, event: Any = None) -> None:
        """Record that the stream's terminator (e.g. ``[DONE]``) was seen."""
        self.complete = True

    def set_usage(self, usage: Any, typed: Any = None) -> None:
        """Record the stream's usage object (the last one sent wins): as sent, every
        member included, when the decoder kept it (:func:`usage_as_sent` of ``typed``,
        or of ``usage`` when ``typed`` is None), else ``usage`` as plain data."""
        # Read when the result is (a stream re-sending its usage with each chunk reads one).
        self._usage_sent = (usage, typed)

    def result(self) -> StreamResult:
        """The assembled :class:`StreamResult` (the accumulator stays usable)."""
        choices = [state.result() for _, state in sorted(self.states.items(), key=_index_order)]
        if self.final_text is not None:
            if not choices:
                choices.append(ChoiceResult(index=0))
            choices[0].content = self.final_text
        mismatches: list[dict[str, Any]] = []
        output = [
            state.result(mismatches) for _, state in sorted(self.blocks.items(), key=_index_order)
        ]
        return StreamResult(
            id=self.id,
            model=self.model,
            choices=choices,
            usage=self.usage,
            errors=[*self.errors, *mismatches],
            vendor_events=list(self.vendor_events),
            complete=self.complete,
            output=output,
            stop_reason=self.stop_reason,
            family=family_of(self.family).value,
            texts={name: join_parts(parts) for name, parts in self.texts.items()},
            lists={name: list(items) for name, items in self.lists.items()},
        )


def _index_order(item: tuple[Any, Any]) -> tuple[bool, int]:
    """Sort key of ``(index, state)``: by index, a state keyed by a missing (None) index
    of a leniently decoded event last."""
    return (not isinstance(item[0], int), item[0] if isinstance(item[0], int) else 0)

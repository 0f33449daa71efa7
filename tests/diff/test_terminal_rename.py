"""A realistic rename (issue 37): Google's migration guide for Gemini's interactions API renames
the streaming events, the terminal one among them (``interaction.complete`` ->
``interaction.completed``). A package generated from the old spec waits for the old name and
never sees the stream end: ``ssegen diff`` reports it as critical, with the rename."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.diffs import changes, edited

from ssegen.diff import Impact

#: An interactions stream in the shape of Gemini's (each event's ``event_type`` equals its SSE
#: event name), its plan stated: the id and model, the text deltas by ``index``, the usage and
#: the end on ``interaction.complete``.
INTERACTIONS = """\
asyncapi: 2.6.0
info: {title: Interactions, version: v1beta}
channels:
  /interactions:
    x-ssegen-accumulate:
      interaction.start:
        - {action: meta, value: interaction.id, extra: interaction.model}
      content.delta:
        - {action: append, key: index, value: delta.text, field: text}
      interaction.complete:
        - {action: usage, value: interaction.usage}
        - {action: done}
    subscribe:
      message:
        oneOf:
          - $ref: '#/components/messages/InteractionStart'
          - $ref: '#/components/messages/ContentDelta'
          - $ref: '#/components/messages/InteractionComplete'
components:
  messages:
    InteractionStart:
      x-sse-event: interaction.start
      payload:
        type: object
        required: [event_type, interaction]
        properties:
          event_type: {type: string, const: interaction.start}
          interaction: {$ref: '#/components/schemas/Interaction'}
    ContentDelta:
      x-sse-event: content.delta
      payload:
        type: object
        required: [event_type, index, delta]
        properties:
          event_type: {type: string, const: content.delta}
          index: {type: integer}
          delta:
            type: object
            properties:
              type: {type: string}
              text: {type: string}
    InteractionComplete:
      x-sse-event: interaction.complete
      payload:
        type: object
        required: [event_type, interaction]
        properties:
          event_type: {type: string, const: interaction.complete}
          interaction: {$ref: '#/components/schemas/Interaction'}
  schemas:
    Interaction:
      type: object
      required: [id]
      properties:
        id: {type: string}
        model: {type: string}
        status: {type: string, enum: [in_progress, completed, failed]}
        usage:
          type: object
          properties:
            total_input_tokens: {type: integer}
            total_output_tokens: {type: integer}
"""

RENAMED = (
    ("x-sse-event: interaction.complete", "x-sse-event: interaction.completed"),
    ("const: interaction.complete}", "const: interaction.completed}"),
    ("      interaction.complete:\n", "      interaction.completed:\n"),
)
#: The component renamed as well: the message is then found by its payload.
RENAMED_COMPONENT = (
    ("messages/InteractionComplete'", "messages/InteractionCompleted'"),
    ("    InteractionComplete:\n", "    InteractionCompleted:\n"),
)


@pytest.mark.parametrize("edits", [RENAMED, RENAMED + RENAMED_COMPONENT], ids=["event", "event-and-component"])
def test_the_terminal_event_renamed_is_critical(tmp_path: Path, edits: tuple[tuple[str, str], ...]) -> None:
    found = changes(tmp_path, INTERACTIONS, edited(INTERACTIONS, *edits))
    assert {c.kind.name for c in found} == {"stream-end-changed", "message-renamed"}, [c.text for c in found]
    [end] = [c for c in found if c.kind.name == "stream-end-changed"]
    assert end.impact is Impact.CRITICAL and end.channel == "/interactions"
    assert "InteractionComplete ended the stream (its done step)" in end.text
    assert "event interaction.completed, event_type='interaction.completed'" in end.text
    assert "was event interaction.complete, event_type='interaction.complete'" in end.text
    assert "which an older package does not recognize" in end.text
    assert end.old is not None and end.old.pointer == "/components/messages/InteractionComplete"
    [renamed] = [c for c in found if c.kind.name == "message-renamed"]
    assert "interaction.complete" in renamed.text and "interaction.completed" in renamed.text


def test_the_other_events_renamed_lose_what_they_assembled(tmp_path: Path) -> None:
    delta = (
        ("x-sse-event: content.delta", "x-sse-event: content.part"),
        ("const: content.delta}", "const: content.part}"),
        ("      content.delta:\n", "      content.part:\n"),
    )
    found = changes(tmp_path, INTERACTIONS, edited(INTERACTIONS, *delta))
    assert {c.kind.name for c in found} == {"accumulated-message-lost", "message-renamed"}
    [lost] = [c for c in found if c.kind.name == "accumulated-message-lost"]
    assert lost.impact is Impact.CRITICAL and "its events fed the assembled text" in lost.text

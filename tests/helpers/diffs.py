"""A small stream spec and its variants, for the ``ssegen diff`` tests (issue 37).

:data:`BASE` is an AsyncAPI 2.6 channel of five messages told apart by SSE event type and by the
tag ``kind``, with a stated accumulation plan: ``start`` gives the id, ``token`` appends
``piece.text`` by ``slot``, ``finished`` gives the stop reason and the usage and ends the stream;
``ping`` does nothing, ``note`` travels on the ``status`` event without a tag.
"""

from __future__ import annotations

from pathlib import Path

from ssegen.diff import Change, compare_providers
from ssegen.ir import Provider
from ssegen.load import load_provider

BASE = """\
asyncapi: 2.6.0
info: {title: Demo, version: '1'}
channels:
  /stream:
    x-ssegen-accumulate:
      start:
        - {action: meta, value: id}
      token:
        - {action: append, key: slot, value: piece.text, field: text}
      finished:
        - {action: stop, value: why}
        - {action: usage, value: usage}
        - {action: done}
    subscribe:
      message:
        oneOf:
          - $ref: '#/components/messages/start'
          - $ref: '#/components/messages/token'
          - $ref: '#/components/messages/ping'
          - $ref: '#/components/messages/note'
          - $ref: '#/components/messages/finished'
components:
  messages:
    start:
      x-sse-event: start
      payload:
        type: object
        required: [kind, id]
        properties:
          kind: {type: string, const: start}
          id: {type: string}
          model: {type: string}
    token:
      x-sse-event: token
      payload:
        type: object
        required: [kind, slot, piece]
        properties:
          kind: {type: string, const: token}
          slot: {type: integer}
          score: {type: number}
          piece: {$ref: '#/components/schemas/Piece'}
          part:
            oneOf:
              - $ref: '#/components/schemas/TextPart'
              - $ref: '#/components/schemas/ImagePart'
            discriminator: {propertyName: type}
    ping:
      x-sse-event: ping
      payload:
        type: object
        required: [kind]
        properties:
          kind: {type: string, const: ping}
    note:
      x-sse-event: status
      payload:
        type: object
        required: [text]
        properties:
          text: {type: string}
    finished:
      x-sse-event: finished
      payload:
        type: object
        required: [kind]
        properties:
          kind: {type: string, const: finished}
          why: {type: string, enum: [stop, length]}
          usage:
            type: object
            properties:
              input: {type: integer}
              output: {type: integer}
  schemas:
    Piece:
      type: object
      required: [text]
      properties:
        text: {type: string, description: A fragment of the text.}
        lang: {type: string}
    TextPart:
      type: object
      required: [type]
      properties:
        type: {type: string, const: text}
        text: {type: string}
    ImagePart:
      type: object
      required: [type]
      properties:
        type: {type: string, const: image}
        url: {type: string}
"""


def edited(text: str, *edits: tuple[str, str]) -> str:
    """``text`` with each ``(old, new)`` replaced once; each ``old`` must be there."""
    for old, new in edits:
        assert old in text, f"not in the spec: {old!r}"
        text = text.replace(old, new, 1)
    return text


def load(folder: Path, text: str, name: str = "demo") -> Provider:
    """The IR of ``text`` written as ``folder/<name>/asyncapi.yaml``; its load has no error."""
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "asyncapi.yaml").write_text(text, encoding="utf-8")
    result = load_provider(folder, name)
    assert result.provider is not None and not result.diagnostics.has_errors, [d.format() for d in result.diagnostics]
    return result.provider


def changes(tmp_path: Path, old: str, new: str) -> list[Change]:
    """What changes from spec ``old`` to spec ``new`` (two IRs of provider ``demo``)."""
    return compare_providers("demo", load(tmp_path / "old", old), load(tmp_path / "new", new))

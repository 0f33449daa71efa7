"""Each kind of change ``ssegen diff`` reports, on a minimal spec pair (issue 37): the spec of
``helpers.diffs.BASE`` and one edit of it, loaded through the pipeline, give exactly the kinds
listed, each at the message and member named."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from helpers.diffs import BASE, changes, edited, load

from ssegen.diff import KINDS, Impact, compare_providers

ALERT = """\
    alert:
      x-sse-event: status
      payload:
        type: object
        required: [text]
        properties:
          text: {type: string}
          level: {type: string}
"""
OTHER_CHANNEL = """\
  /other:
    subscribe:
      message:
        $ref: '#/components/messages/ping'
"""
AUDIO_PART = """\
    AudioPart:
      type: object
      required: [type]
      properties:
        type: {type: string, const: audio}
        clip: {type: string}
"""
RENAMED_FINISHED = ("x-sse-event: finished", "x-sse-event: completed"), ("const: finished}", "const: completed}")
USAGE_IN_START = (
    ("          model: {type: string}\n", "          model: {type: string}\n          usage: {type: object}\n"),
    (
        "        - {action: meta, value: id}\n",
        "        - {action: meta, value: id}\n        - {action: usage, value: usage}\n",
    ),
    ("        - {action: usage, value: usage}\n        - {action: done}", "        - {action: done}"),
    (
        "          usage:\n            type: object\n            properties:\n"
        "              input: {type: integer}\n              output: {type: integer}\n",
        "",
    ),
)

#: kind -> (edits of BASE, the old spec is the edited one, the kinds the change gives, where: message, member)
CASES: dict[str, tuple[tuple[tuple[str, str], ...], bool, set[str], tuple[str, str]]] = {
    "channel-added": ((("components:\n", OTHER_CHANNEL + "components:\n"),), False, {"channel-added"}, ("", "")),
    "message-added": (
        (
            (
                "          - $ref: '#/components/messages/finished'\n",
                "          - $ref: '#/components/messages/finished'\n          - $ref: '#/components/messages/beat'\n",
            ),
            (
                "  schemas:\n",
                "    beat:\n      x-sse-event: beat\n      payload:\n        type: object\n"
                "        properties:\n          kind: {type: string, const: beat}\n  schemas:\n",
            ),
        ),
        False,
        {"message-added"},
        ("Beat", ""),
    ),
    "member-added": (
        (("        lang: {type: string}\n", "        lang: {type: string}\n        region: {type: string}\n"),),
        False,
        {"member-added"},
        ("Token", "piece.region"),
    ),
    "enum-value-added": (
        ((("enum: [stop, length]", "enum: [stop, length, tool_calls]")),),
        False,
        {"enum-value-added"},
        ("Finished", "why"),
    ),
    "enum-values-changed": (
        (("enum: [stop, length]", "enum: [stop]"),),
        False,
        {"enum-values-changed"},
        ("Finished", "why"),
    ),
    "variant-added": (
        (
            (
                "              - $ref: '#/components/schemas/ImagePart'\n",
                "              - $ref: '#/components/schemas/ImagePart'\n"
                "              - $ref: '#/components/schemas/AudioPart'\n",
            ),
            ("    ImagePart:\n", AUDIO_PART + "    ImagePart:\n"),
        ),
        False,
        {"variant-added"},
        ("Token", "part"),
    ),
    "type-narrowed": (
        (("score: {type: number}", "score: {type: integer}"),),
        False,
        {"type-narrowed"},
        ("Token", "score"),
    ),
    "type-renamed": (
        (("    Piece:\n", "    Fragment:\n"), ("schemas/Piece'", "schemas/Fragment'")),
        False,
        {"type-renamed"},
        ("Token", "piece"),
    ),
    "accumulation-added": (
        (("        - {action: meta, value: id}\n", "        - {action: meta, value: id, extra: model}\n"),),
        False,
        {"accumulation-added", "accumulation-step-dropped"},
        ("Start", ""),
    ),
    "constraint-changed": (
        (("slot: {type: integer}", "slot: {type: integer, minimum: 0}"),),
        False,
        {"constraint-changed"},
        ("Token", "slot"),
    ),
    "docs-changed": (
        (("description: A fragment of the text.", "description: A piece of the text."),),
        False,
        {"docs-changed"},
        ("", ""),
    ),
    "channel-removed": ((("components:\n", OTHER_CHANNEL + "components:\n"),), True, {"channel-removed"}, ("", "")),
    "message-removed": (
        (("          - $ref: '#/components/messages/ping'\n", ""),),
        False,
        {"message-removed"},
        ("Ping", ""),
    ),
    "message-renamed": (
        (("x-sse-event: ping", "x-sse-event: heartbeat"), ("const: ping}", "const: heartbeat}")),
        False,
        {"message-renamed"},
        ("Ping", ""),
    ),
    "member-removed": ((("        lang: {type: string}\n", ""),), False, {"member-removed"}, ("Token", "piece.lang")),
    "member-renamed": (
        (("        lang: {type: string}\n", "        language: {type: string}\n"),),
        False,
        {"member-renamed"},
        ("Token", "piece.language"),
    ),
    "type-changed": (
        (("        lang: {type: string}\n", "        lang: {type: integer}\n"),),
        False,
        {"type-changed"},
        ("Token", "piece.lang"),
    ),
    "member-required": (
        (("      required: [kind, id]", "      required: [kind, id, model]"),),
        False,
        {"member-required"},
        ("Start", "model"),
    ),
    "member-optional": (
        (("      required: [kind, slot, piece]", "      required: [kind, piece]"),),
        False,
        {"member-optional"},
        ("Token", "slot"),
    ),
    "variant-removed": (
        (("              - $ref: '#/components/schemas/ImagePart'\n", ""),),
        False,
        {"variant-removed"},
        ("Token", "part"),
    ),
    "decodes-as-other": (
        (
            (
                "          - $ref: '#/components/messages/note'\n",
                "          - $ref: '#/components/messages/alert'\n          - $ref: '#/components/messages/note'\n",
            ),
            ("    note:\n", ALERT + "    note:\n"),
        ),
        False,
        {"message-added", "decodes-as-other"},
        ("Note", ""),
    ),
    "media-type-changed": (
        (
            (
                "    ping:\n      x-sse-event: ping\n",
                "    ping:\n      x-sse-event: ping\n      contentType: application/x-ndjson\n",
            ),
        ),
        False,
        {"media-type-changed"},
        ("", ""),
    ),
    "stream-end-removed": (
        (("          - $ref: '#/components/messages/finished'\n", ""),),
        False,
        {"stream-end-removed", "message-removed"},
        ("Finished", ""),
    ),
    "stream-end-changed": (RENAMED_FINISHED, False, {"stream-end-changed", "message-renamed"}, ("Finished", "")),
    "accumulated-member-lost": (
        (
            (
                "        text: {type: string, description: A fragment of the text.}\n",
                "        content: {type: string, description: A fragment of the text.}\n",
            ),
            (
                "      required: [text]\n      properties:\n        content",
                "      required: [content]\n      properties:\n        content",
            ),
        ),
        False,
        {"accumulated-member-lost", "member-renamed"},
        ("Token", "piece.text"),
    ),
    "accumulation-step-dropped": (
        (("        - {action: stop, value: why}\n", ""),),
        False,
        {"accumulation-step-dropped"},
        ("Finished", ""),
    ),
    "accumulated-message-lost": (
        (("x-sse-event: token", "x-sse-event: chunk"), ("const: token}", "const: chunk}")),
        False,
        {"accumulated-message-lost", "message-renamed"},
        ("Token", ""),
    ),
    "usage-moved": (
        USAGE_IN_START,
        False,
        {"usage-moved", "member-removed", "member-added", "accumulation-added"},
        ("Finished", ""),
    ),
    "message-kind-changed": (
        (
            (
                "    ping:\n      x-sse-event: ping\n      payload:\n        type: object\n"
                "        required: [kind]\n        properties:\n          kind: {type: string, const: ping}\n",
                "    ping:\n      x-sse-event: ping\n      payload: {type: string, const: '[PING]'}\n",
            ),
        ),
        False,
        {"message-kind-changed", "message-renamed", "type-changed"},
        ("Ping", ""),
    ),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_kind_is_reported_for_the_change_it_names(tmp_path: Path, kind: str) -> None:
    edits, swapped, expected, (message, member) = CASES[kind]
    old, new = BASE, edited(BASE, *edits)
    if swapped:
        old, new = new, old
    found = changes(tmp_path, old, new)
    assert {c.kind.name for c in found} == expected, [(c.kind.name, c.text) for c in found]
    change = next(c for c in found if c.kind.name == kind)
    assert (change.message, change.member) == (message, member), change
    assert change.provider == "demo" and change.text
    assert change.old is not None or change.new is not None


def test_every_kind_of_the_catalogue_has_a_case() -> None:
    assert sorted(set(KINDS) - set(CASES)) == ["provider-added", "provider-removed"]  # below


def test_a_provider_on_one_side_only_is_added_or_removed(tmp_path: Path) -> None:
    provider = load(tmp_path, BASE)
    [added] = compare_providers("demo", None, provider)
    [removed] = compare_providers("demo", provider, None)
    assert (added.kind.name, added.impact) == ("provider-added", Impact.COMPATIBLE)
    assert (removed.kind.name, removed.impact) == ("provider-removed", Impact.BREAKING)
    assert added.new is not None and added.new.file == "demo/asyncapi.yaml"


def test_an_unchanged_spec_gives_no_change_even_when_its_lines_move(tmp_path: Path) -> None:
    moved = edited(BASE, ("info: {title: Demo, version: '1'}\n", "info: {title: Demo, version: '1'}\n\n\n\n"))
    assert changes(tmp_path, BASE, moved) == []


def test_the_impacts_are_the_issue_s_classes() -> None:
    impacts = {name: kind.impact.value for name, kind in KINDS.items()}
    assert impacts["message-added"] == impacts["member-added"] == impacts["enum-value-added"] == "compatible"
    assert impacts["docs-changed"] == "compatible"
    for name in ("message-removed", "message-renamed", "member-removed", "type-changed", "member-required"):
        assert impacts[name] == "breaking", name
    assert impacts["decodes-as-other"] == impacts["media-type-changed"] == "breaking"
    for name in ("stream-end-removed", "stream-end-changed", "accumulated-member-lost", "usage-moved"):
        assert impacts[name] == "critical", name


def test_a_rename_is_found_by_payload_similarity_and_named_both_ways(tmp_path: Path) -> None:
    new = edited(
        BASE,
        *RENAMED_FINISHED,
        ("    finished:\n      x-sse-event", "    completed:\n      x-sse-event"),
        ("messages/finished'", "messages/completed'"),
        ("      finished:\n        - {action: stop", "      completed:\n        - {action: stop"),
    )
    found = changes(tmp_path, BASE, new)
    [renamed] = [c for c in found if c.kind.name == "message-renamed"]
    assert renamed.message == "Completed"
    assert "Finished renamed Completed" in renamed.text and "payload similarity 1.00" in renamed.text
    assert "event finished, kind='finished' -> event completed, kind='completed'" in renamed.text
    [end] = [c for c in found if c.kind.name == "stream-end-changed"]
    assert "an older package does not recognize" in end.text
    assert {c.kind.name for c in found} == {"message-renamed", "stream-end-changed"}


def test_the_documentation_lists_every_kind_with_its_impact() -> None:
    page = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(" `"): line.split("|")[2].strip() for line in page.splitlines() if "| `" in line}
    assert {name: rows.get(name) for name in KINDS} == {name: kind.impact.value for name, kind in KINDS.items()}

"""The accumulation plan language, compiled into the generated packages (issue 22): the built-in Gemini
family on the real captures of ``../shared/corpus/families/gemini`` and stated plans
(``x-ssegen-accumulate``) using ``[*]`` paths, ``when``, ``members``, named texts and lists,
usage ``replace`` and ``complete``. Expectations are computed from each capture's raw JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path
from helpers.packages import generated_package

from ssegen.ir import EACH, AccumulateStep, format_path, resolve_path

#: A GenerateContentResponse written for this test from Google's API reference (members the
#: captures use; ``usageMetadata`` lists a few counts only, so the others must be kept as sent).
GEMINI = """\
asyncapi: 2.6.0
info: {title: Gemini test, version: '1'}
channels:
  /v1beta/models/m:streamGenerateContent:
    subscribe:
      message:
        name: GenerateContentResponse
        payload:
          type: object
          properties:
            responseId: {type: string}
            modelVersion: {type: string}
            promptFeedback:
              type: object
              properties:
                blockReason: {type: string}
            usageMetadata:
              type: object
              properties:
                promptTokenCount: {type: integer}
                candidatesTokenCount: {type: integer}
                totalTokenCount: {type: integer}
            candidates:
              type: array
              items:
                type: object
                properties:
                  index: {type: integer}
                  finishReason: {type: string}
                  content:
                    type: object
                    properties:
                      role: {type: string}
                      parts:
                        type: array
                        items:
                          type: object
                          properties:
                            text: {type: string}
                            thought: {type: boolean}
                            thoughtSignature: {type: string}
                            functionCall:
                              type: object
                              properties:
                                id: {type: string}
                                name: {type: string}
                                args: {type: object}
                                willContinue: {type: boolean}
                                partialArgs:
                                  type: array
                                  items:
                                    type: object
                                    properties:
                                      jsonPath: {type: string}
                                      stringValue: {type: string}
                                      numberValue: {type: number}
                                      boolValue: {type: boolean}
                                      willContinue: {type: boolean}
                            executableCode: {type: object}
                            codeExecutionResult: {type: object}
"""

#: The Gemini plan as README "Accumulation" states it (``result: choices``).
GEMINI_PLAN = """\
    x-ssegen-accumulate:
      result: choices
      GenerateContentResponse:
        - {action: meta, value: responseId, extra: modelVersion}
        - action: append
          key: candidates[*].index
          value: candidates[*].content.parts[*].text
          field: text
          when: {thought: {not: true}}
        - action: append
          key: candidates[*].index
          value: candidates[*].content.parts[*].text
          field: thinking
          when: {thought: true}
        - action: tool_call
          key: candidates[*].index
          value: candidates[*].content.parts[*].functionCall
          members: {id: id, name: name, arguments: args, partial_arguments: partialArgs}
        - {action: stop, key: 'candidates[*].index', value: 'candidates[*].finishReason'}
        - {action: stop, value: 'candidates[*].finishReason'}
        - {action: stop, value: promptFeedback.blockReason}
        - {action: usage, value: usageMetadata, mode: replace}
        - {action: complete, value: 'candidates[*].finishReason'}
        - {action: complete, value: promptFeedback.blockReason}
"""


def _captures() -> list[Path]:
    folder = shared_path("corpus", "families", "gemini")
    return sorted(folder.glob("*.sse"))


def _chunks(body: bytes) -> Iterator[dict[str, Any]]:
    for line in body.decode().splitlines():
        if line.startswith("data:"):
            yield json.loads(line[5:])


def _partial(args: dict[str, Any], pieces: list[dict[str, Any]], joining: set[str]) -> None:
    """Vertex AI ``partialArgs`` into ``args``: each piece's value at its JSON path
    (``$.a[0].b``), string pieces at one path joined while the previous one said
    ``willContinue`` (``joining`` holds those paths)."""
    for piece in pieces:
        steps: list[Any] = [int(i) if i else n for n, i in re.findall(r"\.(\w+)|\[(\d+)\]", piece["jsonPath"])]
        value = next((piece[k] for k in ("stringValue", "numberValue", "boolValue") if k in piece), None)
        node: Any = args
        for step, after in zip(steps, steps[1:], strict=False):
            if isinstance(step, int):
                node.extend([None] * (step + 1 - len(node)))
                node[step] = node[step] if node[step] is not None else ([] if isinstance(after, int) else {})
            else:
                node.setdefault(step, [] if isinstance(after, int) else {})
            node = node[step]
        last = steps[-1]
        if isinstance(last, int):
            node.extend([None] * (last + 1 - len(node)))
        old = node[last] if isinstance(last, int) else node.get(last)
        node[last] = old + value if piece["jsonPath"] in joining and isinstance(old, str) else value
        (joining.add if piece.get("willContinue") else joining.discard)(piece["jsonPath"])


def _expected(body: bytes) -> dict[str, Any]:
    """What the raw JSON says, read by hand: per candidate (``index``, absent = 0) the text of
    its non-thought parts and of its thought parts, each ``functionCall`` with a ``name``
    (name, args: ``{}`` when it sends none, Vertex ``partialArgs`` of the parts after it set
    by JSON path), the last finish reason; the last ``usageMetadata`` whole; complete when a
    finish or block reason came."""
    text: dict[int, str] = {}
    thinking: dict[int, str] = {}
    calls: list[tuple[str, Any]] = []
    joining: set[str] = set()
    finish: dict[int, str] = {}
    out: dict[str, Any] = {"id": None, "model": None, "usage": None, "stop": None, "complete": False}
    for chunk in _chunks(body):
        out["id"] = out["id"] or chunk.get("responseId")
        out["model"] = out["model"] or chunk.get("modelVersion")
        out["usage"] = chunk.get("usageMetadata", out["usage"])
        blocked = (chunk.get("promptFeedback") or {}).get("blockReason")
        if blocked:
            out["stop"], out["complete"] = blocked, True
        for position, candidate in enumerate(chunk.get("candidates") or []):
            index = candidate.get("index", position)
            for part in (candidate.get("content") or {}).get("parts") or []:
                if "text" in part:
                    into = thinking if part.get("thought") is True else text
                    into[index] = into.get(index, "") + part["text"]
                call = part.get("functionCall")
                if call and "name" in call:
                    calls.append((call["name"], dict(call.get("args") or {})))
                    joining = set()
                if call and "partialArgs" in call:
                    _partial(calls[-1][1], call["partialArgs"], joining)
            if "finishReason" in candidate:
                finish[index] = out["stop"] = candidate["finishReason"]
                out["complete"] = True
    # An empty text part adds nothing (a choice's text with no characters is compared as absent).
    out.update(text={k: v for k, v in text.items() if v}, thinking={k: v for k, v in thinking.items() if v})
    out.update(calls=calls, finish=finish)
    return out


def _check(result: Any, body: bytes) -> None:
    expected = _expected(body)
    assert result.errors == []
    assert {c.index: c.content for c in result.choices if c.content} == expected["text"]
    assert {c.index: c.reasoning_content for c in result.choices if c.reasoning_content} == expected["thinking"]
    calls = [(call.function["name"], call.function["arguments"]) for c in result.choices for call in c.tool_calls]
    assert [name for name, _ in calls] == [name for name, _ in expected["calls"]]
    for (_, sent), (_, args) in zip(calls, expected["calls"], strict=True):
        assert json.loads(sent) == args
    assert {c.index: c.finish_reason for c in result.choices if c.finish_reason} == expected["finish"]
    assert result.stop_reason == expected["stop"]
    assert result.usage == expected["usage"]  # replaced whole, unlisted members kept
    assert result.complete is expected["complete"]
    assert (result.id, result.model) == (expected["id"], expected["model"])


@pytest.fixture(scope="module")
def gemini(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with generated_package(tmp_path_factory.mktemp("gemini"), {"asyncapi.yaml": GEMINI}) as (package, _):
        yield package


@pytest.fixture(scope="module")
def gemini_stated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    text = GEMINI.replace("    subscribe:\n", GEMINI_PLAN + "    subscribe:\n", 1)
    with generated_package(tmp_path_factory.mktemp("stated"), {"asyncapi.yaml": text}) as (package, diagnostics):
        assert not [d for d in diagnostics if d.code == "accumulate-invalid"], [d.format() for d in diagnostics]
        yield package


def test_every_gemini_capture_assembles_by_the_built_in_plan(gemini: Any) -> None:
    captures = _captures()
    assert len(captures) == 12
    channel = next(iter(gemini.CHANNELS.values()))
    assert channel.family == "gemini"
    for path in captures:
        body = path.read_bytes()
        for size in (7, 4096):
            reads = [body[i : i + size] for i in range(0, len(body), size)]
            _check(channel.accumulate(channel.decode(reads)), body)


def test_every_gemini_capture_assembles_by_the_plan_the_readme_states(gemini_stated: Any) -> None:
    channel = next(iter(gemini_stated.CHANNELS.values()))
    assert channel.family == "custom"
    for path in _captures():
        body = path.read_bytes()
        _check(channel.accumulate(channel.decode([body])), body)


def test_gemini_usage_members_the_schema_does_not_list_are_kept(gemini: Any) -> None:
    channel = next(iter(gemini.CHANNELS.values()))
    body = (shared_path("corpus", "families", "gemini") / "vercel_gemini37_prompt_blocked.sse").read_bytes()
    result = channel.accumulate(channel.decode([body]))
    assert result.usage["serviceTier"] == "standard"
    assert result.usage["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": 9}]
    assert (result.stop_reason, result.complete, result.choices) == ("PROHIBITED_CONTENT", True, [])


def test_thought_signatures_and_code_parts_are_kept_as_sent(gemini: Any) -> None:
    channel = next(iter(gemini.CHANNELS.values()))
    chunk = {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"text": "a", "thoughtSignature": "sig"},
                        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                    ]
                },
                "index": 1,
            }
        ]
    }
    result = channel.accumulate(channel.decode([b"data: " + json.dumps(chunk).encode() + b"\n\n"]))
    [choice] = result.choices
    assert (choice.index, choice.content) == (1, "a")
    assert choice.content_parts == [{"executableCode": {"language": "PYTHON", "code": "print(1)"}}]
    assert result.lists == {"thought_signatures": ["sig"]}
    assert result.complete is False


#: A Cohere v2 chat stream's events (docs.cohere.com "Streaming"), with a plan stated for them.
COHERE = """\
asyncapi: 2.6.0
info: {title: Cohere test, version: '1'}
channels:
  /v2/chat:
    x-ssegen-accumulate:
      message-start:
        - {action: meta, value: id}
      content-delta:
        - {action: append, key: index, value: delta.message.content.text, field: text}
      tool-plan-delta:
        - {action: append, value: delta.message.tool_plan, field: tool_plan}
      tool-call-start:
        - action: open
          key: index
          value: delta.message.tool_calls
          members: {id: id, name: function.name, arguments: function.arguments}
      tool-call-delta:
        - {action: append, key: index, value: delta.message.tool_calls.function.arguments, field: arguments}
      tool-call-end:
        - {action: close, key: index}
      citation-start:
        - {action: collect, value: delta.message.citations, field: citations}
      message-end:
        - {action: stop, value: delta.finish_reason}
        - {action: usage, value: delta.usage, mode: replace}
        - {action: done}
    subscribe:
      message:
        oneOf:
"""


def _cohere_message(name: str, delta: str) -> str:
    return (
        f"          - name: {name}\n            x-sse-event: {name}\n            payload:\n"
        f"              type: object\n              properties:\n"
        f"                type: {{const: {name}}}\n                index: {{type: integer}}\n"
        f"                id: {{type: string}}\n                delta: {delta}\n"
    )


_OBJ = "{type: object}"
_COHERE_MESSAGES = {
    "message-start": _OBJ,
    "content-delta": (
        "{type: object, properties: {message: {type: object, properties: {content: {type: object, "
        "properties: {text: {type: string}}}}}}}"
    ),
    "tool-plan-delta": "{type: object, properties: {message: {type: object, properties: {tool_plan: {type: string}}}}}",
    "tool-call-start": (
        "{type: object, properties: {message: {type: object, properties: {tool_calls: {type: object, properties: "
        "{id: {type: string}, function: {type: object, properties: {name: {type: string}, arguments: "
        "{type: string}}}}}}}}}"
    ),
    "tool-call-delta": (
        "{type: object, properties: {message: {type: object, properties: {tool_calls: {type: object, properties: "
        "{function: {type: object, properties: {arguments: {type: string}}}}}}}}}"
    ),
    "tool-call-end": _OBJ,
    "citation-start": (
        "{type: object, properties: {message: {type: object, properties: {citations: {type: object}}}}}"
    ),
    "message-end": (
        "{type: object, properties: {finish_reason: {type: string}, usage: {type: object, properties: "
        "{tokens: {type: object}}}}}"
    ),
}

_COHERE_STREAM = [
    {"type": "message-start", "id": "m1", "delta": {"message": {"role": "assistant"}}},
    {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will "}}},
    {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "look it up."}}},
    {
        "type": "tool-call-start",
        "index": 0,
        "delta": {
            "message": {
                "tool_calls": {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "search", "arguments": ""},
                }
            }
        },
    },
    {
        "type": "tool-call-delta",
        "index": 0,
        "delta": {"message": {"tool_calls": {"function": {"arguments": '{"q": '}}}},
    },
    {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '"x"}'}}}}},
    {"type": "tool-call-end", "index": 0},
    {"type": "content-delta", "index": 1, "delta": {"message": {"content": {"text": "Found "}}}},
    {"type": "content-delta", "index": 1, "delta": {"message": {"content": {"text": "it."}}}},
    {
        "type": "citation-start",
        "index": 0,
        "delta": {"message": {"citations": {"start": 0, "end": 5, "text": "Found", "sources": []}}},
    },
    {
        "type": "message-end",
        "delta": {"finish_reason": "TOOL_CALL", "usage": {"tokens": {"input_tokens": 3}, "billed_units": {"x": 1}}},
    },
]


@pytest.mark.parametrize("stated", [True, False], ids=["stated-plan", "built-in"])
def test_a_cohere_stream_assembles_by_a_stated_plan_or_the_built_in_family(tmp_path: Path, stated: bool) -> None:
    spec = COHERE + "".join(_cohere_message(n, d) for n, d in _COHERE_MESSAGES.items())
    if not stated:
        start = spec.index("    x-ssegen-accumulate:")
        spec = spec[:start] + spec[spec.index("    subscribe:") :]
    body = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in _COHERE_STREAM)
    with generated_package(tmp_path, {"asyncapi.yaml": spec}) as (package, diagnostics):
        assert not [d for d in diagnostics if d.code == "accumulate-invalid"], [d.format() for d in diagnostics]
        channel = next(iter(package.CHANNELS.values()))
        assert channel.family == ("custom" if stated else "cohere")
        result = channel.accumulate(channel.decode([body]))
    assert result.errors == []
    assert result.id == "m1"
    assert result.texts == {"tool_plan": "I will look it up."}
    call, text = result.output
    assert (call.index, call.id, call.name, call.arguments, call.input) == (
        0,
        "call_1",
        "search",
        '{"q": "x"}',
        {"q": "x"},
    )
    assert (text.index, text.text) == (1, "Found it.")
    assert result.lists == {"citations": [{"start": 0, "end": 5, "text": "Found", "sources": []}]}
    assert result.stop_reason == "TOOL_CALL"
    assert result.usage == {"tokens": {"input_tokens": 3}, "billed_units": {"x": 1}}
    assert result.complete is True


@pytest.mark.parametrize(
    ("step", "part"),
    [
        ("{action: appendd, value: x}", "action 'appendd' is not one of meta, open, append"),
        (
            "{action: append, key: slot, value: piece.txt, field: text}",
            "segment 'piece.txt' is not a member (the object has: text) (schema at demo/asyncapi.yaml:",
        ),
        ("{action: append, key: 'slot[*]', value: piece.text, field: text}", "segment 'slot[*]' is not an array"),
        ("{action: append, value: 'piece[x]', field: text}", "'[x]' is not `[*]`"),
        ("{action: append, key: slot, value: piece.text, field: 'two words'}", "field 'two words' is not a name"),
        ("{action: usage, value: piece, mode: sum}", "mode 'sum'"),
        ("{action: append, value: piece.text, field: text, when: {colour: red}}", "when 'colour'"),
        ("{action: open, key: slot, value: piece, members: {colour: text}}", "members: 'colour' is not one of"),
        ("{action: usage}", "action 'usage' needs a `value` path or `members`"),
        ("{action: usage, members: [slot, piece.txt]}", "members 'txt': 'piece.txt' (read from the payload): segment"),
        ("{action: usage, members: {count: 'piece[*]'}}", "members 'count': 'piece[*]' reads every element"),
        ("{action: append, value: piece.text, field: text, members: [slot]}", "only `open`, `tool_call` and `usage`"),
        # Every step kept compiles: the types an action reads, the kind of plan it is for.
        ("{action: append, key: piece.text, value: piece.text, field: text}", "key 'piece.text' is string, not an int"),
        ("{action: stop, value: slot}", "value 'slot' is integer; `stop` reads a string"),
        ("{action: tool_calls, key: slot, value: piece}", "action 'tool_calls' is for a `result: choices` plan"),
        ("{action: done, when: {'piece[*]': 1}}", "when 'piece[*]': 'piece[*]' reads every element ([*])"),
        ("{action: meta, value: piece.text, extra: 'piece[*]'}", "extra: 'piece[*]' reads every element"),
    ],
)
def test_a_wrong_step_names_the_part_that_is_wrong(tmp_path: Path, step: str, part: str) -> None:
    from normalize.test_accumulation_plan import _channel

    spec = f"""\
asyncapi: 2.6.0
info: {{title: Custom, version: '1'}}
channels:
  /stream:
    x-ssegen-accumulate:
      token:
        - {step}
    subscribe:
      message:
        name: token
        payload:
          type: object
          properties:
            slot: {{type: integer}}
            piece: {{type: object, properties: {{text: {{type: string}}}}}}
"""
    _, diagnostics = _channel(tmp_path, spec)
    [warning] = [d for d in diagnostics if d.startswith("accumulate-invalid")]
    assert part in warning, warning
    assert "/channels/~1stream/x-ssegen-accumulate/token/0" in _pointers(tmp_path)


def _pointers(tmp_path: Path) -> str:
    from ssegen.load import load_provider

    result = load_provider(tmp_path / "specs", "demo")
    return " ".join(f"{d.file}:{d.line}{d.pointer}" for d in result.diagnostics if d.code == "accumulate-invalid")


def test_one_resolver_walks_array_elements_and_names_where_a_path_stops() -> None:
    from ssegen.ir import Property, Provenance, Schema

    at = Provenance("t.yaml")
    string = Schema(type="string", provenance=at)
    part = Schema(type="object", properties=(Property("text", string, False, "", at),), provenance=at)
    root = Schema(
        type="object",
        properties=(Property("parts", Schema(type="array", items=part, provenance=at), False, "", at),),
        provenance=at,
    )
    assert resolve_path(root, ("parts", EACH, "text")).schema == string
    missing = resolve_path(root, ("parts", EACH, "txt"))
    assert (missing.schema, missing.failed) == (None, 2)
    assert format_path(("parts", EACH, "text")) == "parts[*].text"
    step = AccumulateStep("append", key=("parts", EACH, "i"), value=("parts", EACH, "text"), field="text")
    assert step.to_plan() == {"action": "append", "key": "parts[*].i", "value": "parts[*].text", "field": "text"}


def test_generated_gemini_assembles_every_capture_without_a_plan() -> None:
    """``specs/gemini`` states no plan: the built-in family assembles the real captures."""
    from generated.gemini import CHANNELS

    channel = next(iter(CHANNELS.values()))
    assert channel.family == "gemini"
    for path in _captures():
        body = path.read_bytes()
        _check(channel.accumulate(channel.decode([body[i : i + 4096] for i in range(0, len(body), 4096)])), body)


def test_a_keyed_stop_sets_the_block_status_and_an_unkeyed_one_the_stream_stop_reason(tmp_path: Path) -> None:
    spec = """\
asyncapi: 2.6.0
info: {title: Custom, version: '1'}
channels:
  /stream:
    x-ssegen-accumulate:
      token:
        - {action: append, key: slot, value: piece.text, field: text}
        - {action: stop, key: slot, value: piece.state}
        - {action: stop, value: why}
    subscribe:
      message:
        name: token
        payload:
          type: object
          properties:
            slot: {type: integer}
            why: {type: string}
            piece: {type: object, properties: {text: {type: string}, state: {type: string}}}
"""
    body = b'data: {"slot": 2, "piece": {"text": "hi", "state": "done"}, "why": "end"}\n\n'
    with generated_package(tmp_path, {"asyncapi.yaml": spec}) as (package, _):
        channel = next(iter(package.CHANNELS.values()))
        result = channel.accumulate(channel.decode([body]))
    [block] = result.output
    assert (block.index, block.text, block.status, result.stop_reason) == (2, "hi", "done", "end")

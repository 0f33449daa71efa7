"""Bad input never gives a traceback nor reaches the terminal raw (issue 25)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS

from ssegen.cli import main
from ssegen.diagnostics import Diagnostics, codes, escape_controls, to_json


@pytest.fixture(autouse=True)
def _outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _past_the_recursion_limit() -> int:
    """3000, or more when the limit was raised (hypothesis runs may leave it at 16384)."""
    return max(3000, sys.getrecursionlimit() + 1000)


def test_diagnostics_escape_terminal_controls_so_no_line_can_be_forged() -> None:
    hostile = "name\x1b[2K\r\x07demo/x.yaml:1: /: error[fake]: forged\u202e"
    diag = Diagnostics().add(codes.NAME_CONFLICT, f"member {hostile!s}", file="demo/a.yaml", line=3, pointer="/p")
    text = diag.format()
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b[2K\\r\\x07demo/x.yaml" in text and "\\u202e" in text and "\n" not in text
    assert escape_controls("plain text") == "plain text" and escape_controls("a\nb") == "a\\nb"
    raw = to_json([diag])
    assert "\u202e" not in raw and json.loads(raw)[0]["message"] == f"member {hostile}"


def test_a_property_name_with_escape_sequences_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    (tmp_path / "specs" / "demo").mkdir(parents=True)
    spec = (ROOT / "tests" / "specs_with_errors" / "ref-missing-file" / "demo" / "asyncapi.yaml").read_text()
    spec = spec.replace("            other:\n              $ref: 'schemas/nope.yaml#/Usage'\n", "")
    spec = spec.replace(
        "            id:\n", '            "bad\\e[31m\\a\\r\\nname\\"":\n              type: string\n            id:\n'
    )
    (tmp_path / "specs" / "demo" / "asyncapi.yaml").write_text(spec, encoding="utf-8")
    run = CliRunner().invoke(main, ["generate", "--specs", "specs", "--out", "out", "-v"])
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    assert "\x1b" not in run.output and "\x07" not in run.output and "\r" not in run.output
    assert "\\x1b[31m\\x07\\r\\nname" in run.output


def test_conform_with_a_file_for_the_provider_is_a_usage_error() -> None:
    capture = ROOT / "generated" / "deepseek" / "examples" / "stream-example.sse"
    run = CliRunner().invoke(
        main, ["conform", "--out", str(ROOT / "generated"), "deepseek.sse", "/chat/completions", str(capture)]
    )
    assert run.exit_code == 2 and (run.exception is None or isinstance(run.exception, SystemExit)), run.exception
    assert "'deepseek.sse' is not a provider name" in run.output and "Traceback" not in run.output


def test_conform_reports_json_nested_too_deep_as_a_violation(tmp_path: Path) -> None:
    capture = tmp_path / "deep.sse"
    depth = _past_the_recursion_limit()
    capture.write_bytes(b"data: " + b"[" * depth + b"]" * depth + b"\n\ndata: [DONE]\n\n")
    run = CliRunner().invoke(
        main, ["conform", "--out", str(ROOT / "generated"), "deepseek", "/chat/completions", str(capture)]
    )
    assert run.exit_code == 1 and (run.exception is None or isinstance(run.exception, SystemExit)), run.exception
    assert "event 1 /: cannot decode: JSON nested too deep" in run.output


def test_a_markdown_example_nested_3000_deep_is_an_error_naming_the_file(tmp_path: Path) -> None:
    shutil.copytree(SPECS / "xerotier", tmp_path / "specs" / "xerotier")
    page = tmp_path / "specs" / "xerotier" / "streaming-api.md"
    depth = _past_the_recursion_limit()
    deep = '{"a":' * depth + "1" + "}" * depth
    page.write_text(page.read_text(encoding="utf-8") + f"\n\n## Deep\n\n```\ndata: {deep}\n\n```\n", encoding="utf-8")
    run = CliRunner().invoke(main, ["generate", "--specs", "specs", "--out", "out", "--format", "json"])
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    assert run.exit_code == 1
    found = [(d["code"], d["file"]) for d in json.loads(run.stdout)]
    assert ("source-too-deep", "xerotier/streaming-api.md") in found


#: What a hostile capture puts where conform prints it: a window title, an erased line, a carriage
#: return, C1 CSI (U+009B) and a bidirectional override (U+202E).
HOSTILE = "\x1b]0;pwned\x07\x1b[2K\r\x9b31m\u202e"
RAW = {"\x1b", "\x07", "\r", "\x9b", "\u202e"}


def _conform_output(tmp_path: Path, provider: str, channel: str, body: str, *flags: str) -> str:
    capture = tmp_path / "capture.sse"
    capture.write_text(body, encoding="utf-8")
    out = str(ROOT / "generated")
    run = CliRunner().invoke(main, ["conform", "--out", out, *flags, provider, channel, str(capture)])
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    return run.output


def _strings(data: object) -> list[str]:
    """Every string in JSON ``data``, keys too."""
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in (k, *_strings(v))]
    if isinstance(data, list):
        return [s for item in data for s in _strings(item)]
    return [data] if isinstance(data, str) else []


def test_conform_prints_a_captures_control_characters_escaped(tmp_path: Path) -> None:
    """Finish reason, tool call id, name and arguments (chat); block id and error text
    (Messages): each reaches the terminal escaped, and ``--json`` escapes C1 and bidi too."""
    call = {"index": 0, "id": f"call{HOSTILE}", "type": "function"}
    call["function"] = {"name": f"get{HOSTILE}", "arguments": f'{{"a": "{HOSTILE}"}}'}
    delta = {"role": "assistant", "content": "Hi", "tool_calls": [call]}
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": f"stop{HOSTILE}"}]
    chat = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []}
    message |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    events = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": f"tu{HOSTILE}"}},
        {"type": "error", "error": {"type": "overloaded_error", "message": f"busy{HOSTILE}"}},
    ]
    messages = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    for provider, channel, body in (("mistral", "/chat/completions", chat), ("anthropic", "/v1/messages", messages)):
        text = _conform_output(tmp_path, provider, channel, body)
        assert not set(text) & RAW, [line for line in text.splitlines() if set(line) & RAW]
        assert "\\x1b]0;pwned\\x07\\x1b[2K\\r\\x9b31m\\u202e" in text
        raw_json = _conform_output(tmp_path, provider, channel, body, "--json")
        assert not set(raw_json) & RAW and HOSTILE in "".join(_strings(json.loads(raw_json)))
    assert "stop\\x1b]0" in _conform_output(tmp_path, "mistral", "/chat/completions", chat)


def test_sarif_escapes_controls_and_percent_encodes_file_names(tmp_path: Path) -> None:
    from ssegen.diagnostics.report import render

    diag = Diagnostics().add(codes.NAME_CONFLICT, f"member {HOSTILE}", file="demo/a#b%41 c.yaml", line=3)
    text = render([diag], "sarif", tmp_path / "specs")
    assert not set(text) & RAW
    result = json.loads(text)["runs"][0]["results"][0]
    assert result["message"]["text"] == f"member {HOSTILE}"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "specs/demo/a%23b%2541%20c.yaml"
    outside = render([diag], "sarif", Path("/elsewhere/specs"))
    uri = json.loads(outside)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "file:///elsewhere/specs/demo/a%23b%2541%20c.yaml"


def test_a_lone_surrogate_in_a_spec_is_an_error_naming_its_line(tmp_path: Path) -> None:
    """``"\\ud800"`` in a YAML string is no character (before: a UnicodeEncodeError traceback);
    an escaped pair is the character it stands for."""
    shutil.copytree(SPECS / "mistral", tmp_path / "specs" / "mistral")
    spec = tmp_path / "specs" / "mistral" / "asyncapi-page.txt"
    text = spec.read_text(encoding="utf-8")
    described = "description: The model that produced the chunk."
    assert text.count(described) == 1
    line = text[: text.index(described)].count("\n") + 1
    spec.write_text(text.replace(described, 'description: "The model \\ud83d\\ude00 that \\ud800 made it."'), "utf-8")
    run = CliRunner().invoke(main, ["generate", "--specs", "specs", "--out", "out"])
    assert run.exit_code == 1 and (run.exception is None or isinstance(run.exception, SystemExit)), run.exception
    assert f"asyncapi-page.txt:{line}: /: error[yaml-syntax]: YAML value error: \\ud800 is half of" in run.output
    spec.write_text(text.replace(described, 'description: "The model \\ud83d\\ude00 that made it."'), "utf-8")
    run = CliRunner().invoke(main, ["generate", "--specs", "specs", "--out", "out"])
    assert run.exit_code == 0, run.output
    assert "The model \U0001f600 that made it." in (tmp_path / "out" / "mistral" / "models.py").read_text("utf-8")

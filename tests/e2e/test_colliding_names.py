"""Two messages or channels that map to one Python name each keep their own decoder (issue 25)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT
from mypy import api as mypy_api

from ssegen.cli import main

CORPUS = ROOT / "tests" / "specs_with_errors"


@pytest.fixture(autouse=True)
def _outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # run as a user would, outside ssegen's own [tool.ssegen] (strict)


PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from out.demo import CHANNELS
body = sys.argv[2].encode()
print(json.dumps({a: [type(e).__name__ for e in CHANNELS[a].decode([body])] for a in sorted(CHANNELS)}))
"""


def _generate(case: str, tmp_path: Path) -> Path:
    run = CliRunner().invoke(main, ["generate", "--specs", str(CORPUS / case), "--out", str(tmp_path / "out")])
    assert run.exit_code == 0, run.output
    return tmp_path


def _decode(root: Path, body: str) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), body],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_messages_delta_event_and_DeltaEvent_each_decode_as_their_own_class(tmp_path: Path) -> None:
    root = _generate("message-names-collide", tmp_path)
    body = 'event: delta\ndata: {"text":"x"}\n\nevent: other\ndata: {"n":1}\n\n'
    assert _decode(root, body) == {"/chat": ["DeltaEvent", "PayloadDeltaEvent"]}


def test_channels_v1_chat_and_v1_dash_chat_each_decode_their_messages_and_pass_mypy(tmp_path: Path) -> None:
    root = _generate("channel-addresses-collide", tmp_path)
    body = 'data: {"text":"x"}\n\ndata: {"n":1}\n\n'
    assert _decode(root, body) == {"/v1-chat": ["UnknownEvent", "B"], "/v1/chat": ["A", "UnknownEvent"]}
    stdout, stderr, status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir", os.devnull, str(root / "out")]
    )
    assert status == 0, stdout + stderr


def test_ir_shows_the_disambiguated_channel_names(tmp_path: Path) -> None:
    run = CliRunner().invoke(main, ["ir", "--specs", str(CORPUS / "channel-addresses-collide"), "demo"])
    assert run.exit_code == 0
    assert "'/v1/chat' is generated as 'v1_chat_" in run.stderr
    assert "'/v1-chat' is generated as 'v1_chat_" in run.stderr


def test_an_event_name_with_crlf_is_an_error_naming_the_message(tmp_path: Path) -> None:
    run = CliRunner().invoke(
        main, ["generate", "--specs", str(CORPUS / "inject-sse-event-crlf"), "--out", str(tmp_path / "out")]
    )
    assert run.exit_code == 1
    assert "error[wire-value-invalid]: message 'A' travels as SSE event type 'oops\\r\\ndata: injected'" in run.output
    assert not (tmp_path / "out").exists()

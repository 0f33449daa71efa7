"""A whitespace-only literal payload (Gitter's ``"\\r\\n"`` heartbeat) is a keep-alive:
decoded to its own class, it neither ends the stream nor is an unknown event."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from click.testing import CliRunner

from codemodel.build_ir import channel, done, message, obj, req, string
from ssegen.cli import main
from ssegen.codemodel.channels import channel_spec
from ssegen.codemodel.models import ModelsBuilder
from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider

GITTER = r"""asyncapi: 2.6.0
info: {title: Gitter Streaming, version: '1'}
channels:
  /rooms/{roomId}/chatMessages:
    subscribe:
      operationId: streamMessages
      message:
        oneOf:
          - name: chatMessage
            payload: {type: object, properties: {text: {type: string}}, required: [text]}
          - name: heartbeat
            summary: Its purpose is to keep the connection alive.
            payload: {type: string, enum: ["\r\n"]}
            examples:
              - payload: "\r\n"
"""


def _load(tmp_path: Path) -> Path:
    folder = tmp_path / "specs" / "gitter"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(GITTER, encoding="utf-8")
    return tmp_path / "specs"


def test_whitespace_literal_is_a_keepalive_not_a_terminator(tmp_path: Path) -> None:
    result = load_provider(_load(tmp_path), "gitter")
    assert result.provider is not None
    [chan] = result.provider.channels
    assert [(m.name, m.kind) for m in chan.messages] == [("ChatMessage", "data"), ("Heartbeat", "keepalive")]
    [info] = [d for d in result.diagnostics if d.code == "literal-keepalive"]
    assert info.severity.value == "info" and "'\\r\\n'" in info.message
    assert not [d for d in result.diagnostics if d.code == "literal-payload"]


def test_keepalive_literal_has_no_accumulator_handler_but_a_terminator_does() -> None:
    heartbeat = message("Heartbeat", string("\r\n", name="Heartbeat"), kind="keepalive")
    chunk = message("Chunk", obj("Chunk", req("text", string())))
    diagnostics = Diagnostics()
    spec = channel_spec(channel(chunk, heartbeat, done()), ModelsBuilder(diagnostics), diagnostics)
    literals = {m.name: (m.literal, m.run) for m in spec.messages if m.literal is not None}
    assert literals == {"Heartbeat": ("\r\n", ""), "Done": ("[DONE]", "each(on_done)")}
    assert "Heartbeat" not in dict(spec.runs)


def test_keepalive_heartbeat_neither_completes_the_stream_nor_is_unknown(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    specs = _load(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = "keepalive_out"
    result = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", out, "-q", "gitter"])
    assert result.exit_code == 0, result.output
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        package = importlib.import_module(f"{out}.gitter")
        chat = package.CHANNELS["/rooms/{roomId}/chatMessages"]
        beat = chat.parse("\r\n")
        assert type(beat).__name__ == "Heartbeat"
        events = [chat.parse('{"text": "hi"}'), beat, chat.parse('{"text": "there"}'), beat]
        streamed = chat.accumulate(events)
        assert streamed.complete is False and streamed.errors == []
    finally:
        for name in [n for n in sys.modules if n == out or n.startswith(out + ".")]:
            del sys.modules[name]

"""Non-SSE protocols: one ``protocol-not-sse`` warning per server and binding, and a
package docstring that says what the package is (models + a JSON-payload classifier)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ssegen.cli import main
from ssegen.codemodel import build_package_spec
from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider

KAFKA = """asyncapi: 2.6.0
info: {title: Lights, version: '1'}
servers:
  broker: {url: 'broker.example:9092', protocol: kafka}
  web: {url: 'https://example.com', protocol: https}
channels:
  lights:
    bindings:
      kafka: {topic: lights}
    subscribe:
      operationId: lightMeasured
      bindings:
        kafka: {clientId: {type: string}}
        http: {type: request}
      message:
        name: Measured
        payload: {type: object, properties: {lumens: {type: integer, maximum: 100}}, required: [lumens]}
"""


def _specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs" / "lights"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(KAFKA, encoding="utf-8")
    return tmp_path / "specs"


def test_protocol_not_sse_warns_once_per_server_and_binding(tmp_path: Path) -> None:
    result = load_provider(_specs(tmp_path), "lights")
    warned = [(d.severity.value, d.pointer) for d in result.diagnostics if d.code == "protocol-not-sse"]
    assert warned == [
        ("warning", "/servers/broker"),
        ("warning", "/channels/lights/bindings/kafka"),
        ("warning", "/channels/lights/subscribe/bindings/kafka"),
    ]
    assert result.provider is not None and result.provider.protocols == ("kafka",)


def test_protocol_not_sse_package_docstring_says_models_and_classifier(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    specs = _specs(tmp_path)
    provider = load_provider(specs, "lights").provider
    assert provider is not None
    spec = build_package_spec(provider, Diagnostics())
    assert spec.summary.startswith("Models and a JSON-payload classifier for the Lights API")
    assert "kafka" in spec.summary
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", "out", "-q", "lights"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "lights" / "__init__.py").read_text(encoding="utf-8")
    assert "Typed SSE decoding" not in text and "JSON-payload classifier" in text
    assert "chan.parse(payload)" in text and "iter_bytes" not in text


def test_sse_provider_keeps_the_sse_docstring(tmp_path: Path) -> None:
    specs = _specs(tmp_path)
    doc = specs / "lights" / "asyncapi.yaml"
    text = doc.read_text(encoding="utf-8").replace("protocol: kafka", "protocol: https")
    doc.write_text(
        text.replace("      kafka: {topic: lights}\n", "").replace("        kafka: {clientId: {type: string}}\n", "")
    )
    result = load_provider(specs, "lights")
    assert result.provider is not None and result.provider.protocols == ()
    assert not [d for d in result.diagnostics if d.code == "protocol-not-sse"]
    spec = build_package_spec(result.provider, Diagnostics())
    assert spec.summary == "Typed SSE decoding for the Lights streaming API."

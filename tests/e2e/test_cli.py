"""The click CLI: generate, check, ir, conform."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS

import ssegen.pipeline
from ssegen.cli import main


@pytest.fixture(autouse=True)
def outside_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as a user would, from a folder without ssegen's own ``[tool.ssegen]`` (strict, reviewed codes)."""
    monkeypatch.chdir(tmp_path)


def _copy_specs(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    shutil.copytree(SPECS / "deepseek", specs / "deepseek")
    shutil.copytree(SPECS / "mistral", specs / "mistral")
    return specs


def test_generate_prints_a_summary_per_provider(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    out = tmp_path / "generated"
    result = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "deepseek: 2 channels, 4 messages" in result.output
    assert "mistral: 3 channels, 7 messages" in result.output
    assert (out / "deepseek" / "models.py").is_file() and (out / "__init__.py").is_file()


def test_check_passes_then_fails_after_a_spec_edit_and_names_stale_files(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    out = tmp_path / "generated"
    runner = CliRunner()
    assert runner.invoke(main, ["generate", "--specs", str(specs), "--out", str(out), "-q"]).exit_code == 0
    ok = runner.invoke(main, ["check", "--specs", str(specs), "--out", str(out)])
    assert ok.exit_code == 0 and "up to date" in ok.output
    page = specs / "mistral" / "asyncapi-page.txt"
    page.write_text(
        page.read_text(encoding="utf-8").replace("Number of tokens in the prompt.", "Prompt tokens."), encoding="utf-8"
    )
    stale = runner.invoke(main, ["check", "--specs", str(specs), "--out", str(out)])
    assert stale.exit_code == 1
    assert "stale: " in stale.output and "mistral/models.py" in stale.output and "deepseek" not in stale.output


def test_generate_diagnostics_as_json(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    result = CliRunner().invoke(
        main, ["generate", "--specs", str(specs), "--out", str(tmp_path / "g"), "--format", "json"]
    )
    assert result.exit_code == 0
    diags = json.loads(result.stdout)
    email = [d for d in diags if d["code"] == "info-field-type"]
    assert email == [
        {
            "code": "info-field-type",
            "severity": "info",
            "message": email[0]["message"],
            "file": "mistral/asyncapi-page.txt",
            "line": 79,
            "pointer": "/info/contact/email",
        }
    ]


def test_strict_turns_warnings_into_errors(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    args = ["generate", "--specs", str(specs), "--out", str(tmp_path / "g"), "--strict"]
    result = CliRunner().invoke(main, [*args, "deepseek"])  # DeepSeek's docs example contradicts its schema
    assert result.exit_code == 1
    assert "deepseek/: /: error[strict]: warnings are errors under --strict; nothing generated" in result.output
    assert "warning[example-widened]" in result.output
    assert "deepseek: FAILED (1 error, 1 warning, 54 infos not shown (-v)); nothing generated" in result.output
    assert not (tmp_path / "g").exists(), "a failed first run creates no output folder"
    assert CliRunner().invoke(main, [*args, "mistral"]).exit_code == 0  # standard nullable spellings are infos


def test_default_output_is_warnings_errors_and_one_line_per_provider(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    result = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(tmp_path / "g")])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line for line in lines if "info[" in line] == []
    assert len([line for line in lines if "warning[" in line]) == 1  # DeepSeek's example-widened
    assert "mistral: 3 channels, 7 messages, 12 classes, 12 infos not shown (-v); 8 of 8 files written" in result.output
    verbose = CliRunner().invoke(main, ["generate", "-v", "--specs", str(specs), "--out", str(tmp_path / "g")])
    assert sum("info[" in line for line in verbose.output.splitlines()) == 54 + 12
    errors_only = CliRunner().invoke(
        main, ["generate", "--min-severity", "error", "--specs", str(specs), "--out", str(tmp_path / "g")]
    )
    assert "warning[" not in errors_only.output and "1 warning and 54 infos not shown (-v)" in errors_only.output
    quiet = CliRunner().invoke(main, ["generate", "-q", "--specs", str(specs), "--out", str(tmp_path / "q")])
    assert quiet.output.count("warning[") == 1 and "channels" not in quiet.output


def test_generate_with_nothing_changed_says_up_to_date_and_builds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A no-op generate answers from the manifest's hashes as `check` does."""
    specs = _copy_specs(tmp_path)
    out = tmp_path / "g"
    args = ["generate", "--specs", str(specs), "--out", str(out)]
    assert CliRunner().invoke(main, args).exit_code == 0
    manifest = (out / "ssegen-manifest.json").stat().st_mtime_ns

    def no_build(*_: object, **__: object) -> None:
        raise AssertionError("a no-op generate must not build")

    with monkeypatch.context() as patched:
        patched.setattr(ssegen.pipeline, "build", no_build)
        again = CliRunner().invoke(main, args)
        assert again.exit_code == 0, again.output
        assert again.output.startswith(f"{out}/ is up to date (2 providers, inputs unchanged; nothing written, ")
        assert "warning[" not in again.output and (out / "ssegen-manifest.json").stat().st_mtime_ns == manifest
        assert CliRunner().invoke(main, [*args, "-q"]).output == ""
    # Asking for the diagnostics builds (and prints them); an edit of a generated file builds too.
    assert "warning[example-widened]" in CliRunner().invoke(main, [*args, "--min-severity", "warning"]).output
    models = out / "mistral" / "models.py"
    models.write_text(models.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    edited = CliRunner().invoke(main, args)
    assert edited.exit_code == 1 and "NOT overwritten (edited by hand; use --force)" in edited.output


def test_ignore_and_severity_in_the_config_review_codes(tmp_path: Path) -> None:
    _copy_specs(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.ssegen]\nstrict = true\nignore = ["docs-unmatched"]\nseverity = { example-widened = "info" }\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["generate", "-v", "deepseek"])
    assert result.exit_code == 0, result.output
    assert "info[example-widened]" in result.output and "docs-unmatched" not in result.output
    pyproject.write_text('[tool.ssegen]\nignore = ["provider-empty"]\n', encoding="utf-8")
    refused = CliRunner().invoke(main, ["generate"])
    assert refused.exit_code == 1 and "'provider-empty' is an error" in refused.output
    pyproject.write_text('[tool.ssegen]\nignore = ["no-such-code"]\n', encoding="utf-8")
    unknown = CliRunner().invoke(main, ["check"])
    assert unknown.exit_code == 1 and "unknown diagnostic code 'no-such-code'" in unknown.output


def test_generate_and_check_say_what_is_missing(tmp_path: Path) -> None:
    no_specs = CliRunner().invoke(main, ["generate", "--specs", str(tmp_path / "nowhere")])
    assert no_specs.exit_code == 1 and "no specs folder" in no_specs.output
    specs = _copy_specs(tmp_path)
    out = tmp_path / "g"
    assert CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(out)]).exit_code == 0
    missing = CliRunner().invoke(main, ["check", "--specs", str(specs), "--out", str(out), "openai"])
    assert missing.exit_code == 1
    assert "no provider folder 'openai'" in missing.output and "differ" not in missing.output


def test_check_diff_shows_what_is_stale(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    out = tmp_path / "g"
    assert CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(out)]).exit_code == 0
    page = specs / "mistral" / "asyncapi-page.txt"
    page.write_text(page.read_text(encoding="utf-8").replace("Number of tokens in the prompt.", "Prompt tokens."))
    result = CliRunner().invoke(main, ["check", "--diff", "--specs", str(specs), "--out", str(out)])
    assert result.exit_code == 1
    assert "+    prompt_tokens: int" not in result.output  # only what changed
    assert any(line.startswith("+") and "Prompt tokens." in line for line in result.output.splitlines())
    assert any(
        line.startswith("-") and "Number of tokens in the prompt." in line for line in result.output.splitlines()
    )


def test_ir_prints_stable_json(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["ir", "--specs", str(SPECS), "mistral"])
    second = runner.invoke(main, ["ir", "--specs", str(SPECS), "mistral"])
    assert first.exit_code == 0 and first.stdout == second.stdout
    ir = json.loads(first.stdout)
    assert [c["address"] for c in ir["channels"]] == ["/agents/completions", "/chat/completions", "/fim/completions"]
    usage_chunk = ir["channels"][1]["messages"][1]
    assert usage_chunk["name"] == "ChatCompletionUsageChunk"
    assert (
        "    ChatCompletionUsageChunk:"
        == (SPECS / "mistral" / "asyncapi-page.txt").read_text(encoding="utf-8").splitlines()[258]
    )
    assert usage_chunk["provenance"] == {
        "file": "mistral/asyncapi-page.txt",
        "line": 259,
        "pointer": "/components/messages/ChatCompletionUsageChunk",
    }


def test_broken_provider_fails_alone(tmp_path: Path) -> None:
    specs = _copy_specs(tmp_path)
    (specs / "broken").mkdir()
    (specs / "broken" / "spec.yaml").write_text("asyncapi: '2.6.0'\nchannels: {\n", encoding="utf-8")
    out = tmp_path / "g"
    result = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(out)])
    assert result.exit_code == 1
    assert "broken/spec.yaml:" in result.output and "yaml-syntax" in result.output
    assert (out / "mistral" / "models.py").is_file() and not (out / "broken").exists()


def test_conform_reports_violations_with_event_number_and_pointer(tmp_path: Path, deepseek_docs_stream: bytes) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(deepseek_docs_stream.replace(b'"finish_reason": "stop"', b'"finish_reason": "cut_short"'))
    result = CliRunner().invoke(main, ["conform", "deepseek", "/chat/completions", str(capture), "--json"])
    assert result.exit_code == 1  # decoding is lenient; the strict check is not
    report = json.loads(result.stdout)
    assert report["events"] == 12 and report["provider"] == "deepseek"
    assert [(v["event"], v["message"], v["pointer"]) for v in report["violations"]] == [
        (11, "ChatCompletionChunk", "/choices/0/finish_reason")
    ]
    assert report["final"]["choices"][0]["finish_reason"] == "cut_short"


def test_conform_passes_the_deepseek_docs_stream_after_reconciliation(
    tmp_path: Path, deepseek_docs_stream: bytes
) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(deepseek_docs_stream)
    result = CliRunner().invoke(main, ["conform", "deepseek", "/chat/completions", str(capture), "--json"])
    assert result.exit_code == 0, result.stdout  # `"role": null` was admitted with an example-widened diagnostic
    report = json.loads(result.stdout)
    assert report["events"] == 12 and report["violations"] == []
    final = report["final"]
    assert final["choices"][0]["content"] == "Hello! How can I assist you today?"
    assert sorted(final) == ["choices", "complete", "errors", "id", "model", "usage", "vendor_events"]
    assert sorted(final["choices"][0]) == [
        "content",
        "content_parts",
        "finish_reason",
        "index",
        "reasoning_content",
        "refusal",
        "tool_calls",
    ]


def test_conform_passes_a_conforming_stream(tmp_path: Path) -> None:
    capture = tmp_path / "ok.sse"
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}],
    }
    capture.write_text(f"data: {json.dumps(chunk)}\n\n: keep-alive\n\ndata: [DONE]\n\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["conform", "mistral", "/chat/completions", str(capture)])
    assert result.exit_code == 0, result.output
    assert "2 events, 0 violations, complete=True" in result.output


def test_conform_json_prints_the_output_blocks_of_a_messages_stream() -> None:
    """``ssegen conform --json`` of an Anthropic Messages stream (issue 13): the final result
    has the assembled content blocks and stop reason, and no chat ``choices``."""
    capture = ROOT / "tests" / "data" / "streams" / "anthropic" / "sdk_tool_use.sse"
    result = CliRunner().invoke(main, ["conform", "anthropic", "/v1/messages", str(capture), "--json"])
    assert result.exit_code == 0, result.output
    final = json.loads(result.stdout)["final"]
    assert "choices" not in final and final["stop_reason"] == "tool_use" and final["complete"] is True
    assert [(b["kind"], b["name"], b["input"]) for b in final["output"]] == [
        ("text", None, None),
        ("tool_use", "get_weather", {"location": "Paris"}),
    ]


def test_an_openapi_source_is_an_input_like_any_other(tmp_path: Path) -> None:
    """``ssegen ir``, ``generate``, ``check`` and the manifest treat an OpenAPI document as
    they treat AsyncAPI ones (issue 15): its hash is an input, an edit makes the output stale."""
    document = ROOT / "tests" / "sources" / "openapi" / "data" / "events32" / "openapi.yaml"
    specs = tmp_path / "specs"
    (specs / "events").mkdir(parents=True)
    shutil.copy(document, specs / "events" / "openapi.yaml")
    out = tmp_path / "generated"
    runner = CliRunner()
    ir = runner.invoke(main, ["ir", "--specs", str(specs), "events"])
    assert ir.exit_code == 0 and '"address":' in ir.stdout
    assert runner.invoke(main, ["generate", "--specs", str(specs), "--out", str(out), "-q"]).exit_code == 0
    manifest = json.loads((out / "ssegen-manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["providers"]["events"]["inputs"]) == ["events/openapi.yaml"]
    assert runner.invoke(main, ["check", "--specs", str(specs), "--out", str(out)]).exit_code == 0
    path = specs / "events" / "openapi.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("title:", "title: Renamed", 1), encoding="utf-8")
    stale = runner.invoke(main, ["check", "--specs", str(specs), "--out", str(out)])
    assert stale.exit_code == 1 and "events/" in stale.output

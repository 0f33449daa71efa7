"""Providers' own published OpenAPI documents (``../shared/corpus/openapi/``) as sources.

OpenAI's ``openapi.yaml`` (openai/openai-openapi, OpenAPI 3.1, about 3 MB) and Mistral's
(mistralai/platform-docs-public) are third-party documents: they are read from ``../shared``
(``MANIFEST.json`` names repository, path and commit), copied into a temporary provider folder
at test time, never into the project; the tests skip when ``../shared`` is absent. Speed is
measured, not asserted (``benchmarks/``); the report of the work that added the loader gives
the times.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import shared_path

from ssegen.cli import main
from ssegen.load import load_provider


def _provider(tmp_path: Path, name: str) -> Path:
    """A specs folder whose provider ``name`` holds only the corpus document of that name."""
    document = shared_path("corpus", "openapi", name, "openapi.yaml")
    specs = tmp_path / "specs"
    (specs / name).mkdir(parents=True)
    shutil.copy(document, specs / name / "openapi.yaml")
    return specs


@pytest.mark.parametrize(
    ("name", "address", "chunk", "streams"),
    [
        ("openai", "/chat/completions", "CreateChatCompletionStreamResponse", 7),
        ("mistral", "/v1/chat/completions", "CompletionEvent", 9),
    ],
)
def test_corpus_document_generates_a_package_with_its_chat_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, address: str, chunk: str, streams: int
) -> None:
    monkeypatch.chdir(tmp_path)  # as a user would run it: outside ssegen's own [tool.ssegen] (strict)
    specs = _provider(tmp_path, name)
    loaded = load_provider(specs, name)
    assert loaded.provider is not None and not loaded.diagnostics.has_errors
    (found,) = [d.message for d in loaded.diagnostics if d.code == "openapi-streams-found"]
    assert found.startswith(f"{streams} of ")
    channel = loaded.provider.channel(address)
    assert channel is not None
    message = channel.message(chunk)
    assert message is not None and message.kind == "data"
    assert message.payload.property("choices") is not None

    out = tmp_path / "out"
    run = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", str(out), "-q", name])
    assert run.exit_code == 0, run.output
    channels = (out / name / "channels.py").read_text(encoding="utf-8")
    assert f'"{address}"' in channels
    assert (out / name / "models.py").is_file()


def test_openai_chat_stream_ends_with_done_as_its_request_documents(tmp_path: Path) -> None:
    """OpenAI states `data: [DONE]` only on the request (`stream_options.include_usage`): the
    channel gets its terminator, so captured DeepSeek-shaped streams assemble as complete."""
    loaded = load_provider(_provider(tmp_path, "openai"), "openai")
    assert loaded.provider is not None
    channel = loaded.provider.channel("/chat/completions")
    assert channel is not None
    done = channel.message("StreamDone")
    assert done is not None and done.kind == "terminator" and done.payload.enum == ("[DONE]",)
    (place,) = [
        d.pointer for d in loaded.diagnostics if d.code == "openapi-terminator-described" and "Chat" in d.pointer
    ]
    assert place.endswith("/properties/include_usage/description")


def test_openai_package_assembles_every_captured_stream_like_the_openai_sdk(tmp_path: Path) -> None:
    """The package generated from OpenAI's own document assembles each of the 28 captured
    DeepSeek-shaped streams of ``../shared/corpus/streams/`` as the openai SDK does: texts
    (``reasoning_content`` too, which OpenAI's spec lacks and DeepSeek-shaped servers send),
    usage on every member the SDK has, and no unknown event."""
    from helpers.packages import generated_package
    from runtime.test_real_streams import _corpus, _text_differences

    document = shared_path("corpus", "openapi", "openai", "openapi.yaml")
    streams = shared_path("corpus", "streams")
    sources, sdk = _corpus()
    files = {"openapi.yaml": document.read_text(encoding="utf-8")}
    differ = {}
    with generated_package(tmp_path, files, provider="openai") as (package, _):
        channel = package.CHANNELS["/chat/completions"]
        for name in sorted(sources):
            body = (streams / f"{name}.sse").read_bytes()
            ours = channel.accumulate(channel.decode([body[i : i + 4096] for i in range(0, len(body), 4096)]))
            result = ours.to_dict()
            found = _text_differences(sdk[name]["openai_sdk"], result)
            want, got = sdk[name]["openai_sdk"].get("usage"), result.get("usage") or {}
            if want is not None and any(got.get(k) != v for k, v in want.items()):
                found.append(f"usage: sdk {want} ours {got}")
            found += [e["reason"] for e in result["errors"] if e["kind"] == "unknown_event"]
            if found:
                differ[name] = found
    assert differ == {}
    assert len(sources) == 28


def test_mistral_seed_and_openapi_in_one_folder_decode_the_magistral_list_content_streams(tmp_path: Path) -> None:
    """Seed 002 (Mistral's AsyncAPI page, ``delta.content`` a string) with Mistral's OpenAPI
    document beside it (``content`` a string or a list of chunks such as ``ThinkChunk``): the
    OpenAPI ``/v1/chat/completions`` is the seed's ``/chat/completions`` once the servers' base
    paths are put in front, so one channel holds both chunks, and the Magistral streams of
    ``../shared/corpus/streams/`` decode with no chunk lost."""
    from conftest import SPECS
    from helpers.packages import generated_package

    document = shared_path("corpus", "openapi", "mistral", "openapi.yaml")
    streams = shared_path("corpus", "streams")
    files = {
        "asyncapi-page.txt": (SPECS / "mistral" / "asyncapi-page.txt").read_text(encoding="utf-8"),
        "openapi.yaml": document.read_text(encoding="utf-8"),
    }
    with generated_package(tmp_path, files, provider="mistral") as (package, diagnostics):
        merged = [d for d in diagnostics if d.code == "channel-address-merged"]
        chat = next(d for d in merged if "/v1/chat/completions" in d.message)
        assert chat.file == "mistral/openapi.yaml" and "mistral/asyncapi-page.txt:" in chat.message
        assert not [d for d in diagnostics if d.code == "message-conflict" and "StreamDone" in d.message]
        channel = package.CHANNELS["/chat/completions"]
        for name, answer in (("mi_vercel_magistral_reasoning", "2 + 2 = 4"), ("mi_pai_magistral_stream", None)):
            body = (streams / f"{name}.sse").read_bytes()
            events = list(channel.decode([body[i : i + 4096] for i in range(0, len(body), 4096)]))
            assert not [e for e in events if isinstance(e, package.UnknownEvent)], name
            result = channel.accumulate(events)
            [choice] = result.choices
            assert choice.reasoning_content, name
            if answer is not None:
                assert choice.content == answer
            assert result.complete, name


def _assembled(result: object) -> tuple[object, ...]:
    data = result.to_dict()  # type: ignore[attr-defined]
    items = [
        {k: item.get(k) for k in ("kind", "id", "name", "call_id", "text", "thinking", "arguments", "input")}
        for item in data["output"]
    ]
    return items, data["stop_reason"], data["complete"], data["usage"]


def test_responses_from_openais_document_assemble_the_captures_as_our_spec_does(tmp_path: Path) -> None:
    """The package generated from OpenAI's published OpenAPI document (``/responses``) and the one
    from ``specs/openai_responses/`` (``/v1/responses``) assemble every captured Responses stream of
    ``../shared/corpus/families/openai_responses/`` alike: items, stop reason, completion and usage
    as sent (issue 23)."""
    from helpers.packages import generated_package

    from generated.openai_responses import CHANNELS as OURS

    captures = sorted(shared_path("corpus", "families", "openai_responses").glob("*.sse"))
    document = shared_path("corpus", "openapi", "openai", "openapi.yaml").read_text(encoding="utf-8")
    assert captures
    with generated_package(tmp_path, {"openapi.yaml": document}, provider="openai") as (package, _):
        theirs, ours = package.CHANNELS["/responses"], OURS["/v1/responses"]
        for capture in captures:
            body = capture.read_bytes()
            assert _assembled(theirs.accumulate(theirs.decode([body]))) == _assembled(
                ours.accumulate(ours.decode([body]))
            ), capture.name

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

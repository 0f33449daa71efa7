"""Shared paths and helpers for ssegen's tests."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Property tests judge inputs, never time: on a loaded 2-core CI machine input generation and
# single examples run slow, so neither the per-example deadline nor the too-slow health check
# may fail a run (each test still sets its own max_examples).
settings.register_profile("ssegen", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ssegen")

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
GENERATED = ROOT / "generated"
#: The provider packages of ``generated/`` (its ``_runtime/`` folder is none).
GENERATED_PROVIDERS = sorted(p.name for p in GENERATED.iterdir() if (p / "channels.py").is_file())
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"

# The seed documents the project started from (../shared/seeds/NNN_*.txt) are held verbatim under
# specs/; their SHA-256 is recorded here so a fresh clone (which has no ../shared) still proves it.
SEED_SPECS = {
    "000": ("deepseek/asyncapi-page.txt", "a9682a0dc9885155953e341829729a78ff81d40c001ad11bff0886eac45dcdb5"),
    "001": ("deepseek/api-docs.txt", "6b73da1eff42f581c63c78280d3b285ff108e7890b3845e5a5d6a1bf51a852b5"),
    "002": ("mistral/asyncapi-page.txt", "3fbe8735bc10235c2b26dd9c25d401471d71e04b7e786d390fbeef90635f6943"),
    "003": ("xerotier/streaming-api.md", "94369549a878d0b56fdb35bd125d8bfdb3b34861767fe7a485e0e1d2279878ec"),
    "004": ("siliconstorm/inference-api.md", "fdab3b10947d414055f6563858e4e06353cd04791e7904d682e96c6c3e46f2c4"),
}


#: The peers the differential tests compare with, named in pytest's header with their versions.
PEERS = ("openai", "anthropic", "httpx", "msgspec", "pydantic", "black", "hypothesis")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Name the versions of the peers this run compared against (a fresh machine resolves the
    newest allowed), at the end of the run, where ``-q`` still shows it."""
    versions = []
    for name in PEERS:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} absent")
    terminalreporter.write_line("peers: " + ", ".join(versions))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``-n`` (the default run's ``-n auto``) and no other ``--dist``: the tests sharing a
    costly fixture run in one worker (:mod:`helpers.scheduling`), the others as ``--dist load``."""
    if config.getvalue("dist") != "load":
        return None
    from helpers.scheduling import SharedFixtureScheduling

    return SharedFixtureScheduling(config, log)


@pytest.fixture(scope="session")
def openai_sdk() -> ModuleType:
    """The ``openai`` SDK, imported by the first test that asks for it: importing it takes seconds,
    so a run that selects no such test (``-m "not sdk"``, one file) never pays for it."""
    return pytest.importorskip("openai")


@pytest.fixture(scope="session")
def anthropic_sdk() -> ModuleType:
    """The ``anthropic`` SDK, imported by the first test that asks for it (see :func:`openai_sdk`)."""
    return pytest.importorskip("anthropic")


def shared_path(*parts: str) -> Path:
    """A path under ``../shared`` (third-party corpora, the seeds), or skip the test with the reason.

    A user's fresh clone has no ``../shared``; the tests that need it skip instead of failing.
    """
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (third-party data outside the repository; absent in a fresh clone)")
    return path


def sse_body(data_lines: list[str], line_end: str = "\n") -> bytes:
    """An SSE body with one event per data payload."""
    return "".join(f"data: {d}{line_end}{line_end}" for d in data_lines).encode("utf-8")


@pytest.fixture
def deepseek_docs_stream() -> bytes:
    """The DeepSeek docs example stream (specs/deepseek/api-docs.txt:385-396), in wire form."""
    text = (ROOT / "tests" / "data" / "deepseek_docs_stream.sse").read_bytes()
    return text

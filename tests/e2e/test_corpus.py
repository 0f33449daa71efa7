"""``ssegen generate`` on each third-party AsyncAPI document of ``../shared/corpus/asyncapi/``
(asyncapi/spec v2.0/v2.6/v3.0, parser-js, avro-schema-parser; ``MANIFEST.json`` names repo,
path and commit of each): none crashes, a provider that yields nothing says why, every message
the application sends is told apart as the wire does (issue 12), and the generated packages
are real code whose own conformance tests run and pass.

The corpus is third-party data: it is read from ``../shared`` and copied into a temporary
specs folder at test time, never into the project; without ``../shared`` (a fresh clone)
the tests skip with the reason.
"""

from __future__ import annotations

import functools
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from conftest import SHARED, shared_path
from mypy import api as mypy_api

from ssegen.cli import main
from ssegen.config import OutputSettings
from ssegen.instances import full_instance, minimal_instance
from ssegen.ir import Provider
from ssegen.load import load_provider
from ssegen.pipeline import ProviderReport, build, generate

MANIFEST = SHARED / "corpus" / "asyncapi" / "MANIFEST.json"
ENTRIES = sorted(json.loads(MANIFEST.read_text(encoding="utf-8"))) if MANIFEST.exists() else ["corpus-absent"]
#: The import name of the folder every corpus package is generated into.
ROOT_PACKAGE = "corpus_packages"


@pytest.mark.parametrize("entry", ENTRIES)
def test_corpus_document_generates_without_crashing(tmp_path: Path, entry: str) -> None:
    corpus = shared_path("corpus", "asyncapi")
    specs = tmp_path / "specs"
    shutil.copytree(corpus / entry, specs / entry)
    result = CliRunner().invoke(
        main, ["generate", "--specs", str(specs), "--out", str(tmp_path / "out"), "--format", "json", "-q", entry]
    )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 0:
        assert (tmp_path / "out" / entry / "__init__.py").is_file()
        return
    diagnostics = json.loads(result.output[result.output.index("[") :])
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert errors, result.output
    for d in errors:
        if d["code"] == "provider-empty":
            # It names what the document has instead of a stream (e.g. only request operations).
            assert f"{entry}/" in d["message"] and ": " in d["message"].split("describes a stream", 1)[1]


@functools.cache
def _corpus() -> tuple[Path, dict[str, ProviderReport], dict[str, Provider]]:
    """Every corpus document generated into ``<tmp>/corpus_packages`` (on ``sys.path``), once:
    the output folder, the report and the IR of each provider that generates."""
    corpus = shared_path("corpus", "asyncapi")
    parent = Path(tempfile.mkdtemp(prefix="ssegen-corpus-"))
    specs = parent / "specs"
    for entry in ENTRIES:
        shutil.copytree(corpus / entry, specs / entry)
    settings = OutputSettings(ROOT_PACKAGE, "specs", "msgspec")
    reports = [r for r in build(specs, None, settings) if not r.failed]
    generate(specs, parent / ROOT_PACKAGE, reports, settings, all_providers=False)
    sys.path.insert(0, str(parent))
    providers = {r.name: load_provider(specs, r.name).provider for r in reports}
    return parent / ROOT_PACKAGE, {r.name: r for r in reports}, {k: v for k, v in providers.items() if v}


def _package(name: str) -> ModuleType:
    return importlib.import_module(f"{ROOT_PACKAGE}.{name}")


def _indistinguishable(report: ProviderReport) -> set[str]:
    """Messages a ``messages-indistinguishable`` warning names as the one tried second."""
    found = set()
    for d in report.diagnostics:
        if d.code == "messages-indistinguishable":
            found.add(d.message.split(" of one channel", 1)[0].rsplit(" and ", 1)[1])
    return found


def test_every_sent_message_decodes_to_its_own_class_in_both_wire_forms() -> None:
    """Each message the application sends (2.x ``subscribe``, 3.x ``send``): its documented
    examples and its synthesized minimal and full instances, as ``data:`` only and as
    ``event: <name>`` + ``data:``, decode through the generated channel to that message's
    own class. The only exceptions are messages generation warned about
    (``messages-indistinguishable``), and none of those is a documented example."""
    _, reports, providers = _corpus()
    documented = decoded = synthesized = 0
    misread: list[str] = []
    warned: set[str] = set()
    for name, provider in sorted(providers.items()):
        channels = _package(name).CHANNELS
        flagged = _indistinguishable(reports[name])
        for channel in provider.channels:
            decoder = channels[channel.address]
            for message in channel.messages:
                own = decoder.messages.get(message.name)
                if own is None or message.literal is not None:
                    continue  # a payload that is not an object decodes as UnknownEvent (message-not-object)
                samples = [(e.data, True) for e in message.examples]
                instances = (minimal_instance(message.payload), full_instance(message.payload))
                samples += [(json.dumps(i), False) for i in instances]
                for data, is_example in samples:
                    for event in ("message", message.event if message.event != "message" else message.name):
                        documented += is_example
                        synthesized += not is_example
                        got = decoder.parse(data, event=event)
                        if type(got) is own:
                            decoded += 1
                        elif message.name in flagged and not is_example:
                            warned.add(f"{name} {message.name}")
                        else:
                            misread.append(f"{name} {channel.address} {message.name} event={event}: {got!r}"[:300])
    assert misread == []
    assert documented >= 16 and synthesized >= 600, (documented, synthesized)
    # The corpus' own warts, each reported at generate time (asyncapi/spec oneof: two messages of
    # optional members only; slack-rtm: botChanged repeats botAdded's `type: bot_added`).
    assert warned == {
        "oneof_v26 Test2Message2",
        "oneof_v3 ObjectWithKey2",
        "slack_rtm_v26 BotChanged",
        "slack_rtm_v3 BotChanged",
    }
    print(f"{decoded} of {documented + synthesized} decode to their own class")


def test_generated_conformance_tests_run_and_pass() -> None:
    """Every package's own ``test_conformance.py`` runs (no empty parameter set is skipped)
    and passes."""
    out, reports, _ = _corpus()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(out)],
        capture_output=True,
        text=True,
        cwd=out.parent,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " skipped" not in result.stdout.splitlines()[-1], result.stdout[-4000:]
    assert len(list(out.glob("*/test_conformance.py"))) == len(reports)


def test_generated_packages_pass_mypy_strict() -> None:
    out, _, _ = _corpus()
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(out)])
    assert status == 0, stdout[-4000:] + stderr

"""Generated code is real code: black-formatted, mypy --strict and pyright clean (standard mode, and
strict mode in both flavours), with few suppressions, each naming its rule and saying why, and typed
at the use site: a user module holding two providers gets each channel's event union, not ``Any``."""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import black
import pytest
from conftest import GENERATED, ROOT
from helpers.flavours import pydantic_output
from mypy import api as mypy_api

from ssegen.formatting import format_sources


def test_generated_code_is_black_formatted() -> None:
    mode = black.Mode(line_length=100)
    for path in sorted(GENERATED.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert black.format_str(source, mode=mode) == source, path


def test_ruff_formats_the_generated_code_as_black_does() -> None:
    """So `formatter = "ruff"` gives the committed bytes (one ruff run over every file)."""
    sources = {
        path.relative_to(GENERATED).as_posix(): path.read_text(encoding="utf-8") for path in GENERATED.rglob("*.py")
    }
    assert {rel for rel, text in format_sources(sources, "ruff", 100).items() if text != sources[rel]} == set()


def test_generated_code_has_no_unused_import_or_variable() -> None:
    """A user's `ruff check` (pyflakes rules, no configuration) finds nothing in the output."""
    ruff = [str(Path(sys.executable).parent / "ruff"), "check", "--isolated", "--select", "F", "--no-cache"]
    done = subprocess.run([*ruff, str(GENERATED)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_generated_code_passes_mypy_strict() -> None:
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(GENERATED)])
    assert status == 0, stdout + stderr


def test_ssegen_package_passes_mypy() -> None:
    stdout, stderr, status = mypy_api.run(["--no-incremental", str(ROOT / "src" / "ssegen")])
    assert status == 0, stdout + stderr


#: A user's module holding two providers. ``# ERROR`` marks each line both checkers must reject (a
#: misspelled attribute of a decoded event; a misspelled or non-literal address given to the typed
#: lookup ``channel()``), ``# REVEAL <class>`` each ``reveal_type`` whose type must be the channel's
#: event union (naming that class), not ``Any``; every other line must pass.
USER_MODULE = '''\
"""Two generated providers used as a user's code would."""

from typing import reveal_type

from generated.anthropic import CHANNELS as ANTHROPIC_CHANNELS
from generated.anthropic import channel as anthropic_channel
from generated.anthropic import models as anthropic_models
from generated.deepseek import CHANNELS, CHAT_COMPLETIONS_CHANNEL, channel, models

BODY = [b"data: [DONE]\\n\\n"]

chat = CHANNELS["/chat/completions"]
for event in chat.decode(BODY):
    reveal_type(event)  # REVEAL ChatCompletionChunk
    if isinstance(event, models.ChatCompletionChunk):
        print(event.choices[0].delta.content)
    print(event.this_attribute_does_not_exist)  # ERROR
for chunk in CHAT_COMPLETIONS_CHANNEL.decode(BODY):
    reveal_type(chunk)  # REVEAL ChatCompletionChunk
    if isinstance(chunk, models.ChatCompletionChunk):
        print(chunk.choices[0].delta.contnet)  # ERROR
reveal_type(chat.parse("[DONE]"))  # REVEAL StreamDone
print(chat.accumulate(chat.decode(BODY)).choices[0].content)

messages = ANTHROPIC_CHANNELS["/v1/messages"]
for message in messages.decode(BODY):
    reveal_type(message)  # REVEAL ContentBlockDeltaEvent
    if isinstance(message, anthropic_models.ContentBlockDeltaEvent):
        print(message.index)
    print(message.indx)  # ERROR

typed = channel("/chat/completions")
for item in typed.decode(BODY):
    reveal_type(item)  # REVEAL ChatCompletionChunk
    print(item.no_such_member)  # ERROR
reveal_type(anthropic_channel("/v1/messages").parse("{}"))  # REVEAL ContentBlockDeltaEvent
channel("/chat/completion")  # ERROR
anthropic_channel("/v1/message")  # ERROR


def lookup(address: str) -> None:
    """An address known only at run time: ``CHANNELS`` takes it, ``channel()`` does not."""
    print(CHANNELS[address].encoding)
    channel(address)  # ERROR
'''


def _marked(source: str, marker: str) -> dict[int, str]:
    """1-based line -> what follows ``# <marker>`` on it."""
    return {
        number: line.split(f"# {marker}", 1)[1].strip()
        for number, line in enumerate(source.splitlines(), 1)
        if f"# {marker}" in line
    }


def _basedpyright() -> str:
    found = Path(sys.executable).parent / "basedpyright"
    return str(found) if found.exists() else shutil.which("basedpyright") or "basedpyright"


def _assert_reveals(notes: dict[int, list[str]], expected: dict[int, str], tool: str) -> None:
    """Each ``# REVEAL <class>`` line has a note naming the class and ``StreamTruncated`` (the union),
    and no note of it says ``Any`` (mypy) or ``Unknown`` (pyright)."""
    for line, cls in expected.items():
        revealed = " ".join(notes.get(line, []))
        assert cls in revealed and "StreamTruncated" in revealed, f"{tool}: line {line}: {revealed!r}"
        assert not re.search(r"\b(Any|Unknown)\b", revealed), f"{tool}: line {line}: {revealed!r}"


def test_user_code_of_two_providers_gets_typed_events_from_mypy_strict(tmp_path: Path) -> None:
    user = tmp_path / "user_of_two.py"
    user.write_text(USER_MODULE, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(f"[mypy]\nmypy_path = {ROOT}\n", encoding="utf-8")
    stdout, stderr, _ = mypy_api.run(
        ["--strict", "--no-incremental", "--config-file", str(tmp_path / "mypy.ini"), str(user)]
    )
    errors: dict[int, list[str]] = {}
    notes: dict[int, list[str]] = {}
    for match in re.finditer(r"^(.+?):(\d+): (error|note): (.*)$", stdout, flags=re.M):
        path, line, severity, message = match[1], int(match[2]), match[3], match[4]
        assert Path(path).name == user.name, f"mypy --strict reports generated code: {match[0]}"
        (errors if severity == "error" else notes).setdefault(line, []).append(message)
    assert sorted(errors) == sorted(_marked(USER_MODULE, "ERROR")), stdout + stderr
    _assert_reveals(notes, _marked(USER_MODULE, "REVEAL"), "mypy")


def _pyright(mode: str, tmp_path: Path, *paths: Path, roots: tuple[Path, ...] = (ROOT,)) -> list[dict[str, Any]]:
    """basedpyright's diagnostics of ``paths`` in ``mode`` (``typeCheckingMode``: its
    ``strict`` is pyright's), imports resolved from ``roots``; asserts it analyzed a file of
    each channel of ``paths``. Import cycles are errors in every mode (``reportImportCycles``, off
    in pyright's modes, on in basedpyright's default one)."""
    config = {
        "typeCheckingMode": mode,
        "pythonVersion": "3.11",
        "extraPaths": [str(r) for r in roots],
        "reportImportCycles": "error",
    }
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    run = subprocess.run(
        [_basedpyright(), "--outputjson", "--pythonpath", sys.executable, *map(str, paths)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(run.stdout)
    channels = sum(len(list(p.glob("*/channels.py"))) for p in paths if p.is_dir())
    assert report["summary"]["filesAnalyzed"] > channels, run.stdout[-2000:] + run.stderr
    diagnostics: list[dict[str, Any]] = report["generalDiagnostics"]
    return diagnostics


def _errors_in(diagnostics: list[dict[str, Any]], folder: Path) -> list[str]:
    """``file:line: [rule] message`` of each error ``diagnostics`` report in ``folder``."""
    return [
        f"{d['file']}:{d.get('range', {}).get('start', {}).get('line', -1) + 1}: [{d.get('rule')}] {d['message']}"
        for d in diagnostics
        if Path(d["file"]).is_relative_to(folder) and d["severity"] == "error"
    ]


def _assert_user_module(diagnostics: list[dict[str, Any]], user: Path) -> None:
    """The user module's misspelled attributes are its only errors, and its reveals are the unions."""
    mine = [d for d in diagnostics if Path(d["file"]).name == user.name]
    errors = {d["range"]["start"]["line"] + 1 for d in mine if d["severity"] == "error"}
    assert sorted(errors) == sorted(_marked(USER_MODULE, "ERROR")), json.dumps(mine, indent=1)
    notes: dict[int, list[str]] = {}
    for d in mine:
        if d["severity"] == "information":
            notes.setdefault(d["range"]["start"]["line"] + 1, []).append(d["message"])
    _assert_reveals(notes, _marked(USER_MODULE, "REVEAL"), "basedpyright")


def test_user_code_and_generated_code_under_basedpyright_standard(tmp_path: Path) -> None:
    """basedpyright in standard mode: no error in ``generated/`` (the runtime and every provider), and
    the user module gets the event unions and its misspelled attributes rejected."""
    user = tmp_path / "user_of_two.py"
    user.write_text(USER_MODULE, encoding="utf-8")
    diagnostics = _pyright("standard", tmp_path, user, GENERATED)
    assert _errors_in(diagnostics, GENERATED) == []
    _assert_user_module(diagnostics, user)


def test_no_import_cycle_in_any_generated_package(tmp_path: Path) -> None:
    """basedpyright reports no import cycle (``reportImportCycles``) in ``generated/``: ``channels.py``
    and ``client.py`` import their classes from ``.models``/``.requests`` by name, not the module
    through the package's ``__init__`` (``from . import models``), which imports them back. Checked
    with only that rule on (about 20 s), so a cycle is named whatever else the run reports."""
    config = {"typeCheckingMode": "off", "pythonVersion": "3.11", "reportImportCycles": "error"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    run = subprocess.run(
        [_basedpyright(), "--outputjson", "--pythonpath", sys.executable, str(GENERATED)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(run.stdout)
    assert report["summary"]["filesAnalyzed"] > len(list(GENERATED.glob("*/channels.py"))), run.stderr
    cycles = [d for d in report["generalDiagnostics"] if d.get("rule") == "reportImportCycles"]
    assert [d["message"] for d in cycles] == []


@pytest.mark.slow
def test_generated_code_and_user_code_pass_pyright_strict(tmp_path: Path) -> None:
    """pyright strict (``typeCheckingMode = "strict"``, about 25 s): no error in ``generated/``
    (the runtime, its client modules included, and every provider's package and conformance
    tests), and in the user module of two providers none but its misspelled attributes."""
    user = tmp_path / "user_of_two.py"
    user.write_text(USER_MODULE, encoding="utf-8")
    diagnostics = _pyright("strict", tmp_path, user, GENERATED)
    assert _errors_in(diagnostics, GENERATED) == []
    _assert_user_module(diagnostics, user)


@pytest.mark.slow
def test_pydantic_flavour_passes_pyright_strict(tmp_path: Path) -> None:
    """The pydantic flavour's output (its runtime with ``pydantic_support.py``) under pyright
    strict: no error."""
    out = pydantic_output()
    diagnostics = _pyright("strict", tmp_path, out, roots=(out.parent,))
    assert _errors_in(diagnostics, out) == []


#: A type checker's suppression comment, and what follows it on its line.
_SUPPRESSION = re.compile(r"#\s*(type|pyright):\s*ignore(.*)$")
#: A named suppression: ``[reportXxx]`` (``[code]`` for mypy), then its reason if on its line.
_NAMED = re.compile(r"^\[[A-Za-z-]+(?:, *[A-Za-z-]+)*\]")
#: The reason after the rule on the suppression's line: ``# why``.
_REASON_AFTER = re.compile(r"^\[[^\]]*\]\s*(?:#\s*|[-:]\s*)\S")


def test_suppressions_name_their_rule_and_reason_and_are_rare() -> None:
    """No blanket ``# type: ignore`` or ``# pyright: ignore`` in ``generated/``: each names the
    rule it silences and says why (after it, or in the comment lines just above the statement),
    and there is less than one per 500 lines."""
    lines = 0
    found: list[str] = []
    for path in sorted(GENERATED.rglob("*.py")):
        text = path.read_text(encoding="utf-8").splitlines()
        lines += len(text)
        for number, line in enumerate(text, 1):
            match = _SUPPRESSION.search(line)
            if match:
                found.append(f"{path.relative_to(GENERATED)}:{number}: {line.strip()}")
                assert _NAMED.match(match[2].strip()), found[-1]
                above = [t.strip() for t in text[max(0, number - 4) : number - 1]]
                said = _REASON_AFTER.match(match[2].strip()) or any(t.startswith("#") for t in above)
                assert said, found[-1]
    assert len(found) * 500 < lines, "\n".join(found)


def test_the_typed_lookup_gives_each_channel_and_names_the_channels_of_a_missing_address() -> None:
    """``channel(address)`` of every generated package is ``CHANNELS[address]``; an address the
    checkers did not see (cast, or from data) is a ``KeyError`` listing the channels."""
    for channels in sorted(GENERATED.glob("*/channels.py")):
        package = importlib.import_module(f"generated.{channels.parent.name}")
        assert package.CHANNELS, channels
        for address, found in package.CHANNELS.items():
            assert package.channel(address) is found
        listed = ", ".join(map(repr, package.CHANNELS))
        with pytest.raises(KeyError, match=re.escape(f"no channel '/nowhere'; the channels are {listed}")):
            package.channel("/nowhere")

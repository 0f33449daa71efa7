"""``ssegen mock`` refusals that need no server: the install hint without the ``mock`` extra, bad
faults and replays as usage errors naming them (the server itself: tests/e2e/test_mock_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT

from ssegen.cli import main
from ssegen.mock import INSTALL_HINT


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # [tool.ssegen] of ssegen's own pyproject: generated/


def test_without_the_mock_extra_the_command_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)  # `import starlette` raises ImportError
    run = CliRunner().invoke(main, ["mock", "deepseek", "--port", "0"])
    assert run.exit_code == 1 and INSTALL_HINT in run.output
    assert "pip install 'ssegen[mock]'" in INSTALL_HINT


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--fault", "cut_after=1"], "expected NAME=VALUE"),
        (["--fault", "stall=9999"], "seconds from 0 to 300"),
        (["--delay", "-1"], "seconds from 0 to 60"),
        (["--replay", "no-such-file.sse"], "no such file"),
        (["--replay", "/v1/nope=README.md"], "no channel '/v1/nope' is served"),
        (["--replay", "README.md"], "say which channel"),
        (["--replay", "/chat/completions=/dev/null"], "not a regular file (a FIFO, socket or device is never read)"),
        (["--limit", "max_body=0"], "max_body=0: a whole number > 0"),
        (["--limit", "max_bodies=1"], "NAME one of max_body"),
    ],
)
def test_bad_options_are_usage_errors_naming_them(args: list[str], said: str) -> None:
    run = CliRunner().invoke(main, ["mock", "deepseek", "--port", "0", *args])
    assert run.exit_code == 2 and said in run.output, run.output


def test_an_unknown_provider_is_named(tmp_path: Path) -> None:
    run = CliRunner().invoke(main, ["mock", "nosuchprovider", "--port", "0"])
    assert run.exit_code == 2 and "nosuchprovider" in run.output, run.output


def test_a_host_that_is_not_loopback_is_warned_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import ssegen.mock

    class Server:
        def run(self, sockets: list[Any]) -> None:
            sockets[0].close()

    monkeypatch.setattr(ssegen.mock, "is_loopback", lambda host: False)
    monkeypatch.setattr(ssegen.mock, "make_server", lambda *args, **kwargs: Server())
    run = CliRunner().invoke(main, ["mock", "deepseek", "--port", "0"])
    assert run.exit_code == 0, run.output
    assert run.output.count("127.0.0.1 is not a loopback address: other machines can reach the mock") == 1

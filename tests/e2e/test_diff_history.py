"""``ssegen diff`` on this repository's own history (issue 37): ``specs/anthropic`` and
``specs/openai_responses`` at 176e126 against today. The specs only grew since (issue 23):
every new message, alternative and member is listed, compatible.

One change of that history is breaking, and is reported so: OpenAI's ``web_search_call`` item
had an ``action`` object declaring ``type``, generated as the class ``WebSearchToolCallAction``;
the spec now keeps the action whole (``additionalProperties`` only), generated as a dict, so code
reading ``item.action.type`` breaks once the package is regenerated."""

from __future__ import annotations

import subprocess

import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS

from ssegen.cli import main
from ssegen.cli.diff import compare_sides
from ssegen.diff import Change
from ssegen.diff.sides import Specs, revision_specs, specs_folder
from ssegen.ir import Provider
from ssegen.load import load_provider

REV = "176e126"


@pytest.fixture(scope="module")
def old_specs(tmp_path_factory: pytest.TempPathFactory) -> Specs:
    """specs/ as it was at :data:`REV` (skipped in a clone without that history)."""
    known = subprocess.run(["git", "cat-file", "-e", f"{REV}^{{commit}}"], cwd=ROOT, capture_output=True, check=False)
    if known.returncode != 0:
        pytest.skip(f"{REV} is not in this clone's history (a shallow clone)")
    return revision_specs(SPECS, REV, tmp_path_factory.mktemp("rev"))


def _compare(old_specs: Specs, name: str) -> tuple[list[Change], Provider, Provider]:
    report = compare_sides(old_specs, specs_folder(SPECS), [name])
    old, new = load_provider(old_specs.folder, name).provider, load_provider(SPECS, name).provider
    assert old is not None and new is not None
    return report.changes, old, new


def _kinds(changes: list[Change], kind: str) -> list[Change]:
    return [c for c in changes if c.kind.name == kind]


def test_anthropic_only_grew_and_every_addition_is_listed(old_specs: Specs) -> None:
    changes, _, _ = _compare(old_specs, "anthropic")
    assert {c.impact.value for c in changes} == {"compatible"}, [
        c.text for c in changes if c.impact.value != "compatible"
    ]
    variants = {c.text.split(" (")[0] for c in _kinds(changes, "variant-added")}
    assert variants == {
        f"new alternative type={value!r}"
        for value in (
            "bash_code_execution_tool_result",
            "text_editor_code_execution_tool_result",
            "mcp_tool_use",
            "mcp_tool_result",
            "container_upload",
            "compaction",
            "compaction_delta",
        )
    }
    members = {(c.message, c.member) for c in _kinds(changes, "member-added")}
    assert members == {
        ("MessageStart", "message.content[*].caller"),
        ("MessageStart", "message.usage.output_tokens_details"),
        ("MessageStart", "message.usage.iterations"),
        ("MessageDelta", "delta.container"),
        ("MessageDelta", "usage.cache_creation"),
        ("MessageDelta", "usage.output_tokens_details"),
        ("MessageDelta", "usage.iterations"),
    }
    # The inline `container` object became the component `Container`: the class is renamed.
    [renamed] = _kinds(changes, "type-renamed")
    assert renamed.text == "class MessageContainer renamed Container"


def test_openai_responses_grew_every_new_event_is_listed_and_one_change_breaks(old_specs: Specs) -> None:
    changes, old, new = _compare(old_specs, "openai_responses")
    [breaking] = [c for c in changes if c.impact.value != "compatible"]
    assert (breaking.kind.name, breaking.member) == ("type-changed", "response.output[*].action")
    assert breaking.text.startswith("type class WebSearchToolCallAction -> object kept whole (a dict)")
    (old_channel,), (new_channel,) = old.channels, new.channels
    added = {m.name for m in new_channel.messages} - {m.name for m in old_channel.messages}
    assert len(added) == 35
    assert {c.message for c in _kinds(changes, "message-added")} == added
    assert all("an older package keeps it as UnknownEvent" in c.text for c in _kinds(changes, "message-added"))
    items = {c.text.split(" (")[0].removeprefix("new alternative type=") for c in _kinds(changes, "variant-added")}
    assert len(items) == 15 and "'code_interpreter_call'" in items and "'computer_call'" in items
    assert {c.member.rsplit(".", 1)[-1] for c in _kinds(changes, "member-added")} == {"namespace", "caller"}


def test_the_command_on_this_repository_exits_by_what_it_found(
    old_specs: Specs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    anthropic = CliRunner().invoke(main, ["diff", "--rev", REV, "anthropic"])
    assert anthropic.exit_code == 0, anthropic.output
    assert anthropic.output.splitlines()[-1] == "0 critical, 0 breaking, 17 compatible: nothing breaking"
    both = CliRunner().invoke(main, ["diff", "--rev", REV, "anthropic", "openai_responses"])
    assert both.exit_code == 1
    assert "openai_responses: 0 critical, 1 breaking, 54 compatible" in both.output

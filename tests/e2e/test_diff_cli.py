"""``ssegen diff`` and ``ssegen check --diff`` end to end (issue 37): the sides (two folders, two
provider folders, a git revision of the configured specs folder), the exit codes, the four
report formats, and the stream report of a stale output folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from helpers.diffs import BASE, edited

from ssegen.cli import main

TERMINATOR = ("          - $ref: '#/components/messages/finished'\n", "")
MEMBER_ADDED = ("        lang: {type: string}\n", "        lang: {type: string}\n        region: {type: string}\n")
MEMBER_REMOVED = ("        lang: {type: string}\n", "")


def _spec(folder: Path, text: str, name: str = "demo") -> Path:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "asyncapi.yaml").write_text(text, encoding="utf-8")
    return folder


def _diff(*args: str) -> Result:
    return CliRunner().invoke(main, ["diff", *args])


def _sides(tmp_path: Path, *edits: tuple[str, str]) -> tuple[str, str]:
    old = _spec(tmp_path / "old", BASE)
    new = _spec(tmp_path / "new", edited(BASE, *edits))
    return str(old), str(new)


@pytest.mark.parametrize(
    ("edits", "code", "verdict"),
    [
        ((), 0, "no change: nothing breaking"),
        ((MEMBER_ADDED,), 0, "0 critical, 0 breaking, 1 compatible: nothing breaking"),
        ((MEMBER_REMOVED,), 1, "0 critical, 1 breaking, 0 compatible: breaking"),
        ((TERMINATOR,), 1, "1 critical, 1 breaking, 0 compatible: breaking"),
    ],
)
def test_the_exit_code_says_whether_something_is_breaking(
    tmp_path: Path, edits: tuple[tuple[str, str], ...], code: int, verdict: str
) -> None:
    result = _diff(*_sides(tmp_path, *edits))
    assert result.exit_code == code, result.output
    assert result.output.splitlines()[-1] == verdict


def test_the_text_report_groups_by_channel_and_names_both_sides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = _sides(tmp_path, TERMINATOR, MEMBER_ADDED)
    monkeypatch.chdir(tmp_path)
    result = _diff("old", "new")
    lines = result.output.splitlines()
    assert lines[:3] == ["ssegen diff old/ -> new/", "demo: 1 critical, 1 breaking, 1 compatible", "  /stream"]
    critical = next(line for line in lines if "critical[stream-end-removed]" in line)
    assert critical.startswith("    new/demo/asyncapi.yaml:") and "(old: old/demo/asyncapi.yaml:" in critical
    added = next(line for line in lines if "compatible[member-added]" in line)
    line = int(added.split(":")[1])
    assert "region:" in (tmp_path / "new" / "demo" / "asyncapi.yaml").read_text().splitlines()[line - 1]
    assert [i for i, x in enumerate(lines) if "critical[" in x] < [i for i, x in enumerate(lines) if "compatible[" in x]


def test_two_provider_folders_are_compared_whatever_their_names(tmp_path: Path) -> None:
    _spec(tmp_path / "a", BASE, "demo")
    _spec(tmp_path / "b", edited(BASE, MEMBER_REMOVED), "demo_next")
    result = _diff(str(tmp_path / "a" / "demo"), str(tmp_path / "b" / "demo_next"))
    assert result.exit_code == 1, result.output
    assert "demo_next: 0 critical, 1 breaking, 0 compatible" in result.output
    assert "breaking[member-removed]: Token piece.lang" in result.output


def test_a_provider_only_one_side_has_is_added_or_removed(tmp_path: Path) -> None:
    old = _spec(tmp_path / "old", BASE)
    new = _spec(_spec(tmp_path / "new", BASE), BASE, "other")
    added = _diff(str(old), str(new))
    assert added.exit_code == 0 and "other (new provider): 0 critical, 0 breaking, 1 compatible" in added.output
    removed = _diff(str(new), str(old))
    assert removed.exit_code == 1 and "other (provider removed): 0 critical, 1 breaking" in removed.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give OLD and NEW"),
        (("only-one",), "give OLD and NEW"),
        (("nowhere", "nowhere-else"), "no folder nowhere"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    result = _diff(*args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_a_provider_on_neither_side_is_not_compared(repository: Path) -> None:
    result = _diff("--rev", "HEAD", "nosuch")
    assert result.exit_code == 2
    assert "nosuch: not compared, no such provider folder on either side" in result.stdout
    assert result.stdout.splitlines()[-1] == "no change: nothing breaking; 1 not compared"


def test_a_specs_folder_and_a_provider_folder_are_not_compared(tmp_path: Path) -> None:
    old, new = _sides(tmp_path)
    result = _diff(old, str(Path(new) / "demo"))
    assert result.exit_code == 2 and "must both be specs folders or both provider folders" in result.output


def test_a_side_whose_specs_have_errors_is_not_compared(tmp_path: Path) -> None:
    old, new = _sides(tmp_path)
    (Path(new) / "demo" / "asyncapi.yaml").write_text("asyncapi: 2.6.0\nchannels: [\n", encoding="utf-8")
    result = _diff(old, new, "--format", "json")
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    [provider] = report["providers"]
    assert provider["status"] == "failed" and provider["errors"]
    assert provider["errors"][0]["file"].endswith("demo/asyncapi.yaml")


# -- formats -------------------------------------------------------------------------------------


def test_the_json_report_is_the_documented_document(tmp_path: Path) -> None:
    result = _diff(*_sides(tmp_path, TERMINATOR, MEMBER_ADDED), "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert list(report) == ["version", "old", "new", "breaking", "counts", "providers"]
    assert report["version"] == 1 and report["breaking"] is True
    assert report["counts"] == {"critical": 1, "breaking": 1, "compatible": 1}
    [provider] = report["providers"]
    assert list(provider) == ["name", "status", "counts", "changes", "errors"]
    assert (provider["name"], provider["status"]) == ("demo", "changed")
    change = next(c for c in provider["changes"] if c["kind"] == "stream-end-removed")
    assert list(change) == ["kind", "impact", "provider", "channel", "message", "member", "text", "old", "new"]
    assert (change["impact"], change["channel"], change["message"]) == ("critical", "/stream", "Finished")
    assert change["old"]["file"] == "demo/asyncapi.yaml" and change["old"]["line"] > 0
    assert change["old"]["pointer"] == "/components/messages/finished"
    assert change["old"]["path"].endswith("old/demo/asyncapi.yaml:" + str(change["old"]["line"]))


def test_the_github_form_annotates_the_new_spec_lines(tmp_path: Path) -> None:
    result = _diff(*_sides(tmp_path, TERMINATOR, MEMBER_ADDED), "--format", "github")
    lines = result.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["::error", "::warning", "::notice"]
    assert all("file=" in line and "/new/demo/asyncapi.yaml" in line and ",line=" in line for line in lines)
    assert "title=ssegen diff stream-end-removed (critical)::demo /stream Finished: Finished ended" in lines[0]


def test_the_sarif_form_has_a_rule_per_kind_and_a_result_per_change(tmp_path: Path) -> None:
    result = _diff(*_sides(tmp_path, TERMINATOR, MEMBER_ADDED), "--format", "sarif")
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "member-added",
        "message-removed",
        "stream-end-removed",
    ]
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note"]
    location = run["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("new/demo/asyncapi.yaml")
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "demo//stream/Finished"


# -- git revisions -------------------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose [tool.ssegen] specs folder holds BASE, committed; the current folder."""
    (tmp_path / "pyproject.toml").write_text('[tool.ssegen]\nspecs = "api"\nout = "gen"\n', encoding="utf-8")
    _spec(tmp_path / "api", BASE)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_rev_compares_a_revision_of_the_specs_folder_with_the_work_tree(repository: Path) -> None:
    spec = repository / "api" / "demo" / "asyncapi.yaml"
    spec.write_text(edited(BASE, TERMINATOR), encoding="utf-8")
    result = _diff("--rev", "HEAD")
    assert result.exit_code == 1, result.output
    assert result.output.startswith("ssegen diff HEAD:api/ -> api/\ndemo: 1 critical, 1 breaking")
    assert "(old: HEAD:api/demo/asyncapi.yaml:" in result.output
    _git(repository, "commit", "-qam", "no terminator")
    assert _diff("--rev", "HEAD").output.splitlines()[-1] == "no change: nothing breaking"
    again = _diff("--rev", "HEAD~1", "demo")
    assert again.exit_code == 1 and "critical[stream-end-removed]" in again.output


def test_rev_errors_are_usage_errors(repository: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    unknown = _diff("--rev", "no-such-revision")
    assert unknown.exit_code == 2 and "unknown git revision 'no-such-revision'" in unknown.output
    _git(repository, "mv", "api", "specs")
    _git(repository, "commit", "-qm", "moved")
    moved = _diff("--rev", "HEAD", "--specs", "specs")
    assert moved.exit_code == 0, moved.output
    gone = _diff("--rev", "HEAD~1", "--specs", "specs")
    assert gone.exit_code == 2 and "specs/ does not exist at HEAD~1" in gone.output
    elsewhere = tmp_path_factory.mktemp("plain")
    _spec(elsewhere / "api", BASE)
    outside = _diff("--rev", "HEAD", "--specs", str(elsewhere / "api"))
    assert outside.exit_code == 2 and "not in a git work tree" in outside.output


# -- check --diff --------------------------------------------------------------------------------


def test_check_diff_prints_the_stream_report_of_a_stale_output(repository: Path) -> None:
    assert CliRunner().invoke(main, ["generate", "-q"]).exit_code == 0
    spec = repository / "api" / "demo" / "asyncapi.yaml"
    spec.write_text(edited(BASE, TERMINATOR), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--diff"])
    assert result.exit_code == 1
    out = result.stdout
    assert "ssegen diff api/ as the output was generated from -> api/" in out
    assert "api/demo/asyncapi.yaml:" in out and "critical[stream-end-removed]: Finished" in out
    assert out.index("critical[stream-end-removed]") < out.index("--- gen/demo/channels.py (on disk)")
    _git(repository, "commit", "-qam", "no terminator")  # the old spec now only in git history
    committed = CliRunner().invoke(main, ["check", "--diff"])
    assert "critical[stream-end-removed]" in committed.stdout
    assert "(old: (as generated) api/demo/asyncapi.yaml:" in committed.stdout


def test_check_diff_says_when_the_specs_are_those_the_output_was_made_from(repository: Path) -> None:
    assert CliRunner().invoke(main, ["generate", "-q"]).exit_code == 0
    models = repository / "gen" / "demo" / "models.py"
    models.write_text(models.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--diff"])
    assert result.exit_code == 1
    assert "the specs are those the output was generated from: what differs comes from ssegen itself" in result.stdout


def test_check_diff_says_when_the_old_specs_are_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ssegen]\nspecs = "api"\nout = "gen"\n', encoding="utf-8")
    _spec(tmp_path / "api", BASE)
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["generate", "-q"]).exit_code == 0
    (tmp_path / "api" / "demo" / "asyncapi.yaml").write_text(edited(BASE, TERMINATOR), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--diff"])
    assert result.exit_code == 1
    assert "demo: the specs it was generated from are not in the work tree nor in git history" in result.stdout

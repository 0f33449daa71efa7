"""Every fenced block of README.md is checked: run as written where it can be, or by the test that runs it.

``CHECKS`` maps each block (its language and the start of its first line) to its check. A block with
no entry, or an entry whose block is gone, fails ``test_every_readme_block_has_a_check`` naming it.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import json
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml
from click.testing import CliRunner
from conftest import GENERATED, ROOT, SPECS
from helpers.readme import Block, readme_block, readme_blocks, readme_inline_code
from helpers.trees import file_tree
from packaging.requirements import Requirement

from ssegen.cli import main
from ssegen.config import load_config
from ssegen.transport import SSEMock

BIN = Path(sys.executable).parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@dataclass
class Ctx:
    """What a check may use: a temp folder, monkeypatch, captured output."""

    tmp_path: Path
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]


def check_quickstart(block: Block, ctx: Ctx) -> None:
    """The first block: install with the `test` extra and generate; then `pytest`.

    The install steps made the environment running this test; `pytest` is this suite itself (running it
    here would recurse), so it is checked only to be what the `test` extra installs. `ssegen generate`
    runs for real on a copy of the specs and must write exactly the committed `generated/`.
    """
    assert block.commands() == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && ssegen generate",
        "pytest",
    ], f"{block.name} changed: update check_quickstart"
    assert any(Requirement(r).name == "pytest" for r in _pyproject()["project"]["optional-dependencies"]["test"])
    shutil.copytree(SPECS, ctx.tmp_path / "specs")
    run = subprocess.run(
        [str(BIN / "ssegen"), "generate", "-q"], cwd=ctx.tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert file_tree(ctx.tmp_path / "generated") == file_tree(GENERATED), (
        "`ssegen generate` on specs/ differs from generated/"
    )


def check_httpx_example(block: Block, ctx: Ctx) -> None:
    """The httpx example runs as written against ssegen's own httpx transport (``SSEMock``, the
    ``sse_mock`` fixture's) serving DeepSeek's docs example stream in 7-byte reads."""
    from generated.deepseek import CHANNELS as DEEPSEEK

    stream = (GENERATED / "deepseek" / "examples" / "stream-example.sse").read_bytes()
    payloads = [line[len(b"data: ") :] for line in stream.splitlines() if line.startswith(b"data: ")]
    chunks = [json.loads(p) for p in payloads if p != b"[DONE]"]
    expected_text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    usage = next(c["usage"] for c in reversed(chunks) if c.get("usage"))
    mock = SSEMock()
    route = mock.route(DEEPSEEK["/chat/completions"], replay=stream, read_size=7)  # split mid-line, mid-UTF-8
    ctx.monkeypatch.setattr(httpx, "stream", mock.client().stream)  # the network call, and nothing else, is replaced
    ctx.monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-readme-test")
    try:
        exec(compile(block.text, block.name, "exec"), {"__name__": "readme_example"})
    finally:
        mock.close()
    printed = ctx.capsys.readouterr().out

    (request,) = route.requests
    assert str(request.url) == "https://api.deepseek.com/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-readme-test"
    assert json.loads(request.content)["stream"] is True
    # print(content, usage, complete): the text of every delta, the last chunk's usage, True after [DONE]
    assert expected_text and printed.startswith(expected_text + " ") and printed.endswith(" True\n"), printed
    assert ast.literal_eval(printed[len(expected_text) + 1 : -len(" True\n")]) == usage, printed


def check_families_example(block: Block, ctx: Ctx) -> None:
    """The Messages example runs as written on a captured Anthropic stream (tests/data/streams)."""
    body = (ROOT / "tests" / "data" / "streams" / "anthropic" / "sdk_tool_use.sse").read_bytes()

    class Response:
        def iter_bytes(self) -> Iterator[bytes]:
            return iter([body[i : i + 7] for i in range(0, len(body), 7)])

    exec(compile(block.text, block.name, "exec"), {"__name__": "readme_example", "response": Response()})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed[0].startswith("text I'll check the current weather in Paris for you. None None")
    assert printed[1] == "tool_use None None get_weather {'location': 'Paris'}"
    assert printed[2].startswith("tool_use {") and printed[2].endswith("} True")


def check_encoding_example(block: Block, ctx: Ctx) -> None:
    """The encoding example runs as written and prints what the text after it says."""
    exec(compile(block.text, block.name, "exec"), {"__name__": "readme_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed == ["Hello world stop 2", "b'data: [DONE]'", "b'event: message_start'"]
    prose = readme_inline_code()
    assert all(line in prose for line in printed), "the README text after the block names another output"


def check_ndjson_example(block: Block, ctx: Ctx) -> None:
    """The NDJSON example runs as written, prints what its comment says, and its lines are the
    generated channel's messages read as each line of the body."""
    exec(compile(block.text, block.name, "exec"), {"__name__": "readme_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed == [block.text.rstrip().splitlines()[-1].removeprefix("# ")]


def check_accumulate_extension(block: Block, ctx: Ctx) -> None:
    """The ``x-ssegen-accumulate`` example, put on a channel with those messages, is read as written."""
    from normalize.test_accumulation_plan import STATED

    from ssegen.ir import AccumulateStep
    from ssegen.load import load_provider

    stated = yaml.safe_load(block.text)["channels"]["/stream"]["x-ssegen-accumulate"]
    document = yaml.safe_load(STATED)
    document["channels"]["/stream"]["x-ssegen-accumulate"] = stated
    folder = ctx.tmp_path / "specs" / "custom"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    result = load_provider(ctx.tmp_path / "specs", "custom")
    assert result.provider is not None and not [d for d in result.diagnostics if d.code == "accumulate-invalid"]
    plan = result.provider.channels[0].accumulation
    assert plan is not None and plan.family == "custom"
    assert plan.of("Token") == (AccumulateStep("append", ("slot",), ("piece", "text"), "text"),)
    assert plan.of("Finished") == (AccumulateStep("stop", value=("why",)), AccumulateStep("done"))


def check_gemini_plan(block: Block, ctx: Ctx) -> None:
    """The Gemini plan, on the channel of a Gemini spec, is read with no warning and assembles a
    Gemini stream (the real captures when ``../shared`` is present) as its raw JSON says."""
    from helpers.packages import generated_package
    from runtime.test_plan_executor import GEMINI, _check

    stated = textwrap.indent(block.text, "    ")
    spec = GEMINI.replace("    subscribe:\n", stated + "    subscribe:\n", 1)
    body = (
        b'data: {"candidates": [{"content": {"parts": [{"text": "Let me think.", "thought": true}, {"text": "Hi"}]},'
        b' "index": 0}], "responseId": "r1", "modelVersion": "m"}\n\n'
        b'data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}]},'
        b' "finishReason": "STOP", "index": 0}], "usageMetadata": {"totalTokenCount": 3, "trafficType": "X"}}\n\n'
    )
    with generated_package(ctx.tmp_path, {"asyncapi.yaml": spec}) as (package, diagnostics):
        assert not [d for d in diagnostics if d.code == "accumulate-invalid"], [d.format() for d in diagnostics]
        channel = next(iter(package.CHANNELS.values()))
        _check(channel.accumulate(channel.decode([body])), body)


def check_x_sse_event(block: Block, ctx: Ctx) -> None:
    """The ``x-sse-event`` example, in an AsyncAPI 3.0 document whose server sends that message, makes
    frames ``event: tool-call-start`` carry it (with no ``event:`` line shown anywhere)."""
    from ssegen.load import load_provider

    document = {
        "asyncapi": "3.0.0",
        "info": {"title": "T", "version": "1"},
        "channels": {
            "chat": {"address": "/chat", "messages": {"ToolCallStart": {"$ref": "#/components/messages/ToolCallStart"}}}
        },
        "operations": {"stream": {"action": "send", "channel": {"$ref": "#/channels/chat"}}},
        "components": yaml.safe_load(block.text)["components"],
    }
    document["components"]["schemas"] = {
        "ToolCallStartEvent": {"type": "object", "properties": {"type": {"const": "tool-call-start"}}}
    }
    folder = ctx.tmp_path / "specs" / "named"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    result = load_provider(ctx.tmp_path / "specs", "named")
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    [message] = result.provider.channels[0].messages
    assert (message.name, message.event) == ("ToolCallStart", "tool-call-start")


def _prompted(block: Block) -> Iterator[tuple[str, str]]:
    """(command, printed output) pairs of a block written as a `$ ` session."""
    command = None
    output: list[str] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "".join(output)
            command, output = line[2:], []
        else:
            output.append(line + "\n")
    if command is not None:
        yield command, "".join(output)


def check_conform_session(block: Block, ctx: Ctx) -> None:
    """Each `$ ssegen conform ...` prints what the README shows (`...` elides, as in doctest) and exits 0."""
    sessions = list(_prompted(block))
    assert sessions and all(command.startswith("ssegen conform ") for command, _ in sessions), block.name
    checker = doctest.OutputChecker()
    for command, shown in sessions:
        argv = shlex.split(command)
        run = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=ROOT, capture_output=True, text=True, check=False)
        assert run.returncode == 0, f"{command}: exit {run.returncode}\n{run.stdout}{run.stderr}"
        assert checker.check_output(shown, run.stdout, doctest.ELLIPSIS), (
            f"{block.name}: `{command}` prints\n{run.stdout}README shows\n{shown}"
        )


def check_own_repository_config(block: Block, ctx: Ctx) -> None:
    """The pyproject snippet: every `[tool.ssegen]` key is accepted and means what its comment says; the
    `dev` extra is a direct reference, which hatchling builds only with `allow-direct-references`."""
    data = tomllib.loads(block.text)
    settings = data["tool"]["ssegen"]
    keys = {"specs", "out", "tests_out", "package", "providers", "model", "strict", "ignore", "severity"}
    keys |= {"formatter", "line_length"}
    assert set(settings) == keys, "a key was added: check it here"
    (ctx.tmp_path / "pyproject.toml").write_text(block.text, encoding="utf-8")
    (ctx.tmp_path / "src" / "myapp").mkdir(parents=True)
    ctx.monkeypatch.chdir(ctx.tmp_path / "src" / "myapp")
    config = load_config(Path.cwd())
    assert config.source is not None and config.source.resolve() == (ctx.tmp_path / "pyproject.toml").resolve()
    assert (ctx.tmp_path / "src" / "myapp" / config.specs).resolve() == ctx.tmp_path.resolve() / settings["specs"]
    assert (ctx.tmp_path / "src" / "myapp" / config.out).resolve() == ctx.tmp_path.resolve() / settings["out"]
    assert config.package == settings["package"]
    assert config.providers == tuple(settings["providers"]) and config.strict is settings["strict"]
    assert config.tests_out is not None
    assert (ctx.tmp_path / "src" / "myapp" / config.tests_out).resolve() == ctx.tmp_path.resolve() / settings[
        "tests_out"
    ]
    assert config.model == settings["model"] and config.output_settings.tests_apart
    assert config.policy.ignore == frozenset(settings["ignore"])
    assert {code: level.value for code, level in config.policy.severity.items()} == settings["severity"]
    assert (config.formatter, config.line_length) == (settings["formatter"], settings["line_length"])
    assert (config.output_settings.formatter, config.output_settings.line_length) == ("black", 100)  # the defaults
    # "default: `out` without a leading `src/`" — the default is the same name
    ctx.monkeypatch.chdir(ctx.tmp_path)
    without = block.text.replace(f'package = "{settings["package"]}"', "")
    (ctx.tmp_path / "pyproject.toml").write_text(without, encoding="utf-8")
    assert load_config(ctx.tmp_path).import_name == settings["package"]

    prose = readme_inline_code("Using ssegen in your own repository")
    flags = [code for code in prose if code.startswith("--")]
    assert flags == ["--specs", "--out", "--tests-out", "--package"], "the flags said to override the config changed"
    for command in ("generate", "check"):
        helped = CliRunner().invoke(main, [command, "--help"]).output
        assert all(re.search(rf"{flag}\b", helped) for flag in flags), f"ssegen {command} lacks one of {flags}"
    assert "generate --force" in prose and "--force" in CliRunner().invoke(main, ["generate", "--help"]).output

    (dev,) = data["project"]["optional-dependencies"]["dev"]
    requirement = Requirement(dev)
    assert requirement.name == "ssegen" and requirement.url, f"{block.name}: dev is not a direct reference"
    assert data["tool"]["hatch"]["metadata"]["allow-direct-references"] is True


def check_pre_commit_config(block: Block, ctx: Ctx) -> None:
    """The pre-commit config parses, names hooks `.pre-commit-hooks.yaml` defines, and is valid for
    pre-commit once its two placeholders (URL, commit) are filled (test_pre_commit_hooks.py runs it)."""
    config = yaml.safe_load(block.text)
    (repo,) = config["repos"]
    hook_ids = {hook["id"] for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert {hook["id"] for hook in repo["hooks"]} <= hook_ids
    assert {"ssegen-check", "ssegen-generate"} <= hook_ids
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{hook_id}`" in readme for hook_id in hook_ids), "every hook is described in the README"
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    filled = block.text.replace("<commit SHA>", head.stdout.strip())
    (ctx.tmp_path / "pre-commit.yaml").write_text(filled, encoding="utf-8")
    run = subprocess.run(
        [str(BIN / "pre-commit"), "validate-config", "pre-commit.yaml"],
        cwd=ctx.tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0 and not run.stderr.strip(), run.stdout + run.stderr


def check_benchmarks(block: Block, ctx: Ctx) -> None:
    """The benchmark commands: the `bench` extra exists, the scripts exist and take every flag the README
    gives them (in the block and in the section's prose); the benchmarks themselves are not run in tests."""
    commands = block.commands()
    assert commands[0] == "pip install -e '.[bench]'" and "bench" in _pyproject()["project"]["optional-dependencies"]
    prose = readme_inline_code("Benchmarks")
    helps: dict[str, str] = {}
    for command in commands[1:] + [code for code in prose if code.startswith("python benchmarks/")]:
        argv = shlex.split(command)
        assert argv[0] == "python" and (ROOT / argv[1]).is_file(), f"README: `{command}`: no such script"
        if argv[1] not in helps:
            run = subprocess.run([sys.executable, argv[1], "--help"], cwd=ROOT, capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            helps[argv[1]] = run.stdout
        for flag in (word for word in argv[2:] if word.startswith("--")):
            assert re.search(rf"{re.escape(flag)}\b", helps[argv[1]]), f"README: `{command}`: {argv[1]} has no {flag}"
    scripts = {path.relative_to(ROOT).as_posix() for path in (ROOT / "benchmarks").glob("*.py")}
    assert set(helps) == scripts, "every benchmark script is named"
    for code in (code for code in prose if code.startswith("--")):  # `--json`, `--read-size 0` in the prose
        flag = code.split()[0]
        assert any(re.search(rf"{re.escape(flag)}\b", text) for text in helps.values()), f"README: no script has {flag}"


def check_install_block(block: Block, ctx: Ctx) -> None:
    """The install block runs in test_own_repository.py; the wheel it names is the one this version builds."""
    version = _pyproject()["project"]["version"]
    wheel = f"ssegen-{version}-py3-none-any.whl"
    assert f"pip install dist/{wheel}" in block.commands(), f"{block.name}: the wheel is {wheel}"
    assert f"ssegen @ file:///abs/path/to/{wheel}" in readme_inline_code("Using ssegen in your own repository")
    run_by("test_own_repository.py")(block, ctx)


def check_formatter_exclusions(block: Block, ctx: Ctx) -> None:
    """The exclusions keep ruff (check and format) and black off the output folders the config block
    names, while they still see the project's own code."""
    (ctx.tmp_path / "pyproject.toml").write_text(block.text, encoding="utf-8")
    entries = ", ".join(f"'{key}': {value}" for value, key in enumerate("abcdefghijk"))
    long_line = f"import os\nVALUE = {{{entries}}}\n"  # unused import, single quotes, 100+ columns
    for folder in ("src/myapp/llm_stream/deepseek", "tests/llm_stream/deepseek", "src/myapp"):
        (ctx.tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (ctx.tmp_path / folder / "models.py").write_text(long_line, encoding="utf-8")
    ruff = str(Path(sys.executable).parent / "ruff")
    for command in (
        [ruff, "format", "--check", "."],
        [ruff, "check", "--select", "F401", "."],
        [sys.executable, "-m", "black", "--check", "."],
    ):
        run = subprocess.run(command, cwd=ctx.tmp_path, capture_output=True, text=True, check=False)
        assert run.returncode == 1, (command, run.stdout, run.stderr)
        reported = run.stdout + run.stderr
        assert "src/myapp/models.py" in reported and "llm_stream" not in reported, (command, reported)


MOCKED = ("deepseek", "anthropic", "openai_responses")  # what the README's `ssegen mock` serves
README_MOCK = "http://127.0.0.1:8000"


@contextlib.contextmanager
def _readme_mock() -> Iterator[str]:
    """The README's ``ssegen mock deepseek anthropic openai_responses`` in a thread, on a free port."""
    import importlib

    from ssegen.mock import MockServer, create_app, endpoints

    packages = [importlib.import_module(f"generated.{name}") for name in MOCKED]
    with MockServer(create_app(endpoints(packages))) as url:
        yield url


def check_mock_session(block: Block, ctx: Ctx) -> None:
    """`pip install -e '.[mock]'` names the extra holding Starlette and uvicorn (installed here);
    `ssegen mock ... --port 8000` runs for real (on a free port instead of 8000) and prints the
    lines shown (`...` elides), then is stopped."""
    (install, shown_install), (command, shown) = _prompted(block)
    assert install == "pip install -e '.[mock]'" and not shown_install.strip()
    extra = {Requirement(r).name for r in _pyproject()["project"]["optional-dependencies"]["mock"]}
    assert extra == {"starlette", "uvicorn"}
    argv = shlex.split(command)
    assert argv[:2] == ["ssegen", "mock"] and argv[2:-2] == list(MOCKED) and argv[-2:] == ["--port", "8000"]
    process = subprocess.Popen(
        [str(BIN / "ssegen"), *argv[1:-1], "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        lines = []
        deadline = time.monotonic() + 30
        assert process.stdout is not None
        while len(lines) < len(shown.splitlines()) and time.monotonic() < deadline:
            lines.append(process.stdout.readline())  # the listing is printed, flushed, before serving
        printed = "".join(lines)
        port = re.search(r"127\.0\.0\.1:(\d+)", printed)
        assert port, printed
        expected = shown.replace(README_MOCK, f"http://127.0.0.1:{port.group(1)}")
        assert doctest.OutputChecker().check_output(expected, printed, doctest.ELLIPSIS), (
            f"{block.name}: `{command}` prints\n{printed}README shows\n{shown}"
        )
    finally:
        process.terminate()
        try:
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def check_mock_sdks(block: Block, ctx: Ctx) -> None:
    """The SDK example runs as written against the README's `ssegen mock` (on a free port) and
    prints what the prose after it says."""
    assert block.text.count(README_MOCK) == 3
    with _readme_mock() as url:
        exec(compile(block.text.replace(README_MOCK, url), block.name, "exec"), {"__name__": "readme_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed == [
        "Hello! How can I assist you today?",
        "Hello from the ssegen mock.",
        "Hello from the ssegen mock.",
    ]
    prose = readme_inline_code("Mock server and test fixtures")
    assert printed[0] in prose and printed[1] in prose, "the README text after the block names another output"


def check_mock_curl(block: Block, ctx: Ctx) -> None:
    """Each curl command runs as written against the README's `ssegen mock` (on a free port): the
    first two get whole streams (the docs example, `Hi there` synthesized), the last exits 18 with
    the body cut inside its fourth event, as the prose says."""
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    commands = block.commands()
    assert len(commands) == 3 and all(c.startswith("curl -N ") for c in commands)
    runs = []
    with _readme_mock() as url:
        for command in commands:
            argv = shlex.split(command.replace(README_MOCK, url))
            runs.append(subprocess.run([curl, "-s", *argv[1:]], capture_output=True, timeout=30, check=False))
    from generated.anthropic import CHANNELS as ANTHROPIC
    from generated.deepseek import CHANNELS as DEEPSEEK

    chat, messages = DEEPSEEK["/chat/completions"], ANTHROPIC["/v1/messages"]
    assert [run.returncode for run in runs] == [0, 0, 18], [run.stderr for run in runs]
    whole = chat.accumulate(chat.decode([runs[0].stdout]))
    assert whole.complete and whole.choices[0].content == "Hello! How can I assist you today?"
    assert messages.accumulate(messages.decode([runs[1].stdout])).output[0].text == "Hi there"
    cut = chat.accumulate(chat.decode([runs[2].stdout]))
    assert not cut.complete and cut.errors[-1]["kind"] == "truncated" and cut.choices[0].content == "Hello!"
    assert "The last one exits 18" in (ROOT / "README.md").read_text(encoding="utf-8")


def run_by(test_file: str) -> Callable[[Block, Ctx], None]:
    """The block is run as written by ``test_file`` (it needs a fresh venv or a git repo)."""

    def check(block: Block, ctx: Ctx) -> None:
        source = (Path(__file__).parent / test_file).read_text(encoding="utf-8")
        key = f'readme_block("{block.lang}", "'
        assert any(block.first_line.startswith(m) for m in re.findall(re.escape(key) + r'([^"]+)"\)', source)), (
            f"{block.name} is said to run in {test_file}, which does not read it"
        )

    return check


#: (language, start of the block's first line) -> check.  No block is only illustrative.
CHECKS: dict[tuple[str, str], Callable[[Block, Ctx], None]] = {
    ("sh", "python3 -m venv .venv"): check_quickstart,
    ("python", "import os"): check_httpx_example,
    ("python", "from generated.anthropic import CHANNELS"): check_families_example,
    ("python", "from generated.deepseek import CHANNELS"): check_encoding_example,
    ("python", "from generated.ollama import CHANNELS"): check_ndjson_example,
    ("yaml", "channels:"): check_accumulate_extension,
    ("yaml", "x-ssegen-accumulate:"): check_gemini_plan,
    ("yaml", "components:"): check_x_sse_event,
    ("sh", "$ ssegen conform"): check_conform_session,
    ("sh", "$ pip install -e '.[mock]'"): check_mock_session,
    ("python", "import anthropic"): check_mock_sdks,
    ("sh", "curl -N http://127.0.0.1:8000"): check_mock_curl,
    ("python", "# tests/test_chat_ui.py"): run_by("../test_pytest_plugin.py"),
    ("sh", "pip wheel --no-deps"): check_install_block,
    ("toml", "# your pyproject.toml"): check_own_repository_config,
    ("sh", "ssegen generate"): run_by("test_own_repository.py"),
    ("sh", "pre-commit try-repo"): run_by("test_pre_commit_hooks.py"),
    ("yaml", "# .pre-commit-config.yaml"): check_pre_commit_config,
    ("sh", "pip install -e '.[bench]'"): check_benchmarks,
    ("toml", "[tool.ruff]"): check_formatter_exclusions,
}


def test_every_readme_block_has_a_check() -> None:
    blocks = readme_blocks()
    unchecked = [b.name for b in blocks if not any(b.lang == lang and b.first_line.startswith(s) for lang, s in CHECKS)]
    assert not unchecked, f"README blocks with no check in {__name__}.CHECKS: {unchecked}"
    stale = [key for key in CHECKS if sum(b.lang == key[0] and b.first_line.startswith(key[1]) for b in blocks) != 1]
    assert not stale, f"CHECKS entries matching no README block (or several): {stale}"


@pytest.mark.parametrize("key", list(CHECKS), ids=[f"{lang}:{start}" for lang, start in CHECKS])
def test_readme_block_runs_as_written(
    key: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    CHECKS[key](readme_block(*key), Ctx(tmp_path, monkeypatch, capsys))


def test_ci_benchmark_commands_use_flags_their_scripts_have() -> None:
    """`.ci/run` runs the benchmarks once; a renamed flag would fail CI after the tests passed."""
    commands = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    commands = [line for line in commands if line.startswith("python benchmarks/")]
    assert commands
    for command in commands:
        argv = shlex.split(command)
        run = subprocess.run([sys.executable, argv[1], "--help"], cwd=ROOT, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        for flag in (word for word in argv[2:] if word.startswith("--")):
            assert re.search(rf"{re.escape(flag)}\b", run.stdout), f".ci/run: `{command}`: {argv[1]} has no {flag}"

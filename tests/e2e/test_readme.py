"""Every fenced block of the documentation is checked: run as written where it can be, or by the test that runs it.

The documentation is README.md, ARCHITECTURE.md, benchmarks/README.md and every ``docs/**/*.md``
(``helpers.readme.doc_files``). ``CHECKS`` maps each block (its file, its language and the start of
its first line) to its check. A block with no entry, or an entry whose block is gone, fails
``test_every_doc_block_has_a_check`` naming its file and line.
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
from helpers.readme import DOCS, Block, doc_block, doc_blocks, doc_files, doc_text, inline_code
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
        exec(compile(block.text, block.name, "exec"), {"__name__": "doc_example"})
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

    exec(compile(block.text, block.name, "exec"), {"__name__": "doc_example", "response": Response()})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed[0].startswith("text I'll check the current weather in Paris for you. None None")
    assert printed[1] == "tool_use None None get_weather {'location': 'Paris'}"
    assert printed[2].startswith("tool_use {") and printed[2].endswith("} True")


def check_encoding_example(block: Block, ctx: Ctx) -> None:
    """The encoding example runs as written and prints what the text after it says."""
    exec(compile(block.text, block.name, "exec"), {"__name__": "doc_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed == ["Hello world stop 2", "b'data: [DONE]'", "b'event: message_start'"]
    prose = inline_code(block.file)
    assert all(line in prose for line in printed), f"the text after {block.name} names another output"


def check_ndjson_example(block: Block, ctx: Ctx) -> None:
    """The NDJSON example runs as written, prints what its comment says, and its lines are the
    generated channel's messages read as each line of the body."""
    exec(compile(block.text, block.name, "exec"), {"__name__": "doc_example"})
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
    from runtime.test_plan_language import GEMINI, _check

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
    """Each `$ ssegen conform ...` prints what the page shows (`...` elides, as in doctest) and exits 0."""
    sessions = list(_prompted(block))
    assert sessions and all(command.startswith("ssegen conform ") for command, _ in sessions), block.name
    checker = doctest.OutputChecker()
    for command, shown in sessions:
        argv = shlex.split(command)
        run = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=ROOT, capture_output=True, text=True, check=False)
        assert run.returncode == 0, f"{command}: exit {run.returncode}\n{run.stdout}{run.stderr}"
        assert checker.check_output(shown, run.stdout, doctest.ELLIPSIS), (
            f"{block.name}: `{command}` prints\n{run.stdout}{block.file} shows\n{shown}"
        )


def check_diff_session(block: Block, ctx: Ctx) -> None:
    """Each `$ ssegen diff --rev ...` run in this repository prints what the page shows (`...` elides,
    as in doctest) and exits 0 (nothing breaking); skipped in a clone without the revision's history."""
    sessions = list(_prompted(block))
    assert sessions and all(command.startswith("ssegen diff --rev ") for command, _ in sessions), block.name
    checker = doctest.OutputChecker()
    for command, shown in sessions:
        argv = shlex.split(command)
        rev = argv[argv.index("--rev") + 1]
        known = subprocess.run(
            ["git", "cat-file", "-e", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True, check=False
        )
        if known.returncode != 0:
            pytest.skip(f"{rev} is not in this clone's history (a shallow clone)")
        run = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=ROOT, capture_output=True, text=True, check=False)
        assert run.returncode == 0, f"{command}: exit {run.returncode}\n{run.stdout}{run.stderr}"
        assert checker.check_output(shown, run.stdout, doctest.ELLIPSIS), (
            f"{block.name}: `{command}` prints\n{run.stdout}{block.file} shows\n{shown}"
        )


def check_diff_json(block: Block, ctx: Ctx) -> None:
    """The JSON report shown is the one `ssegen diff old new --format json` prints, exactly, for the
    spec pair the page names: ``helpers.diffs.BASE`` in ``old/demo/``, without its ``finished``
    message in ``new/demo/``."""
    from helpers.diffs import BASE, edited

    gone = edited(BASE, ("          - $ref: '#/components/messages/finished'\n", ""))
    for side, text in (("old", BASE), ("new", gone)):
        (ctx.tmp_path / side / "demo").mkdir(parents=True)
        (ctx.tmp_path / side / "demo" / "asyncapi.yaml").write_text(text, encoding="utf-8")
    ctx.monkeypatch.chdir(ctx.tmp_path)
    result = CliRunner().invoke(main, ["diff", "old", "new", "--format", "json"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout) == json.loads(block.text), result.stdout


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

    prose = inline_code(block.file)
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
    page = doc_text(block.file)
    assert all(f"`{hook_id}`" in page for hook_id in hook_ids), f"every hook is described in {block.file}"
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
    """The benchmark commands: the `bench` extra exists, the scripts exist and take every flag the page
    gives them (in the block and in the section's prose); the benchmarks themselves are not run in tests."""
    commands = block.commands()
    assert commands[0] == "pip install -e '.[bench]'" and "bench" in _pyproject()["project"]["optional-dependencies"]
    prose = inline_code(block.file)
    helps: dict[str, str] = {}
    for command in commands[1:] + [code for code in prose if code.startswith("python benchmarks/")]:
        argv = shlex.split(command)
        assert argv[0] == "python" and (ROOT / argv[1]).is_file(), f"{block.file}: `{command}`: no such script"
        if argv[1] not in helps:
            run = subprocess.run([sys.executable, argv[1], "--help"], cwd=ROOT, capture_output=True, text=True)
            assert run.returncode == 0, run.stderr
            helps[argv[1]] = run.stdout
        for flag in (word for word in argv[2:] if word.startswith("--")):
            where = f"{block.file}: `{command}`: {argv[1]}"
            assert re.search(rf"{re.escape(flag)}\b", helps[argv[1]]), f"{where} has no {flag}"
    scripts = {path.relative_to(ROOT).as_posix() for path in (ROOT / "benchmarks").glob("*.py")}
    assert set(helps) == scripts, "every benchmark script is named"
    for code in (code for code in prose if code.startswith("--")):  # `--json`, `--read-size 0` in the prose
        flag = code.split()[0]
        known = any(re.search(rf"{re.escape(flag)}\b", text) for text in helps.values())
        assert known, f"{block.file}: no script has {flag}"


def check_install_block(block: Block, ctx: Ctx) -> None:
    """The install block runs in test_own_repository.py; the wheel it names is the one this version builds."""
    version = _pyproject()["project"]["version"]
    wheel = f"ssegen-{version}-py3-none-any.whl"
    assert f"pip install dist/{wheel}" in block.commands(), f"{block.name}: the wheel is {wheel}"
    assert f"ssegen @ file:///abs/path/to/{wheel}" in inline_code(block.file)
    run_by("test_own_repository.py")(block, ctx)


def check_readme_install_block(block: Block, ctx: Ctx) -> None:
    """The README's install block is the one docs/build-step.md gives (which test_own_repository.py runs)."""
    walkthrough = doc_block(BUILD_STEP, "sh", "pip wheel --no-deps")
    assert block.commands() == walkthrough.commands(), f"{block.name} differs from {walkthrough.name}"
    check_install_block(walkthrough, ctx)


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


MOCKED = ("deepseek", "anthropic", "openai_responses")  # what the docs' `ssegen mock` serves
MOCK_URL = "http://127.0.0.1:8000"


@contextlib.contextmanager
def _docs_mock() -> Iterator[str]:
    """The docs' ``ssegen mock deepseek anthropic openai_responses`` in a thread, on a free port."""
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
    assert extra == {"starlette", "uvicorn", "jsonschema"}  # jsonschema checks request bodies
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
        expected = shown.replace(MOCK_URL, f"http://127.0.0.1:{port.group(1)}")
        assert doctest.OutputChecker().check_output(expected, printed, doctest.ELLIPSIS), (
            f"{block.name}: `{command}` prints\n{printed}{block.file} shows\n{shown}"
        )
    finally:
        process.terminate()
        try:
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def check_mock_sdks(block: Block, ctx: Ctx) -> None:
    """The SDK example runs as written against the docs' `ssegen mock` (on a free port) and
    prints what the prose after it says."""
    assert block.text.count(MOCK_URL) == 3
    with _docs_mock() as url:
        exec(compile(block.text.replace(MOCK_URL, url), block.name, "exec"), {"__name__": "doc_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed == [
        "Hello! How can I assist you today?",
        "Hello from the ssegen mock.",
        "Hello from the ssegen mock.",
    ]
    prose = inline_code(block.file)
    assert printed[0] in prose and printed[1] in prose, f"the text after {block.name} names another output"


def check_mock_curl(block: Block, ctx: Ctx) -> None:
    """Each curl command runs as written against the docs' `ssegen mock` (on a free port): the
    first two get whole streams (the docs example, `Hi there` synthesized), the last exits 18 with
    the body cut inside its fourth event, as the prose says."""
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    commands = block.commands()
    assert len(commands) == 3 and all(c.startswith("curl -N ") for c in commands)
    runs = []
    with _docs_mock() as url:
        for command in commands:
            argv = shlex.split(command.replace(MOCK_URL, url))
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
    assert "The last one exits 18" in doc_text(block.file)


def _constant(source: str, file: str) -> str:
    """How ``source`` names ``file`` in a ``doc_block`` call: the name of a constant holding it, or the literal."""
    found = re.search(rf'^(\w+) = "{re.escape(file)}"(?:\s*#.*)?$', source, re.MULTILINE)
    return found.group(1) if found else f'"{file}"'


def run_by(test_file: str) -> Callable[[Block, Ctx], None]:
    """The block is run as written by ``test_file`` (it needs a fresh venv or a git repo)."""

    def check(block: Block, ctx: Ctx) -> None:
        source = (Path(__file__).parent / test_file).read_text(encoding="utf-8")
        key = f'doc_block({_constant(source, block.file)}, "{block.lang}", "'
        assert any(block.first_line.startswith(m) for m in re.findall(re.escape(key) + r'([^"]+)"\)', source)), (
            f"{block.name} is said to run in {test_file}, which does not read it"
        )

    return check


def check_results_example(block: Block, ctx: Ctx) -> None:
    """The results example runs as written and prints what its last comment says."""
    exec(compile(block.text, block.name, "exec"), {"__name__": "doc_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    assert printed == [block.text.rstrip().splitlines()[-1].removeprefix("# ")]


def check_client_example(block: Block, ctx: Ctx) -> None:
    """A streaming client example (docs/client.md) runs as written, on its own ``httpx.MockTransport``,
    and prints what its last comment lines say."""
    exec(compile(block.text, block.name, "exec"), {"__name__": "doc_example"})
    printed = ctx.capsys.readouterr().out.splitlines()
    lines = block.text.rstrip().splitlines()
    expected = [line.removeprefix("# ") for line in lines[len(lines) - len(printed) :]]
    assert printed and all(line.startswith("# ") for line in lines[-len(printed) :]), printed
    assert printed == expected


def check_architecture_picture(block: Block, ctx: Ctx) -> None:
    """The pipeline picture: its stages (the first word of each line not indented) are, in order, the folders and
    modules the code runs in that order, and every module or folder it names exists."""
    stages = [line.split()[0] for line in block.text.splitlines() if line[:1].strip()]  # lines not indented
    assert stages == [
        "specs/<provider>/*",
        "sources/",
        "ir/",
        "normalize/",
        "codemodel/",
        "templates/",
        "generated/<provider>/",
    ], f"{block.name}: stages {stages}: update the picture or this check"
    src = ROOT / "src" / "ssegen"
    named = set(re.findall(r"(?<![\w/<])(\w+(?:/|\.py))(?=[\s,)]|$)", block.text, re.MULTILINE))
    assert {"sources/", "emit.py", "runtime/"} <= named, named
    missing = [name for name in sorted(named - {"_runtime/"}) if not (src / name).exists()]
    assert not missing, f"{block.name} names what does not exist under src/ssegen: {missing}"
    # The data flow: load.py reads the sources into the IR and normalizes it; emit.py builds the code
    # model and renders the templates with the runtime; pipeline.py loads, then renders.
    load = (src / "load.py").read_text(encoding="utf-8")
    assert all(re.search(rf"^from \.{m}\b", load, re.MULTILINE) for m in ("sources", "ir", "normalize")), "load.py"
    emit = (src / "emit.py").read_text(encoding="utf-8")
    assert re.search(r"^from \.codemodel import", emit, re.MULTILINE) and '"templates"' in emit, "emit.py"
    assert re.search(r"^from \.runtime import", emit, re.MULTILINE), "emit.py writes the runtime"
    pipeline = (src / "pipeline.py").read_text(encoding="utf-8")
    assert 0 <= pipeline.find("load_provider(") < pipeline.find("render_provider("), "pipeline.py"


README, BUILD_STEP, MOCK_PAGE = "README.md", "docs/build-step.md", "docs/encoding-and-mock.md"
CLIENT_PAGE = "docs/client.md"

#: (file, language, start of the block's first line) -> check.  No block is only illustrative.
CHECKS: dict[tuple[str, str, str], Callable[[Block, Ctx], None]] = {
    (README, "sh", "python3 -m venv .venv"): check_quickstart,
    (README, "sh", "pip wheel --no-deps"): check_readme_install_block,
    (README, "python", "import os"): check_httpx_example,
    ("ARCHITECTURE.md", "text", "specs/<provider>/"): check_architecture_picture,
    ("benchmarks/README.md", "sh", "pip install -e '.[bench]'"): check_benchmarks,
    ("docs/results.md", "python", "from generated.deepseek import CHANNELS"): check_results_example,
    ("docs/results.md", "python", "import json"): check_results_example,
    ("docs/results.md", "python", "from generated import deepseek"): check_results_example,
    ("docs/results.md", "python", "from generated.deepseek import CHAT_COMPLETIONS_CHANNEL"): check_results_example,
    ("docs/families.md", "python", "from generated.anthropic import CHANNELS"): check_families_example,
    (CLIENT_PAGE, "python", "import httpx"): check_client_example,
    (CLIENT_PAGE, "python", "# A generated client"): check_client_example,
    (CLIENT_PAGE, "python", "import asyncio"): check_client_example,
    (CLIENT_PAGE, "python", "# 503, then 429"): check_client_example,
    (CLIENT_PAGE, "python", "# The connection drops"): check_client_example,
    ("docs/accumulation.md", "yaml", "channels:"): check_accumulate_extension,
    ("docs/accumulation.md", "yaml", "x-ssegen-accumulate:"): check_gemini_plan,
    (MOCK_PAGE, "python", "from generated.deepseek import CHANNELS"): check_encoding_example,
    (MOCK_PAGE, "sh", "$ pip install -e '.[mock]'"): check_mock_session,
    (MOCK_PAGE, "python", "import anthropic"): check_mock_sdks,
    (MOCK_PAGE, "sh", "curl -N http://127.0.0.1:8000"): check_mock_curl,
    (MOCK_PAGE, "python", "# tests/test_chat_ui.py"): run_by("../test_pytest_plugin.py"),
    ("docs/conform.md", "sh", "$ ssegen conform"): check_conform_session,
    ("docs/diff.md", "sh", "$ ssegen diff"): check_diff_session,
    ("docs/diff.md", "json", "{"): check_diff_json,
    ("docs/sources.md", "python", "from generated.ollama import CHANNELS"): check_ndjson_example,
    ("docs/discrimination.md", "yaml", "components:"): check_x_sse_event,
    (BUILD_STEP, "sh", "pip wheel --no-deps"): check_install_block,
    (BUILD_STEP, "toml", "# your pyproject.toml"): check_own_repository_config,
    (BUILD_STEP, "toml", "[tool.ruff]"): check_formatter_exclusions,
    (BUILD_STEP, "sh", "ssegen generate"): run_by("test_own_repository.py"),
    (BUILD_STEP, "sh", "pre-commit try-repo"): run_by("test_pre_commit_hooks.py"),
    (BUILD_STEP, "yaml", "# .pre-commit-config.yaml"): check_pre_commit_config,
}


def _matches(block: Block, key: tuple[str, str, str]) -> bool:
    file, lang, start = key
    return block.file == file and block.lang == lang and block.first_line.startswith(start)


def unchecked_blocks(checks: dict[tuple[str, str, str], object], files: list[str]) -> list[str]:
    """The blocks of ``files`` no key of ``checks`` matches, by name (file:line, language, first line)."""
    return [b.name for file in files for b in doc_blocks(file) if not any(_matches(b, key) for key in checks)]


def stale_checks(checks: dict[tuple[str, str, str], object], files: list[str]) -> list[tuple[str, str, str]]:
    """The keys of ``checks`` matching no block of ``files``, or several."""
    blocks = [b for file in files for b in doc_blocks(file)]
    return [key for key in checks if sum(_matches(b, key) for b in blocks) != 1]


def test_every_doc_block_has_a_check() -> None:
    files = doc_files()
    unchecked = unchecked_blocks(CHECKS, files)
    assert not unchecked, f"documentation blocks with no check in {__name__}.CHECKS: {unchecked}"
    stale = stale_checks(CHECKS, files)
    assert not stale, f"CHECKS entries matching no documentation block (or several): {stale}"


def test_a_block_with_no_check_is_named_by_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The completeness test can fail: a new page's block, and a check whose block is gone, are named."""
    import helpers.readme

    page = tmp_path / "docs" / "new.md"
    page.parent.mkdir()
    page.write_text("# New\n\nText.\n\n```python\nprint(1)\n```\n", encoding="utf-8")
    monkeypatch.setattr(helpers.readme, "ROOT", tmp_path)
    assert unchecked_blocks(CHECKS, ["docs/new.md"]) == ["docs/new.md:5 ```python 'print(1)'"]
    assert stale_checks({("docs/new.md", "python", "print(2)"): None}, ["docs/new.md"]) == [
        ("docs/new.md", "python", "print(2)")
    ]


def test_the_documentation_files_are_every_markdown_file_of_the_project() -> None:
    """No page escapes the block checks: every markdown file outside the specs, tests and output is listed."""
    skip = {".venv", "specs", "tests", "generated", "site", "build", "dist"}
    found = {p.relative_to(ROOT).as_posix() for p in ROOT.glob("*.md")}
    for folder in ROOT.iterdir():
        if folder.is_dir() and folder.name not in skip and not folder.name.startswith("."):
            found |= {p.relative_to(ROOT).as_posix() for p in folder.rglob("*.md")}
    files = doc_files()
    assert found == set(files), f"markdown files not checked: {sorted(found - set(files))}"
    assert any(file.startswith("docs/") for file in files) and (DOCS / "index.md").is_file()


def test_mkdocs_nav_lists_every_docs_page_and_ci_builds_it_strictly() -> None:
    """mkdocs.yml's nav holds every page of docs/ (a page missing from it would be built but unreachable),
    and `.ci/run` installs the `docs` extra and runs `mkdocs build --strict`."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # `!!python/name:` tags
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506

    def pages(nav: object) -> list[str]:
        if isinstance(nav, str):
            return [nav]
        if isinstance(nav, dict):
            return [page for value in nav.values() for page in pages(value)]
        return [page for item in nav for page in pages(item)] if isinstance(nav, list) else []

    listed = pages(config["nav"])
    on_disk = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")]
    assert sorted(listed) == sorted(on_disk) and len(set(listed)) == len(listed), (listed, on_disk)
    assert config["strict"] is True and config["theme"]["name"] == "material"
    docs_extra = {Requirement(r).name for r in _pyproject()["project"]["optional-dependencies"]["docs"]}
    assert docs_extra == {"mkdocs", "mkdocs-material"}
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    installs = [line for line in ci if line.startswith("pip install") and "docs" in line]
    assert installs and any("mkdocs build --strict" in line for line in ci[ci.index(installs[0]) :])


@pytest.mark.parametrize("key", list(CHECKS), ids=[f"{file}:{lang}:{start}" for file, lang, start in CHECKS])
def test_doc_block_runs_as_written(
    key: tuple[str, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    CHECKS[key](doc_block(*key), Ctx(tmp_path, monkeypatch, capsys))


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

"""AsyncAPI 3.0: the DeepSeek and Mistral seeds converted to 3.0 generate the same packages.

The inputs under ``tests/sources/asyncapi/v3/`` were produced from the 2.6 seeds by the
hand-written ``tests/sources/asyncapi/v3/convert.py`` (checked below to be reproducible):

* ``<provider>-3.0/spec.yaml``: one AsyncAPI 3.0.0 document (channels keyed by id
  with ``address``, ``messages`` maps referencing ``components/messages``,
  ``operations`` with ``action: send`` referencing channel and messages);
* ``<provider>-split/``: the same split across ``asyncapi.yaml``,
  ``messages.yaml`` and ``schemas/*.yaml`` with relative ``$ref`` s, payloads as
  multi-format schema objects ``{schemaFormat, schema}``.

Equivalence rule: generating a converted variant gives, file for file, exactly the
bytes of the committed ``generated/<provider>/``.  Generated code names no source
file or line (``ssegen ir`` and the diagnostics carry that provenance), so
nothing needs normalizing.  The docs page ``api-docs.txt`` is copied next to
DeepSeek's converted document so the docs merge runs the same.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GENERATED, ROOT, SPECS
from helpers.ir import inline_schemas
from helpers.trees import file_tree

from ssegen.cli import main
from ssegen.diagnostics import Diagnostic
from ssegen.irjson import to_jsonable
from ssegen.load import LoadResult, load_provider

INPUTS = ROOT / "tests" / "sources" / "asyncapi" / "v3"
VARIANTS = [
    ("deepseek", "deepseek-3.0"),
    ("deepseek", "deepseek-split"),
    ("mistral", "mistral-3.0"),
    ("mistral", "mistral-split"),
]
#: The AsyncAPI source of each provider in specs/ (the only file the variants replace).
ORIGINAL = {"deepseek": "asyncapi-page.txt", "mistral": "asyncapi-page.txt"}


def _specs_for(tmp_path: Path, provider: str, variant: str) -> Path:
    """A specs folder holding ``variant`` as ``<provider>/`` (plus DeepSeek's docs page)."""
    specs = tmp_path / "specs"
    shutil.copytree(INPUTS / variant, specs / provider)
    for extra in sorted((SPECS / provider).iterdir()):
        if extra.name != ORIGINAL[provider]:
            shutil.copy(extra, specs / provider / extra.name)
    return specs


def _variant_files(provider: str, variant: str) -> list[str]:
    folder = INPUTS / variant
    return sorted(f"{provider}/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*.yaml"))


def _normalizer(provider: str, files: list[str]):  # type: ignore[no-untyped-def]
    names = "|".join(re.escape(f) for f in sorted(files, key=len, reverse=True))
    pattern = re.compile(rf"(?:{names})(:\d+)?")
    return lambda text: pattern.sub(lambda m: "<asyncapi>" + (":<line>" if m.group(1) else ""), text)


@pytest.mark.parametrize(("provider", "variant"), VARIANTS)
def test_converted_spec_generates_the_committed_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, variant: str
) -> None:
    _specs_for(tmp_path, provider, variant)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["generate", "--specs", "specs", "--out", "generated", "-q", provider])
    assert result.exit_code == 0, result.output
    fresh, golden = file_tree(tmp_path / "generated" / provider), file_tree(GENERATED / provider)
    assert sorted(fresh) == sorted(golden)
    different = [name for name in sorted(golden) if fresh[name] != golden[name]]
    assert different == [], f"{variant} generates different bytes in {different}"


def _strip_provenance(node: object) -> object:
    if isinstance(node, dict):
        return {k: _strip_provenance(v) for k, v in node.items() if k not in ("provenance", "sources")}
    if isinstance(node, (list, tuple)):
        return [_strip_provenance(v) for v in node]
    return node


@pytest.mark.parametrize(("provider", "variant"), VARIANTS)
def test_converted_spec_gives_the_same_intermediate_model(tmp_path: Path, provider: str, variant: str) -> None:
    original = load_provider(SPECS, provider)
    converted = load_provider(_specs_for(tmp_path, provider, variant), provider)
    assert original.provider is not None and converted.provider is not None
    # Schemas compared whole at each use site: their $defs keys may carry a hash of their provenance.
    same = [_strip_provenance(inline_schemas(to_jsonable(r.provider))) for r in (converted, original)]
    assert same[0] == same[1]


def _channel_pointers(result: LoadResult) -> dict[str, str]:
    """Each channel's pointer (``/channels/betaCompletions`` in 3.0) -> the pointer its address
    has as a 2.x channel key (``/channels/~1beta~1completions``)."""
    assert result.provider is not None
    return {
        c.provenance.pointer: "/channels/" + c.address.replace("~", "~0").replace("/", "~1")
        for c in result.provider.channels
    }


def _wart_view(result: LoadResult, provider: str, files: list[str], split: bool) -> Counter[tuple[str, str, str, str]]:
    """(code, severity, pointer, message) of each diagnostic, provenance normalized.

    Split parts hold ``components/schemas/X`` at ``schemas/*.yaml#/X`` and
    ``components/messages/X`` at ``messages.yaml#/X``: their pointers are mapped
    back; a 3.0 channel's key is mapped to its address (a request's gaps are reported at its
    channel). ``source-unknown-format`` for ``messages.yaml`` is left out (see the test
    below: a load.py matter).
    """
    normalize = _normalizer(provider, files)
    channels = _channel_pointers(result)
    view: Counter[tuple[str, str, str, str]] = Counter()
    for d in result.diagnostics.items:
        if d.code == "source-unknown-format":
            continue
        pointer = channels.get(d.pointer, d.pointer)
        if split and d.file.startswith(f"{provider}/schemas/"):
            pointer = "/components/schemas" + pointer
        elif split and d.file == f"{provider}/messages.yaml":
            pointer = "/components/messages" + pointer
        message = normalize(d.message)
        if split:
            message = re.sub(
                r"<asyncapi>:<line> /(?!components|info|channels|operations|servers)",
                "<asyncapi>:<line> /components/schemas/",
                message,
            )
        view[(d.code, d.severity.value, pointer, message)] += 1
    return view


@pytest.mark.parametrize(("provider", "variant"), VARIANTS)
def test_warts_give_the_same_diagnostics_at_their_new_lines(tmp_path: Path, provider: str, variant: str) -> None:
    specs = _specs_for(tmp_path, provider, variant)
    original = load_provider(SPECS, provider)
    converted = load_provider(specs, provider)
    files = [f"{provider}/{ORIGINAL[provider]}", *_variant_files(provider, variant)]
    split = variant.endswith("-split")
    assert _wart_view(converted, provider, files, split) == _wart_view(original, provider, files, split)
    # Every diagnostic about a converted file names the line of the member its pointer names.
    for d in converted.diagnostics.items:
        if d.file.endswith(".yaml") and d.pointer not in ("", "/"):
            line = (specs / d.file).read_text(encoding="utf-8").splitlines()[d.line - 1]
            token = d.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            if token.isdigit():
                assert line.lstrip().startswith("- "), (d.format(), line)
            else:
                assert line.lstrip(" -").startswith((f"{token}:", f"'{token}':")), (d.format(), line)


def test_mistral_email_wart_survives_in_3_0(tmp_path: Path) -> None:
    for variant, file in (("mistral-3.0", "spec.yaml"), ("mistral-split", "asyncapi.yaml")):
        specs = _specs_for(tmp_path / variant, "mistral", variant)
        text = (specs / "mistral" / file).read_text(encoding="utf-8")
        # The scraper's e-mail obfuscation, with its no-break space, kept as is.
        assert "    email: [email\u00a0protected]\n" in text
        [diag] = [d for d in load_provider(specs, "mistral").diagnostics.items if d.code == "info-field-type"]
        line = text.splitlines().index("    email: [email\u00a0protected]") + 1
        assert (diag.file, diag.line, diag.pointer) == (f"mistral/{file}", line, "/info/contact/email")


def test_split_part_read_through_ref_is_not_reported_as_an_unknown_source(tmp_path: Path) -> None:
    """``messages.yaml`` sits at the top of the provider folder but is used only through $ref."""
    specs = _specs_for(tmp_path, "deepseek", "deepseek-split")
    unknown = [d for d in load_provider(specs, "deepseek").diagnostics.items if d.code == "source-unknown-format"]
    assert unknown == []
    (specs / "deepseek" / "notes.txt").write_text("just notes\n", encoding="utf-8")
    unknown = [d for d in load_provider(specs, "deepseek").diagnostics.items if d.code == "source-unknown-format"]
    assert [d.file for d in unknown] == ["deepseek/notes.txt"]


def test_inputs_are_what_the_converter_writes(tmp_path: Path) -> None:
    copy = tmp_path / "tests" / "sources" / "asyncapi" / "v3"
    shutil.copytree(INPUTS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "specs").symlink_to(SPECS)
    result = subprocess.run([sys.executable, str(copy / "convert.py")], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert file_tree(copy) == file_tree(INPUTS), "rerun tests/sources/asyncapi/v3/convert.py"


def test_3_0_documents_use_the_3_0_structure() -> None:
    import yaml

    doc = yaml.safe_load((INPUTS / "deepseek-3.0" / "spec.yaml").read_text(encoding="utf-8"))
    assert doc["asyncapi"] == "3.0.0"
    assert doc["channels"]["chatCompletions"]["address"] == "/chat/completions"
    assert doc["channels"]["chatCompletions"]["messages"]["StreamDone"] == {"$ref": "#/components/messages/StreamDone"}
    op = doc["operations"]["subscribeChatCompletionStream"]
    assert op["action"] == "send" and op["channel"] == {"$ref": "#/channels/chatCompletions"}
    assert op["messages"][0] == {"$ref": "#/channels/chatCompletions/messages/ChatCompletionChunk"}
    split = yaml.safe_load((INPUTS / "mistral-split" / "messages.yaml").read_text(encoding="utf-8"))
    assert split["ChatCompletionChunk"]["payload"]["schema"] == {"$ref": "./schemas/chunk.yaml#/ChatCompletionChunk"}
    assert split["ChatCompletionChunk"]["payload"]["schemaFormat"].startswith("application/vnd.aai.asyncapi")
    assert json.dumps(doc)  # plain data


# -- reference resolution: each failure is a diagnostic with code, file, line and pointer --------


def _write(root: Path, files: dict[str, str]) -> Path:
    specs = root / "specs"
    for rel, text in files.items():
        path = specs / "p" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return specs


def _doc(message_ref: str) -> str:
    return f"""asyncapi: 3.0.0
info:
  title: T
  version: '1'
channels:
  chat:
    address: /chat
    messages:
      Chunk:
        $ref: './messages.yaml#/Chunk'
      Other:
        $ref: '{message_ref}'
operations:
  recv:
    action: send
    channel:
      $ref: '#/channels/chat'
"""


MESSAGES = """Chunk:
  name: Chunk
  payload:
    schemaFormat: application/schema+yaml;version=draft-07
    schema:
      $ref: './schemas/chunk.yaml#/Chunk'
"""
CHUNK = """Chunk:
  type: object
  properties:
    id:
      type: string
"""


def _diagnostics(tmp_path: Path, files: dict[str, str]) -> list[Diagnostic]:
    specs = _write(tmp_path, {"messages.yaml": MESSAGES, "schemas/chunk.yaml": CHUNK, **files})
    result = load_provider(specs, "p")
    assert result.provider is not None, [d.format() for d in result.diagnostics.items]
    # The good message still loads, whatever happened to the other.
    [channel] = result.provider.channels
    assert [m.name for m in channel.messages][:1] == ["Chunk"]
    assert [p.name for p in channel.messages[0].payload.properties] == ["id"]
    return [d for d in result.diagnostics.items if d.code.startswith("ref-")]


def _where(d: Diagnostic) -> tuple[str, str, int, str]:
    return (d.code, d.file, d.line, d.pointer)


def test_ref_to_a_missing_file(tmp_path: Path) -> None:
    [d] = _diagnostics(tmp_path, {"asyncapi.yaml": _doc("./schemas/gone.yaml#/Other")})
    assert _where(d) == ("ref-missing", "p/asyncapi.yaml", 12, "/channels/chat/messages/Other/$ref")
    assert "p/schemas/gone.yaml does not exist" in d.message


def test_ref_to_a_missing_pointer_in_another_file(tmp_path: Path) -> None:
    [d] = _diagnostics(tmp_path, {"asyncapi.yaml": _doc("./schemas/chunk.yaml#/Nope/deeper")})
    assert _where(d) == ("ref-missing", "p/asyncapi.yaml", 12, "/channels/chat/messages/Other/$ref")
    assert "p/schemas/chunk.yaml has no /Nope/deeper" in d.message


def test_message_refs_circular_across_files(tmp_path: Path) -> None:
    files = {
        "asyncapi.yaml": _doc("./loop/a.yaml#/A"),
        "loop/a.yaml": "# a\nA:\n  $ref: './b.yaml#/B'\n",
        "loop/b.yaml": "# b\n\nB:\n  $ref: './a.yaml#/A'\n",
    }
    [d] = _diagnostics(tmp_path, files)
    assert _where(d) == ("ref-circular", "p/loop/b.yaml", 4, "/B/$ref")
    assert "leads back to p/loop/a.yaml#/A" in d.message


def test_schema_refs_circular_across_files(tmp_path: Path) -> None:
    files = {
        "asyncapi.yaml": _doc("./messages.yaml#/Tree"),
        "messages.yaml": MESSAGES + "Tree:\n  payload:\n    $ref: './schemas/a.yaml#/A'\n",
        "schemas/a.yaml": "A:\n  type: object\n  properties:\n    b:\n      $ref: './b.yaml#/B'\n",
        "schemas/b.yaml": "B:\n  type: object\n  properties:\n    a:\n      $ref: './a.yaml#/A'\n",
    }
    [d] = _diagnostics(tmp_path, files)
    assert _where(d) == ("ref-circular", "p/schemas/b.yaml", 5, "/B/properties/a/$ref")


def test_remote_ref_is_refused(tmp_path: Path) -> None:
    [d] = _diagnostics(tmp_path, {"asyncapi.yaml": _doc("https://example.com/spec.yaml#/Other")})
    assert _where(d) == ("ref-remote", "p/asyncapi.yaml", 12, "/channels/chat/messages/Other/$ref")


def test_file_uri_with_a_host_is_refused_as_remote(tmp_path: Path) -> None:
    [d] = _diagnostics(tmp_path, {"asyncapi.yaml": _doc("//example.com/spec.yaml#/Other")})
    assert _where(d) == ("ref-remote", "p/asyncapi.yaml", 12, "/channels/chat/messages/Other/$ref")


@pytest.mark.parametrize("ref", ["../../etc/passwd", "../../../../../../../../etc/passwd#/x", "/etc/passwd"])
def test_escaping_ref_is_refused(tmp_path: Path, ref: str) -> None:
    [d] = _diagnostics(tmp_path, {"asyncapi.yaml": _doc(ref)})
    assert _where(d) == ("ref-escape", "p/asyncapi.yaml", 12, "/channels/chat/messages/Other/$ref")
    assert "leaves the specs folder" in d.message


def test_nested_ref_failure_names_the_file_that_holds_it(tmp_path: Path) -> None:
    files = {
        "asyncapi.yaml": _doc("./messages.yaml#/Broken"),
        "messages.yaml": MESSAGES
        + (
            "Broken:\n  payload:\n    schemaFormat: application/schema+json;version=draft-07\n"
            "    schema:\n      $ref: './schemas/none.yaml#/X'\n"
        ),
    }
    [d] = _diagnostics(tmp_path, files)
    assert _where(d) == ("ref-missing", "p/messages.yaml", 11, "/Broken/payload/schema/$ref")


# -- 3.0 loader details ----------------------------------------------------------------------------


def test_operation_messages_through_a_referenced_channel(tmp_path: Path) -> None:
    """``#/channels/chat/messages/X`` where ``chat`` is itself a ``$ref`` to another file."""
    doc = """asyncapi: 3.0.0
info: {title: T, version: '1'}
channels:
  chat:
    $ref: './channels.yaml#/chat'
  other:
    address: /other
    messages: {}
operations:
  recv:
    action: send
    channel: {$ref: '#/channels/chat'}
    messages:
      - $ref: '#/channels/chat/messages/Chunk'
"""
    channels = (
        "chat:\n  address: /chat/completions\n  messages:\n"
        "    Chunk:\n      $ref: './messages.yaml#/Chunk'\n"
        "    Unused:\n      $ref: './messages.yaml#/Chunk'\n"
    )
    specs = _write(
        tmp_path,
        {"asyncapi.yaml": doc, "channels.yaml": channels, "messages.yaml": MESSAGES, "schemas/chunk.yaml": CHUNK},
    )
    result = load_provider(specs, "p")
    assert [d.format() for d in result.diagnostics.items if d.severity.value == "error"] == []
    assert result.provider is not None
    [channel] = result.provider.channels  # /other has no send operation
    assert channel.address == "/chat/completions" and channel.operation_id == "recv"
    assert [m.name for m in channel.messages] == ["Chunk"]
    assert channel.messages[0].provenance.file == "p/messages.yaml"


def test_receive_operation_reply_is_what_the_client_receives(tmp_path: Path) -> None:
    """The application receives the request and answers with the reply: the client receives the reply."""
    doc = """asyncapi: 3.0.0
info: {title: T, version: '1'}
channels:
  chat:
    address: /chat
    messages:
      Request: {payload: {type: object}}
      Chunk: {$ref: './messages.yaml#/Chunk'}
operations:
  createChat:
    action: receive
    channel: {$ref: '#/channels/chat'}
    messages: [{$ref: '#/channels/chat/messages/Request'}]
    reply:
      messages: [{$ref: '#/channels/chat/messages/Chunk'}]
"""
    specs = _write(tmp_path, {"asyncapi.yaml": doc, "messages.yaml": MESSAGES, "schemas/chunk.yaml": CHUNK})
    result = load_provider(specs, "p")
    assert result.provider is not None
    [channel] = result.provider.channels
    assert channel.operation_id == "createChat" and [m.name for m in channel.messages] == ["Chunk"]
    # The receive operation's message is the request the reply answers.
    assert channel.request is not None and channel.request.body is not None
    assert channel.request.provenance.pointer == "/operations/createChat"
    assert not [d for d in result.diagnostics.items if d.code == "operation-request-skipped"]


def test_unsupported_schema_format_is_a_warning_with_place(tmp_path: Path) -> None:
    messages = (
        MESSAGES
        + "Avro:\n  payload:\n    schemaFormat: application/vnd.apache.avro;version=1.9.0\n    schema: {type: record}\n"
    )
    specs = _write(
        tmp_path,
        {"asyncapi.yaml": _doc("./messages.yaml#/Avro"), "messages.yaml": messages, "schemas/chunk.yaml": CHUNK},
    )
    result = load_provider(specs, "p")
    [d] = [d for d in result.diagnostics.items if d.code == "schema-format-unsupported"]
    assert (d.file, d.line, d.pointer) == ("p/messages.yaml", 9, "/Avro/payload/schemaFormat")


def test_operation_channel_that_names_no_channel(tmp_path: Path) -> None:
    doc = _doc("./messages.yaml#/Chunk").replace("$ref: '#/channels/chat'", "$ref: '#/channels/nope'")
    specs = _write(tmp_path, {"asyncapi.yaml": doc, "messages.yaml": MESSAGES, "schemas/chunk.yaml": CHUNK})
    codes = [(d.code, d.line, d.pointer) for d in load_provider(specs, "p").diagnostics.items]
    assert ("ref-missing", 17, "/operations/recv/channel/$ref") in codes


def test_3_0_server_url_from_host_pathname_and_protocol(tmp_path: Path) -> None:
    specs = _specs_for(tmp_path, "deepseek", "deepseek-3.0")
    servers = load_provider(specs, "deepseek").provider.servers  # type: ignore[union-attr]
    assert [(s.name, s.url, s.protocol) for s in servers] == [
        ("production", "https://api.deepseek.com", "https"),
        ("beta", "https://api.deepseek.com/beta", "https"),
    ]

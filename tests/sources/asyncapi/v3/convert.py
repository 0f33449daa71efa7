"""Hand-written converter: the AsyncAPI 2.6 seeds -> AsyncAPI 3.0.0 test inputs.

Run from the repository root (``.venv/bin/python tests/sources/asyncapi/v3/convert.py``); it
rewrites the committed inputs under ``tests/sources/asyncapi/v3/``:

* ``<provider>-3.0/spec.yaml``: one AsyncAPI 3.0.0 document;
* ``<provider>-split/asyncapi.yaml`` + ``messages.yaml`` + ``schemas/*.yaml``: the
  same document split across files with relative ``$ref`` s, message payloads as
  multi-format schema objects ``{schemaFormat, schema}``.

What changes from 2.6 to 3.0 (and nothing else: every schema, description,
example and wart is copied as parsed, so the warts give the same diagnostics):

* ``servers.<name>.url`` -> ``host`` + ``pathname``; ``security`` entries become
  references to ``components/securitySchemes``;
* ``channels`` are keyed by an id (``chatCompletions``) with the path as
  ``address``; a channel's ``messages`` map references ``components/messages``;
* each ``subscribe`` operation becomes ``operations.<operationId>`` with
  ``action: send`` (the application sends what the client subscribes to, as
  asyncapi/spec converts its own 2.6 examples), ``channel: {$ref: '#/channels/<id>'}`` and ``messages``
  referencing the channel's messages (same order as the 2.6 ``oneOf``);
* top-level ``externalDocs`` moves into ``info`` (3.0 has no root externalDocs).
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
RAW_MARKER = "Raw ↑"

#: schema component -> file (under schemas/) of the split variant, per provider.
SPLIT_SCHEMAS = {
    "deepseek": {
        "ChatCompletionChunk": "chunk.yaml",
        "ChatCompletionChunkChoice": "chunk.yaml",
        "ChatCompletionDelta": "chunk.yaml",
        "ChatCompletionUsage": "usage.yaml",
        "FimCompletionChunk": "fim.yaml",
        "FimCompletionChunkChoice": "fim.yaml",
        "StreamDone": "done.yaml",
    },
    "mistral": {
        "ChatCompletionChunk": "chunk.yaml",
        "ChatCompletionUsageChunk": "chunk.yaml",
        "ChatStreamChoice": "chunk.yaml",
        "DeltaMessage": "chunk.yaml",
        "ToolCallDelta": "chunk.yaml",
        "FimCompletionChunk": "fim.yaml",
        "FimStreamChoice": "fim.yaml",
        "AgentCompletionChunk": "agent.yaml",
        "Usage": "usage.yaml",
        "StreamDone": "done.yaml",
    },
}

SCHEMA_FORMAT = "application/vnd.aai.asyncapi+json;version=3.0.0"


class FlowList(list):  # type: ignore[type-arg]
    """A list dumped in flow style (keeps Mistral's `email: [email protected]` wart)."""


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _flow(dumper: yaml.SafeDumper, value: FlowList) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(FlowList, _flow)


def dump(data: Any) -> str:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    assert yaml.safe_load(text) == data, "the dump must read back as the same data"
    return text


def load_seed(provider: str) -> dict[str, Any]:
    text = (ROOT / "specs" / provider / "asyncapi-page.txt").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == RAW_MARKER)
    data = yaml.safe_load("".join(lines[start + 1 :]))
    assert isinstance(data, dict) and str(data["asyncapi"]).startswith("2.")
    return data


def channel_id(address: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", address) if w]
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def _security(items: Any) -> Any:
    return [{"$ref": f"#/components/securitySchemes/{name}"} for item in items for name in item]


def to_v3(doc: dict[str, Any]) -> dict[str, Any]:
    """The AsyncAPI 3.0.0 form of a 2.6 document (single file)."""
    doc = copy.deepcopy(doc)
    info = doc["info"]
    email = info.get("contact", {}).get("email")
    if isinstance(email, list):
        info["contact"]["email"] = FlowList(email)
    if "externalDocs" in doc:
        info["externalDocs"] = doc.pop("externalDocs")
    out: dict[str, Any] = {"asyncapi": "3.0.0", "info": info}
    if "defaultContentType" in doc:
        out["defaultContentType"] = doc["defaultContentType"]
    servers = {}
    for name, server in doc.get("servers", {}).items():
        url = urlparse(server["url"])
        new: dict[str, Any] = {"host": url.netloc}
        if url.path:
            new["pathname"] = url.path
        for key, value in server.items():
            if key == "url":
                continue
            new[key] = _security(value) if key == "security" else value
        servers[name] = new
    out["servers"] = servers
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    for address, item in doc["channels"].items():
        cid = channel_id(address)
        sub = item["subscribe"]
        refs = sub["message"]["oneOf"]
        names = [r["$ref"].rsplit("/", 1)[-1] for r in refs]
        channel: dict[str, Any] = {"address": address}
        for key, value in item.items():
            if key == "subscribe":
                continue
            if key == "servers":
                value = [{"$ref": f"#/servers/{s}"} for s in value]
            channel[key] = value
        channel["messages"] = {n: {"$ref": f"#/components/messages/{n}"} for n in names}
        channels[cid] = channel
        op: dict[str, Any] = {"action": "send", "channel": {"$ref": f"#/channels/{cid}"}}
        for key, value in sub.items():
            if key not in ("operationId", "message"):
                op[key] = value
        op["messages"] = [{"$ref": f"#/channels/{cid}/messages/{n}"} for n in names]
        operations[sub["operationId"]] = op
    out["channels"] = channels
    out["operations"] = operations
    out["components"] = doc["components"]
    return out


def _rewrite_refs(node: Any, fix: Any) -> Any:
    if isinstance(node, dict):
        return {k: (fix(v) if k == "$ref" and isinstance(v, str) else _rewrite_refs(v, fix)) for k, v in node.items()}
    if isinstance(node, list):
        return (
            type(node)(_rewrite_refs(v, fix) for v in node)
            if isinstance(node, FlowList)
            else [_rewrite_refs(v, fix) for v in node]
        )
    return node


def split(provider: str, v3: dict[str, Any]) -> dict[str, Any]:
    """relative path -> data of the split variant."""
    where = SPLIT_SCHEMAS[provider]
    prefix = "#/components/schemas/"
    files: dict[str, Any] = {}
    for name, schema in v3["components"]["schemas"].items():
        file = where[name]

        def fix(ref: str, file: str = file) -> str:
            assert ref.startswith(prefix), ref
            target = ref[len(prefix) :]
            return f"#/{target}" if where[target] == file else f"./{where[target]}#/{target}"

        files.setdefault(f"schemas/{file}", {})[name] = _rewrite_refs(schema, fix)
    messages = {}
    for name, message in v3["components"]["messages"].items():
        message = dict(message)
        ref = message["payload"]["$ref"]
        target = ref[len(prefix) :]
        message["payload"] = {"schemaFormat": SCHEMA_FORMAT, "schema": {"$ref": f"./schemas/{where[target]}#/{target}"}}
        messages[name] = message
    files["messages.yaml"] = messages
    root = copy.deepcopy(v3)
    for channel in root["channels"].values():
        channel["messages"] = {n: {"$ref": f"./messages.yaml#/{n}"} for n in channel["messages"]}
    root["components"] = {k: v for k, v in root["components"].items() if k not in ("messages", "schemas")}
    files["asyncapi.yaml"] = root
    return files


HEADER = "# Converted from specs/{provider}/asyncapi-page.txt (AsyncAPI 2.6) by tests/sources/asyncapi/v3/convert.py.\n"


def main() -> int:
    for provider in ("deepseek", "mistral"):
        v3 = to_v3(load_seed(provider))
        single = HERE / f"{provider}-3.0" / "spec.yaml"
        single.parent.mkdir(parents=True, exist_ok=True)
        single.write_text(HEADER.format(provider=provider) + dump(v3), encoding="utf-8")
        for rel, data in split(provider, v3).items():
            path = HERE / f"{provider}-split" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            head = (
                HEADER.format(provider=provider)
                if rel == "asyncapi.yaml"
                else f"# Part of the split AsyncAPI 3.0 form of specs/{provider}/asyncapi-page.txt.\n"
            )
            path.write_text(head + dump(data), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

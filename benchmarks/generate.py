"""Generation benchmark: ``ssegen generate`` and a no-op ``ssegen check`` against
datamodel-code-generator, cold processes, in the same run.

Usage::

    python benchmarks/generate.py [--runs R] [--json]

Times (best of ``--runs``, each a fresh subprocess, so imports are included):

``generate``  ``ssegen generate --specs specs --out TMP`` for every provider,
              into an empty temporary folder;
``check``     ``ssegen check --specs specs --out TMP`` right after, with nothing
              changed (the no-op CI / pre-commit case);
``generate-pydantic``  ``ssegen generate --model pydantic`` likewise;
``dcg``       ``datamodel-codegen`` generating ``msgspec.Struct`` models from the
              DeepSeek ``ChatCompletionChunk`` JSON Schema (exported from
              ``generated/deepseek/schemas.json`` into a temporary file);
``dcg-pydantic``  the same schema to pydantic v2 ``BaseModel``s.
``generate-openapi``  ``ssegen generate`` on a provider folder holding only OpenAI's
              published ``openapi.yaml`` (about 3 MB, 288 operations, 7 streaming),
              copied from ``../shared/corpus/openapi/openai/`` into a temporary folder;
              skipped (null) when that third-party file is absent.

Each ssegen figure is also given as a ratio to ``dcg`` (below 1: faster).
No time is ever asserted; CI runs it once to prove it works.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OPENAI_OPENAPI = ROOT.parent / "shared" / "corpus" / "openapi" / "openai" / "openapi.yaml"


def synthetic_document(messages: int) -> dict[str, Any]:
    """An AsyncAPI 2.6 document (as JSON data) of one SSE channel with ``messages`` messages.

    Message ``i`` is ``Event<i>``: an object told apart by its ``type`` member (fixed to
    ``event.<i>``), with an ``index``, a ``delta`` object of its own (a ``$ref`` to
    ``Delta<i>``, whose ``count`` is ``nullable: true`` and ``note`` a ``[string, null]`` type
    list: two info diagnostics per message) and a ``usage`` object shared by all (one
    ``$ref``). Odd messages carry an example; even ones get a synthesized conformance case.
    Every part grows with ``messages``: schemas, classes, diagnostics, examples, tests.

    Raises:
        ValueError: ``messages`` is below 1.
    """
    if messages < 1:
        raise ValueError(f"a synthetic document needs at least one message, not {messages}")
    schemas: dict[str, Any] = {
        "Usage": {
            "type": "object",
            "properties": {"prompt_tokens": {"type": "integer"}, "completion_tokens": {"type": "integer"}},
        }
    }
    components: dict[str, Any] = {}
    for i in range(messages):
        schemas[f"Delta{i}"] = {
            "type": "object",
            "required": ["text"],
            "properties": {
                "text": {"type": "string", "description": f"Text of event {i}."},
                "count": {"type": "integer", "nullable": True},
                "note": {"type": ["string", "null"]},
                "kind": {"type": "string", "enum": ["a", "b", "c"]},
            },
        }
        payload = {
            "type": "object",
            "required": ["type", "index"],
            "properties": {
                "type": {"type": "string", "const": f"event.{i}"},
                "index": {"type": "integer"},
                "delta": {"$ref": f"#/components/schemas/Delta{i}"},
                "usage": {"$ref": "#/components/schemas/Usage"},
            },
        }
        message: dict[str, Any] = {"name": f"Event{i}", "summary": f"Event number {i}.", "payload": payload}
        if i % 2:
            example = {"type": f"event.{i}", "index": 0, "delta": {"text": "hi", "count": 1, "kind": "a"}}
            message["examples"] = [{"name": "one", "payload": example}]
        components[f"Event{i}"] = message
    return {
        "asyncapi": "2.6.0",
        "info": {"title": "Synthetic stream", "version": "1"},
        "servers": {"production": {"url": "https://example.com", "protocol": "https"}},
        "channels": {
            "/stream": {
                "subscribe": {
                    "operationId": "stream",
                    "message": {"oneOf": [{"$ref": f"#/components/messages/{name}"} for name in components]},
                }
            }
        },
        "components": {"messages": components, "schemas": schemas},
    }


def _tool(name: str) -> str:
    """The console script ``name`` of this interpreter's environment."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found (pip install -e '.[bench]')")
    return found


def _run(command: list[str], expect: int = 0, cwd: Path = ROOT) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != expect:
        raise SystemExit(
            f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
        )
    return seconds


def _dcg_input(folder: Path) -> Path:
    schemas = json.loads(
        (ROOT / "generated" / "deepseek" / "schemas.json").read_text(encoding="utf-8")
    )
    chunk = schemas["channels"]["/chat/completions"]["ChatCompletionChunk"]
    path = folder / "deepseek_chat_completion_chunk.schema.json"
    path.write_text(json.dumps({"$defs": schemas["$defs"], **chunk}, indent=2), encoding="utf-8")
    return path


def measure(runs: int) -> dict[str, Any]:
    ssegen = _tool("ssegen")
    dcg = _tool("datamodel-codegen")
    best = {
        "generate": float("inf"),
        "check": float("inf"),
        "generate-pydantic": float("inf"),
        "dcg": float("inf"),
        "dcg-pydantic": float("inf"),
        "generate-openapi": float("inf") if OPENAI_OPENAPI.is_file() else None,
    }
    with tempfile.TemporaryDirectory(prefix="ssegen-bench-") as tmp:
        schema = _dcg_input(Path(tmp))
        openapi_specs = Path(tmp) / "openapi-specs"
        if OPENAI_OPENAPI.is_file():
            (openapi_specs / "openai").mkdir(parents=True)
            shutil.copy(OPENAI_OPENAPI, openapi_specs / "openai" / "openapi.yaml")
        for i in range(runs):
            out = Path(tmp) / f"out{i}"
            best["generate"] = min(
                best["generate"],
                _run([ssegen, "generate", "-q", "--specs", "specs", "--out", str(out)]),
            )
            best["check"] = min(
                best["check"], _run([ssegen, "check", "--specs", "specs", "--out", str(out)])
            )
            pydantic_out = Path(tmp) / f"pydantic{i}"
            best["generate-pydantic"] = min(
                best["generate-pydantic"],
                _run([ssegen, "generate", "-q", "--model", "pydantic", "--specs", "specs", "--out", str(pydantic_out)]),
            )
            best["dcg"] = min(
                best["dcg"],
                _run([
                    dcg, "--input", str(schema), "--input-file-type", "jsonschema",
                    "--output-model-type", "msgspec.Struct", "--output", str(Path(tmp) / f"dcg{i}.py"),
                ]),  # fmt: skip
            )
            best["dcg-pydantic"] = min(
                best["dcg-pydantic"],
                _run([
                    dcg, "--input", str(schema), "--input-file-type", "jsonschema",
                    "--output-model-type", "pydantic_v2.BaseModel",
                    "--output", str(Path(tmp) / f"dcg_pydantic{i}.py"),
                ]),  # fmt: skip
            )
            if best["generate-openapi"] is not None:
                openapi_out = Path(tmp) / f"openapi{i}"
                best["generate-openapi"] = min(
                    best["generate-openapi"],
                    # Run outside this project, whose [tool.ssegen] is strict: as a user would.
                    _run(
                        [ssegen, "generate", "-q", "--specs", str(openapi_specs), "--out", str(openapi_out)],
                        cwd=Path(tmp),
                    ),
                )
        providers = sorted(p.name for p in (Path(tmp) / "out0").iterdir() if p.is_dir())
    return {
        "python": sys.version.split()[0],
        "runs": runs,
        "providers": providers,
        "seconds": best,
        "generate_vs_dcg": best["generate"] / best["dcg"],
        "check_vs_dcg": best["check"] / best["dcg"],
        "generate_pydantic_vs_dcg_pydantic": best["generate-pydantic"] / best["dcg-pydantic"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per command (best is kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    results = measure(max(1, args.runs))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    s = results["seconds"]
    print(f"Python {results['python']}, cold processes, best of {results['runs']};"
          f" providers: {', '.join(results['providers'])}")  # fmt: skip
    print(f"{'command':<44} {'seconds':>8} {'vs dcg':>7}")
    print("-" * 61)
    print(
        f"{'ssegen generate (all providers)':<44} {s['generate']:>8.3f} {results['generate_vs_dcg']:>6.2f}x"
    )
    print(f"{'ssegen check (no-op)':<44} {s['check']:>8.3f} {results['check_vs_dcg']:>6.2f}x")
    print(f"{'datamodel-codegen (DeepSeek chunk, msgspec)':<44} {s['dcg']:>8.3f} {1:>6.2f}x")
    ratio = results["generate_pydantic_vs_dcg_pydantic"]
    print(f"{'ssegen generate --model pydantic (all)':<44} {s['generate-pydantic']:>8.3f} {ratio:>6.2f}x")
    print(f"{'datamodel-codegen (DeepSeek chunk, pydantic)':<44} {s['dcg-pydantic']:>8.3f} {1:>6.2f}x")
    print("(the pydantic rows: ratio to datamodel-codegen's pydantic run)")
    if s["generate-openapi"] is not None:
        print(f"{'ssegen generate (OpenAI openapi.yaml, 3 MB)':<44} {s['generate-openapi']:>8.3f}")
    else:
        print(f"ssegen generate (OpenAI openapi.yaml): skipped, {OPENAI_OPENAPI} is absent")
    return 0


if __name__ == "__main__":
    sys.exit(main())

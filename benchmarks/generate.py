"""Generation benchmark: ``ssegen generate`` and a no-op ``ssegen check`` against
datamodel-code-generator, cold processes, in the same run; generate time against document size
and the formatter's share, black vs ruff.

Usage::

    python benchmarks/generate.py [--runs R] [--scale-runs S] [--max-messages N] [--json]

Times (best of ``--runs``, each a fresh subprocess, so imports are included):

``generate``  ``ssegen generate --specs specs --out TMP`` for every provider,
              into an empty temporary folder;
``check``     ``ssegen check --specs specs --out TMP`` right after, with nothing
              changed (the no-op CI / pre-commit case);
``generate-noop``  ``ssegen generate`` again right after, nothing changed (answers from the
              manifest as ``check`` does);
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

Scaling and formatter share (in one process, best of ``--scale-runs``, formatter caches
cleared before each run, CPU seconds of the process and of ruff's): the seed specs, OpenAI's document when present, and
synthetic AsyncAPI documents of 10 to 5,000 messages (:func:`synthetic_document`; sizes above
``--max-messages`` are skipped), each generated (build, compare, write) with ``formatter =
"black"`` and ``"ruff"``. Per row: the total, the formatter's seconds and share, the rest
(loading, normalizing, the code model, rendering, writing), and the process's peak RSS so far.
A least-squares fit of log(seconds) on log(messages) over the sizes from 100 up gives the
slope: 1 is linear, 2 quadratic.

No time is ever asserted; CI runs it once, small, to prove it works.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OPENAI_OPENAPI = ROOT.parent / "shared" / "corpus" / "openapi" / "openai" / "openapi.yaml"

#: Synthetic document sizes (messages) of the scaling table.
SIZES = (10, 30, 100, 300, 1000, 3000, 5000)

#: The formatters compared.
FORMATTERS = ("black", "ruff")


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
        "generate-noop": float("inf"),
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
            best["generate-noop"] = min(
                best["generate-noop"],
                _run([ssegen, "generate", "-q", "--specs", "specs", "--out", str(out)]),
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
        "generate_noop_vs_dcg": best["generate-noop"] / best["dcg"],
        "generate_pydantic_vs_dcg_pydantic": best["generate-pydantic"] / best["dcg-pydantic"],
    }


def _generate_in_process(specs: Path, out: Path, formatter: str, runs: int) -> dict[str, float]:
    """Best of ``runs`` in-process generations of ``specs`` into a fresh ``out`` with ``formatter``:
    ``{"seconds", "formatter", "rest"}`` (CPU seconds, :func:`cpu_seconds`; ``formatter`` is the
    time spent in :func:`ssegen.formatting.format_sources`, ruff's subprocess included)."""
    import ssegen.emit
    import ssegen.formatting
    from ssegen.config import OutputSettings
    from ssegen.pipeline import build, generate

    settings = OutputSettings(formatter=formatter)
    original = ssegen.formatting.format_sources
    spent = [0.0]

    def timed(*args: Any, **kwargs: Any) -> dict[str, str]:
        start = cpu_seconds()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += cpu_seconds() - start

    best = {"seconds": float("inf"), "formatter": 0.0, "rest": 0.0}
    ssegen.emit.format_sources = timed  # type: ignore[assignment]
    try:
        for run in range(runs):
            ssegen.formatting._black_cached.cache_clear()
            ssegen.formatting._RUFF_CACHE.clear()
            spent[0] = 0.0
            target = out / f"{formatter}{run}"
            start = cpu_seconds()
            reports = build(specs, None, settings)
            generate(specs, target, reports, settings, all_providers=True)
            seconds = cpu_seconds() - start
            if any(r.failed for r in reports):
                raise SystemExit(f"{specs}: generation failed: {[d.format() for r in reports for d in r.diagnostics]}")
            if seconds < best["seconds"]:
                best = {"seconds": seconds, "formatter": spent[0], "rest": seconds - spent[0]}
            shutil.rmtree(target)
    finally:
        ssegen.emit.format_sources = original  # type: ignore[assignment]
    return best


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished children (ruff) so far:
    on a shared machine, wall time swings with other load, CPU time far less."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def slope(points: list[tuple[int, float]]) -> float | None:
    """The least-squares slope of log(seconds) on log(messages) (1: linear, 2: quadratic);
    None for fewer than two sizes."""
    if len({n for n, _ in points}) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def measure_scaling(runs: int, max_messages: int) -> dict[str, Any]:
    """The scaling and formatter-share tables (see the module docstring)."""
    sizes = [n for n in SIZES if n <= max_messages] or [min(SIZES)]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ssegen-scale-") as tmp:
        folder = Path(tmp)
        sources: list[tuple[str, int | None, Path]] = [("seed specs", None, ROOT / "specs")]
        if OPENAI_OPENAPI.is_file():
            (folder / "openai-specs" / "openai").mkdir(parents=True)
            shutil.copy(OPENAI_OPENAPI, folder / "openai-specs" / "openai" / "openapi.yaml")
            sources.append(("OpenAI openapi.yaml", None, folder / "openai-specs"))
        for n in sizes:
            specs = folder / f"synthetic{n}"
            (specs / "synthetic").mkdir(parents=True)
            document = json.dumps(synthetic_document(n), indent=1)
            (specs / "synthetic" / "asyncapi.json").write_text(document, encoding="utf-8")
            sources.append((f"synthetic, {n} messages", n, specs))
        warm = next(specs for _, messages, specs in sources if messages is not None)
        _generate_in_process(warm, folder / "warm", "ruff", 1)  # imports and template compilation
        for label, messages, specs in sources:
            row: dict[str, Any] = {"source": label, "messages": messages}
            for formatter in FORMATTERS:
                row[formatter] = _generate_in_process(specs, folder / "out", formatter, runs)
            row["peak_rss_mb"] = _peak_rss_mb()
            rows.append(row)
            if messages is not None:
                shutil.rmtree(specs)
    fitted = [r for r in rows if r["messages"] is not None and r["messages"] >= 100]
    fitted = fitted if len(fitted) >= 2 else [r for r in rows if r["messages"] is not None]
    slopes = {
        f"{formatter}_{part}": slope([(r["messages"], r[formatter][part]) for r in fitted])
        for formatter in FORMATTERS
        for part in ("seconds", "rest")
    }
    return {"runs": runs, "rows": rows, "fit_sizes": [r["messages"] for r in fitted], "slopes": slopes}


def _print_scaling(scaling: dict[str, Any]) -> None:
    print()
    print(f"Generate time against document size, in one process, best of {scaling['runs']} (CPU seconds)")
    header = (
        f"{'source':<28} {'black':>8} {'format':>7} {'share':>6} {'ruff':>8} {'format':>7} {'share':>6}"
        f" {'rest':>8} {'RSS MB':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in scaling["rows"]:
        b, f = r["black"], r["ruff"]
        print(
            f"{r['source']:<28} {b['seconds']:>8.2f} {b['formatter']:>7.2f} {b['formatter'] / b['seconds']:>6.0%}"
            f" {f['seconds']:>8.2f} {f['formatter']:>7.2f} {f['formatter'] / f['seconds']:>6.0%}"
            f" {f['rest']:>8.2f} {r['peak_rss_mb']:>7.0f}"
        )
    print("(format: seconds in the formatter, share of the total; rest: the total without the formatter,")
    print(" ruff's run; RSS: the process's peak so far)")
    sizes = ", ".join(str(n) for n in scaling["fit_sizes"])
    shown = {k: ("n/a" if v is None else f"{v:.2f}") for k, v in scaling["slopes"].items()}
    print(
        f"log-log slope over {sizes} messages: black total {shown['black_seconds']}, ruff total "
        f"{shown['ruff_seconds']}, without the formatter {shown['ruff_rest']} (1: linear)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per command (best is kept)")
    parser.add_argument(
        "--scale-runs", type=int, default=1, help="runs per size and formatter of the scaling table (best is kept)"
    )
    parser.add_argument(
        "--max-messages",
        type=int,
        default=max(SIZES),
        help=f"largest synthetic document of the scaling table, in messages (sizes: {', '.join(map(str, SIZES))})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    results = measure(max(1, args.runs))
    results["scaling"] = measure_scaling(max(1, args.scale_runs), args.max_messages)
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
    print(f"{'ssegen generate (no-op)':<44} {s['generate-noop']:>8.3f} {results['generate_noop_vs_dcg']:>6.2f}x")
    print(f"{'datamodel-codegen (DeepSeek chunk, msgspec)':<44} {s['dcg']:>8.3f} {1:>6.2f}x")
    ratio = results["generate_pydantic_vs_dcg_pydantic"]
    print(f"{'ssegen generate --model pydantic (all)':<44} {s['generate-pydantic']:>8.3f} {ratio:>6.2f}x")
    print(f"{'datamodel-codegen (DeepSeek chunk, pydantic)':<44} {s['dcg-pydantic']:>8.3f} {1:>6.2f}x")
    print("(the pydantic rows: ratio to datamodel-codegen's pydantic run)")
    if s["generate-openapi"] is not None:
        print(f"{'ssegen generate (OpenAI openapi.yaml, 3 MB)':<44} {s['generate-openapi']:>8.3f}")
    else:
        print(f"ssegen generate (OpenAI openapi.yaml): skipped, {OPENAI_OPENAPI} is absent")
    _print_scaling(results["scaling"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

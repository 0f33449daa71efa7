"""Hostile specs: every case of ``tests/specs_with_errors/`` through the real CLI.

Each case is a folder ``tests/specs_with_errors/<case>/`` used as ``--specs``: it
holds one provider folder (the hostile sources) and ``expected.json``::

    {
      "why": "what the case attacks",
      "provider": "demo",
      "exit": 1,                       # ssegen generate's exit code (1: errors)
      "diagnostics": [                 # each must be reported, at exactly this place
        {"code": "ref-escape", "severity": "error", "file": "demo/asyncapi.yaml",
         "line": 17, "pointer": "/channels/..."}
      ],
      "emits": true,                   # a package is generated (then: it imports and
                                       # passes mypy --strict)
      "decode": [                      # wire names survive through field aliases
        {"class": "Chunk", "json": {"x-y": "a"}, "fields": {"x_y": "a"}}
      ],
      "injection": true,               # no executable trace of the payload
      "docstrings": {"Chunk": ["text the class docstring must still say"]},
      "xfail": "reason"                # a known bug outside the loader/emitter
    }

For every case: no traceback from ``ssegen generate`` nor ``ssegen ir``; the
expected diagnostics with file, line and pointer; exit code 1 exactly when there
are errors; nothing written outside ``--out``.  When code is emitted it is
imported in a subprocess (one for all cases), type-checked with one
``mypy --strict`` run over all packages (beside one copy of the runtime they all
import, each case's copy checked identical to it), and decoded with the wire names.
Injection cases are parsed with :mod:`ast`: no call of ``os.system``, no import
of ``os``, anywhere.

The cases run in two worker processes (the CLI renders with black, which is
the slow part); the whole module takes about half a minute on two cores.  Its
tests share those runs, so the default run sends them all to one worker
(``helpers.scheduling``).
"""

from __future__ import annotations

import ast
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from mypy import api as mypy_api

CORPUS = ROOT / "tests" / "specs_with_errors"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expected.json").is_file())
PWNED = Path("/tmp/ssegen-pwned")  # what the injection payloads try to create
#: Diagnostics of the code model (src/ssegen/codemodel/): `ssegen ir` stops before it.
CODE_MODEL_CODES = frozenset(
    {
        "identifier-collision",
        "member-name-unsupported",
        "identifier-lossy",
        "identifier-renamed",
        "message-not-object",
        "name-conflict",
        "provider-name-invalid",
        "union-untagged",
    }
)


def _expected(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS / case / "expected.json").read_text(encoding="utf-8"))
    return data


def _package(case: str) -> str:
    """The output folder (= top-level package) name of a case."""
    return "hostile_" + case.replace("-", "_")


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if "__pycache__" not in p.parts}


def _run_case(job: tuple[str, str]) -> dict[str, Any]:
    """Run ``ssegen generate`` and ``ssegen ir`` on one case (in a worker process)."""
    from click.testing import CliRunner

    from ssegen.cli import main

    case, root = job
    os.chdir(root)  # a worker process: run as a user would, outside ssegen's own [tool.ssegen]
    specs = CORPUS / case
    out = Path(root) / _package(case)
    provider = _expected(case)["provider"]
    before = _tree(specs)
    result: dict[str, Any] = {}
    for name, args in (
        ("generate", ["generate", "--specs", str(specs), "--out", str(out), "--format", "json"]),
        ("ir", ["ir", "--specs", str(specs), "--format", "json", provider]),
    ):
        run = CliRunner().invoke(main, args)
        crash = None
        if run.exception is not None and not isinstance(run.exception, SystemExit):
            crash = "".join(traceback.format_exception(run.exception))
        result[name] = {"exit": run.exit_code, "stdout": run.stdout, "stderr": run.stderr, "crash": crash}
    result["specs_changed"] = sorted(_tree(specs) ^ before)
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    """Every case run once: (output root, case -> CLI results)."""
    PWNED.unlink(missing_ok=True)
    root = tmp_path_factory.mktemp("hostile")
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_run_case, [(case, str(root)) for case in CASES], chunksize=1)
    return root, dict(zip(CASES, results, strict=True))


@pytest.fixture(scope="module")
def emitted(runs: tuple[Path, dict[str, dict[str, Any]]]) -> list[str]:
    """The cases whose package was generated and may be imported.

    A case marked ``xfail`` is never imported nor type-checked: its known bug may
    be a live injection, and importing it would run the payload.
    """
    root, _ = runs
    return [
        case
        for case in CASES
        if _expected(case)["emits"]
        and not _expected(case).get("xfail")
        and (root / _package(case) / _expected(case)["provider"] / "models.py").is_file()
    ]


def test_corpus_is_big_enough() -> None:
    assert len(CASES) >= 30
    assert all(_expected(case)["diagnostics"] or _expected(case)["emits"] for case in CASES)


def _case_params() -> list[Any]:
    params = []
    for case in CASES:
        reason = _expected(case).get("xfail")
        marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
        params.append(pytest.param(case, marks=marks, id=case))
    return params


@pytest.mark.parametrize("case", _case_params())
def test_cli_reports_the_expected_diagnostics(case: str, runs: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    root, results = runs
    expected = _expected(case)
    generate, ir = results[case]["generate"], results[case]["ir"]
    assert generate["crash"] is None, generate["crash"]
    assert ir["crash"] is None, ir["crash"]
    assert "Traceback" not in generate["stderr"] + ir["stderr"]
    diagnostics = json.loads(generate["stdout"])
    places = [{k: d[k] for k in ("code", "severity", "file", "line", "pointer")} for d in diagnostics]
    for want in expected["diagnostics"]:
        assert want in places, f"{case}: missing {want}; got {places}"
    has_errors = any(d["severity"] == "error" for d in diagnostics)
    assert generate["exit"] == expected["exit"] == (1 if has_errors else 0), diagnostics
    # `ssegen ir` sees the loader's diagnostics (the code model's come later) and agrees on errors.
    ir_payload = json.loads(ir["stdout"])
    ir_codes = {d["code"] for d in ir_payload["diagnostics"]}
    assert {w["code"] for w in expected["diagnostics"]} - CODE_MODEL_CODES <= ir_codes
    assert ir["exit"] == (1 if any(d["severity"] == "error" for d in ir_payload["diagnostics"]) else 0)
    # Nothing is written outside --out: the case folder is untouched, the output root
    # holds only this case's package folders, and no payload ran.
    assert results[case]["specs_changed"] == []
    assert not PWNED.exists()
    outside = [p.name for p in root.iterdir() if not p.name.startswith("hostile_")]
    assert outside == []
    package = root / _package(case)
    if package.is_dir():
        resolved = package.resolve()
        assert all(p.resolve().is_relative_to(resolved) for p in package.rglob("*"))
    if expected["emits"]:
        assert (package / expected["provider"] / "models.py").is_file()
        # Provider-controlled names (section titles) that name fixture files stay plain file names.
        for fixture in (package / expected["provider"]).glob("examples/*"):
            assert re.fullmatch(r"[\w-]{1,80}\.sse", fixture.name), fixture.name


def _module_sources(root: Path, case: str) -> dict[str, str]:
    folder = root / _package(case) / _expected(case)["provider"]
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py"))}


class _Executable(ast.NodeVisitor):
    """Collects executable traces of an injection: imports of os/subprocess, calls of system/popen/eval/exec."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [f"import {a.name}" for a in node.names if a.name.split(".")[0] in ("os", "subprocess", "shutil")]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").split(".")[0] in ("os", "subprocess", "shutil"):
            self.found.append(f"from {node.module} import")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("system", "popen", "eval", "exec", "__import__", "remove", "unlink", "rmtree"):
            self.found.append(ast.unparse(node))
        self.generic_visit(node)


def _docstrings(tree: ast.Module) -> dict[str, str]:
    docs = {"<module>": ast.get_docstring(tree, clean=False) or ""}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            docs[node.name] = ast.get_docstring(node, clean=False) or ""
    return docs


@pytest.mark.parametrize("case", [p for p in _case_params() if _expected(p.values[0]).get("injection")])
def test_injection_leaves_no_executable_trace(case: str, runs: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    root, _ = runs
    sources = _module_sources(root, case)
    assert sources, "no package emitted"
    docs: dict[str, str] = {}
    for name, source in sources.items():
        tree = ast.parse(source)
        visitor = _Executable()
        visitor.visit(tree)
        assert visitor.found == [], f"{name}: {visitor.found}"
        docs.update({f"{name}:{k}" if k == "<module>" else k: v for k, v in _docstrings(tree).items()})
    for cls, fragments in _expected(case).get("docstrings", {}).items():
        for fragment in fragments:
            assert fragment in docs[cls], f"{cls} docstring lost {fragment!r}: {docs[cls]!r}"


_IMPORT_SCRIPT = """
import json, sys
import msgspec
sys.path.insert(0, sys.argv[1])
report = {}
for job in json.loads(sys.argv[2]):
    try:
        package = __import__(job["package"] + "." + job["provider"], fromlist=["models"])
        results = []
        for check in job["decode"]:
            cls = getattr(package.models, check["class"])
            obj = msgspec.json.decode(json.dumps(check["json"]), type=cls)
            results.append({f: getattr(obj, f) for f in check["fields"]})
        report[job["case"]] = {"ok": True, "decoded": results, "channels": sorted(package.CHANNELS)}
    except BaseException as exc:
        report[job["case"]] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def imported(runs: tuple[Path, dict[str, dict[str, Any]]], emitted: list[str]) -> dict[str, Any]:
    root, _ = runs
    jobs = [
        {
            "case": c,
            "package": _package(c),
            "provider": _expected(c)["provider"],
            "decode": _expected(c).get("decode", []),
        }
        for c in emitted
    ]
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_SCRIPT, str(root), json.dumps(jobs)],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


@pytest.mark.parametrize("case", [p for p in _case_params() if _expected(p.values[0])["emits"]])
def test_emitted_package_imports_and_keeps_wire_names(case: str, imported: dict[str, Any]) -> None:
    result = imported.get(case)
    assert result is not None, "not emitted"
    assert result["ok"], result["error"]
    for check, got in zip(_expected(case).get("decode", []), result["decoded"], strict=True):
        assert got == check["fields"], check


def _runtime_files(case: str, root: Path) -> dict[str, bytes]:
    """Every file of a case's ``_runtime/`` (no ``__pycache__``) by its POSIX path in it, as bytes,
    the output folder's name in its docstring (``_runtime/__init__.py`` names it) as ``<out>``."""
    folder = root / _package(case) / "_runtime"
    return {
        p.relative_to(folder).as_posix(): p.read_bytes().replace(_package(case).encode(), b"<out>")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_emitted_packages_pass_mypy_strict(
    runs: tuple[Path, dict[str, dict[str, Any]]], emitted: list[str], tmp_path: Path
) -> None:
    """Every emitted package passes ``mypy --strict``, in one run.

    Each output folder holds the same runtime (``_runtime/``, written verbatim but for the folder's
    name in its docstring) and the same ``__init__.py``; checked identical here, they are
    type-checked once: every provider package is copied beside one copy of them (its relative
    imports ``.._runtime`` unchanged), so mypy reads one runtime instead of one per case
    (26 s -> 5 s)."""
    root, _ = runs
    assert emitted
    first = root / _package(emitted[0])
    runtime, init = _runtime_files(emitted[0], root), (first / "__init__.py").read_bytes()
    checks = (first / "_conformance.py").read_bytes()  # written verbatim but for the folder's name

    def same_checks(case: str) -> bool:
        found = (root / _package(case) / "_conformance.py").read_bytes()
        return found.replace(_package(case).encode(), b"<out>") == checks.replace(
            _package(emitted[0]).encode(), b"<out>"
        )

    combined = tmp_path / "hostile_packages"
    shutil.copytree(first / "_runtime", combined / "_runtime")
    (combined / "__init__.py").write_bytes(init)
    (combined / "_conformance.py").write_bytes(checks)
    for case in emitted:
        folder, provider = root / _package(case), _expected(case)["provider"]
        # Nothing of the output folder is left out: its Python files are the runtime, the
        # folder's __init__.py, the conformance tests' shared checks and the provider package.
        tops = {p.relative_to(folder).parts[0] for p in folder.rglob("*.py")}
        assert tops <= {"_runtime", "__init__.py", "_conformance.py", provider}, (case, tops)
        assert _runtime_files(case, root) == runtime, f"{case}: its _runtime/ differs"
        assert (folder / "__init__.py").read_bytes() == init, f"{case}: its __init__.py differs"
        assert same_checks(case), f"{case}: its _conformance.py differs"
        shutil.copytree(folder / provider, combined / _package(case))
    stdout, stderr, status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir", os.devnull, "--python-version", "3.11", str(combined)]
    )
    assert status == 0, stdout + stderr
    checked = len(list(combined.rglob("*.py")))
    assert stdout.strip() == f"Success: no issues found in {checked} source files", stdout


def test_provider_folder_name_with_newlines_cannot_inject(tmp_path: Path) -> None:
    """A provider folder name is provider-controlled too (a newline is legal in a POSIX file name)."""
    from click.testing import CliRunner

    from ssegen.cli import main

    name = 'x\nimport os\nos.system("id")\n#'
    (tmp_path / "specs" / name).mkdir(parents=True)
    source = CORPUS / "provider-name-dash" / "my-provider" / "asyncapi.yaml"
    (tmp_path / "specs" / name / "asyncapi.yaml").write_bytes(source.read_bytes())
    out = tmp_path / "hostile_out"
    run = CliRunner().invoke(
        main, ["generate", "--specs", str(tmp_path / "specs"), "--out", str(out), "--format", "json"]
    )
    assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
    assert run.exit_code == 1
    assert "provider-name-invalid" in {d["code"] for d in json.loads(run.stdout)}
    for path in out.rglob("*.py"):
        visitor = _Executable()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        assert visitor.found == [], f"{path}: {visitor.found}"


#: Address space `ssegen ir` may use on the ref fan-out (it needs about 300 MB; printed as a tree,
#: seven levels took 2.2 GB and nine were killed at 6 GB).
_IR_ADDRESS_SPACE = 1 << 30


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (_IR_ADDRESS_SPACE, _IR_ADDRESS_SPACE))


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_ir_of_a_ref_fan_out_is_linear_in_the_spec(fmt: str) -> None:
    """Ten $refs per level, nine levels deep (issue 25): `ssegen ir` writes each schema once in
    `$defs` and refers to it at its ten uses, within a memory limit. Its output is a small multiple
    of the spec (each schema and member printed with all its fields and provenance), not 10^9 leaves."""
    specs = CORPUS / "ref-fan-out"
    spec_bytes = (specs / "demo" / "asyncapi.json").stat().st_size
    run = subprocess.run(
        [sys.executable, "-m", "ssegen", "ir", "--specs", str(specs), "--format", fmt, "demo"],
        cwd=specs,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        preexec_fn=_limit_memory if sys.platform == "linux" else None,  # RLIMIT_AS is enforced on Linux
    )
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.encode("utf-8")) < 16 * spec_bytes
    printed = json.loads(run.stdout)
    ir, base = (printed["ir"], "#/ir") if fmt == "json" else (printed, "#")
    assert sorted(ir["$defs"]) == [f"L{level}" for level in range(10)]
    for level in range(9):
        members = ir["$defs"][f"L{level}"]["properties"]
        assert [m["schema"] for m in members] == [{"$ref": f"{base}/$defs/L{level + 1}"}] * 10


def test_generate_and_ir_of_a_fan_out_through_kept_keywords_are_linear_in_the_spec(tmp_path: Path) -> None:
    """Ten $refs per level through patternProperties, nine levels deep (issue 25): the keywords
    kept as written keep their references, so `ssegen generate` writes a schemas.json and
    `ssegen ir` an IR that are small multiples of the spec (each target once in `$defs`), within
    the memory limit (before: five levels wrote 53 MB, nine ran out of memory)."""
    specs = CORPUS / "ref-fan-out-pattern-properties"
    spec_bytes = (specs / "demo" / "asyncapi.json").stat().st_size
    out = tmp_path / "hostile_out"
    runs = {
        command: subprocess.run(
            [sys.executable, "-m", "ssegen", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
            preexec_fn=_limit_memory if sys.platform == "linux" else None,
        )
        for command, args in (
            ("generate", ["generate", "-q", "--specs", str(specs), "--out", str(out)]),
            ("ir", ["ir", "--specs", str(specs), "demo"]),
        )
    }
    for command, run in runs.items():
        assert run.returncode == 0, (command, run.stderr)
    schemas = out / "demo" / "schemas.json"
    assert schemas.stat().st_size < 4 * spec_bytes
    assert len(runs["ir"].stdout.encode("utf-8")) < 16 * spec_bytes
    doc = json.loads(schemas.read_text(encoding="utf-8"))
    target = "demo/asyncapi.json#/components/schemas/L{}"
    assert sorted(doc["$defs"]) == sorted(["L0", *(target.format(level) for level in range(1, 10))])
    ref = "#/$defs/demo~1asyncapi.json%23~1components~1schemas~1L{}"
    assert set(json.dumps(r) for r in doc["$defs"]["L0"]["patternProperties"].values()) == {
        json.dumps({"$ref": ref.format(1)})
    }
    ir = json.loads(runs["ir"].stdout)
    assert sorted(k for k in ir["$defs"] if "#" in k) == [target.format(level) for level in range(1, 10)]
